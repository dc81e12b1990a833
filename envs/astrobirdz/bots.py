"""A rule-based Astrobirdz player, the baseline a trained agent must beat.

It plays the way a decent casual player does:

* **Guess by counting cards.** For each card in hand it works out, from the
  cards it cannot see, the chance that no opponent beats it when led: nobody
  follows with a higher card of that colour, and nobody void in the colour
  holds a card that wins from elsewhere (a trump, or a card the rule
  protects). The rule card's value changes and trump changes count (the
  rules' own trick-winner function decides what beats what); as Nitro it
  counts the hand it looked at for certain. The guess is the rounded sum.
* **Play to make the guess.** While it still needs tricks it wins as cheaply as
  it can (the lowest card that beats the trick, when it is last or the card is
  strong), and otherwise throws its lowest card. Once it has enough it ducks:
  the highest card that does not take the trick, or the lowest card if it must.
  Leading, it leads its strongest card when it needs tricks and its weakest
  when it does not.
* **Powers used sensibly.** It names the trump colour it is strongest in,
  discards and passes its weakest cards (keeping trump), picks the tied card
  to pass that is not trump, lets Surfette trade away cards below 4, peeks at
  the next player to guess, and uses the AstroBoard whenever it can: giving,
  to the partner with the fewest points, the trick worth the fewest card points
  under the turn's rule; taking, the trick worth the most (from the partner
  who holds it).

It reads only its own seat's ``view`` and the action mask.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ..core.bots import legal_from_mask
from ..core.rng import make_rng
from . import data
from .actions import ActionLayout
from .basics import COLOUR_MASKS, FULL_DECK, bits, card_rank, card_value, mask_of, trick_winner
from .data import NO_RULE, Effect, colour_of, number_of, parse_card
from .native import NativeAstrobirdzGame, NativeHeuristicBot
from .rules import card_points

TRUMP_WIN = {9: 0.95, 8: 0.85, 7: 0.7, 6: 0.55, 5: 0.45, 4: 0.35}
"""Chance that a trump card of this value takes a trick (4 players)."""
LOW_TRUMP_WIN = 0.25
OFF_WIN = {9: 0.55, 8: 0.3, 7: 0.12}
"""Chance that an off-colour card of this value takes a trick (4 players)."""
SURFETTE_TRADE_BELOW = 4
"""Surfette trades away non-trump cards below this value."""


def effect_of(view: dict[str, Any]) -> Effect:
    """The rule in force, from the rule card named in the view and the game's
    reading of Green 7."""
    return _effect_of(view["trump_rule"]["card"], view["game_options"]["green_7"])


@lru_cache(maxsize=256)
def _effect_of(card: str, green_7: str) -> Effect:
    """:func:`effect_of` by the rule card's name and the Green 7 reading (asked
    at every decision; a few hundred pairs at most)."""
    if card == NO_RULE.card:
        return NO_RULE.effect
    never_beaten = green_7 == "never_beaten_by_trump"
    return data.rule_cards(never_beaten)[parse_card(card)].effect


def is_trumpish(card: int, trump: int, effect: Effect) -> bool:
    return colour_of(card) == trump or number_of(card) in effect.protected


def win_chance(card: int, trump: int, effect: Effect, players: int) -> float:
    """Rough chance that ``card`` takes a trick, fewer with more players: the
    rule of thumb of the play (is this card strong enough to win?)."""
    value = card_value(card, effect)
    crowd = 4.0 / max(2, players)
    if is_trumpish(card, trump, effect):
        chance = TRUMP_WIN.get(int(min(value, 9)), LOW_TRUMP_WIN if value >= 1 else 0.1)
        return min(0.98, chance * (0.85 + 0.15 * crowd))
    chance = OFF_WIN.get(int(min(value, 9)), 0.03)
    return min(0.9, chance * crowd)


def no_hit(pool: int, hits: int, drawn: int) -> float:
    """Chance that ``drawn`` cards taken from ``pool`` include none of ``hits``."""
    return _no_hit(pool, hits, drawn)


@lru_cache(maxsize=65536)
def _no_hit(pool: int, hits: int, drawn: int) -> float:
    """:func:`no_hit`, remembered: a guess asks it three times per card in hand
    with a few hundred distinct arguments in a whole game."""
    chance = 1.0
    for i in range(drawn):
        if pool - i <= 0:
            break
        chance *= max(0.0, (pool - hits - i) / (pool - i))
    return chance


@lru_cache(maxsize=1024)
def beating_masks(trump: int, effect: Effect) -> tuple[int, ...]:
    """For every card, the bitmask of the cards that win a two-card trick it
    leads (by :func:`trick_winner` itself), under ``trump`` and ``effect``: the
    bot asks this of every unseen card at every guess, so it is worked out once
    per trump colour and rule card."""
    cards = range(data.NUM_CARDS)
    changes = effect.trump_change_numbers
    ranks: dict[tuple[int, int], list[tuple[int, float, bool]]] = {}

    def ranks_of(led: int, this_trump: int) -> list[tuple[int, float, bool]]:
        """Every card's rank in a trick led in ``led`` under ``this_trump``
        (what :func:`trick_winner` compares), worked out once."""
        key = (led, this_trump)
        if key not in ranks:
            ranks[key] = [card_rank(u, led, this_trump, effect) for u in cards]
        return ranks[key]

    masks = []
    for card in cards:
        led, mask = colour_of(card), 0
        for u in cards:
            # trick_trump of the two-card trick [card, u]
            changed = changes and (number_of(card) in changes or number_of(u) in changes)
            table = ranks_of(led, effect.trump_change_to if changed else trump)
            if table[u] > table[card]:  # trick_winner: only a higher rank takes it
                mask |= 1 << u
        masks.append(mask)
    return tuple(masks)


def cards_beating_lead(card: int, trump: int, effect: Effect) -> frozenset[int]:
    """Every card that wins a two-card trick led by ``card`` (by :func:`trick_winner`)."""
    return frozenset(bits(beating_masks(trump, effect)[card]))


def beats_it(card: int, hand: list[int], trump: int, effect: Effect) -> bool:
    """Whether a known hand can beat ``card`` led (following colour if it can)."""
    return _beats_it(card, mask_of(hand), beating_masks(trump, effect)[card])


def _beats_it(card: int, hand: int, beating: int) -> bool:
    """:func:`beats_it` on bitmasks: the hand follows the led colour if it can."""
    follow = hand & COLOUR_MASKS[colour_of(card)]
    return bool((follow or hand) & beating)


def lead_win_chance(
    card: int,
    unknown: list[int],
    trump: int,
    effect: Effect,
    opponents: int,
    per_hand: int,
    known_hands: tuple[list[int], ...] = (),
) -> float:
    """Chance that ``card``, led, is not beaten by any opponent holding
    ``per_hand`` cards drawn from ``unknown``: an opponent beats it with a
    higher card of the led colour, or, void in that colour, with a card that
    wins from another colour (a trump or a protected card). Opponents whose
    hands are known (Nitro's peek) beat it or not for certain."""
    if trump < 0:
        return 0.0
    known = tuple(mask_of(hand) for hand in known_hands)
    beating = beating_masks(trump, effect)[card]
    return _lead_win_chance(card, mask_of(unknown), beating, opponents, per_hand, known)


def _lead_win_chance(
    card: int, unknown: int, beating: int, opponents: int, per_hand: int, known: tuple[int, ...]
) -> float:
    """:func:`lead_win_chance` on bitmasks (``unknown``, ``beating``: the cards
    that beat ``card`` led, ``known``: the known hands), counted by popcounts."""
    if any(_beats_it(card, hand, beating) for hand in known):
        return 0.0
    opponents -= len(known)
    colour = COLOUR_MASKS[colour_of(card)]
    same = (unknown & colour).bit_count()
    beaters = unknown & beating
    beat_same = (beaters & colour).bit_count()
    beat_other = beaters.bit_count() - beat_same
    pool = unknown.bit_count()
    follows_and_beats = 1.0 - _no_hit(pool, beat_same, per_hand)
    void = _no_hit(pool, same, per_hand)
    trumps_in = 1.0 - _no_hit(pool - same, beat_other, per_hand)
    beaten = min(1.0, follows_and_beats + void * trumps_in)
    return (1.0 - beaten) ** opponents


def trick_points(trick: dict[str, Any], trump: int, effect: Effect) -> int:
    """Card points of a finished trick of the view under the turn's rule."""
    return card_points([parse_card(c["card"]) for c in trick["cards"]], trump, effect)


def strength(card: int, trump: int, effect: Effect) -> float:
    """Ordering key: how strong a card is in this turn (trumps above the rest)."""
    return card_value(card, effect) + (20.0 if is_trumpish(card, trump, effect) else 0.0)


class AstrobirdzHeuristicBot:
    """See the module docstring. ``seed`` only breaks exact ties."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = make_rng(seed)
        self._compiled: NativeHeuristicBot | None = None
        """The compiled bot of :meth:`act_on_table`, made on its first use."""

    def act_on_table(self, raw: Any, agent: str) -> int | None:
        """The same choice as :meth:`act`, made by the compiled bot straight from
        a compiled engine (no view built); None on the Python engine (then
        :meth:`act` is asked). A bot plays one table, always one way: the
        compiled bot starts from this bot's generator as it is then."""
        game = getattr(raw, "game", None)
        if not isinstance(game, NativeAstrobirdzGame) or game.current_player() != raw.seat_of(
            agent
        ):
            return None
        if self._compiled is None:
            self._compiled = NativeHeuristicBot.from_generator(self.rng)
        return self._compiled.act_in(game)

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = set(legal_from_mask(observation).tolist())
        n = len(view["scores"])
        seat = int(view["agent"].split("_")[1])
        layout = _layout(n)
        choice = self._decide(view, layout, seat, legal)
        if choice is None or choice not in legal:
            return int(self.rng.choice(sorted(legal)))
        return choice

    # -- dispatch --

    def _decide(
        self, view: dict[str, Any], layout: ActionLayout, seat: int, legal: set[int]
    ) -> int | None:
        phase = view["phase"]
        hand = [parse_card(c) for c in view["hand"]]
        effect = effect_of(view)
        trump = data.COLOURS.index(view["trump_colour"]) if view["trump_colour"] else -1
        n = len(view["scores"])
        if phase == "play":
            return layout.play(self._play(view, hand, trump, effect, n, legal))
        if phase == "guess":
            return layout.guess(self._guess(view, hand, trump, effect, n))
        if phase == "choose_trump":
            return layout.trump(self._best_colour(hand, effect))
        if phase in ("discard", "pass_left", "pass_right", "surfette_cards"):
            return self._choose_card(view, hand, trump, effect, layout, legal)
        if phase == "nitro_peek":
            return self._peek_target(view, layout, seat)
        if phase == "surfette_partner":
            weak = self._weak_cards(hand, trump, effect)
            return layout.player(seat, (seat + 1) % n) if weak else layout.decline
        if phase == "astroboard":
            return self._astroboard(view, layout, seat, legal, trump, effect)
        if phase == "astroboard_trick":
            return self._astroboard_trick(view, layout, legal, trump, effect)
        return None

    # -- guessing --

    def _guess(
        self, view: dict[str, Any], hand: list[int], trump: int, effect: Effect, n: int
    ) -> int:
        peeked = [parse_card(c) for c in (view["peeked"] or {}).get("cards", [])]
        seen = mask_of(hand) | mask_of(peeked) | 1 << parse_card(view["trump_card"])
        unknown = FULL_DECK & ~seen
        known = (mask_of(peeked),) if peeked else ()
        if trump < 0:
            return 0
        beating = beating_masks(trump, effect)
        per_hand = len(hand)
        expected = sum(
            _lead_win_chance(c, unknown, beating[c], n - 1, per_hand, known) for c in hand
        )
        return max(0, min(len(hand), round(expected)))

    def _peek_target(self, view: dict[str, Any], layout: ActionLayout, seat: int) -> int:
        """Look at the next player still to guess (or the left neighbour)."""
        n = len(view["scores"])
        agents = [f"player_{s}" for s in range(n)]
        for agent in view["guess_order"]:
            if agent != view["agent"] and view["guesses"][agent] is None:
                return layout.player(seat, agents.index(agent))
        return layout.player(seat, (seat + 1) % n)

    # -- choosing cards and colours --

    def _best_colour(self, hand: list[int], effect: Effect) -> int:
        """The colour whose cards would make the most tricks as trump."""
        totals = [0.0] * data.NUM_COLOURS
        for card in hand:
            totals[colour_of(card)] += 1.0 + card_value(card, effect) / 10.0
        return int(np.argmax(totals))

    def _weak_cards(self, hand: list[int], trump: int, effect: Effect) -> list[int]:
        return [
            c
            for c in hand
            if not is_trumpish(c, trump, effect) and card_value(c, effect) < SURFETTE_TRADE_BELOW
        ]

    def _choose_card(
        self,
        view: dict[str, Any],
        hand: list[int],
        trump: int,
        effect: Effect,
        layout: ActionLayout,
        legal: set[int],
    ) -> int | None:
        """The weakest card that may be chosen; Surfette stops after her weak cards."""
        candidates = [c for c in hand if layout.choose(c) in legal]
        if view["phase"] == "surfette_cards" and view["chosen"]:
            weak = [c for c in self._weak_cards(hand, trump, effect) if c in candidates]
            if not weak:
                return layout.decline
            candidates = weak
        if not candidates:
            return None
        return layout.choose(min(candidates, key=lambda c: strength(c, trump, effect)))

    def _astroboard(
        self,
        view: dict[str, Any],
        layout: ActionLayout,
        seat: int,
        legal: set[int],
        trump: int,
        effect: Effect,
    ) -> int | None:
        """Always use the board. Giving: to the partner with the fewest points.
        Taking: from the partner holding the trick worth most to it (then the
        fewest points)."""
        n = len(view["scores"])
        partners = [s for s in range(n) if s != seat and layout.player(seat, s) in legal]
        if not partners:
            return layout.decline
        me = view["agent"]
        taking = (view["guesses"][me] or 0) > view["tricks_won"][me]

        def worth(partner: int) -> tuple[int, float]:
            agent = f"player_{partner}"
            best = 0
            if taking:
                held = [t for t in view["tricks"] if t["held_by"] == agent]
                best = max((trick_points(t, trump, effect) for t in held), default=0)
            return best, -view["scores"][agent]

        return layout.player(seat, max(partners, key=worth))

    def _astroboard_trick(
        self, view: dict[str, Any], layout: ActionLayout, legal: set[int], trump: int,
        effect: Effect,
    ) -> int | None:  # fmt: skip
        """The trick best for the holder under the turn's card-point rule: the
        most points when it takes, the fewest when it gives (ties: the earliest)."""
        me = view["agent"]
        choices = [t for t in view["tricks"] if layout.trick(t["number"] - 1) in legal]
        if not choices:
            return None
        giving = choices[0]["held_by"] == me
        sign = -1 if giving else 1
        best = max(choices, key=lambda t: (sign * trick_points(t, trump, effect), -t["number"]))
        return layout.trick(best["number"] - 1)

    # -- playing --

    def _play(
        self,
        view: dict[str, Any],
        hand: list[int],
        trump: int,
        effect: Effect,
        n: int,
        legal: set[int],
    ) -> int:
        me = view["agent"]
        playable = [c for c in hand if c in legal]
        need = (view["guesses"][me] or 0) - view["tricks_won"][me]
        trick = [parse_card(p["card"]) for p in view["trick"]]

        def key(card: int) -> float:
            return strength(card, trump, effect)

        if not trick:
            if need > 0:
                return max(playable, key=key)
            return min(playable, key=key)
        last = len(trick) == n - 1
        winners = self._winners(trick, playable, trump, effect)
        if need > 0:
            if winners:
                cheapest = min(winners, key=key)
                strong = win_chance(cheapest, trump, effect, n) >= 0.5
                if last or strong:
                    return cheapest
                return max(winners, key=key)
            return min(playable, key=key)
        losers = [c for c in playable if c not in winners]
        if losers:
            return max(losers, key=key)
        return max(playable, key=key) if last else min(playable, key=key)

    @staticmethod
    def _winners(trick: list[int], playable: list[int], trump: int, effect: Effect) -> list[int]:
        """The playable cards that would take the trick now: by :func:`trick_winner`
        where a card may change the trick's trump colour, else by comparing
        each card's rank with the trick's best (a later card wins only with a
        strictly higher rank, as in :func:`trick_winner`)."""
        if effect.trump_change_numbers:
            last = len(trick)
            return [c for c in playable if trick_winner([*trick, c], trump, effect) == last]
        led = colour_of(trick[0])
        best = max(card_rank(c, led, trump, effect) for c in trick)
        return [c for c in playable if card_rank(c, led, trump, effect) > best]


@lru_cache(maxsize=16)
def _layout(players: int) -> ActionLayout:
    """The action layout of a table size (one per size: the bot asks at every move)."""
    return ActionLayout(players)
