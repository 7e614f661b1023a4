"""Tests for the claims of notebooks 03/04 (robeval.msd) and the tables they are judged on
(robeval.msd, robeval.msd), on small hand-made inputs."""

import math

import numpy as np
import pandas as pd
import pytest

from robeval.core.ledger import NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, Ledger
from robeval.msd import cbar as X
from robeval.msd import claims as MC
from robeval.msd.powerset import powerset_cells, toy_cells
from robeval.msd.tables import (
    mean_error_by_kind,
    method_vs_powerset_median,
    relative_msd_reduction,
    single_op_table,
    spearman_summary,
    toy_landmarks,
    toy_table,
)
from robeval.transforms import augmentations as A
from robeval.transforms.corruptions import C_CORRUPTIONS, CANDIDATE_CORRUPTIONS, CBAR_CORRUPTIONS, scan_levels


def ledger(profile="default"):
    return Ledger(paper="msd", notebook="test_msd_claims", profile=profile)


def verdicts(claims):
    return {c.id: c.verdict for c in claims}


# ================================================================== notebook 03: tables
def test_toy_and_powerset_cells_seeds():
    assert toy_cells([0.0, 0.5], seed=2) == [{"fraction": 0.0, "seed": 2700}, {"fraction": 0.5, "seed": 2701}]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        toy_cells([1.5], seed=0)
    # powerset order: empty first, then single ops in BASE_OPS order
    cells = powerset_cells([frozenset(), frozenset({"solarize"})], ["patch_gaussian"], seed=2)
    assert cells == [
        {"scheme": "none", "seed": 2000},
        {"scheme": "solarize", "seed": 2000 + 1 + A.BASE_OPS.index("solarize")},
        {"scheme": "patch_gaussian", "seed": 2600},
    ]
    with pytest.raises(ValueError, match="unknown method"):
        powerset_cells([frozenset()], ["mixup"], seed=0)
    with pytest.raises(TypeError, match="integer"):
        powerset_cells([frozenset()], [], seed=1.5)


def test_toy_table_averages_target_errors_over_severities():
    runs = pd.DataFrame(
        {
            "fraction": [0.0, 0.0, 0.0, 1.0, 1.0],
            "corruption": ["impulse_noise", "impulse_noise", "motion_blur", "impulse_noise", "clean"],
            "severity": [1, 2, 1, 1, 0],
            "error": [0.5, 0.7, 0.1, 0.2, 0.9],
        }
    )
    dist = [{"fraction": 0.0, "mmd": 2.0, "msd": 1.0}, {"fraction": 1.0, "mmd": 0.0, "msd": 0.5}]
    toy = toy_table(dist, runs)
    assert list(toy.columns) == ["fraction", "mmd", "msd", "error_impulse_noise"]
    assert toy["error_impulse_noise"].tolist() == pytest.approx([0.6, 0.2])
    with pytest.raises(ValueError, match="no rows for corruption 'snow'"):
        toy_table(dist, runs, corruption="snow")
    with pytest.raises(ValueError, match="lacks column"):
        toy_table(dist, runs.drop(columns="error"))


def test_spearman_summary_counts_strictly_above():
    rho = pd.DataFrame(
        {"rho_msd": [0.7, 0.6, 0.9, np.nan], "rho_mmd": [0.1, 0.2, 0.3, 0.4]}, index=["a", "b", "c", "d"]
    )
    s = spearman_summary(rho)
    assert s == {
        "n_above": 2,
        "n_corruptions": 4,
        "median_rho_msd": pytest.approx(0.7),
        "median_rho_mmd": pytest.approx(0.25),
    }
    assert spearman_summary(rho, threshold=0.5)["n_above"] == 3


def test_relative_msd_reduction():
    assert relative_msd_reduction(0.5, 2.0) == 0.75
    assert relative_msd_reduction(3.0, 2.0) == -0.5  # including the op moved the scheme away
    assert math.isnan(relative_msd_reduction(1.0, 0.0))
    assert math.isnan(relative_msd_reduction(np.nan, 1.0))


def _avg():
    """Severity-averaged rows: the empty scheme, two single ops, one pair and one method on two corruptions."""
    schemes = (
        ("none", "powerset", 0, 0.5),
        ("solarize", "powerset", 1, 0.6),
        ("translate_x", "powerset", 1, 0.3),
        ("solarize+translate_x", "powerset", 2, 0.2),
        ("patch_gaussian", "method", -1, 0.4),
    )
    msds = {"motion_blur": (3.0, 2.0, 1.0, 0.5, 1.5), "gaussian_noise": (4.0, 3.0, 2.0, 1.0, 2.5)}
    rows = [
        {"scheme": scheme, "family": family, "n_ops": n_ops, "corruption": corruption, "error": err, "msd": d, "mmd": d}
        for corruption, ds in msds.items()
        for (scheme, family, n_ops, err), d in zip(schemes, ds)
    ]
    return pd.DataFrame(rows)


