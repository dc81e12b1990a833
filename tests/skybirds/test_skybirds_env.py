"""The Skybirds env against the contract of docs/api.md: registry, options (the
Aerodrome table included), scenarios, action strings, illegal actions, rewards,
views, rendering, refused state dicts, and the documentation tables against the
code (PettingZoo's own tests and the state_dict round trip of every player count
and option sample are tests/test_contract.py's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from aec_helpers import PETTINGZOO_HAS_REGISTRY, random_action, random_steps

from flockgym.envs import (
    IllegalActionError,
    OptionError,
    StateDictError,
    list_envs,
    make,
    make_parallel,
    skybirds_v0,
)
from flockgym.envs.skybirds import data
from flockgym.envs.skybirds import env as env_module
from flockgym.envs.skybirds.actions import GARROS_SETS, SETS, ActionLayout
from flockgym.envs.skybirds.observer import field_table, observation_size, observed_width

PLAYER_COUNTS = [2, 3, 4]
REPO = Path(__file__).resolve().parents[2]


def scenario_env(players: int = 4, **options):
    env = skybirds_v0.env(num_players=players)
    env.reset(seed=0, options=options)
    return env


def step(env, text: str) -> None:
    agent = env.agent_selection
    action = env.unwrapped.string_to_action(agent, text)
    assert env.observe(agent)["action_mask"][action], (text, env.unwrapped.legal_actions())
    env.step(action)


# ---- registry ----------------------------------------------------------------------


def test_registry_and_pettingzoo_registry():
    assert "skybirds_v0" in list_envs()
    assert isinstance(make("skybirds_v0", num_players=2).unwrapped, skybirds_v0.raw_env)
    if PETTINGZOO_HAS_REGISTRY:  # PettingZoo >= 1.27 (the declared floor is older)
        aec = pettingzoo.make("aec", "flockgym/skybirds-v0", num_players=3)
        assert aec.unwrapped.num_players == 3
    assert make("skybirds_v0").unwrapped.num_players == 4  # the default table


def test_parallel_env_plays_the_same_game_as_the_aec_env():
    par = make_parallel("skybirds_v0", num_players=3)
    observations, _ = par.reset(seed=3)
    rng = np.random.default_rng(3)
    played = []
    for _ in range(300):
        if not par.agents:
            break
        actor = next(a for a in par.agents if observations[a]["action_mask"].any())
        action = random_action(observations[actor], rng)
        played.append((actor, action))
        observations, *_ = par.step({a: action if a == actor else 0 for a in par.agents})
    aec = skybirds_v0.env(num_players=3)
    aec.reset(seed=3)
    for actor, action in played:
        assert aec.agent_selection == actor
        aec.step(action)


# ---- options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 5}, "num_players=5 is not allowed; allowed values: 2, 3, 4"),
        ({"max_campaigns": 0}, "max_campaigns=0 is not allowed; allowed: an integer >= 1"),
        ({"short_game": "yes"}, "short_game='yes' is not allowed"),
        ({"armistice_ends": "war"}, "allowed values: 'dogfight', 'campaign'"),
        ({"tokens_per_turn": 2}, "allowed values: 'any', 'one'"),
        ({"aerodrome": 3}, "None, a list of rows or a path to a table file"),
        ({"no_such": 1}, "unknown option(s) no_such"),
    ],
)
def test_bad_options_name_the_option_and_what_is_allowed(options, message):
    with pytest.raises(OptionError, match=re.escape(message)):
        skybirds_v0.env(**options)


def rows(**changes):
    """The shipped Aerodrome rows with ``{token: {column: value}}`` changes."""
    out = [dict(r) for r in data.DEFAULT_AERODROME_ROWS]
    for row in out:
        row.update(changes.get(row["token"], {}))
    return out


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ([], "must be a non-empty list of rows"),
        ([{"token": "A1"}], "row 0: columns must be exactly"),
        (rows(A1={"ribbon": "4"}), "row 0 (A1): ribbon '4' is not one of 1, 1-2, 1-2-3"),
        (rows(B1={"prerequisites": "Z9"}), "token B1: prerequisite 'Z9' is not a token"),
        (rows(A2={"bonus": "medallion"}), "on one token only; repeated: medallion"),
        (rows(A1={"timing": "pre_campaign"}), "'pre_campaign' does not fit bonus 'medallion'"),
        (rows(A1={"vp_front": -1}), "aerodrome row 0 (A1) vp_front: must be a whole number"),
        (rows(A1={"vp_back": 5}), "vp_back 5 is more than vp_front 2"),
        (rows(Armistice={"bonus": "none", "timing": "none"}), "exactly one token must carry"),
        (rows(A1={"prerequisites": "B1"}, A2={"prerequisites": "A1"}, A3={"prerequisites": "A1"}),
         "at least one token must have none"),
        (rows(Armistice={"prerequisites": "D1&D2|C1"}), "prerequisites mix & and |"),
    ],
)  # fmt: skip
def test_a_bad_aerodrome_table_is_refused_naming_the_row_and_column(table, message):
    with pytest.raises(OptionError, match=re.escape(message)):
        skybirds_v0.env(aerodrome=table)


def test_an_aerodrome_table_from_files(tmp_path):
    changed = rows(A1={"vp_front": 3})
    json_path = tmp_path / "mat.json"
    json_path.write_text(json.dumps(changed))
    csv_path = tmp_path / "mat.csv"
    lines = [",".join(data.COLUMNS)] + [",".join(str(r[c]) for c in data.COLUMNS) for r in changed]
    csv_path.write_text("\n".join(lines))
    yaml_path = tmp_path / "mat.yaml"
    yaml_path.write_text("tokens:\n" + "".join(
        "  - {" + ", ".join(f"{c}: '{r[c]}'" for c in data.COLUMNS) + "}\n" for r in changed
    ))  # fmt: skip
    for path in (json_path, csv_path, yaml_path):
        env = skybirds_v0.env(aerodrome=str(path))
        env.reset(seed=0)
        assert env.unwrapped.config.tokens[0].vp_front == 3
    with pytest.raises(OptionError, match="not found"):
        skybirds_v0.env(aerodrome=str(tmp_path / "missing.json"))
    (tmp_path / "bad.txt").write_text("x")
    with pytest.raises(OptionError, match=r"must end in \.json, \.yaml, \.yml or \.csv"):
        skybirds_v0.env(aerodrome=str(tmp_path / "bad.txt"))


def test_a_custom_aerodrome_changes_the_token_segments():
    table = [
        *rows()[:3],
        {"token": "X", "column": "B", "prerequisites": "A1|A2|A3", "ribbon": "1",
         "vp_front": 9, "vp_back": 9, "bonus": "armistice", "timing": "none"}
    ]  # fmt: skip
    env = skybirds_v0.env(num_players=2, aerodrome=table)
    env.reset(seed=1)
    assert env.action_space("player_0").n == 123 + 2 + 3 * 4
    assert env.unwrapped.action_to_string("player_0", env.unwrapped.layout.take(3)) == "take X"


# ---- scenarios -----------------------------------------------------------------------


def test_scenario_sets_hands_tokens_and_counts():
    env = scenario_env(
        4,
        hands={"player_1": ["G", "4", "4"]},
        tokens={"player_0": {"A1": "front", "B1": "back"}},
        plus_one={"player_2": 3},
        fractional={"player_3": "1/2"},
        campaign=5,
    )
    raw = env.unwrapped
    view = raw.view("player_1")
    assert view["hand"] == ["G", "4", "4"] and view["campaign"] == 5
    assert view["tokens"]["player_0"] == {"A1": "front", "B1": "back"}
    assert view["plus_one"]["player_2"] == 3 and view["fractional"]["player_3"] == "1/2"
    assert env.agent_selection == "player_1"  # the Garros holder leads
    assert raw.scores == {"player_0": 4.0, "player_1": 0.0, "player_2": 3.0, "player_3": 0.5}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hands": ["G"]}, "'hands' must be a dict keyed by agent"),
        ({"hands": {"player_0": "G 4"}}, "hands['player_0'] must be a list of Aces"),
        ({"hands": {"player_0": ["11"]}}, "cannot read card '11'"),
        ({"hands": {"player_9": ["4"]}}, "unknown agent 'player_9'"),
        ({"hands": {"player_0": ["10"], "player_1": ["10"]}}, "more Aces than the deck has of: 10"),
        ({"hands": {"player_0": ["1"] * 5 + ["2"] * 6}}, "a hand has 1..10 Aces"),
        ({"tokens": {"player_0": ["A1"]}}, "tokens['player_0'] must be a dict"),
        ({"tokens": {"player_0": {"Z1": "front"}}}, "unknown token 'Z1'"),
        ({"tokens": {"player_0": {"A1": "up"}}}, "allowed: 'front', 'back'"),
        ({"tokens": {"player_0": {"Armistice": "front"}}}, "no one holds it at the start"),
        ({"tokens": {"player_0": {"B2": "back"}}}, "B2 is never flipped"),
        ({"plus_one": {"player_0": 9}}, "plus_one['player_0']=9; allowed: 0..8"),
        ({"plus_one": {"player_0": "2"}}, "plus_one['player_0']='2'"),
        ({"fractional": {"player_0": 0.5}}, "allowed: '3/4', '1/2', '1/4'"),
        ({"fractional": {"player_0": "1/2", "player_1": "1/2"}}, "held by one player only"),
        ({"campaign": 31}, "campaign=31 is not allowed; allowed: 1..30"),
        ({"campaign": "2"}, "campaign='2'"),
        ({"leader": "player_1", "hands": {"player_0": ["G"]}}, "the leader must be his holder"),
        ({"leader": "nobody"}, "unknown agent 'nobody'"),
    ],
)
def test_impossible_or_malformed_scenarios_are_option_errors(options, message):
    env = skybirds_v0.env(num_players=4)
    with pytest.raises(OptionError, match=re.escape(message)):
        env.reset(seed=0, options=options)


def test_an_unknown_scenario_key_is_only_a_warning():
    env = skybirds_v0.env()
    with pytest.warns(UserWarning, match="ignored; this env reads: hands"):
        env.reset(seed=0, options={"hand": {}})


def test_leader_when_garros_is_out_of_play():
    hands = {f"player_{s}": ["1", "2"] for s in range(4)}
    env = scenario_env(4, hands=hands, leader="player_2")
    assert env.agent_selection == "player_2"
    assert "2" in [
        env.unwrapped.action_to_string("player_2", a) for a in env.unwrapped.legal_actions()
    ]


# ---- actions as text -------------------------------------------------------------


def test_action_ids_and_strings_round_trip_for_every_id():
    for players in PLAYER_COUNTS:
        layout = ActionLayout(players, data.AERODROME)
        assert layout.size == 156 + players
        for seat in range(players):
            for action in range(layout.size):
                text = layout.to_string(seat, action)
                assert layout.from_string(seat, text) == action, text


def test_action_segments_as_documented():
    layout = ActionLayout(4, data.AERODROME)
    assert len(SETS) == 39 and len(GARROS_SETS) == 39
    assert [layout.to_string(0, a) for a in (0, 4, 5, 38, 39, 77, 78, 79)] == [
        "1", "1 1 1 1 1", "2", "10", "G 1", "G 10", "G", "pass",
    ]  # fmt: skip
    assert layout.to_string(0, 80) == "use A1" and layout.add_offset == 91
    assert (layout.done, layout.wild_offset, layout.declare_offset) == (102, 103, 113)
    assert (layout.target_offset, layout.give_offset, layout.take_offset) == (123, 126, 137)
    assert (layout.plus_one, layout.trade_offset, layout.size) == (148, 149, 160)
    assert layout.to_string(2, 123) == "target player_3"
    assert [layout.to_string(0, layout.trade(i)) for i in (0, 4, 8)] == [
        "trade 2 for A1", "trade 3 for B2", "trade 4 for D1",
    ]  # fmt: skip


def test_action_strings_are_forgiving_but_refuse_nonsense():
    raw = skybirds_v0.raw_env()
    raw.reset(seed=0)
    assert raw.string_to_action("player_0", "  5   5 ") == raw.string_to_action("player_0", "5 5")
    assert raw.string_to_action("player_0", "4 g") == raw.string_to_action("player_0", "G 4")
    assert raw.string_to_action("player_0", "USE b3") == 85
    for bad in ("5 6", "1 1 1 1 1 1", "7 7 7 7", "G G", "trade 3 for A1", "target player_0",
                "declare 11", "take Z", "fly"):  # fmt: skip
        with pytest.raises(ValueError, match="cannot read action"):
            raw.string_to_action("player_0", bad)


# ---- illegal actions -------------------------------------------------------------------


def test_an_illegal_action_names_the_agent_the_action_and_the_legal_ones():
    env = scenario_env(4, hands={"player_0": ["G", "4", "4"]})
    before = env.unwrapped.state_dict()
    with pytest.raises(
        IllegalActionError,
        match=r"illegal action 79 \(pass\) for player_0; legal actions: G 4, G 4 4, G",
    ):
        env.step(79)
    assert env.unwrapped.state_dict() == before


def test_penalize_ends_the_game():
    env = skybirds_v0.env(illegal_action="penalize")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and env.rewards[agent] == -1


# ---- rewards, views, rendering ----------------------------------------------------------


def test_score_reward_pays_each_change_of_vp():
    env = skybirds_v0.env(num_players=3, reward="score")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(max_iter=4000):
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        env.step(None if terminated or truncated else random_action(observation, rng))
    assert totals == pytest.approx(env.unwrapped.scores)


def test_a_truncated_great_war_is_a_truncation():
    env = skybirds_v0.env(num_players=2, max_campaigns=1)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _agent in env.agent_iter(max_iter=2000):
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_action(observation, rng))
    assert env.unwrapped.skybirds.truncated and not env.unwrapped.skybirds.over
    assert all(env.unwrapped.truncations.values()) and not any(env.unwrapped.terminations.values())


def test_views_are_json_and_hidden_hands_never_show():
    """Moving a card between two other players' hands changes nothing the
    observer sees (observation and view). The cards are moved inside the Python
    engine (the compiled one's ``skybirds`` is a copy), so this env plays on it."""
    env = skybirds_v0.env(num_players=4, engine="python")
    env.reset(seed=7)
    random_steps(env, np.random.default_rng(7), 40)
    raw = env.unwrapped
    game = raw.skybirds
    for seat, agent in enumerate(env.possible_agents):
        json.dumps(raw.view(agent))
        assert raw.view(agent)["hand"] == data.cards_text(game.hands[seat])
        a, b = [s for s in range(4) if s != seat][:2]
        give = next((k for k in range(11) if game.hands[a][k]), None)
        take = next((k for k in range(11) if game.hands[b][k] and k != give), None)
        if give is None or take is None:
            continue
        before = (raw.observe(agent)["observation"].copy(), json.dumps(raw.view(agent)))
        game.hands[a][give] -= 1
        game.hands[b][give] += 1
        game.hands[b][take] -= 1
        game.hands[a][take] += 1
        game.hand_versions[a] += 1
        game.hand_versions[b] += 1
        after = (raw.observe(agent)["observation"], json.dumps(raw.view(agent)))
        raw.observer.forget()  # and rebuilt from scratch
        assert np.array_equal(after[0], raw.observe(agent)["observation"])
        assert np.array_equal(before[0], after[0]) and before[1] == after[1]


def test_render_shows_the_squadron_and_each_aerodrome():
    env = skybirds_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=0, options={"tokens": {"player_1": {"A1": "front", "B1": "back"}}})
    step(env, env.unwrapped.action_to_string(env.agent_selection, env.unwrapped.legal_actions()[0]))
    text = env.render()
    assert "squadron: [G" in text and "dogfight size" in text
    assert "A1 .. .. > b1 .. .." in text  # player_1's track: A1 face up, B1 flipped
    assert text.count("hand [") == 1


