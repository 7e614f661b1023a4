"""Every figure labelled by its rows (issue 61, item 2): a figure "reproduces" a paper figure only where the ledger
rows testing it are decided at that profile; otherwise it is a pipeline check, a scaled replication, a stand-in or
an undecided replication (robeval.core.publish.labels), in FIGURES.md, the gallery and the figure's caption."""

from __future__ import annotations

import re

import pytest

from robeval.core import paths
from robeval.core.publish.labels import figure_label, figure_rows, paper_refs, same_or_panel


def _row(rid, source, verdict, evidence="replication", part_of=""):
    return {"id": rid, "source": source, "verdict": verdict, "evidence": evidence, "part_of": part_of}


FIG5 = {"figure": "mscr_fig5", "notebook": "01_x", "reproduces": "MSCR Fig. 5"}


def test_refs_and_panels():
    assert paper_refs("Fig. 6a / Sec. 4") == ["Fig. 6a", "Sec. 4"]
    assert same_or_panel("Fig. 6a", "Fig. 6") and not same_or_panel("Fig. 6a", "Fig. 6b")


@pytest.mark.parametrize(
    ("ledger", "kind", "text"),
    [
        # decided replication rows at the paper's scale: it reproduces the figure
        (
            {"claims": [_row("a", "Fig. 5", "reproduced"), _row("b", "Fig. 5b", "inconclusive")]},
            "reproduces",
            "reproduces MSCR Fig. 5",
        ),
        # the same rows all undecided
        (
            {"claims": [_row("a", "Fig. 5", "inconclusive")]},
            "replication",
            "replication of MSCR Fig. 5, undecided at `paper`",
        ),
        # scaled replication, even where decided
        (
            {"claims": [_row("a", "Fig. 5", "reproduced", "scaled replication")]},
            "scaled replication",
            "scaled replication of MSCR Fig. 5",
        ),
        # a run sized as a pipeline check (decided_by), whatever its reanalysis rows decide
        (
            {"decided_by": "gpu", "claims": [_row("a", "Fig. 5", "erratum", "reanalysis")]},
            "pipeline check",
            "pipeline check of MSCR Fig. 5",
        ),
        # replication rows all not comparable: a stand-in when the run says synthetic data, else a pipeline check
        (
            {"scaling": "synthetic data instead of ERA5", "claims": [_row("a", "Fig. 5", "not comparable")]},
            "stand-in",
            "stand-in for MSCR Fig. 5",
        ),
        ({"claims": [_row("a", "Fig. 5", "not comparable")]}, "pipeline check", "pipeline check of MSCR Fig. 5"),
        # re-analysed published files: reproduces where a check decides, else an undecided reanalysis
        ({"claims": [_row("a", "Fig. 5", "consistency", "reanalysis")]}, "reproduces", "reproduces MSCR Fig. 5"),
        (
            {"claims": [_row("a", "Fig. 5", "inconclusive", "reanalysis")]},
            "reanalysis",
            "reanalysis of MSCR Fig. 5, undecided at `paper`",
        ),
        # rows of other figures, single readings: none of its rows
        (
            {"claims": [_row("a", "Fig. 6", "reproduced"), _row("b", "Fig. 5", "reproduced", part_of="c")]},
            "no row",
            "drawn after MSCR Fig. 5 (no ledger row tests it)",
        ),
        (None, "no row", "drawn after MSCR Fig. 5 (no ledger row tests it)"),
    ],
)
def test_figure_label_from_its_rows(ledger, kind, text):
    label = figure_label(FIG5, ledger, "paper")
    assert (label["kind"], label["text"]) == (kind, text)
    assert label["rows"] == len(figure_rows(FIG5, ledger))


def test_figure_label_tally_and_no_paper_figure():
    ledger = {
        "claims": [_row("a", "Fig. 5", "reproduced"), _row("b", "Fig. 5", "reproduced"), _row("c", "Fig. 5a", "x")]
    }
    assert figure_label(FIG5, ledger, "paper")["tally"] == "rows at `paper`: 2 reproduced, 1 x"
    chart = {"figure": "claims_summary", "reproduces": "the claims ledger (no paper figure)"}
    assert figure_label(chart, None, "default") == {
        "kind": "no paper figure",
        "title": "Shows",
        "text": "shows the claims ledger (no paper figure)",
        "rows": 0,
        "tally": "",
    }


def _figures_md(profile: str) -> dict[str, str]:
    path = paths.ROOT / "results" / ("FIGURES.md" if profile == "default" else f"{profile}/FIGURES.md")
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| \[([^\]]+)\]\([^)]*\) \| ([^|]+) \|", line)
        if m:
            out[m[1]] = m[2].strip()
    return out


def test_committed_figures_md_claims_no_more_than_its_rows():
    """The figures the issue found labelled "Reproduces" for pipeline checks and a stand-in say what they are;
    the paper profile's decided replications keep "reproduces"."""
    default, paper = _figures_md("default"), _figures_md("paper")
    for name in ("mscr_fig6b_tradeoff_cifar", "mscr_fig7_accuracy_surface", "mscr_table2b_heatmap"):
        assert default[name].startswith("pipeline check of MSCR"), name
    assert default["msd_table1_c_vs_cbar"].startswith("pipeline check of Mintun et al. Table 1")
    assert default["acr_table5_ecdf_and_certified_accuracy"].startswith("pipeline check of Sun et al. Table 5")
    assert default["realworld_fig6_fog"].startswith("stand-in for Scher & Trügler Fig. 6")
    assert paper["realworld_fig6_fog"].startswith("stand-in for Scher & Trügler Fig. 6")
    assert default["mscr_fig5_rf_vs_1nn"].startswith("scaled replication of MSCR Fig. 5")
    assert paper["mscr_fig5_rf_vs_1nn"].startswith("reproduces MSCR Fig. 5 (rows at `paper`: 12 reproduced")
    assert (
        paper["mscr_fig4_effect_of_k"]
        == "replication of MSCR Fig. 4, undecided at `paper` (rows at `paper`: 1 inconclusive)"
    )
