"""The envs with a vectorised engine (numpy, many games per call), and which
engine a config or a tournament gets. No training dependency: tournaments use
it too, and they run without the training extra.

A game offers a vector engine by naming its adapter in its registry entry
(``EnvEntry.vector_engine = "module:Class"``, in ``flockgym.envs``); the class,
imported on first use, follows :class:`VectorEngineAdapter`. Batched self-play
(:mod:`~.batched`) and tournaments (:mod:`~flockgym.evaluation.vector_tournament`) build every
engine through it and know no game by name.

Two kinds of engine: simultaneous turns (:class:`VectorEngine`, e.g. Asrus),
which every vector path plays (batched self-play, tournaments, and ``auto``
picks it), and sequential turns (:class:`SequentialVectorEngine`, an adapter
with ``sequential = True``, e.g. Astrobirdz), which only batched self-play
plays, when a config asks for it (``batched.engine: vector``):
:func:`has_vector_engine` and :func:`vector_engine_envs` name the first kind,
:func:`vector_engine_envs` with ``every=True`` both."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any, Protocol

import numpy as np

from flockgym.envs import ENVS, OptionError

ENGINES = ("auto", "scalar", "vector")
DEALINGS = ("exact", "fast")


class VectorEngine(Protocol):
    """``num_games`` games of one configuration side by side, whose turns are
    simultaneous: in each game the seats commit their moves in seat order (0 to
    ``num_players - 1``) and the last commitment resolves the turn. Arrays are
    per game (``[B]``) or per game and seat (``[B, n]``)."""

    num_players: int
    committed: np.ndarray
    """[B] how many seats of each game have committed this turn (the seat to act)."""
    over: np.ndarray
    """[B] bool: over by the rules."""
    truncated: np.ndarray
    penalized: np.ndarray
    """[B] the seat that took an illegal action under ``illegal_action="penalize"``; -1 none."""

    @property
    def done(self) -> np.ndarray:
        """[B] bool: over, penalized or truncated."""

    def reset(self, seeds: Any = None) -> None:
        """Deal every game, game ``b`` from ``seeds[b]``."""

    def reset_games(self, games: Any, seeds: Any = None) -> None:
        """Deal the games listed; the others are untouched."""

    def step(self, actions: Any) -> Any:
        """Each live game's seat to act commits ``actions[b]``; the result's
        ``rewards`` are [B, n]."""

    def step_turn(self, actions: Any) -> Any:
        """Every seat of every live game commits ``actions[b, s]`` at once."""

    def step_seats(self, actions: Any, until: Any, games: Any = None) -> Any:
        """Each live game listed commits its seats up to, not including, ``until[b]``."""

    def masks(self, seats: np.ndarray | None = None, to_act_only: bool = False) -> np.ndarray:
        """[B, n, A] legal moves, or [B, A] of one seat per game."""

    def observations(self, seats: np.ndarray | None = None) -> np.ndarray:
        """[B, n, D] float32 observations, or [B, D] of one seat per game."""

    def observations_of(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[G, D]: the observation of ``seats[i]`` in ``games[i]``."""

    def views(self, games: np.ndarray, seats: np.ndarray) -> Any:
        """What ``seats[i]`` of ``games[i]`` may see, as the vectorised bot reads it."""

    def scores(self) -> np.ndarray:
        """[B, n] game points."""

    def winners(self) -> np.ndarray:
        """[B, n] bool: the winners of the games over by the rules."""


