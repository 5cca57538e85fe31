"""Edge sets of rewirekit's FeaSt and ComFy against the official code (RelationalML/ComFy).

    mkdir /tmp/comfy && git -C <clone of RelationalML/ComFy> archive HEAD | tar x -C /tmp/comfy
    REWIREKIT_DATA=/work/shared/datasets python benchmarks/comfy_vs_official.py /tmp/comfy
    python benchmarks/comfy_vs_official.py /tmp/comfy --datasets cora --fosr /tmp/FoSR

Runs the official edge selection of FeaSt (``Comm+Sim/onlysim.py``) and ComFy
(``Comm+Sim/comsim.py``), additions and deletions separately, and ours (``feast`` and
``comfy`` with ``rounding="floor"``, the official code's rounding of ``B_ij``) on the same
input, at 50 edges and at the paper's best budgets, and counts every edge in which the two
differ by cause:

* ``B=0 all``: the official ``ranking[-0:]`` selects every candidate of a community pair
  whose budget ``B_ij`` floors to 0 (until the global cap); ours selects none there.
* ``cap``: our edges of later community pairs that the official code never reached because
  ``B=0 all`` selections had used up the global budget ``N``.
* ``self-loop``: self-loops ``(u, u)`` the official code adds inside a community, and our
  edges whose slot such a self-loop took.
* ``both orient.``: our edges whose slot the second orientation ``(v, u)`` of an official
  pair took (the official code ranks both orientations inside a community).
* ``zero rows``: our edges in community pairs whose official mean similarity is NaN (an edge
  touches a node with all-zero features: the official ``0/0``; ours gives similarity 0).
* ``tie exact`` / ``tie f32``: the pair's similarity equals the similarity at the cut
  (exactly, or within the resolution of the official float32 score
  ``(s̄|E| ± s)/(|E| ± 1)``, which is ``(|E| ± 1)`` float32 steps of ``s̄``), so either
  choice is right.
* ``threshold``: the pair's similarity is within that resolution of ``s̄`` and the selection
  reached the filter (the official code compares with a float32 mean, FeaSt non-strictly).
* ``budget f64``: ``B_ij`` computed in floating point by the official code differs from the
  exact floor.
* ``unexplained``: anything else (should be 0).

Both implementations get the same graph and the same communities: the ComFy protocol's
preparation (largest connected component, the ``comfy`` split preset), features as the
official loader gives them (row-normalised for Planetoid, raw for the npz files), and our
Louvain partition (``detect_communities``, seed 0) fed to the official code in place of its
own Louvain call, communities in the order of our labels, so the comparison isolates the
selection step. ``nx_cugraph`` (CUDA-only) is replaced by a stub whose ``from_networkx``
returns the networkx graph unchanged. The official functions write CSV reports into the
working directory; they run in a temporary directory.

A second table runs ``comfy(faithful=True)`` against the official ``comsim.modify_graph``
with additions and deletions in one call (as the paper ran it) and says whether the edit sets
are identical.

``--spectral`` also compares ProxyAddMax / ProxyDelMax (``Spectral/rewiring/
fastrewiringKupdates.py``) and, with ``--fosr DIR`` (a kedar2/FoSR checkout), FoSR, at small
budgets. Their edges are expected to differ for ProxyAdd/ProxyDelete (the official code
rescales each node's eigenvector row to unit norm: a documented difference); FoSR is run
from the same start vector and should match edge for edge.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import io
import multiprocessing
import os
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch_geometric.transforms as T
from timing import set_threads
from torch_geometric.data import Data

#: (add, delete) budgets behind the paper's best GCN results (spec table).
PAPER_BUDGETS = {
    "cora": {"feast": (1000, 500), "comfy": (100, 2000)},
    "chameleon_filtered": {"feast": (20, 20), "comfy": (100, 1500)},
    "squirrel_filtered": {"feast": (50, 100), "comfy": (500, 1500)},
}
#: Datasets the official loader wraps in ``NormalizeFeatures`` (Planetoid); npz files stay raw.
NORMALIZED = frozenset({"cora", "citeseer", "pubmed"})
#: Difference causes, in the order of the printed table.
CAUSES = (
    "B=0 all",
    "cap",
    "self-loop",
    "both orient.",
    "zero rows",
    "tie exact",
    "tie f32",
    "threshold",
    "budget f64",
    "unexplained",
)
#: Two similarities closer than this are equal (float64 cosine of the same pair of rows).
EXACT_TIE = 1e-12
#: Float32 rounding of a similarity, whatever the score resolution.
FLOAT32_NOISE = 1e-6
SEED = 0

Pair = tuple[int, int]
Block = tuple[int, int]


# -- inputs --------------------------------------------------------------------------------
def load_prepared(name: str) -> Data:
    """The graph both implementations get: ComFy protocol preparation (see module docstring)."""
    from rewirekit.datasets import get_split_preset, load, standardize

    os.environ.setdefault("REWIREKIT_DATA", "/work/shared/datasets")
    cache = os.environ.get("REWIREKIT_CACHE") or os.path.join(
        tempfile.gettempdir(), "rewirekit-bench"
    )
    data = get_split_preset("comfy").prepare(standardize(load(name, cache_dir=cache)))
    if name in NORMALIZED:
        data = T.NormalizeFeatures()(data)
    return Data(x=data.x, edge_index=data.edge_index, y=data.y, num_nodes=data.num_nodes)


def our_communities(data: Data, seed: int = SEED) -> np.ndarray:
    """Our Louvain labels (those ``comfy(communities="louvain")`` computes with this seed)."""
    from rewirekit.algorithms import detect_communities
    from rewirekit.graph import edge_set

    return detect_communities(edge_set(data), seed=seed, algorithm="louvain")


def canonical_edges(edge_index: torch.Tensor) -> set[Pair]:
    """Undirected edges ``(u, v)``, ``u ≤ v`` (self-loops kept)."""
    u, v = edge_index.cpu().numpy()
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    return set(zip(lo.tolist(), hi.tolist(), strict=True))


def edits(before: Data, after: Data) -> tuple[set[Pair], set[Pair]]:
    """(added, removed) canonical pairs between two graphs on the same nodes."""
    old, new = canonical_edges(before.edge_index), canonical_edges(after.edge_index)
    return new - old, old - new


# -- the official code ---------------------------------------------------------------------
def install_cugraph_stub() -> None:
    """``nx_cugraph`` is CUDA-only: a stand-in whose ``from_networkx`` returns the graph."""
    stub = types.ModuleType("nx_cugraph")
    vars(stub)["from_networkx"] = lambda graph: graph  # the module's namespace
    sys.modules.setdefault("nx_cugraph", stub)


def import_official(official_dir: str, folder: str, module: str) -> types.ModuleType:
    """Import ``module`` from ``OFFICIAL_DIR/folder`` (added to ``sys.path``)."""
    path = Path(official_dir) / folder
    if not path.is_dir():
        sys.exit(f"{path} not found: pass the root of a RelationalML/ComFy checkout.")
    install_cugraph_stub()
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
    return importlib.import_module(module)


@contextlib.contextmanager
def fixed_louvain(labels: np.ndarray):
    """Make ``networkx.community.louvain_communities`` return the partition ``labels``
    (communities in label order) while the block runs."""
    import networkx as nx

    communities = [set(np.flatnonzero(labels == c).tolist()) for c in range(labels.max() + 1)]
    original = nx.community.louvain_communities
    nx.community.louvain_communities = lambda *args, **kwargs: [set(c) for c in communities]
    try:
        yield
    finally:
        nx.community.louvain_communities = original


@contextlib.contextmanager
def quiet_scratch_dir():
    """Run in a temporary working directory (the official code writes CSV reports there),
    with its prints and progress bars silenced."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, "simrewirings", "similarityreports"))
        os.chdir(scratch)
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                yield
        finally:
            os.chdir(cwd)


