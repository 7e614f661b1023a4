"""Claims of Mintun, Kirillov & Xie 2021 recorded by notebooks 03 (MSD, powerset) and 04 (CIFAR-10-C-bar).

Each ``record_<topic>_claims(ledger, ...)`` takes the notebook's result tables, computes what the paper's
statement is judged on (with the helpers of :mod:`robeval.msd` and :mod:`robeval.corruptions.experiments`)
and adds the claims to a :class:`robeval.claims.Ledger` in a fixed order. They return the recorded
:class:`~robeval.claims.Claim` objects.

Notebook 03, in the order it records them: :func:`record_spearman_claims` (Sec. 4.2, App. B),
:func:`record_inclusion_claims` (Fig. 4), :func:`record_toy_claims` (Fig. 2b), :func:`record_single_op_claims`
(Fig. 1), :func:`record_method_claims` (Fig. 5). Notebook 04: :func:`record_table1_claims` (Table 1, Sec. 5),
:func:`record_construction_claims` (Sec. 5, App. D).
"""
from __future__ import annotations

from . import msd
from .claims import Claim
from .claims import check_ledger as _check_ledger
from .corruptions import experiments
from .validation import check_frame as _check_frame

__all__ = ["record_spearman_claims", "record_inclusion_claims", "record_toy_claims", "record_single_op_claims",
           "record_method_claims", "record_table1_claims", "record_construction_claims", "FIG5_METHOD_CLAIMS",
           "PAPER_CONSTRUCTION_TARGET_ERROR"]

# Fig. 5 / Sec. 4.2: (method, corruption, statement) — each published method is close to the corruptions
# its augmentation resembles
FIG5_METHOD_CLAIMS = (
    ("patch_gaussian", "gaussian_noise", "Patch Gaussian has low MSD to noise corruptions"),
    ("autoaugment", "contrast", "AutoAugment has low MSD to contrast"),
)
# the release's scripts/cifar_dataset_distances.sh: baseline CIFAR-10-C error (%) the C-bar groups match
PAPER_CONSTRUCTION_TARGET_ERROR = 26.905


# --------------------------------------------------------------------------------------------------
# notebook 03
# --------------------------------------------------------------------------------------------------
def record_spearman_claims(ledger, rho, n_schemes: int) -> list[Claim]:
    """Sec. 4.2 and App. B: how many corruptions have Spearman(MSD, error) > 0.6 (paper: 12 of 15),
    brightness as the negative example, and MMD correlating worse than MSD.

    Parameters
    ----------
    rho : DataFrame indexed by corruption with rho_msd, rho_mmd (:func:`robeval.msd.spearman_table`);
        must contain "brightness"
    n_schemes : number of powerset schemes the correlations are over (for the note)
    """
    ledger = _check_ledger(ledger)
    summary = msd.spearman_summary(rho)  # also checks that rho is a table with rho_msd and rho_mmd
    if "brightness" not in rho.index:
        raise ValueError(f"rho has no 'brightness' row; it covers {list(rho.index)}.")
    brightness = float(rho.loc["brightness", "rho_msd"])
    med_msd, med_mmd = rho["rho_msd"].median(), rho["rho_mmd"].median()
    return [
        ledger.add("msd_spearman_count", "Sec. 4.2",
                   "CIFAR-10-C corruptions with Spearman(MSD, error) > 0.6 across powerset schemes",
                   paper=msd.PAPER_N_ABOVE_THRESHOLD, reproduced=summary["n_above"], abs_tol=3,
                   note=f"{n_schemes} schemes; out of {summary['n_corruptions']} corruptions"),
        ledger.add("msd_brightness_negative", "Sec. 4.2 / Fig. 3",
                   "brightness is a negative example: its Spearman(MSD, error) stays below 0.6",
                   paper="rho < 0.6", reproduced=round(brightness, 3),
                   holds=bool(brightness < msd.PAPER_SPEARMAN_THRESHOLD)),
        ledger.add("msd_mmd_correlates_worse", "App. B",
                   "MMD correlates worse with corruption error than MSD (median Spearman over corruptions)",
                   paper="rho_MMD < rho_MSD", reproduced=f"MSD {med_msd:.2f} vs MMD {med_mmd:.2f}",
                   holds=bool(med_mmd < med_msd)),
    ]


