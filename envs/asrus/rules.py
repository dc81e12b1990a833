"""Asrus rules engine: pure Python, no gymnasium or PettingZoo.

The game in brief (the full text, with our rulings, is ``docs/rules/asrus.md``):

* Each player holds number cards (1-15), a few special cards and stones
  (points). A destination number lies face up.
* Every turn all players play one number card, and optionally one special,
  face down and at the same time; then all are revealed.
* Distance = |card - destination|. The closest distance that no other played
  card shares wins; distance 0 never wins. Close subtracts 0.5 from its
  player's distance. If any Retrograde is played the farthest unique distance
  wins instead. A single Majority played on the number played strictly most
  often wins before any distance is looked at.
* The winner takes distance x2 (Double) x2 (winning with 1 or 15) points from
  every other player (partial payment when short), plus all deposits; a
  Blackhole played by anyone sends the take to the deposit instead. The winning
  card becomes the destination.
* No winner is a draw: every player deposits the smallest non-zero distance.
* A round ends when the hands are empty (deposits left over go to a lottery:
  lowest number drawn from the pile). The game ends after ``rounds`` rounds,
  when someone reaches ``target`` points at a round's end, or as soon as a
  quarter of the players (rounded up) have no stones.

Simultaneity: :func:`resolve_turn` is the joint-action apply; :class:`AsrusGame`
buffers the players' commitments one at a time (in seat order) for the AEC env
and resolves the turn when the last one commits.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER, GameEngine
from ..core.rng import make_rng, rng_from_dict, rng_to_dict
from ..core.validate import (
    require_bool,
    require_choice,
    require_dict,
    require_int,
    require_ints,
    require_list,
    short_repr,
)
from . import data
from .actions import (
    JOKER_INDEX,
    NUM_ACTIONS,
    NUM_SLOTS,
    SLOT_COLUMNS,
    SPECIAL_INDEX,
    SPECIAL_SLOTS,
    action_text,
    decode_action,
    encode_action,
    parse_action,
)

# ---- configuration ------------------------------------------------------------

RETROGRADE_MODES = ("once", "cancel")
"""Option ``retrogrades``: any number of Retrogrades reverse the turn once, or
each one reverses it again (two cancel). Ruling 7."""
RETROGRADE_DEPOSIT_MODES = ("closest", "farthest")
"""Option ``retrograde_deposit``: what a drawn Retrograde turn deposits. Ruling 20."""
MAJORITY_TIE_MODES = ("none", "all")
"""Option ``majority_ties``: numbers tied for most are never major, or all major.
Ruling 6."""
MAX_POINTS = 10**9
"""Largest number of points a player or the deposit may hold (scenarios and saved
states): far above any real table, and small enough that every total stays an
exact float in the observation."""


@dataclass(frozen=True)
class TurnRules:
    """The readings of the specials that the rulebook leaves open (rulings 6, 7
    and 20), as one small value :func:`decide_winner` reads."""

    retrogrades: str = "once"
    retrograde_deposit: str = "closest"
    majority_ties: str = "none"


DEFAULT_TURN_RULES = TurnRules()

HOLDING_WIDTH = 22
"""Columns of :meth:`AsrusGame.holdings`: the always-1 slot, 15 numbers, 6 specials."""
_NO_SLOTS = bytes(NUM_SLOTS)
"""A number's mask row cleared (13 zero bytes), written through ``_masks_flat``."""

_DERIVED = frozenset(
    {
        "_legal_cache", "_masks", "_holdings", "_masks_rw", "_holdings_rw",
        "_holdings_flat", "_masks_flat",
    }
)  # fmt: skip
"""AsrusGame fields computed from the hands (rebuilt on demand, never copied)."""

_TURN_RULES: dict[tuple[str, str, str], TurnRules] = {}
"""Each combination's :class:`TurnRules`, built once (see ``AsrusConfig.turn_rules``)."""


