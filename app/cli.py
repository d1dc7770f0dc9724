"""StormScope command line: every job the window does, scriptable (no Qt here).

    python main.py import PATH... [-w WS] [--interval S] [--first-report MODE] [--name N] [--tag K=V]... [--json]
    python main.py runs [-w WS] [--json]
    python main.py sql "QUERY" [-w WS] [--format table|csv|json]
    python main.py analyze latency -w WS --run ID [--device D] [--op all|read|write] [--threshold-ms 50] [--json]
    python main.py analyze histo -w WS --run ID [--device D] [--json]

Exit codes: 0 success, 1 some input failed (the rest was still done), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from app.workspace import Workspace, default_workspace_path
from parsers.base import ImportOptions, JobState


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 on usage errors, as we want
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _add_ws(p: argparse.ArgumentParser) -> None:
    p.add_argument("-w", "--workspace", metavar="WS",
                   help="workspace file (.duckdb); default $STORMSCOPE_WORKSPACE or the user data folder")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="main.py", description="StormScope: storage-performance trace analysis.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("import", help="import trace files or folders (recursive)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    _add_ws(p)
    p.add_argument("--interval", type=float, metavar="S",
                   help="seconds between reports, for files without timestamps (the 5 of 'iostat 5')")
    p.add_argument("--first-report", choices=["auto", "since-boot", "interval"], default="auto",
                   help="what iostat's first report covers (default auto: since boot unless the file proves -y)")
    p.add_argument("--name", help="run name (default: the file name)")
    p.add_argument("--tag", action="append", default=[], metavar="K=V", help="tag the imported runs (repeatable)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")

    p = sub.add_parser("runs", help="list the runs in the workspace")
    _add_ws(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("sql", help="run a read-only SQL query over the workspace")
    p.add_argument("query")
    _add_ws(p)
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")

    p = sub.add_parser("analyze", help="analyse an imported run (latency shares, histogram summaries)")
    asub = p.add_subparsers(dest="analysis", metavar="ANALYSIS", parser_class=_Parser)
    a = asub.add_parser("latency", help="share of I/O answered within a threshold, from latency histograms")
    _add_ws(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--device", metavar="SUBSTRING", help="only series whose device contains this text")
    a.add_argument("--op", choices=["all", "read", "write"], default="all")
    a.add_argument("--threshold-ms", type=float, default=50.0, metavar="MS", help="latency threshold (default 50)")
    a.add_argument("--json", action="store_true")
    a = asub.add_parser("histo", help="per sample: IOPS, MB/s, read/write IOPS, mean latency, share <= 50 ms")
    _add_ws(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--device", metavar="SUBSTRING", help="only series whose device contains this text")
    a.add_argument("--json", action="store_true")

    p = sub.add_parser("gui", help="open the window (and import PATHs)")
    p.add_argument("paths", nargs="*", metavar="PATH")
    _add_ws(p)
    return ap


def _ws_path(args: argparse.Namespace) -> Path:
    return Path(args.workspace) if args.workspace else default_workspace_path()


def _jsonable(v: Any) -> Any:
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and v != v:
        return None
    return v


def cmd_import(args: argparse.Namespace) -> int:
    tags: dict[str, str] = {}
    for t in args.tag:
        if "=" not in t:
            raise UsageError(f"--tag wants KEY=VALUE, got {t!r}")
        k, v = t.split("=", 1)
        tags[k.strip()] = v
    if args.interval is not None and args.interval <= 0:
        raise UsageError("--interval must be a positive number of seconds")
    opts = ImportOptions(interval_s=args.interval, first_report=args.first_report, name=args.name, tags=tags)
    from app.importer import import_file, walk_paths

    missing = [p for p in args.paths if not Path(p).exists()]
    files = walk_paths(p for p in args.paths if Path(p).exists())
    results = []
    with Workspace(_ws_path(args)) as ws:
        for f in missing:
            from app.workspace import ImportResult
            results.append(ImportResult(path=f, status="failed", error=f"{f}: no such file or folder"))
        for f, in_folder in files:
            r = import_file(ws, f, opts, JobState(), in_folder=in_folder)
            results.append(r)
            if not args.json:
                _print_result(r)
    if args.json:
        print(json.dumps([r.as_json() for r in results], indent=2))
    else:
        for r in results[: len(missing)]:
            _print_result(r)
        n_ok = sum(r.status == "imported" for r in results)
        n_dup = sum(r.status == "duplicate" for r in results)
        n_bad = sum(r.status == "failed" for r in results)
        n_skip = sum(r.status == "skipped" for r in results)
        print(f"{n_ok} imported, {n_dup} duplicate, {n_bad} failed"
              + (f", {n_skip} skipped (not traces)" if n_skip else ""), file=sys.stderr)
    return 1 if any(r.status == "failed" for r in results) else 0


def _print_result(r: Any) -> None:
    if r.status == "failed":
        print(f"FAILED     {r.error}")
        return
    if r.status == "skipped":
        print(f"skipped    {r.error}")
        return
    ids = ",".join(str(i) for i in r.run_ids)
    if r.status == "duplicate":
        print(f"duplicate  {r.path}  (already imported as run {ids})")
        return
    print(f"imported   {r.path}  [{r.format}] run {ids}, {r.rows:,} rows")
    for w in r.warnings:
        print(f"  warning: {w}")


def cmd_runs(args: argparse.Namespace) -> int:
    path = _ws_path(args)
    if not path.exists():
        print("[]" if args.json else f"no workspace at {path} (import something first)")
        return 0
    with Workspace(path, read_only=True) as ws:
        runs = ws.runs()
    if args.json:
        print(json.dumps(_jsonable(runs), indent=2))
        return 0
    if not runs:
        print("no runs")
        return 0
    for r in runs:
        period = ""
        if r["started_at"]:
            period = f"{r['started_at']:%Y-%m-%d %H:%M:%S}"
            if r["ended_at"]:
                period += f" → {r['ended_at']:%H:%M:%S}"
        interval = f"{r['interval_s']:g} s" if r["interval_s"] else "interval ?"
        tags = " ".join(f"{k}={v}" for k, v in (r["tags"] or {}).items())
        print(f"{r['run_id']:>4}  {r['kind']:<8} {r['name'][:40]:<40} {r['host'] or '-':<20} "
              f"{r['n_samples'] or 0:>5} reports  {r['n_devices'] or 0:>3} devices  {interval:<10} {period} {tags}")
    return 0


def format_table(columns: list[str], rows: list[tuple], max_width: int = 40) -> str:
    def cell(v: Any) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, float):
            return f"{v:.6g}"
        s = str(v)
        return s if len(s) <= max_width else s[: max_width - 1] + "…"

    cells = [[cell(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    for r in cells:
        lines.append("  ".join(v.rjust(w) if _numeric(v) else v.ljust(w) for v, w in zip(r, widths)))
    return "\n".join(lines)


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def cmd_sql(args: argparse.Namespace) -> int:
    import duckdb

    path = _ws_path(args)
    if not path.exists():
        print(f"error: no workspace at {path}", file=sys.stderr)
        return 1
    with Workspace(path, read_only=True) as ws:
        try:
            cur = ws.con.execute(args.query)
        except duckdb.Error as e:
            print(f"SQL error: {e}", file=sys.stderr)
            return 1
        if cur.description is None:
            return 0
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
    if args.format == "json":
        print(json.dumps([_jsonable(dict(zip(cols, r))) for r in rows], indent=2))
    elif args.format == "csv":
        import csv

        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(cols)
        w.writerows(rows)
    else:
        print(format_table(cols, rows))
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from app.analysis.histograms import AnalysisError, histo_summary, latency_share

    if args.analysis is None:
        raise UsageError("choose an analysis: latency or histo (see 'analyze --help')")
    if args.analysis == "latency" and args.threshold_ms <= 0:
        raise UsageError("--threshold-ms must be a positive number of milliseconds")
    path = _ws_path(args)
    if not path.exists():
        print(f"error: no workspace at {path}", file=sys.stderr)
        return 1
    with Workspace(path, read_only=True) as ws:
        try:
            if args.analysis == "latency":
                res = latency_share(ws, args.run, args.threshold_ms, args.op, args.device)
            else:
                res = histo_summary(ws, args.run, args.device)
        except AnalysisError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(_jsonable(res), indent=2))
    elif args.analysis == "latency":
        print(format_latency(res))
    else:
        print(format_histo(res))
    return 0


def _pct(v: float | None) -> str:
    return "?" if v is None else f"{v * 100:.2f} %"


def _pct_pair(lo: float | None, hi: float | None) -> tuple[str, str]:
    """Two percentages with as many decimals as it takes to tell them apart (up to 6)."""
    if lo is None or hi is None:
        return _pct(lo), _pct(hi)
    for d in range(2, 7):
        a, b = f"{lo * 100:.{d}f} %", f"{hi * 100:.{d}f} %"
        if a != b:
            break
    return a, b


def format_latency(r: dict[str, Any]) -> str:
    t = f"{r['threshold_ms']:g} ms"
    lines = [f"run {r['run_id']} ({r['kind']}), op {r['op']}: {r['ios']:,} I/Os in {len(r['devices'])} series "
             f"({', '.join(r['devices'])}), {r['samples']} sample{'s' if r['samples'] != 1 else ''}"]
    if r["exact"]:
        lines.append(f"<= {t}: {r['under']:,} I/Os = {_pct(r['share'])}  (exact)")
    else:
        lo, hi = r["under_bounds"]
        lo_s, hi_s = _pct_pair(r["bounds"][0], r["bounds"][1])
        lines.append(f"<= {t}: between {lo_s} and {hi_s} "
                     f"({lo:,} to {hi:,} I/Os)  (bounds, not exact)")
        if r["estimate"] is not None:
            decimals = len(lo_s.split(".")[1].split()[0]) if "." in lo_s else 2
            lines.append(f"   ESTIMATE {r['estimate'] * 100:.{decimals}f} % by linear interpolation inside the bucket "
                         "(an estimate, not a measurement)")
    lines.append(f"   {r['method']}")
    parts = []
    for k, v in r["percentiles_ms"].items():
        if v is None:
            continue
        lo, hi = v["bounds_ms"]
        rng = f"{'-inf' if lo is None else f'{lo:.4g}'}-{'+inf' if hi is None else f'{hi:.4g}'} ms"
        est = "" if v["estimate_ms"] is None else f", estimate {v['estimate_ms']:.4g}"
        parts.append(f"{k.replace('_', '.')} in {rng}{est}")
    if parts:
        lines.append("percentiles (bucket that holds each; estimates interpolated): " + "; ".join(parts))
    return "\n".join(lines)


def format_histo(r: dict[str, Any]) -> str:
    cols = ["sample", "t_s", "device", "IOPS", "read IOPS", "write IOPS", "MB/s", "mean lat ms", "seq %",
            "<= 50 ms"]
    rows = []
    estimated = False

    def num(v: float | None, fmt: str = "{:,.1f}") -> str:
        return "-" if v is None else fmt.format(v)

    for s in r["samples"]:
        if s["share_50ms_exact"] is None:
            share = "-"
        elif s["share_50ms_exact"]:
            share = _pct(s["share_50ms"])
        else:
            estimated = True
            lo, hi = s["share_50ms_bounds"]
            lo_s, hi_s = _pct_pair(lo, hi)
            share = f"{lo_s}-{hi_s} (est. {_pct(s['share_50ms_estimate'])})*"
        rows.append((s["sample_idx"], num(s["t_s"], "{:g}"), s["device"], num(s["iops"]), num(s["read_iops"]),
                     num(s["write_iops"]), num(s["mb_s"], "{:,.2f}"), num(s["mean_latency_ms"], "{:,.3f}"),
                     num(None if s["seq_share"] is None else s["seq_share"] * 100), share))
    out = [f"run {r['run_id']} ({r['kind']})"
           + (f", interval {r['interval_s']:g} s" if r.get("interval_s") else ""), format_table(cols, rows, 60)]
    if estimated:
        out.append("* bounds from the buckets; the estimate in brackets is a linear interpolation, "
                   "not a measurement")
    out.append("MB/s: 1 MB = 1024 KB = 1,048,576 bytes")
    out += [f"note: {n}" for n in r["notes"]]
    return "\n".join(out)


COMMANDS = {"import": cmd_import, "runs": cmd_runs, "sql": cmd_sql, "analyze": cmd_analyze}


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.command is None:
        ap.print_help()
        return 2
    try:
        return COMMANDS[args.command](args)
    except UsageError as e:
        print(f"main.py {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
