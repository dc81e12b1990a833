"""The Astrobirdz env against the contract of docs/api.md: registry, options,
scenarios, action strings, illegal actions, rewards, views, rendering, state
dicts (inside a trade, refused ones), and the documentation tables against the
code (PettingZoo's own tests and the state_dict round trip of every player count
and option sample are tests/test_contract.py's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from aec_helpers import PETTINGZOO_HAS_REGISTRY, play_out, random_action, random_steps
from astrobirdz_helpers import game, step, steps, table

from flockgym.envs import (
    IllegalActionError,
    OptionError,
    StateDictError,
    astrobirdz_v0,
    list_envs,
    make,
    make_bot,
    make_parallel,
)
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz import env as env_module
from flockgym.envs.astrobirdz.actions import ActionLayout
from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot
from flockgym.envs.astrobirdz.observer import field_table, observation_size, observed_width
from flockgym.envs.astrobirdz.rules import Phase, bits
from flockgym.envs.core.rewards import rank_rewards, win_rewards

PLAYER_COUNTS = [2, 3, 4, 5, 6]


# ---- registry ----------------------------------------------------------------------


def test_registry_pettingzoo_registry_and_bots():
    assert "astrobirdz_v0" in list_envs()
    assert isinstance(make("astrobirdz_v0", num_players=2).unwrapped, astrobirdz_v0.raw_env)
    if PETTINGZOO_HAS_REGISTRY:
        aec = pettingzoo.make("aec", "flockgym/astrobirdz-v0", num_players=5)
        assert aec.unwrapped.num_players == 5
    assert isinstance(make_bot("astrobirdz_v0", "heuristic", seed=1), AstrobirdzHeuristicBot)


def test_parallel_env_plays_the_same_game_as_the_aec_env():
    par = make_parallel("astrobirdz_v0", num_players=3)
    observations, _ = par.reset(seed=3)
    rng = np.random.default_rng(3)
    played = []
    while par.agents:
        active = par.aec_env.agent_selection
        actions = dict.fromkeys(par.agents, 0)
        actions[active] = random_action(observations[active], rng)
        played.append((active, actions[active]))
        observations, *_ = par.step(actions)
    assert par.unwrapped.astrobirdz.over
    aec = astrobirdz_v0.env(num_players=3)
    aec.reset(seed=3)
    for agent, action in played:
        assert aec.agent_selection == agent
        aec.step(action)
    assert aec.unwrapped.astrobirdz.over
    assert aec.unwrapped.scores == par.unwrapped.scores


# ---- options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_player": 4}, r"unknown option\(s\) num_player; allowed options: .*num_players"),
        ({"num_players": 7}, r"num_players=7 is not allowed; allowed values: 2, 3, 4, 5, 6"),
        ({"reward": "points"}, r"allowed values: 'win', 'score', 'rank'"),
        ({"pass_cards": "yes"}, r"pass_cards='yes' is not allowed; allowed values: True, False"),
        ({"berzerkerbirdz": 1}, r"allowed values: True, False"),
        ({"trump_rules": None}, r"allowed values: True, False"),
        ({"ages": "old"}, r"ages='old' is not allowed; allowed: None or a list"),
        (
            {"ages": [1, 2]},
            r"option ages must give one age per seat \(4 numbers for num_players=4\)",
        ),
        (
            {"ages": [8, float("nan"), 30, 40]},
            r"ages=\[8, nan, 30, 40\] is not allowed; allowed: "
            r"None or a list of one finite age",
        ),
        ({"ages": [8, float("inf"), 30, 40]}, r"ages=\[8, inf, 30, 40\] is not allowed"),
        ({"ages": [8, -1, 30, 40]}, r"finite age \(a number >= 0\)"),
        ({"ages": [8, "9", 30, 40]}, r"ages=\[8, '9', 30, 40\] is not allowed"),
        ({"highest_bonus": "max"}, r"allowed values: 'among_correct', 'highest_overall'"),
        ({"highest_bonus_ties": "none"}, r"allowed values: 'one', 'all'"),
        (
            {"green_7": "example"},
            r"green_7='example' is not allowed; allowed values: 'beaten_by_higher_trump', "
            r"'never_beaten_by_trump'",
        ),
    ],
)
def test_bad_options_raise_value_errors_naming_the_allowed_values(options, message):
    with pytest.raises(OptionError, match=message):
        astrobirdz_v0.env(**options)


# ---- scenarios ---------------------------------------------------------------------------


def test_scenario_places_hands_trump_birds_turn_and_scores():
    env = table(3, hands={0: ["R1", "R2", "R3"]}, trump="B9", berzerkers={1: "Nitro", 2: 1},
                turn=3, scores={2: 40})  # fmt: skip
    g = game(env)
    view = env.unwrapped.view("player_0")
    assert view["hand"] == ["R1", "R2", "R3"] and view["turn"] == 3
    assert view["trump_card"] == "B9" and view["trump_rule"]["title"] == "Blue Nitro #9"
    assert g.birds[1] == 5 and g.birds[2] == 1
    assert env.unwrapped.scores["player_2"] == 40
    assert all(len(env.unwrapped.view(f"player_{s}")["hand"]) == 3 for s in range(3))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": {"player_7": ["R1"]}}, r"unknown agent 'player_7'"),
        ({"hands": {"player_0": ["R1"], "player_1": ["R1"]}}, r"names R1 twice"),
        ({"hands": {"player_0": ["R1"]}, "trump": "R1"}, r"names R1 twice"),
        ({"hands": {"player_0": ["X1"]}}, r"colour letter R O Y G B P"),
        ({"hands": {"player_0": "R1"}}, r"hands\['player_0'\] must be a list of card strings"),
        ({"hands": {"player_0": None}}, r"hands\['player_0'\] must be a list"),
        ({"hands": {"player_0": ["R1", "R2"]}}, r"player_0 has 2 cards; turn 1 deals 1"),
        ({"trump": "R0"}, r"cannot read card 'R0'"),
        ({"berzerkers": {"player_0": 7}}, r"not one of 1-6 or Zoom, Max"),
        (
            {"berzerkers": {"player_0": 2, "player_1": 2}},
            r"distinct numbers 1-6, got player_0: 2, player_1: 2",
        ),
        ({"turn": 9}, r"turn=9 is not allowed; allowed: 1\.\.6"),
        ({"turn": 0}, r"allowed: 1\.\.6"),
        ({"turn": 10**400}, r"turn=1000000000000.*\.\.\. is not allowed; allowed: 1\.\.6"),
        ({"berzerkers": {"player_0": 10**400}}, r"berzerkers: 100000.*\.\.\. is not one of 1-6"),
        (
            {"scores": {"player_0": -3}},
            r"scores\['player_0'\] must be a whole number 0\.\.1000000, got -3",
        ),
        ({"hands": ["R1"]}, r"must be a dict keyed by agent"),
        (
            {"hands": {"player_0": 9}},
            r"hands\['player_0'\] must be a list of card strings such "
            r"as \['R4', 'B9'\], got 9",
        ),
        (
            {"hands": {"player_0": [9]}},
            r"hands\['player_0'\]\[0\] must be a card string such as "
            r"'R4', got 9",
        ),
        ({"hands": {"player_0": [["R1"]]}}, r"hands\['player_0'\]\[0\] must be a card string"),
        (
            {"scores": 5},
            r"reset option 'scores' must be a dict keyed by agent, e\.g\. "
            r"\{'player_0': \.\.\.\}, got 5",
        ),
        (
            {"scores": {"player_0": 10**400}},
            r"scores\['player_0'\] must be a whole number "
            r"0\.\.1000000, got 1000000000",
        ),
        (
            {"scores": {"player_0": float("inf")}},
            r"scores\['player_0'\] must be a whole number "
            r"0\.\.1000000, got inf",
        ),
        ({"scores": {"player_0": 2.5}}, r"must be a whole number 0\.\.1000000, got 2\.5"),
        ({"berzerkers": 5}, r"reset option 'berzerkers' must be a dict keyed by agent"),
        ({"trump": 5}, r"reset option trump must be a card string such as 'R4', got 5"),
        ({"trump": ["R3"]}, r"reset option trump must be a card string"),
    ],
)
def test_impossible_scenarios_raise(options, message):
    env = astrobirdz_v0.env(num_players=4)
    with pytest.raises(OptionError, match=message):
        env.reset(seed=0, options=options)


@pytest.mark.parametrize(
    "options",
    [
        {"hands": {"player_0": ["R1", "R2"]}},  # found only after the birds were dealt
        {"scores": {"player_0": 10**400}},
        {"berzerkers": {"player_0": 2, "player_1": 2}},
        {"hands": {"player_0": 9}},
    ],
)
def test_a_refused_reset_leaves_the_env_exactly_as_it_was(options):
    """An unseeded reset continues the generator: a refused one must not have
    drawn from it (nor changed anything else)."""
    env = astrobirdz_v0.env(num_players=4)
    env.reset(seed=3)
    random_steps(env, np.random.default_rng(3), 5)
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(OptionError):
        env.reset(options=options)
    assert json.dumps(env.unwrapped.state_dict()) == before
    fresh = astrobirdz_v0.env(num_players=4)
    fresh.reset(seed=3)
    random_steps(fresh, np.random.default_rng(3), 5)
    env.reset()
    fresh.reset()
    assert env.unwrapped.state_dict() == fresh.unwrapped.state_dict()


def test_berzerkers_scenario_needs_the_birds_on():
    env = astrobirdz_v0.env(num_players=3, berzerkerbirdz=False)
    with pytest.raises(OptionError, match="needs berzerkerbirdz=True"):
        env.reset(seed=0, options={"berzerkers": {"player_0": 1}})


def test_unknown_reset_option_warns_and_names_the_known_keys():
    env = astrobirdz_v0.env(num_players=3)
    with pytest.warns(UserWarning, match="reads: hands, trump, berzerkers, turn, scores"):
        env.reset(seed=0, options={"hand": {}})


def test_seeds_reproduce_and_unseeded_resets_continue():
    a, b = astrobirdz_v0.env(num_players=4), astrobirdz_v0.env(num_players=4)
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()
    a.reset()
    b.reset()
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()
    b.reset(seed=6)
    assert a.unwrapped.view("player_0")["hand"] != b.unwrapped.view("player_0")["hand"] or (
        a.unwrapped.view("player_1")["hand"] != b.unwrapped.view("player_1")["hand"]
    )


# ---- action strings ----------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_action_id_has_a_string_that_reads_back(players):
    env = astrobirdz_v0.env(num_players=players)
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.action_space("player_0").n == 135 + players
    for seat in range(players):
        agent = f"player_{seat}"
        texts = [raw.action_to_string(agent, a) for a in range(raw.num_actions)]
        assert len(set(texts)) == raw.num_actions
        assert [raw.string_to_action(agent, t) for t in texts] == list(range(raw.num_actions))


def test_action_strings_by_segment():
    layout = ActionLayout(4)
    assert [layout.to_string(0, a) for a in (0, 13, 53)] == ["R1", "O5", "P9"]
    assert layout.to_string(0, 54) == "guess 0" and layout.to_string(0, 64) == "guess 10"
    assert layout.to_string(0, 65) == "trump R" and layout.to_string(0, 70) == "trump P"
    assert [layout.to_string(2, a) for a in (71, 72, 73)] == ["player_3", "player_0", "player_1"]
    assert layout.to_string(0, 74) == "choose R1" and layout.to_string(0, 127) == "choose P9"
    assert layout.to_string(0, 128) == "decline"
    assert layout.to_string(0, 129) == "trick 1" and layout.to_string(0, 138) == "trick 10"
    assert layout.from_string(0, "Trick  10") == 138
    assert layout.from_string(1, "  Guess  3 ") == 57
    with pytest.raises(ValueError, match=r"write a card to play \('R4'\), 'guess 3'"):
        layout.from_string(0, "play R4")
    with pytest.raises(ValueError, match=r"names player_0 itself; .* player_1, player_2, player_3"):
        layout.from_string(0, "player_0")
    with pytest.raises(ValueError, match=r"another player \('player_2', 0\.\.3\)"):
        layout.from_string(0, "player_4")


# ---- illegal actions -----------------------------------------------------------------------


def test_illegal_action_names_agent_action_and_legal_moves_and_changes_nothing():
    env = table(2, hands={0: ["R4"], 1: ["B9"]}, trump="R3", berzerkerbirdz=False)
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(IllegalActionError) as info:
        env.step(env.unwrapped.string_to_action("player_1", "B9"))
    message = str(info.value)
    assert "illegal action 44 (B9) for player_1" in message
    assert "legal actions: guess 0, guess 1" in message
    assert json.dumps(env.unwrapped.state_dict()) == before


@pytest.mark.parametrize("bad", [-1, 200, 2.0, "R4", None, True])
def test_malformed_actions_raise(bad):
    env = astrobirdz_v0.env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(bad)


def test_penalize_ends_the_game_with_minus_one_to_the_offender():
    env = astrobirdz_v0.env(num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    env.step(illegal)
    rewards = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        rewards[agent] = reward
        env.step(None)
    assert rewards[offender] == -1.0
    assert all(v == 0.0 for a, v in rewards.items() if a != offender)


# ---- rewards -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["win", "score", "rank"])
def test_reward_modes(mode):
    env = astrobirdz_v0.env(num_players=4, reward=mode)
    env.reset(seed=9)
    returns = play_out(env, np.random.default_rng(9))
    agents = env.possible_agents
    points = [env.unwrapped.scores[a] for a in agents]
    winners = [s for s in range(4) if points[s] == max(points)]
    assert env.unwrapped.winners == [agents[s] for s in winners]
    expected = {
        "score": points,  # every turn's points as scored add up to the running totals
        "win": win_rewards(4, winners),
        "rank": rank_rewards(points),
    }[mode]
    assert [returns[a] for a in agents] == pytest.approx(expected)


# ---- views and rendering ----------------------------------------------------------------------


def test_view_is_json_and_names_no_card_of_another_hand():
    """A view may show another player's cards only as cards it knows (given by
    it, or Nitro's peek); never any other card held by another player."""
    for players, seed in ((2, 2), (4, 3), (6, 4)):
        env = astrobirdz_v0.env(num_players=players, pass_cards=True)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(60):
            if not env.agents:
                break
            g = game(env)
            for seat, agent in enumerate(env.possible_agents):
                view = env.unwrapped.view(agent)
                json.dumps(view)
                assert view["hand"] == [data.card_text(c) for c in bits(g.hands[seat])]
                allowed = {c for row in view["known_cards"].values() for c in row}
                allowed |= set((view["peeked"] or {}).get("cards", []))
                public = dict(view)
                for private in ("hand", "known_cards", "peeked", "chosen", "discarded"):
                    public.pop(private)
                text = json.dumps(public)
                for other in range(players):
                    if other != seat:
                        for card in bits(g.hands[other]):
                            name = data.card_text(card)
                            assert name in allowed or f'"{name}"' not in text, (agent, name)
            random_steps(env, rng, 1)


