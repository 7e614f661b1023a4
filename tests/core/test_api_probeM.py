"""Probe M15 and the minors: exported functions name a bad argument in one line (TypeError / ValueError naming
the argument as their signature does) instead of a deep AttributeError, KeyError, OverflowError, OSError or
Python's own words."""

import re

import pytest

import robeval.core as C
import robeval.core.ledger as LG
import robeval.core.notebooks as NB
import robeval.core.runs as R
from double_grid import double
from robeval.core.catalog import notebook_paths
from robeval.core.stats import mean_interval


@pytest.fixture
def store(tmp_path):
    R.run_grid(double, [{"x": 1}], store=tmp_path / "s", backend="serial", progress=False)
    return tmp_path / "s"


def test_notebook_helpers_name_their_arguments(tmp_path):
    with pytest.raises(TypeError, match=r"^cfg must be a notebook's resolved settings .*got NoneType"):
        NB.ledger_for(None, "smoke")  # AttributeError: 'NoneType' object has no attribute 'meta'
    with pytest.raises(TypeError, match=r"^only must name notebooks as text .*got 7"):
        NB.verify("default", only=[7])  # AttributeError: 'int' object has no attribute 'strip'
    with pytest.raises(TypeError, match=r"^only must name notebooks as text"):
        notebook_paths([1])
    hist = ["a = 1", "# Parameters\nb = 2"]
    with pytest.raises(TypeError, match=r"^declared must be a list of parameter names, got NoneType"):
        NB.check_injected_parameters(hist, declared=None)  # 'NoneType' object is not iterable
    with pytest.raises(TypeError, match=r"^declared must be a list of parameter names, got str 'bc'"):
        NB.check_injected_parameters(hist, declared="bc")  # read as the names b, c
    with pytest.raises(TypeError, match=r"^path must be a folder or file path"):
        NB.check_replaceable(5)
    with pytest.raises(ValueError, match=r"is a folder, not a notebook"):
        NB.check_replaceable(tmp_path)  # "... has 2 hard links" (it is a folder)


def test_runs_helpers_name_their_arguments(store, tmp_path):
    with pytest.raises(TypeError, match=r"^store must be a folder or file path"):
        R.store_status(5)
    with pytest.raises(TypeError, match=r"^lock must be a folder or file path"):
        R.claim_state(5)
    for bad, kind in (("x", TypeError), (-1, ValueError)):
        with pytest.raises(kind, match=r"^lock_timeout must be a number of seconds > 0"):
            R.store_status(store, lock_timeout=bad)
        with pytest.raises(kind, match=r"^lock_timeout must be a number of seconds > 0"):
            R.claim_state(tmp_path / "x.lock", lock_timeout=bad)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match=r"^store .*afile is a file, not a grid store folder"):
        R.store_status(tmp_path / "afile")  # []
    with pytest.raises(ValueError, match=r"^.*nope is not a grid sub-store \(it has no config\.json\)"):
        R.is_current_substore(tmp_path / "nope")  # FileNotFoundError
    with pytest.raises(TypeError, match=r"^checksums must be \{sub-store: \{file name: sha256\}\}"):
        R.adopt(store, checksums="x", progress=False)  # 'str' object has no attribute 'get'
    with pytest.raises(TypeError, match=r"^recompute_all must be"):
        R.adopt(store, progress=False, recompute_all="no")  # read as True: every cell recomputed
    with pytest.raises(TypeError, match=r"^progress must be"):
        R.adopt(store, progress="no")  # read as True: a bar shown
    with pytest.raises(TypeError, match=r"^seed must be a whole number >= 0"):
        R.adopt(store, seed="x", progress=False)
    with pytest.raises(TypeError, match=r"^config must be a mapping of setting names to JSON values"):
        R.run_grid(double, [{"x": 1}], store=store, config="abc", progress=False)


def test_adopt_pack_and_unpack_name_a_file_or_folder_in_the_way(store, tmp_path):
    pack = tmp_path / "p.tar.xz"
    R.pack([store], pack)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ValueError, match=r"^the store folder for 's' \(from stores\) .*afile is a file, not a folder"):
        R.adopt_pack(pack, {"s": tmp_path / "afile"}, progress=False)  # NotADirectoryError
    sub = next(store.glob("config-*")).name
    cell = next(p.name for p in (store / sub).glob("x=*.json"))
    (tmp_path / "u" / "s" / sub / cell).mkdir(parents=True)
    with pytest.raises(
        ValueError, match=rf"^dest .*u holds a folder where the pack's file s/{sub}/{re.escape(cell)} goes"
    ):
        R.unpack(pack, tmp_path / "u")  # IsADirectoryError
    assert not (tmp_path / "u" / "s" / sub / "config.json").exists()  # nothing extracted


def test_format_age_refuses_a_negative_age():
    with pytest.raises(ValueError, match=r"^seconds must be a number of seconds >= 0 .*got -1\.$"):
        R.format_age(-1)  # '-1 s'


def test_format_age_of_a_huge_age_is_hours():
    assert R.format_age(10**400) == "2.78e+296 h"  # OverflowError: integer division result too large for a float
    assert R.format_age(7200) == "2.0 h" and R.format_age(42) == "42 s"


