"""Asrus action layout: one flat ``Discrete(195)`` space, ids and strings.

``action = (number - 1) * 13 + slot``: the number card 1..15 a player commits,
and the slot saying what goes with it (nothing, one of the five specials, or a
joker declared as a power). The strings are what a person types in play and
what logs and goldens show: ``"9"``, ``"9+M"``, ``"9+J:T"``.
"""

from __future__ import annotations

import numpy as np

from . import data

SLOTS: tuple[tuple[str | None, bool], ...] = (
    (None, False),
    *((kind, False) for kind in data.SPECIAL_KINDS),
    *((power, True) for power in data.JOKER_POWERS),
)
"""What may accompany the number card: nothing, one of the five specials, or a
joker declared as one of :data:`data.JOKER_POWERS`. Slot index = position here."""

NUM_SLOTS = len(SLOTS)  # 13
NUM_ACTIONS = len(data.NUMBERS) * NUM_SLOTS  # 195
JOKER_INDEX = len(data.SPECIAL_KINDS)
"""Index of the joker in a player's special-card counts (after C B D M R)."""
SPECIAL_INDEX = {kind: i for i, kind in enumerate(data.SPECIAL_KINDS)}
SLOT_COLUMNS = np.array(
    [0] + [16 + i for i in range(JOKER_INDEX)] + [16 + JOKER_INDEX] * (NUM_SLOTS - 1 - JOKER_INDEX)
)
"""For each slot, the column of :meth:`AsrusGame.holdings` that must be non-zero:
the always-1 column for "alone", the special's own column, the joker's column."""
SPECIAL_SLOTS: tuple[slice, ...] = (
    *(slice(1 + i, 2 + i) for i in range(JOKER_INDEX)),
    slice(1 + JOKER_INDEX, NUM_SLOTS),
)
"""For each special index (C B D M R joker), the slots it allows: the inverse of
:data:`SLOT_COLUMNS` over the special columns."""


def encode_action(number: int, power: str | None = None, joker: bool = False) -> int:
    """Action id of playing ``number`` with an optional special.

    >>> encode_action(1)            # the Sun alone
    0
    >>> encode_action(9, "M")       # 9 with Majority: (9-1)*13 + 4
    108
    >>> encode_action(15, "T", joker=True)  # Moon with a joker declared Triple
    194
    """
    try:
        slot = SLOTS.index((power, joker))
    except ValueError:
        raise ValueError(f"no such special: power={power!r} joker={joker}") from None
    if number not in data.NUMBERS:
        raise ValueError(f"number card must be 1..15, got {number!r}")
    return (number - 1) * NUM_SLOTS + slot


def decode_action(action: int) -> tuple[int, str | None, bool]:
    """(number, power, joker) of an action id; inverse of :func:`encode_action`."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id must be in 0..{NUM_ACTIONS - 1}, got {action}")
    number, slot = divmod(action, NUM_SLOTS)
    power, joker = SLOTS[slot]
    return number + 1, power, joker


def action_text(action: int) -> str:
    """``"9"``, ``"9+M"``, or ``"9+J:T"`` for a joker declared as Triple."""
    number, power, joker = decode_action(action)
    if power is None:
        return str(number)
    return f"{number}+J:{power}" if joker else f"{number}+{power}"


def parse_action(text: str) -> int:
    """Inverse of :func:`action_text`; the error names the accepted forms."""
    cleaned = text.strip().upper().replace(" ", "")
    number_text, _, special = cleaned.partition("+")
    joker = special.startswith("J:")
    power = special[2:] if joker else (special or None)
    try:
        return encode_action(int(number_text), power, joker)
    except ValueError:
        raise ValueError(
            f"cannot read action {text!r}; write a number card 1-15 alone ('9'), with a "
            f"special ('9+C', '9+B', '9+D', '9+M', '9+R'), or with a joker declared as "
            f"a power ('9+J:C' .. '9+J:R', '9+J:X' Explosion, '9+J:T' Triple)"
        ) from None


def is_public_move(layout: object, action: int) -> bool:
    """Whether every seat reads ``action`` when it is made (what the play server's
    move log and terminal narration show of the other seats' moves): never in
    Asrus. Every commitment is face down until the turn resolves, and the resolved
    turn (every play) is then in each seat's view as ``last_turn``. ``layout`` is
    the env's action layout, which Asrus has none of (its space is fixed).

    >>> is_public_move(None, encode_action(9, "C"))
    False
    """
    return False
