"""Certificates by enumeration: retrain the SVM for every admissible label change.

The reference the MILP certificates are tested against. The number of attacks grows as
``sum_{b <= B} C(m, b) (K-1)^b``, so it is for small ``m`` and ``B`` only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from rewirekit.certify.svm import fit_one_vs_all, fit_svm, predict_one_vs_all


def attacks(labels: np.ndarray, budget: int, num_classes: int) -> Iterator[np.ndarray]:
    """Every labelling that differs from ``labels`` (classes 0..K-1) in at most ``budget``."""
    labels = np.asarray(labels, dtype=int)
    for size in range(budget + 1):
        for nodes in itertools.combinations(range(len(labels)), size):
            choices = [[k for k in range(num_classes) if k != labels[i]] for i in nodes]
            for new in itertools.product(*choices):
                attacked = labels.copy()
                attacked[list(nodes)] = new
                yield attacked


def predictions_under_attack(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
) -> np.ndarray:
    """Predicted classes ``[attacks, targets]``, the clean labelling first.

    Binary problems (two classes) use one SVM whose sign is the class; more classes use
    one-vs-all SVMs.
    """
    labels = np.asarray(labels, dtype=int)
    num_classes = max(int(labels.max()) + 1, 2)
    train = gram[np.ix_(labelled, labelled)]
    rows = gram[np.ix_(targets, labelled)]
    out = []
    for attacked in attacks(labels, budget, num_classes):
        if num_classes == 2:  # one SVM: class 1 iff its decision is positive
            svm = fit_svm(train, np.where(attacked == 1, 1.0, -1.0), C)
            out.append((svm.decision(rows) > 0).astype(int))
        else:
            out.append(predict_one_vs_all(fit_one_vs_all(train, attacked, C, num_classes), rows))
    return np.array(out)


def enumerate_certificate(
    gram: np.ndarray,
    labelled: np.ndarray,
    targets: np.ndarray,
    labels: np.ndarray,
    C: float,
    budget: int,
) -> tuple[np.ndarray, int]:
    """``(certified [targets], collective count)`` by enumeration.

    A target is certified if no attack changes its prediction; the collective count is the
    number of targets that no single attack can change together, ``n - max_attack #changed``.
    """
    predicted = predictions_under_attack(gram, labelled, targets, labels, C, budget)
    changed = predicted != predicted[0]
    return ~changed.any(axis=0), int(len(targets) - changed.sum(axis=1).max())
