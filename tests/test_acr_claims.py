"""Tests of the analyses and claim recorders behind notebooks 08 and 09 (ACR critique).

Small hand-made tables whose answers are computed by hand; each claim test flips the input and checks
that the verdict flips with it.
"""
import math

import numpy as np
import pandas as pd
import pytest

from robeval import acr_claims as acl
from robeval import smoothing_metrics as sm
from robeval.claims import NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, Ledger

SOTA = [m for m in sm.METHODS if m != "gaussian"]


def ledger(profile="smoke"):
    return Ledger(paper="ACR", notebook="08_acr_critique", profile=profile)


def verdicts(led):
    return {c.id: c.verdict for c in led.claims}


def cert(radius, correct):
    n = len(radius)
    return pd.DataFrame({"idx": range(n), "label": [0] * n, "predict": [0] * n, "radius": radius,
                         "correct": correct})


# --------------------------------------------------------------------------------------------
# long tables
# --------------------------------------------------------------------------------------------


def test_certified_accuracy_curves_blocks_and_values():
    a = cert([0.5, 1.2, 0.0, 0.8], [1, 1, 0, 0])       # correct radii 0.5, 1.2 of 4 inputs
    b = cert([0.1, 0.1], [1, 0])
    out = sm.certified_accuracy_curves({(0.25, "gaussian"): a, (0.5, "ours"): b}, [0.0, 0.5, 1.0])
    assert list(out.columns) == ["sigma", "method", "radius", "certified_accuracy"]
    assert list(out.method) == ["gaussian"] * 3 + ["ours"] * 3
    np.testing.assert_allclose(out.certified_accuracy, [2 / 4, 2 / 4, 1 / 4, 1 / 2, 0, 0])
    with pytest.raises(ValueError, match="non-empty dict"):
        sm.certified_accuracy_curves({}, [0.0])
    with pytest.raises(ValueError, match="key_names"):
        sm.certified_accuracy_curves({(0.25, "gaussian", 0): a}, [0.0])


def test_certification_table_n_images():
    tab = sm.certification_table({(0.5, "a"): cert([0.3] * 3, [1] * 3), (0.5, "b"): cert([0.3] * 5, [1] * 5)},
                                 [0.0], n_images=True)
    assert list(tab.columns) == ["ACR", "0.00", "n_images"]
    assert list(tab.n_images) == [3, 5]


def test_ecdf_curves_and_max_diff_against_published():
    df = cert([0.2, 0.6, 0.0, 1.0], [1, 1, 1, 0])
    frames = {(0.5, "gaussian"): df}
    own = sm.ecdf_curves(frames, 1000, 0.001, count_offset=0)
    assert len(own) == 501 and list(own.columns) == ["x", "y", "sigma", "method"]
    pub = own[["x", "y"]].copy()
    pub.loc[100, "y"] += 0.003                            # one grid point off by 0.003
    curves = sm.ecdf_curves(frames, 1000, 0.001, count_offset=0, published={(0.5, "gaussian"): pub})
    diff = sm.ecdf_max_diff(curves)
    assert list(diff.columns) == ["sigma", "method", "max_abs_diff"]
    assert diff.max_abs_diff.iloc[0] == pytest.approx(0.003)
    with pytest.raises(ValueError, match="grid"):
        sm.ecdf_curves(frames, 1000, 0.001, published={(0.5, "gaussian"): pub.iloc[:10]})
    with pytest.raises(ValueError, match="lacks the ECDFs"):
        sm.ecdf_curves(frames, 1000, 0.001, published={})
    with pytest.raises(ValueError, match="published"):
        sm.ecdf_max_diff(own)


def ecdf_table(values, sigma=0.5, x=(0.5, 0.999)):
    """Long ECDF table from ``{method: (y at x[0], y at x[1])}``."""
    rows = [{"x": xx, "y": yy, "sigma": sigma, "method": m} for m, ys in values.items() for xx, yy in zip(x, ys)]
    return pd.DataFrame(rows)


