"""Certification frames (one row per certified input: ``idx label predict radius correct``, ``predict = -1`` for
abstentions): the rules every metric of :mod:`robeval.acr.metrics` checks on the frames it reads and
:func:`robeval.acr.files.write_certification_tsv` on those it writes, so every file written is one they accept.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from robeval.acr.smoothing import ABSTAIN
from robeval.core.frames import check_column_names, check_numeric_column

CERT_COLUMNS = ("label", "predict", "radius", "correct")


def check_certification_frame(df, name: str = "df") -> pd.DataFrame:
    """Validate a certification frame (as returned by ``robeval.acr.files.load_certification``).

    Requires columns ``label, predict, radius, correct`` with class indices >= 0 as labels, finite, non-negative
    radii, 0/1 ``correct`` equal to ``predict == label``, and abstentions (``predict = -1``) with radius 0 that are never correct;
    returns the frame unchanged.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"{name} must be a pandas DataFrame with columns {list(CERT_COLUMNS)}, "
            f"got {type(df).__name__}; load one with robeval.acr.files.load_certification."
        )
    check_column_names(df, name)
    missing = [c for c in CERT_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{name} lacks columns {missing}; a certification table needs "
            f"{list(CERT_COLUMNS)} (tab-separated: idx label predict radius correct time)."
        )
    if len(df) == 0:
        raise ValueError(f"{name} is empty; certify at least one input.")
    check_numeric_column(df, "radius", name, finite=False)
    for column in ("label", "predict", "correct"):
        _check_whole_column(df, column, name)
    negative = df["label"].to_numpy(dtype=np.float64) < 0
    if negative.any():  # before the abstention and correct rules, which a label of -1 would make contradict
        i = int(np.argmax(negative))
        raise ValueError(
            f"{name}['label'] must be a class index >= 0, but row {df.index[i]!r} holds "
            f"{int(df['label'].to_numpy()[i])}; -1 is reserved for abstentions in predict (a true label is never an "
            "abstention): fix or drop that row."
        )
    check_unique_inputs(df, name)
    r = df["radius"].to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise ValueError(f"{name}['radius'] must be finite and >= 0 (0 for abstentions).")
    c = df["correct"].to_numpy()
    if not np.all(np.isin(c, (0, 1))):
        i = int(np.argmax(~np.isin(c, (0, 1))))
        raise ValueError(
            f"{name}['correct'] must be 0/1 (1 where predict == label), but row {df.index[i]!r} holds {df['correct'].tolist()[i]!r}; "
            "recompute it as (predict == label).astype(int)."
        )
    pred, label = df["predict"].to_numpy(), df["label"].to_numpy()
    abstain = pred == ABSTAIN
    if np.any(abstain & (c == 1)) or np.any(abstain & (r > 0)):
        raise ValueError(
            f"{name} has abstentions (predict = {ABSTAIN}) marked correct or with a radius > 0; an abstention "
            "certifies nothing: set correct = 0 and radius = 0 for those rows."
        )
    wrong = (pred == label).astype(c.dtype) != c
    if np.any(wrong):
        raise ValueError(
            f"{name}['correct'] disagrees with predict == label in {int(wrong.sum())} rows "
            f"(first at row {int(np.argmax(wrong))}); recompute it as (predict == label)."
        )
    return df


def _check_whole_column(df: pd.DataFrame, column: str, name: str) -> None:
    """ValueError naming ``column`` and the first bad row unless it holds whole numbers (class indices, or 0/1
    and True/False for ``correct``) with no missing value: text labels would compare unequal to the predictions,
    and a missing ``correct`` has no truth value."""
    col = df[column]
    kinds = "biuf" if column == "correct" else "iuf"
    kind = getattr(col.dtype, "kind", "O")
    if kind not in kinds:
        raise ValueError(
            f"{name}[{column!r}] must hold whole numbers (class indices, -1 for an abstention), got dtype {col.dtype}; "
            f"convert it, e.g. {name}[{column!r}] = {name}[{column!r}].astype(int)."
        )
    missing = col.isna().to_numpy()
    values = col.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = missing | ~np.isfinite(values)
    if column != "correct":  # correct: its own 0/1 check below names the fix
        bad |= values != np.round(values)
    if bad.any():
        i = int(np.argmax(bad))
        shown = "a missing value" if missing[i] else repr(float(values[i]))
        raise ValueError(
            f"{name}[{column!r}] must hold whole numbers, but row {df.index[i]!r} holds {shown}; a missing "
            "or fractional class or outcome cannot be scored: recompute that row or drop it."
        )


#: Columns that, with ``idx``, name one certification of one input when frames of several models are pooled (the
#: seeds of a variant: the same test input once per trained model).
RUN_COLUMNS = ("seed", "run", "model", "method", "variant", "sigma")


def check_unique_inputs(df: pd.DataFrame, name: str = "df") -> pd.DataFrame:
    """``df`` unchanged unless two rows certify the same test input (``idx``) of the same model (the columns of
    :data:`RUN_COLUMNS` it has): ValueError naming the first repeated index (a row concatenated twice would count
    that input twice in every mean). A frame without ``idx`` is returned unchecked."""
    if "idx" in df.columns:
        keys = ["idx"] + [c for c in RUN_COLUMNS if c in df.columns]
        dup = df.duplicated(keys, keep=False).to_numpy()
        if dup.any():
            first = df["idx"].to_numpy()[dup][0]
            raise ValueError(
                f"{name} holds {int(dup.sum())} rows whose {', '.join(keys)} repeat (e.g. idx={first}): one test "
                f"input would be counted twice. Drop the repeated rows ({name}.drop_duplicates({keys!r})) or give "
                "each input its own idx."
            )
    return df
