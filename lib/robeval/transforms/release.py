"""CIFAR-10-C / CIFAR-10-C-bar files in the release layout: the ``robeval corrupt`` command and a reader of the
released data.

Release layout (Hendrycks & Dietterich's CIFAR-10-C, and Mintun et al.'s CIFAR-10-C-bar): one folder with
``<corruption>.npy``, uint8 (S·N, 32, 32, 3), the severities stacked (rows k·N … (k+1)·N − 1 are the k-th
severity, S = 5 in the releases), and ``labels.npy``, uint8 (S·N,), the N labels repeated S times.

* :func:`corrupt_command` — what ``python -m robeval corrupt`` (also ``robeval corrupt``) runs: writes the
  files for a set of 32x32 images with :func:`robeval.transforms.corruptions.generate_dataset`, resuming
  per corruption.
* :func:`load_released` — reads one corruption of the *released* data (downloaded by the user), validating
  the layout.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from robeval.core.io import check_npy_size
from robeval.core.validation import check_path
from robeval.transforms import corruptions as C

__all__ = [
    "RELEASED_C_EXTRA",
    "corrupt_command",
    "load_images",
    "load_released",
    "parse_names",
    "parse_severities",
    "to_nhwc",
]

# Files of the CIFAR-10-C release beyond the 15 benchmark corruptions (its "extra" held-out corruptions).
RELEASED_C_EXTRA: tuple[str, ...] = ("speckle_noise", "gaussian_blur", "spatter", "saturate")

GROUPS: dict[str, tuple[str, ...]] = {
    "C": C.C_CORRUPTIONS,
    "C-bar": C.CBAR_CORRUPTIONS,
    "all": C.C_CORRUPTIONS + C.CBAR_CORRUPTIONS,
}


def parse_names(text: str) -> list[str]:
    """Comma list of corruption names and groups (``C``, ``C-bar``, ``all``) → names, in order, without repeats.

    Accepted names: the 15 CIFAR-10-C and 10 CIFAR-10-C-bar corruptions and the variants
    (``glass_blur_true_swap``); the other C-bar construction candidates have no published severities.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("--names is empty; pass a comma list of corruptions, or C, C-bar or all.")
    names: list[str] = []
    tokens = [t.strip() for t in text.split(",")]
    if "" in tokens:  # 'contrast,,fog': a name left out by mistake, not nothing asked for
        raise ValueError(f"--names {text!r:.80} has an empty name between commas; name each corruption once.")
    twice = [t for i, t in enumerate(tokens) if t.lower() in [u.lower() for u in tokens[:i]]]
    if twice:  # a name given twice is a typo for another one more often than a wish for one file
        raise ValueError(f"--names lists {twice[0]!r} twice; name each corruption (or group) once.")
    for token in tokens:
        group = next((g for g in GROUPS if g.lower() == token.lower()), None)
        if group is not None:
            names.extend(GROUPS[group])
            continue
        if token not in GROUPS["all"] + C.VARIANTS:
            raise ValueError(
                f"unknown corruption {token!r} in --names; use C, C-bar, all, or names among "
                f"{', '.join(GROUPS['all'] + C.VARIANTS)}."
            )
        names.append(token)
    if not names:
        raise ValueError("--names lists no corruption; pass e.g. --names C or --names gaussian_noise,ripple.")
    return list(dict.fromkeys(names))


def parse_severities(text) -> tuple[int, ...]:
    """``"1,3,5"`` → (1, 3, 5): distinct integers in 1..5, kept in the given order (the file stacks them so)."""
    tokens = [t.strip() for t in str(text).split(",") if t.strip()]
    if not tokens:
        raise ValueError("--severities is empty; pass e.g. 1,2,3,4,5.")
    try:
        values = tuple(int(t) for t in tokens)
    except ValueError:
        raise ValueError(f"--severities must be a comma list of integers in 1..5 (e.g. 1,3,5), got {text!r}.") from None
    if any(not 1 <= v <= 5 for v in values):
        raise ValueError(f"--severities must lie in 1..5, got {text!r}.")
    if len(set(values)) != len(values):
        raise ValueError(f"--severities must not repeat a severity, got {text!r}.")
    return values


