"""The "what we found" sentences of notebooks 01 and 02, generated from each section's results.

Each function takes the frames the section has just computed or loaded (never the ledger, which is built at the
end of the notebook) and returns a :class:`robeval.core.publish.findings.Found` of 1–5 sentences. Accuracies and MSCR are
in percent, as in the paper's tables.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from robeval.core.publish.findings import Found, found, num, share
from robeval.mscr import published

__all__ = [
    "optima",
    "printed_vs_csv",
    "rf_vs_1nn",
    "seeding",
    "k_effect",
    "separation_spread",
    "table1_2d",
    "table1_cifar",
    "table2a",
    "table2b",
    "tradeoff",
]


def _mode_name(mode: str) -> str:
    return {"iid": "i.i.d. noise", "shared_offsets": "the reference code's shared offsets"}.get(mode, str(mode))


def _label(mode: str) -> str:
    """A sentence's opening for a noise reading (``"Under i.i.d. noise"``) or any other label, capitalised."""
    if mode in ("iid", "shared_offsets"):
        return f"Under {_mode_name(mode)}"
    return str(mode)[:1].upper() + str(mode)[1:]


def table1_2d(table1: pd.DataFrame, dataset: str, norm: str = "Linf") -> Found:
    """Table 1 of a 2D dataset: ``table1`` has columns ``norm``, ``2r``, ``eps_min`` and
    ``median per-point separation``, one row per norm; ``norm`` is the one the notebook's claims use. The paper's
    values are shown where it prints them (dataset B, L∞)."""
    t = table1.set_index("norm")
    if norm not in t.index:
        raise ValueError(f"norm {norm!r} is not a row of Table 1 (rows: {list(t.index)}); pass one of them")
    row = t.loc[norm]
    paper = ""
    if (dataset, norm) == ("B", "Linf"):
        paper = f" (paper: 2r = {published.PAPER_2R_LINF_B:.6f}, eps_min = {published.PAPER_EPS_MIN_LINF_B:.6f})"
    others = [f"{n} {num(t.loc[n, '2r'], 4)}" for n in t.index if n != norm]
    return found(
        f"Dataset {dataset}: the smallest {norm} distance between the two classes is 2r = {row['2r']:.6f}, so "
        f"eps_min = {row['eps_min']:.6f}{paper}.",
        f"Under the other norms 2r is {', '.join(others)}." if others else "",
        f"The median point lies {row['median per-point separation']:.4f} from the other class, "
        f"{row['median per-point separation'] / row['eps_min']:.0f} × eps_min.",
    )


def separation_spread(per_point: pd.Series, eps_min: float, multiples: tuple[float, ...] = (2.0, 10.0)) -> Found:
    """Fig. 3: how many points lie within small multiples of eps_min of the other class.

    ``per_point``: each point's distance to the nearest point of the other class (same norm as ``eps_min``).
    """
    d = np.asarray(per_point, dtype=float)
    if d.size == 0:
        raise ValueError("per_point is empty: compute the per-point separation first (separation_table)")
    parts = [f"{100 * np.mean(d <= m * eps_min):.1f}% lie within {m:g} × eps_min" for m in multiples]
    return found(
        f"Of the {d.size} points, {'; '.join(parts)} of the other class.",
        "The noise levels of Table 2a (up to 0.03, 7.5 × eps_min) therefore reach the class boundary only for a "
        "small share of the points."
        if np.mean(d <= 0.03) < 0.5
        else "",
    )


def table2a(z: Mapping[str, pd.DataFrame], threshold: float = 1.96) -> Found:
    """Table 2a against the authors' sheet: ``z`` maps a label (one per noise reading) to the cells'
    standardised differences (eps_test × eps_train)."""
    parts = []
    for label, frame in z.items():
        a = np.abs(frame.to_numpy(dtype=float))
        parts.append(
            f"{label}: {share((a <= threshold).sum(), a.size)} cells lie within {threshold} se of the sheet "
            f"(largest |z| {a.max():.1f})"
        )
    inside = {k: float(np.mean(np.abs(v.to_numpy(dtype=float)) <= threshold)) for k, v in z.items()}
    all_in = [k for k, f in inside.items() if f == 1.0]
    only = ""
    if len(z) > 1 and len(all_in) == 1:
        only = f"Only {all_in[0].split(' vs ')[0]} matches every published cell."
    return found(parts[0][:1].upper() + "; ".join(parts)[1:] + ".", only)


