"""The claims ledger: every rule kind can return each of its verdicts, and bad input is refused."""

import json
import math

import numpy as np
import pytest

from robeval.core import stats
from robeval.core.ledger import (
    CONSISTENCY,
    CONTRADICTED,
    ERRATUM,
    EXACT,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    REPRODUCED,
    ROUNDING,
    RUN_SPREAD,
    Ledger,
    load_claims,
)
from robeval.core.publish.report import report

R = dict(evidence="replication", unit="forest runs")  # a replication row over independent runs
X = dict(evidence="replication")  # an exact replication row (no interval)
MB = "the test's margin"


def _iv(est, lo, hi, n=8, se=None):
    return stats.Interval(est, lo, hi, (hi - lo) / 4 if se is None else se, n, 0.95, "test")


def ledger(profile="default"):
    return Ledger(paper="mscr", notebook="99_test", profile=profile)


# ------------------------------------------------------------------------------------------ value rule
def test_value_rule_returns_each_verdict():
    led = ledger()
    # CI inside paper ± margin: reproduced
    assert (
        led.value("a", "T", "x", paper=10.0, margin=0.5, interval=_iv(10.1, 9.8, 10.4), margin_basis=MB, **R).verdict
        == REPRODUCED
    )
    # CI entirely outside paper ± margin: contradicted
    assert (
        led.value("b", "T", "x", paper=10.0, margin=0.5, interval=_iv(12.0, 11.8, 12.2), margin_basis=MB, **R).verdict
        == CONTRADICTED
    )
    # CI contains the paper value but is wider than the margin: inconclusive, with the runs that would decide
    c = led.value("c", "T", "x", paper=10.0, margin=0.5, interval=_iv(10.2, 8.0, 12.4, n=8), margin_basis=MB, **R)
    assert c.verdict == INCONCLUSIVE and "runs" in c.decides
    # the half-width 2.2 must shrink to 0.3 (margin minus the distance 0.2): 8 * (2.2/0.3)^2 = 431 runs
    assert c.decides.startswith("≈431 forest runs (now 8)")
    # an exact estimate: |Δ| <= margin
    assert led.value("d", "T", "x", paper=0.008026, margin=5e-7, estimate=0.0080262, **X).verdict == REPRODUCED
    assert led.value("e", "T", "x", paper=0.008026, margin=5e-7, estimate=0.0081, **X).verdict == CONTRADICTED
    assert 0 <= led.claims[0].power <= 1 and led.claims[0].rule.startswith("equivalence")


def test_value_rule_power_is_the_chance_to_confirm_a_true_value():
    led = ledger()
    narrow = led.value("a", "T", "x", paper=0.0, margin=1.0, interval=_iv(0.0, -0.2, 0.2, se=0.1), margin_basis=MB, **R)
    wide = led.value("b", "T", "x", paper=0.0, margin=1.0, interval=_iv(0.0, -2.0, 2.0, se=1.0), margin_basis=MB, **R)
    assert narrow.power > 0.99 and wide.power == 0.0


# ------------------------------------------------------------------------------ comparisons and trends
def test_comparison_rule_returns_each_verdict():
    led = ledger()
    assert led.comparison("a", "S", "A > B", interval=_iv(0.5, 0.1, 0.9), **R).verdict == REPRODUCED
    assert led.comparison("b", "S", "A > B", interval=_iv(-0.5, -0.9, -0.1), **R).verdict == CONTRADICTED
    c = led.comparison("c", "S", "A > B", interval=_iv(0.05, -0.3, 0.4), effect=0.5, **R)
    assert c.verdict == INCONCLUSIVE and c.power is not None and 0 < c.power < 1
    # the claimed direction matters
    assert led.comparison("d", "S", "A < B", interval=_iv(0.5, 0.1, 0.9), direction="<", **R).verdict == CONTRADICTED
    t = led.comparison("e", "S", "rises", interval=_iv(0.9, 0.6, 1.0), kind="trend", **R)
    assert t.verdict == REPRODUCED and t.kind == "trend" and "rank correlation" in t.rule


def test_trend_and_paired_intervals_from_runs_decide_as_they_should():
    rng = np.random.default_rng(0)
    levels = np.arange(6)
    rising = levels + rng.normal(0, 2.0, size=(40, 6))  # the mean curve's ranks vary between resamples
    flat = rng.normal(0, 1.0, size=(10, 6))
    led = ledger()
    # a trend every resample agrees on (rho = 1 in all 2000) is a zero-width interval: its p is the bootstrap's
    # resolution 2 / 2001, not 0
    saturated = stats.trend_interval(levels, levels + rng.normal(0, 0.3, size=(10, 6)))
    assert saturated.low == saturated.high == 1.0
    sat = led.comparison("sat", "S", "rises", interval=saturated, kind="trend", **R)
    assert sat.verdict == REPRODUCED and sat.p_value == pytest.approx(2 / 2001, rel=1e-3)
    assert (
        led.comparison("up", "S", "rises", interval=stats.trend_interval(levels, rising), kind="trend", **R).verdict
        == REPRODUCED
    )
    assert (
        led.comparison(
            "down", "S", "falls", interval=stats.trend_interval(levels, rising), kind="trend", direction="<", **R
        ).verdict
        == CONTRADICTED
    )
    assert (
        led.comparison("flat", "S", "rises", interval=stats.trend_interval(levels, flat), kind="trend", **R).verdict
        == INCONCLUSIVE
    )
    a, b = rng.normal(1.0, 0.1, 12), rng.normal(0.0, 0.1, 12)
    iv = stats.paired_interval(a, b)
    assert iv.low > 0.8 and led.comparison("ab", "S", "A > B", interval=iv, **R).verdict == REPRODUCED


def test_a_row_comparable_at_two_profiles_is_comparable_at_every_profile_between():
    from robeval.core.ledger import comparable_span

    assert comparable_span(("default", "paper")) == ("default", "long", "gpu", "paper")
    assert comparable_span(("paper", "default")) == ("default", "long", "gpu", "paper")
    assert comparable_span(("paper",)) == ("paper",) and comparable_span(()) == ()
    assert comparable_span(("smoke", "default")) == ("smoke", "default")
    with pytest.raises(ValueError, match="unknown profile"):
        comparable_span(("default", "laptop"))
    # so a default-and-paper row decides at gpu, and a paper-only row stays not comparable there
    led = ledger("gpu")
    c = led.comparison("c", "T", "x", interval=_iv(0.5, 0.2, 0.8), direction=">", **R)
    assert c.verdict == REPRODUCED and c.evidence == "replication"
    v = led.value("v", "T", "x", paper=1.0, margin=0.1, interval=_iv(1.0, 0.95, 1.05), margin_basis=MB,
                  comparable_at=("paper",), **R)  # fmt: skip
    assert v.verdict == NOT_COMPARABLE and "not at the gpu profile (comparable at: paper)" in v.mechanism


def test_fact_and_consistency_rules():
    led = ledger()
    assert led.fact("a", "T1", "2r", holds=True, basis="exhaustive search", **X).verdict == REPRODUCED
    assert led.fact("b", "T1", "2r", holds=False, basis="exhaustive search", **X).verdict == CONTRADICTED
    assert (
        led.consistency("c", "T3", "printed = file", holds=True, check="recomputed", noise_basis=EXACT).verdict
        == CONSISTENCY
    )
    assert (
        led.consistency("d", "T3", "printed = file", holds=False, check="recomputed", noise_basis=EXACT).verdict
        == ERRATUM
    )
    # an erratum without a noise test is none: the row stays inconclusive and says what would decide it
    bare = led.consistency("d2", "T3", "printed = file", holds=False, check="recomputed from the file")
    assert bare.verdict == INCONCLUSIVE and "own noise" in bare.decides
    with pytest.raises(ValueError, match="basis"):
        led.fact("e", "T1", "x", holds=True, basis="", **X)


def test_profiles_that_scale_the_protocol_down_are_not_comparable():
    led = ledger("smoke")
    c = led.value("a", "T", "x", paper=1.0, margin=0.1, interval=_iv(1.0, 0.95, 1.05), margin_basis=MB, **R)
    assert c.verdict == NOT_COMPARABLE and "default" in c.decides
    # consistency checks of the authors' artefacts hold or fail at every profile
    assert (
        led.consistency("b", "T", "x", holds=False, check="c", comparable_at=("paper",), noise_basis=EXACT).verdict
        == ERRATUM
    )


