"""Every token bonus of the Aerodrome in a hand-built scenario: the Squadron it
makes (size, value, Medallions), what it refuses, and the flip it costs; the
Pre-Campaign swaps; combining tokens; and the steps a token move is asked in."""

from __future__ import annotations

import numpy as np
from skybirds_helpers import engine, hand, held, legal, play

from flockgym.envs.skybirds.rules import Phase, Step


def table(*hands: str, tokens=None, leader: int = 0, **kwargs):
    """Every hand given (Garros in the box unless named), ``leader`` leads."""
    players = len(hands)
    given = {s: h for s, h in enumerate(hands)}
    has_garros = any("G" in h.split() for h in hands)
    return engine(players, hands=given, tokens=tokens, leader=None if has_garros else leader,
                  **kwargs)  # fmt: skip


def squadron(g):
    return (g.table.size, g.table.value, g.table.medallions)


# ---- A1 / C1: Medallions -----------------------------------------------------------


def test_medallion_token_makes_any_single_beat_a_squadron():
    g = table("5 5 5 1", "2 3 3 3", "4", "6", tokens={1: {"A1": "front"}})
    play(g, 0, "5 5 5")
    assert legal(g) == ["pass", "use A1"]
    play(g, 1, "use A1")
    assert g.step == Step.TOKENS and legal(g) == ["add 2", "add 3"]
    play(g, 1, "add 3")
    assert legal(g) == ["add 3", "done"]  # a single 3, or three 3s: both carry the Medallion
    play(g, 1, "add 3", "add 3", "done")
    assert squadron(g) == (3, 3, 1) and hand(g, 1) == "2"
    assert g.table.tokens == (g.config.names.index("A1"),)


def test_two_medallions_token_beats_a_medallion_card():
    g = table("9 1", "10 2", "4 4", "6", tokens={2: {"C1": "front"}})
    play(g, 0, "9")
    play(g, 1, "10")
    play(g, 2, "use C1", "add 4", "done")
    assert squadron(g) == (1, 4, 2)  # two Medallions beat the 10's one
    assert held(g, 2) == {"C1": "back"}


def test_a_medallion_single_with_a_medallion_card():
    g = table("10 1", "9 2", "4", "6", tokens={1: {"A1": "front"}})
    play(g, 0, "10")
    assert legal(g) == ["pass", "use A1"]  # 9 < 10, but with A1 the 9 has two Medallions
    play(g, 1, "use A1", "add 9", "done")
    assert squadron(g) == (1, 9, 2)


# ---- A2: follow with an equal value -----------------------------------------------


def test_follow_equal_token_allows_a_tie():
    g = table("5 5 1", "5 5 2", "3", "4", tokens={1: {"A2": "front"}})
    play(g, 0, "5 5")
    assert legal(g) == ["pass", "use A2"]
    play(g, 1, "use A2", "add 5", "add 5", "done")
    assert squadron(g) == (2, 5, 0) and g.last_player == 1


def test_follow_equal_token_is_not_offered_when_leading_or_when_higher():
    g = table("5 5 1", "6 6 2", "3", "4", tokens={0: {"A2": "front"}, 1: {"A2": "front"}})
    assert "use A2" not in legal(g)  # nothing to equal when leading
    play(g, 0, "5 5")
    assert legal(g) == ["6 6", "pass"]  # 6 6 beats 5 5 without the token


# ---- B1: runs ----------------------------------------------------------------------


def test_run_token_plays_consecutive_values_valued_at_the_highest():
    g = table("3 4 5 9", "6 6 6 1", "2", "7", tokens={0: {"B1": "front"}})
    play(g, 0, "use B1", "add 3", "add 4", "add 5", "done")
    assert squadron(g) == (3, 5, 0) and g.squadron_size == 3
    assert legal(g) == ["6 6 6", "pass"]  # followers match the run's size


def test_runs_never_take_garros():
    g = table("G 3 4 5", "6 1", "2", "7", tokens={0: {"B1": "front"}})
    assert "use B1" not in legal(g)


def test_a_run_with_medallion_cards_carries_their_medallions():
    g = table("8 9 10 1", "2", "3", "4", tokens={0: {"B1": "front"}})
    play(g, 0, "use B1", "add 8", "add 9", "add 10", "done")
    assert squadron(g) == (3, 10, 2)


# ---- B3: wild Ace ------------------------------------------------------------------


