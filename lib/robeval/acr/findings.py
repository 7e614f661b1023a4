"""The "what we found" sentences of notebooks 08 and 09, generated from each section's results.

Each function takes the frames the section has just computed or loaded and returns a
:class:`robeval.core.publish.findings.Found` of 1–5 sentences. Certified accuracies are in percent, radii in the input's
L2 units, ACR likewise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robeval.core.publish.findings import Found, found, share

__all__ = [
    "appendix_b_example",
    "best_over_sigma",
    "ecdf_easy_share",
    "ecdf_match",
    "gradient_norms",
    "radius_growth",
    "recomputed_vs_printed",
    "sequential_agreement",
    "strict_orders",
    "table5_fixed",
    "table5_sequential",
    "theorem1",
    "toy_budget",
]


def recomputed_vs_printed(ours: pd.DataFrame, printed: pd.DataFrame, table: str) -> Found:
    """A table recomputed from the published certification files against the printed one: both indexed by
    (sigma, method), with ``ACR`` and certified-accuracy columns named by radius (``"0.00"``, ``"0.25"``, ...)."""
    common = ours.index.intersection(printed.index)
    cols = [c for c in printed.columns if c in ours.columns]
    if len(common) == 0 or not cols:
        raise ValueError(f"{table}: no (sigma, method) row or column in common; recompute the table first")
    acc = [c for c in cols if c != "ACR"]
    d_acc = (ours.loc[common, acc] - printed.loc[common, acc]).abs()
    d_acr = (ours.loc[common, "ACR"] - printed.loc[common, "ACR"]).abs()
    off = int((d_acc > 0.05 + 1e-9).to_numpy().sum())
    worst = d_acc.stack().idxmax() if off else None
    return found(
        f"Recomputed from the authors' certification files, {share(int((d_acr <= 0.005 + 1e-9).sum()), len(d_acr))} "
        f"ACR values of {table} equal the printed ones to rounding (largest difference {d_acr.max():.3f}).",
        f"{share(d_acc.size - off, d_acc.size)} certified accuracies match to rounding"
        + (
            f"; the largest difference is {d_acc.to_numpy().max():.2f} pp (sigma {worst[0]:g}, {worst[1]}, "
            f"r = {worst[2]})."
            if worst is not None
            else "."
        ),
    )


def ecdf_match(max_diff: pd.DataFrame, tol: float) -> Found:
    """Fig. 3/9: the largest absolute difference between our ECDF of p_A and the authors' ECDF file, one cell per
    (method, sigma); ``tol`` is the agreement tolerance."""
    a = max_diff.to_numpy(dtype=float)
    ok = np.isfinite(a)
    return found(
        f"Our ECDFs of p_A, computed from the certification files, lie within {tol:g} of the authors' ECDF files "
        f"in {share(int((a[ok] <= tol).sum()), int(ok.sum()))} (method, sigma) pairs; the largest gap is "
        f"{np.nanmax(a):.4f}.",
    )


def strict_orders(orders: pd.DataFrame) -> Found:
    """App. B.3: pairs of models whose ECDFs are ordered over the whole p_A range (columns ``better``,
    ``worse``, ``strict``, ``sigma``)."""
    strict = orders[orders["strict"].astype(bool)]
    by = strict.groupby("sigma").size()
    return found(
        f"{len(strict)} pairs of models are strictly ordered by their ECDF of p_A ("
        + ", ".join(f"{n} at sigma {s:g}" for s, n in by.items())
        + "): for those, the better model is better at every budget.",
    )


def appendix_b_example(example: pd.DataFrame, radius: float, n: int, alpha: float) -> Found:
    """App. B.1/B.2: ``example`` (one row: ``min_count``, ``min_p_a``, ``certified_accuracy``) is what another
    budget ``n`` at level ``alpha`` needs to certify ``radius``, read off the ECDF alone."""
    e = example.iloc[0]
    return found(
        f"To certify r = {radius:g} with N' = {n} draws at alpha' = {alpha:g}, an input needs n_A ≥ "
        f"{e['min_count']:.0f} (p_A ≥ {e['min_p_a']:.3f}); the published ECDF alone then predicts a certified "
        f"accuracy of {100 * e['certified_accuracy']:.1f}% for Ours, without certifying anything again.",
    )


def best_over_sigma(table: pd.DataFrame) -> Found:
    """Sec. 7: best certified accuracy over sigma (%), one row per method and one column per radius."""
    winners = table.idxmax(axis=0)
    runs: list[list] = []
    for r, m in winners.items():
        if runs and runs[-1][0] == m:
            runs[-1][2] = r
        else:
            runs.append([m, r, r])
    spans = [f"to {m} at r = {lo}" if lo == hi else f"to {m} at r = {lo} to {hi}" for m, lo, hi in runs]
    return found(
        "The best certified accuracy over the noise levels belongs " + ", and ".join(spans) + ".",
        f"{len(set(winners))} methods lead somewhere, so the ranking depends on the radius a reader cares about."
        if len(set(winners)) > 1
        else "One method leads at every radius.",
    )


def radius_growth(gain: float, p_equiv: float, points: pd.DataFrame) -> Found:
    """Sec. 4.2 / Fig. 2: ``gain`` (in sigma) from raising p_A from 0.999 to 0.9999, ``p_equiv`` the p_A a gain
    from 0.5 reaches alike, ``points`` the radius and slope at chosen p (columns ``p``, ``radius``,
    ``dradius_dp``; the last row is the largest certifiable p)."""
    last = points.iloc[-1]
    return found(
        f"Raising p_A from 0.999 to 0.9999 adds {gain:.3f} sigma of radius, as much as raising it from 0.5 to "
        f"{p_equiv:.3f}.",
        f"At the largest certifiable p_A ({last['p']:.6f}) the radius grows {last['dradius_dp'] / points['dradius_dp'].iloc[0]:.0f} "
        "times as fast in p_A as at p_A = 0.5.",
    )


def theorem1(table: pd.DataFrame) -> Found:
    """Theorem 1: per target ACR (``target_ACR``) the budget ``min_budget_N`` (and ``log10_N``) at which the
    trivial classifier reaches it."""
    first, last = table.iloc[0], table.iloc[-1]
    return found(
        f"The trivial classifier reaches ACR {first['target_ACR']:g} at N ≈ 10^{first['log10_N']:.0f} and ACR "
        f"{last['target_ACR']:g} at N ≈ 10^{last['log10_N']:.0f}: unbounded in principle, out of reach in practice.",
    )


def toy_budget(order: list[str], budgets: list[int], changes: list) -> Found:
    """Secs. 4.1/4.2: the winner of the ACR comparison at each budget, and the budgets of the scan where the
    order changes."""
    return found(
        "Winner by budget: " + ", ".join(f"N = {n}: {w}" for n, w in zip(budgets, order)) + ".",
        f"In the fine scan the order changes at N = {', '.join(str(int(c)) for c in changes)}"
        + (": the ACR comparison of two classifiers depends on the budget." if len(changes) >= 2 else "."),
    )


def _span(lo: float, hi: float, fmt: str) -> str:
    """``"lo–hi"``, or one number when both round alike."""
    a, b = format(lo, fmt), format(hi, fmt)
    return a if a == b else f"{a}–{b}"


def _gains(table: pd.DataFrame, column: str, base: str = "gaussian") -> dict[str, float]:
    """Per variant (index), ``column`` minus the ``base`` variant's."""
    return {v: float(table.loc[v, column] - table.loc[base, column]) for v in table.index if v != base}


