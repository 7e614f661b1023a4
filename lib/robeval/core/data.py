"""Offline-first data layer: every external file is known by relative path, sha256 and canonical URL.

Resolution order for a registered file ``rel`` (e.g. ``mscr_2d/B_sep.npz``):

1. ``$ROBEVAL_DATA_DIR/rel`` — a local mirror (CI points it at ``../shared/data``);
2. ``<cache>/rel`` — the download cache (``$ROBEVAL_CACHE_DIR`` or ``data/cache``);
3. a download from the canonical URL into the cache (pooch), unless ``ROBEVAL_OFFLINE=1``.

Every file is sha256-verified before it is parsed. A missing file raises :class:`DataFileMissing`, a
corrupt one :class:`DataChecksumError`; both say where we looked and how to fix it.

The CIFAR-10 subset is *derived*: a user without the mirror gets it by downloading the official
CIFAR-10 python release and taking the same indices (first 1000 images of each training batch, first
1000 test images); the result is verified by a content hash of the arrays.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from robeval.core.images import LAYOUTS, in_layout
from robeval.core.paths import cache_dir, find_root
from robeval.core.validation import check_choice

if TYPE_CHECKING:
    import pandas

CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


# Content hash of the subset arrays (see _array_digest); identical whether mirrored or derived.
CIFAR10_SUBSET_DIGEST = "a871150c4f18c3b5e88eb4d26aecd9c8cc6ce8cc8e9d595ca8b03a62d0c4ff19"


SUBSET_TRAIN_INDICES = np.concatenate([np.arange(b * 10000, b * 10000 + 1000) for b in range(5)])


SUBSET_TEST_INDICES = np.arange(1000)


MSCR_2D = ("A", "B", "C")


class DataFileMissing(FileNotFoundError):
    """A registered data file is neither in the mirror nor in the cache and could not be downloaded."""


class DataChecksumError(ValueError):
    """A data file exists but its sha256 does not match the registry (truncated or altered)."""


@dataclass(frozen=True)
class Entry:
    path: str
    sha256: str
    url: str


#: registered files the project's offline mirror (``ROBEVAL_DATA_DIR``) does not hold: fetched (checksummed) where
#: downloads are allowed; offline, the rows that read them say so (issue 60, item 8)
BEYOND_MIRROR = frozenset({"mscr_reference/cifar10_traintrain_separation.csv"})


@lru_cache(maxsize=1)
def registry() -> dict[str, Entry]:
    """All registered files, keyed by relative path."""
    text = (resources.files("robeval.core") / "data_registry.tsv").read_text(encoding="utf-8")
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        path, sha, url = line.split("\t")
        out[path] = Entry(path, sha, url)
    return out


def mirror_dir() -> Path | None:
    env = os.environ.get("ROBEVAL_DATA_DIR")
    return Path(env).expanduser() if env else None


def sha256_of(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """The sha256 (hex) of the file ``path``, read ``chunk`` bytes at a time. A FIFO, socket, device or folder
    raises :class:`robeval.core.io.NotRegularFileError` (a ValueError) naming it, before it is opened (a FIFO would
    block for ever); ``chunk`` must be a whole number >= 1 (0 would hash nothing: the sha256 of the empty file)."""
    from robeval.core.io import check_regular_file

    if isinstance(chunk, (bool, np.bool_)) or not isinstance(chunk, (int, np.integer)):
        raise TypeError(f"chunk must be a whole number of bytes >= 1, got {type(chunk).__name__} {chunk!r:.40}.")
    if chunk < 1:
        raise ValueError(f"chunk must be a whole number of bytes >= 1, got {chunk!r}.")
    check_regular_file(path, "file", "pass the data file itself")
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


_VERIFIED: dict[tuple[str, int, int], str] = {}


def verify(path: Path, entry: Entry) -> Path:
    """Check ``path`` against the registry's sha256 (memoised per path, size and mtime)."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    digest = _VERIFIED.get(key) or sha256_of(path)
    if digest != entry.sha256:
        raise DataChecksumError(
            f"Checksum mismatch for data file {entry.path!r} at {path}:\n"
            f"  expected sha256 {entry.sha256}\n  found           {digest}\n"
            f"The file is truncated or altered. {_how_to_get(entry)}"
        )
    _VERIFIED[key] = digest
    return path


def _how_to_get(entry: Entry) -> str:
    """How a user obtains ``entry`` again, in words."""
    if entry.url.startswith("derived:"):
        return (
            f"Delete it and rerun: without a mirror copy it is rebuilt from the official CIFAR-10 release by "
            f"load_cifar10_subset() (needs downloads, or {entry.path!r} in the mirror named by ROBEVAL_DATA_DIR)."
        )
    return f"Delete it and rerun to download it again from {entry.url}, or fix your mirror (ROBEVAL_DATA_DIR)."


