"""Every row of every table with forced dice: the Nebula Slide (results 1-8,
with the re-rolls of results that cannot be done) and the 48 AstroPortal
rows (8 tables x d6 1-6).

The scenarios: player_0 (Skyboardzerka, an Astrobirdz) stands on space 0 and
rolls a 2 to land on the first AstroPortal (space 2); or stands on space 10
and rolls a 2 to end on the east Nebula Slide end (space 12). player_1 holds a
Zoominium Refinery card, so its turn waits for it before its movement roll:
``turn_over(g)`` says player_0's turn has ended.
"""

from __future__ import annotations

import pytest
from arena_helpers import BOX, act, card_id, game, held, legal, on_space, phase

from flockgym.envs.arena import challenges
from flockgym.envs.arena.data import ASTROBIRDZ, BERZERKERBIRDZ, FORMS, INVAZORZ
from flockgym.envs.arena.encounters import PORTAL_TABLES
from flockgym.envs.arena.rules import BOX as IN_BOX
from flockgym.envs.arena.rules import DISCARD, IN_STACK, ON_BOARD

PORTAL_FRONT, EXIT_OUT, EXIT_IN = 1, 6, 32
SLIDE_EAST, SLIDE_WEST = 12, 28


def start_form(kw) -> int:
    """player_0's form when the scenario starts (it sets the movement die)."""
    form = kw.get("forms", {}).get(0)
    if form is not None:
        return FORMS.index(form)
    name = (kw.get("characters") or ["Skyboardzerka"])[0]
    return INVAZORZ if BOX.characters[BOX.character_named[name.lower()]].invazorz else ASTROBIRDZ


def turn_over(g) -> bool:
    return g.actor == 1 and phase(g) == "pre_roll"


def to_portal(table: int, d6: int, extra: list[int] | None = None, **kw):
    """player_0 rolls 2 from space 0 onto the first portal, then the table's d8 and d6."""
    g = game(dice=[2, table, d6, *(extra or [])], **kw)
    if phase(g) == "move_spend":  # holding trophies: spend none on the move
        act(g, "spend 0")
    sides = BOX.movement_die[start_form(kw)]
    assert [r[1:] for r in g.roll_log[:3]] == [
        ["movement", sides, 2], ["astroportal", 8, table], [PORTAL_TABLES[table], 6, d6],
    ]  # fmt: skip
    assert g.last_encounter == [table, d6]
    return g


# ---- 1 Dangerous Asteroid Field ---------------------------------------------------


def asteroid_wipe_out(d6):
    g = to_portal(1, d6)
    assert g.positions[0] == EXIT_IN and g.upside_down[0] and g.lost_turns[0] == 1
    assert turn_over(g)
    # player_1 plays a turn; player_0's next turn is lost: board right side up, nothing else
    g.forced = [1]
    act(g, "roll")  # player_1 moves onto space 1
    act(g, "end")
    assert g.positions[0] == EXIT_IN and not g.upside_down[0] and g.lost_turns[0] == 0
    assert g.actor == 1 and g.rounds == 2  # player_0's lost turn passed by itself


def asteroid_discard(d6):
    g = to_portal(1, d6, cards={0: ["Kickflip Kaboom", "Riptide Roll"]})
    assert g.positions[0] == EXIT_OUT
    assert legal(g) == ["pick Kickflip Kaboom", "pick Riptide Roll"]
    act(g, "pick Riptide Roll")
    assert held(g, 0) == ["Kickflip Kaboom"]
    assert g.card_holder[card_id("Riptide Roll")] == DISCARD
    assert turn_over(g)
    # without a maneuver card there is nothing to discard
    g = to_portal(1, d6)
    assert g.positions[0] == EXIT_OUT and turn_over(g)


def asteroid_through(d6):
    g = to_portal(1, d6)
    assert g.positions[0] == EXIT_OUT and not g.upside_down[0] and turn_over(g)


# ---- 2 Nova Debris Field -------------------------------------------------------------


