"""Image layouts. uint8 image operations (corruptions, augmentations) take NHWC batches; torch models take
NCHW (uint8 0-255 or float in [0, 1]). These two helpers are the only place where a batch changes layout."""

from __future__ import annotations

import numpy as np

LAYOUTS = ("NCHW", "NHWC")


def _check_batch(images, name: str, channel_axis: int) -> np.ndarray:
    arr = np.asarray(images)
    if arr.ndim != 4:
        raise ValueError(
            f"{name} must be a batch of images with 4 dimensions, got shape {arr.shape}; use x[None] for one image."
        )
    if arr.shape[channel_axis] not in (1, 3):
        other = "NHWC" if channel_axis == 1 else "NCHW"
        raise ValueError(
            f"{name} has {arr.shape[channel_axis]} channels on axis {channel_axis}, expected 1 or 3; "
            f"is it already {other}? (shape {arr.shape})"
        )
    return arr


def to_nhwc(images, name: str = "images") -> np.ndarray:
    """NCHW batch (N, C, H, W) -> contiguous NHWC (N, H, W, C), dtype kept."""
    return np.ascontiguousarray(_check_batch(images, name, 1).transpose(0, 2, 3, 1))


def to_nchw(images, name: str = "images") -> np.ndarray:
    """NHWC batch (N, H, W, C) -> contiguous NCHW (N, C, H, W), dtype kept."""
    return np.ascontiguousarray(_check_batch(images, name, 3).transpose(0, 3, 1, 2))


def in_layout(images, layout: str) -> np.ndarray:
    """An NCHW batch returned in ``layout`` (``"NCHW"`` or ``"NHWC"``)."""
    if layout not in LAYOUTS:
        raise ValueError(f"Unknown layout {layout!r}; use 'NCHW' (torch models) or 'NHWC' (image operations).")
    return np.asarray(images) if layout == "NCHW" else to_nhwc(images)
