"""Image transforms shared by the MSD and MSCR papers: uint8 NHWC batches in, uint8 NHWC batches out.

* :mod:`.corruptions` — CIFAR-10-C (Hendrycks & Dietterich 2019, CIFAR parameters) and CIFAR-10-C-bar
  (Mintun et al. 2021) in pure numpy/scipy: :func:`corrupt`, :func:`generate_dataset`;
  per-image random streams (results do not depend on batching); 32x32 images only;
* :mod:`.release` — the release layout of CIFAR-10-C / C-bar: the ``robeval corrupt`` command
  (:func:`~.release.corrupt_command`) and :func:`load_released` for the downloaded releases;
* :mod:`.augmentations` — the AugMix base operations and their powerset, AutoAugment, AugMix and Patch
  Gaussian (Mintun et al. 2021, Sec. 4).
"""

from robeval.transforms.augmentations import BASE_OPS, apply_scheme, autoaugment, patch_gaussian_images
from robeval.transforms.corruptions import (
    C_CORRUPTIONS,
    CBAR_CORRUPTIONS,
    corrupt,
    corrupt_with_param,
    generate_dataset,
    load_dataset,
)
from robeval.transforms.release import load_released

__all__ = [
    "BASE_OPS",
    "CBAR_CORRUPTIONS",
    "C_CORRUPTIONS",
    "apply_scheme",
    "autoaugment",
    "corrupt",
    "corrupt_with_param",
    "generate_dataset",
    "load_dataset",
    "load_released",
    "patch_gaussian_images",
]
