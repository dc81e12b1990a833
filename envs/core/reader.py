"""One reader for every file and text the project loads: configs, benchmark
specs, run folders, checkpoint metadata, option files and state JSON.

A file or a text may come from anyone, so each read is bounded before any work
is done on it, and each refusal is an :class:`InputError` (a
:class:`~flockgym.envs.core.errors.FlockgymError`, so a ``ValueError``) whose
message says what is allowed:

- files: regular files only (a FIFO would block for ever, ``/dev/zero`` reads
  for ever, a folder cannot be read), checked before the open, and again on the
  opened file, which is opened without blocking; a size cap checked before
  reading and while reading (the file may grow in between); UTF-8 text;
- JSON: at most :data:`MAX_DEPTH` levels of nesting and :data:`MAX_DIGITS`
  digits a number (Python's own digit limit raises a bare ``ValueError``, and
  its parser a ``RecursionError``, deep inside a load);
- YAML: ``yaml.safe_load`` semantics (plain data only, nothing executed), no
  anchors or aliases (a 600-byte "billion laughs" expands to gigabytes), the
  same depth and digit limits.

This module imports neither torch nor pydantic: the env-only install uses it.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from typing import Any

import yaml

from .errors import FlockgymError

MAX_TEXT_BYTES = 1 << 20
"""The default size cap (1 MiB): a config, a spec or a state is a few kB."""
MAX_DEPTH = 64
"""Most levels of nesting a JSON or YAML text may hold (a state dict nests
about 6; Python's parsers fail near 1,000 with a bare ``RecursionError``)."""
MAX_DIGITS = 256
"""Most characters a number may be written with (a 128-bit generator state
is 39 digits; Python refuses to read integers of more than 4,300)."""


class InputError(FlockgymError):
    """A file or text the project was given to read is refused; the message
    names it, the problem and what is allowed (never the content)."""


class InputFileError(InputError):
    """A file is missing, unreadable, not a regular file, too large or not UTF-8."""


class InputSyntaxError(InputError):
    """A text is not valid JSON or YAML."""


class NestingError(InputError):
    """A JSON or YAML text nests lists and mappings deeper than :data:`MAX_DEPTH`."""


class NumberTooLongError(InputError):
    """A number in a JSON or YAML text is written with more than :data:`MAX_DIGITS`
    characters."""


class YamlAliasError(InputError):
    """A YAML text uses an anchor or an alias (``&name`` / ``*name``)."""


ErrorClass = Callable[[str], Exception]

NOT_REGULAR = "not a regular file (directories, pipes and devices are refused)"


def regular_file_stat(path: str | os.PathLike[str], what: str, error: ErrorClass) -> os.stat_result:
    """The ``os.stat`` of ``path``, which must be an existing regular file (a symlink
    to one is fine); ``error`` otherwise, naming ``what`` and the problem."""
    name = os.fspath(path)
    if "\0" in name:  # os.stat would raise a bare ValueError
        raise error(f"{what} {name!r}: a path cannot hold a NUL character")
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise error(f"{what} {name!r}: not found (cannot read the file)") from None
    except OSError as err:
        raise error(f"{what} {name!r}: cannot read the file: {err.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{what} {name!r}: {NOT_REGULAR}")
    return info


def read_bytes(
    path: str | os.PathLike[str],
    what: str = "file",
    limit: int = MAX_TEXT_BYTES,
    error: ErrorClass = InputFileError,
) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    The size is checked before reading and again while reading (at most
    ``limit + 1`` bytes), since the file may grow or be swapped in between. The
    open does not block (``O_NONBLOCK``) and the opened file is checked again,
    so a FIFO put in place after the check is refused rather than waited on."""
    name = os.fspath(path)
    too_big = f"{what} {name!r}: larger than the limit of {limit} bytes"
    if regular_file_stat(name, what, error).st_size > limit:
        raise error(too_big)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise error(f"{what} {name!r}: cannot read the file: {err.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise error(f"{what} {name!r}: {NOT_REGULAR}")
        try:
            data = handle.read(limit + 1)
        except OSError as err:
            raise error(f"{what} {name!r}: cannot read the file: {err.strerror}") from None
    if len(data) > limit:
        raise error(too_big)
    return data


def decode_utf8(data: bytes, what: str, error: ErrorClass = InputFileError) -> str:
    """``data`` as UTF-8 text (a byte-order mark is dropped), else ``error``
    naming the first bad byte's offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise error(
            f"{what} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}); "
            "save it as UTF-8"
        ) from None


