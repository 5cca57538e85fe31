r"""One call from a graph to a certificate: :func:`certify_labels`."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from rewirekit.certify.bruteforce import enumerate_certificate
from rewirekit.certify.certificates import (
    FAST,
    CollectiveCertificate,
    Options,
    SampleCertificate,
    certify_binary,
    certify_collective,
    certify_multiclass,
)
from rewirekit.certify.data import LabelGraph
from rewirekit.certify.ntk import Architecture, ntk
from rewirekit.errors import RewireError

#: Enumeration replaces the MILPs (method="auto") up to this many admissible attacks. One
#: SVM retraining costs about 0.5 ms on Cora-MLb (m = 20) and one sample-wise MILP at B = 1
#: about 4 s, i.e. some 8000 retrainings (docs/qpcert_speed.txt), and the enumeration serves
#: every target at once: below this limit it is cheaper than even a single MILP.
ENUMERATION_LIMIT = 10_000
METHODS = ("auto", "milp", "enumerate")


def certify_labels(
    data: Any,
    model: str | Architecture = "gcn",
    budget: float | int = 0.05,
    *,
    C: float = 0.075,
    labelled: np.ndarray | None = None,
    targets: np.ndarray | None = None,
    collective: bool = False,
    method: str = "auto",
    options: Options = FAST,
) -> SampleCertificate | CollectiveCertificate:
    r"""Certify an NTK-SVM's predictions against flips of at most ``budget`` training labels.

    Args:
        data: a :class:`~rewirekit.certify.data.LabelGraph` or a PyG ``Data`` (``x``,
            undirected ``edge_index``, ``y``; ``train_mask``/``val_mask``/``test_mask``
            supply the defaults below).
        model: an architecture name of :data:`~rewirekit.certify.ntk.MODELS` or an
            :class:`~rewirekit.certify.ntk.Architecture`.
        budget: a float in ``[0, 1]`` is QPCert's :math:`\delta`, giving ``B = int(delta * m)``
            flips for ``m`` labelled nodes; an int is ``B`` itself.
        C: the SVM's box bound.
        labelled, targets: node indices (default: the train and val masks; the test mask, or
            every other node).
        collective: one attack against all targets at once instead of one per target.
        method: ``"milp"`` (QPCert), ``"enumerate"`` (retrain the SVM for every admissible
            attack), or ``"auto"``: enumeration while there are at most
            :data:`ENUMERATION_LIMIT` (10^4) attacks, else the MILP. Both are exact. One
            retraining costs about 0.5 ms and one MILP at B = 1 about 4 s on Cora-MLb
            (m = 20), and one enumeration serves every target, so below the limit it costs
            less than a single MILP.
        options: how the MILPs are built and solved.

    Returns:
        a :class:`SampleCertificate` (``.ratio``, ``.certified``, ``.num_timed_out``) or a
        :class:`CollectiveCertificate`.

    Raises:
        RewireError: no labelled nodes, a budget above ``m`` or outside ``[0, 1]``, an unknown
            architecture or method.
    """
    if method not in METHODS:
        raise RewireError(f"method must be one of {METHODS}, got {method!r}.")
    arch = Architecture(model=model) if isinstance(model, str) else model
    x, adj, y, default_lab, default_tgt = _unpack(data)
    lab = np.asarray(default_lab if labelled is None else labelled, dtype=int)
    if lab.size == 0:
        raise RewireError("no labelled nodes: pass `labelled` or give the data a train_mask.")
    tgt = np.asarray(default_tgt(lab) if targets is None else targets, dtype=int)
    flips = _budget(budget, lab.size)
    gram = ntk(arch, x, adj)
    return certify_kernel(
        gram, lab, tgt, y[lab], C, flips, collective=collective, method=method, options=options
    )


def certify_kernel(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
    *,
    collective: bool = False,
    method: str = "auto",
    options: Options = FAST,
) -> SampleCertificate | CollectiveCertificate:
    """:func:`certify_labels` on a kernel ``[n, n]``, with classes ``labels`` of ``labelled``.

    ``method="auto"`` enumerates while :func:`num_attacks` is at most
    :data:`ENUMERATION_LIMIT`, else solves the MILPs.
    """
    if method not in METHODS:
        raise RewireError(f"method must be one of {METHODS}, got {method!r}.")
    classes = np.asarray(labels, dtype=int)
    num_classes = max(int(classes.max()) + 1, 2)
    if method == "enumerate" or (
        method == "auto" and num_attacks(len(classes), budget, num_classes) <= ENUMERATION_LIMIT
    ):
        return _by_enumeration(gram, labelled, targets, classes, C, budget, collective)
    if collective:
        return certify_collective(
            gram, labelled, targets, classes, C, budget, multiclass=num_classes > 2, options=options
        )
    certify = certify_multiclass if num_classes > 2 else certify_binary
    return certify(gram, labelled, targets, classes, C, budget, options)


def _by_enumeration(gram, lab, tgt, classes, C, flips, collective):
    began = time.perf_counter()
    certified, count = enumerate_certificate(gram, lab, tgt, classes, C, flips)
    seconds = time.perf_counter() - began
    if collective:
        return CollectiveCertificate(
            budget=flips,
            num_targets=len(tgt),
            num_certified=count,
            timed_out=False,
            seconds=seconds,
        )
    return SampleCertificate(
        budget=flips,
        certified=certified,
        timed_out=np.zeros(len(tgt), dtype=bool),
        seconds=np.full(len(tgt), seconds / max(len(tgt), 1)),
        decided_by=np.full(len(tgt), "enumeration", dtype=object),
    )


def num_attacks(m: int, flips: int, num_classes: int = 2) -> int:
    """Labellings within ``flips`` changes of ``m`` labels in ``num_classes`` classes."""
    return sum(math.comb(m, b) * (max(num_classes, 2) - 1) ** b for b in range(flips + 1))


def _budget(budget: float | int, m: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)):
        raise RewireError(f"budget must be a fraction in [0, 1] or a flip count, got {budget!r}.")
    if isinstance(budget, (int, np.integer)):
        if not 0 <= budget <= m:
            raise RewireError(f"budget {budget} must lie in [0, m] for m = {m} labelled nodes.")
        return int(budget)
    if not 0 <= budget <= 1:
        raise RewireError(f"a fractional budget must lie in [0, 1], got {budget!r}.")
    return int(budget * m)


def _unpack(data: Any):
    if isinstance(data, LabelGraph):
        y = np.asarray(data.y, dtype=int)
        return data.x, data.adj, y, np.zeros(0, dtype=int), lambda lab: _others(len(y), lab)
    x = data.x.detach().cpu().numpy()
    y = data.y.detach().cpu().numpy().astype(int)
    n = len(y)
    edges = data.edge_index.detach().cpu().numpy()
    adj = sp.csr_array((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(n, n))
    adj = ((adj + adj.T) > 0).astype(np.float64)
    masks = [getattr(data, name, None) for name in ("train_mask", "val_mask")]
    labelled = np.zeros(n, dtype=bool)
    for mask in masks:
        if mask is not None:
            labelled |= mask.detach().cpu().numpy().reshape(n, -1)[:, 0].astype(bool)
    test = getattr(data, "test_mask", None)

    def default_targets(lab: np.ndarray) -> np.ndarray:
        if test is not None:
            return np.flatnonzero(test.detach().cpu().numpy().reshape(n, -1)[:, 0])
        return _others(n, lab)

    return x, adj, y, np.flatnonzero(labelled), default_targets


def _others(n: int, lab: np.ndarray) -> np.ndarray:
    return np.setdiff1d(np.arange(n), lab)
