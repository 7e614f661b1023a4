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
import re
import tarfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .paths import cache_dir
from .validation import check_choice

CIFAR10_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR10_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
# Content hash of the subset arrays (see _array_digest); identical whether mirrored or derived.
CIFAR10_SUBSET_DIGEST = "a871150c4f18c3b5e88eb4d26aecd9c8cc6ce8cc8e9d595ca8b03a62d0c4ff19"
SUBSET_TRAIN_INDICES = np.concatenate([np.arange(b * 10000, b * 10000 + 1000) for b in range(5)])
SUBSET_TEST_INDICES = np.arange(1000)

ACR_METHODS = ("gaussian", "macer", "smoothadv", "consistency", "smoothmix", "catrs", "ours")
SIGMAS = (0.25, 0.5, 1.0)
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


@lru_cache(maxsize=1)
def registry() -> dict[str, Entry]:
    """All registered files, keyed by relative path."""
    text = (resources.files("robeval") / "data_registry.tsv").read_text(encoding="utf-8")
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
            "The file is truncated or altered. Delete it and rerun to download it again "
            f"(source: {entry.url}), or fix your mirror (ROBEVAL_DATA_DIR)."
        )
    _VERIFIED[key] = digest
    return path


def _candidates(rel: str) -> list[Path]:
    out = []
    if (m := mirror_dir()) is not None:
        out.append(m / rel)
    out.append(cache_dir() / rel)
    return out


def _offline() -> bool:
    return os.environ.get("ROBEVAL_OFFLINE", "").lower() in ("1", "true", "yes")


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
        raise _missing(rel, looked, "It is derived from the CIFAR-10 release: call load_cifar10_subset(), "
                                    "which builds it when downloads are allowed.\n")
    if _offline():
        raise _missing(rel, looked, "Downloads are disabled (ROBEVAL_OFFLINE=1).\n")
    target = cache_dir() / rel
    try:
        import pooch

        pooch.retrieve(entry.url, known_hash=f"sha256:{entry.sha256}", fname=target.name,
                       path=target.parent, progressbar=True)
    except Exception as exc:  # network errors, HTTP errors, hash mismatch
        raise _missing(rel, looked, f"Download failed: {exc}\n") from exc
    return verify(target, entry)


def status() -> "pandas.DataFrame":  # noqa: F821
    """One row per registered file: where it was found, size in bytes, whether its checksum verifies."""
    import pandas as pd

    rows = []
    for rel, entry in registry().items():
        found, ok, size = None, False, None
        for path in _candidates(rel):
            if path.is_file():
                found, size = path, path.stat().st_size
                try:
                    verify(path, entry)
                    ok = True
                except DataChecksumError:
                    ok = False
                break
        rows.append({"file": rel, "found_at": str(found) if found else None, "bytes": size,
                     "verified": ok, "source": entry.url})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------------- MSCR
def load_mscr_2d(name: str = "B") -> tuple[np.ndarray, np.ndarray]:
    """The MSCR paper's binary 2D datasets.

    Returns ``X`` float64 (n, 2) with values in [0, 1] and ``y`` int64 (n,) in {0, 1}.
    ``B`` (4674 points) is the dataset of the paper's Tables 1 and 2.
    """
    check_choice(name, "2D dataset", MSCR_2D)
    with np.load(fetch(f"mscr_2d/{name}_sep.npz"), allow_pickle=False) as d:
        return d["x"].astype(np.float64), d["y"].astype(np.int64)


_FLOAT = r"[0-9.]+(?:e-?\d+)?"


def _eps_lists(header: str) -> tuple[list[float], list[float]]:
    groups = re.findall(r"epsilon = ([^)]*)\)", header)
    if len(groups) < 2:
        raise ValueError(f"Could not parse the eps lists from the reference header: {header[:200]!r}")
    return [[float(v) for v in re.findall(_FLOAT, g)] for g in groups[:2]]


