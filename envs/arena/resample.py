"""Arena states one seat cannot tell apart from the true one (for search).

Everything at the Arena's table is public except the order of the face-down
medal stack and the dice still to be rolled. The resampler keeps every field
and redraws exactly those two: the stack's order (uniformly among its
permutations: which medal cards are in it is public) and the generator behind
every future roll and draw. No knowledge is inferred from play.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.resample import fresh_generator, install, working_game


def resample(env: Any, seat: int, rng: np.random.Generator) -> Any:
    """Redraw ``env``'s hidden information (the same for every ``seat``); returns
    ``env`` holding a new engine. ``env`` is a raw Arena env."""
    game = working_game(env)
    game.medal_stack = [
        int(k) for k in rng.permutation(np.asarray(game.medal_stack, dtype=np.int64))
    ]
    game.rng = fresh_generator(rng)
    return install(env, game)
