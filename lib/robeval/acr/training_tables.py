"""Notebook 09's result tables from the records of the :func:`robeval.acr.training.run_variant` grid
(Sun et al., Tables 5 and 2, scaled down).

* :func:`per_seed_table`, :func:`variant_certification_table` — ACR and certified accuracy per (sigma, variant,
  seed) and their seed means (Table 5);
* :func:`variant_ecdfs` — the ECDF of ``p_A`` of every (sigma, variant);
* :func:`gradient_norm_table` — gradient norms of easy and hard inputs (Table 2 / Fig. 5,
  :data:`GRADIENT_COLUMNS`);
* :func:`timing_table` — kept images and seconds spent (:data:`TIMING_COLUMNS`).

All are importable from :mod:`robeval.acr.training` too.
"""

from __future__ import annotations

from robeval.acr.ecdf import ecdf_curves
from robeval.acr.metrics import certification_table
from robeval.core.frames import check_frame, check_unique_runs

# --------------------------------------------------------------------------------------------
# result tables of the variant grid (notebook 09)
# --------------------------------------------------------------------------------------------

GRADIENT_COLUMNS = (
    "n_easy",
    "n_hard",
    "grad_easy",
    "grad_hard",
    "grad_easy_attack",
    "grad_hard_attack",
)

TIMING_COLUMNS = ("n_kept", "train_seconds", "warmup_seconds", "cert_seconds", "grad_seconds")


def _check_columns(df, needed, name: str, hint: str) -> None:
    check_frame(df, needed, name, non_empty=True, hint=hint)


def per_seed_table(cert, radii):
    """ACR and certified accuracy (percent) of every (sigma, variant, seed) of the :func:`run_variant` grid.

    Returns
    -------
    pandas.DataFrame
        Index ``(sigma, variant, seed)`` (order of appearance), columns ``ACR`` and one per radius (percent).
    """
    _check_columns(cert, ("sigma", "variant", "seed"), "cert", "pass the 'cert' records of run_variant.")
    if "idx" in cert:  # runs are units: one certification per (sigma, variant, seed, test image)
        check_unique_runs(cert, ["sigma", "variant", "seed", "idx"], "cert")
    frames = {key: g for key, g in cert.groupby(["sigma", "variant", "seed"], sort=False)}
    tab = certification_table(frames, radii)
    tab.index.names = ["sigma", "variant", "seed"]
    return tab


def variant_certification_table(cert, radii):
    """Table 5 (scaled): ACR and certified accuracy (percent) per variant, averaged over seeds.

    Parameters
    ----------
    cert : pandas.DataFrame
        The ``record == "cert"`` rows of the :func:`run_variant` grid: one row per certified test image with
        ``sigma``, ``variant``, ``seed`` and the certification columns (``label predict radius correct``).
    radii : array_like of float, shape (R,)

    Returns
    -------
    pandas.DataFrame
        Index ``(sigma, variant)`` (order of appearance), columns ``ACR`` and one per radius (percent): the
        mean over seeds of :func:`robeval.acr.metrics.certification_table`.
    """
    return per_seed_table(cert, radii).groupby(level=["sigma", "variant"], sort=False).mean()


def variant_ecdfs(cert, n: int, alpha: float):
    """ECDF of ``p_A`` of every (sigma, variant) from its certification rows (all seeds pooled).

    The certification budget is this profile's own ``(n, alpha)``, and the read-out is the strict
    ``p_hat_A >= x`` (``count_offset=0``): these files are not the published ones.

    Returns
    -------
    pandas.DataFrame with columns ``x``, ``y``, ``sigma``, ``variant`` (501 rows per curve).
    """
    _check_columns(cert, ("sigma", "variant"), "cert", "pass the 'cert' records of run_variant.")
    frames = {key: g for key, g in cert.groupby(["sigma", "variant"], sort=False)}
    return ecdf_curves(frames, int(n), float(alpha), count_offset=0, key_names=("sigma", "variant"))