def _effect(effects, op: str, corruption: str):
    row = effects[(effects["op"] == op) & (effects["corruption"] == corruption)]
    if len(row) != 1:
        raise ValueError(f"effects must hold exactly one row for ({op!r}, {corruption!r}), found {len(row)}; "
                         "build it with robeval.msd.inclusion_effects.")
    row = row.iloc[0]
    return msd.relative_msd_reduction(row["msd_with"], row["msd_without"])


def record_inclusion_claims(ledger, effects) -> list[Claim]:
    """Fig. 4: including solarize lowers the MSD to impulse noise, including translate x the MSD to motion
    blur — each relatively more than to the other corruption (and by a positive amount).

    Parameters
    ----------
    effects : DataFrame from :func:`robeval.msd.inclusion_effects` with the four (op, corruption) pairs of
        solarize/translate_x × impulse_noise/motion_blur
    """
    ledger = _check_ledger(ledger)
    _check_frame(effects, ("op", "corruption", "msd_with", "msd_without"), "effects")
    out = []
    for op, name, target, other, text in (
            ("solarize", "solarize_impulse", "impulse_noise", "motion_blur", "solarize"),
            ("translate_x", "translate_motion", "motion_blur", "impulse_noise", "translate x")):
        r_target, r_other = _effect(effects, op, target), _effect(effects, op, other)
        out.append(ledger.add(
            f"msd_fig4_{name}", "Fig. 4",
            f"including {text} lowers the MSD to {target.replace('_', ' ')} more (relatively) than to "
            f"{other.replace('_', ' ')}",
            paper="yes", reproduced=f"{r_target:.1%} vs {r_other:.1%}",
            holds=bool(r_target > max(r_other, 0))))
    return out


def record_toy_claims(ledger, toy) -> list[Claim]:
    """Fig. 2b: MMD to impulse noise falls linearly with the impulse fraction (correlation < −0.95), while
    MSD and the impulse-noise error are already low at the smallest nonzero fraction (closer to their value
    at 100% than to half the way from 0%).

    Parameters
    ----------
    toy : DataFrame with fraction, mmd, msd, error_impulse_noise (:func:`robeval.msd.toy_table`), any order
    """
    ledger = _check_ledger(ledger)
    lm = msd.toy_landmarks(toy)
    far, small, near, lin = lm["far"], lm["small"], lm["near"], lm["mmd_linearity"]
    err = "error_impulse_noise"
    return [
        ledger.add("msd_fig2_mmd_linear", "Fig. 2b", "MMD to impulse noise falls linearly with the impulse fraction",
                   paper="linear", reproduced=f"corr(fraction, MMD) = {lin:.3f}", holds=bool(lin < -0.95)),
        ledger.add("msd_fig2_msd_low", "Fig. 2b",
                   f"MSD already low at the smallest nonzero impulse fraction ({small['fraction']:.0%})",
                   paper="low until ~0%",
                   reproduced=f"MSD {small['msd']:.3g} vs {far['msd']:.3g} at 0% and {near['msd']:.3g} at 100%",
                   holds=bool(small["msd"] - near["msd"] < 0.5 * (far["msd"] - near["msd"]))),
        ledger.add("msd_fig2_error_low", "Fig. 2b",
                   f"impulse-noise error already low at the smallest nonzero fraction ({small['fraction']:.0%})",
                   paper="low until ~0%",
                   reproduced=(f"error {small[err]:.3f} vs {far[err]:.3f} at 0% and {near[err]:.3f} at 100%"),
                   holds=bool(small[err] - near[err] < 0.5 * (far[err] - near[err]))),
    ]


