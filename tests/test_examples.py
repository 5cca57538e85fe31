"""Every script in examples/ runs, at its ``--small`` size, as a user would run it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewirekit.datasets import available_offline

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

#: script -> (offline dataset it needs or None, text its output must contain)
CASES = {
    "rewire_pyg_dataset.py": ("texas", "method='feast'"),
    "compose_methods.py": (None, "last step: fosr, +20 -0"),
    "reproduce_paper_row.py": ("texas", "GCN+JDR  ours"),
    "bring_your_own_graph.py": (None, "rewired_edges.csv"),
    "custom_method.py": (None, "every contract check passed"),
}


def test_every_example_is_tested():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(CASES)


@pytest.mark.parametrize("script", sorted(CASES))
def test_example_runs(script, tmp_path):
    dataset, expected = CASES[script]
    if dataset is not None and not available_offline(dataset):
        pytest.skip(f"{dataset} is not in $REWIREKIT_DATA")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--small"],
        cwd=tmp_path,  # examples must not depend on the working directory
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert expected in result.stdout
