"""The bias-free SVM dual is solved to KKT tolerance, on kernels of every architecture."""

import numpy as np
import pytest
from scipy.optimize import minimize

from rewirekit.certify.ntk import ntk
from rewirekit.certify.svm import (
    fit_one_vs_all,
    fit_svm,
    kkt_multipliers,
    kkt_residual,
    predict_one_vs_all,
    solve_box_qp,
)
from rewirekit.errors import RewireError


def random_problem(seed, m=30, model="gcn"):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, 6))
    upper = np.triu(rng.random((m, m)) < 0.15, 1)
    gram = ntk(model, x, (upper | upper.T).astype(float))
    labels = np.where(x[:, 0] + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    return gram, labels


@pytest.mark.parametrize("model", ["gcn", "sgc", "sage", "gin", "appnp", "mlp"])
@pytest.mark.parametrize("C", [1e-3, 0.05, 10.0])
def test_kkt_residual_and_optimality(model, C):
    gram, labels = random_problem(1, model=model)
    svm = fit_svm(gram, labels, C)
    q = labels[:, None] * gram * labels[None, :]
    assert kkt_residual(q, svm.alpha, C) < 1e-9
    assert svm.alpha.min() >= 0 and svm.alpha.max() <= C
    # complementarity of the multipliers and stationarity: g = u - v
    u, v = kkt_multipliers(q, svm.alpha, C)
    np.testing.assert_allclose(q @ svm.alpha - 1 - u + v, 0, atol=1e-9)
    assert np.all(u * svm.alpha == 0) and np.all(v * (C - svm.alpha) == 0)

    # no point of the box is better (L-BFGS-B from a random start)
    def objective(a):
        return 0.5 * a @ q @ a - a.sum()

    other = minimize(
        objective,
        np.full(len(q), C / 2),
        jac=lambda a: q @ a - 1,
        method="L-BFGS-B",
        bounds=[(0, C)] * len(q),
        options=dict(ftol=1e-15, gtol=1e-12, maxiter=2000),
    )
    assert objective(svm.alpha) <= other.fun + 1e-12 * max(1.0, abs(other.fun))


def test_residual_detects_a_non_solution():
    gram, labels = random_problem(2)
    q = labels[:, None] * gram * labels[None, :]
    alpha = solve_box_qp(q, 0.05)
    perturbed = alpha.copy()
    perturbed[0] = 0.05 - perturbed[0]
    assert kkt_residual(q, alpha, 0.05) < 1e-9 < kkt_residual(q, perturbed, 0.05)


def test_decision_and_one_vs_all():
    gram, labels = random_problem(3)
    svm = fit_svm(gram, labels, 1.0)
    np.testing.assert_allclose(svm.decision(gram), gram @ (svm.alpha * labels))
    classes = np.arange(30) % 3
    svms = fit_one_vs_all(gram, classes, 1.0, 3)
    predicted = predict_one_vs_all(svms, gram)
    scores = np.stack([s.decision(gram) for s in svms], axis=1)
    np.testing.assert_array_equal(predicted, scores.argmax(axis=1))


def test_bad_input():
    gram, labels = random_problem(4)
    with pytest.raises(RewireError, match="-1 or 1"):
        fit_svm(gram, (labels + 1) / 2, 1.0)
    with pytest.raises(RewireError, match="C must be positive"):
        fit_svm(gram, labels, 0.0)
    with pytest.raises(RewireError, match=r"\[m, m\]"):
        fit_svm(gram[:5], labels, 1.0)
    with pytest.raises(RewireError, match="at least one"):
        fit_svm(np.zeros((0, 0)), np.zeros(0), 1.0)
