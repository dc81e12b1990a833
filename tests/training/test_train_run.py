"""Training runs end to end: a smoke run per env, the run folder, determinism
(same config and seed, same weights), and runs that crash, are killed, or
meet a full disk or a read-only folder, resumed to the uninterrupted result."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shlex
import zipfile
from collections import Counter
from pathlib import Path

import pytest
import torch
import yaml
from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator
from training_helpers import baseline_bots, short_options, tiny_config

from flockgym.bots import checkpoints, load_policy, make_participant
from flockgym.cli import main
from flockgym.common import files
from flockgym.common.files import OutputError
from flockgym.training import train as train_module
from flockgym.training.runs import RunError, read_progress, read_state
from flockgym.training.train import resume_run, train


def weights(path: Path) -> dict[str, torch.Tensor]:
    return load_policy(path).network.state_dict()


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def scalar_events(run: Path) -> list[tuple[str, int, float]]:
    """Every scalar event in the run's TensorBoard files, as written (no purging)."""
    events = EventAccumulator(str(run / "tb"), {SCALARS: 0}, purge_orphaned_data=False)
    events.Reload()
    return [
        (tag, event.step, event.value)
        for tag in events.Tags()["scalars"]
        for event in events.Scalars(tag)
    ]


def assert_logged_once(run: Path) -> dict[tuple[str, int], float]:
    """Every (tag, step) once; returns the values by (tag, step)."""
    events = scalar_events(run)
    twice = [key for key, n in Counter((tag, step) for tag, step, _ in events).items() if n > 1]
    assert not twice, f"logged more than once: {twice[:5]}"
    return {(tag, step): value for tag, step, value in events}


def same_scalars(a: Path, b: Path) -> None:
    """The same TensorBoard scalars, value for value (the clock's aside)."""
    logged_a, logged_b = assert_logged_once(a), assert_logged_once(b)
    assert logged_a.keys() == logged_b.keys()
    differ = [k for k in logged_a if not k[0].startswith("time/") and logged_a[k] != logged_b[k]]
    assert not differ, differ


def progress_records(run: Path) -> list[dict]:
    return read_progress(run)


def tournament_standings(run: Path) -> list[dict]:
    """The final tournament's standings, but for the path of the run's final.zip."""
    result = json.loads((run / "tournament" / "tournament.json").read_text())
    return [{k: v for k, v in row.items() if k != "spec"} for row in result["standings"]]


def folder_digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


REFERENCE = {
    "total_steps": 1024,
    "opponents__snapshot_every": 512,
    "eval": {"every": 512, "games": 2, "opponents": ["random", "heuristic"], "tournament_games": 2},
}
"""A tiny run with everything a resume must restore: snapshots in the pool,
evaluations, a final tournament; checkpoints at 512 and 1024."""


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference run, uninterrupted."""
    return train(tiny_config("asrus_v0", tmp_path_factory.mktemp("reference"), **REFERENCE))


def test_smoke_run_writes_a_self_describing_folder(env_id: str, tmp_path: Path) -> None:
    config = tiny_config(
        env_id,
        tmp_path,
        env={"id": env_id, "options": short_options(env_id)},
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
    assert state.phase == "done" and state.step == 2048
    assert state.checkpoint == "checkpoints/step_000002048.zip"
    with zipfile.ZipFile(run / state.checkpoint) as archive:
        assert sorted(archive.namelist()) == [
            "flockgym.json",
            "generators.json",
            "learner.json",
            "optimizer.pth",
            "policy.pth",
        ]
    with zipfile.ZipFile(run / "final.zip") as archive:
        assert sorted(archive.namelist()) == ["flockgym.json", "policy.pth"]
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
    logged = assert_logged_once(run)
    assert ("eval/win_rate/random", 0) in logged and ("eval/win_rate/random", 2048) in logged
    assert (run / "tournament" / "tournament.md").exists()
    assert (run / "learning_curves.png").stat().st_size > 1000


def test_same_config_and_seed_give_the_same_weights(reference_run: Path, tmp_path: Path) -> None:
    again = train(tiny_config("asrus_v0", tmp_path / "again", **REFERENCE))
    assert same_weights(reference_run / "final.zip", again / "final.zip")
    same_scalars(reference_run, again)
    other = train(tiny_config("asrus_v0", tmp_path / "other", **{**REFERENCE, "seed": 4}))
    assert not same_weights(reference_run / "final.zip", other / "final.zip")


def test_a_shorter_run_ends_where_a_longer_one_checkpoints(
    reference_run: Path, tmp_path: Path
) -> None:
    """A run is the prefix of any longer run of its config: the final policy of
    ``total_steps: N`` is the longer run's checkpoint at that step (what lets a
    shipped bot be a longer run's checkpoint, the config cut to its step)."""
    longer = train(tiny_config("asrus_v0", tmp_path, **{**REFERENCE, "total_steps": 2048}))
    assert same_weights(longer / "checkpoints" / "step_000001024.zip", reference_run / "final.zip")
    assert not same_weights(longer / "final.zip", reference_run / "final.zip")


