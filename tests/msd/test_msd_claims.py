"""Tests for the claims of notebooks 03/04 (robeval.msd.claims, claims_powerset, claims_cbar) and the tables they
are judged on (robeval.msd.tables, robeval.msd.cbar), on small hand-made inputs.

Every claim function is fed inputs whose verdict can be worked out by hand (perfect rank correlations, constant
group differences, the paper's own numbers), and then the flipped input, so each test could fail."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from robeval.core.ledger import (
    ALLOWED,
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    UNITS,
    Ledger,
)
from robeval.msd import cbar as X
from robeval.msd import claims as MC
from robeval.msd import tables as T
from robeval.msd.powerset import powerset_cells, sample_powerset_schemes, toy_cells
from robeval.msd.published import PAPER_TABLE1, PAPER_TABLE1_CBAR
from robeval.transforms import augmentations as A
from robeval.transforms.corruptions import C_CORRUPTIONS, CANDIDATE_CORRUPTIONS, CBAR_CORRUPTIONS, scan_levels

N_BOOT = 200
OK, NO, INC, NC = REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE


def ledger(profile="default"):
    return Ledger(paper="msd", notebook="test_msd_claims", profile=profile)


def scaled_ledger(profile="default"):
    """A ledger under a scaled profile (as robeval.core.notebooks.setup makes it from the settings): its
    replication rows become scaled replications carrying the notebook-level mechanism."""
    return Ledger(
        paper="msd", notebook="test_msd_claims", profile=profile, scaling="a test scaling", mechanism="a test mechanism"
    )


def verdicts(claims):
    return {c.id: c.verdict for c in claims}


# ================================================================== notebook 03: cells and tables
def test_toy_and_powerset_cells_seeds():
    from robeval.msd.nets import run_seed

    cells = toy_cells([0.0, 0.5], 2, seed=2)
    assert [(c["fraction"], c["run"]) for c in cells] == [(0.0, 0), (0.5, 0), (0.0, 1), (0.5, 1)]
    # one fine-tuning seed per run, shared by its fractions (paired), different across runs
    assert cells[0]["seed"] == cells[1]["seed"] == run_seed(2, "toy", 0) != cells[2]["seed"]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        toy_cells([1.5], 1, seed=0)
    cells = powerset_cells([frozenset(), frozenset({"solarize"})], ["patch_gaussian"], seed=2)
    assert cells == [
        {"scheme": "none", "seed": run_seed(2, "scheme", "none")},
        {"scheme": "solarize", "seed": run_seed(2, "scheme", "solarize")},
        {"scheme": "patch_gaussian", "seed": run_seed(2, "method", "patch_gaussian")},
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
    toy = T.toy_table(dist, runs)
    assert list(toy.columns) == ["fraction", "mmd", "msd", "error_impulse_noise"]
    assert toy["error_impulse_noise"].tolist() == pytest.approx([0.6, 0.2])
    with pytest.raises(ValueError, match="no rows for corruption 'snow'"):
        T.toy_table(dist, runs, corruption="snow")
    with pytest.raises(ValueError, match="lacks column"):
        T.toy_table(dist, runs.drop(columns="error"))


def test_toy_summary_per_run_and_curve_statistics():
    errors = pd.DataFrame(
        [
            {"fraction": f, "run": r, "corruption": c, "severity": s, "error": e + (0.1 if s == 2 else -0.1)}
            for r in (0, 1)
            for f, e in ((0.0, 0.8), (0.1, 0.3), (1.0, 0.2))
            for c in ("impulse_noise", "motion_blur")
            for s in (1, 2)
        ]
    )
    dist = pd.DataFrame(
        [
            {"fraction": f, "run": r, "mmd": 1.0 - f + r, "msd": m}
            for r in (0, 1)
            for f, m in ((0.0, 2), (0.1, 1), (1.0, 0))
        ]
    )
    toy = T.toy_summary(errors, dist)
    assert toy.columns.tolist() == ["fraction", "mmd", "msd", "error_impulse_noise"]
    assert toy["mmd"].tolist() == pytest.approx([1.5, 1.4, 0.5])  # mean over runs 0 and 1
    assert toy["error_impulse_noise"].tolist() == pytest.approx([0.8, 0.3, 0.2])  # severity offsets cancel
    per = T.toy_per_run(errors, dist)
    assert per["error"].shape == (2, 3) and per["msd"].columns.tolist() == [0.0, 0.1, 1.0]
    # (v0 − v_small) / (v0 − v1) − 1/2: error (0.8 − 0.3) / 0.6 − 0.5 = 1/3; MSD (2 − 1) / 2 − 0.5 = 0
    assert T.low_until_small(per["error"], 0.1) == pytest.approx([1 / 3, 1 / 3])
    assert T.low_until_small(per["msd"], 0.1) == pytest.approx([0.0, 0.0])
    assert T.linearity(per["mmd"]) == pytest.approx([-1.0, -1.0])  # exactly linear in the fraction
    with pytest.raises(ValueError, match="no fraction 0.5"):
        T.low_until_small(per["msd"], 0.5)


def test_spearman_summary_counts_strictly_above():
    rho = pd.DataFrame(
        {"rho_msd": [0.7, 0.6, 0.9, np.nan], "rho_mmd": [0.1, 0.2, 0.3, 0.4]}, index=["a", "b", "c", "d"]
    )
    s = T.spearman_summary(rho)
    assert s == {
        "n_above": 2,
        "n_corruptions": 4,
        "median_rho_msd": pytest.approx(0.7),
        "median_rho_mmd": pytest.approx(0.25),
    }
    assert T.spearman_summary(rho, threshold=0.5)["n_above"] == 3


def test_scheme_statistics_hand_computed():
    # column 0 ranks agree, column 1 reversed, column 2 constant (NaN)
    msd = np.array([[1.0, 1.0, 5.0], [2.0, 2.0, 5.0], [3.0, 3.0, 5.0]])
    err = np.array([[0.1, 0.3, 0.2], [0.2, 0.2, 0.1], [0.3, 0.1, 0.3]])
    rho = T.column_spearman(msd, err)
    assert rho[:2] == pytest.approx([1.0, -1.0]) and math.isnan(rho[2])
    assert T.count_above(msd, err) == 1.0 and T.count_above(msd, err, threshold=-2) == 2.0  # NaN never counts
    # rho_MSD − rho_MMD per column: MMD ranks reversed in column 0 only -> gaps 2, 0 (NaN skipped): median 1
    mmd = msd.copy()
    mmd[:, 0] = mmd[::-1, 0]
    assert T.median_rho_gap(msd, mmd, err) == pytest.approx(1.0)
    # relative reduction with the op on the target (2 -> 1: 0.5) minus on the other (2 -> 2: 0)
    assert T.inclusion_gap([1, 1, 0, 0], [1, 1, 2, 2], [2, 2, 2, 2]) == pytest.approx(0.5)
    assert math.isnan(T.inclusion_gap([1, 1], [1, 1], [2, 2]))
    # gain 0.5 − 0.25 = 0.25 from the similar op; cost 0.3 − 0.2 = 0.1 from >= 3 dissimilar ops
    has, nd, e = [0, 0, 1, 1], [0, 3, 0, 3], [0.5, 0.5, 0.2, 0.3]
    assert T.similar_vs_dissimilar(has, nd, e) == pytest.approx(0.15)
    assert math.isnan(T.similar_vs_dissimilar([1, 1], [0, 0], [0.1, 0.2]))
    assert T.percentile_among(2.0, [1.0, 2.0, 3.0, np.nan]) == pytest.approx(0.5)
    assert T.percentile_among(0.0, [1.0, 2.0]) == 0.0 and math.isnan(T.percentile_among(np.nan, [1.0]))


def test_relative_msd_reduction():
    assert T.relative_msd_reduction(0.5, 2.0) == 0.75
    assert T.relative_msd_reduction(3.0, 2.0) == -0.5  # including the op moved the scheme away
    assert math.isnan(T.relative_msd_reduction(1.0, 0.0))
    assert math.isnan(T.relative_msd_reduction(np.nan, 1.0))


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
    single = T.single_op_table(_avg(), "motion_blur")
    assert single["scheme"].tolist() == ["none", "solarize", "translate_x"]
    assert single["kind"].tolist() == ["baseline", "color", "geometric"]
    assert T.mean_error_by_kind(single) == pytest.approx({"geometric": 0.3, "color": 0.6, "baseline": 0.5})


def test_method_position_in_the_powerset():
    avg = _avg()
    assert T.method_vs_powerset_median(avg, "patch_gaussian", "motion_blur") == pytest.approx((1.5, 1.5))
    m, ref = T.method_vs_powerset_median(avg, "autoaugment", "motion_blur")
    assert math.isnan(m) and ref == pytest.approx(1.5)
    pct = T.method_percentiles(avg, "patch_gaussian", ["motion_blur"])
    # MSD 1.5 among 3, 2, 1, 0.5: two below -> 0.5; error 0.4 among 0.5, 0.6, 0.3, 0.2: two below -> 0.5
    assert pct[["p_msd", "p_err"]].iloc[0].tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="no rows of method"):
        T.method_percentiles(avg, "autoaugment")


def test_toy_landmarks_sorts_and_measures_linearity():
    toy = pd.DataFrame(
        {
            "fraction": [1.0, 0.0, 0.3],
            "mmd": [0.0, 1.0, 0.7],
            "msd": [0.1, 1.0, 0.2],
            "error_impulse_noise": [0.1, 0.9, 0.2],
        }
    )
    lm = T.toy_landmarks(toy)
    assert (lm["far"]["fraction"], lm["small"]["fraction"], lm["near"]["fraction"]) == (0.0, 0.3, 1.0)
    assert lm["mmd_linearity"] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="> 0"):
        T.toy_landmarks(toy[toy["fraction"] == 0.0])


def test_side_by_side_compares_bn_and_retraining():
    bn = pd.DataFrame(
        {
            "scheme": ["a"] * 3,
            "family": ["powerset"] * 3,
            "corruption": ["clean", "x", "y"],
            "error": [0.1, 0.3, 0.5],
        }
    )
    retrain = pd.DataFrame({"scheme": ["a"] * 3, "corruption": ["clean", "x", "y"], "error": [0.2, 0.6, 0.4]})
    side = T.side_by_side(bn, retrain)
    assert side.iloc[0][["clean_retrain", "clean_bn", "corruption_retrain", "corruption_bn"]].tolist() == pytest.approx(
        [0.2, 0.1, 0.5, 0.4]
    )
    assert side["rank_agreement"].iloc[0] == pytest.approx(-1.0)  # x < y by adaptation, x > y by retraining


# ================================================================== notebook 03: claims
SCHEMES = [A.scheme_name(s) for s in sample_powerset_schemes(128, seed=0)]
CORRELATED = [c for c in C_CORRUPTIONS if c != "brightness"][:12]


def _powerset_avg(value, schemes=SCHEMES, corruptions=C_CORRUPTIONS, methods=None):
    """Severity-averaged powerset rows: ``value(ops, corruption, k) -> (error, msd, mmd)`` for scheme k; methods:
    {name: {corruption: (error, msd)}}."""
    rows = []
    for k, s in enumerate(schemes):
        ops = A.parse_scheme(s)
        for c in corruptions:
            e, d, m = value(ops, c, k)
            rows.append(
                {"scheme": s, "family": "powerset", "n_ops": len(ops), "corruption": c, "error": e, "msd": d, "mmd": m}
            )
    for name, vals in (methods or {}).items():
        for c, (e, d) in vals.items():
            rows.append(
                {"scheme": name, "family": "method", "n_ops": -1, "corruption": c, "error": e, "msd": d, "mmd": d}
            )
    return pd.DataFrame(rows)


_U = np.random.default_rng(0).uniform(1.0, 2.0, size=len(SCHEMES))  # a scheme's "MSD level"
_V = np.random.default_rng(1).uniform(1.0, 2.0, size=len(SCHEMES))  # an unrelated ranking


def _spearman_value(n_above=12, brightness_corr=False, mmd_good=False):
    corr = set(CORRELATED[:n_above]) | ({"brightness"} if brightness_corr else set())

    def value(ops, c, k):
        err = 0.1 * _U[k] if c in corr else (0.3 - 0.1 * _U[k] if c == "brightness" else 0.1 * _V[k])
        return err, _U[k], (_U[k] if mmd_good else _V[k])

    return value


SCRATCH = {"retrain_init": "scratch", "retrain_epochs": 30, "epochs": 30}  # a full training per scheme


def test_spearman_claims_verdicts_follow_the_correlations():
    bn = _powerset_avg(_spearman_value())
    retrain = bn[bn["scheme"].isin(SCHEMES[:40])][["scheme", "family", "corruption", "error", "msd", "mmd"]]

    def spearman(led, bn_avg, retrain_avg=retrain, retrain_cfg=SCRATCH):
        return MC.record_spearman_claims(led, bn_avg, retrain_avg, seed=0, n_boot=N_BOOT, retrain_cfg=retrain_cfg)

    out = spearman(ledger("paper"), bn)
    v = {c.id: c for c in out}
    assert list(v) == [
        "S4.2_retrain_n_above",
        "AppB_bn_n_above",
        "S4.2_brightness_low_bn",
        "S4.2_brightness_low_retrain",
        "S4.2_all_categories_bn",
        "AppB_mmd_worse_bn",
        "AppB_mmd_poor_bn",
        "AppB_mmd_worse_retrain",
        "AppB_mmd_poor_retrain",
    ]
    # App. B's MMD statement is tested on the retrained models (central), the batch-norm rows only show numbers
    assert v["AppB_mmd_worse_retrain"].central and not v["AppB_mmd_worse_bn"].central
    # perfect rank agreement on 12 corruptions survives every resample: the count is exactly 12
    assert v["S4.2_retrain_n_above"].estimate == 12 and v["S4.2_retrain_n_above"].ci == (12, 12)
    assert v["AppB_bn_n_above"].estimate == 12 - 7.5
    assert v["S4.2_brightness_low_bn"].estimate == pytest.approx(-1.6)  # rho −1 minus 0.6
    # App. B's MMD statement is about retrained models: its batch-norm rows are not comparable at every profile
    mmd_rows = {"AppB_mmd_worse_bn", "AppB_mmd_poor_bn"}
    assert {v[i].verdict for i in mmd_rows} == {NC} and "retrained" in v["AppB_mmd_worse_bn"].mechanism
    # the batch-norm rows are about the error of networks, but rest on schemes sharing one network: they cannot
    # decide a claim about models in either direction (issue 38); the retrained rows can
    bn_rows = {"AppB_bn_n_above", "S4.2_brightness_low_bn", "S4.2_all_categories_bn"}
    assert {v[i].verdict for i in bn_rows} == {INC} and "independent trainings" in v["AppB_bn_n_above"].decides
    assert {x.verdict for k, x in v.items() if k not in mmd_rows | bn_rows} == {OK}
    # 6 of 15 above, brightness correlated, MMD as good as MSD and above 0.6 everywhere
    flipped = spearman(ledger("paper"), _powerset_avg(_spearman_value(5, True, True)))
    f = verdicts(flipped)
    # only the noise and blur categories have a correlated corruption left
    assert f["AppB_bn_n_above"] == f["S4.2_brightness_low_bn"] == f["S4.2_all_categories_bn"] == INC
    assert f["S4.2_retrain_n_above"] == OK  # the retrained rows are unchanged
    assert f["AppB_mmd_worse_bn"] == NC  # not comparable, whatever the numbers
    # MMD ranks the schemes like the error on the 12 correlated corruptions: a majority, not a minority
    good = _powerset_avg(_spearman_value(mmd_good=True))
    good_mmd = spearman(ledger("paper"), good, good[good["scheme"].isin(SCHEMES[:40])])
    assert verdicts(good_mmd)["AppB_mmd_poor_bn"] == NC
    # ... on the retrained models it is decided: MMD above 0.6 on the 12 correlated corruptions, as good as MSD
    g = verdicts(good_mmd)
    assert g["AppB_mmd_poor_retrain"] == NO and g["AppB_mmd_worse_retrain"] != OK
    # the retrained rows are judged wherever >= 32 schemes are trained from scratch for a full training (the gpu
    # profile, issue 37), at any profile; fine-tuned, shorter or fewer retrainings lose the mechanism, each saying why
    assert verdicts(spearman(ledger(), bn))["S4.2_retrain_n_above"] == OK
    assert v["AppB_mmd_worse_retrain"].verdict == v["AppB_mmd_poor_retrain"].verdict == OK
    for cfg, few, why in (
        ({"retrain_init": "base", "retrain_epochs": 2, "epochs": 15}, 40, "fine-tuned 2 epoch(s)"),
        ({**SCRATCH, "retrain_epochs": 10}, 40, "shorter than the profile's full training (30)"),
        (SCRATCH, 31, "31 retrained schemes with an MSD (at least 32"),
        (None, 40, "fine-tuned"),
    ):
        rows = {c.id: c for c in spearman(ledger(), bn, retrain[retrain["scheme"].isin(SCHEMES[:few])], cfg)}
        retrained = [rows[i] for i in ("S4.2_retrain_n_above", "S4.2_brightness_low_retrain", "AppB_mmd_worse_retrain")]
        assert {c.verdict for c in retrained} == {NC} and all(why in c.mechanism for c in retrained), cfg
        assert rows["AppB_bn_n_above"].verdict == INC
    assert set(verdicts(spearman(ledger("smoke"), bn)).values()) == {NC}
    with pytest.raises(ValueError, match="brightness"):
        MC.record_spearman_claims(ledger(), bn[bn["corruption"] != "brightness"], retrain, seed=0, n_boot=N_BOOT)


def test_mmd_rows_are_not_comparable_under_the_scaled_default():
    """App. B's MMD statement is about retrained models; the batch-norm-adapted 48-sample proxy cannot decide it,
    whatever the numbers (issue 19): its rows are scaled replications whose mechanism does not survive."""
    bn = _powerset_avg(_spearman_value())
    retrain = bn[bn["scheme"].isin(SCHEMES[:20])][["scheme", "family", "corruption", "error", "msd"]]
    for good in (False, True):  # MMD worse than MSD, or as good: the row cannot be decided either way
        out = {
            c.id: c
            for c in MC.record_spearman_claims(
                scaled_ledger(),
                _powerset_avg(_spearman_value(mmd_good=good)),
                retrain,
                seed=0,
                n_boot=N_BOOT,
                n_aug_samples=48,
            )
        }
        for cid in ("AppB_mmd_worse_bn", "AppB_mmd_poor_bn"):
            c = out[cid]
            assert c.verdict == NC and c.evidence == "scaled replication" and c.unit == "schemes"
            assert "retrained" in c.mechanism and "48 augmentation samples" in c.mechanism
    # the other batch-norm rows keep the notebook's mechanism and are decided
    assert out["AppB_bn_n_above"].verdict == INC and out["AppB_bn_n_above"].mechanism == "a test mechanism"
    assert out["S4.2_retrain_n_above"].unit == "training runs"
    assert "samples" not in MC.mmd_lost(100_000) and "retrained" in MC.mmd_lost(100_000)


def _inclusion_value(swap=False):
    def value(ops, c, k):
        target, other = ("motion_blur", "impulse_noise") if swap else ("impulse_noise", "motion_blur")
        msd = 2.0 + 0.1 * _V[k]
        if c == target:
            msd -= 1.0 * ("solarize" in ops)
        if c == other:
            msd -= 1.0 * ("translate_x" in ops)
        return 0.5, msd, msd

    return value


def test_inclusion_claims_compare_relative_reductions():
    out = MC.record_inclusion_claims(ledger(), _powerset_avg(_inclusion_value()), seed=0, n_boot=N_BOOT)
    assert [c.id for c in out] == ["Fig4_solarize_impulse_noise", "Fig4_translate_x_motion_blur"]
    # each op halves its own corruption's MSD (~2.15 -> ~1.15: ≈ 0.46) and leaves the other one
    assert all(0.35 < c.estimate < 0.55 for c in out)
    assert set(verdicts(out).values()) == {OK}
    swapped = MC.record_inclusion_claims(ledger(), _powerset_avg(_inclusion_value(swap=True)), seed=0, n_boot=N_BOOT)
    assert set(verdicts(swapped).values()) == {NO}


def _appendix_a_value(gain, cost):
    def value(ops, c, k):
        similar, dissimilar = ("solarize", A.GEOMETRIC_OPS) if c == "impulse_noise" else ("translate_x", A.COLOR_OPS)
        nd = len(ops & set(dissimilar))
        return 0.5 - gain * (similar in ops) + cost * nd + 0.01 * _V[k], 1.0, 1.0

    return value


def test_appendix_a_claims_similar_beats_many_dissimilar():
    out = MC.record_appendix_a_claims(ledger(), _powerset_avg(_appendix_a_value(0.2, 0.01)), seed=0, n_boot=N_BOOT)
    assert [c.id for c in out] == ["AppA_solarize_impulse_noise", "AppA_translate_x_motion_blur"]
    # the error of schemes sharing one network: a claim about models cannot be decided on it (issue 38)
    assert set(verdicts(out).values()) == {INC} and out[0].unadjusted == "" and out[0].about == "models"
    # a similar op worth 0.02 against 0.1 per dissimilar op
    out = MC.record_appendix_a_claims(ledger(), _powerset_avg(_appendix_a_value(0.02, 0.1)), seed=0, n_boot=N_BOOT)
    assert set(verdicts(out).values()) == {INC}


def _single_value(geometric):
    def value(ops, c, k):
        if len(ops) == 1 and c == "motion_blur":
            op = next(iter(ops))
            return (geometric if A.OPS[op].kind == "geometric" else 0.6) + 0.001 * k, 1.0, 1.0
        return 0.5, 1.0, 1.0

    return value


def test_single_op_claims():
    out = MC.record_single_op_claims(ledger(), _powerset_avg(_single_value(0.3)), seed=0, n_boot=N_BOOT)
    v = {c.id: c for c in out}
    assert list(v) == ["Fig1_geometric_beat_colour", "Fig1_geometric_beat_baseline"]
    assert v["Fig1_geometric_beat_colour"].estimate == pytest.approx(0.3, abs=0.01)
    assert v["Fig1_geometric_beat_baseline"].estimate == pytest.approx(0.2, abs=0.01)
    # the error of single-op schemes sharing one network: about models, undecidable either way (issue 38)
    assert set(verdicts(out).values()) == {INC}
    # nine single-op schemes: t-intervals (valid at small n), not a percentile bootstrap the ledger would void
    assert all("t-interval over 9 schemes" in c.rule or "t-interval over 5 schemes" in c.rule for c in out)
    assert {c.unit for c in out} == {"schemes"}
    assert set(
        verdicts(MC.record_single_op_claims(scaled_ledger(), _powerset_avg(_single_value(0.3)), seed=0)).values()
    ) == {INC}
    # single geometric ops worse than both the colour ops and the empty scheme
    out = MC.record_single_op_claims(ledger(), _powerset_avg(_single_value(0.7)), seed=0, n_boot=N_BOOT)
    assert set(verdicts(out).values()) == {INC}
    no_empty = _powerset_avg(_single_value(0.3), schemes=SCHEMES[1:])
    with pytest.raises(ValueError, match="empty scheme"):
        MC.record_single_op_claims(ledger(), no_empty, seed=0, n_boot=N_BOOT)


def _method_avg(flip=False):
    """Powerset error = MSD (a perfect trend); the methods placed at chosen percentiles of the powerset."""
    avg = _powerset_avg(lambda ops, c, k: (0.1 * _U[k], _U[k], _U[k]))
    q = np.quantile(_U, np.linspace(0.05, 0.95, len(C_CORRUPTIONS)))  # a spread of positions
    pos = dict(zip(C_CORRUPTIONS, q))
    low, high = np.quantile(_U, 0.1), np.quantile(_U, 0.9)
    pg = {c: (0.1 * pos[c], pos[c]) for c in C_CORRUPTIONS}
    aa = {c: (0.1 * pos[c], pos[c]) for c in C_CORRUPTIONS}
    for c in ("gaussian_noise", "shot_noise", "impulse_noise", "glass_blur"):
        pg[c] = (0.1 * (high if flip else low), high if flip else low)
    for c in ("contrast", "defocus_blur"):
        aa[c] = (0.1 * (high if flip else low), high if flip else low)
    if flip:  # AutoAugment's MSD and error percentiles disagree everywhere but on fog
        aa = {c: (0.1 * (low + high - d), d) for c, (_, d) in aa.items()}
        aa["fog"] = (0.1 * low, low)
        pg = {c: (0.1 * (low + high - d), d) for c, (_, d) in pg.items()}
    else:  # fog: low MSD, high error
        aa["fog"] = (0.1 * high, low)
    methods = {"patch_gaussian": pg, "autoaugment": aa}
    rows = [
        {"scheme": m, "family": "method", "n_ops": -1, "corruption": c, "error": e, "msd": d, "mmd": d}
        for m, vals in methods.items()
        for c, (e, d) in vals.items()
    ]
    return pd.concat([avg, pd.DataFrame(rows)], ignore_index=True)


def test_method_claims():
    ids = [
        "Fig5_methods_follow_trend",
        "Fig5_pg_low_msd_noise",
        "Fig5_pg_low_msd_glass_blur",
        "Fig5_aa_low_msd_contrast_defocus",
        "Fig5_aa_fog_not_predictive",
    ]
    out = MC.record_method_claims(ledger(), _method_avg(), ["autoaugment", "patch_gaussian"], seed=0, n_boot=N_BOOT)
    assert [c.id for c in out] == ids
    v = {c.id: c for c in out}
    assert v["Fig5_pg_low_msd_glass_blur"].estimate == pytest.approx(0.1 - 0.5, abs=0.02)
    assert v["Fig5_aa_fog_not_predictive"].estimate == pytest.approx(0.8, abs=0.02)  # |0.1 − 0.9| − 0
    # the MSD rows are about the distance (data) and decide; the rows on error are about models (issue 38)
    error_rows = {"Fig5_methods_follow_trend", "Fig5_aa_fog_not_predictive"}
    assert {v[i].verdict for i in error_rows} == {INC}
    assert {x.verdict for k, x in v.items() if k not in error_rows} == {OK}
    flipped = MC.record_method_claims(
        ledger(), _method_avg(flip=True), ["autoaugment", "patch_gaussian"], seed=0, n_boot=N_BOOT
    )
    fv = verdicts(flipped)
    assert {fv[i] for i in error_rows} == {INC} and {x for k, x in fv.items() if k not in error_rows} == {NO}
    # only the methods that ran are judged; AugMix is a powerset scheme, not a method here
    only_pg = MC.record_method_claims(ledger(), _method_avg(), ["patch_gaussian", "augmix"], seed=0, n_boot=N_BOOT)
    assert [c.id for c in only_pg] == ids[:3]
    assert MC.record_method_claims(ledger(), _method_avg(), [], seed=0, n_boot=N_BOOT) == []


def _toy_frames(msd_small=0.1, err_small=0.25, mmd_linear=True):
    fractions = (0.0, 0.05, 0.5, 1.0)
    dist, err = [], []
    for r in range(3):
        eps = 0.01 * (r - 1)
        for f in fractions:
            mmd = 2.0 * (1 - f) if mmd_linear else (2.0 if f == 0 else 0.1)
            msd = 2.0 if f == 0 else (0.1 if f > 0.05 else msd_small)
            dist.append({"fraction": f, "run": r, "mmd": mmd + eps, "msd": msd + eps})
            e = 0.9 if f == 0 else (0.2 if f > 0.05 else err_small)
            for s, d in ((1, -0.05), (2, 0.05)):
                err.append(
                    {"fraction": f, "run": r, "corruption": "impulse_noise", "severity": s, "error": e + d + eps}
                )
                err.append({"fraction": f, "run": r, "corruption": "motion_blur", "severity": s, "error": 0.5})
    return pd.DataFrame(err), pd.DataFrame(dist)


def test_toy_claims():
    errors, dist = _toy_frames()
    out = MC.record_toy_claims(ledger(), errors, dist, small=0.05)
    assert [c.id for c in out] == ["Fig2b_mmd_linear", "Fig2b_msd_low", "Fig2b_error_low"]
    assert "5%" in out[1].description
    # (2 − 0.1) / (2 − 0.1) − 0.5 and (0.9 − 0.25) / (0.9 − 0.2) − 0.5 in every run
    assert out[1].estimate == pytest.approx(0.5) and out[2].estimate == pytest.approx(0.65 / 0.7 - 0.5, rel=1e-5)
    assert out[0].estimate == pytest.approx(-1 + 0.95) and out[0].n_runs == 3
    # the MMD row holds by the linearity of the mean: a derivation, consistency (never "reproduced")
    assert out[0].evidence == "derivation" and out[0].unit == "Monte-Carlo repetitions"
    assert verdicts(out) == {"Fig2b_mmd_linear": CONSISTENCY, "Fig2b_msd_low": OK, "Fig2b_error_low": OK}
    assert out[2].unit == "fine-tuning runs"
    # MMD a step, MSD and error still near their fraction-0 values at 5%
    errors, dist = _toy_frames(msd_small=1.9, err_small=0.85, mmd_linear=False)
    flipped = verdicts(MC.record_toy_claims(ledger(), errors, dist, small=0.05))
    assert flipped == {"Fig2b_mmd_linear": ERRATUM, "Fig2b_msd_low": NO, "Fig2b_error_low": NO}


def test_toy_error_row_is_not_comparable_when_fine_tuning_is_too_short():
    """Three one-epoch fine-tunings stand in for training from scratch: the memorisation mechanism is lost."""
    lost = MC.toy_error_lost({"toy_epochs": 1}, 0.05)
    assert "memorises" in lost and MC.toy_error_lost({"toy_epochs": 100}, 0.05) == ""
    # a mixture network trained as long as the profile's networks (the gpu profile: 30 of 30 epochs) keeps it;
    # one epoch of a 15-epoch profile (default) does not
    assert MC.toy_error_lost({"toy_epochs": 30, "epochs": 30}, 0.05) == ""
    assert "1 epoch(s)" in MC.toy_error_lost({"toy_epochs": 1, "epochs": 15}, 0.05)
    assert MC.toy_error_lost({"toy_epochs": 100, "epochs": 200}, 0.05) == ""
    for frames in (_toy_frames(), _toy_frames(msd_small=1.9, err_small=0.85)):
        out = {c.id: c for c in MC.record_toy_claims(scaled_ledger(), *frames, small=0.05, error_lost=lost)}
        assert out["Fig2b_error_low"].verdict == NC and out["Fig2b_error_low"].mechanism == lost
        assert out["Fig2b_error_low"].evidence == "scaled replication"
        assert out["Fig2b_mmd_linear"].evidence == "derivation"  # not a replication: never scaled
    # at the paper's epochs the row is decided again
    out = {c.id: c for c in MC.record_toy_claims(scaled_ledger(), *_toy_frames(), small=0.05)}
    assert out["Fig2b_error_low"].verdict == OK and out["Fig2b_error_low"].mechanism == "a test mechanism"


def _write_powerset_results(folder):
    """The result files of notebook 03 at two severities (offsets that average out), with clean rows."""
    avg = _powerset_avg(_spearman_value())
    rows = []
    for _, r in avg.iterrows():
        for s, d in ((1, -0.01), (2, 0.01)):
            rows.append({**r.to_dict(), "severity": s, "error": r["error"] + d, "msd": r["msd"] + d, "mmd": r["mmd"]})
    for s in SCHEMES:
        rows.append({"scheme": s, "family": "powerset", "n_ops": len(A.parse_scheme(s)), "corruption": "clean"})
        rows[-1].update({"severity": 0, "error": 0.1, "msd": np.nan, "mmd": np.nan})
    for m in ("autoaugment", "patch_gaussian"):
        for c in C_CORRUPTIONS:
            rows.append({"scheme": m, "family": "method", "n_ops": -1, "corruption": c, "severity": 1})
            rows[-1].update({"error": 0.15, "msd": 1.5, "mmd": 1.5})
    bn = pd.DataFrame(rows)
    bn.to_csv(folder / "powerset_bn.csv", index=False)
    bn[bn["scheme"].isin(SCHEMES[:5])].drop(columns=["msd", "mmd"]).to_csv(folder / "powerset_retrain.csv", index=False)
    errors, dist = _toy_frames()
    errors.to_csv(folder / "fig2b_toy_errors.csv", index=False)
    dist.to_csv(folder / "fig2b_toy_distances.csv", index=False)
    return {
        "seed": 0,
        "n_boot": N_BOOT,
        "methods": ["autoaugment", "patch_gaussian"],
        "toy_error_fractions": [0.0, 0.05, 1.0],
        "toy_epochs": 1,
    }


@pytest.mark.parametrize("profile", ["smoke", "default"])
def test_evaluate_msd_powerset_covers_its_index(tmp_path, profile):
    cfg = _write_powerset_results(tmp_path)
    led = ledger(profile)
    out = MC.evaluate_msd_powerset(led, cfg, tmp_path)
    led.cover(MC.INDEX_03)
    led.check_coverage()  # every index pattern matches a claim, every claim is indexed
    assert len(out) == len(led.claims) == 23  # with the two MMD rows on retrained models (issue 37)
    v = verdicts(out)
    if profile == "smoke":  # a pipeline check: nothing is judged
        assert set(v.values()) == {NC}
    else:
        assert v["Fig2b_msd_low"] == OK and v["AppB_bn_n_above"] == INC and v["S4.2_retrain_n_above"] == NC
    with pytest.raises(ValueError, match="disagree"):
        bad = ledger(profile)
        MC.evaluate_msd_powerset(bad, cfg, tmp_path)
        bad.cover(MC.INDEX_03[:-3] + [{"source": "x", "statement": "y", "claims": ["nothing_*"]}])
        bad.check_coverage()


def test_record_functions_reject_a_non_ledger():
    with pytest.raises(TypeError, match="Ledger"):
        MC.record_single_op_claims([], _avg(), seed=0)
    with pytest.raises(TypeError, match="Ledger"):
        MC.record_paper_consistency(None)


# ================================================================== notebook 04: tables
def _t1_rows(values):
    """table1_rows as table1_cell writes them; ``values[(aug, run)] = (clean, c, cbar)`` errors as fractions, two
    corruptions per benchmark at two severities with 10 and 30 images (weights)."""
    rows = []
    for (a, r), (clean, c, cb) in values.items():
        rows.append({"augmentation": a, "run": r, "benchmark": "clean", "corruption": "clean", "severity": 0})
        rows[-1].update({"error": clean, "n": 40})
        for bench, base, names in (("c", c, ("snow", "fog")), ("cbar", cb, ("blue_noise_sample", "ripple"))):
            for name, shift in zip(names, (-0.1, 0.1)):
                for s, n, d in ((1, 30, -0.05), (2, 10, 0.15)):  # weighted mean of d: 0
                    rows.append({"augmentation": a, "run": r, "benchmark": bench, "corruption": name, "severity": s})
                    rows[-1].update({"error": base + shift + d, "n": n})
    return pd.DataFrame(rows)


def test_per_model_and_per_corruption_tables_weight_by_images():
    rows = _t1_rows({("none", 0): (0.1, 0.3, 0.35), ("augmix", 0): (0.1, 0.2, 0.3), ("none", 1): (0.1, 0.32, 0.3)})
    pm = X.per_model_table(rows).set_index(["augmentation", "run"])
    assert pm.loc[("none", 0)][["clean_err", "c_err", "cbar_err", "delta"]].tolist() == pytest.approx([10, 30, 35, 5])
    pc = X.per_corruption_table(rows).set_index(["augmentation", "run"])
    assert pc.loc[("augmix", 0), "blue_noise_sample"] == pytest.approx(20.0)  # 30 − 10
    assert pc.loc[("augmix", 0), "ripple"] == pytest.approx(40.0)
    s = X.summarise_table1(X.per_model_table(rows))
    assert s.index.tolist() == ["Baseline", "AugMix"]
    assert s.loc["Baseline", "c_err"] == pytest.approx(31.0) and s.loc["Baseline", "runs"] == 2
    assert s.loc["AugMix", "gain_c"] == pytest.approx(10.0)  # paired with run 0 only
    assert s.loc["AugMix", "paper_delta_printed"] == PAPER_TABLE1["augmix"]["delta"]


def test_pixel_change_table_reads_a_test_set(tmp_path):
    clean = np.full((4, 3, 2, 2), 10, np.uint8)
    x = np.stack([clean + 5, np.zeros_like(clean)])  # "up" brightens by 5, "down" darkens to 0
    x[0, 1] += 5  # image 1 (severity 2) by 10
    np.savez(tmp_path / "t.npz", x=x, severity=np.array([1, 2, 1, 2]), names=np.array(["up", "down"]))
    table = X.pixel_change_table(tmp_path / "t.npz", clean)
    assert table.columns.tolist() == ["corruption", "sev1", "sev2", "sev3", "sev4", "sev5"]
    assert table.iloc[0, 1:3].tolist() == [5.0, 7.5] and table.iloc[1, 1:3].tolist() == [10.0, 10.0]
    assert np.isnan(table.iloc[0, 3])  # no image at severity 3


def test_table1_cells_and_paper_table():
    from robeval.msd.nets import run_seed

    cells = X.table1_cells(["none", "augmix"], 2, 5)
    assert [(c["augmentation"], c["run"]) for c in cells] == [("none", 0), ("augmix", 0), ("none", 1), ("augmix", 1)]
    assert cells[0]["seed"] == cells[1]["seed"] == run_seed(5, "finetune", 0) != cells[2]["seed"]  # paired by run
    with pytest.raises(ValueError, match="unknown augmentation"):
        X.table1_cells(["cutout"], 1, 0)
    # runs 10-14 judged alone (a rerun of runs 0-4 with other seeds) are the very cells of runs 0-14
    later = X.table1_cells(["none", "augmix"], 5, 5, first_run=10)
    assert later == X.table1_cells(["none", "augmix"], 15, 5)[20:]
    assert [c["run"] for c in later][::2] == [10, 11, 12, 13, 14]
    for bad, err in ((-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(err, match="first_run"):
            X.table1_cells(["none"], 1, 0, first_run=bad)
    paper = X.paper_cbar_table()
    assert paper.shape == (4, 10) and paper.columns.tolist() == list(CBAR_CORRUPTIONS)
    assert paper.loc["AugMix", "blue_noise_sample"] == 9.8
    assert paper.loc["Patch Gaussian", "transverse_chromatic_abberation"] == 59.5
    assert X.method_slug("Patch Gaussian") == "patch_gaussian"


def test_calibration_search_and_levels():
    # a linear error curve: the search brackets 0.25 between 1.6 and 2.56, then regula falsi hits 2.5 exactly
    alpha, err, hist = X.calibrate_alpha(lambda a: 0.1 * a, 0.25)
    assert alpha == pytest.approx(2.5) and err == pytest.approx(0.25)
    np.testing.assert_allclose(hist[:3], [(1.0, 0.1), (1.6, 0.16), (2.56, 0.256)])
    # falling from above; capped evaluations
    alpha, _, hist = X.calibrate_alpha(lambda a: 0.1 * a, 0.05, max_evals=3)
    # 1 -> 0.1, 1/1.6 -> 0.0625, 1/1.6² -> 0.039 (brackets 0.05; the budget is spent): the closest is 1/1.6²
    assert len(hist) == 3 and alpha == pytest.approx(1 / 1.6**2)
    levels = X.calibration_levels(100.0, ["ripple"])
    assert levels == {"ripple": [10.0] * 5}  # capped at the maximum magnitude
    from robeval.transforms.corruptions import severity_params

    assert X.calibration_levels(1.0, ["ripple"])["ripple"] == [float(v) for v in severity_params("ripple")]


def test_scan_plan():
    cfg = {"seed": 3, "scan_c_limit": 2, "scan_candidate_limit": 12, "n_scan": 20}
    cfg.update({"n_feature_images": 5, "n_feature_samples": 2})
    cfg.update({k: 1 for k in ("arch", "width", "epochs", "batch_size", "lr", "weight_decay", "n_train")})
    cfg.update({"full_data": False, "train_threads": 1})
    conf = X.scan_config(cfg, {"run0": "m0", "extractor": "fx"})
    assert (conf["error_model"], conf["feature_model"], conf["n_scan"]) == ("m0", "fx", 20)
    baseline, candidates = X.scan_corruptions(cfg)
    assert baseline == list(C_CORRUPTIONS[:2])
    assert candidates[:10] == list(CBAR_CORRUPTIONS) and len(candidates) == 12
    assert not set(candidates[10:]) & set(CBAR_CORRUPTIONS) and set(candidates) <= set(CANDIDATE_CORRUPTIONS)
    cells = X.scan_cells(["snow"], ["ripple"], 5, seed=3)
    assert [(c["corruption"], c["kind"], c["level"]) for c in cells[:5]] == [("snow", "c", s) for s in range(1, 6)]
    assert [c["level"] for c in cells[5:]] == [round(float(v), 4) for v in scan_levels("ripple", 5)]
    assert {c["kind"] for c in cells[5:]} == {"cbar"} and len({c["seed"] for c in cells}) == len(cells)


def test_candidate_distances_hand_computed():
    scan = pd.DataFrame(
        [
            {"corruption": "snow", "kind": "c", "level": 1, "feature": [0.0, 0.0]},
            {"corruption": "snow", "kind": "c", "level": 2, "feature": [1.0, 0.0]},
            {"corruption": "ripple", "kind": "cbar", "level": 1.0, "feature": [3.0, 4.0]},  # nearest (1, 0): sqrt(20)
            {"corruption": "ripple", "kind": "cbar", "level": 2.0, "feature": [1.0, 2.0]},  # nearest (1, 0): 2
            {"corruption": "plasma_noise", "kind": "cbar", "level": 1.0, "feature": [0.0, 1.0]},  # 1
        ]
    )
    d = X.candidate_distances(scan).set_index("corruption")
    assert d.loc["ripple", "distance"] == pytest.approx((math.sqrt(20) + 2) / 2)
    assert d.loc["plasma_noise", "distance"] == pytest.approx(1.0)
    assert d.loc["ripple", "published"] and not d.loc["plasma_noise", "published"]


# ================================================================== notebook 04: claims
RUN_NOISE = {"c": (-0.1, 0.0, 0.1), "cbar": (0.05, -0.1, 0.05)}


def _tables(c=None, cbar=None, bsmpl=None, runs=3):
    """per_model and per_corruption tables at the paper's numbers (or the given ones) with small run noise."""
    c = {a: v["c"] for a, v in PAPER_TABLE1.items()} | (c or {})
    cbar = {a: v["cbar"] for a, v in PAPER_TABLE1.items()} | (cbar or {})
    pm, pc = [], []
    for a in PAPER_TABLE1:
        for r in range(runs):
            ce, cbe = c[a] + RUN_NOISE["c"][r], cbar[a] + RUN_NOISE["cbar"][r]
            pm.append({"augmentation": a, "run": r, "clean_err": 5.0, "c_err": ce, "cbar_err": cbe, "delta": cbe - ce})
            per = dict(zip(CBAR_CORRUPTIONS, PAPER_TABLE1_CBAR[a]))
            if bsmpl is not None:
                per["blue_noise_sample"] = bsmpl[a]
            pc.append({"augmentation": a, "run": r, **{k: v + RUN_NOISE["c"][r] for k, v in per.items()}})
    return pd.DataFrame(pm), pd.DataFrame(pc)


