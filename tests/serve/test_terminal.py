"""Terminal play, polished: public cards and scoring told as they happen, moves
never split across lines, forced moves played, winners once, ``?`` explaining
the special cards, the session saved like a web game, pipes closed early; and
``flockgym replay``."""

from __future__ import annotations

import io
import json
import os
import random
import re
import sys
from pathlib import Path

import pytest

from flockgym.cli import main
from flockgym.envs import entry, list_envs
from flockgym.play import load_record, replay_record
from flockgym.play.cards_help import how_it_is_won
from flockgym.play.terminal import GameAbandoned, legal_moves_text, play_terminal


class Person:
    """A person at the terminal: types ``?`` once, then random listed moves by id."""

    def __init__(self, screen: io.StringIO, seed: int = 0, quit_after: int | None = None) -> None:
        self.screen = screen
        self.rng = random.Random(seed)
        self.asked = 0
        self.quit_after = quit_after

    def readline(self) -> str:
        self.asked += 1
        if self.asked == 1:
            return "?\n"
        if self.quit_after is not None and self.asked > self.quit_after:
            return "quit\n"
        listed = self.screen.getvalue().rsplit("legal moves:", 1)[1].split("your move")[0]
        ids = re.findall(r"[(]#(\d+)[)]", listed)
        return f"#{self.rng.choice(ids)}\n"


def play(env_id: str, options: dict, seed: int, save_dir: Path | None = None, **kw):
    screen = io.StringIO()
    person = Person(screen, seed, **kw)
    summary = play_terminal(
        env_id, 0, "heuristic", seed, options, stdin=person, stdout=screen, save_dir=save_dir
    )
    return summary, screen.getvalue(), person


def test_astrobirdz_tells_every_public_card_trick_and_scoring(tmp_path: Path):
    summary, shown, _ = play("astrobirdz_v0", {"num_players": 3}, 4, tmp_path)
    record = load_record(next(tmp_path.glob("*.json")))
    replay_record(record)
    for move in record["moves"]:
        line = f"{move['agent']} (heuristic): "
        if move["agent"] != "player_0" and not move["text"].startswith("choose "):
            assert re.search(re.escape(line) + r"(\w| )*" + re.escape(move["text"]), shown), move
        if move["agent"] != "player_0" and move["text"].startswith("choose "):
            assert f"{line}{move['text']}" not in shown
    plays = [m for m in record["moves"] if re.fullmatch(r"[ROYGBP][1-9]", m["text"])]
    tricks = len(plays) // 3
    assert shown.count("trick complete: ") == tricks
    assert shown.count("-> won by ") == tricks and "won by ?" not in shown
    for turn in range(1, 6):
        assert f"turn {turn} scored:" in shown
    assert re.search(r"guessed \d+, won \d+: .* = [+-]?\d+ \(total \d+\)", shown)
    assert shown.count("winners:") == 1 and "game over; winners" not in shown
    assert "the special cards of astrobirdz_v0" in shown and "Surfette (pink)" in shown
    assert "your only move is" in shown  # turn 1: one card, played for the person
    assert record["status"] == "over" and record["source"] == "terminal"
    assert record["scores"] == summary["scores"]


def test_asrus_commitments_stay_hidden_until_the_turn_is_revealed():
    _, shown, _ = play("asrus_v0", {"num_players": 3}, 2)
    assert "player_1 (heuristic) has moved" in shown
    assert not re.search(r"player_[12] \(heuristic\): ", shown)
    assert shown.count("turn revealed: ") == 12
    assert "the special cards of asrus_v0" in shown and "Retrograde" in shown


def test_move_lists_wrap_between_moves_never_inside_one():
    from flockgym.envs import make

    env = make("asrus_v0", num_players=5)
    env.reset(seed=1)
    raw = env.unwrapped
    moves = [f"{raw.action_to_string('player_0', a)} (#{a})" for a in raw.legal_actions()]
    text = legal_moves_text(raw, "player_0", width=40)
    lines = text.splitlines()
    assert len(lines) > 3 and all(len(line) <= 40 for line in lines)
    tokens = [t.strip() for line in lines for t in line.removeprefix("legal moves:").split(",")]
    assert [t for t in tokens if t] == moves


