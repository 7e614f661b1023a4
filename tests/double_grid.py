"""A two-cell grid of one trusted cell function, shared by the tests of core.runs that need a finished store
(``double_store`` in tests/conftest.py trusts this module: a pack carries data, never code)."""

GRID_CELLS = ("double",)  # the cells of this module
CELLS = [{"x": 1}, {"x": 2}]


def double(cell, config):
    return {"y": cell["x"] * 2}


def run_double(store):
    """Run ``double`` over :data:`CELLS` in ``store`` (serially, no progress bar); the grid's rows."""
    from robeval.core import runs

    return runs.run_grid(double, CELLS, store=store, backend="serial", progress=False)
