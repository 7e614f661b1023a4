"""Compatibility shim so that ``ceml`` 0.7 imports on current JAX.

``ceml/backend/jax/layer.py`` (imported by every ``ceml.sklearn`` model) runs
``from jax.config import config; config.update("jax_enable_x64", True)``. The
module ``jax.config`` was removed in JAX 0.4.25; the configuration object now
lives at ``jax.config`` as an attribute. We register a tiny module under the old
name exposing that object as ``config`` -- nothing else -- before ceml is imported.

Side effect (the same as with an old JAX): ceml switches JAX to 64-bit floats.

Install ceml without its pinned ancient dependencies::

    pip install --no-deps ceml==0.7
    pip install jax jaxlib cvxpy sklearn-lvq   # what ceml.sklearn imports
"""

from __future__ import annotations

import sys
import types

__all__ = ["install_jax_config_shim", "import_ceml_sklearn"]


def install_jax_config_shim() -> None:
    """Make ``from jax.config import config`` work (idempotent)."""
    try:
        import jax
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "ceml needs jax; install it with `pip install jax jaxlib` (see robeval.realworld._ceml_compat)."
        ) from err
    existing = sys.modules.get("jax.config")
    if isinstance(existing, types.ModuleType) and hasattr(existing, "config"):
        return
    shim = types.ModuleType("jax.config")
    shim.config = jax.config
    shim.__doc__ = "robeval shim: the pre-0.4.25 `jax.config` module, exposing `config`."
    sys.modules["jax.config"] = shim


def import_ceml_sklearn():
    """Import and return ``ceml.sklearn`` with the shim applied.

    Raises
    ------
    ImportError
        With the install command when ceml or one of its dependencies is missing.
    """
    install_jax_config_shim()
    try:
        import ceml.sklearn
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"could not import ceml.sklearn ({err}); install with `pip install --no-deps ceml==0.7` "
            "and `pip install jax jaxlib cvxpy sklearn-lvq`."
        ) from err
    return ceml.sklearn