# -------------------------------------------------------------------------------------------- bad input
def test_bad_claims_are_refused():
    led = ledger()
    with pytest.raises(ValueError, match="finite"):
        led.value("a", "T", "x", paper=math.nan, margin=0.1, estimate=1.0, **X)
    with pytest.raises(ValueError, match="finite"):
        led.value("a", "T", "x", paper=1.0, margin=0.1, estimate=math.nan, **X)
    with pytest.raises(ValueError, match="margin must be >= 0"):
        led.value("a", "T", "x", paper=1.0, margin=-0.1, estimate=1.0, **X)
    with pytest.raises(ValueError, match="either interval"):
        led.value("a", "T", "x", paper=1.0, margin=0.1, **X)
    with pytest.raises(TypeError, match="Interval"):
        led.comparison("a", "T", "x", interval=(0.1, 0.2), **R)
    with pytest.raises(ValueError, match="low <= high"):
        led.comparison("a", "T", "x", interval=_iv(0.0, 1.0, -1.0), **R)
    with pytest.raises(ValueError, match="direction"):
        led.comparison("a", "T", "x", interval=_iv(0.1, 0.0, 0.2), direction="bigger", **R)
    led.fact("ok", "T", "x", holds=True, basis="b", **X)
    with pytest.raises(ValueError, match="recorded twice"):
        led.fact("ok", "T", "x", holds=True, basis="b", **X)
    with pytest.raises(ValueError, match="plain name"):
        led.fact("../x", "T", "x", holds=True, basis="b", **X)
    with pytest.raises(ValueError, match="unknown profile"):
        led.fact("p", "T", "x", holds=True, basis="b", comparable_at=("laptop",), **X)


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
    led.fact("t1_a", "Table 1", "x", holds=True, basis="b", **X)
    led.cover(
        [
            {"source": "Table 1", "statement": "s", "claims": ["t1_*"]},
            {"source": "Fig. 9", "statement": "s", "reason": "needs ImageNet"},
        ]
    )
    led.save()
    led.fact("stray", "T", "x", holds=True, basis="b", **X)
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
        **X,
    )
    led.value(
        "b",
        "Table 2",
        "clean acc",
        paper=99.53,
        margin=0.1,
        interval=_iv(97.0, 96.95, 97.05),
        comparable_at=("smoke",),
        margin_basis=MB,
        **R,
    )
    led.value("c", "Table 2", "clean acc default-only", paper=99.53, margin=0.1, estimate=99.5, **X)
    led.consistency("d", "Table 3", "printed = file", holds=False, check="recomputed", noise_basis=EXACT)
    led.cover([{"source": "Tables 1-3", "statement": "all", "claims": ["*"]}])
    led.save()
    df = load_claims("smoke")
    assert df.verdict.tolist() == [REPRODUCED, CONTRADICTED, NOT_COMPARABLE, ERRATUM]
    text = report("smoke")
    assert "| Siedel et al. 2022 — class separation and MSCR | 1 | 1 | 0 | 1 | 0 | 1 | 0 | 0 | 4 |" in text
    assert "| Siedel et al. 2022 — class separation and MSCR | reanalysis | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 1 |" in text
    assert "### Verdicts per evidence class" in text and "equivalent within ± margin" in text
    assert "### Central rows" in text and "### Coverage of the paper's statements" in text
    assert (tmp_results / "build_dir" / "smoke" / "results" / "CLAIMS.md").is_file()
    assert "![verdicts per paper](../figures/claims_summary.png)" in text  # both under build/: the link works


def test_committed_paper_report_has_no_link_into_build(tmp_results):
    # results/paper/CLAIMS.md is committed, its chart is build output: the report links a committed copy of the
    # PNG beside the figure manifest (issue 47: no dead links), never build/
    led = Ledger(paper="mscr", notebook="99_test", profile="paper")
    led.value("a", "Table 1", "2r of B", paper=0.008026, margin=1e-6, estimate=0.008026, **X)
    led.save()
    text = report("paper")
    assert "build/" not in text and "![verdicts per paper](figures/claims_summary.png)" in text
    drawn = tmp_results / "build_dir" / "paper" / "figures" / "claims_summary.png"
    copy = tmp_results / "results_dir" / "paper" / "figures" / "claims_summary.png"
    assert drawn.is_file() and copy.read_bytes() == drawn.read_bytes()
    assert (tmp_results / "results_dir" / "paper" / "CLAIMS.md").is_file()


def test_paper_figures_md_links_committed_copies(tmp_results):
    """FIGURES.md of a profile whose figures are build output links the PNG copies beside its manifest."""
    from robeval.core.publish.plotting import manifest_dir
    from robeval.core.publish.report import figures_report

    drawn = tmp_results / "build_dir" / "paper" / "figures"
    drawn.mkdir(parents=True, exist_ok=True)
    (drawn / "f1.png").write_bytes(b"\x89PNG fake")
    entry = {"figure": "f1", "files": ["f1.png", "f1.pdf"], "reproduces": "Fig. 1", "notebook": "99_test"}
    entry |= {"data_from": "a.b", "plotted_by": "a.c"}
    manifest_dir("paper").mkdir(parents=True, exist_ok=True)
    (manifest_dir("paper") / "f1.json").write_text(__import__("json").dumps(entry))
    text = figures_report("paper")
    assert "[f1](figures/f1.png)" in text and "build" not in text
    assert (manifest_dir("paper") / "f1.png").read_bytes() == b"\x89PNG fake"


# ------------------------------------------------------------------------- evidence classes (issue 19)
from robeval.core.ledger import (  # noqa: E402
    ALLOWED,
    DERIVATION,
    ENVIRONMENT,
    EVIDENCE,
    FAILED,
    REANALYSIS,
    REPLICATION,
    SCALED,
    VERDICTS,
    VERIFIED,
    Claim,
    check_verdict,
    holm,
    is_scaled,
    p_value,
)


@pytest.mark.parametrize("evidence", EVIDENCE)
@pytest.mark.parametrize("verdict", VERDICTS)
def test_every_evidence_verdict_combination_is_allowed_or_refused(evidence, verdict):
    allowed = {
        REPLICATION: {REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE},
        SCALED: {REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE},
        REANALYSIS: {CONSISTENCY, ERRATUM, INCONCLUSIVE, NOT_COMPARABLE},
        DERIVATION: {CONSISTENCY, ERRATUM, INCONCLUSIVE, NOT_COMPARABLE},
        ENVIRONMENT: {VERIFIED, FAILED},
    }[evidence]
    assert (verdict in ALLOWED[evidence]) == (verdict in allowed)
    fields = dict(Claim.__dataclass_fields__)
    row = {k: None for k in fields} | dict(
        id="x", paper="mscr", source="s", description="d", kind="fact", rule="r", decides="", central=False,
        profile="default", notebook="n", note="", evidence=evidence, verdict=verdict, unit=None, scaling="",
        mechanism="", unadjusted="",
    )  # fmt: skip
    if verdict in allowed:
        Claim(**row)
        check_verdict(evidence, verdict)
    else:
        with pytest.raises(ValueError, match="not allowed"):
            Claim(**row)


def test_reanalysis_and_derivation_rows_cannot_reproduce():
    led = ledger()
    # the same numbers: a replication reproduces, a reanalysis is consistency, a derivation an erratum when false
    assert led.fact("a", "T", "x", holds=True, basis="b", evidence=REPLICATION).verdict == REPRODUCED
    assert led.fact("b", "T", "x", holds=True, basis="b", evidence=REANALYSIS).verdict == CONSISTENCY
    assert led.fact("c", "T", "x", holds=False, basis="b", evidence=DERIVATION).verdict == ERRATUM
    c = led.comparison("d", "T", "x", interval=_iv(0.5, 0.1, 0.9), evidence=REANALYSIS, unit="test images")
    # a sampled statement is about models unless the row says otherwise: one model's test images cannot decide it
    assert c.verdict == INCONCLUSIVE and c.about == "models"
    c = led.comparison(
        "d2", "T", "x", interval=_iv(0.5, 0.1, 0.9), evidence=REANALYSIS, unit="test images", about="one model"
    )
    assert c.verdict == CONSISTENCY and c.evidence == REANALYSIS
    e = led.value("e", "T", "x", paper=1.0, margin=0.1, estimate=1.5, evidence=DERIVATION, noise=0.0, noise_basis=EXACT)
    assert e.verdict == ERRATUM
    # consistency() only ever gives consistency/erratum, and says which class it is
    assert led.consistency("f", "T", "x", holds=True, check="c").evidence == REANALYSIS
    with pytest.raises(ValueError, match="not allowed"):
        led.consistency("g", "T", "x", holds=True, check="c", evidence=REPLICATION)


def test_environment_rows_are_checks():
    led = ledger()
    assert led.fact("a", "data", "sha256", holds=True, basis="b", evidence=ENVIRONMENT).verdict == VERIFIED
    assert led.fact("b", "data", "sha256", holds=False, basis="b", evidence=ENVIRONMENT).verdict == FAILED


def test_labels_are_required_and_validated():
    led = ledger()
    with pytest.raises(TypeError, match="evidence= is required"):
        led.fact("a", "T", "x", holds=True, basis="b")
    with pytest.raises(ValueError, match="not one of"):
        led.fact("a", "T", "x", holds=True, basis="b", evidence="vibes")
    with pytest.raises(TypeError, match="unit= is required"):
        led.comparison("a", "T", "x", interval=_iv(0.5, 0.1, 0.9), evidence=REPLICATION)
    with pytest.raises(ValueError, match="unit 'seeds'"):
        led.comparison("a", "T", "x", interval=_iv(0.5, 0.1, 0.9), evidence=REPLICATION, unit="seeds")
    with pytest.raises(TypeError, match="unknown keyword"):
        led.fact("a", "T", "x", holds=True, basis="b", evidence=REPLICATION, evidnce="x")
    with pytest.raises(ValueError, match="margin_basis"):
        led.value("a", "T", "x", paper=1.0, margin=0.1, interval=_iv(1.0, 0.95, 1.05), **R)


def test_scaled_replication_states_its_mechanism_or_is_not_comparable():
    led = Ledger(paper="mscr", notebook="99_test", profile="default", scaling="24 runs instead of 1200")
    with pytest.raises(ValueError, match="mechanism="):
        led.comparison("a", "T", "x", interval=_iv(0.5, 0.1, 0.9), **R)
    ok = led.comparison("b", "T", "x", interval=_iv(0.5, 0.1, 0.9), mechanism="fewer runs: same model", **R)
    assert ok.evidence == SCALED and ok.verdict == REPRODUCED and ok.scaling == "24 runs instead of 1200"
    lost = led.comparison(
        "c", "T", "x", interval=_iv(0.5, 0.1, 0.9), survives=False, mechanism="BN adaptation, not retraining", **R
    )
    assert lost.verdict == NOT_COMPARABLE and "BN adaptation" in lost.mechanism
    # a notebook-level mechanism is the default; a row's own scaling adds to the profile's
    led2 = Ledger(paper="mscr", notebook="99_test", profile="default", scaling="subset", mechanism="kept: why")
    r = led2.comparison("d", "T", "x", interval=_iv(0.5, 0.1, 0.9), scaled="48 samples", **R)
    assert r.mechanism == "kept: why" and r.scaling == "subset; 48 samples"
    # the paper's scale: a replication stays a replication
    full = Ledger(paper="mscr", notebook="99_test", profile="paper")
    assert full.comparison("e", "T", "x", interval=_iv(0.5, 0.1, 0.9), **R).evidence == REPLICATION
    assert is_scaled("default", "nothing") and not is_scaled("paper", "nothing: the published protocol")
    assert is_scaled("paper", "synthetic data instead of ERA5")


