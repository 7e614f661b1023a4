"""The "what we found" sentences of notebooks 05–07, generated from each section's results.

Each function takes the frames the section has just computed or loaded and returns a
:class:`robeval.core.publish.findings.Found` of 1–5 sentences. Real-world robustness :math:`P_r` and correlations are
unitless.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from robeval.core.publish.findings import Found, found

__all__ = ["adv_vs_real", "agreement", "covariance", "fog", "mc_check", "runs"]


def runs(results: Mapping[str, Mapping[str, pd.DataFrame]]) -> Found:
    """The trained classifiers: ``results`` maps a dataset to its loaded tables, whose ``runs`` frame has
    ``test_accuracy``, ``attack`` and ``attack_success_rate`` (one row per run)."""
    parts = [
        f"{d}: {len(t['runs'])} runs, test accuracy {100 * t['runs']['test_accuracy'].mean():.1f}% (mean), "
        f"{t['runs']['attack'].iloc[0]} finds a counterfactual for {100 * t['runs']['attack_success_rate'].mean():.0f}%"
        " of the test points"
        for d, t in results.items()
    ]
    text = "; ".join(parts)
    return found(text[:1].upper() + text[1:] + ".")


def adv_vs_real(stats: Mapping[str, pd.DataFrame]) -> Found:
    """Figs. 3–4: ``stats`` maps a dataset to :func:`robeval.realworld.summaries.sec41_statistics` (one row per
    run: ``spearman_adv``, ``spearman_ceiling``, ``frac_rw_09``, ``frac_adv_09``)."""
    rank = [
        f"{d} {s['spearman_adv'].mean():.2f} (two estimates of P_r agree to {s['spearman_ceiling'].mean():.3f})"
        for d, s in stats.items()
    ]
    frac = [
        f"{d} {100 * s['frac_rw_09'].mean():.0f}% of the points have P_r > 0.9, "
        f"{100 * s['frac_adv_09'].mean():.0f}% an adversarial robustness > 0.9"
        for d, s in stats.items()
    ]
    return found(
        "Spearman correlation of adversarial robustness with real-world robustness, mean over runs: "
        + "; ".join(rank)
        + ".",
        "The two notions distribute differently: " + "; ".join(frac) + ".",
    )


def covariance(stats: Mapping[str, pd.DataFrame]) -> Found:
    """Fig. 5: ``stats`` as in :func:`adv_vs_real`, with ``d_random`` (mean |ΔP_r| between identity and a random
    covariance of the same trace) and ``d_noise`` (the same between two estimates under one covariance)."""
    parts = [
        f"{d} {s['d_random'].mean():.3f} against {s['d_noise'].mean():.4f} between two estimates"
        for d, s in stats.items()
    ]
    return found(
        "Replacing the identity covariance by a random one of the same trace changes P_r by (mean |ΔP_r|) "
        + "; ".join(parts)
        + ": the covariance matters beyond Monte-Carlo noise.",
    )


def fog(stats: pd.DataFrame, synthetic: bool) -> Found:
    """Fig. 6: :func:`robeval.realworld.summaries.fog_statistics` (one row per trained network)."""
    return found(
        f"Over {len(stats)} networks and {int(stats['test points'].iloc[0])} test hours: the smallest P_r is "
        f"{stats['min P_r'].min():.2f}, {100 * stats['fraction P_r > 0.99'].mean():.0f}% of the hours have P_r > 0.99, "
        f"and Spearman(DeepFool distance, P_r) is {stats['Spearman(adv, P_r)'].mean():.2f} against a ceiling of "
        f"{stats['Spearman ceiling'].mean():.3f}.",
        "These numbers come from the synthetic stand-in, not ERA5/SYNOP: they test the code path, not the paper's "
        "claims."
        if synthetic
        else "",
    )


def agreement(agree: pd.DataFrame, edge: pd.DataFrame) -> Found:
    """Where the closed forms agree: ``agree`` is indexed by model (``linear``, ``right_angle``) with columns
    ``spearman`` and ``max_order_violation``; ``edge`` has ``t``, ``distance`` and ``robustness`` along the points
    at one counterfactual distance."""
    return found(
        f"For a linear boundary P_r and the counterfactual distance order the points alike (Spearman "
        f"{agree.loc['linear', 'spearman']:.4f}); at a right-angle boundary they do not (Spearman "
        f"{agree.loc['right_angle', 'spearman']:.3f}, order violations up to "
        f"{agree.loc['right_angle', 'max_order_violation']:.2f} in P_r).",
        f"Along points at the same distance {edge['distance'].iloc[0]:g} from the boundary, P_r runs from "
        f"{edge['robustness'].min():.3f} to {edge['robustness'].max():.3f}.",
    )


def mc_check(summary: pd.DataFrame, level: float = 0.05) -> Found:
    """The Monte-Carlo estimator against the closed forms: ``summary`` is
    :func:`robeval.realworld.summaries.mc_check_summary` (``points``, ``max_abs_z``, ``max_abs_err`` per case).
    The largest |z| is judged against the family-wise bound at ``level`` over all points (Bonferroni)."""
    from scipy.stats import norm

    n = int(summary["points"].sum())
    bound = float(norm.ppf(1 - level / (2 * n)))
    z = float(summary["max_abs_z"].max())
    return found(
        f"Over {n} points in {len(summary)} cases the estimator stays within {summary['max_abs_err'].max():.3f} of "
        "the closed form.",
        f"The largest standardised error, {z:.2f}, is {'within' if z <= bound else 'beyond'} the family-wise "
        f"{100 * (1 - level):.0f}% bound of {bound:.2f} for {n} points"
        + ("." if z <= bound else ": the estimator or a closed form is off somewhere."),
    )
