"""The Asrus readings the rulebook leaves open (rulings 6, 7, 13 and 20), each
with the option that offers the other reading, and the option sets refused
because no game could be dealt or could ever end."""

from __future__ import annotations

import pytest

from flockgym.envs import OptionError, asrus_v0
from flockgym.envs.asrus.rules import (
    AsrusConfig,
    AsrusGame,
    Play,
    TurnRules,
    decide_winner,
    lottery_can_single_out,
    resolve_turn,
    settle,
)
from flockgym.envs.core.rng import make_rng


def plays(*texts: str) -> list[Play]:
    return [Play.from_text(t) for t in texts]


# ---- ruling 7: two Retrogrades -------------------------------------------------------


def test_two_retrogrades_reverse_the_turn_once_by_default():
    # Destination 8: 9 at 1 (closest), 12 at 4 (farthest).
    outcome = decide_winner(8, plays("9+R", "12+R", "6"))
    assert (outcome.kind, outcome.winner, outcome.distance) == ("farthest", 1, 4)


def test_under_cancel_two_retrogrades_restore_the_closest_rule():
    rules = TurnRules(retrogrades="cancel")
    outcome = decide_winner(8, plays("9+R", "12+R", "6"), rules)
    assert (outcome.kind, outcome.winner, outcome.distance) == ("closest", 0, 1)


def test_under_cancel_three_retrogrades_reverse_again():
    rules = TurnRules(retrogrades="cancel")
    outcome = decide_winner(8, plays("9+R", "12+J:R", "6+R", "7"), rules)
    # distances 1, 4, 2, 1: 9 and 7 collide, 12 is the farthest unique
    assert (outcome.kind, outcome.winner) == ("farthest", 1)


def test_the_retrogrades_option_reaches_the_env():
    env = asrus_v0.env(num_players=3, retrogrades="cancel")
    hands = {"player_0": ["9"], "player_1": ["12"], "player_2": ["6"]}
    specials = {"player_0": ["R"], "player_1": ["R"], "player_2": []}
    env.reset(seed=0, options={"hands": hands, "specials": specials, "destination": "8"})
    for text in ("9+R", "12+R", "6"):
        env.step(env.unwrapped.string_to_action(env.agent_selection, text))
    last = env.unwrapped.view("player_0")["last_turn"]
    assert (last["kind"], last["winner"], last["distance"]) == ("closest", "player_0", 1)


# ---- ruling 20: the deposit of a drawn Retrograde turn --------------------------------


def test_a_drawn_retrograde_turn_deposits_the_closest_distance_by_default():
    # Destination 8: 9/7 at 1 and 11/5 at 3 collide: a draw under Retrograde.
    result, after, deposit = settle(8, plays("9+R", "7", "11", "5"), [20, 20, 20, 20], 0)
    assert result.outcome.kind == "draw" and result.outcome.distance == 1
    assert after == [19, 19, 19, 19] and deposit == 4


def test_under_farthest_a_drawn_retrograde_turn_deposits_the_farthest_distance():
    rules = TurnRules(retrograde_deposit="farthest")
    result, after, deposit = settle(8, plays("9+R", "7", "11", "5"), [20, 20, 20, 2], 0, rules)
    assert result.outcome.distance == 3
    assert after == [17, 17, 17, 0] and deposit == 11  # the last player pays what they have


def test_the_farthest_deposit_applies_only_to_reversed_turns():
    rules = TurnRules(retrograde_deposit="farthest")
    result, _, deposit = settle(8, plays("9", "7", "11", "5"), [20, 20, 20, 20], 0, rules)
    assert result.outcome.distance == 1 and deposit == 4


def test_under_cancel_and_farthest_two_retrogrades_deposit_the_closest():
    rules = TurnRules(retrogrades="cancel", retrograde_deposit="farthest")
    result, _, deposit = settle(8, plays("9+R", "7+R", "11", "5"), [20] * 4, 0, rules)
    assert result.outcome.distance == 1 and deposit == 4


# ---- ruling 6: numbers tied for the most copies -----------------------------------------


def test_numbers_tied_for_most_are_not_major_by_default():
    # 9 and 7 twice each: no major number, the Majority does nothing; 12 at 4 ... 6 at 2 wins.
    outcome = decide_winner(8, plays("9+M", "9", "7", "7", "6"))
    assert (outcome.kind, outcome.winner) == ("closest", 4)


def test_under_all_a_majority_on_a_number_tied_for_most_wins():
    rules = TurnRules(majority_ties="all")
    outcome = decide_winner(8, plays("9+M", "9", "7", "7", "6"), rules)
    assert (outcome.kind, outcome.winner, outcome.distance) == ("majority", 0, 1)


def test_under_all_two_majorities_on_tied_numbers_have_no_effect():
    rules = TurnRules(majority_ties="all")
    outcome = decide_winner(8, plays("9+M", "9", "7+M", "7", "6"), rules)
    assert (outcome.kind, outcome.winner) == ("closest", 4)


def test_under_all_a_majority_on_a_number_played_less_does_nothing():
    rules = TurnRules(majority_ties="all")
    outcome = decide_winner(8, plays("9", "9", "7", "7", "6+M"), rules)
    assert (outcome.kind, outcome.winner) == ("closest", 4)


