"""Property tests over many random legal Asrus games (hypothesis chooses the
player count, options, seeds and the random policy's seed).

Invariants checked after every step: points plus deposit are conserved within
a game; every card is in exactly one place; no player's points go negative; the
mask is exact (every masked-in action is legal per the rules engine, and every
legal action is masked in), and all zeros for agents not to act; the
observation lies in its space. At the end: the game ended by one of its rules.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flockgym.envs import asrus_v0
from flockgym.envs.asrus.rules import encode_action


def with_reduced_deck(options: dict) -> st.SearchStrategy[dict]:
    """Up to 6 players the table's hands still fit a deck without a 4, an 8 and a 12."""
    if options["num_players"] > 6:
        return st.just(options)
    return st.sampled_from([(), (4, 8, 12)]).map(lambda r: options | {"removed_numbers": r})


options_strategy = st.fixed_dictionaries(
    {
        "num_players": st.integers(3, 9),
        "jokers": st.booleans(),
        "elimination": st.booleans(),
        "rounds": st.integers(1, 2),
    }
).flatmap(with_reduced_deck)


def check_game(options: dict, seed: int, policy_seed: int) -> int:
    """Play one random game, checking every invariant each step; returns its steps."""
    env = asrus_v0.env(**options)
    env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.asrus
    total = sum(game.points) + game.deposit
    rng = np.random.default_rng(policy_seed)
    space = raw.observation_space("player_0")["observation"]
    steps = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        game = raw.asrus
        legal = game.legal_actions()
        mask = observation["action_mask"]
        assert list(np.flatnonzero(mask)) == legal
        seat = game.current_player()
        assert set(legal) == rulebook_moves(game.hands[seat], game.specials[seat])
        for other in env.agents:
            if other != agent:
                assert not raw.observe(other)["action_mask"].any()
        assert space.contains(observation["observation"])
        env.step(int(rng.choice(legal)))
        steps += 1
        game = raw.asrus  # with the compiled engine, a snapshot: read it again
        assert sum(game.points) + game.deposit == total
        assert min(game.points) >= 0 and game.deposit >= 0
        game.check_conservation()
    game = raw.asrus
    assert game.over
    ended_by_round = game.round == options["rounds"] and not any(sum(h) for h in game.hands)
    broke = sum(1 for p in game.points if p == 0)
    assert ended_by_round or (options["elimination"] and broke * 4 >= options["num_players"])
    return steps


def rulebook_moves(hand: list[int], specials: list[int]) -> set[int]:
    """An independent oracle of the legal moves, written from the rulebook: any
    number card held, alone or with one special card held; a joker may be
    declared as any of C, B, D, M, R, X, T."""
    moves = set()
    for number in range(1, 16):
        if hand[number] == 0:
            continue
        moves.add(encode_action(number))
        for index, kind in enumerate("CBDMR"):
            if specials[index] > 0:
                moves.add(encode_action(number, kind))
        if specials[5] > 0:
            moves.update(encode_action(number, power, joker=True) for power in "CBDMRXT")
    return moves


@given(options=options_strategy, seed=st.integers(0, 2**32 - 1), policy_seed=st.integers(0, 2**16))
def test_random_games_keep_every_invariant(options, seed, policy_seed):
    check_game(options, seed, policy_seed)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32 - 1), policy_seed=st.integers(0, 2**16))
def test_thousands_of_random_games_keep_every_invariant(options, seed, policy_seed):
    check_game(options, seed, policy_seed)
