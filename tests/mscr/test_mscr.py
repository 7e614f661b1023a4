"""Tests for robeval.mscr: MSCR arithmetic, CIs, splits, augmentation, seeds, the per-cell protocols (2D and
CIFAR-10) and their input validation."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from robeval.mscr.cifar import image_mlp, model_file, run_cell_cifar, uniform_linf_box
from robeval.mscr.claim_stats import run_cube
from robeval.mscr.claims_2d import record_k_effect
from robeval.mscr.protocol import (
    accuracy_matrix,
    augment,
    augment_shared,
    check_predictions,
    derived_seed,
    evaluate_levels,
    make_cells,
    make_classifier,
    mscr_per_run,
    mscr_summary,
    mscr_value,
    resolve_eps_levels,
    run_cell_2d,
    run_seeds,
    split_indices,
)
from robeval.mscr.published import corrected_cifar_eps_test
from robeval.mscr.tables import printed_vs_csv

MIRROR = Path(__file__).resolve().parents[3] / "shared" / "data"


def test_mscr_value_closed_form():
    assert mscr_value(0.99, 0.98) == pytest.approx(-100 / 99)
    np.testing.assert_allclose(mscr_value([0.5, 0.8], [0.6, 0.8]), [20.0, 0.0])
    # the paper's Table 2a, eps_train = 0: (99.405 - 99.531) / 99.531 = -0.1266 %
    assert mscr_value(0.99531, 0.99405) == pytest.approx(-0.12659, abs=1e-5)
    with pytest.raises(ValueError, match="clean accuracy"):
        mscr_value(0.0, 0.5)


@pytest.mark.parametrize(
    "clean, rob, match",
    [
        (float("nan"), 0.5, "NaN"),
        (0.9, float("nan"), "NaN"),
        (0.85, 80, "fraction"),  # percent mixed with a fraction
        (99.5, 99.4, "fraction"),  # percentages
        ([0.9, -0.1], [0.9, 0.9], "fraction"),
    ],
)
def test_mscr_value_rejects_nan_and_percentages(clean, rob, match):
    with pytest.raises(ValueError, match=match):
        mscr_value(clean, rob)


def test_paired_pandas_inputs_with_different_indexes_are_refused():
    """Probe J F14: two Series were paired by position, ignoring their indexes: the clean accuracy of run 1 with the
    robust accuracy of run 0. Now two pandas objects with different indexes are refused naming both; the same
    index (in the same order) or arrays pair as before."""
    from robeval.mscr import eps_min

    clean, rob = pd.Series([0.9, 0.5], index=[0, 1]), pd.Series([0.5, 0.9], index=[1, 0])
    with pytest.raises(ValueError, match=r"^acc_clean and acc_rob are pandas objects with different indexes "):
        mscr_value(clean, rob)
    with pytest.raises(ValueError, match=r"\(acc_clean: \[0, 1\], acc_rob: \[1, 0\]\).*acc_rob\.reindex\(acc_clean"):
        mscr_value(clean, rob)
    np.testing.assert_allclose(mscr_value(clean, rob.reindex(clean.index)), [0.0, 0.0])  # aligned: equal accuracies
    np.testing.assert_allclose(mscr_value(clean, rob.to_numpy()), [100 * (0.5 - 0.9) / 0.9, 80.0])  # by position
    X = pd.DataFrame({"a": [0.0, 0.1, 1.0, 1.2]}, index=[10, 11, 12, 13])
    y = pd.Series([0, 0, 1, 1], index=[13, 12, 11, 10])
    with pytest.raises(ValueError, match=r"^X and y are pandas objects with different indexes \(X: \[10, 11, 12, 13\]"):
        eps_min(X, y)
    assert eps_min(X, np.array([0, 0, 1, 1])) == pytest.approx(0.45)  # an array: paired by position
    assert eps_min(X, pd.Series([0, 0, 1, 1], index=X.index)) == pytest.approx(0.45)


def test_run_seeds_are_derived_and_prefix_stable():
    a = run_seeds(0, 5)
    assert a[:3] == run_seeds(0, 3)  # fewer runs = the first seeds of more runs (paired grids)
    assert len(set(a)) == 5 and a != [0, 1, 2, 3, 4] and run_seeds(1, 5) != a
    assert derived_seed(a[0], "model") != derived_seed(a[0], "init")
    assert derived_seed(a[0], "test", 0.01) != derived_seed(a[0], "test", 0.02)
    with pytest.raises(ValueError, match="role"):
        derived_seed(0, "other")
    with pytest.raises(ValueError, match="n_runs"):
        run_seeds(0, -1)
    for n_runs in (float("inf"), float("-inf"), float("nan")):  # probeE #14: OverflowError / int()'s NaN message
        with pytest.raises(ValueError, match="n_runs must be an integer >= 0"):
            run_seeds(0, n_runs)


def _tidy():
    # 3 runs x 2 models x eps_test {0, eps_min = 0.004, 0.01}
    rows = []
    acc = {
        0.0: {0.0: [0.90, 0.92, 0.94], 0.004: [0.81, 0.92, 0.94], 0.01: [0.5, 0.5, 0.5]},
        0.1: {0.0: [0.80, 0.80, 0.80], 0.004: [0.84, 0.88, 0.80], 0.01: [0.7, 0.7, 0.7]},
    }
    for e_tr, by_test in acc.items():
        for e_te, vals in by_test.items():
            for seed, a in enumerate(vals):
                rows.append({"seed": seed, "eps_train": e_tr, "eps_test": e_te, "acc": a})
    return pd.DataFrame(rows)


def test_accuracy_matrix_mean_and_t_interval():
    mat = accuracy_matrix(_tidy())
    assert mat["mean"].loc[0.0, 0.0] == pytest.approx(92.0)
    assert mat["std"].loc[0.0, 0.0] == pytest.approx(2.0)
    t = stats.t.ppf(0.975, 2)
    assert mat["margin"].loc[0.0, 0.0] == pytest.approx(t * 2.0 / math.sqrt(3))
    assert mat["margin"].loc[0.01, 0.1] == pytest.approx(0.0)
    assert int(mat["n"].loc[0.004, 0.1]) == 3


def test_mscr_per_run_and_summary():
    per = mscr_per_run(_tidy(), 0.004)
    got = per.set_index(["eps_train", "seed"])["mscr"]
    assert got[(0.0, 0)] == pytest.approx(-10.0)
    assert got[(0.0, 1)] == pytest.approx(0.0)
    assert got[(0.1, 0)] == pytest.approx(5.0)
    summ = mscr_summary(_tidy(), 0.004).set_index("eps_train")
    assert summ.loc[0.0, "mscr"] == pytest.approx(-10 / 3)
    assert summ.loc[0.1, "mscr"] == pytest.approx((5 + 10 + 0) / 3)
    v = np.array([-10.0, 0.0, 0.0])
    assert summ.loc[0.0, "mscr_margin"] == pytest.approx(stats.t.ppf(0.975, 2) * v.std(ddof=1) / math.sqrt(3))
    with pytest.raises(ValueError, match="eps_min"):
        mscr_per_run(_tidy(), 0.005)


def test_duplicated_runs_are_refused_not_counted_twice():
    rows = _tidy()
    summ = mscr_summary(rows, 0.004).set_index("eps_train")
    v = np.array([-10.0, 0.0, 0.0])
    assert summ.loc[0.0, "n_runs"] == 3
    assert summ.loc[0.0, "mscr_margin"] == pytest.approx(stats.t.ppf(0.975, 2) * v.std(ddof=1) / math.sqrt(3))
    twice = pd.concat([rows, rows])  # was: 6 runs and a CI half-width shrunk from 14.3 to 6.1
    for call in (
        lambda: mscr_summary(twice, 0.004),
        lambda: mscr_per_run(twice, 0.004),
        lambda: accuracy_matrix(twice),
        lambda: run_cube(twice),
    ):
        with pytest.raises(ValueError, match=r"seed=0, eps_train=0.0, eps_test=0.0.*drop_duplicates"):
            call()
    k_rows = pd.DataFrame({"seed": [0, 0, 1, 1], "k": [10, 20, 10, 20], "acc": [0.5, 0.5, 0.6, 0.6]})
    with pytest.raises(ValueError, match=r"seed=0, k=10"):
        record_k_effect(None, pd.concat([k_rows, k_rows.head(1)]))


def test_a_results_csv_with_a_missing_column_names_the_file_and_the_fix(tmp_path):
    """Issue 36: a results CSV without its acc column failed deep inside a notebook cell with a pandas KeyError."""
    from robeval.core import io

    path = tmp_path / "rf_iid_B_Linf.csv"
    io.save_frame(_tidy().drop(columns="acc"), path)
    rows = io.load_frame(path)
    for call in (lambda: mscr_summary(rows, 0.004), lambda: accuracy_matrix(rows), lambda: run_cube(rows)):
        with pytest.raises(ValueError, match=rf"read from {path}\) lacks columns \['acc'\].*recompute it"):
            call()
    with pytest.raises(FileNotFoundError, match="no such results file.*without --replot"):
        io.load_frame(tmp_path / "missing.csv")


def test_eps_min_zero_is_refused_not_a_perfect_mscr():
    with pytest.raises(ValueError, match=r"eps_min is 0.*min_class_separation"):  # was MSCR = 0% everywhere
        mscr_summary(_tidy(), 0.0)
    with pytest.raises(ValueError, match="eps_min is 0"):
        run_cube(_tidy()).mscr(0.0)


def test_a_separation_of_zero_names_the_conflicting_points():
    from robeval.mscr import eps_min, min_class_separation

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [3.0, 0.0]])
    y = [0, 1, 1, 0]
    with pytest.raises(ValueError, match=r"separation is 0.*points 0 and 2 \(labels 0 and 1\).*Drop or relabel"):
        min_class_separation(X, y)  # was 0.0 without a word
    with pytest.raises(ValueError, match="points 0 and 2"):
        eps_min(X, y, norm=2)
    assert min_class_separation(X[[0, 1, 3]], [0, 1, 0]) == 1.0  # without the twin


def test_split_indices():
    tr, te = split_indices(4674, 0.2, seed=3)
    assert len(te) == 935 and len(tr) == 4674 - 935
    assert np.intersect1d(tr, te).size == 0 and np.union1d(tr, te).size == 4674
    tr2, te2 = split_indices(4674, 0.2, seed=3)
    np.testing.assert_array_equal(te, te2)
    assert not np.array_equal(te, split_indices(4674, 0.2, seed=4)[1])
    with pytest.raises(ValueError, match="test_size"):
        split_indices(10, 1.5, 0)


def test_augment_iid_and_shared():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]])
    y = np.array([0, 1, 1])
    Xa, ya = augment(X, y, 0.1, 4, np.inf, np.random.default_rng(0))
    assert Xa.shape == (12, 2)
    np.testing.assert_array_equal(ya, [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1])
    off = Xa.reshape(3, 4, 2) - X[:, None]
    assert np.abs(off).max() <= 0.1
    assert not np.allclose(off[0], off[1])  # iid: points get different offsets
    unit = np.random.default_rng(1).uniform(-1, 1, (4, 2))
    Xs, _ = augment_shared(X, y, 0.1, unit)
    off_s = Xs.reshape(3, 4, 2) - X[:, None]
    np.testing.assert_allclose(off_s[0], off_s[2])  # shared: every point gets the same offsets
    np.testing.assert_allclose(off_s[1], 0.1 * unit)
    Xc, yc = augment(X, y, 0.0, 4, np.inf, np.random.default_rng(0))
    np.testing.assert_array_equal(Xc, X)
    with pytest.raises(ValueError, match="eps"):
        augment(X, y, -0.1, 4, np.inf, np.random.default_rng(0))


def test_evaluate_levels_known_probability_and_single_predict_call():
    # class 0 at x0 = -1, class 1 at x0 = +1; classifier sign(x0). L_inf noise of radius 2 flips a point
    # with probability P(u < -1) = 1/4 for u ~ U[-2, 2]; radius 0.5 never flips.
    n = 4000
    X = np.zeros((n, 2))
    y = np.arange(n) % 2
    X[:, 0] = np.where(y == 1, 1.0, -1.0)
    calls = []

    def predict(Z):
        calls.append(len(Z))
        return (Z[:, 0] > 0).astype(int)

    rows = evaluate_levels(predict, X, y, [0.0, 0.5, 2.0], 5, np.inf, seed=0)
    assert len(calls) == 1 and calls[0] == n + 2 * 5 * n  # clean predicted once, all levels in one call
    acc = {r["eps_test"]: r["acc"] for r in rows}
    assert acc[0.0] == 1.0 and acc[0.5] == 1.0
    assert acc[2.0] == pytest.approx(0.75, abs=4 * math.sqrt(0.75 * 0.25 / (5 * n)))
    assert [r["n_eval"] for r in rows] == [n, 5 * n, 5 * n]
    with pytest.raises(ValueError, match="noise_mode"):
        evaluate_levels(predict, X, y, [0.0], 1, np.inf, seed=0, noise_mode="bogus")


@pytest.mark.parametrize(
    "predict, match",
    [
        (lambda Z: 1, "one row per input"),  # a scalar would broadcast to accuracy 0.5
        (lambda Z: np.full(len(Z), np.nan), "NaN"),  # NaN labels would compare False everywhere
        (lambda Z: np.zeros(len(Z) - 1, dtype=int), "one row per input"),  # wrong length
        (lambda Z: np.zeros((len(Z), 2, 2)), "one row per input"),  # images, not scores (scores (m, C) are read)
        (lambda Z: np.full(len(Z), 0.4), "score, not a label"),  # a squeezed probability column
    ],
)
def test_evaluate_levels_validates_the_predictions(predict, match):
    X = np.zeros((10, 2))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match=match):
        evaluate_levels(predict, X, y, [0.0, 0.1], 2, np.inf, seed=0)


def test_check_predictions_accepts_labels():
    np.testing.assert_array_equal(check_predictions([0, 1, 1], 3), [0, 1, 1])
    np.testing.assert_array_equal(check_predictions(np.array(["a", "b"]), 2), ["a", "b"])
    np.testing.assert_array_equal(check_predictions(np.array([1.0, 0.0]), 2), [1.0, 0.0])


def test_resolve_eps_levels_and_cells():
    assert resolve_eps_levels([0, -1, 0.03], 0.004) == [0.0, 0.004, 0.03]
    with pytest.raises(ValueError, match=">= 0"):
        resolve_eps_levels([-0.5], 0.004)
    cells = make_cells(range(2), [0.0, 0.1], model="rf")
    assert cells[1] == {"seed": 0, "eps_train": 0.1, "model": "rf"} and len(cells) == 4


def test_resolve_eps_levels_replace_nearest():
    grid = [0.0, 0.001, 0.002, 0.004, 0.007]
    assert resolve_eps_levels(grid, 0.00203, replace_nearest=True) == [0.0, 0.001, 0.00203, 0.004, 0.007]
    assert resolve_eps_levels(grid, 0.0045, replace_nearest=True) == [0.0, 0.001, 0.002, 0.0045, 0.007]
    assert resolve_eps_levels(grid, 0.0045) == grid  # off: the grid as given
    # an explicit -1 marks the place, whatever is nearest
    assert resolve_eps_levels([0.0, -1, 0.004], 0.0039, replace_nearest=True) == [0.0, 0.0039, 0.004]
    for bad in (float("nan"), -0.1):
        with pytest.raises(ValueError, match="eps_min"):
            resolve_eps_levels(grid, bad, replace_nearest=True)


@pytest.mark.parametrize("dataset", ["A", "B", "C"])
@pytest.mark.parametrize("norm", ["Linf", "L2"])
def test_settings_levels_give_the_columns_of_every_authors_sheet(dataset, norm):
    """The settings' grid with the measured eps_min in place of its nearest level is the eps_train header of
    each of the authors' six sheets (eps_min in place of 0.004 for A and B, of 0.002 for C)."""
    from robeval.core.data import load_mscr_2d
    from robeval.core.profiles import resolve
    from robeval.mscr import published, separation

    cfg = resolve("mscr_2d", "default", dataset=dataset, norm=norm.lower())
    X, y = load_mscr_2d(dataset)
    eps_min = float(separation.nearest_other_class_distance(X, y, {"Linf": np.inf, "L2": 2}[norm]).min()) / 2
    levels = resolve_eps_levels(cfg.eps_levels, eps_min, replace_nearest=cfg.eps_min_replaces_nearest)
    ref = published.load_mscr_reference_2d(dataset, norm)
    np.testing.assert_allclose(levels, ref["eps_train"], rtol=0, atol=1e-9)
    assert levels[ref["eps_min_position"]] == eps_min


