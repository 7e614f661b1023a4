"""Command line: ``python -m robeval run|report|data|strip``."""
from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="robeval", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="execute notebooks with papermill and write the claims report")
    r.add_argument("--profile", default="default")
    r.add_argument("--only", default="", help="comma-separated notebook numbers or names, e.g. 01,08")
    r.add_argument("--keep-going", action="store_true", help="continue after a failing notebook")
    rep = sub.add_parser("report", help="aggregate the claims of a profile into CLAIMS.md")
    rep.add_argument("--profile", default="default")
    sub.add_parser("data", help="list registered data files and whether they verify")
    s = sub.add_parser("strip", help="remove outputs from notebooks (before committing)")
    s.add_argument("paths", nargs="*")
    args = p.parse_args(argv)

    if args.cmd == "run":
        from .notebooks import NotebookFailed, run_all

        try:
            results = run_all(args.profile, only=args.only or None, keep_going=args.keep_going)
        except (NotebookFailed, ValueError) as exc:
            print(f"robeval: {exc}", file=sys.stderr)
            return 1
        print(json.dumps({"profile": args.profile, "notebooks": results}))
    elif args.cmd == "report":
        from .claims import report

        print(report(args.profile))
    elif args.cmd == "data":
        from .data import status

        df = status()
        print(df.drop(columns=["source"]).to_string(index=False))
        return 0 if df.verified.all() else 1
    elif args.cmd == "strip":
        from pathlib import Path

        from .notebooks import notebook_paths, strip_outputs

        paths = [Path(x) for x in args.paths] or notebook_paths()
        for path in paths:
            if strip_outputs(path):
                print(f"stripped {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
