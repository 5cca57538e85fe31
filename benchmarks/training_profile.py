"""Where the training time of a leaderboard run goes: ``train_node_classifier`` under
:mod:`torch.profiler`, for a fixed number of epochs, on one thread.

It prints the wall time per epoch and the operators with the largest self CPU time, each
with its share of the profiled total, for each model given. A profile, not a speed
comparison: it says which operator a faster trainer would have to change. The hyperparameters
are set on the command line (the defaults are those of the first Amazon Computers rows of the
leaderboard, ``docs/leaderboard.csv.gz``)::

    REWIREKIT_DATA=../shared/datasets python benchmarks/training_profile.py \\
        > docs/training_profile_computers.txt
"""

from __future__ import annotations

import argparse
import os
import time

import torch
from timing import run_header, set_threads
from torch.profiler import profile
from torch_geometric.data import Data

from rewirekit.bench.training import TrainConfig, train_node_classifier
from rewirekit.datasets import get_split_preset, load
from rewirekit.datasets.splits import Masks

#: model -> (hidden, dropout) of the first stored Computers row of that model's `none` cell.
DEFAULTS = {"gcn": (128, 0.056828846558309554), "gprgnn": (32, 0.3691834898023455)}


def profile_training(
    data: Data, masks: Masks, model: str, hidden: int, dropout: float, epochs: int
) -> None:
    config = TrainConfig(hidden=hidden, dropout=dropout, max_epochs=epochs, early_stopping="none")
    train, val, test = masks
    train_node_classifier(
        data, train, val, test, model, TrainConfig(max_epochs=2, early_stopping="none"), seed=0
    )
    start = time.perf_counter()
    with profile() as prof:
        train_node_classifier(data, train, val, test, model, config, seed=0)
    wall = time.perf_counter() - start
    events = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)
    total = sum(e.self_cpu_time_total for e in events)
    print(
        f"\n{model}: hidden {hidden}, dropout {dropout:.4f}, {epochs} epochs, "
        f"{1000 * wall / epochs:.1f} ms per epoch (wall, under the profiler)"
    )
    print(f"{'operator':<48} {'calls':>7} {'self CPU (ms)':>14} {'share':>7}")
    for event in events[:8]:
        print(
            f"{event.key:<48} {event.count:>7} {event.self_cpu_time_total / 1000:>14.1f} "
            f"{100 * event.self_cpu_time_total / total:>6.1f}%"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="computers")
    parser.add_argument("--models", nargs="+", default=list(DEFAULTS))
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args(argv)
    set_threads(1)
    print(run_header("training_profile.py"))
    data = load(args.dataset)
    masks = get_split_preset("dense").split(data, 0, args.dataset)
    print(
        f"{args.dataset}: {data.num_nodes} nodes, {data.edge_index.size(1)} directed edges, "
        f"{data.x.size(1)} features, {100 * float((data.x != 0).float().mean()):.1f}% non-zero; "
        f"torch {torch.__version__}, one thread; 1-minute load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start"
    )
    for model in args.models:
        hidden, dropout = DEFAULTS.get(model, (64, 0.5))
        profile_training(data, masks, model, hidden, dropout, args.epochs)


if __name__ == "__main__":
    main()