def test_claims_about_models_need_three_independent_trainings():
    led = ledger()
    one_model = led.comparison(
        "a", "T", "A beats B", interval=_iv(0.5, 0.1, 0.9, n=10000), evidence=REPLICATION, unit="test images",
        about="models",
    )  # fmt: skip
    assert one_model.verdict == INCONCLUSIVE and "independent trainings" in one_model.decides
    two = led.comparison("b", "T", "A beats B", interval=_iv(0.5, 0.1, 0.9, n=2), about="models", **R)
    assert two.verdict == INCONCLUSIVE
    three = led.comparison("c", "T", "A beats B", interval=_iv(0.5, 0.1, 0.9, n=3), about="models", **R)
    assert three.verdict == REPRODUCED
    # both directions, whatever the evidence class: neither confirmed nor refuted on one model's test images
    for cid, iv in (("d", _iv(0.5, 0.1, 0.9, n=10000)), ("e", _iv(-0.5, -0.9, -0.1, n=10000))):
        files = led.comparison(cid, "T", "A beats B", interval=iv, evidence=REANALYSIS, unit="test images")
        assert files.verdict == INCONCLUSIVE and files.about == "models"
    exact = led.consistency("f", "T3", "ours has the best ACR", holds=False, check="files", about="models",
                            noise_basis=EXACT)  # fmt: skip
    assert exact.verdict == INCONCLUSIVE and "one model per method" in exact.decides
    # the row that tries to opt out: the flag of old is refused, and a wrong about is named
    with pytest.raises(TypeError, match="about_models= is gone"):
        led.comparison("g", "T", "x", interval=_iv(0.5, 0.1, 0.9), about_models=False, **R)
    with pytest.raises(ValueError, match="about 'inputs'"):
        led.comparison("h", "T", "x", interval=_iv(0.5, 0.1, 0.9), about="inputs", **R)


def test_a_small_n_bootstrap_cannot_decide():
    led = ledger()
    boot3 = stats.Interval(0.9, 0.6, 0.9, 0.1, 3, 0.95, "percentile bootstrap over 3 runs")
    c = led.comparison("a", "T", "rises", interval=boot3, kind="trend", **R)
    assert c.verdict == INCONCLUSIVE and "valid at n = 3" in c.decides
    boot30 = stats.Interval(0.9, 0.6, 0.95, 0.1, 30, 0.95, "percentile bootstrap over 30 runs")
    assert led.comparison("b", "T", "rises", interval=boot30, kind="trend", **R).verdict == REPRODUCED


def test_p_values_and_holm_by_hand():
    # t-interval: p from Student t with n-1 df; estimate 2, se 1, n 5 -> 2 * t.sf(2, 4) = 0.11612
    iv = stats.Interval(2.0, 0.0, 4.0, 1.0, 5, 0.95, "t-interval over 5 runs")
    assert p_value(iv) == pytest.approx(0.116117, abs=1e-6)
    assert p_value(stats.Interval(1.96, 0, 4, 1.0, 50, 0.95, "bootstrap")) == pytest.approx(0.05, abs=1e-3)
    assert p_value(stats.Interval(1.0, 0, 2, math.nan, 5, 0.95, "x")) is None
    # Holm at 0.05 over (0.01, 0.04, 0.03): 0.01 <= 0.05/3 rejected; 0.03 > 0.05/2 stops
    assert holm([0.01, 0.04, 0.03], 0.05) == [True, False, False]
    assert holm([0.01, 0.02, 0.03], 0.06) == [True, True, True]


def test_holm_covers_every_test_of_the_notebook_and_central_rows_stay_in_it():
    led = ledger()
    ivs = [stats.mean_interval(v) for v in ([1.0, 1.1, 0.9, 1.05], [0.2, 0.5, -0.05, 0.4, 0.3], [2, 2.2, 1.9, 2.1])]
    a = led.comparison("a", "T", "x", interval=ivs[0], central=True, **R)
    b = led.comparison("b", "T", "x", interval=ivs[1], central=True, **R)
    # b: p in (0.025, 0.05): significant alone
    assert b.verdict == REPRODUCED and 0.025 < b.p_value < 0.05
    led.finalise()
    assert b.verdict == INCONCLUSIVE and b.unadjusted == REPRODUCED and "Holm" in b.decides
    assert a.family == b.family == "99_test" and a.family_size == 2
    led.finalise()  # idempotent
    assert b.verdict == INCONCLUSIVE and b.decides.count("Holm") == 1
    # a non-central row is a test of the notebook too: it enlarges the family and is corrected in it
    d = led.comparison("d", "T", "x", interval=ivs[1], **R)
    led.finalise()
    assert d.verdict == INCONCLUSIVE and a.family_size == 3
    # Holm-adjusted p by hand: sorted p (pa, pb, pd) -> (3 pa, max(3 pa, 2 pb), max(.., pd)), pb == pd
    assert a.p_adjusted == pytest.approx(3 * a.p_value, rel=1e-3)
    assert b.p_adjusted == pytest.approx(max(3 * a.p_value, 2 * b.p_value), rel=1e-3)
    # a non-central row may name a smaller family (a table or figure); a central one may not
    t = led.comparison("t", "T", "x", interval=ivs[2], family="Table 9", **R)
    led.finalise()
    assert t.family == "99_test / Table 9" and t.family_size == 1 and a.family_size == 4
    with pytest.raises(ValueError, match="strictest"):
        led.comparison("u", "T", "x", interval=ivs[2], family="Table 9", central=True, **R)
    # a row whose interval has no standard error has no p-value and no family: it decides nothing
    no_se = stats.Interval(0.5, 0.1, 0.9, math.nan, 8, 0.95, "test")
    assert led.comparison("v", "T", "x", interval=no_se, **R).verdict == INCONCLUSIVE


def test_a_decision_stands_only_when_a_rerun_would_reach_it_again():
    """Stability: p = 0.039 alone (t = 4.90 over 3 runs, 2 df) passes the test, but a rerun at n = 3 reaches it
    with probability 0.012 (predictive, the spread at its upper 95% bound, 4.415 times the observed, critical t
    4.30: Phi((4.90 − 4.30 · 4.415) / (sqrt 2 · 4.415))); 3 runs are too few to resample (the closed form
    alone): fragile, inconclusive, naming the n that would make it stable (8 runs)."""
    led = ledger()
    iv = stats.mean_interval([5.2, 3.4, 7.1])
    row = led.comparison("a", "T1", "gain > 0", interval=iv, central=True, **R)
    assert row.verdict == REPRODUCED and row.p_value == pytest.approx(0.0392, abs=1e-4)
    led.finalise()
    assert row.verdict == INCONCLUSIVE and row.decides.startswith("fragile")
    assert row.stability == pytest.approx(0.012, abs=0.001) and row.stable_n == 8
    strong = stats.mean_interval(np.linspace(4.0, 6.0, 12))
    s = led.comparison("b", "T1", "gain > 0", interval=strong, central=True, **R)
    led.finalise()
    assert s.verdict == REPRODUCED and s.stability > 0.99 and s.stable_n == 12


def test_readings_decide_only_when_every_reading_agrees():
    led = ledger()
    led.comparison("r.identity", "T", "x", interval=_iv(-0.5, -0.9, -0.1), **R)
    led.comparison("r.trace1", "T", "x", interval=_iv(0.1, -0.2, 0.4), **R)
    c = led.readings("r", "T", "x", parts=["r.identity", "r.trace1"], ambiguity="covariance: identity or trace 1")
    assert c.verdict == INCONCLUSIVE and "covariance" in c.decides
    led.comparison("s.a", "T", "x", interval=_iv(-0.5, -0.9, -0.1), **R)
    led.comparison("s.b", "T", "x", interval=_iv(-0.4, -0.8, -0.2), **R)
    assert led.readings("s", "T", "x", parts=["s.a", "s.b"], ambiguity="budget").verdict == CONTRADICTED
    with pytest.raises(KeyError, match="no claim"):
        led.readings("t", "T", "x", parts=["s.a", "nope"], ambiguity="a")


def test_errata_need_to_exceed_the_papers_own_noise():
    led = ledger()
    # a -0.126 -> -0.127 dip inside the sheet's +-0.007: within the noise, but one gap whose se is the noise itself
    # cannot show that a true gap lies within +-0.007 (TOST p = 2 * sf((0.007 - 0.001) / (0.007 / 1.96)) = 0.093)
    dip = led.consistency("a", "T2a", "monotone", discrepancy=-0.001, noise=0.007, check="sheet",
                          noise_basis=RUN_SPREAD)  # fmt: skip
    assert dip.verdict == INCONCLUSIVE and "TOST p = 0.093" in dip.rule and dip.noise_basis == RUN_SPREAD
    assert "within ± 0.007" in dip.decides
    # the statement tolerates a gap of 0.02: the same dip is shown to lie within it (p = 2 * sf(0.019 / 0.00357))
    wide = led.consistency("a2", "T2a", "monotone", discrepancy=-0.001, noise=0.007, margin=0.02, check="sheet",
                           noise_basis=RUN_SPREAD)  # fmt: skip
    assert wide.verdict == CONSISTENCY and wide.p_value == pytest.approx(1.0e-7, rel=0.1)
    with pytest.raises(ValueError, match="margin="):
        led.consistency("a3", "T", "x", discrepancy=0.1, noise=0.5, margin=1.0, check="c", noise_basis=ROUNDING)
    b = led.consistency("b", "T1", "delta", discrepancy=1.0, noise=0.05, check="printed", noise_basis=ROUNDING)
    assert b.verdict == ERRATUM
    with pytest.raises(ValueError, match="not both"):
        led.consistency("c", "T", "x", holds=True, discrepancy=1.0, noise=0.1, check="c")
    with pytest.raises(ValueError, match="noise_basis"):
        led.consistency("c", "T", "x", discrepancy=1.0, noise=0.1, check="c")
    with pytest.raises(ValueError, match="noise_basis"):
        led.consistency("c", "T", "x", discrepancy=1.0, noise=0.1, check="c", noise_basis="vibes")
    # the same test on the value path: an exact value beyond the margin but inside the paper's own noise
    v = led.value("v", "T", "x", paper=10.0, margin=0.5, estimate=10.8, noise=1.0, noise_basis=RUN_SPREAD,
                  evidence=DERIVATION)  # fmt: skip
    assert v.verdict == INCONCLUSIVE and "own noise" in v.decides
    w = led.value("w", "T", "x", paper=10.0, margin=0.5, estimate=11.8, noise=1.0, noise_basis=RUN_SPREAD,
                  evidence=DERIVATION)  # fmt: skip
    assert w.verdict == ERRATUM
    # without a noise test an exact value row of a reanalysis cannot be an erratum (the row that tries to skip the
    # test); a derivation compares closed forms, which carry no noise
    assert led.value("x", "T", "x", paper=10.0, margin=0.5, estimate=11.8, evidence=REANALYSIS).verdict == INCONCLUSIVE
    y = led.value("y", "T", "x", paper=10.0, margin=0.5, estimate=11.8, evidence=DERIVATION)
    assert y.verdict == ERRATUM and y.noise_basis == EXACT
    # a fact is exact by definition
    assert led.fact("f", "T", "x", holds=False, basis="closed form", evidence=DERIVATION).verdict == ERRATUM


