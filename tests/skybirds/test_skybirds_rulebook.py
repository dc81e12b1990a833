"""Every example of the Skybirds rulebook, as a hand-built game on the rules
engine, with the exact numbers the rules give (sizes, values, Medallions,
places, tokens, VP)."""

from __future__ import annotations

import pytest
from skybirds_helpers import engine, held, legal, moves, play

from flockgym.envs.skybirds import data
from flockgym.envs.skybirds.rules import Phase, SkybirdsConfig, new_game

# ---- setup -------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "hand", "boxed"), [(2, 16, 8), (3, 12, 4), (4, 10, 0)])
def test_deal_by_player_count(players, hand, boxed):
    """2/3 players: Garros aside, 8/4 cards unseen into the box, Garros back;
    hands of 16/12/10 and Garros always dealt."""
    for seed in range(25):
        g = new_game(SkybirdsConfig(num_players=players), seed=seed)
        assert [sum(h) for h in g.hands] == [hand] * players
        assert sum(g.box) == boxed and g.box[data.GARROS] == 0
        assert g.garros_holder() == [h[data.GARROS] for h in g.hands].index(1)
        total = [sum(col) for col in zip(*g.hands, g.box, strict=True)]
        assert total == [1, 5, 5, 5, 5, 5, 5, 3, 3, 2, 1]  # the deck on the back cover


def test_the_deck_and_its_medallions():
    assert data.DECK_SIZE == 40
    assert dict(zip(range(1, 11), data.CARD_COUNTS[1:], strict=True)) == {
        1: 5, 2: 5, 3: 5, 4: 5, 5: 5, 6: 5, 7: 3, 8: 3, 9: 2, 10: 1,
    }  # fmt: skip
    assert [v for v in range(1, 11) if data.MEDALLIONS[v]] == [9, 10]


def test_garros_holder_starts_and_must_play_him():
    g = engine(4, hands={2: "G 1 2 2 7"})
    assert g.actor == 2 and g.garros_due
    assert legal(g) == ["G 1", "G 2", "G 2 2", "G 7", "G"]


# ---- Garros ------------------------------------------------------------------------


def test_garros_plus_a_four_is_size_two_value_four():
    g = engine(4, hands={0: "G 4 7"})
    play(g, 0, "G 4")
    assert (g.squadron_size, g.table.size, g.table.value, g.table.medallions) == (2, 2, 4, 0)


def test_garros_plus_a_pair_of_fives_is_size_three_value_five():
    g = engine(4, hands={0: "G 5 5 8"})
    play(g, 0, "G 5 5")
    assert (g.squadron_size, g.table.size, g.table.value) == (3, 3, 5)


def test_garros_with_two_twos_or_a_one():
    """'Garros and two other 2s ... Size=3 and Value=2. Alternatively ... Garros
    and a single 1-value card for a Squadron of Size=2, Value=1.'"""
    g = engine(4, hands={0: "G 1 2 2"})
    play(g, 0, "G 2 2")
    assert (g.table.size, g.table.value) == (3, 2)
    g = engine(4, hands={0: "G 1 2 2"})
    play(g, 0, "G 1")
    assert (g.table.size, g.table.value) == (2, 1)


def test_garros_alone_wins_at_once_and_his_player_leads_again():
    g = engine(4, hands={0: "G 3 8", 1: "9 10"})
    play(g, 0, "G")
    assert g.table is None and g.actor == 0 and not g.garros_due
    assert g.last_winner == 0 and g.last_squadron.cards == (data.GARROS,)
    assert "pass" not in legal(g) and legal(g) == ["3", "8"]
    assert g.played[data.GARROS] == 1


# ---- Dogfights --------------------------------------------------------------------


def no_garros(players: int, **hands: str) -> dict[int, str]:
    """Every hand given (so Garros stays in the box and seat 0 leads)."""
    return {int(k[1:]): v for k, v in hands.items()}


def test_fives_cannot_follow_fives():
    g = engine(4, hands=no_garros(4, p0="5 5 1", p1="5 5 2", p2="6 6 3", p3="4 4 9"), leader=0)
    play(g, 0, "5 5")
    assert legal(g) == ["pass"]  # 5 5 does not beat 5 5
    play(g, 1, "pass")
    assert legal(g) == ["6 6", "pass"]
    play(g, 2, "6 6")
    assert legal(g) == ["9", "pass"]  # a pair of 4s is not higher; the 9 has a Medallion