def read_text(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes (see :func:`read_bytes`)."""
    return decode_utf8(read_bytes(path, what, limit), f"{what} {os.fspath(path)!r}")


# ---- JSON ---------------------------------------------------------------------------


def bounded_int(text: str) -> int:
    """``json.loads``'s ``parse_int``: :class:`NumberTooLongError` past :data:`MAX_DIGITS`."""
    if len(text) > MAX_DIGITS:
        raise NumberTooLongError(
            f"a number of {len(text):,} digits; allowed: at most {MAX_DIGITS} digits a number"
        )
    return int(text)


def bounded_float(text: str) -> float:
    """``json.loads``'s ``parse_float``: :class:`NumberTooLongError` past :data:`MAX_DIGITS`."""
    if len(text) > MAX_DIGITS:
        raise NumberTooLongError(
            f"a number of {len(text):,} characters; allowed: at most {MAX_DIGITS} a number"
        )
    return float(text)


def parse_json(text: str | bytes, what: str = "JSON text") -> Any:
    """A JSON text as Python data, within the depth and digit limits.

    Refused: :class:`InputSyntaxError` (not JSON), :class:`NumberTooLongError`,
    :class:`NestingError`; each message starts with ``what``."""
    if isinstance(text, bytes):
        text = decode_utf8(text, what)
    try:
        data = json.loads(text, parse_int=bounded_int, parse_float=bounded_float)
    except NumberTooLongError as err:
        raise NumberTooLongError(f"{what}: {err}") from None
    except RecursionError:
        raise _too_deep(what) from None
    except json.JSONDecodeError as err:
        raise InputSyntaxError(
            f"{what} is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})"
        ) from None
    check_depth(data, what)
    return data


def read_json(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_TEXT_BYTES) -> Any:
    """A JSON file (a regular file, at most ``limit`` bytes) as Python data."""
    return parse_json(read_bytes(path, what, limit), f"{what} {os.fspath(path)!r}")


def limit_problem(err: Exception) -> str:
    """What a refusal of :func:`load_yaml`, :func:`check_depth` or a bounded
    ``json.loads`` says, without any of the text's content (an anchor's name):
    for a file an option names, whose content may be secret."""
    if isinstance(err, RecursionError):
        return f"nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH}"
    return re.sub(r" \((?:&|\*)[^)]*\)", "", str(err))


def _too_deep(what: str) -> NestingError:
    return NestingError(
        f"{what}: nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH}"
    )


def check_depth(data: Any, what: str, limit: int = MAX_DEPTH) -> None:
    """:class:`NestingError` if lists and dicts in ``data`` nest deeper than
    ``limit``; walked with a stack, so any depth is measured without recursion."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= limit:
                raise _too_deep(what)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)


# ---- YAML ---------------------------------------------------------------------------


class BoundedSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` (plain data, nothing executed) that refuses anchors
    and aliases, nesting deeper than :data:`MAX_DEPTH` and numbers longer than
    :data:`MAX_DIGITS`, each with an :class:`InputError` subclass."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YamlAliasError(
                f"{_where(event)}: an alias (*{event.anchor}); anchors and aliases are not "
                "allowed: write each value out"
            )
        event = self.peek_event()
        if getattr(event, "anchor", None) is not None:
            raise YamlAliasError(
                f"{_where(event)}: an anchor (&{event.anchor}); anchors and aliases are not "
                "allowed: write each value out"
            )
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise NestingError(
                    f"{_where(event)}: nested deeper than {MAX_DEPTH} levels; allowed: at "
                    f"most {MAX_DEPTH}"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node: Any) -> int:
        _check_number_length(node)
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node: Any) -> float:
        _check_number_length(node)
        return super().construct_yaml_float(node)


BoundedSafeLoader.add_constructor("tag:yaml.org,2002:int", BoundedSafeLoader.construct_yaml_int)
BoundedSafeLoader.add_constructor("tag:yaml.org,2002:float", BoundedSafeLoader.construct_yaml_float)


def _where(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "?"


def _check_number_length(node: Any) -> None:
    if isinstance(node.value, str) and len(node.value) > MAX_DIGITS:
        raise NumberTooLongError(
            f"{_where(node)}: a number of {len(node.value):,} characters; allowed: at most "
            f"{MAX_DIGITS} a number"
        )


def load_yaml(text: str, loader: type[BoundedSafeLoader] = BoundedSafeLoader) -> Any:
    """A YAML text as plain data with ``loader`` (a :class:`BoundedSafeLoader`).

    The :class:`InputError` subclasses pass through as they are; a syntax error
    is PyYAML's ``yaml.YAMLError`` (the caller words it), and a depth PyYAML's
    own parser cannot reach is a :class:`NestingError`."""
    instance = loader(text)
    try:
        return instance.get_single_data()
    except RecursionError:
        raise NestingError(
            f"nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH}"
        ) from None
    finally:
        instance.dispose()


def parse_yaml(text: str, what: str = "YAML text") -> Any:
    """A YAML text as plain data; every refusal an :class:`InputError` starting
    with ``what``."""
    try:
        return load_yaml(text)
    except InputError as err:
        raise type(err)(f"{what}: {err}") from None
    except yaml.YAMLError as err:
        raise InputSyntaxError(f"{what} is not valid YAML ({yaml_problem(err)})") from None


def yaml_problem(err: yaml.YAMLError) -> str:
    """Where and what a YAML syntax error is, in one line."""
    problem = getattr(err, "problem", None) or str(err).splitlines()[0]
    mark = getattr(err, "problem_mark", None)
    if mark is None:
        return str(problem)
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"


def read_yaml(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_TEXT_BYTES) -> Any:
    """A YAML file (a regular file, at most ``limit`` bytes) as plain data."""
    return parse_yaml(read_text(path, what, limit), f"{what} {os.fspath(path)!r}")
