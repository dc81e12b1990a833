"""Setup step 3: "Each player selects a character card ... If more than one
player wants a particular character, each rolls a 6-sided die to determine who
gets it, and the highest number gets to pick." Each seat without a character
wishes for one (phase ``wish``), hidden from the others until all have wished;
duplicates roll off on d6 in the open; the losers wish again among the
characters left. Forced dice throughout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from arena_helpers import BOX, act, acts, legal, phase

from flockgym.envs import arena_v0, make
from flockgym.envs.arena.actions import is_public_move
from flockgym.envs.arena.bots import ArenaHeuristicBot
from flockgym.envs.arena.data import BERZERKERBIRDZ, HEURISTIC_CHARACTER_ORDER, INVAZORZ
from flockgym.envs.arena.observer import field_table, item_count
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame, StateDictError, new_game

STRENGTH = Path(__file__).parents[2] / "benchmarks/results/arena_character_strength.json"
"""The measured win rates behind the heuristic's wish order."""
SPACE, SKY, MAG = "Spaceboardzerka", "Skyboardzerka", "Magboardzerka"


def char(name: str) -> int:
    return BOX.character_named[name.lower()]


def roll_offs(g) -> list[tuple[int, str, int]]:
    return [(r[0], r[1], r[3]) for r in g.roll_log if r[1].startswith("character")]


def test_distinct_wishes_give_each_seat_its_character_without_a_roll():
    g = new_game(ArenaConfig(num_players=3), seed=0)
    assert phase(g) == "wish" and g.actor == 0
    acts(g, f"wish {SPACE}", f"wish {SKY}", f"wish {MAG}")
    assert g.characters == [char(SPACE), char(SKY), char(MAG)] and roll_offs(g) == []
    assert phase(g) == "corner" and g.wishes == [-1, -1, -1]


def test_a_shared_wish_is_rolled_off_highest_picks_ties_roll_again_losers_wish_again():
    g = new_game(ArenaConfig(num_players=3), seed=0, dice=[4, 6, 6, 2, 5])
    acts(g, f"wish {SPACE}", f"wish {SPACE}", f"wish {SPACE}")
    # 4, 6, 6: players 1 and 2 tie on top and roll again: 2, 5
    assert roll_offs(g) == [(0, f"character {SPACE}", 4), (1, f"character {SPACE}", 6),
                            (2, f"character {SPACE}", 6), (1, f"character {SPACE}", 2),
                            (2, f"character {SPACE}", 5)]  # fmt: skip
    assert g.characters == [-1, -1, char(SPACE)]
    # the losers wish again, player_0 first, among the characters left
    assert phase(g) == "wish" and g.actor == 0 and f"wish {SPACE}" not in legal(g)
    assert len(legal(g)) == BOX.num_characters - 1
    g.forced = [1, 3]
    acts(g, f"wish {SKY}", f"wish {SKY}")
    assert g.characters == [-1, char(SKY), char(SPACE)]
    act(g, f"wish {MAG}")  # player_0 alone now
    assert g.characters == [char(MAG), char(SKY), char(SPACE)] and phase(g) == "corner"


def test_two_clashes_in_one_round_roll_in_character_order():
    g = new_game(ArenaConfig(num_players=4), seed=0, dice=[2, 5, 6, 1])
    acts(g, f"wish {SKY}", f"wish {SPACE}", f"wish {SKY}", f"wish {SPACE}")
    # Spaceboardzerka (id lower) first: players 1 and 3 roll 2, 5; then Skyboardzerka: 0, 2
    assert char(SPACE) < char(SKY)
    assert [(s, r) for s, _, r in roll_offs(g)] == [(1, 2), (3, 5), (0, 6), (2, 1)]
    assert g.characters[0] == char(SKY) and g.characters[3] == char(SPACE)
    assert g.characters[1] == g.characters[2] == -1 and g.actor == 1


def test_scenario_characters_skip_the_phase_and_forms_limit_the_wishes():
    g = new_game(ArenaConfig(num_players=3), seed=0, characters={0: char(SPACE)},
                 forms={1: INVAZORZ, 2: BERZERKERBIRDZ})  # fmt: skip
    assert phase(g) == "wish" and g.actor == 1
    assert {BOX.characters[a - g.layout.wish].invazorz for a in g.legal_actions()} == {True}
    act(g, "wish Mecha-Invazorz Gearlord Kranx")
    assert f"wish {SPACE}" not in legal(g)  # taken by the scenario
    assert all(not BOX.characters[a - g.layout.wish].invazorz for a in g.legal_actions())
    act(g, f"wish {SKY}")
    assert g.forms == [0, INVAZORZ, BERZERKERBIRDZ] and phase(g) == "corner"
    g = new_game(ArenaConfig(num_players=2), seed=0, characters={0: char(SPACE), 1: char(SKY)})
    assert phase(g) == "corner" and roll_offs(g) == []


