"""A measured prototype: B Astrobirdz games at once in numpy, beside the scalar env.

This is a benchmark script, not product code. It answers one question of
issue 12: what would a batched (numpy) Astrobirdz engine gain, and is the
plain game easy to vectorise? :class:`BatchedAstrobirdz` plays ``B`` games of
one configuration side by side: the state of every game lives in arrays, one
``step`` call applies one decision in every game, and ``masks()`` /
``observations()`` give the legal-action mask and the observation vector of
the player to act in every game at once (the env's sizes: ``135 + n`` actions,
``795 + 142n + n^2`` floats).

Rules covered
-------------
The simplest option set of ``astrobirdz_v0``: ``berzerkerbirdz=False``,
``trump_rules=False``, ``pass_cards=False`` (the other options at their
defaults: ``highest_bonus="among_correct"``, ``highest_bonus_ties="one"``;
``ages`` and ``green_7`` do not matter without rule cards). Under it the
prototype plays every rule the scalar engine plays:

* the Player Chart's turns (turn t deals t cards), the dealer moving one seat
  left each turn, the deal from the dealer's left and the turned-up trump card
  (its colour is trump);
* the guesses 0..t from the dealer's left, the AstroBoard to the highest guess
  (ties: the first of them to guess);
* tricks: the dealer's left leads the first, the winner the next; the
  follow-colour mask; the highest trump, else the highest card of the led
  colour, wins;
* the AstroBoard power: partner (or ``decline``), then the trick that moves;
* scoring: 1 per trick, 5 for an exact guess, 5 for the highest correct guess
  (ties: fewest points before the turn, then the first to guess) and 5 more if
  its player holds the AstroBoard, -1 per trick off, floored at zero;
* the observation, every field (those this option set leaves at zero stay
  zero: Berzerkerbirdz, Nitro, Surfette, chosen, known, discarded cards).

Left out: everything the option set turns off, i.e. the 54 trump rule cards
(extra draws, discards, passes right, trump chosen by a player, rotating
birds, value changes, protected numbers, trick-trump changes, card points,
first/last trick bonuses, even/odd bonuses, doubling), the six
Berzerkerbirdz powers (Zoom, Max, Speedster, Turbo, Nitro's peek, Surfette's
trade), bird points and the optional pass-cards rule; also the AEC
bookkeeping (rewards, ``max_steps``, illegal-action handling, render, views).

Dealing: ``dealing="exact"`` gives every game its own PCG64 generator seeded
like ``env.reset(seed=s)``, drawn exactly as the scalar engine draws (one
permutation per game and turn), so the same seed deals the same cards;
``dealing="fast"`` deals every game of a call with one generator call (random
keys sorted: a uniform deal, other cards).

What the script does, in one run
--------------------------------
1. An agreement check: ``--check-games`` games with exact dealing, the scalar
   env and the prototype in lockstep with the same random legal actions; at
   every decision the seat to act, the mask and the whole observation vector
   must be equal, after every step the trick winners (this turn's and the last
   turn's) and the running scores, at the end the game's end and final scores.
   Prints ``agree: N/N games``.
2. Decisions per CPU-second (this process's ``time.process_time``): the scalar
   env (``make("astrobirdz_v0", ...)``) through the AEC loop (``agent_iter`` /
   ``last()`` with observation and mask / ``step``, random legal moves), and
   the prototype at B = 8 (the shipped training config's n_envs), 64, 256 and
   1024 games with fast dealing and at 256 with
   exact dealing (each step: observations, masks, random legal actions, step;
   finished games are dealt again at once). The paths run in ``--rounds``
   interleaved slices; the ratios are to the scalar env in this run.
   For reference only, the scalar env with its default options (every rule
   card and Berzerkerbirdz power, the training config's game) in the same
   loop, with random moves and with the heuristic bot (view and act) at every
   seat.
3. Where the prototype's time goes (observations, masks, the random action,
   the step), per decision at each B, and, for scale, what one masked
   policy forward of the training config's net costs per decision in
   one-thread torch at batch 1, 8 and each B.
4. A profile of the scalar path (cProfile): where its time goes, by function
   and by file.

    nice -n 5 python benchmarks/prototypes/astrobirdz_batched.py \
        [--seconds 3] [--rounds 3] [--check-games 300] [--profile-seconds 4]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flockgym.envs import make, make_bot
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.actions import GUESS_OFFSET, NUM_TRICKS, PLAYER_OFFSET, ActionLayout
from flockgym.envs.astrobirdz.observer import (
    NUM_PHASES,
    SCORE_SCALE,
    AstrobirdzObserver,
    observation_size,
)
from flockgym.envs.astrobirdz.rules import Phase
from flockgym.envs.core.rng import make_rng

PLAIN_OPTIONS: dict[str, Any] = {
    "berzerkerbirdz": False,
    "trump_rules": False,
    "pass_cards": False,
}
"""The option set the prototype covers (the rest at their defaults)."""

NC = data.NUM_CARDS
NUM_GUESSES = data.MAX_HAND + 1
COLOUR = np.arange(NC) // 9
NUMBER = np.arange(NC) % 9 + 1
COLOUR_CARDS = COLOUR[None, :] == np.arange(data.NUM_COLOURS)[:, None]
"""``[6, 54]``: the cards of each colour."""

GUESS, PLAY, ASTROBOARD, ASTROBOARD_TRICK, OVER = (
    int(Phase.GUESS),
    int(Phase.PLAY),
    int(Phase.ASTROBOARD),
    int(Phase.ASTROBOARD_TRICK),
    int(Phase.OVER),
)


class BatchedAstrobirdz:
    """``num_games`` plain Astrobirdz games (see the module docstring) in arrays."""

    def __init__(
        self, num_games: int, num_players: int = 4, dealing: str = "fast", auto_reset: bool = False
    ) -> None:
        if dealing not in ("fast", "exact"):
            raise ValueError(f"dealing={dealing!r} is not allowed; allowed: fast, exact")
        self.B, self.n = num_games, num_players
        self.turns = data.TURNS[num_players]
        self.max_hand = self.turns  # without rule cards: the last turn's cards
        self.dealing, self.auto_reset = dealing, auto_reset
        layout = ActionLayout(num_players)
        self.num_actions = layout.size
        self.decline, self.trick_offset = layout.decline, layout.trick_offset
        self.size = observation_size(num_players)
        observer = AstrobirdzObserver(num_players)
        self.at = dict(observer.obs_at)  # field offsets in an observation vector
        self.slot = NC + num_players
        self.rows = np.arange(num_games)
        self.seats = np.arange(num_players)
        self.rngs: list[np.random.Generator] = []
        self.rng = make_rng(0)
        self._allocate()

    def _allocate(self) -> None:
        B, n = self.B, self.n
        self.hands = np.zeros((B, n, NC), dtype=bool)
        self.played = np.zeros((B, NC), dtype=bool)
        self.scores = np.zeros((B, n), dtype=np.int64)
        self.turn = np.ones(B, dtype=np.int64)
        self.dealer = np.zeros(B, dtype=np.int64)
        self.trump_card = np.zeros(B, dtype=np.int64)
        self.trump = np.zeros(B, dtype=np.int64)
        self.phase = np.full(B, OVER, dtype=np.int64)
        self.actor = np.zeros(B, dtype=np.int64)
        self.guesses = np.full((B, n), -1, dtype=np.int64)
        self.guessed = np.zeros(B, dtype=np.int64)
        self.astroboard = np.full(B, -1, dtype=np.int64)
        self.partner = np.full(B, -1, dtype=np.int64)
        self.trick = np.full((B, n), -1, dtype=np.int64)
        self.trick_len = np.zeros(B, dtype=np.int64)
        self.leader = np.zeros(B, dtype=np.int64)
        self.finished = np.full((B, NUM_TRICKS, n), -1, dtype=np.int64)
        self.finished_leader = np.zeros((B, NUM_TRICKS), dtype=np.int64)
        self.winners = np.full((B, NUM_TRICKS), -1, dtype=np.int64)
        self.holders = np.full((B, NUM_TRICKS), -1, dtype=np.int64)
        self.num_finished = np.zeros(B, dtype=np.int64)
        self.last_winners = np.full((B, NUM_TRICKS), -1, dtype=np.int64)
        self.done = np.zeros(B, dtype=bool)
        self.power_used = 0
        """AstroBoard tricks moved so far (coverage of the agreement check)."""

    # -- dealing --

    def reset(self, seeds: list[int]) -> None:
        """Deal every game; game ``b`` draws as ``env.reset(seed=seeds[b])``
        (exact dealing), or all from one generator seeded ``seeds[0]`` (fast)."""
        self.rngs = [make_rng(s) for s in seeds]
        self.rng = make_rng(seeds[0])
        self._new_games(self.rows)

    def _new_games(self, idx: np.ndarray) -> None:
        self.scores[idx] = 0
        self.turn[idx] = 1
        self.done[idx] = False
        self._start_turn(idx)

    def _deck_orders(self, idx: np.ndarray) -> np.ndarray:
        """``[len(idx), 54]``: each game's shuffled deck, top card first."""
        if self.dealing == "exact":
            # the scalar engine's deck is rng.permutation(54), drawn from its end
            return np.stack([self.rngs[b].permutation(NC) for b in idx])[:, ::-1]
        return np.argsort(self.rng.random((len(idx), NC)), axis=1)

    def _start_turn(self, idx: np.ndarray) -> None:
        """Deal turn t: t cards to each seat from the dealer's left, one at a
        time, then turn up the next card as the trump card."""
        n, t = self.n, self.turn[idx]
        self.dealer[idx] = dealer = (t - 1) % n
        deck = self._deck_orders(idx)
        ks = np.arange(NC)[None, :]
        dealt = ks < (t * n)[:, None]
        seat = (dealer[:, None] + 1 + ks % n) % n
        game = np.broadcast_to(idx[:, None], deck.shape)
        self.hands[idx] = False
        self.hands[game[dealt], seat[dealt], deck[dealt]] = True
        self.trump_card[idx] = card = deck[np.arange(len(idx)), t * n]
        self.trump[idx] = COLOUR[card]
        self.guesses[idx] = -1
        self.guessed[idx] = 0
        self.astroboard[idx] = -1
        self.partner[idx] = -1
        self.trick[idx] = -1
        self.trick_len[idx] = 0
        self.finished[idx] = -1
        self.winners[idx] = -1
        self.holders[idx] = -1
        self.num_finished[idx] = 0
        self.played[idx] = False
        self.phase[idx] = GUESS
        self.actor[idx] = (dealer + 1) % n

    # -- reading --

    def current_players(self) -> np.ndarray:
        return np.where(self.done, -1, self.actor)

    def tricks_held(self, idx: np.ndarray) -> np.ndarray:
        """``[len(idx), n]``: tricks each seat holds this turn."""
        return (self.holders[idx][:, :, None] == self.seats[None, None, :]).sum(axis=1)

    def masks(self) -> np.ndarray:
        """``[B, A]`` int8: the legal actions of the seat to act (0 rows when done)."""
        B = self.B
        mask = np.zeros((B, self.num_actions), dtype=np.int8)
        phase = self.phase
        play = np.flatnonzero(phase == PLAY)
        if play.size:
            hand = self.hands[play, self.actor[play]]
            led = COLOUR[np.maximum(self.trick[play, 0], 0)]
            follow = hand & COLOUR_CARDS[led]
            must = (self.trick_len[play] > 0) & follow.any(axis=1)
            mask[play, :NC] = np.where(must[:, None], follow, hand)
        guess = np.flatnonzero(phase == GUESS)
        if guess.size:
            allowed = np.arange(NUM_GUESSES)[None, :] <= self.turn[guess][:, None]
            mask[guess, GUESS_OFFSET : GUESS_OFFSET + NUM_GUESSES] = allowed
        board = np.flatnonzero(phase == ASTROBOARD)
        if board.size:
            holder = self.astroboard[board]
            partners = self._partners(board)
            offset = (self.seats[None, :] - holder[:, None]) % self.n  # 0: the holder
            g, s = np.nonzero(partners)
            mask[board[g], PLAYER_OFFSET + offset[g, s] - 1] = 1
            mask[board, self.decline] = 1
        pick = np.flatnonzero(phase == ASTROBOARD_TRICK)
        if pick.size:
            giver = self._giver(pick)
            movable = self.holders[pick] == giver[:, None]
            mask[pick, self.trick_offset : self.trick_offset + NUM_TRICKS] = movable
        return mask

    def _partners(self, idx: np.ndarray) -> np.ndarray:
        """``[len(idx), n]``: the players the AstroBoard holder may use its power with."""
        holder = self.astroboard[idx]
        tricks = self.tricks_held(idx)
        rows = np.arange(len(idx))
        short = self.guesses[idx, holder] - tricks[rows, holder]
        other = self.seats[None, :] != holder[:, None]
        match = (tricks - self.guesses[idx]) == short[:, None]
        return match & other & (np.abs(short) == 1)[:, None]

    def _giver(self, idx: np.ndarray) -> np.ndarray:
        """Who gives the trick: the partner when the holder is one short, else the holder."""
        holder, partner = self.astroboard[idx], self.partner[idx]
        tricks = self.tricks_held(idx)
        short = self.guesses[idx, holder] - tricks[np.arange(len(idx)), holder]
        return np.where(short == 1, partner, holder)

    def observations(self) -> np.ndarray:
        """``[B, D]`` float32: the observation of the seat to act in each game,
        every field in the env's layout, built from the state arrays."""
        B, n, D, at, slot = self.B, self.n, self.size, self.at, self.slot
        obs = np.zeros((B, D), dtype=np.float32)
        flat = obs.reshape(-1)
        rows, actor = self.rows, self.actor
        base = rows * D
        ones = [base + at["turn"] + self.turn - 1, base + at["trump_card"] + self.trump_card]
        live = self.phase < NUM_PHASES
        ones.append((base + at["phase"] + self.phase)[live])
        ones += [base + at["trump_colour"] + self.trump, base + at["trick_trump"] + self.trump]

        def rel(seat: np.ndarray) -> np.ndarray:  # per-seat fields start at the observer
            return (seat - actor.reshape((-1,) + (1,) * (seat.ndim - 1))) % n

        in_trick = self.trick_len > 0
        led = COLOUR[np.maximum(self.trick[:, 0], 0)]
        ones.append((base + at["led_colour"] + led)[in_trick])
        g, p = np.nonzero(np.arange(n)[None, :] < self.trick_len[:, None])
        start = g * D + at["trick"] + p * slot
        who = (self.leader[g] + p - actor[g]) % n
        ones += [start + self.trick[g, p], start + NC + who]
        g, k = np.nonzero(np.arange(NUM_TRICKS)[None, :] < self.num_finished[:, None])
        start = g * D + at["tricks"] + k * slot
        ones += [(start[:, None] + self.finished[g, k]).ravel()]
        ones.append(start + NC + (self.holders[g, k] - actor[g]) % n)
        g, s = np.nonzero(self.guesses >= 0)
        ones.append(g * D + at["guesses"] + ((s - actor[g]) % n) * NUM_GUESSES + self.guesses[g, s])
        for name, seat in (
            ("astroboard", self.astroboard),
            ("astroboard_partner", self.partner),
            ("dealer", self.dealer),
        ):
            present = seat >= 0
            ones.append((base + at[name] + rel(seat))[present])
        flat[np.concatenate(ones)] = 1.0
        obs[:, at["played"] : at["played"] + NC] = self.played
        obs[:, at["hand"] : at["hand"] + NC] = self.hands[rows, actor]
        obs[:, at["hand_size"]] = self.turn / self.max_hand
        order = (actor[:, None] + self.seats[None, :]) % n  # observer first
        tricks = self.tricks_held(rows)
        obs[:, at["tricks_won"] : at["tricks_won"] + n] = (
            np.take_along_axis(tricks, order, axis=1) / self.max_hand
        )
        scores = np.take_along_axis(self.scores, order, axis=1)
        obs[:, at["scores"] : at["scores"] + n] = np.minimum(1.0, scores / SCORE_SCALE)
        return obs

    # -- acting --

    def step(self, actions: np.ndarray) -> None:
        """Apply one action per live game for its seat to act (legality is the
        caller's: the prototype trusts its masks)."""
        phase = self.phase
        live = ~self.done
        guess = np.flatnonzero(live & (phase == GUESS))
        play = np.flatnonzero(live & (phase == PLAY))
        board = np.flatnonzero(live & (phase == ASTROBOARD))
        pick = np.flatnonzero(live & (phase == ASTROBOARD_TRICK))
        if guess.size:
            self._guess(guess, actions[guess] - GUESS_OFFSET)
        if play.size:
            self._play(play, actions[play])
        if board.size:
            self._astroboard_partner(board, actions[board])
        if pick.size:
            self._astroboard_trick(pick, actions[pick] - self.trick_offset)
        if self.auto_reset and self.done.any():
            self._new_games(np.flatnonzero(self.done))

    def _guess(self, idx: np.ndarray, tricks: np.ndarray) -> None:
        n = self.n
        self.guesses[idx, self.actor[idx]] = tricks
        self.guessed[idx] += 1
        self.actor[idx] = (self.actor[idx] + 1) % n
        end = idx[self.guessed[idx] == n]
        if end.size:
            # the AstroBoard: the highest guess, ties to the first of them to guess
            dealer = self.dealer[end]
            order = (dealer[:, None] + 1 + self.seats[None, :]) % n
            in_order = np.take_along_axis(self.guesses[end], order, axis=1)
            first = in_order.argmax(axis=1)
            self.astroboard[end] = (dealer + 1 + first) % n
            self._begin_trick(end, (dealer + 1) % n)

    def _begin_trick(self, idx: np.ndarray, leader: np.ndarray) -> None:
        self.phase[idx] = PLAY
        self.leader[idx] = leader
        self.actor[idx] = leader
        self.trick[idx] = -1
        self.trick_len[idx] = 0

    def _play(self, idx: np.ndarray, cards: np.ndarray) -> None:
        n = self.n
        self.hands[idx, self.actor[idx], cards] = False
        self.trick[idx, self.trick_len[idx]] = cards
        self.trick_len[idx] += 1
        self.actor[idx] = (self.actor[idx] + 1) % n
        full = idx[self.trick_len[idx] == n]
        if full.size:
            self._end_trick(full)

    def _end_trick(self, idx: np.ndarray) -> None:
        """The highest trump wins, else the highest card of the led colour."""
        n, trick = self.n, self.trick[idx]
        colour, number = COLOUR[trick], NUMBER[trick]
        trumps = colour == self.trump[idx][:, None]
        led = colour == colour[:, :1]
        strength = np.where(trumps, 20 + number, np.where(led, 10 + number, 0))
        winner = (self.leader[idx] + strength.argmax(axis=1)) % n
        k = self.num_finished[idx]
        self.finished[idx, k] = trick
        self.finished_leader[idx, k] = self.leader[idx]
        self.winners[idx, k] = winner
        self.holders[idx, k] = winner
        self.num_finished[idx] = k + 1
        self.played[idx[:, None], trick] = True
        over = self.num_finished[idx] == self.turn[idx]
        self._begin_trick(idx[~over], winner[~over])
        self._after_tricks(idx[over])

    def _after_tricks(self, idx: np.ndarray) -> None:
        """The AstroBoard holder may use its power if it has a partner; else score."""
        if not idx.size:
            return
        self.trick[idx] = -1
        self.trick_len[idx] = 0
        can = self._partners(idx).any(axis=1)
        power = idx[can]
        self.phase[power] = ASTROBOARD
        self.actor[power] = self.astroboard[power]
        self._score(idx[~can])

    def _astroboard_partner(self, idx: np.ndarray, actions: np.ndarray) -> None:
        declined = actions == self.decline
        chose = idx[~declined]
        holder = self.astroboard[chose]
        self.partner[chose] = (holder + actions[~declined] - PLAYER_OFFSET + 1) % self.n
        self.phase[chose] = ASTROBOARD_TRICK
        self._score(idx[declined])

    def _astroboard_trick(self, idx: np.ndarray, trick: np.ndarray) -> None:
        """Move trick ``k`` from the giver to the other one."""
        holder, partner = self.astroboard[idx], self.partner[idx]
        giver = self._giver(idx)
        receiver = np.where(giver == partner, holder, partner)
        self.holders[idx, trick] = receiver
        self.partner[idx] = -1
        self.power_used += len(idx)
        self._score(idx)

    def _score(self, idx: np.ndarray) -> None:
        """Each seat's turn score, added to its running total; then the next
        turn, or the end of the game after the chart's last turn."""
        if not idx.size:
            return
        n, m = self.n, len(idx)
        guesses, tricks = self.guesses[idx], self.tricks_held(idx)
        before = self.scores[idx]
        correct = guesses == tricks
        top = np.where(correct, guesses, -1).max(axis=1)
        candidate = correct & (guesses == top[:, None])
        # one of the tied: fewest points before the turn, then the first to guess
        in_order = (self.seats[None, :] - self.dealer[idx][:, None] - 1) % n
        key = np.where(candidate, before * n + in_order, np.iinfo(np.int64).max)
        bonus_seat = key.argmin(axis=1)
        has_bonus = candidate.any(axis=1)
        bonus = np.zeros((m, n), dtype=np.int64)
        rows = np.arange(m)
        with_board = np.where(bonus_seat == self.astroboard[idx], data.ASTROBOARD_BONUS_POINTS, 0)
        bonus[rows, bonus_seat] = np.where(has_bonus, data.HIGHEST_GUESS_POINTS + with_board, 0)
        raw = (
            tricks
            + np.where(correct, data.EXACT_GUESS_POINTS, 0)
            + bonus
            - np.abs(guesses - tricks) * data.MISS_PENALTY_PER_TRICK
        )
        self.scores[idx] = before + np.maximum(raw, 0)
        self.last_winners[idx] = self.winners[idx]
        last = self.turn[idx] >= self.turns
        ended = idx[last]
        self.done[ended] = True
        self.phase[ended] = OVER
        going = idx[~last]
        self.turn[going] += 1
        if going.size:
            self._start_turn(going)


