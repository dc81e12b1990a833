"""Astrobirdz rules engine: pure Python, no gymnasium or PettingZoo.

The game in brief (the full rules and our rulings: ``docs/rules/astrobirdz.md``):

* 54 cards, six colours (R O Y G B P) numbered 1-9, and six Berzerkerbirdz
  (1 Zoom, 2 Max, 3 Speedster, 4 Turbo, 5 Nitro, 6 Surfette). 2-6 players play
  the number of turns of the Player Chart (2p 5, 3p 5, 4p 6, 5p 7, 6p 8); turn t
  deals t cards to each player.
* A turn: deal one Berzerkerbird to each player; the lowest bird deals the
  cards; the dealer turns up the trump card, whose rule holds for the turn
  (:mod:`.data` has all 54 as a table); the rule's after-deal effect (extra
  draws, discards, passes, a trump colour chosen by a player, birds rotating);
  the optional pass-cards rule; Surfette's trade; guesses from the dealer's
  left (Nitro peeks at a hand just before his guess, Max guesses last); the
  AstroBoard goes to the highest guess; tricks (follow the led colour if you
  can; the highest trump, else the highest card of the led colour, wins; Zoom
  leads the first trick, Speedster plays last); the AstroBoard power; scoring.
* Turn score: tricks, +5 for an exact guess, +5 for the highest correct guess
  (+5 more with the AstroBoard, +5 more again for Turbo), the rule card's card
  points, the bird's points, -1 per trick off the guess; floored at zero; then
  the even/odd bonuses and doubling. The highest running total wins.

Decisions that the rulebook has players take "at the same time" (discards,
passes) are asked one seat at a time, from the dealer's left; nothing moves
until every seat has chosen, and no seat sees another's choice.

For speed, hands are bitmasks (bit ``c`` = card id ``c``), and the engine keeps
an optional event log (:attr:`AstrobirdzGame.events`) that the env's observer
reads to update observations incrementally.

The pure pieces this engine plays with (the phases, the config, who wins a
trick, the seating orders, a turn's score items) are in :mod:`.basics`, and a
saved game is checked by :mod:`.state`: both sit below this module and import
nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import StateDictError
from ..core.game import NO_PLAYER, GameEngine
from ..core.rng import make_rng, rng_to_dict
from . import data
from .actions import GUESS_OFFSET, PLAYER_OFFSET, TRUMP_OFFSET, ActionLayout
from .basics import (
    CHOICE_PHASES,
    COLOUR_MASKS,
    PHASE_NAMES,
    AstrobirdzConfig,
    Phase,
    TurnScore,
    astroboard_holder_of,
    astroboard_partners_of,
    bits,
    data_cards,
    first_leader_of,
    from_left_of,
    guess_order_of,
    mask_of,
    play_order_of,
    seat_with_bird,
    trick_winner,
)
from .data import NO_RULE, Effect, RuleCard, colour_of, number_of
from .state import validate_state_dict

# ---- events ---------------------------------------------------------------------


EV_REBUILD, EV_PLAY, EV_TRICK, EV_GUESS, EV_CHOOSE, EV_PEEK, EV_ASTRO, EV_PARTNER, EV_TRADE = range(
    9
)
"""Event kinds of the log: a full rebuild (deals, passes, discards, trump
chosen, scores), a card played ``(seat, card, position, observers)`` (a bitmask
of the seats whose ``known`` row held the card), a trick won ``(winner,)``, a
guess ``(seat, tricks)``, a card chosen ``(seat, card)``, Nitro's peek
``(nitro, target)``, the AstroBoard given ``(holder,)``, Surfette's partner
``(partner,)``, Surfette's trade ``(surfette, partner)``. Phase changes carry no
event: the observer compares ``phase``."""


def card_points(cards: list[int], trump: int, effect: Effect) -> int:
    """Points the rule card gives for ``cards`` taken in tricks."""
    total = 0
    for kind, what, points in effect.card_points:
        for c in cards:
            if (
                (kind == "colour" and colour_of(c) == what)
                or (kind == "number" and number_of(c) == what)
                or (kind == "trump" and colour_of(c) == trump)
            ):
                total += points
    return total


@dataclass(frozen=True)
class TurnFacts:
    """What scoring needs to know about a finished turn (after the AstroBoard)."""

    guesses: list[int]
    won_cards: list[list[int]]
    """Per seat, every card of the tricks it holds."""
    tricks: list[int]
    trick_winners: list[int]
    """Who won each trick in play (first and last trick bonuses)."""
    birds: list[int]
    astroboard: int
    scores_before: list[int]
    guess_order: list[int]
    trump: int


def highest_bonus_seats(config: AstrobirdzConfig, facts: TurnFacts) -> list[int]:
    """Seats that get the highest-correct-guess bonus (see the ruling)."""
    correct = [s for s in facts.guess_order if facts.tricks[s] == facts.guesses[s]]
    if not correct:
        return []
    top = max(facts.guesses[s] for s in correct)
    if config.highest_bonus == "highest_overall" and top != max(facts.guesses):
        return []
    tied = [s for s in correct if facts.guesses[s] == top]
    if config.highest_bonus_ties == "all" or len(tied) == 1:
        return tied
    order = facts.guess_order.index
    return [min(tied, key=lambda s: (facts.scores_before[s], -facts.birds[s], order(s)))]


def score_turn(config: AstrobirdzConfig, effect: Effect, facts: TurnFacts) -> list[TurnScore]:
    """Every seat's points for a finished turn (pure)."""
    n = config.num_players
    bonus = set(highest_bonus_seats(config, facts))
    result = []
    for s in range(n):
        guess, tricks = facts.guesses[s], facts.tricks[s]
        exact = data.EXACT_GUESS_POINTS if guess == tricks else 0
        highest = data.HIGHEST_GUESS_POINTS if s in bonus else 0
        astro = data.ASTROBOARD_BONUS_POINTS if highest and s == facts.astroboard else 0
        turbo = data.TURBO_BONUS_POINTS if astro and facts.birds[s] == data.TURBO else 0
        bird = data.bird(facts.birds[s]).points if facts.birds[s] else 0
        first_last = 0
        if facts.trick_winners and facts.trick_winners[0] == s:
            first_last += effect.first_trick_bonus
        if facts.trick_winners and facts.trick_winners[-1] == s:
            first_last += effect.last_trick_bonus
        trick_points = tricks * effect.trick_value
        cards = card_points(facts.won_cards[s], facts.trump, effect)
        penalty = abs(guess - tricks) * data.MISS_PENALTY_PER_TRICK
        raw = trick_points + exact + highest + astro + turbo + cards + bird + first_last - penalty
        floored = max(0, raw)
        parity_kind, parity_points = effect.parity_bonus
        parity = 0
        if parity_kind and (floored % 2 == 0) == (parity_kind == "even"):
            parity = parity_points
        total = (floored + parity) * effect.multiplier
        item = TurnScore(
            guess=guess, tricks=tricks, trick_points=trick_points, exact=exact,
            highest=highest, astroboard=astro, turbo=turbo, card_points=cards,
            berzerkerbird=bird, first_last=first_last, penalty=penalty, floored=floored,
            parity=parity, multiplier=effect.multiplier, total=total,
        )  # fmt: skip
        result.append(item)
    return result


