r"""The kernel SVM without bias that QPCert certifies, solved to KKT tolerance.

With the kernel :math:`\Theta` on the :math:`m` labelled nodes and labels
:math:`y \in \{-1, 1\}^m`, the dual is the box-constrained QP

.. math::
    \min_{0 \le \alpha \le C}\ \tfrac12 \alpha^\top Q \alpha - \mathbf 1^\top \alpha, \qquad
    Q = \operatorname{diag}(y)\,\Theta\,\operatorname{diag}(y),

and a node :math:`t` is predicted by the sign of :math:`f(t) = \sum_j \alpha_j y_j
\Theta_{tj}`. Its KKT conditions, with :math:`g = Q\alpha - \mathbf 1`, are
:math:`g_i \ge 0` where :math:`\alpha_i = 0`, :math:`g_i \le 0` where :math:`\alpha_i = C` and
:math:`g_i = 0` in between; the multipliers of the two bounds are :math:`u = g^+` and
:math:`v = g^-`. The solver is a primal-dual active-set method (Hintermüller, Ito and Kunisch,
SIAM J. Optim. 2002), which ends with an exact linear solve on the free set; accelerated
projected gradient steps take over if the active sets cycle. Multiclass problems are fit
one-vs-all, one binary SVM per class, and predict the class of the largest :math:`f_k(t)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rewirekit.errors import RewireError

#: Default bound on the KKT residual :func:`kkt_residual` of a fit.
KKT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class KernelSVM:
    """A fitted binary SVM: dual variables ``alpha`` on labels ``labels`` in {-1, 1}."""

    alpha: np.ndarray
    labels: np.ndarray
    C: float

    def decision(self, kernel_rows: np.ndarray) -> np.ndarray:
        """:math:`f(t) = \\sum_j \\alpha_j y_j \\Theta_{tj}` for rows ``[t, m]`` of the kernel."""
        return np.asarray(kernel_rows) @ (self.alpha * self.labels)


def fit_svm(
    gram: np.ndarray, labels: np.ndarray, C: float, *, tol: float = KKT_TOLERANCE
) -> KernelSVM:
    """Fit the SVM dual on the labelled kernel ``gram`` ``[m, m]`` and labels in {-1, 1}.

    Raises:
        RewireError: for labels other than -1/1, a non-square kernel or ``C <= 0``.
    """
    gram, labels = _check(gram, labels, C)
    q = labels[:, None] * gram * labels[None, :]
    alpha = solve_box_qp(q, C, tol=tol)
    return KernelSVM(alpha=alpha, labels=labels, C=float(C))


def fit_one_vs_all(
    gram: np.ndarray, classes: np.ndarray, C: float, num_classes: int, *, tol: float = KKT_TOLERANCE
) -> list[KernelSVM]:
    """One binary SVM per class ``k``, with labels +1 on class ``k`` and -1 elsewhere."""
    classes = np.asarray(classes)
    return [
        fit_svm(gram, np.where(classes == k, 1.0, -1.0), C, tol=tol) for k in range(num_classes)
    ]


def predict_one_vs_all(svms: list[KernelSVM], kernel_rows: np.ndarray) -> np.ndarray:
    """The class of the largest one-vs-all decision value for each row ``[t, m]``."""
    scores = np.stack([svm.decision(kernel_rows) for svm in svms], axis=-1)
    return np.asarray(scores.argmax(axis=-1))


def kkt_residual(q: np.ndarray, alpha: np.ndarray, C: float) -> float:
    """:math:`\\max_i |\\alpha_i - \\Pi_{[0,C]}(\\alpha_i - g_i)|`: zero exactly at the optimum."""
    grad = q @ alpha - 1.0
    return float(np.max(np.abs(alpha - np.clip(alpha - grad, 0.0, C)), initial=0.0))


def kkt_multipliers(q: np.ndarray, alpha: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray]:
    """The multipliers ``(u, v)`` of ``alpha >= 0`` and ``alpha <= C`` at a solution.

    ``u_i = max(g_i, 0)`` where :math:`\\alpha_i = 0` and ``v_i = max(-g_i, 0)`` where
    :math:`\\alpha_i = C`; both are zero elsewhere.
    """
    grad = q @ alpha - 1.0
    u = np.where(alpha <= 0.0, np.maximum(grad, 0.0), 0.0)
    v = np.where(alpha >= C, np.maximum(-grad, 0.0), 0.0)
    return u, v


def solve_box_qp(q: np.ndarray, C: float, *, tol: float = KKT_TOLERANCE) -> np.ndarray:
    """Minimise ``1/2 a^T q a - sum(a)`` over ``0 <= a <= C`` to KKT residual ``tol``.

    Raises:
        RuntimeError: if neither the active-set method nor projected gradient reaches
            ``tol`` (an indefinite ``q``, for instance).
    """
    start = np.zeros(len(q))
    for _ in range(4):
        alpha = _active_set(q, C, start)
        if alpha is not None and kkt_residual(q, alpha, C) <= tol:
            return alpha
        start = _projected_gradient(q, C, start if alpha is None else alpha)
    residual = kkt_residual(q, start, C)
    if residual <= tol:
        return start
    raise RuntimeError(f"box QP not solved to KKT tolerance {tol:g} (residual {residual:.3g}).")


def _active_set(
    q: np.ndarray, C: float, start: np.ndarray, max_iter: int = 100
) -> np.ndarray | None:
    """Primal-dual active set from ``start``; ``None`` if the sets do not settle."""
    alpha = start.copy()
    scale = 1.0 / max(float(np.max(np.diag(q), initial=0.0)), 1e-300)
    previous: tuple[bytes, bytes] | None = None
    for _ in range(max_iter):
        trial = alpha - scale * (q @ alpha - 1.0)
        lower, upper = trial <= 0.0, trial >= C
        sets = (lower.tobytes(), upper.tobytes())
        if sets == previous:
            return alpha
        previous = sets
        free = ~(lower | upper)
        alpha = np.where(upper, C, 0.0)
        if free.any():
            rhs = 1.0 - q[np.ix_(free, upper)].sum(axis=1) * C
            alpha[free] = _solve(q[np.ix_(free, free)], rhs)
    return None


def _projected_gradient(
    q: np.ndarray, C: float, start: np.ndarray, steps: int = 5000
) -> np.ndarray:
    """FISTA on the box QP (step ``1 / lambda_max(q)``), from ``start``."""
    lipschitz = max(float(np.linalg.eigvalsh(q)[-1]), 1e-300)
    alpha, momentum, t = start.copy(), start.copy(), 1.0
    for _ in range(steps):
        nxt = np.clip(momentum - (q @ momentum - 1.0) / lipschitz, 0.0, C)
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        momentum = nxt + (t - 1.0) / t_next * (nxt - alpha)
        alpha, t = nxt, t_next
    return alpha


def _solve(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:  # a singular kernel block: the least-norm solution
        return np.linalg.lstsq(matrix, rhs, rcond=None)[0]


def _check(gram: np.ndarray, labels: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray]:
    gram = np.asarray(gram, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.float64)
    if gram.ndim != 2 or gram.shape[0] != gram.shape[1] or gram.shape[0] != labels.shape[0]:
        raise RewireError(
            f"the kernel must be [m, m] for m = {labels.shape[0]} labels, got {gram.shape}."
        )
    if labels.size == 0:
        raise RewireError("the SVM needs at least one labelled node.")
    if not np.isin(labels, (-1.0, 1.0)).all():
        raise RewireError("binary SVM labels must be -1 or 1.")
    if not C > 0:
        raise RewireError(f"C must be positive, got {C!r}.")
    return gram, labels