def test_render_ansi_shows_only_the_seat_to_act():
    env = astrobirdz_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    seat = int(env.agent_selection[-1])
    assert "Astrobirdz" in text and "trump card" in text
    assert text.count("hand [") == 1
    assert f"player_{seat}:" in text


def test_render_counts_tricks_in_words():
    """A one-card turn has "1 trick", not "1 tricks"; a longer one "2 tricks"."""
    env = astrobirdz_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=1)
    first = env.render().splitlines()[0]
    assert env.unwrapped.view(env.agent_selection)["hand_size"] == 1
    assert "  1 trick  " in first, first
    while env.unwrapped.view(env.agent_selection)["hand_size"] == 1:
        env.step(int(env.unwrapped.legal_actions(env.agent_selection)[0]))
    assert "  2 tricks  " in env.render().splitlines()[0]


def test_render_human_prints_every_hand(capsys):
    env = astrobirdz_v0.env(num_players=3, render_mode="human")
    env.reset(seed=1)
    assert env.render() is None
    assert capsys.readouterr().out.count("hand [") == 3


# ---- state dict ---------------------------------------------------------------------------------


def test_state_dict_round_trip_inside_a_surfette_trade():
    env = table(3, berzerkers={0: 6, 1: 1, 2: 4}, turn=3, trump="R3")
    steps(env, [(0, "player_1")])
    step(env, 0, env.unwrapped.action_to_string("player_0", int(np.flatnonzero(
        env.last()[0]["action_mask"])[0])))  # fmt: skip
    other = astrobirdz_v0.env(num_players=3)
    other.reset(seed=1)
    other.unwrapped.load_state_dict(json.loads(json.dumps(env.unwrapped.state_dict())))
    assert np.array_equal(other.last()[0]["observation"], env.last()[0]["observation"])
    assert other.unwrapped.view("player_0")["chosen"] == env.unwrapped.view("player_0")["chosen"]


