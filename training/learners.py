"""The learner registry: the config's ``algo.name`` picks one, by name.

A learner is everything the rest of the pipeline needs to know about an
algorithm, and nothing more:

* ``params_model``: its hyperparameters, a pydantic model (the ``algo`` section);
* ``build`` / ``load``: a model with the stable-baselines3 algorithm interface
  (``learn``, ``save``, ``num_timesteps``, ``policy``, ``set_logger``), new or
  resumed from a checkpoint of a run;
* ``network`` / ``action_logits``: the policy network alone, rebuilt from a
  checkpoint's weights without unpickling anything, and its action logits for a
  batch of observations. Playing, evaluating and self-play opponents only use
  these, so a checkpoint loads fast and safely.

A new mask-aware learner subclasses :class:`Learner` and calls
:func:`register_learner`; configs can then name it.
"""

from __future__ import annotations

import io
import itertools
import zipfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import torch
from gymnasium import spaces
from pydantic import BaseModel, ConfigDict, Field


class AlgoParams(BaseModel):
    """The ``algo`` section as first read: only ``name`` is known until the
    learner it names validates the rest with its own ``params_model``."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(description="the learner, one of learners.LEARNERS")


class Learner(ABC):
    """An algorithm the pipeline can train, resume, and play from (see module doc)."""

    name: ClassVar[str]
    params_model: ClassVar[type[AlgoParams]]

    def check(self, params: Any, n_envs: int, observation_size: int, num_actions: int) -> list[str]:
        """Problems that involve several config keys or the env's shapes (one string
        each, naming the keys and what is allowed)."""
        return []

    @abstractmethod
    def build(self, env: Any, params: Any, seed: int) -> Any:
        """A fresh model on the vectorised ``env``."""

    @abstractmethod
    def load(self, path: Path, env: Any) -> Any:
        """A model resumed from a checkpoint written by ``model.save`` (trusted: our run)."""

    @abstractmethod
    def save_network(self, model: Any, path: Path) -> None:
        """Write the policy network's weights alone into the zip ``path`` (what
        :meth:`load_network` reads): a small file for play and evaluation."""

    @abstractmethod
    def network_config(self, params: Any) -> dict[str, Any]:
        """What :meth:`network` needs to rebuild the policy network (stored in checkpoints)."""

    @abstractmethod
    def network(
        self, config: dict[str, Any], observation_size: int, num_actions: int
    ) -> torch.nn.Module:
        """An untrained policy network of that shape."""

    @abstractmethod
    def load_network(
        self, path: Path, config: dict[str, Any], observation_size: int, num_actions: int
    ) -> torch.nn.Module:
        """The trained policy network of a checkpoint, weights only."""

    @abstractmethod
    def action_logits(self, network: torch.nn.Module, observations: np.ndarray) -> np.ndarray:
        """Unmasked action logits, shape (batch, num_actions), for float32 observations."""


# ---- MaskablePPO (sb3-contrib) ---------------------------------------------------

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
POLICY_MEMBER = "policy.pth"
"""The policy's state dict inside a checkpoint zip (where ``model.save`` puts it)."""
MAX_NETWORK_PARAMETERS = 50_000_000
"""Largest policy network trained or loaded (200 MB of float32 weights): a bound
checked before anything is built, so a typo or a doctored checkpoint cannot ask
for tens of gigabytes."""
MAX_LAYERS = 16
MAX_ROLLOUT_BYTES = 2**30
"""Largest rollout buffer (observations, masks and per-step numbers, float32)."""