def test_single_op_table_and_kind_means():
    single = single_op_table(_avg(), "motion_blur")
    assert single["scheme"].tolist() == ["none", "solarize", "translate_x"]
    assert single["kind"].tolist() == ["baseline", "color", "geometric"]
    assert mean_error_by_kind(single) == pytest.approx({"geometric": 0.3, "color": 0.6, "baseline": 0.5})


def test_toy_landmarks_sorts_and_measures_linearity():
    toy = pd.DataFrame(
        {
            "fraction": [1.0, 0.0, 0.3],
            "mmd": [0.0, 1.0, 0.7],
            "msd": [0.1, 1.0, 0.2],
            "error_impulse_noise": [0.1, 0.9, 0.2],
        }
    )
    lm = toy_landmarks(toy)
    assert (lm["far"]["fraction"], lm["small"]["fraction"], lm["near"]["fraction"]) == (0.0, 0.3, 1.0)
    assert lm["mmd_linearity"] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="> 0"):
        toy_landmarks(toy[toy["fraction"] == 0.0])


def test_method_vs_powerset_median():
    avg = _avg()
    assert method_vs_powerset_median(avg, "patch_gaussian", "motion_blur") == pytest.approx((1.5, 1.5))
    m, ref = method_vs_powerset_median(avg, "autoaugment", "motion_blur")
    assert math.isnan(m) and ref == pytest.approx(1.5)


# ================================================================== notebook 03: claims
def _rho(n_above=12, brightness=0.5, mmd=0.1):
    """15 corruptions: ``n_above`` of the 14 besides brightness at rho 0.8, the rest at 0.2."""
    others = [c for c in C_CORRUPTIONS if c != "brightness"]
    rho = pd.DataFrame({"rho_msd": [0.8] * n_above + [0.2] * (len(others) - n_above)}, index=others)
    rho.loc["brightness", "rho_msd"] = brightness
    rho["rho_mmd"] = mmd
    return rho


def test_spearman_claims_verdicts_follow_the_correlations():
    led = ledger()
    out = MC.record_spearman_claims(led, _rho(), n_schemes=12)
    assert [c.id for c in out] == ["msd_spearman_count", "msd_brightness_negative", "msd_mmd_correlates_worse"]
    assert out[0].reproduced == 12 and out[0].note == "12 schemes; out of 15 corruptions"
    assert set(verdicts(out).values()) == {REPRODUCED}
    assert out[1].reproduced == 0.5
    assert out[2].reproduced == "MSD 0.80 vs MMD 0.10"
    # 8 of 15 above (off by 4 > abs_tol 3), brightness among them, MMD correlates better than MSD
    flipped = MC.record_spearman_claims(ledger(), _rho(n_above=7, brightness=0.65, mmd=0.9), n_schemes=12)
    assert flipped[0].reproduced == 8
    assert flipped[2].reproduced == "MSD 0.65 vs MMD 0.90"
    assert set(verdicts(flipped).values()) == {NOT_REPRODUCED}
    # the smoke profile scales the protocol down: shown, not judged
    assert set(verdicts(MC.record_spearman_claims(ledger("smoke"), _rho(), 3)).values()) == {NOT_COMPARABLE}
    with pytest.raises(ValueError, match="brightness"):
        MC.record_spearman_claims(ledger(), _rho().drop(index="brightness"), 3)


def _effects(si=(1.0, 2.0), sm=(1.9, 2.0), tm=(0.5, 2.0), ti=(2.2, 2.0)):
    rows = [
        ("solarize", "impulse_noise", si),
        ("solarize", "motion_blur", sm),
        ("translate_x", "impulse_noise", ti),
        ("translate_x", "motion_blur", tm),
    ]
    return pd.DataFrame([{"op": op, "corruption": c, "msd_with": w, "msd_without": wo} for op, c, (w, wo) in rows])


