"""Findings of probe I (issue 62) in robeval.transforms: #6 (a zero divisor in ``corrupt_with_param``)."""

from __future__ import annotations

import re

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


def _huge_npy(path):
    """A 228-byte .npy whose header claims (10**9, 32, 32, 3) uint8 values (2.79 TiB): a damaged download."""
    import io

    import numpy.lib.format as fmt

    buf = io.BytesIO()
    fmt.write_array_header_1_0(buf, {"descr": "|u1", "fortran_order": False, "shape": (10**9, 32, 32, 3)})
    path.write_bytes(buf.getvalue() + b"\0" * 100)
    return path


def test_an_npy_header_claiming_more_than_the_file_holds_is_refused_before_np_load(tmp_path, capsys):
    """#5: ``robeval corrupt``, ``load_released`` and ``load_dataset`` ended in a MemoryError traceback (numpy tried
    to allocate what the header claims)."""
    from robeval.__main__ import main

    huge = _huge_npy(tmp_path / "huge.npy")
    np.save(tmp_path / "im.npy", IM)
    claim = (
        r"holds 228 bytes but its header claims 2\.79 TiB \(\(1000000000, 32, 32, 3\) values of uint8\): a truncated"
    )
    for flag in ("--labels", "--images"):
        args = {"--images": tmp_path / "im.npy", "--labels": tmp_path / "lab.npy", flag: huge}
        np.save(tmp_path / "lab.npy", np.array([0, 1]))
        argv = ["corrupt", "--images", str(args["--images"]), "--labels", str(args["--labels"])]
        argv += ["--out", str(tmp_path / "out"), "--names", "gaussian_noise", "--severities", "1", "--no-progress"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and re.search(rf"{flag} file '{re.escape(str(huge))}' {claim}", err), err
    rel = tmp_path / "rel"
    rel.mkdir()
    (rel / "fog.npy").write_bytes(huge.read_bytes())
    np.save(rel / "labels.npy", np.zeros(2, np.uint8))
    for mmap in (False, True):
        with pytest.raises(ValueError, match=rf"^{re.escape(str(rel / 'fog.npy'))} {claim}"):
            T.load_released(rel, "fog", mmap=mmap)
    gd = tmp_path / "gd"
    T.generate_dataset(IM, np.array([0, 1]), ["gaussian_noise"], gd, severities=(1,), progress=False)
    x, y = T.load_dataset(gd, "gaussian_noise")
    assert x.shape == (1, 2, 32, 32, 3) and y.tolist() == [0, 1]
    (gd / "labels.npy").write_bytes(huge.read_bytes())
    with pytest.raises(ValueError, match=rf"^{re.escape(str(gd / 'labels.npy'))} {claim}"):
        T.load_dataset(gd, "gaussian_noise")
