"""Claims of Mintun, Kirillov & Xie 2021 recorded by notebook 03 (MSD, the augmentation powerset, Fig. 2b).

:func:`robeval.msd.claims_parts.evaluate_msd_powerset` reads the notebook's result files and records every claim
through the ``record_*`` functions below, which take the result tables and are tested on hand-made inputs. :data:`INDEX_03`
lists every statement of Sections 3-4 and Appendices A-B a reproduction could test, with the claim ids that
test it or the reason none does.

Uncertainty (95 %, :mod:`robeval.msd.claim_stats`): a percentile bootstrap over augmentation schemes for the
powerset statistics (Sec. 4.2, App. A/B, Figs. 4, 5; unit "schemes": they share one base network and every
scheme adapts its batch-norm statistics, or trains, on its own seeded draws), a Welch / one-sample t-interval
over the nine single-op schemes of Fig. 1 (too few for a bootstrap); for Fig. 2b t-intervals over independent
fine-tuning runs (errors) and independent draws of the augmentation samples (distances, unit "Monte-Carlo
repetitions"). App. B's count statistic, a statement about models, is one number per base network: with at least
:data:`MIN_BASES` independently trained base networks (``n_bases``) it gets a t-interval over them (unit "base
networks", :func:`appb_bases_row`); with fewer, the bootstrap over one network's schemes, which cannot decide it.

Evidence: every row is our own experiment (``replication``, recorded as ``scaled replication`` under a scaled
profile with the notebook's ``mechanism`` from the settings) except ``Fig2b_mmd_linear``, which holds by the
linearity of the mean (``derivation``). Rows whose mechanism does not survive say why (``survives=False``): the
App. B MMD rows (at every profile: the statement is about retrained models, the rows use batch-norm adaptation)
and the Fig. 2b error row (when its fine-tuning is shorter than the paper's training).
"""

from __future__ import annotations

import numpy as np

from robeval.core import stats
from robeval.core.ledger import MIN_TRAININGS, Claim
from robeval.core.ledger import check_ledger as _check_ledger
from robeval.msd import tables
from robeval.msd.claim_stats import bootstrap, mean_over_runs, shifted_mean, welch_over_units
from robeval.msd.claim_stats import claim_seed as _seed
from robeval.msd.published import PAPER_N_ABOVE_THRESHOLD, PAPER_SPEARMAN_THRESHOLD
from robeval.transforms import augmentations as aug

DEFAULT_AND_PAPER = ("default", "paper")
# Sec. 4.2 reads 12 of 15 as "a large majority"; 10..14 keep that reading (two thirds or more)
N_ABOVE_MARGIN = 2
MAJORITY = 7.5  # more than half of the 15 corruptions
PAPER_TOY_EPOCHS = 100  # the Fig. 2b networks are trained as the powerset's (100 epochs, Hendrycks et al.)
# row labels (robeval.core.ledger): our own experiments over powerset schemes sharing one base network
SCHEMES = dict(evidence="replication", unit="schemes")
# a statement about the MSD of augmentations to corruptions (a distance in one feature space), not about the
# error of networks trained on the schemes
DISTANCES = dict(SCHEMES, about="data")
PAPER_AUG_SAMPLES = 100_000  # augmentation samples per scheme the paper's MSD is a minimum over
# Sec. 4.2 ranks 512 retrained schemes; a Spearman rho over 32 schemes has a standard error of about
# (1 - rho^2) / sqrt(29) ~ 0.09 near rho = 0.7, small enough to tell a correlation above 0.6 from one near 0.3
MIN_RETRAINED = 32


def retrain_lost(cfg, n_retrained: int) -> str:
    """Why the retraining rows (Sec. 4.2, and App. B's MMD statement, which is about retrained models) cannot test
    the paper's statements under ``cfg`` ("" when they can): the paper trains a network from scratch on each
    scheme for a full training; the rows need that (``retrain_init = "scratch"`` for at least the profile's
    ``epochs``) on at least :data:`MIN_RETRAINED` schemes that also have an MSD."""
    why = []
    if str(cfg.get("retrain_init") or "base") != "scratch":
        epochs = f" {int(cfg['retrain_epochs'])} epoch(s)" if cfg.get("retrain_epochs") else ""
        why.append(
            f"the retrained schemes are fine-tuned{epochs} from the base network instead of trained from scratch"
        )
    elif int(cfg.get("retrain_epochs") or 0) < int(cfg.get("epochs") or 0):
        why.append(
            f"the retrained schemes are trained {int(cfg['retrain_epochs'])} epoch(s), shorter than the profile's full training "
            f"({int(cfg['epochs'])})"
        )
    if int(n_retrained) < MIN_RETRAINED:
        why.append(
            f"{int(n_retrained)} retrained schemes with an MSD (at least {MIN_RETRAINED} needed for a rank correlation)"
        )
    if not why:
        return ""
    return "the paper trains a network from scratch on each scheme (512 schemes); here: " + "; ".join(why)


