"""Batched self-play in worker processes plays the games one process plays: same
seed, same deals, seats, opponents and moves, on the scalar and the vectorised
engine; a run with workers ends with the weights of the same run without."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from test_train_batched import assert_same, dummy, env_kwargs, play
from training_helpers import tiny_config
from training_policies_helpers import write_checkpoint

from flockgym.envs import OptionError
from flockgym.training import load_policy
from flockgym.training.config import ConfigError
from flockgym.training.parallel import ParallelBatchedVecEnv, WorkerError, slices
from flockgym.training.train import train


def test_games_are_split_in_contiguous_slices() -> None:
    assert slices(8, 2) == [range(0, 4), range(4, 8)]
    assert slices(5, 2) == [range(0, 3), range(3, 5)]
    assert slices(3, 3) == [range(0, 1), range(1, 2), range(2, 3)]
    with pytest.raises(OptionError, match=r"workers=4 for 3 games; allowed: 1 to 3"):
        slices(3, 4)
    with pytest.raises(OptionError, match=r"workers=0 .* allowed: 1 to 2"):
        slices(2, 0)


def test_workers_play_the_games_dummyvecenv_plays(tmp_path: Path) -> None:
    """Astrobirdz on the scalar engine, a snapshot in the pool, a second one added
    part way (as training adds them), game 1 and game 2 in different workers."""
    snapshot = str(write_checkpoint(tmp_path / "snapshot.zip", "astrobirdz_v0"))
    kwargs = env_kwargs("astrobirdz_v0", ["random", "heuristic"], [snapshot])
    one_process = dummy(3, kwargs)
    workers = ParallelBatchedVecEnv(3, kwargs, engine="scalar", workers=2)
    try:
        expected = play(one_process, 60, seed=5)
        seen = play(workers, 60, seed=5)
        assert_same(seen, expected)
        for venv in (one_process, workers):
            venv.env_method("add_snapshot", snapshot)
        assert_same(play(workers, 60, seed=6), play(one_process, 60, seed=6))
        assert workers.get_attr("seat_offset") == [0, 1, 2]
        assert workers.get_attr("learner", indices=[2, 0]) == [
            one_process.get_attr("learner", indices=[2])[0],
            one_process.get_attr("learner", indices=[0])[0],
        ]
        assert workers.has_attr("action_masks") and not workers.has_attr("no_such_thing")
    finally:
        workers.close()
    assert len(workers.processes) == 1  # worker 0 is this process
    assert not any(process.is_alive() for process in workers.processes)
    workers.close()  # a second close does nothing


def test_workers_play_the_vector_engines_games() -> None:
    kwargs = env_kwargs("asrus_v0", ["random", "heuristic"], [], num_players=4)
    workers = ParallelBatchedVecEnv(5, kwargs, engine="vector", workers=2)
    try:
        assert_same(play(workers, 80, seed=9), play(dummy(5, kwargs), 80, seed=9))
    finally:
        workers.close()


def test_a_workers_error_is_raised_in_the_main_process() -> None:
    kwargs = env_kwargs("asrus_v0", ["random"], [])
    workers = ParallelBatchedVecEnv(2, kwargs, engine="scalar", workers=2)
    try:
        workers.seed(0)
        workers.reset()
        illegal = np.flatnonzero(~workers.action_masks()[1])[0]
        expected = rf"worker 1: .*IllegalActionError: illegal action {illegal} .*legal actions: "
        with pytest.raises(WorkerError, match=expected):
            workers.step(np.array([np.flatnonzero(workers.action_masks()[0])[0], illegal]))
    finally:
        workers.close()
    with pytest.raises(OptionError, match="allowed: auto, scalar, vector"):
        ParallelBatchedVecEnv(2, kwargs, engine="gpu", workers=2)
    with pytest.raises(OptionError, match=r"num_players"):
        ParallelBatchedVecEnv(2, {**kwargs, "env_options": {"num_players": 99}}, workers=2)


def test_a_run_with_workers_ends_with_the_weights_of_one_without(tmp_path: Path) -> None:
    changes = {"vec_env": "batched", "n_envs": 3, "total_steps": 768}
    one = train(tiny_config("astrobirdz_v0", tmp_path / "one", **changes))
    two = train(tiny_config("astrobirdz_v0", tmp_path / "two", batched={"workers": 2}, **changes))
    ours = load_policy(two / "final.zip").network.state_dict()
    for name, tensor in load_policy(one / "final.zip").network.state_dict().items():
        assert torch.equal(tensor, ours[name]), name


def test_config_refuses_more_workers_than_games(tmp_path: Path) -> None:
    config = tiny_config("asrus_v0", tmp_path, vec_env="batched", batched={"workers": 2})
    assert config.batched.workers == 2
    with pytest.raises(ConfigError, match=r"batched\.workers = 3 with n_envs = 2: allowed: 1 to 2"):
        tiny_config("asrus_v0", tmp_path, vec_env="batched", batched={"workers": 3})
    with pytest.raises(ConfigError, match="vec_env is 'DummyVecEnv'"):
        tiny_config("asrus_v0", tmp_path, batched={"workers": 2})
