"""How many points of each leaderboard dataset tie at ORC-ManL's k-th neighbour distance, and
how many kNN edges the tie rule of ``knn_graph`` changes on this machine.

ORC-ManL builds a kNN graph of the node features it is handed (the leaderboard's method
input: :func:`rewirekit.bench.runner.method_input`). Where a point's k-th and (k+1)-th
nearest distances are equal, which neighbour it keeps was left to the search's own order,
which differed between machines; ``knn_graph`` now gives ties to the smaller index. For
every dataset of the rows and each k of ORC-ManL's search space this prints the points with
such a tie and the symmetrised edges in which the search's own order
(``NearestNeighbors.kneighbors``, this machine) and the index rule differ, and writes
``docs/knn_ties.md``::

    REWIREKIT_DATA=../shared/datasets python benchmarks/knn_ties.py
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from sklearn.neighbors import NearestNeighbors

from rewirekit.bench.leaderboard import TRAINING_PRESET
from rewirekit.bench.runner import DatasetSpec, MethodSpec, method_input
from rewirekit.bench.store import ResultStore, numpy_simd
from rewirekit.manifold import KnnGraph, knn_graph
from rewirekit.manifold.knn import tie_tolerance
from rewirekit.methods import method_class
from rewirekit.search_space import Choice


def _pairs(graph: KnnGraph) -> set[tuple[int, int]]:
    return set(zip(graph.src.tolist(), graph.dst.tolist(), strict=True))


def _search_order_graph(points: np.ndarray, k: int) -> KnnGraph:
    """The kNN graph as the search orders ties (the rule before ``knn_graph``'s)."""
    distances, neighbours = NearestNeighbors(n_neighbors=k).fit(points).kneighbors()
    rows = np.repeat(np.arange(points.shape[0]), k)
    return KnnGraph.from_pairs(points.shape[0], rows, neighbours.ravel(), distances.ravel())


def _tied_points(points: np.ndarray, k: int) -> int:
    distances, _ = NearestNeighbors(n_neighbors=k + 1).fit(points).kneighbors()
    kth = distances[:, k - 1]
    return int((distances[:, k] <= kth + tie_tolerance(kth)).sum())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=Path, nargs="+", default=[Path("docs/leaderboard.csv.gz")])
    parser.add_argument("--out", type=Path, default=Path("docs/knn_ties.md"))
    args = parser.parse_args(argv)
    with ResultStore(":memory:") as rows:
        for path in args.rows:
            rows.import_csv(path)
        records = list(rows.records(method="orc_manl"))
    cells = sorted({(r.key.dataset, r.key.split_preset, r.key.model) for r in records})
    k_choice = method_class("orc_manl").search_space["k"]
    assert isinstance(k_choice, Choice)
    ks = [int(k) for k in k_choice.values if isinstance(k, int)]
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        "# Ties at ORC-ManL's k-th neighbour distance",
        "",
        f"Written by `benchmarks/knn_ties.py` on {when}"
        f" (NumPy's SIMD targets on this machine: {numpy_simd()}). For each leaderboard "
        "dataset with ORC-ManL rows, its method input's features (the points ORC-ManL's kNN "
        "graph is built on), and each k of ORC-ManL's search space: the points whose k-th and "
        "(k+1)-th nearest distances are equal (within 1e-9 relative), and the edges of the "
        "symmetrised kNN graph that the search's own tie order (`NearestNeighbors`, on this "
        "machine) and `knn_graph`'s rule (ties to the smaller index) do not share.",
        "",
        "| dataset | model | points | k | points tied at the k-th | kNN edges | edges not shared |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    inputs: dict[str, np.ndarray] = {}
    for dataset, split, model in cells:
        spec = DatasetSpec.from_key(dataset)
        if spec is None:
            continue
        data = method_input(spec, model, MethodSpec("orc_manl"), split, TRAINING_PRESET)
        points = data.x.double().numpy()
        if dataset in inputs and np.array_equal(inputs[dataset], points):
            continue  # the same features under the other model
        inputs[dataset] = points
        for k in ks:
            if k >= points.shape[0]:
                continue
            old, new = _pairs(_search_order_graph(points, k)), _pairs(knn_graph(points, k))
            line = (
                f"| {dataset} | {model} | {points.shape[0]} | {k} | {_tied_points(points, k)} | "
                f"{len(new)} | {len(old ^ new)} |"
            )
            print(line, flush=True)
            lines.append(line)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
