"""The heuristic bot: legal in every phase and option, sensible choices in
scenarios, and clearly better than the random bot."""

from __future__ import annotations

import pytest
from astrobirdz_helpers import step, steps, table

from flockgym.envs import RandomBot, make
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.bots import AstrobirdzHeuristicBot, effect_of, lead_win_chance
from flockgym.envs.core.play import play_game


def bot_action(env, seat: int) -> str:
    agent = f"player_{seat}"
    assert env.agent_selection == agent
    raw = env.unwrapped
    action = AstrobirdzHeuristicBot(0).act(env.last()[0], raw.view(agent))
    return raw.action_to_string(agent, action)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2},
        {"num_players": 4, "pass_cards": True},
        {"num_players": 6},
        {"num_players": 3, "berzerkerbirdz": False, "trump_rules": False},
    ],
)
def test_heuristic_bots_play_whole_games_legally(options):
    env = make("astrobirdz_v0", **options)
    bots = {a: AstrobirdzHeuristicBot(seed=i) for i, a in enumerate(env.possible_agents)}
    for seed in range(3):
        record = play_game(env, bots, seed=seed)  # an illegal action would raise
        assert record.winners and len(record.moves) > 20


def test_guess_counts_high_trumps_and_not_low_cards():
    # 4 players, turn 3: player_2 deals, player_3 guesses first
    hands = {3: ["B2", "G1", "G2"], 0: ["R9", "R8", "B1"]}
    env = table(4, hands=hands, trump="R3", turn=3, berzerkerbirdz=False)
    assert bot_action(env, 3) == "guess 0"
    step(env, 3, "guess 0")
    assert bot_action(env, 0) == "guess 2"


def test_wins_cheaply_when_it_needs_tricks_and_ducks_when_it_does_not():
    hands = {0: ["B9", "B4", "G1"], 1: ["B7", "B2", "G2"]}
    env = table(2, hands=hands, trump="R3", turn=3, berzerkerbirdz=False)
    steps(env, [(1, "guess 0"), (0, "guess 1"), (1, "B7")])
    assert bot_action(env, 0) == "B9"  # the only card that wins
    env = table(2, hands=hands, trump="R3", turn=3, berzerkerbirdz=False)
    steps(env, [(1, "guess 0"), (0, "guess 0"), (1, "B7")])
    assert bot_action(env, 0) == "B4"  # ducks under the 7


def test_names_its_strongest_colour_as_trump():
    env = table(2, hands={0: ["G1", "R1"], 1: ["B9", "B8"]}, trump="Y6", turn=2,
                berzerkerbirdz=False)  # fmt: skip
    assert env.agent_selection == "player_1"  # turn 2: player_1 deals and picks
    assert bot_action(env, 1) == "trump B"


def test_surfette_trades_away_low_cards_but_keeps_trump():
    hands = {0: ["R1", "Y2", "B9"], 1: ["G5", "G6", "G7"], 2: ["Y5", "Y6", "Y7"]}
    env = table(3, berzerkers={0: 6, 1: 1, 2: 4}, hands=hands, trump="R3", turn=3)
    assert bot_action(env, 0) == "player_1"
    step(env, 0, "player_1")
    assert bot_action(env, 0) == "choose Y2"
    step(env, 0, "choose Y2")
    assert bot_action(env, 0) == "decline"  # the red 1 is a trump card
    env = table(3, berzerkers={0: 6, 1: 1, 2: 4}, hands={0: ["B9", "G9", "Y9"]}, trump="R3",
                turn=3)  # fmt: skip
    assert bot_action(env, 0) == "decline"


def test_uses_the_astroboard_power():
    hands = {2: ["R9", "B1"], 0: ["B9", "G1"], 1: ["G2", "Y1"]}
    env = table(3, hands=hands, trump="R3", turn=2, berzerkerbirdz=False)
    steps(env, [(2, "guess 2"), (0, "guess 0"), (1, "guess 0")])
    steps(env, [(2, "R9"), (0, "G1"), (1, "G2"), (2, "B1"), (0, "B9"), (1, "Y1")])
    assert bot_action(env, 2) == "player_0"
    step(env, 2, "player_0")
    assert bot_action(env, 2) == "trick 2"  # player_0's only trick


