"""The heuristic's fast path (``act_on_env``, a view of only the keys it reads)
picks the move the whole view gives, at every decision.

Two bots with the same seed decide every position of random games, one from
``env.view(agent)``, the other from the env itself; the reduced view's values
are the whole view's for every key it has (``board``: its spaces and corners).
"""

from __future__ import annotations

import numpy as np
import pytest

from flockgym.envs import arena_v0
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.observer import bot_view


def _play_both_ways(players: int, seed: int, options: dict) -> int:
    """One game played by the view-path bots, the fast-path twins asked too;
    returns the number of decisions compared."""
    env = arena_v0.env(num_players=players, **options)
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    slow = {a: ArenaHeuristicBot(seed + i) for i, a in enumerate(env.possible_agents)}
    fast = {a: ArenaHeuristicBot(seed + i) for i, a in enumerate(env.possible_agents)}
    decisions = 0
    for agent in env.agent_iter(max_iter=400):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        view = raw.view(agent)
        reduced = bot_view(raw.arena, raw.seat_of(agent), raw.possible_agents)
        board = reduced.pop("board")
        assert reduced == {key: view[key] for key in reduced}
        assert board == {key: view["board"][key] for key in ("spaces", "corners")}
        chosen = slow[agent].act(observation, view)
        assert fast[agent].act_on_env(raw, agent, observation) == chosen
        decisions += 1
        # a random move now and then: positions the heuristic would not reach
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)) if rng.random() < 0.3 else chosen)
    return decisions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fast_path_moves_as_the_view_path_at_every_decision(players):
    options = [{}, {"world_challenge": "printed", "dark_matter": "medals"}]
    total = sum(_play_both_ways(players, seed, options[seed % 2]) for seed in range(4))
    assert total > 400
