"""The compiled Skybirds engine against the Python reference, decision by decision.

:func:`cross_check` plays one random game in both engines from the same seed and
compares, before every decision: every field of the state (the generator
included), the player to act, the legal actions and the mask, the scores (values
and types) and the observation of every seat; once in the game the state JSON of
both, and from there the compiled engine continues from the Python engine's
saved state (a load) and must still agree. Half the games start from a
scenario: random tokens (face up or flipped), +1VP and fractional tokens held
at the deal, so that token moves, swaps and the Armistice come early.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np

from flockgym.envs.core.rng import make_rng
from flockgym.envs.skybirds.actions import ActionLayout
from flockgym.envs.skybirds.env import config_from_options, raw_env
from flockgym.envs.skybirds.native import NativeSkybirdsGame, fields_of
from flockgym.envs.skybirds.observer import SkybirdsObserver
from flockgym.envs.skybirds.rules import BACK, FRONT, SkybirdsConfig, SkybirdsGame


def option_configs(players: int) -> list[tuple[str, SkybirdsConfig]]:
    """(label, config) of every option sample of the env at ``players`` seats."""
    out = []
    for i, sample in enumerate(raw_env.option_samples_for(players)):
        options = raw_env(num_players=players, **sample).options
        out.append((f"{players}p-sample{i}", config_from_options(options)))
    return out


def random_holdings(config: SkybirdsConfig, rng: np.random.Generator) -> dict[str, Any]:
    """Scenario arguments of ``SkybirdsGame.new``: tokens (never the Armistice),
    +1VP and fractional tokens held at random."""
    n = config.num_players
    tokens: dict[int, dict[int, int]] = {}
    for seat in range(n):
        held = {}
        for index, token in enumerate(config.tokens):
            if token.bonus == "armistice" or rng.random() < 0.5:
                continue
            flipped = token.uses > 0 and rng.random() < 0.3
            held[index] = BACK if flipped else FRONT
        tokens[seat] = held
    plus_one = {seat: int(rng.integers(0, 9)) for seat in range(n)}
    owners = [int(s) for s in rng.permutation(n)[: int(rng.integers(0, 3))]]
    fractional = {seat: f for f, seat in enumerate(owners)}
    return {"tokens": tokens, "plus_one": plus_one, "fractional": fractional}


def _check_same(py: SkybirdsGame, nat: NativeSkybirdsGame, observer: SkybirdsObserver,
                num_actions: int, where: str) -> None:  # fmt: skip
    assert nat.engine.dump() == fields_of(py), f"{where}: the states differ"
    assert nat.current_player() == py.current_player(), where
    py_scores, nat_scores = py.scores(), nat.scores()
    assert nat_scores == py_scores, f"{where}: scores {nat_scores} != {py_scores}"
    assert [type(s) for s in nat_scores] == [type(s) for s in py_scores], where
    for seat in range(py.config.num_players):
        expected = observer.encode(py, seat)
        got = nat.encode(seat)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (
            f"{where}: observation of seat {seat} differs at "
            f"{np.flatnonzero(got != expected).tolist()}"
        )
    assert nat.legal_actions() == py.legal_actions(), where
    assert np.array_equal(nat.legal_mask(num_actions), py.legal_mask(num_actions)), where
    assert nat.is_over() == py.is_over() and nat.is_truncated() == py.is_truncated(), where


def cross_check(config: SkybirdsConfig, seed: int, scenario: bool) -> int:
    """One random game in both engines (see the module docstring); returns its decisions."""
    draws = np.random.default_rng([seed, 7])
    args = random_holdings(config, draws) if scenario else {}
    py = SkybirdsGame.new(config, make_rng(seed), **args)
    nat = NativeSkybirdsGame.new(config, make_rng(seed), **args)
    observer = SkybirdsObserver(config)
    num_actions = ActionLayout(config.num_players, config.tokens).size
    reload_at = int(draws.integers(0, 200))
    steps = 0
    while True:
        where = f"seed {seed}, decision {steps}"
        _check_same(py, nat, observer, num_actions, where)
        if steps == reload_at:
            saved = py.to_dict()
            assert json.dumps(nat.to_dict(), sort_keys=True) == json.dumps(saved, sort_keys=True)
            nat = NativeSkybirdsGame.from_dict(json.loads(json.dumps(saved)))
            _check_same(py, nat, observer, num_actions, where + " (after a load)")
        if py.is_over() or py.is_truncated():
            assert nat.winners() == py.winners(), where
            assert json.dumps(nat.to_dict(), sort_keys=True) == json.dumps(
                py.to_dict(), sort_keys=True
            ), where
            return steps
        legal = py.legal_actions()
        action = legal[int(draws.integers(len(legal)))]
        py.apply_action(action)
        nat.apply_action(action)
        steps += 1


def short(config: SkybirdsConfig, campaigns: int) -> SkybirdsConfig:
    """``config`` with at most ``campaigns`` Campaigns."""
    return replace(config, max_campaigns=min(config.max_campaigns, campaigns))
