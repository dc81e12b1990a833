"""The OpenSpiel bridge on the Arena's compiled engine and on its Python engine,
side by side: the same legal actions, chance outcomes (a chance node for every
die on both: the compiled engine's C++ dice are fed as the Python engine's
``roll_die`` is), observation and information-state tensors and strings,
returns and serialized states, decision by decision, over seeded random games
(random legal actions, chance outcomes drawn from ``chance_outcomes()``)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import flockgym.openspiel as bridge  # noqa: E402
from flockgym.envs.arena.native import CompiledArenaGame, compiled_engine_available  # noqa: E402
from flockgym.envs.arena.rules import ArenaGame  # noqa: E402

pytestmark = pytest.mark.skipif(
    not compiled_engine_available(), reason="the compiled Arena engine is not built"
)

ARENA = bridge.GAMES["arena_v0"]


def bridged_pair(params: dict, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The Arena bridged on its default (compiled) engine and on its Python engine."""
    compiled = ARENA(params)
    with monkeypatch.context() as patch:
        patch.setattr(bridge, "bridge_engine", lambda env_id: {"engine": "python"})
        python = ARENA(params)
    return compiled, python


def assert_same_views(a, b, players) -> None:
    for p in players:
        assert a.observation_tensor(p) == b.observation_tensor(p)
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
        assert a.information_state_string(p) == b.information_state_string(p)


def saved(state) -> dict:
    """A state's serialized core (as ``serialize()`` writes it), but for the
    env option naming the engine."""
    data = state.core.saved()
    data["env"]["options"].pop("engine")
    return data


def assert_same_saved(compiled_game, python_game, a, b) -> None:
    """The same serialized state, and either engine's text loads into the other."""
    data = saved(a)
    assert data == saved(b)
    assert saved(compiled_game.deserialize_state(b.serialize())) == data
    assert saved(python_game.deserialize_state(a.serialize())) == data


def play_side_by_side(compiled_game, python_game, seed: int, max_decisions: int) -> int:
    """One random game on both bridges, compared at every decision; returns the
    number of chance nodes met."""
    a, b = compiled_game.new_initial_state(), python_game.new_initial_state()
    assert isinstance(a.core.env.game, CompiledArenaGame)
    assert isinstance(b.core.env.game, ArenaGame)
    n = compiled_game.num_players()
    rng = np.random.default_rng(seed)
    chance = 0
    for decision in range(max_decisions):
        assert a.current_player() == b.current_player()
        assert a.returns() == b.returns()
        if a.is_terminal():
            assert b.is_terminal()
            break
        if decision % 40 == 0:
            assert_same_views(a, b, range(n))
            assert_same_saved(compiled_game, python_game, a, b)
        if a.is_chance_node():
            outcomes = a.chance_outcomes()
            assert outcomes == b.chance_outcomes()
            action = outcomes[rng.integers(len(outcomes))][0]
            chance += 1
        else:
            player = a.current_player()
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            assert_same_views(a, b, [player])
            action = legal[rng.integers(len(legal))]
        a.apply_action(action)
        b.apply_action(action)
        if decision % 97 == 0:  # a clone plays on as the state it came from
            a, b = a.clone(), b.clone()
    assert a.returns() == b.returns()
    assert_same_views(a, b, range(n))
    assert_same_saved(compiled_game, python_game, a, b)
    return chance


OPTION_SETS = [
    {"num_players": 2},
    {"num_players": 3, "dark_matter": "medals"},
    {"num_players": 4, "nova_invazorz": "become", "fifth_world": "won"},
]


@pytest.mark.parametrize("params", OPTION_SETS, ids=lambda p: "-".join(map(str, p.values())))
def test_both_engines_bridge_the_same_game(params, monkeypatch):
    compiled, python = bridged_pair({**params, "seed": 7}, monkeypatch)
    chance = sum(play_side_by_side(compiled, python, seed, 400) for seed in range(3))
    assert chance > 30  # the dice were chance nodes on both


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_both_engines_bridge_the_same_game_many_times(num_players, monkeypatch):
    compiled, python = bridged_pair({"num_players": num_players, "seed": 11}, monkeypatch)
    for seed in range(40):
        play_side_by_side(compiled, python, seed, 10**6)


def test_a_face_past_the_fed_ones_stops_the_compiled_step(monkeypatch):
    """The compiled engine stops at the first die with no face fed (the state it
    was copied from unchanged) and, fed, rolls exactly the Python engine's die."""
    compiled, python = bridged_pair({"num_players": 2, "seed": 3}, monkeypatch)
    a, b = compiled.new_initial_state(), python.new_initial_state()
    name = "Spaceboardzerka"  # a shared wish rolls off on d6s
    for state in (a, b):
        for seat in (0, 1):
            state.apply_action(state.string_to_action(seat, f"wish {name}"))
    before = saved(a)
    assert a.is_chance_node() and b.is_chance_node()
    assert a.chance_outcomes() == [(f, 1 / 6) for f in range(6)] == b.chance_outcomes()
    assert a.core.pending[2].purpose == b.core.pending[2].purpose
    assert a.core.pending[2].seat == b.core.pending[2].seat
    pending = a.core.env.game.to_dict()
    assert pending["forced"] == [] and pending["rolls_made"] == b.core.env.game.rolls_made
    for face in (2, 5, 0, 1, 3):
        if not a.is_chance_node():
            break
        a.apply_action(face)
        b.apply_action(face)
        assert saved(a) == saved(b)
    assert saved(a) != before
    state = a.core.env.game.to_dict()
    assert state == b.core.env.game.to_dict()  # the generator moved on alike
    assert state["forced"] == []


def test_a_compiled_engine_that_cannot_load_leaves_the_python_one(monkeypatch):
    """Where the compiled engine does not load, the env runs the Python engine
    (its own warning says so once) and the bridge feeds its ``roll_die``."""
    import flockgym.envs.arena.env as arena_env

    monkeypatch.setattr(arena_env, "compiled_engine_available", lambda: False)
    bridge.bridge_engine.cache_clear()
    try:
        assert bridge.bridge_engine("arena_v0") == {}
        state = ARENA({"num_players": 2}).new_initial_state()
        assert isinstance(state.core.env.game, ArenaGame)
    finally:
        bridge.bridge_engine.cache_clear()


def test_a_die_with_too_many_faces_is_refused_alike(monkeypatch):
    """A die of more faces than the bridge's chance nodes allow is refused with
    the same error on both engines, the state left as it was."""
    compiled, python = bridged_pair({"num_players": 2, "seed": 3}, monkeypatch)
    states = compiled.new_initial_state(), python.new_initial_state()
    for state in states:
        for seat in (0, 1):
            state.apply_action(state.string_to_action(seat, "wish Spaceboardzerka"))
        assert state.is_chance_node() and len(state.chance_outcomes()) == 6
    monkeypatch.setattr(bridge, "MAX_DIE_SIDES", 4)
    for state in states:
        before = saved(state)
        with pytest.raises(ValueError, match=r"^a d6: the bridge's dice have at most 4 faces$"):
            state.apply_action(1)
        assert saved(state) == before and state.is_chance_node()
