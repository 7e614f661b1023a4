"""The claims report: every notebook's ledger of a profile aggregated into one Markdown file
(``results/CLAIMS.md`` for the default profile).
"""

from __future__ import annotations

import math
import os
import re

from robeval.core.io import atomic_write_text
from robeval.core.ledger import (
    CONSISTENCY,
    CONTRADICTED,
    DERIVATION,
    ERRATUM,
    EVIDENCE,
    FAILED,
    INCONCLUSIVE,
    NOT_COMPARABLE,
    PAPERS,
    REANALYSIS,
    REPLICATION,
    REPRODUCED,
    SCALED,
    VERDICTS,
    VERIFIED,
    claim_id_error,
    load_claims,
    load_ledgers,
)
from robeval.core.ledger.central import judge
from robeval.core.paths import figures_dir, results_dir
from robeval.core.publish.markdown import cell, code, inline, replace_block, split_block


def format_value(v) -> str:
    """A recorded value as short text: None as "—", booleans as yes/no, floats to 4 significant digits,
    lists and tuples element-wise (shared by the Markdown report and the website)."""
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    return str(v)


def _fmt(v) -> str:
    """:func:`format_value` for a Markdown table cell: one line, pipes escaped, no raw HTML
    (:func:`robeval.core.publish.markdown.cell`)."""
    return cell(format_value(v))


_BADGE = {
    REPRODUCED: "**reproduced**",
    CONTRADICTED: "**contradicted**",
    INCONCLUSIVE: "*inconclusive*",
    NOT_COMPARABLE: "*not comparable*",
    CONSISTENCY: "consistency",
    ERRATUM: "**erratum**",
    VERIFIED: "verified",
    FAILED: "**failed**",
}

DEFINITIONS = (
    "Every row says what its verdict rests on (its *evidence class*): **replication** (our own experiment under "
    "the paper's protocol), **scaled replication** (ours at reduced scale; the row states what was scaled and why "
    "the mechanism the claim is about survives — if it does not, the row is *not comparable*), **reanalysis** "
    "(the authors' released files and printed tables), **derivation** (closed forms, theorems, identities, our "
    "estimator against our closed form) and **environment** (data files and counts; outside the paper tallies). "
    "Only replications are **reproduced** or **contradicted**: for a number, our 95% CI lies inside (outside) "
    "paper ± margin — *equivalent within ± margin*, the margin defended on the row; for a statement, the CI of "
    "the paired difference (trend) excludes 0 on the claimed (other) side, Holm-corrected over each notebook's "
    "central comparisons; a claim about training methods is decided only over ≥ 3 independent trainings. "
    "Reanalyses and derivations are consistency / **erratum** (an erratum exceeds the paper's own noise). "
    "*inconclusive*: the evidence cannot decide, the row says what would. n counts the row's *unit*."
)


def counted(df):
    """The rows that count in the tallies: every row except the single readings of an ambiguous statement
    (``part_of``; their combined row counts)."""
    part = df["part_of"].astype(object).fillna("") if "part_of" in df else None
    return df if part is None else df[part.map(lambda v: not (isinstance(v, str) and v))]


def _decided(df):
    """Rows whose verdict decides their claim (reproduced/contradicted, consistency/erratum)."""
    return df["verdict"].isin([REPRODUCED, CONTRADICTED, CONSISTENCY, ERRATUM])


def _class(c) -> str:
    ev = getattr(c, "evidence", None)
    ev = ev if isinstance(ev, str) else "—"
    unit = getattr(c, "unit", None)
    return ev + (f" ({unit})" if isinstance(unit, str) and unit else "")


def central_by_evidence(df):
    """Central claims per paper: how many are decided by a replication at the paper's scale, by a scaled
    replication, by a reanalysis or derivation, and how many stay undecided (a DataFrame, one row per paper)."""
    import pandas as pd

    rows = []
    for paper, g in df.groupby("paper", sort=False):
        c = g[g["central"].astype(bool)]
        if paper == "core" or c.empty:
            continue
        dec = _decided(c)
        ev = c["evidence"].astype(object).fillna("—")
        rows.append(
            {
                "paper": PAPERS.get(paper, paper),
                "central rows": len(c),
                "replication": int((dec & (ev == REPLICATION)).sum()),
                "scaled replication": int((dec & (ev == SCALED)).sum()),
                "reanalysis / derivation": int((dec & ev.isin([REANALYSIS, DERIVATION])).sum()),
                "inconclusive": int((c["verdict"] == INCONCLUSIVE).sum()),
                "not comparable": int((c["verdict"] == NOT_COMPARABLE).sum()),
            }
        )
    return pd.DataFrame(rows)


def _md_table(frame) -> list[str]:
    cols = list(frame.columns)
    out = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 1)]
    out += ["| " + " | ".join(str(v) for v in r) + " |" for r in frame.itertuples(index=False)]
    return out


def _evidence_tally(df, verdicts=VERDICTS) -> list[str]:
    """Verdict counts per paper and evidence class (Markdown rows)."""
    lines = ["| paper | evidence | " + " | ".join(verdicts) + " | rows |", "|---|---|" + "---:|" * (len(verdicts) + 1)]
    for paper, g in df.groupby("paper", sort=False):
        ev = g["evidence"].astype(object).fillna("—")
        for cls in [*EVIDENCE, "—"]:
            sub = g[ev == cls]
            if sub.empty:
                continue
            counts = sub["verdict"].value_counts()
            lines.append(
                f"| {PAPERS.get(paper, paper)} | {cls} | "
                + " | ".join(str(counts.get(v, 0)) for v in verdicts)
                + f" | {len(sub)} |"
            )
    return lines


