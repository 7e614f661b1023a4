"""Probe N on the notebook runner (N2): run_all / run_notebook refuse a ``parameters`` that is not a dict
{name: value}, a ``timeout`` that is not whole seconds > 0 (or None), and a ``'profile'`` parameter that contradicts
the ``profile`` argument, each with a TypeError / ValueError naming the argument, before any folder is claimed or
kernel started (they were dict()'s / papermill's / traitlets' errors, some after the output folder was written)."""

import re

import nbformat
import numpy as np
import pytest

from robeval.core import notebooks as NB
from robeval.core.notebooks import runner


@pytest.fixture
def source(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "robeval", "display_name": "robeval", "language": "python"}
    params = nbformat.v4.new_code_cell("profile = 'smoke'\nseed = 0")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("y = 2")]
    path = tmp_path / "src" / "07_tiny.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    return path


@pytest.fixture
def no_kernel(monkeypatch):
    """Fails the test if papermill is reached (the refusal must come first)."""

    def reached(*a, **k):
        raise AssertionError("papermill was reached before the argument check")

    monkeypatch.setattr(runner, "require_papermill", reached)


PARAMS = r"^parameters must be a dict \{name: value\}, e\.g\. \{'seed': 1\}"
TIMEOUT = r"^timeout must be whole seconds > 0, or None \(no limit\), got "


@pytest.mark.parametrize("bad", ["x", ["seed"], 5, ("seed", 1), {1: 2}])
def test_run_all_refuses_parameters_that_are_not_a_dict(bad, no_kernel):
    with pytest.raises(TypeError, match=PARAMS):
        NB.run_all("smoke", only="07", parameters=bad, progress=False)


@pytest.mark.parametrize("bad", ["x", ["seed"], 5, {("seed",): 1}])
def test_run_notebook_refuses_parameters_that_are_not_a_dict(bad, source, tmp_path, no_kernel):
    out = tmp_path / "out"
    with pytest.raises(TypeError, match=PARAMS):
        NB.run_notebook(source, "smoke", parameters=bad, output_dir=out)
    assert not out.exists()  # no folder claimed


@pytest.mark.parametrize("bad", [float("nan"), "x", 2.5, 10.0, True, np.True_, [600]])
def test_run_notebook_refuses_a_timeout_that_is_not_whole_seconds(bad, source, tmp_path, no_kernel):
    out = tmp_path / "out"
    with pytest.raises(TypeError, match=TIMEOUT + r".*pass e\.g\. timeout=600\.$"):
        NB.run_notebook(source, "smoke", timeout=bad, output_dir=out)
    assert not out.exists()


@pytest.mark.parametrize("bad", [0, -1, np.int64(-5)])
def test_run_notebook_refuses_a_timeout_of_no_seconds_even_jupyters_minus_one(bad, source, tmp_path, no_kernel):
    # -1 is jupyter's spelling of "no limit"; robeval's is None (documented in run_notebook's docstring)
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=TIMEOUT + r"-?\d+; pass e\.g\. timeout=600, or timeout=None for no limit\.$"):
        NB.run_notebook(source, "smoke", timeout=bad, output_dir=out)
    assert not out.exists()


def test_run_notebook_refuses_a_profile_parameter_that_contradicts_the_profile(source, tmp_path, no_kernel):
    out = tmp_path / "out"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "parameters sets 'profile' to 'x', but the profile argument is 'smoke'; pass the profile as the profile "
            "argument only, and leave 'profile' out of parameters."
        ),
    ):
        NB.run_notebook(source, "smoke", parameters={"profile": "x"}, output_dir=out)
    assert not out.exists()
    with pytest.raises(ValueError, match="^parameters sets 'profile' to 'x'"):
        NB.run_all("smoke", only="07", parameters={"profile": "x"}, progress=False)


def test_good_arguments_pass_the_checks():
    assert runner.check_run_parameters(None, "smoke") == {}
    given = {"seed": 1, "profile": "smoke"}
    assert runner.check_run_parameters(given, "smoke") == {"seed": 1}
    assert given == {"seed": 1, "profile": "smoke"}  # the caller's dict is not changed
    assert runner.check_timeout(None) is None
    assert runner.check_timeout(np.int64(600)) == 600 and type(runner.check_timeout(np.int64(600))) is int
