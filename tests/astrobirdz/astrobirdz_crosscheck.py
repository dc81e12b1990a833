"""The compiled Astrobirdz engine against the Python reference, decision by decision.

:func:`cross_check` plays one random game in both engines from the same seed and
compares, before every decision: every field of the state (the generator
included), the player to act, the legal actions and the mask, the scores (values
and types) and the observation of every seat (the Python side's from the env's
incremental observer, fed by the engine's events); once in the game the state
JSON of both, and from there the compiled engine continues from the Python
engine's saved state (a load) and must still agree. Each game is dealt from a
random trump card and turn (a scenario), so that every rule card comes up.
"""

from __future__ import annotations

from typing import Any

import compiled_helpers
import numpy as np
from compiled_helpers import check_same_answers, play_engines_side_by_side

from flockgym.envs.astrobirdz.actions import ActionLayout
from flockgym.envs.astrobirdz.env import config_from_options, raw_env
from flockgym.envs.astrobirdz.native import NativeAstrobirdzGame, fields_of
from flockgym.envs.astrobirdz.observer import AstrobirdzObserver
from flockgym.envs.astrobirdz.rules import AstrobirdzConfig, AstrobirdzGame
from flockgym.envs.core.rng import make_rng


def option_configs(players: int) -> list[tuple[str, AstrobirdzConfig]]:
    """(label, config) of every option sample of the env at ``players`` seats."""
    return compiled_helpers.option_configs(raw_env, config_from_options, players)


def _comparable(fields: dict[str, Any]) -> dict[str, Any]:
    """The state fields that say where the game is: ``known_any`` (a shortcut
    flag, set by a move and read back from ``known`` by a load) is left out."""
    del fields["known_any"]
    return fields


_OBSERVERS: dict[int, AstrobirdzObserver] = {}
"""One observer per player count (a rebuild rewrites its whole store)."""


def _check_same(
    py: AstrobirdzGame,
    nat: NativeAstrobirdzGame,
    observer: AstrobirdzObserver,
    num_actions: int,
    where: str,
) -> None:
    ours, theirs = _comparable(nat.engine.dump()), _comparable(fields_of(py))
    if ours != theirs:
        differ = sorted(k for k in theirs if ours[k] != theirs[k])
        raise AssertionError(f"{where}: the states differ in {differ}")
    check_same_answers(py, nat, num_actions, where)
    if py.events or py.phase != observer.shown_phase:
        observer.sync(py)
    seats = range(py.config.num_players)
    expected = np.stack([observer.encode(seat) for seat in seats])
    got = np.stack([nat.encode(seat) for seat in seats])
    if got.dtype != expected.dtype or not np.array_equal(got, expected):
        raise AssertionError(
            f"{where}: observations differ at (seat, index) "
            f"{np.argwhere(got != expected).tolist()[:10]}"
        )
    assert nat.is_over() == py.is_over(), where


def _start(
    config: AstrobirdzConfig, seed: int, draws: np.random.Generator, turn: int | None
) -> tuple[Any, Any]:
    """Both engines at the start of a game: plain deals for even seeds (from
    ``turn`` when given); for odd seeds a scenario: trump card ``seed // 2``
    (mod 54, so consecutive seeds turn up every rule card) from ``turn`` or a
    random turn."""
    if seed % 2 == 0 and turn is None:
        py = AstrobirdzGame.new(config, make_rng(seed), record_events=True)
        nat = NativeAstrobirdzGame.new(config, make_rng(seed))
        return py, nat
    if seed % 2 == 0:
        py = AstrobirdzGame.new(config, make_rng(seed), record_events=True, turn=turn)
        nat = NativeAstrobirdzGame.new(config, make_rng(seed), turn=turn)
        return py, nat
    scenario = {"trump": (seed // 2) % 54, "turn": turn or int(draws.integers(1, config.turns + 1))}
    py = AstrobirdzGame.new(config, make_rng(seed), record_events=True, **scenario)
    nat = NativeAstrobirdzGame.new(config, make_rng(seed), **scenario)
    return py, nat


def cross_check(config: AstrobirdzConfig, seed: int, turn: int | None = None) -> int:
    """One random game in both engines (see the module docstring), from ``turn``
    when given (the last turn: a one-turn game); returns its decisions."""
    draws = np.random.default_rng([seed, 7])
    py, nat = _start(config, seed, draws, turn)
    observer = _OBSERVERS.get(config.num_players)
    if observer is None:
        observer = _OBSERVERS[config.num_players] = AstrobirdzObserver(config.num_players)
    observer.rebuild(py)
    py.events.clear()
    num_actions = ActionLayout(config.num_players).size
    reload_at = int(draws.integers(0, 120))
    return play_engines_side_by_side(
        py,
        nat,
        draws,
        reload_at,
        lambda steps: f"{config}, seed {seed}, decision {steps}",
        lambda py, nat, where: _check_same(py, nat, observer, num_actions, where),
    )
