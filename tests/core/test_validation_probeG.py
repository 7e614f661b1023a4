"""Probe G #7 and the three refusals left open by probe E: counts beyond int64, non-finite numbers, a scheme given as
bytes and a settings name that is a path."""

import numpy as np
import pytest

from robeval import core, mscr, msd, transforms
from robeval.core.validation import check_eps, check_positive

H = 10**20
IMAGES = np.zeros((3, 32, 32, 3), np.uint8)


def features(z):
    return np.asarray(z, np.float64).mean(axis=(1, 2))


@pytest.mark.parametrize(
    ("value", "integer", "strict", "message"),
    [
        (H, True, True, r"^n must be an integer in 1 \.\. 2\*\*63 - 1 \(int64\), got 100000000000000000000\.$"),
        (2**63, True, False, r"^n must be an integer in 0 \.\. 2\*\*63 - 1 \(int64\), got 9223372036854775808\.$"),
        (10**400, False, True, r"^n must be a number in 1 \.\. 2\*\*63 - 1 \(int64\), got 1000"),
        (-H, True, True, r"^n must be > 0, got -100000000000000000000\.$"),
        (float("inf"), False, True, r"^n must be a finite number > 0, got inf\.$"),
        (float("nan"), False, False, r"^n must be a finite number >= 0, got nan\.$"),
    ],
)
def test_check_positive_names_values_numpy_cannot_hold(value, integer, strict, message):
    with pytest.raises(ValueError, match=message):
        check_positive(value, "n", integer=integer, strict=strict)


def test_the_largest_int64_and_numpy_integers_still_pass():
    assert check_positive(2**63 - 1, "n", integer=True) == 2**63 - 1
    assert check_positive(np.int64(5), "n", integer=True) == 5
    assert check_positive(0, "n", integer=True, strict=False) == 0
    assert check_eps(10**20) == 1e20


def test_check_eps_of_an_int_beyond_float_range():
    with pytest.raises(ValueError, match=r"^eps must be finite and >= 0 \(a noise radius\), got inf\.$"):
        check_eps(10**400)


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("chunk", lambda: msd.corruption_features(features, IMAGES, ["fog"], [1], 2, 0, progress=False, chunk=H)),
        ("batch_size", lambda: msd.transform_features(features, IMAGES, lambda im, r: im, 0, 2, batch_size=H)),
        ("k", lambda: mscr.evaluate_levels(lambda z: z[:, 0] > 0, np.eye(2), [0, 1], [0.1], H, np.inf, seed=0)),
        ("seeds", lambda: mscr.make_cells([H], [0.0])),
        ("width", lambda: transforms.apply_scheme(IMAGES, ["autocontrast"], 0, width=H)),
        ("n_samples", lambda: msd.transform_features(features, IMAGES, lambda im, r: im, 0, H)),
    ],
)
def test_public_counts_beyond_int64_are_named(name, call):
    """Probe G #7: every count checked by check_positive got numpy's "ufunc 'isfinite' not supported"."""
    with pytest.raises(ValueError, match=rf"^{name} must be an integer in [01] \.\. 2\*\*63 - 1"):
        call()


def test_transform_features_refuses_an_array_beyond_the_allocation_cap():
    """Probe G #7: n_samples = 2**40 asked numpy for 24 TiB (MemoryError)."""
    with pytest.raises(
        ValueError, match=r"^this call would allocate 2.46e\+04 GiB \(n_samples x D = 1099511627776 x 3"
    ):
        msd.transform_features(features, IMAGES, lambda im, r: im, 0, 2**40)


def test_apply_scheme_alpha_inf_is_called_not_finite():
    """Probe E: alpha=inf was refused as 'alpha must be > 0, got inf'."""
    with pytest.raises(ValueError, match=r"^alpha must be a finite number > 0, got inf\.$"):
        transforms.apply_scheme(IMAGES, ["autocontrast"], 0, alpha=np.inf)


def test_parse_scheme_refuses_bytes():
    """Probe E: b'autocontrast' was read byte by byte and refused as the unknown ops [97, 99, ...]."""
    from robeval.transforms.augmentations import parse_scheme

    with pytest.raises(TypeError, match=r"^scheme must be op names or a '\+'-joined string, got bytes b'autoc"):
        parse_scheme(b"autocontrast")
    assert parse_scheme("autocontrast+equalize") == {"autocontrast", "equalize"}


def test_resolve_reads_only_the_settings_of_a_known_experiment(tmp_path):
    """Probe E: core.resolve('/some/dir/name') read /some/dir/name.toml (a TOML file of the caller's choosing)."""
    (tmp_path / "mine.toml").write_text("[smoke]\nx = 1\n")
    for name in (str(tmp_path / "mine"), "../core/settings/mscr_2d", "mscr_2d/../mscr_2d"):
        with pytest.raises(ValueError, match=rf"^Unknown experiment {name!r}; known experiments: "):
            core.resolve(name, "smoke")
    with pytest.raises(TypeError, match=r"^experiment must be a name such as 'mscr_2d', got PosixPath"):
        core.resolve(tmp_path / "mine", "smoke")
    assert core.resolve("mscr_2d", "smoke").experiment == "mscr_2d"
