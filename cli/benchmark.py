"""``flockgym benchmark``: learners x games x seeds, ranked with intervals."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "benchmark",
        help="train a grid of learners x games x seeds and aggregate over seeds",
        description="Train every learner of SPEC.yaml on every game for every seed "
        "(its budget of learner steps each), play each final policy against the "
        "random bot, the heuristic and the game's shipped bot, and aggregate over "
        "seeds with rliable (IQM with stratified bootstrap intervals, probability of "
        "improvement, performance profiles) into report.md, benchmark.json and PNG "
        "plots. With curve_points in the spec, each run's checkpoints at that many "
        "points play the ladder too: sample-efficiency curves (curves.csv, "
        "curve_<rung>.png). Run again, it skips finished runs, resumes broken ones and "
        "measures what is not measured (docs/benchmark.md).",
    )
    p.add_argument("spec", metavar="SPEC.yaml", help="the grid (benchmarks/specs/*.yaml)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the benchmark folder: run folders, logs, report (default runs/benchmark/<name>)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar over the grid")
    p.set_defaults(run=run_benchmark)


def run_benchmark(args: argparse.Namespace) -> int:
    from flockgym.common.errors import require_train_extra

    require_train_extra(
        "flockgym benchmark", ("torch", "stable_baselines3", "sb3_contrib", "yaml", "rliable")
    )
    from flockgym.evaluation.benchmark import benchmark

    out = benchmark(args.spec, args.out, progress=not args.no_progress)
    print(f"report: {out / 'report.md'}")
    return 0
