"""benchmarks/batched_throughput.py: a short run measures every loop in CPU
time, and docs/scale.md states the saved run (``--summary`` of it)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import ModuleType

import pytest
from compiled_helpers import require_compiled
from script_loader import load_script

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "benchmarks" / "results" / "batched_throughput.json"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    pytest.importorskip("pettingzoo")
    return load_script("batched_throughput")


def test_a_short_run_measures_every_loop(bench: ModuleType) -> None:
    require_compiled("asrus")
    args = argparse.Namespace(env=["asrus_v0"], games=8, seconds=0.2, rounds=1)
    run = bench.measure(args)
    loops = run["envs"]["asrus_v0 5p"]
    assert list(loops) == list(bench.LOOPS)
    for m in loops.values():
        assert m["steps"] > 0 and 0 < m["cpu_seconds"] <= m["seconds"] + 0.01
    table = bench.summary(run)
    assert "| asrus_v0 5p |" in table and ">= 1,000,000" in table


def test_docs_scale_states_the_saved_run(bench: ModuleType) -> None:
    run = json.loads(SAVED.read_text())
    docs = (ROOT / "docs" / "scale.md").read_text()
    begin = (
        "<!-- batched throughput: python benchmarks/batched_throughput.py --summary "
        "benchmarks/results/batched_throughput.json -->"
    )
    assert begin in docs
    stated = docs.split(begin, 1)[1].split("<!-- end -->", 1)[0]
    assert stated.strip() == bench.summary(run).strip()
    assert set(run["envs"]) == {"arena_v0 4p", "asrus_v0 5p", "astrobirdz_v0 4p", "skybirds_v0 4p"}
