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

from dataclasses import replace
from typing import Any

import compiled_helpers
import numpy as np
from compiled_helpers import check_same_answers, play_engines_side_by_side

from flockgym.envs.core.rng import make_rng
from flockgym.envs.skybirds.actions import ActionLayout
from flockgym.envs.skybirds.env import config_from_options, raw_env
from flockgym.envs.skybirds.native import NativeSkybirdsGame, fields_of
from flockgym.envs.skybirds.observer import SkybirdsObserver
from flockgym.envs.skybirds.rules import BACK, FRONT, SkybirdsConfig, SkybirdsGame


def option_configs(players: int) -> list[tuple[str, SkybirdsConfig]]:
    """(label, config) of every option sample of the env at ``players`` seats."""
    return compiled_helpers.option_configs(raw_env, config_from_options, players)


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
    check_same_answers(py, nat, num_actions, where)
    for seat in range(py.config.num_players):
        expected = observer.encode(py, seat)
        got = nat.encode(seat)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (
            f"{where}: observation of seat {seat} differs at "
            f"{np.flatnonzero(got != expected).tolist()}"
        )
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
    return play_engines_side_by_side(
        py,
        nat,
        draws,
        reload_at,
        lambda steps: f"seed {seed}, decision {steps}",
        lambda py, nat, where: _check_same(py, nat, observer, num_actions, where),
    )


def short(config: SkybirdsConfig, campaigns: int) -> SkybirdsConfig:
    """``config`` with at most ``campaigns`` Campaigns."""
    return replace(config, max_campaigns=min(config.max_campaigns, campaigns))