# ---- the game state -----------------------------------------------------------


def _new_list(n: int, value: int) -> list[int]:
    return [value] * n


def check_scenario(
    config: AstrobirdzConfig,
    hands: dict[int, list[int]],
    trump: int | None,
    berzerkers: dict[int, int],
    turn: int,
    scores: dict[int, int],
) -> None:
    """Raise ``ValueError`` for an impossible scenario, before anything is dealt
    (a refused scenario must not draw from the generator it would continue)."""
    if not 1 <= turn <= config.turns:
        raise ValueError(f"turn={turn} is not allowed; allowed: 1..{config.turns}")
    placed = [c for cards in hands.values() for c in cards]
    if trump is not None:
        placed.append(trump)
    if len(set(placed)) != len(placed):
        twice = sorted({data.card_text(c) for c in placed if placed.count(c) > 1})
        raise ValueError(
            f"scenario names {', '.join(twice)} twice (every card of the hands and the "
            "trump card must differ)"
        )
    for seat, cards in sorted(hands.items()):
        if len(cards) != turn:
            raise ValueError(
                f"scenario hand of player_{seat} has {len(cards)} cards; turn {turn} deals "
                f"{turn} to each player"
            )
    birds = list(berzerkers.values())
    if len(set(birds)) != len(birds) or not all(1 <= b <= 6 for b in birds):
        given = ", ".join(f"player_{s}: {b}" for s, b in sorted(berzerkers.items()))
        raise ValueError(f"scenario Berzerkerbirdz must be distinct numbers 1-6, got {given}")
    for seat, points in sorted(scores.items()):
        if not 0 <= points <= data.MAX_SCORE:
            raise ValueError(
                f"scenario score of player_{seat} must be 0..{data.MAX_SCORE}, got {points}"
            )


