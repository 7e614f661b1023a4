"""Figures: one style, saved as PNG and PDF, named after the paper figure they reproduce, and traceable.

Every saved figure gets a manifest entry (``<results_dir>/figures/<name>.json``): which paper figure it
reproduces, the notebook that saved it, the library function that computed its data and the one that drew
it. :func:`robeval.core.report.figures_report` turns the entries into ``FIGURES.md``. Plotting functions
live in ``robeval.<paper>.figures`` and are decorated with :func:`plotter`, so the manifest knows them.
"""

from __future__ import annotations

import functools
import importlib
import re

from robeval.core.paths import check_profile, figures_dir, results_dir

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

# the notebook that is running (set by robeval.core.notebooks.setup); recorded in the figure manifest
CONTEXT: dict[str, str | None] = {"notebook": None}


def apply_style() -> None:
    """Apply the compendium's one theme: seaborn's ``ticks`` style and colour-blind palette under our
    rcParams (and a headless backend when no display is attached)."""
    import matplotlib
    import seaborn as sns

    if (
        matplotlib.get_backend().lower() not in ("module://matplotlib_inline.backend_inline", "agg")
        and not _has_display()
    ):
        matplotlib.use("Agg")
    sns.set_theme(context="notebook", style="ticks", palette="colorblind", font_scale=0.9, rc=STYLE)


def _has_display() -> bool:
    import os

    return bool(os.environ.get("DISPLAY")) or os.name == "nt"


def plotter(fn):
    """Decorator for the plotting functions of ``robeval.<paper>.figures``: the returned figure remembers
    which function drew it (``fig.robeval_plotted_by``), for the figure manifest."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        fig = fn(*args, **kwargs)
        fig.robeval_plotted_by = f"{fn.__module__}.{fn.__qualname__}"
        return fig

    return wrapper


def resolve_reference(ref: str):
    """The object named by a dotted ``robeval.…`` reference (module, function or class); ValueError if it
    does not exist (a stale manifest entry)."""
    if not isinstance(ref, str) or not ref.startswith("robeval."):
        raise ValueError(f"{ref!r} is not a dotted reference into robeval (e.g. 'robeval.mscr.protocol.run_cell_2d').")
    parts = ref.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            break
        return obj
    raise ValueError(f"{ref!r} does not name an existing robeval module, function or class.")


def savefig(
    fig,
    name: str,
    profile: str,
    *,
    reproduces: str,
    data_from: str,
    notebook: str | None = None,
    formats=("png", "pdf"),
) -> None:
    """Save ``fig`` as ``<figures_dir(profile)>/<name>.{png,pdf}`` and record it in the figure manifest.

    Parameters
    ----------
    name : file stem saying which paper figure it is, e.g. ``"mscr_fig5_rf_vs_1nn"``.
    reproduces : the paper figure or table, e.g. ``"MSCR Fig. 5"``.
    data_from : dotted reference to the library function that computed the plotted data, e.g.
        ``"robeval.mscr.protocol.run_cell_2d"`` (checked to exist).
    notebook : defaults to the notebook that called :func:`robeval.core.notebooks.setup`.

    Returns
    -------
    None
        Nothing, so a notebook cell shows the figure rather than a list of paths.
    """
    import io

    from robeval.core.io import atomic_write_bytes, atomic_write_json

    check_profile(profile)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"Figure name {name!r} may only contain letters, digits, '_', '-' and '.'.")
    if not isinstance(reproduces, str) or not reproduces.strip():
        raise ValueError("reproduces= must name the paper figure or table, e.g. 'MSCR Fig. 5'.")
    resolve_reference(data_from)
    plotted_by = getattr(fig, "robeval_plotted_by", None)
    notebook = notebook or CONTEXT["notebook"]
    files = []
    for fmt in formats:
        buf = io.BytesIO()
        # fixed metadata so reruns produce identical files (no timestamps)
        meta = {"Software": None} if fmt == "png" else {"Creator": None, "Producer": None, "CreationDate": None}
        fig.savefig(buf, format=fmt, metadata=meta)
        atomic_write_bytes(figures_dir(profile) / f"{name}.{fmt}", buf.getvalue())
        files.append(f"{name}.{fmt}")
    atomic_write_json(
        manifest_dir(profile) / f"{name}.json",
        {
            "figure": name,
            "files": files,
            "reproduces": reproduces.strip(),
            "notebook": notebook,
            "data_from": data_from,
            "plotted_by": plotted_by or f"{notebook} (notebook cell)",
            "caption": figure_caption(fig),
        },
    )


def figure_caption(fig, limit: int = 400) -> str:
    """The figure's own words: its suptitle and its axes' titles (each once, in drawing order), joined by "; ",
    with TeX markup reduced to plain text (``$\\epsilon_{train}$`` -> ``epsilon_train``); "" for a figure without
    titles. Recorded as the manifest's ``caption`` (the website's alt text, :func:`robeval.core.site.figure_alt`)."""
    texts = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None:
        texts.append(sup.get_text())
    for ax in fig.axes:
        texts += [ax.get_title(loc) for loc in ("left", "center", "right")]
    out = []
    for t in texts:
        t = re.sub(r"\\([A-Za-z]+)", r"\1", t).replace("$", "").replace("{", "").replace("}", "")
        t = " ".join(t.split())
        if t and t not in out:
            out.append(t)
    caption = "; ".join(out)
    return caption if len(caption) <= limit else caption[: limit - 1].rstrip() + "…"


def manifest_dir(profile: str):
    """Folder of the figure manifest entries of ``profile`` (beside ``$ROBEVAL_FIGURES_DIR`` when set)."""
    import os
    from pathlib import Path

    env = os.environ.get("ROBEVAL_FIGURES_DIR")
    return Path(env) / "manifest" if env else results_dir(profile) / "figures"


def load_manifest(profile: str) -> list[dict]:
    """Every manifest entry of ``profile``, sorted by figure name."""
    from robeval.core.io import read_json

    folder = manifest_dir(profile)
    return [read_json(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []


VERDICT_COLOURS = {
    "reproduced": "#1b9e77",
    "contradicted": "#d95f02",
    "inconclusive": "#bdbdbd",
    "not comparable": "#f0f0f0",
    "consistency": "#7570b3",
    "erratum": "#e7298a",
    "verified": "#a6cee3",
    "failed": "#e31a1c",
}


@plotter
def claims_summary(counts):
    """Stacked bars of the verdict counts per paper (``counts``: DataFrame, index short paper labels, columns
    verdicts) — the chart at the top of the claims report."""
    import matplotlib.pyplot as plt

    verdicts = [v for v in VERDICT_COLOURS if v in counts.columns]
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(counts) + 1.4), layout="constrained")
    left = [0] * len(counts)
    for v in verdicts:
        ax.barh(counts.index, counts[v], left=left, color=VERDICT_COLOURS[v], edgecolor="0.4", linewidth=0.5, label=v)
        left = [a + b for a, b in zip(left, counts[v])]
    ax.invert_yaxis()
    ax.set(xlabel="rows of the claims ledger (default profile)", title="Verdicts per paper")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.grid(axis="y", visible=False)
    return fig
