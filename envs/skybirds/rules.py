"""Skybirds rules engine: pure Python, no gymnasium or PettingZoo.

The game in brief (the full rules and our rulings: ``docs/rules/skybirds.md``):

* 40 Aces: values 1-6 five each, 7 and 8 three each, 9 two, 10 one, and Roland
  Garros (``G``, no value). Every 9 and the 10 carry a Medallion. With 2 or 3
  players Garros is set aside, 8 / 4 cards go unseen into the box and Garros
  comes back; hands of 16 / 12 / 10.
* A Campaign: before it, players may use Pre-Campaign tokens in turn from the
  Garros holder; whoever then holds Garros leads, and Garros must be in that
  first Squadron (alone he wins the Dogfight at once and his player leads
  again; with a set he takes its value). A Dogfight: the leader plays 1-6
  equal Aces (the Squadron Size); each player in turn passes or plays a
  Squadron of that Size that beats the last one (more Medallions, or as many
  and a strictly higher value), or a single Ace with a Medallion. A player who
  passed may play again later; when every other player with cards has passed
  since the last Squadron, its player wins and leads the next Dogfight (or, if
  out of cards, the next player with cards does). The Campaign ends when one
  player has cards left.
* Tokens: a player who goes out takes a token from their Aerodrome at once,
  by place (ribbons) and prerequisites; last place (except with 2 players)
  takes a +1VP token; after the Campaign players may trade +1VP tokens for
  tokens. A token's bonus can be used twice from the next Campaign on (flip it,
  -1 VP; then it returns to the Aerodrome). The Tiebreaker takes a fractional
  VP token; taking the Armistice ends the Great War after the current
  Dogfight (option ``armistice_ends``). The highest VP wins.

A move is asked in steps of the same player where a single id would not do:
``use <token>`` (any number, in Aerodrome order) -> ``add <ace>`` (ascending)
-> ``done`` / ``wild <ace>`` -> ``declare <value>``; a card swap is ``use`` ->
``target`` -> ``give`` (once or twice). Without tokens a Squadron is one id.
Every step's legal actions are exactly those that lead to a legal complete
move (the engine looks ahead through :func:`valid_moves`).

The types this engine plays with (phases and steps, the config, a Squadron,
token states, bonus bits) are in :mod:`.basics`, and a saved game is read by
:mod:`.state`: both sit below this module and import nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..core.game import NO_PLAYER, GameEngine
from ..core.rng import make_rng, rng_to_dict
from . import data
from .actions import (
    GARROS_ALONE,
    GARROS_ID,
    PASS,
    SET_ID,
    USE_OFFSET,
    ActionLayout,
    play_cards,
)
from .basics import (
    BACK,
    EQUAL,
    FRONT,
    MAT,
    MEDAL,
    PHASE_NAMES,
    RUN,
    SHAPE_BITS,
    SIZE,
    STEP_NAMES,
    TOKEN_STATES,
    TWO_MEDALS,
    UNMATCHED,
    WILD,
    Phase,
    SkybirdsConfig,
    Squadron,
    Step,
    count_vector,
)
from .data import (
    CARD_COUNTS,
    FRACTIONAL,
    FRACTIONAL_VP,
    GARROS,
    MAX_SQUADRON,
    MEDALLIONS,
    NUM_KINDS,
    PLUS_ONE_TOKENS,
    TRADE_COST,
)
from .state import check_consistency, read_state

# ---- Squadrons: what they are made of and what beats what ------------------------
#
# A hand is a tuple of 11 counts (index 0 Garros, index v the Aces of value v).
# A *move* is one way to build a Squadron from a hand with a set of token
# bonuses: (naturals, wild, declare, size, value, icons), where ``naturals``
# are the card kinds played at their printed value (ascending, Garros first),
# ``wild`` the printed value of the wild Ace (0: none), ``declare`` its
# declared value (0: none) and ``icons`` the Medallion icons printed on the
# cards (token Medallions are added when the move meets the table).
#
# Shape bonuses decide which cards form a Squadron: none (equal Aces, Garros
# joining them in the first Squadron of a Campaign), run (consecutive values,
# value = highest, never with Garros), wild (one Ace takes a declared value),
# unmatched (two or three Aces not all equal, value = lowest). Modifier
# bonuses change how it compares: medallion (+1 Medallion), two_medallions
# (+2), follow_equal (may equal the table), size_change (one card more or
# fewer than the Squadron Size). A token is used only where it does
# something: every move listed needs each of its shape bonuses (the same cards
# without it would not make the same Squadron), and ``fits`` refuses
# follow_equal unless the Squadron equals the table and size_change unless
# the size needs it. The bonus bits (RUN, WILD, ... BONUS_BITS) are in
# :mod:`.basics`, beside the config that reads them.

Move = tuple[tuple[int, ...], int, int, int, int, int]
"""(naturals, wild, declare, size, value, icons); see the module docstring."""
Table = tuple[int, int, int] | None
"""(Squadron Size of the Dogfight, Medallions, value) of the Squadron to beat; None to lead."""


def extra_medallions(mods: int) -> int:
    """Medallions the modifier bonuses add to a Squadron."""
    return (1 if mods & MEDAL else 0) + (2 if mods & TWO_MEDALS else 0)


def fits(size: int, value: int, icons: int, mods: int, table: Table) -> bool:
    """Whether a Squadron of ``size`` / ``value`` / ``icons`` with modifier bits
    ``mods`` may be played against ``table``, every modifier doing something.

    >>> fits(2, 5, 0, 0, (2, 0, 5)), fits(2, 5, 0, EQUAL, (2, 0, 5))
    (False, True)
    >>> fits(1, 9, 1, 0, (3, 0, 8)), fits(1, 4, 0, MEDAL, (3, 0, 8))
    (True, True)
    """
    medallions = icons + extra_medallions(mods)
    if table is None:
        return not mods & (EQUAL | SIZE)
    squadron_size, table_medallions, table_value = table
    size_ok = size == squadron_size or (size == 1 and medallions >= 1)
    if mods & SIZE:
        if size_ok or abs(size - squadron_size) != 1:
            return False
    elif not size_ok:
        return False
    if mods & EQUAL:
        return medallions == table_medallions and value == table_value
    return medallions > table_medallions or (medallions == table_medallions and value > table_value)


def beats(size: int, value: int, medallions: int, table: Table) -> bool:
    """Plain comparison without tokens (size rule and strictly stronger)."""
    return fits(size, value, medallions, 0, table)


# ---- the moves of one shape -------------------------------------------------------


def _plain(hand: tuple[int, ...], g: int) -> list[Move]:
    out: list[Move] = []
    lead = (0,) * g
    for v in range(1, 11):
        for k in range(1, min(hand[v], MAX_SQUADRON - g) + 1):
            out.append((lead + (v,) * k, 0, 0, k + g, v, k * MEDALLIONS[v]))
    return out


def _wild(hand: tuple[int, ...], g: int) -> list[Move]:
    """(k Aces of value d, Garros in the first Squadron) + one wild Ace declared d."""
    out: list[Move] = []
    lead = (0,) * g
    for w in range(1, 11):
        if not hand[w]:
            continue
        for d in range(1, 11):
            if d == w:
                continue
            for k in range(0, min(hand[d], MAX_SQUADRON - 1 - g) + 1):
                icons = k * MEDALLIONS[d] + MEDALLIONS[w]
                out.append((lead + (d,) * k, w, d, k + 1 + g, d, icons))
    return out


def _runs(hand: tuple[int, ...], wild: bool) -> list[Move]:
    """Runs of 2..6 consecutive values; with ``wild`` one of them is a wild Ace."""
    out: list[Move] = []
    for lo in range(1, 10):
        for hi in range(lo + 1, min(lo + MAX_SQUADRON - 1, 10) + 1):
            values = tuple(range(lo, hi + 1))
            if not wild:
                if all(hand[v] for v in values):
                    icons = sum(MEDALLIONS[v] for v in values)
                    out.append((values, 0, 0, len(values), hi, icons))
                continue
            for p in values:
                naturals = tuple(v for v in values if v != p)
                if not all(hand[v] for v in naturals):
                    continue
                icons = sum(MEDALLIONS[v] for v in naturals)
                for w in range(1, 11):
                    if w != p and hand[w] > (w in naturals):
                        out.append((naturals, w, p, len(values), hi, icons + MEDALLIONS[w]))
    return out


def _multisets(hand: tuple[int, ...], size: int, low: int = 1) -> list[tuple[int, ...]]:
    """Ascending multisets of numbered Aces of ``size`` within ``hand``."""
    if size == 0:
        return [()]
    out = []
    for v in range(low, 11):
        if hand[v]:
            rest = list(hand)
            rest[v] -= 1
            out += [(v, *tail) for tail in _multisets(tuple(rest), size - 1, v)]
    return out


def _unmatched(hand: tuple[int, ...], g: int) -> list[Move]:
    """Two or three Aces not all equal (Garros joins two unequal ones), value = lowest."""
    out: list[Move] = []
    sizes = (2,) if g else (2, 3)
    for size in sizes:
        for cards in _multisets(hand, size):
            if len(set(cards)) == 1:
                continue
            icons = sum(MEDALLIONS[v] for v in cards)
            out.append(((0,) * g + cards, 0, 0, size + g, cards[0], icons))
    return out


def _unmatched_wild(hand: tuple[int, ...], g: int) -> list[Move]:
    """Unmatched Squadrons with one wild Ace, where the declaration changes the
    Squadron (else the wild bonus would do nothing)."""
    out: list[Move] = []
    natural_sizes = (1,) if g else (1, 2)
    for count in natural_sizes:
        for naturals in _multisets(hand, count):
            rest = list(hand)
            for v in naturals:
                rest[v] -= 1
            for w in range(1, 11):
                if not rest[w]:
                    continue
                printed = (*naturals, w)
                printed_ok = len(set(printed)) > 1
                icons = sum(MEDALLIONS[v] for v in printed)
                for d in range(1, 11):
                    if d == w:
                        continue
                    effective = (*naturals, d)
                    if len(set(effective)) == 1:
                        continue  # all equal: not an unmatched Squadron
                    value = min(effective)
                    if printed_ok and min(printed) == value:
                        continue  # the same Squadron without the wild Ace
                    size = count + 1 + g
                    out.append(((0,) * g + naturals, w, d, size, value, icons))
    return out


@lru_cache(maxsize=1 << 10)
def shape_moves(hand: tuple[int, ...], shapes: int) -> tuple[Move, ...]:
    """Every move of the shape bits ``shapes`` from ``hand``.

    A hand holding Garros is leading the first Squadron of a Campaign, so
    every move includes him (and none is a run). Runs and unmatched
    Squadrons do not combine (each sets the value its own way)."""
    g = 1 if hand[0] else 0
    if shapes & RUN and (shapes & UNMATCHED or g):
        return ()
    wild = bool(shapes & WILD)
    if shapes & RUN:
        return tuple(_runs(hand, wild))
    if shapes & UNMATCHED:
        return tuple(_unmatched_wild(hand, g) if wild else _unmatched(hand, g))
    return tuple(_wild(hand, g) if wild else _plain(hand, g))


def _plain_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_plain`."""
    g = 1 if hand[0] else 0
    return {
        (k + g, v, k * MEDALLIONS[v])
        for v in range(1, 11)
        for k in range(1, min(hand[v], MAX_SQUADRON - g) + 1)
    }


