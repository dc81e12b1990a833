"""``flockgym benchmark``: the shipped tiny spec runs end to end, a second run
trains and plays nothing, broken runs are restarted or resumed, and a bad spec
is refused with a message naming the key and what is allowed (nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from flockgym.cli import main
from flockgym.common.errors import ConfigError
from flockgym.evaluation.benchmark import (
    LADDER,
    ladder_specs,
    load_spec,
    plan_runs,
    quoted_reports,
    rewrite_quotes,
    saved_report,
)

ROOT = Path(__file__).resolve().parent.parent.parent
SPECS = ROOT / "benchmarks" / "specs"


def run_benchmark(spec: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["benchmark", str(spec), "--out", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().out.strip().endswith(f"report: {out / 'report.md'}")
    return json.loads((out / "benchmark.json").read_text())


def spec_copy(tmp_path: Path, **changes: object) -> Path:
    """The tiny spec with ``changes``, its learner configs named by absolute path."""
    raw = yaml.safe_load((SPECS / "tiny.yaml").read_text())
    for learner in raw["learners"]:
        learner["config"] = str(SPECS / learner["config"])
    raw.update(changes)
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.slow  # 30 s; make test runs the curves' grid end to end (test_benchmark_curves.py)
def test_the_tiny_spec_runs_resumes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench"
    result = run_benchmark(SPECS / "tiny.yaml", out, capsys)
    runs = result["runs"]
    assert [(r["learner"], r["game"], r["seed"], r["status_before"]) for r in runs] == [
        ("maskable_ppo", "asrus_v0-3p", 0, "new"),
        ("maskable_ppo", "asrus_v0-3p", 1, "new"),
        ("masked_dqn", "asrus_v0-3p", 0, "new"),
        ("masked_dqn", "asrus_v0-3p", 1, "new"),
    ]
    assert [sorted(r["scores"]) for r in runs] == [["heuristic", "random"]] * 4
    for r in runs:
        assert r["scores"]["random"]["games"] == 6 * 3  # 6 deals, the policy in each seat
        # the spec's curve point at 512 steps, and the final policy's at 1,024
        assert [(p["step"], p["checkpoint_step"]) for p in r["curve"]] == [(512, 512), (1024, 1024)]
        assert json.loads((out / r["run_dir"] / "state.json").read_text())["step"] == 1024
    # IQM of two runs is their mean (of the scores normalised by the 3-seat fair
    # share); the report and the plots are there.
    agg = result["aggregate"]
    for rung in ("random", "heuristic"):
        for learner in ("maskable_ppo", "masked_dqn"):
            rates = [r["scores"][rung]["win_rate"] for r in runs if r["learner"] == learner]
            expected = (np.mean(rates) - 1 / 3) / (2 / 3)
            assert agg[rung]["iqm"][learner] == pytest.approx(expected, abs=1e-12)
        assert agg[rung]["games"] == ["asrus_v0-3p"]
        assert (out / f"profile_{rung}.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "iqm.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "report.md").read_text()
    assert "2 learners x 1 game x 2 seeds (0, 1), 1,024 learner steps per run" in report
    assert "| maskable_ppo | asrus_v0-3p | random | random |" in report
    assert "Over all 4 runs, as each run folder records it: training " in report
    assert saved_report(out / "benchmark.json") == report
    # Provenance: the packages, the command, the cost, and per run its commit and config.
    provenance = result["provenance"]
    assert {"rliable", "arch", "scipy", "numpy"} <= set(provenance["packages"])
    assert provenance["cpu_seconds"] > 0 and provenance["wall_seconds"] > 0
    assert result["spec_file"] == (SPECS / "tiny.yaml").as_posix()
    for r in runs:
        assert r["commit"] == provenance["commit"]  # trained in this process
        assert "total_steps: 1024" in r["config"] and r["train_cpu_seconds"] > 0
    assert "The runs were trained at commit" in report
    import pandas as pd

    table = pd.read_csv(out / "runs.csv", float_precision="round_trip")
    assert len(table) == 4 * 2 and set(table["rung"]) == {"random", "heuristic"}
    row = table[(table.learner == "masked_dqn") & (table.seed == 1) & (table.rung == "random")]
    assert row["win_rate"].item() == runs[3]["scores"]["random"]["win_rate"]
    assert row["normalised"].item() == pytest.approx((row["win_rate"].item() - 1 / 3) / (2 / 3))

    # A page quoting the saved grid is rendered from it, plots named from its folder.
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    quote = "<!-- benchmark report: bench/benchmark.json -->\nstale\n<!-- end -->\n"
    page.write_text("# Results\n\n" + quote)
    assert rewrite_quotes(page, tmp_path) and not rewrite_quotes(page, tmp_path)
    [(said, rendered)] = quoted_reports(page, tmp_path)
    assert said == rendered and said.startswith("### Benchmark tiny\n")
    assert "![IQM](../bench/iqm.png)" in said and "\n#### Per game, raw win rates\n" in said

    # Run again: nothing is trained or played, the aggregates are the same.
    final = (out / runs[0]["run_dir"] / "final.zip").stat().st_mtime_ns
    again = run_benchmark(SPECS / "tiny.yaml", out, capsys)
    assert [r["status_before"] for r in again["runs"]] == ["evaluated"] * 4
    assert again["aggregate"] == agg and again["train_seconds"] == 0
    # What each run cost is kept in its folder and reported again.
    for key in ("train_seconds", "eval_seconds", "steps_per_second"):
        assert [r[key] for r in again["runs"]] == [r[key] for r in runs]
        assert all(isinstance(r[key], float) and r[key] > 0 for r in runs)
    assert (out / runs[0]["run_dir"] / "final.zip").stat().st_mtime_ns == final

    # Seed 1 broken before its first checkpoint (no state.json): started again;
    # a larger budget: the other runs resume from their last checkpoint and train on.
    (out / runs[1]["run_dir"] / "state.json").unlink()
    larger = spec_copy(tmp_path, budget=1536)
    resumed = run_benchmark(larger, out, capsys)
    assert [r["status_before"] for r in resumed["runs"]] == ["resume", "restart"] + ["resume"] * 2
    for r in resumed["runs"]:
        state = json.loads((out / r["run_dir"] / "state.json").read_text())
        assert (state["step"], state["phase"]) == (1536, "done")
        # the policy trained on is measured again, not the old one's scores reused
        saved_eval = out / r["run_dir"] / "benchmark_eval.json"
        final_zip = out / r["run_dir"] / "final.zip"
        assert saved_eval.stat().st_mtime_ns >= final_zip.stat().st_mtime_ns
        assert json.loads(saved_eval.read_text())["step"] == 1536
        assert [p["step"] for p in r["curve"]] == [768, 1536]
        assert r["curve"][-1]["checkpoint_step"] == 1536
        assert r["curve"][-1]["scores"] == r["scores"]
    info = json.loads((out / runs[0]["run_dir"] / "run.json").read_text())
    assert len(info["resumed"]) == 1
    assert "resumed" not in json.loads((out / runs[1]["run_dir"] / "run.json").read_text())

    # A run of another config is never reused silently.
    other = spec_copy(tmp_path, budget=1536)
    raw = yaml.safe_load(other.read_text())
    raw["learners"][0]["set"]["algo.learning_rate"] = 1.0e-3
    other.write_text(yaml.safe_dump(raw))
    assert main(["benchmark", str(other), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "seed0 was trained with another config than the spec now gives" in err


def test_a_run_that_ends_past_its_budget_counts_as_finished_and_a_smaller_budget_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run stops at the end of its last rollout (1,024 steps for a budget of
    1,000 at 512 a rollout): run again, it is measured and kept, not refused."""
    spec = spec_copy(tmp_path, budget=1000, seeds=[0])
    raw = yaml.safe_load(spec.read_text())
    raw["learners"] = raw["learners"][:1]
    spec.write_text(yaml.safe_dump(raw))
    out = tmp_path / "bench"
    first = run_benchmark(spec, out, capsys)
    run_dir = out / first["runs"][0]["run_dir"]
    assert json.loads((run_dir / "state.json").read_text())["step"] == 1024
    again = run_benchmark(spec, out, capsys)
    assert [r["status_before"] for r in again["runs"]] == ["evaluated"]
    assert again["train_seconds"] == 0

    smaller = spec_copy(tmp_path, budget=900, seeds=[0])
    assert main(["benchmark", str(smaller), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "seed0 was trained for 1000 steps, past the spec's budget 900" in err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"colour": "red"},
            "invalid benchmark spec: unknown key colour; allowed keys here: name, budget, "
            "seeds, games, learners, eval_deals, eval_seed, bootstrap_reps, checkpoint_every",
        ),
        (
            {"budget": 0},
            "budget = 0: Input should be greater than or equal to 1 (budget: learner steps "
            "per run (total_steps))",
        ),
        (
            {"games": ["chess_v0"]},
            "games[0] = 'chess_v0': Input should be a valid dictionary or instance of "
            "GameSpec (each item of games is a mapping with keys env, options, set)",
        ),
        ({"seeds": [1, 1]}, "seeds = [1, 1]: Value error, allowed: distinct integers >= 0"),
        (
            {"games": [{"env": "chess_v0"}]},
            "games[0].env = 'chess_v0': allowed: arena_v0, asrus_v0, astrobirdz_v0, skybirds_v0",
        ),
        (
            {"games": [{"env": "asrus_v0", "rules": 1}]},
            "unknown key games[0].rules; allowed keys here: env, options, set",
        ),
        (
            {"games": [{"env": "asrus_v0", "set": {"total_steps": 5}}]},
            "games[0].set: total_steps is set by the benchmark for every run",
        ),
        (
            {"learners": [{"name": "x"}]},
            "missing key learners[0].config (a flockgym train config, relative to the "
            "spec's folder)",
        ),
        (
            {"games": [{"env": "asrus_v0", "options": {"num_players": 12}}]},
            "num_players",
        ),
    ],
)
def test_a_bad_spec_is_refused_naming_the_key_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, message: str
) -> None:
    spec = spec_copy(tmp_path, **change)
    out = tmp_path / "bench"
    assert main(["benchmark", str(spec), "--out", str(out), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_missing_spec_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "none.yaml"
    assert main(["benchmark", str(spec), "--out", str(tmp_path / "bench")]) == 2
    assert f"error: spec '{spec}': not found (cannot read the file)" in capsys.readouterr().err
    assert not (tmp_path / "bench").exists()


def test_a_learner_config_that_does_not_validate_names_the_learner_and_game(
    tmp_path: Path,
) -> None:
    spec = spec_copy(tmp_path)
    raw = yaml.safe_load(spec.read_text())
    raw["learners"][0]["set"]["algo.n_epochs"] = 0
    spec.write_text(yaml.safe_dump(raw))
    with pytest.raises(
        ConfigError, match=r"learner maskable_ppo \(.*\) on asrus_v0-3p: .*n_epochs"
    ):
        plan_runs(load_spec(spec), SPECS, tmp_path / "bench")


def test_the_ladder_is_random_heuristic_and_the_shipped_bot_where_there_is_one() -> None:
    assert LADDER == ("random", "heuristic", "shipped")
    assert ladder_specs("astrobirdz_v0", 4) == {
        "random": "random",
        "heuristic": "heuristic",
        "shipped": "astrobirdz/ppo_4p",
    }
    assert ladder_specs("asrus_v0", 3) == {"random": "random", "heuristic": "heuristic"}


def test_the_full_spec_is_the_documented_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec(SPECS / "full.yaml")
    assert (spec.budget, spec.seeds, spec.eval_deals) == (60_000, [0, 1, 2, 3, 4], 30)
    assert [g.env for g in spec.games] == ["asrus_v0", "astrobirdz_v0", "skybirds_v0", "arena_v0"]
    assert [learner.name for learner in spec.learners] == [
        "maskable_ppo",
        "rllib_ppo",
        "masked_dqn",
    ]
    maskable = spec.model_copy(update={"learners": spec.learners[:1]})
    runs = plan_runs(maskable, SPECS, Path("runs/benchmark/full"))
    assert len(runs) == 20 and {r.config.total_steps for r in runs} == {60_000}
    assert runs[-1].run_dir == Path("runs/benchmark/full/runs/maskable_ppo/arena_v0-4p/seed4")
    # Its RLlib runs validate too where ray is installed (.venv-rllib, `make benchmark`).
    import flockgym.training.rllib.learner as rllib_learner

    monkeypatch.setattr(rllib_learner, "ray_missing", lambda: False)
    runs = plan_runs(spec, SPECS, Path("runs/benchmark/full"))
    assert len(runs) == 60 and runs[-1].config.algo.name == "masked_dqn"


def test_docs_benchmark_quotes_the_saved_full_grid() -> None:
    """docs/benchmark.md's results are the saved run's report, rendered again."""
    quotes = quoted_reports(ROOT / "docs" / "benchmark.md", ROOT)
    assert len(quotes) == 1
    [(said, rendered)] = quotes
    assert said == rendered
    assert "3 learners x 4 games x 5 seeds (0, 1, 2, 3, 4), 60,000 learner steps" in said
    saved = ROOT / "benchmarks" / "results" / "benchmark_full"
    for plot in ("iqm", "profile_random", "profile_heuristic", "profile_shipped"):
        assert f"](../benchmarks/results/benchmark_full/{plot}.png)" in said
        assert (saved / f"{plot}.png").read_bytes()[:4] == b"\x89PNG"
    assert (saved / "report.md").read_text() == saved_report(saved / "benchmark.json")


def test_a_quote_of_a_missing_or_foreign_file_is_refused_and_the_page_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from flockgym.evaluation.benchmark import main as quote_main

    page = tmp_path / "page.md"
    text = "<!-- benchmark report: none.json -->\nkept\n<!-- end -->\n"
    page.write_text(text)
    assert quote_main([str(page), "--root", str(tmp_path)]) == 2
    assert f"cannot read the saved grid {tmp_path / 'none.json'}" in capsys.readouterr().err
    (tmp_path / "none.json").write_text('{"format": "other"}')
    assert quote_main([str(page), "--root", str(tmp_path)]) == 2
    assert "not a flockgym-benchmark version 2 file" in capsys.readouterr().err
    assert page.read_text() == text
