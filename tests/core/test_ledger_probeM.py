"""Probe M on core.ledger.Ledger (M9): value(noise=) is checked as consistency() checks it (no erratum against a
NaN or negative noise); the starting rows of Ledger(claims=...) are rows of that ledger (plain unique ids, its
paper/notebook/profile, central a bool, a finite estimate); Ledger(index=...) is checked when it is made, not first
by save()."""

import pytest

from robeval.core.ledger import ROUNDING, Claim, Ledger


def _ledger(**kw):
    return Ledger("mscr", "01_mscr_2d", "default", **kw)


@pytest.mark.parametrize("noise, kind, said", [
    (float("nan"), ValueError, "a: noise must be finite, got nan"),
    (float("inf"), ValueError, "a: noise must be finite, got inf"),
    (-1.0, ValueError, r"a: noise must be >= 0 \(the paper's own noise, in its units\), got -1\.0\."),
    ("x", TypeError, "a: noise must be a number, got 'x'"),
])  # fmt: skip
def test_value_refuses_a_noise_that_is_no_noise(noise, kind, said, tmp_path, monkeypatch):
    # M9: value(paper 0.91, estimate 0.5, noise=nan) -> erratum, NaN saved; noise='x' -> '<=' not supported
    monkeypatch.setenv("ROBEVAL_LEDGER_DIR", str(tmp_path))
    led = _ledger()
    with pytest.raises(kind, match=rf"^{said}"):
        led.value("a", "s", "d", paper=0.91, margin=0.1, estimate=0.5, evidence="reanalysis", noise=noise,
                  noise_basis=ROUNDING)  # fmt: skip
    assert led.claims == []
    row = led.value("a", "s", "d", paper=0.91, margin=0.1, estimate=0.5, evidence="reanalysis", noise=0.5,
                    noise_basis=ROUNDING)  # fmt: skip
    assert row.verdict == "inconclusive" and row.noise == 0.5


BASE = dict(id="x", paper="mscr", source="s", description="d", kind="fact", paper_value="holds", estimate=True,
            ci=None, level=None, margin=None, n_runs=None, rule="r", power=None, verdict="reproduced", decides="",
            central=False, profile="default", notebook="01_mscr_2d", evidence="replication")  # fmt: skip


@pytest.mark.parametrize("rows, said", [
    ([Claim(**BASE), Claim(**BASE)], r"row 1 \('x'\): its id 'x' is listed twice"),
    ([Claim(**{**BASE, "profile": "paper"})], r"row 0 \('x'\): its profile is 'paper', not the ledger's 'default'"),
    ([Claim(**{**BASE, "notebook": "02_mscr_cifar10"})], r"row 0 \('x'\): its notebook is '02_mscr_cifar10', not"),
    ([Claim(**{**BASE, "paper": "acr"})], r"row 0 \('x'\): its paper is 'acr', not the ledger's 'mscr'"),
    ([Claim(**{**BASE, "central": "no"})], r"row 0 \('x'\): central is 'no', not True or False"),
    ([Claim(**{**BASE, "estimate": float("nan")})], r"row 0 \('x'\): its estimate is nan"),
    ([Claim(**{**BASE, "id": "../x"})], r"row 0 \('\.\./x'\): its id '\.\./x' is not a plain name"),
])  # fmt: skip
def test_starting_rows_must_be_rows_of_the_ledger(rows, said):
    # M9: such rows were saved as they are (compare/verify then refused the file)
    with pytest.raises(ValueError, match=rf"^claims: {said}.*; pass rows this ledger records\.$"):
        _ledger(claims=rows)
    assert [c.id for c in _ledger(claims=[Claim(**BASE)]).claims] == ["x"]


@pytest.mark.parametrize("index, kind, said", [
    ("x", TypeError, r"index must be a list of claims index entries \(dicts\), got str 'x'"),
    ([1], ValueError, r"claims index entries need 'source' and 'statement', got 1"),
    ([{"source": "s", "statement": "t", "claims": "A1"}], ValueError,
     r"claims index: index entry 0 \('s'\) has 'claims' 'A1', not a list of id patterns"),
])  # fmt: skip
def test_index_is_checked_when_the_ledger_is_made(index, kind, said):
    # M9: Ledger(index='x').save() -> AttributeError: 'str' object has no attribute 'get'
    with pytest.raises(kind, match=rf"^{said}"):
        _ledger(index=index)
    entry = {"source": "s", "statement": "t", "claims": ["x"]}
    assert _ledger(index=[entry]).index == [entry]


def test_minor_ledger_arguments_are_checked():
    from robeval.core.ledger import phrase_need

    with pytest.raises(TypeError, match=r"^unit must be text"):
        phrase_need(4, 3, None, "")  # '≈4 None'
    with pytest.raises(TypeError, match=r"^about must be text"):
        phrase_need(4, 3, "training runs", 5)
    assert phrase_need(-0.0, 3, "training runs", "") == "≈0 training runs (now 3)"  # was '≈-0.0 ...'
    led = _ledger()
    for basis in (5, "   "):
        with pytest.raises(ValueError, match=r"^basis= must say why the statement is decided exactly"):
            led.fact("f", "s", "d", holds=True, basis=basis, evidence="replication")
    for check in ("", None):
        with pytest.raises(ValueError, match=r"^k: check= must say how the artefacts were checked"):
            led.consistency(
                "k", "s", "d", holds=True, check=check, noise_basis="none (exact: text, counts or closed forms)"
            )
    with pytest.raises(ValueError, match=r"^claim id '\.\.' must be a plain name"):
        led.fact("..", "s", "d", holds=True, basis="b", evidence="replication")
    for mechanism in (5, ["x"]):
        with pytest.raises(TypeError, match=r"^mechanism must be a string"):
            _ledger(mechanism=mechanism)
    for notebook in (".", "-rf"):
        with pytest.raises(ValueError, match=r"must be a plain name"):
            Ledger("mscr", notebook, "default")
