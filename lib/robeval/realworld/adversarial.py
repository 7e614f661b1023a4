"""Adversarial robustness of individual predictions: distance to the closest counterfactual.

Scher & Trügler (Sec. 3.1, 4.1) compare real-world robustness with the distance
``d_i`` from each test point to its closest counterfactual / adversarial example
(Eq. 1: ``min d(x_c, x) s.t. f(x_c) != f(x)``), rescaled to ``r_i = d_i / max_j d_j``.
They obtain counterfactuals with

* CEML (Artelt 2019) for the scikit-learn random forest on Iris,
* ART's Brendel & Bethge (2019) attack (L2) for the Ionosphere MLP,
* ART's DeepFool (Moosavi-Dezfooli et al. 2016) for the fog network.

Each function here returns an :class:`AttackResult` with a per-point success
flag: a search that does not change the label (CEML raises, ART returns the
input or a non-adversarial point silently) is marked ``success=False`` and gets
no distance in the rescaled robustness (``NaN``), instead of silently counting
as "very robust".

Notes on the ART wrappers
-------------------------
* Models are wrapped so that inputs are cast to float32 inside ``forward``: the
  Brendel-Bethge initialisation mixes float64 arrays into its model calls.
* ART's DeepFool multiplies each step by ``clip_max - clip_min`` when the
  classifier has clip values (it assumes inputs scaled to [0, 1]). For
  standardised tabular data that overshoots the boundary by that factor, so
  :func:`deepfool` runs without clip values (the attack is unconstrained, as
  DeepFool is defined).
* Brendel-Bethge needs a box (``clip_values``) for its random initial search; we
  use the data range widened by a margin, i.e. effectively unconstrained.
* ART (1.20) draws that initial search from ``np.random.RandomState()`` -- a fresh,
  OS-seeded generator that no global seed reaches -- so two runs of its attack give
  different distances (ratios to the exact distance varied 1.0-3.4 between runs of the
  same call on a linear model). :func:`brendel_bethge` therefore runs the same search
  itself from a seeded generator and hands ART the starting points.
* The first Brendel-Bethge call in a process JIT-compiles ART's numba kernels
  (about a minute on a laptop CPU).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from robeval.core.validation import check_features
from robeval.realworld.robustness import rescale_distances

__all__ = [
    "AttackResult",
    "ceml_counterfactuals",
    "art_classifier",
    "brendel_bethge",
    "deepfool",
    "data_box",
]


@dataclass(frozen=True)
class AttackResult:
    """Closest counterfactuals / adversarial examples of a set of points.

    Attributes
    ----------
    x_adv : ndarray, float64, shape (n, d)
        Counterfactual per point (the input itself where the search failed).
    distance : ndarray, float64, shape (n,)
        ``||x_adv - x||`` in the attack's norm (NaN where the search failed).
    success : ndarray, bool, shape (n,)
        True where ``f(x_adv) != f(x)``.
    method : str
    norm : float
    """

    x_adv: np.ndarray
    distance: np.ndarray
    success: np.ndarray
    method: str
    norm: float

    @property
    def robustness(self) -> np.ndarray:
        """Adversarial robustness ``d_i / max_j d_j`` over successful points (NaN for failures)."""
        return rescale_distances(self.distance, self.success)

    @property
    def success_rate(self) -> float:
        return float(np.mean(self.success))


def _finish(X, x_adv, y0, y_adv, norm, method) -> AttackResult:
    x_adv = np.asarray(x_adv, dtype=np.float64).reshape(X.shape)
    success = np.asarray(y_adv) != np.asarray(y0)
    dist = np.linalg.norm(x_adv - X, ord=norm, axis=1)
    dist = np.where(success, dist, np.nan)
    return AttackResult(x_adv=x_adv, distance=dist, success=success, method=method, norm=float(norm))


# ----------------------------------------------------------------------------
# CEML (scikit-learn models)
# ----------------------------------------------------------------------------


def ceml_counterfactuals(
    model,
    X,
    *,
    regularization: str = "l2",
    C: float | list = 1.0,
    optimizer: str = "auto",
    progress: bool = True,
) -> AttackResult:
    """Closest counterfactuals of a fitted scikit-learn classifier with CEML.

    Untargeted (Eq. 1): any label other than the model's prediction is accepted.
    For a random forest CEML starts from every tree's counterfactual and refines
    with Nelder-Mead on ``regularization(x_c - x) + C * loss``.

    Parameters
    ----------
    model : fitted scikit-learn classifier supported by ``ceml.sklearn``
        (e.g. ``RandomForestClassifier``).
    X : array_like, shape (n, d)
        Points to explain (float64).
    regularization : {"l1", "l2"}
        Penalty on the change; distances are reported in the matching norm
        (L1 or Euclidean).
    C : float or list of float
        Regularisation strength(s) tried in order.
    optimizer : str
        CEML optimizer name ("auto" picks Nelder-Mead for forests).
    progress : bool
        Show a tqdm bar over points.

    Returns
    -------
    AttackResult (``norm`` 1 or 2).
    """
    from robeval.realworld._ceml_compat import import_ceml_sklearn

    X = check_features(X)
    if regularization not in ("l1", "l2"):
        raise ValueError(f"regularization must be 'l1' or 'l2'; got {regularization!r}.")
    if not hasattr(model, "predict"):
        raise ValueError("model must be a fitted scikit-learn classifier with a predict method.")
    cs = import_ceml_sklearn()
    y0 = model.predict(X)
    searched = fast_forest(model)
    x_adv = X.copy()
    iterator = range(len(X))
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, desc="CEML counterfactuals", unit="pt")
    import warnings

    for i in iterator:
        y_i = y0[i]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                x_cf, _, _ = cs.generate_counterfactual(
                    searched,
                    X[i],
                    y_target=lambda y, y_i=y_i: y != y_i,
                    regularization=regularization,
                    C=C,
                    optimizer=optimizer,
                    return_as_dict=False,
                )
            x_adv[i] = np.asarray(x_cf, dtype=np.float64)
        except Exception:  # CEML raises a bare Exception when it finds no counterfactual
            x_adv[i] = X[i]
    return _finish(X, x_adv, y0, model.predict(x_adv), 1 if regularization == "l1" else 2, "ceml")


def fast_forest(model):
    """``model`` as CEML should see it: a fitted ``RandomForestClassifier`` whose ``predict`` (and its trees')
    skip scikit-learn's per-call input validation; any other model is returned unchanged.

    CEML's Nelder-Mead search calls ``tree.predict([x])`` once per tree and candidate point, and scikit-learn's
    validation of that one-row input takes ~95% of the search time. The copy casts inputs to float32 itself
    (what the validation does) and predicts with the same fitted arrays, so every prediction -- and hence every
    counterfactual -- is identical to the original model's, about ten times faster. The original model is not
    modified.
    """
    import copy

    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    if (
        type(model) is not RandomForestClassifier
        or getattr(model, "n_outputs_", None) != 1
        or not all(type(t) is DecisionTreeClassifier for t in getattr(model, "estimators_", ()))
    ):
        return model
    fast_tree, fast_forest_class = _fast_classes()
    fast = copy.copy(model)
    fast.__class__ = fast_forest_class
    trees = []
    for t in model.estimators_:
        t = copy.copy(t)
        t.__class__ = fast_tree
        trees.append(t)
    fast.estimators_ = trees
    return fast


def _as_float32_rows(X) -> np.ndarray:
    X = np.ascontiguousarray(np.asarray(X, dtype=np.float64), dtype=np.float32)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array of points, got shape {X.shape}.")
    return X


@functools.lru_cache(maxsize=1)
def _fast_classes():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    class FastTree(DecisionTreeClassifier):
        """A fitted single-output tree predicting without per-call input validation (see :func:`fast_forest`);
        the same arithmetic as ``DecisionTreeClassifier.predict`` / ``predict_proba``."""

        def predict_proba(self, X, check_input=True):
            return self.tree_.predict(_as_float32_rows(X))[:, : self.n_classes_]

        def predict(self, X, check_input=True):
            return self.classes_.take(np.argmax(self.tree_.predict(_as_float32_rows(X)), axis=1), axis=0)

    class FastForest(RandomForestClassifier):
        """A fitted forest predicting like ``RandomForestClassifier.predict`` (mean of the trees'
        probabilities, summed in tree order), without per-call input validation (see :func:`fast_forest`)."""

        def predict_proba(self, X):
            X = _as_float32_rows(X)
            proba = np.zeros((len(X), self.n_classes_))
            for tree in self.estimators_:
                proba += tree.predict_proba(X)
            return proba / len(self.estimators_)

        def predict(self, X):
            return self.classes_.take(np.argmax(self.predict_proba(X), axis=1), axis=0)

    return FastTree, FastForest


# ----------------------------------------------------------------------------
# ART (PyTorch models)
# ----------------------------------------------------------------------------


def data_box(*arrays, margin: float = 1.0) -> tuple[float, float]:
    """A scalar box ``(min - margin, max + margin)`` over all given arrays (for ART clip values)."""
    lo = min(float(np.min(a)) for a in arrays)
    hi = max(float(np.max(a)) for a in arrays)
    return lo - margin, hi + margin


def art_classifier(model, n_features: int, n_classes: int = 2, clip_values=None):
    """Wrap a PyTorch classifier (logits output) as an ART ``PyTorchClassifier`` on CPU/GPU.

    Parameters
    ----------
    model : torch.nn.Module
        Maps float (m, n_features) to logits (m, n_classes).
    n_features, n_classes : int
    clip_values : (float, float) or None
        Input box; see the module notes (None for DeepFool).
    """
    import torch
    from art.estimators.classification import PyTorchClassifier

    from robeval.core.env import torch_device

    class _Float32(torch.nn.Module):
        # ART's Brendel-Bethge init feeds float64 batches; the model is float32
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x.to(torch.float32))

    device = torch_device()
    return PyTorchClassifier(
        _Float32(model.eval()),
        loss=torch.nn.CrossEntropyLoss(),
        input_shape=(int(n_features),),
        nb_classes=int(n_classes),
        clip_values=clip_values,
        device_type="gpu" if device.type == "cuda" else "cpu",
    )


def _art_predict(clf, X32, batch_size):
    return np.argmax(clf.predict(X32, batch_size=batch_size), axis=1)


def bb_starting_points(
    predict_labels,
    X32: np.ndarray,
    y0: np.ndarray,
    box,
    init_size: int,
    rng: np.random.Generator,
    threshold: float = 1e-3,
) -> tuple[np.ndarray, np.ndarray]:
    """Brendel-Bethge's initial adversarial points, drawn from a seeded generator.

    The search ART performs (``BrendelBethgeAttack._init_sample``, untargeted L2), but reproducible: for each
    point, the first of ``init_size`` uniform draws from the box whose label differs from the point's, then
    bisection on the segment towards the point until the step is <= ``threshold`` (keeping the adversarial
    end).

    Parameters
    ----------
    predict_labels : callable, float32 (m, d) -> int (m,)
    X32 : float32 array (n, d); y0 : int array (n,), the labels of ``X32``
    box : (low, high) scalars; init_size : int >= 1; rng : numpy Generator

    Returns
    -------
    start : float32 (n, d), the starting points (the input itself where none was found)
    found : bool (n,), whether an adversarial draw was found for the point
    """
    n, d = X32.shape
    lo, hi = map(float, box)
    draws = rng.uniform(lo, hi, size=(int(init_size), n, d)).astype(np.float32)
    adv = predict_labels(draws.reshape(-1, d)).reshape(int(init_size), n) != y0[None, :]
    found = adv.any(axis=0)
    cand = draws[adv.argmax(axis=0), np.arange(n)]
    a_lo, a_hi = np.zeros(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    while float(np.max(a_hi - a_lo, initial=0.0)) > threshold:
        mid = (a_lo + a_hi) / 2
        is_adv = predict_labels(X32 + mid[:, None] * (cand - X32)) != y0
        a_hi, a_lo = np.where(is_adv, mid, a_hi), np.where(is_adv, a_lo, mid)
    start = np.where(found[:, None], X32 + a_hi[:, None] * (cand - X32), X32).astype(np.float32)
    return start, found


def brendel_bethge(
    model,
    X,
    *,
    n_classes: int = 2,
    clip_values=None,
    steps: int = 1000,
    lr: float = 1e-3,
    binary_search_steps: int = 10,
    init_size: int = 100,
    batch_size: int = 32,
    seed: int = 0,
) -> AttackResult:
    """Closest L2 adversarial examples with ART's Brendel & Bethge attack (untargeted).

    Parameters
    ----------
    model : torch.nn.Module
        Logits classifier on (m, d) float inputs.
    X : array_like, shape (n, d)
        Points (cast to float32 for ART, as its numba kernels require).
    n_classes : int
    clip_values : (float, float), optional
        Search box; default :func:`data_box` of ``X`` widened by 1 (effectively unconstrained
        for standardised data).
    steps, lr, binary_search_steps, init_size, batch_size :
        ART parameters (defaults are ART's / the paper's: 1000 steps).
    seed : int
        Seeds the initial random search (:func:`bb_starting_points`), the attack's only random step.
        Points for which ``init_size`` draws found no adversarial start are returned unchanged
        with ``success=False`` (ART itself would stop with an AssertionError).

    Returns
    -------
    AttackResult (``norm`` 2).
    """
    from art.attacks.evasion import BrendelBethgeAttack

    X = check_features(X)
    if int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be a positive integer; got {steps!r}.")
    box = data_box(X) if clip_values is None else tuple(map(float, clip_values))
    X32 = X.astype(np.float32)
    clf = art_classifier(model, X.shape[1], n_classes, clip_values=box)
    y0 = _art_predict(clf, X32, batch_size)
    attack = BrendelBethgeAttack(
        clf,
        norm=2,
        targeted=False,
        steps=int(steps),
        lr=lr,
        binary_search_steps=binary_search_steps,
        init_size=init_size,
        batch_size=batch_size,
    )
    # the initial search is the attack's only random step (ART's would use an unseeded RandomState)
    start, found = bb_starting_points(
        lambda Z: _art_predict(clf, Z, 4096), X32, y0, box, init_size, np.random.default_rng(seed)
    )
    x_adv = X32.copy()
    if found.any():
        x_adv[found] = attack.generate(X32[found], starting_points=start[found])
    return _finish(X, x_adv, y0, _art_predict(clf, x_adv.astype(np.float32), batch_size), 2, "brendel_bethge")


def deepfool(
    model,
    X,
    *,
    n_classes: int = 2,
    max_iter: int = 100,
    epsilon: float = 1e-6,
    batch_size: int = 64,
) -> AttackResult:
    """Closest L2 adversarial examples with ART's DeepFool (untargeted, unconstrained).

    Parameters
    ----------
    model : torch.nn.Module
        Logits classifier on (m, d) float inputs.
    X : array_like, shape (n, d)
    n_classes : int
    max_iter : int
        DeepFool iterations per point.
    epsilon : float
        Overshoot applied to the final step.
    batch_size : int

    Returns
    -------
    AttackResult (``norm`` 2).
    """
    from art.attacks.evasion import DeepFool

    X = check_features(X)
    X32 = X.astype(np.float32)
    clf = art_classifier(model, X.shape[1], n_classes, clip_values=None)
    y0 = _art_predict(clf, X32, batch_size)
    attack = DeepFool(
        clf, max_iter=int(max_iter), epsilon=epsilon, nb_grads=n_classes, batch_size=batch_size, verbose=False
    )
    x_adv = attack.generate(X32)
    return _finish(X, x_adv, y0, _art_predict(clf, x_adv.astype(np.float32), batch_size), 2, "deepfool")