def optima(tables: Mapping[str, pd.DataFrame]) -> Found:
    """Which eps_train is best per eps_test row: ``tables`` maps a label (noise reading or model) to a frame with
    columns ``our best``, ``statistically tied with it``, ``published best`` and ``published best among ours``
    (one row per eps_test), as :func:`robeval.mscr.claims.best_columns_table` returns it."""
    sentences = []
    for label, t in tables.items():
        ties = t["statistically tied with it"].astype(str).str.split(",").map(len)
        k = int(ties.median())
        tied = f"a row ties {k} column{'s' if k != 1 else ''} with its best (median)"
        if "published best among ours" in t.columns:
            among = t["published best among ours"].astype(str).str.lower().eq("true")
            known = t["published best"].notna() & t["published best"].astype(str).ne("")
            sentences.append(
                f"{_label(label)}, the published best eps_train is statistically tied with our best in "
                f"{share(among[known].sum(), known.sum())} rows; {tied}."
            )
        else:
            sentences.append(f"{_label(label)}, {tied} (no published row optima to compare at these levels).")
    if any(
        int(t["statistically tied with it"].astype(str).str.split(",").map(len).median()) > 1 for t in tables.values()
    ):
        sentences.append("A single best column is not resolved at this number of runs.")
    return found(*sentences[:4])


def seeding(modes: pd.DataFrame) -> Found:
    """MSCR per eps_train under both noise readings beside the sheet: ``modes`` has columns ``MSCR <mode>``,
    ``± <mode>``, ``MSCR published`` and ``± published``, indexed by eps_train."""
    cols = [c for c in modes.columns if c.startswith("MSCR ") and c != "MSCR published"]
    last = modes.index[-1]
    at_last = ", ".join(
        f"{_mode_name(c[5:])} {modes.loc[last, c]:+.3f} ± {modes.loc[last, '± ' + c[5:]]:.3f}" for c in cols
    )
    within = []
    for c in cols:
        d = (modes[c] - modes["MSCR published"]).abs()
        tol = np.hypot(modes["± " + c[5:]], modes["± published"])
        within.append(f"{_mode_name(c[5:])} {share((d <= tol).sum(), len(d))}")
    return found(
        f"At the largest eps_train ({last:g}) MSCR is {at_last}; the sheet has "
        f"{modes.loc[last, 'MSCR published']:+.3f} ± {modes.loc[last, '± published']:.3f} (%).",
        f"Rows within the combined 95% margins of the sheet: {'; '.join(within)}.",
    )


def k_effect(k_stats: pd.DataFrame) -> Found:
    """Fig. 4: accuracy (%) per number of noisy copies ``k`` (index) with columns ``mean`` and ``std`` over runs."""
    lo, hi = k_stats["mean"].idxmin(), k_stats["mean"].idxmax()
    return found(
        f"Over k ∈ {{{', '.join(str(k) for k in k_stats.index)}}} the mean accuracy ranges from "
        f"{k_stats['mean'].min():.2f}% (k = {lo}) to {k_stats['mean'].max():.2f}% (k = {hi}), a span of "
        f"{k_stats['mean'].max() - k_stats['mean'].min():.2f} pp against a run-to-run sd of "
        f"{k_stats['std'].median():.2f} pp.",
        "At this number of runs the effect of k is not resolved.",
    )


