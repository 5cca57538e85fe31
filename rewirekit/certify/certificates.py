r"""Sample-wise and collective label-flip certificates (QPCert), binary and multiclass.

A prediction is **certified** at budget :math:`B` if no change of at most :math:`B` training
labels, followed by retraining the SVM, changes it (correctness is not required). Each
question is one MILP (:mod:`rewirekit.certify.milp`) over the attacker's labels and the
retrained SVM's KKT point.

* **Sample-wise, binary:** minimise the signed margin :math:`\operatorname{sign}(f(t))
  \sum_j\Theta_{tj} z_j`; certified iff the minimum is positive.
* **Sample-wise, multiclass:** one-vs-all SVMs share the attacked labels. The prediction
  :math:`k^*` survives iff, for every rival :math:`k`, :math:`\min(p_{k^*} - p_k) > 0`; each
  rival is one MILP over the two SVMs it involves (labels of other classes leave both SVMs
  unchanged, so the decomposition is exact).
* **Collective:** one attack against all targets at once: binaries :math:`c_t` with
  :math:`\text{margin}_t \le P_t(1 - c_t)`, :math:`P_t` a bound on :math:`|\text{margin}_t|`,
  maximise :math:`\sum_t c_t`; at least :math:`n - \lfloor \text{bound} \rfloor` targets are
  certified.

Speed-ups, each optional so the plain formulation can be timed against them: the tight
big-M, a start from the clean SVM, a greedy attack (flip the labels that support the
prediction most, retrain) whose success decides the node without a MILP, and an early exit as
soon as the incumbent or the dual bound decides the sign. An attack the MILP reports is
checked by retraining the SVM on its labels. A node whose solve timed out counts as not
certified unless the dual bound proves it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rewirekit.certify.milp import (
    BIG_M,
    LOOSE_BIG_M,
    PRODUCTS,
    Program,
    Solution,
    SVMBlock,
    add_svm,
    budget_bounds,
    forced,
    solve,
)
from rewirekit.certify.svm import fit_one_vs_all, fit_svm
from rewirekit.errors import RewireError


@dataclass(frozen=True)
class Options:
    """How the MILPs are built and solved (the defaults are the fast, exact settings).

    Args:
        big_m: ``"budget"`` (bounds that use the budget, and fixing the duals they decide;
            see :mod:`.milp`), ``"tight"`` (the bound of the paper) or a number (QPCert's
            plain one is 1e3).
        warm_start: start HiGHS from the clean SVM (or the greedy attack).
        early_exit: stop as soon as the incumbent or the bound decides the sign.
        greedy_attack: try the greedy attack before any MILP.
        products: ``"rowwise"`` or ``"pairwise"`` linearisation (see :mod:`.milp`).
        time_limit: seconds per MILP.
    """

    big_m: str | float = "budget"
    warm_start: bool = True
    early_exit: bool = True
    greedy_attack: bool = True
    products: str = "rowwise"
    time_limit: float = 600.0

    def __post_init__(self) -> None:
        if self.big_m not in BIG_M and not (
            isinstance(self.big_m, (int, float)) and self.big_m > 0
        ):
            raise RewireError(
                f"big_m must be one of {BIG_M} or a positive number, got {self.big_m!r}."
            )
        if self.products not in PRODUCTS:
            raise RewireError(f"products must be one of {PRODUCTS}, got {self.products!r}.")
        if not self.time_limit > 0:
            raise RewireError(f"time_limit must be positive, got {self.time_limit!r}.")


#: The defaults: every speed-up on.
FAST = Options()
#: QPCert's plain formulation: loose big-M, no warm start, no greedy attack, no early exit.
PLAIN = Options(big_m=LOOSE_BIG_M, warm_start=False, early_exit=False, greedy_attack=False)


@dataclass(frozen=True)
class SampleCertificate:
    """Per-target verdicts of a sample-wise certificate at one budget."""

    budget: int
    certified: np.ndarray  # bool [t]
    timed_out: np.ndarray  # bool [t]
    seconds: np.ndarray  # float [t]
    decided_by: np.ndarray  # "greedy", "bounds", "incumbent", "bound", "timeout", "trivial"

    @property
    def ratio(self) -> float:
        """Share of targets certified."""
        return float(self.certified.mean()) if self.certified.size else 1.0

    @property
    def num_timed_out(self) -> int:
        """Targets whose MILP hit the time limit (and count as not certified)."""
        return int(self.timed_out.sum())


@dataclass(frozen=True)
class CollectiveCertificate:
    """A collective certificate: at least ``num_certified`` targets survive every attack."""

    budget: int
    num_targets: int
    num_certified: int
    timed_out: bool
    seconds: float

    @property
    def ratio(self) -> float:
        """Certified share of the targets (a lower bound if the solve timed out)."""
        return self.num_certified / self.num_targets if self.num_targets else 1.0


def certify_binary(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
    options: Options = FAST,
) -> SampleCertificate:
    """Sample-wise certificate of a binary SVM.

    Args:
        gram: the kernel on all nodes ``[n, n]``.
        labelled, targets: node indices of the training set and of the nodes to certify.
        labels: training labels in {0, 1} (or {-1, 1}), one per ``labelled`` node.
        C: the SVM's box bound.
        budget: most labels the attacker may flip.
    """
    lab, tgt, y = _check(gram, labelled, targets, labels, budget)
    y = np.where(y > 0, 1.0, -1.0)
    train, rows = gram[np.ix_(lab, lab)], gram[np.ix_(tgt, lab)]
    clean = fit_svm(train, y, C)
    verdicts = []
    for row in rows:
        sign = np.sign(clean.decision(row))
        verdicts.append(_binary_node(train, row, y, C, budget, sign, clean, options))
    return _sample(budget, verdicts)


def certify_multiclass(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
    options: Options = FAST,
) -> SampleCertificate:
    """Sample-wise certificate of one-vs-all SVMs; ``labels`` are classes ``0..K-1``."""
    lab, tgt, y = _check(gram, labelled, targets, labels, budget)
    y = y.astype(int)
    num_classes = int(y.max()) + 1
    train, rows = gram[np.ix_(lab, lab)], gram[np.ix_(tgt, lab)]
    svms = fit_one_vs_all(train, y, C, num_classes)
    verdicts = []
    for row in rows:
        scores = np.array([svm.decision(row) for svm in svms])
        winner = int(scores.argmax())
        rivals = [k for k in np.argsort(-scores, kind="stable") if k != winner]
        verdict = ("trivial", True, False, 0.0)
        for rival in rivals:
            verdict = _pair_node(train, row, y, C, budget, winner, int(rival), svms, options)
            if not verdict[1]:
                break
        verdicts.append(verdict)
    return _sample(budget, verdicts)


def certify_collective(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
    *,
    multiclass: bool = False,
    options: Options = FAST,
) -> CollectiveCertificate:
    """Collective certificate: one attack of at most ``budget`` flips against all targets."""
    lab, tgt, y = _check(gram, labelled, targets, labels, budget)
    train, rows = gram[np.ix_(lab, lab)], gram[np.ix_(tgt, lab)]
    program = Program()
    start: dict[int, float] = {}
    if multiclass:
        y = y.astype(int)
        num_classes = int(y.max()) + 1
        svms = fit_one_vs_all(train, y, C, num_classes)
        onehot = [program.add(len(y), 0.0, 1.0, binary=True) for _ in range(num_classes)]
        program.constrain([(1.0, col) for col in onehot], 1.0, 1.0)
        kept = np.stack(onehot, axis=1)[np.arange(len(y)), y]
        program.constrain([(-np.ones((1, len(y))), kept[None])], -np.inf, budget - len(y))
        blocks = [
            _svm(program, train, C, col, np.where(y == k, 1.0, -1.0), budget, options)
            for k, col in enumerate(onehot)
        ]
        scores = np.stack([svm.decision(rows) for svm in svms], axis=1)
        winners = scores.argmax(axis=1)
        changed = program.add(len(tgt), 0.0, 1.0, binary=True)
        for t, (row, winner) in enumerate(zip(rows, winners, strict=True)):
            rivals = [k for k in range(num_classes) if k != winner]
            flags = program.add(len(rivals), 0.0, 1.0, binary=True)
            bound = 2 * C * np.abs(row).sum()
            for flag, rival in zip(flags, rivals, strict=True):
                # margin p_winner - p_rival <= bound (1 - flag)
                program.constrain(
                    [
                        (row[None, :], blocks[winner].z[None, :]),
                        (-row[None, :], blocks[rival].z[None, :]),
                        (np.array([bound]), np.array([flag])),
                    ],
                    -np.inf,
                    bound,
                )
            program.constrain(
                [(1.0, changed[t : t + 1]), (-np.ones((1, len(flags))), flags[None])], -np.inf, 0.0
            )
        if options.warm_start:
            for block, svm in zip(blocks, svms, strict=True):
                start.update(block.start(train, svm))
    else:
        y = np.where(y > 0, 1.0, -1.0)
        svm = fit_svm(train, y, C)
        label = program.add(len(y), 0.0, 1.0, binary=True)
        _binary_budget(program, label, y, budget)
        block = _svm(program, train, C, label, y, budget, options)
        sign = np.sign(svm.decision(rows))
        bound = C * np.abs(rows).sum(axis=1)
        changed = program.add(len(tgt), 0.0, 1.0, binary=True)
        program.constrain(
            [(sign[:, None] * rows, np.broadcast_to(block.z, rows.shape)), (bound, changed)],
            -np.inf,
            bound,
        )
        if options.warm_start:
            start.update(block.start(train, svm))
    program.minimize(changed, -np.ones(len(changed)))
    if options.warm_start:
        start.update({int(c): 0.0 for c in changed})
    result = solve(program, start=start or None, time_limit=options.time_limit, abs_gap=0.99)
    most_changed = int(np.floor(-result.bound + 1e-6))
    return CollectiveCertificate(
        budget=budget,
        num_targets=len(tgt),
        num_certified=max(len(tgt) - most_changed, 0),
        timed_out=result.timed_out,
        seconds=result.seconds,
    )


# --------------------------------------------------------------------------------------
# one node


def _binary_node(train, row, y, C, budget, sign, clean, options):
    """(decided_by, certified, timed_out, seconds) for one target of a binary SVM."""
    if sign == 0:
        return ("trivial", False, False, 0.0)
    if budget == 0:
        return ("trivial", True, False, 0.0)

    def margin(flipped: np.ndarray) -> float:
        return float(sign * fit_svm(train, flipped, C).decision(row))

    fixed = _forced_alpha(train, y, C, budget) if options.big_m == "budget" else None
    alpha = clean.alpha if fixed is None else fixed
    if options.greedy_attack or fixed is not None:
        # flip the (at most budget) labels that add most to the margin sign * f(t)
        support = sign * alpha * y * row
        flipped = y.copy()
        flipped[[i for i in np.argsort(-support, kind="stable")[:budget] if support[i] > 0]] *= -1
        worst = margin(flipped)
        if worst <= 0:
            return ("greedy", False, False, 0.0)
        if fixed is not None:  # the same alpha for every labelling: this flip is the worst
            return ("bounds", True, False, 0.0)
    program = Program()
    label = program.add(len(y), 0.0, 1.0, binary=True)
    _binary_budget(program, label, y, budget)
    block = _svm(program, train, C, label, y, budget, options)
    program.minimize(block.z, sign * row)
    start = block.start(train, clean) if options.warm_start else None
    result = _solve_sign(program, start, options)
    attack = _attack(result, block)
    if attack is not None and margin(2 * attack - 1) <= 0:
        return ("incumbent", False, result.timed_out, result.seconds)
    if _proven(result):
        return ("bound", True, False, result.seconds)
    return ("timeout" if result.timed_out else "incumbent", False, result.timed_out, result.seconds)


def _pair_node(train, row, y, C, budget, winner, rival, svms, options):
    """The winner-versus-rival MILP of a multiclass target."""
    if budget == 0:
        return ("trivial", True, False, 0.0)

    def margin(classes: np.ndarray) -> float:
        a = fit_svm(train, np.where(classes == winner, 1.0, -1.0), C).decision(row)
        b = fit_svm(train, np.where(classes == rival, 1.0, -1.0), C).decision(row)
        return float(a - b)

    if options.greedy_attack:
        # relabel to the rival the nodes that support the winner most
        support = (
            svms[winner].alpha * svms[winner].labels - svms[rival].alpha * svms[rival].labels
        ) * row
        order = [i for i in np.argsort(-support, kind="stable") if y[i] != rival][:budget]
        attacked = y.copy()
        attacked[order] = rival
        if margin(attacked) <= 0:
            return ("greedy", False, False, 0.0)
    program = Program()
    win = program.add(len(y), 0.0, 1.0, binary=True)
    riv = program.add(len(y), 0.0, 1.0, binary=True)
    program.constrain([(1.0, win), (1.0, riv)], -np.inf, 1.0)
    # flips: 1 - win on the winner's nodes, 1 - riv on the rival's, win + riv elsewhere
    is_win, is_riv = (y == winner).astype(float), (y == rival).astype(float)
    other = 1.0 - is_win - is_riv
    program.constrain(
        [((other - is_win)[None], win[None]), ((other - is_riv)[None], riv[None])],
        -np.inf,
        budget - is_win.sum() - is_riv.sum(),
    )
    blocks = [
        _svm(program, train, C, col, np.where(y == k, 1.0, -1.0), budget, options)
        for k, col in ((winner, win), (rival, riv))
    ]
    program.minimize(np.concatenate([blocks[0].z, blocks[1].z]), np.concatenate([row, -row]))
    start = None
    if options.warm_start:
        start = blocks[0].start(train, svms[winner])
        start.update(blocks[1].start(train, svms[rival]))
    result = _solve_sign(program, start, options)
    if result.values is not None and result.objective <= 0:
        b_win, b_riv = (result.values[c] > 0.5 for c in (win, riv))
        # a winner or rival node relabelled to neither class gets the placeholder -1
        neither = np.where((y == winner) | (y == rival), -1, y)
        attacked = np.where(b_win, winner, np.where(b_riv, rival, neither))
        if margin(attacked) <= 0:
            return ("incumbent", False, result.timed_out, result.seconds)
    if _proven(result):
        return ("bound", True, False, result.seconds)
    return ("timeout" if result.timed_out else "incumbent", False, result.timed_out, result.seconds)


# --------------------------------------------------------------------------------------
# helpers


def _solve_sign(program: Program, start: dict[int, float] | None, options: Options) -> Solution:
    """Minimise a margin; with early exit, only its sign is searched for.

    The early exit prunes every branch whose bound is already positive (cutoff 0) and stops
    at the first incumbent below 0 or once the global bound is positive. (A margin of exactly
    0, which counts as changed, may be pruned with it: a tie of measure zero.)
    """
    if not options.early_exit:
        return solve(program, start=start, time_limit=options.time_limit)
    return solve(
        program,
        start=start,
        stop=lambda primal, dual: primal < 0 or dual > 0,
        cutoff=0.0,
        time_limit=options.time_limit,
    )


def _proven(result: Solution) -> bool:
    """Whether the solve proves a positive minimum margin."""
    return result.bound > 0 or result.status == "Infeasible"


def _svm(
    program: Program,
    train: np.ndarray,
    C: float,
    label: np.ndarray,
    clean: np.ndarray,
    budget: int,
    options: Options,
) -> SVMBlock:
    """The KKT block of an SVM whose clean labels ``clean`` (+-1) change in <= ``budget``."""
    bounds = budget_bounds(train, clean, C, budget) if options.big_m == "budget" else None
    return add_svm(
        program, train, C, label, big_m=options.big_m, products=options.products, q_bounds=bounds
    )


def _forced_alpha(train: np.ndarray, y: np.ndarray, C: float, budget: int) -> np.ndarray | None:
    r"""The dual of every admissible labelling, if :func:`.milp.budget_bounds` fix all of it.

    Then :math:`f(t) = \sum_j \alpha_j \tilde y_j \Theta_{tj}` is linear in the labels, and
    flipping the ``budget`` labels of largest positive :math:`\operatorname{sign}(f(t))
    \alpha_j y_j\Theta_{tj}` is the exact worst attack.
    """
    at_c, at_zero = forced(*budget_bounds(train, y, C, budget))
    if not (at_c | at_zero).all():
        return None
    return np.where(at_c, C, 0.0)


def _binary_budget(program: Program, label: np.ndarray, y: np.ndarray, budget: int) -> None:
    # flips: 1 - b on positive labels, b on negative ones; at most `budget`
    positive = y > 0
    program.constrain(
        [(np.where(positive, -1.0, 1.0)[None], label[None])], -np.inf, budget - positive.sum()
    )


def _attack(result: Solution, block: SVMBlock) -> np.ndarray | None:
    if result.values is None or result.objective > 0:
        return None
    return np.round(result.values[block.label]).astype(float)


def _sample(budget: int, verdicts: list[tuple[str, bool, bool, float]]) -> SampleCertificate:
    decided, certified, timed_out, seconds = zip(*verdicts, strict=True) if verdicts else ((),) * 4
    return SampleCertificate(
        budget=budget,
        certified=np.array(certified, dtype=bool),
        timed_out=np.array(timed_out, dtype=bool),
        seconds=np.array(seconds, dtype=float),
        decided_by=np.array(decided, dtype=object),
    )


def _check(gram, labelled, targets, labels, budget):
    gram = np.asarray(gram, dtype=np.float64)
    lab, tgt = np.asarray(labelled, dtype=int), np.asarray(targets, dtype=int)
    y = np.asarray(labels)
    if lab.size == 0:
        raise RewireError("certification needs labelled nodes; none were given.")
    if y.shape != lab.shape:
        raise RewireError(f"{lab.size} labelled nodes but {y.size} labels.")
    if gram.ndim != 2 or gram.shape[0] != gram.shape[1]:
        raise RewireError(f"the kernel must be square, got shape {gram.shape}.")
    if max(lab.max(), tgt.max(initial=0)) >= len(gram) or min(lab.min(), tgt.min(initial=0)) < 0:
        raise RewireError(f"node indices must lie in [0, {len(gram)}).")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 0:
        raise RewireError(f"budget must be a non-negative integer, got {budget!r}.")
    if budget > lab.size:
        raise RewireError(f"budget {budget} exceeds the {lab.size} labelled nodes.")
    return lab, tgt, y
