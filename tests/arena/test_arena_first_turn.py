"""Setup step 12, "He does not get to use the power of that gym on that first
turn, though": no gym power card of the starting corner's gym on the first
turn, on every path that hands one out (training, Nova Debris Field 5-6,
Nebula Slide 8), with forced dice."""

from __future__ import annotations

from arena_helpers import BOX, act, game, legal, phase

ZOOMINIUM = BOX.gym_named["zoominium refinery"]
HALFPIPE = BOX.gym_named["halfpipe hall"]
FORTRESS = BOX.gym_named["fortress dome"]


def turn_over(g) -> bool:
    return g.actor == 1 and phase(g) == "pre_roll"


def nova_5_6(turn: int):
    """player_0 starts on corner 1 (space 0, Zoominium Refinery), rolls 2 onto
    the first AstroPortal: Nova Debris Field (d8 2), d6 5."""
    g = game(dice=[2, 2, 5], turn=turn)
    assert g.start_corner[0] == 0 and g.last_encounter == [2, 5]
    assert legal(g) == ["to 0", "to 8", "to 16", "to 24"]
    return g


def test_nova_debris_5_6_no_card_of_the_starting_gym_on_the_first_turn():
    g = nova_5_6(turn=1)
    act(g, "to 0")  # the starting gym: no train / end choice, the turn is over
    assert g.positions[0] == 0 and g.powers[0] == [0] * len(BOX.gyms) and turn_over(g)
    assert g.gym_cards[ZOOMINIUM] == 1  # player_1 holds the other one (the helper's wait)


def test_nova_debris_5_6_another_gym_on_the_first_turn_or_the_start_gym_later():
    g = nova_5_6(turn=1)
    act(g, "to 16")
    assert legal(g) == ["train", "end"]
    act(g, "train")
    assert g.powers[0][FORTRESS] == 1 and turn_over(g)
    g = nova_5_6(turn=2)
    act(g, "to 0")
    assert legal(g) == ["train", "end"]
    act(g, "train")
    assert g.powers[0][ZOOMINIUM] == 1 and turn_over(g)


def slide_8(turn: int):
    """A Berzerkerbirdz whose starting corner is space 8 (Halfpipe Hall) rolls 2
    from space 10 onto the east slide end, goes through and rolls 8 (d8)."""
    g = game(dice=[2, 8], turn=turn, positions={0: 10, 1: 0}, forms={0: "berzerkerbirdz"})
    g.start_corner[0] = 8
    assert g.positions[0] == 12 and legal(g) == ["slide", "stay"]
    act(g, "slide")
    assert g.last_encounter == [0, 8] and legal(g) == ["to 0", "to 8", "to 16", "to 24"]
    return g


def test_slide_8_no_card_of_the_starting_gym_on_the_first_turn():
    g = slide_8(turn=1)
    act(g, "to 8")
    # the trophy is taken, the gym power card is not
    assert g.positions[0] == 8 and g.trophies[0] == 1 and g.gym_trophies[1] == 4
    assert g.powers[0][HALFPIPE] == 0 and g.gym_cards[HALFPIPE] == 2 and turn_over(g)


def test_slide_8_another_gym_on_the_first_turn_or_the_start_gym_later():
    g = slide_8(turn=1)
    act(g, "to 16")
    assert g.powers[0][FORTRESS] == 1 and turn_over(g)
    g = slide_8(turn=2)
    act(g, "to 8")
    assert g.powers[0][HALFPIPE] == 1 and g.gym_cards[HALFPIPE] == 1 and turn_over(g)


def test_wormhole_1_2_to_the_starting_gym_cannot_train_on_the_first_turn():
    # Wormhole Bonus 1-2: any space, then an action there (the ordinary training rule)
    g = game(dice=[2, 5, 1], turn=1)
    assert g.last_encounter == [5, 1]
    act(g, "to 0")
    assert turn_over(g) and g.powers[0] == [0] * len(BOX.gyms)
    g = game(dice=[2, 5, 1], turn=2)
    act(g, "to 0")
    assert legal(g) == ["train", "end"]


def test_a_new_turn_inside_the_first_turn_still_gets_no_card_of_the_starting_gym():
    # Nebula Slide 6 on the first turn: a whole new turn (a later turn's roll), from
    # space 6, rolls 2 onto the starting corner 8: no training there
    g = game(dice=[2, 6, 2], turn=1, positions={0: 10, 1: 0})
    g.start_corner[0] = 8
    act(g, "slide")
    assert g.last_encounter == [0, 6]
    act(g, "to 6")
    act(g, "to 7")  # (space 6 is an entrance fork: on along the outside)
    assert g.positions[0] == 8 and g.trophies[0] == 1  # moved onto the gym: its trophy
    assert turn_over(g) and g.powers[0] == [0] * len(BOX.gyms)  # train was not offered
    # in a later round the same new turn may train there
    g = game(dice=[2, 6, 2], turn=2, positions={0: 10, 1: 0})
    g.start_corner[0] = 8
    act(g, "slide")
    act(g, "to 6")
    act(g, "to 7")
    assert legal(g) == ["train", "end"]
