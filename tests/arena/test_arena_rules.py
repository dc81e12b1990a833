"""The Arena rules, each with forced dice: setup, the first turn, movement
(forks, gym trophies, stopping to challenge, trophies after the roll),
training and gym powers, medal dice, every challenge kind, the medals' dice
readings, transformation both ways, dark matter, lost turns and every
victory condition.

Default scenario (see arena_helpers.game): two players, Skyboardzerka
(player_0) and Sandboardzerka (player_1), on space 0 unless placed, a later
turn, player_0 first, no trophies; player_1 holds a Zoominium Refinery card
so its turn waits before its roll (``turn_over``)."""

from __future__ import annotations

import pytest
from arena_helpers import (
    BOX,
    act,
    acts,
    card_id,
    game,
    gym_id,
    held,
    legal,
    medal_card_id,
    on_space,
    phase,
)

from flockgym.envs.arena import challenges, setup
from flockgym.envs.arena.data import ASTROBIRDZ, BERZERKERBIRDZ
from flockgym.envs.arena.dice import chance_at_least, reading_table
from flockgym.envs.arena.rules import (
    IN_STACK,
    ArenaConfig,
    ForcedDiceError,
    Scenario,
    new_game,
)

CRYO = "Spacefreeze Cryo Blast"  # Snowboardzerka 13, challenge 15


def turn_over(g) -> bool:
    return g.actor == 1 and phase(g) == "pre_roll"


def at_maneuver(dice, card=CRYO, **kw):
    """player_0 rolls 2 from space 9 onto space 11, where ``card`` lies."""
    kw.setdefault("positions", {0: 9, 1: 0})
    g = game(dice=[2, *dice], board={11: card}, **kw)
    if phase(g) == "pre_roll":
        act(g, "roll")
    if phase(g) == "move_spend":
        act(g, "spend 0")
    assert g.positions[0] == 11
    return g


# ---- setup ---------------------------------------------------------------------------


def test_setup_counts():
    g = new_game(ArenaConfig(num_players=4), seed=3)
    assert g.trophies == [2, 2, 2, 2] and g.gym_trophies == [5, 5, 5, 5]
    assert g.supply == 40 - 8 - 20
    # the board is dealt after the characters: nothing on it while they are wished for
    assert g.gym_at == [] and g.gym_cards == [0] * 8 and g.space_item == [-1] * BOX.num_spaces
    assert g.card_holder == [-2] * BOX.num_cards and g.medal_stack == list(range(12))
    assert g.characters == [-1] * 4
    # setup step 3: each player wishes for a character, player_0 first
    assert phase(g) == "wish" and g.actor == 0 and len(legal(g)) == BOX.num_characters
    acts(g, "wish Spaceboardzerka", "wish Skyboardzerka", "wish Magboardzerka",
         "wish Hoverboardzerka")  # fmt: skip
    assert len(set(g.characters)) == 4 and not any(r[1].startswith("character") for r in g.roll_log)
    # steps 7-9: the gyms, the world and maneuver cards and the medal stack, dealt now
    assert sorted(g.gym_cards) == [0, 0, 0, 0, 2, 2, 2, 2]
    assert all(g.gym_cards[gym] == 2 for gym in g.gym_at) and len(g.gym_at) == 4
    assert all(0 <= g.space_item[s] < BOX.num_maneuvers for s in BOX.maneuver_spaces)
    assert all(BOX.num_maneuvers <= g.space_item[s] < BOX.num_cards for s in BOX.world_spaces)
    assert g.card_holder.count(-2) == 30 - 20 + 20 - 12  # the rest stay in the box
    assert sorted(g.medal_stack) == list(range(12)) and g.medal_stack != list(range(12))
    # setup step 12: each player picks a starting corner, player_0 first
    assert phase(g) == "corner" and g.actor == 0
    assert legal(g) == ["corner 1", "corner 2", "corner 3", "corner 4"]


def test_corners_then_the_first_player_roll_with_re_rolled_ties():
    g = new_game(ArenaConfig(num_players=3), seed=1, characters={0: 0, 1: 1, 2: 2})
    g.forced = [4, 6, 6, 2, 5]
    acts(g, "corner 2", "corner 2", "corner 4")
    assert g.start_corner == [8, 8, 24] and g.positions[:2] == [8, 8]
    first = [r[3] for r in g.roll_log if r[1] == "first player"]
    assert first == [4, 6, 6, 2, 5] and g.first_player == 2 and g.turn_seat == 2


