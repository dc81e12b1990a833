"""The Asrus rules beyond the rulebook's examples, on the pure engine and
through scenarios: payments, deposits and the lottery, rounds and game end,
the 8-player destination, jokers, card movement."""

from __future__ import annotations

import pytest

from flockgym.envs.asrus import data
from flockgym.envs.asrus.rules import (
    NUM_ACTIONS,
    AsrusConfig,
    AsrusGame,
    Play,
    action_text,
    decide_winner,
    decode_action,
    encode_action,
    major_number,
    new_game,
    parse_action,
    resolve_turn,
    settle,
)
from flockgym.envs.core.rng import make_rng


def plays(*texts: str) -> list[Play]:
    return [Play.from_text(t) for t in texts]


# ---- tables --------------------------------------------------------------------


def test_deck_has_64_number_cards_and_10_specials():
    assert sum(data.NUMBER_COUNTS.values()) == 64
    assert [data.NUMBER_COUNTS[n] for n in data.NUMBERS] == [
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        7,
        6,
        5,
        4,
        3,
        2,
        1,
    ]
    assert len(data.SPECIAL_KINDS) * data.SPECIAL_COUNT_EACH == 10


@pytest.mark.parametrize(
    ("players", "points"), [(3, 90), (4, 90), (5, 90), (6, 73), (7, 57), (8, 46), (9, 45)]
)
def test_preparation_table_points(players, points):
    assert data.PREPARATION[players].points == points
    game = new_game(AsrusConfig.from_options(players), seed=0)
    assert game.points == [points] * players
    prep = data.PREPARATION[players]
    assert all(sum(h) == prep.number_cards for h in game.hands)
    assert all(sum(s) == prep.special_cards for s in game.specials)


def test_eight_players_play_to_a_fixed_8_with_no_card():
    game = new_game(AsrusConfig.from_options(8), seed=4)
    assert game.destination == 8 and not game.destination_card
    assert sum(sum(h) for h in game.hands) == 64  # every number card is dealt
    game.check_conservation()


# ---- actions ---------------------------------------------------------------------


def test_action_encoding_round_trips_every_id():
    for action in range(NUM_ACTIONS):
        assert parse_action(action_text(action)) == action
        assert encode_action(*decode_action(action)) == action


