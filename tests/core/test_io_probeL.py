"""Probe L, L7 for the helpers outside grid cells: core.io.load_frame and core.manifest.file_record refuse a FIFO
(which blocked for ever) and a folder (a raw IsADirectoryError) by name, before opening them."""

import re

import pandas as pd
import pytest

from fifos import fifo
from robeval.core.io import NotRegularFileError, load_frame
from robeval.core.manifest import file_record


def test_load_frame_refuses_a_fifo_and_a_folder(tmp_path):
    with fifo(tmp_path / "runs.csv") as f:
        with pytest.raises(
            NotRegularFileError,
            match=re.escape(f"results file '{f}' is a FIFO (named pipe), not a regular file: reading it would block")
            + r".*; pass the CSV file the notebook wrote\.$",
        ):
            load_frame(f)
    with pytest.raises(NotRegularFileError, match=re.escape(f"results file '{tmp_path}' is a folder, not a regular")):
        load_frame(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no such results file\. Results files are written by the notebooks"):
        load_frame(tmp_path / "missing.csv")
    pd.DataFrame({"a": [1, 2]}).to_csv(tmp_path / "ok.csv", index=False)
    assert load_frame(tmp_path / "ok.csv").attrs["source"] == str(tmp_path / "ok.csv")


def test_file_record_refuses_a_fifo_and_a_folder(tmp_path):
    with fifo(tmp_path / "x.csv") as f:
        with pytest.raises(NotRegularFileError, match=re.escape(f"result file '{f}' is a FIFO (named pipe)")):
            file_record(f)
    with pytest.raises(NotRegularFileError, match=re.escape(f"result file '{tmp_path}' is a folder, not a regular")):
        file_record(tmp_path)
    (tmp_path / "ok.csv").write_text("a\n1\n2\n")
    assert file_record(tmp_path / "ok.csv")["rows"] == 2