def nova_berzerk(d6):
    g = to_portal(2, d6)
    assert g.forms[0] == BERZERKERBIRDZ and g.positions[0] == EXIT_OUT and turn_over(g)
    # an Invazorz may turn a Berzerkerbirdz back into an Astrobirdz, or not
    g = to_portal(2, d6, characters=["Mecha-Invazorz Gearlord Kranx", "Skyboardzerka"],
                  forms={1: "berzerkerbirdz"})  # fmt: skip
    assert g.forms[0] == INVAZORZ and legal(g) == ["end", "player_1"]
    act(g, "player_1")
    assert g.forms[1] == ASTROBIRDZ and g.positions[0] == EXIT_OUT
    g = to_portal(2, d6, characters=["Mecha-Invazorz Gearlord Kranx", "Skyboardzerka"],
                  forms={1: "berzerkerbirdz"})  # fmt: skip
    act(g, "end")
    assert g.forms[1] == BERZERKERBIRDZ
    # a Berzerkerbirdz stays one
    g = to_portal(2, d6, forms={0: "berzerkerbirdz"})
    assert g.forms[0] == BERZERKERBIRDZ and turn_over(g)


def nova_trophy(d6):
    g = to_portal(2, d6)
    supply = g.supply
    assert g.trophies[0] == 1 and g.supply == supply  # taken before the check
    assert g.positions[0] == EXIT_OUT and turn_over(g)


def nova_gym(d6):
    g = to_portal(2, d6)
    assert legal(g) == ["to 0", "to 8", "to 16", "to 24"]
    act(g, "to 16")
    assert legal(g) == ["train", "end"]
    act(g, "train")
    assert g.positions[0] == 16 and g.powers[0][BOX.gym_named["fortress dome"]] == 1
    assert g.trophies[0] == 0 and turn_over(g)  # sent there: no trophy for moving onto it
    g = to_portal(2, d6)
    act(g, "to 24")
    act(g, "end")
    assert g.powers[0][BOX.gym_named["speed ring"]] == 0 and turn_over(g)


# ---- 3 Black Hole Navigation Problem ---------------------------------------------------


def black_hole_inside(d6):
    g = to_portal(3, d6)
    assert legal(g) == [f"to {s}" for s in BOX.inside_spaces]
    act(g, "to 44")
    assert g.positions[0] == 44 and turn_over(g)  # a world needs 4 maneuvers: nothing to do
    g = to_portal(
        3, d6, cards={0: ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]}
    )
    act(g, "to 44")
    assert legal(g) == [f"challenge world {on_space(g, 44)}", "end"]


def black_hole_pulled_in(d6):
    g = to_portal(3, d6)
    assert g.positions[0] == EXIT_IN and g.upside_down[0] and g.lost_turns[0] == 1
    assert turn_over(g)


def black_hole_world(d6):
    g = to_portal(3, d6)
    worlds = sorted(on_space(g, s) for s in BOX.world_spaces)
    assert sorted(legal(g)) == sorted(f"pick {w}" for w in worlds)
    space = g.card_space[card_id("Hoverion")] if "Hoverion" in worlds else None
    name = "Hoverion" if space is not None else worlds[0]
    space = g.card_space[card_id(name)]
    top = g.medal_stack[0]
    act(g, f"pick {name}")
    assert held(g, 0) == [name]
    assert g.space_item[space] == BOX.num_cards + top and g.medal_holder[top] == ON_BOARD
    assert legal(g) == [f"to {s}" for s in BOX.inside_spaces]
    act(g, "to 40")
    assert g.positions[0] == 40 and turn_over(g)


# ---- 4 Dark Matter Field ------------------------------------------------------------------