class SequentialVectorEngine(Protocol):
    """``num_games`` games of one configuration side by side whose seats act one
    at a time, as in the AEC env: ``actor[b]`` is the seat to act in game ``b``."""

    num_players: int
    actor: np.ndarray
    """[B] the seat to act (-1 in a game over)."""
    over: np.ndarray
    truncated: np.ndarray
    penalized: np.ndarray

    @property
    def done(self) -> np.ndarray:
        """[B] bool: over, penalized or truncated."""

    def reset_games(self, games: Any, seeds: Any = None) -> None:
        """Deal the games listed; the others are untouched."""

    def step(self, actions: Any, games: Any = None) -> Any:
        """The seat to act of each live game listed (default: all) plays
        ``actions[b]``; the result's ``rewards`` are [B, n]."""

    def masks(self, seats: np.ndarray | None = None) -> np.ndarray:
        """[B, A] legal moves of ``seats[b]`` (default: the seat to act)."""

    def observations(self, seats: np.ndarray | None = None) -> np.ndarray:
        """[B, D] float32 observations of ``seats[b]`` (default: the seat to act)."""

    def observations_of(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[G, D]: the observation of ``seats[i]`` in ``games[i]``."""

    def views(self, games: np.ndarray, seats: np.ndarray) -> Any:
        """What ``seats[i]`` of ``games[i]`` may see, as the vectorised bot reads it."""

    def scores(self) -> np.ndarray:
        """[B, n] game points."""

    def winners(self) -> np.ndarray:
        """[B, n] bool: the winners of the games over by the rules."""


class VectorBot(Protocol):
    """A heuristic bot for every seat of many games, each seat its own generator."""

    def reseed(self, games: np.ndarray, seats: np.ndarray, seeds: np.ndarray) -> None:
        """The bots of ``(games[i], seats[i])`` start again from ``seeds[i]``."""

    def act(self, view: Any) -> np.ndarray:
        """One move per seat of ``view`` (from :meth:`VectorEngine.views`): the
        scalar heuristic bot's choice with the same generator."""


class VectorEngineAdapter(Protocol):
    """What a game's vector engine offers batched self-play and tournaments (the
    class its registry entry names as ``vector_engine``)."""

    sequential: bool
    """Optional (False when absent): the engine's seats act one at a time
    (:class:`SequentialVectorEngine`), so only batched self-play plays it and
    only when asked for by name."""

    def engine(self, count: int, dealing: str, options: dict[str, Any]) -> Any:
        """``count`` games with the env's ``options``; ``dealing`` is one of
        :data:`DEALINGS`: ``exact`` deals the scalar env's cards for the same seed.
        An option the engine cannot play is an ``OptionError`` naming it."""

    def heuristic_bot(self, count: int, num_players: int) -> VectorBot:
        """The env's heuristic bot for every seat of ``count`` games."""

    def committed_columns(self, engine: Any) -> slice:
        """The observation's columns flagging which seats have committed this turn
        (from the observer's seat on): a seat deciding at the turn's start sees
        them rewritten as it would on its own turn."""


def vector_engine_envs(every: bool = False) -> list[str]:
    """Ids of the registered envs with a vectorised engine that every vector path
    plays (simultaneous turns), sorted; ``every``: with the sequential ones too."""
    return sorted(
        env_id
        for env_id, item in ENVS.items()
        if item.vector_engine and (every or not is_sequential(env_id))
    )


def has_vector_engine(env_id: str) -> bool:
    """Whether ``env_id`` has a vectorised engine that every vector path plays
    (``engine: auto``, tournaments): one of simultaneous turns."""
    return registered_vector_engine(env_id) and not is_sequential(env_id)


def registered_vector_engine(env_id: str) -> bool:
    """Whether ``env_id``'s registry entry names a vectorised engine of either kind."""
    item = ENVS.get(env_id)
    return item is not None and item.vector_engine is not None


@cache
def _adapter_class(target: str) -> Any:
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def is_sequential(env_id: str) -> bool:
    """Whether ``env_id``'s vectorised engine plays its seats one at a time."""
    target = ENVS[env_id].vector_engine if registered_vector_engine(env_id) else None
    return target is not None and bool(getattr(_adapter_class(target), "sequential", False))


def vector_adapter(env_id: str) -> VectorEngineAdapter:
    """The adapter of ``env_id``'s vector engine (either kind), its module imported
    now; an ``OptionError`` names the envs with one if it has none."""
    target = ENVS[env_id].vector_engine if registered_vector_engine(env_id) else None
    if target is None:
        raise OptionError(
            f"{env_id} has no vectorised engine (envs with one: "
            f"{', '.join(vector_engine_envs(every=True))})"
        )
    adapter: VectorEngineAdapter = _adapter_class(target)()
    return adapter


def resolve_engine(env_id: str, engine: str) -> str:
    """``scalar`` or ``vector`` for ``env_id``; ``OptionError`` names what is allowed.
    ``auto`` takes only a vectorised engine of simultaneous turns; ``vector``
    takes either kind."""
    if engine not in ENGINES:
        raise OptionError(f"engine={engine!r}; allowed: {', '.join(ENGINES)}")
    if engine == "auto":
        return "vector" if has_vector_engine(env_id) else "scalar"
    if engine == "vector" and not registered_vector_engine(env_id):
        raise OptionError(
            f"engine='vector': {env_id} has no vectorised engine (envs with one: "
            f"{', '.join(vector_engine_envs(every=True))}); allowed for {env_id}: auto, scalar"
        )
    return engine


def vector_engine_problem(env_id: str, env_options: dict[str, Any], dealing: str) -> str:
    """Why the vector engine of ``env_id`` cannot play these options ('' if it can)."""
    try:
        vector_adapter(env_id).engine(1, dealing, env_options)
    except OptionError as err:
        return str(err)
    return ""
