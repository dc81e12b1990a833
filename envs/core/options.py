"""Declared, validated env options.

Every env declares its options as a table of :class:`Option` rows. Construction
checks the keyword arguments against that table, so that a typo (``num_player``)
or an out-of-range value raises :class:`OptionError` (a ``ValueError``) naming
the option and the allowed values, instead of being silently ignored.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import OptionError, OptionFileError
from .reader import read_bytes, regular_file_stat
from .validate import short_repr

MAX_OPTION_FILE_BYTES = 1 << 20
"""The largest file an option may name (1 MiB): a box or table file is a few kB."""


@dataclass(frozen=True)
class Option:
    """One env option: its default, what is allowed, and what it does."""

    name: str
    default: Any
    doc: str
    choices: Sequence[Any] | None = None
    check: Callable[[Any], bool] | None = None
    allowed: str = ""
    affects_spaces: bool = True
    reads_file: bool = False
    """True when a value may name a file the env opens and reads: a server taking
    options from untrusted requests refuses such options (or accepts only inline
    values), since the library would otherwise open whatever path it is given."""

    def validate(self, value: Any) -> Any:
        """Return ``value`` if allowed, else raise an error naming what is allowed."""
        if self.choices is not None:
            if not any(value == c and type(value) is type(c) for c in self.choices):
                allowed = ", ".join(repr(c) for c in self.choices)
                shown = short_repr(value)
                raise OptionError(
                    f"option {self.name}={shown} is not allowed; allowed values: {allowed}"
                )
            return value
        if self.check is not None and not self.check(value):
            raise OptionError(
                f"option {self.name}={short_repr(value)} is not allowed; allowed: {self.allowed}"
            )
        return value


def int_range(
    name: str,
    default: int | None,
    low: int,
    high: int | None,
    doc: str,
    allow_none: bool | None = None,
) -> Option:
    """An integer option in ``[low, high]`` (``high=None``: no upper bound).

    ``None`` is allowed when ``allow_none`` is true (default: when the default is None).
    """
    none_ok = default is None if allow_none is None else allow_none

    def check(v: Any) -> bool:
        if v is None and none_ok:
            return True
        if isinstance(v, bool) or not isinstance(v, int):
            return False
        return v >= low and (high is None or v <= high)

    upper = "" if high is None else f"..{high}"
    allowed = f"an integer {low}{upper}" if high is not None else f"an integer >= {low}"
    if none_ok:
        allowed += " or None"
    return Option(name, default, doc, check=check, allowed=allowed)


def common_options(
    player_counts: Sequence[int], default_players: int, default_max_steps: int | None = None
) -> list[Option]:
    """The options every flockgym env accepts, whatever the game.

    ``max_steps`` is the hard cap on a game's length that every env has, so that
    no option mix can make a game run for ever: it is counted in applied actions
    and ends the game as a PettingZoo truncation."""
    return [
        Option(
            "num_players",
            default_players,
            "number of seats, agents player_0 .. player_{n-1}",
            choices=tuple(player_counts),
        ),
        Option(
            "reward",
            "win",
            "RL reward: 'win' (+1 shared by the winners, -1/(n-1) to each other player, "
            "at game end), 'score' (game points as they are scored), 'rank' (+1 first "
            "to -1 last, linear, ties averaged, at game end)",
            choices=("win", "score", "rank"),
            affects_spaces=False,
        ),
        Option(
            "illegal_action",
            "raise",
            "'raise' an IllegalActionError, or 'penalize': end the game with -1 to the "
            "offender and 0 to the others",
            choices=("raise", "penalize"),
            affects_spaces=False,
        ),
        Option(
            "render_mode",
            None,
            "None, 'ansi' (render() returns the text view from the current seat) or "
            "'human' (prints the whole table)",
            choices=(None, "ansi", "human"),
            affects_spaces=False,
        ),
        int_range(
            "max_steps",
            default_max_steps,
            1,
            None,
            "hard cap on the game's length in applied actions: when it is reached "
            "before the game ends, every agent is truncated, no win/rank reward is paid "
            "and there is no winner (None: no cap)",
            allow_none=True,
        ),
    ]


def resolve_options(table: Sequence[Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``given`` against ``table``; return every option with defaults filled in."""
    by_name = {o.name: o for o in table}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise OptionError(
            f"unknown option(s) {', '.join(unknown)}; allowed options: {', '.join(sorted(by_name))}"
        )
    return {name: opt.validate(given.get(name, opt.default)) for name, opt in by_name.items()}