def test_table1_claims_with_the_papers_numbers():
    out = MC.record_table1_claims(ledger("paper"), *_tables())
    v = verdicts(out)
    assert [c.id for c in out][:3] == ["T1_c_err_none", "T1_cbar_err_none", "T1_c_err_autoaugment"]
    assert len(out) == 8 + 1 + 9 + 3 + 2 + 3 + 40
    assert set(v.values()) == {OK}, {k: x for k, x in v.items() if x != OK}
    c = {x.id: x for x in out}
    # AugMix gains 27.0 − 11.1 = 15.9 on C and 27.1 − 16.0 = 11.1 on C-bar: 4.8 less (the run noise is paired)
    assert c["T1_less_gain_cbar_augmix"].estimate == pytest.approx(4.8)
    assert c["T1_delta_patch_gaussian_gt_autoaugment"].estimate == pytest.approx(6.8 - 1.6)
    assert c["T1_bsmpl_gain_autoaugment"].estimate == pytest.approx(42.9 - 17.7)
    # under default the absolute errors are shown but not judged; the directions are judged
    d = verdicts(MC.record_table1_claims(ledger("default"), *_tables()))
    assert d["T1_c_err_augmix"] == d["T1pc_augmix_ripple"] == NC and d["T1_rank_cbar"] == OK
    assert d["T1_baseline_delta"] == OK  # comparable wherever C-bar is calibrated to the baseline


