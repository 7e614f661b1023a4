"""Issue 62's third probe: a notebook copy written over the notebook it is made from."""

import json
import shutil
from pathlib import Path

import pytest

from robeval.core.notebooks.runner import replot_copy, run_notebook

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "07_realworld_analytical.ipynb"


def test_a_copy_never_replaces_its_own_notebook(tmp_path):
    mine = tmp_path / "mine.ipynb"
    shutil.copy(NOTEBOOK, mine)
    before = mine.read_bytes()
    with pytest.raises(ValueError, match=r"out_dir '.*' is the folder of mine.ipynb itself: its copy would replace"):
        replot_copy(mine, tmp_path)
    with pytest.raises(ValueError, match=r"output_dir '.*' is the folder of mine.ipynb itself"):
        run_notebook(mine, "smoke", output_dir=tmp_path)
    assert mine.read_bytes() == before
    copy = replot_copy(mine, tmp_path / "replot")
    cells = json.loads(copy.read_text())["cells"]
    assert 0 < len(cells) < len(json.loads(before)["cells"])  # the compute cells left out of the copy only
