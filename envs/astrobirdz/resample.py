"""Astrobirdz states one seat cannot tell apart from the true one (for search).

What seat ``p`` knows and the resampler keeps: its own hand; everything public
(scores, birds, the turned-up trump card, guesses, the tricks, phases, hand
sizes, how many cards the deck and the discards hold); the cards the engine
records as known to ``p`` in another hand (``known[p][s]``: cards ``p`` gave that
seat, or saw there with Nitro's peek) and the cards ``p`` discarded itself.

What it redraws, uniformly among what ``p`` cannot tell apart: the rest of the
other hands, the draw pile (content and order) and the other seats' face-down
discards, all from one pool of the cards ``p`` has not placed; the other seats'
own records of what they know (kept where the card is still in that hand);
the generator behind future draws and reshuffles. While seats choose cards to
discard or pass, another seat free to choose from its whole hand gets a new
hand and a uniformly random choice from it; while seats pass their lowest or
highest card (Yellow 3/4), the other seats keep their hands, so that their
allowed sets stay consistent (a leak, for that short phase only).

Voids are used: a seat that played off the led colour this turn holds none of
that colour, so its new hand has none either (the rules' own check of a saved
state demands it). The deal is uniform among the deals that respect the voids
when a plain shuffle respects them (tried a few times); otherwise the most
constrained hands are dealt first, each uniformly from the cards it may hold,
which is close to uniform but not exactly.

Some trump rule cards limit what may be discarded (only the 1s and 2s
replaced): a deal the rules' own check refuses is dealt again, three times
with the discards redrawn, then three times with the other seats' discards
left in place; if all six are refused (rare) the cards stay where they are and
only the generator is redrawn. Knowledge not used: what guesses and
earlier plays say about a hand beyond voids.

The search calls this once per simulation, so by default the state is copied
and installed through the engines' plain fields, and of the loader's checks
only the one a deal can fail runs (the discards a trump rule card allows,
:func:`.state.check_replaced_discards`; the deal keeps every other rule by
construction). ``checked=True`` loads the copy and every deal through the
checked loader, as saved games are; both draw the same state from the same
generator (the resampler tests compare them, and load every state drawn).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.errors import StateDictError
from ..core.resample import fresh_generator, install, python_copy, working_game
from .data import NUM_CARDS, colour_of
from .native import NativeAstrobirdzGame
from .rules import CHOICE_PHASES, AstrobirdzGame, Phase, bits, mask_of
from .state import check_replaced_discards

LOAD_TRIES = 6
"""Deals tried before the cards stay where they are (see the module docstring)."""
SHUFFLE_TRIES = 20
"""Plain shuffles tried before dealing the constrained hands first."""


def resample(env: Any, seat: int, rng: np.random.Generator, checked: bool = False) -> Any:
    """Redraw ``env``'s hidden information as seen from ``seat`` (see the module
    docstring); returns ``env`` holding a new engine. ``env`` is a raw Astrobirdz
    env; ``checked`` loads the copy and every deal through the checked loader."""
    for attempt in range(LOAD_TRIES):
        game = _python_game(env, checked)
        if not game.over:
            _redeal(game, seat, rng, keep_discards=attempt >= LOAD_TRIES // 2)
        game.rng = fresh_generator(rng)
        try:
            if not checked:
                _check_discards(game)
            return install(env, game, check=checked)
        except StateDictError:
            continue
    game = _python_game(env, checked)
    game.rng = fresh_generator(rng)
    return install(env, game, check=checked)


def _python_game(env: Any, checked: bool) -> AstrobirdzGame:
    """A Python engine in ``env``'s state to redeal (through the checked loader
    if ``checked``)."""
    if not checked:
        return python_copy(env, NativeAstrobirdzGame)
    game = working_game(env)
    return game if isinstance(game, AstrobirdzGame) else game.to_python()


def _check_discards(game: AstrobirdzGame) -> None:
    """The loader's check that a deal can fail: :class:`StateDictError` when the
    trump rule card allows none of some discards dealt."""
    effect = game.rule.effect
    if not effect.discard_one and effect.replace_numbers:
        check_replaced_discards(effect, game.discards, game.trump_card)


def _fixed_cards(game: AstrobirdzGame, seat: int, others: list[int]) -> dict[int, int]:
    """Per other seat, the cards that stay in its hand: those ``seat`` knows are
    there, and a whole hand whose pending choice is limited to some of its cards."""
    fixed = {s: game.known[seat][s] & game.hands[s] for s in others}
    choosing = game.phase in CHOICE_PHASES or game.phase == Phase.SURFETTE_CARDS
    for s in others:
        limited = game.phase == Phase.PASS_RIGHT or game.allowed[s] != game.hands[s]
        if choosing and game.need[s] > 0 and limited:
            fixed[s] = game.hands[s]
    return fixed


def _redeal(game: AstrobirdzGame, seat: int, rng: np.random.Generator, keep_discards: bool) -> None:
    """Deal the unplaced cards again into the other hands, the pile and the other
    seats' discards, each keeping its size."""
    n = game.config.num_players
    others = [s for s in range(n) if s != seat]
    fixed = _fixed_cards(game, seat, others)
    own_discards = game.discarded[seat]
    free_slots = [
        i for i, c in enumerate(game.discards) if not keep_discards and not (own_discards >> c) & 1
    ]
    pool = [c for s in others for c in bits(game.hands[s] & ~fixed[s])]
    pool += list(game.deck) + [game.discards[i] for i in free_slots]
    sizes = [len(bits(game.hands[s] & ~fixed[s])) for s in others]
    void = voids(game)
    forbidden = [void[s] for s in others] + [0, 0]
    old = [bits(game.hands[s] & ~fixed[s]) for s in others]
    parts = deal_respecting(pool, [*sizes, len(game.deck), len(free_slots)], forbidden, rng) or [
        *old,
        list(game.deck),
        [game.discards[i] for i in free_slots],
    ]
    old_hands = list(game.hands)
    for s, part in zip(others, parts, strict=False):
        game.hands[s] = fixed[s] | mask_of(part)
    game.deck = parts[len(others)]
    new_discards = parts[len(others) + 1]
    if free_slots:
        _redeal_discards(game, others, free_slots, new_discards)
    for o in range(n):
        for s in others:
            game.known[o][s] &= game.hands[s]
    game.known_any = any(any(row) for row in game.known)  # as the loader sets it
    _redraw_choices(game, others, old_hands, rng)


