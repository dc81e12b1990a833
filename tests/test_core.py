"""The shared pieces every env relies on: reward modes, option validation,
RNG serialisation, the order-enforcing wrapper, and the bots."""

from __future__ import annotations

import json

import numpy as np
import pytest

from flockgym.envs import RandomBot, asrus_v0, make_bot
from flockgym.envs.core.options import Option, OptionError, int_range, resolve_options
from flockgym.envs.core.rewards import rank_rewards, score_deltas, win_rewards
from flockgym.envs.core.rng import derive_seed, make_rng, rng_from_dict, rng_to_dict


@pytest.mark.parametrize(
    ("players", "winners", "expected"),
    [
        (2, [0], [1.0, -1.0]),
        (4, [2], [-1 / 3, -1 / 3, 1.0, -1 / 3]),
        (4, [0, 1], [0.5, 0.5, -0.5, -0.5]),
        (3, [0, 1, 2], [0.0, 0.0, 0.0]),
    ],
)
def test_win_rewards(players, winners, expected):
    assert win_rewards(players, winners) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([10, 30, 20], [-1.0, 1.0, 0.0]),
        ([5, 5, 1, 9], [0.0, 0.0, -1.0, 1.0]),
        ([7, 7], [0.0, 0.0]),
    ],
)
def test_rank_rewards_are_linear_and_share_ties(scores, expected):
    assert rank_rewards(scores) == pytest.approx(expected)


def test_score_deltas():
    assert score_deltas([1, 2, 3], [4, 2, 0]) == [3.0, 0.0, -3.0]


def test_options_fill_defaults_and_refuse_unknown_or_bad_values():
    table = [Option("mode", "a", "doc", choices=("a", "b")), int_range("k", 3, 1, 5, "doc")]
    assert resolve_options(table, {}) == {"mode": "a", "k": 3}
    assert resolve_options(table, {"k": 5}) == {"mode": "a", "k": 5}
    with pytest.raises(OptionError, match=r"unknown option\(s\) kk; allowed options: k, mode"):
        resolve_options(table, {"kk": 1})
    with pytest.raises(OptionError, match=r"k=6 is not allowed; allowed: an integer 1\.\.5"):
        resolve_options(table, {"k": 6})
    with pytest.raises(OptionError, match=r"k=True"):
        resolve_options(table, {"k": True})
    with pytest.raises(OptionError, match=r"mode='c' is not allowed; allowed values: 'a', 'b'"):
        resolve_options(table, {"mode": "c"})


def test_rng_state_survives_json():
    rng = make_rng(7)
    rng.integers(100, size=10)
    copy = rng_from_dict(json.loads(json.dumps(rng_to_dict(rng))))
    assert list(rng.integers(1000, size=20)) == list(copy.integers(1000, size=20))


def test_derive_seed_gives_the_seeds_tournaments_have_always_used():
    # The figures of the function as it stood in training/evaluate.py: saved
    # tournaments and games replay only if these stay the same.
    assert derive_seed(7, 0, 1) == 4356932690223560731
    assert derive_seed(2**40, 3) == 5450475735056156850
    assert derive_seed(7) == derive_seed(7, 0) == 4474668370826950401


def test_order_enforcing_wrapper_still_refuses_use_before_reset():
    env = asrus_v0.env()
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = env.agents
    with pytest.raises(AssertionError, match="reset"):  # PettingZoo's own EnvLogger error
        env.step(0)
    env.reset(seed=0)
    assert env.agents == env.possible_agents
    assert env._cumulative_rewards == dict.fromkeys(env.possible_agents, 0.0)


def test_random_bot_is_seeded_and_legal():
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    observation = env.last()[0]
    view = env.unwrapped.view(env.agent_selection)
    a, b = RandomBot(3), RandomBot(3)
    picks = [a.act(observation, view) for _ in range(20)]
    assert picks == [b.act(observation, view) for _ in range(20)]
    assert all(observation["action_mask"][p] for p in picks)
    with pytest.raises(ValueError, match="allows no action"):
        a.act({"action_mask": np.zeros(4, dtype=np.int8)}, view)


def test_make_bot_names_the_kinds():
    with pytest.raises(ValueError, match="allowed: 'random', 'heuristic'"):
        make_bot("asrus_v0", "greedy")


