"""ORC-ManL as a rewiring method: the pruned kNN graph of the node positions or features.

Paper: Saidi, Hickok, Blumberg and Blumberg, "Recovering Manifold Structure Using
Ollivier-Ricci Curvature", ICLR 2025, https://arxiv.org/abs/2410.01149. The algorithm lives
in :mod:`rewirekit.manifold.orc_manl`; this module adapts it to the Rewirer contract.
"""

from __future__ import annotations

import numpy as np
from torch_geometric.data import Data

from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet
from rewirekit.manifold.orc_manl import KEPT, REMOVED, SKIPPED, check_params, orc_manl
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.search_space import Choice, FloatRange


class OrcManl(Rewirer):
    """ORC-ManL: the kNN graph of the nodes' points, with its curvature shortcuts pruned.

    Builds the symmetrised ``k``-nearest-neighbour graph of ``data.pos`` (or of ``data.x``
    when there is no ``pos``), computes each edge's Ollivier–Ricci curvature with local
    length scales ``ε``, takes the edges with ``κ < −1 + 4(1 − δ)`` as candidates and removes
    a candidate when, without the candidates, its endpoints are more than
    ``ε (1 − λ) π² / (2 √(24 λ))`` apart; isolated nodes get their nearest neighbour back.
    See :func:`rewirekit.manifold.orc_manl` for the steps and for ``faithful``.

    Documented decisions:

    - The input edges are **ignored**: the graph is *replaced* by the pruned kNN graph of the
      points (the report counts the edits against the input graph). Input self-loops and
      weights are dropped; the output is unweighted and undirected (GNN layers read
      ``edge_weight`` as a strength, not a distance; use :func:`rewirekit.manifold.orc_manl`
      for the Euclidean lengths).
    - With ``k >= num_nodes`` the kNN graph uses ``k = num_nodes − 1`` (every other node);
      the report's ``extra["k_used"]`` says so.
    - The method is deterministic (no ``seed``): kNN search and transport are exact.

    Args:
        k: neighbours per point (paper: 20; 10 for single cells).
        delta: ``δ`` in ``(0, 1]``; candidates have ``κ < −1 + 4(1 − δ)``.
        lda: ``λ`` in ``(0, 1)``; the detour factor (9.97 at 0.01, 318.5 at 1e-5).
        reattach: give nodes left without edges their nearest neighbour back.
        faithful: reproduce the official code's choices (asymmetric measures, the ε off-by-one,
            skipped candidates).
    """

    name = "orc_manl"
    examples = (
        Example(params={"k": 3}),
        Example(params={"k": 4, "delta": 0.6, "lda": 0.1, "faithful": True}),
    )

    #: Stated (the paper fixes k = 20, δ = 0.8, λ = 0.01, and λ = 1e-5 for single cells):
    #: neighbour counts up to the paper's, δ around 0.8, λ log-uniform over both of its values.
    search_space = {
        "k": Choice((5, 10, 20)),
        "delta": FloatRange(0.6, 0.95),
        "lda": FloatRange(1e-5, 0.1, log=True),
    }

    def __init__(
        self,
        k: int = 20,
        delta: float = 0.8,
        lda: float = 0.01,
        reattach: bool = True,
        faithful: bool = False,
    ) -> None:
        super().__init__()
        self.k, self.delta, self.lda, self.reattach, self.faithful = check_params(
            k, delta, lda, reattach, faithful
        )

    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        source = "pos" if "pos" in data and data.pos is not None else "x"
        points = getattr(data, source, None)
        if points is None:
            raise RewireError("orc_manl needs node coordinates in data.pos or features in data.x.")
        points = points.detach().cpu().double().numpy().reshape(edges.num_nodes, -1)
        if edges.num_nodes < 2:
            raise RewireError("orc_manl needs at least two nodes to build a kNN graph.")
        k = min(self.k, edges.num_nodes - 1)
        result = orc_manl(
            points, k=k, delta=self.delta, lda=self.lda,
            reattach=self.reattach, faithful=self.faithful,
        )  # fmt: skip
        pruned = result.graph
        empty = np.empty(0, dtype=np.int64)
        new = EdgeSet(edges.num_nodes, pruned.src, pruned.dst, None, empty, None, False)
        extra = dict(
            points=source,
            k_used=k,
            knn_edges=result.input.num_edges,
            candidates=int((result.verdict != KEPT).sum()),
            shortcuts=int((result.verdict == REMOVED).sum()),
            skipped=int((result.verdict == SKIPPED).sum()),
            reattached=int(result.reattached.shape[1]),
        )
        return RewireOutput(new, extra=extra)
