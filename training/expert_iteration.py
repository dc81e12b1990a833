"""Expert iteration: a network improved by the tree search it guides.

``algo.name: expert_iteration`` (Anthony, Tian and Barber 2017; AlphaZero's
loop). Each iteration plays ``games_per_iteration`` games in which every seat is
the tree search bot (:mod:`flockgym.bots.ismcts`) with the current network as its
prior (PUCT) and, with ``leaf_value: net``, as its leaf value. Every searched
decision becomes a sample: the observation and mask, the root's visit counts
as the policy target, and the seat's game result (its win reward: +1 for a
sole win, -1/(n-1) for a loss, shared when tied; the scale the value head of
``maskable_ppo`` learns) as the value target. The network (the actor-critic of
``maskable_ppo``, so its checkpoints play and guide searches the same way) is
then fitted to the iteration's samples: cross-entropy to the visit
distribution plus ``value_coef`` times the squared value error.

A learner step is one searched decision. Everything an iteration draws is
seeded from ``(seed, iteration)``: the deals, the search bots, the moves sampled
from the visit counts in a game's first ``sampled_moves`` moves, the minibatch
order; the games of an iteration may be played by ``workers`` processes (the
same samples in the same order for any count). A checkpoint holds the network,
Adam's state and the counters, so a resumed run goes on exactly as an
uninterrupted one.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import torch
from pydantic import ConfigDict, Field

from flockgym.bots.checkpoints import (
    LEARNER_MEMBER,
    OPTIMIZER_MEMBER,
    POLICY_MEMBER,
    CheckpointArchive,
    json_bytes,
    tensor_bytes,
)
from flockgym.bots.ismcts import IsmctsBot, IsmctsSettings, visit_distribution
from flockgym.bots.policies import CheckpointMeta, Policy, env_shapes, policy_evaluator
from flockgym.bots.search import win_share
from flockgym.envs import make
from flockgym.envs.core.rng import derive_seed, make_rng
from flockgym.training.learners import (
    COUNT,
    MAX_EPOCHS,
    MAX_NETWORK_PARAMETERS,
    STATE_FORMAT,
    STATE_VERSION,
    AlgoParams,
    MaskablePPOLearner,
    field_problems,
    get_learner,
    net_arch_field,
    read_learner_members,
)
from flockgym.training.runs import append_progress, update_run_info

MAX_SIMULATIONS = 10_000
MAX_GAMES = 1_000
MAX_WORKERS = 8
MAX_GAME_STEPS = 20_000


class ExpertIterationParams(AlgoParams):
    """Hyperparameters of expert iteration (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: Literal["expert_iteration"] = Field("expert_iteration", description="this learner")
    learning_rate: float = Field(1e-3, gt=0, le=1, description="Adam step size")
    simulations: int = Field(
        32, ge=2, le=MAX_SIMULATIONS, description="tree search simulations a move in self-play"
    )
    games_per_iteration: int = Field(
        4, ge=1, le=MAX_GAMES, description="self-play games whose decisions one update fits"
    )
    n_epochs: int = Field(4, ge=1, le=MAX_EPOCHS, description="passes over an iteration's samples")
    batch_size: int = Field(64, ge=2, description="minibatch size of the updates")
    value_coef: float = Field(1.0, ge=0, le=100, description="weight of the value loss")
    leaf_value: Literal["net", "rollout"] = Field(
        "net", description="net: the network's value head judges leaves; rollout: the heuristic"
    )
    explore: float = Field(1.5, ge=0, le=10, description="PUCT exploration constant")
    widen: float | None = Field(
        0.5, ge=0.1, le=1, description="progressive widening exponent (None: off)"
    )
    sampled_moves: int = Field(
        10,
        ge=0,
        le=MAX_GAME_STEPS,
        description="moves of each game drawn from the visit counts (exploration); "
        "later ones are the most visited",
    )
    workers: int = Field(
        1, ge=1, le=MAX_WORKERS, description="processes playing an iteration's games"
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = net_arch_field(
        f"the policy and value networks (at most {MAX_NETWORK_PARAMETERS:,} parameters in all)"
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="hidden layer activation")


COUNTERS = ("num_timesteps", "iterations", "games")


class ExpertIterationLearner(MaskablePPOLearner):
    """Expert iteration on the actor-critic network of ``maskable_ppo`` (whose
    checkpoints it reads and plays the same way), in its own training loop."""

    name = "expert_iteration"
    params_model = ExpertIterationParams
    reads_advice = False
    pays_relative_reward = False
    unused_keys: ClassVar[dict[str, str]] = {
        "n_envs": "its games are played by the tree search, algo.games_per_iteration a time",
        "vec_env": "its games are played by the tree search, not a vec env",
        "batched": "its games are played by the tree search, not a vec env",
        "pretrain": "imitation before training is built for maskable_ppo only",
        "opponents": "every seat is the search guided by the current network",
    }

    def check(
        self, params: ExpertIterationParams, n_envs: int, observation_size: int, num_actions: int
    ) -> list[str]:
        return self.network_problems(
            self.network_config(params), observation_size, num_actions, "algo."
        )

    def build(
        self,
        env: Any,
        params: Any,
        seed: int,
        total_steps: int | None = None,
        advice_actions: int = 0,
    ) -> Any:
        raise TypeError(
            "expert_iteration trains in its own loop (flockgym.training.expert_iteration), "
            "not on an SB3 vec env; train it with `flockgym train CONFIG`"
        )

    def custom_run(self) -> Callable[..., Path]:
        return run_expert_iteration

    def network_members(self, model: Any) -> dict[str, bytes]:
        return {POLICY_MEMBER: tensor_bytes(model.policy.state_dict())}

    def state_members(self, model: Any) -> dict[str, bytes]:
        counters = {"format": STATE_FORMAT, "version": STATE_VERSION, **model.counters()}
        return {
            OPTIMIZER_MEMBER: tensor_bytes(model.optimizer.state_dict()),
            LEARNER_MEMBER: json_bytes(counters),
        }

    def read_state(self, archive: CheckpointArchive, meta: Any) -> ExpertIterationState:
        from flockgym.training.rllib.learner import adam_problems

        fresh = self.network(meta.network, meta.observation_size, meta.num_actions).state_dict()
        policy, optimizer, counters = read_learner_members(
            archive,
            meta,
            fresh,
            lambda saved: adam_problems(saved, fresh),
            lambda counters: field_problems(
                counters, STATE_FORMAT, STATE_VERSION, dict.fromkeys(COUNTERS, COUNT)
            ),
        )
        return ExpertIterationState(policy, optimizer, counters)

    def restore(self, model: Any, state: ExpertIterationState) -> None:
        model.policy.load_state_dict(state.policy)
        model.optimizer.load_state_dict(state.optimizer)
        model.num_timesteps = int(state.counters["num_timesteps"])
        model.iterations = int(state.counters["iterations"])
        model.games = int(state.counters["games"])


@dataclass
class ExpertIterationState:
    """A resumable ``expert_iteration`` checkpoint, checked, not yet applied."""

    policy: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    counters: dict[str, Any]


# ---- the model: network, optimizer, counters ------------------------------------------


class ExpertIterationModel:
    """What the shared pipeline (checkpoints, evaluation) reads of a learner:
    ``policy`` (the network), ``logger`` and ``num_timesteps``."""

    def __init__(self, config: Any, learner: ExpertIterationLearner) -> None:
        params: ExpertIterationParams = config.algo
        self.config = config
        self.params = params
        size, actions, options = env_shapes(config.env.id, config.env.options)
        self.env_options = options
        self.meta = CheckpointMeta(
            config.env.id, options, size, actions, learner.name, learner.network_config(params)
        )
        self.policy = learner.network(self.meta.network, size, actions)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=params.learning_rate)
        self.num_timesteps = 0
        self.iterations = 0
        self.games = 0
        self.logger: Any = None

    def set_logger(self, logger: Any) -> None:
        self.logger = logger

    def counters(self) -> dict[str, int]:
        return {
            "num_timesteps": self.num_timesteps,
            "iterations": self.iterations,
            "games": self.games,
        }


# ---- self-play -------------------------------------------------------------------------


@dataclass
class Samples:
    """Searched decisions: network inputs, masks, visit targets and results."""

    observations: list[np.ndarray]
    masks: list[np.ndarray]
    targets: list[np.ndarray]
    rewards: list[float]


def search_settings(params: ExpertIterationParams) -> IsmctsSettings:
    return IsmctsSettings(
        seconds=None,
        simulations=params.simulations,
        rollout="heuristic",
        prior="network",
        value="net" if params.leaf_value == "net" else "rollout",
        explore=params.explore,
        widen=params.widen,
    )


def play_one(task: tuple[Any, dict[str, torch.Tensor], int]) -> Samples:
    """One self-play game (a worker's unit): every seat the search with the network."""
    model_spec, weights, game_seed = task
    env_id, env_options, meta, params = model_spec
    network = get_learner(meta.algo).network(meta.network, meta.observation_size, meta.num_actions)
    network.load_state_dict(weights)
    evaluator = policy_evaluator(Policy(network, meta))
    settings = search_settings(params)
    env = make(env_id, **env_options)
    env.reset(seed=game_seed)
    raw = env.unwrapped
    rng = make_rng(derive_seed(game_seed, 1))
    bots = {
        agent: IsmctsBot(
            env_id, env_options, settings, derive_seed(game_seed, 2 + i), evaluator=evaluator
        )
        for i, agent in enumerate(raw.possible_agents)
    }
    samples = Samples([], [], [], [])
    seats: list[int] = []
    moves = 0
    while raw.agents and moves < MAX_GAME_STEPS:
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(None)
            continue
        observation = raw.observe(agent)
        bot = bots[agent]
        bot.see_table(raw, agent)
        action = bot.act(observation, raw.view(agent))
        if bot.last_visits:
            target = visit_distribution(bot.last_visits, meta.num_actions)
            samples.observations.append(observation["observation"].astype(np.float32))
            samples.masks.append(observation["action_mask"].astype(bool))
            samples.targets.append(target.astype(np.float32))
            seats.append(raw.possible_agents.index(agent))
            if moves < params.sampled_moves:
                action = int(rng.choice(len(target), p=target))
        raw.step(int(action))
        moves += 1
    n = len(raw.possible_agents)
    samples.rewards = [(win_share(raw.game, s) * n - 1.0) / (n - 1) for s in seats]
    return samples


def play_iteration(model: ExpertIterationModel, seed: int, iteration: int) -> Samples:
    """The iteration's games, in order (by ``workers`` processes when more than 1)."""
    params = model.params
    spec = (model.config.env.id, model.env_options, model.meta, params)
    weights = {k: v.detach().clone() for k, v in model.policy.state_dict().items()}
    tasks = [
        (spec, weights, derive_seed(seed, iteration, game))
        for game in range(params.games_per_iteration)
    ]
    if params.workers > 1:
        with multiprocessing.get_context("spawn").Pool(
            params.workers, initializer=torch.set_num_threads, initargs=(1,)
        ) as pool:
            results = pool.map(play_one, tasks)
    else:
        results = [play_one(task) for task in tasks]
    merged = Samples([], [], [], [])
    for result in results:
        merged.observations += result.observations
        merged.masks += result.masks
        merged.targets += result.targets
        merged.rewards += result.rewards
    return merged


# ---- the update ------------------------------------------------------------------------


def fit(model: ExpertIterationModel, samples: Samples, seed: int) -> dict[str, float]:
    """``n_epochs`` passes of minibatches (order seeded) over the samples; the mean losses."""
    params = model.params
    network = model.policy
    observations = torch.as_tensor(np.stack(samples.observations))
    masks = torch.as_tensor(np.stack(samples.masks))
    targets = torch.as_tensor(np.stack(samples.targets))
    rewards = torch.as_tensor(np.asarray(samples.rewards, dtype=np.float32))
    rng = make_rng(seed)
    network.train()
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    batches = 0
    for _ in range(params.n_epochs):
        order = rng.permutation(len(rewards))
        for start in range(0, len(order), params.batch_size):
            index = torch.as_tensor(order[start : start + params.batch_size])
            policy_loss, value_loss = losses(
                network, observations[index], masks[index], targets[index], rewards[index]
            )
            loss = policy_loss + params.value_coef * value_loss
            model.optimizer.zero_grad()
            loss.backward()
            model.optimizer.step()
            totals["policy_loss"] += float(policy_loss.detach())
            totals["value_loss"] += float(value_loss.detach())
            batches += 1
    network.eval()
    return {k: v / max(batches, 1) for k, v in totals.items()}


def losses(
    network: Any,
    observations: torch.Tensor,
    masks: torch.Tensor,
    targets: torch.Tensor,
    rewards: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-entropy of the masked policy to the visit distribution, and the
    squared error of the value head to the game result."""
    features = network.extract_features(observations, network.pi_features_extractor)
    latent = network.mlp_extractor.forward_actor(features)
    logits = network.actor_logits(observations, latent).masked_fill(~masks, -1e9)
    log_probs = torch.log_softmax(logits, dim=1)
    policy_loss = -(targets * log_probs).sum(dim=1).mean()
    values = network.predict_values(observations).reshape(-1)
    value_loss = torch.mean((values - rewards) ** 2)
    return policy_loss, value_loss


# ---- the run ---------------------------------------------------------------------------


def run_expert_iteration(config: Any, run_dir: Path, point: Any) -> Path:
    """Train ``expert_iteration`` in ``run_dir`` (made or checked by ``train.train``;
    ``point``: the checked resume point, or None)."""
    from stable_baselines3.common.logger import make_output_format

    from flockgym.training import train as shared

    learner = shared.get_learner(config.algo.name)
    assert isinstance(learner, ExpertIterationLearner)
    state = point.state if point else None
    model = ExpertIterationModel(config, learner)
    if point is not None:
        learner.restore(model, point.learner_state)
        shared.restore_generators(point.generators)
    logger = shared.RunLogger(
        str(run_dir / "tb"), [make_output_format("tensorboard", str(run_dir / "tb"))]
    )
    model.set_logger(logger)
    try:
        step = model.num_timesteps
        checkpoint = state.checkpoint if state else ""
        seconds = 0.0
        if step < config.total_steps:
            step, checkpoint, seconds = train_loop(model, learner, config, run_dir, state is None)
        shared.finish_run(model, learner, config, run_dir, step, checkpoint, [])
        if seconds > 0:
            trained = step - (state.step if state else 0)
            update_run_info(run_dir, steps_per_second=round(trained / seconds, 2), final_step=step)
            print(f"trained {trained} searched decisions at {trained / seconds:.1f} a second")
    finally:
        logger.close()
    print(f"run folder: {run_dir}")
    return run_dir


def train_loop(
    model: ExpertIterationModel,
    learner: ExpertIterationLearner,
    config: Any,
    run_dir: Path,
    fresh: bool,
) -> tuple[int, str, float]:
    """Iterations up to ``total_steps`` searched decisions, with the evaluations
    and checkpoints of the shared pipeline; (step, final checkpoint, seconds)."""
    from flockgym.training import train as shared

    with shared.deferred_interrupts() as stop:
        step = model.num_timesteps
        if fresh and config.eval.every:
            print(shared.evaluate_and_log(model, learner, config, run_dir, step))
            model.logger.dump(step)
        seconds = 0.0
        checkpointed = -1
        while step < config.total_steps and stop.signum is None:
            started = time.perf_counter()
            iteration = model.iterations
            samples = play_iteration(model, config.seed, iteration)
            figures = fit(model, samples, derive_seed(config.seed, iteration, 0xF17))
            model.iterations += 1
            model.games += config.algo.games_per_iteration
            previous, step = step, step + len(samples.rewards)
            model.num_timesteps = step
            seconds += time.perf_counter() - started
            log_iteration(model, run_dir, step, figures, len(samples.rewards))
            if shared.crossed(previous, step, config.eval.every) and step < config.total_steps:
                print(shared.evaluate_and_log(model, learner, config, run_dir, step))
            model.logger.dump(step)
            if (
                shared.crossed(previous, step, config.output.checkpoint_every)
                and step < config.total_steps
            ):
                shared.save_checkpoint(model, learner, config, run_dir, step, [], "training")
                checkpointed = step
        if stop.signum is not None and step < config.total_steps:
            shared.stop_for_signal(model, learner, config, run_dir, step, [], checkpointed, stop)
    checkpoint = shared.save_checkpoint(model, learner, config, run_dir, step, [], "final")
    return step, checkpoint, seconds


def log_iteration(
    model: ExpertIterationModel, run_dir: Path, step: int, figures: dict[str, float], count: int
) -> None:
    for key, value in figures.items():
        if math.isfinite(value):
            model.logger.record(f"train/{key}", value)
    append_progress(
        run_dir,
        {
            "kind": "expert_iteration",
            "step": step,
            "opponent": "-",
            "iteration": model.iterations,
            "samples": count,
            **figures,
        },
    )
