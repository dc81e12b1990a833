"""The rulebook's turn sequence and examples, played through the env as
scenarios: the Player Chart, the dealer, the guess and play order, following
colour, the trick example, the scoring example, the AstroBoard and its power
both ways, the floor at zero, the deck running short, running totals and the
end of the game."""

from __future__ import annotations

import json

import numpy as np
import pytest
from aec_helpers import random_action
from astrobirdz_helpers import (
    all_cards,
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

from flockgym.envs import astrobirdz_v0
from flockgym.envs.astrobirdz import data
from flockgym.envs.astrobirdz.rules import Phase

pytestmark = pytest.mark.usefixtures("either_engine")
"""Every rule test runs on both engines (``conftest.py``)."""


def test_the_rulebooks_trick_example_red_4_wins():
    """Trump red; blue 3, blue 8, green 7, red 2, red 4: the red 4 wins."""
    # 5 players, turn 2: player_1 deals, player_2 leads
    hands = {2: ["B3", "Y1"], 3: ["B8", "R9"], 4: ["G7", "Y2"], 0: ["R2", "Y3"], 1: ["R4", "Y4"]}
    env = table(5, hands=hands, trump="R3", turn=2, berzerkerbirdz=False)
    steps(env, [(s, "guess 1") for s in (2, 3, 4, 0, 1)])
    step(env, 2, "B3")
    assert legal_strings(env) == ["B8"]  # player_3 must follow blue (holds the red 9)
    step(env, 3, "B8")
    assert legal_strings(env) == ["Y2", "G7"]  # no blue: any card
    step(env, 4, "G7")
    step(env, 0, "R2")
    step(env, 1, "R4")
    assert game(env).trick_winners == [1]
    assert env.agent_selection == "player_1"  # the winner leads the next trick
    assert env.unwrapped.view("player_0")["previous_trick"] == [
        {"player": "player_2", "card": "B3"}, {"player": "player_3", "card": "B8"},
        {"player": "player_4", "card": "G7"}, {"player": "player_0", "card": "R2"},
        {"player": "player_1", "card": "R4"},
    ]  # fmt: skip


def scoring_table(p0_guess: int, p1_guess: int, **options):
    """Turn 3 of 2 players: player_0 holds three high trumps and takes every trick."""
    env = table(2, hands={0: ["R9", "R8", "R7"], 1: ["B1", "B2", "B3"]}, trump="R3", turn=3,
                berzerkerbirdz=False, **options)  # fmt: skip
    steps(env, [(1, f"guess {p1_guess}"), (0, f"guess {p0_guess}")])
    steps(env, [(1, "B1"), (0, "R7"), (0, "R8"), (1, "B2"), (0, "R9"), (1, "B3")])
    return env


def test_the_rulebooks_scoring_example_3_plus_5_plus_10():
    """The AstroBoard holder guesses 3 and wins 3: 3 + 5 + 10 = 18."""
    env = scoring_table(3, 0)
    g = game(env)
    assert totals_of(env, "tricks") == [3, 0]
    assert totals_of(env, "exact") == [5, 5]
    assert totals_of(env, "highest") == [5, 0]
    assert totals_of(env, "astroboard") == [5, 0]
    assert turn_totals(env) == [18, 5]
    assert g.scores_ == [18, 5]


def test_guessing_incorrectly_loses_a_point_per_trick_and_the_floor_is_zero():
    env = scoring_table(0, 3)  # player_0 wins 3 having guessed 0; player_1 guessed 3
    assert totals_of(env, "penalty") == [3, 3]
    assert turn_totals(env) == [0, 0]  # 3 - 3 = 0, and 0 - 3 floored at 0
    assert game(env).scores_ == [0, 0]


def test_a_miss_costs_a_point_per_trick():
    env = scoring_table(2, 2)  # 3 tricks, guessed 2: 3 - 1; guessed 2, won 0: 0 - 2 -> 0
    assert turn_totals(env) == [2, 0]


def test_highest_bonus_among_correct_guesses_and_the_overall_option():
    # player_0 guesses 2 and wins 2; player_1 guesses 3 and wins 1 (the highest guess)
    def play(**options):
        env = table(2, hands={0: ["R9", "R8", "B1"], 1: ["B9", "G1", "G2"]}, trump="R3",
                    turn=3, berzerkerbirdz=False, **options)  # fmt: skip
        steps(env, [(1, "guess 3"), (0, "guess 2")])
        steps(env, [(1, "G1"), (0, "R8"), (0, "R9"), (1, "G2"), (0, "B1"), (1, "B9")])
        return env

    assert totals_of(play(), "highest") == [5, 0]
    assert turn_totals(play()) == [2 + 5 + 5, 0]  # 1 - 2 floored for player_1
    assert totals_of(play(highest_bonus="highest_overall"), "highest") == [0, 0]


def test_highest_bonus_ties_one_player_or_all():
    """Both guess 1 and win 1: the bonus goes to the fewest points so far; with
    ``highest_bonus_ties='all'`` to both."""

    def play(**options):
        env = table(2, hands={0: ["B9", "R1"], 1: ["B1", "R9"]}, trump="G3", turn=2,
                    berzerkerbirdz=False, scores={0: 20, 1: 10}, **options)  # fmt: skip
        steps(env, [(0, "guess 1"), (1, "guess 1")])
        steps(env, [(0, "B9"), (1, "B1"), (0, "R1"), (1, "R9")])
        return env

    assert totals_of(play(), "highest") == [0, 5]
    env = play(highest_bonus_ties="all")
    assert totals_of(env, "highest") == [5, 5]
    assert totals_of(env, "astroboard") == [5, 0]  # player_0 guessed first: holds the board


# ---- the AstroBoard ------------------------------------------------------------------


def test_the_astroboard_goes_to_the_highest_guess_ties_to_the_highest_bird():
    env = table(3, berzerkers={0: 2, 1: 6, 2: 3}, hands={0: ["R9"], 1: ["B1"], 2: ["G1"]},
                trump="R3")  # fmt: skip
    # Surfette (player_1) declines; Max (player_0) guesses last
    step(env, 1, "decline")
    steps(env, [(1, "guess 1"), (2, "guess 0"), (0, "guess 1")])
    assert game(env).astroboard == 1  # tie 1-1: Surfette (6) beats Max (2)
    assert env.unwrapped.view("player_2")["astroboard"] == "player_1"


def astroboard_table(guesses: dict[int, int], hands: dict[int, list[str]], trump: str = "R3"):
    """3 players, turn 2: player_1 deals; guesses and leads start at player_2."""
    env = table(3, hands=hands, trump=trump, turn=2, berzerkerbirdz=False)
    steps(env, [(s, f"guess {guesses[s]}") for s in (2, 0, 1)])
    return env


def test_astroboard_power_takes_a_trick_from_a_player_one_over():
    env = astroboard_table({2: 2, 0: 0, 1: 0}, {2: ["R9", "B1"], 0: ["B9", "G1"], 1: ["G2", "Y1"]})
    steps(env, [(2, "R9"), (0, "G1"), (1, "G2"), (2, "B1"), (0, "B9"), (1, "Y1")])
    g = game(env)
    assert g.phase == Phase.ASTROBOARD and env.agent_selection == "player_2"
    assert legal_strings(env) == ["player_0", "decline"]
    step(env, 2, "player_0")
    assert g.phase == Phase.ASTROBOARD_TRICK and env.agent_selection == "player_2"
    assert legal_strings(env) == ["trick 2"]  # player_0's only trick
    step(env, 2, "trick 2")
    assert totals_of(env, "tricks") == [0, 0, 2]
    assert turn_totals(env) == [5, 5, 2 + 5 + 5 + 5]
    assert env.unwrapped.view("player_1")["astroboard_transfer"] is None  # next turn began
    assert g.last_trick_winners == [2, 0]  # who won in play


def test_astroboard_power_gives_a_trick_to_a_player_one_short():
    env = astroboard_table({2: 1, 0: 1, 1: 0}, {2: ["R9", "R8"], 0: ["B1", "B2"], 1: ["G1", "G2"]})
    steps(env, [(2, "R8"), (0, "B1"), (1, "G1"), (2, "R9"), (0, "B2"), (1, "G2")])
    assert game(env).astroboard == 2  # tie at 1 without birds: the first to guess
    assert legal_strings(env) == ["player_0", "decline"]
    step(env, 2, "player_0")
    assert legal_strings(env) == ["trick 1", "trick 2"]  # either of player_2's tricks
    step(env, 2, "trick 1")
    assert game(env).last_trick_winners == [2, 2]  # who won in play
    assert totals_of(env, "tricks") == [1, 0, 1]
    assert turn_totals(env) == [1 + 5, 5, 1 + 5 + 5 + 5]


def test_astroboard_power_may_be_declined():
    env = astroboard_table({2: 2, 0: 0, 1: 0}, {2: ["R9", "B1"], 0: ["B9", "G1"], 1: ["G2", "Y1"]})
    steps(env, [(2, "R9"), (0, "G1"), (1, "G2"), (2, "B1"), (0, "B9"), (1, "Y1")])
    step(env, 2, "decline")
    assert totals_of(env, "tricks") == [1, 0, 1]
    # player_1's 0 is the only correct guess, so the highest correct one
    assert turn_totals(env) == [0, 5 + 5, 0]


def test_astroboard_power_needs_a_partner_off_by_one_the_other_way():
    # the holder is one short, but nobody took one too many: no decision
    env = astroboard_table({2: 2, 0: 1, 1: 0}, {2: ["R9", "B1"], 0: ["B9", "G1"], 1: ["G2", "Y1"]})
    steps(env, [(2, "R9"), (0, "G1"), (1, "G2"), (2, "B1"), (0, "B9"), (1, "Y1")])
    assert game(env).phase != Phase.ASTROBOARD
    assert turn_totals(env) == [1 + 5 + 5, 5, 0]


# ---- which trick the AstroBoard moves: the holder's choice ------------------------------

OTHER = {"R": "OY", "O": "RY", "Y": "RO", "G": "RO", "B": "RO"}


def colour_hands(colour: str) -> tuple[dict[int, list[str]], list[str]]:
    """player_2 holds the 9 and 8 of ``colour`` (the trump); trick 1 takes three
    cards of it, trick 2 one."""
    x, z = OTHER[colour]
    hands = {
        2: [f"{colour}9", f"{colour}8"],
        0: [f"{colour}5", f"{x}1"],
        1: [f"{colour}6", f"{z}1"],
    }
    plays = [f"{colour}9", f"{colour}5", f"{colour}6", f"{colour}8", f"{x}1", f"{z}1"]
    return hands, plays


def number_hands(trump: str, number: int) -> tuple[dict[int, list[str]], list[str]]:
    """player_2 holds two trump cards; trick 1 takes two cards numbered ``number``, trick 2 none."""
    colour = trump[0]
    high = f"{colour}7" if number == 8 else f"{colour}8"
    x, z = ("B", "R") if colour != "B" else ("G", "R")
    hands = {2: [f"{colour}9", high], 0: [f"{x}{number}", f"{x}1"], 1: [f"{z}{number}", f"{z}1"]}
    plays = [f"{colour}9", f"{x}{number}", f"{z}{number}", high, f"{x}1", f"{z}1"]
    return hands, plays


# card, hands and plays, card points of trick 1, of trick 2
CARD_POINT_RULES = [
    ("R1", colour_hands("R"), 3 * 1, 1 * 1),
    ("R4", colour_hands("R"), 3 * 2, 1 * 2),
    ("O1", colour_hands("O"), 3 * 2, 1 * 2),
    ("O4", colour_hands("O"), 3 * 3, 1 * 3),
    ("Y1", colour_hands("Y"), 3 * 2, 1 * 2),
    ("Y5", number_hands("Y5", 5), 2 * 3, 0),
    ("G1", colour_hands("G"), 3 * 2, 1 * 2),
    ("G3", number_hands("G3", 3), 2 * 5, 0),
    ("G4", colour_hands("G"), 3 * 3, 1 * 3),
    ("G8", number_hands("G8", 8), 2 * 5, 0),
    ("B1", colour_hands("B"), 3 * 2, 1 * 2),
    ("B4", colour_hands("B"), 3 * 3, 1 * 3),
]


def give_table(trump: str, hands: dict[int, list[str]], plays: list[str]):
    """3 players, turn 2: player_2 (AstroBoard, guessed 1) takes both tricks;
    player_0 guessed 1 and took none; player_1 guessed 0."""
    env = astroboard_table({2: 1, 0: 1, 1: 0}, hands, trump=trump)
    order = [2, 0, 1, 2, 0, 1]
    steps(env, list(zip(order, plays, strict=True)))
    assert game(env).trick_winners == [2, 2]
    step(env, 2, "player_0")
    return env


@pytest.mark.parametrize(("trump", "deal", "first", "second"), CARD_POINT_RULES)
def test_the_astroboard_holder_chooses_which_trick_to_give_and_it_changes_the_score(
    trump, deal, first, second
):
    """Under each of the twelve card-point rules: giving trick 1 or trick 2
    moves exactly the difference of their card points between the two players."""
    assert first != second
    totals = {}
    for given, kept in (("trick 1", second), ("trick 2", first)):
        env = give_table(trump, *deal)
        assert legal_strings(env) == ["trick 1", "trick 2"]
        step(env, 2, given)
        received = first + second - kept
        assert totals_of(env, "card_points") == [received, 0, kept]
        # holder: 1 trick + 5 exact + 5 highest correct guess + 5 AstroBoard; partner: 1 + 5
        assert turn_totals(env) == [1 + 5 + received, 5, 16 + kept]
        totals[given] = turn_totals(env)
    holder_gain = totals["trick 2"][2] - totals["trick 1"][2]
    assert holder_gain == first - second
    assert totals["trick 1"][0] - totals["trick 2"][0] == first - second


def test_every_card_point_rule_has_its_astroboard_scenario():
    with_points = [r.card for r in data.RULE_CARDS if r.effect.card_points]
    assert [card for card, *_ in CARD_POINT_RULES] == with_points
    assert len(with_points) == 12


def take_table(trump: str = "R4"):
    """3 players, turn 3 (player_2 deals, player_0 leads): player_0 guessed 1
    and takes tricks 1 (three reds) and 2 (one red); player_2, the AstroBoard
    holder, guessed 2 and takes only trick 3."""
    hands = {0: ["R9", "R8", "B1"], 1: ["R2", "G1", "B2"], 2: ["R3", "G9", "B9"]}
    env = table(3, hands=hands, trump=trump, turn=3, berzerkerbirdz=False)
    steps(env, [(0, "guess 1"), (1, "guess 0"), (2, "guess 2")])
    plays = ["R9", "R2", "R3", "R8", "G1", "G9", "B1", "B2", "B9"]
    steps(env, list(zip([0, 1, 2] * 3, plays, strict=True)))
    assert game(env).trick_winners == [0, 0, 2]
    step(env, 2, "player_0")
    return env


@pytest.mark.parametrize(("taken", "totals"), [("trick 1", [1 + 5 + 2, 5, 17 + 6]),
                                               ("trick 2", [1 + 5 + 6, 5, 17 + 2])])  # fmt: skip
def test_the_astroboard_holder_chooses_which_trick_to_take(taken, totals):
    """Red 4: the holder takes one of player_0's two tricks, 6 or 2 card points;
    holder: 2 tricks + 5 exact + 5 highest + 5 AstroBoard = 17."""
    env = take_table()
    assert game(env).phase == Phase.ASTROBOARD_TRICK
    assert legal_strings(env) == ["trick 1", "trick 2"]  # trick 3 is the holder's own
    step(env, 2, taken)
    assert turn_totals(env) == totals


def test_the_trick_choice_sees_every_finished_trick_with_its_cards_and_holder():
    env = take_table()
    raw = env.unwrapped
    view = raw.view("player_2")
    assert view["phase"] == "astroboard_trick" and view["astroboard_partner"] == "player_0"
    assert [(t["number"], t["held_by"], t["won_by"], [c["card"] for c in t["cards"]])
            for t in view["tricks"]] == [
        (1, "player_0", "player_0", ["R9", "R2", "R3"]),
        (2, "player_0", "player_0", ["R8", "G1", "G9"]),
        (3, "player_2", "player_2", ["B1", "B2", "B9"]),
    ]  # fmt: skip
    assert view["tricks"][0]["cards"][1] == {"player": "player_1", "card": "R2"}
    # the observation: one slot per finished trick, its cards and who holds it
    slots = observation_field(env, 2, "tricks").reshape(data.MAX_HAND, 54 + 3)
    for k, (cards, holder) in enumerate(
        [(["R9", "R2", "R3"], 0), (["R8", "G1", "G9"], 0), (["B1", "B2", "B9"], 2)]
    ):
        assert np.flatnonzero(slots[k, :54]).tolist() == sorted(data.parse_card(c) for c in cards)
        assert np.flatnonzero(slots[k, 54:]).tolist() == [(holder - 2) % 3]  # from player_2's seat
    assert not slots[3:].any()
    assert np.flatnonzero(observation_field(env, 2, "astroboard_partner")).tolist() == [1]
    assert observation_field(env, 2, "phase")[Phase.ASTROBOARD_TRICK] == 1


# ---- turn structure -------------------------------------------------------------------


@pytest.mark.parametrize(("players", "turns"), sorted(data.TURNS.items()))
def test_player_chart_turn_t_deals_t_cards_and_the_game_ends(players, turns, either_engine):
    env = astrobirdz_v0.env(num_players=players, trump_rules=False, engine=either_engine)
    env.reset(seed=players)
    rng = np.random.default_rng(players)
    sizes = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        g = game(env)
        if g.phase == Phase.GUESS and all(x < 0 for x in g.guesses):
            sizes.append((g.turn, len(hand(env, int(agent[-1])))))
        env.step(random_action(observation, rng))
    assert sizes == [(t, t) for t in range(1, turns + 1)]
    assert game(env).over and env.unwrapped.winners


def test_the_lowest_bird_deals_and_guesses_start_at_the_dealers_left():
    env = table(4, berzerkers={0: 5, 1: 3, 2: 2, 3: 4})
    g = game(env)
    assert g.dealer == 2  # Max holds the lowest bird number
    # player_3 guesses first; Nitro (player_0) peeks just before his guess; Max last
    assert g.guess_order == [3, 0, 1, 2]
    step(env, 3, "guess 0")
    assert g.phase == Phase.NITRO_PEEK and env.agent_selection == "player_0"
    steps(env, [(0, "player_1"), (0, "guess 0"), (1, "guess 0"), (2, "guess 0")])
    # no Zoom: the dealer's left (player_3) leads
    assert g.phase == Phase.PLAY and env.agent_selection == "player_3"
    assert g.trick_order == [3, 0, 2, 1]  # Speedster plays last


def test_without_berzerkerbirdz_the_dealer_rotates_left():
    env = table(3, berzerkerbirdz=False, trump_rules=False)
    g = game(env)
    dealers = []
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if not dealers or dealers[-1][0] != g.turn:
            dealers.append((g.turn, g.dealer))
        env.step(random_action(observation, rng))
    assert dealers == [(t, (t - 1) % 3) for t in range(1, 6)]


def test_running_totals_add_up_each_turn(either_engine):
    env = astrobirdz_v0.env(num_players=3, engine=either_engine)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    expected = [0, 0, 0]
    seen_turn = 1
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(random_action(observation, rng))
        g = game(env)
        if g.turn != seen_turn or g.over:
            expected = [e + t for e, t in zip(expected, turn_totals(env), strict=True)]
            assert g.scores_ == expected
            seen_turn = g.turn
    assert env.unwrapped.scores == {f"player_{s}": float(expected[s]) for s in range(3)}
    best = max(expected)
    assert env.unwrapped.winners == [f"player_{s}" for s in range(3) if expected[s] == best]


# ---- the deck running short -------------------------------------------------------------


def test_extra_draws_stop_at_what_the_deck_allows():
    # 6 players, turn 7: 42 dealt + the trump card leave 11: one more card each, not three
    env = table(6, trump="P3", turn=7, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(6)] == [8] * 6
    assert len(game(env).deck) == 5
    # turn 8: 48 dealt leave 5: no extra card at all
    env = table(6, trump="R6", turn=8, berzerkerbirdz=False)
    assert [len(hand(env, s)) for s in range(6)] == [8] * 6
    assert data.parse_card("R6") not in [c for s in range(6) for c in game(env).hands]


def test_orange_3_reshuffles_the_discards_when_the_deck_runs_out():
    # all twelve 1s and 2s in the hands of 6 players on turn 8; the deck holds 5
    low = [f"{c}{k}" for c in data.COLOURS for k in (1, 2)]
    high = [f"{c}{k}" for c in data.COLOURS for k in range(3, 10) if f"{c}{k}" != "O3"]
    hands = {s: low[2 * s : 2 * s + 2] + high[6 * s : 6 * s + 6] for s in range(6)}
    env = table(6, hands=hands, trump="O3", turn=8, berzerkerbirdz=False)
    g = game(env)
    assert [len(hand(env, s)) for s in range(6)] == [8] * 6
    assert all_cards(g) == list(range(54))
    assert len(g.deck) + len(g.discards) == 5
    # whatever came back from the reshuffled discards was kept
    kept = [c for s in range(6) for c in hand(env, s) if c[1] in "12"]
    assert g.discards == [] and len(g.deck) == 5
    assert len(kept) == 12 - len(g.deck)


def test_the_last_turns_astroboard_move_is_shown_when_the_game_ends_and_saves(either_engine):
    """3 players, turn 5 (the last): player_2 guessed 4 and takes all five
    tricks; it gives trick 3 to player_0 (guessed 1): the game ends, the view
    shows the move, and the final state saves and loads."""
    hands = {2: ["R9", "R8", "R7", "R6", "R5"], 0: ["B1", "B2", "B3", "B4", "B5"],
             1: ["G1", "G2", "G3", "G4", "G5"]}  # fmt: skip
    env = table(3, hands=hands, trump="R4", turn=5, berzerkerbirdz=False)
    steps(env, [(2, "guess 4"), (0, "guess 1"), (1, "guess 0")])
    for k in range(5):
        steps(env, [(2, hands[2][k]), (0, hands[0][k]), (1, hands[1][k])])
    steps(env, [(2, "player_0"), (2, "trick 3")])
    g = game(env)
    assert g.over and g.holders == [2, 2, 0, 2, 2]
    view = env.unwrapped.view("player_1")
    assert view["astroboard_transfer"] == {"from": "player_2", "to": "player_0", "trick": 3}
    assert [t["held_by"] for t in view["tricks"]] == ["player_2"] * 2 + ["player_0"] + [
        "player_2"
    ] * 2
    assert view["astroboard_partner"] is None
    assert turn_totals(env) == [1 + 5 + 2, 5, 4 + 5 + 5 + 5 + 4 * 2]
    other = astrobirdz_v0.env(num_players=3, berzerkerbirdz=False, engine=either_engine)
    other.reset(seed=0)
    other.unwrapped.load_state_dict(json.loads(json.dumps(env.unwrapped.state_dict())))
    assert other.unwrapped.view("player_1") == view
