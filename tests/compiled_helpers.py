"""The compiled extensions for the tests that compare them with Python.

`make test` builds them (setup.py), so a missing one fails those tests rather
than skipping them quietly; a machine deliberately without a compiler sets
``FLOCKGYM_SKIP_COMPILER=1`` (as the Makefile's ``compiler`` target reads) and
the comparisons are skipped. The rest is what the compiled engines' cross-checks
share: random games played in both engines, or in two envs, side by side.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest


def require_compiled(game: str) -> ModuleType:
    """``flockgym.envs.<game>._native``, or a skip when no compiler is wanted."""
    name = f"flockgym.envs.{game}._native"
    if os.environ.get("FLOCKGYM_SKIP_COMPILER"):
        return pytest.importorskip(name, reason="FLOCKGYM_SKIP_COMPILER is set")
    return importlib.import_module(name)


def option_configs(raw_env: Any, config_from_options: Any, players: int) -> list[tuple[str, Any]]:
    """(label, config) of every option sample of ``raw_env`` at ``players`` seats."""
    out = []
    for i, sample in enumerate(raw_env.option_samples_for(players)):
        options = raw_env(num_players=players, **sample).options
        out.append((f"{players}p-sample{i}", config_from_options(options)))
    return out


def check_same_answers(py: Any, nat: Any, num_actions: int, where: str) -> None:
    """The player to act, the scores (values and types), the legal actions and
    the mask agree between a Python engine and its compiled twin."""
    assert nat.current_player() == py.current_player(), where
    py_scores, nat_scores = py.scores(), nat.scores()
    assert nat_scores == py_scores, f"{where}: scores {nat_scores} != {py_scores}"
    assert [type(s) for s in nat_scores] == [type(s) for s in py_scores], where
    assert nat.legal_actions() == py.legal_actions(), where
    assert np.array_equal(nat.legal_mask(num_actions), py.legal_mask(num_actions)), where


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def play_engines_side_by_side(
    py: Any,
    nat: Any,
    draws: np.random.Generator,
    reload_at: int,
    where_of: Callable[[int], str],
    check: Callable[[Any, Any, str], None],
) -> int:
    """Random legal actions (from ``draws``) played in a Python engine and its
    compiled twin, ``check`` before every decision; at decision ``reload_at``
    both save the same JSON and the compiled side goes on from the Python
    side's saved state. At the end the winners and the saved states agree;
    returns the decisions played."""
    steps = 0
    while True:
        where = where_of(steps)
        check(py, nat, where)
        if steps == reload_at:
            saved = py.to_dict()
            assert _same_json(nat.to_dict(), saved)
            nat = type(nat).from_dict(json.loads(json.dumps(saved)))
            check(py, nat, where + " (after a load)")
        if py.is_over() or py.is_truncated():
            assert nat.winners() == py.winners(), where
            assert _same_json(nat.to_dict(), py.to_dict()), where
            return steps
        legal = py.legal_actions()
        action = legal[int(draws.integers(len(legal)))]
        py.apply_action(action)
        nat.apply_action(action)
        steps += 1


def play_envs_side_by_side(
    envs: list[Any],
    seed: int,
    viewers_at: Callable[[int], list[str]],
    render_every: int,
    save_every: int,
) -> int:
    """The AEC loop of a Python-engine env and a compiled-engine env side by
    side: the same observation, mask, reward, termination, selection at every
    step, the same views of ``viewers_at(step)``, the same text every
    ``render_every`` steps; every ``save_every`` steps the same saved state
    (the engine option aside), and the compiled env loads the Python env's.
    Returns the steps played."""
    draws = np.random.default_rng(seed)
    steps = 0
    while envs[0].agents:
        (obs_a, *rest_a), (obs_b, *rest_b) = (env.last() for env in envs)
        assert np.array_equal(obs_a["observation"], obs_b["observation"])
        assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert rest_a == rest_b and envs[0].agent_selection == envs[1].agent_selection
        for agent in viewers_at(steps):
            assert envs[0].view(agent) == envs[1].view(agent), f"view of {agent}, step {steps}"
        if steps % render_every == 0:
            assert envs[0]._render_text(None) == envs[1]._render_text(None)
        if rest_a[1] or rest_a[2]:
            action = None
        else:
            legal = np.flatnonzero(obs_a["action_mask"])
            action = int(legal[draws.integers(len(legal))])
        for env in envs:
            env.step(action)
        steps += 1
        if steps % save_every == 0:
            saved = [env.state_dict() for env in envs]
            for state in saved:
                del state["options"]["engine"]
            assert _same_json(saved[0], saved[1])
            envs[1].load_state_dict(json.loads(json.dumps(envs[0].state_dict())))
    assert envs[0].scores == envs[1].scores and envs[0].winners == envs[1].winners
    return steps
