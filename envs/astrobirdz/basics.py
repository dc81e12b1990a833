"""What the Astrobirdz engine and its saved-game reader both build on.

The phases of a turn, the game's configuration, cards as bitmasks, who wins a
trick, a turn's score items and who sits where in each order (guesses, the
first lead, a trick, the AstroBoard): pure types and functions of the rules.
:mod:`.rules` (the engine) plays with them and :mod:`.state` (which checks a
saved game) checks with them, so both read one definition. This module
imports only :mod:`.data` and ``core``: never the engine nor the reader, so the
three stand in one order, ``basics`` < ``state`` < ``rules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from ..core.validate import short_repr
from . import data
from .data import Effect, RuleCard, colour_of, number_of

# ---- phases ------------------------------------------------------------------


class Phase(IntEnum):
    """What the seat to act decides (``OVER`` once the game has ended)."""

    CHOOSE_TRUMP = 0
    DISCARD = 1
    PASS_RIGHT = 2
    PASS_LEFT = 3
    SURFETTE_PARTNER = 4
    SURFETTE_CARDS = 5
    NITRO_PEEK = 6
    GUESS = 7
    PLAY = 8
    ASTROBOARD = 9
    ASTROBOARD_TRICK = 10
    OVER = 11


PHASE_NAMES = (
    "choose_trump", "discard", "pass_right", "pass_left", "surfette_partner",
    "surfette_cards", "nitro_peek", "guess", "play", "astroboard", "astroboard_trick", "over",
)  # fmt: skip

CHOICE_PHASES = (Phase.DISCARD, Phase.PASS_RIGHT, Phase.PASS_LEFT)
"""Phases in which every seat concerned chooses cards, one seat at a time."""


# ---- bitmask helpers ----------------------------------------------------------

COLOUR_MASKS = tuple(((1 << 9) - 1) << (9 * c) for c in range(data.NUM_COLOURS))
"""Bitmask of every card of a colour."""
FULL_DECK = (1 << data.NUM_CARDS) - 1


def bits(mask: int) -> list[int]:
    """Card ids of a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def data_cards(mask: int) -> list[str]:
    """A bitmask as card strings (JSON form)."""
    return [data.card_text(c) for c in bits(mask)]


# ---- configuration ------------------------------------------------------------

HIGHEST_BONUS_MODES = ("among_correct", "highest_overall")
BONUS_TIE_MODES = ("one", "all")
GREEN_7_READINGS = ("beaten_by_higher_trump", "never_beaten_by_trump")
"""Green Turbo #7's 4s and 5s: beaten by a higher trump card (its last sentence;
ruling), or by no trump card (its printed example: a red 7 does not beat a
yellow 5)."""