def _evidence(c) -> str:
    """Ours vs the paper in one cell: estimate, CI and runs."""
    parts = [f"ours {_fmt(c.estimate)}"]
    if c.ci is not None and not (isinstance(c.ci, float) and math.isnan(c.ci)):
        ci = f"CI {_fmt(tuple(c.ci))}"
        # an interval that looks decisive on an inconclusive row: what overrode it, beside it (issue 47, item 4)
        if c.verdict == "inconclusive" and getattr(c, "unadjusted", ""):
            if c.p_adjusted is not None and c.p_adjusted > 0.05:
                ci += f" (Holm-adjusted p = {c.p_adjusted:.3g})"
            elif c.stability is not None and c.stability < 0.9:
                ci += f" (stability {c.stability:.3g} < 0.9)"
        parts.append(ci)
    if c.n_runs is not None and c.n_runs == c.n_runs:
        parts.append(f"n={int(c.n_runs)}")
    return f"paper {_fmt(c.paper_value)}; " + ", ".join(parts)


def _rule(c) -> str:
    text = c.rule
    if c.power is not None and c.power == c.power:
        text += f"; power {c.power:.2f}"
    if c.decides:
        text += f"; decided by {c.decides}"
    scaling = getattr(c, "scaling", None)
    if isinstance(scaling, str) and scaling:
        mech = getattr(c, "mechanism", "")
        text += f"; mechanism: {mech}" if isinstance(mech, str) and mech else ""
    return text


