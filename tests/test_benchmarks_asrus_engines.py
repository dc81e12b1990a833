"""docs/scale.md's Asrus engine figures are those of the saved run.

``benchmarks/asrus_engines.py --json`` saved the run in
``benchmarks/results/asrus_engines.json``; the table between the page's
``asrus engines`` marker and ``<!-- end -->`` must be the script's table of
that run, and the ratios the page's reading and CHANGELOG.md state must be the
same run's. The script itself is checked on a tiny run (a fraction of a second
per runner).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from compiled_helpers import require_compiled
from script_loader import load_script

ROOT = Path(__file__).parents[1]
SAVED = ROOT / "benchmarks" / "results" / "asrus_engines.json"
MARKER = (
    "<!-- asrus engines: python benchmarks/asrus_engines.py --table "
    "benchmarks/results/asrus_engines.json -->\n"
)


def _ratios(run: dict) -> dict[str, float]:
    rows = run["runners"]

    def rate(name: str) -> float:
        return rows[name]["steps_per_cpu_second"]

    return {
        "aec compiled / peer": rows["AEC loop, compiled engine"]["over_peer"],
        "aec python / peer": rows["AEC loop, python engine"]["over_peer"],
        "aec compiled / aec python": rate("AEC loop, compiled engine")
        / rate("AEC loop, python engine"),
        "bots compiled / bots python": rate("heuristic bots, compiled")
        / rate("heuristic bots, python engine"),
        "compiled / python": rows["compiled engine"]["over_python_engine"],
        "in C++ / python": rows["compiled engine, whole games in C++"]["over_python_engine"],
    }


def test_the_scale_page_states_the_saved_run() -> None:
    script = load_script("asrus_engines")
    run = json.loads(SAVED.read_text())
    assert run["peer"] == "connect_four_v3" and run["players"] == 5
    page = (ROOT / "docs" / "scale.md").read_text()
    stated, reading = page.split(MARKER, 1)[1].split("\n<!-- end -->", 1)
    assert stated.split("\n\n", 1)[1] == script.table(run)
    reading = " ".join(reading.split("\n### ", 1)[0].split())
    ratios = _ratios(run)
    assert f"The AEC loop is {ratios['aec compiled / peer']:.2f}x `connect_four_v3`" in reading
    assert f"against {ratios['aec python / peer']:.2f}x on the Python engine" in reading
    assert f"({ratios['aec compiled / aec python']:.2f}x faster)" in reading
    assert f"run at {ratios['bots compiled / bots python']:.1f}x the Python bot's" in reading
    assert f"alone is {ratios['compiled / python']:.1f}x the Python engine" in reading
    assert f"and {ratios['in C++ / python']:.1f}x with the loop inside C++" in reading


def test_the_changelog_states_the_saved_ratios() -> None:
    ratios = _ratios(json.loads(SAVED.read_text()))
    log = (ROOT / "CHANGELOG.md").read_text()
    engine = re.sub(r"\s+", " ", log.split("- Asrus's compiled engine", 1)[1].split("\n- ", 1)[0])
    assert f"{ratios['aec compiled / peer']:.2f}x PettingZoo's `connect_four_v3`" in engine
    assert f"engine: {ratios['aec python / peer']:.2f}x in the same run" in engine
    bots = log.split("- Asrus's heuristic bot compiled", 1)[1].split("\n- ", 1)[0]
    assert f"{ratios['bots compiled / bots python']:.1f}x the Python bots'" in re.sub(
        r"\s+", " ", bots
    )


def test_the_script_measures_every_runner_against_the_peer() -> None:
    pytest.importorskip("pettingzoo.classic.connect_four_v3")  # the peer (the bench extra)
    require_compiled("asrus")  # the compiled runners
    script = load_script("asrus_engines")
    run = script.measure(0.2, 1)
    assert list(run["runners"]) == list(json.loads(SAVED.read_text())["runners"])
    assert run["runners"][script.PEER]["over_peer"] == 1.0
    assert all(row["steps"] > 0 for row in run["runners"].values())
    assert script.table(run).count("\n") == len(run["runners"]) + 1
