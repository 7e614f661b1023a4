"""The long profile's chunk driver (issue 63): ``benchmarks/cpu_chunks.py`` over ``benchmarks/gpu_profile.py``.

The plan parses and refuses a malformed one; a chunk's state comes from the part summaries committed beside its
packs (done only when its notebook finished, started when a part was stopped by its deadline); the next chunk is
the first started or ready one; a part's packs are filed under their chunk names, which the lease driver adopts in
plan order; notebook parameters parse as ``robeval run -p`` parses them. The real chunks run for hours (they are
recorded in docs/scale.md); here the driver runs one with a deadline that lets nothing start.
"""

import importlib
import json
import re
import sys
from pathlib import Path

import pytest

from robeval.core import paths

ROOT = paths.find_root()
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))


@pytest.fixture
def chunks():
    return importlib.import_module("cpu_chunks")


def _plan(tmp_path, text):
    p = tmp_path / "plan.toml"
    p.write_text(text)
    return p


PLAN = """
[[chunk]]
name = "M1"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 5 }
hours = 2.0
what = "runs 0-4"
rows = "Table 1"

[[chunk]]
name = "M2"
notebook = "02_mscr_cifar10"
params = {}
hours = 1.6
what = "02"
rows = "trend rows"
waits = "its [long] table"

[[chunk]]
name = "M3"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 10 }
hours = 1.9
what = "runs 5-9"
rows = "Table 1"
"""


def test_the_committed_plan_parses_and_its_first_chunk_runs_notebook_04_at_five_runs(chunks):
    plan = chunks.load_plan()
    assert plan[0]["name"] == "M1" and plan[0]["notebook"] == "04_msd_cifar10_c_bar"
    assert plan[0]["params"] == {"n_runs": 5} and chunks.MAX_CHUNK_S == 2.5 * 3600  # each part at most 2.5 h
    units = chunks.load_units()
    assert {"resnet20_plain", "resnet20_augmix"} <= set(plan[0]["work"]) <= set(units)
    ready = [c for c in plan if not c.get("waits")]
    assert all(paths.ROOT.joinpath("notebooks", c["notebook"] + ".ipynb").is_file() for c in plan)
    from robeval.core.catalog import notebooks_for_profile

    runnable = {p.stem for p in notebooks_for_profile("long")}
    assert {c["notebook"] for c in ready} <= runnable  # a chunk without `waits` has its [long] table


@pytest.mark.parametrize(
    "bad, match",
    [
        (PLAN.replace('name = "M3"', 'name = "M1"'), "unique"),
        (PLAN.replace('what = "02"\n', ""), "lacks"),
        (PLAN.replace('name = "M3"', 'name = "chunk3"'), "M<k>"),
    ],
)
def test_a_malformed_plan_is_refused(chunks, tmp_path, bad, match):
    with pytest.raises(ValueError, match=match):
        chunks.load_plan(_plan(tmp_path, bad))


def _summary(folder, name, part, status):
    folder.mkdir(parents=True, exist_ok=True)
    s = {"notebooks": {"04_msd_cifar10_c_bar": {"status": status, "seconds": 10.0}}, "wall_s": 3600.0}
    (folder / f"{name}.{part}-summary.json").write_text(json.dumps(s))


def test_chunk_states_follow_the_committed_part_summaries(chunks, tmp_path):
    plan = chunks.load_plan(_plan(tmp_path, PLAN))
    packs = tmp_path / "packs"
    assert [chunks.chunk_state(c, packs)["state"] for c in plan] == ["ready", "waits", "ready"]
    assert chunks.next_chunk(plan, packs)["name"] == "M1"
    _summary(packs, "M1", 1, "timed out")  # a part stopped by its deadline: the chunk goes on
    assert chunks.chunk_state(plan[0], packs) == {"state": "started", "parts": 1, "seconds": 3600.0}
    assert chunks.next_chunk(plan, packs)["name"] == "M1"
    _summary(packs, "M1", 2, "ok")
    assert chunks.chunk_state(plan[0], packs)["state"] == "done"
    assert chunks.next_chunk(plan, packs)["name"] == "M3"  # M2 waits
    _summary(packs, "M3", 1, "ok")
    assert chunks.next_chunk(plan, packs) is None
    table = chunks.status_table(plan, packs)
    assert "| M1 | 04 | n_runs = 5 | 2.0 (hand estimate) | done | 2 | 2.00 h | Table 1 |" in table
    assert "waits: its [long] table" in table


