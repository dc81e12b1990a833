"""docs/scale.md's Astrobirdz engine figures are those of the saved run.

``benchmarks/astrobirdz_engines.py --json`` saved the run in
``benchmarks/results/astrobirdz_engines.json``; the table of the section
"Astrobirdz's compiled engine" must state its rates and ratios, row by row in
the saved order, and CHANGELOG.md's ratios must be the same run's. The script's
own table is checked on a tiny run (a fraction of a second per runner).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from script_loader import load_script

ROOT = Path(__file__).parents[1]
SAVED = ROOT / "benchmarks" / "results" / "astrobirdz_engines.json"


def _section_rows() -> list[list[str]]:
    page = (ROOT / "docs" / "scale.md").read_text()
    section = page.split("### Astrobirdz's compiled engine", 1)[1]
    section = section.split("\n## ", 1)[0].split("\n### ", 1)[0]  # up to the next section
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    return [[cell.strip() for cell in row.strip("|").split("|")][1:] for row in rows]


def test_the_scale_page_states_the_saved_run() -> None:
    run = json.loads(SAVED.read_text())
    expected = [
        [
            f"{row['steps_per_cpu_second']:,.0f}",
            f"{row['over_python_engine']:.2f}x",
            f"{row['over_peer']:.2f}x",
        ]
        for row in run["runners"].values()
    ]
    assert _section_rows() == expected
    assert run["peer"] == "open_spiel oh_hell 4p" and run["players"] == 4


def test_the_changelog_states_the_saved_ratios() -> None:
    runners = json.loads(SAVED.read_text())["runners"]
    log = (ROOT / "CHANGELOG.md").read_text()
    entry = log.split("- Astrobirdz's compiled engine", 1)[1].split("\n- ", 1)[0]
    entry = re.sub(r"\s+", " ", entry)
    assert f"{runners['compiled engine']['over_python_engine']:.1f}x the Python engine" in entry
    assert f"AEC loop {runners['AEC loop, compiled engine']['over_peer']:.2f}x OpenSpiel" in entry
    assert f"engine: {runners['AEC loop, python engine']['over_peer']:.2f}x)" in entry
    bots = log.split("- Astrobirdz's heuristic bot compiled", 1)[1].split("\n- ", 1)[0]
    ratio = (
        runners["heuristic bots, compiled"]["steps_per_cpu_second"]
        / runners["heuristic bots, python engine"]["steps_per_cpu_second"]
    )
    assert f"heuristic bots: {ratio:.1f}x the" in re.sub(r"\s+", " ", bots)


def test_the_script_measures_every_runner_against_the_peer() -> None:
    pytest.importorskip("pyspiel")  # the peer, OpenSpiel's oh_hell (the openspiel extra)
    script = load_script("astrobirdz_engines")
    run = script.measure(0.2, 1)
    assert list(run["runners"]) == list(json.loads(SAVED.read_text())["runners"])
    assert run["runners"][script.PEER]["over_peer"] == 1.0
    assert all(row["steps"] > 0 for row in run["runners"].values())
    assert script.table(run).count("\n") == len(run["runners"]) + 1


def test_the_default_engines_env_throughput_is_the_saved_run() -> None:
    """docs/scale.md and CHANGELOG.md state Astrobirdz's env throughput on its
    default (compiled) engine, and the ratio to ``oh_hell``, as the saved run of
    benchmarks/throughput.py has them."""
    saved = ROOT / "benchmarks" / "results" / "throughput_astrobirdz_compiled.json"
    run = json.loads(saved.read_text())
    rates = {m["name"]: m["steps"] / m["cpu_seconds"] for m in run["measurements"]}
    ours, peer = rates["astrobirdz_v0 4p"], rates["open_spiel oh_hell 4p"]
    figure = f"{ours:,.0f} steps per CPU-second against {peer:,.0f} for OpenSpiel's `oh_hell`"
    ratio = f"{ours / peer:.2f}x (goal 4x"
    for page in ("docs/scale.md", "CHANGELOG.md"):
        text = " ".join((ROOT / page).read_text().split())
        assert figure in text and ratio in text, page
    assert f"`{run['command']}`" in " ".join((ROOT / "docs" / "scale.md").read_text().split())