def test_uniform_linf_box_is_uniform_on_the_truncated_interval():
    x = torch.full((20000,), 0.02)
    z = uniform_linf_box(x, 0.05, torch.Generator().manual_seed(0)).numpy()
    assert z.min() >= 0.0 and z.max() <= 0.07 + 1e-7
    assert stats.kstest(z, stats.uniform(0.0, 0.07).cdf).pvalue > 1e-3


def test_corrected_cifar_eps_test_and_printed_vs_csv():
    levels = [0.0, 0.05, 0.1, 0.10588, 0.0125, 0.15]
    assert corrected_cifar_eps_test(levels) == [0.0, 0.05, 0.1, 0.10588, 0.125, 0.15]
    csv = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=[0.0, 0.5], columns=[0.0, 0.5])
    printed = {
        "eps_train": [0.0, "eps_min"],
        "eps_test": [0.0, "eps_min"],
        "acc": [[1.0, 2.0], [3.0, 9.0]],
        "mscr": [1.0, 2.0],
    }
    d = printed_vs_csv(printed, csv, pd.Series([1.0, 2.0]), eps_min=0.5)
    assert len(d) == 1 and d.iloc[0]["printed"] == 9.0 and d.iloc[0]["csv"] == 4.0


def test_make_classifier():
    assert make_classifier("rf", 3).n_estimators == 100
    assert make_classifier("1nn", 3).n_neighbors == 1
    with pytest.raises(ValueError, match="unknown model"):
        make_classifier("svm", 0)