class Crash(Exception):
    pass


def test_a_crashed_run_resumes_to_the_same_weights_logging_each_step_once(
    reference_run: Path, tmp_path: Path, monkeypatch
) -> None:
    log_selfplay = train_module.log_selfplay

    def crash_after_the_checkpoint(model, run_dir, step, results):
        log_selfplay(model, run_dir, step, results)
        if step == 768:  # one iteration past the checkpoint at 512, logged already
            raise Crash

    monkeypatch.setattr(train_module, "log_selfplay", crash_after_the_checkpoint)
    with pytest.raises(Crash):
        train(tiny_config("asrus_v0", tmp_path / "crashed", **REFERENCE))
    monkeypatch.undo()
    crashed = tmp_path / "crashed" / "run"
    assert read_state(crashed).step == 512 and not (crashed / "final.zip").exists()
    assert any(r["step"] == 768 for r in progress_records(crashed))  # to be rolled back
    resumed = resume_run(crashed)
    assert same_weights(reference_run / "final.zip", resumed / "final.zip")
    assert read_state(resumed).snapshots == read_state(reference_run).snapshots
    assert progress_records(resumed) == progress_records(reference_run)
    same_scalars(reference_run, resumed)
    assert len(json.loads((resumed / "run.json").read_text())["resumed"]) == 1


def test_a_run_killed_in_its_final_evaluation_finishes_with_resume(
    reference_run: Path, tmp_path: Path, monkeypatch
) -> None:
    tournament = train_module.tournament
    games = []

    def killed_in_the_final_evaluation(*args, **kwargs):
        games.append(args)
        if len(games) == 2 * 2 + 2:  # 2 opponents at 0 and at 512, then the second final one
            raise KeyboardInterrupt
        return tournament(*args, **kwargs)

    monkeypatch.setattr(train_module, "tournament", killed_in_the_final_evaluation)
    with pytest.raises(KeyboardInterrupt):
        train(tiny_config("asrus_v0", tmp_path / "killed", **REFERENCE))
    monkeypatch.undo()
    killed = tmp_path / "killed" / "run"
    state = read_state(killed)
    assert (state.phase, state.step) == ("final", 1024)
    assert not (killed / "tournament").exists()

    from sb3_contrib import MaskablePPO

    learned = []
    learn = MaskablePPO.learn
    monkeypatch.setattr(MaskablePPO, "learn", lambda *a, **k: learned.append(1) or learn(*a, **k))
    resume_run(killed)
    assert not learned, "the resumed run trained again"
    assert read_state(killed).phase == "done"
    assert same_weights(reference_run / "final.zip", killed / "final.zip")
    assert progress_records(killed) == progress_records(reference_run)
    same_scalars(reference_run, killed)
    assert tournament_standings(killed) == tournament_standings(reference_run)
    with pytest.raises(RunError, match="raise total_steps"):
        resume_run(killed)


def test_resuming_a_finished_run_asks_for_more_steps(tmp_path: Path) -> None:
    run = train(tiny_config("asrus_v0", tmp_path, total_steps=512))
    with pytest.raises(ValueError, match="raise total_steps"):
        resume_run(run)
    before = folder_digest(run)
    with pytest.raises(
        RunError, match=r"has network = .*'net_arch': \[32, 32\].* asks for .*\[8\]"
    ):
        resume_run(run, ["total_steps=1024", "algo.net_arch=[8]"])
    assert folder_digest(run) == before, "a refused resume changed the run folder"
    resume_run(run, ["total_steps=1024"])
    assert read_state(run).step == 1024
    assert_logged_once(run)