def test_a_medallion_single_beats_a_larger_squadron():
    g = engine(4, hands=no_garros(4, p0="3 3 3 1", p1="9 2", p2="4 4 4 10", p3="8 8 8"), leader=0)
    play(g, 0, "3 3 3")
    play(g, 1, "9")
    assert (g.squadron_size, g.table.size, g.table.value, g.table.medallions) == (3, 1, 9, 1)
    assert legal(g) == ["10", "pass"]  # 4 4 4 has no Medallion; the 10 has one and is higher
    play(g, 2, "pass")
    assert legal(g) == ["pass"]  # 8 8 8 cannot beat a Medallion


def test_two_medallions_beat_one():
    g = engine(4, hands=no_garros(4, p0="4 4 1", p1="10 2", p2="9 9 3", p3="5 5"), leader=0)
    play(g, 0, "4 4")
    play(g, 1, "10")
    assert legal(g) == ["9 9", "pass"]  # two Medallions beat one, though 9 < 10
    play(g, 2, "9 9")
    assert (g.table.medallions, g.table.value) == (2, 9)
    assert legal(g) == ["pass"]


def test_a_squadron_must_match_the_size_set_by_the_leader():
    g = engine(4, hands=no_garros(4, p0="2 2 1", p1="7 7 7 8", p2="3", p3="6 6"), leader=0)
    play(g, 0, "2 2")
    assert legal(g) == ["7 7", "pass"]  # not 7 7 7, not a single 8


def test_passed_players_may_come_back_and_the_dogfight_ends_at_its_last_player():
    g = engine(3, hands=no_garros(3, p0="2 5 9", p1="6 1 1", p2="3 4 4"), leader=0)
    moves(g, [(0, "2"), (1, "pass"), (2, "3"), (0, "5"), (1, "6")])  # seat 1 comes back
    assert g.passes == 0 and g.last_player == 1
    moves(g, [(2, "pass"), (0, "pass")])
    assert g.table is None and g.actor == 1 and g.last_winner == 1  # seat 1 won and leads


def test_a_winner_who_is_out_hands_the_lead_to_the_next_player_with_cards():
    g = engine(3, hands=no_garros(3, p0="2 7", p1="5", p2="3 4"), leader=0)
    play(g, 0, "2")
    play(g, 1, "5")  # seat 1 goes out first and takes its token at once
    assert g.phase == Phase.TAKE and g.actor == 1
    play(g, 1, "take A1")
    assert g.phase == Phase.DOGFIGHT and g.actor == 2
    moves(g, [(2, "pass"), (0, "pass")])  # play comes back to seat 1, who is out
    assert g.table is None and g.actor == 2  # the next player clockwise with cards leads


def test_players_who_are_out_are_skipped():
    g = engine(4, hands=no_garros(4, p0="1 8 8", p1="2", p2="3 4", p3="5 6"), leader=0)
    moves(g, [(0, "1"), (1, "2"), (1, "+1VP")])
    assert g.actor == 2
    moves(g, [(2, "3"), (3, "5")])
    assert g.actor == 0  # seat 1 is skipped
    moves(g, [(0, "8"), (2, "pass"), (3, "pass")])
    assert g.actor == 0 and g.table is None


# ---- Campaign end and taking tokens -----------------------------------------------


def short_three_player_campaign(**kwargs):
    """p0 goes out first, p2 second, p1 is left with a card (last place)."""
    g = engine(3, hands=no_garros(3, p0="7", p1="2 8", p2="3 9"), leader=0, **kwargs)
    play(g, 0, "7")
    play(g, 0, "take A1")
    moves(g, [(1, "8"), (2, "9"), (1, "pass"), (2, "3")])
    return g