def test_table1_claims_flip():
    # Patch Gaussian better on C-bar (15.0) than on C; AutoAugment barely helps blue noise sample
    pm, pc = _tables(
        cbar={"patch_gaussian": 15.0}, bsmpl={"none": 42.9, "autoaugment": 45.0, "augmix": 9.8, "patch_gaussian": 9.0}
    )
    v = verdicts(MC.record_table1_claims(ledger(), pm, pc))
    assert v["T1_less_gain_cbar_patch_gaussian"] == v["T1_delta_patch_gaussian_gt_autoaugment"] == NO
    assert v["T1_rank_cbar"] == NO and v["T1_bsmpl_gain_autoaugment"] == NO
    assert v["T1_less_gain_cbar_augmix"] == OK and v["T1_bsmpl_gain_augmix"] == OK
    # scaled: a method without an established CIFAR-10-C gain cannot test the blue-noise-sample sentence
    pm, pc = _tables(
        c={"autoaugment": 27.0}, bsmpl={"none": 42.9, "autoaugment": 45.0, "augmix": 9.8, "patch_gaussian": 9.0}
    )
    s = {c.id: c for c in MC.record_table1_claims(scaled_ledger(), pm, pc, unit="fine-tuning runs")}
    assert s["T1_bsmpl_gain_autoaugment"].verdict == NC and "no established CIFAR-10-C gain" in (
        s["T1_bsmpl_gain_autoaugment"].mechanism
    )
    assert s["T1_bsmpl_gain_augmix"].verdict == OK and s["T1_bsmpl_gain_augmix"].unit == "fine-tuning runs"
    assert s["T1_gain_c_augmix"].evidence == "scaled replication"
    # one run: no interval, nothing decided
    one = verdicts(MC.record_table1_claims(ledger(), *_tables(runs=1)))
    assert one["T1_gain_c_augmix"] == one["T1_baseline_delta"] == INC
    with pytest.raises(ValueError, match="baseline"):
        MC.record_table1_claims(ledger(), pm[pm["augmentation"] != "none"], pc)


