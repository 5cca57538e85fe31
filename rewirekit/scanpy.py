"""ORC-ManL for single cells: prune the neighbour graph that ``scanpy.pp.neighbors`` built.

Saidi et al. (ICLR 2025, section 6) prune the kNN graph of single-cell PCA coordinates
before embedding it (``pbmc68k_reduced``: 40 PCs, k = 10, λ = 1e-5). Here the graph comes
from scanpy: ``adata.obsp["distances"]`` (each cell's ``n_neighbors − 1`` nearest other cells)
is symmetrised into the kNN graph, pruned by :func:`rewirekit.manifold.orc_manl`, and both
``obsp`` matrices keep only the surviving pairs, so ``sc.tl.umap``, ``sc.tl.leiden`` and the
rest run on the pruned graph unchanged. Needs the ``singlecell`` extra (scanpy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from rewirekit.errors import RewireError
from rewirekit.manifold.knn import KnnGraph
from rewirekit.manifold.orc_manl import check_params
from rewirekit.manifold.orc_manl import orc_manl as _orc_manl


def orc_manl(
    adata: Any,
    k: int | None = None,
    delta: float = 0.8,
    lda: float = 0.01,
    reattach: bool = True,
    faithful: bool = False,
    neighbors_key: str = "neighbors",
    key_added: str = "orc_manl",
) -> None:
    """Prune ``sc.pp.neighbors``' graph of ``adata`` with ORC-ManL, in place.

    Args:
        adata: an ``AnnData`` on which ``sc.pp.neighbors`` has run.
        k: neighbours averaged into the local scale ``ε``; default: the non-self neighbours
            of ``sc.pp.neighbors`` (its ``n_neighbors − 1``).
        delta, lda, reattach, faithful: as in :func:`rewirekit.manifold.orc_manl`.
        neighbors_key: the ``adata.uns`` key ``sc.pp.neighbors`` wrote (its ``key_added``,
            default ``"neighbors"``).
        key_added: where the record goes: ``adata.uns[key_added]`` holds the parameters and
            counts; the original matrices move to ``adata.obsp[key_added +
            "_original_connectivities"]`` and ``[key_added + "_original_distances"]``.

    The connectivities and distances under ``neighbors_key`` keep exactly the pairs of the
    pruned graph (reattached pairs are original pairs, so both matrices have values for
    them); their other entries are removed.
    """
    if neighbors_key not in adata.uns:
        raise RewireError(
            f"adata.uns has no {neighbors_key!r}; run sc.pp.neighbors(adata) first "
            "(or pass its key_added as neighbors_key)."
        )
    neighbors = adata.uns[neighbors_key]
    dist_key = neighbors.get("distances_key", "distances")
    conn_key = neighbors.get("connectivities_key", "connectivities")
    distances = sparse.coo_matrix(adata.obsp[dist_key])
    if k is None:
        k = int(neighbors.get("params", {}).get("n_neighbors", 16)) - 1
    k, delta, lda, reattach, faithful = check_params(k, delta, lda, reattach, faithful)
    n = adata.n_obs
    graph = KnnGraph.from_pairs(n, distances.row, distances.col, distances.data)
    result = _orc_manl(graph, k=k, delta=delta, lda=lda, reattach=reattach, faithful=faithful)
    keep = result.graph.src * n + result.graph.dst
    original = {}
    for key in (conn_key, dist_key):
        matrix = sparse.csr_matrix(adata.obsp[key])
        original[key] = (
            f"{key_added}_original_{'connectivities' if key == conn_key else 'distances'}"
        )
        adata.obsp[original[key]] = matrix.copy()
        adata.obsp[key] = _restricted(matrix, keep, n)
    adata.uns[key_added] = dict(
        params=dict(k=k, delta=delta, lda=lda, reattach=reattach, faithful=faithful),
        neighbors_key=neighbors_key,
        original_connectivities_key=original[conn_key],
        original_distances_key=original[dist_key],
        knn_edges=result.input.num_edges,
        candidates=int(result.candidates.sum()),
        removed=int(result.dropped.sum()),
        reattached=int(result.reattached.shape[1]),
        edges=result.graph.num_edges,
    )


def _restricted(matrix: sparse.csr_matrix, keep: np.ndarray, n: int) -> sparse.csr_matrix:
    """``matrix`` with only the entries whose unordered pair key ``min * n + max`` is in the
    sorted array ``keep``."""
    coo = matrix.tocoo()
    keys = np.minimum(coo.row, coo.col).astype(np.int64) * n + np.maximum(coo.row, coo.col)
    position = np.searchsorted(keep, keys).clip(max=max(keep.size - 1, 0))
    inside = (keep[position] == keys) if keep.size else np.zeros(keys.size, dtype=bool)
    kept = sparse.coo_matrix(
        (coo.data[inside], (coo.row[inside], coo.col[inside])), shape=matrix.shape
    )
    return kept.tocsr()
