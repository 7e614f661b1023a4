"""Does the authors' own 1200-run sheet decide the 2D claims? A reanalysis of ``gesamt_Bsep_Linf.xlsx``.

The sheet holds, for every cell of Table 2a and for the MSCR row, the mean over the authors' runs, the standard
deviation over runs and the 95% half-width. It does not hold the runs themselves, so a claim that compares cells
(a best column, a gain, a trend) cannot be tested paired by run as our replication does. What the sheet does
allow is an interval that is valid *whatever* the correlation between the cells of one run:

    the statistic T = g(m_1, ..., m_K) of the cell means, linearised with gradient (g_1, ..., g_K), has
    sd(T) <= sum_k |g_k| * s_k / sqrt(n)                                           (Minkowski's inequality)

with s_k the sheet's standard deviation of cell k and n its number of runs. The bound is reached when the cells
are perfectly (anti-)correlated in the worst direction; the paired interval of the real runs can only be
narrower. A claim that this interval decides is decided by the authors' data under any dependence between
cells; one it leaves open may still hold (the paired test has more power), so such a row is *inconclusive*.

* :func:`sheet_runs` — the number of runs behind a sheet, read off its half-width / standard deviation ratio
  (B/L_inf: 1200, as Sec. 3.2 states; C/L2: 200);
* :func:`bounded_interval` — the interval above;
* :func:`record_sheet_tests` — the claims of notebook 01 that a sheet can test (rows ``SH_*``).

The authors' runs come from their code, which reuses one set of noise offsets across noise levels
(``noise_mode="shared_offsets"``, rows ``X_modes_*``): the sheet decides each claim for that noise, not for the
i.i.d. noise the paper describes.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats as sps

from robeval.core import stats
from robeval.core.ledger import EXACT, check_ledger
from robeval.core.paths import PROFILES
from robeval.mscr.claim_stats import level_index, level_name, spearman_rho

__all__ = ["sheet_runs", "bounded_interval", "correlation_needed", "record_sheet_tests", "record_sheet_runs"]

_SOURCE = "authors' sheet gesamt_Bsep_Linf.xlsx"
_NOTE = (
    "reanalysis of the authors' {n} runs (their code's noise: offsets shared across levels); interval from the "
    "sheet's means and per-cell standard deviations, valid for any correlation between cells: "
    "se <= sum |g| s / sqrt(n)"
)


def sheet_runs(ref: dict, tol: float = 1e-3) -> int:
    """The number of runs n behind an authors' sheet: its 95% half-widths are ``1.96 * std / sqrt(n)``.

    ``ref``: a dict of :func:`robeval.mscr.published.load_mscr_reference_2d` with ``acc_std`` and
    ``acc_margin95``. Raises ValueError when the sheet has no standard deviations or when its cells disagree
    about n (relative spread of the ratio above ``tol``)."""
    if ref.get("acc_std") is None or ref.get("acc_margin95") is None:
        raise ValueError(
            "this sheet has no standard deviations / 95% margins (only B/Linf and C/L2 carry them): its number "
            "of runs cannot be read off it."
        )
    sd = np.asarray(ref["acc_std"], dtype=np.float64).reshape(-1)
    hw = np.asarray(ref["acc_margin95"], dtype=np.float64).reshape(-1)
    ok = sd > 0
    ratio = hw[ok] / sd[ok]
    if ratio.size == 0 or np.ptp(ratio) > tol * ratio.mean():
        raise ValueError(f"the sheet's half-width / std ratios disagree ({ratio.min():.5g}..{ratio.max():.5g})")
    return int(round((1.96 / ratio.mean()) ** 2))


def steady_rise_of_sheet(acc, acc0, sd, sd0, n: int, level: float = 0.95) -> tuple[stats.Interval, int]:
    """ "The relative accuracy change (acc − acc0) / acc0 (in %) rises at every step of eps_train", read off a sheet
    row ``acc`` and its clean row ``acc0`` (means over ``n`` runs, standard deviations ``sd``, ``sd0``; one value
    per eps_train column). Each step j -> j + 1 gets a :func:`bounded_interval` (its four cells: the two columns'
    test and clean accuracies). Every step must rise, so the step whose rise is least sure (smallest estimate / se)
    decides, uncorrected (intersection-union); a fall at some step decides the other way only past Bonferroni over
    the steps: the most significant fall is returned with its se widened so that its p is the corrected one (as
    :func:`robeval.core.stats.rows_contrast_interval` does). Returns that step's interval and its position j."""
    a, a0 = np.asarray(acc, dtype=np.float64), np.asarray(acc0, dtype=np.float64)
    s, s0 = np.asarray(sd, dtype=np.float64), np.asarray(sd0, dtype=np.float64)
    if a.shape != a0.shape or a.ndim != 1 or a.size < 2 or s.shape != a.shape or s0.shape != a.shape:
        raise ValueError(f"acc, acc0, sd and sd0 need one value per eps_train column (>= 2), got {a.shape}.")
    rel = 100 * (a - a0) / a0
    steps = a.size - 1
    ivs = []
    for j in range(steps):
        k = j + 1
        grad = [100 / a0[k], -100 * a[k] / a0[k] ** 2, -100 / a0[j], 100 * a[j] / a0[j] ** 2]
        ivs.append(bounded_interval(rel[k] - rel[j], grad, [s[k], s0[k], s[j], s0[j]], n, level))
    z = np.array([iv.estimate / iv.se if iv.se > 0 else math.copysign(math.inf, iv.estimate) for iv in ivs])
    q = float(sps.norm.ppf(0.5 + level / 2))
    fall_p = np.minimum(1.0, steps * 2 * sps.norm.cdf(z))  # two-sided p of a fall, Bonferroni over the steps
    j = int(np.argmin(fall_p))
    if z[j] < 0 and fall_p[j] < 1 - level:  # a fall at some step
        iv = ivs[j]
        se = max(iv.se, abs(iv.estimate) / float(sps.norm.isf(fall_p[j] / 2)))
        method = f"{iv.method}; the largest fall of {steps} steps, Bonferroni over the steps"
        return stats.Interval(iv.estimate, iv.estimate - q * se, iv.estimate + q * se, se, iv.n, level, method), j
    j = int(np.argmin(z))
    iv = ivs[j]
    return dataclasses.replace(iv, method=f"{iv.method}; the least sure rise of {steps} steps decides"), j


