"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.mscr."""

import numpy as np
import pandas as pd
import pytest
import torch

from robeval import mscr


def _rows():
    return pd.DataFrame(
        {
            "seed": [0, 0, 1, 1],
            "eps_train": [0.0, 0.0, 0.0, 0.0],
            "eps_test": [0.0, 0.1, 0.0, 0.1],
            "acc": [0.9, 0.8, 0.9, 0.7],
        }
    )


@pytest.mark.parametrize(
    ("column", "value", "fragment"),
    [
        ("eps_test", np.nan, "'eps_test'"),
        ("eps_train", np.nan, "'eps_train'"),
        ("acc", 1.5, "'acc'"),
        ("seed", "a", "'seed'"),
        ("seed", 0.5, "'seed'"),
    ],
)
def test_accuracy_matrix_and_mscr_per_run_refuse_bad_rows(column, value, fragment):
    df = _rows()
    df[column] = df[column].astype(object if isinstance(value, str) else float)
    df.loc[1, column] = value
    for call in (lambda: mscr.accuracy_matrix(df), lambda: mscr.mscr_per_run(df, 0.1)):
        with pytest.raises(ValueError, match=fragment):
            call()


def test_accuracy_matrix_percent_must_be_bool():
    with pytest.raises(TypeError, match="percent"):
        mscr.accuracy_matrix(_rows(), percent="no")


def test_mscr_per_run_by_and_acc_messages():
    with pytest.raises(TypeError, match=r"by must be a tuple"):
        mscr.mscr_per_run(_rows(), 0.1, by="eps_train")
    with pytest.raises(ValueError, match=r"by names the column"):
        mscr.mscr_per_run(_rows(), 0.1, by=("nosuch",))
    df = _rows()
    df.loc[0, "acc"] = 2.0
    with pytest.raises(ValueError, match=r"column 'acc'") as err:
        mscr.mscr_per_run(df, 0.1)
    assert "acc_clean" not in str(err.value)


def test_make_cells_refuses_colliding_and_unknown_keywords():
    with pytest.raises(TypeError, match="override seeds"):
        mscr.make_cells([0], [0.1], seed=5)
    with pytest.raises(TypeError, match="eps_train"):
        mscr.make_cells([0], [0.1], eps_train=0.2)
    with pytest.raises(TypeError, match="unknown keyword foo"):
        mscr.make_cells([0], [0.1], foo=1)
    with pytest.raises(TypeError, match="k must be"):
        mscr.make_cells([0], [0.1], k=float("nan"))
    with pytest.raises(ValueError, match="k must be"):
        mscr.make_cells([0], [0.1], k=0)
    assert mscr.make_cells([0], [0.1], model="rf", k=3) == [{"seed": 0, "eps_train": 0.1, "model": "rf", "k": 3}]


@pytest.mark.parametrize(("value", "fragment"), [(np.nan, "NaN"), (100.0, "unit ball")])
def test_evaluate_levels_refuses_bad_unit_offsets(value, fragment):
    X = np.random.default_rng(0).random((10, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match=f"unit_offsets.*{fragment}"):
        mscr.evaluate_levels(
            lambda x: (x[:, 0] > 0.5).astype(int),
            X,
            y,
            [0.0, 0.1],
            3,
            "linf",
            seed=0,
            noise_mode="shared_offsets",
            unit_offsets=np.full((3, 2), value),
        )


def test_nearest_other_class_distance_device_and_progress():
    X = np.random.default_rng(0).random((10, 2))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="device='nosuch' is not a torch device name"):
        mscr.nearest_other_class_distance(X, y, device="nosuch")
    # probe F #4: names torch knows but this machine cannot use (no backend, or no data) gave torch's own errors
    with pytest.raises(ValueError, match=r"^device='meta' holds no data"):
        mscr.nearest_other_class_distance(X, y, device="meta")
    if not torch.backends.mps.is_available():
        with pytest.raises(ValueError, match=r"^device='mps' cannot be used on this machine \(.*\); pass 'cpu'"):
            mscr.nearest_other_class_distance(X, y, device="mps")
    with pytest.raises(TypeError, match="progress must be True or False"):
        mscr.nearest_other_class_distance(X, y, progress="no")