def test_full_scale_rows_stay_replications_and_exact_rows_name_their_unit():
    led = Ledger(paper="mscr", notebook="99_test", profile="default", scaling="24 runs", mechanism="fewer runs")
    exact = led.value("a", "T1", "2r", paper=1.0, margin=0.1, estimate=1.0, evidence=REPLICATION, full_scale=True)
    assert exact.evidence == REPLICATION and exact.unit == "none (exact)" and exact.verdict == REPRODUCED
    scaled = led.value("b", "T1", "2r", paper=1.0, margin=0.1, estimate=1.0, evidence=REPLICATION)
    assert scaled.evidence == SCALED and scaled.scaling == "24 runs"
    with pytest.raises(TypeError, match="full_scale"):
        led.value("c", "T1", "2r", paper=1.0, margin=0.1, estimate=1.0, evidence=REPLICATION, full_scale="yes")


# ------------------------------------------------------------------------------- runs that are no evidence
def test_a_ledger_that_is_no_evidence_carries_no_verdict(tmp_results):
    """A dry run (survives=False): rows that would be reproduced, contradicted, consistency or erratum are all
    'not comparable', with the ledger's mechanism as the reason; the saved ledger says so."""
    why = "none: a dry run is not evidence"
    dry = Ledger(paper="mscr", notebook="99_test", profile="paper", scaling="DRY RUN", mechanism=why, survives=False)
    real = Ledger(paper="mscr", notebook="99_test", profile="paper")
    for led in (dry, real):
        led.value("v", "T", "x", paper=10.0, margin=0.5, interval=_iv(10.1, 9.8, 10.4), margin_basis=MB, **R)
        led.comparison("c", "T", "x", interval=_iv(2.0, 1.0, 3.0), central=True, **R)
        led.fact("f", "T", "x", holds=False, basis="exhaustive", **X)
        led.consistency("k", "T", "x", holds=False, check="sheet vs text", evidence="derivation", noise_basis=EXACT)
        led.unavailable("u", "T", "x", why="two easy images", **R)
        led.readings("r", "T", "x", parts=["c", "f"], ambiguity="which reading")
    assert [c.verdict for c in real.claims] == [
        REPRODUCED, REPRODUCED, CONTRADICTED, ERRATUM, INCONCLUSIVE, INCONCLUSIVE,
    ]  # fmt: skip
    assert {c.verdict for c in dry.claims} == {NOT_COMPARABLE}
    c = dry.get("c")
    assert c.mechanism == why and "no evidence" in c.decides and c.estimate == 2.0  # the numbers are shown
    assert dry.get("k").evidence == "derivation" and dry.get("v").evidence == "scaled replication"
    dry.save()
    saved = json.loads(dry.path.read_text())
    assert saved["survives"] is False and saved["mechanism"] == why
    assert {c["verdict"] for c in saved["claims"]} == {NOT_COMPARABLE}
    with pytest.raises(ValueError, match="needs mechanism"):
        Ledger(paper="mscr", notebook="99_test", profile="paper", survives=False)
    with pytest.raises(TypeError, match="survives"):
        Ledger(paper="mscr", notebook="99_test", profile="paper", mechanism=why, survives="no")


def test_unavailable_rows():
    led = ledger("paper")
    c = led.unavailable("u", "Table 2", "x", why="an easy training image", kind="value", paper=0.45, **R)
    assert c.verdict == INCONCLUSIVE and c.decides == "an easy training image" and c.estimate is None
    assert c.kind == "value" and c.paper_value == 0.45 and c.rule == "not computed: an easy training image"
    assert ledger("smoke").unavailable("u", "T", "x", why="w", **R).verdict == NOT_COMPARABLE
    with pytest.raises(ValueError, match="why="):
        led.unavailable("u2", "T", "x", why=" ", **R)
    with pytest.raises(ValueError, match="kind"):
        led.unavailable("u3", "T", "x", why="w", kind="guess", **R)
    with pytest.raises(TypeError, match="evidence"):
        led.unavailable("u4", "T", "x", why="w")


def test_setup_opens_a_dry_run_ledger_that_is_no_evidence(tmp_results, monkeypatch):
    from robeval.core.notebooks import setup

    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    for experiment in ("mscr_cifar10", "msd_powerset", "msd_cifar10_c_bar", "acr_rs_training"):
        cfg, out_dir, led = setup(experiment, "paper")
        assert cfg.dry_run and not led.survives and led.mechanism.startswith("none: a dry run")
        assert out_dir == tmp_results / "build_dir" / "dry_run" / experiment
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "0")
    assert setup("mscr_cifar10", "paper")[2].survives


def test_a_pipeline_check_profile_names_the_profile_that_decides(tmp_results):
    """Issue 46: a profile sized only to check the pipeline (settings' pipeline_check) records every row 'not
    comparable', numbers shown, with the deciding profile in decides (not a dry run's wording); the saved ledger
    names it; a pipeline check that claims to be evidence, or to decide itself, is refused."""
    why = "none at this size: a pipeline check"
    led = Ledger(paper="acr", notebook="99_test", profile="default", mechanism=why, survives=False, decided_by="gpu")
    c = led.comparison("c", "T", "x", interval=_iv(2.0, 1.0, 3.0), central=True, **R)
    assert c.verdict == NOT_COMPARABLE and c.estimate == 2.0 and c.mechanism == why
    assert c.decides.startswith("the gpu profile (this default run is sized to check the pipeline")
    assert "dry" not in c.decides and "real run" not in c.decides
    # the trimmed trainings are what a pipeline check gives up: rows that hold whatever model keep their verdicts
    # (both ways), and a row about one trained model does not
    ok = led.consistency("d", "T", "a closed form", holds=True, check="algebra", evidence="derivation")
    bad = led.consistency("e", "T", "a count", holds=False, check="count", noise_basis=EXACT, evidence="reanalysis")
    size = dict(paper=10.0, margin=0.5, interval=_iv(12.0, 11.8, 12.2), margin_basis=MB, evidence="replication")
    data = led.value("f", "T", "x", unit="test images", about="data", **size)
    one = led.value("g", "T", "x", unit="test images", about="one model", **size)
    assert (ok.verdict, bad.verdict, data.verdict) == ("consistency", "erratum", CONTRADICTED)
    assert one.verdict == NOT_COMPARABLE and one.decides.startswith("the gpu profile")
    # issue 60, item 6: a row comparable at the paper profile only names the paper profile, never the check's own
    big = led.comparison("h", "T", "x", interval=_iv(2.0, 1.0, 3.0), comparable_at=("paper",), **R)
    assert big.verdict == NOT_COMPARABLE and big.decides.startswith("the paper profile (this default run")
    mid = led.comparison("i", "T", "x", interval=_iv(2.0, 1.0, 3.0), comparable_at=("long", "paper"), **R)
    assert mid.decides.startswith("the gpu profile")  # the check's own profile is in the row's span
    dry = Ledger(paper="acr", notebook="99_test", profile="default", mechanism="none: a dry run", survives=False)
    assert (
        dry.consistency("d", "T", "a closed form", holds=True, check="algebra", evidence="derivation").verdict
        == NOT_COMPARABLE
    )
    led.save()
    assert json.loads(led.path.read_text())["decided_by"] == "gpu"
    with pytest.raises(ValueError, match="survives=False"):
        Ledger(paper="acr", notebook="99_test", profile="default", mechanism=why, decided_by="gpu")
    with pytest.raises(ValueError, match="another profile"):
        Ledger(paper="acr", notebook="99_test", profile="gpu", mechanism=why, survives=False, decided_by="gpu")
    with pytest.raises(ValueError, match="profile"):
        Ledger(paper="acr", notebook="99_test", profile="default", mechanism=why, survives=False, decided_by="GPU")


def test_setup_opens_09_at_default_as_a_pipeline_check(tmp_results):
    from robeval.core.notebooks import setup

    cfg, _, led = setup("acr_rs_training", "default")
    assert cfg.pipeline_check == "gpu" and not led.survives and led.decided_by == "gpu"
    assert led.mechanism.startswith("none at this size")
    for profile in ("smoke", "gpu"):
        assert setup("acr_rs_training", profile)[2].decided_by == ""


# ------------------------------------------------------------------------------- issue 38: stable verdicts
def _committed(notebook, profile="default"):
    from robeval.core.paths import results_dir

    path = results_dir(profile) / "claims" / f"{notebook}.json"
    return {r["id"]: r for r in json.loads(path.read_text(encoding="utf-8"))["claims"]}


