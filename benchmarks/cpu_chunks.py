"""Run the ``long`` profile on this machine's CPUs, one resumable chunk at a time (issue 63).

The plan is ``benchmarks/chunks.toml``: chunks in order, each a notebook with the parameters that cut its part of
the grid (e.g. ``n_runs = 5``: runs 0-4). ``next`` runs the first chunk that is not done:

1. adopts every pack committed in ``results/long/packs`` (earlier chunks' and earlier parts' finished grid cells
   and trained networks: nothing is computed twice);
2. runs the chunk's notebook at the ``long`` profile in a process of its own at the lowest CPU priority
   (``benchmarks/gpu_profile.py``, the driver of the GPU leases, with ``--profile long --nice``), stopped at
   ``--deadline-s`` (its grid keeps every finished cell);
3. writes the chunk's part into ``results/long/packs``: ``Mk.p.tar.xz`` (every finished cell of the long
   profile's grid stores), ``Mk.p-weights-NN.tar.xz`` (the networks trained in this part), ``Mk.p-summary.json``
   (status, seconds, what was adopted and packed). When the notebook finished, its result files and ledger are
   unpacked into ``results/long`` (``robeval verify --profile long`` rebuilds the ledger from them).

A chunk is done when a part's summary says its notebook finished (``ok``); a part stopped by the deadline is
continued by the next ``next`` (part p + 1). ``status`` prints the plan with each chunk's state. Commit
``results/long`` after each part: a later session, on a fresh machine, adopts the packs and goes on.

    nohup python benchmarks/cpu_chunks.py next --deadline-s 8400 > build/chunks/next.log 2>&1 &
    python benchmarks/cpu_chunks.py status
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tarfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

PLAN = ROOT / "benchmarks" / "chunks.toml"
MAX_CHUNK_S = 2.5 * 3600  # a chunk's part runs at most 2.5 h (a working session's share)
RESERVE_S = 240.0  # seconds kept after the notebook for packing (xz on a 2-core machine, at the lowest priority)
PROFILE = "long"


def packs_dir() -> Path:
    return ROOT / "results" / PROFILE / "packs"


def load_plan(path: Path = PLAN) -> list[dict]:
    """The chunks of ``path`` in order; ValueError on a malformed plan (a name twice, a missing key)."""
    chunks = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("chunk", [])
    seen = set()
    for c in chunks:
        missing = [k for k in ("name", "notebook", "params", "hours", "what", "rows") if k not in c]
        if missing:
            raise ValueError(f"{path}: chunk {c.get('name', '?')} lacks {missing}")
        if not re.fullmatch(r"M\d+", c["name"]) or c["name"] in seen:
            raise ValueError(f"{path}: chunk name {c['name']!r} must be M<k> and unique")
        seen.add(c["name"])
    return chunks


def parts(name: str, folder: Path | None = None) -> list[dict]:
    """The summaries of chunk ``name``'s parts committed in ``folder`` (``Mk.p-summary.json``), by part."""
    folder = folder or packs_dir()
    out = []
    for f in folder.glob(f"{name}.*-summary.json") if folder.is_dir() else []:
        m = re.fullmatch(rf"{name}\.(\d+)-summary\.json", f.name)
        if m:
            out.append({"part": int(m[1]), **json.loads(f.read_text())})
    return sorted(out, key=lambda p: p["part"])


def chunk_state(chunk: dict, folder: Path | None = None) -> dict:
    """``{"state": "done" | "started" | "ready" | "waits", "parts", "seconds"}`` of one chunk."""
    done = parts(chunk["name"], folder)
    seconds = round(sum(p.get("wall_s", 0.0) for p in done), 1)
    if any(p.get("notebooks", {}).get(chunk["notebook"], {}).get("status") == "ok" for p in done):
        state = "done"
    elif chunk.get("waits"):
        state = "waits"
    elif done:
        state = "started"
    else:
        state = "ready"
    return {"state": state, "parts": len(done), "seconds": seconds}


def next_chunk(plan: list[dict], folder: Path | None = None) -> dict | None:
    """The first chunk of ``plan`` that is started or ready (None: every runnable chunk is done)."""
    for c in plan:
        if chunk_state(c, folder)["state"] in ("started", "ready"):
            return c
    return None