def test_inclusion_claims_compare_relative_reductions():
    out = MC.record_inclusion_claims(ledger(), _effects())
    assert [c.id for c in out] == ["msd_fig4_solarize_impulse", "msd_fig4_translate_motion"]
    assert out[0].reproduced == "50.0% vs 5.0%"
    assert out[1].reproduced == "75.0% vs -10.0%"  # a negative effect on the other corruption counts as 0
    assert out[0].description.startswith("including solarize lowers the MSD to impulse noise")
    assert set(verdicts(out).values()) == {REPRODUCED}
    # solarize helps motion blur more (60%) than impulse noise (50%); translate x moves away from motion blur
    out = MC.record_inclusion_claims(ledger(), _effects(sm=(0.8, 2.0), tm=(2.1, 2.0), ti=(2.5, 2.0)))
    assert set(verdicts(out).values()) == {NOT_REPRODUCED}
    with pytest.raises(ValueError, match="exactly one row"):
        MC.record_inclusion_claims(ledger(), _effects().iloc[:3])


def _toy(msd_small=0.2, err_small=0.15, mmd_small=0.95):
    return pd.DataFrame(
        {
            "fraction": [1.0, 0.05, 0.0],
            "mmd": [0.0, mmd_small, 1.0],
            "msd": [0.1, msd_small, 1.0],
            "error_impulse_noise": [0.1, err_small, 0.9],
        }
    )


def test_toy_claims():
    out = MC.record_toy_claims(ledger(), _toy())
    assert [c.id for c in out] == ["msd_fig2_mmd_linear", "msd_fig2_msd_low", "msd_fig2_error_low"]
    assert out[0].reproduced == "corr(fraction, MMD) = -1.000"
    assert out[1].reproduced == "MSD 0.2 vs 1 at 0% and 0.1 at 100%"
    assert "(5%)" in out[1].description
    assert set(verdicts(out).values()) == {REPRODUCED}
    # MMD no longer linear; MSD and error still more than halfway up at 5%: 0.7 > 0.45 and 0.6 > 0.4
    out = MC.record_toy_claims(ledger(), _toy(msd_small=0.8, err_small=0.7, mmd_small=0.1))
    assert set(verdicts(out).values()) == {NOT_REPRODUCED}
    # "low" is relative to the 100% end: error 0.6 at 5% is within a quarter of the way from 0.5 (100%) to 0.9 (0%)
    toy = _toy()
    toy["error_impulse_noise"] = [0.5, 0.6, 0.9]
    assert MC.record_toy_claims(ledger(), toy)[2].verdict == REPRODUCED


def test_single_op_claims():
    single = pd.DataFrame({"kind": ["baseline", "color", "color", "geometric"], "error": [0.5, 0.6, 0.7, 0.3]})
    (c,) = MC.record_single_op_claims(ledger(), single)
    assert c.reproduced == "geometric 0.300, colour 0.650, baseline 0.500" and c.verdict == REPRODUCED
    single.loc[3, "error"] = 0.55  # geometric no better than the baseline
    assert MC.record_single_op_claims(ledger(), single)[0].verdict == NOT_REPRODUCED


def test_method_claims_only_for_methods_that_ran():
    avg = _avg()
    (c,) = MC.record_method_claims(ledger(), avg, ["patch_gaussian"])
    # gaussian_noise: powerset MSDs 4, 3, 2, 1 -> median 2.5; Patch Gaussian's 2.5 is not below it
    assert c.id == "msd_fig5_patch_gaussian_gaussian_noise"
    assert c.reproduced == "2.5 vs powerset median 2.5" and c.verdict == NOT_REPRODUCED
    avg.loc[(avg["scheme"] == "patch_gaussian") & (avg["corruption"] == "gaussian_noise"), "msd"] = 1.0
    assert MC.record_method_claims(ledger(), avg, ["patch_gaussian"])[0].verdict == REPRODUCED
    out = MC.record_method_claims(ledger(), avg, ["autoaugment", "patch_gaussian"])
    assert [c.id for c in out] == ["msd_fig5_patch_gaussian_gaussian_noise", "msd_fig5_autoaugment_contrast"]
    assert out[1].reproduced == "nan vs powerset median nan" and out[1].verdict == NOT_REPRODUCED
    assert MC.record_method_claims(ledger(), avg, []) == []


def test_record_functions_reject_a_non_ledger():
    with pytest.raises(TypeError, match="Ledger"):
        MC.record_single_op_claims([], pd.DataFrame({"kind": [], "error": []}))


# ================================================================== notebook 04: tables
def test_mean_pixel_change_per_severity():
    clean = np.full((2, 2, 2, 3), 10, np.uint8)
    corrupted = np.stack([np.full_like(clean, 11), np.zeros_like(clean), np.full_like(clean, 255)])
    # computed in float: no uint8 wrap-around for darker pixels
    assert X.mean_pixel_change(clean, corrupted).tolist() == [1.0, 10.0, 245.0]
    with pytest.raises(ValueError, match="shape"):
        X.mean_pixel_change(clean, corrupted[:, :1])


