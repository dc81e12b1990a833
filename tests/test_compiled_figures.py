"""The compiled engines' figures in docs/scale.md are the saved runs' own.

``benchmarks/compiled_choice.py`` and ``benchmarks/arena_engines.py`` saved
their runs under ``benchmarks/results``; the "Compiled engines" section states
figures of them, checked here (a rerun that changes them must change the page).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def section() -> str:
    text = (ROOT / "docs" / "scale.md").read_text()
    start = text.index("## Compiled engines")
    return text[start : text.index("\n## ", start + 1)]


def test_the_technology_figures_are_the_saved_run() -> None:
    run = json.loads((RESULTS / "compiled_choice.json").read_text())
    rates = run["draws_per_cpu_second"]
    page = section()
    assert f"{rates['pybind11_binding_call'] / 1e6:.1f}M a second" in page
    assert f"at {rates['numpy_generator_call'] / 1e6:.2f}M" in page
    assert f"({run['binding_call_over_numpy_call']:.1f}x:" in page
    assert f"{rates['cpp_loop'] / 1e6:.0f}M a second" in page
    assert f"({run['cpp_loop_over_numpy_call']:.0f}x)" in page
    assert f"takes {run['extension_load_seconds'] * 1000:.1f} ms" in page


def test_the_arena_table_is_the_saved_run() -> None:
    run = json.loads((RESULTS / "arena_engines.json").read_text())
    rows = [line for line in section().splitlines() if line.startswith("| ")][2:]
    labels = {
        "python engine": "Python engine (",
        "compiled engine": "compiled engine, the same loop",
        "compiled engine, play in C++": "compiled engine, whole games in C++",
        "AEC loop, python engine": "AEC loop (observation and mask every step), Python",
        "AEC loop, compiled engine": "AEC loop, compiled engine (the default)",
        "heuristic bots, python": "four heuristic bots, Python bot",
        "heuristic bots, compiled": "four heuristic bots, compiled bot",
        "open_spiel backgammon": "OpenSpiel `backgammon`",
    }
    assert set(labels) == set(run["runners"])
    for name, label in labels.items():
        row = next(r for r in rows if label in r)
        figures = run["runners"][name]
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert cells == [
            f"{figures['steps_per_cpu_second']:,.0f}",
            f"{figures['over_python_engine']:.2f}x",
            f"{figures['over_peer']:.2f}x",
        ], name
    assert f"decides {run['bots_compiled_over_python']:.1f}x as fast" in section()
