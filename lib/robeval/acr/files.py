"""Certification files in Cohen et al.'s tab-separated format (``idx label predict radius correct time``).

Readers for any such file (:func:`read_certification`) and for the published ones of the ACR paper
(:func:`load_certification`, :func:`load_published_ecdf`; checksum-verified through
:mod:`robeval.core.data`), and :func:`write_certification_tsv` for our own CERTIFY results.
"""

from __future__ import annotations

import datetime
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from robeval.acr.checks import check_sigma
from robeval.core.data import fetch, registry
from robeval.core.io import check_regular_file
from robeval.core.validation import check_choice

if TYPE_CHECKING:
    import pandas

ACR_METHODS = ("gaussian", "macer", "smoothadv", "consistency", "smoothmix", "catrs", "ours")


SIGMAS = (0.25, 0.5, 1.0)


CERTIFICATION_COLUMNS = ("idx", "label", "predict", "radius", "correct", "time")

CERTIFICATION_MAX = 2**30  # bytes of a certification file read whole (ImageNet's 50000 lines: about 3 MB)


def _parse_one(v) -> float:
    s = str(v).strip()
    days = 0.0
    if "day" in s:
        d, s = s.split(",", 1)
        days = float(d.split()[0])
        s = s.strip()
    if ":" in s:
        sec = 0.0
        for p in s.split(":"):
            sec = sec * 60.0 + float(p)
    else:
        sec = float(s)
    return days * 86400.0 + sec


def parse_duration(values) -> np.ndarray:
    """Seconds (float64) from ``H:MM:SS(.ffffff)`` / ``D day(s), H:MM:SS`` strings or plain numbers."""
    import pandas as pd

    text = pd.Series(np.asarray(values, dtype=object).reshape(-1)).astype(str).str.strip()
    out = np.full(len(text), np.nan)
    # the common form H:MM:SS(.f), vectorised; anything else (days, plain seconds) one by one
    hms = text.str.fullmatch(r"\d+:\d{1,2}:\d{1,2}(?:\.\d*)?").to_numpy(dtype=bool)
    if hms.any():
        parts = text[hms].str.split(":", expand=True).astype(np.float64).to_numpy()
        out[hms] = parts[:, 0] * 3600.0 + parts[:, 1] * 60.0 + parts[:, 2]
    for i in np.flatnonzero(~hms):
        out[i] = _parse_one(text.iloc[i])
    return out


def read_certification(path: str | os.PathLike) -> pandas.DataFrame:
    """Parse a CERTIFY output file (tab separated ``idx label predict radius correct time``).

    ``predict`` is -1 for abstentions. ``time`` is converted to seconds (column ``time_s``; the raw text is
    kept in ``time``). Raises ValueError naming ``path`` for a folder, a FIFO, device or socket (or a link to
    one), a file over :data:`CERTIFICATION_MAX` bytes (1 GiB), an empty or binary (not UTF-8 text) file,
    a line with more or fewer tab-separated fields than the header has names (naming the line), or missing
    columns.
    """
    import io

    import pandas as pd

    from robeval.core.validation import check_path

    text = _certification_text(check_path(path, "path"))
    df = pd.read_csv(io.StringIO(text), sep="\t")
    missing = [c for c in CERTIFICATION_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{path}: certification file lacks column(s) {missing}; expected tab-separated columns "
            f"{' '.join(CERTIFICATION_COLUMNS)} as written by CERTIFY (robeval.acr)."
        )
    df["time_s"] = parse_duration(df["time"].to_numpy())
    return df


def _certification_text(path: Path) -> str:
    """The text of the certification file ``path``, every line with as many tab-separated fields as the header
    (a longer line would make pandas read its first fields as an index: every column shifted in silence). A FIFO,
    device or socket (or a link to one) and a file over :data:`CERTIFICATION_MAX` bytes are refused before they
    are opened (:func:`robeval.core.io.check_regular_file`): a FIFO would block, ``/dev/zero`` fill the memory."""
    if path.is_dir():
        raise ValueError(
            f"path {str(path)!r} is a folder; pass a certification file (e.g. {str(path / 'certify.tsv')!r})."
        )
    check_regular_file(path, "path", "pass a tab-separated certification file", max_bytes=CERTIFICATION_MAX)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(
            f"path {str(path)!r} is not a text file (not UTF-8); pass a tab-separated certification file."
        ) from None
    lines = text.splitlines()
    if not text.strip():
        raise ValueError(
            f"path {str(path)!r} is empty; a certification file starts with the header "
            f"{' '.join(CERTIFICATION_COLUMNS)} (tab separated)."
        )
    width = lines[0].count("\t") + 1
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() and line.count("\t") + 1 != width:
            raise ValueError(
                f"path {str(path)!r}: line {number} has {line.count(chr(9)) + 1} tab-separated fields, but the header "
                f"names {width} columns; fix or remove that line (was the file appended to by other code?)."
            )
    return text


