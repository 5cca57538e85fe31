"""BORF of rewirekit against the official code (hieubkvn123/revisiting-gnn-curvature).

    mkdir /tmp/borf_official
    git -C <clone of hieubkvn123/revisiting-gnn-curvature> archive HEAD \
        | tar x -C /tmp/borf_official
    REWIREKIT_DATA=/work/shared/datasets python benchmarks/borf_vs_official.py /tmp/borf_official

BORF is deterministic, so the runs can match edge for edge. Per dataset (made undirected as
the official protocol does, self-loops dropped; batches/h/k from the repo's results log) it
prints:

1. *Replay*, batch by batch on the official trajectory: the official ``borf3`` step (its
   vendored GraphRicciCurvature ``OllivierRicci(alpha=0)`` on the networkx DiGraph) against
   ours (the faithful mode's per-arc transport, ``_transport``) on the same graph: max
   |kappa diff|, the lowest ``h`` and highest ``k`` arcs, the plan's argmax pair of each of
   the ``h`` arcs, each difference classified as a tie (equal kappa at the cut, or an equal
   entry of the plan x cost matrix), as another optimal plan where the official supports are not in
   ascending order (an added arc comes last in networkx's neighbour order, and
   ``ot.emd`` returns another optimal vertex for permuted input), or as other.
2. *Full runs*: official ``borf3`` against ours (``faithful=True`` and the default): pairs in
   common and different. The official output is a directed edge list; it is read back as
   ours reads its arcs (an input edge stays if both arcs do, a new pair appears if either
   arc was added).
3. *Speed*: wall time of the official ``borf3`` (2 processes, its default ``cpu_count``) and
   of ours, median and min over the repeats.

The official ``_preprocess_data`` tests ``"edge_type" in data.keys``, which fails on
PyG >= 2.4 (``keys`` became a method); it is replaced by the same two lines with
``data.keys()``. Its on-disk cache is pointed at a fresh temporary directory.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from timing import set_threads

#: (batches N, h, k) per dataset: the repo's results/node_classification_GCN_brf.csv.
PAPER = {"cora": (3, 20, 10), "texas": (3, 30, 10)}


def load_official(root: Path):
    sys.path.insert(0, str(root))
    borf = importlib.import_module("preprocessing.borf")
    import numpy as np_
    from torch_geometric.utils import to_networkx

    def preprocess(data, is_undirected=False):  # the official lines, data.keys() for PyG 2.4+
        edge_type = np_.zeros(data.edge_index.shape[1], dtype=int)
        graph = to_networkx(data)
        if is_undirected:
            graph = graph.to_undirected()
        return graph, data.x.shape[0], edge_type

    borf._preprocess_data = preprocess  # type: ignore[attr-defined]
    return borf


def undirected_pairs(arcs: set[tuple[int, int]], before: set[tuple[int, int]]) -> set:
    pairs: dict[tuple[int, int], int] = {}
    for u, v in arcs:
        key = (min(u, v), max(u, v))
        pairs[key] = pairs.get(key, 0) + 1
    return {p for p, count in pairs.items() if count == 2 or p not in before}


def replay(name, data, borf) -> None:
    import networkx as nx
    from torch_geometric.utils import to_networkx

    from rewirekit.methods.curvature import _Arcs, _transport

    batches, h, k = PAPER[name]
    graph = to_networkx(data)
    n = data.num_nodes
    print(f"  replay on the official trajectory ({batches} batches, h={h}, k={k}):")
    for batch in range(batches):
        orc = borf.OllivierRicci(graph, alpha=0)
        orc.compute_ricci_curvature()
        arcs = list(orc.G.edges)
        official = {e: orc.G[e[0]][e[1]]["ricciCurvature"]["rc_curvature"] for e in arcs}
        plans = {e: orc.G[e[0]][e[1]]["ricciCurvature"]["rc_transport_cost"] for e in arcs}
        src = np.array([e[0] for e in arcs])
        dst = np.array([e[1] for e in arcs])
        ours_arcs = _Arcs(src, dst, n, all_paths=True)
        ours = {e: _transport(ours_arcs, e[0], e[1]) for e in arcs}
        diff = max(abs(official[e] - (1 - ours[e][0])) for e in arcs)
        ranked_off = sorted(arcs, key=lambda e: official[e])
        ranked_ours = sorted(arcs, key=lambda e: (round(1 - ours[e][0], 12), e))
        low_o, low_g = set(ranked_off[:h]), set(ranked_ours[:h])
        high_o, high_g = set(ranked_off[-k:]), set(ranked_ours[-k:])
        cut_low, cut_high = official[ranked_off[h - 1]], official[ranked_off[-k]]

        low_ties = sum(abs(official[e] - cut_low) < 1e-9 for e in low_o ^ low_g)
        high_ties = sum(abs(official[e] - cut_high) < 1e-9 for e in high_o ^ high_g)
        same_plan = plan_ties = order = other = 0
        for e in low_o & low_g:
            pi = plans[e]
            p, q = np.unravel_index(pi.values.argmax(), pi.values.shape)
            mine = ours[e][1]
            if (pi.index[p], pi.columns[q]) == mine:
                same_plan += 1
            elif np.isclose(pi.loc[mine[0], mine[1]], pi.values.max()):
                plan_ties += 1
            elif list(pi.index[:-1]) != sorted(pi.index[:-1]) or list(pi.columns[:-1]) != sorted(
                pi.columns[:-1]
            ):
                order += 1  # the official supports are not in ascending order: another vertex
            else:
                other += 1
        print(
            f"    batch {batch}: max |kappa diff| {diff:.1e}; lowest {h}: "
            f"{len(low_o & low_g)} same, {len(low_o ^ low_g)} in one set only "
            f"({low_ties} at a tie); highest {k}: "
            f"{len(high_o & high_g)} same, {len(high_o ^ high_g)} in one set only "
            f"({high_ties} at a tie); plan argmax: {same_plan} same, {plan_ties} tied "
            f"entries, {order} another optimal plan (official support order differs), "
            f"{other} other"
        )
        for u, v in ranked_off[:h]:  # advance with the official step
            pi = plans[u, v]
            p, q = np.unravel_index(pi.values.argmax(), pi.values.shape)
            p, q = pi.index[p], pi.columns[q]
            if p != q and not graph.has_edge(p, q):
                graph.add_edge(p, q)
        for u, v in ranked_off[-k:]:
            if graph.has_edge(u, v):
                graph.remove_edge(u, v)
    assert isinstance(graph, nx.DiGraph)


def full_runs(name, data, borf, repeats: int) -> None:
    import rewirekit
    from rewirekit.methods.memo import clear_all

    batches, h, k = PAPER[name]
    ei = data.edge_index.numpy()
    before = {(int(u), int(v)) for u, v in ei.T if u < v}
    times: dict[str, list[float]] = {"official": [], "ours faithful": [], "ours default": []}
    results = {}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            start = time.perf_counter()
            edge_index, _ = borf.borf3(
                data, loops=batches, batch_add=h, batch_remove=k, save_dir=cache, dataset_name=name
            )
            times["official"].append(time.perf_counter() - start)
        arcs = {(int(u), int(v)) for u, v in edge_index.numpy().T}
        results["official"] = undirected_pairs(arcs, before)
        for label, faithful in (("ours faithful", True), ("ours default", False)):
            clear_all()  # time a first call, as the official code's are
            start = time.perf_counter()
            out = rewirekit.rewire(
                data, "borf", num_batches=batches, batch_add=h, batch_remove=k, faithful=faithful
            )
            times[label].append(time.perf_counter() - start)
            results[label] = {(int(u), int(v)) for u, v in out.edge_index.numpy().T if u < v}
    reference = results["official"]
    one_arc = len({(min(u, v), max(u, v)) for u, v in arcs if (v, u) not in arcs})
    print(f"  full runs: official output has {len(arcs)} arcs, {one_arc} pairs with one arc")
    for label in ("ours faithful", "ours default"):
        got = results[label]
        print(
            f"    {label:13s}: {len(got & reference)} pairs in common, {len(got - reference)} "
            f"ours only, {len(reference - got)} official only "
            f"(official: +{len(reference - before)} -{len(before - reference)}; "
            f"ours: +{len(got - before)} -{len(before - got)})"
        )
    print(f"  speed ({repeats} repeat(s)), median / min seconds:")
    for label, values in times.items():
        print(f"    {label:14s} {statistics.median(values):8.2f} / {min(values):8.2f}")
    for label in ("ours faithful", "ours default"):
        ratio = statistics.median(times["official"]) / statistics.median(times[label])
        print(f"    official / {label} (median): {ratio:.1f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official", type=Path, help="an export of the official repository")
    parser.add_argument("--datasets", nargs="+", default=["texas", "cora"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    set_threads(args.threads)
    import torch_geometric.transforms as T

    from rewirekit.datasets import load

    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    ).stdout.strip()
    print(
        f"# borf_vs_official.py, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} "
        f"UTC, rewirekit {commit[:10]}, official hieubkvn123/revisiting-gnn-curvature a3b9422, "
        f"{args.threads} threads / processes, machine shared with other jobs "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    borf = load_official(args.official)
    for name in args.datasets:
        data = T.RemoveSelfLoops()(T.ToUndirected()(load(name)))
        print(f"\n{name}: {data.num_nodes} nodes, {data.edge_index.size(1) // 2} edges")
        replay(name, data, borf)
        full_runs(name, data, borf, repeats=args.repeats if name != "cora" else 1)


if __name__ == "__main__":
    main()
