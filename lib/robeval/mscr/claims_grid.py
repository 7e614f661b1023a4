"""Claims about the accuracy matrix of one grid (eps_train x eps_test, Algorithm 1): the paper's
statements on the MSCR and on where the best training noise lies (Secs. 4 and 5.6, Figs. 4-7).

Each ``record_*`` function takes a :class:`robeval.mscr.claim_stats.RunCube` of our runs (and the published
matrix where a statement compares with it): the MSCR trend over eps_train (:func:`record_mscr_trend`), its
steps and sign (:func:`record_mscr_steps`, :func:`record_mscr_sign`), the overall best cell
(:func:`record_max_overall`), optima above / below the diagonal (:func:`record_diagonal`), the robustness
trends (:func:`record_robustness_trends`), accuracy and MSCR gains of training noise (:func:`record_gains`)
and the optimum against eps_min (:func:`record_optimum_vs_eps_min`). Notebook 01
(:mod:`robeval.mscr.claims_2d`) records them all; notebook 02 (:mod:`robeval.mscr.claims_cifar`) records the
trend, maximum, diagonal and gains on CIFAR-10.
"""

from __future__ import annotations

import numpy as np

from robeval.mscr.claim_stats import (
    RUNS,
    RunCube,
    best_vs_runner_up,
    fix_single,
    group_contrast,
    level_name,
    mean_iv,
    paired_stats,
    pick_rows,
    pooled_contrast,
    run_labels,
    sides_of,
    spearman_rho,
    steady_rise_interval,
    trend_test,
)

HALVING = "mscr_halving"  # the ambiguity key of "less than halving" (robeval.core.ledger.ambiguities)


def record_mscr_trend(
    ledger,
    cube: RunCube,
    eps_min: float,
    ref_mscr,
    ref_eps_train,
    *,
    n_boot: int,
    cid: str = "S4_mscr_increases",
    label: str = "",
    source: str = "Sec. 4 / Table 2a",
    description: str = "",
    central: bool = True,
    comparable_at=RUNS,
    labels: dict | None = None,
) -> list:
    """Sec. 4: MSCR increases with eps_train — the Spearman correlation between eps_train and the MSCR, with an
    interval over runs valid at their number (:func:`robeval.mscr.claim_stats._trend`: a percentile bootstrap
    of the mean curve's rho from 10 runs on, else a t-interval over the per-run rho); effect = the published
    row's own Spearman rho. ``source`` / ``description`` name the table the row tests (2D: Table 2a). The trend
    over training noise of one model family is not a comparison of training methods (``about="models"``: the runs are independent trainings).
    """
    lab = run_labels({"about": "models", **(labels or {})})
    M = cube.mscr(eps_min)
    rm = np.asarray(ref_mscr, dtype=np.float64)[pick_rows(ref_eps_train, cube.eps_train)]
    rho_paper = spearman_rho(cube.eps_train, rm)
    return [
        fix_single(
            ledger.comparison(
                cid,
                source,
                description or f"MSCR increases with eps_train{label}",
                interval=trend_test(cube.eps_train, M, n_boot),
                kind="trend",
                effect=rho_paper,
                central=central,
                comparable_at=comparable_at,
                **lab,
                note=f"the published row has Spearman rho = {rho_paper:.3f}",
            )
        )
    ]


def record_mscr_steps(
    ledger, cube: RunCube, eps_min: float, ref_mscr, ref_eps_train, comparable_at=RUNS, labels: dict | None = None
) -> list:
    """Table 2 caption ('constant increase'): every step between neighbouring eps_train columns raises the MSCR
    (paired over runs; effect = the published step)."""
    lab = run_labels(labels)
    M = cube.mscr(eps_min)
    rm = np.asarray(ref_mscr, dtype=np.float64)[pick_rows(ref_eps_train, cube.eps_train)]
    out = []
    for j in range(1, len(cube.eps_train)):
        a, b = level_name(cube.eps_train[j - 1], eps_min), level_name(cube.eps_train[j], eps_min)
        out.append(
            fix_single(
                ledger.comparison(
                    f"S4_mscr_step_{a}_{b}",
                    "Table 2 caption",
                    f"MSCR rises from eps_train = {a} to {b}",
                    interval=paired_stats(M[:, j], M[:, j - 1]),
                    effect=float(rm[j] - rm[j - 1]),
                    comparable_at=comparable_at,
                    **lab,
                    note="paired over runs; effect = the published step",
                )
            )
        )
    return out


