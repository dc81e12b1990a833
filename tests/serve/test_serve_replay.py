"""``flockgym replay`` of a crafted record: every one ends with exit status 2 and a
message naming the file and what is wrong, never a traceback, and reads nothing
but a regular file of bounded size."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flockgym.cli import main

SAVED = Path(__file__).parent / "saved" / "web-asrus-3p-seed21.json"
BASE = json.loads(SAVED.read_text())


def changed(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    record = copy.deepcopy(BASE)
    change(record)
    return record


def seed_text(text: str) -> bytes:
    return json.dumps(BASE).replace(f'"seed": {BASE["seed"]}', f'"seed": {text}').encode()


NOT_JSON = "is not a JSON saved game: "
NO_REPLAY = "does not replay: "
CRAFTED: list[tuple[str, Any, str]] = [
    ("digits", seed_text("9" * 5000), NOT_JSON + "it holds a number of thousands of digits"),
    ("nan", seed_text("NaN"), NOT_JSON + "NaN is not a JSON number"),
    ("deep", b"[" * 100_000 + b"]" * 100_000, NOT_JSON + "nested too deeply"),
    ("binary", b"\xff\xfe\x00", "is not UTF-8 text: not a saved game"),
    ("empty", b"", NOT_JSON + "Expecting value"),
    ("list", b"[]", "a saved game is a JSON object, got list"),
    (
        "seed",
        changed(lambda r: r.update(seed=2**200)),
        f"seed: {str(2**200)[:60]} is not an integer in 0..2**128-1",
    ),
    (
        "render",
        changed(lambda r: r["options"].update(render_mode="human")),
        "options: render_mode is never saved with a game",
    ),
    (
        "option",
        changed(lambda r: r["options"].update(num_players="x")),
        NO_REPLAY + "options: cannot build asrus_v0: option num_players='x' is not allowed",
    ),
    (
        "few-seats",
        changed(lambda r: r.update(seats=r["seats"][:1])),
        "moves[1].agent: 'player_1' is not a seat (player_0)",
    ),
    (
        "agent",
        changed(lambda r: r["moves"][0].update(agent="player_9")),
        "moves[0].agent: 'player_9' is not a seat (player_0, player_1, player_2)",
    ),
    (
        "action",
        changed(lambda r: r["moves"][0].update(action=10**300)),
        f"moves[0].action: {'1' + '0' * 39} is not an integer in 0..2147483647",
    ),
    (
        "text",
        changed(lambda r: r["moves"][0].update(text="x" * 10_000)),
        "moves[0].text: must be a string of at most 1000 characters\n",
    ),
    (
        "extra-move",
        changed(lambda r: r["moves"].append(r["moves"][-1])),
        NO_REPLAY + f"moves[{len(BASE['moves'])}]: the game was already over",
    ),
    (
        "scores",
        changed(lambda r: r.update(scores={"zzz": 1})),
        "scores: must be null or an object with a number for each of player_0, player_1, player_2",
    ),
    ("env", changed(lambda r: r.update(env="__import__")), "env: '__import__' is not registered"),
    ("seat", changed(lambda r: r["seats"].__setitem__(0, 5)), "seats[0]: must be an object"),
    (
        "no-scores",
        changed(lambda r: r.pop("scores")),
        "scores: missing; a saved game holds null or an object of agent: number",
    ),
    (
        "score-digits",
        changed(lambda r: r["scores"].update(player_0=10**400)),
        f"scores.player_0: {str(10**400)[:40]} is not a number between -1e+12 and 1e+12",
    ),
    (
        "winner",
        changed(lambda r: r.update(winners=["player_7"])),
        "winners: must be a list of seats (player_0, player_1, player_2), each once",
    ),
    (
        "bot-seed",
        changed(lambda r: r["seats"][1].update(bot_seed=-1)),
        "seats[1].bot_seed: -1 is not an integer in 0..2**63-1",
    ),
    (
        "move-fails",
        changed(lambda r: r["moves"].__setitem__(1, r["moves"][0])),
        NO_REPLAY + "moves[1]: recorded for player_0, but player_1 acts",
    ),
]


@pytest.mark.parametrize(("name", "content", "message"), CRAFTED, ids=[c[0] for c in CRAFTED])
@pytest.mark.parametrize(
    "mode", [[], ["--check"], ["--show", "tables"]], ids=["moves", "check", "tables"]
)
def test_a_crafted_record_is_a_clear_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: Any,
    message: str,
    mode: list[str],
):
    path = tmp_path / f"{name}.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    assert main(["replay", str(path), *mode]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"flockgym replay: error: {path}") and message in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_the_base_record_replays(capsys: pytest.CaptureFixture[str]):
    assert main(["replay", str(SAVED), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok: {SAVED} replays exactly: {len(BASE['moves'])} moves")


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "missing", "large"])
def test_only_a_regular_file_of_bounded_size_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
):
    from flockgym.play import records

    path = tmp_path / "game.json"
    expected = "is not a regular file: not a saved game"
    if kind == "fifo":
        os.mkfifo(path)  # reading it would block for ever
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path = Path("/dev/zero")  # reading it would never end
    elif kind == "missing":
        expected = "does not exist"
    else:
        path.write_bytes(b" " * (records.MAX_RECORD_BYTES + 1))
        expected = "is larger than 20000000 bytes: not a saved game"
    assert main(["replay", str(path)]) == 2
    shown = f"saved game {path}" if kind == "missing" else str(path)
    assert capsys.readouterr().err == f"flockgym replay: error: {shown} {expected}\n"