def record_single_op_claims(ledger, single) -> list[Claim]:
    """Fig. 1: single geometric augmentations reduce motion-blur error more than single colour ones and
    than the baseline (mean error of each kind).

    Parameters
    ----------
    single : DataFrame with kind, error (:func:`robeval.msd.single_op_table` on motion blur)
    """
    ledger = _check_ledger(ledger)
    by_kind = msd.mean_error_by_kind(single)
    geo, col, base = by_kind["geometric"], by_kind["color"], by_kind["baseline"]
    return [ledger.add(
        "msd_fig1_geometric_helps", "Fig. 1",
        "single geometric augmentations reduce motion-blur error more than single colour ones and than baseline",
        paper="geometric < baseline ≈ colour",
        reproduced=f"geometric {geo:.3f}, colour {col:.3f}, baseline {base:.3f}",
        holds=bool(geo < min(col, base)))]


def record_method_claims(ledger, avg, methods) -> list[Claim]:
    """Fig. 5 / Sec. 4.2: each published method of :data:`FIG5_METHOD_CLAIMS` that ran (is in ``methods``)
    has an MSD to its corruption below the median over the powerset schemes.

    Parameters
    ----------
    avg : DataFrame from :func:`robeval.msd.average_over_severities`
    methods : names of the methods that ran (the profile's ``methods`` setting)
    """
    ledger = _check_ledger(ledger)
    methods = set(methods)
    out = []
    for method, corruption, text in FIG5_METHOD_CLAIMS:
        if method not in methods:  # the smoke profile runs only some methods
            continue
        m, ref = msd.method_vs_powerset_median(avg, method, corruption)
        out.append(ledger.add(f"msd_fig5_{method}_{corruption}", "Fig. 5 / Sec. 4.2",
                              f"{text}: its MSD to {corruption} lies below the median over powerset schemes",
                              paper="low", reproduced=f"{m:.3g} vs powerset median {ref:.3g}", holds=bool(m < ref)))
    return out