def _run_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_runs` without a wild Ace."""
    if hand[0]:
        return set()
    out = set()
    for lo in range(1, 10):
        if not hand[lo]:
            continue
        icons = MEDALLIONS[lo]
        for hi in range(lo + 1, min(lo + MAX_SQUADRON - 1, 10) + 1):
            if not hand[hi]:
                break
            icons += MEDALLIONS[hi]
            out.add((hi - lo + 1, hi, icons))
    return out


def _wild_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_wild` without listing the moves: a wild
    Ace adds its own icon, so only whether a plain or a Medallion Ace other
    than the declared value is at hand matters."""
    g = 1 if hand[0] else 0
    plain = [v for v in range(1, 9) if hand[v]]
    medal = [v for v in (9, 10) if hand[v]]
    out = set()
    for d in range(1, 11):
        icon_choices = []
        if len(plain) - (d in plain) > 0:
            icon_choices.append(0)
        if len(medal) - (d in medal) > 0:
            icon_choices.append(1)
        for k in range(0, min(hand[d], MAX_SQUADRON - 1 - g) + 1):
            base = k * MEDALLIONS[d]
            for icon in icon_choices:
                out.add((k + 1 + g, d, base + icon))
    return out


def _unmatched_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_unmatched`: the lowest value, and the
    icons of the Aces above it."""
    g = 1 if hand[0] else 0
    held = [v for v in range(1, 11) if hand[v]]
    out = set()
    for i, low in enumerate(held):
        above = held[i + 1 :]
        # two unequal Aces: low and a higher one
        for high in above:
            icons = MEDALLIONS[low] + MEDALLIONS[high]
            out.add((2 + g, low, icons))
            if not g:
                # three: low, high and one more at or above low (not all equal)
                for third in held[i:]:
                    if hand[third] - (third == low) - (third == high) >= 1:
                        out.add((3, low, icons + MEDALLIONS[third]))
    return out