def table5_sequential(ours: pd.DataFrame, paper: pd.DataFrame, costs: pd.DataFrame, n_max: int) -> Found:
    """Table 5 at a budget that keeps the mechanism: ``ours`` (index (sigma, variant); ``ACR``, radius columns,
    ``seeds``) from :func:`robeval.acr.sequential.table_certifications`, ``paper`` the printed Table 5 (same
    index), ``costs`` from :func:`robeval.acr.sequential.table_costs` (``ratio``: fixed-N forward passes over
    ours)."""
    sentences = []
    agree = total = 0
    for sigma in sorted(set(ours.index.get_level_values("sigma")))[:3]:
        o, p = ours.xs(sigma, level="sigma"), paper.xs(sigma, level="sigma")
        g_ours, g_paper = _gains(o, "ACR"), _gains(p, "ACR")
        common = [v for v in g_ours if v in g_paper]
        agree += sum((g_ours[v] > 0) == (g_paper[v] > 0) for v in common)
        total += len(common)
        sentences.append(
            f"ACR gain over Gaussian training at sigma {sigma:g}, up to {n_max} draws per image: "
            + "; ".join(f"{v} {g_ours[v]:+.3f} (paper {g_paper[v]:+.3f})" for v in common)
            + "."
        )
    seeds = int(ours["seeds"].min()) if "seeds" in ours else None
    sentences.append(
        f"{share(agree, total)} variants move ACR in the paper's direction"
        + (
            f" (means over {seeds} seeds; the T5seq rows of the ledger decide whether that survives the seed spread)."
            if seeds
            else "."
        )
    )
    sentences.append(
        f"Sequential certification spent {_span(costs['ratio'].min(), costs['ratio'].max(), '.1f')}× fewer forward passes "
        f"than fixed N = {n_max} for the same table."
    )
    return found(*sentences)


