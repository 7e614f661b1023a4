"""Probe G #8 of robeval.acr: read_certification blocked for ever on a FIFO and read a link to /dev/zero until the
memory ran out; such a path is refused before it is opened."""

from __future__ import annotations

import re

import pytest

from fifos import fifo
from robeval import acr
from robeval.acr import files

HEADER = "idx\tlabel\tpredict\tradius\tcorrect\ttime\n"


def test_read_certification_refuses_a_fifo(tmp_path):
    with fifo(tmp_path / "fifo.tsv") as path:
        start = "^" + re.escape(f"path {str(path)!r} is a FIFO (named pipe), not a regular file")
        with pytest.raises(ValueError, match=start + r".*; pass a tab-separated certification file\.$"):
            acr.read_certification(path)


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_read_certification_refuses_a_link_to_a_device(tmp_path, device):
    path = tmp_path / "cert.tsv"
    path.symlink_to(device)
    start = "^" + re.escape(f"path {str(path)!r} is a device (through a link), not a regular file")
    with pytest.raises(ValueError, match=start):
        acr.read_certification(path)


def test_read_certification_refuses_a_file_over_its_cap_and_reads_a_link_to_a_file(tmp_path, monkeypatch):
    real = tmp_path / "real.tsv"
    real.write_text(HEADER + "0\t3\t3\t0.5\t1\t0:00:01.5\n")
    link = tmp_path / "link.tsv"
    link.symlink_to(real)
    assert acr.read_certification(link)["radius"].tolist() == [0.5]  # a link to a regular file is read
    monkeypatch.setattr(files, "CERTIFICATION_MAX", 10)
    start = "^" + re.escape(f"path {str(real)!r} has {real.stat().st_size:,} bytes, more than such a file holds (10")
    with pytest.raises(ValueError, match=start):
        acr.read_certification(real)
