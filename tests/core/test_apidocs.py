"""The API reference (mkdocs + mkdocstrings): Sphinx roles render as code, griffe reads every docstring section
without a warning, and a warning fails the build."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from robeval.core.publish import apidocs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see :class:`Ledger`.", "see `Ledger`."),
        (
            ":func:`robeval.core.stats.paired_ci` and :meth:`Ledger.value`",
            "`robeval.core.stats.paired_ci` and `Ledger.value`",
        ),
        (":func:`~robeval.core.stats.paired_ci`", "`paired_ci`"),
        (":data:`VARIANTS`, :attr:`Ledger.survives`, :mod:`.ledger`", "`VARIANTS`, `Ledger.survives`, `.ledger`"),
        (":py:func:`run_all`", "`run_all`"),
        (":func:`the runner <robeval.core.notebooks.run_all>`", "`the runner`"),
        (":func:`a\n    b`", "`a\n    b`"),  # a role wrapped over two lines
        ("``literal`` and :math:`x^2` stay", "``literal`` and :math:`x^2` stay"),
        ("no role", "no role"),
    ],
)
def test_sphinx_roles_become_inline_code(text, expected):
    assert apidocs.sphinx_roles_to_markdown(text) == expected


def test_sphinx_roles_reject_a_non_string():
    with pytest.raises(TypeError, match="docstring"):
        apidocs.sphinx_roles_to_markdown(None)


def test_the_extension_rewrites_docstrings_as_griffe_loads_them():
    griffe = pytest.importorskip("griffe", reason="the docs extra installs griffe")
    from robeval.core import paths

    extensions = griffe.load_extensions("robeval.core.publish.apidocs")
    mod = griffe.load("robeval.acr.training", search_paths=[str(paths.ROOT / "lib")], extensions=extensions)
    doc = mod["run_variant"].docstring
    assert ":data:`" not in doc.value and "`VARIANTS`" in doc.value
    params = next(s for s in doc.parse("numpy") if s.kind.value == "parameters")
    assert [p.name for p in params.value] == ["cell", "config"]


@pytest.mark.slow
def test_api_reference_builds_strict_with_no_raw_role(tmp_path):
    """`make docs`: mkdocs --strict (any warning, e.g. griffe's on a misread docstring, fails it); no page shows a
    raw Sphinx role and run_variant lists its two parameters only."""
    pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra installs mkdocstrings-python")
    from robeval.core import paths

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(paths.ROOT / "lib"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(paths.ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path),
        ],
        cwd=paths.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line]
    assert proc.returncode == 0 and not warnings, proc.stderr[-3000:]
    roles = re.compile(r":(?:" + "|".join(apidocs.ROLES) + r"):`")
    for page in (tmp_path / "api").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not roles.search(text), f"{page.relative_to(tmp_path)}: raw Sphinx role {roles.search(text)[0]!r}"
    acr = (tmp_path / "api" / "acr" / "index.html").read_text(encoding="utf-8")
    section = acr[acr.index('id="robeval.acr.training.run_variant"') :]
    section = section[section.index("Parameters:") :]
    names = re.findall(r"<td>\s*<code>(\w+)</code>\s*</td>", section[: section.index("</table>")])
    assert names == ["cell", "config"], names
