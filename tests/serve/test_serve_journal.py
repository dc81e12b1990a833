"""Nothing answered is lost: each move is in the game's journal, on disk, before its
answer; a save that fails refuses the request and applies nothing; a new game
whose journal cannot be written leaves no ghost; after a restart every running
game continues with the tokens its people hold (kept only as hashes)."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import CheckedClient, make_client, small_options

from flockgym.envs import make
from flockgym.play import records
from flockgym.play.records import load_record, read_journal, replay_record

HUMAN = {"kind": "human"}
HEURISTIC = {"kind": "bot", "bot": "heuristic"}


def journal_of(client: CheckedClient, game_id: str) -> Path:
    return client.game(game_id).log.journal.path


def play(client: CheckedClient, game_id: str, token: str, moves: int) -> list[str]:
    """``moves`` moves of the person (and the bots between): the texts the person played."""
    played = []
    for _ in range(moves):
        state = client.state(game_id, token).json()
        if state["to_act_kind"] == "bot":
            client.bot(game_id, token, move_number=state["move_number"], until="human")
            state = client.state(game_id, token).json()
        choice = state["legal"][0]
        response = client.move(
            game_id, token, move_number=state["move_number"], action=choice["id"]
        )
        assert response.status_code == 200, response.text
        played.append(choice["text"])
    return played


def test_every_answered_move_is_in_the_journal_before_the_answer(client: CheckedClient):
    created = client.new_game("astrobirdz_v0", [HUMAN, HUMAN], seed=3)
    gid = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"]}
    path = journal_of(client, gid)
    header, moves, end = read_journal(path)
    assert header["game_id"] == gid and moves == [] and end is None
    assert header["tokens"] == {
        agent: hashlib.sha256(token.encode()).hexdigest() for agent, token in tokens.items()
    }
    assert not any(token in path.read_text() for token in tokens.values())
    for n in range(6):
        state = client.state(gid, tokens["player_0"]).json()
        actor = state["to_act"]
        legal = client.state(gid, tokens[actor]).json()["legal"]
        client.move(gid, tokens[actor], move_number=n, action=legal[0]["id"])
        # read straight after the answer: the move is already on disk
        _, moves, _ = read_journal(path)
        assert moves == client.game(gid).log.moves and len(moves) == n + 1
    assert path.read_text().count("\n") == 7  # the header and a line per move


def failing_append(path: Path, line: bytes) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_save_refuses_the_move_and_applies_nothing(
    client: CheckedClient, monkeypatch: pytest.MonkeyPatch
):
    created = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=1)
    gid, token = created["game_id"], created["seats"][0]["token"]
    play(client, gid, token, 2)
    game = client.game(gid)
    before = json.dumps(game.raw.state_dict(), sort_keys=True)
    count, on_disk = game.move_number, journal_of(client, gid).read_bytes()
    state = client.state(gid, token).json()
    monkeypatch.setattr(records, "append_line", failing_append)
    if state["to_act_kind"] == "bot":
        response = client.bot(gid, token, move_number=count)
    else:
        response = client.move(gid, token, move_number=count, action=state["legal"][0]["id"])
    assert response.status_code == 507
    assert response.json() == {
        "error": "the server could not save the move (No space left on device); nothing was changed"
    }
    left = client.http.delete(f"/api/games/{gid}", headers={"X-Seat-Token": token})
    assert left.status_code == 507 and "could not save the end of the game" in left.text
    assert json.dumps(game.raw.state_dict(), sort_keys=True) == before
    assert game.move_number == count and game.status == "running"
    assert journal_of(client, gid).read_bytes() == on_disk
    monkeypatch.undo()
    state = client.state(gid, token).json()
    assert state["move_number"] == count and state["status"] == "running"
    play(client, gid, token, 1)  # the game goes on once the disk takes writes again


def test_a_new_game_that_cannot_be_saved_leaves_no_ghost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    with make_client(tmp_path / "games", [], max_games=2) as client:
        monkeypatch.setattr(records, "append_line", failing_append)
        for _ in range(5):
            response = client.create(env="astrobirdz_v0", options={"num_players": 2})
            assert response.status_code == 507
            assert response.json()["error"] == (
                "the server could not save the new game (No space left on device); nothing "
                "was changed"
            )
        assert client.app.state.store.games == {}
        assert list((tmp_path / "games").iterdir()) == []
        monkeypatch.undo()
        for _ in range(2):  # the table did not fill with ghosts
            client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC])


def test_a_read_only_data_folder_refuses_new_games(tmp_path: Path, monkeypatch):
    folder = tmp_path / "games"
    folder.mkdir()

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    with make_client(folder, []) as client:
        monkeypatch.setattr(records.os, "open", read_only)
        response = client.create(env="astrobirdz_v0", options={"num_players": 2})
        monkeypatch.undo()
        assert response.status_code == 507
        assert "(Read-only file system)" in response.json()["error"]
        assert str(folder) not in response.text
        assert client.app.state.store.games == {}


def test_after_a_restart_running_games_continue_with_their_tokens(tmp_path: Path):
    data = tmp_path / "games"
    with make_client(data, []) as client:
        created = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=11)
        gid, token = created["game_id"], created["seats"][0]["token"]
        play(client, gid, token, 3)
        moves = list(client.game(gid).log.moves)
        view = client.game(gid).raw.view("player_0")
        finished = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=12)
        client.http.delete(
            f"/api/games/{finished['game_id']}",
            headers={"X-Seat-Token": finished["seats"][0]["token"]},
        )
    with make_client(data, []) as client:
        listed = client.http.get("/api/games").json()["games"]
        assert [(g["game_id"], g["move_number"]) for g in listed] == [(gid, len(moves))]
        assert "token" not in json.dumps(listed)
        state = client.state(gid, token).json()
        assert state["move_number"] == len(moves) and state["view"] == json.loads(json.dumps(view))
        assert client.game(gid).log.moves == moves
        assert client.state(gid, "x" * 24).status_code == 403
        play(client, gid, token, 2)
        assert read_journal(journal_of(client, gid))[1] == client.game(gid).log.moves


def test_a_journal_whose_game_ended_becomes_its_record(tmp_path: Path):
    data = tmp_path / "games"
    with make_client(data, []) as client:
        created = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=5)
        gid, token = created["game_id"], created["seats"][0]["token"]
        play(client, gid, token, 2)
        path = journal_of(client, gid)
        game = client.game(gid)
        # the end line reached the journal, but the record was never written (a crash)
        game.log.journal.append(
            {"end": "abandoned", "moves": game.move_number, "scores": None, "winners": []}
        )
        moves = list(game.log.moves)
    assert path.exists()
    with make_client(data, []) as client:
        assert client.http.get("/api/games").json()["games"] == []
        record = load_record(path.with_suffix(".json"))
        assert record["status"] == "abandoned" and record["moves"] == moves
        assert not path.exists()


def test_a_torn_last_line_is_dropped(tmp_path: Path):
    data = tmp_path / "games"
    with make_client(data, []) as client:
        created = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=5)
        gid, token = created["game_id"], created["seats"][0]["token"]
        play(client, gid, token, 2)
        moves = list(client.game(gid).log.moves)
        path = journal_of(client, gid)
    with path.open("a") as journal:
        journal.write('{"n": 99, "agent": "play')  # a write cut by a power failure
    with make_client(data, []) as client:
        assert client.game(gid).log.moves == moves
        play(client, gid, token, 1)
        assert read_journal(path)[1] == client.game(gid).log.moves


def test_a_finished_game_has_its_record_and_no_journal(client: CheckedClient):
    from serve_helpers import play_whole_game

    played = play_whole_game(client, "astrobirdz_v0", [HUMAN, HEURISTIC], seed=4)
    game = client.game(played["game_id"])
    assert game.log.journal is None
    record = load_record(game.log.path)
    assert "tokens" not in json.dumps(record) and record["status"] == "over"
    replay_record(record)
    assert list(game.log.path.parent.glob("*.jsonl")) == []


def play_to_last_move(client: CheckedClient, env_id: str, seed: int) -> tuple[str, str, int]:
    """A game of two people, each playing its first legal move, played up to (not
    including) the move that ends it: its id, the token of the seat to act and that move."""
    alone = make(env_id, illegal_action="raise", **small_options(env_id))
    alone.reset(seed=seed)
    length = 0
    while not alone.unwrapped.game.is_over():
        alone.step(alone.unwrapped.legal_actions(alone.unwrapped.agent_selection)[0])
        length += 1
    created = client.new_game(env_id, [HUMAN, HUMAN], seed=seed)
    gid = created["game_id"]
    tokens = {s["agent"]: s["token"] for s in created["seats"]}
    raw = client.game(gid).raw
    for number in range(length):
        action = raw.legal_actions(raw.agent_selection)[0]
        if number == length - 1:
            return gid, tokens[raw.agent_selection], action
        response = client.move(gid, tokens[raw.agent_selection], move_number=number, action=action)
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("failing", ["end line", "record"])
def test_a_game_ending_move_that_cannot_be_saved_is_refused_and_not_applied(
    client: CheckedClient, monkeypatch: pytest.MonkeyPatch, failing: str
):
    """The move that ends a game writes its line, the end line and the record: a full
    disk at any of the last two refuses the move (507) and leaves the game as it was."""
    gid, token, action = play_to_last_move(client, "astrobirdz_v0", 3)
    game = client.game(gid)
    before = json.dumps(game.raw.state_dict(), sort_keys=True)
    count, journal = game.move_number, journal_of(client, gid)
    on_disk = journal.read_bytes()
    real_append = records.append_line

    def full_after_the_move(path: Path, line: bytes) -> None:
        if b'"end"' in line:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_append(path, line)

    def full_disk(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    if failing == "end line":
        monkeypatch.setattr(records, "append_line", full_after_the_move)
    else:
        monkeypatch.setattr(records, "write_json_atomic", full_disk)
    response = client.move(gid, token, move_number=count, action=action)
    assert response.status_code == 507, response.text
    assert "No space left on device" in response.json()["error"]
    assert json.dumps(game.raw.state_dict(), sort_keys=True) == before
    assert game.move_number == count and game.status == "running"
    assert journal.read_bytes() == on_disk
    assert list(journal.parent.glob("*.json")) == []
    monkeypatch.undo()
    response = client.move(gid, token, move_number=count, action=action)
    assert response.status_code == 200 and response.json()["status"] == "over"
    record = load_record(game.log.path)
    assert len(record["moves"]) == count + 1
    replay_record(record)


# ---- journals checked whole at a restart -------------------------------------------------


def journals_of_two_games(data: Path, end_second: bool = False) -> tuple[Path, Path, str, str]:
    """Two running games of a person and a heuristic (the second left, if
    ``end_second``, with its end line written but no record, as after a crash):
    their journals, the first's id and token."""
    with make_client(data, []) as client:
        first = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=11)
        second = client.new_game("astrobirdz_v0", [HUMAN, HEURISTIC], seed=12)
        for created in (first, second):
            play(client, created["game_id"], created["seats"][0]["token"], 2)
        if end_second:
            game = client.game(second["game_id"])
            game.log.journal.append(
                {"end": "abandoned", "moves": game.move_number, "scores": game.scores(),
                 "winners": [], "error": None, "ended_because": "left by a person"}
            )  # fmt: skip
        paths = journal_of(client, first["game_id"]), journal_of(client, second["game_id"])
    return *paths, first["game_id"], first["seats"][0]["token"]