def test_ecdf_at_and_compare_to_baseline():
    ec = ecdf_table({"gaussian": (0.6, 0.1), "ours": (0.5, 0.3), "macer": (0.6, 0.05)})
    assert sm.ecdf_at(ec, 0.999, method="ours", sigma=0.5) == 0.3
    d = sm.compare_to_baseline(ec, 0.5, 0.5)
    assert list(d.method) == ["ours", "macer"]
    assert list(d.below) == [True, False] and list(d.above) == [False, False]   # a tie is neither
    d = sm.compare_to_baseline(ec, 0.999, 0.5, methods=["macer", "ours", "catrs"])   # order kept, absent skipped
    assert list(d.method) == ["macer", "ours"] and list(d.above) == [False, True]
    with pytest.raises(ValueError, match="no ECDF point"):
        sm.ecdf_at(ec, 0.7, method="ours")
    with pytest.raises(ValueError, match="baseline"):
        sm.compare_to_baseline(ec, 0.5, 1.0)


# --------------------------------------------------------------------------------------------
# Tables 3, 4, 8 and Section 6
# --------------------------------------------------------------------------------------------


def comparison(acr_file, acc_file):
    # printed: ACR 0.5, accuracies 60.0 at r=0 and 40.0 at r=0.25
    return pd.DataFrame({"sigma": 0.5, "method": "gaussian", "quantity": ["ACR", "0.00", "0.25"],
                         "paper": [0.5, 60.0, 40.0], "recomputed": [acr_file, 60.0, acc_file],
                         "diff": [acr_file - 0.5, 0.0, acc_file - 40.0]})


def test_record_table_row_claims_flip_and_profiles():
    led = ledger("default")
    acl.record_table_row_claims(led, "t3", "Table 3", comparison(0.5004, 40.05), acc_tol=0.1)
    assert verdicts(led) == {"t3_acr_s0.5_gaussian": REPRODUCED, "t3_acc_s0.5_gaussian": REPRODUCED}
    acr_claim, acc_claim = led.claims
    assert acr_claim.reproduced == 0.5004 and acr_claim.note == ""
    assert acc_claim.paper_value == "40.0 at r=0.25" and acc_claim.reproduced.startswith("40.05 (max |diff| 0.05")

    led = ledger("default")
    acl.record_table_row_claims(led, "t3", "Table 3", comparison(0.51, 40.5), acc_tol=0.1)
    assert set(verdicts(led).values()) == {NOT_REPRODUCED}
    assert "differs from the published" in led.claims[0].note

    led = ledger("smoke")   # printed-table comparisons are not judged in the smoke run
    acl.record_table_row_claims(led, "t3", "Table 3", comparison(0.51, 40.5))
    assert set(verdicts(led).values()) == {NOT_COMPARABLE}


def test_record_table8_claims_flip():
    table = pd.DataFrame({"ACR": [0.7590]}, index=pd.MultiIndex.from_tuples([(0.5, "ours")]))
    led = ledger()
    acl.record_table8_claims(led, table, {0.5: (0.7587, 0.0011)})
    assert verdicts(led) == {"t8_ours_acr_s0.5": REPRODUCED}     # |0.7590 - 0.7587| <= 2 * 0.0011
    table.loc[(0.5, "ours"), "ACR"] = 0.7620
    led = ledger()
    acl.record_table8_claims(led, table, {0.5: (0.7587, 0.0011)})
    assert verdicts(led) == {"t8_ours_acr_s0.5": NOT_REPRODUCED}


def radius_table(clean, large, sigma=0.25):
    """Table-3-like frame: every method at one sigma; Gaussian 80 % at r=0 and 30 % at r=0.75."""
    idx = pd.MultiIndex.from_tuples([(sigma, m) for m in sm.METHODS])
    out = pd.DataFrame({"0.00": [80.0] + [clean] * len(SOTA), "0.75": [30.0] + [large] * len(SOTA)}, index=idx)
    return out


def test_below_then_above_and_sec6_claim_flip():
    t = radius_table(clean=75.0, large=40.0)
    assert sm.below_then_above(t, 0.25, "0.00", "0.75") == (True, True)
    led = ledger()
    acl.record_sec6_radius_claims(led, t, {0.25: "0.75"})
    assert verdicts(led) == {"sec6_small_vs_large_radius_s0.25": REPRODUCED}

    t.loc[(0.25, "catrs"), "0.75"] = 30.0                  # a tie at the large radius is not "above"
    assert sm.below_then_above(t, 0.25, "0.00", "0.75") == (True, False)
    led = ledger()
    acl.record_sec6_radius_claims(led, t, {0.25: "0.75"})
    assert verdicts(led) == {"sec6_small_vs_large_radius_s0.25": NOT_REPRODUCED}
    assert led.claims[0].reproduced == "below at r=0: True; above at r=0.75: False"
    with pytest.raises(ValueError, match="column"):
        sm.below_then_above(t, 0.25, "0.00", "9.99")


