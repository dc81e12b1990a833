"""Watch bots play one seeded game, rendered turn by turn.

    python -m flockgym.envs.demo --env asrus_v0 --players 5 --seed 0 \
        --bots heuristic,random,random,random,random

Each seat is ``heuristic`` or ``random``; the table is printed from the seat to
act before every move, followed by the move, and the result at the end.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import entry, list_envs, make, make_bot
from .core.play import play_game


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Watch bots play one seeded game.")
    parser.add_argument("--env", default="asrus_v0", choices=list_envs(), help="env id")
    parser.add_argument("--players", type=int, default=None, help="number of players")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the bots")
    parser.add_argument(
        "--bots",
        default="heuristic,random",
        help="comma-separated bot kinds (heuristic, random), repeated to fill the seats",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    players = args.players or entry(args.env).default_players
    try:
        env = make(args.env, num_players=players, render_mode="ansi")
        kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
        bots = {
            f"player_{seat}": make_bot(args.env, kinds[seat % len(kinds)], seed=args.seed + seat)
            for seat in range(players)
        }
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    names = {agent: type(bot).__name__ for agent, bot in bots.items()}

    def show(env_: Any, agent: str, action: int) -> None:
        if not args.quiet:
            move = env_.unwrapped.action_to_string(agent, action)
            print(env_.render())
            print(f"--> {agent} ({names[agent]}) plays {move}\n")

    record = play_game(env, bots, seed=args.seed, on_step=show)
    if not args.quiet:
        print(env.unwrapped._render_text(None))
    print(f"\nResult after {len(record.moves)} moves (seed {args.seed}):")
    for agent, points in sorted(record.scores.items(), key=lambda kv: -kv[1]):
        outcome = record.returns[agent]
        print(f"  {agent:<9} {names[agent]:<20} {points:>7.0f} points  return {outcome:+.3f}")
    print("Winner(s): " + ", ".join(f"{w} ({names[w]})" for w in record.winners))
    return 0


if __name__ == "__main__":
    sys.exit(main())