def test_last_place_takes_only_a_plus_one_token_in_a_three_player_game():
    """'In a three-player game ... the player who was left with cards (3rd place)
    can only take one of the +1VP tokens ... even though they finished 3rd.'"""
    g = short_three_player_campaign()
    assert g.phase == Phase.TAKE and g.actor == 2 and g.finish == [0, 2, 1]
    assert legal(g) == ["take A1", "take A2", "take A3", "+1VP"]  # 2nd place: ribbons 1-2-3
    play(g, 2, "take A3")
    assert held(g, 0) == {"A1": "front"} and held(g, 2) == {"A3": "front"}
    assert held(g, 1) == {} and g.plus_one == [0, 1, 0]  # given, not asked
    assert g.campaign == 2 and g.phase in (Phase.DOGFIGHT, Phase.PRE_CAMPAIGN)
    assert [sum(h) for h in g.hands] == [12, 12, 12]


def test_in_a_two_player_game_last_place_takes_by_its_ribbon():
    g = engine(2, hands=no_garros(2, p0="7", p1="2 8"), leader=0)
    play(g, 0, "7")
    assert g.phase == Phase.TAKE and g.actor == 0
    play(g, 0, "take A2")
    assert g.phase == Phase.TAKE and g.actor == 1  # the campaign ended: second place takes
    assert legal(g) == ["take A1", "take A2", "take A3", "+1VP"]
    play(g, 1, "take A2")
    assert held(g, 0) == {"A2": "front"} and held(g, 1) == {"A2": "front"}


def campaign_state(players: int, finish: list[int], tokens=None, plus_one=None, **kwargs):
    """An engine whose Campaign has just ended in ``finish`` order (built by
    hand, to ask what each place may take)."""
    g = engine(players, tokens=tokens, plus_one=plus_one, **kwargs)
    g.finish = list(finish)
    return g


def takeable(g, seat: int) -> list[str]:
    return [g.action_to_string(seat, a) for a in g.take_options(seat)]


def test_what_each_place_may_take_by_ribbon_in_four_players():
    tokens = {s: {"A1": "front", "A2": "front", "B1": "front", "C1": "front"} for s in range(4)}
    g = campaign_state(4, [0, 1, 2, 3], tokens=tokens)
    # B2 and C2 have ribbon 1-2, B3 needs A3, D1 (after C1) is 1st place only
    assert takeable(g, 0) == ["take A3", "take B2", "take D1", "+1VP"]
    assert takeable(g, 1) == ["take A3", "take B2", "+1VP"]  # not the 1st-only D1
    assert takeable(g, 2) == ["take A3", "+1VP"]  # 3rd in 4p: only 1-2-3 ribbons
    assert takeable(g, 3) == ["+1VP"]  # 4th never takes a progress token


def test_third_in_a_three_player_game_takes_no_progress_token():
    g = campaign_state(3, [0, 1, 2])
    assert takeable(g, 2) == ["+1VP"]
    assert takeable(g, 1) == ["take A1", "take A2", "take A3", "+1VP"]


def test_first_tokens_come_from_the_starting_column():
    """'Your first token has to be taken from one of the 3 tokens marked A
    unless you are taking a 1VP token.'"""
    g = campaign_state(4, [0, 1, 2, 3])
    assert takeable(g, 0) == ["take A1", "take A2", "take A3", "+1VP"]


def test_the_middle_a_token_opens_the_next_column():
    """'If you decide to take the middle token, your next token can be either B
    or C' (here: A2 opens the Tiebreaker B2, whose arrows lead to C1 and C2)."""
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"A2": "front"}})
    assert takeable(g, 0) == ["take A1", "take A3", "take B2", "+1VP"]
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"A2": "front", "B2": "front"}})
    assert takeable(g, 0) == ["take A1", "take A3", "take C1", "take C2", "+1VP"]


def test_c_needs_b_in_hand_even_if_b_was_owned_before():
    """'You cannot take Token C if Token B is currently on your Aerodrome, even
    if you previously owned Token B.' Using B twice returns it to the mat."""
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"A1": "front", "B1": "back"}})
    assert "take C1" in takeable(g, 0)
    g._use_token(0, g.config.names.index("B1"))  # the second use returns B1
    assert held(g, 0) == {"A1": "front"}
    assert "take C1" not in takeable(g, 0) and "take B1" in takeable(g, 0)


def test_use_up_a_once_you_hold_b():
    """'Once you get Token B, you are free to use up Token A without hurting your
    ability to get Token C': only the immediate prerequisite counts."""
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"A1": "back", "B1": "front"}})
    g._use_token(0, g.config.names.index("A1"))  # A1 goes back to the Aerodrome
    assert held(g, 0) == {"B1": "front"}
    assert "take C1" in takeable(g, 0)


