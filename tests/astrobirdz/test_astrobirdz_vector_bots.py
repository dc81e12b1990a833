"""The vectorised Astrobirdz heuristic picks the scalar heuristic's move at
every decision (guesses, plays, the AstroBoard's partner and trick), in games
the heuristic plays alone and with random moves mixed in."""

from __future__ import annotations

import pytest
from vector_helpers import PLAYER_COUNTS, heuristic_chooser, lockstep, vector_option_samples


@pytest.mark.parametrize(
    "players",
    [pytest.param(n, marks=[pytest.mark.slow] if n > 5 else []) for n in PLAYER_COUNTS],
)
@pytest.mark.parametrize("random_share", [pytest.param(0.0, marks=pytest.mark.slow), 0.4])
def test_vector_heuristic_moves_as_the_scalar_heuristic(players: int, random_share: float) -> None:
    """Three option samples, ten games each (four at the long 5- and 6-player
    tables; the slow test below plays 1,000 at every count)."""
    games = 10 if players <= 4 else 4
    for k, options in enumerate(vector_option_samples(players)[:3]):
        seeds = list(range(500 + 50 * k, 500 + 50 * k + games))
        assert lockstep(players, options, seeds, heuristic_chooser(random_share, k)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_vector_heuristic_moves_as_the_scalar_heuristic_thoroughly(players: int) -> None:
    """1,000 games per player count over every option sample, a third of the
    moves random."""
    samples = vector_option_samples(players)
    per_sample = -(-1000 // len(samples))
    for k, options in enumerate(samples):
        for start in range(0, per_sample, 100):
            seeds = list(
                range(20_000 * (k + 1) + start, 20_000 * (k + 1) + min(start + 100, per_sample))
            )
            lockstep(players, options, seeds, heuristic_chooser(0.33, k))
