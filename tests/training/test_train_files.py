"""Files are written whole or not at all, and a write that cannot happen (a full
disk, a read-only folder, a folder where a file goes) is a clear error."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from flockgym.cli import main
from flockgym.common import files
from flockgym.common.files import OutputError, remove_partial_files, write_atomic


def fail_fsync(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    def fsync(fd: int) -> None:
        raise error

    monkeypatch.setattr(files.os, "fsync", fsync)


def temporaries(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.startswith(files.TEMPORARY_PREFIX)]


@pytest.mark.parametrize("error", [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left")])
def test_a_write_cut_short_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch, error: BaseException
) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")
    fail_fsync(monkeypatch, error)
    with pytest.raises(OutputError if isinstance(error, OSError) else KeyboardInterrupt) as info:
        write_atomic(target, b"new")
    if isinstance(error, OSError):
        assert str(info.value) == f"cannot write {target}: No space left"
    assert target.read_text() == "old"
    assert temporaries(tmp_path) == []


def test_stale_temporary_files_are_removed(tmp_path: Path) -> None:
    (tmp_path / "checkpoints").mkdir()
    stale = tmp_path / "checkpoints" / f"{files.TEMPORARY_PREFIX}abc"
    stale.write_bytes(b"half a checkpoint")
    kept = tmp_path / "checkpoints" / "step_000000256.zip"
    kept.write_bytes(b"")
    remove_partial_files(tmp_path)
    assert not stale.exists() and kept.exists()


def test_plot_onto_a_folder_is_a_clear_error(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    run.mkdir()
    record = {"kind": "selfplay", "step": 256, "opponent": "random", "win_rate": 0.5}
    (run / "progress.jsonl").write_text(json.dumps(record) + "\n")
    (tmp_path / "taken").mkdir()
    assert main(["plot", str(run), "--out", str(tmp_path / "taken")]) == 1
    assert f"cannot write {tmp_path / 'taken'}" in capsys.readouterr().err
    assert main(["plot", str(run)]) == 0
    assert (run / "learning_curves.png").stat().st_size > 1000


def test_baselines_check_their_output_before_playing(
    read_only_folder: Path, monkeypatch, capsys
) -> None:
    from flockgym.evaluation import baselines

    played = []
    monkeypatch.setattr(baselines, "tournament", lambda *a, **k: played.append(a))
    assert main(["baselines", "--games", "2", "--out", str(read_only_folder / "b.md")]) == 1
    assert f"cannot write in {read_only_folder}" in capsys.readouterr().err
    assert not played


def test_a_progress_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    from flockgym.training.runs import RunError, read_progress

    record = json.dumps({"kind": "eval", "step": 0, "opponent": "random"})
    (tmp_path / "progress.jsonl").write_text(f"{record}\n{record[:10]}")
    assert len(read_progress(tmp_path)) == 1
    (tmp_path / "progress.jsonl").write_text(f"{record[:10]}\n{record}\n")
    with pytest.raises(RunError, match="line 1 is not a JSON record"):
        read_progress(tmp_path)