@pytest.fixture
def mirror(monkeypatch):
    if not (MIRROR / "mscr_2d" / "B_sep.npz").exists():
        pytest.skip("shared data mirror not present")
    monkeypatch.setenv("ROBEVAL_DATA_DIR", str(MIRROR))


def test_run_cell_2d_deterministic_and_modes(mirror):
    cfg = dict(dataset="B", norm="linf", eps_test=[0.0, 0.004, 0.03], k_train=3, k_test=3, noise_mode="iid")
    cell = {"seed": run_seeds(0, 1)[0], "eps_train": 0.01, "model": "1nn"}
    a = run_cell_2d(cell, cfg)
    b = run_cell_2d(cell, cfg)
    assert a == b
    assert [r["n_eval"] for r in a] == [935, 3 * 935, 3 * 935]
    assert all(0.9 < r["acc"] <= 1.0 for r in a)
    s = run_cell_2d(cell, dict(cfg, noise_mode="shared_offsets"))
    assert s[0]["acc"] != a[0]["acc"] or s[2]["acc"] != a[2]["acc"]
    with pytest.raises(ValueError, match="noise_mode"):
        run_cell_2d(cell, dict(cfg, noise_mode="other"))
    with pytest.raises(ValueError, match="k must be"):
        run_cell_2d(dict(cell, k=0), cfg)