def test_the_lease_driver_adopts_chunk_packs_in_plan_order(tmp_path):
    gpu_profile = importlib.import_module("gpu_profile")
    for name in ("M3.1.tar.xz", "M1.2.tar.xz", "M1.1-weights-02.tar.xz", "M1.1.tar.xz", "M1.1-weights-01.tar.xz"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "M1.1-summary.json").write_text("{}")
    got = [p.name for p in gpu_profile.committed_packs(tmp_path)]
    assert got == ["M1.1.tar.xz", "M1.1-weights-01.tar.xz", "M1.1-weights-02.tar.xz", "M1.2.tar.xz", "M3.1.tar.xz"]


def test_bring_back_never_writes_through_a_link_or_over_a_file_it_did_not_write(tmp_results, tmp_path, monkeypatch):
    """Probe J F2: bring_back opened results_<profile>.tar.gz for writing as it was, so a link there had its target
    (a user's file) overwritten with the tarball, and a user's file of that name was replaced, not atomically. Now
    a link, a FIFO or a foreign file is refused naming it, before anything is written; an archive of an earlier
    run is replaced through a temporary file."""
    import os
    import tarfile

    from fifos import fifo

    gpu_profile = importlib.import_module("gpu_profile")
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))  # no network of another test is brought back
    (paths.results_dir("default") / "claims").mkdir(parents=True, exist_ok=True)
    (paths.results_dir("default") / "claims" / "x.json").write_text("{}")
    out = tmp_path / "out"
    out.mkdir()
    archive = out / "results_default.tar.gz"
    precious = tmp_path / "precious.txt"
    precious.write_text("precious")
    archive.symlink_to(precious)
    with pytest.raises(ValueError, match=rf"^{archive} is a link \(the results archive would overwrite its target\)"):
        gpu_profile.bring_back(out, {}, "default")
    assert precious.read_text() == "precious" and archive.is_symlink()
    archive.unlink()
    archive.write_text("mine")
    with pytest.raises(ValueError, match=rf"^{archive} exists and is not a results archive of gpu_profile.py"):
        gpu_profile.bring_back(out, {}, "default")
    assert archive.read_text() == "mine"
    archive.unlink()
    with fifo(archive):
        with pytest.raises(ValueError, match=rf"^{archive} is a FIFO \(named pipe\), not a regular file"):
            gpu_profile.bring_back(out, {}, "default")
    archive.unlink()
    assert sorted(out.iterdir()) == []  # each refused before anything was written
    for _ in range(2):  # written, then an earlier run's archive replaced
        assert gpu_profile.bring_back(out, {}, "default")["result_files"] == 1
        with tarfile.open(archive, "r:gz") as tf:
            assert tf.getnames() == ["results/claims/x.json"]
    assert sorted(p.name for p in out.iterdir()) == ["results_default.tar.gz"]  # no temporary file left
    mask = os.umask(0)
    os.umask(mask)
    assert archive.stat().st_mode & 0o777 == 0o666 & ~mask


def test_notebook_parameters_parse_as_robeval_run_parses_them():
    gpu_profile = importlib.import_module("gpu_profile")
    assert gpu_profile.parse_params(["n_runs=5", "seeds=[0, 1]", "name='a'"]) == {
        "n_runs": 5,
        "seeds": [0, 1],
        "name": "a",
    }
    with pytest.raises(ValueError, match="KEY=VALUE"):
        gpu_profile.parse_params(["n_runs"])
    with pytest.raises(ValueError, match="given twice"):
        gpu_profile.parse_params(["n_runs=5", "n_runs=6"])


