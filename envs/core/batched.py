"""Many games in arrays: the batched form of every game's compiled engine.

:class:`BatchedGames` holds ``n`` independent games of one env configuration
inside the game's compiled engine (``envs/core/native/batch.hpp``) and answers
for all of them at once in numpy arrays, one row per game: the player to act,
the legal-action masks and the observations of the players to act; ``step``
applies one action per game. It is one protocol for every game:

>>> import numpy as np
>>> from flockgym.envs.core.batched import BatchedGames
>>> games = BatchedGames("skybirds_v0", 4, seed=7, num_players=3)
>>> games.masks().shape  # int8, the legal actions of each game's player to act
(4, 159)
>>> actions = games.sample_actions(np.random.default_rng(0))  # uniform legal moves
>>> rewards, finished = games.step(actions)
>>> rewards.shape, finished.shape  # float64 [games, seats], bool [games]
((4, 3), (4,))

What it plays is the AEC env's game, decision for decision: game ``i`` is the
game ``make(env_id, **options).reset(seed=games.seeds[i])`` deals, with the same
masks, observations and rewards (the env's ``reward`` option: ``win`` and
``rank`` pay at the end, ``score`` every step), and the env's ``max_steps``
cut (a truncation: ``finished`` and :attr:`truncated`, no end reward). A game
that ends is dealt again at once from its own generator, as ``env.reset()``
without a seed deals the next game; ``finished`` says which ended on that step.

Only the compiled engines play here: the options an env accepts pass through
it (validated there), except those a batch cannot honour (``engine`` other
than ``'compiled'``, ``illegal_action='penalize'``, a ``render_mode``), which
are refused by name.

The arrays the methods return are the batch's own, overwritten by the next
call of the same method (no allocation per step); copy one to keep it, or pass
``out=``.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .compiled import CompiledGame
from .errors import FlockgymError, OptionError
from .rng import derive_seed, make_rng

_REWARD_CODES = {"win": 0, "rank": 1, "score": 2}
"""The ``reward`` option's values, as the compiled batch numbers them."""

_REFUSED = {
    "engine": ("compiled",),
    "illegal_action": ("raise",),
    "render_mode": (None,),
}
"""Options a batch cannot honour, with the values it allows."""


class BatchedActionError(FlockgymError):
    """``BatchedGames.step`` refused its actions (a ``ValueError``): the message
    names the game, the action and the legal ones, or the shape or dtype
    expected; no game was changed."""


def _check_options(options: dict[str, Any]) -> None:
    """Refuse the options a batch cannot play, naming them and what is allowed."""
    for name, allowed in _REFUSED.items():
        if name in options and options[name] not in allowed:
            raise OptionError(
                f"option {name}={options[name]!r} is not supported by BatchedGames "
                f"(it plays the compiled engine only); allowed: {name}="
                f"{' or '.join(repr(a) for a in allowed)}"
            )


def _checked_count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise OptionError(f"n (the number of games) must be an integer >= 1, got {n!r:.60}")
    return int(n)


