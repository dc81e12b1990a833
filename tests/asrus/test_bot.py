"""The Asrus heuristic bot: legal, sensible in clear-cut spots, seeded, and
better than random (the thousands-of-games figure is in docs/baselines.md)."""

from __future__ import annotations

import numpy as np
import pytest
from aec_helpers import random_action

from flockgym.envs import asrus_v0, make_bot
from flockgym.envs.asrus.bots import (
    AsrusHeuristicBot,
    Candidate,
    WinModel,
    opponent_distance_probabilities,
    unseen_counts,
)
from flockgym.envs.core import RandomBot, play_game

AGENTS = [f"player_{i}" for i in range(5)]


def decide(hands: dict, destination: str, specials: dict | None = None, seat: int = 0) -> str:
    """The bot's move for ``seat`` in a scenario (earlier seats commit at random)."""
    env = asrus_v0.env(num_players=5)
    given = {a: [] for a in AGENTS} | (specials or {})
    env.reset(seed=1, options={"hands": hands, "destination": destination, "specials": given})
    rng = np.random.default_rng(0)
    for _ in range(seat):
        env.step(random_action(env.last()[0], rng))
    agent = AGENTS[seat]
    action = make_bot("asrus_v0", "heuristic", seed=0).act(env.last()[0], env.unwrapped.view(agent))
    assert env.last()[0]["action_mask"][action]
    return env.unwrapped.action_to_string(agent, action)


def test_never_plays_the_destination_number_when_it_has_another_card():
    hands = {"player_0": ["8", "13"], "player_1": ["8", "12"], "player_2": ["7", "12"],
             "player_3": ["9", "11"], "player_4": ["6", "10"]}  # fmt: skip
    assert decide(hands, "8") == "13"


def test_uses_close_rather_than_a_crowded_distance():
    # Destination 8: its 8 can never win and the 9 sits where the unseen 7s and
    # 9s crowd; Close makes the 9 a distance of 0.5 that nobody can match.
    hands = {"player_0": ["9", "8"], "player_1": ["9", "14"], "player_2": ["7", "3"],
             "player_3": ["9", "2"], "player_4": ["7", "2"]}  # fmt: skip
    assert decide(hands, "8", specials={"player_0": ["C"]}) == "9+C"


def test_spends_a_special_it_would_otherwise_lose_at_the_round_end():
    hands = {"player_0": ["12"], "player_1": ["9"], "player_2": ["7"],
             "player_3": ["10"], "player_4": ["6"]}  # fmt: skip
    assert "+" in decide(hands, "8", specials={"player_0": ["D"]})


def test_win_model_counts_duplicates_and_closer_players():
    certain = {1.0: 1.0}  # every opponent plays distance 1
    model = WinModel(certain, opponents=3, retro=0.0)
    assert model.chance(1.0, False) == 0.0  # duplicated for sure
    assert model.chance(2.0, False) == 1.0  # distance 1 is never played alone
    assert model.chance(0.5, False) == 1.0  # Close beats them all
    assert model.chance(0.0, False) == 0.0  # distance 0 never wins


def hidden_from(game: dict, seat: int) -> list[int]:
    """Copies of each number (index = number) that ``seat`` cannot see at the deal,
    read from the saved state: the other seats' hands and the face-down pile (the
    face-up destination card is in neither)."""
    others = [hand for s, hand in enumerate(game["hands"]) if s != seat]
    return [0] + [game["number_pile"][n] + sum(h[n] for h in others) for n in range(1, 16)]


@pytest.mark.parametrize(
    ("options", "hidden"),
    [
        # the 64-card deck less a 12-card hand and the destination card
        ({"num_players": 3}, 64 - 12 - 1),
        ({"num_players": 9}, 64 - 7 - 1),
        # the 1 and the 15 taken out of the deck as well
        ({"num_players": 3, "removed_numbers": [1, 15]}, 62 - 12 - 1),
    ],
)
def test_opponent_model_counts_exactly_the_cards_a_seat_cannot_see(options, hidden):
    env = asrus_v0.env(**options)
    for seed in (3, 4):
        env.reset(seed=seed)
        game = env.unwrapped.state_dict()["game"]
        for seat, agent in enumerate(env.possible_agents):
            unseen = unseen_counts(env.unwrapped.view(agent))
            assert unseen == hidden_from(game, seat), (seed, agent)
            assert sum(unseen) == hidden
    view = env.unwrapped.view("player_0")
    unseen = unseen_counts(view)
    probs = opponent_distance_probabilities(unseen, int(view["destination"]), len(view["hand"]))
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)


def test_same_seed_same_moves():
    env = asrus_v0.env(num_players=4)
    moves = []
    for _ in range(2):
        bots = {a: make_bot("asrus_v0", "heuristic", seed=i) for i, a in enumerate(AGENTS[:4])}
        moves.append(play_game(env, bots, seed=5).moves)
    assert moves[0] == moves[1]


def test_beats_random_bots():
    """200 seeded games, the heuristic in one seat (rotating) against random bots.
    Equal players win 20%; it wins well over a quarter (docs/baselines.md gives the
    duplicate-format figures of the three fields)."""
    env = asrus_v0.env(num_players=5)
    wins = points = 0.0
    games = 200
    for game in range(games):
        seat = AGENTS[game % 5]
        bots = {a: RandomBot(1000 * game + i) for i, a in enumerate(AGENTS)}
        bots[seat] = make_bot("asrus_v0", "heuristic", seed=game)
        record = play_game(env, bots, seed=game)
        wins += (seat in record.winners) / len(record.winners)
        points += record.scores[seat]
    assert wins / games > 0.27
    assert points / games > 100  # 90 at the start; random seats lose on average


def test_the_card_is_drawn_in_proportion_to_its_value():
    """Copies of a bot that always played its best card would collide; the draw
    keeps a card worth twice another twice as likely, and never picks one worth 0."""
    bot = AsrusHeuristicBot(seed=3)
    plain = [
        Candidate(5, None, False, win_chance=0.5, gain=8.0),  # value 4
        Candidate(9, None, False, win_chance=0.25, gain=8.0),  # value 2
        Candidate(8, None, False, win_chance=0.0, gain=0.0),  # distance 0: value 0
    ]
    picks = [bot._mixed_choice(plain).number for _ in range(3000)]
    assert picks.count(8) == 0
    assert abs(picks.count(5) / len(picks) - 2 / 3) < 0.03
