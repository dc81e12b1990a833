"""The masked Q-learners (``masked_dqn``, ``masked_qrdqn``: training/masked_dqn.py):
illegal moves are never played nor bootstrapped from, the replay buffer keeps
the next state's mask, and the learners run the whole pipeline as maskable_ppo
does: configs (a key that does not apply refused by name), determinism, a
crashed run resumed to the same weights, checkpoints that load and play, and a
damaged checkpoint refused naming the problem."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import DummyVecEnv
from training_helpers import crashed_run, tiny_config, tiny_raw_config

from flockgym.bots import load_policy
from flockgym.bots.checkpoints import (
    OPTIMIZER_MEMBER,
    CheckpointArchive,
    CheckpointError,
    tensor_bytes,
)
from flockgym.bots.policies import read_meta_and_learner
from flockgym.cli import main
from flockgym.common.errors import ConfigError
from flockgym.training import masked_dqn as masked
from flockgym.training.config import validate_config
from flockgym.training.learners import get_learner
from flockgym.training.train import resume_run, train

LEARNERS = ["masked_dqn", "masked_qrdqn"]


class Corridor(gym.Env):
    """A toy game of 4 cells: the move is the next cell, any but the current one
    and, from cell 0, also not cell 3; 1 point for reaching cell 3; 5 moves."""

    observation_space = gym.spaces.Box(0.0, 1.0, (4,), np.float32)
    action_space = gym.spaces.Discrete(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.cell, self.moves = 0, 0
        return self._obs(), {}

    def step(self, action):
        assert self.action_masks()[action], f"illegal move {action} from cell {self.cell}"
        self.cell, self.moves = int(action), self.moves + 1
        return self._obs(), float(self.cell == 3), self.moves == 5, False, {}

    def action_masks(self) -> np.ndarray:
        mask = np.arange(4) != self.cell
        if self.cell == 0:
            mask[3] = False
        return mask

    def _obs(self) -> np.ndarray:
        return np.eye(4, dtype=np.float32)[self.cell]


def corridor_model(name: str, **params: object):
    learner = get_learner(name)
    settings = {"name": name, "learning_starts": 0, "batch_size": 16, "buffer_size": 400}
    config = learner.params_model.model_validate(settings | params)
    venv = DummyVecEnv([Corridor, Corridor])
    model = learner.build(venv, config, seed=0, total_steps=400)
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def test_exploration_and_greedy_moves_take_legal_moves_only() -> None:
    masks = np.array([[False, True, False, True], [False, False, True, False]])
    np.random.seed(0)
    drawn = np.stack([masked.legal_uniform(masks) for _ in range(200)])
    assert set(drawn[:, 0]) == {1, 3} and set(drawn[:, 1]) == {2}
    values = torch.tensor([[9.0, 1.0, 5.0, 3.0], [9.0, 8.0, -2.0, 7.0]])
    assert masked.masked_argmax(values, torch.as_tensor(masks)).tolist() == [3, 2]


@pytest.mark.parametrize("name", LEARNERS)
def test_the_replay_buffer_keeps_the_mask_each_next_move_was_chosen_under(name: str) -> None:
    # Corridor asserts every move legal; epsilon 1 then 0.05 plays both paths.
    model = corridor_model(name, exploration_fraction=0.5)
    model.learn(300)
    buffer = model.replay_buffer
    rows = buffer.pos
    assert rows == model.num_timesteps // 2 and model.exploration_rate == pytest.approx(0.05)
    for env in range(2):
        for t in range(rows - 1):
            mask, action = buffer.next_masks[t, env], int(buffer.actions[t + 1, env, 0])
            if buffer.dones[t, env]:
                assert not mask.any()  # a finished game: nothing to bootstrap from
            else:
                assert mask[action]
                cell = int(buffer.next_observations[t, env].argmax())
                assert mask.tolist() == [c != cell and not (cell == 0 and c == 3) for c in range(4)]


class FixedValues(torch.nn.Module):
    """A target network whose values are ``values`` for every observation."""

    def __init__(self, values: torch.Tensor) -> None:
        super().__init__()
        self.values = values

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.values.expand(len(observations), *self.values.shape)


def fill_two_transitions(model) -> None:
    """Row 0: reward 0.5, game on, legal next moves 0 and 3; row 1: reward -1,
    game over (no legal next move)."""
    buffer = model.replay_buffer
    buffer.next_masks[0] = [True, False, False, True]
    buffer.next_masks[1] = False
    buffer.rewards[:2] = [[0.5, 0.5], [-1.0, -1.0]]
    buffer.dones[:2] = [[0.0, 0.0], [1.0, 1.0]]
    buffer.pos = 2


def test_the_dqn_target_maxes_over_the_next_legal_moves(monkeypatch) -> None:
    model = corridor_model("masked_dqn", gamma=0.9)
    fill_two_transitions(model)
    model.q_net_target = FixedValues(torch.tensor([1.0, 9.0, 2.0, 3.0]))  # 9 is illegal
    targets = []

    def spy(current, target):
        targets.append(target)
        return (current - target).abs().mean()

    monkeypatch.setattr(torch.nn.functional, "smooth_l1_loss", spy)
    model.train(gradient_steps=1, batch_size=64)
    values = {round(v, 6) for v in targets[0].flatten().tolist()}
    assert values == {round(0.5 + 0.9 * 3.0, 6), -1.0}


def test_the_qrdqn_target_takes_the_best_legal_next_move(monkeypatch) -> None:
    model = corridor_model("masked_qrdqn", gamma=0.9, n_quantiles=2)
    fill_two_transitions(model)
    # Means 1, 9 (illegal), 2, 3: the target is action 3's quantiles (2 and 4).
    quantiles = torch.tensor([[0.0, 8.0, 2.0, 2.0], [2.0, 10.0, 2.0, 4.0]])
    model.quantile_net_target = FixedValues(quantiles)
    targets = []

    def spy(current, target, sum_over_quantiles=True):
        targets.append(target)
        return (current - target).abs().mean()

    monkeypatch.setattr(masked, "quantile_huber_loss", spy)
    model.train(gradient_steps=1, batch_size=64)
    rows = {tuple(round(v, 6) for v in row) for row in targets[0].tolist()}
    assert rows == {(round(0.5 + 0.9 * 2.0, 6), round(0.5 + 0.9 * 4.0, 6)), (-1.0, -1.0)}


def dqn_changes(name: str, **extra: object) -> dict:
    algo = {"name": name, "learning_starts": 64, "batch_size": 32, "buffer_size": 2048}
    algo |= {"net_arch": [32, 32], "target_update_interval": 256}
    return {"algo": algo | extra, "opponents__snapshot_every": 512}


@pytest.mark.parametrize(
    ("name", "vec_env"),
    [
        pytest.param("masked_dqn", "DummyVecEnv", marks=pytest.mark.slow),
        pytest.param("masked_qrdqn", "DummyVecEnv", marks=pytest.mark.slow),
        ("masked_dqn", "batched"),
    ],
)  # the batched path in make test, the others (same code, another vec env) in test-slow
def test_same_seed_same_weights_and_a_crashed_run_resumes_to_them(
    name: str, vec_env: str, tmp_path: Path, monkeypatch
) -> None:
    changes = dqn_changes(name) | {"vec_env": vec_env}
    reference = train(tiny_config("asrus_v0", tmp_path / "a", **changes))
    again = train(tiny_config("asrus_v0", tmp_path / "b", **changes))
    crashed = crashed_run(tiny_config("asrus_v0", tmp_path / "c", **changes), monkeypatch, 704)
    resumed = resume_run(crashed)
    first = load_policy(reference / "final.zip").network.state_dict()
    for run in (again, resumed):
        other = load_policy(run / "final.zip").network.state_dict()
        assert first.keys() == other.keys()
        assert all(torch.equal(first[k], other[k]) for k in first)
    assert json.loads((resumed / "state.json").read_text())["snapshots"] == [
        "snapshots/step_000000512.zip",
        "snapshots/step_000001024.zip",
    ]
    # A different seed trains other weights.
    other_seed = train(tiny_config("asrus_v0", tmp_path / "d", **changes | {"seed": 4}))
    other = load_policy(other_seed / "final.zip").network.state_dict()
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_a_checkpoint_plays_in_flockgym_eval(tmp_path: Path, capsys) -> None:
    run = train(tiny_config("asrus_v0", tmp_path, **dqn_changes("masked_dqn")))
    policy = load_policy(run / "final.zip", env_id="asrus_v0", env_options={})
    assert policy.meta.algo == "masked_dqn"
    assert policy.meta.network == {"net_arch": [32, 32], "activation": "relu"}
    out = tmp_path / "eval"
    args = ["eval", "--env", "asrus_v0", "--players", f"{run / 'final.zip'},random"]
    assert main([*args, "--games", "4", "--out", str(out), "--no-progress"]) == 0
    standings = json.loads((out / "tournament.json").read_text())["standings"]
    assert sum(s["games"] for s in standings) == 4 * 10 * 5  # 4 deals x 10 tables x 5 seats


def damaged_replay(src: Path, dst: Path) -> Path:
    """``src`` with its saved replay buffer's observations one column short."""
    with zipfile.ZipFile(src) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    state = torch.load(io.BytesIO(members[OPTIMIZER_MEMBER]), weights_only=True)
    state["replay"]["observations"] = state["replay"]["observations"][..., 1:]
    members[OPTIMIZER_MEMBER] = tensor_bytes(state)
    with zipfile.ZipFile(dst, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return dst


def test_a_damaged_replay_buffer_is_refused_naming_it(tmp_path: Path) -> None:
    run = train(tiny_config("asrus_v0", tmp_path, **dqn_changes("masked_dqn")))
    good = run / "checkpoints" / "step_000000512.zip"
    with CheckpointArchive(good) as archive:
        meta, learner = read_meta_and_learner(archive)
        state = learner.read_state(archive, meta)
    assert state.counters["replay_pos"] == 256 and not state.counters["replay_full"]
    assert tuple(state.replay["observations"].shape) == (256, 2, meta.observation_size)
    bad = damaged_replay(good, tmp_path / "bad.zip")
    with CheckpointArchive(bad) as archive, pytest.raises(CheckpointError) as err:
        learner.read_state(archive, meta)
    assert str(err.value).endswith(
        f"{OPTIMIZER_MEMBER}: replay.observations: allowed: a tensor of shape "
        f"(256, 2, {meta.observation_size})"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"pretrain": {"games": 4}},
            "pretrain = {'games': 4} does not apply to algo.name 'masked_dqn': imitation "
            "before training is built for maskable_ppo only; drop it",
        ),
        (
            {"env": {"id": "asrus_v0", "options": {}, "advisor": "heuristic"}},
            "env.advisor = 'heuristic' does not apply to algo.name 'masked_dqn'",
        ),
        (
            {"env": {"id": "asrus_v0", "options": {"reward": "score"}, "relative_reward": True}},
            "env.relative_reward = true does not apply to algo.name 'masked_dqn'",
        ),
        ({"algo": {"name": "masked_dqn", "n_steps": 64}}, "algo.n_steps"),
        ({"algo": {"name": "masked_dqn", "n_quantiles": 5}}, "algo.n_quantiles"),
        (
            {"algo": {"name": "masked_dqn", "buffer_size": 10**9}},
            "algo.buffer_size = 1,000,000,000 would need a",
        ),
        (
            {"algo": {"name": "masked_dqn", "exploration_initial_eps": 0.01}},
            "algo.exploration_final_eps = 0.05 is above algo.exploration_initial_eps = 0.01",
        ),
    ],
)
def test_a_key_that_does_not_apply_is_refused_by_name(
    tmp_path: Path, changes: dict, message: str
) -> None:
    raw = tiny_raw_config("asrus_v0", tmp_path, algo={"name": "masked_dqn"})
    raw.update(changes)
    with pytest.raises(ConfigError, match=None) as err:
        validate_config(raw)
    assert message in str(err.value)
    assert not any(tmp_path.iterdir())


