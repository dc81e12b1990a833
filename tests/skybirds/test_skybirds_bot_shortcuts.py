"""The heuristic bot's shortcuts read the same as the long way: card strings
looked up (any other spelling still parsed), set ids turned back into
(value, count) from a table, the Aerodrome and the action layout built once
per table and reused while the view hands the same rows."""

from __future__ import annotations

import pytest

from flockgym.envs import skybirds_v0
from flockgym.envs.skybirds import bots, data
from flockgym.envs.skybirds.actions import GARROS_ALONE, SET_ID
from flockgym.envs.skybirds.bots import SkybirdsHeuristicBot, counts_of


def test_counts_of_reads_view_strings_and_other_spellings():
    assert counts_of(["G", "4", "4", "10"]) == [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1]
    assert counts_of(["garros", " 7", "7"]) == [1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0]
    with pytest.raises(ValueError, match="cannot read card '11'"):
        counts_of(["11"])


def test_set_ids_turn_back_into_value_and_count():
    assert all(bots._set_of(set_id) == key for key, set_id in SET_ID.items())
    assert bots._set_of(SET_ID[(5, 3)]) == (5, 3)
    with pytest.raises(ValueError, match=f"{GARROS_ALONE} is not a plain set"):
        bots._set_of(GARROS_ALONE)


def test_the_aerodrome_and_layout_are_built_once_per_table():
    env = skybirds_v0.env(num_players=3)
    env.reset(seed=2)
    raw = env.unwrapped
    bot = SkybirdsHeuristicBot(seed=0)
    first = raw.view("player_0")
    tokens = bot._aerodrome(first)
    assert tokens == data.AERODROME
    assert bot._aerodrome(raw.view("player_1")) is tokens
    layout = bot._layout(3, tokens)
    assert bot._layout(3, tokens) is layout
    assert (layout.num_players, layout.size) == (3, 159)
    rows = [dict(row) for row in first["aerodrome"]]  # equal rows, another list
    assert bot._aerodrome({**first, "aerodrome": rows}) is tokens
    assert bot._layout(4, tokens).size == 160