@dataclass
class AstrobirdzGame(GameEngine):
    """A game of Astrobirdz in progress. Create it with :meth:`new`."""

    config: AstrobirdzConfig
    rng: np.random.Generator
    turn: int = 1
    scores_: list[int] = field(default_factory=list)
    birds: list[int] = field(default_factory=list)
    """Berzerkerbird number per seat (0: none)."""
    dealer: int = 0
    hands: list[int] = field(default_factory=list)
    """Bitmask of cards per seat."""
    deck: list[int] = field(default_factory=list)
    """Face-down draw pile; the top card is the last element."""
    discards: list[int] = field(default_factory=list)
    """Cards discarded this turn (face down)."""
    trump_card: int = 0
    trump: int = 0
    """The turn's trump colour; -1 while a player is choosing it."""
    phase: Phase = Phase.GUESS
    actor: int = 0
    choosers: list[int] = field(default_factory=list)
    """Seats still to choose in a DISCARD / PASS_RIGHT / PASS_LEFT phase, in order."""
    need: list[int] = field(default_factory=list)
    allowed: list[int] = field(default_factory=list)
    """Per seat, bitmask of the cards it may choose in the current choice."""
    chosen: list[list[int]] = field(default_factory=list)
    partner: int = -1
    """Surfette's trade partner (-1: none yet or declined)."""
    traded: int = 0
    """Cards Surfette traded this turn (0, 1 or 2)."""
    guess_order: list[int] = field(default_factory=list)
    guesses: list[int] = field(default_factory=list)
    """Per seat, -1 until guessed."""
    peeked: int = -1
    """Seat whose hand Nitro looked at this turn (-1: none)."""
    astroboard: int = -1
    trick: list[int] = field(default_factory=list)
    """Cards of the current trick in play order."""
    trick_order: list[int] = field(default_factory=list)
    """Seats of the current trick in play order."""
    finished: list[list[int]] = field(default_factory=list)
    """This turn's finished tricks in play order, each its cards in play order;
    trick ``k`` (0-based) is the one the action ``trick k+1`` names."""
    finished_orders: list[list[int]] = field(default_factory=list)
    """The seats of each finished trick, in play order."""
    trick_winners: list[int] = field(default_factory=list)
    """Who won each finished trick in play."""
    holders: list[int] = field(default_factory=list)
    """Who holds each finished trick: its winner, unless the AstroBoard moved it."""
    played: int = 0
    """Bitmask of the cards of this turn's finished tricks."""
    known: list[list[int]] = field(default_factory=list)
    """``known[o][s]``: cards seat ``o`` gave seat ``s`` or saw in its hand (Nitro's
    peek) this turn and can still place there: not played since, nor possibly
    taken away by a move ``o`` did not see (see :meth:`_update_onlookers`)."""
    known_any: bool = False
    """True once any ``known`` entry was set this turn (lets plays skip the rows)."""
    discarded: list[int] = field(default_factory=list)
    """Per seat, bitmask of the cards it discarded this turn."""
    hand_size: int = 0
    """Tricks this turn (cards in each hand once the guesses start)."""
    astro_partner: int = -1
    """The partner the AstroBoard holder chose, while it chooses the trick (-1: none)."""
    transfer: list[int] = field(default_factory=list)
    """The AstroBoard power used this turn: [from, to, trick index], or [] if not."""
    last_turn: list[TurnScore] | None = None
    """Each seat's tally for the last scored turn."""
    last_trick_winners: list[int] = field(default_factory=list)
    """Who won each trick of the last scored turn, in play (before the AstroBoard)."""
    over: bool = False
    record_events: bool = False
    events: list[tuple[int, ...]] = field(default_factory=list, repr=False)
    _legal: list[int] | None = field(default=None, repr=False)
    _mask: np.ndarray | None = field(default=None, repr=False)

    # -- setting up --

    @property
    def num_players(self) -> int:  # type: ignore[override]
        return self.config.num_players

    @property
    def rule(self) -> RuleCard:
        """The trump rule card in force this turn."""
        return self.config.rule_cards[self.trump_card] if self.config.trump_rules else NO_RULE

    @property
    def layout(self) -> ActionLayout:
        return self._layout

    @property
    def previous_trick(self) -> list[int]:
        """The cards of the last finished trick of this turn ([] before the first)."""
        return self.finished[-1] if self.finished else []

    @property
    def previous_order(self) -> list[int]:
        return self.finished_orders[-1] if self.finished_orders else []

    @classmethod
    def new(
        cls,
        config: AstrobirdzConfig,
        rng: np.random.Generator,
        hands: dict[int, list[int]] | None = None,
        trump: int | None = None,
        berzerkers: dict[int, int] | None = None,
        turn: int = 1,
        scores: dict[int, int] | None = None,
        record_events: bool = False,
    ) -> AstrobirdzGame:
        """A game from ``turn``; a scenario's hands (the Step 2 deal), trump card,
        Berzerkerbirdz and running scores are placed first, the rest is dealt
        from the seeded shuffle. Raises ``ValueError`` for an impossible scenario."""
        config.check()
        check_scenario(config, hands or {}, trump, berzerkers or {}, turn, scores or {})
        n = config.num_players
        game = cls(config=config, rng=rng, turn=turn, record_events=record_events)
        game.scores_ = _new_list(n, 0)
        for seat, points in (scores or {}).items():
            game.scores_[seat] = points
        game._start_turn(hands or {}, trump, berzerkers or {})
        return game

    def __post_init__(self) -> None:
        self._layout = ActionLayout(self.config.num_players)

    # -- the GameEngine interface --

    def current_player(self) -> int:
        return NO_PLAYER if self.over else self.actor

    def legal_actions(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.over else self._compute_legal()
        return legal

    def legal_mask(self, num_actions: int) -> np.ndarray:
        """int8 mask of :meth:`legal_actions`, cached until the next action
        (callers copy it and never write to it)."""
        mask = self._mask
        if mask is None:
            mask = np.zeros(num_actions, dtype=np.int8)
            for action in self.legal_actions():  # faster than fancy indexing for a few ids
                mask[action] = 1
            self._mask = mask
        return mask

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal Astrobirdz action {action} ({self._describe(action)}) for seat "
                f"{self.actor}; legal: {[self._describe(a) for a in self.legal_actions()]}"
            )
        self._legal = self._mask = None
        phase = self.phase
        if phase == Phase.PLAY:
            self._play(action)
        elif phase == Phase.GUESS:
            self._guess(action - GUESS_OFFSET)
        elif phase in CHOICE_PHASES:
            self._choose(action - self._layout.choose_offset)
        elif phase == Phase.CHOOSE_TRUMP:
            self._choose_trump(action - TRUMP_OFFSET)
        elif phase == Phase.NITRO_PEEK:
            self._peek(self._layout.target(self.actor, action))
        elif phase == Phase.SURFETTE_PARTNER:
            self._surfette_partner(action)
        elif phase == Phase.SURFETTE_CARDS:
            self._surfette_card(action)
        elif phase == Phase.ASTROBOARD:
            self._astroboard_partner(action)
        elif phase == Phase.ASTROBOARD_TRICK:
            self._astroboard_trick(action - self._layout.trick_offset)

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return [float(p) for p in self.scores_]

    def winners(self) -> list[int]:
        best = max(self.scores_)
        return [seat for seat, p in enumerate(self.scores_) if p == best]

    def invariant_violations(self) -> list[str]:
        """What is wrong with this state by the rules, in words (empty when
        all holds): each of the 54 cards in exactly one place, the tricks
        accounted for, what players know in the hands, and every field of the
        saved state as :func:`validate_state_dict` checks it."""
        problems = []
        places = [*self.deck, *self.discards, self.trump_card, *self.trick]
        places += [c for h in self.hands for c in bits(h)]
        places += [c for t in self.finished for c in t]
        if sorted(places) != list(range(data.NUM_CARDS)):
            problems.append(f"cards: {len(places)} places for the 54 cards, or some twice")
        if not len(self.finished) == len(self.holders) == len(self.trick_winners):
            problems.append("tricks: finished tricks, winners and holders do not match up")
        held = sum(self.tricks_won(s) for s in range(self.config.num_players))
        if held != len(self.finished) or len(self.finished) > self.hand_size:
            problems.append(f"tricks: {held} held of {len(self.finished)} finished")
        for observer, row in enumerate(self.known):
            for seat, known in enumerate(row):
                if known & ~self.hands[seat]:
                    problems.append(f"known[{observer}][{seat}]: a card not in that hand")
        try:
            validate_state_dict(self.to_dict())
        except StateDictError as err:
            problems.append(str(err))
        return problems

    def action_to_string(self, seat: int, action: int) -> str:
        return self._layout.to_string(seat, action)

    def string_to_action(self, seat: int, text: str) -> int:
        return self._layout.from_string(seat, text)

    def _describe(self, action: int) -> str:
        try:
            return self._layout.to_string(self.actor, action)
        except ValueError:
            return "out of range"

    # -- legal actions --

    def _compute_legal(self) -> list[int]:
        phase, seat, layout = self.phase, self.actor, self._layout
        if phase == Phase.PLAY:
            hand = self.hands[seat]
            if self.trick:
                follow = hand & COLOUR_MASKS[self.trick[0] // 9]
                if follow:
                    hand = follow
            return bits(hand)
        if phase == Phase.GUESS:
            return list(range(GUESS_OFFSET, GUESS_OFFSET + self.hand_size + 1))
        if phase in CHOICE_PHASES or phase == Phase.SURFETTE_CARDS:
            left = self.allowed[seat] & ~mask_of(self.chosen[seat])
            legal = [layout.choose_offset + c for c in bits(left)]
            if phase == Phase.SURFETTE_CARDS and self.chosen[seat]:
                legal.append(layout.decline)
            return legal
        if phase == Phase.CHOOSE_TRUMP:
            return list(range(TRUMP_OFFSET, TRUMP_OFFSET + data.NUM_COLOURS))
        if phase == Phase.NITRO_PEEK:
            return list(range(PLAYER_OFFSET, layout.choose_offset))
        if phase == Phase.SURFETTE_PARTNER:
            return [*range(PLAYER_OFFSET, layout.choose_offset), layout.decline]
        if phase == Phase.ASTROBOARD:
            partners = self.astroboard_partners()
            return [*sorted(layout.player(seat, p) for p in partners), layout.decline]
        # ASTROBOARD_TRICK
        return [layout.trick(k) for k in self.movable_tricks(self.astro_partner)]

    # -- the turn, step by step --

    def _emit(self, *event: int) -> None:
        if self.record_events:
            self.events.append(event)

    def _from_dealers_left(self) -> list[int]:
        return from_left_of(self.dealer, self.config.num_players)

    def _seat_with_bird(self, number: int) -> int:
        return seat_with_bird(self.birds, number)

    def _start_turn(
        self, hands: dict[int, list[int]], trump: int | None, berzerkers: dict[int, int]
    ) -> None:
        """Steps 1-3 (birds, deal, trump card), then the rule's after-deal effect."""
        n, t = self.config.num_players, self.turn
        self._reset_turn_state()
        self._deal_berzerkerbirdz(berzerkers)
        if self.config.berzerkerbirdz:
            self.dealer = min(range(n), key=lambda s: self.birds[s])
        else:
            self.dealer = (t - 1) % n
        self._deal_cards(hands, trump)
        self.hand_size = t
        self._emit(EV_REBUILD)
        self._after_deal()

    def _reset_turn_state(self) -> None:
        n = self.config.num_players
        self.discards = []
        self.choosers, self.need = [], _new_list(n, 0)
        self.allowed, self.chosen = _new_list(n, 0), [[] for _ in range(n)]
        self.partner, self.traded = -1, 0
        self.guesses, self.guess_order = _new_list(n, -1), []
        self.peeked, self.astroboard = -1, -1
        self.trick, self.trick_order = [], []
        self.finished, self.finished_orders, self.played = [], [], 0
        self.trick_winners, self.holders = [], []
        self.known = [_new_list(n, 0) for _ in range(n)]
        self.known_any = False
        self.discarded = _new_list(n, 0)
        self.astro_partner, self.transfer = -1, []

    def _deal_berzerkerbirdz(self, fixed: dict[int, int]) -> None:
        n = self.config.num_players
        if not self.config.berzerkerbirdz:
            self.birds = _new_list(n, data.NO_BIRD)
            return
        pool = [b for b in range(1, 7) if b not in fixed.values()]
        order = self.rng.permutation(len(pool))
        rest = iter(pool[int(i)] for i in order)
        self.birds = [fixed[s] if s in fixed else next(rest) for s in range(n)]

    def _deal_cards(self, hands: dict[int, list[int]], trump: int | None) -> None:
        """Step 2 and 3: ``t`` cards each from the dealer's left, then the trump card."""
        n, t = self.config.num_players, self.turn
        placed: list[int] = [c for cards in hands.values() for c in cards]
        if trump is not None:
            placed.append(trump)
        taken = set(placed)
        rest = [c for c in range(data.NUM_CARDS) if c not in taken]
        self.deck = self.rng.permutation(rest).tolist()  # the same draws as permuting indices
        self.hands = [mask_of(hands[s]) if s in hands else 0 for s in range(n)]
        for _ in range(t):
            for seat in self._from_dealers_left():
                if seat not in hands:
                    self.hands[seat] |= 1 << self.deck.pop()
        self.trump_card = trump if trump is not None else self.deck.pop()
        self.trump = colour_of(self.trump_card)

    def _draw_round(self, seats: list[int]) -> None:
        for seat in seats:
            self.hands[seat] |= 1 << self.deck.pop()

    def _after_deal(self) -> None:
        """The trump card's after-deal effect, automatic parts first."""
        effect = self.rule.effect
        n = self.config.num_players
        order = self._from_dealers_left()
        if effect.extra_draws:
            extra = min(effect.extra_draws, len(self.deck) // n)
            for _ in range(extra):
                self._draw_round(order)
            self.hand_size += extra
        if effect.replace_numbers:
            self._replace_cards(effect.replace_numbers, order)
        if effect.rotate_berzerkerbirdz and self.config.berzerkerbirdz:
            self.birds = [self.birds[(s - 1) % n] for s in range(n)]
        if effect.discard_one and self.hand_size > 1:
            self._begin_choice(Phase.DISCARD, dict.fromkeys(order, 1), self.hands)
            return
        if effect.pass_right:
            self._begin_pass_right(effect.pass_right, order)
            return
        if effect.trump_chooser:
            self._begin_trump_choice(effect.trump_chooser)
            return
        self._begin_pass_left()

    def _replace_cards(self, numbers: frozenset[int], order: list[int]) -> None:
        """Orange Max #3: discard the named numbers, draw as many; replacements
        that are such numbers stay. If the deck runs out, the discards are
        shuffled into a new draw pile (our ruling)."""
        lost = [0] * self.config.num_players
        for seat in order:
            out = [c for c in bits(self.hands[seat]) if number_of(c) in numbers]
            self.hands[seat] &= ~mask_of(out)
            self.discarded[seat] |= mask_of(out)
            self.discards.extend(out)
            lost[seat] = len(out)
        for seat in order:
            for _ in range(lost[seat]):
                if not self.deck:
                    pile = self.discards
                    self.deck = [pile[int(i)] for i in self.rng.permutation(len(pile))]
                    self.discards = []
                self.hands[seat] |= 1 << self.deck.pop()
        # a reshuffled discard may come back: it is no longer discarded
        for seat in range(self.config.num_players):
            self.discarded[seat] &= mask_of(self.discards)

    def _begin_choice(self, phase: Phase, needs: dict[int, int], allowed: list[int]) -> None:
        """Every seat in ``needs`` chooses that many cards, one seat at a time."""
        self.phase = phase
        self.choosers = [s for s, k in needs.items() if k > 0]
        self.need = [needs.get(s, 0) for s in range(self.config.num_players)]
        self.allowed = list(allowed)
        self.chosen = [[] for _ in range(self.config.num_players)]
        if self.choosers:
            self.actor = self.choosers[0]
        else:
            self._finish_choice()

    def _begin_pass_right(self, which: str, order: list[int]) -> None:
        """Yellow 3/4: lowest or highest numbered card to the right; a player
        with several such cards chooses which. Every seat is asked, even with a
        single candidate, so that who deliberates reveals nothing about hands."""
        allowed = []
        for seat in range(self.config.num_players):
            cards = bits(self.hands[seat])
            numbers = [number_of(c) for c in cards]
            target = min(numbers) if which == "lowest" else max(numbers)
            allowed.append(mask_of([c for c in cards if number_of(c) == target]))
        self._begin_choice(Phase.PASS_RIGHT, dict.fromkeys(order, 1), allowed)

    def _choose(self, card: int) -> None:
        seat = self.actor
        self.chosen[seat].append(card)
        self._emit(EV_CHOOSE, seat, card)
        if len(self.chosen[seat]) < self.need[seat]:
            return
        self.choosers.pop(0)
        if self.choosers:
            self.actor = self.choosers[0]
        else:
            self._finish_choice()

    def _finish_choice(self) -> None:
        """Everyone has chosen: move the cards, then go on with the turn."""
        n = self.config.num_players
        phase = self.phase
        if phase == Phase.DISCARD:
            for seat in range(n):
                for card in self.chosen[seat]:
                    self.hands[seat] &= ~(1 << card)
                    self.discarded[seat] |= 1 << card
                    self.discards.append(card)
            self.hand_size -= 1
        elif phase == Phase.PASS_RIGHT:
            self._move_cards([(s, (s - 1) % n, self.chosen[s]) for s in range(n)])
        else:
            self._move_cards([(s, (s + 1) % n, self.chosen[s]) for s in range(n)])
        self.chosen = [[] for _ in range(n)]
        self.allowed, self.need = _new_list(n, 0), _new_list(n, 0)
        self._emit(EV_REBUILD)
        if phase == Phase.PASS_LEFT:
            self._begin_surfette()
        else:
            self._begin_pass_left()

    def _move_cards(self, moves: list[tuple[int, int, list[int]]]) -> None:
        """Simultaneous passes (giver, receiver, cards); the giver remembers
        where its cards went, the receiver now holds them, and onlookers forget
        what they can no longer place."""
        self._update_onlookers(moves)
        for giver, _, cards in moves:
            self.hands[giver] &= ~mask_of(cards)
        for giver, receiver, cards in moves:
            given = mask_of(cards)
            self.hands[receiver] |= given
            self.known[giver][receiver] |= given
            self.known_any = True
            row = self.known[receiver]
            for other in range(self.config.num_players):
                row[other] &= ~given

    def _update_onlookers(self, moves: list[tuple[int, int, list[int]]]) -> None:
        """What a third player knew in a giver's hand, once cards it did not see
        leave that hand (a choice made face down, a random draw): each of them
        may have gone, so none is known there any more, unless the giver's
        whole hand went, which the onlooker can tell from the count: then they
        are all in the receiver's hand."""
        if not self.known_any:
            return
        n = self.config.num_players
        seen_before = [list(row) for row in self.known]
        for giver, receiver, cards in moves:
            if not cards:
                continue
            whole_hand = mask_of(cards) == self.hands[giver]
            for onlooker in range(n):
                seen = seen_before[onlooker][giver]
                if not seen or onlooker in (giver, receiver):
                    continue
                row = self.known[onlooker]
                row[giver] &= ~seen
                if whole_hand:
                    row[receiver] |= seen

    def _begin_trump_choice(self, chooser: str) -> None:
        """Yellow 6/7/8 and Pink 8: a player names the trump colour."""
        config = self.config
        if chooser == "youngest":
            seat = config.youngest
        elif chooser == "oldest":
            seat = config.oldest
        else:  # the dealer is the lowest Berzerkerbird (or the dealer without birds)
            seat = self.dealer
        self.phase, self.actor, self.trump = Phase.CHOOSE_TRUMP, seat, -1

    def _choose_trump(self, colour: int) -> None:
        self.trump = colour
        self._emit(EV_REBUILD)
        self._begin_pass_left()

    def _begin_pass_left(self) -> None:
        """Optional rule: pass 1-3 cards to the left before the guesses."""
        count = data.cards_to_pass(self.hand_size) if self.config.pass_cards else 0
        if count:
            order = self._from_dealers_left()
            self._begin_choice(Phase.PASS_LEFT, dict.fromkeys(order, count), self.hands)
        else:
            self._begin_surfette()

    def _begin_surfette(self) -> None:
        seat = self._seat_with_bird(data.SURFETTE)
        if seat < 0:
            self._begin_guesses()
            return
        self.phase, self.actor = Phase.SURFETTE_PARTNER, seat

    def _surfette_partner(self, action: int) -> None:
        if action == self._layout.decline:
            self._begin_guesses()
            return
        seat = self.actor
        self.partner = self._layout.target(seat, action)
        self._emit(EV_PARTNER, self.partner)
        self.phase = Phase.SURFETTE_CARDS
        self.need[seat] = min(2, self.hand_size)
        self.allowed[seat] = self.hands[seat]
        self.chosen[seat] = []

    def _surfette_card(self, action: int) -> None:
        seat = self.actor
        if action != self._layout.decline:
            self._choose_card_for_trade(action - self._layout.choose_offset)
            if len(self.chosen[seat]) < self.need[seat]:
                return
        self._trade()

    def _choose_card_for_trade(self, card: int) -> None:
        self.chosen[self.actor].append(card)
        self._emit(EV_CHOOSE, self.actor, card)

    def _trade(self) -> None:
        """Surfette gives her chosen cards for as many drawn at random from the
        partner's hand (drawn before hers arrive)."""
        seat, partner = self.actor, self.partner
        given = self.chosen[seat]
        theirs = bits(self.hands[partner])
        drawn = [theirs[int(i)] for i in self.rng.permutation(len(theirs))[: len(given)]]
        self._move_cards([(seat, partner, given), (partner, seat, drawn)])
        self.traded = len(given)
        self.chosen[seat], self.allowed[seat], self.need[seat] = [], 0, 0
        self._emit(EV_TRADE, seat, partner)
        self._begin_guesses()

    def _begin_guesses(self) -> None:
        self.guess_order = guess_order_of(self.dealer, self.birds)
        self._next_guesser()

    def _next_guesser(self) -> None:
        for seat in self.guess_order:
            if self.guesses[seat] < 0:
                self.actor = seat
                nitro = self.birds[seat] == data.NITRO and self.peeked < 0
                self.phase = Phase.NITRO_PEEK if nitro else Phase.GUESS
                return
        self._assign_astroboard()
        self._begin_trick(self._first_leader())

    def _peek(self, target: int) -> None:
        self.peeked = target
        self.known[self.actor][target] = self.hands[target]
        self.known_any = True
        self.phase = Phase.GUESS
        self._emit(EV_PEEK, self.actor, target)

    def _guess(self, tricks: int) -> None:
        self.guesses[self.actor] = tricks
        self._emit(EV_GUESS, self.actor, tricks)
        self._next_guesser()

    def _assign_astroboard(self) -> None:
        self.astroboard = astroboard_holder_of(self.guesses, self.guess_order, self.birds)
        self._emit(EV_ASTRO, self.astroboard)

    def _first_leader(self) -> int:
        return first_leader_of(self.dealer, self.birds)

    def _begin_trick(self, leader: int) -> None:
        order = play_order_of(leader, self.birds)
        self.trick, self.trick_order = [], order
        self.phase, self.actor = Phase.PLAY, order[0]

    def _play(self, card: int) -> None:
        seat, trick, bit = self.actor, self.trick, 1 << card
        self.hands[seat] &= ~bit
        knew = 0
        if self.known_any:
            for observer, row in enumerate(self.known):
                if row[seat] & bit:
                    row[seat] &= ~bit
                    knew |= 1 << observer
        trick.append(card)
        position = len(trick) - 1
        if self.record_events:
            self.events.append((EV_PLAY, seat, card, position, knew))
        if position + 1 < len(self.trick_order):
            self.actor = self.trick_order[position + 1]
            return
        winner = self.trick_order[trick_winner(trick, self.trump, self.rule.effect)]
        self.finished.append(trick)
        self.finished_orders.append(self.trick_order)
        self.trick_winners.append(winner)
        self.holders.append(winner)
        self.played |= mask_of(trick)
        self.trick = []
        self._emit(EV_TRICK, winner)
        if self.hands[winner]:
            self._begin_trick(winner)
        else:
            self._after_tricks()

    def tricks_won(self, seat: int) -> int:
        """Tricks ``seat`` holds (after the AstroBoard, the ones it holds now)."""
        return self.holders.count(seat)

    def won_cards(self, seat: int) -> list[int]:
        """Every card of the tricks ``seat`` holds."""
        return [
            c for k, cards in enumerate(self.finished) if self.holders[k] == seat for c in cards
        ]

    def astroboard_partners(self) -> list[int]:
        """Players the AstroBoard holder may use its power with (see
        :func:`astroboard_partners_of`)."""
        if self.astroboard < 0:
            return []
        tricks = [self.tricks_won(s) for s in range(self.config.num_players)]
        return astroboard_partners_of(self.astroboard, self.guesses, tricks)

    def _after_tricks(self) -> None:
        self.trick_order = []
        if self.astroboard_partners():
            self.phase, self.actor = Phase.ASTROBOARD, self.astroboard
        else:
            self._score()

    def astroboard_giver(self, partner: int) -> int:
        """Who gives the trick when the holder uses the power with ``partner``:
        the partner when the holder is one short (it takes), else the holder."""
        holder = self.astroboard
        return partner if self.guesses[holder] - self.tricks_won(holder) == 1 else holder

    def movable_tricks(self, partner: int) -> list[int]:
        """Indices of the tricks the power may move with ``partner``: any trick
        the giver holds ("one of his tricks", "one that another player won")."""
        giver = self.astroboard_giver(partner)
        return [k for k, seat in enumerate(self.holders) if seat == giver]

    def _astroboard_partner(self, action: int) -> None:
        """The holder names a partner (then chooses the trick) or declines."""
        if action == self._layout.decline:
            self._score()
            return
        self.astro_partner = self._layout.target(self.astroboard, action)
        self.phase = Phase.ASTROBOARD_TRICK
        self._emit(EV_REBUILD)

    def _astroboard_trick(self, index: int) -> None:
        """Move finished trick ``index`` (with its cards) from giver to receiver."""
        holder, partner = self.astroboard, self.astro_partner
        giver = self.astroboard_giver(partner)
        receiver = holder if giver == partner else partner
        self.holders[index] = receiver
        self.transfer, self.astro_partner = [giver, receiver, index], -1
        self._score()

    def _score(self) -> None:
        n = self.config.num_players
        facts = TurnFacts(
            guesses=list(self.guesses),
            won_cards=[self.won_cards(s) for s in range(n)],
            tricks=[self.tricks_won(s) for s in range(n)],
            trick_winners=list(self.trick_winners),
            birds=list(self.birds),
            astroboard=self.astroboard,
            scores_before=list(self.scores_),
            guess_order=list(self.guess_order),
            trump=self.trump,
        )
        self.last_turn = score_turn(self.config, self.rule.effect, facts)
        self.last_trick_winners = list(self.trick_winners)
        for seat, item in enumerate(self.last_turn):
            self.scores_[seat] += item.total
        if self.turn >= self.config.turns:
            self.over, self.phase, self.actor = True, Phase.OVER, NO_PLAYER
            self._emit(EV_REBUILD)
            return
        self.turn += 1
        self._start_turn({}, None, {})

    # -- serialisation --

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "rng": rng_to_dict(self.rng),
            "turn": self.turn,
            "scores": list(self.scores_),
            "birds": list(self.birds),
            "dealer": self.dealer,
            "hands": [data_cards(h) for h in self.hands],
            "deck": [data.card_text(c) for c in self.deck],
            "discards": [data.card_text(c) for c in self.discards],
            "trump_card": data.card_text(self.trump_card),
            "trump": self.trump,
            "phase": PHASE_NAMES[self.phase],
            "actor": self.actor,
            "choosers": list(self.choosers),
            "need": list(self.need),
            "allowed": [data_cards(a) for a in self.allowed],
            "chosen": [[data.card_text(c) for c in cs] for cs in self.chosen],
            "partner": self.partner,
            "traded": self.traded,
            "guess_order": list(self.guess_order),
            "guesses": list(self.guesses),
            "peeked": self.peeked,
            "astroboard": self.astroboard,
            "trick": [data.card_text(c) for c in self.trick],
            "trick_order": list(self.trick_order),
            "tricks": [
                {
                    "cards": [data.card_text(c) for c in cards],
                    "order": list(order),
                    "winner": winner,
                    "holder": holder,
                }
                for cards, order, winner, holder in zip(
                    self.finished,
                    self.finished_orders,
                    self.trick_winners,
                    self.holders,
                    strict=True,
                )
            ],
            "astro_partner": self.astro_partner,
            "known": [[data_cards(k) for k in row] for row in self.known],
            "discarded": [data_cards(d) for d in self.discarded],
            "hand_size": self.hand_size,
            "transfer": list(self.transfer),
            "last_turn": None
            if self.last_turn is None
            else [item.to_dict() for item in self.last_turn],
            "last_trick_winners": list(self.last_trick_winners),
            "over": self.over,
        }

    @classmethod
    def from_dict(cls, d: Any) -> AstrobirdzGame:
        """Rebuild a saved game; every field is checked first
        (:func:`validate_state_dict`), so a malformed dict raises
        :class:`StateDictError` naming the field before anything is built."""
        game = cls(**validate_state_dict(d))
        if not game.over and not game.legal_actions():  # a last guard: cannot happen
            raise StateDictError("game.phase: the state leaves the player to act no legal action")
        return game


def new_game(config: AstrobirdzConfig, seed: int | None = None, **scenario: Any) -> AstrobirdzGame:
    """A dealt game from a seed (convenience for tests and scripts)."""
    return AstrobirdzGame.new(config, make_rng(seed), **scenario)
