"""What the Skybirds engine and its saved-game reader both build on.

The bonus bits of the tokens, the phases and steps of a move, where a token
is, the configuration of a Great War and a Squadron on the table: types and
constants of the rules. :mod:`.rules` (the engine) plays with them and
:mod:`.state` (which reads a saved game) reads with them, so both hold one
definition. This module imports only :mod:`.data` and ``core``: never the
engine nor the reader, so the three stand in one order, ``basics`` <
``state`` < ``rules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any, NamedTuple

from ..core.errors import StateDictError
from ..core.validate import short_repr
from . import data
from .data import CARD_COUNTS, FRACTIONAL_VP, MEDALLIONS, NUM_KINDS, PLUS_ONE_TOKENS, Token

# ---- bonus bits ------------------------------------------------------------

RUN, WILD, UNMATCHED = 1, 2, 4
"""Shape bonus bits."""
MEDAL, TWO_MEDALS, EQUAL, SIZE = 8, 16, 32, 64
"""Modifier bonus bits."""
SHAPE_BITS = RUN | WILD | UNMATCHED
BONUS_BITS = {
    "run": RUN,
    "wild": WILD,
    "unmatched": UNMATCHED,
    "medallion": MEDAL,
    "two_medallions": TWO_MEDALS,
    "follow_equal": EQUAL,
    "size_change": SIZE,
}
"""Bonus name -> bit, for the bonuses used while playing a Squadron."""


# ---- phases, steps and tokens ----------------------------------------------


class Phase(IntEnum):
    """What the player to act decides (``OVER`` once the Great War has ended)."""

    PRE_CAMPAIGN = 0
    DOGFIGHT = 1
    TAKE = 2
    TRADE = 3
    OVER = 4


PHASE_NAMES = ("pre_campaign", "dogfight", "take", "trade", "over")


class Step(IntEnum):
    """Where the player to act is inside a move of several steps."""

    START = 0
    """The first decision of a turn: a Squadron, pass or ``use`` (Dogfight); ``use``
    or ``done`` (Pre-Campaign); the token to take; a trade or ``done``."""
    TOKENS = 1
    """After ``use``: another token (later in Aerodrome order) or the first Ace."""
    CARDS = 2
    """Building the Squadron Ace by Ace: ``add``, ``done`` or the ``wild`` Ace."""
    DECLARE = 3
    """The wild Ace's declared value."""
    TARGET = 4
    """The opponent of a card swap."""
    GIVE = 5
    """The Aces given in a card swap, ascending."""


STEP_NAMES = ("start", "tokens", "cards", "declare", "target", "give")


MAT, FRONT, BACK = 0, 1, 2
"""Where a player's token is: on the Aerodrome, held face up, held flipped."""
TOKEN_STATES = ("mat", "front", "back")


# ---- configuration and Squadrons -------------------------------------------

ARMISTICE_ENDS = ("dogfight", "campaign")
TOKENS_PER_TURN = ("any", "one")
SWAP_CARDS = {"swap_one": 1, "swap_two": 2}