def with_masks(data: Data) -> Data:
    """A copy carrying the (unused) split masks the official functions copy over."""
    out = data.clone()
    out.train_mask = out.val_mask = out.test_mask = torch.ones(data.num_nodes, dtype=torch.bool)
    return out


def official_similarity_edits(
    module: types.ModuleType, data: Data, add: int, delete: int, labels: np.ndarray | None
) -> tuple[set[Pair], set[Pair], float]:
    """Run the official ``modify_graph`` (FeaSt: ``onlysim``, ComFy: ``comsim``); return the
    added and removed pairs and its seconds. ``labels`` replaces its Louvain partition."""
    louvain = fixed_louvain(labels) if labels is not None else contextlib.nullcontext()
    with quiet_scratch_dir(), louvain:
        start = time.perf_counter()
        result = module.modify_graph(with_masks(data), "dataset", add, delete, SEED)
        seconds = time.perf_counter() - start
    added, removed = edits(data, result[0])
    return added, removed, seconds


def ours_edits(data: Data, method: str, **params) -> tuple[set[Pair], set[Pair], float]:
    """Run our method by name; return the added and removed pairs and its seconds."""
    import rewirekit

    start = time.perf_counter()
    out = rewirekit.rewire(data, method, **params)
    seconds = time.perf_counter() - start
    added, removed = edits(data, out)
    return added, removed, seconds


