"""What Sun et al. (ICML 2025) published: printed tables and the authors' certification and ECDF files.

Printed: Tables 2, 3, 4, 5 and 8 (:data:`PAPER_TABLE3`, ...), the ImageNet recovery shares of Section 6 and
the strict orders of Appendix B.3. Files: :func:`published_frames` (CERTIFY outputs of seven training
methods, via :func:`robeval.acr.files.load_certification`) and :func:`published_ecdfs` (Fig. 9's data).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

METHODS = ("gaussian", "macer", "smoothadv", "consistency", "smoothmix", "catrs", "ours")


METHOD_NAMES = {
    "gaussian": "Gaussian",
    "macer": "MACER",
    "smoothadv": "SmoothAdv",
    "consistency": "Consistency",
    "smoothmix": "SmoothMix",
    "catrs": "CAT-RS",
    "ours": "Ours",
}


CIFAR10_RADII = tuple(np.round(np.arange(0, 2.51, 0.25), 2))


IMAGENET_RADII = tuple(np.round(np.arange(0, 3.51, 0.5), 2))


# Table 3 (CIFAR-10): sigma, method, ACR, certified accuracy (%) at 0.00, 0.25, ..., 2.50, as printed
# (entries beyond the largest certifiable radius are printed as 0.0).
_TABLE3 = """
0.25 gaussian 0.486 81.3 66.7 50.0 32.4
0.25 macer 0.529 78.7 68.3 55.9 40.8
0.25 smoothadv 0.544 73.4 65.6 57.0 47.5
0.25 consistency 0.547 75.8 67.4 57.5 46.0
0.25 smoothmix 0.543 77.1 67.6 56.8 45.0
0.25 catrs 0.562 76.3 68.1 58.8 48.2
0.25 ours 0.564 76.6 69.1 59.3 48.3
0.5 gaussian 0.562 68.7 57.6 45.7 34.0 23.7 15.9 9.4 4.8
0.5 macer 0.680 64.7 57.4 49.5 42.1 34.0 26.4 19.2 12.0
0.5 smoothadv 0.684 65.3 57.8 49.9 41.7 33.7 26.0 19.5 12.9
0.5 consistency 0.716 64.1 57.6 50.3 42.9 35.9 29.1 22.6 16.0
0.5 smoothmix 0.738 60.6 55.2 49.3 43.3 37.6 32.1 26.4 20.5
0.5 catrs 0.757 62.3 56.8 50.5 44.6 38.5 32.7 27.1 20.6
0.5 ours 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
1.0 gaussian 0.534 51.5 44.1 36.5 29.4 23.8 18.2 13.1 9.2 6.0 3.8 2.3
1.0 macer 0.760 39.5 36.9 34.6 31.7 28.9 26.4 23.8 21.1 18.6 16.0 13.8
1.0 smoothadv 0.790 43.7 40.3 36.9 33.8 30.5 27.0 24.0 21.4 18.4 15.9 13.4
1.0 consistency 0.757 45.7 42.0 37.8 33.7 30.0 26.3 22.9 19.6 16.6 13.9 11.6
1.0 smoothmix 0.788 42.4 39.4 36.7 33.4 30.0 26.8 23.9 20.8 18.6 15.9 13.6
1.0 catrs 0.815 43.2 40.2 37.2 34.3 31.0 28.1 24.9 22.0 19.3 16.8 14.2
1.0 ours 0.844 42.0 39.4 36.5 33.9 31.1 28.4 25.6 23.1 20.6 18.3 16.1
"""


# Table 4 (ImageNet, every 100th validation image): ACR and certified accuracy (%) at 0.0, 0.5, ..., 3.5.
_TABLE4 = """
0.25 gaussian 0.476 66.7 49.4
0.25 smoothadv 0.532 65.3 55.5
0.25 ours 0.529 64.2 55.8
0.5 gaussian 0.733 57.2 45.8 37.2 28.6
0.5 smoothadv 0.824 53.6 49.4 43.3 36.8
0.5 consistency 0.822 55.0 50.2 44.0 34.8
0.5 smoothmix 0.846 54.6 50.0 43.4 37.8
0.5 ours 0.842 55.5 48.6 43.8 37.6
1.0 gaussian 0.875 43.6 37.8 32.6 26.0 19.4 14.8 12.2 9.0
1.0 smoothadv 1.040 40.3 37.0 34.0 30.0 26.9 24.6 19.7 15.2
1.0 consistency 0.982 41.6 37.4 32.6 28.0 24.2 21.0 17.4 14.2
1.0 smoothmix 1.047 39.6 37.2 33.6 30.4 26.2 24.0 20.4 17.0
1.0 catrs 1.071 43.6 38.2 35.2 30.8 26.8 24.0 20.2 17.0
1.0 ours 1.042 41.0 37.4 33.6 31.0 27.0 23.2 19.4 15.8
"""


# Table 2 (CIFAR-10, sigma = 0.5): ACR, mean gradient norm on easy and on hard inputs, their ratio.
PAPER_TABLE2 = pd.DataFrame(
    [
        ("gaussian", 0.56, 10.10, 22.67, 0.45),
        ("smoothadv", 0.68, 5.60, 5.62, 1.00),
        ("consistency", 0.72, 14.99, 19.32, 0.78),
        ("smoothmix", 0.74, 11.72, 11.79, 0.99),
        ("catrs", 0.76, 30.45, 7.12, 4.28),
    ],
    columns=["method", "ACR", "grad_easy", "grad_hard", "ratio"],
).set_index("method")


def _parse_table(text: str, radii) -> pd.DataFrame:
    rows = {}
    for line in text.strip().splitlines():
        tok = line.split()
        vals = [float(v) for v in tok[2:]]
        acc = vals[1:] + [0.0] * (len(radii) - len(vals) + 1)
        rows[(float(tok[0]), tok[1])] = [vals[0]] + acc
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["ACR"] + [f"{r:.2f}" for r in radii])
    out.index = pd.MultiIndex.from_tuples(list(rows), names=["sigma", "method"])
    return out


PAPER_TABLE3 = _parse_table(_TABLE3, CIFAR10_RADII)


PAPER_TABLE4 = _parse_table(_TABLE4, IMAGENET_RADII)


def paper_table(dataset: str) -> pd.DataFrame:
    """The paper's printed Table 3 (``"cifar10"``) or Table 4 (``"imagenet"``), index ``(sigma, method)``."""
    if dataset == "cifar10":
        return PAPER_TABLE3.copy()
    if dataset == "imagenet":
        return PAPER_TABLE4.copy()
    raise ValueError(f"dataset must be 'cifar10' or 'imagenet', got {dataset!r}.")