def test_paper_consistency_finds_the_augmix_delta_erratum():
    out = MC.record_paper_consistency(ledger("smoke"))  # the same at every profile
    v = verdicts(out)
    # Table 1 prints AugMix 11.1 -> 16.0 with Δ +5.9; 16.0 − 11.1 = 4.9
    assert [k for k, x in v.items() if x == ERRATUM] == ["T1_printed_delta_c10_augmix"]
    assert {c.id: c.estimate for c in out}["T1_printed_delta_c10_augmix"] == pytest.approx(4.9)
    assert v["T1_printed_delta_in_DA_AM"] == v["S5_text_delta_range"] == CONSISTENCY
    assert len(out) == 8 + 8 + 4 + 2 + 1 and set(v.values()) == {CONSISTENCY, ERRATUM}
    # reanalyses of the printed numbers: consistency / erratum, an erratum only beyond the printed rounding
    c = {x.id: x for x in out}
    assert {x.evidence for x in out} == {"reanalysis"}
    assert "|1| vs 0.15" in c["T1_printed_delta_c10_augmix"].rule  # |5.9 − 4.9| = 1.0 > 3 × 0.05
    # DA+AM on inverse sparkles: 76.7 − 74.3 = 2.4 vs printed 2.3, within the rounding: no erratum
    assert c["S5_text_da_am_ISprk"].verdict == CONSISTENCY
    assert not any(x.verdict in (OK, NO) for x in MC.record_paper_consistency(scaled_ledger()))


