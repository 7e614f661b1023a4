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

With time left after a chunk finishes, ``next`` starts the next one (back to back) until ``--deadline-s``.

**The plan's hours come from measured seconds.** A chunk states its work in units (``work = { resnet20_plain =
15, ... }`` plus ``extra_core_s``); a unit's core-seconds are the median ``seconds`` of the matching grid cells in
the committed packs (measured where the chunks run: one process per core at the lowest priority beside a working
session) or, where no cell measured it yet, its training steps x the step seconds of ``calibrate`` (a two-minute
measurement of this machine, ``results/long/calibration.json``) x the ratio measured/calibrated of the units that
have both and no ``factor`` (the load the chunks run under). ``status`` prints each chunk's hours with that basis.

    nohup python benchmarks/cpu_chunks.py next --deadline-s 8400 > build/chunks/next.log 2>&1 &
    python benchmarks/cpu_chunks.py status
    python benchmarks/cpu_chunks.py calibrate --budget-s 120
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tarfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

PLAN = ROOT / "benchmarks" / "chunks.toml"
MAX_CHUNK_S = 2.5 * 3600  # a chunk's part runs at most 2.5 h (a working session's share)
RESERVE_S = 240.0  # seconds kept after the notebook for packing (xz on a 2-core machine, at the lowest priority)
PROFILE = "long"
CORES = 2  # the chunk machine's cores: a chunk runs one grid process per core
MIN_NEXT_S = 1800.0  # a chunk started back to back gets at least this long (a 30-epoch ResNet-20 cell takes ~15 min)
CELL_JSON_MAX = 1 << 20  # a grid cell's result file is ~15 KB; larger members of a pack are not cells
PACK_MEMBERS_MAX = 1 << 18  # files in one chunk pack (notebook 01's paper grids hold 35,700 cells); more: not a pack
DAMAGED = "restore it as committed (git checkout -- FILE) or remove it if it was never committed"


JSON_FILE_MAX = 16 << 20  # bytes of a part's summary or the calibration (each a few KB)


def read_json_file(path: Path, what: str):
    """The JSON value of ``path`` (a part's summary, the calibration); ValueError naming it as ``what`` and the fix
    when it is no regular file of at most :data:`JSON_FILE_MAX` bytes (a FIFO would block the reader for ever, a link
    to ``/dev/zero`` never end: checked before it is opened) or cannot be read as JSON (bad UTF-8, bad JSON, nested
    too deeply)."""
    from robeval.core.io import check_regular_file

    check_regular_file(path, what, DAMAGED.replace("FILE", str(path)), max_bytes=JSON_FILE_MAX)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
        raise ValueError(
            f"{path}: {what} is not readable JSON ({why}); {DAMAGED.replace('FILE', str(path))}."
        ) from None


def packs_dir() -> Path:
    return ROOT / "results" / PROFILE / "packs"


def read_plan(path: Path = PLAN) -> dict:
    """The TOML document of the plan ``path``; ValueError naming it when it is no regular file or not TOML."""
    from robeval.core.io import check_regular_file

    fix = DAMAGED.replace("FILE", str(path))
    check_regular_file(path, "the plan", fix, max_bytes=JSON_FILE_MAX)
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{path}: the plan is not readable TOML ({' '.join(str(exc).split())[:120]}); {fix}."
        ) from None


