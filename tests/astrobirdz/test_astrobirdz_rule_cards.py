"""One scenario per trump rule card: every one of the 54 rules, as printed,
with the exact numbers it gives.

Most scenarios are two players without Berzerkerbirdz (no bird points, no
powers): on turn 1 player_0 deals, so player_1 guesses first and leads; on
turn 2 player_1 deals, so player_0 guesses first and leads. In the one-trick
table player_1 guesses 0 and loses, player_0 guesses 1 and wins: 1 trick + 5
exact + 5 highest correct guess + 5 AstroBoard = 16 points before the rule
card's effect, and 5 for player_1.
"""

from __future__ import annotations

import sys

import pytest
from astrobirdz_helpers import (
    game,
    hand,
    legal_strings,
    observation_field,
    step,
    steps,
    table,
    totals_of,
    turn_totals,
)

from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.rules import Phase

pytestmark = pytest.mark.usefixtures("either_engine")
"""Every rule test runs on both engines (``conftest.py``)."""

BASE_WINNER, BASE_LOSER = 16, 5


def one_trick(trump: str, lead: str, answer: str, guesses=(1, 0), **options):
    """player_1 leads ``lead``, player_0 answers ``answer``; by default player_0
    guessed 1 and player_1 guessed 0."""
    env = table(2, hands={0: [answer], 1: [lead]}, trump=trump, berzerkerbirdz=False, **options)
    moves = [(1, f"guess {guesses[1]}"), (0, f"guess {guesses[0]}"), (1, lead), (0, answer)]
    steps(env, moves)
    return env


def two_tricks(
    trump: str, p0: list[str], p1: list[str], plays: list[tuple[int, str]], guesses=(1, 1)
):
    """Turn 2: player_0 guesses first and leads the first trick."""
    env = table(2, hands={0: p0, 1: p1}, trump=trump, turn=2, berzerkerbirdz=False)
    steps(env, [(0, f"guess {guesses[0]}"), (1, f"guess {guesses[1]}"), *plays])
    return env


# ---- card points --------------------------------------------------------------


def test_R1_red_cards_taken_score_1_each():
    env = one_trick("R1", "R5", "R9")
    assert totals_of(env, "card_points") == [2, 0]
    assert turn_totals(env) == [BASE_WINNER + 2, BASE_LOSER]


def test_R4_red_cards_taken_score_2_each():
    env = one_trick("R4", "R5", "R9")
    assert totals_of(env, "card_points") == [4, 0]
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_O1_orange_cards_taken_score_2_each():
    env = one_trick("O1", "O5", "O9")
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_O4_orange_cards_taken_score_3_each():
    env = one_trick("O4", "O5", "O9")
    assert turn_totals(env) == [BASE_WINNER + 6, BASE_LOSER]


def test_Y1_yellow_cards_taken_score_2_each():
    env = one_trick("Y1", "Y5", "Y9")
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_Y5_fives_taken_score_3_each_in_any_colour():
    env = one_trick("Y5", "B5", "B9")
    assert totals_of(env, "card_points") == [3, 0]
    assert turn_totals(env) == [BASE_WINNER + 3, BASE_LOSER]


def test_G1_green_cards_taken_score_2_each():
    env = one_trick("G1", "G5", "G9")
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_G3_threes_taken_score_5_each_in_any_colour():
    env = one_trick("G3", "B3", "B9")
    assert turn_totals(env) == [BASE_WINNER + 5, BASE_LOSER]


def test_G4_trump_colour_cards_taken_score_3_each():
    # player_0 has no red: trumps the red 5 with the green 9; only the green scores
    env = one_trick("G4", "R5", "G9")
    assert game(env).last_trick_winners == [0]
    assert totals_of(env, "card_points") == [3, 0]
    assert turn_totals(env) == [BASE_WINNER + 3, BASE_LOSER]


def test_G8_eights_taken_score_5_each_in_any_colour():
    env = one_trick("G8", "B8", "B9")
    assert turn_totals(env) == [BASE_WINNER + 5, BASE_LOSER]


