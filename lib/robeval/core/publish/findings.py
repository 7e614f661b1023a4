"""What a notebook section found: a few generated sentences, shown as Markdown.

Every section of a notebook ends with a cell that states its result in prose, with the numbers taken from the
section's own results (never typed in). The sentences are written by the paper packages' ``findings`` modules; this
module only holds the display object and small number formatters they share.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from robeval.core.publish.markdown import inline

__all__ = ["Found", "found", "num", "pct", "share"]


class Found:
    """One section's finding: 1–5 sentences, shown as Markdown in a notebook and as plain text elsewhere.

    Parameters
    ----------
    sentences : iterable of str
        Complete sentences; empty strings are dropped. At least one must remain. Anything else (a number, a
        frame, bytes) is refused: a finding's numbers are formatted into its sentences (:func:`num`, :func:`pct`,
        :func:`share`). In a notebook the sentences are shown as one line of Markdown text
        (:func:`robeval.core.publish.markdown.inline`, as ledger text is): a line break, a ``#`` heading or raw
        HTML (``<img ...>``) in a sentence cannot change the page.
    """

    def __init__(self, sentences: Iterable[str]):
        if isinstance(sentences, str):
            raise TypeError("Found takes a list of sentences, not one string: Found([sentence, ...])")
        sentences = list(sentences)
        odd = next(((i, s) for i, s in enumerate(sentences) if not isinstance(s, str)), None)
        if odd is not None:
            raise TypeError(
                f"sentence {odd[0]} of a finding is {type(odd[1]).__name__} {odd[1]!r:.60}, not text; format its "
                "numbers into a sentence (num(), pct(), share())."
            )
        kept = [s.strip() for s in sentences if s.strip()]
        if not kept:
            raise ValueError("a finding needs at least one non-empty sentence")
        if len(kept) > 5:
            raise ValueError(f"a finding states its result in at most 5 sentences, got {len(kept)}: shorten it")
        self.sentences = kept

    @property
    def text(self) -> str:
        """The sentences joined by spaces."""
        return " ".join(self.sentences)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"What we found. {self.text}"

    def _repr_markdown_(self) -> str:
        return f"**What we found.** {inline(self.text)}"


def found(*sentences: str) -> Found:
    """A :class:`Found` from sentences given as arguments; ``None`` and empty strings are skipped (anything else
    that is not text is refused, as :class:`Found` refuses it)."""
    return Found(s for s in sentences if s is not None)


def num(value: float, digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits (``nan`` reads "n/a")."""
    value = float(value)
    if math.isnan(value):
        return "n/a"
    return f"{value:.{digits}g}"


def pct(value: float, decimals: int = 1) -> str:
    """A fraction in [0, 1] as a percentage string: ``pct(0.1234)`` is ``'12.3%'``."""
    value = float(value)
    if math.isnan(value):
        return "n/a"
    return f"{100 * value:.{decimals}f}%"


def share(count: int, total: int) -> str:
    """``'k of n'``, the form every finding uses for counts."""
    return f"{int(count)} of {int(total)}"


def data_files(files, facts) -> Found:
    """Notebook 00: ``files`` is :func:`robeval.core.data.status` (columns ``verified``, ``MB``), ``facts``
    :func:`robeval.core.data.dataset_facts` (columns ``fact``, ``ok``)."""
    verified = int(files["verified"].astype(bool).sum())
    bad = facts.loc[~facts["ok"].astype(bool), "fact"].tolist()
    return found(
        f"{share(verified, len(files))} registered data files are present and match their sha256 "
        f"({files['MB'].sum():.1f} MB).",
        f"{share(len(facts) - len(bad), len(facts))} known dataset facts hold"
        + (f"; these do not: {', '.join(bad)}." if bad else "."),
    )