def test_image_mlp_shapes():
    net = image_mlp(hidden=(16,))
    x = torch.rand(2, 3, 32, 32)
    assert net(x).shape == (2, 10) and net.features(x).shape == (2, 16)


def test_run_cell_cifar_pairs_columns_and_caches_models(mirror, monkeypatch, tmp_path):
    """Same seed: the same test noise for every eps_train column and a cached network on the second call;
    a trained network is stored once per (training settings, seed, eps_train)."""
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))
    config = dict(
        arch="cnn_small",
        width=4,
        epochs=1,
        batch_size=64,
        lr=0.05,
        milestones=[1],
        n_train=128,
        n_test=32,
        full_data=False,
        eps_test=[0.0, 0.05, 0.0],
        train_threads=1,
        torch_threads=1,
        eval_batch_size=16,
    )
    cell = {"seed": run_seeds(0, 1)[0], "eps_train": 0.03}
    f = model_file(cell, config)
    assert not f.exists()
    a = run_cell_cifar(cell, config)
    assert f.exists() and [r["eps_test"] for r in a] == [0.0, 0.05, 0.0] and a[0] == a[2]
    # the network's clean training accuracy (whether it fits its data; claims_cifar.net_bound): one value per run,
    # a multiple of 1/128 (128 training images)
    assert len({r["train_acc"] for r in a}) == 1 and 0 <= a[0]["train_acc"] <= 1
    assert (a[0]["train_acc"] * 128) == pytest.approx(round(a[0]["train_acc"] * 128))
    assert run_cell_cifar(cell, dict(config, eps_test=[0.0, 0.05, 0.0], eval_batch_size=8)) == a  # cached
    assert model_file(cell, dict(config, eps_test=[0.2])) == f  # test levels do not name the network
    assert model_file(dict(cell, eps_train=0.0), config) != f and model_file(cell, dict(config, epochs=2)) != f