def _candidates(rel: str) -> list[Path]:
    out = []
    if (m := mirror_dir()) is not None:
        out.append(m / rel)
    out.append(cache_dir() / rel)
    # a read-only checkout caches in the user cache, but files its data/cache holds already are still read
    root = find_root()
    if root is not None and not os.environ.get("ROBEVAL_CACHE_DIR") and (root / "data" / "cache") != cache_dir():
        out.append(root / "data" / "cache" / rel)
    return out


def _offline() -> bool:
    """True when ``$ROBEVAL_OFFLINE`` is ``1``/``true``/``yes`` (downloads disabled), False when it is ``0``/``false``/
    ``no`` or unset. Any other value raises ValueError, as ``ROBEVAL_DRY_RUN`` does: a typo (``on``) must not allow
    downloads in silence."""
    value = os.environ.get("ROBEVAL_OFFLINE", "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise ValueError(
        f"ROBEVAL_OFFLINE={value!r} is not understood; set it to 1 (no downloads) or 0 / unset it (downloads allowed)."
    )


def _missing(rel: str, looked: list[Path], why: str = "") -> DataFileMissing:
    entry = registry().get(rel)
    src = entry.url if entry else "?"
    where = "\n".join(f"  - {p}" for p in looked)
    return DataFileMissing(
        f"Data file {rel!r} was not found. Looked in:\n{where}\n"
        f"{why}How to get it: set ROBEVAL_DATA_DIR to a mirror that contains {rel!r} "
        f"(e.g. ROBEVAL_DATA_DIR=../shared/data), or allow downloads (unset ROBEVAL_OFFLINE) so it is "
        f"fetched from {src}, or download it yourself into {cache_dir() / rel}."
    )


def fetch(rel: str) -> Path:
    """Local, checksum-verified path of registered file ``rel`` (downloading it if needed and allowed)."""
    entries = registry()
    if rel not in entries:
        raise ValueError(f"{rel!r} is not a registered data file; known files: {', '.join(sorted(entries))}.")
    entry = entries[rel]
    looked = _candidates(rel)
    for path in looked:
        if path.is_file():
            return verify(path, entry)
    if entry.url.startswith("derived:"):
        raise _missing(
            rel,
            looked,
            "It is derived from the CIFAR-10 release: call load_cifar10_subset(), "
            "which builds it when downloads are allowed.\n",
        )
    if _offline():
        raise _missing(rel, looked, "Downloads are disabled (ROBEVAL_OFFLINE=1).\n")
    target = cache_dir() / rel
    try:
        import pooch

        pooch.retrieve(
            entry.url, known_hash=f"sha256:{entry.sha256}", fname=target.name, path=target.parent, progressbar=True
        )
    except Exception as exc:  # network errors, HTTP errors, hash mismatch
        raise _missing(rel, looked, f"Download failed: {exc}\n") from exc
    return verify(target, entry)


def status() -> pandas.DataFrame:
    """One row per registered file: where it was found, size in bytes, whether its checksum verifies, and
    for a file that does not verify, what is wrong and how to fix it (column ``problem``)."""
    import pandas as pd

    rows = []
    mirror = mirror_dir()
    bad_mirror = mirror is not None and not mirror.is_dir()
    for rel, entry in registry().items():
        found, ok, size, problem = None, False, None, None
        for path in _candidates(rel):
            if path.is_file():
                found, size = path, path.stat().st_size
                try:
                    verify(path, entry)
                    ok = True
                except DataChecksumError:
                    problem = f"checksum mismatch (truncated or altered): delete {path} and rerun to fetch it again"
                break
        blocked = [p for p in _candidates(rel) if found is None and os.path.lexists(p) and not p.is_file()]
        if blocked:  # something is at the file's path, but not a file robeval can read
            what = "a broken link" if not blocked[0].exists() else "a folder" if blocked[0].is_dir() else "not a file"
            problem = f"not a regular file: {blocked[0]} is {what}; remove it (or put the file there) and rerun"
        elif found is None and bad_mirror:
            problem = (
                f"missing: ROBEVAL_DATA_DIR={mirror} is not a folder; point it at a mirror folder (../shared/data)"
            )
        elif found is None:
            if entry.url.startswith("derived:"):
                problem = "missing: built from the CIFAR-10 release by load_cifar10_subset() (needs downloads)"
            else:
                problem = "missing: set ROBEVAL_DATA_DIR to a mirror, or allow downloads (unset ROBEVAL_OFFLINE)"
        rows.append(
            {
                "file": rel,
                "found_at": str(found) if found else None,
                "bytes": size,
                "verified": ok,
                "problem": problem,
                "source": entry.url,
            }
        )
    return pd.DataFrame(rows)


