"""Issue 62, item 5: one input contract for every public function and every command.

Every callable a package exports (its ``__all__``) is either in :data:`CONTRACTS` — a valid call and, per
array-taking argument, the contract's bad inputs (NaN, inf, text, empty, wrong shape, fractional or out-of-range
labels, duplicated ids, a length that does not match) — or in :data:`EXEMPT` with the reason; a new export in
neither fails :func:`test_every_export_has_a_contract_or_an_exemption`. Each bad input must raise ValueError or
TypeError (a missing file: FileNotFoundError) whose message names the argument, or give the documented answer in
:data:`ANSWERS`; no message may name, as an argument, a parameter that the function does not have. Every
``robeval`` subcommand given a bad argument exits non-zero with one line on stderr (:data:`CLI_CASES`).

:mod:`tests.core.test_boundary` holds the hand-written cases of issue 20 and 36; this file is the sweep.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from feature_nets import feature_net

PACKAGES = ("core", "mscr", "msd", "realworld", "acr", "transforms")

RNG = np.random.default_rng(0)
X2 = np.array([[0.0, 0.0], [0.1, 0.0], [1.0, 1.0], [1.1, 1.0], [0.0, 1.0], [1.0, 0.0]])
Y2 = np.array([0, 0, 1, 1, 0, 1])
IMAGES = RNG.integers(0, 256, size=(2, 32, 32, 3), dtype=np.uint8)


def rule(Z):
    return (np.asarray(Z)[:, 0] > 0.5).astype(np.int64)


def feats(Z):
    """A feature function of uint8 NHWC images: the mean of each channel, (n, 3)."""
    return np.asarray(Z, dtype=np.float64).mean(axis=(1, 2))


def grid_rows() -> pd.DataFrame:
    """Tidy MSCR rows: 2 seeds x 2 training levels x 2 test levels."""
    rows = [
        {"seed": s, "eps_train": et, "eps_test": es, "acc": 0.9 - 0.1 * es - 0.01 * s + 0.02 * et}
        for s in (0, 1, 2)
        for et in (0.0, 0.5)
        for es in (0.0, 0.5)
    ]
    return pd.DataFrame(rows)


def cert_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "idx": [0, 1, 2, 3],
            "label": [0, 1, 1, 0],
            "predict": [0, 1, -1, 1],
            "radius": [0.5, 0.25, 0.0, 0.1],
            "correct": [1, 1, 0, 0],
            "time": [0.1, 0.1, 0.1, 0.1],
        }
    )


# ------------------------------------------------------------------------------------------ bad inputs
def _floats(v):
    return np.array(v, dtype=np.float64, copy=True)


def _set(v, value, where=0):
    a = np.array(v, dtype=object if isinstance(value, str) else np.float64, copy=True)
    a.flat[where] = value
    return a


def _mutate(kind: str, v):
    """The bad input ``kind`` made from the valid value ``v`` (an array, a scalar or a DataFrame)."""
    if isinstance(v, pd.DataFrame):
        what, _, col = kind.partition(":")
        df = v.copy()
        if what == "nan":
            df[col] = df[col].astype(float)
            df.loc[df.index[0], col] = np.nan
        elif what == "text":
            df[col] = df[col].astype(object)
            df.loc[df.index[0], col] = "x"
        elif what == "missing":
            df = df.drop(columns=[col])
        elif what == "dup":
            df = pd.concat([df, df.iloc[:1]], ignore_index=True)
        elif what == "empty":
            df = df.iloc[:0]
        else:
            raise KeyError(kind)
        return df
    if np.ndim(v) == 0:
        return {
            "nan": np.nan,
            "inf": np.inf,
            "text": "1",
            "neg": -1,
            "zero": 0,
            "frac": 1.5,
            "big": 10**6,
            "list": [v],
        }[kind]
    if kind == "nan":
        return _set(v, np.nan)
    if kind == "inf":
        return _set(v, np.inf, -1)
    if kind == "text":
        return _set(v, "x")
    if kind == "empty":
        return np.asarray(v)[:0]
    if kind == "shape":
        a = np.asarray(v)
        return a.reshape(-1) if a.ndim > 1 else a[:, None]
    if kind == "frac":
        return _floats(v) + 0.5
    if kind == "neg":
        return _set(v, -1)
    if kind == "big":
        return _set(v, 10**6)
    if kind == "zero":
        return _set(v, 0)
    if kind == "dup":
        a = np.array(v, copy=True)
        a[1] = a[0]
        return a
    if kind == "short":
        return np.asarray(v)[:-1]
    if kind == "float":  # images as floats instead of uint8
        return np.asarray(v, dtype=np.float64) / 255.0
    raise KeyError(kind)


@dataclass
class Contract:
    """How to call ``fn`` validly (``good()``: keyword arguments) and, per argument, the bad inputs it must refuse
    (a string of kinds :func:`_mutate` makes)."""

    fn: Callable
    good: Callable[[], dict]
    bad: dict[str, str]
    signature_of: Callable | None = None  # whose parameters the messages may name (default fn)

    def params(self) -> set[str]:
        return set(inspect.signature(self.signature_of or self.fn).parameters)


def _smooth_certify(**kw):
    from robeval.acr import Smooth

    return Smooth(rule, 2, 0.25).certify(**kw)


def _smooth_predict(**kw):
    from robeval.acr import Smooth

    return Smooth(rule, 2, 0.25).predict(**kw)


def _torch_gen():
    import torch

    return torch.Generator().manual_seed(0)


def _linf_box(x, **kw):
    """``mscr.uniform_linf_box`` on a float64 tensor made from the numeric array ``x`` (a text array stays numpy)."""
    import torch

    from robeval.mscr import uniform_linf_box

    x = torch.as_tensor(x) if isinstance(x, np.ndarray) and x.dtype != object else x
    return uniform_linf_box(x, **kw)


def contracts(tmp) -> dict[str, Contract]:
    from robeval import acr, core, mscr, msd, realworld, transforms
    from robeval.acr import Smooth

    gen = np.random.default_rng
    frames = {"a": cert_frame()}
    return {
        # ---------------------------------------------------------------- core
        "core.resolve": Contract(core.resolve, lambda: {"experiment": "mscr_2d", "profile": "smoke"}, {}),
        "core.results_dir": Contract(core.results_dir, lambda: {"profile": "smoke"}, {"profile": "text list"}),
        # ---------------------------------------------------------------- mscr
        "mscr.accuracy_matrix": Contract(
            mscr.accuracy_matrix,
            lambda: {"df": grid_rows()},
            {"df": "nan:acc text:acc missing:acc dup empty", "level": "nan big text"},
        ),
        "mscr.eps_min": Contract(
            mscr.eps_min,
            lambda: {"X": X2, "y": Y2},
            {"X": "nan inf text empty shape", "y": "nan frac short shape", "norm": "big"},
        ),
        "mscr.min_class_separation": Contract(
            mscr.min_class_separation,
            lambda: {"X": X2, "y": Y2},
            {"X": "nan inf text empty shape", "y": "nan frac short shape", "norm": "big"},
        ),
        "mscr.nearest_other_class_distance": Contract(
            mscr.nearest_other_class_distance,
            lambda: {"X": X2, "y": Y2},
            {"X": "nan inf text empty shape", "y": "nan frac short shape", "chunk_size": "zero frac nan"},
        ),
        "mscr.evaluate_levels": Contract(
            mscr.evaluate_levels,
            lambda: {
                "predict": rule,
                "X_test": X2,
                "y_test": Y2,
                "eps_test": [0.0, 0.1],
                "k": 2,
                "norm": np.inf,
                "seed": 0,
            },
            {
                "X_test": "nan inf text empty shape",
                "y_test": "nan frac short shape",
                "eps_test": "nan inf neg text",
                "k": "zero frac nan text",
                "seed": "text frac",
            },
        ),
        "mscr.make_cells": Contract(
            mscr.make_cells,
            lambda: {"seeds": [0, 1], "eps_train": [0.0, 0.1]},
            {"seeds": "frac dup text neg nan", "eps_train": "nan inf neg text dup"},
        ),
        "mscr.mean_ci": Contract(
            mscr.mean_ci,
            lambda: {"values": [0.5, 0.6, 0.7]},
            {"values": "text inf shape empty", "level": "nan big text"},
        ),
        "mscr.mscr_per_run": Contract(
            mscr.mscr_per_run,
            lambda: {"df": grid_rows(), "eps_min": 0.5},
            {"df": "nan:acc text:acc missing:acc dup empty", "eps_min": "nan neg zero text"},
        ),
        "mscr.mscr_summary": Contract(
            mscr.mscr_summary,
            lambda: {"df": grid_rows(), "eps_min": 0.5},
            {"df": "nan:acc text:acc missing:acc dup empty", "eps_min": "nan neg zero text", "level": "nan big"},
        ),
        "mscr.mscr_value": Contract(
            mscr.mscr_value, lambda: {"acc_clean": 0.8, "acc_rob": 0.6}, {"acc_clean": "nan big text neg"}
        ),
        "mscr.radial_cdf": Contract(
            mscr.radial_cdf,
            lambda: {"r": np.array([0.1, 0.5]), "d": 3},
            {"r": "nan text", "d": "zero frac neg text", "eps": "nan neg zero text"},
        ),
        "mscr.row_optima": Contract(
            mscr.row_optima,
            lambda: {"mean": mscr.accuracy_matrix(grid_rows())["mean"]},
            {"mean": "empty"},
        ),
        "mscr.run_seeds": Contract(
            mscr.run_seeds, lambda: {"seed": 0, "n_runs": 3}, {"seed": "text frac neg", "n_runs": "frac text neg"}
        ),
        "mscr.sample_offsets": Contract(
            mscr.sample_offsets,
            lambda: {"n": 3, "k": 2, "d": 2, "eps": 0.1, "norm": 2, "rng": 0},
            {"n": "zero frac text", "k": "zero frac", "d": "zero frac", "eps": "nan neg text", "rng": "text frac"},
        ),
        "mscr.sample_uniform_ball": Contract(
            mscr.sample_uniform_ball,
            lambda: {"X": X2, "eps": 0.1, "k": 2, "norm": 2, "rng": 0},
            {"X": "nan inf text empty", "eps": "nan neg text", "k": "zero frac", "rng": "text"},
        ),
        "mscr.unit_ball_offsets": Contract(
            mscr.unit_ball_offsets,
            lambda: {"n": 3, "k": 2, "d": 2, "norm": 2, "rng": 0},
            {"n": "zero frac text", "k": "zero frac", "d": "zero frac", "norm": "big", "rng": "text"},
        ),
        "mscr.uniform_linf_box": Contract(
            _linf_box,
            lambda: {"x": np.full((2, 3), 0.5), "eps": 0.1, "gen": _torch_gen()},
            {"x": "nan inf text big neg", "eps": "nan inf neg text list", "lo": "nan text", "hi": "nan zero neg"},
            signature_of=mscr.uniform_linf_box,
        ),
        # ---------------------------------------------------------------- msd
        "msd.corruption_features": Contract(
            msd.corruption_features,
            lambda: {
                "feature_fn": feats,
                "images": IMAGES,
                "corruptions": ["gaussian_noise"],
                "severities": [1],
                "n_samples": 2,
                "seed": 0,
                "progress": False,
            },
            {"images": "float empty shape", "severities": "big zero frac", "n_samples": "zero frac text"},
        ),
        "msd.corruption_transform": Contract(
            msd.corruption_transform,
            lambda: {"name": "gaussian_noise", "severity": 3},
            {"name": "text", "severity": "zero big frac text"},
        ),
        "msd.mixture_transform": Contract(
            msd.mixture_transform,
            lambda: {"names": ["gaussian_noise", "fog"], "probs": [0.5, 0.5]},
            {"probs": "nan neg text short", "severities": "big"},
        ),
        "msd.mmd": Contract(
            msd.mmd,
            lambda: {"aug_feats": RNG.normal(size=(4, 3)), "corr_feats": RNG.normal(size=(5, 3))},
            {"aug_feats": "nan inf text empty shape", "corr_feats": "nan inf text empty"},
        ),
        "msd.msd": Contract(
            msd.msd,
            lambda: {"aug_feats": RNG.normal(size=(4, 3)), "corr_feats": RNG.normal(size=(5, 3))},
            {"aug_feats": "nan inf text empty shape", "corr_feats": "nan inf text empty"},
        ),
        "msd.mmd_many": Contract(
            msd.mmd_many,
            lambda: {"aug_feats": RNG.normal(size=(4, 3)), "corr_means": RNG.normal(size=(5, 3))},
            {"aug_feats": "nan inf text empty", "corr_means": "nan inf text empty"},
        ),
        "msd.msd_many": Contract(
            msd.msd_many,
            lambda: {"aug_feats": RNG.normal(size=(4, 3)), "corr_means": RNG.normal(size=(5, 3))},
            {"aug_feats": "nan inf text empty", "corr_means": "nan inf text empty"},
        ),
        "msd.model_feature_fn": Contract(
            msd.model_feature_fn, lambda: {"model": feature_net()}, {"model": "text", "batch_size": "zero frac"}
        ),
        "msd.scheme_transform": Contract(
            msd.scheme_transform,
            lambda: {"scheme": ("rotate",)},
            {"scheme": "text", "severity": "nan neg text big", "mode": "text"},
        ),
        "msd.transform_features": Contract(
            msd.transform_features,
            lambda: {
                "feature_fn": feats,
                "images": IMAGES,
                "transform": msd.corruption_transform("gaussian_noise", 3),
                "rng": gen(0),
                "n_samples": 2,
            },
            {"images": "float empty shape", "n_samples": "zero frac text", "rng": "text"},
        ),
        # ---------------------------------------------------------------- realworld
        "realworld.BoundedPerturbation": Contract(
            realworld.BoundedPerturbation,
            lambda: {
                "base": realworld.GaussianPerturbation(np.eye(2)),
                "lower": np.array([0.0, -np.inf]),
                "upper": np.array([1.0, np.inf]),
            },
            {"lower": "nan text short shape big", "upper": "nan text short neg", "max_rounds": "zero frac"},
        ),
        "realworld.CategoricalPerturbation": Contract(
            realworld.CategoricalPerturbation,
            lambda: {"columns": {0: ([0.0, 1.0], np.array([[0.9, 0.1], [0.2, 0.8]]))}},
            {"columns": "text"},
        ),
        "realworld.GaussianPerturbation": Contract(
            realworld.GaussianPerturbation, lambda: {"cov": np.eye(2)}, {"cov": "nan inf text empty shape"}
        ),
        "realworld.adaptive_sample_sizes": Contract(
            realworld.adaptive_sample_sizes,
            lambda: {"n_min": 100, "n_max": 1000},
            {"n_min": "frac text big", "n_max": "zero frac text"},
        ),
        "realworld.correlation": Contract(
            realworld.correlation,
            lambda: {"a": np.array([0.1, 0.5, 0.9, 0.3]), "b": np.array([0.2, 0.4, 0.8, 0.1])},
            {"a": "inf text empty shape short", "b": "inf text short", "method": "text"},
        ),
        "realworld.identity_covariance": Contract(
            realworld.identity_covariance, lambda: {"d": 2}, {"d": "zero frac neg text"}
        ),
        "realworld.linear_robustness": Contract(
            realworld.linear_robustness,
            lambda: {"X": X2, "w": np.array([1.0, -1.0]), "cov": np.eye(2)},
            {
                "X": "nan inf text empty shape",
                "w": "nan text short",
                "b": "nan text",
                "cov": "nan text shape",
                "threshold": "nan big",
            },
        ),
        "realworld.random_covariance": Contract(
            realworld.random_covariance, lambda: {"d": 2, "rng": 0}, {"d": "zero frac text", "rng": "text"}
        ),
        "realworld.real_world_robustness": Contract(
            realworld.real_world_robustness,
            lambda: {"predict": rule, "X": X2, "cov": np.eye(2), "n_samples": 50, "rng": 0},
            {"X": "nan inf text empty shape", "cov": "nan text shape", "n_samples": "zero frac text", "rng": "text"},
        ),
        "realworld.rescale_distances": Contract(
            realworld.rescale_distances,
            lambda: {"distances": np.array([0.5, 1.0, 2.0]), "success": np.array([True, True, False])},
            {"distances": "neg text empty shape", "success": "short"},
        ),
        "realworld.right_angle_robustness": Contract(
            realworld.right_angle_robustness,
            lambda: {"X": X2, "cov": np.eye(2)},
            {"X": "nan inf text empty shape", "a": "nan text short", "cov": "nan text shape"},
        ),
        "realworld.trace_normalized": Contract(
            realworld.trace_normalized,
            lambda: {"cov": np.eye(2)},
            {"cov": "nan inf text empty shape", "scale": "nan neg zero text"},
        ),
        # ---------------------------------------------------------------- acr
        "acr.Smooth": Contract(
            Smooth,
            lambda: {"base_classifier": rule, "num_classes": 2, "sigma": 0.25},
            {"base_classifier": "text", "num_classes": "zero frac text", "sigma": "nan neg zero text"},
        ),
        "acr.Smooth.certify": Contract(
            _smooth_certify,
            lambda: {"x": X2[:3], "n0": 10, "n": 20, "alpha": 0.01, "seed": 0, "idx": np.array([3, 4, 5])},
            {
                "x": "nan inf text empty",
                "n0": "zero frac text",
                "n": "zero frac text",
                "alpha": "nan big zero text",
                "seed": "text",
                "idx": "dup frac neg short text",
            },
            signature_of=Smooth.certify,
        ),
        "acr.Smooth.predict": Contract(
            _smooth_predict,
            lambda: {"x": X2[:3], "n": 20, "alpha": 0.01, "seed": 0, "idx": np.array([3, 4, 5])},
            {"x": "nan inf text empty", "n": "zero frac text", "alpha": "nan big", "idx": "dup frac neg short"},
            signature_of=Smooth.predict,
        ),
        "acr.acr": Contract(
            acr.acr,
            lambda: {"df": cert_frame()},
            {"df": "nan:radius text:radius missing:radius empty dup nan:label"},
        ),
        "acr.certification_table": Contract(
            acr.certification_table, lambda: {"frames": dict(frames), "radii": [0.0, 0.25]}, {"radii": "nan neg text"}
        ),
        "acr.certified_accuracy": Contract(
            acr.certified_accuracy,
            lambda: {"df": cert_frame(), "radii": [0.0, 0.25]},
            {"df": "nan:radius missing:radius empty dup", "radii": "nan neg text shape"},
        ),
        "acr.certified_accuracy_from_ecdf": Contract(
            acr.certified_accuracy_from_ecdf,
            lambda: {
                "ecdf_x": np.array([0.5, 0.7, 0.9, 1.0]),
                "ecdf_y": np.array([0.8, 0.6, 0.4, 0.1]),
                "radii": [0.0, 0.25],
                "n": 1000,
                "alpha": 0.001,
                "sigma": 0.25,
            },
            {
                "ecdf_x": "nan text short empty big",
                "ecdf_y": "nan text short big",
                "radii": "nan neg text",
                "n": "zero frac text",
                "alpha": "nan big text",
                "sigma": "nan neg zero text",
            },
        ),
        "acr.certified_radius": Contract(
            acr.certified_radius,
            lambda: {"n_a": np.array([90, 99]), "n": 100, "alpha": 0.001, "sigma": 0.25},
            {
                "n_a": "nan frac neg big text",
                "n": "zero frac text",
                "alpha": "nan big zero text",
                "sigma": "nan neg zero text",
            },
        ),
        "acr.clopper_pearson_lower": Contract(
            acr.clopper_pearson_lower,
            lambda: {"n_a": np.array([90, 99]), "n": 100, "alpha": 0.001},
            {"n_a": "nan frac neg big text", "n": "zero frac text", "alpha": "nan big zero text"},
        ),
        "acr.ecdf_from_certification": Contract(
            acr.ecdf_from_certification,
            lambda: {"df": cert_frame(), "sigma": 0.25},
            {
                "df": "nan:radius missing:radius empty dup",
                "sigma": "nan neg zero text",
                "n": "zero frac text",
                "alpha": "nan big zero",
            },
        ),
        "acr.max_certified_radius": Contract(
            acr.max_certified_radius,
            lambda: {"n": 100, "alpha": 0.001, "sigma": 0.25},
            {"n": "zero frac text", "alpha": "nan big zero text", "sigma": "nan neg zero text"},
        ),
        "acr.read_certification": Contract(acr.read_certification, lambda: {"path": _cert_file(tmp)}, {"path": "list"}),
        "acr.trivial_classifier_acr": Contract(
            acr.trivial_classifier_acr,
            lambda: {"n": 100, "alpha": 0.001, "sigma": 0.25, "class_fraction": 0.1},
            {"n": "zero frac text", "alpha": "nan big", "sigma": "nan neg", "class_fraction": "nan big neg text"},
        ),
        "acr.write_certification_tsv": Contract(
            acr.write_certification_tsv,
            lambda: {"df": cert_frame(), "path": tmp / "w.tsv"},
            {"df": "nan:radius missing:radius empty dup", "path": "list"},
        ),
        # ---------------------------------------------------------------- transforms
        "transforms.apply_scheme": Contract(
            transforms.apply_scheme,
            lambda: {"images": IMAGES, "scheme": ("rotate",), "rng": gen(0)},
            {"images": "float empty shape", "severity": "nan neg text", "rng": "text"},
        ),
        "transforms.autoaugment": Contract(
            transforms.autoaugment,
            lambda: {"images": IMAGES, "rng": gen(0)},
            {"images": "float empty shape", "rng": "text"},
        ),
        "transforms.corrupt": Contract(
            transforms.corrupt,
            lambda: {"images": IMAGES, "name": "gaussian_noise", "severity": 3, "seed": 0, "idx": np.array([5, 6])},
            {
                "images": "float empty shape",
                "name": "text",
                "severity": "zero big frac text",
                "seed": "text frac",
                "idx": "short frac neg text",
            },
        ),
        "transforms.corrupt_with_param": Contract(
            transforms.corrupt_with_param,
            lambda: {"images": IMAGES, "name": "gaussian_noise", "param": 0.1, "seed": 0},
            {"images": "float empty shape", "param": "nan text neg"},
        ),
        "transforms.generate_dataset": Contract(
            transforms.generate_dataset,
            lambda: {
                "images": IMAGES,
                "labels": np.array([3, 7]),
                "names": ["gaussian_noise"],
                "out_dir": tmp / "gen",
                "severities": (1,),
                "progress": False,
                "overwrite": True,
            },
            {
                "images": "float empty shape",
                "labels": "nan frac neg big short shape text",
                "names": "text",
                "severities": "zero big frac",
                "seed": "text frac",
                "chunk_size": "zero frac",
            },
        ),
        "transforms.load_dataset": Contract(
            transforms.load_dataset,
            lambda: {"out_dir": _generated(tmp), "name": "gaussian_noise"},
            {"name": "text", "out_dir": "list"},
        ),
        "transforms.load_released": Contract(
            transforms.load_released,
            lambda: {"directory": _released(tmp), "name": "gaussian_noise"},
            {"name": "text", "directory": "list"},
        ),
        "transforms.patch_gaussian_images": Contract(
            transforms.patch_gaussian_images,
            lambda: {"images": IMAGES, "rng": gen(0)},
            {
                "images": "float empty shape",
                "rng": "text",
                "patch_width": "zero frac neg text",
                "max_sigma": "nan neg text",
            },
        ),
    }


#: Exports that take no array (or only build, show or store things), and why each is outside the sweep.
EXEMPT = {
    "core.Ledger": "a claims ledger (dataclass of rows); its record methods check their values with "
    "validation.check_fact_types, tested in tests/core/test_ledger.py",
    "core.found": "takes sentences (text) for a notebook's findings, no array",
    "core.savefig": "plotting: saves a matplotlib figure (no array); its figure, name and formats are checked in "
    "tests/core/test_boundary.py, its manifest in tests/core/test_readme_and_figures.py",
    "core.setup": "a notebook's first call (experiment and profile names, parameters resolved by core.resolve, "
    "which is in the sweep)",
    "core.short_index": "display: renders ledger rows in a notebook",
    "core.show_ledger": "display: renders a ledger in a notebook",
    "mscr.run_cell_2d": "a grid cell function: its cell and config dicts are built by make_cells (in the sweep) and "
    "the profile's settings (core.resolve), and it runs through robeval.core.runs.Grid, never on user arrays",
    "mscr.run_cell_cifar": "a grid cell function, as run_cell_2d (it trains a CIFAR-10 network: too slow here)",
    "realworld.RobustnessEstimate": "a result container returned by real_world_robustness, not an input",
    "acr.CertifyResult": "a result container returned by Smooth.certify, not an input",
}

#: Calls whose bad input has a documented answer instead of an error: ``(export, argument, kind) -> check``.
ANSWERS: dict[tuple[str, str, str], Callable] = {
    # mean_ci leaves NaN values out and returns (nan, nan, nan, 0) for no finite value (its docstring)
    ("mscr.mean_ci", "values", "empty"): lambda r: r[3] == 0 and np.isnan(r[0]),
    # any finite threshold is a valid boundary w.x + b = threshold; one far above every score leaves each point on
    # its side with certainty (linear_robustness's docstring)
    ("realworld.linear_robustness", "threshold", "big"): lambda r: np.all(r == 1.0),
    # scale is the total variance, >= 0 (trace_normalized's docstring): 0 is no perturbation, the zero matrix
    ("realworld.trace_normalized", "scale", "zero"): lambda r: r.shape == (2, 2) and np.all(r == 0.0),
}


#: Bad inputs still accepted or refused obscurely (issue 62 item 5): each would run as a strict xfail, so a fix fails
#: the test until its entry is removed. None is left: the last seven (msd.msd, corrupt, corrupt_with_param and
#: apply_scheme), in code that notebook 04's committed long-profile packs were bound to, were fixed on 2026-11-30 and
#: the packs carried across the edit by ``robeval adopt`` (a sample of cells recomputed identically) and
#: :func:`robeval.core.runs.rebind_pack`.
KNOWN_GAPS: set[tuple[str, str, str]] = set()


def _cert_file(tmp):
    path = tmp / "cert.tsv"
    if not path.exists():
        from robeval.acr import write_certification_tsv

        write_certification_tsv(cert_frame(), path)
    return path


def _generated(tmp):
    out = tmp / "generated"
    if not (out / "gaussian_noise.npy").exists():
        from robeval.transforms import generate_dataset

        generate_dataset(IMAGES, np.array([3, 7]), ["gaussian_noise"], out, severities=(1,), progress=False)
    return out


def _released(tmp):
    out = tmp / "released"
    if not out.is_dir():
        out.mkdir()
        np.save(out / "gaussian_noise.npy", np.repeat(IMAGES, 5, axis=0))
        np.save(out / "labels.npy", np.tile(np.array([3, 7], np.uint8), 5))
    return out


def exported() -> dict[str, object]:
    out = {}
    for package in PACKAGES:
        module = importlib.import_module(f"robeval.{package}")
        for name in module.__all__:
            out[f"{package}.{name}"] = getattr(module, name)
    return out


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return contracts(tmp_path_factory.mktemp("contract"))


def _cases():
    out = []
    for key, bad in _static_keys():
        for arg, kinds in bad.items():
            out += [(key, arg, kind) for kind in kinds.split()]
    return out


def _static_keys():
    """``(key, {argument: kinds})`` of :func:`contracts`, read without building the valid inputs."""
    import pathlib

    for key, c in contracts(pathlib.Path("/nonexistent")).items():
        yield key, c.bad


CASES = [
    pytest.param(
        *case,
        id="-".join(case),
        marks=[pytest.mark.xfail(strict=True, reason="left open")] if case in KNOWN_GAPS else [],
    )
    for case in _cases()
]
OK_ERRORS = (ValueError, TypeError)


def _names_argument(message: str, arg: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(arg)}(?![\w])", message) is not None


def test_every_export_has_a_contract_or_an_exemption(registry):
    callables = {k for k, v in exported().items() if callable(v)}
    covered = {k.rsplit(".", 1)[0] if k.count(".") == 2 else k for k in registry} | set(EXEMPT)
    assert sorted(callables - covered) == []  # a new export needs a contract entry (or a justified exemption)
    assert sorted(covered - callables) == []  # an entry for something no longer exported
    assert not set(registry) & set(EXEMPT)
    constants = {k for k, v in exported().items() if not callable(v)}
    assert constants == {
        "core.PROFILES",
        "mscr.NOISE_MODES",
        "acr.ABSTAIN",
        "transforms.BASE_OPS",
        "transforms.CBAR_CORRUPTIONS",
        "transforms.C_CORRUPTIONS",
    }


@pytest.mark.parametrize("key", sorted(dict(_static_keys())))
def test_the_valid_call_runs(registry, key):
    contract = registry[key]
    contract.fn(**contract.good())
    assert set(contract.bad) <= contract.params() | {"x"} or key.startswith("acr.Smooth.")
    for arg in contract.bad:
        assert arg in contract.params(), (key, arg)


@pytest.mark.parametrize("key, arg, kind", CASES)
def test_bad_input_gets_a_clear_error_naming_the_argument(registry, key, arg, kind):
    contract = registry[key]
    kwargs = contract.good()
    kwargs[arg] = _mutate(kind, kwargs.get(arg, _defaults(contract)[arg]))
    answer = ANSWERS.get((key, arg, kind))
    if answer is not None:
        assert answer(contract.fn(**kwargs))
        return
    expected = (*OK_ERRORS, FileNotFoundError) if arg in ("path", "out_dir", "directory") else OK_ERRORS
    with pytest.raises(expected) as info:
        contract.fn(**kwargs)
    message = str(info.value)
    assert type(info.value).__module__ == "builtins", type(info.value)
    assert _names_argument(message, arg), f"{key}({arg}={kind}): {type(info.value).__name__}: {message}"
    wrong = named_parameters(message) - contract.params()
    assert not wrong, f"{key}: the message names {sorted(wrong)}, which {key} does not take: {message}"


def _defaults(contract) -> dict:
    sig = inspect.signature(contract.signature_of or contract.fn)
    return {k: p.default for k, p in sig.parameters.items()}


def all_parameters() -> set[str]:
    """Every parameter name of the public API (the words a message could mistake for an argument)."""
    names = set()
    for key, obj in exported().items():
        if callable(obj) and key not in EXEMPT:
            try:
                names |= set(inspect.signature(obj).parameters)
            except (TypeError, ValueError):
                pass
    return names - {"self", "kwargs", "kw", "fixed", "overrides", "params", "name", "path", "mode"}


def named_parameters(message: str) -> set[str]:
    """The public parameter names ``message`` uses as an argument: the subject of a sentence (``X must``,
    ``y holds``, ``df['acc'] contains``) or a keyword it tells to pass (``pass allow_large=True``,
    ``pixel_units=True``). A name inside a code example's call (``np.asarray(X, dtype=float)``) or a run key shown
    as ``seed=0`` is not an argument of the function."""
    found = set()
    for name in all_parameters():
        n = re.escape(name)
        subject = rf"(?<![\w.'\"(,=]){n}(?:\[[^\]]*\])?\s+(?:must|has|holds|contains|lacks|is)\b"
        keyword = rf"(?:\bpass\s+{n}=|(?<![\w.(,]\s)(?<![\w.(,]){n}=(?:True|False|None)\b)"
        if re.search(subject, message) or re.search(keyword, message):
            found.add(name)
    return found


def test_the_message_check_sees_a_foreign_parameter_and_not_code():
    assert named_parameters("severity must be an integer in 1..5, got 0.") == {"severity"}
    assert named_parameters("pass pixel_units=True to compute in pixels") == {"pixel_units"}
    assert named_parameters("convert it (e.g. np.asarray(X, dtype=float)); run key seed=0, eps_test = 0") == set()


# ------------------------------------------------------------------------------------------ the command line
#: One bad argument per subcommand that argparse accepts and robeval must refuse: ``(argv, words of the line)``.
CLI_CASES = {
    "run": (["run", "--profile", "nosuch"], "nosuch"),
    "verify": (["verify", "--profile", "nosuch"], "nosuch"),
    "report": (["report", "--profile", "nosuch"], "nosuch"),
    "compare": (["compare", "/nonexistent/claims"], "/nonexistent/claims"),
    "plan": (["plan", "--budget-min", "-5"], "budget"),
    "site": (["site", "--profile", "nosuch"], "nosuch"),
    "data": (["data", "--profile", "smoke"], "unrecognized arguments"),
    "strip": (["strip", "/nonexistent/nb.ipynb"], "/nonexistent/nb.ipynb"),
    "corrupt": (["corrupt", "--out", "OUT", "--severities", "9", "--subset"], "9"),
    "adopt": (["adopt", "bad/name"], "bad/name"),
    "grids": (["grids", "--profile", "nosuch"], "nosuch"),
}


def subcommands(capsys) -> set[str]:
    from robeval.__main__ import main

    with pytest.raises(SystemExit):
        main(["--help"])
    usage = capsys.readouterr().out
    return set(re.search(r"\{([a-z,]+)\}", usage).group(1).split(","))


def test_every_subcommand_has_a_bad_argument_case(capsys):
    assert subcommands(capsys) == set(CLI_CASES)


@pytest.mark.parametrize("cmd", sorted(CLI_CASES))
def test_a_bad_argument_is_one_line_and_a_nonzero_exit(cmd, capsys, tmp_path):
    from robeval.__main__ import main

    argv, needle = CLI_CASES[cmd]
    try:
        rc = main([str(tmp_path / a) if a == "OUT" else a for a in argv])
    except SystemExit as exc:  # argparse's own refusal: usage, then one error line
        rc = exc.code
        err = capsys.readouterr().err
        last = err.rstrip("\n").splitlines()[-1]
        assert err.startswith("usage: robeval") and re.match(r"robeval( \w+)?: error: ", last), err
    else:
        err = capsys.readouterr().err
        assert err.startswith("robeval") and err.count("\n") == 1, err
    assert rc not in (0, None) and "Traceback" not in err
    assert needle in err, err


# ---------------------------------------------------------------- sweeps over every contract (probe F #4, #12, #13)
BAD_DEVICES = (("gpu", ValueError), ("meta", ValueError), (1.5, TypeError))


def _with_parameter(name: str) -> list[str]:
    return sorted(key for key, c in dict(_static_keys()).items() if name in _static_params(key))


def _static_params(key: str) -> set[str]:
    import pathlib

    return contracts(pathlib.Path("/nonexistent"))[key].params()


@pytest.mark.parametrize("key", _with_parameter("device"))
def test_every_device_argument_is_checked_by_name(registry, key):
    """Every public function taking ``device=`` refuses a name torch does not know, the data-less 'meta' device and
    a wrong type with core.env.usable_device's messages, not torch's error at the first use."""
    contract = registry[key]
    for device, error in BAD_DEVICES:
        with pytest.raises(error, match=r"^device(=| must be a torch device name)"):
            contract.fn(**{**contract.good(), "device": device})


def _frames(contract) -> list[str]:
    return [arg for arg, v in contract.good().items() if isinstance(v, pd.DataFrame)]


FRAME_KEYS = [key for key in sorted(dict(_static_keys())) if key.split(".")[0] in ("mscr", "acr", "realworld", "msd")]


@pytest.mark.parametrize("key", FRAME_KEYS)
def test_every_frame_argument_refuses_a_column_twice_and_missing_values(registry, key):
    """A results frame with a column named twice, a MultiIndex of columns, or pandas' NA in a column the function
    reads gets a message naming the argument (was: pandas' 'arg must be a list ...', 'boolean value of NA is
    ambiguous')."""
    contract = registry[key]
    for arg in _frames(contract):
        good = contract.good()
        df = good[arg]
        cases = {
            "twice": pd.concat([df, df.iloc[:, :1]], axis=1),
            "levels": df.set_axis(pd.MultiIndex.from_arrays([df.columns] * 2), axis=1),
        }
        for name, bad in cases.items():
            with pytest.raises(ValueError, match=rf"^{arg}\b") as info:
                contract.fn(**{**good, arg: bad})
            assert "column" in str(info.value), (key, name, str(info.value))
        # pandas' NA is refused wherever NaN is, with a message naming the argument (and the column or cell)
        for column in [c for c in df.columns if df[c].dtype.kind in "iuf"]:
            na, nan = df.copy(), df.copy()
            na[column] = pd.array(df[column].tolist(), dtype="Float64")
            na.loc[na.index[0], column] = pd.NA
            nan[column] = df[column].astype(float)
            nan.loc[nan.index[0], column] = np.nan
            try:
                contract.fn(**{**good, arg: nan})
            except (ValueError, TypeError):
                with pytest.raises((ValueError, TypeError)) as info:
                    contract.fn(**{**good, arg: na})
                message = str(info.value)
                assert type(info.value).__module__ == "builtins" and _names_argument(message, arg), (key, message)
                assert str(column) in message or "column" in message, (key, column, message)