@dataclass(frozen=True)
class SkybirdsConfig:
    """Frozen parameters of one Great War (the env options, resolved)."""

    num_players: int = 4
    tokens: tuple[Token, ...] = data.AERODROME
    """The Aerodrome, one :class:`~.data.Token` per progression token, in track order."""
    max_campaigns: int = 30
    """A Great War still running after this many Campaigns is truncated."""
    short_game: bool = False
    """The rulebook's shorter game: a token needing all its prerequisites (the
    Armistice) needs only one of them."""
    armistice_ends: str = "dogfight"
    """Taking the Armistice ends the Great War after the current Dogfight (the
    ruling), or ``"campaign"``: after the current Campaign."""
    tokens_per_turn: str = "any"
    """``"any"``: a Squadron may use several different tokens (each once);
    ``"one"``: at most one token per Squadron."""

    def check(self) -> None:
        """Raise ``ValueError`` naming what is allowed for an impossible parameter."""
        if (
            isinstance(self.num_players, bool)
            or not isinstance(self.num_players, int)
            or self.num_players not in data.PLAYER_COUNTS
        ):
            raise ValueError(
                f"num_players={short_repr(self.num_players)} is not allowed; allowed: 2, 3, 4"
            )
        if self.armistice_ends not in ARMISTICE_ENDS:
            raise ValueError(
                f"armistice_ends={short_repr(self.armistice_ends)} is not allowed; allowed: "
                f"{', '.join(ARMISTICE_ENDS)}"
            )
        if self.tokens_per_turn not in TOKENS_PER_TURN:
            raise ValueError(
                f"tokens_per_turn={short_repr(self.tokens_per_turn)} is not allowed; allowed: "
                f"{', '.join(TOKENS_PER_TURN)}"
            )
        if isinstance(self.max_campaigns, bool) or not (
            isinstance(self.max_campaigns, int) and self.max_campaigns >= 1
        ):
            raise ValueError(
                f"max_campaigns={short_repr(self.max_campaigns)} is not an integer >= 1"
            )

    @property
    def hand_size(self) -> int:
        return data.HAND_SIZES[self.num_players]

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tokens)

    @cached_property
    def prerequisite_index(self) -> tuple[tuple[int, ...], ...]:
        """Per token, the indices of its prerequisites."""
        return tuple(tuple(self.names.index(p) for p in t.prerequisites) for t in self.tokens)

    @cached_property
    def needs_all(self) -> tuple[bool, ...]:
        """Per token: every prerequisite needed (after the shorter-game option)."""
        return tuple(t.needs_all and not self.short_game for t in self.tokens)

    @cached_property
    def dogfight_bits(self) -> tuple[int, ...]:
        """Per token, its bonus bit when used on a Squadron (0: not a Dogfight token)."""
        return tuple(BONUS_BITS.get(t.bonus, 0) for t in self.tokens)

    @cached_property
    def swap_cards(self) -> tuple[int, ...]:
        """Per token, the Aces its Pre-Campaign swap moves (0: not a swap)."""
        return tuple(SWAP_CARDS.get(t.bonus, 0) for t in self.tokens)

    @cached_property
    def aerodrome_rows(self) -> list[dict[str, Any]]:
        """The Aerodrome as table rows (shared: read-only)."""
        return [t.to_row() for t in self.tokens]

    def bonus_index(self, bonus: str) -> int:
        """Index of the token carrying ``bonus`` (-1: none on this Aerodrome)."""
        for i, t in enumerate(self.tokens):
            if t.bonus == bonus:
                return i
        return -1

    @cached_property
    def max_vp(self) -> float:
        """The most VP a player can hold: every token at its front value, every
        +1VP token and the largest fractional token."""
        return sum(t.vp_front for t in self.tokens) + PLUS_ONE_TOKENS + FRACTIONAL_VP[0]

    @cached_property
    def max_medallions(self) -> int:
        """The most Medallions a Squadron can carry (three printed icons plus the
        token Medallions of this Aerodrome)."""
        bonuses = {t.bonus for t in self.tokens}
        extra = (1 if "medallion" in bonuses else 0) + (2 if "two_medallions" in bonuses else 0)
        return sum(MEDALLIONS[k] * CARD_COUNTS[k] for k in range(NUM_KINDS)) + extra

    def to_dict(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "aerodrome": [dict(row) for row in self.aerodrome_rows],
            "max_campaigns": self.max_campaigns,
            "short_game": self.short_game,
            "armistice_ends": self.armistice_ends,
            "tokens_per_turn": self.tokens_per_turn,
        }

    @classmethod
    def from_dict(cls, d: Any) -> SkybirdsConfig:
        if not isinstance(d, dict):
            raise StateDictError(f"game.config must be a dict, got {short_repr(d, 60)}")
        expected = {"num_players", "aerodrome", "max_campaigns", "short_game",
                    "armistice_ends", "tokens_per_turn"}  # fmt: skip
        if set(d) != expected:
            raise StateDictError(
                f"game.config must have exactly the keys {', '.join(sorted(expected))}; "
                f"got {', '.join(sorted(map(str, d)))}"
            )
        if not isinstance(d["aerodrome"], list):
            # a saved game holds the table's rows; a path here would make a load open a file
            raise StateDictError(
                "game.config.aerodrome must be a list of table rows, got "
                f"{short_repr(d['aerodrome'], 60)}"
            )
        try:
            config = cls(
                num_players=d["num_players"],
                tokens=data.parse_aerodrome(d["aerodrome"]),
                max_campaigns=d["max_campaigns"],
                short_game=d["short_game"],
                armistice_ends=d["armistice_ends"],
                tokens_per_turn=d["tokens_per_turn"],
            )
            config.check()
        except ValueError as err:
            raise StateDictError(f"game.config: {err}") from None
        if not isinstance(config.short_game, bool):
            raise StateDictError(
                f"game.config.short_game must be true or false, got {short_repr(d['short_game'])}"
            )
        return config


class Squadron(NamedTuple):
    """A Squadron on the table (or the last one of a finished Dogfight)."""

    player: int
    cards: tuple[int, ...]
    """The card kinds played, ascending (the wild Ace by its printed value)."""
    size: int
    value: int
    """0 for Garros alone."""
    medallions: int
    tokens: tuple[int, ...] = ()
    """Indices of the tokens used on it."""
    wild: int = 0
    declare: int = 0

    def to_dict(self, names: tuple[str, ...]) -> dict[str, Any]:
        return {
            "player": self.player,
            "cards": [data.card_text(k) for k in self.cards],
            "size": self.size,
            "value": self.value,
            "medallions": self.medallions,
            "tokens": [names[i] for i in self.tokens],
            "wild": self.wild,
            "declare": self.declare,
        }


def count_vector(kinds: list[int] | tuple[int, ...]) -> list[int]:
    """Card kinds as a hand's count vector (index = kind, value = how many)."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts
