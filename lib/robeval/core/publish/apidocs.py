"""The API reference's docstring filter: Sphinx cross-reference roles become Markdown inline code.

The docstrings are numpy style and name other objects with Sphinx roles (the role ``class``, ``func``, ``meth``,
``data``, ``attr`` or ``mod`` between colons, then the name in backticks); mkdocstrings renders Markdown, where
such a role shows as raw text. :class:`SphinxRoles` is a griffe extension (``extensions: [robeval.core.publish.apidocs]``
of the mkdocstrings handler in ``mkdocs.yml``) that rewrites every docstring with
:func:`sphinx_roles_to_markdown` before it is parsed: the sources keep their roles (read by ``help()`` and
editors), the website shows the name as code.
"""

from __future__ import annotations

import re

try:  # griffe comes with the docs extra; the converter itself needs nothing
    from griffe import Extension as _Extension
except ImportError:  # pragma: no cover - exercised only without the docs extra
    _Extension = object

ROLES = ("class", "func", "meth", "data", "attr", "mod", "obj", "exc", "const")
# :func:`x`, :py:func:`x`, :func:`~a.b.x`, :func:`title <a.b.x>`
_ROLE = re.compile(r":(?:py:)?(?:" + "|".join(ROLES) + r"):`(?P<tilde>~?)(?P<body>[^`]+)`")
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)


def _replace(match: re.Match) -> str:
    body = match["body"].strip()
    titled = _TITLED.match(body)
    if titled and titled["title"]:
        text = titled["title"]
    else:
        text = body.lstrip("!")
        if match["tilde"]:
            text = text.rsplit(".", 1)[-1]
    return f"`{text}`"


def sphinx_roles_to_markdown(text: str) -> str:
    """``text`` with every Sphinx Python cross-reference role written as Markdown inline code.

    The role's target becomes the code (``Ledger`` for the class role on ``Ledger``); a ``~`` before the target
    keeps its last name only (``paired_ci`` for ``~robeval.core.stats.paired_ci``); an explicit title
    (``title <target>``) wins. Other roles (``math``) are left alone.

    Parameters
    ----------
    text : str
        A docstring.

    Returns
    -------
    str
        The docstring with the roles of :data:`ROLES` replaced.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a docstring), got {type(text).__name__}.")
    return _ROLE.sub(_replace, text)


class SphinxRoles(_Extension):
    """Griffe extension: rewrite the Sphinx roles of every docstring as it is loaded."""

    def on_instance(self, *, obj, **kwargs) -> None:  # griffe also passes node and agent
        docstring = getattr(obj, "docstring", None)
        if docstring is not None and docstring.value:
            docstring.value = sphinx_roles_to_markdown(docstring.value)