def table5_fixed(table: pd.DataFrame, n: int, alpha: float) -> Found:
    """Table 5 at this profile's fixed N: ``table`` as :func:`robeval.acr.training_tables.within_budget` returns it
    (radii beyond the budget are NaN or dropped)."""
    from robeval.acr.claim_rules import largest_radius

    sigmas = sorted(set(table.index.get_level_values("sigma")))
    caps = ", ".join(f"{largest_radius(n, alpha, s):.2f} at sigma {s:g}" for s in sigmas)
    g = _gains(table.xs(sigmas[0], level="sigma"), "ACR") if len(sigmas) == 1 and "ACR" in table else {}
    return found(
        f"With N = {n} draws (alpha = {alpha:g}) CERTIFY certifies no radius above {caps}; larger radii are not "
        "measurable here, not 0.",
        (
            "ACR gain over Gaussian at this budget: " + "; ".join(f"{v} {d:+.3f}" for v, d in g.items()) + ". "
            "It cannot show the paper's mechanism, which lives at p_A → 1 and large radii."
        )
        if g
        else "",
    )


def ecdf_easy_share(ecdf: pd.DataFrame, x: float = 0.99) -> Found:
    """Section 7's metric: ``ecdf`` has the points ``x`` (p_A) and ``y`` (share of test images with
    :math:`\\hat p_A \\ge x`) per ``variant``; reads the share of easy inputs at ``x``."""
    at = {v: float(g.loc[(g["x"] - x).abs().idxmin(), "y"]) for v, g in ecdf.groupby("variant", sort=False)}
    return found(
        f"Share of test images with estimated p_A ≥ {x:g}: "
        + "; ".join(f"{v} {100 * s:.1f}%" for v, s in at.items())
        + ".",
    )


def gradient_norms(table2: pd.DataFrame) -> Found:
    """Table 2 / Fig. 5: ``table2`` with ``variant``, ``grad_easy``, ``grad_hard`` and ``ratio`` (easy / hard)."""
    t = table2.reset_index()
    parts = [
        f"{r.variant}: easy {r.grad_easy:.2f}, hard {r.grad_hard:.2f} (ratio {r.ratio:.2f})" for r in t.itertuples()
    ]
    return found(
        "Table 2's gradient norms (seed means): " + "; ".join(parts) + ".",
        "Easy inputs have the smaller gradients, as the paper's Table 2 says."
        if (t["ratio"] < 1).all()
        else "Easy inputs do not have smaller gradients in every model, unlike the paper's Table 2.",
    )


def sequential_agreement(table: pd.DataFrame) -> Found:
    """Sequential certification at fixed radii: :func:`robeval.acr.sequential.sequential_table` (index radius;
    ``agreement``, ``forward_ratio``)."""
    return found(
        "On the images both certified, sequential certification reaches the same decision as fixed-N CERTIFY on "
        f"{_span(100 * table['agreement'].min(), 100 * table['agreement'].max(), '.0f')}% of them at every radius, "
        f"with {_span(table['forward_ratio'].min(), table['forward_ratio'].max(), '.1f')}× fewer forward passes.",
    )
