"""Compose rewirings with ``torch_geometric.transforms.Compose``, like any PyG transform.

    python examples/compose_methods.py [--small]

On a seeded contextual SBM (no download): make the graph undirected, delete the 50 edges of
lowest feature similarity and add the 50 most similar non-edges (FeaSt), then add 20 edges
that raise the spectral gap (FoSR). Every step is a ``BaseTransform``; each leaves its
report on the data it returns. ``--small`` uses a 300-node graph instead of 2000.
"""

import sys

import torch_geometric.transforms as T

import rewirekit
from rewirekit.datasets import csbm

num_nodes = 300 if "--small" in sys.argv else 2000
data = csbm(num_nodes=num_nodes, num_features=num_nodes // 2, phi=-0.5, seed=0)

feast = rewirekit.get_method("feast", add=50, delete=50)
fosr = rewirekit.get_method("fosr", add=20, seed=0)
transform = T.Compose([T.ToUndirected(), feast, fosr])
print(transform)

rewired = transform(data)
report = rewired.rewire_report  # the last step's report
print(f"edges: {data.num_edges // 2} -> {rewired.num_edges // 2} (undirected pairs)")
print(f"last step: {report.method}, +{report.edges_added} -{report.edges_removed}")

# The steps one by one, to see each report:
step = T.ToUndirected()(data)
for rewirer in (feast, fosr):
    step = rewirer(step)
    r = step.rewire_report
    print(f"{r.method:6s} +{r.edges_added:3d} -{r.edges_removed:3d}  {r.seconds:.3f} s")
assert rewired.num_edges == step.num_edges
