"""The learner's masked policy as plain tensor ops, and small actors on float64 weights.

:class:`PlainMaskablePolicy` is sb3-contrib's ``MaskableActorCriticPolicy``
(same modules, same weights, same checkpoints) whose ``forward`` and
``evaluate_actions`` skip ``torch.distributions``: building a
``MaskableCategorical`` twice per call (once unmasked, once masked), checking
its arguments and lazily caching its tensors costs more than the network
itself at the batch sizes of a rollout step, and its masking (normalise the
logits, mask them with ``HUGE_NEG = -1e8``, normalise again with a second
``logsumexp``, then a softmax) and their backward cost more than the network in
a PPO update. Here:

1. ``log_probs = log_softmax(masked)`` and ``probs = softmax(masked)`` with
   every masked logit at ``-inf``: the masked categorical's distribution (a
   softmax does not change when a row is shifted by a constant, so normalising
   first changes nothing), every masked action at a probability of exactly 0,
   as sb3-contrib's ``exp(-1e8)`` is. ``-inf`` rather than ``-1e8`` because the
   vectorised ``exp`` of torch's CPU kernels takes a slow path on huge finite
   negative inputs (several times the cost of the whole softmax);
2. rollout: actions drawn by ``torch.multinomial(probs, 1, True)``
   (``Categorical.sample``) or ``argmax(probs)``, their log probability
   gathered from ``log_probs``;
3. update: the log probability of the taken actions and the entropy in one
   autograd function (:class:`MaskedLogProbEntropy`) whose backward is written
   out (a few products over ``[B, A]``), instead of autograd's chain through
   the masking, two softmaxes and the products.

So with the same weights, inputs and torch generator state it samples the same
actions (up to a draw landing within a float rounding of the boundary between
two actions), and its log probabilities, entropies, values and gradients agree
with sb3-contrib's to float tolerance (``tests/training/test_train_maskable.py``).
Without masks, or with a row that has no legal action at all (which a learner
never gets), it falls back to sb3-contrib's own code.

Three more differences, numerics only: its ``tanh`` layers run numpy's
``tanh`` (:class:`Tanh`; this torch build's CPU ``tanh`` costs seven times as
much), its first layers multiply mostly-zero observations sparsely when they
are wide (:mod:`~.sparse`: four fifths of an Astrobirdz update's products),
and its Adam is torch's fused one (:data:`ADAM`). Each gives the same numbers
as the module it replaces to float rounding, and the same from run to run; the
benchmark's reference path keeps sb3-contrib's own policy.

:func:`float64_logits` is the actor path of such a policy (features, policy
MLP, action head) on a float64 copy of its weights, for the opponents of
self-play and for evaluation, without the sampling machinery of ``predict``.
Float64 makes a row's logits independent of the batch it is computed in, to far
below anything that could change a decision, so batched opponents decide as
one at a time would. It runs in torch, on the threads the run sets (one in
training), not in numpy: numpy's BLAS starts threads of its own for matrices
of this size, and on a busy machine a forward of a few observations through a
256x256 network then cost ten times the CPU time (measured while writing this).
Only its ``tanh`` is numpy's (elementwise: no threads, and a row's value does
not depend on its batch).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

from flockgym.training.sparse import SparseInputLinear, used_inputs_affine

ADAM = {"eps": 1e-5, "fused": True}
"""The policy's Adam: sb3-contrib's ``eps``, and torch's fused implementation,
one kernel for every parameter instead of a dozen small tensor ops per
parameter and step (measured: 0.48 against 1.09 ms a step for the quickstart
network; the weights it gives agree with the per-parameter loop's to float
rounding, 8e-7 relative after 200 steps, and are the same from run to run)."""


ADVICE_WEIGHT_INIT = 4.0
"""An advised policy's first ``advice_weight``: with the action head's logits
near 0 at first, the advised move is e^4 = 55 times as likely as each other
legal move (97% against 2 others, 85% against 10, 36% against 100)."""


class PlainMaskablePolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with its rollout forward and its update's
    evaluation as plain tensor ops (see the module docstring), its ``tanh``
    layers computed by numpy (:class:`Tanh`), its first layers multiplying
    sparse observations sparsely (:class:`~.sparse.SparseInputLinear`) and a
    fused Adam (:data:`ADAM`).

    ``advice_actions > 0`` makes it an advised policy (bots/advice.py): the
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
        if kwargs.get("optimizer_class", torch.optim.Adam) is torch.optim.Adam:
            kwargs["optimizer_kwargs"] = kwargs.get("optimizer_kwargs") or dict(ADAM)
        super().__init__(*args, **kwargs)
        self.optimizer_steps = 0
        """Steps of its optimizer: a fused Adam step changes the weights without
        bumping their version counters, which :class:`Float64Actor` reads."""
        self.optimizer.register_step_post_hook(self._count_step)
        for network in (self.mlp_extractor.policy_net, self.mlp_extractor.value_net):
            for i, module in enumerate(network):
                if type(module) is torch.nn.Tanh:
                    network[i] = Tanh()
            if len(network) and type(network[0]) is torch.nn.Linear:
                network[0] = SparseInputLinear.like(network[0])

    def _build(self, lr_schedule: Any) -> None:
        # Before the optimizer is made (in super()._build), so that it trains the weight.
        if self.advice_actions:
            self.advice_weight = torch.nn.Parameter(torch.tensor(ADVICE_WEIGHT_INIT))
        super()._build(lr_schedule)

    def _count_step(self, *_: Any) -> None:
        self.optimizer_steps += 1
        for module in self.mlp_extractor.modules():
            if isinstance(module, SparseInputLinear):
                module.weights_stepped()

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

    def _legal(self, obs: torch.Tensor, action_masks: Any) -> torch.Tensor | None:
        """:func:`legal_mask`, with every action legal for an advised policy given
        no masks (sb3-contrib's own code, the fallback, knows nothing of advice)."""
        if action_masks is None and self.advice_actions:
            return torch.ones((len(obs), int(self.action_space.n)))
        return legal_mask(action_masks, self.action_space.n)

    def forward(
        self,
        obs: torch.Tensor,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        legal = self._legal(obs, action_masks)
        if legal is None:
            return super().forward(obs, deterministic, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        log_probs, probs = masked_log_probs(self.actor_logits(obs, latent_pi), legal)
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
        legal = self._legal(obs, action_masks)
        if legal is None:
            return super().evaluate_actions(obs, actions, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        logits = self.actor_logits(obs, latent_pi)
        log_prob, entropy = MaskedLogProbEntropy.apply(logits, legal, actions.long().reshape(-1))
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


def legal_mask(masks: Any, num_actions: int) -> torch.Tensor | None:
    """``masks`` (numpy or tensor, bool or 0/1) as a float32 0/1 tensor ``[B, A]``
    (what the rollout buffer stores), or None: no masks, or a row with no legal
    action (which a learner never gets; sb3-contrib's own code gives it a
    uniform distribution of zero entropy, and is left to)."""
    if masks is None:
        return None
    legal = torch.as_tensor(masks, dtype=torch.float32).reshape(-1, num_actions)
    return None if bool((legal.amax(dim=-1) == 0).any()) else legal


def masked_logits(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``logits`` with every masked action at ``-inf`` (``legal`` 0/1 float from
    :func:`legal_mask`). ``1 - 1/legal`` is 0 where legal and ``-inf`` where not:
    two float ops, several times cheaper than ``torch.where`` on a boolean mask."""
    return logits + (1.0 - legal.reciprocal())


def masked_log_probs(
    logits: torch.Tensor, legal: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(log probabilities, probabilities) of the masked categorical over
    ``logits`` ``[B, A]`` (``legal`` from :func:`legal_mask`): ``MaskableCategorical``'s,
    to float tolerance; masked actions at ``-inf`` and exactly 0 (see the module
    docstring)."""
    masked = masked_logits(logits, legal)
    return torch.log_softmax(masked, dim=-1), torch.softmax(masked, dim=-1)


class MaskedLogProbEntropy(torch.autograd.Function):
    """``(log p(action), entropy)`` per row of the masked categorical over
    ``logits`` ``[B, A]`` (``legal`` from :func:`legal_mask`; ``actions`` ``[B]``
    int64, legal ones: the learner's own), with its backward written out. With
    ``lse`` the row's log-normaliser, ``log p = z - lse`` on legal actions, so
    ``H = lse - sum(p * z)`` and

    * ``d log p_a / d z = onehot(a) - p``,
    * ``d H / d z = -p * (z - lse + H)``,

    both 0 at masked actions, whose ``p`` is 0: no ``-inf`` ever multiplies a 0."""

    @staticmethod
    def forward(
        ctx: Any, logits: torch.Tensor, legal: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        masked = masked_logits(logits, legal)
        log_probs, probs = torch.log_softmax(masked, dim=-1), torch.softmax(masked, dim=-1)
        log_prob = log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        # The most probable action has the largest logit z* and p* = exp(z* - lse).
        lse = masked.amax(dim=-1) - probs.amax(dim=-1).log()
        entropy = lse - (probs * logits).sum(dim=-1)
        ctx.save_for_backward(logits, probs, lse, entropy, actions)
        return log_prob, entropy

    @staticmethod
    def backward(
        ctx: Any, grad_log_prob: torch.Tensor, grad_entropy: torch.Tensor
    ) -> tuple[torch.Tensor, None, None]:
        logits, probs, lse, entropy, actions = ctx.saved_tensors
        g_log_prob, g_entropy = grad_log_prob.unsqueeze(-1), grad_entropy.unsqueeze(-1)
        per_row = g_entropy * (lse - entropy).unsqueeze(-1) - g_log_prob
        grad = probs * (per_row - g_entropy * logits)
        grad.scatter_add_(-1, actions.unsqueeze(-1), g_log_prob)
        return grad, None, None


# ---- tanh ------------------------------------------------------------------------------


def numpy_tanh(x: torch.Tensor) -> torch.Tensor:
    """``tanh`` of a CPU float tensor by numpy: several times faster than this torch
    build's CPU ``tanh`` (measured 28 against 218 microseconds for a [512, 128]
    float32 batch), within 1.4 ulp of the exact value where torch's is within 0.5,
    and, being elementwise, the same for a row whatever batch it is in."""
    return torch.from_numpy(np.tanh(x.detach().numpy()))


class NumpyTanhFunction(torch.autograd.Function):
    """:func:`numpy_tanh` with torch's own backward of ``tanh`` (``grad * (1 - y^2)``)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        y = numpy_tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


NUMPY_TANH = True
"""False: :class:`Tanh` computes torch's ``tanh`` (the benchmark's reference path)."""


class Tanh(torch.nn.Tanh):
    """``torch.nn.Tanh`` computed by :func:`numpy_tanh` (for CPU float32 and float64
    tensors; anything else goes to torch). No parameters: the checkpoints of a
    policy are the same with either."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (
            not NUMPY_TANH
            or x.device.type != "cpu"
            or x.dtype not in (torch.float32, torch.float64)
        ):
            return torch.tanh(x)
        if torch.is_grad_enabled() and x.requires_grad:
            return NumpyTanhFunction.apply(x)
        return numpy_tanh(x)


# ---- the actor in float64 -------------------------------------------------------------

FLOAT64_MAX_PARAMETERS = 2_000_000
"""Actor networks up to this many parameters run on a float64 copy of their
weights (:func:`float64_logits`); larger ones in float32, as trained. 0 runs
every actor in float32."""

ACTIVATIONS = {torch.nn.Tanh: numpy_tanh, Tanh: numpy_tanh, torch.nn.ReLU: torch.relu}


class Float64Actor:
    """The float64 weights of a policy's actor path, for one version of them:
    ``layers`` are (weight.T, bias, activation or None) in order."""

    def __init__(self, network: Any) -> None:
        self.network = network
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
        """Torch's in-place version counters of the network's parameters, and its
        optimizer's step count: ``load_state_dict`` and in-place edits bump the
        former, a fused Adam step only the latter (:class:`PlainMaskablePolicy`
        counts them), so the copy knows it is stale."""
        steps = getattr(self.network, "optimizer_steps", 0)
        return (*(p._version for p in self.parameters), steps)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x = torch.as_tensor(np.asarray(observations), dtype=torch.float64)
            x = inputs = x.reshape(len(observations), -1)
            for i, (weight, bias, activation) in enumerate(self.layers):
                x = used_inputs_affine(x, weight, bias) if i == 0 else torch.addmm(bias, x, weight)
                if activation is not None:
                    x = activation(x)
            if self.advice_actions:
                x = x + self.advice_weight * inputs[:, -self.advice_actions :]
            return x.numpy()


def float64_ready(network: Any) -> bool:
    """Whether ``network`` is an MLP policy whose actor :class:`Float64Actor` can
    run, and small enough for it. Asked before every opponent forward: the
    network's structure is read once and kept on it (weights change, layers do not)."""
    if FLOAT64_MAX_PARAMETERS <= 0 or not isinstance(network, MaskableActorCriticPolicy):
        return False
    if "_float64_actor_size" not in network.__dict__:
        network.__dict__["_float64_actor_size"] = float64_actor_size(network)
    size = network.__dict__["_float64_actor_size"]
    return size is not None and size <= FLOAT64_MAX_PARAMETERS


def float64_actor_size(network: MaskableActorCriticPolicy) -> int | None:
    """Parameters of the actor path (policy MLP and action head), or None if it
    is not a plain MLP on flattened observations that :class:`Float64Actor` runs."""
    if not isinstance(network.features_extractor, FlattenExtractor):
        return None
    modules = list(network.mlp_extractor.policy_net)
    if not all(isinstance(m, (torch.nn.Linear, *ACTIVATIONS)) for m in modules):
        return None
    count = sum(p.numel() for p in network.mlp_extractor.policy_net.parameters())
    return count + sum(p.numel() for p in network.action_net.parameters())


def float64_logits(network: Any, observations: np.ndarray) -> np.ndarray:
    """The actor's logits ``[B, A]`` (float64 numpy) of ``observations`` ``[B, D]``,
    from a float64 copy of the weights kept on the network until they change."""
    actor = network.__dict__.get("_float64_actor")
    if actor is None or actor.versions != actor.current_versions():
        actor = Float64Actor(network)
        network.__dict__["_float64_actor"] = actor
    return actor.logits(observations)