def test_mscr_value_run_seeds_row_optima_refusals():
    with pytest.raises(ValueError, match="acc_clean and acc_rob differ in length"):
        mscr.mscr_value([0.9, 0.8], [0.7, 0.6, 0.5])
    with pytest.raises(ValueError, match="seed must be an integer in 0 .. 2\\*\\*63 - 1"):
        mscr.run_seeds(2**70, 2)
    with pytest.raises(ValueError, match="n_runs must be at most"):
        mscr.run_seeds(0, 10**12)
    assert len(mscr.run_seeds(0, 3)) == 3
    for mean in (
        pd.DataFrame([[0.9, np.nan], [np.nan, np.nan]], index=[0.0, 0.1], columns=[0.0, 0.1]),
        pd.DataFrame([[0.9, np.nan]], index=[0.0], columns=[0.0, 0.1]),
    ):
        with pytest.raises(ValueError, match="mean holds nan at eps_test=0.0, eps_train=0.1"):
            mscr.row_optima(mean)


def test_mscr_value_refuses_booleans_and_evaluate_levels_refuses_a_level_listed_twice():
    """A second probe: ``mscr_value(True, 0.5)`` read True as an accuracy of 1. A level listed twice in
    ``evaluate_levels`` was one evaluation with its row at each place; since probe I #2 it is refused (the summaries
    refused those rows later)."""
    with pytest.raises(TypeError, match="acc_clean must be an accuracy in \\[0, 1\\] \\(a number, not True/False\\)"):
        mscr.mscr_value(True, 0.5)
    with pytest.raises(TypeError, match="acc_rob must be an accuracy"):
        mscr.mscr_value(0.9, np.array([True, False]))
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match=r"^eps_test lists 0\.1 more than once"):
        mscr.evaluate_levels(lambda Z: (Z[:, 0] > 0.5).astype(int), X, y, [0.1, 0.0, 0.1], 4, "linf", seed=3)
    rows = mscr.evaluate_levels(lambda Z: (Z[:, 0] > 0.5).astype(int), X, y, [0.1, 0.0], 4, "linf", seed=3)
    assert [r["eps_test"] for r in rows] == [0.1, 0.0]
    assert rows[1]["acc"] == 1.0 and rows[0]["n_eval"] == 40 * 4


def test_norm_true_is_refused_not_read_as_l1():
    """S1 of the third probe: ``norm=True`` was taken as ``float(True) == 1``, the L1 norm."""
    X, Y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])
    g = np.random.default_rng(0)
    calls = (
        lambda norm: mscr.eps_min(X, Y, norm=norm),
        lambda norm: mscr.min_class_separation(X, Y, norm=norm),
        lambda norm: mscr.radial_cdf([0.5], 2, norm=norm),
        lambda norm: mscr.sample_offsets(1, 1, 2, 0.1, norm, g),
    )
    for norm in (True, False, np.True_):
        for call in calls:
            with pytest.raises(TypeError, match=r"norm must be np.inf, 2 or 1 \(or 'linf', 'l2', 'l1'\), not"):
                call(norm)
    assert mscr.eps_min(X, Y, norm=1) == 1.0 and mscr.eps_min(X, Y, norm="linf") == 0.5


def test_misspelt_options_name_the_function_called():
    """O4: a misspelt keyword was reported against nearest_other_class_distance, which the user did not call."""
    X, Y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 1])
    with pytest.raises(TypeError, match=r"eps_min\(\) got an unexpected keyword argument 'nrom'; its keyword options"):
        mscr.eps_min(X, Y, nrom=2)
    with pytest.raises(TypeError, match=r"min_class_separation\(\) got an unexpected keyword argument 'chunk'"):
        mscr.min_class_separation(X, Y, chunk=3)
    assert mscr.eps_min(X, Y, chunk_size=1) == 0.5


