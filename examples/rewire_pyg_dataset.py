"""Rewire a PyTorch Geometric dataset in five lines.

    REWIREKIT_DATA=/work/shared/datasets python examples/rewire_pyg_dataset.py [--small]

Loads Cora (offline from ``REWIREKIT_DATA``, or downloaded by PyG), adds the 100 most
feature-similar non-edges and deletes the 100 least similar edges (FeaSt), and prints the
report. ``load`` returns the graph undirected without self-loops (Texas ships directed;
``load(name, undirected=False)`` gives it as shipped). ``--small`` does the same on Texas
(183 nodes) with 10 edits each.
"""

import sys

import rewirekit
from rewirekit.datasets import load

name, budget = ("texas", 10) if "--small" in sys.argv else ("cora", 100)

# the five lines
data = load(name)  # a torch_geometric.data.Data, undirected, no self-loops
rewired = rewirekit.rewire(data, "feast", add=budget, delete=budget)
print(rewired)
print(rewired.rewire_report)  # edges added/removed, seconds, parameters
