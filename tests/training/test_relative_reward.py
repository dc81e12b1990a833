"""``env.relative_reward``: the learner is paid the change in its lead over the
other players' mean points (its points minus their mean) instead of its own
points, on every vec env path and engine, in pretraining, and refused where it
cannot be paid."""

from __future__ import annotations

import numpy as np
import pytest
from test_train_batched import assert_same, dummy, env_kwargs, play
from training_helpers import short_options, tiny_raw_config

from flockgym.envs import OptionError, make
from flockgym.training.batched import BatchedSelfPlayVecEnv
from flockgym.training.config import ConfigError, validate_config
from flockgym.training.selfplay import SelfPlayEnv, leads


def lead(env: SelfPlayEnv) -> float:
    """The learner's points minus the others' mean, read from the game itself."""
    scores = env.raw.scores
    others = [points for agent, points in scores.items() if agent != env.learner]
    return scores[env.learner] - sum(others) / len(others)


def test_the_lead_is_the_players_points_minus_the_others_mean() -> None:
    points = np.array([[5.0, 2.0, 0.0, 0.0], [4.0, 1.0, 2.0, 3.0], [4.0, 1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(leads(points, np.array([0, 0, 2])), [5 - 2 / 3, 2.0, 2 - 8 / 3])
    # two players: the opponent's points count whole, and the two leads cancel
    pair = np.array([[7.0, 3.0], [7.0, 3.0]])
    np.testing.assert_array_equal(leads(pair, np.array([0, 1])), [4.0, -4.0])


@pytest.mark.parametrize(
    ("env_id", "options"),
    [
        ("asrus_v0", {"num_players": 5}),
        ("astrobirdz_v0", {"num_players": 2}),
        # 12 rounds: in the 4 of the short game, random play rarely wins a world
        ("arena_v0", {"num_players": 2, "max_rounds": 12}),
        ("arena_v0", {"num_players": 4, "max_rounds": 12}),
    ],
)
def test_each_step_pays_the_change_in_the_learners_lead(env_id: str, options: dict) -> None:
    options = {**options, "reward": "score"}
    fresh = make(env_id, **options)
    fresh.reset(seed=0)
    assert len(set(fresh.unwrapped.scores.values())) == 1, "every game starts level"
    env = SelfPlayEnv(env_id, options, pool=["heuristic"], reward_scale=0.5, relative_reward=True)
    rng = np.random.default_rng(7)
    changed = 0
    for seed in range(4):
        env.reset(seed=seed)
        before, done = 0.0, False  # level at the deal: the first step pays from there
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, terminated, truncated, _ = env.step(action)
            now = lead(env)
            assert reward == pytest.approx(0.5 * (now - before))
            changed += now != before
            before, done = now, terminated or truncated
    assert changed, "no step changed the lead: nothing was compared"


def test_at_two_players_a_point_of_the_opponent_costs_one_and_of_the_learner_pays_one() -> None:
    options = {"num_players": 2, "reward": "score"}
    own = SelfPlayEnv("astrobirdz_v0", options, pool=["heuristic"])
    relative = SelfPlayEnv("astrobirdz_v0", options, pool=["heuristic"], relative_reward=True)
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    own.reset(seed=11)
    relative.reset(seed=11)
    seen_theirs = 0
    done = False
    while not done:
        opponent = next(a for a in own.agents if a != own.learner)
        theirs_before = own.raw.scores[opponent]
        _, paid_own, terminated, truncated, _ = own.step(
            int(rng_a.choice(np.flatnonzero(own.action_masks())))
        )
        _, paid_relative, *_ = relative.step(
            int(rng_b.choice(np.flatnonzero(relative.action_masks())))
        )
        theirs = own.raw.scores[opponent] - theirs_before
        assert paid_relative == pytest.approx(paid_own - theirs)
        seen_theirs += theirs != 0
        done = terminated or truncated
    assert seen_theirs, "the opponent never scored: its points were not compared"


def rewards_on_both_paths(kwargs: dict, engine: str, n_envs: int, steps: int) -> np.ndarray:
    """Every reward ``DummyVecEnv`` paid over ``steps`` steps of random legal moves,
    after checking that the batched vec env on ``engine`` saw exactly the same."""
    kwargs = {**kwargs, "relative_reward": True}
    expected = play(dummy(n_envs, kwargs), steps, seed=2)
    seen = play(BatchedSelfPlayVecEnv(n_envs, kwargs, engine=engine), steps, seed=2)
    assert_same(seen, expected)
    return np.concatenate([entry[2] for entry in expected if entry[0] == "step"])


def test_the_scalar_batched_path_pays_it_as_dummyvecenv() -> None:
    kwargs = env_kwargs("arena_v0", ["heuristic"], [], **short_options("arena_v0"))
    kwargs["env_options"]["reward"] = "score"
    kwargs["win_bonus"] = 1.0
    rewards = rewards_on_both_paths(kwargs, "scalar", 2, 200)
    assert (rewards < 0).any(), "nothing the others scored was paid: the lead never fell"


@pytest.mark.parametrize("extra", [{}, {"max_steps": 23}, {"illegal_action": "penalize"}])
def test_the_vector_engine_pays_it_as_dummyvecenv(extra: dict) -> None:
    kwargs = env_kwargs("asrus_v0", ["random", "heuristic"], [], reward="score", **extra)
    kwargs["win_bonus"] = 0.5
    rewards = rewards_on_both_paths(kwargs, "vector", 3, 120)
    assert (rewards < 0).any() and (rewards > 0).any(), "the lead never moved both ways"


def test_it_needs_the_score_reward_and_a_bool() -> None:
    needs_score = r"relative_reward=True with reward='win'.*allowed with it: reward='score'"
    with pytest.raises(OptionError, match=needs_score):
        SelfPlayEnv("asrus_v0", {}, pool=["random"], relative_reward=True)
    not_a_bool = r"relative_reward must be a bool, got 'yes' \(str\); allowed: True, False"
    with pytest.raises(OptionError, match=not_a_bool):
        SelfPlayEnv("asrus_v0", {"reward": "score"}, pool=["random"], relative_reward="yes")


def test_configs_that_cannot_pay_it_are_refused_by_name(tmp_path) -> None:
    config = tiny_raw_config("arena_v0", tmp_path)
    config["env"]["relative_reward"] = True
    refused = r"env.options.reward 'win'.*allowed with it: reward: score"
    with pytest.raises(ConfigError, match=refused):
        validate_config(config)
    config["env"]["options"]["reward"] = "score"
    validate_config(config)  # the scalar engine pays it

    vector = tiny_raw_config("asrus_v0", tmp_path, vec_env="batched")
    vector["env"]["relative_reward"] = True
    vector["env"]["options"]["reward"] = "score"
    validate_config(vector)  # the vectorised engine pays it too

    rllib = {
        "env": {"id": "asrus_v0", "options": {"reward": "score"}, "relative_reward": True},
        "algo": {"name": "rllib_ppo"},
        "total_steps": 10,
    }
    with pytest.raises(ConfigError, match=r"does not apply to algo.name 'rllib_ppo'"):
        validate_config(rllib)


def test_the_vector_engine_charges_an_illegal_move_as_dummyvecenv() -> None:
    kwargs = env_kwargs("asrus_v0", ["heuristic"], [], reward="score", illegal_action="penalize")
    kwargs["relative_reward"] = True
    paid = []
    for venv in (dummy(2, kwargs), BatchedSelfPlayVecEnv(2, kwargs, engine="vector")):
        venv.seed(3)
        venv.reset()
        masks = np.stack(venv.env_method("action_masks"))
        moves = [int(np.flatnonzero(~masks[0])[0]), int(np.flatnonzero(masks[1])[0])]
        _, rewards, dones, _ = venv.step(np.array(moves))
        assert dones[0]
        paid.append(rewards)
    np.testing.assert_array_equal(paid[1], paid[0])
    assert paid[0][0] == -0.5  # the penalty, -1, times reward_scale 0.5; nothing scored yet


def test_the_gymnasium_self_play_env_takes_it() -> None:
    import gymnasium

    import flockgym.training  # noqa: F401  (registers the self-play envs)

    env = gymnasium.make(
        "flockgym/astrobirdz-selfplay-v0",
        opponents=["heuristic"],
        relative_reward=True,
        num_players=2,
        reward="score",
    )
    raw = env.unwrapped
    assert raw.relative_reward
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    before, done, changed = 0.0, False, 0
    while not done:
        action = int(rng.choice(np.flatnonzero(raw.action_masks())))
        _, reward, terminated, truncated, _ = env.step(action)
        now = lead(raw)
        assert reward == pytest.approx(now - before)
        changed += now != before
        before, done = now, terminated or truncated
    assert changed


def test_an_illegal_move_costs_what_the_env_charges() -> None:
    options = {"reward": "score", "illegal_action": "penalize"}
    env = SelfPlayEnv("asrus_v0", options, pool=["random"], reward_scale=0.5, relative_reward=True)
    env.reset(seed=4)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, _ = env.step(illegal)
    assert terminated
    assert reward == -0.5  # the penalty, -1, times reward_scale 0.5; nobody has scored yet
    assert lead(env) == 0.0