@dataclass(frozen=True)
class AsrusConfig:
    """Frozen parameters of one Asrus game (the env options, resolved)."""

    num_players: int = 5
    hand_size: int = 12
    specials_per_player: int = 2
    starting_points: int = 90
    rounds: int | None = 1
    target: int | None = None
    elimination: bool = True
    jokers: bool = False
    removed: tuple[int, ...] = ()
    """Number cards taken out of the deck before dealing, one copy per entry (the
    rulebook's "reduce the number cards ... like number 4, 8, 12" read as a deck
    change; option ``removed_numbers``)."""
    retrogrades: str = "once"
    retrograde_deposit: str = "closest"
    majority_ties: str = "none"

    @classmethod
    def from_options(
        cls,
        num_players: int,
        hand_size: int | None = None,
        specials_per_player: int | None = None,
        starting_points: int | None = None,
        rounds: int | None = 1,
        target: int | None = None,
        elimination: bool = True,
        jokers: bool = False,
        removed_numbers: tuple[int, ...] | list[int] = (),
        retrogrades: str = "once",
        retrograde_deposit: str = "closest",
        majority_ties: str = "none",
    ) -> AsrusConfig:
        """Fill table defaults for ``None`` and check that the deal is possible."""
        prep = data.PREPARATION[num_players]
        config = cls(
            num_players=num_players,
            hand_size=prep.number_cards if hand_size is None else hand_size,
            specials_per_player=prep.special_cards
            if specials_per_player is None
            else specials_per_player,
            starting_points=prep.points if starting_points is None else starting_points,
            rounds=rounds,
            target=target,
            elimination=elimination,
            jokers=jokers,
            removed=tuple(sorted(removed_numbers)),
            retrogrades=retrogrades,
            retrograde_deposit=retrograde_deposit,
            majority_ties=majority_ties,
        )
        config.check()
        return config

    @property
    def turn_rules(self) -> TurnRules:
        """The readings of the specials this game plays by (one shared frozen
        value per combination: every turn asks)."""
        key = (self.retrogrades, self.retrograde_deposit, self.majority_ties)
        rules = _TURN_RULES.get(key)
        if rules is None:
            rules = _TURN_RULES[key] = TurnRules(*key)
        return rules

    @property
    def deck_size(self) -> int:
        """Number cards in this game's deck."""
        return sum(self.number_counts.values())

    @property
    def total_points(self) -> int:
        """Points at the table at the start (what ``target`` must not exceed)."""
        return self.starting_points * self.num_players

    @property
    def fixed_destination(self) -> int | None:
        """The destination number with no card (8 players: 8), else None."""
        return data.FIXED_DESTINATION.get(self.num_players)

    @property
    def number_counts(self) -> dict[int, int]:
        """Copies of each number in this game's deck: the box's 64 less ``removed``."""
        counts = dict(data.NUMBER_COUNTS)
        for number in self.removed:
            counts[number] -= 1
        return counts

    @property
    def max_hand_size(self) -> int:
        """Largest hand the deck allows (one card kept for the destination)."""
        spare = 0 if self.fixed_destination is not None else 1
        return (sum(self.number_counts.values()) - spare) // self.num_players

    @property
    def special_deck_size(self) -> int:
        """Specials in the pile: 10, plus the 3 jokers in the ``jokers`` variant."""
        return len(data.SPECIAL_KINDS) * data.SPECIAL_COUNT_EACH + (
            data.JOKER_COUNT if self.jokers else 0
        )

    def check(self) -> None:
        """Raise ``ValueError`` naming the options and the allowed range of any
        impossible parameter: a deal the deck cannot make, a target nobody can
        reach, a game with no end."""
        for number in set(self.removed):
            if number not in data.NUMBERS:
                raise ValueError(
                    f"removed_numbers names {short_repr(number)}; allowed: numbers 1..15, "
                    f"each at most as often as the deck holds it"
                )
            if self.removed.count(number) > data.NUMBER_COUNTS[number]:
                raise ValueError(
                    f"removed_numbers takes {self.removed.count(number)} copies of {number}; "
                    f"the deck holds {data.NUMBER_COUNTS[number]}"
                )
        if not 1 <= self.hand_size <= self.max_hand_size:
            spare = "" if self.fixed_destination is not None else " and the destination"
            raise ValueError(
                f"hand_size={self.hand_size} with num_players={self.num_players} and "
                f"removed_numbers={list(self.removed)} cannot be dealt: the deck holds "
                f"{self.deck_size} number cards for {self.num_players} hands{spare}; "
                f"allowed hand_size: 1..{self.max_hand_size}"
            )
        top = self.special_deck_size // self.num_players
        if not 0 <= self.specials_per_player <= top:
            raise ValueError(
                f"specials_per_player={self.specials_per_player} is impossible for "
                f"{self.num_players} players; allowed: 0..{top}"
            )
        if self.rounds is None and self.target is None:
            raise ValueError("rounds=None needs a target (points), or the game never ends")
        if self.target is not None and self.target > self.total_points:
            raise ValueError(
                f"target={self.target} can never be reached: num_players={self.num_players} "
                f"x starting_points={self.starting_points} puts only {self.total_points} "
                f"points on the table; allowed target: 1..{self.total_points}"
            )
        if self.starting_points > MAX_POINTS:
            raise ValueError(
                f"starting_points={self.starting_points} is too large; allowed: 1..{MAX_POINTS}"
            )
        for name, value, modes in (
            ("retrogrades", self.retrogrades, RETROGRADE_MODES),
            ("retrograde_deposit", self.retrograde_deposit, RETROGRADE_DEPOSIT_MODES),
            ("majority_ties", self.majority_ties, MAJORITY_TIE_MODES),
        ):
            if value not in modes:
                raise ValueError(
                    f"{name}={short_repr(value)} is not allowed; allowed values: {modes}"
                )


# ---- one turn, resolved jointly ---------------------------------------------


class Play(NamedTuple):
    """One player's face-down commitment: a number card and an optional special.

    A named tuple rather than a dataclass: one is made per player per turn, and
    tuples are several times cheaper to build and compare."""

    number: int
    power: str | None = None
    joker: bool = False

    @classmethod
    def from_action(cls, action: int) -> Play:
        if 0 <= action < NUM_ACTIONS:
            return PLAYS[action]
        return cls(*decode_action(action))  # raises, naming the range

    @classmethod
    def from_text(cls, text: str) -> Play:
        return cls.from_action(parse_action(text))

    def text(self) -> str:
        return action_text(encode_action(self.number, self.power, self.joker))


PLAYS: tuple[Play, ...] = tuple(Play(*decode_action(a)) for a in range(NUM_ACTIONS))
"""Every possible commitment, indexed by action id (built once)."""


class Outcome(NamedTuple):
    """Who won a turn and why, before any points move.

    ``kind`` is one of ``majority``, ``closest``, ``farthest`` (Retrograde),
    ``draw`` or ``explosion`` (a joker declared Explosion).
    """

    kind: str
    winner: int | None
    distance: int
    """The winner's original distance, or the draw's deposit per player."""


def close_adjusted(original: list[int], powers: tuple[str | None, ...]) -> Sequence[float]:
    """The distances the closest/farthest rule compares: ``original`` with Close
    subtracting 0.5 from its player's distance.
    Most turns see no Close, and then ``original`` itself serves (not copied)."""
    if "C" not in powers:
        return original
    return [d - 0.5 if power == "C" else d for d, power in zip(original, powers, strict=True)]


def major_numbers(plays: list[Play], ties: str = "none") -> set[int]:
    """The major numbers: the number played strictly more often than any other
    (``ties="none"``: none when several share the most), or every number played
    most often (``ties="all"``). Ruling 6."""
    counts: dict[int, int] = {}
    for p in plays:
        counts[p.number] = counts.get(p.number, 0) + 1
    if not counts:
        return set()
    most = max(counts.values())
    tied = {number for number, count in counts.items() if count == most}
    if len(tied) > 1 and ties == "none":
        return set()
    return tied


def major_number(plays: list[Play]) -> int | None:
    """The number played strictly more often than any other, if there is one."""
    major = major_numbers(plays)
    return next(iter(major)) if major else None


def majority_seat(plays: list[Play], original: list[int], ties: str = "none") -> int | None:
    """The seat that wins by Majority: the only Majority played on a major
    number (at a non-zero distance); None when there is no such single seat
    (two Majorities on major numbers have no effect)."""
    major = major_numbers(plays, ties)
    if not major:
        return None
    on_major = [
        seat
        for seat, p in enumerate(plays)
        if p.power == "M" and p.number in major and original[seat] > 0
    ]
    return on_major[0] if len(on_major) == 1 else None


