"""Datasets for benchmarking: real graphs (offline-capable), your own graph from a file,
synthetic generators, split presets."""

from rewirekit.datasets.files import USER_GRAPH, graph_key, is_graph_path, read_graph
from rewirekit.datasets.loaders import (
    DatasetInfo,
    DatasetUnavailable,
    available_offline,
    canonical_name,
    dataset_info,
    list_datasets,
    load,
    standardize,
)
from rewirekit.datasets.splits import (
    GENERATOR_SPLITS,
    SPLIT_PRESETS,
    ClassBalancedSplit,
    LargestComponentSplit,
    ShippedSplit,
    SplitChoice,
    SplitPreset,
    choose_split_preset,
    get_split_preset,
    largest_component,
    list_split_presets,
)
from rewirekit.datasets.synthetic import CSBM_PHI_GRID, aligned_sbm, csbm

__all__ = [
    "load",
    "canonical_name",
    "list_datasets",
    "dataset_info",
    "available_offline",
    "standardize",
    "DatasetInfo",
    "DatasetUnavailable",
    "read_graph",
    "graph_key",
    "is_graph_path",
    "USER_GRAPH",
    "csbm",
    "aligned_sbm",
    "CSBM_PHI_GRID",
    "get_split_preset",
    "choose_split_preset",
    "SplitChoice",
    "GENERATOR_SPLITS",
    "list_split_presets",
    "SPLIT_PRESETS",
    "SplitPreset",
    "ClassBalancedSplit",
    "LargestComponentSplit",
    "ShippedSplit",
    "largest_component",
]
