"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.realworld."""

import numpy as np
import pytest
from scipy.stats import norm

from robeval import realworld as rw

T = ([0.0, 1.0], [[0.9, 0.1], [0.2, 0.8]])


def test_rescale_distances_refuses_infinite_distance_and_non_boolean_success():
    with pytest.raises(ValueError, match="distances holds inf at position 1"):
        rw.rescale_distances([0.5, np.inf, 2.0])
    with pytest.raises(TypeError, match="success must hold True / False"):
        rw.rescale_distances([0.5, 1.0, 2.0], success=[0.5, 0.2, 0.1])
    out = rw.rescale_distances([0.5, np.inf, 2.0], success=[True, False, True])
    np.testing.assert_array_equal(out, [0.25, np.nan, 1.0])


@pytest.mark.parametrize("make", [rw.identity_covariance, lambda d: rw.random_covariance(d, 0)])
def test_covariance_size_guard(make):
    with pytest.raises(ValueError, match=r"features d x d .* pass a smaller d"):
        make(10**7)
    with pytest.raises(TypeError, match="d must be a positive integer"):
        make("3")
    assert make(3).shape == (3, 3)


def test_categorical_perturbation_column_keys():
    with pytest.raises(ValueError, match="columns must be keyed by column positions.*0.5"):
        rw.CategoricalPerturbation({0.5: T})
    with pytest.raises(TypeError, match="columns must be keyed"):
        rw.CategoricalPerturbation({"a": T})
    with pytest.raises(ValueError, match="columns names the column 5"):
        rw.CategoricalPerturbation({5: T}, rw.GaussianPerturbation(np.eye(3)))
    sampler = rw.CategoricalPerturbation({5: T})
    with pytest.raises(ValueError, match="columns names the column 5, but the points have 3 features"):
        sampler(np.zeros(3), 0, 4, np.random.default_rng(0))
    assert rw.CategoricalPerturbation({1: T}, rw.GaussianPerturbation(np.eye(3)))(
        np.zeros(3), 0, 4, np.random.default_rng(0)
    ).shape == (4, 3)


@pytest.mark.parametrize("flag", ["return_se", "progress", "prefetch", "allow_large"])
def test_real_world_robustness_yes_no_options(flag):
    X = np.random.default_rng(0).random((5, 2))
    with pytest.raises(TypeError, match=f"{flag} must be True or False"):
        rw.real_world_robustness(
            lambda Z: (Z[:, 0] > 0.5).astype(int), X, np.eye(2) * 0.01, None, 50, 0, **{flag: "no"}
        )


def _predict(Z):
    return (Z[:, 0] > 0.25).astype(int)


