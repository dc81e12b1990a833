"""Arena states one seat cannot tell apart from the true one (for search).

Everything at the Arena's table is public except the order of the face-down
medal stack, the dice still to be rolled and, during setup, the characters the
other seats have wished for this round (a seat sees that they have wished,
not what for). The resampler keeps every other field and redraws exactly
those: the stack's order (uniformly among its permutations: which medal cards
are in it is public), each other seat's unrevealed wish (uniformly among the
characters it could have wished for: not taken, of its scenario form) and the
generator behind every future roll and draw. During the wishes the board is
not dealt yet: there is no stack order to redraw, and the fresh generator
deals a board nobody knows. No knowledge is inferred from play.

The search calls this once per simulation, so by default the redraw is made on
the engine's own state dict and the new engine built from it without the
loader's checks (:meth:`.native.CompiledArenaGame.with_state`,
:func:`.native.trusted_python_game`); ``checked=True`` goes through the
Python engine's checked loader twice, as saved games do. Both draw the same
state from the same generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.resample import adopt, fresh_generator, install
from ..core.rng import rng_to_dict
from .native import CompiledArenaGame, trusted_python_game
from .rules import ArenaGame
from .setup import dealt, wish_pool


def resample(env: Any, seat: int, rng: np.random.Generator, checked: bool = False) -> Any:
    """Redraw ``env``'s hidden information as seen from ``seat`` (see the module
    docstring); returns ``env`` holding a new engine. ``env`` is a raw Arena env;
    ``checked`` loads the copy and the result through the checked loader."""
    if not checked:
        return _resample_state(env, seat, rng)
    game = ArenaGame.from_dict(env.game.to_dict())  # a Python game, whichever engine plays
    if dealt(game):
        game.medal_stack = _shuffled(game.medal_stack, rng)
    for other, wish in enumerate(game.wishes):
        if other != seat and wish >= 0:
            pool = wish_pool(game, other)
            game.wishes[other] = int(pool[int(rng.integers(len(pool)))])
    game.rng = fresh_generator(rng)
    return install(env, game)


def _resample_state(env: Any, seat: int, rng: np.random.Generator) -> Any:
    """The redraw of :func:`resample` made on the state dict the engine writes
    (the same draws in the same order), then a new engine of the env's kind
    built from it unchecked."""
    config = env.game.config
    state = env.game.to_dict()
    if state["gym_at"]:  # dealt
        state["medal_stack"] = _shuffled(state["medal_stack"], rng)
    wishes = state["wishes"]
    if any(wish is not None for other, wish in enumerate(wishes) if other != seat):
        game = trusted_python_game(config, state)  # the wish pools read a game
        names = [c.name for c in config.box.characters]
        for other, wish in enumerate(game.wishes):
            if other != seat and wish >= 0:
                pool = wish_pool(game, other)
                wishes[other] = names[int(pool[int(rng.integers(len(pool)))])]
    state["rng"] = rng_to_dict(fresh_generator(rng))
    if isinstance(env.game, CompiledArenaGame):
        return adopt(env, env.game.with_state(state))
    return adopt(env, trusted_python_game(config, state))


def _shuffled(stack: list[int], rng: np.random.Generator) -> list[int]:
    """The medal stack in a uniformly random order."""
    return [int(k) for k in rng.permutation(np.asarray(stack, dtype=np.int64))]
