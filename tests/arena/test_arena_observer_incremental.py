"""The Arena observer's incremental refresh against a store written from scratch.

The observer keeps one store and rewrites only what changed; these tests step
random games and, at every step, compare the store kept up to date step by step
with the store of a fresh observer (everything written at once), and check the
fields a refresh writes from a few values (the recent rolls, the last
challenge) against those values read directly from the game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from flockgym.envs import arena_v0
from flockgym.envs.arena.observer import RECENT_ROLLS, ArenaObserver


def _play(num_players: int, seed: int, options: dict | None = None):
    """Yield the raw env at every decision of a random game."""
    env = arena_v0.env(num_players=num_players, **(options or {}))
    raw = env.unwrapped
    draw = random.Random(seed)
    env.reset(seed=seed)
    for _agent in env.agent_iter():
        observation, _r, terminated, truncated, _i = env.last()
        yield raw
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(draw.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize(
    ("num_players", "seed", "options"),
    [(2, 1, {}), (4, 2, {"world_challenge": "printed", "dark_matter": "medals"}), (6, 3, {})],
)
def test_the_incremental_store_equals_a_store_written_from_scratch(num_players, seed, options):
    kept = None
    steps = 0
    for raw in _play(num_players, seed, options):
        if kept is None:
            kept = ArenaObserver(raw.box, num_players)
        game = raw.arena
        for seat in range(num_players):
            fresh = ArenaObserver(raw.box, num_players)
            assert np.array_equal(kept.encode(game, seat), fresh.encode(game, seat)), (steps, seat)
        steps += 1
    assert steps > 50


def test_recent_rolls_are_the_last_eight_newest_first():
    top = None
    checked = 0
    for raw in _play(4, 5):
        game = raw.arena
        top = raw.box.max_sides
        observer = raw.observer
        vector = observer.encode(game, 0)
        at = sum(f.width for f in observer.fields[: [f.name for f in observer.fields].index(
            "recent_rolls")])  # fmt: skip
        shown = vector[at : at + 2 * RECENT_ROLLS]
        expected = np.zeros(2 * RECENT_ROLLS, dtype=np.float32)
        for i, roll in enumerate(reversed(game.roll_log[-RECENT_ROLLS:])):
            expected[2 * i], expected[2 * i + 1] = roll[3] / top, roll[2] / top
        assert np.array_equal(shown, expected)
        checked += 1
    assert checked > 50


def test_the_last_challenge_shows_success_and_both_totals():
    seen = 0
    for raw in _play(4, 7):
        game = raw.arena
        lc = game.last_challenge
        observer = raw.observer
        vector = observer.encode(game, 0)
        names = [f.name for f in observer.fields]
        at = sum(f.width for f in observer.fields[: names.index("last_challenge")])
        total = observer.scales.total
        if lc is None:
            assert vector[at : at + 3].tolist() == [0.0, 0.0, 0.0]
            continue
        seen += 1
        expected = np.array(
            [float(lc["success"]), min(1.0, lc["total"] / total),
             min(1.0, lc.get("defender_total", 0) / total)],
            dtype=np.float32,
        )  # fmt: skip
        assert np.array_equal(vector[at : at + 3], expected)
    assert seen > 10


def _reference_places(raw) -> tuple[list[list[str]], dict[str, str], dict[str, str]]:
    """Who stands on each space and where each card and medal card is, in words,
    worked out space by space and card by card with ``place_name``."""
    from flockgym.envs.arena.observer import place_name

    g, agents, box = raw.arena, raw.possible_agents, raw.box
    players = [[a for s, a in enumerate(agents) if g.positions[s] == sp.id] for sp in box.spaces]
    cards = {c.name: place_name(g.card_holder[c.id], g.card_space[c.id], agents) for c in box.cards}
    medals = {
        m.name: place_name(g.medal_holder[m.id], g.medal_space[m.id], agents, medal=True)
        for m in box.medal_cards
    }
    return players, cards, medals


@pytest.mark.parametrize(("num_players", "seed"), [(3, 11), (5, 12)])
def test_the_view_names_every_place_as_place_name_does(num_players, seed):
    steps = 0
    for raw in _play(num_players, seed):
        agent = raw.agent_selection
        view = raw.view(agent)
        players, cards, medals = _reference_places(raw)
        assert [s["players"] for s in view["board"]["spaces"]] == players
        assert view["cards"] == cards
        assert list(view["cards"]) == list(cards)
        assert view["medal_card_places"] == medals
        g = raw.arena
        held = [
            [raw.box.medal_cards[k].name for k, h in enumerate(g.medal_holder) if h == s]
            for s in range(num_players)
        ]
        assert [p["medal_cards"] for p in view["players"].values()] == held
        steps += 1
    assert steps > 50


def test_the_view_keys_and_scenario_keys_are_as_before():
    """Key order, the reset-scenario keys (the players' own values, the same
    objects) and each space's challenge number as the game states it."""
    for raw in _play(4, 13):
        agent = raw.agent_selection
        view = raw.view(agent)
        assert list(view)[:21] == [
            "game", "agent", "phase", "task", "task_text", "task_card", "task_player",
            "to_act", "on_turn", "wish", "wish_choices", "round", "max_rounds", "first_player",
            "steps_left",
            "move_total", "entered", "stopped", "forced_target", "players", "characters",
        ]  # fmt: skip
        assert list(view)[21:30] == [
            "forms", "positions", "trophies", "maneuvers", "worlds", "medals", "gym_powers",
            "medal_cards", "gyms",
        ]  # fmt: skip
        for a, player in view["players"].items():
            assert view["maneuvers"][a] is player["maneuvers"]
            assert view["medal_cards"][a] is player["medal_cards"]
            assert view["characters"].get(a) == player["character"]
        g = raw.arena
        for space in view["board"]["spaces"]:
            if space["card"] is not None:
                card = raw.box.card_named[space["card"].lower()]
                assert space["challenge"] == g.challenge_need(raw.box.cards[card].kind, card)


def test_changed_indices_lists_every_index_where_a_pair_differs_in_order():
    from flockgym.envs.arena.observer import changed_indices

    assert changed_indices(([1, 2, 3, 4], [1, 0, 3, 0]), ([5, 5, 5, 5], [5, 5, 6, 5])) == [1, 2, 3]
    assert changed_indices(([1, 2], [1, 2])) == []
    assert changed_indices(([-1, 7, -1], [-1, -1, 7]), ([0, 0, 0], [0, 0, 0])) == [1, 2]


def test_put_writes_float32_values_as_numpy_rounds_them():
    observer = ArenaObserver(arena_v0.env().unwrapped.box, 4)
    values = [1 / 3, 2 / 7, 0.1, 1.0, 0.0, 5 / 6]
    observer._put(10, values)
    expected = np.array(values, dtype=np.float64).astype(np.float32)
    assert observer.store[10:16].tobytes() == expected.tobytes()
    assert observer.store[9] == 0.0 and observer.store[16] == 0.0
