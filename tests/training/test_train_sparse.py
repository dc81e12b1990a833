"""Wide first layers on mostly-zero observations: the sparse products give the
dense ones' values and gradients to float rounding, the policy built on them
agrees with sb3-contrib's, and anything else takes the dense product."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from flockgym.training.maskable import PlainMaskablePolicy, float64_logits
from flockgym.training.sparse import (
    WIDE_LAYER,
    SparseInputLinear,
    SparseRows,
    used_inputs_affine,
)

WIDE, HIDDEN, ACTIONS = 800, 160, 20  # 128,000 weights in the first layer: a wide one


def sparse_batch(rows: int, nonzero: int, seed: int = 0, size: int = WIDE) -> torch.Tensor:
    """Observations with ``nonzero`` entries per row, some of them shared."""
    rng = np.random.default_rng(seed)
    x = np.zeros((rows, size), dtype=np.float32)
    for row in x:
        row[rng.choice(size, nonzero, replace=False)] = rng.choice([1.0, 0.25, 0.5], nonzero)
    x[:, :3] = 1.0  # a field every observation has
    return torch.as_tensor(x)


def wide_layer(seed: int = 0) -> tuple[torch.nn.Linear, SparseInputLinear]:
    torch.manual_seed(seed)
    dense = torch.nn.Linear(WIDE, HIDDEN)
    assert dense.weight.numel() >= WIDE_LAYER
    return dense, SparseInputLinear.like(dense)


def test_sparse_rows_hold_the_batch_and_its_transpose() -> None:
    x = sparse_batch(9, 12)
    rows = SparseRows.of(x)
    assert rows is not None
    assert torch.equal(rows.matrix.to_dense(), x)
    assert torch.equal(rows.transposed().to_dense(), x.T)
    assert SparseRows.of(torch.ones(4, WIDE)) is None  # dense: the dense product
    assert SparseRows.of(x.double()) is None
    assert SparseRows.of(x.clone().requires_grad_()) is None


@pytest.mark.parametrize("batch", [1, 8, 512])
def test_the_sparse_layer_is_the_dense_one_with_its_gradients(batch: int) -> None:
    dense, sparse = wide_layer()
    assert sparse.weight is dense.weight and sparse.bias is dense.bias
    x = sparse_batch(batch, 30, seed=batch)
    upstream = torch.randn(batch, HIDDEN, generator=torch.Generator().manual_seed(1))
    grads = []
    for layer in (dense, sparse):
        layer.zero_grad()
        out = layer(x)
        (out * upstream).sum().backward()
        grads.append((out.detach(), dense.weight.grad.clone(), dense.bias.grad.clone()))
    for ours, theirs in zip(grads[1], grads[0], strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        torch.testing.assert_close(sparse(x), dense(x), rtol=1e-5, atol=1e-5)
    again = sparse(x)
    assert torch.equal(again, sparse(x))  # the same from call to call


def test_the_transposed_copy_follows_every_change_of_the_weights() -> None:
    dense, sparse = wide_layer()
    x = sparse_batch(4, 20)
    before = sparse(x).detach()
    with torch.no_grad():
        dense.weight.mul_(2.0)  # in place: the version counter moves
    torch.testing.assert_close(sparse(x), dense(x), rtol=1e-5, atol=1e-5)
    optimizer = torch.optim.Adam(dense.parameters(), lr=0.1, fused=True)
    sparse(x).sum().backward()
    optimizer.step()  # a fused step bumps no version counter
    sparse.weights_stepped()
    torch.testing.assert_close(sparse(x), dense(x), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(sparse(x), before)


def test_a_batch_read_twice_is_made_sparse_once() -> None:
    """The policy and value networks read the same observations: one CSR matrix;
    the same tensor changed in place, or another tensor, gets its own."""
    x = sparse_batch(6, 10)
    first = SparseRows.of(x)
    assert first is not None and SparseRows.of(x) is first
    x[0, -1] = 3.0
    changed = SparseRows.of(x)
    assert changed is not first and torch.equal(changed.matrix.to_dense(), x)
    assert SparseRows.of(x.clone()) is not changed


def test_narrow_layers_and_dense_inputs_take_the_dense_product() -> None:
    torch.manual_seed(0)
    narrow = torch.nn.Linear(40, 16)
    x = sparse_batch(5, 3, size=40)
    assert torch.equal(SparseInputLinear.like(narrow)(x), narrow(x))
    dense, sparse = wide_layer()
    full = torch.randn(6, WIDE)
    assert torch.equal(sparse(full), dense(full))


def test_used_inputs_affine_is_the_dense_product_in_float64() -> None:
    torch.manual_seed(0)
    weight = torch.randn(WIDE, HIDDEN, dtype=torch.float64)
    bias = torch.randn(HIDDEN, dtype=torch.float64)
    for rows in (1, 3, 8):
        x = sparse_batch(rows, 25, seed=rows).double()
        expected = torch.addmm(bias, x, weight)
        ours = used_inputs_affine(x, weight, bias)
        torch.testing.assert_close(ours, expected, rtol=0, atol=1e-12)
    full = torch.randn(2, WIDE, dtype=torch.float64)
    assert torch.equal(used_inputs_affine(full, weight, bias), torch.addmm(bias, full, weight))


def twin_policies() -> tuple[MaskableActorCriticPolicy, PlainMaskablePolicy]:
    kwargs = {
        "observation_space": spaces.Box(-np.inf, np.inf, (WIDE,), np.float32),
        "action_space": spaces.Discrete(ACTIONS),
        "lr_schedule": lambda _: 1e-3,
        "net_arch": [HIDDEN, 32],
    }
    torch.manual_seed(0)
    reference = MaskableActorCriticPolicy(**kwargs)
    plain = PlainMaskablePolicy(**kwargs)
    plain.load_state_dict(reference.state_dict())
    return reference, plain


def test_a_policy_on_wide_sparse_observations_agrees_with_sb3_contrib() -> None:
    """Rollout forward (the same sampled actions), evaluation, gradients, and the
    float64 actor of opponents: sb3-contrib's numbers to float tolerance."""
    reference, plain = twin_policies()
    assert all(
        type(net[0]) is SparseInputLinear
        for net in (plain.mlp_extractor.policy_net, plain.mlp_extractor.value_net)
    )
    observations = sparse_batch(64, 30, seed=3)
    rng = np.random.default_rng(3)
    masks = rng.random((64, ACTIONS)) < 0.4
    masks[:, 0] = True
    for seed in range(3):
        outputs = []
        for policy in (reference, plain):
            torch.manual_seed(seed)
            with torch.no_grad():
                outputs.append(policy(observations, False, masks))
        assert torch.equal(outputs[0][0], outputs[1][0])
        torch.testing.assert_close(outputs[1][1], outputs[0][1], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(outputs[1][2], outputs[0][2], rtol=1e-5, atol=1e-5)
    actions = torch.as_tensor(masks.argmax(axis=1))
    results, gradients = [], []
    for policy in (reference, plain):
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(
            observations, actions, torch.as_tensor(masks, dtype=torch.float32)
        )
        (values.pow(2).mean() - log_prob.mean() - 0.01 * entropy.mean()).backward()
        results.append((values, log_prob, entropy))
        gradients.append({name: p.grad.clone() for name, p in policy.named_parameters()})
    for ours, theirs in zip(results[1], results[0], strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
    for name, theirs in gradients[0].items():
        torch.testing.assert_close(gradients[1][name], theirs, rtol=1e-4, atol=1e-6, msg=name)
    with torch.no_grad():
        features = reference.extract_features(observations, reference.pi_features_extractor)
        expected = reference.action_net(reference.mlp_extractor.forward_actor(features))
    np.testing.assert_allclose(
        float64_logits(plain, observations[:5].numpy()), expected[:5].numpy(), rtol=1e-5, atol=1e-5
    )
