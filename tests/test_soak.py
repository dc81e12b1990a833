"""A short soak of every registered env (the long one is ``make soak``): play over
every player count and option sample at random, heuristic and mixed tables, with
the contract checked at every step, including a JSON state round trip, an
illegal-action probe and every seat's observation against a fresh load of the
state."""

from __future__ import annotations

import pytest

from flockgym.envs import OptionError, list_envs
from flockgym.envs.asrus.env import raw_env as AsrusEnv
from flockgym.envs.core.soak import TABLES, Soak, configurations, soak_env


@pytest.mark.parametrize("env_id", list_envs())
def test_a_short_soak_finds_nothing(env_id):
    report = soak_env(env_id, steps=1500, seed=1)
    assert report.violations == []
    assert report.steps >= 1500 and report.round_trips == report.steps
    assert report.illegal_probes > 0 and report.games > 0
    assert report.ended + report.truncated == report.games
    assert report.observation_checks > 0 and report.heuristic_games > 0


@pytest.mark.parametrize("env_id", list_envs())
def test_heuristic_tables_end_games_by_the_rules(env_id):
    """Random play never ends some games (Skybirds at its default options); the
    heuristic tables do, so every game's natural end is soaked."""
    report = soak_env(env_id, steps=400, seed=2, tables=("heuristic",))
    assert report.violations == []
    assert report.heuristic_games == report.games
    assert report.heuristic_ended >= 1 and report.ended == report.heuristic_ended


def test_the_soak_flags_an_observation_that_goes_stale(monkeypatch):
    """An observer that shows the previous step's vector every other step (a
    cache that is not invalidated by every move) is caught."""
    original = AsrusEnv._encode_observation

    def stale(self, seat):
        cache = self.__dict__.setdefault("_test_cache", {})
        key = (id(self.game), self.steps // 2, seat)
        if key not in cache:
            cache[key] = original(self, seat).copy()
        return cache[key]

    monkeypatch.setattr(AsrusEnv, "_encode_observation", stale)
    report = Soak("asrus_v0", steps=300, seed=0, max_violations=1).run()
    assert len(report.violations) == 1
    assert "observes differently from a fresh load of the state" in report.violations[0]


def test_unknown_table_kinds_are_refused():
    with pytest.raises(OptionError, match=r"soak tables \['casino'\]: allowed: some of"):
        Soak("asrus_v0", steps=10, tables=("casino",))
    assert TABLES == ("random", "heuristic", "mixed")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", list_envs())
def test_a_longer_soak_finds_nothing(env_id):
    report = soak_env(env_id, steps=60_000, seed=2)
    assert report.violations == []
    assert report.configurations == len(configurations(env_id))
    assert report.heuristic_ended > 0
