import pytest

from robeval import claims


def test_judge_rules():
    assert claims.judge(1.0, 1.04, abs_tol=0.05)[0] == claims.REPRODUCED
    assert claims.judge(1.0, 1.06, abs_tol=0.05)[0] == claims.NOT_REPRODUCED
    assert claims.judge(2.0, 2.1, rel_tol=0.06)[0] == claims.REPRODUCED
    assert claims.judge(2.0, 2.2, rel_tol=0.06)[0] == claims.NOT_REPRODUCED
    assert claims.judge(0.5, 0.45, ci=(0.4, 0.5))[0] == claims.REPRODUCED
    assert claims.judge(0.51, 0.45, ci=(0.4, 0.5))[0] == claims.NOT_REPRODUCED
    assert claims.judge(0.51, 0.45, ci=(0.4, 0.5), abs_tol=0.02)[0] == claims.REPRODUCED
    assert claims.judge(None, None, holds=False)[0] == claims.NOT_REPRODUCED
    assert claims.judge(1.0, float("nan"), abs_tol=1)[0] == claims.NOT_REPRODUCED
    with pytest.raises(ValueError, match="needs a rule"):
        claims.judge(1.0, 1.0)
    with pytest.raises(ValueError, match="low ≤ high"):
        claims.judge(1.0, 1.0, ci=(2, 1))


def test_ledger_roundtrip_and_report(tmp_results):
    led = claims.Ledger(paper="MSCR", notebook="99_test", profile="smoke")
    led.add("a", "Table 1", "2r of B", paper=0.008026, reproduced=0.008026, abs_tol=1e-6, comparable_at=("smoke",))
    led.add("b", "Table 2", "clean acc", paper=99.53, reproduced=97.0, abs_tol=0.1, comparable_at=("smoke",))
    c = led.add("c", "Table 2", "clean acc default-only", paper=99.53, reproduced=99.5, abs_tol=0.1)
    assert c.verdict == claims.NOT_COMPARABLE
    with pytest.raises(ValueError, match="recorded twice"):
        led.add("a", "x", "y", holds=True)
    led.save()
    df = claims.load_claims("smoke")
    assert df.verdict.tolist() == [claims.REPRODUCED, claims.NOT_REPRODUCED, claims.NOT_COMPARABLE]
    text = claims.report("smoke")
    assert "| Siedel et al. 2022 — class separation and MSCR | 3 | 1 | 1 | 1 |" in text
    assert (tmp_results / "build_dir" / "smoke" / "results" / "CLAIMS.md").is_file()


def test_ledger_validates():
    with pytest.raises(ValueError, match="Unknown paper"):
        claims.Ledger(paper="Nope", notebook="x", profile="smoke")
    with pytest.raises(ValueError, match="Unknown profile"):
        claims.Ledger(paper="MSCR", notebook="x", profile="laptop")