def retrograde_reverses(powers: tuple[str | None, ...], mode: str = "once") -> bool:
    """Whether the turn is decided by the farthest distance: any Retrograde
    (``"once"``), or an odd number of them (``"cancel"``: each reverses the rule
    again). Ruling 7."""
    count = powers.count("R")
    return count % 2 == 1 if mode == "cancel" else count > 0


def draw_deposit(original: list[int], reversed_turn: bool, mode: str = "closest") -> int:
    """What each player deposits on a draw: the smallest non-zero distance played
    (ruling 10), or in a reversed turn under ``retrograde_deposit="farthest"`` the
    largest (ruling 20); 0 when every card was on the destination."""
    if reversed_turn and mode == "farthest":
        return max(original, default=0)
    return min(filter(None, original), default=0)


def decide_winner(
    destination: int, plays: list[Play], rules: TurnRules = DEFAULT_TURN_RULES
) -> Outcome:
    """Apply the specials and the distance rule to revealed plays (pure).

    Order: Explosion (joker) voids the turn; a single Majority on a major
    number wins; otherwise the closest (or, with Retrograde, the farthest)
    distance that no other play shares wins. Distance 0 never wins. ``rules``
    carries the readings the rulebook leaves open (rulings 6, 7, 20).

    Runs once per turn, so it works on plain lists: the plays split into their
    numbers and powers in one ``zip``, and the winning distance is found among
    the unique ones and then located, rather than ranking the seats by a key.
    """
    if not plays:  # nothing revealed: a draw that deposits nothing
        return Outcome("draw", None, 0)
    numbers, powers, _ = zip(*plays, strict=True)
    if "X" in powers:
        return Outcome("explosion", None, 0)
    original = [abs(number - destination) for number in numbers]
    if "M" in powers:
        seat = majority_seat(plays, original, rules.majority_ties)
        if seat is not None:
            return Outcome("majority", seat, original[seat])
    adjusted = close_adjusted(original, powers)
    reversed_turn = "R" in powers and retrograde_reverses(powers, rules.retrogrades)
    # Only original distance 0 gives an adjusted distance <= 0 (0, or -0.5 with Close).
    unique = [d for d in adjusted if d > 0 and adjusted.count(d) == 1]
    if not unique:
        deposit = draw_deposit(original, reversed_turn, rules.retrograde_deposit)
        return Outcome("draw", None, deposit)
    if reversed_turn:
        kind, best = "farthest", max(unique)
    else:
        kind, best = "closest", min(unique)
    seat = adjusted.index(best)  # unique, so this is the only seat at it
    return Outcome(kind, seat, original[seat])


def payment_per_player(outcome: Outcome, play: Play) -> int:
    """What each other player owes the winner: distance x2 for Double (x3 for a
    Triple joker), x2 again when winning with 1 or 15."""
    amount = outcome.distance
    if play.power == "D":
        amount *= 2
    elif play.power == "T":
        amount *= 3
    if play.number in (1, 15):
        amount *= 2
    return amount


class TurnResult(NamedTuple):
    """A resolved turn: the revealed plays, the outcome and the points moved."""

    destination: int
    plays: tuple[Play, ...]
    outcome: Outcome
    deltas: tuple[int, ...]
    """Change of each seat's points."""
    deposit_before: int
    deposit_after: int
    blackhole: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "destination": self.destination,
            "plays": [p.text() for p in self.plays],
            "kind": self.outcome.kind,
            "winner": self.outcome.winner,
            "distance": self.outcome.distance,
            "deltas": list(self.deltas),
            "deposit_before": self.deposit_before,
            "deposit_after": self.deposit_after,
            "blackhole": self.blackhole,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TurnResult:
        return cls(
            destination=int(d["destination"]),
            plays=tuple(Play.from_text(t) for t in d["plays"]),
            outcome=Outcome(str(d["kind"]), d["winner"], int(d["distance"])),
            deltas=tuple(int(x) for x in d["deltas"]),
            deposit_before=int(d["deposit_before"]),
            deposit_after=int(d["deposit_after"]),
            blackhole=bool(d["blackhole"]),
        )


def settle(
    destination: int,
    plays: list[Play],
    points: list[int],
    deposit: int,
    rules: TurnRules = DEFAULT_TURN_RULES,
) -> tuple[TurnResult, list[int], int]:
    """Resolve revealed plays into points: returns the result, the new points
    and the new deposit. Pure: the inputs are not modified.

    The points move as one list of deltas (payments are negative), built with
    one comprehension per case (a conditional, not ``min()``, which costs several
    times more per call), and the new points are the old plus those."""
    outcome = decide_winner(destination, plays, rules)
    winner = outcome.winner
    blackhole = False
    if outcome.kind == "draw":
        deposited = outcome.distance
        deltas = [-deposited if p > deposited else -p for p in points]  # or all they have
        new_deposit = deposit - sum(deltas)
    elif winner is None:  # explosion: nothing moves
        deltas = [0] * len(points)
        new_deposit = deposit
    else:
        owed = payment_per_player(outcome, plays[winner])
        deltas = [-owed if p > owed else -p for p in points]  # or all they have
        deltas[winner] = 0
        taken = -sum(deltas)
        blackhole = "B" in [p.power for p in plays]
        if blackhole:
            new_deposit = deposit + taken
        else:
            deltas[winner] = taken + deposit
            new_deposit = 0
    new_points = list(map(operator.add, points, deltas))
    result = TurnResult(
        destination, tuple(plays), outcome, tuple(deltas), deposit, new_deposit, blackhole
    )
    return result, new_points, new_deposit


def resolve_turn(state: AsrusGame, plays: list[Play]) -> TurnResult:
    """The joint-action apply: every seat's play at once (parallel env, tests)."""
    if len(plays) != state.config.num_players:
        raise ValueError(
            f"resolve_turn needs one play per seat: {state.config.num_players}, got {len(plays)}"
        )
    if state.committed:
        raise ValueError(
            f"resolve_turn plays a whole turn, but {state.committed} seat(s) have already "
            f"committed this turn; commit the rest with apply_action"
        )
    for play in plays:
        state.apply_action(encode_action(play.number, play.power, play.joker))
    assert state.last_result is not None
    return state.last_result