def mmd_lost(n_aug_samples: int | None = None) -> str:
    """Why App. B's MMD rows cannot test the paper's statement on our batch-norm-adaptation grid (at every
    profile: the statement is about retrained models), and, with fewer samples than the paper's, why the MSD
    side of the contrast is weakened too."""
    text = (
        "App. B's MMD statement is about models retrained on every scheme; here one base network is only "
        "batch-norm adapted to each scheme"
    )
    if n_aug_samples is not None and int(n_aug_samples) < PAPER_AUG_SAMPLES:
        text += (
            f", and the MSD it is compared with is a minimum over {int(n_aug_samples)} augmentation samples per "
            "scheme (paper: 100k), too few to reach the rare samples of broad schemes that give them a low MSD but "
            "a high MMD — the contrast the statement rests on"
        )
    return text


def _samples_note(n_aug_samples: int | None) -> str:
    if n_aug_samples is None or int(n_aug_samples) >= PAPER_AUG_SAMPLES:
        return ""
    return (
        f"; each MSD is a minimum over {int(n_aug_samples)} augmentation samples per scheme (paper: 100k): fewer "
        "samples raise the MSD of broad schemes towards their MMD, which shrinks the contrast tested (conservative)"
    )


INDEX_03 = [
    {
        "source": "Sec. 4.2",
        "statement": "MSD correlates with corruption error across the augmentation powerset: 12 of 15 CIFAR-10-C "
        "corruptions have Spearman rank correlation > 0.6 (models retrained per scheme)",
        "claims": ["S4.2_retrain_n_above"],
    },
    {
        "source": "Sec. 4.2",
        "statement": "the correlation is strong across corruption types in all four categories of CIFAR-10-C "
        "(noise, blur, weather, digital)",
        "claims": ["S4.2_all_categories_*"],
    },
    {
        "source": "Sec. 4.2 / Fig. 3",
        "statement": "brightness is a negative example: its correlation is low",
        "claims": ["S4.2_brightness_low_*"],
    },
    {
        "source": "App. B",
        "statement": "re-estimating only the batch-norm statistics of a pre-trained model on each scheme (no "
        "training) still gives a strong MSD-error correlation",
        "claims": ["AppB_bn_n_above"],
    },
    {
        "source": "App. B",
        "statement": "MMD correlates poorly with corruption error (worse than MSD), for retrained models (the "
        "batch-norm-adaptation rows show the numbers and are not comparable)",
        "claims": ["AppB_mmd_*"],
    },
    {
        "source": "Fig. 2b",
        "statement": "mixing impulse noise into motion blur: MMD to impulse noise grows linearly as the impulse "
        "fraction falls, while MSD and the impulse-noise error stay low until the fraction is nearly 0",
        "claims": ["Fig2b_*"],
    },
    {
        "source": "Fig. 2a",
        "statement": "schematic of MMD vs MSD",
        "reason": "a schematic without data; the two distances are tested as code (tests/msd/test_msd.py)",
    },
    {
        "source": "Fig. 4",
        "statement": "including solarize lowers the MSD to impulse noise, including x-translation the MSD to motion "
        "blur, with little effect on the other corruption",
        "claims": ["Fig4_*"],
    },
    {
        "source": "Fig. 5 / Sec. 4.2",
        "statement": "the published augmentations (Patch Gaussian, AutoAugment, AugMix) follow the powerset's "
        "trend: lower MSD goes with lower error",
        "claims": ["Fig5_methods_follow_trend"],
    },
    {
        "source": "Fig. 5 / Sec. 4.2",
        "statement": "Patch Gaussian has low MSD to the noise corruptions (and, unexpectedly, to glass blur); "
        "AutoAugment to contrast and defocus blur; fog is a negative example where AutoAugment's MSD does not "
        "predict its error",
        "claims": ["Fig5_pg_*", "Fig5_aa_*"],
    },
    {
        "source": "Fig. 1",
        "statement": "single geometric augmentations lower the motion-blur error below the baseline, single colour "
        "augmentations do not",
        "claims": ["Fig1_*"],
    },
    {
        "source": "App. A / Sec. 6",
        "statement": "adding many dissimilar augmentations increases error much less than adding a few similar "
        "augmentations decreases it",
        "claims": ["AppA_*"],
    },
    {
        "source": "Sec. 4.1",
        "statement": "with 100 images and 100 corruption samples the standard deviation of the distance is about 5% "
        "of its mean; a VGG feature extractor gives similar results",
        "reason": "not tested: one draw of D_S and of the corruption samples, and one feature-extractor "
        "architecture per run",
    },
]

NOISE = ("gaussian_noise", "shot_noise", "impulse_noise")
FIG4_PAIRS = (("solarize", "impulse_noise", "motion_blur"), ("translate_x", "motion_blur", "impulse_noise"))
# Appendix A, on the Fig. 4 pairs: the similar op, its corruption, and the ops of the other kind (dissimilar)
APPA_PAIRS = (
    ("solarize", "impulse_noise", aug.GEOMETRIC_OPS),
    ("translate_x", "motion_blur", aug.COLOR_OPS),
)
# Fig. 5's low-MSD statements: the method, the corruptions, the row id and the method's name in the text
LOW_MSD = (
    ("patch_gaussian", NOISE, "Fig5_pg_low_msd_noise", "Patch Gaussian"),
    ("patch_gaussian", ("glass_blur",), "Fig5_pg_low_msd_glass_blur", "Patch Gaussian"),
    ("autoaugment", ("contrast", "defocus_blur"), "Fig5_aa_low_msd_contrast_defocus", "AutoAugment"),
)


