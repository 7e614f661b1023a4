"""Result tables of the MSCR notebooks: Table 1 (class separation), Tables 2a/2b (accuracy matrix with the
MSCR row), comparisons with the authors' raw results, per-row optima and the printed-vs-CSV check.

Accuracy matrices are DataFrames with index ``eps_test`` and columns ``eps_train`` (percent), as
:func:`robeval.mscr.protocol.accuracy_matrix` returns them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from robeval.core.frames import check_frame
from robeval.mscr.protocol import row_optima
from robeval.mscr.separation import check_norm


def reference_positions(ours, reference) -> list[int]:
    """Position in ``reference`` (noise levels) of every level in ``ours``, matched by value.

    The reference sheets print eps_min at full precision in their column headers, so a relative tolerance of
    1e-6 matches it while keeping the printed levels (0.001, 0.002, ...) apart. Raises ValueError for a level of
    ``ours`` that the reference lacks.
    """
    ref = np.asarray(reference, dtype=float)
    pick = []
    for c in np.asarray(ours, dtype=float):
        hit = np.flatnonzero(np.isclose(ref, c, rtol=1e-6, atol=1e-9))
        if hit.size == 0:
            raise ValueError(f"eps_train {c} has no column in the reference ({list(ref)})")
        pick.append(int(hit[0]))
    return pick


def compare_with_reference(
    mean: pd.DataFrame, margin: pd.DataFrame, ref_mean: pd.DataFrame, ref_margin: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Cell-by-cell comparison of our accuracy matrix with the authors'.

    Rows are matched by position (the reference sheets print eps_min rounded), our columns are matched to
    the reference columns by eps_train value (so a profile may run a subset of the columns).
    Returns a long frame with our mean and CI margin, the reference mean and margin, the difference,
    and ``inside``: whether the reference mean lies within our CI widened by the reference margin.
    """
    if mean.shape[0] != ref_mean.shape[0]:
        raise ValueError(f"row counts differ: ours {mean.shape[0]}, reference {ref_mean.shape[0]}")
    pick = reference_positions(mean.columns, ref_mean.columns)
    ref_mean = ref_mean.iloc[:, pick]
    ref_margin = ref_margin.iloc[:, pick] if ref_margin is not None else None
    rm = ref_margin.to_numpy() if ref_margin is not None else np.zeros(ref_mean.shape)
    rows = []
    for i, e_te in enumerate(mean.index):
        for j, e_tr in enumerate(mean.columns):
            ours, h, ref, r = mean.iat[i, j], margin.iat[i, j], ref_mean.iat[i, j], rm[i, j]
            rows.append(
                {
                    "eps_test": e_te,
                    "eps_train": e_tr,
                    "ours": ours,
                    "ours_margin": h,
                    "reference": ref,
                    "reference_margin": r,
                    "diff": ours - ref,
                    "inside": bool(abs(ours - ref) <= (h if np.isfinite(h) else 0) + r),
                }
            )
    return pd.DataFrame(rows)


def printed_vs_csv(
    printed: dict, csv_acc: pd.DataFrame, csv_mscr: pd.Series, eps_min: float, tol: float = 0.0015
) -> pd.DataFrame:
    """Cells where the paper's printed Table 2b differs from the authors' CSV by more than rounding.

    ``csv_acc`` rows are matched to the printed rows by eps_test value (``"eps_min"`` -> ``eps_min``),
    columns by position. Returns rows ``what``, ``eps_test``, ``eps_train``, ``printed``, ``csv``, ``diff``.
    """
    lab = lambda v: float(eps_min) if v == "eps_min" else float(v)
    rows = []
    csv_idx = csv_acc.index.to_numpy(dtype=float)
    for i, e_te in enumerate(printed["eps_test"]):
        hit = np.flatnonzero(np.isclose(csv_idx, lab(e_te), atol=1e-6))
        if hit.size == 0:
            raise ValueError(f"eps_test {e_te} of the printed table not in the CSV rows")
        for j, e_tr in enumerate(printed["eps_train"]):
            p, c = printed["acc"][i][j], float(csv_acc.iat[hit[0], j])
            if abs(p - c) > tol:
                rows.append(
                    {
                        "what": "accuracy",
                        "eps_test": lab(e_te),
                        "eps_train": lab(e_tr),
                        "printed": p,
                        "csv": c,
                        "diff": p - c,
                    }
                )
    for j, e_tr in enumerate(printed["eps_train"]):
        p, c = printed["mscr"][j], float(csv_mscr.iat[j])
        if abs(p - c) > tol:
            rows.append(
                {
                    "what": "MSCR",
                    "eps_test": float(eps_min),
                    "eps_train": lab(e_tr),
                    "printed": p,
                    "csv": c,
                    "diff": p - c,
                }
            )
    return pd.DataFrame(rows, columns=["what", "eps_test", "eps_train", "printed", "csv", "diff"])


