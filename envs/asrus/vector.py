"""Asrus for many games at once: a batched numpy engine for training at scale.

:class:`VectorAsrus` plays ``B`` games of one configuration side by side. The
state of every game lives in arrays (hands, specials, points, piles, the last
turn, ...) and one call commits or resolves a turn for all of them; the
observations and masks of every seat of every game come out as single arrays.
It plays the rules of :mod:`flockgym.envs.asrus.rules` exactly (the scalar
engine is the reference, and ``tests/asrus/test_vector.py`` compares the two
turn by turn), and it keeps the AEC env's bookkeeping: reward modes, the
``max_steps`` cap, ``illegal_action``, termination and truncation.

Construction
------------
``VectorAsrus(num_games, auto_reset=False, dealing="exact", **options)`` takes
the options of ``asrus_v0.env()`` (``num_players``, ``reward``,
``illegal_action``, ``max_steps`` and every game option), checked by the same
option table with the same messages; all games share them. ``render_mode``
is refused with an :class:`OptionError`: the vector engine draws nothing
(:meth:`VectorAsrus.to_game` hands one game to the scalar engine, whose
observer renders it and builds its JSON view). Nothing else is left out.

Determinism and dealing
-----------------------
Every game owns a PCG64 generator. With ``dealing="exact"`` (the default) it
draws exactly as the scalar engine does (each hand, each special hand, the
destination, the lottery), so game ``b`` reset with seed ``s`` deals and plays
the same cards as ``asrus_v0.env().reset(seed=s)`` given the same actions.
That costs one generator call per hand per game, a large share of the
engine's time; ``dealing="fast"`` deals each round with one call per game
(random keys sorted: the same uniform deal, still decided by the game's own
seed alone, but other cards than the scalar env's). The rules, the lottery and
everything after the deal are the same in both. A reset without a seed
continues each game's generator, as the AEC env's ``reset()`` does.

API (``B`` games, ``n`` seats, ``D = 63 + 33n`` floats, ``A = 195`` actions)
-------------------------------------------------------------------------
``reset(seeds=None, scenarios=None)``
    Deal every game: ``seeds`` is one seed per game (int >= 0 or None), or
    None to continue each game's generator. ``scenarios`` (one dict per game,
    or one dict for all) are the scalar env's ``reset(options=...)`` set-ups
    (``hands``, ``specials``, ``destination``, ``stones``, ``deposit``).
``reset_games(games, seeds=None, scenarios=None)``
    Deal only the games listed (the others are untouched).
``current_players()`` -> ``[B]`` int
    The seat to act in each game (seats commit in order 0..n-1, as in the
    AEC env); -1 for a game that is done.
``step(actions, games=None)`` -> :class:`StepResult`
    ``actions[B]``: one action id per game for its seat to act; entries of
    games that are done are ignored. The last seat's commitment resolves the
    turn. Exactly one AEC ``env.step`` per live game, or per live game listed
    in ``games`` (the others wait: batched self-play steps each game up to its
    learner's seat).
``step_seats(actions, until, games=None)`` -> :class:`StepResult`
    ``actions[B, n]``: each live game (or each live game listed in ``games``)
    commits its seats from the one to act up to, not including, ``until[b]``
    (between the seat to act and ``n``): what that many ``step`` calls do, in
    one call (batched self-play commits the opponents before and after its
    learner's seat this way). An illegal action raises before anything
    changes, or, under ``illegal_action="penalize"``, ends that game with the
    seats before it committed; the ``max_steps`` cap can stop a game short.
``step_turn(actions)`` -> :class:`StepResult`
    ``actions[B, n]``: a whole turn's joint actions (the parallel env's
    ``step``); every live game must be at the start of a turn. Like the
    parallel env, an illegal action under ``illegal_action="penalize"`` ends
    that game with the seats before it committed, and the ``max_steps`` cap
    can cut a turn short.
``observations(seats=None)`` -> ``[B, n, D]`` float32, or ``[B, D]`` for ``seats[B]``
    What ``env.observe(agent)["observation"]`` gives each seat, including
    which seats have committed this turn (all zero at a turn's start, which is
    what the parallel env shows). ``seats`` (e.g. ``current_players()``)
    gathers one seat per game, the cheap call for seat-by-seat play.
``masks(seats=None, to_act_only=False)`` -> ``[B, n, A]`` int8, or ``[B, A]`` for ``seats[B]``
    Every seat's legal actions this turn (all seats choose at once: the
    parallel env's masks); ``to_act_only=True`` keeps only the row of the seat
    to act, as ``env.observe(agent)["action_mask"]``. Rows of done games are 0.
``scores()`` -> ``[B, n]`` float, ``winners()`` -> ``[B, n]`` bool (only games over by
    the rules have winners), ``done`` -> ``[B]`` bool, and the state arrays
    themselves (``points``, ``deposit``, ``holdings``, ``round``, ``turn``,
    ``steps``, ``penalized``, ...), read-only for callers.
``views(games, seats)`` -> :class:`SeatView`
    What those seats may see, as arrays (the fields of the scalar ``view`` a
    bot reads); :class:`~flockgym.envs.asrus.vector_bots.VectorHeuristicBot`
    decides for all of them in one call.
``to_game(b)`` / ``load_games(games, steps=None)``
    Game ``b`` as a scalar :class:`AsrusGame` (its generator copied; its
    ``to_dict()`` is a saved state), and the reverse: load scalar games, one
    per slot (``steps`` taken so far, for the cap), mid-turn ones too.

:class:`StepResult` fields, all per game:

``rewards [B, n]``
    What the AEC env's ``rewards`` dict holds after this step, per reward mode
    (``win``/``rank``: the final result when the game ends by its rules;
    ``score``: the points won or lost this step, lottery included;
    ``penalize``: -1 to the offender, 0 to the others). For ``step_turn``:
    their sum over the turn's steps, as the parallel env pays.
``terminated [B]``, ``truncated [B]``
    The game ended by its rules or a penalty / was cut short by ``max_steps``.
    Without auto-reset they stay set until the game is reset.
``final_observations [B, n, D]``, ``final_scores [B, n]``, ``final_winners [B, n]``
    With ``auto_reset=True``, when some game ended in this step: its last
    observations, scores and winners (rows of the other games are 0), taken
    before it was dealt again (continuing its generator), so every call
    returns live games. None otherwise.

Rewards, terminations and truncations are exactly the AEC env's (the tests
compare them step by step), so a batched SB3 ``VecEnv`` can sit on top: play
the opponents' seats in one batch (``views`` for bots, ``observations`` and
``masks`` for policies), then the learner's, and read the :class:`StepResult`
(``terminal_observation`` from ``final_observations``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..core.aec import agent_name, check_seed
from ..core.errors import IllegalActionError, OptionError
from ..core.options import resolve_options
from ..core.rewards import win_reward_table
from ..core.rng import copy_rng, make_rng
from .actions import NUM_ACTIONS, NUM_SLOTS, SLOT_COLUMNS, SLOTS, action_text
from .env import config_from_options, new_game_from_scenario, raw_env
from .observer import OUTCOME_KINDS, AsrusObserver, observation_size
from .rules import (
    PLAYS,
    AsrusGame,
    LotteryResult,
    Outcome,
    TurnResult,
    draw_lottery,
    full_number_pile,
    full_special_pile,
)

# ---- tables over action ids and slots -------------------------------------------

DEALINGS = ("exact", "fast")
"""How :class:`VectorAsrus` deals: the scalar engine's draws, or one call per game."""
POWERS = ("", "C", "B", "D", "M", "R", "X", "T")
"""Power codes: 0 is no special; a joker declared as a power has that power's code."""
_CODE = {power: code for code, power in enumerate(POWERS)}
NONE, CLOSE, BLACKHOLE, DOUBLE, MAJORITY, RETROGRADE, EXPLOSION, TRIPLE = range(len(POWERS))

