"""The compiled Asrus engine against the Python reference, decision by decision.

:func:`cross_check` plays one random game in both engines from the same seed and
compares, before every decision: every field of the state (the generator
included), the player to act, the legal actions and the mask of the seat to act,
every seat's legal actions and masks, the scores (values and types) and the
observation of every seat; once in the game the state JSON of both, and from
there the compiled engine continues from the Python engine's saved state (a
load) and must still agree. Half the games start from a scenario: points and a
deposit at random (some seats nearly broke), so that eliminations, partial
payments and end-of-round lotteries come early.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from compiled_helpers import check_same_answers, play_engines_side_by_side

from flockgym.envs.asrus.actions import NUM_ACTIONS
from flockgym.envs.asrus.env import config_from_options, raw_env
from flockgym.envs.asrus.native import NativeAsrusGame, fields_of
from flockgym.envs.asrus.observer import AsrusObserver
from flockgym.envs.asrus.rules import AsrusConfig, AsrusGame
from flockgym.envs.core.rng import make_rng


def option_configs(players: int) -> list[tuple[str, AsrusConfig]]:
    """(label, config) of every option sample of the env that ``players`` seats allow."""
    out = []
    for i, sample in enumerate(raw_env.option_samples_for(players)):
        try:
            options = raw_env(num_players=players, **sample).options
        except ValueError:  # e.g. more specials per player than the pile deals
            continue
        out.append((f"{players}p-sample{i}", config_from_options(options)))
    return out


def random_stakes(config: AsrusConfig, rng: np.random.Generator) -> dict[str, Any]:
    """Scenario arguments of ``AsrusGame.new``: points per seat (a few nearly
    broke) and a deposit already on the table."""
    n = config.num_players
    points = {seat: int(rng.integers(0, 2 * config.starting_points + 1)) for seat in range(n)}
    for seat in rng.permutation(n)[: int(rng.integers(0, 3))]:
        points[int(seat)] = int(rng.integers(0, 4))
    return {"points": points, "deposit": int(rng.integers(0, 40))}


def _check_same(py: AsrusGame, nat: NativeAsrusGame, observer: AsrusObserver, where: str) -> None:
    assert nat.engine.dump() == fields_of(py), f"{where}: the states differ"
    check_same_answers(py, nat, NUM_ACTIONS, where)
    assert np.array_equal(nat.legal_masks(), py.legal_masks()), where
    for seat in range(py.config.num_players):
        assert nat.legal_actions_for(seat) == py.legal_actions_for(seat), where
        expected = observer.encode(py, seat)
        got = nat.encode(seat)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (
            f"{where}: observation of seat {seat} differs at "
            f"{np.flatnonzero(got != expected).tolist()}"
        )
    assert nat.is_over() == py.is_over(), where


def cross_check(config: AsrusConfig, seed: int, scenario: bool) -> int:
    """One random game in both engines (see the module docstring); returns its decisions."""
    draws = np.random.default_rng([seed, 11])
    args = random_stakes(config, draws) if scenario else {}
    py = AsrusGame.new(config, make_rng(seed), **args)
    nat = NativeAsrusGame.new(config, make_rng(seed), **args)
    observer = AsrusObserver(config)
    reload_at = int(draws.integers(0, 12 * config.num_players))
    return play_engines_side_by_side(
        py,
        nat,
        draws,
        reload_at,
        lambda steps: f"seed {seed}, decision {steps}",
        lambda py, nat, where: _check_same(py, nat, observer, where),
    )
