"""Speed figures docs/own-code.md states are the saved runs of their benchmark
scripts, as each script's ``summary`` words them (a new run changes them in one
place: run the script with ``--json``, then paste its ``--summary``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_loader import BENCHMARKS, load_script

OWN_CODE = Path(__file__).resolve().parents[2] / "docs" / "own-code.md"


def saved(name: str) -> dict:
    return json.loads((BENCHMARKS / "results" / f"{name}.json").read_text())


def test_the_threads_advice_states_the_saved_run() -> None:
    """docs/own-code.md tells a user of their own SB3 loop to learn on one torch
    thread, with the measured figure; the example it points to does so."""
    run = saved("sb3_threads")
    text = OWN_CODE.read_text()
    assert load_script("sb3_threads").summary(run) in text
    assert "torch.set_num_threads(1)" in text
    default, one = run["runs"]
    assert one["threads"] == 1 and default["median"] > one["median"]
    example = (BENCHMARKS.parent / "examples" / "sb3_maskable_ppo.py").read_text()
    assert "torch.set_num_threads(1)" in example


def test_the_ismcts_snippet_uses_the_game_where_it_is_quick() -> None:
    """docs/own-code.md's ISMCTS snippet loads the game whose ISMCTS move the saved
    run measured cheapest, and states that run (Skybirds took 13 s a move)."""
    import re

    pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    run = saved("openspiel_ismcts")
    text = OWN_CODE.read_text()
    assert load_script("openspiel_ismcts").summary(run) in text
    quickest = load_script("openspiel_ismcts").quickest(run)
    snippet = text.split("ISMCTS searches what the seat knows", 1)[1].split("```", 2)[1]
    loaded = re.findall(r'pyspiel\.load_game\("flockgym_(\w+)"', snippet)
    assert loaded == [quickest.removesuffix("_v0")]
