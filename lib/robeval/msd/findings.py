"""The "what we found" sentences of notebooks 03 and 04, generated from each section's results.

Each function takes the frames the section has just computed or loaded and returns a
:class:`robeval.core.publish.findings.Found` of 1–5 sentences. Errors are fractions in [0, 1] in notebook 03 and percent in
notebook 04's Table 1, as the sections display them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from robeval.core.publish.findings import Found, found, share

__all__ = [
    "base_network",
    "bn_vs_retrain",
    "calibration",
    "construction",
    "corruption_strength",
    "inclusion",
    "part_not_run",
    "powerset_correlation",
    "single_ops",
    "table1",
    "toy_mixture",
]


PART_NAMES = {
    "fig2b": "the Fig. 2b toy",
    "appb": "the batch-norm adaptation grid (App. B, Figs. 1, 4, 5, App. A)",
    "retrain": "the retraining of the schemes (Sec. 4.2)",
}


def part_not_run(part: str, done: Sequence[str]) -> Found:
    """Notebook 03 run with only some of its parts (``done``; :func:`robeval.msd.powerset.record_parts`): the
    section of ``part`` has no results of this run, and its claims are not decided."""
    if part not in PART_NAMES:
        raise ValueError(f"part must be one of {list(PART_NAMES)}, got {part!r}")
    return found(
        f"This run did not compute {PART_NAMES[part]} (parts = [{', '.join(done)}]): this section shows nothing, "
        "and its claims are recorded as not decided, naming the part that decides them.",
    )


def base_network(base: pd.DataFrame) -> Found:
    """The base network's errors: ``base`` has columns ``corruption`` (``"clean"`` and the 15 CIFAR-10-C names) and
    ``error`` (a fraction; several rows per corruption are averaged)."""
    err = base.groupby("corruption", sort=False)["error"].mean()
    if "clean" not in err.index:
        raise ValueError("base has no 'clean' row: compute base_network_errors first")
    c = err.drop("clean")
    return found(
        f"The base network errs on {100 * err['clean']:.1f}% of the clean test images and on "
        f"{100 * c.mean():.1f}% of the CIFAR-10-C images (mean over {len(c)} corruptions).",
        f"Hardest: {c.idxmax()} ({100 * c.max():.1f}%); easiest: {c.idxmin()} ({100 * c.min():.1f}%).",
    )


def toy_mixture(toy: pd.DataFrame) -> Found:
    """Fig. 2b: ``toy`` has columns ``fraction`` (of impulse noise in the augmentation mix), ``mmd`` and ``msd``
    (distances to impulse noise), one row per fraction, sorted."""
    t = toy.sort_values("fraction")
    r = float(np.corrcoef(t["fraction"], t["mmd"])[0, 1])
    first = t[t["fraction"] > 0].iloc[0]
    drop = (t["msd"].iloc[0] - first["msd"]) / (t["msd"].iloc[0] - t["msd"].iloc[-1])
    return found(
        f"MMD to impulse noise falls from {t['mmd'].iloc[0]:.2f} to {t['mmd'].iloc[-1]:.2f} as the impulse-noise "
        f"fraction rises from 0 to {t['fraction'].iloc[-1]:g}, close to linearly (Pearson r = {r:.3f}).",
        f"MSD falls {100 * drop:.0f}% of its whole way already at a fraction of {first['fraction']:g} "
        f"({t['msd'].iloc[0]:.2f} → {first['msd']:.2f}): as in the paper, a little of the corruption in the "
        "augmentation is enough for MSD, while MMD needs it all.",
    )


def powerset_correlation(summary: Mapping[str, float], paper_n_above: int = 12) -> Found:
    """Sec. 4.2 / App. B: ``summary`` is :func:`robeval.msd.tables.spearman_summary` (``n_above``,
    ``n_corruptions``, ``median_rho_msd``, ``median_rho_mmd``)."""
    msd, mmd = summary["median_rho_msd"], summary["median_rho_mmd"]
    return found(
        f"Across the augmentation schemes, Spearman(MSD, error) exceeds 0.6 for "
        f"{share(summary['n_above'], summary['n_corruptions'])} corruptions (paper: {paper_n_above} of 15, with "
        "retraining).",
        f"The median correlation is {msd:.2f} for MSD and {mmd:.2f} for MMD: "
        + (
            "MSD predicts error better here, as the paper says."
            if msd > mmd
            else "MMD predicts error better here, the opposite of the paper."
        ),
    )


def bn_vs_retrain(side: pd.DataFrame) -> Found:
    """Batch-norm adaptation against retraining: ``side`` has one row per retrained scheme with columns
    ``scheme``, ``corruption_retrain``, ``corruption_bn`` and ``rank_agreement`` (Spearman over corruptions)."""
    gap = (side["corruption_bn"] - side["corruption_retrain"]).abs()
    return found(
        f"On the {len(side)} retrained schemes the two protocols rank the corruptions alike (Spearman "
        f"{side['rank_agreement'].min():.2f}–{side['rank_agreement'].max():.2f}); their mean corruption errors differ "
        f"by at most {100 * gap.max():.1f} pp.",
    )


def inclusion(effects: pd.DataFrame) -> Found:
    """Fig. 4: ``effects`` has columns ``op``, ``corruption``, ``error_with`` and ``error_without`` (mean error of
    the schemes that include / exclude the op)."""
    parts = []
    for op, rows in effects.groupby("op", sort=False):
        each = ", ".join(
            f"{r.corruption.replace('_', ' ')} {100 * (r.error_with - r.error_without):+.1f} pp"
            for r in rows.itertuples()
        )
        parts.append(f"{op} {each}")
    return found("Including an op in the scheme changes the mean error by: " + "; ".join(parts) + ".")


def single_ops(single: pd.DataFrame, corruption: str = "motion_blur") -> Found:
    """Fig. 1: one row per single augmentation (and the baseline ``none``) with ``scheme``, ``error`` and ``msd``."""
    ops = single[single["scheme"] != "none"]
    best = ops.loc[ops["error"].idxmin()]
    base = single.loc[single["scheme"] == "none", "error"]
    rho = pd.Series(ops["msd"].to_numpy()).corr(pd.Series(ops["error"].to_numpy()), method="spearman")
    return found(
        f"On {corruption.replace('_', ' ')}, {best['scheme']} lowers the error most ({100 * best['error']:.1f}%"
        + (f" against {100 * base.iloc[0]:.1f}% without augmentation" if len(base) else "")
        + f"), at MSD {best['msd']:.2f}.",
        f"Across the {len(ops)} single augmentations Spearman(MSD, error) = {rho:.2f}.",
    )


def calibration(calib: Mapping) -> Found:
    """The calibration of CIFAR-10-C-bar's magnitudes (``calibration.json``: ``alpha``, ``target``, ``error``,
    ``n_images``)."""
    if calib.get("target") is None:
        return found("The published CIFAR-10-C-bar magnitudes are used unchanged (no calibration at this profile).")
    return found(
        f"Scaling the published magnitudes by alpha = {calib['alpha']:.3f} gives our calibration network a "
        f"CIFAR-10-C-bar error of {100 * calib['error']:.1f}% against {100 * calib['target']:.1f}% on CIFAR-10-C "
        f"({calib['n_images']} images): the two benchmarks are equally hard for the baseline, as in the paper.",
    )


def corruption_strength(change: pd.DataFrame, severity: int = 3) -> Found:
    """How strongly each benchmark changes the pixels: ``change`` has ``corruption``, ``sev1``…``sev5`` (mean
    absolute pixel change, in 0–255 units) and ``benchmark`` (``"C"`` or ``"C-bar"``)."""
    col = f"sev{severity}"
    by = change.groupby("benchmark")[col].median()
    return found(
        "Median pixel change at severity "
        f"{severity}: " + ", ".join(f"{b} {v:.1f}" for b, v in by.items()) + " (0–255 scale).",
    )


def table1(summary: pd.DataFrame) -> Found:
    """Table 1: ``summary`` is indexed by method (``Baseline`` first) with columns ``gain_c``, ``gain_cbar`` (pp,
    baseline − method), ``paper_c_err`` and ``paper_cbar_err`` (%)."""
    base = summary.index[0]
    paper_gain_c = summary.loc[base, "paper_c_err"] - summary["paper_c_err"]
    paper_gain_cbar = summary.loc[base, "paper_cbar_err"] - summary["paper_cbar_err"]
    parts = [
        f"{m} {summary.loc[m, 'gain_c']:+.1f} / {summary.loc[m, 'gain_cbar']:+.1f} "
        f"(paper {paper_gain_c[m]:+.1f} / {paper_gain_cbar[m]:+.1f})"
        for m in summary.index[1:]
    ]
    less = [m for m in summary.index[1:] if summary.loc[m, "gain_c"] > summary.loc[m, "gain_cbar"]]
    return found(
        "Gain over the baseline on CIFAR-10-C / CIFAR-10-C-bar, pp: " + "; ".join(parts) + ".",
        f"{share(len(less), len(summary) - 1)} methods gain less on C-bar than on C, the paper's point; our gains "
        "are far smaller than the paper's because our networks are small and fine-tuned briefly.",
    )


def construction(choice: Mapping, published: Sequence[str], n_candidates: int | None = None) -> Found:
    """The construction of CIFAR-10-C-bar: ``choice`` (``construction_choice.json``: ``top``, the corruptions we
    choose) against the ``published`` list; ``n_candidates``: how many corruptions the scan chose from."""
    top = list(choice["top"])
    common = sorted(set(top) & set(published))
    chance = ""
    if n_candidates:
        chance = (
            f"Drawing {len(top)} of the {n_candidates} candidates at random would share "
            f"{len(top) * len(published) / n_candidates:.1f} on average."
        )
    return found(
        f"Our construction picks {share(len(common), len(published))} of the published CIFAR-10-C-bar corruptions "
        f"({', '.join(common) if common else 'none'}).",
        chance,
    )