def _redeal_discards(
    game: AstrobirdzGame, others: list[int], slots: list[int], cards: list[int]
) -> None:
    """The other seats' face-down discards: new cards in the same places, each
    seat credited with as many of them as it discarded."""
    for i, card in zip(slots, cards, strict=True):
        game.discards[i] = card
    at = 0
    for s in others:
        count = len(bits(game.discarded[s]))
        game.discarded[s] = mask_of(cards[at : at + count])
        at += count


def _redraw_choices(
    game: AstrobirdzGame, others: list[int], old_hands: list[int], rng: np.random.Generator
) -> None:
    """A seat free to choose from its whole hand chooses again, uniformly, from
    its new hand (as many cards as it had chosen)."""
    for s in others:
        if game.need[s] > 0 and game.allowed[s] == old_hands[s] and game.hands[s] != old_hands[s]:
            game.allowed[s] = game.hands[s]
            count = len(game.chosen[s])
            cards = rng.permutation(np.asarray(bits(game.hands[s]), dtype=np.int64))
            game.chosen[s] = [int(c) for c in cards[:count]]


def voids(game: AstrobirdzGame) -> list[int]:
    """Per seat, the cards of every colour it has shown void in this turn
    (played off the led colour in a finished or the current trick)."""
    out = [0] * game.config.num_players
    plays = [*zip(game.finished, game.finished_orders, strict=True), (game.trick, game.trick_order)]
    for cards, order in plays:
        if not cards:
            continue
        led = colour_of(cards[0])
        for position in range(1, len(cards)):
            if colour_of(cards[position]) != led:
                out[order[position]] |= COLOUR_MASKS[led]
    return out


COLOUR_MASKS = [mask_of([c for c in range(NUM_CARDS) if colour_of(c) == k]) for k in range(6)]
"""The cards of each colour, as a bitmask."""


def deal_respecting(
    pool: list[int], sizes: list[int], forbidden: list[int], rng: np.random.Generator
) -> list[list[int]] | None:
    """Deal ``pool`` into parts of ``sizes`` where part ``i`` holds no card of
    ``forbidden[i]``: plain shuffles first (exactly uniform when one passes), then
    the most constrained parts dealt first; None if every try failed (the caller
    keeps the true deal, always a consistent one)."""
    cards = np.asarray(pool, dtype=np.int64)
    for _ in range(SHUFFLE_TRIES):
        order = [int(c) for c in rng.permutation(cards)]
        parts, at = [], 0
        for size in sizes:
            parts.append(order[at : at + size])
            at += size
        if all(not (mask_of(p) & f) for p, f in zip(parts, forbidden, strict=True)):
            return parts
    for _ in range(SHUFFLE_TRIES):
        dealt = _deal_constrained_first(pool, sizes, forbidden, rng)
        if dealt is not None:
            return dealt
    return None


def _deal_constrained_first(
    pool: list[int], sizes: list[int], forbidden: list[int], rng: np.random.Generator
) -> list[list[int]] | None:
    """One greedy deal: parts with the fewest allowed cards first."""
    left = set(pool)
    parts: list[list[int]] = [[] for _ in sizes]
    order = sorted(
        range(len(sizes)), key=lambda i: len([c for c in pool if not (forbidden[i] >> c) & 1])
    )
    for i in order:
        allowed = sorted(c for c in left if not (forbidden[i] >> c) & 1)
        if len(allowed) < sizes[i]:
            return None
        picked = [int(c) for c in rng.permutation(np.asarray(allowed, dtype=np.int64))[: sizes[i]]]
        parts[i] = picked
        left.difference_update(picked)
    return parts
