"""The Arena env against the contract of docs/api.md: registry, options (the box
file included), every scenario key and its errors, forced dice, action strings,
illegal actions, the view and last_rolls, the observation against the view,
rendering and the documentation tables against the code (PettingZoo's own tests
of every player count and option sample are tests/test_contract.py's)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
import yaml
from aec_helpers import PETTINGZOO_HAS_REGISTRY, play_out, random_action, random_steps

from flockgym.envs import (
    IllegalActionError,
    OptionError,
    arena_v0,
    list_envs,
    make,
    make_bot,
    make_parallel,
)
from flockgym.envs.arena import data
from flockgym.envs.arena import env as env_module
from flockgym.envs.arena.actions import ActionLayout
from flockgym.envs.arena.observer import field_table, item_count, observation_size
from flockgym.envs.arena.phases import BOARD

PLAYER_COUNTS = [2, 3, 4, 5, 6]
BOX = data.default_box()


def fresh(players=4, seed=0, options=None, **kw):
    env = arena_v0.env(num_players=players, **kw)
    env.reset(seed=seed, options=options)
    return env


def placed(players=2, engine="compiled", **options):
    """Everyone placed, player_0 first, a later turn: the game waits at player_0's
    first real choice. ``engine="python"`` for a test that sets the Python
    engine's fields (the compiled engine's are read-only copies)."""
    names = ["Skyboardzerka", "Sandboardzerka", "Hoverboardzerka", "Magboardzerka",
             "Jetboardzerka", "Wakeboardzerka"]  # fmt: skip
    opts = {"positions": {f"player_{s}": 0 for s in range(players)}, "first_player": "player_0",
            "turn": 2, "characters": {f"player_{s}": names[s] for s in range(players)}}  # fmt: skip
    opts.update(options)
    return fresh(players, options=opts, engine=engine)


# ---- the parallel env ----------------------------------------------------------------


def test_parallel_env_plays():
    par = make_parallel("arena_v0", num_players=3)
    observations, _ = par.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    while par.agents and steps < 300:
        actions = {
            a: random_action(observations[a], rng) if observations[a]["action_mask"].any() else 0
            for a in par.agents
        }
        observations, *_ = par.step(actions)
        steps += 1
    assert steps > 10


# ---- registry and options ----------------------------------------------------------------


def test_registry_pettingzoo_registry_and_bots():
    assert "arena_v0" in list_envs()
    assert isinstance(make("arena_v0", num_players=2).unwrapped, arena_v0.raw_env)
    if PETTINGZOO_HAS_REGISTRY:  # PettingZoo >= 1.27 (the declared floor is older)
        aec = pettingzoo.make("aec", "flockgym/arena-v0", num_players=5)
        assert aec.unwrapped.num_players == 5
    from flockgym.envs.arena.bots import ArenaHeuristicBot

    assert isinstance(make_bot("arena_v0", "heuristic", seed=1), ArenaHeuristicBot)


@pytest.mark.parametrize(("options", "message"), [
    ({"num_players": 7}, r"num_players=7 is not allowed; allowed values: 2, 3, 4, 5, 6"),
    ({"max_rounds": 0}, r"max_rounds=0 is not allowed; allowed: an integer >= 1"),
    ({"world_challenge": "double"}, r"world_challenge='double' is not allowed"),
    ({"dark_matter": 2}, r"dark_matter=2 is not allowed"),
    ({"data": 5}, r"data=5 is not allowed; allowed: None or a file path"),
    ({"maxrounds": 3}, r"unknown option\(s\) maxrounds"),
])  # fmt: skip
def test_bad_options_name_the_option(options, message):
    with pytest.raises(OptionError, match=message):
        arena_v0.env(**options)


def test_data_option_loads_another_box_and_names_a_malformed_entry(tmp_path: Path):
    d = yaml.safe_load(data.DEFAULT_PATH.read_text())
    d["maneuvers"][2]["number"] = "x"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(d))
    with pytest.raises(OptionError, match=r"maneuvers\[2\] \(Polar Vortex Spin\): field 'number'"):
        arena_v0.env(data=str(bad))
    with pytest.raises(OptionError, match="cannot read the file"):
        arena_v0.env(data=str(tmp_path / "missing.yaml"))
    # a smaller box: 2 fewer world spaces' worth of cards is still a valid box
    d = yaml.safe_load(data.DEFAULT_PATH.read_text())
    d["worlds"] = d["worlds"][:13]
    small = tmp_path / "small.yaml"
    small.write_text(yaml.safe_dump(d))
    env = arena_v0.env(num_players=2, data=str(small))
    env.reset(seed=0)
    assert sum(1 for w in env.unwrapped.view("player_0")["cards"] if w) == 30 + 13
    assert env.unwrapped.arena.box.num_worlds == 13


def test_max_steps_default_and_truncation():
    env = fresh(2, max_steps=5)
    assert arena_v0.env().unwrapped.max_steps == 20_000
    play_out(env, np.random.default_rng(0))
    assert env.unwrapped.steps == 5 and env.unwrapped.winners == []


# ---- scenarios ------------------------------------------------------------------------------


def test_every_scenario_key_sets_up_the_table():
    env = fresh(3, options={
        "characters": {"player_0": "Spaceboardzerka",
                       "player_1": "Mecha-Invazorz Destructarian Graptarg",
                       "player_2": "Skyboardzerka"},
        "forms": {"player_0": "berzerkerbirdz"},
        "positions": {"player_0": 17, "player_1": 35, "player_2": 0},
        "trophies": {"player_0": 5},
        "maneuvers": {"player_1": ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix"]},
        "worlds": {"player_1": ["Hoverion"]},
        "medals": {"player_0": ["gold"]},
        "gym_powers": {"player_2": ["Halfpipe Hall"]},
        "medal_cards": {"player_0": ["Stunt Die"]},
        "board": {"9": "Spacefreeze Cryo Blast", 44: "Polarion"},
        "gyms": ["Halfpipe Hall", "Zoominium Refinery", "Trophy Vault", "Speed Ring"],
        "first_player": "player_2",
        "turn": 3,
        "dice": [4],
    })  # fmt: skip
    v = env.unwrapped.view("player_0")
    p0, p1, p2 = (v["players"][f"player_{s}"] for s in range(3))
    assert (p0["character"], p0["form"], p0["trophies"], p0["medals"]) == (
        "Spaceboardzerka", "berzerkerbirdz", 5, ["gold"],
    )  # fmt: skip
    assert p0["medal_cards"] == ["Stunt Die"] and p2["gym_powers"] == ["Halfpipe Hall"]
    assert p1["form"] == "invazorz" and p1["worlds"] == ["Hoverion"] and p1["medals"] == ["bronze"]
    assert v["cards"]["Spacefreeze Cryo Blast"] == "space 9"
    assert v["cards"]["Polarion"] == "space 44"
    assert next(s["gym"] for s in v["board"]["spaces"] if s["kind"] == "gym") == "Halfpipe Hall"
    assert v["first_player"] == "player_2" and v["round"] == 2
    # player_2 went first and rolled the forced 4: 0 -> 4 is an AstroPortal; its d8 and d6
    # come from the generator
    assert env.unwrapped.arena.roll_log[0][1:] == ["movement", 6, 4]


BOTH = {"characters": {"player_0": "Snowboardzerka", "player_1": "Hoverboardzerka"}}
"""Board pieces need every seat's character (the board is dealt after the wishes)."""