# ---- the game state -----------------------------------------------------------


def empty_counts(size: int) -> list[int]:
    return [0] * size


def full_number_pile(config: AsrusConfig) -> list[int]:
    """The whole deck of this game as counts indexed by number (index 0 unused)."""
    counts = config.number_counts
    return [0] + [counts[n] for n in data.NUMBERS]


def full_special_pile(jokers: bool) -> list[int]:
    """Counts in C B D M R J order."""
    return [data.SPECIAL_COUNT_EACH] * len(data.SPECIAL_KINDS) + [data.JOKER_COUNT if jokers else 0]


def draw_from(pile: list[int], k: int, rng: np.random.Generator) -> list[int]:
    """Draw ``k`` cards uniformly without replacement from a count pile (in place).

    Returns the drawn card indices in draw order. The cards, laid out in index
    order, are shuffled by position; a position is turned back into its card by
    bisecting the running counts rather than laying the pile out card by card,
    which matters because every hand and special hand dealt is drawn here."""
    ends = list(itertools.accumulate(pile))
    size = ends[-1] if ends else 0
    if k > size:
        raise ValueError(f"cannot draw {k} cards from a pile of {size}")
    picks = rng.permutation(size)[:k].tolist()
    drawn = [bisect.bisect_right(ends, position) for position in picks]
    for card in drawn:
        pile[card] -= 1
    return drawn