def _matrices(avg, corruptions=None):
    """Error, MSD and (if present) MMD matrices (schemes x corruptions) over the schemes that have all of them:
    a retrained scheme has an MSD only if the batch-norm grid also ran it, and the bootstrap pairs rows."""
    mats = [
        tables.scheme_matrix(avg, "error", corruptions),
        tables.scheme_matrix(avg, "msd", corruptions),
        tables.scheme_matrix(avg, "mmd", corruptions) if "mmd" in avg else None,
    ]
    common = mats[0].index
    for m in mats[1:]:
        if m is not None:
            common = common.intersection(m.index, sort=False)
    return tuple(None if m is None else m.loc[common] for m in mats)


def row_heads(
    part: str,
    *,
    cols,
    small: float | None = None,
    methods=(),
    n_bases: int = 1,
    n_aug_samples: int | None = None,
    retrained: dict | None = None,
    toy_error_lost: str = "",
    toy_error_unit: str = "fine-tuning runs",
) -> dict[str, dict]:
    """The rows notebook 03's ``part`` records (:data:`robeval.msd.powerset.PARTS`), by id: ``{"source",
    "description", "kind", "central", "labels"}`` (``"paper"`` too for a value row) — the one definition of each row
    that the ``record_*`` functions below record with their numbers and that
    :func:`robeval.msd.claims_parts.record_not_run` records without, when the part was not run.

    ``cols``: the corruptions; ``small``: Fig. 2b's small impulse fraction (``fig2b``); ``methods``: the published
    methods run beside the powerset; ``n_bases``: the independently trained base networks App. B's count is judged
    over; ``n_aug_samples``: the samples each MSD is a minimum over (:func:`mmd_lost`); ``retrained``: the labels
    of the retraining rows whose mechanism is lost (``{"survives": False, "mechanism": ...}``, :func:`retrain_lost`;
    ``{}`` when it survives); ``toy_error_lost`` / ``toy_error_unit``: the Fig. 2b error row's (:func:`toy_error_lost`).
    """
    cols = [str(c) for c in cols]
    rows: dict[str, dict] = {}

    def row(id, source, description, labels, *, central=False, kind="comparison", **extra):
        rows[id] = {"source": source, "description": description, "kind": kind, "central": central,
                    "labels": dict(labels), **extra}  # fmt: skip

    if part == "fig2b":
        draws = dict(evidence="replication", unit="Monte-Carlo repetitions")
        error_labels = dict(evidence="replication", unit=toy_error_unit, about="models")
        if toy_error_lost:
            error_labels.update(survives=False, mechanism=toy_error_lost)
        row(
            "Fig2b_mmd_linear", "Fig. 2b",
            "MMD to impulse noise falls linearly as the impulse fraction rises (Pearson r(fraction, MMD) + 0.95 < 0)",
            dict(draws, evidence="derivation"), central=True,
        )  # fmt: skip
        row(
            "Fig2b_msd_low", "Fig. 2b",
            f"MSD to impulse noise is already low at {small:.0%} impulse noise (closer to its value at 100% than at 0%)",
            dict(draws, about="data"), central=True,
        )  # fmt: skip
        row(
            "Fig2b_error_low", "Fig. 2b",
            f"the impulse-noise error is already low at {small:.0%} impulse noise (closer to its value at 100% than "
            "at 0%)",
            error_labels, central=True,
        )  # fmt: skip
        return rows
    if part == "retrain":
        labels = dict(evidence="replication", unit="training runs", **(retrained or {}))
        row(
            "S4.2_retrain_n_above", "Sec. 4.2",
            f"retrained models: corruptions (of {len(cols)}) with Spearman(MSD, error) > 0.6 across schemes",
            labels, central=True, kind="value", paper=PAPER_N_ABOVE_THRESHOLD,
        )  # fmt: skip
        row(
            "S4.2_brightness_low_retrain", "Sec. 4.2 / Fig. 3",
            "retrained models: brightness is a negative example, Spearman(MSD, error) < 0.6", labels,
        )  # fmt: skip
        row(
            "AppB_mmd_worse_retrain", "App. B",
            "retrained models: MMD correlates worse with error than MSD (median over corruptions of rho_MSD − "
            "rho_MMD > 0)",
            labels, central=True,
        )  # fmt: skip
        row(
            "AppB_mmd_poor_retrain", "App. B",
            f"retrained models: Spearman(MMD, error) > 0.6 for a minority of corruptions (count − {MAJORITY:g} < 0)",
            labels,
        )  # fmt: skip
        return rows
    if part != "appb":
        raise ValueError(f"part must be one of 'fig2b', 'appb', 'retrain', got {part!r}.")
    row(
        "AppB_bn_n_above", "App. B", APPB_N_ABOVE,
        dict(SCHEMES, unit="base networks") if int(n_bases) >= MIN_BASES else SCHEMES, central=True,
    )  # fmt: skip
    row(
        "S4.2_brightness_low_bn", "Sec. 4.2 / Fig. 3",
        "batch-norm adaptation: brightness is a negative example, Spearman(MSD, error) < 0.6", SCHEMES,
    )  # fmt: skip
    row(
        "S4.2_all_categories_bn", "Sec. 4.2",
        "batch-norm adaptation: every category (noise, blur, weather, digital) has a corruption with "
        "Spearman(MSD, error) > 0.6 (weakest category's best rho − 0.6 > 0)",
        SCHEMES,
    )  # fmt: skip
    mmd = dict(SCHEMES, survives=False, mechanism=mmd_lost(n_aug_samples))
    row(
        "AppB_mmd_worse_bn", "App. B",
        "batch-norm adaptation: MMD correlates worse with error than MSD (median over corruptions of rho_MSD − "
        "rho_MMD > 0)",
        mmd,
    )  # fmt: skip
    row(
        "AppB_mmd_poor_bn", "App. B",
        f"batch-norm adaptation: Spearman(MMD, error) > 0.6 for a minority of corruptions (count − {MAJORITY:g} < 0)",
        mmd,
    )  # fmt: skip
    for op, target, other in FIG4_PAIRS:
        row(
            f"Fig4_{op}_{target}", "Fig. 4",
            f"including {op.replace('_', ' ')} lowers the MSD to {target.replace('_', ' ')} relatively more than to "
            f"{other.replace('_', ' ')} (difference of relative reductions > 0)",
            DISTANCES,
        )  # fmt: skip
    for op, corruption, _ in APPA_PAIRS:
        row(
            f"AppA_{op}_{corruption}", "App. A / Sec. 6",
            f"{corruption.replace('_', ' ')}: including {op.replace('_', ' ')} lowers the error more than adding >= 3 "
            "dissimilar ops raises it",
            SCHEMES,
        )  # fmt: skip
    row(
        "Fig1_geometric_beat_colour", "Fig. 1",
        "motion blur: single geometric augmentations have lower error than single colour ones", SCHEMES,
    )  # fmt: skip
    row(
        "Fig1_geometric_beat_baseline", "Fig. 1",
        "motion blur: single geometric augmentations have lower error than the baseline (empty scheme)", SCHEMES,
    )  # fmt: skip
    methods = [m for m in methods if m in ("autoaugment", "patch_gaussian")]
    if methods:
        row(
            "Fig5_methods_follow_trend", "Fig. 5 / Sec. 4.2",
            "published methods follow the powerset trend: across (method, corruption), the percentile of the "
            "method's MSD among the schemes rank-correlates with the percentile of its error",
            dict(evidence="replication", unit="corruptions"), kind="trend",
        )  # fmt: skip
    for method, corrs, cid, text in LOW_MSD:
        if method in methods:
            corrs = [c for c in corrs if c in cols]
            row(
                cid, "Fig. 5 / Sec. 4.2",
                f"{text}: its MSD to {', '.join(c.replace('_', ' ') for c in corrs)} lies below the median powerset "
                "scheme's (mean percentile − 0.5 < 0)",
                DISTANCES,
            )  # fmt: skip
    if "autoaugment" in methods and "fog" in cols:
        row(
            "Fig5_aa_fog_not_predictive", "Fig. 5 / Sec. 4.2",
            "fog is a negative example: AutoAugment's MSD percentile and error percentile disagree more on fog than "
            "on the median other corruption",
            SCHEMES,
        )  # fmt: skip
    return rows


