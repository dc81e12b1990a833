"""The benchmark's intervals: seeded (the same runs give the same report, which
rliable 1.2.0 alone does not: it resamples with numpy's global generator),
computed by rliable's own statistics on every resample, and as wide as
rliable's own intervals to bootstrap noise."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from flockgym.evaluation import benchmark_stats as bs
from flockgym.evaluation.benchmark import BenchmarkSpec, aggregate

GAMES = ("arena_v0-4p", "asrus_v0-5p", "astrobirdz_v0-4p")
SEEDS = (0, 1, 2, 3, 4)


def grid_rows(rng: np.random.Generator) -> list[dict]:
    """A 2-learner x 3-game x 5-seed grid of made-up win rates, as benchmark.json keeps runs."""
    rows = []
    for learner, shift in (("a", 0.0), ("b", 0.05)):
        for game in GAMES:
            for seed in SEEDS:
                scores = {
                    rung: {"bot": rung, "win_rate": float(rng.uniform(0.1, 0.6) + shift)}
                    for rung in ("random", "heuristic")
                }
                rows.append({"learner": learner, "game": game, "seed": seed, "scores": scores})
    return rows


def spec(**changes: object) -> BenchmarkSpec:
    raw = {
        "name": "t",
        "budget": 10,
        "seeds": list(SEEDS),
        "games": [{"env": "asrus_v0"}],
        "learners": [{"name": "a", "config": "x.yaml"}],
        "bootstrap_reps": 100,
        **changes,
    }
    return BenchmarkSpec.model_validate(raw)


def intervals(result: dict) -> list:
    return [
        (result[rung]["iqm_ci"], result[rung]["probability_of_improvement_ci"])
        for rung in ("random", "heuristic")
    ]


def test_two_invocations_on_the_same_runs_give_the_same_intervals(tmp_path: Path) -> None:
    rows = grid_rows(np.random.default_rng(7))
    first = aggregate(rows, spec(), tmp_path)
    np.random.seed(12345)  # whatever the global generator holds
    second = aggregate(rows, spec(), tmp_path)
    assert intervals(first) == intervals(second)
    assert first["random"]["iqm_ci_coverage"] == second["random"]["iqm_ci_coverage"]
    other = aggregate(rows, spec(eval_seed=1), tmp_path)
    assert intervals(other) != intervals(first)  # the seed reaches the resampling
    low, high = first["random"]["iqm_ci"]["a"]
    assert low < first["random"]["iqm"]["a"] < high  # not a degenerate interval


def test_every_resample_statistic_is_rlibles_own() -> None:
    from rliable import metrics

    rng = np.random.default_rng(3)
    x, y = rng.uniform(size=(5, 4)), rng.uniform(size=(5, 4)).round(1)
    xs = bs.stratified_resamples(x, 50, rng)
    ys = bs.stratified_resamples(y, 50, rng)
    for game in range(4):  # every resampled score is one of that game's runs
        assert np.isin(xs[:, :, game], x[:, game]).all()
    iqm = bs.iqm_rows(xs)
    poi = bs.improvement_rows(xs, ys)
    for i in range(50):
        assert iqm[i] == pytest.approx(metrics.aggregate_iqm(xs[i]), abs=1e-12)
        assert poi[i] == pytest.approx(metrics.probability_of_improvement(xs[i], ys[i]), abs=1e-12)


def test_the_intervals_match_rliables_to_bootstrap_noise() -> None:
    from rliable import library as rly
    from rliable import metrics

    rng = np.random.default_rng(11)
    x, y = rng.beta(2, 5, size=(5, 4)), rng.beta(2, 4, size=(5, 4))
    reps = 1000
    np.random.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        _, theirs = rly.get_interval_estimates(
            {"x": x}, lambda m: np.array([metrics.aggregate_iqm(m)]), reps=reps
        )
        _, their_poi = rly.get_interval_estimates(
            {"xy": (x, y)}, metrics.probability_of_improvement, reps=reps
        )
    _, ours = bs.iqm_interval(x, reps, 0, "x")
    _, our_poi = bs.improvement_interval(x, y, reps, 0, "xy")
    assert ours == pytest.approx(theirs["x"][:, 0], abs=0.02)
    assert our_poi == pytest.approx(np.ravel(their_poi["xy"]), abs=0.05)


def test_the_coverage_simulation_counts_intervals_holding_the_truth() -> None:
    constant = np.full((5, 3), 0.4)
    assert bs.iqm_coverage(constant, 200, 20, 0) == 1.0  # every interval is [0.4, 0.4]
    rng = np.random.default_rng(5)
    population = rng.beta(2, 5, size=(2000, 4))
    covered = bs.coverage(population, 5, bs.iqm_rows, 300, 100, 1)
    assert 0.6 < covered < 1.0


def test_scores_are_normalised_by_the_fair_share_before_they_are_pooled(tmp_path: Path) -> None:
    """A run winning 28% at 5 seats (1.4 times its fair share) outscores one
    winning 26% at 4 (1.04 times): the aggregates pool (win - 1/n) / (1 - 1/n)."""
    from flockgym.evaluation.benchmark import normalised, report_markdown

    assert normalised(0.28, 5) == pytest.approx(0.1)
    assert normalised(0.25, 4) == 0.0 and normalised(1.0, 2) == 1.0
    assert normalised(0.0, 4) == pytest.approx(-1 / 3)
    rows = grid_rows(np.random.default_rng(7))
    result = aggregate(rows, spec(), tmp_path)
    scores = {
        (r["seed"], r["game"]): normalised(
            r["scores"]["random"]["win_rate"], int(r["game"].split("-")[1][:-1])
        )
        for r in rows
        if r["learner"] == "a"
    }
    matrix = np.array([[scores[(s, g)] for g in GAMES] for s in SEEDS])
    from rliable import metrics

    assert result["random"]["iqm"]["a"] == pytest.approx(metrics.aggregate_iqm(matrix))
    per_game = result["random"]["per_game"]["a"]["asrus_v0-5p"]
    assert per_game["normalised"][0] == pytest.approx(matrix[:, 1].mean())
    low, high = per_game["normalised"][1]
    assert low <= per_game["normalised"][0] <= high
    full = {
        "runs": [dict(r, train_seconds=1.0, eval_seconds=1.0) for r in rows],
        "commit": "c",
        "train_seconds": 0.0,
        "per_game": [],
        "aggregate": result,
    }
    report = report_markdown(spec(), full)
    assert "Against heuristic, game by game" in report and "| learner | arena_v0-4p |" in report
    assert "(win rate - 1/n) / (1 - 1/n)" in report and "Measured coverage" in report


def test_a_saved_grid_is_aggregated_again_from_its_runs(tmp_path: Path) -> None:
    """--recompute turns a version-1 benchmark.json (raw win rates, rliable's
    unseeded intervals) into this version's, from its per-run scores alone."""
    import json

    from flockgym.evaluation.benchmark import RESULT_VERSION, main, saved_report

    rows = [
        dict(r, train_seconds=1.0, eval_seconds=1.0) for r in grid_rows(np.random.default_rng(1))
    ]
    saved = tmp_path / "grid" / "benchmark.json"
    saved.parent.mkdir()
    old = {
        "format": "flockgym-benchmark",
        "version": 1,
        "spec": spec().model_dump(),
        "commit": "abc",
        "train_seconds": 0.0,
        "runs": rows,
        "per_game": [],
        "aggregate": {"random": {"iqm": {"a": 0.3}}},
    }
    saved.write_text(json.dumps(old))
    with pytest.raises(Exception, match="--recompute"):
        saved_report(saved)
    assert main(["--recompute", str(saved)]) == 0
    new = json.loads(saved.read_text())
    assert new["version"] == RESULT_VERSION and new["runs"] == rows
    assert new["aggregate"]["random"]["iqm"]["a"] != 0.3 and "recomputed" in new
    assert (saved.parent / "report.md").read_text() == saved_report(saved)
    assert (saved.parent / "iqm.png").read_bytes()[:4] == b"\x89PNG"