def status_table(plan: list[dict], folder: Path | None = None) -> str:
    rows = [
        "| chunk | notebook | part of the grid | est. 2-core h | state | parts | measured |",
        "|---|---|---|---:|---|---:|---:|",
    ]
    for c in plan:
        st = chunk_state(c, folder)
        params = ", ".join(f"{k} = {v}" for k, v in c["params"].items()) or "all"
        state = st["state"] if st["state"] != "waits" else f"waits: {c['waits']}"
        measured = f"{st['seconds'] / 3600:.2f} h" if st["seconds"] else ""
        rows.append(
            f"| {c['name']} | {c['notebook'][:2]} | {params} | {c['hours']} | {state} | {st['parts']} | {measured} |"
        )
    return "\n".join(rows) + "\n"


DOCS = ROOT / "docs" / "scale.md"
CHUNKS_START = "<!-- chunks:start (generated by `python benchmarks/cpu_chunks.py status --write`; do not edit) -->"
CHUNKS_END = "<!-- chunks:end -->"


def write_status(plan: list[dict], path: Path = DOCS) -> bool:
    """Put :func:`status_table` between the chunk markers of ``path``; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    if CHUNKS_START not in text or CHUNKS_END not in text:
        raise ValueError(f"{path} has no chunk markers ({CHUNKS_START} ... {CHUNKS_END})")
    head, rest = text.split(CHUNKS_START, 1)
    new = f"{head}{CHUNKS_START}\n{status_table(plan)}{CHUNKS_END}{rest.split(CHUNKS_END, 1)[1]}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def run_next(deadline_s: float, plan: list[dict], work: Path) -> dict:
    """Run the next chunk's next part within ``deadline_s`` seconds and file its packs; returns its summary."""
    import gpu_profile

    chunk = next_chunk(plan)
    if chunk is None:
        raise ValueError("every chunk of the plan that can run is done (python benchmarks/cpu_chunks.py status)")
    deadline_s = min(float(deadline_s), MAX_CHUNK_S)
    if deadline_s < RESERVE_S + 120:
        raise ValueError(f"--deadline-s {deadline_s:.0f} leaves no time to compute after packing ({RESERVE_S:.0f} s)")
    name, part = chunk["name"], chunk_state(chunk)["parts"] + 1
    out = work / f"{name}.{part}"
    shutil.rmtree(out, ignore_errors=True)
    argv = ["--profile", PROFILE, "--only", chunk["notebook"], "--nice", "--deadline-s", str(deadline_s)]
    argv += ["--reserve-s", str(RESERVE_S), "--out", str(out)]
    for k, v in chunk["params"].items():
        argv += ["--param", f"{k}={json.dumps(v)}"]
    if any(packs_dir().glob("M*.tar.xz")):
        argv += ["--adopt-dir", str(packs_dir())]
    print(f"chunk {name}, part {part}: gpu_profile.py {' '.join(argv)}", flush=True)
    summary = gpu_profile.main(argv)
    summary.update({"chunk": name, "part": part, "what": chunk["what"]})
    file_part(out, name, part, summary, chunk["notebook"])
    return summary


def file_part(out: Path, name: str, part: int, summary: dict, notebook: str) -> None:
    """Copy a part's packs into ``results/long/packs`` (``Mk.p.tar.xz``, ``Mk.p-weights-NN.tar.xz``,
    ``Mk.p-summary.json``) and, when its notebook finished, its result files into ``results/long``."""
    dest = packs_dir()
    dest.mkdir(parents=True, exist_ok=True)
    if (out / "grids.tar.xz").is_file():
        shutil.copyfile(out / "grids.tar.xz", dest / f"{name}.{part}.tar.xz")
    for w in sorted(out.glob("weights-*.tar.xz")):
        shutil.copyfile(w, dest / f"{name}.{part}-{w.name}")
    (dest / f"{name}.{part}-summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if summary.get("notebooks", {}).get(notebook, {}).get("status") == "ok":
        with tarfile.open(out / f"results_{PROFILE}.tar.gz") as tf:
            for m in tf.getmembers():
                if m.isfile() and m.name.startswith("results/"):
                    target = ROOT / "results" / PROFILE / m.name[len("results/") :]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(tf.extractfile(m).read())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("next", help="run the next chunk's next part")
    n.add_argument("--deadline-s", type=float, default=MAX_CHUNK_S, help="wall seconds for the part (<= 2.5 h)")
    n.add_argument("--work", type=Path, default=ROOT / "build" / "chunks", help="where the part's files are made")
    st = sub.add_parser("status", help="print the plan with each chunk's state")
    st.add_argument("--write", action="store_true", help="also write it into docs/scale.md")
    args = ap.parse_args(argv)
    plan = load_plan()
    if args.cmd == "status":
        print(status_table(plan), end="")
        if args.write:
            write_status(plan)
        return 0
    import gpu_profile

    gpu_profile.background_priority()
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        summary = run_next(args.deadline_s, plan, args.work)
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"cpu_chunks.py: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