@pytest.mark.parametrize(("options", "message"), [
    ({"characters": ["Spaceboardzerka"]}, r"'characters': must be a dict such as"),
    ({"characters": {"player_0": "Nobody"}}, r"'characters': 'Nobody' is not a character"),
    ({"characters": {"player_9": "Spaceboardzerka"}}, r"unknown agent 'player_9'"),
    ({"forms": {"player_0": "dragon"}}, r"'forms': 'dragon' is not one of astrobirdz"),
    ({"positions": {"player_0": 50}}, r"'positions': 50 must be an integer 0..49"),
    ({"positions": {"player_0": "7"}}, r"'positions': '7' must be an integer"),
    ({"trophies": {"player_0": -1}}, r"'trophies': -1 must be an integer 0..40"),
    ({"trophies": {"player_0": 30, "player_1": 30}, **BOTH}, r"need .* more than the box's"),
    ({"maneuvers": {"player_0": "Hoverion"}}, r"'maneuvers': each entry must be a list"),
    ({"maneuvers": {"player_0": ["Hoverion"]}}, r"'maneuvers': Hoverion is not a maneuver card"),
    ({"worlds": {"player_0": ["Hoverion"], "player_1": ["Hoverion"]}, **BOTH},
     r"given to two players"),
    ({"medals": {"player_0": ["platinum"]}}, r"'medals': 'platinum' is not a medal"),
    ({"gym_powers": {"player_0": ["Launch Tower"]}, "gyms": ["Halfpipe Hall",
      "Zoominium Refinery", "Trophy Vault", "Speed Ring"], **BOTH}, r"no gym power card left"),
    ({"medal_cards": {"player_0": ["Fan Mail"]}, **BOTH}, r"gives a trophy at once"),
    ({"board": {"35": "Spacefreeze Cryo Blast"}, **BOTH}, r"space 35 is a world space"),
    ({"gyms": ["Halfpipe Hall"]}, r"'gyms': must be a list of 4 gym names"),
    ({"first_player": 0}, r"unknown agent 0"),
    ({"turn": 0}, r"'turn': 0 must be an integer >= 1"),
    ({"turn": 41}, r"starts after the last round"),
    ({"dice": 6}, r"'dice': must be a list of die results"),
    ({"dice": [0]}, r"'dice': 0 must be an integer 1..20"),
    ({"dice": [6, 7], "positions": {"player_0": 0, "player_1": 8},
      "characters": {"player_0": "Skyboardzerka", "player_1": "Sandboardzerka"}},
     r"roll 2 \(player_\d, first player\) is a d6, which cannot show the forced result 7"),
    ({"characters": {"player_0": "Mecha-Invazorz Gearlord Kranx"},
      "forms": {"player_0": "astrobirdz"}}, r"cannot be in form astrobirdz"),
    ({"board": {"35": "Hoverion"}, "characters": {"player_0": "Skyboardzerka"}},
     r"scenario pieces board need every seat's character given \(option characters for all "
     r"players\): the board is dealt after the character wishes"),
])  # fmt: skip
def test_bad_scenarios_name_the_key_and_the_form(options, message):
    env = arena_v0.env(num_players=2)
    with pytest.raises(OptionError, match=message):
        env.reset(seed=0, options=options)


