"""Every example of the Asrus rulebook, played through the env as a scenario.

Examples 1-6 share one table: destination 8 (Earth) and the number cards 9, 9,
7, 6, 12 in Example 1 (9 is played twice, which is why Example 4 calls it the
major number); destination 6 and the cards 4, 8, 3, 9, 6 in Example 2. Each
player holds a second card so that the game goes on and the state after the
turn can be read. Everyone starts with 90 points (3-5 players).
"""

from __future__ import annotations

import pytest

from flockgym.envs import asrus_v0

AGENTS = [f"player_{i}" for i in range(5)]
SECOND_CARDS = ["13", "13", "14", "14", "10"]


def play_turn(env, moves: list[str]) -> None:
    """Commit one move per seat, in seat order, as action strings."""
    for agent, move in zip(AGENTS, moves, strict=True):
        assert env.agent_selection == agent
        env.step(env.unwrapped.string_to_action(agent, move))


def table(first_cards: list[str], destination: str, specials=None, stones=None, deposit=0):
    env = asrus_v0.env(num_players=5)
    hands = {a: [c, s] for a, c, s in zip(AGENTS, first_cards, SECOND_CARDS, strict=True)}
    options = {"hands": hands, "destination": destination, "deposit": deposit}
    options["specials"] = specials or {a: [] for a in AGENTS}
    if stones:
        options["stones"] = stones
    env.reset(seed=0, options=options)
    return env


EXAMPLE_1 = ["9", "9", "7", "6", "12"]
EXAMPLE_2 = ["4", "8", "3", "9", "6"]


def points(env) -> list[float]:
    return [env.unwrapped.scores[a] for a in AGENTS]


def test_example_1_closest_unique_distance_wins():
    env = table(EXAMPLE_1, "8")
    play_turn(env, EXAMPLE_1)
    game = env.unwrapped.asrus
    assert game.last_result.outcome.kind == "closest"
    assert game.last_result.outcome.winner == 3  # the 6: distance 2, unique
    assert points(env) == [88, 88, 88, 98, 88]  # 2 from each of the 4 others
    assert game.destination == 6


def test_example_2_draw_every_player_deposits_the_closest_distance():
    env = table(EXAMPLE_2, "6")
    play_turn(env, EXAMPLE_2)
    game = env.unwrapped.asrus
    assert game.last_result.outcome.kind == "draw"
    assert points(env) == [88, 88, 88, 88, 88]
    assert game.deposit == 10
    assert game.destination == 6  # no winner: the destination stays


def test_deposits_go_to_the_next_winner():
    env = table(EXAMPLE_2, "6")
    play_turn(env, EXAMPLE_2)
    play_turn(env, SECOND_CARDS)  # 13 13 14 14 10 to destination 6: the 10 wins
    game = env.unwrapped.asrus
    assert game.last_result.outcome.winner == 4
    assert game.deposit == 0
    assert points(env) == [84, 84, 84, 84, 88 + 16 + 10]


def test_example_3_close_reduces_the_distance_by_half():
    specials = {a: [] for a in AGENTS} | {"player_1": ["C"]}
    env = table(EXAMPLE_2, "6", specials=specials)
    play_turn(env, ["4", "8+C", "3", "9", "6"])
    game = env.unwrapped.asrus
    assert game.last_result.outcome.winner == 1  # 1.5, closest and unique
    assert points(env) == [88, 98, 88, 88, 88]  # paid the original distance 2
    assert game.destination == 8


def test_example_4_majority_wins_before_distance():
    specials = {a: [] for a in AGENTS} | {"player_0": ["M"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    play_turn(env, ["9+M", "9", "7", "6", "12"])
    game = env.unwrapped.asrus
    assert game.last_result.outcome.kind == "majority"
    assert points(env) == [94, 89, 89, 89, 89]  # 1 point from each of the 4 others
    assert game.destination == 9


def test_example_4_two_majorities_on_the_same_number_have_no_effect():
    specials = {a: [] for a in AGENTS} | {"player_0": ["M"], "player_1": ["M"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    play_turn(env, ["9+M", "9+M", "7", "6", "12"])
    game = env.unwrapped.asrus
    assert game.last_result.outcome.kind == "closest"
    assert game.last_result.outcome.winner == 3


def test_majority_on_a_number_that_is_not_major_has_no_effect():
    specials = {a: [] for a in AGENTS} | {"player_2": ["M"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    play_turn(env, ["9", "9", "7+M", "6", "12"])
    assert env.unwrapped.asrus.last_result.outcome.winner == 3


@pytest.mark.parametrize("retro_seat", [4, 0])
def test_example_5_retrograde_farthest_unique_wins_whoever_plays_it(retro_seat):
    specials = {a: [] for a in AGENTS} | {AGENTS[retro_seat]: ["R"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    moves = list(EXAMPLE_1)
    moves[retro_seat] += "+R"
    play_turn(env, moves)
    game = env.unwrapped.asrus
    assert game.last_result.outcome.kind == "farthest"
    assert game.last_result.outcome.winner == 4  # the 12
    assert points(env)[4] == 90 + 16
    assert sum(points(env)) == 450
    assert game.destination == 12


def test_example_6_double_doubles_the_winnings():
    specials = {a: [] for a in AGENTS} | {"player_3": ["D"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    play_turn(env, ["9", "9", "7", "6+D", "12"])
    assert points(env) == [86, 86, 86, 106, 86]  # 2 x 2 from each of the 4 others
    assert env.unwrapped.asrus.destination == 6


def test_example_6_blackhole_sends_the_winnings_to_the_deposit():
    specials = {a: [] for a in AGENTS} | {"player_3": ["D"], "player_0": ["B"]}
    env = table(EXAMPLE_1, "8", specials=specials)
    play_turn(env, ["9+B", "9", "7", "6+D", "12"])
    game = env.unwrapped.asrus
    assert points(env) == [86, 86, 86, 90, 86]
    assert game.deposit == 16
    assert game.destination == 6  # the winner's card still becomes the destination


@pytest.mark.parametrize(
    ("card", "destination", "special", "expected_take"),
    [
        ("1", "4", "", 3 * 2),
        ("15", "12", "", 3 * 2),
        ("1", "4", "+D", 3 * 4),
        ("15", "12", "+D", 3 * 4),
    ],
)
def test_additional_rule_winning_with_1_or_15_doubles(card, destination, special, expected_take):
    cards = [card, "9", "9", "10", "10"] if destination == "4" else [card, "7", "7", "8", "8"]
    specials = {a: [] for a in AGENTS} | {"player_0": ["D"]}
    env = table(cards, destination, specials=specials)
    play_turn(env, [card + special, *cards[1:]])
    assert env.unwrapped.asrus.last_result.outcome.winner == 0
    assert points(env) == [90 + 4 * expected_take] + [90 - expected_take] * 4
