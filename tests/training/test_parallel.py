"""Batched self-play in worker processes plays the games one process plays: same
seed, same deals, seats, opponents and moves, on the scalar and the vectorised
engine; a run with workers ends with the weights of the same run without."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml
from test_train_batched import assert_same, dummy, env_kwargs, play
from training_helpers import tiny_config, tiny_raw_config
from training_policies_helpers import write_checkpoint

from flockgym.bots import load_policy
from flockgym.envs import OptionError
from flockgym.training.config import ConfigError
from flockgym.training.parallel import (
    ParallelBatchedVecEnv,
    WorkerError,
    death_message,
    slices,
)
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


def test_a_dead_worker_is_described_by_its_exit_and_the_guard_only_at_start() -> None:
    during = death_message(2, 4321, range(4, 6), -signal.SIGKILL, started=True)
    assert during == (
        "worker 2 (process 4321, games 4 to 5) was killed by SIGKILL (exit code -9): the "
        "system's out-of-memory killer, or a person, ended it during training"
    )
    assert death_message(1, 7, range(1, 2), -signal.SIGTERM, started=True) == (
        "worker 1 (process 7, games 1 to 1) was killed by SIGTERM (exit code -15) during training"
    )
    assert death_message(1, 7, range(1, 2), 3, started=True) == (
        "worker 1 (process 7, games 1 to 1) exited with code 3 without answering during training"
    )
    at_start = death_message(1, 7, range(1, 2), 1, started=False)
    assert at_start.startswith(
        "worker 1 (process 7, games 1 to 1) exited with code 1 without answering while starting; "
        "if a script of your own started the training, it must do so under "
        "`if __name__ == '__main__':`"
    )


def test_a_worker_killed_mid_run_ends_flockgym_train_with_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL one worker after the first checkpoint: the command exits 1 with the
    worker, its games, the signal and the resume command, no traceback; the
    resume command it names then finishes the run."""
    from flockgym.cli import main

    raw = tiny_raw_config("asrus_v0", tmp_path / "runs", vec_env="batched", n_envs=2)
    raw["batched"] = {"workers": 2, "engine": "scalar"}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(raw))
    step_wait = ParallelBatchedVecEnv.step_wait
    waits: list[int] = []
    killed: list[int] = []

    def kill_worker_at_wait_300(self: ParallelBatchedVecEnv) -> Any:
        """The 300th step of the 2 games is learner step 600, past the checkpoint of 512."""
        waits.append(1)
        if len(waits) == 300:
            killed.append(self.processes[0].pid)
            os.kill(self.processes[0].pid, signal.SIGKILL)
        return step_wait(self)

    monkeypatch.setattr(ParallelBatchedVecEnv, "step_wait", kill_worker_at_wait_300)
    assert main(["train", str(config)]) == 1
    run = tmp_path / "runs" / "run"
    err = capsys.readouterr().err
    assert err == (
        f"flockgym train: error: worker 1 (process {killed[0]}, games 1 to 1) was killed by "
        "SIGKILL (exit code -9): the system's out-of-memory killer, or a person, ended it "
        f"during training; continue from the last checkpoint with `flockgym train --resume "
        f"{run}`\n"
    )
    assert killed and (run / "state.json").is_file()
    monkeypatch.undo()
    assert main(["train", "--resume", str(run)]) == 0
    assert (run / "final.zip").is_file()
