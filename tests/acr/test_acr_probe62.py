"""Issue 62's probe: inputs that gave silent wrong answers or obscure refusals in robeval.acr."""

import numpy as np
import pandas as pd
import pytest

from robeval import acr


def _frame():
    return pd.DataFrame(
        {
            "idx": [0, 1],
            "label": [1, 2],
            "predict": [1, -1],
            "radius": [0.5, 0.0],
            "correct": [1, 0],
            "time": [1.0, 2.0],
        }
    )


def test_ecdf_from_certification_count_offset_and_grid():
    with pytest.raises(ValueError, match="count_offset must be >= 0"):
        acr.ecdf_from_certification(_frame(), 0.25, count_offset=-1)
    with pytest.raises(TypeError, match="count_offset must be an integer"):
        acr.ecdf_from_certification(_frame(), 0.25, count_offset=0.5)
    with pytest.raises(ValueError, match="grid holds NaN") as err:
        acr.ecdf_from_certification(_frame(), 0.25, grid=[0.5, np.nan])
    assert "n_a" not in str(err.value)


def test_write_certification_tsv_refuses_fractional_label_and_bad_paths(tmp_path):
    df = _frame()
    df["label"] = [1.5, 2.0]
    with pytest.raises(ValueError, match="column 'label' must hold whole numbers"):
        acr.write_certification_tsv(df, tmp_path / "c.tsv")
    with pytest.raises(ValueError, match="path .* is a folder"):
        acr.write_certification_tsv(_frame(), tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="path .* lies under .*which is a file"):
        acr.write_certification_tsv(_frame(), tmp_path / "file" / "c.tsv")
    with pytest.raises(TypeError, match="path must be"):
        acr.write_certification_tsv(_frame(), "")


def test_read_certification_refusals(tmp_path):
    header = "idx\tlabel\tpredict\tradius\tcorrect\ttime\n"
    long_rows = tmp_path / "long.tsv"
    long_rows.write_text(header + "0\t1\t1\t0.5\t1\t0:00:01\tx\ty\n1\t2\t2\t0.3\t1\t0:00:01\tx\ty\n")
    with pytest.raises(ValueError, match="line 2 has 8 tab-separated fields.*6 columns"):
        acr.read_certification(long_rows)
    (tmp_path / "empty.tsv").write_text("")
    with pytest.raises(ValueError, match="path .*empty.tsv' is empty"):
        acr.read_certification(tmp_path / "empty.tsv")
    (tmp_path / "bin.tsv").write_bytes(bytes([0x81, 0xFF, 0x00, 0x9C]) * 10)
    with pytest.raises(ValueError, match="path .*bin.tsv' is not a text file"):
        acr.read_certification(tmp_path / "bin.tsv")
    with pytest.raises(ValueError, match="is a folder"):
        acr.read_certification(tmp_path)
    out = acr.write_certification_tsv(_frame(), tmp_path / "ok.tsv")
    back = acr.read_certification(out)
    assert back["label"].tolist() == [1, 2] and back["time_s"].tolist() == [1.0, 2.0]


def _smooth():
    import torch

    return acr.Smooth(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(4, 3)), 3, 0.25)


def test_smooth_yes_no_options_and_one_dimensional_x():
    s = _smooth()
    x = np.zeros((1, 4), dtype=np.float32)
    with pytest.raises(TypeError, match="allow_large must be True or False"):
        s.certify(x, 10, 20, 0.001, seed=0, allow_large="no")
    with pytest.raises(TypeError, match="progress must be True or False"):
        s.certify_dataset(x, [0], 10, 20, progress="no")
    with pytest.raises(ValueError, match=r"x has shape \(4,\), one dimension"):
        s.certify(np.zeros(4, dtype=np.float32), 10, 20, 0.001, seed=0)


def test_count_shapes_frames_and_radii_are_named():
    """Issue 62's probe, last items: numpy's "operands could not be broadcast" from clopper_pearson_lower and
    certified_radius with mismatched counts, an AttributeError from certification_table given a list, messages
    naming ``df`` (a parameter it does not take), and a radii message showing [] for an infinite radius."""
    import numpy as np
    import pandas as pd
    import pytest

    from robeval import acr

    for call in (
        lambda: acr.clopper_pearson_lower([5, 6], [10, 10, 10], 0.001),
        lambda: acr.certified_radius([5, 6], [10, 10, 10], 0.001, 0.25),
    ):
        with pytest.raises(ValueError, match=r"n_a and n have shapes \(2,\) and \(3,\), which do not match"):
            call()
    assert acr.clopper_pearson_lower([5, 6], 10, 0.001).shape == (2,)  # a single n still broadcasts
    with pytest.raises(TypeError, match="frames must be a dict"):
        acr.certification_table([pd.DataFrame()], [0.5])
    with pytest.raises(ValueError, match=r"frames\['a'\] lacks columns"):
        acr.certification_table({"a": pd.DataFrame({"x": [1]})}, [0.5])
    with pytest.raises(ValueError, match=r"radii must be finite numbers >= 0 .*got \[inf\]"):
        acr.certification_table({"a": pd.DataFrame({"x": [1]})}, [0.5, np.inf])