def test_acr_gain_recovered_and_imagenet_claim_flip():
    # best other method 0.8, Gaussian 0.5, Ours 0.7: Ours recovers 0.2 / 0.3 = 66.7 % of the gain
    idx = pd.MultiIndex.from_tuples([(0.5, "gaussian"), (0.5, "smoothadv"), (0.5, "consistency"), (0.5, "ours")])
    t4 = pd.DataFrame({"ACR": [0.5, 0.8, 0.6, 0.7]}, index=idx)
    assert sm.acr_gain_recovered(t4, 0.5) == pytest.approx(200 / 3)
    led = ledger()
    acl.record_imagenet_recovery_claims(led, t4, {0.5: 66.0})
    assert verdicts(led) == {"sec6_imagenet_recovery_s0.5": REPRODUCED} and led.claims[0].reproduced == 66.7
    led = ledger()
    acl.record_imagenet_recovery_claims(led, t4, {0.5: 94.6})
    assert verdicts(led) == {"sec6_imagenet_recovery_s0.5": NOT_REPRODUCED}
    with pytest.raises(ValueError, match="no method to compare"):
        sm.acr_gain_recovered(t4.iloc[[0, 3]], 0.5)


# --------------------------------------------------------------------------------------------
# ECDF claims: Fig. 9, Fig. 3, Fig. 11
# --------------------------------------------------------------------------------------------


def test_record_fig9_claims_flip():
    cmp = pd.DataFrame({"sigma": [0.5, 1.0], "method": ["ours", "macer"], "max_abs_diff": [0.001, 0.004]})
    led = ledger()
    acl.record_fig9_ecdf_claims(led, cmp, 0.002)
    assert verdicts(led) == {"fig9_ecdf_s0.5_ours": REPRODUCED, "fig9_ecdf_s1.0_macer": NOT_REPRODUCED}
    assert led.claims[1].reproduced == "max |diff| = 0.0040"


def test_record_fig3_claims_flip():
    # every SOTA method: fewer points with p_A >= 0.5 (hard) and more with p_A >= 0.999 (easy) than Gaussian
    values = {"gaussian": (0.7, 0.2), **{m: (0.6, 0.3) for m in SOTA}}
    led = ledger()
    acl.record_fig3_claims(led, ecdf_table(values), sigmas=(0.5,))
    assert verdicts(led) == {"fig3_hard_vs_easy_s0.5": REPRODUCED}
    values["smoothmix"] = (0.6, 0.2)                       # not above Gaussian at the easy end
    led = ledger()
    acl.record_fig3_claims(led, ecdf_table(values), sigmas=(0.5,))
    assert verdicts(led) == {"fig3_hard_vs_easy_s0.5": NOT_REPRODUCED}
    assert led.claims[0].reproduced == "below at 0.5: True; above at 0.999: False"
    del values["macer"]
    with pytest.raises(ValueError, match="macer"):
        acl.record_fig3_claims(ledger(), ecdf_table(values), sigmas=(0.5,))


def test_record_fig11_claims_counts_and_note():
    values = {"gaussian": (0.6, 0.1), "smoothadv": (0.5, 0.2), "ours": (0.55, 0.2)}
    led = ledger("default")
    acl.record_fig11_claims(led, ecdf_table(values), sigmas=(0.5,))
    assert verdicts(led) == {"fig11_more_hard_s0.5": REPRODUCED}
    assert led.claims[0].reproduced == "2 of 2 methods" and led.claims[0].note == ""
    values["ours"] = (0.65, 0.2)
    led = ledger("default")
    acl.record_fig11_claims(led, ecdf_table(values), sigmas=(0.5,))
    assert verdicts(led) == {"fig11_more_hard_s0.5": NOT_REPRODUCED}
    assert led.claims[0].reproduced == "1 of 2 methods" and led.claims[0].note == "not below Gaussian at x=0.5: Ours"


