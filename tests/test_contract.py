"""The contract every registered env keeps, checked the same way for each: for
every env of ``list_envs()``, every player count it supports and every option
sample it declares (``option_samples_for``, as the soak plays them), PettingZoo's
``api_test`` and ``seed_test``, ``render_test`` in each of the env's render modes,
and a state round trip (``state_dict`` -> JSON -> a fresh env: the same state,
every seat's observation and mask the same, and the same game from there on).

A game registered tomorrow is covered the day it is registered, with the option
samples it declares; a game's own test files keep only what is particular to it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aec_helpers import random_action
from pettingzoo.test import api_test, render_test, seed_test

from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.core.soak import configurations

API_CYCLES = 200
"""Cycles of ``api_test`` and ``seed_test`` per configuration: every
configuration is played, so each can be short."""
ROUND_TRIP_EVERY = 40
"""Steps between two round trips of one game."""
ROUND_TRIP_STEPS = 800
"""Steps of one game checked by round trips (or fewer, where it ends first): the
random games of every configuration end within them, but Skybirds' at its
default options, which random play does not end."""


def value_id(value: Any) -> str:
    """An option value in a test id: a file by its name, a table by its length."""
    if isinstance(value, str) and "/" in value:
        return Path(value).name
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        return f"<{len(value)} rows>"
    return str(value).replace(" ", "")


def conf_id(conf: dict[str, Any]) -> str:
    """A readable test id: ``4p`` for the defaults, ``4p-max_rounds=1`` else."""
    options = [f"{k}={value_id(v)}" for k, v in conf.items() if k != "num_players"]
    return "-".join([f"{conf['num_players']}p", *options])


CASES = [
    pytest.param(env_id, conf, id=f"{env_id}-{conf_id(conf)}")
    for env_id in list_envs()
    for conf in configurations(env_id)
]


def test_every_env_player_count_and_option_sample_is_covered():
    """``configurations`` is every player count x every accepted option sample,
    so an env whose samples the contract silently skips shows here."""
    for env_id in list_envs():
        counts = {conf["num_players"] for conf in configurations(env_id)}
        assert counts == set(ENVS[env_id].player_counts), env_id
    assert {case.values[0] for case in CASES} == set(list_envs())


@pytest.mark.parametrize(("env_id", "conf"), CASES)
def test_pettingzoo_api_seed_and_render(env_id: str, conf: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # api_test warns that the observation is a dict (the action-mask
        # convention), and its reset passes an option the env names and ignores
        warnings.simplefilter("ignore")
        api_test(make(env_id, **conf), num_cycles=API_CYCLES)
        seed_test(lambda: make(env_id, **conf), num_cycles=API_CYCLES)
    modes = make(env_id, **conf).unwrapped.metadata["render_modes"]
    assert modes, f"{env_id} names no render mode"
    render_test(
        lambda render_mode: make(env_id, **conf, render_mode=render_mode),
        custom_tests={"ansi": lambda text: bool(text.strip())},
    )


def as_json(state: dict[str, Any]) -> Any:
    """``state`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(state))


def restored(env_id: str, conf: dict[str, Any], env: Any) -> Any:
    """A fresh env of the same options, reset to another deal, loaded with
    ``env``'s state through JSON."""
    blob = as_json(env.unwrapped.state_dict())
    twin = make(env_id, **conf)
    twin.reset(seed=10_000)
    twin.unwrapped.load_state_dict(blob)
    assert as_json(twin.unwrapped.state_dict()) == blob
    return twin


def assert_same_table(env: Any, twin: Any) -> None:
    """Every seat observes the same vector and mask in both envs, and the same
    agent is to act with the same rewards and ends."""
    assert twin.agents == env.agents
    assert twin.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        ours, theirs = env.observe(agent), twin.observe(agent)
        np.testing.assert_array_equal(theirs["observation"], ours["observation"], err_msg=agent)
        np.testing.assert_array_equal(theirs["action_mask"], ours["action_mask"], err_msg=agent)
    for table in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
        assert getattr(twin, table) == getattr(env, table), table


def lockstep(env: Any, twin: Any, rng: np.random.Generator, steps: int) -> None:
    """The same random legal moves in both envs, compared after each."""
    for _ in range(steps):
        if not env.agents:
            return
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else random_action(observation, rng)
        env.step(action)
        twin.step(action)
        assert twin.agents == env.agents
        if not env.agents:
            return
        assert twin.agent_selection == env.agent_selection
        assert twin.last()[1:4] == env.last()[1:4]
        np.testing.assert_array_equal(twin.last()[0]["action_mask"], env.last()[0]["action_mask"])


def check_round_trips(env_id: str, conf: dict[str, Any], seed: int = 7) -> int:
    """A round trip every ``ROUND_TRIP_EVERY`` steps of deal ``seed``, from the
    deal on; each restored env then plays the next stretch in lockstep with the
    original. Returns the number of round trips, after checking that they went on
    until the game ended or the step budget ran out (none was skipped)."""
    env = make(env_id, **conf)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trips = 0
    for _ in range(0, ROUND_TRIP_STEPS, ROUND_TRIP_EVERY):
        if not env.agents:
            break
        twin = restored(env_id, conf, env)
        assert_same_table(env, twin)
        lockstep(env, twin, rng, ROUND_TRIP_EVERY)
        assert as_json(twin.unwrapped.state_dict()) == as_json(env.unwrapped.state_dict())
        trips += 1
    assert not env.agents or trips == ROUND_TRIP_STEPS // ROUND_TRIP_EVERY, trips
    return trips


@pytest.mark.parametrize(("env_id", "conf"), CASES)
def test_state_round_trip_continues_identically(env_id: str, conf: dict[str, Any]) -> None:
    assert check_round_trips(env_id, conf) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("env_id", "conf"), CASES)
def test_state_round_trip_of_more_deals(env_id: str, conf: dict[str, Any], seed: int) -> None:
    assert check_round_trips(env_id, conf, seed) >= 1


def test_the_round_trip_catches_a_load_that_loses_the_dice(monkeypatch):
    """A load that reseeds the Arena's dice is caught: the check is not vacuous."""
    from flockgym.envs.arena.rules import ArenaGame

    original = ArenaGame.from_dict.__func__

    def forgetful(cls, *args, **kwargs):
        game = original(cls, *args, **kwargs)
        game.rng.bit_generator.state = np.random.default_rng(1).bit_generator.state
        return game

    assert check_round_trips("arena_v0", {"num_players": 2}) >= 1
    monkeypatch.setattr(ArenaGame, "from_dict", classmethod(forgetful))
    with pytest.raises(AssertionError):
        check_round_trips("arena_v0", {"num_players": 2})