def test_prerequisites_need_only_one_arrow_except_the_armistice():
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"B3": "front"}})
    assert "take C2" in takeable(g, 0)  # C2 <- B2 | B3: one is enough
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"D1": "front"}})
    assert "take Armistice" not in takeable(g, 0)  # Armistice <- D1 & D2
    both = {"D1": "front", "D2": "back"}
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: both, 1: both})
    assert "take Armistice" in takeable(g, 0)
    assert "take Armistice" not in takeable(g, 1)  # 1st place only


def test_the_shorter_game_skips_one_final_prerequisite():
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"D1": "front"}}, short_game=True)
    assert "take Armistice" in takeable(g, 0)


def test_plus_one_tokens_run_out_after_eight():
    g = campaign_state(4, [0, 1, 2, 3], plus_one={3: 8})
    assert takeable(g, 3) == []


# ---- token uses and VP -------------------------------------------------------------


def test_a_token_flips_after_one_use_and_returns_after_two():
    g = engine(4, hands=no_garros(4, p0="5 5 5 1", p1="2 2", p2="3", p3="4"), leader=0,
               tokens={1: {"A1": "front"}})  # fmt: skip
    assert g.vp(1) == 2
    play(g, 0, "5 5 5")
    play(g, 1, "use A1", "add 2", "done")  # a single 2 with a Medallion beats 5 5 5
    assert (g.table.size, g.table.value, g.table.medallions) == (1, 2, 1)
    assert held(g, 1) == {"A1": "back"} and g.vp(1) == 1
    g2 = engine(4, hands=no_garros(4, p0="5 5 5 1", p1="2 2", p2="3", p3="4"), leader=0,
                tokens={1: {"A1": "back"}})  # fmt: skip
    play(g2, 0, "5 5 5")
    play(g2, 1, "use A1", "add 2", "done")
    assert held(g2, 1) == {} and g2.vp(1) == 0  # returned to the Aerodrome


def test_the_same_token_is_used_once_per_turn():
    g = engine(4, hands=no_garros(4, p0="5 1", p1="2 2", p2="3", p3="4"), leader=0,
               tokens={1: {"A1": "front", "C1": "front"}})  # fmt: skip
    play(g, 0, "5")
    play(g, 1, "use A1")
    assert "use A1" not in legal(g) and "use C1" in legal(g)
    play(g, 1, "use C1", "add 2", "done")
    assert g.table.medallions == 3  # one from A1, two from C1
    assert held(g, 1) == {"A1": "back", "C1": "back"}


def test_final_vp_counts_flipped_values_plus_ones_and_fractions():
    g = engine(4, tokens={0: {"A1": "front", "B1": "back", "B2": "front"}},
               plus_one={0: 3}, fractional={0: "1/2"})  # fmt: skip
    assert g.vp(0) == 2 + 2 + 3 + 3 + 0.5


# ---- trading ---------------------------------------------------------------------


def test_trading_plus_one_tokens_after_a_campaign():
    g = short_three_player_campaign(plus_one={1: 5})  # seat 1 finishes last (+1 -> 6)
    play(g, 2, "+1VP")
    assert g.phase == Phase.TRADE and g.actor == 1 and g.plus_one[1] == 6
    assert legal(g) == ["done", "trade 2 for A1", "trade 2 for A2", "trade 2 for A3"]
    play(g, 1, "trade 2 for A2")
    assert legal(g) == ["done", "trade 2 for A1", "trade 2 for A3", "trade 3 for B2"]
    play(g, 1, "trade 3 for B2")  # a 1-2 token costs three
    assert g.plus_one[1] == 1 and held(g, 1) == {"A2": "front", "B2": "front"}
    assert g.fractional[1] == 0  # the Tiebreaker brings the 3/4 token
    assert g.phase != Phase.TRADE  # nothing affordable is left: the next Campaign


