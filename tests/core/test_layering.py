"""The house's architecture as a contract (docs/layout.md).

* ``pyproject.toml``'s ``[tool.importlinter]`` contracts hold: the paper packages stand on ``robeval.core`` and it
  imports none of them; ``robeval.core``'s floors (base modules, ``runs | nn``, ``ledger``, ``publish``,
  ``notebooks``, ``site``) import only the floors below them; no two modules or packages of one folder import
  each other in a circle. The same contract types are shown to fail on a small package that breaks them;
* no private name (``_x``) is imported from another file of ``robeval`` (a split that needs one is the wrong split);
* no module of ``lib/`` is over :data:`MAX_LINES` lines.
"""

import ast
import os
import sys
import textwrap
from pathlib import Path

import pytest

import robeval

LIB = Path(robeval.__file__).resolve().parents[1]
ROOT = LIB.parent
MAX_LINES = 950


def _lint(config: Path, cwd: Path) -> int:
    from importlinter.cli import lint_imports

    here = os.getcwd()
    os.chdir(cwd)
    try:
        return lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    finally:
        os.chdir(here)


def test_the_import_contracts_of_pyproject_hold():
    assert _lint(ROOT / "pyproject.toml", ROOT) == 0


def _house(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_package = "house"

            [[tool.importlinter.contracts]]
            name = "floors"
            type = "layers"
            containers = ["house"]
            layers = ["top", "base_a : base_b"]

            [[tool.importlinter.contracts]]
            name = "no circles"
            type = "acyclic_siblings"
            ancestors = ["house"]
            """
        )
    )
    return config


@pytest.mark.parametrize(
    "extra, kept",
    [
        ({}, True),  # the clean house
        ({"house/base_a.py": "from house import top\n"}, False),  # an arrow up
        (
            {
                "house/base_a.py": "def f():\n    from house.base_b import g\n",
                "house/base_b.py": "from house import base_a\n",
            },
            False,
        ),
    ],
    ids=["clean", "arrow-up", "circle"],
)
def test_the_contract_types_fail_on_an_arrow_up_and_on_a_circle(tmp_path, monkeypatch, extra, kept):
    files = {
        "house/__init__.py": "",
        "house/top.py": "from house import base_a, base_b\n",
        "house/base_a.py": "",
        "house/base_b.py": "def g():\n    return 1\n",
    }
    files.update(extra)
    config = _house(tmp_path, files)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "house" or m.startswith("house.")]:
        monkeypatch.delitem(sys.modules, name)
    assert (_lint(config, tmp_path) == 0) is kept


def private_imports(path: Path) -> list[str]:
    """``module:name`` of every private name (``_x``, not dunder) that ``path`` imports from a robeval module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("robeval"):
            out += [
                f"{node.module}:{a.name}" for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
            ]
    return out


def test_no_private_name_is_imported_across_files():
    found = {str(p.relative_to(LIB)): private_imports(p) for p in sorted(LIB.rglob("*.py"))}
    assert not {k: v for k, v in found.items() if v}


def test_the_private_import_check_sees_one(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from robeval.core.runs.store import _x, y, __version__\n")
    assert private_imports(f) == ["robeval.core.runs.store:_x"]


def test_no_module_of_lib_is_over_the_line_limit():
    long = {str(p.relative_to(LIB)): n for p in LIB.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these modules (over {MAX_LINES} lines): {long}"
