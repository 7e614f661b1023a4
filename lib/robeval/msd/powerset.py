"""The augmentation-powerset experiment (Mintun et al. 2021, Sec. 4 and App. B) and the Fig. 2b toy, as grid cells.

The paper trains one network per augmentation scheme (Sec. 4) and, in Appendix B, repeats the analysis
without training: one network trained with default augmentation re-estimates its batch-norm statistics on
each scheme's augmented data. Both variants are here:

* :func:`prepare_powerset` builds the shared ingredients once: the base network and the separate feature
  extractor (default-augmentation models cached by :func:`robeval.msd.nets.trained_model`, shared with
  notebook 04), the CIFAR-10-C test set (:func:`robeval.msd.nets.corrupted_test_set`), the image sample D_S,
  the corruption transform features and the Fig. 2b feature pools;
* :func:`powerset_cell` — one scheme, batch-norm adaptation (App. B): MSD/MMD from the scheme to every
  corruption and severity, and the errors of the base network after adapting its batch-norm statistics to the
  scheme;
* :func:`retrain_cell` — one scheme, retraining (Sec. 4): a network trained with the scheme (from scratch in
  the paper profile; fine-tuned from the base network where the profile says so);
* :func:`toy_cell` — one fraction of the impulse-noise / motion-blur mixture of Fig. 2b (training), and
  :func:`toy_distances` its MMD and MSD.

Cells are ``fn(cell, config) -> list[dict]`` for :func:`robeval.core.runs.run_grid`; every cell's seed is
derived from the notebook seed and the cell's key (:func:`robeval.msd.nets.run_seed`), so a cell's result does
not depend on which other cells run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robeval.msd import nets
from robeval.msd.distance import (
    METHODS,
    corruption_features,
    method_transform,
    mixture_transform,
    mmd_many,
    msd_many,
    sample_feature_images,
    scheme_transform,
    transform_features,
)
from robeval.transforms import augmentations as aug

GRID_CELLS = (
    "toy_cell",
    "powerset_cell",
    "powerset_base_cell",
    "retrain_cell",
)  # the functions a grid store may name (core.runs.cell_function)

SEVERITIES = (1, 2, 3, 4, 5)


# ----------------------------------------------------------------------------------------------- schemes
def sample_powerset_schemes(n: int, seed: int) -> list[frozenset]:
    """``n`` schemes of the 512-scheme powerset: the empty scheme, the nine single ops (solarize and translate_x,
    the ops of Fig. 4, first) and the full nine-op scheme (AugMix's ops) lead; the rest is a seeded uniform
    draw without replacement from the other schemes."""
    schemes = aug.powerset_schemes()
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= len(schemes):
        raise ValueError(f"n must be an integer in 1..{len(schemes)}, got {n!r}.")
    lead = ("solarize", "translate_x")
    singles = [frozenset({o}) for o in lead] + [frozenset({o}) for o in aug.BASE_OPS if o not in lead]
    head = [frozenset()] + singles + [frozenset(aug.BASE_OPS)]
    if n <= len(head):
        return head[:n]
    rest = [sc for sc in schemes if sc not in head]
    pick = np.random.default_rng(nets.keyed_state(seed, "schemes")).choice(len(rest), size=n - len(head), replace=False)
    return head + [rest[i] for i in sorted(pick)]


def scheme_kind(scheme) -> str:
    """'baseline' (empty), 'color' or 'geometric' (all ops of one kind) or 'mixed'."""
    ops = aug.parse_scheme(scheme)
    if not ops:
        return "baseline"
    kinds = {aug.OPS[o].kind for o in ops}
    return kinds.pop() if len(kinds) == 1 else "mixed"


# ------------------------------------------------------------------------------------------- preparation
_PREP_KEYS = nets.TRAIN_KEYS + (
    "n_runs",
    "seed",
    "n_test",
    "corruptions",
    "n_feature_images",
    "n_corruption_samples",
    "toy_pool_samples",
)


def prepare_powerset(settings, workdir, *, n_jobs: int = 1, progress: bool = True) -> dict:
    """Everything the grid cells share, computed once:

    1. the default-augmentation networks (crops and flips only; :func:`robeval.msd.nets.default_networks`,
       cached by config and shared with notebook 04): the base network (run 0), the networks that start the
       Fig. 2b runs (runs 1.. n_runs-1) and the feature extractor f_hat;
    2. the CIFAR-10-C test set: the first ``n_test`` test images, image i at severity 1 + i mod 5, for every
       corruption (:func:`robeval.msd.nets.corrupted_test_set`);
    3. under ``workdir/<settings hash>/``: the fixed image sample D_S (``n_feature_images`` training images,
       as in the paper's code) and the transform features of ``n_corruption_samples`` instances of every
       corruption and severity (``corruption_features.npz``: ``means`` (n_corr, 5, D), ``feature_images``),
       and for Fig. 2b an independent pool of impulse-noise and motion-blur instance features
       (``toy_pool.npz``).

    ``n_jobs`` processes train the networks and corrupt the images of 2. and 3. (the feature extractor runs in
    this process, on the GPU when there is one); every corrupted image draws from a stream keyed by its index or
    by a seed drawn here, so the files are bit-identical for every ``n_jobs``
    (:func:`robeval.msd.nets.corrupt_diagonal_many`, :func:`robeval.msd.distance.corruption_features`).

    Returns the JSON-able ``config`` of :func:`powerset_cell`, :func:`retrain_cell` and :func:`toy_cell`.
    """
    import hashlib
    import json

    from robeval.core.io import save_npz

    s = dict(settings)
    keys = nets.default_networks(s, n_jobs=n_jobs)
    tcfg = nets.train_config(s)
    seed = int(s["seed"])
    corruptions = list(s["corruptions"])
    test_path = nets.corrupted_test_set(
        corruptions, n_test=int(s["n_test"]), full_data=bool(s["full_data"]), seed=seed, n_jobs=n_jobs
    )
    recipe = json.dumps({k: s[k] for k in _PREP_KEYS}, sort_keys=True, default=str)
    root = Path(workdir) / hashlib.sha256(recipe.encode()).hexdigest()[:12]
    root.mkdir(parents=True, exist_ok=True)
    feature_fn = nets.cached_feature_fn(tcfg, keys["extractor"])
    feats_path = root / "corruption_features.npz"
    if not feats_path.is_file():
        x_train, _ = nets.training_arrays(tcfg)
        images = sample_feature_images(x_train, int(s["n_feature_images"]), nets.keyed_state(seed, "feature_images"))
        f = corruption_features(
            feature_fn,
            images,
            corruptions,
            SEVERITIES,
            int(s["n_corruption_samples"]),
            nets.keyed_state(seed, "corruption_features"),
            progress=progress,
            n_jobs=n_jobs,
        )
        save_npz(feats_path, means=f.mean(2), feature_images=images)
    toy_path = root / "toy_pool.npz"
    if not toy_path.is_file():
        images = np.load(feats_path)["feature_images"]
        pool = corruption_features(
            feature_fn,
            images,
            ["impulse_noise", "motion_blur"],
            SEVERITIES,
            int(s["toy_pool_samples"]),
            nets.keyed_state(seed, "toy_pool"),
            progress=progress,
            n_jobs=n_jobs,
        )
        save_npz(toy_path, impulse_noise=pool[0], motion_blur=pool[1])
    return {
        "train": tcfg,
        "seed": seed,
        "base_key": keys["run0"],
        "run_keys": [keys[f"run{k}"] for k in range(int(s["n_runs"]))],
        "extractor_key": keys["extractor"],
        "corruptions": corruptions,
        "test_path": str(test_path),
        "corr_features_path": str(feats_path),
        "toy_pool_path": str(toy_path),
        "n_adapt": int(s["n_adapt"]),
        "n_aug_samples": int(s["n_aug_samples"]),
        "mode": s["mode"],
        "severity": float(s["severity"]),
        "retrain_init": s["retrain_init"],
        "retrain_epochs": int(s["retrain_epochs"]),
        "toy_epochs": int(s["toy_epochs"]),
    }


def work_dir(profile: str) -> Path:
    """The ``workdir`` of :func:`prepare_powerset`: ``<cache_dir()>/msd_powerset/<profile>``."""
    from robeval.core import paths

    paths.check_profile(profile)
    return paths.cache_dir() / "msd_powerset" / profile


def base_network_errors(config: dict):
    """Clean and corruption errors of the base network as trained (its own batch-norm statistics), as a
    DataFrame corruption, severity, error, n."""
    import pandas as pd

    return pd.DataFrame(_errors(nets.load_model(config["train"], config["base_key"]), config))


def _errors(model, config: dict, corruptions=None) -> list[dict]:
    from robeval.core import data

    _, _, x_te, _ = data.load_cifar10_any(bool(config["train"]["full_data"]))
    return nets.error_rates(model, config["test_path"], clean=x_te, corruptions=corruptions)


# --------------------------------------------------------------------------------------------- the cells
def _scheme_parts(name: str, config: dict):
    """(display name, family, n_ops, feature transform or None, training batch transform or None)."""
    if name in METHODS and name != "augmix":
        return name, "method", -1, method_transform(name), aug.make_batch_transform(name)
    scheme = aug.parse_scheme(aug.BASE_OPS if name == "augmix" else name)
    if not scheme:
        return "none", "powerset", 0, None, None
    mode, severity = config["mode"], float(config["severity"])
    return (
        aug.scheme_name(scheme),
        "powerset",
        len(scheme),
        scheme_transform(scheme, mode=mode, severity=severity),
        aug.make_batch_transform(scheme, mode=mode, severity=severity),
    )


def _distances(feature_transform, config: dict, seed: int):
    """(MSD, MMD) arrays (n_corr, 5) from ``n_aug_samples`` instances of the transform to every corruption
    mean; the empty scheme (identity) has the single transform feature 0."""
    feats = np.load(config["corr_features_path"])
    means = feats["means"]
    n_corr, n_sev, dim = means.shape
    if feature_transform is None:
        aug_feats = np.zeros((1, dim))
    else:
        feature_fn = nets.cached_feature_fn(config["train"], config["extractor_key"])
        aug_feats = transform_features(
            feature_fn,
            feats["feature_images"],
            feature_transform,
            np.random.default_rng(nets.keyed_state(seed, "msd")),
            int(config["n_aug_samples"]),
        )
    flat = means.reshape(-1, dim)
    return msd_many(aug_feats, flat).reshape(n_corr, n_sev), mmd_many(aug_feats, flat).reshape(n_corr, n_sev)


def _rows(base: dict, errors: list[dict], config: dict, d_msd=None, d_mmd=None) -> list[dict]:
    index = {c: i for i, c in enumerate(config["corruptions"])}
    out = []
    for r in errors:
        row = {**base, "corruption": r["corruption"], "severity": r["severity"], "error": r["error"]}
        if d_msd is not None:
            i = index.get(r["corruption"])
            row["msd"] = float(d_msd[i, r["severity"] - 1]) if i is not None else float("nan")
            row["mmd"] = float(d_mmd[i, r["severity"] - 1]) if i is not None else float("nan")
        out.append(row)
    return out


def adaptation_images(config: dict) -> np.ndarray:
    """The ``n_adapt`` training images (uint8 NCHW) every scheme adapts the batch-norm statistics on: a fixed
    seeded subset, so schemes differ only in their augmentation."""
    x, _ = nets.training_arrays(config["train"])
    n = min(int(config["n_adapt"]), len(x))
    idx = np.sort(np.random.default_rng(nets.keyed_state(config["seed"], "adapt")).choice(len(x), n, replace=False))
    return x[idx]


def powerset_cell(cell: dict, config: dict) -> list[dict]:
    """One scheme, batch-norm adaptation (App. B): MSD and MMD from the scheme to every corruption and severity,
    and the errors of the base network after re-estimating its batch-norm statistics on ``n_adapt`` training
    images augmented with the scheme (on top of crops and flips).

    cell : {"scheme": '+'-joined ops ('none' = empty), or a method ('autoaugment', 'patch_gaussian';
        'augmix' = the nine-op scheme), "seed": int}

    Returns one row per (corruption, severity) plus a 'clean' row: scheme, family ('powerset' or 'method'),
    n_ops (-1 for methods), corruption, severity, error, msd, mmd.
    """
    seed = int(cell["seed"])
    name, family, n_ops, feature_transform, transform = _scheme_parts(cell["scheme"], config)
    d_msd, d_mmd = _distances(feature_transform, config, seed)
    base = nets.load_model(config["train"], config["base_key"])
    batches = nets.augmented_batches(adaptation_images(config), transform, nets.run_seed(seed, "adapt"))
    adapted = nets.adapt_batchnorm(base, batches)
    head = {"scheme": name, "family": family, "n_ops": n_ops}
    return _rows(head, _errors(adapted, config), config, d_msd, d_mmd)


def retrain_cell(cell: dict, config: dict) -> list[dict]:
    """One scheme, retraining (Sec. 4): a network trained with the scheme on top of crops and flips —
    from scratch for ``retrain_epochs`` when ``config["retrain_init"] == "scratch"`` (the paper), else
    fine-tuned from the base network for ``retrain_epochs`` — and its errors on every corruption.

    cell : {"scheme", "seed"} as in :func:`powerset_cell`. Returns rows scheme, family, n_ops, corruption,
    severity, error.
    """
    name, family, n_ops, _, _ = _scheme_parts(cell["scheme"], config)
    init = config["base_key"] if config["retrain_init"] == "base" else None
    model, _ = nets.trained_model(
        config["train"],
        cell["scheme"],
        int(cell["seed"]),
        init=init,
        epochs=int(config["retrain_epochs"]),
        scheme_mode=config["mode"],
        scheme_severity=float(config["severity"]),
    )
    return _rows({"scheme": name, "family": family, "n_ops": n_ops}, _errors(model, config), config)


def toy_cell(cell: dict, config: dict) -> list[dict]:
    """Fig. 2b toy, training part: default-augmentation network ``run`` (its own training run, so runs are
    independent) fine-tuned for ``toy_epochs`` with augmentation = impulse noise with probability
    ``cell['fraction']`` else motion blur (severity 1-5 at random, per image), scored on impulse noise and motion
    blur. Returns rows fraction, run, corruption, severity, error."""
    import torch

    from robeval.core.nn import models, training

    p = float(cell["fraction"])
    seed = int(cell["seed"])
    tcfg = config["train"]
    torch.manual_seed(seed)
    model = models.from_config(tcfg)
    run_keys = config["run_keys"]
    model.load_state_dict(nets.load_model(tcfg, run_keys[int(cell["run"]) % len(run_keys)]).state_dict())
    x, y = nets.training_arrays(tcfg)
    fn = mixture_transform(("impulse_noise", "motion_blur"), (p, 1.0 - p))
    training.train(
        model,
        x,
        y,
        epochs=int(config["toy_epochs"]),
        batch_size=int(tcfg["batch_size"]),
        lr=float(tcfg["lr"]),
        weight_decay=float(tcfg["weight_decay"]),
        nesterov=True,
        schedule="cosine",
        batch_transform=aug.as_batch_transform(fn),
        seed=seed,
        threads=int(tcfg["train_threads"]),
        progress=False,
    )
    rows = _errors(model.eval(), config, corruptions=("impulse_noise", "motion_blur"))
    return [{"fraction": p, "run": int(cell["run"]), **r} for r in rows]


def toy_distances(target_feats, other_feats, target_means, fractions, n_samples: int, seed) -> list[dict]:
    """Fig. 2b toy, distance part: MMD and MSD between a mixture augmentation and the target corruption.

    An augmentation sample is a target-corruption instance with probability ``fraction`` and an
    other-corruption instance otherwise; instances are drawn from the feature pools.

    Parameters
    ----------
    target_feats : (n_sev, P, D) transform features of target-corruption (impulse noise) instances
    other_feats : (n_sev, P, D) of the other corruption (motion blur)
    target_means : (n_sev, D) mean transform feature of the target corruption (independent samples)
    fractions : sequence of floats in [0, 1]
    n_samples : int   augmentation samples per fraction
    seed : int or SeedSequence; fraction k draws from ``keyed(seed, k)``

    Returns
    -------
    list of dict rows: fraction, mmd, msd (both averaged over severities)
    """
    from robeval.core.seeding import keyed

    t = np.asarray(target_feats, dtype=np.float64).reshape(-1, np.shape(target_feats)[-1])
    o = np.asarray(other_feats, dtype=np.float64).reshape(-1, np.shape(other_feats)[-1])
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    rows = []
    for k, frac in enumerate(fractions):
        rng = np.random.default_rng(keyed(root, k))
        n_t = rng.binomial(n_samples, float(frac))
        sample = np.concatenate([t[rng.integers(0, len(t), n_t)], o[rng.integers(0, len(o), n_samples - n_t)]])
        rows.append(
            {
                "fraction": float(frac),
                "mmd": float(mmd_many(sample, target_means).mean()),
                "msd": float(msd_many(sample, target_means).mean()),
            }
        )
    return rows


def toy_distance_runs(config: dict, fractions, n_samples: int, runs: int):
    """:func:`toy_distances` for ``runs`` independent draws of the augmentation samples (run r draws from
    ``keyed(seed, "toy_distances", r)``), with the target means of impulse noise from the corruption features.
    Returns a DataFrame fraction, run, mmd, msd."""
    import pandas as pd

    pool = np.load(config["toy_pool_path"])
    means = np.load(config["corr_features_path"])["means"][config["corruptions"].index("impulse_noise")]
    out = []
    for r in range(int(runs)):
        rows = toy_distances(
            pool["impulse_noise"],
            pool["motion_blur"],
            means,
            fractions,
            int(n_samples),
            nets.keyed_state(config["seed"], "toy_distances", r),
        )
        out += [{**row, "run": r} for row in rows]
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------------------- cells
def _check_seed(seed, name: str = "seed") -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {seed!r}.")
    return int(seed)


def powerset_cells(schemes, methods, seed: int) -> list[dict]:
    """Grid cells of Sec. 4 / App. B: one per powerset scheme, then one per published method,
    ``{"scheme", "seed"}`` with seed ``run_seed(seed, "scheme", name)`` (``"method"`` for methods), so a
    scheme's result does not depend on which other schemes run. ``methods`` are names of :data:`METHODS`
    (AugMix is the full nine-op scheme and comes with the powerset)."""
    seed = _check_seed(seed)
    methods = [str(m) for m in methods]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; valid: {', '.join(METHODS)}.")
    names = [aug.scheme_name(aug.parse_scheme(s)) for s in schemes]
    cells = [{"scheme": n, "seed": nets.run_seed(seed, "scheme", n)} for n in names]
    return cells + [{"scheme": m, "seed": nets.run_seed(seed, "method", m)} for m in methods]


def retrain_cells(schemes, seed: int) -> list[dict]:
    """Grid cells of the retraining variant: ``{"scheme", "seed"}`` with seed ``run_seed(seed, "retrain", name)``."""
    seed = _check_seed(seed)
    names = [aug.scheme_name(aug.parse_scheme(s)) for s in schemes]
    return [{"scheme": n, "seed": nets.run_seed(seed, "retrain", n)} for n in names]


def toy_cells(fractions, runs: int, seed: int) -> list[dict]:
    """Grid cells of the Fig. 2b toy: every fraction for runs 0..runs-1, ``{"fraction", "run", "seed"}`` with
    seed ``run_seed(seed, "toy", run)`` — the same fine-tuning seed for every fraction of a run (paired)."""
    seed = _check_seed(seed)
    fractions = [float(p) for p in fractions]
    bad = [p for p in fractions if not 0.0 <= p <= 1.0]
    if bad:
        raise ValueError(f"fractions must lie in [0, 1], got {bad}.")
    if isinstance(runs, (bool, np.bool_)) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ValueError(f"runs must be a positive integer, got {runs!r}.")
    return [
        {"fraction": p, "run": r, "seed": nets.run_seed(seed, "toy", r)} for r in range(int(runs)) for p in fractions
    ]


def retrain_scheme_list(names, sampled=None, seed: int = 0) -> list[str]:
    """The schemes of the retraining variant (Sec. 4), in :func:`robeval.transforms.augmentations.scheme_name` form.

    ``["all"]``: the 512 schemes of the powerset (the paper). ``["sample:K"]``: a seeded uniform draw (from
    ``keyed(seed, "retrain sample")``) of ``K`` of the schemes of the batch-norm grid, ``sampled`` (the list of
    :func:`sample_powerset_schemes`), so that every retrained scheme has an MSD and enters the Sec. 4.2 rows; with
    the whole powerset in ``sampled`` it is a uniform draw from the powerset. Else the given '+'-joined names
    (validated).
    """
    names = list(names)
    if names == ["all"]:
        return [aug.scheme_name(s) for s in aug.powerset_schemes()]
    if len(names) == 1 and str(names[0]).startswith("sample:"):
        spec = str(names[0])
        try:
            k = int(spec.split(":", 1)[1])
        except ValueError:
            k = 0
        if k < 1:
            raise ValueError(f"retrain_schemes {spec!r}: write 'sample:K' with K a positive integer, e.g. 'sample:64'.")
        if sampled is None:
            raise ValueError(
                "retrain_schemes 'sample:K' draws from the batch-norm grid's schemes: pass them as sampled=."
            )
        pool = [aug.scheme_name(aug.parse_scheme(s)) for s in sampled]
        if k > len(pool):
            raise ValueError(
                f"retrain_schemes {spec!r} asks for {k} schemes but the batch-norm grid runs {len(pool)}: raise "
                f"n_schemes to at least {k} or lower K."
            )
        pick = np.random.default_rng(nets.keyed_state(_check_seed(seed), "retrain sample")).choice(
            len(pool), size=k, replace=False
        )
        return [pool[i] for i in sorted(pick)]
    return [aug.scheme_name(aug.parse_scheme(n)) for n in names]


def check_toy_fractions(fractions, error_fractions) -> float:
    """The Fig. 2b fractions must include 0 and 1 (the two ends the claims compare with) and the error
    fractions must be among the distance fractions; returns the smallest positive error fraction."""
    f, e = {float(x) for x in fractions}, {float(x) for x in error_fractions}
    for name, s in (("toy_fractions", f), ("toy_error_fractions", e)):
        if not {0.0, 1.0} <= s or not any(0 < x < 1 for x in s):
            raise ValueError(f"{name} must contain 0, 1 and a fraction in between, got {sorted(s)}.")
    if not e <= f:
        raise ValueError(f"toy_error_fractions {sorted(e - f)} are not among toy_fractions {sorted(f)}.")
    return min(x for x in e if x > 0)


# ------------------------------------------------------------------------------ parts, cuts and the base networks
PARTS = ("fig2b", "appb", "retrain")
# the result files each part writes (base_errors.csv, the base network's own errors, is written by every run)
PART_FILES = {
    "fig2b": ("fig2b_toy_errors.csv", "fig2b_toy_distances.csv"),
    "appb": ("powerset_bn.csv", "powerset_bn_bases.csv"),
    "retrain": ("powerset_retrain.csv",),
}
PARTS_FILE = "parts.json"  # written beside the result files when a run computes only some parts


def check_parts(parts) -> list[str]:
    """The parts of notebook 03 a run computes (:data:`PARTS`, in that order): ``"fig2b"`` (the Fig. 2b toy),
    ``"appb"`` (the batch-norm adaptation grid: App. B, Figs. 1, 4, 5, App. A) and ``"retrain"`` (Sec. 4.2's
    retrained schemes). ValueError for an unknown, repeated or empty list."""
    if isinstance(parts, str) or not isinstance(parts, (list, tuple)) or not parts:
        raise ValueError(f"parts must be a non-empty list of {list(PARTS)}, got {parts!r}.")
    names = [str(p) for p in parts]
    bad = [p for p in names if p not in PARTS]
    if bad or len(set(names)) != len(names):
        raise ValueError(f"parts must name each of {list(PARTS)} at most once, got {names}.")
    return [p for p in PARTS if p in names]


def record_parts(out_dir, parts) -> list[str]:
    """Before a run computes ``parts``: remove the result files of the parts it does not compute (an earlier run's
    files must never be judged as this run's) and write :data:`PARTS_FILE` naming the parts computed (removed when
    every part is). Returns the checked parts."""
    import json

    parts = check_parts(parts)
    out_dir = Path(out_dir)
    for part in PARTS:
        if part not in parts:
            for name in PART_FILES[part]:
                (out_dir / name).unlink(missing_ok=True)
    marker = out_dir / PARTS_FILE
    if parts == list(PARTS):
        marker.unlink(missing_ok=True)
    else:
        marker.write_text(json.dumps({"parts": parts}) + "\n", encoding="utf-8")
    return parts


def parts_run(out_dir) -> list[str]:
    """The parts whose result files in ``out_dir`` come from the run that wrote them (:func:`record_parts`):
    those :data:`PARTS_FILE` names, or every part when there is none (a run of every part)."""
    import json

    marker = Path(out_dir) / PARTS_FILE
    if not marker.is_file():
        return list(PARTS)
    return check_parts(json.loads(marker.read_text(encoding="utf-8"))["parts"])


def retrain_cut(names, limit: int, seed: int) -> list[str]:
    """The first ``limit`` retrained schemes (0: all of ``names``) in a seeded random order (from
    ``keyed(seed, "retrain order")``), returned in the order of ``names``: every cut is a uniform draw from the
    list and a larger cut holds every smaller one, so a chunk's retrained cells are found again by the next."""
    names = list(names)
    if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)) or limit < 0:
        raise ValueError(f"retrain_limit must be an integer >= 0, got {limit!r}.")
    if limit == 0 or limit >= len(names):
        return names
    order = np.random.default_rng(nets.keyed_state(_check_seed(seed), "retrain order")).permutation(len(names))
    keep = set(order[: int(limit)].tolist())
    return [n for i, n in enumerate(names) if i in keep]