def of_kind(edits: tuple[set[Pair], set[Pair], float], kind: str) -> set[Pair]:
    """The added (``kind="add"``) or the removed pairs of an ``*_edits`` result."""
    added, removed, _seconds = edits
    return added if kind == "add" else removed


def call_with_timeout(function: Callable, args: tuple, timeout: float):
    """``function(*args)`` in a forked child process; ``None`` if it runs past ``timeout``
    seconds (the child is then killed)."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        send.send(function(*args))

    process = context.Process(target=child, daemon=True)
    process.start()
    ready = receive.poll(timeout)
    result = receive.recv() if ready else None
    if not ready:
        process.kill()
    process.join()
    return result


# -- differences by cause ------------------------------------------------------------------
@dataclass
class SelectionContext:
    """What the selection saw, to explain differences between two edge sets.

    Blocks are community pairs ``(i, j)``, ``i ≤ j``, in the official iteration order;
    FeaSt is one block ``(0, 0)`` with the whole budget.
    """

    kind: str  # "add" or "delete"
    budget: int  # N
    labels: np.ndarray  # community of each node
    similarity: Callable[[np.ndarray, np.ndarray], np.ndarray]  # float64 cosine of pairs
    block_budget: dict[Block, int]  # exact B_ij
    official_budget: dict[Block, int]  # B_ij as the official code computes it (float)
    block_mean: dict[Block, float]  # s̄_ij (float64)
    block_edges: dict[Block, int]  # |E_ij|
    nan_blocks: set[Block] = field(default_factory=set)  # official mean is NaN

    def block_of(self, pair: Pair) -> Block:
        a, b = int(self.labels[pair[0]]), int(self.labels[pair[1]])
        return (min(a, b), max(a, b))

    def sim(self, pairs: list[Pair]) -> np.ndarray:
        if not pairs:
            return np.zeros(0)
        u, v = np.asarray(pairs, dtype=np.int64).T
        return self.similarity(u, v)

    def tolerance(self, block: Block) -> float:
        """Resolution of the official float32 score, in similarity units."""
        count = self.block_edges.get(block, 1) + (1 if self.kind == "add" else -1)
        step = float(np.spacing(np.float32(abs(self.block_mean.get(block, 0.0)))))
        return max(FLOAT32_NOISE, 2.0 * max(count, 1) * step)


def cosine_pairs(x: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Float64 cosine similarity of pairs of rows of ``x`` (rows of norm 0: similarity 0)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    unit = x / np.where(norms > 0, norms, 1.0)
    return lambda u, v: np.einsum("ij,ij->i", unit[u], unit[v])


def selection_context(
    x: np.ndarray, edges: set[Pair], labels: np.ndarray, kind: str, budget: int, per_block: bool
) -> SelectionContext:
    """Block statistics of the input graph for FeaSt (``per_block=False``: one block, the whole
    budget) or ComFy (``B_ij = ⌊N·|C_i||C_j| / Σ_{x≤y}|C_x||C_y|⌋``)."""
    similarity = cosine_pairs(x)
    labels = labels if per_block else np.zeros(len(labels), dtype=np.int64)
    ctx = SelectionContext(kind, budget, labels, similarity, {}, {}, {}, {})
    proper = [p for p in edges if p[0] != p[1]]
    sims = ctx.sim(proper)
    zero = np.linalg.norm(np.asarray(x, dtype=np.float64), axis=1) == 0
    by_block: dict[Block, list[int]] = {}
    for index, pair in enumerate(proper):
        by_block.setdefault(ctx.block_of(pair), []).append(index)
    for block, members in by_block.items():
        ctx.block_mean[block] = float(sims[members].mean())
        ctx.block_edges[block] = len(members)
        if per_block and any(zero[proper[i][0]] or zero[proper[i][1]] for i in members):
            ctx.nan_blocks.add(block)
    sizes = np.bincount(labels)
    total = (int(sizes.sum()) ** 2 + int((sizes**2).sum())) // 2
    for block in by_block:
        share = int(sizes[block[0]]) * int(sizes[block[1]])
        ctx.block_budget[block] = budget * share // total if per_block else budget
        ctx.official_budget[block] = int(budget * (share / total)) if per_block else budget
    return ctx


def _cut(block: Block, mine: list[Pair], ctx: SelectionContext) -> float:
    """Similarity at our cut inside ``block``: our last selected pair if we filled the block's
    budget, else the filter threshold ``s̄``."""
    if len(mine) < ctx.block_budget.get(block, 0) or not mine:
        return ctx.block_mean.get(block, 0.0)
    sims = ctx.sim(mine)
    return float(sims.min() if ctx.kind == "add" else sims.max())


def _official_only_cause(pair: Pair, block: Block, mine: list[Pair], ctx: SelectionContext) -> str:
    """Why the official code selected ``pair`` and we did not."""
    if ctx.block_budget.get(block, 0) == 0:
        return "B=0 all"
    if ctx.official_budget.get(block) != ctx.block_budget.get(block):
        return "budget f64"
    value, tol = float(ctx.sim([pair])[0]), ctx.tolerance(block)
    cut = _cut(block, mine, ctx)
    near_threshold = abs(value - ctx.block_mean.get(block, 0.0)) <= tol
    if len(mine) < ctx.block_budget[block]:  # we took every candidate: only the filter differs
        return "threshold" if near_threshold else "unexplained"
    if abs(value - cut) <= EXACT_TIE:
        return "tie exact"
    if abs(value - cut) <= tol:
        return "tie f32"
    return "threshold" if near_threshold else "unexplained"


def _ours_only_causes(
    count: int,
    swapped: list[str],
    loops: int,
    official_proper: int,
    block: Block,
    crowded: bool,
    ctx: SelectionContext,
) -> Counter:
    """Causes of ``count`` pairs we selected in ``block`` and the official code did not.

    As many as the official code selected instead (``swapped``: the causes of those) share
    their cause; the excess went to official self-loops, then to the global cap (``crowded``),
    then to second orientations of official pairs (at most one per pair), else unexplained.
    """
    causes: Counter = Counter()
    if block in ctx.nan_blocks:
        causes["zero rows"] += count
        return causes
    swaps = [cause for cause in swapped if cause not in ("B=0 all",)][:count]
    causes.update(swaps)
    excess = count - len(swaps)
    for cause, limit in (
        ("self-loop", loops),
        ("cap", excess if crowded else 0),
        ("both orient.", official_proper if ctx.kind == "add" and block[0] == block[1] else 0),
    ):
        taken = min(excess, limit)
        causes[cause] += taken
        excess -= taken
    causes["unexplained"] += excess
    return causes


def _last_official_block(official: set[Pair], ctx: SelectionContext) -> Block | None:
    """The block where the official code hit the global cap ``N`` (``None`` if it did not)."""
    if len(official) < ctx.budget or not official:
        return None
    return max(ctx.block_of(p) for p in official)


def classify_differences(official: set[Pair], ours: set[Pair], ctx: SelectionContext) -> Counter:
    """Count every pair in exactly one of the two selections by cause (see module docstring).

    ``official`` may hold self-loops ``(u, u)``; pairs are canonical ``(u ≤ v)``.
    """
    causes: Counter = Counter()
    cap_block = _last_official_block(official, ctx)
    blocks = sorted({ctx.block_of(p) for p in official | ours})
    for block in blocks:
        theirs = [p for p in official if ctx.block_of(p) == block]
        mine = sorted(p for p in ours if ctx.block_of(p) == block)
        loops = [p for p in theirs if p[0] == p[1]]
        proper = [p for p in theirs if p[0] != p[1]]
        official_only = sorted(set(proper) - set(mine))
        ours_only = set(mine) - set(proper)
        causes["self-loop"] += len(loops)
        swapped = [_official_only_cause(p, block, mine, ctx) for p in official_only]
        causes.update(swapped)
        crowded = cap_block is not None and block >= cap_block
        causes.update(
            _ours_only_causes(len(ours_only), swapped, len(loops), len(proper), block, crowded, ctx)
        )
    return +causes


# -- one comparison ------------------------------------------------------------------------
@dataclass
class Row:
    """One line of the table."""

    dataset: str
    method: str
    kind: str
    budget: int
    official: int
    ours: int
    common: int
    causes: Counter

    def line(self) -> str:
        cells = " ".join(f"{self.causes.get(c, 0):>{len(c)}}" for c in CAUSES)
        return (
            f"{self.dataset:<18} {self.method:<6} {self.kind:<4} {self.budget:>5} "
            f"{self.official:>5} {self.ours:>5} {self.common:>5}  {cells}"
        )


def header() -> str:
    return (
        f"{'dataset':<18} {'method':<6} {'kind':<4} {'N':>5} {'off.':>5} {'ours':>5} "
        f"{'same':>5}  " + " ".join(CAUSES)
    )


def compare_similarity(
    modules: dict, data: Data, labels: np.ndarray, dataset: str, method: str, kind: str, budget: int
) -> Row:
    """Run official and ours for one (method, kind, budget) and classify the differences."""
    add, delete = (budget, 0) if kind == "add" else (0, budget)
    official_pairs = of_kind(
        official_similarity_edits(modules[method], data, add, delete, labels), kind
    )
    params: dict[str, int | str] = {"add": add, "delete": delete}
    if method == "comfy":  # the communities fed to the official code are our Louvain's
        params.update(seed=SEED, rounding="floor", communities="louvain")
    ours_pairs = of_kind(ours_edits(data, method, **params), kind)
    ctx = selection_context(
        data.x.numpy(),
        canonical_edges(data.edge_index),
        labels,
        kind,
        budget,
        per_block=method == "comfy",
    )
    causes = classify_differences(official_pairs, ours_pairs, ctx)
    return Row(
        dataset,
        method,
        kind,
        budget,
        len(official_pairs),
        len(ours_pairs),
        len(official_pairs & ours_pairs),
        causes,
    )


def similarity_runs(dataset: str, small: int) -> list[tuple[str, str, int]]:
    """(method, kind, budget) at ``small`` edges and at the paper's best budgets."""
    runs = []
    for method in ("feast", "comfy"):
        best = PAPER_BUDGETS.get(dataset, {}).get(method, (small, small))
        for kind, paper in zip(("add", "delete"), best, strict=True):
            runs += [(method, kind, b) for b in sorted({small, paper}) if b > 0]
    return runs


