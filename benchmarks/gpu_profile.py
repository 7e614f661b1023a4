"""Run the ``gpu`` profile of notebooks on a lent GPU machine (or the ``long`` profile on this machine's CPUs, in
chunks: ``benchmarks/cpu_chunks.py``) within a deadline, and bring back what it computed.

The GPU machine lent to this project (the ``device`` tool) has torch, numpy, pandas, scikit-learn, matplotlib and
seaborn but no papermill, gives one session 15 minutes and one command 10. So this script

1. takes back the finished cells of earlier leases: every ``--adopt PACK`` (a pack written by an earlier run of this
   script, committed under ``results/gpu/packs/``) is adopted into the gpu profile's grid stores
   (:func:`robeval.core.runs.adopt_pack`: the same code, so its checksums suffice and nothing is recomputed);
2. executes each notebook of ``--only`` at the ``gpu`` profile, its code cells in order in its own process, as
   papermill would (``benchmarks/gpu_units.py --exec-notebook STEM --exec-profile gpu``), and stops the notebook
   that is running at the deadline (its grids keep every finished cell);
3. writes under ``--out``: ``grids.tar.xz``, every finished cell of the gpu profile's grid stores
   (:func:`robeval.core.runs.pack`), ``weights-NN.tar.xz``, the networks trained in this lease that a later lease
   reads (:mod:`robeval.core.runs.weights`: 09's models, 03's networks for 04; each file under 16 MiB),
   ``results_gpu.tar.gz``, the gpu profile's result files, ledgers and figures (small files only), and
   ``<stem>.log`` per notebook. The last line printed is the JSON summary: per notebook
   its status (``ok``, ``timed out``, ``failed (rc N)``, ``skipped: out of time``) and seconds. Each of these
   names is checked before anything runs (:func:`check_out_files`): a link there, or a file no earlier run of this
   script wrote (``.gpu_profile-files.json`` lists those it wrote), is refused and left as it is; the files are
   written atomically, the logs created anew and never through a link. ``--param`` values are checked against
   each notebook's parameters cell and settings before anything runs, as ``robeval run -p`` checks them.

On the GPU machine, from the repository root (``shared/`` or a carried folder holding the CIFAR-10 subset)::

    ROBEVAL_DATA_DIR=data_carry python benchmarks/gpu_profile.py --only 03,04 --deadline-s 540 --out $OUT \\
        --adopt results/gpu/packs/lease1.tar.xz

Back here: copy ``grids.tar.xz`` to ``results/gpu/packs/leaseN.tar.xz`` and each ``weights-NN.tar.xz`` to
``results/gpu/packs/leaseN-weights-NN.tar.xz`` and commit them (the next lease adopts them all: nothing is trained
twice);
when every notebook finished, unpack ``results_gpu.tar.gz`` into ``results/gpu`` and ``robeval verify --profile
gpu`` rebuilds its ledgers. Grid cells computed on a GPU are carried only to the same code: a change of a cell's
code starts its grid afresh (a recomputation on a GPU would not reproduce them bit for bit).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from gpu_units import DEADLINE_RC, PARAMS_ENV  # the runner's exit status at a deadline; the parameters it reads

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

PACK_RESERVE_S = 30.0  # seconds kept after the last notebook for packing the grids and the results
MAX_RESULT_FILE = 2**22  # result files larger than this (4 MiB) are left out of results_gpu.tar.gz


def stems_for(only: str, profile: str = "gpu") -> list[str]:
    """The notebook stems of ``only`` ("09,02" or "09_acr_rs_training,...") that define the gpu profile, in the
    order given (a lease runs first what decides the most claims), except that a notebook whose networks another
    one reuses runs before it (03 before 04); without ``only``, every notebook of the profile in the notebooks'
    order."""
    from robeval.core.catalog import notebooks_for_profile

    stems = [p.stem for p in notebooks_for_profile(profile, only or None)]
    if not only:
        return sorted(stems)
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    rank = {s: next((i for i, w in enumerate(wanted) if w in (s, s[:2], s[3:])), len(wanted)) for s in stems}
    ordered = sorted(stems, key=rank.get)
    for first, then in NEEDS_FIRST:
        if first in ordered and then in ordered and ordered.index(first) > ordered.index(then):
            ordered.remove(first)
            ordered.insert(ordered.index(then), first)
    return ordered


NEEDS_FIRST = (("03_msd_powerset", "04_msd_cifar10_c_bar"),)  # 04's baselines are the networks 03 trains


def parse_params(items) -> dict:
    """``["n_runs=5", "seed=7"]`` -> ``{"n_runs": 5, "seed": 7}`` (values parsed as ``robeval run -p`` parses them);
    ValueError naming an item without ``=`` or a key given twice."""
    from robeval.core.notebooks import parse_parameter_value

    out = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"--param {item!r}: write KEY=VALUE, e.g. --param n_runs=5")
        if key.strip() in out:
            raise ValueError(f"--param {key.strip()} given twice; give each parameter once")
        parsed = parse_parameter_value(value)
        if not _finite(parsed):
            raise ValueError(
                f"--param {item!r}: {value.strip()!r} is not a finite number (NaN, inf or beyond float64); give a "
                "finite value, e.g. --param n_runs=5"
            )
        out[key.strip()] = parsed
    return out


def _finite(value) -> bool:
    """Whether every number in ``value`` (a parsed parameter: a number, text, or lists, tuples and dicts of them)
    is finite."""
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    return True


def notebook_parameters(stem: str) -> set[str]:
    """The names the parameters cell (the code cell tagged ``parameters``) of ``notebooks/<stem>.ipynb`` assigns,
    ``profile`` left out: what papermill's ``inspect_notebook`` reads, without papermill (the lent GPU machine has
    none). ValueError naming the notebook when it has no such cell."""
    import ast

    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            tree = ast.parse("".join(cell.get("source", [])))
            names = set()
            for node in tree.body:
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            return names - {"profile"}
    raise ValueError(f"notebooks/{stem}.ipynb has no parameters cell; --param cannot be given to it")


def check_params(stems, profile: str, params: dict) -> None:
    """Check ``params`` (:func:`parse_params`) for each notebook of ``stems`` before anything runs, as ``robeval
    run -p`` checks them (:func:`robeval.core.notebooks.check_parameters`): every name must be one its parameters
    cell declares (:func:`notebook_parameters`), every value must pass its settings' checks under ``profile``.
    ValueError naming the notebook, the parameter and the accepted names otherwise (the notebook would otherwise
    run with the parameter ignored, or fail only inside its cells)."""
    from robeval.core.profiles import experiments, load_table, resolve

    if not params:
        return
    by_notebook = {load_table(e).get("meta", {}).get("notebook"): e for e in experiments()}
    for stem in stems:
        declared = notebook_parameters(stem)
        unknown = sorted(set(params) - declared)
        if unknown:
            raise ValueError(
                f"--param: {stem} has no parameter {', '.join(map(repr, unknown))}; its parameters are "
                f"{', '.join(sorted(declared))}. Fix the name, or select notebooks with --only."
            )
        exp = by_notebook.get(stem)
        if exp is not None:
            try:
                resolve(exp, profile, **params)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"--param: {stem}: {exc}") from None


def calibrate(budget_s: float, out: Path) -> dict:
    """``benchmarks/gpu_calibrate.py`` in a process of its own (its CUDA context gone before the notebooks start):
    ``out/calibration.json``; returns its choice and wall seconds, or its failure."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gpu_calibrate.py"), "--budget-s", str(budget_s)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "lib"), os.environ.get("PYTHONPATH")]))}
    t0 = time.perf_counter()
    check_out_file(out, "calibration.json")  # gpu_calibrate.py writes it (atomically): a link or foreign file refused
    _record(out, "calibration.json")
    proc = subprocess.run(cmd + ["--out", str(out)], env=env, cwd=ROOT, capture_output=True, text=True)
    write_out(out, "calibration.log", proc.stdout + proc.stderr)
    got = {"rc": proc.returncode, "seconds": round(time.perf_counter() - t0, 1)}
    if proc.returncode == 0:
        got.update({k: v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items() if k != "parts"})
    print(f"calibration: {got}", flush=True)
    return got


