"""Batched self-play on a vectorised engine of sequential turns (Astrobirdz):
the games DummyVecEnv plays, move for move (exact dealing), with random,
heuristic and snapshot opponents and every reward; the config selects it by
name and refuses what it cannot play; a run is the same run for the same seed."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from test_train_batched import assert_same, dummy, env_kwargs, play
from training_helpers import tiny_config
from training_policies_helpers import write_checkpoint

from flockgym.envs.astrobirdz.vector import PLAIN
from flockgym.evaluation.vector_tournament import resolve_tournament_engine
from flockgym.training.batched import BatchedSelfPlayVecEnv, SequentialVectorGames
from flockgym.training.config import ConfigError
from flockgym.training.train import train
from flockgym.training.vector_engines import has_vector_engine, is_sequential, vector_engine_envs


@pytest.mark.parametrize(
    ("reward", "players"), [("score", 4), ("win", 3), ("rank", 5), ("score", 2)]
)
def test_the_sequential_engine_plays_the_games_dummyvecenv_plays(reward: str, players: int) -> None:
    kwargs = env_kwargs(
        "astrobirdz_v0", ["random", "heuristic"], [], num_players=players, reward=reward, **PLAIN
    )
    expected = play(dummy(4, kwargs), 150, seed=players)
    batched = BatchedSelfPlayVecEnv(4, kwargs, engine="vector")
    assert isinstance(batched.games, SequentialVectorGames)
    seen = play(batched, 150, seed=players)
    assert_same(seen, expected)
    ended = [i for e in expected if e[0] == "step" for i in e[4] if "game_result" in i]
    assert len({i["game_result"]["opponent"] for i in ended}) == 2


@pytest.mark.parametrize("extra", [{"win_bonus": 1.0}, {"relative_reward": True}])
def test_the_sequential_engine_pays_the_win_bonus_and_relative_reward(extra: dict) -> None:
    kwargs = {**env_kwargs("astrobirdz_v0", ["heuristic"], [], reward="score", **PLAIN), **extra}
    expected = play(dummy(3, kwargs), 120, seed=9)
    seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="vector"), 120, seed=9)
    assert_same(seen, expected)


def test_the_sequential_engine_batches_snapshot_opponents_as_dummyvecenv(tmp_path: Path) -> None:
    snapshot = [str(write_checkpoint(tmp_path / "snapshot.zip", "astrobirdz_v0"))]
    for play_mode in ("sample", "greedy"):
        kwargs = env_kwargs("astrobirdz_v0", ["heuristic"], snapshot, **PLAIN)
        kwargs["snapshot_play"] = play_mode
        expected = play(dummy(3, kwargs), 90, seed=2)
        seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="vector"), 90, seed=2)
        assert_same(seen, expected)


def test_workers_play_the_sequential_engines_games() -> None:
    from flockgym.training.parallel import ParallelBatchedVecEnv

    kwargs = env_kwargs("astrobirdz_v0", ["random", "heuristic"], [], num_players=3, **PLAIN)
    workers = ParallelBatchedVecEnv(5, kwargs, engine="vector", workers=2)
    try:
        assert_same(play(workers, 80, seed=9), play(dummy(5, kwargs), 80, seed=9))
    finally:
        workers.close()


def test_fast_dealing_deals_other_cards_the_same_way_for_a_seed() -> None:
    kwargs = env_kwargs("astrobirdz_v0", ["heuristic"], [], **PLAIN)
    exact = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector"), 30, seed=1)
    fast = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector", dealing="fast"), 30, seed=1)
    assert not np.array_equal(exact[0][1], fast[0][1])
    again = play(BatchedSelfPlayVecEnv(2, kwargs, engine="vector", dealing="fast"), 30, seed=1)
    assert_same(again, fast)


def test_only_a_config_naming_it_gets_the_sequential_engine(tmp_path: Path) -> None:
    assert is_sequential("astrobirdz_v0") and not has_vector_engine("astrobirdz_v0")
    assert vector_engine_envs() == ["asrus_v0"]
    assert vector_engine_envs(every=True) == ["asrus_v0", "astrobirdz_v0"]
    # tournaments play simultaneous turns only: auto stays scalar, vector is refused
    assert resolve_tournament_engine("astrobirdz_v0", dict(PLAIN), ["heuristic"], "auto") == (
        "scalar"
    )
    plain = {"env__options": dict(PLAIN), "vec_env": "batched"}
    config = tiny_config("astrobirdz_v0", tmp_path, batched={"engine": "vector"}, **plain)
    assert config.batched.engine == "vector"
    with pytest.raises(
        ConfigError,
        match=r"env\.options with batched\.engine 'vector': option berzerkerbirdz=True: the "
        r"vectorised Astrobirdz engine does not play it; allowed: False",
    ):
        tiny_config(
            "astrobirdz_v0",
            tmp_path,
            vec_env="batched",
            batched={"engine": "vector"},
            env__options={**PLAIN, "berzerkerbirdz": True},
        )
    with pytest.raises(
        ConfigError, match=r"berzerkerbirdz defaults to True.*allowed: berzerkerbirdz=False"
    ):
        tiny_config("astrobirdz_v0", tmp_path, vec_env="batched", batched={"engine": "vector"})
    with pytest.raises(
        ConfigError, match=r"env\.advisor = 'heuristic' with batched\.engine 'vector'"
    ):
        tiny_config(
            "astrobirdz_v0",
            tmp_path,
            batched={"engine": "vector"},
            env__advisor="heuristic",
            **plain,
        )


def test_a_run_on_the_sequential_engine_is_the_same_for_the_same_seed(tmp_path: Path) -> None:
    changes = {
        "vec_env": "batched",
        "batched": {"engine": "vector"},
        "env__options": dict(PLAIN),
        "total_steps": 512,
        "output__checkpoint_every": 256,
        "opponents": {"pool": ["heuristic", "random"]},
    }
    first = train(tiny_config("astrobirdz_v0", tmp_path / "a", **changes))
    second = train(tiny_config("astrobirdz_v0", tmp_path / "b", **changes))
    for run in (first, second):
        assert (run / "final.zip").is_file()
        assert yaml.safe_load((run / "config.yaml").read_text())["batched"]["engine"] == "vector"

    first_weights, second_weights = weights(first), weights(second)
    assert first_weights.keys() == second_weights.keys() and first_weights
    for name, tensor in first_weights.items():
        assert torch.equal(tensor, second_weights[name]), name


def test_the_scalar_and_vector_engines_train_the_same_weights(tmp_path: Path) -> None:
    """The same seed on either engine: the same games, so the very same learner."""
    changes = {
        "vec_env": "batched",
        "env__options": dict(PLAIN),
        "total_steps": 512,
        "opponents": {"pool": ["heuristic", "random"]},
    }
    runs = [
        train(tiny_config("astrobirdz_v0", tmp_path / name, batched={"engine": name}, **changes))
        for name in ("scalar", "vector")
    ]
    scalar, vector = (weights(run) for run in runs)
    assert scalar.keys() == vector.keys() and scalar
    for name, tensor in scalar.items():
        assert torch.equal(tensor, vector[name]), name


def weights(run: Path) -> dict:
    """The final policy's tensors, read with ``weights_only``."""
    with zipfile.ZipFile(run / "final.zip") as archive:
        data = archive.read("policy.pth")
    return torch.load(io.BytesIO(data), weights_only=True)


def test_the_training_benchmark_times_the_engine_where_it_plays_the_options() -> None:
    """``benchmarks/train_throughput.py`` adds the vector engine's path for
    Astrobirdz when the config's options are the plain game's, not otherwise."""
    from test_benchmarks_throughput import load

    bench = load("train_throughput")
    overrides = ["env.advisor=none", "pretrain.games=0"]
    shipped = bench.load_config(bench.CONFIGS["astrobirdz"], overrides)
    plain = bench.load_config(
        bench.CONFIGS["astrobirdz"],
        [*overrides, "env.options.berzerkerbirdz=false", "env.options.trump_rules=false"],
    )
    names = [[spec.name for spec in bench.paths_for(c, fast=False)] for c in (shipped, plain)]
    assert "batched, vector engine" not in names[0]
    assert "batched, vector engine" in names[1]
    vector = next(spec for spec in bench.paths_for(plain, fast=False) if spec.engine == "vector")
    assert (vector.vec_env, vector.dealing, vector.workers) == ("batched", "exact", 1)
