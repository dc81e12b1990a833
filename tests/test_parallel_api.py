"""``metadata["is_parallelizable"]`` tells the truth for every env: where it says
True, PettingZoo's ``aec_to_parallel`` makes a parallel env that passes
``parallel_api_test``; where it says False, the conversion is refused, and
forcing it would break (the reason checked for each env)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import aec_to_parallel

from flockgym.envs import IllegalActionError, list_envs, make, make_parallel

TURN_BASED = {"arena_v0", "astrobirdz_v0", "skybirds_v0"}
"""Envs whose seats do not all act once a cycle in seat order (a trick's leader,
the player whose turn it is, moves first)."""


def forced(env_id: str) -> Any:
    """``aec_to_parallel`` of the env with ``is_parallelizable`` forced True (on this
    instance only), to show what the flag protects against."""
    env = make(env_id)
    env.unwrapped.metadata = {**env.unwrapped.metadata, "is_parallelizable": True}
    env.metadata = env.unwrapped.metadata
    return aec_to_parallel(env)


@pytest.mark.parametrize("env_id", list_envs())
def test_is_parallelizable_is_true_only_where_aec_to_parallel_works(env_id: str) -> None:
    env = make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # parallel_api_test's reset passes an unknown option
        if env.unwrapped.metadata["is_parallelizable"]:
            parallel_api_test(aec_to_parallel(env), num_cycles=300)
            return
        with pytest.raises(AssertionError, match="is_parallelizable"):
            aec_to_parallel(env)
        with pytest.raises((AssertionError, IllegalActionError)):
            parallel_api_test(forced(env_id), num_cycles=300)


def test_no_env_declares_is_parallelizable() -> None:
    """Every AEC env masks all but the agent to act, which ``aec_to_parallel``
    cannot use (see the two tests below); Asrus's parallel env is native."""
    assert {
        env_id: make(env_id).unwrapped.metadata["is_parallelizable"] for env_id in list_envs()
    } == dict.fromkeys(list_envs(), False)


def test_asrus_forced_through_aec_to_parallel_shows_zero_masks_its_native_env_does_not() -> None:
    """At a turn's start every Asrus seat is to commit, but the AEC env masks all
    but player_0, and the converted env hands those zero masks to the others."""
    observations, _ = forced("asrus_v0").reset(seed=0)
    native, _ = make_parallel("asrus_v0").reset(seed=0)
    agents = sorted(native)
    assert [int(observations[a]["action_mask"].sum()) > 0 for a in agents] == [True] + [False] * (
        len(agents) - 1
    )
    assert all(native[a]["action_mask"].sum() > 0 for a in agents)
    np.testing.assert_array_equal(
        observations["player_0"]["action_mask"], native["player_0"]["action_mask"]
    )


@pytest.mark.parametrize("env_id", sorted(TURN_BASED))
def test_turn_based_envs_forced_through_aec_to_parallel_break_the_cycle(env_id: str) -> None:
    """Stepping every seat at once, in seat order, meets a seat not to act."""
    env = forced(env_id)
    # the Arena's character wishes go in seat order too, and a seat computes its
    # wish before its turn from an empty mask: give the characters
    names = ("Snowboardzerka", "Hoverboardzerka", "Spaceboardzerka", "Skateboardzerka")
    options = {"characters": dict(zip(env.possible_agents, names, strict=True))}
    observations, _ = env.reset(seed=0, options=options if env_id == "arena_v0" else None)
    actions = {
        agent: int(np.flatnonzero(obs["action_mask"])[0]) if obs["action_mask"].any() else 0
        for agent, obs in observations.items()
    }
    with pytest.raises(AssertionError, match="expects agents to step in a cycle"):
        for _ in range(50):  # a game may open with player_0's moves
            observations, *_ = env.step(actions)
            actions = {
                agent: int(np.flatnonzero(obs["action_mask"])[0]) if obs["action_mask"].any() else 0
                for agent, obs in observations.items()
            }
