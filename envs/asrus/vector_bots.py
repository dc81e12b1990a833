"""The Asrus heuristic bot for many seats at once, deciding as the scalar one does.

:class:`VectorHeuristicBot` plays the strategy of :mod:`flockgym.envs.asrus.bots`
(read its module docstring for what the bot does and why) for a batch of seats
in one call, from the :class:`~flockgym.envs.asrus.vector.SeatView` arrays of
:meth:`VectorAsrus.views` (the same information as each seat's ``view``: its
own hand and specials, the destination, the cards revealed this round, how
many specials each player holds, the deck and its legal mask).

It makes the same decision as :class:`AsrusHeuristicBot` for every seat:
``tests/asrus/test_vector.py`` checks it decision by decision over thousands of
games. To make the same choice in near-ties, every number is computed with the
same floating-point operations in the same order as the scalar bot: powers
through the C library's ``pow`` (``numpy.power`` with an array exponent, never
the scalar-exponent shortcut that squares instead), sums and products over the
opponent model's distances in the order the scalar bot's dict holds them
(first appearance while counting numbers up), and Python's own ``sum``
arithmetic (plain left to right before Python 3.12, Neumaier-compensated from
3.12 on, as CPython's ``sum`` of floats is).

Like the scalar bot, each seat's bot draws the card it plays alone in
proportion to its value, with its own seeded generator (one ``random()`` per
draw, as ``Generator.choice`` takes; the vector bot takes them a block at a
time, the same numbers in the same order): a bot seeded like a scalar bot
makes the same draws. The weights are normalised by numpy's own ``sum`` order
(:func:`numpy_sum`) and the draw is read off the cumulative sum as
``Generator.choice`` reads it. A seat with no legal action is an error, as an
empty mask is for every bot.

Use::

    bot = VectorHeuristicBot(engine.num_games, engine.num_players, seeds=seeds)  # [B, n]
    games, seats = np.repeat(live, n), np.tile(np.arange(n), len(live))
    actions = bot.act(engine.views(games, seats))     # one per (game, seat)
    bot.reseed(games_dealt, seats_dealt, new_seeds)   # new bots for a new episode

Each ``act`` decides for the seats listed in the view; a seat decides once
per turn, as the scalar bot is asked once per turn.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from ..core.rng import make_rng
from . import bots
from .actions import NUM_ACTIONS, NUM_SLOTS
from .vector import SeatView

DISTANCES = np.arange(15)
NUMBERS = np.arange(1, 16)
PREFERENCE = np.array([0.05] + [bots.CLOSENESS_DECAY**d for d in range(1, 15)])
"""The opponent model's liking for each distance (0 never wins), computed by
Python's own float power, as the scalar bot computes it."""
COMPENSATED_SUM = sys.version_info >= (3, 12)
DRAW_BLOCK = 64
"""Uniform draws each bot takes from its generator at a time."""
"""CPython 3.12 made ``sum()`` of floats Neumaier-compensated."""

# Slots of an action (see actions.SLOTS): alone, C B D M R, then a joker as C B D M R X T.
ALONE = 0
CLOSE_SLOTS = (1, 6)
DOUBLE_SLOTS = (3, 8)
MAJORITY_SLOTS = (4, 9)
RETROGRADE_SLOTS = (5, 10)
TRIPLE_SLOT = 12
QUERIES = np.arange(-1, 29)
"""The win-chance queries, as doubled distances: q = -0.5, 0, 0.5, ..., 14 (a card's
distance d, and d - 0.5 with Close)."""
NO_KEY = 15
NEARER = np.vstack([(2 * d > 0) & (2 * d < QUERIES) for d in range(15)] + [QUERIES < -9])
"""[key distance, query]: the key counts against the query when closer wins
(``0 < other < distance``); the last row, for no key, never does."""
FARTHER = np.vstack([2 * d > QUERIES for d in range(15)] + [QUERIES < -9])
"""[key distance, query]: the key counts when farther wins (``other > distance``)."""
SPOILER_SLOTS = (2, 7, 11)
"""Blackhole, a joker as Blackhole, a joker as Explosion: the scalar bot's
candidate order, so the first one held is the one it plays."""


