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