def test_a_wish_is_hidden_from_the_others_until_all_have_wished():
    env = arena_v0.env(num_players=3)
    env.reset(seed=0)
    raw = env.unwrapped
    before = {a: env.observe(a)["observation"].copy() for a in ("player_1", "player_2")}
    view_before = {a: raw.view(a) for a in ("player_1", "player_2")}
    env.step(raw.string_to_action("player_0", f"wish {SPACE}"))
    v0, v1 = raw.view("player_0"), raw.view("player_1")
    assert v0["wish"] == SPACE and v1["wish"] is None
    assert v1["players"]["player_0"]["wished"] and v1["players"]["player_0"]["character"] is None
    assert SPACE in v1["wish_choices"]  # nothing tells player_1 it is wished for
    # the same move with another wish: every other seat's view and vector are the same
    other = arena_v0.env(num_players=3)
    other.reset(seed=0)
    other.step(other.unwrapped.string_to_action("player_0", f"wish {SKY}"))
    for agent in ("player_1", "player_2"):
        assert other.unwrapped.view(agent) == raw.view(agent)
        assert np.array_equal(
            other.observe(agent)["observation"], env.observe(agent)["observation"]
        )
        assert not np.array_equal(before[agent], env.observe(agent)["observation"])  # "wished"
        assert view_before[agent]["players"]["player_0"]["wished"] is False
    assert not np.array_equal(other.observe("player_0")["observation"],
                              env.observe("player_0")["observation"])  # fmt: skip
    assert not is_public_move(raw.layout, raw.string_to_action("player_0", f"wish {SPACE}"))


def test_the_own_wish_field_is_the_observers_only():
    env = arena_v0.env(num_players=3)
    env.reset(seed=0)
    raw = env.unwrapped
    env.step(raw.string_to_action("player_0", f"wish {SPACE}"))
    box, n = raw.box, 3
    offset = 0
    for f in field_table(box, n):
        if f.name == "own_wish":
            break
        offset += f.width * (n if f.kind == "seat" else item_count(box, f))
    width = box.num_characters
    own = env.observe("player_0")["observation"][offset : offset + width]
    assert np.flatnonzero(own).tolist() == [char(SPACE)]
    for agent in ("player_1", "player_2"):
        assert not env.observe(agent)["observation"][offset : offset + width].any()


def test_roll_offs_are_open_and_the_text_view_shows_the_phase():
    from flockgym.envs.arena.observer import game_view, render_text

    env = make("arena_v0", num_players=2).unwrapped
    env.reset(seed=0, options={"dice": [2, 5]})
    env.step(env.string_to_action("player_0", f"wish {SPACE}"))
    agents = env.possible_agents
    mine = render_text(game_view(env.arena, 0, agents))
    theirs = render_text(game_view(env.arena, 1, agents))
    assert f"player_0 (you): no character yet (wished for {SPACE})" in mine
    assert "player_0: no character yet (has wished)" in theirs and SPACE not in theirs.split(
        "on the board")[0]  # fmt: skip
    assert "> player_1 (you): no character yet (to wish)" in theirs
    env.step(env.string_to_action("player_1", f"wish {SPACE}"))
    rolls = env.view("player_0")["last_rolls"]
    assert [(r["player"], r["purpose"], r["result"]) for r in rolls] == [
        ("player_0", f"character {SPACE}", 2), ("player_1", f"character {SPACE}", 5),
    ]  # fmt: skip
    assert env.view("player_0")["players"]["player_1"]["character"] == SPACE
    assert f"player_1: {SPACE} (astrobirdz)" in render_text(game_view(env.arena, 0, agents))


def test_a_state_dict_in_the_middle_of_the_wishes_round_trips_and_is_checked():
    g = new_game(ArenaConfig(num_players=3), seed=0)
    act(g, f"wish {SPACE}")
    saved = json.loads(json.dumps(g.to_dict()))
    assert saved["wishes"] == [SPACE, None, None] and saved["characters"] == [None] * 3
    again = ArenaGame.from_dict(saved)
    assert again.wishes == g.wishes and again.legal_actions() == g.legal_actions()
    for key, value, message in (
        ("wishes", [None, None, None], r"game.wishes\[0\]: the seats without a character wish"),
        ("wishes", [SPACE, SKY, None], r"game.actor: the wisher is a seat without a character"),
        ("wishes", ["Nobody", None, None], r"game.wishes\[0\]: 'Nobody' is not a character"),
        ("characters", [SPACE, None, None], r"game.wishes\[0\]"),
        ("phase", "corner", r"game.characters: every seat has a character"),
    ):
        bad = dict(saved, **{key: value})
        with pytest.raises(StateDictError, match=message):
            ArenaGame.from_dict(bad)


