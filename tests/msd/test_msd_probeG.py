"""Probe G #6 of robeval.msd: a transform or corrupt_fn that drops images got a message naming ``transform`` and
showing no wrong shape; a non-callable transform, feature_fn or corrupt_fn failed with "'int' object is not
callable" at its first use."""

from __future__ import annotations

import re

import numpy as np
import pytest

from robeval import msd

IMAGES = np.random.default_rng(0).integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)


def _features(images):
    return np.asarray(images, np.float64).mean(axis=(1, 2))


def _drop(images, name, severity, seed=None):
    return np.asarray(images)[:1]


SHAPES = re.escape("; got uint8 (1, 32, 32, 3) for input uint8 (3, 32, 32, 3).") + "$"


def test_a_transform_that_drops_images_is_named_with_both_shapes():
    start = "^transform must return a uint8 array with the shape of its input, one image per input"
    with pytest.raises(ValueError, match=start + SHAPES):
        msd.transform_features(_features, IMAGES, lambda im, rng: im[:1], np.random.default_rng(0), 2)


@pytest.mark.parametrize("chunk", [None, 1])  # in this process, and as the worker tasks run it
def test_a_corrupt_fn_that_drops_images_is_named_corrupt_fn(chunk):
    start = "^corrupt_fn must return a uint8 array with the shape of its input, one image per input"
    with pytest.raises(ValueError, match=start + SHAPES):
        msd.corruption_features(
            _features, IMAGES, ["gaussian_noise"], [1], 2, 0, corrupt_fn=_drop, progress=False, chunk=chunk
        )
    with pytest.raises(ValueError, match=start + SHAPES):
        msd.mixture_transform(["fog"], [1.0], corrupt_fn=_drop)(IMAGES, np.random.default_rng(0))


CALLABLE = r" must be a function, callable as "


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: msd.transform_features(_features, IMAGES, 5, np.random.default_rng(0), 2), "transform"),
        (lambda: msd.transform_features(5, IMAGES, lambda im, rng: im, np.random.default_rng(0), 2), "feature_fn"),
        (lambda: msd.corruption_transform("fog", 1, corrupt_fn=5), "corrupt_fn"),
        (lambda: msd.mixture_transform(["fog"], [1.0], corrupt_fn="x"), "corrupt_fn"),
        (lambda: msd.corruption_features(_features, IMAGES, ["fog"], [1], 2, 0, corrupt_fn=5), "corrupt_fn"),
        (lambda: msd.corruption_features(5, IMAGES, ["fog"], [1], 2, 0, progress=False), "feature_fn"),
    ],
    ids=["transform", "feature_fn", "corruption_transform", "mixture_transform", "corruption_features", "features"],
)
def test_a_function_argument_that_is_not_callable_is_refused_when_given(call, name):
    with pytest.raises(TypeError, match=f"^{name}{CALLABLE}{name}\\("):
        call()


def test_callables_that_write_into_their_input_never_reach_the_callers_images():
    """Probe H #4: a feature function or transform writing into its input changed the caller's images, and the
    answer (the clean features were taken after the feature function had clipped the images the corruptions then
    used)."""
    images = np.random.default_rng(0).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)

    def in_place(z):
        np.clip(z, 10, 245, out=z)
        z[:, :4] = 0
        return np.asarray(z, np.float64).mean(axis=(1, 2))

    def copying(z):
        z = np.clip(np.array(z), 10, 245)
        z[:, :4] = 0
        return z.astype(np.float64).mean(axis=(1, 2))

    kept = images.copy()
    a = msd.corruption_features(copying, images, ["gaussian_noise"], [3], n_samples=4, seed=0, progress=False)
    b = msd.corruption_features(in_place, images, ["gaussian_noise"], [3], n_samples=4, seed=0, progress=False)
    np.testing.assert_array_equal(images, kept)
    np.testing.assert_array_equal(a, b)

    def blackout(im, rng):
        im[:, :8] = 0
        return im

    msd.transform_features(
        lambda z: np.asarray(z, float).mean(axis=(1, 2)), images, blackout, np.random.default_rng(0), 2
    )
    np.testing.assert_array_equal(images, kept)
