"""The Arena's character wishes through the OpenSpiel bridge: a wish is hidden
from the other seats' information states, and the roll-off of a shared wish
is a run of explicit d6 chance nodes, like every other Arena die."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

import flockgym.openspiel  # noqa: E402, F401  (registers the games)


def wish(state, player: int, name: str) -> None:
    action = state.string_to_action(player, f"wish {name}")
    state.apply_action(action)


def test_a_wish_does_not_reach_another_seats_information_state():
    game = pyspiel.load_game("flockgym_arena", {"num_players": 3})
    state = game.new_initial_state()
    assert state.current_player() == 0
    other = state.clone()
    wish(state, 0, "Spaceboardzerka")
    wish(other, 0, "Skyboardzerka")
    for seat in (1, 2):
        assert state.information_state_string(seat) == other.information_state_string(seat)
        assert state.information_state_tensor(seat) == other.information_state_tensor(seat)
        assert state.observation_string(seat) == other.observation_string(seat)
        assert state.observation_tensor(seat) == other.observation_tensor(seat)
    assert state.information_state_string(0) != other.information_state_string(0)
    assert state.observation_tensor(0) != other.observation_tensor(0)


def test_a_shared_wish_rolls_off_on_explicit_d6_chance_nodes():
    game = pyspiel.load_game("flockgym_arena", {"num_players": 2})
    state = game.new_initial_state()
    wish(state, 0, "Spaceboardzerka")
    wish(state, 1, "Spaceboardzerka")
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(f, 1.0 / 6) for f in range(6)]
    text = state.action_to_string(pyspiel.PlayerId.CHANCE, 2)
    assert "character Spaceboardzerka" in text and text.endswith(": 3")
    state.apply_action(2)  # player_0 rolls 3
    assert state.is_chance_node()
    state.apply_action(4)  # player_1 rolls 5: it picks
    assert not state.is_chance_node() and state.current_player() == 0
    assert state.legal_actions() == sorted(
        state.string_to_action(0, f"wish {name}")
        for name in state.core.env.view("player_0")["wish_choices"]
    )
    assert state.core.env.view("player_0")["players"]["player_1"]["character"] == (
        "Spaceboardzerka"
    )


def test_the_board_dealt_after_a_roll_off_is_the_envs():
    from flockgym.envs import make

    game = pyspiel.load_game("flockgym_arena", {"num_players": 2})
    state = game.new_initial_state()
    env = make("arena_v0", num_players=2).unwrapped
    env.reset(seed=state.deal_seed)
    for seat in (0, 1):
        env.step(env.string_to_action(f"player_{seat}", "wish Spaceboardzerka"))
        wish(state, seat, "Spaceboardzerka")
    assert state.core.env.game.gym_at == []
    for _, _, _, face in env.game.roll_log:  # the env's own dice, as chance outcomes
        state.apply_action(face - 1)
    loser = env.game.characters.index(-1)
    env.step(env.string_to_action(f"player_{loser}", "wish Skyboardzerka"))
    wish(state, loser, "Skyboardzerka")
    ours, theirs = state.core.env.game, env.game
    assert len(theirs.gym_at) == 4 and ours.to_dict() == theirs.to_dict()


def test_no_information_state_tells_two_deals_apart_during_the_wishes():
    states = []
    for seed in (0, 1):
        game = pyspiel.load_game("flockgym_arena", {"num_players": 3, "seed": seed})
        state = game.new_initial_state()
        wish(state, 0, "Spaceboardzerka")
        states.append(state)
    a, b = states
    assert a.deal_seed != b.deal_seed
    for seat in range(3):
        assert a.information_state_string(seat) == b.information_state_string(seat)
        assert a.information_state_tensor(seat) == b.information_state_tensor(seat)
        assert a.observation_string(seat) == b.observation_string(seat)
    for seat, name in ((1, "Skyboardzerka"), (2, "Magboardzerka")):
        wish(a, seat, name)
        wish(b, seat, name)
    assert a.information_state_string(0) != b.information_state_string(0)  # dealt now


def test_the_bridge_plays_the_compiled_engine_whose_dice_it_feeds():
    """The env's default engine is the compiled one, whose C++ dice the bridge
    feeds: the Arena keeps its explicit chance nodes on it; a game without
    dice keeps its default engine too."""
    from flockgym.envs import make
    from flockgym.envs.arena.native import CompiledArenaGame
    from flockgym.openspiel import bridge_engine

    assert make("arena_v0").unwrapped.compiled  # the env's default
    assert bridge_engine("arena_v0") == {}
    assert bridge_engine("skybirds_v0") == {}
    bridged = pyspiel.load_game("flockgym_arena", {"num_players": 2}).new_initial_state()
    assert isinstance(bridged.core.env.game, CompiledArenaGame)
    game = pyspiel.load_game("flockgym_arena", {"num_players": 2})
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert "engine" not in game.get_parameters()