def record_mscr_sign(
    ledger,
    cube: RunCube,
    eps_min: float,
    ref_mscr,
    ref_eps_train,
    *,
    low: float,
    high: float,
    prefix: str = "S4",
    source: str = "Sec. 4",
    comparable_at=RUNS,
    labels: dict | None = None,
) -> list:
    """Sec. 4: MSCR < 0 at eps_train = ``low`` and > 0 at eps_train = ``high`` (t-intervals over runs)."""
    lab = run_labels(labels)
    M = cube.mscr(eps_min)
    rm = np.asarray(ref_mscr, dtype=np.float64)
    jr = pick_rows(ref_eps_train, cube.eps_train)
    jl, jh = cube.col(low), cube.col(high)
    return [
        fix_single(
            ledger.comparison(
                f"{prefix}_mscr_negative_at_{low:g}",
                source,
                f"MSCR < 0 for eps_train = {low:g}",
                interval=mean_iv(M[:, jl]),
                direction="<",
                effect=float(rm[jr[jl]]),
                comparable_at=comparable_at,
                **lab,
            )
        ),
        fix_single(
            ledger.comparison(
                f"{prefix}_mscr_positive_at_{high:g}" if prefix == "S4" else f"{prefix}_mscr_positive",
                source,
                f"MSCR > 0 for eps_train = {high:g}",
                interval=mean_iv(M[:, jh]),
                direction=">",
                effect=float(rm[jr[jh]]),
                comparable_at=comparable_at,
                **lab,
            )
        ),
    ]


def record_max_overall(
    ledger,
    cube: RunCube,
    eps_min: float,
    ref_acc,
    ref_eps_train,
    ref_eps_test,
    *,
    cid: str = "S4_max_overall",
    source: str = "Sec. 4",
    comparable_at=RUNS,
    labels: dict | None = None,
) -> list:
    """Sec. 4: the published cell of maximal accuracy (over the whole matrix) beats our best other cell
    (paired over runs); effect = the published gap to the second-best cell."""
    lab = run_labels(labels)
    ra = np.asarray(ref_acc, dtype=np.float64)[
        np.ix_(pick_rows(ref_eps_test, cube.eps_test), pick_rows(ref_eps_train, cube.eps_train))
    ]
    flat = ra.reshape(-1)
    kb = int(np.argmax(flat))
    srt = np.sort(flat)
    runs = cube.acc.reshape(len(cube.acc), -1)
    iv, r = best_vs_runner_up(runs, kb)
    ib, jb = divmod(kb, ra.shape[1])
    ir, jr = divmod(r, ra.shape[1])
    name = lambda i, j: (
        f"(eps_test {level_name(cube.eps_test[i], eps_min)}, eps_train {level_name(cube.eps_train[j], eps_min)})"
    )
    return [
        fix_single(
            ledger.comparison(
                cid,
                source,
                f"the maximal accuracy is at {name(ib, jb)} (vs our runner-up {name(ir, jr)})",
                interval=iv,
                effect=float(srt[-1] - srt[-2]),
                paper=f"maximum at {name(ib, jb)}",
                comparable_at=comparable_at,
                **lab,
                note="paired difference over runs; effect = the published gap to the second-best cell",
            )
        )
    ]


