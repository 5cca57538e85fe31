"""Exactness of rewirekit's JDR against the official implementation (jlinki/JDR).

    git clone https://github.com/jlinki/JDR /tmp/JDR
    REWIREKIT_DATA=/work/shared/datasets python benchmarks/jdr_vs_official.py /tmp/JDR
    python benchmarks/jdr_vs_official.py /tmp/JDR --datasets cora --noise-floor

Runs the official ``denoise_jointly`` (imported from ``OFFICIAL_DIR/src``) and ours with
``faithful=True, solver="dense", dtype="float32"`` on the same input with the paper's
tuned settings (official yaml, GCN column: Cora sparse split, Chameleon dense split), and
prints: whether the edge sets are identical (and how many edges differ), the largest
relative error of the edge weights and of the features, and how many columns of the
denoised matrix have a tie at the top-k cut (where any top-k rule may pick differently).
The clean default mode is compared too (its edges differ by design: symmetric, positive,
no self-loops).

``--noise-floor`` also reruns the official code (and our clean mode) on features perturbed
by 1e-7 (relative, float32 rounding level) and reports how far each moves from itself. On
the paper's settings JDR is chaotic: every pull picks its partner by an argmax over
hundreds of overlaps, near-ties flip under rounding and each flip changes the next
iteration's spectrum, so the output depends on rounding. Agreement beyond this floor is
only possible by performing the same floating-point operations, which the faithful mode
does in float32 with the dense solver.

Both run single-threaded by default (``--threads``): MKL results depend on the thread
count, and so does the official output. The output's first lines record the thread count,
torch's version and the official checkout's commit (``git rev-parse HEAD`` in
``OFFICIAL_DIR``). The times printed beside the faithful comparison follow the
``timing.Protocol`` of ``--warmup``/``--repeat`` (default: no warm-up, one timed call; the
comparison uses the last call's output), the same for both codes; ``jdr_speed.py`` is the
speed table.

Inputs: the datasets via ``rewirekit.datasets.load`` and ``standardize`` (undirected, no
self-loops; the official script feeds Chameleon's raw *directed* edges, of which torch's
``eigh`` reads only the lower triangle), features row-normalised where the official config
says ``normalize_data: Yes`` (Chameleon).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch_geometric.transforms as T
from timing import Protocol, Timing, git_commit, set_threads
from torch_geometric.data import Data

#: One timed call, no warm-up: the default protocol of this (exactness) script.
SINGLE_CALL = Protocol(repeats=1, warmup=0)

#: The split whose GCN-tuned settings (official yaml) each dataset is compared with.
PAPER_SPLITS = {"cora": "sparse", "citeseer": "sparse", "chameleon": "dense"}


def paper_settings(name: str) -> tuple[dict, bool]:
    """JDR's tuned keyword arguments for ``name`` (GCN column of the official yaml) and
    whether the official config normalises the features before denoising."""
    from rewirekit.bench import JDRPreset

    preset, split = JDRPreset(), PAPER_SPLITS[name]
    return (
        preset.rewiring_params(name, "gcn", split),
        preset.config(name, "gcn", rewired=True, split=split).normalize_features,
    )


def load_dataset(name: str) -> Data:
    """The dataset as both implementations get it (see the module docstring)."""
    from rewirekit.datasets import load, standardize

    os.environ.setdefault("REWIREKIT_DATA", "/work/shared/datasets")
    cache = os.environ.get("REWIREKIT_CACHE") or os.path.join(
        tempfile.gettempdir(), "rewirekit-bench"
    )
    data = standardize(load(name, cache_dir=cache))
    if paper_settings(name)[1]:
        data = T.NormalizeFeatures()(data)
    return Data(x=data.x, edge_index=data.edge_index, y=data.y)


def load_official(official_dir: str) -> types.ModuleType:
    """Import ``denoise_jointly`` from a checkout of github.com/jlinki/JDR."""
    src = Path(official_dir) / "src"
    if not (src / "denoise_jointly.py").exists():
        sys.exit(f"{src / 'denoise_jointly.py'} not found: pass the root of a jlinki/JDR checkout.")
    sys.path.insert(0, str(src))
    import denoise_jointly

    return denoise_jointly


def official_args(settings: dict) -> types.SimpleNamespace:
    """The argparse namespace ``denoise_jointly`` reads (non-binary, weighted, yaml values)."""
    return types.SimpleNamespace(
        denoise_iterations=settings["num_iterations"],
        rewired_index_A=settings["rank_a"],
        rewired_index_X=settings["rank_x"],
        rewired_ratio_A=settings["eta_a"],
        rewired_ratio_X=settings["eta_x1"],
        rewired_ratio_X_non_binary=settings["eta_x2"],
        abs_ordering=settings["abs_ordering"],
        denoise_offset=settings["offset"],
        denoise_A_k=settings["top_k"],
        denoise_A_eps=0.01,
        denoise_non_binary=True,
        use_right_eigvec=True,
        use_node_attr=False,
        kernel_X=False,
        use_edge_attr=True,
        denoise_A=True,
        denoise_x=True,
        wandb_log=False,
        flip_number_X_1=0,
        flip_number_X_0=0,
        flip_number_A_1=0,
        flip_number_A_0=0,
    )


def run_official(module: types.ModuleType, data: Data, settings: dict) -> Data:
    """Run the official function (its progress bar and prints silenced)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return module.denoise_jointly(data.clone(), official_args(settings), "cpu")


