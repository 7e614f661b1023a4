"""The claims ledger: every rule kind can return each of its verdicts, and bad input is refused."""

import math

import numpy as np
import pytest

from robeval.core import stats
from robeval.core.ledger import (
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    Ledger,
    load_claims,
)
from robeval.core.report import report


def _iv(est, lo, hi, n=8, se=None):
    return stats.Interval(est, lo, hi, (hi - lo) / 4 if se is None else se, n, 0.95, "test")


def ledger(profile="default"):
    return Ledger(paper="mscr", notebook="99_test", profile=profile)


# ------------------------------------------------------------------------------------------ value rule
def test_value_rule_returns_each_verdict():
    led = ledger()
    # CI inside paper ± margin: reproduced
    assert led.value("a", "T", "x", paper=10.0, margin=0.5, interval=_iv(10.1, 9.8, 10.4)).verdict == REPRODUCED
    # CI entirely outside paper ± margin: contradicted
    assert led.value("b", "T", "x", paper=10.0, margin=0.5, interval=_iv(12.0, 11.0, 13.0)).verdict == CONTRADICTED
    # CI contains the paper value but is wider than the margin: inconclusive, with the runs that would decide
    c = led.value("c", "T", "x", paper=10.0, margin=0.5, interval=_iv(10.2, 8.0, 12.4, n=8))
    assert c.verdict == INCONCLUSIVE and "runs" in c.decides
    # the half-width 2.2 must shrink to 0.3 (margin minus the distance 0.2): 8 * (2.2/0.3)^2 = 431 runs
    assert c.decides.startswith("≈431 runs")
    # an exact estimate: |Δ| <= margin
    assert led.value("d", "T", "x", paper=0.008026, margin=5e-7, estimate=0.0080262).verdict == REPRODUCED
    assert led.value("e", "T", "x", paper=0.008026, margin=5e-7, estimate=0.0081).verdict == CONTRADICTED
    assert 0 <= led.claims[0].power <= 1 and led.claims[0].rule.startswith("equivalence")


def test_value_rule_power_is_the_chance_to_confirm_a_true_value():
    led = ledger()
    narrow = led.value("a", "T", "x", paper=0.0, margin=1.0, interval=_iv(0.0, -0.2, 0.2, se=0.1))
    wide = led.value("b", "T", "x", paper=0.0, margin=1.0, interval=_iv(0.0, -2.0, 2.0, se=1.0))
    assert narrow.power > 0.99 and wide.power == 0.0


# ------------------------------------------------------------------------------ comparisons and trends
def test_comparison_rule_returns_each_verdict():
    led = ledger()
    assert led.comparison("a", "S", "A > B", interval=_iv(0.5, 0.1, 0.9)).verdict == REPRODUCED
    assert led.comparison("b", "S", "A > B", interval=_iv(-0.5, -0.9, -0.1)).verdict == CONTRADICTED
    c = led.comparison("c", "S", "A > B", interval=_iv(0.05, -0.3, 0.4), effect=0.5)
    assert c.verdict == INCONCLUSIVE and c.power is not None and 0 < c.power < 1
    # the claimed direction matters
    assert led.comparison("d", "S", "A < B", interval=_iv(0.5, 0.1, 0.9), direction="<").verdict == CONTRADICTED
    t = led.comparison("e", "S", "rises", interval=_iv(0.9, 0.6, 1.0), kind="trend")
    assert t.verdict == REPRODUCED and t.kind == "trend" and "rank correlation" in t.rule


def test_trend_and_paired_intervals_from_runs_decide_as_they_should():
    rng = np.random.default_rng(0)
    levels = np.arange(6)
    rising = levels + rng.normal(0, 0.3, size=(10, 6))
    flat = rng.normal(0, 1.0, size=(10, 6))
    led = ledger()
    assert (
        led.comparison("up", "S", "rises", interval=stats.trend_interval(levels, rising), kind="trend").verdict
        == REPRODUCED
    )
    assert (
        led.comparison(
            "down", "S", "falls", interval=stats.trend_interval(levels, rising), kind="trend", direction="<"
        ).verdict
        == CONTRADICTED
    )
    assert (
        led.comparison("flat", "S", "rises", interval=stats.trend_interval(levels, flat), kind="trend").verdict
        == INCONCLUSIVE
    )
    a, b = rng.normal(1.0, 0.1, 12), rng.normal(0.0, 0.1, 12)
    iv = stats.paired_interval(a, b)
    assert iv.low > 0.8 and led.comparison("ab", "S", "A > B", interval=iv).verdict == REPRODUCED


def test_fact_and_consistency_rules():
    led = ledger()
    assert led.fact("a", "T1", "2r", holds=True, basis="exhaustive search").verdict == REPRODUCED
    assert led.fact("b", "T1", "2r", holds=False, basis="exhaustive search").verdict == CONTRADICTED
    assert (
        led.consistency("c", "T3", "printed = file", holds=True, check="recomputed from the file").verdict
        == CONSISTENCY
    )
    assert (
        led.consistency("d", "T3", "printed = file", holds=False, check="recomputed from the file").verdict == ERRATUM
    )
    with pytest.raises(ValueError, match="basis"):
        led.fact("e", "T1", "x", holds=True, basis="")