def test_the_seven_rows_a_gpu_rerun_flipped_are_flagged_on_the_cpu_ledgers():
    """The default profile rerun on an H200 flipped seven verdicts of the CPU ledgers (issue 38). Under the
    ledger's rules, computed from the CPU runs alone, none of the seven is decided: the four the CPU had decided
    fail the notebook's family correction (their own verdict kept in ``unadjusted``) and name the runs that would
    make them stable; the three it had left open stay open. Where the default profile now runs a notebook as a
    pipeline check (02 and 04, issue 46), its rows about models are not decided there at all: they name the profile
    that decides them."""
    flipped = {
        "04_msd_cifar10_c_bar": ["T1_gain_c_augmix", "T1_less_gain_cbar_augmix", "T1_delta_augmix_gt_autoaugment",
                                 "T1_gain_cbar_autoaugment"],
        "02_mscr_cifar10": ["S53_cifar_mscr_positive"],
        "03_msd_powerset": ["Fig4_solarize_impulse_noise", "Fig5_methods_follow_trend"],
    }  # fmt: skip
    was_decided = {"T1_gain_c_augmix", "T1_less_gain_cbar_augmix", "T1_delta_augmix_gt_autoaugment",
                   "Fig4_solarize_impulse_noise"}  # fmt: skip
    from robeval.core.paths import results_dir

    for nb, ids in flipped.items():
        rows = _committed(nb)
        pipeline = json.loads((results_dir("default") / "claims" / f"{nb}.json").read_text())["decided_by"]
        for cid in ids:
            r = rows[cid]
            if pipeline:
                assert r["verdict"] == NOT_COMPARABLE and r["decides"].startswith(f"the {pipeline} profile"), (nb, cid)
                continue
            if cid == "S53_cifar_mscr_positive":  # issue 45, item 6: our eps_train = 0 runs do not show the mechanism
                assert r["verdict"] == NOT_COMPARABLE and "not shown on our runs" in r["mechanism"]
                continue
            assert r["verdict"] == INCONCLUSIVE, (nb, cid, r["verdict"])
            assert r["family"] == nb and r["family_size"] >= 4 and r["p_adjusted"] > 0.05
            if cid in was_decided:
                assert r["unadjusted"] == REPRODUCED and r["decides"].startswith(("Holm:", "fragile:"))
                if r["stable_n"] is None:  # no n within reach (the resampled rule up to 64x the runs): says so
                    assert "no number of our" in r["decides"]
                else:
                    assert r["stable_n"] > r["n_runs"] and f"≈{r['stable_n']}" in r["decides"]


def test_every_committed_decision_passes_the_rules():
    """Every decided row of the committed ledgers (default and paper) that rests on a test carries its family,
    a Holm-adjusted p <= 0.05 and a stability >= STABLE (0.9); every erratum names the noise it exceeds; a claim about
    models is decided only over >= 3 independent trainings."""
    from robeval.core.ledger import MIN_TRAININGS, TRAINING_UNITS, load_ledgers
    from robeval.core.ledger.decisions import STABLE

    decided = {REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM}
    n_tests = 0
    for profile in ("default", "paper"):
        for led in load_ledgers(profile):
            for r in led["claims"]:
                if r["verdict"] not in decided:
                    continue
                if r["family"]:  # every decision with a test passed Holm and stability, consistency too
                    n_tests += 1
                    assert r["p_adjusted"] <= 0.05 and r["stability"] >= STABLE, (led["notebook"], r["id"])
                if r["verdict"] == ERRATUM:
                    assert r["noise_basis"], (led["notebook"], r["id"])
                if r["about"] == "models" and r["kind"] != "readings":
                    assert r["unit"] in TRAINING_UNITS and r["n_runs"] >= MIN_TRAININGS, (led["notebook"], r["id"])
    assert n_tests > 50


def test_whole_table_verdicts_and_their_standardised_differences():
    from robeval.core.ledger import table_differences

    led = ledger()
    tight = {f"c{i}": (10.0, _iv(10.0 + 0.01 * i, 9.98 + 0.01 * i, 10.02 + 0.01 * i, n=50)) for i in range(4)}
    t = led.whole_table("t", "T2", "cells", cells=tight, tolerance=0.2, tolerance_basis="declared", **R)
    assert t.verdict == REPRODUCED and t.kind == "table" and t.estimate.startswith("4 of 4 cells")
    off = dict(tight, c9=(10.0, _iv(10.6, 10.55, 10.65, n=50)))
    assert led.whole_table("u", "T2", "x", cells=off, tolerance=0.2, tolerance_basis="declared", **R).verdict == (
        CONTRADICTED
    )
    # one cell wider than the band: the table cannot be confirmed, but a cell beyond the band still contradicts it
    # (issue 45, item 1: one rule in both directions; main left it inconclusive)
    wide = dict(off, c10=(10.0, _iv(10.0, 9.5, 10.5, n=50)))
    w = led.whole_table("w", "T2", "x", cells=wide, tolerance=0.2, tolerance_basis="declared", **R)
    assert w.verdict == CONTRADICTED
    only_wide = dict(tight, c10=(10.0, _iv(10.0, 9.5, 10.5, n=50)))
    ow = led.whole_table("ow", "T2", "x", cells=only_wide, tolerance=0.2, tolerance_basis="declared", **R)
    assert ow.verdict == INCONCLUSIVE and "c10" in ow.decides and "contradicted, not reproduced" in ow.decides
    with pytest.raises(ValueError, match="tolerance_basis"):
        led.whole_table("v", "T2", "x", cells=tight, tolerance=0.2, tolerance_basis="", **R)
    d = table_differences(off).set_index("cell")
    assert d.loc["c9", "z"] == pytest.approx(0.6 / 0.025) and d.loc["c0", "diff"] == 0.0
    led.finalise()
    assert t.family == "99_test" and t.stability > 0.99


def test_rows_that_depend_on_an_ambiguity_are_tested_under_every_reading():
    from robeval.core.ledger.ambiguities import AMBIGUITIES

    amb = AMBIGUITIES["mscr_noise_mode"]
    led = Ledger(paper="mscr", notebook="01_mscr_2d", profile="default")

    def rows(lg, shift):
        return [lg.comparison("S4_mscr_increases", "S4", "rises", interval=_iv(0.5 + shift, 0.2, 0.8), central=True,
                              **R)]  # fmt: skip

    both = led.under_readings("mscr_noise_mode", {"iid": 0.0, "shared": 0.1}, rows)
    assert [c.id for c in led.claims] == ["S4_mscr_increases.iid", "S4_mscr_increases.shared", "S4_mscr_increases"]
    assert both[0].verdict == REPRODUCED and both[0].central and not led.get("S4_mscr_increases.iid").central
    assert both[0].ambiguity == "mscr_noise_mode" and set(amb.readings) == {"iid", "shared"}
    # a reading not run at this profile leaves the row open
    one = led.under_readings("mscr_noise_mode", {"iid": 0.0, "shared": None},
                             lambda lg, s: [lg.comparison("F4_k_saturates", "F4", "x", interval=_iv(0.5, 0.2, 0.8), **R)])  # fmt: skip
    assert one[0].verdict == INCONCLUSIVE and "shared" in one[0].decides
    # the row that tries to skip the readings: recorded under one reading only, the ledger refuses to save it
    led.comparison("S52_robustness_trend_0.03", "S52", "x", interval=_iv(0.5, 0.2, 0.8), **R)
    with pytest.raises(ValueError, match="under every reading"):
        led.check_ambiguities()
    with pytest.raises(ValueError, match="not an ambiguity"):
        led.under_readings("realworld_fig3_axis", {"x": 1}, rows)


def test_a_row_declaring_an_ambiguity_must_be_a_readings_row_for_it_whatever_its_id(tmp_results):
    # the row's id matches no pattern of the registry: only its depends= label ties it to the ambiguity
    def led():
        return Ledger(paper="realworld", notebook="99_test", profile="default")

    def row(lg, est, **kw):
        return [lg.comparison("any-name", "Fig. 5", "x", interval=_iv(est, est - 0.1, est + 0.1, n=30), direction=">",
                              depends=("realworld_fig3_axis",), **R, **kw)]  # fmt: skip

    # recorded under one reading only: refused whatever its id, naming the row and the ambiguity
    one = led()
    row(one, 0.5)
    assert one.get("any-name").depends == ("realworld_fig3_axis",)
    with pytest.raises(ValueError, match=r"under every reading.*realworld_fig3_axis.*any-name"):
        one.save()
    assert not one.path.exists()
    # under every reading: accepted; all readings reproduce -> decided
    axis = ("identity-std", "identity-variance", "trace1-std", "trace1-variance")
    agree = led()
    (c,) = agree.under_readings("realworld_fig3_axis", dict.fromkeys(axis, 0.5), row)
    saved = json.loads(agree.save().read_text(encoding="utf-8"))["claims"]
    assert {r["id"]: r["depends"] for r in saved}["any-name"] == ["realworld_fig3_axis"]
    assert c.verdict == REPRODUCED and c.kind == "readings" and c.depends == ("realworld_fig3_axis",)
    assert [agree.get(f"any-name.{a}").verdict for a in axis] == [REPRODUCED] * 4
    # one reading contradicts: the readings disagree -> inconclusive, naming the ambiguity
    split = led()
    (c,) = split.under_readings("realworld_fig3_axis", {**dict.fromkeys(axis, 0.5), "trace1-std": -0.5}, row)
    split.check_ambiguities()
    split.finalise()
    assert split.get("any-name.trace1-std").verdict == CONTRADICTED
    assert c.verdict == INCONCLUSIVE and "intended reading" in c.decides and "per-feature variance" in c.decides
    # a row resting on two ambiguities: readings of one whose parts are readings of the other (nested)
    two = led()
    pairs = ("setosa-versicolor", "setosa-virginica", "versicolor-virginica")

    def both(lg, est):
        return [lg.comparison("two", "Fig. 5", "x", interval=_iv(est, est - 0.1, est + 0.1, n=30), direction=">",
                              depends=("realworld_fig3_axis", "realworld_iris_pair"), **R)]  # fmt: skip

    def inner(lg, est):
        return lg.under_readings("realworld_iris_pair", dict.fromkeys(pairs, est), both)

    (c,) = two.under_readings("realworld_fig3_axis", dict.fromkeys(axis, 0.5), inner)
    two.check_ambiguities()
    assert two.get("two.trace1-std.setosa-virginica").part_of == "two.trace1-std"
    assert two.get("two.trace1-std").ambiguity == "realworld_iris_pair" and two.get("two.trace1-std").part_of == "two"
    assert c.id == "two" and c.verdict == REPRODUCED and len([r for r in two.claims if r.id.startswith("two")]) == 17
    # readings of one ambiguity only: the other is not covered
    flat = led()
    flat.under_readings("realworld_fig3_axis", dict.fromkeys(axis, 0.5), both)
    with pytest.raises(ValueError, match=r"'two': \['realworld_iris_pair'\]"):
        flat.check_ambiguities()
    # an unknown key, or one of another paper, is refused when the row is recorded, naming the known ones
    with pytest.raises(ValueError, match=r"unknown ambiguity key.*realworld_iris_pair"):
        led().fact("f", "T", "x", holds=True, basis="b", depends=("iris_pair",), **X)
    with pytest.raises(ValueError, match="another paper"):
        led().fact("f", "T", "x", holds=True, basis="b", depends="mscr_noise_mode", **X)