def powerset_base_cells(schemes, n_bases: int, seed: int, n_runs: int) -> list[dict]:
    """Grid cells of App. B on the further base networks: every powerset scheme on base networks 1..n_bases-1
    (base 0, run0, is :func:`powerset_cells`' grid), ``{"scheme", "base", "seed"}`` with seed
    ``run_seed(seed, "base", base, "scheme", name)``: each base network adapts with draws of its own. The base
    networks are the default-augmentation networks run0..run{n_runs-1}, so ``n_bases <= n_runs``."""
    seed = _check_seed(seed)
    if isinstance(n_bases, (bool, np.bool_)) or not isinstance(n_bases, (int, np.integer)) or n_bases < 1:
        raise ValueError(f"n_bases must be a positive integer, got {n_bases!r}.")
    if n_bases > int(n_runs):
        raise ValueError(
            f"n_bases = {n_bases} base networks need as many default-augmentation networks; n_runs = {n_runs}: "
            f"raise n_runs to {n_bases} or lower n_bases."
        )
    names = [aug.scheme_name(aug.parse_scheme(s)) for s in schemes]
    return [
        {"scheme": n, "base": b, "seed": nets.run_seed(seed, "base", b, "scheme", n)}
        for b in range(1, int(n_bases))
        for n in names
    ]


def powerset_base_cell(cell: dict, config: dict) -> list[dict]:
    """One scheme on base network ``cell["base"]`` (run ``base`` of the default-augmentation networks): its
    batch-norm statistics re-estimated on the ``n_adapt`` adaptation images augmented with the scheme, as
    :func:`powerset_cell` does for the base network run0, and its errors on every corruption. The MSD and MMD do
    not depend on the base network (the feature extractor is a network of its own): they are run0's grid's.

    Returns rows scheme, family, n_ops, base, corruption, severity, error."""
    base_no = int(cell["base"])
    keys = config["run_keys"]
    if not 0 < base_no < len(keys):
        raise ValueError(f"base {base_no} is not among the further base networks 1..{len(keys) - 1}.")
    name, family, n_ops, _, transform = _scheme_parts(cell["scheme"], config)
    base = nets.load_model(config["train"], keys[base_no])
    batches = nets.augmented_batches(adaptation_images(config), transform, nets.run_seed(int(cell["seed"]), "adapt"))
    adapted = nets.adapt_batchnorm(base, batches)
    head = {"scheme": name, "family": family, "n_ops": n_ops, "base": base_no}
    return _rows(head, _errors(adapted, config), config)
