"""Notebook 03 in parts and App. B over base networks (issue 63): the long profile's chunks compute one part of the
notebook at a time; App. B's count statistic is one number per independently trained base network.

Hand-computed cases: per-base counts -> the t-interval over base networks and its verdict, in both directions;
a run of some parts records the other parts' rows as not decided, naming the part, never from files an earlier
run left; the not-run rows are the rows a full run records.
"""

import json

import numpy as np
import pandas as pd
import pytest
from test_msd_claims import _write_powerset_results

from robeval.core import profiles
from robeval.core.ledger import CONTRADICTED, INCONCLUSIVE, REPRODUCED, Ledger
from robeval.msd import claims as MC
from robeval.msd import nets, powerset

N_COLS = 15


def ledger(profile="default"):
    return Ledger(paper="msd", notebook="test_msd_parts", profile=profile)


def _count_case(k: int, n_schemes: int = 12, seed: int = 0):
    """(msd, error) DataFrames of ``n_schemes`` schemes x 15 corruptions whose Spearman(MSD, error) is +1 on the
    first ``k`` corruptions and −1 on the others: count_above = k exactly."""
    rng = np.random.default_rng(seed)
    msd = rng.permutation(np.tile(np.arange(n_schemes, dtype=float)[:, None], (1, N_COLS)))
    msd = np.column_stack([rng.permutation(n_schemes).astype(float) for _ in range(N_COLS)])
    err = np.where(np.arange(N_COLS) < k, msd, -msd) * 0.01 + 0.5
    idx = [f"s{i}" for i in range(n_schemes)]
    cols = [f"c{j}" for j in range(N_COLS)]
    return pd.DataFrame(msd, index=idx, columns=cols), pd.DataFrame(err, index=idx, columns=cols)


def _bases(counts):
    msd, _ = _count_case(counts[0])
    errs = []
    for k in counts:
        _, e = _count_case(k)
        # the same MSD for every base network (the extractor is its own network); only the errors differ
        errs.append(pd.DataFrame(np.where(np.arange(N_COLS) < k, msd, -msd) * 0.01 + 0.5, msd.index, msd.columns))
    return msd, errs


@pytest.mark.parametrize(
    "counts, verdict, estimate, half",
    [
        # counts − 7.5 = 4.5, 5.5, 3.5: mean 4.5, sd 1, se 1/sqrt(3), t(0.975, 2) = 4.3027: [2.016, 6.984]
        ((12, 13, 11), REPRODUCED, 4.5, 4.302653 / np.sqrt(3)),
        # −1.5, −0.5, −2.5: mean −1.5, the same half-width 2.484: [−3.98, 0.98] straddles 0
        ((6, 7, 5), INCONCLUSIVE, -1.5, 4.302653 / np.sqrt(3)),
        # −4.5, −3.5, −5.5: [−6.98, −2.02], entirely below the majority: contradicted
        ((3, 4, 2), CONTRADICTED, -4.5, 4.302653 / np.sqrt(3)),
        # five bases 12, 12, 13, 11, 12: −> 4.5 ± t(0.975, 4) 2.7764 * sqrt(0.5 / 5)
        ((12, 12, 13, 11, 12), REPRODUCED, 4.5, 2.776445 * np.sqrt(0.5 / 5)),
    ],
)
def test_appb_count_over_base_networks_is_a_t_interval_over_the_bases(counts, verdict, estimate, half):
    msd, errs = _bases(counts)
    iv = MC.appb_bases_interval(msd.to_numpy(), [e.to_numpy() for e in errs])
    assert iv.estimate == pytest.approx(estimate) and iv.n == len(counts)
    assert (iv.low, iv.high) == pytest.approx((estimate - half, estimate + half), rel=1e-5)
    assert iv.method == f"t-interval over {len(counts)} base networks"
    row = MC.appb_bases_row(ledger(), msd, errs)
    assert row.id == "AppB_bn_n_above" and row.central and row.unit == "base networks"
    assert row.n_runs == len(counts) and row.verdict == verdict
    assert f"per base network: {', '.join(str(c) for c in counts)}" in row.note


def test_the_same_count_on_every_base_network_is_not_decided_from_three():
    """Three bases at 12 each: no spread, so the sign test over 3 units (p = 0.25) is all they allow."""
    msd, errs = _bases((12, 12, 12))
    led = ledger()
    row = MC.appb_bases_row(led, msd, errs)
    led.finalise()
    assert row.estimate == pytest.approx(4.5) and row.verdict == INCONCLUSIVE


def _bn_avg_and_bases(folder, further):
    """The test results of notebook 03 and a powerset_bn_bases.csv of ``further`` base networks whose errors equal
    base 0's (every count the same as run0's)."""
    cfg = _write_powerset_results(folder)
    bn = pd.read_csv(folder / "powerset_bn.csv")
    powerset_rows = bn[bn["family"] == "powerset"].drop(columns=["msd", "mmd"])
    if further:
        extra = pd.concat([powerset_rows.assign(base=b) for b in range(1, further + 1)])
        extra.to_csv(folder / "powerset_bn_bases.csv", index=False)
    return cfg