def test_run_cell_cifar_shares_batches_between_levels_only_for_short_test_sets(mirror, monkeypatch, tmp_path):
    """A test set shorter than the evaluation batch (a dry run's 10 images) is evaluated several noise levels per
    forward call (batch // n_test of them), each level with its own noise, giving the rows level-by-level
    evaluation gives; with n_test >= the batch every call holds one level, as before."""
    from robeval.core.nn import training

    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path))
    levels = [0.0, 0.05, 0.3, 1.0, 0.05, 0.6]
    config = dict(
        arch="cnn_small",
        width=8,
        epochs=4,
        batch_size=32,
        lr=0.05,
        milestones=[1],
        n_train=320,
        n_test=10,
        full_data=False,
        eps_test=levels,
        train_threads=1,
        torch_threads=1,
        eval_batch_size=20,
    )
    cell = {"seed": run_seeds(0, 1)[0], "eps_train": 0.03}
    calls = []
    real = training.predict

    def spy(net, x, batch_size):
        calls.append(real(net, x, batch_size))
        return calls[-1]

    monkeypatch.setattr(training, "predict", spy)
    grouped = run_cell_cifar(cell, config)
    # train (320), clean (10), then the 4 distinct noisy levels two per call (20 // 10)
    assert [len(p) for p in calls] == [320, 10, 20, 20]
    noisy_grouped = np.concatenate(calls[2:])
    calls.clear()
    single = run_cell_cifar(cell, dict(config, eval_batch_size=10))  # n_test >= batch: one level per call
    assert [len(p) for p in calls] == [320, 10, 10, 10, 10, 10]
    # the same noise and predictions, in level order, and the same rows
    np.testing.assert_array_equal(noisy_grouped, np.concatenate(calls[2:]))
    assert grouped == single and [r["eps_test"] for r in grouped] == levels and grouped[1] == grouped[4]
    assert {r["n_eval"] for r in grouped} == {10} and len(set(noisy_grouped.tolist())) > 1


