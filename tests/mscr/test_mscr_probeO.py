"""Probe O on robeval.mscr (S1): accuracies given as complex numbers are refused naming the column by the shared
frame check (robeval.core.frames.check_numeric_column), not cut to their real part with a ComplexWarning."""

import warnings

import pandas as pd
import pytest

from robeval.mscr import accuracy_matrix


@pytest.mark.parametrize("dtype", [complex, object])
def test_accuracy_matrix_refuses_complex_accuracies(dtype):
    # S1: accuracy_matrix(rows)["mean"] was 90.0 / 80.0: the 5j dropped
    rows = pd.DataFrame({"seed": [1, 1], "eps_train": [0.0, 0.0], "eps_test": [0.0, 0.1]})
    rows["acc"] = pd.Series([0.9 + 5j, 0.8 + 0j], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match=r"column 'acc' must hold real numbers, but row 0 holds the complex number"):
            accuracy_matrix(rows)
