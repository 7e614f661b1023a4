"""The checks every notebook's smoke run passes (tests/notebooks/test_notebooks.py), shared with the tests whose
own smoke run of a notebook is that notebook's smoke run: 09's thread-count check and the website's fixture
(tests/core/test_site.py builds its site from the smoke runs of :data:`SITE_NOTEBOOKS`), so no notebook runs its
smoke profile twice in `make test`."""

from __future__ import annotations

import json
import os
import time

from robeval.core import ledger as claims
from robeval.core import paths
from robeval.core.notebooks import run_notebook

# cheap smoke notebooks (about 1 min together) covering the data notebook, two papers, figures and contradictions:
# the website's test builds its site from their smoke runs, which are also their smoke runs of the suite
SITE_NOTEBOOKS = (
    "00_data_and_environment",
    "07_realworld_analytical",
    "08_acr_published_certifications",
)
# opt-in: a build/smoke folder stored earlier, copied by the site's fixture instead of the SITE_NOTEBOOKS' smoke runs
# (then test_notebooks.py runs their smoke runs itself)
SITE_SMOKE_BUILD_ENV = "ROBEVAL_SITE_SMOKE_BUILD"
SMOKE_BUDGET_S = 180  # a smoke run's wall-clock limit, asserted only with ROBEVAL_STRICT_TIME=1


def site_runs_smoke() -> bool:
    """Whether the website's fixture runs the smoke runs of :data:`SITE_NOTEBOOKS` (not opted out by a stored build)."""
    return not os.environ.get(SITE_SMOKE_BUILD_ENV)


# Contradictions that smoke must find: they are computed on the authors' published files, which every profile
# reads in full, so they do not depend on the profile (the README's findings list them).
# contradictions of the paper found at smoke: none are expected (a smoke run is not comparable); notebook 08
# re-analyses the authors' own files, so its findings against the text are errata, checked by id
KNOWN_CONTRADICTIONS: dict[str, set[str]] = {}
KNOWN_ERRATA = {
    "08_acr_published_certifications": {
        "B1_plugin_is_expectation",  # the ECDF plug-in is not the expected certified accuracy near the largest radius
        "S51_share_below_half_s1.0",  # 49-61% of test points, not 20-50%, have p_A < 1/2 at sigma = 1.0
        # B3_strict_orders_1 (Ours not above CAT-RS on all of x in [0.5, 1]) is an erratum by its own test but
        # fragile since issue 45's stability rule (0.835 < 0.9 at 10,000 images): inconclusive, kept as unadjusted
    },
}


def run_smoke(path):
    """Notebook ``path``'s smoke run of the suite, under the current project root: it finishes, its ledger passes
    :func:`check_smoke_ledger`, and (with ROBEVAL_STRICT_TIME=1) it took less than :data:`SMOKE_BUDGET_S`."""
    t0 = time.perf_counter()
    out = run_notebook(path, "smoke")
    elapsed = time.perf_counter() - t0
    assert out.is_file()
    check_smoke_ledger(path, paths.results_dir("smoke") / "claims" / f"{path.stem}.json")
    if os.environ.get("ROBEVAL_STRICT_TIME"):
        assert elapsed < SMOKE_BUDGET_S, f"{path.stem}: smoke run took {elapsed:.0f} s"


def check_smoke_ledger(path, ledger_path):
    """A smoke run's ledger: rows recorded, each with an evidence class, exactly the known contradictions and errata
    (the smoke sizes make some rows contradict), nested readings well formed."""
    assert ledger_path.is_file(), f"{path.name} recorded no claims (call ledger.save())"
    recorded = json.loads(ledger_path.read_text())["claims"]
    assert recorded, f"{path.name}: empty claims ledger"
    failed = [
        c["id"]
        for c in recorded
        if c["verdict"] == claims.CONTRADICTED
        and c["profile"] == "smoke"
        and c.get("_smoke_checked", True)
        and "smoke" in _comparable(c)
    ]
    expected = KNOWN_CONTRADICTIONS.get(path.stem, set())
    assert set(failed) == expected, (
        f"{path.name}: claims contradicted at smoke {sorted(failed)}, expected exactly {sorted(expected)}"
    )
    verdicts = {c["id"]: c["verdict"] for c in recorded}
    for cid in KNOWN_ERRATA.get(path.stem, ()):
        assert verdicts.get(cid) == claims.ERRATUM, f"{path.name}: {cid} should be an erratum, got {verdicts.get(cid)}"
    assert all(c.get("evidence") in claims.EVIDENCE for c in recorded), f"{path.name}: a row without evidence class"
    check_nested_readings(path.stem, recorded)


# rows that rest on two ambiguities: readings of the outer one whose every part is a readings row of the inner one
NESTED_READINGS = {
    "05_realworld_iris_ionosphere": {
        "fig5-iris-differs": ("realworld_fig3_axis", "realworld_iris_pair"),
        "fig5-iris-vs-ionosphere": ("realworld_fig3_axis", "realworld_iris_pair"),
    },
}


def check_nested_readings(stem, recorded):
    from robeval.core.ledger.ambiguities import AMBIGUITIES

    rows = {c["id"]: c for c in recorded}
    for cid, (outer, inner) in NESTED_READINGS.get(stem, {}).items():
        row = rows[cid]
        assert row["kind"] == "readings" and row["ambiguity"] == outer and set(row["depends"]) == {outer, inner}
        for r in AMBIGUITIES[outer].readings:
            part = rows[f"{cid}.{r}"]
            assert part["part_of"] == cid and part["ambiguity"] == inner, part["id"]
            for q in AMBIGUITIES[inner].readings:
                assert rows[f"{cid}.{r}.{q}"]["part_of"] == part["id"]


def _comparable(claim) -> tuple:
    # a claim judged under smoke is comparable there unless its verdict says otherwise
    return () if claim["verdict"] == claims.NOT_COMPARABLE else ("smoke",)