def _record(ledger, heads: dict, id: str, **fields) -> Claim:
    """Row ``id`` of ``heads`` (:func:`row_heads`) recorded with its numbers: ``ledger.value`` for a value row,
    else ``ledger.comparison`` (``fields``: interval, direction, margin, note, ...)."""
    h = heads[id]
    extra = {"paper": h["paper"]} if "paper" in h else {}
    if h["kind"] == "value":
        return ledger.value(id, h["source"], h["description"], central=h["central"], **extra, **h["labels"], **fields)
    kind = {"kind": h["kind"]} if h["kind"] != "comparison" else {}
    return ledger.comparison(
        id, h["source"], h["description"], central=h["central"], **kind, **extra, **h["labels"], **fields
    )


def record_spearman_claims(
    ledger,
    bn_avg,
    retrain_avg,
    *,
    seed: int,
    n_boot: int = 2000,
    n_aug_samples: int | None = None,
    retrain_cfg=None,
    base_errors=None,
) -> list[Claim]:
    """Sec. 4.2 and App. B on the powerset.

    ``bn_avg``: severity-averaged rows (:func:`robeval.msd.tables.average_over_severities`) of the batch-norm
    adaptation grid, with error, msd, mmd; ``retrain_avg``: the same for retrained schemes (error, msd; the
    msd of a scheme does not depend on the variant). Powerset schemes are the bootstrap units.
    ``n_aug_samples``: the augmentation samples each MSD is a minimum over (for the MMD rows' mechanism text,
    :func:`mmd_lost`); the batch-norm MMD rows are ``not comparable`` at every profile (see :func:`mmd_lost`).
    ``retrain_cfg``: the settings the retraining rows are judged by (:func:`retrain_lost`: retrain_init,
    retrain_epochs, epochs); ``None`` = fine-tuned (their mechanism lost). The retraining rows, and App. B's
    MMD statement on retrained models, keep their mechanism only where :func:`retrain_lost` is empty.
    ``base_errors``: the error matrices (schemes x corruptions, :func:`robeval.msd.tables.scheme_matrix`) of the
    further base networks (run1, run2, ...) adapted to the same schemes; with the base network of ``bn_avg`` at
    least :data:`MIN_BASES` of them, App. B's count statistic is judged over base networks
    (:func:`appb_bases_row`), else over the schemes of one base network, a unit that cannot decide it.
    """
    from robeval.transforms.corruptions import CATEGORIES

    ledger = _check_ledger(ledger)
    err, msd, mmd = _matrices(bn_avg)
    if "brightness" not in err.columns:
        raise ValueError(f"the powerset results lack 'brightness'; they cover {list(err.columns)}.")
    cols = list(err.columns)
    out = []
    has_retrain = retrain_avg is not None  # None: the retraining part was not run (no retraining rows here)
    r_err, r_msd, r_mmd = _matrices(retrain_avg, cols) if has_retrain else (err.iloc[:0], msd.iloc[:0], None)
    n_r = len(r_err)
    lost = retrain_lost(retrain_cfg or {}, n_r)
    retrained = dict(survives=not lost, mechanism=lost) if lost else {}
    bases = [err] + [m.loc[:, cols] for m in (base_errors or [])]
    heads = {
        "bn": row_heads("appb", cols=cols, n_bases=len(bases), n_aug_samples=n_aug_samples),
        "retrain": row_heads("retrain", cols=cols, retrained=retrained),
    }
    out += (
        []
        if not has_retrain
        else [
            _record(
                ledger,
                heads["retrain"],
                "S4.2_retrain_n_above",
                margin=N_ABOVE_MARGIN,
                interval=bootstrap(
                    tables.count_above,
                    r_msd.to_numpy(),
                    r_err.to_numpy(),
                    seed=_seed(seed, "S42r"),
                    n_boot=n_boot,
                    unit="retrained schemes",
                ),
                margin_basis="the paper reads 12 of 15 as 'a large majority'; 10-14 keep that reading",
                note=f"{n_r} retrained schemes (those that also have an MSD, i.e. are in the batch-norm grid's "
                "scheme sample). Margin 2: the paper reads 12 of 15 as 'a large majority' (10-14 keep "
                f"that reading). Comparable where at least {MIN_RETRAINED} schemes are trained from scratch for a full "
                "training.",
            )
        ]
    )
    if len(bases) >= MIN_BASES:
        out.append(appb_bases_row(ledger, msd, bases))
    else:
        out.append(
            _record(
                ledger,
                heads["bn"],
                "AppB_bn_n_above",
                interval=bootstrap(
                    lambda m, e: tables.count_above(m, e) - MAJORITY,
                    msd.to_numpy(),
                    err.to_numpy(),
                    seed=_seed(seed, "AppBn"),
                    n_boot=n_boot,
                    unit="schemes",
                ),
                direction=">",
                note=f"{len(err)} schemes sharing one base network; the paper: 'we still find a strong correlation' "
                f"(12 of 15 when retraining). {ONE_BASE_NOTE}",
            )
        )
    b = cols.index("brightness")
    variants = (("bn", (err, msd)), ("retrain", (r_err, r_msd)))
    for variant, (e_m, d_m) in variants[: 2 if has_retrain else 1]:
        out.append(
            _record(
                ledger,
                heads[variant],
                f"S4.2_brightness_low_{variant}",
                interval=bootstrap(
                    lambda m, e: tables.column_spearman(m[:, [b]], e[:, [b]])[0] - PAPER_SPEARMAN_THRESHOLD,
                    d_m.to_numpy(),
                    e_m.to_numpy(),
                    seed=_seed(seed, f"bright{variant}"),
                    n_boot=n_boot,
                    unit="schemes" if variant == "bn" else "retrained schemes",
                ),
                direction="<",
                note=f"{len(e_m)} schemes; interval of rho − 0.6",
            )
        )
    # CATEGORIES maps a corruption to its category; a category none of whose corruptions ran counts as failing
    cats = {cat: [cols.index(c) for c in cols if CATEGORIES.get(c) == cat] for cat in sorted(set(CATEGORIES.values()))}

    def weakest_category(m, e):
        rho = tables.column_spearman(m, e)
        best = [rho[idx][np.isfinite(rho[idx])] for idx in cats.values()]
        return min(b.max() if b.size else -np.inf for b in best) - PAPER_SPEARMAN_THRESHOLD

    out.append(
        _record(
            ledger,
            heads["bn"],
            "S4.2_all_categories_bn",
            interval=bootstrap(
                weakest_category,
                msd.to_numpy(),
                err.to_numpy(),
                seed=_seed(seed, "cats"),
                n_boot=n_boot,
                unit="schemes",
            ),
            direction=">",
            note=f"{len(err)} schemes",
        )
    )
    # App. B's MMD statement: on the batch-norm grid (numbers only: its mechanism is lost, mmd_lost) and on the
    # retrained models (the central test); the same two rows for each
    mmd_rows = []
    if mmd is not None:
        bn_note = f"{len(err)} schemes sharing one base network (not independent trainings)"
        mmd_rows.append(("bn", (err, msd, mmd), "", "schemes", bn_note))
    if r_mmd is not None and n_r:
        r_note = f"{n_r} retrained schemes, one network trained per scheme{_samples_note(n_aug_samples)}"
        mmd_rows.append(("retrain", (r_err, r_msd, r_mmd), "r", "retrained schemes", r_note))
    for variant, (e_m, d_m, m_m), key, units, note in mmd_rows:
        out.append(
            _record(
                ledger,
                heads[variant],
                f"AppB_mmd_worse_{variant}",
                interval=bootstrap(
                    tables.median_rho_gap,
                    d_m.to_numpy(),
                    m_m.to_numpy(),
                    e_m.to_numpy(),
                    seed=_seed(seed, f"mmdgap{key}"),
                    n_boot=n_boot,
                    unit=units,
                ),
                direction=">",
                note=note,
            )
        )
        out.append(
            _record(
                ledger,
                heads[variant],
                f"AppB_mmd_poor_{variant}",
                interval=bootstrap(
                    lambda m, e: tables.count_above(m, e) - MAJORITY,
                    m_m.to_numpy(),
                    e_m.to_numpy(),
                    seed=_seed(seed, f"mmdpoor{key}"),
                    n_boot=n_boot,
                    unit=units,
                ),
                direction="<",
                note=note,
            )
        )
    return out


