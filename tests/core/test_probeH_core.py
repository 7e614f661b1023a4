"""Probe H of issue 62 (#2, #3, #6): the mean's interval at any scale, ledgers that are FIFOs or devices, and ledger
text shown as HTML."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from fifos import fifo
from robeval import mscr
from robeval.__main__ import main
from robeval.core import paths as project
from robeval.core.stats import mean_interval

LEDGERS = Path(__file__).resolve().parents[2] / "results" / "default" / "claims"


# --- #2: mean and std of values near 1e-300 and 1e300 ----------------------------------------------------------


@pytest.mark.parametrize("k", [-1000, -900, 900, 1020])
def test_mean_ci_and_mean_interval_scale_exactly(k):
    """Values scaled by 2**k get the interval of the unscaled values scaled by 2**k, exactly (the std squared
    underflowed to 0 near 1e-300 and overflowed to inf near 1e300). Normal floats: subnormal ones round apart."""
    v = np.array([1.0, 1.5, 2.0])
    s = 2.0**k
    mean, std, margin, n = mscr.mean_ci(v)
    assert mscr.mean_ci(v * s) == (mean * s, std * s, margin * s, n)
    iv, ivs = mean_interval(v), mean_interval(v * s)
    assert (ivs.estimate, ivs.low, ivs.high, ivs.se) == (iv.estimate * s, iv.low * s, iv.high * s, iv.se * s)
    assert ivs.high > ivs.low > 0


def test_ordinary_values_keep_the_direct_formula_bit_for_bit():
    """Every ordinary sample: numpy's mean and std(ddof=1) as they are (the committed ledgers rest on them)."""
    from scipy import stats

    gen = np.random.default_rng(62)
    samples = [
        np.array([0.91, 0.93, 0.92]),
        gen.normal(0.5, 0.1, 10),
        gen.uniform(0, 100, 7),
        np.array([1e-30, 3e-30, 2.5e-30]),
        np.array([-4.0e40, 1.0e41, 2.0e40, 7.0e40]),
        gen.normal(0, 1e-5, 30),
    ]
    for v in samples:
        n = len(v)
        std = float(v.std(ddof=1))
        margin = float(stats.t.ppf(0.975, n - 1) * std / math.sqrt(n))
        assert mscr.mean_ci(v) == (float(v.mean()), std, margin, n)
        iv = mean_interval(v)
        se = float(v.std(ddof=1) / math.sqrt(n))
        t = float(stats.t.ppf(0.975, n - 1))
        assert (iv.estimate, iv.se, iv.low, iv.high) == (float(v.mean()), se, v.mean() - t * se, v.mean() + t * se)


def test_a_std_beyond_the_largest_float_is_refused():
    with pytest.raises(ValueError, match=r"^values spread wider than a float holds \(largest magnitude 1.7e\+308\)"):
        mean_interval([-1.7e308, 1.7e308])


# --- #3: a ledger that is a FIFO, a link to /dev/zero, or too large ---------------------------------------------


def _start(path, kind):
    return rf"^robeval: ledger {re.escape(repr(str(path)))} is {kind}, not a regular file: reading it would block"


def _one_line(capsys, pattern):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.match(pattern, err), err
    assert "a ledger is a regular <notebook>.json file" in err, err


def _our_ledgers(tmp_results):
    ours = project.results_dir("default") / "claims"
    ours.mkdir(parents=True)
    shutil.copy(LEDGERS / "01_mscr_2d.json", ours)
    return ours


def test_compare_refuses_a_fifo_and_a_device_in_the_other_folder(tmp_results, tmp_path, capsys):
    _our_ledgers(tmp_results)
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(LEDGERS / "01_mscr_2d.json", other)
    with fifo(other / "02_x.json") as path:
        assert main(["compare", str(other)]) == 2
        _one_line(capsys, _start(path, r"a FIFO \(named pipe\)"))
    (other / "02_x.json").unlink()
    # a device that reads empty (as /dev/zero does not): the old code failed at once, never filled the memory
    (other / "02_x.json").symlink_to("/dev/null")
    assert main(["compare", str(other)]) == 2
    _one_line(capsys, _start(other / "02_x.json", r"a device \(through a link\)"))