def test_flockgym_reproduce_trains_a_masked_dqn_run_again_bit_identically(
    tmp_path: Path, capsys
) -> None:
    run = train(tiny_config("asrus_v0", tmp_path / "run", **dqn_changes("masked_dqn")))
    out = tmp_path / "again"
    assert main(["reproduce", str(run), "--out", str(out)]) == 0
    assert "REPRODUCED: weights bit-identical (6 tensors)" in capsys.readouterr().out
    assert json.loads((out / "reproduce.json").read_text())["reproduced"] is True


def test_repack_keeps_the_newest_transitions_that_fill_whole_rows() -> None:
    # 3 rows of 2 envs, full, next row to write 1: oldest row 1, then 2, then 0.
    saved = {"rewards": np.array([[4.0, 5.0], [0.0, 1.0], [2.0, 3.0]])}
    laid, pos, full = masked.repack(saved, pos=1, full=True, rows=2, n_envs=2)
    assert laid["rewards"].tolist() == [[2.0, 3.0], [4.0, 5.0]] and (pos, full) == (0, True)
    laid, pos, full = masked.repack(saved, pos=1, full=True, rows=4, n_envs=4)
    assert laid["rewards"].tolist() == [[2.0, 3.0, 4.0, 5.0]] and (pos, full) == (1, False)
    # Not full: the checkpoint holds the 2 rows written, oldest first.
    first_two = {"rewards": saved["rewards"][:2]}
    laid, pos, full = masked.repack(first_two, pos=2, full=False, rows=3, n_envs=3)
    assert laid["rewards"].tolist() == [[5.0, 0.0, 1.0]] and (pos, full) == (1, False)