APPB_N_ABOVE = (
    f"batch-norm adaptation: Spearman(MSD, error) > 0.6 for a majority of the corruptions (count − {MAJORITY:g} > 0)"
)
# App. B's statement is about models (a pre-trained model adapted to each scheme still shows the correlation): only
# independently trained base networks decide it, at least as many as the ledger asks of any claim about models
MIN_BASES = MIN_TRAININGS
ONE_BASE_NOTE = (
    "The unit (schemes adapted on one base network) cannot decide a claim about models: the count is one number "
    f"per base network, decided over >= {MIN_TRAININGS} independently trained ones (n_bases; the long profile)."
)


def appb_bases_interval(msd, errors) -> stats.Interval:
    """App. B's count statistic over independent base networks: per base network k, the number of corruptions
    (columns) whose Spearman(MSD, error_k) across the schemes (rows) exceeds 0.6, minus :data:`MAJORITY`; a
    t-interval of its mean over the base networks (:func:`robeval.msd.claim_stats.mean_over_runs`, n = the number
    of base networks). ``msd``: (schemes x corruptions); ``errors``: one such matrix per base network, rows and
    columns aligned with ``msd`` (the MSD does not depend on the base network)."""
    import dataclasses

    m = np.asarray(msd, dtype=float)
    counts = [tables.count_above(m, np.asarray(e, dtype=float)) - MAJORITY for e in errors]
    iv = mean_over_runs(counts)
    return dataclasses.replace(
        iv, method=iv.method.replace(" runs", " base networks").replace("run(s)", "base network(s)")
    )