def _summary_chart(df, profile: str) -> None:
    """The verdict counts per paper as a chart, saved beside the figures (``claims_summary``)."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from robeval.core.publish.plotting import claims_summary, savefig

    short = {"mscr": "MSCR (Siedel 2022)", "msd": "MSD (Mintun 2021)", "realworld": "real-world (Scher)",
             "acr": "ACR (Sun 2025)", "core": "data & environment"}  # fmt: skip
    order = [short.get(p, p) for p in dict.fromkeys(df["paper"])]
    counts = (
        pd.crosstab(df["paper"].map(lambda p: short.get(p, p)), df["verdict"])
        .reindex(columns=VERDICTS, fill_value=0)
        .reindex(order)
    )
    fig = claims_summary(counts, profile)
    savefig(
        fig,
        "claims_summary",
        profile,
        reproduces="the claims ledger (no paper figure)",
        data_from="robeval.core.ledger.load_claims",
        notebook="robeval report",
    )
    plt.close(fig)


def report(profile: str, path=None) -> str:
    """Aggregate all ledgers of ``profile`` into Markdown (``results/CLAIMS.md`` for default, else
    ``<results_dir>/CLAIMS.md``) and return the text: per paper the verdict counts, the central claims, the
    coverage of the paper's claims index, then every row with its test. With no ledger of ``profile`` and no
    earlier file, nothing is written (a profile never run gets no CLAIMS.md saying it has no claims)."""
    from fnmatch import fnmatchcase

    from robeval.core.catalog import notebooks_for_profile

    ledgers = load_ledgers(profile)
    everything = load_claims(profile)
    df = counted(everything)
    lines = [
        f"# Claims ledger — profile `{profile}`",
        "",
        "Generated by `make reproduce` (or `make report`) from the notebooks' ledgers (`robeval.core.ledger`). "
        + DEFINITIONS
        + " Every row states its test, confidence level, n with its unit, and power.",
        "",
    ]
    missing = [p.stem for p in notebooks_for_profile(profile) if p.stem not in {d["notebook"] for d in ledgers}]
    if missing:
        lines += [f"Notebooks with no ledger under this profile yet (not run, or failed): {', '.join(missing)}.", ""]
    if df.empty:
        lines.append("No claims recorded yet for this profile.")
    else:
        _summary_chart(df, profile)
        lines += [
            "## Summary",
            "",
            _chart_line(figures_dir(profile) / "claims_summary.png", profile),
            "",
            "| paper | " + " | ".join(VERDICTS) + " | rows |",
            "|---|" + "---:|" * (len(VERDICTS) + 1),
        ]
        for paper, g in df.groupby("paper", sort=False):
            counts = g["verdict"].value_counts()
            lines.append(
                f"| {PAPERS.get(paper, paper)} | "
                + " | ".join(str(counts.get(v, 0)) for v in VERDICTS)
                + f" | {len(g)} |"
            )
        central = central_by_evidence(df)
        if len(central):
            lines += ["", "### Central rows: what decides them", "", *_md_table(central)]
        lines += ["", "### Verdicts per evidence class", "", *_evidence_tally(df)]
        judged = judge(ledgers)
        for paper, g_all in everything.groupby("paper", sort=False):
            g = counted(g_all)
            lines += ["", f"## {PAPERS.get(paper, paper)}", ""]
            mine = [j for j in judged if j["paper"] == paper]
            if mine:
                lines += statement_lines(mine) + [""]
            central = g[g["central"].astype(bool)]
            if len(central):
                lines += [
                    "### Central rows",
                    "",
                    "| claim | source | verdict | rests on | numbers |",
                    "|---|---|---|---|---|",
                ]
                for c in central.itertuples():
                    lines.append(
                        f"| {_fmt(c.description)} | {_fmt(c.source)} | {_BADGE.get(c.verdict, _fmt(c.verdict))} | "
                        f"{_fmt(_class(c))} | {_fmt(_evidence(c))} |"
                    )
                lines.append("")
            index = [(d["notebook"], e) for d in ledgers if d["paper"] == paper for e in d["index"]]
            if index:
                lines += [
                    "### Coverage of the paper's statements",
                    "",
                    "| source | statement | tested by |",
                    "|---|---|---|",
                ]
                for nb, e in index:
                    pats = tuple(e.get("claims", []))
                    hit = [nb_ == nb and any(fnmatchcase(i, p) for p in pats) for nb_, i in zip(g["notebook"], g["id"])]
                    rows = g[hit]
                    if len(rows):
                        counts = rows["verdict"].value_counts()
                        tested = ", ".join(f"{n} {v}" for v, n in counts.items())
                    else:
                        tested = f"not tested: {e.get('reason', '')}"
                    lines.append(f"| {_fmt(e['source'])} | {_fmt(e['statement'])} | {_fmt(tested)} |")
                lines.append("")
            lines += [
                "### All rows",
                "",
                "| id | source | claim | rests on | numbers | test | verdict | notebook |",
                "|---|---|---|---|---|---|---|---|",
            ]
            for c in g_all.itertuples():
                desc = c.description + (f" ({c.note})" if c.note else "")
                if isinstance(c.part_of, str) and c.part_of:
                    desc += f" [one reading of {c.part_of}]"
                lines.append(
                    f"| {_fmt(c.id)} | {_fmt(c.source)} | {_fmt(desc)} | {_fmt(_class(c))} | {_fmt(_evidence(c))} | "
                    f"{_fmt(_rule(c))} | {_BADGE.get(c.verdict, _fmt(c.verdict))} | {_fmt(c.notebook)} |"
                )
    text = "\n".join(lines) + "\n"
    if path is None:
        from robeval.core.paths import RESULTS_DIR

        path = RESULTS_DIR / "CLAIMS.md" if profile == "default" else results_dir(profile, create=False) / "CLAIMS.md"
    if ledgers or os.path.lexists(path):
        atomic_write_text(path, text)
    return text


def figures_report(profile: str, path=None) -> str:
    """The figure manifest of ``profile`` as Markdown (``results/FIGURES.md`` for default, else
    ``<results_dir>/FIGURES.md``): every figure with what it shows at ``profile``, judged from its ledger rows
    (:func:`robeval.core.publish.labels.figure_label`: "reproduces" only where they are decided), its notebook,
    the function that computed its data and the one that drew it. Returns the text. With no figure, no ledger of
    ``profile`` and no earlier file, nothing is written."""
    from robeval.core.paths import RESULTS_DIR
    from robeval.core.publish.labels import figure_label
    from robeval.core.publish.plotting import load_manifest

    entries = load_manifest(profile)
    ledgers = {d["notebook"]: d for d in load_ledgers(profile)}
    fig_dir = figures_dir(profile)
    lines = [
        f"# Figures — profile `{profile}`",
        "",
        "Generated from the figure manifest that `robeval.core.publish.plotting.savefig` writes. Each figure: what it "
        f"shows at `{profile}`, judged from the ledger rows that test it (`robeval.core.publish.labels`: it "
        "*reproduces* a paper figure only where those rows are decided at this profile; otherwise it is a pipeline "
        "check, a scaled replication, a stand-in or an undecided replication of it), the notebook that saves it, "
        "the library function that computed its data, and the function that draws it (restyle a plot there; its "
        "data come from the result files).",
        "",
        "| figure | what it shows (its rows) | notebook | data computed by | drawn by |",
        "|---|---|---|---|---|",
    ]
    for e in entries:
        shown = published_figure(fig_dir / f"{e['figure']}.png", profile)
        link = f"[{e['figure']}]({_relative_link(shown, profile)})"
        label = figure_label(e, ledgers.get(e.get("notebook")), profile)
        what = label["text"] + (f" ({label['tally']})" if label["tally"] else "")
        lines.append(
            f"| {link} | {_fmt(what)} | {_fmt(e['notebook'])} | {code(e['data_from'], table=True)} | {code(e['plotted_by'], table=True)} |"
        )
    if not entries:
        lines.append("| — | no figures saved yet under this profile | | | |")
    text = "\n".join(lines) + "\n"
    if path is None:
        path = RESULTS_DIR / "FIGURES.md" if profile == "default" else results_dir(profile, create=False) / "FIGURES.md"
    if entries or ledgers or os.path.lexists(path):
        atomic_write_text(path, text)
    return text


def _chart_line(chart, profile: str) -> str:
    """An image link to the summary chart: the committed copy (:func:`published_figure`) when the chart is build
    output of a profile whose results are committed; a sentence saying how to draw it when neither exists."""
    from pathlib import Path

    chart = published_figure(chart, profile)
    if not Path(chart).is_file():
        return f"The chart of these counts is not drawn yet: `make report PROFILE={profile}` draws it."
    return f"![verdicts per paper]({_relative_link(chart, profile)})"


def published_figure(path, profile: str):
    """Where the committed tree shows figure ``path`` of ``profile``: ``path`` itself, unless it is build output
    (``build/<profile>/figures``, the ``paper`` and ``gpu`` profiles) while the profile's results are committed
    (``results/<profile>``); then its PNG is copied beside the figure manifest (``results/<profile>/figures/``)
    and the copy is returned, so that FIGURES.md and CLAIMS.md link files a clone has (issue 47). A copy is
    written only when it differs; a figure not drawn yet returns the copy's path when a copy exists."""
    import shutil
    from pathlib import Path

    from robeval.core.paths import BUILD_DIR
    from robeval.core.publish.plotting import manifest_dir

    path, build = Path(path), Path(BUILD_DIR).resolve()
    if not path.resolve().is_relative_to(build) or results_dir(profile).resolve().is_relative_to(build):
        return path
    copy = manifest_dir(profile) / path.with_suffix(".png").name
    source = path.with_suffix(".png")
    if source.is_file() and (not copy.is_file() or copy.read_bytes() != source.read_bytes()):
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
    return copy if copy.is_file() or not source.is_file() else path