def test_pixel_change_table_reads_release_layout(tmp_path):
    clean = np.zeros((2, 1, 1, 3), np.uint8)
    for folder, name, value in (("c", "snow", 3), ("cbar", "ripple", 7)):
        (tmp_path / folder).mkdir()
        x = np.concatenate([np.full_like(clean, value * s) for s in range(1, 6)])  # (5N, H, W, 3)
        np.save(tmp_path / folder / f"{name}.npy", x)
        np.save(tmp_path / folder / "labels.npy", np.tile([0, 1], 5))
    table = X.pixel_change_table(clean, [("C", ["snow"], tmp_path / "c"), ("C-bar", ["ripple"], tmp_path / "cbar")])
    assert table.columns.tolist() == ["benchmark", "corruption", "sev1", "sev2", "sev3", "sev4", "sev5"]
    assert table.iloc[0, 2:].tolist() == [3.0, 6.0, 9.0, 12.0, 15.0]
    assert table.iloc[1, :2].tolist() == ["C-bar", "ripple"] and table.iloc[1, 2] == 7.0


def test_table1_cells_and_paper_table():
    assert X.table1_cells(["none", "augmix"], 2, 5) == [
        {"augmentation": "none", "seed": 5},
        {"augmentation": "augmix", "seed": 5},
        {"augmentation": "none", "seed": 6},
        {"augmentation": "augmix", "seed": 6},
    ]
    with pytest.raises(ValueError, match="unknown augmentation"):
        X.table1_cells(["cutout"], 1, 0)
    paper = X.paper_cbar_table()
    assert paper.shape == (4, 10) and paper.columns.tolist() == list(CBAR_CORRUPTIONS)
    assert paper.loc["AugMix", "blue_noise_sample"] == 9.8
    assert paper.loc["Patch Gaussian", "transverse_chromatic_abberation"] == 59.5


def test_scan_plan():
    cfg = {
        "seed": 3,
        "n_seeds": 1,
        "n_scan": 20,
        "n_feature_images": 5,
        "n_feature_samples": 2,
        "feature_seed": 1,
        "scan_c_limit": 2,
        "scan_candidate_limit": 12,
    }
    t1 = {"arch": "cnn_small", "model_dir": "/m"}
    conf = X.scan_config(cfg, t1)
    assert conf["error_model"] == conf["feature_model"] == "/m/cnn_small_none_seed3.pt"
    assert conf["n_scan"] == 20 and conf["arch"] == "cnn_small"
    # with a second seed the release's second baseline model extracts the features
    assert X.scan_config({**cfg, "n_seeds": 2}, t1)["feature_model"] == "/m/cnn_small_none_seed4.pt"
    baseline, candidates = X.scan_corruptions(cfg)
    assert baseline == list(C_CORRUPTIONS[:2])
    assert candidates[:10] == list(CBAR_CORRUPTIONS) and len(candidates) == 12
    assert not set(candidates[10:]) & set(CBAR_CORRUPTIONS) and set(candidates) <= set(CANDIDATE_CORRUPTIONS)
    cells = X.scan_cells(["snow"], ["ripple"], 2, seed=3)
    assert cells[:5] == [{"corruption": "snow", "kind": "c", "level": s, "seed": 3} for s in range(1, 6)]
    assert [c["level"] for c in cells[5:]] == [round(float(v), 4) for v in scan_levels("ripple", 2)]
    assert {c["kind"] for c in cells[5:]} == {"cbar"}


def test_cbar_gain_over_baseline():
    cb = pd.DataFrame({"blue_noise_sample": [40.0, 30.0, 38.0]}, index=["Baseline", "AugMix", "AutoAugment"])
    assert X.cbar_gain_over_baseline(cb).to_dict() == {"AugMix": 10.0, "AutoAugment": 2.0}
    with pytest.raises(ValueError, match="Baseline"):
        X.cbar_gain_over_baseline(cb.drop(index="Baseline"))
    assert X.method_slug("Patch Gaussian") == "patch_gaussian"


