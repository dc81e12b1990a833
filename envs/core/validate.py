"""Field-by-field checks for loading saved states.

A state dict comes from disk or from a user, so every game checks each field
before it builds anything from it. These helpers raise :class:`StateDictError`
with the field's path (``game.hands[2][7]``) and what is allowed, so that a
loader reads as a list of what each field must be rather than a wall of
``isinstance`` tests, and a bare ``TypeError`` can never escape from a load.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .errors import StateDictError


def fail(field: str, value: Any, allowed: str) -> StateDictError:
    """The error for ``field`` holding ``value`` where ``allowed`` was expected."""
    return StateDictError(f"{field}: {value!r:.80} is not allowed; expected {allowed}")


def require_dict(value: Any, field: str, keys: Sequence[str] | None = None) -> dict[str, Any]:
    """A dict; with ``keys``, exactly those keys (missing and unknown ones named)."""
    if not isinstance(value, dict):
        raise fail(field, value, "a dict")
    if keys is not None:
        missing = sorted(set(keys) - set(value))
        unknown = sorted(set(value) - set(keys))
        if missing or unknown:
            raise StateDictError(
                f"{field}: missing field(s) {missing or 'none'}, unknown field(s) "
                f"{unknown or 'none'}; expected exactly {sorted(keys)}"
            )
    return value


def require_list(value: Any, field: str, length: int | None = None) -> list[Any]:
    """A list, of exactly ``length`` items when given."""
    if not isinstance(value, list):
        raise fail(field, value, "a list" if length is None else f"a list of {length} items")
    if length is not None and len(value) != length:
        raise StateDictError(f"{field}: has {len(value)} items; expected {length}")
    return value


def require_int(value: Any, field: str, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool) in ``[low, high]`` (either bound may be open)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(field, value, f"an integer{bounds_text(low, high)}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise fail(field, value, f"an integer{bounds_text(low, high)}")
    return value


def require_ints(
    value: Any, field: str, length: int, low: int | None = 0, high: int | None = None
) -> list[int]:
    """A list of ``length`` integers, each in ``[low, high]``."""
    items = require_list(value, field, length)
    if (
        all(type(item) is int for item in items)  # the common case, checked in one pass
        and (low is None or not items or min(items) >= low)
        and (high is None or not items or max(items) <= high)
    ):
        return items
    return [require_int(item, f"{field}[{i}]", low, high) for i, item in enumerate(items)]


def require_number(value: Any, field: str) -> float:
    """A finite int or float (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(field, value, "a finite number")
    try:
        number = float(value)
    except OverflowError:
        raise fail(field, value, "a finite number") from None
    if not math.isfinite(number):
        raise fail(field, value, "a finite number")
    return number


def require_bool(value: Any, field: str) -> bool:
    """``true`` or ``false`` only (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise fail(field, value, "true or false")
    return value


def require_choice(value: Any, field: str, choices: Sequence[Any]) -> Any:
    """One of ``choices`` (compared with ``==`` and the same type)."""
    if not any(value == c and type(value) is type(c) for c in choices):
        raise fail(field, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def bounds_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" in {low}..{high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""