def appb_bases_row(ledger, msd, errors) -> Claim:
    """The ``AppB_bn_n_above`` row over base networks (:func:`appb_bases_interval`): ``msd`` and ``errors`` as
    DataFrames (schemes x corruptions), restricted to the schemes every base network ran. Unit "base networks"
    (independent trainings), n = the number of base networks; reproduced when the interval of the mean count lies
    above the majority, contradicted when below."""
    ledger = _check_ledger(ledger)
    common = msd.index
    for e in errors:
        common = common.intersection(e.index, sort=False)
    cols = list(msd.columns)
    mats = [e.loc[common, cols].to_numpy() for e in errors]
    counts = [int(tables.count_above(msd.loc[common].to_numpy(), e)) for e in mats]
    return _record(
        ledger,
        row_heads("appb", cols=cols, n_bases=MIN_BASES),  # the row over base networks
        "AppB_bn_n_above",
        interval=appb_bases_interval(msd.loc[common].to_numpy(), mats),
        direction=">",
        note=f"{len(errors)} independently trained base networks, each batch-norm adapted to the same {len(common)} "
        f"schemes; corruptions (of {len(cols)}) with Spearman(MSD, error) > 0.6 per base network: "
        f"{', '.join(str(c) for c in counts)}; interval of the mean count − {MAJORITY:g} over the base networks. "
        "The paper: 'we still find a strong correlation' (12 of 15 when retraining).",
    )


def _has(schemes, op: str) -> np.ndarray:
    return np.array([op in aug.parse_scheme(s) for s in schemes], dtype=bool)


def record_inclusion_claims(ledger, bn_avg, *, seed: int, n_boot: int = 2000) -> list[Claim]:
    """Fig. 4: including solarize lowers the MSD to impulse noise relatively more than to motion blur, and
    including translate x the MSD to motion blur more than to impulse noise (bootstrap over schemes)."""
    ledger = _check_ledger(ledger)
    _, msd, _ = _matrices(bn_avg)
    heads = row_heads("appb", cols=msd.columns)
    out = []
    for op, target, other in FIG4_PAIRS:
        has = _has(msd.index, op).astype(float)
        data = np.column_stack([has, msd[target].to_numpy(), msd[other].to_numpy()])
        out.append(
            _record(
                ledger,
                heads,
                f"Fig4_{op}_{target}",
                interval=bootstrap(
                    lambda a: tables.inclusion_gap(a[:, 0] > 0.5, a[:, 1], a[:, 2]),
                    data,
                    seed=_seed(seed, f"fig4{op}"),
                    n_boot=n_boot,
                    unit="schemes",
                ),
                direction=">",
                note=f"{len(msd)} schemes, {int(has.sum())} with {op}",
            )
        )
    return out