@dataclass
class LotteryResult:
    """The end-of-round lottery for deposits: each draw round's cards, who won,
    and what each winner took.

    ``winners`` has one seat, unless the pile could not single one out (fewer
    cards than players still drawing, or every card the same number: ruling
    13), when the players still tied share the deposits."""

    draws: list[dict[int, int]]
    winners: tuple[int, ...]
    amount: int
    """The deposits on the table when the lottery began."""

    @property
    def share(self) -> int:
        """Points each winner takes; what does not divide evenly stays deposited."""
        return self.amount // len(self.winners)

    def to_dict(self) -> dict[str, Any]:
        return {
            "draws": [{str(k): v for k, v in d.items()} for d in self.draws],
            "winners": list(self.winners),
            "amount": self.amount,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LotteryResult:
        draws = [{int(k): int(v) for k, v in r.items()} for r in d["draws"]]
        return cls(draws, tuple(int(w) for w in d["winners"]), int(d["amount"]))


def lottery_can_single_out(pile: list[int], contenders: int) -> bool:
    """Whether drawing from ``pile`` can ever leave one lowest card among
    ``contenders`` draws: it needs a card for each, and two different numbers."""
    return sum(pile) >= contenders and sum(1 for count in pile if count) >= 2


def draw_lottery(
    number_pile: list[int], num_players: int, deposit: int, rng: np.random.Generator
) -> LotteryResult:
    """The end-of-round lottery for ``deposit``: each player draws from the
    shuffled number pile; the lowest takes the deposits; tied lowest players
    draw again from the reshuffled pile. When the pile cannot single one out,
    the players still tied share (ruling 13). ``number_pile`` is not changed
    (the cards drawn go back). Shared by the scalar and the vector engine."""
    contenders = list(range(num_players))
    rounds: list[dict[int, int]] = []
    while len(contenders) > 1 and lottery_can_single_out(number_pile, len(contenders)):
        pile = list(number_pile)
        drawn = draw_from(pile, len(contenders), rng)
        draw = dict(zip(contenders, drawn, strict=True))
        rounds.append(draw)
        low = min(drawn)
        contenders = [seat for seat, card in draw.items() if card == low]
    return LotteryResult(rounds, tuple(contenders), deposit)


@dataclass
class AsrusGame(GameEngine):
    """A game of Asrus in progress. Create it with :meth:`new`."""

    config: AsrusConfig
    rng: np.random.Generator
    hands: list[list[int]]
    """Per seat, counts indexed by number (index 0 unused)."""
    specials: list[list[int]]
    """Per seat, counts of C B D M R and jokers."""
    points: list[int]
    number_pile: list[int]
    special_pile: list[int]
    destination: int
    destination_card: bool
    """False when the destination is fixed with no card on the table (8 players)."""
    deposit: int = 0
    table_points: int = 0
    """Points at the table, players' and deposited: set at the deal and never
    changed, since points only move between players and the deposit."""
    round: int = 1
    turn: int = 1
    pending: list[Play | None] = field(default_factory=list)
    committed: int = 0
    """How many seats have committed this turn (they commit in seat order)."""
    revealed: list[int] = field(default_factory=lambda: empty_counts(16))
    """Number cards revealed this round, by number (their copies went to the pile
    or the destination)."""
    last_result: TurnResult | None = None
    last_lottery: LotteryResult | None = None
    over: bool = False
    version: int = 0
    """Bumped whenever public information changes; observation caches key on it."""
    _legal_cache: dict[int, list[int]] = field(default_factory=dict, repr=False)
    _masks: np.ndarray | None = field(default=None, repr=False)
    _holdings: np.ndarray | None = field(default=None, repr=False)
    _masks_rw: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Writable (n, 15, 13) bool base of ``_masks``: only :meth:`_move_cards` writes it."""
    _holdings_rw: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Writable base of ``_holdings``: only :meth:`_move_cards` writes it."""
    _holdings_flat: memoryview[float] | None = field(default=None, repr=False, compare=False)
    """``_holdings_rw`` as one flat float32 memoryview (seat * 22 + column): an
    element write through it costs a third of numpy's indexed write."""
    _masks_flat: memoryview[int] | None = field(default=None, repr=False, compare=False)
    """``_masks_rw`` as one flat byte memoryview (seat * 195 + action)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> AsrusGame:
        """A deep copy without the derived tables (holdings, masks and their
        flat views, the legal-list cache): the copy rebuilds them from its own
        hands when first asked. Memoryviews cannot be copied, and a copied
        read-only mask would not follow the copy's moves."""
        other = object.__new__(type(self))
        memo[id(self)] = other
        fields = other.__dict__
        for name, value in vars(self).items():
            if name in _DERIVED:
                fields[name] = {} if name == "_legal_cache" else None
            else:
                fields[name] = copy.deepcopy(value, memo)
        return other

    @property
    def num_players(self) -> int:  # type: ignore[override]
        return self.config.num_players

    # -- setting up --

    @classmethod
    def new(
        cls,
        config: AsrusConfig,
        rng: np.random.Generator,
        hands: dict[int, list[int]] | None = None,
        specials: dict[int, list[str]] | None = None,
        destination: int | None = None,
        points: dict[int, int] | None = None,
        deposit: int = 0,
    ) -> AsrusGame:
        """Deal a game; any hand, special hand, destination or points given are
        placed first, and the rest is dealt from the seeded shuffle."""
        game = cls(
            config=config,
            rng=rng,
            hands=[],
            specials=[],
            points=[config.starting_points] * config.num_players,
            number_pile=full_number_pile(config),
            special_pile=full_special_pile(config.jokers),
            destination=0,
            destination_card=True,
        )
        for seat, value in (points or {}).items():
            game.points[seat] = value
        game.deposit = deposit
        game.table_points = sum(game.points) + deposit
        game.deal_round(hands or {}, specials or {}, destination)
        return game

    def deal_round(
        self,
        hands: dict[int, list[int]],
        specials: dict[int, list[str]],
        destination: int | None,
    ) -> None:
        """Preparation of a round: deal hands and specials, open the destination."""
        n = self.config.num_players
        self.number_pile = full_number_pile(self.config)
        self.special_pile = full_special_pile(self.config.jokers)
        size = self._scenario_hand_size(hands)
        self.hands = [empty_counts(16) for _ in range(n)]
        for seat, cards in hands.items():
            for number in cards:
                take_card(self.number_pile, number, f"number card {number}")
                self.hands[seat][number] += 1
        self.destination_card = self.config.fixed_destination is None
        if destination is not None:
            if self.destination_card:
                take_card(self.number_pile, destination, f"destination {destination}")
            self.destination = destination
        self.specials = [empty_counts(len(data.SPECIAL_KINDS) + 1) for _ in range(n)]
        for seat, kinds in specials.items():
            for kind in kinds:
                index = JOKER_INDEX if kind == "J" else SPECIAL_INDEX[kind]
                take_card(self.special_pile, index, f"special card {kind}")
                self.specials[seat][index] += 1
        for seat in range(n):
            if seat not in hands:
                for number in draw_from(self.number_pile, size, self.rng):
                    self.hands[seat][number] += 1
            if seat not in specials:
                for index in draw_from(
                    self.special_pile, self.config.specials_per_player, self.rng
                ):
                    self.specials[seat][index] += 1
        if destination is None:
            if self.destination_card:
                self.destination = draw_from(self.number_pile, 1, self.rng)[0]
            else:
                self.destination = self.config.fixed_destination or 8
        self.pending = [None] * n
        self.committed = 0
        self.revealed = empty_counts(16)
        self.turn = 1
        self._holdings = self._masks = self._holdings_rw = self._masks_rw = None
        self._holdings_flat = self._masks_flat = None
        self._changed()

    def _scenario_hand_size(self, hands: dict[int, list[int]]) -> int:
        sizes = {len(cards) for cards in hands.values()}
        if len(sizes) > 1:
            raise ValueError(
                f"scenario hands must all have the same size, got sizes {sorted(sizes)}"
            )
        size = sizes.pop() if sizes else self.config.hand_size
        if size < 1:
            raise ValueError("scenario hands must hold at least one number card")
        return size

    # -- the GameEngine interface --

    def current_player(self) -> int:
        if self.over:
            return NO_PLAYER
        return self.committed  # seats commit in order; a full turn resolves at once

    def legal_actions(self) -> list[int]:
        seat = self.current_player()
        if seat == NO_PLAYER:
            return []
        return self.legal_actions_for(seat)

    def legal_actions_for(self, seat: int) -> list[int]:
        """What ``seat`` may commit this turn (all seats choose at once)."""
        cached = self._legal_cache.get(seat)
        if cached is None:
            cached = np.flatnonzero(self.legal_masks()[seat]).tolist()
            self._legal_cache[seat] = cached
        return cached

    def legal_mask(self, num_actions: int) -> np.ndarray:
        if self.over:
            return np.zeros(num_actions, dtype=np.int8)
        masks = self._masks if self._masks is not None else self.legal_masks()
        return masks[self.committed]  # the seat to act (current_player, inlined: per step)

    def holdings(self) -> np.ndarray:
        """Every seat's cards as one array, shape (n, 22): column 0 always 1 (so a
        "may always play a card alone" slot can be read from it), 1-15 the number
        cards, 16-21 the C B D M R joker specials. Shared by the masks and the
        observations (read-only; it changes in place as cards are played)."""
        if self._holdings is None:
            self._build_tables()
        assert self._holdings is not None
        return self._holdings

    def legal_masks(self) -> np.ndarray:
        """Every seat's legal-action mask for this turn, shape (n, 195), int8.

        A card may be played alone, with any special kind its player holds, or
        with a joker declared as any power; legal_actions() is read off these
        rows, so the mask and the list cannot disagree. Read-only, and valid for
        this turn only (it changes in place as cards are played): callers copy."""
        if self._masks is None:
            self._build_tables()
        assert self._masks is not None
        return self._masks

    def _build_tables(self) -> None:
        """Build :meth:`holdings` and :meth:`legal_masks` from the hands, for every
        seat at once. Done at a deal and after a load only: from then on each turn
        takes one number card and at most one special from each seat, and
        :meth:`_move_cards` updates the few entries that change, which costs a
        handful of element writes where a rebuild costs several array passes."""
        rows = [hand + held for hand, held in zip(self.hands, self.specials, strict=True)]
        holdings = np.array(rows, dtype=np.float32)
        holdings[:, 0] = 1.0
        has_number = holdings[:, 1:16] > 0
        slot_allowed = holdings.take(SLOT_COLUMNS, axis=1) > 0
        masks = has_number[:, :, None] & slot_allowed[:, None, :]
        self._holdings_rw, self._masks_rw = holdings, masks
        self._holdings_flat = holdings.data.cast("B").cast("f")
        self._masks_flat = masks.data.cast("B")
        self._holdings = holdings.view()
        self._holdings.flags.writeable = False
        self._masks = masks.reshape(self.config.num_players, NUM_ACTIONS).view(np.int8)
        self._masks.flags.writeable = False

    def is_legal_id(self, action: int, num_actions: int) -> bool:
        """The mask entry read through the flat byte view (a numpy scalar index
        costs several times more; the env asks this before every step)."""
        if self.over:
            return False
        if self._masks_flat is None:
            self._build_tables()
        assert self._masks_flat is not None
        return bool(self._masks_flat[NUM_ACTIONS * self.committed + action])

    def apply_action(self, action: int) -> None:
        # current_player() and the mask lookup inlined: this runs every step.
        seat = NO_PLAYER if self.over else self.committed
        if (
            seat == NO_PLAYER
            or not 0 <= action < NUM_ACTIONS
            or not self.is_legal_id(action, NUM_ACTIONS)
        ):
            raise ValueError(
                f"illegal Asrus action {action} for seat {seat}; legal: "
                f"{[action_text(a) for a in self.legal_actions()]}"
            )
        self.pending[seat] = PLAYS[action]
        self.committed += 1
        if seat == self.config.num_players - 1:
            self._resolve()

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return [float(p) for p in self.points]

    def winners(self) -> list[int]:
        best = max(self.points)
        return [seat for seat, p in enumerate(self.points) if p == best]

    def action_to_string(self, seat: int, action: int) -> str:
        return action_text(action)

    def string_to_action(self, seat: int, text: str) -> int:
        return parse_action(text)

    # -- resolution --

    def _resolve(self) -> None:
        """Reveal, settle points, move cards, then end the round or game if due."""
        plays = [p for p in self.pending if p is not None]
        result, self.points, self.deposit = settle(
            self.destination, plays, self.points, self.deposit, self.config.turn_rules
        )
        self.last_result = result
        self.last_lottery = None
        self._move_cards(plays, result.outcome.winner)
        self.pending = [None] * self.config.num_players
        self.committed = 0
        self.turn += 1
        if self._eliminated():
            self.over = True
        elif not any(map(sum, self.hands)):
            self._end_round()
        self._changed()

    def _move_cards(self, plays: list[Play], winner: int | None) -> None:
        """Played cards leave the hands; the tables of :meth:`_build_tables`, once
        built, follow: a count is copied over, and a kind whose last copy went
        clears its mask entries (a number's 13 slots, or a special's slots)."""
        masks, flat_holdings, flat_masks = self._masks_rw, self._holdings_flat, self._masks_flat
        for seat, play in enumerate(plays):
            number = play.number
            hand = self.hands[seat]
            left = hand[number] = hand[number] - 1
            self.revealed[number] += 1
            if flat_holdings is not None and flat_masks is not None:  # tables built
                flat_holdings[HOLDING_WIDTH * seat + number] = left
                if not left:
                    start = NUM_ACTIONS * seat + NUM_SLOTS * (number - 1)
                    flat_masks[start : start + NUM_SLOTS] = _NO_SLOTS
            if play.power is not None:
                index = JOKER_INDEX if play.joker else SPECIAL_INDEX[play.power]
                held = self.specials[seat]
                held[index] -= 1
                self.special_pile[index] += 1
                if flat_holdings is not None and masks is not None:
                    flat_holdings[HOLDING_WIDTH * seat + 16 + index] = held[index]
                    if not held[index]:
                        masks[seat, :, SPECIAL_SLOTS[index]] = False
            if seat != winner:
                self.number_pile[number] += 1
        if winner is not None:
            if self.destination_card:
                self.number_pile[self.destination] += 1
            self.destination = plays[winner].number
            self.destination_card = True

    def _eliminated(self) -> bool:
        if not self.config.elimination or min(self.points) > 0:
            return False
        broke = sum(1 for p in self.points if p <= 0)
        return broke >= math.ceil(self.config.num_players / 4)

    def _end_round(self) -> None:
        if self.deposit > 0:
            lottery = self._lottery()
            for seat in lottery.winners:
                self.points[seat] += lottery.share
            self.deposit -= lottery.share * len(lottery.winners)
            self.last_lottery = lottery
        finished_rounds = self.round
        target_hit = self.config.target is not None and max(self.points) >= self.config.target
        rounds_done = self.config.rounds is not None and finished_rounds >= self.config.rounds
        if target_hit or rounds_done:
            self.over = True
            return
        self.round += 1
        self.deal_round({}, {}, None)

    def _lottery(self) -> LotteryResult:
        return draw_lottery(self.number_pile, self.config.num_players, self.deposit, self.rng)

    def _changed(self) -> None:
        self._legal_cache.clear()
        self.version += 1

    # -- serialisation --

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": {**self.config.__dict__, "removed": list(self.config.removed)},
            "rng": rng_to_dict(self.rng),
            "hands": [list(h) for h in self.hands],
            "specials": [list(s) for s in self.specials],
            "points": list(self.points),
            "number_pile": list(self.number_pile),
            "special_pile": list(self.special_pile),
            "destination": self.destination,
            "destination_card": self.destination_card,
            "deposit": self.deposit,
            "table_points": self.table_points,
            "round": self.round,
            "turn": self.turn,
            "pending": [None if p is None else p.text() for p in self.pending],
            "revealed": list(self.revealed),
            "last_result": None if self.last_result is None else self.last_result.to_dict(),
            "last_lottery": None if self.last_lottery is None else self.last_lottery.to_dict(),
            "over": self.over,
        }

    @classmethod
    def from_dict(cls, d: Any) -> AsrusGame:
        """Rebuild a saved game. Every field is checked first (:func:`validate_state`):
        a :class:`StateDictError` names the first one that is wrong."""
        validate_state(d)
        game = cls(
            config=config_from_dict(d["config"]),
            rng=rng_from_dict(d["rng"]),
            hands=[list(h) for h in d["hands"]],
            specials=[list(x) for x in d["specials"]],
            points=list(d["points"]),
            number_pile=list(d["number_pile"]),
            special_pile=list(d["special_pile"]),
            destination=d["destination"],
            destination_card=d["destination_card"],
            deposit=d["deposit"],
            table_points=d["table_points"],
            round=d["round"],
            turn=d["turn"],
            pending=[optional(t, Play.from_text) for t in d["pending"]],
            revealed=list(d["revealed"]),
            last_result=optional(d["last_result"], TurnResult.from_dict),
            last_lottery=optional(d["last_lottery"], LotteryResult.from_dict),
            over=d["over"],
        )
        game.committed = sum(1 for p in game.pending if p is not None)
        return game

    def invariant_violations(self) -> list[str]:
        """Cards each in one place, equal hands, points and deposit in range."""
        try:
            self.check_conservation()
        except StateDictError as err:
            return [str(err)]
        sizes = {sum(hand) for hand in self.hands}
        problems = [] if len(sizes) == 1 else [f"hands of unequal sizes {sorted(sizes)}"]
        if min(self.points) < 0 or self.deposit < 0:
            problems.append(f"negative points {self.points} or deposit {self.deposit}")
        if sum(self.points) + self.deposit != self.table_points:
            problems.append(
                f"points {self.points} + deposit {self.deposit} != the {self.table_points} "
                f"points at the table"
            )
        return problems

    def check_conservation(self) -> None:
        """Raise :class:`StateDictError` unless every card is in exactly one place."""
        deck = self.config.number_counts
        for number in data.NUMBERS:
            held = sum(h[number] for h in self.hands) + self.number_pile[number]
            held += 1 if (self.destination_card and self.destination == number) else 0
            if held != deck[number] or min(h[number] for h in self.hands) < 0:
                raise StateDictError(
                    f"game.hands/number_pile/destination: {held} copies of number {number} "
                    f"in hands, pile and destination; the deck holds {deck[number]}"
                )
        full = full_special_pile(self.config.jokers)
        for index, count in enumerate(full):
            held = sum(s[index] for s in self.specials) + self.special_pile[index]
            if held != count:
                raise StateDictError(
                    f"game.specials/special_pile: {held} copies of special "
                    f"{SPECIAL_LETTERS[index]} in hands and pile; the deck holds {count}"
                )


