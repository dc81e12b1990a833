"""stable-baselines3's own entry point builds the self-play envs: ``make_vec_env``
asks for ``render_mode="rgb_array"`` and, on a TypeError alone, builds the env
again without it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env

from flockgym.envs import OptionError, list_envs
from flockgym.training.selfplay import RenderModeError, gymnasium_id, selfplay_env


@pytest.mark.parametrize("env_id", list_envs())
def test_make_vec_env_builds_two_selfplay_envs_that_play_masked_moves(env_id: str) -> None:
    """Two envs from ``make_vec_env``, seeded: their observations and masks after a
    reset and after each of 4 steps are those of the self-play env built directly
    with the same seeds and moves."""
    venv = make_vec_env(gymnasium_id(env_id), n_envs=2, seed=7)
    direct = [selfplay_env(env_id) for _ in range(2)]
    try:
        observations = venv.reset()
        expected = [env.reset(seed=7 + i)[0] for i, env in enumerate(direct)]
        for _ in range(5):
            masks = get_action_masks(venv)
            assert masks.dtype == bool and masks.shape == (2, venv.action_space.n)
            for i, env in enumerate(direct):
                np.testing.assert_array_equal(observations[i], expected[i])
                np.testing.assert_array_equal(masks[i], env.action_masks())
            actions = np.array([np.flatnonzero(mask)[-1] for mask in masks])
            observations, _, dones, _ = venv.step(actions)
            expected = []
            for env, action, done in zip(direct, actions, dones, strict=True):
                observation, _, terminated, truncated, _ = env.step(int(action))
                assert bool(done) == (terminated or truncated)
                expected.append(observation)
    finally:
        venv.close()


def test_maskable_ppo_learns_on_make_vec_env() -> None:
    venv = make_vec_env(gymnasium_id("asrus_v0"), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(32)
    assert model.num_timesteps == 32
    venv.close()


@pytest.mark.parametrize("mode", ["rgb_array", "human", "text"])
def test_a_render_mode_it_does_not_draw_is_refused_naming_the_allowed(mode: str) -> None:
    with pytest.raises(RenderModeError) as info:
        gymnasium.make(gymnasium_id("asrus_v0"), render_mode=mode)
    assert isinstance(info.value, OptionError) and isinstance(info.value, TypeError)
    assert str(info.value).startswith(
        f"render_mode={mode!r}; allowed: None, 'ansi' (the table as text; no image is drawn)"
    )