@pytest.mark.parametrize(
    "call", ["view", "observe", "action_mask", "legal_actions", "string_to_action"]
)
def test_an_unknown_agent_is_named_with_the_agents(call):
    env = asrus_v0.env(num_players=3)
    env.reset(seed=0)
    method = getattr(env.unwrapped, call)
    args = ("player_7", "9") if call == "string_to_action" else ("player_7",)
    with pytest.raises(
        ValueError, match=r"unknown agent 'player_7'; .* player_0, player_1, player_2"
    ):
        method(*args)


def test_random_legal_actions_are_the_random_bots_moves() -> None:
    """The batched draw gives each row the move RandomBot gives with the same
    generator, and leaves each generator where the bot leaves it."""
    from flockgym.envs.core.bots import RandomBot, random_legal_actions

    shapes = np.random.default_rng(0)
    for trial in range(200):
        masks = (shapes.random((7, 1 + trial % 40)) < shapes.random()).astype(np.int8)
        masks[np.arange(7), shapes.integers(0, masks.shape[1], 7)] = 1  # one legal at least
        bots = [RandomBot(seed=trial * 10 + i) for i in range(7)]
        expected = [bot.act({"action_mask": m}, {}) for bot, m in zip(bots, masks, strict=True)]
        rngs = [RandomBot(seed=trial * 10 + i).rng for i in range(7)]
        assert random_legal_actions(masks, rngs).tolist() == expected
        assert all(a.random() == b.rng.random() for a, b in zip(rngs, bots, strict=True))
    with pytest.raises(ValueError, match="allows no action"):
        random_legal_actions(np.zeros((1, 3)), [RandomBot(0).rng])


@pytest.mark.parametrize("env_id", ["asrus_v0", "astrobirdz_v0", "skybirds_v0", "arena_v0"])
def test_action_mask_is_the_legal_actions_of_every_agent_at_every_step(env_id: str) -> None:
    """Checked against the game's list of legal actions (not its mask), for the agent
    to act and for everyone else (all zeros), and equal to the observed mask."""
    from flockgym.envs import make

    env = make(env_id)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    to_act = others = 0
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter():
            for other in raw.possible_agents:
                mask = raw.action_mask(other)
                assert mask.dtype == np.int8 and mask.shape == (raw.num_actions,)
                done = raw.terminations.get(other) or raw.truncations.get(other)
                expected = [] if done else raw.legal_actions(other)
                assert np.flatnonzero(mask).tolist() == sorted(expected)
                np.testing.assert_array_equal(raw.observe(other)["action_mask"], mask)
                if other == agent and not done:
                    to_act += 1
                else:
                    others += 1
            _, _, terminated, truncated, _ = env.last()
            legal = np.flatnonzero(raw.action_mask(agent))
            env.step(None if terminated or truncated else int(rng.choice(legal)))
    assert to_act > 30 and others > 30


def test_an_option_error_shows_a_huge_integer_by_its_size() -> None:
    """An option check that fails on an int past Python's digit limit names its size
    instead of raising the interpreter's bare ValueError while building the message."""
    from flockgym.envs.core.errors import OptionError
    from flockgym.envs.core.options import Option

    option = Option("max_rounds", 8, "rounds", check=lambda v: v == 8, allowed="8")
    with pytest.raises(OptionError, match=r"max_rounds=<an integer of 16610 bits> is not allowed"):
        option.validate(10**5000)


def test_play_game_takes_a_mapping_of_bots_and_says_so() -> None:
    """``bots`` maps agent names to bots: a list, or a mapping missing a seat, is
    refused before the game starts with a message naming the agents."""
    from flockgym.envs import FlockgymError
    from flockgym.envs.core import play_game

    env = asrus_v0.env(num_players=3)
    bots = [RandomBot(seed) for seed in range(3)]
    with pytest.raises(TypeError, match=r"bots must map each agent name to its bot.*got a list"):
        play_game(env, bots, seed=0)
    with pytest.raises(FlockgymError, match="no bot for player_2; bots must map every agent"):
        play_game(env, {"player_0": bots[0], "player_1": bots[1]}, seed=0)
    record = play_game(env, dict(zip(env.possible_agents, bots, strict=True)), seed=0)
    assert record.winners
