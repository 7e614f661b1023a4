"""Notebook 03 judged part by part (issue 63): a run that computes only some of its parts records the rows of the
others as not decided, saying which part was not run.

The ``long`` profile runs notebook 03 in chunks of at most 2.5 h on 2 CPU cores, each computing one part
(:data:`robeval.msd.powerset.PARTS`: ``fig2b``, the Fig. 2b toy; ``appb``, the batch-norm adaptation grid behind
App. B, Figs. 1, 4, 5 and App. A; ``retrain``, Sec. 4.2's retrained schemes) or adding one to the parts an earlier
chunk stored. The parts a run computed are named beside its result files
(:func:`robeval.msd.powerset.record_parts`); :func:`evaluate_msd_powerset` judges the rows of those parts from
their files (:mod:`robeval.msd.claims_powerset`) and records every row of a part not run with
:meth:`robeval.core.ledger.Ledger.unavailable`: inconclusive, no estimate, the part that would decide it in
``decides``, never a verdict from files an earlier run left. The retraining rows also need the batch-norm grid (the
MSD of a retrained scheme is its batch-norm grid's).

Each row is defined once, in :func:`robeval.msd.claims_powerset.row_heads`: the record functions record it with its
numbers, :func:`record_not_run` without them (:func:`part_rows`).
"""

from __future__ import annotations

from robeval.core.ledger import Claim
from robeval.core.ledger import check_ledger as _check_ledger
from robeval.msd import claims_powerset as cp
from robeval.msd import powerset, tables


def _small(cfg) -> float:
    return min(float(f) for f in cfg["toy_error_fractions"] if float(f) > 0)


def _corruptions(cfg) -> list[str]:
    from robeval.transforms.corruptions import C_CORRUPTIONS

    return [str(c) for c in (cfg.get("corruptions") or C_CORRUPTIONS)]


def part_rows(part: str, cfg) -> list[dict]:
    """The rows ``part`` records under the settings ``cfg`` (seed, methods, toy_error_fractions, corruptions,
    n_bases, n_aug_samples, the retraining settings), each ``{"id", "source", "description", "kind", "central",
    "labels"}`` (``paper`` too for a value row): :func:`robeval.msd.claims_powerset.row_heads`, the definitions the
    record functions record, with what the settings say of the part (the retraining judged as if it reached
    :data:`~robeval.msd.claims_powerset.MIN_RETRAINED` schemes)."""
    powerset.check_parts([part])
    cols = _corruptions(cfg)
    if part == "fig2b":
        small = _small(cfg)
        heads = cp.row_heads(part, cols=cols, small=small, toy_error_lost=cp.toy_error_lost(cfg, small))
    elif part == "retrain":
        lost = cp.retrain_lost({k: cfg.get(k) for k in ("retrain_init", "retrain_epochs", "epochs")}, cp.MIN_RETRAINED)
        heads = cp.row_heads(part, cols=cols, retrained=dict(survives=False, mechanism=lost) if lost else {})
    else:
        heads = cp.row_heads(
            part,
            cols=cols,
            methods=cfg.get("methods", ()),
            n_bases=int(cfg.get("n_bases") or 1),
            n_aug_samples=cfg.get("n_aug_samples"),
        )
    return [{"id": k, **v} for k, v in heads.items()]


def not_run_why(part: str, done) -> str:
    """What a row of ``part`` lacks when the run computed only the parts ``done``."""
    names = {"fig2b": "Fig. 2b", "appb": "batch-norm adaptation (App. B)", "retrain": "retraining (Sec. 4.2)"}
    ran = ", ".join(done) or "none"
    if part == "retrain" and "retrain" in done:  # the retraining ran, the batch-norm grid that gives its MSD did not
        return (
            f"the part 'appb' was not run in this run (parts = [{ran}]): a retrained scheme's MSD comes from the "
            "batch-norm grid; a run with 'appb' and 'retrain' in parts decides it"
        )
    return (
        f"the part {part!r} ({names[part]}) was not run in this run (parts = [{ran}]); a run with {part!r} in parts "
        "decides it (its stored grid cells are found again, nothing computed twice)"
    )


