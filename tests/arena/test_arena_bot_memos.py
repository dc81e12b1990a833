"""The Arena heuristic's per-decision memos change none of its moves.

The bot keeps, for one decision, the look-ahead's values from (space, steps
left, moved), its and its opponents' rollers and the Nebula Slide's worth, and
keeps the chance that one roller beats another across decisions. The digests
below were first taken from whole heuristic games played before these memos
existed; they were taken again when the rules changed the game itself (the
characters wished for at setup, the first-turn gym rule, the transform power
at a slide end), so they now pin the heuristic's games against any change.
"""

from __future__ import annotations

import hashlib

import pytest

from flockgym.envs import arena_v0
from flockgym.envs.arena.bots import ArenaHeuristicBot, beats
from flockgym.envs.core.play import play_game


@pytest.mark.parametrize(
    ("players", "options", "moves", "digest", "winners"),
    [
        (2, {}, 102, "251462aab2860569e68d530a7836cd7fbf0718ddfc36c67c96f879ddaab67f91",
         ["player_1"]),
        (4, {"world_challenge": "printed", "dark_matter": "medals"}, 234,
         "c5d9c268a498e4c0e56cb8ab295d239239ca6f69e42a49015d3bd525243a7a4a", ["player_2"]),
    ],
)  # fmt: skip
def test_heuristic_games_digest_as_before_the_memos(players, options, moves, digest, winners):
    env = arena_v0.env(num_players=players, **options)
    record = play_game(env, {a: ArenaHeuristicBot(3) for a in env.possible_agents}, seed=21)
    text = ";".join(f"{agent} {move}" for agent, move in record.moves)
    assert len(record.moves) == moves
    assert hashlib.sha256(text.encode()).hexdigest() == digest
    assert record.winners == winners


def test_the_kept_chance_of_beating_a_roll_is_the_chance_worked_out_afresh():
    mine = (0.0, 0.25, 0.5, 0.25)
    theirs = (0.0, 0.5, 0.5)
    for margin in (-2, -1, 0, 1, 2):
        assert beats(mine, theirs, margin) == beats.__wrapped__(mine, theirs, margin)
    assert beats(mine, theirs, 0) == 0.5  # 2 beats a 1 (1/4), 3 beats both (1/4)
