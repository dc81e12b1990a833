"""Driving any flockgym AEC env with random legal moves, for the tests of every game."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pettingzoo
from pettingzoo.test import parallel_seed_test

PETTINGZOO_HAS_REGISTRY = hasattr(pettingzoo, "make")
"""PettingZoo's env registry (``pettingzoo.make``) arrived in 1.27; flockgym
supports older releases without it."""


def parallel_seed_test_compat(make_env: Any, num_cycles: int) -> None:
    """PettingZoo's ``parallel_seed_test``, whose ``num_cycles`` argument older
    releases do not take."""
    if "num_cycles" in inspect.signature(parallel_seed_test).parameters:
        parallel_seed_test(make_env, num_cycles=num_cycles)
    else:
        parallel_seed_test(make_env)


def random_action(observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A uniformly random action among those the mask allows."""
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


def random_steps(env: Any, rng: np.random.Generator, count: int) -> None:
    """``count`` random legal AEC steps (terminated agents step ``None``)."""
    for _ in range(count):
        if not env.agents:
            return
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_action(observation, rng))


def play_out(env: Any, rng: np.random.Generator) -> dict[str, float]:
    """Play random legal moves to the end; return each agent's summed reward."""
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        env.step(None if terminated or truncated else random_action(observation, rng))
    return returns
