"""Code identities (robeval.core.runs.identity): what names a grid's results changes with the code a cell function can
run, and with nothing else — not with the ledger's rules, not with docstrings, not with the Python version, not
with the checkout's path."""

from __future__ import annotations

import ast
import hashlib
import sys
import textwrap

import pytest

from robeval.core import io, paths, runs
from robeval.core.runs import identity, store
from robeval.core.runs.trust import store_config


@pytest.fixture(autouse=True)
def _forget_edited_sources():
    """Tests here serve edited module sources; the parsed trees and digests cached from them must not outlive the
    test (a later test in this process, e.g. test_runs' SIGKILL test, compares its grid's identity with a fresh
    interpreter's)."""
    yield
    identity.clear_caches()


_DUMP_SAMPLE = '''
import os
from .x import y as z


@decorator(1, k=None)
async def f(a, /, b: int = 2, *args, c=None, **kw) -> "str":
    """doc"""
    global G
    x = [i ** 2 for i in range(3) if i] + list({j: j for j in "ab"})
    async with ctx() as (p, q):
        await g(f"{a!r:>{b}x} and {x=}", *args, **kw)
    try:
        del x[0], kw["k"]
    except (KeyError, IndexError) as exc:
        raise ValueError("no") from exc
    finally:
        pass
    return lambda u=1: None if u else ...


class K(Base, metaclass=Meta):
    attr: dict[str, int] = {}

    def m(self, *, key):
        match key:
            case {"a": 1, **rest}:
                return rest
            case [1, *others] if others:
                return others
            case K(attr=2) | None:
                return 0
        while (n := len(self.attr)) > 3:
            self.attr.popitem()
        else:
            yield from (n,)
'''
# sha256 of ast.dump(ast.parse(_DUMP_SAMPLE)) as Python 3.12.1 writes it (3.11.7's own text differs)
_DUMP_SAMPLE_312 = "5b9a7a174d82a1d047c3869837061c81c620b455798e6d79de092619afa4622c"