def test_sigma_and_n_images_refuse_booleans():
    """A second probe: ``sigma=True`` was read as 1.0 and ``certification_table(n_images=1)`` as True."""
    for call in (
        lambda: acr.certified_radius(np.array([90]), 100, 0.001, True),
        lambda: acr.max_certified_radius(100, 0.001, True),
        lambda: acr.ecdf_from_certification(_frame(), np.bool_(True)),
    ):
        with pytest.raises(ValueError, match="sigma must be a positive number .*got (True|np.True_)"):
            call()
    with pytest.raises(TypeError, match="n_images must be True or False"):
        acr.certification_table({0.25: _frame()}, [0.0], n_images=1)
    assert acr.certification_table({0.25: _frame()}, [0.0], n_images=True)["n_images"].tolist() == [2]


def test_max_certified_radius_is_never_negative_and_refuses_booleans():
    """S2: a budget too small to certify (alpha ** (1/n) < 1/2) gave a negative radius and ACR; n=True was n=1."""
    assert acr.max_certified_radius(5, 0.001, 0.25) == 0.0
    assert acr.trivial_classifier_acr(5, 0.001, 0.25, 0.1) == 0.0
    r = acr.max_certified_radius(np.array([9, 10, 100000]), 0.001, 0.25)
    assert r[0] == 0.0 and 0 < r[1] < r[2]
    assert r[2] == 0.25 * __import__("scipy").stats.norm.isf(-np.expm1(np.log(0.001) / 100000))
    for n in (True, np.array([True, False])):
        with pytest.raises(TypeError, match="n must hold numbers, e.g. 100000; got booleans"):
            acr.max_certified_radius(n, 0.001, 0.25)
    with pytest.raises(ValueError, match="n must be a whole number of noise draws, got 2.5"):
        acr.max_certified_radius(2.5, 0.001, 0.25)
    assert "need not be an integer" not in acr.max_certified_radius.__doc__


def test_certification_table_refuses_radii_sharing_a_column():
    """S4: radii [0.1, 0.1] gave two columns labelled '0.10'."""
    df = pd.DataFrame({"idx": [0, 1], "label": [0, 1], "predict": [0, 1], "radius": [0.5, 0.25], "correct": [1, 1]})
    with pytest.raises(ValueError, match="radii holds 0.1 and 0.1, which share the column label '0.10'"):
        acr.certification_table({"a": df}, [0.1, 0.1])
    with pytest.raises(ValueError, match="radii holds 0.101 and 0.104, which share the column label '0.10'"):
        acr.certification_table({"a": df}, [0.101, 0.104])
    assert acr.certification_table({"a": df}, [0.1, 0.3]).columns.tolist() == ["ACR", "0.10", "0.30"]
    # certified_accuracy answers per entry (documented): a repeated radius gets its value twice
    assert acr.certified_accuracy(df, [0.3, 0.3]).tolist() == [0.5, 0.5]


def test_radii_refuse_booleans():
    """S5: radii [True] were read as radius 1."""
    df = pd.DataFrame({"idx": [0, 1], "label": [0, 1], "predict": [0, 1], "radius": [0.5, 1.25], "correct": [1, 1]})
    with pytest.raises(TypeError, match="radii must hold numbers.*got booleans"):
        acr.certified_accuracy(df, [True])
    with pytest.raises(TypeError, match="radii must hold numbers.*got booleans"):
        acr.certified_accuracy_from_ecdf([0.1, 0.2], [1.0, 0.5], [True], 100, 0.001, 0.25)


