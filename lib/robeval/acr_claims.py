"""The claims of notebooks 08 and 09 (Sun et al., *ACR is a poor metric for randomized smoothing*).

Each ``record_<topic>_claims(ledger, ...)`` checks one statement of the paper on tables computed by
:mod:`robeval.smoothing_metrics` / :mod:`robeval.rs_training` and records it with
:meth:`robeval.claims.Ledger.add`. The notebooks only call them, so the checks are reachable by unit tests
(``tests/test_acr_claims.py``).

Comparability. Every analysis of the published certification files is deterministic and is judged at every
profile (:data:`ALL_PROFILES`). Comparisons of the files with the *printed* tables are judged at ``default`` and
``paper`` only (:data:`PRINTED_PROFILES`): some printed rows differ from the published files (notebook 08 says
which), and the smoke CI run should not fail on the paper's own inconsistencies. Notebook 09's trained models
are scaled down, so their numbers compare with the paper at ``paper`` only.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from robeval import smoothing_metrics as sm
from robeval.claims import check_ledger as _check_ledger
from robeval.paths import PROFILES
from robeval.validation import check_frame as _check_frame

__all__ = [
    "ALL_PROFILES",
    "PRINTED_PROFILES",
    "SIGMAS",
    "SEC6_LARGE_RADIUS",
    "record_table_row_claims",
    "record_table8_claims",
    "record_sec6_radius_claims",
    "record_imagenet_recovery_claims",
    "record_fig9_ecdf_claims",
    "record_fig3_claims",
    "record_appb3_low_region_claims",
    "record_appb3_strict_order_claims",
    "record_fig11_claims",
    "record_appb_claims",
    "record_sec7_claims",
    "record_sec42_claims",
    "record_theorem1_claims",
    "record_toy_claims",
    "record_table5_claims",
    "record_table2_claims",
]

ALL_PROFILES = PROFILES
PRINTED_PROFILES = ("default", "paper")
SIGMAS = (0.25, 0.5, 1.0)
# Sec. 6 / Fig. 6: the "large" radius per sigma at which SOTA methods overtake Gaussian training
SEC6_LARGE_RADIUS = {0.25: "0.75", 0.5: "1.75", 1.0: "2.50"}

NAMES = sm.METHOD_NAMES


# --------------------------------------------------------------------------------------------
# notebook 08: the published certification files
# --------------------------------------------------------------------------------------------


def record_table_row_claims(ledger, tag: str, table_name: str, cmp: pd.DataFrame, acr_tol: float = 0.0006,
                            acc_tol: float = 0.06) -> None:
    """Tables 3/4: per (sigma, method), the file's ACR vs the printed one, and the worst certified accuracy.

    Parameters
    ----------
    tag : str
        Claim-id prefix (``"t3"``, ``"t4"``).
    table_name : str
        The claims' source (``"Table 3"``).
    cmp : pandas.DataFrame
        :func:`robeval.smoothing_metrics.compare_tables` output (columns ``sigma, method, quantity, paper,
        recomputed, diff``; accuracies in percent).
    acr_tol, acc_tol : float
        Accepted ``|file - printed|`` for ACR (input units) and certified accuracy (percentage points).
    """
    _check_ledger(ledger)
    _check_frame(cmp, ("sigma", "method", "quantity", "paper", "recomputed", "diff"), "cmp")
    for (s, m), g in cmp.groupby(["sigma", "method"], sort=False):
        acr_rows = g[g.quantity == "ACR"]
        if len(acr_rows) == 0:
            raise ValueError(f"cmp has no ACR row for sigma={s}, method={m!r}.")
        a = acr_rows.iloc[0]
        ledger.add(f"{tag}_acr_s{s}_{m}", table_name, f"ACR of {NAMES[m]} at sigma={s} (published file vs printed)",
                   paper=a.paper, reproduced=round(a.recomputed, 4), abs_tol=acr_tol, comparable_at=PRINTED_PROFILES,
                   note="" if abs(a["diff"]) <= acr_tol
                   else "printed value differs from the published certification file")
        acc = g[g.quantity != "ACR"]
        worst = acc.loc[acc["diff"].abs().idxmax()]
        ledger.add(f"{tag}_acc_s{s}_{m}", table_name,
                   f"certified accuracy of {NAMES[m]} at sigma={s}, all radii: max |file - printed| <= {acc_tol} pp",
                   paper=f"{worst.paper} at r={worst.quantity}",
                   reproduced=f"{worst.recomputed:.2f} (max |diff| {abs(worst['diff']):.2f} pp)",
                   holds=bool(acc["diff"].abs().max() <= acc_tol), comparable_at=PRINTED_PROFILES)


def record_table8_claims(ledger, table: pd.DataFrame, table8: dict = sm.PAPER_TABLE8) -> None:
    """Table 8 (App. E.1): the published run of Ours lies within 2 std of the paper's 3-seed mean ACR.

    ``table``: index ``(sigma, method)`` with column ``ACR`` (Table 3 recomputed); ``table8``:
    ``sigma -> (mean, std)``.
    """
    _check_ledger(ledger)
    _check_frame(table, ("ACR",), "table")
    for s, (mean, sd) in table8.items():
        ledger.add(f"t8_ours_acr_s{s}", "Table 8",
                   f"Ours at sigma={s}: ACR of the published run vs the 3-seed mean (tolerance 2 std)",
                   paper=mean, reproduced=round(float(table.loc[(s, "ours"), "ACR"]), 4), abs_tol=2 * sd,
                   comparable_at=ALL_PROFILES)


def record_sec6_radius_claims(ledger, table: pd.DataFrame, large_radius: dict = SEC6_LARGE_RADIUS) -> None:
    """Sec. 6 / Fig. 6: every SOTA method is below Gaussian at r=0 and above it at a large radius.

    ``table``: Table 3 recomputed (index ``(sigma, method)``, columns ``"0.00"`` ...); ``large_radius``:
    ``sigma -> column`` of the large radius.
    """
    _check_ledger(ledger)
    sota = [m for m in sm.METHODS if m != "gaussian"]
    for s, r_big in large_radius.items():
        below_clean, above_large = sm.below_then_above(table, s, "0.00", r_big, baseline="gaussian", methods=sota)
        ledger.add(f"sec6_small_vs_large_radius_s{s}", "Sec. 6 / Fig. 6",
                   f"sigma={s}: every SOTA method below Gaussian at r=0 and above it at r={r_big}",
                   paper="holds", reproduced=f"below at r=0: {below_clean}; above at r={r_big}: {above_large}",
                   holds=below_clean and above_large, comparable_at=ALL_PROFILES)


def record_imagenet_recovery_claims(ledger, table: pd.DataFrame, paper: dict = sm.PAPER_IMAGENET_RECOVERY) -> None:
    """Sec. 6: share of the best baseline's ImageNet ACR gain over Gaussian that Ours recovers.

    ``table``: Table 4 recomputed (index ``(sigma, method)``, column ``ACR``); ``paper``: ``sigma -> percent``.
    """
    _check_ledger(ledger)
    for s, value in paper.items():
        rec = sm.acr_gain_recovered(table, s, method="ours", baseline="gaussian", candidates=sm.METHODS)
        ledger.add(f"sec6_imagenet_recovery_s{s}", "Sec. 6",
                   f"ImageNet sigma={s}: % of the best baseline's ACR gain over Gaussian recovered by Ours",
                   paper=value, reproduced=round(rec, 1), abs_tol=1.5, comparable_at=ALL_PROFILES,
                   note="recomputed from the published files (ACR to 4 digits); the paper divides printed 3-digit ACRs")


def record_fig9_ecdf_claims(ledger, comparison: pd.DataFrame, tol: float) -> None:
    """Fig. 9: each ECDF recomputed from a certification file matches the published ECDF file within ``tol``.

    ``comparison``: :func:`robeval.smoothing_metrics.ecdf_max_diff` output (``sigma, method, max_abs_diff``).
    """
    _check_ledger(ledger)
    _check_frame(comparison, ("sigma", "method", "max_abs_diff"), "comparison")
    for r in comparison.itertuples():
        ledger.add(f"fig9_ecdf_s{r.sigma}_{r.method}", "Fig. 9 (data/ecdf)",
                   f"ECDF of p_A of {NAMES[r.method]}, sigma={r.sigma}, recomputed from the certification file vs "
                   "the published ECDF file",
                   paper=f"max |diff| <= {tol}", reproduced=f"max |diff| = {r.max_abs_diff:.4f}",
                   holds=r.max_abs_diff <= tol, comparable_at=ALL_PROFILES)


def record_fig3_claims(ledger, curves: pd.DataFrame, sigmas=SIGMAS, x_hard: float = 0.5,
                       x_easy: float = 0.999) -> None:
    """Fig. 3 / Sec. 4.3: SOTA methods have fewer points with ``p_A >= 1/2`` and more near ``p_A = 1`` than
    Gaussian training.

    ``curves``: long ECDF table (columns ``x, y, sigma, method``), e.g. from ``ecdf_curves``.
    """
    _check_ledger(ledger)
    _check_frame(curves, ("x", "y", "sigma", "method"), "curves")
    sota = [m for m in sm.METHODS if m != "gaussian"]
    for s in sigmas:
        hard = sm.compare_to_baseline(curves, x_hard, s, baseline="gaussian", methods=sota)
        easy = sm.compare_to_baseline(curves, x_easy, s, baseline="gaussian", methods=sota)
        if len(hard) != len(sota):
            # the claim is about all seven methods: a missing curve must not pass silently
            raise ValueError(f"curves lacks methods {sorted(set(sota) - set(hard['method']))} at sigma={s}.")
        low, high = bool(hard["below"].all()), bool(easy["above"].all())
        ledger.add(f"fig3_hard_vs_easy_s{s}", "Fig. 3 / Sec. 4.3",
                   f"sigma={s}: all SOTA methods below Gaussian at p_A>={x_hard} and above it at p_A>={x_easy}",
                   paper="holds", reproduced=f"below at {x_hard}: {low}; above at {x_easy}: {high}", holds=low and high,
                   comparable_at=ALL_PROFILES)


def record_appb3_low_region_claims(ledger, ecdfs: dict, x_min: float = 0.5, x_max: float = 0.65) -> None:
    """App. B.3: Gaussian's ECDF is the highest in the low-``p_A`` region, at each sigma.

    ``ecdfs``: ``(sigma, method) -> DataFrame(x, y)`` (the published ECDF files).
    """
    _check_ledger(ledger)
    for s, gauss_low in sm.ecdf_is_extreme_by_sigma(ecdfs, "gaussian", x_min, x_max, "highest").items():
        ledger.add(f"appB3_gaussian_best_low_s{s}", "App. B.3",
                   f"sigma={s}: Gaussian's ECDF is highest for x in [{x_min}, {x_max}]", paper="holds",
                   reproduced=gauss_low, holds=gauss_low, comparable_at=ALL_PROFILES)


def record_appb3_strict_order_claims(ledger, pairs: set, pairs_tied: set, sigmas=SIGMAS,
                                     stated=sm.PAPER_APPB3_STRICT_ORDERS) -> None:
    """App. B.3: the strict ECDF orders the paper lists hold at some sigma.

    Parameters
    ----------
    pairs : set of (sigma, better, worse)
        Strict orders on ``x in [0.5, 1]`` (:func:`robeval.smoothing_metrics.strict_order_pairs`).
    pairs_tied : set of (sigma, better, worse)
        Strict orders on ``[0.5, 0.999]`` up to ties of 5 test images (shown, and named in the note, when only
        they hold).
    stated : sequence of groups of (better, worse)
    """
    _check_ledger(ledger)
    for i, group in enumerate(stated):
        found = sm.sigmas_with_orders(pairs, group, sigmas)
        found_999 = sm.sigmas_with_orders(pairs_tied, group, sigmas)
        ledger.add(f"appB3_strict_orders_{i + 1}", "App. B.3",
                   "strict ECDF orders " + ", ".join(f"{NAMES[a]} > {NAMES[b]}" for a, b in group)
                   + " hold on x in [0.5, 1] at some sigma",
                   paper="holds (sigma lost in extraction)",
                   reproduced=f"on [0.5, 1]: sigma in {found}; "
                   f"on [0.5, 0.999] up to 5-image ties: sigma in {found_999}",
                   holds=bool(found), comparable_at=PRINTED_PROFILES,
                   note="" if found else "holds only without the last grid point x=1.0 (all N draws hit) and up to "
                   "ties of <= 5 test images" if found_999 else "")


def record_fig11_claims(ledger, curves: pd.DataFrame, sigmas=(0.5, 1.0), x: float = 0.5) -> None:
    """Fig. 11 / App. E.2: on ImageNet, SOTA methods have more points with ``p_A < 1/2`` than Gaussian.

    ``curves``: long ECDF table of the ImageNet files (columns ``x, y, sigma, method``).
    """
    _check_ledger(ledger)
    _check_frame(curves, ("x", "y", "sigma", "method"), "curves")
    for s in sigmas:
        d = sm.compare_to_baseline(curves, x, s, baseline="gaussian", methods=sm.METHODS)
        others = list(d["method"])
        not_below = [NAMES[m] for m, below in zip(d["method"], d["below"]) if not below]
        ledger.add(f"fig11_more_hard_s{s}", "Fig. 11 / App. E.2",
                   f"ImageNet sigma={s}: SOTA methods have more points with p_A<{x} than Gaussian",
                   paper="holds", reproduced=f"{len(others) - len(not_below)} of {len(others)} methods",
                   holds=not not_below, comparable_at=PRINTED_PROFILES,
                   note=f"not below Gaussian at x={x}: {', '.join(not_below)}" if not_below else "")


def record_appb_claims(ledger, excess: float, round_trip: float, tol: float) -> None:
    """App. B.1 / B.2: the ECDF -> certified-accuracy map at the original budget reproduces the files (up to the
    ECDF grid, :func:`~robeval.smoothing_metrics.appendix_b_grid_excess` ``<= tol``), and B.2 inverts B.1
    (:func:`~robeval.smoothing_metrics.appendix_b_round_trip` within 1e-12)."""
    _check_ledger(ledger)
    ledger.add("appB1_same_budget_identity", "App. B.1",
               "ECDF -> certified accuracy at the original budget reproduces the files' curves up to the ECDF grid "
               "resolution (max of |diff| minus the curve's drop over one grid step)",
               paper=f"<= {tol}", reproduced=round(excess, 4), holds=excess <= tol, comparable_at=ALL_PROFILES)
    ledger.add("appB2_round_trip", "App. B.2",
               "certified-accuracy curve -> ECDF inverts B.1 at the curve's radii (max |diff|)",
               paper=0.0, reproduced=round_trip, abs_tol=1e-12, comparable_at=ALL_PROFILES)


def record_sec7_claims(ledger, best_table: pd.DataFrame) -> None:
    """Sec. 7: Gaussian training has the highest best-over-sigma certified accuracy at r=0.

    ``best_table``: :func:`robeval.smoothing_metrics.best_over_sigma_table` (methods x radius, column ``0.0``).
    """
    _check_ledger(ledger)
    if 0.0 not in best_table.columns:
        raise ValueError("best_table has no column for radius 0.0; build it with best_over_sigma_table.")
    ledger.add("sec7_gaussian_best_at_r0", "Sec. 7",
               "best-over-sigma certified accuracy at r=0: Gaussian is the highest of the seven methods",
               paper="holds", reproduced=str(best_table[0.0].idxmax()), holds=best_table[0.0].idxmax() == "gaussian",
               comparable_at=ALL_PROFILES)


def record_sec42_claims(ledger, frames: dict, r_max: float, points: pd.DataFrame) -> None:
    """Sec. 4.2 / Fig. 2: the largest certifiable radius at sigma=1 is the largest in the sigma=1 files, and the
    slope ``dR/dp_A`` at the largest certifiable ``p_A`` is over 1000 times the slope at ``p_A = 1/2``.

    Parameters
    ----------
    frames : dict
        ``(sigma, method) -> certification DataFrame`` (the CIFAR-10 files).
    r_max : float
        ``max_certified_radius(N, alpha, 1.0)`` of the files' budget.
    points : pandas.DataFrame
        :func:`robeval.smoothing_metrics.fig2_points` (first row ``p = 1/2``, last row the largest ``p``).
    """
    _check_ledger(ledger)
    _check_frame(points, ("p", "dradius_dp"), "points")
    if not np.isclose(points["p"].iloc[0], 0.5):
        raise ValueError("points must start at p = 0.5 (use fig2_points).")
    max_file = sm.max_file_radius(frames, 1.0)
    ledger.add("sec42_max_radius", "Sec. 4.2",
               "largest certifiable radius with N=1e5, alpha=0.001, sigma=1 equals the largest radius in the "
               "sigma=1 files",
               paper=max_file, reproduced=round(r_max, 4), abs_tol=0.005, comparable_at=ALL_PROFILES)
    ratio = float(points.dradius_dp.iloc[-1] / points.dradius_dp.iloc[0])
    ledger.add("sec42_easy_1000x", "Sec. 1 / 4.2",
               "slope dR/dp_A at the largest certifiable p_A over the slope at p_A=0.5 exceeds 1000",
               paper="> 1000", reproduced=round(ratio, 1), holds=ratio > 1000, comparable_at=ALL_PROFILES)


def record_theorem1_claims(ledger, table: pd.DataFrame) -> None:
    """Theorem 1: the trivial classifier's ACR exceeds every target at the computed budget.

    ``table``: :func:`robeval.smoothing_metrics.theorem1_table`.
    """
    _check_ledger(ledger)
    _check_frame(table, ("target_ACR", "ACR_at_N"), "table")
    ledger.add("thm1_unbounded_acr", "Theorem 1",
               "the trivial classifier's ACR exceeds every target at the computed budget",
               paper="holds", reproduced=f"ACR at N: {', '.join(f'{v:.3f}' for v in table.ACR_at_N)}",
               holds=bool((table.ACR_at_N > table.target_ACR).all()), comparable_at=ALL_PROFILES)


def record_toy_claims(ledger, summary: dict, scan: pd.DataFrame) -> None:
    """Sec. 4.1/4.2 toy example: the ACR order changes twice with the budget (trivial, other, trivial), and
    beyond some budget the trivial classifier wins for ever.

    ``summary``: :func:`robeval.smoothing_metrics.toy_order_summary`; ``scan``: the budget scan behind it.
    """
    _check_ledger(ledger)
    _check_frame(scan, ("N", "better"), "scan")
    order, flips, changes, final = summary["order"], summary["flips"], summary["changes"], summary["final"]
    ledger.add("sec41_toy_order_flips", "Sec. 4.1",
               "the ACR order of the trivial and the constant-p_A classifier changes twice as N grows "
               "(trivial, other, trivial)",
               paper="holds",
               reproduced=" -> ".join(o for i, o in enumerate(order) if i == 0 or o != order[i - 1])
               + f" (scan: changes at N={changes})",
               holds=order[0] == "trivial" and "constant" in order and order[-1] == "trivial" and flips == 2,
               comparable_at=ALL_PROFILES)
    ledger.add("sec42_toy_trivial_forever", "Sec. 4.2",
               "beyond some budget the constant-p_A classifier always has the smaller ACR",
               paper="holds", reproduced=f"trivial wins for every scanned N > {final}",
               holds=bool((scan[scan.N > final].better == "trivial").all()), comparable_at=ALL_PROFILES)


# --------------------------------------------------------------------------------------------
# notebook 09: the trained variants
# --------------------------------------------------------------------------------------------


def record_table5_claims(ledger, table: pd.DataFrame, *, cert_n: int, cert_alpha: float, arch: str, n_train: int,
                         epochs: int, paper: dict = sm.PAPER_TABLE5) -> None:
    """Table 5 / Sec. 6: ACR per variant at sigma=0.5, and the combined method ("all") against Gaussian training
    in ACR and at the largest radius this profile's budget can certify (paper: r=1.75).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`robeval.rs_training.variant_certification_table` (index ``(sigma, variant)``, ``ACR`` and radius
        columns in percent).
    cert_n, cert_alpha : the certification budget.
    arch, n_train, epochs : the training setup, quoted in the per-variant notes.
    paper : dict
        ``variant -> (ACR, clean accuracy)`` printed in Table 5.
    """
    _check_ledger(ledger)
    _check_frame(table, ("ACR",), "table")
    for (s, v), row in table.iterrows():
        if s == 0.5 and v in paper:
            ledger.add(f"t5_acr_s{s}_{v}", "Table 5", f"ACR of the '{v}' variant at sigma={s}", paper=paper[v][0],
                       reproduced=round(float(row.ACR), 3), abs_tol=0.03, comparable_at=("paper",),
                       note=f"{ledger.profile} profile: {arch}, {n_train} images, {epochs} epochs, N={cert_n}")
    if (0.5, "all") in table.index and (0.5, "gaussian") in table.index:
        g, a = table.loc[(0.5, "gaussian")], table.loc[(0.5, "all")]
        ledger.add("t5_all_beats_gaussian_acr", "Table 5 / Sec. 6",
                   "all three modifications raise ACR over Gaussian training (sigma=0.5)",
                   paper=f"{paper['all'][0]:.3f} vs {paper['gaussian'][0]:.3f}",
                   reproduced=f"{a.ACR:.3f} vs {g.ACR:.3f}",
                   holds=bool(a.ACR > g.ACR), comparable_at=("default", "paper"))
        # the largest tabulated radius this profile's budget can certify (paper: r = 1.75 < 1.91 at N = 1e5)
        col, r_max = sm.largest_certifiable_column(table.columns, int(cert_n), float(cert_alpha), 0.5, cap=1.75)
        gain_large = float(a[col] - g[col])
        ledger.add("t5_all_gains_at_large_radius", "Table 5 / Sec. 6",
                   f"the combined method is better than Gaussian at large radius (r={col}, largest below this "
                   f"budget's maximum {r_max:.2f})",
                   paper="23.0 vs 3.9 at r=1.75", reproduced=f"{a[col]:.1f} vs {g[col]:.1f}", holds=gain_large > 0,
                   comparable_at=("default", "paper"))


def record_table2_claims(ledger, table: pd.DataFrame) -> None:
    """Table 2 / Fig. 5: Gaussian training's easy/hard gradient-norm ratio, and the attack's effect on easy inputs.

    ``table``: :func:`robeval.rs_training.gradient_norm_table` (index ``(sigma, variant)``); nothing is recorded
    without a Gaussian model at sigma=0.5.
    """
    _check_ledger(ledger)
    _check_frame(table, ("ratio", "grad_easy", "grad_easy_attack"), "table")
    if (0.5, "gaussian") not in table.index:
        return
    g = table.loc[(0.5, "gaussian")]
    ledger.add("t2_gaussian_ratio", "Table 2", "Gaussian training (sigma=0.5): mean gradient norm easy / hard",
               paper=sm.PAPER_TABLE2.loc["gaussian", "ratio"], reproduced=round(float(g.ratio), 3), abs_tol=0.2,
               comparable_at=("paper",))
    ledger.add("t2_gaussian_easy_lighter", "Table 2",
               "Gaussian training puts less gradient weight on easy than on hard inputs (ratio < 1)",
               paper=0.45, reproduced=round(float(g.ratio), 3), holds=bool(g.ratio < 1),
               comparable_at=("default", "paper"))
    ledger.add("fig5_attack_amplifies_easy", "Fig. 5 / Sec. 5.3",
               "the adaptive attack raises the gradient norm of easy inputs (Gaussian model)",
               paper="holds", reproduced=f"{g.grad_easy:.3g} -> {g.grad_easy_attack:.3g}",
               holds=bool(g.grad_easy_attack > g.grad_easy), comparable_at=("default", "paper"))
