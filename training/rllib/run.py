"""The ``rllib_ppo`` training loop: RLlib's PPO on :class:`~.env.FlockgymMultiAgentEnv`.

:func:`run_rllib` is what ``flockgym train`` runs for ``algo.name: rllib_ppo``
(``train.run`` hands the run folder to it). It keeps the run folder of the SB3
path: ``config.yaml``, ``run.json``, ``progress.jsonl`` and TensorBoard
events, ``snapshots/``, resumable ``checkpoints/`` and ``state.json``,
``final.zip``, the evaluations, the tournament and the plot, written by the
same functions (:mod:`flockgym.training.train`), through :class:`RLlibRun`,
which looks to them like an SB3 model (``policy``, ``num_timesteps``,
``logger``).

Policies: every RLlib agent (seat) of an episode is mapped to a module by the
episode's seating (:class:`~.env.SeatingPlan`): ``learner`` (trained),
``snapshot_0`` .. ``snapshot_<max_snapshots-1>`` (frozen copies of the
learner, refreshed every ``opponents.snapshot_every`` learner steps, oldest
first), or a fixed bot of ``opponents.pool`` played inside the env. Steps are
the learning module's steps as RLlib counts them (its moves, and the final
observation of each seat it held in a game), close to the SB3 path's learner
moves, so ``total_steps``, ``snapshot_every``, ``eval.every`` and
``checkpoint_every`` mean nearly the same.

Ray: a local instance on 127.0.0.1 with the dashboard off and
``algo.num_cpus`` CPUs, unless ``algo.address`` or ``RAY_ADDRESS`` names a
running cluster to attach to (``flockgym train --address``). Whatever happens
(an error, Ctrl-C), ``ray.shutdown()`` runs before the loop returns.

Resuming: RLlib's checkpoints are never read (its restore rebuilds Python
objects from them, which runs code); the algorithm is rebuilt from the run's
config, and the learner's weights, its Adam state and the counters are copied
in from flockgym's weights-only checkpoint, the snapshot modules from the
run's snapshot files. The sampling
of several Ray processes is not replayed bit for bit: a resumed run continues
from the same weights and optimizer, not along the same games.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import torch

from flockgym.bots.checkpoints import POLICY_MEMBER, CheckpointArchive
from flockgym.bots.policies import env_shapes
from flockgym.training.config import TrainConfig
from flockgym.training.learners import get_learner, parameter_count, weights_bytes
from flockgym.training.rllib.env import (
    LEARNER,
    FlockgymMultiAgentEnv,
    policy_mapping,
    snapshot_module,
)
from flockgym.training.runs import append_progress, update_run_info

ADDRESS_ENV = "RAY_ADDRESS"


# ---- Ray ------------------------------------------------------------------------------


def ray_address(params: Any) -> str | None:
    """The cluster to attach to: ``algo.address``, else ``RAY_ADDRESS``, else None."""
    return params.address or os.environ.get(ADDRESS_ENV) or None


LOCAL_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a single-machine instance (every server on the loopback
address, as Ray runs on macOS and Windows) and a cluster node (the machine's
routable address): on Linux Ray turns even ``_node_ip_address="127.0.0.1"``
into the routable address, and its servers then listen on every interface."""


@contextmanager
def loopback_only() -> Iterator[None]:
    """Ray's single-machine mode for the block: its processes inherit the
    environment variable, and the driver, which has read it when ``ray`` was
    imported, gets the constant that variable sets."""
    from ray._private import ray_constants

    saved_flag = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        with environment_variable(LOCAL_ONLY_ENV, "0"):
            yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag


USAGE_STATS_ENV = "RAY_USAGE_STATS_ENABLED"
"""Ray reports usage statistics to its makers' server every hour unless this is
"0". A local instance started for a training run does not report: it is off
unless the user has set the variable (to "1", to opt in)."""


@contextmanager
def no_usage_reports() -> Iterator[None]:
    """Ray's usage reports off for the block, unless the user chose either way."""
    if USAGE_STATS_ENV in os.environ:
        yield
        return
    with environment_variable(USAGE_STATS_ENV, "0"):
        yield


