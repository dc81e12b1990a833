"""The tree search bot (``ismcts``) against OpenSpiel's ``ISMCTSBot`` at the same
table, through the bridge: who wins, and what each spent a move.

    python benchmarks/ismcts_openspiel_duel.py --env astrobirdz_v0 --deals 12 \
        --ours ismcts:budget=100,rollout=random \
        --json benchmarks/results/ismcts_duel/astrobirdz_random.json
    python benchmarks/ismcts_openspiel_duel.py --summary benchmarks/results/ismcts_duel/*.json

Every deal is a pyspiel game of the bridge seeded with the deal's seed, played
once per seating: at 2 players with the two bots' seats swapped, at more with
the seats rotated so each bot sits at every seat (the seats neither bot holds
are the game's heuristic). OpenSpiel's bot is the one of docs/own-code.md's
snippet (100 simulations, UCT constant 2, one random rollout per leaf, seeded);
ours acts on the bridge state's own env (``state.core.env``), which is the table
it would see in any harness, and its move is applied to the pyspiel state.
Chance nodes are sampled from their stated odds with a generator seeded per
game. A bot's move with one legal option is still timed for OpenSpiel's (it
searches it) and not for ours (it plays it at once), so the CPU seconds a move
are those of searched moves: ``time.process_time`` around each call.

Each game's result is each bot's share of the win (1/k for one of k winners),
the same for both bots of a deal, so a deal's difference (ours minus theirs,
averaged over its seatings) is paired; the interval is a t interval over deals.
Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from scipy import stats

import flockgym.openspiel  # noqa: F401  (registers the games)
from flockgym.bots.policies import make_participant
from flockgym.bots.search import win_share
from flockgym.common.version import git_commit
from flockgym.envs import entry, list_envs
from flockgym.envs.core.rng import derive_seed
from flockgym.openspiel import game_name

SIMULATIONS = 100
"""OpenSpiel's bot's simulations a move (docs/own-code.md's snippet)."""


def openspiel_bot(game: Any, seed: int) -> Any:
    """docs/own-code.md's ``ISMCTSBot``, seeded."""
    rng = np.random.RandomState(seed % 2**32)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=SIMULATIONS, random_state=rng
    )


def seatings(players: int) -> list[tuple[int, int]]:
    """(our seat, their seat) of each game of a deal: swapped at 2 players,
    rotated at more (theirs at the seat after ours)."""
    if players == 2:
        return [(0, 1), (1, 0)]
    return [(s, (s + 1) % players) for s in range(players)]


class Clock:
    """CPU seconds and count of one side's searched moves."""

    def __init__(self) -> None:
        self.seconds, self.moves = 0.0, 0

    def per_move(self) -> float:
        return self.seconds / max(1, self.moves)


def play(
    env_id: str, players: int, ours_spec: str, deal_seed: int, seats: tuple[int, int],
    clocks: dict[str, Clock],
) -> tuple[float, float]:  # fmt: skip
    """One game of a deal at one seating: our and their share of the win."""
    ours_seat, their_seat = seats
    game = pyspiel.load_game(game_name(env_id), {"num_players": players, "seed": deal_seed})
    state = game.new_initial_state()
    options = {"num_players": players}
    ours = make_participant(ours_spec, env_id, options).new_bot(derive_seed(deal_seed, 1))
    theirs = openspiel_bot(game, derive_seed(deal_seed, 2))
    heuristic = make_participant("heuristic", env_id, options)
    others = {s: heuristic.new_bot(derive_seed(deal_seed, 10 + s)) for s in range(players)}
    chance = np.random.default_rng(derive_seed(deal_seed, 3))
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(actions, p=probs)))
            continue
        seat = state.current_player()
        if seat == their_seat:
            started = time.process_time()
            action = theirs.step(state)
            clocks["openspiel"].seconds += time.process_time() - started
            clocks["openspiel"].moves += 1
        else:
            raw = state.core.env
            agent = raw.agent_selection
            bot = ours if seat == ours_seat else others[seat]
            if hasattr(bot, "see_table"):
                bot.see_table(raw, agent)
            started = time.process_time()
            action = int(bot.act(raw.observe(agent), raw.view(agent)))
            if seat == ours_seat and getattr(bot, "last_simulations", 0):
                clocks["ismcts"].seconds += time.process_time() - started
                clocks["ismcts"].moves += 1
        state.apply_action(int(action))
    engine = state.core.env.game
    return win_share(engine, ours_seat), win_share(engine, their_seat)