# ------------------------------------------------------------------ issue 48: one input contract for arrays
def test_sampler_draws_noise_in_floating_point_for_integer_images():
    """``sample_uniform_ball(X_uint8, 8.0, ...)`` returned exact copies of X (offsets cast to uint8 before scaling)
    and with ``eps=8/255, clip=(0, 1)`` every value was 1.0. Now the noise is floating point whatever X's dtype."""
    from robeval.mscr.noise import sample_uniform_ball

    X8 = np.full((2, 3), 100, dtype=np.uint8)
    for X in (X8, X8.astype(np.int32)):
        out = sample_uniform_ball(X, 8.0, 50, np.inf, np.random.default_rng(0))
        assert out.dtype == np.float64 and out.shape == (2, 50, 3)
        assert np.all(np.abs(out - 100.0) <= 8.0) and np.ptp(out) > 8.0  # noise in pixel units, not copies
    # pixels in a [0, 1] clip box: 0..255 is divided by 255 explicitly
    out = sample_uniform_ball(X8, 8 / 255, 50, np.inf, np.random.default_rng(0), clip=(0, 1))
    assert np.all(np.abs(out - 100 / 255) <= 8 / 255 + 1e-12) and out.max() < 0.5 and np.ptp(out) > 8 / 255
    # the same draws as float input in [0, 1]
    np.testing.assert_allclose(
        out, sample_uniform_ball(X8 / 255.0, 8 / 255, 50, np.inf, np.random.default_rng(0), clip=(0, 1))
    )
    with pytest.raises(ValueError, match="dtype must be a floating dtype.*got uint8.*truncated"):
        sample_uniform_ball(X8, 8.0, 50, np.inf, np.random.default_rng(0), dtype=np.uint8)
    with pytest.raises(ValueError, match="dtype must be a floating dtype"):
        sample_uniform_ball(X8.astype(float), 8.0, 5, np.inf, np.random.default_rng(0), dtype=np.int32)
    with pytest.raises(ValueError, match="integers from 0 to 300.*\\[0, 1\\]"):
        sample_uniform_ball(np.array([[0, 300]]), 0.1, 5, np.inf, np.random.default_rng(0), clip=(0, 1))


def test_sampler_and_separation_refuse_text_and_nan_naming_the_row():
    from robeval.mscr.noise import sample_uniform_ball, unit_ball_offsets
    from robeval.mscr.separation import min_class_separation

    text = np.array([[0.0, 1.0], [1.0, "x"]], dtype=object)
    with pytest.raises(ValueError, match="not a number in row 1"):
        sample_uniform_ball(text, 0.1, 5, np.inf, np.random.default_rng(0))
    with pytest.raises(ValueError, match="not a number in row 1"):
        min_class_separation(text, [0, 1])
    nan = np.array([[0.0, 1.0], [1.0, 2.0], [np.nan, 0.0]])
    with pytest.raises(ValueError, match="NaN or infinite values \\(first in row 2\\)"):
        sample_uniform_ball(nan, 0.1, 5, np.inf, np.random.default_rng(0))
    with pytest.raises(ValueError, match="first in row 2"):
        min_class_separation(nan, [0, 1, 0])
    with pytest.raises(ValueError, match="floating dtype"):
        unit_ball_offsets(2, 3, 4, np.inf, np.random.default_rng(0), dtype=np.uint8)
    # integers stay exact in their own units for the separation: max |diff| = 3
    assert min_class_separation(np.array([[0, 0], [3, 1]], dtype=np.int32), [0, 1]) == 3.0


