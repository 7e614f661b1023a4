"""Probe L on robeval.core.stats (the ledger's interval engine) and the helpers it shares: masked arrays (L5),
text, complex, 2-D and fractional / infinite / boolean counts (L6), the tracebacks of L8 and the obscure refusals
of L13 are refused naming the argument and the fix; valid inputs give what they gave."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from robeval.core import stats as S
from robeval.core.validation import check_numbers, mean_std

masked = np.ma.masked_array
MASKED = r" is a numpy masked array; its masked values would be read like any other \(the mask is dropped\)"
X = np.random.default_rng(0).random((5, 3))


def mean(a):
    return a.mean()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: S.mean_interval(masked([0.1, 100.0, 0.3, 0.2], [0, 1, 0, 0])), "values"),  # was 25.15
        (lambda: S.paired_interval(masked([1.0, 9.0, 2.0, 3.0], [0, 1, 0, 0]), [0.0] * 4), "a"),  # was 3.75
        (lambda: S.paired_interval([0.0] * 4, masked([1.0, 9.0, 2.0, 3.0], [0, 1, 0, 0])), "b"),
        (lambda: S.mean_vs_reference_interval(masked([1.0, 9.0, 2.0, 3.0], [0, 1, 0, 0]), 1.0, 5), "values"),
        (lambda: S.bootstrap_interval(mean, masked([1.0, 9.0, 2.0, 3.0], [0, 1, 0, 0])), r"samples\[0\]"),
        (lambda: check_numbers(masked([0.5, 0.9], [0, 1]), "radii"), "radii"),
    ],
)
def test_masked_arrays_are_refused(call, name):
    # L5: the masked values were read like any other
    with pytest.raises(TypeError, match="^" + name + MASKED):
        call()


def test_masked_arrays_are_refused_where_check_numbers_reads_them():
    # L5: right_angle_robustness(a=...) answered 0.99997 for the corner (0, 0) (0.708), holm and certified_accuracy
    # read the masked p-values and radii, BoundedPerturbation the masked bound
    import pandas as pd

    from robeval import acr
    from robeval import realworld as rw
    from robeval.core.ledger import holm
    from robeval.realworld.samplers import BoundedPerturbation

    with pytest.raises(TypeError, match="^a" + MASKED):
        rw.right_angle_robustness(np.array([[1.0, 1.0]]), a=masked([0.0, 5.0], [0, 1]))
    with pytest.raises(TypeError, match="^p_values" + MASKED):
        holm(masked([0.01, 0.9], [0, 1]), 0.05)
    df = pd.DataFrame({"idx": [0, 1], "label": [0, 1], "predict": [0, 1], "radius": [0.5, 0.1], "correct": [1, 1]})
    with pytest.raises(TypeError, match="^radii" + MASKED):
        acr.certified_accuracy(df, masked([0.0, 0.3], [0, 1]))
    with pytest.raises(TypeError, match="^lower" + MASKED):
        BoundedPerturbation(rw.GaussianPerturbation(np.eye(2)), masked([0.0, -1.0], [0, 1]), [1.0, 1.0])
    assert rw.right_angle_robustness(np.array([[1.0, 1.0]]), a=(0.0, 0.0))[0] == pytest.approx(0.70786, abs=1e-5)


@pytest.mark.parametrize(
    "values, kind, said",
    [
        (["1", "2", "3"], TypeError, r"^values must hold numbers, e\.g\. \[0\.91, 0\.93, 0\.92\]; got np\.str_\('1'\)"),
        (np.array([1 + 5j, 2, 3]), TypeError, r"^values must hold numbers, .*\(dtype complex128\)"),
        (None, TypeError, r"^values must hold numbers, .*; got None \(dtype object\)"),
        ({"a": 1}, TypeError, r"^values must hold numbers, .*; got \{'a': 1\} \(dtype object\)"),
        (
            np.arange(6.0).reshape(3, 2),
            ValueError,
            r"^values must hold one number per run \(a one-dimensional array\), got shape \(3, 2\); .*values\[:, j\]",
        ),
    ],
)
def test_mean_interval_refuses_text_complex_and_tables(values, kind, said):
    # L6: text read as numbers (2.0), a 3 x 2 table taken as 6 runs, the imaginary part dropped; L13: None, a dict
    with pytest.raises(kind, match=said):
        S.mean_interval(values)


def test_paired_interval_refuses_a_table_flattened_into_pairs():
    # L6: (2, 2) and (4,) were paired after flattening (n = 4)
    with pytest.raises(ValueError, match=r"^a must hold one number per run \(a one-dimensional array\), got shape"):
        S.paired_interval(np.arange(4.0).reshape(2, 2), np.array([0, 0, 0, 1.0]))


@pytest.mark.parametrize(
    "kw, kind, said",
    [
        (
            {"ref_n": math.inf},
            ValueError,
            r"^ref_n must be the published number of runs \(a whole number >= 2\), got inf",
        ),
        ({"ref_n": math.nan}, ValueError, r"^ref_n must be .*, got nan"),
        ({"ref_n": 2.5}, ValueError, r"^ref_n must be .*, got 2\.5"),
        ({"ref_sd": "x"}, TypeError, r"^ref_sd must be a finite standard deviation >= 0 \(a number\), got 'x'"),
    ],
)
def test_mean_vs_reference_interval_names_its_reference(kw, kind, said):
    # L8: OverflowError (ref_n=inf); L13: float()'s words (ref_sd='x'), int()'s (ref_n=nan)
    args = {"ref_sd": 1.0, "ref_n": 5, **kw}
    with pytest.raises(kind, match=said):
        S.mean_vs_reference_interval([1.0, 2.0, 3.0], **args)


@pytest.mark.parametrize(
    "kw, kind, said",
    [
        (
            {"n_boot": 2.5},
            ValueError,
            r"^n_boot must be the number of bootstrap resamples \(a whole number >= 2\), got 2\.5",
        ),
        ({"n_boot": 0}, ValueError, r"^n_boot must be .*, got 0\.$"),
        ({"n_boot": -1}, ValueError, r"^n_boot must be .*, got -1\.$"),
        ({"n_boot": "100"}, TypeError, r"^n_boot must be .*, got '100' \(str\)"),
        ({"seed": "x"}, TypeError, r"^seed must be a whole number >= 0 \(the bootstrap's seed\), got 'x'"),
        ({"seed": -1}, ValueError, r"^seed must be a whole number >= 0 \(the bootstrap's seed\), got -1"),
    ],
)
def test_bootstrap_interval_names_its_options(kw, kind, said):
    # L6: n_boot=2.5 gave a "degenerate" (-inf, inf); L8: n_boot=0 IndexError; L13: '100', -1, seed 'x'
    with pytest.raises(kind, match=said):
        S.bootstrap_interval(mean, np.arange(5.0), **kw)


def test_bootstrap_interval_without_a_sample_says_so():
    # L8: IndexError: list index out of range
    with pytest.raises(TypeError, match=r"^bootstrap_interval needs at least one sample after the statistic"):
        S.bootstrap_interval(mean)


@pytest.mark.parametrize(
    "successes, trials, kind, said",
    [
        (2.5, 4, ValueError, r"^successes must be the number of successes \(a whole number >= 0\), got 2\.5"),
        (1, math.inf, ValueError, r"^trials must be the number of trials \(a whole number >= 1\), got inf"),
        (1, True, TypeError, r"^trials must be the number of trials \(a whole number >= 1\), got True \(bool\)"),
        ("1", 4, TypeError, r"^successes must be .*, got '1' \(str\)"),
    ],
)
def test_proportion_interval_takes_whole_counts(successes, trials, kind, said):
    # L6: 2.5 successes gave 0.625, trials=inf gave [0, 0] with n=inf, trials=True n=True; L13: '1'
    with pytest.raises(kind, match=said):
        S.proportion_interval(successes, trials)


def test_powers_check_their_level_and_numbers():
    # L6: power_to_detect(level=2) was nan, power_to_confirm(level=0) 0.954; L13: must be real number, not str
    with pytest.raises(ValueError, match=r"^level must lie in \(0, 1\), e\.g\. 0\.95; got 2"):
        S.power_to_detect(1.0, 0.5, level=2)
    with pytest.raises(ValueError, match=r"^level must lie in \(0, 1\), e\.g\. 0\.95; got 0\.$"):
        S.power_to_confirm(1.0, 0.5, level=0)
    with pytest.raises(TypeError, match=r"^effect must be a number, got '1' \(str\)"):
        S.power_to_detect("1", 0.5)
    with pytest.raises(TypeError, match=r"^se must be a number, got None"):
        S.power_to_confirm(0.1, None)


def test_predictive_indices_checks_its_generator_and_counts():
    # L6: n=0 gave shape (1, 0); L8: an int as gen gave AttributeError
    with pytest.raises(ValueError, match=r"^n must be the number of independent units \(a whole number >= 1\), got 0"):
        S.predictive_indices(np.random.default_rng(0), 0)
    with pytest.raises(
        TypeError, match=r"^gen must be a numpy Generator \(np\.random\.default_rng\(seed\)\), got int 0"
    ):
        S.predictive_indices(0, 5)
    with pytest.raises(ValueError, match=r"^k must be the number of resamples \(a whole number >= 1\), got 2\.7"):
        S.predictive_indices(np.random.default_rng(0), 5, k=2.7)


@pytest.mark.parametrize("group_a", [[0.7], [True], "0", 0])
def test_best_contrast_interval_takes_lists_of_column_positions(group_a):
    # L6: [0.7] became column 0, [True] column 1, "0" / "12" columns 0 / 1, 2; L13: 0 -> 'int' object is not iterable
    with pytest.raises(
        TypeError, match=r"^group_a must be a list of column positions \(whole numbers\), e\.g\. \[0, 2\]; got "
    ):
        S.best_contrast_interval(X, group_a, [1, 2])


def test_rows_contrast_interval_names_its_groups():
    # L13: object of type 'NoneType' has no len()
    with pytest.raises(TypeError, match=r"^groups must be a list of pairs \(positions of the columns A, of the colum"):
        S.rows_contrast_interval(np.zeros((3, 2, 2)), None)
    with pytest.raises(TypeError, match=r"^groups\[1\]\[0\] must be a list of column positions"):
        S.rows_contrast_interval(np.zeros((3, 2, 2)), [([0], [1]), (1, [0])])


def test_calibration_p_takes_numpy_numbers_and_refuses_non_counts():
    # L13: np.float32(2.0) / np.int64(2) refused as "not positive"; L8: inf -> OverflowError; nan -> int()'s words
    assert S.calibration_p(3, np.float32(2.0)) == S.calibration_p(3, 2.0) == S.calibration_p(3, np.int64(2))
    for bad in (math.inf, math.nan, 1.5):
        with pytest.raises(ValueError, match=r"^observed must be a count of changed verdicts \(a whole number >= 0\)"):
            S.calibration_p(bad, 2.0)


def test_runs_needed_names_its_arguments():
    # L8: AttributeError: 'tuple' object has no attribute 'halfwidth'; L13: '>' not supported (a text target)
    with pytest.raises(
        TypeError, match=r"^interval must be an Interval \(from mean_interval, paired_interval, \.\.\.\)"
    ):
        S.runs_needed((1, 2), 0.1)
    with pytest.raises(TypeError, match=r"^target_halfwidth must be a half-width > 0 \(a number\), got '0\.1'"):
        S.runs_needed(S.mean_interval([1.0, 2.0, 3.0]), "0.1")


def test_mean_std_takes_lists_and_refuses_fewer_than_two_values():
    # L8: AttributeError for a list (validation.py:892)
    assert mean_std([1, 2, 3]) == (2.0, 1.0)
    with pytest.raises(
        ValueError, match=re.escape("values must hold two or more finite numbers (runs), got array([1.])")
    ):
        mean_std(np.array([1.0]))


def test_valid_inputs_give_what_they_gave():
    v = np.array([0.91, 0.93, 0.92, 0.95])
    iv = S.mean_interval(v)
    assert (iv.estimate, iv.n) == (pytest.approx(0.9275), 4) and iv.low < iv.estimate < iv.high
    assert S.mean_interval(list(v)) == iv and S.mean_interval(v.astype(np.float32)).n == 4
    assert S.mean_interval([True, False, True]).estimate == pytest.approx(2 / 3)  # booleans count as 1 and 0
    assert S.paired_interval(v, v - 0.01).estimate == pytest.approx(0.01)
    assert S.mean_vs_reference_interval(v, 0.01, 5.0).n == 4 and S.mean_vs_reference_interval(v, 0, Fraction(5)).n == 4
    b = S.bootstrap_interval(mean, v, n_boot=200, seed=np.int64(3))
    assert b == S.bootstrap_interval(mean, v, n_boot=200.0, seed=3)
    assert S.proportion_interval(np.int64(3), 4.0).estimate == 0.75
    assert S.predictive_indices(np.random.default_rng(0), 4, np.int64(3), 2).shape == (2, 3)
    iv, a, b = S.best_contrast_interval(X, np.array([0]), (1, 2))
    assert (a, b) == S.best_contrast_interval(X, [0], [1, 2])[1:]