@dataclass(frozen=True)
class AstrobirdzConfig:
    """Frozen parameters of one game (the env options, resolved)."""

    num_players: int = 4
    berzerkerbirdz: bool = True
    trump_rules: bool = True
    pass_cards: bool = False
    ages: tuple[float, ...] | None = None
    """One age per seat for the youngest/oldest rule cards; None: player_0 is
    the youngest and the last seat the oldest."""
    highest_bonus: str = "among_correct"
    """Who may get the highest-guess bonus: the highest guess among the correct
    guesses (ruling), or only a correct guess that is also the highest guess of
    the turn."""
    highest_bonus_ties: str = "one"
    """Tied candidates for that bonus: one of them gets it (fewest points, then
    highest bird; ruling), or all of them do (only the AstroBoard holder can
    add the AstroBoard part)."""
    green_7: str = "beaten_by_higher_trump"
    """How Green 7 protects 4s and 5s: :data:`GREEN_7_READINGS`."""

    def check(self) -> None:
        """Raise ``ValueError`` naming what is allowed for an impossible parameter."""
        if self.num_players not in data.TURNS:
            raise ValueError(
                f"num_players={self.num_players} is not allowed; allowed: 2, 3, 4, 5, 6"
            )
        if self.ages is not None and len(self.ages) != self.num_players:
            raise ValueError(
                f"ages must give one age per seat ({self.num_players} numbers for "
                f"num_players={self.num_players}), got {list(self.ages)}"
            )
        if self.highest_bonus not in HIGHEST_BONUS_MODES:
            raise ValueError(
                f"highest_bonus={short_repr(self.highest_bonus)} is not allowed; allowed: "
                f"{', '.join(HIGHEST_BONUS_MODES)}"
            )
        if self.green_7 not in GREEN_7_READINGS:
            raise ValueError(
                f"green_7={short_repr(self.green_7)} is not allowed; allowed: "
                f"{', '.join(GREEN_7_READINGS)}"
            )
        if self.highest_bonus_ties not in BONUS_TIE_MODES:
            raise ValueError(
                f"highest_bonus_ties={short_repr(self.highest_bonus_ties)} is not allowed; "
                "allowed: "
                f"{', '.join(BONUS_TIE_MODES)}"
            )

    @property
    def rule_cards(self) -> tuple[RuleCard, ...]:
        """The 54 rule cards as this game enforces them (Green 7's reading)."""
        return data.rule_cards(self.green_7 == "never_beaten_by_trump")

    @property
    def turns(self) -> int:
        """Turns in the game (Player Chart)."""
        return data.TURNS[self.num_players]

    @property
    def max_hand(self) -> int:
        """The largest hand (tricks in a turn) this configuration can deal: the
        last turn's cards plus the most extra draws the deck allows (the
        turned-up card is never dealt); without rule cards, the last turn's."""
        last = self.turns
        if not self.trump_rules:
            return last
        return min(last + data.MAX_EXTRA_DRAWS, (data.NUM_CARDS - 1) // self.num_players)

    @property
    def youngest(self) -> int:
        """Seat of the youngest player (ties: the lowest seat)."""
        if self.ages is None:
            return 0
        return min(range(self.num_players), key=lambda s: (self.ages[s], s))  # type: ignore[index]

    @property
    def oldest(self) -> int:
        """Seat of the oldest player (ties: the lowest seat)."""
        if self.ages is None:
            return self.num_players - 1
        return max(range(self.num_players), key=lambda s: (self.ages[s], -s))  # type: ignore[index]

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["ages"] = None if self.ages is None else list(self.ages)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AstrobirdzConfig:
        d = dict(d)
        if d.get("ages") is not None:
            d["ages"] = tuple(d["ages"])
        config = cls(**d)
        config.check()
        return config


# ---- tricks and scoring (pure functions) --------------------------------------


def trick_trump(plays: list[int], trump: int, effect: Effect) -> int:
    """The trump colour of one trick: the turn's, unless a card of a number the
    rule names ("any 2 played") is in it."""
    if effect.trump_change_numbers and any(
        number_of(c) in effect.trump_change_numbers for c in plays
    ):
        return effect.trump_change_to
    return trump


def card_value(card: int, effect: Effect) -> float:
    """The card's value this turn: its number after the rule's value changes (1s
    or 4s as 10, 9s as 0); under Blue 8 every 8 ranks above every 9 (9.5)."""
    number = number_of(card)
    for printed, counted in effect.values:
        if number == printed:
            return counted
    if effect.eights_beat_nines and number == 8:
        return 9.5
    return number


def card_rank(card: int, led: int, trump: int, effect: Effect) -> tuple[int, float, bool]:
    """How strongly ``card`` competes in a trick: (group, value, real trump).

    Group 2 = trump colour or protected number (counts as a trump card of its
    value), 1 = led colour, 0 = cannot win; group 3 = a protected number that no
    trump card beats (Green 7 read by its printed example). Value applies the rule's value
    changes (1s or 4s as 10, 9s as 0); under Blue 8 every 8 ranks above 9. On
    equal value a real trump-colour card beats a protected one; a full tie goes
    to the card played first.
    """
    colour = colour_of(card)
    real = colour == trump
    value = card_value(card, effect)
    if number_of(card) in effect.protected:
        return (3 if effect.protected_beat_trump else 2), value, real
    if real:
        return 2, value, True
    return (1 if colour == led else 0), value, False


def trick_winner(plays: list[int], trump: int, effect: Effect) -> int:
    """Index (in play order) of the card that wins the trick.

    >>> from flockgym.envs.astrobirdz.data import parse_card, NO_RULE, RED
    >>> trick_winner([parse_card(c) for c in ("B3", "B8", "G7", "R2", "R4")], RED, NO_RULE.effect)
    4
    """
    this_trump = trick_trump(plays, trump, effect)
    led = colour_of(plays[0])
    best, best_rank = 0, card_rank(plays[0], led, this_trump, effect)
    for index in range(1, len(plays)):
        rank = card_rank(plays[index], led, this_trump, effect)
        if rank > best_rank:
            best, best_rank = index, rank
    return best


@dataclass
class TurnScore:
    """One player's points for a turn, item by item, as the tally sheet adds them."""

    guess: int
    tricks: int
    trick_points: int
    exact: int
    highest: int
    astroboard: int
    turbo: int
    card_points: int
    berzerkerbird: int
    first_last: int
    penalty: int
    floored: int
    parity: int
    multiplier: int
    total: int

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


# ---- who does what, in which order (pure functions) ----------------------------


def seat_with_bird(birds: list[int], number: int) -> int:
    """Seat holding Berzerkerbird ``number``, or -1 if it was not dealt."""
    return birds.index(number) if number in birds else -1


def from_left_of(seat: int, n: int) -> list[int]:
    """Every seat, starting on ``seat``'s left and ending with ``seat``."""
    return [(seat + 1 + i) % n for i in range(n)]


def guess_order_of(dealer: int, birds: list[int]) -> list[int]:
    """From the dealer's left; Max guesses last, whatever his seat."""
    order = from_left_of(dealer, len(birds))
    max_seat = seat_with_bird(birds, data.MAX)
    if max_seat >= 0:
        order.remove(max_seat)
        order.append(max_seat)
    return order


def first_leader_of(dealer: int, birds: list[int]) -> int:
    """Zoom leads the first trick if dealt, else the player on the dealer's left."""
    zoom = seat_with_bird(birds, data.ZOOM)
    return zoom if zoom >= 0 else (dealer + 1) % len(birds)


def play_order_of(leader: int, birds: list[int]) -> list[int]:
    """Seats of a trick in play order from ``leader``: Speedster never leads
    (the player on his left does) and always plays last."""
    n = len(birds)
    speedster = seat_with_bird(birds, data.SPEEDSTER)
    if leader == speedster:
        leader = (leader + 1) % n
    order = [(leader + i) % n for i in range(n)]
    if speedster >= 0:
        order.remove(speedster)
        order.append(speedster)
    return order


def astroboard_holder_of(guesses: list[int], guess_order: list[int], birds: list[int]) -> int:
    """Highest guess; ties: Turbo if tied, else the highest Berzerkerbird
    (without birds: the first of them to guess)."""
    top = max(guesses)
    tied = [s for s in guess_order if guesses[s] == top]
    if len(tied) > 1 and any(birds):
        turbo = [s for s in tied if birds[s] == data.TURBO]
        return turbo[0] if turbo else max(tied, key=lambda s: birds[s])
    return tied[0]


def astroboard_partners_of(holder: int, guesses: list[int], tricks: list[int]) -> list[int]:
    """Players the AstroBoard holder may use its power with: off by one trick
    the other way (the holder itself must be off by exactly one)."""
    short = guesses[holder] - tricks[holder]
    if short not in (1, -1):
        return []
    return [s for s in range(len(guesses)) if s != holder and tricks[s] - guesses[s] == short]
