"""The closed-form NTKs against the empirical NTK of very wide finite networks.

Each finite network is written with the NTK parametrisation (standard normal weights, a
``1/sqrt(width)`` factor after the first layer, ``sqrt(2)``-scaled ReLU); its empirical
kernel ``sum_p lr_p J_p J_p^T``, averaged over a few initialisations, converges to the
closed form as the width grows. The tolerance is set so that a wrong normalisation, depth or
skip fails it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from rewirekit.certify.ntk import Architecture, diffusion, ntk, relu_expectations
from rewirekit.errors import RewireError

TOLERANCE = 0.04  # relative Frobenius error that every right formula meets here


def small_graph(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Eight nodes with degrees 1 to 5 (so row and symmetric normalisation differ)."""
    rng = np.random.default_rng(seed)
    edges = [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2), (2, 3), (5, 6), (6, 7), (3, 7)]
    adj = np.zeros((8, 8))
    for i, j in edges:
        adj[i, j] = adj[j, i] = 1.0
    return rng.normal(size=(8, 3)), adj


def _phi(h: torch.Tensor, linear: bool) -> torch.Tensor:
    return h if linear else math.sqrt(2.0) * torch.relu(h)


def _gcn_forward(arch, x, s, params, width):
    """GCN/SGC/SAGE of depth L (+ skips); returns outputs and each parameter's lr factor."""
    alpha = arch.skip_alpha
    eye = torch.eye(len(s), dtype=x.dtype)
    mix = (1 - alpha) * s + alpha * eye if arch.skip == "alpha" else s
    h = mix @ x @ params[0]
    factors = [(1 - alpha) ** (-2 * arch.depth) if arch.skip == "alpha" else 1.0]
    for layer in range(1, arch.depth + 1):
        weight, skip = params[2 * layer - 1], params[2 * layer]
        out = s @ _phi(h, arch.linear) @ weight / math.sqrt(width)
        if arch.skip == "pc":
            out = out + s @ x @ skip
        elif arch.skip == "alpha":
            out = (1 - alpha) * out + alpha * x @ skip
        factor = (1 - alpha) ** (-2 * (arch.depth - layer)) if arch.skip == "alpha" else 1.0
        factors += [factor, factor if arch.skip else 0.0]
        h = out
    return h[:, 0], factors


def _make_params(arch, d, width, gen):
    shapes = [(d, width)]
    for layer in range(1, arch.depth + 1):
        cols = 1 if layer == arch.depth else width
        shapes += [(width, cols), (d, cols)]
    if arch.model in ("gin", "appnp", "mlp"):
        shapes = [(d, width), (width,), (width, 1), (1,)]
    return [torch.randn(shape, generator=gen, dtype=torch.float64) for shape in shapes]


def _forward(arch, x, s, params, width):
    if arch.model in ("gcn", "sgc", "sage"):
        return _gcn_forward(arch, x, s, params, width)
    w1, b1, w2, b2 = params
    if arch.model == "gin":
        out = _phi(s @ x @ w1, False) @ w2 / math.sqrt(width)
        return out[:, 0], [1.0, 0.0, 1.0, 0.0]
    hidden = _phi(x @ w1 + b1, False) @ w2 / math.sqrt(width) + b2
    return (s @ hidden)[:, 0], [1.0, 1.0, 1.0, 1.0]


def empirical_ntk(arch, x, adj, width, seeds=4):
    """Mean over ``seeds`` initialisations of the finite network's NTK."""
    s = torch.from_numpy(diffusion(arch, adj))
    xt = torch.from_numpy(x)
    total = np.zeros((len(x), len(x)))
    for seed in range(seeds):
        gen = torch.Generator().manual_seed(seed)
        params = [p.requires_grad_() for p in _make_params(arch, x.shape[1], width, gen)]
        out, factors = _forward(arch, xt, s, params, width)
        rows = [
            torch.autograd.grad(out[i], params, retain_graph=True, materialize_grads=True)
            for i in range(len(x))
        ]
        for p, factor in enumerate(factors):
            if factor:
                jac = torch.stack([row[p].reshape(-1) for row in rows]).numpy()
                total += factor * jac @ jac.T
    return total / seeds