def test_a_part_is_filed_under_its_chunk_name_and_a_finished_one_brings_its_results(chunks, tmp_path, monkeypatch):
    import tarfile

    packs = tmp_path / "results" / "long" / "packs"
    monkeypatch.setattr(chunks, "ROOT", tmp_path)
    out = tmp_path / "work"
    out.mkdir()
    (out / "grids.tar.xz").write_bytes(b"grid")
    (out / "weights-01.tar.xz").write_bytes(b"w1")
    ledger = tmp_path / "ledger.json"
    rows = [{"central": True, "verdict": "reproduced"}, {"central": True, "verdict": "inconclusive"}]
    rows += [{"central": False, "verdict": "contradicted"}, {"central": True, "verdict": "consistency"}]
    ledger.write_text(json.dumps({"claims": rows}))
    with tarfile.open(out / "results_long.tar.gz", "w:gz") as tf:
        tf.add(ledger, arcname="results/claims/04_msd_cifar10_c_bar.json")
        tf.add(ledger, arcname="figures/x.json")
    stopped = {"notebooks": {"04_msd_cifar10_c_bar": {"status": "timed out"}}}
    chunks.file_part(out, "M1", 1, stopped, "04_msd_cifar10_c_bar")
    assert sorted(p.name for p in packs.iterdir()) == ["M1.1-summary.json", "M1.1-weights-01.tar.xz", "M1.1.tar.xz"]
    assert not (tmp_path / "results" / "long" / "claims").exists()  # a part cut short brings no ledger
    chunks.file_part(out, "M1", 2, {"notebooks": {"04_msd_cifar10_c_bar": {"status": "ok"}}}, "04_msd_cifar10_c_bar")
    assert (tmp_path / "results" / "long" / "claims" / "04_msd_cifar10_c_bar.json").read_text() == ledger.read_text()
    # what the finished chunk decided is kept in its summary (2 of its 3 central rows), and shown in the plan
    assert json.loads((packs / "M1.2-summary.json").read_text())["central"] == {"rows": 3, "decided": 2}
    assert "central" not in json.loads((packs / "M1.1-summary.json").read_text())
    plan = chunks.load_plan(_plan(tmp_path, PLAN))
    for fake in packs.glob("*.tar.xz"):  # stand-ins, not packs: the table reads the summaries
        fake.unlink()
    assert "| done (2 of 3 central rows decided) |" in chunks.status_table(plan, packs, units={})
    assert not (tmp_path / "results" / "long" / "x.json").exists()  # figures stay in the part's tarball


def test_the_driver_refuses_a_deadline_that_leaves_no_time(chunks, tmp_path):
    # chunk names no committed part has: the refusal must not depend on how far the real plan got
    plan = chunks.load_plan(_plan(tmp_path, PLAN.replace('name = "M', 'name = "M9')))
    assert chunks.next_chunk(plan)["name"] == "M91"
    with pytest.raises(ValueError, match="leaves no time"):
        chunks.run_next(60, plan, tmp_path)
    assert chunks.main(["status"]) == 0