def _weights(edge_index: torch.Tensor, weight: torch.Tensor, n: int) -> dict[int, float]:
    keys = (edge_index[0].long() * n + edge_index[1].long()).tolist()
    return dict(zip(keys, weight.double().tolist(), strict=True))


def compare_graphs(
    n: int, reference: tuple[torch.Tensor, torch.Tensor], ours: tuple[torch.Tensor, torch.Tensor]
) -> tuple[int, float]:
    """(edges in exactly one of the two, max relative weight error on common edges)."""
    a, b = _weights(*reference, n), _weights(*ours, n)
    common = a.keys() & b.keys()
    errors = [abs(b[k] - a[k]) / abs(a[k]) for k in common]
    return len(a.keys() ^ b.keys()), max(errors, default=0.0)


def feature_error(reference: torch.Tensor, ours: torch.Tensor) -> float:
    """Largest entry-wise error relative to the largest reference entry."""
    reference, ours = reference.double(), ours.double()
    return float((ours - reference).abs().max() / reference.abs().max())


def cut_ties(data: Data, settings: dict, dtype: str = "float32") -> int:
    """Columns of our faithful denoised matrix whose top_k-th and (top_k+1)-th entries tie."""
    import rewirekit

    top_k = settings["top_k"]
    out = rewirekit.rewire(
        data, "jdr", **{**settings, "top_k": top_k + 1}, faithful=True, solver="dense", dtype=dtype
    )
    col, weight = out.edge_index[1].numpy(), out.edge_weight.double().numpy()
    order = np.lexsort((-weight, col))
    col, weight = col[order], weight[order]
    starts = np.searchsorted(col, np.arange(data.num_nodes))
    counts = np.diff(np.append(starts, col.size))
    full = np.flatnonzero(counts == top_k + 1)
    kth, next_ = weight[starts[full] + top_k - 1], weight[starts[full] + top_k]
    return int(np.count_nonzero(kth == next_))


@dataclass(frozen=True)
class Exactness:
    """Our faithful output against the official one on one input."""

    official_edges: int
    differing_edges: int  # directed edges in exactly one of the two outputs
    weight_error: float  # max relative error of the weights of common edges
    feature_error: float  # max entry error relative to the largest official entry
    ties: int  # columns with a tie at the top-k cut
    official_time: Timing
    ours_time: Timing

    def __str__(self) -> str:
        same = "yes" if self.differing_edges == 0 else "no"
        return (
            f"faithful: identical edge set: {same} ({self.differing_edges} of "
            f"{self.official_edges} edges differ); max rel. error of weights "
            f"{self.weight_error:.3g}, of features {self.feature_error:.3g}; ties at the "
            f"top-k cut: {self.ties} columns; official {self.official_time.cell(0)}, "
            f"ours {self.ours_time.cell(0)}"
        )


