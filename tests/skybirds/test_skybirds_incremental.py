"""The engine's shortcuts give exactly what working it out afresh gives: the
first step of a Dogfight turn, the hand keys behind it (rebuilt when a hand's
version moves) and the masks shared between games; the observer's cell writes
survive a copy."""

from __future__ import annotations

import copy

import numpy as np
from skybirds_helpers import engine, legal, play

from flockgym.envs import skybirds_v0
from flockgym.envs.skybirds.actions import SET_ID
from flockgym.envs.skybirds.observer import SkybirdsObserver, view
from flockgym.envs.skybirds.rules import (
    EQUAL,
    MEDAL,
    SIZE,
    TWO_MEDALS,
    SkybirdsGame,
    _follow_candidates,
    fits,
    shape_moves,
    valid_moves,
)

HANDS = {
    0: "1 1 2 5 5 5 7 9 10 3",
    1: "2 2 3 4 6 6 8 8 9 4",
    2: "1 3 4 4 6 7 7 8 5 5",
    3: "1 1 2 2 3 3 4 6 6",
}


def dealt() -> SkybirdsGame:
    return engine(4, hands=HANDS, leader=0)


def test_a_lead_lists_every_set_of_the_hand():
    game = dealt()
    assert legal(game) == [
        "1", "1 1", "2", "3", "5", "5 5", "5 5 5", "7", "9", "10",
    ]  # fmt: skip


def test_a_hand_changed_in_place_is_read_again_once_its_version_moves():
    game = dealt()
    before = legal(game)
    game.hands[0][5] -= 3
    game.hands[0][6] += 3
    game.hand_versions[0] += 1
    game._changed()
    after = legal(game)
    assert before != after
    assert after == ["1", "1 1", "2", "3", "6", "6 6", "6 6 6", "7", "9", "10"]
    assert game.hand_key(0) == (0, 2, 1, 1, 0, 0, 3, 1, 0, 1, 1)


def test_two_games_at_the_same_turn_share_one_read_only_mask():
    first, second = dealt(), dealt()
    play(first, 0, "5 5")
    play(second, 0, "5 5")
    assert legal(first) == legal(second) == ["6 6", "8 8", "9", "pass"]
    mask = first.legal_mask(160)
    assert mask is second.legal_mask(160)
    assert not mask.flags.writeable
    assert np.flatnonzero(mask).tolist() == first.legal_actions()


def test_the_legal_list_handed_out_is_the_callers_own():
    game = dealt()
    game.legal_actions().clear()
    game._changed()
    assert legal(game)[:2] == ["1", "1 1"]


def test_a_copied_env_observes_on_its_own_store():
    """The observer writes through a memoryview of its store; a deep copy gets
    its own view of its own store (a shared one would leak between copies)."""
    env = skybirds_v0.env(num_players=4)
    env.reset(seed=3)
    twin = copy.deepcopy(env)
    before = env.observe("player_0")["observation"].copy()
    for _ in range(12):
        agent = twin.agent_selection
        twin.step(int(np.flatnonzero(twin.observe(agent)["action_mask"])[0]))
    assert np.array_equal(env.observe("player_0")["observation"], before)
    assert twin.unwrapped.observer.cells.obj is twin.unwrapped.observer.store
    fresh = SkybirdsObserver(twin.unwrapped.config)
    game = twin.unwrapped.skybirds
    for seat in range(4):
        assert np.array_equal(twin.unwrapped.observer.encode(game, seat), fresh.encode(game, seat))


def test_views_and_scores_match_a_fresh_copy_at_every_step():
    """The view's hand, played Aces and Squadrons are kept between calls and the
    scores between token changes: at every step they equal those of a copy
    loaded from the state (which has kept nothing yet)."""
    env = skybirds_v0.env(num_players=3, reward="score")
    env.reset(seed=11)
    raw = env.unwrapped
    rng = np.random.default_rng(11)
    for _ in range(400):
        game = raw.skybirds
        fresh = SkybirdsGame.from_dict(game.to_dict())
        assert game.scores() == fresh.scores() == [fresh.vp(s) for s in range(3)]
        for seat in range(3):
            assert view(game, seat) == view(fresh, seat)
        if game.over or game.truncated:
            break
        agent = env.agent_selection
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert raw.skybirds.played != [0] * 11 or raw.skybirds.campaign > 1


def test_a_following_turn_checks_the_hand_against_the_tables_candidates():
    """(Squadron Size, sets that beat the table, Medallion singles that may)."""
    assert _follow_candidates((2, 0, 5)) == (
        2,
        ((6, SET_ID[(6, 2)]), (7, SET_ID[(7, 2)]), (8, SET_ID[(8, 2)]), (9, SET_ID[(9, 2)])),
        ((9, SET_ID[(9, 1)]), (10, SET_ID[(10, 1)])),
    )
    assert _follow_candidates((2, 1, 9)) == (2, ((9, SET_ID[(9, 2)]),), ((10, SET_ID[(10, 1)]),))
    assert _follow_candidates((1, 0, 8)) == (1, ((9, SET_ID[(9, 1)]), (10, SET_ID[(10, 1)])), ())
    assert _follow_candidates((3, 2, 9)) == (3, (), ())
    game = dealt()
    play(game, 0, "5 5")
    assert legal(game) == ["6 6", "8 8", "9", "pass"]


def test_plain_token_moves_are_every_plain_set_that_fits_in_order():
    """valid_moves of the plain shape (modifier tokens only) judges each set as
    it is met: the same moves in the same order as listing every set and
    keeping those that fit."""
    rng = np.random.default_rng(0)
    deck = [1, 5, 5, 5, 5, 5, 5, 3, 3, 2, 1]
    tables = [None] + [(s, m, v) for s in range(1, 7) for m in range(4) for v in range(0, 11, 2)]
    bits = [0, MEDAL, TWO_MEDALS, EQUAL, SIZE]
    bits += [MEDAL | SIZE, TWO_MEDALS | EQUAL, MEDAL | EQUAL | SIZE]
    checked = 0
    for _ in range(25):
        hand = tuple(int(rng.integers(0, c + 1)) for c in deck)
        for mods in bits:
            for table in tables:
                expected = [m for m in shape_moves(hand, 0) if fits(m[3], m[4], m[5], mods, table)]
                assert valid_moves(hand, mods, table) == expected
                checked += bool(expected)
    assert checked > 1000
