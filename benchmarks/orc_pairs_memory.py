"""BORF's later batches on a dense graph: the curvature of many edges of it, two ways.

    python benchmarks/orc_pairs_memory.py                      # Chameleon, one thread
    python benchmarks/orc_pairs_memory.py --dataset squirrel
    python benchmarks/orc_pairs_memory.py --dataset csbm --nodes 300   # smoke

From its second batch on, BORF recomputes the curvature (α = 0, unit lengths) of the edges
with an end next to an edit; on a graph with hubs that is nearly every edge, so this
measures every edge. Two ways, each in a fresh process (its own peak RSS), one after the
other:

* ``measures``: each endpoint's neighbour measure copied once per edge
  (:func:`~rewirekit.algorithms.neighbour_measures`, its rows repeated, then
  :func:`~rewirekit.algorithms.edge_wasserstein`), as BORF did before ``ollivier_ricci``
  took ``pairs``: the copies hold one entry per edge and neighbour of an end, ``Σ (deg u +
  deg v)`` over the edges;
* ``pairs``: :func:`~rewirekit.algorithms.ollivier_ricci` with ``pairs``, which reads each
  node's measure in place.

Prints, for each, the wall time, the CPU time (user + system), the process's peak RSS
(Linux ``ru_maxrss``, graph and imports included) and the ratios, and whether the two
arrays of values are equal bit for bit.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WAYS = ("measures", "pairs")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="chameleon", help="a dataset name, or csbm")
    parser.add_argument("--nodes", type=int, default=300, help="the cSBM's nodes")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)  # a child process
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.way:
        _measure(args)
        return
    with tempfile.TemporaryDirectory() as scratch:
        results, values = {}, {}
        for way in WAYS:
            out = Path(scratch) / f"{way}.npy"
            command = [sys.executable, __file__, "--dataset", args.dataset, "--nodes"]
            command += [str(args.nodes), "--threads", str(args.threads), "--way", way]
            child = subprocess.run(
                command + ["--out", str(out)], capture_output=True, text=True, check=True
            )
            results[way] = json.loads(child.stdout.splitlines()[-1])
            values[way] = np.load(out)
    print(f"{results['pairs']['graph']}; {args.threads} thread(s)")
    for way in WAYS:
        r = results[way]
        figures = f"{r['wall']:.1f}s wall, {r['cpu']:.1f}s CPU, peak RSS {r['peak_gib']:.2f} GiB"
        print(f"{way:>8}: {figures}")
    old, new = results["measures"], results["pairs"]
    ratios = {key: old[key] / new[key] for key in ("wall", "cpu", "peak_gib")}
    print(
        f"measures / pairs: wall {ratios['wall']:.2f}x, CPU {ratios['cpu']:.2f}x, "
        f"peak RSS {ratios['peak_gib']:.2f}x"
    )
    equal = np.array_equal(values["measures"], values["pairs"])
    print(f"values equal bit for bit: {equal} ({values['pairs'].size} edges)")


def _measure(args: argparse.Namespace) -> None:
    """One way, in this (child) process: its figures as a JSON line, its values to ``out``."""
    from timing import process_cpu_seconds, set_threads

    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.algorithms import edge_wasserstein, neighbour_measures, ollivier_ricci

    ei, n = _graph(args.dataset, args.nodes)
    start, cpu = time.perf_counter(), process_cpu_seconds()
    if args.way == "pairs":
        kappa = ollivier_ricci(ei, n, alpha=0.0, pairs=ei)
    else:
        measures = neighbour_measures(ei, n, alpha=0.0)
        source, target = _copied(measures, ei[0]), _copied(measures, ei[1])
        w1, _ = edge_wasserstein(ei, n, np.ones(ei.shape[1]), ei, source, target)
        kappa = 1.0 - w1  # unit lengths: d(x, y) = 1
    wall, cpu = time.perf_counter() - start, process_cpu_seconds() - cpu
    degree = np.bincount(ei.ravel(), minlength=n)
    figures = {
        "wall": wall,
        "cpu": cpu,
        "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,  # KiB
        "graph": f"{args.dataset}: {n} nodes, {ei.shape[1]} edges, max degree {degree.max()}, "
        f"Σ (deg u + deg v) over the edges {int(degree[ei].sum())}",
    }
    np.save(args.out, kappa)
    print(json.dumps(figures))


def _graph(dataset: str, nodes: int) -> tuple[np.ndarray, int]:
    """The undirected edges ``u < v`` of the graph, ``[2, E]``, and its node count."""
    if dataset == "csbm":
        from rewirekit.datasets import csbm

        data = csbm(num_nodes=nodes, num_features=8, avg_degree=20.0, phi=0.5, seed=0)
    else:
        from rewirekit.datasets import load

        data = load(dataset)
    n = data.num_nodes
    ei = data.edge_index.numpy()
    keys = np.unique(np.minimum(ei[0], ei[1]) * n + np.maximum(ei[0], ei[1]))
    keys = keys[keys // n != keys % n]
    return np.stack([keys // n, keys % n]), n


def _copied(measures, nodes: np.ndarray):
    """The measures of ``nodes``, one row each (a copy per occurrence)."""
    from rewirekit.algorithms import Measures

    sizes = np.diff(measures.ptr)[nodes]
    ptr = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    take = np.repeat(measures.ptr[nodes] - ptr[:-1], sizes) + np.arange(ptr[-1])
    return Measures(ptr, measures.nodes[take], measures.mass[take])


if __name__ == "__main__":
    main()
