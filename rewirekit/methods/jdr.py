r"""JDR: joint denoising and rewiring of graph and features.

Linkerhägner, Shi and Dokmanić, "Joint Graph Rewiring and Feature Denoising via Spectral
Resonance", ICLR 2025 (official code: github.com/jlinki/JDR).

The adjacency matrix :math:`A = V \Lambda V^\top` and the features
:math:`X = U \Sigma W^\top` carry two noisy views of the same labels. JDR aligns their
leading spectral spaces. In each of :math:`K` iterations, with both steps reading the
same current :math:`(A, X)`:

* features: each of the :math:`L_X` leading left singular vectors :math:`u_i` moves towards
  the leading eigenvector :math:`v_j` (among :math:`L_X`) it overlaps most,
  :math:`\tilde u_i = (1-\eta_{X1})\,u_i + \eta_{X1}\,\mathrm{sign}\langle u_i, v_j\rangle\, v_j`,
  and :math:`X \leftarrow \tilde U \Sigma W^\top`;
* graph: each of the :math:`L_A` leading eigenvectors :math:`v_i` moves towards the
  leading left singular vector :math:`u_j` (among :math:`L_A`) it overlaps most,
  :math:`\tilde v_i = (1-\eta_A)\,v_i + \eta_A\,\mathrm{sign}\langle v_i, u_j\rangle\, u_j`,
  and :math:`A \leftarrow \tilde V \Lambda \tilde V^\top
  = A + \tilde V_L \Lambda_L \tilde V_L^\top - V_L \Lambda_L V_L^\top`.

Afterwards the dense :math:`\tilde A` is sparsified to its ``top_k`` largest entries per
column (weights = kept entries) and the features become
:math:`(1-\eta_{X2})\,X + \eta_{X2}\,\tilde X`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from torch import Tensor
from torch_geometric.data import Data

from rewirekit.errors import RewireError
from rewirekit.graph import EdgeSet
from rewirekit.linalg import (
    SparsePlusLowRank,
    block_krylov_ritz_pairs,
    blocked_select,
    dense_eigh,
    extreme_eigenpairs,
    fill_lower_triangle,
    largest_magnitude_eigenpairs,
    symmetric_rank_update,
    top_singular_triplets,
)
from rewirekit.methods.base import Example, RewireOutput, Rewirer
from rewirekit.search_space import Choice, FloatRange, IntRange
from rewirekit.validation import check_bool, check_fraction, check_int, check_seed

#: Progress of long runs (one INFO line per iteration and for the final top-k); enable with
#: ``logging.basicConfig(level=logging.INFO)``.
logger = logging.getLogger(__name__)

SOLVERS = ("auto", "dense", "truncated", "randomized")
DTYPES = {"float32": torch.float32, "float64": torch.float64}

#: ARPACK tolerance by precision of the truncated solver's matrix products.
ARPACK_TOL = {"float32": 1e-6, "float64": 1e-10}

#: Width of the randomized solver's block, as a multiple of the number of wanted pairs.
RANDOMIZED_BLOCK_FACTOR = 2
#: A cold (random) start of the randomized solver gets this many times ``krylov_passes``.
RANDOMIZED_COLD_FACTOR = 2

#: ``solver="auto"`` picks the dense solver up to this many nodes, whatever the ranks ...
DENSE_MAX_NODES = 4096
#: ... and beyond it while more than this fraction of the spectrum is needed.
DENSE_MIN_FRACTION = 0.1
#: Elsewhere ``auto`` picks the exact truncated solver while its estimated cost
#: (:func:`truncated_solve_cost`, multiply-adds) is within this budget, and the randomized
#: solver above it. 2e12 is about eight minutes of eigensolves at the 4e9 multiply-adds per
#: second that ARPACK reached on the benchmark machine (docs/jdr_scale.txt); the estimate
#: puts the 20,000- and 50,000-node cSBM runs of ``benchmarks/jdr_scale.py`` (K=10,
#: L_A=L_X=64) below it and the 169,343-node one above. Change it here to move the switch.
EXACT_SOLVE_BUDGET = 2e12
#: Lanczos steps per wanted eigenpair in one ARPACK solve, as measured on the JDR cSBM
#: runs of ``docs/jdr_scale.txt`` (23 at N = 20,000 to 51 at N = 169,343; the lower end).
LANCZOS_STEPS_PER_PAIR = 25


class JDR(Rewirer):
    r"""Joint denoising of features and rewiring of the graph by spectral alignment (JDR).

    Linkerhägner, Shi and Dokmanić, "Joint Graph Rewiring and Feature Denoising via Spectral
    Resonance", ICLR 2025. The leading eigenvectors of :math:`A` and the leading left
    singular vectors of :math:`X` are pulled towards each other for ``num_iterations``
    rounds (see the module docstring for the update rules); the graph is then rebuilt from
    the ``top_k`` largest entries of each column of the denoised :math:`\tilde A`, with those
    entries as ``edge_weight``, and the features become
    :math:`(1-\eta_{X2})X + \eta_{X2}\tilde X`. The input adjacency uses the edge weights
    (1 when unweighted) and keeps self-loops on the diagonal.

    Parameter names and the paper's (and official code's) symbols:

    ==================  ==================  ===========================
    parameter           paper               official flag
    ==================  ==================  ===========================
    ``num_iterations``  :math:`K`           ``denoise_iterations``
    ``rank_a``          :math:`L_A`         ``rewired_index_A``
    ``rank_x``          :math:`L_X`         ``rewired_index_X``
    ``eta_a``           :math:`\eta_A`      ``rewired_ratio_A``
    ``eta_x1``          :math:`\eta_{X_1}`  ``rewired_ratio_X``
    ``eta_x2``          :math:`\eta_{X_2}`  ``rewired_ratio_X_non_binary``
    ``top_k``           :math:`A_k`         ``denoise_A_k``
    ``eps``             --                  ``denoise_A_eps``
    ``abs_ordering``    --                  ``abs_ordering``
    ``offset``          --                  ``denoise_offset``
    ==================  ==================  ===========================

    Two modes (``docs/jdr.md`` explains every decision):

    * ``faithful=False`` (default, *clean*): output undirected, non-negative, without
      self-loops: per column of the symmetric :math:`\tilde A` the ``top_k`` largest
      positive off-diagonal entries are kept, an edge is kept if either endpoint keeps it,
      with weight :math:`\tilde A_{ij}`. The sign of the feature pull is read at the chosen
      eigenvector also when ``offset > 0`` (the official code reads its neighbour), and
      pulls only go towards vectors carrying signal: eigenvectors with
      :math:`|\lambda| > 0` and singular vectors with :math:`\sigma > 0` (numerically),
      where the official code may pull towards arbitrary null-space vectors.
    * ``faithful=True`` reproduces the official ``denoise_jointly``: the output is
      **directed** (edge ``i → j`` when :math:`\tilde A_{ij}` is among the ``top_k``
      largest entries of column ``j``) and may hold self-loops and negative weights. With
      the dense solver in ``float32`` it performs the official floating-point operations
      (torch eigh/svd, including the official tie-breaking of ``|λ|`` ordering), so its
      output matches the official code's on the same machine.

    Both modes: ``rank_a``/``rank_x`` larger than the node count minus ``offset`` are
    clamped (the official code crashes); ``top_k >= N`` keeps whole columns;
    ``eta_a = 0`` returns the input graph and ``eta_x1 = 0`` keeps the features fixed
    (the official ``denoise_A``/``denoise_x`` set to ``No``); ``eta_x2`` mixes with the
    *original* features, so ``eta_x2 = 0`` returns them (the graph step still sees the
    evolving features).

    Args:
        num_iterations: :math:`K`, number of denoising iterations (0 changes nothing).
        rank_a: :math:`L_A`, number of leading eigenvectors of :math:`A` that are denoised.
        rank_x: :math:`L_X`, number of leading singular vectors of :math:`X` that are denoised.
        eta_a: :math:`\eta_A \in [0, 1]`, pull of the eigenvectors of :math:`A`.
        eta_x1: :math:`\eta_{X_1} \in [0, 1]`, pull of the singular vectors of :math:`X`.
        eta_x2: :math:`\eta_{X_2} \in [0, 1]`, weight of the denoised features in the output.
        top_k: entries kept per column of :math:`\tilde A`; ``0`` keeps every entry
            ``>= eps`` instead.
        eps: threshold used when ``top_k == 0``.
        abs_ordering: rank eigenvalues by :math:`|\lambda|` instead of :math:`\lambda`
            (heterophilic graphs); the ranking is fixed at the first iteration and reused.
        offset: number of top eigenvectors of :math:`A` to skip (1 skips the Perron vector).
        faithful: reproduce the official behaviour, directed output included (see above).
        solver: ``"dense"`` (full ``eigh``/``svd`` per iteration, ``O(N²)`` memory),
            ``"truncated"`` (ARPACK on a sparse-plus-low-rank :math:`\tilde A`, never
            ``N×N``), ``"randomized"`` (as truncated, but the eigenpairs are *approximate*:
            Ritz pairs of a block Krylov space of ``krylov_passes`` products per iteration,
            warm-started from the previous one; fixed work, no tolerance), or ``"auto"``:
            dense up to 4096 nodes or when more than a tenth of the spectrum is needed;
            otherwise truncated while the estimated cost of its eigensolves,
            :func:`truncated_solve_cost`, is within :data:`EXACT_SOLVE_BUDGET` (2e12
            multiply-adds, minutes on one core), and randomized above it. The choice and
            its reason are logged (one INFO line) and recorded in the report.
        dtype: ``"float32"`` (as the official code) or ``"float64"``: the precision of the
            dense solver, and of the truncated solver's matrix products (its Lanczos
            arithmetic is float64, to relative tolerance 1e-6 resp. 1e-10), and of the
            randomized solver's Krylov basis.
        krylov_passes: products with :math:`\tilde A` per iteration beyond the first, for
            ``solver="randomized"`` (twice as many from the first, random start; more
            passes resolve more of the leading pairs).
        seed: seed of ARPACK's starting vectors (truncated solver and alignment diagnostic)
            and of the randomized solver's starting block.

    The report's ``extra`` holds ``alignment_before``/``alignment_after``,
    :math:`\|V_L^\top U_L\|_2` with :math:`L = \min(L_A, L_X)` for the input and the output
    graph and features (a faithful output is symmetrised as :math:`(W + W^\top)/2` for it),
    the ``solver`` that ran with ``solver_reason`` (why ``auto`` chose it) and the ranks
    used after clamping.
    """

    name = "jdr"
    needs_features = True
    examples = (
        Example(params=dict(num_iterations=2, rank_a=3, rank_x=2, top_k=3)),
        Example(
            params=dict(
                num_iterations=3,
                rank_a=100,
                rank_x=100,
                eta_a=0.5,
                eta_x1=0.3,
                eta_x2=0.5,
                abs_ordering=True,
                offset=1,
                top_k=0,
                eps=0.05,
            )
        ),
        Example(
            params=dict(num_iterations=2, rank_a=2, rank_x=2, solver="truncated", top_k=4, seed=1)
        ),
        Example(
            params=dict(
                num_iterations=2,
                rank_a=3,
                rank_x=2,
                solver="randomized",
                krylov_passes=2,
                abs_ordering=True,
                top_k=4,
                seed=2,
            )
        ),
    )

    #: The JDR paper's search space (Linkerhägner et al., ICLR 2025, appendix): K ∈ [1, 30],
    #: L_A, L_X ∈ [1, 100], η_A, η_X1 ∈ (0, 0.5), η_X2 ∈ (0, 1), eigenvalues ordered by λ
    #: or by ``|λ|``.
    search_space = {
        "num_iterations": IntRange(1, 30),
        "rank_a": IntRange(1, 100),
        "rank_x": IntRange(1, 100),
        "eta_a": FloatRange(0.0, 0.5),
        "eta_x1": FloatRange(0.0, 0.5),
        "eta_x2": FloatRange(0.0, 1.0),
        "abs_ordering": Choice((False, True)),
    }

    def __init__(
        self,
        num_iterations: int = 10,
        rank_a: int = 100,
        rank_x: int = 100,
        eta_a: float = 0.1,
        eta_x1: float = 0.1,
        eta_x2: float = 0.1,
        top_k: int = 64,
        eps: float = 0.01,
        abs_ordering: bool = False,
        offset: int = 0,
        faithful: bool = False,
        solver: str = "auto",
        dtype: str = "float32",
        krylov_passes: int = 8,
        seed: int = 0,
    ) -> None:
        super().__init__()
        self.num_iterations = check_int("num_iterations", num_iterations, 0)
        self.rank_a = check_int("rank_a", rank_a, 1)
        self.rank_x = check_int("rank_x", rank_x, 1)
        self.eta_a = check_fraction("eta_a", eta_a)
        self.eta_x1 = check_fraction("eta_x1", eta_x1)
        self.eta_x2 = check_fraction("eta_x2", eta_x2)
        self.top_k = check_int("top_k", top_k, 0)
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps):
            raise RewireError(f"eps must be a finite number, got {eps!r}.")
        self.eps = float(eps)
        self.abs_ordering = check_bool("abs_ordering", abs_ordering)
        self.offset = check_int("offset", offset, 0)
        self.faithful = check_bool("faithful", faithful)
        if solver not in SOLVERS:
            raise RewireError(f"solver must be one of {', '.join(SOLVERS)}, got {solver!r}.")
        self.solver = solver
        if dtype not in DTYPES:
            raise RewireError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}.")
        self.dtype = dtype
        self.krylov_passes = check_int("krylov_passes", krylov_passes, 1)
        self.seed = check_seed(seed)

    # -- the method -----------------------------------------------------------------
    def _rewire(self, data: Data, edges: EdgeSet) -> RewireOutput:
        n = edges.num_nodes
        if data.x.dim() != 2:
            raise RewireError(
                f"JDR needs a 2-d feature matrix data.x, got shape {tuple(data.x.shape)}."
            )
        if self.offset >= n:
            raise RewireError(
                f"offset={self.offset} skips every eigenvector of a graph with {n} "
                "nodes; use an offset smaller than the number of nodes."
            )
        rank_a, rank_x = min(self.rank_a, n - self.offset), min(self.rank_x, n - self.offset)
        needed = max(rank_a, rank_x) + self.offset
        solver, reason = self._pick_solver(n, edges.num_pairs, needed, rank_a)
        logger.info("JDR solver: %s (%s)", solver, reason)
        rng = np.random.default_rng(self.seed)
        adjacency = _adjacency(edges)
        change_graph = self.eta_a > 0
        change_x = self.eta_x1 > 0 and self.eta_x2 > 0
        iterations = self.num_iterations if (change_graph or change_x) else 0

        dtype = DTYPES[self.dtype] if solver == "dense" else torch.float64
        x0 = data.x.to(dtype)
        graph: _DenseGraph | _TruncatedGraph
        if solver == "dense":
            graph = _DenseGraph(adjacency, dtype, self)
        else:
            graph = (_RandomizedGraph if solver == "randomized" else _TruncatedGraph)(
                adjacency, self, rng
            )
        x, alignment_before = self._denoise(graph, x0, rank_a, rank_x, needed, iterations, rng)

        out_edges = self._sparsify(graph, n) if change_graph and iterations else edges
        out_x = None
        if change_x and iterations:
            out_x = ((1 - self.eta_x2) * x0 + self.eta_x2 * x).to(_float_dtype(data.x))
        final_x = x0 if out_x is None else out_x.to(dtype)
        after = self._alignment_of_output(out_edges, final_x, min(rank_a, rank_x), solver, rng)
        extra: dict[str, Any] = {
            "alignment_before": alignment_before,
            "alignment_after": after,
            "solver": solver,
            "solver_reason": reason,
            "rank_a": rank_a,
            "rank_x": rank_x,
            "directed_output": out_edges.directed,
        }
        if isinstance(graph, _TruncatedGraph):
            extra["low_rank"] = graph.matrix.rank
        return RewireOutput(edges=out_edges, x=out_x, extra=extra)

    def _pick_solver(self, n: int, pairs: int, needed: int, rank_a: int) -> tuple[str, str]:
        """The solver to run and why: the one asked for, or the choice of ``auto``."""
        solver, reason = self.solver, "asked for"
        if solver == "auto":
            solver, reason = _auto_solver(n, pairs, needed, self.num_iterations, rank_a)
            reason = f"auto: {reason}"
        if solver == "truncated" and needed >= n - 1:
            raise RewireError(
                f"the truncated solver needs fewer than {n - 1} eigenvectors, but "
                f"rank_a/rank_x plus offset ask for {needed} on a graph with {n} "
                "nodes; use solver='dense' or smaller ranks."
            )
        return solver, reason

    def _denoise(
        self,
        graph: _DenseGraph | _TruncatedGraph,
        x: Tensor,
        rank_a: int,
        rank_x: int,
        needed: int,
        iterations: int,
        rng: np.random.Generator,
    ) -> tuple[Tensor, float]:
        """Run the iterations; return the last feature iterate and the input alignment."""
        offset, faithful = self.offset, self.faithful
        full_basis = faithful and isinstance(graph, _DenseGraph)
        window_x = np.arange(needed - rank_x - offset, needed - offset)
        window_a = np.arange(needed - rank_a - offset, needed - offset)
        alignment_before = math.nan
        for iteration in range(max(iterations, 1)):
            start = time.perf_counter()
            lam, vectors = graph.leading(needed)
            u, s, vh, candidates = self._singular(x, max(rank_a, rank_x), full_basis, rng)
            if iteration == 0:
                span = min(rank_a, rank_x)
                alignment_before = _alignment(
                    vectors[:, needed - span - offset : needed - offset], u[:, :span]
                )
            if iteration == iterations:  # nothing to denoise: only the alignment was wanted
                break
            # feature step: leading singular vectors -> leading eigenvectors of A
            if faithful:
                keep_x, count_x = window_x, min(rank_x, s.numel())
            else:
                keep_x = window_x[(lam[window_x].abs() > _tiny(lam, x.shape[0], x.dtype)).numpy()]
                count_x = int((s[:rank_x] > _tiny(s, max(x.shape), x.dtype)).sum())
            x_new = x
            if keep_x.size and count_x and self.eta_x1 > 0:
                pulled = _pull(
                    u[:, :count_x],
                    _columns(vectors, keep_x),
                    self.eta_x1,
                    sign_shift=offset if faithful else 0,
                )
                x_new = graph.rebuild_features(x, u, s, vh, pulled)
            # graph step: leading eigenvectors -> leading singular vectors of X
            cand = candidates[:, :rank_a]
            if cand.shape[1] and self.eta_a > 0:
                graph.replace(window_a, _pull(_columns(vectors, window_a), cand, self.eta_a))
            x = x_new
            logger.info(
                "JDR iteration %d/%d: %.1f s",
                iteration + 1,
                iterations,
                time.perf_counter() - start,
            )
        return x, alignment_before

    def _singular(
        self, x: Tensor, count: int, full_basis: bool, rng: np.random.Generator
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """``(u, s, vh, candidates)`` of the current features.

        ``candidates`` are the left singular vectors the graph step may pull towards: with
        ``full_basis`` (faithful, dense) the columns of the full ``N×N`` basis from
        ``svd(full_matrices=True)``, null-space completion included, as the official code;
        in faithful truncated mode the ``count`` leading ones; in clean mode the leading
        ones with numerically non-zero singular value.
        """
        if full_basis:
            u, s, vh = torch.linalg.svd(x, full_matrices=True)
            return u, s, vh, u
        u, s, vh = top_singular_triplets(x, count, rng)
        if self.faithful:
            return u, s, vh, u
        signal = int((s > _tiny(s, max(x.shape), x.dtype)).sum())  # s descends: a prefix
        return u, s, vh, u[:, :signal]

    def _sparsify(self, graph: _DenseGraph | _TruncatedGraph, n: int) -> EdgeSet:
        clean = not self.faithful  # the official code keeps the diagonal and negative entries
        start = time.perf_counter()
        rows, cols, values = blocked_select(
            graph.column_reader(),
            n,
            top_k=self.top_k,
            threshold=self.eps,
            skip_diagonal=clean,
            positive=clean,
        )
        logger.info(
            "JDR sparsification (%s): %d entries kept in %.1f s",
            f"top {self.top_k} per column" if self.top_k else f"entries >= {self.eps}",
            values.size,
            time.perf_counter() - start,
        )
        values = values.astype(np.float64)
        if self.faithful:
            return _directed_edges(n, rows, cols, values)
        return _undirected_edges(n, rows, cols, values)

    def _alignment_of_output(
        self, edges: EdgeSet, x: Tensor, span: int, solver: str, rng: np.random.Generator
    ) -> float:
        n = edges.num_nodes
        matrix = _adjacency(edges)
        if edges.directed:
            matrix = 0.5 * (matrix + matrix.T)
        count = span + self.offset
        if count >= DENSE_MIN_FRACTION * n or count >= n - 1:
            lam, vectors = dense_eigh(torch.from_numpy(matrix.toarray()).to(DTYPES[self.dtype]))
            order = (
                torch.sort(lam.abs(), stable=True).indices if self.abs_ordering else torch.arange(n)
            )
            vectors = vectors[:, order[n - count :]]
        elif solver == "randomized":
            vectors = _RandomizedGraph(matrix, self, rng).leading(count)[1]
        else:
            find = largest_magnitude_eigenpairs if self.abs_ordering else _largest_eigenpairs
            vectors = torch.from_numpy(find(matrix, count, rng)[1])
        u = top_singular_triplets(x, span, rng)[0]
        return _alignment(vectors[:, :span], u)


# -- the two solvers ------------------------------------------------------------------
class _DenseGraph:
    """Dense ``Ã`` with a full ``eigh`` per iteration, in the requested dtype (torch's as the
    official code in faithful mode, scipy's faster LAPACK call otherwise).

    The leading eigenpairs are the columns ``positions`` of the ascending decomposition;
    with ``abs_ordering`` the positions come from ``|λ|`` at the first iteration and are
    reused, as in the official code (which also sorts with ``torch.argsort``).
    """

    lam: Tensor  # the last decomposition (set by ``leading``): eigenvalues, ascending
    vectors: Tensor  # and their eigenvectors, as columns

    def __init__(self, adjacency: sp.csr_matrix, dtype: torch.dtype, method: JDR) -> None:
        self.matrix = torch.from_numpy(adjacency.toarray()).to(dtype)
        self.faithful, self.abs_ordering = method.faithful, method.abs_ordering
        self.positions: Tensor | None = None
        self.rebuild_order: Tensor | None = None

    def leading(self, count: int) -> tuple[Tensor, Tensor]:
        # faithful: torch's eigh, the official floating-point operations
        decompose = torch.linalg.eigh if self.faithful else dense_eigh
        self.lam, self.vectors = decompose(self.matrix)
        if self.positions is None:
            n = self.lam.numel()
            order, self.rebuild_order = torch.arange(n), torch.arange(n)
            if self.abs_ordering and self.faithful:
                order = torch.argsort(self.lam.abs())
                self.rebuild_order = order[torch.argsort(self.lam[order])]
            elif self.abs_ordering:
                order = torch.sort(self.lam.abs(), stable=True).indices
            self.positions = order[n - count :]
        return self.lam[self.positions], _columns(self.vectors, self.positions)

    def replace(self, window: np.ndarray, new: Tensor) -> None:
        """``A ← A − V Λ Vᵀ + Ṽ Λ Ṽᵀ`` over the leading columns ``window``."""
        if self.positions is None:
            raise RuntimeError("_DenseGraph.leading must run before replace")
        where = self.positions[torch.from_numpy(window)]
        if self.faithful:  # rebuild from the full decomposition, in the official column order
            vectors = self.vectors.clone()
            vectors[:, where] = new
            vectors, lam = vectors[:, self.rebuild_order], self.lam[self.rebuild_order]
            self.matrix = (vectors * lam) @ vectors.T
            return
        # Clean mode keeps the upper triangle only (all dense_eigh reads; see
        # linalg.symmetric), by symmetric rank-k products of N² k multiply-adds each: the
        # update A + ṼΛṼᵀ − VΛVᵀ costs 2 L N², rebuilding from the N − L unchanged pairs
        # and the L new ones costs N³, the cheaper when L > N / 2.
        lam = self.lam[where]
        if 2 * where.numel() > self.lam.numel():
            kept = torch.from_numpy(np.setdiff1d(np.arange(self.lam.numel()), where.numpy()))
            symmetric_rank_update(self.matrix, _columns(self.vectors, kept), self.lam[kept], 0.0)
        else:
            symmetric_rank_update(self.matrix, _columns(self.vectors, where), -lam, 1.0)
        symmetric_rank_update(self.matrix, new, lam, 1.0)

    def rebuild_features(
        self, x: Tensor, u: Tensor, s: Tensor, vh: Tensor, pulled: Tensor
    ) -> Tensor:
        """``X + (Ũ_L − U_L) Σ_L W_Lᵀ`` (faithful: ``Ũ Σ Wᵀ`` from the full SVD)."""
        count = pulled.shape[1]
        if self.faithful:  # the official floating-point operations
            scaled = torch.zeros(x.shape, dtype=x.dtype)
            scaled[:, : s.numel()] = u[:, : s.numel()] * s
            scaled[:, :count] = pulled * s[:count]
            return scaled @ vh
        return x + ((pulled - u[:, :count]) * s[:count]) @ vh[:count]

    def column_reader(self) -> Callable[[int, int], np.ndarray]:
        """Columns of ``Ã`` by blocks, copied as the rows of an array."""
        if not self.faithful:  # replace wrote the upper triangle only
            fill_lower_triangle(self.matrix)
        return lambda start, stop: np.array(self.matrix[:, start:stop].T.numpy())


class _TruncatedGraph:
    """``Ã = A + Q M Qᵀ`` (sparse plus low rank) with ARPACK for the leading eigenpairs.

    The leading set is fixed at the first iteration as the ``n_low`` smallest and
    ``n_high`` largest eigenvalues (all largest without ``abs_ordering``), with their
    order; later iterations recompute exactly those extremes.
    """

    def __init__(self, adjacency: sp.csr_matrix, method: JDR, rng: np.random.Generator) -> None:
        self.matrix = SparsePlusLowRank(adjacency)
        self.abs_ordering = method.abs_ordering
        self.dtype, self.tol = np.dtype(method.dtype).type, ARPACK_TOL[method.dtype]
        self.rng = rng
        self.sides: tuple[int, int] | None = None
        self.order: np.ndarray | None = None

    def leading(self, count: int) -> tuple[Tensor, Tensor]:
        operator = self.matrix.operator(self.dtype)
        if self.sides is None and self.abs_ordering:
            # largest |λ| first time round, already ordered least -> most leading
            lam, vectors = largest_magnitude_eigenpairs(operator, count, self.rng, self.tol)
            self.sides, self.order = _sides(lam)
        else:
            if self.sides is None:
                self.sides, self.order = (0, count), np.arange(count)
            lam, vectors = extreme_eigenpairs(operator, *self.sides, self.rng, self.tol)
            lam, vectors = lam[self.order], vectors[:, self.order]
        self.lam, self.vectors = torch.from_numpy(lam), torch.from_numpy(vectors)
        return self.lam, self.vectors

    def replace(self, window: np.ndarray, new: Tensor) -> None:
        old, lam = self.vectors[:, window].numpy(), self.lam[window].numpy()
        diff = new.numpy() - old
        zero, scale = np.zeros((lam.size, lam.size)), np.diag(lam)
        core = np.block([[zero, scale], [scale, scale]])  # Ṽ Λ Ṽᵀ − V Λ Vᵀ in factors [V, Ṽ − V]
        self.matrix.add(np.hstack([old, diff]), core)

    @staticmethod
    def rebuild_features(x: Tensor, u: Tensor, s: Tensor, vh: Tensor, pulled: Tensor) -> Tensor:
        """``X + (Ũ_L − U_L) Σ_L W_Lᵀ``."""
        count = pulled.shape[1]
        return x + ((pulled - u[:, :count]) * s[:count]) @ vh[:count]

    def column_reader(self) -> Callable[[int, int], np.ndarray]:
        """Columns of ``Ã`` by blocks (its rows, by symmetry), low-rank part in ``dtype``."""
        return self.matrix.row_reader(self.dtype)


class _RandomizedGraph(_TruncatedGraph):
    """``Ã = A + Q M Qᵀ`` as in :class:`_TruncatedGraph`, with approximate leading
    eigenpairs: the Ritz pairs of :func:`~rewirekit.linalg.block_krylov_ritz_pairs`.

    The block is twice as wide as the wanted count. The extra Ritz vectors are guards, split
    between the two ends as the wanted pairs are. Each iteration starts from the previous
    iteration's Ritz vectors, wanted and guards. ``Ã`` changes by a low-rank term per
    iteration, so they already span much of the new leading space. The first, cold solve
    from a random block gets twice the passes. The leading set is fixed at the first
    iteration, as for the truncated solver.
    """

    def __init__(self, adjacency: sp.csr_matrix, method: JDR, rng: np.random.Generator) -> None:
        super().__init__(adjacency, method, rng)
        self.passes = method.krylov_passes
        self.warm: np.ndarray | None = None

    def leading(self, count: int) -> tuple[Tensor, Tensor]:
        n = self.matrix.shape[0]
        start, passes = self.warm, self.passes
        if start is None:
            start = self.rng.standard_normal((n, min(RANDOMIZED_BLOCK_FACTOR * count, n)))
            passes *= RANDOMIZED_COLD_FACTOR
        values, vectors = block_krylov_ritz_pairs(
            self.matrix.block_product(self.dtype),
            start.astype(self.dtype),
            passes,
            lambda theta: self._select(theta, count, start.shape[1]),
        )
        self.warm = vectors
        lam, vectors = values[:count][self.order], vectors[:, :count][:, self.order]
        self.lam = torch.from_numpy(lam)
        self.vectors = torch.from_numpy(vectors.astype(np.float64))
        return self.lam, self.vectors

    def _select(self, theta: np.ndarray, count: int, width: int) -> np.ndarray:
        """Indices (into the ascending ``theta``) of the wanted pairs, ``[lows asc, highs
        asc]``, followed by the guards."""
        total = theta.size
        if self.sides is None:
            if self.abs_ordering:
                self.sides, self.order = _sides(theta[np.lexsort((theta, np.abs(theta)))][-count:])
            else:
                self.sides, self.order = (0, count), np.arange(count)
        n_low, n_high = self.sides
        guards = max(min(width, total) - count, 0)
        g_low = guards * n_low // count
        g_high = guards - g_low
        low, high = np.arange(n_low + g_low), np.arange(total - n_high - g_high, total)
        return np.concatenate([low[:n_low], high[g_high:], low[n_low:], high[:g_high]])


# -- the choice of solver -------------------------------------------------------------
def truncated_solve_cost(
    num_nodes: int, num_pairs: int, needed: int, iterations: int, rank_a: int
) -> float:
    r"""Estimated multiply-adds of the exact truncated solver's eigensolves.

    One ARPACK solve per iteration and one for the output's alignment, each of
    :math:`s = 25\,p` Lanczos steps for :math:`p` = ``needed`` wanted pairs
    (:data:`LANCZOS_STEPS_PER_PAIR`); a step multiplies by the sparse part (:math:`2|E|`
    entries), by the low-rank part (:math:`2 N \bar q`, with :math:`\bar q = K L_A` the
    rank of the correction halfway through the run; it grows by at most :math:`2 L_A` per
    iteration) and reorthogonalises against ARPACK's :math:`2p + 1` Lanczos vectors
    (:math:`2 N (2p + 1)`):

    .. math:: C = (K + 1)\, s\, \bigl(2|E| + 2 N K L_A + 2 N (2p + 1)\bigr).

    Steps per pair grow slowly with :math:`N` (23 at 20,000 nodes, 51 at 169,343 on the JDR
    cSBM), so the estimate is low for large graphs, on the side of the exact solver.
    """
    steps = LANCZOS_STEPS_PER_PAIR * needed
    per_step = (
        2 * num_pairs + 2 * num_nodes * iterations * rank_a + 2 * num_nodes * (2 * needed + 1)
    )
    return float((iterations + 1) * steps * per_step)


def _auto_solver(n: int, pairs: int, needed: int, iterations: int, rank_a: int) -> tuple[str, str]:
    """``solver="auto"``'s choice for a graph of ``n`` nodes and ``pairs`` edges, and why."""
    if n <= DENSE_MAX_NODES:
        return "dense", f"N = {n} <= {DENSE_MAX_NODES}"
    if needed >= DENSE_MIN_FRACTION * n:
        return "dense", f"{needed} eigenpairs >= {DENSE_MIN_FRACTION:g} N"
    cost = truncated_solve_cost(n, pairs, needed, iterations, rank_a)
    if cost <= EXACT_SOLVE_BUDGET:
        return "truncated", f"estimated exact solve {cost:.2g} <= budget {EXACT_SOLVE_BUDGET:.2g}"
    return "randomized", f"estimated exact solve {cost:.2g} > budget {EXACT_SOLVE_BUDGET:.2g}"


# -- helpers --------------------------------------------------------------------------
def _sides(lam: np.ndarray) -> tuple[tuple[int, int], np.ndarray]:
    """For leading eigenvalues ordered least -> most leading: how many are negative and how
    many are not, ``(n_low, n_high)``, and each one's index into ``[n_low smallest
    ascending, n_high largest ascending]``, so later iterations can recompute exactly those
    extremes."""
    low = lam < 0
    sides = (int(low.sum()), int((~low).sum()))
    order = np.empty(lam.size, dtype=np.int64)
    for side, base in ((low, 0), (~low, sides[0])):
        idx = np.flatnonzero(side)
        order[idx[np.argsort(lam[idx], kind="stable")]] = base + np.arange(idx.size)
    return sides, order


def _largest_eigenpairs(
    matrix: sp.spmatrix, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    return extreme_eigenpairs(matrix, 0, count, rng)


def _pull(vectors: Tensor, candidates: Tensor, eta: float, sign_shift: int = 0) -> Tensor:
    r"""Move each column :math:`v` of ``vectors`` towards the candidate :math:`c` with the
    largest :math:`|\langle v, c\rangle|`:
    :math:`(1-\eta) v + \eta\,\mathrm{sign}\langle v, c\rangle c`.

    ``sign_shift`` reads the sign ``sign_shift`` candidates earlier (cyclically), the
    official feature step's behaviour when ``offset > 0``. Ties go to the first candidate.
    """
    overlap = vectors.T @ candidates
    best = overlap.abs().argmax(dim=1)
    at = (best - sign_shift) % candidates.shape[1]
    sign = torch.sign(overlap.gather(1, at[:, None]))[:, 0]
    # (c·η)·s with s = ±1 equals c·(η·s) bit for bit: one pass fewer, same floating point
    return (vectors * (1 - eta)).add_(_columns(candidates, best) * (eta * sign))


def _columns(matrix: Tensor, index: np.ndarray | Tensor) -> Tensor:
    """``matrix[:, index]``, without the cost of advanced indexing: a view when ``index``
    is a contiguous ascending run (the usual leading window), otherwise a copy made row by
    row of the transpose when ``matrix`` is column-major (LAPACK's eigenvectors), which
    copies contiguous memory where gathering along the strided dimension does not."""
    index = torch.as_tensor(index, dtype=torch.long)
    if index.numel() and bool((index.diff() == 1).all()):
        return matrix[:, int(index[0]) : int(index[-1]) + 1]
    if matrix.stride(0) == 1:
        return matrix.T.index_select(0, index).T
    return matrix.index_select(1, index)


def _alignment(vectors: Tensor, u: Tensor) -> float:
    """Spectral norm :math:`\\|V^\\top U\\|_2` (the paper's alignment diagnostic)."""
    if not vectors.numel() or not u.numel():
        return 0.0
    return float(torch.linalg.matrix_norm(vectors.T.to(torch.float64) @ u.to(torch.float64), ord=2))


def _tiny(values: Tensor, size: int, dtype: torch.dtype) -> float:
    """Numerical-zero threshold for the eigen- or singular values ``values`` of a matrix of
    largest dimension ``size`` computed in ``dtype`` (as ``numpy.linalg.matrix_rank``)."""
    if not values.numel():
        return 0.0
    return float(values.abs().max()) * size * torch.finfo(dtype).eps


def _adjacency(edges: EdgeSet) -> sp.csr_matrix:
    """Weighted adjacency matrix (both directions if undirected; self-loops on the diagonal)."""
    n = edges.num_nodes
    weight = np.ones(edges.num_pairs) if edges.weight is None else edges.weight
    loop_weight = (
        np.ones(edges.self_loops.size) if edges.self_loop_weight is None else edges.self_loop_weight
    )
    rows = [edges.src, edges.self_loops] + ([] if edges.directed else [edges.dst])
    cols = [edges.dst, edges.self_loops] + ([] if edges.directed else [edges.src])
    vals = [weight, loop_weight] + ([] if edges.directed else [weight])
    return sp.csr_matrix(
        (np.concatenate(vals).astype(np.float64), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n, n),
    )


def _directed_edges(n: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> EdgeSet:
    """Edges ``i → j`` for kept entries ``(i, j)``; diagonal entries become self-loops."""
    loop = rows == cols
    order = np.lexsort((cols[~loop], rows[~loop]))
    loops = np.argsort(rows[loop], kind="stable")
    return EdgeSet(
        n,
        rows[~loop][order],
        cols[~loop][order],
        values[~loop][order],
        rows[loop][loops],
        values[loop][loops],
        directed=True,
    )


def _undirected_edges(n: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray) -> EdgeSet:
    """Union of kept off-diagonal entries as canonical pairs ``u < v`` (first value wins)."""
    src, dst = np.minimum(rows, cols), np.maximum(rows, cols)
    keys, first = np.unique(src * n + dst, return_index=True)
    empty = np.zeros(0, dtype=np.int64)
    return EdgeSet(n, keys // n, keys % n, values[first], empty, np.zeros(0), directed=False)


def _float_dtype(x: Tensor) -> torch.dtype:
    return x.dtype if x.is_floating_point() else torch.float32