def _relative_link(target, profile: str) -> str:
    import os

    from robeval.core.paths import RESULTS_DIR

    base = RESULTS_DIR if profile == "default" else results_dir(profile)
    return os.path.relpath(target, base)


README_START = "<!-- claims:start (generated by `robeval report` from the ledgers; do not edit) -->"
README_END = "<!-- claims:end -->"
FINDINGS_START = "<!-- findings:start -->"
FINDINGS_END = "<!-- findings:end -->"
# the README's first screen, one line per paper: the site's home page opens with the same words
ONELINE_START = "<!-- oneline:start -->"
ONELINE_END = "<!-- oneline:end -->"


def readme_block(profile: str = "default") -> str:
    """The README's summary of the claims ledger, generated from the saved ledgers of ``profile``: verdict
    counts per paper, then each paper's central claims with their verdicts."""
    df = counted(load_claims(profile))
    if df.empty:
        return "No claims recorded yet."
    papers = df[(df["paper"] != "core") & (df["evidence"].astype(object) != "environment")]
    lines = [
        f"Central rows (the rows that test the papers' central statements, `robeval.core.ledger.central`) per paper "
        f"and what decides them at the `{profile}` profile (a row counts under *replication* only when our own "
        "experiment ran at the paper's scale):",
        "",
        *_md_table(central_by_evidence(papers)),
        "",
        "All rows, by evidence class (reproduced/contradicted only occur for replications):",
        "",
    ]
    lines += _evidence_tally(papers, VERDICTS[:6])
    for paper, g in papers.groupby("paper", sort=False):
        central = g[g["central"].astype(bool)]
        if central.empty:
            continue
        lines += ["", f"**{PAPERS.get(paper, paper)}** — central rows:", ""]
        for c in central.itertuples():
            # the ledger's texts as one line each, without raw HTML or a block marker (:func:`inline`)
            lines.append(
                f"* {_BADGE.get(c.verdict, inline(c.verdict))} — {inline(_class(c))}: {inline(c.description)} "
                f"({inline(c.source)}; {inline(_evidence(c))})"
            )
    return "\n".join(lines)


FRONT_VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_COMPARABLE, CONSISTENCY, ERRATUM)


def statement_lines(judged: list[dict]) -> list[str]:
    """Markdown: one paper's central statements, each with its quantifier, verdict and rows (id: verdict)."""
    lines = [
        "### Central statements",
        "",
        "Each statement is judged from its rows by the paper's quantifier (*all*: at the weakest row; *any*: one "
        "row suffices; *any, all*: the wording allows both, decided only where both agree; "
        "`robeval.core.ledger.central`).",
        "",
        "| statement | source | quantifier | verdict | rows |",
        "|---|---|---|---|---|",
    ]
    for j in judged:
        rows = "; ".join(f"`{r['id']}` {r['verdict']}" for r in j["rows"])
        if j["not_run"]:
            rows += ("; " if rows else "") + "not run: " + ", ".join(j["not_run"])
        lines.append(
            f"| {_fmt(j['statement'])} | {_fmt(j['source'])} | {j['quantifier'].replace('|', ', ')} | "
            f"{_BADGE.get(j['verdict'], j['verdict'])} | {_fmt(rows)} |"
        )
    return lines


def front_counts() -> list[dict]:
    """Central statements by verdict, per paper and executed profile: one dict per (paper, profile) with the count
    of each verdict of :data:`FRONT_VERDICTS` and ``not run`` (statements whose notebooks the profile runs but that
    have no ledger there). A statement is judged from its rows by its quantifier (:func:`robeval.core.ledger.central.judge`); the same
    counts feed the README, the site's home page and ``CLAIMS.md``."""
    from robeval.core.catalog import notebooks_for_profile
    from robeval.core.ledger.central import STATEMENTS
    from robeval.core.paths import PROFILES
    from robeval.core.profiles import OPTIONAL_PROFILES

    by_profile = {prof: load_ledgers(prof) for prof in PROFILES if prof != "smoke"}
    runs = {prof: {p.stem for p in notebooks_for_profile(prof)} for prof in by_profile}
    out = []
    for paper in (p for p in PAPERS if p != "core"):
        registered = [st for st in STATEMENTS if st.paper == paper and st.rows]
        for profile, ledgers in by_profile.items():
            mine = [d for d in ledgers if d["paper"] == paper]
            ran = {d["notebook"] for d in mine}
            here = [st for st in registered if any(nb in runs[profile] for nb in st.rows)]
            unrun = [st for st in here if not any(nb in ran for nb in st.rows)]
            # a profile shows only where it ran, except an optional one defined for this paper's notebooks but not
            # executed yet: its row says "not run" for all their statements
            if not mine and (profile not in OPTIONAL_PROFILES or not unrun):
                continue
            judged = judge(mine, runs[profile])
            counts = {v: sum(j["verdict"] == v for j in judged) for v in FRONT_VERDICTS}
            counts["not run"] = len(unrun)
            notebooks = sorted(
                nb.split("_", 1)[0] for nb in (ran or {nb for st in unrun for nb in st.rows if nb in runs[profile]})
            )
            out.append({"paper": paper, "profile": profile, "notebooks": notebooks, "central": len(judged), **counts})
    return out