def rewrite(path: Path, change: Any) -> None:
    """Apply ``change(lines)`` to a journal's parsed lines and write it back."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def bot_seat(lines: list[dict[str, Any]]) -> dict[str, Any]:
    return lines[0]["record"]["seats"][1]


JOURNAL_DAMAGE = {
    "infinite bot seed": (
        lambda lines: bot_seat(lines).update(bot_seed=float("inf")),
        "line 1 is not JSON: Infinity is not a JSON number",
    ),
    "long bot name": (
        lambda lines: bot_seat(lines)["bot"].update(bot="h" * 300),
        "seats[1].bot.bot: 'hhhh",
    ),
    "bot seed not the seat's": (
        lambda lines: bot_seat(lines).update(bot_seed=5),
        "seats[1].bot_seed: 5, but the deal seed gives this seat",
    ),
    "options that cannot build": (
        lambda lines: lines[0]["record"]["options"].update(num_players=9),
        "options: cannot build astrobirdz_v0",
    ),
    "seats that disagree with the options": (
        lambda lines: lines[0]["record"]["options"].update(num_players=3),
        "seats: 2 seats, but the options make a game of 3 players",
    ),
    "a move whose text is not its action": (
        lambda lines: lines[1].update(text="guess 9"),
        "moves[0]: action",
    ),
    "a person with no token": (
        lambda lines: lines[0].update(tokens={}),
        "tokens: must hold a SHA-256 hash for each person's seat (player_0)",
    ),
}


@pytest.mark.parametrize("damage", JOURNAL_DAMAGE, ids=list(JOURNAL_DAMAGE))
def test_a_damaged_journal_is_refused_by_name_and_set_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
):
    data = tmp_path / "games"
    good, bad, gid, token = journals_of_two_games(data)
    change, message = JOURNAL_DAMAGE[damage]
    rewrite(bad, change)
    capsys.readouterr()
    with make_client(data, []) as client:
        assert [g["game_id"] for g in client.http.get("/api/games").json()["games"]] == [gid]
        play(client, gid, token, 1)
    err = capsys.readouterr().err
    assert f"flockgym serve: not continued: {bad.name}: " in err and message in err, err
    assert f"set aside as {bad.name}.refused" in err and "unexpected" not in err
    assert not bad.exists() and bad.with_name(bad.name + ".refused").exists()
    assert not bad.with_suffix(".json").exists() and good.exists()


def test_a_damaged_journal_of_an_ended_game_does_not_become_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """An end line whose scores are not the table's (or no seat's) is refused: the
    record it would make would not load, or would not replay."""
    data = tmp_path / "games"
    for index, scores in enumerate([{"player_0": "many"}, {"player_0": 1, "player_1": 10**9}]):
        folder = data / str(index)
        _, bad, _, _ = journals_of_two_games(folder, end_second=True)
        rewrite(bad, lambda lines, scores=scores: lines[-1].update(scores=scores))
        with make_client(folder, []):
            pass
        assert not bad.with_suffix(".json").exists()
        assert bad.with_name(bad.name + ".refused").exists()
    err = capsys.readouterr().err
    assert "end line: scores must be null or a number for each seat" in err
    assert "end line: scores {'player_0': 1, 'player_1': 1000000000}, replayed" in err


def test_a_sound_journal_of_an_ended_game_becomes_a_record_that_replays(tmp_path: Path):
    data = tmp_path / "games"
    _, ended, _, _ = journals_of_two_games(data, end_second=True)
    with make_client(data, []):
        pass
    record = load_record(ended.with_suffix(".json"))
    assert record["status"] == "abandoned" and record["ended_because"] == "left by a person"
    replay_record(record)
    assert not ended.exists()


def test_a_bot_request_whose_later_save_fails_is_refused_whole(
    client: CheckedClient, monkeypatch: pytest.MonkeyPatch
):
    """``until: "human"`` plays every bot in turn: if the second bot's move cannot be
    saved, the first bot's move is undone too (a refused request changes nothing)."""
    created = client.new_game("asrus_v0", [HUMAN, HEURISTIC, HEURISTIC], seed=2)
    gid, token = created["game_id"], created["seats"][0]["token"]
    game = client.game(gid)
    state = client.state(gid, token).json()
    response = client.move(gid, token, move_number=0, action=state["legal"][0]["id"])
    assert response.json()["to_act_kind"] == "bot"
    before = json.dumps(game.raw.state_dict(), sort_keys=True)
    count, journal = game.move_number, journal_of(client, gid)
    on_disk = journal.read_bytes()
    real_append = records.append_line
    calls: list[bytes] = []

    def second_fails(path: Path, line: bytes) -> None:
        calls.append(line)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_append(path, line)

    monkeypatch.setattr(records, "append_line", second_fails)
    response = client.bot(gid, token, move_number=count, until="human")
    assert response.status_code == 507, response.text
    assert len(calls) == 2
    assert json.dumps(game.raw.state_dict(), sort_keys=True) == before
    assert game.move_number == count and journal.read_bytes() == on_disk
    monkeypatch.undo()
    response = client.bot(gid, token, move_number=count, until="human")
    assert response.status_code == 200 and response.json()["to_act_kind"] == "human"
    assert read_journal(journal)[1] == game.log.moves