def load_mscr_reference_2d(dataset: str = "B", norm: str = "Linf") -> dict:
    """The MSCR authors' raw 2D results (1200 runs), from ``gesamt_<dataset>sep_<norm>.xlsx``.

    Returns a dict with
      ``eps_train``: the 9 training levels from the sheet header (entry 3 is eps_min at full precision
        for B/Linf; other sheets put eps_min at another position, see ``eps_min_position``),
      ``eps_test``: the 9 test levels read from the row labels (eps_min there only to the printed digits),
      ``eps_min_position``: row/column index of the eps_min level in the test rows,
      ``acc``: DataFrame of mean accuracies in percent (index eps_test, columns eps_train),
      ``mscr``: Series of MSCR in percent,
      ``acc_std``, ``acc_margin95``, ``mscr_std``, ``mscr_margin95``: same shapes in percent, or None where
        the sheet has no such block (only B/Linf and C/L2 carry them),
      ``notes``: inconsistencies found in the sheet (e.g. a header copied from another sheet).
    """
    import openpyxl
    import pandas as pd

    check_choice(dataset, "2D dataset", MSCR_2D)
    check_choice(norm, "norm", ("Linf", "L2"))
    path = fetch(f"mscr_reference/gesamt_{dataset}sep_{norm}.xlsx")
    ws = openpyxl.load_workbook(path, data_only=True, read_only=True).worksheets[0]
    rows = [list(r) for r in ws.iter_rows(values_only=True)]
    header = str(rows[0][1])
    eps_train, eps_test_header = _eps_lists(header)
    n = len(eps_train)
    labels = [str(r[0]).strip() if r[0] is not None else "" for r in rows]
    first = next(i for i, lab in enumerate(labels) if lab.startswith("Test Noise"))
    test_rows = [i for i in range(first, first + n)]
    eps_test, eps_min_pos = [], None
    for j, i in enumerate(test_rows):
        value = re.findall(r"[0-9]+(?:[.,][0-9]+)?", labels[i].split("=")[-1])[-1]
        eps_test.append(float(value.replace(",", ".")))
        if "r/2" in labels[i] or "min" in labels[i]:
            eps_min_pos = j
    find = lambda *names: next((i for i, lab in enumerate(labels) if lab in names), None)  # noqa: E731
    idx_te = pd.Index(eps_test, name="eps_test")
    idx_tr = pd.Index(eps_train, name="eps_train")

    def frame(start):
        if start is None:
            return None
        return pd.DataFrame([[float(v) for v in rows[i][1:1 + n]] for i in range(start, start + n)],
                            index=idx_te, columns=idx_tr)

    def series(i):
        return None if i is None else pd.Series([float(v) for v in rows[i][1:1 + n]], index=idx_tr)

    notes = [f"sheet title is {ws.title!r} whatever the file"]
    if eps_min_pos is not None and abs(eps_test_header[eps_min_pos] - eps_test[eps_min_pos]) > 5e-4:
        notes.append(f"header states eps_min(test) = {eps_test_header[eps_min_pos]:.6f} but the row label "
                     f"says {eps_test[eps_min_pos]}; the header appears copied from another sheet")
    return {
        "eps_train": eps_train,
        "eps_test": eps_test,
        "eps_min_position": eps_min_pos,
        "acc": frame(first),
        "mscr": series(find("MSCR", "MSSR")),
        "acc_std": frame(find("std Acc")),
        "acc_margin95": frame(find("95% confidence margin")),
        "mscr_std": series(find("std MSCR", "std MSSR")),
        "mscr_margin95": series(find("95% confidence margin MSCR", "95% confidence margin MSSR")),
        "header": header,
        "notes": notes,
    }


def _decimal_comma(cells: list[str]) -> list[float]:
    return [float(c.strip().rstrip("%").replace(",", ".")) for c in cells if c.strip() != ""]


