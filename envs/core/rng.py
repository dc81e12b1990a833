"""Seeded randomness that survives a JSON round trip.

Every game owns one ``numpy.random.Generator`` (PCG64); nothing draws from the
global ``random`` or ``np.random`` state. Its full bit-generator state is a dict
of ints, which is JSON-serialisable, so ``state_dict()`` can carry it and a
restored game continues with exactly the same draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import StateDictError
from .validate import require_dict, require_int, short_repr

_PLACEHOLDER_SEED = np.random.SeedSequence(0)
"""The seed of a generator whose state is set at once (a copy, a state read
back): any seed does, and this one spares drawing OS entropy, half the cost of
building a generator, which the search's resample does once per simulation."""


def make_rng(seed: int | None) -> np.random.Generator:
    """A PCG64 generator; ``seed=None`` draws fresh entropy from the OS."""
    return np.random.Generator(np.random.PCG64(seed))


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state (same future draws)."""
    copy = np.random.Generator(np.random.PCG64(_PLACEHOLDER_SEED))
    copy.bit_generator.state = rng.bit_generator.state
    return copy


def generator_in_state(state: dict[str, Any]) -> np.random.Generator:
    """A PCG64 generator set to ``state`` (a ``bit_generator.state`` this process
    read, so trusted: :func:`rng_from_dict` checks a saved one)."""
    rng = np.random.Generator(np.random.PCG64(_PLACEHOLDER_SEED))
    rng.bit_generator.state = state
    return rng


def rng_to_dict(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's bit-generator state as plain JSON types."""
    return dict(rng.bit_generator.state)


def rng_from_dict(state: Any) -> np.random.Generator:
    """Rebuild a generator saved by :func:`rng_to_dict`.

    Every field is checked first (numpy itself answers a negative or oversized
    number with a bare ``OverflowError``): a :class:`StateDictError` names it."""
    if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
        raise StateDictError(
            f"rng state must be a PCG64 bit-generator state dict, got {short_repr(state)}"
        )
    field = "rng"
    require_dict(state, field, ("bit_generator", "state", "has_uint32", "uinteger"))
    inner = require_dict(state["state"], f"{field}.state", ("state", "inc"))
    for key in ("state", "inc"):
        require_int(inner[key], f"{field}.state.{key}", 0, 2**128 - 1)
    require_int(state["has_uint32"], f"{field}.has_uint32", 0, 1)
    require_int(state["uinteger"], f"{field}.uinteger", 0, 2**32 - 1)
    rng = np.random.Generator(np.random.PCG64())
    try:
        rng.bit_generator.state = state
    except (TypeError, ValueError, KeyError, OverflowError) as err:
        raise StateDictError(f"rng state is malformed: {err}") from err
    return rng


def derive_seed(seed: int, *keys: int) -> int:
    """An independent 63-bit seed for each ``keys`` path below ``seed``: a
    tournament's deals, tables and seats, or a session's bots, each get their own
    generator from one seed (``numpy.random.SeedSequence`` keeps them apart)."""
    state = np.random.SeedSequence([seed, *keys]).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))