# ---- saving and restoring ---------------------------------------------------------------


def corrupt(state: dict, path: str, value) -> dict:
    out = json.loads(json.dumps(state))
    node = out["game"]
    keys = path.split(".")
    for key in keys[:-1]:
        node = node[int(key)] if key.isdigit() else node[key]
    last = keys[-1]
    node[int(last) if last.isdigit() else last] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("hands.0", ["1", "1", "11"], "game.hands[0][2]: cannot read card '11'"),
        ("hands.0", "G", "game.hands[0]: 'G' is not allowed; allowed: a list"),
        ("box", ["10"], "do not add up to the deck: 10: 2 (deck 1)"),
        ("actor", 7, "game.actor: 7 is not allowed; allowed: 0..3"),
        ("phase", "lunch", "game.phase: 'lunch' is not allowed; allowed: pre_campaign, dogfight"),
        ("step", "give", "'give' is not a step of 'dogfight'"),
        ("campaign", 0, "game.campaign: 0 is not allowed; allowed: an integer 1..30"),
        ("tokens.1", {"Z": "front"}, "game.tokens[1]: 'Z' is not allowed"),
        ("tokens.1", {"A1": "up"}, "game.tokens[1].A1: 'up' is not allowed; allowed: front, back"),
        ("plus_one.2", 9, "game.plus_one[2]: 9 is not allowed; allowed: an integer 0..8"),
        ("fractional.0", "3/4", "game.pool: the fractional tokens held and in the pool"),
        ("armistice_by", 2, "game.armistice_by: must name the seat holding the Armistice"),
        ("passes", 2, "game.passes: 2 passes but passed marks 0 seats"),
        ("finish", [1, 1], "game.finish: [1, 1] names a seat twice"),
        ("pending.tokens", ["A1"], "game.pending.tokens: tokens are used exactly while"),
        ("garros_due", False, "game.garros_due: must be true exactly while a hand holds"),
        ("rng", {"bit_generator": "MT"}, "game.rng: rng state must be a PCG64"),
        ("config.max_campaigns", 0, "game.config: max_campaigns=0 is not an integer >= 1"),
    ],
)
def test_a_malformed_state_dict_names_the_field(path, value, message):
    env = skybirds_v0.env(num_players=4)
    env.reset(seed=3)
    state = env.unwrapped.state_dict()
    bad = corrupt(state, path, value)
    with pytest.raises(StateDictError, match=re.escape(message)):
        env.unwrapped.load_state_dict(bad)
    assert env.unwrapped.state_dict() == state  # a failed load leaves the env as it was


