"""The masked actor-critic RLModule of ``rllib_ppo`` (torch, RLlib's new API stack).

:class:`MaskedActorCritic` reads the env's observation dict: the MLPs see
``observation``, and ``action_mask`` sets the logit of every illegal action to
:data:`HUGE_NEG` before RLlib builds its categorical distribution, in every
forward pass (exploration on the env runners, inference, and the PPO loss).
An illegal action therefore has probability zero when sampling, and adds
nothing to the entropy or the likelihood ratios of the update.

Its layers are those of the SB3 path's policy
(:class:`~flockgym.training.maskable.PlainMaskablePolicy`: separate policy and
value MLPs of ``net_arch``, an action head and a value head, SB3's orthogonal
initialisation) under the same names, so its ``state_dict`` *is* a flockgym
``policy.pth``: checkpoints exported from RLlib load with ``load_policy`` and
play in ``flockgym eval`` and ``play`` like any other.

``model_config["greedy"]`` makes exploration play the most probable legal
action (frozen snapshots with ``opponents.snapshot_play: greedy``).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

HUGE_NEG = -1e8
"""Logit of an illegal action (sb3-contrib's ``HUGE_NEG``): zero probability."""
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """Linear layers of ``sizes``, each followed by the activation (SB3's layout:
    indices 0, 2, 4, ... are the linear layers)."""
    layers: list[nn.Module] = []
    for n_in, n_out in itertools.pairwise(sizes):
        layers += [nn.Linear(n_in, n_out), ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


class Extractor(nn.Module):
    """SB3's ``mlp_extractor``: the policy and value MLPs side by side."""

    def __init__(self, observation_size: int, net_arch: list[int], activation: str) -> None:
        super().__init__()
        self.policy_net = mlp([observation_size, *net_arch], activation)
        self.value_net = mlp([observation_size, *net_arch], activation)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule for flockgym envs (see the module docstring)."""

    def setup(self) -> None:
        config = dict(self.model_config or {})
        net_arch = list(config.get("net_arch", [128, 128]))
        activation = config.get("activation", "tanh")
        self.greedy = bool(config.get("greedy", False))
        size = int(self.observation_space["observation"].shape[0])
        self.mlp_extractor = Extractor(size, net_arch, activation)
        self.action_net = nn.Linear(net_arch[-1], int(self.action_space.n))
        self.value_net = nn.Linear(net_arch[-1], 1)
        self._init_weights()

    def _init_weights(self) -> None:
        """SB3's orthogonal initialisation: gain sqrt(2) in the MLPs, 0.01 for the
        action head (a near-uniform first policy), 1 for the value head."""
        gains = [
            (self.mlp_extractor, np.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ]
        for module, gain in gains:
            for layer in module.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    nn.init.zeros_(layer.bias)

    def masked_logits(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        """Action logits, illegal actions at :data:`HUGE_NEG`."""
        latent = self.mlp_extractor.policy_net(observations["observation"].float())
        logits = self.action_net(latent)
        legal = observations["action_mask"].bool()
        return torch.where(legal, logits, torch.full_like(logits, HUGE_NEG))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits = self.masked_logits(batch[Columns.OBS])
        if self.greedy:
            best = logits.argmax(dim=-1, keepdim=True)
            logits = torch.full_like(logits, HUGE_NEG).scatter(-1, best, 0.0)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        latent = self.mlp_extractor.value_net(batch[Columns.OBS]["observation"].float())
        return self.value_net(latent).squeeze(-1)


def sb3_weights(module: MaskedActorCritic) -> dict[str, torch.Tensor]:
    """The module's weights as a flockgym ``policy.pth`` state dict (detached copies)."""
    return {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}
