"""benchmarks/prototypes/arena_expert_iteration.py, the expert-iteration
prototype: its searcher games are the self-play env's learner decisions, with
departures only in the searched phases; a fit of no passes writes back the
very policy it read, and a fit of some passes plays more of its targets."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from flockgym.bots import load_policy
from flockgym.envs.arena.phases import PHASE_NAMES

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "prototypes"
SCRIPT = SCRIPT / "arena_expert_iteration.py"


@pytest.fixture(scope="module")
def prototype() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arena_expert_iteration", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def collected(prototype, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("searcher-games")
    args = argparse.Namespace(
        config=str(prototype.CONFIG), games=1, first=1, second=1, margin=0.0,
        phases=frozenset({"pick_space", "action"}), seed=2, out=str(out),
    )  # fmt: skip
    prototype.collect_part(0, args)
    return out


def test_collected_rows_are_the_learners_decisions(prototype, collected):
    data = prototype.load_data(collected)
    rows = len(data["act"])
    assert rows > 10
    assert data["obs"].shape == (rows, 1056 + 359)  # the observation and the advice
    assert data["mask"].shape == (rows, 359)
    assert data["mask"][np.arange(rows), data["act"]].all()  # every move legal
    phase = data["obs"][:, : len(PHASE_NAMES) - 1].argmax(axis=1)
    in_phases = np.isin(phase, [PHASE_NAMES.index("pick_space"), PHASE_NAMES.index("action")])
    assert data["searched"].any()
    assert (data["searched"] == in_phases).all()  # the learner's decisions have a choice
    assert data["departed"].any()  # margin 0: the searcher leaves the heuristic somewhere
    assert not data["departed"][~data["searched"]].any()
    assert len(data["ret"]) == rows


def fitted_moves(prototype, collected: Path, out: Path, epochs: int, **settings) -> np.ndarray:
    """The greedy moves, on the collected decisions, of the shipped 2-player bot
    fitted ``epochs`` passes to them."""
    args = argparse.Namespace(
        data=str(collected), checkpoint="arena/ppo_2p", out=str(out), epochs=epochs,
        learning_rate=1e-4, departure_weight=1.0, rows="all", own=False,
    )  # fmt: skip
    vars(args).update(settings)
    prototype.fit(args)
    data = prototype.load_data(collected)
    return load_policy(out).act_batch(data["obs"], data["mask"])


def test_a_fit_of_no_passes_writes_back_the_same_policy(prototype, collected, tmp_path):
    data = prototype.load_data(collected)
    before = load_policy("arena/ppo_2p").act_batch(data["obs"], data["mask"])
    after = fitted_moves(prototype, collected, tmp_path / "fitted.zip", epochs=0)
    assert (before == after).all()


def test_a_fit_plays_more_of_the_searchers_departures(prototype, collected, tmp_path):
    data = prototype.load_data(collected)
    departed = data["departed"]
    before = load_policy("arena/ppo_2p").act_batch(data["obs"], data["mask"])
    after = fitted_moves(
        prototype, collected, tmp_path / "fitted.zip", epochs=30, learning_rate=1e-3,
        departure_weight=4.0,
    )  # fmt: skip
    hits_before = int((before == data["act"])[departed].sum())
    hits_after = int((after == data["act"])[departed].sum())
    assert hits_after > hits_before
