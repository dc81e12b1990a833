"""``flockgym compare``: two bots (or one against a field) on paired deals, optionally under the
sequential test."""

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
from flockgym.envs import FlockgymError, list_envs


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="a paired verdict between two agents on duplicate deals (optionally an SPRT)",
        description="Play A and B on the same deals from the same seats (at 2 players they "
        "swap seats; at more, each sits alone among the same field) and report the paired "
        "win-rate, mean-points and Elo differences with 95% intervals, the likelihood of "
        "superiority, Plackett-Luce ratings, and with --sprt a sequential test.",
    )
    p.add_argument("a", metavar="A", help="bot spec of A (random, heuristic, a checkpoint, ...)")
    p.add_argument("b", metavar="B", help="bot spec of B")
    p.add_argument(
        "--env",
        required=True,
        choices=list_envs(),
        metavar="ENV_ID",
        help=f"env id: {', '.join(list_envs())}",
    )
    add_option_argument(p)
    p.add_argument(
        "--field",
        metavar="SPEC[,SPEC...]",
        help="from 3 players: the bots around A and B, one spec for every other seat or one "
        "per other seat from the seat after theirs (default heuristic)",
    )
    p.add_argument(
        "--deals",
        type=deal_count,
        metavar="N",
        help="number of deals, 2 to 100000 (default 100; not with --sprt)",
    )
    p.add_argument(
        "--sprt",
        type=elo_pair,
        metavar="ELO0,ELO1",
        help="sequential test of H0: Elo difference ELO0 against H1: ELO1 (e.g. 0,20), "
        "stopping at the first deal where it decides (none before 10 decisive deals)",
    )
    p.add_argument(
        "--elo-model",
        choices=("normalized", "logistic"),
        help="SPRT: the Elo of ELO0,ELO1: normalized (default, fishtest's: the same deals "
        "at any draw rate) or logistic",
    )
    p.add_argument(
        "--alpha", type=float, help="SPRT: chance of accepting H1 when H0 holds (default 0.05)"
    )
    p.add_argument(
        "--beta", type=float, help="SPRT: chance of accepting H0 when H1 holds (default 0.05)"
    )
    p.add_argument(
        "--max-deals",
        type=deal_count,
        metavar="N",
        help="SPRT: stop undecided after N deals, at most 100000 (default 2000)",
    )
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals (default 0)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="folder for compare.json, compare.md and deals.jsonl, the deals played so far: "
        "the same command with the same folder plays on after a stop (default "
        "runs/compare/<env>-<time>)",
    )
    add_jobs_argument(p)
    add_engine_argument(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    p.set_defaults(run=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from flockgym.common.files import check_writable_folder
    from flockgym.evaluation.compare import (
        JOURNAL_FILE,
        RESULT_FILES,
        CompareRequest,
        DealJournal,
        compare,
        prepare,
        save,
    )

    if args.sprt is None:
        given = [
            name
            for name in ("alpha", "beta", "max_deals", "elo_model")
            if getattr(args, name) is not None
        ]
        if given:
            names = ", ".join(f"--{name.replace('_', '-')}" for name in given)
            raise FlockgymError(f"{names}: only with --sprt ELO0,ELO1 (a fixed --deals N has none)")
    request = CompareRequest(
        args.env,
        parse_options(args.options),
        args.a,
        args.b,
        tuple(item.strip() for item in (args.field or "").split(",") if item.strip()),
        args.deals if args.deals is not None or args.sprt is not None else 100,
        args.sprt,
        0.05 if args.alpha is None else args.alpha,
        0.05 if args.beta is None else args.beta,
        2000 if args.max_deals is None else args.max_deals,
        args.seed,
        args.elo_model or "normalized",
    )
    setup = prepare(request, args.engine)  # every argument checked before a folder is made
    out = args.out or Path("runs") / "compare" / f"{args.env}-{time.strftime('%Y%m%d-%H%M%S')}"
    if out.exists() and not out.is_dir():
        raise FlockgymError(f"--out {out} is a file; give a folder for compare.json and .md")
    check_writable_folder(out, (*RESULT_FILES, JOURNAL_FILE))
    journal = DealJournal(out, setup)
    before = len(journal.played())  # another comparison's journal is refused here
    if before:
        print(f"resuming: {before} deals already played ({out / JOURNAL_FILE})")
    try:
        result = compare(request, args.jobs, args.engine, not args.no_progress, setup, journal)
    except KeyboardInterrupt:
        played = len(journal.played())
        print(
            f"stopped after {played} deals, kept in {out / JOURNAL_FILE}: "
            "run the same command again to play on from there",
            file=sys.stderr,
        )
        return 130
    json_path, md_path, markdown = save(result, out)
    print(markdown)
    print(f"saved {json_path} and {md_path}")
    return 0


def elo_pair(text: str) -> tuple[float, float]:
    """An argparse ``type``: ``ELO0,ELO1``, two numbers with ELO0 < ELO1."""
    parts = text.split(",")
    try:
        low, high = (float(part) for part in parts)
    except ValueError:
        low = high = float("nan")
    if not (low < high and abs(low) < 1e4 and abs(high) < 1e4):
        raise argparse.ArgumentTypeError(
            f"must be ELO0,ELO1: two Elo differences with ELO0 < ELO1 (e.g. 0,20), got {text!r}"
        )
    return low, high
