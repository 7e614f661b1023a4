"""What the README and results/ say must match the committed default-profile results (never typed by hand)."""

import re

import pytest

from robeval.core import paths
from robeval.core.ledger import load_ledgers
from robeval.core.report import README_END, README_START, readme_block

# "(ledger: `nb/id` — verdict)" refers to the default profile's ledger, "(paper ledger: ...)" to the paper profile's
FINDING = re.compile(r"\((paper )?ledger: `([^`/]+)/([^`]+)` — ([a-z ]+)\)")


def _readme() -> str:
    return (paths.ROOT / "README.md").read_text(encoding="utf-8")


def _readme_flat() -> str:
    """The README with every run of whitespace as one space (phrases may wrap across lines)."""
    return " ".join(_readme().split())


def test_readme_claims_summary_is_generated_from_the_ledgers():
    text = _readme()
    block = text.split(README_START, 1)[1].split(README_END, 1)[0].strip()
    assert block == readme_block("default").strip(), "run `robeval report` to regenerate the README's summary"


def test_every_finding_points_to_a_ledger_row_with_that_verdict():
    text = _readme()
    findings = text.split("<!-- findings:start -->", 1)[1].split("<!-- findings:end -->", 1)[0]
    bullets = []  # a bullet and its indented continuation lines
    for line in findings.splitlines():
        if line.startswith("* "):
            bullets.append(line)
        elif line.startswith("  ") and bullets:
            bullets[-1] += " " + line.strip()
    assert bullets, "the README lists its findings beyond the papers"
    rows = {
        (profile, d["notebook"], c["id"]): c
        for profile in ("default", "paper")
        for d in load_ledgers(profile)
        for c in d["claims"]
    }
    verdicts = {k: c["verdict"] for k, c in rows.items()}
    for b in bullets:
        refs = FINDING.findall(b)
        assert refs, f"finding without a ledger reference: {b[:80]}"
        for paper, notebook, cid, verdict in refs:
            key = ("paper" if paper else "default", notebook, cid)
            assert verdicts.get(key) == verdict, (
                f"{key[0]} {notebook}/{cid}: ledger says {verdicts.get(key)!r}, README {verdict!r}"
            )
            # a finding rests on replications (that could decide) or on errata beyond the paper's own noise
            row = rows[key]
            replication = row.get("evidence") in ("replication", "scaled replication") and verdict != "not comparable"
            assert replication or verdict == "erratum", f"{notebook}/{cid}: a finding cannot rest on a {verdict} row"


@pytest.mark.parametrize("ext", ["png", "pdf"])
def test_every_committed_figure_has_a_manifest_entry(ext):
    from robeval.core.plotting import load_manifest, resolve_reference

    entries = {e["figure"]: e for e in load_manifest("default")}
    listing = (paths.RESULTS_DIR / "FIGURES.md").read_text(encoding="utf-8")
    for f in sorted(paths.FIGURES_DIR.glob(f"*.{ext}")):
        assert f.stem in entries, (
            f"figures/{f.name} has no manifest entry (saved outside robeval.core.plotting.savefig?)"
        )
        assert f"[{f.stem}]" in listing, f"results/FIGURES.md does not list {f.stem}"
        e = entries[f.stem]
        resolve_reference(e["data_from"])
        if not e["plotted_by"].endswith("(notebook cell)"):
            resolve_reference(e["plotted_by"])


def test_readme_paper_scale_table2a_numbers_match_the_paper_results():
    # the noise-mode finding quotes counts and gaps of the committed paper-profile comparison: recompute them
    import pandas as pd

    cmp = pd.read_csv(paths.ROOT / "results" / "paper" / "mscr_2d" / "table2a_vs_reference_B_Linf.csv")
    text = _readme_flat()
    by = {m: g for m, g in cmp.groupby("mode")}
    shared, iid = by["shared_offsets"], by["iid"]
    assert len(shared) == len(iid) == 81
    assert f"all {int(shared.inside.sum())} of 81 cells" in text and int(shared.inside.sum()) == 81
    assert f"(largest gap {shared['diff'].abs().max():.2f} pp)" in text
    assert f"the i.i.d. runs only {int(iid.inside.sum())} of 81 (largest gap {iid['diff'].abs().max():.2f} pp)" in text
    at = iid.set_index(["eps_test", "eps_train"])["diff"]
    assert f"+{at[(0.0, 0.03)]:.2f} pp over the published cell at eps_train = 0.03" in text
    assert f"−{-at[(0.03, 0.03)]:.2f} pp at eps_test = eps_train = 0.03" in text


def test_readme_paper_profile_row_of_notebook_01_counts_its_ledgers():
    def rows_01(profile, evidence):
        (led,) = [d for d in load_ledgers(profile) if d["notebook"] == "01_mscr_2d"]
        return [c for c in led["claims"] if c["evidence"] == evidence]

    def n(rows, verdict):
        return sum(c["verdict"] == verdict for c in rows)

    paper, scaled = rows_01("paper", "replication"), rows_01("default", "scaled replication")
    text = _readme_flat()
    assert (
        f"Of its {len(paper)} replication rows {n(paper, 'reproduced')} are reproduced, "
        f"{n(paper, 'contradicted')} contradicted" in text
    )
    assert (
        f"and {n(paper, 'inconclusive')} inconclusive (the default profile: {n(scaled, 'inconclusive')} of {len(scaled)})"
        in text
    )
    assert f"1200 runs decide it, but {n(paper, 'inconclusive')} rows stay open" in text
    shared = [c for c in paper if c["id"].startswith("T2a_best_shared_")]
    assert len(shared) == 9 and n(shared, "reproduced") == 8 and "decide eight of the nine bold cells" in text
