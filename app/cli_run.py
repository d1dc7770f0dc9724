"""`main.py run ID ...`: change what a file could not say, rename, tag or delete a run (no Qt)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def add_run_parser(sub: Any, add_ws: Any) -> None:
    p = sub.add_parser("run", help="set a run's interval, first-report kind or histogram counts; rename, tag or "
                                   "delete it")
    p.add_argument("run_id", type=int, metavar="ID")
    add_ws(p)
    p.add_argument("--interval", type=float, metavar="S",
                   help="seconds between reports of an iostat run without timestamps (the 5 of 'iostat 5')")
    p.add_argument("--first-report", choices=["since-boot", "interval"],
                   help="what the run's first iostat report covers")
    p.add_argument("--histogram-counts", choices=["cumulative", "per-collection", "auto"],
                   help="vscsiStats: whether each collection holds the running total (never reset with -r) or "
                        "only its own I/Os; auto = what the import detected")
    p.add_argument("--rename", metavar="NAME")
    p.add_argument("--tag", action="append", default=[], metavar="K=V", help="add or change a tag (repeatable)")
    p.add_argument("--delete", action="store_true", help="delete the run (the source file is not touched)")


def cmd_run(args: argparse.Namespace, ws_path: Path) -> int:
    from app.workspace import Workspace

    if not ws_path.exists():
        print(f"error: no workspace at {ws_path}", file=sys.stderr)
        return 1
    with Workspace(ws_path) as ws:
        run = ws.run(args.run_id)
        if run is None:
            print(f"error: no run {args.run_id}", file=sys.stderr)
            return 1
        try:
            if args.delete:
                ws.delete_run(args.run_id)
                print(f"deleted run {args.run_id} ({run['name']})")
                return 0
            if args.interval is not None:
                ws.set_interval(args.run_id, args.interval)
            if args.first_report:
                ws.set_first_report(args.run_id, args.first_report == "since-boot")
            if args.histogram_counts:
                ws.set_histogram_counts(args.run_id, args.histogram_counts)
            if args.rename:
                ws.rename_run(args.run_id, args.rename)
            if args.tag:
                tags = dict(run["tags"] or {})
                for t in args.tag:
                    if "=" not in t:
                        print(f"error: --tag wants KEY=VALUE, got {t!r}", file=sys.stderr)
                        return 2
                    k, v = t.split("=", 1)
                    tags[k.strip()] = v
                ws.set_tags(args.run_id, tags)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        run = ws.run(args.run_id) or {}
    interval = f"{run['interval_s']:g} s ({run['interval_source']})" if run.get("interval_s") else "interval unknown"
    print(f"run {args.run_id}: {run['name']} · {interval} · tags {dict(run.get('tags') or {})}")
    return 0
