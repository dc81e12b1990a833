"""``env.win_bonus``: a game's win reward added to the learner's score reward at
its end, the same on every vec env path and in the RLlib adapter's config."""

from __future__ import annotations

import numpy as np
import pytest
from test_train_batched import assert_same, dummy, env_kwargs, play
from training_helpers import short_options, tiny_raw_config, winning_bot

from flockgym.envs.core.rewards import win_reward_table, win_rewards
from flockgym.training.batched import BatchedSelfPlayVecEnv
from flockgym.training.config import ConfigError, validate_config
from flockgym.training.selfplay import SelfPlayEnv


def episode(env: SelfPlayEnv, seed: int) -> tuple[float, bool, list[str], str]:
    """One game of random legal learner moves: (return, terminated, winners, learner)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, terminated, truncated, _ = env.step(action)
        total += reward
        done = terminated or truncated
    return total, terminated, list(env.raw.winners), env.learner


@pytest.mark.parametrize("env_id", ["asrus_v0", "skybirds_v0", "arena_v0"])
def test_the_bonus_is_the_win_reward_on_top_of_the_score(env_id: str) -> None:
    # Skybirds' Campaign cap would truncate most short games: play whole wars of 2.
    # Random Arena players rarely win a world in the short game's 4 rounds (all
    # tie at none: no bonus): play the whole 40.
    short = {"num_players": 2} if env_id == "skybirds_v0" else short_options(env_id)
    if env_id == "arena_v0":
        short = {}
    options = {**short, "reward": "score"}
    pool = [winning_bot(env_id)]
    plain = SelfPlayEnv(env_id, options, pool=pool, reward_scale=0.5)
    bonus = SelfPlayEnv(env_id, options, pool=pool, reward_scale=0.5, win_bonus=2.0)
    paid = 0
    for seed in range(6):
        base, terminated, winners, learner = episode(plain, seed)
        total, *_ = episode(bonus, seed)
        n, k = len(plain.agents), len(winners)
        expected = 0.0
        if terminated and 0 < k < n:
            # the win reward: 1/k to each of k winners, -1/(n-k) to each other player
            expected = 2.0 * (1.0 / k if learner in winners else -1.0 / (n - k))
            paid += 1
        assert total == pytest.approx(base + expected)
    assert paid, "no game paid a bonus: nothing was compared"


def test_a_truncated_game_pays_no_bonus() -> None:
    options = {"reward": "score", "max_steps": 5}
    plain = SelfPlayEnv("asrus_v0", options, pool=["random"])
    bonus = SelfPlayEnv("asrus_v0", options, pool=["random"], win_bonus=1.0)
    base, terminated, *_ = episode(plain, 3)
    total, *_ = episode(bonus, 3)
    assert not terminated
    assert total == base


@pytest.mark.parametrize("extra", [{}, {"max_steps": 23}, {"illegal_action": "penalize"}])
def test_the_vector_engine_pays_the_bonus_as_dummyvecenv(extra: dict) -> None:
    kwargs = env_kwargs("asrus_v0", ["random", "heuristic"], [], reward="score", **extra)
    kwargs["win_bonus"] = 0.75
    expected = play(dummy(3, kwargs), 120, seed=5)
    seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="vector"), 120, seed=5)
    assert_same(seen, expected)
    rewards = np.concatenate([entry[2] for entry in expected if entry[0] == "step"])
    assert (np.abs(rewards) >= 0.75 / 4).any()


def test_the_scalar_batched_path_pays_the_bonus_as_dummyvecenv() -> None:
    # the Arena's round cap ends a game by the rules (the time victory), with winners
    kwargs = env_kwargs("arena_v0", ["heuristic"], [], **short_options("arena_v0"))
    kwargs["env_options"]["reward"] = "score"
    kwargs["win_bonus"] = 1.5
    expected = play(dummy(2, kwargs), 200, seed=1)
    seen = play(BatchedSelfPlayVecEnv(2, kwargs, engine="scalar"), 200, seed=1)
    assert_same(seen, expected)
    ended = [i for e in expected if e[0] == "step" for i in e[4] if "game_result" in i]
    won = [i for i in ended if not i["TimeLimit.truncated"]]
    assert won, "no game ended by the rules: the bonus was never compared"


def test_a_negative_bonus_is_refused(tmp_path) -> None:
    config = tiny_raw_config("asrus_v0", tmp_path)
    config["env"]["win_bonus"] = -1
    with pytest.raises(ConfigError, match="win_bonus"):
        validate_config(config)


def test_the_table_of_many_games_is_win_rewards_of_each() -> None:
    won = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    table = win_reward_table(won)
    np.testing.assert_array_equal(
        table, [[1.0, -1 / 3, -1 / 3, -1 / 3], [0.5, 0.5, -0.5, -0.5], [0.0] * 4, [0.0] * 4]
    )
    for row, game in zip(table, won, strict=True):
        assert list(row) == win_rewards(4, list(np.flatnonzero(game)))
