"""Fast evaluation: batched decisions and the vectorised engine play the same
games as one game after the other, any number of processes gives the same
result, progress off a terminal, Ctrl-C keeps the finished deals, and a
tournament needs two participants."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from training_policies_helpers import write_checkpoint

from flockgym.bots.policies import Participant, make_participant
from flockgym.cli import main
from flockgym.common.progress import Progress
from flockgym.envs import OptionError, make_bot
from flockgym.envs.asrus.env import raw_env as asrus_env
from flockgym.evaluation import tournaments as evaluate
from flockgym.evaluation.tournaments import TournamentInterrupted, tournament


def figures(result) -> list[tuple]:
    return [
        (s.name, s.games, s.win_rate, s.win_rate_ci, s.mean_points, s.mean_points_ci, s.elo)
        for s in result.standings
    ]


def test_batched_and_sequential_engines_agree(env_id: str) -> None:
    """Bots that read their view and bots that do not, every seat each: the
    lockstep engine plays exactly the games play_game plays."""
    players = [make_participant(s, env_id) for s in ("heuristic", "random")]
    batched = tournament(env_id, players, 3, seed=4)
    sequential = tournament(env_id, players, 3, seed=4, batch=False)
    assert figures(batched) == figures(sequential)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_checkpoint(
        tmp_path_factory.mktemp("ckpt") / "p.zip", "asrus_v0", {"num_players": 3}
    )


@pytest.mark.parametrize("sample", range(len(asrus_env.option_samples)))
def test_the_vectorised_engine_plays_the_same_games(checkpoint: Path, sample: int) -> None:
    """Policies sampling and greedy, the heuristic and random, under every option
    sample and a step cap that truncates: the vectorised block gives the very
    standings one game after the other gives."""
    options = {"num_players": 3, **asrus_env.option_samples[sample]}
    players = [
        make_participant(f"{checkpoint}@sample", "asrus_v0", options),
        make_participant(str(checkpoint), "asrus_v0", options, name="greedy"),
        make_participant("heuristic", "asrus_v0", options),
        make_participant("random", "asrus_v0", options),
    ]
    for extra in ({}, {"max_steps": 40}):
        run = {"seed": sample, "env_options": {**options, **extra}}
        vector = tournament("asrus_v0", players, 2, engine="vector", **run)
        sequential = tournament("asrus_v0", players, 2, batch=False, **run)
        assert figures(vector) == figures(sequential)
        assert vector.no_winner == sequential.no_winner


def test_the_engine_is_chosen_or_refused_by_name() -> None:
    players = [make_participant(s, "astrobirdz_v0") for s in ("heuristic", "random")]
    with pytest.raises(OptionError, match="astrobirdz_v0 has no vectorised engine"):
        tournament("astrobirdz_v0", players, 2, engine="vector")
    asrus = [make_participant(s, "asrus_v0") for s in ("heuristic", "random")]
    with pytest.raises(OptionError, match="engine='gpu'; allowed: auto, scalar, vector"):
        tournament("asrus_v0", asrus, 2, engine="gpu")
    custom = Participant("mine", lambda seed: make_bot("asrus_v0", "random", seed))
    with pytest.raises(OptionError, match="participants of kind custom; allowed: random"):
        tournament("asrus_v0", [custom, *asrus], 2, engine="vector")
    assert tournament("asrus_v0", [custom, asrus[1]], 2).deals == 2  # auto: scalar


def test_every_number_of_processes_gives_the_same_result(checkpoint: Path) -> None:
    options = {"num_players": 3}
    players = [
        make_participant(f"{checkpoint}@sample", "asrus_v0", options),
        make_participant(str(checkpoint), "asrus_v0", options, name="greedy"),
        make_participant("heuristic", "asrus_v0", options),
    ]
    deals = 2 * (evaluate.GAMES_PER_BLOCK // 9) + 3  # three blocks of deals
    one = tournament("asrus_v0", players, deals, seed=1, env_options=options)
    two = tournament("asrus_v0", players, deals, seed=1, env_options=options, jobs=2)
    assert figures(one) == figures(two)
    assert tournament("asrus_v0", players, 4, seed=2, env_options=options, jobs=3).deals == 4


def test_a_progress_line_every_few_seconds_off_a_terminal() -> None:
    stream = io.StringIO()
    meter = Progress(3000, "games", label="eval asrus_v0", stream=stream, interval=0.0)
    meter.update(1200)
    line = stream.getvalue().strip()
    assert line.startswith("eval asrus_v0: 1,200/3,000 games (40%), ")
    assert "games/s, about " in line and line.endswith("left")
    past = io.StringIO()  # a run ends at the first iteration past its total
    Progress(100, "steps", stream=past, interval=0.0).update(120)
    assert past.getvalue().strip().endswith("about 0 s left"), past.getvalue()
    quiet = io.StringIO()
    Progress(10, "games", stream=quiet, interval=3600).update(5)
    assert quiet.getvalue() == ""  # not before its interval


def test_units_done_before_the_meter_started_do_not_count_in_its_rate(monkeypatch) -> None:
    """A resumed grid: 30 of 60 runs were finished by an earlier call; one run
    in 10 s is 0.1 runs/s, so the 29 left take 290 s (not 31 runs in 10 s)."""
    clock = iter([100.0, 110.0])
    monkeypatch.setattr("flockgym.common.progress.time.monotonic", lambda: next(clock))
    stream = io.StringIO()
    meter = Progress(60, "runs", label="benchmark full", initial=30, stream=stream, interval=0.0)
    meter.update(1)
    line = stream.getvalue().strip()
    assert line == "benchmark full: 31/60 runs (52%), 0.1 runs/s, about 4 min 50 s left"


def test_eval_off_a_terminal_prints_progress_lines(monkeypatch, capsys, tmp_path: Path) -> None:
    monkeypatch.setattr("flockgym.common.progress.LINE_SECONDS", 0.0)
    argv = ["eval", "--env", "asrus_v0", "--players", "random,random", "--games", "30"]
    assert main([*argv, "--option", "num_players=3", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "eval asrus_v0: " in err and "/180 games" in err


def interrupt_after(monkeypatch, blocks: int) -> None:
    """Ctrl-C once ``blocks`` blocks of deals are finished."""
    play_block = evaluate.play_block
    done = []

    def then_ctrl_c(schedule, block):
        if len(done) == blocks:
            raise KeyboardInterrupt
        done.append(block)
        return play_block(schedule, block)

    monkeypatch.setattr(evaluate, "play_block", then_ctrl_c)


def test_ctrl_c_keeps_the_finished_deals_as_a_partial_result(monkeypatch) -> None:
    players = [make_participant(s, "asrus_v0") for s in ("heuristic", "random")]
    per_block = len(
        evaluate.Schedule("asrus_v0", {}, players, [(0,)] * 10, "rotate", 0, True).deal_blocks(100)[
            0
        ]
    )
    interrupt_after(monkeypatch, 2)
    with pytest.raises(TournamentInterrupted) as info:
        tournament("asrus_v0", players, 100, seed=3)
    monkeypatch.undo()
    partial = info.value.result
    assert partial.partial and partial.deals == 2 * per_block and partial.deals_planned == 100
    complete = tournament("asrus_v0", players, 2 * per_block, seed=3)
    assert figures(partial) == figures(complete)  # exactly the first deals
    assert "**Partial result**: interrupted after" in partial.to_markdown()
    interrupt_after(monkeypatch, 0)
    with pytest.raises(TournamentInterrupted) as info:
        tournament("asrus_v0", players, 100, seed=3)
    assert info.value.result is None


def test_ctrl_c_in_eval_writes_the_partial_files(monkeypatch, tmp_path: Path, capsys) -> None:
    interrupt_after(monkeypatch, 1)
    argv = ["eval", "--env", "asrus_v0", "--players", "heuristic,random", "--games", "100"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 130
    data = json.loads((tmp_path / "tournament.json").read_text())
    assert data["partial"] is True and data["deals_planned"] == 100 and data["deals"] >= 1
    assert "saved the" in capsys.readouterr().err


def test_a_tournament_of_one_participant_is_refused(capsys) -> None:
    with pytest.raises(ValueError, match="at least 2 participants, got 1"):
        tournament("asrus_v0", [make_participant("random", "asrus_v0")], 4)
    argv = ["eval", "--env", "asrus_v0", "--players", "heuristic", "--games", "4"]
    assert main(argv) == 2
    assert (
        "a tournament needs at least 2, e.g. --players heuristic,random" in capsys.readouterr().err
    )


def test_eval_engine_option(capsys, tmp_path: Path) -> None:
    argv = ["eval", "--env", "astrobirdz_v0", "--players", "heuristic,random", "--games", "2"]
    assert main([*argv, "--engine", "vector", "--out", str(tmp_path)]) == 2
    assert "astrobirdz_v0 has no vectorised engine" in capsys.readouterr().err
    argv = ["eval", "--env", "asrus_v0", "--players", "heuristic,random", "--games", "2"]
    assert main([*argv, "--engine", "scalar", "--out", str(tmp_path), "--no-progress"]) == 0


def test_games_cut_off_without_a_winner_are_counted_and_said() -> None:
    players = [make_participant(s, "asrus_v0") for s in ("heuristic", "random")]
    capped = tournament("asrus_v0", players, 3, env_options={"max_steps": 5})
    assert capped.no_winner == capped.games == 30
    assert all(s.win_rate == 0.0 for s in capped.standings)
    assert "30 of the games ended without a winner (cut off by a step or round cap)" in (
        capped.to_markdown()
    )
    assert capped.to_json()["no_winner"] == 30
    played = tournament("asrus_v0", players, 3)
    assert played.no_winner == 0 and "without a winner" not in played.to_markdown()