def test_a_run_resumed_with_another_buffer_size_and_n_envs_trains_on(
    tmp_path: Path, monkeypatch
) -> None:
    config = tiny_config("asrus_v0", tmp_path, **dqn_changes("masked_dqn"))
    crashed = crashed_run(config, monkeypatch, 704)
    resumed = resume_run(crashed, ["algo.buffer_size=300", "n_envs=4"])
    with CheckpointArchive(resumed / "checkpoints" / "step_000001024.zip") as archive:
        counters = json.loads(archive.read("learner.json", 2**20))
    assert (counters["replay_rows"], counters["n_envs"], counters["replay_full"]) == (75, 4, True)
    assert (resumed / "final.zip").is_file()


def test_learner_json_problems_name_the_field_and_what_is_allowed() -> None:
    from flockgym.training.learners import STATE_FORMAT, STATE_VERSION, counter_problems

    counters = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "num_timesteps": -1,
        "n_updates": 0,
        "total_timesteps": 10,
        "progress_remaining": float("nan"),
        "learning_rate": 0.0003,
        "ep_info_buffer": [],
        "ep_success_buffer": [1],
        "colour": "red",
    }
    assert counter_problems(counters) == [
        "unknown field 'colour'",
        "num_timesteps = -1: allowed: an integer >= 0",
        "progress_remaining = nan: allowed: a finite number",
        "missing field 'clip_range'",
        "ep_success_buffer = [1]: allowed: a list of at most 100 true/false",
    ]