def test_mscr_summary_refuses_what_it_cannot_read():
    """Issue 48: no eps_test = 0 rows gave an empty frame, one NaN accuracy 3 of 4 runs without a word, level=95
    NaN margins, mean_ci(level=0) a margin of 0, a text column an obscure float conversion error."""
    from robeval.mscr.protocol import mean_ci

    df = _tidy()
    with pytest.raises(ValueError, match="no rows with eps_test == 0"):
        mscr_summary(df[df.eps_test != 0.0], 0.004)
    bad = df.copy()
    bad.loc[4, "acc"] = np.nan
    with pytest.raises(ValueError, match="column 'acc' holds nan in row 4"):
        mscr_summary(bad, 0.004)
    text = df.copy()
    text["acc"] = text["acc"].astype(str)
    text.loc[7, "acc"] = "0.90.9"
    with pytest.raises(ValueError, match="column 'acc' must hold numbers, but row 7 holds '0.90.9'"):
        mscr_summary(text, 0.004)
    lone = df.drop(index=df.index[(df.eps_test == 0.004) & (df.seed == 1) & (df.eps_train == 0.1)])
    with pytest.raises(
        ValueError, match="1 run\\(s\\) lack a row.*the run eps_train=0.1, seed=1 has none at eps_test = eps_min"
    ):
        mscr_summary(lone, 0.004)
    with pytest.raises(ValueError, match="level must lie in \\(0, 1\\).*pass 0.95"):
        mscr_summary(df, 0.004, level=95)
    for level in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="level must lie in \\(0, 1\\)"):
            mean_ci([1.0, 2.0, 3.0], level=level)
    with pytest.raises(TypeError, match="confidence level"):
        mean_ci([1.0, 2.0], level="95%")
    with pytest.raises(ValueError, match="level must lie"):
        accuracy_matrix(df, level=95)
    # hand-computed: mean 2, std 1, t_{0.975, 2} * 1 / sqrt(3) = 2.4841
    m, s, h, n = mean_ci([1.0, 2.0, 3.0], level=0.95)
    assert (m, s, n) == (2.0, 1.0, 3) and h == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    # NaN is left out (n counts the rest); an infinite value or text is refused (a fresh probe of issue 62: inf was
    # dropped like NaN, shrinking n in silence, and "0.5" was read as a number)
    assert mean_ci([1.0, float("nan"), 2.0, 3.0], level=0.95) == (m, s, h, n)
    with pytest.raises(ValueError, match=r"values must be finite numbers \(NaN is left out\), but values\[1\] is inf"):
        mean_ci([0.5, float("inf"), 0.7])
    with pytest.raises(ValueError, match=r"values\[0\] is -inf"):
        mean_ci(np.array([-np.inf, 0.5]))
    with pytest.raises(TypeError, match="values must hold numbers"):
        mean_ci(["0.5", "0.6"])


def test_sampler_refuses_an_allocation_it_cannot_hold():
    """A sampler call drawing 10**6 points x 10**4 samples x 3072 dimensions is refused at once with its size."""
    from robeval.mscr.noise import sample_uniform_ball, unit_ball_offsets

    with pytest.raises(ValueError, match=r"allocate 2.29e\+05 GiB.*fewer points at a time"):
        unit_ball_offsets(10**6, 10**4, 3072, np.inf, np.random.default_rng(0))
    with pytest.raises(ValueError, match="GiB"):
        sample_uniform_ball(np.zeros((1000, 3072), np.float32), 0.1, 10**4, 2, np.random.default_rng(0))


def test_mscr_per_run_keeps_a_tiny_eps_min_apart_from_the_clean_rows():
    """A fresh probe of issue 62: an eps_min of 5e-13 (classes 1e-12 apart) matched both the clean rows and its own
    within the old absolute tolerance 1e-12: every run got MSCR 0 % and n doubled. Hand-computed: 100 (0.6 - 0.9) /
    0.9 = -33.33 % for each of 3 runs, whatever the scale of eps_min."""
    from robeval.mscr.protocol import mscr_per_run

    for em in (0.004, 5e-13, 1e-300):
        df = pd.DataFrame(
            [
                {"seed": s, "eps_train": 0.0, "eps_test": et, "acc": a}
                for s in (0, 1, 2)
                for et, a in ((0.0, 0.9), (em, 0.6))
            ]
        )
        out = mscr_per_run(df, em)
        assert len(out) == 3 and out["acc_clean"].tolist() == [0.9] * 3 and out["acc_rob"].tolist() == [0.6] * 3
        np.testing.assert_allclose(out["mscr"], -100 / 3, rtol=1e-12)