def gradient_norm_table(summary):
    """Table 2 / Fig. 5 (scaled): mean gradient norms of easy and hard inputs per (sigma, variant) that measured them.

    Parameters
    ----------
    summary : pandas.DataFrame
        The ``record == "summary"`` rows of the :func:`run_variant` grid (one per variant, sigma and seed); only
        the variants of ``grad_variants`` measured gradient norms (their ``n_easy`` / ``n_hard`` are set). A model
        without easy (or hard) training images in its pool has NaN ``grad_easy*`` (``grad_hard*``): such columns
        may be missing altogether (a ``dropna(axis=1, how="all")`` of the records drops them) and come back NaN.

    Returns
    -------
    pandas.DataFrame
        Index ``(sigma, variant)``; the seed means of :data:`GRADIENT_COLUMNS` over the seeds that have them (NaN
        where none has), plus ``ratio`` (``grad_easy / grad_hard``) and ``ratio_attack`` (the same under the
        adaptive attack). Empty when no variant measured gradient norms.
    """
    import numpy as np

    _check_columns(summary, ("sigma", "variant"), "summary", "pass the 'summary' records of run_variant.")
    full = summary.reindex(columns=[*summary.columns, *(c for c in GRADIENT_COLUMNS if c not in summary.columns)])
    has = full.dropna(subset=["n_easy", "n_hard"], how="all")
    cols = list(GRADIENT_COLUMNS)
    t2 = has.groupby(["sigma", "variant"], sort=False)[cols].mean().astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t2["ratio"] = t2.grad_easy / t2.grad_hard
        t2["ratio_attack"] = t2.grad_easy_attack / t2.grad_hard_attack
    return t2


def timing_table(summary):
    """Kept training images and seconds spent per (sigma, variant), means over seeds (``train_seconds`` of a
    variant that trained a seed's shared warm-up includes it; cached models count 0)."""
    cols = [c for c in TIMING_COLUMNS if c in summary.columns]
    _check_columns(summary, ("sigma", "variant", "n_kept"), "summary", "pass the 'summary' records of run_variant.")
    return summary.groupby(["sigma", "variant"], sort=False)[cols].mean()


def within_budget(table, n: int, alpha: float):
    """Table 5 as fixed-N CERTIFY can measure it: certified accuracies at radii above the budget's largest
    certifiable radius ``sigma * Phi^-1(alpha^(1/n))`` become NaN (not measurable, rather than 0), and radius
    columns no row can measure are dropped.

    Parameters
    ----------
    table : DataFrame
        Indexed by ``(sigma, variant[, seed])`` with ``ACR`` and one column per radius (``"0.00"``, ``"0.25"``, ...).
    n, alpha : int, float
        The certification budget (CERTIFY's N) and level.
    """
    from robeval.acr.claim_rules import largest_radius

    if "sigma" not in (table.index.names or []):
        raise ValueError("within_budget: index the table by (sigma, variant), as variant_certification_table does")
    out = table.astype(float).copy()
    radius_cols = [c for c in out.columns if c != "ACR" and _is_radius(c)]
    sigmas = out.index.get_level_values("sigma")
    for s in sigmas.unique():
        cap = largest_radius(n, alpha, float(s))
        beyond = [c for c in radius_cols if float(c) > cap + 1e-12]
        out.loc[sigmas == s, beyond] = float("nan")
    keep = [c for c in out.columns if c not in radius_cols or out[c].notna().any()]
    return out[keep]


def _is_radius(name) -> bool:
    try:
        float(name)
    except (TypeError, ValueError):
        return False
    return True


def beside_paper(ours, paper, label: str = "paper (Table 5)"):
    """``ours`` and the paper's printed rows of the same (sigma, variant) index side by side (columns ``ours`` and
    ``label``, each with the radius columns the two share plus ``ours``' own extra columns)."""
    import pandas as pd

    shared = [c for c in ours.columns if c in paper.columns]
    return pd.concat({"ours": ours, label: paper.reindex(ours.index)[shared]}, axis=1)
