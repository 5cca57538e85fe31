"""Bring your own graph: an edge list in CSV and node features and labels in ``.npz``.

    python examples/bring_your_own_graph.py [--small] [--out DIR]

The example first writes such files (a small two-community graph whose features carry the
labels), then does what you would do with your own: read them into a
``torch_geometric.data.Data``, check it, rewire it with ComFy, and save the new edges (with
their weights, if any) in the same CSV format.
"""

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch_geometric.data import Data
from torch_geometric.utils import to_undirected

import rewirekit
from rewirekit.datasets import aligned_sbm


def write_example_files(folder: Path, num_nodes: int) -> tuple[Path, Path]:
    """Stand-ins for your files: ``edges.csv`` (``source,target``) and ``nodes.npz``."""
    graph = aligned_sbm(num_nodes=num_nodes, seed=0)
    src, dst = graph.edge_index
    keep = src < dst  # one line per undirected edge, as edge lists usually come
    edges = np.stack([src[keep].numpy(), dst[keep].numpy()], axis=1)
    np.savetxt(folder / "edges.csv", edges, fmt="%d", delimiter=",", header="source,target")
    np.savez(folder / "nodes.npz", x=graph.x.numpy(), y=graph.y.numpy())
    return folder / "edges.csv", folder / "nodes.npz"


def read_graph(edges_csv: Path, nodes_npz: Path) -> Data:
    """Your files as a PyG graph: undirected edges, float features, integer labels."""
    edges = np.loadtxt(edges_csv, dtype=np.int64, delimiter=",", ndmin=2)
    nodes = np.load(nodes_npz)
    x = torch.as_tensor(nodes["x"], dtype=torch.float32)
    edge_index = to_undirected(torch.as_tensor(edges.T), num_nodes=x.shape[0])
    return Data(x=x, y=torch.as_tensor(nodes["y"]), edge_index=edge_index)


parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--small", action="store_true", help="200 nodes instead of 2000")
parser.add_argument("--out", type=Path, default=None, help="folder for the files (temporary)")
args = parser.parse_args()

with tempfile.TemporaryDirectory() as tmp:
    folder = args.out or Path(tmp)
    folder.mkdir(parents=True, exist_ok=True)
    data = read_graph(*write_example_files(folder, 200 if args.small else 2000))
    print(data)
    # Bad input (indices out of range, NaN features, ...) raises rewirekit.RewireError here.
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