def test_the_heuristic_wishes_for_the_strongest_character_left():
    env = arena_v0.env(num_players=3)
    env.reset(seed=4)
    raw = env.unwrapped
    bot = ArenaHeuristicBot(0)
    first = HEURISTIC_CHARACTER_ORDER[0]
    action = bot.act(env.observe("player_0"), raw.view("player_0"))
    assert raw.action_to_string("player_0", action) == f"wish {first}"
    # a character taken by the scenario is passed over for the next in the order
    env.reset(seed=4, options={"characters": {"player_0": first}})
    action = bot.act(env.observe("player_1"), raw.view("player_1"))
    assert raw.action_to_string("player_1", action) == f"wish {HEURISTIC_CHARACTER_ORDER[1]}"


def test_the_wish_order_is_the_measured_ranking():
    saved = json.loads(STRENGTH.read_text())
    assert list(HEURISTIC_CHARACTER_ORDER) == saved["ranking"]
    assert sorted(HEURISTIC_CHARACTER_ORDER) == sorted(c.name for c in BOX.characters)
    rates = [saved["characters"][name]["win_rate"] for name in saved["ranking"]]
    assert rates == sorted(rates, reverse=True)


def test_the_board_is_dealt_when_the_last_character_is_given():
    g = new_game(ArenaConfig(num_players=2), seed=0, dice=[3, 5])
    assert g.gym_at == [] and g.space_item == [-1] * BOX.num_spaces
    act(g, f"wish {SPACE}")
    assert g.gym_at == []
    act(g, f"wish {SPACE}")  # rolled off: player_1 gets it, player_0 wishes again
    assert g.characters == [-1, char(SPACE)] and g.gym_at == [] and phase(g) == "wish"
    act(g, f"wish {SKY}")
    assert phase(g) == "corner" and len(g.gym_at) == 4 and not g.invariant_violations()
    spaces = len(BOX.maneuver_spaces) + len(BOX.world_spaces)
    assert sum(1 for item in g.space_item if item >= 0) == spaces
    # the same seed and moves deal the same board; a scenario giving every
    # character deals at reset, from the generator's first draws
    again = new_game(ArenaConfig(num_players=2), seed=0, dice=[3, 5])
    acts(again, f"wish {SPACE}", f"wish {SPACE}", f"wish {SKY}")
    assert again.to_dict() == g.to_dict()
    given = new_game(ArenaConfig(num_players=2), seed=0, characters={0: char(SKY), 1: char(SPACE)})
    assert phase(given) == "corner" and (given.gym_at, given.space_item, given.medal_stack) == (
        g.gym_at, g.space_item, g.medal_stack)  # fmt: skip


def views_during_the_wishes(seed: int) -> tuple[list[Any], list[Any]]:
    """Every seat's observation, view and text after player_0's wish."""
    from flockgym.envs.arena.observer import game_view, render_text

    env = make("arena_v0", num_players=3).unwrapped
    env.reset(seed=seed)
    env.step(env.string_to_action("player_0", f"wish {SPACE}"))
    agents = env.possible_agents
    vectors = [env.observe(a)["observation"].tolist() for a in agents]
    views = [(env.view(a), render_text(game_view(env.arena, s, agents)))
             for s, a in enumerate(agents)]  # fmt: skip
    return vectors, views


def test_nothing_of_the_board_is_seen_during_the_wishes():
    # two seeds deal two boards: while seats wish, no seat can tell them apart
    vectors, views = views_during_the_wishes(0)
    assert (vectors, views) == views_during_the_wishes(1)
    view, text = views[1]
    assert view["gyms"] == [] and set(view["cards"].values()) == {"box"}
    assert set(view["medal_card_places"].values()) == {"stack"}
    assert all(s.get("card") is None and s.get("medal_card") is None
               for s in view["board"]["spaces"])  # fmt: skip
    corners = [s for s in view["board"]["spaces"] if s["kind"] == "gym"]
    assert [(s["corner"], s["gym"], s["gym_power_cards"]) for s in corners] == [
        (1, None, 0), (2, None, 0), (3, None, 0), (4, None, 0)]  # fmt: skip
    assert not any(gym.name in text for gym in BOX.gyms)


