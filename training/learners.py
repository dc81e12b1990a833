"""The learner registry: the config's ``algo.name`` picks one, by name.

A learner is everything the rest of the pipeline needs to know about an
algorithm, and nothing more:

* ``params_model``: its hyperparameters, a pydantic model (the ``algo`` section),
  and ``check``: the problems that involve several keys or the env's shapes;
* ``build``: a model with the stable-baselines3 algorithm interface (``learn``,
  ``num_timesteps``, ``policy``, ``set_logger``), built from the config;
* ``network_members`` / ``state_members``: the model as checkpoint members
  (:mod:`flockgym.bots.checkpoints`): the policy weights, and what resuming
  needs besides (optimizer, counters, schedules), as tensors and JSON only;
* ``read_state`` / ``restore``: a resumable checkpoint read and checked in full
  (nothing applied), then applied to a model freshly built from the run's
  config. A run resumes without unpickling anything: the learner is rebuilt
  from the config, never loaded from the file;
* ``network`` / ``load_network`` / ``action_logits``: the policy network alone,
  rebuilt from a checkpoint's weights, and its action logits for a batch of
  observations. Playing, evaluating and self-play opponents only use these.

A new mask-aware learner subclasses :class:`Learner` and calls
:func:`register_learner`; configs can then name it.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import torch
from gymnasium import spaces
from pydantic import BaseModel, ConfigDict, Field
from pydantic import Field as model_field  # ``Field`` is rebound below (a check pair)

from flockgym.bots.checkpoints import (
    LEARNER_MEMBER,
    OPTIMIZER_MEMBER,
    POLICY_MEMBER,
    CheckpointArchive,
    CheckpointError,
    check_state_dict,
    json_bytes,
    tensor_bytes,
)


def layer_sizes_problem(arch: Any, prefix: str = "") -> str | None:
    """What is wrong with ``net_arch`` (a list of 1 to ``MAX_LAYERS`` positive
    integers), or None; shared by every learner's network check."""
    if (
        not isinstance(arch, list)
        or not 1 <= len(arch) <= MAX_LAYERS
        or not all(type(size) is int and size >= 1 for size in arch)
    ):
        return (
            f"{prefix}net_arch = {arch!r:.80}: allowed: a list of 1 to {MAX_LAYERS} "
            "layer sizes, integers >= 1"
        )
    return None


def activation_problems(activation: Any, prefix: str = "") -> list[str]:
    """What is wrong with ``activation`` (one of ``ACTIVATIONS``), as a list."""
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        return [f"{prefix}activation = {activation!r:.80}: allowed: {', '.join(ACTIVATIONS)}"]
    return []


