"""The claims of notebook ``08_acr_published_certifications`` (Sun et al.): :func:`evaluate_published_certifications`
reads the notebook's result files and the published certification files and records every claim;
:func:`index_08` lists every table, figure and statement the notebook covers with the rows testing it, or the
reason none does.

The statements about the published *models* are decided here on the certification files with their sampling
error over test images (models certified on the same images are compared image by image): the best ACR of
"Ours" (:func:`record_ours_best_acr_claims`), Fig. 3 / Fig. 11 ECDFs (:func:`record_fig3_claims`,
:func:`record_fig11_claims`), large radii (Sec. 6, :func:`record_sec6_large_radius_claims`), Sec. 5.1
(:func:`record_sec51_claims`), App. B.3 (:func:`record_appb3_claims`), Sec. 7 (:func:`record_sec7_claims`) and
the ImageNet recovery (:func:`record_imagenet_recovery_claims`). The consistency rows of the authors' artefacts
are in :mod:`robeval.acr.claims_consistency`, the decision rules in :mod:`robeval.acr.claim_rules`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from robeval.acr.claim_rules import (
    LEVEL,
    NAMES,
    SIGMAS,
    best_of,
    bonferroni,
    weakest,
)
from robeval.acr.claims_consistency import (
    plugin_expectation_gaps,
    record_ablation_table_consistency,
    record_appendix_b_claims,
    record_ecdf_file_consistency,
    record_sec42_claims,
    record_table1_consistency,
    record_table2_consistency,
    record_table5_consistency,
    record_table8_consistency,
    record_table_consistency,
    record_theorem1_claims,
    record_toy_claims,
)
from robeval.acr.ecdf import ecdf_indicators
from robeval.acr.metrics import align_frames, certified_indicators, radius_contributions
from robeval.acr.published import (
    LARGE_RADIUS,
    PAPER_APPB3_STRICT_ORDERS,
    PAPER_IMAGENET_RECOVERY,
    PAPER_TABLE3,
    PAPER_TABLE4,
)
from robeval.core.ledger import ROUNDING
from robeval.core.ledger import check_ledger as _check_ledger
from robeval.core.paths import PROFILES
from robeval.core.stats import Interval, bootstrap_interval, paired_interval, proportion_interval

# --------------------------------------------------------------------------------------------
# notebook 08 — statements about the published models, with their sampling error over test images
# --------------------------------------------------------------------------------------------


# the rows of this module re-analyse the authors' certification files: one released model per (sigma, method),
# its test images a sample. A statement about training *methods* (``METHODS``) cannot be decided by one model's
# test images (the ledger makes a consistent one inconclusive); a statement about the released models (a
# description of the paper's own figures and tables, ``RELEASED``) can.
IMAGES = dict(evidence="reanalysis", unit="test images")
METHODS = dict(IMAGES, about="models")
RELEASED = dict(IMAGES, about="one model")
IMAGENET_VAL = 50_000  # ImageNet's validation images: what exists for the ImageNet rows (CIFAR-10's test set: 10,000)
_ONE_MODEL = (
    "; a claim about the training methods: one released model per method cannot decide it (>= 3 independent "
    "trainings per method would)"
)


def _paired(a, b, k: int) -> Interval:
    """Paired t-interval over test images of ``a - b`` at the Bonferroni level of a ``k``-part statement."""
    return paired_interval(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), bonferroni(k))


def _by_sigma(frames: dict) -> dict:
    out: dict = {}
    for (s, m), df in frames.items():
        out.setdefault(float(s), {})[m] = df
    return out


def _images_rule(what: str) -> str:
    return f"paired over the {what} test images certified by both models"


def record_ours_best_acr_claims(ledger, frames: dict, paper: pd.DataFrame = PAPER_TABLE3) -> None:
    """Table 3 / Sec. 6: Ours has a higher ACR than every baseline at every sigma (CIFAR-10), image by image.

    ``frames``: ``(sigma, method) -> certification DataFrame`` (the published CIFAR-10 files).
    """
    _check_ledger(ledger)
    for s, fr in _by_sigma(frames).items():
        fr = align_frames(fr)
        others = [m for m in fr if m != "ours"]
        ours = radius_contributions(fr["ours"])
        parts = [(NAMES[m], _paired(ours, radius_contributions(fr[m]), len(others))) for m in others]
        label, iv, _ = weakest(parts, direction=">")
        best = paper.xs(s, level=0).drop("ours")["ACR"]
        ledger.comparison(
            f"T3_ours_best_acr_s{s}",
            "Table 3 / Sec. 6",
            f"CIFAR-10, sigma={s}: Ours has a higher ACR than every baseline (the paper's SOTA claim)",
            interval=iv,
            direction=">",
            effect=float(paper.loc[(s, "ours"), "ACR"] - best.max()),
            comparable_at=PROFILES,
            central=True,
            note=f"decided by Ours - {label} (ACR difference, {_images_rule(str(iv.n))}; Bonferroni over "
            f"{len(others)} baselines); effect = the printed gap to the best baseline" + _ONE_MODEL,
            **METHODS,
        )


def record_fig3_claims(ledger, frames: dict, n: int, alpha: float, count_offset: int = 1, x_easy: float = 0.999):
    """Fig. 3 / Sec. 4.3 (and Fig. 6 at r=0): compared with Gaussian training, every SOTA method has fewer
    test points certified at all (``p_A >= 1/2``, i.e. more hard points) and more points with ``p_A >= x_easy``.
    """
    _check_ledger(ledger)
    for s, fr in _by_sigma(frames).items():
        fr = align_frames(fr)
        sota = [m for m in fr if m != "gaussian"]
        ind = {m: ecdf_indicators(df, s, [0.5, x_easy], n, alpha, count_offset) for m, df in fr.items()}
        hard = [(NAMES[m], _paired(ind[m][:, 0], ind["gaussian"][:, 0], len(sota))) for m in sota]
        label, iv, _ = weakest(hard, direction="<")
        ledger.comparison(
            f"F3_fewer_certified_s{s}",
            "Fig. 3 / Sec. 4.3; Fig. 6 / Sec. 6",
            f"CIFAR-10, sigma={s}: every SOTA method certifies fewer test points than Gaussian training (fewer with "
            "p_A >= 1/2: lower clean certified accuracy, robustness lost on hard inputs)",
            interval=iv,
            direction="<",
            comparable_at=PROFILES,
            central=True,
            note=f"decided by {label} - Gaussian (share of points, {_images_rule(str(iv.n))}; Bonferroni over "
            f"{len(sota)} methods)" + _ONE_MODEL,
            **METHODS,
        )
        easy = [(NAMES[m], _paired(ind[m][:, 1], ind["gaussian"][:, 1], len(sota))) for m in sota]
        label, iv, _ = weakest(easy, direction=">")
        ledger.comparison(
            f"F3_more_easy_s{s}",
            "Fig. 3 / Sec. 4.3",
            f"CIFAR-10, sigma={s}: every SOTA method has more test points with p_A >= {x_easy} than Gaussian training",
            interval=iv,
            direction=">",
            comparable_at=PROFILES,
            note=f"decided by {label} - Gaussian (share of points, {_images_rule(str(iv.n))}; Bonferroni over "
            f"{len(sota)} methods)" + _ONE_MODEL,
            **METHODS,
        )


def record_sec6_large_radius_claims(ledger, frames: dict, large_radius: dict = LARGE_RADIUS) -> None:
    """Sec. 6 / Fig. 6: at a large radius every SOTA method (Ours included) is above Gaussian training."""
    _check_ledger(ledger)
    for s, fr in _by_sigma(frames).items():
        fr = align_frames(fr)
        r = float(large_radius[s])
        sota = [m for m in fr if m != "gaussian"]
        g = certified_indicators(fr["gaussian"], [r])[:, 0]
        parts = [(NAMES[m], _paired(certified_indicators(fr[m], [r])[:, 0], g, len(sota))) for m in sota]
        label, iv, _ = weakest(parts, direction=">")
        ledger.comparison(
            f"S6_above_gaussian_large_r_s{s}",
            "Fig. 6 / Sec. 6",
            f"CIFAR-10, sigma={s}: at the large radius r={r:g} every SOTA method (Ours included) has a higher "
            "certified accuracy than Gaussian training",
            interval=iv,
            direction=">",
            comparable_at=PROFILES,
            note=f"decided by {label} - Gaussian ({_images_rule(str(iv.n))}; Bonferroni over {len(sota)} methods); "
            "r = the largest tabulated radius the budget certifies" + _ONE_MODEL,
            **METHODS,
        )


def record_fig11_claims(ledger, frames: dict, n: int, alpha: float, count_offset: int = 1) -> None:
    """Fig. 11 / App. E.2: on ImageNet, every SOTA method has more points with ``p_A < 1/2`` than Gaussian
    training (a lower ECDF at ``x = 1/2``), image by image on the images both files hold."""
    _check_ledger(ledger)
    for s, fr in _by_sigma(frames).items():
        sota = [m for m in fr if m != "gaussian"]
        if "gaussian" not in fr or not sota:
            continue
        parts = []
        for m in sota:
            pair = align_frames({"gaussian": fr["gaussian"], m: fr[m]})
            a = ecdf_indicators(pair[m], s, [0.5], n, alpha, count_offset)[:, 0]
            b = ecdf_indicators(pair["gaussian"], s, [0.5], n, alpha, count_offset)[:, 0]
            parts.append((NAMES[m], _paired(a, b, len(sota))))
        label, iv, _ = weakest(parts, direction="<")
        ledger.comparison(
            f"F11_more_hard_s{s}",
            "Fig. 11 / App. E.2",
            f"ImageNet, sigma={s}: every SOTA method has more points with p_A < 1/2 than Gaussian training",
            interval=iv,
            direction="<",
            comparable_at=PROFILES,
            note=f"decided by {label} - Gaussian (share with p_A >= 1/2, {_images_rule(str(iv.n))}; Bonferroni "
            f"over {len(sota)} methods: {', '.join(NAMES[m] for m in sota)})" + _ONE_MODEL,
            **METHODS,
        )


def record_sec51_claims(ledger, frames: dict, low: float = 0.2, high: float = 0.5) -> None:
    """Sec. 5.1: '20%-50% of data points have p_A < 0.5 after training converges on CIFAR-10' (Fig. 3), per sigma
    over the seven methods: the share of test points not certified lies within ``[low, high]``."""
    _check_ledger(ledger)
    for s, fr in _by_sigma(frames).items():
        parts = []
        for m, df in fr.items():
            k = int(len(df) - certified_indicators(df, [0.0])[:, 0].sum())
            parts.append((NAMES[m], proportion_interval(k, len(df), bonferroni(len(fr)))))
        mid, half = (low + high) / 2, (high - low) / 2
        label, iv, _ = weakest(parts, paper=mid, margin=half)
        ledger.value(
            f"S51_share_below_half_s{s}",
            "Sec. 5.1 / Fig. 3",
            f"CIFAR-10, sigma={s}: for every released model (Fig. 3), {low:.0%}-{high:.0%} of the test points have "
            "p_A < 1/2",
            paper=mid,
            margin=half,
            margin_basis=f"the paper's own range {low:.0%}-{high:.0%} (paper ± margin spans it)",
            interval=iv,
            comparable_at=PROFILES,
            **RELEASED,
            note=f"the paper's range is paper ± margin; decided by {label} (Wilson interval over the test images, "
            f"Bonferroni over {len(parts)} methods); shares: "
            + ", ".join(f"{lab} {p.estimate:.1%}" for lab, p in parts),
        )


def _ecdf_parts(ind: dict, grid_all: list, pairs, grid, k: int) -> list:
    """Paired parts ``(A - B)(x)`` for every (A, B) in ``pairs`` and x in ``grid`` (labels 'A - B at x'), from the
    per-image ECDF indicators ``ind[method]`` on ``grid_all``."""
    col = {x: grid_all.index(x) for x in grid}
    return [
        (f"{NAMES[a]} - {NAMES[b]} at x={x:g}", _paired(ind[a][:, col[x]], ind[b][:, col[x]], k))
        for a, b in pairs
        for x in grid
    ]


def _grid(x_min: float, x_max: float) -> list:
    """ECDF points tested for a statement on ``[x_min, x_max]``: steps of 0.05, plus 0.99, 0.999 and 1 when in
    range (the curves change fastest near 1)."""
    pts = list(np.round(np.arange(x_min, x_max + 1e-9, 0.05), 3)) + [0.99, 0.999, 1.0]
    return sorted({float(p) for p in pts if x_min - 1e-9 <= p <= x_max + 1e-9})


def record_appb3_claims(
    ledger, frames: dict, n: int, alpha: float, count_offset: int = 1, stated=PAPER_APPB3_STRICT_ORDERS
) -> None:
    """App. B.3, from the ECDFs of the certification files, with their sampling error over the 10 000 images:

    * 'for various sigma, Gaussian is always the best in the low region (x from 0.5 to ~0.65)', per sigma;
    * 'with sigma = ?, our model is the worst when x is below 0.75' (at some sigma);
    * the strict orders the paper lists ('A is better than B': A's ECDF above B's on all of [0.5, 1]), each group
      at some sigma (the sigmas were lost in extraction).
    """
    _check_ledger(ledger)
    by_sigma = {s: align_frames(fr) for s, fr in _by_sigma(frames).items()}
    low, grid, full = _grid(0.5, 0.65), _grid(0.5, 0.75), _grid(0.5, 1.0)
    grid_all = sorted(set(low) | set(grid) | set(full))
    ind = {
        s: {m: ecdf_indicators(df, s, grid_all, n, alpha, count_offset) for m, df in fr.items()}
        for s, fr in by_sigma.items()
    }
    for s, fr in by_sigma.items():
        pairs = [("gaussian", m) for m in fr if m != "gaussian"]
        parts = _ecdf_parts(ind[s], grid_all, pairs, low, len(pairs) * len(low))
        label, iv, _ = weakest(parts, direction=">")
        ledger.comparison(
            f"B3_gaussian_best_low_s{s}",
            "App. B.3 / Fig. 9",
            f"sigma={s}: in Fig. 9 (the released models), Gaussian's ECDF of p_A is above every other model's for x in "
            "[0.5, 0.65]",
            interval=iv,
            direction=">",
            comparable_at=PROFILES,
            note=f"decided by {label} ({_images_rule(str(iv.n))}; Bonferroni over {len(parts)} (method, x) parts)",
            **RELEASED,
        )
    options = []
    for s, fr in by_sigma.items():
        pairs = [("ours", m) for m in fr if m != "ours"]
        # "at some sigma": the sigma is chosen by the data, so every part pays for the choice too (Bonferroni over
        # the sigmas as well as the parts); a contradiction needs every sigma contradicted
        parts = _ecdf_parts(ind[s], grid_all, pairs, grid, len(pairs) * len(grid) * len(by_sigma))
        options.append((s, weakest(parts, direction="<")))
    s, (label, iv, _) = best_of(options)
    ledger.comparison(
        "B3_ours_worst_below_075",
        "App. B.3 / Fig. 9",
        "in Fig. 9 (the released models), at some sigma (lost in extraction), Ours' ECDF of p_A is below every other "
        "model's for x in [0.5, 0.75]",
        interval=iv,
        direction="<",
        comparable_at=PROFILES,
        note=f"best sigma: {s}; decided by {label} ({_images_rule(str(iv.n))}; Bonferroni over the (method, x) "
        "parts and the sigmas); per sigma: " + ", ".join(f"{o[0]}: {o[1][2]}" for o in options),
        **RELEASED,
    )
    for i, group in enumerate(stated):
        options = []
        for s in by_sigma:
            parts = _ecdf_parts(ind[s], grid_all, list(group), full, len(group) * len(full) * len(by_sigma))
            options.append((s, weakest(parts, direction=">")))
        s, (label, iv, _) = best_of(options)
        ledger.comparison(
            f"B3_strict_orders_{i + 1}",
            "App. B.3 / Fig. 9",
            "in Fig. 9 (the released models), at some sigma (lost in extraction): "
            + ", ".join(f"{NAMES[a]} better than {NAMES[b]}" for a, b in group)
            + " (ECDF above on all of x in [0.5, 1])",
            interval=iv,
            direction=">",
            comparable_at=PROFILES,
            note=f"best sigma: {s}; decided by {label} ({_images_rule(str(iv.n))}; Bonferroni over the (pair, x) "
            "parts and the sigmas); per sigma: " + ", ".join(f"{o[0]}: {o[1][2]}" for o in options),
            **RELEASED,
        )


def record_sec7_claims(ledger, frames: dict, sigmas=SIGMAS) -> None:
    """Sec. 7 on the CIFAR-10 files: models certified with a smaller sigma have a higher certified accuracy at
    small radii (r=0, every method, every adjacent pair of sigmas), and — from Sec. 4.3 — Gaussian training has
    the highest best-over-sigma certified accuracy at r=0."""
    _check_ledger(ledger)
    methods = list(dict.fromkeys(m for _, m in frames))
    aligned = align_frames({k: frames[k] for k in frames if k[0] in sigmas})
    cert0 = {k: certified_indicators(df, [0.0])[:, 0] for k, df in aligned.items()}
    pairs = [(m, a, b) for m in methods for a, b in zip(sigmas, sigmas[1:])]
    parts = [
        (f"{NAMES[m]} sigma={a} - sigma={b}", _paired(cert0[(a, m)], cert0[(b, m)], len(pairs))) for m, a, b in pairs
    ]
    label, iv, _ = weakest(parts, direction=">")
    ledger.comparison(
        "S7_smaller_sigma_higher_r0",
        "Sec. 7",
        "'models certified with smaller sigma tend to achieve higher certified accuracy at smaller radii': at r=0 "
        "for every method and every pair of adjacent sigmas",
        interval=iv,
        direction=">",
        comparable_at=PROFILES,
        note=f"decided by {label} ({_images_rule(str(iv.n))}; Bonferroni over {len(parts)} parts)" + _ONE_MODEL,
        **METHODS,
    )
    best = {}
    for m in methods:
        accs = {s: cert0[(s, m)].mean() for s in sigmas}
        best[m] = max(accs, key=accs.get)
    others = [m for m in methods if m != "gaussian"]
    parts = [
        (
            f"{NAMES[m]} (sigma={best[m]})",
            _paired(cert0[(best["gaussian"], "gaussian")], cert0[(best[m], m)], len(others)),
        )
        for m in others
    ]
    label, iv, _ = weakest(parts, direction=">")
    ledger.comparison(
        "S7_gaussian_best_r0",
        "Sec. 7 / Sec. 4.3",
        "best certified accuracy across sigma at r=0: Gaussian training is above every other method",
        interval=iv,
        direction=">",
        comparable_at=PROFILES,
        note=f"Gaussian (sigma={best['gaussian']}) minus {label}, {_images_rule(str(iv.n))}; Bonferroni over "
        f"{len(others)} methods" + _ONE_MODEL,
        **METHODS,
    )


def _recovery(ours, gauss, *bases):
    best = max(b.mean() for b in bases)
    return 100 * (ours.mean() - gauss.mean()) / (best - gauss.mean())


def record_imagenet_recovery_claims(
    ledger, frames: dict, printed: pd.DataFrame = PAPER_TABLE4, paper: dict = PAPER_IMAGENET_RECOVERY, margin=10.0
) -> None:
    """Sec. 6 (ImageNet): the share of the best baseline's ACR gain over Gaussian that Ours recovers.

    Two rows per sigma: the text's arithmetic on the printed Table 4 (consistency), and the share recomputed
    from the certification files with a percentile bootstrap over the test images all files share (a value
    row: ``margin`` = 10 points, the paper reads 85% and 96.5% alike as 'a large portion').
    """
    _check_ledger(ledger)
    for s, share in paper.items():
        t = printed.xs(s, level=0)["ACR"]
        base = t.drop(["gaussian", "ours"])
        text = 100 * (t["ours"] - t["gaussian"]) / (base.max() - t["gaussian"])
        ledger.consistency(
            f"S6_imagenet_recovery_text_s{s}",
            "Sec. 6 / Table 4",
            f"ImageNet sigma={s}: the printed share of the ACR advance recovered by Ours equals the arithmetic on "
            "the printed Table 4",
            discrepancy=float(text - share),
            noise=0.05 + 1e-9,
            noise_basis=ROUNDING,  # the share printed in the text is arithmetic on the printed Table 4
            check="|(Ours - Gaussian) / (best baseline - Gaussian) from Table 4 - printed share| against the printed "
            "rounding 0.05",
            paper=share,
            estimate=round(float(text), 2),
            evidence="reanalysis",
        )
        fr = align_frames({m: frames[(s, m)] for m in t.index if (s, m) in frames})
        contrib = np.column_stack([radius_contributions(fr[m]) for m in fr])
        names = list(fr)
        gi, oi = names.index("gaussian"), names.index("ours")
        bi = [i for i in range(len(names)) if i not in (gi, oi)]
        iv = bootstrap_interval(
            lambda c, oi=oi, gi=gi, bi=bi: _recovery(c[:, oi], c[:, gi], *(c[:, i] for i in bi)),
            contrib,
            level=LEVEL,
            n_boot=2000,
            seed=0,
        )
        ledger.value(
            f"S6_imagenet_recovery_s{s}",
            "Sec. 6 / Table 4",
            f"ImageNet sigma={s}: the released Ours model recovers {share}% of the best released baseline's ACR "
            "advance over the released Gaussian model",
            paper=share,
            margin=margin,
            margin_basis="the paper reads 85.2% and 96.5% alike as 'a large portion'",
            interval=iv,
            comparable_at=PROFILES,
            **RELEASED,
            available=IMAGENET_VAL,
            note=f"recomputed from the certification files on the {len(contrib)} images all of them hold; bootstrap "
            "over those images; margin: the paper reads 85.2% and 96.5% alike as 'a large portion'",
        )


# --------------------------------------------------------------------------------------------
# notebook 08 — everything, from its result files
# --------------------------------------------------------------------------------------------


def evaluate_published_certifications(ledger, cfg, out_dir) -> None:
    """Record every claim of notebook 08 from its result files (``out_dir``) and the published files.

    Reads ``table3_recomputed.csv``, ``table3_comparison.csv``, ``table4_comparison.csv``,
    ``ecdf_vs_published.csv``, ``appendixB_curves.csv``, ``theorem1.csv``, ``toy_example.csv`` and
    ``toy_scan.csv``; the per-image statements read the authors' certification files themselves (inputs,
    sha256-verified), so this runs without the notebook's compute cells.

    Parameters
    ----------
    ledger : robeval.core.ledger.Ledger
    cfg : robeval.core.profiles.Settings
        The resolved ``acr_published_certifications`` settings.
    out_dir : path
        The notebook's result folder.
    """
    from robeval.acr import ecdf, published, theory
    from robeval.core.io import load_frame

    _check_ledger(ledger)
    out = Path(out_dir)
    t3 = load_frame(out / "table3_recomputed.csv").set_index(["sigma", "method"])
    cmp3, cmp4 = load_frame(out / "table3_comparison.csv"), load_frame(out / "table4_comparison.csv")
    # the printing convention is read once per table (issue 60, item 4)
    record_table_consistency(ledger, "T3", "Table 3", cmp3)
    record_table_consistency(ledger, "T4", "Table 4", cmp4)
    record_table8_consistency(ledger, t3)
    record_table5_consistency(ledger)
    record_table2_consistency(ledger)
    record_table1_consistency(ledger)
    record_ablation_table_consistency(ledger)
    record_ecdf_file_consistency(ledger, load_frame(out / "ecdf_vs_published.csv"), cfg.ecdf_tol)

    frames_c10 = published.published_frames("cifar10")
    frames_in = published.published_frames("imagenet")
    ecdfs_pub = published.published_ecdfs()
    curves_b = load_frame(out / "appendixB_curves.csv")
    excess = ecdf.appendix_b_grid_excess(curves_b, ecdfs_pub, cfg.appb_methods, cfg.appb_sigma, cfg.n)
    e = ecdfs_pub[(cfg.appb_sigma, "ours")]
    round_trip = ecdf.appendix_b_round_trip(e.x, e.y, cfg.appb_n, cfg.appb_alpha, cfg.appb_sigma)
    radii_b = np.sort(curves_b.radius.unique())
    more = plugin_expectation_gaps(
        ecdfs_pub, cfg.appb_methods, cfg.appb_sigma, radii_b, cfg.appb_readings, cfg.appb_alpha
    )
    record_appendix_b_claims(ledger, curves_b, excess, round_trip, cfg.ecdf_tol, more)
    record_sec42_claims(ledger, frames_c10, cfg.n, cfg.alpha, theory.fig2_points(cfg.n, cfg.alpha))
    record_theorem1_claims(ledger, load_frame(out / "theorem1.csv"))
    scan = load_frame(out / "toy_scan.csv")
    plugin_scan = theory.budget_toy_example(
        cfg.toy_p, scan.N.to_numpy(), cfg.toy_sigma, cfg.toy_alpha, mode="plugin"
    )  # closed forms, cheap: the plug-in reading of the toy example on the scanned budgets
    record_toy_claims(ledger, theory.toy_order_summary(load_frame(out / "toy_example.csv"), scan), scan, plugin_scan)

    n, alpha, off = cfg.n, cfg.alpha, cfg.count_offset
    record_ours_best_acr_claims(ledger, frames_c10)
    record_fig3_claims(ledger, frames_c10, n, alpha, off)
    record_sec6_large_radius_claims(ledger, frames_c10)
    record_sec51_claims(ledger, frames_c10)
    record_appb3_claims(ledger, frames_c10, n, alpha, off)
    record_sec7_claims(ledger, frames_c10)
    record_fig11_claims(ledger, frames_in, n, alpha, off)
    record_imagenet_recovery_claims(ledger, frames_in)


def index_08() -> list:
    """Notebook 08's part of the claims index: every table, figure and statement of the paper about the
    published certifications, the printed tables and the closed forms, with the rows that test it or why none
    does (:meth:`robeval.core.ledger.Ledger.cover`)."""
    return [
        {
            "source": "Table 1 / Sec. 2",
            "statement": "literature review: 13 works; 10 customise the model and claim SOTA; 8 of them use ACR; "
            "7 claim SOTA on ACR alone",
            "claims": ["T1_counts"],
        },
        {
            "source": "Table 2",
            "statement": "gradient norms of easy and hard inputs: the ratio column, the ACR column (Table 3), "
            "'SOTA algorithms put more weight on easy samples than Gaussian training (4.28 for CAT-RS vs 0.45)'",
            "claims": ["T2_ratio_column", "T2_acr_vs_T3", "T2_sota_heavier"],
        },
        {
            "source": "Table 2 (SOTA rows)",
            "statement": "the gradient norms of SmoothAdv, Consistency, SmoothMix and CAT-RS models, and the CAT-RS / "
            "Gaussian ratio of 4.28 / 0.45",
            "reason": "needs the SOTA methods' trained models (only their certification files are published) and "
            "their training code; notebook 09 measures the Gaussian row on our own models",
        },
        {
            "source": "Table 3",
            "statement": "ACR and certified accuracy of seven methods on CIFAR-10, as printed, against the authors' "
            "certification files",
            "claims": ["T3_acr_*", "T3_acc_*"],
        },
        {
            "source": "Table 3 / Sec. 6",
            "statement": "'our method consistently outperforms all baselines on ACR' (the new SOTA on CIFAR-10)",
            "claims": ["T3_ours_best_acr_s*"],
        },
        {
            "source": "Table 4",
            "statement": "ACR and certified accuracy on ImageNet (every 100th validation image), as printed, against "
            "the authors' files (four of which hold 427 of the 500 images)",
            "claims": ["T4_acr_*", "T4_acc_*"],
        },
        {
            "source": "Sec. 6 / Table 4",
            "statement": "Ours recovers 94.6%, 96.5% and 85.2% of the best baseline's ACR advance over Gaussian on "
            "ImageNet ('a large portion')",
            "claims": ["S6_imagenet_recovery_*"],
        },
        {
            "source": "Table 5 / Sec. 6 (ablation)",
            "statement": "at every sigma: each component alone raises ACR; each pair beats its components; all three "
            "give the best ACR; they mostly lower small-radius and raise large-radius certified accuracy; the "
            "Gaussian and all-three rows repeat Table 3 (our own training runs: notebook 09)",
            "claims": ["T5_rows_vs_T3_s*", "T5_text_*"],
        },
        {
            "source": "Table 6 / Table 7",
            "statement": "the tuned hyper-parameters on CIFAR-10 and ImageNet",
            "reason": "settings, not results: notebook 09's paper profile uses Table 6; ImageNet is not trained",
        },
        {
            "source": "Table 8 (App. E.1)",
            "statement": "mean ± std over three seeds of Ours; the published run lies within them",
            "claims": ["T8_ours_s*"],
        },
        {
            "source": "Table 8 (App. E.1)",
            "statement": "'the standard deviation is relatively small, confirming the stability of our results'",
            "reason": "needs three trained ResNet-110 runs of Ours per sigma (only one run's certification is "
            "published); notebook 09 measures seed-to-seed spread of its own scaled runs",
        },
        {
            "source": "Tables 9-14 (App. D, E.4)",
            "statement": "ablations of T, p0, eta, K (L2 and Linf attack): the Table 6 rows, the best settings and "
            "the paragraphs' trade-offs",
            "claims": ["T9_*", "T10_*", "T11_*", "T12_*", "T13_T14_shared_row", "D1_*", "D2_*", "E4_*"],
        },
        {
            "source": "Tables 9-14 (App. D, E.4)",
            "statement": "the ablation runs themselves",
            "reason": "no certification files of these runs are published and each is a ResNet-110 training of "
            "150 epochs on CIFAR-10 (GPU-days)",
        },
        {
            "source": "App. E.3",
            "statement": "the share of training data kept after discarding at each sigma (numbers lost in "
            "extraction); larger sigma discards more",
            "reason": "the numbers were lost in the text extraction and no training logs are published; notebook "
            "09 reports its own kept shares",
        },
        {
            "source": "Theorem 1 / Sec. 4.1",
            "statement": "a trivial classifier has arbitrarily large ACR given a large enough budget",
            "claims": ["THM1_unbounded_acr"],
        },
        {
            "source": "Theorem 2 / Sec. 5.3",
            "statement": "noise of the same norm has the same isotropic Gaussian density",
            "reason": "a property of the isotropic Gaussian density (A.2); the attack's norm preservation is "
            "unit-tested (tests/acr/test_rs_training.py)",
        },
        {
            "source": "Sec. 4.1 / 4.2 (toy example)",
            "statement": "the ACR order of a trivial and a constant-p_A classifier flips twice with the budget, and "
            "the trivial one wins for ever beyond some budget",
            "claims": ["S41_toy_order_flips*", "S42_toy_trivial_forever"],
        },
        {
            "source": "Sec. 1 / 4.2 / Fig. 2",
            "statement": "an improvement on easy inputs contributes more than 1000x as much ACR as on hard inputs; "
            "the largest certifiable radius of N=1e5, alpha=0.001",
            "claims": ["S42_easy_1000x", "S42_max_radius_files"],
        },
        {
            "source": "Sec. 4.2",
            "statement": "raising p_A from 0.999 to 0.9999 gains as much radius as raising it from 0.5 to [lost]",
            "reason": "the numbers were lost in the text extraction; the notebook prints the closed form's values "
            "(robeval.acr.theory.radius_gain_equivalent)",
        },
        {
            "source": "Fig. 3 / Sec. 4.3; Fig. 6 / Sec. 6",
            "statement": "all SOTA methods reduce the accuracy on hard inputs (fewer points with p_A >= 1/2 than "
            "Gaussian training) and gain on easy ones (more points with p_A near 1)",
            "claims": ["F3_fewer_certified_s*", "F3_more_easy_s*"],
        },
        {
            "source": "Fig. 6 / Sec. 6",
            "statement": "at large radii every SOTA method (including Ours) outperforms Gaussian training",
            "claims": ["S6_above_gaussian_large_r_s*"],
        },
        {
            "source": "Sec. 5.1 / Fig. 3",
            "statement": "20%-50% of data points have p_A < 0.5 after training converges on CIFAR-10",
            "claims": ["S51_share_below_half_s*"],
        },
        {
            "source": "Fig. 9 (data)",
            "statement": "the published ECDF files of p_A are those of the certification files",
            "claims": ["F9_ecdf_files_s*"],
        },
        {
            "source": "Fig. 11 / App. E.2",
            "statement": "on ImageNet, SOTA methods have more samples with p_A below 0.5 than Gaussian training",
            "claims": ["F11_more_hard_s*"],
        },
        {
            "source": "App. B.1 / B.2 / Figs. 7-8",
            "statement": "certified accuracy under another budget from the ECDF alone (the expected value); and back "
            "from a certified-accuracy curve to the ECDF",
            "claims": ["B1_*", "B2_round_trip"],
        },
        {
            "source": "App. B.1 (worked example)",
            "statement": "the minimum n_A and p_A for the example radius under the cheap budget and Ours' expected "
            "certified accuracy there",
            "reason": "the budget, radius and results were lost in the text extraction; the notebook prints them "
            "for its own choice of budget (appb_n, appb_alpha, appb_example_radius)",
        },
        {
            "source": "App. B.3 / Fig. 9",
            "statement": "Gaussian is the best in the low-p_A region (0.5 to ~0.65) for every sigma; Ours is the "
            "worst below x ~ 0.75 at one sigma; the listed strict orders",
            "claims": ["B3_*"],
        },
        {
            "source": "Sec. 7",
            "statement": "smaller sigma gives higher certified accuracy at small radii; report the best certified "
            "accuracy across sigma (Gaussian training is best at r=0)",
            "claims": ["S7_*"],
        },
        {
            "source": "Sec. 7",
            "statement": "'models certified with larger sigma usually have higher certified accuracy at larger radii'",
            "reason": "hedged ('usually'): no rule decides it; the best-over-sigma table shows where it holds",
        },
    ]
