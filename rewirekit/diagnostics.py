"""Graph diagnostics the ComFy paper relies on: homophily, spectral gap, communities and
their alignment with the labels (Rubio-Madrigal, Jamadandi & Burkholz, ICLR 2025); and the
Ollivier–Ricci curvature the curvature rewirings (SDRF, BORF) act on."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import networkx as nx
import numpy as np
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.algorithms import detect_communities, fiedler_pair
from rewirekit.algorithms.ollivier_ricci import ollivier_ricci
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
        orc_min, orc_q1, orc_median, orc_q3: the distribution of the Ollivier–Ricci curvature
            of the edges (α = 0.5, unweighted; :func:`~rewirekit.algorithms.ollivier_ricci`);
            NaN without edges.
        orc_below_minus_half: share of edges with κ < −0.5 (the bottlenecks).
        most_negative_edges: the ``num_negative`` edges of lowest κ as ``(u, v, κ)``, lowest first
            (not part of :meth:`to_dict`).
    """

    num_edges: int
    edge_homophily: float
    spectral_gap: float
    num_communities: int
    modularity: float
    label_nmi: float
    orc_min: float
    orc_q1: float
    orc_median: float
    orc_q3: float
    orc_below_minus_half: float
    most_negative_edges: tuple[tuple[int, int, float], ...] = field(default=())

    def to_dict(self) -> dict[str, float]:
        """The scalar diagnostics by name."""
        values = asdict(self)
        del values["most_negative_edges"]
        return values


def diagnose(
    data: Data,
    mask: Tensor | None = None,
    *,
    seed: int = 0,
    communities: str = "leiden",
    num_negative: int = 5,
) -> GraphDiagnostics:
    """Compute :class:`GraphDiagnostics` of an undirected labelled graph.

    Args:
        data: graph with ``edge_index`` and integer labels ``y``.
        mask: boolean node mask of the nodes whose labels may be used (e.g. a training mask).
        seed: seed of the community detection.
        communities: ``"leiden"`` or ``"louvain"`` (the ComFy paper's).
        num_negative: how many of the most negatively curved edges to list.
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
        **curvature_summary(edges.src, edges.dst, n, num_negative),
    )


def curvature_summary(src: np.ndarray, dst: np.ndarray, n: int, num_negative: int) -> dict:
    """Quartiles of the Ollivier–Ricci curvature of the edges ``(src, dst)``, the share below
    −0.5 and the ``num_negative`` most negatively curved edges."""
    kappa = ollivier_ricci(np.array([src, dst]), n)
    if kappa.size == 0:
        nan = float("nan")
        return dict(orc_min=nan, orc_q1=nan, orc_median=nan, orc_q3=nan, orc_below_minus_half=nan)
    q = np.quantile(kappa, [0.0, 0.25, 0.5, 0.75])
    lowest = np.argsort(kappa, kind="stable")[:num_negative]
    return dict(
        orc_min=float(q[0]),
        orc_q1=float(q[1]),
        orc_median=float(q[2]),
        orc_q3=float(q[3]),
        orc_below_minus_half=float((kappa < -0.5).mean()),
        most_negative_edges=tuple(
            (int(src[i]), int(dst[i]), float(kappa[i])) for i in lowest.tolist()
        ),
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
