"""Probe P (2026-12-02): the ECDF readers of notebook 08 name sigma when it gives radii beyond float64 (P10: the
refusal named ``radii``, which they do not take) and refuse a two-dimensional survival curve (P17: it was
flattened and read)."""

import numpy as np
import pandas as pd
import pytest

from robeval import acr
from robeval.acr.ecdf import ecdf_indicators

FRAME = pd.DataFrame(
    {"idx": [0, 1], "label": [1, 2], "predict": [1, 2], "radius": [0.5, 0.25], "correct": [1, 1], "time": [0.1, 0.1]}
)


@pytest.mark.filterwarnings("error")
def test_a_sigma_whose_radii_overflow_is_named():
    with pytest.raises(ValueError, match=r"sigma = 1e\+308 gives radii beyond float64's range"):
        acr.ecdf_from_certification(FRAME, 1e308)
    with pytest.raises(ValueError, match=r"sigma = 1e\+308 gives radii beyond float64's range"):
        ecdf_indicators(FRAME, 1e308, [0.6, 0.9999])
    # at sigma 0.25 the radius x needs is about 0.25 * Phi^-1(x): 0.06 at x = 0.6, below both inputs' radii (0.5,
    # 0.25), and 0.93 at x = 0.9999, above both
    assert ecdf_indicators(FRAME, 0.25, [0.6, 0.9999]).tolist() == [[True, False], [True, False]]


def test_a_two_dimensional_survival_curve_is_refused():
    x, y = np.array([0.5, 0.9, 0.99]), np.array([1.0, 0.5, 0.2])
    with pytest.raises(
        ValueError, match=r"ecdf_y must be one-dimensional \(G,\), one value per ecdf_x, got shape \(1, 3\)"
    ):
        acr.certified_accuracy_from_ecdf(x, y[None], [0.25], 100_000, 0.001, 0.25)
    table = acr.certified_accuracy_from_ecdf(x, y, [0.25], 100_000, 0.001, 0.25)
    # radius 0.25 at sigma 0.25 needs p_A about Phi(1) = 0.84 (plus the Clopper-Pearson margin at N = 1e5):
    # the first grid point at or above it is 0.9, whose survival value is 0.5
    assert 0.84 < table["min_p_a"].iloc[0] < 0.85 and table["certified_accuracy"].iloc[0] == 0.5
