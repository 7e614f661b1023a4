"""Probe O on the command line and what it reads: `compare` refuses a ledger row with a malformed ``ci``,
``central`` or ``estimate`` on either side, naming the row and the field (S3); a SIGTERM ends a command's worker
processes and prints one line, exit 143 (X1); and minors: a store config whose ``fn`` is not text is named as such,
`short_index` refuses an id listed twice, `savefig` refuses a name too long or starting with '.', and `report`
writes no empty CLAIMS.md / FIGURES.md for a profile with no ledgers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_errors import one_line_error
from robeval.__main__ import main
from robeval.core import paths as project

LEDGERS = Path(__file__).resolve().parents[2] / "results" / "default" / "claims"
NB = "07_realworld_analytical"


@pytest.fixture
def two_folders(tmp_results, tmp_path):
    """This checkout's ledger of notebook 07 (in tmp_results) and a copy as the other run's; returns both files."""
    ours = project.results_dir("default") / "claims"
    ours.mkdir(parents=True)
    other = tmp_path / "other"
    other.mkdir()
    for folder in (ours, other):
        shutil.copy(LEDGERS / f"{NB}.json", folder)
    return ours / f"{NB}.json", other / f"{NB}.json"


@pytest.mark.parametrize(
    "row, field, value, said",
    [
        (11, "ci", "oops", "has the ci 'oops', not a list [low, high] of two numbers"),
        (11, "ci", [1.0], "has the ci [1.0], not a list"),
        (11, "ci", [1.0, "x"], "has the ci [1.0, 'x'], not a list"),
        (11, "ci", [2.0, 1.0], "has the ci [2.0, 1.0], not a list [low, high] of two numbers with low <= high"),
        (11, "ci", [True, 1.0], "has the ci [True, 1.0]"),
        (6, "central", "yes", "has central 'yes', not true or false"),
        (6, "central", 1, "has central 1, not true or false"),
        (7, "estimate", {"v": 1}, "has the estimate {'v': 1} (dict), not a number, text or null"),
        (7, "estimate", [0.5], "has the estimate [0.5] (list)"),
    ],
)
@pytest.mark.parametrize("side", ["ours", "other"])
def test_compare_refuses_a_malformed_row_on_either_side(two_folders, capsys, side, row, field, value, said):
    # S3: ci "oops" and central "yes" in this checkout's ledger: "0 of 0 estimates inside" (the row dropped), rc 0
    ours, other = two_folders
    path = ours if side == "ours" else other
    d = json.loads(path.read_text())
    d["claims"][row][field] = value
    path.write_text(json.dumps(d))
    assert main(["compare", str(other.parent)]) == 2
    rid = d["claims"][row]["id"]
    one_line_error(capsys, f"{path}: claim {rid!r} {said}", "the ledger is damaged")


def test_compare_accepts_every_committed_ledger(tmp_results, capsys):
    """The rows robeval writes pass the new checks: a text or boolean estimate, a ci with infinite ends."""
    from robeval.core.publish.report import compare_ledgers

    assert compare_ledgers(LEDGERS, LEDGERS) == []
    for profile in ("paper", "long", "gpu"):
        folder = LEDGERS.parents[1] / profile / "claims"
        if folder.is_dir() and any(folder.glob("*.json")):
            assert compare_ledgers(folder, folder) == []


def _alive(pid: int) -> bool:
    try:
        state = next(
            line.split()[1]
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("State:")
        )
    except (OSError, StopIteration):
        return False
    return state != "Z"


SLOW_COMMAND = """
import sys, time
import robeval.__main__ as cli
from robeval.core.runs.parallel import imap

def slow(args):  # a command whose work runs in two worker processes (as adopt --jobs 2 recomputes its sample)
    print("started", flush=True)
    for _ in imap(time.sleep, [(60,)] * 4, n_jobs=2):
        pass
    return 0