def test_wild_token_completes_a_set():
    g = table("5 5 7 1", "6 6 6", "2", "3", tokens={0: {"B3": "front"}})
    play(g, 0, "use B3", "add 5", "add 5", "wild 7")
    assert g.step == Step.DECLARE and legal(g) == ["declare 5"]
    play(g, 0, "declare 5")
    assert squadron(g) == (3, 5, 0) and (g.table.wild, g.table.declare) == (7, 5)
    assert hand(g, 0) == "1"


def test_a_single_wild_ace_declares_any_other_value():
    g = table("2 1", "6", "7", "8", tokens={0: {"B3": "front"}})
    play(g, 0, "use B3", "wild 2")
    assert legal(g) == [f"declare {v}" for v in (1, 3, 4, 5, 6, 7, 8, 9, 10)]
    play(g, 0, "declare 8")
    assert squadron(g) == (1, 8, 0)  # a declared 8; no Medallion from a declared 9 or 10


def test_a_wild_ace_keeps_its_printed_medallion():
    g = table("10 4 4", "6", "7", "8", tokens={0: {"B3": "front"}})
    play(g, 0, "use B3", "add 4", "add 4", "wild 10", "declare 4")
    assert squadron(g) == (3, 4, 1)


def test_garros_joins_a_wild_squadron_at_its_final_value():
    g = table("G 5 9 1", "6", "7", "8", tokens={0: {"B3": "front"}})
    play(g, 0, "use B3")
    assert legal(g)[0] == "add G"  # the first Squadron must hold Garros
    play(g, 0, "add G", "add 5", "wild 9", "declare 5")
    assert squadron(g) == (3, 5, 1) and not g.garros_due


# ---- C2: unmatched Aces ------------------------------------------------------------


def test_unmatched_token_makes_up_to_three_aces_a_squadron_valued_at_the_lowest():
    g = table("3 7 8 1", "4 4 4", "2", "6", tokens={0: {"C2": "front"}})
    play(g, 0, "use C2", "add 3", "add 7", "add 8", "done")
    assert squadron(g) == (3, 3, 0)
    assert legal(g) == ["4 4 4", "pass"]


def test_unmatched_token_with_garros_in_the_first_squadron():
    g = table("G 3 7", "4 4 4", "2", "6", tokens={0: {"C2": "front"}})
    play(g, 0, "use C2", "add G", "add 3", "add 7", "done")
    assert squadron(g) == (3, 3, 0)


def test_unmatched_token_needs_unequal_aces():
    g = table("3 3 1", "2", "4", "6", tokens={0: {"C2": "front"}})
    play(g, 0, "use C2", "add 1")
    assert legal(g) == ["add 3"]  # 1 3 or 1 3 3; never 3 3 (matched: no token needed)


# ---- D2: one card more or fewer ----------------------------------------------------


def test_size_change_token_plays_one_card_fewer_or_more():
    g = table("4 4 4 1", "5 5 6 6 6 6", "2", "3", tokens={1: {"D2": "front"}})
    play(g, 0, "4 4 4")
    play(g, 1, "use D2")
    assert legal(g) == ["add 5", "add 6"]
    play(g, 1, "add 6", "add 6")
    assert legal(g) == ["add 6", "done"]  # two 6s (size 2) or four (size 4), not three
    play(g, 1, "add 6", "add 6", "done")
    assert squadron(g) == (4, 6, 0) and g.squadron_size == 3  # the Dogfight's size stays


def test_size_change_is_not_used_where_a_medallion_single_plays_anyway():
    g = table("4 4 1", "9", "2", "3", tokens={1: {"D2": "front"}})
    play(g, 0, "4 4")
    assert legal(g) == ["9", "pass"]


# ---- combining tokens, and the steps -------------------------------------------------


def test_several_tokens_on_one_squadron_in_aerodrome_order():
    g = table("5 1", "4 4 1", "2", "3", tokens={1: {"A2": "front", "D2": "front"}})
    play(g, 0, "5")
    # no 5 to equal; a pair of 4s is one card more (D2) but lower
    assert legal(g) == ["pass"]
    g = table("5 1", "5 5 1", "2", "3", tokens={1: {"A2": "front", "D2": "front"}})
    play(g, 0, "5")
    play(g, 1, "use A2")
    assert legal(g) == ["use D2", "add 5"]  # a single equal 5, or 5 5 with D2 too
    play(g, 1, "use D2", "add 5", "add 5", "done")
    assert squadron(g) == (2, 5, 0) and held(g, 1) == {"A2": "back", "D2": "back"}


def test_one_token_per_turn_as_an_option():
    g = table("5 1", "5 5 1", "2", "3", tokens={1: {"A2": "front", "D2": "front"}},
              tokens_per_turn="one")  # fmt: skip
    play(g, 0, "5")
    play(g, 1, "use A2")
    assert legal(g) == ["add 5"]


