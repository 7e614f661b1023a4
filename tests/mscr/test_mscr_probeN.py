"""Probe N on robeval.mscr (N3): run_seeds refuses a numpy boolean as n_runs, as it refuses True (np.True_ meant one
run); mscr_value refuses dates, durations and structured records as ``acc_rob`` (dates of days 0 and 1 were read as
accuracies 0 and 1), as it does for ``acc_clean``."""

import numpy as np
import pytest

from robeval import mscr


@pytest.mark.parametrize("flag", [True, np.True_, np.False_])
def test_run_seeds_refuses_booleans_as_the_number_of_runs(flag):
    with pytest.raises(ValueError, match=r"^n_runs must be an integer >= 0 \(a count of runs, not True/False\), got "):
        mscr.run_seeds(3, flag)
    with pytest.raises(TypeError, match="^seed must be an integer"):
        mscr.run_seeds(flag, 3)
    assert len(mscr.run_seeds(3, np.int64(2))) == 2


BAD = {
    "dates": np.arange(2).astype("datetime64[D]"),
    "durations": np.arange(2).astype("timedelta64[s]"),
    "records": np.zeros(2, dtype=[("a", float)]),
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("side", ["acc_clean", "acc_rob"])
def test_mscr_value_refuses_dates_durations_and_records_on_either_side(kind, side):
    args = {"acc_clean": np.array([0.9, 0.8]), "acc_rob": np.array([0.9, 0.8])}
    args[side] = BAD[kind]
    with pytest.raises(
        TypeError,
        match=rf"^{side} must be an accuracy in \[0, 1\] \(a real number\), got values of dtype .*; pass the "
        rf"accuracies as floats, e\.g\. {side}=\[0\.85, 0\.9\]\.$",
    ):
        mscr.mscr_value(**args)
    assert np.allclose(mscr.mscr_value([0.9, 0.8], [0.45, 0.8]), [-50.0, 0.0])


def test_mscr_value_reads_tensors_that_require_grad_detached():
    # minor 1: torch's "Can't call numpy() on Tensor that requires grad" named no argument
    import torch

    clean = torch.tensor([0.9, 0.8], dtype=torch.float64, requires_grad=True)
    rob = torch.tensor([0.45, 0.8], dtype=torch.float64, requires_grad=True)
    assert np.allclose(mscr.mscr_value(clean, rob), [-50.0, 0.0])
    assert np.allclose(mscr.mscr_value({"acc": clean[0]}, 0.45), -50.0)