def test_a_ledger_file_outside_the_vocabulary_is_refused_naming_file_and_row(tmp_results):
    from robeval.core.ledger import load_ledgers

    led = Ledger(paper="mscr", notebook="99_test", profile="smoke")
    led.fact("a", "T1", "x", holds=True, basis="b", **X)
    path = led.save()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"][0]["verdict"] = "reproducd"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=r"99_test\.json.*row 'a'.*reproducd"):
        load_ledgers("smoke")
    with pytest.raises(ValueError, match="reproducd"):
        report("smoke")
    # an empty (or cut short) ledger file is named too (a fresh probe of issue 62: "Expecting value: line 1 column 1")
    path.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"99_test\.json: not readable JSON \(.*\); rebuild the ledger"):
        load_ledgers("smoke")


def test_a_wide_interval_far_from_the_paper_contradicts_a_value():
    """Issue 45, item 1: a value row decides by one rule both ways. An interval wider than the margin band cannot
    confirm the value, but when it lies entirely outside paper ± margin it contradicts it (01/T2a_mscr.iid at the
    default profile: 0.171 from the sheet against a tolerance of 0.063, |z| = 4.4, was left inconclusive)."""
    led = ledger()
    far = led.value(
        "far", "T", "v", paper=0.0, margin=0.063, margin_basis="declared", interval=_iv(0.25, 0.17, 0.33, n=24), **R
    )
    assert far.verdict == CONTRADICTED
    near = led.value(
        "near", "T", "v", paper=0.0, margin=0.063, margin_basis="declared", interval=_iv(0.05, -0.03, 0.13, n=24), **R
    )
    assert near.verdict == INCONCLUSIVE and "only an interval entirely outside" in near.decides
    inside = led.value(
        "in", "T", "v", paper=0.0, margin=0.063, margin_basis="declared", interval=_iv(0.01, -0.02, 0.04, n=24), **R
    )
    assert inside.verdict == REPRODUCED
    led.finalise()
    assert far.verdict == CONTRADICTED and far.p_adjusted <= 0.05 and far.stability >= 0.8


def test_unadjusted_keeps_the_verdict_before_every_override():
    """Issue 45, item 5: where the unit rule (a claim about models needs >= 3 trainings) overrides a decision,
    ``unadjusted`` keeps the row's own verdict, as it does for Holm and stability (03/AppA_solarize_impulse_noise
    contradicted the claim, p_adj 0.021, and was shown only as inconclusive)."""
    led = ledger()
    few = led.comparison(
        "few", "S", "A > B", interval=_iv(-0.5, -0.9, -0.3, n=2), unit="training runs", evidence="replication"
    )
    assert few.verdict == INCONCLUSIVE and "independent trainings" in few.decides
    ok = led.comparison("ok", "S", "A > B", interval=_iv(0.5, 0.3, 0.7, n=30), **R)
    led.finalise()
    assert few.unadjusted == CONTRADICTED and few.verdict == INCONCLUSIVE
    assert ok.unadjusted == "" and ok.verdict == REPRODUCED
    led.finalise()  # idempotent
    assert few.unadjusted == CONTRADICTED


def test_a_check_without_a_noise_test_decides_nothing_either_way():
    """Issue 45, item 1: ``consistency(holds=...)`` on the paper's noisy numbers confirmed from point values while
    a failure was forced to inconclusive (no erratum without a noise test). Now both directions are inconclusive
    unless the statement is exact (``noise_basis=EXACT``, or a derivation's closed form), and the row keeps what its
    own check found in ``unadjusted``."""
    from robeval.core.ledger import EXACT, RUN_SPREAD

    led = ledger()
    yes = led.consistency("yes", "S", "rises in the sheet", holds=True, check="every step rises", evidence="reanalysis")
    no = led.consistency("no", "S", "rises in the sheet", holds=False, check="every step rises", evidence="reanalysis")
    assert yes.verdict == INCONCLUSIVE == no.verdict and "own noise" in yes.decides
    exact_yes = led.consistency(
        "ey", "S", "text = table", holds=True, check="same numbers", noise_basis=EXACT, evidence="reanalysis"
    )
    exact_no = led.consistency(
        "en", "S", "text = table", holds=False, check="same numbers", noise_basis=EXACT, evidence="reanalysis"
    )
    assert (exact_yes.verdict, exact_no.verdict) == (CONSISTENCY, ERRATUM)
    closed = led.consistency("cf", "S", "closed form", holds=True, check="Eq. 8", evidence="derivation")
    closed_no = led.consistency("cfn", "S", "closed form", holds=False, check="Eq. 8", evidence="derivation")
    assert (closed.verdict, closed_no.verdict) == (CONSISTENCY, ERRATUM)
    # with a noise test both directions decide (a gap within the noise by an equivalence test: here the statement
    # tolerates 0.1)
    small = led.consistency(
        "s",
        "S",
        "x",
        discrepancy=0.01,
        noise=0.02,
        margin=0.1,
        noise_basis=RUN_SPREAD,
        check="c",
        evidence="reanalysis",
    )
    big = led.consistency(
        "b", "S", "x", discrepancy=0.05, noise=0.02, noise_basis=RUN_SPREAD, check="c", evidence="reanalysis"
    )
    assert small.verdict == CONSISTENCY and big.verdict == ERRATUM
    led.finalise()
    assert yes.unadjusted == CONSISTENCY and no.unadjusted == ERRATUM


def test_rows_of_a_registered_central_statement_are_central_and_corrected_with_the_notebook():
    """Issue 45, item 4: the abstract's and conclusion's statements are counted. A row matching a registered
    statement's pattern is made central (and leaves its smaller family for the notebook's); a pattern that matches
    no recorded row is refused on save."""
    from robeval.core.ledger import central

    st = next(s for s in central.STATEMENTS if s.key == "mscr_positive_possible")
    (pattern,) = st.rows["01_mscr_2d"]
    led = Ledger(paper="mscr", notebook="01_mscr_2d", profile="default")
    row = led.comparison(pattern, "Sec. 5.3", "MSCR > 0", interval=_iv(0.5, 0.3, 0.7, n=30), family="Fig. 4", **R)
    other = led.comparison("other", "S", "x", interval=_iv(0.5, 0.3, 0.7, n=30), family="Fig. 4", **R)
    assert not row.central
    led.finalise()
    assert row.central and row.family == "01_mscr_2d" and other.family == "01_mscr_2d / Fig. 4"
    with pytest.raises(ValueError, match="mscr_eps_min_not_the_optimum"):
        led.check_central()  # S54_optimum_above_eps_min is not recorded here
    assert all(s.rows or s.reason for s in central.STATEMENTS)


def test_decides_never_asks_for_more_units_than_exist_and_names_trainings_for_models():
    """Issue 45, item 5: S4.2_all_categories_bn asked for ≈975 schemes (512 exist), T3_ours_best_acr_s0.25 for
    ≈46,546 test images (10,000 exist) although a claim about methods needs trainings, not images."""
    from robeval.core.ledger import phrase_need

    led = ledger()
    schemes = dict(evidence="replication", unit="schemes", about="data")
    far = led.comparison("s", "S4.2", "x", interval=_iv(0.01, -0.05, 0.07, n=500), **schemes)
    assert far.verdict == INCONCLUSIVE
    assert far.decides.startswith("more schemes than exist (≈") and "512 exist" in far.decides
    images = dict(evidence="replication", unit="test images", about="models")
    m = led.comparison("m", "T3", "Ours best", interval=_iv(0.01, -0.05, 0.07, n=500), **images)
    assert m.decides.startswith("independent trainings") and "narrow" in m.decides
    own = dict(evidence="replication", unit="test images", about="one model", available=50_000)
    im = led.comparison("im", "S6", "x", interval=_iv(0.01, -0.05, 0.07, n=500), **own)
    assert "50000 exist" in im.decides or im.decides.startswith("≈")
    assert phrase_need(20, 12, "forest runs", "models") == "≈20 forest runs (now 12)"
    assert phrase_need(None, 12, "forest runs", "models") == "no number of our forest runs"
    assert phrase_need(600, 500, "schemes", "data").startswith("more schemes than exist (≈600 needed, 512 exist)")
    # issue 60, item 6: a reanalysis never asks for more of the authors' units as if they were ours, nor caps
    # ImageNet's images at CIFAR-10's test set: more than their files hold comes only from a replication
    theirs = phrase_need(18_337, 427, "test images", "one model", available=50_000, evidence="reanalysis")
    assert theirs.startswith("more test images than the authors' released files hold (≈18337 needed, 427 there)")
    assert "nothing this world" not in theirs and "10000" not in theirs
    cifar = phrase_need(61_587, 10_000, "test images", "one model", evidence="reanalysis")  # the dataset's own cap
    assert cifar.startswith("more test images than exist (≈61587 needed, 10000 exist)")
    assert phrase_need(30, 20, "runs", "data", evidence="reanalysis").endswith(
        "only a replication that produces them decides it"
    )
    assert phrase_need(15, 20, "runs", "data", evidence="reanalysis") == "≈15 runs (now 20)"
    assert phrase_need(None, 20, "runs", "data", evidence="reanalysis") == "no number of the authors' runs"
    sheet = dict(evidence="reanalysis", unit="forest runs", about="data")
    sh = led.comparison("sh", "T2a", "x", interval=_iv(0.01, -0.05, 0.07, n=20), **sheet)
    assert sh.verdict == INCONCLUSIVE and "the authors' released files hold" in sh.decides, sh.decides
    with pytest.raises(TypeError, match="available"):
        led.comparison("bad", "S", "x", interval=_iv(0.5, 0.3, 0.7), available=0, **R)