def committed_packs(folder: Path | None) -> list[Path]:
    """The packs committed under ``folder`` (``leaseN.tar.xz`` and ``leaseN-weights-NN.tar.xz``), in lease order
    (lease 10 after lease 9); ``[]`` for ``None``. A folder that does not exist, or holds no pack, is an error: a
    lease that adopted nothing would train everything again."""
    if folder is None:
        return []
    import re

    from robeval.core.io import check_regular_file

    if not folder.is_dir():
        raise ValueError(f"--adopt-dir {folder}: no such folder (the packs of earlier leases: results/gpu/packs)")
    found = []
    for f in folder.iterdir():
        m = re.fullmatch(r"lease(\d+)(?:-weights-(\d+))?\.tar\.xz", f.name)
        c = re.fullmatch(r"M(\d+)\.(\d+)(?:-weights-(\d+))?\.tar\.xz", f.name)  # a CPU chunk's part (cpu_chunks.py)
        if m or c:  # a FIFO named like a pack would block its reader for ever: refused, named, unopened
            check_regular_file(f, "--adopt-dir: pack", "remove it, or replace it with the pack it stands for")
        if m:
            found.append(((int(m[1]), 0, int(m[2] or 0)), f))
        elif c:
            found.append(((int(c[1]), int(c[2]), int(c[3] or 0)), f))
    if not found:
        raise ValueError(
            f"--adopt-dir {folder}: no leaseN.tar.xz / leaseN-weights-NN.tar.xz (or chunk packs Mk.p.tar.xz) there; "
            "name the packs one by one with --adopt, or leave both out for a first lease"
        )
    return [f for _, f in sorted(found)]