def test_B1_blue_cards_taken_score_2_each():
    env = one_trick("B1", "B5", "B9")
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_B4_blue_cards_taken_score_3_each():
    env = one_trick("B4", "B5", "B9")
    assert turn_totals(env) == [BASE_WINNER + 6, BASE_LOSER]


# ---- trump colour changed by 2s (3s, 5s) for one trick ---------------------------


def assert_trump_change(trump: str, changer: str, p1: list[str]) -> None:
    """player_0 leads ``changer`` and wins trick 1 although player_1 plays a low
    card of the turn's trump; trick 2 is back to the turn's trump, whose 9 beats
    player_0's blue/red 1 lead."""
    off = "R1" if trump[0] in "BP" or changer[0] == "B" else "B1"
    env = two_tricks(trump, [changer, off], p1, [(0, changer), (1, p1[1]), (0, off), (1, p1[0])])
    assert game(env).last_trick_winners == [0, 1]


def test_R2_any_2_makes_orange_trump_for_that_trick():
    assert_trump_change("R2", "O2", ["R9", "R3"])


def test_R5_any_2_or_3_makes_orange_trump_for_that_trick():
    assert_trump_change("R5", "O3", ["R9", "R4"])


def test_O2_any_2_makes_yellow_trump_for_that_trick():
    assert_trump_change("O2", "Y2", ["O9", "O4"])


def test_Y2_any_2_makes_green_trump_for_that_trick():
    assert_trump_change("Y2", "G2", ["Y9", "Y4"])


def test_G2_any_2_makes_blue_trump_for_that_trick():
    assert_trump_change("G2", "B2", ["G9", "G4"])


def test_B2_any_2_makes_pink_trump_for_that_trick():
    assert_trump_change("B2", "P2", ["B9", "B4"])


def test_B5_any_2_or_5_makes_pink_trump_for_that_trick():
    assert_trump_change("B5", "P5", ["B9", "B4"])


def test_P2_any_2_makes_red_trump_for_that_trick():
    assert_trump_change("P2", "R2", ["P9", "P4"])


def test_trump_change_shows_in_the_observation_during_the_trick():
    env = table(2, hands={0: ["O2", "B1"], 1: ["R9", "R3"]}, trump="R2", turn=2,
                berzerkerbirdz=False)  # fmt: skip
    steps(env, [(0, "guess 1"), (1, "guess 1")])
    red, orange = data.RED, data.ORANGE
    assert observation_field(env, 1, "trick_trump")[red] == 1
    step(env, 0, "O2")
    assert observation_field(env, 1, "trick_trump")[orange] == 1
    assert observation_field(env, 1, "trump_colour")[red] == 1
    step(env, 1, "R3")
    assert observation_field(env, 0, "trick_trump")[red] == 1


# ---- no special power --------------------------------------------------------------


def test_R3_no_special_power():
    env = one_trick("R3", "R5", "R9")
    assert turn_totals(env) == [BASE_WINNER, BASE_LOSER]
    assert totals_of(env, "card_points") == [0, 0]


# ---- value changes ------------------------------------------------------------------


def test_R7_ones_count_as_10():
    env = one_trick("R7", "R9", "R1")
    assert game(env).last_trick_winners == [0]


def test_G5_nines_count_as_0():
    env = one_trick("G5", "G9", "G4")
    assert game(env).last_trick_winners == [0]


def test_P4_fours_count_as_10():
    # the pink 4 is the turned-up card; any 4 counts as 10
    env = one_trick("P4", "B9", "B4")
    assert game(env).last_trick_winners == [0]


# ---- protected cards --------------------------------------------------------------


def assert_nines_protected(trump: str) -> None:
    """A 9 of another colour beats a lower trump card, and an off-colour 9 beats
    the led colour as a trump would. (The trump colour's own 9 is the turned-up
    card, so it never plays under these rules.)"""
    t = trump[0]
    a, b, c = [x for x in data.COLOURS if x != t][:3]
    env = two_tricks(trump, [f"{a}9", f"{b}5"], [f"{t}8", f"{c}9"],
                     [(0, f"{a}9"), (1, f"{t}8"), (0, f"{b}5"), (1, f"{c}9")])  # fmt: skip
    assert game(env).last_trick_winners == [0, 1]


