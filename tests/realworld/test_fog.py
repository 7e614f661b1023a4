"""Tests for robeval.realworld.fog: synthetic stand-in, ensemble covariance, block split, tabular format."""

import numpy as np
import pytest

from robeval.realworld.fog import (
    FEATURES,
    FogData,
    block_split,
    ensemble_covariance,
    load_ensemble_table,
    save_ensemble_table,
    standardize,
    synthetic_fog_data,
)


@pytest.fixture(scope="module")
def data():
    return synthetic_fog_data(seed=0, n_days=56, n_members=10, fog_rate=0.15)


def test_synthetic_structure_and_physics(data):
    T = 56 * 24
    assert data.best.shape == (T, 10) and data.members.shape == (T, 10, 10) and data.features == FEATURES
    assert np.all(np.diff(data.time).astype(int) == 1)  # hourly
    assert abs(data.fog.mean() - 0.15) < 0.01  # label threshold is the (1 - fog_rate) quantile
    f = {n: j for j, n in enumerate(FEATURES)}
    assert np.all(data.best[:, f["d2m"]] <= data.best[:, f["t2m"]] + 1e-9)  # dewpoint never above temperature
    for name in ("tcc", "tp", "ssrd"):
        assert data.members[..., f[name]].min() >= 0.0
    assert data.members[..., f["tcc"]].max() <= 1.0
    # no sunshine at midnight; fog is more frequent at night than in the afternoon
    hour = data.time.astype("datetime64[h]").astype(int) % 24
    assert np.all(data.best[hour == 0, f["ssrd"]] == 0.0)
    assert data.fog[(hour >= 0) & (hour < 7)].mean() > 3 * data.fog[(hour >= 11) & (hour < 17)].mean()


def test_synthetic_is_seeded(data):
    again = synthetic_fog_data(seed=0, n_days=56)
    np.testing.assert_array_equal(again.members, data.members)
    np.testing.assert_array_equal(again.fog, data.fog)
    assert not np.array_equal(synthetic_fog_data(seed=1, n_days=56).fog, data.fog)


def test_ensemble_covariance_matches_numpy(data):
    C = ensemble_covariance(data.members[:50])
    for t in (0, 17, 49):
        np.testing.assert_allclose(C[t], np.cov(data.members[t].T), rtol=1e-10, atol=1e-12)
    # 10 members estimate a rank <= 9 covariance of 10 variables: singular but PSD
    lam = np.linalg.eigvalsh(C)
    assert lam.min() > -1e-8 * lam.max() and np.all(np.abs(lam[:, 0]) < 1e-6 * lam[:, -1])


def test_block_split_weeks():
    t = np.datetime64("2022-01-01T00", "h") + np.arange(8 * 7 * 24).astype("timedelta64[h]")
    m = block_split(t)
    week = np.arange(len(t)) // (7 * 24)
    np.testing.assert_array_equal(m["train"], np.isin(week, [0, 1, 4, 5]))
    np.testing.assert_array_equal(m["val"], np.isin(week, [2, 6]))
    np.testing.assert_array_equal(m["test"], np.isin(week, [3, 7]))
    assert (m["train"].astype(int) + m["val"] + m["test"] == 1).all()


def test_standardize_transforms_covariance():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(3, 3))
    C = A @ A.T
    mean, scale = np.array([1.0, -2.0, 0.5]), np.array([2.0, 0.5, 4.0])
    Z = rng.multivariate_normal(mean + 1, C, size=200000)
    Xs, Cs = standardize(Z, C, mean, scale)
    np.testing.assert_allclose(np.cov(Xs.T), Cs, rtol=0.03, atol=0.01)


def test_table_roundtrip_and_errors(tmp_path, data):
    small = FogData(data.time[:30], data.best[:30], data.members[:30], data.fog[:30], data.features)
    path = save_ensemble_table(small, tmp_path / "ens.csv")
    back = load_ensemble_table(path)
    np.testing.assert_array_equal(back.time, small.time)
    np.testing.assert_allclose(back.best, small.best, rtol=1e-12)
    np.testing.assert_allclose(back.members, small.members, rtol=1e-12)
    np.testing.assert_array_equal(back.fog, small.fog)
    assert back.features == FEATURES
    import pandas as pd

    df = pd.read_csv(path)
    df.drop(columns="fog").to_csv(tmp_path / "nofog.csv", index=False)
    with pytest.raises(ValueError, match="missing column 'fog'"):
        load_ensemble_table(tmp_path / "nofog.csv")
    df[~((df.member == 3) & (df.time == df.time.iloc[0]))].to_csv(tmp_path / "gap.csv", index=False)
    with pytest.raises(ValueError, match="same M >= 2 member rows"):
        load_ensemble_table(tmp_path / "gap.csv")


def test_bad_inputs():
    with pytest.raises(ValueError, match="n_days"):
        synthetic_fog_data(n_days=10)
    with pytest.raises(ValueError, match="members must have shape"):
        ensemble_covariance(np.zeros((5, 1, 3)))
    with pytest.raises(ValueError, match="pattern"):
        block_split(np.arange(10).astype("datetime64[h]"), pattern=(2, 0, 1))


def test_fog_run_is_seeded_and_pairs_independent_estimates(data):
    from robeval.core.seeding import keyed
    from robeval.realworld.fog import fog_run

    kw = dict(hidden=(8,), epochs=1, n_samples=200, n_repeats=3, max_test_points=30, deepfool_max_iter=20)
    a = fog_run(data, keyed(0, "run", 0), **kw)
    b = fog_run(data, keyed(0, "run", 0), **kw)
    c = fog_run(data, keyed(0, "run", 1), **kw)
    pts = a["points"]
    assert len(pts) == 30 and a["summary"]["n_test_points"] == 30 and a["summary"]["n_repeats"] == 3
    assert {"rw_robustness", "rw_robustness2", "adv_robustness", "adv_success"} <= set(pts.columns)
    assert pts.equals(b["points"])  # the same seed gives the same run
    assert not pts["rw_robustness"].equals(c["points"]["rw_robustness"])  # another run, another network and streams
    # the two estimates are independent draws of the same probabilities
    assert not pts["rw_robustness"].equals(pts["rw_robustness2"])
    assert np.abs(pts["rw_robustness"] - pts["rw_robustness2"]).max() < 0.2
    with pytest.raises(ValueError, match="n_repeats"):
        fog_run(data, 0, **{**kw, "n_repeats": 1})


def test_fog_grid_configuration(tmp_path, data):
    from robeval.core.profiles import resolve
    from robeval.realworld.fog import fog_config

    cfg = resolve("realworld_fog", "smoke")
    config = fog_config(cfg)
    assert "n_runs" not in config and "n_jobs" not in config and config["data_sha256"] == ""
    assert config == fog_config(resolve("realworld_fog", "smoke", n_runs=9))
    path = save_ensemble_table(data, tmp_path / "fog.csv")
    real = fog_config(resolve("realworld_fog", "smoke", data_path=str(path)))
    assert len(real["data_sha256"]) == 64  # a changed data file changes the grid's identity