# -- ComFy(faithful=True) -------------------------------------------------------------------
def compare_faithful(
    module: types.ModuleType, data: Data, labels: np.ndarray, dataset: str, add: int, delete: int
) -> str:
    """One line: the official ``comsim.modify_graph(add, delete)`` against our
    ``comfy(faithful=True)`` on the same graph and partition; both edit sets must be equal."""
    theirs_added, theirs_removed, theirs_s = official_similarity_edits(
        module, data, add, delete, labels
    )
    params = dict(seed=SEED, communities="louvain", faithful=True)
    ours_added, ours_removed, ours_s = ours_edits(data, "comfy", add=add, delete=delete, **params)
    same = theirs_added == ours_added and theirs_removed == ours_removed
    return (
        f"{dataset:<18} add={add:<5} delete={delete:<5} official +{len(theirs_added)} "
        f"-{len(theirs_removed)}  ours +{len(ours_added)} -{len(ours_removed)}  "
        f"common +{len(theirs_added & ours_added)} -{len(theirs_removed & ours_removed)}  "
        f"identical: {'yes' if same else 'NO'}  ({theirs_s:.1f} s vs {ours_s:.1f} s)"
    )


#: Eight-node cases of tests/methods/test_similarity.py: (edges, communities, add, delete).
TINY_CASES = (
    ([(0, 1), (2, 3), (4, 5), (6, 7), (0, 4)], [0, 0, 0, 0, 1, 1, 1, 1], 3, 0),
    ([(0, 1), (2, 3), (4, 5), (6, 7), (0, 4)], [0, 0, 0, 0, 1, 1, 1, 1], 6, 0),
    ([(0, 1), (0, 4), (2, 3), (4, 5), (6, 7)], [0, 0, 1, 1, 1, 1, 1, 1], 4, 0),
    ([(0, 1), (0, 4), (2, 3), (4, 5), (6, 7)], [0, 0, 1, 1, 1, 1, 1, 1], 0, 3),
    ([(0, 1), (2, 3), (4, 5), (6, 7), (0, 4), (1, 2), (5, 6)], [0, 0, 0, 0, 1, 1, 1, 1], 5, 2),
)