def optional(value: Any, build: Any) -> Any:
    """``build(value)``, or None for None (saved optional fields)."""
    return None if value is None else build(value)


def take_card(pile: list[int], index: int, what: str) -> None:
    """Remove one named card from a count pile; the error says it is not there."""
    if not 0 <= index < len(pile) or pile[index] <= 0:
        raise ValueError(f"scenario asks for {what}, but no copy of it is left in the deck")
    pile[index] -= 1


def new_game(config: AsrusConfig, seed: int | None = None) -> AsrusGame:
    """A dealt game from a seed (convenience for tests and scripts)."""
    return AsrusGame.new(config, make_rng(seed))


# ---- checking a saved state -----------------------------------------------------

SPECIAL_LETTERS = (*data.SPECIAL_KINDS, "J")
"""Special-card counts are kept in this order: C B D M R, then jokers."""
STATE_KEYS = (
    "config", "rng", "hands", "specials", "points", "number_pile", "special_pile",
    "destination", "destination_card", "deposit", "table_points", "round", "turn", "pending",
    "revealed",
    "last_result", "last_lottery", "over",
)  # fmt: skip
OUTCOME_KINDS = ("majority", "closest", "farthest", "draw", "explosion")
RESULT_KEYS = (
    "destination", "plays", "kind", "winner", "distance", "deltas", "deposit_before",
    "deposit_after", "blackhole",
)  # fmt: skip


