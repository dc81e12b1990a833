"""benchmarks/eval_speed.py: the README states the figures of the run saved in
benchmarks/results/eval_speed.json, rendered by the script's ``summary``, and
the command that made it."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "eval_speed.py"
SAVED = ROOT / "benchmarks" / "results" / "eval_speed.json"


@pytest.fixture(scope="module")
def eval_speed() -> ModuleType:
    pytest.importorskip("torch")
    return load_script("eval_speed")


def test_the_summary_gives_wall_and_cpu_time_against_the_first(eval_speed: ModuleType) -> None:
    run = {
        "games": 3000,
        "deals": 200,
        "players": "a,b",
        "cores": 2,
        "identical": True,
        "runs": [
            {"name": "first", "seconds": 100.0, "cpu_seconds": 90.0},
            {"name": "second", "seconds": 25.0, "cpu_seconds": 30.0},
        ],
    }
    assert eval_speed.summary(run) == (
        "3,000 games (200 deals, players a,b) on 2 cores: first 100.0 s (90.0 CPU-s); "
        "second 25.0 s, 4.00x (30.0 CPU-s, 3.00x); identical standings."
    )


def test_the_readme_states_the_saved_run(eval_speed: ModuleType) -> None:
    run = json.loads(SAVED.read_text())
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert eval_speed.summary(run) in readme
    assert f"`{run['command']}`" in readme
    assert run["identical"] is True
