"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.mscr."""

import numpy as np
import pandas as pd
import pytest

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
    with pytest.raises(ValueError, match="device must be a torch device name"):
        mscr.nearest_other_class_distance(X, y, device="nosuch")
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


def test_mscr_value_refuses_booleans_and_evaluate_levels_repeats_a_listed_level():
    """A second probe: ``mscr_value(True, 0.5)`` read True as an accuracy of 1; a level listed twice in
    ``evaluate_levels`` is the documented answer: one evaluation, its row at each place."""
    with pytest.raises(TypeError, match="acc_clean must be an accuracy in \\[0, 1\\] \\(a number, not True/False\\)"):
        mscr.mscr_value(True, 0.5)
    with pytest.raises(TypeError, match="acc_rob must be an accuracy"):
        mscr.mscr_value(0.9, np.array([True, False]))
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    rows = mscr.evaluate_levels(lambda Z: (Z[:, 0] > 0.5).astype(int), X, y, [0.1, 0.0, 0.1], 4, "linf", seed=3)
    assert [r["eps_test"] for r in rows] == [0.1, 0.0, 0.1]
    assert rows[0] == rows[2] and rows[1]["acc"] == 1.0 and rows[0]["n_eval"] == 40 * 4