# The notebooks build their tables with these functions so that the table logic is reachable by tests; the
# column names are those of the CSV files under results/<profile>/mscr_*/.
_NORM_LABELS = {math.inf: "Linf", 2.0: "L2", 1.0: "L1"}


def _check_separations(sep, name: str = "sep") -> np.ndarray:
    d = np.asarray(sep, dtype=np.float64)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of per-point separations, got shape {d.shape}")
    if np.isnan(d).any() or (d < 0).any():
        raise ValueError(f"{name} must hold distances >= 0 (no NaN)")
    return d


def separation_table(sep) -> pd.DataFrame:
    """Table 1 (2D row): minimal class separation ``2r`` and ``eps_min = r`` under several norms.

    Parameters
    ----------
    sep : mapping norm -> array of shape (n,)
        For each norm (``np.inf``, 2 or 1, or their names), every point's distance to the nearest point of
        another class (:func:`robeval.mscr.separation.nearest_other_class_distance`), in data units.

    Returns
    -------
    DataFrame with one row per norm, in the mapping's order: ``norm`` ("Linf", "L2" or "L1"), ``2r`` (the
    smallest separation), ``eps_min`` (= r = 2r / 2) and ``median per-point separation``.
    """
    if not hasattr(sep, "items") or len(sep) == 0:
        raise ValueError("sep must be a non-empty mapping norm -> per-point separations")
    labels, two_r, medians = [], [], []
    for p, d in sep.items():
        d = _check_separations(d, f"sep[{p!r}]")
        labels.append(_NORM_LABELS[check_norm(p)])
        two_r.append(d.min())
        medians.append(np.median(d))
    return pd.DataFrame(
        {"norm": labels, "2r": two_r, "eps_min": [v / 2 for v in two_r], "median per-point separation": medians}
    )


def cifar_separation_table(sep, seconds: float) -> pd.DataFrame:
    """Table 1 (CIFAR-10 row) as one row: images, ``2r`` (L_inf, pixel units in [0, 1]), ``2r x 255`` (rounded to
    6 decimals, an integer for exact uint8 distances), ``eps_min``, the median per-image separation and the
    wall time ``seconds`` of the search. ``sep``: shape (n,), distances in [0, 1]."""
    d = _check_separations(sep)
    two_r = float(d.min())
    return pd.DataFrame(
        {
            "images": [len(d)],
            "2r (Linf)": [two_r],
            "2r x 255": [round(two_r * 255, 6)],
            "eps_min": [two_r / 2],
            "median separation": [float(np.median(d))],
            "seconds": [float(seconds)],
        }
    )