def load_certification(dataset: str, method: str, sigma: float) -> pandas.DataFrame:
    """Published certification results of the ACR paper (eth-sri/acr-weakness ``data/certify``).

    ``dataset`` ∈ {cifar10, imagenet}; ``method`` ∈ ACR_METHODS; ``sigma`` ∈ {0.25, 0.5, 1.0}. CIFAR-10 has
    all 10000 test points, ImageNet every 100th of 50000. Some ImageNet files lack the ``.tsv`` suffix
    upstream; both spellings are resolved. Columns: idx, label, predict, radius, correct, time, time_s.
    """
    check_choice(dataset, "dataset", ("cifar10", "imagenet"))
    check_choice(method, "method", ACR_METHODS)
    check_choice(check_sigma(sigma), "sigma", SIGMAS)  # text or True is not a noise level
    stem = f"acr_weakness/certify/{dataset}/{method}/noise_{float(sigma)}"
    reg = registry()
    rel = stem + ".tsv" if stem + ".tsv" in reg else stem
    if rel not in reg:
        avail = sorted(
            {
                k.split("/")[3] + "@" + k.split("noise_")[1].removesuffix(".tsv")
                for k in reg
                if k.startswith(f"acr_weakness/certify/{dataset}/")
            }
        )
        raise ValueError(
            f"No published certification for {dataset}/{method} at sigma={sigma}. "
            f"Available (method@sigma): {', '.join(avail)}."
        )
    return read_certification(fetch(rel))


def load_published_ecdf(method: str, sigma: float) -> pandas.DataFrame:
    """The ECDF of p_A behind the ACR paper's Figure 9 (CIFAR-10): columns ``x`` (p_A) and ``y``."""
    import pandas as pd

    check_choice(method, "method", ACR_METHODS)
    check_choice(check_sigma(sigma), "sigma", SIGMAS)  # text or True is not a noise level
    return pd.read_csv(fetch(f"acr_weakness/ecdf/{method}_{float(sigma)}.csv"), sep="\t")


def format_radius(r: float) -> str:
    """Radius as in the published files: three significant digits (``'{:.3}'``), e.g. ``0.877``."""
    return f"{float(r):.3}"


def format_time(seconds: float) -> str:
    """Elapsed time as in the published files: ``str(datetime.timedelta)``, e.g. ``0:00:03.761169``."""
    return str(datetime.timedelta(seconds=float(seconds)))


def _check_times(df: pd.DataFrame) -> None:
    """ValueError naming ``df['time']`` and the row unless every ``time`` is a finite number of seconds >= 0 or a
    text :func:`parse_duration` (the reader's parser) reads as one, printable on one line (a tab or line break
    written as is would split the row or add one that :func:`read_certification` reads back)."""
    from robeval.core.frames import check_numeric_column

    col = df["time"]
    if col.dtype.kind in "mM":
        raise TypeError(
            f"df['time'] holds {col.dtype} values; it takes elapsed seconds (numbers) or duration texts such as "
            "'0:00:03.761169'. Pass df['time'].dt.total_seconds() for timedeltas."
        )
    values = col.tolist()
    text = np.array([isinstance(v, str) for v in values], dtype=bool)
    form = "a finite number of seconds >= 0 or a duration text such as '0:00:03.761169' (H:MM:SS)"
    for i, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)):
            raise ValueError(f"df['time'] must be {form}, but row {col.index[i]!r} holds {v!r}; fix that row.")
        if not text[i]:
            continue
        if not v.isprintable():
            raise ValueError(
                f"df['time'] must be {form} on one line, but row {col.index[i]!r} holds {v!r}, which has a tab, line "
                "break or other control character: written as is it would split that row or add one to the file. "
                "Pass the seconds as a number."
            )
        try:
            seconds = float(parse_duration([v])[0])
        except (ValueError, IndexError, OverflowError):
            raise ValueError(
                f"df['time'] must be {form}, but row {col.index[i]!r} holds {v!r}, which read_certification cannot "
                "read as a duration; pass the seconds as a number."
            ) from None
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"df['time'] must be {form}, but row {col.index[i]!r} holds {v!r}; fix that row.")
    if text.all():
        return
    numbers = df.iloc[np.flatnonzero(~text)]
    seconds = check_numeric_column(numbers, "time", "df", finite=False).to_numpy()  # objects and None named
    bad = ~(np.isfinite(seconds) & (seconds >= 0))  # NaN, infinite or negative
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"df['time'] must be {form}, but row {numbers.index[i]!r} holds {numbers['time'].tolist()[i]!r} (elapsed "
            "time is a finite number >= 0); fix that row."
        )


