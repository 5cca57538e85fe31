"""Speed of rewirekit's FeaSt, ComFy, ProxyAdd/ProxyDelete and FoSR against the official code.

    REWIREKIT_DATA=/work/shared/datasets python benchmarks/comfy_speed.py /tmp/comfy \\
        --fosr /tmp/FoSR
    python benchmarks/comfy_speed.py /tmp/comfy --datasets cora --timeout 120 --threads 2

``OFFICIAL_DIR`` is a RelationalML/ComFy checkout, ``--fosr`` a kedar2/FoSR checkout (FoSR
rows are skipped without it). Inputs, the ``nx_cugraph`` stub and the scratch directory are
those of ``comfy_vs_official.py``. Thread counts of torch/MKL/OpenMP/OpenBLAS are set
identically for both (``--threads``, default 1) before anything runs.

What is timed (wall clock): every figure, ours and the official code's, under one
``timing.Protocol`` fixed before anything runs (``--warmup`` untimed calls, then
``--repeat`` timed ones; defaults 1 and 3), printed as the median with the minimum in
brackets; ratios are ratios of medians. A row below its target is printed ``MISSED``; to
change the protocol, rerun the whole table.

* ours: one ``rewirekit.rewire(data, name, ...)`` call on the prepared graph (input
  validation, Louvain for ComFy, the selection and building the output ``Data``).
* FeaSt, official: ``Comm+Sim/onlysim.modify_graph``. Its two Louvain calls only feed a log
  (NMI before/after), so they are given our precomputed partition and cost nothing; its other
  bookkeeping (graph conversions, per-community statistics, a CSV report) is included.
* ComFy, official: ``Comm+Sim/comsim.modify_graph`` with its own networkx Louvain (the CPU
  equivalent of its cuGraph call), as ours runs its own; its bookkeeping is included. The
  Louvain time of each side is printed too, and the ratio without it (``sel. ratio``).
  ``ComFy add`` / ``ComFy delete`` rows run ours with its default communities (igraph's
  Leiden, other partitions than Louvain's); ``ComFy[louvain]`` rows run ours with the
  paper's networkx Louvain (``communities="louvain"``) against the same official time.
  Their ratio is bounded by the official time over the Louvain time, which both share;
  it is printed for information, without a target.
* ProxyAddMax / ProxyDelMax, official: ``Spectral/rewiring/fastrewiringKupdates.
  process_and_update_edges`` (one edge per eigen-update, as in the paper), on the networkx
  graph (conversion not timed).
* FoSR, official: kedar2/FoSR ``edge_rewire`` (numba, compiled before timing).

Official runs go to a child process (warm-up and timed calls in the same child) killed after
``--timeout`` seconds per call. Slow spectral runs
are first probed with one edge: when one edge already takes more than ``timeout / budget``
seconds, the full run is skipped and reported as ``> timeout`` with the one-edge time
(and its linear extrapolation).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from comfy_vs_official import (
    PAPER_BUDGETS,
    SEED,
    call_with_timeout,
    fixed_louvain,
    fosr_start_vector,
    import_official,
    load_prepared,
    load_spectral,
    our_communities,
    quiet_scratch_dir,
    with_masks,
)
from timing import Protocol, Timing, git_commit, set_threads
from torch_geometric.data import Data


@dataclass(frozen=True)
class SpeedRun:
    """One timed configuration: ``rewirekit.rewire(data, method, **params)`` vs the official."""

    label: str  # e.g. "ComFy add"
    method: str  # our method name
    params: dict  # our parameters
    budget: int
    target: float | None  # speed-up the issue asks for (None: printed for information)

    def official_key(self) -> tuple:
        """Runs with equal keys share one official timing (ours differ only in the
        community detection, which the official code does not have a choice of)."""
        return self.method, tuple(
            sorted((k, v) for k, v in self.params.items() if k != "communities")
        )


def speed_runs(dataset: str, small: int) -> list[SpeedRun]:
    """FeaSt and ComFy (add, delete) at ``small`` and the paper's best budgets (ComFy with
    its default communities and with Louvain); ProxyAddMax, ProxyDelMax and FoSR at ``small``."""
    runs = []
    for method, title in (("feast", "FeaSt"), ("comfy", "ComFy")):
        best = PAPER_BUDGETS.get(dataset, {}).get(method, (small, small))
        for kind, paper in zip(("add", "delete"), best, strict=True):
            for budget in sorted({small, paper} - {0}):
                params: dict[str, int | str] = {kind: budget}
                if method == "feast":
                    runs.append(SpeedRun(f"{title} {kind}", method, params, budget, 20.0))
                    continue
                params.update(seed=SEED, rounding="floor")
                runs.append(SpeedRun(f"{title} {kind}", method, params, budget, 20.0))
                runs.append(
                    SpeedRun(
                        f"{title}[louvain] {kind}",
                        method,
                        {**params, "communities": "louvain"},
                        budget,
                        None,
                    )
                )
    runs.append(
        SpeedRun("ProxyAddMax", "proxy_add", {"objective": "max", "add": small}, small, 10.0)
    )
    runs.append(
        SpeedRun("ProxyDelMax", "proxy_delete", {"objective": "max", "delete": small}, small, 10.0)
    )
    runs.append(SpeedRun("FoSR", "fosr", {"add": small, "seed": SEED}, small, 10.0))
    return runs


def time_ours(data: Data, run: SpeedRun, protocol: Protocol) -> Timing:
    """Our rewiring call."""
    import rewirekit

    return protocol.measure(lambda: rewirekit.rewire(data, run.method, **run.params))


def time_our_communities(data: Data, algorithm: str, protocol: Protocol) -> Timing:
    """Our community detection alone (part of our ComFy time)."""
    from rewirekit.algorithms import detect_communities
    from rewirekit.graph import edge_set

    edges = edge_set(data)
    return protocol.measure(lambda: detect_communities(edges, seed=SEED, algorithm=algorithm))


def time_official_louvain(data: Data, protocol: Protocol) -> Timing:
    """The official code's community step on its own graph (networkx Louvain)."""
    import networkx as nx
    from torch_geometric.utils import to_networkx

    graph = to_networkx(data, to_undirected=True)
    return protocol.measure(lambda: nx.community.louvain_communities(graph, seed=SEED))