def test_a_squadron_that_is_not_the_last_players_is_refused():
    env = skybirds_v0.env(num_players=4)
    env.reset(seed=3)
    env.step(env.unwrapped.legal_actions()[0])  # Garros's Squadron is on the table
    state = env.unwrapped.state_dict()
    seat = state["game"]["table"]["player"]
    bad = corrupt(state, "last_player", (seat + 1) % 4)
    with pytest.raises(StateDictError, match=r"game\.table\.player: the Squadron on the table"):
        env.unwrapped.load_state_dict(bad)
    bad = corrupt(state, "table.size", 6)
    with pytest.raises(StateDictError, match=r"game\.table\.size: a Squadron.s size is its number"):
        env.unwrapped.load_state_dict(bad)


def test_a_state_dict_of_other_options_is_refused():
    a = skybirds_v0.env(num_players=3, short_game=True)
    a.reset(seed=1)
    b = skybirds_v0.env(num_players=3)
    b.reset(seed=1)
    with pytest.raises(StateDictError, match="other game options"):
        b.unwrapped.load_state_dict(a.unwrapped.state_dict())


def test_a_missing_field_is_named():
    env = skybirds_v0.env()
    env.reset(seed=0)
    state = env.unwrapped.state_dict()
    del state["game"]["played"]
    state["game"]["extra"] = 1
    with pytest.raises(StateDictError, match=r"missing field.s. played; unknown field.s. extra"):
        env.unwrapped.load_state_dict(state)


