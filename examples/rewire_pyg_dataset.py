"""Rewire a PyTorch Geometric dataset in five lines.

    REWIREKIT_DATA=/work/shared/datasets python examples/rewire_pyg_dataset.py [--small]

Loads Cora (offline from ``REWIREKIT_DATA``, or downloaded by PyG), adds the 100 non-edges
that most raise the spectral gap to first order (FoSR), and prints the report. ``--small``
adds 10 edges instead.
"""

import sys

import rewirekit
from rewirekit.datasets import load

budget = 10 if "--small" in sys.argv else 100

# the five lines
data = load("cora")  # a torch_geometric.data.Data
rewired = rewirekit.rewire(data, "fosr", add=budget, seed=0)
print(rewired)
print(rewired.rewire_report)  # edges added/removed, seconds, parameters
assert rewired.rewire_report.edges_added == budget