def test_booleans_are_not_numbers():
    """S5: boolean weights, covariances, robustness vectors, distances and chunk_rows were read as 1 and 0."""
    X = np.array([[0.1, 0.2]])
    with pytest.raises(TypeError, match="w must hold numbers.*got booleans"):
        rw.linear_robustness(X, [True, False])
    with pytest.raises(TypeError, match="cov must hold numbers.*got booleans"):
        rw.linear_robustness(X, [1.0, 1.0], cov=np.eye(2, dtype=bool))
    with pytest.raises(TypeError, match="a must hold numbers.*got booleans"):
        rw.correlation([True, False, True], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="distances must hold numbers.*got booleans"):
        rw.rescale_distances([True, False])
    X2 = np.array([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(TypeError, match="cov must hold numbers.*got booleans"):
        rw.real_world_robustness(_predict, X2, cov=np.eye(2, dtype=bool), n_samples=10, rng=0)
    with pytest.raises(TypeError, match="chunk_rows must be an integer >= 1.*not True"):
        rw.real_world_robustness(_predict, X2, cov=np.eye(2), n_samples=10, rng=0, chunk_rows=True)
    assert rw.real_world_robustness(_predict, X2, cov=np.eye(2), n_samples=10, rng=0, chunk_rows=3).shape == (2,)


def test_bounded_perturbation_refuses_bounds_of_another_dimension():
    """O7: bounds of 3 features around a 2-feature Gaussian were built, then failed in numpy's broadcasting."""
    base = rw.GaussianPerturbation(np.eye(2))
    with pytest.raises(ValueError, match="lower and upper have 3 entries but the base sampler works on d=2 features"):
        rw.BoundedPerturbation(base, [0, 0, 0], [1, 1, 1])
    s = rw.BoundedPerturbation(base, [0, 0], [1, 1])
    assert rw.real_world_robustness(_predict, np.array([[0.1, 0.2]]), sampler=s, n_samples=10, rng=0).shape == (1,)


def test_chunk_rows_of_a_numpy_unsigned_type_does_not_wrap_around():
    """probeE #3: ``m -= chunk_rows`` with a numpy.uint64 wrapped around below 0, and the chunking never ended."""
    import signal

    if not hasattr(signal, "setitimer"):
        pytest.skip("needs signal.setitimer to stop a hang")

    def stop(*_):
        raise TimeoutError("real_world_robustness did not return: the chunk count wrapped around")

    X = np.array([[0.5, 0.0], [-0.2, 1.0]])
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 5.0)
    try:
        got = rw.real_world_robustness(_predict, X, cov=np.eye(2), n_samples=10, rng=0, chunk_rows=np.uint64(64))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    np.testing.assert_array_equal(got, rw.real_world_robustness(_predict, X, cov=np.eye(2), n_samples=10, rng=0))


def test_correlation_at_extreme_scales_and_method_checked_first():
    """probeE #10: np.corrcoef's squares underflowed (1.0 for 1e-200) or overflowed (NaN for 1e200); an unknown
    method passed when there were fewer than 3 points."""
    a, b = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 3.0])
    exact = 9 / np.sqrt(84)  # deviations (-4/3, -1/3, 5/3) and (-1, 0, 1): 3 / sqrt(42/9 * 2)
    assert rw.correlation(a * 1e-200, b) == pytest.approx(exact, rel=1e-12)
    assert rw.correlation(a * 1e200, b) == pytest.approx(exact, rel=1e-12)
    assert rw.correlation(b * 1e200, b * 1e200) == pytest.approx(1.0, rel=1e-12)
    x, y = np.random.default_rng(0).random((2, 50))
    assert rw.correlation(x, y) == float(np.corrcoef(x, y)[0, 1])  # ordinary values: bit for bit as before
    for args in (([1.0, 2.0], [1.0, 2.0]), ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])):
        with pytest.raises(ValueError, match="method must be 'pearson' or 'spearman'; got 'bogus'"):
            rw.correlation(*args, method="bogus")


@pytest.mark.parametrize(
    "kw",
    [{"n_samples": 1e308}, {"n_samples": float("-inf")}, {"n_samples": np.uint64(2**64 - 1)}],
)
def test_real_world_robustness_refuses_counts_beyond_2_53(kw):
    """probeE #14: an OverflowError (int too large for a float, infinity to an integer) escaped."""
    with pytest.raises(ValueError, match=r"n_samples must be an integer in 1 \.\. 2\*\*53"):
        rw.real_world_robustness(_predict, np.zeros((2, 2)), cov=np.eye(2), rng=0, **kw)


@pytest.mark.parametrize("d", [float("inf"), float("-inf"), float("nan"), 2.5])
def test_covariance_helpers_refuse_a_non_finite_or_fractional_d(d):
    """probeE #14: inf gave an OverflowError, NaN numpy's "cannot convert float NaN to integer"."""
    for make in (rw.identity_covariance, lambda d: rw.random_covariance(d, 0)):
        with pytest.raises(ValueError, match="d must be a positive integer number of features.*e.g. d=4"):
            make(d)
    np.testing.assert_array_equal(rw.identity_covariance(4.0), np.eye(4) / 4)