# ---- documentation against the code -------------------------------------------------------


def test_the_docstring_field_table_matches_the_observer():
    doc = env_module.__doc__
    rows_ = re.findall(r"^\| (\w+) \| ([^|]+) \| ", doc.split("Observation\n-----------")[1], re.M)
    names = [name for name, _ in rows_ if name != "field"]
    assert names == [f.name for f in field_table(4, 11)]
    for players in PLAYER_COUNTS:
        k = 11
        assert (
            observation_size(players, k) == 64 + 10 * players + players**2 + 2 * k + 3 * players * k
        )
        assert sum(observed_width(f, players) for f in field_table(players, k)) == observation_size(
            players, k
        )


def test_the_rules_page_lists_every_option_scenario_key_and_the_aerodrome():
    page = (REPO / "docs" / "rules" / "skybirds.md").read_text()
    for option in env_module.GAME_OPTIONS:
        assert f"`{option.name}`" in page
    for token in data.AERODROME:
        row = f"| {token.name} | {token.column} |"
        assert row in page, row
        assert f"{token.ribbon_text} | {token.vp_front}" in page.split(row)[1].splitlines()[0]
    for key in env_module.SCENARIO_KEYS:
        assert f"`{key}`" in page
    assert f"{env_module.raw_env.default_max_steps:,}" in page