def load_mscr_reference_cifar() -> dict:
    """The MSCR authors' raw CIFAR-10 results (20 runs) behind the paper's Table 3.

    Returns a dict with ``eps_train`` (8) and ``eps_test`` (18) in the file's row order as stated in its
    header, DataFrames ``acc``, ``acc_margin95``, ``acc_std`` (percent; index eps_test, columns eps_train),
    Series ``mscr`` (percent) and ``mscr_std`` (from ``cifar10_msu_std.csv``, fraction of one), and the raw
    header text. The header lists ``0.0125`` after ``0.1058…`` where the matrix continues increasing; we keep
    the file's value and flag it in ``notes``.
    """
    import pandas as pd

    text = fetch("mscr_reference/cifar10_accuracy_matrix_20runs.csv").read_text(encoding="utf-8")
    lines = text.splitlines()
    header = lines[0]
    eps_train, eps_test = _eps_lists(header)
    body = [ln.split(";") for ln in lines[1:]]
    labels = [r[0] for r in body]
    i_acc = labels.index("Accuracy")
    i_mscr = next(i for i, lab in enumerate(labels) if lab.startswith("MSSR") or lab.startswith("MSCR"))
    i_margin = labels.index("95% confidence margins Acc")
    i_std = labels.index("Standard deviation")
    n = len(eps_test)
    mat = lambda i: pd.DataFrame([_decimal_comma(r[1:]) for r in body[i:i + n]],  # noqa: E731
                                 index=pd.Index(eps_test, name="eps_test"),
                                 columns=pd.Index(eps_train, name="eps_train"))
    std_lines = fetch("mscr_reference/cifar10_msu_std.csv").read_text(encoding="utf-8").splitlines()
    mscr_std = [float(v) for v in std_lines[1:] if v.strip()]
    notes = []
    if any(b < a for a, b in zip(eps_test, eps_test[1:])):
        notes.append("eps_test header is not sorted (0.0125 after 0.10588…); likely a typo for 0.125")
    return {
        "eps_train": eps_train,
        "eps_test": eps_test,
        "acc": mat(i_acc),
        "acc_margin95": mat(i_margin),
        "acc_std": mat(i_std),
        "mscr": pd.Series(_decimal_comma(body[i_mscr][1:]), index=pd.Index(eps_train, name="eps_train")),
        "mscr_std": pd.Series(mscr_std, index=pd.Index(eps_train, name="eps_train")),
        "header": header,
        "notes": notes,
    }


# -------------------------------------------------------------------------------------------- CIFAR-10
def _array_digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for key in ("x_train", "y_train", "x_test", "y_test"):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _cifar10_tarball() -> Path:
    target = cache_dir() / "cifar10" / "cifar-10-python.tar.gz"
    if target.is_file():
        return target
    if (m := mirror_dir()) is not None and (m / "cifar10" / "cifar-10-python.tar.gz").is_file():
        return m / "cifar10" / "cifar-10-python.tar.gz"
    if _offline():
        raise DataFileMissing(
            f"The CIFAR-10 release is not available offline (looked for {target}). Download "
            f"{CIFAR10_URL} (md5 {CIFAR10_MD5}) into {target.parent}, or unset ROBEVAL_OFFLINE."
        )
    import pooch

    try:
        pooch.retrieve(CIFAR10_URL, known_hash=f"md5:{CIFAR10_MD5}", fname=target.name,
                       path=target.parent, progressbar=True)
    except Exception as exc:
        raise DataFileMissing(
            f"Could not download CIFAR-10 from {CIFAR10_URL}: {exc}. Download it by hand into {target.parent} "
            "or use the subset (load_cifar10_subset) with ROBEVAL_DATA_DIR pointing at a mirror."
        ) from exc
    return target


def _read_cifar10_release(tar_path: Path) -> dict[str, np.ndarray]:
    # The release is a tarball of numpy-pickled batches; its md5 was checked by pooch before we unpickle.
    import pickle

    def read(member) -> tuple[np.ndarray, np.ndarray]:
        d = pickle.load(tf.extractfile(member), encoding="bytes")
        return np.asarray(d[b"data"], np.uint8).reshape(-1, 3, 32, 32), np.asarray(d[b"labels"], np.uint8)

    with tarfile.open(tar_path, "r:gz") as tf:
        members = {Path(m.name).name: m for m in tf.getmembers()}
        train = [read(members[f"data_batch_{i}"]) for i in range(1, 6)]
        x_test, y_test = read(members["test_batch"])
    return {"x_train": np.concatenate([x for x, _ in train]), "y_train": np.concatenate([y for _, y in train]),
            "x_test": x_test, "y_test": y_test}


