"""Findings of probe I (issue 62) in robeval.core: #4 (a FIFO or a device at `robeval grids --pack FILE`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fifos import fifo
from robeval.__main__ import main

GRID_CELLS = ("_cell",)


@pytest.fixture(autouse=True)
def _cells_of_this_file(trust_cells):
    trust_cells(**{__name__.split(".")[0]: Path(__file__).parents[__name__.count(".")]})


def _cell(cell, config):
    return {"y": cell["x"] + 1}


def test_pack_refuses_a_fifo_or_a_device_link_at_out_without_reading_it(tmp_results, tmp_path, capsys):
    """#4: ``pack`` opened an existing ``out`` as xz to see whether it is a pack: a FIFO blocked for ever (with or
    without overwrite), a link to a device never ended. Both are now "not a grid pack", left as they are."""
    from robeval.core import runs

    store = runs.grid_store("smoke", "toy")
    runs.run_grid(_cell, {"x": [1, 2]}, store=store, progress=False)
    dev = tmp_path / "dev.tar.xz"
    os.symlink("/dev/null", dev)
    with fifo(tmp_path / "p.tar.xz") as path:
        for overwrite in (False, True):
            with pytest.raises(
                ValueError, match=rf"^{path} exists and is not a grid pack: it is a FIFO \(named pipe\)"
            ):
                runs.pack([store], path, overwrite=overwrite)
        assert main(["grids", "--profile", "smoke", "--pack", str(path), "--overwrite", "toy"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is not a grid pack: it is a FIFO (named pipe)" in err
        assert "it is left as it is" in err
        assert Path(path).is_fifo()
    with pytest.raises(ValueError, match=rf"^{dev} exists and is not a grid pack: it is a device \(through a link\)"):
        runs.pack([store], dev, overwrite=True)
    assert main(["grids", "--profile", "smoke", "--pack", str(dev), "--overwrite", "toy"]) == 2
    assert "is not a grid pack: it is a device (through a link)" in capsys.readouterr().err
    assert dev.is_symlink() and os.readlink(dev) == "/dev/null"
    # a regular file that is not a pack, and a pack, as before
    other = tmp_path / "other.tar.xz"
    other.write_bytes(b"not xz")
    with pytest.raises(ValueError, match=rf"^{other} exists and is not a grid pack; it is left as it is"):
        runs.pack([store], other, overwrite=True)
    good = tmp_path / "good.tar.xz"
    runs.pack([store], good)
    assert runs.pack([store], good, overwrite=True)["format"]


def test_figure_manifest_text_is_escaped_in_the_gallery_and_figures_md():
    """#3: a figure's ``reproduces`` and ``plotted_by`` reached the gallery (and the notebook pages, FIGURES.md) as
    raw HTML; a backtick in ``plotted_by`` ended its code span."""
    from robeval.core.publish.labels import figure_label
    from robeval.core.publish.markdown import code
    from robeval.core.site.pages import gallery

    e = {
        "figure": "mscr_fig5_x",
        "files": ["mscr_fig5_x.png"],
        "notebook": "01_mscr_2d",
        "reproduces": "MSCR Fig. 5 <img src=x onerror=alert(1)>",
        "data_from": "robeval.mscr.protocol.run_cell_2d",
        "plotted_by": "f` <img src=x onerror=alert(2)> `",
        "caption": "",
        "text_px": 10.0,
    }
    page = gallery([{**e, "label": figure_label(e, None, "default")}], {}, None, "default")
    assert "<img src=x onerror=alert(1)>" not in page and "&lt;img src=x onerror=alert(1)>" in page
    assert "**drawn by** `` f` <img src=x onerror=alert(2)> ` ``" in page
    assert code("a.b") == "`a.b`" and code("x` y") == "``x` y``" and code("`x") == "`` `x ``"
    assert code("a|b\nc", table=True) == "`a\\|b c`"
