"""The house's foundation imports nothing above it: no module of ``robeval.core`` imports a paper package
(``mscr``, ``msd``, ``realworld``, ``acr``), the shared ``transforms`` or the paper profile's cost model
(``robeval.dryrun``), not even inside a function."""

import ast
from pathlib import Path

import robeval.core

CORE = Path(robeval.core.__file__).parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_core_imports_nothing_above_it():
    upward = {}
    for path in sorted(CORE.glob("*.py")):
        bad = sorted(n for n in _imports(path) if n.startswith("robeval.") and not n.startswith("robeval.core"))
        if bad:
            upward[path.name] = bad
    assert not upward, f"robeval.core imports from above it: {upward}"


def test_the_check_sees_an_upward_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from robeval.acr import training\n    import robeval.msd.nets\n")
    assert {"robeval.acr", "robeval.acr.training", "robeval.msd.nets"} <= _imports(f)
