"""What each paper leaves ambiguous, and which ledger rows depend on it.

Every entry names the statement the paper leaves open, its readings, the settings that pick one reading in our
runs and — per notebook — the patterns of the row ids whose verdict depends on it. A row depends on an ambiguity
in two ways: it *declares* it (``depends=(key, ...)`` on any :class:`robeval.core.ledger.Ledger` method: the
ambiguity is a setting the row's computation rests on, whatever the row's id), or its id matches a pattern of
``rows`` (the older net, kept). The ledger enforces both (:meth:`robeval.core.ledger.Ledger.save`): a row that
depends on an ambiguity must be a readings row for it (one part per reading, decided only when all readings
agree: :meth:`~robeval.core.ledger.Ledger.under_readings` or :meth:`~robeval.core.ledger.Ledger.readings` with
``key=``), or for a row that depends on several, a readings row whose every part is a readings row for the
others (nested :meth:`~robeval.core.ledger.Ledger.under_readings`); a row recorded under one reading only is
refused, and a pattern that matches no recorded row is an error. A reading this profile did not run leaves its
rows inconclusive. The noise-mode finding itself (which reading the paper's numbers follow) stays its own rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Ambiguity:
    """``statement``: what the paper leaves open; ``readings``: reading name -> what it reads; ``rows``:
    notebook -> patterns (fnmatch) of the ids of the rows that depend on it (rows may also declare it:
    ``depends=``); ``settings``: notebook -> the settings (``lib/robeval/core/settings/*.toml``) that pick one
    reading for our runs — every row computed from them depends on the ambiguity."""

    key: str
    paper: str
    statement: str
    readings: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)


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
            "mscr_halving",
            "mscr",
            "'a drawback-free increase in robust accuracy ... quite significant for the RF model on 2D data (less "
            "than halving the classification error)' (Sec. 5.4): the error at eps_train = 0.007 falls below half the "
            "error at 0, or the error falls by less than half",
            readings={
                "below_half": "error(0.007) < error(0) / 2: the error is more than halved",
                "above_half": "error(0.007) > error(0) / 2: the error is reduced, but by less than half (the words' "
                "literal sense: less than a halving)",
            },
            rows={"01_mscr_2d": ("S54_error_halved", "SH_error_halved")},
        ),
        Ambiguity(
            "realworld_fig3_axis",
            "realworld",
            "the covariance of Sec. 4.1 (Figs. 3-5: the identity with 'all diagonal terms 1', or normalised to "
            "'a trace of 1') and whether its scale is a standard deviation or a variance: at scale s the "
            "per-feature variance is s, s/d, s^2 or s^2/d (d = 4 for Iris, 32 for Ionosphere)",
            readings={
                "identity-std": "identity covariance, scale as std",
                "identity-variance": "identity covariance, scale as variance",
                "trace1-std": "trace-1 covariance, scale as std",
                "trace1-variance": "trace-1 covariance, scale as variance",
            },
            # the Fig. 3 axis rows by id; the Fig. 5 and dense-near-1 rows declare it (depends=)
            rows={"05_realworld_iris_ionosphere": ("fig3a-range", "fig3b-range")},
            settings={"05_realworld_iris_ionosphere": ("cov_trace",)},
        ),
        Ambiguity(
            "realworld_iris_pair",
            "realworld",
            "which two Iris classes Sec. 4.1.1 keeps ('we reduced the dataset to two classes (to make it binary). "
            "This results in an easy classification task'): the paper names neither the pair nor its code",
            readings={
                "setosa-versicolor": "classes 0 and 1: the first 100 rows of the UCI file, the usual 'binary Iris' "
                "(linearly separable with a wide margin)",
                "setosa-virginica": "classes 0 and 2 (linearly separable with a wider margin)",
                "versicolor-virginica": "classes 1 and 2: the one pair that is not linearly separable (our setting "
                "iris_classes)",
            },
            # every row computed from Iris reads the setting iris_classes: each must be tested under every pair
            rows={
                "05_realworld_iris_ionosphere": ("iris-*", "fig3a-range", "fig3b-range", "fig3c-range", "fig5-iris-*")
            },
            settings={"05_realworld_iris_ionosphere": ("iris_classes",)},
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
    """The ambiguities of ``paper`` with row patterns in ``notebook``."""
    return [a for a in AMBIGUITIES.values() if a.paper == paper and notebook in a.rows]


def check_depends(depends, paper: str) -> tuple[str, ...]:
    """A row's ``depends=`` label checked: the keys of :data:`AMBIGUITIES` (one key, or a tuple or list of keys)
    that the row's computation rests on, each an ambiguity of ``paper``. Returns the keys as a sorted tuple
    without repeats; ValueError naming the known keys for an unknown one."""
    if isinstance(depends, str):
        depends = (depends,)
    if not isinstance(depends, (tuple, list, set, frozenset)) or not all(isinstance(k, str) for k in depends):
        raise TypeError(f"depends= must name ambiguity keys (a string or a tuple of strings), got {depends!r}.")
    known = sorted(k for k, a in AMBIGUITIES.items() if a.paper == paper)
    bad = [k for k in depends if k not in AMBIGUITIES]
    if bad:
        raise ValueError(
            f"depends= names unknown ambiguity key(s) {bad}; the known keys of paper {paper!r} are {known} "
            "(register a new one in robeval.core.ledger.ambiguities.AMBIGUITIES)."
        )
    other = [k for k in depends if AMBIGUITIES[k].paper != paper]
    if other:
        raise ValueError(f"depends= names ambiguities of another paper {other}; paper {paper!r} has {known}.")
    return tuple(sorted(set(depends)))
