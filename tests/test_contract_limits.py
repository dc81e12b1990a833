"""The parts of the contract the core enforces for every registered env: the
``max_steps`` truncation, checked reset arguments, integer action types, and
``load_state_dict`` refusing a bad AEC section while leaving the env as it was."""

from __future__ import annotations

import enum
import json
from typing import Any

import numpy as np
import pytest

from flockgym.envs import ENVS, OptionError, StateDictError, list_envs, make
from flockgym.envs.core.soak import accepts, configurations
from tests.aec_helpers import random_action, random_steps

ENV_IDS = list_envs()


def fresh(env_id: str, **options: Any) -> Any:
    env = make(env_id, **options)
    env.reset(seed=3)
    return env


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("reward", ["win", "rank", "score"])
def test_max_steps_truncates_without_a_winner(env_id, reward):
    env = fresh(env_id, max_steps=4, reward=reward)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    scores_before = dict(env.unwrapped.scores)
    actions = 0
    for agent in env.agent_iter():
        observation, reward_now, terminated, truncated, _ = env.last()
        returns[agent] += reward_now
        if terminated or truncated:
            assert truncated and not terminated
            env.step(None)
            continue
        env.step(random_action(observation, rng))
        actions += 1
    assert actions == 4
    assert env.unwrapped.steps == 4 and env.unwrapped.is_truncated()
    assert env.unwrapped.winners == []
    if reward != "score":
        assert returns == dict.fromkeys(env.possible_agents, 0.0)
    else:
        after = env.unwrapped.scores
        assert returns == pytest.approx({a: after[a] - scores_before[a] for a in after})


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_env_has_a_finite_default_step_cap(env_id):
    env = make(env_id)
    assert isinstance(env.unwrapped.max_steps, int) and env.unwrapped.max_steps >= 1000
    with pytest.raises(OptionError, match=r"max_steps=0 is not allowed; allowed: an integer >= 1"):
        make(env_id, max_steps=0)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("seed", ["abc", 1.5, -1, True])
def test_a_bad_seed_names_what_is_allowed(env_id, seed):
    env = make(env_id)
    with pytest.raises(OptionError, match=r"seed .* allowed: an integer >= 0 or None"):
        env.reset(seed=seed)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_reset_options_must_be_a_dict(env_id):
    env = make(env_id)
    with pytest.raises(OptionError, match=r"reset options must be a dict \(or None\), got int"):
        env.reset(seed=0, options=1)
    env.reset(seed=np.int64(5))  # NumPy integers are fine


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_string_to_action_refuses_a_non_string(env_id):
    env = fresh(env_id)
    with pytest.raises(ValueError, match=r"an action string must be a str, got int"):
        env.unwrapped.string_to_action(env.agent_selection, 5)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_an_int_enum_equal_to_a_legal_id_is_accepted(env_id):
    env = fresh(env_id)
    legal = env.unwrapped.legal_actions()
    Move = enum.IntEnum("Move", {"CHOSEN": legal[0]})
    reference = fresh(env_id)
    env.step(Move.CHOSEN)
    reference.step(legal[0])
    assert env.unwrapped.state_dict() == reference.unwrapped.state_dict()


def aec_corruptions(env: Any) -> list[tuple[str, Any, str]]:
    """(field, bad value, message fragment) for the AEC section of a running game."""
    agents = env.possible_agents
    to_act = env.agent_selection
    other = next(a for a in agents if a != to_act)
    return [
        ("agent_selection", other, "but the game has"),
        ("agent_selection", "player_99", "is not an agent of this env"),
        ("agents", agents[::-1], "in seat order"),
        ("agents", agents[1:], "exactly the live agents"),
        ("rewards", {**dict.fromkeys(agents, 0.0), agents[0]: float("nan")}, "not a finite"),
        ("rewards", {**dict.fromkeys(agents, 0.0), agents[0]: float("inf")}, "not a finite"),
        ("rewards", {**dict.fromkeys(agents, 0.0), agents[0]: "1"}, "is not a number"),
        ("rewards", {agents[0]: 0.0}, "exactly the live agents"),
        ("cumulative_rewards", [0.0], "exactly the live agents"),
        ("terminations", dict.fromkeys(agents, True), "expected False/False"),
        ("truncations", dict.fromkeys(agents, 1), "is not true or false"),
        ("penalized", "player_0", "must be None or a seat"),
        ("penalized", 0, "expected True/False"),
        ("steps", -1, "is not an integer >= 0"),
        ("steps", 10**9, "past this env's max_steps"),
        ("skip_agent_selection", 3, "is not an agent of this env"),
    ]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_bad_aec_section_is_refused_and_the_env_is_left_as_it_was(env_id):
    env = fresh(env_id)
    random_steps(env, np.random.default_rng(1), 3)
    good = json.loads(json.dumps(env.unwrapped.state_dict()))
    target = fresh(env_id)
    random_steps(target, np.random.default_rng(2), 5)
    before = json.dumps(target.unwrapped.state_dict())
    for field, value, message in aec_corruptions(env):
        data = json.loads(json.dumps(good))
        data["aec"][field] = value
        with pytest.raises(StateDictError, match=message):
            target.unwrapped.load_state_dict(data)
        assert json.dumps(target.unwrapped.state_dict()) == before, field
    missing = json.loads(json.dumps(good))
    del missing["aec"]["steps"]
    with pytest.raises(StateDictError, match=r"aec: missing field\(s\) \['steps'\]"):
        target.unwrapped.load_state_dict(missing)
    target.unwrapped.load_state_dict(good)
    assert json.loads(json.dumps(target.unwrapped.state_dict())) == good


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_observations_stay_in_their_box_for_every_option_sample(env_id):
    """Random states of every option sample at every player count lie in the
    declared observation space (the soak checks the same at scale)."""
    entry = ENVS[env_id]
    env_class = make(env_id).unwrapped.__class__
    rng = np.random.default_rng(0)
    for options in env_class.option_samples:
        playable = [n for n in entry.player_counts if accepts(env_id, n, options)]
        assert playable, f"option sample {options} is refused at every player count"
    for conf in configurations(env_id):
        env = make(env_id, **conf)
        env.reset(seed=int(rng.integers(1 << 30)))
        space = env.observation_space(env.possible_agents[0])
        for step, agent in enumerate(env.agent_iter()):
            observation, _, terminated, truncated, _ = env.last()
            assert space.contains(observation), (conf, agent, step)
            if step >= 150:
                break
            env.step(None if terminated or truncated else random_action(observation, rng))
