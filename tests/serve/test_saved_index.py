"""The saved games the server lists and replays: one damaged record is left out with
a warning naming it (never a 500 for everyone), each record file is read once per
version (a file that changes, appears or goes away is seen at the next request),
and a viewer stepping through a game replays each move once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import make_client

from flockgym.play import records

SAVED = Path(__file__).parent / "saved"
ASRUS = SAVED / "web-asrus-3p-seed21.json"


def data_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    for path in SAVED.glob("*.json"):
        shutil.copy(path, folder / path.name)
    return folder


def damaged(folder: Path, name: str, change: Any) -> str:
    record = json.loads(ASRUS.read_text())
    change(record)
    (folder / name).write_text(json.dumps(record))
    return name


DAMAGE = {
    "no-scores": lambda r: r.pop("scores"),
    "score-401-digits": lambda r: r["scores"].update(player_0=10**400),
    "winner-not-a-seat": lambda r: r.update(winners=[["player_0"]]),
    "long-bot-name": lambda r: r["seats"][1].update(bot={"bot": "h" * 5000}),
}


def test_a_damaged_record_is_left_out_with_a_warning_not_a_500(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    folder = data_folder(tmp_path)
    names = {damaged(folder, f"zz-{kind}.json", change) for kind, change in DAMAGE.items()}
    with make_client(folder, []) as client:
        for _ in range(2):
            response = client.http.get("/api/saved")
            assert response.status_code == 200, response.text
            listed = {g["name"] for g in response.json()["games"]}
            assert listed == {p.name for p in SAVED.glob("*.json")}
        for name in names:
            response = client.http.get(f"/api/saved/{name}")
            assert response.status_code == 422, response.text
            assert response.json()["error"].startswith(name)
            assert str(folder) not in response.text
            assert client.http.get(f"/api/saved/{name}/frames/0").status_code == 422
    warnings = [line for line in capsys.readouterr().err.splitlines() if "zz-" in line]
    assert sorted(warnings) == sorted(set(warnings)) and len(warnings) == len(names)
    for line in warnings:
        assert line.startswith("flockgym serve: saved game zz-") and " not listed: " in line
    assert any("scores: missing" in line for line in warnings)
    assert any("scores.player_0: " in line for line in warnings)


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The record files read from now on (by name)."""
    read: list[str] = []
    real = records.read_bounded

    def counting(path: Path) -> str:
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(records, "read_bounded", counting)
    return read


def test_the_listing_reads_each_record_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = data_folder(tmp_path)
    with make_client(folder, []) as client:
        read = count_reads(monkeypatch)
        first = client.http.get("/api/saved").json()["games"]
        assert sorted(read) == sorted(p.name for p in SAVED.glob("*.json"))
        read.clear()
        for _ in range(3):
            assert client.http.get("/api/saved").json()["games"] == first
        assert read == []
        # a record rewritten (a new version of the file), one removed and one added
        record = json.loads(ASRUS.read_text())
        record["seats"][0]["name"] = "someone else"
        (folder / ASRUS.name).write_text(json.dumps(record))
        stat = (folder / ASRUS.name).stat()
        os.utime(folder / ASRUS.name, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        removed = next(g["name"] for g in first if g["name"] != ASRUS.name)
        (folder / removed).unlink()
        shutil.copy(ASRUS, folder / "0-copy.json")
        listed = {g["name"]: g for g in client.http.get("/api/saved").json()["games"]}
        assert sorted(read) == ["0-copy.json", ASRUS.name]
        assert removed not in listed and "0-copy.json" in listed
        assert listed[ASRUS.name]["seats"][0] == "someone else"
        assert client.http.get(f"/api/saved/{ASRUS.name}").json()["seats"][0]["name"] == (
            "someone else"
        )


def test_stepping_through_a_saved_game_replays_each_move_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = data_folder(tmp_path)
    moves = len(json.loads(ASRUS.read_text())["moves"])
    built: list[int] = []
    real = records.build_env
    monkeypatch.setattr(records, "build_env", lambda *a, **k: built.append(1) or real(*a, **k))
    with make_client(folder, []) as client:
        frames = [
            client.http.get(f"/api/saved/{ASRUS.name}/frames/{k}").json() for k in range(moves + 1)
        ]
        assert len(built) == 1  # one replay, advanced a move at a time
        back = client.http.get(f"/api/saved/{ASRUS.name}/frames/3").json()
        assert back == frames[3] and len(built) == 1  # a frame already sent
    replayed = records.replay_record(json.loads(ASRUS.read_text()), upto=moves // 2)
    raw = replayed.unwrapped
    expected = json.loads(json.dumps({a: raw.view(a) for a in raw.possible_agents}))
    assert frames[moves // 2]["views"] == expected
    assert (
        frames[-1]["next"] is None
        and frames[0]["next"] == json.loads(ASRUS.read_text())["moves"][0]
    )
