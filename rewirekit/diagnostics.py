"""Graph diagnostics the ComFy paper relies on: homophily, spectral gap, communities and
their alignment with the labels, and how well feature similarity tracks the labels
(Rubio-Madrigal, Jamadandi & Burkholz, ICLR 2025); and the Ollivier–Ricci curvature the
curvature rewirings (SDRF, BORF) act on."""

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
from rewirekit.linalg.similarity import normalized_rows

#: At most this many nodes of the mask enter :func:`feature_label_agreement` (a seeded
#: sample beyond it), so its ``n × n`` similarity block stays small on any graph.
AGREEMENT_MAX_NODES = 2000


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
        masked_edge_homophily: edge homophily over the edges with both endpoints in ``mask``
            (all edges without a mask), so that only the labels of the mask are read; NaN
            when no edge has both endpoints there.
        feature_label_alignment: share of the mask's nodes whose most cosine-similar other
            node of the mask (by features) has the same label
            (:func:`feature_label_agreement`); NaN without features.
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
    masked_edge_homophily: float
    feature_label_alignment: float
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
    inside = np.ones(n, dtype=bool) if mask is None else mask.cpu().numpy().astype(bool)
    nodes = np.flatnonzero(inside)
    gap, _, _ = fiedler_pair(n, edges.src, edges.dst)
    masked = inside[edges.src] & inside[edges.dst]
    x = data.get("x")
    return GraphDiagnostics(
        num_edges=edges.num_pairs,
        edge_homophily=float(same.mean()) if edges.num_pairs else float("nan"),
        spectral_gap=max(gap, 0.0),
        num_communities=int(partition.max() + 1),
        modularity=float(modularity),
        label_nmi=normalized_mutual_info(partition[nodes], labels[nodes]),
        masked_edge_homophily=float(same[masked].mean()) if masked.any() else float("nan"),
        feature_label_alignment=(
            float("nan") if x is None else feature_label_agreement(x, labels, nodes, seed=seed)
        ),
        **curvature_summary(edges.src, edges.dst, n, num_negative),
    )


def feature_label_agreement(
    x: Tensor | np.ndarray,
    labels: np.ndarray,
    nodes: np.ndarray,
    *,
    max_nodes: int = AGREEMENT_MAX_NODES,
    seed: int = 0,
) -> float:
    """Share of ``nodes`` whose nearest other node of ``nodes`` in cosine similarity of the
    features ``x`` carries the same label: the label homophily of the 1-nearest-neighbour
    feature graph, read on ``nodes`` alone.

    It says whether feature similarity carries label information, which is what
    similarity-guided rewiring (FeaSt, ComFy) adds edges by; with ``C`` balanced classes a
    value near ``1/C`` means features that do not separate the classes. Ties go to the
    lower node id; a node of zero features is similar to none (similarity 0). Beyond
    ``max_nodes`` nodes a seeded uniform sample of that many is used (``O(max_nodes²)``
    memory).

    Example:
        >>> x = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
        >>> feature_label_agreement(x, np.array([0, 0, 1, 1]), np.arange(4))
        1.0
    """
    if nodes.size < 2:
        return float("nan")
    if nodes.size > max_nodes:
        rng = np.random.default_rng(seed)
        nodes = np.sort(rng.choice(nodes, size=max_nodes, replace=False))
    xn = normalized_rows(x)[nodes]
    similarity = xn @ xn.T
    similarity = similarity.toarray() if hasattr(similarity, "toarray") else similarity
    np.fill_diagonal(similarity, -np.inf)
    nearest = similarity.argmax(axis=1)
    return float((labels[nodes] == labels[nodes[nearest]]).mean())


#: Curvatures within this of the −0.5 cut count as on it (not below).
CURVATURE_TOLERANCE = 1e-9


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
        # κ is exact to ~1e-13, and graphs like the cSBM have many edges at exactly −0.5:
        # the tolerance keeps rounding from deciding which side they fall on
        orc_below_minus_half=float((kappa < -0.5 - CURVATURE_TOLERANCE).mean()),
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
