"""JDR's randomized solver against its exact truncated solver: time, output and accuracy.

    python benchmarks/jdr_randomized.py                     # N=20,000, 4/8/16 passes, 5 splits
    python benchmarks/jdr_randomized.py --nodes 5000 --passes 8 --splits 2

Runs JDR (by default K=10, L_A=L_X=top_k=64, as ``jdr_scale.py``) on a seeded cSBM with the
truncated solver (ARPACK to tolerance) and with ``solver="randomized"`` at each number of
Krylov passes, and prints for each: wall time, the alignment before and after, how far
its denoised features are from the exact solver's (relative to the exact change of the
features), the Jaccard overlap of its edge set with the exact one, and the test accuracy
of a GCN trained on its output (the JDR preset's cSBM settings, sparse split, mean ±
standard error over ``--splits`` splits), next to the GCN on the input graph.

The row "truncated, seed 1" is the exact solver again from another ARPACK start vector:
how far the exact method's own output moves within its tolerance, the yardstick for the
randomized rows (the eigenvectors inside the packed edge of the bulk spectrum are
ill-conditioned, so the output is too).
"""

from __future__ import annotations

import argparse
import time
from functools import partial


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--passes", type=int, nargs="+", default=[4, 8, 16])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--rank", type=int, default=64, help="L_A = L_X = top_k")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    from timing import set_threads

    set_threads(args.threads)
    import rewirekit
    from rewirekit.datasets import csbm

    data = csbm(num_nodes=args.nodes, num_features=128, avg_degree=14.0, phi=0.5, seed=0)
    params = dict(
        num_iterations=args.iterations, rank_a=args.rank, rank_x=args.rank, top_k=args.rank, seed=0
    )
    print(
        f"cSBM N={args.nodes}, F=128, mean degree 14, phi=0.5; JDR K={args.iterations}, "
        f"L_A=L_X=top_k={args.rank}; GCN over {args.splits} sparse splits"
    )
    print(
        f"{'solver':<18} {'wall':>7} {'alignment':>13} {'features off':>12} "
        f"{'edge Jaccard':>12} {'GCN test acc':>14}"
    )
    print(
        f"{'input graph':<18} {'':>7} {'':>13} {'':>12} {'':>12} "
        f"{_accuracy(data, args.splits, rewired=False):>14}",
        flush=True,
    )
    exact, seconds = _timed(lambda: rewirekit.rewire(data, "jdr", solver="truncated", **params))
    _row("truncated", exact, seconds, exact, data, args.splits)
    again, seconds = _timed(
        lambda: rewirekit.rewire(data, "jdr", solver="truncated", **{**params, "seed": 1})
    )
    _row("truncated, seed 1", again, seconds, exact, data, args.splits)
    for passes in args.passes:
        out, seconds = _timed(
            partial(
                rewirekit.rewire, data, "jdr", solver="randomized", krylov_passes=passes, **params
            )
        )
        _row(f"randomized, {passes}", out, seconds, exact, data, args.splits)


def _timed(run):
    start = time.perf_counter()
    out = run()
    return out, time.perf_counter() - start


def _row(label, out, seconds, exact, data, splits) -> None:
    extra = out.rewire_report.extra
    change = (exact.x.double() - data.x.double()).norm()
    off = float((out.x.double() - exact.x.double()).norm() / change)
    mine, theirs = _edge_keys(out), _edge_keys(exact)
    jaccard = len(mine & theirs) / len(mine | theirs)
    alignment = f"{extra['alignment_before']:.3f}->{extra['alignment_after']:.3f}"
    print(
        f"{label:<18} {seconds:>6.1f}s {alignment:>13} {off:>12.3f} {jaccard:>12.3f} "
        f"{_accuracy(out, splits, rewired=True):>14}",
        flush=True,
    )


def _edge_keys(data) -> set[int]:
    src, dst = data.edge_index
    return set((src * data.num_nodes + dst).tolist())


def _accuracy(data, splits: int, rewired: bool) -> str:
    """GCN test accuracy (%) under the JDR preset's cSBM settings, sparse split."""
    import numpy as np
    from torch_geometric.data import Data

    from rewirekit.bench.presets import get_training_preset
    from rewirekit.bench.training import train_node_classifier
    from rewirekit.datasets import get_split_preset

    split, training = get_split_preset("sparse"), get_training_preset("jdr")
    graph = Data(x=data.x.float(), edge_index=data.edge_index, y=data.y, num_nodes=data.num_nodes)
    if getattr(data, "edge_weight", None) is not None:
        graph.edge_weight = data.edge_weight.float()
    graph = training.prepare(split.prepare(graph), "csbm", "gcn", rewired=rewired)
    config = training.config("csbm", "gcn", rewired=rewired, split="sparse")
    accuracies = [
        train_node_classifier(graph, *split.split(graph, i, "csbm"), "gcn", config, seed=i).test_acc
        for i in range(splits)
    ]
    mean, error = 100 * np.mean(accuracies), 100 * np.std(accuracies) / np.sqrt(splits)
    return f"{mean:.2f} ± {error:.2f}"


if __name__ == "__main__":
    main()
