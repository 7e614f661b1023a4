"""Figures: one style, saved as PNG and PDF, named after the paper figure they reproduce."""
from __future__ import annotations

from pathlib import Path

from .paths import check_profile, figures_dir

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "image.cmap": "viridis",
}


def apply_style() -> None:
    """Apply the compendium's matplotlib style (and a headless backend when no display is attached)."""
    import matplotlib
    import matplotlib.pyplot as plt

    if matplotlib.get_backend().lower() not in ("module://matplotlib_inline.backend_inline", "agg") and not _has_display():
        matplotlib.use("Agg")
    plt.rcParams.update(STYLE)


def _has_display() -> bool:
    import os

    return bool(os.environ.get("DISPLAY")) or os.name == "nt"


def savefig(fig, name: str, profile: str, *, formats=("png", "pdf")) -> list[Path]:
    """Save ``fig`` as ``<figures_dir(profile)>/<name>.{png,pdf}``; returns the written paths.

    ``name`` should say which paper figure it is, e.g. ``mscr_fig5_rf_vs_1nn``.
    """
    import re

    from .io import atomic_write_bytes

    check_profile(profile)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"Figure name {name!r} may only contain letters, digits, '_', '-' and '.'.")
    out = []
    for fmt in formats:
        import io

        buf = io.BytesIO()
        # fixed metadata so reruns produce identical files (no timestamps)
        meta = {"Software": None} if fmt == "png" else {"Creator": None, "Producer": None, "CreationDate": None}
        fig.savefig(buf, format=fmt, metadata=meta)
        out.append(atomic_write_bytes(figures_dir(profile) / f"{name}.{fmt}", buf.getvalue()))
    return out