@pytest.mark.parametrize("bad", [np.inf, np.nan, -np.inf])
def test_a_non_finite_budget_is_refused_naming_the_argument(bad):
    """N3: n = inf gave certified_radius "not abstaining, radius NaN", clopper_pearson_lower NaN or 1.0 and
    max_certified_radius / trivial_classifier_acr an infinite radius; their siblings refuse it."""
    with pytest.raises(ValueError, match=r"^n must be finite whole numbers of trials"):
        acr.certified_radius(5, bad, 0.001, 0.25)
    with pytest.raises(ValueError, match=r"^n must be finite whole numbers of trials"):
        acr.certified_radius(5, np.array([10, bad]), 0.001, 0.25)
    with pytest.raises(ValueError, match=r"^n must be finite whole numbers of trials"):
        acr.clopper_pearson_lower(5, bad, 0.01)
    with pytest.raises(ValueError, match=r"^n must be finite whole numbers of trials"):
        acr.clopper_pearson_lower(bad, bad, 0.01)
    with pytest.raises(ValueError, match=r"^n_a must be finite whole numbers of successes"):
        acr.clopper_pearson_lower(bad, 10, 0.01)
    with pytest.raises(ValueError, match=r"^n must be a finite whole number of noise draws"):
        acr.max_certified_radius(bad, 0.001, 0.25)
    with pytest.raises(ValueError, match=r"^n must be a finite whole number of noise draws"):
        acr.max_certified_radius([100, bad], 0.001, 0.25)
    with pytest.raises(ValueError, match=r"^n must be a finite whole number of noise draws"):
        acr.trivial_classifier_acr(bad, 0.001, 0.25, 0.5)


def test_finite_budgets_still_certify_and_theorem1_keeps_an_unreachable_target():
    assert acr.clopper_pearson_lower(10, 10, 0.01) == pytest.approx(0.01 ** (1 / 10))
    assert acr.max_certified_radius(1e300, 0.001, 0.25) > 0
    from robeval.acr import theory

    table = theory.theorem1_table([0.5, 100.0], 0.001, 0.5, 0.1)
    assert np.isinf(table.min_budget_N[1]) and np.isinf(table.ACR_at_N[1]) and np.isfinite(table.ACR_at_N[0])


# -- a third probe: write_certification_tsv, huge budgets, batch_size and text alpha --------------------------------
def test_write_certification_tsv_refuses_a_time_text_that_adds_or_splits_a_row(tmp_path):
    """Finding 2: a time text holding a line break was written as is: a whole extra row read back."""
    injected = "0:00:01\n5\t1\t1\t0.9\t1\t0:00:01"
    for bad in (injected, "0:00:01\r", "0:00:01\t7", "0:00:01\x0b"):
        with pytest.raises(
            ValueError, match=r"^df\['time'\] must be .* on one line, but row 0 holds .*tab, line break"
        ):
            acr.write_certification_tsv(_frame().assign(time=[bad, "0:00:02"]), tmp_path / "c.tsv")
    for bad in ("abc", "", "1:xx:00"):
        with pytest.raises(ValueError, match=r"^df\['time'\] must be .*row 0 holds .*cannot read as a duration"):
            acr.write_certification_tsv(_frame().assign(time=[bad, "0:00:02"]), tmp_path / "c.tsv")
    for bad in ("-1", "nan", "-1 day, 23:59:59"):
        with pytest.raises(ValueError, match=r"^df\['time'\] must be a finite number of seconds >= 0 .*row 1 holds"):
            acr.write_certification_tsv(_frame().assign(time=["0:00:02", bad]), tmp_path / "c.tsv")
    assert not (tmp_path / "c.tsv").exists()
    # texts the reader parses are still written as given: 3 lines, time_s 3.761169 s and 1 day + 1 s
    out = acr.write_certification_tsv(_frame().assign(time=["0:00:03.761169", "1 day, 0:00:01"]), tmp_path / "ok.tsv")
    assert out.read_text().splitlines()[1:] == ["0\t1\t1\t0.5\t1\t0:00:03.761169", "1\t2\t-1\t0.0\t0\t1 day, 0:00:01"]
    back = acr.read_certification(out)
    assert len(back) == 2 and back["time_s"].tolist() == [3.761169, 86401.0]


def test_write_certification_tsv_applies_the_rules_acr_reads_back(tmp_path):
    """Finding 3: correct = 0.7 was written as 0, 2 as 2, a correct disagreeing with predict == label and an
    abstention with a radius as given: files acr() then refused."""
    path = tmp_path / "c.tsv"
    with pytest.raises(ValueError, match=r"^df\['correct'\] must be 0/1 .*row 0 holds 0.7; recompute it"):
        acr.write_certification_tsv(_frame().assign(correct=[0.7, 0]), path)
    with pytest.raises(ValueError, match=r"^df\['correct'\] must be 0/1 .*row 1 holds 2"):
        acr.write_certification_tsv(_frame().assign(correct=[1, 2]), path)
    with pytest.raises(ValueError, match=r"^df\['correct'\] disagrees with predict == label in 1 rows"):
        acr.write_certification_tsv(_frame().assign(correct=[0, 0]), path)
    with pytest.raises(ValueError, match=r"^df has abstentions \(predict = -1\) marked correct or with a radius > 0"):
        acr.write_certification_tsv(_frame().assign(radius=[0.5, 0.3]), path)
    assert not path.exists()
    # a file it writes is one acr() accepts: ACR = (0.5 * 1 + 0 * 0) / 2
    assert acr.acr(acr.read_certification(acr.write_certification_tsv(_frame(), path))) == 0.25


