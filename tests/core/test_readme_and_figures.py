"""What the README and results/ say must match the committed default-profile results (never typed by hand)."""

import re

import pytest

from robeval.core import paths, profiles
from robeval.core.ledger import load_ledgers
from robeval.core.publish.report import README_END, README_START, readme_block

# "(default ledger: `nb/id` — verdict)" refers to the default profile's ledger, "(paper ledger: ...)" to the paper
# profile's: every finding names its profile (issue 47, item 1)
FINDING = re.compile(r"\((default|paper|gpu) ledger: `([^`/]+)/([^`]+)` — ([a-z ]+)[);]")
UNNAMED = re.compile(r"(?<![a-z] )\bledger: `")  # a reference without its profile


def _readme() -> str:
    return (paths.ROOT / "README.md").read_text(encoding="utf-8")


def _readme_flat() -> str:
    """The README with every run of whitespace as one space (phrases may wrap across lines)."""
    return " ".join(_readme().split())


def _doc_flat(name: str) -> str:
    """A docs page (``docs/<name>``) with every run of whitespace as one space."""
    return " ".join((paths.ROOT / "docs" / name).read_text(encoding="utf-8").split())


def _block(text: str, start: str = README_START, end: str = README_END) -> str:
    return text.split(start, 1)[1].split(end, 1)[0].strip()


