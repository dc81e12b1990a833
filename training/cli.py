"""The ``flockgym`` command: train, eval, compare, reproduce, benchmark, plot, play, serve,
replay, list, baselines.

Every subcommand has ``--help``. A bad argument exits with status 2 and a
message naming it (argparse's own errors, and ours: configs, bot specs,
checkpoints, run folders, env options); a game the person leaves, or a file
that cannot be written (a full disk, a read-only folder), or a batched worker
process that dies during training, exits with status 1, and so does a command
that needs the ``train`` extra where it is not installed (the message names
the extra). Ctrl-C exits with status 130.

This module imports nothing heavy: torch, stable-baselines3, pydantic and YAML
are imported by the commands that use them, so ``flockgym``, ``--help``,
``--version`` and ``list`` answer at once, and work without the ``train``
extra (the core install, ``pip install -c constraints.txt .`` from a clone).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flockgym.envs import FlockgymError, entry, list_envs, make

from .errors import (
    BotSpecError,
    CheckpointError,
    ConfigError,
    GameAbandoned,
    MissingExtraError,
    RunError,
    missing_extra_module,
)
from .files import OutputError
from .version import __version__


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `flockgym`: what it can do
        parser.print_help()
        return 0
    try:
        return int(args.run(args) or 0)
    except (ConfigError, BotSpecError, CheckpointError, RunError, FlockgymError) as err:
        print(f"flockgym {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (OutputError, MissingExtraError) as err:
        print(f"flockgym {args.command}: error: {err}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as err:
        module = missing_extra_module(err)
        if module is None:
            raise
        print(
            f"flockgym {args.command}: error: {MissingExtraError(module, args.command)}",
            file=sys.stderr,
        )
        return 1
    except GameAbandoned as err:
        print(f"game abandoned: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM while training
        return 128 + getattr(err, "signum", 2)
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
    parser.add_argument("--version", action="version", version=f"flockgym {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
        help="folder for compare.json and compare.md (default runs/compare/<env>-<time>)",
    )
    add_jobs_argument(p)
    add_engine_argument(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    p.set_defaults(run=run_compare)

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

    p = sub.add_parser(
        "benchmark",
        help="train a grid of learners x games x seeds and aggregate over seeds",
        description="Train every learner of SPEC.yaml on every game for every seed "
        "(its budget of learner steps each), play each final policy against the "
        "random bot, the heuristic and the game's shipped bot, and aggregate over "
        "seeds with rliable (IQM with stratified bootstrap intervals, probability of "
        "improvement, performance profiles) into report.md, benchmark.json and PNG "
        "plots. Run again, it skips finished runs, resumes broken ones and measures "
        "what is not measured (docs/benchmark.md).",
    )
    p.add_argument("spec", metavar="SPEC.yaml", help="the grid (benchmarks/specs/*.yaml)")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the benchmark folder: run folders, logs, report (default runs/benchmark/<name>)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar over the grid")
    p.set_defaults(run=run_benchmark)
    return parser


JOBS_PER_CPU = 4
"""``--jobs`` may ask for up to this many processes a CPU (and 8 on any machine):
more only add start-up time and memory, and ``--jobs 100000`` would fork until
the machine gives out."""


def max_jobs() -> int:
    """The largest ``--jobs`` this machine accepts (see :data:`JOBS_PER_CPU`)."""
    return max(8, JOBS_PER_CPU * (os.cpu_count() or 1))


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    """``--jobs N``: the same flag, bound and words for every command that plays deals."""
    limit = max_jobs()
    parser.add_argument(
        "--jobs",
        type=int_at_least(1, f"at most {JOBS_PER_CPU} a CPU of this machine, or 8", limit),
        default=1,
        metavar="N",
        help=f"processes that play the deals, 1 to {limit} (same results for every N; default 1)",
    )


def add_engine_argument(parser: argparse.ArgumentParser) -> None:
    """``--engine``: which engine plays a tournament's deals (eval and compare)."""
    parser.add_argument(
        "--engine",
        choices=("auto", "scalar", "vector"),
        default="auto",
        help="auto: the env's vectorised engine where it has one that seats every player "
        "(Asrus; the same games, several times faster), else one env per game (default)",
    )


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        dest="options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="env option, e.g. --option num_players=4 (repeatable; the value is read as YAML)",
    )


def int_at_least(low: int, why: str = "", high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer >= ``low`` (and <= ``high``, if given); the
    error says why, if given."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low or (high is not None and value > high):
            reason = f" ({why})" if why else ""
            allowed = f">= {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}{reason}, got {text!r}")
        return value

    return parse