def record_diagonal(
    ledger,
    cube: RunCube,
    eps_min: float,
    *,
    low_rows,
    high_rows,
    prefix: str = "S4",
    source: str = "Sec. 4 / 5.6",
    comparable_at=RUNS,
    central: bool = True,
    labels: dict | None = None,
) -> list:
    """Sec. 4 / 5.6, optima off the diagonal. For every row of ``low_rows`` the best column with eps_train >
    eps_test beats the best column with eps_train <= eps_test; for ``high_rows`` the best column with eps_train <
    eps_test beats the best with eps_train >= eps_test (paired over runs), per row and pooled (per-run mean of
    the rows' differences)."""
    lab = run_labels(labels)
    out = []
    for rows, above, tag, text in (
        (low_rows, True, "offdiag_low", "the best eps_train is above eps_test"),
        (high_rows, False, "below_diag_high", "the best eps_train is below eps_test"),
    ):
        if not len(rows):
            continue
        pooled, (e_r, a_r, b_r) = pooled_contrast(cube, rows, above)
        out.append(
            fix_single(
                ledger.comparison(
                    f"{prefix}_{tag}",
                    source,
                    f"{text} for every eps_test in {{{', '.join(level_name(e, eps_min) for e in rows)}}}",
                    interval=pooled,
                    central=central,
                    comparable_at=comparable_at,
                    **lab,
                    note=f"every row must hold: the weakest row decides (here eps_test = {level_name(e_r, eps_min)}, "
                    f"eps_train = {level_name(a_r, eps_min)} vs {level_name(b_r, eps_min)}); each row's best columns "
                    "chosen from our runs and corrected for the choice, a contradiction in some row Bonferroni over "
                    "the rows (robeval.core.stats.rows_contrast_interval)",
                )
            )
        )
        for e in rows:
            up, down = sides_of(cube, e, above)
            iv, a, b = group_contrast(cube.acc[:, cube.row(e), :], up, down)
            out.append(
                fix_single(
                    ledger.comparison(
                        f"{prefix}_{tag}_{level_name(e, eps_min)}",
                        source,
                        f"eps_test = {level_name(e, eps_min)}: {text} (deciding pair: eps_train = "
                        f"{level_name(cube.eps_train[a], eps_min)} vs {level_name(cube.eps_train[b], eps_min)})",
                        interval=iv,
                        comparable_at=comparable_at,
                        note="the best column on each side chosen from our runs, corrected for the choice "
                        "(intersection-union / Bonferroni, robeval.core.stats.best_contrast_interval)",
                        **lab,
                    )
                )
            )
    return out


def record_robustness_trends(
    ledger, cube: RunCube, eps_min: float, *, n_boot: int, comparable_at=RUNS, labels: dict | None = None
) -> list:
    """Sec. 5.2: "the steady robustness increase for higher eps_train also holds for other levels of testing noise"
    — for every eps_test other than 0 and eps_min, the relative accuracy change (acc(eps_test) − clean) / clean
    (in % of the clean accuracy) rises at every step of eps_train: the weakest neighbouring step decides
    (:func:`robeval.mscr.claim_stats.steady_rise_interval`; issue 60, item 5: a positive rank correlation alone
    would call a curve that falls at some step "steady"). The rank correlation is kept in the note. ``n_boot``
    sizes that correlation's bootstrap."""
    lab = run_labels(labels)
    i0 = cube.row(0.0)
    out = []
    for i, e in enumerate(cube.eps_test):
        if i == i0 or np.isclose(e, eps_min, rtol=1e-6):
            continue
        rel = 100 * (cube.acc[:, i, :] - cube.acc[:, i0, :]) / cube.acc[:, i0, :]
        iv, j = steady_rise_interval(rel)
        rho = trend_test(cube.eps_train, rel, n_boot).estimate
        step = f"eps_train {level_name(cube.eps_train[j], eps_min)} -> {level_name(cube.eps_train[j + 1], eps_min)}"
        out.append(
            fix_single(
                ledger.comparison(
                    f"S52_robustness_trend_{level_name(e, eps_min)}",
                    "Sec. 5.2",
                    f"the relative accuracy change at eps_test = {level_name(e, eps_min)} rises steadily with "
                    "eps_train (at every step)",
                    interval=iv,
                    comparable_at=comparable_at,
                    note=f"every step must rise: the weakest decides (here {step}, in % of the clean accuracy); a "
                    f"fall at some step, Bonferroni over the {cube.acc.shape[2] - 1} steps, contradicts; Spearman rho "
                    f"of the mean curve {rho:.3f}",
                    **lab,
                )
            )
        )
    return out