def test_gives_away_the_trick_worth_the_fewest_card_points():
    """Red 4 (red cards taken score 2 each): player_2 took both tricks, one too
    many; trick 1 holds three reds, trick 2 one: it gives trick 2."""
    hands = {2: ["R9", "R8"], 0: ["R5", "O1"], 1: ["R6", "Y1"]}
    env = table(3, hands=hands, trump="R4", turn=2, berzerkerbirdz=False)
    steps(env, [(2, "guess 1"), (0, "guess 1"), (1, "guess 0")])
    steps(env, [(2, "R9"), (0, "R5"), (1, "R6"), (2, "R8"), (0, "O1"), (1, "Y1")])
    assert bot_action(env, 2) == "player_0"
    step(env, 2, "player_0")
    assert bot_action(env, 2) == "trick 2"


def test_takes_the_trick_worth_the_most_card_points():
    """Red 4: player_2, one short, takes one of player_0's tricks: trick 1
    (three reds, 6 points) rather than trick 2 (one red)."""
    hands = {0: ["R9", "R8", "B1"], 1: ["R2", "G1", "B2"], 2: ["R3", "G9", "B9"]}
    env = table(3, hands=hands, trump="R4", turn=3, berzerkerbirdz=False)
    steps(env, [(0, "guess 1"), (1, "guess 0"), (2, "guess 2")])
    plays = ["R9", "R2", "R3", "R8", "G1", "G9", "B1", "B2", "B9"]
    steps(env, list(zip([0, 1, 2] * 3, plays, strict=True)))
    assert bot_action(env, 2) == "player_0"
    step(env, 2, "player_0")
    assert bot_action(env, 2) == "trick 1"


def test_beats_random_bots_from_any_seat():
    env = make("astrobirdz_v0", num_players=4)
    wins = 0.0
    games = 60
    for game in range(games):
        hero = game % 4
        bots = {
            f"player_{s}": AstrobirdzHeuristicBot(game) if s == hero else RandomBot(game * 7 + s)
            for s in range(4)
        }
        record = play_game(env, bots, seed=500 + game)
        if f"player_{hero}" in record.winners:
            wins += 1 / len(record.winners)
    assert wins / games > 0.4  # a fair share is 0.25


def test_a_peeked_hand_counts_for_certain():
    effect = data.NO_RULE.effect
    b9, unknown = data.parse_card("B9"), list(range(40))
    trumps_it = ([data.parse_card("R2")],)
    follows_low = ([data.parse_card("B1"), data.parse_card("R2")],)
    assert lead_win_chance(b9, unknown, data.RED, effect, 1, 2, trumps_it) == 0.0
    assert lead_win_chance(b9, unknown, data.RED, effect, 1, 2, follows_low) == 1.0
    assert 0.0 < lead_win_chance(b9, unknown, data.RED, effect, 1, 2) < 1.0


def test_the_bot_judges_green_7_by_the_games_reading():
    """Leading its yellow 5 under Green 7: a sure trick only if no trump beats it."""
    for reading, beaten in (("beaten_by_higher_trump", True), ("never_beaten_by_trump", False)):
        env = table(2, hands={0: ["Y5"], 1: ["G9"]}, trump="G7", berzerkerbirdz=False,
                    green_7=reading)  # fmt: skip
        view = env.unwrapped.view("player_1")
        assert view["game_options"]["green_7"] == reading
        effect = effect_of(view)
        y5 = data.parse_card("Y5")
        assert (
            lead_win_chance(y5, [data.parse_card("G9")], data.GREEN, effect, 1, 1) == 0
        ) is beaten
