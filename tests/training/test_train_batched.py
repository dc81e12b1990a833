"""Batched self-play plays the games DummyVecEnv plays: same seed, same deals,
seats, opponents and moves, same observations, masks, rewards and results, on
the scalar engines of every env and on the vectorised Asrus engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv
from training_helpers import baseline_bots, short_options, tiny_config
from training_policies_helpers import write_checkpoint

from flockgym.envs import ENVS, OptionError
from flockgym.training.batched import BatchedSelfPlayVecEnv
from flockgym.training.config import ConfigError, validate_config
from flockgym.training.train import train
from flockgym.training.vec_env import make_selfplay_env, make_vec_env
from flockgym.training.vector_engines import (
    VectorEngineAdapter,
    resolve_engine,
    vector_adapter,
    vector_engine_envs,
)

INFO_KEYS = ("game_result", "TimeLimit.truncated", "terminal_observation", "action_mask")


def env_kwargs(env_id: str, pool: list[str], snapshots: list[str], **options) -> dict:
    return {
        "env_id": env_id,
        "env_options": options,
        "pool": pool,
        "snapshots": snapshots,
        "snapshot_share": 0.5,
        "snapshot_play": "sample",
        "reward_scale": 0.5,
    }


def dummy(n_envs: int, kwargs: dict) -> DummyVecEnv:
    return DummyVecEnv([lambda i=i: make_selfplay_env(1, i, **kwargs) for i in range(n_envs)])


def play(venv, steps: int, seed: int) -> list:
    """What the learner sees over ``steps`` vec steps of random legal moves."""
    venv.seed(seed)
    seen = [("reset", venv.reset().copy(), [dict(i) for i in venv.reset_infos])]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        seen.append(("masks", masks.copy()))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        kept = [{k: info[k] for k in INFO_KEYS if k in info} for info in infos]
        seen.append(("step", observations.copy(), rewards.copy(), dones.copy(), kept))
    return seen


def assert_same(a, b) -> None:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert np.asarray(a).dtype == np.asarray(b).dtype or np.asarray(a).dtype.kind == "b"
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    else:
        assert a == b


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    folder = tmp_path_factory.mktemp("snapshots")
    return {
        env_id: [str(write_checkpoint(folder / f"{env_id}.zip", env_id))]
        for env_id in ("asrus_v0", "astrobirdz_v0")
    }


def test_scalar_engines_play_the_games_dummyvecenv_plays(env_id: str, tmp_path: Path) -> None:
    snapshot = [str(write_checkpoint(tmp_path / "snapshot.zip", env_id))]
    kwargs = env_kwargs(env_id, baseline_bots(env_id), snapshot, **short_options(env_id))
    expected = play(dummy(3, kwargs), 120, seed=7)
    batched = BatchedSelfPlayVecEnv(3, kwargs, engine="scalar")
    seen = play(batched, 120, seed=7)
    assert_same(seen, expected)
    results = [info for entry in expected if entry[0] == "step" for info in entry[4]]
    opponents = {info["game_result"]["opponent"] for info in results if "game_result" in info}
    assert len(opponents) >= 2, f"too few games to compare opponents: {opponents}"


@pytest.mark.parametrize(("reward", "players"), [("score", 5), ("win", 3), ("rank", 4)])
def test_the_vector_engine_plays_the_games_dummyvecenv_plays(reward: str, players: int) -> None:
    kwargs = env_kwargs("asrus_v0", ["random", "heuristic"], [], num_players=players, reward=reward)
    expected = play(dummy(4, kwargs), 150, seed=players)
    seen = play(BatchedSelfPlayVecEnv(4, kwargs, engine="vector"), 150, seed=players)
    assert_same(seen, expected)


def test_the_vector_engine_batches_snapshot_opponents_as_dummyvecenv(
    snapshots: dict[str, list[str]],
) -> None:
    for play_mode in ("sample", "greedy"):
        kwargs = env_kwargs("asrus_v0", ["heuristic"], snapshots["asrus_v0"])
        kwargs["snapshot_play"] = play_mode
        expected = play(dummy(3, kwargs), 90, seed=2)
        seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="vector"), 90, seed=2)
        assert_same(seen, expected)


@pytest.mark.parametrize("extra", [{"max_steps": 23}, {"illegal_action": "penalize"}])
def test_the_vector_engine_ends_games_as_the_aec_env(extra: dict) -> None:
    kwargs = env_kwargs("asrus_v0", ["random"], [], **extra)
    expected = play(dummy(3, kwargs), 80, seed=4)
    seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="vector"), 80, seed=4)
    assert_same(seen, expected)
    if "max_steps" in extra:
        truncated = [i for e in expected if e[0] == "step" for i in e[4]]
        assert any(i["TimeLimit.truncated"] for i in truncated)


def test_fast_dealing_plays_other_deals_by_the_same_rules() -> None:
    kwargs = env_kwargs("asrus_v0", ["heuristic"], [])
    exact = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector"), 30, seed=1)
    fast = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector", dealing="fast"), 30, seed=1)
    assert not np.array_equal(exact[0][1], fast[0][1])
    again = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector", dealing="fast"), 30, seed=1)
    assert_same(again, fast)


def test_snapshots_join_every_games_pool(snapshots: dict[str, list[str]]) -> None:
    venv = make_vec_env("batched", 2, 1, env_kwargs("asrus_v0", ["random"], []))
    venv.env_method("add_snapshot", snapshots["asrus_v0"][0])
    assert [len(pool.snapshots) for pool in venv.get_attr("pool")] == [1, 1]
    assert venv.has_attr("action_masks")
    venv.seed(0)
    venv.reset()
    assert np.stack(venv.env_method("action_masks")).shape == (2, 195)


def test_engines_are_chosen_and_refused_by_name() -> None:
    assert resolve_engine("asrus_v0", "auto") == "vector"
    assert resolve_engine("astrobirdz_v0", "auto") == "scalar"  # sequential: asked by name
    assert resolve_engine("astrobirdz_v0", "vector") == "vector"
    with pytest.raises(OptionError, match="skybirds_v0 has no vectorised engine"):
        resolve_engine("skybirds_v0", "vector")
    with pytest.raises(OptionError, match="allowed: auto, scalar, vector"):
        resolve_engine("asrus_v0", "gpu")


def test_vector_engines_are_named_by_the_registry() -> None:
    assert vector_engine_envs() == ["asrus_v0"]
    assert ENVS["asrus_v0"].vector_engine == (
        "flockgym.envs.asrus.vector_adapter:AsrusVectorAdapter"
    )
    with pytest.raises(
        OptionError,
        match=r"skybirds_v0 has no vectorised engine \(envs with one: "
        r"asrus_v0, astrobirdz_v0\)",
    ):
        vector_adapter("skybirds_v0")
    with pytest.raises(OptionError, match="no_such_v0 has no vectorised engine"):
        vector_adapter("no_such_v0")


@pytest.mark.parametrize("env_id", vector_engine_envs())
def test_each_vector_engine_adapter_builds_what_the_protocol_promises(env_id: str) -> None:
    adapter = vector_adapter(env_id)
    members = [m for m in dir(VectorEngineAdapter) if not m.startswith("_")]
    assert members == ["committed_columns", "engine", "heuristic_bot"]
    assert all(callable(getattr(adapter, m)) for m in members)
    engine = adapter.engine(3, "exact", {})
    bot = adapter.heuristic_bot(3, engine.num_players)
    engine.reset(seeds=[1, 2, 3])
    columns = adapter.committed_columns(engine)
    assert engine.observations()[:, :, columns].sum() == 0  # a turn's start
    bot.reseed(np.arange(3), np.zeros(3, dtype=np.int64), np.array([5, 6, 7]))
    games, seats = np.arange(3), np.zeros(3, dtype=np.int64)
    engine.step(bot.act(engine.views(games, seats)))  # seat 0 commits in every game
    assert engine.committed.tolist() == [1, 1, 1]
    assert engine.observations()[:, 1, columns].sum(axis=1).tolist() == [1.0, 1.0, 1.0]


def test_config_selects_the_batched_vec_env(tmp_path: Path) -> None:
    config = tiny_config("asrus_v0", tmp_path, vec_env="batched", batched={"engine": "vector"})
    assert config.batched.engine == "vector" and config.batched.dealing == "exact"
    with pytest.raises(ConfigError, match=r"batched\.engine"):
        tiny_config("astrobirdz_v0", tmp_path, vec_env="batched", batched={"engine": "vector"})
    with pytest.raises(ConfigError, match=r"batched\.dealing = 'shuffled'"):
        tiny_config("asrus_v0", tmp_path, vec_env="batched", batched={"dealing": "shuffled"})
    with pytest.raises(ConfigError, match="vec_env is 'DummyVecEnv'"):
        tiny_config("asrus_v0", tmp_path, batched={"engine": "scalar"})
    raw = {"env": {"id": "asrus_v0"}, "algo": {"name": "maskable_ppo"}, "total_steps": 10}
    assert validate_config({**raw, "vec_env": "batched"}).batched.engine == "auto"


def test_a_batched_run_trains(env_id: str, tmp_path: Path) -> None:
    changes = {"vec_env": "batched", "total_steps": 512, "output__checkpoint_every": 256}
    whole = train(tiny_config(env_id, tmp_path / "whole", **changes))
    assert (whole / "final.zip").is_file()


class Recording:
    """A bot that records the observation keys it is given, then plays as ``bot``."""

    def __init__(self, bot, seen: list) -> None:
        self.bot, self.seen = bot, seen

    def act(self, observation: dict, view: dict) -> int:
        self.seen.append(sorted(observation))
        return self.bot.act(observation, view)


def test_only_bots_that_read_the_observation_are_given_it() -> None:
    from dataclasses import replace

    from flockgym.bots.policies import Participant, make_participant
    from flockgym.envs import RandomBot

    assert not make_participant("random", "astrobirdz_v0").reads_observation
    heuristic = make_participant("heuristic", "astrobirdz_v0")
    assert not heuristic.reads_observation
    heuristic_seen: list = []
    custom_seen: list = []
    recorded = replace(
        heuristic, new_bot=lambda seed: Recording(heuristic.new_bot(seed), heuristic_seen)
    )
    custom = Participant("mine", lambda seed: Recording(RandomBot(seed), custom_seen))
    assert custom.reads_observation
    batched = BatchedSelfPlayVecEnv(
        4, env_kwargs("astrobirdz_v0", ["random"], [], num_players=3), engine="scalar"
    )
    for slot in batched.slots:
        slot.pool.fixed = [recorded, custom]
    play(batched, 60, seed=1)
    assert heuristic_seen and all(keys == ["action_mask"] for keys in heuristic_seen)
    assert custom_seen and all(keys == ["action_mask", "observation"] for keys in custom_seen)
