"""The ``flockgym`` command: train, eval, compare, reproduce, benchmark, plot, play, serve,
replay, list, baselines, each in a module of this package named for it (``play``
holds play, serve and replay; ``listing`` list and baselines), with the arguments
they share in :mod:`~flockgym.cli.arguments`. Nothing else in flockgym imports it.

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

from flockgym.cli import benchmark, compare, listing, play, plot, reproduce, train
from flockgym.cli import eval as eval_command
from flockgym.common.errors import (
    BotSpecError,
    CheckpointError,
    ConfigError,
    GameAbandoned,
    MissingExtraError,
    RunError,
    missing_extra_module,
)
from flockgym.common.files import OutputError
from flockgym.common.version import __version__
from flockgym.envs import FlockgymError

COMMANDS = (train, eval_command, compare, plot, play, listing, reproduce, benchmark)
"""The modules of the subcommands, in the order ``--help`` lists them; each adds
its parsers (``add_parsers``) with the function that runs it."""


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

    for module in COMMANDS:
        module.add_parsers(sub)
    return parser