@pytest.mark.parametrize("further", [0, 1, 2])
def test_appb_row_is_judged_over_base_networks_from_three_and_says_why_not_below(tmp_path, further):
    cfg = _bn_avg_and_bases(tmp_path, further)
    out = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    row = out["AppB_bn_n_above"]
    if further + 1 >= MC.MIN_BASES:
        assert row.unit == "base networks" and row.n_runs == further + 1
        assert "3 independently trained base networks" in row.note
    else:
        assert row.unit == "schemes" and "cannot decide a claim about models" in row.note
        assert row.verdict == INCONCLUSIVE  # a claim about models over schemes of one network: never decided
    assert len(out) == 23


def test_a_run_of_one_part_leaves_the_other_parts_undecided_naming_them(tmp_path):
    cfg = _write_powerset_results(tmp_path)
    full = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    # a chunk that computed Fig. 2b only: the earlier run's batch-norm and retraining files are removed
    assert powerset.record_parts(tmp_path, ["fig2b"]) == ["fig2b"]
    assert not (tmp_path / "powerset_bn.csv").exists() and not (tmp_path / "powerset_retrain.csv").exists()
    assert json.loads((tmp_path / powerset.PARTS_FILE).read_text()) == {"parts": ["fig2b"]}
    assert powerset.parts_run(tmp_path) == ["fig2b"]
    led = ledger()
    out = {c.id: c for c in MC.evaluate_msd_powerset(led, cfg, tmp_path)}
    led.cover(MC.INDEX_03)
    led.check_coverage()
    assert set(out) == set(full)
    for cid, c in out.items():
        if cid.startswith("Fig2b_"):
            assert c.verdict == full[cid].verdict and c.estimate == full[cid].estimate
            continue
        assert c.verdict in (INCONCLUSIVE, "not comparable") and c.estimate is None and c.ci is None, cid
        part = (
            "'retrain'"
            if cid.startswith(("S4.2_retrain", "S4.2_brightness_low_retrain")) or cid.endswith("_retrain")
            else "'appb'"
        )
        assert f"the part {part}" in c.note and "parts = [fig2b]" in c.note, (cid, c.note)
        if c.verdict == INCONCLUSIVE:  # a row whose mechanism is lost anyway says that in decides
            assert f"the part {part}" in c.decides, (cid, c.decides)
        same = ("source", "description", "kind", "central", "evidence", "unit", "about")
        assert {k: getattr(c, k) for k in same} == {k: getattr(full[cid], k) for k in same}, cid
        # the same mechanism, lost or not (the retraining rows' reason is read from the settings alone when not run)
        assert c.mechanism == full[cid].mechanism or (c.mechanism and full[cid].mechanism and part == "'retrain'")


def test_the_retraining_alone_waits_for_the_batchnorm_grid_and_a_full_run_clears_the_marker(tmp_path):
    cfg = _write_powerset_results(tmp_path)
    powerset.record_parts(tmp_path, ["retrain"])
    out = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    assert "the part 'appb' was not run" in out["S4.2_retrain_n_above"].note
    assert "a retrained scheme's MSD comes from the batch-norm grid" in out["S4.2_retrain_n_above"].note
    assert out["Fig2b_msd_low"].estimate is None
    assert powerset.record_parts(tmp_path, ["retrain", "fig2b", "appb"]) == list(powerset.PARTS)
    assert not (tmp_path / powerset.PARTS_FILE).exists() and powerset.parts_run(tmp_path) == list(powerset.PARTS)


def test_fig2b_and_appb_without_the_retraining(tmp_path):
    cfg = _write_powerset_results(tmp_path)
    full = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    powerset.record_parts(tmp_path, ["fig2b", "appb"])
    out = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    assert set(out) == set(full)
    retrain_rows = {r["id"] for r in MC.part_rows("retrain", cfg)}
    for cid in full:
        if cid in retrain_rows:
            assert out[cid].estimate is None and "'retrain'" in out[cid].note
        else:
            assert out[cid].verdict == full[cid].verdict and out[cid].estimate == full[cid].estimate, cid


