"""What the MSCR authors published (Siedel et al. 2022): printed numbers and their raw result files.

* Table 1's class separations (:data:`PAPER_2R_LINF_B`, :data:`PAPER_EPS_MIN_LINF_B`, :data:`PAPER_2R_CIFAR`);
* Tables 2a and 2b as printed (:data:`PAPER_TABLE_2A`, :data:`PAPER_TABLE_2B`) and the corrected eps_test header of the CIFAR file
  (:func:`corrected_cifar_eps_test`);
* readers of the authors' raw results: the 2D sheets ``gesamt_<dataset>sep_<norm>.xlsx`` (1200 runs,
  :func:`load_mscr_reference_2d`) and the CIFAR-10 CSV behind Table 3 (20 runs,
  :func:`load_mscr_reference_cifar`). Files come checksum-verified from :mod:`robeval.core.data`.
"""

from __future__ import annotations

import re

import numpy as np

from robeval.core.data import MSCR_2D, fetch
from robeval.core.validation import check_choice

_FLOAT = r"[0-9.]+(?:e-?\d+)?"


def _eps_lists(header: str) -> tuple[list[float], list[float]]:
    groups = re.findall(r"epsilon = ([^)]*)\)", header)
    if len(groups) < 2:
        raise ValueError(f"Could not parse the eps lists from the reference header: {header[:200]!r}")
    return [[float(v) for v in re.findall(_FLOAT, g)] for g in groups[:2]]


def load_mscr_reference_2d(dataset: str = "B", norm: str = "Linf") -> dict:
    """The MSCR authors' raw 2D results (1200 runs), from ``gesamt_<dataset>sep_<norm>.xlsx``.

    Returns a dict with
      ``eps_train``: the 9 training levels from the sheet header (entry 3 is eps_min at full precision
        for B/Linf; other sheets put eps_min at another position, see ``eps_min_position``),
      ``eps_test``: the 9 test levels read from the row labels (eps_min there only to the printed digits),
      ``eps_min_position``: row/column index of the eps_min level in the test rows,
      ``acc``: DataFrame of mean accuracies in percent (index eps_test, columns eps_train),
      ``mscr``: Series of MSCR in percent,
      ``acc_std``, ``acc_margin95``, ``mscr_std``, ``mscr_margin95``: same shapes in percent, or None where
        the sheet has no such block (only B/Linf and C/L2 carry them),
      ``notes``: inconsistencies found in the sheet (e.g. a header copied from another sheet).
    """
    import openpyxl
    import pandas as pd

    check_choice(dataset, "2D dataset", MSCR_2D)
    check_choice(norm, "norm", ("Linf", "L2"))
    path = fetch(f"mscr_reference/gesamt_{dataset}sep_{norm}.xlsx")
    ws = openpyxl.load_workbook(path, data_only=True, read_only=True).worksheets[0]
    rows = [list(r) for r in ws.iter_rows(values_only=True)]
    header = str(rows[0][1])
    eps_train, eps_test_header = _eps_lists(header)
    n = len(eps_train)
    labels = [str(r[0]).strip() if r[0] is not None else "" for r in rows]
    first = next(i for i, lab in enumerate(labels) if lab.startswith("Test Noise"))
    test_rows = [i for i in range(first, first + n)]
    eps_test, eps_min_pos = [], None
    for j, i in enumerate(test_rows):
        value = re.findall(r"[0-9]+(?:[.,][0-9]+)?", labels[i].split("=")[-1])[-1]
        eps_test.append(float(value.replace(",", ".")))
        if "r/2" in labels[i] or "min" in labels[i]:
            eps_min_pos = j
    find = lambda *names: next((i for i, lab in enumerate(labels) if lab in names), None)
    idx_te = pd.Index(eps_test, name="eps_test")
    idx_tr = pd.Index(eps_train, name="eps_train")

    def frame(start):
        if start is None:
            return None
        return pd.DataFrame(
            [[float(v) for v in rows[i][1 : 1 + n]] for i in range(start, start + n)], index=idx_te, columns=idx_tr
        )

    def series(i):
        return None if i is None else pd.Series([float(v) for v in rows[i][1 : 1 + n]], index=idx_tr)

    notes = [f"sheet title is {ws.title!r} whatever the file"]
    if eps_min_pos is not None and abs(eps_test_header[eps_min_pos] - eps_test[eps_min_pos]) > 5e-4:
        notes.append(
            f"header states eps_min(test) = {eps_test_header[eps_min_pos]:.6f} but the row label "
            f"says {eps_test[eps_min_pos]}; the header appears copied from another sheet"
        )
    return {
        "eps_train": eps_train,
        "eps_test": eps_test,
        "eps_min_position": eps_min_pos,
        "acc": frame(first),
        "mscr": series(find("MSCR", "MSSR")),
        "acc_std": frame(find("std Acc")),
        "acc_margin95": frame(find("95% confidence margin")),
        "mscr_std": series(find("std MSCR", "std MSSR")),
        "mscr_margin95": series(find("95% confidence margin MSCR", "95% confidence margin MSSR")),
        "header": header,
        "notes": notes,
    }


