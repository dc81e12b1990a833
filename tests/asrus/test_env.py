"""The Asrus env against the contract of docs/api.md: PettingZoo's parallel tests
for every player count, registry, options, scenarios, illegal actions, rewards,
hidden information, views, rendering, and the state_dict round trip across
rounds (the AEC api, seed, render and round-trip checks of every player count and
option sample are tests/test_contract.py's)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pettingzoo
import pytest
from aec_helpers import PETTINGZOO_HAS_REGISTRY, parallel_seed_test_compat, play_out, random_steps
from pettingzoo.test import parallel_api_test

from flockgym.envs import (
    IllegalActionError,
    OptionError,
    StateDictError,
    asrus_v0,
    list_envs,
    make,
    make_parallel,
)

PLAYER_COUNTS = list(range(3, 10))


# ---- PettingZoo's own tests ------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_parallel_api_and_seed(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(asrus_v0.parallel_env(num_players=players), num_cycles=200)
        # parallel_seed_test samples actions without masks: illegal ones must not raise
        parallel_seed_test_compat(
            lambda: asrus_v0.parallel_env(num_players=players, illegal_action="penalize"),
            num_cycles=200,
        )


# ---- registry ----------------------------------------------------------------------


def test_registry_and_pettingzoo_registry():
    assert "asrus_v0" in list_envs()
    assert isinstance(make("asrus_v0", num_players=4).unwrapped, asrus_v0.raw_env)
    assert isinstance(make_parallel("asrus_v0"), asrus_v0.parallel_env)
    if PETTINGZOO_HAS_REGISTRY:
        aec = pettingzoo.make("aec", "flockgym/asrus-v0", num_players=5)
        assert aec.unwrapped.num_players == 5
        par = pettingzoo.make("parallel", "flockgym/asrus-v0", num_players=6)
        assert par.possible_agents == [f"player_{i}" for i in range(6)]


def test_unknown_env_id_names_the_registered_ones():
    with pytest.raises(ValueError, match=r"registered envs: .*asrus_v0"):
        make("asrus_v9")


# ---- options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_player": 5}, r"unknown option\(s\) num_player; allowed options: .*num_players"),
        ({"num_players": 2}, r"num_players=2 is not allowed; allowed values: 3, 4, 5, 6, 7, 8, 9"),
        ({"num_players": "5"}, r"num_players='5' is not allowed"),
        ({"reward": "points"}, r"allowed values: 'win', 'score', 'rank'"),
        ({"illegal_action": "ignore"}, r"allowed values: 'raise', 'penalize'"),
        ({"render_mode": "rgb_array"}, r"allowed values: None, 'ansi', 'human'"),
        ({"rounds": 0}, r"rounds=0 is not allowed; allowed: an integer >= 1 or None"),
        ({"jokers": "yes"}, r"allowed values: True, False"),
        ({"num_players": 9, "hand_size": 8}, r"allowed hand_size: 1\.\.7"),
        ({"num_players": 3, "target": 271}, r"target=271 can never be reached.*1\.\.270"),
        ({"starting_points": 10**400}, r"starting_points=.* is not allowed"),
        ({"retrogrades": "twice"}, r"allowed values: .once., .cancel."),
        ({"num_players": 6, "specials_per_player": 2}, r"allowed: 0\.\.1"),
        ({"rounds": None}, r"needs a target"),
    ],
)
def test_bad_options_raise_value_errors_naming_the_allowed_values(options, message):
    with pytest.raises(ValueError, match=message):
        asrus_v0.env(**options)
    with pytest.raises(OptionError):
        asrus_v0.raw_env(**options)


def test_options_change_the_deal():
    env = asrus_v0.env(num_players=3, hand_size=15, starting_points=200, specials_per_player=3)
    env.reset(seed=1)
    view = env.unwrapped.view("player_0")
    assert len(view["hand"]) == 15 and len(view["specials"]) == 3
    assert env.unwrapped.scores == dict.fromkeys(env.possible_agents, 200.0)


def test_rounds_play_several_rounds():
    env = asrus_v0.env(num_players=4, rounds=3, elimination=False, hand_size=3)
    env.reset(seed=2)
    play_out(env, np.random.default_rng(2))
    assert env.unwrapped.asrus.round == 3


# ---- scenarios ---------------------------------------------------------------------------


def test_scenario_places_what_it_names_and_deals_the_rest():
    env = asrus_v0.env(num_players=3)
    env.reset(seed=4, options={
        "hands": {"player_0": ["1", "15", "8"]},
        "specials": {"player_1": ["C", "R"]},
        "destination": "8",
        "stones": {"player_2": 17},
        "deposit": 5,
    })  # fmt: skip
    game = env.unwrapped.asrus
    assert env.unwrapped.view("player_0")["hand"] == ["1", "8", "15"]
    assert all(sum(h) == 3 for h in game.hands)
    assert env.unwrapped.view("player_1")["specials"] == ["C", "R"]
    assert game.destination == 8 and game.deposit == 5
    assert env.unwrapped.scores["player_2"] == 17
    game.check_conservation()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": {"player_7": ["1"]}}, r"unknown agent 'player_7'"),
        ({"hands": {"player_0": ["1"], "player_1": ["1"]}}, r"no copy of it is left"),
        ({"hands": {"player_0": ["16"]}}, r"'16' is not one of '1'\.\.'15'"),
        ({"hands": {"player_0": ["1"], "player_1": ["2", "3"]}}, r"same size"),
        ({"specials": {"player_0": ["Q"]}}, r"not one of C, B, D, M, R, J"),
        ({"specials": {"player_0": ["J"]}}, r"no copy of it is left"),
        (
            {"stones": {"player_0": -1}},
            r"stones.player_0=-1 is not allowed; allowed: a whole number of points 0\.\.1000000000",
        ),
    ],
)
def test_impossible_scenarios_raise(options, message):
    env = asrus_v0.env(num_players=3)
    with pytest.raises(OptionError, match=message):
        env.reset(seed=0, options=options)


def test_unknown_reset_option_warns_and_names_the_known_keys():
    env = asrus_v0.env(num_players=3)
    with pytest.warns(UserWarning, match="reads: hands, specials, destination, stones, deposit"):
        env.reset(seed=0, options={"hand": {}})


# ---- illegal actions ---------------------------------------------------------------------


def test_illegal_action_names_agent_action_and_legal_moves_and_changes_nothing():
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0, options={"hands": {"player_0": ["5", "6"]}, "specials": {"player_0": ["M"]}})
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(IllegalActionError) as info:
        env.step(env.unwrapped.string_to_action("player_0", "9"))
    message = str(info.value)
    assert "illegal action 104 (9) for player_0" in message
    assert "legal actions: 5, 5+M, 6, 6+M" in message
    assert json.dumps(env.unwrapped.state_dict()) == before


@pytest.mark.parametrize("bad", [-1, 195, 2.0, "5", None, True])
def test_malformed_actions_raise_with_the_range(bad):
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"0\.\.194|legal actions"):
        env.step(bad)


def test_penalize_ends_the_game_with_minus_one_to_the_offender():
    env = asrus_v0.env(num_players=4, illegal_action="penalize")
    env.reset(seed=0)
    env.step(env.unwrapped.legal_actions()[0])
    mask = env.last()[0]["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {
        "player_0": 0.0,
        "player_1": -1.0,
        "player_2": 0.0,
        "player_3": 0.0,
    }
    assert not env.unwrapped.legal_actions("player_2")
    returns = play_out(env, np.random.default_rng(0))
    assert returns["player_1"] == -1.0


def test_numpy_integers_are_accepted():
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    env.step(np.int64(env.unwrapped.legal_actions()[0]))
    assert env.agent_selection == "player_1"


# ---- masks and hidden information ------------------------------------------------------


def test_mask_is_exact_and_zero_for_agents_not_to_act():
    env = asrus_v0.env(num_players=5)
    env.reset(seed=3)
    raw = env.unwrapped
    for agent in env.possible_agents:
        mask = raw.observe(agent)["action_mask"]
        if agent == env.agent_selection:
            assert list(np.flatnonzero(mask)) == raw.asrus.legal_actions()
            assert mask.dtype == np.int8
        else:
            assert not mask.any()


def test_a_commitment_stays_hidden_from_the_players_after_it():
    env = asrus_v0.env(num_players=4)
    env.reset(seed=8)
    raw = env.unwrapped
    before = raw.observe("player_1")["observation"]
    view_before = raw.view("player_1")
    env.step(raw.legal_actions()[-1])
    after = raw.observe("player_1")["observation"]
    lo = raw.observer.offsets["committed"][0]
    changed = np.flatnonzero(before != after)
    assert set(changed) == {lo + 3}  # only "player_0 (three seats on) has committed"
    view_after = raw.view("player_1")
    assert view_after["committed"] == ["player_0"]
    assert {k: v for k, v in view_after.items() if k not in ("committed", "to_act")} == {
        k: v for k, v in view_before.items() if k not in ("committed", "to_act")
    }


def test_views_show_only_the_own_hand_and_are_json():
    env = asrus_v0.env(num_players=3)
    env.reset(seed=5)
    view = env.unwrapped.view("player_2")
    json.dumps(view)
    assert view["hand"] == [
        str(n) for n in range(1, 16) for _ in range(env.unwrapped.asrus.hands[2][n])
    ]
    text = json.dumps(view)
    for other in (0, 1):
        assert f'"hand_{other}"' not in text
    assert set(view) >= {"destination", "points", "stones", "specials_held", "last_turn"}


@pytest.mark.parametrize("steps", [0, 7, 14, 29])
def test_observation_matches_the_view(steps):
    """Every field of the vector decoded back and compared with the view (the
    same information in words), from the seat to act, after ``steps`` moves."""
    n = 3
    env = asrus_v0.env(num_players=n)
    env.reset(seed=5)
    random_steps(env, np.random.default_rng(1), steps)
    raw = env.unwrapped
    agent = env.agent_selection
    vec, view, o = raw.observe(agent)["observation"], raw.view(agent), raw.observer.offsets
    me = int(agent.split("_")[1])
    order = [f"player_{(me + rel) % n}" for rel in range(n)]  # the observer first

    def field(name):
        lo, hi = o[name]
        return [float(x) for x in vec[lo:hi]]

    total = sum(view["points"].values()) + view["deposit"]
    assert [round(x * 8) for x in field("hand")] == [
        view["hand"].count(str(k)) for k in range(1, 16)
    ]
    assert [round(x * 3) for x in field("specials")] == [
        view["specials"].count(k) for k in "CBDMRJ"
    ]
    assert field("destination") == [float(k == int(view["destination"])) for k in range(1, 16)]
    assert field("destination_card") == [float(view["destination_card"])]
    assert field("deposit") == pytest.approx([view["deposit"] / total])
    assert field("points") == pytest.approx([view["points"][a] / total for a in order])
    deck = env.unwrapped.config.special_deck_size
    assert field("specials_held") == pytest.approx([view["specials_held"][a] / deck for a in order])
    assert field("committed") == [float(a in view["committed"]) for a in order]
    revealed = [view["revealed_this_round"].count(str(k)) / 8 for k in range(1, 16)]
    assert field("revealed") == pytest.approx(revealed)
    last = view["last_turn"]
    if last is None:
        assert not any(field("last_numbers")) and not any(field("last_kind"))
        return
    numbers = [0.0] * (15 * n)
    for rel, a in enumerate(order):
        numbers[15 * rel + int(last["plays"][a].split("+")[0]) - 1] = 1.0
    assert field("last_numbers") == numbers
    kinds = ["majority", "closest", "farthest", "draw", "explosion"]
    assert field("last_kind") == [float(k == last["kind"]) for k in kinds]
    assert field("last_winner") == [float(a == last["winner"]) for a in order]
    assert field("last_blackhole") == [float(last["blackhole"])]


def test_ansi_render_shows_the_own_hand_only_and_human_everything(capsys):
    env = asrus_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "player_0" in text and "hand [" in text
    assert text.count("hand [") == 1
    human = asrus_v0.env(num_players=3, render_mode="human")
    human.reset(seed=5)
    assert human.render() is None
    assert capsys.readouterr().out.count("hand [") == 3


# ---- rewards -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 5, 9])
def test_win_reward_is_zero_sum_and_follows_the_winners(players):
    env = asrus_v0.env(num_players=players)
    env.reset(seed=players)
    returns = play_out(env, np.random.default_rng(players))
    winners = env.unwrapped.winners
    assert sum(returns.values()) == pytest.approx(0.0)
    for agent, value in returns.items():
        expected = 1 / len(winners) if agent in winners else -1 / (players - len(winners))
        assert value == pytest.approx(expected)


def test_score_reward_sums_to_the_points_won():
    env = asrus_v0.env(num_players=4, reward="score")
    env.reset(seed=6)
    returns = play_out(env, np.random.default_rng(6))
    for agent, value in returns.items():
        assert value == pytest.approx(env.unwrapped.scores[agent] - 90)


def test_rank_reward_orders_the_players():
    env = asrus_v0.env(num_players=4, reward="rank")
    env.reset(seed=7)
    returns = play_out(env, np.random.default_rng(7))
    # This seed ends 119, 89, 76, 76: ranks 0 and 1, then a tie sharing ranks 2 and 3.
    assert env.unwrapped.scores == {
        "player_0": 89.0, "player_1": 76.0, "player_2": 76.0, "player_3": 119.0
    }  # fmt: skip
    assert returns == pytest.approx(
        {"player_3": 1.0, "player_0": 1 / 3, "player_1": -2 / 3, "player_2": -2 / 3}
    )


# ---- the reduced-deck variant ------------------------------------------------------------


def test_removed_numbers_take_cards_out_of_the_deck():
    env = asrus_v0.env(num_players=5, removed_numbers=[4, 8, 12])
    env.reset(seed=3)
    game = env.unwrapped.asrus
    deck = env.unwrapped.view("player_0")["deck"]
    assert (deck["4"], deck["8"], deck["12"]) == (3, 7, 3)
    assert sum(deck.values()) == 61
    cards_in_play = sum(game.number_pile) + sum(map(sum, game.hands)) + 1  # + destination
    assert cards_in_play == 61
    game.check_conservation()
    play_out(env, np.random.default_rng(3))  # a whole game on the smaller deck
    assert env.unwrapped.asrus.over


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"removed_numbers": [16]}, r"removed_numbers=\[16\] is not allowed; allowed: a list"),
        ({"removed_numbers": [1, 1]}, r"each at most as often as the deck holds it"),
        ({"removed_numbers": "4"}, r"allowed: a list or tuple of numbers 1\.\.15"),
        (
            {"num_players": 9, "removed_numbers": [4]},
            r"hand_size=7 with num_players=9 and removed_numbers=\[4\] cannot be dealt.*"
            r"allowed hand_size: 1\.\.6",
        ),
    ],
)
def test_bad_removed_numbers_name_what_is_allowed(options, message):
    with pytest.raises(OptionError, match=message):
        asrus_v0.env(**options)


# ---- determinism and state round trip -------------------------------------------------


def test_same_seed_same_game_and_unseeded_resets_continue_the_generator():
    a, b = asrus_v0.env(num_players=5), asrus_v0.env(num_players=5)
    a.reset(seed=42)
    b.reset(seed=42)
    assert a.unwrapped.view("player_0") == b.unwrapped.view("player_0")
    a.reset()
    b.reset()
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()
    c = asrus_v0.env(num_players=5)
    c.reset(seed=43)
    b.reset(seed=42)
    assert c.unwrapped.state_dict()["game"]["hands"] != b.unwrapped.state_dict()["game"]["hands"]


@pytest.mark.parametrize("players", [3, 8])
def test_state_dict_round_trip_mid_game_across_rounds(players):
    a = asrus_v0.env(num_players=players, rounds=3, elimination=False, jokers=True)
    a.reset(seed=11)
    random_steps(a, np.random.default_rng(0), 3 * players + 1)  # mid-turn
    blob = json.dumps(a.unwrapped.state_dict())
    b = asrus_v0.env(num_players=players, rounds=3, elimination=False, jokers=True)
    b.reset(seed=99)
    b.unwrapped.load_state_dict(json.loads(blob))
    ra, rb = play_out(a, np.random.default_rng(5)), play_out(b, np.random.default_rng(5))
    assert ra == rb
    assert a.unwrapped.scores == b.unwrapped.scores
    assert a.unwrapped.asrus.round == 3  # the lottery and the re-deals used the same RNG


def test_loading_keeps_the_envs_own_reward_and_illegal_action_options():
    a = asrus_v0.env(num_players=3, reward="score")
    a.reset(seed=2)
    b = asrus_v0.env(num_players=3, reward="win", illegal_action="penalize")
    b.reset(seed=0)
    b.unwrapped.load_state_dict(json.loads(json.dumps(a.unwrapped.state_dict())))
    assert b.unwrapped.options["reward"] == "win"
    assert b.unwrapped.options["illegal_action"] == "penalize"
    returns = play_out(b, np.random.default_rng(0))
    assert sorted(returns.values()) in ([-0.5, -0.5, 1.0], [-1.0, 0.5, 0.5], [0.0, 0.0, 0.0])


def tampered(change) -> dict:
    env = asrus_v0.env(num_players=3)
    env.reset(seed=1)
    data = json.loads(json.dumps(env.unwrapped.state_dict()))
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="x"), r"not a flockgym state"),
        (
            lambda d: d.update(env="astrobirdz_v0"),
            r"for env 'astrobirdz_v0', this env is 'asrus_v0'",
        ),
        (lambda d: d["options"].update(num_players=4), r"num_players: saved 4, env 3"),
        (lambda d: d.pop("game"), r"no 'game' section"),
        (lambda d: d["game"].pop("hands"), r"game: missing field\(s\) \['hands'\]"),
        (lambda d: d["game"]["hands"][0].__setitem__(1, 5), r"hands of unequal sizes"),
        (
            lambda d: d["game"]["number_pile"].__setitem__(2, d["game"]["number_pile"][2] + 1),
            r"3 copies of number 2 in hands, pile and destination; the deck holds 2",
        ),
        (lambda d: d["game"].update(rng={"bit_generator": "MT19937"}), r"PCG64"),
        (lambda d: d["aec"].update(agent_selection="player_9"), r"'player_9' is not an agent"),
        (lambda d: d.pop("aec"), r"no 'aec' section"),
    ],
)
def test_malformed_state_dicts_are_refused_with_the_reason(change, message):
    env = asrus_v0.env(num_players=3)
    env.reset(seed=2)
    with pytest.raises(StateDictError, match=message):
        env.unwrapped.load_state_dict(tampered(change))
    with pytest.raises(StateDictError, match="must be a dict"):
        env.unwrapped.load_state_dict([1, 2])


# ---- parallel == AEC -----------------------------------------------------------------------


def test_parallel_env_plays_the_same_game_as_the_aec_env():
    aec = asrus_v0.env(num_players=4, reward="score")
    par = asrus_v0.parallel_env(num_players=4, reward="score")
    aec.reset(seed=3)
    observations, _ = par.reset(seed=3)
    rng = np.random.default_rng(9)
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actions = {
            a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in par.agents
        }
        for agent in aec.possible_agents:
            assert aec.agent_selection == agent
            np.testing.assert_array_equal(
                aec.observe(agent)["action_mask"], observations[agent]["action_mask"]
            )
            aec.step(actions[agent])
        observations, rewards, *_ = par.step(actions)
        for agent, value in rewards.items():
            totals[agent] += value
    assert par.scores == aec.unwrapped.scores
    assert totals == {a: par.scores[a] - 90 for a in par.possible_agents}