def corrupt(state: dict, path: list, value) -> dict:
    state = json.loads(json.dumps(state))
    target = state
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return state


def played_until(options: dict, seed: int, reached) -> dict:
    """The state dict of a seeded random game at the first state where ``reached(game)``."""
    env = astrobirdz_v0.env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not reached(env.unwrapped.astrobirdz):
        random_steps(env, rng, 1)
    return json.loads(json.dumps(env.unwrapped.state_dict()))


def mid_trick(g) -> bool:
    """Tricks finished, one begun, and cards left in every hand."""
    return g.phase == Phase.PLAY and g.trick and g.finished and g.hand_size - len(g.finished) >= 2


STATES = {
    "play": lambda: played_until({"num_players": 3}, 0, mid_trick),
    "no_birds": lambda: played_until({"num_players": 3, "berzerkerbirdz": False}, 1, mid_trick),
    "guess": lambda: played_until(
        {"num_players": 4}, 2, lambda g: g.phase == Phase.GUESS and g.guesses.count(-1) == 2
    ),
    "pass": lambda: played_until(
        {"num_players": 3, "pass_cards": True},
        3,
        lambda g: g.phase == Phase.PASS_LEFT and len(g.choosers) == 2 and g.hand_size >= 3,
    ),
    "over": lambda: played_until({"num_players": 2}, 4, lambda g: g.over),
}


