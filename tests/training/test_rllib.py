"""The rllib_ppo learner: the adapter, the RLModule, a short run, and the error
without ray. Everything but the last two tests needs the rllib extra (skipped
without it); `make test-rllib` installs it in .venv-rllib and runs them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from flockgym.bots.checkpoints import POLICY_MEMBER, tensor_bytes, write_checkpoint
from flockgym.bots.policies import (
    CheckpointMeta,
    env_shapes,
    load_policy,
    make_participant,
    meta_member,
)
from flockgym.envs import list_envs, make
from flockgym.envs.core.rewards import win_rewards
from flockgym.training.config import ConfigError, load_config
from flockgym.training.learners import get_learner
from flockgym.training.rllib.learner import ray_missing

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "asrus" / "rllib_ppo.yaml"
needs_ray = pytest.mark.skipif(ray_missing(), reason="needs the rllib extra (make test-rllib)")


def adapter(env_id: str, **config: Any) -> Any:
    from flockgym.training.rllib.env import FlockgymMultiAgentEnv

    return FlockgymMultiAgentEnv({"env_id": env_id, **config})


def play_random(env: Any, rng: np.random.Generator, seed: int | None = None) -> dict[str, Any]:
    """One episode of legal random moves; per-agent returns and what the agents saw."""
    observations, _ = env.reset(seed=seed)
    returns: dict[str, float] = {}
    while True:
        assert len(observations) == 1, "exactly the agent to act gets an observation"
        ((agent, observation),) = observations.items()
        assert agent == env.game.agent_selection
        assert env.observation_spaces[agent].contains(observation)
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, truncateds, _ = env.step({agent: action})
        for name, reward in rewards.items():
            returns[name] = returns.get(name, 0.0) + reward
        if terminateds["__all__"] or truncateds["__all__"]:
            assert set(observations) == set(env.agents) == set(rewards)
            return {"returns": returns, "truncated": truncateds["__all__"]}


# ---- the adapter (rllib extra, no Ray processes) -------------------------------------


@needs_ray
@pytest.mark.parametrize("env_id", list_envs())
def test_the_adapter_passes_rllibs_env_checker(env_id: str) -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for config in ({}, {"pool": ["random"]}):
        env = adapter(env_id, **config)
        for _ in range(10):  # random unmasked actions: illegal ones end the game, no crash
            check_multiagent_environments(env)


@needs_ray
@pytest.mark.parametrize("env_id", list_envs())
def test_every_agents_return_is_its_game_result(env_id: str) -> None:
    env = adapter(env_id, env_options={"reward": "win"})
    rng = np.random.default_rng(0)
    agents = env.possible_agents
    finished = 0
    for episode in range(6):
        played = play_random(env, rng, seed=episode)
        if played["truncated"]:
            assert all(r == 0.0 for r in played["returns"].values())
            continue
        finished += 1
        winners = [agents.index(a) for a in env.raw.winners]
        expected = win_rewards(len(agents), winners)
        for seat, agent in enumerate(agents):
            assert played["returns"][agent] == pytest.approx(expected[seat])
        assert env.last_result["illegal_actions"] == 0
    assert finished or env_id == "skybirds_v0"


@needs_ray
def test_the_win_bonus_is_added_to_every_agents_score_return() -> None:
    plain = adapter("asrus_v0", env_options={"reward": "score"}, reward_scale=0.5)
    bonus = adapter("asrus_v0", env_options={"reward": "score"}, reward_scale=0.5, win_bonus=2.0)
    agents = plain.possible_agents
    for episode in range(4):
        base = play_random(plain, np.random.default_rng(episode), seed=episode)
        seen = play_random(bonus, np.random.default_rng(episode), seed=episode)
        winners = [agents.index(a) for a in plain.raw.winners]
        assert winners, "an Asrus game played to its end has a winner"
        expected = win_rewards(len(agents), winners)
        for seat, agent in enumerate(agents):
            want = base["returns"][agent] + 2.0 * expected[seat]
            assert seen["returns"][agent] == pytest.approx(want)


@needs_ray
@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [("win_bonus", -1.0, ">= 0.0"), ("win_bonus", "big", ">= 0.0"), ("reward_scale", 0, "> 0.0")],
)
def test_a_bad_reward_number_is_refused_by_name(key: str, value: Any, allowed: str) -> None:
    from flockgym.envs import OptionError

    with pytest.raises(OptionError, match=f"{key} = .*allowed: a finite number {allowed}"):
        adapter("asrus_v0", **{key: value})


@needs_ray
def test_bot_seats_are_played_inside_and_the_learner_gets_its_result() -> None:
    env = adapter("asrus_v0", env_options={"num_players": 4}, pool=["heuristic"])
    rng = np.random.default_rng(1)
    for episode in range(4):
        played = play_random(env, rng, seed=episode if episode == 0 else None)
        (learner,) = [a for a, h in env.seating.items() if h == "learner"]
        assert env.agents == [learner], "bot seats are not RLlib agents"
        assert env.possible_agents.index(learner) == episode % 4, "the learner's seat rotates"
        assert set(env.bots) == set(env.possible_agents) - {learner}
        seat = env.possible_agents.index(learner)
        winners = [env.possible_agents.index(a) for a in env.raw.winners]
        assert played["returns"][learner] == pytest.approx(win_rewards(4, winners)[seat])
        assert env.last_result["opponent"] == "heuristic"


@needs_ray
def test_an_illegal_action_ends_the_game_with_a_penalty_and_is_counted() -> None:
    env = adapter("asrus_v0")
    observations, _ = env.reset(seed=3)
    ((agent, observation),) = observations.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"]
    assert rewards[agent] == -1.0
    assert all(r == 0.0 for a, r in rewards.items() if a != agent)
    assert infos[agent]["illegal_actions"] == 1 and env.illegal_actions == 1
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


@needs_ray
def test_only_the_agent_to_act_may_move() -> None:
    env = adapter("asrus_v0")
    observations, _ = env.reset(seed=0)
    (agent,) = observations
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"exactly the agent to act.*{agent}"):
        env.step({other: 0})
    with pytest.raises(ValueError, match="exactly the agent to act"):
        env.step({agent: 0, other: 0})


@needs_ray
def test_seating_plan_and_policy_mapping() -> None:
    from flockgym.training.rllib.env import SEATING_KEY, SeatingPlan, policy_mapping

    agents = ["player_0", "player_1", "player_2"]
    rng = np.random.default_rng(0)
    assert SeatingPlan([]).draw(rng, agents, 0) == dict.fromkeys(agents, "learner")
    seatings = [SeatingPlan(["random"], 0.0, 1.0, 2).draw(rng, agents, e) for e in range(20)]
    assert {s["player_1"] for s in seatings if s["player_0"] == "learner"} <= {
        "snapshot_0",
        "snapshot_1",
    }
    bots = [SeatingPlan(["random"], 0.0, 0.0, 2).draw(rng, agents, 1) for _ in range(5)]
    assert all(
        s == {"player_1": "learner", "player_0": "random", "player_2": "random"} for s in bots
    )

    class Episode:
        custom_data = {SEATING_KEY: {"player_0": "snapshot_1"}}  # noqa: RUF012

    assert policy_mapping("player_0", Episode()) == "snapshot_1"
    assert policy_mapping("player_2", Episode()) == "learner"


# ---- the RLModule ---------------------------------------------------------------------------


@needs_ray
def test_the_module_never_samples_an_illegal_action_and_exports_as_a_flockgym_network() -> None:
    from flockgym.training.rllib.module import HUGE_NEG, MaskedActorCritic

    env = adapter("asrus_v0")
    agent = env.possible_agents[0]
    network = {"net_arch": [32, 32], "activation": "relu"}
    module = MaskedActorCritic(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config=network,
    )
    rng = np.random.default_rng(0)
    batch = []
    env.reset(seed=0)
    for _ in range(32):
        observations, _ = env.reset()
        batch.append(next(iter(observations.values())))
    obs = {k: torch.as_tensor(np.stack([o[k] for o in batch])) for k in batch[0]}
    masks = obs["action_mask"].bool()
    logits = module.forward_exploration({"obs": obs})["action_dist_inputs"]
    assert torch.all(logits[~masks] == HUGE_NEG) and torch.all(logits[masks] > HUGE_NEG)
    dist = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(20):
        actions = dist.sample()
        assert masks[torch.arange(len(actions)), actions].all()
    values = module.compute_values({"obs": obs})
    assert values.shape == (32,)

    size, actions, _ = env_shapes("asrus_v0", {})
    learner = get_learner("rllib_ppo")
    flockgym_network = learner.network(network, size, actions)
    flockgym_network.load_state_dict(module.state_dict())
    theirs = learner.action_logits(flockgym_network, obs["observation"].numpy())
    ours = logits.detach().numpy()
    np.testing.assert_allclose(ours[masks.numpy()], theirs[masks.numpy()], rtol=1e-5, atol=1e-6)
    del rng

    greedy = MaskedActorCritic(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={**network, "greedy": True},
    )
    greedy.load_state_dict(module.state_dict())
    picked = greedy.forward_exploration({"obs": obs})["action_dist_inputs"].argmax(-1)
    assert torch.equal(picked, logits.argmax(-1))


# ---- a short run on two env runners -----------------------------------------------------------


def weights_of(path: Path) -> dict[str, torch.Tensor]:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        import io

        return torch.load(io.BytesIO(archive.read(POLICY_MEMBER)), weights_only=True)


@needs_ray
@pytest.mark.slow
def test_a_short_run_on_two_env_runners_trains_plays_and_resumes(tmp_path: Path) -> None:
    import ray

    from flockgym.training.train import resume_run, train

    overrides = [
        "env.options={num_players: 4}",
        "algo.train_batch_size=1000",
        "algo.minibatch_size=250",
        "algo.n_epochs=2",
        "algo.net_arch=[64, 64]",
        "algo.num_env_runners=2",
        "algo.envs_per_env_runner=2",
        "opponents.snapshot_every=1000",
        "opponents.max_snapshots=2",
        "total_steps=2000",
        "eval.every=0",
        "eval.games=2",
        "eval.tournament_games=0",
        "output.checkpoint_every=100000",
        f"output.dir={tmp_path}",
        "output.name=run",
        "progress_bar=false",
    ]
    run = train(load_config(CONFIG, overrides), config_stem="rllib_ppo")
    assert not ray.is_initialized(), "the run shuts Ray down"
    state = json.loads((run / "state.json").read_text())
    first = weights_of(run / state["checkpoint"])
    resume_run(run, ["total_steps=3500"])
    assert not ray.is_initialized()
    state = json.loads((run / "state.json").read_text())
    assert state["phase"] == "done" and state["step"] >= 3500
    final = weights_of(run / "final.zip")
    assert any(not torch.equal(first[k], final[k]) for k in final), "training changes the weights"

    records = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    iterations = [r for r in records if r["kind"] == "rllib"]
    assert len(iterations) >= 3
    assert all(r["illegal_actions"] == 0 for r in iterations), "masked training: no illegal move"
    assert any("learner" in r["module_episode_returns_mean"] for r in iterations)
    assert {r["opponent"] for r in records if r["kind"] == "selfplay"} >= {"random", "heuristic"}
    assert len(state["snapshots"]) >= 3

    # The exported checkpoint is a flockgym bot: it plays a whole game.
    policy = load_policy(run / "final.zip", env_id="asrus_v0", env_options={"num_players": 4})
    assert policy.meta.algo == "rllib_ppo"
    bot = make_participant(str(run / "final.zip"), "asrus_v0", {"num_players": 4}).new_bot(0)
    env = make("asrus_v0", num_players=4)
    env.reset(seed=5)
    moves = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(
            None if terminated or truncated else bot.act(observation, env.unwrapped.view(agent))
        )
        moves += 1
    assert env.unwrapped.winners and moves > 10


# ---- without ray (the main venv) ----------------------------------------------------------


@pytest.mark.skipif(not ray_missing(), reason="ray is installed here")
def test_without_ray_an_rllib_config_is_refused_naming_the_extra() -> None:
    with pytest.raises(ConfigError, match=r"needs ray\[rllib\].*install the rllib extra"):
        load_config(CONFIG)
    with pytest.raises(ConfigError, match="rllib extra"):
        get_learner("rllib_ppo").custom_run()


def test_keys_rllib_ppo_does_not_read_are_refused() -> None:
    raw = {
        "env": {"id": "asrus_v0"},
        "algo": {"name": "rllib_ppo"},
        "n_envs": 4,
        "vec_env": "batched",
        "pretrain": {"games": 10},
        "total_steps": 10,
    }
    from flockgym.training.config import validate_config

    with pytest.raises(ConfigError) as caught:
        validate_config(raw)
    message = str(caught.value)
    assert "n_envs = 4 does not apply to algo.name 'rllib_ppo'" in message
    assert "num_env_runners x algo.envs_per_env_runner" in message
    assert "vec_env = 'batched' does not apply" in message
    assert "pretrain = {'games': 10} does not apply" in message
    # Their defaults, as a run folder's resolved config.yaml lists them, are fine.
    defaults = {
        **raw,
        "n_envs": 8,
        "vec_env": "DummyVecEnv",
        "batched": {"engine": "auto"},
        "pretrain": {"games": 0},
    }
    try:
        validate_config(defaults)
    except ConfigError as err:  # without ray: only that
        assert "does not apply" not in str(err)
        assert ray_missing()


def test_rllib_checkpoints_play_on_the_train_extra_alone(tmp_path: Path) -> None:
    """The learner is registered without ray: its checkpoints load as bots."""
    learner = get_learner("rllib_ppo")
    size, actions, options = env_shapes("asrus_v0", {})
    network = {"net_arch": [16], "activation": "tanh"}
    weights = learner.network(network, size, actions).state_dict()
    meta = CheckpointMeta("asrus_v0", options, size, actions, "rllib_ppo", network, steps=7)
    path = write_checkpoint(
        tmp_path / "bot.zip", {POLICY_MEMBER: tensor_bytes(weights)} | meta_member(meta)
    )
    policy = load_policy(path, env_id="asrus_v0")
    env = make("asrus_v0")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    action = policy.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action]


@needs_ray
@pytest.mark.slow
def test_local_ray_listens_on_loopback_only_and_is_shut_down_on_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    import ray
    from ray._common.usage.usage_lib import usage_stats_enabled

    from flockgym.training.rllib.learner import RLlibPPOParams
    from flockgym.training.rllib.run import LOCAL_ONLY_ENV, USAGE_STATS_ENV, ray_session

    monkeypatch.delenv(USAGE_STATS_ENV, raising=False)  # the user has not chosen
    assert usage_stats_enabled()  # Ray's own default: report
    params = RLlibPPOParams(num_env_runners=0, num_cpus=1)
    before = os.environ.get(LOCAL_ONLY_ENV)
    with pytest.raises(RuntimeError, match="boom"), ray_session(params):
        assert ray.util.get_node_ip_address() == "127.0.0.1"
        assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}
        assert not usage_stats_enabled()  # no report to Ray's usage server
        raise RuntimeError("boom")
    assert not ray.is_initialized()
    assert os.environ.get(LOCAL_ONLY_ENV) == before
    assert USAGE_STATS_ENV not in os.environ


@needs_ray
@pytest.mark.parametrize("choice", [None, "0", "1"])
def test_usage_reports_are_off_unless_the_user_chose(
    monkeypatch: pytest.MonkeyPatch, choice: str | None
) -> None:
    import os

    from flockgym.training.rllib.run import USAGE_STATS_ENV, no_usage_reports

    if choice is None:
        monkeypatch.delenv(USAGE_STATS_ENV, raising=False)
    else:
        monkeypatch.setenv(USAGE_STATS_ENV, choice)
    with no_usage_reports():
        assert os.environ[USAGE_STATS_ENV] == (choice or "0")
    assert os.environ.get(USAGE_STATS_ENV) == choice


@needs_ray
def test_an_opponent_with_no_finished_game_this_iteration_has_no_figures() -> None:
    """RLlib reports NaN for an opponent none of whose games ended in the
    iteration (a Skybirds war is about 2,750 steps): it is left out, not logged
    as NaN nor crashing the run; the others keep their exact figures."""
    from flockgym.training.rllib.run import selfplay_figures

    ours = {
        "episodes/heuristic": 4.0,
        "win/heuristic": 0.25,
        "episodes/snapshot_0": float("nan"),
        "win/snapshot_0": float("nan"),
        "episodes/random": 0.0,
        "illegal_actions": 0.0,
    }
    assert selfplay_figures(ours) == [("heuristic", 4, 0.25)]