# --------------------------------------------------------------------------------------------
# App. B.3: orders of ECDFs
# --------------------------------------------------------------------------------------------

X3 = [0.5, 0.6, 0.7]


def curve(*y):
    return pd.DataFrame({"x": X3, "y": list(y)})


def ordered_ecdfs(sigma=0.5):
    # catrs > smoothmix > macer strictly everywhere; gaussian highest at x=0.5, 0.6, lowest at 0.7
    return {(sigma, "gaussian"): curve(0.95, 0.9, 0.1), (sigma, "catrs"): curve(0.9, 0.8, 0.7),
            (sigma, "smoothmix"): curve(0.8, 0.7, 0.6), (sigma, "macer"): curve(0.7, 0.6, 0.5)}


def test_ecdf_extremes_and_strict_orders():
    e = ordered_ecdfs()
    assert sm.ecdf_is_extreme_by_sigma(e, "gaussian", 0.5, 0.6, "highest") == {0.5: True}
    assert sm.ecdf_is_extreme_by_sigma(e, "gaussian", 0.5, 0.7, "highest") == {0.5: False}
    assert sm.ecdf_is_extreme_by_sigma(e, "macer", 0.5, 0.6, "lowest") == {0.5: True}
    dom = sm.ecdf_strict_orders(e)
    assert list(dom.columns) == ["better", "worse", "min_gap", "strict", "sigma"]
    pairs = sm.strict_order_pairs(dom)
    assert pairs == {(0.5, "catrs", "smoothmix"), (0.5, "catrs", "macer"), (0.5, "smoothmix", "macer")}
    assert sm.sigmas_with_orders(pairs, [("catrs", "smoothmix"), ("catrs", "macer")], (0.25, 0.5)) == [0.5]
    assert sm.sigmas_with_orders(pairs, [("macer", "catrs")], (0.25, 0.5)) == []
    with pytest.raises(ValueError, match="which"):
        sm.ecdf_is_extreme({m: c for (_, m), c in e.items()}, "macer", 0.5, 0.7, "best")


def test_record_appb3_claims_flip_and_tie_note():
    e = ordered_ecdfs()
    led = ledger()
    acl.record_appb3_low_region_claims(led, e, 0.5, 0.6)
    assert verdicts(led) == {"appB3_gaussian_best_low_s0.5": REPRODUCED}
    led = ledger()
    acl.record_appb3_low_region_claims(led, e, 0.5, 0.7)
    assert verdicts(led) == {"appB3_gaussian_best_low_s0.5": NOT_REPRODUCED}

    pairs = sm.strict_order_pairs(sm.ecdf_strict_orders(e))
    stated = ((("catrs", "smoothmix"),), (("smoothmix", "catrs"),))
    led = ledger("default")
    acl.record_appb3_strict_order_claims(led, pairs, set(), sigmas=(0.5,), stated=stated)
    assert verdicts(led) == {"appB3_strict_orders_1": REPRODUCED, "appB3_strict_orders_2": NOT_REPRODUCED}
    assert led.claims[0].description.startswith("strict ECDF orders CAT-RS > SmoothMix")
    assert led.claims[1].note == ""
    led = ledger("smoke")   # the sigma of the stated orders was lost: judged at default/paper only
    acl.record_appb3_strict_order_claims(led, pairs, set(), sigmas=(0.5,), stated=stated)
    assert set(verdicts(led).values()) == {NOT_COMPARABLE}
    # an order that holds only on [0.5, 0.999] up to ties is named in the note, but does not count
    led = ledger("default")
    acl.record_appb3_strict_order_claims(led, set(), {(0.5, "smoothmix", "catrs")}, sigmas=(0.5,), stated=stated[1:])
    assert verdicts(led) == {"appB3_strict_orders_1": NOT_REPRODUCED}
    assert "ties" in led.claims[0].note and "sigma in [0.5]" in led.claims[0].reproduced


# --------------------------------------------------------------------------------------------
# Appendix B
# --------------------------------------------------------------------------------------------


