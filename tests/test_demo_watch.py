"""``make watch`` (``python -m flockgym.envs.demo``): a bot game shown turn by
turn at a pace a person can read, its ``--bots`` read like ``flockgym play
--opponents`` (the last bot fills the seats left)."""

from __future__ import annotations

import pytest

from flockgym.envs import OptionError, demo
from flockgym.envs.core.bots import fill_seats

ARGS = ["--env", "asrus_v0", "--players", "5", "--seed", "0"]


def test_each_move_is_followed_by_a_readable_pause(capsys):
    pauses: list[float] = []
    assert demo.main(ARGS, sleep=pauses.append) == 0
    out = capsys.readouterr().out
    moves = out.count("\n--> ")
    assert moves > 10 and pauses == [demo.DELAY] * moves
    assert demo.DELAY >= 0.5  # time to read a table and its move


def test_delay_zero_prints_the_game_at_once(capsys):
    pauses: list[float] = []
    assert demo.main([*ARGS, "--delay", "0"], sleep=pauses.append) == 0
    assert pauses == [] and "Winner(s):" in capsys.readouterr().out


def test_the_bots_fill_the_seats_like_play_opponents(capsys):
    assert demo.main([*ARGS, "--delay", "0", "--quiet", "--bots", "heuristic,random"]) == 0
    out = capsys.readouterr().out
    seats = {line.split()[0]: line.split()[1] for line in out.splitlines() if "points" in line}
    assert seats["player_0"] == "AsrusHeuristicBot"
    assert [seats[f"player_{k}"] for k in range(1, 5)] == ["RandomBot"] * 4


def test_more_bots_than_seats_is_refused(capsys):
    bots = ",".join(["random"] * 6)
    assert demo.main([*ARGS, "--bots", bots], sleep=lambda s: None) == 2
    assert "--bots names 6 bots for 5 seats; give at most 5" in capsys.readouterr().err


@pytest.mark.parametrize("delay", ["-1", "nan", "soon"])
def test_a_bad_delay_is_refused_naming_what_is_allowed(delay, capsys):
    with pytest.raises(SystemExit):
        demo.main([*ARGS, "--delay", delay])
    assert "give seconds, a number >= 0" in capsys.readouterr().err


def test_one_rule_for_both_commands():
    assert fill_seats(["a"], 3, "--bots") == ["a", "a", "a"]
    assert fill_seats(["a", "b"], 4, "--bots") == ["a", "b", "b", "b"]
    with pytest.raises(OptionError, match="--opponents names 3 bots for 2 other seats"):
        fill_seats(["a", "b", "c"], 2, "--opponents", "other seats")
    from flockgym.play.terminal import seat_specs

    assert [spec.text for spec in seat_specs("heuristic,random", 3)] == [
        "heuristic",
        "random",
        "random",
    ]