def test_character_clashes_are_rolled_off_highest_picks():
    g = game(3)
    g.forced = [3, 5, 5, 1, 4]
    assert setup.roll_off(g, [0, 1, 2], "character") == 2
    # (the wishes themselves: tests/arena/test_arena_wishes.py)


def test_first_turn_is_one_d6_even_for_berzerkerbirdz_with_nothing_spent():
    g = game(turn=1, forms={0: "berzerkerbirdz"}, trophies={0: 2}, positions={0: 17, 1: 16},
             characters=["Hoverboardzerka", "Sandboardzerka"], dice=[3])  # fmt: skip
    # no spending, no Hoverboardzerka movement bonus: exactly 3 spaces
    assert g.roll_log[0][1:] == ["movement", 6, 3] and g.positions[0] == 20
    assert phase(g) == "action" and g.trophies[0] == 2
    with pytest.raises(ForcedDiceError, match=r"roll 1 \(player_0, movement\) is a d6"):
        game(turn=1, forms={0: "berzerkerbirdz"}, dice=[7])


def test_first_turn_cannot_train_at_the_starting_gym():
    g = game(turn=1, positions={0: 0, 1: 0}, trophies={0: 0})
    g.positions[0], g.start_corner[0] = 8, 8
    challenges.begin_action(g)
    g._settle()
    assert turn_over(g)  # the only action would have been to train there
    g = game(positions={0: 0, 1: 0})
    g.positions[0], g.start_corner[0] = 8, 8
    challenges.begin_action(g)
    g._settle()
    assert legal(g) == ["train", "end"]


# ---- movement -------------------------------------------------------------------------


def test_fork_choices_at_the_entrances():
    g = game(dice=[3], positions={0: 5, 1: 0})
    assert g.positions[0] == 6 and legal(g) == ["to 7", "to 32"]
    act(g, "to 32")
    assert legal(g) == ["to 6", "to 34"]  # space 2: out to 1 or in to 4
    act(g, "to 34")
    assert g.positions[0] == 34 and turn_over(g)
    g = game(dice=[2], positions={0: 48, 1: 0})
    assert g.positions[0] == 49 and legal(g) == ["to 32", "to 34"]  # space 3: to 4 or to 2


def test_the_full_total_is_moved():
    g = game(dice=[5], positions={0: 17, 1: 0})
    assert g.positions[0] == 22 and turn_over(g)  # no way to stop short


def test_trophies_spent_after_seeing_the_roll():
    g = game(dice=[1], positions={0: 17, 1: 0}, trophies={0: 3})
    assert phase(g) == "move_spend" and g.move_total == 1
    assert legal(g) == ["spend 0", "spend 1", "spend 2", "spend 3"]
    act(g, "spend 2")
    assert g.positions[0] == 22 and g.trophies[0] == 1 and g.supply == 40 - 3 - 20 + 2


def test_gym_trophies_moved_onto_or_past_while_any_are_left():
    g = game(dice=[3], positions={0: 7, 1: 0})
    assert g.positions[0] == 10 and g.trophies[0] == 1 and g.gym_trophies[1] == 4
    g = game(dice=[3], positions={0: 7, 1: 0}, characters=["Sandboardzerka", "Skyboardzerka"])
    assert g.trophies[0] == 2 and g.gym_trophies[1] == 3  # Sandboardzerka's bonus
    g = game(trophies={0: 1}, positions={0: 7, 1: 0}, dice=[3])
    g.gym_trophies[1] = 0  # (its last trophy was taken)
    act(g, "spend 0")
    assert g.positions[0] == 10 and g.trophies[0] == 1


def test_movement_bonus_of_the_character():
    g = game(dice=[2], positions={0: 17, 1: 0}, characters=["Jetboardzerka", "Skyboardzerka"])
    assert g.positions[0] == 21  # 2 + Jetboardzerka's 2