def test_R9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("R9")


def test_O9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("O9")


def test_Y9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("Y9")


def test_G9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("G9")


def test_B9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("B9")


def test_P9_nines_are_not_beaten_by_lower_trump():
    assert_nines_protected("P9")


def test_two_protected_nines_the_first_played_wins():
    env = one_trick("R9", "B9", "Y9", guesses=(0, 1))
    assert game(env).last_trick_winners == [1]


def test_G7_fours_and_fives_are_not_beaten_by_lower_trump():
    env = two_tricks("G7", ["Y5", "B4"], ["G3", "G8"],
                     [(0, "Y5"), (1, "G3"), (0, "B4"), (1, "G8")])  # fmt: skip
    assert game(env).last_trick_winners == [0, 1]


def test_G7_protected_four_beats_a_lower_trump_too():
    env = one_trick("G7", "R4", "G3", guesses=(0, 1))  # a green 3 does not beat the red 4
    assert game(env).last_trick_winners == [1]


def test_G7_a_trump_card_of_equal_value_beats_a_protected_one():
    env = one_trick("G7", "Y5", "G5")
    assert game(env).last_trick_winners == [0]


# Green 7's two readings (option green_7): its last sentence, "If higher Trump
# Color is played, it wins the trick" (default), or its printed example, where a
# yellow 5 "would not be beaten in this round by a red 7".

SEVEN_READINGS = ("beaten_by_higher_trump", "never_beaten_by_trump")


@pytest.mark.parametrize(
    ("answer", "winners"),
    [("G8", ([0], [1])), ("G9", ([0], [1])), ("G6", ([0], [1])), ("G2", ([1], [1]))],
)
def test_G7_a_higher_trump_beats_a_protected_five_only_in_the_last_sentences_reading(
    answer, winners
):
    """player_1 leads the yellow 5; player_0, without yellow, trumps it."""
    for reading, expected in zip(SEVEN_READINGS, winners, strict=True):
        env = one_trick("G7", "Y5", answer, guesses=(1, 1), green_7=reading)
        assert game(env).last_trick_winners == expected, (reading, answer)


def test_G7_the_default_reading_is_the_last_sentence():
    env = one_trick("G7", "Y5", "G8")
    assert game(env).config.green_7 == "beaten_by_higher_trump"
    assert game(env).last_trick_winners == [0]


@pytest.mark.parametrize(
    ("lead", "answer", "winner"),
    [
        ("Y5", "B4", 1),  # two protected cards: the higher value wins
        ("B4", "Y5", 0),
        ("Y4", "B4", 1),  # equal value, neither trump colour: the first played wins
        ("Y5", "G5", 0),  # equal value: the trump colour's own 5 wins
        ("Y4", "G5", 0),
        ("G4", "Y5", 0),  # the green 4 is protected too: below the 5
    ],
)
def test_G7_printed_example_reading_fours_and_fives_rank_among_themselves(lead, answer, winner):
    env = one_trick("G7", lead, answer, guesses=(1, 1), green_7="never_beaten_by_trump")
    assert game(env).last_trick_winners == [winner]


def test_G7_printed_example_reading_changes_no_other_card():
    # Red 9's protected 9 loses to nothing higher either way; a plain card is beaten by trump
    for reading in SEVEN_READINGS:
        env = one_trick("R3", "Y5", "R6", guesses=(1, 1), green_7=reading)
        assert game(env).last_trick_winners == [0]


def test_B8_eights_beat_lower_trump_and_nines():
    # the rulebook's example: a yellow 8 beats a yellow 9; and an 8 beats the trump 9
    env = two_tricks("B8", ["Y8", "R8"], ["Y9", "B9"],
                     [(0, "Y8"), (1, "Y9"), (0, "R8"), (1, "B9")], guesses=(2, 0))  # fmt: skip
    assert game(env).last_trick_winners == [0, 0]


# ---- extra draws -------------------------------------------------------------------


@pytest.mark.parametrize(("card", "extra"), [("R6", 1), ("G6", 1), ("O6", 2), ("B6", 2),
                                             ("P3", 3)])  # fmt: skip
