"""The learner's masked policy as plain tensor ops, and small actors on float64 weights.

:class:`PlainMaskablePolicy` is sb3-contrib's ``MaskableActorCriticPolicy``
(same modules, same weights, same checkpoints) whose ``forward`` and
``evaluate_actions`` skip ``torch.distributions``: building a
``MaskableCategorical`` twice per call (once unmasked, once masked), checking
its arguments and lazily caching its tensors costs more than the network
itself at the batch sizes of a rollout step. The same numbers come out of a
few tensor ops, in the same order as sb3-contrib computes them:

1. ``normalised = logits - logsumexp(logits)`` (the unmasked ``Categorical``),
2. ``masked = where(mask, normalised, -1e8)`` (``apply_masking``'s ``HUGE_NEG``),
3. ``log_probs = masked - logsumexp(masked)`` and ``probs = softmax(log_probs)``,
4. actions drawn by ``torch.multinomial(probs, 1, True)`` (``Categorical.sample``)
   or ``argmax(probs)``, their log probability gathered from ``log_probs``, and
   the entropy ``-sum(where(mask, log_probs * probs, 0))``.

So with the same weights, inputs and torch generator state it samples the same
actions, and its log probabilities, entropies, values and gradients agree with
sb3-contrib's to float tolerance (``tests/training/test_train_maskable.py``).
Without masks it falls back to sb3-contrib's own code.

:func:`float64_logits` is the actor path of such a policy (features, policy
MLP, action head) on a float64 copy of its weights, for the opponents of
self-play and for evaluation, without the sampling machinery of ``predict``.
Float64 makes a row's logits independent of the batch it is computed in, to far
below anything that could change a decision, so batched opponents decide as
one at a time would. It runs in torch, on the threads the run sets (one in
training), not in numpy: numpy's BLAS starts threads of its own for matrices
of this size, and on a busy machine a forward of a few observations through a
256x256 network then cost ten times the CPU time (measured while writing this).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

HUGE_NEG = -1e8
"""sb3-contrib's logit of a masked action (``MaskableCategorical.apply_masking``)."""


ADVICE_WEIGHT_INIT = 4.0
"""An advised policy's first ``advice_weight``: with the action head's logits
near 0 at first, the advised move is e^4 = 55 times as likely as each other
legal move (97% against 2 others, 85% against 10, 36% against 100)."""


class PlainMaskablePolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with its rollout forward and its update's
    evaluation as plain tensor ops (see the module docstring).

    ``advice_actions > 0`` makes it an advised policy (training/advice.py): the
    last ``advice_actions`` inputs are an advisor's one-hot move, and besides
    reading them through the MLP the policy adds them to its action logits times
    a learnt scalar ``advice_weight`` (:data:`ADVICE_WEIGHT_INIT` at first). The
    skip matters: copying a one-hot of hundreds of actions through hidden layers
    narrower than that is something an MLP cannot do exactly, while one weight
    says "follow the advice this strongly" and the MLP learns where to overrule
    it. It starts high, so that the untrained policy plays mostly the advisor's
    moves (residual learning starts at the base controller): a weight started
    at 0 moves by about the learning rate per Adam step and would take
    thousands of updates to get there."""

    def __init__(self, *args: Any, advice_actions: int = 0, **kwargs: Any) -> None:
        object.__setattr__(self, "advice_actions", int(advice_actions))
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        # Before the optimizer is made (in super()._build), so that it trains the weight.
        if self.advice_actions:
            self.advice_weight = torch.nn.Parameter(torch.tensor(ADVICE_WEIGHT_INIT))
        super()._build(lr_schedule)

    def actor_logits(self, obs: torch.Tensor, latent_pi: torch.Tensor) -> torch.Tensor:
        """The action logits: the action head, plus the weighted advice if advised."""
        logits = self.action_net(latent_pi)
        if self.advice_actions:
            advice = obs.reshape(len(obs), -1)[:, -self.advice_actions :].to(logits.dtype)
            logits = logits + self.advice_weight * advice
        return logits

    def get_distribution(self, obs: torch.Tensor, action_masks: np.ndarray | None = None) -> Any:
        """sb3-contrib's (``predict`` reads it), with the advice in the logits."""
        if not self.advice_actions:
            return super().get_distribution(obs, action_masks)
        features = super(MaskableActorCriticPolicy, self).extract_features(
            obs, self.pi_features_extractor
        )
        logits = self.actor_logits(obs, self.mlp_extractor.forward_actor(features))
        distribution = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def forward(
        self,
        obs: torch.Tensor,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if action_masks is None and not self.advice_actions:
            return super().forward(obs, deterministic)
        latent_pi, latent_vf = self._latents(obs)
        logits = self.actor_logits(obs, latent_pi)
        log_probs, probs, _ = masked_log_probs(logits, all_legal(logits, action_masks))
        if deterministic:
            actions = torch.argmax(probs, dim=1)
        else:
            actions = torch.multinomial(probs, 1, True).T.reshape(-1)
        log_prob = log_probs.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        return actions, self.value_net(latent_vf), log_prob

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        if action_masks is None and not self.advice_actions:
            return super().evaluate_actions(obs, actions)
        latent_pi, latent_vf = self._latents(obs)
        logits = self.actor_logits(obs, latent_pi)
        log_probs, probs, mask = masked_log_probs(logits, all_legal(logits, action_masks))
        log_prob = log_probs.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        entropy = -torch.where(mask, log_probs * probs, torch.zeros((), dtype=probs.dtype)).sum(-1)
        return self.value_net(latent_vf), log_prob, entropy

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return (
            self.mlp_extractor.forward_actor(pi_features),
            self.mlp_extractor.forward_critic(vf_features),
        )


def all_legal(logits: torch.Tensor, masks: Any) -> Any:
    """``masks``, or every action legal when there are none."""
    return torch.ones(logits.shape, dtype=torch.bool) if masks is None else masks


def masked_log_probs(
    logits: torch.Tensor, masks: Any
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(log probabilities, probabilities, boolean mask) of the masked categorical
    over ``logits`` ``[B, A]``, computed as ``MaskableCategorical`` computes them."""
    mask = torch.as_tensor(masks, dtype=torch.bool).reshape(logits.shape)
    normalised = logits - logits.logsumexp(dim=-1, keepdim=True)
    masked = torch.where(mask, normalised, torch.tensor(HUGE_NEG, dtype=logits.dtype))
    log_probs = masked - masked.logsumexp(dim=-1, keepdim=True)
    return log_probs, torch.softmax(log_probs, dim=-1), mask


# ---- the actor in float64 -------------------------------------------------------------

FLOAT64_MAX_PARAMETERS = 2_000_000
"""Actor networks up to this many parameters run on a float64 copy of their
weights (:func:`float64_logits`); larger ones in float32, as trained. 0 runs
every actor in float32."""

ACTIVATIONS = {torch.nn.Tanh: torch.tanh, torch.nn.ReLU: torch.relu}


class Float64Actor:
    """The float64 weights of a policy's actor path, for one version of them:
    ``layers`` are (weight.T, bias, activation or None) in order."""

    def __init__(self, network: Any) -> None:
        self.parameters = list(network.parameters())
        self.versions = self.current_versions()
        self.layers: list[tuple[torch.Tensor, torch.Tensor, Any]] = []
        modules = [*network.mlp_extractor.policy_net, network.action_net]
        with torch.no_grad():
            for module in modules:
                if isinstance(module, torch.nn.Linear):
                    weight = module.weight.detach().double().T.contiguous()
                    self.layers.append((weight, module.bias.detach().double(), None))
                else:
                    weight, bias, _ = self.layers[-1]
                    self.layers[-1] = (weight, bias, ACTIVATIONS[type(module)])
            self.advice_actions = getattr(network, "advice_actions", 0)
            weight = network.advice_weight.detach() if self.advice_actions else 0.0
            self.advice_weight = float(weight)

    def current_versions(self) -> tuple[int, ...]:
        """Torch's in-place version counters of the network's parameters: an
        optimiser step or ``load_state_dict`` changes them, so the copy knows it
        is stale."""
        return tuple(p._version for p in self.parameters)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observations), dtype=torch.float64)
            x = inputs = x.reshape(len(observations), -1)
            for weight, bias, activation in self.layers:
                x = torch.addmm(bias, x, weight)
                if activation is not None:
                    x = activation(x)
            if self.advice_actions:
                x = x + self.advice_weight * inputs[:, -self.advice_actions :]
            return x.numpy()


def float64_ready(network: Any) -> bool:
    """Whether ``network`` is an MLP policy whose actor :class:`Float64Actor` can
    run, and small enough for it."""
    if FLOAT64_MAX_PARAMETERS <= 0 or not isinstance(network, MaskableActorCriticPolicy):
        return False
    if not isinstance(network.features_extractor, FlattenExtractor):
        return False
    modules = list(network.mlp_extractor.policy_net)
    if not all(isinstance(m, (torch.nn.Linear, *ACTIVATIONS)) for m in modules):
        return False
    count = sum(p.numel() for p in network.mlp_extractor.policy_net.parameters())
    count += sum(p.numel() for p in network.action_net.parameters())
    return count <= FLOAT64_MAX_PARAMETERS


def float64_logits(network: Any, observations: np.ndarray) -> np.ndarray:
    """The actor's logits ``[B, A]`` (float64 numpy) of ``observations`` ``[B, D]``,
    from a float64 copy of the weights kept on the network until they change."""
    actor = network.__dict__.get("_float64_actor")
    if actor is None or actor.versions != actor.current_versions():
        actor = Float64Actor(network)
        network.__dict__["_float64_actor"] = actor
    return actor.logits(observations)