def uniform_true(available: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, a uniformly random column among the non-zero ones (0 for empty rows)."""
    running = np.cumsum(available, axis=1, dtype=np.int16)
    pick = (rng.random(len(available)) * running[:, -1]).astype(np.int16)
    return (running > pick[:, None]).argmax(axis=1)


# ---- the agreement check ----------------------------------------------------------


@dataclass
class Agreement:
    games: int = 0
    agreeing: int = 0
    decisions: int = 0
    power_moves: int = 0
    problems: list[str] = field(default_factory=list)


def check_agreement(num_games: int, players: int, seed: int) -> Agreement:
    """Play ``num_games`` games in the scalar env and the prototype side by side
    (same seeds, same random legal actions) and compare every decision."""
    proto = BatchedAstrobirdz(num_games, players, dealing="exact")
    seeds = list(range(seed, seed + num_games))
    proto.reset(seeds)
    envs = [make("astrobirdz_v0", num_players=players, **PLAIN_OPTIONS) for _ in seeds]
    for env, s in zip(envs, seeds, strict=True):
        env.reset(seed=s)
    games = [env.unwrapped.astrobirdz for env in envs]
    ok = np.ones(num_games, dtype=bool)
    running = np.ones(num_games, dtype=bool)
    rng = np.random.default_rng(seed)
    result = Agreement(games=num_games)

    def differ(b: int, what: str) -> None:
        if ok[b] and len(result.problems) < 5:
            result.problems.append(f"game {b} (seed {seeds[b]}): {what}")
        ok[b] = False
        running[b] = False

    while running.any():
        actors, masks, obs = proto.current_players(), proto.masks(), proto.observations()
        actions = uniform_true(masks, rng)
        for b in np.flatnonzero(running):
            env = envs[b]
            seat = env.unwrapped.seat_of(env.agent_selection)
            if seat != actors[b]:
                differ(b, f"seat to act {actors[b]}, scalar {seat}")
                continue
            seen = env.observe(env.agent_selection)
            if not np.array_equal(seen["action_mask"], masks[b]):
                differ(b, "masks differ")
            elif not np.array_equal(seen["observation"], obs[b]):
                wrong = np.flatnonzero(seen["observation"] != obs[b])
                differ(b, f"observations differ at {wrong[:8].tolist()}")
            else:
                env.step(int(actions[b]))
                result.decisions += 1
        proto.step(actions)
        for b in np.flatnonzero(running):
            game = games[b]
            k, last = int(proto.num_finished[b]), proto.last_winners[b]
            if game.trick_winners != proto.winners[b, :k].tolist():
                differ(b, "trick winners differ")
            elif game.last_trick_winners != last[last >= 0].tolist():
                differ(b, "last turn's trick winners differ")
            elif game.scores_ != proto.scores[b].tolist():
                differ(b, f"scores {proto.scores[b].tolist()}, scalar {game.scores_}")
            elif game.over != proto.done[b]:
                differ(b, f"game over {proto.done[b]}, scalar {game.over}")
            elif game.over:
                running[b] = False
    result.agreeing = int(ok.sum())
    result.power_moves = proto.power_used
    return result


# ---- timing -------------------------------------------------------------------------


@dataclass
class Tally:
    name: str
    run: Callable[[float], int]
    games: int = 1
    decisions: int = 0
    seconds: float = 0.0
    slices: list[float] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.decisions / max(self.seconds, 1e-9)


class ScalarPath:
    """The AEC env, game after game, random legal moves (observation and mask each step)."""

    def __init__(
        self,
        players: int,
        seed: int,
        options: dict[str, Any] | None = None,
        heuristic: bool = False,
    ) -> None:
        options = PLAIN_OPTIONS if options is None else options
        self.env = make("astrobirdz_v0", num_players=players, **options)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.games = 0
        self.bot = make_bot("astrobirdz_v0", "heuristic", seed=seed) if heuristic else None

    def run(self, seconds: float) -> int:
        env, rng = self.env, self.rng
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            env.reset(seed=self.seed + self.games)
            for _agent in env.agent_iter():
                observation, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                if self.bot is not None:
                    view = env.unwrapped.view(env.agent_selection)
                    env.step(self.bot.act(observation, view))
                else:
                    legal = np.flatnonzero(observation["action_mask"])
                    env.step(int(legal[rng.integers(legal.size)]))
                decisions += 1
            self.games += 1
        return decisions


class BatchedPath:
    """The prototype with auto-reset: each step every game's observation and mask."""

    def __init__(self, players: int, games: int, seed: int, dealing: str) -> None:
        self.engine = BatchedAstrobirdz(games, players, dealing=dealing, auto_reset=True)
        self.engine.reset(list(range(seed, seed + games)))
        self.rng = np.random.default_rng(seed)

    def run(self, seconds: float) -> int:
        engine, rng = self.engine, self.rng
        decisions = 0
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            engine.observations()
            actions = uniform_true(engine.masks(), rng)
            engine.step(actions)
            decisions += engine.B  # auto-reset keeps every game live
        return decisions


def measure(tallies: list[Tally], seconds: float, rounds: int) -> None:
    for _ in range(rounds):
        for tally in tallies:
            start = time.process_time()
            decisions = tally.run(seconds)
            spent = time.process_time() - start
            tally.decisions += decisions
            tally.seconds += spent
            tally.slices.append(decisions / max(spent, 1e-9))


def profile_scalar(players: int, seconds: float, seed: int, top: int) -> None:
    """Where the scalar env's time goes: cProfile of the scalar path."""
    path = ScalarPath(players, seed)
    profiler = cProfile.Profile()
    profiler.enable()
    decisions = path.run(seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(row[2] for row in stats.stats.values())
    print(f"\nprofile of the scalar env: {decisions} decisions, {total:.2f} s of own time")
    by_file: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), row in stats.stats.items():
        by_file[short_file(filename)] += row[2]
    print("own time by file:")
    for name, spent in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {100 * spent / total:5.1f}%  {name}")
    print("own time by function:")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]
    for (filename, line, name), row in rows:
        calls, own, cumulative = row[1], row[2], row[3]
        per = 1e6 * own / max(decisions, 1)
        print(
            f"  {100 * own / total:5.1f}%  {per:5.1f} us/decision  {calls:>8} calls  "
            f"cum {100 * cumulative / total:5.1f}%  {short_file(filename)}:{line} {name}"
        )


