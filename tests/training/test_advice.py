"""Advised policies (``env.advisor``, bots/advice.py): the learner's input is
its observation followed by the heuristic's move as a one-hot; the policy adds
that one-hot to its logits through a learnt weight; checkpoints keep the
advisor and take it wherever they play (self-play, batched self-play,
tournaments, pretraining), and the combinations that cannot work are refused by
name."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from test_train_batched import assert_same, dummy, env_kwargs, play
from test_train_fast_eval import figures
from training_helpers import short_options, tiny_config
from training_policies_helpers import write_checkpoint

from flockgym.bots import load_policy
from flockgym.bots.advice import Advisor, input_size
from flockgym.bots.policies import PolicyBot, make_participant
from flockgym.common.errors import CheckpointError
from flockgym.envs import OptionError, make, make_bot
from flockgym.evaluation.tournaments import tournament
from flockgym.training.batched import BatchedSelfPlayVecEnv
from flockgym.training.config import ConfigError
from flockgym.training.learners import get_learner
from flockgym.training.maskable import ADVICE_WEIGHT_INIT, float64_logits
from flockgym.training.pretrain import collect_demonstrations
from flockgym.training.selfplay import SelfPlayEnv
from flockgym.training.train import train

ENV = "astrobirdz_v0"
"""A game whose heuristic reads the view and is cheap enough for many tests."""


def test_the_advice_is_the_heuristics_move_as_a_one_hot() -> None:
    env = make(ENV).unwrapped
    env.reset(seed=3)
    agent = env.agent_selection
    observation, view = env.observe(agent), env.view(agent)
    advisor = Advisor(ENV, "heuristic", env.num_actions, seed=5)
    advice = advisor.advice(observation, view)
    expected = make_bot(ENV, "heuristic", 5).act(observation, view)
    assert advice.dtype == np.float32 and advice.sum() == 1 and advice[expected] == 1
    vector = advisor.network_input(observation, view)
    assert vector.shape == (
        input_size(observation["observation"].size, env.num_actions, "heuristic"),
    )
    assert np.array_equal(vector[: observation["observation"].size], observation["observation"])
    nothing_to_do = {**observation, "action_mask": np.zeros_like(observation["action_mask"])}
    assert not advisor.advice(nothing_to_do, {}).any()


def test_unknown_advisors_are_refused_by_name() -> None:
    with pytest.raises(OptionError, match="allowed: none, heuristic"):
        input_size(10, 3, "oracle")
    with pytest.raises(OptionError, match="allowed: heuristic"):
        Advisor(ENV, "none", 3, 0)
    with pytest.raises(OptionError, match="allowed: none, heuristic"):
        SelfPlayEnv(ENV, {}, ["random"], advisor="random")


def test_the_learner_sees_its_observation_and_the_advice() -> None:
    env = SelfPlayEnv(ENV, {}, ["heuristic"], advisor="heuristic")
    plain = SelfPlayEnv(ENV, {}, ["heuristic"])
    size, actions = plain.observation_space.shape[0], plain.action_space.n
    assert env.observation_space.shape == (size + actions,)
    observation, info = env.reset(seed=1)
    expected, _ = plain.reset(seed=1)
    assert np.array_equal(observation[:size], expected)  # the same game, the same seat
    advice = observation[size:]
    assert advice.sum() == 1 and info["action_mask"][int(np.argmax(advice))]
    for _ in range(30):
        action = int(np.argmax(advice))  # follow the advice
        observation, _, terminated, truncated, info = env.step(action)
        advice = observation[size:]
        if terminated or truncated:
            assert not advice.any()  # nothing left to advise
            observation, info = env.reset()
            advice = observation[size:]
        assert advice.sum() == 1 and info["action_mask"][int(np.argmax(advice))]


def test_batched_self_play_plays_the_advised_games_dummyvecenv_plays(tmp_path: Path) -> None:
    snapshot = [str(write_checkpoint(tmp_path / "advised.zip", ENV, advisor="heuristic"))]
    kwargs = {**env_kwargs(ENV, ["heuristic", "random"], snapshot), "advisor": "heuristic"}
    expected = play(dummy(3, kwargs), 100, seed=5)
    seen = play(BatchedSelfPlayVecEnv(3, kwargs, engine="scalar"), 100, seed=5)
    assert_same(seen, expected)
    opponents = {
        info["game_result"]["opponent"]
        for entry in expected
        if entry[0] == "step"
        for info in entry[4]
        if "game_result" in info
    }
    assert "snapshot" in opponents  # an advised snapshot sat at the table


def test_the_vectorised_engine_refuses_an_advisor() -> None:
    kwargs = {**env_kwargs("asrus_v0", ["random"], []), "advisor": "heuristic"}
    with pytest.raises(OptionError, match="allowed with an advisor: engine='scalar'"):
        BatchedSelfPlayVecEnv(2, kwargs, engine="vector")
    assert BatchedSelfPlayVecEnv(2, kwargs, engine="scalar").observation_space.shape == (228 + 195,)


def test_the_advice_reaches_the_logits_through_a_learnt_weight() -> None:
    learner = get_learner("maskable_ppo")
    config = {"net_arch": [8], "activation": "tanh"}
    size, actions = 6, 4
    network = learner.network(config, size + actions, actions, advice_actions=actions)
    assert float(network.advice_weight.detach()) == ADVICE_WEIGHT_INIT
    inputs = torch.zeros((2, size + actions))
    inputs[0, size + 2] = 1.0  # advised: action 2; row 1 has no advice
    features = network.extract_features(inputs, network.pi_features_extractor)
    head = network.action_net(network.mlp_extractor.forward_actor(features))
    logits = network.actor_logits(inputs, network.mlp_extractor.forward_actor(features))
    difference = (logits - head).detach()
    assert torch.allclose(difference[0], torch.tensor([0.0, 0.0, ADVICE_WEIGHT_INIT, 0.0]))
    assert not difference[1].any()
    masks = torch.ones((2, actions), dtype=torch.bool)
    _, log_prob, _ = network.evaluate_actions(inputs, torch.tensor([2, 2]), masks)
    log_prob.sum().backward()
    assert network.advice_weight.grad is not None and float(network.advice_weight.grad) > 0
    assert np.allclose(float64_logits(network, inputs.numpy()), logits.detach().numpy(), atol=1e-5)
    actions_taken, _, _ = network(inputs, deterministic=True, action_masks=masks.numpy())
    assert int(actions_taken[0]) == 2


def test_an_advised_checkpoint_plays_with_its_advisor(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path / "advised.zip", ENV, advisor="heuristic")
    policy = load_policy(path, env_id=ENV, env_options={})
    assert policy.advised and policy.input_size == policy.observation_size + policy.num_actions
    participant = make_participant(str(path), ENV)
    assert participant.kind == "advised_policy" and participant.reads_view
    bot = participant.new_bot(4)
    assert isinstance(bot, PolicyBot) and bot.advisor is not None
    env = make(ENV).unwrapped
    env.reset(seed=2)
    agent = env.agent_selection
    observation, view = env.observe(agent), env.view(agent)
    action = bot.act(observation, view)
    assert observation["action_mask"][action]
    # The untrained network's logits are near 0: the advice decides.
    assert action == make_bot(ENV, "heuristic", bot_advisor_seed(4)).act(observation, view)
    with pytest.raises(CheckpointError, match="with the heuristic as its advisor"):
        policy.act(observation)


def bot_advisor_seed(seed: int) -> int:
    from flockgym.bots.policies import advisor_seed

    value = advisor_seed(seed)
    assert value is not None and value != seed
    return value


def test_tournaments_seat_advised_policies_on_every_engine(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path / "a.zip", "asrus_v0", {"num_players": 3}, "heuristic")
    options = {"num_players": 3}
    players = [make_participant(f"{path}@sample", "asrus_v0", options)]
    players += [make_participant(spec, "asrus_v0", options) for spec in ("heuristic", "random")]
    auto = tournament("asrus_v0", players, 2, seed=1, env_options=options)
    sequential = tournament("asrus_v0", players, 2, seed=1, env_options=options, batch=False)
    assert figures(auto) == figures(sequential)  # auto fell back to the scalar engine
    with pytest.raises(OptionError, match="advised_policy"):
        tournament("asrus_v0", players, 2, seed=1, env_options=options, engine="vector")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"env": {"id": "asrus_v0", "advisor": "oracle"}}, r"env\.advisor"),
        (
            {"env": {"id": "asrus_v0", "advisor": "heuristic"}, "vec_env": "batched"},
            "allowed with an advisor: batched.engine: scalar",
        ),
    ],
)
def test_configs_with_an_advisor_that_cannot_work_are_refused(
    tmp_path: Path, changes: dict, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        tiny_config("asrus_v0", tmp_path, **changes)


def test_an_advised_run_trains_resumes_and_records_its_advisor(tmp_path: Path) -> None:
    options = short_options("arena_v0")
    changes = {
        "env": {"id": "arena_v0", "options": options, "advisor": "heuristic"},
        "opponents": {"pool": ["heuristic"]},
        "pretrain": {"games": 3, "epochs": 2},
        "vec_env": "batched",
    }
    run = train(tiny_config("arena_v0", tmp_path, **changes))
    with zipfile.ZipFile(run / "final.zip") as archive:
        meta = json.loads(archive.read("flockgym.json"))
    assert meta["advisor"] == "heuristic"
    policy = load_policy(run / "final.zip", env_id="arena_v0", env_options=options)
    assert policy.input_size == meta["observation_size"] + meta["num_actions"]


def test_pretraining_with_an_advisor_records_the_advice(tmp_path: Path) -> None:
    changes = {
        "env": {"id": "asrus_v0", "advisor": "heuristic"},
        "pretrain": {"games": 2},
        "opponents": {"pool": ["random"]},
    }
    config = tiny_config("asrus_v0", tmp_path, **changes)
    demos = collect_demonstrations(config)
    advice = demos.observations[:, 228:]
    assert demos.observations.shape[1] == 228 + 195
    assert (advice.sum(axis=1) == 1).all()
    assert demos.masks[np.arange(len(advice)), np.argmax(advice, axis=1)].all()


def test_a_checkpoint_naming_an_unknown_advisor_is_refused(tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path / "p.zip", ENV)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["flockgym.json"])
    meta["advisor"] = "oracle"
    members["flockgym.json"] = json.dumps(meta).encode()
    doctored = tmp_path / "doctored.zip"
    with zipfile.ZipFile(doctored, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(
        CheckpointError, match="advisor = 'oracle': allowed: one of none, heuristic"
    ):
        load_policy(doctored)
