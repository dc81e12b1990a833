"""Asrus refuses bad input with an error naming what is wrong and leaves the env
as it was: saved states checked field by field, scenario options of the wrong
form, out-of-range numbers, and the parallel env's action dicts."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from flockgym.envs import OptionError, StateDictError, asrus_v0
from tests.aec_helpers import random_steps


def saved_midturn() -> dict[str, Any]:
    """A 3-player state in which player_0 has committed and player_1 is to act."""
    env = asrus_v0.env(num_players=3)
    env.reset(seed=4)
    random_steps(env, np.random.default_rng(0), 4)
    data = json.loads(json.dumps(env.unwrapped.state_dict()))
    assert data["game"]["pending"][0] is not None and data["game"]["pending"][1] is None
    return data


def not_held(data: dict[str, Any]) -> str:
    """A number card player_0 does not hold, as a committed play."""
    hand = data["game"]["hands"][0]
    return str(next(n for n in range(1, 16) if hand[n] == 0))


GAME_CORRUPTIONS = [
    ("destination", 99, r"game\.destination: 99 is not allowed; expected an integer in 1\.\.15"),
    ("destination", "8", r"game\.destination: '8' is not allowed"),
    ("points", [90, -1, 90], r"game\.points\[1\]: -1 is not allowed; expected an integer in 0"),
    ("points", [90, 90], r"game\.points: has 2 items; expected 3"),
    ("points", [90, 10**400, 90], r"game\.points\[1\]: .* is not allowed"),
    ("turn", -2, r"game\.turn: -2 is not allowed; expected an integer in 1\.\."),
    ("deposit", 1.5, r"game\.deposit: 1\.5 is not allowed"),
    ("round", 0, r"game\.round: 0 is not allowed"),
    ("revealed", [0] * 16, r"game\.revealed: 0 cards revealed in turn 2; 3 players reveal 3"),
    ("revealed", "x", r"game\.revealed: 'x' is not allowed; expected a list of 16 items"),
    ("over", 1, r"game\.over: 1 is not allowed; expected true or false"),
    ("pending", [None, None, None], r"aec\.agent_selection: .player_1., but the game has player_0"),
    ("pending", ["9", None, "9"], r"game\.pending: .* seats commit in seat order"),
    ("last_result", {"kind": "draw"}, r"game\.last_result: missing field\(s\)"),
    ("last_lottery", [1], r"game\.last_lottery: \[1\] is not allowed; expected a dict"),
    ("hands", "99", r"game\.hands: '99' is not allowed; expected a list of 3 items"),
    ("specials", [[0] * 6] * 2, r"game\.specials: has 2 items; expected 3"),
    ("rng", {"bit_generator": "MT19937"}, r"PCG64"),
    ("config", {"num_players": 3}, r"game\.config: missing field\(s\)"),
]


@pytest.mark.parametrize(("field", "value", "message"), GAME_CORRUPTIONS)
def test_a_bad_game_field_is_named_and_the_env_is_left_as_it_was(field, value, message):
    data = saved_midturn()
    data["game"][field] = value
    env = asrus_v0.env(num_players=3)
    env.reset(seed=9)
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(StateDictError, match=message):
        env.unwrapped.load_state_dict(data)
    assert json.dumps(env.unwrapped.state_dict()) == before


def test_a_committed_card_the_player_does_not_hold_is_refused():
    data = saved_midturn()
    data["game"]["pending"][0] = not_held(data)
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(StateDictError, match=r"game\.pending\[0\]: .* player_0 does not hold"):
        env.unwrapped.load_state_dict(data)


def test_a_committed_special_the_player_does_not_hold_is_refused():
    data = saved_midturn()
    hand = data["game"]["hands"][0]
    held = next(n for n in range(1, 16) if hand[n])
    missing = next(k for k, c in zip("CBDMR", data["game"]["specials"][0], strict=False) if not c)
    data["game"]["pending"][0] = f"{held}+{missing}"
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(StateDictError, match=r"player_0 does not hold"):
        env.unwrapped.load_state_dict(data)


def test_unequal_hands_are_refused():
    data = saved_midturn()
    hands = data["game"]["hands"]
    card = next(n for n in range(1, 16) if hands[0][n])
    hands[0][card] -= 1
    data["game"]["number_pile"][card] += 1
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(StateDictError, match=r"game\.hands: hands of unequal sizes"):
        env.unwrapped.load_state_dict(data)


def test_a_state_saved_with_other_readings_is_refused():
    data = saved_midturn()
    env = asrus_v0.env(num_players=3, retrogrades="cancel")
    env.reset(seed=0)
    with pytest.raises(StateDictError, match=r"retrogrades: saved 'once', env 'cancel'"):
        env.unwrapped.load_state_dict(data)


def test_a_saved_state_round_trips_after_the_checks():
    data = saved_midturn()
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    env.unwrapped.load_state_dict(data)
    assert json.loads(json.dumps(env.unwrapped.state_dict())) == data


# ---- scenario options of the wrong form ------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": {"player_0": 9}}, r"hands\.player_0=9 must be a list of cards"),
        ({"hands": {"player_0": "99"}}, r"hands\.player_0='99' must be a list of cards"),
        ({"hands": ["9"]}, r"reset option hands=\['9'\] must be a dict \{agent:"),
        ({"stones": 5}, r"reset option stones=5 must be a dict \{agent: points\}"),
        ({"stones": {"player_0": 10**400}}, r"stones\.player_0=.* allowed: a whole number"),
        ({"stones": {"player_0": 1.5}}, r"stones\.player_0=1\.5 is not allowed"),
        ({"deposit": -3}, r"deposit=-3 is not allowed"),
        ({"specials": {"player_1": "CM"}}, r"specials\.player_1='CM' must be a list of cards"),
        ({"specials": {"player_1": [3]}}, r"special card 3 is not one of C, B, D, M, R, J"),
        ({"destination": "8.5"}, r"destination: number card '8\.5' is not one of"),
        ({"hands": {"player_9": ["9"]}}, r"unknown agent 'player_9'"),
    ],
)
def test_a_scenario_of_the_wrong_form_names_the_key_and_leaves_the_env(options, message):
    env = asrus_v0.env(num_players=3)
    env.reset(seed=1)
    env.step(env.unwrapped.legal_actions()[0])
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(OptionError, match=message):
        env.reset(options=options)
    assert json.dumps(env.unwrapped.state_dict()) == before


def test_a_failed_unseeded_reset_does_not_advance_the_generator():
    a, b = asrus_v0.env(num_players=3), asrus_v0.env(num_players=3)
    a.reset(seed=5)
    b.reset(seed=5)
    with pytest.raises(OptionError):
        a.reset(options={"hands": {"player_0": ["1", "1"]}})  # one Sun in the deck
    a.reset()
    b.reset()
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()


def test_integer_cards_in_a_scenario_are_read_as_numbers():
    env = asrus_v0.env(num_players=3, hand_size=1)
    env.reset(seed=0, options={"hands": {"player_0": [9]}, "destination": 8})
    assert env.unwrapped.view("player_0")["hand"] == ["9"]


# ---- the parallel env ------------------------------------------------------------------


def test_the_parallel_env_refuses_an_action_for_an_unknown_agent():
    env = asrus_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=0)
    actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    before = json.dumps(env.state_dict())
    with pytest.raises(OptionError, match=r"missing \[\], unknown \['player_7'\]"):
        env.step({**actions, "player_7": 0})
    with pytest.raises(OptionError, match=r"missing \['player_2'\]"):
        env.step({a: v for a, v in actions.items() if a != "player_2"})
    assert json.dumps(env.state_dict()) == before


def test_the_parallel_env_truncates_at_max_steps():
    env = asrus_v0.parallel_env(num_players=3, max_steps=6)  # two turns of three seats
    observations, _ = env.reset(seed=0)
    for turn in range(2):
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
        observations, _, terminations, truncations, _ = env.step(actions)
        assert not any(terminations.values())
        assert all(truncations.values()) == (turn == 1)
    assert env.agents == [] and env.winners == []
    assert all(not o["action_mask"].any() for o in observations.values())


def test_points_that_do_not_add_up_to_the_table_are_refused():
    data = saved_midturn()
    data["game"]["points"][0] += 5
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(StateDictError, match=r"game\.points/deposit: .* do not add up to the 270"):
        env.unwrapped.load_state_dict(data)


def test_a_state_dict_loads_without_a_json_round_trip():
    env = asrus_v0.env(num_players=3, removed_numbers=[4, 8])
    env.reset(seed=2)
    random_steps(env, np.random.default_rng(1), 5)
    other = asrus_v0.env(num_players=3, removed_numbers=[4, 8])
    other.reset(seed=0)
    other.unwrapped.load_state_dict(env.unwrapped.state_dict())
    assert other.unwrapped.state_dict() == env.unwrapped.state_dict()
