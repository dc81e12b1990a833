"""Every recipe of examples/ runs, on a few hundred steps."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_sb3_maskable_ppo_on_the_selfplay_env(tmp_path: Path) -> None:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)  # torch's default on a 2-core machine
    try:
        done = load("sb3_maskable_ppo").main(steps=256, out=tmp_path)
        # it learns on one torch thread, what a small shared machine needs
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    assert done["checkpoint"].is_file()
    assert [s.name for s in done["result"].standings] == ["mine", "random"]


def test_torchrl_pettingzoo_wrapper_with_masks() -> None:
    pytest.importorskip("torchrl", reason="the torchrl extra is not installed")
    done = load("torchrl_pettingzoo").main(steps=200)
    assert done["steps"] >= 200 and done["groups"] == ["player_0", "player_1", "player_2"]


def test_supersuit_vector_envs_on_the_parallel_api() -> None:
    done = load("supersuit_vectors").main(steps=100, tables=2)
    assert done["rows"] == 6 and done["finished"] > 0


def test_a_flockgym_bot_in_your_own_loop() -> None:
    wins = load("own_loop_bot").main(games=2)
    assert sum(wins.values()) == pytest.approx(2)


def test_rllib_pettingzoo_env_layout_without_ray() -> None:
    """The env for RLlib's own PettingZooEnv: RLlib's masking keys, PettingZoo's
    api_test, and an unmasked illegal action (RLlib's env checker) penalized."""
    done = load("rllib_pettingzoo").main(games=3)
    assert sorted(done["space"]("player_0").spaces) == ["action_mask", "observations"]
    assert done["won"] == 3
    assert done["penalty"] == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