FRONT_BOLD = (REPRODUCED, CONTRADICTED, ERRATUM)  # the verdicts the front table sets in bold


def front_block() -> str:
    """The README's and the site home page's results table: :func:`front_counts` as Markdown, four columns (issue
    61, item 5: the ten of one column per verdict were wider than the home page's text column): paper, profile,
    central statements and their verdicts ("**1 contradicted** · 5 inconclusive"; decided verdicts in bold), in
    :data:`FRONT_VERDICTS` order and then "not run"."""
    lines = [
        "| paper | profile (notebooks run) | central statements | verdicts |",
        "|---|---|---:|---|",
    ]
    for r in front_counts():
        parts = [f"**{r[v]} {v}**" if v in FRONT_BOLD else f"{r[v]} {v}" for v in (*FRONT_VERDICTS, "not run") if r[v]]
        cells = [PAPERS[r["paper"]], f"`{r['profile']}` ({', '.join(r['notebooks'])})", str(r["central"])]
        lines.append("| " + " | ".join([*cells, " · ".join(parts) or "—"]) + " |")
    return "\n".join(lines)


def _replace_block(path, block: str) -> bool:
    """The claims block of ``path`` (between :data:`README_START` and :data:`README_END`) rewritten with ``block``;
    a file with duplicated or unbalanced markers is refused (:func:`robeval.core.publish.markdown.replace_block`)."""
    return replace_block(path, README_START, README_END, block)


def update_readme(profile: str = "default", path=None) -> bool:
    """Regenerate the results blocks from the ledgers: the README's and the site home page's (``docs/index.md``)
    table of central claims by verdict (:func:`front_block`, the same text in both), and the detailed summary of
    ``profile`` on ``docs/results.md`` (:func:`readme_block`). True if the README changed."""
    from robeval.core import paths

    path = path or paths.ROOT / "README.md"
    changed = _replace_block(path, front_block())
    from robeval.core.publish.undecided import OPEN_END, OPEN_START, undecided_block

    block = undecided_block()
    for target in (path, paths.ROOT / "docs" / "index.md") if path == paths.ROOT / "README.md" else (path,):
        # the statements no profile decides, with what each needs
        if replace_block(target, OPEN_START, OPEN_END, block):
            changed = changed or target == path
    if path == paths.ROOT / "README.md":
        index = paths.ROOT / "docs" / "index.md"
        _replace_block(index, front_block())
        # the site's home page shows the README's one line per paper and its findings, word for word
        # (markers out of order, missing or doubled in either file are refused, naming the file: never a guess)
        text = path.read_text(encoding="utf-8")
        for start, end in ((ONELINE_START, ONELINE_END), (FINDINGS_START, FINDINGS_END)):
            home = index.read_text(encoding="utf-8") if index.is_file() else ""
            src_head, src_tail = split_block(text, start, end, path)
            head, tail = split_block(home, start, end, index)
            if src_head is not None and head is not None:
                block = text[len(src_head) + len(start) : len(text) - len(src_tail) - len(end)]
                new = head + start + block + end + tail
                if new != home:
                    atomic_write_text(index, new)
        if profile == "default":
            _replace_block(paths.ROOT / "docs" / "results.md", readme_block(profile))
            from robeval.core.publish.capability import update_capability

            update_capability(paths.ROOT / "docs" / "results.md")  # what each profile can decide
            from robeval.core.publish.planner import update_docs

            update_docs(paths.ROOT / "docs" / "running.md")  # what a budget decides, from the same ledgers
        update_profile_tables()
        from robeval.core.publish.citation import update_citation_files

        update_citation_files()  # CITATION.bib and the citation lists, from CITATION.cff
    return changed


def update_profile_tables() -> list:
    """Regenerate the table of profiles (:func:`robeval.core.profiles.profile_block`) between its markers in the
    README and ``docs/running.md`` (the site's rerun page); returns the files that changed."""
    from robeval.core import paths
    from robeval.core.profiles import PROFILES_END, PROFILES_START, profile_block

    block, changed = profile_block(), []
    for path in (paths.ROOT / "README.md", paths.ROOT / "docs" / "running.md"):
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        head, tail = split_block(text, PROFILES_START, PROFILES_END, path)  # refuses markers out of order
        if head is None:
            continue
        new = head + block + tail
        if new != text:
            atomic_write_text(path, new)
            changed.append(path)
    return changed


def _ledger_folder(folder) -> dict:
    """``{(notebook, id): claim}`` of every ledger ``<notebook>.json`` in ``folder``."""
    return _read_ledger_folder(folder)[0]


