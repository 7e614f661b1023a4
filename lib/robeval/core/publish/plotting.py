"""Figures: one style, saved as PNG and PDF, named after the paper figure they reproduce, and traceable.

Every saved figure gets a manifest entry (``<results_dir>/figures/<name>.json``): which paper figure it
reproduces, the notebook that saved it, the library function that computed its data and the one that drew
it. :func:`robeval.core.publish.report.figures_report` turns the entries into ``FIGURES.md``. Plotting functions
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

# Where a reader sees a figure: the website's main column (~825 px at a 1400 px window) and GitHub's README column
# (~830 px) are about PAGE_WIDTH_PX wide; a wider figure is scaled down to it, a narrower one is shown at its natural
# size, which for a notebook's inline image is STYLE["figure.dpi"] pixels per inch (the saved PNG has more).
PAGE_WIDTH_PX = 800
MIN_TEXT_PX = 9.0  # the smallest text a figure may show at page width (issue 47, item 6)

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


MAX_FIGURE_NAME = 200  # characters of a figure's name: its files and their temporaries stay within a file name's 255


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
    name : file stem saying which paper figure it is, e.g. ``"mscr_fig5_rf_vs_1nn"``: letters, digits, ``_``,
        ``-`` and ``.``, at most :data:`MAX_FIGURE_NAME` characters, not starting with ``.`` (ValueError otherwise).
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

    from matplotlib.figure import Figure

    from robeval.core.io import atomic_write_bytes, atomic_write_json

    check_profile(profile)
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure (e.g. fig, ax = plt.subplots()), got {type(fig).__name__}.")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"Figure name {name!r:.80} must be text of letters, digits, '_', '-' and '.'.")
    if name.startswith(".") or len(name) > MAX_FIGURE_NAME:
        why = "starts with '.' (a hidden file)" if name.startswith(".") else f"has {len(name)} characters"
        raise ValueError(
            f"Figure name {name!r:.80} {why}; name the figure with at most {MAX_FIGURE_NAME} letters, digits, '_', "
            "'-' and '.', not starting with '.', e.g. 'mscr_fig5_rf_vs_1nn'."
        )
    if isinstance(formats, str) or not isinstance(formats, (tuple, list)) or not formats:
        raise TypeError(f"formats must be a non-empty tuple of file formats, e.g. ('png', 'pdf'), got {formats!r}.")
    unknown = [f for f in formats if f not in fig.canvas.get_supported_filetypes()]
    if unknown:
        raise ValueError(f"formats holds {unknown[0]!r}, which matplotlib cannot write; use e.g. ('png', 'pdf').")
    if not isinstance(reproduces, str) or not reproduces.strip():
        raise ValueError("reproduces= must name the paper figure or table, e.g. 'MSCR Fig. 5'.")
    resolve_reference(data_from)
    plotted_by = getattr(fig, "robeval_plotted_by", None)
    notebook = notebook or CONTEXT["notebook"]
    text_px = text_px_at_page_width(fig)
    if text_px < MIN_TEXT_PX:
        import warnings

        warnings.warn(
            f"figure {name!r}: its smallest text is {text_px:.1f} px at page width ({PAGE_WIDTH_PX} px), below "
            f"{MIN_TEXT_PX:g} px: enlarge its fonts or narrow the figure (robeval.core.publish.plotting.text_px_at_page_width).",
            stacklevel=2,
        )
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
            "text_px": round(text_px, 2) if text_px != float("inf") else None,
        },
    )


def text_px_at_page_width(fig) -> float:
    """The height in CSS pixels of the smallest text ``fig`` draws, as a reader sees it at page width.

    Draws the figure once with a renderer that records the size (points) of every non-blank string it draws (tick
    labels, legends, annotations, table cells, titles: only what is drawn, so hidden axes do not count); the figure
    is shown ``w`` inches wide (its tight bounding box, as saved) at ``min(STYLE['figure.dpi'], PAGE_WIDTH_PX / w)`` pixels
    per inch, so a point is that / 72 pixels. ``inf`` for a figure without text. Recorded in the figure manifest
    (``text_px``) by :func:`savefig`, which warns below :data:`MIN_TEXT_PX`.
    """
    import math

    from matplotlib.backends.backend_agg import RendererAgg

    w, h = fig.get_size_inches()
    renderer = RendererAgg(int(w * fig.dpi), int(h * fig.dpi), fig.dpi)  # a renderer of its own: no canvas state
    sizes: list[float] = []

    def recording(draw):
        def wrapped(gc, x, y, s, prop, *args, **kwargs):
            if str(s).strip():
                sizes.append(float(prop.get_size_in_points()))
            return draw(gc, x, y, s, prop, *args, **kwargs)

        return wrapped

    renderer.draw_text, renderer.draw_tex = recording(renderer.draw_text), recording(renderer.draw_tex)
    fig.draw(renderer)
    width_in = fig.get_tightbbox(renderer).width
    if not sizes:
        return math.inf
    px_per_inch = min(float(STYLE["figure.dpi"]), PAGE_WIDTH_PX / max(width_in, 1e-9))
    return min(sizes) / 72.0 * px_per_inch


def figure_caption(fig, limit: int = 400) -> str:
    """The figure's own words: its suptitle and its axes' titles (each once, in drawing order), joined by "; ",
    with TeX markup reduced to plain text (``$\\epsilon_{train}$`` -> ``epsilon_train``); "" for a figure without
    titles. Recorded as the manifest's ``caption`` (the website's alt text, :func:`robeval.core.site.build.figure_alt`)."""
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


# Lines that must be told apart (methods, variants): Okabe & Ito's colour-blind-safe palette, yellow left out (too
# pale on white), ordered so that the first five are the most distinct (no two oranges among them); where more than
# five lines share a panel, pair them with DISTINCT_DASHES as well.
DISTINCT_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00", "#56B4E9")
DISTINCT_DASHES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)), (0, (2, 1)))
DISTINCT_MARKERS = ("o", "s", "^", "D", "v", "P", "X")

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
def claims_summary(counts, profile: str = "default"):
    """Stacked bars of the verdict counts per paper (``counts``: DataFrame, index short paper labels, columns
    verdicts) of ``profile``'s ledgers — the chart at the top of the claims report."""
    import matplotlib.pyplot as plt

    verdicts = [v for v in VERDICT_COLOURS if v in counts.columns]
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(counts) + 1.4), layout="constrained")
    left = [0] * len(counts)
    for v in verdicts:
        ax.barh(counts.index, counts[v], left=left, color=VERDICT_COLOURS[v], edgecolor="0.4", linewidth=0.5, label=v)
        left = [a + b for a, b in zip(left, counts[v])]
    ax.invert_yaxis()
    ax.set(xlabel=f"rows of the claims ledger ({check_profile(profile)} profile)", title="Verdicts per paper")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax.grid(axis="y", visible=False)
    return fig