# ================================================================== notebook 04: claims
def _summary(c=(27.0, 19.4, 11.1, 17.0), cbar=(27.1, 21.0, 16.0, 23.8)):
    s = pd.DataFrame({"c_err": c, "cbar_err": cbar}, index=["Baseline", "AutoAugment", "AugMix", "Patch Gaussian"])
    s["delta"] = s["cbar_err"] - s["c_err"]
    s["gain_c"] = s.loc["Baseline", "c_err"] - s["c_err"]
    s["gain_cbar"] = s.loc["Baseline", "cbar_err"] - s["cbar_err"]
    s["paper_c_err"] = [27.0, 19.4, 11.1, 17.0]
    s["paper_cbar_err"] = [27.1, 21.0, 16.0, 23.8]
    return s


def _cbar(autoaugment=17.7):
    return pd.DataFrame(
        {"blue_noise_sample": [42.9, autoaugment, 9.8, 9.0]},
        index=["Baseline", "AutoAugment", "AugMix", "Patch Gaussian"],
    )


def test_table1_claims_with_the_papers_numbers():
    out = MC.record_table1_claims(ledger("paper"), _summary(), _cbar())
    ids = [c.id for c in out]
    assert ids[:4] == [
        "table1_c10c_err_baseline",
        "table1_c10cbar_err_baseline",
        "table1_c10c_err_autoaugment",
        "table1_c10cbar_err_autoaugment",
    ]
    assert ids[8:] == [
        "table1_baseline_delta",
        "table1_gain_smaller_on_cbar_autoaugment",
        "table1_gain_smaller_on_cbar_augmix",
        "table1_gain_smaller_on_cbar_patch_gaussian",
        "table1_pg_degrades_most",
        "table1_aa_degrades_least",
        "table1_all_improve_blue_noise_sample",
    ]
    assert set(verdicts(out).values()) == {REPRODUCED}
    v = {c.id: c for c in out}
    assert v["table1_gain_smaller_on_cbar_augmix"].reproduced == pytest.approx(4.8)  # 15.9 - 11.1
    assert v["table1_all_improve_blue_noise_sample"].reproduced == 25.2  # 42.9 - 17.7
    # under default the absolute errors are shown but not judged; the directions are judged
    d = verdicts(MC.record_table1_claims(ledger("default"), _summary(), _cbar()))
    assert d["table1_c10c_err_augmix"] == NOT_COMPARABLE and d["table1_pg_degrades_most"] == REPRODUCED


def test_table1_claims_flip():
    # C-bar − C: AutoAugment −1.4, AugMix +13.9, Patch Gaussian −2.0; AutoAugment gains more on C-bar
    # (9.1) than on C (7.6) and barely helps blue noise sample (2.9 points)
    s = _summary(cbar=(27.1, 18.0, 25.0, 15.0))
    v = {c.id: c for c in MC.record_table1_claims(ledger(), s, _cbar(autoaugment=40.0))}
    assert (v["table1_pg_degrades_most"].reproduced, v["table1_aa_degrades_least"].reproduced) == (
        "AugMix",
        "Patch Gaussian",
    )
    assert v["table1_pg_degrades_most"].verdict == v["table1_aa_degrades_least"].verdict == NOT_REPRODUCED
    assert v["table1_gain_smaller_on_cbar_autoaugment"].verdict == NOT_REPRODUCED
    assert v["table1_gain_smaller_on_cbar_augmix"].verdict == REPRODUCED
    assert v["table1_all_improve_blue_noise_sample"].verdict == NOT_REPRODUCED
    with pytest.raises(ValueError, match="Baseline"):
        MC.record_table1_claims(ledger(), s.drop(index="Baseline"), _cbar())


def test_construction_claims():
    top = list(CBAR_CORRUPTIONS[:7]) + [c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS][:3]
    out = MC.record_construction_claims(
        ledger("paper"), {"top": top, "target_error": 0.27}, n_chosen=10, n_candidates=30
    )
    assert [c.reproduced for c in out] == [7, 27.0]
    assert out[0].note == "chance level with 10 of 30 candidates: 3.3"
    assert set(verdicts(out).values()) == {REPRODUCED}
    top[3] = [c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS][5]  # 6 of 10: off by 4
    out = MC.record_construction_claims(ledger("paper"), {"top": top, "target_error": 0.30}, 10, 30)
    assert set(verdicts(out).values()) == {NOT_REPRODUCED}
    assert set(
        verdicts(MC.record_construction_claims(ledger("default"), {"top": top, "target_error": 0.3}, 10, 30)).values()
    ) == {NOT_COMPARABLE}
    with pytest.raises(ValueError, match="target_error"):
        MC.record_construction_claims(ledger(), {"top": top}, 10, 30)
    with pytest.raises(ValueError, match="n_candidates"):
        MC.record_construction_claims(ledger(), {"top": top, "target_error": 0.3}, 10, 0)