def _check_npy_magic(path: Path, what: str) -> None:
    """ValueError naming ``what`` when ``path`` does not start as a ``.npy`` (or ``.npz``) file does: ``np.load``
    would take it for a pickle and suggest unpickling it."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    if head != b"\x93NUMPY" and not head.startswith(b"PK\x03\x04"):
        raise ValueError(
            f"{what} is not a readable .npy array: it does not begin with numpy's .npy header (it begins {head!r}); "
            "pass a .npy file written by numpy.save."
        )


def _load_npy(path, what: str) -> np.ndarray:
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder; pass a .npy file written by numpy.save.")
    if path.exists() and not path.is_file():
        raise ValueError(f"{what} {str(path)!r} is not a regular file; pass a .npy file written by numpy.save.")
    if not path.is_file():
        raise ValueError(f"{what} file {str(path)!r} does not exist (pass a .npy file written by numpy.save).")
    check_npy_size(path, f"{what} file {str(path)!r}")  # before np.load allocates what a damaged header claims
    _check_npy_magic(path, f"{what} file {str(path)!r}")
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        reason = " ".join(str(exc).split())
        raise ValueError(f"{what} file {str(path)!r} is not a readable .npy array ({reason}).") from None
    if not isinstance(arr, np.ndarray):  # an .npz archive of several arrays
        arr.close()
        raise ValueError(
            f"{what} file {str(path)!r} is an .npz archive of several arrays; pass one array as a .npy file "
            "(numpy.save(path, archive[key]))."
        )
    return arr


def to_nhwc(x: np.ndarray, layout: str = "auto", echo=None) -> np.ndarray:
    """Images in NHWC order, (N, H, W, 3), from NHWC or NCHW (N, 3, H, W) input.

    ``layout``: ``"NHWC"``, ``"NCHW"`` (transposed), or ``"auto"``: the axis holding 3 channels decides (said
    through ``echo`` when it transposes); ambiguous shapes raise ValueError asking for an explicit layout.
    """
    if layout not in ("auto", "NHWC", "NCHW"):
        raise ValueError(f"layout must be 'auto', 'NHWC' or 'NCHW', got {layout!r}.")
    if not isinstance(x, np.ndarray) or x.ndim != 4:
        shape = getattr(x, "shape", None)
        raise ValueError(f"images must be a 4-d array (N, 32, 32, 3) or (N, 3, 32, 32), got shape {shape}.")
    if layout == "auto":
        last, second = x.shape[3] == 3, x.shape[1] == 3
        if last == second:
            raise ValueError(
                f"cannot tell the layout of images of shape {x.shape}; pass --layout NHWC or --layout NCHW."
            )
        layout = "NHWC" if last else "NCHW"
        if layout == "NCHW" and echo is not None:
            echo(f"images have NCHW layout {x.shape}; transposed to NHWC (pass --layout to state it).")
    axis = 1 if layout == "NCHW" else 3
    if x.shape[axis] != 3:
        other = "NHWC" if layout == "NCHW" else "NCHW"
        raise ValueError(
            f"images of shape {x.shape} have {x.shape[axis]} channels on axis {axis}, not 3, so they are not "
            f"{layout}; pass --layout {other} (or auto)."
        )
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if layout == "NCHW" else x


def load_images(images=None, labels=None, *, subset: bool = False, layout: str = "auto", echo=None):
    """The images (N, 32, 32, 3) uint8 and labels (N,) to corrupt.

    ``images`` and ``labels``: paths of .npy files, given together, images in ``layout`` (``"NHWC"``,
    ``"NCHW"`` as ``robeval.core.data`` returns by default, or ``"auto"``: detected, see :func:`to_nhwc`);
    otherwise the CIFAR-10 test set (``robeval.core.data.load_cifar10``), or its 1000-image subset with
    ``subset=True``.
    """
    from robeval.transforms.corruptions.common import check_images

    if (images is None) != (labels is None):
        raise ValueError("pass --images and --labels together (both .npy files), or neither for CIFAR-10.")
    if images is not None:
        if subset:
            raise ValueError("--subset selects the CIFAR-10 subset; it cannot be combined with --images.")
        x = to_nhwc(_load_npy(images, "--images"), layout, echo)
        y = _load_npy(labels, "--labels")
    else:
        from robeval.core import data

        _, _, x, y = data.load_cifar10_subset(layout="NHWC") if subset else data.load_cifar10(layout="NHWC")
    x = check_images(x)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(x):
        raise ValueError(f"labels must have shape ({len(x)},), one per image, got {y.shape}.")
    if y.dtype.kind not in "iu" or y.min() < 0 or y.max() > 255:
        raise ValueError("labels must be integers in 0..255 (the release stores them as uint8).")
    return x, y


def corrupt_command(
    *,
    out,
    images=None,
    labels=None,
    subset: bool = False,
    names: str = "all",
    severities: str = "1,2,3,4,5",
    seed: int = 0,
    progress: bool = True,
    chunk_size: int = 1000,
    layout: str = "auto",
    overwrite: bool = False,
    echo=print,
) -> int:
    """``robeval corrupt``: write ``<corruption>.npy`` (severities stacked) and ``labels.npy`` into ``out``.

    A corruption whose file is already there, recorded for the same images, seed and severities and intact
    (sha256), is skipped; the others are (re)generated and written atomically, so an interrupted run
    resumes. ``corruptions.json`` records the sha256 of the input images and labels and of every output; a
    folder of other inputs is refused unless ``overwrite`` (which empties it of them), and a FIFO, socket, device or
    folder where an output file goes (``labels.npy``, ``<corruption>.npy``) always, by name; a killed run's
    temporary files are removed first (see :func:`robeval.transforms.corruptions.generate_dataset`).
    ``layout`` of ``images``: see :func:`to_nhwc`. Bad input raises ValueError (or FileNotFoundError for missing registered data) with a
    one-line message; the command line turns it into exit code 2. Returns 0.
    """
    if out is None or not str(out).strip():
        raise ValueError("--out is required: the folder to write the .npy files into.")
    name_list = parse_names(names)
    sev = parse_severities(severities)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {seed!r}.")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} exists and is not a folder.")
    for option, given in (("--images", images), ("--labels", labels)):
        if isinstance(given, (str, os.PathLike)) and Path(given).is_file():
            # through links: an --out that links to the inputs' folder, or an input that links into --out
            if Path(os.path.realpath(out)) in Path(os.path.realpath(given)).parents:
                raise ValueError(
                    f"{option} {str(given)!r} lies inside --out {str(out)!r}, whose files robeval writes (and with "
                    "--overwrite deletes); move the input out of that folder or write to another one."
                )
    x, y = load_images(images, labels, subset=subset, layout=layout, echo=echo)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create --out folder {str(out)!r} ({exc.strerror}).") from None
    if not os.access(out, os.W_OK):
        raise ValueError(f"--out folder {str(out)!r} is not writable.")
    C.check_folder(out, C.folder_inputs(x, y, sev), overwrite)  # before reporting anything as skipped
    done = [n for n in name_list if C.is_generated(out, n, x, seed, sev)]
    todo = [n for n in name_list if n not in done]
    for n in done:
        echo(f"skipped (already written and verified): {out / (n + '.npy')}")
    if todo:  # every name verified: nothing to write (generate_dataset refuses an empty list of names)
        C.generate_dataset(
            x, y, todo, out, seed, severities=sev, chunk_size=chunk_size, progress=progress, overwrite=overwrite
        )
    for n in todo:
        echo(f"wrote {out / (n + '.npy')}  ({len(sev) * len(x)}, 32, 32, 3) uint8, severities {list(sev)}")
    echo(f"labels: {out / 'labels.npy'}  ({len(sev) * len(x)},) uint8; manifest with sha256: {out / C.MANIFEST}")
    return 0


def load_released(directory, name: str, *, mmap: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One corruption of the released CIFAR-10-C or CIFAR-10-C-bar, downloaded by the user.

    Parameters
    ----------
    directory : path of the extracted release folder (e.g. ``CIFAR-10-C/``), holding ``<name>.npy`` and
        ``labels.npy``
    name : a CIFAR-10-C corruption (the 15, or the release's extra ``speckle_noise``, ``gaussian_blur``,
        ``spatter``, ``saturate``) or a CIFAR-10-C-bar one
    mmap : memory-map the images instead of reading them (150 MB per corruption); True or False

    Returns
    -------
    images uint8 (5, N, 32, 32, 3) by severity, labels (N,). Raises ValueError when the files do not have the
    release layout (uint8 (5N, 32, 32, 3) images, (5N,) labels repeating the same N labels per severity).
    """
    from robeval.core.validation import check_bool

    check_bool(mmap, "mmap")
    known = C.C_CORRUPTIONS + RELEASED_C_EXTRA + C.CBAR_CORRUPTIONS
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"name must be a released corruption, got {name!r}; the releases hold {', '.join(known)}.")
    directory = check_path(directory, "directory")
    path, label_path = directory / f"{name}.npy", directory / "labels.npy"
    for p in (path, label_path):
        if p.exists() and not p.is_file():  # a FIFO or a folder of that name: said as what it is, never opened
            from robeval.core.io import check_regular_file

            check_regular_file(p, "", "pass the folder holding the release's .npy files")
        if not p.is_file():
            raise FileNotFoundError(
                f"{p} does not exist. Download and extract the release (CIFAR-10-C: "
                "https://zenodo.org/records/2535967, CIFAR-10-C.tar; CIFAR-10-C-bar: see "
                "github.com/facebookresearch/augmentation-corruption) and pass the folder holding the .npy files."
            )
    for p in (path, label_path):  # before np.load allocates what a damaged header claims
        check_npy_size(p, str(p))
        _check_npy_magic(p, str(p))
    try:
        x = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        y = np.load(label_path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path} or {label_path} is not a readable .npy array ({exc}).") from None
    if x.dtype != np.uint8 or x.ndim != 4 or x.shape[1:] != (32, 32, 3) or len(x) == 0 or len(x) % 5:
        raise ValueError(
            f"{path} has shape {x.shape} and dtype {x.dtype}; the release layout is uint8 (5·N, 32, 32, 3), "
            "the five severities stacked."
        )
    n = len(x) // 5
    if y.ndim != 1 or len(y) != len(x) or y.dtype.kind not in "iu":
        raise ValueError(f"{label_path} has shape {y.shape} and dtype {y.dtype}; expected integer labels ({len(x)},).")
    if not np.array_equal(y.reshape(5, n), np.broadcast_to(y[:n], (5, n))):
        raise ValueError(f"{label_path} does not repeat the same {n} labels for each of the five severities.")
    return x.reshape((5, n) + x.shape[1:]), np.asarray(y[:n])