def along(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(values, index, axis=1)`` of 2-D arrays as one fancy
    index: the same entries, without its per-call checks, which cost more than
    the gather itself at the sizes of a turn."""
    return values[np.arange(len(values))[:, None], index]


def python_sum(columns: np.ndarray) -> np.ndarray:
    """Row sums of ``columns`` ``[G, K]`` as Python's ``sum()`` adds a sequence of
    floats from the left (starting from the integer 0)."""
    if not COMPENSATED_SUM:
        # Left to right is numpy's cumulative sum; adding 0.0 gives an all-zero row
        # the sign Python's sum (from the integer 0) gives it.
        return columns.cumsum(axis=1)[:, -1] + 0.0
    total = np.zeros(len(columns))
    compensation = np.zeros(len(columns))
    for k in range(columns.shape[1]):
        item = columns[:, k]
        step = total + item
        compensation += np.where(
            np.abs(total) >= np.abs(item), (total - step) + item, (item - step) + total
        )
        total = step
    return np.where(compensation != 0, total + compensation, total)


def ordered_product(base: np.ndarray, factors: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``base`` ``[G, Q]`` times ``factors[:, k]`` for k = 0, 1, ... in that order,
    at the queries where ``counts[:, k]`` ``[G, K, Q]`` says so: the same floats as
    one multiplication per key (numpy's product over an axis is a left fold)."""
    terms = np.where(counts, factors[:, :, None], 1.0)
    terms[:, 0] *= base  # base * f0 first (a product of two floats does not depend on order)
    return np.multiply.reduce(terms, axis=1)


def power(base: np.ndarray, exponent: float | np.ndarray) -> np.ndarray:
    """``base ** exponent`` elementwise through the C library's ``pow``, as Python
    computes ``float ** int`` (an array exponent keeps numpy off its shortcuts)."""
    return np.power(
        base, np.broadcast_to(np.asarray(exponent, dtype=np.float64), base.shape).copy()
    )


class VectorHeuristicBot:
    """:class:`~flockgym.envs.asrus.bots.AsrusHeuristicBot` for every seat of
    ``num_games`` games: one bot per (game, seat), each with its own generator,
    as a table of scalar bots would have (``seeds[game, seat]``, or fresh
    entropy). :meth:`reseed` starts the bots of some seats again, as making new
    scalar bots with those seeds does."""

    def __init__(self, num_games: int, num_players: int, seeds: np.ndarray | None = None) -> None:
        self.num_games = num_games
        self.num_players = num_players
        self.opponents = num_players - 1
        self.rngs: list[list[np.random.Generator]] = [
            [make_rng(None) for _ in range(num_players)] for _ in range(num_games)
        ]
        self._draws = np.zeros((num_games, num_players, DRAW_BLOCK))
        """Each bot's next ``random()`` values, drawn a block at a time (a block of
        ``random(k)`` is the same numbers as ``k`` calls of ``random()``)."""
        self._used = np.full((num_games, num_players), DRAW_BLOCK)
        """How many of each bot's block are spent (a full block: draw a new one)."""
        if seeds is not None:
            seeds = np.asarray(seeds)
            games, seats = np.indices(seeds.shape)
            self.reseed(games.ravel(), seats.ravel(), seeds.ravel())

    def reseed(self, games: np.ndarray, seats: np.ndarray, seeds: np.ndarray) -> None:
        """The bots of ``(games[i], seats[i])`` start again from ``seeds[i]``."""
        for game, seat, seed in zip(games.tolist(), seats.tolist(), seeds.tolist(), strict=True):
            self.rngs[game][seat] = make_rng(seed)
            self._used[game, seat] = DRAW_BLOCK

    def act(self, view: SeatView) -> np.ndarray:
        """One action id per seat of ``view``: the scalar bot's choice."""
        mask = view.mask.reshape(len(view.seat), 15, NUM_SLOTS) > 0
        if not mask.any(axis=(1, 2)).all():
            raise ValueError("the action mask allows no action: this seat is not to act")
        values, plain_chance = self.values(view)
        return choose(values, plain_chance, mask, view, self._uniform)

    def _uniform(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The next ``random()`` of each listed bot's generator, as the scalar bot's
        ``rng.choice(..., p=...)`` draws one (a bot listed twice draws twice)."""
        if np.unique(games * self.num_players + seats).size < games.size:
            return np.concatenate([self._uniform(games[i : i + 1], seats[i : i + 1])
                                   for i in range(games.size)])  # fmt: skip
        empty = np.flatnonzero(self._used[games, seats] >= DRAW_BLOCK)
        for g, s in zip(games[empty].tolist(), seats[empty].tolist(), strict=True):
            self._draws[g, s] = self.rngs[g][s].random(DRAW_BLOCK)
            self._used[g, s] = 0
        values = self._draws[games, seats, self._used[games, seats]]
        self._used[games, seats] += 1
        return values

    # -- the opponent model and the win chances --

    def values(self, view: SeatView) -> tuple[np.ndarray, np.ndarray]:
        """``[G, 15, 13]``: the scalar bot's ``Candidate.value`` of every action
        (number x slot), and ``[G, 15]`` the win chance of each number alone."""
        g = len(view.seat)
        opponents = self.opponents
        destination = view.destination
        hand_left = view.hand[:, 1:].sum(axis=1)
        unseen = self.unseen(view)
        pool = np.maximum(1.0, unseen.sum(axis=1))
        distance = np.abs(NUMBERS[None, :] - destination[:, None])  # [G, 15] per number

        # opponent_distance_probabilities: weights by distance, in the dict's order.
        present = unseen[:, 1:] > 0
        held_left = np.maximum(1, hand_left).astype(np.float64)[:, None]
        holds = 1.0 - power(
            1.0 - unseen[:, 1:] / pool[:, None], np.broadcast_to(held_left, present.shape)
        )
        weight = np.where(present, holds * PREFERENCE[distance], 0.0)
        low = destination[:, None] - DISTANCES[None, :]  # the number below at each distance
        high = destination[:, None] + DISTANCES[None, :]
        low_at, high_at = np.clip(low - 1, 0, 14), np.clip(high - 1, 0, 14)
        low_ok = (low >= 1) & along(present, low_at)
        high_ok = (high <= 15) & (DISTANCES[None, :] > 0) & along(present, high_at)
        w_low = np.where(low_ok, along(weight, low_at), 0.0)
        w_high = np.where(high_ok, along(weight, high_at), 0.0)
        weights = w_low + w_high  # [G, 15] by distance; 0 + w is w exactly
        key = low_ok | high_ok
        first_seen = np.where(low_ok, low, np.where(high_ok, high, 99))
        order = np.argsort(first_seen, axis=1, kind="stable")  # the dict's key order
        key_in_order = along(key, order)
        total = python_sum(along(weights, order))
        total = np.where(total == 0, 1.0, total)
        probs = np.where(key, weights / total[:, None], 0.0)

        per_number = self.number_probabilities(unseen, destination, probs, key, distance)
        retro = self.retrograde_chance(view, hand_left)

        # WinModel: per distance the chance it is not played by exactly one opponent.
        nobody_alone = 1.0 - np.minimum(
            1.0, opponents * probs * power(1.0 - probs, max(0, opponents - 1))
        )
        factor_in_order = along(nobody_alone, order)
        # Queries: every distance d (column 2d of the doubled distances) and d - 0.5
        # (column 2d - 1); column 0 is d = 0, and d - 0.5 for d = 0 is column -1 (below 0).
        doubled = QUERIES
        p_at = np.zeros((g, doubled.size))
        p_at[:, 1::2] = probs  # q = 0, 1, ..., 14 (half distances hold no probability)
        base = power(1.0 - p_at, float(opponents))
        key = np.where(key_in_order, order, NO_KEY)  # the dict's keys in order; then none
        # Multiply in the dict's order, only where the rule counts it (elsewhere by
        # 1.0, which changes nothing): one product over the keys, left to right.
        closest = ordered_product(base, factor_in_order, NEARER[key])
        farthest = ordered_product(base, factor_in_order, FARTHER[key])
        alive = doubled[None, :] > 0
        closest = np.where(alive, closest, 0.0)
        farthest = np.where(alive, farthest, 0.0)
        mixed = np.where(
            retro[:, None] <= 0,
            closest,
            (1.0 - retro[:, None]) * closest + retro[:, None] * farthest,
        )
        typical_loss = python_sum(np.where(key_in_order, order * along(probs, order), 0.0))

        # Candidates, as AsrusHeuristicBot.candidates and _with_power.
        at_distance = 2 * distance + 1  # query column of each number's distance
        plain = along(mixed, at_distance)
        with_close = along(mixed, at_distance - 1)
        reversed_chance = along(farthest, at_distance)
        edge = (NUMBERS == 1) | (NUMBERS == 15)
        base_gain = (distance * opponents * np.where(edge, 2, 1)[None, :]).astype(np.float64)
        crowd = per_number[:, 1:] * opponents
        majority = np.where(
            (distance == 0) | (crowd < bots.MAJORITY_CROWD_THRESHOLD),
            0.0,
            np.minimum(0.9, crowd / (1.0 + crowd)),
        )
        chance = np.zeros((g, 15, NUM_SLOTS))
        gain = np.zeros((g, 15, NUM_SLOTS))
        chance[:, :, ALONE], gain[:, :, ALONE] = plain, base_gain
        for slot in CLOSE_SLOTS:
            chance[:, :, slot], gain[:, :, slot] = with_close, base_gain
        for slot in DOUBLE_SLOTS:
            chance[:, :, slot], gain[:, :, slot] = plain, 2 * base_gain
        for slot in MAJORITY_SLOTS:
            chance[:, :, slot], gain[:, :, slot] = majority, base_gain
        for slot in RETROGRADE_SLOTS:
            chance[:, :, slot], gain[:, :, slot] = reversed_chance, base_gain
        chance[:, :, TRIPLE_SLOT], gain[:, :, TRIPLE_SLOT] = plain, 3 * base_gain
        return chance * (gain + typical_loss[:, None, None]), plain

    @staticmethod
    def unseen(view: SeatView) -> np.ndarray:
        """``bots.unseen_counts``: copies of each number that may be in another
        hand, ``[G, 16]`` floats (column 0 unused)."""
        unseen = view.deck[None, :].astype(np.float64) - view.hand - view.revealed
        rows = np.arange(len(view.seat))
        face_up = view.destination_card & (view.revealed[rows, view.destination] == 0)
        unseen[rows[face_up], view.destination[face_up]] -= 1.0
        return np.maximum(unseen, 0.0)

    @staticmethod
    def number_probabilities(
        unseen: np.ndarray,
        destination: np.ndarray,
        probs: np.ndarray,
        key: np.ndarray,
        distance: np.ndarray,
    ) -> np.ndarray:
        """``bots.number_probabilities``: the chance one opponent plays each number,
        ``[G, 16]``, the distance's probability split with the number on the
        other side of the destination."""
        twin = 2 * destination[:, None] - NUMBERS[None, :]
        has_twin = (twin >= 1) & (twin <= 15) & (twin != NUMBERS[None, :])
        share = np.where(has_twin, along(unseen, np.clip(twin, 0, 15)), 0.0)
        mine = unseen[:, 1:]
        both = mine + share
        p = along(probs, distance)
        counted = (both > 0) & along(key, distance)
        result = np.zeros_like(unseen)
        result[:, 1:] = np.where(counted, p * mine / np.where(counted, both, 1.0), 0.0)
        return result

    def retrograde_chance(self, view: SeatView, hand_left: np.ndarray) -> np.ndarray:
        """``bots.retrograde_chance``: the chance some opponent plays Retrograde."""
        turns = np.maximum(1, hand_left)
        none = np.ones(len(view.seat))
        kinds = len(bots.data.SPECIAL_KINDS)
        for seat in range(self.num_players):
            factor = 1.0 - np.minimum(1.0, view.specials_held[:, seat] / turns) / kinds
            none = np.where(view.seat == seat, none, none * factor)
        return 1.0 - none


def choose(
    values: np.ndarray,
    plain_chance: np.ndarray,
    mask: np.ndarray,
    view: SeatView,
    uniform: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """``AsrusHeuristicBot.act`` on the valued candidates: a card drawn in
    proportion to its value, unless a special is clearly better (or about to be
    wasted), or a Blackhole when that card is likely to lose. Candidates are in
    action-id order, as the scalar bot lists them, so the first best is the
    same one."""
    g = len(values)
    rows = np.arange(g)
    held = mask[:, :, ALONE]
    plain_values = np.where(held, values[:, :, ALONE], -1.0)
    number = mixed_choice(plain_values, held, view, uniform)
    best_plain = plain_values[rows, number]
    special_values = np.where(mask[:, :, 1:], values[:, :, 1:], -1.0).reshape(g, -1)
    has_special = mask[:, :, 1:].any(axis=(1, 2))
    best_at = special_values.argmax(axis=1)
    best_special = special_values[rows, best_at]
    expiring = view.specials.sum(axis=1) >= view.hand[:, 1:].sum(axis=1)
    take_special = (
        has_special & ((best_special > best_plain * 1.15) | expiring) & (best_special >= best_plain)
    )
    special_action = (best_at // (NUM_SLOTS - 1)) * NUM_SLOTS + best_at % (NUM_SLOTS - 1) + 1
    plain_action = number * NUM_SLOTS + ALONE
    action = np.where(take_special, special_action, plain_action)
    losing = (
        has_special & ~take_special & (plain_chance[rows, number] <= bots.BLACKHOLE_MAX_WIN_CHANCE)
    )
    spoiler = np.full(g, -1)
    for slot in reversed(SPOILER_SLOTS):  # the first one held wins
        spoiler = np.where(mask[rows, number, slot], number * NUM_SLOTS + slot, spoiler)
    use_spoiler = losing & (spoiler >= 0)
    action = np.where(use_spoiler, spoiler, action)
    assert (action >= 0).all() and (action < NUM_ACTIONS).all()
    return action


def mixed_choice(
    plain_values: np.ndarray,
    held: np.ndarray,
    view: SeatView,
    uniform: Callable[[np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """``AsrusHeuristicBot._mixed_choice``: per row the index (number - 1) of the
    card played alone, drawn in proportion to value, or the first best when no
    card is worth anything. The draw is numpy's ``Generator.choice`` with ``p``,
    done the same way: the weights over the held numbers (in order) divided by
    their ``numpy.sum``, a cumulative sum scaled by its last entry, and the
    count of entries at or below one ``random()`` of the seat's generator."""
    g = len(plain_values)
    rows = np.arange(g)
    best = plain_values.argmax(axis=1)
    draw = np.flatnonzero(plain_values[rows, best] > 0)
    if not draw.size:
        return best
    order = np.argsort(~held[draw], axis=1, kind="stable")  # held numbers first, in order
    count = held[draw].sum(axis=1)
    inside = np.arange(15)[None, :] < count[:, None]
    values = along(plain_values[draw], order)
    weights = np.where(inside, np.maximum(values, 0.0), 0.0) ** bots.MIX_SHARPNESS
    p = weights / numpy_sum(weights, count)[:, None]
    cdf = np.cumsum(p, axis=1)
    cdf = cdf / along(cdf, (count - 1)[:, None])
    u = uniform(view.game[draw], view.seat[draw])
    drawn = ((cdf <= u[:, None]) & inside).sum(axis=1)
    chosen = best.copy()
    chosen[draw] = along(order, drawn[:, None])[:, 0]
    return chosen


def numpy_sum(rows: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per row, ``numpy.sum`` of its first ``count`` entries (the rest are 0), in
    numpy's own order: left to right below 8 entries, else 8 running sums added
    as a tree and the remaining entries after (its pairwise summation, for the
    under-16 lengths a hand has)."""
    plain = rows.cumsum(axis=1)[:, -1] + 0.0  # left to right, from 0.0
    pairs = rows[:, 0:8:2] + rows[:, 1:8:2]
    quads = pairs[:, 0::2] + pairs[:, 1::2]
    eight = quads[:, :1] + quads[:, 1:]  # ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    tree = np.concatenate([eight, rows[:, 8:]], axis=1).cumsum(axis=1)[:, -1]
    return np.where(count < 8, plain, tree)