# ---- ruling 13: a lottery that drawing cannot decide --------------------------------------


def only_sevens_and_eights() -> list[int]:
    """``removed_numbers`` that leave one 7 and eight 8s (the issue's deck)."""
    counts = AsrusConfig().number_counts
    return [n for n, c in counts.items() if n not in (7, 8) for _ in range(c)] + [7] * 6


def test_the_pile_can_single_out_a_lowest_card_only_with_two_numbers_and_enough_cards():
    pile = [0] * 16
    pile[8] = 8
    assert not lottery_can_single_out(pile, 3)  # every card an 8: ties for ever
    pile[7] = 1
    assert lottery_can_single_out(pile, 3)
    assert not lottery_can_single_out(pile, 10)  # nine cards for ten players


def test_a_lottery_over_a_pile_of_one_number_is_shared():
    # 3 players, one 7 and eight 8s; the 7 is the destination, so the pile holds 8s only.
    config = AsrusConfig.from_options(
        3,
        hand_size=1,
        specials_per_player=0,
        removed_numbers=only_sevens_and_eights(),
    )
    game = AsrusGame.new(config, make_rng(0), hands={0: [8], 1: [8], 2: [8]}, destination=7)
    resolve_turn(game, plays("8", "8", "8"))  # all at distance 1: a draw, 3 deposited
    lottery = game.last_lottery
    assert game.over and lottery is not None
    assert lottery.draws == [] and lottery.winners == (0, 1, 2) and lottery.share == 1
    assert game.points == [90, 90, 90] and game.deposit == 0


def test_a_shared_lottery_leaves_what_does_not_divide_in_the_deposit():
    config = AsrusConfig.from_options(
        3,
        hand_size=1,
        specials_per_player=0,
        removed_numbers=only_sevens_and_eights(),
    )
    game = AsrusGame.new(
        config, make_rng(0), hands={0: [8], 1: [8], 2: [8]}, destination=7, deposit=2
    )
    resolve_turn(game, plays("8", "8", "8"))  # 2 + 3 deposited
    lottery = game.last_lottery
    assert lottery is not None and lottery.amount == 5 and lottery.share == 1
    assert game.points == [90, 90, 90] and game.deposit == 2


def test_a_lottery_with_fewer_cards_than_players_is_shared():
    # 8 players, hands of 1, a deck of 8 cards. The 9 wins (distance 1 to the
    # fixed 8) and lies on the table, so 7 cards are left for 8 players to draw.
    deck = {2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 9: 1, 10: 1, 11: 1}
    removed = [n for n, c in AsrusConfig().number_counts.items() for _ in range(c - deck.get(n, 0))]
    config = AsrusConfig.from_options(
        8, hand_size=1, specials_per_player=1, removed_numbers=removed
    )
    hands = {seat: [card] for seat, card in enumerate(sorted(deck))}
    game = AsrusGame.new(config, make_rng(0), hands=hands, specials={0: ["B"]})
    resolve_turn(game, plays("2+B", "3", "4", "5", "6", "9", "10", "11"))
    result, lottery = game.last_result, game.last_lottery
    assert result is not None and result.outcome.winner == 5 and result.blackhole
    assert game.over and lottery is not None
    assert sum(game.number_pile) == 7 and lottery.draws == []
    assert lottery.winners == tuple(range(8)) and lottery.amount == 7 and lottery.share == 0
    assert game.deposit == 7  # seven points do not make one each for eight: they stay


def test_the_lottery_still_draws_when_the_pile_can_decide():
    game = AsrusGame.new(
        AsrusConfig.from_options(4, hand_size=1, specials_per_player=0, rounds=2),
        make_rng(5),
        hands={0: [9], 1: [9], 2: [6], 3: [6]},
        destination=8,
    )
    resolve_turn(game, plays("9", "9", "6", "6"))
    lottery = game.last_lottery
    assert lottery is not None and len(lottery.winners) == 1 and lottery.draws
    assert game.points[lottery.winners[0]] == 90 - 1 + 4 and game.deposit == 0


# ---- refused option sets ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"num_players": 3, "rounds": None, "target": 271},
            r"target=271 can never be reached: num_players=3 x starting_points=90 puts only "
            r"270 points on the table; allowed target: 1\.\.270",
        ),
        (
            {"num_players": 4, "starting_points": 10, "target": 41},
            r"target=41 can never be reached.*allowed target: 1\.\.40",
        ),
        (
            {"num_players": 8, "hand_size": 6, "removed_numbers": [8] * 8 + [7] * 7 + [9] * 7},
            r"hand_size=6 with num_players=8 and removed_numbers=\[7, 7, .*cannot be dealt: "
            r"the deck holds 42 number cards for 8 hands; allowed hand_size: 1\.\.5",
        ),
    ],
)
def test_impossible_option_sets_are_refused_at_construction(options, message):
    with pytest.raises(OptionError, match=message):
        asrus_v0.env(**options)


def test_a_reachable_target_with_no_round_limit_is_accepted():
    env = asrus_v0.env(num_players=3, rounds=None, target=270)
    env.reset(seed=0)
    assert env.unwrapped.max_steps == 100_000