@pytest.mark.parametrize("profile", ["default", "long"])
def test_the_not_run_rows_are_the_rows_a_full_run_records(tmp_path, profile):
    """part_rows lists every row of a part as the record functions record it (id, source, description, kind,
    central, evidence, unit, about)."""
    cfg = dict(_write_powerset_results(tmp_path))
    settings = profiles.resolve("msd_powerset", profile)
    cfg.update({k: settings[k] for k in ("retrain_init", "retrain_epochs", "epochs", "n_aug_samples", "corruptions")})
    cfg["n_bases"] = 1
    full = {c.id: c for c in MC.evaluate_msd_powerset(ledger(), cfg, tmp_path)}
    listed = [r for p in powerset.PARTS for r in MC.part_rows(p, cfg)]
    retrain = {r["id"] for r in MC.part_rows("retrain", cfg)}
    assert sorted(r["id"] for r in listed) == sorted(full)
    for r in listed:
        c = full[r["id"]]
        assert (r["source"], r["description"], r["kind"], r["central"]) == (c.source, c.description, c.kind, c.central)
        # a row whose mechanism is lost is labelled a scaled replication by the ledger, on either path
        assert (r["labels"]["evidence"], r["labels"]["unit"]) == (c.evidence.replace("scaled ", ""), c.unit), r["id"]
        assert r["labels"].get("about", c.about) == c.about, r["id"]
        if "mechanism" in r["labels"]:  # a row whose mechanism is lost says why (the retraining's from the settings)
            assert c.verdict == "not comparable" and c.mechanism, r["id"]
            assert r["labels"]["mechanism"] == c.mechanism or r["id"] in retrain, r["id"]
    bases = {r["id"]: r for r in MC.part_rows("appb", {**cfg, "n_bases": 3})}
    assert bases["AppB_bn_n_above"]["labels"]["unit"] == "base networks"


def test_parts_are_checked_and_a_cut_of_the_retrained_schemes_nests():
    assert powerset.check_parts(["retrain", "fig2b"]) == ["fig2b", "retrain"]
    for bad in ([], "fig2b", ["fig2b", "fig2b"], ["toy"]):
        with pytest.raises(ValueError, match="parts"):
            powerset.check_parts(bad)
    names = [f"s{i}" for i in range(64)]
    cuts = [powerset.retrain_cut(names, k, 0) for k in (16, 32, 48, 0)]
    assert [len(c) for c in cuts] == [16, 32, 48, 64] and cuts[-1] == names
    for small, large in zip(cuts, cuts[1:]):
        assert set(small) <= set(large) and small == [n for n in large if n in small]  # kept in list order
    assert cuts[0] != names[:16]  # a seeded draw, not the head of the list (the lead schemes come first)
    with pytest.raises(ValueError, match="retrain_limit"):
        powerset.retrain_cut(names, -1, 0)


def test_base_cells_cover_the_further_base_networks_with_seeds_of_their_own():
    schemes = [frozenset(), frozenset({"solarize"})]
    cells = powerset.powerset_base_cells(schemes, 3, seed=2, n_runs=5)
    assert [(c["base"], c["scheme"]) for c in cells] == [(1, "none"), (1, "solarize"), (2, "none"), (2, "solarize")]
    assert cells[0]["seed"] == nets.run_seed(2, "base", 1, "scheme", "none") != cells[2]["seed"]
    assert powerset.powerset_base_cells(schemes, 1, seed=2, n_runs=3) == []
    with pytest.raises(ValueError, match="n_runs"):
        powerset.powerset_base_cells(schemes, 4, seed=2, n_runs=3)


def test_the_long_table_shares_04s_networks_and_sizes_its_chunks():
    """Issue 63: 03's long profile trains as 04's long (their default-augmentation networks are shared), one
    process per core, App. B on >= 3 base networks, the gpu profile's 64 schemes retrained from scratch."""
    from robeval.core.catalog import notebooks_for_profile

    c03, c04 = profiles.resolve("msd_powerset", "long"), profiles.resolve("msd_cifar10_c_bar", "long")
    assert {k: c03[k] for k in nets.TRAIN_KEYS} == {k: c04[k] for k in nets.TRAIN_KEYS}
    assert c03["n_jobs"] == 2 and c03["n_runs"] == 5 and MC.MIN_BASES <= c03["n_bases"] <= c03["n_runs"]
    gpu = profiles.resolve("msd_powerset", "gpu")
    assert c03["retrain_schemes"] == gpu["retrain_schemes"] == ["sample:64"]
    assert c03["retrain_init"] == "scratch" and c03["retrain_epochs"] == c03["epochs"] == 30
    assert all(isinstance(c03[k], str) and c03[k] for k in ("estimate", "scaled_down", "mechanism"))
    assert "03_msd_powerset" in [p.stem for p in notebooks_for_profile("long")]
    for profile in ("smoke", "default"):  # today's App. B row where a profile keeps one base network
        s = profiles.resolve("msd_powerset", profile)
        assert s["n_bases"] == 1 and s["parts"] == list(powerset.PARTS) and s["retrain_limit"] == 0
    with pytest.raises(ValueError, match="parts"):
        profiles.resolve("msd_powerset", "long", parts=["fig2c"])
    with pytest.raises(ValueError, match="retrain_limit"):
        profiles.resolve("msd_powerset", "long", retrain_limit=-1)