def test_stop_on_a_player_to_challenge_them():
    g = game(dice=[4], positions={0: 7, 1: 9}, cards={1: ["Kickflip Kaboom"]})
    assert g.positions[0] == 9 and legal(g) == ["to 10", "stop"]
    act(g, "stop")
    # the only action left after stopping: challenge player_1 (taken by itself), who
    # defends (player_0 took a trophy at the gym: it decides what to spend first)
    assert phase(g) == "challenge_spend" and g.ch_defender == 1
    assert g.ch_item == card_id("Kickflip Kaboom") and g.ch_kind == "standard"
    # a player with no card cannot be challenged: no stop
    g = game(dice=[4], positions={0: 7, 1: 9})
    assert g.positions[0] == 11


# ---- training and gym powers --------------------------------------------------------------


def test_train_takes_a_gym_power_card_if_one_is_left():
    g = game(dice=[1], positions={0: 7, 1: 0})
    assert legal(g) == ["train", "end"]
    act(g, "train")
    assert g.powers[0][gym_id("Halfpipe Hall")] == 1 and g.gym_cards[gym_id("Halfpipe Hall")] == 1
    g = game(dice=[1], positions={0: 7, 1: 0})
    g.gym_cards[gym_id("Halfpipe Hall")] = 0
    assert legal(g) == ["train", "end"]  # (state changed after the options were asked)
    g._legal = None
    assert legal(g) == ["end"]


def test_zoominium_gym_power_turns_astrobirdz_into_berzerkerbirdz_before_the_roll():
    g = game(gym_powers={0: ["Zoominium Refinery"]}, positions={0: 17, 1: 0}, dice=[7])
    assert phase(g) == "pre_roll" and legal(g) == ["roll", "use Zoominium Refinery"]
    act(g, "use Zoominium Refinery")  # then only "roll" is left: it happens by itself
    assert g.forms[0] == BERZERKERBIRDZ and g.gym_cards[gym_id("Zoominium Refinery")] == 1
    assert g.roll_log[-1][1:] == ["movement", 8, 7] and g.positions[0] == 22  # B1: a fork


def test_speed_ring_adds_to_the_movement_after_the_roll():
    g = game(gym_powers={0: ["Speed Ring"]}, positions={0: 17, 1: 0}, dice=[1])
    assert phase(g) == "move_spend" and legal(g) == ["spend 0", "use Speed Ring"]
    act(g, "use Speed Ring")  # then only "spend 0" is left
    assert g.positions[0] == 22 and g.powers[0][gym_id("Speed Ring")] == 0


def test_halfpipe_hall_adds_4_to_a_challenge_and_goes_back_to_its_gym():
    g = at_maneuver([3, 3, 3, 2], gym_powers={0: ["Halfpipe Hall"]})
    act(g, f"challenge maneuver {CRYO}")
    assert legal(g) == ["spend 0", "use Halfpipe Hall"]
    act(g, "use Halfpipe Hall")
    assert g.last_challenge["total"] == 11 + 4 and g.last_challenge["success"]
    assert g.gym_cards[gym_id("Halfpipe Hall")] == 2


def test_gravity_dojo_reads_one_roll_as_with_gold_and_launch_tower_adds_a_die():
    gyms = ["Zoominium Refinery", "Gravity Dojo", "Launch Tower", "Trophy Vault"]
    g = at_maneuver([1, 1, 2, 3], gyms=gyms, gym_powers={0: ["Gravity Dojo"]})
    acts(g, f"challenge maneuver {CRYO}", "use Gravity Dojo")
    assert g.last_challenge["dice"] == [4, 4, 4, 4] and g.last_challenge["success"]
    g = at_maneuver([3, 3, 3, 3, 3], gyms=gyms, gym_powers={0: ["Launch Tower"]})
    acts(g, f"challenge maneuver {CRYO}", "use Launch Tower")
    assert len(g.last_challenge["dice"]) == 5 and g.last_challenge["total"] == 15
    g = at_maneuver([], gyms=gyms, gym_powers={0: ["Trophy Vault"]})
    act(g, f"challenge maneuver {CRYO}")
    act(g, "use Trophy Vault")
    assert g.trophies[0] == 2 and legal(g) == ["spend 0", "spend 1", "spend 2"]


