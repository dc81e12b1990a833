"""``flockgym plot``: a run's learning curves."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flockgym.cli.arguments import (
    int_at_least,
)


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "plot",
        help="PNG of learning curves: one run, or several overlaid, seeds aggregated",
        description="Plot evaluation win rate and mean points against each opponent, "
        "self-play win rate, PPO losses and entropy over steps. Several runs are "
        "overlaid; runs of one config that differ only in their seed are drawn as their "
        "mean with a band (min to max over seeds).",
    )
    p.add_argument("run_dirs", type=Path, nargs="+", metavar="RUN_DIR", help="run folders")
    p.add_argument(
        "--out",
        type=Path,
        help="PNG path (default RUN_DIR/learning_curves.png for one run; required for several)",
    )
    p.add_argument(
        "--smooth",
        type=int_at_least(1),
        default=10,
        metavar="N",
        help="trailing mean over N points for the noisy curves (default 10; 1: raw)",
    )
    p.set_defaults(run=run_plot)


def run_plot(args: argparse.Namespace) -> int:
    from flockgym.common.errors import require_train_extra

    require_train_extra("flockgym plot", ("matplotlib",))
    from flockgym.evaluation.plot import plot_runs

    print(plot_runs(args.run_dirs, args.out, smooth_window=args.smooth))
    return 0