def _distances(published_far=True):
    names = list(CBAR_CORRUPTIONS) + [c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS][:6]
    rows = []
    for k, n in enumerate(names):
        pub = n in CBAR_CORRUPTIONS
        rows.append({"corruption": n, "distance": (2.0 if pub == published_far else 1.0) + 0.01 * k, "published": pub})
    return pd.DataFrame(rows)


def test_construction_claims():
    other = [c for c in CANDIDATE_CORRUPTIONS if c not in CBAR_CORRUPTIONS]
    choice = {"top": list(CBAR_CORRUPTIONS[:7]) + other[:3]}
    out = MC.record_construction_claims(ledger("paper"), choice, _distances(), n_candidates=16, seed=0, n_boot=N_BOOT)
    assert [c.id for c in out] == ["S5_construction_overlap", "S5_construction_cbar_far"]
    assert out[0].estimate == 7 and "chance level 6.2" in out[0].note
    assert out[0].verdict == INC  # one construction run carries no interval
    # published: 2 + 0.01 * mean(0..9) = 2.045; others: 1 + 0.01 * mean(10..15) = 1.125
    assert out[1].verdict == OK and out[1].estimate == pytest.approx(0.92)
    flipped = MC.record_construction_claims(ledger(), choice, _distances(False), n_candidates=16, seed=0, n_boot=N_BOOT)
    assert verdicts(flipped) == {"S5_construction_overlap": NC, "S5_construction_cbar_far": NO}
    only_published = _distances()[lambda d: d["published"]]
    assert len(MC.record_construction_claims(ledger(), choice, only_published, n_candidates=10, seed=0)) == 1
    with pytest.raises(ValueError, match="top"):
        MC.record_construction_claims(ledger(), {}, _distances(), n_candidates=16, seed=0)