# -- official calls, each returning its own seconds ------------------------------------------
def _official_similarity(module, data: Data, run: SpeedRun, labels: np.ndarray | None) -> float:
    add, delete = run.params.get("add", 0), run.params.get("delete", 0)
    copy = with_masks(data)
    louvain = fixed_louvain(labels) if labels is not None else contextlib.nullcontext()
    with quiet_scratch_dir(), louvain:
        start = time.perf_counter()
        module.modify_graph(copy, "dataset", add, delete, SEED)
        return time.perf_counter() - start


def _official_proxy(module, data: Data, kind: str, budget: int) -> float:
    from torch_geometric.utils import to_networkx

    graph = to_networkx(data, to_undirected=True)
    ranking = module.rank_by_proxy_add if kind == "add" else module.rank_by_proxy_delete
    with quiet_scratch_dir():
        start = time.perf_counter()
        module.process_and_update_edges(graph, ranking, "proxy", updating_period=1, max_iter=budget)
        return time.perf_counter() - start


def _official_fosr(module, data: Data, budget: int) -> float:
    edge_index = data.edge_index.numpy().astype(np.int64)
    x = fosr_start_vector(data.num_nodes)
    start = time.perf_counter()
    module.edge_rewire(edge_index, x=x, num_iterations=budget, initial_power_iters=5)
    return time.perf_counter() - start


def warm_up_fosr(module) -> None:
    """Compile the official numba kernels once (children inherit them)."""
    ring = np.array([[0, 1, 1, 2, 2, 3, 3, 0], [1, 0, 2, 1, 3, 2, 0, 3]], dtype=np.int64)
    module.edge_rewire(ring, x=fosr_start_vector(4), num_iterations=1, initial_power_iters=1)


@dataclass
class OfficialTime:
    """An official timing under the table's protocol, or (``timing=None``) the lower bound
    ``seconds`` when it was given up."""

    timing: Timing | None
    seconds: float = 0.0
    note: str = ""

    @property
    def finished(self) -> bool:
        return self.timing is not None

    @property
    def median(self) -> float:
        return self.seconds if self.timing is None else self.timing.median

    def text(self) -> str:
        if self.timing is None:
            return f"> {self.seconds:.0f}s".rjust(17)
        return self.timing.cell()


def _in_child(protocol: Protocol, function: Callable[..., float], args: tuple) -> Timing:
    """``function(*args)`` (which returns its own seconds) under ``protocol``, in one process."""
    for _ in range(protocol.warmup):
        function(*args)
    return Timing(tuple(function(*args) for _ in range(protocol.repeats)))