def check_identities(pack: Path) -> None:
    """Refuse, before anything is adopted, a grid pack whose sub-stores another identity names here than the one
    it was written under. A grid's identity covers its config and the code its cell function can reach
    (:mod:`robeval.core.runs.identity`; the same on every Python): a pack written by other code of that reach gets
    another identity, and :func:`robeval.core.runs.adopt` would then recompute a sample of the pack's cells to
    compare them. Cells trained on a GPU are not reproduced bit for bit by a recomputation, so on a lease that would
    spend minutes and then refuse the pack anyway."""
    import tempfile

    from robeval.core import runs
    from robeval.core.runs.trust import cell_function, store_config

    with tempfile.TemporaryDirectory(prefix="robeval-ids-") as tmp:
        runs.unpack(pack, tmp)
        for cfg in sorted(Path(tmp).glob("*/config-*/config.json")):
            meta = store_config(cfg)
            try:  # looked up among this checkout's cell functions: a pack that names other code is refused unrun
                fn = cell_function(meta["fn"])
            except ValueError as exc:
                raise ValueError(f"{pack}: its store {cfg.parent.parent.name}/{cfg.parent.name}: {exc}") from None
            here = f"config-{runs.config_identity(meta['config'], fn)}"
            if here != cfg.parent.name:
                raise ValueError(
                    f"{pack}: its store {cfg.parent.parent.name}/{cfg.parent.name} has another identity here "
                    f"({here}, this checkout's code): it was written by code its cell function reaches that has "
                    "changed since (`python -c 'from robeval.core.runs.identity import code_reach; ...'` lists that code). "
                    "Its cells cannot be carried without recomputing them, which GPU training does not reproduce. Run "
                    "this lease at the commit that wrote the pack (`git log -- PACK`), or leave the pack out and "
                    "compute its grid afresh."
                )


def check_packs(packs) -> dict:
    """Whether the lent machine would adopt each grid pack of ``packs`` at this checkout's code (identities are the
    same on every Python and in every checkout: :mod:`robeval.core.runs.identity`). Returns ``{pack: "holds" | the
    reason}``; weights packs are named by the same identities and go with their lease's grid pack. Printed as one
    JSON line."""
    from robeval.core.runs import weights

    got = {}
    for pack in packs:
        if weights.is_weights_pack(pack):
            continue
        try:
            check_identities(pack)
            got[str(pack)] = "holds"
        except ValueError as exc:
            got[str(pack)] = " ".join(str(exc).split())
    if not got:  # nothing checked is no pass: said, not an empty {} and exit status 2 alone
        raise ValueError(
            f"no grid pack to check among {len(packs)} pack(s) (weights packs go with their grid pack); name "
            "the grid packs with --adopt-dir or --adopt."
        )
    print(json.dumps(got), flush=True)
    return got