# ------------------------------------------------------------------------------- issue 48: the ledger's types
@pytest.mark.parametrize("holds", ["False", "no", float("nan"), 1, None, np.float64(0.0)])
def test_fact_refuses_a_holds_that_is_not_a_bool(holds):
    """``holds="False"`` and ``holds=nan`` were truthy and recorded as reproduced; now refused, naming the row."""
    led = ledger()
    with pytest.raises(TypeError, match=r"fact 'a'.*holds must be True or False"):
        led.fact("a", "T1", "2r", holds=holds, basis="exhaustive search", **X)
    assert led.claims == []
    # numpy bools (a comparison of arrays) are bools
    assert led.fact("b", "T1", "2r", holds=np.bool_(False), basis="exact", **X).verdict == CONTRADICTED


def test_consistency_and_estimates_are_checked_at_record_time():
    led = ledger()
    with pytest.raises(TypeError, match=r"consistency 'c'.*holds must be True or False"):
        led.consistency("c", "T1", "x", holds="True", check="text")
    with pytest.raises(ValueError, match=r"row 'd'.*estimate is nan"):
        led.fact("d", "T1", "x", holds=True, basis="exact", estimate=float("nan"), **X)
    with pytest.raises(ValueError, match=r"row 'e'.*estimate is inf"):
        led.consistency("e", "T1", "x", holds=True, check="text", estimate=[1.0, float("inf")])
    with pytest.raises(TypeError, match=r"row 'f'.*estimate must be a number"):
        led.fact("f", "T1", "x", holds=True, basis="exact", estimate=object(), **X)
    assert led.claims == []
    # numbers, text and lists of them are recorded as before
    assert led.fact("g", "T1", "x", holds=True, basis="exact", estimate=[1, 2.5, "a"], **X).estimate == [1, 2.5, "a"]


def test_check_fact_types_p_values_and_counts():
    from robeval.core.validation import check_fact_types

    check_fact_types("r", p_value=0.0, counts={"n_runs": 12, "n": 3.0})
    for p in (float("nan"), 1.5, -0.1):
        with pytest.raises(ValueError, match="row 7: the p-value must be a finite number in \\[0, 1\\]"):
            check_fact_types("row 7", p_value=p)
    with pytest.raises(TypeError, match="p-value must be a number"):
        check_fact_types("row 7", p_value="0.01")
    with pytest.raises(TypeError, match="n_runs must be a whole number"):
        check_fact_types("row 7", counts={"n_runs": 2.5})
    with pytest.raises(ValueError, match="n_runs must be a count >= 0"):
        check_fact_types("row 7", counts={"n_runs": -1})


# ------------------------------------------------------------------- issue 48: the manifest of result files
def test_save_writes_the_manifest_of_the_result_files_with_the_ledger(tmp_results):
    from robeval.core.io import read_json
    from robeval.core.manifest import MANIFEST_KEY, check_manifest
    from robeval.core.paths import results_dir

    folder = results_dir("default") / "test"  # notebook 99_test's experiment folder
    folder.mkdir(parents=True)
    (folder / "runs.csv").write_text("seed,acc\n0,0.9\n1,0.8\n2,0.7\n")
    np.savez(folder / "arrays.npz", a=np.zeros((5, 2)), b=np.ones(3))
    led = ledger()
    led.fact("a", "T1", "2r", holds=True, basis="exact", **X)
    path = led.save()
    saved = read_json(path)
    rec = saved[MANIFEST_KEY]
    assert sorted(rec) == ["test/arrays.npz", "test/runs.csv"]
    assert rec["test/runs.csv"]["rows"] == 3 and rec["test/runs.csv"]["bytes"] == len("seed,acc\n0,0.9\n1,0.8\n2,0.7\n")
    assert rec["test/arrays.npz"]["rows"] == {"a": 5, "b": 3}
    check_manifest(saved, path, "default")  # the files as saved: nothing to say
    (folder / "runs.csv").write_text("seed,acc\n0,0.9\n")
    with pytest.raises(ValueError, match=r"runs\.csv changed since the ledger .* it now has 1 rows, 3 rows recorded"):
        check_manifest(saved, path, "default")


def test_a_hand_edited_manifest_is_refused_naming_the_ledger(tmp_results):
    from robeval.core.manifest import check_manifest

    with pytest.raises(ValueError, match="x.json: its manifest entry for 'test/a.csv' has no sha256"):
        check_manifest({"notebook": "99_test", "results": {"test/a.csv": "abc"}}, "x.json", "default")
    with pytest.raises(ValueError, match="x.json has no manifest of its result files"):
        check_manifest({"notebook": "99_test", "claims": []}, "x.json", "default")


def test_default_and_paper_ledgers_never_decide_a_row_two_ways():
    """Issue 46, item 2: a row decided at both the default and the paper profile carries the same verdict, and a row
    the default profile decides is not one the paper profile (more runs, the published protocol) finds too fragile
    or too weak under Holm to reach that same verdict."""
    from robeval.core.ledger import load_ledgers

    decided = {REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM}
    default = {(d["notebook"], r["id"]): r for d in load_ledgers("default") for r in d["claims"]}
    paper = {(d["notebook"], r["id"]): r for d in load_ledgers("paper") for r in d["claims"]}
    shared = sorted(set(default) & set(paper))
    assert len(shared) > 200  # the notebooks both profiles ran: 00, 01, 05, 06, 07, 08
    clashes = []
    for key in shared:
        a, b = default[key], paper[key]
        if a["verdict"] in decided and b["verdict"] in decided and a["verdict"] != b["verdict"]:
            clashes.append((key, a["verdict"], b["verdict"]))
        if (
            a["verdict"] in decided
            and b["verdict"] == INCONCLUSIVE
            and b.get("unadjusted") == a["verdict"]
            and (b["n_runs"] or 0) >= (a["n_runs"] or 0)  # the premise: the paper profile rests on more runs
        ):
            clashes.append((key, a["verdict"], f"paper: {b['decides'][:60]}"))
    assert clashes == []
    # the one row the paper profile's larger rerun overruled (rule 7; docs/results.md "notebook 05 at 36 runs"):
    # the Iris minimum at default's 12 runs missed the runs in which a test point sits on the forest's boundary
    row = default[("05_realworld_iris_ionosphere", "fig3a-range.trace1-std.versicolor-virginica")]
    assert row["verdict"] == INCONCLUSIVE and row["unadjusted"] == REPRODUCED
    assert row["decides"].startswith("a larger rerun does not reach it: the paper profile's 36 forest runs")


def test_a_larger_rerun_of_another_profile_overrules_a_decision_in_either_direction(tmp_path, monkeypatch):
    """Rule 7: a decision stands only where no stored ledger of another profile holds the same row on more runs
    with another verdict; fewer runs, the same verdict, the smoke profile and a dry run change nothing."""
    from robeval.core import paths

    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path)
    monkeypatch.delenv("ROBEVAL_DRY_RUN", raising=False)
    stored = {
        "paper": [("up", 36, INCONCLUSIVE, "fragile: a rerun at n = 36 reaches 'reproduced' with probability 0.6"),
                  ("down", 30, REPRODUCED, ""), ("same", 36, REPRODUCED, ""), ("fewer", 6, INCONCLUSIVE, "")],
        "gpu": [("up", 20, CONTRADICTED, "")],
    }  # fmt: skip
    for profile, rows in stored.items():
        rows = [dict(id=i, n_runs=n, verdict=v, decides=d, unit="forest runs") for i, n, v, d in rows]
        (tmp_path / profile / "claims").mkdir(parents=True)
        (tmp_path / profile / "claims" / "99_test.json").write_text(json.dumps({"claims": rows}))

    def decided(profile="default"):
        led = ledger(profile)
        iv = dict(n=12)
        led.comparison("up", "S", "A > B", interval=_iv(0.5, 0.45, 0.55, **iv), **R)
        led.comparison("down", "S", "A > B", interval=_iv(-0.5, -0.55, -0.45, **iv), **R)
        led.comparison("same", "S", "A > B", interval=_iv(0.5, 0.45, 0.55, **iv), **R)
        led.comparison("fewer", "S", "A > B", interval=_iv(0.5, 0.45, 0.55, **iv), **R)
        led.finalise()
        return {c.id: c for c in led.claims}

    rows = decided()
    # overruled by the largest disagreeing rerun (paper's 36, not gpu's 20), in either direction
    assert rows["up"].verdict == INCONCLUSIVE and rows["up"].unadjusted == REPRODUCED
    assert rows["up"].decides == (
        "a larger rerun does not reach it: the paper profile's 36 forest runs give 'inconclusive' (fragile: a rerun "
        "at n = 36 reaches 'reproduced' with probability 0.6)"
    )
    assert rows["down"].verdict == INCONCLUSIVE and rows["down"].unadjusted == CONTRADICTED
    assert (
        rows["down"].decides == "a larger rerun does not reach it: the paper profile's 30 forest runs give 'reproduced'"
    )
    assert rows["same"].verdict == REPRODUCED and rows["fewer"].verdict == REPRODUCED
    from robeval.core.ledger.rules import larger_reruns

    assert set(larger_reruns("default", "99_test")) == {"up", "down", "same", "fewer"}
    assert larger_reruns("smoke", "99_test") == {}  # smoke ledgers decide nothing and consult nothing
    monkeypatch.setenv("ROBEVAL_DRY_RUN", "1")
    assert larger_reruns("default", "99_test") == {} and decided()["up"].verdict == REPRODUCED


