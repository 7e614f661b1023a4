"""Notebook 00's rows: the data layer's checks (every registered file verified, the known dataset facts of
:func:`robeval.core.data.dataset_facts`) recorded as ``environment`` facts of a ledger."""

from __future__ import annotations

from robeval.core.ledger.ledger import check_ledger


def record_data_claims(ledger, files, facts, *, require_all_files: bool = True) -> None:
    """Record the data layer's checks in notebook 00's ledger: every registered file of the offline mirror
    verified, and a file beyond it (:data:`robeval.core.data.BEYOND_MIRROR`, fetched where downloads are allowed)
    verified where present (unless ``require_all_files`` is off); and each known dataset fact
    (:func:`dataset_facts`). ``files``: :func:`robeval.core.data.status`."""
    from robeval.core.data import BEYOND_MIRROR

    check_ledger(ledger)
    beyond = files.file.isin(BEYOND_MIRROR)
    present = files.found_at.notna()
    ok = bool(files[~beyond].verified.all()) and bool(files[beyond & present].verified.all())
    ledger.fact(
        "data.files_verified",
        "data/README.md",
        "every registered data file of the offline mirror present and sha256-verified (one beyond it verified "
        "where present)",
        holds=ok or not require_all_files,
        basis=f"sha256 of every registered file against the registry ({int(beyond.sum())} beyond the mirror, "
        f"{int((beyond & present).sum())} of them present)",
        evidence="environment",
    )
    for row in facts.itertuples():
        ledger.fact(
            f"data.fact.{row.Index}",
            "dataset documentation",
            f"{row.fact} = {row.expected}",
            holds=bool(row.found == row.expected),
            basis="counted on the loaded arrays",
            paper=int(row.expected),
            estimate=int(row.found),
            evidence="environment",
        )
