"""The self-play wrapper: the learner's return is its game result, masks are
exact, seats rotate, opponents come from the pool."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from training_helpers import baseline_bots

from flockgym.envs.core.rewards import rank_rewards, win_rewards
from flockgym.training.selfplay import OpponentPool, SelfPlayEnv


def record_games(env: SelfPlayEnv) -> dict[str, list]:
    """Spy on the AEC env inside: who made each game's last move, and the points
    at each deal (before any move)."""
    seen: dict[str, list] = {"last_mover": [], "start_points": []}
    step, reset = env.game.step, env.game.reset

    def spy_step(action):
        seen["last_mover"].append(env.game.agent_selection)
        step(action)

    def spy_reset(*args, **kwargs):
        reset(*args, **kwargs)
        seen["start_points"].append(dict(env.raw.scores))

    env.game.step, env.game.reset = spy_step, spy_reset
    return seen


def expected_return(env: SelfPlayEnv, reward: str, start_points: dict[str, float]) -> float:
    seat = env.agents.index(env.learner)
    scores = [env.raw.scores[a] for a in env.agents]
    if reward == "win":
        winners = [env.agents.index(a) for a in env.raw.winners]
        return win_rewards(len(env.agents), winners)[seat]
    if reward == "rank":  # a truncated game pays no rank reward (docs/api.md)
        return 0.0 if env.raw.is_truncated() else rank_rewards(scores)[seat]
    return scores[seat] - start_points[env.learner]


@pytest.mark.parametrize("reward", ["win", "score", "rank"])
def test_learner_episode_return_equals_its_game_result(env_id: str, reward: str) -> None:
    env = SelfPlayEnv(env_id, {"reward": reward}, pool=baseline_bots(env_id))
    seen = record_games(env)
    rng = np.random.default_rng(0)
    n = len(env.agents)
    ended_elsewhere, losses_elsewhere = 0, 0
    env.reset(seed=11)
    for _ in range(4 * n):  # the learner sits in every seat several times
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            _, reward_, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(mask)))
            )
            total += reward_
            done = terminated or truncated
        assert total == pytest.approx(expected_return(env, reward, seen["start_points"][-1]))
        assert info["game_result"]["points"] == env.raw.scores[env.learner]
        if seen["last_mover"][-1] != env.learner:
            ended_elsewhere += 1
            losses_elsewhere += total < 0
        env.reset()
    assert ended_elsewhere > 0, "no game ended on another player's move: the test proves nothing"
    if reward != "score":
        assert losses_elsewhere > 0, "the learner never lost on another player's move"


def test_masks_are_exact_and_the_seat_rotates(env_id: str) -> None:
    env = SelfPlayEnv(env_id, {}, pool=["random"], seat_offset=1)
    n = len(env.agents)
    seats = []
    env.reset(seed=5)
    for _ in range(n):
        seats.append(env.learner)
        done = False
        while not done:
            assert env.game.agent_selection == env.learner
            mask = env.action_masks()
            assert mask.dtype == bool
            assert sorted(np.flatnonzero(mask)) == env.raw.legal_actions(env.learner)
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
            done = terminated or truncated
        env.reset()
    assert seats == [env.agents[(1 + k) % n] for k in range(n)]


def test_the_wrapper_passes_gymnasiums_checker(env_id: str) -> None:
    # The checker steps unmasked random actions: let an illegal one end the game.
    env = SelfPlayEnv(env_id, {"illegal_action": "penalize"}, pool=["random"])
    check_env(env, skip_render_check=True)


def test_same_seed_same_games(env_id: str) -> None:
    def first_moves(seed: int) -> list:
        env = SelfPlayEnv(env_id, {}, pool=["random"])
        obs, _ = env.reset(seed=seed)
        out = [obs.copy()]
        for _ in range(5):
            obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append(obs.copy())
        return out

    assert all(np.array_equal(a, b) for a, b in zip(first_moves(3), first_moves(3), strict=True))
    assert not all(
        np.array_equal(a, b) for a, b in zip(first_moves(3), first_moves(4), strict=True)
    )


def test_the_pool_draws_fixed_bots_and_snapshots() -> None:
    def participant(name: str):
        from flockgym.bots.policies import Participant

        return Participant(name, lambda seed: None)

    pool = OpponentPool([participant("random"), participant("heuristic")], 0.5, max_snapshots=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(rng)[0] for _ in range(50)} == {"random", "heuristic"}
    for k in range(3):
        pool.add_snapshot(participant(f"step_{k}"))
    assert [p.name for p in pool.snapshots] == ["step_1", "step_2"]
    labels = [pool.draw(rng)[0] for _ in range(400)]
    assert 0.4 < labels.count("snapshot") / 400 < 0.6
    only_snapshots = OpponentPool([], 0.1, 5)
    only_snapshots.add_snapshot(participant("step_0"))
    assert only_snapshots.draw(rng)[0] == "snapshot"
