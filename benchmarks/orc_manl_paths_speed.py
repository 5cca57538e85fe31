"""ORC-ManL's validation searches: one search per candidate edge (A* on the points) against
one Dijkstra search per source node shared by its candidates.

    REWIREKIT_DATA=../shared/datasets python benchmarks/orc_manl_paths_speed.py
    python benchmarks/orc_manl_paths_speed.py --inputs swiss_roll:2000 --repeat 1  # smoke

ORC-ManL removes a candidate edge (negative curvature) when its ends are farther apart than a
limit once the candidates are gone. On the kNN graph of high-dimensional node features the
candidates crowd at hubs, and the A* bound (the straight line to the target) costs a pass
over every coordinate per visit. For each input the script runs ``orc_manl`` once (the
curvature and the candidates, untimed), rebuilds the validation queries from its result,
and times the shared searches (``bounded_pair_distances`` without points) against one A*
search per query (the private ``_pair_distances``, which ``bounded_pair_distances`` ran on
every query before), under one ``timing.Protocol``; the two must return the same distances
(to 1e-12), and the script stops otherwise.

Inputs: ``NAME`` is a dataset's node features (as the ``orc_manl`` rewirer reads them),
``NAME@D`` their first D principal components, ``MANIFOLD:N`` a seeded ``make_manifold``
sample of N points. Given the points, ``bounded_pair_distances`` runs A* up to
``A_STAR_MAX_DIMENSION`` coordinates and the shared searches above; the sweep over Cora's
principal components is where that bound was read from. Every kernel is compiled on a small
sample first (untimed).
"""

from __future__ import annotations

import argparse
import os
from functools import partial

import numpy as np
from timing import Protocol, ratio, run_header, set_threads

INPUTS = ("chameleon", "cora", "cora@100", "cora@40", "cora@16", "cora@3", "swiss_roll:20000")


def load_points(name: str) -> np.ndarray:
    if ":" in name:
        from rewirekit.manifold import make_manifold

        manifold, size = name.split(":")
        return make_manifold(manifold, n_points=int(size), seed=0).points
    from rewirekit.datasets import load

    dataset, _, components = name.partition("@")
    features = load(dataset).x.double().numpy()
    if not components:
        return features
    centred = features - features.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    return np.ascontiguousarray(u[:, : int(components)] * s[: int(components)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", nargs="+", default=list(INPUTS))
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--delta", type=float, default=0.8)
    parser.add_argument("--lda", type=float, default=0.01)
    parser.add_argument("--threads", type=int, default=2)
    Protocol.add_arguments(parser, repeats=1, warmup=0)
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)
    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.manifold import bounded_pair_distances, orc_manl
    from rewirekit.manifold import paths as kernel
    from rewirekit.manifold.orc_manl import KEPT, distance_factor

    print(run_header("orc_manl_paths_speed.py"))
    print(
        f"load average {os.getloadavg()[0]:.2f}; threads {args.threads}; k {args.k}, delta "
        f"{args.delta}, lda {args.lda}; {protocol.describe()}"
    )
    tiny = load_points("swiss_roll:300")  # compile every kernel, untimed
    wide = np.random.default_rng(0).normal(size=(300, kernel.A_STAR_MAX_DIMENSION + 1))
    for sample in (tiny, wide):
        bounded_pair_distances(
            orc_manl(sample, k=5).input, np.arange(5), np.arange(5, 10), 1.0, sample
        )
    for name in args.inputs:
        points = load_points(name)
        result = orc_manl(points, k=args.k, delta=args.delta, lda=args.lda)
        graph, verdict = result.input, result.verdict
        candidate = np.flatnonzero(verdict != KEPT)
        rest = graph.subgraph(verdict == KEPT)
        src, dst = graph.src[candidate], graph.dst[candidate]
        limit = distance_factor(args.lda) * result.scale[candidate]
        blocks = min(max(src.size, 1), 8 * numba.get_num_threads())
        coords = np.ascontiguousarray(points, dtype=np.float64)
        csr = rest.csr()[:3]
        per_query = partial(kernel._pair_distances, *csr, coords, src, dst, limit, blocks)
        shared, ours = protocol.timed(partial(bounded_pair_distances, rest, src, dst, limit))
        single, before = protocol.timed(per_query)
        same = np.array_equal(np.isinf(shared), np.isinf(single)) and np.allclose(
            shared[np.isfinite(shared)], single[np.isfinite(single)], rtol=1e-12, atol=1e-12
        )
        if not same:
            raise SystemExit(f"{name}: the two searches disagree")
        sources = np.unique(src).size
        a_star = points.shape[1] <= kernel.A_STAR_MAX_DIMENSION
        print(
            f"{name}: N={graph.num_nodes}, dimension {points.shape[1]}, E={graph.num_edges}, "
            f"{src.size} candidates at {sources} source nodes, {int(np.isinf(shared).sum())} "
            f"beyond their limit | one A* per candidate {before.cell(0)} | Dijkstra shared by "
            f"source {ours.cell(0)} | {ratio(before, ours):.1f}x | bounded_pair_distances "
            f"runs {'A*' if a_star else 'the shared searches'} | load average "
            f"{os.getloadavg()[0]:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
