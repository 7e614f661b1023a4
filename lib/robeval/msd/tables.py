"""Tables of the augmentation-powerset experiment (notebook 03) that the MSD claims are judged on:
Spearman correlations of MSD/MMD with error per corruption (Sec. 4.2), severity averages, the Fig. 4
inclusion effects, the Fig. 2b toy table, the Fig. 1 single-op table and the Fig. 5 method positions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robeval.core.frames import check_frame as _check_frame
from robeval.core.frames import check_unique_runs
from robeval.msd.published import PAPER_SPEARMAN_THRESHOLD
from robeval.transforms import augmentations as aug

if TYPE_CHECKING:
    import pandas


def spearman_table(df, *, by: str = "scheme") -> pandas.DataFrame:
    """Spearman rank correlation, per corruption, between distance and error across schemes.

    Errors and distances are first averaged over severities (as in the paper's figures).

    Parameters
    ----------
    df : DataFrame with columns scheme, corruption, severity, error, msd, mmd (from :func:`powerset_cell`)

    Returns
    -------
    DataFrame indexed by corruption: rho_msd, p_msd, rho_mmd, p_mmd, n_schemes
    """
    import pandas as pd
    from scipy.stats import spearmanr

    d = df[df["corruption"] != "clean"]
    if "family" in d:  # the paper's correlations are over the powerset only
        d = d[d["family"].fillna("powerset") == "powerset"]
    avg = d.groupby(["corruption", by], sort=False)[["error", "msd", "mmd"]].mean().reset_index()
    rows = []
    for c, g in avg.groupby("corruption", sort=False):
        r_msd = spearmanr(g["msd"], g["error"])
        r_mmd = spearmanr(g["mmd"], g["error"])
        rows.append(
            {
                "corruption": c,
                "rho_msd": float(r_msd.statistic),
                "p_msd": float(r_msd.pvalue),
                "rho_mmd": float(r_mmd.statistic),
                "p_mmd": float(r_mmd.pvalue),
                "n_schemes": len(g),
            }
        )
    return pd.DataFrame(rows).set_index("corruption")


def average_over_severities(df) -> pandas.DataFrame:
    """Mean error, MSD and MMD per (scheme, corruption) over severities (the paper's per-corruption view).

    Returns columns scheme, family, n_ops, corruption, error, msd, mmd (the 'clean' rows keep their error;
    rows without a family, from older runs, count as 'powerset')."""
    cols = [c for c in ("error", "msd", "mmd") if c in df]
    if "family" in df:
        df = df.assign(family=df["family"].fillna("powerset"))
    keys = [k for k in ("scheme", "family", "n_ops", "corruption") if k in df]
    # one row per (scheme, corruption, severity[, run]): a frame concatenated twice would be averaged silently
    check_unique_runs(df, keys + [k for k in ("severity", "run", "seed") if k in df], "the powerset rows")
    return df.groupby(keys, sort=False, dropna=False)[cols].mean().reset_index()


def inclusion_effect(df, op: str, corruption: str) -> dict:
    """Fig. 4: mean MSD and error on ``corruption`` of schemes that include base op ``op`` vs schemes that
    do not (severity-averaged).

    Returns
    -------
    dict with msd_with, msd_without, error_with, error_without, n_with, n_without (NaN where a group is
    empty)
    """
    if op not in aug.BASE_OPS:
        raise ValueError(f"op must be one of {', '.join(aug.BASE_OPS)}, got {op!r}.")
    avg = average_over_severities(df)
    avg = avg[avg["corruption"] == corruption]
    if "family" in avg:
        avg = avg[avg["family"] == "powerset"]
    if avg.empty:
        raise ValueError(f"no rows for corruption {corruption!r}; valid: {sorted(set(df['corruption']))}.")
    has = avg["scheme"].map(lambda s: op in aug.parse_scheme(s))
    out = {}
    for label, sel in (("with", has), ("without", ~has)):
        g = avg[sel]
        out[f"msd_{label}"] = float(g["msd"].mean()) if len(g) else float("nan")
        out[f"error_{label}"] = float(g["error"].mean()) if len(g) else float("nan")
        out[f"n_{label}"] = int(len(g))
    return out


def toy_table(distances, runs, corruption: str = "impulse_noise") -> pandas.DataFrame:
    """Fig. 2b table: per mixing fraction the MMD/MSD to ``corruption`` and the error on it.

    Parameters
    ----------
    distances : DataFrame or rows with fraction, mmd, msd (from :func:`toy_distances`)
    runs : DataFrame with fraction, corruption, error (rows of :func:`toy_mixture_cell`; the error is
        averaged over severities and repeated cells of the same fraction)
    corruption : the target corruption

    Returns
    -------
    DataFrame with columns fraction, mmd, msd, error_<corruption> (errors as fractions in [0, 1]); one
    row per fraction present in both inputs, in the order of ``distances``.
    """
    import pandas as pd

    dist = _check_frame(pd.DataFrame(distances), ("fraction", "mmd", "msd"), "distances")
    runs = _check_frame(runs, ("fraction", "corruption", "error"), "runs")
    sel = runs[runs["corruption"] == corruption]
    if sel.empty:
        raise ValueError(f"runs has no rows for corruption {corruption!r}; it has {sorted(set(runs['corruption']))}.")
    err = sel.groupby("fraction")["error"].mean().rename(f"error_{corruption}").reset_index()
    return dist.merge(err, on="fraction")


def spearman_summary(rho, threshold: float = PAPER_SPEARMAN_THRESHOLD) -> dict:
    """Sec. 4.2 / App. B in numbers, from :func:`spearman_table`.

    Returns
    -------
    dict with n_above (corruptions whose Spearman(MSD, error) exceeds ``threshold``; NaN counts as not
    above), n_corruptions, median_rho_msd and median_rho_mmd (medians over corruptions, NaN skipped).
    """
    rho = _check_frame(rho, ("rho_msd", "rho_mmd"), "rho")
    return {
        "n_above": int((rho["rho_msd"] > threshold).sum()),
        "n_corruptions": int(len(rho)),
        "median_rho_msd": float(rho["rho_msd"].median()),
        "median_rho_mmd": float(rho["rho_mmd"].median()),
    }


def inclusion_effects(
    df, ops=("solarize", "translate_x"), corruptions=("impulse_noise", "motion_blur")
) -> pandas.DataFrame:
    """Fig. 4 table: :func:`inclusion_effect` for every (op, corruption) pair, op-major.

    Returns
    -------
    DataFrame with columns op, corruption, msd_with, error_with, n_with, msd_without, error_without,
    n_without (feature units and error fractions; NaN where a group is empty).
    """
    import pandas as pd

    return pd.DataFrame([{"op": op, "corruption": c, **inclusion_effect(df, op, c)} for op in ops for c in corruptions])


def relative_msd_reduction(msd_with, msd_without) -> float:
    """How much including an op lowers the mean MSD, relative to schemes without it:
    ``(msd_without − msd_with) / msd_without`` (positive = closer). NaN when ``msd_without`` is 0 or NaN,
    where no relative change is defined."""
    with_, without = float(msd_with), float(msd_without)
    if not np.isfinite(without) or without == 0.0:
        return float("nan")
    return (without - with_) / without


def single_op_table(avg, corruption: str = "motion_blur") -> pandas.DataFrame:
    """Fig. 1 table: the empty and the single-op powerset schemes on ``corruption``.

    Parameters
    ----------
    avg : DataFrame from :func:`average_over_severities` (scheme, family, n_ops, corruption, error, msd, …)

    Returns
    -------
    the matching rows of ``avg`` (powerset family, ``n_ops <= 1``) with an added column ``kind``:
    "baseline" for the empty scheme, else the op's kind ("color" or "geometric").
    """
    avg = _check_frame(avg, ("scheme", "family", "n_ops", "corruption", "error"), "avg")
    power = avg[avg["family"] == "powerset"]
    single = power[(power["corruption"] == corruption) & (power["n_ops"] <= 1)].copy()
    single["kind"] = single["scheme"].map(lambda s: "baseline" if s == "none" else aug.OPS[s].kind)
    return single


def mean_error_by_kind(single) -> dict:
    """Mean error of the rows of :func:`single_op_table` per kind: {"geometric", "color", "baseline"}
    (NaN for a kind without rows)."""
    single = _check_frame(single, ("kind", "error"), "single")
    return {k: single[single["kind"] == k]["error"].mean() for k in ("geometric", "color", "baseline")}


def toy_landmarks(toy, corruption: str = "impulse_noise") -> dict:
    """The rows of the Fig. 2b table that its claims compare, after sorting by fraction.

    Returns
    -------
    dict with ``far`` (the smallest fraction, normally 0), ``small`` (the smallest fraction > 0), ``near``
    (the largest fraction, normally 1) as Series, and ``mmd_linearity``: the Pearson correlation of fraction
    and MMD over all rows (−1 = MMD falls exactly linearly with the fraction).
    """
    toy = _check_frame(toy, ("fraction", "mmd", "msd", f"error_{corruption}"), "toy").sort_values("fraction")
    positive = toy[toy["fraction"] > 0]
    if len(toy) < 2 or positive.empty:
        raise ValueError(
            f"the Fig. 2b table needs at least two fractions, one of them > 0; got {list(toy['fraction'])}."
        )
    return {
        "far": toy.iloc[0],
        "small": positive.iloc[0],
        "near": toy.iloc[-1],
        "mmd_linearity": float(np.corrcoef(toy["fraction"], toy["mmd"])[0, 1]),
    }


def method_vs_powerset_median(avg, method: str, corruption: str) -> tuple[float, float]:
    """Fig. 5: MSD of a published ``method`` to ``corruption`` and the median MSD of the powerset schemes.

    ``avg`` from :func:`average_over_severities`. Returns ``(method_msd, powerset_median)``; the method's
    MSD is NaN when it did not run.
    """
    avg = _check_frame(avg, ("scheme", "family", "corruption", "msd"), "avg")
    at = avg[avg["corruption"] == corruption]
    m = at[(at["family"] == "method") & (at["scheme"] == method)]["msd"]
    ref = at[at["family"] == "powerset"]["msd"].median()
    return (float(m.iloc[0]) if len(m) else float("nan")), float(ref)


# ------------------------------------------------------------------ statistics over schemes (bootstrap units)
def scheme_matrix(avg, value: str, corruptions=None, family: str = "powerset") -> pandas.DataFrame:
    """``value`` ("error", "msd" or "mmd") of every scheme of ``family`` (rows, in order of appearance) on every
    corruption (columns), from :func:`average_over_severities`."""
    avg = _check_frame(avg, ("scheme", "family", "corruption", value), "avg")
    d = avg[(avg["family"] == family) & (avg["corruption"] != "clean")]
    m = d.pivot_table(index="scheme", columns="corruption", values=value, sort=False)
    if corruptions is not None:
        missing = [c for c in corruptions if c not in m.columns]
        if missing:
            raise ValueError(f"avg has no {value} for corruption(s) {missing}.")
        m = m[list(corruptions)]
    return m


def column_spearman(a, b) -> np.ndarray:
    """Spearman rank correlation of every column of ``a`` with the same column of ``b`` ((n, k) arrays;
    average ranks for ties); NaN for a constant column."""
    from scipy.stats import rankdata

    ra = rankdata(np.asarray(a, dtype=np.float64), axis=0)
    rb = rankdata(np.asarray(b, dtype=np.float64), axis=0)
    ra = ra - ra.mean(0)
    rb = rb - rb.mean(0)
    den = np.sqrt((ra * ra).sum(0) * (rb * rb).sum(0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(0) / den, np.nan)


def count_above(msd, error, threshold: float = PAPER_SPEARMAN_THRESHOLD) -> float:
    """Sec. 4.2's statistic: the number of corruptions (columns) whose Spearman(MSD, error) across schemes
    (rows) exceeds ``threshold`` (NaN counts as not above)."""
    rho = column_spearman(msd, error)
    return float(np.sum(np.nan_to_num(rho, nan=-np.inf) > threshold))


def median_rho_gap(msd, mmd, error) -> float:
    """App. B's statistic: median over corruptions of Spearman(MSD, error) − Spearman(MMD, error) (NaN skipped)."""
    gap = column_spearman(msd, error) - column_spearman(mmd, error)
    return float(np.nanmedian(gap)) if np.any(np.isfinite(gap)) else float("nan")


def inclusion_gap(has_op, msd_target, msd_other) -> float:
    """Fig. 4's statistic: relative MSD reduction from including an op (mean MSD of schemes without it vs with
    it, :func:`relative_msd_reduction`) on the target corruption minus the same on the other corruption."""
    has = np.asarray(has_op, dtype=bool)
    if has.all() or not has.any():
        return float("nan")
    t, o = np.asarray(msd_target, dtype=float), np.asarray(msd_other, dtype=float)
    return relative_msd_reduction(t[has].mean(), t[~has].mean()) - relative_msd_reduction(o[has].mean(), o[~has].mean())


def similar_vs_dissimilar(has_op, n_dissimilar, error, *, many: int = 3, few: int = 1) -> float:
    """Appendix A's statistic: the error decrease from including a similar op (mean error of schemes without
    it − with it) minus the error increase from adding many dissimilar ops to schemes with the similar op
    (mean error with ``>= many`` dissimilar ops − with ``<= few``). Positive: the similar op helps more than
    many dissimilar ops hurt. NaN when a group is empty."""
    has = np.asarray(has_op, dtype=bool)
    nd = np.asarray(n_dissimilar, dtype=float)
    e = np.asarray(error, dtype=float)
    groups = [~has, has, has & (nd >= many), has & (nd <= few)]
    if any(not g.any() for g in groups):
        return float("nan")
    gain = e[~has].mean() - e[has].mean()
    cost = e[has & (nd >= many)].mean() - e[has & (nd <= few)].mean()
    return float(gain - cost)


def percentile_among(value: float, reference) -> float:
    """Fraction of ``reference`` values strictly below ``value`` plus half the ties (0 = lowest)."""
    ref = np.asarray(reference, dtype=float)
    ref = ref[np.isfinite(ref)]
    if not ref.size or not np.isfinite(value):
        return float("nan")
    return float((np.sum(ref < value) + 0.5 * np.sum(ref == value)) / ref.size)


def method_percentiles(avg, method: str, corruptions=None) -> pandas.DataFrame:
    """Fig. 5: where a published method sits in the powerset cloud — per corruption, the percentile of its MSD
    and of its error among the powerset schemes (0 = lower than every scheme). Columns corruption, msd, error,
    p_msd, p_err."""
    import pandas as pd

    avg = _check_frame(avg, ("scheme", "family", "corruption", "error", "msd"), "avg")
    m = avg[(avg["family"] == "method") & (avg["scheme"] == method) & (avg["corruption"] != "clean")]
    if m.empty:
        raise ValueError(f"avg has no rows of method {method!r}; it has {sorted(set(avg['scheme']))[:12]}...")
    msd_m, err_m = scheme_matrix(avg, "msd", corruptions), scheme_matrix(avg, "error", corruptions)
    rows = []
    for c in msd_m.columns:
        r = m[m["corruption"] == c].iloc[0]
        rows.append(
            {
                "corruption": c,
                "msd": float(r["msd"]),
                "error": float(r["error"]),
                "p_msd": percentile_among(r["msd"], msd_m[c]),
                "p_err": percentile_among(r["error"], err_m[c]),
            }
        )
    return pd.DataFrame(rows)


def toy_summary(errors, distances, corruption: str = "impulse_noise") -> pandas.DataFrame:
    """Fig. 2b table: per mixing fraction the mean (over runs) MMD and MSD to ``corruption`` and the mean error
    on it. ``errors``: rows fraction, run, corruption, severity, error (:func:`robeval.msd.powerset.toy_cell`);
    ``distances``: rows fraction, run, mmd, msd (:func:`robeval.msd.powerset.toy_distance_runs`). Columns
    fraction, mmd, msd, error_<corruption> (NaN where no model was trained at a fraction)."""
    import pandas as pd

    dist = _check_frame(pd.DataFrame(distances), ("fraction", "run", "mmd", "msd"), "distances")
    err = _check_frame(pd.DataFrame(errors), ("fraction", "run", "corruption", "error"), "errors")
    sel = err[err["corruption"] == corruption]
    if sel.empty:
        raise ValueError(f"errors has no rows for {corruption!r}; it has {sorted(set(err['corruption']))}.")
    e = sel.groupby("fraction")["error"].mean().rename(f"error_{corruption}")
    d = dist.groupby("fraction")[["mmd", "msd"]].mean()
    return d.join(e, how="left").reset_index()


def toy_per_run(errors, distances, corruption: str = "impulse_noise") -> dict:
    """Per run (rows) and fraction (columns, sorted): the target error (severity-averaged) and MSD / MMD, as
    DataFrames {"error", "msd", "mmd"}, for the Fig. 2b claims."""
    import pandas as pd

    dist = _check_frame(pd.DataFrame(distances), ("fraction", "run", "mmd", "msd"), "distances")
    err = _check_frame(pd.DataFrame(errors), ("fraction", "run", "corruption", "error"), "errors")
    sel = err[err["corruption"] == corruption]
    # runs are units: one row per (run, fraction[, severity]) — a repeated run would be averaged in silently
    check_unique_runs(sel, ["run", "fraction"] + [k for k in ("severity",) if k in sel], "errors")
    check_unique_runs(dist, ["run", "fraction"] + [k for k in ("draw", "sample") if k in dist], "distances")
    out = {"error": sel.pivot_table(index="run", columns="fraction", values="error", aggfunc="mean")}
    for v in ("msd", "mmd"):
        out[v] = dist.pivot_table(index="run", columns="fraction", values=v, aggfunc="mean")
    return out


def low_until_small(curve_by_fraction, small: float) -> np.ndarray:
    """Fig. 2b: per run, how much of the way from the value at fraction 0 to the value at fraction 1 a curve has
    already gone at fraction ``small``, minus one half: ``(v0 − v_small) / (v0 − v1) − 0.5``. Positive = the
    curve is already closer to its fraction-1 value than to its fraction-0 value ("stays low until ~0%").

    ``curve_by_fraction``: DataFrame runs × fractions (from :func:`toy_per_run`) with columns 0, small, 1."""
    c = curve_by_fraction
    for f in (0.0, float(small), 1.0):
        if f not in c.columns:
            raise ValueError(f"the toy table has no fraction {f}; it has {list(c.columns)}.")
    v0, vs, v1 = c[0.0].to_numpy(float), c[float(small)].to_numpy(float), c[1.0].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (v0 - vs) / (v0 - v1) - 0.5


def linearity(curve_by_fraction) -> np.ndarray:
    """Fig. 2b: per run, the Pearson correlation between the fraction and the curve (−1: falls exactly linearly)."""
    x = np.asarray(curve_by_fraction.columns, dtype=float)
    return np.array([np.corrcoef(x, row)[0, 1] for row in curve_by_fraction.to_numpy(float)])


def side_by_side(bn_avg, retrain_avg) -> pandas.DataFrame:
    """The retrained schemes' mean corruption error and clean error after retraining and after batch-norm
    adaptation (one row per scheme), and per scheme the Spearman correlation over corruptions between the two
    variants' errors."""
    import pandas as pd

    rows = []
    for scheme, r in retrain_avg.groupby("scheme", sort=False):
        b = bn_avg[(bn_avg["scheme"] == scheme) & (bn_avg["family"] == "powerset")]
        if b.empty:
            continue
        m = r.merge(b, on="corruption", suffixes=("_retrain", "_bn"))
        corr = m[m["corruption"] != "clean"]
        clean = m[m["corruption"] == "clean"]
        rows.append(
            {
                "scheme": scheme,
                "clean_retrain": float(clean["error_retrain"].iloc[0]) if len(clean) else np.nan,
                "clean_bn": float(clean["error_bn"].iloc[0]) if len(clean) else np.nan,
                "corruption_retrain": float(corr["error_retrain"].mean()),
                "corruption_bn": float(corr["error_bn"].mean()),
                "rank_agreement": float(column_spearman(corr[["error_retrain"]], corr[["error_bn"]])[0]),
            }
        )
    return pd.DataFrame(rows)
