"""The public entry points of :func:`correlation` and :func:`rescale_distances`: the input contract of issue 62
(text refused naming the argument, an infinite robustness refused), then the function of
:mod:`robeval.realworld.robustness` unchanged.

The checks live here, not in :mod:`.robustness`, because the definitions there are part of the code identity of
the Sec. 4.1 grid cells (:mod:`robeval.realworld.experiments`): editing them would discard the committed runs
although valid inputs give the same numbers. ``robeval.realworld.correlation`` and
``robeval.realworld.rescale_distances`` are these functions.
"""

from __future__ import annotations

import numpy as np

from robeval.core.validation import check_numbers
from robeval.realworld import robustness


def correlation(a, b, method: str = "pearson") -> float:
    """Correlation of two robustness vectors over points, ignoring NaNs (:func:`.robustness.correlation`).

    Parameters
    ----------
    a, b : array_like of numbers, shape (n,)
        Robustness per point; NaN leaves a point out, an infinite value or text is refused.
    method : {"pearson", "spearman"}

    Returns
    -------
    float (NaN when fewer than 3 valid points or a constant vector).
    """
    a, b = check_numbers(a, "a", example="[0.1, 0.5, 0.9]"), check_numbers(b, "b", example="[0.2, 0.4, 0.8]")
    for name, v in (("a", a), ("b", b)):
        if np.any(np.isinf(v)):
            raise ValueError(
                f"{name} holds an infinite value (at position {int(np.argmax(np.isinf(v).reshape(-1)))}); a "
                "robustness is finite. Fix that point, or set it to NaN to leave it out of the correlation."
            )
    return robustness.correlation(a, b, method)


def rescale_distances(distances, success=None) -> np.ndarray:
    """Adversarial robustness ``r_i = d_i / max_j d_j`` (paper Sec. 4.1; :func:`.robustness.rescale_distances`).

    Parameters
    ----------
    distances : array_like of numbers, shape (n,)
        Distance of each test point to its closest counterfactual / adversarial example (>= 0); text is refused.
    success : array_like of bool, shape (n,), optional
        Whether the search found a label-flipping point; failed points get NaN.

    Returns
    -------
    ndarray, float64, shape (n,), values in [0, 1] or NaN.
    """
    return robustness.rescale_distances(check_numbers(distances, "distances", example="[0.5, 1.0, 2.0]"), success)