def dark_matter_self(d6):
    g = to_portal(4, d6)
    assert g.dark[0] == 2 and g.positions[0] == EXIT_OUT and turn_over(g)
    # player_0's next turn: its movement die of 5 reads 2
    g.forced = [1, 5]
    act(g, "roll")  # player_1 moves onto space 1
    act(g, "end")
    assert g.turn_seat == 0 and g.roll_log[-1][1:] == ["movement", 6, 5]
    assert g.move_total == 2 and g.dark[0] == 2
    acts = ["to 7"]  # from the fork at space 6, 2 steps: 7, then the gym on 8
    act(g, acts[0])
    assert g.positions[0] == 8 and legal(g) == ["train", "end"]
    act(g, "end")
    assert g.dark[0] == 1  # one of its two turns is over


def dark_matter_other(d6):
    g = to_portal(4, d6, players=3)
    assert legal(g) == ["player_1", "player_2"]
    act(g, "player_1")
    assert (
        g.dark[1] == 2
        and g.dark[0] == 0
        and g.dark[2] == 0
        and g.positions[0] == EXIT_OUT
        and turn_over(g)
    )


def dark_matter_maneuver(d6):
    g = to_portal(4, d6)
    maneuvers = sorted(on_space(g, s) for s in BOX.maneuver_spaces)
    assert sorted(legal(g)) == sorted(f"pick {m}" for m in maneuvers)
    act(g, f"pick {maneuvers[0]}")
    assert held(g, 0) == [maneuvers[0]] and g.positions[0] == EXIT_OUT and turn_over(g)


# ---- 5 Wormhole Bonus -----------------------------------------------------------------------


def wormhole_anywhere(d6):
    g = to_portal(5, d6)
    assert legal(g) == [f"to {s}" for s in range(BOX.num_spaces)]
    act(g, "to 9")
    card = on_space(g, 9)
    assert g.positions[0] == 9 and legal(g) == [f"challenge maneuver {card}", "end"]


def wormhole_other_player(d6):
    g = to_portal(5, d6, players=3)
    assert legal(g) == ["player_1", "player_2"]
    act(g, "player_1")
    assert legal(g) == [f"place {s}" for s in range(BOX.num_spaces)]
    act(g, "place 20")
    assert g.positions == [EXIT_OUT, 20, 0] and turn_over(g)


def wormhole_inside(d6):
    g = to_portal(
        5, d6, cards={0: ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]}
    )
    assert legal(g) == [f"to {s}" for s in BOX.inside_spaces]
    act(g, "to 46")
    assert g.positions[0] == 46 and legal(g) == [f"challenge world {on_space(g, 46)}", "end"]


# ---- 6 Star Cluster Field ----------------------------------------------------------------------


def star_cluster_transform(d6):
    g = to_portal(6, d6, players=3)
    invazorz = [c.name for c in BOX.characters if c.invazorz]
    assert legal(g) == [f"become {name}" for name in invazorz]
    act(g, "become Mecha-Invazorz Destructarian Graptarg")
    assert BOX.characters[g.characters[0]].name == "Mecha-Invazorz Destructarian Graptarg"
    assert g.forms[0] == INVAZORZ and g.positions[0] == EXIT_OUT and turn_over(g)
    # an Invazorz becomes a Berzerkerbirdz of a character nobody else uses
    vex = "Raptor-Invazorz Razorquill Vex"
    g = to_portal(6, d6, players=3, characters=[vex, "Skyboardzerka", "Snowboardzerka"])
    options = legal(g)
    astro = [c.name for c in BOX.characters if not c.invazorz]
    assert options == [f"become {n}" for n in astro if n not in ("Skyboardzerka", "Snowboardzerka")]
    act(g, "become Spaceboardzerka")
    assert g.forms[0] == BERZERKERBIRDZ
    assert BOX.characters[g.characters[0]].name == "Spaceboardzerka"


@pytest.mark.parametrize(("roll", "held_before", "lost"), [(1, 5, 1), (2, 5, 1), (3, 5, 2),
                         (4, 5, 2), (5, 5, 3), (6, 5, 3), (6, 2, 2), (6, 0, 0)])  # fmt: skip
def test_star_cluster_loses_trophies_by_a_d6(roll, held_before, lost):
    for d6 in (3, 4):
        g = to_portal(6, d6, [roll], trophies={0: held_before})
        assert g.trophies[0] == held_before - lost
        assert g.positions[0] == EXIT_OUT and turn_over(g)