def rf_vs_1nn(summaries: Mapping[str, pd.DataFrame]) -> Found:
    """Fig. 5: per model (e.g. ``{"RF": ..., "1-NN": ...}``) the :func:`robeval.mscr.protocol.mscr_summary` frame
    (columns ``eps_train``, ``acc_clean``, ``mscr``)."""
    parts, mscr = [], []
    for label, s in summaries.items():
        s = s.set_index("eps_train")
        parts.append(
            f"{label} {s['acc_clean'].iloc[0]:.2f}% at eps_train = 0 and {s['acc_clean'].iloc[-1]:.2f}% "
            f"at {s.index[-1]:g}"
        )
        mscr.append(f"{label} {s['mscr'].mean():+.3f}")
    return found(
        f"Clean accuracy: {'; '.join(parts)}.",
        f"MSCR averaged over eps_train (%): {', '.join(mscr)}.",
    )


def tradeoff(summaries: Mapping[str, pd.DataFrame]) -> Found:
    """Fig. 6a/6b: per noise reading or model, where clean accuracy and MSCR peak over eps_train."""
    out = []
    for label, s in summaries.items():
        s = s.set_index("eps_train")
        a, m = s["acc_clean"].idxmax(), s["mscr"].idxmax()
        out.append(
            f"{_label(label)}, clean accuracy peaks at eps_train = {a:g} ({s['acc_clean'].max():.2f}%), "
            f"MSCR at eps_train = {m:g} ({s['mscr'].max():+.3f}%)."
        )
    return found(*out[:5])


def table1_cifar(table1: pd.DataFrame, paper_2r: float) -> Found:
    """Table 1, CIFAR-10 row: ``table1`` has columns ``images``, ``2r (Linf)``, ``2r x 255``, ``eps_min`` and
    ``median separation`` (one row)."""
    r = table1.iloc[0]
    n = int(r["images"])
    return found(
        f"Over our {n} images the smallest L∞ distance between classes is 2r = {r['2r (Linf)']:.4f} "
        f"({r['2r x 255']:.0f}/255); the paper's, over all 60000, is {paper_2r:.4f}.",
        "A subset can only find a larger (or equal) minimum than the full dataset, so this row cannot be compared "
        "below the full 60000 images."
        if n < 60000
        else "",
        f"The median image lies {r['median separation']:.3f} from the nearest image of another class.",
    )


def table2b(mean: pd.DataFrame, summary: pd.DataFrame, n_runs: int) -> Found:
    """Table 2b: ``mean`` is the accuracy matrix (%; eps_test × eps_train), ``summary`` the MSCR summary (columns
    ``eps_train``, ``mscr``, ``mscr_margin``)."""
    clean = mean.iloc[0]
    s = summary.set_index("eps_train")
    excl0 = int(((s["mscr"] - s["mscr_margin"]) > 0).sum())
    return found(
        f"Clean accuracy of our network ranges from {clean.min():.1f}% to {clean.max():.1f}% over eps_train "
        f"({n_runs} runs each).",
        f"MSCR goes from {s['mscr'].iloc[0]:+.2f}% at eps_train = {s.index[0]:g} to {s['mscr'].iloc[-1]:+.2f}% at "
        f"{s.index[-1]:g}; its 95% interval lies above 0 for {share(excl0, len(s))} noise levels.",
    )


def printed_vs_csv(diffs: pd.DataFrame, repeated: int) -> Found:
    """The printed Table 2b against the authors' CSV: ``diffs`` lists the cells that differ by more than
    rounding (column ``diff``); ``repeated`` counts rows that repeat the eps_train = 0.02 value in the 0.01
    column."""
    if diffs.empty:
        return found("Every printed cell equals the authors' CSV up to rounding.")
    return found(
        f"{len(diffs)} printed cells differ from the authors' CSV by more than rounding (up to "
        f"{diffs['diff'].abs().max():.2f} pp), all in the eps_train = "
        f"{', '.join(f'{v:g}' for v in sorted(diffs['eps_train'].unique()))} column.",
        f"{repeated} rows of the printed table repeat the eps_train = 0.02 value in the 0.01 column: a copy error."
        if repeated
        else "",
    )