def _compared_row_error(claim: dict) -> str | None:
    """Why a row of a ledger to compare is malformed beyond :func:`rows_by_id`'s checks, or None: a ledger robeval
    writes holds a finite number (or a boolean, text, or nothing) as ``estimate``, a list of two numbers low <=
    high (or nothing) as ``ci``, True or False as ``central`` and a whole count (or nothing) as ``n_runs``; a row
    that holds anything else would drop out of the rerun statistics in silence (:func:`rerun_counts`)."""
    est, n, ci = claim.get("estimate"), claim.get("n_runs"), claim.get("ci")
    cid = claim["id"]
    if isinstance(est, float) and not math.isfinite(est):
        return f"claim {cid!r} has the estimate {est!r}, which no saved ledger holds"
    if est is not None and not isinstance(est, (bool, int, float, str)):
        return f"claim {cid!r} has the estimate {est!r:.40} ({type(est).__name__}), not a number, text or null"
    if ci is not None:
        nums = isinstance(ci, list) and len(ci) == 2
        nums = nums and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x == x for x in ci)
        if not nums or ci[0] > ci[1]:
            return f"claim {cid!r} has the ci {ci!r:.60}, not a list [low, high] of two numbers with low <= high"
    if "central" in claim and not isinstance(claim["central"], bool):
        return f"claim {cid!r} has central {claim['central']!r:.40}, not true or false"
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        return f"claim {cid!r} has n_runs {n!r:.40}, not a whole number of runs"
    return None


def _read_ledger_folder(folder) -> tuple[dict, dict]:
    """:func:`_ledger_folder`'s rows, and ``{notebook: (file, profile)}`` of its ledgers (``profile`` None where a
    ledger names none). ValueError naming the file for a ledger whose ``notebook`` is not its file's name (it would
    be compared with another notebook's rows) or a row :func:`_compared_row_error` finds malformed."""
    from pathlib import Path

    from robeval.core.io import NotRegularFileError
    from robeval.core.ledger.store import read_ledger_json

    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder of ledgers (results/<profile>/claims).")
    out, seen = {}, {}
    for f in sorted(folder.glob("*.json")):
        try:
            d = read_ledger_json(f)
        except NotRegularFileError:
            raise
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise ValueError(f"{f} is not a ledger: it is not readable JSON ({why}); restore or rebuild it.") from None
        notebook = d.get("notebook") if isinstance(d, dict) else None
        if not isinstance(notebook, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,200}", notebook):
            raise ValueError(
                f"{f} is not a ledger (no plain 'notebook' name); restore it (git checkout) or rebuild it."
            )
        if notebook in seen:
            raise ValueError(
                f"{f} and {seen[notebook][0]} are both ledgers of {notebook}; keep one ledger per notebook in {folder}."
            )
        if notebook != f.stem:
            raise ValueError(
                f"{f} holds the ledger of {notebook} (its 'notebook'), not of {f.stem}: a ledger is saved as "
                f"<notebook>.json. Restore it (git checkout) or rebuild it; a copy is renamed {notebook}.json."
            )
        profile = d.get("profile")
        seen[notebook] = (f, profile if isinstance(profile, str) else None)
        rows = rows_by_id(d, f)
        for c in rows.values():
            why = _compared_row_error(c)
            if why is not None:
                raise ValueError(f"{f}: {why}; the ledger is damaged. Restore it (git checkout) or rebuild it.")
        out.update({(notebook, cid): c for cid, c in rows.items()})
    return out, seen


_OPPOSITE = {(REPRODUCED, CONTRADICTED), (CONTRADICTED, REPRODUCED), (CONSISTENCY, ERRATUM), (ERRATUM, CONSISTENCY)}