def describe_options(table: Sequence[Option]) -> str:
    """A Markdown table of the options, for docs and ``--help`` output."""
    rows = ["| option | default | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{o.name}` | `{o.default!r}` | {o.doc} |" for o in table]
    return "\n".join(rows)


def warn_unknown_reset_options(given: Mapping[str, Any], allowed: Iterable[str]) -> None:
    """Warn (not raise) about ``reset(options=...)`` keys the env does not know.

    Gymnasium and PettingZoo treat reset options as hints that an env may ignore
    (PettingZoo's ``api_test`` passes ``{"options": 1}``), so an unknown key is a
    ``UserWarning`` naming the keys this env reads; a known key with a bad value
    is still an error.
    """
    known = list(allowed)
    unknown = sorted(set(given) - set(known))
    if unknown:
        warnings.warn(
            f"reset option(s) {', '.join(map(str, unknown))} ignored; this env reads: "
            f"{', '.join(known)}",
            UserWarning,
            stacklevel=3,
        )


def scenario_seat(agent: Any, num_players: int) -> int:
    """The seat of an agent id named in ``reset(options=...)``; an
    :class:`OptionError` names the agents of the game otherwise."""
    agents = [f"player_{seat}" for seat in range(num_players)]  # as core.aec.agent_name
    if agent not in agents:
        raise OptionError(f"unknown agent {agent!r} in reset options; agents: {agents}")
    return agents.index(agent)


def option_file_stat(path: str | os.PathLike[str], suffixes: Sequence[str]) -> os.stat_result:
    """Check the file an option names before anything opens it; return its stat.

    Refused (:class:`OptionFileError`): a suffix not in ``suffixes``, a missing
    file, and anything but a regular file (directories, FIFOs, devices, sockets,
    symlinks to those), since opening a FIFO blocks and a device can read for
    ever. ``os.stat`` follows a symlink, so a link to a regular file is fine."""
    name = os.fspath(path)
    if "\0" in name:  # os.stat would raise a bare ValueError
        raise OptionFileError(f"file {name!r}: a path cannot hold a NUL character")
    suffix = os.path.splitext(name)[1].lower()
    if suffix not in suffixes:
        allowed = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else ""
        raise OptionFileError(f"file {name!r}: must end in {allowed or suffixes[0]}")
    return regular_file_stat(name, "file", OptionFileError)


def read_option_file(
    path: str | os.PathLike[str],
    suffixes: Sequence[str],
    limit: int = MAX_OPTION_FILE_BYTES,
) -> str:
    """The UTF-8 text of a file an option names, read only if it is safe to read.

    :func:`option_file_stat` runs first; the size is checked before reading and
    again while reading (at most ``limit + 1`` bytes), since the file may grow
    or be swapped in between. The open does not block (``O_NONBLOCK``) and the
    opened file is checked again, so a FIFO put in place after the check is
    refused rather than waited on. Errors name the file as given, never its
    content or its resolved path."""
    name = os.fspath(path)
    option_file_stat(name, suffixes)
    data = read_bytes(name, "file", limit, OptionFileError)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise OptionFileError(f"file {name!r}: not UTF-8 text (byte {err.start})") from None


def parse_error_text(err: Exception) -> str:
    """Where and what a YAML/JSON parse error is, without quoting the content.

    PyYAML's message shows the offending line and quotes tags and characters;
    a file an option names may hold secrets, so only the line, the column and
    the problem (with quoted parts blanked) are kept."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or getattr(err, "msg", None) or type(err).__name__
    problem = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", str(problem))
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    line = getattr(err, "lineno", None)
    column = getattr(err, "colno", None)
    if line is not None and column is not None:
        return f"line {line}, column {column}: {problem}"
    return problem
