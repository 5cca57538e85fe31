"""ORC-ManL on single cells: scanpy's ``pbmc68k_reduced`` (700 cells, ships inside scanpy),
before and after pruning (Saidi et al., ICLR 2025, section 6: 40 PCs, k = 10, λ = 1e-5,
δ = 0.8, coloured by ``bulk_labels``).

PCA (arpack, 50 components), ``sc.pp.neighbors(n_neighbors=11, n_pcs=40)`` (10 neighbours
besides the cell itself, the paper's k = 10), UMAP before, ``rewirekit.scanpy.orc_manl`` with
λ = 1e-5, UMAP after (``random_state=0`` both times). Writes the two-panel picture
``docs/pbmc68k_orc_manl.png`` and the counts (edges, candidates, removed, connected components
before and after) to ``docs/pbmc68k_orc_manl.txt``.

    python benchmarks/pbmc68k_orc_manl.py [--out docs]
"""

from __future__ import annotations

import argparse
from importlib.metadata import version
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import scanpy as sc
from scipy.sparse.csgraph import connected_components

import rewirekit.scanpy

LDA, N_PCS, N_NEIGHBORS = 1e-5, 40, 11


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args()
    adata = sc.datasets.pbmc68k_reduced()
    sc.tl.pca(adata, n_comps=50, svd_solver="arpack")
    sc.pp.neighbors(adata, n_neighbors=N_NEIGHBORS, n_pcs=N_PCS)
    before_components = connected_components(adata.obsp["connectivities"], directed=False)[0]
    edges_before = adata.obsp["connectivities"].nnz // 2
    sc.tl.umap(adata, random_state=0)
    umap_before = adata.obsm["X_umap"].copy()
    rewirekit.scanpy.orc_manl(adata, lda=LDA)
    record = adata.uns["orc_manl"]
    after_components = connected_components(adata.obsp["connectivities"], directed=False)[0]
    sc.tl.umap(adata, random_state=0)
    labels = adata.obs["bulk_labels"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    for ax, embedding, title in (
        (axes[0], umap_before, f"kNN graph: {edges_before} edges, {before_components} comp."),
        (axes[1], adata.obsm["X_umap"], f"ORC-ManL: {record['edges']} edges, "
         f"{after_components} comp."),
    ):  # fmt: skip
        for name in labels.cat.categories:
            mask = (labels == name).to_numpy()
            ax.scatter(*embedding[mask].T, s=6, label=name)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[1].legend(fontsize=7, markerscale=2, loc="best")
    fig.suptitle("pbmc68k_reduced, UMAP of the neighbour graph (40 PCs, k = 10, λ = 1e-5)")
    fig.tight_layout()
    args.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out / "pbmc68k_orc_manl.png", dpi=110)
    lines = [
        "command: python benchmarks/pbmc68k_orc_manl.py",
        f"data: scanpy {version('scanpy')} pbmc68k_reduced, {adata.n_obs} cells; PCA 50 "
        f"(arpack), neighbours on {N_PCS} PCs, n_neighbors={N_NEIGHBORS} (k = 10)",
        f"ORC-ManL: {record['params']}",
        f"kNN edges: {record['knn_edges']} (connectivities pairs before: {edges_before})",
        f"candidates: {record['candidates']}, removed: {record['removed']}, "
        f"reattached: {record['reattached']}, edges after: {record['edges']}",
        f"connected components: before {before_components}, after {after_components}",
        "picture: docs/pbmc68k_orc_manl.png (UMAP random_state=0, before | after)",
    ]
    (args.out / "pbmc68k_orc_manl.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