@pytest.mark.parametrize("profile", ["smoke", "default"])
def test_evaluate_msd_cifar10_c_bar_covers_its_index(tmp_path, profile):
    values = {}
    for r in range(3):
        for a in PAPER_TABLE1:
            values[(a, r)] = (0.05, PAPER_TABLE1[a]["c"] / 100 + 0.001 * r, PAPER_TABLE1[a]["cbar"] / 100 - 0.001 * r)
    _t1_rows(values).to_csv(tmp_path / "table1_rows.csv", index=False)
    (tmp_path / "construction_choice.json").write_text(json.dumps({"top": list(CBAR_CORRUPTIONS)}))
    scan = [{"corruption": "snow", "kind": "c", "level": 1, "error": 0.2, "feature": [0.0, 0.0]}]
    for k, n in enumerate(CANDIDATE_CORRUPTIONS[:12]):
        scan.append({"corruption": n, "kind": "cbar", "level": 1.0, "error": 0.2, "feature": [1.0 + k, 0.0]})
    (tmp_path / "scan.json").write_text(json.dumps(scan))
    led = ledger(profile)
    cfg = {"seed": 0, "n_boot": N_BOOT, "scan_candidate_limit": 12, "finetune_epochs": 5}
    out = MC.evaluate_msd_cifar10_c_bar(led, cfg, tmp_path)
    led.cover(MC.INDEX_04)
    led.check_coverage()
    v = verdicts(out)
    assert "S5_construction_cbar_far" in v and "T1_bsmpl_gain_augmix" in v
    judged = {k: x for k, x in v.items() if not k.startswith(("T1_printed", "S5_text"))}
    if profile == "smoke":  # only the paper-against-itself rows carry a verdict under smoke
        assert set(judged.values()) == {NC}
    else:
        assert v["T1_gain_c_augmix"] == OK and v["T1_c_err_none"] == NC
    # every row says what it rests on and what n counts; the verdict is one its class allows
    for c in led.claims:
        assert c.verdict in ALLOWED[c.evidence]
        assert c.unit in UNITS or (c.unit is None and c.ci is None)
        if c.id.startswith(("T1_c_", "T1_gain", "T1_less", "T1_delta", "T1_rank", "T1pc")):
            assert c.unit == "fine-tuning runs"
        if c.id.startswith(("T1_printed", "S5_text")):
            assert c.evidence == "reanalysis"


def test_retrained_schemes_without_a_batchnorm_row_are_left_out(tmp_path):
    """A retrained scheme the batch-norm grid did not run has no MSD: the retraining statistics use the schemes
    that have both (the default profile retrains two multi-op schemes outside its batch-norm draw)."""
    cfg = _write_powerset_results(tmp_path)
    retrain = pd.read_csv(tmp_path / "powerset_retrain.csv")
    extra = retrain[retrain["scheme"] == SCHEMES[0]].assign(scheme="not_in_the_bn_grid")
    pd.concat([retrain, extra]).to_csv(tmp_path / "powerset_retrain.csv", index=False)
    led = ledger("default")
    out = {c.id: c for c in MC.evaluate_msd_powerset(led, cfg, tmp_path)}
    reference = ledger("default")
    _write_powerset_results(tmp_path)
    ref = {c.id: c for c in MC.evaluate_msd_powerset(reference, cfg, tmp_path)}
    assert out["S4.2_retrain_n_above"].estimate == ref["S4.2_retrain_n_above"].estimate
    assert out["S4.2_retrain_n_above"].ci == ref["S4.2_retrain_n_above"].ci
