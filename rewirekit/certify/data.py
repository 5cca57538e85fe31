r"""The graphs and splits of the QPCert experiments: Cora-MLb and the two-class CSBM.

* **Cora-MLb** (Sabanayagam et al., ICLR 2025): Cora-ML made undirected, restricted to its
  two largest classes, isolated nodes removed: 1235 nodes, 2879 binary features. The larger
  class gets label 1. Split: ``per_class`` training and ``per_class`` validation nodes per
  class (both labelled), ``ceil(10 %)`` of each class as targets.
* **CSBM:** :math:`n` nodes with labels drawn uniformly, :math:`d = \mathrm{round}(n/\ln^2 n)`
  Gaussian features with mean :math:`\pm\mu`, :math:`\mu_i = K\sigma/(2\sqrt d)`, and edges
  with probability :math:`p = 2\,\text{deg}_{in}/(n-1)` within and :math:`q =
  2\,\text{deg}_{out}/(n-1)` between classes. Split: ``labelled`` nodes per class (training
  and validation together), every other node a target.

The sampling is our own (seeded numpy generators), so a seed gives another graph than the
official code's seed.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import torch
from torch_geometric.data import Data

from rewirekit.errors import RewireError

DATA_ENV = "REWIREKIT_DATA"


@dataclass(frozen=True)
class LabelGraph:
    """Features ``x`` ``[n, d]``, a symmetric 0/1 ``adj`` ``[n, n]`` and classes ``y``."""

    x: np.ndarray
    adj: sp.csr_array
    y: np.ndarray
    name: str


@dataclass(frozen=True)
class Split:
    """Indices of the labelled nodes and of the targets to certify."""

    labelled: np.ndarray
    targets: np.ndarray


def cora_ml_binary(root: str | os.PathLike | None = None) -> LabelGraph:
    """Cora-MLb from ``<root>/cora_ml/raw/cora_ml.npz`` (``root`` defaults to ``$REWIREKIT_DATA``).

    Raises:
        RewireError: if the file is not there.
    """
    base = Path(root) if root is not None else Path(os.environ.get(DATA_ENV, "."))
    path = base / "cora_ml" / "raw" / "cora_ml.npz"
    if not path.is_file():
        raise RewireError(f"{path} not found; set {DATA_ENV} to the folder that holds cora_ml/.")
    with np.load(path, allow_pickle=True) as raw:
        adj = sp.csr_array(
            (raw["adj_matrix.data"], raw["adj_matrix.indices"], raw["adj_matrix.indptr"]),
            shape=tuple(raw["adj_matrix.shape"]),
        )
        attr = sp.csr_array(
            (raw["attr_matrix.data"], raw["attr_matrix.indices"], raw["attr_matrix.indptr"]),
            shape=tuple(raw["attr_matrix.shape"]),
        )
        labels = np.asarray(raw["labels"])
    adj = ((adj + adj.T) > 0).astype(np.float64)
    adj.setdiag(0)
    adj.eliminate_zeros()
    (first, _), (second, _) = Counter(labels.tolist()).most_common(2)
    keep = np.flatnonzero((labels == first) | (labels == second))
    adj = adj[keep][:, keep]
    connected = np.flatnonzero(np.asarray(adj.sum(axis=1)).ravel() > 0)
    keep = keep[connected]
    adj = sp.csr_array(adj[connected][:, connected])
    x = (attr[keep].toarray() > 0).astype(np.float64)
    y = (labels[keep] == first).astype(np.int64)
    return LabelGraph(x=x, adj=adj, y=y, name="cora_ml_b")


def qpcert_csbm(
    n: int = 200,
    *,
    K: float = 1.5,
    sigma: float = 1.0,
    degree_in: float = 3.16,
    degree_out: float = 0.74,
    seed: int = 0,
) -> LabelGraph:
    """The two-class CSBM of the QPCert experiments (defaults: the paper's parameters)."""
    if n < 4:
        raise RewireError(f"the CSBM needs at least 4 nodes, got n={n}.")
    rng = np.random.default_rng(seed)
    d = max(round(n / math.log(n) ** 2), 1)
    mu = np.full(d, K * sigma / (2 * math.sqrt(d)))
    y = rng.integers(0, 2, size=n)
    x = (2 * y[:, None] - 1) * mu[None, :] + sigma * rng.standard_normal((n, d))
    p, q = 2 * degree_in / (n - 1), 2 * degree_out / (n - 1)
    if max(p, q) > 1:
        raise RewireError(f"edge probabilities {p:.3g}, {q:.3g} exceed 1; lower the degrees.")
    prob = np.where(y[:, None] == y[None, :], p, q)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    adj = sp.csr_array((upper | upper.T).astype(np.float64))
    return LabelGraph(x=x, adj=adj, y=y.astype(np.int64), name="csbm")


def split_per_class(
    y: np.ndarray, labelled_per_class: int, *, target_fraction: float | None, seed: int = 0
) -> Split:
    """``labelled_per_class`` labelled nodes per class; targets: a share of each class's rest.

    With ``target_fraction=None`` every unlabelled node is a target; else
    ``ceil(target_fraction * class size)`` of each class.
    """
    rng = np.random.default_rng(seed)
    labelled, targets = [], []
    for k in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == k))
        if len(members) <= labelled_per_class:
            raise RewireError(f"class {k} has {len(members)} nodes, too few for the split.")
        labelled.append(members[:labelled_per_class])
        rest = members[labelled_per_class:]
        count = len(rest) if target_fraction is None else math.ceil(target_fraction * len(members))
        targets.append(rest[:count])
    return Split(
        labelled=np.sort(np.concatenate(labelled)), targets=np.sort(np.concatenate(targets))
    )


def to_data(graph: LabelGraph) -> Data:
    """``graph`` as a PyG ``Data`` (float32 ``x``, undirected ``edge_index``, ``y``)."""
    coo = graph.adj.tocoo()
    edge_index = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
    return Data(
        x=torch.from_numpy(graph.x.astype(np.float32)),
        edge_index=edge_index,
        y=torch.from_numpy(graph.y),
    )


def load_label_graph(name: str, seed: int = 0) -> tuple[LabelGraph, Split]:
    """``"cora_ml_b"`` (10 + 10 labelled, 10 % targets) or ``"csbm"`` (20 + 20, the rest)."""
    if name == "cora_ml_b":
        graph = cora_ml_binary()
        return graph, split_per_class(graph.y, 10, target_fraction=0.1, seed=seed)
    if name == "csbm":
        graph = qpcert_csbm(seed=seed)
        return graph, split_per_class(graph.y, 20, target_fraction=None, seed=seed)
    raise RewireError(f"unknown certification dataset {name!r}; choose 'cora_ml_b' or 'csbm'.")
