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
        (2, {}, 151, "cb74202aa8d3ca7de8be359430c79f5a99257c5bcf782e49f40ac2cda5d190ef",
         ["player_0"]),
        (4, {"world_challenge": "printed", "dark_matter": "medals"}, 197,
         "e5ab9fba9f6299369e80ad255339b0f208d9b348778440140d999b6d71a8bab0", ["player_0"]),
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