def _checked_seed(seed: Any) -> int:
    """``seed`` as an int (None: fresh entropy from the OS)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"seed {seed!r:.60} is not allowed; allowed: an integer >= 0 or None")
    return int(seed)


def _prototype(env: Any) -> Any:
    """The compiled engine a batch copies its games from: an empty engine of
    the env's configuration where the game's wrapper keeps one per config
    (``EngineTemplates``), else the dealt engine itself (the Arena's batch
    deals each game afresh from its box and config)."""
    game = env.game
    if not isinstance(game, CompiledGame):
        raise OptionError(
            f"{env.metadata['name']} is not playing its compiled engine (it did not load; "
            "see the warning above); BatchedGames needs it: reinstall with a C++17 compiler"
        )
    templates = getattr(type(game), "templates", None)
    if templates is not None:
        return templates.empty(game.config)
    return game.engine


def _check_plain_deal(env: Any) -> None:
    """Refuse a configuration whose deal the compiled engine hands to the
    Python engine (the batch deals in C++ only)."""
    box = getattr(getattr(env, "config", None), "box", None)
    if box is not None and box.num_characters < env.num_players:
        raise OptionError(
            f"this box has {box.num_characters} characters for {env.num_players} players; "
            "the compiled deal needs one per player (allowed: num_players <= "
            f"{box.num_characters} with this box)"
        )


class BatchedGames:
    """``n`` games of ``env_id`` in arrays (see the module docstring).

    ``seed`` seeds game ``i`` with ``seeds[i]`` (independent streams derived
    from ``seed``); ``options`` are the env's (``num_players``, ``reward``,
    ``max_steps``, the game's rules options)."""

    def __init__(self, env_id: str, n: int, seed: int | None = None, **options: Any) -> None:
        from .. import env_module  # late import: the registry imports this package

        _check_options(options)
        self.num_envs = _checked_count(n)
        raw = env_module(env_id).raw_env(**options)
        self.env_id = env_id
        self.options: dict[str, Any] = dict(raw.options)
        _check_plain_deal(raw)
        raw.reset(seed=0)
        self.num_players = int(raw.num_players)
        self.num_actions = int(raw.num_actions)
        self.observation_size = int(raw._observation_size())
        self.possible_agents: list[str] = list(raw.possible_agents)
        prototype = _prototype(raw)
        module = importlib.import_module(type(prototype).__module__)  # the game's extension
        self.seeds = self._seeds_of(_checked_seed(seed))
        max_steps = raw.options["max_steps"]
        self._batch = module.Batch(
            prototype,
            self._states(self.seeds),
            self.num_actions,
            0 if max_steps is None else int(max_steps),
            _REWARD_CODES[raw.options["reward"]],
        )
        self._players = np.empty(self.num_envs, dtype=np.int32)
        self._masks = np.empty((self.num_envs, self.num_actions), dtype=np.int8)
        self._observations = np.empty((self.num_envs, self.observation_size), dtype=np.float32)
        self._rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float64)
        self._finished = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncated = np.zeros(self.num_envs, dtype=np.bool_)

    def __repr__(self) -> str:
        return (
            f"BatchedGames({self.env_id!r}, n={self.num_envs}, num_players={self.num_players}, "
            f"num_actions={self.num_actions})"
        )

    def _seeds_of(self, seed: int) -> list[int]:
        return [derive_seed(seed, i) for i in range(self.num_envs)]

    @staticmethod
    def _states(seeds: list[int]) -> list[dict[str, Any]]:
        return [dict(make_rng(s).bit_generator.state) for s in seeds]

    # -- dealing --

    def reset(self, seed: int | None = None) -> None:
        """Deal every game again: from ``seed`` (new :attr:`seeds`), or without
        it from each game's generator as it stands (as ``env.reset()`` does)."""
        if seed is None:
            self._batch.reseed(self._batch.rng_states())
            return
        self.seeds = self._seeds_of(_checked_seed(seed))
        self._batch.reseed(self._states(self.seeds))

    def rng_states(self) -> list[dict[str, Any]]:
        """Each game's generator state (numpy's ``bit_generator.state``)."""
        return list(self._batch.rng_states())

    # -- reading --

    def current_players(self, out: np.ndarray | None = None) -> np.ndarray:
        """int32 ``[n]``: the seat to act in each game (-1 where nobody acts)."""
        target = self._out(out, self._players, np.int32, (self.num_envs,))
        self._batch.current_players(target)
        return target

    def masks(self, out: np.ndarray | None = None) -> np.ndarray:
        """int8 ``[n, num_actions]``: the legal actions of each game's player to act."""
        target = self._out(out, self._masks, np.int8, (self.num_envs, self.num_actions))
        self._batch.masks(target)
        return target

    def observations(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 ``[n, observation_size]``: each game's observation of its player to act."""
        shape = (self.num_envs, self.observation_size)
        target = self._out(out, self._observations, np.float32, shape)
        self._batch.observations(target)
        return target

    @property
    def truncated(self) -> np.ndarray:
        """bool ``[n]``: which games the last :meth:`step` cut short (``max_steps``
        or a rule-level limit; no end reward is paid)."""
        return self._truncated

    def steps_played(self) -> np.ndarray:
        """int64 ``[n]``: the actions applied in each game's current deal."""
        return np.asarray(self._batch.steps_played(), dtype=np.int64)

    # -- playing --

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` in game ``i``: (rewards float64 ``[n, num_players]``,
        finished bool ``[n]``). Every action is checked first: an illegal one
        raises :class:`BatchedActionError` naming the game, the action and the
        legal ones, and no game changes. Finished games are dealt again."""
        ids = self._checked_actions(actions)
        try:
            self._batch.step(
                ids, self._rewards, self._finished.view(np.uint8), self._truncated.view(np.uint8)
            )
        except ValueError as err:
            raise BatchedActionError(str(err)) from None
        return self._rewards, self._finished

    def sample_actions(
        self, rng: np.random.Generator, masks: np.ndarray | None = None
    ) -> np.ndarray:
        """int64 ``[n]``: a uniformly random legal action per game (of ``masks``,
        default :meth:`masks`), drawn from ``rng``."""
        mask = self.masks() if masks is None else masks
        # The k-th legal action of each game for a uniform k below its count of
        # legal actions: one draw a game over the flat list of legal entries
        # (an order of magnitude cheaper than a draw an entry). A game with no
        # legal action (nobody to act) gets 0, which step does not read.
        games, width = mask.shape
        legal = np.flatnonzero(mask)  # row-major: each game's legal ids in order
        if legal.size == 0:
            return np.zeros(games, dtype=np.int64)
        counts = np.count_nonzero(mask, axis=1)
        picks = np.cumsum(counts) - counts + (rng.random(games) * counts).astype(np.int64)
        actions = legal[np.minimum(picks, legal.size - 1)] - np.arange(games) * width
        return np.where(counts > 0, actions, 0).astype(np.int64)

    def play_random(
        self, steps: int, seed: int | None = None, observe: bool = True
    ) -> tuple[int, int]:
        """Random legal play inside C++ for ``steps`` decisions (the games take
        turns), each with its mask and, with ``observe``, its observation built
        as an env builds them; picks drawn from a generator seeded ``seed``;
        ended games are dealt again. Returns (decisions made, games ended): the
        benchmarks' loop."""
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
            raise OptionError(f"steps must be an integer >= 0, got {steps!r:.60}")
        picker = make_rng(None if seed is None else _checked_seed(seed)).bit_generator.state
        played, ended, _ = self._batch.play_random(picker, int(steps), bool(observe))
        return int(played), int(ended)

    # -- checks --

    def _checked_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise BatchedActionError(
                f"actions must have shape ({self.num_envs},) (one per game), got {array.shape}"
            )
        if not np.issubdtype(array.dtype, np.integer):
            raise BatchedActionError(
                f"actions must be integers (action ids 0..{self.num_actions - 1}), got dtype "
                f"{array.dtype}"
            )
        return np.ascontiguousarray(array, dtype=np.int64)

    @staticmethod
    def _out(out: np.ndarray | None, own: np.ndarray, dtype: Any, shape: tuple[int, ...]) -> Any:
        if out is None:
            return own
        if not isinstance(out, np.ndarray) or out.dtype != dtype or out.shape != shape:
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise OptionError(
                f"out must be a C-contiguous {np.dtype(dtype)} array of shape {shape}, got {got}"
            )
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise OptionError("out must be a writeable C-contiguous array")
        return out
