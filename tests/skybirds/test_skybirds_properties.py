"""Random Great Wars for 2-4 players over every option sample: every Ace in
exactly one place, tokens conserved, masks exact at every step against an
independent oracle (``skybirds_oracle``) and refused actions changing
nothing, the incremental observations equal to a rebuild from scratch,
every state saving and loading back as itself, and every game ending or
truncating. A small version runs by default; the big one is ``slow``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skybirds_oracle import oracle

from flockgym.envs import skybirds_v0
from flockgym.envs.skybirds import data
from flockgym.envs.skybirds.observer import SkybirdsObserver
from flockgym.envs.skybirds.rules import MAT, SkybirdsGame

TOKEN_NAMES = [t.name for t in data.AERODROME if t.bonus != "armistice"]
NEVER_FLIPPED = {t.name for t in data.AERODROME if t.uses == 0}


def scenario_tokens(draw_tokens: list[list[str]], sides: list[list[bool]]) -> dict:
    return {
        f"player_{s}": {
            name: "back" if flip and name not in NEVER_FLIPPED else "front"
            for name, flip in zip(names, flips, strict=False)
        }
        for s, (names, flips) in enumerate(zip(draw_tokens, sides, strict=True))
        if names
    }


GAMES = st.fixed_dictionaries(
    {
        "players": st.integers(2, 4),
        "seed": st.integers(0, 2**31 - 1),
        "sample": st.integers(0, len(skybirds_v0.raw_env.option_samples) - 1),
        "tokens": st.lists(
            st.lists(st.sampled_from(TOKEN_NAMES), max_size=5, unique=True), min_size=4, max_size=4
        ),
        "sides": st.lists(st.lists(st.booleans(), min_size=5, max_size=5), min_size=4, max_size=4),
        "plus_one": st.lists(st.integers(0, 8), min_size=4, max_size=4),
    }
)


def conservation(game: SkybirdsGame) -> list[str]:
    """The accounting, checked here (not by the engine)."""
    problems = []
    total = [sum(col) for col in zip(*game.hands, game.box, game.played, strict=True)]
    if total != list(data.CARD_COUNTS):
        problems.append(f"Aces {total}")
    for seat in range(game.config.num_players):
        if len(game.tokens[seat]) != len(game.config.tokens):
            problems.append(f"seat {seat} token slots")
        if not 0 <= game.plus_one[seat] <= data.PLUS_ONE_TOKENS:
            problems.append(f"seat {seat} +1VP {game.plus_one[seat]}")
    taken = [f for f in game.fractional if f >= 0]
    if sorted(taken + game.pool) != [0, 1, 2]:
        problems.append(f"fractional {taken} + {game.pool}")
    return problems


def play_checked(options: dict, scenario: dict, seed: int, max_steps: int = 20000) -> SkybirdsGame:
    """One random game with every check at every step."""
    env = skybirds_v0.raw_env(**options)
    env.reset(seed=seed, options=scenario)
    rng = np.random.default_rng(seed)
    fresh = SkybirdsObserver(env.config)
    for _ in range(max_steps):
        game = env.skybirds
        assert not conservation(game), conservation(game)
        assert not game.invariant_violations(), game.invariant_violations()
        if game.over or game.truncated:
            break
        legal = game.legal_actions()
        assert legal == sorted(legal)
        assert set(legal) == oracle(game), (
            game.phase,
            game.step,
            game.pend_tokens,
            game.pend_cards,
        )
        mask = env.observe(env.agent_selection)["action_mask"]
        assert list(np.flatnonzero(mask)) == legal
        for seat in range(env.num_players):  # incremental store == rebuilt from scratch
            fresh.forget()
            assert np.array_equal(env.observer.encode(game, seat), fresh.encode(game, seat))
        saved = json.loads(json.dumps(game.to_dict()))
        assert SkybirdsGame.from_dict(saved).to_dict() == saved
        illegal = [a for a in range(env.num_actions) if a not in legal]
        if illegal and rng.random() < 0.1:
            with pytest.raises(ValueError, match="illegal action"):
                game.apply_action(int(rng.choice(illegal)))
            assert game.to_dict() == saved
        env.step(int(rng.choice(legal)))
    else:
        raise AssertionError("the game neither ended nor truncated")
    return env.skybirds


def run_case(case: dict) -> SkybirdsGame:
    n = case["players"]
    options = {"num_players": n, **skybirds_v0.raw_env.option_samples[case["sample"]]}
    options["max_campaigns"] = min(options.get("max_campaigns", 30), 2)
    scenario = {
        "tokens": scenario_tokens(case["tokens"][:n], case["sides"][:n]),
        "plus_one": {f"player_{s}": c for s, c in enumerate(case["plus_one"][:n])},
    }
    if options.get("aerodrome"):
        scenario = {}
    return play_checked(options, scenario, case["seed"])


@settings(max_examples=12)
@given(GAMES)
def test_random_games_hold_every_invariant_with_exact_masks(case):
    run_case(case)


@pytest.mark.slow
@settings(max_examples=2000)
@given(GAMES)
def test_thousands_of_random_games_hold_every_invariant(case):
    run_case(case)


def test_a_few_hundred_short_games_keep_the_accounting_and_the_masks():
    """300 one-Campaign games over every player count and option sample: the
    accounting at every step, and the mask against the oracle wherever the
    player to act holds no Dogfight token (the token moves are checked in full
    above)."""
    samples = skybirds_v0.raw_env.option_samples
    for index in range(300):
        players = 2 + index % 3
        options = {"num_players": players, **samples[index % len(samples)], "max_campaigns": 1}
        env = skybirds_v0.raw_env(**options)
        env.reset(seed=index)
        rng = np.random.default_rng(index)
        for _ in range(5000):
            game = env.skybirds
            assert not conservation(game) and not game.invariant_violations()
            if game.over or game.truncated:
                break
            legal = game.legal_actions()
            if not game.usable_tokens(game.actor):
                assert set(legal) == oracle(game)
            env.step(int(rng.choice(legal)))
        assert env.skybirds.truncated or env.skybirds.over


def play_light(options: dict, seed: int, max_steps: int = 100_000) -> SkybirdsGame:
    """A random game checking only the accounting at every step."""
    env = skybirds_v0.raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        game = env.skybirds
        assert not conservation(game) and not game.invariant_violations()
        if game.over or game.truncated:
            return game
        env.step(int(rng.choice(game.legal_actions())))
    raise AssertionError("the game neither ended nor truncated")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_full_length_random_great_wars_end_or_truncate(players):
    game = play_light({"num_players": players}, seed=players)
    assert game.over or (game.truncated and game.campaign == 30)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_full_length_random_great_wars_with_every_check(players):
    for seed in range(10):
        game = play_checked({"num_players": players}, {}, seed, max_steps=5000)
        assert game.over or (game.truncated and game.campaign == 30)


def test_tokens_are_conserved_per_player():
    """A token is either on its owner's Aerodrome or held (face up or flipped),
    never both or neither; every player has one of each."""
    game = play_checked({"num_players": 4, "max_campaigns": 6}, {}, 12)
    for row in game.tokens:
        assert len(row) == len(data.AERODROME) and set(row) <= {MAT, 1, 2}
