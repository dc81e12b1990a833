"""Imitation before PPO (``pretrain``): the teacher's games are recorded as the
learner would play them, the fit moves the policy towards the teacher's moves
and the value head towards the games' returns, a run with it is reproducible and
resumes to the uninterrupted weights, and bad settings are refused by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_train_run import assert_logged_once, same_weights
from training_helpers import crashed_run, tiny_config

from flockgym.envs.core.rewards import win_rewards
from flockgym.training import train as train_module
from flockgym.training.config import ConfigError
from flockgym.training.pretrain import collect_demonstrations, discounted_returns, pretrain
from flockgym.training.runs import read_state
from flockgym.training.selfplay import SelfPlayEnv
from flockgym.training.train import resume_run, train

ARENA = {
    "env": {"id": "arena_v0", "options": {"num_players": 2}, "reward_scale": 0.2,
            "win_bonus": 1.0},
    "opponents": {"pool": ["heuristic"]},
    "pretrain": {"games": 6, "epochs": 8, "batch_size": 64},
}  # fmt: skip
"""Two-player Arena games against the heuristic, the heuristic as the teacher."""


def test_discounted_returns_sum_what_follows_each_move() -> None:
    rewards = np.array([1.0, 0.0, -2.0, 4.0])
    assert discounted_returns(rewards, 1.0).tolist() == [3.0, 2.0, 2.0, 4.0]
    assert discounted_returns(rewards, 0.5).tolist() == [1.0, 0.0, 0.0, 4.0]


def test_the_teachers_games_are_recorded_at_the_learners_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tiny_config(
        "asrus_v0",
        tmp_path,
        pretrain={"games": 5},
        opponents={"pool": ["random"]},
        algo={"name": "maskable_ppo", "gamma": 1.0},
    )
    finished = record_finished_games(monkeypatch)
    demos = collect_demonstrations(config)
    assert demos.games == 5 and len(demos.actions) == len(demos.observations) == len(demos.returns)
    # Asrus: one move per turn, every seat plays every turn of a 5-player game.
    assert len(demos.actions) % 5 == 0
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()  # legal moves only
    # The win reward (default) is paid at the end and gamma 1 carries it back: each
    # game's moves share one return, 1/k to each of k winners, -1/(5-k) to the rest.
    per_game = demos.returns.reshape(5, -1)
    assert (per_game == per_game[:, :1]).all()
    assert len(finished) == 5
    expected = [win_rewards(5, winners)[seat] for winners, seat in finished]
    assert per_game[:, 0].tolist() == pytest.approx(expected)
    shares = [1 / len(winners) if seat in winners else 0.0 for winners, seat in finished]
    assert demos.won == pytest.approx(np.mean(shares))
    again = collect_demonstrations(config)
    assert np.array_equal(demos.actions, again.actions)
    assert np.array_equal(demos.observations, again.observations)


def record_finished_games(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[int], int]]:
    """Each game the self-play env finishes from now on, as (its winners, the
    learner's seat), read from the engine when the env reports the result."""
    finished: list[tuple[list[int], int]] = []
    report = SelfPlayEnv._result

    def recording(env: SelfPlayEnv) -> dict:
        winners = [env.agents.index(agent) for agent in env.raw.winners]
        finished.append((winners, env.agents.index(env.learner)))
        return report(env)

    monkeypatch.setattr(SelfPlayEnv, "_result", recording)
    return finished


def fresh_model(config) -> object:
    """An untrained learner for ``config``'s env, as a run builds it."""
    from flockgym.training.learners import get_learner
    from flockgym.training.vec_env import make_vec_env

    venv = make_vec_env(
        "DummyVecEnv",
        1,
        1,
        env_kwargs={"env_id": config.env.id, "env_options": config.env.options, "pool": ["random"]},
    )
    return get_learner("maskable_ppo").build(venv, config.algo, config.seed)


def test_pretraining_moves_the_policy_to_the_teacher(tmp_path: Path) -> None:
    config = tiny_config("arena_v0", tmp_path, **ARENA)
    report = pretrain(fresh_model(config), config)
    assert report.games == 6 and report.held_out_games == 0 and report.decisions > 100
    assert report.accuracy_after > report.accuracy_before + 0.1
    assert report.value_loss_after < report.value_loss_before
    assert "pretrained on" in report.line() and "held-out" not in report.line()


def test_a_tenth_of_the_games_is_held_out_and_measured_alone(tmp_path: Path) -> None:
    config = tiny_config("asrus_v0", tmp_path, pretrain={"games": 20, "epochs": 20})
    moves = len(collect_demonstrations(config).actions)
    report = pretrain(fresh_model(config), config)
    assert (report.games, report.held_out_games) == (18, 2)
    assert report.decisions == moves * 18 // 20  # every Asrus game is as long
    assert 0 < report.held_out_accuracy < 1 and report.held_out_value_loss > 0
    assert "on 2 held-out games" in report.line()


def test_a_run_with_pretraining_is_reproducible_and_differs_without(tmp_path: Path) -> None:
    first = train(tiny_config("arena_v0", tmp_path / "a", **ARENA))
    again = train(tiny_config("arena_v0", tmp_path / "b", **ARENA))
    assert same_weights(first / "final.zip", again / "final.zip")
    plain = train(tiny_config("arena_v0", tmp_path / "c", **{**ARENA, "pretrain": {"games": 0}}))
    assert not same_weights(first / "final.zip", plain / "final.zip")
    pretrain_tags = {tag for tag, _ in assert_logged_once(first) if tag.startswith("pretrain/")}
    assert "pretrain/held_out_accuracy" in pretrain_tags and len(pretrain_tags) == 7
    assert not any(tag.startswith("pretrain/") for tag, _ in assert_logged_once(plain))


def test_a_crashed_run_resumes_without_pretraining_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = train(tiny_config("arena_v0", tmp_path / "whole", **ARENA))
    crashed = crashed_run(
        tiny_config("arena_v0", tmp_path / "crashed", **ARENA), monkeypatch, at_step=768
    )
    assert read_state(crashed).step == 512

    def no_second_pretraining(*args, **kwargs):
        raise AssertionError("a resumed run pretrained again")

    monkeypatch.setattr(train_module, "imitate_teacher", no_second_pretraining)
    resumed = resume_run(crashed)
    assert same_weights(whole / "final.zip", resumed / "final.zip")


@pytest.mark.parametrize(
    ("pretrain", "expected"),
    [
        ({"games": 3, "teacher": "heurstic"}, "pretrain.teacher = 'heurstic'"),
        ({"games": -1}, "pretrain.games"),
        ({"games": 3, "epochs": 0}, "pretrain.epochs"),
        ({"games": 3, "learning_rate": 0}, "pretrain.learning_rate"),
        ({"games": 3, "rounds": 2}, "pretrain.rounds"),
    ],
)
def test_bad_pretrain_settings_are_refused_by_name(
    tmp_path: Path, pretrain: dict, expected: str
) -> None:
    with pytest.raises(ConfigError, match=expected.replace(".", r"\.")):
        tiny_config("asrus_v0", tmp_path, pretrain=pretrain)
