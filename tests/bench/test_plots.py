import warnings

import matplotlib.image

from rewirekit.bench.plots import LEGEND_INSIDE_UP_TO, plot_sweep
from rewirekit.bench.report import SummaryRow

METHODS = ["none", "random", "jdr", "feast", "comfy", "digl", "fosr", "sdrf", "borf", "comma"]


def _points(models, methods):
    return [
        (phi, SummaryRow("c", "dense", "fair", model, method, 20, 70, 69, 71, 1, 70, 0, 1))
        for phi in (-0.5, 0.5)
        for model in models
        for method in methods
    ]


def test_a_crowded_sweep_puts_its_legend_beside_the_axes(tmp_path):
    points = _points(["gcn", "gprgnn"], METHODS)  # 20 lines
    assert len(METHODS) * 2 > LEGEND_INSIDE_UP_TO
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # e.g. "Tight layout not applied"
        crowded = plot_sweep(points, tmp_path / "crowded.png")
        few = plot_sweep(_points(["gcn"], METHODS[:3]), tmp_path / "few.png")
    height, width = matplotlib.image.imread(crowded).shape[:2]
    assert (width, height) == (1200, 540)  # 10 × 4.5 inches at 120 dpi
    assert matplotlib.image.imread(few).shape[:2] == (540, 840)  # 7 × 4.5 inches