def tiny_faithful_lines(module: types.ModuleType) -> list[str]:
    """The official selection and ours (``faithful=True``) on the eight-node test cases:
    unit features at angles 0, 80, 10, 100, 42, 130, 45, 140 degrees."""
    from torch_geometric.utils import to_undirected

    from rewirekit.methods.comfy_faithful import official_comfy_edits

    angles = np.deg2rad([0, 80, 10, 100, 42, 130, 45, 140])
    x = torch.tensor(np.stack([np.cos(angles), np.sin(angles)], axis=1), dtype=torch.float)
    lines = []
    for edges, labels, add, delete in TINY_CASES:
        ei = to_undirected(torch.tensor(edges).t(), num_nodes=8)
        data = Data(x=x, edge_index=ei, y=torch.zeros(8, dtype=torch.long), num_nodes=8)
        theirs_added, theirs_removed, _ = official_similarity_edits(
            module, data, add, delete, np.array(labels)
        )
        added, removed = official_comfy_edits(x, ei, np.array(labels), add, delete)
        ours = ({tuple(p) for p in added.tolist()}, {tuple(p) for p in removed.tolist()})
        same = ours == (theirs_added, theirs_removed)
        lines.append(
            f"edges={edges} communities={labels} add={add} delete={delete}: official "
            f"+{sorted(theirs_added)} -{sorted(theirs_removed)}; identical: "
            f"{'yes' if same else 'NO'}"
        )
    return lines