def swap_first_cards(d):  # a card in two hands, another in none
    d["game"]["hands"][1][0] = d["game"]["hands"][0][0]


def drop_deck_card(d):
    d["game"]["deck"].pop()


def deal_one_more(d):
    d["game"]["hands"][0].append(d["game"]["deck"].pop())


def other_actor(d):
    d["game"]["actor"] = (d["game"]["actor"] + 1) % 3


def other_dealer(d):
    d["game"]["dealer"] = (d["game"]["dealer"] + 1) % 3


def other_trump(d):
    d["game"]["trump"] = (d["game"]["trump"] + 1) % 6


def other_winner(d):
    trick = d["game"]["tricks"][0]
    trick["winner"] = trick["holder"] = (trick["winner"] + 1) % 3


def other_holder(d):
    trick = d["game"]["tricks"][0]
    trick["holder"] = (trick["winner"] + 1) % 3


def reversed_order(d):
    d["game"]["tricks"][0]["order"].reverse()


def other_board(d):
    d["game"]["astroboard"] = (d["game"]["astroboard"] + 1) % 3


def known_elsewhere(d):
    d["game"]["known"][0][1] = d["game"]["hands"][2][:1]


def guess_undone(d):
    d["game"]["guesses"][0] = -1


def total_off(d):
    d["game"]["last_turn"][0]["total"] += 1