def published_frames(dataset: str, keys=None) -> dict:
    """Published certification frames ``{(sigma, method): DataFrame}`` via ``robeval.core``.

    Parameters
    ----------
    dataset : {"cifar10", "imagenet"}
    keys : iterable of (sigma, method), optional
        Default: every row of the paper's table for ``dataset``.
    """
    from robeval.acr import files as data

    keys = list(paper_table(dataset).index) if keys is None else list(keys)
    return {(float(s), m): data.load_certification(dataset, m, float(s)) for s, m in keys}


# Table 8 (App. E.1): mean and standard deviation of "Ours"' ACR over three seeds, per sigma.
PAPER_TABLE8 = {0.25: (0.5613, 0.0022), 0.5: (0.7587, 0.0011), 1.0: (0.8434, 0.0003)}


# Section 6: percent of the best baseline's ImageNet ACR gain over Gaussian that "Ours" recovers, per sigma.
PAPER_IMAGENET_RECOVERY = {0.25: 94.6, 0.5: 96.5, 1.0: 85.2}


# Appendix B.3: the strict ECDF orders the paper lists, as groups of (better, worse); the sigma of each group
# was lost in the text extraction.
PAPER_APPB3_STRICT_ORDERS = (
    (("catrs", "consistency"), ("catrs", "smoothadv"), ("ours", "catrs")),
    (("catrs", "smoothmix"),),
    (("catrs", "smoothmix"), ("catrs", "macer"), ("ours", "macer")),
)


# Table 5 (CIFAR-10, sigma = 0.5): ACR and certified accuracy (%) at r = 0 of each training variant, as printed.
PAPER_TABLE5 = {
    "gaussian": (0.525, 65.7),
    "discard": (0.627, 68.4),
    "reweight": (0.662, 68.1),
    "attack": (0.701, 63.4),
    "discard+reweight": (0.672, 68.5),
    "discard+attack": (0.731, 63.4),
    "reweight+attack": (0.741, 56.1),
    "all": (0.760, 59.3),
}


def published_ecdfs(keys=None) -> dict:
    """The authors' published ECDF files of ``p_A`` (CIFAR-10, Fig. 9) as ``{(sigma, method): DataFrame(x, y)}``.

    Parameters
    ----------
    keys : iterable of (sigma, method), optional
        Default: every row of the paper's Table 3 (the files exist for all of them).
    """
    from robeval.acr import files as data

    keys = list(paper_table("cifar10").index) if keys is None else list(keys)
    return {(float(s), m): data.load_published_ecdf(m, float(s)) for s, m in keys}