def accuracy_table(
    mean: pd.DataFrame, mscr, *, margin: pd.DataFrame | None = None, mscr_margin=None, decimals: int | None = None
) -> pd.DataFrame:
    """An accuracy matrix with the MSCR row appended (Table 2a / 2b layout).

    Parameters
    ----------
    mean : DataFrame (eps_test x eps_train), accuracy in percent.
    mscr : array-like (n_eps_train,), MSCR in percent, in the column order of ``mean``.
    margin, mscr_margin : optional CI half-widths of the same shapes. When given, every cell becomes the
        string ``"mean ± margin"`` (both rounded to ``decimals``, which is then required).
    decimals : round to this many decimals (None: no rounding; numbers only).

    Returns
    -------
    DataFrame with the rows of ``mean`` plus a last row labelled ``"MSCR"``.
    """
    mean = check_frame(mean, (), "mean")
    mscr = pd.Series(np.asarray(mscr, dtype=np.float64))
    if mscr.ndim != 1 or len(mscr) != mean.shape[1]:
        raise ValueError(f"mscr needs one value per column of mean ({mean.shape[1]}), got shape {mscr.shape}")
    if margin is None:
        if mscr_margin is not None:
            raise ValueError("mscr_margin given without margin; give both or neither")
        tab = mean.copy() if decimals is None else mean.round(decimals)
        tab.loc["MSCR"] = (mscr if decimals is None else mscr.round(decimals)).to_numpy()
        return tab
    margin = check_frame(margin, (), "margin")
    if margin.shape != mean.shape:
        raise ValueError(f"margin has shape {margin.shape}, mean {mean.shape}")
    if mscr_margin is None or decimals is None:
        raise ValueError("formatting 'mean ± margin' needs mscr_margin and decimals")
    mscr_margin = pd.Series(np.asarray(mscr_margin, dtype=np.float64))
    if len(mscr_margin) != len(mscr):
        raise ValueError(f"mscr_margin has {len(mscr_margin)} values, mscr {len(mscr)}")
    tab = mean.round(decimals).astype(str) + " ± " + margin.round(decimals).astype(str)
    tab.loc["MSCR"] = (mscr.round(decimals).astype(str) + " ± " + mscr_margin.round(decimals).astype(str)).to_numpy()
    return tab