def relative_error(kernel, reference):
    return np.linalg.norm(kernel - reference) / np.linalg.norm(reference)


CASES = {
    "gcn": (Architecture("gcn"), 8192),
    "gcn_sym": (Architecture("gcn", normalization="sym"), 8192),
    "gcn_depth2": (Architecture("gcn", depth=2), 1024),
    "sgc_depth2": (Architecture("sgc", depth=2), 512),
    "sage": (Architecture("sage"), 8192),
    "gin": (Architecture("gin"), 8192),
    "appnp": (Architecture("appnp", appnp_alpha=0.3), 8192),
    "mlp": (Architecture("mlp"), 8192),
    "gcn_skip_pc": (Architecture("gcn", skip="pc"), 8192),
    "gcn_skip_alpha_depth2": (Architecture("gcn", depth=2, skip="alpha", skip_alpha=0.3), 1024),
}

# A plausible wrong formula for each case: the closed form of a different architecture.
WRONG = {
    "gcn": Architecture("gcn", normalization="sym"),
    "gcn_sym": Architecture("gcn"),
    "gcn_depth2": Architecture("gcn", depth=1),
    "sgc_depth2": Architecture("gcn", depth=2),
    "sage": Architecture("gcn"),
    "gin": Architecture("gcn", normalization="sym"),
    "appnp": Architecture("appnp", appnp_alpha=0.1),
    "mlp": Architecture("appnp", appnp_alpha=0.9),
    "gcn_skip_pc": Architecture("gcn"),
    "gcn_skip_alpha_depth2": Architecture("gcn", depth=2, skip="alpha", skip_alpha=0.1),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_closed_form_matches_wide_network(case):
    arch, width = CASES[case]
    x, adj = small_graph()
    empirical = empirical_ntk(arch, x, adj, width)
    assert relative_error(ntk(arch, x, adj), empirical) < TOLERANCE
    # the same tolerance rejects a wrong formula
    assert relative_error(ntk(WRONG[case], x, adj), empirical) > TOLERANCE


def test_relu_expectations_match_monte_carlo():
    rng = np.random.default_rng(0)
    cov = np.array([[2.0, -0.7], [-0.7, 0.5]])
    draws = rng.multivariate_normal(np.zeros(2), cov, size=400_000)
    act = math.sqrt(2.0) * np.maximum(draws, 0.0)
    der = math.sqrt(2.0) * (draws > 0)
    expect, deriv = relu_expectations(cov)
    np.testing.assert_allclose(expect, act.T @ act / len(draws), rtol=0.02)
    np.testing.assert_allclose(deriv, der.T @ der / len(draws), rtol=0.02)


def test_kernel_is_symmetric_positive_semidefinite():
    x, adj = small_graph(1)
    for model in ("gcn", "sgc", "sage", "gin", "appnp", "mlp"):
        kernel = ntk(model, x, adj)
        np.testing.assert_array_equal(kernel, kernel.T)
        assert np.linalg.eigvalsh(kernel).min() > -1e-9 * np.abs(kernel).max()


def test_bad_input_raises():
    x, adj = small_graph()
    with pytest.raises(RewireError, match="unknown architecture"):
        ntk("gat", x, adj)
    with pytest.raises(RewireError, match="symmetric"):
        ntk("gcn", x, np.triu(adj))
    with pytest.raises(RewireError, match=r"\[n, n\]"):
        ntk("gcn", x[:5], adj)
    with pytest.raises(RewireError, match="skip"):
        Architecture("gin", skip="pc")
    with pytest.raises(RewireError, match="finite"):
        ntk("gcn", np.full_like(x, np.nan), adj)
