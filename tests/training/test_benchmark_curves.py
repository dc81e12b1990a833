"""Sample-efficiency curves of ``flockgym benchmark``: the ladder played at
checkpoints during each run, at the planned steps, the same for the same seed,
resumed without playing a finished point again, saved in the run, the grid's
JSON and CSV, and plotted with rliable's curve functions and intervals, which
are the benchmark's seeded bootstrap's and equal rliable's own on the same
resamples."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from flockgym.cli import main
from flockgym.common.errors import ConfigError
from flockgym.evaluation import benchmark as bm
from flockgym.evaluation import benchmark_stats as bs

ROOT = Path(__file__).resolve().parent.parent.parent
SPECS = ROOT / "benchmarks" / "specs"


def rliable_replay(tensor: np.ndarray, func, reps: int, seed: int):
    """rliable's own curve intervals under a fixed global seed, and the run
    indices its bootstrap drew (replayed from the same global seed: one
    ``np.random.choice(runs, shape)`` a resample)."""
    from rliable import library as rly

    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        points, intervals = rly.get_interval_estimates({"x": tensor}, func, reps=reps)
    np.random.seed(seed)
    indices = np.stack([np.random.choice(tensor.shape[0], tensor.shape) for _ in range(reps)])
    return points["x"], intervals["x"], indices


def test_the_curve_intervals_are_rliables_own_on_the_same_resamples() -> None:
    from rliable import metrics

    tensor = np.random.default_rng(4).beta(2, 5, size=(5, 3, 4))  # runs x games x steps

    def iqm_per_step(scores: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_iqm(scores[..., t]) for t in range(scores.shape[-1])])

    points, theirs, indices = rliable_replay(tensor, iqm_per_step, 300, 17)
    ours_points, ours = bs.curve_interval(tensor, bs.iqm_steps, 300, 0, "x", indices)
    assert ours_points == pytest.approx(points, abs=1e-12)
    assert np.array(ours) == pytest.approx(theirs, abs=1e-12)

    one_game = tensor[:, 1:2]  # a game's mean over seeds, as the per-game curves
    points, theirs, indices = rliable_replay(one_game, lambda s: s.mean(axis=(0, 1)), 300, 5)
    ours_points, ours = bs.curve_interval(one_game, bs.mean_steps, 300, 0, "g", indices)
    assert ours_points == pytest.approx(points, abs=1e-12)
    assert np.array(ours) == pytest.approx(theirs, abs=1e-12)


def test_the_curve_intervals_are_seeded_whatever_numpys_global_state() -> None:
    tensor = np.random.default_rng(8).uniform(size=(5, 2, 3))
    first = bs.curve_interval(tensor, bs.iqm_steps, 200, 20260101, "curve random a")
    np.random.seed(999)
    assert bs.curve_interval(tensor, bs.iqm_steps, 200, 20260101, "curve random a") == first
    assert bs.curve_interval(tensor, bs.iqm_steps, 200, 1, "curve random a") != first
    lows, highs = first[1]
    assert all(lo <= p <= hi for p, lo, hi in zip(first[0], lows, highs, strict=True))
    assert any(lo < hi for lo, hi in zip(lows, highs, strict=True))  # not degenerate


def spec_copy(tmp_path: Path, **changes: object) -> Path:
    """The tiny spec with ``changes``, its learner configs named by absolute path."""
    raw = yaml.safe_load((SPECS / "tiny.yaml").read_text())
    for learner in raw["learners"]:
        learner["config"] = str(SPECS / learner["config"])
    raw.update(changes)
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"curve_points": 3}, "curve_points = 3: it must divide budget = 1024"),
        ({"curve_points": 1}, "curve_points = 1: Input should be greater than or equal to 2"),
        (
            {"curve_points": 2, "checkpoint_every": 600},
            "checkpoint_every = 600: with curve_points = 2 the points are 512 steps apart",
        ),
    ],
)
def test_a_curve_that_cannot_fall_on_checkpoints_is_refused(
    tmp_path: Path, change: dict, message: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        bm.load_spec(spec_copy(tmp_path, **change))


def test_curve_points_set_the_checkpoint_cadence_and_a_spec_without_them_is_unchanged(
    tmp_path: Path,
) -> None:
    raw = yaml.safe_load((SPECS / "tiny.yaml").read_text())
    del raw["checkpoint_every"]
    path = spec_copy(tmp_path, curve_points=4)
    text = yaml.safe_load(path.read_text())
    del text["checkpoint_every"]
    path.write_text(yaml.safe_dump(text))
    spec = bm.load_spec(path)
    assert bm.curve_steps(spec) == [256, 512, 768, 1024]
    runs = bm.plan_runs(spec, tmp_path, tmp_path / "out")
    assert {r.config.output.checkpoint_every for r in runs} == {256}
    # A grid saved before curves existed still equals the spec it ran (reproduce).
    full = bm.load_spec(SPECS / "full.yaml")
    assert "curve_points" not in full.model_dump() and bm.curve_steps(full) == []


def small_spec(tmp_path: Path) -> Path:
    """One MaskablePPO run at 256 steps a rollout, four curve points: 256 to 1,024."""
    path = spec_copy(tmp_path, seeds=[0], curve_points=4)
    raw = yaml.safe_load(path.read_text())
    raw["learners"] = [
        {**raw["learners"][0], "set": {"n_envs": 8, "algo.n_steps": 32, "algo.batch_size": 256}}
    ]
    path.write_text(yaml.safe_dump(raw))
    return path


def run_grid(spec: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["benchmark", str(spec), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    return json.loads((out / "benchmark.json").read_text())


def test_the_curve_is_played_at_the_planned_steps_saved_plotted_and_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = small_spec(tmp_path)
    out = tmp_path / "bench"
    played: list[str] = []
    real = bm.ladder_scores

    def crash_at_the_second_point(run, policy, spec):
        played.append(policy.name)
        if len(played) == 3:  # the final policy, then 256, then 512: the process dies
            raise RuntimeError("the process dies here")
        return real(run, policy, spec)

    monkeypatch.setattr(bm, "ladder_scores", crash_at_the_second_point)
    with pytest.raises(RuntimeError, match="the process dies here"):
        bm.benchmark(spec, out, progress=False)
    assert played == ["final.zip", "step_000000256.zip", "step_000000512.zip"]
    [run_dir] = (out / "runs" / "maskable_ppo").glob("*/seed0")
    saved = json.loads((run_dir / bm.CURVE_FILE).read_text())
    assert sorted(saved["points"]) == ["256"]  # written after every point

    played.clear()
    monkeypatch.setattr(bm, "ladder_scores", lambda run, policy, spec: (
        played.append(policy.name) or real(run, policy, spec)
    ))  # fmt: skip
    result = run_grid(spec, out, capsys)
    assert played == ["step_000000512.zip", "step_000000768.zip"]  # only what was missing
    [row] = result["runs"]
    assert row["status_before"] == "trained"
    curve = row["curve"]
    assert [p["step"] for p in curve] == [256, 512, 768, 1024]
    assert [p["checkpoint_step"] for p in curve] == [256, 512, 768, 1024]
    assert curve[-1]["scores"] == row["scores"]  # the last point is the final policy
    for point in curve:
        assert sorted(point["scores"]) == ["heuristic", "random"]
        assert point["scores"]["random"]["games"] == 6 * 3

    # Nothing is played again on a finished grid.
    played.clear()
    again = run_grid(spec, out, capsys)
    assert played == [] and again["runs"][0]["curve"] == curve
    assert again["runs"][0]["status_before"] == "evaluated"

    # The aggregates, the plots, the report and the CSV export.
    curves = result["aggregate"]["curves"]
    for rung in ("random", "heuristic"):
        assert curves[rung]["steps"] == [256, 512, 768, 1024]
        expected = [bm.normalised(p["scores"][rung]["win_rate"], 3) for p in curve]
        assert curves[rung]["iqm"]["maskable_ppo"] == pytest.approx(expected, abs=1e-12)
        game = curves[rung]["per_game"]["asrus_v0-3p"]["maskable_ppo"]
        assert game["mean"] == pytest.approx(expected, abs=1e-12)
        assert (out / f"curve_{rung}.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "report.md").read_text()
    assert "# Sample-efficiency curves" in report and "| 256 steps |" in report
    assert "at most 0 steps after it" in report and curves["random"]["most_steps_past_point"] == 0
    assert "![sample-efficiency curves against random](curve_random.png)" in report
    assert bm.saved_report(out / "benchmark.json") == report
    import pandas as pd

    table = pd.read_csv(out / bm.CURVES_CSV, float_precision="round_trip")
    assert tuple(table.columns) == bm.CURVES_CSV_COLUMNS
    assert len(table) == 1 * 2 * 4  # runs x rungs x steps
    row768 = table[(table.step == 768) & (table.rung == "heuristic")]
    assert row768["win_rate"].item() == curve[2]["scores"]["heuristic"]["win_rate"]
    assert row768["checkpoint_step"].item() == 768

    # Played again from the same checkpoints (the saved points removed): the same curve.
    (run_dir / bm.CURVE_FILE).unlink()
    (run_dir / bm.EVAL_FILE).unlink()
    replayed = run_grid(spec, out, capsys)
    assert replayed["runs"][0]["curve"] == curve
    assert replayed["aggregate"]["curves"] == curves


@pytest.mark.slow
def test_the_same_seed_trains_and_plays_the_same_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = small_spec(tmp_path)
    first = run_grid(spec, tmp_path / "first", capsys)
    second = run_grid(spec, tmp_path / "second", capsys)
    assert [p["checkpoint_step"] for p in first["runs"][0]["curve"]] == [256, 512, 768, 1024]
    assert second["runs"][0]["curve"] == first["runs"][0]["curve"]
    assert second["aggregate"]["curves"] == first["aggregate"]["curves"]


def test_the_full_spec_with_curves_is_the_full_spec_with_four_points() -> None:
    """benchmarks/specs/full_curves.yaml, the command docs/benchmark.md gives for
    the full grid's curves, differs from full.yaml only in its name and points."""
    full = bm.load_spec(SPECS / "full.yaml").model_dump()
    curves = bm.load_spec(SPECS / "full_curves.yaml").model_dump()
    assert curves.pop("curve_points") == 4 and curves.pop("name") == "full_curves"
    full.pop("name")
    assert curves == full
    assert bm.curve_steps(bm.load_spec(SPECS / "full_curves.yaml")) == [
        15_000,
        30_000,
        45_000,
        60_000,
    ]


def test_the_long_spec_is_the_full_spec_at_three_times_the_budget() -> None:
    """benchmarks/specs/full_long.yaml, the grid that asks whether the learners
    separate with more training, differs from full.yaml only in its name, its
    budget (3 x 60,000) and its curve points (every 60,000 steps, so its first
    point is full.yaml's budget)."""
    full = bm.load_spec(SPECS / "full.yaml").model_dump()
    long = bm.load_spec(SPECS / "full_long.yaml")
    assert bm.curve_steps(long) == [60_000, 120_000, 180_000]
    dumped = long.model_dump()
    assert (dumped.pop("name"), dumped.pop("budget"), dumped.pop("curve_points")) == (
        "full_long",
        3 * full.pop("budget"),
        3,
    )
    full.pop("name")
    assert dumped == full