def test_write_certification_tsv_refuses_non_finite_or_negative_seconds(tmp_path):
    """Finding 5: NaN seconds gave "cannot convert float NaN to integer", inf an OverflowError and -1.0 was written
    as '-1 day, 23:59:59'."""
    for bad, shown in ((np.nan, "nan"), (np.inf, "inf"), (-1.0, "-1.0")):
        with pytest.raises(
            ValueError, match=rf"^df\['time'\] must be a finite number of seconds >= 0 .*row 0 holds {shown}"
        ):
            acr.write_certification_tsv(_frame().assign(time=[bad, 1.0]), tmp_path / "c.tsv")
    with pytest.raises(ValueError, match=r"^df\['time'\] must be .*row 1 holds True"):
        acr.write_certification_tsv(_frame().assign(time=pd.Series([1.0, True], dtype=object)), tmp_path / "c.tsv")
    with pytest.raises(TypeError, match=r"^df\['time'\] holds timedelta64.*dt.total_seconds\(\)"):
        acr.write_certification_tsv(_frame().assign(time=pd.to_timedelta([1, 2], unit="s")), tmp_path / "c.tsv")
    assert not (tmp_path / "c.tsv").exists()
    out = acr.write_certification_tsv(_frame().assign(time=[0.0, 151.238689]), tmp_path / "ok.tsv")
    assert [line.split("\t")[-1] for line in out.read_text().splitlines()[1:]] == ["0:00:00", "0:02:31.238689"]