def test_a_session_left_early_is_saved_as_abandoned(tmp_path: Path):
    with pytest.raises(GameAbandoned):
        play("astrobirdz_v0", {"num_players": 2}, 1, tmp_path, quit_after=3)
    record = load_record(next(tmp_path.glob("*.json")))
    assert record["status"] == "abandoned" and record["moves"]


def test_replay_prints_the_moves_and_checks_them(tmp_path: Path, capsys):
    play("astrobirdz_v0", {"num_players": 2}, 3, tmp_path)
    path = next(tmp_path.glob("*.json"))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    record = json.loads(path.read_text())
    assert f"{len(record['moves']):>4}. " in out and "trick complete:" in out
    assert main(["replay", str(path), "--check"]) == 0
    assert "replays exactly" in capsys.readouterr().out
    record["moves"][3]["text"] = "R1" if record["moves"][3]["text"] != "R1" else "R2"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path), "--check"]) == 2
    assert "moves[3]" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "nothing.json")]) == 2


def test_a_closed_pipe_ends_quietly(tmp_path: Path, monkeypatch, capsys):
    play("asrus_v0", {"num_players": 3}, 3, tmp_path)
    path = next(tmp_path.glob("*.json"))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left, as `| head -1` does
    with os.fdopen(write_end, "w") as pipe:
        monkeypatch.setattr(sys, "stdout", pipe)
        assert main(["replay", str(path), "--show", "tables"]) == 141
        monkeypatch.undo()
    assert "Traceback" not in capsys.readouterr().err


def test_skybirds_tells_dogfights_finishers_and_tokens():
    _, shown, _ = play("skybirds_v0", {"num_players": 2, "short_game": True}, 5)
    assert re.search(r"dogfight won by .* with \[[0-9G ]+\] \(size \d, value \d+", shown)
    assert re.search(r"player_\d \(heuristic\) goes out: place 1|you \(player_0\) goes out", shown)
    assert re.search(r" takes (A\d|\+1VP|B\d|C\d|D\d|1 \+1VP)", shown)
    assert "campaign 2 dealt (VP: " in shown
    assert "the special cards of skybirds_v0" in shown and "Roland Garros" in shown


def test_the_arena_tells_rolls_moves_and_challenges():
    _, shown, _ = play("arena_v0", {"num_players": 2, "max_rounds": 4}, 2)
    assert re.search(r"player_1 \(heuristic\) rolls d[68] \(movement\): \d", shown)
    assert re.search(r"player_1 \(heuristic\) to space \d+ \(", shown)
    assert "the special cards of arena_v0" in shown and "Nebula Slide" in shown


@pytest.mark.parametrize("env_id", list_envs())
def test_help_says_how_the_game_is_won_and_long_lines_wrap(env_id: str):
    """``?`` tells how the game is won (its how-to-play page's section) before
    the special cards, and on a 60-column terminal no line with a space in it is
    longer than 60 (a long word alone may be)."""
    screen = io.StringIO()
    person = Person(screen, 0, quit_after=3)
    options = {"num_players": min(entry(env_id).player_counts)}
    with pytest.raises(GameAbandoned):
        play_terminal(env_id, 0, "heuristic", 1, options, stdin=person, stdout=screen, width=60)
    shown = screen.getvalue()
    assert f"how {env_id} is won:" in shown
    assert shown.index(f"how {env_id} is won:") < shown.index(f"the special cards of {env_id}")
    flowing = " ".join(shown.split())
    assert all(item in flowing for item in how_it_is_won(env_id)), how_it_is_won(env_id)
    lines = [line.split("> ", 1)[-1] for line in shown.splitlines()]  # after a prompt
    assert [line for line in lines if len(line) > 60 and " " in line.strip()] == []