SLOT_POWER = np.array([_CODE[power or ""] for power, _ in SLOTS])
"""Power code of each slot of an action."""
SLOT_SPECIAL = np.array([-1] + list(range(5)) + [5] * (NUM_SLOTS - 6))
"""Column of a player's special counts (C B D M R joker) each slot spends; -1: none."""
ACTION_NUMBER = np.arange(NUM_ACTIONS) // NUM_SLOTS + 1
ACTION_SLOT = np.arange(NUM_ACTIONS) % NUM_SLOTS
KIND = {kind: index for index, kind in enumerate(OUTCOME_KINDS)}
MAJORITY_KIND, CLOSEST_KIND, FARTHEST_KIND, DRAW_KIND, EXPLOSION_KIND = (
    KIND[k] for k in ("majority", "closest", "farthest", "draw", "explosion")
)
HOLDING_COLUMNS = 22
"""Columns of a seat's holdings, as :meth:`AsrusGame.holdings`: 0 always 1, 1-15
the number cards, 16-21 the C B D M R joker specials."""
SPECIALS_AT = 16
SPECIAL_SLOT_MASK = np.array(
    [[SLOT_SPECIAL[slot] == k for slot in range(NUM_SLOTS)] for k in range(6)]
)
"""[special, slot]: the slots a special card (C B D M R joker) makes playable."""
FAR = 1 << 20
"""Larger than any (doubled) distance: the neutral element of a masked min."""


class StepResult(NamedTuple):
    """What one :meth:`VectorAsrus.step` or :meth:`VectorAsrus.step_turn` did (see
    the module docstring)."""

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_observations: np.ndarray | None = None
    final_scores: np.ndarray | None = None
    final_winners: np.ndarray | None = None


class SeatView(NamedTuple):
    """What a batch of seats may see, as arrays (one row per seat asked about):
    the fields of the scalar ``view`` that a bot reads."""

    game: np.ndarray
    """[G] the game the seat plays in (which bot of a batch decides)."""
    seat: np.ndarray
    """[G] the seat itself."""
    hand: np.ndarray
    """[G, 16] its number cards by number (column 0 unused)."""
    specials: np.ndarray
    """[G, 6] its C B D M R joker counts."""
    destination: np.ndarray
    """[G] the destination number."""
    destination_card: np.ndarray
    """[G] bool: a destination card lies on the table."""
    revealed: np.ndarray
    """[G, 16] number cards revealed this round (column 0 unused)."""
    specials_held: np.ndarray
    """[G, n] how many specials each seat holds (absolute seat order)."""
    mask: np.ndarray
    """[G, 195] int8: the seat's legal actions this turn."""
    deck: np.ndarray
    """[16] the game's deck by number (column 0 unused): the view's ``deck``."""


def observation_index(observer: AsrusObserver) -> np.ndarray:
    """Gather index ``[n, D]``: entry i of seat s's observation comes from entry
    ``index[s, i]`` of a source row laid out as one observation in absolute seat
    order (per-player fields from seat 0 on), followed by every seat's own hand
    and specials (``n`` blocks of 21 floats)."""
    n, size = observer.config.num_players, observer.size
    index = np.tile(np.arange(size), (n, 1))
    for seat in range(n):
        for name, width in observer.PER_PLAYER.items():
            lo = observer.offsets[name][0]
            for rel in range(n):
                source = lo + width * ((seat + rel) % n)
                index[seat, lo + width * rel : lo + width * (rel + 1)] = range(
                    source, source + width
                )
        private = size + 21 * seat
        index[seat, :21] = range(private, private + 21)
    return index