def _number(value) -> float | None:
    """A ledger field as a finite float, or None (text, a missing value, a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _interval(claim: dict) -> tuple[float, float] | None:
    """A row's numeric estimate's interval ``(lo, hi)``, or None when it has no numeric estimate and finite interval."""
    ci = claim.get("ci")
    if _number(claim.get("estimate")) is None or not isinstance(ci, (list, tuple)) or len(ci) != 2:
        return None
    lo, hi = _number(ci[0]), _number(ci[1])
    return (lo, hi) if lo is not None and hi is not None and lo <= hi else None


def compared_ledgers(ours, other, notebooks=None) -> tuple[dict, dict, list[str]]:
    """The rows of the two folders of ledgers ``ours`` and ``other`` (:func:`_ledger_folder`) and the notebooks both
    hold (among ``notebooks`` when given): a notebook one folder lacks is not compared (a rerun of one notebook is
    no change of the others). ValueError naming both files when a notebook's two ledgers are of different profiles
    (their verdicts are not comparable)."""
    a, meta_a = _read_ledger_folder(ours)
    b, meta_b = _read_ledger_folder(other)
    both = sorted(set(meta_a) & set(meta_b) & (set(meta_a) if notebooks is None else set(notebooks)))
    for nb in both:
        (fa, pa), (fb, pb) = meta_a[nb], meta_b[nb]
        if pa is not None and pb is not None and pa != pb:
            raise ValueError(
                f"{fb} is a ledger of profile {pb!r}, {fa} of profile {pa!r}: their verdicts are not comparable. "
                f"Compare ledgers of one profile (robeval compare --profile {pb})."
            )
    return a, b, both


def rerun_counts(ours, other, notebooks=None) -> list[dict]:
    """Per notebook, what a rerun changed, counted as ``docs/reliability.md`` counts it: over the rows a paper's
    tallies count (a readings row, not its per-reading parts), the decided verdicts (reproduced, contradicted,
    consistency, erratum) of ``ours``, how many of them ``other`` has otherwise, how many of those to the
    opposite verdict, and how many rows ``other`` decides that ``ours`` left undecided.

    Returns one dict per notebook present in both folders: ``notebook``, ``decided``, ``changed``,
    ``opposite``, ``newly_decided``, ``changed_ids`` and ``new_ids`` (lists of ids), and ``from_runs`` /
    ``changed_from_runs``: how many of the decided rows rest on our runs (a row with ``n_runs``) and how many of
    those changed. The other decided rows (a paper's internal consistency, a dataset fact, a closed form) are the
    same whatever the seeds, so a rerun with other seeds tests only the ``from_runs`` ones: with none, it cannot
    show that the verdicts hold. ``intervals`` / ``inside``: over every row (decided or not) with a numeric estimate
    and interval in ``ours`` and a numeric estimate in ``other``, how many there are and how many of ``other``'s
    estimates lie inside ``ours``' interval (for a mean over n independent runs, a rerun's mean lands inside a 95%
    t-interval with probability P(|T_{n-1}| < t_{0.975, n-1} / sqrt(2)): 0.91 at n = 3, 0.86 at n = 10).
    """
    from robeval.core.ledger.vocab import DECIDED as decided

    def counted(rows):  # {notebook: {id: claim}}, without the per-reading parts
        out = {}
        for (nb, cid), c in rows.items():
            if not c.get("part_of"):
                out.setdefault(nb, {})[cid] = c
        return out

    rows_a, rows_b, both = compared_ledgers(ours, other, notebooks)
    a, b = counted(rows_a), counted(rows_b)
    rows = []
    for nb in [n for n in both if n in a and n in b]:
        base = [i for i, c in a[nb].items() if c["verdict"] in decided and i in b[nb]]
        changed = [i for i in base if b[nb][i]["verdict"] != a[nb][i]["verdict"]]
        opposite = [i for i in changed if (a[nb][i]["verdict"], b[nb][i]["verdict"]) in _OPPOSITE]
        new = [
            i for i, c in b[nb].items() if c["verdict"] in decided and i in a[nb] and a[nb][i]["verdict"] not in decided
        ]
        runs = [i for i in base if a[nb][i].get("n_runs") is not None]
        pairs = [(_interval(a[nb][i]), _number(b[nb][i].get("estimate"))) for i in a[nb] if i in b[nb]]
        pairs = [(ci, e) for ci, e in pairs if ci is not None and e is not None]
        rows.append(
            {"notebook": nb, "decided": len(base), "changed": len(changed), "opposite": len(opposite),
             "newly_decided": len(new), "changed_ids": changed, "new_ids": new,
             "from_runs": len(runs), "changed_from_runs": len(set(runs) & set(changed)),
             "intervals": len(pairs), "inside": sum(lo <= e <= hi for (lo, hi), e in pairs)}
        )  # fmt: skip
    return rows


def compare_ledgers(ours, other, notebooks=None) -> list[dict]:
    """Claims whose verdict differs between two folders of saved ledgers (``results/<profile>/claims`` of two
    runs, e.g. a rerun on another machine or with another thread count).

    Parameters
    ----------
    ours, other : path
        Folders holding ``<notebook>.json`` ledgers.
    notebooks : iterable of str, optional
        Compare only these notebooks (stems); default: every notebook whose ledger both folders hold (a notebook
        one folder lacks is not compared: :func:`compared_ledgers`).

    Returns
    -------
    list of dict
        One entry per claim of a compared notebook, present in either ledger, whose verdict differs (a claim
        missing from one side counts, with verdict ``None``): ``notebook``, ``id``, ``ours``, ``other``, and the
        two estimates.
    """
    a, b, both = compared_ledgers(ours, other, notebooks)
    keep = set(both)
    keys = {k for k in set(a) | set(b) if k[0] in keep}
    diffs = []
    for key in sorted(keys):
        va, vb = a.get(key, {}).get("verdict"), b.get(key, {}).get("verdict")
        if va != vb:
            diffs.append(
                {
                    "notebook": key[0],
                    "id": key[1],
                    "ours": va,
                    "other": vb,
                    "ours_estimate": a.get(key, {}).get("estimate"),
                    "other_estimate": b.get(key, {}).get("estimate"),
                }
            )
    return diffs


# ------------------------------------------------------------------------- every field of a rebuilt ledger
LEDGER_LEVEL = "(ledger)"  # the id under which a difference of a ledger's own fields (not a row's) is reported


def _same_value(a, b) -> bool:
    """Equality of two JSON values; numbers equal to 1e-9 relative and no absolute floor (a rebuild on another
    machine may differ in the last bits of a float, an edit does not; an estimate of 2e-16, a noise of 1e-12 or a
    p-value of 1e-39 is compared as closely as any other number), NaN equal to NaN, True never equal to 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _alike(value, other):
    """``value`` with a float that is a whole number made an int where ``other`` holds an int at the same place (a
    count saved as 24 and rebuilt as 24.0 is one number, :func:`_same_value`; a real change prints as
    ``saved 24, rebuilt 25``, not ``25.0``), lists element by element; anything else as it is."""
    if isinstance(value, float) and isinstance(other, int) and not isinstance(other, bool) and value.is_integer():
        return int(value)
    if isinstance(value, list) and isinstance(other, list) and len(value) == len(other):
        return [_alike(v, o) for v, o in zip(value, other)]
    return value