def load_plan(path: Path = PLAN) -> list[dict]:
    """The chunks of ``path`` in order; ValueError naming the file on a malformed plan (not TOML, a name twice, a
    missing key, a chunk's ``params`` or ``work`` not a table, a unit that is not one)."""
    doc = read_plan(path)
    chunks, units = doc.get("chunk", []), doc.get("units", {})
    if not isinstance(chunks, list) or not isinstance(units, dict):
        raise ValueError(f"{path}: [[chunk]] must be a list of tables and [units] a table")
    for name, u in units.items():
        if not isinstance(u, dict):
            raise ValueError(f"{path}: unit {name} must be a table (with `what`, `arch` and `steps`)")
        if not (isinstance(u.get("steps"), int) and u["steps"] > 0 and u.get("arch") and u.get("what")):
            raise ValueError(f"{path}: unit {name} needs `what`, `arch` and `steps` (an int > 0)")
        if not _number(u.get("factor", 1.0), positive=True):
            raise ValueError(f"{path}: unit {name} has the factor {u.get('factor')!r}, not a number > 0")
    seen = set()
    for c in chunks:
        if not isinstance(c, dict):
            raise ValueError(f"{path}: a chunk must be a table, got {c!r:.60}")
        missing = [k for k in ("name", "notebook", "params", "what", "rows") if k not in c]
        if "hours" not in c and "work" not in c:
            missing.append("work (or a hand estimate `hours`)")
        if missing:
            raise ValueError(f"{path}: chunk {c.get('name', '?')} lacks {missing}")
        if c.get("rerun_of") and c["rerun_of"] not in seen:
            raise ValueError(f"{path}: chunk {c['name']} reruns {c['rerun_of']!r}, which must be an earlier chunk")
        if not isinstance(c["params"], dict):
            raise ValueError(f"{path}: chunk {c['name']} has params {c['params']!r:.60}, not a table of parameters")
        work = c.get("work", {})
        if not isinstance(work, dict) or not all(_number(n) for n in work.values()):
            raise ValueError(f"{path}: chunk {c['name']} has work {work!r:.60}, not a table of unit counts")
        unknown = sorted(set(work) - set(units))
        if unknown:
            raise ValueError(f"{path}: chunk {c['name']} names units {unknown} that [units] does not define")
        if not re.fullmatch(r"M\d+", c["name"]) or c["name"] in seen:
            raise ValueError(f"{path}: chunk name {c['name']!r} must be M<k> and unique")
        seen.add(c["name"])
    return chunks


def load_units(path: Path = PLAN) -> dict:
    """The ``[units]`` of the plan: per unit ``what``, ``arch``, ``steps`` (training steps of one unit), ``factor``
    (cost of a step relative to a plain one, default 1) and ``cells`` (which committed grid cells measure it)."""
    load_plan(path)  # checked as the chunks are
    return read_plan(path).get("units", {})


def _number(value, *, positive: bool = False) -> bool:
    """Whether ``value`` is a finite real number (not a bool), >= 0 (> 0 with ``positive``)."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    return value > 0 if positive else value >= 0


def summary_error(summary) -> str | None:
    """Why a part's summary is not one :func:`file_part` writes (the fields ``status`` and the parts log read), or
    None: ``wall_s`` seconds, ``notebooks`` {notebook: {"status": text}}, ``central`` {"rows", "decided"} counts,
    ``started`` text, ``brought_back`` {"weights": {"files": count}}."""
    if not isinstance(summary, dict):
        return f"a part's summary is a JSON object, this is {type(summary).__name__}"
    if "wall_s" in summary and not _number(summary["wall_s"]):
        return f"its wall_s is {summary['wall_s']!r:.40}, not seconds (a number >= 0)"
    nbs = summary.get("notebooks", {})
    if not isinstance(nbs, dict) or not all(
        isinstance(v, dict) and isinstance(v.get("status", ""), str) for v in nbs.values()
    ):
        return f"its notebooks is {nbs!r:.60}, not {{notebook: {{'status': text}}}}"
    central = summary.get("central", {"rows": 0, "decided": 0})
    if not isinstance(central, dict) or not all(
        isinstance(central.get(k), int) and _number(central.get(k)) for k in ("rows", "decided")
    ):
        return f"its central is {central!r:.60}, not {{'rows': count, 'decided': count}}"
    if not isinstance(summary.get("started", ""), str):
        return f"its started is {summary['started']!r:.40}, not a time (text)"
    base = summary.get("baseline", {"status": "ok"})
    if not isinstance(base, dict) or not isinstance(base.get("status"), str) or not _number(base.get("wall_s", 0)):
        return f"its baseline is {base!r:.60}, not {{'status': text, 'wall_s': seconds, ...}}"
    back = summary.get("brought_back", {})
    weights = back.get("weights", {}) if isinstance(back, dict) else None
    if not isinstance(weights, dict) or not _number(weights.get("files", 0)):
        return f"its brought_back is {back!r:.60}, not {{'weights': {{'files': count}}}}"
    return None


def parts(name: str, folder: Path | None = None) -> list[dict]:
    """The summaries of chunk ``name``'s parts committed in ``folder`` (``Mk.p-summary.json``), by part."""
    folder = folder or packs_dir()
    out = []
    for f in folder.glob(f"{name}.*-summary.json") if folder.is_dir() else []:
        m = re.fullmatch(rf"{name}\.(\d+)-summary\.json", f.name)
        if m:
            summary = read_json_file(f, "a part's summary")
            why = summary_error(summary)
            if why is not None:
                raise ValueError(f"{f}: {why}; {DAMAGED.replace('FILE', str(f))}.")
            out.append({"part": int(m[1]), **summary})
    return sorted(out, key=lambda p: p["part"])