def _decimal_comma(cells: list[str]) -> list[float]:
    return [float(c.strip().rstrip("%").replace(",", ".")) for c in cells if c.strip() != ""]


AUTHORS_SEPARATION = "mscr_reference/cifar10_traintrain_separation.csv"


def load_authors_separation() -> np.ndarray:
    """The MSCR authors' separation of CIFAR-10's 50000 training images (their
    ``results/paper_Cifar10_separation/traintrain-separation.csv``): for each training image the L_inf distance to
    the nearest training image of another class, in [0, 1], printed to 4 decimals, sorted. Returns float64
    (50000,). The file is not in the offline mirror (:data:`robeval.core.data.BEYOND_MIRROR`): offline it raises
    :class:`robeval.core.data.DataFileMissing`, naming where to get it."""
    values = np.loadtxt(fetch(AUTHORS_SEPARATION), dtype=np.float64, ndmin=1)
    if values.shape != (50000,) or not np.all(np.isfinite(values)) or values.min() < 0 or values.max() > 1:
        raise ValueError(
            f"{AUTHORS_SEPARATION}: expected 50000 distances in [0, 1], got shape {values.shape} "
            f"(range {values.min():.4g}..{values.max():.4g}); delete the file and rerun to fetch it again."
        )
    return values


def load_mscr_reference_cifar() -> dict:
    """The MSCR authors' raw CIFAR-10 results (20 runs) behind the paper's Table 3.

    Returns a dict with ``eps_train`` (8) and ``eps_test`` (18) in the file's row order as stated in its
    header, DataFrames ``acc``, ``acc_margin95``, ``acc_std`` (percent; index eps_test, columns eps_train),
    Series ``mscr`` (percent) and ``mscr_std`` (from ``cifar10_msu_std.csv``, fraction of one), and the raw
    header text. The header lists ``0.0125`` after ``0.1058…`` where the matrix continues increasing; we keep
    the file's value and flag it in ``notes``.
    """
    import pandas as pd

    text = fetch("mscr_reference/cifar10_accuracy_matrix_20runs.csv").read_text(encoding="utf-8")
    lines = text.splitlines()
    header = lines[0]
    eps_train, eps_test = _eps_lists(header)
    body = [ln.split(";") for ln in lines[1:]]
    labels = [r[0] for r in body]
    i_acc = labels.index("Accuracy")
    i_mscr = next(i for i, lab in enumerate(labels) if lab.startswith("MSSR") or lab.startswith("MSCR"))
    i_margin = labels.index("95% confidence margins Acc")
    i_std = labels.index("Standard deviation")
    n = len(eps_test)
    mat = lambda i: pd.DataFrame(
        [_decimal_comma(r[1:]) for r in body[i : i + n]],
        index=pd.Index(eps_test, name="eps_test"),
        columns=pd.Index(eps_train, name="eps_train"),
    )
    std_lines = fetch("mscr_reference/cifar10_msu_std.csv").read_text(encoding="utf-8").splitlines()
    mscr_std = [float(v) for v in std_lines[1:] if v.strip()]
    notes = []
    if any(b < a for a, b in zip(eps_test, eps_test[1:])):
        notes.append("eps_test header is not sorted (0.0125 after 0.10588…); likely a typo for 0.125")
    return {
        "eps_train": eps_train,
        "eps_test": eps_test,
        "acc": mat(i_acc),
        "acc_margin95": mat(i_margin),
        "acc_std": mat(i_std),
        "mscr": pd.Series(_decimal_comma(body[i_mscr][1:]), index=pd.Index(eps_train, name="eps_train")),
        "mscr_std": pd.Series(mscr_std, index=pd.Index(eps_train, name="eps_train")),
        "header": header,
        "notes": notes,
    }