def extra_field(d):
    d["game"]["colour"] = "R"


def missing_field(d):
    del d["game"]["deck"]


def chosen_ahead(d):  # the seat after the one choosing has already chosen
    g = d["game"]
    later = g["choosers"][1]
    g["chosen"][later] = g["hands"][later][:1]


def guess_skipped(d):  # a guess made out of turn
    g = d["game"]
    g["guesses"][g["guess_order"][-1]] = 0


SCORE_RULE = r"allowed: a whole number 0\.\.100\d{4} \(1,000,000 and 351 a turn, at turn \d\)"

# (state, corruption: (path, value) or a function, what the message says)
CORRUPTIONS = [
    (
        "play",
        swap_first_cards,
        r"game\.hands\[1\]: \w\d is also in game\.hands\[0\]; each of "
        r"the 54 cards must be in exactly one place",
    ),
    ("play", drop_deck_card, r"game\.deck/discards/trump_card/hands/trick/tricks: \w\d missing"),
    (
        "play",
        deal_one_more,
        r"game\.hands\[0\]: \d+ cards, but in phase play of turn \d this hand "
        r"holds \d",
    ),
    (
        "play",
        (["scores", 0], float("nan")),
        rf"game\.scores\[0\]: nan is not allowed; {SCORE_RULE}",
    ),
    (
        "play",
        (["scores", 1], float("inf")),
        rf"game\.scores\[1\]: inf is not allowed; {SCORE_RULE}",
    ),
    ("play", (["scores", 1], float("-inf")), r"game\.scores\[1\]: -inf is not allowed"),
    ("play", (["scores", 2], 10**400), r"game\.scores\[2\]: 1000000000000.*\.\.\. is not allowed"),
    ("play", (["scores", 0], -1), r"game\.scores\[0\]: -1 is not allowed"),
    ("play", (["scores", 0], 2.5), r"game\.scores\[0\]: 2\.5 is not allowed"),
    ("play", (["scores", 0], "3"), r"game\.scores\[0\]: '3' is not allowed"),
    ("play", (["scores"], [0, 0]), r"game\.scores: has 2 entries; allowed: 3 \(one per seat\)"),
    ("play", other_actor, r"game\.actor: \d, but in phase play seat \d is to act"),
    ("play", (["actor"], -1), r"game\.actor: -1, but in phase play seat \d is to act"),
    (
        "play",
        (["actor"], 7),
        r"game\.actor: 7 is not allowed; allowed: -1 \(none\) or a seat 0\.\.2",
    ),
    (
        "play",
        (["phase"], "dance"),
        r"game\.phase: 'dance' is not allowed; allowed: choose_trump, "
        r"discard, .*, astroboard_trick, over",
    ),
    ("play", (["phase"], "over"), r"game\.phase: over cannot happen on turn \d"),
    ("play", (["phase"], "guess"), r"game\.hands\[0\]: \d cards, but in phase guess"),
    ("play", (["phase"], "choose_trump"), r"game\.trump: \d in phase choose_trump; allowed: -1 "),
    ("play", (["phase"], 8), r"game\.phase: 8 is not allowed; allowed: choose_trump"),
    (
        "play",
        (["over"], True),
        r"game\.over: True in phase play; allowed: true exactly in phase over",
    ),
    ("play", (["over"], "no"), r"game\.over: 'no' is not allowed; allowed: true or false"),
    ("play", (["turn"], 12), r"game\.turn: 12 is not allowed; allowed: 1\.\.5"),
    ("play", (["turn"], "2"), r"game\.turn: '2' is not allowed; allowed: 1\.\.5"),
    ("play", (["turn"], True), r"game\.turn: True is not allowed"),
    ("play", (["hands"], "R1R2"), r"game\.hands: 'R1R2' is not allowed; allowed: a list of 3"),
    ("play", (["hands", 0], 5), r"game\.hands\[0\]: 5 is not allowed; allowed: a list"),
    (
        "play",
        (["hands", 0, 0], 7),
        r"game\.hands\[0\]\[0\]: 7 is not a card; allowed: a card string",
    ),
    ("play", (["hands", 0, 0], "X9"), r"game\.hands\[0\]\[0\]: cannot read card 'X9'"),
    ("play", (["deck"], None), r"game\.deck: None is not allowed; allowed: a list"),
    ("play", (["birds"], None), r"game\.birds: None is not allowed"),
    (
        "play",
        (["birds"], [1, 1, 2]),
        r"game\.birds: \[1, 1, 2\] is not allowed; allowed: one "
        r"distinct Berzerkerbird 1-6 per seat",
    ),
    (
        "play",
        (["birds", 0], 9),
        r"game\.birds\[0\]: 9 is not allowed; allowed: 0 \(none\) or a "
        r"Berzerkerbird 1-6",
    ),
    ("play", other_dealer, r"game\.dealer: \d, but the lowest Berzerkerbird deals"),
    ("play", other_trump, r"game\.trump: \d, but nobody chooses the trump colour under"),
    ("play", (["hand_size"], 9), r"game\.hand_size: 9, but turn \d under rule card \w\d plays"),
    ("play", (["hand_size"], 40), r"game\.hand_size: 40 is not allowed; allowed: 0\.\.10"),
    (
        "play",
        (["guesses", 0], 20),
        r"game\.guesses\[0\]: 20 is not allowed; allowed: -1 \(not "
        r"yet\) or 0\.\.10",
    ),
    (
        "play",
        guess_undone,
        r"game\.guesses: \[-1, .*allowed: 0\.\.\d for the seats that have "
        r"guessed, in guess order",
    ),
    (
        "play",
        (["guess_order"], [0, 1]),
        r"game\.guess_order: \[0, 1\]; allowed: \[\d, \d, \d\] "
        r"\(from the dealer's left, Max last\)",
    ),
    ("play", other_winner, r"game\.tricks\[0\]\.winner: \d, but seat \d won those cards"),
    (
        "play",
        other_holder,
        r"game\.tricks\[0\]\.holder: \d, but seat \d won it and nothing moved "
        r"it",
    ),
    (
        "play",
        reversed_order,
        r"game\.tricks\[0\]\.order: \[\d, \d, \d\]; allowed: \[\d, \d, \d\] "
        r"\(led by seat \d\)",
    ),
    (
        "play",
        (["tricks", 0], 5),
        r"game\.tricks\[0\]: 5 is not allowed; allowed: a dict of cards, "
        r"order, winner, holder",
    ),
    ("play", (["tricks"], {"a": 1}), r"game\.tricks: \{'a': 1\} is not allowed; allowed: a list"),
    ("play", (["trick_order"], [2, 1, 0, 3]), r"game\.trick_order\[3\]: 3 is not allowed"),
    ("play", (["trick"], "R1"), r"game\.trick: 'R1' is not allowed; allowed: a list"),
    ("play", other_board, r"game\.astroboard: \d in phase play; allowed: \d \(the highest guess"),
    ("play", (["astro_partner"], 1), r"game\.astro_partner: 1 in phase play; allowed: one of "),
    (
        "play",
        (["transfer"], [0, 1, 0]),
        r"game\.transfer: \[0, 1, 0\] with tricks \[\] moved in "
        r"phase play; allowed: \[\] \(a move is scored at once",
    ),
    (
        "play",
        (["transfer"], [0, 1]),
        r"game\.transfer: \[0, 1\] is not allowed; allowed: \[\] or "
        r"\[from, to, trick\]",
    ),
    (
        "play",
        known_elsewhere,
        r"game\.known\[0\]\[1\]: \['\w\d'\]; allowed: cards in hand 1 that "
        r"seat 0 can tell are there",
    ),
    ("play", (["known"], 5), r"game\.known: 5 is not allowed; allowed: a list of 3"),
    ("play", (["need"], [1, 0, 0]), r"game\.need: \[1, 0, 0\] in phase play; allowed: \[0, 0, 0\]"),
    ("play", (["choosers"], [1]), r"game\.choosers: \[1\] in phase play; allowed: \[\]"),
    ("play", (["partner"], 5), r"game\.partner: 5 is not allowed"),
    ("play", (["discards"], ["R1"]), r"game\.\w+.*R1"),
    ("play", total_off, r"game\.last_turn\[0\]: its items do not add up to floored and total"),
    (
        "play",
        (["last_turn", 0], {"total": 3}),
        r"game\.last_turn\[0\]: \{'total': 3\} is not "
        r"allowed; allowed: a dict of guess, tricks",
    ),
    ("play", (["rng"], {"bit_generator": "MT"}), r"game\.rng: rng state must be a PCG64"),
    ("play", (["rng"], 5), r"game\.rng: rng state must be a PCG64"),
    (
        "play",
        (["config"], 7),
        r"game\.config: 7 is not allowed; allowed: a dict of exactly "
        r"num_players, berzerkerbirdz",
    ),
    ("play", (["config", "pass_cards"], "yes"), r"game\.config\.pass_cards: 'yes' is not allowed"),
    (
        "play",
        (["config", "ages"], [1, float("nan"), 3]),
        r"game\.config\.ages: \[1, nan, 3\] is not "
        r"allowed; allowed: null or one finite age",
    ),
    ("play", (["config", "pass_cards"], True), r"game\.config: .*differs from this env's"),
    ("play", extra_field, r"game: missing field\(s\) none, unknown field\(s\) \['colour'\]"),
    ("play", missing_field, r"game: missing field\(s\) \['deck'\]"),
    ("play", ([], None), r"game: None is not allowed; allowed: a dict of the fields config, rng"),
    (
        "no_birds",
        (["peeked"], 1),
        r"game\.peeked: 1 in phase play; allowed: -1 \(Nitro has not "
        r"looked\)",
    ),
    (
        "no_birds",
        (["birds"], [0, 2, 0]),
        r"game\.birds: \[0, 2, 0\] is not allowed; allowed: "
        r"\[0, 0, 0\] \(berzerkerbirdz=False\)",
    ),
    (
        "no_birds",
        other_dealer,
        r"game\.dealer: \d, but without Berzerkerbirdz turn \d is dealt by "
        r"seat \d",
    ),
    (
        "guess",
        guess_skipped,
        r"game\.guesses: \[.*\]; allowed: 0\.\.\d for the seats that have "
        r"guessed, in guess order, -1 for the rest",
    ),
    (
        "guess",
        (["astroboard"], 0),
        r"game\.astroboard: 0 in phase guess; allowed: -1 \(not given "
        r"yet\)",
    ),
    (
        "guess",
        (["tricks"], [{"cards": [], "order": [], "winner": 0, "holder": 0}]),
        r"game\.tricks: tricks are played only from phase play on",
    ),
    ("pass", chosen_ahead, r"game\.chosen\[\d\]: 1 cards; allowed: none \(it chooses later\)"),
    ("pass", (["choosers"], []), r"game\.choosers: \[\]; allowed: the seats still to choose"),
    (
        "pass",
        (["need"], [1, 1, 1]),
        r"game\.need: \[1, 1, 1\] in phase pass_left; allowed: "
        r"\[2, 2, 2\]",
    ),
    ("pass", (["allowed", 0], []), r"game\.allowed: .* in phase pass_left; allowed: "),
    ("over", (["actor"], 0), r"game\.actor: 0, but in phase over seat -1 is to act"),
    ("over", (["last_turn"], None), r"game\.last_turn: null, but a turn was scored"),
    ("over", (["hands", 0], ["R1"]), r"game\.\w+"),
]


