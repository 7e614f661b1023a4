"""Probe O on robeval.acr and the frame checks it shares: complex numbers in a certification frame's columns are
refused naming the column, not cut to their real part (S1, O5); ``n_a`` / ``n`` given as a torch tensor that
requires grad are read as their values, and one on the 'meta' device is refused naming the argument (O1); Python
ints beyond float64 as ``sigma`` or ``alpha`` are refused naming the argument (O3)."""

import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from robeval import acr
from robeval.acr import certified_radius, clopper_pearson_lower, write_certification_tsv

HUGE = 10**400


def _frame(**changes):
    df = pd.DataFrame({"idx": [0, 1], "label": [1, 2], "predict": [1, 0], "radius": [0.5, 0.0], "correct": [1, 0]})
    for column, value in changes.items():
        df[column] = value
    return df


@pytest.mark.parametrize("column, values", [("radius", [0.5 + 3j, 0.0]), ("radius", np.array([0.5, 0.0], complex))])
def test_metrics_refuse_complex_radii(column, values):
    # S1: acr(df) = 0.25 and certified_accuracy(df, [0.5]) = [0.5]: the 3j was dropped with a ComplexWarning only
    df = _frame(**{column: values})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way to the refusal
        for call in (lambda: acr.acr(df), lambda: acr.certified_accuracy(df, [0.5])):
            with pytest.raises(TypeError, match=rf"^df: column '{column}' must hold real numbers, but row 0 holds the"):
                call()


@pytest.mark.parametrize("column", ["idx", "label", "predict", "radius"])
def test_write_certification_tsv_names_a_complex_column(tmp_path, column):
    # O5: TypeError: float() argument must be a string or a real number, not 'complex' (no column named)
    df = _frame(time=[0.1, 0.2])
    df[column] = df[column].astype(complex)
    df.loc[0, column] = df.loc[0, column] + 2j
    with pytest.raises(TypeError, match=rf"^df: column '{column}' must hold real numbers"):
        write_certification_tsv(df, tmp_path / "c.tsv")
    assert not (tmp_path / "c.tsv").exists()


def test_a_complex_object_column_is_refused_too():
    df = _frame(radius=pd.Series([0.5, 1 + 1j], dtype=object))
    with pytest.raises(TypeError, match=r"^df: column 'radius' must hold real numbers, but row 1 holds .*\(1\+1j\)"):
        acr.acr(df)


def test_counts_that_require_grad_are_read_as_their_values():
    # O1: torch's RuntimeError "Can't call numpy() on Tensor that requires grad" named no argument
    plain = certified_radius(torch.tensor([990.0]), 1000, 0.001, 0.25)
    for n_a, n in (
        (torch.tensor([990.0], requires_grad=True), 1000),
        ([990], torch.tensor(1000.0, requires_grad=True)),
    ):
        got = certified_radius(n_a, n, 0.001, 0.25)
        assert np.array_equal(got[0], plain[0]) and np.allclose(got[1], plain[1], rtol=0, atol=0)
    lower = clopper_pearson_lower(torch.tensor([990.0], requires_grad=True), 1000, 0.001)
    assert np.array_equal(lower, clopper_pearson_lower(990, 1000, 0.001).reshape(lower.shape))


@pytest.mark.parametrize("which", ["n_a", "n"])
def test_meta_counts_are_refused_naming_the_argument(which):
    # O1: TypeError "can't convert meta device type tensor to numpy" named no argument
    meta = torch.tensor([990.0 if which == "n_a" else 1000.0], device="meta")
    args = {"n_a": 990, "n": 1000, which: meta}
    for call in (
        lambda: clopper_pearson_lower(args["n_a"], args["n"], 0.001),
        lambda: certified_radius(args["n_a"], args["n"], 0.001, 0.25),
    ):
        with pytest.raises(TypeError, match=rf"^{which} is a torch tensor on the 'meta' device, which holds no values"):
            call()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: acr.max_certified_radius(1000, 0.001, HUGE), "sigma"),
        (lambda: acr.max_certified_radius(1000, HUGE, 0.25), "alpha"),
        (lambda: certified_radius(990, 1000, HUGE, 0.25), "alpha"),
        (lambda: certified_radius(990, 1000, 0.001, HUGE), "sigma"),
        (lambda: acr.Smooth(torch.nn.Linear(2, 2), 2, HUGE), "sigma"),
        (lambda: acr.max_certified_radius(1000, 0.001, -HUGE), "sigma"),
    ],
)
def test_ints_beyond_float64_are_refused_naming_the_argument(call, name):
    # O3: OverflowError: int too large to convert to float
    with pytest.raises(ValueError, match=rf"^{name} must .*1\.000e\+400"):
        call()


@pytest.mark.parametrize("method", ["certify", "predict"])
def test_smooth_refuses_meta_inputs_naming_x(method):
    """Probe O, O2 (acr part): a 'meta' tensor holds no values; Smooth names ``x`` instead of torch's
    ``Tensor.item() cannot be called on meta tensors``, and a CPU tensor of the same shape is certified."""
    from robeval.acr import Smooth

    sm = Smooth(torch.nn.Flatten(), 3, 0.25)
    meta = torch.zeros(2, 3, device="meta")
    kwargs = {"n0": 10, "n": 20} if method == "certify" else {"n": 20}
    with pytest.raises(ValueError, match=r"x is a torch tensor on the 'meta' device"):
        getattr(sm, method)(meta, alpha=0.1, seed=0, **kwargs)
    got = getattr(sm, method)(torch.zeros(2, 3), alpha=0.1, seed=0, **kwargs)
    assert len(got.prediction if method == "certify" else got) == 2