MAX_DEALS = 100_000
"""Most deals a command may play: ``training.config.MAX_DEALS``, the bound of a
config's ``eval.games`` (kept here too: this module imports no pydantic). A
tournament lists its deal blocks up front, so ``10**12`` deals would run the
machine out of memory before the first game."""

deal_count = int_at_least(2, "the 95% intervals are computed over deals", MAX_DEALS)
seed_value = int_at_least(0)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``--option key=value`` pairs (values read as YAML: 4, true, null)."""
    try:
        from .config import parse_assignment
    except ModuleNotFoundError:  # the core install has no YAML: read the values as JSON
        return dict(parse_json_assignment(item) for item in items)
    return dict(parse_assignment(item, "--option") for item in items)


def parse_json_assignment(item: str) -> tuple[str, Any]:
    """``key=value`` with the value read as JSON (``4``, ``true``, ``null``,
    ``[1, 2]``), else kept as text: ``--option`` without the train extra."""
    from flockgym.envs.core.reader import InputError, InputSyntaxError, parse_json

    key, sep, text = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--option {item[:60]!r} must look like key=value")
    try:
        return key.strip(), parse_json(text, f"--option {key.strip()[:60]!r}")
    except InputSyntaxError:
        return key.strip(), text.strip()
    except InputError as err:
        raise ConfigError(str(err)) from None


# ---- subcommands ------------------------------------------------------------------------


def run_train(args: argparse.Namespace) -> int:
    from .errors import require_train_extra

    require_train_extra("flockgym train", ("torch", "stable_baselines3", "sb3_contrib", "yaml"))
    from .parallel import WorkerError
    from .shipped import resolve_config
    from .train import resume_run, train_from_file

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


def run_eval(args: argparse.Namespace) -> int:
    from .evaluate import RESULT_FILES, TournamentInterrupted, save_result, tournament
    from .files import check_writable_folder
    from .policies import make_participant, parse_specs
    from .provenance import Clock

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


def run_compare(args: argparse.Namespace) -> int:
    from .compare import RESULT_FILES, CompareRequest, compare, prepare, save
    from .files import check_writable_folder

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
    check_writable_folder(out, RESULT_FILES)
    result = compare(request, args.jobs, args.engine, not args.no_progress, setup)
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


def run_plot(args: argparse.Namespace) -> int:
    from .errors import require_train_extra

    require_train_extra("flockgym plot", ("matplotlib",))
    from .plot import plot_runs

    print(plot_runs(args.run_dirs, args.out, smooth_window=args.smooth))
    return 0


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


def run_list(args: argparse.Namespace) -> int:
    from .shipped import game_folder, shipped_checkpoints, shipped_configs

    configs, checkpoints = shipped_configs(), shipped_checkpoints()
    for env_id in list_envs():
        item = entry(env_id)
        game = game_folder(env_id)
        print(f"{env_id}: {item.summary}")
        search = ", search (search:KEY=VALUE,...; docs/search.md)" if item.resampler else ""
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
    from .baselines import baselines_markdown, write_baselines
    from .shipped import checkpoints_root

    folder = args.checkpoints if args.checkpoints is not None else checkpoints_root()
    if args.out is None:
        page = baselines_markdown(args.games, args.seed, folder, True, args.env_ids, args.jobs)
        print(page, end="")
        return 0
    print(write_baselines(args.out, args.games, args.seed, folder, True, args.env_ids, args.jobs))
    return 0


def run_reproduce(args: argparse.Namespace) -> int:
    from .errors import require_train_extra

    require_train_extra("flockgym reproduce", ("torch", "stable_baselines3", "sb3_contrib", "yaml"))
    from .reproduce import reproduce

    if args.source.endswith(".json"):
        from .reproduce_grid import reproduce_grid

        if args.steps is not None:
            raise FlockgymError("--steps: only for a run folder, not a saved benchmark grid")
        return reproduce_grid(Path(args.source), args.spec, args.cell, args.out, args.dry_run)
    if args.spec is not None or args.cell is not None:
        raise FlockgymError("--spec and --cell: only for a saved benchmark grid (benchmark.json)")
    return reproduce(args.source, args.out, args.steps, args.dry_run)


def run_benchmark(args: argparse.Namespace) -> int:
    from .errors import require_train_extra

    require_train_extra(
        "flockgym benchmark", ("torch", "stable_baselines3", "sb3_contrib", "yaml", "rliable")
    )
    from .benchmark import benchmark

    out = benchmark(args.spec, args.out, progress=not args.no_progress)
    print(f"report: {out / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
