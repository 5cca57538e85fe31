"""ORC-ManL: prune the shortcut edges of a kNN graph with Ollivier–Ricci curvature.

Saidi, Hickok, Blumberg and Blumberg, "Recovering Manifold Structure Using Ollivier-Ricci
Curvature", ICLR 2025 (https://arxiv.org/abs/2410.01149). A kNN graph of a noisy sample of a
manifold has *shortcuts*: edges between points close in space but far along the manifold.
They are negatively curved, and once removed their endpoints are far apart in the rest of the
graph. The algorithm, per edge ``{i, j}`` of the symmetrised kNN graph ``G``:

1. ``G`` = kNN graph (``A = max(A, Aᵀ)``), edge length ``‖x_i − x_j‖``.
2. ``ε_ij = max(ε_i, ε_j)`` where ``ε_i`` is the mean length of ``i``'s ``k`` shortest edges,
   a local scale.
3. ``κ_ij`` = Ollivier–Ricci curvature with ``ε`` as edge lengths and neighbour measures
   uniform on ``N(i)`` (α = 0).
4. Candidates: ``κ_ij < −1 + 4(1 − δ)``.
5. ``G'`` = ``G`` minus all candidates. A candidate is a shortcut, and removed, iff
   ``d_G'(i, j) > ε_ij · (1 − λ) π² / (2 √(24 λ))`` (path lengths Euclidean; the factor is
   9.97 at λ = 0.01). Other candidates are kept.
6. Nodes left without edges are reattached to their nearest neighbour (their shortest edge of
   ``G``, which in a kNN graph is the Euclidean nearest neighbour), if ``reattach``.

``faithful=True`` reproduces the official code (TristanSaidi/orcml, ``src/orcmanl.py``,
``src/utils/graph_utils.py``, ``src/ollivier_ricci.py``) where it departs from the above:

- step 2 skips each node's shortest edge: ``ε_i`` is the mean of its 2nd … (k+1)-th shortest
  edges (fewer where the node has fewer);
- step 3 uses asymmetric measures: for ``i < j``, ``μ_i`` is uniform on ``N(i) \\ {j}``
  but ``μ_j`` uniform on all of ``N(j)``, ``i`` included, and ``κ = 1 − W1 / ε_ij`` (the
  edge's own length, not the shortest-path distance); the value depends on which end is
  the smaller id and can fall below −1. Where ``N(i) = {j}`` the measure is undefined there;
  here it falls back to ``N(i)``;
- step 5 skips a candidate with an endpoint that has no edge in ``G'``: it is absent from the
  pruned graph yet counted as kept (verdict :data:`SKIPPED`).

Clean mode (the default) decides otherwise, on purpose: ``ε_i`` averages the ``k`` nearest
neighbours (what step 2 states), curvature is the standard symmetric ORC of
:func:`rewirekit.algorithms.ollivier_ricci` (``κ = 1 − W1 / d(i, j)``, the same for both
orientations), and a candidate whose endpoint is isolated in ``G'`` has ``d_G' = ∞`` and is
removed like any other shortcut (step 6 then reattaches the node).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rewirekit.algorithms.ollivier_ricci import Measures, edge_wasserstein, ollivier_ricci
from rewirekit.errors import RewireError
from rewirekit.manifold.knn import KnnGraph, check_points, knn_graph
from rewirekit.manifold.paths import bounded_pair_distances
from rewirekit.validation import check_bool, check_int

#: verdicts, one per edge of the input graph
KEPT = 0  #: not a candidate (curvature above the threshold)
VALIDATED = 1  #: a candidate whose endpoints stay close in ``G'``: kept
REMOVED = 2  #: a candidate whose endpoints are far apart in ``G'``: a shortcut, removed
SKIPPED = 3  #: faithful mode only: an endpoint has no edge in ``G'``; dropped, not validated


@dataclass(frozen=True)
class OrcManlResult:
    """What :func:`orc_manl` found.

    Attributes:
        graph: the pruned graph (kept edges plus reattachments), Euclidean lengths.
        input: the kNN graph that was pruned; the per-edge arrays below follow its edges.
        curvature: κ of each input edge.
        scale: ``ε_ij`` of each input edge.
        verdict: :data:`KEPT`, :data:`VALIDATED`, :data:`REMOVED` or :data:`SKIPPED`.
        reattached: ``[2, r]`` pairs added back to give isolated nodes an edge.
        params: the parameters used.
    """

    graph: KnnGraph
    input: KnnGraph
    curvature: np.ndarray
    scale: np.ndarray
    verdict: np.ndarray
    reattached: np.ndarray
    params: dict[str, Any]

    @property
    def candidates(self) -> np.ndarray:
        """Mask of the input edges below the curvature threshold (step 4)."""
        return self.verdict != KEPT

    @property
    def shortcuts(self) -> np.ndarray:
        """Mask of the input edges judged shortcuts (the official code's removals)."""
        return self.verdict == REMOVED

    @property
    def dropped(self) -> np.ndarray:
        """Mask of the input edges missing from the pruned graph before reattachment
        (shortcuts, plus the skipped candidates of faithful mode)."""
        return (self.verdict == REMOVED) | (self.verdict == SKIPPED)


def curvature_threshold(delta: float) -> float:
    """Step 4: candidates have ``κ < −1 + 4(1 − δ)``."""
    return -1.0 + 4.0 * (1.0 - delta)


def distance_factor(lda: float) -> float:
    """Step 5: a candidate is a shortcut when ``d_G'`` exceeds ``ε`` times
    ``(1 − λ) π² / (2 √(24 λ))``."""
    return (1.0 - lda) * np.pi**2 / (2.0 * np.sqrt(24.0 * lda))


def orc_manl(
    data: np.ndarray | KnnGraph,
    k: int = 20,
    delta: float = 0.8,
    lda: float = 0.01,
    reattach: bool = True,
    faithful: bool = False,
    points: np.ndarray | None = None,
) -> OrcManlResult:
    """Prune the shortcut edges of the kNN graph of a point cloud (see the module docstring
    for the algorithm and for what ``faithful`` changes).

    Args:
        data: ``[n, d]`` points (their kNN graph is built), or a :class:`KnnGraph` (e.g. from
            :func:`knn_graph` or ``KnnGraph.from_edge_index``) whose lengths are distances.
        k: neighbours per point; also the number of shortest edges averaged into ``ε_i``.
        delta: ``δ`` in ``(0, 1]``; candidates have ``κ < −1 + 4(1 − δ)`` (−0.2 at 0.8).
        lda: ``λ`` in ``(0, 1)``; smaller ``λ`` demands longer detours before removing.
        reattach: give nodes left without edges their shortest original edge back.
        faithful: reproduce the official code's choices.
        points: coordinates of the graph's nodes when ``data`` is a graph whose lengths are
            Euclidean; only used to speed up the path searches (A*).

    Returns:
        :class:`OrcManlResult`.

    Example::

        >>> from rewirekit.manifold import make_manifold
        >>> sample = make_manifold("circles", n_points=1000, seed=0)
        >>> result = orc_manl(sample.points, k=10)
        >>> result.graph.num_edges <= result.input.num_edges + result.reattached.shape[1]
        True
    """
    k, delta, lda, reattach, faithful = check_params(k, delta, lda, reattach, faithful)
    if isinstance(data, KnnGraph):
        graph = data
        if points is not None:
            points = check_points(points)
    else:
        points = check_points(data)
        graph = knn_graph(points, k)
    if graph.num_edges == 0:
        raise RewireError("the graph has no edges; ORC-ManL needs a kNN graph to prune.")
    scale = edge_scale(graph, k, skip_nearest=faithful)
    curvature = _faithful_curvature(graph, scale) if faithful else _curvature(graph, scale)
    verdict = np.where(curvature < curvature_threshold(delta), VALIDATED, KEPT).astype(np.int8)
    candidate = np.flatnonzero(verdict != KEPT)
    rest = graph.subgraph(verdict == KEPT)
    if faithful:
        has_rest = rest.degree() > 0
        checked = candidate[has_rest[graph.src[candidate]] & has_rest[graph.dst[candidate]]]
        verdict[np.setdiff1d(candidate, checked)] = SKIPPED
        candidate = checked
    limit = distance_factor(lda) * scale[candidate]
    detour = bounded_pair_distances(
        rest, graph.src[candidate], graph.dst[candidate], limit, points=points
    )
    verdict[candidate[np.isinf(detour)]] = REMOVED
    kept = graph.subgraph((verdict == KEPT) | (verdict == VALIDATED))
    added = _reattachments(graph, kept) if reattach else np.empty((2, 0), dtype=np.int64)
    pruned = _with_edges(kept, graph, added)
    params = dict(k=k, delta=delta, lda=lda, reattach=reattach, faithful=faithful)
    return OrcManlResult(pruned, graph, curvature, scale, verdict, added, params)


def edge_scale(graph: KnnGraph, k: int, skip_nearest: bool = False) -> np.ndarray:
    """``ε_ij = max(ε_i, ε_j)`` per edge, with ``ε_i`` the mean length of node ``i``'s ``k``
    shortest edges (its ``k`` nearest neighbours in a kNN graph), or of its 2nd … (k+1)-th
    shortest with ``skip_nearest`` (the official off-by-one; a node with a single edge then
    keeps that edge's length)."""
    indptr, _, lengths, _ = graph.csr()
    degree = np.diff(indptr)
    rows = np.repeat(np.arange(graph.num_nodes), degree)
    order = np.lexsort((lengths, rows))  # rows stay in CSR order, each sorted by length
    rank = np.arange(rows.size) - indptr[rows]
    first = 1 if skip_nearest else 0
    use = (rank >= first) & (rank < first + k)
    use |= (rank == 0) & (degree[rows] == 1)  # nothing else to average
    total = np.bincount(rows, weights=np.where(use, lengths[order], 0.0), minlength=degree.size)
    count = np.bincount(rows, weights=use, minlength=degree.size)
    node_scale = total / np.maximum(count, 1)
    return np.maximum(node_scale[graph.src], node_scale[graph.dst])


def _curvature(graph: KnnGraph, scale: np.ndarray) -> np.ndarray:
    """Symmetric ORC with lengths ``ε`` and uniform neighbour measures (α = 0; exp_power = 0
    makes every neighbour weight ``e⁻¹``)."""
    edge_index = np.stack([graph.src, graph.dst])
    return ollivier_ricci(edge_index, graph.num_nodes, scale, alpha=0.0, exp_power=0.0)


def _faithful_curvature(graph: KnnGraph, scale: np.ndarray) -> np.ndarray:
    """The official code's ORC: for ``i < j``, ``μ_i`` uniform on ``N(i) \\ {j}``, ``μ_j``
    uniform on ``N(j)``; ``κ = 1 − W1 / ε_ij`` (0 where ``ε_ij < 1e-7``)."""
    indptr, neighbours, _, _ = graph.csr()
    source = _uniform_on_neighbours(indptr, neighbours, graph.src, exclude=graph.dst)
    target = _uniform_on_neighbours(indptr, neighbours, graph.dst)
    pairs = np.stack([graph.src, graph.dst])
    w1, _ = edge_wasserstein(pairs, graph.num_nodes, scale, pairs, source, target)
    tiny = scale < 1e-7  # GraphRicciCurvature's EPSILON
    return np.where(tiny, 0.0, 1.0 - w1 / np.where(tiny, 1.0, scale))


def _uniform_on_neighbours(
    indptr: np.ndarray,
    neighbours: np.ndarray,
    centre: np.ndarray,
    exclude: np.ndarray | None = None,
) -> Measures:
    """Row ``r``: the uniform measure on the neighbours of ``centre[r]``, minus
    ``exclude[r]`` unless that would leave nothing."""
    start, count = indptr[centre], indptr[centre + 1] - indptr[centre]
    owner = np.repeat(np.arange(centre.size), count)
    entry = np.arange(owner.size) - np.repeat(np.cumsum(count) - count, count) + start[owner]
    nodes = neighbours[entry]
    if exclude is not None:
        drop = (nodes == exclude[owner]) & (count[owner] > 1)
        nodes, owner = nodes[~drop], owner[~drop]
    size = np.bincount(owner, minlength=centre.size)
    ptr = np.zeros(centre.size + 1, dtype=np.int64)
    np.cumsum(size, out=ptr[1:])
    return Measures(ptr=ptr, nodes=nodes, mass=1.0 / size[owner])


def _reattachments(graph: KnnGraph, kept: KnnGraph) -> np.ndarray:
    """``[2, r]`` canonical pairs joining each node without a kept edge to its shortest edge
    in ``graph`` (ties: the smaller neighbour id)."""
    lonely = (kept.degree() == 0) & (graph.degree() > 0)
    if not lonely.any():
        return np.empty((2, 0), dtype=np.int64)
    indptr, neighbours, lengths, _ = graph.csr()
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(indptr))
    order = np.lexsort((neighbours, lengths, rows))
    first = order[indptr[:-1][lonely]]  # the shortest edge of each lonely node
    node, other = rows[first], neighbours[first]
    pairs = np.unique(np.minimum(node, other) * graph.num_nodes + np.maximum(node, other))
    return np.stack([pairs // graph.num_nodes, pairs % graph.num_nodes])


def _with_edges(kept: KnnGraph, graph: KnnGraph, added: np.ndarray) -> KnnGraph:
    """``kept`` plus the ``added`` pairs of ``graph`` (with their lengths)."""
    if added.shape[1] == 0:
        return kept
    n = graph.num_nodes
    position = np.searchsorted(graph.src * n + graph.dst, added[0] * n + added[1])
    src = np.r_[kept.src, added[0]]
    dst = np.r_[kept.dst, added[1]]
    return KnnGraph.from_pairs(n, src, dst, np.r_[kept.length, graph.length[position]])


def check_params(
    k: Any, delta: Any, lda: Any, reattach: Any, faithful: Any
) -> tuple[int, float, float, bool, bool]:
    """ORC-ManL's parameters in canonical types, or a :class:`RewireError` saying why not."""
    for name, value, high_open in (("delta", delta, False), ("lda", lda, True)):
        number = not isinstance(value, bool) and isinstance(value, (int, float, np.floating))
        if not number or not (0 < value < 1 if high_open else 0 < value <= 1):
            interval = "(0, 1)" if high_open else "(0, 1]"
            raise RewireError(f"{name} must be a number in {interval}, got {value!r}.")
    return (
        check_int("k", k, 1),
        float(delta),
        float(lda),
        check_bool("reattach", reattach),
        check_bool("faithful", faithful),
    )