def short_file(filename: str) -> str:
    """A readable name for a profiled file: from the package or library folder on."""
    parts = filename.replace("\\", "/").split("/")
    for anchor in ("flockgym", "envs", "training", "pettingzoo", "numpy", "gymnasium"):
        if anchor in parts[:-1]:
            return "/".join(parts[parts.index(anchor) :])
    return parts[-1]


def prototype_breakdown(players: int, games: int, seed: int, steps: int) -> dict[str, float]:
    """CPU microseconds per decision in each call of a prototype step."""
    path = BatchedPath(players, games, seed, "fast")
    engine, rng = path.engine, path.rng
    spent: dict[str, float] = defaultdict(float)
    clock = time.process_time
    for _ in range(steps):
        t0 = clock()
        engine.observations()
        t1 = clock()
        masks = engine.masks()
        t2 = clock()
        actions = uniform_true(masks, rng)
        t3 = clock()
        engine.step(actions)
        t4 = clock()
        spent["observations"] += t1 - t0
        spent["masks"] += t2 - t1
        spent["random action"] += t3 - t2
        spent["step"] += t4 - t3
    return {k: 1e6 * v / (steps * games) for k, v in spent.items()}


def policy_forward_cost(size: int, actions: int, batches: list[int], seconds: float) -> list[str]:
    """CPU microseconds per decision of a masked MLP forward in one-thread torch
    (the shape of ``configs/astrobirdz/ppo.yaml``: separate 256x256 actor and
    critic, as SB3 builds them), for scale beside the env's cost per decision."""
    try:
        import torch
    except ImportError:  # the train extra is not installed
        return ["torch not installed: policy forward not timed"]
    torch.set_num_threads(1)

    def mlp(out: int) -> torch.nn.Module:
        return torch.nn.Sequential(
            torch.nn.Linear(size, 256), torch.nn.Tanh(), torch.nn.Linear(256, 256),
            torch.nn.Tanh(), torch.nn.Linear(256, out),
        )  # fmt: skip

    actor, critic = mlp(actions), mlp(1)
    lines = []
    for batch in batches:
        obs = torch.rand(batch, size)
        mask = torch.rand(batch, actions) < 0.2
        mask[:, 0] = True
        calls = 0
        with torch.no_grad():
            actor(obs), critic(obs)  # warm up: the first call allocates
            start = time.process_time()
            while time.process_time() - start < seconds:
                logits = actor(obs).masked_fill(~mask, -1e8)
                torch.multinomial(torch.softmax(logits, dim=1), 1)
                critic(obs)
                calls += 1
        per = 1e6 * (time.process_time() - start) / (calls * batch)
        lines.append(f"batch {batch:>5}: {per:7.1f} us per decision")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per slice")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 64, 256, 1024])
    parser.add_argument("--check-games", type=int, default=300)
    parser.add_argument("--profile-seconds", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n = args.players
    print(
        f"astrobirdz_batched: pid {os.getpid()}, {n} players, options {PLAIN_OPTIONS}, "
        "CPU time of this process"
    )

    start = time.process_time()
    agreement = check_agreement(args.check_games, n, seed=1000 + args.seed)
    print(
        f"agreement check (exact dealing, seeds {1000 + args.seed}..): "
        f"agree: {agreement.agreeing}/{agreement.games} games, "
        f"{agreement.decisions} decisions compared (seat, mask, whole observation), "
        f"{agreement.power_moves} AstroBoard tricks moved, "
        f"{time.process_time() - start:.1f} CPU s"
    )
    for problem in agreement.problems:
        print(f"  {problem}")

    scalar = ScalarPath(n, args.seed)
    tallies = [Tally("scalar env (AEC loop)", scalar.run)]
    full = ScalarPath(n, args.seed, options={})
    tallies.append(Tally("scalar env, default options *", full.run))
    bots = ScalarPath(n, args.seed, options={}, heuristic=True)
    tallies.append(Tally("  + heuristic bot every seat *", bots.run))
    for games in args.batches:
        path = BatchedPath(n, games, args.seed, "fast")
        tallies.append(Tally(f"prototype B={games}, fast deal", path.run, games))
    exact = BatchedPath(n, 256, args.seed, "exact")
    tallies.append(Tally("prototype B=256, exact deal", exact.run, 256))
    measure(tallies, args.seconds, args.rounds)
    base = tallies[0].per_second
    print(
        f"\n{args.rounds} interleaved rounds of {args.seconds:.1f} CPU s per path; "
        "decisions include the observation and mask of the seat to act"
    )
    print(f"{'path':32} {'decisions':>10} {'CPU s':>7} {'decisions/s':>12} {'x scalar':>9}  "
          "per round (decisions/s)")  # fmt: skip
    for t in tallies:
        rounds = " ".join(f"{r:,.0f}" for r in t.slices)
        print(
            f"{t.name:32} {t.decisions:>10} {t.seconds:>7.1f} {t.per_second:>12,.0f} "
            f"{t.per_second / base:>8.1f}x  {rounds}"
        )
    print(
        "* every rule card and Berzerkerbirdz power on (the training config's options; "
        "the heuristic reads the view at each decision): for reference, not the prototype's game"
    )
    print("\nprototype, CPU us per decision by call (200 steps each, fast deal):")
    for games in args.batches:
        parts = prototype_breakdown(n, games, args.seed, steps=200)
        total = sum(parts.values())
        shown = "  ".join(f"{k} {v:5.2f}" for k, v in parts.items())
        print(f"  B={games:>5}: total {total:5.2f}  {shown}")
    layout = ActionLayout(n)
    print("\npolicy forward (actor + critic, mask, sample; torch, one thread), for scale:")
    for line in policy_forward_cost(
        observation_size(n), layout.size, sorted({1, 8, *args.batches}), 1.0
    ):
        print(f"  {line}")
    profile_scalar(n, args.profile_seconds, args.seed, top=14)


if __name__ == "__main__":
    main()