def star_cluster_lose(d6):
    g = to_portal(6, d6, [4], trophies={0: 3})
    assert g.trophies[0] == 1 and turn_over(g)


def star_cluster_take(d6):
    g = to_portal(6, d6)
    supply = g.supply
    assert g.bonus_trophies[0] == 3 and g.trophies[0] == 0 and turn_over(g)
    # they add +2 each to player_0's next roll, then go back to the supply
    g.forced = [1, 1]
    act(g, "roll")  # player_1 moves onto space 1
    act(g, "end")
    # player_0 rolls a 1: +6 from the three trophies, which go back
    assert g.turn_seat == 0 and g.bonus_trophies[0] == 0 and g.supply == supply + 3
    assert g.move_total == 1 + 6


# ---- 7 Space-Time Distortion -----------------------------------------------------------------


def space_time_again(d6):
    g = to_portal(7, d6, [5])
    # back to the space in front of the portals (1), and a new movement roll: 1 + 5 = 6
    assert g.positions[0] == EXIT_OUT
    assert [r[1:] for r in g.roll_log][3:] == [["movement", 6, 5]]
    assert turn_over(g)


def space_time_challenge(d6):
    g = to_portal(7, d6, positions={0: 0, 1: 30}, cards={1: ["Kickflip Kaboom", "Hoverion"]})
    # one player: chosen by itself; player_0 moves onto it and must challenge it
    assert g.positions[0] == 30 and phase(g) == "action"
    assert legal(g) == [
        "challenge player_1 maneuver Kickflip Kaboom", "challenge player_1 world Hoverion",
    ]  # fmt: skip
    # nobody to challenge: moved onto a player, the turn is over
    g = to_portal(7, d6, positions={0: 0, 1: 30})
    assert g.positions[0] == 30 and turn_over(g)


def space_time_maneuver(d6):
    g = to_portal(7, d6)
    maneuvers = sorted(on_space(g, s) for s in BOX.maneuver_spaces)
    act(g, f"pick {maneuvers[-1]}")
    assert held(g, 0) == [maneuvers[-1]] and g.positions[0] == EXIT_IN and turn_over(g)


# ---- 8 Zoominium Bonus -----------------------------------------------------------------------


def zoominium_by_form(d6):
    g = to_portal(8, d6)
    assert g.forms[0] == BERZERKERBIRDZ and g.positions[0] == EXIT_OUT and turn_over(g)
    g = to_portal(8, d6, forms={0: "berzerkerbirdz"})
    assert legal(g) == [f"to {s}" for s in range(BOX.num_spaces)]
    act(g, "to 30")
    assert g.positions[0] == 30 and turn_over(g)
    g = to_portal(8, d6, characters=["Mecha-Invazorz Gearlord Kranx", "Skyboardzerka"])
    assert g.trophies[0] == 2 and g.positions[0] == EXIT_OUT and turn_over(g)


def zoominium_maneuver(d6):
    g = to_portal(8, d6)
    maneuvers = sorted(on_space(g, s) for s in BOX.maneuver_spaces)
    act(g, f"pick {maneuvers[1]}")
    assert held(g, 0) == [maneuvers[1]] and g.positions[0] == EXIT_IN and turn_over(g)


def zoominium_world(d6):
    g = to_portal(8, d6)
    worlds = sorted(on_space(g, s) for s in BOX.world_spaces)
    act(g, f"pick {worlds[2]}")
    assert held(g, 0) == [worlds[2]] and g.positions[0] == EXIT_IN and turn_over(g)


