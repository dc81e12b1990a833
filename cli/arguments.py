"""Arguments shared by several commands: ``--jobs``, ``--engine``, ``--option``,
deal counts and seeds, each with the same bound and words everywhere."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from flockgym.common.errors import (
    ConfigError,
)

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
        from flockgym.training.config import parse_assignment
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
