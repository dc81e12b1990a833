"""Watch bots play one seeded game, rendered turn by turn.

    python -m flockgym.envs.demo --env asrus_v0 --players 5 --seed 0 --bots heuristic,random

Each seat is ``heuristic`` or ``random``, read like ``flockgym play
--opponents``: the bots given take the first seats and the last one fills the
seats left (``heuristic,random`` at five players is a heuristic bot and four
random ones). The table is printed from the seat to act before every move,
followed by the move, and the result at the end; ``--delay`` seconds pass after
each move (default 1.0, a pace a person can read; 0 prints the game at once).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import Any

from . import entry, list_envs, make, make_bot
from .core.bots import fill_seats
from .core.play import play_game

DELAY = 1.0
"""Seconds after each shown move by default: time to read the table and the move."""


def delay_seconds(text: str) -> float:
    """A ``--delay``: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a delay; give seconds, a number >= 0 (0: no pause)"
        )
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Watch bots play one seeded game.")
    parser.add_argument("--env", default="asrus_v0", choices=list_envs(), help="env id")
    parser.add_argument("--players", type=int, default=None, help="number of players")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and the bots")
    parser.add_argument(
        "--bots",
        default="heuristic,random",
        help="comma-separated bot kinds (heuristic, random) for the first seats; the last "
        "fills the seats left, as in `flockgym play --opponents`",
    )
    parser.add_argument(
        "--delay",
        type=delay_seconds,
        default=DELAY,
        metavar="SECONDS",
        help=f"pause after each move (default {DELAY}; 0: print the whole game at once)",
    )
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, sleep: Callable[[float], None] = time.sleep) -> int:
    """Play and print the game; ``sleep`` waits out each move's ``--delay``."""
    args = parse_args(argv)
    players = args.players or entry(args.env).default_players
    try:
        env = make(args.env, num_players=players, render_mode="ansi")
        kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
        bots = {
            f"player_{seat}": make_bot(args.env, kind, seed=args.seed + seat)
            for seat, kind in enumerate(fill_seats(kinds, players, "--bots"))
        }
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    names = {agent: type(bot).__name__ for agent, bot in bots.items()}

    def show(env_: Any, agent: str, action: int) -> None:
        if not args.quiet:
            move = env_.unwrapped.action_to_string(agent, action)
            print(env_.render())
            print(f"--> {agent} ({names[agent]}) plays {move}\n", flush=True)
            if args.delay:
                sleep(args.delay)

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
