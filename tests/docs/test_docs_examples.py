"""Every ```python block of README.md and docs/*.md runs, on small data.

Blocks fenced as ```bash (shell commands), or with no language (layouts, synopses), are not run; a
```python block is skipped only when the line before it is ``<!-- not run: reason -->``. A block's names
written as placeholders (``model = ...``) are bound by its PRELUDE below, on small data; the blocks of one
page share a namespace, in order, like a reader's session. Each block must finish within the page's budget.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import pytest

from robeval.core.env import PINNED_CPU_ENV

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = re.compile(r"<!--\s*not run:.+-->")


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


def blocks(path: Path) -> list[tuple[str, str, int, str | None]]:
    """(id, source, first line, skip reason) of each ```python block of a page; id = page::section[-k]."""
    out, heading, seen, lines = [], "top", {}, path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.lstrip("#").strip()
        m = FENCE.match(line)
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if m.group(1) == "python":
            key = f"{path.name}::{_slug(heading)}"
            seen[key] = seen.get(key, -1) + 1
            block_id = key if seen[key] == 0 else f"{key}-{seen[key]}"
            prev = lines[i - 1] if i else ""
            skip = prev if NOT_RUN.search(prev) else None
            out.append((block_id, "\n".join(lines[i + 1 : j]), i + 2, skip))
        i = j + 1
    return out


# Small data for the placeholders of each block (by id).
PRELUDE = {
    "usage.md::randomized-smoothing-certify-your-classifier-cohen-et-al-2019": """
import numpy as np
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 4 * 4, 10)).eval()
x_test = torch.rand(2, 3, 4, 4)
y_test = torch.tensor([0, 1])
""",
    "usage.md::corrupt-your-images-cifar-10-c-and-cifar-10-c-bar": """
import numpy as np
x = np.random.default_rng(0).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
""",
    "usage.md::real-world-robustness-of-individual-predictions-scher-tr-gler": """
import numpy as np
from sklearn.linear_model import LogisticRegression
_rng = np.random.default_rng(0)
X_train = _rng.normal(size=(60, 3)); y_train = (X_train[:, 0] > 0).astype(int)
model = LogisticRegression().fit(X_train, y_train)
X_test = _rng.normal(size=(5, 3))
""",
    "usage.md::mscr-of-any-classifier-siedel-et-al-2022": """
import numpy as np
from sklearn.neighbors import KNeighborsClassifier
_rng = np.random.default_rng(0)
X = _rng.uniform(size=(80, 2)); y = (X[:, 0] > 0.5).astype(int)
clf = KNeighborsClassifier(1).fit(X[:60], y[:60])
X_test, y_test = X[60:], y[60:]
""",
    "corruptions.md::using-it": """
import numpy as np
x = np.random.default_rng(0).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
labels = np.arange(4)
import os as _os
_os.makedirs("CIFAR-10-C", exist_ok=True)  # a stand-in for the downloaded release: 5 severities of 4 images
np.save("CIFAR-10-C/fog.npy", np.tile(x, (5, 1, 1, 1))); np.save("CIFAR-10-C/labels.npy", np.tile(labels, 5).astype(np.uint8))
""",
    "corruptions.md::randomness-one-stream-per-image": """
import numpy as np
x = np.random.default_rng(1).integers(0, 256, (8, 32, 32, 3), dtype=np.uint8)
""",
}
# Blocks that may fail for a known reason (none today); each entry names the reason.
XFAIL: dict[str, str] = {}
# Blocks importing a name they never use, kept on purpose (none today).
XFAIL_IMPORTS: dict[str, str] = {}

CASES = [(page, *b) for page in PAGES for b in blocks(page)]


def _strip_placeholders(source: str, namespace: dict) -> str:
    """Drop top-level ``name = ...`` lines whose name the prelude bound (the reader's own object)."""
    tree = ast.parse(source)
    keep = [
        node
        for node in tree.body
        if not (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and node.value.value is Ellipsis
            and all(isinstance(t, ast.Name) and t.id in namespace for t in node.targets)
        )
    ]
    return ast.unparse(ast.Module(body=keep, type_ignores=[]))


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """One namespace per page, shared by its blocks in order, run in a scratch folder."""
    return {}, tmp_path_factory.mktemp("docs")


def test_the_runner_finds_the_blocks():
    ids = [c[1] for c in CASES]
    assert len(ids) == len(set(ids)), "block ids must be unique"
    assert {"usage.md::corrupt-your-images-cifar-10-c-and-cifar-10-c-bar", "corruptions.md::using-it"} <= set(ids)
    assert set(PRELUDE) | set(XFAIL) | set(XFAIL_IMPORTS) <= set(ids), "stale ids in PRELUDE or XFAIL"
    assert "install.md::same-numbers-as-the-compendium" in ids
    assert not any(i.startswith("install.md::with-conda") for i in ids)  # bash blocks are not run


@pytest.mark.parametrize(("page", "block_id", "source", "line", "skip"), CASES, ids=[c[1] for c in CASES])
def test_docs_block_runs(page, block_id, source, line, skip, sessions, monkeypatch, request):
    if skip:
        pytest.skip(skip)
    if block_id in XFAIL:
        request.applymarker(pytest.mark.xfail(reason=XFAIL[block_id], strict=True))
    namespaces, scratch = sessions
    monkeypatch.chdir(scratch)
    for key in PINNED_CPU_ENV:  # a block may pin the CPU kernels; the test process keeps its environment
        monkeypatch.setenv(key, "")
        monkeypatch.delenv(key)
    ns = namespaces.setdefault(page.name, {"__name__": f"docs_{page.stem}"})
    if block_id in PRELUDE:
        exec(compile(PRELUDE[block_id], f"<prelude {block_id}>", "exec"), ns)
    code = compile(_strip_placeholders(source, ns), f"{page.name}:{line}", "exec")
    with warnings.catch_warnings():  # pytest imported numpy long ago: pinning now is late, as the page says
        warnings.filterwarnings("ignore", message="pin_cpu_kernels", category=RuntimeWarning)
        exec(code, ns)
    # (no wall-clock bound: speed lives in benchmarks/, and a timed assertion failed CI on a loaded machine)


def unused_imports(source: str) -> list[str]:
    """Names a block imports and never mentions (``import a.b`` binds ``a``)."""
    tree = ast.parse(source)
    imported = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = node.lineno
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return sorted(name for name in imported if name not in used)


def test_unused_imports_detector():
    assert unused_imports("import numpy as np\nfrom a import b, c\nprint(np.pi, c)") == ["b"]
    assert unused_imports("import os.path\nos.path.join('a')") == []


@pytest.mark.parametrize(("page", "block_id", "source", "line", "skip"), CASES, ids=[c[1] for c in CASES])
def test_docs_block_imports_are_used(page, block_id, source, line, skip, request):
    if block_id in XFAIL_IMPORTS:
        request.applymarker(pytest.mark.xfail(reason=XFAIL_IMPORTS[block_id], strict=False))
    assert not unused_imports(source), f"{page.name}:{line} imports {unused_imports(source)} and never uses them"