def test_an_erratum_against_the_papers_run_spread_is_a_test_in_the_family():
    """Issues 45 and 60 (item 3): a gap judged against the paper's run-to-run spread joins the notebook's Holm
    family (its noise as a 95% band, se = noise / 1.96) and an erratum stands only if it passes; a gap within the
    noise is consistency only if an equivalence test shows it and that decision passes the same gates; a rounding
    or exact check is no sampling test and carries none."""
    from scipy import stats as sst

    def led(gap):
        lg = Ledger(paper="acr", notebook="t", profile="default")
        lg.consistency("far", "T", "a gap far beyond the spread", discrepancy=5.0, noise=1.0, noise_basis=RUN_SPREAD,
                       check="c")  # fmt: skip
        lg.consistency("near", "T", "a gap just beyond it", discrepancy=gap, noise=1.0, noise_basis=RUN_SPREAD,
                       check="c")  # fmt: skip
        lg.consistency("within", "T", "a gap within it", discrepancy=0.5, noise=1.0, noise_basis=RUN_SPREAD,
                       check="c")  # fmt: skip
        lg.consistency("tolerated", "T", "a small gap, a wide tolerance", discrepancy=0.1, noise=1.0, margin=4.0,
                       noise_basis=RUN_SPREAD, check="c")  # fmt: skip
        lg.consistency("barely", "T", "a small gap, a tolerance just past the noise", discrepancy=0.1, noise=1.0,
                       margin=1.2, noise_basis=RUN_SPREAD, check="c")  # fmt: skip
        lg.consistency("printed", "T", "printed twice", discrepancy=0.002, noise=0.0005, noise_basis=ROUNDING,
                       check="c")  # fmt: skip
        lg.consistency("text", "T", "the text", holds=False, noise_basis=EXACT, check="c")
        for i in range(4):  # other tests of the notebook
            lg.comparison(
                f"c{i}",
                "T",
                "x",
                interval=stats.mean_interval([0.1, 0.2, 0.3, 0.25, 0.15]),
                evidence="replication",
                unit="forest runs",
                about="data",
            )
        lg.finalise()
        return {c.id: c for c in lg.claims}

    got = led(1.05)  # z = 1.05 * 1.96 = 2.06, p = 0.040: beyond the noise, but fails Holm over the 9 tests
    assert got["far"].verdict == ERRATUM and got["far"].family_size == 9 and got["far"].stability == 1.0
    assert got["far"].p_value == pytest.approx(2 * sst.norm.sf(5.0 * 1.959964), rel=1e-3)
    assert got["near"].verdict == INCONCLUSIVE and got["near"].unadjusted == ERRATUM and "Holm" in got["near"].decides
    # within the noise: an equivalence test against +-1 cannot reject with se 1/1.96 (p = 2 sf(0.5 * 1.96) = 0.327)
    assert got["within"].verdict == INCONCLUSIVE and got["within"].p_value == pytest.approx(0.327, abs=1e-3)
    # shown within +-4: p = 2 sf(3.9 * 1.96) ~ 1.9e-14, passes Holm and is a decision like the erratum's
    assert got["tolerated"].verdict == CONSISTENCY and got["tolerated"].stability == 1.0
    # shown within +-1.2 alone (p = 2 sf(1.1 * 1.96) = 0.0311) but not after Holm: the consistency is gated too
    assert got["barely"].p_value == pytest.approx(0.0311, abs=1e-3)
    assert got["barely"].verdict == INCONCLUSIVE and got["barely"].unadjusted == CONSISTENCY
    assert "Holm" in got["barely"].decides
    assert got["printed"].verdict == ERRATUM and got["printed"].p_adjusted is None  # rounding: exact bounds
    assert got["text"].verdict == ERRATUM and not got["text"].family
    assert led(2.5)["near"].verdict == ERRATUM  # p = 1e-6: passes


def test_the_readings_of_one_statement_count_once_in_the_family():
    """Intersection-union: a statement decided only when all its readings agree is one test of the notebook's
    family with the largest of its readings' p; the other rows' Holm correction does not grow with the number of
    readings, and each reading is judged at its statement's Holm level."""

    def family(k):
        led = ledger()
        for i in range(k):
            led.comparison(f"r.x{i}", "T", "x", interval=stats.mean_interval([1.0, 1.2, 0.9, 1.1, 1.3] if i else [1.0, 1.4, 0.7, 1.2, 0.2]), **R)  # fmt: skip
        led.readings("r", "T", "x", parts=[f"r.x{i}" for i in range(k)], ambiguity="which reading")
        other = led.comparison("o", "T", "x", interval=stats.mean_interval([0.3, 0.5, 0.2, 0.6, 0.4]), **R)
        led.finalise()
        return led, other

    two, o2 = family(2)
    six, o6 = family(6)
    assert o2.family_size == o6.family_size == 2  # the statement and the other row
    assert o2.p_adjusted == o6.p_adjusted
    parts = [six.get(f"r.x{i}") for i in range(6)]
    weakest = max(c.p_value for c in parts)
    assert {c.family_size for c in parts} == {2}
    rank = 2 if weakest > o6.p_value else 1  # the statement's rank in the family of two
    want = min(1.0, max(o6.p_adjusted if rank == 2 else 0.0, weakest * (2 - rank + 1)))
    assert max(c.p_adjusted for c in parts) == pytest.approx(want, rel=1e-3)


def test_a_statement_of_direction_is_shown_beyond_the_noise_or_contradicted_beyond_it():
    """Issue 60, item 3: "rises at every step" against the paper's run spread: consistency only when its weakest
    step rises beyond the noise, an erratum only when one falls beyond it, otherwise inconclusive — never confirmed
    because nothing went the wrong way; both decisions are one difference test, gated alike."""
    from scipy import stats as sst

    lg = Ledger(paper="acr", notebook="t", profile="default")
    kw = dict(noise=1.0, noise_basis=RUN_SPREAD, check="weakest step")
    up = lg.consistency("up", "T", "rises", claimed=2.5, **kw)
    flat = lg.consistency("flat", "T", "rises", claimed=0.3, **kw)
    down = lg.consistency("down", "T", "rises", claimed=-3.0, **kw)
    assert (up.verdict, flat.verdict, down.verdict) == (CONSISTENCY, INCONCLUSIVE, ERRATUM)
    assert up.p_value == pytest.approx(2 * sst.norm.sf(2.5 * 1.959964), rel=1e-3)
    assert flat.p_value == pytest.approx(2 * sst.norm.sf(0.3 * 1.959964), rel=1e-3)
    assert "neither show" in flat.decides
    lg.finalise()
    assert up.family_size == 3 and up.verdict == CONSISTENCY and down.verdict == ERRATUM
    # exact numbers (tol 0): the sign decides; a tie decides nothing
    ex = Ledger(paper="acr", notebook="t", profile="default")
    signs = [ex.consistency(f"e{i}", "T", "x", claimed=c, noise=0.0, noise_basis=EXACT, check="c") for i, c in
             enumerate((0.1, 0.0, -0.1))]  # fmt: skip
    assert [c.verdict for c in signs] == [CONSISTENCY, INCONCLUSIVE, ERRATUM]
    with pytest.raises(ValueError, match="not both"):
        lg.consistency("x", "T", "x", claimed=1.0, discrepancy=0.0, **kw)
    with pytest.raises(ValueError, match="noise_basis"):
        lg.consistency("y", "T", "x", claimed=1.0, noise=1.0, check="c")


def test_a_setting_registered_as_ambiguous_names_the_rows_that_read_it():
    """Issue 60, item 2: an ambiguity that enters through a setting (``settings``) names, for that notebook, the
    rows computed from it (``rows``), so that every such row is refused unless tested under every reading; the Iris
    rows of notebook 05 read ``iris_classes`` and the 'halving' rows of 01 read the words of Sec. 5.4."""
    from fnmatch import fnmatchcase

    from robeval.core.ledger.ambiguities import AMBIGUITIES

    for key, amb in AMBIGUITIES.items():
        for notebook, names in amb.settings.items():
            assert amb.rows.get(notebook), (key, notebook, names)  # a setting without the rows it reaches
    pair = AMBIGUITIES["realworld_iris_pair"].rows["05_realworld_iris_ionosphere"]
    iris = ("iris-ranking-differs", "iris-dense-near-1", "iris-corr-peak", "iris-mc-convergence", "fig3c-range",
            "fig5-iris-differs")  # fmt: skip
    assert all(any(fnmatchcase(i, p) for p in pair) for i in iris)
    assert not any(fnmatchcase("ionosphere-ranking-differs", p) for p in pair)
    # the central Iris row recorded on our class pair alone: refused
    lg = Ledger(paper="realworld", notebook="05_realworld_iris_ionosphere", profile="default")
    lg.comparison("iris-ranking-differs", "Sec. 4.1.3", "x", interval=_iv(0.2, 0.1, 0.3, n=30), central=True, **R)
    with pytest.raises(ValueError, match=r"under every reading.*realworld_iris_pair"):
        lg.check_ambiguities()
    # "less than halving the classification error" is read both ways; one reading alone is refused
    assert set(AMBIGUITIES["mscr_halving"].readings) == {"below_half", "above_half"}
    lg = Ledger(paper="mscr", notebook="01_mscr_2d", profile="default")
    lg.comparison("SH_error_halved", "Sec. 5.4", "x", interval=_iv(0.2, 0.1, 0.3, n=30), **R)
    with pytest.raises(ValueError, match=r"under every reading.*mscr_halving"):
        lg.check_ambiguities()
    # under both readings: the opposite readings cannot both hold, so the statement is decided only if neither does
    lg = Ledger(paper="mscr", notebook="01_mscr_2d", profile="default")
    (c,) = lg.under_readings(
        "mscr_halving",
        {"below_half": 1.0, "above_half": -1.0},
        lambda led, s: [led.comparison("SH_error_halved", "Sec. 5.4", "x", interval=_iv(0.2 * s, 0.2 * s - 0.1,
                                                                                    0.2 * s + 0.1, n=30), **R)],
    )  # fmt: skip
    assert c.verdict == INCONCLUSIVE and lg.get("SH_error_halved.below_half").verdict == REPRODUCED
    assert c.ambiguity == "mscr_halving" and lg.get("SH_error_halved.above_half").verdict == CONTRADICTED