class AlgoParams(BaseModel):
    """The ``algo`` section as first read: only ``name`` is known until the
    learner it names validates the rest with its own ``params_model``."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(description="the learner, one of learners.LEARNERS")


class Learner(ABC):
    """An algorithm the pipeline can train, resume, and play from (see module doc)."""

    name: ClassVar[str]
    params_model: ClassVar[type[AlgoParams]]
    unused_keys: ClassVar[dict[str, str]] = {}
    """Top-level config keys this learner does not read, and why: a config
    that sets one to other than its default is refused rather than silently
    ignored (a run folder's config.yaml lists every key at its default)."""
    reads_advice: ClassVar[bool] = False
    """Whether the learner trains advised policies (``env.advisor``, bots/advice.py)."""
    pays_relative_reward: ClassVar[bool] = False
    """Whether the learner's envs can pay ``env.relative_reward`` (the self-play env's)."""

    def check(self, params: Any, n_envs: int, observation_size: int, num_actions: int) -> list[str]:
        """Problems that involve several config keys or the env's shapes (one string
        each, naming the keys and what is allowed)."""
        return []

    @abstractmethod
    def build(
        self,
        env: Any,
        params: Any,
        seed: int,
        total_steps: int | None = None,
        advice_actions: int = 0,
    ) -> Any:
        """A fresh model on the vectorised ``env``; ``total_steps`` is the run's
        length, for schedules that depend on it; the last ``advice_actions`` of
        the observation are an advisor's move (bots/advice.py)."""

    def custom_run(self) -> Callable[..., Any] | None:
        """A training loop of the learner's own, ``run(config, run_dir, resume_point)
        -> run_dir``, for learners that do not train on an SB3 vec env (RLlib's
        PPO); None: the shared loop of :mod:`~flockgym.training.train`."""
        return None

    @abstractmethod
    def network_members(self, model: Any) -> dict[str, bytes]:
        """The policy network's weights as checkpoint members (what
        :meth:`load_network` reads): a small file for play and evaluation."""

    @abstractmethod
    def state_members(self, model: Any) -> dict[str, bytes]:
        """Everything else a run resumes from (optimizer, counters, schedules), as
        checkpoint members: tensors and JSON only."""

    @abstractmethod
    def read_state(self, archive: CheckpointArchive, meta: Any) -> Any:
        """A resumable checkpoint's learner state, read weights-only and checked in
        full against its metadata ``meta`` (shapes, network, step); nothing is
        applied (:class:`CheckpointError` names the problem)."""

    @abstractmethod
    def restore(self, model: Any, state: Any) -> None:
        """Apply a state from :meth:`read_state` to a model fresh from :meth:`build`."""

    @abstractmethod
    def network_config(self, params: Any) -> dict[str, Any]:
        """What :meth:`network` needs to rebuild the policy network (stored in checkpoints)."""

    @abstractmethod
    def network_problems(
        self, config: Any, observation_size: int, num_actions: int, prefix: str = ""
    ) -> list[str]:
        """What is wrong with a network config (a config's or a checkpoint's),
        checked before anything is built; ``prefix`` names its keys."""

    @abstractmethod
    def network(
        self,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        """An untrained policy network of that shape (``observation_size`` inputs,
        the last ``advice_actions`` of them an advisor's move: bots/advice.py)."""

    @abstractmethod
    def load_network(
        self,
        archive: CheckpointArchive,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        """The trained policy network of a checkpoint, weights only."""

    @abstractmethod
    def action_logits(self, network: torch.nn.Module, observations: np.ndarray) -> np.ndarray:
        """Unmasked action logits, shape (batch, num_actions), for float32 observations."""


# ---- MaskablePPO (sb3-contrib) ---------------------------------------------------

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
MAX_NETWORK_PARAMETERS = 50_000_000
"""Largest policy network trained or loaded (200 MB of float32 weights): a bound
checked before anything is built, so a typo or a doctored checkpoint cannot ask
for tens of gigabytes."""
MAX_LAYERS = 16


def net_arch_field(what: str) -> Any:
    """The ``net_arch`` field of a learner's params: hidden layer sizes (1 to
    :data:`MAX_LAYERS` positive widths, [128, 128] by default), ``what`` saying
    which networks they shape."""
    return model_field(
        default_factory=lambda: [128, 128],
        min_length=1,
        max_length=MAX_LAYERS,
        description=f"hidden layer sizes of {what}",
    )


MAX_ROLLOUT_BYTES = 2**30
"""Largest rollout buffer (observations, masks and per-step numbers, float32)."""
STATE_FORMAT = "flockgym-maskable-ppo-state"
STATE_VERSION = 1
MAX_TORCH_THREADS = 256
"""Most torch threads a run may ask for (``torch_threads``, ``algo.update_threads``)."""
MAX_EPOCHS = 1000
"""Most passes over one rollout (``algo.n_epochs``): more would spend days on one update."""
MAX_CLIP_RANGE = 10.0
"""Largest PPO clip range: torch clamps the ratio in float32, where 1e308 overflows."""
MAX_LOSS_WEIGHT = 1000.0
"""Largest weight of a loss term or gradient bound (``ent_coef``, ``vf_coef``,
``max_grad_norm``, ``target_kl``): the losses are float32, where a weight near
1e308 turns them into inf and the weights into NaN."""
EPISODE_WINDOW = 100
"""stable-baselines3's default ``stats_window_size``: episodes kept for the
``rollout/ep_*`` statistics."""


class MaskablePPOParams(AlgoParams):
    """Hyperparameters of sb3-contrib's MaskablePPO (PPO whose policy never puts
    probability on a masked action, in rollouts and in updates)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: Literal["maskable_ppo"] = Field("maskable_ppo", description="this learner")
    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size")
    learning_rate_schedule: Literal["constant", "linear"] = Field(
        "constant",
        description="constant: learning_rate throughout; linear: from learning_rate at step 0 "
        "down to 0 at total_steps (read from the step count, so a resumed run goes on "
        "with the same decay)",
    )
    n_steps: int = Field(256, ge=1, description="steps per env in each rollout")
    batch_size: int = Field(256, ge=2, description="minibatch size of the updates")
    n_epochs: int = Field(4, ge=1, le=MAX_EPOCHS, description="passes over each rollout")
    gamma: float = Field(0.99, ge=0, le=1, description="discount factor")
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE smoothing")
    clip_range: float = Field(0.2, gt=0, le=MAX_CLIP_RANGE, description="PPO ratio clipping")
    ent_coef: float = Field(0.01, ge=0, le=MAX_LOSS_WEIGHT, description="entropy bonus")
    vf_coef: float = Field(0.5, ge=0, le=MAX_LOSS_WEIGHT, description="value loss weight")
    max_grad_norm: float = Field(
        0.5, gt=0, le=MAX_LOSS_WEIGHT, description="gradient clipping norm"
    )
    target_kl: float | None = Field(
        None,
        gt=0,
        le=MAX_LOSS_WEIGHT,
        description="stop an update early past this KL (None: never)",
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = net_arch_field(
        "the policy and value networks (each has its own; "
        f"at most {MAX_NETWORK_PARAMETERS:,} parameters in all)"
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="hidden layer activation")
    update_threads: int | None = Field(
        None,
        ge=1,
        le=MAX_TORCH_THREADS,
        description="torch threads for the PPO update alone (None: torch_threads); the rollout "
        "keeps torch_threads. More than 1 only where cores are free: torch's OpenMP threads "
        "spin while they wait for each other, so beside one other busy process an update on "
        "2 threads took several times as long as on 1 (docs/scale.md)",
    )


class StepLinearDecay:
    """A learning rate falling linearly from ``start`` to 0 at ``total_steps``,
    read from the model's step count.

    SB3 gives a schedule its "progress remaining", worked out from the
    ``total_timesteps`` of the current ``learn`` call; the training loop calls
    ``learn`` once per rollout, so that progress says nothing about the run.
    The step count does, and a checkpoint restores it, so a resumed run goes on
    with the very rates of an uninterrupted one."""

    def __init__(self, model: Any, start: float, total_steps: int) -> None:
        self.model, self.start, self.total_steps = model, start, total_steps

    def __call__(self, _progress_remaining: float) -> float:
        left = 1.0 - self.model.num_timesteps / self.total_steps
        return self.start * min(1.0, max(0.0, left))


def train_with_threads(train: Callable[[], None], threads: int) -> None:
    """Run one PPO update (``train``) on ``threads`` torch threads, then give the
    rollout back the threads it had: the update's matrix products gain from a
    second core, while idle torch threads during a rollout only take a core from
    the games (a worker process, or the other envs of the machine). A second
    core must be free, though: torch's OpenMP threads spin at each barrier, so a
    thread whose partner is descheduled by another process burns its time
    slice waiting (the shipped configs keep 1; docs/scale.md)."""
    rollout_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        train()
    finally:
        torch.set_num_threads(rollout_threads)


class MaskablePPOLearner(Learner):
    """MaskablePPO with an MLP policy on the observation vector; the mask comes
    from the env's ``action_masks()``."""

    name = "maskable_ppo"
    params_model = MaskablePPOParams
    reads_advice = True
    pays_relative_reward = True

    def check(
        self, params: MaskablePPOParams, n_envs: int, observation_size: int, num_actions: int
    ) -> list[str]:
        problems = []
        rollout = params.n_steps * n_envs
        if params.batch_size > rollout:
            problems.append(
                f"algo.batch_size = {params.batch_size} is larger than a rollout "
                f"(algo.n_steps {params.n_steps} x n_envs {n_envs} = {rollout}); allowed: "
                f"at most {rollout}"
            )
        per_step = rollout_bytes_per_step(observation_size, num_actions)
        if rollout * per_step > MAX_ROLLOUT_BYTES:
            problems.append(
                f"algo.n_steps x n_envs = {params.n_steps:,} x {n_envs} steps per rollout "
                f"would need a {rollout * per_step / 2**30:,.1f} GiB rollout buffer "
                f"(observation {observation_size}, {num_actions} actions); allowed: at most "
                f"{MAX_ROLLOUT_BYTES // 2**30} GiB, i.e. algo.n_steps <= "
                f"{MAX_ROLLOUT_BYTES // (per_step * n_envs):,} with {n_envs} envs"
            )
        problems += self.network_problems(
            self.network_config(params), observation_size, num_actions, "algo."
        )
        return problems

    def network_problems(
        self, config: Any, observation_size: int, num_actions: int, prefix: str = ""
    ) -> list[str]:
        """What is wrong with a network config (from a config or a checkpoint's
        metadata), checked before anything is built; ``prefix`` names its keys."""
        if not isinstance(config, dict) or set(config) != {"net_arch", "activation"}:
            return [
                f"{prefix.rstrip('.') or 'network'} = {config!r:.80}: allowed: a mapping of "
                f"net_arch (a list of layer sizes) and activation"
            ]
        return mlp_problems(config, observation_size, num_actions, prefix, parameter_count)

    def build(
        self,
        env: Any,
        params: MaskablePPOParams,
        seed: int,
        policy_class: Any = None,
        total_steps: int | None = None,
        advice_actions: int = 0,
    ) -> Any:
        """MaskablePPO on ``env``; its policy is :class:`~.maskable.PlainMaskablePolicy`
        (sb3-contrib's, with plain tensor ops), or ``policy_class`` (e.g.
        sb3-contrib's own ``MaskableActorCriticPolicy``, as a benchmark's reference).
        ``total_steps`` is where a linear learning-rate schedule reaches 0;
        ``advice_actions`` makes the policy an advised one (bots/advice.py)."""
        kwargs = self._policy_kwargs(self.network_config(params))
        if advice_actions:
            kwargs["advice_actions"] = advice_actions
        from sb3_contrib import MaskablePPO

        from flockgym.training.maskable import PlainMaskablePolicy

        model = MaskablePPO(
            policy_class or PlainMaskablePolicy,
            env,
            learning_rate=params.learning_rate,
            n_steps=params.n_steps,
            batch_size=params.batch_size,
            n_epochs=params.n_epochs,
            gamma=params.gamma,
            gae_lambda=params.gae_lambda,
            clip_range=params.clip_range,
            ent_coef=params.ent_coef,
            vf_coef=params.vf_coef,
            max_grad_norm=params.max_grad_norm,
            target_kl=params.target_kl,
            policy_kwargs=kwargs,
            seed=seed,
            device="cpu",
            verbose=0,
        )
        if params.learning_rate_schedule == "linear":
            if total_steps is None or total_steps < 1:
                raise ValueError(
                    "algo.learning_rate_schedule 'linear' needs total_steps, an int >= 1 "
                    f"(the run's length in learner steps), got {total_steps!r}; "
                    "or use learning_rate_schedule 'constant'"
                )
            model.lr_schedule = StepLinearDecay(model, params.learning_rate, total_steps)
        if params.update_threads is not None:
            model.train = functools.partial(train_with_threads, model.train, params.update_threads)
        return model

    # ---- checkpoints: weights and state as tensors and JSON ------------------------

    def network_members(self, model: Any) -> dict[str, bytes]:
        return {POLICY_MEMBER: tensor_bytes(model.policy.state_dict())}

    def state_members(self, model: Any) -> dict[str, bytes]:
        progress = float(model._current_progress_remaining)
        counters = {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "num_timesteps": int(model.num_timesteps),
            "n_updates": int(model._n_updates),
            "total_timesteps": int(model._total_timesteps),
            # Where the learning-rate and clip-range schedules stand (both constant
            # here; stored so a schedule would resume where it was).
            "progress_remaining": progress,
            "learning_rate": float(model.lr_schedule(progress)),
            "clip_range": float(model.clip_range(progress)),
            **episode_counters(model),
        }
        return {
            OPTIMIZER_MEMBER: tensor_bytes(model.policy.optimizer.state_dict()),
            LEARNER_MEMBER: json_bytes(counters),
        }

    def read_state(self, archive: CheckpointArchive, meta: Any) -> MaskablePPOState:
        fresh = self.network(meta.network, meta.input_size, meta.num_actions, advice_actions(meta))
        policy, optimizer, counters = read_learner_members(
            archive,
            meta,
            fresh.state_dict(),
            lambda saved: optimizer_problems(saved, fresh),
            counter_problems,
        )
        return MaskablePPOState(policy, optimizer, counters)

    def restore(self, model: Any, state: MaskablePPOState) -> None:
        model.policy.load_state_dict(state.policy)
        model.policy.optimizer.load_state_dict(state.optimizer)
        counters = state.counters
        model.num_timesteps = counters["num_timesteps"]
        model._num_timesteps_at_start = counters["num_timesteps"]
        model._n_updates = counters["n_updates"]
        model._total_timesteps = counters["total_timesteps"]
        model._current_progress_remaining = counters["progress_remaining"]
        restore_episode_buffers(model, counters)

    # ---- the policy network alone ------------------------------------------------------

    def network_config(self, params: MaskablePPOParams) -> dict[str, Any]:
        return {"net_arch": list(params.net_arch), "activation": params.activation}

    def network(
        self,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        from flockgym.training.maskable import PlainMaskablePolicy

        # Building initialises weights from torch's generator; keep the global
        # one untouched, so loading an opponent mid-run does not change training.
        with torch.random.fork_rng(devices=[]):
            policy = PlainMaskablePolicy(
                observation_space=spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                action_space=spaces.Discrete(num_actions),
                lr_schedule=lambda _: 0.0,
                advice_actions=advice_actions,
                **self._policy_kwargs(config),
            )
        return policy.eval()

    def load_network(
        self,
        archive: CheckpointArchive,
        config: dict[str, Any],
        observation_size: int,
        num_actions: int,
        advice_actions: int = 0,
    ) -> torch.nn.Module:
        count = parameter_count(config["net_arch"], observation_size, num_actions)
        network = self.network(config, observation_size, num_actions, advice_actions)
        expected = network.state_dict()
        state = archive.tensors(POLICY_MEMBER, weights_bytes(count, len(expected)))
        check_state_dict(archive.path, POLICY_MEMBER, state, expected)
        network.load_state_dict(state)
        return network

    def action_logits(self, network: torch.nn.Module, observations: np.ndarray) -> np.ndarray:
        # The actor path of the policy, without the sampling machinery of
        # ``predict``, in float64 (see training/maskable.py) unless the network is large.
        from flockgym.training.maskable import float64_logits, float64_ready

        if float64_ready(network):
            return float64_logits(network, observations)
        with torch.no_grad():
            obs = torch.as_tensor(observations, dtype=torch.float32)
            features = network.extract_features(obs, network.pi_features_extractor)
            latent = network.mlp_extractor.forward_actor(features)
            if hasattr(network, "actor_logits"):  # ours, with the advice if any
                return network.actor_logits(obs, latent).numpy()
            return network.action_net(latent).numpy()

    @staticmethod
    def _policy_kwargs(config: dict[str, Any]) -> dict[str, Any]:
        return {
            "net_arch": list(config["net_arch"]),
            "activation_fn": ACTIVATIONS[config["activation"]],
        }


@dataclass
class MaskablePPOState:
    """A resumable checkpoint's MaskablePPO state, checked, not yet applied."""

    policy: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    counters: dict[str, Any]


def advice_actions(meta: Any) -> int:
    """How many of a checkpoint's network inputs are advice (0 unless advised)."""
    return int(meta.num_actions) if meta.advisor != "none" else 0


def weights_bytes(parameters: int, tensors: int) -> int:
    """Upper bound of a ``torch.save`` of ``tensors`` float32 tensors holding
    ``parameters`` numbers: the numbers, and a few kilobytes of framing each."""
    return 4 * parameters + 4096 * tensors + 65536


IMPLEMENTATION_FLAGS = ("fused", "foreach")
"""Adam options that choose an implementation, not a state: None (torch's
default, as checkpoints written before the fused Adam have it) or a bool."""


def optimizer_problems(state: Any, fresh: torch.nn.Module) -> list[str]:
    """An Adam ``state_dict`` that fits the policy ``fresh`` (its parameters, in
    order): the structure torch's ``load_state_dict`` does not check."""
    expected = fresh.optimizer.state_dict()
    if not isinstance(state, dict) or set(state) != {"state", "param_groups"}:
        return ["allowed: a mapping of state and param_groups (an optimizer's state_dict)"]
    groups = state["param_groups"]
    if not isinstance(groups, list) or len(groups) != len(expected["param_groups"]):
        return [f"param_groups: allowed: a list of {len(expected['param_groups'])} group(s)"]
    for i, (group, model) in enumerate(zip(groups, expected["param_groups"], strict=True)):
        if not isinstance(group, dict) or set(group) != set(model):
            return [f"param_groups[{i}]: allowed keys: {', '.join(sorted(model))}"]
        if group["params"] != model["params"]:
            return [f"param_groups[{i}].params: allowed: {model['params']}"]
        for key, value in group.items():
            if key in IMPLEMENTATION_FLAGS and value in (None, False, True):
                continue
            if key != "params" and type(value) is not type(model[key]):
                return [f"param_groups[{i}].{key} = {value!r:.40}: allowed: like {model[key]!r}"]
    shapes = [p.shape for p in fresh.parameters()]
    return adam_moment_problems(state["state"], shapes)


def read_learner_members(
    archive: Any,
    meta: Any,
    fresh: dict[str, Any],
    optimizer_check: Callable[[Any], list[str]],
    counter_check: Callable[[Any], list[str]],
) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """The policy weights, optimizer state and counters of a resumable checkpoint,
    each read weights-only within a size bound worked out from ``meta``'s
    network and checked (the weights against ``fresh``, the others by the
    learner's own checks) before any of it reaches torch: a damaged member is a
    :class:`CheckpointError` naming the file, the member and the problem."""
    count = parameter_count(meta.network["net_arch"], meta.input_size, meta.num_actions)
    policy = archive.tensors(POLICY_MEMBER, weights_bytes(count, len(fresh)))
    check_state_dict(archive.path, POLICY_MEMBER, policy, fresh)
    optimizer = archive.tensors(OPTIMIZER_MEMBER, 2 * weights_bytes(count, 2 * len(fresh)))
    problems = optimizer_check(optimizer)
    if problems:
        raise CheckpointError(f"{archive.path}: {OPTIMIZER_MEMBER}: " + "; ".join(problems))
    counters = archive.json(LEARNER_MEMBER)
    problems = counter_check(counters)
    if not problems and counters["num_timesteps"] != meta.steps:
        problems = [f"num_timesteps = {counters['num_timesteps']}, not the step {meta.steps}"]
    if problems:
        raise CheckpointError(f"{archive.path}: {LEARNER_MEMBER}: " + "; ".join(problems))
    return policy, optimizer, counters


def adam_moment_problems(per_parameter: Any, shapes: list[Any]) -> list[str]:
    """What is wrong with the ``state`` part of an Adam ``state_dict`` read from a
    checkpoint (each parameter's moments, of its shape): checked before torch
    sees it, so a damaged file is an error naming the entry. Every learner
    that saves Adam's state reads it back through this."""
    if not isinstance(per_parameter, dict):
        return ["state: allowed: a mapping of parameter index to its moments"]
    for index, moments in per_parameter.items():
        where = f"state[{index!r:.20}]"
        if not isinstance(index, int) or not 0 <= index < len(shapes):
            return [f"{where}: allowed indices: 0 to {len(shapes) - 1}"]
        if not isinstance(moments, dict) or set(moments) != {"step", "exp_avg", "exp_avg_sq"}:
            return [f"{where}: allowed: step, exp_avg and exp_avg_sq"]
        for key in ("exp_avg", "exp_avg_sq"):
            tensor = moments[key]
            if not isinstance(tensor, torch.Tensor) or tensor.shape != shapes[index]:
                return [f"{where}.{key}: allowed: a tensor of shape {tuple(shapes[index])}"]
        if not isinstance(moments["step"], torch.Tensor) or moments["step"].numel() != 1:
            return [f"{where}.step: allowed: a one-number tensor"]
    return []


def mlp_problems(
    config: dict[str, Any],
    observation_size: int,
    num_actions: int,
    prefix: str,
    count_parameters: Callable[[list[int], int, int], int],
) -> list[str]:
    """What is wrong with an MLP's ``net_arch`` and ``activation``: the layer
    sizes, the activation's name, and a size within :data:`MAX_NETWORK_PARAMETERS`
    as ``count_parameters(net_arch, observation_size, outputs)`` counts it (each
    learner's network has its own heads)."""
    arch, activation = config["net_arch"], config["activation"]
    if problem := layer_sizes_problem(arch, prefix):
        return [problem]
    problems = activation_problems(activation, prefix)
    count = count_parameters(arch, observation_size, num_actions)
    if count > MAX_NETWORK_PARAMETERS:
        problems.append(
            f"{prefix}net_arch = {arch!r}: a network of {count:,} parameters for "
            f"observation {observation_size} and {num_actions} actions; allowed: at most "
            f"{MAX_NETWORK_PARAMETERS:,}"
        )
    return problems


def counter_problems(counters: Any) -> list[str]:
    """``learner.json``: every field present, of its type and range."""
    fields = {
        "num_timesteps": COUNT,
        "n_updates": COUNT,
        "total_timesteps": COUNT,
        "progress_remaining": FINITE,
        "learning_rate": FINITE,
        "clip_range": FINITE,
        **EPISODE_FIELDS,
    }
    return field_problems(counters, STATE_FORMAT, STATE_VERSION, fields)


Field = tuple[Callable[[Any], bool], str]
"""A ``learner.json`` field's check, and what it allows (for the message)."""


def field_problems(
    counters: Any, state_format: str, version: int, fields: dict[str, Field]
) -> list[str]:
    """What is wrong with a learner's ``learner.json`` against its ``fields``
    (name -> check and what is allowed): its format and version, then every
    field present, none unknown, each valid."""
    if not isinstance(counters, dict):
        return ["allowed: a JSON object"]
    if (counters.get("format"), counters.get("version")) != (state_format, version):
        return [
            f"format {counters.get('format')!r:.40} version {counters.get('version')!r:.20}; "
            f"allowed: {state_format!r} {version}"
        ]
    problems = [
        f"unknown field {k!r:.40}" for k in counters if k not in {*fields, "format", "version"}
    ]
    for key, (valid, allowed) in fields.items():
        if key not in counters:
            problems.append(f"missing field {key!r}")
        elif not valid(counters[key]):
            problems.append(f"{key} = {counters[key]!r:.60}: allowed: {allowed}")
    return problems


def episode_counters(model: Any) -> dict[str, Any]:
    """The monitor's recent episodes, behind SB3's rollout/ep_* statistics, as
    JSON: every SB3 learner saves them so a resumed run logs the same figures."""
    return {
        "ep_info_buffer": [
            {"r": float(e["r"]), "l": int(e["l"]), "t": float(e["t"])}
            for e in model.ep_info_buffer or ()
        ],
        "ep_success_buffer": [bool(s) for s in model.ep_success_buffer or ()],
    }


def restore_episode_buffers(model: Any, counters: dict[str, Any]) -> None:
    """Put back what :func:`episode_counters` saved, in the monitor's own types
    (float32 returns, int32 lengths) and the model's window."""
    window = model._stats_window_size
    model.ep_info_buffer = deque(
        (
            {"r": np.float32(e["r"]), "l": np.int32(e["l"]), "t": e["t"]}
            for e in counters["ep_info_buffer"]
        ),
        maxlen=window,
    )
    model.ep_success_buffer = deque(counters["ep_success_buffer"], maxlen=window)


def is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def is_finite(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def is_window(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= EPISODE_WINDOW


def is_episode_buffer(value: Any) -> bool:
    return is_window(value) and all(
        isinstance(e, dict)
        and set(e) == {"r", "l", "t"}
        and is_finite(e["r"])
        and is_count(e["l"])
        and is_finite(e["t"])
        for e in value
    )


# The checks of what :func:`episode_counters` writes.
COUNT: Field = (is_count, "an integer >= 0")
POSITIVE: Field = (lambda v: is_count(v) and v >= 1, "an integer >= 1")
FINITE: Field = (is_finite, "a finite number")
FLAG: Field = (lambda v: isinstance(v, bool), "true or false")
EPISODE_FIELDS: dict[str, Field] = {
    "ep_info_buffer": (
        is_episode_buffer,
        f"a list of at most {EPISODE_WINDOW} episodes {{r: number, l: integer >= 0, t: number}}",
    ),
    "ep_success_buffer": (
        lambda v: is_window(v) and all(isinstance(x, bool) for x in v),
        f"a list of at most {EPISODE_WINDOW} true/false",
    ),
}


def parameter_count(net_arch: list[int], observation_size: int, num_actions: int) -> int:
    """Weights and biases of a MaskablePPO MLP policy: separate policy and value
    MLPs of ``net_arch``, then the action head and the value head."""
    sizes = [observation_size, *net_arch]
    mlp = sum(n_in * n_out + n_out for n_in, n_out in itertools.pairwise(sizes))
    last = net_arch[-1]
    return 2 * mlp + (last * num_actions + num_actions) + (last + 1)


def rollout_bytes_per_step(observation_size: int, num_actions: int) -> int:
    """Bytes one env step takes in the rollout buffer: the observation, the action
    mask and seven float32 numbers (action, reward, return, start, value, log
    probability, advantage)."""
    return 4 * (observation_size + num_actions + 7)


# ---- the registry ------------------------------------------------------------------

LEARNERS: dict[str, str] = {
    "maskable_ppo": "flockgym.training.learners:MaskablePPOLearner",
    # RLlib's PPO: its configs validate and its checkpoints play without ray; ray
    # is imported only when it trains (training/rllib/).
    "rllib_ppo": "flockgym.training.rllib.learner:RLlibPPOLearner",
    # Q-learners: stable-baselines3's DQN and sb3-contrib's QR-DQN, masked
    # (training/masked_dqn.py).
    "masked_dqn": "flockgym.training.masked_dqn:MaskedDQNLearner",
    "masked_qrdqn": "flockgym.training.masked_dqn:MaskedQRDQNLearner",
    # Expert iteration: the tree search's visit counts and results (training/expert_iteration.py).
    "expert_iteration": "flockgym.training.expert_iteration:ExpertIterationLearner",
}
"""Every learner a config may name, as ``"module:Class"``: a registry names its
members and imports each on first use (as ``flockgym.envs`` names its bots), so
importing this module imports no member's module, and none imports it back
while it is half built."""

_INSTANCES: dict[str, Learner] = {}
"""The learners built so far (one instance per name, built on first use)."""


def register_learner(learner: Learner | str, name: str | None = None) -> None:
    """Make a learner available to configs as ``algo.name: <name>``: an instance
    (named by its ``name``), or its class as ``"module:Class"`` (named by
    ``name``), imported when a config first names it."""
    if isinstance(learner, str):
        if name is None or ":" not in learner:
            raise ValueError(
                f"register_learner({learner!r}, name={name!r}): allowed: a Learner instance, "
                "or 'module:Class' with the name configs give it"
            )
        LEARNERS[name] = learner
        _INSTANCES.pop(name, None)
        return
    cls = type(learner)
    LEARNERS[learner.name] = f"{cls.__module__}:{cls.__qualname__}"
    _INSTANCES[learner.name] = learner


def get_learner(name: str) -> Learner:
    """The learner registered as ``name``, its module imported on first use
    (``KeyError`` if none is registered so)."""
    learner = _INSTANCES.get(name)
    if learner is None:
        module_name, class_name = LEARNERS[name].split(":")
        learner = getattr(importlib.import_module(module_name), class_name)()
        _INSTANCES[name] = learner
    return learner


def learner_names() -> list[str]:
    return sorted(LEARNERS)