def faithful_runs(dataset: str, small: int) -> list[tuple[int, int]]:
    """(add, delete) at ``small`` edits each and at the paper's best ComFy budgets."""
    best = PAPER_BUDGETS.get(dataset, {}).get("comfy", (small, small))
    return sorted({(small, 0), (0, small), (best[0], 0), (0, best[1]), best})


# -- spectral family -----------------------------------------------------------------------
def official_proxy_edits(module: types.ModuleType, data: Data, kind: str, budget: int) -> set[Pair]:
    """Official ProxyAddMax / ProxyDelMax (``process_and_update_edges``, one edge per
    eigen-update): added or removed pairs."""
    from torch_geometric.utils import to_networkx

    graph = to_networkx(data, to_undirected=True)
    before = {(min(u, v), max(u, v)) for u, v in graph.edges()}
    ranking = module.rank_by_proxy_add if kind == "add" else module.rank_by_proxy_delete
    with quiet_scratch_dir():
        module.process_and_update_edges(
            graph, ranking, f"proxy{kind}max", updating_period=1, max_iter=budget
        )
    after = {(min(u, v), max(u, v)) for u, v in graph.edges() if u != v}
    return after - before if kind == "add" else before - after


def fosr_start_vector(num_nodes: int, seed: int = SEED) -> np.ndarray:
    """The start vector rewirekit's FoSR draws (uniform in [−1, 1] from ``default_rng(seed)``),
    handed to the official code so both start alike."""
    return 2.0 * np.random.default_rng(seed).random(num_nodes) - 1.0


def official_fosr_sequence(module: types.ModuleType, data: Data, budget: int) -> list[Pair]:
    """Official FoSR ``edge_rewire`` (5 power iterations, as ours): pairs in the order added."""
    edge_index = data.edge_index.numpy().astype(np.int64)
    out = module.edge_rewire(
        edge_index,
        x=fosr_start_vector(data.num_nodes),
        num_iterations=budget,
        initial_power_iters=5,
    )[0]
    added = out[:, edge_index.shape[1] :: 2]
    return [(int(min(u, v)), int(max(u, v))) for u, v in added.T]


