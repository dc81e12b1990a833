"""benchmarks/skybirds_compiled.py: a short run measures every loop and saves
the ratios, and the figures docs/scale.md and CHANGELOG.md state are those of
the saved run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "benchmarks" / "results" / "skybirds_compiled.json"


@pytest.mark.slow  # a run of the benchmark itself (its tables are checked in make test)
def test_a_short_run_measures_each_loop_and_saves_the_ratios(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script("skybirds_compiled")
    out = tmp_path / "run.json"
    argv = ["skybirds_compiled.py", "--seconds", "0.7", "--rounds", "1", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    script.main()
    run = json.loads(out.read_text())
    names = {m["name"] for m in run["measurements"]}
    assert {"skybirds_v0 4p AEC (compiled)", "skybirds_v0 4p AEC (python)"} <= names
    assert all(m["steps"] > 0 and m["cpu_seconds"] > 0 for m in run["measurements"])
    assert run["ratios"]["aec compiled / aec python"] > 0


def test_the_stated_figures_are_the_saved_runs() -> None:
    script = load_script("skybirds_compiled")
    run = json.loads(SAVED.read_text())
    scale = (ROOT / "docs" / "scale.md").read_text()
    marker = (
        "<!-- skybirds compiled: python benchmarks/skybirds_compiled.py --table "
        "benchmarks/results/skybirds_compiled.json -->\n"
    )
    stated = scale.split(marker, 1)[1].split("\n<!-- end -->", 1)[0]
    assert stated == script.table(run)
    rates = {m["name"]: m["steps_per_cpu_second"] for m in run["measurements"]}
    ratios = run["ratios"]
    changelog = " ".join((ROOT / "CHANGELOG.md").read_text().split())
    assert f"({ratios['aec compiled / rlcard doudizhu']:.2f}x the peer, goal 10x;" in changelog
    assert f"{rates['rlcard doudizhu']:,.0f} for RLCard's `doudizhu`" in changelog
    assert f"({ratios['search compiled / search python']:.2f}x)" in changelog
