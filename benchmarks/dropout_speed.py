"""Training time with rewirekit's dropout masks against torch's ``bernoulli_``, side by side.

``rewirekit.models.dropout`` draws the masks of ``F.dropout`` itself (the same masks, bit for
bit); this times ``train_node_classifier`` for a fixed number of epochs with it and with
torch's own kernel (the module's fallback, forced), in one process, one after the other, and checks
that both runs give equal logits. One torch thread::

    REWIREKIT_DATA=../shared/datasets python benchmarks/dropout_speed.py > docs/dropout_speed.txt
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from timing import Protocol, ratio, run_header, set_threads

from rewirekit.bench.training import TrainConfig, TrainResult, train_node_classifier
from rewirekit.datasets import get_split_preset, load
from rewirekit.models import dropout as dropout_module

#: (dataset, model, hidden, dropout): the first stored Computers rows of each model's `none`
#: cell (docs/leaderboard.csv.gz), and Cora with the models' defaults.
CASES = [
    ("computers", "gprgnn", 32, 0.3691834898023455),
    ("computers", "gcn", 128, 0.056828846558309554),
    ("cora", "gprgnn", 64, 0.5),
    ("cora", "gcn", 64, 0.5),
]


@contextmanager
def torch_masks() -> Iterator[None]:
    """Draw the masks with torch's ``bernoulli_`` (the module's fallback) inside."""
    fast = dropout_module._bernoulli
    dropout_module._bernoulli = lambda out, keep: None
    try:
        yield
    finally:
        dropout_module._bernoulli = fast


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--datasets", nargs="+", help="default: those of CASES")
    Protocol.add_arguments(parser, repeats=3, warmup=1)
    args = parser.parse_args(argv)
    protocol = Protocol.from_args(args)
    set_threads(1)
    print(run_header("dropout_speed.py"))
    print(
        f"torch {torch.__version__}, one thread, {args.epochs} epochs per call; 1-minute load "
        f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start"
    )
    print(protocol.describe())
    print(f"{'dataset':<10} {'model':<7} {'torch masks':>17} {'ours':>17} {'ratio':>6}  logits")
    loaded = {}
    for dataset, model, hidden, dropout in CASES:
        if args.datasets and dataset not in args.datasets:
            continue
        if dataset not in loaded:
            data = load(dataset)
            loaded[dataset] = (data, get_split_preset("dense").split(data, 0, dataset))
        data, masks = loaded[dataset]
        config = TrainConfig(
            hidden=hidden, dropout=dropout, max_epochs=args.epochs, early_stopping="none"
        )

        def train(data=data, masks=masks, model=model, config=config) -> TrainResult:
            train_mask, val_mask, test_mask = masks
            return train_node_classifier(
                data, train_mask, val_mask, test_mask, model, config, seed=0, keep_logits=True
            )

        with torch_masks():
            reference, theirs = protocol.timed(train)
        result, ours = protocol.timed(train)
        assert result.logits is not None and reference.logits is not None
        same = "equal" if torch.equal(result.logits, reference.logits) else "DIFFERENT"
        print(
            f"{dataset:<10} {model:<7} {theirs.cell()} {ours.cell()} "
            f"{ratio(theirs, ours):>5.2f}x  {same}"
        )


if __name__ == "__main__":
    main()
