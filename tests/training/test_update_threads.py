"""``algo.update_threads``: the PPO update on more torch threads than the rollout."""

from __future__ import annotations

from pathlib import Path

import torch
from training_helpers import tiny_config

from flockgym.training.learners import train_with_threads
from flockgym.training.policies import load_policy
from flockgym.training.train import train


def test_the_update_runs_on_its_threads_and_gives_the_rollout_its_own_back() -> None:
    saved = torch.get_num_threads()
    seen = []
    try:
        torch.set_num_threads(1)
        train_with_threads(lambda: seen.append(torch.get_num_threads()), 2)
        assert seen == [2]
        assert torch.get_num_threads() == 1

        def fails() -> None:
            raise RuntimeError("update failed")

        try:
            train_with_threads(fails, 2)
        except RuntimeError as err:
            assert str(err) == "update failed"
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(saved)


def final_weights(run: Path) -> dict[str, torch.Tensor]:
    return load_policy(run / "final.zip").network.state_dict()


def test_a_run_with_update_threads_repeats_exactly(tmp_path: Path) -> None:
    changes = {"vec_env": "batched", "total_steps": 512, "algo__update_threads": 2}
    first = train(tiny_config("asrus_v0", tmp_path / "a", **changes))
    assert torch.get_num_threads() == 1  # the config's torch_threads, for the rollouts
    second = train(tiny_config("asrus_v0", tmp_path / "b", **changes))
    a, b = final_weights(first), final_weights(second)
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name