def test_appendix_b_grid_excess_by_hand():
    e = {(0.5, "m"): pd.DataFrame({"x": [0.5, 0.6, 0.7, 0.8], "y": [0.9, 0.8, 0.5, 0.2]})}

    def curves(file_acc):
        # one certifiable radius with n_min / N = 0.65 (plug-in reads x=0.7; the drop over that step is 0.3)
        # and one radius beyond the budget (min_p_a NaN: ignored)
        return pd.DataFrame({"method": "m", "rule": ["certification file"] * 2 + ["plugin"] * 2,
                             "budget": "N=100", "min_p_a": [np.nan, np.nan, 0.65, np.nan],
                             "certified_accuracy": [file_acc, 0.9, 0.5, 0.0]})

    assert sm.appendix_b_grid_excess(curves(0.7), e, ["m"], 0.5, 100) == 0.0      # |0.2| - 0.3 < 0
    assert sm.appendix_b_grid_excess(curves(1.0), e, ["m"], 0.5, 100) == pytest.approx(0.2)   # 0.5 - 0.3
    with pytest.raises(ValueError, match="matching"):
        sm.appendix_b_grid_excess(curves(1.0), e, ["m"], 0.5, 1000)


def test_appendix_b_curves_blocks_round_trip_and_claims():
    x = np.round(np.arange(500, 1001) / 1000, 3)
    e = pd.DataFrame({"x": x, "y": np.linspace(0.8, 0.1, len(x))})
    frame = cert([0.1, 0.3, 0.0], [1, 1, 0])
    radii = [0.0, 0.1, 0.2]
    out = sm.appendix_b_curves({(0.5, "ours"): e}, {(0.5, "ours"): frame}, ["ours"], 0.5, radii, 100, 0.01, 1000, 0.001)
    assert len(out) == 4 * len(radii)
    assert list(out.drop_duplicates(["rule", "budget"])[["rule", "budget"]].itertuples(index=False, name=None)) == [
        ("plugin", "N=100"), ("binomial", "N=100"), ("plugin", "N=1000"), ("certification file", "N=1000")]
    np.testing.assert_allclose(out[out.rule == "certification file"].certified_accuracy, [2 / 3, 2 / 3, 1 / 3])
    with pytest.raises(ValueError, match="frames has no entry"):
        sm.appendix_b_curves({(0.5, "ours"): e}, {}, ["ours"], 0.5, radii, 100, 0.01, 1000, 0.001)

    rt = sm.appendix_b_round_trip(e.x, e.y, 100, 0.01, 0.5)
    assert rt <= 1e-12
    led = ledger()
    acl.record_appb_claims(led, excess=0.001, round_trip=rt, tol=0.002)
    assert verdicts(led) == {"appB1_same_budget_identity": REPRODUCED, "appB2_round_trip": REPRODUCED}
    led = ledger()
    acl.record_appb_claims(led, excess=0.01, round_trip=1e-3, tol=0.002)
    assert verdicts(led) == {"appB1_same_budget_identity": NOT_REPRODUCED, "appB2_round_trip": NOT_REPRODUCED}


# --------------------------------------------------------------------------------------------
# Section 7, Section 4.2, Theorem 1, the toy example
# --------------------------------------------------------------------------------------------


def test_best_over_sigma_by_method_and_sec7_claim_flip():
    # Gaussian: 3/4 correct at sigma 0.25; Ours: 2/4 at both sigmas -> Gaussian best at r=0
    g25, g50 = cert([0.2, 0.2, 0.2, 0.0], [1, 1, 1, 0]), cert([0.4, 0.0, 0.0, 0.0], [1, 0, 0, 0])
    o25, o50 = cert([0.2, 0.2, 0.0, 0.0], [1, 1, 0, 0]), cert([0.9, 0.9, 0.0, 0.0], [1, 1, 0, 0])
    frames = {(0.25, "gaussian"): g25, (0.5, "gaussian"): g50, (0.25, "ours"): o25, (0.5, "ours"): o50}
    best = sm.best_over_sigma_by_method(frames, [0.0, 0.5])
    assert list(best.method) == ["gaussian", "gaussian", "ours", "ours"]
    tab = sm.best_over_sigma_table(best)
    assert tab.loc["gaussian", 0.0] == 75.0 and tab.loc["ours", 0.5] == 50.0
    led = ledger()
    acl.record_sec7_claims(led, tab)
    assert verdicts(led) == {"sec7_gaussian_best_at_r0": REPRODUCED}
    frames[(0.5, "ours")] = cert([0.9, 0.9, 0.9, 0.9], [1, 1, 1, 1])
    led = ledger()
    acl.record_sec7_claims(led, sm.best_over_sigma_table(sm.best_over_sigma_by_method(frames, [0.0, 0.5])))
    assert verdicts(led) == {"sec7_gaussian_best_at_r0": NOT_REPRODUCED} and led.claims[0].reproduced == "ours"
    with pytest.raises(ValueError, match="every sigma"):
        sm.best_over_sigma_by_method({(0.25, "gaussian"): g25, (0.5, "ours"): o50}, [0.0])