#: Table 2a of the paper as printed (2D dataset B, L_inf; accuracy in %, rows eps_test, columns eps_train in the
#: order 0, 0.001, 0.002, eps_min, 0.007, 0.01, 0.015, 0.02, 0.03; MSCR row in %), transcribed from the paper so
#: that the notebook can check it against the authors' sheet.
PAPER_TABLE_2A = {
    "eps_train": [0.0, 0.001, 0.002, "eps_min", 0.007, 0.01, 0.015, 0.02, 0.03],
    "eps_test": [0.0, 0.001, 0.002, "eps_min", 0.007, 0.01, 0.015, 0.02, 0.03],
    "acc": [
        [99.531, 99.652, 99.699, 99.748, 99.784, 99.769, 99.504, 98.990, 97.347],
        [99.515, 99.640, 99.689, 99.746, 99.785, 99.775, 99.524, 99.017, 97.380],
        [99.495, 99.607, 99.660, 99.732, 99.777, 99.768, 99.528, 99.026, 97.411],
        [99.405, 99.525, 99.583, 99.669, 99.729, 99.716, 99.486, 99.005, 97.435],
        [99.167, 99.287, 99.360, 99.461, 99.536, 99.535, 99.319, 98.871, 97.380],
        [98.782, 98.899, 98.977, 99.083, 99.175, 99.191, 99.014, 98.615, 97.238],
        [97.871, 97.979, 98.044, 98.134, 98.222, 98.265, 98.197, 97.921, 96.810],
        [96.771, 96.847, 96.896, 96.966, 97.040, 97.092, 97.105, 96.962, 96.198],
        [94.397, 94.423, 94.456, 94.500, 94.547, 94.593, 94.668, 94.698, 94.448],
    ],
    "mscr": [-0.126, -0.127, -0.116, -0.080, -0.055, -0.053, -0.018, 0.015, 0.090],
}

#: Table 2b of the paper as printed (accuracy in %, rows eps_test, columns eps_train; MSCR row in %),
#: transcribed from the paper so that the notebook can list where the print differs from the authors' CSV.
PAPER_TABLE_2B = {
    "eps_train": [0.0, 0.01, 0.02, 0.03, 0.05, 0.07, "eps_min", 0.15],
    "eps_test": [0.0, 0.01, 0.02, 0.03, 0.05, 0.07, "eps_min", 0.15],
    "acc": [
        [91.681, 91.932, 91.917, 91.311, 90.428, 88.645, 86.051, 81.989],
        [91.453, 91.900, 91.964, 91.351, 90.472, 88.678, 86.085, 81.995],
        [90.675, 91.527, 91.868, 91.459, 90.577, 88.817, 86.158, 82.082],
        [89.181, 91.606, 91.606, 91.479, 90.690, 88.983, 86.306, 82.165],
        [84.062, 89.273, 89.273, 90.530, 90.832, 89.513, 86.745, 82.540],
        [76.706, 84.086, 84.086, 87.303, 90.065, 89.907, 87.322, 83.051],
        [59.261, 67.534, 67.534, 74.137, 83.784, 88.260, 88.194, 84.181],
        [37.458, 42.765, 42.765, 49.685, 65.285, 77.257, 86.130, 85.352],
    ],
    "mscr": [-35.362, -33.977, -26.527, -18.808, -7.347, -0.434, 2.490, 2.674],
}


def corrected_cifar_eps_test(eps_test) -> list[float]:
    """The 18 eps_test levels of the authors' CSV with the header typo fixed (0.0125 listed after eps_min,
    where the rows continue increasing: 0.125)."""
    out = [float(e) for e in eps_test]
    for i in range(1, len(out)):
        if out[i] < out[i - 1] and np.isclose(out[i] * 10, out[i - 1], rtol=0.25):
            out[i] = out[i] * 10
    if any(b < a for a, b in zip(out, out[1:])):
        raise ValueError(f"eps_test levels are not increasing after the fix: {out}")
    return out


#: Table 1 of the paper: minimal L_inf class separation 2r (and eps_min = r) of 2D dataset B, and 2r of
#: CIFAR-10 (= 54/255).
PAPER_2R_LINF_B = 0.008026


PAPER_EPS_MIN_LINF_B = 0.004013


PAPER_2R_CIFAR = 0.211765


PAPER_EPS_MIN_CIFAR = 0.105882
