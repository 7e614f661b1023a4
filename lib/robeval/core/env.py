"""Hardware and devices."""

from __future__ import annotations

import os
import platform

import numpy as np


def torch_device(prefer: str | None = None):
    """``torch.device('cuda')`` when a GPU is present (or ``prefer``), else CPU."""
    import torch

    if prefer:
        return torch.device(prefer)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


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