def test_unknown_scenario_key_warns():
    env = arena_v0.env(num_players=2)
    with pytest.warns(UserWarning, match=r"reset option\(s\) hands ignored"):
        env.reset(seed=0, options={"hands": 1})


def test_an_impossible_forced_die_mid_game_changes_nothing():
    with pytest.raises(OptionError, match=r"roll 1 \(player_0, movement\) is a d6"):
        placed(dice=[7])  # rolled at reset, before player_0's first choice
    env = placed(trophies={"player_0": 1}, dice=[2], engine="python")
    before = json.dumps(env.unwrapped.state_dict(), sort_keys=True)
    env.unwrapped.arena.forced = [9]  # (as if the scenario's list ran on)
    raw = env.unwrapped
    with pytest.raises(OptionError, match=r"cannot show the forced result 9"):
        env.step(raw.string_to_action("player_0", "spend 1"))  # 0 -> 4: a portal's d8 is ok, d6...
    raw.arena.forced = []
    after = json.dumps(raw.state_dict(), sort_keys=True)
    assert json.loads(after)["game"] == json.loads(before)["game"]


# ---- actions ---------------------------------------------------------------------------------


def test_action_strings_round_trip_for_every_id():
    env = fresh(5)
    raw = env.unwrapped
    layout = ActionLayout(BOX, 5)
    assert raw.num_actions == layout.size == 257 + 51 * 5
    for agent in env.possible_agents:
        for action in range(layout.size):
            assert raw.string_to_action(agent, raw.action_to_string(agent, action)) == action


def test_string_to_action_errors_name_the_forms():
    env = fresh(2)
    with pytest.raises(ValueError, match=r"cannot read action 'fly'; write one of: 'corner 1'"):
        env.unwrapped.string_to_action("player_0", "fly")
    with pytest.raises(ValueError, match="cannot read action"):
        env.unwrapped.string_to_action("player_0", "player_0")  # itself
    with pytest.raises(ValueError, match="cannot read action"):
        env.unwrapped.string_to_action("player_0", "challenge world Spacefreeze Cryo Blast")


def test_illegal_action_names_the_legal_ones():
    env = fresh(2)
    with pytest.raises(IllegalActionError, match=r"legal actions: wish Snowboardzerka, wish Hov"):
        env.step(env.unwrapped.string_to_action("player_0", "train"))


def test_penalize_ends_the_game():
    env = fresh(2, illegal_action="penalize")
    env.step(env.unwrapped.string_to_action("player_0", "train"))
    assert all(env.terminations.values()) and env.rewards["player_0"] == -1.0


# ---- view, last rolls, observation ------------------------------------------------------------


