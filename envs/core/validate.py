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


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages.

    An int past Python's 4300-digit limit cannot be turned into a string (that
    raises a bare ``ValueError``), so such a value is shown by its size; a
    container holding one, a nesting too deep for ``repr``, or anything else
    whose repr fails, by its type."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 14_000:
        return f"<an integer of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int past the digit limit, a deep nesting
        return f"<a {type(value).__name__} too large to show>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fail(field: str, value: Any, allowed: str) -> StateDictError:
    """The error for ``field`` holding ``value`` where ``allowed`` was expected."""
    return StateDictError(f"{field}: {short_repr(value)} is not allowed; expected {allowed}")


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


MAX_JSON_DEPTH = 64
"""The deepest nesting a saved state may have (real ones nest a few levels)."""


def json_problem(value: Any, floats_ok: bool = False) -> str | None:
    """Where and why ``value`` is not plain JSON data, or None when it is.

    A state dict must survive ``json.dumps``: str keys, finite numbers, ints
    Python can print (at most 4300 digits), lists (or tuples), dicts and nothing else, no
    deeper than :data:`MAX_JSON_DEPTH`. Walked without recursion, so a hostile
    nesting cannot overflow the stack; the answer names the first bad field.
    ``floats_ok``: NaN and infinities pass (the caller's own checks name them)."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        field = where or "(top level)"
        if depth > MAX_JSON_DEPTH:
            top = field if len(field) <= 60 else field[:57] + "..."
            return f"{top}: nested deeper than {MAX_JSON_DEPTH} levels"
        if item is None or isinstance(item, (bool, str)):
            continue
        if isinstance(item, int):
            if item.bit_length() > 14_000:  # about 4200 decimal digits
                return f"{field}: an integer of {item.bit_length()} bits is too large"
        elif isinstance(item, float):
            if not floats_ok and not math.isfinite(item):
                return f"{field}: {item!r} is not a finite number"
        elif isinstance(item, (list, tuple)):  # a tuple comes back from JSON as a list
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, dict):
            for key, v in item.items():
                if not isinstance(key, str):
                    return f"{field}: key {short_repr(key)} is not a string"
                stack.append((v, f"{where}.{key}" if where else key, depth + 1))
        else:
            return f"{field}: a {type(item).__name__} is not JSON data"
    return None