def compare_spectral(
    official: dict,
    data: Data,
    dataset: str,
    budget: int,
    timeout: float,
    fosr_budget: int | None = None,
) -> list[str]:
    """Lines comparing ProxyAddMax / ProxyDelMax at ``budget`` edges and FoSR (if loaded)
    at ``fosr_budget`` (default ``budget``)."""
    lines = []
    for kind, method, key in (("add", "proxy_add", "add"), ("delete", "proxy_delete", "delete")):
        theirs = call_with_timeout(
            official_proxy_edits, (official["proxy"], data, kind, budget), timeout
        )
        ours = of_kind(ours_edits(data, method, objective="max", **{key: budget}), kind)
        if theirs is None:
            lines.append(
                f"{dataset:<18} Proxy{kind.title()}Max N={budget}: official did not "
                f"finish in {timeout:.0f} s"
            )
            continue
        note = (
            ""
            if theirs == ours
            else (
                " (expected: the official score rescales each node's eigenvector row to unit norm)"
            )
        )
        lines.append(
            f"{dataset:<18} Proxy{kind.title()}Max N={budget}: official {len(theirs)}, "
            f"ours {len(ours)}, common {len(theirs & ours)}{note}"
        )
    if "fosr" in official:
        import rewirekit

        budget = fosr_budget or budget
        theirs = official_fosr_sequence(official["fosr"], data, budget)
        out = rewirekit.rewire(data, "fosr", add=budget, seed=SEED)
        ours_set = edits(data, out)[0]
        same_set = set(theirs) == ours_set
        lines.append(
            f"{dataset:<18} FoSR N={budget}: official {len(set(theirs))}, ours "
            f"{len(ours_set)}, common {len(set(theirs) & ours_set)}; identical edge "
            f"set: {'yes' if same_set else 'no'}"
        )
    return lines


def load_spectral(official_dir: str, fosr_dir: str | None) -> dict:
    """Official ProxyAdd/ProxyDelete module and, if given, kedar2/FoSR's ``fosr`` module."""
    modules = {"proxy": import_official(official_dir, "Spectral", "rewiring.fastrewiringKupdates")}
    if fosr_dir:
        path = Path(fosr_dir) / "preprocessing"
        if not (path / "fosr.py").exists():
            sys.exit(f"{path / 'fosr.py'} not found: pass the root of a kedar2/FoSR checkout.")
        sys.path.insert(0, str(path))
        modules["fosr"] = importlib.import_module("fosr")
    return modules


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official_dir", help="root of a RelationalML/ComFy checkout")
    parser.add_argument("--datasets", nargs="+", default=["cora", "chameleon_filtered"])
    parser.add_argument("--small", type=int, default=50, help="the small budget (50)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--spectral",
        type=int,
        default=0,
        metavar="N",
        help="also compare ProxyAddMax/ProxyDelMax (and FoSR) at N edges",
    )
    parser.add_argument("--fosr", help="root of a kedar2/FoSR checkout (for --spectral)")
    parser.add_argument(
        "--fosr-edges",
        type=int,
        default=None,
        metavar="N",
        help="compare FoSR at N edges (default: the --spectral N)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds after which an official spectral run is given up",
    )
    args = parser.parse_args(argv)
    set_threads(args.threads)
    modules = {
        "feast": import_official(args.official_dir, "Comm+Sim", "onlysim"),
        "comfy": import_official(args.official_dir, "Comm+Sim", "comsim"),
    }
    print(
        f"# {datetime.date.today()}  threads={args.threads}  torch {torch.__version__}  "
        f"communities: ours (Louvain seed {SEED}) fed to both"
    )
    print(header())
    for dataset in args.datasets:
        data = load_prepared(dataset)
        labels = our_communities(data)
        print(
            f"# {dataset}: N={data.num_nodes}, E={data.edge_index.size(1) // 2}, "
            f"{labels.max() + 1} communities",
            flush=True,
        )
        for method, kind, budget in similarity_runs(dataset, args.small):
            row = compare_similarity(modules, data, labels, dataset, method, kind, budget)
            print(row.line(), flush=True)
    print(
        "\n# ComFy faithful=True against the official comsim.modify_graph (add and delete "
        "in one call; same graph and partition)"
    )
    for line in tiny_faithful_lines(modules["comfy"]):
        print(line, flush=True)
    for dataset in args.datasets:
        data = load_prepared(dataset)
        labels = our_communities(data)
        for add, delete in faithful_runs(dataset, args.small):
            print(
                compare_faithful(modules["comfy"], data, labels, dataset, add, delete), flush=True
            )
    if args.spectral:
        spectral = load_spectral(args.official_dir, args.fosr)
        print("\n# spectral family")
        for dataset in args.datasets:
            data = load_prepared(dataset)
            for line in compare_spectral(
                spectral, data, dataset, args.spectral, args.timeout, args.fosr_edges
            ):
                print(line, flush=True)


if __name__ == "__main__":
    main()