def compare_modes_with_reference(mats, ref_mean: pd.DataFrame, ref_margin: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`compare_with_reference` for several accuracy matrices (one per noise mode), stacked.

    ``mats``: mapping mode -> :func:`accuracy_matrix` result (needs ``mean`` and ``margin``). Returns the long
    comparison frames concatenated in the mapping's order, with a ``mode`` column.
    """
    if not hasattr(mats, "items") or len(mats) == 0:
        raise ValueError("mats must be a non-empty mapping mode -> accuracy matrix")
    parts = []
    for mode, mat in mats.items():
        c = compare_with_reference(mat["mean"], mat["margin"], ref_mean, ref_margin)
        c["mode"] = mode
        parts.append(c)
    return pd.concat(parts, ignore_index=True)


def reference_agreement_overview(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per mode: the fraction of cells agreeing with the reference (``cells_agreeing``), the mean and the root
    mean square of our-minus-reference differences in percentage points. Input: :func:`compare_modes_with_reference`."""
    comparison = check_frame(
        comparison, ("mode", "inside", "diff"), "comparison", hint="Use compare_modes_with_reference."
    )
    return comparison.groupby("mode").agg(
        cells_agreeing=("inside", "mean"),
        mean_diff=("diff", "mean"),
        rms_diff=("diff", lambda d: float(np.sqrt(np.mean(d**2)))),
    )


def difference_matrix(comparison: pd.DataFrame, mode: str | None = None) -> pd.DataFrame:
    """Ours minus reference (percentage points) as a matrix eps_test x eps_train, from a comparison frame
    (:func:`compare_with_reference`, or :func:`compare_modes_with_reference` with ``mode`` selecting one)."""
    comparison = check_frame(comparison, (), "comparison")
    if mode is not None:
        if "mode" not in comparison.columns or not (comparison["mode"] == mode).any():
            raise ValueError(f"no rows of mode {mode!r} in the comparison")
        comparison = comparison[comparison["mode"] == mode]
    return comparison.pivot(index="eps_test", columns="eps_train", values="diff")


def row_optima_table(
    means, eps_test, reference: pd.DataFrame | None = None, reference_label: str = "published"
) -> pd.DataFrame:
    """The best eps_train of every eps_test row for several accuracy matrices side by side.

    ``means``: mapping column label -> mean accuracy DataFrame (eps_test x eps_train); ``eps_test``: the row
    levels (the index, named ``eps_test``); ``reference``: an optional reference matrix added as the column
    ``reference_label``. Rows are matched by position. Returns a DataFrame of eps_train values.
    """
    index = pd.Index(eps_test, name="eps_test")
    cols = dict(means)
    if reference is not None:
        if reference_label in cols:
            raise ValueError(f"reference_label {reference_label!r} is also a key of means")
        cols[reference_label] = reference
    out = {}
    for label, mean in cols.items():
        opt = row_optima(check_frame(mean, (), f"means[{label!r}]"))
        if len(opt) != len(index):
            raise ValueError(f"{label!r} has {len(opt)} rows, eps_test {len(index)} levels")
        out[label] = opt.values
    return pd.DataFrame(out, index=index)


def count_matching_optima(ours, reference, atol: float = 1e-4) -> int:
    """How many rows have the same best eps_train in ``ours`` and ``reference`` (1-D, same length; equal up to
    ``atol``, which absorbs eps_min printed to fewer digits (0.004 for 0.004013) but stays below half the grid's
    smallest spacing (0.001), so neighbouring levels never count as the same optimum)."""
    a = np.asarray(ours, dtype=np.float64)
    b = np.asarray(reference, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"ours and reference must be 1-D of the same length, got {a.shape} and {b.shape}")
    return int(np.sum(np.isclose(a, b, rtol=0.0, atol=atol)))


def mscr_mode_table(summaries, ref_mscr=None, ref_mscr_margin=None) -> pd.DataFrame:
    """The MSCR row (percent) of several :func:`mscr_summary` frames side by side, indexed by eps_train.

    Columns ``MSCR <mode>`` then ``± <mode>`` (CI half-widths), then, when ``ref_mscr`` is given (one value per
    eps_train, same order), ``MSCR published`` and ``± published`` (NaN when ``ref_mscr_margin`` is None).
    """
    if not hasattr(summaries, "items") or len(summaries) == 0:
        raise ValueError("summaries must be a non-empty mapping mode -> mscr_summary frame")
    tab = pd.DataFrame({f"MSCR {m}": s.set_index("eps_train")["mscr"] for m, s in summaries.items()})
    for m, s in summaries.items():
        tab[f"± {m}"] = s.set_index("eps_train")["mscr_margin"]
    if ref_mscr is not None:
        ref_mscr = np.asarray(ref_mscr, dtype=np.float64)
        if ref_mscr.shape != (len(tab),):
            raise ValueError(f"ref_mscr needs {len(tab)} values (one per eps_train), got shape {ref_mscr.shape}")
        tab["MSCR published"] = ref_mscr
        tab["± published"] = np.asarray(ref_mscr_margin, dtype=np.float64) if ref_mscr_margin is not None else np.nan
    elif ref_mscr_margin is not None:
        raise ValueError("ref_mscr_margin given without ref_mscr")
    return tab


def k_effect_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 statistics per ``k``: mean robust accuracy and its sample std over runs, both in percent.
    Input: tidy rows with columns ``k`` and ``acc`` (fraction)."""
    df = check_frame(df, ("k", "acc"), "df")
    return df.groupby("k")["acc"].agg(mean=lambda a: 100 * a.mean(), std=lambda a: 100 * a.std(ddof=1))


def count_equal_columns(acc, a: int, b: int) -> int:
    """Rows of the matrix ``acc`` (2-D) in which columns ``a`` and ``b`` hold the same value (``np.isclose``):
    how often a printed table repeats one column in another."""
    arr = np.asarray(acc, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"acc must be 2-D, got shape {arr.shape}")
    for j in (a, b):
        if not -arr.shape[1] <= j < arr.shape[1]:
            raise ValueError(f"column {j} out of range for {arr.shape[1]} columns")
    return int(np.sum(np.isclose(arr[:, a], arr[:, b])))