def config_from_dict(saved: Any) -> AsrusConfig:
    """The saved config, type-checked field by field, then checked as a whole."""
    fields = {f: None for f in AsrusConfig.__dataclass_fields__}
    saved = require_dict(saved, "game.config", list(fields))
    players = require_choice(
        saved["num_players"], "game.config.num_players", tuple(sorted(data.PREPARATION))
    )
    optional_int = ("rounds", "target")
    values: dict[str, Any] = {"num_players": players}
    for name in ("hand_size", "specials_per_player", "starting_points", *optional_int):
        value = saved[name]
        if not (value is None and name in optional_int):
            value = require_int(value, f"game.config.{name}", 0)
        values[name] = value
    for name in ("elimination", "jokers"):
        values[name] = require_bool(saved[name], f"game.config.{name}")
    removed = require_list(saved["removed"], "game.config.removed")
    values["removed"] = tuple(
        require_int(x, f"game.config.removed[{i}]", 1, 15) for i, x in enumerate(removed)
    )
    for name, modes in (
        ("retrogrades", RETROGRADE_MODES),
        ("retrograde_deposit", RETROGRADE_DEPOSIT_MODES),
        ("majority_ties", MAJORITY_TIE_MODES),
    ):
        values[name] = require_choice(saved[name], f"game.config.{name}", modes)
    config = AsrusConfig(**values)
    try:
        config.check()
    except ValueError as err:
        raise StateDictError(f"game.config: {err}") from None
    return config