# Table 5 (CIFAR-10) in full: sigma -> variant -> (ACR, certified accuracy (%) at 0.00, 0.25, ... up to the last
# radius printed above 0), as printed. Rows: Gaussian, then the check marks (discard, reweight, attack) in the
# table's order: each alone, the three pairs, all three.
_TABLE5_FULL = """
0.25 gaussian 0.486 81.3 66.7 50.0 32.4
0.25 discard 0.515 81.2 69.3 53.7 36.8
0.25 reweight 0.512 81.3 69.4 53.3 36.3
0.25 attack 0.537 76.7 66.7 55.6 44.3
0.25 discard+reweight 0.523 81.1 69.7 54.6 38.3
0.25 discard+attack 0.550 77.4 68.5 57.7 45.4
0.25 reweight+attack 0.554 75.0 67.1 58.1 48.1
0.25 all 0.564 76.6 69.1 59.3 48.3
0.5 gaussian 0.525 65.7 54.9 42.8 32.5 22.0 14.1 8.3 3.9
0.5 discard 0.627 68.4 59.4 49.5 39.4 29.0 20.5 13.0 7.0
0.5 reweight 0.662 68.1 59.7 50.3 41.1 31.7 23.7 16.2 9.2
0.5 attack 0.701 63.4 56.2 49.1 41.7 34.5 28.2 22.1 16.5
0.5 discard+reweight 0.672 68.5 60.1 51.0 41.8 32.4 24.2 16.7 9.3
0.5 discard+attack 0.731 63.4 56.8 50.1 43.7 37.0 30.8 24.4 18.0
0.5 reweight+attack 0.741 56.1 52.1 47.3 43.2 38.6 34.1 29.1 23.1
0.5 all 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
1.0 gaussian 0.534 51.5 44.1 36.5 29.4 23.8 18.2 13.1 9.2 6.0 3.8 2.3
1.0 discard 0.665 46.8 42.1 37.6 33.1 28.7 24.3 20.2 16.1 12.6 9.8 7.4
1.0 reweight 0.695 49.9 44.9 39.7 34.9 29.8 25.3 21.4 17.5 13.6 10.1 7.1
1.0 attack 0.690 47.3 42.0 37.0 32.0 27.1 23.2 19.9 16.6 13.6 10.8 8.4
1.0 discard+reweight 0.736 48.8 44.5 40.3 35.9 31.4 27.3 22.9 19.1 15.2 11.7 8.7
1.0 discard+attack 0.771 47.0 43.1 39.1 35.0 30.9 27.1 23.6 20.2 17.0 14.1 11.6
1.0 reweight+attack 0.818 39.7 37.5 34.8 32.5 29.9 27.7 25.3 22.6 20.1 17.9 15.8
1.0 all 0.844 42.0 39.4 36.5 33.9 31.1 28.4 25.6 23.1 20.6 18.3 16.1
"""


PAPER_TABLE5_FULL = _parse_table(_TABLE5_FULL, CIFAR10_RADII).rename_axis(["sigma", "variant"])


# The largest radius column at which each sigma's printed rows are not all 0.0 (beyond it the budget N = 1e5
# cannot certify): Sec. 6's "large radius" per sigma.
LARGE_RADIUS = {0.25: "0.75", 0.5: "1.75", 1.0: "2.50"}


# Table 8 (App. E.1): mean and standard deviation over three seeds of Ours' ACR and certified accuracy (%) at
# 0.00, 0.25, ... (up to the last certifiable radius), per sigma.
PAPER_TABLE8_FULL = {
    0.25: [(0.5613, 0.0022), (76.43, 0.11), (68.58, 0.34), (58.93, 0.34), (48.15, 0.10)],
    0.5: [
        (0.7587, 0.0011),
        (59.00, 0.20),
        (54.40, 0.26),
        (49.37, 0.16),
        (44.31, 0.14),
        (39.09, 0.19),
        (34.14, 0.05),
        (28.91, 0.05),
        (22.83, 0.13),
    ],
    1.0: [
        (0.8434, 0.0003),
        (41.74, 0.43),
        (39.23, 0.44),
        (36.46, 0.31),
        (33.73, 0.33),
        (30.95, 0.27),
        (28.30, 0.08),
        (25.62, 0.09),
        (23.22, 0.15),
        (20.74, 0.15),
        (18.40, 0.25),
        (16.12, 0.19),
    ],
}


# Tables 9-14 (App. D and E.4, CIFAR-10, sigma = 0.5): one hyper-parameter varied, the others as in Table 6.
# value -> (ACR, certified accuracy (%) at 0.00, 0.25, ..., 1.75), as printed.
def _parse_ablation(text: str) -> pd.DataFrame:
    rows = {}
    for line in text.strip().splitlines():
        tok = line.split()
        rows[float(tok[0])] = [float(v) for v in tok[1:]]
    cols = ["ACR"] + [f"{r:.2f}" for r in CIFAR10_RADII[:8]]
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols).rename_axis("value")


