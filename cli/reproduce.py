"""``flockgym reproduce``: a recorded result (a shipped bot's run, a saved grid's cell) trained
again and compared."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flockgym.cli.arguments import (
    int_at_least,
)
from flockgym.envs import FlockgymError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "reproduce",
        help="train a run or shipped checkpoint again; are the weights bit-identical?",
        description="Train again from what a run folder (or a shipped checkpoint) "
        "recorded: its resolved config, seed and commit (a commit other than this "
        "checkout's is a warning). Then compare the final weights tensor by tensor "
        "(bit-identical on CPU, or the first differing tensor) and the evaluations "
        "(progress.jsonl and the final tournament, paths aside), print a verdict and "
        "write reproduce.json in the new run folder. Exit 0: reproduced; 1: not; 2: "
        "bad input, or a plan that cannot match (nothing written). A shipped checkpoint "
        "(e.g. asrus/ppo_5p) re-runs its whole training: from about 6 minutes (asrus/ppo_5p) "
        "to about an hour of wall time on 2 cores, as the README beside each records "
        "(--dry-run prints that time and what would run). A saved benchmark grid "
        "(benchmark.json, with --spec) re-runs one cell (--cell) or all of them and "
        "compares every rung's score.",
    )
    p.add_argument(
        "source",
        metavar="RUN_OR_CHECKPOINT",
        help="a finished run folder, or a shipped checkpoint (flockgym list names them)",
    )
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the new run folder, which must not exist (default runs/reproduce/<name>-<UTC time>)",
    )
    p.add_argument(
        "--steps",
        type=int_at_least(1),
        metavar="N",
        help="re-run only the first N steps of a run folder and compare with its "
        "checkpoint of step N (checkpoints/step_<N>.zip)",
    )
    p.add_argument(
        "--spec",
        type=Path,
        metavar="SPEC.yaml",
        help="a saved benchmark grid: the spec it ran (e.g. benchmarks/specs/full.yaml), "
        "which must be the spec the grid recorded",
    )
    p.add_argument(
        "--cell",
        metavar="LEARNER/GAME/SEED",
        help="a saved benchmark grid: re-run only this cell (e.g. maskable_ppo/asrus_v0-5p/0; "
        "default every cell)",
    )
    p.add_argument("--dry-run", action="store_true", help="print what would run, and train nothing")
    p.set_defaults(run=run_reproduce)


def run_reproduce(args: argparse.Namespace) -> int:
    from flockgym.common.errors import require_train_extra

    require_train_extra("flockgym reproduce", ("torch", "stable_baselines3", "sb3_contrib", "yaml"))
    from flockgym.evaluation.reproduce import reproduce

    if args.source.endswith(".json"):
        from flockgym.evaluation.reproduce_grid import reproduce_grid

        if args.steps is not None:
            raise FlockgymError("--steps: only for a run folder, not a saved benchmark grid")
        return reproduce_grid(Path(args.source), args.spec, args.cell, args.out, args.dry_run)
    if args.spec is not None or args.cell is not None:
        raise FlockgymError("--spec and --cell: only for a saved benchmark grid (benchmark.json)")
    return reproduce(args.source, args.out, args.steps, args.dry_run)
