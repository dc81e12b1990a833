"""The ``rllib_ppo`` learner: RLlib's PPO (new API stack) in the learner registry.

This module imports no ray: configs naming ``rllib_ppo`` are validated, and its
checkpoints load, play and evaluate, on the ``train`` extra alone. Training
needs the ``rllib`` extra; without it, loading such a config is a
:class:`~flockgym.common.errors.ConfigError` that names the extra.

The policy network is the SB3 path's (the same MLP layout and weights format,
:class:`~.module.MaskedActorCritic`), so everything that plays a checkpoint
(``load_policy``, ``flockgym eval``/``play``, opponents of other runs) plays
an ``rllib_ppo`` one. A resumable checkpoint holds, besides the weights, the
optimizer's ``state_dict`` (``optimizer.pth``, Adam's moments as tensors) and
the run's counters (``learner.json``); resuming rebuilds the algorithm from
the run's config and copies them in. RLlib's own ``restore_from_path`` is
never used: it rebuilds Python objects from the files of its checkpoint folder,
which would run code from them.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

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
from flockgym.training.learners import (
    COUNT,
    MAX_CLIP_RANGE,
    MAX_EPOCHS,
    MAX_LAYERS,
    MAX_LOSS_WEIGHT,
    MAX_NETWORK_PARAMETERS,
    AlgoParams,
    MaskablePPOLearner,
    adam_moment_problems,
    field_problems,
    read_learner_members,
)

STATE_FORMAT = "flockgym-rllib-ppo-state"
STATE_VERSION = 1
MAX_ENV_RUNNERS = 1024
MAX_CPUS = 4096
"""Most CPUs a local Ray instance may be started with (``algo.num_cpus``)."""
MAX_TRAIN_BATCH = 1_000_000
"""Most env steps one RLlib iteration collects and keeps in memory
(``algo.train_batch_size``; the shipped config collects 4,000)."""
MAX_VF_CLIP = 1e6
"""Largest value-loss clip, in reward units (past float32's reach of squared returns)."""
EXTRA_HINT = (
    "install the rllib extra: pip install -c constraints-rllib.txt -e '.[train,rllib]' "
    "(a venv of its own: ray[rllib] pins gymnasium 1.2.2; `make test-rllib` builds .venv-rllib)"
)


def ray_missing() -> bool:
    return importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None


class RLlibPPOParams(AlgoParams):
    """Hyperparameters of RLlib's PPO and where it runs (the same names as
    ``maskable_ppo`` where they mean the same)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: Literal["rllib_ppo"] = Field("rllib_ppo", description="this learner")
    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size (constant)")
    train_batch_size: int = Field(
        4000,
        ge=2,
        le=MAX_TRAIN_BATCH,
        description="env steps (all seats' moves) collected per iteration",
    )
    minibatch_size: int = Field(256, ge=2, description="minibatch size of the updates")
    n_epochs: int = Field(4, ge=1, le=MAX_EPOCHS, description="passes over each iteration's batch")
    gamma: float = Field(0.99, ge=0, le=1, description="discount factor")
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE smoothing")
    clip_range: float = Field(0.2, gt=0, le=MAX_CLIP_RANGE, description="PPO ratio clipping")
    ent_coef: float = Field(0.01, ge=0, le=MAX_LOSS_WEIGHT, description="entropy bonus")
    vf_coef: float = Field(0.5, ge=0, le=MAX_LOSS_WEIGHT, description="value loss weight")
    vf_clip: float = Field(
        10.0,
        gt=0,
        le=MAX_VF_CLIP,
        description="value loss clipping (RLlib's vf_clip_param; in reward units)",
    )
    max_grad_norm: float = Field(
        0.5, gt=0, le=MAX_LOSS_WEIGHT, description="gradient clipping norm"
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=lambda: [128, 128],
        min_length=1,
        max_length=MAX_LAYERS,
        description="hidden layer sizes of the policy and value networks (each has its own; "
        f"at most {MAX_NETWORK_PARAMETERS:,} parameters in all)",
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="hidden layer activation")
    selfplay_share: float = Field(
        0.25,
        ge=0.0,
        le=1.0,
        description="share of episodes in which every seat is the learning policy (true "
        "multi-agent self-play); the others follow the opponents section (snapshots, bots)",
    )
    num_env_runners: int = Field(
        2,
        ge=0,
        le=MAX_ENV_RUNNERS,
        description="Ray actors collecting episodes (0: in the driver process)",
    )
    envs_per_env_runner: int = Field(1, ge=1, le=256, description="envs each env runner steps")
    num_cpus: int | None = Field(
        None,
        ge=1,
        le=MAX_CPUS,
        description="CPUs of the local Ray instance (None: num_env_runners + 1); ignored "
        "when attaching to a cluster",
    )
    address: str | None = Field(
        None,
        description="a running Ray cluster to attach to (like `--address` or RAY_ADDRESS); "
        "None: start a local instance on 127.0.0.1, dashboard off",
    )


class RLlibPPOLearner(MaskablePPOLearner):
    """RLlib PPO with the masked actor-critic of :mod:`.module`; its network, its
    checkpoints' ``policy.pth`` and playing them are ``maskable_ppo``'s."""

    name = "rllib_ppo"
    params_model = RLlibPPOParams
    reads_advice = False
    pays_relative_reward = False
    unused_keys: ClassVar[dict[str, str]] = {
        "n_envs": "it runs algo.num_env_runners x algo.envs_per_env_runner envs",
        "vec_env": "RLlib's env runners step the envs",
        "batched": "RLlib's env runners step the envs",
        "pretrain": "imitation before training is built for maskable_ppo only",
    }

    def check(
        self, params: RLlibPPOParams, n_envs: int, observation_size: int, num_actions: int
    ) -> list[str]:
        problems = []
        if ray_missing():
            problems.append(
                f"algo.name = 'rllib_ppo' needs ray[rllib], not installed: {EXTRA_HINT}"
            )
        if params.minibatch_size > params.train_batch_size:
            problems.append(
                f"algo.minibatch_size = {params.minibatch_size} is larger than "
                f"algo.train_batch_size = {params.train_batch_size}; allowed: at most that"
            )
        if params.num_cpus is not None and params.num_cpus < max(params.num_env_runners, 1):
            problems.append(
                f"algo.num_cpus = {params.num_cpus} is fewer than algo.num_env_runners = "
                f"{params.num_env_runners} (each env runner takes one CPU; Ray would wait "
                f"forever); allowed: at least {max(params.num_env_runners, 1)}"
            )
        problems += self.network_problems(
            self.network_config(params), observation_size, num_actions, "algo."
        )
        return problems

    def build(
        self,
        env: Any,
        params: Any,
        seed: int,
        total_steps: int | None = None,
        advice_actions: int = 0,
    ) -> Any:
        raise TypeError(
            "rllib_ppo trains in its own loop (flockgym.training.rllib.run), not on an SB3 "
            "vec env; train it with `flockgym train CONFIG`"
        )

    def custom_run(self) -> Callable[..., Path]:
        """The training loop of this learner (``train.run`` hands the run to it)."""
        if ray_missing():
            from flockgym.common.errors import ConfigError

            raise ConfigError(f"algo.name = 'rllib_ppo' needs ray[rllib]: {EXTRA_HINT}")
        from flockgym.training.rllib.run import run_rllib

        return run_rllib

    # ---- checkpoints ----------------------------------------------------------------

    def network_members(self, model: Any) -> dict[str, bytes]:
        return {POLICY_MEMBER: tensor_bytes(model.learner_weights())}

    def state_members(self, model: Any) -> dict[str, bytes]:
        counters = {"format": STATE_FORMAT, "version": STATE_VERSION, **model.counters()}
        return {
            OPTIMIZER_MEMBER: tensor_bytes(model.optimizer_state()),
            LEARNER_MEMBER: json_bytes(counters),
        }

    def read_state(self, archive: CheckpointArchive, meta: Any) -> RLlibPPOState:
        fresh = self.network(meta.network, meta.observation_size, meta.num_actions).state_dict()
        policy, optimizer, counters = read_learner_members(
            archive,
            meta,
            fresh,
            lambda saved: adam_problems(saved, fresh),
            rllib_counter_problems,
        )
        return RLlibPPOState(policy, optimizer, counters)

    def restore(self, model: Any, state: RLlibPPOState) -> None:
        model.restore(state.policy, state.optimizer, state.counters)


@dataclass
class RLlibPPOState:
    """A resumable ``rllib_ppo`` checkpoint, checked, not yet applied."""

    policy: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    counters: dict[str, Any]


COUNTERS = ("num_timesteps", "iterations", "env_steps")


def rllib_counter_problems(counters: Any) -> list[str]:
    """``learner.json`` of an ``rllib_ppo`` checkpoint: every field present and a count."""
    fields = dict.fromkeys(COUNTERS, COUNT)
    return field_problems(counters, STATE_FORMAT, STATE_VERSION, fields)


def adam_problems(state: Any, fresh: dict[str, torch.Tensor]) -> list[str]:
    """A torch Adam ``state_dict`` over the policy's parameters (in ``fresh``'s
    order), as RLlib's learner keeps it: the structure ``load_state_dict`` does
    not check (shapes of every moment, one-number steps)."""
    if not isinstance(state, dict) or set(state) != {"state", "param_groups"}:
        return ["allowed: a mapping of state and param_groups (an optimizer's state_dict)"]
    shapes = [tensor.shape for tensor in fresh.values()]
    groups = state["param_groups"]
    if not isinstance(groups, list) or len(groups) != 1 or not isinstance(groups[0], dict):
        return ["param_groups: allowed: a list of one group"]
    if groups[0].get("params") != list(range(len(shapes))):
        return [f"param_groups[0].params: allowed: {list(range(len(shapes)))}"]
    lr = groups[0].get("lr")
    if type(lr) is not float or not math.isfinite(lr):
        return ["param_groups[0].lr: allowed: a finite float"]
    return adam_moment_problems(state["state"], shapes)
