"""The linear learning-rate schedule (``algo.learning_rate_schedule: linear``):
the rate each update used, from the run's own logs, falls from the configured
rate to 0 at ``total_steps``; a crashed run resumes with the very same rates
and weights; a schedule the learner does not know is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_train_run import assert_logged_once, same_weights
from training_helpers import crashed_run, tiny_config

from flockgym.training.config import ConfigError
from flockgym.training.runs import read_state
from flockgym.training.train import resume_run, train

RATE = 1e-3
LINEAR = {"algo": {"name": "maskable_ppo", "n_steps": 128, "batch_size": 128, "n_epochs": 2,
                   "net_arch": [32, 32], "learning_rate": RATE,
                   "learning_rate_schedule": "linear"}}  # fmt: skip
"""2 envs x 128 steps: updates at steps 256, 512, 768 and 1024 of 1024."""


def rates(run: Path) -> dict[int, float]:
    """The learning rate each update used, by step, as SB3 logged it."""
    logged = assert_logged_once(run)
    return {step: value for (tag, step), value in logged.items() if tag == "train/learning_rate"}


def test_the_linear_schedule_falls_to_zero_at_total_steps(tmp_path: Path) -> None:
    run = train(tiny_config("asrus_v0", tmp_path / "linear", **LINEAR))
    expected = {step: RATE * (1 - step / 1024) for step in (256, 512, 768, 1024)}
    assert rates(run) == pytest.approx(expected, abs=1e-9)
    flat = {**LINEAR["algo"], "learning_rate_schedule": "constant"}
    constant = train(tiny_config("asrus_v0", tmp_path / "constant", algo=flat))
    assert rates(constant) == pytest.approx({step: RATE for step in expected})
    assert not same_weights(run / "final.zip", constant / "final.zip")


def test_a_crashed_linear_run_resumes_with_the_same_rates_and_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = train(tiny_config("asrus_v0", tmp_path / "whole", **LINEAR))
    crashed = crashed_run(
        tiny_config("asrus_v0", tmp_path / "crashed", **LINEAR), monkeypatch, at_step=768
    )
    assert read_state(crashed).step == 512
    resumed = resume_run(crashed)
    assert rates(resumed) == rates(whole)
    assert same_weights(whole / "final.zip", resumed / "final.zip")


def test_an_unknown_schedule_is_refused_naming_the_allowed_ones(tmp_path: Path) -> None:
    cosine = {**LINEAR["algo"], "learning_rate_schedule": "cosine"}
    with pytest.raises(ConfigError) as info:
        tiny_config("asrus_v0", tmp_path, algo=cosine)
    message = str(info.value)
    assert "learning_rate_schedule" in message and "'constant'" in message
    assert "'linear'" in message


@pytest.mark.parametrize("total_steps", [None, 0])
def test_a_linear_schedule_without_a_length_is_refused_naming_it(
    tmp_path: Path, total_steps: int | None
) -> None:
    """Only code building the learner itself can get here (``flockgym train``
    always passes the run's length): the error names the argument and its values."""
    from flockgym.training.learners import get_learner
    from flockgym.training.vec_env import make_vec_env

    config = tiny_config("asrus_v0", tmp_path, **LINEAR)
    venv = make_vec_env(
        "DummyVecEnv",
        1,
        1,
        env_kwargs={"env_id": "asrus_v0", "env_options": {}, "pool": ["random"]},
    )
    with pytest.raises(ValueError) as info:
        get_learner("maskable_ppo").build(venv, config.algo, 0, total_steps=total_steps)
    message = str(info.value)
    assert "total_steps" in message and "int >= 1" in message and repr(total_steps) in message
