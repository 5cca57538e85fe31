"""SDRF's incremental curvature against full recounts, side by side: the candidate scores
(``curvature_with_each_candidate``) and the updates after an addition or a removal
(``curvature_after_edit``), against one full ``curvature_of_pairs`` recount per candidate
and per edge to update (the kernels SDRF used before).

    REWIREKIT_DATA=../shared/datasets python benchmarks/sdrf_incremental_speed.py  # 2 datasets
    python benchmarks/sdrf_incremental_speed.py --datasets texas --iterations 5  # smoke
    python benchmarks/sdrf_incremental_speed.py --datasets squirrel --iterations 187 \
        --tau 12.371433997667479 --removal-bounds 0.2913417807714838 --modes paper \
        --no-baseline  # one leaderboard draw, ours only

Each SDRF step scores every non-edge between ``N[x]`` and ``N[y]`` of its most negatively
curved edge ``(x, y)`` and, after adding one or removing its most positively curved edge,
updates every edge between the neighbourhoods of the edited edge's ends: next to hubs
(Chameleon's and Squirrel's largest degrees are 732 and 1903) tens of thousands of
candidates and of edges, each of which a full recount walks the neighbourhoods of both
endpoints for. Two settings: removal bound 2 (next to no removals) and 0.3 (a removal
nearly every step, as in some of the leaderboard's draws). Both ways run the same seeded
``sdrf`` call in this process, one after the other under one ``timing.Protocol``; the full
recounts by swapping three methods of SDRF's internal state for this script, after every
kernel is compiled on a small cSBM (untimed). The edited graphs must be identical (the
script stops otherwise): the values are equal bit for bit, so the softmax draws the same
edges.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np
from timing import Protocol, ratio, run_header, set_threads

DATASETS = ("chameleon", "squirrel")
REMOVAL_BOUNDS = (2.0, 0.3)
MODES = ("paper", "faithful")


@contextmanager
def full_recounts() -> Iterator[None]:
    """SDRF scoring each candidate and updating each edge after an edit with a full
    ``curvature_of_pairs`` recount."""
    from rewirekit.algorithms.balanced_forman import curvature_of_pairs
    from rewirekit.methods import curvature

    flow = curvature._Flow
    incremental = flow.gains, flow.add, flow.remove

    def gains(self: Any, x: int, y: int, eid: int | None, ks: Any, ls: Any) -> Any:
        if eid is None:
            return incremental[0](self, x, y, eid, ks, ls)
        graph = self.graph
        pair = (np.full(ks.size, x), np.full(ks.size, y))
        after = curvature_of_pairs(
            graph.start, graph.count, graph.nbr, *pair, self.faithful, ks, ls
        )[0]
        return after - self.low[eid]

    def add(self: Any, u: int, v: int) -> None:
        self.graph.add(u, v)
        self._update(self.graph.edges_near(u, v))

    def remove(self, eid: int) -> None:
        near = self.graph.edges_near(*self.pair(eid))
        self.graph.remove(eid)
        self.low[eid], self.high[eid] = np.inf, -np.inf
        self._update(near[near != eid])

    setattr(flow, "gains", gains)  # noqa: B010 (mypy: a method is not assignable)
    setattr(flow, "add", add)  # noqa: B010
    setattr(flow, "remove", remove)  # noqa: B010
    try:
        yield
    finally:
        for name, method in zip(("gains", "add", "remove"), incremental, strict=True):
            setattr(flow, name, method)


def first_call(method: Any, data: Any) -> Any:
    """``method(data)`` as a first call on ``data``: without the start's curvature that an
    earlier call on the same graph kept (:mod:`rewirekit.methods.memo`)."""
    from rewirekit.methods.memo import clear_all

    clear_all()
    return method.forward(data)


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every kernel both ways use, on a small graph, so
    that no timed call pays for it. Its first curvature count runs the parallel pair kernel
    (``_SERIAL_BELOW`` pairs or more), the edits the serial one."""
    from rewirekit.algorithms.balanced_forman import _SERIAL_BELOW
    from rewirekit.datasets import csbm
    from rewirekit.methods import SDRF

    nodes = _SERIAL_BELOW // 2
    small = csbm(num_nodes=nodes, num_features=4, avg_degree=6.0, phi=0.5, seed=0)
    assert small.num_edges // 2 >= _SERIAL_BELOW
    for faithful in (False, True):
        method = SDRF(max_iter=3, tau=1.0, removal_bound=0.5, faithful=faithful)
        method.forward(small)
        with full_recounts():
            method.forward(small)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--iterations", type=int, default=10, help="SDRF max_iter")
    parser.add_argument("--tau", type=float, default=100.0)
    parser.add_argument("--removal-bounds", type=float, nargs="+", default=list(REMOVAL_BOUNDS))
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument(
        "--no-baseline", action="store_true", help="time the incremental counts only"
    )
    parser.add_argument("--threads", type=int, default=2)
    Protocol.add_arguments(parser, repeats=1, warmup=0)
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)
    set_threads(args.threads)
    import numba

    numba.set_num_threads(args.threads)
    from rewirekit.datasets import load
    from rewirekit.methods import SDRF

    print(run_header("sdrf_incremental_speed.py"))
    print(f"load average {os.getloadavg()[0]:.2f}; threads {args.threads}; {protocol.describe()}")
    compile_kernels()
    for name in args.datasets:
        data = load(name)
        degree = np.bincount(data.edge_index[0].numpy(), minlength=data.num_nodes)
        edges = data.edge_index.size(1) // 2
        print(f"{name}: N={data.num_nodes}, E={edges}, max degree {degree.max()}")
        for mode, removal_bound in itertools.product(args.modes, args.removal_bounds):
            params = dict(max_iter=args.iterations, tau=args.tau, removal_bound=removal_bound)
            method = SDRF(**params, faithful=mode == "faithful", seed=0)
            run = partial(first_call, method, data)
            ours_out, ours = protocol.timed(run)
            extra = ours_out.rewire_report.extra
            setting = (
                f"  sdrf({args.iterations} iterations, tau {args.tau:g}, C+ {removal_bound:g},"
                f" faithful={mode == 'faithful'}): +{extra['additions']} -{extra['removals']} edges"
            )
            if args.no_baseline:
                print(f"{setting} | incremental {ours.cell(0)} | no full-recount baseline run")
                continue
            with full_recounts():
                full_out, full = protocol.timed(run)
            if not np.array_equal(ours_out.edge_index.numpy(), full_out.edge_index.numpy()):
                raise SystemExit(f"{name}: the two scorings edited the graph differently")
            print(
                f"{setting}, the same both ways | full recounts {full.cell(0)} |"
                f" incremental {ours.cell(0)} | {ratio(full, ours):.1f}x |"
                f" load average {os.getloadavg()[0]:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