def adopt_packs(packs, profile: str = "gpu") -> dict:
    """Adopt each pack of an earlier lease: a grid pack's stores into ``profile``'s grid stores
    (``{store: [status]}``), a weights pack's networks into this machine's cache
    (:func:`robeval.core.runs.weights.adopt_weights`: ``{"restored", "unchanged"}``). Returns ``{pack: report}``."""
    from robeval.core import runs
    from robeval.core.runs import weights

    out = {}
    for pack in packs:
        if weights.is_weights_pack(pack):
            out[str(pack)] = weights.adopt_weights(pack)
        else:
            check_identities(pack)
            got = runs.adopt_pack(pack, lambda name: runs.grid_store(profile, name), progress=False)
            out[str(pack)] = {n: [r["status"] for r in reports] for n, reports in got.items()}
        print(f"adopted {pack}: {out[str(pack)]}", flush=True)
    return out


def background_priority() -> None:
    """Lower this process to the idle end of the scheduler: nice 19, and (Linux) its autogroup too, since a process
    that starts a session of its own (``setsid``, as each notebook here does) gets an autogroup whose weight the
    nice value alone does not lower. Meant as a ``preexec_fn`` (run in the child) or at a driver's start."""
    os.nice(19 - os.nice(0))
    try:
        with open("/proc/self/autogroup", "w") as fh:
            fh.write("19")
    except OSError:  # no autogroups (another OS, or CONFIG_SCHED_AUTOGROUP off): nice alone
        pass


def _start_background() -> None:
    os.setsid()
    background_priority()


def run_notebooks(
    stems, deadline: float, logs: Path, profile: str = "gpu", params: dict | None = None, nice: bool = False
) -> dict:
    """Each notebook's code cells in order in its own process at ``profile`` (with the notebook parameters
    ``params``), until ``deadline`` (a ``time.time()``); with ``nice`` at the lowest CPU priority
    (:func:`background_priority`). Returns ``{stem: {"status", "seconds"}}``."""
    from robeval.core.runs import DEADLINE_ENV

    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1", PARAMS_ENV: json.dumps(params or {})}
    env[DEADLINE_ENV] = repr(float(deadline))  # a grid starts no cell that cannot finish by then
    if profile == "long":  # numpy pinned (its bits hold across machines), torch at the CPU's own speed
        from robeval.core.env import pin_cpu_kernels

        pin_cpu_kernels(env, torch=False)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "lib"), env.get("PYTHONPATH", "")]))
    res = {}
    for stem in stems:
        left = deadline - time.time()
        if left < 20:
            res[stem] = {"status": "skipped: out of time", "seconds": 0.0}
            continue
        cmd = [
            sys.executable,
            str(ROOT / "benchmarks" / "gpu_units.py"),
            "--exec-notebook",
            stem,
            "--exec-profile",
            profile,
        ]
        t0 = time.perf_counter()
        with open_log(logs, f"{stem}.log") as log:
            # a session of its own: at the deadline the notebook and its grid's worker processes stop together
            if nice:  # the same session of its own, at the idle end of the scheduler
                proc = subprocess.Popen(
                    cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, preexec_fn=_start_background
                )
            else:
                proc = subprocess.Popen(
                    cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True
                )
            try:
                rc = proc.wait(timeout=left)
                status = notebook_status(rc)
            except subprocess.TimeoutExpired:
                stop(proc)
                status = "timed out"
        res[stem] = {"status": status, "seconds": round(time.perf_counter() - t0, 1)}
        print(f"== {stem}: {status} in {res[stem]['seconds']:.0f} s", flush=True)
    return res


STOPPED = "stopped before the deadline"


def notebook_status(rc: int) -> str:
    """A notebook run's status from its exit status: "ok", :data:`STOPPED` (a grid left the cells that could not
    finish in time to the next part, ``DEADLINE_RC``) or "failed (rc N)"."""
    return "ok" if rc == 0 else STOPPED if rc == DEADLINE_RC else f"failed (rc {rc})"


