"""The games' resamplers (``EnvEntry.resampler``): a resampled state is one the
seat cannot tell apart from the true one, a valid state that plays on to a legal
end, different in its hidden information from draw to draw (in the proportions
a uniform deal gives), and the same for the same generator seed.

Every env, every player count and every option sample it declares is covered
(``configurations``, as the soak plays them).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from aec_helpers import random_action

from flockgym.envs import ENVS, list_envs, make
from flockgym.envs.core.errors import StateDictError
from flockgym.envs.core.soak import configurations
from flockgym.envs.skybirds.rules import GARROS

STATES_PER_CONFIGURATION = 4
"""Random states checked per configuration in ``make test`` (over a hundred per
env over its configurations), each from every seat's point of view;
``make test-slow`` checks :data:`SLOW_STATES_PER_CONFIGURATION` more."""
SLOW_STATES_PER_CONFIGURATION = 10
DRAWS = 400
"""Resamples of one state in the statistical checks."""
EQUAL_STATES = 3
"""Random states per configuration on which the search's unchecked resample
and the checked one are compared, each from every seat."""


def resampler(env_id: str) -> Callable[..., Any]:
    """The registered resampler of ``env_id``."""
    spec = ENVS[env_id].resampler
    assert spec is not None
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def random_states(env_id: str, conf: dict[str, Any], count: int, seed: int) -> list[Any]:
    """``count`` raw envs of random games at random moments (cloned, so each is
    independent), none of them over."""
    rng = np.random.default_rng(seed)
    env = make(env_id, **conf)
    raw = env.unwrapped
    states: list[Any] = []
    game = 0
    while len(states) < count:
        raw.reset(seed=seed * 1000 + game)
        game += 1
        stop = int(rng.integers(0, 120))
        for _ in range(stop):
            if not raw.agents or raw.game.is_over():
                break
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
            else:
                raw.step(random_action(raw.observe(agent), rng))
        if raw.agents and not raw.game.is_over():
            states.append(raw.clone())
    return states


def same_sight(a: Any, b: Any, agent: str) -> bool:
    """``agent`` observes ``a`` and ``b`` identically (vector and mask)."""
    oa, ob = a.observe(agent), b.observe(agent)
    return np.array_equal(oa["observation"], ob["observation"]) and np.array_equal(
        oa["action_mask"], ob["action_mask"]
    )


CASES = [
    pytest.param(env_id, conf, id=f"{env_id}-{i}")
    for env_id in list_envs()
    for i, conf in enumerate(configurations(env_id))
]


def assert_loads(drawn: Any) -> None:
    """The resampled state loads through the game's checked loader (every field
    checked: the search builds it without the loader) into an engine every seat
    observes identically."""
    loaded = drawn.clone()  # state_dict -> JSON -> load_state_dict: the checked loader
    assert json.dumps(loaded.state_dict()) == json.dumps(drawn.state_dict())
    for agent in drawn.possible_agents:
        assert same_sight(drawn, loaded, agent), agent


@pytest.mark.parametrize(("env_id", "conf"), CASES)
def test_every_seat_sees_the_resampled_state_as_the_true_one(env_id: str, conf: dict) -> None:
    """For random states and every seat: the same observation and mask, a state
    the game's checked loader accepts and that observes as loaded, and the
    seat's own view unchanged."""
    check_every_seat(env_id, conf, STATES_PER_CONFIGURATION, seed=len(str(conf)))


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "conf"), CASES)
def test_every_seat_sees_more_resampled_states_as_the_true_ones(env_id: str, conf: dict) -> None:
    """The same check on more random states (other games than ``make test``'s)."""
    check_every_seat(env_id, conf, SLOW_STATES_PER_CONFIGURATION, seed=1000 + len(str(conf)))


def check_every_seat(env_id: str, conf: dict, count: int, seed: int) -> None:
    resample = resampler(env_id)
    rng = np.random.default_rng(7)
    for state in random_states(env_id, conf, count, seed=seed):
        for seat, agent in enumerate(state.possible_agents):
            drawn = resample(state.clone(), seat, rng)
            assert same_sight(state, drawn, agent), (env_id, conf, seat)
            assert drawn.view(agent) == state.view(agent)
            assert drawn.game.invariant_violations() == []
            assert_loads(drawn)


def python_engine(conf: dict[str, Any]) -> dict[str, Any]:
    """``conf`` on the Python engine (every game's ``engine`` option)."""
    return {**conf, "engine": "python"}


EQUAL_CASES = CASES + [
    pytest.param(env_id, python_engine(conf), id=f"{env_id}-python-{i}")
    for env_id in list_envs()
    for i, conf in enumerate(configurations(env_id))
    if "engine" not in conf and conf["num_players"] == ENVS[env_id].player_counts[0]
]
"""Every configuration on its default engine, and the Python engine at the
smallest player count with every option set."""


