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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.resample import fresh_generator, install
from .rules import ArenaGame
from .setup import dealt, wish_pool


def resample(env: Any, seat: int, rng: np.random.Generator) -> Any:
    """Redraw ``env``'s hidden information as ``seat`` sees it; returns ``env``
    holding a new engine. ``env`` is a raw Arena env."""
    game = ArenaGame.from_dict(env.game.to_dict())  # a Python game, whichever engine plays
    if dealt(game):
        game.medal_stack = [
            int(k) for k in rng.permutation(np.asarray(game.medal_stack, dtype=np.int64))
        ]
    for other, wish in enumerate(game.wishes):
        if other != seat and wish >= 0:
            pool = wish_pool(game, other)
            game.wishes[other] = int(pool[int(rng.integers(len(pool)))])
    game.rng = fresh_generator(rng)
    return install(env, game)
