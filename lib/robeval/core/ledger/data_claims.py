"""Notebook 00's rows: the data layer's checks (every registered file verified, the known dataset facts of
:func:`robeval.core.data.dataset_facts`) recorded as ``environment`` facts of a ledger."""

from __future__ import annotations

from robeval.core.ledger.ledger import check_ledger


def record_data_claims(ledger, files, facts, *, require_all_files: bool = True) -> None:
    """Record the data layer's checks in notebook 00's ledger: every registered file verified (unless
    ``require_all_files`` is off) and each known dataset fact (:func:`dataset_facts`)."""
    check_ledger(ledger)
    ledger.fact(
        "data.files_verified",
        "data/README.md",
        "every registered data file present and sha256-verified",
        holds=bool(files.verified.all()) or not require_all_files,
        basis="sha256 of every registered file against the registry",
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
