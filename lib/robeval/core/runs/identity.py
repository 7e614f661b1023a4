"""What names a grid's results: the code a cell function runs and the config it runs with.

A grid's sub-store (:class:`robeval.core.runs.Grid`) and a cached network (09's and 02's weights) are named by
:func:`config_identity`: the config, the cell function's qualified name and :func:`code_identity`. A result
computed under another identity is never served for this one, so an identity must change whenever the
computation may change, and should change for nothing else: every spurious change discards finished cells, and
cells computed on a lent GPU, which a recomputation does not reproduce bit for bit, cannot be recovered at all.

The code identity is the digest of the *definitions the cell function can reach*, not of whole modules:

* the universe is the function's module and every ``robeval`` module it imports, transitively (imports inside
  functions included);
* starting from the function's own top-level definition, every identifier a reached definition names (a name,
  an attribute, or a string constant that is a (dotted) name, as ``importlib`` and ``getattr`` take them) reaches
  every top-level definition of that name in the universe: functions and classes whole, assignments, imports;
  the match is by name alone, so it over-approximates what runs, never under-approximates it;
* an import statement counts where its module's own code names what it imports; statements that are not
  definitions (a registration call, an ``if``/``try`` at module level; ``if TYPE_CHECKING:`` excepted) and
  definitions whose decorator may register them (any decorator outside :data:`PURE_DECORATORS`) count for every
  module that is imported: the function's own, what an imported module imports at its top level, what a reached
  definition imports inside it;
* comments and docstrings are not (documenting code keeps its results); the text hashed is ``ast.dump`` as
  Python 3.12 writes it (:func:`portable_dump`), so an identity is the same on every Python from 3.9 on;
* this module is not part of any identity: it names results, it computes none (a change of it can only miss a
  result, never serve a stale one).

A function whose module has no source to read this way (one defined in a script run as ``python script.py`` or in
a notebook: its module is ``__main__``) is named by its own source as :mod:`inspect` reads it, the sources of the
functions and classes of its module it names (transitively), the identities of the robeval code it names, and
the JSON text of the other values it names (other objects by their type). A function whose code cannot be named
at all — a lambda, a closure (the values it captured are not code), a builtin, a ``functools.partial`` or another
callable object — is refused by a grid before anything runs (:func:`identity_error`).

So an edit of the ledger's decision rules changes no identity of a training grid that never calls them, while an
edit of anything a cell can run — its module, a helper in another module, a constant it reads — does.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
import os
import re
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from robeval.core.io import to_json

# decorators that only wrap or describe the function they decorate; any other decorator may register it
# somewhere (a dict of corruptions, a dispatcher), so a definition it decorates is always part of an identity
PURE_DECORATORS = frozenset(
    {
        "dataclass",
        "lru_cache",
        "cache",
        "cached_property",
        "property",
        "staticmethod",
        "classmethod",
        "wraps",
        "contextmanager",
        "total_ordering",
        "overload",
        "no_grad",
        "inference_mode",
        "abstractmethod",
        "setter",
    }
)
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")  # a name in a string: getattr, importlib
_TYPE_PARAMS_NODES = ("FunctionDef", "AsyncFunctionDef", "ClassDef")  # the nodes Python 3.12 gave type_params


def digest(obj: Any, n: int = 12) -> str:
    return hashlib.sha256(to_json(obj, indent=None, sort_keys=True).encode()).hexdigest()[:n]


def _map_strings(obj: Any, fn: Callable[[str], str]) -> Any:
    """``obj`` (JSON-like) with ``fn`` applied to every string in it; tuples become lists."""
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, Mapping):
        return {k: _map_strings(v, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_map_strings(v, fn) for v in obj]
    return obj


def _relocatable(obj: Any, anchors: tuple[tuple[str, str], ...]) -> Any:
    """``obj`` with every string that is, or lies under, an anchor's path rewritten to the anchor's tag (as a
    POSIX path)."""

    def rewrite(text: str) -> str:
        for prefix, tag in anchors:
            if text == prefix or text.startswith(prefix + os.sep):
                return tag + text[len(prefix) :].replace(os.sep, "/")
        return text

    return _map_strings(obj, rewrite)


def _anchors() -> tuple[tuple[str, str], ...]:
    from robeval.core.paths import cache_dir, find_root

    root = find_root()
    return ((str(cache_dir()), "<cache>"),) + (((str(root), "<root>"),) if root is not None else ())


def portable_config(config: Mapping[str, Any]) -> dict:
    """``config`` with paths inside the cache or the checkout written as ``<cache>/...`` and ``<root>/...``: what a
    store's ``config.json`` holds, so a store (a GPU lease's pack) means the same in another checkout."""
    return _relocatable(dict(config), _anchors())


def local_config(config: Mapping[str, Any]) -> dict:
    """The inverse of :func:`portable_config` in this checkout: ``<cache>/...`` and ``<root>/...`` made paths."""
    back = tuple((tag, path) for path, tag in _anchors())

    def expand(text: str) -> str:
        for tag, path in back:
            if text == tag or text.startswith(tag + "/"):
                return path + text[len(tag) :].replace("/", os.sep)
        return text

    return _map_strings(dict(config), expand)


def config_identity(config: Mapping[str, Any], fn: Callable | None = None) -> str:
    """The hash naming a grid's sub-store: the config (keys sorted, checkout/cache paths made relative) and,
    given ``fn``, its qualified name and :func:`code_identity`. TypeError naming ``config`` unless it is a mapping
    of setting names to JSON values (numbers, text, lists, dicts, paths)."""
    what = "config must be a mapping of setting names to JSON values (numbers, text, lists, dicts, paths)"
    if not isinstance(config, Mapping):
        raise TypeError(f"{what}, e.g. {{'epochs': 3}}; got {type(config).__name__} {str(config)[:60]}.")
    ident: dict[str, Any] = {}
    if fn is not None:  # text only: what the one serialisation below refuses is the config's
        ident["fn"] = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
        ident["code"] = code_identity(fn)
    try:
        ident["config"] = portable_config(config)
        return digest(ident)  # keys sorted: the same text whatever order they were set in
    except RecursionError:
        raise TypeError(f"{what}; it is nested too deeply to be named (past Python's recursion limit).") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}; {exc}: pass what the object is made from (its settings) instead.") from None


def portable_dump(node) -> str:
    """``ast.dump(node)`` exactly as Python 3.12 writes it (fields annotated, no positions), on any Python >= 3.9.

    ``ast.dump``'s text differs between versions (3.12 adds ``type_params=[]`` to every function and class, 3.13
    leaves out empty lists and None), so a digest of it would name a grid differently under another Python.
    Checked equal to 3.12's own text over every module of lib/, tests/ and benchmarks/ on 3.11, 3.12 and 3.13
    (a sample is pinned by ``tests/core/test_identity.py``). The parser itself is not emulated: 3.12 ends an
    f-string format spec whose last part is a replacement field with an empty Constant, so such specs are kept out
    of lib/ (a test)."""
    if isinstance(node, ast.AST):
        cls = type(node)
        args = []
        for name in node._fields:
            try:
                value = getattr(node, name)
            except AttributeError:
                continue
            if value is None and getattr(cls, name, ...) is None:  # an optional field left out, as ast.dump does
                continue
            args.append(f"{name}={portable_dump(value)}")
        if cls.__name__ in _TYPE_PARAMS_NODES and "type_params" not in node._fields:
            args.append("type_params=[]")
        return f"{cls.__name__}({', '.join(args)})"
    if isinstance(node, list):
        return f"[{', '.join(portable_dump(x) for x in node)}]"
    return repr(node)


def _module_source(name: str) -> str | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin).read_text(encoding="utf-8")


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _robeval_imports(tree: ast.AST, module: str) -> set[str]:
    out = set()
    package = module.rsplit(".", 1)[0] if "." in module else module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "robeval"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            if base.split(".")[0] != "robeval":
                continue
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}  # `from robeval.x import module`
    return out


@functools.lru_cache(maxsize=512)
def _parsed(name: str) -> ast.Module | None:
    """The module's syntax tree without docstrings (None for a package without source, or no module)."""
    try:
        src = _module_source(name)
    except (ImportError, ValueError):
        return None
    return None if src is None else _strip_docstrings(ast.parse(src))