def test_run_and_wild_combine():
    g = table("3 4 9 1", "2", "6", "7", tokens={0: {"B1": "front", "B3": "front"}})
    play(g, 0, "use B1", "use B3", "add 3", "add 4", "wild 9")
    assert legal(g) == ["declare 2", "declare 5"]  # 2-3-4 or 3-4-5
    play(g, 0, "declare 5")
    assert squadron(g) == (3, 5, 1)


def test_runs_and_unmatched_never_combine():
    g = table("3 4 9 1", "2", "6", "7", tokens={0: {"B1": "front", "C2": "front"}})
    play(g, 0, "use B1")
    assert "use C2" not in legal(g)


def test_a_token_move_never_reaches_a_dead_end():
    """From the first 'use' on, every step offers only what completes a legal Squadron."""
    g = table("2 5 5 9", "6 6", "3", "4", tokens={1: {"B3": "front", "C2": "front"}})
    play(g, 0, "5 5")
    rng = np.random.default_rng(0)
    while g.phase == Phase.DOGFIGHT and g.actor == 1:
        options = legal(g)
        assert options
        choice = [o for o in options if o != "pass"] or options
        play(g, 1, choice[int(rng.integers(len(choice)))])
    assert g.last_player == 1 and g.table.player == 1 and g.table.value > 5


# ---- A3 / D1: Pre-Campaign swaps -------------------------------------------------------


def test_swap_one_gives_a_chosen_card_and_takes_a_random_one():
    g = engine(4, hands={0: "G 1 1 1", 1: "6 6 6 6"}, tokens={0: {"A3": "front"}})
    assert g.phase == Phase.PRE_CAMPAIGN and g.actor == 0  # offered from the Garros holder
    assert legal(g) == ["use A3", "done"]
    play(g, 0, "use A3")
    assert legal(g) == ["target player_1", "target player_2", "target player_3"]
    play(g, 0, "target player_1")
    assert legal(g) == ["give G", "give 1"]
    play(g, 0, "give 1")
    assert hand(g, 0) == "G 1 1 6" and hand(g, 1) == "1 6 6 6"  # drawn before the 1 arrived
    assert held(g, 0) == {"A3": "back"}
    assert g.phase == Phase.DOGFIGHT and g.actor == 0  # A3 is used once before a Campaign


def test_giving_garros_away_changes_the_starting_player():
    g = engine(4, hands={0: "G 1", 1: "7 7"}, tokens={0: {"A3": "front"}})
    play(g, 0, "use A3", "target player_1", "give G")
    assert g.garros_holder() == 1 and g.phase == Phase.DOGFIGHT and g.actor == 1


def test_pre_campaign_tokens_are_offered_clockwise_from_the_garros_holder():
    g = engine(4, hands={2: "G 1 1"}, tokens={0: {"A3": "front"}, 3: {"A3": "front"}})
    assert g.actor == 3  # seat 2 holds Garros but no token: seat 3, then seat 0
    play(g, 3, "done")
    assert g.phase == Phase.PRE_CAMPAIGN and g.actor == 0
    play(g, 0, "done")
    assert g.phase == Phase.DOGFIGHT and g.actor == 2


def test_swap_two_gives_two_chosen_cards_to_a_chosen_opponent():
    g = engine(3, hands={0: "G 1 2 3", 1: "8 8", 2: "9 10"}, tokens={0: {"D1": "back"}})
    play(g, 0, "use D1", "target player_2")
    assert legal(g) == ["give G", "give 1", "give 2"]  # the 3 alone could not be followed
    play(g, 0, "give 2")
    assert legal(g) == ["give 3"]
    play(g, 0, "give 3")
    assert hand(g, 0) == "G 1 9 10" and hand(g, 2) == "2 3"
    assert held(g, 0) == {}  # the second use returned D1 to the Aerodrome


def test_both_swap_tokens_before_one_campaign():
    g = engine(3, hands={0: "G 1 2 3", 1: "8 8", 2: "9 10"},
               tokens={0: {"A3": "front", "D1": "front"}})  # fmt: skip
    play(g, 0, "use A3", "target player_1", "give 1")
    assert legal(g) == ["use D1", "done"]
    assert hand(g, 0) == "G 2 3 8" and hand(g, 1) == "1 8"
    play(g, 0, "use D1", "target player_1", "give 2", "give 3")
    assert g.phase == Phase.DOGFIGHT and g.actor == 0
    assert hand(g, 0) == "G 1 8 8" and hand(g, 1) == "2 3"
    assert held(g, 0) == {"A3": "back", "D1": "back"}