@pytest.mark.parametrize(
    "value, exc, words",
    [
        ((0.0, [[1.0]]), ValueError, r"columns\[0\] has categories of shape \(\)"),
        (([0.0, 1.0],), TypeError, r"columns\[0\] must be a pair \(categories, transition\)"),
        (None, TypeError, r"columns\[0\] must be a pair \(categories, transition\), got None"),
        (([0.0, 1.0], "ab"), TypeError, r"columns\[0\] must hold numbers, got the transition 'ab'"),
        ((["a", "b"], [[1, 0], [0, 1]]), TypeError, r"columns\[0\] must hold numbers, got the categories"),
    ],
)
def test_categorical_perturbation_names_a_malformed_column_entry(value, exc, words):
    """probeE #15: IndexError, a raw unpack error or numpy's float conversion message."""
    with pytest.raises(exc, match=words + r".*e\.g\. \(\[0\.0, 1\.0\], \[\[0\.9, 0\.1\]"):
        rw.CategoricalPerturbation({0: value})


def test_samplers_refuse_a_non_callable_base_when_made():
    """probeE #17: a non-callable base / continuous sampler was accepted and failed at the first draw."""
    with pytest.raises(TypeError, match=r"base must be a sampler, callable as base\(x, index, n_samples, rng\)"):
        rw.BoundedPerturbation(None, [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(TypeError, match=r"continuous must be a sampler \(a callable\) or None, got 'x'"):
        rw.CategoricalPerturbation({0: T}, continuous="x")


@pytest.mark.parametrize(
    "kw, words",
    [
        ({"se_target": "0.01"}, r"se_target must be a number in \(0, 0\.5\), e\.g\. 0\.005; got '0\.01'"),
        ({"n_max": None}, r"n_max must be an integer >= 1 \(most samples per point.*got None"),
    ],
)
def test_adaptive_options_of_the_wrong_type(kw, words):
    """probeE #20: numpy's isfinite message and int()'s message."""
    with pytest.raises(TypeError, match=words):
        rw.real_world_robustness(_predict, np.zeros((2, 2)), cov=np.eye(2), n_samples="auto", rng=0, **kw)


def test_a_predict_that_scales_its_input_in_place_changes_neither_x_nor_the_answer():
    """Probe F #5: the base predictions were made on the caller's own X; a predict that shifts its input in place
    (a pipeline with copy=False) changed the user's data and one robustness from 0.998 to 0.021."""
    X = np.array([[0.2, 0.0], [0.8, 1.0], [0.45, 0.3]])

    def predict_inplace(Z):
        Z -= 0.5
        return (Z[:, 0] > 0).astype(int)

    def predict_copy(Z):
        return ((Z - 0.5)[:, 0] > 0).astype(int)

    kept = X.copy()
    got = rw.real_world_robustness(predict_inplace, X, cov=0.01 * np.eye(2), n_samples=2000, rng=0)
    want = rw.real_world_robustness(predict_copy, X.copy(), cov=0.01 * np.eye(2), n_samples=2000, rng=0)
    np.testing.assert_array_equal(X, kept)
    np.testing.assert_array_equal(got, want)
    assert want[0] > 0.99 and want[1] > 0.99  # both points lie 0.3 from the boundary x0 = 0.5, 3 sd of the noise


@pytest.mark.parametrize("scale", [1e-170, 1e-160, 1e-150, 1e155, 1e200, 1e300])
def test_linear_robustness_is_the_same_for_weights_scaled_by_any_factor(scale):
    """Probe G #2: w'Cw overflowed (every point 1/2) or underflowed (every point 1, or digits lost) for
    |w| >= 1e155 or <= 1e-150; the answer depends on w, b and threshold only up to one common factor."""
    X = np.array([[0.2, 0.3], [0.9, 0.8], [0.5, 0.5]])
    w = np.array([1.0, 1.0])
    want = rw.linear_robustness(X, w, threshold=1.0)
    np.testing.assert_allclose(want[:2], norm.cdf([0.5 / np.sqrt(2), 0.7 / np.sqrt(2)]), rtol=1e-12)
    got = rw.linear_robustness(X, w * scale, threshold=scale)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # and C scaled by a factor whose square overflows: the margin is 1e-150 standard deviations, P_r = 1/2
    np.testing.assert_allclose(rw.linear_robustness(X, w, threshold=1.0, cov=np.eye(2) * 1e300), 0.5)


@pytest.mark.parametrize("offset", [0.0, 1e17, -3e300])
def test_linear_robustness_keeps_the_margin_when_b_and_threshold_are_large(offset):
    """Probe J F9: ``X @ w + b - threshold`` ran left to right, so with b = threshold = 1e17 the margin (a few units)
    was lost to cancellation and every point read 1/2. b - threshold is taken first: the same classifier, the same
    answer, whatever common offset b and threshold carry."""
    X = np.array([[1.0, 2.0], [0.2, 0.3], [-1.0, 0.5]])
    want = norm.cdf(np.abs(X.sum(axis=1)) / np.sqrt(2))  # w = (1, 1), b = threshold: margin |x1 + x2|, sd sqrt(2)
    np.testing.assert_allclose(want[0], 0.983, atol=5e-4)
    got = rw.linear_robustness(X, [1.0, 1.0], b=offset, threshold=offset)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_correlation_and_rescale_distances_refuse_series_with_different_indexes():
    """Probe J F14: pandas Series were read by position, ignoring their index: correlation of a Series with its
    reversed-index copy read 1.0 (aligned: -1.0), and a success flag was applied to the other point. Two pandas
    objects with different indexes are refused naming both; aligned ones, or arrays, pair as before."""
    import pandas as pd

    a, b = pd.Series([1.0, 2, 3], index=[0, 1, 2]), pd.Series([1.0, 2, 3], index=[2, 1, 0])
    with pytest.raises(ValueError, match=r"^a and b are pandas objects with different indexes \(a: \[0, 1, 2\], b: "):
        rw.correlation(a, b)
    assert rw.correlation(a, b.reindex(a.index)) == pytest.approx(-1.0)
    assert rw.correlation(a, b.to_numpy()) == pytest.approx(1.0)  # arrays: by position, as asked
    d, ok = pd.Series([1.0, 2], index=[5, 6]), pd.Series([True, False], index=[6, 5])
    with pytest.raises(ValueError, match=r"^distances and success are pandas objects with different indexes"):
        rw.rescale_distances(d, ok)
    np.testing.assert_array_equal(rw.rescale_distances(d, ok.reindex(d.index)), [np.nan, 1.0])


def test_trace_normalized_of_a_covariance_whose_trace_overflows():
    """Probe G #3: the trace of eye(2) * 1e308 overflowed to inf and the result was a zero matrix ("no noise")."""
    from robeval.realworld.covariance import trace_normalized

    np.testing.assert_array_equal(trace_normalized(np.eye(2) * 1e308), 0.5 * np.eye(2))
    stack = trace_normalized(np.stack([np.eye(2) * 1e308, np.diag([1.0, 3.0])]), scale=2.0)
    np.testing.assert_array_equal(stack, [np.eye(2), np.diag([0.5, 1.5])])


@pytest.mark.parametrize("name", ["n_min", "n_max"])
def test_adaptive_counts_beyond_int64_are_named(name):
    """Probe G #7: 10**20 gave numpy's "ufunc 'isfinite' not supported"."""
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    kw = {"n_min": 256, "n_max": 2**14, name: 10**20}
    with pytest.raises(
        ValueError, match=rf"^{name} must be an integer in 1 \.\. 2\*\*53 \(.*\), got 100000000000000000000\.$"
    ):
        rw.real_world_robustness(
            lambda Z: (Z[:, 0] > 0.5).astype(int), X, cov=0.01 * np.eye(2), n_samples="auto", rng=0, **kw
        )


@pytest.mark.parametrize("shape", [(0, 0), (3, 0, 0), (0, 2, 2)])
def test_an_empty_covariance_is_refused_by_name_not_by_numpy(shape):
    """Probe J F16: trace_normalized (and every user of check_covariance) gave numpy's 'zero-size array to reduction
    operation maximum' for a 0x0 matrix, or an empty stack."""
    from robeval.realworld.covariance import covariance_factor, trace_normalized

    for fn in (trace_normalized, covariance_factor):
        with pytest.raises(ValueError, match=r"cov is empty \(shape \(.*\)\); pass a \(d, d\) matrix with d >= 1"):
            fn(np.zeros(shape))