def test_fortress_dome_adds_4_to_a_defence():
    g = at_maneuver([4, 4, 4, 4, 4, 4, 4, 1], positions={0: 9, 1: 11},
                    cards={1: ["Kickflip Kaboom"]}, gym_powers={1: ["Fortress Dome"]})  # fmt: skip
    act(g, "challenge player_1 maneuver Kickflip Kaboom")
    assert g.actor == 1 and phase(g) == "defend_spend"
    assert legal(g) == ["spend 0", "use Zoominium Refinery", "use Fortress Dome"]
    act(g, "use Fortress Dome")  # (the Zoominium card is still usable: a choice)
    act(g, "spend 0")
    assert g.last_challenge["total"] == 16 and g.last_challenge["defender_total"] == 13 + 4
    assert held(g, 1) == ["Kickflip Kaboom"]


def test_medal_die_adds_a_die_then_goes_under_the_stack():
    g = at_maneuver([2, 2, 2, 3, 6], medal_cards={0: ["Stunt Die"]})
    act(g, f"challenge maneuver {CRYO}")
    assert legal(g) == ["spend 0", "add Stunt Die"]
    act(g, "add Stunt Die")
    assert g.last_challenge["dice"] == [2, 2, 2, 3, 6] and g.last_challenge["success"]
    stunt = medal_card_id("Stunt Die")
    assert g.medal_holder[stunt] == IN_STACK and g.medal_stack[-1] == stunt


def test_movement_medal_die_is_added_before_the_roll():
    g = game(medal_cards={0: ["Tailwind Die"]}, positions={0: 17, 1: 0}, dice=[1, 2])
    assert legal(g) == ["roll", "add Tailwind Die"]
    act(g, "add Tailwind Die")  # then the roll happens by itself: 1 + 2
    assert g.positions[0] == 20 and [r[3] for r in g.roll_log] == [1, 2]


# ---- board challenges --------------------------------------------------------------------


def test_challenge_for_a_maneuver_meets_favourite_plus_two():
    g = at_maneuver([4, 4, 4, 3])  # 15: Spacefreeze Cryo Blast's challenge number
    assert legal(g) == [f"challenge maneuver {CRYO}", "end"]
    top = g.medal_stack[0]
    act(g, f"challenge maneuver {CRYO}")
    assert g.last_challenge["need"] == 15 and g.last_challenge["success"]
    assert held(g, 0) == [CRYO] and g.space_item[11] == BOX.num_cards + top and turn_over(g)


def test_failed_maneuver_challenge_leaves_the_card():
    g = at_maneuver([4, 4, 4, 2])
    act(g, f"challenge maneuver {CRYO}")
    assert not g.last_challenge["success"] and on_space(g, 11) == CRYO and held(g, 0) == []


def test_trophies_spent_before_the_challenge_roll():
    g = at_maneuver([3, 3, 3, 4], trophies={0: 2})
    act(g, f"challenge maneuver {CRYO}")
    assert legal(g) == ["spend 0", "spend 1", "spend 2"]
    act(g, "spend 1")
    assert g.last_challenge["total"] == 13 + 2 and held(g, 0) == [CRYO] and g.trophies[0] == 1


def test_character_and_card_bonuses():
    # Snowboardzerka: +1 to maneuver challenges
    g = at_maneuver([4, 4, 4, 2], characters=["Snowboardzerka", "Sandboardzerka"])
    act(g, f"challenge maneuver {CRYO}")
    assert g.last_challenge["total"] == 15
    # Polar Vortex Spin (challenge 17) gives Berzerkerbirdz +2; d8 dice
    g = at_maneuver([4, 4, 4, 3], card="Polar Vortex Spin", forms={0: "berzerkerbirdz"})
    act(g, "challenge maneuver Polar Vortex Spin")
    assert g.last_challenge["total"] == 17 and g.last_challenge["success"]
    assert g.roll_log[-1][2] == 8


def test_world_challenge_needs_four_maneuvers():
    four = ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]
    # (three maneuvers give a bronze medal: the movement 2 reads 2)
    g = game(dice=[2], positions={0: 42, 1: 0}, board={44: "Hoverion"}, cards={0: four[:3]})
    assert g.positions[0] == 44 and turn_over(g)  # three maneuvers: no world challenge
    g = game(dice=[2, 3, 3, 3, 3], positions={0: 42, 1: 0}, board={44: "Hoverion"},
             cards={0: four})  # fmt: skip
    assert legal(g) == ["challenge world Hoverion", "end"]
    top = g.medal_stack[0]
    act(g, "challenge world Hoverion")
    assert g.last_challenge["need"] == 12 and held(g, 0) == sorted([*four, "Hoverion"])
    assert g.space_item[44] == BOX.num_cards + top  # the stack's top medal card takes its space
    assert top not in g.medal_stack


