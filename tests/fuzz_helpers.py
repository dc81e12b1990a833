"""What the fuzzers that change one field of a saved state or a config at a
time share: paths into nested JSON-like data (mapping keys and list indices),
and random legal play of an env."""

from __future__ import annotations

import random
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


def play_random(raw: Any, rng: random.Random, moves: int) -> None:
    """Up to ``moves`` steps of an AEC env (raw, unwrapped): a random legal
    action for the agent to act, ``None`` for one that is done."""
    for _ in range(moves):
        if not raw.agents:
            break
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
        else:
            raw.step(rng.choice(raw.legal_actions(agent)))