def test_ledger_helpers_name_their_arguments():
    iv = mean_interval([0.9, 0.91, 0.92])
    with pytest.raises(TypeError, match=r"the paper value of cells\['c'\] is 'abc', not a finite number"):
        LG.table_differences({"c": ("abc", iv)})  # could not convert string to float: 'abc'
    for pv in (None, True, float("nan")):
        with pytest.raises(TypeError, match=r"the paper value of cells\['c'\]"):
            LG.table_differences({"c": (pv, iv)})
    with pytest.raises(ValueError, match=r"evidence \['replication'\] is not one of"):
        LG.check_verdict(["replication"], "reproduced")  # unhashable type: 'list'
    with pytest.raises(ValueError, match=r"^Unknown paper \['mscr'\]"):
        C.Ledger(["mscr"], "01_mscr_2d", "default")
    led = C.Ledger("mscr", "01_mscr_2d", "default")
    with pytest.raises(ValueError, match=r"^a: unit \['training runs'\] is not one of"):
        led.value("a", "s", "d", paper=0.9, margin=0.1, estimate=0.9, evidence="replication", unit=["training runs"])


def test_short_index_checks_its_links_and_reads_central_as_a_bool():
    rows = [{"id": "a", "verdict": "reproduced"}]
    with pytest.raises(TypeError, match=r"links\['a'\] is \[\('x',\)\]"):
        C.short_index(rows, links={"a": [("x",)]})  # not enough values to unpack (expected 2, got 1)
    text = C.short_index([{"id": "a", "verdict": "reproduced", "central": "no"}]).to_markdown()
    assert "★" not in text  # a text "no" is not central
    assert "★" in C.short_index([{"id": "a", "verdict": "reproduced", "central": True}]).to_markdown()
    with pytest.raises(TypeError, match=r"^central_only must be True or False, got 'no'"):
        NB.show_ledger(C.Ledger("mscr", "01_mscr_2d", "default"), central_only="no")


def test_minor_helpers_outside_the_packages_init_name_their_arguments():
    from robeval.core.catalog import notebook_paths, settings_estimate
    from robeval.core.env import temporary_env
    from robeval.core.manifest import check_manifest
    from robeval.core.profiles import describe, experiments, measured_seconds, profile_table

    with pytest.raises(TypeError, match=r"^settings must be resolved settings"):
        describe(None)  # AttributeError
    with pytest.raises(TypeError, match=r"^executed must map a profile to its notebooks"):
        profile_table(["x"])  # AttributeError
    with pytest.raises(ValueError, match=r"prod"):
        measured_seconds(experiments()[0], "prod")  # None
    with pytest.raises(ValueError, match=r"prod"):
        settings_estimate(notebook_paths()[0], "prod")  # ''
    with pytest.raises(ValueError, match=r"^values: '' is no environment variable name"):
        with temporary_env({"": "x"}):  # OSError [Errno 22]
            pass
    with pytest.raises(TypeError, match=r"^ledger must be a saved ledger"):
        check_manifest(None, "x.json", "default")  # AttributeError
    with pytest.raises(ValueError, match=r"and have at most 200 characters"):
        R.grid_store("smoke", "x" * 300)  # failed later as "File name too long"


def test_cli_minors_are_refused_in_one_line(tmp_results, tmp_path, capsys):
    from cli_errors import one_line_error
    from robeval.__main__ import main

    (tmp_path / "etc" / "ssl").mkdir(parents=True)
    assert main(["grids", "--profile", "smoke", "--from", str(tmp_path / "etc")]) == 2  # an empty table, rc 0
    one_line_error(capsys, "holds no grid store (a folder with config-*/config.json)")
    assert main(["plan", "--budget-min", "45", "--also", "45@1", "--also", "45@1"]) == 2
    one_line_error(capsys, "--also 45@1 is given twice")
    with pytest.raises(ValueError, match=r"^--names 'contrast,,fog' has an empty name between commas"):
        from robeval.transforms.release import parse_names

        parse_names("contrast,,fog")  # the empty name skipped


def test_more_minor_runs_and_notebook_arguments(store, tmp_path):
    from robeval.core.profiles import resolve

    claim = R.claim_state(tmp_path / "x.lock")
    with pytest.raises(ValueError, match=r"claim 0 has the state 'bogus', which claim_state\(\) never gives"):
        R.waiting_message([{**claim, "state": "bogus"}])
    for rows in (None, "x"):
        with pytest.raises(TypeError, match=r"^rows must be a list of rows \(dicts\)"):
            R.rows_digest(rows)
    for kw in ({"desc": 5}, {"resources": "GPU"}, {"scheduler": 5}):
        with pytest.raises(TypeError, match=rf"^{next(iter(kw))} must be"):
            R.run_grid(double, [{"x": 1}], store=store, backend="serial", progress=False, **kw)
    pack = tmp_path / "p.tar.xz"
    R.pack([store], pack)
    with pytest.raises(TypeError, match=r"^stores must be a mapping"):
        R.rebind_pack(pack, 5)
    with pytest.raises(ValueError, match=r"^cfg was resolved under the profile 'smoke', not 'paper'"):
        NB.ledger_for(resolve("realworld_analytical", "smoke"), "paper")


def test_load_released_names_a_folder_or_fifo_as_what_it_is(tmp_path):
    # minor: a FIFO or a folder named <name>.npy -> "... does not exist. Download and extract the release ..."
    from robeval.transforms.release import load_released

    (tmp_path / "fog.npy").mkdir()
    with pytest.raises(ValueError, match=r"fog\.npy is a folder, not a regular file; pass the folder holding"):
        load_released(tmp_path, "fog")
