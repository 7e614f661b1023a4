"""Probe L, L5 on robeval.realworld: masked arrays are refused where their masked values were read (correlation,
rescale_distances, trace_normalized, GaussianPerturbation's covariance); unmasked inputs answer as before."""

import numpy as np
import pytest

from robeval import realworld as rw
from robeval.realworld.robustness import correlation, rescale_distances

masked = np.ma.masked_array
MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"


def test_correlation_refuses_masked_vectors():
    # L5: 0.283 (the masked 100 counted), where the unmasked values correlate at 1.0
    with pytest.raises(TypeError, match="^a" + MASKED):
        correlation(masked([1.0, 2, 100, 4], [0, 0, 1, 0]), np.array([1.0, 2, 3, 4]))
    with pytest.raises(TypeError, match="^b" + MASKED):
        correlation(np.array([1.0, 2, 3, 4]), masked([1.0, 2, 100, 4], [0, 0, 1, 0]))
    assert correlation([1.0, 2, 4], [1.0, 2, 4]) == pytest.approx(1.0)


def test_rescale_distances_refuses_masked_distances():
    # L5: [0.005, 1.0, 0.01] (divided by the masked 100)
    with pytest.raises(TypeError, match="^distances" + MASKED):
        rescale_distances(masked([0.5, 100.0, 1.0], [0, 1, 0]))
    assert rescale_distances(np.array([0.5, 1.0])).tolist() == [0.5, 1.0]


def test_covariances_refuse_masked_matrices():
    # L5: trace_normalized gave [0.0099, 0.99] (the masked 100 in the trace); GaussianPerturbation used it too
    cov = masked(np.diag([1.0, 100.0]), [[0, 0], [0, 1]])
    with pytest.raises(TypeError, match="^cov" + MASKED):
        rw.trace_normalized(cov)
    with pytest.raises(TypeError, match="^cov" + MASKED):
        rw.GaussianPerturbation(cov)
    assert np.diag(rw.trace_normalized(np.diag([1.0, 3.0]))).tolist() == [0.25, 0.75]