PAPER_ABLATIONS = {
    # table: (hyper-parameter, its Table 6 value, rows)
    "Table 9": (
        "discard epoch T",
        70.0,
        _parse_ablation("""
50 0.738 58.0 53.2 48.3 42.9 38.1 33.0 27.5 21.8
70 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
90 0.751 60.1 54.9 49.6 44.1 38.6 33.4 27.5 21.4
110 0.746 60.0 55.1 49.5 43.7 38.0 33.3 27.2 21.0
130 0.738 61.4 56.1 50.2 44.2 37.5 31.7 25.5 19.2
"""),
    ),
    "Table 10": (
        "discard threshold p0",
        0.4,
        _parse_ablation("""
0.3 0.753 59.5 54.5 49.4 44.3 39.0 33.7 28.0 21.9
0.4 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
0.5 0.757 60.0 54.7 49.9 44.5 38.9 33.7 27.9 22.1
0.6 0.758 59.2 54.6 49.5 44.3 39.4 34.1 28.7 22.2
0.7 0.749 59.5 54.4 49.0 43.7 38.7 33.2 27.7 21.7
0.8 0.740 59.5 54.4 49.1 43.6 38.1 32.8 26.8 20.8
"""),
    ),
    "Table 11": (
        "attack step size eta (L2)",
        0.25,
        _parse_ablation("""
0.125 0.744 64.2 58.1 51.6 44.7 38.1 31.4 24.4 17.1
0.25 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
0.5 0.703 50.8 47.4 43.9 40.3 36.4 32.9 28.8 24.4
1.0 0.624 43.2 40.7 38.2 35.4 32.7 29.7 26.6 22.7
2.0 0.533 38.1 35.6 33.0 30.5 27.6 24.9 22.0 19.0
"""),
    ),
    "Table 12": (
        "attack steps K (L2)",
        6.0,
        _parse_ablation("""
2 0.719 66.2 58.9 51.5 43.7 36.2 28.9 21.8 14.5
4 0.752 62.0 56.7 50.9 44.6 38.6 32.7 26.3 19.7
6 0.760 59.3 54.8 49.6 44.4 38.9 34.1 29.0 23.0
8 0.748 57.0 52.6 48.0 43.4 38.7 34.2 29.2 23.6
10 0.732 54.1 49.9 45.9 42.0 37.8 34.0 29.5 24.6
"""),
    ),
    "Table 13": (
        "attack step size eta (Linf, in units of 1/sqrt(d))",
        0.25,
        _parse_ablation("""
0.125 0.722 66.3 59.6 51.8 44.3 36.4 29.1 21.3 13.7
0.25 0.746 62.7 57.0 51.1 44.8 38.4 32.0 25.4 18.5
0.5 0.727 55.7 51.3 46.9 42.5 37.7 32.8 28.0 22.6
1.0 0.640 46.4 43.3 39.9 36.7 33.5 30.0 25.9 22.0
"""),
    ),
    "Table 14": (
        "attack steps K (Linf)",
        6.0,
        _parse_ablation("""
3 0.718 66.0 59.0 51.6 43.8 36.2 28.8 21.2 14.0
4 0.731 65.0 58.5 51.5 44.2 37.3 29.9 23.1 15.8
5 0.736 64.2 57.8 51.4 44.6 37.7 30.6 23.7 16.5
6 0.746 62.7 57.0 51.1 44.8 38.4 32.0 25.4 18.5
7 0.743 61.5 56.4 50.6 44.4 38.1 32.4 25.7 19.1
8 0.742 60.1 54.8 49.7 43.7 38.0 32.7 26.9 20.3
"""),
    ),
}


# Table 1 (literature review): number of check marks per work, in the order printed. The text extraction kept
# the marks but lost their columns (uses ACR, universal improvement, claims SOTA, customised model).
TABLE1_MARKS = {
    "Zhai et al. (2020)": 3,
    "Jeong & Shin (2020)": 3,
    "Awasthi et al. (2020)": 1,
    "Jeong et al. (2021)": 3,
    "Horváth et al. (2022)": 3,
    "Chen et al. (2022)": 3,
    "Vaishnavi et al. (2022)": 2,
    "Yang et al. (2022)": 4,
    "Carlini et al. (2023)": 1,
    "Jeong et al. (2023)": 3,
    "Wu et al. (2023)": 3,
    "Li et al. (2024)": 3,
    "Wang et al. (2024)": 3,
}
# Sec. 2's counts: 13 works; 10 customise the model and claim SOTA; 8 of those evaluate with ACR; 7 claim SOTA
# on ACR alone (ACR without universal improvement).
TABLE1_TEXT_COUNTS = {"works": 13, "custom_and_sota": 10, "with_acr": 8, "acr_only": 7}