def test_profiles_that_scale_the_protocol_down_are_not_comparable():
    led = ledger("smoke")
    c = led.value("a", "T", "x", paper=1.0, margin=0.1, interval=_iv(1.0, 0.95, 1.05))
    assert c.verdict == NOT_COMPARABLE and "default" in c.decides
    # consistency checks of the authors' artefacts hold or fail at every profile
    assert led.consistency("b", "T", "x", holds=False, check="c", comparable_at=("paper",)).verdict == ERRATUM


# -------------------------------------------------------------------------------------------- bad input
def test_bad_claims_are_refused():
    led = ledger()
    with pytest.raises(ValueError, match="finite"):
        led.value("a", "T", "x", paper=math.nan, margin=0.1, estimate=1.0)
    with pytest.raises(ValueError, match="finite"):
        led.value("a", "T", "x", paper=1.0, margin=0.1, estimate=math.nan)
    with pytest.raises(ValueError, match="margin must be >= 0"):
        led.value("a", "T", "x", paper=1.0, margin=-0.1, estimate=1.0)
    with pytest.raises(ValueError, match="either interval"):
        led.value("a", "T", "x", paper=1.0, margin=0.1)
    with pytest.raises(TypeError, match="Interval"):
        led.comparison("a", "T", "x", interval=(0.1, 0.2))
    with pytest.raises(ValueError, match="low <= high"):
        led.comparison("a", "T", "x", interval=_iv(0.0, 1.0, -1.0))
    with pytest.raises(ValueError, match="direction"):
        led.comparison("a", "T", "x", interval=_iv(0.1, 0.0, 0.2), direction="bigger")
    led.fact("ok", "T", "x", holds=True, basis="b")
    with pytest.raises(ValueError, match="recorded twice"):
        led.fact("ok", "T", "x", holds=True, basis="b")
    with pytest.raises(ValueError, match="plain name"):
        led.fact("../x", "T", "x", holds=True, basis="b")
    with pytest.raises(ValueError, match="unknown profile"):
        led.fact("p", "T", "x", holds=True, basis="b", comparable_at=("laptop",))


def test_ledger_validates():
    with pytest.raises(ValueError, match="Unknown paper"):
        Ledger(paper="Nope", notebook="x", profile="smoke")
    with pytest.raises(ValueError, match="Unknown profile"):
        Ledger(paper="mscr", notebook="x", profile="laptop")
    with pytest.raises(ValueError, match="plain name"):
        Ledger(paper="mscr", notebook="../../etc/x", profile="smoke")


# ------------------------------------------------------------------------------- coverage and report
def test_claims_index_must_match_the_recorded_claims(tmp_results):
    led = ledger("smoke")
    led.fact("t1_a", "Table 1", "x", holds=True, basis="b")
    led.cover(
        [
            {"source": "Table 1", "statement": "s", "claims": ["t1_*"]},
            {"source": "Fig. 9", "statement": "s", "reason": "needs ImageNet"},
        ]
    )
    led.save()
    led.fact("stray", "T", "x", holds=True, basis="b")
    with pytest.raises(ValueError, match="in no index entry"):
        led.save()
    with pytest.raises(ValueError, match="no claims and gives no reason"):
        led.cover([{"source": "T", "statement": "s"}])


def test_ledger_roundtrip_and_report(tmp_results):
    led = Ledger(paper="mscr", notebook="99_test", profile="smoke")
    led.value(
        "a",
        "Table 1",
        "2r of B",
        paper=0.008026,
        margin=1e-6,
        estimate=0.008026,
        comparable_at=("smoke",),
        central=True,
    )
    led.value(
        "b", "Table 2", "clean acc", paper=99.53, margin=0.1, interval=_iv(97.0, 96.5, 97.5), comparable_at=("smoke",)
    )
    led.value("c", "Table 2", "clean acc default-only", paper=99.53, margin=0.1, estimate=99.5)
    led.consistency("d", "Table 3", "printed = file", holds=False, check="recomputed")
    led.cover([{"source": "Tables 1-3", "statement": "all", "claims": ["*"]}])
    led.save()
    df = load_claims("smoke")
    assert df.verdict.tolist() == [REPRODUCED, CONTRADICTED, NOT_COMPARABLE, ERRATUM]
    text = report("smoke")
    assert "| Siedel et al. 2022 — class separation and MSCR | 1 | 1 | 0 | 1 | 0 | 1 | 4 |" in text
    assert "### Central claims" in text and "### Coverage of the paper's statements" in text
    assert (tmp_results / "build_dir" / "smoke" / "results" / "CLAIMS.md").is_file()
