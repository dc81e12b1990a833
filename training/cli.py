"""The ``flockgym`` command: train, eval, plot, play, serve, replay, list, baselines.

Every subcommand has ``--help``. A bad argument exits with status 2 and a
message naming it (argparse's own errors, and ours: configs, bot specs,
checkpoints, run folders, env options); a game the person leaves, or a file
that cannot be written (a full disk, a read-only folder), exits with status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flockgym.envs import FlockgymError, entry, list_envs


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from .config import ConfigError
    from .files import OutputError
    from .play import GameAbandoned
    from .policies import BotSpecError, CheckpointError
    from .runs import RunError

    try:
        return int(args.run(args) or 0)
    except (ConfigError, BotSpecError, CheckpointError, RunError, FlockgymError) as err:
        print(f"flockgym {args.command}: error: {err}", file=sys.stderr)
        return 2
    except OutputError as err:
        print(f"flockgym {args.command}: error: {err}", file=sys.stderr)
        return 1
    except GameAbandoned as err:
        print(f"game abandoned: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of a pipe (``| head``) left: stop quietly, and keep Python's
        # own flush at exit from failing on the closed pipe again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flockgym",
        description="Train, evaluate and play flockgym agents.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
    p.set_defaults(run=run_train)

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
        "folder), optionally @greedy or @sample",
    )
    p.add_argument(
        "--games",
        type=deal_count,
        default=100,
        metavar="N",
        help="number of deals, at least 2 (each is played at every table; default 100)",
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
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run_eval)

    p = sub.add_parser(
        "plot",
        help="PNG of a run's learning curves",
        description="Plot win rate against each opponent over steps.",
    )
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run folder")
    p.add_argument("--out", type=Path, help="PNG path (default RUN_DIR/learning_curves.png)")
    p.set_defaults(run=run_plot)

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

    p = sub.add_parser("list", help="registered envs, their bots, configs and checkpoints")
    p.set_defaults(run=run_list)

    p = sub.add_parser(
        "baselines",
        help="regenerate docs/baselines.md",
        description="Heuristic against random (and shipped checkpoints) for "
        "every registered env, written as Markdown.",
    )
    p.add_argument(
        "--games", type=deal_count, default=200, metavar="N", help="deals, at least 2 (200)"
    )
    p.add_argument("--seed", type=seed_value, default=0, help="seed of the deals (default 0)")
    p.add_argument("--out", type=Path, default=Path("docs/baselines.md"), help="Markdown file")
    p.add_argument(
        "--checkpoints",
        type=Path,
        default=Path("checkpoints"),
        help="folder of shipped checkpoints, by game (default checkpoints)",
    )
    p.set_defaults(run=run_baselines)
    return parser


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="env option, e.g. --option num_players=4 (repeatable; the value is read as YAML)",
    )


def int_at_least(low: int, why: str = "") -> Callable[[str], int]:
    """An argparse ``type``: an integer >= ``low``; the error says why, if given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            reason = f" ({why})" if why else ""
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}{reason}, got {text!r}")
        return value

    return parse


deal_count = int_at_least(2, "the 95% intervals are computed over deals")
seed_value = int_at_least(0)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``--option key=value`` pairs (values read as YAML: 4, true, null)."""
    from .config import parse_assignment

    return dict(parse_assignment(item, "--option") for item in items)


# ---- subcommands ------------------------------------------------------------------------


def run_train(args: argparse.Namespace) -> int:
    from .train import resume_run, train_from_file

    if args.resume is not None:
        if args.config is not None:
            raise FlockgymError("give either CONFIG or --resume RUN_DIR, not both")
        resume_run(args.resume, args.overrides)
    elif args.config is None:
        raise FlockgymError("CONFIG is required (or --resume RUN_DIR)")
    else:
        train_from_file(args.config, args.overrides)
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from .evaluate import RESULT_FILES, save_result, tournament
    from .files import check_writable_folder
    from .policies import make_participant, parse_specs

    options = parse_options(args.options)
    specs = parse_specs(args.players)
    if args.seating == "field" and len(specs) != 2:
        raise FlockgymError(
            f"--seating field needs exactly 2 players (the first against a field of the "
            f"second); --players names {len(specs)}"
        )
    out = args.out or Path("runs") / "eval" / f"{args.env}-{time.strftime('%Y%m%d-%H%M%S')}"
    if out.exists() and not out.is_dir():
        raise FlockgymError(f"--out {out} is a file; give a folder for tournament.json and .md")
    players = [make_participant(spec, args.env, options) for spec in specs]
    check_writable_folder(out, RESULT_FILES)  # before the games, not after them
    result = tournament(
        args.env,
        players,
        args.games,
        args.seed,
        options,
        seating=args.seating,
        progress=not args.no_progress,
    )
    json_path, md_path = save_result(result, out)
    print(result.to_markdown())
    print(f"saved {json_path} and {md_path}")
    return 0


def run_plot(args: argparse.Namespace) -> int:
    from .plot import plot_run

    print(plot_run(args.run_dir, args.out))
    return 0


def run_play(args: argparse.Namespace) -> int:
    from .play import play_terminal

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
    from .serve.server import serve

    serve(args.host, args.port, args.models, args.data, args.max_games, args.idle_minutes)
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from .replay import replay_terminal

    replay_terminal(args.file, args.show, args.seat, args.delay, args.check)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from .baselines import game_folder

    for env_id in list_envs():
        item = entry(env_id)
        game = game_folder(env_id)
        configs = sorted(str(p) for p in Path("configs", game).glob("*.yaml"))
        shipped = sorted(str(p) for p in Path("checkpoints", game).glob("*.zip"))
        print(f"{env_id}: {item.summary}")
        print(
            f"  players {min(item.player_counts)}-{max(item.player_counts)} "
            f"(default {item.default_players}); bots: random, heuristic "
            f"({item.heuristic_bot})"
        )
        print(f"  configs: {', '.join(configs) or '-'}")
        print(f"  checkpoints: {', '.join(shipped) or '-'}")
    return 0


def run_baselines(args: argparse.Namespace) -> int:
    from .baselines import write_baselines

    print(write_baselines(args.out, args.games, args.seed, args.checkpoints))
    return 0


if __name__ == "__main__":
    sys.exit(main())
