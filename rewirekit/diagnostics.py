"""Graph diagnostics the ComFy paper relies on: homophily, spectral gap, communities and
their alignment with the labels (Rubio-Madrigal, Jamadandi & Burkholz, ICLR 2025)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import networkx as nx
import numpy as np
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.algorithms import detect_communities, fiedler_pair
from rewirekit.errors import RewireError
from rewirekit.graph import edge_set, validate_data


@dataclass(frozen=True)
class GraphDiagnostics:
    """Signals of one graph that tell which rewiring may help.

    Attributes:
        num_edges: undirected edges (self-loops excluded).
        edge_homophily: share of edges whose endpoints have the same label.
        spectral_gap: λ₁ of ``I − D^{-1/2}(A + I)D^{-1/2}`` (self-loops added, unweighted),
            the quantity ProxyAdd/ProxyDelete and FoSR act on; 0 for a disconnected graph.
        num_communities: modularity communities (seeded Leiden or Louvain, see
            :func:`~rewirekit.algorithms.detect_communities`).
        modularity: Newman modularity of that partition.
        label_nmi: normalised mutual information between communities and labels, on the
            nodes of ``mask`` (the training nodes) or all nodes.
    """

    num_edges: int
    edge_homophily: float
    spectral_gap: float
    num_communities: int
    modularity: float
    label_nmi: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def diagnose(
    data: Data, mask: Tensor | None = None, *, seed: int = 0, communities: str = "leiden"
) -> GraphDiagnostics:
    """Compute :class:`GraphDiagnostics` of an undirected labelled graph.

    Args:
        data: graph with ``edge_index`` and integer labels ``y``.
        mask: boolean node mask of the nodes whose labels may be used (e.g. a training mask).
        seed: seed of the community detection.
        communities: ``"leiden"`` or ``"louvain"`` (the ComFy paper's).
    """
    validate_data(data)
    if "y" not in data or data.y is None:
        raise RewireError("diagnostics need node labels in data.y.")
    edges = edge_set(data, directed=False)
    labels = data.y.cpu().numpy()
    n = edges.num_nodes
    same = labels[edges.src] == labels[edges.dst]
    partition = detect_communities(edges, seed=seed, algorithm=communities)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(edges.src.tolist(), edges.dst.tolist(), strict=True))
    groups = [np.flatnonzero(partition == c).tolist() for c in range(partition.max() + 1)]
    modularity = nx.community.modularity(graph, groups) if edges.num_pairs else 0.0
    nodes = np.arange(n) if mask is None else mask.cpu().numpy().nonzero()[0]
    gap, _, _ = fiedler_pair(n, edges.src, edges.dst)
    return GraphDiagnostics(
        num_edges=edges.num_pairs,
        edge_homophily=float(same.mean()) if edges.num_pairs else float("nan"),
        spectral_gap=max(gap, 0.0),
        num_communities=int(partition.max() + 1),
        modularity=float(modularity),
        label_nmi=normalized_mutual_info(partition[nodes], labels[nodes]),
    )


def normalized_mutual_info(a: np.ndarray, b: np.ndarray) -> float:
    """NMI of two labellings with the arithmetic-mean normalisation,
    ``I(a; b) / ((H(a) + H(b)) / 2)``; 1 when both are constant and equal in partition."""
    if a.size == 0:
        raise RewireError("NMI needs at least one node; pass a non-empty mask.")
    _, a_ids = np.unique(a, return_inverse=True)
    _, b_ids = np.unique(b, return_inverse=True)
    joint = np.zeros((a_ids.max() + 1, b_ids.max() + 1))
    np.add.at(joint, (a_ids, b_ids), 1.0)
    joint /= a.size
    pa, pb = joint.sum(1), joint.sum(0)
    nz = joint > 0
    mutual = float((joint[nz] * np.log(joint[nz] / np.outer(pa, pb)[nz])).sum())
    entropy = -(pa * np.log(pa)).sum() - (pb * np.log(pb)).sum()
    return 1.0 if entropy == 0 else max(0.0, 2.0 * mutual / entropy)