def record_appendix_a_claims(ledger, bn_avg, *, seed: int, n_boot: int = 2000) -> list[Claim]:
    """App. A on the Fig. 4 pairs: the error decrease from including the similar op exceeds the error increase
    from adding many (>= 3) ops of the other kind (:func:`robeval.msd.tables.similar_vs_dissimilar`)."""
    ledger = _check_ledger(ledger)
    err, _, _ = _matrices(bn_avg)
    heads = row_heads("appb", cols=err.columns)
    out = []
    for op, corruption, dissimilar in APPA_PAIRS:
        has = _has(err.index, op).astype(float)
        nd = np.array([len(aug.parse_scheme(s) & set(dissimilar)) for s in err.index], dtype=float)
        data = np.column_stack([has, nd, err[corruption].to_numpy()])
        out.append(
            _record(
                ledger,
                heads,
                f"AppA_{op}_{corruption}",
                interval=bootstrap(
                    lambda a: tables.similar_vs_dissimilar(a[:, 0] > 0.5, a[:, 1], a[:, 2]),
                    data,
                    seed=_seed(seed, f"appa{op}"),
                    n_boot=n_boot,
                    unit="schemes",
                ),
                direction=">",
                note=f"batch-norm adaptation, {len(err)} schemes; dissimilar = {', '.join(dissimilar)}",
            )
        )
    return out


def record_single_op_claims(ledger, bn_avg, *, seed: int, n_boot: int = 2000) -> list[Claim]:
    """Fig. 1 on motion blur: the single geometric schemes have lower error than the single colour ones (Welch
    t-interval over the single-op schemes) and than the empty scheme (t-interval of baseline − geometric error).
    Nine single-op schemes are too few for a percentile bootstrap; ``seed`` and ``n_boot`` are kept for a
    uniform signature."""
    ledger = _check_ledger(ledger)
    err, _, _ = _matrices(bn_avg)
    if "none" not in err.index:
        raise ValueError("the powerset results lack the empty scheme 'none' (Fig. 1's baseline).")
    singles = [s for s in err.index if len(aug.parse_scheme(s)) == 1]
    geo = np.array([aug.OPS[s].kind == "geometric" for s in singles], dtype=bool)
    e = err.loc[singles, "motion_blur"].to_numpy(float)
    base = float(err.loc["none", "motion_blur"])
    note = (
        f"batch-norm adaptation stands in for training (App. B); {int(geo.sum())} geometric and "
        f"{int(len(geo) - geo.sum())} colour single-op schemes are the units (one base network)"
    )
    heads = row_heads("appb", cols=err.columns)
    return [
        _record(
            ledger,
            heads,
            "Fig1_geometric_beat_colour",
            interval=welch_over_units(e[~geo], e[geo]),
            direction=">",
            note=note,
        ),
        _record(
            ledger,
            heads,
            "Fig1_geometric_beat_baseline",
            interval=shifted_mean(e[geo], base),
            direction=">",
            note=note + "; the baseline's own error is taken as fixed",
        ),
    ]