def test_fig2_points_and_sec42_claims_flip():
    r_max = sm.max_certified_radius(100_000, 0.001, 1.0)
    pts = sm.fig2_points(100_000, 0.001)
    assert list(pts.p[:5]) == [0.5, 0.9, 0.99, 0.999, 0.9999] and pts.p.iloc[-1] == pytest.approx(0.001 ** 1e-5)
    grid = sm.fig2_p_grid(100_000, 0.001, points=10)
    assert grid.shape == (20,) and grid[0] == 0.5 and grid[-1] == pytest.approx(pts.p.iloc[-1])
    gain, p_equiv = sm.radius_gain_equivalent(0.5, 0.8413447460685429)   # Phi(1) = 0.8413...
    assert gain == pytest.approx(1.0) and p_equiv == pytest.approx(0.8413447460685429)

    frames = {(1.0, "gaussian"): cert([round(r_max, 3), 0.5], [1, 1]), (0.5, "gaussian"): cert([9.0], [1])}
    led = ledger()
    acl.record_sec42_claims(led, frames, r_max, pts)
    assert verdicts(led) == {"sec42_max_radius": REPRODUCED, "sec42_easy_1000x": REPRODUCED}
    frames[(1.0, "gaussian")] = cert([3.0], [1])            # the sigma=0.5 file's 9.0 must not count
    led = ledger()
    acl.record_sec42_claims(led, frames, r_max, pts.iloc[:3])   # slope at p=0.99 is < 1000 x the slope at 0.5
    assert verdicts(led) == {"sec42_max_radius": NOT_REPRODUCED, "sec42_easy_1000x": NOT_REPRODUCED}


def test_theorem1_table_and_claim_flip():
    # binary, balanced (class fraction 0.5), sigma 0.5: N > ln(0.001) / ln(Phi(0.4)) = 16.3 for a target of 0.1
    th = sm.theorem1_table([0.1, 0.3], 0.001, 0.5, 0.5)
    assert list(th.columns) == ["target_ACR", "min_budget_N", "log10_N", "ACR_at_N"]
    assert th.min_budget_N[0] == 17 and th.log10_N[0] == pytest.approx(math.log10(17))
    assert (th.ACR_at_N > th.target_ACR).all()
    assert float(sm.trivial_classifier_acr(16, 0.001, 0.5, 0.5)) <= 0.1   # one draw less does not reach it
    led = ledger()
    acl.record_theorem1_claims(led, th)
    assert verdicts(led) == {"thm1_unbounded_acr": REPRODUCED}
    led = ledger()
    acl.record_theorem1_claims(led, th.assign(ACR_at_N=[0.2, 0.25]))
    assert verdicts(led) == {"thm1_unbounded_acr": NOT_REPRODUCED}


