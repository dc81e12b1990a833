"""The learner's masked policy as plain tensor ops samples the same actions as
sb3-contrib's, with the same log probabilities, entropies, values and gradients;
the float64 actor gives torch's logits and follows the weights as they train."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from flockgym.training.maskable import (
    MaskedLogProbEntropy,
    PlainMaskablePolicy,
    float64_logits,
    float64_ready,
    legal_mask,
)

OBSERVATION, ACTIONS, BATCH = 40, 30, 64


def twin_policies(
    activation=torch.nn.Tanh,
) -> tuple[MaskableActorCriticPolicy, PlainMaskablePolicy]:
    kwargs = {
        "observation_space": spaces.Box(-np.inf, np.inf, (OBSERVATION,), np.float32),
        "action_space": spaces.Discrete(ACTIONS),
        "lr_schedule": lambda _: 1e-3,
        "net_arch": [32, 16],
        "activation_fn": activation,
    }
    torch.manual_seed(0)
    reference = MaskableActorCriticPolicy(**kwargs)
    plain = PlainMaskablePolicy(**kwargs)
    plain.load_state_dict(reference.state_dict())
    return reference, plain


def batch(seed: int = 1) -> tuple[torch.Tensor, np.ndarray]:
    rng = np.random.default_rng(seed)
    observations = torch.as_tensor(rng.normal(size=(BATCH, OBSERVATION)), dtype=torch.float32)
    masks = rng.random((BATCH, ACTIONS)) < 0.3
    masks[np.arange(BATCH), rng.integers(ACTIONS, size=BATCH)] = True  # one legal at least
    masks[0] = False
    masks[0, 7] = True  # a row with a single legal action
    return observations, masks


@pytest.mark.parametrize("deterministic", [False, True])
def test_forward_samples_the_same_actions(deterministic: bool) -> None:
    reference, plain = twin_policies()
    observations, masks = batch()
    for seed in range(5):
        torch.manual_seed(seed)
        with torch.no_grad():
            ref_actions, ref_values, ref_log_prob = reference(observations, deterministic, masks)
        torch.manual_seed(seed)
        with torch.no_grad():
            actions, values, log_prob = plain(observations, deterministic, masks)
        assert torch.equal(actions, ref_actions)
        assert masks[np.arange(BATCH), actions.numpy()].all()
        torch.testing.assert_close(values, ref_values)
        torch.testing.assert_close(log_prob, ref_log_prob)
    assert actions[0] == 7 and log_prob[0] == pytest.approx(0.0, abs=1e-6)


def test_evaluation_and_gradients_agree() -> None:
    reference, plain = twin_policies()
    observations, masks = batch(2)
    actions = torch.as_tensor(
        [np.random.default_rng(r).choice(np.flatnonzero(m)) for r, m in enumerate(masks)]
    )
    mask_tensor = torch.as_tensor(masks, dtype=torch.float32)  # as the rollout buffer holds it
    results, gradients = [], []
    for policy in (reference, plain):
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(observations, actions, mask_tensor)
        loss = -(log_prob * torch.linspace(-1, 1, BATCH)).mean() + values.pow(2).mean()
        loss = loss - 0.01 * entropy.mean()
        loss.backward()
        results.append((values, log_prob, entropy))
        gradients.append({name: p.grad.clone() for name, p in policy.named_parameters()})
    for ours, theirs in zip(results[1], results[0], strict=True):
        torch.testing.assert_close(ours, theirs)
    assert gradients[0].keys() == gradients[1].keys()
    for name in gradients[0]:
        torch.testing.assert_close(gradients[1][name], gradients[0][name], msg=name)
    assert results[1][2][0].item() == pytest.approx(0.0, abs=1e-6)  # one legal action: no entropy


def test_written_out_backward_is_the_gradient() -> None:
    """The hand-written backward of the log probability and entropy is their
    gradient (torch's gradcheck in float64, with masked actions and a row with a
    single legal action)."""
    rng = np.random.default_rng(4)
    logits = torch.as_tensor(rng.normal(size=(6, 9)) * 3, dtype=torch.float64)
    masks = rng.random((6, 9)) < 0.5
    masks[:, 2] = True
    masks[0] = False
    masks[0, 4] = True
    legal = legal_mask(masks, 9)
    actions = torch.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])

    def log_prob_and_entropy(z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return MaskedLogProbEntropy.apply(z, legal, actions)

    assert torch.autograd.gradcheck(log_prob_and_entropy, (logits.requires_grad_(),))
    logits.grad = None
    log_prob, entropy = log_prob_and_entropy(logits)
    (log_prob.sum() + entropy.sum()).backward()
    assert torch.all(logits.grad[~torch.as_tensor(masks)] == 0)  # masked actions: no gradient


def test_a_row_with_no_legal_action_is_left_to_sb3_contrib() -> None:
    reference, plain = twin_policies()
    observations, masks = batch(5)
    masks[3] = False
    actions = torch.as_tensor(masks.argmax(axis=1))
    for mask in (masks, torch.as_tensor(masks, dtype=torch.float32)):
        ours = plain.evaluate_actions(observations, actions, mask)
        theirs = reference.evaluate_actions(observations, actions, torch.as_tensor(masks))
        for a, b in zip(ours, theirs, strict=True):
            torch.testing.assert_close(a, b)
    assert ours[2][3].item() == 0.0  # sb3-contrib: a uniform row of no entropy
    torch.manual_seed(6)
    expected = reference(observations, False, masks)
    torch.manual_seed(6)
    for a, b in zip(plain(observations, False, masks), expected, strict=True):
        torch.testing.assert_close(a, b)


def test_without_masks_it_is_sb3_contribs_own() -> None:
    reference, plain = twin_policies()
    observations, _ = batch()
    torch.manual_seed(3)
    expected = reference(observations)
    torch.manual_seed(3)
    for ours, theirs in zip(plain(observations), expected, strict=True):
        torch.testing.assert_close(ours, theirs)


@pytest.mark.parametrize("activation", [torch.nn.Tanh, torch.nn.ReLU])
def test_float64_actor_gives_torchs_logits(activation) -> None:
    _, plain = twin_policies(activation)
    observations, _ = batch()
    assert float64_ready(plain)
    with torch.no_grad():
        features = plain.extract_features(observations, plain.pi_features_extractor)
        expected = plain.action_net(plain.mlp_extractor.forward_actor(features)).numpy()
    logits = float64_logits(plain, observations.numpy())
    assert logits.dtype == np.float64 and logits.shape == (BATCH, ACTIONS)
    np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)
    one_at_a_time = np.vstack([float64_logits(plain, row[None]) for row in observations.numpy()])
    np.testing.assert_allclose(one_at_a_time, logits, rtol=1e-12, atol=1e-12)


def test_float64_actor_follows_the_weights_as_they_train() -> None:
    _, plain = twin_policies()
    observations, masks = batch()
    before = float64_logits(plain, observations.numpy())
    _, log_prob, _ = plain.evaluate_actions(
        observations, torch.as_tensor(masks.argmax(axis=1)), torch.as_tensor(masks)
    )
    plain.optimizer.zero_grad()
    (-log_prob.mean()).backward()
    plain.optimizer.step()
    after = float64_logits(plain, observations.numpy())
    assert not np.allclose(before, after)
    with torch.no_grad():
        features = plain.extract_features(observations, plain.pi_features_extractor)
        expected = plain.action_net(plain.mlp_extractor.forward_actor(features)).numpy()
    np.testing.assert_allclose(after, expected, rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        plain.load_state_dict(twin_policies()[0].state_dict())
    np.testing.assert_allclose(float64_logits(plain, observations.numpy()), before)


def test_float64_readiness_is_read_once_and_follows_the_size_limit(monkeypatch) -> None:
    """The actor's structure is read once per network; the size limit is applied
    on every call (the benchmark turns float64 off for today's path)."""
    from flockgym.training import maskable

    _, plain = twin_policies()
    assert float64_ready(plain)
    assert plain.__dict__["_float64_actor_size"] == (OBSERVATION * 32 + 32) + (32 * 16 + 16) + (
        16 * ACTIONS + ACTIONS
    )
    monkeypatch.setattr(maskable, "FLOAT64_MAX_PARAMETERS", 100)
    assert not float64_ready(plain)
    monkeypatch.setattr(maskable, "FLOAT64_MAX_PARAMETERS", 0)
    assert not float64_ready(plain)


def test_tanh_layers_run_in_numpy_with_torchs_gradient(monkeypatch) -> None:
    """The policy's tanh layers are numpy's tanh (torch's to float tolerance), with
    the gradient of tanh, and the policy keeps sb3-contrib's weights and names."""
    from flockgym.training import maskable
    from flockgym.training.maskable import NumpyTanhFunction, Tanh

    reference, plain = twin_policies()
    tanh_layers = [m for m in plain.mlp_extractor.modules() if isinstance(m, torch.nn.Tanh)]
    assert tanh_layers and all(type(m) is Tanh for m in tanh_layers)
    assert plain.state_dict().keys() == reference.state_dict().keys()
    x = torch.as_tensor(np.random.default_rng(8).normal(size=(7, 5)) * 3)
    assert torch.equal(Tanh()(x), torch.from_numpy(np.tanh(x.numpy())))
    torch.testing.assert_close(Tanh()(x.float()), torch.tanh(x.float()))
    assert torch.autograd.gradcheck(NumpyTanhFunction.apply, (x.clone().requires_grad_(),))
    monkeypatch.setattr(maskable, "NUMPY_TANH", False)  # the benchmark's reference path
    assert torch.equal(Tanh()(x.float()), torch.tanh(x.float()))
    monkeypatch.undo()
    with torch.no_grad():
        torch.testing.assert_close(
            plain.predict_values(x.new_ones((3, OBSERVATION)).float()),
            reference.predict_values(x.new_ones((3, OBSERVATION)).float()),
        )


def test_the_adam_is_fused_and_checkpoints_from_before_it_still_load() -> None:
    """The policy's Adam is torch's fused one with sb3-contrib's eps; an optimizer
    state saved before (``fused: None``) passes the checkpoint checks and loads."""
    from flockgym.training.learners import optimizer_problems

    reference, plain = twin_policies()
    group = plain.optimizer.param_groups[0]
    assert group["fused"] is True and group["eps"] == 1e-5
    observations, masks = batch()
    for policy in (reference, plain):
        _, log_prob, _ = policy.evaluate_actions(
            observations, torch.as_tensor(masks.argmax(axis=1)), torch.as_tensor(masks)
        )
        policy.optimizer.zero_grad()
        (-log_prob.mean()).backward()
        policy.optimizer.step()
    older = reference.optimizer.state_dict()
    assert older["param_groups"][0]["fused"] is None
    assert optimizer_problems(older, plain) == []
    plain.optimizer.load_state_dict(older)
    for parameter, theirs in zip(plain.parameters(), reference.parameters(), strict=True):
        torch.testing.assert_close(parameter, theirs)  # one step of each Adam: the same
    older["param_groups"][0]["fused"] = "yes"
    assert "fused" in optimizer_problems(older, plain)[0]