def test_view_is_json_and_draws_the_board():
    env = fresh(4, seed=2)
    random_steps(env, np.random.default_rng(0), 40)
    v = env.unwrapped.view(env.agent_selection)
    assert json.loads(json.dumps(v)) == v
    spaces = v["board"]["spaces"]
    assert [s["id"] for s in spaces] == list(range(BOX.num_spaces))
    for s in spaces:
        assert {"id", "kind", "region", "at", "next", "players"} <= set(s)
    assert all(v["cards"][c.name] for c in BOX.cards) and len(v["medal_card_places"]) == 12
    on_board = {s["card"] for s in spaces if s.get("card")}
    assert on_board == {n for n, where in v["cards"].items() if where.startswith("space")}


def test_last_rolls_show_every_roll_since_the_agents_previous_step():
    env = placed(2, trophies={"player_0": 1, "player_1": 1}, dice=[3], engine="python")
    raw = env.unwrapped
    assert raw.last_rolls == [{"player": "player_0", "purpose": "movement", "die": "d6",
                               "result": 3}]  # fmt: skip
    assert raw.view("player_1")["last_rolls"] == raw.last_rolls  # player_1 has not stepped
    raw.arena.forced = [5, 1]
    env.step(raw.string_to_action("player_0", "spend 0"))  # 0 -> 3: Wormhole Bonus 1-2
    assert env.agent_selection == "player_0"  # it picks a space to go to
    assert [(r["purpose"], r["die"], r["result"]) for r in raw.last_rolls] == [
        ("astroportal", "d8", 5), ("Wormhole Bonus", "d6", 1),
    ]  # fmt: skip
    assert [r["purpose"] for r in raw.view("player_1")["last_rolls"]] == [
        "movement", "astroportal", "Wormhole Bonus",
    ]  # fmt: skip


def decode(env, agent):
    """The observation of ``agent`` cut into its named fields."""
    raw = env.unwrapped
    vector = env.observe(agent)["observation"]
    out, at = {}, 0
    n = raw.num_players
    for f in field_table(BOX, n):
        width = f.width * (n if f.kind == "seat" else item_count(BOX, f))
        out[f.name] = vector[at : at + width]
        at += width
    assert at == len(vector)
    return out


@pytest.mark.parametrize("players", [2, 4, 6])
def test_observation_fields_agree_with_the_view(players):
    env = fresh(players, seed=players)
    rng = np.random.default_rng(players)
    for _ in range(60):
        random_steps(env, rng, 3)
        if not env.agents:
            break
        for seat, agent in enumerate(env.possible_agents):
            obs = decode(env, agent)
            v = env.unwrapped.view(agent)
            order = [env.possible_agents[(seat + r) % players] for r in range(players)]
            positions = obs["position"].reshape(players, BOX.num_spaces)
            for r, other in enumerate(order):
                pos = v["players"][other]["position"]
                assert (positions[r].argmax() if positions[r].any() else -1) == pos
                trophies = obs["trophies"].reshape(players, 2)[r]
                assert round(float(trophies[0]) * 40) == v["players"][other]["trophies"]
            holder = obs["card_holder"].reshape(BOX.num_cards, 2 + players)
            for card in BOX.cards:
                where = v["cards"][card.name]
                column = int(holder[card.id].argmax())
                if where.startswith("space"):
                    assert column == 0
                elif where in ("box", "discarded"):
                    assert column == 1
                else:
                    assert order[column - 2] == where
            named = obs["space_named"]
            mine = v["players"][agent]["character"]
            for s in v["board"]["spaces"]:
                card = s.get("card")
                expect = (
                    card is not None and BOX.cards[BOX.card_named[card.lower()]].character == mine
                )
                assert bool(named[s["id"]]) == expect


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_observations_stay_in_the_box_for_every_option_sample(players):
    for options in arena_v0.raw_env.option_samples:
        env = arena_v0.env(num_players=players, **options)
        space = env.observation_space("player_0")["observation"]
        env.reset(seed=players)
        rng = np.random.default_rng(1)
        for agent in env.agent_iter(2000):
            obs, _, term, trunc, _ = env.last()
            assert space.contains(obs["observation"]), agent
            env.step(None if term or trunc else random_action(obs, rng))


def test_render_shows_the_board_and_players():
    env = fresh(3, seed=4, render_mode="ansi")
    random_steps(env, np.random.default_rng(2), 30)
    text = env.render()
    assert "Berzerkerbirdz Extreme Sports Arena" in text and "G0" in text and "W35" in text
    for agent in env.possible_agents:
        assert agent in text


# ---- documentation against the code ---------------------------------------------------------


