"""Run the ``gpu`` profile of notebooks on a lent GPU machine within a deadline, and bring back what it computed.

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
   reads (:mod:`robeval.core.weights`: 09's models, 03's networks for 04; each file under 16 MiB),
   ``results_gpu.tar.gz``, the gpu profile's result files, ledgers and figures (small files only), and
   ``<stem>.log`` per notebook. The last line printed is the JSON summary: per notebook
   its status (``ok``, ``timed out``, ``failed (rc N)``, ``skipped: out of time``) and seconds.

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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

PACK_RESERVE_S = 30.0  # seconds kept after the last notebook for packing the grids and the results
MAX_RESULT_FILE = 2**22  # result files larger than this (4 MiB) are left out of results_gpu.tar.gz


def stems_for(only: str) -> list[str]:
    """The notebook stems of ``only`` ("09,02" or "09_acr_rs_training,...") that define the gpu profile, in the
    order given (a lease runs first what decides the most claims), except that a notebook whose networks another
    one reuses runs before it (03 before 04); without ``only``, every notebook of the profile in the notebooks'
    order."""
    from robeval.core.notebooks import notebooks_for_profile

    stems = [p.stem for p in notebooks_for_profile("gpu", only or None)]
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


def calibrate(budget_s: float, out: Path) -> dict:
    """``benchmarks/gpu_calibrate.py`` in a process of its own (its CUDA context gone before the notebooks start):
    ``out/calibration.json``; returns its choice and wall seconds, or its failure."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gpu_calibrate.py"), "--budget-s", str(budget_s)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "lib"), os.environ.get("PYTHONPATH")]))}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd + ["--out", str(out)], env=env, cwd=ROOT, capture_output=True, text=True)
    (out / "calibration.log").write_text(proc.stdout + proc.stderr)
    got = {"rc": proc.returncode, "seconds": round(time.perf_counter() - t0, 1)}
    if proc.returncode == 0:
        got.update({k: v for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items() if k != "parts"})
    print(f"calibration: {got}", flush=True)
    return got


def adopt_packs(packs) -> dict:
    """Adopt each pack of an earlier lease: a grid pack's stores into the gpu profile's grid stores
    (``{store: [status]}``), a weights pack's networks into this machine's cache
    (:func:`robeval.core.weights.adopt_weights`: ``{"restored", "unchanged"}``). Returns ``{pack: report}``."""
    from robeval.core import runs, weights

    out = {}
    for pack in packs:
        if weights.is_weights_pack(pack):
            out[str(pack)] = weights.adopt_weights(pack)
        else:
            got = runs.adopt_pack(pack, lambda name: runs.grid_store("gpu", name), progress=False)
            out[str(pack)] = {n: [r["status"] for r in reports] for n, reports in got.items()}
        print(f"adopted {pack}: {out[str(pack)]}", flush=True)
    return out


def run_notebooks(stems, deadline: float, logs: Path) -> dict:
    """Each notebook's code cells in order in its own process at the gpu profile, until ``deadline`` (a
    ``time.time()``); returns ``{stem: {"status", "seconds"}}``."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
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
            "gpu",
        ]
        t0 = time.perf_counter()
        with open(logs / f"{stem}.log", "w") as log:
            # a session of its own: at the deadline the notebook and its grid's worker processes stop together
            proc = subprocess.Popen(
                cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True
            )
            try:
                rc = proc.wait(timeout=left)
                status = "ok" if rc == 0 else f"failed (rc {rc})"
            except subprocess.TimeoutExpired:
                stop(proc)
                status = "timed out"
        res[stem] = {"status": status, "seconds": round(time.perf_counter() - t0, 1)}
        print(f"== {stem}: {status} in {res[stem]['seconds']:.0f} s", flush=True)
    return res


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


def bring_back(out: Path, weights_before: dict | None = None) -> dict:
    """``grids.tar.xz`` (every gpu grid store with a finished cell), ``weights-NN.tar.xz`` (the networks trained
    here that a later lease or notebook reads: new since ``weights_before``, a :func:`robeval.core.weights.snapshot`;
    each file under 16 MiB) and ``results_gpu.tar.gz`` (the small files of the gpu profile's results, ledgers and
    figures) under ``out``; returns what each holds."""
    from robeval.core import paths, runs, weights

    res = paths.results_dir("gpu")
    stores = sorted(p for p in (res / "grids").glob("*") if any(p.glob("config-*/config.json")))
    got = {"stores": [p.name for p in stores], "result_files": 0}
    if stores:
        manifest = runs.pack(stores, out / "grids.tar.xz")
        got["cells"] = sum(s["cells"] for st in manifest["stores"].values() for s in st.values())
    got["weights"] = weights.pack_weights(out, weights_before)
    folders = [(res, "results"), (paths.figures_dir("gpu"), "figures")]
    with tarfile.open(out / "results_gpu.tar.gz", "w:gz") as tf:
        for folder, name in folders:
            for p in sorted(folder.rglob("*")):
                if p.is_file() and "grids" not in p.relative_to(folder).parts and p.stat().st_size < MAX_RESULT_FILE:
                    tf.add(p, arcname=f"{name}/{p.relative_to(folder)}")
                    got["result_files"] += 1
    return got


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="notebooks, e.g. 03,04 (default: every notebook with a [gpu] table)")
    ap.add_argument("--deadline-s", type=float, default=540.0, help="wall seconds for everything (default 540)")
    ap.add_argument(
        "--calibrate-s",
        type=float,
        default=0.0,
        help="first measure this GPU for so many seconds (benchmarks/gpu_calibrate.py; a lease uses 60; 0: skip)",
    )
    ap.add_argument("--out", type=Path, required=True, help="where grids.tar.xz, results_gpu.tar.gz and logs go")
    ap.add_argument(
        "--adopt",
        type=Path,
        action="append",
        default=[],
        help="a pack of an earlier lease: its grids.tar.xz or one of its weights-NN.tar.xz (repeatable)",
    )
    args = ap.parse_args(argv)
    from robeval.core import weights

    start = time.time()
    stems = stems_for(args.only)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"profile": "gpu", "dry_run": os.environ.get("ROBEVAL_DRY_RUN") == "1"}
    if args.calibrate_s > 0:  # the lease's first minute: what this GPU does, written beside the packs
        summary["calibration"] = calibrate(args.calibrate_s, args.out)
    summary["adopted"] = adopt_packs(args.adopt)
    before = weights.snapshot()  # after adopting: only what this lease trains is packed
    summary["notebooks"] = run_notebooks(stems, start + args.deadline_s - PACK_RESERVE_S, args.out)
    summary["brought_back"] = bring_back(args.out, before)
    summary["wall_s"] = round(time.time() - start, 1)
    (args.out / "gpu_profile.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary), flush=True)
    return summary


def cli(argv=None) -> int:
    """:func:`main` for the command line: a user error (a missing, truncated or altered pack, whose adoption is
    refused before anything is extracted) is one line naming the file and the fix, exit status 2."""
    try:
        main(argv)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"gpu_profile.py: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(cli())