def validate_state(d: Any) -> None:
    """Check every field of a saved Asrus game against the rules, before anything
    is built from it: types and ranges, every card in exactly one place, equal
    hands, commitments the players can make, and a position the game can reach.
    Raises :class:`StateDictError` naming the field."""
    d = require_dict(d, "game", STATE_KEYS)
    config = config_from_dict(d["config"])
    n = config.num_players
    rng_from_dict(d["rng"])
    hands = [require_ints(h, f"game.hands[{s}]", 16, 0, 8) for s, h in enumerate(
        require_list(d["hands"], "game.hands", n))]  # fmt: skip
    if any(hand[0] for hand in hands):
        raise StateDictError("game.hands: entry 0 of a hand counts no card and must be 0")
    sizes = [sum(hand) for hand in hands]
    if len(set(sizes)) != 1:
        raise StateDictError(f"game.hands: hands of unequal sizes {sizes}; all are equal")
    specials = [require_ints(x, f"game.specials[{s}]", 6, 0, 3) for s, x in enumerate(
        require_list(d["specials"], "game.specials", n))]  # fmt: skip
    require_ints(d["points"], "game.points", n, 0, MAX_POINTS)
    deposit = require_int(d["deposit"], "game.deposit", 0, MAX_POINTS)
    table = require_int(d["table_points"], "game.table_points", 0, MAX_POINTS * (n + 1))
    if sum(d["points"]) + deposit != table:
        raise StateDictError(
            f"game.points/deposit: {d['points']} + {deposit} deposited do not add up to the "
            f"{table} points at the table (points only move between players and the deposit)"
        )
    pile = require_ints(d["number_pile"], "game.number_pile", 16, 0, 8)
    if pile[0]:
        raise StateDictError("game.number_pile: entry 0 counts no card and must be 0")
    require_ints(d["special_pile"], "game.special_pile", 6, 0, 3)
    destination = require_int(d["destination"], "game.destination", 1, 15)
    if not require_bool(d["destination_card"], "game.destination_card") and (
        config.fixed_destination != destination
    ):
        raise StateDictError(
            f"game.destination_card: false (no card on the table) is only possible for the "
            f"fixed destination {config.fixed_destination} of {n} players, not {destination}"
        )
    require_int(d["round"], "game.round", 1, config.rounds)
    turn = require_int(d["turn"], "game.turn", 1, config.max_hand_size + 1)
    if turn - 1 + sizes[0] > config.max_hand_size:
        raise StateDictError(
            f"game.turn: turn {turn} with {sizes[0]} cards in hand makes a round longer than "
            f"the deck allows ({config.max_hand_size} cards per hand)"
        )
    over = require_bool(d["over"], "game.over")
    validate_pending(d["pending"], hands, specials, over)
    revealed = require_ints(d["revealed"], "game.revealed", 16, 0, 8)
    if revealed[0] or sum(revealed) != (turn - 1) * n:
        raise StateDictError(
            f"game.revealed: {sum(revealed)} cards revealed in turn {turn}; "
            f"{n} players reveal {(turn - 1) * n} by then (entry 0 must be 0)"
        )
    validate_result(d["last_result"], n)
    validate_lottery(d["last_lottery"], n)
    if not over and sizes[0] == 0:
        raise StateDictError("game.over: false, but every hand is empty (the round has ended)")
    game_conservation(d, config)


def validate_pending(
    pending: Any, hands: list[list[int]], specials: list[list[int]], over: bool
) -> None:
    """This turn's commitments: a prefix of the seats (they commit in order), none
    once the game is over, each a card and a special its player holds."""
    n = len(hands)
    pending = require_list(pending, "game.pending", n)
    committed = sum(1 for p in pending if p is not None)
    if any(p is not None for p in pending[committed:]) or committed == n or (over and committed):
        raise StateDictError(
            f"game.pending: {pending}; seats commit in seat order, the last one resolves the "
            f"turn, and nobody commits once the game is over"
        )
    for seat, text in enumerate(pending[:committed]):
        field = f"game.pending[{seat}]"
        if not isinstance(text, str):
            raise StateDictError(
                f"{field}: {short_repr(text, 40)} is not an action string like '9+M'"
            )
        try:
            play = Play.from_text(text)
        except ValueError as err:
            raise StateDictError(f"{field}: {err}") from None
        special = (
            None
            if play.power is None
            else (JOKER_INDEX if play.joker else SPECIAL_INDEX[play.power])
        )
        if not hands[seat][play.number] or (special is not None and not specials[seat][special]):
            raise StateDictError(
                f"{field}: {short_repr(text)} commits a card player_{seat} does not hold"
            )


def validate_result(result: Any, n: int) -> None:
    """The last turn's result, as the view and the observation read it."""
    if result is None:
        return
    result = require_dict(result, "game.last_result", RESULT_KEYS)
    require_int(result["destination"], "game.last_result.destination", 1, 15)
    plays = require_list(result["plays"], "game.last_result.plays", n)
    for seat, text in enumerate(plays):
        try:
            Play.from_text(text if isinstance(text, str) else "?")
        except ValueError:
            raise StateDictError(
                f"game.last_result.plays[{seat}]: {short_repr(text, 40)} is not an action string"
            ) from None
    kind = require_choice(result["kind"], "game.last_result.kind", OUTCOME_KINDS)
    winner = result["winner"]
    if kind in ("draw", "explosion"):
        if winner is not None:
            raise StateDictError(
                f"game.last_result.winner: {short_repr(winner)} on a {kind}; expected null"
            )
    else:
        require_int(winner, "game.last_result.winner", 0, n - 1)
    require_int(result["distance"], "game.last_result.distance", 0, 14)
    require_ints(result["deltas"], "game.last_result.deltas", n, -MAX_POINTS, 2 * MAX_POINTS)
    require_int(result["deposit_before"], "game.last_result.deposit_before", 0, MAX_POINTS)
    require_int(result["deposit_after"], "game.last_result.deposit_after", 0, MAX_POINTS)
    require_bool(result["blackhole"], "game.last_result.blackhole")


def validate_lottery(lottery: Any, n: int) -> None:
    """The last end-of-round lottery: its draws (seat -> number), winners, amount."""
    if lottery is None:
        return
    lottery = require_dict(lottery, "game.last_lottery", ("draws", "winners", "amount"))
    for i, draw in enumerate(require_list(lottery["draws"], "game.last_lottery.draws")):
        for seat, number in require_dict(draw, f"game.last_lottery.draws[{i}]").items():
            if seat not in {str(s) for s in range(n)}:
                raise StateDictError(
                    f"game.last_lottery.draws[{i}]: {short_repr(seat)} is not a seat"
                )
            require_int(number, f"game.last_lottery.draws[{i}][{seat}]", 1, 15)
    winners = require_list(lottery["winners"], "game.last_lottery.winners")
    if not 1 <= len(winners) <= n:
        raise StateDictError(f"game.last_lottery.winners: {winners} must name 1..{n} seats")
    for i, seat in enumerate(winners):
        require_int(seat, f"game.last_lottery.winners[{i}]", 0, n - 1)
    require_int(lottery["amount"], "game.last_lottery.amount", 1, MAX_POINTS)


def game_conservation(d: dict[str, Any], config: AsrusConfig) -> None:
    """Every number card and special in exactly one place (hands, piles, table)."""
    probe = AsrusGame(
        config=config,
        rng=make_rng(0),
        hands=d["hands"],
        specials=d["specials"],
        points=d["points"],
        number_pile=d["number_pile"],
        special_pile=d["special_pile"],
        destination=d["destination"],
        destination_card=d["destination_card"],
    )
    probe.check_conservation()
