r"""The mixed-integer linear programs of QPCert, built for and solved with HiGHS.

An SVM trained on labels an attacker chose is the solution of its KKT conditions, and
those are linear up to complementarity and the products of labels with dual variables
(QPCert, Sabanayagam et al., ICLR 2025, Sec. 3). For the labelled kernel :math:`\Theta`
``[m, m]``, binaries :math:`b` with poisoned labels :math:`\tilde y = 2b - 1`, and
:math:`z_j = \tilde y_j\alpha_j` (exact with the bound :math:`C`):

.. math::
    \tilde y_i \textstyle\sum_j \Theta_{ij} z_j - u_i + v_i = 1, \quad
    u \le M_u s, \quad \alpha \le C(1 - s), \quad v \le M_v t, \quad C - \alpha \le C(1 - t),

with :math:`s, t \in \{0,1\}^m`, :math:`u, v \ge 0`. At a KKT point :math:`u_i - v_i = q_i - 1`
with :math:`q_i = \tilde y_i\sum_j\Theta_{ij}\tilde y_j\alpha_j`, and at most one of them is
non-zero, so any bounds :math:`L_i \le q_i \le U_i` give :math:`M_{u,i} = \max(U_i - 1, 0)` and
:math:`M_{v,i} = \max(1 - L_i, 0)`. The tight big-M of the paper takes
:math:`U_i = -L_i = C\sum_j|\Theta_{ij}|`. The ``"budget"`` big-M (ours, :func:`budget_bounds`)
uses that the attacker flips at most :math:`B` labels: :math:`\tilde y_i\tilde y_j = y_iy_j`
except for the pairs with exactly one flipped end. It also fixes what the bounds decide:
:math:`U_i < 1` forces :math:`\alpha_i = C` (the gradient :math:`q_i - 1` of the dual is
negative for every admissible labelling and every :math:`\alpha`), :math:`L_i > 1` forces
:math:`\alpha_i = 0`. Both only remove points that are no KKT point of any admissible
labelling, so the MILP's optimum is unchanged. The product :math:`\tilde y_i z_j` is linearised
``pairwise`` (one variable per pair, as in the official code) or ``rowwise``: one variable
:math:`q_i = \tilde y_i \sum_j \Theta_{ij} z_j` per row with the bound :math:`C\sum_j
|\Theta_{ij}|`, which needs :math:`m` instead of :math:`m^2` variables.

HiGHS is imported only when a program is solved.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from rewirekit.certify.svm import KernelSVM, kkt_multipliers

#: Linearisations of the label-times-dual products (see the module docstring).
PRODUCTS = ("rowwise", "pairwise")
#: The named big-M choices of :func:`add_svm` (a number is the third).
BIG_M = ("budget", "tight")
#: The big-M of QPCert's plain formulation.
LOOSE_BIG_M = 1e3
#: Margin by which a bound must clear 1 before it fixes a dual variable (rounding of the bound).
FIX_TOLERANCE = 1e-9


@dataclass
class Program:
    """A MILP ``min c^T x`` s.t. ``row_lower <= A x <= row_upper``, ``lower <= x <= upper``.

    Rows are collected as triplets and assembled once; :meth:`add` returns the indices of new
    variables.
    """

    lower: list[np.ndarray] = field(default_factory=list)
    upper: list[np.ndarray] = field(default_factory=list)
    integer: list[np.ndarray] = field(default_factory=list)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    row_lower: list[np.ndarray] = field(default_factory=list)
    row_upper: list[np.ndarray] = field(default_factory=list)
    num_cols: int = 0
    num_rows: int = 0
    cost: dict[int, float] = field(default_factory=dict)

    def add(
        self,
        size: int,
        lower: float | np.ndarray,
        upper: float | np.ndarray,
        *,
        binary: bool = False,
    ) -> np.ndarray:
        """``size`` new variables in ``[lower, upper]`` (binary ones in ``{0, 1}``)."""
        index = np.arange(self.num_cols, self.num_cols + size)
        self.lower.append(np.broadcast_to(np.asarray(lower, dtype=float), (size,)).copy())
        self.upper.append(np.broadcast_to(np.asarray(upper, dtype=float), (size,)).copy())
        self.integer.append(np.full(size, binary))
        self.num_cols += size
        return index

    def constrain(
        self,
        terms: list[tuple[Any, np.ndarray]],
        lower: float | np.ndarray,
        upper: float | np.ndarray,
    ) -> None:
        """Rows ``lower <= sum_k coef_k * x[col_k] <= upper``, one per leading index.

        Each term is ``(coef, col)`` of shape ``[r]`` or ``[r, k]`` (broadcast together).
        """
        num = max(np.shape(col)[0] for _, col in terms)
        row_ids, col_ids, values = [], [], []
        for coef, col in terms:
            col2 = np.asarray(col).reshape(np.shape(col)[0], -1)
            col2 = np.broadcast_to(col2, (num, col2.shape[1]))
            coef = np.asarray(coef, dtype=float)
            coef2 = np.broadcast_to(coef[:, None] if coef.ndim == 1 else coef, col2.shape)
            row_ids.append(np.broadcast_to(np.arange(num)[:, None], col2.shape).ravel())
            col_ids.append(col2.ravel())
            values.append(coef2.ravel())
        self.rows.append(
            (
                np.concatenate(row_ids) + self.num_rows,
                np.concatenate(col_ids),
                np.concatenate(values),
            )
        )
        self.row_lower.append(np.broadcast_to(np.asarray(lower, dtype=float), (num,)).copy())
        self.row_upper.append(np.broadcast_to(np.asarray(upper, dtype=float), (num,)).copy())
        self.num_rows += num

    def minimize(self, cols: np.ndarray, coefs: np.ndarray) -> None:
        """Add ``coefs @ x[cols]`` to the objective (always minimised)."""
        for col, coef in zip(np.asarray(cols).ravel(), np.asarray(coefs).ravel(), strict=True):
            self.cost[int(col)] = self.cost.get(int(col), 0.0) + float(coef)

    def matrix(self) -> sp.csc_array:
        """The assembled constraint matrix ``[num_rows, num_cols]``."""
        rows, cols, vals = zip(*self.rows, strict=True)
        return sp.csc_array(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.num_rows, self.num_cols),
        )


@dataclass(frozen=True)
class SVMBlock:
    """The variables of one poisoned SVM in a :class:`Program` (index arrays, ``[m]``)."""

    label: np.ndarray  # b, poisoned label 2b - 1
    alpha: np.ndarray
    u: np.ndarray
    v: np.ndarray
    s: np.ndarray
    t: np.ndarray
    z: np.ndarray  # (2b - 1) * alpha
    products: np.ndarray  # rowwise [m] or pairwise [m, m]
    mode: str

    def start(self, gram: np.ndarray, svm: KernelSVM) -> dict[int, float]:
        """The clean SVM ``svm`` (labels ``svm.labels``) as values of these variables."""
        q = svm.labels[:, None] * gram * svm.labels[None, :]
        u, v = kkt_multipliers(q, svm.alpha, svm.C)
        z = svm.labels * svm.alpha
        products = svm.labels * (gram @ z) if self.mode == "rowwise" else np.outer(svm.labels, z)
        values = [
            (self.label, (svm.labels + 1) / 2),
            (self.alpha, svm.alpha),
            (self.u, u),
            (self.v, v),
            (self.s, (u > 0).astype(float)),
            (self.t, (v > 0).astype(float)),
            (self.z, z),
            (self.products, products),
        ]
        return {
            int(c): float(x)
            for cols, vals in values
            for c, x in zip(cols.ravel(), np.ravel(vals), strict=True)
        }


def add_svm(
    program: Program,
    gram: np.ndarray,
    C: float,
    label: np.ndarray,
    *,
    big_m: str | float = "tight",
    products: str = "rowwise",
    q_bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> SVMBlock:
    """Add the KKT system of an SVM on ``gram`` whose labels are ``2 * x[label] - 1``.

    ``big_m`` is ``"tight"`` (the paper's), ``"budget"`` (from ``q_bounds``, the output of
    :func:`budget_bounds`; dual variables the bounds decide are fixed) or a number.
    """
    m = len(gram)
    row_bound = C * np.abs(gram).sum(axis=1)
    if big_m in ("tight", "budget"):
        if big_m == "budget":
            if q_bounds is None:
                raise ValueError('big_m="budget" needs q_bounds.')
            q_low, q_high = np.maximum(q_bounds[0], -row_bound), np.minimum(q_bounds[1], row_bound)
        else:
            q_low, q_high = -row_bound, row_bound
        m_u, m_v = np.maximum(q_high - 1.0, 0.0), np.maximum(1.0 - q_low, 0.0)
        u_max, v_max = m_u, m_v
        at_c, at_zero = forced(q_low, q_high) if big_m == "budget" else (np.zeros(m, bool),) * 2
    else:
        m_u = m_v = np.full(m, float(big_m))
        u_max = v_max = np.full(m, np.inf)
        q_low, q_high = -row_bound, row_bound
        at_c = at_zero = np.zeros(m, dtype=bool)
    alpha = program.add(m, np.where(at_c, C, 0.0), np.where(at_zero, 0.0, C))
    u, v = program.add(m, 0.0, u_max), program.add(m, 0.0, v_max)
    s = program.add(m, at_zero.astype(float), (~at_c).astype(float), binary=True)
    t = program.add(m, at_c.astype(float), (~at_zero).astype(float), binary=True)
    z = program.add(m, -C, C)
    _product(program, z, alpha, label, C)  # z = (2b - 1) alpha
    if products == "rowwise":
        prods = program.add(m, q_low, q_high)
        # q_i = (2b_i - 1) w_i with w_i = sum_j gram_ij z_j, |w_i| <= row_bound_i
        lin = (gram, np.broadcast_to(z, (m, m)))
        for sign in (1.0, -1.0):
            program.constrain(
                [(1.0, prods), (-sign * gram, lin[1]), (2 * sign * row_bound, label)],
                -np.inf,
                2 * row_bound if sign > 0 else 0.0,
            )
            program.constrain(
                [(1.0, prods), (-sign * gram, lin[1]), (-2 * sign * row_bound, label)],
                -2 * row_bound if sign > 0 else 0.0,
                np.inf,
            )
        stationarity: list[tuple[Any, np.ndarray]] = [(1.0, prods)]
    else:
        prods = program.add(m * m, -C, C).reshape(m, m)
        # R_ij = (2b_i - 1) z_j
        pair_label = np.broadcast_to(label[:, None], (m, m)).ravel()
        pair_z = np.broadcast_to(z[None, :], (m, m)).ravel()
        _product(program, prods.ravel(), pair_z, pair_label, C, signed=True)
        stationarity = [(gram, prods)]
    program.constrain([*stationarity, (-1.0, u), (1.0, v)], 1.0, 1.0)
    program.constrain([(1.0, u), (-m_u, s)], -np.inf, 0.0)
    program.constrain([(1.0, alpha), (C, s)], -np.inf, C)
    program.constrain([(1.0, v), (-m_v, t)], -np.inf, 0.0)
    program.constrain([(-1.0, alpha), (C, t)], -np.inf, 0.0)
    program.constrain([(1.0, s), (1.0, t)], -np.inf, 1.0)
    return SVMBlock(label, alpha, u, v, s, t, z, prods, products)


def budget_bounds(
    gram: np.ndarray, labels: np.ndarray, C: float, budget: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""Bounds ``(L, U)`` ``[m]`` on :math:`q_i = \tilde y_i\sum_j \Theta_{ij}\tilde y_j\alpha_j`.

    Over every labelling :math:`\tilde y` within ``budget`` flips of ``labels`` (in {-1, 1})
    and every :math:`\alpha \in [0, C]^m`. With :math:`P_{ij} = y_iy_j\Theta_{ij}`, the
    largest value keeps label :math:`i` and flips the ``budget`` labels :math:`j` of most
    negative :math:`P_{ij}`, or flips :math:`i` (every unflipped pair changes sign) and
    ``budget - 1`` labels of most positive :math:`P_{ij}`; :math:`U_i` is :math:`C` times the
    larger sum of positive parts, and :math:`L_i` the same for :math:`-P`.
    """
    signed = labels[:, None] * np.asarray(gram, dtype=float) * labels[None, :]
    return -C * _largest_sum(-signed, budget), C * _largest_sum(signed, budget)