def load_cifar10() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Full CIFAR-10 (downloads the official release once, ~163 MB).

    Returns ``x_train`` uint8 (50000, 3, 32, 32), ``y_train`` uint8 (50000,), ``x_test`` uint8
    (10000, 3, 32, 32), ``y_test`` uint8 (10000,), in the release's order (= torchvision's indices).
    """
    cached = cache_dir() / "cifar10" / "cifar10_full.npz"
    if not cached.is_file():
        from .io import save_npz

        save_npz(cached, **_read_cifar10_release(_cifar10_tarball()))
    with np.load(cached, allow_pickle=False) as d:
        return d["x_train"], d["y_train"], d["x_test"], d["y_test"]


def load_cifar10_subset() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The fixed real 5000/1000 CIFAR-10 subset used by the smoke and default profiles.

    Train = the first 1000 images of each of ``data_batch_1..5`` (torchvision indices
    ``[0..999] ∪ [10000..10999] ∪ … ∪ [40000..40999]``), test = the first 1000 of ``test_batch``.
    Returns ``x_train`` uint8 (5000, 3, 32, 32), ``y_train`` uint8 (5000,), ``x_test`` uint8
    (1000, 3, 32, 32), ``y_test`` uint8 (1000,); pixel values 0–255, channels RGB.
    """
    rel = "cifar10_subset/cifar10_subset.npz"
    try:
        path = fetch(rel)
    except DataFileMissing:
        return _derived_cifar10_subset()
    with np.load(path, allow_pickle=False) as d:
        return d["x_train"], d["y_train"], d["x_test"], d["y_test"]


def _derived_cifar10_subset():
    # npz bytes are not reproducible across numpy versions, so the derived copy is verified by content
    derived = cache_dir() / "cifar10_subset" / "cifar10_subset_derived.npz"
    if derived.is_file():
        with np.load(derived, allow_pickle=False) as d:
            arrays = {k: d[k] for k in ("x_train", "y_train", "x_test", "y_test")}
    else:
        x_tr, y_tr, x_te, y_te = load_cifar10()
        arrays = {"x_train": x_tr[SUBSET_TRAIN_INDICES], "y_train": y_tr[SUBSET_TRAIN_INDICES],
                  "x_test": x_te[SUBSET_TEST_INDICES], "y_test": y_te[SUBSET_TEST_INDICES]}
    if _array_digest(arrays) != CIFAR10_SUBSET_DIGEST:
        raise DataChecksumError(
            "The CIFAR-10 subset derived from the release does not match the registered content hash; "
            f"the release or {derived} is altered. Delete {cache_dir() / 'cifar10'} and {derived} and rerun.")
    if not derived.is_file():
        from .io import save_npz

        save_npz(derived, **arrays)
    return arrays["x_train"], arrays["y_train"], arrays["x_test"], arrays["y_test"]


