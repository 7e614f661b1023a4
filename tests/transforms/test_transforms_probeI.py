"""Findings of probe I (issue 62) in robeval.transforms: #6 (a zero divisor in ``corrupt_with_param``)."""

from __future__ import annotations

import numpy as np
import pytest

from robeval import transforms as T

IM = np.random.default_rng(0).integers(0, 256, (2, 32, 32, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    ("name", "param", "message"),
    [
        ("motion_blur", (6, 0), r"^motion_blur's sigma \(component 1 of param \(6\.0, 0\.0\)\) must be > 0, got 0\."),
        ("motion_blur", (6, 1e-300), r"^motion_blur's sigma \(component 1 of param .*\) must be >= 1e-150"),
        (
            "snow",
            (0.15, 0.3, 1.75, 0.55, 10, 0, 0.9),
            r"^snow's motion-blur sigma \(component 5 of param \(0\.15, 0\.3, 1\.75, 0\.55, 10\.0, 0\.0, 0\.9\)\) "
            r"must be > 0, got 0\.",
        ),
        ("snow", (0.15, 0.3, 0.5, 0.55, 10, 4, 0.9), r"^snow's zoom factor \(component 2 of param .*\) must be >= 1"),
        ("zoom_blur", (0, 1.16, 0.01), r"^zoom_blur's first zoom factor \(component 0 of param .*\) must be >= 1 "),
        ("zoom_blur", (1, 1.16, 0), r"^zoom_blur's zoom step \(component 2 of param .*\) must be > 0, got 0\."),
        ("fog", (0.75, 0), r"^fog's decay \(component 1 of param \(0\.75, 0\.0\)\) must be > 0, got 0\."),
        ("defocus_blur", (0.5, 0), r"^defocus_blur's alias blur \(component 1 of param \(0\.5, 0\.0\)\) must be > 0"),
        ("fog", (0.75, 1e-310), r"^param \(0\.75, 1e-310\) of fog cannot be applied to 32x32 images \(FloatingPoint"),
    ],
)
def test_a_zero_divisor_is_refused_naming_its_component(name, param, message):
    """#6: ``motion_blur (6, 0)`` and ``snow (..., 0, 0.9)`` returned black images (a NaN kernel cast to uint8),
    ``zoom_blur (0, 1.16, 0.01)`` an OverflowError."""
    with pytest.raises(ValueError, match=message):
        T.corrupt_with_param(IM, name, param, seed=0)


def test_published_parameters_and_a_black_image_without_fog_are_unchanged():
    black = np.zeros((1, 32, 32, 3), np.uint8)
    assert T.corrupt_with_param(black, "fog", (0.0, 2.0), seed=0).max() == 0
    for name in ("motion_blur", "snow", "zoom_blur", "fog", "defocus_blur"):
        for sev in range(1, 6):
            out = T.corrupt(IM, name, sev, seed=0)
            assert out.shape == IM.shape and out.max() > 0