def bounded_interval(estimate: float, gradient, sds, n: int, level: float = 0.95) -> stats.Interval:
    """Normal interval for a statistic of cell means whose se is bounded over every correlation between cells.

    ``estimate``: the statistic at the sheet's means; ``gradient``: its partial derivatives with respect to the
    K cell means (shape (K,)); ``sds``: the K cells' standard deviations over runs (same units as the means);
    ``n``: runs per cell. se = sum_k |gradient_k| * sds_k / sqrt(n)."""
    g = np.asarray(gradient, dtype=np.float64).reshape(-1)
    s = np.asarray(sds, dtype=np.float64).reshape(-1)
    if g.shape != s.shape or g.size == 0:
        raise ValueError(f"gradient and sds need the same non-empty shape, got {g.shape} and {s.shape}")
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(s)) and np.all(s >= 0)):
        raise ValueError("gradient must be finite and sds finite and >= 0")
    if isinstance(n, (bool, np.bool_)) or int(n) != n or n < 2:
        raise ValueError(f"n must be an integer number of runs >= 2, got {n!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    est = float(estimate)
    if not math.isfinite(est):
        raise ValueError("estimate must be finite")
    se = float(np.sum(np.abs(g) * s) / math.sqrt(n))
    z = float(sps.norm.ppf(0.5 + level / 2))
    return stats.Interval(
        est, est - z * se, est + z * se, se, int(n), level, "normal, se bounded over cell correlations"
    )


def correlation_needed(estimate: float, weights, sds, n: int, level: float = 0.95) -> float:
    """The within-run correlation two cells need for the *paired* interval of ``w1·m1 + w2·m2`` to exclude 0.

    With correlation rho over runs, se² = ((w1 s1)² + (w2 s2)² − 2 rho |w1 w2| s1 s2) / n for weights of opposite
    sign; the interval excludes 0 when z·se < |estimate|. Returns the rho at which that starts: below −1 the
    bounded interval already decides the contrast, above 1 no correlation does (n runs are too few)."""
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    s = np.asarray(sds, dtype=np.float64).reshape(-1)
    if w.shape != (2,) or s.shape != (2,) or not w[0] * w[1] < 0 or not np.all(s > 0):
        raise ValueError("need two weights of opposite sign and two standard deviations > 0")
    z = float(sps.norm.ppf(0.5 + level / 2))
    a, b = abs(w[0]) * s[0], abs(w[1]) * s[1]
    return float((a**2 + b**2 - n * float(estimate) ** 2 / z**2) / (2 * a * b))


def _rank_scores(k: int) -> np.ndarray:
    """Centred rank scores of k ordered levels: the weights of a linear-trend contrast."""
    return np.arange(k, dtype=np.float64) - (k - 1) / 2


def _least_separated(means, sds, best: int, n: int) -> int:
    """The cell whose bounded interval of best − cell has the lowest lower bound: it decides 'best beats all'."""
    others = [j for j in range(len(means)) if j != best]
    return min(others, key=lambda j: bounded_interval(means[best] - means[j], [1.0, -1.0], [sds[best], sds[j]], n).low)


def record_sheet_tests(ledger, ref: dict, gain_levels=None, ours=None) -> list:
    """Rows ``SH_*``: the 2D claims of notebook 01 tested on the authors' B/L_inf sheet alone.

    ``ref``: :func:`robeval.mscr.published.load_mscr_reference_2d` of ``("B", "Linf")`` (9 x 9 accuracies in
    percent with standard deviations, MSCR row with standard deviations); ``gain_levels``: the eps_train of
    Fig. 6a's gains (default: 0 < eps_train <= 0.01). Each row is the counterpart of one replication row of
    the notebook (named in its note) and carries ``evidence="reanalysis"``: *consistency* when the bounded
    interval decides the claim, *erratum* when it decides the opposite, *inconclusive* otherwise.

    A row comparing two cells that the bound leaves open says in its note which within-run correlation of the
    two cells a paired test would need (:func:`correlation_needed`) and, with ``ours`` (a
    :class:`robeval.mscr.claim_stats.RunCube` of our runs with the authors' noise, ``shared_offsets``), the
    correlation of the same two cells over our runs: a hint, not a verdict."""
    check_ledger(ledger)
    n = sheet_runs(ref)
    e_tr = np.asarray(ref["eps_train"], dtype=np.float64)
    e_te = np.asarray(ref["eps_test"], dtype=np.float64)
    if e_tr.shape != e_te.shape or not np.allclose(e_tr, e_te, rtol=1e-3, atol=5e-5):
        raise ValueError("the sheet's eps_test rows must be its eps_train levels (a square Table 2a)")
    eps_min = float(e_tr[ref["eps_min_position"]])
    acc = np.asarray(ref["acc"], dtype=np.float64)
    acc_sd = np.asarray(ref["acc_std"], dtype=np.float64)
    M = np.asarray(ref["mscr"], dtype=np.float64)
    M_sd = np.asarray(ref["mscr_std"], dtype=np.float64)
    name = [level_name(e, eps_min) for e in e_tr]
    K = len(e_tr)
    col = {round(float(e), 6): j for j, e in enumerate(e_tr)}
    note = _NOTE.format(n=n)
    lab = dict(evidence="reanalysis", unit="forest runs", comparable_at=PROFILES)
    out = []

    def cell_runs(key):
        """Our per-run values of a sheet cell ("acc", i, j) or ("mscr", j); None where ``ours`` lacks it."""
        if ours is None:
            return None
        j = level_index(ours.eps_train, e_tr[key[-1]])
        i = level_index(ours.eps_test, eps_min if key[0] == "mscr" else e_tr[key[1]])
        if i is None or j is None:
            return None
        return ours.mscr(float(ours.eps_test[i]))[:, j] if key[0] == "mscr" else ours.acc[:, i, j]

    def sheet_cell(key):
        return (M[key[1]], M_sd[key[1]]) if key[0] == "mscr" else (acc[key[1], key[2]], acc_sd[key[1], key[2]])

    def pair(a, b, wa=1.0, wb=-1.0):
        """The bounded interval of wa·a + wb·b for two sheet cells, and what a paired test would need."""
        (ma, sa), (mb, sb) = sheet_cell(a), sheet_cell(b)
        est = wa * ma + wb * mb
        iv = bounded_interval(est, [wa, wb], [sa, sb], n)
        if iv.low > 0 or iv.high < 0 or sa == 0 or sb == 0:
            return iv, ""
        rho = correlation_needed(est, [wa, wb], [sa, sb], n)
        text = (
            f"paired, the sheet's runs decide its sign if these two cells correlate at rho > "
            f"{rho:.2f}{'' if rho < 0.99 else f' (exactly {rho:.4f})'} over runs"
            if rho < 1
            else "no within-run correlation lets the sheet's runs decide its sign"
        )
        va, vb = cell_runs(a), cell_runs(b)
        if va is not None and vb is not None and len(va) >= 3 and np.std(va) > 0 and np.std(vb) > 0:
            text += f" (the same cells over our {len(va)} shared-offset runs: rho = {np.corrcoef(va, vb)[0, 1]:.2f})"
        return iv, text

    def row(cid, source, description, iv, twin, direction=">", about="models", paper="holds"):
        extra = ""
        if isinstance(iv, tuple):
            iv, extra = iv
        out.append(
            ledger.comparison(
                cid,
                f"{source} / {_SOURCE}",
                description,
                interval=iv,
                direction=direction,
                paper=paper,
                about=about,
                note=f"counterpart of {twin}; {note}" + (f"; {extra}" if extra else ""),
                **lab,
            )  # fmt: skip
        )

    # the MSCR row: trend (linear contrast with rank scores), every step, sign at both ends
    w = _rank_scores(K)
    row(
        "SH_mscr_trend", "Sec. 4 / Table 2a",
        "the sheet's MSCR row rises with eps_train (linear-trend contrast with centred rank scores, sum w·MSCR > 0)",
        bounded_interval(float(w @ M), w, M_sd, n), "S4_mscr_increases", about="models",
    )  # fmt: skip
    for j in range(1, K):
        row(
            f"SH_mscr_step_{name[j - 1]}_{name[j]}", "Table 2 caption",
            f"the sheet's MSCR rises from eps_train = {name[j - 1]} to {name[j]}",
            pair(("mscr", j), ("mscr", j - 1)),
            f"S4_mscr_step_{name[j - 1]}_{name[j]}", about="models",
        )  # fmt: skip
    row(
        "SH_mscr_negative_at_0", "Sec. 4", "the sheet's MSCR < 0 for eps_train = 0",
        bounded_interval(M[0], [1.0], [M_sd[0]], n), "S4_mscr_negative_at_0", direction="<", about="models",
    )  # fmt: skip
    row(
        f"SH_mscr_positive_at_{e_tr[-1]:g}", "Sec. 4", f"the sheet's MSCR > 0 for eps_train = {e_tr[-1]:g}",
        bounded_interval(M[-1], [1.0], [M_sd[-1]], n), f"S4_mscr_positive_at_{e_tr[-1]:g}", about="models",
    )  # fmt: skip

    # best column of every row (Table 2a bold) and the overall maximum (dark grey)
    for i in range(K):
        jb = int(np.argmax(acc[i]))
        jr = _least_separated(acc[i], acc_sd[i], jb, n)
        row(
            f"SH_best_{name[i]}", "Table 2a (bold)",
            f"eps_test = {name[i]}: eps_train = {name[jb]} beats every other column of the sheet (least separated: "
            f"{name[jr]})",
            pair(("acc", i, jb), ("acc", i, jr)), f"T2a_best_{name[i]}", paper=f"best column eps_train = {name[jb]}",
        )  # fmt: skip
    flat, flat_sd = acc.reshape(-1), acc_sd.reshape(-1)
    kb = int(np.argmax(flat))
    kr = _least_separated(flat, flat_sd, kb, n)
    cell = lambda k: f"(eps_test {name[k // K]}, eps_train {name[k % K]})"
    row(
        "SH_max_overall", "Sec. 4",
        f"the sheet's maximal accuracy is at {cell(kb)} (least separated other cell: {cell(kr)})",
        pair(("acc", kb // K, kb % K), ("acc", kr // K, kr % K)), "S4_max_overall", paper=f"maximum at {cell(kb)}",
    )  # fmt: skip

    # robustness trends (Sec. 5.2): relative accuracy change at eps_test vs clean, trend over eps_train
    for i in range(1, K):
        if i == ref["eps_min_position"]:
            continue
        iv, j = steady_rise_of_sheet(acc[i], acc[0], acc_sd[i], acc_sd[0], n)
        row(
            f"SH_robustness_trend_{name[i]}", "Sec. 5.2",
            f"the sheet's relative accuracy change at eps_test = {name[i]} rises steadily with eps_train (at every "
            f"step; the weakest decides, here eps_train = {name[j]} -> {name[j + 1]})",
            iv, f"S52_robustness_trend_{name[i]}", about="models",
        )  # fmt: skip

    # Fig. 6a: clean accuracy and MSCR gains over eps_train = 0
    levels = [e for e in e_tr if 0 < e <= 0.01 + 1e-12] if gain_levels is None else list(gain_levels)
    for e in levels:
        j = col.get(round(float(e), 6))
        if j is None:
            raise ValueError(f"gain level {e} is not an eps_train column of the sheet {list(e_tr)}")
        row(
            f"SH_clean_gain_{name[j]}", "Fig. 6a / Sec. 4",
            f"the sheet's clean accuracy: eps_train = {name[j]} beats eps_train = 0",
            pair(("acc", 0, j), ("acc", 0, 0)),
            f"F6a_clean_gain_{name[j]}",
        )  # fmt: skip
        row(
            f"SH_mscr_gain_{name[j]}", "Fig. 6a / Sec. 4", f"the sheet's MSCR: eps_train = {name[j]} beats eps_train = 0",
            pair(("mscr", j), ("mscr", 0)), f"F6a_mscr_gain_{name[j]}",
        )  # fmt: skip

    # Sec. 5.4: the clean optimum lies above eps_min; the error at 0.007 is less than half that at 0
    up = [j for j in range(K) if e_tr[j] > eps_min * (1 + 1e-9)]
    down = [j for j in range(K) if j not in up]
    ju, jd = max(up, key=lambda j: acc[0, j]), max(down, key=lambda j: acc[0, j])
    row(
        "SH_optimum_above_eps_min", "Sec. 5.4",
        f"the sheet's best clean accuracy is reached above eps_min (eps_train = {name[ju]} vs {name[jd]})",
        pair(("acc", 0, ju), ("acc", 0, jd)),
        "S54_optimum_above_eps_min",
    )  # fmt: skip
    j7 = col.get(0.007)
    if j7 is not None:
        err0, err7 = 100 - acc[0, 0], 100 - acc[0, j7]

        def halving(lg, sign):  # the readings of "less than halving" (ambiguity mscr_halving)
            side = "below" if sign > 0 else "above"
            n0 = len(out)
            row(
                "SH_error_halved", "Sec. 5.4",
                f"the sheet's clean error at eps_train = 0.007 lies {side} half the error at 0 (reading '{side}_half')",
                bounded_interval(sign * (err0 / 2 - err7), [0.5 * sign, 1.0 * sign], [acc_sd[0, 0], acc_sd[0, j7]], n),
                "S54_error_halved",
            )  # fmt: skip
            return out[n0:]

        out += ledger.under_readings("mscr_halving", {"below_half": 1.0, "above_half": -1.0}, halving)
    return out


def record_sheet_runs(ledger, sheets: dict, stated: int = 1200) -> list:
    """Rows ``X_sheets_<name>_runs``: the number of runs behind each authors' sheet that carries standard
    deviations (:func:`sheet_runs`) against the ``stated`` 1200 of Sec. 3.2. ``sheets``: ``"B_Linf"`` -> sheet
    dict; sheets without standard deviations are skipped (their n cannot be read off them)."""
    check_ledger(ledger)
    out = []
    for name, ref in sheets.items():
        if ref.get("acc_std") is None or ref.get("acc_margin95") is None:
            continue
        n = sheet_runs(ref)
        out.append(
            ledger.consistency(
                f"X_sheets_{name}_runs",
                "Sec. 3.2 / authors' sheets",
                f"sheet {name} rests on the {stated} runs Sec. 3.2 chooses for the 2D experiments",
                holds=n == stated,
                noise_basis=EXACT,
                check="n read off the sheet: its 95% half-widths equal 1.96 · std / sqrt(n) in every cell",
                paper=stated,
                estimate=n,
                evidence="reanalysis",
                unit="none (exact)",
                note="the paper prints only B/L_inf's numbers; the other sheets back its 'similar fundamental "
                "results' for datasets A, C and L2 noise (Sec. 3.2)",
            )
        )
    return out


def sheet_findings(ref: dict) -> dict:
    """The paper's fundamental 2D findings read off one authors' sheet (:func:`robeval.mscr.published.
    load_mscr_reference_2d`): Spearman rho of the MSCR row; whether some eps_train > 0 beats eps_train = 0 in
    both clean accuracy and MSCR (the trade-off overcome); whether the best column of every row eps_test <=
    0.002 lies above the diagonal."""
    acc = ref["acc"].to_numpy(dtype=float)
    mscr = np.asarray(ref["mscr"], dtype=float)
    e_tr = np.asarray(ref["eps_train"], dtype=float)
    e_te = np.asarray(ref["eps_test"], dtype=float)
    rho = spearman_rho(e_tr, mscr)
    both = bool(np.any((acc[0, 1:] > acc[0, 0]) & (mscr[1:] > mscr[0])))
    low = [i for i, e in enumerate(e_te) if e <= 0.002 + 1e-12]
    above = bool(all(e_tr[int(np.argmax(acc[i]))] > e_te[i] + 1e-12 for i in low))
    sign = bool(mscr[0] < 0 < mscr[-1])
    return {"rho": float(rho), "tradeoff_overcome": both, "offdiag_low": above, "negative_to_positive": sign}
