"""Checks of the pandas DataFrames the public functions read (results frames, certification frames, tables):
one level of distinct column names, the columns a reader needs, numeric columns and run keys that appear once.
Every error names the frame (and the file it was read from) and says how to fix it.

Also the checks of what a container says about its values beyond the values themselves, which a function reading
them as a plain array would drop in silence: the index of a pandas object paired with another by position
(:func:`check_same_index`), the feature labels of a weight Series or a covariance DataFrame paired with the
columns of ``X`` (:func:`check_feature_labels`), the mask of a numpy masked array (:func:`check_unmasked`) and a
torch tensor on the 'meta' device, which holds no values at all (:func:`check_not_meta`).
"""

from __future__ import annotations

import numpy as np


def check_column_names(df, name: str = "df"):
    """``df`` unchanged if its columns are one level of distinct names; ValueError otherwise.

    A column named twice makes ``df[col]`` a frame, not a column, and a MultiIndex of columns makes it a frame of
    the sub-columns: every reader would fail with pandas' words far from the cause (or pick one copy silently).
    """
    import pandas as pd

    if isinstance(df.columns, pd.MultiIndex):
        raise ValueError(
            f"{name} has {df.columns.nlevels} levels of column names (a MultiIndex, e.g. {df.columns[0]!r}); flatten "
            f"them to one name per column, e.g. {name}.columns = ['_'.join(map(str, c)) for c in {name}.columns]."
        )
    dup = df.columns[df.columns.duplicated()]
    if len(dup):
        raise ValueError(
            f"{name} has the column {dup[0]!r} {int((df.columns == dup[0]).sum())} times (columns "
            f"{list(df.columns)}); drop or rename the repeated one, e.g. {name}.loc[:, ~{name}.columns.duplicated()]."
        )
    return df