def record_not_run(ledger, part: str, cfg, done) -> list[Claim]:
    """Every row of ``part`` (:func:`part_rows`) recorded as not computed (:meth:`Ledger.unavailable`: inconclusive,
    no estimate), :func:`not_run_why` as what would decide it."""
    ledger = _check_ledger(ledger)
    why = not_run_why(part, done)
    out = []
    for r in part_rows(part, cfg):
        extra = {"paper": r["paper"]} if "paper" in r else {}
        labels = dict(r["labels"])
        if labels["evidence"] == "replication":  # a sampled statement of our experiments is about models unless
            labels.setdefault("about", "models")  # it says otherwise, as the ledger reads a row with an interval
        out.append(
            ledger.unavailable(
                r["id"], r["source"], r["description"], why=why, kind=r["kind"], central=r["central"],
                note=f"not computed: {why}.", **extra, **labels,
            )
        )  # fmt: skip
    return out


def evaluate_msd_powerset(ledger, cfg, out_dir) -> list[Claim]:
    """Every claim of notebook 03 from its result files in ``out_dir``: ``powerset_bn.csv`` (batch-norm
    adaptation grid, base network run0), ``powerset_bn_bases.csv`` (the further base networks, when ``n_bases >
    1``), ``powerset_retrain.csv`` (retrained schemes), ``fig2b_toy_errors.csv`` and ``fig2b_toy_distances.csv``,
    for the parts the run that wrote them computed (:func:`robeval.msd.powerset.parts_run`); the rows of the other
    parts are recorded as not run (:func:`record_not_run`). ``cfg``: the notebook's settings (seed, methods,
    n_boot, toy_error_fractions, n_bases, ...)."""
    from pathlib import Path

    from robeval.core.io import load_frame

    out_dir = Path(out_dir)
    done = powerset.parts_run(out_dir)
    seed, n_boot = int(cfg["seed"]), int(cfg["n_boot"])
    out = []
    if "appb" in done:
        bn_avg = tables.average_over_severities(load_frame(out_dir / "powerset_bn.csv"))
        retrain_avg = None
        if "retrain" in done:
            retrain = load_frame(out_dir / "powerset_retrain.csv")
            msd_of = bn_avg[bn_avg["family"] == "powerset"][["scheme", "corruption", "msd", "mmd"]]
            retrain_avg = tables.average_over_severities(retrain).merge(msd_of, on=["scheme", "corruption"], how="left")
        out += cp.record_spearman_claims(
            ledger,
            bn_avg,
            retrain_avg,
            seed=seed,
            n_boot=n_boot,
            n_aug_samples=cfg.get("n_aug_samples"),
            retrain_cfg={k: cfg.get(k) for k in ("retrain_init", "retrain_epochs", "epochs")},
            base_errors=base_error_matrices(out_dir / "powerset_bn_bases.csv"),
        )
        if retrain_avg is None:
            out += record_not_run(ledger, "retrain", cfg, done)
        out += cp.record_inclusion_claims(ledger, bn_avg, seed=seed, n_boot=n_boot)
        out += cp.record_appendix_a_claims(ledger, bn_avg, seed=seed, n_boot=n_boot)
        out += cp.record_single_op_claims(ledger, bn_avg, seed=seed, n_boot=n_boot)
        out += cp.record_method_claims(ledger, bn_avg, cfg["methods"], seed=seed, n_boot=n_boot)
    else:
        out += record_not_run(ledger, "appb", cfg, done)
        out += record_not_run(ledger, "retrain", cfg, done)
    if "fig2b" in done:
        small = _small(cfg)
        out += cp.record_toy_claims(
            ledger,
            load_frame(out_dir / "fig2b_toy_errors.csv"),
            load_frame(out_dir / "fig2b_toy_distances.csv"),
            small=small,
            error_lost=cp.toy_error_lost(cfg, small),
        )
    else:
        out += record_not_run(ledger, "fig2b", cfg, done)
    return out


def base_error_matrices(path) -> list:
    """The error matrices (schemes x corruptions, severity-averaged) of the further base networks in ``path``
    (``powerset_bn_bases.csv``, column ``base`` = 1, 2, ...), in order of the base network; [] when the file is
    missing (one base network). A run cut short is judged at the base networks it has, as every grid here."""
    from pathlib import Path

    from robeval.core.io import load_frame

    if not Path(path).is_file():
        return []
    rows = load_frame(path)
    out = []
    for b in sorted(int(b) for b in rows["base"].unique()):
        avg = tables.average_over_severities(rows[rows["base"] == b].drop(columns="base"))
        out.append(tables.scheme_matrix(avg, "error"))
    return out