ROWS = {
    (1, 1): asteroid_wipe_out, (1, 2): asteroid_discard, (1, 3): asteroid_through,
    (2, 1): nova_berzerk, (2, 2): nova_trophy, (2, 3): nova_gym,
    (3, 1): black_hole_inside, (3, 2): black_hole_pulled_in, (3, 3): black_hole_world,
    (4, 1): dark_matter_self, (4, 2): dark_matter_other, (4, 3): dark_matter_maneuver,
    (5, 1): wormhole_anywhere, (5, 2): wormhole_other_player, (5, 3): wormhole_inside,
    (6, 1): star_cluster_transform, (6, 2): star_cluster_lose, (6, 3): star_cluster_take,
    (7, 1): space_time_again, (7, 2): space_time_challenge, (7, 3): space_time_maneuver,
    (8, 1): zoominium_by_form, (8, 2): zoominium_maneuver, (8, 3): zoominium_world,
}  # fmt: skip


@pytest.mark.parametrize(
    ("table", "d6"), [(t, d) for t in range(1, 9) for d in range(1, 7)],
    ids=[f"table{t}-d6_{d}" for t in range(1, 9) for d in range(1, 7)],
)  # fmt: skip
def test_astroportal_row(table, d6):
    ROWS[(table, (d6 + 1) // 2)](d6)


def test_astroportal_only_where_the_move_ends():
    g = game(dice=[6])  # from 0 over the four portals to space 6
    assert g.positions[0] == EXIT_OUT and g.last_encounter == [] and turn_over(g)


# ---- the Nebula Slide --------------------------------------------------------------------------


def to_slide(results: list[int], move: int = 2, **kw):
    """player_0 rolls ``move`` onto the east slide end (from space 10, or as
    placed) and goes through."""
    kw.setdefault("positions", {0: 10, 1: 0})
    g = game(dice=[move, *results], **kw)
    if phase(g) == "move_spend":
        act(g, "spend 0")
    assert g.positions[0] == SLIDE_EAST and legal(g) == ["slide", "stay"]
    act(g, "slide")
    return g


def test_slide_is_a_choice_at_either_end_and_stay_ends_the_move_there():
    g = game(dice=[2], positions={0: 10, 1: 0})
    act(g, "stay")
    assert g.positions[0] == SLIDE_EAST and g.roll_log[-1][1] == "movement" and turn_over(g)
    # passing over a slide end with steps left: go through, or move on
    g = game(dice=[3], positions={0: 10, 1: 0})
    assert legal(g) == ["to 13", "slide"]
    act(g, "to 13")
    assert g.positions[0] == 13
    g = game(dice=[3], positions={0: 26, 1: 0})
    assert legal(g) == ["to 29", "slide"]
    act(g, "slide")
    assert g.positions[0] == SLIDE_EAST  # west end to east end


def test_slide_1_loses_a_maneuver_onto_a_space_of_choice():
    g = game(dice=[2], positions={0: 10, 1: 0}, cards={0: ["Kickflip Kaboom", "Thruster Twist"]})
    for space in (14, 19):  # two empty maneuver spaces
        g._set_card(g.space_item[space], IN_BOX)
    g.forced = [1]
    act(g, "slide")
    assert g.positions[0] == SLIDE_WEST and g.last_encounter == [0, 1]
    assert legal(g) == ["pick Kickflip Kaboom", "pick Thruster Twist"]
    act(g, "pick Thruster Twist")
    assert legal(g) == ["place 14", "place 19"]
    act(g, "place 19")
    assert on_space(g, 19) == "Thruster Twist" and held(g, 0) == ["Kickflip Kaboom"]
    assert turn_over(g)


def test_slide_1_frees_a_medal_card_space_when_no_space_is_empty():
    g = game(dice=[2], positions={0: 10, 1: 0}, cards={0: ["Kickflip Kaboom"]})
    # space 14 holds a medal card: the only place the maneuver can go
    g._set_card(g.space_item[14], IN_BOX)
    challenges.fill_space(g, 14)
    medal = g.space_item[14] - BOX.num_cards
    g.forced = [1]
    act(g, "slide")  # one card, one space: taken by itself
    assert on_space(g, 14) == "Kickflip Kaboom"
    assert g.medal_holder[medal] == IN_STACK and g.medal_stack[-1] == medal
    assert held(g, 0) == [] and turn_over(g)


def test_slide_2_loses_a_world():
    g = game(dice=[2], positions={0: 10, 1: 0}, cards={0: ["Hoverion"]})
    g._set_card(g.space_item[45], IN_BOX)
    g.forced = [2]
    act(g, "slide")
    assert on_space(g, 45) == "Hoverion" and held(g, 0) == [] and turn_over(g)


def test_slide_3_loses_a_trophy():
    g = to_slide([3], trophies={0: 2})
    assert g.trophies[0] == 1 and g.positions[0] == SLIDE_WEST and turn_over(g)


def test_slide_4_takes_a_trophy_from_another_player():
    g = game(3, dice=[2], positions={0: 10, 1: 0, 2: 0}, trophies={1: 2, 2: 1})
    g.forced = [4]
    act(g, "slide")
    assert legal(g) == ["player_1", "player_2"]
    act(g, "player_2")
    assert g.trophies == [1, 2, 0]


def test_slide_5_takes_a_world_from_another_player():
    g = to_slide([5], cards={1: ["Hoverion", "Kickflip Kaboom"]})
    assert held(g, 0) == ["Hoverion"] and held(g, 1) == ["Kickflip Kaboom"] and turn_over(g)


def test_slide_6_goes_anywhere_and_takes_a_new_turn():
    g = to_slide([6])
    assert legal(g) == [f"to {s}" for s in range(BOX.num_spaces)]
    g.forced = [3]
    act(g, "to 40")
    # the new turn: a movement roll of 3 from space 40 (inner loop: 41 forks at entrance B)
    assert g.move_total == 3 and g.turn_seat == 0 and g.new_turns == 1
    assert g.positions[0] == 41 and legal(g) == ["to 33", "to 42"]


def test_slide_7_gold_medal():
    g = to_slide([7], forms={0: "berzerkerbirdz"})
    assert g.medals[0] == [0, 0, 1] and g.medal_supply == [6, 6, 5] and turn_over(g)


def test_slide_8_gym_of_choice_gives_a_trophy_and_a_gym_card():
    g = to_slide([8], forms={0: "berzerkerbirdz"})
    assert legal(g) == ["to 0", "to 8", "to 16", "to 24"]
    act(g, "to 8")
    assert g.positions[0] == 8 and g.trophies[0] == 1 and g.gym_trophies[1] == 4
    assert g.powers[0][BOX.gym_named["halfpipe hall"]] == 1 and turn_over(g)


def test_slide_rerolls_until_a_result_can_be_done():
    # no maneuver, no world, no trophy, nobody has one: 1-5 cannot be done; 6 can
    g = to_slide([1, 2, 3, 4, 5, 6])
    slide_rolls = [r[3] for r in g.roll_log if r[1] == "nebula slide"]
    assert slide_rolls == [1, 2, 3, 4, 5, 6] and g.last_encounter == [0, 6]
    assert legal(g) == [f"to {s}" for s in range(BOX.num_spaces)]


def test_slide_rerolls_a_gold_medal_already_held():
    # (with gold, the movement 4 reads 4: from space 8 onto the slide end)
    g = to_slide([7, 3], move=4, positions={0: 8, 1: 0}, forms={0: "berzerkerbirdz"},
                 medals={0: ["gold"]}, trophies={0: 1})  # fmt: skip
    assert [r[3] for r in g.roll_log if r[1] == "nebula slide"] == [7, 3]
    assert g.trophies[0] == 0 and turn_over(g)


def test_slide_die_is_d6_for_astrobirdz_and_d8_otherwise():
    with pytest.raises(ValueError, match=r"is a d6, which cannot show the forced result 7"):
        to_slide([7])
    g = to_slide([8], characters=["Mecha-Invazorz Gearlord Kranx", "Skyboardzerka"])
    assert g.roll_log[-1][2] == 8


def test_not_sliding_keeps_the_gold_check_honest():
    g = to_slide([7], forms={0: "berzerkerbirdz"})
    assert g.medals[0][2] == 1
    assert g.medal_holder.count(ON_BOARD) == 0