def test_identities_hash_the_same_text_on_every_python():
    """``portable_dump`` writes ast.dump's text as Python 3.12 does, on any Python: a sample with functions,
    classes, decorators, f-strings, pattern matching and optional fields, against a digest taken from 3.12.1."""
    got = hashlib.sha256(identity.portable_dump(ast.parse(_DUMP_SAMPLE)).encode()).hexdigest()
    assert got == _DUMP_SAMPLE_312
    if sys.version_info[:2] == (3, 12):
        assert ast.dump(ast.parse(_DUMP_SAMPLE)) == identity.portable_dump(ast.parse(_DUMP_SAMPLE))
    # what is emulated is ast.dump's text, not the parser: 3.12's parser ends a format spec whose last part is a
    # replacement field (f"{a:>{b}}") with an empty Constant, 3.11's does not. No module of the package has one
    for module in sorted((paths.ROOT / "lib" / "robeval").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            spec = getattr(node, "format_spec", None) if isinstance(node, ast.FormattedValue) else None
            assert not (spec is not None and spec.values and isinstance(spec.values[-1], ast.FormattedValue)), (
                f"{module}: an f-string format spec ending in a replacement field parses differently under 3.12; "
                "end it with a literal character or compute the spec first"
            )


# a small package served to the identity code as source text (nothing is imported): a cell function that reaches
# a helper module through an attribute, a constant through `from ... import`, a function registered by a decorator
# and called through the registry, and a function named in a string (getattr); a rules module it imports but
# never calls; a module a second cell imports inside its body, with a statement that runs on import
FAKE = {
    "robeval.fake.cells": """
        from robeval.fake import helpers
        from robeval.fake.rules import THRESHOLD, decide


        def cell(c, cfg):
            \"\"\"Doc.\"\"\"
            return helpers.f(c["x"]) + THRESHOLD


        def other(c, cfg):
            return decide(c)


        def lazy(c, cfg):
            from robeval.fake import side

            return side.VALUE
        """,
    "robeval.fake.helpers": """
        import math

        REGISTRY = {}


        def register(fn):
            REGISTRY[fn.__name__] = fn
            return fn


        @register
        def noise(x):
            return x * 2


        def f(x):
            return REGISTRY["noise"](x) + g(x)


        def g(x):
            return getattr(math, "sqrt")(x) + getattr(sys.modules[__name__], "h")(x)


        def h(x):
            return 0.5 * x


        def unused():
            return 1
        """,
    "robeval.fake.rules": """
        THRESHOLD = 1
        ALPHA = 0.05


        def decide(c):
            return c["x"] > ALPHA
        """,
    "robeval.fake.side": """
        VALUE = 3
        print("imported")
        """,
}


@pytest.fixture
def fake(monkeypatch):
    """Serve FAKE (editable: ``fake[name] = text``) as module sources; identities recomputed on every call."""
    sources = {k: textwrap.dedent(v) for k, v in FAKE.items()}
    real = identity._module_source
    monkeypatch.setattr(identity, "_module_source", lambda name: sources[name] if name in sources else real(name))

    def ident(name: str) -> str:
        identity.clear_caches()
        return identity._reach_digest("robeval.fake.cells", name)

    yield sources, ident
    identity.clear_caches()


@pytest.mark.parametrize(
    "module, old, new, changes",
    [
        ("robeval.fake.helpers", "return x * 2", "return x * 3", True),  # registered, called through the registry
        ("robeval.fake.helpers", "return 0.5 * x", "return 0.25 * x", True),  # named in a string (getattr)
        ("robeval.fake.helpers", "import math", "import cmath as math", True),  # an import the helper module uses
        ("robeval.fake.rules", "THRESHOLD = 1", "THRESHOLD = 2", True),  # a constant the cell imports
        ("robeval.fake.rules", "ALPHA = 0.05", "ALPHA = 0.01", False),  # a rule's constant the cell never reads
        ("robeval.fake.rules", 'return c["x"] > ALPHA', 'return c["x"] >= ALPHA', False),  # an unreached rule
        ("robeval.fake.helpers", "return 1", "return 2", False),  # an unreached helper
        ("robeval.fake.cells", "return decide(c)", "return not decide(c)", False),  # another cell of the module
        ("robeval.fake.cells", '"""Doc."""', '"""Other words."""', False),  # a docstring
        ("robeval.fake.side", 'print("imported")', 'print("loaded")', False),  # a module the cell never imports
    ],
)
def test_an_identity_changes_with_the_code_a_cell_reaches_and_nothing_else(fake, module, old, new, changes):
    sources, ident = fake
    before = ident("cell")
    assert old in sources[module]
    sources[module] = sources[module].replace(old, new)
    assert (ident("cell") != before) is changes


def test_a_module_imported_inside_a_cell_counts_with_what_it_runs_on_import(fake):
    sources, ident = fake
    before, cell = ident("lazy"), ident("cell")
    sources["robeval.fake.side"] = sources["robeval.fake.side"].replace('print("imported")', 'print("loaded")')
    assert ident("lazy") != before and ident("cell") == cell
    sources["robeval.fake.side"] = sources["robeval.fake.side"].replace("VALUE = 3", "VALUE = 4")
    assert ident("lazy") != before


def test_a_training_grid_keeps_its_identity_across_an_edit_of_the_ledger_rules(monkeypatch):
    """The reason for reach-based identities: notebook 09's training and Table 5 cells (GPU cells, which no
    recomputation reproduces) keep their identity when the decision rules, the ledger or the profiles' texts
    change, and lose it when the training code they run changes."""
    from robeval.acr import sequential, training

    fns = (training.train_rs, sequential.sequential_cell)
    real = identity._module_source
    edits = {}
    monkeypatch.setattr(identity, "_module_source", lambda name: edits.get(name) or real(name))

    def ids():
        identity.clear_caches()
        return [identity.code_identity(f) for f in fns]

    base = ids()
    reach = identity.code_reach(sequential.sequential_cell)
    assert "robeval.core.nn.training" in reach and "robeval.core.ledger.decisions" not in reach
    assert "robeval.core.ledger" not in reach and "robeval.core.ledger.central" not in reach
    for name in (
        "robeval.core.ledger.decisions",
        "robeval.core.ledger",
        "robeval.core.ledger.central",
        "robeval.core.profiles",
    ):
        edits[name] = real(name) + "\n\ndef _an_edit():\n    return 42\n"
    edits["robeval.core.ledger.decisions"] = edits["robeval.core.ledger.decisions"].replace(
        "STABLE = ", "STABLE = 0.01 + ", 1
    )
    assert "STABLE = 0.01 + " in edits["robeval.core.ledger.decisions"]
    assert ids() == base
    src = real("robeval.core.nn.training")
    edits["robeval.core.nn.training"] = src.replace("def ", "def _helper():\n    return 0\n\n\ndef ", 1)
    assert ids() == base  # a new helper nothing calls
    tree = ast.parse(src)
    reached = set(identity.code_reach(training.train_rs)["robeval.core.nn.training"])
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in reached)
    name, first = fn.name, fn.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and len(fn.body) > 1:
        first = fn.body[1]  # after the docstring, which identities strip
    lines = src.splitlines(keepends=True)
    lines.insert(first.lineno - 1, " " * first.col_offset + "_unused = None\n")
    edits["robeval.core.nn.training"] = "".join(lines)
    ast.parse(edits["robeval.core.nn.training"])  # the edit is code, not a syntax error
    new = ids()
    assert new[0] != base[0] and new[1] != base[1], name


