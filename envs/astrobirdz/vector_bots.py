"""The Astrobirdz heuristic bot for many games at once, on the vectorised engine.

:class:`VectorHeuristicBot` decides for the seat to act of many games of
:class:`~.vector.VectorAstrobirdz` in a few array operations and picks exactly
the move :class:`~.bots.AstrobirdzHeuristicBot` picks there (the tests
compare them decision by decision). It covers what the engine plays (no
Berzerkerbirdz, rule cards or passing), where the scalar bot's reasoning
simplifies without changing a move:

* **Guess**: the rounded sum, over the cards in hand in ascending order, of
  each card's chance to win when led (:func:`~.bots._lead_win_chance` counted
  with arrays: the unseen cards of its colour, the higher ones, the trumps),
  every float operation in the scalar bot's order.
* **Play**: the scalar bot's rules on a strength per card (its number, +20 for
  trump) and a rank per card in the trick (trump above the led colour above
  the rest); ties go to the lowest card, as ``min`` / ``max`` over the
  ascending hand give them.
* **AstroBoard**: the partner with the fewest points (ties: the lowest seat),
  then the earliest movable trick: without rule cards no trick is worth card
  points, so the scalar bot's ordering comes down to these.

The scalar bot's generator only breaks a tie when its choice is illegal,
which never happens in this game, so the bot keeps no generators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .actions import GUESS_OFFSET, PLAYER_OFFSET
from .bots import win_chance
from .data import NO_RULE, NUM_COLOURS
from .vector import (
    ASTROBOARD,
    ASTROBOARD_TRICK,
    COLOUR,
    GUESS,
    NC,
    NUMBER,
    PLAY,
    SeatView,
)


def no_hit_table(pool: np.ndarray, hits: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """:func:`~.bots.no_hit` element by element: the chance that ``drawn`` cards
    from ``pool`` include none of ``hits`` (the same products in the same order)."""
    chance = np.ones(np.broadcast(pool, hits, drawn).shape)
    for i in range(int(np.max(drawn, initial=0))):
        going = (i < drawn) & (pool - i > 0)
        factor = np.maximum(0.0, (pool - hits - i) / np.maximum(pool - i, 1))
        chance = np.where(going, chance * factor, chance)
    return chance


class VectorHeuristicBot:
    """The heuristic bot of every seat of ``count`` games (see the module docstring)."""

    def __init__(self, count: int, num_players: int) -> None:
        self.count, self.n = count, num_players
        effect = NO_RULE.effect
        self.win_chance = np.array(
            [[win_chance(c, t, effect, num_players) for c in range(NC)] for t in range(NUM_COLOURS)]
        )
        """``[trump, card]``: the scalar bot's rule-of-thumb chance that a card wins."""

    def reseed(self, games: np.ndarray, seats: np.ndarray, seeds: np.ndarray) -> None:
        """Nothing to reseed: the bot never draws in the game the engine plays."""

    def act(self, view: SeatView) -> np.ndarray:
        """One move for ``view.seats[i]`` of ``view.games[i]``, each the seat to act."""
        engine, games, seats = view.engine, view.games, view.seats
        if (engine.actor[games] != seats).any():
            raise ValueError("the heuristic decides only for the seat to act of each game")
        actions = np.full(games.size, -1, dtype=np.int64)
        phase = engine.phase[games]
        mask = engine.mask_rows(games)
        for kind, decide in (
            (GUESS, self._guess),
            (PLAY, self._play),
            (ASTROBOARD, self._partner),
            (ASTROBOARD_TRICK, self._trick),
        ):
            rows = np.flatnonzero(phase == kind)
            if rows.size:
                actions[rows] = decide(engine, games[rows], seats[rows], mask[rows])
        if (actions < 0).any() or not mask[np.arange(games.size), actions].all():
            raise RuntimeError("the vectorised heuristic chose an illegal move")
        return actions

    def _guess(self, engine: Any, games: np.ndarray, seats: np.ndarray, _mask: Any) -> np.ndarray:
        """The rounded sum of the hand's chances to win a trick when led."""
        hand = engine.hands[games, seats]
        trump = engine.trump[games]
        unknown = ~hand
        unknown[np.arange(games.size), engine.trump_card[games]] = False
        by_colour = unknown.reshape(games.size, NUM_COLOURS, 9).astype(np.int64)
        per_colour = by_colour.sum(axis=2)  # [G, 6]
        same = per_colour[:, COLOUR]
        # the unseen cards above each card in its colour: a running count from the 9 down
        above = np.cumsum(by_colour[:, :, ::-1], axis=2)[:, :, ::-1] - by_colour
        beat_same = above.reshape(games.size, NC)
        trumps_unseen = per_colour[np.arange(games.size), trump][:, None]
        beat_other = np.where(COLOUR[None, :] != trump[:, None], trumps_unseen, 0)
        pool = unknown.sum(axis=1)[:, None]
        per_hand = hand.sum(axis=1)[:, None]
        pools = np.stack(np.broadcast_arrays(pool, pool, pool - same))
        hits = np.stack([beat_same, same, beat_other])
        no_beat_same, void, no_beat_other = no_hit_table(pools, hits, per_hand[None])
        follows_and_beats = 1.0 - no_beat_same
        trumps_in = 1.0 - no_beat_other
        beaten = np.minimum(1.0, follows_and_beats + void * trumps_in)
        opponents = np.full(beaten.shape, float(self.n - 1))  # C pow, as Python's float ** int
        chance = np.where(hand, np.power(1.0 - beaten, opponents), 0.0)
        expected = np.cumsum(chance, axis=1)[:, -1]  # summed card by card, as sum() does
        guess = np.clip(np.round(expected).astype(np.int64), 0, per_hand[:, 0])
        return GUESS_OFFSET + guess

    def _play(self, engine: Any, games: np.ndarray, seats: np.ndarray, mask: Any) -> np.ndarray:
        """Win cheaply while tricks are needed, duck once the guess is made."""
        G, n = games.size, self.n
        rows = np.arange(G)
        playable = mask[:, :NC].astype(bool)
        trump = engine.trump[games]
        is_trump = COLOUR[None, :] == trump[:, None]
        strength = NUMBER[None, :] + np.where(is_trump, 20, 0)
        high, low = np.where(playable, strength, -1), np.where(playable, strength, 99)
        tricks = engine.tricks_held(games)[rows, seats]
        need = engine.guesses[games, seats] - tricks
        trick, trick_len = engine.trick[games], engine.trick_len[games]
        leading = trick_len == 0
        led = COLOUR[np.maximum(trick[:, 0], 0)]
        rank = NUMBER[None, :] + np.where(
            is_trump, 20, np.where(COLOUR[None, :] == led[:, None], 10, 0)
        )
        in_trick = np.arange(n)[None, :] < trick_len[:, None]
        trick_rank = np.take_along_axis(rank, np.maximum(trick, 0), axis=1)
        best = np.where(in_trick, trick_rank, -1).max(axis=1)
        winners = playable & (rank > best[:, None]) & ~leading[:, None]
        losers = playable & ~winners
        last = trick_len == n - 1
        has_winners, has_losers = winners.any(axis=1), losers.any(axis=1)
        cheapest = np.where(winners, strength, 99).argmin(axis=1)
        dearest = np.where(winners, strength, -1).argmax(axis=1)
        strong = self.win_chance[trump, cheapest] >= 0.5
        top_loser = np.where(losers, strength, -1).argmax(axis=1)
        weakest, strongest = low.argmin(axis=1), high.argmax(axis=1)
        needs = need > 0
        choice = np.where(
            leading,
            np.where(needs, strongest, weakest),
            np.where(
                needs,
                np.where(has_winners, np.where(last | strong, cheapest, dearest), weakest),
                np.where(has_losers, top_loser, np.where(last, strongest, weakest)),
            ),
        )
        return choice

    def _partner(self, engine: Any, games: np.ndarray, seats: np.ndarray, mask: Any) -> np.ndarray:
        """The legal partner with the fewest points (ties: the lowest seat)."""
        n = self.n
        offsets = np.arange(1, n)
        targets = (seats[:, None] + offsets[None, :]) % n  # [G, n-1] absolute seats
        legal = mask[:, PLAYER_OFFSET : PLAYER_OFFSET + n - 1].astype(bool)
        scores = np.take_along_axis(engine.score_table[games], targets, axis=1)
        key = np.where(legal, scores * n + targets, np.iinfo(np.int64).max)
        pick = key.argmin(axis=1)
        return PLAYER_OFFSET + offsets[pick] - 1

    def _trick(self, engine: Any, games: np.ndarray, seats: np.ndarray, mask: Any) -> np.ndarray:
        """The earliest trick the power may move."""
        offset = engine.trick_offset
        return offset + mask[:, offset:].argmax(axis=1)