def rows_by_id(ledger, where) -> dict:
    """``{id: row}`` of a saved ledger's claims; ValueError naming ``where`` (the file) and the fix when a row is no
    JSON object, has no ``id`` or ``verdict`` (each text), or an id is listed twice (a second row would hide the first):
    the id checks of :func:`robeval.core.ledger.check_saved_ledger` (:func:`robeval.core.ledger.claim_id_error`)."""
    claims = ledger.get("claims") if isinstance(ledger, dict) else None
    if not isinstance(claims, list):
        raise ValueError(f"{where} is not a ledger (no list of 'claims'); restore it (git checkout) or rebuild it.")
    out: dict = {}
    for i, c in enumerate(claims):
        why = claim_id_error(c, i, out)
        if why is None and "verdict" not in c:
            why = f"claim {c['id']!r} has no 'verdict'"
        elif why is None and c["verdict"] not in VERDICTS:
            why = f"claim {c['id']!r} has the verdict {c['verdict']!r:.60}, not one of {', '.join(VERDICTS)}"
        if why is not None:
            raise ValueError(
                f"{where}: {why}; the ledger is damaged. Restore it (git checkout) or rebuild it with `robeval run`."
            )
        out[c["id"]] = c
    return out


def ledger_differences(
    saved: dict, rebuilt: dict, notebook: str, *, skip=("results",), where=("the saved ledger", "the rebuilt ledger")
) -> list[dict]:
    """Every difference between a saved ledger and its rebuild, one per row: the ledger's own fields (``id``
    :data:`LEDGER_LEVEL`; the keys ``skip`` left out: the manifest of the result files), then per row present on
    either side the first field that differs, in the saved row's field order (the verdict first, then every derived
    field: estimate, ci, paper_value, rule, central, n_runs ...). A row on one side only is field ``row``. ``where``
    names the two ledgers (their files) in the error of a damaged one (:func:`rows_by_id`).

    Returns dicts ``notebook``, ``id``, ``field``, ``saved``, ``rebuilt`` (the two values, a whole float as the
    integer where the other side holds one: :func:`_alike`)."""
    out = []
    for key in [*saved, *(k for k in rebuilt if k not in saved)]:
        if key in ("claims", *skip):
            continue
        if not _same_value(saved.get(key), rebuilt.get(key)):
            out.append(
                {
                    "notebook": notebook,
                    "id": LEDGER_LEVEL,
                    "field": key,
                    "saved": _alike(saved.get(key), rebuilt.get(key)),
                    "rebuilt": _alike(rebuilt.get(key), saved.get(key)),
                }
            )
    a = rows_by_id(saved, where[0])
    b = rows_by_id(rebuilt, where[1])
    for cid in [*a, *(k for k in b if k not in a)]:
        if cid not in a or cid not in b:
            out.append(
                {
                    "notebook": notebook,
                    "id": cid,
                    "field": "row",
                    "saved": a[cid].get("verdict") if cid in a else None,
                    "rebuilt": b[cid].get("verdict") if cid in b else None,
                }
            )
            continue
        fields = ["verdict", *(k for k in a[cid] if k != "verdict"), *(k for k in b[cid] if k not in a[cid])]
        for field in fields:
            if not _same_value(a[cid].get(field, None), b[cid].get(field, None)) or (field in a[cid]) != (
                field in b[cid]
            ):
                out.append(
                    {
                        "notebook": notebook,
                        "id": cid,
                        "field": field,
                        "saved": _alike(a[cid].get(field), b[cid].get(field)),
                        "rebuilt": _alike(b[cid].get(field), a[cid].get(field)),
                    }
                )
                break
    return out + _row_order_difference(a, b, notebook)


def _row_order_difference(saved: dict, rebuilt: dict, notebook: str) -> list[dict]:
    """The first row at which the rows both ledgers hold (``{id: row}``) stand in another order, as a difference of
    the ledger's own (id :data:`LEDGER_LEVEL`, field ``row order``), or none: a ledger keeps its rows in the order
    its notebook records them, so a reordered ledger was edited."""
    common = [cid for cid in saved if cid in rebuilt]
    theirs = [cid for cid in rebuilt if cid in saved]
    for i, (x, y) in enumerate(zip(common, theirs)):
        if x != y:
            return [
                {
                    "notebook": notebook,
                    "id": LEDGER_LEVEL,
                    "field": "row order",
                    "saved": f"{x} at row {i + 1}",
                    "rebuilt": f"{y} at row {i + 1}",
                }
            ]
    return []


def rerun_sources(profile: str, notebook: str, row_id: str, n_runs) -> list[str]:
    """The other profiles' committed ledgers that rule 7 (:func:`robeval.core.ledger.rules.larger_reruns`) reads for
    the row ``row_id`` of ``notebook`` and that can change its outcome: those holding the row on more than ``n_runs``
    independent runs. Each as ``"<ledger path> (<profile>: n_runs N, verdict V)"``."""
    from robeval.core.ledger.rules import larger_reruns
    from robeval.core.paths import stored_ledger

    mine = n_runs if isinstance(n_runs, (int, float)) and not isinstance(n_runs, bool) else 0
    out = []
    for other, row in larger_reruns(profile, notebook).get(row_id, []):
        theirs = row.get("n_runs")
        if isinstance(theirs, (int, float)) and not isinstance(theirs, bool) and theirs > mine:
            runs = _alike(theirs, 0)  # a count: 24.0 (a ledger of a notebook that passed a float) as 24
            out.append(f"{stored_ledger(other, notebook)} ({other}: n_runs {runs}, verdict {row.get('verdict')!r})")
    return out
