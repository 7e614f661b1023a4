"""Probe L's Minor list on robeval.core.ledger: a ledger whose paper is not its notebook's, a paper value given as
text and a p-value of an interval whose low lies above its high are refused by name."""

import math
import re

import pytest

from robeval.core import stats
from robeval.core.ledger import Ledger, p_value

R = dict(evidence="replication", unit="forest runs")


def test_a_ledger_whose_paper_is_not_its_notebooks_is_refused():
    # Minor: Ledger("acr", "01_mscr_2d", "default") was accepted
    with pytest.raises(
        ValueError,
        match=re.escape(
            "notebook '01_mscr_2d' reproduces the paper 'mscr' (settings/mscr_2d.toml), not 'acr': a ledger's paper "
            "is its notebook's; pass paper='mscr'."
        ),
    ):
        Ledger(paper="acr", notebook="01_mscr_2d", profile="default")
    assert Ledger(paper="mscr", notebook="01_mscr_2d", profile="default").paper == "mscr"
    assert Ledger(paper="acr", notebook="99_test", profile="default").notebook == "99_test"  # not a compendium one
    with pytest.raises(ValueError, match=r"^notebook '\.\./x' must be a plain name"):
        Ledger(paper="acr", notebook="../x", profile="default")


def test_a_paper_value_given_as_text_is_refused():
    # Minor: Ledger.value(paper="1.0") was read as the number 1.0
    led = Ledger(paper="mscr", notebook="99_test", profile="default")
    iv = stats.Interval(1.0, 0.9, 1.1, 0.05, 8, 0.95, "t")
    with pytest.raises(TypeError, match=re.escape("paper must be a number, got '1.0'; pass float(...).")):
        led.value("a", "T", "x", paper="1.0", margin=0.5, interval=iv, margin_basis="m", **R)
    assert led.value("b", "T", "x", paper=1.0, margin=0.5, interval=iv, margin_basis="m", **R).paper_value == 1.0


def test_p_value_refuses_an_interval_whose_low_lies_above_its_high():
    # Minor: p_value(Interval(1.0, 2.0, 0.0, ...)) returned a p-value
    with pytest.raises(ValueError, match=r"^the interval .* needs a finite estimate and low <= high\."):
        p_value(stats.Interval(1.0, 2.0, 0.0, 0.5, 8, 0.95, "t"))
    # a method that is no t-interval: the normal approximation, 2 sf(2)
    assert p_value(stats.Interval(1.0, 0.0, 2.0, 0.5, 8, 0.95, "t")) == pytest.approx(0.0455, abs=1e-4)
    assert p_value(stats.Interval(1.0, 0, 2, math.nan, 5, 0.95, "x")) is None