def test_first_only_tokens_cost_four_and_the_armistice_is_never_bought():
    g = campaign_state(4, [0, 1, 2, 3], tokens={0: {"C1": "front", "D2": "front"}},
                       plus_one={0: 8})  # fmt: skip
    options = [g.action_to_string(0, a) for a in g.trade_options(0)]
    assert "trade 4 for D1" in options
    g.tokens[0][g.config.names.index("D1")] = 1
    options = [g.action_to_string(0, a) for a in g.trade_options(0)]
    assert not any("Armistice" in o for o in options)


# ---- Tiebreaker, fractional VP, Armistice -----------------------------------------


def test_tiebreakers_take_the_fractional_tokens_in_order():
    g = campaign_state(4, [0, 1, 2, 3], tokens={s: {"A1": "front"} for s in range(4)})
    tiebreaker = g.config.names.index("B2")
    for seat in (2, 0, 3, 1):
        g._acquire(seat, tiebreaker)
    assert g.fractional == [1, -1, 0, 2]  # seat 2: 3/4, seat 0: 1/2, seat 3: 1/4, seat 1 none
    assert g.vp(2) == 2 + 3 + 0.75 and g.vp(1) == 2 + 3


def armistice_table(**kwargs):
    """Seat 0 goes out first holding D1 and D2, then takes the Armistice."""
    tokens = {0: {"D1": "front", "D2": "front"}}
    hands = no_garros(4, p0="7", p1="8 1 1", p2="2 2 2", p3="3 4 5 6")
    return engine(4, hands=hands, tokens=tokens, leader=0, **kwargs)


def test_the_armistice_ends_the_great_war_after_the_current_dogfight():
    g = armistice_table()
    play(g, 0, "7")
    assert legal(g)[-2:] == ["take Armistice", "+1VP"]
    play(g, 0, "take Armistice")
    assert g.armistice_by == 0 and g.fractional[0] == 0 and not g.over
    moves(g, [(1, "8"), (2, "pass"), (3, "pass")])  # play comes back to seat 1: over
    assert g.over and g.phase == Phase.OVER and g.current_player() == -1
    # those without a fractional token take one: seat 1 (2 cards), then 2 and 3
    # (3 and 4 cards): fewest cards first
    assert g.fractional == [0, 1, 2, -1]
    assert g.scores() == [5 + 5 + 8 + 0.75, 0.5, 0.25, 0.0]
    assert g.winners() == [0]


def test_armistice_players_finishing_the_last_dogfight_take_their_token():
    g = engine(4, hands=no_garros(4, p0="7", p1="8", p2="2 2", p3="3 4"), leader=0,
               tokens={0: {"D1": "front", "D2": "front"}})  # fmt: skip
    play(g, 0, "7", "take Armistice")
    play(g, 1, "8")  # seat 1 goes out in the final Dogfight
    assert g.phase == Phase.TAKE and g.actor == 1
    play(g, 1, "take A2")
    assert g.fractional[1] == 1  # and takes the largest fractional token left
    moves(g, [(2, "pass"), (3, "pass")])
    assert g.over and held(g, 1) == {"A2": "front"} and g.fractional == [0, 1, 2, -1]


def test_armistice_ending_after_the_campaign_as_an_option():
    g = armistice_table(armistice_ends="campaign")
    play(g, 0, "7", "take Armistice")
    moves(g, [(1, "8"), (2, "pass"), (3, "pass")])
    assert not g.over and g.table is None and g.actor == 1  # the Campaign goes on
    moves(g, [(1, "1 1"), (1, "+1VP")])  # seat 1 goes out second
    assert g.fractional[1] == 1
    moves(g, [(2, "2 2"), (3, "pass"), (2, "2"), (2, "+1VP")])  # seat 2 third, seat 3 last
    assert g.over and g.finish == [0, 1, 2, 3]
    assert g.fractional == [0, 1, 2, -1] and g.plus_one == [0, 1, 1, 1]


# ---- truncation --------------------------------------------------------------------


def test_max_campaigns_truncates_a_great_war_that_does_not_end():
    g = engine(3, hands=no_garros(3, p0="7", p1="2 8", p2="3 9"), leader=0, max_campaigns=1)
    play(g, 0, "7", "+1VP")
    moves(g, [(1, "8"), (2, "9"), (1, "pass"), (2, "3"), (2, "+1VP")])
    assert g.truncated and not g.over and g.current_player() == -1
    assert g.winners() == [] and g.scores() == [1, 1, 1]