def load_mscr_2d(name: str = "B") -> tuple[np.ndarray, np.ndarray]:
    """The MSCR paper's binary 2D datasets.

    Returns ``X`` float64 (n, 2) with values in [0, 1] and ``y`` int64 (n,) in {0, 1}.
    ``B`` (4674 points) is the dataset of the paper's Tables 1 and 2.
    """
    check_choice(name, "2D dataset", MSCR_2D)
    with np.load(fetch(f"mscr_2d/{name}_sep.npz"), allow_pickle=False) as d:
        return d["x"].astype(np.float64), d["y"].astype(np.int64)


def _array_digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in ("x_train", "y_train", "x_test", "y_test"):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


TEST_SHA256_ENV = "ROBEVAL_TEST_CIFAR10_SHA256"


def _release_sha256() -> str:
    """The sha256 the CIFAR-10 tarball must have: the release's, or — for a dry run's test only — the stand-in's.

    ``$ROBEVAL_TEST_CIFAR10_SHA256`` replaces :data:`CIFAR10_SHA256` only together with ``ROBEVAL_DRY_RUN=1``
    (a test-built stand-in in the release's format, tests/notebooks/test_dry_run.py); set without it, it is an
    error, so no real run can ever read a tarball other than the release."""
    override = os.environ.get(TEST_SHA256_ENV, "").strip().lower()
    if not override:
        return CIFAR10_SHA256
    from robeval.core.profiles import DRY_RUN_ENV, dry_run

    if not dry_run():
        raise ValueError(
            f"{TEST_SHA256_ENV} is set but {DRY_RUN_ENV} is not: the CIFAR-10 checksum may be overridden only for a "
            f"dry run's test stand-in. Unset {TEST_SHA256_ENV} (or set {DRY_RUN_ENV}=1 for a dry run)."
        )
    if len(override) != 64 or any(c not in "0123456789abcdef" for c in override):
        raise ValueError(f"{TEST_SHA256_ENV}={override!r} is not a sha256 (64 hex digits); fix or unset it.")
    warnings.warn(
        f"DRY RUN: the CIFAR-10 release checksum is overridden by {TEST_SHA256_ENV}={override}; the tarball read is "
        "a test stand-in, NOT the official release. Never use this outside tests.",
        stacklevel=3,
    )
    print(f"WARNING: CIFAR-10 checksum overridden ({TEST_SHA256_ENV}): reading a TEST STAND-IN, not the release.")
    return override


def _cifar10_tarball() -> Path:
    """The official release, sha256-verified before anything reads it (cache, then mirror, then download)."""
    entry = Entry("cifar10/cifar-10-python.tar.gz", _release_sha256(), CIFAR10_URL)
    target = cache_dir() / entry.path
    looked = [target] + ([m / entry.path] if (m := mirror_dir()) is not None else [])
    for path in looked:
        if path.is_file():
            return verify(path, entry)
    if _offline():
        raise DataFileMissing(
            f"The CIFAR-10 release is not available offline (looked in {', '.join(map(str, looked))}). Download "
            f"{CIFAR10_URL} (sha256 {CIFAR10_SHA256}) into {target.parent}, put it in your mirror as "
            f"$ROBEVAL_DATA_DIR/{entry.path}, or unset ROBEVAL_OFFLINE to download it."
        )
    import pooch

    try:
        pooch.retrieve(
            CIFAR10_URL, known_hash=f"sha256:{CIFAR10_SHA256}", fname=target.name, path=target.parent, progressbar=True
        )
    except Exception as exc:
        raise DataFileMissing(
            f"Could not download CIFAR-10 from {CIFAR10_URL}: {exc}. Download it by hand into {target.parent} "
            "or use the subset (load_cifar10_subset) with ROBEVAL_DATA_DIR pointing at a mirror."
        ) from exc
    return verify(target, entry)