# --------------------------------------------------------------------------------------------------
# notebook 04
# --------------------------------------------------------------------------------------------------
def record_table1_claims(ledger, summary, cbar_table) -> list[Claim]:
    """Table 1 (CIFAR-10) and Sec. 5.

    Per method: mean C and C-bar errors against the paper (comparable only under the paper protocol); the
    baseline's C-bar − C difference (≈0 by construction); per augmentation: it gains less over the baseline
    on C-bar than on C; Patch Gaussian has the largest and AutoAugment the smallest C-bar − C increase;
    every method improves blue noise sample by more than 5 points.

    Parameters
    ----------
    summary : DataFrame indexed by method label ("Baseline", …) with c_err, cbar_err, delta, gain_c,
        gain_cbar, paper_c_err, paper_cbar_err (errors in %; :func:`summarise_table1`, as saved in
        ``table1_summary.csv``)
    cbar_table : per-corruption C-bar errors (%) of :func:`summarise_table1`, rows labelled like ``summary``
    """
    ledger = _check_ledger(ledger)
    _check_frame(summary, ("c_err", "cbar_err", "delta", "gain_c", "gain_cbar", "paper_c_err",
                               "paper_cbar_err"), "summary")
    if "Baseline" not in summary.index:
        raise ValueError(f"summary needs a 'Baseline' row; it has {list(summary.index)}.")
    s = summary
    out = []
    for method in s.index:
        slug = experiments.method_slug(method)
        out.append(ledger.add(f"table1_c10c_err_{slug}", "Table 1", f"{method}: mean CIFAR-10-C error (%)",
                              paper=s.loc[method, "paper_c_err"], reproduced=round(s.loc[method, "c_err"], 2),
                              abs_tol=2.0, comparable_at=("paper",)))
        out.append(ledger.add(f"table1_c10cbar_err_{slug}", "Table 1", f"{method}: mean CIFAR-10-C-bar error (%)",
                              paper=s.loc[method, "paper_cbar_err"], reproduced=round(s.loc[method, "cbar_err"], 2),
                              abs_tol=2.0, comparable_at=("paper",)))
    out.append(ledger.add("table1_baseline_delta", "Table 1",
                          "Baseline: C-bar − C error (points; ≈0 by construction)",
                          paper=0.1, reproduced=round(s.loc["Baseline", "delta"], 2), abs_tol=2.0,
                          comparable_at=("paper",),
                          note="C-bar severities were matched to the paper's WRN-40-2, not to our model"))
    augs = [m for m in s.index if m != "Baseline"]
    for method in augs:
        out.append(ledger.add(
            f"table1_gain_smaller_on_cbar_{experiments.method_slug(method)}", "Table 1 / Sec. 5",
            f"{method} gains less over the baseline on C-bar than on C (gain_C − gain_Cbar > 0)",
            paper=True, reproduced=round(s.loc[method, "gain_c"] - s.loc[method, "gain_cbar"], 2),
            holds=bool(s.loc[method, "gain_c"] > s.loc[method, "gain_cbar"])))
    deltas = s.loc[augs, "delta"]
    out.append(ledger.add("table1_pg_degrades_most", "Table 1",
                          "Patch Gaussian has the largest C-bar − C increase among the three methods",
                          paper=True, reproduced=deltas.idxmax(), holds=bool(deltas.idxmax() == "Patch Gaussian")))
    out.append(ledger.add("table1_aa_degrades_least", "Table 1",
                          "AutoAugment has the smallest C-bar − C increase among the three methods",
                          paper=True, reproduced=deltas.idxmin(), holds=bool(deltas.idxmin() == "AutoAugment")))
    gain = experiments.cbar_gain_over_baseline(cbar_table, "blue_noise_sample")
    out.append(ledger.add("table1_all_improve_blue_noise_sample", "Sec. 5",
                          "every method improves blue noise sample over the baseline by > 5 points",
                          paper=True, reproduced=round(float(gain.min()), 1), holds=bool(gain.min() > 5)))
    return out


def record_construction_claims(ledger, choice: dict, n_chosen: int, n_candidates: int) -> list[Claim]:
    """Sec. 5 / App. D: how many of the chosen farthest corruptions are in the published CIFAR-10-C-bar, and
    the baseline CIFAR-10-C error used as the construction's target (both comparable only under the paper
    protocol).

    Parameters
    ----------
    choice : dict with "top" (chosen corruption names) and "target_error" (fraction), as saved in
        ``construction_choice.json``
    n_chosen, n_candidates : corruptions chosen and candidates scanned (for the chance level in the note:
        ``n_chosen · 10 / n_candidates`` published ones expected by chance)
    """
    from .corruptions import CBAR_CORRUPTIONS

    ledger = _check_ledger(ledger)
    missing = [k for k in ("top", "target_error") if k not in choice]
    if missing:
        raise ValueError(f"choice lacks {missing}; pass the dict saved as construction_choice.json.")
    if not n_candidates:
        raise ValueError(f"n_candidates must be a positive number of scanned candidates, got {n_candidates!r}.")
    overlap = len(set(choice["top"]) & set(CBAR_CORRUPTIONS))
    return [
        ledger.add("construction_overlap", "Sec. 5 / App. D",
                   "chosen 10 farthest corruptions that are in the published CIFAR-10-C-bar",
                   paper=10, reproduced=overlap, abs_tol=3, comparable_at=("paper",),
                   note=f"chance level with {n_chosen} of {n_candidates} candidates: "
                        f"{n_chosen * 10 / n_candidates:.1f}"),
        ledger.add("construction_target_error", "scripts/cifar_dataset_distances.sh",
                   "baseline CIFAR-10-C error used as target (%)",
                   paper=PAPER_CONSTRUCTION_TARGET_ERROR, reproduced=round(100 * choice["target_error"], 2),
                   abs_tol=2.0, comparable_at=("paper",)),
    ]