def test_a_state_dict_during_the_wishes_deals_the_same_board_when_they_end():
    g = new_game(ArenaConfig(num_players=3), seed=7)
    act(g, f"wish {SPACE}")
    saved = json.loads(json.dumps(g.to_dict()))
    assert saved["gym_at"] == [] and saved["medal_stack"] == list(range(12))
    again = ArenaGame.from_dict(saved)
    for game_ in (g, again):
        acts(game_, f"wish {SKY}", f"wish {MAG}")
    assert again.to_dict() == g.to_dict() and len(g.gym_at) == 4
    after = json.loads(json.dumps(g.to_dict()))
    assert ArenaGame.from_dict(after).to_dict() == g.to_dict()
    dealt_gyms = after["gym_at"]
    for key, value, message in (
        ("gym_at", dealt_gyms, r"game.gym_cards\[\d\]: .* power cards add up to 0, should be 2"),
        (
            "gym_cards",
            after["gym_cards"],
            r"game.gym_at: the board is dealt \(its gyms on the corners\) "
            r"exactly when the last character is given",
        ),
        ("gym_at", dealt_gyms[:2], r"game.gym_at: must list 4 gyms, one per corner, or none"),
        ("medal_stack", list(range(11, -1, -1)), r"game.gym_at: before the board is dealt"),
    ):
        bad = dict(saved, **{key: value})
        if key == "gym_cards":
            bad["gym_at"] = dealt_gyms  # the gyms and their cards, but in the wishes
        with pytest.raises(StateDictError, match=message):
            ArenaGame.from_dict(bad)
    with pytest.raises(StateDictError, match=r"game.gym_at: the board is dealt"):
        ArenaGame.from_dict(dict(after, gym_at=[], gym_cards=[0] * len(BOX.gyms)))


def test_the_resampler_redraws_the_other_seats_unrevealed_wishes_only():
    from flockgym.envs.arena.resample import resample

    env = make("arena_v0", num_players=4).unwrapped
    env.reset(seed=0, options={"characters": {"player_3": MAG}})
    env.step(env.string_to_action("player_0", f"wish {SPACE}"))
    env.step(env.string_to_action("player_1", f"wish {SKY}"))
    assert env.game.wishes == [char(SPACE), char(SKY), -1, -1]
    rng = np.random.default_rng(5)
    seen: dict[int, int] = {}
    for _ in range(400):
        drawn = resample(env.clone(), 1, rng).game
        assert drawn.wishes[1:] == [char(SKY), -1, -1]  # its own kept; none made
        assert drawn.wishes[0] != char(MAG)  # taken: never wished for
        seen[drawn.wishes[0]] = seen.get(drawn.wishes[0], 0) + 1
    assert sorted(seen) == [c.id for c in BOX.characters if c.name != MAG]
    assert min(seen.values()) >= 5 and max(seen.values()) <= 43  # 400/17 = 23.5 +- 4 sd
    assert env.game.wishes == [char(SPACE), char(SKY), -1, -1]  # the true state is untouched
    # the board is not dealt yet: nothing of it to redraw, and a drawn game deals its own
    drawn = resample(env.clone(), 1, rng)
    assert drawn.game.gym_at == [] and drawn.game.medal_stack == list(range(12))
    for agent, name in (
        ("player_2", "Sandboardzerka"),
        ("player_0", "Jetboardzerka"),
        ("player_1", "Wakeboardzerka"),
        ("player_2", "Snowboardzerka"),
    ):
        if drawn.agent_selection == agent and drawn.game.phase == env.game.phase:
            drawn.step(drawn.string_to_action(agent, f"wish {name}"))
    assert len(drawn.game.gym_at) in (0, 4) and not drawn.game.invariant_violations()


def test_too_few_characters_left_for_the_wishes_is_refused():
    # (the shipped box always has enough; a box file with few characters may not)
    from flockgym.envs.arena import setup

    g = new_game(ArenaConfig(num_players=3), seed=0)
    g.forms = [INVAZORZ, INVAZORZ, -1]
    last_invazorz = max(c.id for c in BOX.characters if c.invazorz)
    taken = {c.id for c in BOX.characters if c.id != last_invazorz and c.name != SKY}
    with pytest.raises(
        ValueError,
        match=r"3 players still need a character \(2 of them an "
        r"Invazorz, 0 an Astrobirdz\) but only 2 are left \(1 Invazorz\)",
    ):
        setup._enough_characters(g, taken)
    g.forms = [INVAZORZ, -1, -1]
    with pytest.raises(ValueError, match=r"3 players still need a character"):
        setup._enough_characters(g, taken)  # 3 seats, 2 characters
    setup._enough_characters(g, taken - {0})  # a third one left: enough
