"""Benchmark harness: training presets, the training loop and statistics."""

from rewirekit.bench.presets import (
    TRAINING_PRESETS,
    BORFPreset,
    ComFyPreset,
    JDRPreset,
    TrainingPreset,
    get_training_preset,
    list_training_presets,
)
from rewirekit.bench.stats import (
    PairedComparison,
    Summary,
    intervals_overlap,
    paired_comparison,
    summarize,
)
from rewirekit.bench.training import TrainConfig, TrainResult, train_node_classifier

__all__ = [
    "TrainConfig",
    "TrainResult",
    "train_node_classifier",
    "TrainingPreset",
    "JDRPreset",
    "ComFyPreset",
    "BORFPreset",
    "TRAINING_PRESETS",
    "get_training_preset",
    "list_training_presets",
    "Summary",
    "PairedComparison",
    "summarize",
    "paired_comparison",
    "intervals_overlap",
]
