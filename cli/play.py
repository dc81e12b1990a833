"""``flockgym play``, ``serve`` and ``replay``: games with a person at the table, in the terminal
or a browser, and saved games played again."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from flockgym.cli.arguments import (
    add_option_argument,
    int_at_least,
    parse_options,
    seed_value,
)
from flockgym.common.errors import (
    MissingExtraError,
)
from flockgym.envs import list_envs


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description="Play one game from a seat, against bots or checkpoints.",
    )
    p.add_argument(
        "env", choices=list_envs(), metavar="ENV_ID", help=f"env id: {', '.join(list_envs())}"
    )
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument(
        "--opponents",
        default="heuristic",
        metavar="SPEC,...",
        help="one bot spec for every other seat, or one per seat (default heuristic)",
    )
    p.add_argument("--seed", type=seed_value, help="deal seed (default: a random one, printed)")
    add_option_argument(p)
    p.add_argument(
        "--save",
        type=Path,
        default=Path("runs/games"),
        metavar="DIR",
        help="folder the game is saved in, as flockgym serve saves games (default runs/games)",
    )
    p.add_argument("--no-save", action="store_true", help="do not save the game")
    p.set_defaults(run=run_play)

    p = sub.add_parser(
        "serve",
        help="play in a browser: a local server for every registered env",
        description="Start one local process serving a page where people play any "
        "registered env against bots and checkpoints; every game is saved as JSON.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int_at_least(1), default=8000, help="port (default 8000)")
    p.add_argument(
        "--models",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a folder of checkpoints or run folders the page may seat (repeatable); "
        "the shipped checkpoints are always offered",
    )
    p.add_argument(
        "--data",
        type=Path,
        default=Path("runs/games"),
        metavar="DIR",
        help="folder of the saved games (default runs/games)",
    )
    p.add_argument(
        "--max-games", type=int_at_least(1), default=100, help="live games at most (default 100)"
    )
    p.add_argument(
        "--idle-minutes",
        type=int_at_least(1),
        default=60,
        help="a game idle this long is saved as abandoned and dropped (default 60)",
    )
    p.add_argument(
        "--access-token",
        default=os.environ.get("FLOCKGYM_ACCESS_TOKEN"),
        metavar="TOKEN",
        help="token every API request must carry (default: $FLOCKGYM_ACCESS_TOKEN; off "
        "loopback one is generated and printed when none is given)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name clients reach this server by (the Host header; repeatable)",
    )
    p.add_argument(
        "--games-per-client",
        type=int_at_least(1),
        default=20,
        help="running games one client address may hold at once (default 20)",
    )
    p.add_argument(
        "--games-per-minute",
        type=int_at_least(1),
        default=30,
        help="games one client address may create a minute (default 30)",
    )
    p.add_argument(
        "--max-connections",
        type=int_at_least(1),
        default=400,
        help="open connections at most; more are answered 503 (default 400)",
    )
    p.add_argument(
        "--request-seconds",
        type=int_at_least(1),
        default=10,
        help="seconds a client has to send a request (default 10)",
    )
    p.set_defaults(run=run_serve)

    p = sub.add_parser(
        "replay",
        help="replay a saved game in the terminal (and check it still replays)",
        description="Play a saved game (from flockgym serve or flockgym play) again from "
        "its seed, checking every move and the final result.",
    )
    p.add_argument("file", type=Path, metavar="FILE", help="a saved game (.json)")
    p.add_argument(
        "--show",
        choices=("moves", "tables"),
        default="moves",
        help="moves: a line per move (default); tables: the table before every move too",
    )
    p.add_argument("--seat", metavar="AGENT", help="tables as this seat saw them (default: all)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds between moves (default 0)")
    p.add_argument(
        "--check", action="store_true", help="only check that it replays exactly (exit 2 if not)"
    )
    p.set_defaults(run=run_replay)


def run_play(args: argparse.Namespace) -> int:
    from flockgym.play.terminal import play_terminal

    play_terminal(
        args.env,
        args.seat,
        args.opponents,
        args.seed,
        parse_options(args.options),
        save_dir=None if args.no_save else args.save,
    )
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from importlib.util import find_spec

    for module in ("starlette", "uvicorn"):
        if find_spec(module) is None:
            raise MissingExtraError(module, "flockgym serve", extra="play")
    from flockgym.play.app import ServerConfig
    from flockgym.play.server import ConnectionLimits, access_token_for, allowed_hosts, serve

    config = ServerConfig(
        data_dir=args.data,
        models=args.models,
        max_games=args.max_games,
        idle_seconds=args.idle_minutes * 60,
        allowed_hosts=allowed_hosts(args.host, tuple(args.allowed_host)),
        access_token=access_token_for(args.host, args.access_token),
        games_per_client=args.games_per_client,
        games_per_client_minute=args.games_per_minute,
        body_seconds=float(args.request_seconds),
    )
    limits = ConnectionLimits(
        max_connections=args.max_connections, request_seconds=float(args.request_seconds)
    )
    serve(config, args.host, args.port, limits)
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from flockgym.play.replay import replay_terminal

    replay_terminal(args.file, args.show, args.seat, args.delay, args.check)
    return 0