def fill_the_disk_at(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The disk fills up while the checkpoint ``name`` is written: its bytes reach
    the temporary file, and flushing them to disk fails, as a full disk reports."""
    writing = {"now": ""}
    write_atomic, fsync = files.write_atomic, os.fsync

    def noting_the_name(path, data):
        writing["now"] = Path(path).name
        return write_atomic(path, data)

    def failing_when_full(fd):
        if writing["now"] == name:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return fsync(fd)

    monkeypatch.setattr(checkpoints, "write_atomic", noting_the_name)
    monkeypatch.setattr(files.os, "fsync", failing_when_full)


def test_a_full_disk_leaves_no_truncated_checkpoint_and_resumes(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    config = tiny_config("asrus_v0", tmp_path, total_steps=768, output__checkpoint_every=256)
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    fill_the_disk_at(monkeypatch, "step_000000512.zip")
    assert main(["train", str(path)]) == 1
    message = capsys.readouterr().err
    run = tmp_path / "run"
    assert f"cannot write {run}/checkpoints/step_000000512.zip: No space left on device" in message
    assert f"flockgym train --resume {run}" in message
    monkeypatch.undo()
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_000000256.zip"]
    assert read_state(run).step == 256
    newest = make_participant(str(run), "asrus_v0")  # the run as a bot: its last good checkpoint
    assert newest.spec == str(run)
    resume_run(run)
    assert read_state(run).phase == "done"
    assert not [p for p in run.rglob("*") if p.name.startswith(files.TEMPORARY_PREFIX)]


def test_a_read_only_output_folder_is_a_clear_error(
    read_only_folder: Path, tmp_path: Path, capsys
) -> None:
    path = tmp_path / "tiny.yaml"
    config = tiny_config("asrus_v0", read_only_folder)
    path.write_text(yaml.safe_dump(config.model_dump(mode="json")))
    assert main(["train", str(path)]) == 1
    message = capsys.readouterr().err
    assert f"cannot create folder {read_only_folder}/run/checkpoints" in message
    with pytest.raises(OutputError):
        train(config)


@pytest.mark.slow
def test_subprocess_envs_train_the_same_weights_as_in_process_envs(
    reference_run: Path, tmp_path: Path
) -> None:
    subproc = train(tiny_config("asrus_v0", tmp_path / "sub", vec_env="SubprocVecEnv", **REFERENCE))
    assert same_weights(reference_run / "final.zip", subproc / "final.zip")


@pytest.mark.slow
def test_the_quickstart_learns_to_beat_both_bots(tmp_path: Path) -> None:
    """The README's main command, for real (under a minute on 2 cores)."""
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


OLD_STATE = {"step": 512, "checkpoint": "checkpoints/step_000000512.zip", "finished": False}
GOOD_STATE = {
    "format": "flockgym-run-state",
    "version": 2,
    "step": 512,
    "phase": "training",
    "checkpoint": "checkpoints/step_000000512.zip",
    "snapshots": [],
    "logs": {"progress.jsonl": 10},
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ('{"step": 512', "is not a run state"),
        ("\xff", "is not a run state"),
        (OLD_STATE, "Runs of older versions"),
        ({"step": "x"}, "step = 'x': allowed: an integer >= 0"),
        ({"phase": "later"}, "phase = 'later': allowed: training, final, done"),
        ({"extra": 1}, "unknown fields ['extra']"),
        ({"checkpoint": "/etc/x.zip"}, "checkpoint = '/etc/x.zip': allowed: a file of the run"),
        ({"checkpoint": "checkpoints/step_000001024.zip"}, "the file is missing from"),
        ({"step": 1024}, "is not the one of step 1024"),
        ({"snapshots": "x"}, "snapshots = 'x': allowed: a list of files"),
        ({"snapshots": ["snapshots/step_000000512.zip"]}, "snapshots[0] = 'snapshots/step_000000"),
        ({"logs": {"../x": 3}}, "logs['../x'] = '../x': allowed: a file of the run folder"),
        ({"logs": {"progress.jsonl": -1}}, "logs = {'progress.jsonl': -1}: allowed"),
    ],
)
def test_a_damaged_run_state_is_refused_naming_the_problem(
    tmp_path: Path, change: object, message: str
) -> None:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "step_000000512.zip").write_bytes(b"")
    state = tmp_path / "state.json"
    if isinstance(change, str):
        state.write_bytes(change.encode("latin-1"))
    elif change is OLD_STATE:
        state.write_text(json.dumps(change))
    else:
        state.write_text(json.dumps({**GOOD_STATE, **change}))
    with pytest.raises(RunError) as info:
        read_state(tmp_path)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("env_id", "options", "opponents", "extra"),
    [
        ("asrus_v0", {"num_players": 3, "reward": "score"}, "{run},heuristic", ["num_players=3"]),
        (
            "skybirds_v0",
            {"num_players": 2, "max_campaigns": 3},
            "{run}",
            ["num_players=2", "max_campaigns=3"],
        ),
    ],
)
def test_a_run_ends_with_the_commands_that_play_against_it(
    env_id: str,
    options: dict,
    opponents: str,
    extra: list[str],
    tmp_path: Path,
    monkeypatch,
    capsys,
) -> None:
    """The run's last lines are a terminal and a browser command with the run's own
    path, env and table; the terminal command, run as printed, seats the run."""
    run = train(
        tiny_config(env_id, tmp_path, env={"id": env_id, "options": options}, total_steps=512)
    )
    printed = capsys.readouterr().out.splitlines()
    side = "then heuristic bots in the seats left" if "," in opponents else "in the other seat"
    terminal = f"flockgym play {env_id} --seat 0 --opponents {opponents.format(run=run)}"
    terminal += "".join(f" --option {item}" for item in extra)
    assert printed[-4:] == [
        f"play against it in the terminal (you in seat 0, the run {side}):",
        f"  {terminal}",
        f"or in a browser (pick {tmp_path.name}/run for a seat):",
        f"  flockgym serve --models {tmp_path}",
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    argv = [*shlex.split(terminal)[1:], "--seed", "1", "--no-save"]
    assert main(argv) == 1  # the person left at the first move: the run was seated
    shown = capsys.readouterr()
    # the terminal wraps long lines at its width: compare the words, not the breaks
    assert f"player_1: {opponents.format(run=run).split(',')[0]}" in " ".join(shown.out.split())
    assert "you left the game" in shown.err