def test_extra_draws_deal_more_cards_and_tricks(card, extra):
    env = table(3, trump=card, turn=2, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(3)] == [2 + extra] * 3
    assert game(env).hand_size == 2 + extra
    assert legal_strings(env)[-1] == f"guess {2 + extra}"
    assert len(game(env).deck) == 54 - 1 - 3 * (2 + extra)


def test_R6_everyone_draws_another_card():
    env = table(2, hands={0: ["B5"], 1: ["G5"]}, trump="R6", berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(2)] == [2, 2]
    assert "B5" in hand(env, 0) and "G5" in hand(env, 1)


def test_G6_everyone_draws_another_card():
    env = table(4, trump="G6", turn=3, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(4)] == [4] * 4


def test_O6_everyone_draws_two_more_cards():
    env = table(4, trump="O6", turn=3, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(4)] == [5] * 4


def test_B6_everyone_draws_two_more_cards():
    env = table(5, trump="B6", turn=1, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(5)] == [3] * 5


def test_P3_everyone_draws_three_more_cards():
    env = table(2, trump="P3", turn=5, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(2)] == [8, 8]


# ---- discards and replacements -------------------------------------------------------


def test_O3_ones_and_twos_are_discarded_and_replaced():
    env = table(2, hands={0: ["R1", "B2"], 1: ["G5", "G6"]}, trump="O3", turn=2,
                berzerkerbirdz=False)  # fmt: skip
    g = game(env)
    assert sorted(hand(env, 1)) == ["G5", "G6"]
    assert len(hand(env, 0)) == 2 and not {"R1", "B2"} & set(hand(env, 0))
    assert env.unwrapped.view("player_0")["discarded"] == ["R1", "B2"]
    assert env.unwrapped.view("player_1")["discarded"] == []
    assert sorted(data.card_text(c) for c in g.discards) == ["B2", "R1"]


def test_O3_replacements_that_are_ones_or_twos_are_kept():
    """Find a seed whose first replacement is a 1 or a 2: it stays in the hand."""
    for seed in range(200):
        env = table(2, hands={0: ["R1", "G7"], 1: ["G5", "G6"]}, trump="O3", turn=2,
                    berzerkerbirdz=False, seed=seed)  # fmt: skip
        low = [c for c in hand(env, 0) if c[1] in "12"]
        if low:
            assert len(hand(env, 0)) == 2 and "G7" in hand(env, 0)
            assert game(env).discards == [data.parse_card("R1")]
            return
    pytest.fail("no seed in 0..199 replaced a 1 with another 1 or 2")


def test_O7_everyone_discards_one_card_face_down():
    env = table(2, hands={0: ["R4", "B7"], 1: ["G5", "G6"]}, trump="O7", turn=2,
                berzerkerbirdz=False)  # fmt: skip
    assert game(env).phase == Phase.DISCARD
    assert legal_strings(env) == ["choose R4", "choose B7"]
    step(env, 0, "choose R4")
    # player_1 does not see player_0's discard
    assert env.unwrapped.view("player_1")["discarded"] == []
    assert observation_field(env, 1, "discarded").sum() == 0
    step(env, 1, "choose G6")
    assert hand(env, 0) == ["B7"] and hand(env, 1) == ["G5"]
    assert env.unwrapped.view("player_0")["discarded"] == ["R4"]
    assert observation_field(env, 0, "discarded")[data.parse_card("R4")] == 1
    assert game(env).hand_size == 1
    assert legal_strings(env) == ["guess 0", "guess 1"]


def test_O7_is_not_enforced_when_everyone_was_dealt_one_card():
    env = table(2, trump="O7", turn=1, berzerkerbirdz=False)
    assert game(env).phase == Phase.GUESS and game(env).hand_size == 1


# ---- passes to the right ------------------------------------------------------------