def test_all_hits_of_a_huge_budget_give_the_finite_radius_of_max_certified_radius():
    """Finding 7: certified_radius(n, n) at n = 2**60 was infinite (alpha ** (1/n) rounds to 1.0); now it is
    sigma * Phi^-1_upper(-expm1(ln(alpha) / n)), the value of max_certified_radius."""
    from scipy.stats import beta, norm

    from robeval.acr import theory

    for n in (2**60, 10**17, 10**16, 2**32 + 1):
        expected = 0.25 * norm.isf(-np.expm1(np.log(0.001) / n))
        abstain, radius = acr.certified_radius(n, n, 0.001, 0.25)
        assert not abstain and float(radius) == expected == acr.max_certified_radius(n, 0.001, 0.25)
        assert theory.radius_for_count(n, n, 0.001, 0.25) == expected
        assert acr.certified_radius([n // 2, n], n, 0.001, 0.25)[1][1] == expected  # an array of counts as well
    assert float(acr.certified_radius(1e300, 1e300, 0.001, 0.25)[1]) == 0.25 * norm.isf(
        -np.expm1(np.log(0.001) / 1e300)
    )
    assert 2.13 < acr.max_certified_radius(2**60, 0.001, 0.25) < 2.14
    assert acr.clopper_pearson_lower(2**60, 2**60, 0.001) == 1.0  # documented: the bound itself rounds to 1.0
    # up to 2**32 draws every radius is the one of sigma * Phi^-1(p_A_lower), bit for bit, as before the fix
    for n in (1, 10, 100, 1000, 99_999, 100_000, 10**6, 2**32):
        for n_a in sorted({0, n // 2, max(n - 3, 0), n - 1, n}):
            p = np.exp(np.log(0.001) / n) if n_a == n else (beta.ppf(0.001, n_a, n - n_a + 1) if n_a else 0.0)
            old = 0.25 * (norm.isf(1.0 - p) if p > 0.5 else norm.ppf(max(p, 0.5)))
            abstain, radius = acr.certified_radius(n_a, n, 0.001, 0.25)
            assert bool(abstain) == (p < 0.5) and float(radius) == (0.0 if p < 0.5 else old), (n_a, n)


def test_integers_too_large_for_numpy_are_refused_naming_the_argument():
    """Finding 8: max_certified_radius(10**400) raised OverflowError; clopper_pearson_lower(10**30, 10**30) said
    "got object values" instead of that the integers are too large and to pass floats."""
    for n in (10**400, [100, 10**400]):
        with pytest.raises(
            ValueError, match=r"^n must be a number of draws representable as a float64 \(<= 1.8e308\), got 1.000e\+400"
        ):
            acr.max_certified_radius(n, 0.001, 0.25)
    for n_a in (10**30, [10**30, 5]):
        with pytest.raises(
            ValueError, match=r"^n_a holds integers too large for int64 \(e.g. 1.000e\+30\).*pass n_a as floats"
        ):
            acr.clopper_pearson_lower(n_a, 10**30, 0.001)
    with pytest.raises(ValueError, match=r"^n holds integers too large for int64 \(e.g. 100000000000000000000\)"):
        acr.certified_radius(5, 10**20, 0.001, 0.25)  # 2**64 <= 10**20: shown in full
    with pytest.raises(ValueError, match=r"^n_a must be a number of successes representable as a float64"):
        acr.clopper_pearson_lower(10**400, 10**400, 0.001)
    # as floats, as told: the budget's largest radius, and 10**30 as a Python int still works where it fits a float
    radius = 0.25 * __import__("scipy").stats.norm.isf(-np.expm1(np.log(0.001) / 1e30))
    assert (
        float(acr.certified_radius(1e30, 1e30, 0.001, 0.25)[1])
        == radius
        == acr.max_certified_radius(10**30, 0.001, 0.25)
    )


def test_batch_size_and_images_per_step_are_not_called_noise_draws():
    """Finding 12: batch_size=0 was told "number of noise draws; Cohen et al. use n0=100 and n=100000"."""
    s, x = _smooth(), np.zeros((1, 4), dtype=np.float32)
    message = (
        "batch_size must be an integer >= 1 (noisy inputs per forward pass; the results do not depend on it), got 0."
    )
    for call in (
        lambda: s.certify(x, n0=10, n=100, alpha=0.001, seed=0, batch_size=0),
        lambda: s.predict(x, 100, 0.001, batch_size=0, seed=0),
        lambda: s.certify_radius(x, 0.1, 10, 200, 0.001, batch_size=0, seed=0),
        lambda: s.certify_dataset(x, [0], 10, 100, batch_size=0, progress=False),
    ):
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == message
    with pytest.raises(ValueError, match=r"^batch_size must be an integer >= 1 .*got 2.5\.$"):
        s.certify(x, n0=10, n=100, alpha=0.001, seed=0, batch_size=2.5)
    for ips in (0, 1.5, True):  # 0 was read as "the default" in silence
        with pytest.raises(ValueError, match=r"^images_per_step must be an integer >= 1 \(inputs certified together"):
            s.certify_dataset(x, [0], 10, 100, images_per_step=ips, progress=False)
    with pytest.raises(ValueError, match=r"^n0 must be >= 1 \(number of noise draws\), got 0"):
        s.certify_dataset(x, [0], 0, 100, progress=False)
    from robeval.acr.training import RSTrainConfig  # the training settings that are not numbers of draws either

    with pytest.raises(ValueError) as err:
        RSTrainConfig(eval_batch_size=0)
    assert str(err.value) == message.replace("batch_size", "eval_batch_size")
    with pytest.raises(
        ValueError, match=r"^batch_size must be an integer >= 1 \(clean images per SGD step\), got 0\.$"
    ):
        RSTrainConfig(batch_size=0)
    with pytest.raises(ValueError, match=r"^reweight_every must be an integer >= 1 \(epochs between"):
        RSTrainConfig(reweight_every=0)
    with pytest.raises(ValueError, match=r"^num_noise must be >= 1 \(number of noise draws\)"):
        RSTrainConfig(num_noise=0)


def test_alpha_and_other_scalars_refuse_text():
    """Finding 13: check_alpha read "0.001" as a number (clopper_pearson_lower(90, 100, "0.001") = 0.7753) while
    check_sigma refused text; so did theorem1_min_budget and load_certification's sigma."""
    from scipy.stats import beta

    from robeval.acr import files, theory
    from robeval.acr.training import RSTrainConfig

    for alpha in ("0.01", "0.001", b"0.01", True, np.bool_(True)):
        with pytest.raises(TypeError, match=r"^alpha must be a number in \(0, 1\) \(failure probability\)"):
            acr.clopper_pearson_lower(90, 100, alpha)
        with pytest.raises(TypeError, match=r"^alpha must be a number in \(0, 1\)"):
            acr.certified_radius(90, 100, alpha, 0.25)
    with pytest.raises(TypeError, match=r"^alpha must be a number in \(0, 1\).*got str '0.01'"):
        _smooth().certify(np.zeros((1, 4), dtype=np.float32), 10, 100, "0.01", seed=0)
    assert acr.clopper_pearson_lower(90, 100, 0.01) == beta.ppf(0.01, 90, 11)  # a number as before
    assert acr.clopper_pearson_lower(90, 100, np.float32(0.25)) == beta.ppf(0.25, 90, 11)
    with pytest.raises(TypeError, match=r"^target_acr must be a positive number .*got str '0.5'"):
        theory.theorem1_min_budget("0.5", 0.001, 0.25, 0.1)
    with pytest.raises(TypeError, match=r"^class_fraction must be a number in \(0, 1\].*got str '0.1'"):
        theory.theorem1_min_budget(0.5, 0.001, 0.25, "0.1")
    for sigma in ("0.25", True):  # True was read as sigma = 1.0
        with pytest.raises(ValueError, match=r"^sigma must be a positive number"):
            files.load_certification("cifar10", "gaussian", sigma)
    with pytest.raises(ValueError, match=r"^reweight_alpha must lie strictly between 0 and 1 .*got 2\.$"):
        RSTrainConfig(reweight_alpha=2)


# ------------------------------------------------------------------------------------------ probe E (acr findings)
def test_theorem1_min_budget_is_the_smallest_budget_for_large_z():
    """Probe E finding 5: for z = target_acr / (class_fraction * sigma) >= 5, ln Phi(z) was taken as -sf(z), which put
    the budget 3-4 above the smallest one. Expected values: floor(ln(alpha) / ln Phi(z)) + 1 computed with mpmath
    at 50 digits (Phi(z) = 1 - ncdf(-z))."""
    from robeval.acr import theory

    smallest = {4.9: 14415682, 5.0: 24098087, 5.5: 363765897, 7.0: 5397474272290}
    for z, expected in smallest.items():
        n = theory.theorem1_min_budget(z, 0.001, 1.0, 1.0)
        assert n == expected
        assert theory.trivial_classifier_acr(n, 0.001, 1.0, 1.0) > z  # N reaches the target ...
        assert theory.trivial_classifier_acr(n - 1, 0.001, 1.0, 1.0) <= z  # ... and N - 1 does not
    assert theory.theorem1_min_budget(0.5, 0.001, 0.25, 0.5) == 218105.0  # z = 4 (< 5): as before (mpmath: 218105)


def test_rs_train_config_checks_every_field():
    """Probe E finding 8: RSTrainConfig checked 10 of its fields; discard="False" switched discarding on,
    milestones="50" was read per character, lr=nan, momentum=5, seed=-1 or epochs=True were accepted."""
    from robeval.acr.training import VARIANTS, RSTrainConfig, rs_config
    from robeval.core.profiles import resolve

    refused = [
        (dict(discard="False"), TypeError, r"^discard must be True or False, got 'False'"),
        (dict(reweight="no"), TypeError, r"^reweight must be True or False"),
        (dict(attack=1), TypeError, r"^attack must be True or False"),
        (dict(flip_crop=None), TypeError, r"^flip_crop must be True or False"),
        (dict(milestones="50"), TypeError, r"^milestones must be a tuple of epochs, got str '50'"),
        (dict(milestones=50), TypeError, r"^milestones must be a tuple of epochs, got int 50"),
        (dict(milestones=(100, 50)), ValueError, r"^milestones must be strictly increasing, got \(100, 50\)"),
        (dict(milestones=(0, 5)), ValueError, r"^milestones must hold integers >= 1 \(epochs\), got 0"),
        (dict(milestones=(2.5,)), ValueError, r"^milestones must hold integers >= 1 \(epochs\), got 2.5"),
        (dict(lr=float("nan")), ValueError, r"^lr must be a finite number > 0 .*got nan"),
        (dict(lr=0), ValueError, r"^lr must be a finite number > 0"),
        (dict(lr="0.1"), TypeError, r"^lr must be a finite number > 0 .*got str '0.1'"),
        (dict(momentum=5), ValueError, r"^momentum must be a number in \[0, 1\) .*got 5"),
        (dict(momentum=1.0), ValueError, r"^momentum must be a number in \[0, 1\)"),
        (dict(weight_decay=-1e-4), ValueError, r"^weight_decay must be a finite number >= 0"),
        (dict(gamma=float("inf")), ValueError, r"^gamma must be a finite number > 0 .*got inf"),
        (dict(seed=0.5), ValueError, r"^seed must be an integer >= 0, got 0.5"),
        (dict(seed=-1), ValueError, r"^seed must be an integer >= 0, got -1"),
        (dict(seed=True), ValueError, r"^seed must be an integer >= 0, got True"),
        (dict(epochs=True), ValueError, r"^epochs must be an integer >= 0, got True"),
        (dict(attack_step_size=float("nan")), ValueError, r"^attack_step_size must be a finite number >= 0"),
        (dict(discard_threshold="0.4"), TypeError, r"^discard_threshold must be a probability in \[0, 1\].*str '0.4'"),
        (dict(discard_threshold=None), TypeError, r"^discard_threshold must be a probability in \[0, 1\]"),
        (dict(reweight_p_min=float("nan")), ValueError, r"^reweight_p_min must be a number in \[0, 1\]"),
    ]
    for kw, error, message in refused:
        with pytest.raises(error, match=message):
            RSTrainConfig(**kw)
    # accepted as before: numpy scalars, a list, no milestone at all, a milestone after the last epoch
    RSTrainConfig(seed=np.int64(3), epochs=np.int64(4), momentum=0, weight_decay=0, gamma=np.float32(0.5))
    RSTrainConfig(epochs=4, milestones=[1, 3], discard=np.bool_(True))
    RSTrainConfig(epochs=4, milestones=())
    RSTrainConfig(epochs=4, milestones=(10,))
    # every configuration the settings file builds still passes
    for profile in ("smoke", "default", "long", "gpu", "paper"):
        config = resolve("acr_rs_training", profile)
        for sigma in config["sigmas"]:
            for variant in VARIANTS:
                rs_config({"variant": variant, "sigma": sigma, "seed": config["seeds"][0]}, config)


def test_constant_p_acr_checks_n_and_p_a():
    """Probe E finding 9: n was cast with astype(int64): 100.7 became 100, 1e20 and NaN the int64 minimum; a
    text, None or array p_a gave Python's or numpy's errors."""
    from robeval.acr import theory

    assert theory.constant_p_acr(0.9, 100, 0.001, 1.0)[0] == pytest.approx(0.76714211, abs=1e-8)  # as before
    with pytest.raises(ValueError, match=r"^n must be a whole number of noise draws, got 100.7; a budget is never"):
        theory.constant_p_acr(0.9, 100.7, 0.001, 1.0)
    with pytest.raises(ValueError, match=r"^n must be below 2\*\*63 = 9.2e18 here .*got 1e\+20"):
        theory.constant_p_acr(0.9, 1e20, 0.001, 1.0)
    with pytest.raises(ValueError, match=r"^n must be below 2\*\*63 .*got 1e\+19"):
        theory.constant_p_acr(0.9, [100, 1e19], 0.001, 1.0)
    with pytest.raises(ValueError, match=r"^n must be a finite whole number of noise draws, got nan"):
        theory.constant_p_acr(0.9, float("nan"), 0.001, 1.0)
    for p_a in ("0.9", None, np.array([0.9, 0.8]), True):
        with pytest.raises(TypeError, match=r"^p_a must be one number in \(0, 1\]"):
            theory.constant_p_acr(p_a, 100, 0.001, 1.0)
    with pytest.raises(ValueError, match=r"^p_a must be in \(0, 1\], got nan"):
        theory.constant_p_acr(float("nan"), 100, 0.001, 1.0)


def test_write_certification_tsv_says_radii_have_3_significant_digits(tmp_path):
    """Probe E finding 12: the radii are written with %.3g (the published files' format) without saying so."""
    from robeval.acr.files import write_certification_tsv

    assert "3 significant digits" in " ".join(write_certification_tsv.__doc__.split())
    df = _frame()
    df["radius"] = [0.123456789, 0.0]
    back = acr.read_certification(acr.write_certification_tsv(df, tmp_path / "c.tsv"))
    assert back.radius.tolist() == [0.123, 0.0]  # the documented rounding
    assert acr.acr(back) == pytest.approx(0.123 / 2) and acr.acr(df) == pytest.approx(0.123456789 / 2)


def test_huge_budgets_are_value_errors_naming_n():
    """Probe E finding 14: OverflowError escaped for budgets beyond int64 / float64."""
    from robeval.acr import theory

    for n in (10**19, 10**30, 1e30):
        with pytest.raises(
            ValueError, match=r"^n must be below 2\*\*62 = 4.6e18 here .*int64.*pass a smaller budget n"
        ):
            acr.certified_accuracy_from_ecdf([0.5, 1.0], [0.8, 0.2], [0.1], n=n, alpha=0.001, sigma=0.25)
        with pytest.raises(ValueError, match=r"^n must be below 2\*\*62"):
            theory.min_count_for_radius(0.1, n, 0.001, 1.0)
    smallest = theory.min_count_for_radius([0.0, 10.0], 1000, 0.001, 1.0)  # a budget below the limit: as before
    assert smallest[0] == 550.0 and np.isnan(smallest[1])
    assert acr.clopper_pearson_lower(549, 1000, 0.001) < 0.5 <= acr.clopper_pearson_lower(550, 1000, 0.001)
    smooth = acr.Smooth(lambda z: np.zeros(len(z), dtype=int), 2, 0.25)
    with pytest.raises(
        ValueError, match=r"^this call would make more noise draws than a float64 holds \(len\(x\) \* \(n0 \+ n\)\)"
    ):
        smooth.certify(np.zeros((2, 2)), n0=10, n=1e308, alpha=0.001, seed=0)
    with pytest.raises(ValueError, match=r"^n must be a number of draws representable as a float64 \(<= 1.8e308\)"):
        smooth.certify(np.zeros((1, 2)), n0=10, n=10**400, alpha=0.001, seed=0)


def test_n0_hint_only_where_the_function_takes_n0_and_n():
    """Probe E finding 18: "Cohen et al. use n0=100 and n=100000" was appended for functions without n0."""
    from robeval.acr import theory

    df = _frame()
    smooth, x = _smooth(), np.zeros((1, 4), dtype=np.float32)
    for call, name in (
        (lambda: acr.ecdf_from_certification(df, 0.25, n=0), "n"),
        (lambda: acr.certified_accuracy_from_ecdf([0.5, 1.0], [0.8, 0.2], [0.1], n=0, alpha=0.001, sigma=0.25), "n"),
        (lambda: theory.min_count_for_radius(0.1, 0, 0.001, 1.0), "n"),
        (lambda: smooth.certify_radius(x, 0.1, 10, 100, 0.001, seed=0, n_start=0), "n_start"),
        (lambda: smooth.predict(x, 0, 0.001, seed=0), "n"),
    ):
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == f"{name} must be >= 1 (number of noise draws), got 0."
    cohen = "must be >= 1 (number of noise draws), got 0; Cohen et al. use n0=100 and n=100000."
    for call, name in (
        (lambda: smooth.certify(x, 10, 0, 0.001, seed=0), "n"),
        (lambda: smooth.certify(x, 0, 10, 0.001, seed=0), "n0"),
        (lambda: smooth.certify_dataset(x, [0], 0, 100, progress=False), "n0"),
    ):
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == f"{name} {cohen}"


def test_idx_beyond_int64_is_reported_as_such():
    """Probe E finding 23: a uint64 index 2**64 - 1 was reported as "the negative index -1"."""
    from robeval.core.validation import check_indices

    smooth, x = _smooth(), np.zeros((3, 4), dtype=np.float32)
    with pytest.raises(ValueError, match=r"^idx holds 18446744073709551615, beyond int64 \(indices are < 2\*\*63"):
        smooth.certify_dataset(x, [0, 1, 0], 10, 100, idx=np.array([2**64 - 1, 0, 1], dtype=np.uint64), progress=False)
    with pytest.raises(ValueError, match=r"^idx holds 1e\+19, beyond int64"):
        check_indices(np.array([1e19, 0.0]))
    with pytest.raises(ValueError, match=r"^idx holds the negative index -1"):
        check_indices([-1, 0])
    out = check_indices(np.array([2**63 - 1, 0], dtype=np.uint64))  # the largest index int64 holds: as before
    assert out.dtype == np.int64 and out.tolist() == [2**63 - 1, 0]


def test_certification_frames_name_repeated_columns_missing_outcomes_and_text_labels():
    """Probe F #12: a column twice or a MultiIndex gave pandas' 'arg must be a list, tuple, 1-d array, or Series', a
    pd.NA outcome 'boolean value of NA is ambiguous', and text labels were blamed on `correct`."""
    cert = pd.DataFrame(
        {"idx": [0, 1, 2, 3], "label": [0, 1, 1, 0], "predict": [0, 1, -1, 1], "radius": [0.5, 0.25, 0.0, 0.1]}
    ).assign(correct=[1, 1, 0, 0])
    assert acr.acr(cert) == pytest.approx((0.5 + 0.25) / 4)
    # documented correct answers: True/False outcomes and nullable integer labels without a missing value
    assert acr.acr(cert.assign(correct=[True, True, False, False])) == pytest.approx(0.1875)
    assert acr.acr(cert.assign(label=pd.array([0, 1, 1, 0], dtype="Int64"))) == pytest.approx(0.1875)
    with pytest.raises(ValueError, match=r"^df has the column 'radius' 2 times \(columns .*drop or rename"):
        acr.acr(pd.concat([cert, cert[["radius"]]], axis=1))
    with pytest.raises(ValueError, match=r"^df has 2 levels of column names \(a MultiIndex"):
        acr.acr(cert.set_axis(pd.MultiIndex.from_arrays([cert.columns] * 2), axis=1))
    missing = cert.assign(correct=pd.array([True, True, pd.NA, False], dtype="boolean"))
    with pytest.raises(ValueError, match=r"^df\['correct'\] must hold whole numbers, but row 2 holds a missing value"):
        acr.acr(missing)
    for dtype in ("string", "object"):
        with pytest.raises(ValueError, match=rf"^df\['label'\] must hold whole numbers .*got dtype {dtype}"):
            acr.acr(cert.assign(label=cert["label"].astype(dtype)))
    with pytest.raises(ValueError, match=r"^df\['predict'\] must hold whole numbers, but row 1 holds 1.5"):
        acr.acr(cert.assign(predict=[0, 1.5, -1, 1]))
