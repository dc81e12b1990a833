"""The command line: help, argument errors, eval output, list, and a person
playing through stdin."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from training_helpers import tiny_raw_config

from flockgym.cli import main
from flockgym.envs import entry, list_envs
from flockgym.play.terminal import GameAbandoned, play_terminal

COMMANDS = [
    "train",
    "eval",
    "compare",
    "reproduce",
    "benchmark",
    "plot",
    "play",
    "serve",
    "replay",
    "list",
    "baselines",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: flockgym " + command in capsys.readouterr().out


def test_the_console_script_module_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "flockgym.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert all(command in done.stdout for command in COMMANDS)


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["eval", "--env", "nope_v0", "--players", "random", "--games", "2"], "--env"),
        (["eval", "--env", "asrus_v0", "--players", "random", "--games", "1"], "from 2 to 100000"),
        (["eval", "--env", "asrus_v0", "--players", "random", "--seed", "-1"], "got '-1'"),
        (
            [
                "eval",
                "--env",
                "asrus_v0",
                "--players",
                "random,random,random",
                "--seating",
                "field",
            ],
            "--players names 3",
        ),
        (["eval", "--env", "asrus_v0", "--players", "random", "--option", "x=[1"], "x=[1"),
        (["eval", "--env", "asrus_v0", "--players", "random", "--option", "=4"], "key=value"),
        (["eval", "--env", "asrus_v0", "--games", "2"], "--players"),
        (["eval", "--env", "asrus_v0", "--players", "randm", "--games", "2"], "randm"),
        (
            [
                "eval",
                "--env",
                "asrus_v0",
                "--players",
                "random,random",
                "--option",
                "num_players=2",
            ],
            "num_players=2",
        ),
        (["play", "asrus_v0", "--seat", "9", "--opponents", "random"], "--seat 9"),
        (["play", "asrus_v0", "--opponents", "random," * 5 + "random"], "--opponents names 6"),
        (["play", "asrus_v0", "--seed", "-3"], "--seed"),
        (["baselines", "--games", "1"], "--games"),
        (["train"], "CONFIG"),
        (["train", "missing.yaml"], "missing.yaml"),
        (["train", "--resume", "nowhere"], "nowhere"),
        (["train", "--resume", "nowhere", "--set", "output.dir=elsewhere"], "output.dir=elsewhere"),
        (["plot", "nowhere"], "nowhere"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_a_bad_argument_exits_nonzero_naming_it(
    argv: list[str], named: str, capsys, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where runs/ would be made
    try:
        code = main(argv)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    assert code == 2
    assert named in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # a refused command makes no folder (runs/eval/...)


def test_eval_refuses_a_file_as_out_folder_before_playing(tmp_path: Path, capsys) -> None:
    target = tmp_path / "taken.txt"
    target.write_text("x")
    argv = ["eval", "--env", "asrus_v0", "--players", "random,random", "--games", "2", "--out"]
    assert main([*argv, str(target)]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["target_is_a_folder", "parent_is_a_file", "read_only"])
def test_eval_checks_its_out_folder_before_playing(
    case: str, tmp_path: Path, request, monkeypatch, capsys
) -> None:
    from flockgym.evaluation import tournaments as evaluate

    played = []
    monkeypatch.setattr(evaluate, "tournament", lambda *args, **kwargs: played.append(args))
    if case == "target_is_a_folder":
        out = tmp_path / "out"
        (out / "tournament.json").mkdir(parents=True)
        expected = "tournament.json is a folder"
    elif case == "parent_is_a_file":
        (tmp_path / "file.txt").write_text("x")
        out = tmp_path / "file.txt" / "out"
        expected = "cannot create folder"
    else:
        out = request.getfixturevalue("read_only_folder")
        expected = f"cannot write in {out}"
    argv = ["eval", "--env", "asrus_v0", "--players", "random,random", "--games", "2", "--out"]
    assert main([*argv, str(out)]) != 0
    assert expected in capsys.readouterr().err
    assert not played, "the tournament was played before --out was checked"


def test_eval_prints_and_saves_json_and_markdown(tmp_path: Path, capsys) -> None:
    out = tmp_path / "eval"
    code = main(
        [
            "eval",
            "--env",
            "asrus_v0",
            "--players",
            "random,random",
            "--games",
            "2",
            "--out",
            str(out),
            "--no-progress",
            "--option",
            "num_players=3",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    data = json.loads((out / "tournament.json").read_text())
    assert data["env_options"]["num_players"] == 3
    assert [s["name"] for s in data["standings"]] == ["random", "random#2"]
    assert (out / "tournament.md").read_text() in printed


def test_train_from_the_command_line_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs")))
    assert main(["train", str(path), "--set", "total_steps=256", "--set", "seed=5"]) == 0
    run = tmp_path / "runs" / "run"
    assert yaml.safe_load((run / "config.yaml").read_text())["seed"] == 5
    assert main(["plot", str(run), "--out", str(tmp_path / "curves.png")]) == 0
    assert (tmp_path / "curves.png").exists()


def test_a_bad_bot_spec_fails_before_the_run_folder_is_made(tmp_path: Path, capsys) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_raw_config("asrus_v0", tmp_path / "runs")))
    assert main(["train", str(path), "--set", "eval.opponents=[random, heurstic]"]) == 2
    assert "eval.opponents[1] = 'heurstic'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_list_names_every_env_and_the_shipped_files_from_any_folder(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)  # not the checkout: the files are found from the package
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for env_id in list_envs():
        assert f"{env_id}: " in out
        # every game ships its training config as package data
        game = env_id.rsplit("_", 1)[0]
        configs = next(line for line in out.splitlines() if line.startswith("  configs: " + game))
        assert f"{game}/ppo" in configs.split(": ", 1)[1].split(", ")
        # the bots it can seat, the search bot too (every game registers a resampler)
        line = next(line for line in out.splitlines() if "bots: random, heuristic" in line
                    and entry(env_id).heuristic_bot in line)  # fmt: skip
        assert line.endswith(
            "search (search:KEY=VALUE,...), tree search (ismcts:KEY=VALUE,...; docs/search.md)"
        )
    assert "configs: asrus/ppo" in out and "checkpoints: asrus/ppo_5p" in out
    assert "other configs: quickstart" in out


class Person:
    """Stdin of a person who reads the legal moves on screen: first some
    nonsense, then alternately a move's string and its ``#id``."""

    def __init__(self, screen: io.StringIO) -> None:
        self.screen = screen
        self.lines = 0

    def readline(self) -> str:
        self.lines += 1
        if self.lines == 1:
            return "no idea\n"
        if self.lines == 2:
            return "#9999\n"
        listed = self.screen.getvalue().rsplit("legal moves: ", 1)[1].splitlines()[0]
        text, action_id = re.match(r"(.+?) \(#(\d+)\)", listed).groups()
        return f"{text}\n" if self.lines % 2 else f"#{action_id}\n"