def as_int_array(values: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``values`` as an int64 array of ``shape``; anything else is an OptionError."""
    array = np.asarray(values)
    if array.shape != shape or not (
        np.issubdtype(array.dtype, np.integer) and array.dtype != np.bool_
    ):
        raise OptionError(
            f"{what} must be integer action ids of shape {shape}, got dtype {array.dtype} "
            f"shape {array.shape}"
        )
    return array.astype(np.int64, copy=False)


class VectorAsrus:
    """``num_games`` Asrus games stepped together (see the module docstring)."""

    def __init__(
        self, num_games: int, auto_reset: bool = False, dealing: str = "exact", **options: Any
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise OptionError(f"num_games={num_games!r} is not allowed; allowed: an integer >= 1")
        if dealing not in DEALINGS:
            raise OptionError(f"dealing={dealing!r} is not allowed; allowed values: {DEALINGS}")
        self.dealing = dealing
        if options.get("render_mode") is not None:
            raise OptionError(
                f"option render_mode={options['render_mode']!r} is not covered by the vector "
                f"engine, which draws nothing; allowed: None (render one game with "
                f"to_game(b) and the scalar env's observer)"
            )
        self.options = resolve_options(raw_env.option_table(), options)
        self.config = config_from_options(self.options)
        self.num_games = num_games
        self.num_players = n = self.config.num_players
        self.auto_reset = auto_reset
        self.reward_mode: str = self.options["reward"]
        self.penalize: bool = self.options["illegal_action"] == "penalize"
        self.max_steps: int | None = self.options["max_steps"]
        self.observer = AsrusObserver(self.config)
        self.observation_size = observation_size(n)
        self._index = observation_index(self.observer)
        self._at = {name: lo for name, (lo, _) in self.observer.offsets.items()}
        self._deck = np.array(full_number_pile(self.config), dtype=np.int64)
        self._special_deck = np.array(full_special_pile(self.config.jokers), dtype=np.int64)
        self._deck_cards = np.repeat(np.arange(16), self._deck)
        """The deck laid out card by card in number order (``dealing="fast"``)."""
        self._special_cards = np.repeat(np.arange(6), self._special_deck)
        self._eliminated_at = math.ceil(n / 4)
        self._private_scale = np.array([1.0 / 8.0] * 15 + [1.0 / 3.0] * 6, dtype=np.float32)
        self._allocate(num_games)
        self.rngs: list[np.random.Generator] = [make_rng(None) for _ in range(num_games)]
        self._dealt = False
        self._observation_cache: np.ndarray | None = None
        self._seat_range = np.arange(n)
        self._rotated_seats = (self._seat_range[:, None] + self._seat_range[None, :]) % n
        """[s, rel]: the seat ``rel`` places after ``s`` (the observation's order)."""
        self._game_rows = np.arange(num_games) * n
        self._all_games = np.arange(num_games)
        self._source_rows = (np.arange(num_games) * (self.observation_size + 21 * n))[:, None]

    # ---- state ---------------------------------------------------------------

    def _allocate(self, b: int) -> None:
        n = self.num_players
        ints = np.int64
        self.holdings = np.zeros((b, n, HOLDING_COLUMNS), dtype=np.float32)
        """[B, n, 22] every seat's cards (see :data:`HOLDING_COLUMNS`), as float32
        like the scalar engine's ``holdings()``: the observation scales it as is."""
        self.cards_left = np.zeros(b, dtype=ints)
        """Number cards in each hand (every hand of a game holds as many)."""
        self.specials_count = np.zeros((b, n), dtype=ints)
        """Special cards each seat holds."""
        self.legal = np.zeros((b, n, 15, NUM_SLOTS), dtype=bool)
        """[B, n, number - 1, slot]: what each seat may commit this turn. Built at a
        deal and kept up to date as cards are played (a number's row, or a
        special's slots, cleared when the last copy goes), as the scalar engine
        keeps its masks."""
        self.points = np.zeros((b, n), dtype=ints)
        self.deposit = np.zeros(b, dtype=ints)
        self.table_points = np.zeros(b, dtype=ints)
        self.number_pile = np.zeros((b, 16), dtype=ints)
        self.special_pile = np.zeros((b, 6), dtype=ints)
        self.destination = np.zeros(b, dtype=ints)
        self.destination_card = np.zeros(b, dtype=bool)
        self.round = np.ones(b, dtype=ints)
        self.turn = np.ones(b, dtype=ints)
        self.pending = np.full((b, n), -1, dtype=ints)
        """[B, n] this turn's committed action ids; -1 not yet."""
        self.committed = np.zeros(b, dtype=ints)
        self.revealed = np.zeros((b, 16), dtype=ints)
        self.last_plays = np.full((b, n), -1, dtype=ints)
        """[B, n] the last resolved turn's action ids (-1 while there is none)."""
        self.last_kind = np.full(b, -1, dtype=ints)
        """Index into :data:`OUTCOME_KINDS` of the last turn; -1 while there is none."""
        self.last_winner = np.full(b, -1, dtype=ints)
        self.last_distance = np.zeros(b, dtype=ints)
        self.last_destination = np.zeros(b, dtype=ints)
        self.last_deltas = np.zeros((b, n), dtype=ints)
        self.last_deposit_before = np.zeros(b, dtype=ints)
        self.last_deposit_after = np.zeros(b, dtype=ints)
        self.last_blackhole = np.zeros(b, dtype=bool)
        self.lottery_winners = np.zeros((b, n), dtype=bool)
        """[B, n] winners of the lottery that ended the last turn's round (none: all False)."""
        self.lottery_paid = np.zeros(b, dtype=ints)
        """Points that lottery paid out (share x winners)."""
        self.lotteries: list[LotteryResult | None] = [None] * b
        """The last turn's lottery of each game, as the scalar engine records it."""
        self.over = np.zeros(b, dtype=bool)
        """Over by the rules."""
        self.steps = np.zeros(b, dtype=ints)
        """Actions applied since the game's reset (what ``max_steps`` caps)."""
        self.penalized = np.full(b, -1, dtype=ints)
        """Seat that took an illegal action under ``illegal_action="penalize"``; -1 none."""
        self.truncated = np.zeros(b, dtype=bool)

    @property
    def done(self) -> np.ndarray:
        """[B] bool: over by the rules, penalized, or truncated."""
        return self.over | self.truncated | (self.penalized >= 0)

    # ---- dealing ---------------------------------------------------------------

    def reset(
        self,
        seeds: Sequence[int | None] | np.ndarray | None = None,
        scenarios: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
    ) -> None:
        """Deal every game (see the module docstring)."""
        self.reset_games(np.arange(self.num_games), seeds, scenarios)

    def reset_games(
        self,
        games: Sequence[int] | np.ndarray,
        seeds: Sequence[int | None] | np.ndarray | None = None,
        scenarios: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
    ) -> None:
        """Deal the games listed in ``games``; the others are untouched. ``seeds``
        and ``scenarios`` have one entry per listed game (a single scenario dict
        applies to all of them)."""
        idx = np.asarray(games, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_games):
            raise OptionError(f"games {idx.tolist()} must be indices 0..{self.num_games - 1}")
        if seeds is not None:
            seeds = list(seeds)
            if len(seeds) != idx.size:
                raise OptionError(f"reset needs one seed per game: {idx.size}, got {len(seeds)}")
            for seed in seeds:
                check_seed(seed)
        setups = self._scenarios(scenarios, idx.size)
        given = seeds if seeds is not None else [None] * idx.size
        rngs = [
            make_rng(int(seed)) if seed is not None
            else copy_rng(self.rngs[b]) if setups[i]
            else self.rngs[b]
            for i, (b, seed) in enumerate(zip(idx.tolist(), given, strict=True))
        ]  # fmt: skip
        # A scenario deals from a copy: if it cannot be dealt, nothing has changed.
        games_given = [i for i, s in enumerate(setups) if s]
        scalar = {
            i: new_game_from_scenario(self.config, rngs[i], setups[i]) for i in games_given
        }  # raises OptionError before anything changes
        for i, b in enumerate(idx.tolist()):
            self.rngs[b] = rngs[i]
        self._clear(idx)
        plain = np.array([b for i, b in enumerate(idx.tolist()) if i not in scalar], dtype=np.int64)
        if plain.size:
            self.points[plain] = self.config.starting_points
            self.deposit[plain] = 0
            self.table_points[plain] = self.config.starting_points * self.num_players
            self._deal(plain)
        for i, game in scalar.items():
            self._load_one(int(idx[i]), game, 0)
        self._dealt = True
        self._observation_cache = None

    def _scenarios(self, scenarios: Any, count: int) -> list[dict[str, Any]]:
        if scenarios is None:
            return [{}] * count
        if isinstance(scenarios, dict):
            return [dict(scenarios)] * count
        scenarios = list(scenarios)
        if len(scenarios) != count or any(
            s is not None and not isinstance(s, dict) for s in scenarios
        ):
            raise OptionError(
                f"scenarios must be one dict (or None) per game reset ({count}), or one dict "
                f"for all"
            )
        return [dict(s or {}) for s in scenarios]

    def _clear(self, idx: np.ndarray) -> None:
        """Bookkeeping of a new game: no last turn, no lottery, not done."""
        self.round[idx] = 1
        self.last_plays[idx] = -1
        self.last_kind[idx] = -1
        self.last_winner[idx] = -1
        self.last_distance[idx] = 0
        self.last_destination[idx] = 0
        self.last_deltas[idx] = 0
        self.last_deposit_before[idx] = 0
        self.last_deposit_after[idx] = 0
        self.last_blackhole[idx] = False
        self.lottery_winners[idx] = False
        self.lottery_paid[idx] = 0
        for b in idx.tolist():
            self.lotteries[b] = None
        self.over[idx] = False
        self.truncated[idx] = False
        self.steps[idx] = 0
        self.penalized[idx] = -1

    def _deal(self, idx: np.ndarray) -> None:
        """Preparation of a round in the games ``idx`` (the scalar engine's
        ``deal_round`` without a scenario), for all of them at once."""
        config, n = self.config, self.num_players
        g = idx.size
        pile = np.tile(self._deck, (g, 1))
        special_pile = np.tile(self._special_deck, (g, 1))
        holdings = np.zeros((g, n, HOLDING_COLUMNS), dtype=np.int64)
        holdings[:, :, 0] = 1
        rngs = [self.rngs[b] for b in idx.tolist()]
        deal = self._deal_exact if self.dealing == "exact" else self._deal_fast
        dest = deal(pile, special_pile, holdings, rngs)
        self.destination_card[idx] = config.fixed_destination is None
        self.destination[idx] = dest
        self.holdings[idx] = holdings
        self.cards_left[idx] = config.hand_size
        self.specials_count[idx] = config.specials_per_player
        self._rebuild_legal(idx)
        self.number_pile[idx] = pile
        self.special_pile[idx] = special_pile
        self.pending[idx] = -1
        self.committed[idx] = 0
        self.revealed[idx] = 0
        self.turn[idx] = 1

    def _deal_exact(
        self,
        pile: np.ndarray,
        special_pile: np.ndarray,
        holdings: np.ndarray,
        rngs: list[np.random.Generator],
    ) -> np.ndarray:
        """``dealing="exact"``: each game's generator makes the scalar engine's
        calls in the same order (per seat a hand, then its specials; then the
        destination), so the same seed deals the same cards; turning shuffled
        positions into cards is done for every game in one pass. Fills the piles
        and holdings in place; returns the destinations."""
        config = self.config
        for seat in range(self.num_players):
            holdings[:, seat, :16] += draw_counts(pile, config.hand_size, rngs)
            holdings[:, seat, SPECIALS_AT:] = draw_counts(
                special_pile, config.specials_per_player, rngs
            )
        if config.fixed_destination is None:
            return draw_counts(pile, 1, rngs).argmax(axis=1)
        return np.full(len(rngs), config.fixed_destination)

    def _deal_fast(
        self,
        pile: np.ndarray,
        special_pile: np.ndarray,
        holdings: np.ndarray,
        rngs: list[np.random.Generator],
    ) -> np.ndarray:
        """``dealing="fast"``: one call per game draws a random key for every card
        of both decks; sorting the keys shuffles the decks, which are dealt off
        the top (each hand, then the destination; each special hand). The same
        uniform deal, decided by the game's own generator, at a fraction of the
        cost, but not the cards the scalar engine deals from that seed.
        Fills the piles and holdings in place; returns the destinations."""
        config, n = self.config, self.num_players
        g = len(rngs)
        size, special_size = self._deck_cards.size, self._special_cards.size
        keys = np.empty((g, size + special_size))
        for i, rng in enumerate(rngs):
            keys[i] = rng.random(size + special_size)
        cards = self._deck_cards[np.argsort(keys[:, :size], axis=1)]
        specials = self._special_cards[np.argsort(keys[:, size:], axis=1)]
        hand, given = config.hand_size, config.specials_per_player
        owner = np.repeat(np.arange(g * n), hand)  # (game, seat) of each card dealt
        dealt = cards[:, : n * hand].ravel()
        hands = np.bincount(owner * 16 + dealt, minlength=g * n * 16).reshape(g, n, 16)
        owner = np.repeat(np.arange(g * n), given)
        dealt = specials[:, : n * given].ravel()
        held = np.bincount(owner * 6 + dealt, minlength=g * n * 6).reshape(g, n, 6)
        holdings[:, :, 1:16] = hands[:, :, 1:]
        holdings[:, :, SPECIALS_AT:] = held
        pile -= hands.sum(axis=1)
        special_pile -= held.sum(axis=1)
        if config.fixed_destination is None:
            dest = cards[:, n * hand]
            pile[np.arange(g), dest] -= 1
            return dest
        return np.full(g, config.fixed_destination)

    # ---- scalar games in and out -------------------------------------------------

    def load_games(self, games: Sequence[AsrusGame], steps: Sequence[int] | None = None) -> None:
        """Load one scalar game per slot (their generators copied); ``steps``: the
        actions each game has applied so far (for ``max_steps``; default 0)."""
        if len(games) != self.num_games:
            raise OptionError(f"load_games needs {self.num_games} games, got {len(games)}")
        for b, game in enumerate(games):
            if game.config != self.config:
                raise OptionError(
                    f"game {b} was made with {game.config}, this engine plays {self.config}"
                )
            self._clear(np.array([b]))
            self._load_one(b, game, 0 if steps is None else int(steps[b]))
        self._dealt = True
        self._observation_cache = None

    def _load_one(self, b: int, game: AsrusGame, steps: int) -> None:
        self.rngs[b] = copy_rng(game.rng)
        rows = [hand + held for hand, held in zip(game.hands, game.specials, strict=True)]
        self.holdings[b] = rows
        self.holdings[b, :, 0] = 1
        self.cards_left[b] = sum(game.hands[0])
        self.specials_count[b] = [sum(held) for held in game.specials]
        self._rebuild_legal(np.array([b]))
        self.points[b] = game.points
        self.deposit[b] = game.deposit
        self.table_points[b] = game.table_points
        self.number_pile[b] = game.number_pile
        self.special_pile[b] = game.special_pile
        self.destination[b] = game.destination
        self.destination_card[b] = game.destination_card
        self.round[b] = game.round
        self.turn[b] = game.turn
        self.pending[b] = [-1 if p is None else PLAYS.index(p) for p in game.pending]
        self.committed[b] = game.committed
        self.revealed[b] = game.revealed
        result = game.last_result
        if result is not None:
            self.last_plays[b] = [PLAYS.index(p) for p in result.plays]
            self.last_kind[b] = KIND[result.outcome.kind]
            winner = result.outcome.winner
            self.last_winner[b] = -1 if winner is None else winner
            self.last_distance[b] = result.outcome.distance
            self.last_destination[b] = result.destination
            self.last_deltas[b] = result.deltas
            self.last_deposit_before[b] = result.deposit_before
            self.last_deposit_after[b] = result.deposit_after
            self.last_blackhole[b] = result.blackhole
        lottery = game.last_lottery
        self.lotteries[b] = lottery
        if lottery is not None:
            self.lottery_winners[b, list(lottery.winners)] = True
            self.lottery_paid[b] = lottery.share * len(lottery.winners)
        self.over[b] = game.over
        self.steps[b] = steps
        self.truncated[b] = self._capped(np.array([b]))[0]

    def to_game(self, b: int) -> AsrusGame:
        """Game ``b`` as a scalar engine object (its generator copied): for a view,
        rendering, saving (``to_dict``) or continuing it alone."""
        held = self.holdings[b].astype(np.int64)
        hands = held[:, :16].copy()
        hands[:, 0] = 0
        result = None
        if self.last_kind[b] >= 0:
            winner = int(self.last_winner[b])
            result = TurnResult(
                destination=int(self.last_destination[b]),
                plays=tuple(PLAYS[a] for a in self.last_plays[b].tolist()),
                outcome=Outcome(
                    OUTCOME_KINDS[self.last_kind[b]],
                    None if winner < 0 else winner,
                    int(self.last_distance[b]),
                ),
                deltas=tuple(self.last_deltas[b].tolist()),
                deposit_before=int(self.last_deposit_before[b]),
                deposit_after=int(self.last_deposit_after[b]),
                blackhole=bool(self.last_blackhole[b]),
            )
        game = AsrusGame(
            config=self.config,
            rng=copy_rng(self.rngs[b]),
            hands=hands.tolist(),
            specials=held[:, SPECIALS_AT:].tolist(),
            points=self.points[b].tolist(),
            number_pile=self.number_pile[b].tolist(),
            special_pile=self.special_pile[b].tolist(),
            destination=int(self.destination[b]),
            destination_card=bool(self.destination_card[b]),
            deposit=int(self.deposit[b]),
            table_points=int(self.table_points[b]),
            round=int(self.round[b]),
            turn=int(self.turn[b]),
            pending=[None if a < 0 else PLAYS[a] for a in self.pending[b].tolist()],
            committed=int(self.committed[b]),
            revealed=self.revealed[b].tolist(),
            last_result=result,
            last_lottery=self.lotteries[b],
            over=bool(self.over[b]),
        )
        return game

    # ---- what the seats see -------------------------------------------------------

    def current_players(self) -> np.ndarray:
        """[B] the seat to act in each game; -1 where the game is done."""
        return np.where(self.done, -1, self.committed)

    def _mask_table(self) -> np.ndarray:
        """Every seat's legal mask this turn, ``[B, n, 195]`` int8: a view of
        :attr:`legal` (read-only for callers, who get copies)."""
        self._require_dealt()
        return self.legal.view(np.int8).reshape(self.num_games, self.num_players, NUM_ACTIONS)

    def _rebuild_legal(self, idx: np.ndarray) -> None:
        """:attr:`legal` of the games ``idx`` from their holdings: a number card
        held, with nothing, a special held, or a joker declared as any power."""
        held = self.holdings[idx]
        has_number = held[:, :, 1:16] > 0
        slot_ok = held[:, :, SLOT_COLUMNS] > 0
        self.legal[idx] = has_number[:, :, :, None] & slot_ok[:, :, None, :]

    def _source(self) -> np.ndarray:
        """:meth:`_observation_source`, built once per turn: cards and public fields
        change only when a turn resolves or a game is dealt (the committed flags,
        which change at every step, are written by each call)."""
        if self._observation_cache is None:
            self._require_dealt()
            self._observation_cache = self._observation_source()
        return self._observation_cache

    def _observation_table(self) -> np.ndarray:
        """Every seat's observation ``[B, n, D]`` with the committed flags 0: one
        gather of the source through :func:`observation_index`."""
        return self._source().take(self._index, axis=1)

    def _rows(self, seats: np.ndarray) -> np.ndarray:
        """Row of ``(game b, seats[b])`` in arrays flattened to ``[B * n, ...]``."""
        return self._game_rows + np.maximum(seats, 0)

    def legal_masks_of(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[G, 195] int8 legal actions of ``seats[i]`` in ``games[i]`` this turn
        (whatever the game's state: callers zero the rows of finished games)."""
        masks = self._mask_table()
        rows = np.asarray(games) * self.num_players + np.asarray(seats)
        return masks.reshape(-1, NUM_ACTIONS).take(rows, axis=0)

    def masks(self, seats: np.ndarray | None = None, to_act_only: bool = False) -> np.ndarray:
        """[B, n, 195] int8 (see the module docstring), or [B, 195] with ``seats``
        (one seat per game, e.g. :meth:`current_players`)."""
        table = self._mask_table()
        live = ~self.done
        if seats is not None:
            seats = np.asarray(seats)
            masks = table.reshape(-1, NUM_ACTIONS).take(self._rows(seats), axis=0)
            if to_act_only:
                live &= seats == self.committed
            if not live.all():
                masks[~live] = 0
            return masks
        masks = table.copy()
        if to_act_only:
            masks *= (self._seat_range[None, :] == self.committed[:, None])[:, :, None]
        if not live.all():
            masks[~live] = 0
        return masks

    def observations(self, seats: np.ndarray | None = None) -> np.ndarray:
        """[B, n, D] float32, or [B, D] with ``seats`` (one seat per game)."""
        lo, hi = self.observer.offsets["committed"]
        if seats is None:
            out = self._observation_table()
            out[:, :, lo:hi] = self._rotated_seats[None] < self.committed[:, None, None]
            return out
        source = self._source()
        seats = np.maximum(np.asarray(seats), 0)
        first = seats[0]
        if (seats == first).all():  # the usual case: every game at the same seat
            out = source.take(self._index[first], axis=1)
        else:
            out = source.reshape(-1).take(self._index[seats] + self._source_rows)
        out[:, lo:hi] = self._rotated_seats[seats] < self.committed[:, None]
        return out

    def observations_of(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[G, D] float32: the observation of ``seats[i]`` in ``games[i]`` (rows of
        :meth:`observations`), gathered for those pairs alone."""
        lo, hi = self.observer.offsets["committed"]
        games, seats = np.asarray(games), np.asarray(seats)
        out = self._source().reshape(-1).take(self._index[seats] + self._source_rows[games])
        out[:, lo:hi] = self._rotated_seats[seats] < self.committed[games, None]
        return out

    def _require_dealt(self) -> None:
        if not self._dealt:
            raise RuntimeError("asrus vector engine: call reset() before using it")

    def _observation_source(self) -> np.ndarray:
        """[B, D + 21n]: every public field in absolute seat order, then every
        seat's hand and specials; :meth:`observations` gathers each seat's vector
        from it. The same arithmetic as :class:`AsrusObserver` (each ratio
        computed in float64 and stored as float32), so the floats are identical.
        The one-hot fields are written as one scatter of ones."""
        b, n, at = self.num_games, self.num_players, self._at
        size = self.observation_size
        width = size + 21 * n
        source = np.zeros((b, width), dtype=np.float32)
        source.reshape(-1)[self._ones_at()] = 1.0
        total = np.maximum(1, self.points.sum(axis=1) + self.deposit)
        source[:, at["deposit"]] = self.deposit / total
        source[:, at["points"] : at["points"] + n] = self.points / total[:, None]
        held = self.specials_count / float(self.config.special_deck_size)
        source[:, at["specials_held"] : at["specials_held"] + n] = held
        source[:, at["hand_left"]] = self.cards_left / self.config.max_hand_size
        source[:, at["revealed"] : at["revealed"] + 15] = self.revealed[:, 1:] / 8.0
        progress = at["progress"]
        hand_size = np.maximum(1, self.cards_left + self.turn - 1)
        source[:, progress] = np.minimum(1.0, (self.turn - 1) / hand_size)
        if self.config.rounds:
            source[:, progress + 1] = np.minimum(1.0, (self.round - 1) / self.config.rounds)
        source[:, at["lottery_amount"]] = self.lottery_paid / total
        private = self.holdings[:, :, 1:] * self._private_scale
        source[:, size:] = private.reshape(b, 21 * n)
        return source

    def _ones_at(self) -> np.ndarray:
        """Flat positions in the observation source of every entry that is 1: the
        destination, its card, the last turn's cards, slots, kind, winner and
        blackhole, and the lottery's winners."""
        n, at = self.num_players, self._at
        width = self.observation_size + 21 * n
        rows = np.arange(self.num_games) * width
        seats = np.arange(n)[None, :]
        have = np.flatnonzero(self.last_kind >= 0)
        plays = self.last_plays[have]
        won = have[self.last_winner[have] >= 0]
        lottery_game, lottery_seat = np.nonzero(self.lottery_winners)
        parts = [
            rows + at["destination"] + self.destination - 1,
            rows[self.destination_card] + at["destination_card"],
            (rows[have, None] + at["last_numbers"] + 15 * seats + ACTION_NUMBER[plays] - 1).ravel(),
            (
                rows[have, None] + at["last_specials"] + NUM_SLOTS * seats + ACTION_SLOT[plays]
            ).ravel(),
            rows[have] + at["last_kind"] + self.last_kind[have],
            rows[won] + at["last_winner"] + self.last_winner[won],
            rows[self.last_blackhole] + at["last_blackhole"],
            rows[lottery_game] + at["lottery_winner"] + lottery_seat,
        ]
        return np.concatenate(parts)

    def views(self, games: np.ndarray, seats: np.ndarray) -> SeatView:
        """What ``seats[i]`` of ``games[i]`` may see (see :class:`SeatView`)."""
        games, seats = np.asarray(games), np.asarray(seats)
        held = self.holdings[games, seats].astype(np.int64)
        hand = held[:, :16].copy()
        hand[:, 0] = 0
        mask = self.legal_masks_of(games, seats).copy()
        mask[self.done[games]] = 0
        return SeatView(
            game=games,
            seat=seats,
            hand=hand,
            specials=held[:, SPECIALS_AT:],
            destination=self.destination[games],
            destination_card=self.destination_card[games],
            revealed=self.revealed[games],
            specials_held=self.specials_count[games],
            mask=mask,
            deck=self._deck,
        )

    def scores(self) -> np.ndarray:
        """[B, n] game points."""
        return self.points.astype(np.float64)

    def winners(self) -> np.ndarray:
        """[B, n] bool: the seats with the most points, in games over by the rules
        (a truncated or penalized game has no winner)."""
        best = self.points.max(axis=1, keepdims=True)
        return (self.points == best) & self.over[:, None]

    # ---- stepping ----------------------------------------------------------------

    def step(
        self, actions: Sequence[int] | np.ndarray, games: Sequence[int] | np.ndarray | None = None
    ) -> StepResult:
        """Each live game's seat to act commits ``actions[b]`` (module docstring);
        with ``games`` (sorted, unique indices), only the live games listed do."""
        self._require_dealt()
        actions = as_int_array(actions, (self.num_games,), "step actions")
        done = self.done
        live = np.flatnonzero(~done) if done.any() else self._all_games
        if games is not None:
            live = np.intersect1d(live, np.asarray(games, dtype=np.int64), assume_unique=True)
        rewards = np.zeros((self.num_games, self.num_players))
        seats = self.committed[live]
        chosen = actions[live]
        legal = self._legal(live, seats, chosen)
        if not legal.all():
            bad = live[~legal]
            if not self.penalize:
                self._raise_illegal(int(bad[0]), int(self.committed[bad[0]]), actions[bad[0]])
            self._penalize(bad, self.committed[bad], rewards)
            live, seats, chosen = live[legal], seats[legal], chosen[legal]
        self.pending.reshape(-1)[live * self.num_players + seats] = chosen
        sel = every(live, self.num_games)
        self.committed[sel] += 1
        self.steps[sel] += 1
        self._after_commits(live, rewards)
        return self._finish_step(rewards)

    def step_turn(self, actions: Sequence[Sequence[int]] | np.ndarray) -> StepResult:
        """Every seat of every live game commits at once (module docstring)."""
        self._require_dealt()
        n = self.num_players
        actions = as_int_array(actions, (self.num_games, n), "step_turn actions")
        live = np.flatnonzero(~self.done)
        started = live[self.committed[live] > 0]
        if started.size:
            b = int(started[0])
            raise OptionError(
                f"step_turn plays a whole turn, but game {b} has {self.committed[b]} seat(s) "
                f"committed this turn; commit the rest with step()"
            )
        rewards = np.zeros((self.num_games, n))
        g = live.size
        legal = self._legal(
            np.repeat(live, n), np.tile(np.arange(n), g), actions[live].reshape(-1)
        ).reshape(g, n)
        first_illegal = np.where(legal.all(axis=1), n, legal.argmin(axis=1))
        if not self.penalize and (first_illegal < n).any():
            row = int(np.flatnonzero(first_illegal < n)[0])
            seat = int(first_illegal[row])
            self._raise_illegal(int(live[row]), seat, actions[live[row], seat])
        room = n if self.max_steps is None else self.max_steps - self.steps[live]
        commits = np.minimum(np.minimum(first_illegal, room), n)
        seats = np.arange(n)[None, :] < commits[:, None]
        self.pending[live] = np.where(seats, actions[live], -1)
        self.committed[live] = commits
        self.steps[live] += commits
        offenders = (first_illegal < n) & (first_illegal < room)
        if offenders.any():
            self._penalize(live[offenders], first_illegal[offenders], rewards)
        self._after_commits(live[~offenders], rewards)
        return self._finish_step(rewards)

    def step_seats(
        self,
        actions: Sequence[Sequence[int]] | np.ndarray,
        until: Sequence[int] | np.ndarray,
        games: Sequence[int] | np.ndarray | None = None,
    ) -> StepResult:
        """Each live game listed (every live game by default) commits its seats
        from the one to act up to, not including, ``until[b]``, seat ``s`` playing
        ``actions[b, s]`` (module docstring): what that many :meth:`step` calls
        do, in one call."""
        self._require_dealt()
        n = self.num_players
        actions = as_int_array(actions, (self.num_games, n), "step_seats actions")
        until = as_int_array(until, (self.num_games,), "step_seats until")
        live = np.flatnonzero(~self.done)
        if games is not None:
            live = np.intersect1d(live, np.asarray(games, dtype=np.int64), assume_unique=True)
        start, stop = self.committed[live], until[live]
        wrong = (stop < start) | (stop > n)
        if wrong.any():
            b = int(live[np.argmax(wrong)])
            raise OptionError(
                f"step_seats until[{b}]={until[b]}: game {b} has {self.committed[b]} seat(s) "
                f"committed this turn; allowed: {self.committed[b]}..{n}"
            )
        rewards = np.zeros((self.num_games, n))
        seats = np.arange(n)[None, :]
        span = (seats >= start[:, None]) & (seats < stop[:, None])
        legal = self._legal(
            np.repeat(live, n), np.tile(np.arange(n), live.size), actions[live].reshape(-1)
        ).reshape(live.size, n)
        legal |= ~span
        first_illegal = np.where(legal.all(axis=1), n, legal.argmin(axis=1))
        if not self.penalize and (first_illegal < n).any():
            row = int(np.flatnonzero(first_illegal < n)[0])
            seat = int(first_illegal[row])
            self._raise_illegal(int(live[row]), seat, actions[live[row], seat])
        cap = stop if self.max_steps is None else start + (self.max_steps - self.steps[live])
        end = np.minimum(np.minimum(first_illegal, cap), stop)
        commit = (seats >= start[:, None]) & (seats < end[:, None])
        self.pending[live] = np.where(commit, actions[live], self.pending[live])
        self.committed[live] = end
        self.steps[live] += end - start
        offenders = (first_illegal < n) & (first_illegal < cap)
        if offenders.any():
            self._penalize(live[offenders], first_illegal[offenders], rewards)
        self._after_commits(live[~offenders], rewards)
        return self._finish_step(rewards)

    def _legal(self, games: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """[G] bool: ``actions[i]`` is legal for ``seats[i]`` of ``games[i]``."""
        in_range = (actions >= 0) & (actions < NUM_ACTIONS)
        rows = games * self.num_players + seats
        flat = rows * NUM_ACTIONS + np.where(in_range, actions, 0)
        return in_range & (self._mask_table().reshape(-1).take(flat) > 0)

    def _raise_illegal(self, b: int, seat: int, action: Any) -> None:
        legal = np.flatnonzero(self.legal_masks_of(np.array([b]), np.array([seat]))[0])
        shown = action_text(int(action)) if 0 <= action < NUM_ACTIONS else "out of range 0..194"
        raise IllegalActionError(
            f"{agent_name(seat)} of game {b}",
            int(action),
            shown,
            [action_text(int(a)) for a in legal],
        )

    def _penalize(self, games: np.ndarray, seats: np.ndarray, rewards: np.ndarray) -> None:
        """End these games: -1 to the offender, 0 to the others (as the AEC env)."""
        self.penalized[games] = seats
        rewards[games] = 0.0
        rewards[games, seats] = -1.0

    def _after_commits(self, games: np.ndarray, rewards: np.ndarray) -> None:
        """Resolve the turns that every seat has committed, pay the step's rewards,
        and mark games over or cut short by the cap."""
        complete = self.committed[every(games, self.num_games)] == self.num_players
        full = games if complete.all() else games[complete]
        if full.size:
            before = self.points[full].copy()
            self._resolve(full)
            if self.reward_mode == "score":
                rewards[full] = self.points[full] - before
            ended = full[self.over[full]]
            if ended.size and self.reward_mode != "score":
                rewards[ended] += self._final_rewards(ended)
        if self.max_steps is not None:
            self.truncated[games[self._capped(games)]] = True

    def _capped(self, games: np.ndarray) -> np.ndarray:
        if self.max_steps is None:
            return np.zeros(len(games), dtype=bool)
        sel = every(games, self.num_games)
        return (self.steps[sel] >= self.max_steps) & ~self.over[sel]

    def _final_rewards(self, games: np.ndarray) -> np.ndarray:
        """``core.rewards.win_rewards`` / ``rank_rewards`` of the games ended, for
        all of them at once (the same float operations)."""
        n = self.num_players
        points = self.points[games]
        if self.reward_mode == "win":
            return win_reward_table(points == points.max(axis=1, keepdims=True))
        better = (points[:, None, :] > points[:, :, None]).sum(axis=2)
        tied = (points[:, None, :] == points[:, :, None]).sum(axis=2)
        mean_rank = (better + (better + tied - 1)) / 2
        return 1.0 - 2.0 * mean_rank / (n - 1)

    def _finish_step(self, rewards: np.ndarray) -> StepResult:
        terminated = self.over | (self.penalized >= 0)
        truncated = self.truncated.copy()
        if not self.auto_reset:
            return StepResult(rewards, terminated, truncated)
        ended = np.flatnonzero(terminated | truncated)
        if not ended.size:
            return StepResult(rewards, terminated, truncated)
        final_obs = np.zeros((self.num_games, self.num_players, self.observation_size),
                             dtype=np.float32)  # fmt: skip
        final_obs[ended] = self.observations()[ended]
        final_scores = np.zeros((self.num_games, self.num_players))
        final_scores[ended] = self.points[ended]
        final_winners = np.zeros((self.num_games, self.num_players), dtype=bool)
        final_winners[ended] = self.winners()[ended]
        self.reset_games(ended)
        return StepResult(rewards, terminated, truncated, final_obs, final_scores, final_winners)

    # ---- a turn resolved, in every game at once ----------------------------------

    def _resolve(self, idx: np.ndarray) -> None:
        """Reveal the games ``idx`` whose seats have all committed: decide the
        winner, move points and cards, then end rounds and games. The same
        order of rules as ``rules.decide_winner`` / ``settle`` /
        ``AsrusGame._resolve``."""
        self._observation_cache = None
        rules = self.config
        g = idx.size
        rows = np.arange(g)
        sel = every(idx, self.num_games)
        plays = self.pending[sel].copy()
        number = ACTION_NUMBER[plays]
        slot = ACTION_SLOT[plays]
        power = SLOT_POWER[slot]
        destination = self.destination[idx]
        original = np.abs(number - destination[:, None])

        explosion = (power == EXPLOSION).any(axis=1)
        counts = per_game_counts(np.repeat(rows, number.shape[1]), number.ravel(), g, 16)
        most = counts.max(axis=1, keepdims=True)
        major = counts == most
        if rules.majority_ties == "none":
            major &= (major.sum(axis=1) == 1)[:, None]
        on_number = major.reshape(-1).take(rows[:, None] * 16 + number)
        on_major = (power == MAJORITY) & on_number & (original > 0)
        by_majority = ~explosion & (on_major.sum(axis=1) == 1)
        majority_seat = on_major.argmax(axis=1)

        adjusted = 2 * original - (power == CLOSE)  # doubled, so Close's 0.5 stays whole
        by_value = per_game_counts(np.repeat(rows, number.shape[1]), adjusted.ravel() + 1, g, 30)
        same = by_value.reshape(-1).take(rows[:, None] * 30 + adjusted + 1)
        unique = (adjusted > 0) & (same == 1)
        retrogrades = (power == RETROGRADE).sum(axis=1)
        reversed_turn = retrogrades % 2 == 1 if rules.retrogrades == "cancel" else retrogrades > 0
        closest = np.where(unique, adjusted, FAR).argmin(axis=1)
        farthest = np.where(unique, adjusted, -1).argmax(axis=1)
        by_distance = ~explosion & ~by_majority & unique.any(axis=1)
        draw = ~explosion & ~by_majority & ~by_distance

        kind = np.full(g, DRAW_KIND)
        kind[explosion] = EXPLOSION_KIND
        kind[by_majority] = MAJORITY_KIND
        kind[by_distance] = np.where(reversed_turn, FARTHEST_KIND, CLOSEST_KIND)[by_distance]
        winner = np.where(by_majority, majority_seat, np.where(reversed_turn, farthest, closest))
        has_winner = by_majority | by_distance
        winner = np.where(has_winner, winner, -1)
        safe_winner = np.maximum(winner, 0)
        distance = np.where(has_winner, original[rows, safe_winner], 0)
        smallest = np.where(original > 0, original, FAR).min(axis=1)
        smallest = np.where(smallest == FAR, 0, smallest)
        if rules.retrograde_deposit == "farthest":
            deposit_each = np.where(reversed_turn, original.max(axis=1), smallest)
        else:
            deposit_each = smallest
        distance = np.where(draw, deposit_each, distance)

        points = self.points[sel].copy()
        deposit = self.deposit[sel].copy()
        win_power = power[rows, safe_winner]
        win_number = number[rows, safe_winner]
        factor = np.where(win_power == DOUBLE, 2, np.where(win_power == TRIPLE, 3, 1))
        factor *= np.where((win_number == 1) | (win_number == 15), 2, 1)
        owed = np.where(draw, distance, distance * factor)
        owed = np.where(explosion, 0, owed)
        deltas = -np.minimum(points, owed[:, None])  # all they have when short
        deltas[rows[has_winner], winner[has_winner]] = 0
        taken = -deltas.sum(axis=1)
        blackhole = has_winner & (power == BLACKHOLE).any(axis=1)
        paid = has_winner & ~blackhole
        deltas[rows[paid], winner[paid]] = (taken + deposit)[paid]
        new_deposit = np.where(paid, 0, deposit + taken)

        self.last_plays[idx] = plays
        self.last_kind[idx] = kind
        self.last_winner[idx] = winner
        self.last_distance[idx] = distance
        self.last_destination[idx] = destination
        self.last_deltas[idx] = deltas
        self.last_deposit_before[idx] = deposit
        self.last_deposit_after[idx] = new_deposit
        self.last_blackhole[idx] = blackhole
        self.lottery_winners[idx] = False
        self.lottery_paid[idx] = 0
        for b in idx.tolist():
            self.lotteries[b] = None
        self.points[idx] = points + deltas
        self.deposit[idx] = new_deposit
        self._move_cards(idx, number, slot, counts, winner)
        self.pending[idx] = -1
        self.committed[idx] = 0
        self.turn[idx] += 1
        broke = (self.points[idx] <= 0).sum(axis=1) >= self._eliminated_at
        eliminated = broke if rules.elimination else np.zeros(g, dtype=bool)
        self.over[idx[eliminated]] = True
        round_over = ~eliminated & (self.cards_left[idx] == 0)
        if round_over.any():
            self._end_round(idx[round_over])

    def _move_cards(
        self,
        idx: np.ndarray,
        number: np.ndarray,
        slot: np.ndarray,
        counts: np.ndarray,
        winner: np.ndarray,
    ) -> None:
        """Played cards leave the hands; the winning card becomes the destination
        (the old destination card back to the pile), every other card and every
        special goes back to its pile."""
        n = self.num_players
        g = idx.size
        rows = np.arange(g)
        seats = np.arange(n)[None, :]
        sel = every(idx, self.num_games)
        player = idx[:, None] * n + seats  # row of (game, seat) in [B * n, ...] arrays
        holdings = self.holdings.reshape(-1)
        at = player * HOLDING_COLUMNS + number
        holdings[at] -= 1
        gone = holdings[at] == 0
        self.legal.reshape(-1, NUM_SLOTS)[(player * 15 + number - 1)[gone]] = False
        self.cards_left[sel] -= 1
        self.revealed[sel] += counts
        special = SLOT_SPECIAL[slot]
        spent = special >= 0
        kind = special[spent]
        at = player[spent] * HOLDING_COLUMNS + SPECIALS_AT + kind
        holdings[at] -= 1
        last = holdings[at] == 0
        if last.any():
            self.legal.reshape(-1, 15, NUM_SLOTS)[player[spent][last]] &= ~SPECIAL_SLOT_MASK[
                kind[last]
            ][:, None, :]
        self.specials_count[sel] -= spent.astype(np.int64)
        game_of = np.nonzero(spent)[0]
        self.special_pile[sel] += per_game_counts(game_of, kind, g, 6)
        to_pile = counts
        has_winner = winner >= 0
        won = rows[has_winner]
        if won.size:
            to_pile = counts.copy()
            win_number = number[won, winner[won]]
            to_pile[won, win_number] -= 1
            old = idx[won]
            card = self.destination_card[old]
            self.number_pile[old[card], self.destination[old[card]]] += 1
            self.destination[old] = win_number
            self.destination_card[old] = True
        self.number_pile[sel] += to_pile

    def _end_round(self, idx: np.ndarray) -> None:
        """Hands are empty: the deposit's lottery, then the end of the game or a new deal."""
        config = self.config
        for b in idx[self.deposit[idx] > 0].tolist():
            lottery = draw_lottery(
                self.number_pile[b].tolist(), self.num_players, int(self.deposit[b]), self.rngs[b]
            )
            winners = list(lottery.winners)
            self.points[b, winners] += lottery.share
            self.deposit[b] -= lottery.share * len(winners)
            self.lotteries[b] = lottery
            self.lottery_winners[b, winners] = True
            self.lottery_paid[b] = lottery.share * len(winners)
        ending = np.zeros(idx.size, dtype=bool)
        if config.target is not None:
            ending |= self.points[idx].max(axis=1) >= config.target
        if config.rounds is not None:
            ending |= self.round[idx] >= config.rounds
        self.over[idx[ending]] = True
        again = idx[~ending]
        if again.size:
            self.round[again] += 1
            self._deal(again)


def every(idx: np.ndarray, count: int) -> np.ndarray | slice:
    """``idx`` itself, or ``slice(None)`` when it lists all ``count`` games (it is
    sorted and unique): a slice reads and writes in place, without the cost of
    an index array, and most turns resolve in every game at once."""
    return slice(None) if idx.size == count else idx


def per_game_counts(game: np.ndarray, value: np.ndarray, games: int, values: int) -> np.ndarray:
    """``[games, values]``: how often each value occurs in each game, from the
    pairs ``(game[i], value[i])`` (one ``bincount``)."""
    flat = np.bincount(game * values + value, minlength=games * values)
    return flat.reshape(games, values)


def draw_counts(pile: np.ndarray, k: int, rngs: list[np.random.Generator]) -> np.ndarray:
    """Draw ``k`` cards from each game's count pile (in place), as
    ``rules.draw_from`` does for one: game i's generator shuffles the positions
    of its pile laid out in index order and the first ``k`` are taken. Returns
    the counts drawn, by index, ``[G, len(pile[0])]``.

    Turning positions into cards (``bisect`` on the running counts in the scalar
    engine) is one ``searchsorted`` for all games: row i's running counts are
    shifted by ``i * (size + 1)``, which keeps the flattened rows sorted."""
    g, width = pile.shape
    size = int(pile[0].sum())  # every game of a batch has drawn the same counts
    picks = np.empty((g, k), dtype=np.int64)
    for i, rng in enumerate(rngs):
        picks[i] = rng.permutation(size)[:k]
    shift = np.arange(g)[:, None] * (size + 1)
    ends = (np.cumsum(pile, axis=1) + shift).reshape(-1)
    flat = np.searchsorted(ends, (picks + shift).reshape(-1), side="right")
    counts = np.bincount(flat, minlength=g * width).reshape(g, width)
    pile -= counts
    return counts
