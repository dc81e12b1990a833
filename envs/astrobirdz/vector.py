"""Many Astrobirdz games at once in numpy arrays: the plain game, for training.

:class:`VectorAstrobirdz` plays ``B`` games of one configuration side by side.
The state of every game lives in arrays, one :meth:`~VectorAstrobirdz.step`
applies one decision in every live game (the seat to act of each game, turns
being sequential), and :meth:`~VectorAstrobirdz.masks` /
:meth:`~VectorAstrobirdz.observations_of` give the legal-action mask and the
observation vector of any seat of any game, in the env's layout. The AEC env
(``astrobirdz_v0``) is the reference: with ``dealing="exact"`` game ``b``
deals the cards ``env.reset(seed=seeds[b])`` deals, and the tests check every
decision (seat to act, mask, every seat's observation, rewards and scores)
against the env over random games of every player count.

What it plays
-------------
The option set ``berzerkerbirdz=False, trump_rules=False, pass_cards=False``
(Oh Hell with the AstroBoard), with either ``highest_bonus`` and either
``highest_bonus_ties``; ``ages`` and ``green_7`` change nothing without rule
cards. Any other value of those three options is an ``OptionError`` naming
it: the Berzerkerbirdz powers, the 54 trump rule cards and passing cards are
not written here (the AEC env plays them).

* the Player Chart's turns (turn t deals t cards), the dealer one seat left
  each turn, the deal from the dealer's left and the turned-up trump card;
* the guesses 0..t from the dealer's left, the AstroBoard to the highest guess
  (ties: the first of them to guess);
* tricks: the dealer's left leads the first, the winner the next; follow the
  led colour if you can; the highest trump, else the highest card of the led
  colour, wins;
* the AstroBoard power: partner (or ``decline``), then the trick that moves;
* scoring: 1 per trick, 5 for an exact guess, 5 for the highest correct guess
  (as the options say; one of tied candidates: fewest points before the turn,
  then the first to guess) and 5 more if its player holds the AstroBoard, -1
  per trick off, floored at zero;
* rewards as the env's ``reward`` option pays them (``score``: each turn's
  points when scored; ``win`` / ``rank``: at the game's end).

Illegal actions raise ``ValueError`` (the env's ``illegal_action="raise"``);
no game reaches the env's step cap, so nothing is truncated.

This is a second engine, not a second rulebook: every rule here is the one
``rules.py`` states, and the tests hold the two to the same moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import OptionError
from ..core.rewards import rank_rewards, win_reward_table
from ..core.rng import make_rng
from . import data
from .actions import GUESS_OFFSET, NUM_TRICKS, PLAYER_OFFSET, ActionLayout
from .observer import NUM_PHASES, SCORE_SCALE, AstrobirdzObserver, observation_size
from .rules import Phase

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
PLAIN = {"berzerkerbirdz": False, "trump_rules": False, "pass_cards": False}
"""The options this engine plays must have these values."""
DEALINGS = ("exact", "fast")
REWARDS = ("win", "score", "rank")


@dataclass
class StepResult:
    """What one :meth:`VectorAstrobirdz.step` paid: ``rewards[b, s]``."""

    rewards: np.ndarray


@dataclass
class SeatView:
    """The seats a vectorised bot decides for: ``seats[i]`` of ``games[i]``,
    read from ``engine`` (a bot may read only what that seat may see)."""

    engine: VectorAstrobirdz
    games: np.ndarray
    seats: np.ndarray


def plain_options(options: dict[str, Any]) -> dict[str, Any]:
    """The env options of this engine, validated as the env validates them;
    an ``OptionError`` names an option the engine does not play."""
    from .env import raw_env  # the env's own option checks, no second copy

    for key, value in options.items():
        if key in PLAIN and value is not PLAIN[key]:
            raise OptionError(
                f"option {key}={value!r}: the vectorised Astrobirdz engine does not play it; "
                f"allowed: {PLAIN[key]} (it needs "
                + ", ".join(f"{k}={v}" for k, v in PLAIN.items())
                + "; the AEC env plays every option)"
            )
    for key in PLAIN:
        if key not in options and key != "pass_cards":
            raise OptionError(
                f"option {key} defaults to True, which the vectorised Astrobirdz engine does "
                f"not play; allowed: {key}=False"
            )
    env = raw_env(**options)
    if env.options["illegal_action"] != "raise":
        raise OptionError(
            f"option illegal_action={env.options['illegal_action']!r}: the vectorised "
            "Astrobirdz engine raises on an illegal action; allowed: 'raise'"
        )
    return dict(env.options)


class VectorAstrobirdz:
    """``num_games`` plain Astrobirdz games in arrays (see the module docstring).

    ``options`` are the env's (``num_players``, ``reward``, ...); ``dealing``
    ``exact`` deals game ``b`` from its own generator as ``env.reset(seed)``
    would, ``fast`` deals every game of a call with one generator call (the
    same uniform deals, other cards for a seed)."""

    def __init__(self, num_games: int, dealing: str = "exact", **options: Any) -> None:
        if dealing not in DEALINGS:
            raise OptionError(f"dealing={dealing!r}; allowed: {', '.join(DEALINGS)}")
        self.options = plain_options(options)
        n = self.num_players = int(self.options["num_players"])
        self.B = num_games
        self.n = n
        self.reward = self.options["reward"]
        self.highest_overall = self.options["highest_bonus"] == "highest_overall"
        self.bonus_to_all = self.options["highest_bonus_ties"] == "all"
        self.turns = data.TURNS[n]
        self.max_hand = self.turns  # without rule cards: the last turn's cards
        self.dealing = dealing
        layout = ActionLayout(n)
        self.num_actions = layout.size
        self.decline, self.trick_offset = layout.decline, layout.trick_offset
        self.size = observation_size(n)
        self.at = dict(AstrobirdzObserver(n).obs_at)  # field offsets in an observation
        self.slot = NC + n
        self.rows = np.arange(num_games)
        self.seats = np.arange(n)
        self.rngs: list[np.random.Generator] = [make_rng(0) for _ in range(num_games)]
        self.rng = make_rng(0)
        self._allocate()

    def _allocate(self) -> None:
        """Every game's state, empty (over) until dealt."""
        B, n = self.B, self.n
        self.hands = np.zeros((B, n, NC), dtype=bool)
        self.played = np.zeros((B, NC), dtype=bool)
        self.score_table = np.zeros((B, n), dtype=np.int64)
        self.turn = np.ones(B, dtype=np.int64)
        self.dealer = np.zeros(B, dtype=np.int64)
        self.trump_card = np.zeros(B, dtype=np.int64)
        self.trump = np.zeros(B, dtype=np.int64)
        self.phase = np.full(B, OVER, dtype=np.int64)
        self.actor = np.full(B, -1, dtype=np.int64)
        self.guesses = np.full((B, n), -1, dtype=np.int64)
        self.guessed = np.zeros(B, dtype=np.int64)
        self.astroboard = np.full(B, -1, dtype=np.int64)
        self.partner = np.full(B, -1, dtype=np.int64)
        self.trick = np.full((B, n), -1, dtype=np.int64)
        self.trick_len = np.zeros(B, dtype=np.int64)
        self.leader = np.zeros(B, dtype=np.int64)
        self.finished = np.full((B, NUM_TRICKS, n), -1, dtype=np.int64)
        self.holders = np.full((B, NUM_TRICKS), -1, dtype=np.int64)
        self.won = np.zeros((B, n), dtype=np.int64)
        """Tricks each seat holds this turn (the holders counted, kept as they change)."""
        self.num_finished = np.zeros(B, dtype=np.int64)
        self.over = np.ones(B, dtype=bool)
        self.truncated = np.zeros(B, dtype=bool)
        self.penalized = np.full(B, -1, dtype=np.int64)
        self._rewards = np.zeros((B, n))
        self._masks: np.ndarray | None = None

    # ---- dealing ----------------------------------------------------------------------

    @property
    def done(self) -> np.ndarray:
        """[B] bool: over by the rules (nothing is truncated or penalized here)."""
        return self.over

    def reset(self, seeds: Any = None) -> None:
        """Deal every game, game ``b`` from ``seeds[b]`` (fast dealing: one
        generator seeded ``seeds[0]``)."""
        self.reset_games(self.rows, seeds)

    def reset_games(self, games: Any, seeds: Any = None) -> None:
        """Deal the games listed, ``games[i]`` from ``seeds[i]``; the others are untouched."""
        idx = np.asarray(games, dtype=np.int64)
        if seeds is None:
            seeds = [None] * idx.size
        seeds = list(seeds)
        if len(seeds) != idx.size:
            raise ValueError(f"{len(seeds)} seeds for {idx.size} games; give one seed per game")
        if self.dealing == "exact":
            for b, seed in zip(idx.tolist(), seeds, strict=True):
                self.rngs[b] = make_rng(seed)
        elif seeds:
            self.rng = make_rng(seeds[0])
        self._masks = None
        self.score_table[idx] = 0
        self.turn[idx] = 1
        self.over[idx] = False
        self._start_turn(idx)

    def _deck_orders(self, idx: np.ndarray) -> np.ndarray:
        """``[len(idx), 54]``: each game's shuffled deck, top card first."""
        if self.dealing == "exact":
            # the rules engine's deck is rng.permutation(54), drawn from its end
            return np.stack([self.rngs[b].permutation(NC) for b in idx.tolist()])[:, ::-1]
        return np.argsort(self.rng.random((len(idx), NC)), axis=1)

    def _start_turn(self, idx: np.ndarray) -> None:
        """Deal turn t: t cards to each seat from the dealer's left, one at a
        time, then turn up the next card as the trump card."""
        if not idx.size:
            return
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
        self.holders[idx] = -1
        self.won[idx] = 0
        self.num_finished[idx] = 0
        self.played[idx] = False
        self.phase[idx] = GUESS
        self.actor[idx] = (dealer + 1) % n

    # ---- reading ----------------------------------------------------------------------

    def current_players(self) -> np.ndarray:
        """[B] the seat to act, -1 in a game that is over."""
        return np.where(self.over, -1, self.actor)

    def scores(self) -> np.ndarray:
        """[B, n] game points."""
        return self.score_table.copy()

    def winners(self) -> np.ndarray:
        """[B, n] bool: the seats with the highest score (of the games over)."""
        return self.score_table == self.score_table.max(axis=1, keepdims=True)

    def tricks_held(self, idx: np.ndarray) -> np.ndarray:
        """``[len(idx), n]``: tricks each seat holds this turn."""
        return self.won[idx]

    def mask_rows(self, games: np.ndarray) -> np.ndarray:
        """``[G, A]``: the masks of the seat to act in ``games`` (see :meth:`masks`)."""
        if self._masks is None:
            self._masks = self._compute_masks()
        return self._masks[games]

    def masks(self, seats: np.ndarray | None = None, to_act_only: bool = True) -> np.ndarray:
        """``[B, A]`` int8: the legal actions of ``seats[b]`` (default: the seat to
        act) in each game; all zeros for a seat not to act and in a game over.
        Worked out once per state (a step or a deal forgets them): the learner's
        view, the legality check and the bots all ask."""
        if self._masks is None:
            self._masks = self._compute_masks()
        if seats is None:
            return self._masks.copy()
        return np.where((np.asarray(seats) == self.actor)[:, None], self._masks, 0).astype(np.int8)

    def _compute_masks(self) -> np.ndarray:
        """The masks of the seat to act of every game (see :meth:`masks`)."""
        mask = np.zeros((self.B, self.num_actions), dtype=np.int8)
        phase = np.where(self.over, OVER, self.phase)
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

    def observations(self, seats: np.ndarray | None = None) -> np.ndarray:
        """``[B, D]`` float32: the observation of ``seats[b]`` (default: the seat
        to act, seat 0 in a game over) in every game."""
        viewer = np.maximum(self.actor, 0) if seats is None else np.asarray(seats)
        return self.observations_of(self.rows, viewer)

    def observations_of(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``[G, D]`` float32: the observation of ``seats[i]`` in ``games[i]``, every
        field in the env's layout (as its observer writes it for that seat)."""
        games = np.asarray(games, dtype=np.int64)
        viewer = np.asarray(seats, dtype=np.int64)
        G, n, D, at, slot = games.size, self.n, self.size, self.at, self.slot
        obs = np.zeros((G, D), dtype=np.float32)
        flat = obs.reshape(-1)
        base = np.arange(G) * D
        phase = self.phase[games]
        trump = self.trump[games]
        ones = [
            base + at["turn"] + self.turn[games] - 1,
            base + at["trump_card"] + self.trump_card[games],
            (base + at["phase"] + phase)[phase < NUM_PHASES],
            base + at["trump_colour"] + trump,
            base + at["trick_trump"] + trump,
        ]
        trick, trick_len = self.trick[games], self.trick_len[games]
        led = COLOUR[np.maximum(trick[:, 0], 0)]
        ones.append((base + at["led_colour"] + led)[trick_len > 0])
        g, p = np.nonzero(np.arange(n)[None, :] < trick_len[:, None])
        start = g * D + at["trick"] + p * slot
        who = (self.leader[games[g]] + p - viewer[g]) % n
        ones += [start + trick[g, p], start + NC + who]
        g, k = np.nonzero(np.arange(NUM_TRICKS)[None, :] < self.num_finished[games][:, None])
        start = g * D + at["tricks"] + k * slot
        ones.append((start[:, None] + self.finished[games[g], k]).ravel())
        ones.append(start + NC + (self.holders[games[g], k] - viewer[g]) % n)
        guesses = self.guesses[games]
        g, s = np.nonzero(guesses >= 0)
        ones.append(g * D + at["guesses"] + ((s - viewer[g]) % n) * NUM_GUESSES + guesses[g, s])
        for name, seat in (
            ("astroboard", self.astroboard[games]),
            ("astroboard_partner", self.partner[games]),
            ("dealer", self.dealer[games]),
        ):
            present = seat >= 0
            ones.append((base + at[name] + (seat - viewer) % n)[present])
        flat[np.concatenate(ones)] = 1.0
        obs[:, at["played"] : at["played"] + NC] = self.played[games]
        obs[:, at["hand"] : at["hand"] + NC] = self.hands[games, viewer]
        obs[:, at["hand_size"]] = self.turn[games] / self.max_hand
        order = (viewer[:, None] + self.seats[None, :]) % n  # the viewer first
        tricks = self.tricks_held(games)
        obs[:, at["tricks_won"] : at["tricks_won"] + n] = (
            np.take_along_axis(tricks, order, axis=1) / self.max_hand
        )
        scores = np.take_along_axis(self.score_table[games], order, axis=1)
        obs[:, at["scores"] : at["scores"] + n] = np.minimum(1.0, scores / SCORE_SCALE)
        return obs

    def views(self, games: np.ndarray, seats: np.ndarray) -> SeatView:
        """The seats a vectorised bot decides for (it reads the engine through it)."""
        return SeatView(self, np.asarray(games, dtype=np.int64), np.asarray(seats, dtype=np.int64))

    # ---- acting -----------------------------------------------------------------------

    def step(self, actions: Any, games: np.ndarray | None = None, check: bool = True) -> StepResult:
        """Each live game listed (default: all) applies ``actions[b]`` for its seat
        to act; ``rewards[b, s]`` is what seat ``s`` of game ``b`` earned by it.
        An action the mask refuses raises ``ValueError`` naming it and the game
        (nothing changes then); ``check=False`` skips that check, for moves
        chosen from the masks (bots)."""
        actions = np.asarray(actions, dtype=np.int64)
        live = ~self.over
        if games is not None:
            listed = np.zeros(self.B, dtype=bool)
            listed[np.asarray(games, dtype=np.int64)] = True
            live &= listed
        idx = np.flatnonzero(live)
        if check:
            self._check_legal(idx, actions)
        self._rewards[:] = 0.0
        self._masks = None
        phase = self.phase[idx]
        guess = idx[phase == GUESS]
        play = idx[phase == PLAY]
        board = idx[phase == ASTROBOARD]
        pick = idx[phase == ASTROBOARD_TRICK]
        if guess.size:
            self._guess(guess, actions[guess] - GUESS_OFFSET)
        if play.size:
            self._play(play, actions[play])
        if board.size:
            self._astroboard_partner(board, actions[board])
        if pick.size:
            self._astroboard_trick(pick, actions[pick] - self.trick_offset)
        return StepResult(self._rewards.copy())

    def _check_legal(self, idx: np.ndarray, actions: np.ndarray) -> None:
        """Refuse (before anything changes) an action outside its game's mask."""
        if not idx.size:
            return
        chosen = actions[idx]
        bad = (chosen < 0) | (chosen >= self.num_actions)
        if not bad.any():
            if self._masks is None:
                self._masks = self._compute_masks()
            bad = self._masks[idx, chosen] == 0
        if bad.any():
            b = int(idx[np.flatnonzero(bad)[0]])
            legal = np.flatnonzero(self.masks()[b]).tolist()
            raise ValueError(
                f"game {b}: action {int(actions[b])} is illegal for player_{int(self.actor[b])} "
                f"(phase {Phase(int(self.phase[b])).name.lower()}); legal: {legal}"
            )

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
        self.holders[idx, k] = winner
        self.won[idx, winner] += 1
        self.num_finished[idx] = k + 1
        self.played[idx[:, None], trick] = True
        done = self.num_finished[idx] == self.turn[idx]
        self._begin_trick(idx[~done], winner[~done])
        self._after_tricks(idx[done])

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
        self.won[idx, giver] -= 1
        self.won[idx, receiver] += 1
        self.partner[idx] = -1
        self._score(idx)

    def _bonus(self, idx: np.ndarray, guesses: np.ndarray, tricks: np.ndarray) -> np.ndarray:
        """``[len(idx), n]`` bool: who gets the highest-correct-guess bonus."""
        n, m = self.n, len(idx)
        correct = guesses == tricks
        top = np.where(correct, guesses, -1).max(axis=1)
        candidate = correct & (guesses == top[:, None])
        if self.highest_overall:
            candidate &= (top == guesses.max(axis=1))[:, None]
        if self.bonus_to_all:
            return candidate
        # one of the tied: fewest points before the turn, then the first to guess
        in_order = (self.seats[None, :] - self.dealer[idx][:, None] - 1) % n
        key = np.where(candidate, self.score_table[idx] * n + in_order, np.iinfo(np.int64).max)
        bonus = np.zeros((m, n), dtype=bool)
        bonus[np.arange(m), key.argmin(axis=1)] = True
        return bonus & candidate.any(axis=1)[:, None]

    def _score(self, idx: np.ndarray) -> None:
        """Each seat's turn score, added to its running total; then the next
        turn, or the end of the game after the chart's last turn."""
        if not idx.size:
            return
        guesses, tricks = self.guesses[idx], self.tricks_held(idx)
        bonus = self._bonus(idx, guesses, tricks)
        holder = self.seats[None, :] == self.astroboard[idx][:, None]
        raw = (
            tricks
            + np.where(guesses == tricks, data.EXACT_GUESS_POINTS, 0)
            + np.where(bonus, data.HIGHEST_GUESS_POINTS, 0)
            + np.where(bonus & holder, data.ASTROBOARD_BONUS_POINTS, 0)
            - np.abs(guesses - tricks) * data.MISS_PENALTY_PER_TRICK
        )
        points = np.maximum(raw, 0)
        self.score_table[idx] += points
        if self.reward == "score":
            self._rewards[idx] = points
        last = self.turn[idx] >= self.turns
        ended = idx[last]
        if ended.size:
            self.over[ended] = True
            self.phase[ended] = OVER
            self.actor[ended] = -1
            self._pay_game_end(ended)
        going = idx[~last]
        self.turn[going] += 1
        self._start_turn(going)

    def _pay_game_end(self, ended: np.ndarray) -> None:
        """``win`` / ``rank`` rewards of the games that just ended."""
        if self.reward == "win":
            self._rewards[ended] = win_reward_table(self.winners()[ended])
        elif self.reward == "rank":
            for b in ended.tolist():
                self._rewards[b] = rank_rewards(self.score_table[b].tolist())
