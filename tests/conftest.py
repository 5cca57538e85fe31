"""Test-wide settings: one torch thread per test process (pytest -n 2 runs two of them)."""

import torch

torch.set_num_threads(1)