def check_frame(df, columns=(), name: str = "df", *, non_empty: bool = False, hint: str = ""):
    """A pandas DataFrame with (at least) ``columns``; returns it unchanged.

    TypeError if ``df`` is not a DataFrame; ValueError naming the missing columns (and ``hint``, e.g. which
    function writes such a table), a column named twice or several levels of column names
    (:func:`check_column_names`) or, with ``non_empty``, an empty frame.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}.")
    source = df.attrs.get("source") if isinstance(getattr(df, "attrs", None), dict) else None
    if source:  # read from a results file (robeval.core.io.load_frame): name it, and how to remake it
        name = f"{name} (read from {source})"
        hint = (hint + " " if hint else "") + (
            "That file was written by other code or edited: recompute it (rerun its notebook's compute cells, "
            "without --replot) or restore it."
        )
    check_column_names(df, name)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks columns {missing}; it has {list(df.columns)}." + (f" {hint}" if hint else ""))
    if non_empty and len(df) == 0:
        raise ValueError(f"{name} is empty." + (f" {hint}" if hint else ""))
    return df


def check_unique_runs(df, keys, name: str = "rows", *, hint: str = ""):
    """``df`` unchanged if no two rows share the run key ``keys`` (e.g. seed, eps_train, eps_test); else ValueError
    naming the duplicated keys.

    Summaries over runs count rows: a results file concatenated twice, or a grid collected twice, would double the
    number of runs and shrink every confidence interval without a word. ``hint`` says where such rows come from.
    """
    check_frame(df, keys, name)
    dup = df.duplicated(list(keys), keep=False)
    if dup.any():
        first = df.loc[dup, list(keys)].drop_duplicates().head(3)
        shown = "; ".join(", ".join(f"{k}={v!r}" for k, v in zip(keys, row)) for row in first.itertuples(index=False))
        n_keys = int(df.loc[dup, list(keys)].drop_duplicates().shape[0])
        raise ValueError(
            f"{name} hold {int(dup.sum())} rows for {n_keys} run key(s) ({', '.join(keys)}) that appear more than "
            f"once, e.g. {shown}: a run counted twice would shrink the confidence intervals. Drop the repeated rows "
            f"(df.drop_duplicates({list(keys)!r}) if they are copies) or give each run its own key."
            + (f" {hint}" if hint else "")
        )
    return df


def check_numeric_column(df, column: str, name: str = "df", *, finite: bool = True, hint: str = ""):
    """Column ``column`` of the DataFrame ``df`` as a float64 Series (same index): ValueError naming the first row
    whose value is text (e.g. a CSV column read as strings, even "0.5") or, with ``finite``, NaN / infinite;
    TypeError naming the column and the first row for complex numbers (a cast to float64 would keep their real
    part with no more than numpy's ComplexWarning)."""
    import pandas as pd

    col = df[column]
    where = name
    source = df.attrs.get("source") if isinstance(getattr(df, "attrs", None), dict) else None
    if source:
        where = f"{name} (read from {source})"
    if col.dtype.kind == "c":
        complex_rows = col.notna()
    elif col.dtype.kind == "O":
        complex_rows = col.map(lambda v: isinstance(v, (complex, np.complexfloating))).astype(bool)
    else:
        complex_rows = None
    if complex_rows is not None and complex_rows.any():
        i = complex_rows.to_numpy().argmax()
        raise TypeError(
            f"{where}: column {column!r} must hold real numbers, but row {col.index[i]!r} holds the complex number "
            f"{complex(col.iloc[i])!r} (dtype {col.dtype}); pass real values (e.g. the .real part, if that is what is meant)."
            + (f" {hint}" if hint else "")
        )
    values = pd.to_numeric(col, errors="coerce")
    text = values.isna() & col.notna()
    if col.dtype.kind == "b":
        text = col.notna()  # True/False is not a number in a results column
    elif not text.any() and col.dtype.kind == "O":  # text that spells a number ("0.5") is text all the same
        text = col.map(lambda v: isinstance(v, (str, bytes))).astype(bool)
    if text.any():
        i = text.to_numpy().argmax()
        raise ValueError(
            f"{where}: column {column!r} must hold numbers, but row {col.index[i]!r} holds {col.iloc[i]!r} (dtype "
            f"{col.dtype}); fix that row (or the file it was read from)." + (f" {hint}" if hint else "")
        )
    values = values.astype(np.float64)
    if finite and not np.all(np.isfinite(values.to_numpy())):
        i = (~np.isfinite(values.to_numpy())).argmax()
        raise ValueError(
            f"{where}: column {column!r} holds {float(values.iloc[i])!r} in row {col.index[i]!r}; a failed or missing run "
            "cannot be averaged silently. Drop that run's rows (every eps_test of it) or recompute it."
            + (f" {hint}" if hint else "")
        )
    return values


def check_same_index(a, b, names: tuple[str, str] = ("a", "b")) -> None:
    """None when ``a`` and ``b`` are not both pandas objects (Series or DataFrames) or when their indexes are equal
    (the same labels in the same order); else ValueError naming both.

    A function that pairs two inputs value by value (a correlation over points, a distance and its success flag,
    the clean and robust accuracy of one run, points and their labels) pairs them by position, as it does arrays.
    Two Series with the same labels in another order, or other labels, would so pair different rows without a
    word; pandas itself would align them by label. The caller decides which, by aligning them or passing arrays.
    """
    import pandas as pd

    kinds = (pd.Series, pd.DataFrame)
    if not (isinstance(a, kinds) and isinstance(b, kinds)) or a.index.equals(b.index):
        return
    first, second = names
    raise ValueError(
        f"{first} and {second} are pandas objects with different indexes ({first}: {_shown(a.index)}, {second}: "
        f"{_shown(b.index)}); their values are paired by position, which would pair different rows. Align them first "
        f"({second} = {second}.reindex({first}.index)) or pass their values in one order ({first}.to_numpy(), "
        f"{second}.to_numpy())."
    )


def _shown(index) -> str:
    return "[" + ", ".join(repr(v) for v in index[:4]) + (", ...]" if len(index) > 4 else "]")


def check_feature_labels(X, labelled, name: str) -> None:
    """None unless ``labelled`` (a Series of one value per feature, or a (d, d) DataFrame over the features such as a
    covariance) carries labels that disagree with the features of ``X``; else ValueError naming ``name`` and the fix.

    A function that pairs per-feature values with the columns of ``X`` pairs them by position, as it does arrays. A
    Series whose index, or a DataFrame whose index or columns, list a DataFrame ``X``'s columns in another order (or
    other labels) would so apply one feature's weight or variance to another without a word; so would a DataFrame
    whose index and columns differ from each other, whatever ``X`` is. Arrays (and a Series next to an array ``X``)
    carry no labels: they are paired by position.
    """
    import pandas as pd

    if isinstance(labelled, pd.DataFrame):
        axes, fix = [("index", labelled.index), ("columns", labelled.columns)], f"{name}.loc[X.columns, X.columns]"
    elif isinstance(labelled, pd.Series):
        axes, fix = [("index", labelled.index)], f"{name}[X.columns]"
    else:
        return
    if isinstance(X, pd.DataFrame):
        ref, what = X.columns, "X's columns"
    elif isinstance(labelled, pd.DataFrame):
        ref, what, axes = labelled.columns, "its columns", axes[:1]
        fix = f"{name}.loc[{name}.columns, {name}.columns]"
    else:
        return
    for axis, labels in axes:
        if not labels.equals(ref):
            raise ValueError(
                f"{name}'s {axis} {_shown(labels)} differs from {what} {_shown(ref)}: {name} is paired with the "
                "features of X by position, which would apply one feature's value to another. Reorder it by label "
                f"({fix}) or, if its order is already the features' order, pass {name}.to_numpy()."
            )


def check_unmasked(values, name: str) -> None:
    """TypeError naming ``name`` when ``values`` is a numpy masked array: ``np.asarray`` drops the mask, so a function
    reading it as an array would use the masked (hidden) values like any other, e.g. a masked outlier in a mean."""
    if isinstance(values, np.ma.MaskedArray):
        raise TypeError(
            f"{name} is a numpy masked array; its masked values would be read like any other (the mask is dropped). "
            f"Pass the values that count: {name}.compressed() for one-dimensional values (for points, the rows "
            f"without a masked entry, and their labels), or {name}.filled(v) if the masked entries stand for v."
        )


def check_not_meta(values, name: str) -> None:
    """ValueError naming ``name`` when ``values`` is a torch tensor on the 'meta' device: it has a shape and a dtype
    but holds no values, so reading it fails inside torch with words that name no argument ("Cannot copy out of
    meta tensor"). Torch is never imported here (a caller holding a tensor has imported it)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and isinstance(values, torch.Tensor) and values.device.type == "meta":
        raise ValueError(
            f"{name} is a tensor on the 'meta' device, which holds no values (only a shape {tuple(values.shape)} and "
            f"a dtype); pass a CPU tensor or array."
        )