def test_world_challenge_option_printed_number():
    four = ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]
    for rule, success in (("offset", False), ("printed", True)):
        g = game(dice=[2, 3, 3, 2, 2], positions={0: 42, 1: 0}, board={44: "Hoverion"},
                 cards={0: four}, world_challenge=rule)  # fmt: skip
        act(g, "challenge world Hoverion")
        assert g.last_challenge["success"] is success


def medal_on_11(g):
    """Empty space 11 and give it the top medal card (as after a card was won there)."""
    from flockgym.envs.arena.rules import BOX as IN_BOX

    g._set_card(g.space_item[11], IN_BOX)
    challenges.fill_space(g, 11)
    g._legal = g._mask = None
    return g.space_item[11] - BOX.num_cards


@pytest.mark.parametrize(("dice", "spend", "success"), [
    ([1, 2, 3, 6], 0, True), ([5, 5, 5, 5], 0, False), ([4, 1, 1, 1], 1, True),
    ([3, 1, 1, 1], 1, False),
])  # fmt: skip
def test_medal_card_challenge_any_die_of_6(dice, spend, success):
    g = game(dice=[2], positions={0: 9, 1: 0}, trophies={0: 1},
             characters=["Sandboardzerka", "Skyboardzerka"])  # fmt: skip
    k = medal_on_11(g)
    act(g, "spend 0")
    assert legal(g) == ["challenge medal", "end"]
    g.forced = list(dice)
    act(g, "challenge medal")
    act(g, f"spend {spend}")
    assert g.last_challenge["success"] is success
    card = BOX.medal_cards[k]
    if success:
        assert g.space_item[11] == -1  # the space stays empty
        if card.trophy:
            assert g.medal_holder[k] == IN_STACK and g.trophies[0] == 1 - spend + card.trophy
        else:
            assert g.medal_holder[k] == 0
    else:
        assert g.space_item[11] == BOX.num_cards + k


# ---- player challenges ----------------------------------------------------------------------


def test_homeworld_challenge_needs_the_worlds_number():
    g = game(dice=[1, 3, 3, 2, 2], positions={0: 10, 1: 12}, cards={1: ["Hoverion"]},
             characters=["Hoverboardzerka", "Sandboardzerka"])  # fmt: skip
    # 1 + Hoverboardzerka's movement bonus: onto player_1 on the slide end
    act(g, "stay")
    act(g, "challenge player_1 world Hoverion")
    assert g.last_challenge["kind"] == "homeworld" and g.last_challenge["need"] == 10
    assert held(g, 0) == ["Hoverion"] and held(g, 1) == []


def test_favourite_trick_challenge_needs_the_favourite_number():
    g = game(dice=[2, 3, 3, 3, 3], positions={0: 9, 1: 11}, cards={1: [CRYO]},
             characters=["Snowboardzerka", "Sandboardzerka"])  # fmt: skip
    act(g, f"challenge player_1 maneuver {CRYO}")
    # 12 + Snowboardzerka's maneuver bonus does not count (a player challenge): 12 < 13
    assert g.last_challenge["kind"] == "favourite" and g.last_challenge["need"] == 13
    assert not g.last_challenge["success"] and held(g, 1) == [CRYO]


def standard(dice, **kw):
    kw.setdefault("cards", {1: ["Tidewell", "Kickflip Kaboom"]})
    g = game(dice=[2, *dice], positions={0: 9, 1: 11}, **kw)
    act(g, "challenge player_1 world Tidewell")
    assert g.actor == 1 and phase(g) == "defend_spend"
    return g


def test_standard_challenge_challenger_must_roll_higher():
    g = standard([5, 4, 4, 4, 4, 4, 4, 4])
    act(g, "spend 0")
    assert g.last_challenge["total"] == 17 and g.last_challenge["defender_total"] == 16
    assert held(g, 0) == ["Tidewell"] and turn_over(g)