def test_docstring_observation_table_lists_every_field_in_order():
    doc = env_module.__doc__
    rows = re.findall(r"^\| (\w+)(?:, (\w+))? \| [^|]+ \| ", doc.split("Observation\n---")[1], re.M)
    names = [n for row in rows for n in row if n and n != "field"]
    assert names == [f.name for f in field_table(BOX, 4)]
    assert observation_size(BOX, 4) == 738 + 159 * 4


def test_docstring_action_segments_in_order():
    doc = env_module.__doc__.split("Actions\n---")[1].split("Observation\n---")[0]
    segments = re.findall(r"^\| ([a-z /]+) \| ", doc, re.M)
    words = [w.strip() for seg in segments[1:] for w in seg.split("/")]
    expected = ["corner", "roll", "spend", "to", "stop", "slide", "stay", "train", "challenge",
                "challenge medal", "challenge player", "end", "pick", "place", "player",
                "become", "use", "add", "wish"]  # fmt: skip
    assert words == expected


def test_a_views_scenario_keys_set_the_table_up_again():
    env = fresh(3, seed=8)
    random_steps(env, np.random.default_rng(4), 120)
    v = env.unwrapped.view("player_0")
    keys = ("characters", "forms", "positions", "trophies", "maneuvers", "worlds", "medals",
            "gym_powers", "medal_cards", "gyms", "first_player", "turn")  # fmt: skip
    scenario = {k: v[k] for k in keys}
    scenario["board"] = {s["id"]: s["card"] for s in v["board"]["spaces"] if s.get("card")}
    # gym trophies, the supply and cards won from the board are not scenario keys: the
    # rebuilt table holds the same players' pieces and cards
    again = arena_v0.env(num_players=3)
    again.reset(seed=1, options=scenario)
    w = again.unwrapped.view("player_0")
    for k in ("characters", "forms", "positions", "maneuvers", "worlds", "medals",
              "gym_powers", "medal_cards", "gyms", "first_player", "turn"):  # fmt: skip
        if k == "positions":  # the first player's turn may have begun with a roll by itself
            assert {a: p for a, p in w[k].items() if a != w["on_turn"]} == {
                a: p for a, p in v[k].items() if a != w["on_turn"]}  # fmt: skip
            continue
        assert w[k] == v[k], k
    assert all(w["board"]["spaces"][s]["card"] == c for s, c in scenario["board"].items())


def test_the_server_shows_every_arena_move_to_every_seat():
    """Nothing of the Arena is hidden but a character wish: the play server's move
    log names each other move to every seat (other games' log says only "moved")."""
    pytest.importorskip("starlette")
    from flockgym.play.disclosure import is_public

    raw = make("arena_v0", num_players=3).unwrapped
    raw.reset(seed=0)
    for text in ("corner 2", "spend 2", "challenge player_2 world Hoverion", "pick Hoverion"):
        assert is_public(raw, raw.string_to_action("player_0", text))
    assert not is_public(raw, raw.string_to_action("player_0", "wish Spaceboardzerka"))


def test_a_card_that_leaves_the_board_and_returns_elsewhere_shows_its_new_space():
    """Regression: a card won from the board, lost on the Nebula Slide and placed
    on another space between two ``observe()`` calls kept its old space in
    ``card_info`` (the observer compared only holders and defended marks)."""
    raw = placed(2, engine="python").unwrapped
    game = raw.game
    box = game.box
    card = next(c for c in range(box.num_maneuvers) if game.card_holder[c] == BOARD)
    space_before = game.card_space[card]
    raw.observe("player_0")
    # won from the board (its space empty), then lost onto another space
    game._set_card(card, 0)
    other = next(s for s in box.maneuver_spaces if s != space_before)
    if game.space_item[other] >= 0:
        game._set_card(game.space_item[other], -2)  # (back in the box)
    game._set_card(card, BOARD, other)
    game.version += 1
    offset = 0
    for f in field_table(box, 2):
        if f.name == "card_info":
            break
        offset += f.width * (2 if f.kind == "seat" else item_count(box, f))
    vector = raw.observe("player_0")["observation"]
    assert vector[offset + 2 * card + 1] == np.float32(other / (box.num_spaces - 1))
    fresh = make("arena_v0", num_players=2).unwrapped
    fresh.load_state_dict(json.loads(json.dumps(raw.state_dict())))
    for agent in raw.possible_agents:
        assert np.array_equal(
            raw.observe(agent)["observation"], fresh.observe(agent)["observation"]
        )