def test_toy_order_summary_and_claims_flip():
    toy = pd.DataFrame({"N": [20, 100, 1000, 20, 100, 1000], "mode": ["plugin"] * 3 + ["expected"] * 3,
                        "better": ["trivial", "constant", "trivial", "trivial", "trivial", "trivial"]})
    scan = pd.DataFrame({"N": [10, 100, 1000, 10000], "better": ["trivial", "constant", "constant", "trivial"]})
    s = sm.toy_order_summary(toy, scan)
    assert s["order"] == ["trivial", "constant", "trivial"] and s["flips"] == 2
    assert s["changes"] == [100, 10000] and s["final"] == 1000
    led = ledger()
    acl.record_toy_claims(led, s, scan)
    assert verdicts(led) == {"sec41_toy_order_flips": REPRODUCED, "sec42_toy_trivial_forever": REPRODUCED}
    assert led.claims[0].reproduced == "trivial -> constant -> trivial (scan: changes at N=[100, 10000])"

    toy.loc[2, "better"] = "constant"                     # the trivial classifier never wins back
    scan.loc[3, "better"] = "constant"
    scan = pd.concat([scan, pd.DataFrame({"N": [100000], "better": ["constant"]})], ignore_index=True)
    s = sm.toy_order_summary(toy, scan)
    assert s["flips"] == 1
    led = ledger()
    acl.record_toy_claims(led, s, scan)
    assert verdicts(led)["sec41_toy_order_flips"] == NOT_REPRODUCED
    # trivial at both ends is not enough: the order must change twice
    for order in (["trivial"] * 3, ["trivial", "constant", "trivial", "constant", "trivial"]):
        led = ledger()
        acl.record_toy_claims(led, sm.toy_order_summary(pd.DataFrame({"N": range(len(order)), "mode": "plugin",
                                                                      "better": order}), scan), scan)
        assert verdicts(led)["sec41_toy_order_flips"] == NOT_REPRODUCED, order


def test_budget_scan_is_unique_and_increasing():
    scan = sm.budget_scan(0.92, 30, 0.5, 0.001)
    assert scan.N.is_monotonic_increasing and scan.N.is_unique and scan.N.iloc[0] == 10 and scan.N.iloc[-1] == 10 ** 7
    modes = sm.budget_toy_modes(0.92, [20, 100], 0.5, 0.001)
    assert list(modes["mode"]) == ["plugin", "plugin", "expected", "expected"]
    with pytest.raises(ValueError, match="points"):
        sm.budget_scan(0.92, 1, 0.5, 0.001)


def test_largest_certifiable_column():
    cols = ["ACR", "0.00", "0.25", "0.50", "0.75", "1.00", "1.25", "1.50", "1.75", "2.00"]
    r_max = sm.max_certified_radius(1000, 0.001, 0.5)      # 0.5 * Phi^-1(0.001 ** 0.001) ~ 1.23
    assert 1.0 < r_max < 1.25
    assert sm.largest_certifiable_column(cols, 1000, 0.001, 0.5, cap=1.75) == ("1.00", r_max)
    assert sm.largest_certifiable_column(cols, 1000, 0.001, 0.5, cap=0.6)[0] == "0.50"
    with pytest.raises(ValueError, match="no radius column"):
        sm.largest_certifiable_column(["ACR", "0.00"], 1000, 0.001, 0.5)


def test_record_functions_validate_inputs():
    with pytest.raises(TypeError, match="Ledger"):
        acl.record_theorem1_claims(object(), pd.DataFrame())
    with pytest.raises(ValueError, match="lacks columns"):
        acl.record_table_row_claims(ledger(), "t3", "Table 3", pd.DataFrame({"sigma": [0.5]}))
    with pytest.raises(ValueError, match="radius 0.0"):
        acl.record_sec7_claims(ledger(), pd.DataFrame({0.25: [1.0]}, index=["gaussian"]))


# --------------------------------------------------------------------------------------------
# notebook 09: variant tables and their claims
# --------------------------------------------------------------------------------------------


def variant_cert(all_radius=0.8):
    # gaussian: seed 0 ACR (0.4 + 0) / 2 = 0.2, seed 1 ACR 0.4 / 2 = 0.2 -> 0.2; "all": radius all_radius on both inputs
    rows = [(0.5, "gaussian", 0, 0.4, 1), (0.5, "gaussian", 0, 0.0, 0), (0.5, "gaussian", 1, 0.4, 1),
            (0.5, "gaussian", 1, 0.9, 0), (0.5, "all", 0, all_radius, 1), (0.5, "all", 0, all_radius, 1)]
    df = pd.DataFrame(rows, columns=["sigma", "variant", "seed", "radius", "correct"])
    return df.assign(label=0, predict=0, idx=range(len(df)))


