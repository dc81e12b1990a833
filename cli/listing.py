"""``flockgym list`` and ``baselines``: what is registered and shipped, and the baseline tables."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flockgym.cli.arguments import (
    add_jobs_argument,
    deal_count,
    seed_value,
)
from flockgym.envs import entry, list_envs


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("list", help="registered envs, their bots, configs and checkpoints")
    p.set_defaults(run=run_list)

    p = sub.add_parser(
        "baselines",
        help="heuristic against random (and shipped checkpoints) for every env, as Markdown",
        description="Heuristic against random (and shipped checkpoints) for "
        "every registered env, as Markdown: printed, or written to --out "
        "(in a checkout: --out docs/baselines.md).",
    )
    p.add_argument(
        "--games", type=deal_count, default=200, metavar="N", help="deals, 2 to 100000 (200)"
    )
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals (default 0)")
    p.add_argument("--out", type=Path, help="Markdown file to write (default: print it)")
    p.add_argument(
        "--checkpoints",
        type=Path,
        help="folder of checkpoints by game, <game>/*.zip (default: the shipped ones)",
    )
    p.add_argument(
        "--env",
        dest="env_ids",
        action="append",
        choices=list_envs(),
        metavar="ENV_ID",
        help=f"only this env (repeatable; default every one: {', '.join(list_envs())})",
    )
    add_jobs_argument(p)
    p.set_defaults(run=run_baselines)


def run_list(args: argparse.Namespace) -> int:
    from flockgym.bots.shipped import game_folder, shipped_checkpoints, shipped_configs

    configs, checkpoints = shipped_configs(), shipped_checkpoints()
    for env_id in list_envs():
        item = entry(env_id)
        game = game_folder(env_id)
        print(f"{env_id}: {item.summary}")
        search = (
            ", search (search:KEY=VALUE,...), tree search (ismcts:KEY=VALUE,...; docs/search.md)"
            if item.resampler
            else ""
        )
        print(
            f"  players {min(item.player_counts)}-{max(item.player_counts)} "
            f"(default {item.default_players}); bots: random, heuristic "
            f"({item.heuristic_bot}){search}"
        )
        mine = [name for name in configs if name.startswith(f"{game}/")]
        print(f"  configs: {', '.join(mine) or '-'}")
        mine = [name for name in checkpoints if name.startswith(f"{game}/")]
        print(f"  checkpoints: {', '.join(mine) or '-'}")
    others = [name for name in configs if "/" not in name]
    if others:
        print(f"other configs: {', '.join(others)}")
    print(
        "configs and checkpoints ship with flockgym: name them as listed (flockgym train "
        "quickstart; --players asrus/ppo_5p)"
    )
    return 0


def run_baselines(args: argparse.Namespace) -> int:
    from flockgym.bots.shipped import checkpoints_root
    from flockgym.evaluation.baselines import baselines_markdown, write_baselines

    folder = args.checkpoints if args.checkpoints is not None else checkpoints_root()
    if args.out is None:
        page = baselines_markdown(args.games, args.seed, folder, True, args.env_ids, args.jobs)
        print(page, end="")
        return 0
    print(write_baselines(args.out, args.games, args.seed, folder, True, args.env_ids, args.jobs))
    return 0