class _ReleaseUnpickler(__import__("pickle").Unpickler):
    """Unpickles the CIFAR-10 batches and nothing else: only the numpy array constructors they reference
    may be loaded (defence in depth; the tarball's sha256 is checked first)."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy._core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),  # how Python 3 writes bytes in protocol-2 pickles (harmless)
    }

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise DataChecksumError(f"The CIFAR-10 batch references {module}.{name}, which the release never does.")
        return super().find_class(module, name)


def _read_cifar10_release(tar_path: Path) -> dict[str, np.ndarray]:
    # The release is a tarball of numpy-pickled batches: read only after its sha256 verified, with an
    # unpickler that can build arrays and nothing else.
    def read(member) -> tuple[np.ndarray, np.ndarray]:
        d = _ReleaseUnpickler(tf.extractfile(member), encoding="bytes").load()
        return np.asarray(d[b"data"], np.uint8).reshape(-1, 3, 32, 32), np.asarray(d[b"labels"], np.uint8)

    with tarfile.open(tar_path, "r:gz") as tf:
        members = {Path(m.name).name: m for m in tf.getmembers() if m.isfile()}
        train = [read(members[f"data_batch_{i}"]) for i in range(1, 6)]
        x_test, y_test = read(members["test_batch"])
    return {
        "x_train": np.concatenate([x for x, _ in train]),
        "y_train": np.concatenate([y for _, y in train]),
        "x_test": x_test,
        "y_test": y_test,
    }


def load_cifar10(layout: str = "NCHW") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Full CIFAR-10 (downloads the official release once, ~163 MB).

    Returns ``x_train`` uint8 (50000, 3, 32, 32), ``y_train`` uint8 (50000,), ``x_test`` uint8
    (10000, 3, 32, 32), ``y_test`` uint8 (10000,), in the release's order (= torchvision's indices);
    images in ``layout`` (``"NCHW"``, or ``"NHWC"`` for the image operations of :mod:`robeval.transforms`).
    """
    _check_layout(layout)
    # parsed from the verified tarball, so no unverified derived copy exists on disk; once per process (about 4 s
    # a parse on one core, and a notebook's grid cells load it many times), each caller gets its own copy
    arrays = _parsed_release(_cifar10_tarball())
    return (
        in_layout(arrays["x_train"].copy(), layout),
        arrays["y_train"].copy(),
        in_layout(arrays["x_test"].copy(), layout),
        arrays["y_test"].copy(),
    )


_PARSED: dict[tuple[str, int, int], dict[str, np.ndarray]] = {}


def _parsed_release(tar_path: Path) -> dict[str, np.ndarray]:
    """:func:`_read_cifar10_release` of the verified ``tar_path``, kept in memory for the process (one release,
    keyed by path, size and mtime like :func:`verify`; the arrays are read-only: callers copy them)."""
    st = tar_path.stat()
    key = (str(tar_path), st.st_size, st.st_mtime_ns)
    if key not in _PARSED:
        arrays = _read_cifar10_release(tar_path)
        for a in arrays.values():
            a.setflags(write=False)
        _PARSED.clear()
        _PARSED[key] = arrays
    return _PARSED[key]


def load_cifar10_subset(layout: str = "NCHW") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fixed real 5000/1000 CIFAR-10 subset used by the smoke and default profiles.

    Train = the first 1000 images of each of ``data_batch_1..5`` (torchvision indices
    ``[0..999] ∪ [10000..10999] ∪ … ∪ [40000..40999]``), test = the first 1000 of ``test_batch``.
    Returns ``x_train`` uint8 (5000, 3, 32, 32), ``y_train`` uint8 (5000,), ``x_test`` uint8
    (1000, 3, 32, 32), ``y_test`` uint8 (1000,); pixel values 0–255, channels RGB; images in ``layout``
    (``"NCHW"``, or ``"NHWC"`` for the image operations of :mod:`robeval.transforms`).
    """
    _check_layout(layout)
    rel = "cifar10_subset/cifar10_subset.npz"
    try:
        path = fetch(rel)
    except DataFileMissing as missing:
        try:
            x_tr, y_tr, x_te, y_te = _derived_cifar10_subset()
        except DataFileMissing as exc:
            raise DataFileMissing(
                f"{missing}\nIt could not be rebuilt from the CIFAR-10 release either: {exc}\n"
                f"Fastest fix: point ROBEVAL_DATA_DIR at a mirror that holds {rel!r} "
                "(CI uses ROBEVAL_DATA_DIR=../shared/data)."
            ) from exc
    else:
        with np.load(path, allow_pickle=False) as d:
            x_tr, y_tr, x_te, y_te = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
    return in_layout(x_tr, layout), y_tr, in_layout(x_te, layout), y_te


def _derived_cifar10_subset():
    # npz bytes are not reproducible across numpy versions, so the derived copy is verified by content
    derived = cache_dir() / "cifar10_subset" / "cifar10_subset_derived.npz"
    if derived.is_file():
        with np.load(derived, allow_pickle=False) as d:
            arrays = {k: d[k] for k in ("x_train", "y_train", "x_test", "y_test")}
    else:
        x_tr, y_tr, x_te, y_te = load_cifar10()
        arrays = {
            "x_train": x_tr[SUBSET_TRAIN_INDICES],
            "y_train": y_tr[SUBSET_TRAIN_INDICES],
            "x_test": x_te[SUBSET_TEST_INDICES],
            "y_test": y_te[SUBSET_TEST_INDICES],
        }
    if _array_digest(arrays) != CIFAR10_SUBSET_DIGEST:
        raise DataChecksumError(
            "The CIFAR-10 subset derived from the release does not match the registered content hash; "
            f"the release or {derived} is altered. Delete {cache_dir() / 'cifar10'} and {derived} and rerun."
        )
    if not derived.is_file():
        from robeval.core.io import save_npz

        save_npz(derived, **arrays)
    return arrays["x_train"], arrays["y_train"], arrays["x_test"], arrays["y_test"]


def load_cifar10_any(full: bool, layout: str = "NCHW") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``load_cifar10(layout)`` if ``full`` else ``load_cifar10_subset(layout)`` — what profiles select."""
    return load_cifar10(layout) if full else load_cifar10_subset(layout)


