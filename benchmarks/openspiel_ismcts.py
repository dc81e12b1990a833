"""What OpenSpiel's ISMCTS costs a move on each game, in one run: the snippet of
docs/own-code.md (``ISMCTSBot`` with a random-rollout evaluator, 100 simulations,
the game's fewest players) makes the first ``--moves`` decisions of a seeded game, and the CPU
seconds of each are recorded. Random rollouts play every simulation to the end
of the game, so a game whose random games are long (Skybirds) waits far longer a
move than one whose random games are short: docs/own-code.md's snippet uses the
game this run finds quickest.

    python benchmarks/openspiel_ismcts.py --json benchmarks/results/openspiel_ismcts.json
    python benchmarks/openspiel_ismcts.py --summary benchmarks/results/openspiel_ismcts.json

Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import numpy as np
import pyspiel
from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from open_spiel.python.algorithms import ismcts, mcts
from run_helpers import add_run_arguments, print_and_save, print_saved

import flockgym.openspiel  # noqa: F401  (registers the games)
from flockgym.envs import entry, list_envs
from flockgym.openspiel import game_name

SIMULATIONS = 100


def seconds_a_move(env_id: str, moves: int, seed: int = 0) -> list[float]:
    """CPU seconds of each of the first ``moves`` ISMCTS decisions of a game at its
    fewest players."""
    players = min(entry(env_id).player_counts)
    game = pyspiel.load_game(game_name(env_id), {"num_players": players, "seed": seed})
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=SIMULATIONS, random_state=rng
    )
    state = game.new_initial_state()
    times: list[float] = []
    while len(times) < moves and not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        start = time.process_time()
        action = bot.step(state)
        times.append(time.process_time() - start)
        state.apply_action(action)
    return times


def measure(env_ids: list[str], moves: int) -> dict[str, Any]:
    games = []
    for env_id in env_ids:
        times = seconds_a_move(env_id, moves)
        players = min(entry(env_id).player_counts)
        median = statistics.median(times)
        games.append({"env": env_id, "players": players, "seconds": times, "median": median})
        print(f"{env_id}: median {games[-1]['median']:.2f} CPU-s a move", flush=True)
    return {
        "command": "python " + " ".join(sys.argv),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "simulations": SIMULATIONS,
        "moves": moves,
        "games": games,
    }


def quickest(run: dict[str, Any]) -> str:
    """The env whose ISMCTS move took the least CPU time in a saved run."""
    return min(run["games"], key=lambda game: game["median"])["env"]


def summary(run: dict[str, Any]) -> str:
    """The sentence docs/own-code.md states for a saved run."""
    parts = [f"{game['env']} ({game['players']}p) {game['median']:.2f}" for game in run["games"]]
    return (
        f"ISMCTSBot, {run['simulations']} simulations with random rollouts: "
        f"median CPU seconds a move over the first {run['moves']} moves: " + ", ".join(parts)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4, help="decisions measured per game")
    parser.add_argument("--env", action="append", choices=list_envs(), help="default: all")
    add_run_arguments(parser)
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    run = measure(args.env or list_envs(), args.moves)
    print_and_save(run, summary, args.json)


if __name__ == "__main__":
    main()