def measure(env_id: str, players: int, ours_spec: str, deals: int, seed: int) -> dict[str, Any]:
    clocks = {"ismcts": Clock(), "openspiel": Clock()}
    commit = git_commit()  # the code that plays, before anything can change it
    rows = []
    for d in range(deals):
        deal_seed = derive_seed(seed, d) % 2**31  # a pyspiel int parameter
        results = [
            play(env_id, players, ours_spec, deal_seed, s, clocks) for s in seatings(players)
        ]
        rows.append({"deal_seed": deal_seed, "ours": [r[0] for r in results],
                     "theirs": [r[1] for r in results]})  # fmt: skip
        print(f"deal {d + 1}/{deals}: ours {sum(r[0] for r in results):g}, "
              f"theirs {sum(r[1] for r in results):g}", flush=True)  # fmt: skip
    return {
        "command": "python benchmarks/ismcts_openspiel_duel.py " + " ".join(sys.argv[1:]),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "env": env_id,
        "players": players,
        "ours": ours_spec,
        "openspiel": f"ISMCTSBot({SIMULATIONS} simulations, uct_c=2, random rollouts)",
        "seed": seed,
        "deals": rows,
        "cpu_seconds_per_move": {k: c.per_move() for k, c in clocks.items()},
        "searched_moves": {k: c.moves for k, c in clocks.items()},
    }


def paired(run: dict[str, Any]) -> tuple[float, float, float, float]:
    """Our and their mean share of the win, the mean per-deal difference and the
    half-width of its 95% t interval (nan under 2 deals)."""
    ours = [statistics.mean(d["ours"]) for d in run["deals"]]
    theirs = [statistics.mean(d["theirs"]) for d in run["deals"]]
    diffs = [a - b for a, b in zip(ours, theirs, strict=True)]
    n = len(diffs)
    half = math.nan
    if n >= 2:
        half = float(stats.t.ppf(0.975, n - 1)) * statistics.stdev(diffs) / math.sqrt(n)
    return statistics.mean(ours), statistics.mean(theirs), statistics.mean(diffs), half


def summary(runs: list[dict[str, Any]]) -> str:
    lines = [
        "| game | players | ours | deals | ours wins | OpenSpiel's wins | difference (95% CI) "
        "| ours CPU s / move | OpenSpiel's CPU s / move |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in runs:
        ours, theirs, diff, half = paired(run)
        cpu = run["cpu_seconds_per_move"]
        lines.append(
            f"| {run['env']} | {run['players']} | `{run['ours']}` | {len(run['deals'])} "
            f"| {ours:.1%} | {theirs:.1%} | {diff:+.1%} ± {half:.1%} "
            f"| {cpu['ismcts']:.3f} | {cpu['openspiel']:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", choices=list_envs(), help="the game")
    parser.add_argument("--players", type=int, default=0, help="default: the fewest (2 or 3)")
    parser.add_argument("--ours", default=f"ismcts:budget={SIMULATIONS},rollout=random")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=4546, help="the deals (fresh)")
    parser.add_argument("--json", metavar="FILE", help="save the run here")
    parser.add_argument("--summary", nargs="+", type=Path, metavar="FILE", help="saved runs")
    args = parser.parse_args()
    if args.summary:
        print(summary([json.loads(p.read_text()) for p in args.summary]))
        return
    if not args.env:
        parser.error("a duel needs --env (or --summary FILE)")
    players = args.players or max(2, min(entry(args.env).player_counts))
    run = measure(args.env, players, args.ours, args.deals, args.seed)
    print(summary([run]))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(run, indent=2) + "\n")


if __name__ == "__main__":
    main()