def test_Y3_lowest_card_to_the_right_tie_is_chosen():
    # turn 2 of 3 players: player_1 deals, the choices go player_2, player_0, player_1
    env = table(3, hands={0: ["R1", "B1"], 1: ["G3", "G7"], 2: ["Y2", "Y9"]}, trump="Y3",
                turn=2, berzerkerbirdz=False)  # fmt: skip
    assert game(env).phase == Phase.PASS_RIGHT
    assert legal_strings(env) == ["choose Y2"]
    step(env, 2, "choose Y2")
    assert legal_strings(env) == ["choose R1", "choose B1"]
    step(env, 0, "choose B1")
    assert legal_strings(env) == ["choose G3"]
    step(env, 1, "choose G3")
    assert sorted(hand(env, 0)) == ["G3", "R1"]
    assert sorted(hand(env, 1)) == ["G7", "Y2"]
    assert sorted(hand(env, 2)) == ["B1", "Y9"]
    # each giver knows where its card went; nobody else does
    assert env.unwrapped.view("player_0")["known_cards"] == {"player_2": ["B1"]}
    assert env.unwrapped.view("player_1")["known_cards"] == {"player_0": ["G3"]}


def test_Y4_highest_card_to_the_right_tie_is_chosen():
    env = table(2, hands={0: ["R9", "B9"], 1: ["G3", "G7"]}, trump="Y4", turn=2,
                berzerkerbirdz=False)  # fmt: skip
    assert legal_strings(env) == ["choose R9", "choose B9"]
    step(env, 0, "choose R9")
    assert legal_strings(env) == ["choose G7"]
    step(env, 1, "choose G7")
    assert sorted(hand(env, 0)) == ["B9", "G7"]
    assert sorted(hand(env, 1)) == ["G3", "R9"]


# ---- trump colour chosen by a player -------------------------------------------------


def test_Y6_the_dealer_picks_the_trump_colour():
    env = table(2, trump="Y6", berzerkerbirdz=False)  # turn 1: player_0 deals
    assert game(env).phase == Phase.CHOOSE_TRUMP and env.agent_selection == "player_0"
    assert observation_field(env, 1, "trump_colour").sum() == 0
    step(env, 0, "trump P")
    assert game(env).trump == data.PINK
    assert observation_field(env, 1, "trump_colour")[data.PINK] == 1
    assert env.unwrapped.view("player_1")["trump_colour"] == "P"


def test_Y7_the_youngest_player_picks_the_trump_colour():
    env = table(3, trump="Y7", berzerkerbirdz=False)
    assert env.agent_selection == "player_0"  # default: player_0 is the youngest
    env = table(3, trump="Y7", berzerkerbirdz=False, ages=[40, 12, 30])
    assert env.agent_selection == "player_1"
    step(env, 1, "trump B")
    assert game(env).trump == data.BLUE


def test_Y8_the_oldest_player_picks_the_trump_colour():
    env = table(3, trump="Y8", berzerkerbirdz=False)
    assert env.agent_selection == "player_2"  # default: the last seat is the oldest
    env = table(3, trump="Y8", berzerkerbirdz=False, ages=[40, 12, 30])
    assert env.agent_selection == "player_0"
    step(env, 0, "trump O")
    assert game(env).trump == data.ORANGE


def test_P8_the_lowest_berzerkerbird_picks_the_trump_colour():
    env = table(3, trump="P8", berzerkers={0: 4, 1: 2, 2: 5})
    assert game(env).phase == Phase.CHOOSE_TRUMP and env.agent_selection == "player_1"
    step(env, 1, "trump G")
    assert game(env).trump == data.GREEN
    # without Berzerkerbirdz the dealer picks (turn 2 of 3 players: player_1)
    env = table(3, trump="P8", turn=2, berzerkerbirdz=False)
    assert game(env).phase == Phase.CHOOSE_TRUMP and env.agent_selection == "player_1"


# ---- Berzerkerbird rotation -----------------------------------------------------------


def test_O5_berzerkerbirdz_go_to_the_left():
    env = table(3, trump="O5", berzerkers={0: 1, 1: 3, 2: 5})
    g = game(env)
    assert g.dealer == 0  # dealt by the lowest bird before the rotation
    assert g.birds == [5, 1, 3]
    assert env.unwrapped.view("player_0")["berzerkerbirdz"] == {
        "player_0": "Nitro", "player_1": "Zoom", "player_2": "Speedster"}  # fmt: skip
    # Nitro (now player_0) peeks just before his guess; Zoom (player_1) leads
    guesses = [(1, "guess 0"), (2, "guess 0"), (0, "player_1"), (0, "guess 0")]
    steps(env, guesses)
    assert env.agent_selection == "player_1"
    step(env, 1, hand(env, 1)[0])
    step(env, 0, legal_strings(env)[0])  # Speedster (player_2) plays last
    step(env, 2, legal_strings(env)[0])
    assert totals_of(env, "berzerkerbird") == [6, 2, 4]