def test_a_person_plays_a_whole_game_through_stdin(env_id: str) -> None:
    screen = io.StringIO()
    person = Person(screen)
    summary = play_terminal(env_id, seat=1, opponents="random", seed=3, stdin=person, stdout=screen)
    shown = screen.getvalue()
    assert "'no idea' is not a legal move now" in shown
    assert "'#9999' is not a legal move now" in shown
    assert "you are player_1" in shown and "final points:" in shown
    assert summary["text"] in shown
    assert 1 <= summary["rank"] <= len(summary["scores"])
    assert person.lines > 3


def test_play_on_the_command_line_ends_cleanly_when_input_ends(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    argv = ["play", "asrus_v0", "--seat", "0", "--opponents", "random", "--seed", "1"]
    assert main([*argv, "--save", str(tmp_path / "games")]) == 1
    captured = capsys.readouterr()
    assert "legal moves:" in captured.out and "you left the game" in captured.err
    (saved,) = (tmp_path / "games").iterdir()  # the abandoned game, saved where asked
    record = json.loads(saved.read_text())
    assert (record["status"], record["seed"], record["moves"]) == ("abandoned", 1, [])


@pytest.mark.parametrize("typed", ["#" + "9" * 5000, "9" * 5000, "#²", "#-1", "#1e3"])
def test_play_refuses_an_id_it_cannot_read_and_asks_again(typed: str) -> None:
    screen = io.StringIO()
    stdin = io.StringIO(f"{typed}\nquit\n")
    with pytest.raises(GameAbandoned, match="you left the game"):
        play_terminal("asrus_v0", seat=0, opponents="random", seed=1, stdin=stdin, stdout=screen)
    shown = screen.getvalue()
    flowing = " ".join(shown.split())  # as read: lines are wrapped to the terminal's width
    assert "is not a legal move now" in flowing
    assert "action ids are #0 to #194" in flowing
    assert shown.count("your move (player_0)> ") == 2  # asked again after the refusal
    assert len(max(shown.splitlines(), key=len)) < 2000  # the 5,000 digits are not echoed


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--env", "asrus_v0", "--players", "random,random", "--games", "1000000000000"],
        ["compare", "random", "heuristic", "--env", "asrus_v0", "--deals", "1000000000000"],
        [
            "compare",
            "random",
            "heuristic",
            "--env",
            "asrus_v0",
            "--sprt",
            "0,20",
            "--max-deals",
            "100001",
        ],
        ["baselines", "--games", "100001"],
    ],
)
def test_a_deal_count_past_the_bound_is_refused_before_playing(
    argv: list[str], capsys, tmp_path: Path, monkeypatch
) -> None:
    """10**12 deals would build ~10**10 deal blocks and run the machine out of
    memory before the first game: the same bound as a config's eval.games."""
    from flockgym.cli import compare, listing
    from flockgym.cli import eval as eval_command

    def must_not_play(args):  # without the bound, the command would start playing here
        raise AssertionError(f"{argv[0]} ran with {argv[-1]} deals")

    for module, name in ((eval_command, "run_eval"), (compare, "run_compare"),
                         (listing, "run_baselines")):  # fmt: skip
        monkeypatch.setattr(module, name, must_not_play)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    given = argv[-1]
    assert (
        "must be an integer from 2 to 100000 (the 95% intervals are computed over deals), "
        f"got {given!r}" in capsys.readouterr().err
    )
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_bound_on_deals_is_the_configs() -> None:
    from flockgym.cli import arguments
    from flockgym.training import config

    assert arguments.MAX_DEALS == config.MAX_DEALS == 100_000