@pytest.mark.parametrize(
    ("text", "action"), [("1", 0), ("9+M", 108), ("15+J:T", 194), (" 9 + m ", 108)]
)
def test_action_strings(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("bad", ["0", "16", "9+Q", "9+J:Z", "nine", ""])
def test_unreadable_action_strings_name_the_forms(bad):
    with pytest.raises(ValueError, match="write a number card 1-15"):
        parse_action(bad)


# ---- who wins --------------------------------------------------------------------


def test_distance_zero_never_wins():
    outcome = decide_winner(8, plays("8", "9", "9", "7", "7"))
    assert outcome.kind == "draw" and outcome.distance == 1


def test_all_cards_on_the_destination_is_a_draw_without_deposit():
    outcome = decide_winner(8, plays("8", "8", "8"))
    assert outcome.kind == "draw" and outcome.distance == 0


def test_two_closes_at_the_same_distance_are_duplicates():
    outcome = decide_winner(8, plays("9+C", "7+C", "11"))
    assert (outcome.kind, outcome.winner) == ("closest", 2)


def test_close_breaks_a_tie_in_favour_of_its_player():
    assert decide_winner(8, plays("9", "7+C", "11")).winner == 1


def test_retrograde_with_close_makes_the_card_less_far():
    # 2 (distance 6) with Close counts 5.5, so the 13 (distance 5)... is not farther.
    assert decide_winner(8, plays("2+C", "13+R", "9")).winner == 0
    assert decide_winner(8, plays("2+C", "14+R", "9")).winner == 1


def test_major_number_needs_strictly_more_copies():
    assert major_number(plays("9", "9", "7", "7", "6")) is None
    assert major_number(plays("9", "9", "9", "7", "7")) == 9
    assert major_number(plays("3", "5", "7")) is None


def test_majority_on_the_destination_number_does_not_win():
    outcome = decide_winner(9, plays("9+M", "9", "7", "12"))
    assert outcome.kind == "closest" and outcome.winner == 2


def test_majority_beats_retrograde():
    outcome = decide_winner(8, plays("9+M", "9", "12+R", "5"))
    assert (outcome.kind, outcome.winner) == ("majority", 0)


def test_explosion_joker_voids_the_turn():
    result, after, deposit = settle(8, plays("9+J:X", "6", "12"), [10, 10, 10], 4)
    assert result.outcome.kind == "explosion"
    assert after == [10, 10, 10] and deposit == 4


def test_triple_joker_triples_and_stacks_with_the_sun():
    result, after, _ = settle(4, plays("1+J:T", "9", "9"), [50, 50, 50], 0)
    assert result.outcome.winner == 0
    assert after == [50 + 2 * 18, 50 - 18, 50 - 18]  # distance 3 x3 x2


def test_joker_declared_majority_counts_as_majority():
    outcome = decide_winner(8, plays("9+J:M", "9", "7", "6", "12"))
    assert (outcome.kind, outcome.winner) == ("majority", 0)


def test_joker_majority_and_card_majority_on_the_same_number_cancel():
    outcome = decide_winner(8, plays("9+J:M", "9+M", "7", "6", "12"))
    assert outcome.kind == "closest" and outcome.winner == 3


# ---- paying --------------------------------------------------------------------


def test_a_short_player_pays_what_it_has():
    result, after, _ = settle(8, plays("12", "9", "9"), [5, 3, 10], 0)
    # winner seat 0 at distance 4: seat 1 has 3, seat 2 pays 4
    assert after == [5 + 3 + 4, 0, 6]
    assert result.deltas == (7, -3, -4)


def test_draw_deposit_is_partial_when_short():
    _, after, deposit = settle(6, plays("4", "8", "3", "9", "6"), [1, 2, 3, 0, 9], 0)
    assert after == [0, 0, 1, 0, 7]
    assert deposit == 1 + 2 + 2 + 0 + 2


def test_blackhole_keeps_old_deposits_on_the_table():
    _, after, deposit = settle(8, plays("6", "7+B", "9"), [20, 20, 20], 7)
    assert after == [20, 18, 18]
    assert deposit == 7 + 4


def test_winner_takes_all_deposits():
    _, after, deposit = settle(8, plays("6", "9", "9"), [20, 20, 20], 7)
    assert after == [20 + 2 * 2 + 7, 18, 18] and deposit == 0


# ---- cards ----------------------------------------------------------------------


def test_cards_return_to_the_piles_and_the_winner_becomes_destination():
    config = AsrusConfig.from_options(3, hand_size=2, specials_per_player=1)
    game = AsrusGame.new(
        config, make_rng(0),
        hands={0: [6, 2], 1: [9, 2], 2: [9, 3]}, specials={0: ["D"], 1: ["B"], 2: []},
        destination=8,
    )  # fmt: skip
    pile_before = list(game.number_pile)
    specials_before = list(game.special_pile)
    resolve_turn(game, plays("6+D", "9", "9"))
    assert game.destination == 6
    assert game.number_pile[9] == pile_before[9] + 2
    assert game.number_pile[8] == pile_before[8] + 1  # the old destination goes back
    assert game.number_pile[6] == pile_before[6]  # the winner's 6 lies on the table
    assert game.special_pile[2] == specials_before[2] + 1  # the Double is back in its pile
    assert game.specials[0] == [0] * 6
    game.check_conservation()


# ---- rounds and game end -------------------------------------------------------


def one_card_game(players: int, cards=(9, 9, 6, 12), **options) -> AsrusGame:
    config = AsrusConfig.from_options(players, hand_size=1, specials_per_player=0, **options)
    hands = {seat: [card] for seat, card in enumerate(cards)}
    return AsrusGame.new(config, make_rng(5), hands=hands, destination=8)


def test_the_round_ends_when_the_hands_are_empty_and_the_game_after_rounds():
    game = one_card_game(4, rounds=1)
    resolve_turn(game, plays("9", "9", "6", "12"))
    assert game.over and game.winners() == [2]


def test_leftover_deposits_go_to_the_lowest_card_of_the_lottery():
    game = one_card_game(4, cards=(9, 9, 6, 6), rounds=2)
    resolve_turn(game, plays("9", "9", "6", "6"))  # 6 and 6, 9 and 9: a draw
    lottery = game.last_lottery
    assert lottery is not None and lottery.amount == 4
    last_draw = lottery.draws[-1]
    low = min(last_draw.values())
    assert [s for s, c in last_draw.items() if c == low] == list(lottery.winners)
    for earlier in lottery.draws[:-1]:  # every earlier draw was a tie for lowest
        low = min(earlier.values())
        assert sum(1 for c in earlier.values() if c == low) > 1
    assert game.points[lottery.winners[0]] == 90 - 1 + 4  # deposited 1, took all 4
    assert game.deposit == 0
    assert game.round == 2 and not game.over
    assert all(sum(h) == 1 for h in game.hands)  # cards re-dealt, stones kept
    game.check_conservation()


def test_target_ends_the_game_at_the_end_of_a_round():
    config = AsrusConfig.from_options(3, hand_size=1, specials_per_player=0, rounds=None, target=95)
    game = AsrusGame.new(config, make_rng(1), hands={0: [12], 1: [9], 2: [9]}, destination=8)
    resolve_turn(game, plays("12", "9", "9"))
    assert game.over and game.points == [98, 86, 86]


def test_target_not_reached_deals_a_new_round():
    config = AsrusConfig.from_options(
        3, hand_size=1, specials_per_player=0, rounds=None, target=200
    )
    game = AsrusGame.new(config, make_rng(1), hands={0: [12], 1: [9], 2: [9]}, destination=8)
    resolve_turn(game, plays("12", "9", "9"))
    assert not game.over and game.round == 2


def test_elimination_when_a_quarter_of_the_players_have_no_stones():
    config = AsrusConfig.from_options(5, hand_size=3, specials_per_player=0)
    hands = {0: [12, 2, 3], 1: [9, 2, 3], 2: [9, 4, 3], 3: [7, 4, 5], 4: [7, 5, 5]}
    game = AsrusGame.new(config, make_rng(1), hands=hands, destination=8, points={1: 4, 3: 1})
    resolve_turn(game, plays("12", "9", "9", "7", "7"))  # 12 wins 4 from each: two broke
    assert game.points == [90 + 4 + 1 + 4 + 4, 0, 86, 0, 86]  # seat 3 paid the 1 it had
    assert game.over  # ceil(5 / 4) = 2 players without stones


def test_elimination_can_be_switched_off():
    config = AsrusConfig.from_options(5, hand_size=3, specials_per_player=0, elimination=False)
    hands = {0: [12, 2, 3], 1: [9, 2, 3], 2: [9, 4, 3], 3: [7, 4, 5], 4: [7, 5, 5]}
    game = AsrusGame.new(config, make_rng(1), hands=hands, destination=8, points={1: 4, 3: 1})
    resolve_turn(game, plays("12", "9", "9", "7", "7"))
    assert not game.over


# ---- configuration ----------------------------------------------------------------


def test_impossible_hand_size_names_the_allowed_range():
    with pytest.raises(ValueError, match=r"allowed hand_size: 1\.\.7"):
        AsrusConfig.from_options(9, hand_size=8)


def test_unlimited_rounds_need_a_target():
    with pytest.raises(ValueError, match="needs a target"):
        AsrusConfig.from_options(5, rounds=None)


def test_jokers_join_the_special_pile():
    game = new_game(AsrusConfig.from_options(3, jokers=True, specials_per_player=4), seed=2)
    assert sum(game.special_pile) + sum(sum(s) for s in game.specials) == 13


def test_resolve_turn_says_what_it_needs():
    game = new_game(AsrusConfig.from_options(3), seed=0)
    with pytest.raises(ValueError, match="one play per seat: 3, got 2"):
        resolve_turn(game, plays("1", "2"))
    game.apply_action(game.legal_actions()[0])
    with pytest.raises(ValueError, match="1 seat\\(s\\) have already committed"):
        resolve_turn(game, plays("1", "2", "3"))


def test_removed_numbers_shrink_the_largest_hand():
    assert AsrusConfig.from_options(8).max_hand_size == 8
    assert AsrusConfig.from_options(8, removed_numbers=(8,), hand_size=7).max_hand_size == 7
    with pytest.raises(ValueError, match="removed_numbers takes 2 copies of 15; the deck holds 1"):
        AsrusConfig.from_options(5, removed_numbers=(15, 15))
