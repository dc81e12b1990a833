"""CPU seconds a move of the tree search bot (``ismcts``) beside OpenSpiel's
``ISMCTSBot`` on the bridge, in one run, both at 100 simulations with random
rollouts (OpenSpiel's as in benchmarks/openspiel_ismcts.py, docs/own-code.md's
snippet), over the first ``--moves`` decisions of a game seeded alike at the
game's fewest players (OpenSpiel's counts its forced moves too; ours plays a
forced move without searching, so only searched moves are timed).

    python benchmarks/ismcts_openspiel_peer.py --moves 3 --env asrus_v0 --env astrobirdz_v0 \
        --json benchmarks/results/ismcts_openspiel_peer.json

Needs the ``openspiel`` extra. The games are interleaved (OpenSpiel's moves of
a game, then ours), so the load of the machine hits both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

from openspiel_ismcts import SIMULATIONS, seconds_a_move  # benchmarks/: this folder
from run_helpers import add_run_arguments, print_and_save, print_saved

from flockgym.bots.policies import make_participant
from flockgym.envs import entry, list_envs, make


def ours_a_move(env_id: str, moves: int, seed: int = 0) -> list[float]:
    """CPU seconds of each of our first ``moves`` searched decisions (random play
    between them, as OpenSpiel's bot plays every seat)."""
    players = min(entry(env_id).player_counts)
    options = {"num_players": players}
    spec = f"ismcts:budget={SIMULATIONS},rollout=random"
    bots = make_participant(spec, env_id, options)
    env = make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    searchers = {a: bots.new_bot(seed + i) for i, a in enumerate(raw.possible_agents)}
    times: list[float] = []
    while len(times) < moves and raw.agents:
        agent = raw.agent_selection
        bot = searchers[agent]
        bot.see_table(raw, agent)
        start = time.process_time()
        action = bot.act(raw.observe(agent), raw.view(agent))
        if bot.last_simulations:
            times.append(time.process_time() - start)
        raw.step(int(action))
    return times


def measure(env_ids: list[str], moves: int) -> dict[str, Any]:
    games = []
    for env_id in env_ids:
        theirs = seconds_a_move(env_id, moves)
        ours = ours_a_move(env_id, moves)
        games.append(
            {
                "env": env_id,
                "players": min(entry(env_id).player_counts),
                "openspiel_seconds": theirs,
                "ismcts_seconds": ours,
                "openspiel_median": statistics.median(theirs),
                "ismcts_median": statistics.median(ours),
            }
        )
        print(summary({"games": games[-1:], "moves": moves}), flush=True)
    return {
        "command": "python " + " ".join(sys.argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "simulations": SIMULATIONS,
        "moves": moves,
        "games": games,
    }


def summary(run: dict[str, Any]) -> str:
    lines = [
        "| game | players | OpenSpiel ISMCTSBot CPU s / move | ismcts CPU s / move | speed ratio |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for game in run["games"]:
        ratio = game["openspiel_median"] / max(game["ismcts_median"], 1e-9)
        lines.append(
            f"| {game['env']} | {game['players']} | {game['openspiel_median']:.3f} "
            f"| {game['ismcts_median']:.3f} | {ratio:.2f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=3, help="decisions measured per game")
    parser.add_argument("--env", action="append", choices=list_envs(), help="default: all")
    add_run_arguments(parser)
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    print_and_save(measure(args.env or list_envs(), args.moves), summary, args.json)


if __name__ == "__main__":
    main()