def _run_wild_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_runs` with a wild Ace: a run missing
    one value p, filled by another Ace w (w != p) that is still at hand."""
    if hand[0]:
        return set()
    out = set()
    for lo in range(1, 10):
        for hi in range(lo + 1, min(lo + MAX_SQUADRON - 1, 10) + 1):
            for p in range(lo, hi + 1):
                naturals = [v for v in range(lo, hi + 1) if v != p]
                if not all(hand[v] for v in naturals):
                    continue
                icons = sum(MEDALLIONS[v] for v in naturals)
                for w in range(1, 11):
                    if w != p and hand[w] > (lo <= w <= hi):
                        out.add((hi - lo + 1, hi, icons + MEDALLIONS[w]))
    return out


def _unmatched_wild_effects(hand: tuple[int, ...]) -> set[tuple[int, int, int]]:
    """The (size, value, icons) of :func:`_unmatched_wild`. With naturals N and a
    wild Ace w declared d: declaring below N's lowest makes the value d (always
    a change); declaring at or above it keeps N's lowest, which the wild Ace
    changes only if w itself was lower (or all the printed Aces were equal)."""
    g = 1 if hand[0] else 0
    out = set()
    for count in (1,) if g else (1, 2):
        for naturals in _multisets(hand, count):
            rest = list(hand)
            for v in naturals:
                rest[v] -= 1
            low = naturals[0]
            size = count + 1 + g
            icons_n = sum(MEDALLIONS[v] for v in naturals)
            all_equal = len(set(naturals)) == 1
            for w in range(1, 11):
                if not rest[w]:
                    continue
                icons = icons_n + MEDALLIONS[w]
                for d in range(1, low):  # the value becomes d
                    if d != w:
                        out.add((size, d, icons))
                changes = w < low or (all_equal and w == low)
                # some d >= low, d != w, keeps the Aces unequal
                if changes and any(d != w and not (all_equal and d == low) for d in range(low, 11)):
                    out.add((size, low, icons))
    return out


@lru_cache(maxsize=1 << 13)
def shape_effects(hand: tuple[int, ...], shapes: int) -> tuple[tuple[int, int, int], ...]:
    """The distinct (size, value, icons) of :func:`shape_moves` (the common
    shapes without listing every move)."""
    if shapes == 0:
        return tuple(sorted(_plain_effects(hand)))
    if shapes == RUN:
        return tuple(sorted(_run_effects(hand)))
    if shapes == WILD:
        return tuple(sorted(_wild_effects(hand)))
    if shapes == UNMATCHED:
        return tuple(sorted(_unmatched_effects(hand)))
    if shapes == RUN | WILD:
        return tuple(sorted(_run_wild_effects(hand)))
    if shapes == UNMATCHED | WILD:
        return tuple(sorted(_unmatched_wild_effects(hand)))
    return tuple(sorted({m[3:] for m in shape_moves(hand, shapes)}))


def split_bonuses(bits: int) -> tuple[int, int]:
    """(shape bits, modifier bits) of a bonus bit set."""
    return bits & SHAPE_BITS, bits & ~SHAPE_BITS


Summary = tuple[bool, dict[int, tuple[int, int]], dict[int, int], frozenset[tuple[int, int, int]]]
"""What a hand can make with one shape: (any Squadron at all, the strongest
(icons, value) per size, the highest value per size among Squadrons without
icons, every (size, icons, value))."""


def _plain_summary(hand: tuple[int, ...]) -> Summary:
    """:data:`Summary` of the plain sets, in one pass over the hand."""
    g = 1 if hand[0] else 0
    best: dict[int, tuple[int, int]] = {}
    best_plain: dict[int, int] = {}
    effects = []
    for v in range(1, 11):
        count = hand[v]
        if not count:
            continue
        icon = MEDALLIONS[v]
        for k in range(1, min(count, MAX_SQUADRON - g) + 1):
            size, icons = k + g, k * icon
            effects.append((size, v, icons))
            # values ascend and Medallions never decrease with the value
            # (MEDALLIONS), so the last set of a size is its strongest
            best[size] = (icons, v)
            if not icons:
                best_plain[size] = v  # values ascend: the last is the highest
    return bool(effects), best, best_plain, frozenset(effects)


@lru_cache(maxsize=1 << 14)
def shape_summary(hand: tuple[int, ...], shapes: int) -> Summary:
    """:data:`Summary` of :func:`shape_effects` (it does not depend on the table,
    so it serves every turn until the hand changes)."""
    if shapes == 0:
        return _plain_summary(hand)
    effects = shape_effects(hand, shapes)
    best: dict[int, tuple[int, int]] = {}
    best_plain: dict[int, int] = {}
    for size, value, icons in effects:
        if (icons, value) > best.get(size, (-1, -1)):
            best[size] = (icons, value)
        if icons == 0 and value > best_plain.get(size, -1):
            best_plain[size] = value
    return bool(effects), best, best_plain, frozenset(effects)


def _size_fits(
    summary: Summary, size: int, extra: int, equal: bool, table: tuple[int, int, int], plain: bool
) -> bool:
    """Some Squadron of ``size`` in the summary beats ``table`` (with ``equal``:
    equals it) carrying ``extra`` token Medallions; ``plain``: only Squadrons
    without icons count. A single (when the size is not the Squadron Size)
    needs a Medallion in all."""
    _, best, best_plain, effects = summary
    squadron_size, medallions, value = table
    needs_icons = size == 1 and squadron_size != 1 and not plain
    if equal:
        icons = medallions - extra
        if icons < 0 or (plain and icons) or (needs_icons and medallions < 1):
            return False
        return (size, value, icons) in effects
    if plain:
        if size not in best_plain:
            return False
        m, val = extra, best_plain[size]
    else:
        if size not in best:
            return False
        icons, val = best[size]
        m = icons + extra
        if needs_icons and m < 1:
            return False
    return m > medallions or (m == medallions and val > value)


def summary_fits(summary: Summary, mods: int, table: Table) -> bool:
    """Whether some Squadron of the summarised shape fits ``table`` with the
    modifier bits ``mods``, each doing something: :func:`fits` over every
    effect, answered from the summary (the strongest per size decides a strict
    comparison; an equal one is looked up)."""
    if not summary[0]:
        return False
    if table is None:
        return not mods & (EQUAL | SIZE)
    extra = (1 if mods & MEDAL else 0) + (2 if mods & TWO_MEDALS else 0)
    equal = bool(mods & EQUAL)
    squadron_size = table[0]
    if mods & SIZE:
        for size in (squadron_size - 1, squadron_size + 1):
            if size == 1:
                # a single with a Medallion plays without the token
                if not extra and _size_fits(summary, 1, 0, equal, table, plain=True):
                    return True
            elif size >= 1 and _size_fits(summary, size, extra, equal, table, plain=False):
                return True
        return False
    if _size_fits(summary, squadron_size, extra, equal, table, plain=False):
        return True
    return squadron_size != 1 and _size_fits(summary, 1, extra, equal, table, plain=False)


def has_move(hand: tuple[int, ...], bits: int, table: Table) -> bool:
    """Whether some Squadron uses exactly the bonuses ``bits`` against ``table``."""
    shapes, mods = split_bonuses(bits)
    return summary_fits(shape_summary(hand, shapes), mods, table)


def valid_moves(hand: tuple[int, ...], bits: int, table: Table) -> list[Move]:
    """Every move that uses exactly the bonuses ``bits`` against ``table``
    (judged once per distinct (size, value, icons), then the moves having them)."""
    shapes, mods = split_bonuses(bits)
    if not shapes:
        return _plain_fitting(hand, mods, table)
    good = {e for e in shape_effects(hand, shapes) if fits(e[0], e[1], e[2], mods, table)}
    if not good:
        return []
    return [m for m in shape_moves(hand, shapes) if m[3:] in good]


def _plain_fitting(hand: tuple[int, ...], mods: int, table: Table) -> list[Move]:
    """:func:`valid_moves` of the plain sets (modifier tokens only, the commonest
    token move): the moves of :func:`_plain` in its order, each judged as it is
    met, since a set's effect is its own and few hands recur (listing every set
    first and filtering cost twice as much)."""
    g = 1 if hand[0] else 0
    lead = (0,) * g
    out: list[Move] = []
    for v in range(1, 11):
        icon = MEDALLIONS[v]
        for k in range(1, min(hand[v], MAX_SQUADRON - g) + 1):
            if fits(k + g, v, k * icon, mods, table):
                out.append((lead + (v,) * k, 0, 0, k + g, v, k * icon))
    return out


@lru_cache(maxsize=1 << 12)
def token_sets(
    hand: tuple[int, ...], usable: tuple[tuple[int, int], ...], table: Table, one_only: bool
) -> tuple[int, ...]:
    """Every set of the ``usable`` tokens ((index, bonus bit) pairs, in Aerodrome
    order) that some Squadron can use together against ``table``, as bit sets
    of token indices (bit i = token i)."""
    out = []
    count = len(usable)
    for subset in range(1, 1 << count):
        if one_only and subset & (subset - 1):
            continue
        token_bits = bonus_bits = 0
        for j in range(count):
            if subset >> j & 1:
                token_bits |= 1 << usable[j][0]
                bonus_bits |= usable[j][1]
        if has_move(hand, bonus_bits, table):
            out.append(token_bits)
    return tuple(out)


@lru_cache(maxsize=1 << 10)
def _first_token_plan(
    usable: tuple[tuple[int, int], ...], one_only: bool
) -> tuple[tuple[int, tuple[tuple[int, int], ...]], ...]:
    """Per usable token X: the (shape bits, modifier bits) of X with each set of
    the tokens after it, in the order :func:`first_tokens` tries them (X alone
    first). It depends only on the tokens held, so it outlives many hands."""
    plan = []
    for j, (token, bit) in enumerate(usable):
        later = () if one_only else usable[j + 1 :]
        combos = []
        for subset in range(1 << len(later)):
            bits = bit
            for m in range(len(later)):
                if subset >> m & 1:
                    bits |= later[m][1]
            combos.append(split_bonuses(bits))
        plan.append((token, tuple(combos)))
    return tuple(plan)


@lru_cache(maxsize=1 << 14)
def first_tokens(
    hand: tuple[int, ...], usable: tuple[tuple[int, int], ...], table: Table, one_only: bool
) -> tuple[int, ...]:
    """The usable tokens a move can start with: token X if some set of X and
    tokens after it (Aerodrome order) can be used together against ``table``.
    The same answer as the lowest members of :func:`token_sets`, found
    without listing every set (X alone usually does)."""
    out = []
    for token, combos in _first_token_plan(usable, one_only):
        for shapes, mods in combos:
            if summary_fits(shape_summary(hand, shapes), mods, table):
                out.append(token)
                break
    return tuple(out)


_DOGFIGHT, _START = Phase.DOGFIGHT, Step.START
"""Module constants for the hot path (an enum member read from its class costs more)."""

# ---- the game state -------------------------------------------------------------

_SET_BY_SIZE = {
    size: {v: SET_ID[(v, size)] for v in range(1, 11) if (v, size) in SET_ID}
    for size in range(1, MAX_SQUADRON + 1)
}
SET_SINGLE = {v: SET_ID[(v, 1)] for v in range(1, 11)}


@lru_cache(maxsize=1 << 10)
def _sets_beating(table: tuple[int, int, int]) -> tuple[tuple[int, int], ...]:
    """(value, set id) of the sets of the Squadron Size that beat ``table``,
    ascending: a few hundred tables recur all game, so a turn only checks
    which of these the hand holds."""
    size, medallions, value = table
    ids = _SET_BY_SIZE[size]
    # without Medallions only a higher value wins; Medallion sets (9s, 10s)
    # win on Medallions whenever there are more of them
    low = min(value + 1, 9) if medallions == 0 else 9
    out = []
    for v in range(low, 11):
        m = size * MEDALLIONS[v]
        if v in ids and (m > medallions or (m == medallions and v > value)):
            out.append((v, ids[v]))
    return tuple(out)


FollowCandidates = tuple[int, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
"""(Squadron Size, (value, set id) of the sets that beat the table, (value, set
id) of the Medallion singles that may beat it instead)."""
_FOLLOWS: dict[tuple[int, int, int], FollowCandidates] = {}
"""Per table (Squadron Size, Medallions, value): its :data:`FollowCandidates`
(a few hundred tables exist; every following turn reads one)."""


def _follow_candidates(table: tuple[int, int, int]) -> FollowCandidates:
    """What a following turn checks the hand against: the sets of
    :func:`_sets_beating`, and a single 9 or 10 where one Medallion wins
    (Squadron Size above 1, the table at most one Medallion, and with one
    Medallion a higher value)."""
    size, medallions, value = table
    singles: tuple[tuple[int, int], ...] = ()
    if size > 1 and medallions <= 1:
        singles = tuple((v, SET_SINGLE[v]) for v in (9, 10) if medallions < 1 or v > value)
    return size, _sets_beating(table), singles


@lru_cache(maxsize=1 << 14)
def _leads(hand: tuple[int, ...]) -> tuple[int, ...]:
    """Plain Squadrons a hand may lead (with Garros: his sets and Garros alone)."""
    out = []
    if hand[GARROS]:
        for v in range(1, 11):
            for k in range(1, min(hand[v], MAX_SQUADRON - 1) + 1):
                out.append(GARROS_ID[(v, k)])
        out.append(GARROS_ALONE)
        return tuple(out)
    for v in range(1, 11):
        for k in range(1, hand[v] + 1):
            out.append(SET_ID[(v, k)])
    return tuple(out)


PLAIN_PLAYS: tuple[tuple[tuple[int, ...], int, int, int], ...] = tuple(
    (
        tuple(play_cards(a)),
        len(play_cards(a)),
        0 if a == GARROS_ALONE else play_cards(a)[-1],
        0 if a == GARROS_ALONE else sum(MEDALLIONS[k] for k in play_cards(a)),
    )
    for a in range(PASS)
)
"""Per plain-play id: (cards, size, value, printed Medallions)."""

_MASKS: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
"""Read-only masks by legal-action list, shared by every game."""
_MASK_CACHE_SIZE = 1 << 14


def shared_mask(num_actions: int, legal: list[int] | tuple[int, ...]) -> np.ndarray:
    """The read-only int8 mask of ``legal``, one per distinct list (shared by
    every game: nobody may write to it)."""
    key = (num_actions, tuple(legal))
    mask = _MASKS.get(key)
    if mask is None:
        mask = np.zeros(num_actions, dtype=np.int8)
        mask[list(legal)] = 1
        mask.flags.writeable = False
        if len(_MASKS) < _MASK_CACHE_SIZE:
            _MASKS[key] = mask
    return mask


@dataclass
class SkybirdsGame(GameEngine):
    """A Great War of Skybirds in progress. Create it with :meth:`new`."""

    config: SkybirdsConfig
    rng: np.random.Generator
    campaign: int = 1
    phase: Phase = Phase.DOGFIGHT
    step: Step = Step.START
    actor: int = 0
    hands: list[list[int]] = field(default_factory=list)
    """Counts per card kind (Garros, 1..10) per seat."""
    box: list[int] = field(default_factory=list)
    """Cards out of play this Campaign (dealt into the box unseen)."""
    played: list[int] = field(default_factory=list)
    """Cards played this Campaign (public)."""
    table: Squadron | None = None
    """The Squadron to beat; None when a Dogfight is to be led."""
    squadron_size: int = 0
    """The Squadron Size the leader set for this Dogfight (0 before the lead)."""
    last_player: int = -1
    """Who played the last Squadron of this Dogfight."""
    passes: int = 0
    """Passes since the last Squadron."""
    passed: list[bool] = field(default_factory=list)
    """Per seat: passed since the last Squadron."""
    position: int = 0
    """The seat that acted last in this Dogfight (play goes on clockwise from it)."""
    garros_due: bool = False
    """Roland Garros still has to start this Campaign."""
    finish: list[int] = field(default_factory=list)
    """Finishing order of this Campaign (last place appended when it ends)."""
    tokens: list[list[int]] = field(default_factory=list)
    """Per seat, per Aerodrome token: MAT, FRONT or BACK."""
    plus_one: list[int] = field(default_factory=list)
    """+1VP tokens held per seat (the rest are on its Aerodrome)."""
    fractional: list[int] = field(default_factory=list)
    """Per seat, index into FRACTIONAL of its fractional VP token (-1: none)."""
    pool: list[int] = field(default_factory=list)
    """Fractional VP tokens not yet taken, largest first."""
    armistice_by: int = -1
    over: bool = False
    truncated: bool = False
    # -- a move in progress --
    pend_tokens: list[int] = field(default_factory=list)
    """Dogfight: tokens used so far on the Squadron being built (Aerodrome order)."""
    pend_cards: list[int] = field(default_factory=list)
    """Dogfight: Aces added so far (ascending). Pre-Campaign: Aces chosen to give."""
    pend_wild: int = 0
    pend_token: int = -1
    """Pre-Campaign: the swap token being used."""
    pend_target: int = -1
    """Pre-Campaign: the opponent of the swap."""
    # -- queues between phases --
    pre_queue: list[int] = field(default_factory=list)
    """Seats still to be offered their Pre-Campaign tokens, in order."""
    pre_used: list[int] = field(default_factory=list)
    """Per seat, bit set of tokens used before this Campaign."""
    takes: list[int] = field(default_factory=list)
    """Seats that finished and still take their token, in finishing order."""
    campaign_over: bool = False
    dogfight_over: bool = False
    """The Dogfight ended at once (Garros alone) and is resumed after the takes."""
    trade_queue: list[int] = field(default_factory=list)
    first_leader: int = 0
    """Who leads the first Dogfight when Garros is out of play (scenarios only)."""
    last_winner: int = -1
    """Who won the previous Dogfight (for views)."""
    last_squadron: Squadron | None = None
    """The winning Squadron of the previous Dogfight (for views)."""

    def __post_init__(self) -> None:
        self._layout = ActionLayout(self.config.num_players, self.config.tokens)
        self._one_token = self.config.tokens_per_turn == "one"
        self._legal: list[int] | None = None
        self._mask: np.ndarray | None = None
        self._turn_sets: tuple[int, ...] | None = None
        self._moves: list[Move] | None = None
        n = self.config.num_players
        self.left: list[int] = [sum(h) for h in self.hands] if self.hands else [0] * n
        """Aces in hand per seat (kept with the hands)."""
        self.hand_versions = [0] * n
        """Bumped whenever a seat's hand changes (the observer patches what moved)."""
        self._hand_keys: list[tuple[int, tuple[int, ...]] | None] = [None] * n
        """Per seat: (hand version, the hand as a tuple), rebuilt when the version moves."""
        self.token_epoch = 0
        """Bumped whenever a token, +1VP or fractional token changes hands or sides."""
        self.token_versions = [0] * n
        """Per seat: bumped when that seat's tokens, +1VP or fractional token change."""
        self._vp: list[float | None] = [None] * n
        self.finish_epoch = 0
        """Bumped whenever the finishing order changes."""
        self._usable: dict[int, tuple[tuple[int, int], ...]] = {}

    def _recount(self) -> None:
        """After hands were set wholesale (a deal, a load): counts and versions."""
        self.left = [sum(h) for h in self.hands]
        self.hand_versions = [v + 1 for v in self.hand_versions]
        for seat in range(self.config.num_players):
            self._tokens_changed(seat)
        self.finish_epoch += 1

    def _tokens_changed(self, seat: int) -> None:
        """``seat``'s tokens, +1VP or fractional token changed (or the pool did)."""
        self.token_epoch += 1
        self.token_versions[seat] += 1
        self._vp[seat] = None
        self._usable.pop(seat, None)

    # -- construction --

    @classmethod
    def new(
        cls,
        config: SkybirdsConfig,
        rng: np.random.Generator,
        hands: dict[int, list[int]] | None = None,
        tokens: dict[int, dict[int, int]] | None = None,
        plus_one: dict[int, int] | None = None,
        fractional: dict[int, int] | None = None,
        campaign: int = 1,
        leader: int | None = None,
    ) -> SkybirdsGame:
        """A new Great War. The keyword arguments set up a scenario (seats and
        card kinds as numbers); they raise ``ValueError`` when impossible."""
        config.check()
        n, k = config.num_players, len(config.tokens)
        game = cls(
            config=config,
            rng=rng,
            campaign=campaign,
            tokens=[[MAT] * k for _ in range(n)],
            plus_one=[0] * n,
            fractional=[-1] * n,
            pool=list(range(len(FRACTIONAL))),
        )
        if not 1 <= campaign <= config.max_campaigns:
            raise ValueError(f"campaign {campaign} is outside 1..{config.max_campaigns}")
        game._set_holdings(tokens or {}, plus_one or {}, fractional or {})
        game._deal(hands or {}, leader)
        game._begin_campaign()
        return game

    def _set_holdings(
        self,
        tokens: dict[int, dict[int, int]],
        plus_one: dict[int, int],
        fractional: dict[int, int],
    ) -> None:
        for seat, held in tokens.items():
            for index, state in held.items():
                bonus = self.config.tokens[index].bonus
                if bonus == "armistice":
                    raise ValueError(
                        "the Armistice ends the Great War when taken; no one holds it at the start"
                    )
                if state == BACK and self.config.tokens[index].uses == 0:
                    raise ValueError(f"token {self.config.names[index]} is never flipped")
                self.tokens[seat][index] = state
        for seat, count in plus_one.items():
            if not 0 <= count <= PLUS_ONE_TOKENS:
                raise ValueError(f"+1VP tokens must be 0..{PLUS_ONE_TOKENS}, got {count}")
            self.plus_one[seat] = count
        taken = list(fractional.values())
        if len(set(taken)) != len(taken):
            raise ValueError("each fractional VP token can be held by one player only")
        for seat, index in fractional.items():
            self.fractional[seat] = index
        self.pool = [i for i in range(len(FRACTIONAL)) if i not in taken]

    def _deal(self, given: dict[int, list[int]], leader: int | None) -> None:
        """Deal a Campaign: scenario hands as given, the rest from the shuffle."""
        n, size = self.config.num_players, self.config.hand_size
        remaining = list(CARD_COUNTS)
        for seat, kinds in given.items():
            if not 1 <= len(kinds) <= size:
                raise ValueError(
                    f"a hand has 1..{size} Aces with {n} players, got {len(kinds)} for seat {seat}"
                )
            for kind in kinds:
                remaining[kind] -= 1
        short = [data.card_text(kind) for kind in range(NUM_KINDS) if remaining[kind] < 0]
        if short:
            raise ValueError(f"the hands hold more Aces than the deck has of: {', '.join(short)}")
        others = [s for s in range(n) if s not in given]
        garros_aside = remaining[GARROS] == 1 and bool(others)
        pile = [kind for kind in range(1, NUM_KINDS) for _ in range(remaining[kind])]
        self.rng.shuffle(pile)
        boxed = data.BOXED[n] if others else len(pile)
        box, pile = pile[:boxed], pile[boxed:]
        dealt = size * len(others)
        if garros_aside:
            pile.append(GARROS)
            self.rng.shuffle(pile)
            at = pile.index(GARROS)
            if at >= dealt:  # Garros is always dealt: swap him into a dealt hand
                other = int(self.rng.integers(dealt))
                pile[at], pile[other] = pile[other], pile[at]
        elif remaining[GARROS]:
            box.append(GARROS)
        if len(pile) < dealt:
            raise ValueError(
                f"the deck has {len(pile)} Aces left for {len(others)} more hands of {size}"
            )
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        for seat, kinds in given.items():
            self.hands[seat] = count_vector(kinds)
        for i, seat in enumerate(others):
            self.hands[seat] = count_vector(pile[i * size : (i + 1) * size])
        box += pile[dealt:]
        self.box = count_vector(box)
        self._recount()
        holder = self.garros_holder()
        if leader is not None and holder >= 0 and leader != holder:
            raise ValueError(
                f"Roland Garros starts the Campaign: the leader must be his holder, seat {holder} "
                "(or deal every hand without him)"
            )
        self.first_leader = leader if leader is not None else max(holder, 0)

    def _deal_campaign(self) -> None:
        """The normal deal of a later Campaign."""
        self.first_leader = 0
        self._deal({}, None)

    def garros_holder(self) -> int:
        """The seat holding Roland Garros (-1: he is out of play or played)."""
        for seat, hand in enumerate(self.hands):
            if hand[GARROS]:
                return seat
        return -1

    def _begin_campaign(self) -> None:
        """After the deal: the Pre-Campaign tokens, then the first Dogfight."""
        n = self.config.num_players
        self.played = [0] * NUM_KINDS
        self.finish, self.takes, self.trade_queue = [], [], []
        self.finish_epoch += 1
        self.campaign_over = self.dogfight_over = False
        self.table, self.last_winner, self.last_squadron = None, -1, None
        self.squadron_size, self.passes, self.passed = 0, 0, [False] * n
        had = [s for s in range(n) if self.pre_used and self.pre_used[s]]
        self.pre_used = [0] * n
        for seat in had:
            self._tokens_changed(seat)
        holder = self.garros_holder()
        self.garros_due = holder >= 0
        start = holder if holder >= 0 else self.first_leader
        self.pre_queue = [(start + i) % n for i in range(n)]
        self._next_pre_campaign()

    # -- small queries --

    def cards_left(self, seat: int) -> int:
        return self.left[seat]

    def holds(self, seat: int, token: int) -> bool:
        return self.tokens[seat][token] != MAT

    def prerequisites_met(self, seat: int, token: int) -> bool:
        """Only the immediate prerequisites count: one of them held (all of them
        for an AND token, unless the shorter game is played)."""
        needed = self.config.prerequisite_index[token]
        if not needed:
            return True
        row = self.tokens[seat]
        if self.config.needs_all[token]:
            return all(row[p] != MAT for p in needed)
        return any(row[p] != MAT for p in needed)

    def vp(self, seat: int) -> float:
        """Victory Points of ``seat`` now: held tokens (flipped ones at their
        back value), +1VP tokens and the fractional token (cached per change)."""
        cached = self._vp[seat]
        if cached is not None:
            return cached
        total: float = self.plus_one[seat]
        for token, state in zip(self.config.tokens, self.tokens[seat], strict=True):
            if state == FRONT:
                total += token.vp_front
            elif state == BACK:
                total += token.vp_back
        if self.fractional[seat] >= 0:
            total += FRACTIONAL_VP[self.fractional[seat]]
        self._vp[seat] = total
        return total

    def next_with_cards(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that still has cards."""
        n = self.config.num_players
        for step in range(1, n + 1):
            other = (seat + step) % n
            if self.left[other]:
                return other
        return NO_PLAYER

    def place_of(self, seat: int) -> int:
        """Finishing place 1..n of a seat that finished this Campaign."""
        return self.finish.index(seat) + 1

    # -- GameEngine interface --

    def current_player(self) -> int:
        return NO_PLAYER if self.over or self.truncated else self.actor

    def is_over(self) -> bool:
        return self.over

    def is_truncated(self) -> bool:
        return self.truncated

    def scores(self) -> list[float]:
        """Every seat's VP (asked twice a step under ``reward="score"``): the
        cached figures when no token changed since they were worked out."""
        known = self._vp
        if None in known:
            return [self.vp(seat) for seat in range(self.config.num_players)]
        return list(known)  # type: ignore[arg-type]

    def winners(self) -> list[int]:
        """The highest VP (several on a tie); nobody after a truncation."""
        if not self.over:
            return []
        scores = self.scores()
        best = max(scores)
        return [seat for seat, s in enumerate(scores) if s == best]

    def action_to_string(self, seat: int, action: int) -> str:
        return self._layout.to_string(seat, action)

    def string_to_action(self, seat: int, text: str) -> int:
        return self._layout.from_string(seat, text)

    def legal_actions(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def legal_mask(self, num_actions: int) -> np.ndarray:
        """The mask of :meth:`legal_actions`, read-only and shared between states
        with the same legal actions (most turns repeat a few lists)."""
        mask = self._mask
        if mask is not None:
            return mask
        mask = self._mask = shared_mask(num_actions, self.legal_actions())
        return mask

    def _changed(self) -> None:
        self._legal = None
        self._mask = None

    # -- legality --

    def _compute_legal(self) -> list[int]:
        if self.over or self.truncated:
            return []
        phase, step = self.phase, self.step
        if phase is _DOGFIGHT:
            if step is _START:
                return self._start_of_turn()
            return self._building()
        if phase == Phase.TAKE:
            return self.take_options(self.actor)
        if phase == Phase.TRADE:
            return [self._layout.done, *self.trade_options(self.actor)]
        return self._pre_campaign_legal()

    def table_key(self) -> Table:
        if self.table is None:
            return None
        return (self.squadron_size, self.table.medallions, self.table.value)

    def _plain_plays(self, hand: tuple[int, ...], table: Table) -> list[int]:
        """Squadrons without tokens (and pass when following)."""
        if table is None:
            return list(_leads(hand))
        follow = _FOLLOWS.get(table)
        if follow is None:
            follow = _FOLLOWS[table] = _follow_candidates(table)
        size, sets, singles = follow
        out = [set_id for v, set_id in sets if hand[v] >= size]
        if singles:
            extra = [set_id for v, set_id in singles if hand[v]]
            if extra:
                out = sorted(out + extra)
        out.append(PASS)
        return out

    def usable_tokens(self, seat: int) -> tuple[tuple[int, int], ...]:
        """(token, bonus bit) of the Dogfight tokens ``seat`` can use now (cached
        until a token changes)."""
        usable = self._usable.get(seat)
        if usable is None:
            bits = self.config.dogfight_bits
            row = self.tokens[seat]
            usable = tuple((i, bits[i]) for i in range(len(row)) if row[i] != MAT and bits[i])
            self._usable[seat] = usable
        return usable

    def turn_token_sets(self) -> tuple[int, ...]:
        """The token sets some Squadron of the player to act can use (cached per turn)."""
        if self._turn_sets is None:
            usable = self.usable_tokens(self.actor)
            if not usable:
                self._turn_sets = ()
            else:
                self._turn_sets = token_sets(
                    tuple(self.hands[self.actor]),
                    usable,
                    self.table_key(),
                    self.config.tokens_per_turn == "one",
                )
        return self._turn_sets

    def hand_key(self, seat: int) -> tuple[int, ...]:
        """``seat``'s hand as a tuple (a cache key), rebuilt only after it changed."""
        version = self.hand_versions[seat]
        cached = self._hand_keys[seat]
        if cached is None or cached[0] != version:
            cached = (version, tuple(self.hands[seat]))
            self._hand_keys[seat] = cached
        return cached[1]

    def _start_of_turn(self) -> list[int]:
        """A Dogfight turn's first step (three steps in four): plain Squadrons and
        pass, then the tokens a move can start with. A whole-state cache of the
        answer was tried and lost: a hand seldom meets the same table twice."""
        seat = self.actor
        cached = self._hand_keys[seat]  # hand_key(), table_key(), usable_tokens() inlined
        if cached is None or cached[0] != self.hand_versions[seat]:
            cached = (self.hand_versions[seat], tuple(self.hands[seat]))
            self._hand_keys[seat] = cached
        hand = cached[1]
        squadron = self.table
        table = (
            None if squadron is None else (self.squadron_size, squadron.medallions, squadron.value)
        )
        out = self._plain_plays(hand, table)
        usable = self._usable.get(seat)
        if usable is None:
            usable = self.usable_tokens(seat)
        if usable:
            out += [USE_OFFSET + i for i in first_tokens(hand, usable, table, self._one_token)]
        return out

    def _pending_bits(self) -> tuple[int, int]:
        """(token bit set, bonus bit set) of the tokens used so far."""
        token_bits = bonus_bits = 0
        for i in self.pend_tokens:
            token_bits |= 1 << i
            bonus_bits |= self.config.dogfight_bits[i]
        return token_bits, bonus_bits

    def pending_moves(self) -> list[Move]:
        """The complete moves with exactly the tokens used so far (cached)."""
        if self._moves is None:
            _, bonus_bits = self._pending_bits()
            self._moves = valid_moves(tuple(self.hands[self.actor]), bonus_bits, self.table_key())
        return self._moves

    def _building(self) -> list[int]:
        layout = self._layout
        out: set[int] = set()
        step = self.step
        if step == Step.TOKENS:
            used, _ = self._pending_bits()
            last = self.pend_tokens[-1]
            for s in self.turn_token_sets():
                rest = s & ~used
                if s & used != used or not rest:
                    continue
                nxt = (rest & -rest).bit_length() - 1
                if nxt > last and s & ((1 << nxt) - 1) == used:
                    out.add(layout.use(nxt))
        prefix = tuple(self.pend_cards)
        depth = len(prefix)
        if step == Step.DECLARE:
            for naturals, wild, declare, *_ in self.pending_moves():
                if naturals == prefix and wild == self.pend_wild:
                    out.add(layout.declare(declare))
            return sorted(out)
        for naturals, wild, _declare, *_ in self.pending_moves():
            if naturals[:depth] != prefix:
                continue
            if len(naturals) > depth:
                out.add(layout.add(naturals[depth]))
            elif wild:
                out.add(layout.wild(wild))
            elif depth:
                out.add(layout.done)
        return sorted(out)

    def _pre_campaign_legal(self) -> list[int]:
        layout, seat = self._layout, self.actor
        if self.step == Step.START:
            return [*(layout.use(i) for i in self.pre_campaign_options(seat)), layout.done]
        need = self.config.swap_cards[self.pend_token]
        if self.step == Step.TARGET:
            return sorted(
                layout.target(seat, other)
                for other in range(self.config.num_players)
                if other != seat and self.cards_left(other) >= need
            )
        hand, chosen = self.hands[seat], self.pend_cards
        low = chosen[-1] if chosen else 0
        still = need - len(chosen)
        out = []
        available = sum(hand[low:]) - chosen.count(low)
        for kind in range(low, NUM_KINDS):
            # kind is legal if enough cards of kind or higher remain for the rest
            if hand[kind] - chosen.count(kind) >= 1 and available >= still:
                out.append(layout.give(kind))
            available -= hand[kind] - chosen.count(kind)
        return out

    def pre_campaign_options(self, seat: int) -> list[int]:
        """Swap tokens ``seat`` can use before this Campaign (held, not used yet
        this time, and with enough cards on both sides)."""
        out = []
        row, used = self.tokens[seat], self.pre_used[seat]
        mine = self.cards_left(seat)
        for i, need in enumerate(self.config.swap_cards):
            if not need or row[i] == MAT or used >> i & 1 or mine < need:
                continue
            if any(self.cards_left(o) >= need for o in range(self.config.num_players) if o != seat):
                out.append(i)
        return out

    def take_options(self, seat: int) -> list[int]:
        """What ``seat``, having finished, may take: progression tokens its place
        and prerequisites allow, else (or instead) a +1VP token."""
        layout, n = self._layout, self.config.num_players
        place = self.place_of(seat)
        out = []
        if place < n or n == 2:
            row = self.tokens[seat]
            for i, token in enumerate(self.config.tokens):
                if row[i] == MAT and token.ribbon >= place and self.prerequisites_met(seat, i):
                    out.append(layout.take(i))
        if self.plus_one[seat] < PLUS_ONE_TOKENS:
            out.append(layout.plus_one)
        return out

    def trade_options(self, seat: int) -> list[int]:
        """Tokens ``seat`` can buy with its +1VP tokens (never the Armistice)."""
        layout, row, have = self._layout, self.tokens[seat], self.plus_one[seat]
        return [
            layout.trade(i)
            for i, token in enumerate(self.config.tokens)
            if row[i] == MAT
            and token.bonus != "armistice"
            and TRADE_COST[token.ribbon] <= have
            and self.prerequisites_met(seat, i)
        ]

    # -- applying --

    def apply_action(self, action: int) -> None:
        if self.over or self.truncated:
            raise ValueError("the Great War is over; no action can be applied")
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            legal_text = ", ".join(self.action_to_string(self.actor, a) for a in legal)
            raise ValueError(
                f"illegal action {action} for seat {self.actor}; legal actions: {legal_text}"
            )
        self._legal = self._mask = None
        phase = self.phase
        if phase is _DOGFIGHT:
            # the common steps first: pass and plain Squadrons (three steps in four)
            if action == PASS:
                self._pass(self.actor)
            elif action < PASS:
                self._play_plain(self.actor, action)
            else:
                self._dogfight_action(action)
        elif phase == Phase.TAKE:
            self.takes.pop(0)
            self._take(self.actor, action)
            self._run_takes()
        elif phase == Phase.TRADE:
            self._trade_action(action)
        else:
            self._pre_campaign_action(action)

    def _dogfight_action(self, action: int) -> None:
        layout, seat = self._layout, self.actor
        if action < PASS:
            self._play_plain(seat, action)
        elif action == PASS:
            self._pass(seat)
        elif action < layout.add_offset:
            self.pend_tokens.append(action - USE_OFFSET)
            self._moves = None
            self.step = Step.TOKENS
        elif action < layout.done:
            self.pend_cards.append(action - layout.add_offset)
            self.step = Step.CARDS
        elif action == layout.done:
            self._play_move(seat, tuple(self.pend_cards), 0, 0)
        elif action < layout.declare_offset:
            self.pend_wild = action - layout.wild_offset + 1
            self.step = Step.DECLARE
        else:
            declare = action - layout.declare_offset + 1
            self._play_move(seat, tuple(self.pend_cards), self.pend_wild, declare)

    def _pass(self, seat: int) -> None:
        """``seat`` passes in this Dogfight."""
        self.passes += 1
        self.passed[seat] = True
        self.position = seat
        if self.pend_tokens or self.pend_cards or self.pend_token >= 0:
            self._clear_pending()
        else:  # _clear_pending() without a move built
            self._turn_sets = self._moves = None
        self._next_turn()

    def _play_plain(self, seat: int, action: int) -> None:
        cards, size, value, medallions = PLAIN_PLAYS[action]
        hand, played = self.hands[seat], self.played
        for kind in cards:
            hand[kind] -= 1
            played[kind] += 1
        self.left[seat] -= size
        self.hand_versions[seat] += 1
        self._after_squadron(seat, Squadron(seat, cards, size, value, medallions))

    def _play_move(self, seat: int, naturals: tuple[int, ...], wild: int, declare: int) -> None:
        """Play a Squadron built with tokens: flip the tokens, move the cards."""
        move = next(
            m for m in self.pending_moves() if m[0] == naturals and m[1] == wild and m[2] == declare
        )
        _, bonus_bits = self._pending_bits()
        used = tuple(self.pend_tokens)
        for token in used:
            self._use_token(seat, token)
        hand = self.hands[seat]
        physical = [*naturals, wild] if wild else list(naturals)
        for kind in physical:
            hand[kind] -= 1
            self.played[kind] += 1
        self.left[seat] -= len(physical)
        self.hand_versions[seat] += 1
        size, value, icons = move[3], move[4], move[5]
        medallions = icons + extra_medallions(bonus_bits)
        squadron = Squadron(
            seat, tuple(sorted(physical)), size, value, medallions, used, wild, declare
        )
        self._after_squadron(seat, squadron)

    def _use_token(self, seat: int, token: int) -> None:
        """First use flips the token (-1 VP); the second returns it to the Aerodrome."""
        row = self.tokens[seat]
        row[token] = BACK if row[token] == FRONT else MAT
        self._tokens_changed(seat)

    def _clear_pending(self) -> None:
        if self.pend_tokens or self.pend_cards or self.pend_token >= 0:  # rare: a move built
            self.pend_tokens, self.pend_cards = [], []
            self.pend_wild, self.pend_token, self.pend_target = 0, -1, -1
        self._turn_sets = None
        self._moves = None

    def _after_squadron(self, seat: int, squadron: Squadron) -> None:
        self._clear_pending()
        if squadron.cards[0] == GARROS:
            self.garros_due = False
        if self.table is None:
            self.squadron_size = squadron.size
        self.table = squadron
        self.last_player = seat
        self.position = seat
        self.passes = 0
        self.passed = [False] * self.config.num_players
        if squadron.value == 0:  # Garros alone wins the Dogfight at once
            self.dogfight_over = True
        if not self.left[seat]:
            self.finish.append(seat)
            self.takes.append(seat)
            self.finish_epoch += 1
            with_cards = [s for s in range(self.config.num_players) if self.left[s]]
            if len(with_cards) <= 1:
                self.campaign_over = True
                if with_cards:
                    self.finish.append(with_cards[0])
                    self.takes.append(with_cards[0])
        if self.takes:
            self._run_takes()
        elif self.campaign_over or self.dogfight_over:
            self._resume()
        else:  # what _run_takes() -> _resume() comes to on most Squadrons
            self._next_turn()

    def _run_takes(self) -> None:
        """Finished players take their tokens in order; a choice pauses for a decision."""
        while self.takes:
            seat = self.takes[0]
            options = self.take_options(seat)
            if len(options) > 1:
                self.phase, self.step, self.actor = Phase.TAKE, Step.START, seat
                return
            self.takes.pop(0)
            if options:
                self._take(seat, options[0])
        self._resume()

    def _take(self, seat: int, action: int) -> None:
        layout = self._layout
        if action == layout.plus_one:
            self.plus_one[seat] += 1
            self._tokens_changed(seat)
        else:
            token = action - layout.take_offset
            self._acquire(seat, token)
            if self.config.tokens[token].bonus == "armistice":
                self.armistice_by = seat
                for earlier in self.finish[: self.finish.index(seat)]:
                    self._claim_fractional(earlier)
        if self.armistice_by >= 0:
            self._claim_fractional(seat)

    def _acquire(self, seat: int, token: int) -> None:
        self.tokens[seat][token] = FRONT
        self._tokens_changed(seat)
        if self.config.tokens[token].bonus == "tiebreaker":
            self._claim_fractional(seat)

    def _claim_fractional(self, seat: int) -> None:
        """The largest fractional VP token left, if ``seat`` has none."""
        if self.fractional[seat] < 0 and self.pool:
            self.fractional[seat] = self.pool.pop(0)
            self._tokens_changed(seat)

    def _resume(self) -> None:
        """Go on after a Squadron and the takes it caused."""
        if self.campaign_over:
            self._end_campaign()
        elif self.dogfight_over:
            self._end_dogfight()
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        """The next player clockwise with cards, or the end of the Dogfight when
        every other player with cards has passed since the last Squadron."""
        last = self.last_player
        left = self.left
        n = len(left)
        others = n - left.count(0) - (1 if left[last] else 0)
        if self.passes >= others:
            self._end_dogfight()
            return
        self.phase, self.step = _DOGFIGHT, _START
        position = self.position
        for step in range(1, n + 1):  # next_with_cards, inlined on the hot path
            seat = (position + step) % n
            if left[seat]:
                self.actor = seat
                return
        self.actor = NO_PLAYER

    def _end_dogfight(self) -> None:
        self.last_winner, self.last_squadron = self.last_player, self.table
        self.table = None
        self.dogfight_over = False
        if self.armistice_by >= 0 and self.config.armistice_ends == "dogfight":
            self._end_war()
            return
        winner = self.last_player
        leader = winner if self.left[winner] else self.next_with_cards(winner)
        self._new_dogfight(leader)

    def _new_dogfight(self, leader: int) -> None:
        self._clear_pending()
        self.table, self.squadron_size = None, 0
        self.passes, self.passed = 0, [False] * self.config.num_players
        self.last_player = self.position = leader
        self.phase, self.step, self.actor = Phase.DOGFIGHT, Step.START, leader

    def _end_campaign(self) -> None:
        if self.armistice_by >= 0:
            self._end_war()
            return
        if self.campaign >= self.config.max_campaigns:
            self.truncated = True
            self.phase, self.actor = Phase.OVER, NO_PLAYER
            return
        self.trade_queue = list(self.finish)
        self._next_trade()

    def _end_war(self) -> None:
        """The Armistice: players still holding cards take the fractional VP
        tokens left, fewest cards first (ties clockwise from the Armistice taker)."""
        n = self.config.num_players
        holding = [s for s in range(n) if s not in self.finish]
        holding.sort(key=lambda s: (self.cards_left(s), (s - self.armistice_by) % n))
        for seat in holding:
            self._claim_fractional(seat)
        self.table = None
        self.over = True
        self.phase, self.step, self.actor = Phase.OVER, Step.START, NO_PLAYER

    # -- trading --

    def _next_trade(self) -> None:
        while self.trade_queue:
            seat = self.trade_queue[0]
            if self.trade_options(seat):
                self.phase, self.step, self.actor = Phase.TRADE, Step.START, seat
                return
            self.trade_queue.pop(0)
        self._next_campaign()

    def _trade_action(self, action: int) -> None:
        layout, seat = self._layout, self.actor
        if action == layout.done:
            self.trade_queue.pop(0)
        else:
            token = action - layout.trade_offset
            self.plus_one[seat] -= TRADE_COST[self.config.tokens[token].ribbon]
            self._acquire(seat, token)
        self._next_trade()

    def _next_campaign(self) -> None:
        self.campaign += 1
        self._deal_campaign()
        self._begin_campaign()

    # -- Pre-Campaign --

    def _next_pre_campaign(self) -> None:
        while self.pre_queue:
            seat = self.pre_queue[0]
            if self.pre_campaign_options(seat):
                self.phase, self.step, self.actor = Phase.PRE_CAMPAIGN, Step.START, seat
                return
            self.pre_queue.pop(0)
        holder = self.garros_holder()
        self.garros_due = holder >= 0
        self._new_dogfight(holder if holder >= 0 else self.first_leader)

    def _pre_campaign_action(self, action: int) -> None:
        layout, seat = self._layout, self.actor
        if self.step == Step.START:
            if action == layout.done:
                self.pre_queue.pop(0)
                self._next_pre_campaign()
                return
            self.pend_token = action - USE_OFFSET
            self.step = Step.TARGET
            return
        if self.step == Step.TARGET:
            self.pend_target = layout.target_seat(seat, action)
            self.step = Step.GIVE
            return
        self.pend_cards.append(action - layout.give_offset)
        if len(self.pend_cards) == self.config.swap_cards[self.pend_token]:
            self._swap(seat)

    def _swap(self, seat: int) -> None:
        """The given Aces for as many drawn at random from the opponent's hand
        as it was before they arrive."""
        target, given, token = self.pend_target, list(self.pend_cards), self.pend_token
        theirs = [k for k in range(NUM_KINDS) for _ in range(self.hands[target][k])]
        picks = self.rng.choice(len(theirs), size=len(given), replace=False)
        drawn = [theirs[int(i)] for i in picks]
        mine, their_hand = self.hands[seat], self.hands[target]
        for kind in given:
            mine[kind] -= 1
            their_hand[kind] += 1
        for kind in drawn:
            their_hand[kind] -= 1
            mine[kind] += 1
        self.pre_used[seat] |= 1 << token
        self._use_token(seat, token)
        self.hand_versions[seat] += 1
        self.hand_versions[target] += 1
        self._clear_pending()
        self.step = Step.START
        if not self.pre_campaign_options(seat):
            self.pre_queue.pop(0)
            self._next_pre_campaign()

    # -- invariants --

    def invariant_violations(self) -> list[str]:
        """What does not add up: every Ace in exactly one place, tokens and
        +1VP tokens conserved, fractional tokens each in one place, counts in range."""
        out = []
        n, config = self.config.num_players, self.config
        total = [sum(col) for col in zip(*self.hands, self.box, self.played, strict=True)]
        if total != list(CARD_COUNTS):
            out.append(f"cards do not add up to the deck: {total} != {list(CARD_COUNTS)}")
        if any(c < 0 for h in self.hands for c in h):
            out.append("a hand holds a negative count")
        for seat in range(n):
            if not 0 <= self.plus_one[seat] <= PLUS_ONE_TOKENS:
                out.append(f"seat {seat} holds {self.plus_one[seat]} +1VP tokens")
            if len(self.tokens[seat]) != len(config.tokens):
                out.append(f"seat {seat} has {len(self.tokens[seat])} token slots")
            if any(state not in (MAT, FRONT, BACK) for state in self.tokens[seat]):
                out.append(f"seat {seat} has a token in an unknown state")
        held = [f for f in self.fractional if f >= 0]
        if sorted(held + self.pool) != list(range(len(FRACTIONAL))):
            out.append(f"fractional tokens do not add up: held {held}, pool {self.pool}")
        if len(set(self.finish)) != len(self.finish):
            out.append(f"a seat finished twice: {self.finish}")
        for seat in self.finish[: len(self.finish) - (1 if self.campaign_over else 0)]:
            if any(self.hands[seat]):
                out.append(f"seat {seat} finished but holds cards")
        if self.left != [sum(h) for h in self.hands]:
            out.append(f"card counts {self.left} disagree with the hands")
        if not 1 <= self.campaign <= config.max_campaigns:
            out.append(f"campaign {self.campaign} outside 1..{config.max_campaigns}")
        if not (self.over or self.truncated) and not self.legal_actions():
            out.append("the player to act has no legal action")
        return out

    # -- serialisation --

    def to_dict(self) -> dict[str, Any]:
        names = self.config.names

        def squad(s: Squadron | None) -> dict[str, Any] | None:
            return None if s is None else s.to_dict(names)

        return {
            "config": self.config.to_dict(),
            "rng": rng_to_dict(self.rng),
            "campaign": self.campaign,
            "phase": PHASE_NAMES[self.phase],
            "step": STEP_NAMES[self.step],
            "actor": self.actor,
            "hands": [data.cards_text(h) for h in self.hands],
            "box": data.cards_text(self.box),
            "played": data.cards_text(self.played),
            "table": squad(self.table),
            "squadron_size": self.squadron_size,
            "last_player": self.last_player,
            "passes": self.passes,
            "passed": list(self.passed),
            "position": self.position,
            "garros_due": self.garros_due,
            "finish": list(self.finish),
            "tokens": [
                {names[i]: TOKEN_STATES[st] for i, st in enumerate(row) if st != MAT}
                for row in self.tokens
            ],
            "plus_one": list(self.plus_one),
            "fractional": [FRACTIONAL[f] if f >= 0 else None for f in self.fractional],
            "pool": [FRACTIONAL[f] for f in self.pool],
            "armistice_by": self.armistice_by,
            "over": self.over,
            "truncated": self.truncated,
            "pending": {
                "tokens": [names[i] for i in self.pend_tokens],
                "cards": [data.card_text(k) for k in self.pend_cards],
                "wild": self.pend_wild,
                "token": names[self.pend_token] if self.pend_token >= 0 else None,
                "target": self.pend_target,
            },
            "pre_queue": list(self.pre_queue),
            "pre_used": [
                [names[i] for i in range(len(names)) if u >> i & 1] for u in self.pre_used
            ],
            "takes": list(self.takes),
            "campaign_over": self.campaign_over,
            "dogfight_over": self.dogfight_over,
            "trade_queue": list(self.trade_queue),
            "first_leader": self.first_leader,
            "last_winner": self.last_winner,
            "last_squadron": squad(self.last_squadron),
        }

    @classmethod
    def from_dict(cls, d: Any) -> SkybirdsGame:
        """Rebuild a saved game; raises :class:`StateDictError` naming the first
        field that is malformed (:func:`.state.read_state`) or inconsistent
        (:func:`.state.check_consistency`)."""
        fields = read_state(d)
        game = cls(config=fields.pop("config"), rng=fields.pop("rng"))
        for name, value in fields.items():
            setattr(game, name, value)
        game._recount()
        check_consistency(game)
        return game


def new_game(
    config: SkybirdsConfig | None = None, seed: int | None = None, **scenario: Any
) -> SkybirdsGame:
    """A dealt Great War from a seed (convenience for tests and scripts)."""
    return SkybirdsGame.new(config or SkybirdsConfig(), make_rng(seed), **scenario)