def time_official(
    modules: dict,
    data: Data,
    run: SpeedRun,
    labels: np.ndarray,
    timeout: float,
    protocol: Protocol,
) -> OfficialTime | None:
    """Seconds of the official code for ``run`` (``None`` if that code is not loaded)."""
    call: tuple[Callable[..., float], tuple]  # (function, arguments) to time in a child
    if run.method in ("feast", "comfy"):
        fixed = labels if run.method == "feast" else None
        call = (_official_similarity, (modules[run.method], data, run, fixed))
    elif run.method == "fosr":
        if "fosr" not in modules:
            return None
        call = (_official_fosr, (modules["fosr"], data, run.budget))
    else:
        kind = "add" if run.method == "proxy_add" else "delete"
        # a probe, not a figure: whether the full run can finish within the timeout
        probe = call_with_timeout(_official_proxy, (modules["proxy"], data, kind, 1), timeout)
        if probe is None:
            return OfficialTime(None, timeout, "one edge did not finish")
        if probe * run.budget > timeout:
            note = f"one edge {probe:.1f}s, x{run.budget} ≈ {probe * run.budget:.0f}s"
            return OfficialTime(None, timeout, note)
        call = (_official_proxy, (modules["proxy"], data, kind, run.budget))
    calls = protocol.warmup + protocol.repeats
    timing = call_with_timeout(_in_child, (protocol, *call), timeout * calls)
    if timing is None:
        return OfficialTime(None, timeout, "timed out")
    return OfficialTime(timing)


def row(
    dataset: str,
    run: SpeedRun,
    official: OfficialTime | None,
    ours: Timing,
    louvain: tuple[Timing, Timing] | None,
) -> str:
    """One printed line: medians (minima), ratio of medians (a lower bound when the
    official run was cut), and whether the target is met."""
    if official is None:
        return f"{dataset:<18} {run.label:<20} {run.budget:>5}  official not loaded"
    ratio = official.median / ours.median
    mark = "" if official.finished else ">"
    text = (
        f"{dataset:<18} {run.label:<20} {run.budget:>5} {official.text()} {ours.cell()} "
        f"{mark + format(ratio, '.0f' if ratio >= 10 else '.2g') + 'x':>8}"
    )
    if run.target is None:
        text += "  info  (same Louvain as the official code)"
    else:
        text += f" {'met' if ratio >= run.target else 'MISSED':>6} (target {run.target:.0f}x)"
    if louvain is not None and official.finished:
        theirs, mine = official.median - louvain[0].median, ours.median - louvain[1].median
        text += (
            f"  sel. ratio {theirs / mine:.0f}x"
            if theirs > 0 and mine > 0
            else "  sel. ratio n/a (community time noisier than the total)"
        )
    if official.note:
        text += f"  [{official.note}]"
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official_dir", help="root of a RelationalML/ComFy checkout")
    parser.add_argument("--fosr", help="root of a kedar2/FoSR checkout")
    parser.add_argument(
        "--datasets", nargs="+", default=["cora", "chameleon_filtered", "squirrel_filtered"]
    )
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1)
    Protocol.add_arguments(parser, repeats=3, warmup=1)
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds after which an official call is given up",
    )
    parser.add_argument("--only", nargs="+", help="run only these labels (e.g. 'FoSR')")
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)
    set_threads(args.threads)
    modules = {
        "feast": import_official(args.official_dir, "Comm+Sim", "onlysim"),
        "comfy": import_official(args.official_dir, "Comm+Sim", "comsim"),
        **load_spectral(args.official_dir, args.fosr),
    }
    if "fosr" in modules:
        warm_up_fosr(modules["fosr"])
    print(
        f"# {datetime.date.today()}  threads={args.threads}  timeout {args.timeout:.0f}s "
        f"per call  torch {torch.__version__}"
    )
    fosr = f", kedar2/FoSR {git_commit(args.fosr)}" if args.fosr else ""
    print(f"# official: RelationalML/ComFy {git_commit(args.official_dir)}{fosr}")
    print(f"# {protocol.describe()}")
    print(f"{'dataset':<18} {'method':<20} {'N':>5} {'official':>17} {'ours':>17} {'ratio':>8}")
    for dataset in args.datasets:
        data = load_prepared(dataset)
        labels = our_communities(data)
        official_louvain = time_official_louvain(data, protocol)
        communities = {
            "louvain": (official_louvain, time_our_communities(data, "louvain", protocol)),
            "leiden": (official_louvain, time_our_communities(data, "leiden", protocol)),
        }
        print(
            f"# {dataset}: N={data.num_nodes}, E={data.edge_index.size(1) // 2}; communities: "
            f"official Louvain {official_louvain.cell(0)}, ours Louvain "
            f"{communities['louvain'][1].cell(0)}, ours Leiden "
            f"{communities['leiden'][1].cell(0)}",
            flush=True,
        )
        officials: dict[tuple, OfficialTime | None] = {}
        for run in speed_runs(dataset, args.small):
            if args.only and run.label not in args.only:
                continue
            if run.official_key() not in officials:
                officials[run.official_key()] = time_official(
                    modules, data, run, labels, args.timeout, protocol
                )
            ours = time_ours(data, run, protocol)
            algorithm = run.params.get("communities", "leiden")
            print(
                row(
                    dataset,
                    run,
                    officials[run.official_key()],
                    ours,
                    communities[algorithm] if run.method == "comfy" else None,
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