def chunk_state(chunk: dict, folder: Path | None = None) -> dict:
    """``{"state": "done" | "started" | "ready" | "waits", "parts", "seconds"}`` of one chunk."""
    done = parts(chunk["name"], folder)
    seconds = round(sum(p.get("wall_s", 0.0) + p.get("baseline", {}).get("wall_s", 0.0) for p in done), 1)
    if any(part_done(p, chunk["notebook"]) for p in done):
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


CALIBRATION = ROOT / "results" / PROFILE / "calibration.json"


def pack_cells(pack: Path) -> dict[str, dict]:
    """The grid cells of one chunk pack: ``{member name: {"store", "cell", "seconds", "machine"}}`` (the cell's own
    measured seconds on one core). Read without extracting anything: only members that are small JSON cell files
    are parsed. ValueError naming the pack (and the member) for a file that is not a readable tar, a cell file that
    is not JSON, or more than :data:`PACK_MEMBERS_MAX` files."""
    import lzma
    import zlib

    from robeval.core.io import check_regular_file

    out: dict[str, dict] = {}
    fix = DAMAGED.replace("FILE", str(pack))
    check_regular_file(pack, "the chunk pack", fix)  # a FIFO or a link to /dev/zero: named, never opened
    try:
        tf = tarfile.open(pack)
    except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        raise ValueError(f"{pack} is not a readable chunk pack ({type(exc).__name__}: {exc}); {fix}.") from None
    with tf:
        count = 0
        while True:
            try:
                m = tf.next()
                if m is None:
                    break
                count += 1
                if count > PACK_MEMBERS_MAX:
                    raise ValueError(
                        f"{pack} holds more than {PACK_MEMBERS_MAX:,} files, which no chunk pack does; {fix}."
                    )
                parts_ = m.name.split("/")
                if not (m.isfile() and len(parts_) == 3 and parts_[1].startswith("config-")):
                    continue
                if not parts_[2].endswith(".json") or parts_[2] == "config.json" or m.size > CELL_JSON_MAX:
                    continue
                raw = tf.extractfile(m).read()
            except (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
                raise ValueError(f"{pack} is truncated or corrupted ({type(exc).__name__}: {exc}); {fix}.") from None
            try:
                d = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
                raise ValueError(f"{pack}: its cell file {m.name!r} is not readable JSON ({why}); {fix}.") from None
            if isinstance(d, dict) and isinstance(d.get("seconds"), (int, float)) and "cell" in d:
                out[m.name] = {
                    "store": parts_[0],
                    "cell": d["cell"],
                    "seconds": float(d["seconds"]),
                    "machine": d.get("machine", {}),
                }
    return out


def measured_cells(folder: Path | None = None) -> list[dict]:
    """Every grid cell in the committed chunk packs of ``folder`` (:func:`pack_cells`; a cell in several parts'
    packs is counted once)."""
    folder = folder or packs_dir()
    seen: dict[str, dict] = {}
    for pack in sorted(folder.glob("M*.tar.xz")) if folder.is_dir() else []:
        if "-weights-" not in pack.name:
            seen.update(pack_cells(pack))
    return list(seen.values())


def parts_log(plan: list[dict], folder: Path | None = None) -> str:
    """Every committed part of the plan, in plan order (the order they ran), as a Markdown table: when it started
    (UTC, from its summary), its wall hours, how its notebook ended, the grid cells it finished (those of its pack
    that no earlier part's pack holds) with their measured core-hours, and the files of the networks it packed."""
    folder = folder or packs_dir()
    rows = [
        "| part | started (UTC) | wall h | notebook | cells finished | their core-h | weight files packed |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    seen: set[str] = set()
    for c in plan:
        for p in parts(c["name"], folder):
            name = f"{c['name']}.{p['part']}"
            pack = folder / f"{name}.tar.xz"
            cells = pack_cells(pack) if pack.is_file() else {}
            new = [v["seconds"] for k, v in cells.items() if k not in seen]
            seen.update(cells)
            status = p.get("notebooks", {}).get(c["notebook"], {}).get("status", "not run")
            base = p.get("baseline")
            if base:  # a rerun's part that built the ledger of the chunk it reruns again
                status += f"; {base.get('of', '?')}'s ledger again: {base['status']}"
            wall = p.get("wall_s", 0.0) + (base.get("wall_s", 0.0) if base else 0.0)
            started = str(p.get("started", "")).replace("T", " ").removesuffix("Z") or "—"
            nets = p.get("brought_back", {}).get("weights", {}).get("files", 0)
            rows.append(
                f"| {name} | {started} | {wall / 3600:.2f} | {status} | {len(new)} | {sum(new) / 3600:.2f} | {nets} |"
            )
    return "\n".join(rows) + "\n"


def load_calibration(path: Path | None = None) -> dict | None:
    """``results/long/calibration.json`` (written by ``calibrate``), or None when this checkout has none."""
    path = path or CALIBRATION
    if not os.path.lexists(path):
        return None
    got = read_json_file(path, "the calibration")
    steps = got.get("step_s", {}) if isinstance(got, dict) else None
    if not isinstance(steps, dict) or not all(_number(v, positive=True) for v in steps.values()):
        raise ValueError(
            f"{path}: the calibration is a JSON object whose step_s maps units to seconds (numbers > 0), this is "
            f"{str(got)[:60]}; {DAMAGED.replace('FILE', str(path))} (or measure again: cpu_chunks.py calibrate)."
        )
    return got


def _matches(cell: dict, rule: dict) -> bool:
    if cell["store"] != rule.get("store"):
        return False
    return all(cell["cell"].get(k) in v for k, v in rule.items() if k != "store")


def unit_costs(units: dict, cells: list[dict], calibration: dict | None) -> dict:
    """Per unit ``{"core_s", "basis"}``: the median measured seconds of its matching cells; else its steps x the
    calibrated step seconds of its arch x its factor, scaled by the median ratio measured/calibrated of the units
    that have both and no factor (the load a chunk runs under); ``core_s`` None when neither exists."""
    steps_s = (calibration or {}).get("step_s", {})
    out, ratios = {}, []
    for name, u in units.items():
        got = [c["seconds"] for c in cells if u.get("cells") and _matches(c, u["cells"])]
        calibrated = u["steps"] * steps_s[u["arch"]] * u.get("factor", 1.0) if u["arch"] in steps_s else None
        if got:
            med = statistics.median(got)
            out[name] = {"core_s": med, "basis": f"median of {len(got)} measured cells"}
            if calibrated and u.get("factor", 1.0) == 1.0:  # a factor is itself an estimate: not the load's measure
                ratios.append(med / calibrated)
        else:
            out[name] = {"core_s": calibrated, "basis": "calibrated"}
    ratio = statistics.median(ratios) if ratios else 1.0
    for v in out.values():
        if v["basis"] == "calibrated" and v["core_s"] is not None:
            v["core_s"] *= ratio
            v["basis"] = f"calibrated x {ratio:.2f} (measured/calibrated)"
    return out


def chunk_hours(chunk: dict, costs: dict) -> tuple[float | None, str]:
    """The chunk's estimated wall hours on ``CORES`` cores from its ``work`` and the unit ``costs`` (and its
    ``extra_core_s``), with a short basis; a chunk without ``work`` keeps its hand estimate ``hours``."""
    if "work" not in chunk:
        return chunk["hours"], "hand estimate"
    total, bases = float(chunk.get("extra_core_s", 0.0)), set()
    for name, n in chunk["work"].items():
        cost = costs.get(name, {}).get("core_s")
        if cost is None:
            return None, f"{name} neither measured nor calibrated"
        total += n * cost
        bases.add("measured" if costs[name]["basis"].startswith("median") else "calibrated")
    return total / CORES / 3600, " + ".join(sorted(bases)) or "estimated: no cell to train"


def status_table(plan: list[dict], folder: Path | None = None, units: dict | None = None) -> str:
    """The plan as a Markdown table: each chunk's part of the grid, its estimated hours with their basis
    (:func:`chunk_hours`), its state, the hours its committed parts measured and the central rows it is expected
    to decide (the plan's ``rows``)."""
    costs = unit_costs(load_units() if units is None else units, measured_cells(folder), load_calibration())
    rows = [
        "| chunk | notebook | part of the grid | est. 2-core h (basis) | state | parts | measured | expected to decide |",
        "|---|---|---|---:|---|---:|---:|---|",
    ]
    for c in plan:
        hours, basis = chunk_hours(c, costs)
        shown = f"{hours:.1f} ({basis})" if hours is not None else f"? ({basis})"
        st = chunk_state(c, folder)
        params = ", ".join(f"{k} = {v}" for k, v in c["params"].items()) or "all"
        state = st["state"] if st["state"] != "waits" else f"waits: {c['waits']}"
        got = next((p["central"] for p in parts(c["name"], folder) if "central" in p), None)
        if got is not None:  # what the finished chunk's ledger decided
            state += f" ({got['decided']} of {got['rows']} central rows decided)"
        measured = f"{st['seconds'] / 3600:.2f} h" if st["seconds"] else ""
        rows.append(
            f"| {c['name']} | {c['notebook'][:2]} | {params} | {shown} | {state} | {st['parts']} | {measured} | "
            f"{c['rows']} |"
        )
    return "\n".join(rows) + "\n"


DOCS = ROOT / "docs" / "scale.md"
CHUNKS_START = "<!-- chunks:start (generated by `python benchmarks/cpu_chunks.py status --write`; do not edit) -->"
CHUNKS_END = "<!-- chunks:end -->"


PARTS_START = "<!-- parts:start (generated by `python benchmarks/cpu_chunks.py status --write`; do not edit) -->"
PARTS_END = "<!-- parts:end -->"


def write_status(plan: list[dict], path: Path = DOCS) -> bool:
    """Put :func:`status_table` between the chunk markers of ``path`` and :func:`parts_log` between its part
    markers; True when the file changed."""
    text = new = path.read_text(encoding="utf-8")
    for start, end, table in ((CHUNKS_START, CHUNKS_END, status_table), (PARTS_START, PARTS_END, parts_log)):
        if start not in new or end not in new:
            raise ValueError(f"{path} has no markers {start} ... {end}")
        head, rest = new.split(start, 1)
        new = f"{head}{start}\n{table(plan)}{end}{rest.split(end, 1)[1]}"
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def run_next(deadline_s: float, plan: list[dict], work: Path) -> dict:
    """Run the next chunk's next part within ``deadline_s`` seconds and file its packs; returns its summary."""
    import gpu_profile

    chunk = next_chunk(plan)
    if chunk is None:
        raise ValueError("every chunk of the plan that can run is done (python benchmarks/cpu_chunks.py status)")
    check_deadline(deadline_s)
    deadline_s = min(float(deadline_s), MAX_CHUNK_S)
    if deadline_s < RESERVE_S + 120:
        raise ValueError(f"--deadline-s {deadline_s:.0f} leaves no time to compute after packing ({RESERVE_S:.0f} s)")
    began = time.monotonic()
    name, part = chunk["name"], chunk_state(chunk)["parts"] + 1
    out = part_folder(work / f"{name}.{part}")
    argv = ["--profile", PROFILE, "--only", chunk["notebook"], "--nice", "--deadline-s", str(deadline_s)]
    argv += ["--reserve-s", str(RESERVE_S), "--out", str(out)]
    for k, v in chunk["params"].items():
        argv += ["--param", f"{k}={json.dumps(v)}"]
    if any(packs_dir().glob("M*.tar.xz")):
        argv += ["--adopt-dir", str(packs_dir())]
    print(f"chunk {name}, part {part}: gpu_profile.py {' '.join(argv)}", flush=True)
    started = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
    from robeval.core import paths
    from robeval.core.env import temporary_env

    env = {}
    if chunk.get("rerun_of"):  # its results and ledger in a root of their own, never over the chunk it reruns
        env = {
            "ROBEVAL_CACHE_DIR": str(paths.cache_dir()),  # the data caches shared; its networks are new
            "ROBEVAL_ROOT": str(rerun_root(work, name)),
        }
    with temporary_env(env):
        summary = gpu_profile.main(argv)
    summary.update(
        {"chunk": name, "part": part, "started": started, "notebook": chunk["notebook"], "what": chunk["what"]}
    )
    if chunk.get("rerun_of"):
        summary["rerun_of"] = chunk["rerun_of"]
        params = baseline_of(chunk, plan)
        if params is not None and finished(summary, chunk["notebook"]):
            left = deadline_s - (time.monotonic() - began)
            summary["baseline"] = run_baseline(chunk, params, out / "baseline", work, left)
    file_part(out, name, part, summary, chunk["notebook"], rerun=bool(chunk.get("rerun_of")))
    return summary


def baseline_of(chunk: dict, plan: list[dict], folder: Path | None = None) -> dict | None:
    """The notebook parameters of the ledger a rerun chunk is compared with, when ``results/long/claims`` does not
    hold that ledger; None when it does (or the chunk is no rerun).

    A rerun is compared with the ledger of the chunk it reruns (``rerun_of``). ``results/long/claims`` holds the
    ledger of the notebook's last finished chunk (plan order, reruns aside): the chunk it reruns when no later
    chunk of the notebook has finished (02's M15, a rerun of M2), another ledger otherwise (04's M18 reruns M1,
    runs 0-4, after M3 and M16 took 04 to 15 runs). Then the driver builds the ledger of the chunk it reruns
    again, from the cells the packs hold and by this checkout's rules (:func:`run_baseline`), so that both sides
    of the comparison are judged alike."""
    if not chunk.get("rerun_of"):
        return None
    own = [c for c in plan if c["notebook"] == chunk["notebook"] and not c.get("rerun_of")]
    done = [c["name"] for c in own if chunk_state(c, folder)["state"] == "done"]
    if done and done[-1] == chunk["rerun_of"]:
        return None
    return dict(next(c for c in plan if c["name"] == chunk["rerun_of"])["params"])


def run_baseline(chunk: dict, params: dict, out: Path, work: Path, left_s: float) -> dict:
    """Build the ledger a rerun chunk is compared with (:func:`baseline_of`): its notebook at ``params`` in a root of
    its own (``work/<name>-baseline-root``, as :func:`rerun_root`), every pack adopted first so that its cells are
    found, within ``left_s`` seconds, its results under ``out``. Returns ``{"of", "params", "status", "wall_s"}``
    (status ``ok`` when the notebook finished; a part whose baseline did not finish leaves the chunk started)."""
    import gpu_profile
    from robeval.core import paths
    from robeval.core.env import temporary_env

    record = {"of": chunk["rerun_of"], "params": params}
    if left_s < RESERVE_S + 120:
        return {**record, "status": "not started: no time left in the part", "wall_s": 0.0}
    argv = ["--profile", PROFILE, "--only", chunk["notebook"], "--nice", "--deadline-s", str(left_s)]
    argv += ["--reserve-s", str(RESERVE_S), "--out", str(out), "--adopt-dir", str(packs_dir())]
    for k, v in params.items():
        argv += ["--param", f"{k}={json.dumps(v)}"]
    print(
        f"chunk {chunk['name']}, the ledger of {chunk['rerun_of']} again: gpu_profile.py {' '.join(argv)}", flush=True
    )
    env = {
        "ROBEVAL_CACHE_DIR": str(paths.cache_dir()),
        "ROBEVAL_ROOT": str(rerun_root(work, f"{chunk['name']}-baseline")),
    }
    with temporary_env(env):
        got = gpu_profile.main(argv)
    status = got.get("notebooks", {}).get(chunk["notebook"], {}).get("status", "not run")
    return {**record, "status": str(status), "wall_s": float(got.get("wall_s", 0.0))}


PART_MARKER = ".cpu_chunks-part"  # written into each part's work folder this driver makes: it may empty it again


def part_folder(out: Path) -> Path:
    """``out`` (``--work``/``Mk.p``) as an empty folder for a part, made here with :data:`PART_MARKER` in it. An
    existing folder is emptied only when it is empty or carries that marker (a folder this driver made for an
    earlier try of the part); ValueError naming it, nothing deleted, for a link, a file, or any other folder: the
    driver never deletes what it did not make."""
    from robeval.core.io import mark_owned_folder, owned_folder

    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ValueError(f"{out} is a link or a file, not the part's work folder; remove it, or pass another --work.")
    if out.exists():
        if not owned_folder(out, PART_MARKER):
            raise ValueError(
                f"{out} is a folder this driver did not make (it is not empty and has no {PART_MARKER}); it is left "
                "as it is: move it away, or pass another --work."
            )
        shutil.rmtree(out)
    out.mkdir(parents=True)
    mark_owned_folder(out, PART_MARKER, "made by benchmarks/cpu_chunks.py: emptied when this part is run again\n")
    return out


def check_deadline(deadline_s) -> float:
    """``deadline_s`` when it is a finite number of seconds > 0; ValueError naming ``--deadline-s`` otherwise (NaN
    passes every comparison: it would start a chunk that fails only inside its notebook)."""
    if not _number(deadline_s, positive=True):
        raise ValueError(
            f"--deadline-s must be a finite number of seconds > 0 (at most {MAX_CHUNK_S:.0f} are used), got "
            f"{deadline_s!r}."
        )
    return float(deadline_s)


def rerun_root(work: Path, name: str) -> Path:
    """The project root a rerun chunk's notebook writes under (``$ROBEVAL_ROOT``): ``work/<name>-root`` with this
    checkout's ``pyproject.toml``, ``notebooks`` and the other profiles' results linked in (the ledger's rule 7
    reads them: the rerun is judged by the same rules as the chunk it reruns); its own results/long holds the
    rerun's grids and ledger."""
    root = Path(work) / f"{name}-root"
    (root / "results").mkdir(parents=True, exist_ok=True)
    links = [(root / e, ROOT / e) for e in ("pyproject.toml", "notebooks")]
    links += [(root / "results" / p.name, p) for p in (ROOT / "results").iterdir() if p.is_dir() and p.name != PROFILE]
    for link, target in links:
        if not link.exists() and not link.is_symlink():
            link.symlink_to(target)
    return root


def rerun_dir(name: str) -> Path:
    """Where a finished rerun chunk's result files and ledger are filed: ``results/long/reruns/<name>``."""
    return ROOT / "results" / PROFILE / "reruns" / name


def compare_rerun(name: str, notebook: str) -> list[dict]:
    """What the rerun chunk ``name`` changed of the ledger of the chunk it reruns, counted as docs/reliability.md
    counts a rerun (:func:`robeval.core.publish.report.rerun_counts`, restricted to the notebook). That ledger is
    ``results/long/reruns/<name>/baseline/claims`` when the driver built it again (:func:`baseline_of`), else
    ``results/long/claims``."""
    from robeval.core.publish.report import rerun_counts

    baseline = rerun_dir(name) / "baseline" / "claims"
    ours = baseline if baseline.is_dir() else ROOT / "results" / PROFILE / "claims"
    other = rerun_dir(name) / "claims"
    if not (ours / f"{notebook}.json").is_file() or not (other / f"{notebook}.json").is_file():
        return []
    return rerun_counts(ours, other, notebooks=[notebook])


def central_outcome(ledger: Path) -> dict:
    """``{"rows": central rows, "decided": those with a decided verdict}`` of a saved ledger (the long profile's
    ledger a finished chunk brought back: what the chunk decided, kept in its part summary)."""
    from robeval.core.ledger.vocab import DECIDED

    central = [r for r in json.loads(Path(ledger).read_text(encoding="utf-8"))["claims"] if r.get("central")]
    return {"rows": len(central), "decided": sum(r.get("verdict") in DECIDED for r in central)}


def finished(summary: dict, notebook: str) -> bool:
    """Whether a part's ``summary`` says its ``notebook`` ran to its end."""
    return summary.get("notebooks", {}).get(notebook, {}).get("status") == "ok"


def part_done(summary: dict, notebook: str) -> bool:
    """Whether a part finished its chunk: its ``notebook`` ran to its end and, for a rerun whose comparison needed
    the earlier ledger built again (``baseline``), that run did too."""
    return finished(summary, notebook) and summary.get("baseline", {"status": "ok"}).get("status") == "ok"


def unpack_results(archive: Path, base: Path) -> None:
    """Write the ``results/...`` files of a part's ``results_long.tar.gz`` under ``base`` (regular files only)."""
    with tarfile.open(archive) as tf:
        for m in tf.getmembers():
            if m.isfile() and m.name.startswith("results/"):
                target = base / m.name[len("results/") :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tf.extractfile(m).read())


def file_part(out: Path, name: str, part: int, summary: dict, notebook: str, *, rerun: bool = False) -> None:
    """Copy a part's packs into ``results/long/packs`` (``Mk.p.tar.xz``, ``Mk.p-weights-NN.tar.xz``,
    ``Mk.p-summary.json``) and, when its notebook finished, its result files into ``results/long`` (a rerun
    chunk's into :func:`rerun_dir`, the ledger it is compared with into its ``baseline`` folder when the driver
    built that again, and what it changed, :func:`compare_rerun`, in its summary)."""
    dest = packs_dir()
    dest.mkdir(parents=True, exist_ok=True)
    if (out / "grids.tar.xz").is_file():
        shutil.copyfile(out / "grids.tar.xz", dest / f"{name}.{part}.tar.xz")
    for w in sorted(out.glob("weights-*.tar.xz")):
        shutil.copyfile(w, dest / f"{name}.{part}-{w.name}")
    if finished(summary, notebook):
        base = rerun_dir(name) if rerun else ROOT / "results" / PROFILE
        unpack_results(out / f"results_{PROFILE}.tar.gz", base)
        if rerun and summary.get("baseline", {}).get("status") == "ok":
            unpack_results(out / "baseline" / f"results_{PROFILE}.tar.gz", base / "baseline")
        if rerun and part_done(summary, notebook):
            summary["rerun_changes"] = compare_rerun(name, notebook)
        elif (base / "claims" / f"{notebook}.json").is_file():
            summary["central"] = central_outcome(base / "claims" / f"{notebook}.json")
    (dest / f"{name}.{part}-summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def calibrate(budget_s: float = 120.0, path: Path | None = None) -> dict:
    """Measure this machine's chunk units in about ``budget_s`` seconds and write them to ``path``
    (``results/long/calibration.json``): the seconds of one training step of batch 128 of notebook 04's and 02's
    ResNet-20 and of 09's ResNet-8, each in ``CORES`` processes of one thread at once (as a chunk trains), and of
    one CERTIFY batch of 1000 noisy draws of the ResNet-8 (``certify_resnet8_1000``)."""
    import gpu_calibrate
    from robeval.core.env import hardware_info

    if not budget_s >= 20:
        raise ValueError(f"--budget-s must be >= 20 seconds, got {budget_s!r}")
    t0 = time.perf_counter()
    step_s, raw = {}, {}
    for arch, share in (("resnet20", 0.4), ("resnet8", 0.3)):
        got = gpu_calibrate.train_nproc(share * budget_s, "cpu", CORES, arch, 128)
        raw[arch] = got
        step_s[arch] = CORES / got["steps_per_s"]  # seconds of one step in one of the CORES processes
    cert = gpu_calibrate.certify_rate(0.3 * budget_s, "cpu", (1000,), "resnet8")["1000"]
    raw["certify"] = cert
    step_s["certify_resnet8_1000"] = 1000 / cert["draws_per_s"]
    out = {
        "what": "seconds of one unit on one core of this machine, measured by benchmarks/cpu_chunks.py calibrate",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "budget_s": budget_s,
        "wall_s": round(time.perf_counter() - t0, 1),
        "loadavg_1min": os.getloadavg()[0],  # the 1-minute load average when the measurement ended
        "step_s": {k: round(v, 5) for k, v in step_s.items()},
        "raw": raw,
        "hardware": hardware_info(),
    }
    path = path or CALIBRATION
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("next", help="run the next chunk's next part")
    n.add_argument("--deadline-s", type=float, default=MAX_CHUNK_S, help="wall seconds for the part (<= 2.5 h)")
    n.add_argument("--work", type=Path, default=ROOT / "build" / "chunks", help="where the part's files are made")
    st = sub.add_parser("status", help="print the plan with each chunk's state")
    st.add_argument("--write", action="store_true", help="also write it into docs/scale.md")
    ca = sub.add_parser("calibrate", help="measure the units' step seconds (results/long/calibration.json)")
    ca.add_argument("--budget-s", type=float, default=120.0, help="seconds for the measurement (default 120)")
    args = ap.parse_args(argv)
    try:
        plan = load_plan() if args.cmd != "calibrate" else []
        if args.cmd == "next":
            check_deadline(args.deadline_s)
    except (ValueError, OSError) as exc:  # a damaged plan, a bad deadline: one line naming it, exit status 2
        print(f"cpu_chunks.py: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    if args.cmd == "status":  # a damaged pack or summary: one line naming it, exit status 2 (as the driver's errors)
        try:
            table = status_table(plan)
            if args.write:
                write_status(plan)
        except (ValueError, OSError) as exc:
            print(f"cpu_chunks.py: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        print(table, end="")
        return 0
    if args.cmd == "calibrate":
        try:
            got = calibrate(args.budget_s)
        except ValueError as exc:
            print(f"cpu_chunks.py: {exc}", file=sys.stderr)
            return 2
        print(json.dumps({"step_s": got["step_s"], "wall_s": got["wall_s"]}), flush=True)
        return 0
    import gpu_profile

    gpu_profile.background_priority()
    os.environ.setdefault("MPLBACKEND", "Agg")
    end = time.monotonic() + float(args.deadline_s)
    try:
        while True:  # back to back: the next chunk starts while at least MIN_NEXT_S are left
            summary = run_next(end - time.monotonic(), plan, args.work)
            print(json.dumps(summary), flush=True)
            if (
                not part_done(summary, summary["notebook"])
                or end - time.monotonic() < MIN_NEXT_S
                or next_chunk(plan) is None
            ):
                return 0
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"cpu_chunks.py: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