def stop(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """Stop ``proc`` and every process of its session (the grid's workers): SIGTERM to the group, then, after
    ``grace_s``, SIGKILL to whatever of it is left. Finished grid cells are on disk already (atomic writes); a cell
    being computed is lost."""
    import signal

    def group(sig) -> None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass

    group(signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    group(signal.SIGKILL)  # workers that outlived their parent, or ignored SIGTERM
    proc.wait()


WRITTEN = ".gpu_profile-files.json"  # the names of the files this script wrote under --out (a JSON list)


def written_files(out: Path) -> list[str]:
    """The names :data:`WRITTEN` under ``out`` lists ([] when there is none); ValueError naming it when it is a
    link, not a regular file, or not a JSON list of names (it was not written by this script)."""
    from robeval.core.io import check_regular_file

    path = out / WRITTEN
    if not path.is_symlink() and not path.exists():
        return []
    fix = "it is left as it is; move it away, or pass another --out"
    if path.is_symlink():
        raise ValueError(f"{path} is a link, not the record this script keeps of its files; {fix}.")
    check_regular_file(path, "", fix, max_bytes=1 << 20)
    try:
        names = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{path} is not the record this script keeps of its files (a JSON list of names); {fix}.")
    return names


def check_out_file(out: Path, name: str) -> Path:
    """``out / name``, a file this script is about to write, checked before anything is written: missing, or a
    regular file that an earlier run of this script wrote (listed in :data:`WRITTEN`). ValueError naming it, the
    file left as it is, for a link (writing through it would overwrite its target), a FIFO, device or folder, or
    a file this script did not write."""
    from robeval.core.io import check_regular_file

    path = out / name
    if not path.is_symlink() and not path.exists():
        return path
    fix = "it is left as it is; move it away, or pass another --out"
    if path.is_symlink():
        raise ValueError(f"{path} is a link (writing there would overwrite its target); {fix}.")
    check_regular_file(path, "", fix)
    if name not in written_files(out):
        raise ValueError(f"{path} exists and was not written by gpu_profile.py (it is not listed in {WRITTEN}); {fix}.")
    return path


def _record(out: Path, name: str) -> None:
    """Add ``name`` to :data:`WRITTEN` under ``out`` (written atomically), before the file is written."""
    from robeval.core.io import atomic_write_text

    names = written_files(out)
    if name not in names:
        atomic_write_text(out / WRITTEN, json.dumps(sorted([*names, name])) + "\n")


def check_out_files(out: Path, stems, profile: str = "gpu", calibrating: bool = False) -> None:
    """Check every file a run writes under ``out`` before anything runs (:func:`check_out_file`): the summary
    ``<profile>_profile.json``, ``<stem>.log`` of each notebook, ``calibration.log`` and ``calibration.json`` when
    ``calibrating``, ``grids.tar.xz`` (a link; :func:`robeval.core.runs.pack` judges the file itself) and the
    results archive (:func:`results_archive`)."""
    written_files(out)
    names = [f"{profile}_profile.json", *(f"{s}.log" for s in stems)]
    if calibrating:
        names += ["calibration.log", "calibration.json"]
    for name in names:
        check_out_file(out, name)
    if (out / "grids.tar.xz").is_symlink():
        raise ValueError(
            f"{out / 'grids.tar.xz'} is a link (the grid pack would replace it); it is left as it is; move it away, "
            "or pass another --out."
        )
    results_archive(out, profile)


def write_out(out: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``out / name`` atomically (a temporary file in ``out``, then ``os.replace``: never through
    a link), after :func:`check_out_file`; the name is recorded in :data:`WRITTEN`."""
    from robeval.core.io import atomic_write_text

    check_out_file(out, name)
    _record(out, name)
    return atomic_write_text(out / name, text)


def open_log(out: Path, name: str):
    """``out / name`` opened to write a notebook's log, after :func:`check_out_file`: an earlier run's log is
    removed and the file is created anew, exclusively and never through a link (``O_EXCL | O_NOFOLLOW``: a file or
    link that appears there meanwhile is refused by the system, not written through). Not a temporary file renamed
    at the end: the log grows while its notebook runs, and is read under its name then (``tail -f``), and after a
    kill."""
    path = check_out_file(out, name)
    _record(out, name)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    return os.fdopen(fd, "w")


def _is_results_archive(path: Path) -> bool:
    """Whether ``path`` reads as a results archive :func:`bring_back` wrote: a gzip tar of ``results/`` and
    ``figures/`` files only."""
    import zlib

    try:
        with tarfile.open(path, "r:gz") as tf:
            return all(n.split("/")[0] in ("results", "figures") for n in tf.getnames())
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        return False


def results_archive(out: Path, profile: str = "gpu") -> Path:
    """``out / results_<profile>.tar.gz``, checked before anything is written: missing, or a results archive an
    earlier run wrote (which :func:`bring_back` replaces). ValueError naming it, the file left as it is, for a link
    (writing through it would overwrite its target), a FIFO, device or folder, or a file this script did not write."""
    from robeval.core.io import check_regular_file

    path = out / f"results_{profile}.tar.gz"
    if not path.is_symlink() and not path.exists():
        return path
    fix = "it is left as it is; move it away, or pass another --out"
    if path.is_symlink():
        raise ValueError(f"{path} is a link (the results archive would overwrite its target); {fix}.")
    check_regular_file(path, "", fix)
    if not _is_results_archive(path):
        raise ValueError(
            f"{path} exists and is not a results archive of gpu_profile.py (a gzip tar of results/ and figures/ "
            f"files); {fix}."
        )
    return path


def bring_back(out: Path, weights_before: dict | None = None, profile: str = "gpu") -> dict:
    """``grids.tar.xz`` (every gpu grid store with a finished cell of this checkout's code identity; sub-stores of
    an earlier code, which an adopt leaves beside the new ones, are left out and named under ``left_out``),
    ``weights-NN.tar.xz`` (the networks trained here that a later lease or notebook reads: new since ``weights_before``, a :func:`robeval.core.runs.weights.snapshot`;
    each file under 16 MiB) and ``results_gpu.tar.gz`` (the small files of the gpu profile's results, ledgers and
    figures) under ``out``; returns what each holds. The results archive is written to a temporary file and moved
    into place; a link, a special file or a file of another program at its name is refused first
    (:func:`results_archive`), before anything is written."""
    import tempfile

    from robeval.core import paths, runs
    from robeval.core.runs import weights

    archive = results_archive(out, profile)
    res = paths.results_dir(profile)
    stores = sorted(p for p in (res / "grids").glob("*") if any(p.glob("config-*/config.json")))
    # only this code's sub-stores: those an adopt leaves beside the new ones after a code change hold the cells twice
    subs = {p.name: [c.parent for c in sorted(p.glob("config-*/config.json"))] for p in stores}
    old = {k: [s.name for s in v if not runs.is_current_substore(s)] for k, v in subs.items()}
    stores = [p for p in stores if len(old[p.name]) < len(subs[p.name])]
    got = {"stores": [p.name for p in stores], "result_files": 0}
    if any(old.values()):
        got["left_out"] = {k: v for k, v in old.items() if v}
    if stores:
        manifest = runs.pack(stores, out / "grids.tar.xz", overwrite=True, current_only=True)
        got["cells"] = sum(s["cells"] for st in manifest["stores"].values() for s in st.values())
    got["weights"] = weights.pack_weights(out, weights_before)
    folders = [(res, "results"), (paths.figures_dir(profile), "figures")]
    fd, name = tempfile.mkstemp(prefix=f".{archive.name}.", suffix=".tmp", dir=out)
    os.close(fd)
    tmp = Path(name)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp creates 0600; the archive gets the user's usual permissions
        with tarfile.open(tmp, "w:gz") as tf:
            for folder, top in folders:
                for p in sorted(folder.rglob("*")):
                    rel = p.relative_to(folder).parts
                    if p.is_file() and "grids" not in rel and "packs" not in rel and p.stat().st_size < MAX_RESULT_FILE:
                        tf.add(p, arcname=f"{top}/{p.relative_to(folder)}")
                        got["result_files"] += 1
        os.replace(tmp, archive)
    finally:
        tmp.unlink(missing_ok=True)
    return got


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="gpu", choices=("gpu", "long"), help="gpu (a lease) or long (a CPU chunk)")
    ap.add_argument("--only", default="", help="notebooks, e.g. 03,04 (default: every notebook with a [gpu] table)")
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a notebook parameter, as robeval run -p KEY VALUE (repeatable; e.g. n_runs=5 for a chunk of the runs)",
    )
    ap.add_argument("--nice", action="store_true", help="run the notebooks at the lowest CPU priority (a CPU chunk)")
    ap.add_argument(
        "--reserve-s",
        type=float,
        default=PACK_RESERVE_S,
        help=f"seconds kept at the end for packing (default {PACK_RESERVE_S:.0f})",
    )
    ap.add_argument("--deadline-s", type=float, default=540.0, help="wall seconds for everything (default 540)")
    ap.add_argument(
        "--calibrate-s",
        type=float,
        default=0.0,
        help="first measure this GPU for so many seconds (benchmarks/gpu_calibrate.py; a lease uses 60; 0: skip)",
    )
    ap.add_argument(
        "--out", type=Path, help="where grids.tar.xz, results_gpu.tar.gz and logs go (required for a lease)"
    )
    ap.add_argument(
        "--adopt",
        type=Path,
        action="append",
        default=[],
        help="a pack of an earlier lease: its grids.tar.xz or one of its weights-NN.tar.xz (repeatable)",
    )
    ap.add_argument(
        "--adopt-dir",
        type=Path,
        default=None,
        help="adopt every pack committed there (results/gpu/packs: leaseN.tar.xz, leaseN-weights-NN.tar.xz), "
        "in lease order, before the --adopt ones",
    )
    ap.add_argument(
        "--check-packs",
        action="store_true",
        help="run nothing: say whether the lent machine (Python 3.12) would adopt the --adopt-dir/--adopt grid packs "
        "at this checkout's code (a pre-lease check on any Python)",
    )
    args = ap.parse_args(argv)
    for option, value in (("--deadline-s", args.deadline_s), ("--reserve-s", args.reserve_s)):
        if not (value == value and 0 <= value < float("inf")):  # NaN passes every comparison
            ap.error(f"{option} must be a finite number of seconds >= 0, got {value!r}")
    if not (args.calibrate_s == args.calibrate_s and 0 <= args.calibrate_s < float("inf")):
        ap.error(f"--calibrate-s must be a finite number of seconds >= 0 (0: skip), got {args.calibrate_s!r}")
    if args.check_packs:
        return check_packs(committed_packs(args.adopt_dir) + list(args.adopt))
    if args.out is None:
        ap.error("--out is required for a lease (where its packs and results go)")
    from robeval.core.runs import weights

    start = time.time()
    stems = stems_for(args.only, args.profile)
    params = parse_params(args.param)
    check_params(stems, args.profile, params)  # an unknown name or a bad value: refused before anything runs
    args.out.mkdir(parents=True, exist_ok=True)
    # a link or a foreign file where the summary, a log or the results go: refused before anything runs
    check_out_files(args.out, stems, args.profile, args.calibrate_s > 0)
    summary = {"profile": args.profile, "params": params, "dry_run": os.environ.get("ROBEVAL_DRY_RUN") == "1"}
    if args.calibrate_s > 0:  # the lease's first minute: what this GPU does, written beside the packs
        summary["calibration"] = calibrate(args.calibrate_s, args.out)
    summary["adopted"] = adopt_packs(committed_packs(args.adopt_dir) + list(args.adopt), args.profile)
    before = weights.snapshot()  # after adopting: only what this lease trains is packed
    deadline = start + args.deadline_s - args.reserve_s
    summary["notebooks"] = run_notebooks(stems, deadline, args.out, args.profile, params, args.nice)
    summary["brought_back"] = bring_back(args.out, before, args.profile)
    summary["wall_s"] = round(time.time() - start, 1)
    write_out(args.out, f"{args.profile}_profile.json", json.dumps(summary, indent=2))
    print(json.dumps(summary), flush=True)
    return summary


def cli(argv=None) -> int:
    """:func:`main` for the command line: a user error (a missing, truncated or altered pack, whose adoption is
    refused before anything is extracted) is one line naming the file and the fix, exit status 2."""
    try:
        got = main(argv)
        if "--check-packs" in (sys.argv[1:] if argv is None else argv):
            return 0 if got and all(v == "holds" for v in got.values()) else 2
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"gpu_profile.py: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(cli())