def test_readme_claims_summary_is_generated_from_the_ledgers():
    """One set of counts everywhere: the README's table, the site's home page and the detailed results page are
    generated from the ledgers by one function each, and the README and the home page show the same table."""
    from robeval.core.publish.report import front_block

    assert _block(_readme()) == front_block().strip(), "run `robeval report` to regenerate the README's table"
    # issue 61, item 5: four columns (ten did not fit the home page's column), each row's verdicts as a list
    lines = front_block().splitlines()
    assert lines[0] == "| paper | profile (notebooks run) | central statements | verdicts |"
    for line, r in zip(lines[2:], report_front_counts(), strict=True):
        shown = re.findall(r"\*{0,2}(\d+) ([a-z ]+?)\*{0,2}(?: · |$)", line.rsplit(" | ", 1)[1].rstrip(" |"))
        assert {v: int(n) for n, v in shown} == {v: n for v, n in r.items() if v in _VERDICT_KEYS and n}
    home = (paths.ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert _block(home) == _block(_readme()), "the site's home page shows the README's table"
    detail = (paths.ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert _block(detail) == readme_block("default").strip()
    f0, f1 = "<!-- findings:start -->", "<!-- findings:end -->"
    assert _block(home, f0, f1) == _block(_readme(), f0, f1), "the home page shows the README's findings"


_VERDICT_KEYS = ("reproduced", "contradicted", "inconclusive", "not comparable", "consistency", "erratum", "not run")


def report_front_counts():
    from robeval.core.publish.report import front_counts

    return front_counts()


def test_front_table_recounts_the_ledgers():
    """The front table's counts recomputed here from the ledger files themselves: each registered central statement
    judged from its rows (not single readings) by its quantifier, per paper and profile, by verdict; a statement
    "for all" whose notebook a profile defines but has not run is not decided there (issue 60)."""
    import json
    from fnmatch import fnmatchcase

    from robeval.core.catalog import notebooks_for_profile
    from robeval.core.ledger.central import STATEMENTS, statement_verdict
    from robeval.core.publish.report import front_counts

    got = {(r["paper"], r["profile"]): r for r in front_counts()}
    for profile in ("default", "paper"):
        ledgers = {}
        for f in sorted((paths.ROOT / "results" / profile / "claims").glob("*.json")):
            d = json.loads(f.read_text(encoding="utf-8"))
            ledgers[d["notebook"]] = d
        runs = {p.stem for p in notebooks_for_profile(profile)}
        by_paper = {}
        for st in STATEMENTS:
            if not st.rows or not any(nb in ledgers for nb in st.rows):
                continue
            verdicts = [
                c["verdict"]
                for nb in st.rows
                if nb in ledgers
                for c in ledgers[nb]["claims"]
                if not c["part_of"] and any(fnmatchcase(c["id"], p) for p in st.rows[nb])
            ]
            verdicts += ["not comparable"] * sum(nb in runs and nb not in ledgers for nb in st.rows)
            by_paper.setdefault(st.paper, []).append(statement_verdict(verdicts, st.quantifier))
        for paper, verdicts in by_paper.items():
            r = got[(paper, profile)]
            assert r["central"] == len(verdicts)
            for v in ("reproduced", "contradicted", "inconclusive", "not comparable", "erratum", "consistency"):
                assert r[v] == verdicts.count(v), (paper, profile, v)
    # notebook 02 has no paper-profile ledger: the MSCR statements made for CIFAR-10 too are open there
    assert got[("mscr", "paper")]["inconclusive"] > 0 and got[("mscr", "default")]["not run"] == 0


def test_the_readme_is_a_front_door():
    """The README stays short (what was reproduced, findings, two commands, figures, how to cite); operations go
    to docs pages, which the docs build includes."""
    text = _readme()
    assert len(text.splitlines()) <= 200
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads[:2] == ["## What was reproduced", "## Findings that matter"] and "## How to cite" in heads
    nav = (paths.ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in ("running.md", "results.md", "findings.md", "reliability.md", "speed.md", "layout.md"):
        assert (paths.ROOT / "docs" / page).is_file() and page in nav and f"docs/{page}" in text


HOLDS_WORDS = re.compile(r"\b(reproduce[sd]?|holds?|confirm(?:s|ed)?|follows?)\b", re.I)
FAILS_WORDS = re.compile(r"\b(contradict(?:s|ed)?|erratum|errata|disagrees?|should be|not the|wrong)\b", re.I)


def _check_headings(text: str) -> None:
    """Issue 61, item 3: a finding's bold heading is no stronger than its rows — a heading that says a statement
    holds needs a row that holds (reproduced or consistency), one that says it fails needs a row that fails
    (contradicted or erratum)."""
    findings = text.split("<!-- findings:start -->", 1)[1].split("<!-- findings:end -->", 1)[0]
    for bullet in re.split(r"\n(?=\* )", findings.strip()):
        heading = re.match(r"\* \*\*(.+?)\*\*", bullet)
        if heading is None:
            continue
        verdicts = {v for *_, v in FINDING.findall(" ".join(bullet.split()))}
        if HOLDS_WORDS.search(heading[1]):
            assert verdicts & {"reproduced", "consistency"}, f"heading stronger than its rows: {heading[1]}"
        if FAILS_WORDS.search(heading[1]):
            assert verdicts & {"contradicted", "erratum"}, f"heading stronger than its rows: {heading[1]}"


def test_a_heading_stronger_than_its_rows_fails():
    ok = "<!-- findings:start -->\n* **X holds.** text (default ledger: `01_a/b` — reproduced).\n<!-- findings:end -->"
    _check_headings(ok)
    for bad in ("* **X holds.** text (default ledger: `01_a/b` — inconclusive).",
                "* **X is contradicted.** text (default ledger: `01_a/b` — reproduced)."):  # fmt: skip
        with pytest.raises(AssertionError, match="heading stronger"):
            _check_headings(f"<!-- findings:start -->\n{bad}\n<!-- findings:end -->")


def test_every_finding_points_to_a_ledger_row_with_that_verdict():
    for text in (_readme(), (paths.ROOT / "docs" / "findings.md").read_text(encoding="utf-8")):
        _check_findings(text)
        _check_headings(text)


PROSE_NUMBER = re.compile(r"(?<![\w.])[−-]?\d+(?:\.\d+)?(?:[ ,]\d{3})*(?![\w])")
# where a number names a place in the paper or in our code rather than a value: left out of the check
PLACES = re.compile(r"`[^`]*`|\b(?:Figs?\.|Tables?|Sec\.|Section|App\.|Eq\.|Algorithm)\s*[\dA-Z][\w.]*")


def _numbers_of(rows) -> list[float]:
    """Every number a set of ledger rows states: numeric fields, numbers in their text fields, and the gap between
    each row's estimate and the paper's value."""
    out = []

    def walk(o):
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            out.append(float(o))
        elif isinstance(o, str):
            out.extend(float(m) for m in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", o.replace(",", "")))
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)

    for row in rows:
        walk(row)
        est, paper = row.get("estimate"), row.get("paper_value")
        if isinstance(est, (int, float)) and isinstance(paper, (int, float)):
            out.append(float(est) - float(paper))
    return out


def _prose_numbers(text: str) -> list[str]:
    return PROSE_NUMBER.findall(PLACES.sub("", text))


def _read_off(token: str, values) -> bool:
    """Whether a printed number is one of ``values`` at the digits printed (as a fraction or in percent)."""
    t = token.replace("−", "-").replace(",", "").replace(" ", "")
    x, digits = float(t), len(t.split(".")[1]) if "." in t else 0
    half = 0.5 * 10**-digits + 1e-12
    return any(abs(abs(z) - abs(x)) <= half for v in values for z in (v, 100 * v))


def test_a_number_not_in_its_rows_fails_the_findings_check():
    rows = [{"estimate": 0.703063, "paper_value": 0.684, "n_runs": 1200, "decides": "stable at ≈2152 runs"}]
    values = _numbers_of(rows)
    for printed in ("0.703", "0.019", "1200", "2152", "70.3", "0.68"):
        assert _read_off(printed, values), printed
    for invented in ("0.702", "0.03", "1201", "5.9"):
        assert not _read_off(invented, values), invented
    text = "Fig. 3c and Table 2a (Sec. 5.1), `eps_train = 0.007`: at σ = 1.0, up to 61% of 1 200 points"
    assert _prose_numbers(text) == ["1.0", "61", "1 200"]


def _check_findings(text: str) -> None:
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
        assert not UNNAMED.search(b), f"a ledger reference without its profile: {b[:80]}"
        for profile, notebook, cid, verdict in refs:
            key = (profile, notebook, cid)
            assert verdicts.get(key) == verdict, (
                f"{key[0]} {notebook}/{cid}: ledger says {verdicts.get(key)!r}, README {verdict!r}"
            )
            # a finding rests on replications (that could decide) or on errata beyond the paper's own noise
            row = rows[key]
            replication = row.get("evidence") in ("replication", "scaled replication") and verdict != "not comparable"
            assert replication or verdict == "erratum", f"{notebook}/{cid}: a finding cannot rest on a {verdict} row"
        # issue 61, item 3: every number of the finding is read off the rows it names (a value, an interval, the
        # paper's value, a gap between them, n, a count in the row's own words), up to the digits it prints
        values = []
        for profile, notebook, cid, _ in refs:
            named = [  # the row, its readings, and the readings row it is one reading of
                c
                for k, c in rows.items()
                if k[:2] == (profile, notebook)
                and (k[2] == cid or k[2].startswith(cid + ".") or cid.startswith(k[2] + "."))
            ]
            values += _numbers_of(named)
        for token in _prose_numbers(FINDING.sub("", b)):
            assert _read_off(token, values), f"the number {token} of a finding is in none of its rows: {b[:90]}"


@pytest.mark.parametrize("ext", ["png", "pdf"])
def test_every_committed_figure_has_a_manifest_entry(ext):
    from robeval.core.publish.plotting import load_manifest, resolve_reference

    entries = {e["figure"]: e for e in load_manifest("default")}
    listing = (paths.RESULTS_DIR / "FIGURES.md").read_text(encoding="utf-8")
    for f in sorted(paths.FIGURES_DIR.glob(f"*.{ext}")):
        assert f.stem in entries, (
            f"figures/{f.name} has no manifest entry (saved outside robeval.core.publish.plotting.savefig?)"
        )
        assert f"[{f.stem}]" in listing, f"results/FIGURES.md does not list {f.stem}"
        e = entries[f.stem]
        resolve_reference(e["data_from"])
        if not e["plotted_by"].endswith("(notebook cell)"):
            resolve_reference(e["plotted_by"])


def test_readme_paper_scale_table2a_numbers_match_the_paper_results():
    # the noise-mode finding quotes the whole-table rows of the paper ledger (tolerance, cells inside, largest gap)
    # under the test its sentence names: recompute them from those rows
    (led,) = [d for d in load_ledgers("paper") if d["notebook"] == "01_mscr_2d"]
    rows = {c["id"]: c for c in led["claims"]}
    text = _doc_flat("findings.md")
    shared, iid = rows["T2a_acc.shared"], rows["T2a_acc.iid"]
    assert shared["margin"] == iid["margin"] and f"the sheet's own uncertainty ({shared['margin']:.3f} pp)" in text

    def inside_and_gap(row):
        m = re.match(r"(\d+) of 81 cells inside paper ± [\d.]+; largest \|ours − paper\| ([\d.]+)", row["estimate"])
        return int(m.group(1)), float(m.group(2))

    n, gap = inside_and_gap(shared)
    assert n == 81 and f"all 81 cells inside, largest gap {gap:.3f} pp" in text
    n, gap = inside_and_gap(iid)
    assert f"{n} of 81 inside, largest gap {gap:.3f} pp" in text


def test_readme_paper_profile_row_of_notebook_01_counts_its_ledgers():
    def rows_01(profile, evidence):
        (led,) = [d for d in load_ledgers(profile) if d["notebook"] == "01_mscr_2d"]
        return [c for c in led["claims"] if c["evidence"] == evidence and not c["part_of"]]

    def n(rows, verdict):
        return sum(c["verdict"] == verdict for c in rows)

    paper, scaled = rows_01("paper", "replication"), rows_01("default", "scaled replication")
    text = _doc_flat("running.md")
    assert (
        f"Of its {len(paper)} replication rows {n(paper, 'reproduced')} are reproduced, "
        f"{n(paper, 'contradicted')} contradicted and {n(paper, 'inconclusive')} inconclusive "
        f"(the default profile: {n(scaled, 'inconclusive')} of {len(scaled)})" in text
    )
    assert f"1200 runs decide it, but {n(paper, 'inconclusive')} rows stay open" in text
    (led,) = [d for d in load_ledgers("paper") if d["notebook"] == "01_mscr_2d"]
    shared = [c for c in led["claims"] if c["id"].startswith("T2a_best_") and c["id"].endswith(".shared")]
    assert len(shared) == 9 and n(shared, "reproduced") == 4 and "decide four of the nine bold cells" in text


def test_committed_listings_have_no_dead_links():
    """Issue 47, item 1: FIGURES.md and CLAIMS.md of every committed profile link files a clone has (the paper
    profile's figures are build output; its listings link the PNG copies beside its figure manifest)."""
    listings = [paths.RESULTS_DIR / "FIGURES.md", paths.RESULTS_DIR / "CLAIMS.md"]
    listings += sorted(paths.RESULTS_DIR.glob("*/FIGURES.md")) + sorted(paths.RESULTS_DIR.glob("*/CLAIMS.md"))
    checked = 0
    for listing in listings:
        for target in re.findall(r"\]\(([^)\s]+)\)", listing.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (listing.parent / target.split("#")[0]).resolve()
            assert not path.is_relative_to(paths.BUILD_DIR.resolve()), f"{listing.name} links build output {target}"
            assert path.is_file(), f"{listing.relative_to(paths.ROOT)}: dead link {target}"
            checked += 1
    assert checked >= 40


def test_the_profiles_table_is_generated_from_the_settings():
    """Issue 47, item 5: one table of profiles (command, what it scales down, time on named hardware, executed
    or not), generated from the settings and the committed ledgers, word for word in the README and
    docs/running.md (the website's rerun page); the times agree everywhere."""
    from robeval.core.profiles import (
        PROFILES_END,
        PROFILES_START,
        defines,
        experiments,
        load_table,
        measured_seconds,
        profile_block,
        profile_table,
    )

    block = profile_block()
    for name in ("README.md", "docs/running.md"):
        text = (paths.ROOT / name).read_text(encoding="utf-8")
        assert PROFILES_START + text.split(PROFILES_START, 1)[1].split(PROFILES_END, 1)[0] + PROFILES_END == block, (
            f"{name}: run `robeval report` to regenerate the table of profiles"
        )
    table = profile_table()
    for profile in ("smoke", "default", "long", "gpu", "paper"):
        assert f"`make reproduce PROFILE={profile}`" in table or profile == "default"
    # the default total is the sum of the notebooks' measured times, the same number wherever a time is given
    total = sum(measured_seconds(e) or 0 for e in experiments())
    assert f"**measured {total / 60:.1f} min** ({total} s)" in table
    assert "estimated ~39 min** on one H100/H200" in table and "no (defined for 02, 03, 04, 09)" in table
    assert "notebooks 00, 01, 05, 06, 07, 08 of 10" in table
    for name in ("README.md", "docs/running.md", "docs/index.md", "docs/layout.md"):
        text = " ".join((paths.ROOT / name).read_text(encoding="utf-8").split())
        for other in re.findall(r"(\d+(?:\.\d+)?) min (?:on 2 CPU cores|for all notebooks|for `make reproduce`)", text):
            assert float(other) in (round(total / 60, 1), 44.6), f"{name}: a stray total {other} min"
        assert "about an hour" not in text, name
    # made-up executed state: a profile with every notebook executed reads so
    assert "yes: all 10 notebooks (`results/gpu/`)" not in profile_table()
    gpu = sorted(load_table(e)["meta"]["notebook"] for e in experiments() if defines(e, "gpu"))
    assert "yes: all 4 notebooks (`results/gpu/`)" in profile_table({"gpu": gpu})


def test_one_line_per_paper_says_what_its_rows_say():
    """Issue 47, item 4 / issue 60: the README's first screen (and the site's home page, word for word) gives one
    line per paper; every count and verdict in it is the ledgers' (central statements judged by their quantifiers,
    at the profile it names; the rows it names)."""
    from robeval.core.catalog import notebooks_for_profile
    from robeval.core.ledger.central import judge
    from robeval.core.publish.report import ONELINE_END, ONELINE_START

    readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    home = (paths.ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    block = readme.split(ONELINE_START, 1)[1].split(ONELINE_END, 1)[0]
    text = " ".join(block.split())
    assert block == home.split(ONELINE_START, 1)[1].split(ONELINE_END, 1)[0]
    assert readme.index(ONELINE_START) < readme.index("| # | notebook | paper |")  # above the notebook list

    def judged(profile, paper):
        runs = {p.stem for p in notebooks_for_profile(profile)}
        return [j for j in judge(load_ledgers(profile), runs) if j["paper"] == paper]

    def rows_all(profile, nb):
        return {r["id"]: r["verdict"] for d in load_ledgers(profile) if d["notebook"][:2] == nb for r in d["claims"]}

    def rows(profile, notebooks):
        found = [r for d in load_ledgers(profile) if d["notebook"][:2] in notebooks for r in d["claims"]]
        return {r["id"]: r["verdict"] for r in found if not r.get("part_of")}

    mscr = judged("paper", "mscr")
    bad = [j for j in mscr if j["verdict"] == "contradicted"]
    open_ = [j for j in mscr if j["verdict"] == "inconclusive"]
    only_cifar = [j for j in open_ if j["not_run"] and all(r["verdict"] == "reproduced" for r in j["rows"])]
    assert [j["key"] for j in bad] == ["mscr_1nn_constant_superior"]
    assert rows("paper", ("01",))["F5b_1nn_mscr_superior_0.007"] == "contradicted"
    assert (
        f"of {len(mscr)} central statements at the paper's 1200 runs (`paper` profile) {len(bad)} is contradicted "
        f"(the 1-NN's advantage at every eps_train ≤ 0.007) and {len(open_)} are open, {len(only_cifar)} of them only "
        "because the paper states them for CIFAR-10 too" in text
    )
    mscr_long = judged("long", "mscr")  # 02 on CIFAR-10 at the long profile's scaled networks
    not_comparable = [j for j in mscr_long if j["verdict"] == "not comparable"]
    open_long = [j for j in mscr_long if j["verdict"] == "inconclusive"]
    assert len(not_comparable) + len(open_long) == len(mscr_long)
    cfg = profiles.resolve("mscr_cifar10", "long")
    assert (
        f"On CIFAR-10 at {cfg['runs']} runs of {cfg['epochs']}-epoch ResNet-20s on 2 CPU cores (`long`, notebook 02), "
        f"{len(not_comparable)} of {len(mscr_long)} central statements are not comparable"
        in text
        and f"and {len(open_long)} is open" in text
        and cfg["arch"] == "resnet20"
    )
    msd = judged("default", "msd")
    assert not [j for j in msd if j["verdict"] in ("reproduced", "contradicted", "consistency", "erratum")]
    assert f"none of {len(msd)} central statements is decided" in text
    msd_long = judged("long", "msd")  # the long profile's 04, at the runs its chunks have done
    assert not [j for j in msd_long if j["verdict"] in ("reproduced", "contradicted", "consistency", "erratum")]
    long_04 = next(d for d in load_ledgers("long") if d["notebook"][:2] == "04")
    n_long = {r["n_runs"] for r in long_04["claims"] if r.get("central")}
    assert f"at {min(n_long)} of 10 runs (`long`, notebook 04)" in text  # the runs its central rows rest on
    for profile in ("default", "paper"):
        assert rows(profile, ("05",))["ionosphere-ranking-differs"] == "reproduced"
    # Iris under every class pair the paper may have kept (issue 60, item 2): decided on one pair, open as a whole
    iris = {p: v for p, v in rows_all("paper", "05").items() if p.startswith("iris-ranking-differs.")}
    assert iris["iris-ranking-differs.versicolor-virginica"] == "reproduced" and len(iris) == 3
    assert set(iris.values()) != {"reproduced"} and rows("paper", ("05",))["iris-ranking-differs"] == "inconclusive"
    assert rows("paper", ("06",))["fog-adv-differs"] == "not comparable"
    assert "the rankings differ in 1 of 3 examples" in text and "for Iris only on one of the three class pairs" in text
    theory = next(j for j in judged("default", "realworld") if j["key"] == "rw_counterfactuals_insufficient_theory")
    assert theory["verdict"] == "consistency" and "the theory holds" in text
    acr = judged("default", "acr")
    closed = [j for j in acr if j["verdict"] == "consistency"]
    assert f"{len(closed)} of {len(acr)} central statements hold in closed form" in text
    assert not [j for j in acr if j["verdict"] in ("reproduced", "contradicted")]


def test_text_px_at_page_width_by_hand():
    """Closed forms: a figure narrower than the page is seen at the inline 110 px per inch, a wider one is scaled
    to PAGE_WIDTH_PX; only drawn text counts (an axis turned off has none); the smallest string decides."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robeval.core.publish.plotting import PAGE_WIDTH_PX, STYLE, text_px_at_page_width

    fig = plt.figure(figsize=(3, 2))
    fig.text(0.5, 0.5, "eleven", fontsize=11)
    fig.text(0.2, 0.2, "nine", fontsize=9)
    fig.text(0.3, 0.3, "   ", fontsize=2)  # blank: not text a reader sees
    assert text_px_at_page_width(fig) == pytest.approx(9 / 72 * STYLE["figure.dpi"])
    fig = plt.figure(figsize=(16, 2))
    fig.text(0.0, 0.5, "left edge", fontsize=12)
    fig.text(0.95, 0.5, "right edge", fontsize=12)
    px = text_px_at_page_width(fig)
    width = fig.get_tightbbox().width  # about 16 in: 800 px / 16 in = 50 px per inch
    assert px == pytest.approx(12 / 72 * PAGE_WIDTH_PX / width) and px < 9
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.axis("off")
    assert text_px_at_page_width(fig) == float("inf")
    plt.close("all")


@pytest.mark.parametrize("profile", ["default", "paper"])
def test_every_recorded_figure_is_legible_at_page_width(profile):
    """Issue 47, item 6: every figure the committed manifests record draws no text smaller than MIN_TEXT_PX at
    page width (robeval.core.publish.plotting.text_px_at_page_width, recorded by savefig when the figure was drawn)."""
    from robeval.core.publish.plotting import MIN_TEXT_PX, load_manifest

    entries = load_manifest(profile)
    assert entries
    small = {e["figure"]: e.get("text_px", "not measured") for e in entries}
    small = {k: v for k, v in small.items() if not (v is None or (isinstance(v, float) and v >= MIN_TEXT_PX))}
    assert not small, f"text below {MIN_TEXT_PX} px at page width (or not measured: replot): {small}"


def test_the_readme_lists_every_undecided_statement_with_what_it_needs():
    """Issue 60, item 6: every central statement no executed profile decides is listed in the README with the
    resource its ledgers say would decide it; none that some profile decides is listed."""
    from robeval.core.ledger.central import FAILS, HOLDS, STATEMENTS, judge
    from robeval.core.publish.undecided import OPEN_END, OPEN_START, _need, undecided, undecided_block

    assert _block(_readme(), OPEN_START, OPEN_END) == undecided_block().strip(), "run `robeval report`"
    listed = {e["key"]: e for e in undecided()}
    for profile in ("default", "long", "gpu", "paper"):
        for j in judge(load_ledgers(profile)):
            if j["verdict"] in (*HOLDS, *FAILS):
                assert j["key"] not in listed, (profile, j["key"])
    judged = {j["key"] for p in ("default", "long", "gpu", "paper") for j in judge(load_ledgers(p))}
    decided = {j["key"] for p in ("default", "long", "gpu", "paper") for j in judge(load_ledgers(p))
               if j["verdict"] in (*HOLDS, *FAILS)}  # fmt: skip
    assert set(listed) == {s.key for s in STATEMENTS} - decided and all(e["need"] for e in listed.values())
    assert {s.key for s in STATEMENTS if not s.rows} <= set(listed) and judged - decided <= set(listed)
    # the phrase read off a row's decides, by hand
    assert _need("T2a_best_0.iid: ≈188925 forest runs (now 1200) if the effect is real; more") == (
        "≈188925 forest runs (now 1200) if the effect is real"
    )
    assert _need("x.y: Holm: p = 0.01 (adjusted 0.3) fails the correction; stable at ≈52 runs") == "stable at ≈52 runs"
    assert _need("a test against the paper's own noise (discrepancy= and noise= with noise_basis=, or x") == (
        "a test against the paper's own noise"
    )
    assert _need("the paper's protocol (see mechanism)", "the paper trains 512 networks; we train 1") == (
        "the paper's protocol: the paper trains 512 networks"
    )
    # a ". " inside parentheses ends no sentence (it cut "(App. B)" open and left only "the part 'appb'")
    appb = "the part 'appb' (batch-norm adaptation (App. B)) was not run in this run (parts = [fig2b]); a run with it"
    assert _need(appb) == "the part 'appb' (batch-norm adaptation (App. B)) was not run in this run (parts = [fig2b])"
    assert _need("needs 12 runs. (App. B) says more") == "needs 12 runs"