def test_status_names_a_damaged_pack_or_summary_in_one_line(chunks, tmp_path, monkeypatch, capsys, write_tar_xz):
    """Probe J F5: ``cpu_chunks.py status`` gave a traceback (RecursionError, JSONDecodeError, tarfile.ReadError) on
    a malformed pack or part summary among the committed packs. Now: one line naming the file, exit status 2."""
    packs = tmp_path / "packs"
    packs.mkdir()
    monkeypatch.setattr(chunks, "packs_dir", lambda: packs)
    pack = packs / "M9.1.tar.xz"
    cell = "s/config-ab/x.json"
    cases = [
        (b"not a tar at all", rf"^cpu_chunks.py: {pack} is not a readable chunk pack \(ReadError"),
        ({cell: b"{not json"}, rf"^cpu_chunks.py: {pack}: its cell file '{cell}' is not readable JSON \(Expecting"),
        (
            {cell: b"[" * 100_000 + b"]" * 100_000},
            rf"^cpu_chunks.py: {pack}: its cell file '{cell}' .*nested too deeply",
        ),
    ]
    for content, said in cases:
        if isinstance(content, bytes):
            pack.write_bytes(content)
        else:
            write_tar_xz(pack, content)
        assert chunks.main(["status"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and re.match(said, err), err
        assert "git checkout -- " in err
    write_tar_xz(pack, {cell: json.dumps({"cell": {"x": 1}, "seconds": 2.0}).encode()})
    assert chunks.pack_cells(pack) == {cell: {"store": "s", "cell": {"x": 1}, "seconds": 2.0, "machine": {}}}
    monkeypatch.setattr(chunks, "PACK_MEMBERS_MAX", 1)
    write_tar_xz(pack, {cell: b"{}", "s/config-ab/y.json": b"{}"})
    with pytest.raises(ValueError, match=r"holds more than 1 files, which no chunk pack does"):
        chunks.pack_cells(pack)
    pack.unlink()
    summary = packs / "M1.9-summary.json"
    for text, said in (("{bad", "a part's summary is not readable JSON"), ("[1]", "a part's summary is a JSON object")):
        summary.write_text(text)
        assert chunks.main(["status"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"cpu_chunks.py: {summary}: {said}"), err


def test_docs_running_shows_the_plan_as_the_committed_packs_say(chunks):
    """docs/scale.md's chunk table is the plan with each chunk's state from results/long/packs: regenerate it
    with ``python benchmarks/cpu_chunks.py status --write`` after committing a part."""
    text = chunks.DOCS.read_text(encoding="utf-8")
    shown = text.split(chunks.CHUNKS_START, 1)[1].split(chunks.CHUNKS_END, 1)[0]
    assert shown == "\n" + chunks.status_table(chunks.load_plan())


UNITS = {
    "plain": {"what": "w", "arch": "resnet20", "steps": 100, "cells": {"store": "s", "augmentation": ["a", "b"]}},
    "heavy": {
        "what": "w",
        "arch": "resnet20",
        "steps": 100,
        "factor": 4.0,
        "cells": {"store": "s", "augmentation": ["c"]},
    },
    "other": {"what": "w", "arch": "resnet8", "steps": 50, "cells": {"store": "t"}},
    "none": {"what": "w", "arch": "vgg", "steps": 10},
    "factored": {
        "what": "w",
        "arch": "resnet20",
        "steps": 100,
        "factor": 2.0,
        "cells": {"store": "s", "augmentation": ["d"]},
    },
}


def _cell(store, aug, seconds):
    return {"store": store, "cell": {"augmentation": aug, "run": 0}, "seconds": seconds, "machine": {}}


def test_unit_costs_are_measured_medians_else_calibrated_steps_scaled_by_the_measured_ratio(chunks):
    cells = [_cell("s", "a", 100.0), _cell("s", "b", 300.0), _cell("s", "a", 200.0), _cell("x", "a", 9e9)]
    cells.append(_cell("s", "d", 1000.0))  # measured, but with a factor: its ratio (10) does not enter the load
    cal = {"step_s": {"resnet20": 0.5, "resnet8": 0.2}}
    got = chunks.unit_costs(UNITS, cells, cal)
    assert got["plain"] == {"core_s": 200.0, "basis": "median of 3 measured cells"}  # the x-store cell is not one
    # plain: measured 200 vs calibrated 100 x 0.5 = 50 -> ratio 4; heavy and other unmeasured: calibrated x 4
    assert got["heavy"]["core_s"] == pytest.approx(100 * 0.5 * 4.0 * 4)
    assert got["other"]["core_s"] == pytest.approx(50 * 0.2 * 4) and "x 4.00" in got["other"]["basis"]
    assert got["none"]["core_s"] is None  # neither measured nor calibrated
    assert got["factored"] == {"core_s": 1000.0, "basis": "median of 1 measured cells"}
    # without a calibration only measured units have a cost
    bare = chunks.unit_costs(UNITS, cells, None)
    assert bare["plain"]["core_s"] == 200.0 and bare["heavy"]["core_s"] is None
    hours, basis = chunks.chunk_hours({"work": {"plain": 36, "heavy": 1}, "extra_core_s": 400}, got)
    assert hours == pytest.approx((36 * 200 + 800 + 400) / chunks.CORES / 3600) and basis == "calibrated + measured"
    assert chunks.chunk_hours({"work": {"none": 1}}, got) == (None, "none neither measured nor calibrated")
    assert chunks.chunk_hours({"hours": 1.5}, got) == (1.5, "hand estimate")


def test_measured_cells_are_read_from_the_committed_packs_once_each(chunks, tmp_path, write_tar_xz):
    def pack(name, members):
        write_tar_xz(tmp_path / name, members)

    cell = json.dumps({"cell": {"augmentation": "a"}, "seconds": 12.5, "machine": {"isa": "avx512"}}).encode()
    pack("M1.1.tar.xz", {"MANIFEST.json": b"{}", "s/config-1/config.json": b"{}", "s/config-1/a.json": cell})
    pack("M1.2.tar.xz", {"s/config-1/a.json": cell, "s/config-1/b.json": b"[1, 2]", "s/config-1/c.lock": b"x"})
    pack("M1.1-weights-01.tar.xz", {"s/config-1/d.json": cell})  # networks, not cells
    got = chunks.measured_cells(tmp_path)
    assert got == [{"store": "s", "cell": {"augmentation": "a"}, "seconds": 12.5, "machine": {"isa": "avx512"}}]
    assert chunks.measured_cells(tmp_path / "absent") == []


def test_a_plan_naming_an_undefined_unit_or_a_unit_without_steps_is_refused(chunks, tmp_path):
    text = PLAN.replace("hours = 2.0\n", "work = { gpu_hours = 3 }\n", 1)
    with pytest.raises(ValueError, match="gpu_hours"):
        chunks.load_plan(_plan(tmp_path, text))
    with pytest.raises(ValueError, match="steps"):
        chunks.load_plan(_plan(tmp_path, '[units.u]\nwhat = "w"\narch = "resnet20"\nsteps = 0\n' + PLAN))
    with pytest.raises(ValueError, match="work"):
        chunks.load_plan(_plan(tmp_path, PLAN.replace("hours = 2.0\n", "", 1)))


def test_next_runs_chunks_back_to_back_while_time_is_left(chunks, tmp_path, monkeypatch):
    plan = chunks.load_plan(_plan(tmp_path, PLAN))
    packs = tmp_path / "packs"
    monkeypatch.setattr(chunks, "packs_dir", lambda: packs)
    monkeypatch.setattr(chunks, "load_plan", lambda: plan)
    ran = []

    def fake_run_next(deadline_s, plan_, work):
        c = chunks.next_chunk(plan_)
        ran.append((c["name"], round(deadline_s, -2)))
        _summary(packs, c["name"], 1, "ok")
        return {"notebook": c["notebook"], "notebooks": {c["notebook"]: {"status": "ok"}}}

    monkeypatch.setattr(chunks, "run_next", fake_run_next)
    monkeypatch.setitem(sys.modules, "gpu_profile", type(sys)("gpu_profile"))
    sys.modules["gpu_profile"].background_priority = lambda: None
    assert chunks.main(["next", "--deadline-s", "7200", "--work", str(tmp_path / "w")]) == 0
    assert ran == [("M1", 7200.0), ("M3", 7200.0)]  # M2 waits; both finished: nothing is left
    ran.clear()
    (packs / "M1.1-summary.json").unlink()
    (packs / "M3.1-summary.json").unlink()
    assert chunks.main(["next", "--deadline-s", str(chunks.MIN_NEXT_S - 1), "--work", str(tmp_path / "w")]) == 0
    assert [r[0] for r in ran] == ["M1"]  # too little time left for a second chunk


def test_calibrate_refuses_a_budget_too_short_to_measure(chunks, tmp_path):
    with pytest.raises(ValueError, match="budget-s"):
        chunks.calibrate(5, tmp_path / "c.json")


def test_a_rerun_chunk_writes_under_a_root_of_its_own_and_is_compared_with_the_chunk_it_reruns(
    chunks, tmp_path, monkeypatch
):
    """A chunk with ``rerun_of`` runs its notebook with ``$ROBEVAL_ROOT`` at ``<work>/<name>-root`` (this
    checkout's notebooks and the other profiles' results linked in, its own results/long), files its finished
    results under results/long/reruns/<name> and never over the ledger of the chunk it reruns; the comparison
    counts what changed as docs/reliability.md does."""
    import os
    import tarfile

    root = tmp_path / "checkout"
    for d in ("notebooks", "results/long/claims", "results/paper", "results/long/packs"):
        (root / d).mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    monkeypatch.setattr(chunks, "ROOT", root)
    nb = "02_mscr_cifar10"
    row = {"id": "r1", "verdict": "reproduced", "central": True}
    ledger = {"profile": "long", "notebook": nb, "claims": [row, {"id": "r2", "verdict": "inconclusive"}]}
    (root / "results/long/claims" / f"{nb}.json").write_text(json.dumps(ledger))
    done = {"notebooks": {nb: {"status": "ok"}}, "wall_s": 10.0}  # M2 finished: results/long/claims is its ledger
    (root / "results/long/packs/M2.1-summary.json").write_text(json.dumps(done))
    text = PLAN.replace('waits = "its [long] table"\n', "")
    text += '\n[[chunk]]\nname = "M4"\nnotebook = "02_mscr_cifar10"\nparams = { seed = 1 }\nhours = 1.0\n'
    text += 'what = "rerun"\nrows = "none"\nrerun_of = "M2"\n'
    plan = chunks.load_plan(_plan(tmp_path, text))
    rerun = plan[-1]
    seen = {}

    def fake_main(argv):
        seen["root"] = os.environ["ROBEVAL_ROOT"]
        seen["argv"] = argv
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        changed = {**ledger, "claims": [{**row, "verdict": "inconclusive"}, ledger["claims"][1]]}
        f = out / "ledger.json"
        f.write_text(json.dumps(changed))
        with tarfile.open(out / "results_long.tar.gz", "w:gz") as tf:
            tf.add(f, arcname=f"results/claims/{nb}.json")
        return {"notebooks": {nb: {"status": "ok"}}}

    monkeypatch.setitem(sys.modules, "gpu_profile", type(sys)("gpu_profile"))
    sys.modules["gpu_profile"].main = fake_main
    monkeypatch.setattr(chunks, "next_chunk", lambda plan_, folder=None: rerun)
    before = os.environ.get("ROBEVAL_ROOT")
    summary = chunks.run_next(3600, plan, tmp_path / "work")
    assert seen["root"] == str(tmp_path / "work" / "M4-root") and os.environ.get("ROBEVAL_ROOT") == before
    linked = tmp_path / "work" / "M4-root"
    assert (linked / "notebooks").resolve() == root / "notebooks" and (linked / "results" / "paper").is_symlink()
    assert not (linked / "results" / "long").exists()  # the rerun's own, made by its notebook
    assert "--param" in seen["argv"] and "seed=1" in seen["argv"] and summary["rerun_of"] == "M2"
    assert json.loads((root / "results/long/claims" / f"{nb}.json").read_text()) == ledger  # untouched
    assert (root / "results/long/reruns/M4/claims" / f"{nb}.json").is_file()
    got = chunks.compare_rerun(rerun["name"], rerun["notebook"])
    assert [(r["decided"], r["changed"], r["changed_ids"]) for r in got] == [(1, 1, ["r1"])]
    assert summary["rerun_changes"] == got  # kept in the part's summary beside its packs
    filed = json.loads((root / "results/long/packs/M4.1-summary.json").read_text())
    assert filed["rerun_changes"][0]["changed_ids"] == ["r1"]
    assert "baseline" not in summary and chunks.baseline_of(rerun, plan) is None  # M2's ledger is in results/long


RERUN_PLAN = """
[[chunk]]
name = "M1"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 5 }
hours = 2.0
what = "runs 0-4"
rows = "Table 1"

[[chunk]]
name = "M3"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 10 }
hours = 1.9
what = "runs 5-9"
rows = "Table 1"

[[chunk]]
name = "M18"
notebook = "04_msd_cifar10_c_bar"
params = { n_runs = 5, first_run = 10 }
work = {}
extra_core_s = 3000
what = "runs 10-14 against runs 0-4"
rows = "none"
rerun_of = "M1"
"""


@pytest.fixture
def rerun_checkout(chunks, tmp_path, monkeypatch):
    """A checkout whose 04 ledger in results/long/claims is M3's (10 runs) while M18 reruns M1 (5 runs), with a fake
    gpu_profile whose ledger depends on the parameters it is given: runs 0-4 decide r1 and r2 ``reproduced``; runs
    10-14 flip r1; runs 0-9 (M3's, in results/long/claims) leave r2 inconclusive. ``ran`` lists each call's root
    and parameters; ``finish`` says which calls finish (by root name)."""
    import os
    import tarfile

    root = tmp_path / "checkout"
    for d in ("notebooks", "results/long/claims", "results/paper", "results/long/packs"):
        (root / d).mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    monkeypatch.setattr(chunks, "ROOT", root)
    nb = "04_msd_cifar10_c_bar"

    def ledger(r1, r2):
        rows = [{"id": "r1", "verdict": r1, "central": True}, {"id": "r2", "verdict": r2, "central": False}]
        return {"profile": "long", "notebook": nb, "claims": rows}

    m3 = ledger("reproduced", "inconclusive")
    (root / "results/long/claims" / f"{nb}.json").write_text(json.dumps(m3))
    for name in ("M1", "M3"):
        done = {"notebooks": {nb: {"status": "ok"}}, "wall_s": 10.0}
        (root / "results/long/packs" / f"{name}.1-summary.json").write_text(json.dumps(done))
    plan = chunks.load_plan(_plan(tmp_path, RERUN_PLAN))
    state = {"ran": [], "finish": {"M18-root", "M18-baseline-root"}}

    def fake_main(argv):
        where = Path(os.environ["ROBEVAL_ROOT"]).name
        params = [argv[i + 1] for i, a in enumerate(argv) if a == "--param"]
        state["ran"].append((where, params))
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        if where not in state["finish"]:
            return {"notebooks": {nb: {"status": "stopped at the deadline"}}, "wall_s": 5.0}
        got = ledger("inconclusive", "reproduced") if "first_run=10" in params else ledger("reproduced", "reproduced")
        f = out / "ledger.json"
        f.write_text(json.dumps(got))
        with tarfile.open(out / "results_long.tar.gz", "w:gz") as tf:
            tf.add(f, arcname=f"results/claims/{nb}.json")
        return {"notebooks": {nb: {"status": "ok"}}, "wall_s": 7.0}

    monkeypatch.setitem(sys.modules, "gpu_profile", type(sys)("gpu_profile"))
    sys.modules["gpu_profile"].main = fake_main
    monkeypatch.setattr(chunks, "next_chunk", lambda plan_, folder=None: plan[-1])
    return {"root": root, "nb": nb, "plan": plan, "state": state, "m3": m3}


def test_a_rerun_of_an_earlier_chunk_is_compared_with_that_chunks_ledger_built_again(chunks, rerun_checkout, tmp_path):
    """M18 reruns M1 (runs 0-4) with runs 10-14 after M3 took 04 to 10 runs: results/long/claims holds M3's ledger,
    not M1's, so the driver builds M1's again (its parameters, a root of its own, the packs adopted) and compares
    the rerun with that: r1 flipped, r2 held (against M3's ledger r2 would count as undecided and r1 alone)."""
    root, nb, plan, state = (rerun_checkout[k] for k in ("root", "nb", "plan", "state"))
    assert chunks.baseline_of(plan[-1], plan) == {"n_runs": 5}
    summary = chunks.run_next(3600, plan, tmp_path / "work")
    assert state["ran"] == [("M18-root", ["n_runs=5", "first_run=10"]), ("M18-baseline-root", ["n_runs=5"])]
    assert summary["baseline"]["of"] == "M1" and summary["baseline"]["status"] == "ok"
    assert summary["baseline"]["params"] == {"n_runs": 5} and summary["baseline"]["wall_s"] == 7.0
    assert json.loads((root / "results/long/claims" / f"{nb}.json").read_text()) == rerun_checkout["m3"]  # untouched
    base = json.loads((root / "results/long/reruns/M18/baseline/claims" / f"{nb}.json").read_text())
    assert [r["verdict"] for r in base["claims"]] == ["reproduced", "reproduced"]
    changes = summary["rerun_changes"]
    assert [(r["decided"], r["changed"], r["changed_ids"]) for r in changes] == [(2, 1, ["r1"])]
    assert chunks.chunk_state(plan[-1])["state"] == "done" and chunks.chunk_state(plan[-1])["seconds"] == 14.0
    assert "M1's ledger again: ok" in chunks.parts_log(plan)


def test_a_rerun_whose_baseline_did_not_finish_stays_started(chunks, rerun_checkout, tmp_path):
    """The rerun finished but the ledger it is compared with did not (the deadline): nothing is compared, the chunk
    is started (the next part runs both again), and a part with no time left for the baseline says so."""
    plan, state = rerun_checkout["plan"], rerun_checkout["state"]
    state["finish"] = {"M18-root"}
    summary = chunks.run_next(3600, plan, tmp_path / "work")
    assert summary["baseline"]["status"] == "stopped at the deadline" and "rerun_changes" not in summary
    assert not (rerun_checkout["root"] / "results/long/reruns/M18/baseline").exists()
    assert chunks.chunk_state(plan[-1])["state"] == "started"
    got = chunks.run_baseline(plan[-1], {"n_runs": 5}, tmp_path / "b", tmp_path / "work", chunks.RESERVE_S)
    assert got["status"].startswith("not started") and len(state["ran"]) == 2  # nothing run without the time


def test_a_rerun_of_a_later_or_unknown_chunk_is_refused(chunks, tmp_path):
    text = PLAN + '\n[[chunk]]\nname = "M4"\nnotebook = "02_mscr_cifar10"\nparams = {}\nhours = 1.0\n'
    with pytest.raises(ValueError, match="earlier chunk"):
        chunks.load_plan(_plan(tmp_path, text + 'what = "w"\nrows = "r"\nrerun_of = "M9"\n'))


def test_a_notebook_stopped_by_its_grids_deadline_exits_75_and_leaves_its_chunk_started(chunks, tmp_path, monkeypatch):
    """A grid that starts no cell the deadline would kill (robeval.core.runs.DeadlineReached) ends its notebook
    with DEADLINE_RC, which the driver records as stopped: the chunk is started, not done, and not failed."""
    gpu_units, gpu_profile = importlib.import_module("gpu_units"), importlib.import_module("gpu_profile")
    (tmp_path / "notebooks").mkdir()
    cells = ["x = 1", "from robeval.core.runs import DeadlineReached\nraise DeadlineReached('3 cells left')", "y = 2"]
    nb = {"cells": [{"cell_type": "code", "source": [c], "metadata": {}} for c in cells]}
    (tmp_path / "notebooks" / "99_toy.ipynb").write_text(json.dumps(nb))
    monkeypatch.setattr(gpu_units, "ROOT", tmp_path)
    assert gpu_units._exec_notebook("99_toy") == gpu_units.DEADLINE_RC == 75
    status = gpu_profile.notebook_status(75)
    assert status == "stopped before the deadline" and gpu_profile.notebook_status(1) == "failed (rc 1)"
    assert gpu_profile.notebook_status(0) == "ok"
    assert not chunks.finished({"notebooks": {"99_toy": {"status": status}}}, "99_toy")


def test_the_parts_log_counts_each_cell_in_the_first_part_that_packed_it(chunks, tmp_path, write_tar_xz):
    plan = chunks.load_plan(_plan(tmp_path, PLAN))
    packs = tmp_path / "packs"

    def cell(seconds):
        return json.dumps({"cell": {"run": 0}, "seconds": seconds}).encode()

    _summary(packs, "M1", 1, "timed out")
    _summary(packs, "M1", 2, "ok")
    _summary(packs, "M3", 1, "stopped before the deadline")
    s = json.loads((packs / "M1.1-summary.json").read_text())
    s.update(started="2026-11-29T08:10Z", brought_back={"weights": {"files": 8}})
    (packs / "M1.1-summary.json").write_text(json.dumps(s))
    write_tar_xz(packs / "M1.1.tar.xz", {"s/config-1/a.json": cell(1800.0)})
    write_tar_xz(packs / "M1.2.tar.xz", {"s/config-1/a.json": cell(1800.0), "s/config-1/b.json": cell(3600.0)})
    write_tar_xz(packs / "M3.1.tar.xz", {"s/config-1/a.json": cell(1800.0), "s/config-2/a.json": cell(900.0)})
    log = chunks.parts_log(plan, packs).splitlines()
    assert log[2] == "| M1.1 | 2026-11-29 08:10 | 1.00 | timed out | 1 | 0.50 | 8 |"
    assert log[3] == "| M1.2 | — | 1.00 | ok | 1 | 1.00 | 0 |"  # a's cell counted in M1.1 only
    assert log[4] == "| M3.1 | — | 1.00 | stopped before the deadline | 1 | 0.25 | 0 |"
    assert len(log) == 5


def test_docs_scale_shows_the_parts_as_the_committed_packs_say(chunks):
    text = chunks.DOCS.read_text(encoding="utf-8")
    shown = text.split(chunks.PARTS_START, 1)[1].split(chunks.PARTS_END, 1)[0]
    assert shown == "\n" + chunks.parts_log(chunks.load_plan())


def test_a_chunk_packs_only_the_sub_stores_of_this_code(tmp_results, tmp_path, monkeypatch, trust_cells):
    """Chunk M4.1's first pack held 463 cells of notebooks 02 and 04 a second time: after a code change, ``adopt``
    leaves the sub-stores of the earlier code beside the new ones, and ``bring_back`` packed every sub-store. Now it
    packs only those of this checkout's code (``runs.pack(..., current_only=True)``), names the others under
    ``left_out``, and leaves out a store that has none of this code; ``runs.pack`` by default still packs all."""
    import importlib
    import sys

    from robeval.core import runs
    from robeval.core.runs import identity

    gpu_profile = importlib.import_module("gpu_profile")
    monkeypatch.setenv("ROBEVAL_CACHE_DIR", str(tmp_path / "cache"))
    v1 = "GRID_CELLS = ('cell',)\n\ndef cell(c, cfg):\n    return {'v': c['x'] * 1.5}\n"
    trust_cells(chunk_cellmod=tmp_path)
    mod = tmp_path / "chunk_cellmod.py"
    mod.write_text(v1)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("chunk_cellmod")
    grids = paths.results_dir("default") / "grids"
    runs.run_grid(m.cell, {"x": [0, 1, 2]}, store=grids / "g", config={}, progress=False)
    runs.run_grid(m.cell, {"x": [5]}, store=grids / "only_old", config={"other": 1}, progress=False)
    (old_sub,) = [p.name for p in (grids / "g").glob("config-*")]
    mod.write_text(v1.replace("c['x'] * 1.5", "float(c['x']) * 1.5"))  # a refactor: a new identity, same results
    identity.clear_caches()
    m = importlib.reload(sys.modules["chunk_cellmod"])
    (report,) = runs.adopt(grids / "g", progress=False)
    new_sub = report["to"]
    assert report["status"] == "adopted" and new_sub != old_sub
    assert [runs.is_current_substore(grids / "g" / s) for s in (old_sub, new_sub)] == [False, True]
    out = tmp_path / "out"
    out.mkdir()
    got = gpu_profile.bring_back(out, {}, "default")
    assert got["stores"] == ["g"] and got["cells"] == 3
    assert got["left_out"] == {"g": [old_sub], "only_old": [next(iter((grids / "only_old").glob("config-*"))).name]}
    manifest = runs.unpack(out / "grids.tar.xz", tmp_path / "unpacked")
    assert {k: sorted(v) for k, v in manifest["stores"].items()} == {"g": [new_sub]}
    everything = runs.pack([grids / "g"], tmp_path / "all.tar.xz")
    assert sorted(everything["stores"]["g"]) == sorted([old_sub, new_sub]) and "left_out" not in everything
    with pytest.raises(ValueError, match=r"^none of the stores \['only_old'\] holds a sub-store of this checkout"):
        runs.pack([grids / "only_old"], tmp_path / "none.tar.xz", current_only=True)
    assert not (tmp_path / "none.tar.xz").exists()
