"""``flockgym train``: a run from a YAML config, or an interrupted run resumed."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from flockgym.envs import FlockgymError


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "train",
        help="train from a YAML config, or resume a run",
        description="Train from a YAML config (configs/<game>/<algo>.yaml), or "
        "continue an interrupted run from its newest checkpoint.",
    )
    p.add_argument("config", nargs="?", help="YAML config file (not needed with --resume)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, e.g. --set algo.learning_rate=3e-4 "
        "(repeatable; the value is read as YAML)",
    )
    p.add_argument(
        "--resume",
        metavar="RUN_DIR",
        type=Path,
        help="continue this run folder from its newest checkpoint",
    )
    p.add_argument(
        "--address",
        metavar="HOST:PORT",
        help="rllib_ppo: attach to this running Ray cluster (like RAY_ADDRESS) instead of "
        "starting a local Ray instance",
    )
    p.set_defaults(run=run_train)


def run_train(args: argparse.Namespace) -> int:
    from flockgym.common.errors import require_train_extra

    require_train_extra("flockgym train", ("torch", "stable_baselines3", "sb3_contrib", "yaml"))
    from flockgym.bots.shipped import resolve_config
    from flockgym.training.parallel import WorkerError
    from flockgym.training.train import resume_run, train_from_file

    if args.address:
        # Read where Ray is started (training/rllib/run.py); not part of the run's config.
        os.environ["RAY_ADDRESS"] = args.address
    try:
        if args.resume is not None:
            if args.config is not None:
                raise FlockgymError("give either CONFIG or --resume RUN_DIR, not both")
            resume_run(args.resume, args.overrides)
        elif args.config is None:
            raise FlockgymError("CONFIG is required (or --resume RUN_DIR)")
        else:
            train_from_file(resolve_config(args.config), args.overrides)
    except WorkerError as err:
        # A batched worker died (or failed): what happened and how to resume, as
        # the message says it; a traceback of the training process adds nothing.
        print(f"flockgym train: error: {err}", file=sys.stderr)
        return 1
    return 0