def test_a_store_config_names_checkout_paths_relatively_and_reads_back_as_this_checkouts(tmp_path):
    """A store written in one checkout means the same in another (a GPU lease's pack): config.json holds
    ``<root>/...`` for paths inside the checkout, and reading it gives this checkout's path again."""
    inside = str(paths.ROOT / "results" / "gpu" / "acr_rs_training")
    from robeval.msd import powerset

    grid = runs.Grid(powerset.toy_cell, [{"x": 1}], store=tmp_path / "g", config={"tsv_dir": inside, "n": 2})
    store.write_store_config(grid.root, powerset.toy_cell, grid.config)
    raw = io.read_json(grid.root / "config.json")
    assert raw["config"] == {"tsv_dir": "<root>/results/gpu/acr_rs_training", "n": 2}
    assert store_config(grid.root / "config.json")["config"] == {"tsv_dir": inside, "n": 2}
    assert identity.config_identity({"tsv_dir": inside, "n": 2}) == identity.config_identity(raw["config"])


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, "65d03bbad65e"),
        ({"epochs": 3, "lr": 0.1, "name": "x"}, "155edbe0a5d0"),
        (
            {
                "nested": {"b": [1, 2, (3, 4)], "a": {"z": None, "y": True}},
                "f": __import__("numpy").float32(0.5),
                "p": __import__("pathlib").Path("/elsewhere/x"),
            },
            "ea2e4748f356",
        ),
        ({"ü": "é", "nan": float("nan")}, "b66ce1b19c2b"),
    ],
)
def test_config_identity_is_the_one_recorded_before_it_serialised_the_config_once(config, expected):
    # the values config_identity gave before it serialised the config once instead of twice (sub-store names)
    assert identity.config_identity(config) == expected
    fn = test_config_identity_is_the_one_recorded_before_it_serialised_the_config_once
    name = f"{fn.__module__}.{fn.__qualname__}"
    assert identity.config_identity(config, fn) == identity.digest(
        {"config": identity.portable_config(config), "fn": name, "code": identity.code_identity(fn)}
    )
