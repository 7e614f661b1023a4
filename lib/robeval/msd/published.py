"""What Mintun, Kirillov & Xie (2021) printed: the numbers our MSD notebooks are compared with.

* Sec. 4.2: Spearman(MSD, error) > :data:`PAPER_SPEARMAN_THRESHOLD` for :data:`PAPER_N_ABOVE_THRESHOLD` of 15
  corruptions;
* Table 1 (CIFAR-10): mean error on CIFAR-10-C and CIFAR-10-C-bar per method and the printed difference
  (:data:`PAPER_TABLE1`), the per-corruption C-bar errors (:data:`PAPER_TABLE1_CBAR`);
* Table 1 (ImageNet), for the paper-against-itself checks only: :data:`PAPER_TABLE1_IN`,
  :data:`PAPER_TABLE1_IN_CBAR`, and the numbers Sec. 5's text derives from them (:data:`PAPER_SEC5_TEXT`).
"""

from __future__ import annotations

# Table 1 (CIFAR-10 part): mean test error (%) over the 15 CIFAR-10-C / 10 CIFAR-10-C-bar corruptions and 5
# severities, WRN-40-2, 10 runs; "delta" is the printed ΔC10-C column (C-bar − C)
PAPER_TABLE1 = {
    "none": {"c": 27.0, "cbar": 27.1, "delta": 0.1},
    "autoaugment": {"c": 19.4, "cbar": 21.0, "delta": 1.6},
    "augmix": {"c": 11.1, "cbar": 16.0, "delta": 5.9},
    "patch_gaussian": {"c": 17.0, "cbar": 23.8, "delta": 6.8},
}

# Table 1, per CIFAR-10-C-bar corruption (%), in the order of CBAR_CORRUPTIONS (alphabetical): blue noise sample
# (BSmpl), brownish noise (Brwn), checkerboard (Ckbd), circular motion blur (CBlur), inverse sparkles (ISprk),
# lines (Line), pinch and twirl (P&T), ripple (Rppl), sparkles (Sprk), transverse chromatic aberration (TCA)
PAPER_TABLE1_CBAR = {
    "none": [42.9, 27.2, 23.3, 11.8, 43.3, 26.2, 11.3, 21.6, 21.0, 42.9],
    "autoaugment": [17.7, 17.5, 17.6, 9.5, 40.4, 23.6, 10.7, 23.5, 17.5, 31.8],
    "augmix": [9.8, 27.8, 13.4, 5.9, 30.3, 18.0, 8.3, 12.1, 15.5, 19.2],
    "patch_gaussian": [9.0, 30.1, 21.6, 12.8, 35.4, 20.6, 8.8, 21.5, 19.3, 59.5],
}

# Table 1 (ImageNet part, ResNet-50): ImageNet-C error, ImageNet-C-bar error and the printed Δ (%)
PAPER_TABLE1_IN = {
    "Baseline": {"c": 58.1, "cbar": 57.7, "delta": -0.4},
    "AA": {"c": 55.0, "cbar": 55.7, "delta": 0.7},
    "SIN": {"c": 52.4, "cbar": 55.8, "delta": 3.4},
    "AugMix": {"c": 49.2, "cbar": 52.4, "delta": 3.2},
    "PG": {"c": 49.3, "cbar": 56.6, "delta": 7.3},
    "ANT": {"c": 48.8, "cbar": 53.9, "delta": 5.1},
    "DA": {"c": 46.6, "cbar": 51.0, "delta": 4.4},
    "DA+AM": {"c": 41.0, "cbar": 48.3, "delta": 7.3},
}

# Table 1, per ImageNet-C-bar corruption (%): BSmpl, Plsm, Ckbd, CSin, SFrq, Brwn, Prln, Sprk, ISprk, Rfrac
PAPER_TABLE1_IN_COLUMNS = ("BSmpl", "Plsm", "Ckbd", "CSin", "SFrq", "Brwn", "Prln", "Sprk", "ISprk", "Rfrac")
PAPER_TABLE1_IN_CBAR = {
    "Baseline": [68.6, 71.7, 49.4, 84.7, 79.0, 37.5, 34.3, 32.4, 76.7, 42.8],
    "AA": [54.8, 68.3, 43.8, 86.5, 78.8, 34.5, 33.8, 36.1, 77.1, 43.8],
    "SIN": [54.7, 69.8, 52.8, 79.6, 69.2, 37.8, 35.3, 37.0, 77.3, 44.1],
    "AugMix": [43.2, 72.2, 46.1, 76.3, 67.4, 38.8, 32.4, 32.3, 76.4, 39.2],
    "PG": [60.3, 74.1, 48.5, 82.1, 76.7, 38.9, 34.6, 32.1, 76.5, 42.1],
    "ANT": [35.8, 75.5, 56.9, 76.4, 63.7, 41.0, 35.2, 35.0, 76.1, 43.3],
    "DA": [41.7, 73.3, 53.9, 74.6, 50.9, 37.2, 30.3, 32.9, 74.7, 40.9],
    "DA+AM": [34.9, 67.9, 49.8, 69.7, 48.0, 35.2, 30.6, 32.9, 74.3, 39.8],
}

# Sec. 5's text, derived from Table 1 (ImageNet): errors on a hypothetical benchmark without blue noise sample
# and checkerboard, and DeepAugment+AugMix's improvements on single frequency noise and inverse sparkles
PAPER_SEC5_TEXT = {
    "without_bsmpl_ckbd": {"AA": 57.3, "PG": 57.2, "Baseline": 57.4, "AugMix": 54.3},
    "da_am_improvement": {"SFrq": 31.0, "ISprk": 2.3},
    "delta_range": {"AA": 0.7, "PG": 7.3},
}

# Sec. 4.2: "12 of 15 have Spearman rank correlation greater than 0.6"
PAPER_SPEARMAN_THRESHOLD = 0.6
PAPER_N_ABOVE_THRESHOLD = 12
