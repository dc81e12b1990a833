"""The AEC base's running-game path (``step`` and ``last`` while nobody is done)
against its general path, step by step, for every game.

The general path is the reference: an env whose ``_live`` flag never holds
takes it on every step. Both envs play the same actions; after each step their
observations, masks, rewards, flags, selection and state dicts must be equal,
and an illegal action must be refused with the same message and effect.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from flockgym.envs import env_module, list_envs
from flockgym.envs.core.aec import FlockAECEnv
from flockgym.envs.core.errors import IllegalActionError

ENV_IDS = list_envs()


def general_twin(env_id: str, **options: Any) -> FlockAECEnv:
    """A raw env of ``env_id`` that always takes the general path."""
    base = type(env_module(env_id).env().unwrapped)

    class General(base):  # type: ignore[misc, valid-type]
        @property
        def _live(self) -> bool:
            return False

        @_live.setter
        def _live(self, value: bool) -> None:
            pass

    return General(**options)


def fast(env_id: str, **options: Any) -> FlockAECEnv:
    return env_module(env_id).env(**options).unwrapped


def same_now(a: FlockAECEnv, b: FlockAECEnv) -> None:
    """Everything an agent or a saved state can tell about the two envs."""
    assert a.agents == b.agents and a.agent_selection == b.agent_selection
    assert a.rewards == b.rewards and a._cumulative_rewards == b._cumulative_rewards
    assert a.terminations == b.terminations and a.truncations == b.truncations
    assert a.state_dict() == b.state_dict()
    if a.agents:
        got, want = a.last(), b.last()
        np.testing.assert_array_equal(got[0]["observation"], want[0]["observation"])
        np.testing.assert_array_equal(got[0]["action_mask"], want[0]["action_mask"])
        assert got[0]["observation"].dtype == want[0]["observation"].dtype
        assert got[0]["action_mask"].dtype == np.int8
        assert got[1:] == want[1:]
        np.testing.assert_array_equal(
            got[0]["observation"], a.observe(a.agent_selection)["observation"]
        )


def play_both(a: FlockAECEnv, b: FlockAECEnv, seed: int, illegal_every: int = 0) -> int:
    """One game on both envs with the same random actions; the count of steps."""
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while a.agents:
        same_now(a, b)
        _, _, terminated, truncated, _ = a.last(observe=False)
        if terminated or truncated:
            action: Any = None
        else:
            legal = np.flatnonzero(a.action_mask(a.agent_selection))
            action = int(rng.choice(legal))
            if illegal_every and steps % illegal_every == illegal_every - 1:
                illegal = np.flatnonzero(a.action_mask(a.agent_selection) == 0)
                action = int(illegal[0]) if len(illegal) else action
            elif steps % 3 == 1:
                action = np.int64(action)  # NumPy ids take the checked path
        a.step(action)
        b.step(action)
        steps += 1
    same_now(a, b)
    return steps


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("reward", ["win", "score", "rank"])
def test_running_path_matches_the_general_path(env_id: str, reward: str) -> None:
    options = {"reward": reward}
    steps = sum(
        play_both(fast(env_id, **options), general_twin(env_id, **options), seed)
        for seed in range(2)
    )
    assert steps > 20


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_step_cap_and_penalty_match_the_general_path(env_id: str) -> None:
    capped = {"max_steps": 7}
    assert play_both(fast(env_id, **capped), general_twin(env_id, **capped), 1) == 7 + len(
        fast(env_id).possible_agents
    )
    penalize = {"illegal_action": "penalize", "reward": "score"}
    play_both(fast(env_id, **penalize), general_twin(env_id, **penalize), 2, illegal_every=5)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("bad", [-1, 10**6, "x", True, 1.0])
def test_a_refused_action_is_refused_alike(env_id: str, bad: Any) -> None:
    a, b = fast(env_id, reward="score"), general_twin(env_id, reward="score")
    a.reset(seed=0)
    b.reset(seed=0)
    errors = []
    for env in (a, b):
        with pytest.raises(IllegalActionError) as caught:
            env.step(bad)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    same_now(a, b)
    illegal = np.flatnonzero(a.action_mask(a.agent_selection) == 0)
    if len(illegal):
        messages = []
        for env in (a, b):
            with pytest.raises(IllegalActionError) as caught:
                env.step(int(illegal[0]))
            messages.append(str(caught.value))
        assert messages[0] == messages[1]
        same_now(a, b)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_loaded_finished_game_takes_dead_steps(env_id: str) -> None:
    """A state saved after the end loads as not running: ``step`` is a dead step."""
    a = fast(env_id, max_steps=3)
    a.reset(seed=0)
    for _ in range(3):
        a.step(int(np.flatnonzero(a.action_mask(a.agent_selection))[0]))
    assert all(a.truncations.values())
    saved = a.state_dict()
    b = fast(env_id, max_steps=3)
    b.load_state_dict(saved)
    assert not b._live
    live_agents = len(b.agents)
    b.step(None)
    assert len(b.agents) == live_agents - 1


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_is_legal_id_agrees_with_the_mask(env_id: str) -> None:
    """The engine's one-action legality check (asked before every step) against
    its mask, for every action id, through whole games and after the end."""
    env = fast(env_id)
    rng = np.random.default_rng(4)
    checked = 0
    for seed in range(2):
        env.reset(seed=seed)
        while env.agents:
            game = env.game
            assert game is not None
            n = env.num_actions
            expected = game.legal_mask(n).astype(bool).tolist()
            assert [game.is_legal_id(a, n) for a in range(n)] == expected
            checked += 1
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    assert checked > 20