def apply_corruption(state: dict, corruption) -> dict:
    if callable(corruption):
        state = json.loads(json.dumps(state))
        corruption(state)
        return state
    path, value = corruption
    return corrupt(state, ["game", *path], value)


@pytest.fixture(scope="module")
def saved_states() -> dict:
    return {name: make() for name, make in STATES.items()}


@pytest.mark.parametrize(("state", "corruption", "message"), CORRUPTIONS)
def test_a_corrupted_state_dict_is_refused_naming_the_field_and_changes_nothing(
    saved_states, state, corruption, message
):
    good = saved_states[state]
    target = astrobirdz_v0.env(**good["options"])
    target.reset(seed=11)
    random_steps(target, np.random.default_rng(11), 9)
    before = json.dumps(target.unwrapped.state_dict())
    with pytest.raises(StateDictError, match=message):
        target.unwrapped.load_state_dict(apply_corruption(good, corruption))
    assert json.dumps(target.unwrapped.state_dict()) == before
    target.unwrapped.load_state_dict(good)  # the uncorrupted dict loads
    assert json.loads(json.dumps(target.unwrapped.state_dict())) == good


def test_a_player_who_did_not_follow_the_led_colour_is_refused():
    """player_2 leads the blue 1; a saved trick where player_0 then threw the
    green 2 while holding the blue 2 cannot have been played."""
    hands = {2: ["B1", "R1"], 0: ["B2", "G2"], 1: ["B3", "Y3"]}
    env = table(3, hands=hands, trump="R3", turn=2, berzerkerbirdz=False)
    steps(env, [(2, "guess 1"), (0, "guess 0"), (1, "guess 1"), (2, "B1")])
    good = json.loads(json.dumps(env.unwrapped.state_dict()))
    bad = json.loads(json.dumps(good))
    bad["game"]["trick"] = ["B1", "G2"]
    bad["game"]["hands"][0] = ["B2"]
    bad["game"]["actor"], bad["aec"]["agent_selection"] = 1, "player_1"
    before = json.dumps(env.unwrapped.state_dict())
    with pytest.raises(StateDictError, match=r"game\.trick: seat 0 played G2 on a blue lead while "
                       r"holding B2; a player must follow the led colour"):  # fmt: skip
        env.unwrapped.load_state_dict(bad)
    assert json.dumps(env.unwrapped.state_dict()) == before


