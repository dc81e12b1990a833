"""Training stopped by Ctrl-C or SIGTERM: a checkpoint at the end of the
iteration, resume from it, no resume suggested at step 0, the progress total
kept, the time figures named; and plots of several runs and seeds."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator
from training_helpers import tiny_config

from flockgym.cli import main
from flockgym.common.files import OutputError
from flockgym.evaluation.plot import plot_runs
from flockgym.training import train as train_module
from flockgym.training.runs import RunError, read_state
from flockgym.training.train import TrainingInterrupted, resume_run, train


def signal_at(monkeypatch, step: int, signum: int) -> None:
    """Send ``signum`` to this process while the iteration ending at ``step`` is logged."""
    log_selfplay = train_module.log_selfplay

    def and_a_signal(model, run_dir, at, results):
        log_selfplay(model, run_dir, at, results)
        if at == step:
            os.kill(os.getpid(), signum)

    monkeypatch.setattr(train_module, "log_selfplay", and_a_signal)


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)]
)
def test_a_signal_writes_a_checkpoint_and_resume_continues_from_it(
    signum: int, tmp_path: Path, monkeypatch, capsys
) -> None:
    config = tiny_config("asrus_v0", tmp_path, total_steps=1024, output__checkpoint_every=4096)
    signal_at(monkeypatch, 768, signum)
    with pytest.raises(TrainingInterrupted) as info:
        train(config)
    assert info.value.signum == signum
    monkeypatch.undo()
    run = tmp_path / "run"
    state = read_state(run)
    assert (state.step, state.phase) == (768, "training")  # no checkpoint was due before 1024
    out = capsys.readouterr().out
    assert f"at step 768: checkpoint written; continue with `flockgym train --resume {run}`" in out
    bars = []
    progress = train_module.Progress
    monkeypatch.setattr(
        train_module, "Progress", lambda *a, **k: bars.append((a, k)) or progress(*a, **k)
    )
    resume_run(run)
    assert "resuming " + str(run) + " from step 768 (training)" in capsys.readouterr().out
    assert read_state(run).phase == "done" and read_state(run).step == 1024
    (total, _), kwargs = bars[0][0][:2], bars[0][1]
    assert total == 1024 and kwargs["initial"] == 768  # the bar keeps the run's total
    assert_time_figures_named(run)


def test_the_command_exits_128_plus_the_signal(tmp_path: Path, monkeypatch, capsys) -> None:
    import yaml

    config = tiny_config("asrus_v0", tmp_path, total_steps=1024)
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    signal_at(monkeypatch, 256, signal.SIGTERM)
    assert main(["train", str(path)]) == 128 + signal.SIGTERM
    assert "SIGTERM at step 256: checkpoint written" in capsys.readouterr().out


def test_a_step_0_interrupt_suggests_no_resume(tmp_path: Path, monkeypatch, capsys) -> None:
    config = tiny_config(
        "asrus_v0", tmp_path, eval={"every": 512, "games": 2, "opponents": ["random"]}
    )
    evaluate_and_log = train_module.evaluate_and_log

    def interrupted_first_evaluation(model, learner, config, run_dir, step):
        os.kill(os.getpid(), signal.SIGINT)
        return evaluate_and_log(model, learner, config, run_dir, step)

    monkeypatch.setattr(train_module, "evaluate_and_log", interrupted_first_evaluation)
    with pytest.raises(TrainingInterrupted):
        train(config)
    out = capsys.readouterr().out
    assert "SIGINT at step 0, before any training: nothing to resume" in out
    assert "--resume" not in out
    assert not (tmp_path / "run" / "state.json").exists()


def assert_time_figures_named(run: Path) -> None:
    """The throughput figures say what they measure; the losses are logged."""
    events = EventAccumulator(str(run / "tb"), {SCALARS: 0})
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"time/rollout_steps_per_second", "time/training_steps_per_second"} <= tags
    assert "time/fps" not in tags and "time/steps_per_second" not in tags
    assert {"train/entropy_loss", "train/value_loss", "train/policy_gradient_loss"} <= tags


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two seeds of one config and a run of another config."""
    out = tmp_path_factory.mktemp("runs")
    eval_ = {"every": 256, "games": 2, "opponents": ["random"]}  # at steps 0 and 256
    runs = []
    for name, seed, lr in (("a0", 0, 3e-4), ("a1", 1, 3e-4), ("b0", 0, 1e-3)):
        changes = {"total_steps": 256, "seed": seed, "eval": eval_, "output__name": name}
        config = tiny_config("asrus_v0", out, **changes)
        config.algo.learning_rate = lr
        runs.append(train(config))
    return runs


def test_plot_overlays_runs_and_aggregates_seeds(three_runs: list[Path], tmp_path: Path) -> None:
    from flockgym.evaluation.plot import group_label, group_seeds, read_run

    groups = group_seeds([read_run(r) for r in three_runs])
    assert [[r.path.name for r in g] for g in groups] == [["a0", "a1"], ["b0"]]
    assert group_label(groups[0]) == "a0 and 1 more (seeds 0, 1)"
    out = plot_runs(three_runs, tmp_path / "compare.png", smooth_window=3)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000
    assert main(["plot", *map(str, three_runs), "--out", str(tmp_path / "c.png")]) == 0


def test_plot_errors_name_the_missing_run_or_folder(three_runs: list[Path], tmp_path: Path) -> None:
    with pytest.raises(RunError, match="nowhere: no such run folder"):
        plot_runs([three_runs[0], tmp_path / "nowhere"], tmp_path / "x.png")
    with pytest.raises(OutputError, match=r"the folder .*missing does not exist"):
        plot_runs(three_runs, tmp_path / "missing" / "x.png")
    with pytest.raises(RunError, match="give --out"):
        plot_runs(three_runs)
