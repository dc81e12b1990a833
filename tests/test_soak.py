"""A short soak of every registered env (the long one is ``make soak``): random
legal play over every player count and option sample with the contract checked
at every step, including a JSON state round trip and an illegal-action probe."""

from __future__ import annotations

import pytest

from flockgym.envs import list_envs
from flockgym.envs.core.soak import configurations, soak_env


@pytest.mark.parametrize("env_id", list_envs())
def test_a_short_soak_finds_nothing(env_id):
    report = soak_env(env_id, steps=1500, seed=1)
    assert report.violations == []
    assert report.steps >= 1500 and report.round_trips == report.steps
    assert report.illegal_probes > 0 and report.games > 0


@pytest.mark.slow
@pytest.mark.parametrize("env_id", list_envs())
def test_a_longer_soak_finds_nothing(env_id):
    report = soak_env(env_id, steps=60_000, seed=2)
    assert report.violations == []
    assert report.configurations == len(configurations(env_id))
