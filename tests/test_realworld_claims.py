"""Tests for the claims of notebooks 05-07 (robeval.realworld_claims) and the tables they are judged on
(robeval.realworld_experiments), on small hand-made inputs."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from robeval import realworld_claims as RC
from robeval import realworld_experiments as RX
from robeval.claims import NOT_COMPARABLE, NOT_REPRODUCED, REPRODUCED, Ledger

PHI = stats.norm.cdf(0.5)


def ledger(profile="default"):
    return Ledger(paper="RealWorld", notebook="test_realworld_claims", profile=profile)


def verdicts(claims):
    return {c.id: c.verdict for c in claims}


# ================================================================== notebook 05
def _points(rw=(0.95, 0.99, 0.5, 1.0), adv=(0.2, 1.0, 0.5, 0.95), success=(1, 1, 1, 0), scale=0.07):
    return pd.DataFrame({"adv_success": list(success), "adv_robustness": list(adv),
                         f"rw_identity_{scale:g}": list(rw), f"rw_random_{scale:g}": list(rw)})


def _sweep(pearson=(np.nan, 0.3, 0.9, 0.5)):
    return pd.DataFrame({"scale": [0.001, 0.01, 0.1, 1.0], "pearson": list(pearson), "spearman": list(pearson)})


def test_sweep_helpers():
    sweep = _sweep()
    assert RX.sweep_peak(sweep)["scale"] == 0.1  # NaN (constant P_r) is skipped
    assert RX.correlation_range(sweep) == pytest.approx(0.6)
    with pytest.raises(ValueError, match="no finite Pearson"):
        RX.sweep_peak(_sweep((np.nan,) * 4))
    with pytest.raises(ValueError, match="lacks column"):
        RX.correlation_range(sweep.drop(columns="pearson"))


def test_fraction_above_and_dense_near_one():
    assert RX.fraction_above([0.95, 0.5, 0.91, 0.9], 0.9) == 0.5  # strictly above
    assert math.isnan(RX.fraction_above([], 0.9))
    # the failed attack (last point: P_r 1.0) is left out: 2 of 3 real-world scores, 1 of 3 adversarial
    assert RX.dense_near_one(_points(), 0.07) == pytest.approx((2 / 3, 1 / 3))
    with pytest.raises(ValueError, match="rw_identity_0.43"):
        RX.dense_near_one(_points(), 0.43)


def test_covariance_comparison():
    pts = _points()
    pts["rw_random_0.07"] = [0.9, 0.99, 0.6, 1.0]
    out = RX.covariance_comparison(pts, 0.07)
    assert out["scale"] == 0.07 and out["mean_abs_diff"] == pytest.approx(0.15 / 4)
    assert out["pearson"] == pytest.approx(np.corrcoef(pts["rw_identity_0.07"], pts["rw_random_0.07"])[0, 1])


def test_load_sec41_results_with_no_convergence_runs(tmp_path):
    _points().to_csv(tmp_path / "iris_points.csv", index=False)
    _sweep().to_csv(tmp_path / "iris_sweep.csv", index=False)
    (tmp_path / "iris_convergence.csv").write_text(pd.DataFrame([]).to_csv(index=False))  # what run_sec41 writes
    pts, sweep, conv = RX.load_sec41_results(tmp_path, "iris")
    assert len(pts) == 4 and len(sweep) == 4 and conv.empty
    pd.DataFrame({"n_repeats": [3], "min_pairwise_corr": [0.9995]}).to_csv(tmp_path / "iris_convergence.csv",
                                                                           index=False)
    assert RX.load_sec41_results(tmp_path, "iris")[2]["n_repeats"].tolist() == [3]


def test_sec41_claims_verdicts_follow_the_sweep():
    out = RC.record_sec41_claims(ledger(), "iris", _points(), _sweep(), scatter_scale=0.07, attack_success_rate=0.75)
    assert [c.id for c in out] == ["iris-corr-below-1", "iris-corr-varies", "iris-dense-near-1"]
    assert out[0].reproduced == 0.9 and out[0].note == "peak at scale 0.1; attack success rate 0.75"
    assert out[0].source == "Sec. 4.1.3 / Fig. 3c" and out[0].paper_value == "< 1 (Fig. 3c peaks near 0.8)"
    assert out[1].reproduced == 0.6 and out[2].reproduced == "0.67 vs 0.33"
    assert "at scale 0.07" in out[2].description
    assert set(verdicts(out).values()) == {REPRODUCED}
    # correlation 0.97 at its peak, nearly flat over scales; adversarial scores denser near 1
    flat = _sweep((0.96, 0.97, 0.965, np.nan))
    out = RC.record_sec41_claims(ledger(), "ionosphere", _points(adv=(0.95, 1.0, 0.99, 0.1)), flat, 0.07, 1.0)
    assert out[0].source == "Sec. 4.1.3 / Fig. 4c" and out[0].paper_value == "< 1"
    assert set(verdicts(out).values()) == {NOT_REPRODUCED}
    assert set(verdicts(RC.record_sec41_claims(ledger("smoke"), "iris", _points(), _sweep(), 0.07, 1.0))
               .values()) == {NOT_COMPARABLE}
    with pytest.raises(ValueError, match="dataset"):
        RC.record_sec41_claims(ledger(), "wine", _points(), _sweep(), 0.07, 1.0)


def test_sec41_convergence_claims():
    assert RC.record_sec41_convergence_claims(ledger(), pd.DataFrame(), n_samples=1000) == []
    conv = pd.DataFrame({"scale": [0.07, 0.43, 0.07], "n_repeats": [5, 5, 5],
                         "min_pairwise_corr": [0.9995, 0.9999, 0.9992], "dataset": ["iris", "iris", "ionosphere"]})
    (c,) = RC.record_sec41_convergence_claims(ledger(), conv, n_samples=1000)
    assert c.id == "mc-convergence" and c.reproduced == 0.9992 and c.verdict == REPRODUCED
    assert c.description.startswith("minimum pairwise correlation of 5 repeated Monte-Carlo runs (N=1000)")
    conv.loc[1, "min_pairwise_corr"] = 0.98  # one scale of one dataset is enough to fail
    assert RC.record_sec41_convergence_claims(ledger(), conv, 1000)[0].verdict == NOT_REPRODUCED


def test_covariance_claims():
    (c,) = RC.record_covariance_claims(ledger(), {"iris": {"pearson": 0.8}, "ionosphere": {"pearson": 0.99}})
    assert c.reproduced == "iris 0.800, ionosphere 0.990" and c.verdict == REPRODUCED
    (c,) = RC.record_covariance_claims(ledger(), {"iris": {"pearson": 0.99}, "ionosphere": {"pearson": 0.8}})
    assert c.verdict == NOT_REPRODUCED
    with pytest.raises(ValueError, match="ionosphere"):
        RC.record_covariance_claims(ledger(), {"iris": {"pearson": 0.8}})


# ================================================================== notebook 06
def _fog(rw=(1.0, 0.995, 0.6, 0.992, 0.3), adv=(0.9, 0.8, 0.1, 0.5, 0.2), success=(1, 1, 1, 0, 1)):
    return pd.DataFrame({"adv_success": list(success), "adv_robustness": list(adv), "rw_robustness": list(rw)})


def test_fog_statistics():
    s = RX.fog_statistics(_fog())
    assert s["test points"] == 5 and s["DeepFool success rate"] == 0.8
    assert s["min real-world robustness"] == 0.3
    assert s["fraction P_r > 0.99"] == pytest.approx(0.6) and s["fraction P_r < 0.5"] == pytest.approx(0.2)
    # correlations over the 4 successful points: ranks of adv (4, 3, 1, 2) and P_r (4, 3, 2, 1)
    assert s["Spearman(adv, P_r)"] == pytest.approx(stats.spearmanr([4, 3, 1, 2], [4, 3, 2, 1]).statistic)
    assert s["Spearman(adv, P_r)"] == pytest.approx(0.8)


def test_fog_claims_on_synthetic_data_are_information_only():
    pts = _fog()
    conv = pd.DataFrame({"n_repeats": [3], "min_pairwise_corr": [0.9995]})
    out = RC.record_fog_claims(ledger(), pts, conv, RX.fog_statistics(pts), synthetic=True)
    assert [c.id for c in out] == ["fog-many-near-1", "fog-min-above-half", "fog-adv-differs", "fog-convergence"]
    assert [c.reproduced for c in out] == [0.6, 0.3, 0.8, 0.9995]
    assert verdicts(out) == {"fog-many-near-1": NOT_COMPARABLE, "fog-min-above-half": NOT_COMPARABLE,
                             "fog-adv-differs": NOT_COMPARABLE, "fog-convergence": REPRODUCED}
    assert {c.note for c in out} == {"synthetic stand-in: structure only, numbers are not the paper's"}


def test_fog_claims_on_real_data_are_judged():
    pts = _fog()
    out = RC.record_fog_claims(ledger(), pts, pd.DataFrame(), RX.fog_statistics(pts), synthetic=False,
                               data_path="graz.csv")
    assert len(out) == 3 and out[0].note == "data: graz.csv"  # no convergence runs, no convergence claim
    # 60% near 1, one point below 0.5, Spearman 0.8
    assert verdicts(out) == {"fog-many-near-1": REPRODUCED, "fog-min-above-half": NOT_REPRODUCED,
                             "fog-adv-differs": REPRODUCED}
    pts = _fog(rw=(0.9, 0.8, 0.6, 0.992, 0.7), adv=(0.9, 0.8, 0.1, 0.5, 0.2))
    v = verdicts(RC.record_fog_claims(ledger(), pts, pd.DataFrame(), RX.fog_statistics(pts), synthetic=False))
    assert v == {"fog-many-near-1": NOT_REPRODUCED, "fog-min-above-half": REPRODUCED,
                 "fog-adv-differs": NOT_REPRODUCED}  # same ranks: Spearman 1
    with pytest.raises(ValueError, match="Spearman"):
        RC.record_fog_claims(ledger(), pts, pd.DataFrame(), {}, synthetic=True)


# ================================================================== notebook 07
def test_rank_agreement_and_x1_spread():
    d = np.array([[0.0, 1.0], [2.0, 3.0]])
    same = RX.rank_agreement(1 - np.exp(-d), d)
    assert same == {"spearman": pytest.approx(1.0), "max_order_violation": 0.0}
    assert RX.rank_agreement([0.9, 0.5], [1.0, 2.0])["max_order_violation"] == pytest.approx(0.4)
    with pytest.raises(ValueError, match="same size"):
        RX.rank_agreement([0.1, 0.2], [1.0])
    assert RX.max_spread_along_x1([[0.2, 0.2], [0.7, 0.7]]) == 0.0
    assert RX.max_spread_along_x1([[0.2, 0.5], [0.7, 0.7]]) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="2-D"):
        RX.max_spread_along_x1([0.1, 0.2])


def test_equal_distance_edge_closed_form_limits():
    edge = RX.equal_distance_edge((0.0, 0.0), np.eye(2), extent=8.0, n=5)
    assert edge["t"].tolist() == [0.5, 2.375, 4.25, 6.125, 8.0]
    assert edge["distance"].tolist() == pytest.approx([0.5] * 5)
    # on the corner diagonal both edges are 0.5 away: Phi(0.5)^2; far along the edge only one matters
    assert edge["robustness"].iloc[0] == pytest.approx(PHI**2)
    assert edge["robustness"].iloc[-1] == pytest.approx(PHI, abs=1e-9)
    with pytest.raises(ValueError, match="extent > distance"):
        RX.equal_distance_edge((0.0, 0.0), np.eye(2), extent=0.4)


def test_analytic_mc_checks_layout():
    grid_pts, corner_pts = RX.analytic_check_points((1.0, 1.0), 2.0, 3)
    assert grid_pts.tolist()[:3] == [[-2.0, -2.0], [0.0, -2.0], [2.0, -2.0]] and len(grid_pts) == 9
    assert corner_pts.min() == 0.0 and corner_pts.max() == 2.0 and len(corner_pts) == 9  # 3x3 patch, side 2
    covs = {"isotropic": np.eye(2), "anisotropic": np.array([[1.0, 0.6], [0.6, 0.5]])}
    checks = RX.analytic_mc_checks((0.0, 0.0), covs, 2.0, 3, n_samples=400, seed=0)
    assert checks.columns[:2].tolist() == ["model", "covariance"]
    counts = checks.groupby(["model", "covariance"], sort=False).size()
    assert counts.to_dict() == {("linear", "isotropic"): 9, ("linear", "anisotropic"): 9,
                                ("right_angle", "isotropic"): 18, ("right_angle", "anisotropic"): 18}
    summary = RX.mc_check_summary(checks)
    assert summary.columns.tolist() == ["points", "max_abs_z", "mean_z2", "min_p", "max_abs_err"]
    assert summary["points"].sum() == 54 and (summary["max_abs_err"] < 0.2).all()


def _checks(p_values=(0.5, 0.02, 0.9), z=(1.0, 2.0, 99.0), se=(0.01, 0.01, 0.0)):
    return pd.DataFrame({"p_value": list(p_values), "z": list(z), "se": list(se)})


def _agreement(linear=0.0, right_angle=0.3):
    return pd.DataFrame({"spearman": [1.0, 0.5], "max_order_violation": [linear, right_angle]},
                        index=["linear", "right_angle"])


def test_analytic_claims_are_judged_at_every_profile():
    lin = np.tile([[0.2], [0.6]], (1, 3))  # depends on x2 only
    edge = pd.DataFrame({"robustness": [PHI**2, 0.6, PHI]})
    out = RC.record_analytic_claims(ledger("smoke"), lin, _agreement(), edge, _checks())
    assert [c.id for c in out] == ["A1-x1-independent", "A1-same-ranking", "A2-ranking-differs",
                                   "A2-corner-divergence", "A-mc-converges"]
    assert set(verdicts(out).values()) == {REPRODUCED}
    assert out[3].reproduced == round(PHI - PHI**2, 4)
    assert out[3].note == f"closed form: Phi(0.5) - Phi(0.5)^2 = {PHI - PHI**2:.4f} in the limit"
    assert out[4].reproduced == 0.06  # 0.02 x 3 points
    # the point without sampling error (se = 0) has no meaningful z: mean z^2 = (1 + 4) / 2
    assert out[4].note == "3 points, both models, isotropic and anisotropic; mean z^2 = 2.500"


def test_analytic_claims_flip():
    lin = np.array([[0.2, 0.3], [0.6, 0.6]])
    edge = pd.DataFrame({"robustness": [0.5, 0.55]})
    out = RC.record_analytic_claims(ledger("smoke"), lin, _agreement(linear=0.01, right_angle=0.01), edge,
                                    _checks(p_values=(0.5, 1e-4, 0.9)))
    assert set(verdicts(out).values()) == {NOT_REPRODUCED}
    with pytest.raises(ValueError, match="right_angle"):
        RC.record_analytic_claims(ledger(), lin, _agreement().drop(index="right_angle"), edge, _checks())
