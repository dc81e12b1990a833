"""Shared pieces of the games' resamplers (``envs/<game>/resample.py``).

A resampler draws a full game state that one seat cannot tell apart from the
true one: it keeps everything the seat sees and redraws the rest (other hands,
the deck order, hidden choices, the generator behind future draws). Search
bots call it once per simulation, and OpenSpiel's ``resample_from_infostate``
goes through it. Each game says in its own module what it treats as known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .compiled import DumpedCompiledGame
from .rng import make_rng


def fresh_generator(rng: np.random.Generator) -> np.random.Generator:
    """A new game generator seeded from ``rng``: future dice, shuffles and draws
    are hidden from every seat, so a resampled state redraws them too."""
    return make_rng(int(rng.integers(0, 2**63)))


def working_game(env: Any) -> Any:
    """An independent engine in the env's state through the game's loader (a
    JSON round trip, every field checked), so a resampler never changes the
    engine it was given until it hands back a new one. The checked path
    (``checked=True`` of every resampler): the search's hot path takes
    :func:`python_copy` instead."""
    return env._game_from_dict(env.game.to_dict())


def python_copy(env: Any, compiled: type[DumpedCompiledGame]) -> Any:
    """A Python engine in the env's state, independent of it, built from the
    plain fields both engines share (``compiled`` is the game's compiled
    wrapper, which holds the conversions): no JSON and none of the loader's
    checks, since the state is the env's own and valid. The search bots'
    resample runs this once per simulation, where the checked round trip of
    :func:`working_game` cost most of a simulation."""
    game = env.game
    if isinstance(game, compiled):
        return game.to_python()
    return compiled.game_of(game.config, compiled.fields_of(game))


def install(env: Any, game: Any, check: bool = True) -> Any:
    """Put ``game`` (a Python engine) into ``env`` and drop the observer's
    caches of the previous engine. Returns ``env``.

    ``check=True`` goes through the game's own loader, which checks every field,
    so a resampler that broke a rule fails loudly here (the checked path, and
    OpenSpiel's and saved games' way in). ``check=False`` is the search's hot
    path: the env builds its engine from ``game``'s fields without the loader
    (:meth:`~flockgym.envs.core.aec.FlockAECEnv._engine_from_python`); the
    resamplers' tests load every state they draw through the checked loader."""
    if check:
        return adopt(env, env._game_from_dict(game.to_dict()))
    return adopt(env, env._engine_from_python(game))


def adopt(env: Any, engine: Any) -> Any:
    """Make ``engine`` (of the env's own kind) ``env``'s engine and drop the
    observer's caches of the previous one. Returns ``env``."""
    env.game = engine
    env._on_new_game()
    return env


def deal_counts(
    pool: Sequence[int], sizes: Sequence[int], rng: np.random.Generator
) -> tuple[list[list[int]], list[int]]:
    """Deal a multiset given as counts per kind (``pool[k]`` copies of kind ``k``)
    into parts of ``sizes`` uniformly at random; returns each part's counts and
    the counts left over. Every way to split the pool is equally likely."""
    kinds = len(pool)
    cards = np.repeat(np.arange(kinds), np.asarray(pool, dtype=np.int64))
    if sum(sizes) > len(cards):
        raise ValueError(f"cannot deal parts of sizes {list(sizes)} from {len(cards)} cards")
    order = rng.permutation(cards)
    parts, at = [], 0
    for size in sizes:
        parts.append(np.bincount(order[at : at + size], minlength=kinds).tolist())
        at += size
    rest = np.bincount(order[at:], minlength=kinds).tolist()
    return parts, rest


def deal_cards(
    pool: Sequence[int], sizes: Sequence[int], rng: np.random.Generator
) -> list[list[int]]:
    """Distinct cards (ids in ``pool``) dealt into parts of ``sizes`` in a uniformly
    random order; whatever is left over is dropped (the caller sized the parts
    to use the whole pool)."""
    if sum(sizes) != len(pool):
        raise ValueError(f"parts of sizes {list(sizes)} do not use the {len(pool)} cards")
    order = [int(c) for c in rng.permutation(np.asarray(pool, dtype=np.int64))]
    parts, at = [], 0
    for size in sizes:
        parts.append(order[at : at + size])
        at += size
    return parts
