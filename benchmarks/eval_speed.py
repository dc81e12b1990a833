"""Tournament speed: the same duplicate tournament played one game after the
other (the engine before batching), batched on one env per game, and on the
vectorised engine in one and in ``--jobs`` processes, measured side by side in
one run; the results must be identical. Each path's wall time and CPU time (this
process's and its worker processes') are reported: on a shared machine the
wall time moves with the load, the CPU time much less.

    python benchmarks/eval_speed.py --deals 200   # the shipped Asrus bot, heuristic, random
    python benchmarks/eval_speed.py --deals 200 --json benchmarks/results/eval_speed.json

The README's figures are :func:`summary` of the saved run
(``benchmarks/results/eval_speed.json``; a test compares them), so that a new
run changes them in one place: ``python benchmarks/eval_speed.py --summary FILE``
prints the sentence.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from typing import Any

from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from run_helpers import add_run_arguments, print_and_save, print_saved

from flockgym.bots.policies import make_participant
from flockgym.evaluation.tournaments import tournament


def cpu_seconds() -> float:
    """CPU time of this process and of its finished child processes (a
    tournament's ``jobs`` workers are joined before it returns)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def summary(run: dict[str, Any]) -> str:
    """The README's sentence for a saved run: each path's wall time and CPU time,
    and its speed against the first in each."""
    first, first_cpu = run["runs"][0]["seconds"], run["runs"][0]["cpu_seconds"]
    parts = []
    for index, path in enumerate(run["runs"]):
        wall, cpu = path["seconds"], path["cpu_seconds"]
        if index == 0:
            parts.append(f"{path['name']} {wall:.1f} s ({cpu:.1f} CPU-s)")
        else:
            parts.append(
                f"{path['name']} {wall:.1f} s, {first / wall:.2f}x ({cpu:.1f} CPU-s, "
                f"{first_cpu / cpu:.2f}x)"
            )
    same = "identical" if run["identical"] else "DIFFERENT"
    return (
        f"{run['games']:,} games ({run['deals']} deals, players {run['players']}) on "
        f"{run['cores']} cores: " + "; ".join(parts) + f"; {same} standings."
    )


def measure(deals: int, jobs: int, players_text: str) -> dict[str, Any]:
    """The four paths one after the other, timed, their standings compared."""
    players = [make_participant(spec, "asrus_v0") for spec in players_text.split(",")]
    runs = {
        "one game after the other": {"batch": False},
        "batched, one env per game": {"engine": "scalar"},
        "vectorised engine": {"engine": "vector"},
        f"vectorised engine, {jobs} processes": {"engine": "vector", "jobs": jobs},
    }
    print(f"asrus_v0, players {players_text}, {deals} deals, {os.cpu_count()} cores")
    paths, results, games = [], {}, 0
    for name, kwargs in runs.items():
        started, cpu = time.perf_counter(), cpu_seconds()
        result = tournament("asrus_v0", players, deals, seed=0, **kwargs)
        seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        games = result.games
        results[name] = [(s.win_rate, s.mean_points, s.elo) for s in result.standings]
        paths.append({"name": name, "seconds": seconds, "cpu_seconds": cpu})
        print(f"  {name}: {result.games} games in {seconds:.1f} s, {cpu:.1f} CPU-s", flush=True)
    return {
        "command": " ".join(["python benchmarks/eval_speed.py", *sys.argv[1:]]),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_average": os.getloadavg(),
        "cores": os.cpu_count(),
        "deals": deals,
        "games": games,
        "players": players_text,
        "runs": paths,
        "identical": len({str(r) for r in results.values()}) == 1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", default="asrus/ppo_5p,heuristic,random")
    add_run_arguments(parser, "print a saved run's sentence and exit")
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    if args.deals < 1 or args.jobs < 1:
        parser.error(f"--deals {args.deals} --jobs {args.jobs}: allowed: at least 1 each")
    run = measure(args.deals, args.jobs, args.players)
    print_and_save(run, summary, args.json)


if __name__ == "__main__":
    main()
