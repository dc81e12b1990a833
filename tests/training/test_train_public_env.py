"""The public single-agent path: the self-play env through Gymnasium's registry,
checkers passing for unmasked learners, and models trained outside flockgym
exported as checkpoints."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import flockgym.bots
import flockgym.training  # registers the self-play envs
from flockgym.bots import export_policy, load_policy
from flockgym.bots.policies import make_participant, policy_participant
from flockgym.common.errors import CheckpointError
from flockgym.envs import IllegalActionError, OptionError
from flockgym.evaluation.tournaments import tournament
from flockgym.training import gymnasium_id


def test_every_env_has_a_registered_selfplay_env(env_id: str) -> None:
    env = gymnasium.make(gymnasium_id(env_id), opponents=["random"])
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].dtype == bool and info["action_mask"].any()
    legal = int(np.flatnonzero(info["action_mask"])[0])
    observation, reward, *_, info = env.step(legal)
    assert "action_mask" in info and np.isfinite(reward)
    assert gymnasium_id("asrus_v0") == "flockgym/asrus-selfplay-v0"
    assert set(flockgym.training.__all__) >= {"SelfPlayEnv", "selfplay_env", "gymnasium_id"}
    assert {"export_policy", "load_policy"} <= set(flockgym.bots.__all__)


def test_unmasked_learners_pass_both_checkers_with_penalize(env_id: str) -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(gymnasium_id(env_id), opponents=["random"], illegal_action="penalize")
    check_env(env.unwrapped, skip_render_check=True)
    with _no_warnings():
        sb3_check_env(env.unwrapped)
    # An illegal move under penalize ends the game with -1 to the learner.
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, _ = env.step(illegal)
    assert terminated and reward == -1.0


class _no_warnings:
    def __enter__(self):
        import warnings

        self.catcher = warnings.catch_warnings(record=True)
        self.caught = self.catcher.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc):
        self.catcher.__exit__(*exc)
        assert not [str(w.message) for w in self.caught]


def test_without_penalize_an_illegal_move_is_refused() -> None:
    env = gymnasium.make("flockgym/asrus-selfplay-v0", opponents=["heuristic"], num_players=3)
    _, info = env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(int(np.flatnonzero(~info["action_mask"])[0]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "heuristic"}, "a list of bot specs"),
        ({"opponents": []}, "at least one bot spec"),
        ({"opponents": ["random"], "num_players": 2}, "num_players=2"),
        ({"opponents": ["random"], "render_mode": "human"}, "render_mode='human'"),
    ],
)
def test_bad_selfplay_arguments_name_the_problem(kwargs, message) -> None:
    with pytest.raises(OptionError, match=message):
        gymnasium.make("flockgym/asrus-selfplay-v0", **kwargs)


def test_the_selfplay_env_renders_the_learners_seat() -> None:
    env = gymnasium.make("flockgym/asrus-selfplay-v0", opponents=["random"], render_mode="ansi")
    env.reset(seed=0)
    assert "Asrus" in env.render()


def sb3_model(algo: str, env_id: str, options: dict, **policy_kwargs):
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    kind = MaskablePPO if algo == "maskable" else PPO
    extra = {} if algo == "maskable" else {"illegal_action": "penalize"}
    env = gymnasium.make(gymnasium_id(env_id), opponents=["random"], **options, **extra)
    return kind("MlpPolicy", env, n_steps=32, batch_size=32, policy_kwargs=policy_kwargs, seed=0)


@pytest.mark.parametrize("algo", ["maskable", "plain"])
def test_a_model_trained_outside_flockgym_becomes_a_bot(algo: str, tmp_path: Path) -> None:
    options = {"num_players": 3}
    model = sb3_model(algo, "asrus_v0", options, net_arch=[16, 16])
    model.learn(64)
    path = export_policy(model, "asrus_v0", options, tmp_path / "mine.zip")
    policy = load_policy(path, env_id="asrus_v0", env_options=options)
    assert policy.meta.network == {"net_arch": [16, 16], "activation": "tanh"}
    assert policy.meta.steps == 64 and policy.meta.extra["exported_from"] == type(model).__name__
    # The same network: its logits are the model's own.
    env = gymnasium.make(gymnasium_id("asrus_v0"), opponents=["random"], **options)
    observation, info = env.reset(seed=0)
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(observation[None])
        expected = model.policy.get_distribution(obs).distribution.logits.numpy()[0]
    probs = policy.probabilities(observation, info["action_mask"])
    legal = info["action_mask"]
    want = np.exp(expected[legal] - expected[legal].max())
    assert probs[legal] == pytest.approx(want / want.sum(), rel=1e-5)
    # Usable everywhere a bot spec is.
    players = [make_participant(str(path), "asrus_v0", options), make_participant("random", "x")]
    assert tournament("asrus_v0", players, 2, env_options=options).standings[0].games > 0


def test_export_refuses_a_model_for_another_env_or_an_unknown_network(tmp_path: Path) -> None:
    model = sb3_model("maskable", "asrus_v0", {"num_players": 3}, net_arch=[8])
    with pytest.raises(CheckpointError, match=r"observations of shape \(162,\).*\(228,\)"):
        export_policy(model, "asrus_v0", {"num_players": 5}, tmp_path / "a.zip")
    split = sb3_model("maskable", "asrus_v0", {"num_players": 3}, net_arch={"pi": [8], "vf": [4]})
    with pytest.raises(CheckpointError, match="policy and value networks differ"):
        export_policy(split, "asrus_v0", {"num_players": 3}, tmp_path / "b.zip")
    assert not list(tmp_path.iterdir()), "a refused export wrote a file"


def test_act_batch_is_act_row_by_row(env_id: str, tmp_path: Path) -> None:
    from training_policies_helpers import write_checkpoint

    policy = load_policy(write_checkpoint(tmp_path / "p.zip", env_id), env_id=env_id)
    env = gymnasium.make(gymnasium_id(env_id), opponents=["random"])
    rows, masks = [], []
    observation, info = env.reset(seed=2)
    for _ in range(12):
        rows.append(observation)
        masks.append(info["action_mask"])
        observation, _, terminated, truncated, info = env.step(policy.act(observation, masks[-1]))
        if terminated or truncated:
            observation, info = env.reset()
    observations, masks_ = np.stack(rows), np.stack(masks)
    greedy = policy.act_batch(observations, masks_)
    assert greedy.shape == (12,) and greedy.dtype == np.int64
    assert list(greedy) == [policy.act(o, m) for o, m in zip(observations, masks_, strict=True)]
    assert all(masks_[i, a] for i, a in enumerate(greedy))
    probs = policy.probabilities_batch(observations, masks_)
    assert probs.sum(axis=1) == pytest.approx(np.ones(12)) and np.all(probs[~masks_] == 0)
    seeded = [np.random.default_rng(i) for i in range(12)]
    sampled = policy.act_batch(observations, masks_, play="sample", rngs=seeded)
    again = policy.act_batch(
        observations, masks_, play="sample", rngs=[np.random.default_rng(i) for i in range(12)]
    )
    assert list(sampled) == list(again) and all(masks_[i, a] for i, a in enumerate(sampled))
    with pytest.raises(ValueError, match="row 3 has no legal action"):
        bad = masks_.copy()
        bad[3] = 0
        policy.act_batch(observations, bad)
    with pytest.raises(ValueError, match="masks of shape"):
        policy.act_batch(observations, masks_[:5])
    with pytest.raises(CheckpointError, match="expected \\(batch,"):
        policy.act_batch(observations[:, :5], masks_)
    with pytest.raises(ValueError, match="rngs: 2 generators for 12 rows"):
        policy.act_batch(observations, masks_, play="sample", rngs=seeded[:2])
    assert policy_participant("p", policy, "greedy").new_bot(0).policy is policy