@pytest.mark.parametrize(("env_id", "conf"), EQUAL_CASES)
def test_the_unchecked_path_draws_what_the_checked_path_draws(env_id: str, conf: dict) -> None:
    """The search's resample (no JSON round trip, no loader) draws, from the same
    generator, exactly the state the checked path (``checked=True``: the loader
    on the copy and on the result) draws, and uses the generator alike: the
    same state dict, every seat's observation and mask, and the generator left
    in the same state, at random states from every seat."""
    resample = resampler(env_id)
    states = random_states(env_id, conf, EQUAL_STATES, seed=len(str(conf)) + 1)
    for k, state in enumerate(states):
        for seat in range(len(state.possible_agents)):
            fast_rng, checked_rng = np.random.default_rng(k), np.random.default_rng(k)
            fast = resample(state.clone(), seat, fast_rng)
            checked = resample(state.clone(), seat, checked_rng, checked=True)
            assert json.dumps(fast.state_dict()) == json.dumps(checked.state_dict()), (k, seat)
            assert fast_rng.bit_generator.state == checked_rng.bit_generator.state
            for agent in state.possible_agents:
                assert same_sight(fast, checked, agent), (k, seat, agent)
            assert_play_on_alike(fast, checked, np.random.default_rng(k))


def assert_play_on_alike(a: Any, b: Any, rng: np.random.Generator, steps: int = 8) -> None:
    """``a`` and ``b`` take the same random legal moves and stay equal (state
    dict, every seat's observation and mask): no cache of the engine a
    resampler built is stale."""
    for _ in range(steps):
        if not a.agents:
            break
        agent = a.agent_selection
        if a.terminations[agent] or a.truncations[agent]:
            action = None
        else:
            action = random_action(a.observe(agent), rng)
        a.step(action)
        b.step(action)
        assert json.dumps(a.state_dict()) == json.dumps(b.state_dict())
        for seat_agent in a.possible_agents:
            assert same_sight(a, b, seat_agent), seat_agent


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_astrobirdz_deals_the_rule_card_refuses_are_dealt_again_alike(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under Orange Max #3 (the 1s and 2s discarded and replaced) a deal that puts
    another card among the discards is refused and dealt again: the unchecked
    path refuses exactly the deals the checked loader refuses, so both draw
    the same state, and it refuses some."""
    module = importlib.import_module("flockgym.envs.astrobirdz.resample")
    refused = []
    check = module.check_replaced_discards

    def counting(*args: Any) -> None:
        try:
            check(*args)
        except StateDictError:
            refused.append(args)
            raise

    monkeypatch.setattr(module, "check_replaced_discards", counting)
    env = make("astrobirdz_v0", num_players=3, engine=engine)
    raw = env.unwrapped
    drawn = 0
    for seed in range(6):
        raw.reset(seed=seed, options={"trump": "O3"})
        if not raw.game.discards:
            continue
        for seat in range(3):
            fast = module.resample(raw.clone(), seat, np.random.default_rng(seed))
            checked = module.resample(raw.clone(), seat, np.random.default_rng(seed), checked=True)
            assert json.dumps(fast.state_dict()) == json.dumps(checked.state_dict())
            assert_loads(fast)
            drawn += 1
    assert drawn >= 6 and refused


@pytest.mark.parametrize("env_id", list_envs())
def test_a_resampled_state_plays_on_to_a_legal_end(env_id: str) -> None:
    """Random legal moves from resampled states reach the end of the game, with
    every step accepted and the invariants holding."""
    resample = resampler(env_id)
    rng = np.random.default_rng(3)
    n = ENVS[env_id].player_counts[0]
    conf = {"num_players": n, "max_steps": 3000}
    for state in random_states(env_id, conf, 4, seed=11):
        drawn = resample(state.clone(), 0, rng)
        while drawn.agents:
            agent = drawn.agent_selection
            if drawn.terminations[agent] or drawn.truncations[agent]:
                drawn.step(None)
            else:
                drawn.step(random_action(drawn.observe(agent), rng))
        assert drawn.game.invariant_violations() == []
        assert drawn.game.is_over() or drawn.is_truncated()


@pytest.mark.parametrize("env_id", list_envs())
def test_the_same_generator_seed_draws_the_same_state(env_id: str) -> None:
    resample = resampler(env_id)
    n = ENVS[env_id].player_counts[0]
    (state,) = random_states(env_id, {"num_players": n}, 1, seed=5)
    first = resample(state.clone(), 0, np.random.default_rng(42)).state_dict()
    again = resample(state.clone(), 0, np.random.default_rng(42)).state_dict()
    other = resample(state.clone(), 0, np.random.default_rng(43)).state_dict()
    assert json.dumps(first) == json.dumps(again)
    assert first["game"]["rng"] != other["game"]["rng"]


def dealt(env_id: str, num_players: int, seed: int = 1) -> Any:
    """A raw env just dealt."""
    env = make(env_id, num_players=num_players)
    env.reset(seed=seed)
    return env.unwrapped


def mean_and_bound(counts: np.ndarray, expected: np.ndarray, draws: int) -> None:
    """The mean count per kind over ``draws`` is the exact expectation within
    five standard errors of a hypergeometric count (a loose bound for counts
    that vary less)."""
    spread = np.sqrt(np.maximum(expected, 0.25) / draws)
    assert np.all(np.abs(counts / draws - expected) <= 5 * spread), (counts / draws, expected)


def test_asrus_other_hands_follow_the_hypergeometric_mean() -> None:
    """At the deal, seat 0 does not see seat 1's hand: the expected count of
    each number in it is (unseen copies) * (hand size) / (unseen cards)."""
    raw = dealt("asrus_v0", 3)
    game = raw.game
    unseen = np.array(
        [game.hands[1][k] + game.hands[2][k] + game.number_pile[k] for k in range(16)]
    )
    size = sum(game.hands[1])
    expected = unseen * size / unseen.sum()
    rng = np.random.default_rng(0)
    total = np.zeros(16)
    changed = 0
    for _ in range(DRAWS):
        drawn = resampler("asrus_v0")(raw.clone(), 0, rng).game
        total += np.array(drawn.hands[1])
        changed += drawn.hands[1] != game.hands[1]
        assert drawn.hands[0] == game.hands[0]
    mean_and_bound(total, expected, DRAWS)
    assert changed >= DRAWS - 5


def test_astrobirdz_each_unseen_card_is_in_a_hand_in_proportion() -> None:
    """At 2 players after the deal, every card seat 0 has not seen lies in seat
    1's hand with probability (hand size) / (unseen cards)."""
    raw = dealt("astrobirdz_v0", 2)
    game = raw.game
    seen = game.hands[0]
    unseen = [c for c in range(54) if not (seen >> c) & 1 and c != game.trump_card]
    unseen = [c for c in unseen if c not in game.trick]
    size = bin(game.hands[1]).count("1")
    total = np.zeros(54)
    rng = np.random.default_rng(1)
    for _ in range(DRAWS):
        drawn = resampler("astrobirdz_v0")(raw.clone(), 0, rng).game
        assert drawn.hands[0] == seen
        total += [(drawn.hands[1] >> c) & 1 for c in range(54)]
    expected = np.zeros(54)
    expected[unseen] = size / len(unseen)
    mean_and_bound(total, expected, DRAWS)


def test_skybirds_other_hand_follows_the_hypergeometric_mean() -> None:
    """At 2 players, seat 1's hand is drawn from its cards and the box (Roland
    Garros stays with his holder)."""
    raw = dealt("skybirds_v0", 2)
    game = raw.game
    kinds = len(game.box)
    unseen = np.array([game.hands[1][k] + game.box[k] for k in range(kinds)], dtype=float)
    fixed = np.zeros(kinds)
    fixed[GARROS] = game.hands[1][GARROS]
    unseen[GARROS] = 0
    free = sum(game.hands[1]) - fixed[GARROS]
    expected = unseen * free / unseen.sum() + fixed
    total = np.zeros(kinds)
    rng = np.random.default_rng(2)
    for _ in range(DRAWS):
        drawn = resampler("skybirds_v0")(raw.clone(), 0, rng).game
        assert drawn.hands[0] == game.hands[0]
        total += drawn.hands[1]
    mean_and_bound(total, expected, DRAWS)


def test_arena_medal_stack_order_is_uniform() -> None:
    """Each medal card of the stack is on top once in ``len(stack)`` draws, on
    average, and the stack holds the same cards."""
    raw = dealt("arena_v0", 2)  # in the character wishes: no board, no stack order yet
    assert raw.game.gym_at == [] and raw.game.medal_stack == list(range(12))
    drawn = resampler("arena_v0")(raw.clone(), 0, np.random.default_rng(3)).game
    assert drawn.medal_stack == list(range(12)) and drawn.gym_at == []
    characters = {"player_0": "Skyboardzerka", "player_1": "Jetboardzerka"}
    raw.reset(seed=1, options={"characters": characters})  # dealt at reset
    stack = list(raw.game.medal_stack)
    assert len(stack) > 1
    tops = np.zeros(max(stack) + 1)
    rng = np.random.default_rng(3)
    for _ in range(DRAWS):
        drawn = resampler("arena_v0")(raw.clone(), 0, rng).game
        assert sorted(drawn.medal_stack) == sorted(stack)
        tops[drawn.medal_stack[0]] += 1
    expected = np.zeros(len(tops))
    expected[stack] = 1 / len(stack)
    mean_and_bound(tops, expected, DRAWS)


def test_resampling_never_changes_the_env_it_reads() -> None:
    """The resampler works on its own copy of the engine until it installs the
    new one: the state the caller keeps is untouched."""
    raw = dealt("astrobirdz_v0", 3)
    before = json.dumps(raw.state_dict())
    copy = raw.clone()
    resampler("astrobirdz_v0")(copy, 1, np.random.default_rng(0))
    assert json.dumps(raw.state_dict()) == before
