"""The six Berzerkerbirdz powers, each a real decision where the card gives
one, and each bird's points."""

from __future__ import annotations

import numpy as np
import pytest
from astrobirdz_helpers import (
    cards,
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
from flockgym.envs.astrobirdz.rules import Phase, bits

pytestmark = pytest.mark.usefixtures("either_engine")
"""Every rule test runs on both engines (``conftest.py``)."""


def test_zoom_leads_the_first_trick_and_scores_2():
    # Zoom (player_1) deals; without Zoom's power player_2 (dealer's left) would lead
    env = table(3, berzerkers={0: 2, 1: 1, 2: 4}, hands={0: ["B1"], 1: ["R5"], 2: ["G1"]},
                trump="R3")  # fmt: skip
    g = game(env)
    assert g.dealer == 1 and g.guess_order == [2, 1, 0]  # Max (player_0) guesses last
    steps(env, [(2, "guess 0"), (1, "guess 1"), (0, "guess 0")])
    assert env.agent_selection == "player_1" and g.trick_order == [1, 2, 0]
    steps(env, [(1, "R5"), (2, "G1"), (0, "B1")])
    assert totals_of(env, "berzerkerbird") == [3, 2, 0]
    assert turn_totals(env) == [5 + 3, 1 + 5 + 5 + 5 + 2, 5 + 0]


def test_max_guesses_after_everyone_else_and_scores_3():
    hands = {0: ["R9"], 1: ["B1"], 2: ["G1"], 3: ["Y1"]}
    env = table(4, berzerkers={0: 2, 1: 1, 2: 4, 3: 3}, hands=hands, trump="R3")
    g = game(env)
    assert g.dealer == 1
    assert g.guess_order == [2, 3, 1, 0]
    seen = []
    while g.phase == Phase.GUESS:
        seen.append(env.agent_selection)
        step(env, int(env.agent_selection[-1]), "guess 0")
    assert seen == ["player_2", "player_3", "player_1", "player_0"]
    # a four-way tie at 0: Turbo (player_2) takes the AstroBoard
    assert g.astroboard == 2
    steps(env, [(1, "B1"), (2, "G1"), (0, "R9"), (3, "Y1")])  # Zoom leads, Speedster last
    assert totals_of(env, "berzerkerbird") == [3, 2, 0, 4]
    # three correct 0s on 0 points each: the highest bird, Turbo, gets the bonus
    assert totals_of(env, "highest") == [0, 0, 5, 0]
    # Max: 1 trick - 1 off + 3; Zoom 5 + 2; Turbo 5 + 5 + 5 + 5; Speedster 5 + 4
    assert turn_totals(env) == [3, 7, 20, 9]


def test_speedster_plays_last_and_never_leads():
    # Zoom (player_0) leads; Speedster (player_1) plays after player_2
    hands = {0: ["B1", "G1"], 1: ["B9", "G9"], 2: ["B2", "G2"]}
    env = table(3, berzerkers={0: 1, 1: 3, 2: 4}, hands=hands, trump="R3", turn=2)
    g = game(env)
    guesses = {0: 0, 1: 2, 2: 0}
    steps(env, [(s, f"guess {guesses[s]}") for s in g.guess_order])
    assert g.trick_order == [0, 2, 1]
    steps(env, [(0, "B1"), (2, "B2"), (1, "B9")])
    # Speedster won: the player on his left leads and he plays last again
    assert g.trick_order == [2, 0, 1]
    steps(env, [(2, "G2"), (0, "G1"), (1, "G9")])
    assert totals_of(env, "berzerkerbird") == [2, 4, 0]


def turbo_table(birds: dict[int, int]):
    """3 players, turn 1: player_0 holds the red 9; both player_0 and player_1 guess 1."""
    env = table(3, berzerkers=birds, hands={0: ["R9"], 1: ["B1"], 2: ["G1"]}, trump="R3")
    return env


def test_turbo_wins_astroboard_ties_and_scores_5_more_with_the_bonus():
    env = turbo_table({0: 4, 1: 6, 2: 5})  # Turbo deals; Surfette decides first
    step(env, 1, "decline")
    steps(env, [(1, "guess 1"), (2, "player_0"), (2, "guess 0"), (0, "guess 1")])
    g = game(env)
    assert g.astroboard == 0  # the tie with Surfette (6) goes to Turbo (4)
    steps(env, [(1, "B1"), (2, "G1"), (0, "R9")])
    assert totals_of(env, "turbo") == [5, 0, 0]
    # Turbo: 1 trick + 5 exact + 5 highest + 5 AstroBoard + 5 Turbo, bird 0 points
    assert turn_totals(env) == [21, 0 - 1 + 7, 5 + 6]


def test_without_turbo_an_astroboard_tie_goes_to_the_highest_bird():
    env = turbo_table({0: 2, 1: 6, 2: 5})
    step(env, 1, "decline")
    steps(env, [(1, "guess 1"), (2, "player_0"), (2, "guess 0"), (0, "guess 1")])
    assert game(env).astroboard == 1


def test_nitro_chooses_whose_hand_to_see_just_before_his_guess():
    hands = {0: ["R9", "R8"], 1: ["B1", "B2"], 2: ["G1", "G2"]}
    env = table(3, berzerkers={0: 4, 1: 5, 2: 1}, hands=hands, trump="R3", turn=2)
    g = game(env)
    assert g.guess_order == [0, 1, 2] and g.phase == Phase.GUESS  # Zoom (player_2) deals
    step(env, 0, "guess 1")
    assert g.phase == Phase.NITRO_PEEK and env.agent_selection == "player_1"
    assert legal_strings(env) == ["player_2", "player_0"]
    step(env, 1, "player_0")
    # Nitro's observation has player_0's hand in the row of the player two seats left
    known = observation_field(env, 1, "known")
    assert np.flatnonzero(known[54:]).tolist() == bits(cards(["R9", "R8"]))
    assert known[:54].sum() == 0
    view = env.unwrapped.view("player_1")
    assert view["peeked"] == {"player": "player_0", "cards": ["R8", "R9"]}
    # the others know whom he looked at, not what he saw
    assert env.unwrapped.view("player_2")["peeked"] == {"player": "player_0"}
    assert observation_field(env, 2, "known").sum() == 0
    assert observation_field(env, 2, "peeked")[1] == 1  # player_0 is player_2's left
    step(env, 1, "guess 0")
    step(env, 2, "guess 1")
    step(env, 2, "G1")  # Zoom leads
    step(env, 0, "R9")
    known = observation_field(env, 1, "known")
    assert np.flatnonzero(known[54:]).tolist() == bits(cards(["R8"]))


def surfette_table():
    hands = {0: ["R1", "R2", "B9"], 1: ["G5", "G6", "G7"], 2: ["Y5", "Y6", "Y7"]}
    return table(3, berzerkers={0: 6, 1: 1, 2: 4}, hands=hands, trump="R3", turn=3)


def test_surfette_may_decline():
    env = surfette_table()
    g = game(env)
    assert g.phase == Phase.SURFETTE_PARTNER and env.agent_selection == "player_0"
    assert legal_strings(env) == ["player_1", "player_2", "decline"]
    step(env, 0, "decline")
    assert g.phase == Phase.GUESS and hand(env, 0) == ["R1", "R2", "B9"]
    assert g.traded == 0


def test_surfette_trades_one_card_with_a_player_she_chooses():
    env = surfette_table()
    step(env, 0, "player_2")
    assert legal_strings(env) == ["choose R1", "choose R2", "choose B9"]
    step(env, 0, "choose R1")
    assert legal_strings(env) == ["choose R2", "choose B9", "decline"]
    before_p1 = env.unwrapped.observe("player_1")["observation"]
    step(env, 0, "decline")  # trade only the red 1
    g = game(env)
    assert g.traded == 1 and g.partner == 2
    mine, theirs = set(hand(env, 0)), set(hand(env, 2))
    assert len(mine) == 3 and {"R2", "B9"} <= mine and "R1" not in mine
    (drawn,) = mine - {"R2", "B9"}
    assert drawn in {"Y5", "Y6", "Y7"}
    assert theirs == {"Y5", "Y6", "Y7", "R1"} - {drawn}
    # the draw is Surfette's to see (and the partner's, whose card it was): not player_1's
    assert env.unwrapped.view("player_0")["known_cards"] == {"player_2": ["R1"]}
    assert env.unwrapped.view("player_2")["known_cards"] == {"player_0": [drawn]}
    assert env.unwrapped.view("player_1")["known_cards"] == {}
    after_p1 = env.unwrapped.observe("player_1")["observation"]
    observer = env.unwrapped.observer
    private = slice(observer.obs_at["hand"], observer.size)
    assert np.array_equal(before_p1[private], after_p1[private])
    assert observation_field(env, 1, "traded")[0] == 0.5
    assert observation_field(env, 1, "surfette_partner")[1] == 1  # player_2, left of 1


def test_surfette_trades_two_cards():
    env = surfette_table()
    steps(env, [(0, "player_1"), (0, "choose R1"), (0, "choose R2")])
    g = game(env)
    assert g.traded == 2 and g.phase == Phase.GUESS
    assert "B9" in hand(env, 0) and len(set(hand(env, 0)) & {"G5", "G6", "G7"}) == 2
    assert {"R1", "R2"} <= set(hand(env, 1)) and len(hand(env, 1)) == 3


def test_surfette_with_one_card_trades_it_at_once():
    env = table(2, berzerkers={0: 6, 1: 3}, hands={0: ["R1"], 1: ["B9"]}, trump="R3")
    steps(env, [(0, "player_1"), (0, "choose R1")])
    assert hand(env, 0) == ["B9"] and hand(env, 1) == ["R1"]
    assert game(env).phase == Phase.GUESS


# ---- what a third player knows after Surfette's random draw --------------------------


def known_in_observation(env, seat: int) -> dict[str, list[str]]:
    """The ``known`` rows of ``player_{seat}``'s observation, decoded (left neighbour first)."""
    n = env.unwrapped.num_players
    row = observation_field(env, seat, "known")
    out = {}
    for rel in range(1, n):
        ids = np.flatnonzero(row[(rel - 1) * 54 : rel * 54]).tolist()
        if ids:
            out[f"player_{(seat + rel) % n}"] = [data.card_text(c) for c in ids]
    return out


def assert_known_cards_are_true(env) -> None:
    """Every card a view or an observation says is in a hand is in that hand."""
    raw = env.unwrapped
    for seat, agent in enumerate(raw.possible_agents):
        known = raw.view(agent)["known_cards"]
        assert known == known_in_observation(env, seat), agent
        for other, listed in known.items():
            assert set(listed) <= set(hand(env, int(other[-1]))), (agent, other, listed)


def test_a_card_passed_to_surfettes_partner_is_no_longer_known_after_her_random_draw():
    """player_1 passed the green 5 to player_2; Surfette (player_0) then draws one
    of player_2's two cards at random: player_1 cannot tell whether the green 5
    went, so it no longer knows it in either hand, before or after it is played."""
    outcomes = set()
    for seed in range(12):
        hands = {0: ["R1", "R2"], 1: ["G5", "G6"], 2: ["Y5", "Y6"]}
        env = table(3, berzerkers={0: 6, 1: 2, 2: 4}, hands=hands, trump="R3", turn=2,
                    pass_cards=True, seed=seed)  # fmt: skip
        assert game(env).dealer == 1  # passes from player_2, one card each to the left
        steps(env, [(2, "choose Y5"), (0, "choose R1"), (1, "choose G5")])
        assert env.unwrapped.view("player_1")["known_cards"] == {"player_2": ["G5"]}
        steps(env, [(0, "player_2"), (0, "choose R2"), (0, "decline")])
        drawn = "G5" in hand(env, 0)
        outcomes.add(drawn)
        assert env.unwrapped.view("player_1")["known_cards"] == {}
        assert known_in_observation(env, 1) == {}
        # Surfette knows where each card went; her partner knows what left his hand
        assert env.unwrapped.view("player_0")["known_cards"] == {"player_1": ["R1"],
                                                                 "player_2": ["R2"]}  # fmt: skip
        assert_known_cards_are_true(env)
        while not game(env).over and game(env).turn == 2:
            agent = env.agent_selection
            step(env, int(agent[-1]), legal_strings(env)[0])
            if game(env).turn == 2:
                assert_known_cards_are_true(env)
    assert outcomes == {True, False}


def test_a_third_player_can_tell_where_a_card_went_when_surfette_draws_a_whole_hand():
    """4 players, turn 1, Yellow 3: each passes its only card right. Surfette
    (player_0) trades her only card for player_2's only card: whoever knew
    either card can tell where it is now."""
    hands = {0: ["R5"], 1: ["B5"], 2: ["G5"], 3: ["Y5"]}
    env = table(4, berzerkers={0: 6, 1: 1, 2: 2, 3: 3}, hands=hands, trump="Y3")
    assert game(env).dealer == 1 and game(env).phase == Phase.PASS_RIGHT
    steps(env, [(2, "choose G5"), (3, "choose Y5"), (0, "choose R5"), (1, "choose B5")])
    assert [hand(env, s) for s in range(4)] == [["B5"], ["G5"], ["Y5"], ["R5"]]
    steps(env, [(0, "player_2"), (0, "choose B5")])
    assert hand(env, 0) == ["Y5"] and hand(env, 2) == ["B5"]
    views = {s: env.unwrapped.view(f"player_{s}")["known_cards"] for s in range(4)}
    assert views == {
        0: {"player_2": ["B5"], "player_3": ["R5"]},  # what she gave, what she passed
        1: {"player_2": ["B5"]},  # Surfette gave away her whole hand: its blue 5
        2: {"player_0": ["Y5"], "player_1": ["G5"]},  # what she drew, what it passed
        3: {"player_0": ["Y5"]},  # its yellow 5 was player_2's only card: now Surfette's
    }
    assert_known_cards_are_true(env)
    # guesses (Max, player_2, last), then Zoom (player_1) leads; Speedster plays last
    steps(env, [(2 if s == 2 else s, "guess 0") for s in game(env).guess_order])
    steps(env, [(1, "G5"), (2, "B5"), (0, "Y5")])
    assert env.unwrapped.view("player_3")["known_cards"] == {}
    assert env.unwrapped.view("player_1")["known_cards"] == {}
    assert_known_cards_are_true(env)