cli._main = slow
sys.exit(cli.main(["adopt", "x"]))
"""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_sigterm_ends_the_worker_processes_and_is_one_line(child_processes):
    # X1: SIGTERM to `robeval adopt --jobs 2` left its loky workers running, re-parented to PID 1, for minutes
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(project.find_root() / "lib"), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_COMMAND], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    workers: list[int] = []
    try:
        assert proc.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the executor's two workers
            workers = child_processes(proc.pid, b"popen_loky")  # the loky workers
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, "no worker processes started"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 143, err
        assert err == "robeval adopt: terminated (SIGTERM); finished files are kept, a rerun resumes.\n", err
        deadline = time.monotonic() + 20
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)], "worker processes outlived the command"
    finally:
        for pid in [proc.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_sigterm_in_process_is_handled_as_an_interrupt(monkeypatch, capsys):
    import robeval.__main__ as cli

    def terminated(args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here
        raise AssertionError("SIGTERM was not handled")

    def unhandled(signum, frame):  # the test's own: without robeval's handler the SIGTERM would end pytest
        raise AssertionError("SIGTERM reached the handler in place before the command")

    before = signal.signal(signal.SIGTERM, unhandled)
    try:
        monkeypatch.setattr(cli, "_main", terminated)
        assert main(["report"]) == 143
        one_line_error(capsys, "robeval report: terminated (SIGTERM)")
        assert signal.getsignal(signal.SIGTERM) is unhandled  # restored after the command
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize("fn, said", [(["x.y"], "its 'fn' is list ['x.y'], not text"), (3, "its 'fn' is int 3")])
def test_a_store_config_whose_fn_is_not_text_says_so(tmp_path, fn, said):
    # minor: "it needs 'fn' ... it has ['code', 'config', 'fn']" listed 'fn' among the keys it has
    from robeval.core.runs.trust import store_config

    path = tmp_path / "config.json"
    path.write_text(json.dumps({"fn": fn, "config": {}, "code": "x"}))
    with pytest.raises(ValueError, match="is not a grid store's config") as exc:
        store_config(path)
    assert said in str(exc.value) and "it has" not in str(exc.value)


def test_short_index_refuses_an_id_listed_twice():
    # minor: a ledger with an id listed twice was shown (compare and verify refuse it)
    from robeval.core import short_index

    rows = [{"id": "a", "verdict": "reproduced"}, {"id": "a", "verdict": "contradicted"}]
    with pytest.raises(ValueError, match=r"^rows list the id 'a' twice \(rows 0 and 1\)"):
        short_index(rows)
    import pandas as pd

    with pytest.raises(ValueError, match="twice"):
        short_index(pd.DataFrame(rows))
    assert "a" in short_index(rows[:1]).to_markdown()


@pytest.mark.parametrize("name, said", [("x" * 300, "has 300 characters"), (".", "starts with '.'"), ("..x", "'.'")])
def test_savefig_refuses_a_name_too_long_or_hidden(tmp_results, name, said):
    # minor: a 300-character name gave a raw OSError naming a temporary file; "." wrote hidden ..png / ..pdf
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robeval.core import savefig

    fig = plt.figure()
    try:
        with pytest.raises(ValueError, match="^Figure name") as exc:
            savefig(fig, name, "smoke", reproduces="X", data_from="robeval.mscr.protocol.run_cell_2d", notebook="n")
    finally:
        plt.close(fig)
    assert said in str(exc.value) and "at most 200" in str(exc.value)
    assert not project.figures_dir("smoke").exists() or not list(project.figures_dir("smoke").iterdir())


def test_report_of_a_profile_without_ledgers_writes_no_empty_files(tmp_results, capsys):
    # minor: `robeval report --profile gpu` with no ledgers created CLAIMS.md and FIGURES.md saying "no claims yet"
    assert main(["report", "--profile", "gpu"]) == 0
    assert "No claims recorded yet" in capsys.readouterr().out
    folder = project.results_dir("gpu", create=False)
    assert not (folder / "CLAIMS.md").exists() and not (folder / "FIGURES.md").exists()
