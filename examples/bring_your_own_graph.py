"""Bring your own graph: a folder of ``edges.csv``, ``features.csv`` and ``labels.csv``.

    python examples/bring_your_own_graph.py [--small] [--out DIR]

The example first writes such a folder (a small two-community graph whose features carry the
labels), then does what you would do with your own: read it with
``rewirekit.datasets.read_graph`` (which checks it and says what to fix), rewire it with
ComFy, and save the new edges in the same CSV layout. The same folder (or an ``.npz`` with
``edge_index``, ``x``, ``y``, or a saved PyG ``Data``) runs on the command line too::

    rewirekit bench --dataset DIR --method none --method comfy:add=20,delete=20
    rewirekit diagnose --dataset DIR
"""

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch

import rewirekit
from rewirekit.datasets import aligned_sbm, read_graph


def write_example_folder(folder: Path, num_nodes: int) -> Path:
    """Stand-ins for your files, in the layout ``read_graph`` documents."""
    graph = aligned_sbm(num_nodes=num_nodes, seed=0)
    src, dst = graph.edge_index
    keep = src < dst  # one line per undirected edge, as edge lists usually come
    edges = np.stack([src[keep].numpy(), dst[keep].numpy()], axis=1)
    np.savetxt(folder / "edges.csv", edges, fmt="%d", delimiter=",", header="source,target")
    nodes = np.arange(num_nodes)[:, None]
    features = np.hstack([nodes, graph.x.numpy()])
    header = "node," + ",".join(f"f{j}" for j in range(graph.num_features))
    np.savetxt(folder / "features.csv", features, fmt="%g", delimiter=",", header=header)
    labels = np.hstack([nodes, graph.y.numpy()[:, None]])
    np.savetxt(folder / "labels.csv", labels, fmt="%d", delimiter=",", header="node,label")
    return folder


parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--small", action="store_true", help="200 nodes instead of 2000")
parser.add_argument("--out", type=Path, default=None, help="folder for the files (temporary)")
args = parser.parse_args()

with tempfile.TemporaryDirectory() as tmp:
    folder = args.out or Path(tmp)
    folder.mkdir(parents=True, exist_ok=True)
    # Bad input (a label missing, indices out of range, NaN features, ...) raises
    # rewirekit.RewireError here, with the file and the fix in its message.
    data = read_graph(write_example_folder(folder, 200 if args.small else 2000))
    print(data)
    rewired = rewirekit.rewire(data, "comfy", add=20, delete=20, seed=0)
    print(rewired.rewire_report)

    src, dst = rewired.edge_index
    keep = src < dst
    np.savetxt(
        folder / "rewired_edges.csv",
        torch.stack([src[keep], dst[keep]], dim=1).numpy(),
        fmt="%d",
        delimiter=",",
        header="source,target",
    )
    print(f"wrote {folder / 'rewired_edges.csv'}: {int(keep.sum())} edges")
