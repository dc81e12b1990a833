"""``algo.update_threads``: the PPO update on more torch threads than the rollout."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from training_helpers import tiny_config

from flockgym.bots.policies import load_policy
from flockgym.training import learners
from flockgym.training.learners import train_with_threads
from flockgym.training.train import train


def test_the_update_runs_on_its_threads_and_gives_the_rollout_its_own_back() -> None:
    saved = torch.get_num_threads()
    seen: list[int] = []
    try:
        torch.set_num_threads(1)
        train_with_threads(lambda: seen.append(torch.get_num_threads()), 2)
        assert seen == [2]
        assert torch.get_num_threads() == 1

        def fails() -> None:
            raise RuntimeError("update failed")

        with pytest.raises(RuntimeError, match=r"^update failed$"):
            train_with_threads(fails, 2)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(saved)


def final_weights(run: Path) -> dict[str, torch.Tensor]:
    return load_policy(run / "final.zip").network.state_dict()


def test_a_run_updates_on_its_update_threads_and_repeats_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """512 steps of 2 envs x 128 (tiny_config): two updates, each on 2 threads while
    the rollouts between them keep the config's one."""
    update_threads: list[int] = []
    rollout_threads: list[int] = []

    def recorded(update, threads: int) -> None:
        rollout_threads.append(torch.get_num_threads())
        train_with_threads(
            lambda: (update_threads.append(torch.get_num_threads()), update()), threads
        )

    monkeypatch.setattr(learners, "train_with_threads", recorded)
    changes = {"vec_env": "batched", "total_steps": 512, "algo__update_threads": 2}
    first = train(tiny_config("asrus_v0", tmp_path / "a", **changes))
    assert update_threads == [2, 2]
    assert rollout_threads == [1, 1]
    assert torch.get_num_threads() == 1  # the config's torch_threads, for the rollouts
    second = train(tiny_config("asrus_v0", tmp_path / "b", **changes))
    a, b = final_weights(first), final_weights(second)
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name
