"""What each paper leaves ambiguous, and which ledger rows depend on it.

Every entry names the statement the paper leaves open, its readings, and — per notebook — the patterns of
the row ids whose verdict depends on it. The ledger enforces the list (:meth:`robeval.core.ledger.Ledger.save`):
a row matching a pattern must be a readings row for that ambiguity (one part per reading, decided only when
all readings agree: :meth:`~robeval.core.ledger.Ledger.under_readings` or
:meth:`~robeval.core.ledger.Ledger.readings` with ``key=``); a row recorded under one reading only is refused,
and a pattern that matches no recorded row is an error. A reading this profile did not run leaves its rows
inconclusive. The noise-mode finding itself (which reading the paper's numbers follow) stays its own rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Ambiguity:
    """``statement``: what the paper leaves open; ``readings``: reading name -> what it reads; ``rows``:
    notebook -> patterns (fnmatch) of the ids of the rows that depend on it."""

    key: str
    paper: str
    statement: str
    readings: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)


AMBIGUITIES: dict[str, Ambiguity] = {
    a.key: a
    for a in (
        Ambiguity(
            "mscr_noise_mode",
            "mscr",
            "the 2D training and test noise: independent offsets per feature (Sec. 3's 'random noise within "
            "the L_p ball') or one offset per point shared across the runs (the reference code's reseeding)",
            readings={"iid": "independent offsets per feature and run", "shared": "the reference code's offsets"},
            rows={
                "01_mscr_2d": (
                    "T2a_acc",
                    "T2a_mscr",
                    "T2a_best_*",
                    "S4_*",
                    "S52_*",
                    "S54_*",
                    "F6a_*",
                    "F5a_*",
                    "F5b_*",
                    "F4_k_saturates",
                ),
            },  # fmt: skip
        ),
        Ambiguity(
            "mscr_similar_results",
            "mscr",
            "'similar fundamental results' (Sec. 3.2) for datasets A, C and L2 noise: a steady rise of the MSCR "
            "like B/L_inf's, or only its rise from negative to positive values",
            readings={"steadily": "no fall beyond the sheet's noise", "to_positive": "negative at 0, positive at max"},
            rows={"01_mscr_2d": ("X_sheets_*_mscr_rises",)},
        ),
        Ambiguity(
            "realworld_fig3_axis",
            "realworld",
            "the covariance of Fig. 3 (identity, or normalised to trace 1) and whether its scale is a standard "
            "deviation or a variance",
            readings={
                "identity-std": "identity covariance, scale as std",
                "identity-variance": "identity covariance, scale as variance",
                "trace1-std": "trace-1 covariance, scale as std",
                "trace1-variance": "trace-1 covariance, scale as variance",
            },
            rows={"05_realworld_iris_ionosphere": ("fig3a-range", "fig3b-range")},
        ),
        Ambiguity(
            "acr_cheap_budget",
            "acr",
            "the cheaper budget N' of App. B.1 (lost in extraction): N' from 100 to 10000",
            readings={"N100": "N' = 100", "N1000": "N' = 1000", "N10000": "N' = 10000"},
            rows={"08_acr_published_certifications": ("B1_plugin_is_expectation",)},
        ),
        Ambiguity(
            "acr_toy_budgets",
            "acr",
            "the toy example's three budgets and p_A (lost in extraction), and whether a classifier's ACR at a "
            "budget is the plug-in or the expected one",
            readings={"plugin": "the plug-in ACR", "expected": "the expected ACR"},
            rows={"08_acr_published_certifications": ("S41_toy_order_flips",)},
        ),
    )
}


def for_notebook(paper: str, notebook: str) -> list[Ambiguity]:
    """The ambiguities of ``paper`` with rows in ``notebook``."""
    return [a for a in AMBIGUITIES.values() if a.paper == paper and notebook in a.rows]
