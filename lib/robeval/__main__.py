"""Command line: ``python -m robeval run|verify|report|compare|plan|site|data|strip|corrupt|adopt|grids`` (also installed as ``robeval``)."""

from __future__ import annotations

import argparse
import json
import re
import sys


def _path(text: str) -> str:
    """An argparse type for a path argument: an empty one would be read as the working folder; a leading ``~`` is
    the home folder (as the shell expands it, also in ``--out=~/x``, which the shell leaves as it is), and one
    that names no home folder (``~nosuchuser/x``) is refused rather than read as a folder named ``~...``."""
    import os

    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty path ({text!r}) would mean the working folder; pass a path")
    if text.startswith("~"):
        expanded = os.path.expanduser(text)
        if expanded.startswith("~"):
            raise argparse.ArgumentTypeError(
                f"{text!r} names no home folder (no such user); pass the folder's full path, or ./{text} for a "
                "folder of that name here"
            )
        return expanded
    return text


def _count(text: str) -> int:
    """An argparse type for a count of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="robeval", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="execute notebooks with papermill and write the claims and figures reports")
    r.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper")
    r.add_argument("--only", default=None, help="comma-separated notebook numbers or names, e.g. 01,08")
    r.add_argument("--keep-going", action="store_true", help="continue after a failing notebook")
    r.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter, as papermill -p (repeatable); checked against each notebook's parameters "
        "cell and settings validators before anything runs",
    )
    r.add_argument(
        "--replot", action="store_true", help="skip the compute cells: re-plot and rebuild claims from stored results"
    )
    v = sub.add_parser(
        "verify", help="rebuild the claims from stored results and compare every field with the saved ones"
    )
    v.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper")
    v.add_argument("--only", default=None, help="comma-separated notebook numbers or names")
    v.add_argument(
        "--write-manifest",
        action="store_true",
        help="record the manifest of the result files (sha256, rows) in a saved ledger that has none, when the "
        "verdicts rebuilt from those files agree with it (ledgers saved before manifests existed)",
    )
    rep = sub.add_parser(
        "report", help="aggregate the claims and figure manifest of a profile into CLAIMS.md and FIGURES.md"
    )
    rep.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper")
    cmp = sub.add_parser(
        "compare", help="list the claims whose verdict differs between this checkout's ledgers and another run's"
    )
    cmp.add_argument("other", type=_path, help="the other run's ledger folder, e.g. /tmp/clone/results/default/claims")
    cmp.add_argument(
        "--profile", default="default", help="smoke, default, long, gpu or paper (this checkout's ledgers)"
    )
    pl = sub.add_parser(
        "plan",
        help="what a time budget decides: runs per notebook that decide the most central claims "
        "(robeval.core.publish.planner; a markdown table, then one JSON line)",
    )
    pl.add_argument("--budget-min", type=float, required=True, help="wall minutes of make reproduce, e.g. 45")
    pl.add_argument("--cores", type=int, default=2, help="CPU cores of the machine (default: 2, as measured)")
    pl.add_argument("--profile", default="default", help="whose ledgers and measured minutes (default: default)")
    pl.add_argument("--slowdown", type=float, default=1.0, help="its minutes per measured minute (default: 1.0)")
    pl.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="MIN@SLOWDOWN",
        help="another budget the plan must fit too, e.g. 60@1.75 (a 1.75x slower machine in 60 minutes)",
    )
    st = sub.add_parser(
        "site",
        help="build the website (executed notebooks, claims ledger, figures) from stored results into build/site",
    )
    st.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper (whose stored results)")
    st.add_argument("--only", default=None, help="comma-separated notebook numbers or names (default: all)")
    st.add_argument(
        "--site-dir",
        type=_path,
        default=None,
        help="output folder (default: build/site); emptied on each build, so it must be new, empty or one robeval built",
    )
    st.add_argument(
        "--also",
        default=None,
        help="comma-separated further profiles shown beside --profile (default: every other executed profile; "
        "'none' for one profile only)",
    )
    sub.add_parser("data", help="list registered data files, whether they verify, and how to fix those that do not")
    s = sub.add_parser("strip", help="remove outputs from notebooks (before committing)")
    s.add_argument("paths", nargs="*", type=_path, help="notebooks (default: all of notebooks/)")
    s.add_argument("--check", action="store_true", help="change nothing; exit 1 if a notebook holds outputs")
    c = sub.add_parser(
        "corrupt",
        help="write CIFAR-10-C / CIFAR-10-C-bar of a set of 32x32 images in the release layout",
        description="Write <corruption>.npy (uint8 (S*N, 32, 32, 3), severities stacked) and labels.npy into --out; "
        "finished, verified files are skipped on a rerun.",
    )
    c.add_argument("--out", required=True, type=_path, help="output folder")
    c.add_argument(
        "--images", type=_path, default=None, help="images .npy, uint8 (N, 32, 32, 3) (default: the CIFAR-10 test set)"
    )
    c.add_argument("--labels", type=_path, default=None, help="labels .npy, integers (N,) (required with --images)")
    c.add_argument("--subset", action="store_true", help="use the 1000-image CIFAR-10 test subset")
    c.add_argument("--names", default="all", help="comma list of corruptions, or C, C-bar or all (default: all)")
    c.add_argument("--severities", default="1,2,3,4,5", help="comma list of severities in 1..5 (default: 1,2,3,4,5)")
    c.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    c.add_argument(
        "--layout",
        choices=("auto", "NHWC", "NCHW"),
        default="auto",
        help="axis order of --images: NHWC (the release's), NCHW (torch's, as robeval.core.data returns with "
        "layout='NCHW'), or auto: detect from which axis has 3 channels (default)",
    )
    c.add_argument(
        "--overwrite",
        action="store_true",
        help="empty --out first when it holds files made from other images or labels (otherwise refused); only "
        "files its corruptions.json records robeval writing are deleted: others with robeval's names (e.g. a "
        "downloaded release's fog.npy) are refused by name",
    )
    c.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = sub.add_parser(
        "adopt",
        help="keep a grid's finished cells across a code change that leaves them unchanged (checked by recomputing)",
        description="For each named grid store of the profile (results/<profile>/grids/<name>), recompute a sample "
        "of the cells stored under older code with this checkout's code; if all are identical, link every finished "
        "cell into the store of the current code (robeval.core.runs.adopt). Every cell's checksum is verified "
        "first (the one written with its rows, and a pack's per-file checksums). Refuses, adopting nothing, on any "
        "difference or failed checksum. With --rebind, the named packs (e.g. committed chunk packs of those stores) "
        "are then written again under this code's identities, each sub-store only where this adoption checked it "
        "(robeval.core.runs.rebind_pack); nothing is recomputed for them.",
    )
    a.add_argument("names", nargs="+", help="grid store names, e.g. mscr_2d_rf_iid_B_Linf")
    a.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper")
    a.add_argument(
        "--from",
        dest="source",
        type=_path,
        default=None,
        help="a folder holding stores of the same names to adopt from, e.g. another checkout's "
        "results/paper/grids, or a pack of them written by `robeval grids --pack` (default: this checkout's own "
        "stores)",
    )
    a.add_argument("--check", type=_count, default=12, help="cells to recompute per sub-store, at least (default: 12)")
    a.add_argument(
        "--recompute-all",
        action="store_true",
        help="recompute every cell instead of a sample (needed for a pack without checksums that is not a known "
        "committed pack)",
    )
    a.add_argument(
        "--on-this-machine",
        action="store_true",
        help="recompute only cells computed on this kind of machine (CPU model, ISA, pins) and carry the others on "
        "their checksums, the check saying so: for cells that train a network, whose bits only the machine kind that "
        "computed them reproduces",
    )
    a.add_argument(
        "--against",
        type=_path,
        default=None,
        metavar="CHECKOUT",
        help="with --on-this-machine, for a store none of whose cells this kind of machine computed: recompute the "
        "sample here with this checkout's code and with CHECKOUT's, a checkout of the code that computed the store "
        "(e.g. `git worktree add /tmp/before COMMIT`), and carry its cells on their checksums if both agree bit for bit",
    )
    a.add_argument("--jobs", type=_count, default=1, help="worker processes recomputing the sample (default: 1)")
    a.add_argument(
        "--rebind",
        nargs="+",
        type=_path,
        default=[],
        metavar="PACK",
        help="packs (.tar.xz) to write again, in place, with their sub-stores under this code's identities, as the "
        "adopted stores of the profile record them checked",
    )
    a.add_argument("--no-progress", action="store_true", help="no progress bar")
    g = sub.add_parser(
        "grids",
        help="how far each grid store of a profile got, its measured compute time, and whether this code continues it",
        description="List the grid stores of a profile (results/<profile>/grids/<name>): per sub-store the finished "
        "cells, cells being computed by live processes, claims of dead ones, the sum of the cells' own timings, "
        "and whether this checkout's code continues it (current) or changed since (then `robeval adopt` checks "
        "and keeps its cells). Runs nothing (robeval.core.runs.store_status).",
    )
    g.add_argument("names", nargs="*", help="grid store names (default: every store of the profile)")
    g.add_argument("--profile", default="default", help="smoke, default, long, gpu or paper")
    g.add_argument(
        "--from",
        dest="source",
        type=_path,
        default=None,
        help="list the stores of this folder instead, e.g. another checkout's results/paper/grids ('current' "
        "still means: this checkout's code continues it)",
    )
    g.add_argument(
        "--pack",
        type=_path,
        default=None,
        metavar="FILE.tar.xz",
        help="also write the listed stores' finished cells into one xz-compressed file, which `robeval adopt "
        "--from FILE.tar.xz` takes back after recomputing a sample (robeval.core.runs.pack)",
    )
    g.add_argument(
        "--overwrite",
        action="store_true",
        help="with --pack: replace FILE if it is already a grid pack (without it an existing pack is left as it is)",
    )
    return p


CHECKOUT_COMMANDS = ("run", "verify", "report", "compare", "plan", "strip", "site", "adopt", "grids")
# the extra of pyproject.toml that installs a missing optional module
EXTRAS = {
    "papermill": "notebooks",
    "nbformat": "notebooks",
    "nbclient": "notebooks",
    "ipykernel": "notebooks",
    "IPython": "notebooks",
    "nbstripout": "lint",
    "dask": "distributed",
    "distributed": "distributed",
    "art": "adversarial",
}


def _missing_module_message(exc: ImportError) -> str:
    name = (getattr(exc, "name", None) or "").split(".")[0]
    extra = EXTRAS.get(name)
    if extra is None:
        return f"{exc}"
    return (
        f'this command needs {name}, which is not installed: pip install "robeval[{extra}]" (in a checkout: make venv).'
    )


def _named_once(profile: str, names) -> list[str]:
    """``names`` checked as grid store names (the same check as everywhere), each named once."""
    from robeval.core.runs import grid_store

    names = [grid_store(profile, n, create=False).name for n in names]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"grid store {', '.join(dup)} named twice; name each store once.")
    return names


def _adopted(r: dict) -> str:
    """What :func:`robeval.core.runs.adopt` did with one sub-store (a row of its report), in words: the cells it
    adopted, or the cells the target already held ("unchanged, already held, 120 cells"), not "0 cells"."""
    if not r["cells"]:
        return f"{r['status']}, " + (f"already held, {r['held']} cells" if r["held"] else "no cells")
    held = f", {r['held']} already held" if r["held"] else ""
    if "against" in r:  # no cell of this machine kind: both codes recomputed the sample here, the cells carried
        return (
            f"{r['status']}, {r['cells']} cells{held}, {r['checked']} recomputed here by this code and by {r['against']} "
            f"(identical), all carried on their checksums ({r['verified']} verified); the stored numbers differ from "
            f"this machine's by {r['stored_differ_by']:.3g} at most"
        )
    return f"{r['status']}, {r['cells']} cells{held}, {r['checked']} checked, {r['verified']} checksums verified"


def _grids(profile: str, names, source=None, pack_to=None, overwrite: bool = False) -> int:
    from pathlib import Path

    from robeval.core.runs import format_age, grid_store, pack, store_status

    root = Path(source) if source else grid_store(profile, "x", create=False).parent  # a listing creates nothing
    if pack_to is not None:  # where the pack goes is checked before anything is listed or packed (even '')
        from robeval.core.io import check_output_file

        if not str(pack_to).endswith(".tar.xz"):
            raise ValueError(f"--pack {pack_to}: the pack's name must end in .tar.xz, e.g. grids.tar.xz.")
        check_output_file(pack_to, "--pack", create=False)  # created by pack(), once there is something to pack
        if Path(pack_to).exists() and not overwrite:
            raise ValueError(
                f"--pack {pack_to} exists and is left as it is; name a new file, or add --overwrite to replace an "
                "earlier grid pack there (a file that is not a grid pack is never replaced)."
            )
    elif overwrite:
        raise ValueError("--overwrite replaces the file of --pack; give --pack FILE.tar.xz with it.")
    if source and Path(source).exists() and not Path(source).is_dir():
        from robeval.core.io import check_regular_file  # a FIFO or a device: named as what it is

        check_regular_file(source, "--from", "pass a folder of grid stores such as results/paper/grids")
        raise ValueError(
            f"--from {source} is a file; `robeval grids` lists a folder of grid stores (such as another checkout's "
            "results/paper/grids). A pack is taken back with `robeval adopt --profile PROFILE --from PACK NAME`."
        )
    if source and not root.is_dir():
        raise ValueError(f"--from {source}: no such folder; pass a folder of grid stores such as results/paper/grids.")
    names = _named_once(profile, names)  # before anything is listed: a store named twice would be counted twice
    given = bool(names)
    if not names:
        names = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    links = [root / n for n in names if (root / n).is_symlink()]
    if links:  # a store robeval wrote is a folder; a link may lead anywhere (/etc), listed as an empty store
        raise ValueError(
            f"{links[0]} is a link (to {links[0].readlink()}), not a grid store folder robeval wrote; nothing was "
            "listed. Remove the link, or pass the folder it leads to with --from."
        )
    missing = [n for n in names if not (root / n).is_dir()]
    if missing:
        raise ValueError(f"no grid store {', '.join(missing)} under {root}; `robeval grids` without names lists them.")
    if not given:  # every folder listed: only those holding a grid's sub-stores (--from /etc holds none)
        names = [n for n in names if any((root / n).glob("config-*/config.json"))]
    if not names:
        if pack_to is not None:
            raise ValueError(f"no grid stores under {root} to pack; no pack was written to {pack_to}.")
        if source is not None:
            raise ValueError(
                f"--from {root} holds no grid store (a folder with config-*/config.json); pass a folder of grid stores "
                "such as results/paper/grids."
            )
        print(f"no grid stores under {root} (nothing of profile {profile!r} has run here).")
        return 0
    lines, stale, foreign, total_cells, total_s = [], [], [], 0, 0.0
    for name in names:
        for r in store_status(root / name):
            foreign += [(name, c) for c in r["foreign_claims"]]
            code = {True: "current", False: "other code", None: "unknown fn"}[r["current"]]
            if r["current"] is False:
                stale.append(name)
            total_cells += r["cells"]
            total_s += r["compute_s"]
            lines.append(
                (
                    name,
                    r["sub"],
                    code,
                    r["cells"],
                    r["running"],
                    r["abandoned"],
                    r["foreign"],
                    r["adopted"],
                    f"{r['compute_s'] / 3600:.2f}",
                    r["last"] or "-",
                )  # fmt: skip
            )
    head = (
        "grid", "sub-store", "code", "cells", "running", "abandoned", "foreign", "adopted", "core-h", "last cell (UTC)"
    )  # fmt: skip
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
    for row in [head, *lines]:
        print("  ".join(str(x).ljust(w) if i < 3 else str(x).rjust(w) for i, (x, w) in enumerate(zip(row, widths))))
    print(f"total: {total_cells} finished cells, {total_s / 3600:.2f} core-hours of cell time")
    print(
        "claims on unfinished cells: running = live processes of this host; abandoned = holder gone or expired (a "
        "rerun takes them over); foreign = processes of other hosts, which this host cannot check"
    )
    for name, c in foreign[:10]:
        print(
            f"foreign claim: {name}: {Path(c['lock']).name} held by host {c['host']!r} pid {c['pid']}, claimed "
            f"{format_age(c['age'])} ago; if that run is gone (a killed container or machine), clear it: rm '{c['lock']}'"
        )
    if len(foreign) > 10:
        print(f"... and {len(foreign) - 10} more foreign claims")
    if pack_to is not None:
        manifest = pack([root / n for n in names], pack_to, overwrite=overwrite)
        cells = sum(s["cells"] for subs in manifest["stores"].values() for s in subs.values())
        print(f"packed {cells} cells of {len(names)} store(s) into {pack_to} ({Path(pack_to).stat().st_size} bytes)")
    stale = list(dict.fromkeys(stale))
    if stale:
        shown = ", ".join(stale[:4]) + (f" and {len(stale) - 4} more" if len(stale) > 4 else "")
        print(
            f"'other code': {len(stale)} grid(s) ({shown}) hold cells written by code that changed since, which a "
            f"rerun does not reuse; `robeval adopt --profile {profile}{f' --from {root}' if source else ''} NAME...` "
            "recomputes a sample with this code "
            "and keeps them if identical."
        )
    return 0


def _check_ledger_file(path) -> None:
    """ValueError naming ``path`` unless it reads as a saved ledger: a JSON object with ``notebook`` and a list of
    ``claims``, each with an ``id`` (what `robeval compare` reads)."""
    import json

    from robeval.core.ledger.store import read_ledger_json

    try:  # a FIFO, a link to /dev/zero or a key repeated in one object: refused by the reader in its own words
        d = read_ledger_json(path)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        why = "nested too deeply to read" if isinstance(exc, RecursionError) else exc
        raise ValueError(
            f"{path} is not a ledger: it is not readable JSON ({why}). Remove it from the folder, or rebuild the "
            "folder's ledgers with `make verify` / `robeval run`."
        ) from None
    claims = d.get("claims") if isinstance(d, dict) else None
    name = d.get("notebook") if isinstance(d, dict) else None
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]{1,200}", name) or not isinstance(claims, list):
        raise ValueError(
            f"{path} is not a ledger: a saved ledger is a JSON object with 'notebook' and a list of 'claims'. Remove "
            "it from the folder, or rebuild the folder's ledgers with `make verify` / `robeval run`."
        )
    bad = [i for i, c in enumerate(claims) if not isinstance(c, dict) or "id" not in c]
    if bad:
        raise ValueError(
            f"{path}: claim {bad[0]} has no 'id' ({len(bad)} such claims); the ledger is damaged. Rebuild it with "
            "`make verify` / `robeval run`."
        )
    from robeval.core.publish.report import rows_by_id

    rows_by_id(d, path)  # a row without a verdict, an id listed twice: one line naming it


def _say_compared(ours, other) -> None:
    """Print which notebooks `robeval compare` compares (a ledger in both folders) and which it leaves out (a
    ledger on one side only: a rerun of some notebooks changes nothing of the others); ValueError when none is in
    both."""
    mine = {f.stem for f in ours.glob("*.json")}
    theirs = {f.stem for f in other.glob("*.json")}
    both = sorted(mine & theirs)
    if not both:
        raise ValueError(
            f"no notebook has a ledger in both {ours} ({', '.join(sorted(mine))}) and {other} "
            f"({', '.join(sorted(theirs))}); nothing to compare: pass the other run's results/<profile>/claims."
        )
    print(f"robeval compare: {len(both)} notebook(s) compared: {', '.join(both)}")
    for side, names in (("this checkout only", mine - theirs), ("the other run only", theirs - mine)):
        if names:
            print(f"robeval compare: not compared (a ledger in {side}): {', '.join(sorted(names))}")


def _strip(paths, check: bool) -> int:
    from pathlib import Path

    from robeval.core.catalog import notebook_paths
    from robeval.core.notebooks import check_notebook_file, check_replaceable, strip_outputs

    chosen = [Path(x) for x in paths] or notebook_paths()
    missing = [
        str(p) for p in chosen if not p.exists()
    ]  # a folder or a FIFO exists: check_notebook_file says what it is
    if missing:
        raise ValueError(f"no such notebook: {', '.join(missing)}")
    for p in chosen:  # every file is checked before any is stripped
        check_notebook_file(p)
        if not check:
            check_replaceable(p)  # read-only, or hard-linked: refused before any is stripped
    dirty = [p for p in chosen if strip_outputs(p, dry_run=check)]
    for path in dirty:
        print(f"{'has outputs' if check else 'stripped'}: {path}")
    if check and dirty:
        print("robeval: commit notebooks without outputs; run `make strip`.", file=sys.stderr)
        return 1
    return 0


def _needs_checkout(args) -> bool:
    return args.cmd in CHECKOUT_COMMANDS and not (args.cmd == "strip" and args.paths)


class Terminated(KeyboardInterrupt):
    """A SIGTERM (``kill``, ``timeout``, a service manager's stop), raised in the main thread while a command runs
    (:func:`main`). A KeyboardInterrupt, so every clean-up a Ctrl-C runs runs for it too: joblib ends the worker
    processes of a parallel map (``adopt --jobs``), temporary files are removed where they are written."""


def _terminated(signum, frame):
    raise Terminated


def _sigterm_as_interrupt():
    """Context manager: SIGTERM raises :class:`Terminated` in the main thread while it is open (Python's default
    for SIGTERM ends the process at once, and the worker processes of a parallel map would keep running, orphaned).
    Elsewhere than the main thread, or where SIGTERM is ignored, nothing changes."""
    import contextlib
    import signal
    import threading

    @contextlib.contextmanager
    def handled():
        previous = signal.getsignal(signal.SIGTERM)
        if threading.current_thread() is not threading.main_thread() or previous is signal.SIG_IGN:
            yield
            return
        signal.signal(signal.SIGTERM, _terminated)
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, previous)

    return handled()


def main(argv=None) -> int:
    """Run one command; returns its exit status (0 ok, 1 a failed check, 2 a user error, 130 interrupted by Ctrl-C,
    143 stopped by SIGTERM).

    User errors print one line ``robeval: ...`` on stderr, never a traceback. A SIGTERM is handled as a Ctrl-C is
    (:class:`Terminated`): the command's worker processes are ended and one line is printed; the exit status is the
    shell's for a process ended by that signal, 128 + 15 = 143 (130 = 128 + 2 for SIGINT), so a caller (``timeout``,
    a script testing ``$?``) sees which signal stopped it."""
    args = _parser().parse_args(argv)
    try:
        with _sigterm_as_interrupt():
            return _main(args)
    except Terminated:
        print(f"robeval {args.cmd}: terminated (SIGTERM); finished files are kept, a rerun resumes.", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        # temporary files are removed where they are written (core.io, the corrupt command)
        print(f"robeval {args.cmd}: interrupted (Ctrl-C); finished files are kept, a rerun resumes.", file=sys.stderr)
        return 130
    except ImportError as exc:
        print(f"robeval: {_missing_module_message(exc)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"robeval: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the user named that cannot be used: one line naming it, never a traceback
        # a failed replace names robeval's temporary first and the file the user asked for second
        named = getattr(exc, "filename2", None) or getattr(exc, "filename", None)
        where = f"{named}: " if named else ""
        print(
            f"robeval: {where}{exc.strerror or exc}; check the path (a folder where a file is expected, or one this "
            "user cannot write) and pass one that can be used.",
            file=sys.stderr,
        )
        return 2


def _main(args) -> int:
    from robeval.core.paths import find_root

    if _needs_checkout(args) and find_root() is None:
        print(
            f"robeval {args.cmd}: needs the robeval project checkout (notebooks/, results/); robeval is installed "
            "outside one. Clone the project and run `make venv`, or set ROBEVAL_ROOT to a checkout.",
            file=sys.stderr,
        )
        return 2
    if args.cmd == "run":
        from robeval.core.notebooks import NotebookFailed, parse_parameter_value, run_all

        names = [name for name, _ in args.parameter]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"parameter {', '.join(dup)} given twice with -p; give each once.")
        if "profile" in names:
            raise ValueError("set the profile with --profile, not -p profile.")
        params = {name: parse_parameter_value(value) for name, value in args.parameter}
        try:
            results = run_all(
                args.profile,
                only=args.only,
                parameters=params,
                keep_going=args.keep_going,
                replot=args.replot,
            )
        except NotebookFailed as exc:
            print(f"robeval: {exc}", file=sys.stderr)
            return 1
        print(json.dumps({"profile": args.profile, "notebooks": results}))
    elif args.cmd == "verify":
        from robeval.core.notebooks import NotebookFailed, verify

        try:
            diffs = verify(args.profile, only=args.only, write_manifest=args.write_manifest)
        except NotebookFailed as exc:
            print(f"robeval: {exc}", file=sys.stderr)
            return 1
        for d in diffs:
            reruns = f"; rule 7 read {', '.join(d['reruns'])}" if d.get("reruns") else ""
            print(f"{d['notebook']}: {d['id']}: {d['field']}: saved {d['saved']!r}, rebuilt {d['rebuilt']!r}{reruns}")
        from robeval.core.paths import results_dir

        if not any((results_dir(args.profile) / "claims").glob("*.json")):
            print(f"robeval verify: profile {args.profile!r} has no saved ledgers yet: nothing to verify")
            return 0
        print(f"robeval verify: {len(diffs)} row(s) differ from the saved ledgers of profile {args.profile!r}")
        return 1 if diffs else 0
    elif args.cmd == "report":
        from robeval.core.publish.report import figures_report, report, update_readme

        print(report(args.profile))
        figures_report(args.profile)
        if args.profile == "default":
            update_readme(args.profile)
    elif args.cmd == "compare":
        from pathlib import Path

        from robeval.core.paths import check_profile, results_dir
        from robeval.core.publish.report import compare_ledgers, rerun_counts

        check_profile(args.profile)
        ours, other = results_dir(args.profile, create=False) / "claims", Path(args.other)  # it only reads
        for folder, what in ((other, "the other run"), (ours, f"this checkout (profile {args.profile!r})")):
            if not folder.is_dir():
                raise ValueError(f"{folder} is not a folder of ledgers (results/<profile>/claims) ({what}).")
            if not any(folder.glob("*.json")):
                raise ValueError(
                    f"no ledgers found in {folder} ({what}); pass a results/<profile>/claims folder holding "
                    "<notebook>.json ledgers."
                )
        for folder in (ours, other):
            for f in sorted(folder.glob("*.json")):
                _check_ledger_file(f)
        diffs = compare_ledgers(ours, other)
        _say_compared(ours, other)
        for d in diffs:
            print(
                f"{d['notebook']}: {d['id']}: ours {d['ours']!r} ({d['ours_estimate']}), "
                f"other {d['other']!r} ({d['other_estimate']})"
            )
        print(f"robeval compare: {len(diffs)} verdict(s) differ")
        for r in rerun_counts(ours, other):  # as docs/reliability.md counts a rerun
            share = f" ({100 * r['changed'] / r['decided']:.1f}%)" if r["decided"] else ""
            print(
                f"  {r['notebook']}: {r['decided']} decided here, {r['changed']} changed{share}, "
                f"{r['opposite']} to the opposite verdict, {r['newly_decided']} newly decided; "
                f"{r['from_runs']} of the decided rest on our runs, {r['changed_from_runs']} of them changed; "
                f"{r['inside']} of {r['intervals']} estimates inside this checkout's intervals"
            )
        return 1 if diffs else 0
    elif args.cmd == "plan":
        from robeval.core.publish.planner import parse_also, plan, plan_json

        p = plan(args.budget_min, args.cores, args.profile, args.slowdown, also=parse_also(args.also))
        print(p.table())
        print(plan_json(p))
    elif args.cmd == "site":
        from robeval.core.notebooks import NotebookFailed
        from robeval.core.site.build import build_site

        try:
            also = None if args.also is None else [p for p in args.also.split(",") if p and p != "none"]
            out = build_site(args.profile, only=args.only, site_dir=args.site_dir, also=also)
        except NotebookFailed as exc:
            print(f"robeval: {exc}", file=sys.stderr)
            return 1
        print(f"robeval site: {out}/index.html (serve it: python -m http.server -d {out})")
    elif args.cmd == "data":
        from robeval.core.data import status

        df = status()
        print(df.drop(columns=["source"]).to_string(index=False))
        return 0 if df.verified.all() else 1
    elif args.cmd == "strip":
        return _strip(args.paths, args.check)
    elif args.cmd == "adopt":
        import os
        from pathlib import Path

        from robeval.core.env import profile_pins

        if "numpy" not in sys.modules:  # the cells it recomputes run under the pins their profile computed them with
            for key, value in profile_pins(args.profile).items():
                os.environ.setdefault(key, value)
        from robeval.core.runs import adopt, adopt_pack, grid_store

        root = Path(args.source) if args.source else None
        if root is not None and not root.exists():
            print(
                f"robeval: --from {root} does not exist; pass a folder of grid stores or a pack (.tar.xz).",
                file=sys.stderr,
            )
            return 2
        if root is not None and not root.is_dir():  # a pack: a FIFO or a device named as what it is, unopened
            from robeval.core.io import check_regular_file

            check_regular_file(root, "--from", "pass a folder of grid stores or a pack (.tar.xz)")
            flags = [f for f, on in (("--on-this-machine", args.on_this_machine), ("--against", args.against)) if on]
            if flags or args.jobs != 1:
                print(
                    f"robeval: --from PACK adopts the pack's cells on their checksums, with a sample recomputed in this "
                    f"process; {' and '.join(flags or ['--jobs'])} apply to stores: adopt the pack first, then adopt "
                    "its stores with them.",
                    file=sys.stderr,
                )
                return 2
        # a store named twice would be adopted once and reported as if named once
        stores = {name: grid_store(args.profile, name) for name in _named_once(args.profile, args.names)}
        try:
            if root is not None and root.is_file():  # a pack: verified, then its stores are the source
                done = adopt_pack(
                    root, stores, n_check=args.check, progress=not args.no_progress, recompute_all=args.recompute_all
                )
            else:
                done = {}
                for name, store in stores.items():
                    source = root / name if root is not None else store
                    try:
                        done[name] = adopt(
                            store,
                            source=source,
                            n_check=args.check,
                            progress=not args.no_progress,
                            recompute_all=args.recompute_all,
                            on_this_machine=args.on_this_machine,
                            n_jobs=args.jobs,
                            against=args.against,
                        )
                    except RuntimeError as exc:
                        raise RuntimeError(f"{name}: {exc}") from None
        except RuntimeError as exc:
            print(f"robeval: {' '.join(str(exc).split())}", file=sys.stderr)
            return 1
        for name, report in done.items():
            for r in report:
                print(f"{name}: {r['from']} -> {r['to']}: {_adopted(r)}")
        for archive in args.rebind:
            from robeval.core.runs import rebind_pack

            moves = rebind_pack(archive, lambda name: grid_store(args.profile, name))
            for name, subs in moves.items():
                for old, new in subs.items():
                    print(f"{archive}: {name}/{old} " + ("holds" if old == new else f"-> {new}: rebound"))
    elif args.cmd == "grids":
        return _grids(args.profile, args.names, args.source, args.pack, args.overwrite)
    elif args.cmd == "corrupt":
        from robeval.transforms.release import corrupt_command

        return corrupt_command(
            out=args.out,
            images=args.images,
            labels=args.labels,
            subset=args.subset,
            names=args.names,
            severities=args.severities,
            seed=args.seed,
            progress=not args.no_progress,
            layout=args.layout,
            overwrite=args.overwrite,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