def test_state_dict_of_another_player_count_is_refused():
    env = astrobirdz_v0.env(num_players=3)
    env.reset(seed=0)
    other = astrobirdz_v0.env(num_players=4)
    other.reset(seed=0)
    with pytest.raises(StateDictError, match="num_players"):
        other.unwrapped.load_state_dict(env.unwrapped.state_dict())


# ---- documentation against the code ----------------------------------------------------------


def test_the_documented_observation_table_matches_the_layout():
    doc = env_module.__doc__
    start = doc.index("| field | size | encoding |")
    table = doc[start : doc.index("\n\n", start)]
    rows = re.findall(r"^\| (\w+) \| ([^|]+) \|", table, flags=re.MULTILINE)
    documented = [(name, size.strip()) for name, size in rows if name not in ("field", "segment")]
    fields = field_table(4)
    names = [f.name for f in fields]
    assert [name for name, _ in documented if name in names] == names
    sizes = dict(documented)
    for n in PLAYER_COUNTS:
        widths = {f.name: observed_width(f, n) for f in field_table(n)}
        assert {name: doc_size(sizes[name], n) for name in widths} == widths
        assert sum(widths.values()) == observation_size(n) == 795 + 142 * n + n * n


def doc_size(text: str, n: int) -> int:
    """A documented size such as ``11n``, ``n(54+n)`` or ``54(n-1)`` for ``n`` players."""
    expression = re.sub(r"(\d|n)(n|\()", r"\1*\2", text.replace(" ", ""))
    assert re.fullmatch(r"[\dn+*()-]+", expression), text
    return int(eval(expression, {"__builtins__": {}}, {"n": n}))