def compare_faithful(
    official: types.ModuleType,
    data: Data,
    settings: dict,
    dtype: str = "float32",
    protocol: Protocol = SINGLE_CALL,
) -> tuple[Exactness, Data]:
    """Run the official code and our faithful mode on ``data`` (timed under ``protocol``);
    return the comparison and the official output."""
    import rewirekit

    ref, t_official = protocol.timed(lambda: run_official(official, data, settings))
    reference = (ref.edge_index, ref.edge_attr.reshape(-1))
    ours, t_ours = protocol.timed(
        lambda: rewirekit.rewire(
            data, "jdr", **settings, faithful=True, solver="dense", dtype=dtype
        )
    )
    differ, weight_err = compare_graphs(
        data.num_nodes, reference, (ours.edge_index, ours.edge_weight)
    )
    return Exactness(
        reference[0].size(1),
        differ,
        weight_err,
        feature_error(ref.x, ours.x),
        cut_ties(data, settings, dtype),
        t_official,
        t_ours,
    ), ref


def clean_coverage(official_output: Data, clean: Data) -> float:
    """Share of the official positive off-diagonal edges that the clean output holds."""
    n = clean.num_nodes
    ei, weight = official_output.edge_index, official_output.edge_attr.reshape(-1)
    kept = ei[:, (weight > 0) & (ei[0] != ei[1])]
    clean_keys = set((clean.edge_index[0] * n + clean.edge_index[1]).tolist())
    return float(np.mean([k in clean_keys for k in (kept[0] * n + kept[1]).tolist()]))


def noise_floor(
    official: types.ModuleType, data: Data, settings: dict, reference: Data, clean: Data
) -> None:
    """Print how far the official code and our clean mode move on x·(1 + 1e-7·noise)."""
    import rewirekit

    noisy = data.clone()
    noise = torch.randn(data.x.shape, generator=torch.Generator().manual_seed(0))
    noisy.x = data.x * (1 + 1e-7 * noise)
    perturbed = run_official(official, noisy, settings)
    differ, weight_err = compare_graphs(
        data.num_nodes,
        (reference.edge_index, reference.edge_attr.reshape(-1)),
        (perturbed.edge_index, perturbed.edge_attr.reshape(-1)),
    )
    print(
        f"noise floor, official vs official on x·(1 + 1e-7·noise): {differ} edges "
        f"differ; max rel. error of weights {weight_err:.3g}, of features "
        f"{feature_error(reference.x, perturbed.x):.3g}"
    )
    clean_perturbed = rewirekit.rewire(noisy, "jdr", **settings)
    differ, weight_err = compare_graphs(
        data.num_nodes,
        (clean.edge_index, clean.edge_weight),
        (clean_perturbed.edge_index, clean_perturbed.edge_weight),
    )
    print(
        f"noise floor, clean vs clean on the same perturbed x: {differ} of "
        f"{clean.edge_index.size(1)} directed edges differ; max rel. error of weights "
        f"{weight_err:.3g}, of features {feature_error(clean.x, clean_perturbed.x):.3g}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official_dir", help="root of a jlinki/JDR checkout (with src/)")
    parser.add_argument(
        "--datasets", nargs="+", default=["cora", "chameleon"], choices=sorted(PAPER_SPLITS)
    )
    parser.add_argument("--threads", type=int, default=1)
    Protocol.add_arguments(parser, repeats=1, warmup=0)
    parser.add_argument(
        "--noise-floor",
        action="store_true",
        help="also rerun the official code on features perturbed by 1e-7",
    )
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)
    set_threads(args.threads)
    import rewirekit

    official = load_official(args.official_dir)
    print(
        f"threads={args.threads} (torch, MKL, OpenMP, OpenBLAS; both codes)  "
        f"torch {torch.__version__}  official jlinki/JDR {git_commit(args.official_dir)}"
    )
    print(protocol.describe())
    for name in args.datasets:
        settings, data = paper_settings(name)[0], load_dataset(name)
        print(
            f"\n== {name} ({PAPER_SPLITS[name]} split, GCN-tuned): N={data.num_nodes}, "
            f"F={data.num_features}, " + ", ".join(f"{k}={v}" for k, v in settings.items())
        )
        exactness, reference = compare_faithful(official, data, settings, protocol=protocol)
        print(exactness)
        clean = rewirekit.rewire(data, "jdr", **settings)
        print(
            f"clean:    {clean.edge_index.size(1) // 2} undirected edges; it holds "
            f"{clean_coverage(reference, clean):.1%} of the official positive off-diagonal "
            f"edges; max rel. error of features {feature_error(reference.x, clean.x):.3g}"
        )
        if args.noise_floor:
            noise_floor(official, data, settings, reference, clean)


if __name__ == "__main__":
    main()
