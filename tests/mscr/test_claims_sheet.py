"""Tests for robeval.mscr.claims_sheet: what the authors' 2D sheet decides on its own.

The bounded interval is checked against its closed form and, by simulation with fixed seeds, for coverage at
the correlation that makes the bound tight (-1) and at a positive one (where it is conservative). The sheet
rows are checked on hand-made sheets whose verdicts follow by hand, and on the authors' B/L_inf and C/L2 sheets
(facts of those files: their runs, the MSCR row's first step)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from robeval.core.ledger import Ledger
from robeval.mscr import claims as mc
from robeval.mscr import published
from robeval.mscr.claim_stats import RunCube
from robeval.mscr.claims_sheet import (
    bounded_interval,
    correlation_needed,
    record_sheet_runs,
    record_sheet_tests,
    sheet_runs,
)

Z95 = 1.959963984540054


def _ledger():
    return Ledger(paper="mscr", notebook="t", profile="default")


# ------------------------------------------------------------------------------------------ the interval
def test_bounded_interval_closed_form():
    iv = bounded_interval(1.0, [1.0, -1.0], [0.3, 0.4], n=100)
    assert iv.se == pytest.approx(0.07)
    assert (iv.low, iv.high) == pytest.approx((1 - Z95 * 0.07, 1 + Z95 * 0.07))
    assert iv.n == 100 and iv.level == 0.95
    # gradient signs do not matter, magnitudes scale the se
    assert bounded_interval(0.0, [0.5, 2.0], [1.0, 1.0], n=4).se == pytest.approx(1.25)


@pytest.mark.parametrize(
    "args, match",
    [
        ((1.0, [1.0], [0.1, 0.2], 10), "same non-empty shape"),
        ((1.0, [1.0], [-0.1], 10), ">= 0"),
        ((1.0, [1.0], [0.1], 1), "n must be"),
        ((float("nan"), [1.0], [0.1], 10), "estimate must be finite"),
    ],
)
def test_bounded_interval_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        bounded_interval(*args)


def _coverage(rho: float, trials: int = 2000, n: int = 50, seed: int = 0) -> float:
    """Coverage of the bounded interval for the difference of two column means, columns correlated ``rho``."""
    rng = np.random.default_rng(seed)
    s1, s2, mu1, mu2 = 1.0, 2.0, 0.3, -0.2
    hits = 0
    for _ in range(trials):
        z1 = rng.standard_normal(n)
        z2 = rho * z1 + math.sqrt(max(1 - rho**2, 0.0)) * rng.standard_normal(n)
        a, b = mu1 + s1 * z1, mu2 + s2 * z2
        iv = bounded_interval(a.mean() - b.mean(), [1.0, -1.0], [a.std(ddof=1), b.std(ddof=1)], n)
        hits += iv.low <= mu1 - mu2 <= iv.high
    return hits / trials


def test_bounded_interval_covers_at_the_worst_correlation():
    # rho = -1 makes sd(mean a - mean b) = (s1 + s2) / sqrt(n): the bound is exact, coverage ~ 95%
    # (binomial sd at 2000 trials: 0.5 pp; t vs z at n = 50 costs ~0.5 pp)
    assert 0.925 <= _coverage(-1.0) <= 0.97


def test_bounded_interval_is_conservative_under_positive_correlation():
    assert _coverage(0.5) >= 0.995


def test_correlation_needed_is_where_the_paired_interval_touches_zero():
    est, w, s, n = 0.05, [1.0, -0.5], [0.4, 0.6], 300
    rho = correlation_needed(est, w, s, n)
    a, b = 0.4, 0.5 * 0.6
    se = math.sqrt((a**2 + b**2 - 2 * rho * a * b) / n)
    assert Z95 * se == pytest.approx(est)
    # a contrast the bound decides needs no correlation (rho* <= -1); a zero estimate needs more than perfect
    assert (
        bounded_interval(1.0, [1, -1], [0.1, 0.1], 100).low > 0
        and correlation_needed(1.0, [1, -1], [0.1, 0.1], 100) < -1
    )
    assert correlation_needed(0.0, [1, -1], [0.1, 0.1], 100) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="opposite sign"):
        correlation_needed(0.1, [1.0, 1.0], [0.1, 0.1], 100)


# ------------------------------------------------------------------------------------ hand-made sheets
def _sheet(mscr, mscr_sd, acc=None, acc_sd=0.1, n=1200):
    levels = [0.0, 0.001, 0.004, 0.007]
    k = len(levels)
    if acc is None:
        acc = np.full((k, k), 99.0) - np.arange(k)[:, None] * 0.5  # flat over eps_train: no best column
    acc = np.asarray(acc, dtype=float)
    sd = np.full((k, k), acc_sd)
    idx = pd.Index(levels, name="eps_test")
    cols = pd.Index(levels, name="eps_train")
    return {
        "eps_train": levels,
        "eps_test": levels,
        "eps_min_position": 2,
        "acc": pd.DataFrame(acc, index=idx, columns=cols),
        "acc_std": pd.DataFrame(sd, index=idx, columns=cols),
        "acc_margin95": pd.DataFrame(1.96 * sd / math.sqrt(n), index=idx, columns=cols),
        "mscr": pd.Series(mscr, index=cols, dtype=float),
        "mscr_std": pd.Series(mscr_sd, index=cols, dtype=float),
    }


def test_sheet_runs_reads_n_off_the_margins():
    assert sheet_runs(_sheet([0, 0, 0, 0], [1, 1, 1, 1], n=300)) == 300
    bad = _sheet([0, 0, 0, 0], [1, 1, 1, 1])
    bad["acc_margin95"].iloc[0, 0] *= 2
    with pytest.raises(ValueError, match="disagree"):
        sheet_runs(bad)
    with pytest.raises(ValueError, match="no standard deviations"):
        sheet_runs({"acc_std": None, "acc_margin95": None})


def test_rising_mscr_row_is_consistency_falling_is_erratum():
    # steps of 0.1 with sd 0.5 at n = 1200: bound se = 1.0 / 34.64 = 0.029 -> every step decided
    up = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([-0.2, -0.1, 0.0, 0.1], [0.5] * 4))}
    assert up["SH_mscr_trend"].verdict == "consistency"
    # centred rank scores (-1.5, -0.5, 0.5, 1.5) . (-0.2, -0.1, 0, 0.1) = 0.5
    assert up["SH_mscr_trend"].estimate == pytest.approx(0.5)
    assert all(up[f"SH_mscr_step_{a}_{b}"].verdict == "consistency" for a, b in [("0", "0.001"), ("eps_min", "0.007")])
    assert up["SH_mscr_negative_at_0"].verdict == "consistency"
    down = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([0.1, 0.0, -0.1, -0.2], [0.5] * 4))}
    assert down["SH_mscr_trend"].verdict == "erratum"
    assert down["SH_mscr_negative_at_0"].verdict == "erratum"
    assert down["SH_mscr_gain_0.007"].verdict == "erratum"
    # the same steps with sd 5: bound se = 0.29 -> no step is decided
    noisy = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([-0.2, -0.1, 0.0, 0.1], [5.0] * 4))}
    assert noisy["SH_mscr_step_0_0.001"].verdict == "inconclusive"


def test_best_column_needs_to_beat_every_other_column():
    acc = np.full((4, 4), 99.0)
    acc[0] = [99.0, 99.2, 99.5, 99.49]  # best eps_min, but 0.007 only 0.01 behind
    rows = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([0, 0, 0, 0], [1] * 4, acc=acc, acc_sd=0.1))}
    best = rows["SH_best_0"]
    assert best.verdict == "inconclusive" and "least separated: 0.007" in best.description
    assert best.estimate == pytest.approx(0.01)
    # with our runs: the two cells move together in every run (rho = 1), and the note says so
    runs = np.stack([acc + d for d in (-0.1, 0.0, 0.1, 0.2)])
    cube = RunCube(np.arange(4), np.asarray([0.0, 0.001, 0.004, 0.007]), np.asarray([0.0, 0.001, 0.004, 0.007]), runs)
    rows = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([0, 0, 0, 0], [1] * 4, acc=acc), ours=cube)}
    rho = correlation_needed(0.01, [1, -1], [0.1, 0.1], 1200)
    assert f"correlate at rho > {rho:.2f}" in rows["SH_best_0"].note
    assert "over our 4 shared-offset runs: rho = 1.00" in rows["SH_best_0"].note
    acc[0, 3] = 99.3  # now 0.2 behind: se bound 0.2 / 34.6 -> decided
    rows = {r.id: r for r in record_sheet_tests(_ledger(), _sheet([0, 0, 0, 0], [1] * 4, acc=acc, acc_sd=0.1))}
    assert rows["SH_best_0"].verdict == "consistency"
    # the optimum sits at eps_min, 0.2 above the best column beyond it (0.007): the opposite is decided
    assert rows["SH_optimum_above_eps_min"].verdict == "erratum"
    assert rows["SH_optimum_above_eps_min"].estimate == pytest.approx(99.3 - 99.5)
    # "less than halving": err(0) = 1.0, err(0.007) = 0.7 > 0.5: not halved, so the reading "below half" is an
    # erratum and the reading "reduced by less than half" holds; the readings disagree (issue 60, item 2)
    assert rows["SH_error_halved.below_half"].verdict == "erratum"
    assert rows["SH_error_halved.below_half"].estimate == pytest.approx(0.5 - 0.7)
    assert rows["SH_error_halved.above_half"].verdict == "consistency"
    assert rows["SH_error_halved"].verdict == "inconclusive" and rows["SH_error_halved"].ambiguity == "mscr_halving"


# ---------------------------------------------------------------------------------- the authors' sheets
def test_authors_sheets_runs():
    b = published.load_mscr_reference_2d("B", "Linf")
    c = published.load_mscr_reference_2d("C", "L2")
    assert sheet_runs(b) == 1200  # the 1200 runs of Sec. 3.2
    assert sheet_runs(c) == 200  # the C/L2 sheet's half-widths are 1.96 std / sqrt(200)
    a = published.load_mscr_reference_2d("A", "Linf")
    rows = {r.id: r for r in record_sheet_runs(_ledger(), {"A_Linf": a, "B_Linf": b, "C_L2": c})}
    assert set(rows) == {"X_sheets_B_Linf_runs", "X_sheets_C_L2_runs"}  # A has no standard deviations
    assert rows["X_sheets_B_Linf_runs"].verdict == "consistency"
    assert rows["X_sheets_C_L2_runs"].verdict == "erratum" and rows["X_sheets_C_L2_runs"].estimate == 200


def test_authors_b_linf_sheet_decides_the_trend_not_every_step():
    ref = published.load_mscr_reference_2d("B", "Linf")
    rows = {r.id: r for r in mc.record_sheet_tests(_ledger(), ref)}
    m = np.asarray(ref["mscr"], dtype=float)
    s = np.asarray(ref["mscr_std"], dtype=float)
    w = np.arange(9) - 4.0
    trend = rows["SH_mscr_trend"]
    assert trend.estimate == pytest.approx(float(w @ m), rel=1e-5)
    assert trend.ci[0] == pytest.approx(float(w @ m - Z95 * np.abs(w) @ s / math.sqrt(1200)), rel=1e-5)
    assert trend.verdict == "consistency"
    # the first step falls (-0.126 -> -0.127 printed) and 0.007 -> 0.01 rises by 0.002: neither is decided
    assert rows["SH_mscr_step_0_0.001"].estimate == pytest.approx(m[1] - m[0], rel=1e-5) and m[1] < m[0]
    assert rows["SH_mscr_step_0_0.001"].verdict == "inconclusive"
    assert rows["SH_mscr_step_0.007_0.01"].verdict == "inconclusive"
    assert rows["SH_mscr_positive_at_0.03"].verdict == "consistency"
    # no bold cell of Table 2a is decided by the sheet without its runs' correlations
    assert {rows[f"SH_best_{e}"].verdict for e in ["0", "0.001", "0.002", "eps_min", "0.007"]} == {"inconclusive"}
    steps = [r.verdict for k, r in rows.items() if k.startswith("SH_mscr_step_")]
    assert len(steps) == 8 and steps.count("consistency") == 5 and steps.count("inconclusive") == 3
    gains = ["0.001", "0.002", "eps_min", "0.007", "0.01"]
    assert {rows[f"SH_clean_gain_{e}"].verdict for e in gains} == {"consistency"}
    assert [rows[f"SH_mscr_gain_{e}"].verdict for e in gains] == ["inconclusive"] * 2 + ["consistency"] * 3
    assert all(r.evidence == "reanalysis" and r.n_runs == 1200 for r in rows.values())