def test_report_and_plan_refuse_a_fifo_among_the_ledgers(tmp_results, capsys):
    ours = _our_ledgers(tmp_results)
    with fifo(ours / "02_x.json") as path:
        assert main(["report", "--profile", "default"]) == 2
        _one_line(capsys, _start(path, r"a FIFO \(named pipe\)"))
        assert main(["plan", "--budget-min", "60"]) == 2
        _one_line(capsys, _start(path, r"a FIFO \(named pipe\)"))


def test_the_ledger_readers_refuse_a_device_and_a_file_over_the_cap(tmp_results, monkeypatch):
    from robeval.core.ledger import load_ledgers, store
    from robeval.core.publish.report import compare_ledgers

    ours = _our_ledgers(tmp_results)
    (ours / "02_x.json").symlink_to("/dev/null")  # a device that reads empty, as in the test above
    with pytest.raises(ValueError, match=r"^ledger '.*02_x.json' is a device \(through a link\), not a regular file"):
        load_ledgers("default")
    with pytest.raises(ValueError, match=r"^ledger '.*02_x.json' is a device \(through a link\), not a regular file"):
        compare_ledgers(ours, ours)
    (ours / "02_x.json").unlink()
    size = (ours / "01_mscr_2d.json").stat().st_size
    monkeypatch.setattr(store, "LEDGER_MAX_BYTES", size - 1)
    with pytest.raises(ValueError, match=rf"^ledger '.*01_mscr_2d.json' has {size:,} bytes, more than such a file"):
        load_ledgers("default")


def test_read_json_refuses_a_fifo(tmp_path):
    from robeval.core.io import read_json

    with fifo(tmp_path / "x.json") as path:
        with pytest.raises(ValueError, match=rf"^{re.escape(str(path))} is a FIFO \(named pipe\), not a regular file"):
            read_json(path)


def test_read_json_refuses_a_repeated_key_naming_the_file_and_the_key(tmp_results, tmp_path, capsys):
    """Probe J F15: a ledger row holding "verdict" twice was read last-wins, so ``compare`` and ``verify`` saw one
    verdict and a reader taking the first key another."""
    from robeval.core.io import read_json

    path = tmp_path / "x.json"
    path.write_text('{"a": 1, "b": {"c": 2, "c": 3}}')
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))} holds the key 'c' twice in one JSON object"):
        read_json(path)
    path.write_text('{"a": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 4}]}')  # the same key in two objects is fine
    assert read_json(path) == {"a": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 4}]}
    _our_ledgers(tmp_results)
    other = tmp_path / "other"
    other.mkdir()
    text = (LEDGERS / "01_mscr_2d.json").read_text()
    verdict = re.search(r'"verdict": "[a-z_]+",', text).group()
    (other / "01_mscr_2d.json").write_text(text.replace(verdict, '"verdict": "erratum", ' + verdict, 1))
    assert main(["compare", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds the key 'verdict' twice in one JSON object" in err, err
    assert str(other / "01_mscr_2d.json") in err
    assert (
        err.count("not a ledger") == 0 and err.count("Remove it") == 0 and err.count("(") < 4
    )  # said once, not nested


# --- #6: ledger text in HTML and Markdown -----------------------------------------------------------------------


def _ledger():
    from robeval.core import Ledger

    ledger = Ledger(paper="mscr", notebook="x", profile="default")
    ledger.fact(
        "a1", "Fig 1 <script>alert(1)</script>", "desc <img src=x onerror=alert(2)> a | b", holds=True, basis="b",
        evidence="derivation", unit="none (exact)", about="data",
    )  # fmt: skip
    return ledger


def test_show_ledger_escapes_ledger_text():
    from robeval.core import show_ledger

    ledger = _ledger()
    for shown in (show_ledger(ledger).to_html(), show_ledger(ledger.table()).to_html()):
        assert "<script>" not in shown and "<img" not in shown
        assert "Fig 1 &lt;script&gt;alert(1)&lt;/script&gt;" in shown
        assert "desc &lt;img src=x onerror=alert(2)&gt; a | b" in shown


def test_short_index_markdown_writes_no_raw_html():
    from robeval.core import short_index

    md = short_index(_ledger()).to_markdown()
    assert "<img" not in md and "<script" not in md
    assert "| desc &lt;img src=x onerror=alert(2)> a \\| b |" in md
