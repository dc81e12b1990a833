"""Tournament speed: the same duplicate tournament played one game after the
other (the engine before batching), batched on one env per game, and on the
vectorised engine in one and in ``--jobs`` processes, measured side by side in
one run; the results must be identical.

    python benchmarks/eval_speed.py --deals 200   # the shipped Asrus bot, heuristic, random
"""

from __future__ import annotations

import argparse
import os
import time

from flockgym.training.evaluate import tournament
from flockgym.training.policies import make_participant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", default="asrus/ppo_5p,heuristic,random")
    args = parser.parse_args()
    players = [make_participant(spec, "asrus_v0") for spec in args.players.split(",")]
    runs = {
        "one game after the other (before)": {"batch": False},
        "batched, one env per game, 1 process": {"engine": "scalar"},
        "batched, vectorised engine, 1 process": {"engine": "vector"},
        f"batched, vectorised engine, {args.jobs} processes": {
            "engine": "vector",
            "jobs": args.jobs,
        },
    }
    print(f"asrus_v0, players {args.players}, {args.deals} deals, {os.cpu_count()} cores")
    seconds, results = {}, {}
    for name, kwargs in runs.items():
        started = time.perf_counter()
        result = tournament("asrus_v0", players, args.deals, seed=0, **kwargs)
        seconds[name] = time.perf_counter() - started
        results[name] = [(s.win_rate, s.mean_points, s.elo) for s in result.standings]
        print(f"  {name}: {result.games} games in {seconds[name]:.1f} s", flush=True)
    before = next(iter(seconds.values()))
    for name, value in seconds.items():
        print(f"  {name}: {before / value:.2f}x the speed of the first")
    same = len({str(r) for r in results.values()}) == 1
    print(f"  identical standings in all {len(runs)}: {same}")


if __name__ == "__main__":
    main()
