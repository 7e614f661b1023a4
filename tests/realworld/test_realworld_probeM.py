"""Probe M on robeval.realworld: masked points refused (M10) and covariances of text or complex numbers refused
(M11) by linear_robustness, right_angle_robustness, real_world_robustness and the covariance helpers."""

import numpy as np
import pytest

from robeval import realworld as rw

MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)\. "
X = np.array([[0.2, 0.3], [0.7, 0.6], [0.4, 0.9]])
XM = np.ma.masked_array([[0.2, 0.3], [100.0, 100.0], [0.4, 0.9]], [[0, 0], [1, 1], [0, 0]])
W = np.array([1.0, -1.0])


def _rule(Z):
    return (np.asarray(Z)[:, 0] > 0.5).astype(int)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rw.linear_robustness(XM, W),
        lambda: rw.right_angle_robustness(XM),
        lambda: rw.real_world_robustness(_rule, XM, cov=np.eye(2) * 0.01, n_samples=32, rng=0),
    ],
)
def test_robustness_estimators_refuse_masked_points(call):
    # M10: the masked row (100, 100) was scored like any other: [0.664, 0.638, 0.76], [0.358, 1.0, 0.535], ...
    with pytest.raises(TypeError, match="^X" + MASKED):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda cov: rw.linear_robustness(X, W, cov=cov),
        lambda cov: rw.right_angle_robustness(X, cov=cov),
        lambda cov: rw.real_world_robustness(_rule, X, cov=cov, n_samples=8, rng=0),
        lambda cov: rw.trace_normalized(cov),
        lambda cov: rw.GaussianPerturbation(cov),
    ],
)
def test_covariances_of_text_or_complex_numbers_are_refused(call):
    # M11: cov=[[1+5j, 0], [0, 1]] and [['1', '0'], ['0', '1']] gave the answer of the identity:
    # [0.664, 0.611, 0.76]; trace_normalized and GaussianPerturbation accepted them too
    with pytest.raises(
        TypeError, match=r"^cov must hold numbers, e\.g\. np\.eye\(d\); got complex values \(dtype complex128\)"
    ):
        call(np.array([[1.0 + 5j, 0.0], [0.0, 1.0]]))
    with pytest.raises(TypeError, match=r"^cov must hold numbers, e\.g\. np\.eye\(d\); got np\.str_\('1'\)"):
        call(np.array([["1", "0"], ["0", "1"]]))


def test_linear_robustness_keeps_its_answer_for_a_real_covariance():
    np.testing.assert_allclose(rw.linear_robustness(X, W, cov=np.eye(2)), [0.664, 0.611, 0.76], atol=5e-4)


@pytest.mark.parametrize(
    "kw, kind, said",
    [
        ({"se_target": -1}, ValueError, r"^se_target must be a number in \(0, 0\.5\), e\.g\. 0\.005; got -1\.$"),
        ({"se_target": float("nan")}, ValueError, r"^se_target must be a number in \(0, 0\.5\), e\.g\. 0\.005; got nan\.$"),
        ({"se_target": "3"}, TypeError, r"^se_target must be a number in \(0, 0\.5\), e\.g\. 0\.005; got '3'\.$"),
        ({"se_target": 0.1j}, TypeError, r"^se_target must be a number in \(0, 0\.5\), e\.g\. 0\.005; got 0\.1j\.$"),
        ({"n_min": -1}, ValueError, r"^n_min must be an integer in 1 \.\. 2\*\*63 - 1; got -1\.$"),
        ({"n_max": "3"}, ValueError, r"^n_max must be an integer in 1 \.\. 2\*\*63 - 1; got '3'\.$"),
        ({"n_min": 500, "n_max": 100}, ValueError, r"^n_min \(500\) must not exceed n_max \(100\)\.$"),
        ({"threshold": True}, TypeError, r"^threshold must be a finite number >= 0 \(or None for classification\); got True\.$"),
        ({"threshold": "0.1"}, TypeError, r"^threshold must be a finite number >= 0 \(or None for classification\); got '0\.1'\.$"),
    ],
)  # fmt: skip
def test_real_world_robustness_checks_its_options_with_a_fixed_n_samples(kw, kind, said):
    # minor: with a fixed n_samples, se_target / n_min / n_max were checked only for 'auto' (-1, nan, '3', complex
    # accepted), and threshold=True was read as the threshold 1
    with pytest.raises(kind, match=said):
        rw.real_world_robustness(_rule, X, cov=np.eye(2) * 0.01, n_samples=16, rng=0, **kw)