def test_standard_challenge_tie_keeps_and_permanently_defends_the_world():
    g = standard([4, 4, 4, 4, 4, 4, 4, 4])
    act(g, "spend 0")
    assert not g.last_challenge["success"] and held(g, 1) == ["Kickflip Kaboom", "Tidewell"]
    tidewell = card_id("Tidewell")
    assert g.defended[tidewell] == 1
    assert challenges.challengeable_cards(g, 1) == [card_id("Kickflip Kaboom")]  # never again


def test_defender_spends_trophies_before_the_roll():
    g = standard([5, 4, 4, 4, 4, 4, 4, 4], trophies={1: 3})
    assert legal(g) == ["spend 0", "spend 1", "spend 2", "spend 3", "use Zoominium Refinery"]
    act(g, "spend 1")
    assert g.last_challenge["defender_total"] == 18 and held(g, 0) == []


def test_a_player_with_nothing_left_to_take_cannot_be_challenged():
    g = game(dice=[2], positions={0: 9, 1: 11}, cards={1: ["Tidewell"]})
    g.defended[card_id("Tidewell")] = 1
    g._legal = None
    assert not challenges.challengeable(g, 1)


# ---- medals and dice readings -------------------------------------------------------------------


def medal_then_challenge(medal, dice, dark=False, **kw):
    """player_0 moves 2 onto Spacefreeze Cryo Blast (pausing to spend its one
    trophy), then gains ``medal`` (and dark matter), then challenges with ``dice``."""
    g = game(dice=[2, *dice], positions={0: 9, 1: 0}, board={11: CRYO}, trophies={0: 1}, **kw)
    if medal:
        challenges.award_medal(g, 0, ("bronze", "silver", "gold").index(medal))
    if dark:
        g.dark[0] = 2
    acts(g, "spend 0", f"challenge maneuver {CRYO}", "spend 0")
    return g


@pytest.mark.parametrize(("medal", "dice", "total"), [
    (None, [1, 1, 2, 3], 7), ("bronze", [1, 1, 2, 3], 9), ("silver", [1, 1, 2, 3], 12),
    ("gold", [1, 1, 2, 3], 16), ("gold", [5, 6, 1, 2], 19),
])  # fmt: skip
def test_medal_dice_readings(medal, dice, total):
    g = medal_then_challenge(medal, dice)
    assert g.last_challenge["total"] == total


def test_reading_tables():
    assert reading_table(BOX, 6, 1) == (0, 2, 2, 3, 4, 5, 6)
    assert reading_table(BOX, 6, 2) == (0, 3, 3, 3, 4, 5, 6)
    assert reading_table(BOX, 8, 3) == (0, 4, 4, 4, 4, 5, 6, 7, 8)
    assert chance_at_least(BOX, 16, 6, 4, 3) == 1.0


def test_medals_at_three_five_seven_maneuvers_and_kept_when_cards_are_lost():
    names = [c.name for c in BOX.cards[:7]]
    for count, medals in ((2, [0, 0, 0]), (3, [1, 0, 0]), (5, [1, 1, 0]), (7, [1, 1, 1])):
        g = game(cards={0: names[:count]})
        assert g.medals[0] == medals
    g = at_maneuver([4, 4, 4, 3], cards={0: ["Kickflip Kaboom", "Riptide Roll"]})
    act(g, f"challenge maneuver {CRYO}")
    assert g.medals[0] == [1, 0, 0] and g.medal_supply == [5, 6, 6]
    from flockgym.envs.arena.rules import DISCARD

    g._set_card(card_id("Riptide Roll"), DISCARD)
    assert g.medals[0] == [1, 0, 0]


# ---- transformation --------------------------------------------------------------------------


@pytest.mark.parametrize(("roll", "form"), [(6, BERZERKERBIRDZ), (5, ASTROBIRDZ), (1, ASTROBIRDZ)])
def test_odd_maneuver_count_rolls_for_the_transformation(roll, form):
    g = at_maneuver([4, 4, 4, 3, roll], cards={0: ["Kickflip Kaboom", "Riptide Roll"]})
    act(g, f"challenge maneuver {CRYO}")
    assert g.roll_log[-1][1:] == ["transformation", 6, roll] and g.forms[0] == form


