"""``flockgym compare``: the paired games are the games ``flockgym eval`` plays,
the field is seeded alike for A and B, the statistics match hand-computed
figures, the sequential test stops, bad arguments are refused before any
folder is made, and the same command gives the same JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from flockgym.bots.policies import make_participant
from flockgym.cli import main
from flockgym.common.provenance import command_line
from flockgym.envs import FlockgymError
from flockgym.evaluation import compare_stats as stats
from flockgym.evaluation import sprt as sequential
from flockgym.evaluation import tournaments as evaluate
from flockgym.evaluation.compare import (
    SPRT_MIN_DEALS,
    CompareRequest,
    compare,
    field_tables,
    prepare,
    sprt_deals_per_block,
)
from flockgym.evaluation.vector_tournament import resolve_tournament_engine

TWO_PLAYERS = {"num_players": 2}
GAMES = {
    "astrobirdz_v0": TWO_PLAYERS,
    "skybirds_v0": TWO_PLAYERS,
    "arena_v0": TWO_PLAYERS,
    "asrus_v0": {"num_players": 3},  # Asrus seats 3 to 9: A, then B, among a heuristic field
}


def run_cli(tmp_path: Path, *args: str, out: str = "out") -> dict[str, Any]:
    """``flockgym compare ARGS --out tmp_path/out``; the saved JSON."""
    folder = tmp_path / out
    assert main(["compare", *args, "--out", str(folder), "--no-progress"]) == 0
    return json.loads((folder / "compare.json").read_text())


def eval_deals(env_id: str, options: dict[str, Any], players: list[str], seating: str, deals: int):
    """Per-deal tallies of ``flockgym eval --players P --seating S`` (the schedule
    :func:`evaluate.tournament` builds, played by its block function)."""
    participants = [make_participant(spec, env_id, options) for spec in players]
    n = len(evaluate.make(env_id, **options).possible_agents)
    engine = resolve_tournament_engine(env_id, options, [p.kind for p in participants], "auto")
    tables = evaluate.seating_tables(n, 2, seating)  # type: ignore[arg-type]
    schedule = evaluate.Schedule(env_id, options, participants, tables, seating, 0, True, engine)
    return evaluate.play_block(schedule, range(deals))


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_each_deal_is_the_deal_flockgym_eval_plays(env_id: str, tmp_path: Path) -> None:
    options = GAMES[env_id]
    args = ["heuristic", "random", "--env", env_id, "--deals", "3"]
    args += [arg for k, v in options.items() for arg in ("--option", f"{k}={v}")]
    data = run_cli(tmp_path, *args)
    rows = np.array(data["per_deal"])
    if options["num_players"] == 2:
        assert data["mode"] == "swap" and data["tables_per_deal"] == 2
        tallies = eval_deals(env_id, options, ["heuristic", "random"], "rotate", 3)
        a = [(t.wins[0] / t.seat_games[0], t.points[0] / t.seat_games[0]) for t in tallies.values()]
        b = [(t.wins[1] / t.seat_games[1], t.points[1] / t.seat_games[1]) for t in tallies.values()]
        result = evaluate.tournament(
            env_id, [make_participant(s, env_id, options) for s in ("heuristic", "random")], 3,
            0, options,
        )  # fmt: skip
    else:
        assert data["mode"] == "field" and data["tables_per_deal"] == 3
        alone = {
            spec: eval_deals(env_id, options, [spec, "heuristic"], "field", 3)
            for spec in ("heuristic", "random")
        }
        a, b = (
            [(t.wins[0] / t.seat_games[0], t.points[0] / t.seat_games[0]) for t in tallies.values()]
            for tallies in alone.values()
        )
        result = evaluate.tournament(
            env_id, [make_participant(s, env_id, options) for s in ("random", "heuristic")], 3,
            0, options, seating="field",
        )  # fmt: skip
        result.standings.reverse()  # B (random) alone against the field: standings[1]
    assert rows[:, 0].tolist() == [w for w, _ in a]
    assert rows[:, 2].tolist() == [p for _, p in a]
    assert rows[:, 1].tolist() == [w for w, _ in b]
    assert rows[:, 3].tolist() == [p for _, p in b]
    b_row = next(row for row in data["standings"] if row["name"] == "B")
    assert b_row["win_rate"] == result.standings[1].win_rate
    assert b_row["mean_points"] == result.standings[1].mean_points
    assert data["deal_seeds"] == [evaluate.derive_seed(0, d) for d in range(3)]
    verdict = data["verdict"]
    assert verdict["win_rate_diff"] == pytest.approx(float(np.mean(rows[:, 0] - rows[:, 1])))


def test_the_field_is_laid_from_the_seat_after_the_player() -> None:
    assert field_tables(3, [1, 2]) == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    assert field_tables(4, [1, 1, 1]) == evaluate.seating_tables(4, 2, "field")


def test_the_same_bot_against_itself_ties_every_deal_among_a_mixed_field(tmp_path: Path) -> None:
    """A and B are both random, seated among a field of a heuristic and a random
    bot: the same deals, seats and seeds make the very same games, so every
    paired difference is exactly 0 (a field seeded differently for B would not)."""
    data = run_cli(
        tmp_path, "random", "random", "--env", "asrus_v0", "--option", "num_players=3",
        "--field", "heuristic,random", "--deals", "4",
    )  # fmt: skip
    assert data["mode"] == "field" and data["games"] == 4 * 3 * 2
    assert [row["spec"] for row in data["config"]["field"]] == ["heuristic", "random"]
    rows = np.array(data["per_deal"])
    assert rows[:, 0].tolist() == rows[:, 1].tolist()
    assert rows[:, 2].tolist() == rows[:, 3].tolist()
    verdict = data["verdict"]
    assert (verdict["win_rate_diff"], verdict["win_rate_diff_ci"]) == (0.0, 0.0)
    assert (verdict["deal_wins"], verdict["deal_draws"], verdict["deal_losses"]) == (0, 4, 0)
    assert verdict["los"] == 0.5 and verdict["elo_diff"] == 0.0
    names = [row["name"] for row in data["ratings"]["players"]]
    assert names == ["A", "B", "field +1: heuristic", "field +2: random"]
    # A and B never share a table in a field: no head-to-head probability and no
    # second Elo beside the paired one.
    assert data["ratings"]["a_beats_b"] is None
    assert all(row["elo"] is None for row in data["standings"])
    markdown = (tmp_path / "out" / "compare.md").read_text()
    assert "head to head" not in markdown and "Bradley-Terry" not in markdown
    assert "the one Elo difference between them is the paired one" in markdown
    assert "**Warning**: only 4 deals" in markdown and data["warnings"]


@pytest.mark.parametrize(
    ("a", "b", "deals", "decision", "llr"),
    [
        ("heuristic", "random", 66, "H1", 3.0230943907806966),
        ("random", "heuristic", 57, "H0", -2.9916581016896355),
    ],
)
def test_sprt_stops_on_a_clear_difference(
    a: str, b: str, deals: int, decision: str, llr: float, tmp_path: Path
) -> None:
    data = run_cli(
        tmp_path, a, b, "--env", "astrobirdz_v0", "--option", "num_players=2", "--sprt", "0,20"
    )
    assert data["deals"] == deals and len(data["per_deal"]) == deals
    sprt = data["sprt"]
    assert (sprt["decision"], sprt["alpha"], sprt["beta"]) == (decision, 0.05, 0.05)
    assert (sprt["elo_model"], sprt["min_decisive"]) == ("normalized", SPRT_MIN_DEALS)
    assert sprt["llr"] == pytest.approx(llr, rel=1e-12)
    assert sprt["upper"] == pytest.approx(math.log(19)) and sprt["lower"] == -sprt["upper"]
    scores = np.array([0.5 + (row[0] - row[1]) / 2 for row in data["per_deal"]])
    # the very stop of the vectorised test the simulations measure
    bounds = (sprt["lower"], sprt["upper"])
    played, said = sequential.first_stop(scores, 0, 20, bounds)
    assert (played, said) == (deals, {"H1": 1, "H0": -1}[decision])
    # after a stop: the stopping-aware estimate, no fixed-n interval
    verdict = data["verdict"]
    assert verdict["elo_diff"] == sprt["estimate"]["elo"]
    assert verdict["win_rate_diff_ci"] is None and "stopping-aware" in verdict["intervals"]
    assert sprt["estimate"]["low"] < sprt["estimate"]["elo"] < sprt["estimate"]["high"]
    markdown = (tmp_path / "out" / "compare.md").read_text()
    assert f"after {deals} deals" in markdown and "alpha=0.05" in markdown
    assert "median-unbiased" in markdown


def test_statistics_on_hand_computed_inputs() -> None:
    assert stats.logistic_score(0) == 0.5
    assert stats.elo_from_score(0.75) == pytest.approx(400 * math.log10(3), rel=1e-15)
    assert stats.elo_from_score(1.0) == math.inf and stats.elo_from_score(0.0) == -math.inf
    # LOS from 3 deals won and 1 lost: Phi((3 - 1) / sqrt(3 + 1)) = Phi(1).
    assert stats.likelihood_of_superiority(3, 1) == pytest.approx(0.8413447460685429, rel=1e-15)
    assert stats.likelihood_of_superiority(0, 0) == 0.5
    scores = np.array([1.0, 0.5, 0.75, 0.5])
    assert stats.deal_record(scores) == (2, 2, 0)
    # Mean 0.6875; sample sd sqrt(0.171875 / 3); half-width t(0.975, 3 df) * sd / 2.
    half = 3.182446305284263 * math.sqrt(0.171875 / 3) / 2
    assert stats.paired_difference(scores) == (0.6875, pytest.approx(half, rel=1e-15))
    elo = stats.elo_estimate(scores)
    assert elo.elo == pytest.approx(-400 * math.log10(1 / 0.6875 - 1), rel=1e-15)
    assert elo.low == pytest.approx(-400 * math.log10(1 / (0.6875 - half) - 1), rel=1e-12)
    assert 0.6875 + half > 1 and elo.high == math.inf  # the t interval reaches a score of 1
    assert stats.small_sample_warning(29) and stats.small_sample_warning(30) is None


BAD = [
    (["--option", "num_players=2", "--field", "random"], "--field random: a 2-player game"),
    (["--option", "num_players=3", "--field", "random,random,random"], "allowed: 1"),
    (["--option", "num_players=2", "--deals", "5", "--sprt", "0,20"], "either --deals"),
    (["--option", "num_players=2", "--sprt", "0,20", "--alpha", "0.7"], "--alpha 0.7"),
    (["--option", "num_players=2", "--sprt", "0,20", "--max-deals", "5"], "--max-deals 5"),
    (["--option", "num_players=1"], "num_players=1 is not allowed"),
    (["--option", "num_players=2", "--alpha", "0.1", "--max-deals", "50"], "--alpha, --max-deals"),
]


@pytest.mark.parametrize(("extra", "message"), BAD)
def test_bad_arguments_are_refused_before_a_folder_is_made(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = "asrus_v0" if "num_players=3" in extra else "astrobirdz_v0"
    out = tmp_path / "out"
    argv = ["compare", "heuristic", "random", "--env", env, *extra, "--out", str(out)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("sprt", ["20,0", "0", "a,b"])
def test_a_bad_sprt_pair_is_an_argparse_error(
    sprt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(
            [
                "compare",
                "heuristic",
                "random",
                "--env",
                "arena_v0",
                "--sprt",
                sprt,
                "--out",
                str(out),
            ]
        )
    assert stop.value.code == 2
    assert "ELO0 < ELO1" in capsys.readouterr().err and not out.exists()


def test_an_unknown_bot_is_refused_with_no_folder(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["compare", "heuristic", "nobot", "--env", "arena_v0", "--out", str(out)]) == 2
    assert "unknown bot spec 'nobot'" in capsys.readouterr().err and not out.exists()


def test_the_same_command_gives_the_same_json(tmp_path: Path) -> None:
    args = ["heuristic", "random", "--env", "asrus_v0", "--option", "num_players=3", "--deals", "3"]
    first = run_cli(tmp_path, *args, out="first")
    second = run_cli(tmp_path, *args, out="second")
    for result in (first, second):
        provenance = result.pop("provenance")
        assert result.pop("created") and provenance["wall_seconds"] >= 0
        assert provenance["cpu_seconds"] >= 0 and provenance["command"] == command_line()
        assert {"numpy", "scipy", "openskill"} <= set(provenance["packages"])
        assert provenance["commit"] == first["commit"]
    assert first == second
    assert (tmp_path / "first" / "compare.md").read_text() == (
        tmp_path / "second" / "compare.md"
    ).read_text()
    assert len(first["config_hash"]) == 64 and first["seed"] == 0
    import pandas as pd

    deals = pd.read_csv(tmp_path / "first" / "deals.csv", float_precision="round_trip")
    assert list(deals["seed"]) == first["deal_seeds"] and len(deals) == 3
    assert deals[["a_win_rate", "b_win_rate"]].values.tolist() == [
        row[:2] for row in first["per_deal"]
    ]
    assert set(first["versions"]) >= {"flockgym", "numpy", "openskill"}
    assert first["commit"] == "unknown" or len(first["commit"].split("+")[0]) == 40


def test_every_job_count_gives_the_same_numbers() -> None:
    """61 deals at 2 players are two blocks of the tournament: played by one
    process or by two (and, for the SPRT, two blocks at a time)."""
    request = CompareRequest("astrobirdz_v0", TWO_PLAYERS, "heuristic", "random", deals=61)
    one, two = (compare(request, jobs=jobs) for jobs in (1, 2))
    for result in (one, two):
        for key in ("created", "jobs", "provenance"):
            result.pop(key)
    assert one == two


def test_compare_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "usage: flockgym compare" in out and "--sprt ELO0,ELO1" in out


DEALS_WHY = " (the 95% intervals are computed over deals), or give --sprt ELO0,ELO1"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"deals": 100_001}, "--deals 100001: must be an integer from 2 to 100000" + DEALS_WHY),
        ({"deals": 1}, "--deals 1: must be an integer from 2 to 100000" + DEALS_WHY),
        (
            {"deals": None, "sprt": (0.0, 20.0), "max_deals": 10**12},
            "--max-deals 1000000000000: must be an integer from 10 to 100000 "
            "(the test decides nothing before 10 decisive deals)",
        ),
    ],
)
def test_a_library_request_is_bounded_as_the_command_line_is(
    changes: dict[str, Any], message: str
) -> None:
    """Code that calls compare() directly gets the command line's bounds: every deal
    block is built up front, so 10**12 deals would exhaust memory before a game."""
    import dataclasses

    from flockgym.evaluation.compare import check_request

    request = CompareRequest("astrobirdz_v0", TWO_PLAYERS, "heuristic", "random", deals=61)
    with pytest.raises(FlockgymError) as refused:
        check_request(dataclasses.replace(request, **changes))
    assert str(refused.value) == message


def test_a_stopped_sequential_test_plays_on_from_its_journal(tmp_path: Path) -> None:
    """A sequential test stopped after some deals (its journal cut there, the
    last line half-written) and run again with the same folder plays on from
    the journal and gives the uninterrupted run's result; a search-free scalar
    test looks after every deal (blocks of one deal), which changes no deal."""
    args = ["heuristic", "random", "--env", "asrus_v0", "--option", "num_players=3",
            "--sprt", "0,20", "--engine", "scalar"]  # fmt: skip
    whole = run_cli(tmp_path, *args, out="whole")
    journal = tmp_path / "whole" / "deals.jsonl"
    lines = journal.read_text().splitlines()
    assert len(lines) == 1 + whole["deals"]
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "deals.jsonl").write_text("\n".join(lines[:5]) + "\n" + lines[5][:40])
    resumed = run_cli(tmp_path, *args, out="cut")
    for result in (whole, resumed):
        for key in ("created", "provenance"):
            result.pop(key)
    assert resumed == whole
    assert (cut / "deals.jsonl").read_text().splitlines() == lines
    fixed = run_cli(tmp_path, *args[:6], "--deals", str(whole["deals"]), "--engine", "scalar")
    assert fixed["per_deal"] == whole["per_deal"]  # the same deals as in tournament blocks


def test_a_search_bots_sequential_test_looks_after_every_deal() -> None:
    """Search bots (participants of kind ``custom``), the heuristic and random
    decide each game alone: the test plays one deal at a time; a checkpoint's
    batched decisions keep the tournament's blocks."""
    for a, per_block in (("ismcts:budget=2", 1), ("search:budget=2", 1), ("random", 1)):
        request = CompareRequest("arena_v0", TWO_PLAYERS, a, "heuristic", deals=None, sprt=(0, 70))
        assert sprt_deals_per_block(prepare(request, "auto")) == per_block, a
    shipped = CompareRequest("astrobirdz_v0", TWO_PLAYERS, "astrobirdz/ppo_2p", "heuristic",
                             deals=None, sprt=(0, 70))  # fmt: skip
    assert sprt_deals_per_block(prepare(shipped, "auto")) == 0


def test_a_journal_of_another_comparison_is_refused(tmp_path: Path, capsys) -> None:
    args = ["heuristic", "random", "--env", "astrobirdz_v0", "--option", "num_players=2"]
    run_cli(tmp_path, *args, "--deals", "3")
    journal = (tmp_path / "out" / "deals.jsonl").read_text()
    capsys.readouterr()
    again = ["compare", *args, "--deals", "4", "--out", str(tmp_path / "out"), "--no-progress"]
    assert main(again) == 2
    assert "holds the deals of another comparison" in capsys.readouterr().err
    assert (tmp_path / "out" / "deals.jsonl").read_text() == journal
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "deals.jsonl").write_text("not a journal\n")
    other = ["compare", *args, "--deals", "3", "--out", str(tmp_path / "other"), "--no-progress"]
    assert main(other) == 2
    said = capsys.readouterr().err
    assert "is not a comparison's journal of deals" in said and "give another --out" in said
