"""Speed of rewirekit's JDR against the official implementation, same CPU, same threads.

    REWIREKIT_DATA=/work/shared/datasets python benchmarks/jdr_speed.py /tmp/JDR
    python benchmarks/jdr_speed.py /tmp/JDR --datasets cora --threads 2 --repeat 3

``OFFICIAL_DIR`` is a checkout of github.com/jlinki/JDR (see ``jdr_vs_official.py``).
Times the official ``denoise_jointly`` and ours in both modes (clean default and
``faithful=True``, dense float32) with the paper's tuned settings on Cora, CiteSeer and
Chameleon, and prints the best wall time of ``--repeat`` runs and the speed-up ratios.
Thread counts of torch/MKL/OpenMP/OpenBLAS are set identically for both before anything
runs. Both timings include each implementation's alignment diagnostic (the official function
computes it with two more full ``eigh``/``svd``; ours reuses the first iteration's
decomposition and a truncated solver on the sparse output).

The ``lapack`` column is the time of the dense decompositions alone that every exact
dense JDR run performs, ``K`` times an ``eigh`` of the ``N×N`` adjacency and a thin SVD of
the features (float32, the LAPACK calls of the clean mode); ``bound`` = official / lapack
is the largest speed-up any implementation making those calls can reach.
"""

from __future__ import annotations

import argparse

from jdr_vs_official import PAPER_SPLITS, load_dataset, load_official, paper_settings, run_official
from timing import best_of, set_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("official_dir", help="root of a jlinki/JDR checkout (with src/)")
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["cora", "citeseer", "chameleon"],
        choices=sorted(PAPER_SPLITS),
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    set_threads(args.threads)
    official = load_official(args.official_dir)
    print(f"threads={args.threads}, best of {args.repeat}")
    print(
        f"{'dataset':<10} {'official':>9} {'clean':>8} {'ratio':>6} {'faithful':>9} {'ratio':>6} "
        f"{'lapack':>7} {'bound':>6}"
    )
    for name in args.datasets:
        print(timing_row(name, official, args.repeat), flush=True)


def timing_row(name: str, official, repeat: int) -> str:
    """One dataset's row: the official code, ours (clean and faithful), and the LAPACK bound."""
    import rewirekit

    settings, data = paper_settings(name)[0], load_dataset(name)
    t_official = best_of(repeat, lambda: run_official(official, data, settings))
    t_clean = best_of(repeat, lambda: rewirekit.rewire(data, "jdr", **settings))
    t_faithful = best_of(
        repeat,
        lambda: rewirekit.rewire(data, "jdr", **settings, faithful=True, solver="dense"),
    )
    t_lapack = best_of(repeat, lambda: decompositions(data, settings["num_iterations"]))
    return (
        f"{name:<10} {t_official:>8.1f}s {t_clean:>7.1f}s {t_official / t_clean:>5.1f}x "
        f"{t_faithful:>8.1f}s {t_official / t_faithful:>5.1f}x {t_lapack:>6.1f}s "
        f"{t_official / t_lapack:>5.1f}x"
    )


def decompositions(data, iterations: int) -> None:
    """``iterations`` times the dense ``eigh`` and thin SVD of a JDR iteration, float32."""
    from torch_geometric.utils import to_dense_adj

    from rewirekit.linalg import dense_eigh, dense_svd

    adjacency = to_dense_adj(data.edge_index, max_num_nodes=data.num_nodes)[0]
    x = data.x.float()
    for _ in range(iterations):
        dense_eigh(adjacency)
        dense_svd(x)


if __name__ == "__main__":
    main()