def test_offset_dtype_messages():
    """O5: a complex dtype was refused for the wrong reason (integer truncation); float16 was accepted although the
    message said float32 or float64."""
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match="dtype must be float32 or float64, got complex128.*imaginary part"):
        mscr.unit_ball_offsets(1, 1, 2, 2, g, dtype=complex)
    with pytest.raises(ValueError, match="dtype must be float32 or float64, got float16.*its own precision"):
        mscr.sample_offsets(1, 1, 2, 0.1, 2, g, dtype=np.float16)
    with pytest.raises(ValueError, match="integer dtype are truncated"):
        mscr.unit_ball_offsets(1, 1, 2, 2, g, dtype=np.int32)
    assert mscr.unit_ball_offsets(1, 1, 2, 2, g, dtype=np.float32).dtype == np.float32


def test_booleans_are_not_numbers_in_mean_ci_and_sample_uniform_ball():
    """S5: booleans were read as 1 and 0."""
    with pytest.raises(TypeError, match="values must hold numbers.*got booleans"):
        mscr.mean_ci([True, False, True])
    with pytest.raises(TypeError, match="values must hold numbers"):
        mscr.mean_ci(np.array([True, False]))
    with pytest.raises(TypeError, match="X must hold numbers, got booleans"):
        mscr.sample_uniform_ball(np.array([[True, False]]), 0.1, 1, 2, np.random.default_rng(0))
    assert mscr.mean_ci([1.0, 0.0, 1.0])[3] == 3


def test_a_results_frame_with_a_column_twice_is_refused_by_name():
    """Probe F #12: `acc` twice gave pandas' 'arg must be a list, tuple, 1-d array, or Series' (core.validation's
    check_frame, which every summary of a results frame calls, now checks the column names)."""
    g = pd.DataFrame(
        [{"seed": s, "eps_train": 0.0, "eps_test": e, "acc": 0.9 - e} for s in (0, 1, 2) for e in (0.0, 0.5)]
    )
    with pytest.raises(ValueError, match=r"^df has the column 'acc' 2 times"):
        mscr.mscr_summary(pd.concat([g, g[["acc"]]], axis=1), 0.5)


def test_levels_equal_but_for_their_last_digits_are_refused_not_split():
    """Probe G #9: a level computed as 0.1 + 0.2 grouped apart from 0.3: a 3 x 3 matrix with a NaN cell, and one
    training level reported twice with its runs split 2 + 1."""
    rows = [
        {"seed": s, "eps_train": 0.1 + 0.2 if et and s == 2 else et, "eps_test": es, "acc": 0.9 - 0.2 * es}
        for s in (0, 1, 2)
        for et in (0.0, 0.3)
        for es in (0.0, 0.3)
    ]
    g = pd.DataFrame(rows)
    message = r"^df: column 'eps_train' holds the levels 0\.3 and 0\.30000000000000004, equal but for their last"
    with pytest.raises(ValueError, match=message):
        mscr.accuracy_matrix(g)
    with pytest.raises(ValueError, match=message):
        mscr.mscr_summary(g, 0.3)
    fixed = g.assign(eps_train=g["eps_train"].round(12))
    assert mscr.accuracy_matrix(fixed)["mean"].shape == (2, 2)
    assert mscr.mscr_summary(fixed, 0.3)["n_runs"].tolist() == [3, 3]
    # levels 1e-9 apart relative are kept apart only if they differ by more than the eps_min match (1e-9 rel.)
    far = g.assign(eps_train=g["eps_train"].where(g["eps_train"] != 0.1 + 0.2, 0.3 * (1 + 1e-6)))
    assert mscr.accuracy_matrix(far)["mean"].shape == (2, 3)


def test_make_cells_refuses_levels_equal_but_for_their_last_digits_before_anything_runs():
    """Probe H #9: make_cells refused an exact repeat but made cells for 0.3 and 0.1 + 0.2; the summaries refused the
    results only after the grid had run."""
    with pytest.raises(ValueError, match=r"^eps_train lists 0\.3 and 0\.30000000000000004, equal but for their last"):
        mscr.make_cells([0, 1], [0.0, 0.3, 0.1 + 0.2])
    assert len(mscr.make_cells([0, 1], [0.0, 0.3, 0.3 * (1 + 1e-6)])) == 6