def _check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"Unknown layout {layout!r}; use 'NCHW' (torch models) or 'NHWC' (image operations).")
    return layout


def load_ionosphere() -> tuple[np.ndarray, np.ndarray]:
    """UCI Ionosphere: ``X`` float64 (351, 34), ``y`` int64 (351,) with 1 = good ('g', 225), 0 = bad (126).

    Features 0 and 1 are the two categorical/degenerate columns the real-world robustness paper drops
    (feature 1 is constant 0); use ``X[:, 2:]`` for its 32 continuous features.
    """
    path = fetch("uci/ionosphere.data")
    raw = np.loadtxt(path, delimiter=",", dtype=str)
    X = raw[:, :-1].astype(np.float64)
    y = (raw[:, -1] == "g").astype(np.int64)
    return X, y


def load_iris_binary(classes: tuple[int, int] = (0, 1)) -> tuple[np.ndarray, np.ndarray]:
    """Iris (ships with scikit-learn) reduced to two classes: ``X`` float64 (100, 4), ``y`` int64 in {0, 1}.

    ``classes`` picks which two of setosa (0), versicolor (1), virginica (2); label 1 = ``classes[1]``.
    """
    from sklearn.datasets import load_iris

    if len(classes) != 2 or set(classes) - {0, 1, 2} or classes[0] == classes[1]:
        raise ValueError(f"classes must be two distinct labels from {{0, 1, 2}}, got {classes!r}.")
    data = load_iris()
    keep = np.isin(data.target, classes)
    return data.data[keep].astype(np.float64), (data.target[keep] == classes[1]).astype(np.int64)


FROST_FILES = ("frost1.png", "frost2.png", "frost3.png", "frost4.jpg", "frost5.jpg", "frost6.jpg")


def load_frost_images() -> list[np.ndarray]:
    """The six frost photographs of ImageNet-C / CIFAR-10-C as uint8 RGB arrays (H, W, 3), in file order."""
    from PIL import Image

    out = []
    for name in FROST_FILES:
        with Image.open(fetch(f"imagenet_c_frost/{name}")) as im:
            out.append(np.asarray(im.convert("RGB"), dtype=np.uint8))
    return out


# ---------------------------------------------------------------------------------------- known facts
def dataset_facts() -> pandas.DataFrame:
    """Known facts of the datasets, checked on the loaded arrays: one row per fact with ``fact``,
    ``found`` and ``expected`` (sizes from the datasets' documentation) and ``ok``."""
    import pandas as pd

    X2, _ = load_mscr_2d("B")
    _, ytr, xte, _ = load_cifar10_subset()
    _, yi = load_ionosphere()
    facts = pd.DataFrame(
        [
            ("MSCR 2D dataset B points", len(X2), 4674),
            ("CIFAR-10 subset train images", len(ytr), 5000),
            ("CIFAR-10 subset test images", len(xte), 1000),
            ("CIFAR-10 subset train labels per class (min)", int(np.bincount(ytr).min()), 469),
            ("Ionosphere rows", len(yi), 351),
            ("Ionosphere 'good' rows", int(yi.sum()), 225),
        ],
        columns=["fact", "found", "expected"],
    )
    facts["ok"] = facts.found == facts.expected
    return facts