@contextmanager
def environment_variable(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` for the block (and the processes it starts),
    then back to what it was, or unset."""
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


@contextmanager
def ray_session(params: Any) -> Iterator[None]:
    """Ray for one run: attached to a cluster, or a local instance listening on
    127.0.0.1 only with the dashboard and usage reports off; shut down however
    the block ends."""
    import ray

    address = ray_address(params)
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        try:
            yield
        finally:
            ray.shutdown()
        return
    with loopback_only(), no_usage_reports():
        ray.init(
            address="local",
            num_cpus=params.num_cpus or params.num_env_runners + 1,
            include_dashboard=False,
            log_to_driver=False,
        )
        try:
            yield
        finally:
            ray.shutdown()


# ---- the algorithm -------------------------------------------------------------------------


def snapshot_slots(config: TrainConfig) -> int:
    """Frozen snapshot modules: ``max_snapshots`` when snapshots are taken, else 0."""
    return config.opponents.max_snapshots if config.opponents.snapshot_every else 0


def env_config(config: TrainConfig, snapshots: int) -> dict[str, Any]:
    return {
        "env_id": config.env.id,
        "env_options": dict(config.env.options),
        "pool": list(config.opponents.pool),
        "selfplay_share": config.algo.selfplay_share,
        "snapshot_share": config.opponents.snapshot_share,
        "snapshots": snapshots,
        "reward_scale": config.env.reward_scale,
        "win_bonus": config.env.win_bonus,
    }


def build_algorithm(config: TrainConfig, snapshots: int) -> Any:
    """RLlib's PPO for the run's config (new API stack, our env and RLModule)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from flockgym.training.rllib.callbacks import FlockgymCallbacks
    from flockgym.training.rllib.module import MaskedActorCritic

    params = config.algo
    network = {"net_arch": list(params.net_arch), "activation": params.activation}
    greedy = config.opponents.snapshot_play == "greedy"
    modules = {LEARNER: RLModuleSpec(module_class=MaskedActorCritic, model_config=network)}
    for slot in range(snapshot_slots(config)):
        modules[snapshot_module(slot)] = RLModuleSpec(
            module_class=MaskedActorCritic, model_config={**network, "greedy": greedy}
        )
    ppo = (
        PPOConfig()
        .environment(FlockgymMultiAgentEnv, env_config=env_config(config, snapshots))
        .framework("torch")
        .env_runners(
            num_env_runners=params.num_env_runners,
            num_envs_per_env_runner=params.envs_per_env_runner,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=policy_mapping,
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(
            lr=params.learning_rate,
            train_batch_size_per_learner=params.train_batch_size,
            minibatch_size=params.minibatch_size,
            num_epochs=params.n_epochs,
            gamma=params.gamma,
            lambda_=params.gae_lambda,
            clip_param=params.clip_range,
            entropy_coeff=params.ent_coef,
            vf_loss_coeff=params.vf_coef,
            vf_clip_param=params.vf_clip,
            grad_clip=params.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .callbacks(FlockgymCallbacks)
        .debugging(seed=config.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return ppo.build_algo()


class RLlibRun:
    """The RLlib algorithm of a run, as the shared run-folder code expects a
    model: ``policy`` (the learner as flockgym's policy network), ``num_timesteps``
    (learner steps), ``logger``; plus what the checkpoints of
    :class:`~.learner.RLlibPPOLearner` hold."""

    def __init__(self, config: TrainConfig, snapshots: int) -> None:
        self.config = config
        self.learner = get_learner(config.algo.name)
        self.algo = build_algorithm(config, snapshots)
        self.slots = snapshot_slots(config)
        self.snapshots = snapshots
        self.num_timesteps = 0
        self.iterations = 0
        self.env_steps = 0
        self._steps_before = 0
        self._env_before = 0
        """RLlib counts from 0 in a rebuilt algorithm: a resumed run's counts before it."""
        self.env_steps_run = 0
        """Env steps of this process's training (for its speed)."""
        self.logger: Any = None
        size, actions, _ = env_shapes(config.env.id, config.env.options)
        self.shapes = (size, actions)
        self._policy: Any = None

    def set_logger(self, logger: Any) -> None:
        self.logger = logger

    # ---- one iteration ------------------------------------------------------------------

    def train_iteration(self) -> dict[str, Any]:
        """Sample ``train_batch_size`` env steps on the env runners and update the
        learner once (``n_epochs`` passes); returns RLlib's result dict."""
        result = self.algo.train()
        self.iterations += 1
        runners = result.get("env_runners", {})
        steps = runners.get("num_module_steps_sampled_lifetime", {}).get(LEARNER)
        if steps is not None:
            self.num_timesteps = int(steps) + self._steps_before
        self.env_steps = int(runners.get("num_env_steps_sampled_lifetime", 0)) + self._env_before
        self._policy = None
        return result

    # ---- weights ---------------------------------------------------------------------------

    def learner_weights(self) -> dict[str, torch.Tensor]:
        """The learning module's weights (flockgym's ``policy.pth`` state dict)."""
        state = self.algo.learner_group.get_weights([LEARNER])[LEARNER]
        return {k: torch.as_tensor(np.asarray(v)).clone() for k, v in state.items()}

    @property
    def policy(self) -> Any:
        """The learner as flockgym's policy network (what evaluation plays)."""
        if self._policy is None:
            size, actions = self.shapes
            network = self.learner.network(
                self.learner.network_config(self.config.algo), size, actions
            )
            network.load_state_dict(self.learner_weights())
            self._policy = network
        return self._policy

    def optimizer_state(self) -> dict[str, Any]:
        def read(learner: Any) -> dict[str, Any]:
            return learner.get_optimizer(LEARNER).state_dict()

        return on_learner(self.algo, read)

    def counters(self) -> dict[str, int]:
        return {
            "num_timesteps": self.num_timesteps,
            "iterations": self.iterations,
            "env_steps": self.env_steps,
        }

    def set_module_weights(self, module_id: str, weights: dict[str, torch.Tensor]) -> None:
        """Load ``weights`` into a module on the learner and on every env runner."""
        self.algo.learner_group.set_weights({module_id: weights})
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group,
            policies=[module_id],
            inference_only=True,
            timeout_seconds=60.0,
        )

    def restore(
        self, weights: dict[str, Any], optimizer: dict[str, Any], counters: dict[str, Any]
    ) -> None:
        """A resumed run: the learner's weights and Adam state, and the counters."""
        self.set_module_weights(LEARNER, weights)

        def load(learner: Any) -> None:
            learner.get_optimizer(LEARNER).load_state_dict(optimizer)

        on_learner(self.algo, load)
        self._steps_before = self.num_timesteps = counters["num_timesteps"]
        self._env_before = self.env_steps = counters["env_steps"]
        self.iterations = counters["iterations"]
        self._policy = None

    # ---- snapshots ---------------------------------------------------------------------------

    def add_snapshot(self, index: int, weights: dict[str, torch.Tensor]) -> None:
        """Snapshot number ``index`` of the run (0, 1, ...) into its slot (the
        oldest one once all are filled); env runners then seat it."""
        self.set_module_weights(snapshot_module(index % self.slots), weights)
        self.snapshots = min(index + 1, self.slots)
        count = self.snapshots

        def tell(runner: Any) -> None:
            env = getattr(runner, "env", None)
            for sub in getattr(env, "envs", []) or []:
                sub.unwrapped.set_snapshots(count)

        self.algo.env_runner_group.foreach_env_runner(tell, local_env_runner=True)

    def stop(self) -> None:
        self.algo.stop()


def on_learner(algo: Any, func: Any) -> Any:
    """``func(learner)`` on the (one) learner of the algorithm; its result."""
    (result,) = list(algo.learner_group.foreach_learner(func))
    return result.get()


def snapshot_weights(path: Path, config: TrainConfig) -> dict[str, torch.Tensor]:
    """The weights of one of the run's snapshot files (weights-only)."""
    learner = get_learner(config.algo.name)
    size, actions, _ = env_shapes(config.env.id, config.env.options)
    network = learner.network_config(config.algo)
    count = parameter_count(network["net_arch"], size, actions)
    expected = learner.network(network, size, actions).state_dict()
    with CheckpointArchive(path) as archive:
        return archive.tensors(POLICY_MEMBER, weights_bytes(count, len(expected)))


# ---- the loop -----------------------------------------------------------------------------


def run_rllib(config: TrainConfig, run_dir: Path, point: Any) -> Path:
    """Train ``rllib_ppo`` in ``run_dir`` (made or checked by ``train.train``;
    ``point``: the checked resume point, or None)."""
    from stable_baselines3.common.logger import make_output_format

    from flockgym.training import train as shared

    state = point.state if point else None
    snapshots = list(state.snapshots) if state else []
    slots = snapshot_slots(config)
    logger = None
    with ray_session(config.algo):
        model = RLlibRun(config, min(len(snapshots), slots))
        try:
            if point is not None:
                shared.get_learner(config.algo.name).restore(model, point.learner_state)
                shared.restore_generators(point.generators)
            for index, relative in enumerate(snapshots):
                if index >= len(snapshots) - slots:
                    model.add_snapshot(index, snapshot_weights(run_dir / relative, config))
            logger = shared.RunLogger(
                str(run_dir / "tb"), [make_output_format("tensorboard", str(run_dir / "tb"))]
            )
            model.set_logger(logger)
            step = model.num_timesteps
            checkpoint = state.checkpoint if state else ""
            train_seconds = 0.0
            if step < config.total_steps:
                step, checkpoint, train_seconds = train_loop(
                    model, config, run_dir, snapshots, fresh=state is None
                )
            learner = get_learner(config.algo.name)
            shared.finish_run(model, learner, config, run_dir, step, checkpoint, snapshots)
            if train_seconds > 0:
                trained = step - (state.step if state else 0)
                update_run_info(
                    run_dir,
                    steps_per_second=round(trained / train_seconds, 1),
                    env_steps_per_second=round(model.env_steps_run / train_seconds, 1),
                    final_step=step,
                )
                print(f"trained {trained} learner steps at {trained / train_seconds:.0f} steps/s")
        finally:
            if logger is not None:
                logger.close()
            model.stop()
    print(f"run folder: {run_dir}")
    return run_dir


def train_loop(
    model: RLlibRun, config: TrainConfig, run_dir: Path, snapshots: list[str], fresh: bool
) -> tuple[int, str, float]:
    """PPO iterations up to ``total_steps`` learner steps, with the snapshots,
    evaluations and checkpoints of the SB3 path; returns (step, the final
    checkpoint, seconds spent training)."""
    from flockgym.training import train as shared

    learner = model.learner
    with shared.deferred_interrupts() as stop:
        step = steps_at_start = model.num_timesteps
        env_at_start = model.env_steps
        if not config.opponents.pool and not snapshots:
            # Pure self-play starts against the untrained learner, as the SB3 path.
            snapshots.append(save_snapshot(model, config, run_dir, step, len(snapshots)))
        if fresh and config.eval.every:
            print(shared.evaluate_and_log(model, learner, config, run_dir, step))
            model.logger.dump(step)
        bar = shared.Progress(
            config.total_steps, "steps", enabled=config.progress_bar, label="train", initial=step
        )
        train_seconds = 0.0
        checkpointed = -1
        while step < config.total_steps and stop.signum is None:
            started = time.perf_counter()
            result = model.train_iteration()
            train_seconds += time.perf_counter() - started
            previous, step = step, model.num_timesteps
            bar.update(step - previous)
            model.env_steps_run = model.env_steps - env_at_start
            log_iteration(model, run_dir, step, result)
            model.logger.record(
                "time/training_steps_per_second", (step - steps_at_start) / train_seconds
            )
            model.logger.record(
                "time/env_steps_per_second", (model.env_steps - env_at_start) / train_seconds
            )
            if shared.crossed(previous, step, config.opponents.snapshot_every):
                snapshots.append(save_snapshot(model, config, run_dir, step, len(snapshots)))
            if shared.crossed(previous, step, config.eval.every) and step < config.total_steps:
                bar.write(shared.evaluate_and_log(model, learner, config, run_dir, step))
            model.logger.dump(step)
            if (
                shared.crossed(previous, step, config.output.checkpoint_every)
                and step < config.total_steps
            ):
                shared.save_checkpoint(model, learner, config, run_dir, step, snapshots, "training")
                checkpointed = step
        bar.close()
        if stop.signum is not None and step < config.total_steps:
            if step == steps_at_start:
                checkpointed = step
            shared.stop_for_signal(
                model, learner, config, run_dir, step, snapshots, checkpointed, stop
            )
    checkpoint = shared.save_checkpoint(model, learner, config, run_dir, step, snapshots, "final")
    return step, checkpoint, train_seconds


def save_snapshot(
    model: RLlibRun, config: TrainConfig, run_dir: Path, step: int, index: int
) -> str:
    """The learner frozen into a snapshot file (a flockgym checkpoint) and into
    its snapshot module; returns the file's path relative to the run folder."""
    from flockgym.training import train as shared

    relative = f"snapshots/step_{step:09d}.zip"
    shared.save_policy(model, model.learner, config, run_dir / relative, step)
    model.add_snapshot(index, model.learner_weights())
    return relative


def selfplay_figures(ours: dict[str, Any]) -> list[tuple[str, int, float]]:
    """(opponent, games finished, win rate) per opponent from our ``kind/opponent``
    metrics. An iteration that finished no game against an opponent (a long
    Skybirds war outlasts an iteration) reports NaN for it: that opponent has no
    figures this iteration, rather than a NaN in the progress file."""
    games: dict[str, Any] = defaultdict(dict)
    for key, value in ours.items():
        kind, _, opponent = key.partition("/")
        if opponent:
            games[opponent][kind] = value
    figures = []
    for opponent, kinds in sorted(games.items()):
        episodes = float(kinds.get("episodes", 0.0))
        win = float(kinds.get("win", float("nan")))
        if np.isfinite(episodes) and episodes > 0 and np.isfinite(win):
            figures.append((opponent, int(episodes), win))
    return figures


def log_iteration(model: RLlibRun, run_dir: Path, step: int, result: dict[str, Any]) -> None:
    """RLlib's per-agent and per-module figures and ours (win rate per opponent,
    illegal actions) into TensorBoard and ``progress.jsonl``."""
    runners = result.get("env_runners", {})
    record = model.logger.record
    for key in ("agent_episode_returns_mean", "module_episode_returns_mean"):
        for name, value in sorted((runners.get(key) or {}).items()):
            record(f"rllib/{key}/{name}", float(value))
    ours = runners.get("flockgym", {}) or {}
    illegal = float(ours.get("illegal_actions", 0.0))
    record("rllib/illegal_actions", illegal)
    learners = result.get("learners", {}).get(LEARNER, {})
    for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var"):
        if key in learners:
            record(f"train/{key}", float(learners[key]))
    for opponent, episodes, win_rate in selfplay_figures(ours):
        record(f"selfplay/win_rate/{opponent}", win_rate)
        append_progress(
            run_dir,
            {
                "kind": "selfplay",
                "step": step,
                "opponent": opponent,
                "episodes": episodes,
                "win_rate": win_rate,
            },
        )
    append_progress(
        run_dir,
        {
            "kind": "rllib",
            "step": step,
            "opponent": "-",
            "iteration": model.iterations,
            "env_steps": model.env_steps,
            "illegal_actions": illegal,
            "agent_episode_returns_mean": {
                k: float(v) for k, v in (runners.get("agent_episode_returns_mean") or {}).items()
            },
            "module_episode_returns_mean": {
                k: float(v) for k, v in (runners.get("module_episode_returns_mean") or {}).items()
            },
        },
    )
