"""Paths into nested JSON-like data (mapping keys and list indices), for the
fuzzers that change one field of a saved state or a config at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

KeyPath = tuple[Any, ...]
"""The keys and indices that lead from the top of the data to one value."""


def paths_into(value: Any, path: KeyPath = ()) -> Iterator[KeyPath]:
    """Every path into ``value`` (mapping keys and list indices), containers included."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths_into(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths_into(item, (*path, index))


def get_at(data: Any, path: KeyPath) -> Any:
    """The value at ``path`` in ``data``."""
    for key in path:
        data = data[key]
    return data