def _universe(module: str) -> list[str]:
    """``module`` and every robeval module it imports, transitively, sorted."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = _parsed(name)
        if tree is not None:
            todo.extend(_robeval_imports(tree, name) - seen)
    return sorted(n for n in seen if _parsed(n) is not None)


def _decorator_name(node: ast.AST) -> str:
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _type_checking_only(stmt: ast.stmt) -> bool:
    """``if TYPE_CHECKING:`` (imports for annotations only: never run)."""
    return isinstance(stmt, ast.If) and "TYPE_CHECKING" in {
        n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in ast.walk(stmt.test)
    }


def _definitions(stmt: ast.stmt) -> list[str] | None:
    """The names a top-level statement defines, or None when it is not a plain definition (it runs when its
    module is imported, named or not)."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if any(_decorator_name(d) not in PURE_DECORATORS for d in stmt.decorator_list):
            return None  # a decorator that may register it: it can run without being named
        return [stmt.name]
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        return names or None
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names]
    return None


def _identifiers(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and _DOTTED.fullmatch(n.value.strip()):
            out.update(n.value.strip().split("."))
    return out


def _reach(module: str, name: str) -> list[tuple[str, ast.stmt]]:
    """``(module, statement)`` of every top-level statement the definition ``name`` of ``module`` can reach, in a
    fixed order (all of the universe when ``module`` has no top-level definition ``name``). A name reaches the
    definitions of that name in every module of the universe (functions, classes, assignments), and the import
    statements of that name in the module that names it; the statements that run on import (anything but a
    definition) count for every module that is imported: ``module`` itself, what an imported module imports at its
    top level, what a reached definition imports."""
    universe = _universe(module)
    if module not in universe:  # no source to read (``__main__`` of ``python -c``, a compiled module)
        return []
    defs: dict[str, list[tuple[str, int]]] = {}  # name -> definitions (any module)
    imports: dict[tuple[str, str], list[int]] = {}  # (module, name) -> that module's import statements of it
    on_import: dict[str, list[int]] = {}  # module -> statements that run when it is imported
    for mod in universe:
        for i, stmt in enumerate(_parsed(mod).body):
            if _type_checking_only(stmt):
                continue
            names = _definitions(stmt)
            if names is None:
                on_import.setdefault(mod, []).append(i)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for n in names:
                    imports.setdefault((mod, n), []).append(i)
            elif mod != __name__:  # this module names results, it computes none
                for n in names:
                    defs.setdefault(n, []).append((mod, i))
    start = [(module, i) for i, stmt in enumerate(_parsed(module).body) if name in (_definitions(stmt) or ())]
    if not start:  # no top-level definition to start from (a lambda, a callable object): all of the universe
        start = [(m, i) for m in universe for i in range(len(_parsed(m).body))]
    in_universe = set(universe)
    reached: set[tuple[str, int]] = set()
    loaded: set[str] = set()
    todo: list[tuple[str, int]] = []

    def reach(key) -> None:
        if key not in reached:
            reached.add(key)
            todo.append(key)

    def load(mod: str) -> None:
        if mod in in_universe and mod not in loaded:
            loaded.add(mod)
            for i in on_import.get(mod, ()):
                reach((mod, i))
            for stmt in _parsed(mod).body:  # its top-level imports run with it
                if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                    for m in _robeval_imports(stmt, mod):
                        load(m)

    load(module)
    for key in start:
        reach(key)
    while todo:
        mod, i = todo.pop()
        stmt = _parsed(mod).body[i]
        for m in _robeval_imports(stmt, mod):  # an import inside a reached definition runs when it runs
            load(m)
        for ident in _identifiers(stmt):
            for key in defs.get(ident, ()):
                reach(key)
            for j in imports.get((mod, ident), ()):
                reach((mod, j))
    return [(m, _parsed(m).body[i]) for m, i in sorted(reached)]


@functools.lru_cache(maxsize=512)
def _reach_digest(module: str, name: str) -> str:
    parts = [f"{m}:{portable_dump(s)}" for m, s in _reach(module, name)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _top_name(fn: Callable) -> tuple[str | None, str | None]:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    return module, (qualname.split(".")[0] if qualname else None)


_FIX = (
    "define it with `def` at the top level of a .py file (an importable module, or a script) and pass what it "
    "varies through the cells or the config"
)


def _label(fn: Any) -> str:
    """``fn`` as a message names it: its module and qualified name, else its repr."""
    name = getattr(fn, "__qualname__", None)
    return f"{getattr(fn, '__module__', None) or '?'}.{name}" if isinstance(name, str) else repr(fn)[:80]


def _kind_error(fn: Any) -> str | None:
    """Why ``fn`` is not a function whose code can be named (a lambda, a closure, not a ``def`` function), or None."""
    if not inspect.isfunction(fn):
        return f"{_label(fn)} is a {type(fn).__name__}, not a function defined with def, so its code cannot be named"
    if fn.__name__ == "<lambda>":
        return f"{_label(fn)} is a lambda, whose code cannot be told apart from another lambda's of its module"
    if fn.__closure__:
        captured = ", ".join(fn.__code__.co_freevars)
        return (
            f"{_label(fn)} is a closure: it captures {captured} from the function that made it, values that are "
            "not part of its code, so two of them would share one store"
        )
    return None


def identity_error(fn: Any) -> str | None:
    """Why :func:`code_identity` cannot name the code of the grid cell function ``fn`` (a grid of it could serve
    results of other code), with the fix; None when it can: a plain ``def`` function, not a closure, of a module
    whose source is read, or whose own source :mod:`inspect` reads (a script's or a notebook's)."""
    problem = _kind_error(fn)
    if problem is None and _parsed_or_none(getattr(fn, "__module__", None)) is None:
        try:
            _source_parts(fn, set())
        except ValueError as exc:
            problem = str(exc)
    return None if problem is None else f"the cell function {problem}; {_FIX}."


def _parsed_or_none(module: str | None) -> ast.Module | None:
    """:func:`_parsed` of ``module``, None without a module name."""
    return _parsed(module) if module else None


def _source_parts(fn: Any, seen: set) -> list[str]:
    """The texts naming ``fn`` by its own source (see this module's docstring, for a module whose source is not
    read): its syntax tree and what the names it uses are bound to in its globals. ValueError when the source of
    ``fn`` or of a function of its module it names cannot be read."""
    key = f"{getattr(fn, '__module__', None)}.{getattr(fn, '__qualname__', '?')}"
    if key in seen:
        return []
    seen.add(key)
    try:
        tree = _strip_docstrings(ast.parse(textwrap.dedent(inspect.getsource(fn))))
    except (OSError, TypeError, SyntaxError, IndentationError) as exc:
        raise ValueError(f"{_label(fn)} has no source to read ({type(exc).__name__}: {exc})") from None
    parts = [f"{key}:{portable_dump(tree)}"]
    names = _identifiers(tree)
    scope = getattr(fn, "__globals__", None) or vars(inspect.getmodule(fn) or inspect)
    for name in sorted(names):
        if name in scope:
            parts.extend(_bound_parts(name, scope[name], getattr(fn, "__module__", None), names, seen))
    return parts


def _bound_parts(name: str, value: Any, module: str | None, names: set[str], seen: set) -> list[str]:
    """The texts naming what the global ``name`` is bound to, for :func:`_source_parts`: a function or class of
    ``module`` by its source, robeval code by its :func:`code_identity`, a robeval module by the attributes of it
    that ``names`` names, other code by its name, any other value by its JSON text (else its type)."""
    if inspect.isfunction(value) or inspect.isclass(value):
        where = getattr(value, "__module__", None) or "?"
        if where == module:
            return [f"{name}=", *_source_parts(value, seen)]
        if where.split(".")[0] == "robeval":
            return [f"{name}={where}.{value.__qualname__}:{code_identity(value)}"]
        return [f"{name}={where}.{getattr(value, '__qualname__', '?')}"]
    if inspect.ismodule(value):
        parts = [f"{name}=module {value.__name__}"]
        if value.__name__.split(".")[0] == "robeval" and f"module {value.__name__}" not in seen:
            seen.add(f"module {value.__name__}")
            for attr in sorted(names):
                if attr in vars(value):
                    parts.extend(_bound_parts(f"{name}.{attr}", vars(value)[attr], module, names, seen))
        return parts
    if callable(value):
        return [f"{name}={type(value).__module__}.{type(value).__qualname__}"]
    try:
        return [f"{name}={to_json(value, indent=None, sort_keys=True)}"]
    except (TypeError, ValueError, RecursionError):
        return [f"{name}: {type(value).__module__}.{type(value).__qualname__}"]


def code_identity(fn: Callable) -> str:
    """A digest (16 hex digits) of the code ``fn`` can run: the top-level definitions it reaches in its module and
    the robeval modules that module imports (rules in this module's docstring), without comments and docstrings,
    the same on every Python; for a function of a module without readable source (a script's, a notebook's), its
    own source and what it names. "unknown" for an object without a module. ValueError (:func:`identity_error`)
    for a function of such a module whose code cannot be named (a lambda, a closure, no source)."""
    module, name = _top_name(fn)
    if not module:
        return "unknown"
    if _parsed(module) is not None:
        return _reach_digest(module, name)[:16]
    problem = identity_error(fn)
    if problem is not None:
        raise ValueError(problem)
    return hashlib.sha256("\n".join(_source_parts(fn, set())).encode()).hexdigest()[:16]


def code_reach(fn: Callable) -> dict[str, list[str]]:
    """``{module: [top-level names]}`` that :func:`code_identity` of ``fn`` covers (statements that define no
    name are listed as ``<line N>``): what an edit must leave alone to keep ``fn``'s results."""
    module, name = _top_name(fn)
    out: dict[str, list[str]] = {}
    for m, s in _reach(module, name):
        out.setdefault(m, []).extend(_definitions(s) or [f"<line {s.lineno}>"])
    return out


def clear_caches() -> None:
    """Forget parsed sources and digests (after editing a module in the same process, as tests do)."""
    _parsed.cache_clear()
    _reach_digest.cache_clear()