def record_gains(
    ledger,
    cube: RunCube,
    eps_min: float,
    ref_acc_clean,
    ref_mscr,
    ref_eps_train,
    levels,
    *,
    prefix: str = "F6a",
    source: str = "Fig. 6a / Sec. 4",
    central_level: float | None = None,
    comparable_at=RUNS,
    labels: dict | None = None,
) -> list:
    """Fig. 6: for every eps_train in ``levels`` both the clean accuracy and the MSCR beat eps_train = 0
    (paired over runs); effect = the published difference."""
    lab = run_labels(labels)
    M = cube.mscr(eps_min)
    i0, j0 = cube.row(0.0), cube.col(0.0)
    jr = dict(zip(range(len(cube.eps_train)), pick_rows(ref_eps_train, cube.eps_train)))
    rc = np.asarray(ref_acc_clean, dtype=np.float64)
    rm = np.asarray(ref_mscr, dtype=np.float64)
    out = []
    for e in levels:
        j = cube.col(e)
        name = level_name(e, eps_min)
        central = central_level is not None and np.isclose(e, central_level)
        out.append(
            fix_single(
                ledger.comparison(
                    f"{prefix}_clean_gain_{name}",
                    source,
                    f"clean accuracy: eps_train = {name} beats eps_train = 0",
                    interval=paired_stats(cube.acc[:, i0, j], cube.acc[:, i0, j0]),
                    effect=float(rc[jr[j]] - rc[jr[j0]]),
                    central=central,
                    comparable_at=comparable_at,
                    **lab,
                    note="paired over runs; effect = the published difference",
                )
            )
        )
        out.append(
            fix_single(
                ledger.comparison(
                    f"{prefix}_mscr_gain_{name}",
                    source,
                    f"MSCR: eps_train = {name} beats eps_train = 0",
                    interval=paired_stats(M[:, j], M[:, j0]),
                    effect=float(rm[jr[j]] - rm[jr[j0]]),
                    central=central,
                    comparable_at=comparable_at,
                    **lab,
                    note="paired over runs; effect = the published difference",
                )
            )
        )
    return out


def record_optimum_vs_eps_min(
    ledger, cube: RunCube, eps_min: float, ref_acc_clean, ref_eps_train, comparable_at=RUNS, labels: dict | None = None
) -> list:
    """Sec. 5.4: the clean-accuracy optimum lies above eps_min — best column with eps_train > eps_min minus best
    column with eps_train <= eps_min, clean row, paired over runs; and the clean error at eps_train = 0.007 is
    less than half the error at eps_train = 0."""
    lab = run_labels(labels)
    i0 = cube.row(0.0)
    up = [j for j, t in enumerate(cube.eps_train) if t > eps_min * (1 + 1e-9)]
    down = [j for j, t in enumerate(cube.eps_train) if t <= eps_min * (1 + 1e-9)]
    iv, ia, ib = group_contrast(cube.acc[:, i0, :], up, down)
    rc = np.asarray(ref_acc_clean, dtype=np.float64)[pick_rows(ref_eps_train, cube.eps_train)]
    eff = float(rc[up].max() - rc[down].max())
    j0, j7 = cube.col(0.0), cube.col(0.007)
    err0, err7 = 100 - cube.acc[:, i0, j0], 100 - cube.acc[:, i0, j7]

    def halving(lg, sign):
        # "less than halving the classification error": under each reading (robeval.core.ledger.ambiguities,
        # mscr_halving) the claimed side of error(0) / 2 − error(0.007)
        side = "below" if sign > 0 else "above"
        return [
            fix_single(
                lg.comparison(
                    "S54_error_halved",
                    "Sec. 5.4",
                    f"clean error at eps_train = 0.007 lies {side} half the error at 0 (reading '{side}_half' of "
                    "'less than halving the classification error')",
                    interval=paired_stats(err0 / 2, err7) if sign > 0 else paired_stats(err7, err0 / 2),
                    effect=float(sign * ((100 - rc[j0]) / 2 - (100 - rc[j7]))),
                    comparable_at=comparable_at,
                    depends=(HALVING,),
                    **lab,
                    note=f"paired over runs: {'error(0) / 2 − error(0.007)' if sign > 0 else 'error(0.007) − error(0) / 2'}"
                    " > 0",
                )
            )
        ]

    return [
        fix_single(
            ledger.comparison(
                "S54_optimum_above_eps_min",
                "Sec. 5.4",
                f"the best clean accuracy is reached above eps_min (eps_train = "
                f"{level_name(cube.eps_train[ia], eps_min)} vs {level_name(cube.eps_train[ib], eps_min)})",
                interval=iv,
                effect=eff,
                comparable_at=comparable_at,
                **lab,
                note="paired over runs; effect = the published difference",
            )
        ),
        *ledger.under_readings(HALVING, {"below_half": 1.0, "above_half": -1.0}, halving),
    ]
