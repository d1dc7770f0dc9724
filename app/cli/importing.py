"""``main.py import PATH...``: files, folders and .zip archives into the workspace (app.importer.iter_import)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.analysis.text import render_stored
from app.cli.common import Command, UsageError, add_workspace_arg, key_values, open_workspace
from app.safe_text import for_terminal
from app.workspace import ImportResult, Workspace
from parsers.base import ImportOptions


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_workspace_arg(p)
    p.add_argument("--interval", type=float, metavar="S",
                   help="seconds between reports, for files without timestamps (the 5 of 'iostat 5')")
    p.add_argument("--first-report", choices=["auto", "since-boot", "interval"], default="auto",
                   help="what iostat's first report covers (default auto: since boot unless the file proves -y)")
    p.add_argument("--name", help="run name (default: the file name)")
    p.add_argument("--tag", action="append", default=[], metavar="K=V", help="tag the imported runs (repeatable)")
    p.add_argument("--ram-gb", type=float, metavar="GB",
                   help="the tested host's RAM: IOzone results on a smaller data set are flagged 'page cache likely'")
    p.add_argument("--mapping", metavar="NAME", help="read CSV/TSV files through this saved column mapping "
                   "(see 'mapping list')")
    p.add_argument("--date-order", choices=sorted(DATE_ORDERS), metavar="ORDER",
                   help="how to read dates the files themselves cannot decide (05/03/26: day-first is 5 March, "
                        "month-first 3 May): day-first, month-first or year-first; files whose own dates decide "
                        "keep theirs")
    p.add_argument("--counters-by-place", choices=["read"],
                   help="perfmon logs in a Windows display language StormScope has no counter names for: read the "
                        "counters it recognises by their place in the log and their values, as confirmed (without "
                        "this they are read and marked not confirmed)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")


def run(args: argparse.Namespace) -> int:
    tags = key_values(args.tag, "--tag")
    if args.interval is not None and args.interval <= 0:
        raise UsageError("--interval must be a positive number of seconds")
    opts = ImportOptions(interval_s=args.interval, first_report=args.first_report, name=args.name, tags=tags,
                         date_order=DATE_ORDERS.get(args.date_order or ""), counters_by_place=args.counters_by_place)
    if args.ram_gb is not None and args.ram_gb <= 0:
        raise UsageError("--ram-gb must be a positive number of GB")
    opts.ram_gb = args.ram_gb
    from app.importer import iter_import  # the parsers load when an import starts

    missing = [p for p in args.paths if not Path(p).exists()]
    results = [ImportResult(path=f, status="failed", error=f"{f}: no such file or folder") for f in missing]
    notes: list[str] = []
    with open_workspace(args, create=True, for_import=True) as ws:
        fmt_id = _mapping_format(ws, args.mapping, opts) if args.mapping else None
        for step in iter_import(ws, [p for p in args.paths if Path(p).exists()], opts, fmt_id=fmt_id, notes=notes):
            results.append(step.result)
            if not args.json:
                print_result(step.result)
        undecided = _undecided_dates(ws, [rid for r in results if r.status == "imported" for rid in r.run_ids])
        unconfirmed = _unconfirmed_counters(ws, [rid for r in results if r.status == "imported" for rid in r.run_ids])
        planned = _against_plan(ws, [rid for r in results if r.status == "imported" for rid in r.run_ids])
    if args.json:
        out = [r.as_json() for r in results]
        for r, j in zip(results, out):
            j["warnings"] = [render_stored(w, "cli", r.run_ids[0] if r.run_ids else "ID") for w in r.warnings]
        print(json.dumps(out, indent=2))
    else:
        for r in results[: len(missing)]:
            print_result(r)
        n_ok = sum(r.status == "imported" for r in results)
        n_dup = sum(r.status == "duplicate" for r in results)
        n_bad = sum(r.status == "failed" for r in results)
        n_skip = sum(r.status == "skipped" for r in results)
        for note in notes:
            print(f"dates      {for_terminal(note)}")
        for line in undecided:
            print(f"dates?     {for_terminal(line)}")
        for line in unconfirmed:
            print(f"counters?  {for_terminal(line)}")
        for line in planned:
            print(f"plan       {for_terminal(line)}")
        print(f"{n_ok} imported, {n_dup} duplicate, {n_bad} failed"
              + (f", {n_skip} skipped" if n_skip else ""), file=sys.stderr)
    return 1 if any(r.status == "failed" for r in results) else 0


# --date-order's words -> the order of parsers.dates
DATE_ORDERS = {"day-first": "DMY", "month-first": "MDY", "year-first": "YMD"}


def _undecided_dates(ws: Workspace, run_ids: list[int]) -> list[str]:
    """One line per run whose dates still read both ways: the readings with their first and last times, and the
    command that says which."""
    from app.importer import open_questions
    from parsers.dates import ORDER_NAMES

    words = {v: k for k, v in DATE_ORDERS.items()}
    out = []
    for q in open_questions(ws, run_ids):
        if q.what != "date_order":
            continue
        ways = "; ".join(f"{ORDER_NAMES[o]}: {first:%Y-%m-%d %H:%M:%S} → {last:%Y-%m-%d %H:%M:%S}"
                         if first and last else ORDER_NAMES[o] for o, first, last in q.readings)
        orders = " or ".join(f"--date-order {words[o]}" for o, _f, _l in q.readings if o in words)
        out.append(f"run {q.run_id} ({q.file}) reads both ways -- {ways}; stored {ORDER_NAMES[q.readings[0][0]]}: "
                   f"say which with 'main.py run {q.run_id}' {orders}")
    return out


def _unconfirmed_counters(ws: Workspace, run_ids: list[int]) -> list[str]:
    """One line per run whose perfmon counters were read by their place in the log and not yet confirmed: what each
    was read as, and the command that confirms or rejects it."""
    from app.importer import open_questions

    out = []
    for q in open_questions(ws, run_ids):
        if q.what != "counters_by_place":
            continue
        names = "; ".join(f"{k} = {v}" for k, v in q.names[:4]) + (f" (and {len(q.names) - 4} more)"
                                                                    if len(q.names) > 4 else "")
        out.append(f"run {q.run_id} ({q.file}): counter names StormScope does not know, read by their place in the "
                   f"log as {names}: confirm with 'main.py run {q.run_id} --counters-by-place confirm' (or reject)")
    return out


def _against_plan(ws: Workspace, run_ids: list[int]) -> list[str]:
    """With a capture plan stored, one line per imported run: "as planned", or what differs from the plan."""
    from app.analysis.capture_plan import check_runs, stored
    from app.errors import AnalysisError

    try:
        plan = stored(ws) if run_ids else None
    except AnalysisError as e:  # a plan this version cannot read: the import stands, the check is said to fail
        return [f"not checked: {e}"]
    if plan is None:
        return []
    return [f"run {c.run_id} ({c.file}): {c.words()}" for c in check_runs(ws, plan, run_ids)]


def print_result(r: Any) -> None:
    """One line per file (and one per warning): a line break or escape sequence in a file name is printed as
    ``\\n`` / ``\\x1b``, so a name can never forge a line of this output."""
    if r.status == "failed":
        print(f"FAILED     {for_terminal(r.error)}")
        return
    if r.status == "skipped":
        print(f"skipped    {for_terminal(r.error)}")
        return
    ids = ",".join(str(i) for i in r.run_ids)
    if r.status == "duplicate":
        print(f"duplicate  {for_terminal(r.path)}  (already imported as run {ids})")
        return
    print(f"imported   {for_terminal(r.path)}  [{r.format}] run {ids}, {r.rows:,} rows")
    for w in r.warnings:
        print(f"  warning: {for_terminal(render_stored(w, 'cli', r.run_ids[0] if r.run_ids else 'ID'))}")


def _mapping_format(ws: Workspace, name: str, opts: ImportOptions) -> str:
    from app.mappings import MappingError, format_id, get_mapping

    try:
        spec = get_mapping(ws, name)
    except MappingError as e:
        raise UsageError(str(e)) from None
    if spec is None:
        raise UsageError(f"no mapping named {name!r} in {ws.path} (see 'mapping list')")
    opts.mapping = spec
    return format_id(spec)


IMPORT = Command("import", "import trace files, folders (recursive) or .zip archives", arguments, run)
