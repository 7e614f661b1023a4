"""Hardware, devices and seeding."""
from __future__ import annotations

import os
import platform
import random

import numpy as np


def torch_device(prefer: str | None = None):
    """``torch.device('cuda')`` when a GPU is present (or ``prefer``), else CPU."""
    import torch

    if prefer:
        return torch.device(prefer)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python, NumPy and torch (CPU and CUDA) and return a fresh ``numpy.random.Generator(seed)``.

    Library functions take explicit generators; this only guards third-party code that uses global RNGs.
    """
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    try:
        import torch

        torch.manual_seed(int(seed))
    except ImportError:  # pragma: no cover
        pass
    return np.random.default_rng(int(seed))


def hardware_info() -> dict:
    """CPU, memory and accelerator of this machine, plus library versions."""
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numpy": np.__version__,
    }
    try:
        with open("/proc/meminfo") as fh:
            kb = int(next(ln for ln in fh if ln.startswith("MemTotal")).split()[1])
        info["memory_gib"] = round(kb / 2**20, 1)
    except (OSError, StopIteration):
        info["memory_gib"] = None
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
        info["cuda"] = torch.cuda.is_available()
        info["gpu"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    except ImportError:  # pragma: no cover
        info["torch"] = None
    return info