def record_method_claims(ledger, bn_avg, methods, *, seed: int, n_boot: int = 2000) -> list[Claim]:
    """Fig. 5 / Sec. 4.2: where the published methods sit in the powerset cloud (percentiles of their MSD and
    error among the powerset schemes; :func:`robeval.msd.tables.method_percentiles`)."""
    ledger = _check_ledger(ledger)
    methods = [m for m in methods if m in ("autoaugment", "patch_gaussian")]
    err, msd, _ = _matrices(bn_avg)
    cols = list(err.columns)
    rows = {
        m: bn_avg[(bn_avg["family"] == "method") & (bn_avg["scheme"] == m)].set_index("corruption") for m in methods
    }
    heads = row_heads("appb", cols=cols, methods=methods)
    out = []
    if methods:
        pct = {m: tables.method_percentiles(bn_avg, m, cols) for m in methods}
        p_msd = np.column_stack([pct[m]["p_msd"].to_numpy() for m in methods])
        p_err = np.column_stack([pct[m]["p_err"].to_numpy() for m in methods])
        out.append(
            _record(
                ledger,
                heads,
                "Fig5_methods_follow_trend",
                interval=bootstrap(
                    lambda a, b: stats.spearman(a.ravel(), b.ravel()),
                    p_msd,
                    p_err,
                    seed=_seed(seed, "fig5t"),
                    n_boot=n_boot,
                    unit="corruptions",
                ),
                direction=">",
                note=f"methods {', '.join(methods)} (AugMix is the full nine-op scheme, part of the powerset); "
                f"bootstrap over the {len(cols)} corruptions",
            )
        )

    def low_msd(method, corrs, cid):
        if method not in methods:
            return
        corrs = [c for c in corrs if c in cols]
        idx = [cols.index(c) for c in corrs]
        values = np.array([rows[method].loc[c, "msd"] for c in corrs], dtype=float)

        def stat(m):
            return np.mean([tables.percentile_among(v, m[:, i]) for v, i in zip(values, idx)]) - 0.5

        out.append(
            _record(
                ledger,
                heads,
                cid,
                interval=bootstrap(
                    stat, msd.to_numpy(), seed=_seed(seed, cid), n_boot=n_boot, unit="schemes", mean_of_units=True
                ),
                direction="<",
                note=f"bootstrap over {len(msd)} powerset schemes; the method's own sampling noise is not included",
            )
        )

    for method, corrs, cid, _ in LOW_MSD:
        low_msd(method, corrs, cid)
    if "autoaugment" in methods and "fog" in cols:
        r = rows["autoaugment"]
        fog = cols.index("fog")

        def fog_gap(m, e):
            d = np.array(
                [
                    abs(
                        tables.percentile_among(r.loc[c, "msd"], m[:, i])
                        - tables.percentile_among(r.loc[c, "error"], e[:, i])
                    )
                    for i, c in enumerate(cols)
                ]
            )
            return d[fog] - np.median(np.delete(d, fog))

        out.append(
            _record(
                ledger,
                heads,
                "Fig5_aa_fog_not_predictive",
                interval=bootstrap(
                    fog_gap, msd.to_numpy(), err.to_numpy(), seed=_seed(seed, "fog"), n_boot=n_boot, unit="schemes"
                ),
                direction=">",
                note=f"bootstrap over {len(msd)} powerset schemes",
            )
        )
    return out


def record_toy_claims(
    ledger, toy_errors, toy_distances, *, small: float, error_lost: str = "", error_unit: str = "fine-tuning runs"
) -> list[Claim]:
    """Fig. 2b: MMD falls linearly with the impulse fraction (Pearson r < −0.95 per run); MSD and the
    impulse-noise error are already closer to their fraction-1 values than to their fraction-0 values at the
    small fraction ``small`` (:func:`robeval.msd.tables.low_until_small` > 0). Runs: independent draws of the
    augmentation samples (distances, "Monte-Carlo repetitions") and independent fine-tuning runs (errors).

    The MMD row is a ``derivation``: the mean feature of a mixture is the mixture of the means, so the MMD to
    impulse noise is (1 − fraction) × ||μ_motion − μ_impulse||, linear by construction up to sampling noise.
    ``error_lost``: when non-empty, why the error row's mechanism (memorising rare impulse-noise examples while
    training) does not survive the profile's scaling; the row is then ``not comparable``."""
    ledger = _check_ledger(ledger)
    per = tables.toy_per_run(toy_errors, toy_distances)
    lin = tables.linearity(per["mmd"])
    heads = row_heads("fig2b", cols=(), small=small, toy_error_lost=error_lost, toy_error_unit=error_unit)
    return [
        _record(
            ledger,
            heads,
            "Fig2b_mmd_linear",
            interval=mean_over_runs(lin + 0.95),
            direction="<",
            note=f"{len(lin)} draws of the augmentation samples at fractions {list(per['mmd'].columns)}; "
            "interval of r + 0.95. Holds by the linearity of the mean (the MMD of a mixture is linear in its "
            "fraction), so it checks our estimator, not the paper's experiment.",
        ),
        _record(
            ledger,
            heads,
            "Fig2b_msd_low",
            interval=mean_over_runs(tables.low_until_small(per["msd"], small)),
            direction=">",
            note="interval of (MSD_0 − MSD_small) / (MSD_0 − MSD_1) − 0.5 over draws of the augmentation samples",
        ),
        _record(
            ledger,
            heads,
            "Fig2b_error_low",
            interval=mean_over_runs(tables.low_until_small(per["error"], small)),
            direction=">",
            note=f"{len(per['error'])} independent {error_unit} with the mixture augmentation; interval "
            "of (err_0 − err_small) / (err_0 − err_1) − 0.5",
        ),
    ]


def toy_error_lost(cfg, small: float) -> str:
    """Why the Fig. 2b error row's mechanism is lost under ``cfg`` ("" when it survives): the paper explains the
    low error by networks memorising rare impulse-noise examples over a full training (100 epochs); a few
    epochs of fine-tuning an already trained network show each rare example only ``toy_epochs`` times. The
    mechanism survives when the mixture network trains as long as the profile trains its networks
    (``toy_epochs >= min(100, epochs)``)."""
    epochs = int(cfg["toy_epochs"])
    if epochs >= min(PAPER_TOY_EPOCHS, int(cfg.get("epochs", PAPER_TOY_EPOCHS))):
        return ""
    return (
        f"the paper's explanation is that a network trained on the mixture memorises its rare impulse-noise "
        f"examples; here fine-tunings of {epochs} epoch(s) from a network already "
        f"trained without them (paper: training for {PAPER_TOY_EPOCHS} epochs) see each of the {small:.0%} "
        f"impulse-noise examples {epochs} time(s), too few for memorisation to act"
    )