def write_certification_tsv(df: pd.DataFrame, path) -> Path:
    """Write certification results in the published tab-separated format.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``idx, label, predict, radius, correct, time`` (time in seconds, float, or already
        a timedelta string); extra columns are ignored.
    path : str or pathlib.Path
        Destination; written atomically (temporary file then rename).

    Returns
    -------
    pathlib.Path

    Notes
    -----
    Radii are written with 3 significant digits (``%.3g``), as the published files; :func:`robeval.acr.metrics.acr`
    of the file read back may differ from ``acr(df)`` by that rounding.

    Raises
    ------
    TypeError
        ``df`` is not a DataFrame, its ``time`` column holds timedeltas or datetimes (pass
        ``df['time'].dt.total_seconds()``), or ``path`` is not a file name (or empty).
    ValueError
        ``df`` is empty, lacks a column, has a NaN, infinite or negative radius, an ``idx``, ``label`` or
        ``predict`` that is not a whole number (a fraction would be truncated), or a repeated ``idx``; breaks a
        rule :func:`robeval.acr.metrics.acr` checks when it reads the file back
        (:func:`robeval.acr.frames.check_certification_frame`: ``correct`` is 0/1 and equals ``predict == label``;
        an abstention, ``predict = -1``, has radius 0); has a ``time`` that is neither a finite number of seconds
        >= 0 nor a text :func:`parse_duration` reads as such, on one line (a tab, newline or carriage return would
        add or split a row of the file); ``path`` is a folder or lies under a file.
    """
    from robeval.core.frames import check_frame, check_numeric_column, check_unique_runs
    from robeval.core.validation import check_path

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or os.PathLike), got {type(path).__name__}.")
    path = check_path(path, "path")
    if path.is_dir():
        raise ValueError(f"path {str(path)!r} is a folder; pass a file name (e.g. {str(path / 'certify.tsv')!r}).")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise ValueError(f"path {str(path)!r} lies under {str(parent)!r}, which is a file, not a folder.")
    need = ["idx", "label", "predict", "radius", "correct", "time"]
    check_frame(df, need, "df", non_empty=True, hint="a certification file needs idx label predict radius correct time")
    radius = check_numeric_column(df, "radius", "df")  # NaN, infinite or text radii are named
    for column in ("idx", "label", "predict"):
        values = check_numeric_column(df, column, "df").to_numpy()
        frac = values != np.round(values)
        if np.any(frac):
            i = int(np.argmax(frac))
            raise ValueError(
                f"df: column {column!r} must hold whole numbers (it is written as an integer), but row "
                f"{df.index[i]!r} holds {float(values[i])!r}; fix that row (a fraction would be truncated in silence)."
            )
    if (radius < 0).any():
        raise ValueError("df['radius'] must be >= 0 (0 for abstentions).")
    check_unique_runs(df, ["idx"], "df", hint="One test input would be written twice.")
    from robeval.acr.frames import check_certification_frame

    check_certification_frame(df, "df")  # correct and abstentions as acr() requires of the file read back
    _check_times(df)
    lines = ["\t".join(need)]
    for row in df[need].itertuples(index=False):
        t = row.time if isinstance(row.time, str) else format_time(row.time)
        lines.append(
            f"{int(row.idx)}\t{int(row.label)}\t{int(row.predict)}\t{format_radius(row.radius)}"
            f"\t{int(row.correct)}\t{t}"
        )
    from robeval.core.io import atomic_write_text

    return Path(atomic_write_text(path, "\n".join(lines) + "\n"))