def test_uniform_linf_box_checks_its_inputs_and_draws_as_before():
    from robeval.mscr.cifar import box_noise_transform

    x = torch.rand((4, 3, 8, 8), generator=torch.Generator().manual_seed(1))
    z = uniform_linf_box(x, 0.1, torch.Generator().manual_seed(0))
    # the draw by hand: Uniform(max(x - eps, 0), min(x + eps, 1)) per coordinate, from the same generator
    u = torch.rand(x.shape, generator=torch.Generator().manual_seed(0))
    low, high = (x - 0.1).clamp(min=0), (x + 0.1).clamp(max=1)
    assert torch.equal(z, low + (high - low) * u)
    # the training transform draws the same numbers without the per-batch checks; eps_train 0 is no transform
    assert torch.equal(box_noise_transform(0.1)(x, torch.Generator().manual_seed(0)), z)
    assert box_noise_transform(0) is None
    with pytest.raises(ValueError, match="eps_train must be finite and >= 0"):
        box_noise_transform(-0.1)
    gen = torch.Generator().manual_seed(0)
    bad = [
        (dict(x=(x * 255).to(torch.uint8), eps=0.1, gen=gen), TypeError, "x must be a floating-point torch tensor"),
        (dict(x=x.numpy(), eps=0.1, gen=gen), TypeError, "got ndarray"),
        (dict(x=x * 255, eps=0.1, gen=gen), ValueError, r"x must hold finite values in \[lo, hi\] = \[0, 1\]"),
        (dict(x=torch.full((2,), float("nan")), eps=0.1, gen=gen), ValueError, "x must hold finite values"),
        (dict(x=x, eps=True, gen=gen), TypeError, "eps must be a real number"),
        (dict(x=x, eps=float("nan"), gen=gen), ValueError, "eps must be finite"),
        (dict(x=x, eps=0.1, gen=0), TypeError, "gen must be a torch.Generator"),
        (dict(x=x, eps=0.1, gen=gen, lo=1.0, hi=0.0), ValueError, "lo must be < hi"),
        (dict(x=x, eps=0.1, gen=gen, hi=True), TypeError, "hi must be a finite real number"),
    ]
    for kwargs, error, message in bad:
        with pytest.raises(error, match=message):
            uniform_linf_box(**kwargs)
    # another box: images in 0..255 with lo, hi given are drawn in that box
    w = uniform_linf_box(x * 255, 8.0, torch.Generator().manual_seed(0), lo=0, hi=255)
    assert float(w.min()) >= 0 and float(w.max()) <= 255 and float((w - x * 255).abs().max()) <= 8


def test_uniform_linf_box_refuses_bounds_its_dtype_cannot_hold_and_stays_in_a_huge_box():
    """Probe J, F10: a bound beyond float32 for a float32 x (torch's "cannot be converted ... without overflow"),
    an integer bound beyond float64 (numpy's isfinite TypeError) and a meta tensor (``Tensor.item()``) stopped
    with another library's message; each is refused naming lo / hi / x. F7: a box wider than the dtype's range
    made ``(high - low) * u`` overflow to inf, outside [lo, hi]; the draw interpolates there instead."""
    gen = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match=r"lo = -1e\+39 is outside torch\.float32's range .* for x's dtype"):
        uniform_linf_box(torch.zeros(3), 0.1, gen, lo=-1e39, hi=1.0)
    with pytest.raises(ValueError, match=r"hi = 1e\+39 is outside torch\.float32's range"):
        uniform_linf_box(torch.zeros(3), 0.1, gen, lo=0.0, hi=1e39)
    with pytest.raises(ValueError, match=r"lo is an integer of 401 digits, beyond float64's range"):
        uniform_linf_box(torch.zeros(3), 0.1, gen, lo=-(10**400), hi=1.0)
    with pytest.raises(ValueError, match=r"x is on torch's 'meta' device"):
        uniform_linf_box(torch.empty(2, 2, device="meta"), 0.1, gen)
    with pytest.raises(TypeError, match=r"lo must be a finite real number \(a bound of the pixel box\), got nan"):
        uniform_linf_box(torch.zeros(3), 0.1, gen, lo=float("nan"))
    z = uniform_linf_box(torch.zeros(1000, dtype=torch.float64), 1e308, gen, lo=-1e308, hi=1.7e308)
    # x = 0 and eps = 1e308: the interval is [max(-eps, lo), min(eps, hi)] = [-1e308, 1e308], spread over it
    assert bool(torch.isfinite(z).all()) and float(z.min()) >= -1e308 and float(z.max()) <= 1e308
    assert float(z.min()) < -9e307 and float(z.max()) > 9e307
    w = uniform_linf_box(torch.zeros(1000), 1e39, gen, lo=-3e38, hi=3e38)  # float32: eps beyond, box within
    assert bool(torch.isfinite(w).all()) and float(w.min()) >= -3e38 and float(w.max()) <= 3e38


def test_mean_ci_refuses_integers_float64_cannot_hold():
    """Probe J, F11: mean_ci([2**62, 2**62 + 1, 2**62 + 2]) gave a std and half-width of 0 for three distinct
    values: float64 rounds them to one number. Integers beyond 2**53 are refused, naming values; integers within
    it and floats give exactly what they gave before."""
    from robeval.mscr.protocol import mean_ci

    for values in (np.array([2**62, 2**62 + 1, 2**62 + 2]), [2**70, 1], np.array([2**64 - 1], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"values holds the integer \d+, beyond 2\*\*53: float64 cannot hold it"):
            mean_ci(values)
    # at the limit and below: as before (the values are exact in float64), e.g. the spread of -2**53 and 2**53
    assert mean_ci(np.array([2**53, -(2**53)]))[:2] == (0.0, float(np.std([2.0**53, -(2.0**53)], ddof=1)))
    assert mean_ci(np.arange(10)) == mean_ci(np.arange(10.0))
    assert mean_ci([1.0, 2.0, 3.0])[:2] == (2.0, 1.0)