class MaskablePPOParams(AlgoParams):
    """Hyperparameters of sb3-contrib's MaskablePPO (PPO whose policy never puts
    probability on a masked action, in rollouts and in updates)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    name: Literal["maskable_ppo"] = Field("maskable_ppo", description="this learner")
    learning_rate: float = Field(3e-4, gt=0, le=1, description="Adam step size (constant)")
    n_steps: int = Field(256, ge=1, description="steps per env in each rollout")
    batch_size: int = Field(256, ge=2, description="minibatch size of the updates")
    n_epochs: int = Field(4, ge=1, description="passes over each rollout")
    gamma: float = Field(0.99, ge=0, le=1, description="discount factor")
    gae_lambda: float = Field(0.95, ge=0, le=1, description="GAE smoothing")
    clip_range: float = Field(0.2, gt=0, description="PPO ratio clipping")
    ent_coef: float = Field(0.01, ge=0, description="entropy bonus")
    vf_coef: float = Field(0.5, ge=0, description="value loss weight")
    max_grad_norm: float = Field(0.5, gt=0, description="gradient clipping norm")
    target_kl: float | None = Field(
        None, gt=0, description="stop an update early past this KL (None: never)"
    )
    net_arch: list[Annotated[int, Field(ge=1)]] = Field(
        default_factory=lambda: [128, 128],
        min_length=1,
        max_length=MAX_LAYERS,
        description="hidden layer sizes of the policy and value networks (each has its own; "
        f"at most {MAX_NETWORK_PARAMETERS:,} parameters in all)",
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="hidden layer activation")


class MaskablePPOLearner(Learner):
    """MaskablePPO with an MLP policy on the observation vector; the mask comes
    from the env's ``action_masks()``."""

    name = "maskable_ppo"
    params_model = MaskablePPOParams

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
                f"{prefix.rstrip('.') or 'network'} = {config!r}: allowed: a mapping of "
                f"net_arch (a list of layer sizes) and activation"
            ]
        arch, activation = config["net_arch"], config["activation"]
        if (
            not isinstance(arch, list)
            or not 1 <= len(arch) <= MAX_LAYERS
            or not all(type(size) is int and size >= 1 for size in arch)
        ):
            return [
                f"{prefix}net_arch = {arch!r}: allowed: a list of 1 to {MAX_LAYERS} "
                "layer sizes, integers >= 1"
            ]
        problems = []
        if activation not in ACTIVATIONS:
            problems.append(
                f"{prefix}activation = {activation!r}: allowed: {', '.join(ACTIVATIONS)}"
            )
        count = parameter_count(arch, observation_size, num_actions)
        if count > MAX_NETWORK_PARAMETERS:
            problems.append(
                f"{prefix}net_arch = {arch!r}: a network of {count:,} parameters for "
                f"observation {observation_size} and {num_actions} actions; allowed: at most "
                f"{MAX_NETWORK_PARAMETERS:,}"
            )
        return problems

    def build(self, env: Any, params: MaskablePPOParams, seed: int) -> Any:
        from sb3_contrib import MaskablePPO

        return MaskablePPO(
            "MlpPolicy",
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
            policy_kwargs=self._policy_kwargs(self.network_config(params)),
            seed=seed,
            device="cpu",
            verbose=0,
        )

    def load(self, path: Path, env: Any) -> Any:
        from sb3_contrib import MaskablePPO

        return MaskablePPO.load(path, env=env, device="cpu")

    def save_network(self, model: Any, path: Path) -> None:
        buffer = io.BytesIO()
        torch.save(model.policy.state_dict(), buffer)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(POLICY_MEMBER, buffer.getvalue())

    def network_config(self, params: MaskablePPOParams) -> dict[str, Any]:
        return {"net_arch": list(params.net_arch), "activation": params.activation}

    def network(
        self, config: dict[str, Any], observation_size: int, num_actions: int
    ) -> torch.nn.Module:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        # Building initialises weights from torch's generator; keep the global
        # one untouched, so loading an opponent mid-run does not change training.
        with torch.random.fork_rng(devices=[]):
            policy = MaskableActorCriticPolicy(
                observation_space=spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                action_space=spaces.Discrete(num_actions),
                lr_schedule=lambda _: 0.0,
                **self._policy_kwargs(config),
            )
        return policy.eval()

    def load_network(
        self, path: Path, config: dict[str, Any], observation_size: int, num_actions: int
    ) -> torch.nn.Module:
        network = self.network(config, observation_size, num_actions)
        with zipfile.ZipFile(path) as archive:
            blob = archive.read(POLICY_MEMBER)
        state = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
        network.load_state_dict(state)
        return network

    def action_logits(self, network: torch.nn.Module, observations: np.ndarray) -> np.ndarray:
        # The actor path of the policy, without the sampling machinery of
        # ``predict``: about six times faster for one observation.
        with torch.no_grad():
            obs = torch.as_tensor(observations, dtype=torch.float32)
            features = network.extract_features(obs, network.pi_features_extractor)
            latent = network.mlp_extractor.forward_actor(features)
            return network.action_net(latent).numpy()

    @staticmethod
    def _policy_kwargs(config: dict[str, Any]) -> dict[str, Any]:
        return {
            "net_arch": list(config["net_arch"]),
            "activation_fn": ACTIVATIONS[config["activation"]],
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

LEARNERS: dict[str, Learner] = {}


def register_learner(learner: Learner) -> None:
    """Make ``learner`` available to configs as ``algo.name: <learner.name>``."""
    LEARNERS[learner.name] = learner


def get_learner(name: str) -> Learner:
    """The learner registered as ``name`` (``KeyError`` if none)."""
    return LEARNERS[name]


def learner_names() -> list[str]:
    return sorted(LEARNERS)


register_learner(MaskablePPOLearner())