def test_the_documented_action_table_matches_the_layout():
    for n in PLAYER_COUNTS:
        layout = ActionLayout(n)
        assert layout.size == 135 + n
        assert layout.choose_offset == 70 + n and layout.decline == 124 + n
        assert layout.trick_offset == 125 + n


def test_the_rules_page_lists_every_rule_card_and_option_as_the_code_has_them():
    page = (Path(__file__).parents[2] / "docs" / "rules" / "astrobirdz.md").read_text()
    rows = re.findall(r"^\| ([ROYGBP][1-9]) \| ([^|]+) \| ([^|]+) \|", page, flags=re.MULTILINE)
    assert [(c, t.strip(), x.strip()) for c, t, x in rows] == [
        (r.card, r.title, r.text) for r in data.RULE_CARDS
    ]
    for option in env_module.GAME_OPTIONS:
        assert f"| `{option.name}` | " in page
    section = page.split("## Rulings")[1].split("## ")[0]
    doc = env_module.__doc__
    for header in ("| segment | ids |", "| field | size | encoding |"):
        start = doc.index(header)
        table = doc[start : doc.index("\n\n", start)]
        assert table in page, f"the rules page lacks the docstring's table {header}"
    rulings = re.findall(r"^\| (\d+) \| ", section, flags=re.MULTILINE)
    assert rulings == [str(i) for i in range(1, len(rulings) + 1)] and len(rulings) >= 20


def test_two_tricks_between_two_observations_both_show():
    """Regression: when two tricks end between two ``observe()`` calls, the first
    was missing from the ``played`` and ``tricks`` blocks (the observer wrote the
    engine's latest trick once per finished-trick event)."""
    raw = make("astrobirdz_v0", num_players=2).unwrapped
    raw.reset(seed=0)
    game_ = raw.game
    while not (game_.turn == 4 and game_.phase == Phase.PLAY):
        raw.step(raw.legal_actions()[0])
    assert game_.hand_size == 4 and game_.finished == [] and game_.trick == []
    raw.observe("player_0")
    for _ in range(4):  # two tricks of two cards, nothing observed in between
        raw.step(raw.legal_actions()[0])
    assert len(game_.finished) == 2 and game_.phase == Phase.PLAY
    vector = raw.observe("player_0")["observation"]
    at = raw.observer.obs_at
    played = vector[at["played"] : at["played"] + data.NUM_CARDS]
    assert np.flatnonzero(played).tolist() == sorted(c for t in game_.finished for c in t)
    slot = data.NUM_CARDS + 2
    for k, cards in enumerate(game_.finished):
        row = vector[at["tricks"] + k * slot : at["tricks"] + k * slot + data.NUM_CARDS]
        assert np.flatnonzero(row).tolist() == sorted(cards)
    fresh = make("astrobirdz_v0", num_players=2).unwrapped
    fresh.load_state_dict(json.loads(json.dumps(raw.state_dict())))
    for agent in raw.possible_agents:
        assert np.array_equal(
            raw.observe(agent)["observation"], fresh.observe(agent)["observation"]
        )
