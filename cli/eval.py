"""``flockgym eval``: a duplicate tournament between bots and checkpoints."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from flockgym.cli.arguments import (
    add_engine_argument,
    add_jobs_argument,
    add_option_argument,
    deal_count,
    parse_options,
    seed_value,
)
from flockgym.envs import FlockgymError, list_envs, make


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="play a duplicate tournament between bots and checkpoints",
        description="Play N seeded deals, each at every table of the seating, "
        "and report win rates and mean points (95% CIs) and Elo ratings.",
    )
    p.add_argument(
        "--env",
        required=True,
        choices=list_envs(),
        metavar="ENV_ID",
        help=f"env id: {', '.join(list_envs())}",
    )
    p.add_argument(
        "--players",
        required=True,
        metavar="SPEC,SPEC,...",
        help="bot specs: random, heuristic, path/to/checkpoint.zip (or a run "
        "folder), optionally @greedy or @sample; search[:budget=1s,rollout=heuristic] "
        "(its KEY=VALUE settings follow it, docs/search.md)",
    )
    p.add_argument(
        "--games",
        type=deal_count,
        default=100,
        metavar="N",
        help="number of deals, 2 to 100000 (each is played at every table; default 100)",
    )
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals (default 0)")
    p.add_argument(
        "--seating",
        choices=("rotate", "field"),
        default="rotate",
        help="rotate: everyone everywhere (default); field: the first player "
        "against a field of the second",
    )
    add_option_argument(p)
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="folder for tournament.json and tournament.md (default runs/eval/<env>-<time>)",
    )
    add_jobs_argument(p)
    add_engine_argument(p)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress (a bar on a terminal, else a line every few seconds)",
    )
    p.set_defaults(run=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    from flockgym.bots.policies import make_participant, parse_specs
    from flockgym.common.files import check_writable_folder
    from flockgym.common.provenance import Clock
    from flockgym.evaluation.tournaments import (
        RESULT_FILES,
        TournamentInterrupted,
        save_result,
        tournament,
    )

    options = parse_options(args.options)
    specs = parse_specs(args.players)
    if len(specs) < 2:
        raise FlockgymError(
            f"--players names {len(specs)} participant ({args.players}); a tournament needs "
            f"at least 2, e.g. --players {args.players},random (or --seating field with "
            "one opponent)"
        )
    if args.seating == "field" and len(specs) != 2:
        raise FlockgymError(
            f"--seating field needs exactly 2 players (the first against a field of the "
            f"second); --players names {len(specs)}"
        )
    out = args.out or Path("runs") / "eval" / f"{args.env}-{time.strftime('%Y%m%d-%H%M%S')}"
    if out.exists() and not out.is_dir():
        raise FlockgymError(f"--out {out} is a file; give a folder for tournament.json and .md")
    make(args.env, **options).close()  # bad options refused before the out folder is made
    players = [make_participant(spec, args.env, options) for spec in specs]
    check_writable_folder(out, RESULT_FILES)  # before the games, not after them
    clock = Clock()
    try:
        result = tournament(
            args.env,
            players,
            args.games,
            args.seed,
            options,
            seating=args.seating,
            progress=not args.no_progress,
            jobs=args.jobs,
            engine=args.engine,
        )
    except TournamentInterrupted as stop:
        if stop.result is None:
            print("interrupted before the first deal was finished; nothing saved", file=sys.stderr)
        else:
            json_path, md_path = save_result(stop.result, out, clock)
            print(stop.result.to_markdown())
            print(
                f"interrupted: saved the {stop.result.deals} finished deals (marked partial) "
                f"in {json_path} and {md_path}",
                file=sys.stderr,
            )
        return 130
    json_path, md_path = save_result(result, out, clock)
    print(result.to_markdown())
    print(f"saved {json_path} and {md_path}")
    return 0