# ---- scoring changes ---------------------------------------------------------------


def test_R8_double_all_points_scored():
    env = one_trick("R8", "B5", "B9")
    assert turn_totals(env) == [32, 10]


def test_O8_double_all_points_scored():
    env = one_trick("O8", "B5", "B9")
    assert turn_totals(env) == [32, 10]


def test_B7_double_all_points_scored():
    env = one_trick("B7", "B5", "B9")
    assert turn_totals(env) == [32, 10]


def test_B3_winning_tricks_score_5_points():
    env = one_trick("B3", "R5", "R9")
    assert totals_of(env, "trick_points") == [5, 0]
    assert turn_totals(env) == [BASE_WINNER + 4, BASE_LOSER]


def test_P1_even_scores_get_5_more():
    env = one_trick("P1", "B5", "B9")  # 16 is even, 5 is odd
    assert turn_totals(env) == [BASE_WINNER + 5, BASE_LOSER]


def test_P5_odd_scores_get_5_more():
    env = one_trick("P5", "B5", "B9")
    assert turn_totals(env) == [BASE_WINNER, BASE_LOSER + 5]


def parity_table(trump: str):
    """Turn 3: player_0 guessed 0 and takes all three tricks (3 - 3 = 0);
    player_1 guessed 3 and takes none (0 - 3, floored at 0)."""
    env = table(2, hands={0: ["P9", "P8", "P7"], 1: ["B1", "B2", "B3"]}, trump=trump, turn=3,
                berzerkerbirdz=False)  # fmt: skip
    steps(env, [(1, "guess 3"), (0, "guess 0")])
    steps(env, [(1, "B1"), (0, "P7"), (0, "P8"), (1, "B2"), (0, "P9"), (1, "B3")])
    assert totals_of(env, "floored") == [0, 0]
    return env


def test_P1_the_even_bonus_comes_after_the_floor():
    # player_1's -3 is odd, but the floored 0 is even: +5
    assert turn_totals(parity_table("P1")) == [5, 5]


def test_P5_the_odd_bonus_comes_after_the_floor():
    # player_1's -3 is odd, but the floored 0 is even: no bonus
    assert turn_totals(parity_table("P5")) == [0, 0]


def test_P6_the_player_taking_the_last_trick_gains_5():
    env = two_tricks("P6", ["B9", "R1"], ["B1", "R9"], [(0, "B9"), (1, "B1"), (0, "R1"), (1, "R9")])
    assert game(env).last_trick_winners == [0, 1]
    assert totals_of(env, "first_last") == [0, 5]
    # each won 1 of 1 guessed; ties for the highest correct guess: fewest points,
    # then the first to guess (no birds): player_0 gets +5 and holds the board: +5
    assert turn_totals(env) == [1 + 5 + 10, 1 + 5 + 5]


def test_P7_the_player_taking_the_first_trick_gains_5():
    env = two_tricks("P7", ["B9", "R1"], ["B1", "R9"], [(0, "B9"), (1, "B1"), (0, "R1"), (1, "R9")])
    assert totals_of(env, "first_last") == [5, 0]
    assert turn_totals(env) == [1 + 5 + 10 + 5, 1 + 5]


# ---- every card has its test ---------------------------------------------------------


def test_every_rule_card_has_a_scenario_test_here():
    module = sys.modules[__name__]
    names = [n for n in dir(module) if n.startswith("test_")]
    missing = [
        r.card for r in data.RULE_CARDS if not any(n.startswith(f"test_{r.card}_") for n in names)
    ]
    assert not missing, f"rule cards without a scenario test: {missing}"
    assert len(data.RULE_CARDS) == 54
