"""The central statements of each paper: what its abstract and conclusion claim, and the ledger rows that test it.

A row is *central* when it tests a statement the paper itself puts forward as a result (its abstract, its
conclusion or discussion's findings); the README, CLAIMS.md and the site count those rows. Most rows say so where
they are recorded (``central=True``); this registry lists the abstract's and the conclusion's statements once more,
per paper, with the patterns (fnmatch) of the rows that test each, so that no such statement is left uncounted
because a notebook forgot the flag (issue 45, item 4). :meth:`robeval.core.ledger.Ledger.finalise` marks every
matching row central; :meth:`~robeval.core.ledger.Ledger.save` refuses a pattern that matches no recorded row of
its notebook. A statement no row can test names the reason instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Statement:
    """``source``: where the paper says it (abstract, conclusion, a discussion section); ``statement``: what it
    says, in short; ``rows``: notebook -> patterns of the ids of the rows that test it; ``reason``: why no row
    does (then ``rows`` is empty)."""

    key: str
    paper: str
    source: str
    statement: str
    rows: dict = field(default_factory=dict)
    reason: str = ""


STATEMENTS: tuple[Statement, ...] = (
    Statement(
        "rw_counterfactuals_insufficient_theory",
        "realworld",
        "Abstract; Conclusion (Sec. 6)",
        "shown theoretically: the counterfactual (adversarial) distance is not a valid measure of robustness to "
        "real-world perturbations (it ranks points differently, it diverges near corners, it ignores anisotropic "
        "uncertainty)",
        rows={"07_realworld_analytical": ("A2-ranking-differs", "A2-corner-divergence", "S33-linear-anisotropic")},
    ),
    Statement(
        "mscr_eps_min_not_the_optimum",
        "mscr",
        "Sec. 5.5 (Discussion); Conclusion",
        "the class separation eps_min has limited expressiveness for the best training noise: the best clean "
        "accuracy is reached above it (2D: eps_train = 0.007)",
        rows={"01_mscr_2d": ("S54_optimum_above_eps_min",)},
    ),
    Statement(
        "mscr_positive_possible",
        "mscr",
        "Sec. 5.3 (Discussion)",
        "the conjecture that MSCR > 0 is possible for some robustly trained models, verified at eps_train = 0.03",
        rows={"01_mscr_2d": ("S4_mscr_positive_at_0.03",)},
    ),
    Statement(
        "msd_ranking_changes",
        "msd",
        "Abstract; Sec. 5 / Table 1",
        "augmentation schemes rank differently on CIFAR-10-C and on the dissimilar CIFAR-10-C-bar (Patch Gaussian "
        "ahead of AutoAugment on C, behind it on C-bar)",
        rows={"04_msd_cifar10_c_bar": ("T1_rank_c", "T1_rank_cbar")},
    ),
    Statement(
        "acr_recommend_ecdf",
        "acr",
        "Conclusion; Sec. 4.3 / App. B",
        "report the empirical distribution (ECDF) of p_A instead of ACR: it gives the certified accuracy at every "
        "budget (the plug-in reading of the ECDF is the expected certified accuracy)",
        rows={"08_acr_published_certifications": ("B1_plugin_is_expectation",)},
    ),
    Statement(
        "acr_selection_bias",
        "acr",
        "Sec. 4.3 / Table 2; Conclusion",
        "state-of-the-art training methods put relatively more weight on easy inputs than Gaussian training does",
        rows={"08_acr_published_certifications": ("T2_sota_heavier",)},
    ),
    Statement(
        "acr_imagenet_recovery",
        "acr",
        "Sec. 6 (ImageNet); Conclusion",
        "on ImageNet the simple modifications recover most of the ACR advance of the best published method",
        rows={"08_acr_published_certifications": ("S6_imagenet_recovery_s*",)},
    ),
)


def for_notebook(paper: str, notebook: str) -> list[Statement]:
    """The registered statements of ``paper`` that rows of ``notebook`` test."""
    return [s for s in STATEMENTS if s.paper == paper and notebook in s.rows]


def _check() -> None:
    keys = [s.key for s in STATEMENTS]
    if len(set(keys)) != len(keys):
        raise ValueError("central statements need unique keys.")
    for s in STATEMENTS:
        if not s.rows and not s.reason:
            raise ValueError(f"{s.key}: a statement without rows must say why no row tests it (reason=).")


_check()