def _largest_sum(signed: np.ndarray, budget: int) -> np.ndarray:
    """Row-wise max over admissible flips of ``sum_j max(sign_ij * signed_ij, 0)``."""
    diag = np.maximum(np.diag(signed), 0.0)  # the pair (i, i) never changes sign
    off = signed - np.diag(np.diag(signed))
    pos, neg = np.maximum(off, 0.0), np.maximum(-off, 0.0)
    keep = diag + pos.sum(axis=1) + _top_sum(neg, budget)
    if budget < 1:
        return keep
    return np.maximum(keep, diag + neg.sum(axis=1) + _top_sum(pos, budget - 1))


def _top_sum(values: np.ndarray, k: int) -> np.ndarray:
    """Row-wise sum of the ``k`` largest entries."""
    if k <= 0:
        return np.zeros(len(values))
    return -np.sort(-values, axis=1)[:, :k].sum(axis=1)


def forced(q_low: np.ndarray, q_high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the duals that bounds on :math:`q` force to ``C`` and to ``0``.

    The dual's gradient is :math:`q_i - 1`: below 0 everywhere forces :math:`\alpha_i = C`,
    above 0 everywhere forces :math:`\alpha_i = 0` (with a margin :data:`FIX_TOLERANCE`).
    """
    return q_high < 1.0 - FIX_TOLERANCE, q_low > 1.0 + FIX_TOLERANCE


def _product(
    program: Program,
    out: np.ndarray,
    x: np.ndarray,
    label: np.ndarray,
    bound: float,
    *,
    signed: bool = False,
) -> None:
    """``out = (2 b - 1) x`` for binaries ``b = x[label]`` and ``|x| <= bound``.

    ``x >= 0`` unless ``signed``; the four rows are exact at binary ``b``.
    """
    # out - x in [-2 bound (1 - b), 2 bound (1 - b)] and out + x in [-2 bound b, 2 bound b]
    two = 2.0 * bound
    program.constrain([(1.0, out), (-1.0, x), (two, label)], -np.inf, two)
    program.constrain([(1.0, out), (-1.0, x), (-two, label)], -two, np.inf)
    program.constrain([(1.0, out), (1.0, x), (-two, label)], -np.inf, 0.0)
    program.constrain([(1.0, out), (1.0, x), (two, label)], 0.0, np.inf)
    if not signed:
        program.constrain([(1.0, out), (-1.0, x)], -np.inf, 0.0)
        program.constrain([(1.0, out), (1.0, x)], 0.0, np.inf)


@dataclass(frozen=True)
class Solution:
    """What HiGHS returned: the incumbent (if any), the dual bound and how the run ended."""

    status: str
    objective: float
    bound: float
    values: np.ndarray | None
    seconds: float
    timed_out: bool


def solve(
    program: Program,
    *,
    start: dict[int, float] | None = None,
    stop: Callable[[float, float], bool] | None = None,
    time_limit: float = 600.0,
    abs_gap: float = 1e-6,
    cutoff: float | None = None,
    threads: int = 1,
    seed: int = 0,
) -> Solution:
    """Minimise ``program`` with HiGHS.

    Args:
        start: a feasible point (variable index -> value) to start from.
        stop: ``stop(primal_bound, dual_bound)`` is asked during branch and bound; the run
            ends as soon as it returns True (the early exit of a certificate).
        time_limit: seconds before HiGHS gives up; the result then has ``timed_out``.
        abs_gap: absolute gap at which HiGHS declares optimality.
        cutoff: prune every branch whose bound is not below ``cutoff`` (HiGHS's
            ``objective_bound``); with no point below it, the status is ``"Infeasible"``.
        threads, seed: HiGHS's thread count and random seed (fixed for determinism).
    """
    import highspy

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("time_limit", float(time_limit))
    highs.setOptionValue("mip_abs_gap", float(abs_gap))
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("threads", int(threads))
    highs.setOptionValue("random_seed", int(seed))
    if cutoff is not None:
        highs.setOptionValue("objective_bound", float(cutoff))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = program.num_cols, program.num_rows
    cost = np.zeros(program.num_cols)
    for col, coef in program.cost.items():
        cost[col] = coef
    lp.col_cost_ = cost
    lp.col_lower_ = np.concatenate(program.lower)
    lp.col_upper_ = np.concatenate(program.upper)
    lp.row_lower_ = np.concatenate(program.row_lower)
    lp.row_upper_ = np.concatenate(program.row_upper)
    matrix = program.matrix()
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr
    lp.a_matrix_.index_ = matrix.indices
    lp.a_matrix_.value_ = matrix.data
    lp.integrality_ = [
        highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous
        for flag in np.concatenate(program.integer)
    ]
    highs.passModel(lp)
    if start is not None:
        cols = np.fromiter(start.keys(), dtype=np.int32)
        highs.setSolution(len(cols), cols, np.fromiter(start.values(), dtype=float))
    if stop is not None:

        def interrupt(event):
            out = event.data_out
            if stop(out.mip_primal_bound, out.mip_dual_bound):
                event.interrupt()

        highs.cbMipInterrupt += interrupt
    began = time.perf_counter()
    highs.run()
    seconds = time.perf_counter() - began
    info = highs.getInfo()
    status = highs.modelStatusToString(highs.getModelStatus())
    has_point = info.primal_solution_status == 2  # kSolutionStatusFeasible
    values = np.asarray(highs.getSolution().col_value) if has_point else None
    objective = float(info.objective_function_value) if has_point else np.inf
    return Solution(
        status=status,
        objective=objective,
        bound=float(info.mip_dual_bound),
        values=values,
        seconds=seconds,
        timed_out=highs.getModelStatus() == highspy.HighsModelStatus.kTimeLimit,
    )