def test_even_count_or_berzerkerbirdz_rolls_nothing():
    three = ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix"]
    g = at_maneuver([4, 4, 4, 3], cards={0: three})
    act(g, f"challenge maneuver {CRYO}")
    assert g.roll_log[-1][1] != "transformation" and g.forms[0] == ASTROBIRDZ
    g = at_maneuver([4, 4, 4, 3, 3], cards={0: three[:2]}, forms={0: "berzerkerbirdz"})
    act(g, f"challenge maneuver {CRYO}")
    assert g.roll_log[-1][1] != "transformation"


# ---- dark matter ---------------------------------------------------------------------------


def test_dark_matter_dice_read_2_whatever_the_medals():
    g = medal_then_challenge("gold", [6, 6, 6, 6], dark=True)
    assert g.last_challenge["dice"] == [2, 2, 2, 2]
    g = medal_then_challenge("gold", [6, 6, 6, 6], dark=True, dark_matter="medals")
    assert g.last_challenge["dice"] == [4, 4, 4, 4]


def test_dark_matter_lasts_two_of_the_players_turns():
    g = game(dice=[1], positions={0: 17, 1: 17})
    act(g, "end")
    g.dark[1] = 2
    g.forced = [6, 3]  # player_1's 6 reads 2 (17 -> 19); player_0 rolls 3 (18 -> 21)
    acts(g, "roll", "end")
    assert g.dark[1] == 1 and g.positions[1] == 19
    act(g, "end")
    g.forced = [5, 1]  # player_1's 5 reads 2 (19 -> 21); player_0 rolls 1 (21 -> 22)
    acts(g, "roll", "end")
    assert g.dark[1] == 0 and g.positions == [22, 21]
    g.forced = [5]  # the dark matter is gone: a 5 is 5 (21 -> 22 is a fork)
    act(g, "roll")
    assert g.roll_log[-1][1:] == ["movement", 6, 5] and g.positions[1] == 22


# ---- victory ------------------------------------------------------------------------------


def test_fifth_world_wins_at_once():
    four = ["Hoverion", "Levitas Prime", "Glacius", "Frostmere"]
    maneuvers = ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]
    g = game(dice=[2, 6, 6, 6, 6], positions={0: 42, 1: 0}, board={44: "Aquarion"},
             cards={0: four + maneuvers})  # fmt: skip
    act(g, "challenge world Aquarion")
    assert g.over and g.winners() == [0] and g.win_reason == "five worlds"
    assert g.legal_actions() == []


def test_defending_a_third_world_wins_at_once():
    g = standard([4, 4, 4, 4, 4, 4, 4, 4], cards={1: ["Tidewell", "Hoverion", "Glacius"]})
    g.defended[card_id("Hoverion")] = g.defended[card_id("Glacius")] = 1
    act(g, "spend 0")
    assert g.over and g.winners() == [1] and g.win_reason == "three worlds defended"


def test_most_worlds_after_max_rounds_and_ties():
    g = game(dice=[3, 3], positions={0: 17, 1: 23}, cards={0: ["Hoverion"]}, max_rounds=2,
             wait=False)  # fmt: skip
    assert g.rounds == 1
    acts(g, "end", "end")  # each player's turn of the last round
    assert g.over and g.winners() == [0] and g.win_reason == "most worlds at time"
    g = game(dice=[3, 3], positions={0: 17, 1: 23}, max_rounds=2, wait=False)
    acts(g, "end", "end")
    assert g.over and g.winners() == [0, 1]


def test_scenario_errors_name_the_problem():
    with pytest.raises(ValueError, match="given to two players"):
        game(cards={0: ["Hoverion"], 1: ["Hoverion"]})
    with pytest.raises(ValueError, match="starts after the last round"):
        game(turn=41)
    with pytest.raises(ValueError, match="not a maneuver space"):
        new_game(ArenaConfig(), seed=0, **Scenario(board={35: card_id(CRYO)},
                 characters={s: s for s in range(4)}).__dict__)  # fmt: skip
    # board pieces while a seat still wishes: the board is dealt after the wishes
    with pytest.raises(ValueError, match=r"^scenario pieces maneuvers/worlds, board need every "
                       r"seat's character given \(option characters for all players\): the "
                       r"board is dealt after the character wishes$"):  # fmt: skip
        new_game(ArenaConfig(), seed=0, characters={0: 0}, cards={1: [card_id("Hoverion")]},
                 board={35: card_id(CRYO)})  # fmt: skip
