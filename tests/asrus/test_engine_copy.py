"""A deep copy of the Asrus engine (what the OpenSpiel bridge's clones use)
plays on by itself: its masks follow its own moves, the original's stay put."""

from __future__ import annotations

import copy

import numpy as np

from flockgym.envs import make
from flockgym.envs.asrus.rules import NUM_ACTIONS, AsrusGame


def test_a_deep_copy_plays_on_alone() -> None:
    env = make("asrus_v0", num_players=5)
    raw = env.unwrapped
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(13):  # past two resolved turns: the tables have been updated in place
        env.step(int(rng.choice(np.flatnonzero(raw.action_mask(raw.agent_selection)))))
    game = raw.game
    before = game.to_dict()
    mask_before = game.legal_mask(NUM_ACTIONS).copy()
    twin = copy.deepcopy(game)
    reference = AsrusGame.from_dict(game.to_dict())
    while not twin.over:
        mask = twin.legal_mask(NUM_ACTIONS)
        np.testing.assert_array_equal(mask, reference.legal_mask(NUM_ACTIONS))
        assert twin.legal_actions() == reference.legal_actions()
        action = int(rng.choice(np.flatnonzero(mask)))
        twin.apply_action(action)
        reference.apply_action(action)
    assert twin.to_dict() == reference.to_dict()
    assert game.to_dict() == before
    np.testing.assert_array_equal(game.legal_mask(NUM_ACTIONS), mask_before)
