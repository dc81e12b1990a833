"""The vectorised Astrobirdz engine against the AEC env, decision by decision
(seat to act, mask, every seat's observation, rewards, scores, winners):
tens of games per player count and option sample here, 1,000 in the slow test."""

from __future__ import annotations

import numpy as np
import pytest
from vector_helpers import PLAYER_COUNTS, lockstep, vector_option_samples

from flockgym.envs import OptionError
from flockgym.envs.astrobirdz.env import OPTION_SAMPLES
from flockgym.envs.astrobirdz.vector import PLAIN, VectorAstrobirdz


@pytest.mark.parametrize(
    "players",
    [pytest.param(n, marks=[pytest.mark.slow] if n > 4 else []) for n in PLAYER_COUNTS],
)  # 5 and 6 players in make test-slow (make test stays under its 10 minutes)
def test_vector_engine_plays_the_env_games(players: int) -> None:
    """Every option sample, a dozen games (five at the long 5- and 6-player
    tables; the slow test below plays 1,000 at every count)."""
    games = 12 if players <= 4 else 5
    for k, options in enumerate(vector_option_samples(players)):
        seeds = list(range(100 * k, 100 * k + games))
        assert lockstep(players, options, seeds) > 0


@pytest.mark.parametrize("reward", ["win", "rank"])
def test_vector_engine_pays_the_env_rewards(reward: str) -> None:
    assert lockstep(4, dict(PLAIN), list(range(8)), reward=reward) > 0


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_vector_engine_plays_the_env_games_thoroughly(players: int) -> None:
    """>= 1,000 random games per player count, every option sample."""
    samples = vector_option_samples(players)
    per_sample = -(-1000 // len(samples))
    for k, options in enumerate(samples):
        for start in range(0, per_sample, 100):
            seeds = list(range(10_000 * k + start, 10_000 * k + min(start + 100, per_sample)))
            lockstep(players, options, seeds)


def test_vector_engine_refuses_options_it_does_not_play() -> None:
    for sample in OPTION_SAMPLES:
        options = {**PLAIN, **sample}
        wrong = [k for k in PLAIN if options[k] is not PLAIN[k]]
        if not wrong:
            continue
        with pytest.raises(OptionError, match=rf"option {wrong[0]}=True.*allowed: False"):
            VectorAstrobirdz(2, **options)
    with pytest.raises(OptionError, match=r"berzerkerbirdz defaults to True.*allowed"):
        VectorAstrobirdz(2, trump_rules=False)
    with pytest.raises(OptionError, match="dealing='slow'; allowed: exact, fast"):
        VectorAstrobirdz(2, dealing="slow", **PLAIN)
    with pytest.raises(OptionError, match=r"illegal_action='penalize'.*allowed: 'raise'"):
        VectorAstrobirdz(2, illegal_action="penalize", **PLAIN)
    with pytest.raises(OptionError, match="num_players"):
        VectorAstrobirdz(2, num_players=7, **PLAIN)


def test_vector_engine_refuses_an_illegal_move_and_changes_nothing() -> None:
    engine = VectorAstrobirdz(3, **PLAIN)
    engine.reset([0, 1, 2])
    before = engine.observations().copy(), engine.masks().copy()
    moves = np.flatnonzero(engine.masks()[0])[[0, 0, 0]]
    moves[1] = 0  # a card, in the guessing phase
    with pytest.raises(
        ValueError, match=r"game 1: action 0 is illegal for player_1 \(phase guess\)"
    ):
        engine.step(moves)
    np.testing.assert_array_equal(engine.observations(), before[0])
    np.testing.assert_array_equal(engine.masks(), before[1])


def test_fast_dealing_deals_legal_games_deterministically() -> None:
    """Fast dealing: every seat holds the turn's cards, no card twice, the same
    seed the same deal."""
    first, second = (VectorAstrobirdz(64, dealing="fast", **PLAIN) for _ in range(2))
    first.reset([5] * 64)
    second.reset([5] * 64)
    np.testing.assert_array_equal(first.hands, second.hands)
    assert (first.hands.sum(axis=2) == 1).all()
    assert (first.hands.sum(axis=1) <= 1).all()
    assert not first.hands[np.arange(64), :, first.trump_card].any()
