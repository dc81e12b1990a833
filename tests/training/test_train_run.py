"""Training runs end to end: a smoke run per env, the run folder, determinism
(same config and seed, same weights) and resuming a crashed run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml
from training_helpers import baseline_bots, tiny_config

from flockgym.training import load_policy
from flockgym.training import train as train_module
from flockgym.training.runs import RunError, read_progress, read_state
from flockgym.training.train import resume_run, train


def weights(path: Path) -> dict[str, torch.Tensor]:
    return load_policy(path).network.state_dict()


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_smoke_run_writes_a_self_describing_folder(env_id: str, tmp_path: Path) -> None:
    config = tiny_config(
        env_id,
        tmp_path,
        total_steps=2048,
        opponents__snapshot_every=1024,
        eval={"every": 1024, "games": 2, "opponents": baseline_bots(env_id), "tournament_games": 2},
    )
    run = train(config, config_stem="tiny")
    assert run == tmp_path / "run"
    resolved = yaml.safe_load((run / "config.yaml").read_text())
    assert resolved["algo"]["learning_rate"] == 3e-4 and resolved["env"]["id"] == env_id
    info = json.loads((run / "run.json").read_text())
    assert info["seed"] == 3 and info["git_commit"] and info["steps_per_second"] > 0
    assert {"torch", "stable-baselines3", "sb3-contrib", "flockgym"} <= set(info["versions"])
    state = read_state(run)
    assert state.finished and state.step == 2048
    assert state.snapshots == ["snapshots/step_000001024.zip", "snapshots/step_000002048.zip"]
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        f"step_{step:09d}.zip" for step in (512, 1024, 1536, 2048)
    ]
    policy = load_policy(run / "final.zip", env_id=env_id)
    assert policy.meta.steps == 2048 and policy.meta.env_id == env_id
    evals = [r for r in read_progress(run) if r["kind"] == "eval"]
    opponents = baseline_bots(env_id)
    assert [(r["step"], r["opponent"]) for r in evals] == [
        (step, opponent) for step in (0, 1024, 2048) for opponent in opponents
    ]
    assert any(r["kind"] == "selfplay" and r["opponent"] == "snapshot" for r in read_progress(run))
    assert list((run / "tb").iterdir()), "no TensorBoard events"
    assert (run / "tournament" / "tournament.md").exists()
    assert (run / "learning_curves.png").stat().st_size > 1000


def test_same_config_and_seed_give_the_same_weights(tmp_path: Path) -> None:
    first = train(tiny_config("asrus_v0", tmp_path / "a", opponents__snapshot_every=512))
    second = train(tiny_config("asrus_v0", tmp_path / "b", opponents__snapshot_every=512))
    assert same_weights(first / "final.zip", second / "final.zip")
    other = train(tiny_config("asrus_v0", tmp_path / "c", opponents__snapshot_every=512, seed=4))
    assert not same_weights(first / "final.zip", other / "final.zip")


class Crash(Exception):
    pass


def test_a_crashed_run_resumes_to_the_same_weights(tmp_path: Path, monkeypatch) -> None:
    changes = {
        "total_steps": 1536,
        "opponents__snapshot_every": 512,
        "eval": {"every": 512, "games": 2, "opponents": ["random"]},
    }
    whole = train(tiny_config("asrus_v0", tmp_path / "whole", **changes))

    save = train_module.save_checkpoint

    def save_then_crash(*args, **kwargs):
        save(*args, **kwargs)
        if args[4] == 1024:  # the step: crash just after the second checkpoint
            raise Crash

    monkeypatch.setattr(train_module, "save_checkpoint", save_then_crash)
    with pytest.raises(Crash):
        train(tiny_config("asrus_v0", tmp_path / "crashed", **changes))
    monkeypatch.undo()
    crashed = tmp_path / "crashed" / "run"
    assert read_state(crashed).step == 1024 and not (crashed / "final.zip").exists()
    resumed = resume_run(crashed)
    assert same_weights(whole / "final.zip", resumed / "final.zip")
    assert read_state(resumed).snapshots == read_state(whole).snapshots
    steps = [(r["kind"], r["opponent"], r["step"]) for r in read_progress(resumed)]
    assert steps == [(r["kind"], r["opponent"], r["step"]) for r in read_progress(whole)]
    assert len(json.loads((resumed / "run.json").read_text())["resumed"]) == 1


def test_resuming_a_finished_run_asks_for_more_steps(tmp_path: Path) -> None:
    run = train(tiny_config("asrus_v0", tmp_path, total_steps=512))
    with pytest.raises(ValueError, match="raise total_steps"):
        resume_run(run)
    resume_run(run, ["total_steps=1024"])
    assert read_state(run).step == 1024


def test_subprocess_envs_train_the_same_weights_as_in_process_envs(tmp_path: Path) -> None:
    changes = {"opponents__snapshot_every": 512}
    dummy = train(tiny_config("asrus_v0", tmp_path / "dummy", **changes))
    subproc = train(tiny_config("asrus_v0", tmp_path / "sub", vec_env="SubprocVecEnv", **changes))
    assert same_weights(dummy / "final.zip", subproc / "final.zip")


@pytest.mark.slow
def test_the_quickstart_learns_to_beat_both_bots(tmp_path: Path) -> None:
    """The README's main command, for real (about 3-4 minutes on 2 cores)."""
    from flockgym.training.config import load_config

    repo = Path(__file__).resolve().parents[2]
    config = load_config(
        repo / "configs" / "quickstart.yaml",
        [f"output.dir={tmp_path}", "output.name=qs", "progress_bar=false"],
    )
    run = train(config)
    standings = json.loads((run / "tournament" / "tournament.json").read_text())["standings"]
    final, *bots = standings
    assert final["name"] == "final"
    for bot in bots:
        assert final["win_rate"] - final["win_rate_ci"] > bot["win_rate"] + bot["win_rate_ci"]


def test_pure_self_play_starts_against_the_untrained_learner(tmp_path: Path) -> None:
    run = train(tiny_config("asrus_v0", tmp_path, opponents={"pool": [], "snapshot_every": 512}))
    assert read_state(run).snapshots == [
        f"snapshots/step_{step:09d}.zip" for step in (0, 512, 1024)
    ]
    opponents = {r["opponent"] for r in read_progress(run) if r["kind"] == "selfplay"}
    assert opponents == {"snapshot"}


def test_a_damaged_run_state_is_refused_naming_the_problem(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"step": 512')
    with pytest.raises(RunError, match="is not a run state"):
        read_state(tmp_path)
    state.write_text(json.dumps({"step": 512}))
    with pytest.raises(RunError, match="missing 1 required positional argument: 'checkpoint'"):
        read_state(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "step_000000512.zip").write_bytes(b"")
    state.write_text(
        json.dumps(
            {
                "step": 512,
                "checkpoint": "checkpoints/step_000000512.zip",
                "snapshots": ["snapshots/step_000000512.zip"],
            }
        )
    )
    with pytest.raises(RunError, match=r"names files missing from .*: snapshots/step_000000512"):
        read_state(tmp_path)