def test_variant_tables():
    rst = pytest.importorskip("robeval.rs_training")
    tab = rst.variant_certification_table(variant_cert(), [0.0, 0.5])
    assert list(tab.index) == [(0.5, "gaussian"), (0.5, "all")]
    assert tab.loc[(0.5, "gaussian"), "ACR"] == pytest.approx(0.2)
    assert tab.loc[(0.5, "gaussian"), "0.00"] == pytest.approx(50.0)
    assert tab.loc[(0.5, "all"), "0.50"] == pytest.approx(100.0)
    ec = rst.variant_ecdfs(variant_cert(), 40, 0.001)
    assert list(ec.columns) == ["x", "y", "sigma", "variant"] and len(ec) == 2 * 501
    summary = pd.DataFrame({"sigma": 0.5, "variant": "gaussian", "seed": [0, 1], "n_kept": 10, "n_easy": 4,
                            "n_hard": 2, "grad_easy": [1.0, 3.0], "grad_hard": [4.0, 4.0], "grad_easy_attack": 5.0,
                            "grad_hard_attack": 5.0, "train_seconds": 1.0})
    t2 = rst.gradient_norm_table(summary)
    assert t2.loc[(0.5, "gaussian"), "ratio"] == pytest.approx(0.5)          # mean 2.0 / mean 4.0
    assert t2.loc[(0.5, "gaussian"), "ratio_attack"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="grad_easy"):
        rst.gradient_norm_table(summary.drop(columns="grad_easy"))
    with pytest.raises(ValueError, match="seed"):
        rst.variant_certification_table(variant_cert().drop(columns="seed"), [0.0])


def test_record_table5_and_table2_claims_flip():
    rst = pytest.importorskip("robeval.rs_training")
    setup = dict(cert_n=1000, cert_alpha=0.001, arch="cnn_small", n_train=10, epochs=1)
    led = ledger("default")
    acl.record_table5_claims(led, rst.variant_certification_table(variant_cert(1.1), sm.CIFAR10_RADII), **setup)
    v = verdicts(led)
    assert v["t5_all_beats_gaussian_acr"] == REPRODUCED and v["t5_all_gains_at_large_radius"] == REPRODUCED
    assert v["t5_acr_s0.5_gaussian"] == NOT_COMPARABLE       # scaled-down ACRs are judged at `paper` only
    assert led.claims[0].note == "default profile: cnn_small, 10 images, 1 epochs, N=1000"
    assert "r=1.00" in led.claims[-1].description           # the largest column below r_max ~ 1.23
    assert led.claims[2].paper_value == "0.760 vs 0.525"
    led = ledger("default")
    acl.record_table5_claims(led, rst.variant_certification_table(variant_cert(0.05), sm.CIFAR10_RADII), **setup)
    v = verdicts(led)
    assert v["t5_all_beats_gaussian_acr"] == NOT_REPRODUCED and v["t5_all_gains_at_large_radius"] == NOT_REPRODUCED

    def t2(easy):
        idx = pd.MultiIndex.from_tuples([(0.5, "gaussian")])
        return pd.DataFrame({"grad_easy": [easy], "grad_hard": [10.0], "grad_easy_attack": [12.0],
                             "ratio": [easy / 10.0]}, index=idx)

    led = ledger("default")
    acl.record_table2_claims(led, t2(4.5))
    assert verdicts(led) == {"t2_gaussian_ratio": NOT_COMPARABLE, "t2_gaussian_easy_lighter": REPRODUCED,
                             "fig5_attack_amplifies_easy": REPRODUCED}
    led = ledger("paper")
    acl.record_table2_claims(led, t2(4.5))
    assert verdicts(led)["t2_gaussian_ratio"] == REPRODUCED     # 0.45 printed
    led = ledger("default")
    acl.record_table2_claims(led, t2(15.0))
    assert verdicts(led) == {"t2_gaussian_ratio": NOT_COMPARABLE, "t2_gaussian_easy_lighter": NOT_REPRODUCED,
                             "fig5_attack_amplifies_easy": NOT_REPRODUCED}
    led = ledger("default")
    acl.record_table2_claims(led, t2(4.5).rename(index={"gaussian": "all"}))
    assert led.claims == []                                    # no Gaussian model: nothing to claim
    assert math.isclose(sm.PAPER_TABLE2.loc["gaussian", "ratio"], 0.45)