def load_cifar10_any(full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``load_cifar10()`` if ``full`` else ``load_cifar10_subset()`` — what profiles select."""
    return load_cifar10() if full else load_cifar10_subset()


# ------------------------------------------------------------------------------------ tabular datasets
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


# -------------------------------------------------------------------------------- randomized smoothing
CERTIFICATION_COLUMNS = ("idx", "label", "predict", "radius", "correct", "time")


def parse_duration(values) -> np.ndarray:
    """Seconds (float64) from ``H:MM:SS(.ffffff)`` / ``D day(s), H:MM:SS`` strings or plain numbers."""
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):
        s = str(v).strip()
        days = 0.0
        if "day" in s:
            d, s = s.split(",", 1)
            days = float(d.split()[0])
            s = s.strip()
        if ":" in s:
            parts = [float(p) for p in s.split(":")]
            sec = 0.0
            for p in parts:
                sec = sec * 60.0 + p
        else:
            sec = float(s)
        out[i] = days * 86400.0 + sec
    return out


def read_certification(path: str | os.PathLike) -> "pandas.DataFrame":  # noqa: F821
    """Parse a CERTIFY output file (tab separated ``idx label predict radius correct time``).

    ``predict`` is -1 for abstentions. ``time`` is converted to seconds (column ``time_s``; the raw text is
    kept in ``time``). Raises ValueError naming missing columns.
    """
    import pandas as pd

    df = pd.read_csv(path, sep="\t")
    missing = [c for c in CERTIFICATION_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{path}: certification file lacks column(s) {missing}; expected tab-separated columns "
            f"{' '.join(CERTIFICATION_COLUMNS)} as written by CERTIFY (robeval.smoothing)."
        )
    df["time_s"] = parse_duration(df["time"].to_numpy())
    return df


def load_certification(dataset: str, method: str, sigma: float) -> "pandas.DataFrame":  # noqa: F821
    """Published certification results of the ACR paper (eth-sri/acr-weakness ``data/certify``).

    ``dataset`` ∈ {cifar10, imagenet}; ``method`` ∈ ACR_METHODS; ``sigma`` ∈ {0.25, 0.5, 1.0}. CIFAR-10 has
    all 10000 test points, ImageNet every 100th of 50000. Some ImageNet files lack the ``.tsv`` suffix
    upstream; both spellings are resolved. Columns: idx, label, predict, radius, correct, time, time_s.
    """
    check_choice(dataset, "dataset", ("cifar10", "imagenet"))
    check_choice(method, "method", ACR_METHODS)
    check_choice(float(sigma), "sigma", SIGMAS)
    stem = f"acr_weakness/certify/{dataset}/{method}/noise_{float(sigma)}"
    reg = registry()
    rel = stem + ".tsv" if stem + ".tsv" in reg else stem
    if rel not in reg:
        avail = sorted({k.split("/")[3] + "@" + k.split("noise_")[1].removesuffix(".tsv")
                        for k in reg if k.startswith(f"acr_weakness/certify/{dataset}/")})
        raise ValueError(f"No published certification for {dataset}/{method} at sigma={sigma}. "
                         f"Available (method@sigma): {', '.join(avail)}.")
    return read_certification(fetch(rel))


def available_certifications() -> list[tuple[str, str, float]]:
    """(dataset, method, sigma) of every published certification file."""
    out = []
    for k in registry():
        if k.startswith("acr_weakness/certify/"):
            _, _, ds, m, f = k.split("/")
            out.append((ds, m, float(f.removeprefix("noise_").removesuffix(".tsv"))))
    return sorted(out)


def load_published_ecdf(method: str, sigma: float) -> "pandas.DataFrame":  # noqa: F821
    """The ECDF of p_A behind the ACR paper's Figure 9 (CIFAR-10): columns ``x`` (p_A) and ``y``."""
    import pandas as pd

    check_choice(method, "method", ACR_METHODS)
    check_choice(float(sigma), "sigma", SIGMAS)
    return pd.read_csv(fetch(f"acr_weakness/ecdf/{method}_{float(sigma)}.csv"), sep="\t")


# ---------------------------------------------------------------------------------------------- frost
FROST_FILES = ("frost1.png", "frost2.png", "frost3.png", "frost4.jpg", "frost5.jpg", "frost6.jpg")


def load_frost_images() -> list[np.ndarray]:
    """The six frost photographs of ImageNet-C / CIFAR-10-C as uint8 RGB arrays (H, W, 3), in file order."""
    from PIL import Image

    out = []
    for name in FROST_FILES:
        with Image.open(fetch(f"imagenet_c_frost/{name}")) as im:
            out.append(np.asarray(im.convert("RGB"), dtype=np.uint8))
    return out
