"""StormScope command line: every job the window does, scriptable (no Qt here).

    python main.py import PATH... [-w WS] [--interval S] [--first-report MODE] [--name N] [--tag K=V]... [--json]
    python main.py runs [-w WS] [--json]
    python main.py sql "QUERY" [-w WS] [--format table|csv|json]
    python main.py analyze latency -w WS --run ID [--device D] [--op all|read|write] [--threshold-ms 50] [--json]
    python main.py analyze histo -w WS --run ID [--device D] [--json]
    python main.py report -w WS [--runs ID...] [--title T] [--customer C] [--logo PNG] [--template NAME]
                          [--anonymise] -o OUT.pdf
    python main.py analyze series|storm|cap -w WS --run ID [--device D] ...  (see README, "Analyses")
    python main.py compare -w WS --runs ID ID... [--json]
    python main.py size --users N --iops-per-user X [--read-pct P] [--raid L] [--disk-iops N | --disk-type T] ...
    python main.py phase add|list|delete|detect -w WS --run ID ...;  python main.py marker add|list|delete ...
    python main.py import PATH... [--ram-gb GB] [--mapping NAME];  python main.py mapping save|list|show|delete ...
    python main.py question add|list|answer|edit|move|delete ...  (questions a report answers; app.cli_question)

Exit codes: 0 success, 1 some input failed (the rest was still done), 2 usage error or the workspace is open
in another process (the window, or another command).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from app.analysis.text import for_cli, for_cli_json, render_stored
from app.workspace import Workspace, default_workspace_path
from app.workspace_lock import WorkspaceLocked, cli_message
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
    p.add_argument("--ram-gb", type=float, metavar="GB",
                   help="the tested host's RAM: IOzone results on a smaller data set are flagged 'page cache likely'")
    p.add_argument("--mapping", metavar="NAME", help="read CSV/TSV files through this saved column mapping "
                   "(see 'mapping list')")
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

    add_analysis_parsers(asub)  # series, storm, cap
    add_analysis_commands(sub)  # compare, size, phase, marker
    add_mapping_parser(sub)  # mapping save|list|show|delete
    from app.cli_report import add_report_parser

    add_report_parser(sub, _add_ws)  # report
    from app.cli_run import add_run_parser

    add_run_parser(sub, _add_ws)  # run ID --interval/--first-report/--rename/--tag/--delete
    from app.cli_question import add_question_parser

    add_question_parser(sub, _add_ws)  # question add|list|answer|edit|move|delete

    p = sub.add_parser("gui", help="open the window (and import PATHs)")
    p.add_argument("paths", nargs="*", metavar="PATH")
    _add_ws(p)
    return ap


def _ws_path(args: argparse.Namespace) -> Path:
    return Path(args.workspace) if args.workspace else default_workspace_path()


def _jsonable(v: Any) -> Any:
    """Values as JSON can hold them: dates as ISO text, NaN as null, objects by their as_dict()."""
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if hasattr(v, "as_dict"):
        return _jsonable(v.as_dict())
    v = for_cli_json(v)  # a note that names a fix: the command line's words
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
    if args.ram_gb is not None and args.ram_gb <= 0:
        raise UsageError("--ram-gb must be a positive number of GB")
    opts.ram_gb = args.ram_gb
    from app.importer import import_file, walk_paths

    missing = [p for p in args.paths if not Path(p).exists()]
    files = walk_paths(p for p in args.paths if Path(p).exists())
    results = []
    with Workspace(_ws_path(args)) as ws:
        fmt_id = _mapping_format(ws, args.mapping, opts) if args.mapping else None
        for f in missing:
            from app.workspace import ImportResult
            results.append(ImportResult(path=f, status="failed", error=f"{f}: no such file or folder"))
        for f, in_folder in files:
            r = import_file(ws, f, opts, JobState(), fmt_id=fmt_id, in_folder=in_folder)
            results.append(r)
            if not args.json:
                _print_result(r)
    if args.json:
        out = [r.as_json() for r in results]
        for r, j in zip(results, out):
            j["warnings"] = [render_stored(w, "cli", r.run_ids[0] if r.run_ids else "ID") for w in r.warnings]
        print(json.dumps(out, indent=2))
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
        print(f"  warning: {render_stored(w, 'cli', r.run_ids[0] if r.run_ids else 'ID')}")


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

    if args.analysis in ANALYSES5:
        return cmd_analysis5(args)
    if args.analysis is None:
        raise UsageError("choose an analysis: latency, histo, series, storm or cap (see 'analyze --help')")
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
            print(f"error: {for_cli(e)}", file=sys.stderr)
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


def format_latency(r: dict[str, Any]) -> str:
    from app.analysis.text import pct_pair

    t = f"{r['threshold_ms']:g} ms"
    lines = [f"run {r['run_id']} ({r['kind']}), op {r['op']}: {r['ios']:,} I/Os in {len(r['devices'])} series "
             f"({', '.join(r['devices'])}), {r['samples']} sample{'s' if r['samples'] != 1 else ''}"]
    if r["exact"]:
        lines.append(f"<= {t}: {r['under']:,} I/Os = {_pct(r['share'])}  (exact)")
    else:
        lo, hi = r["under_bounds"]
        lo_s, hi_s = pct_pair(r["bounds"][0], r["bounds"][1])
        lines.append(f"<= {t}: between {lo_s} and {hi_s} "
                     f"({lo:,} to {hi:,} I/Os)  (bounds, not exact)")
        if r["estimate"] is not None:
            decimals = len(lo_s.split(".")[1].split()[0]) if "." in lo_s else 2
            lines.append(f"   ESTIMATE {r['estimate'] * 100:.{decimals}f} % by linear interpolation inside the bucket "
                         "(an estimate, not a measurement)")
    lines.append(f"   {r['method']}")
    lines.append(f"   from the {r['source']}")
    if r.get("kind") == "vscsistats":
        lines.append(f"   histogram counts: {r['counts']}")
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
    from app.analysis.text import pct_pair

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
            lo_s, hi_s = pct_pair(lo, hi)
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
    out += [f"note: {for_cli(n)}" for n in r["notes"]]
    return "\n".join(out)


# ---- analyses: series, storm, cap, compare, size, phases and markers (issue 5) ----------------------------
def add_analysis_parsers(asub: Any) -> None:
    """``analyze series|storm|cap``."""

    def common(a: argparse.ArgumentParser) -> None:
        _add_ws(a)
        a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
        a.add_argument("--device", metavar="D[,D...]", help="exact device name(s); default: the whole disks")

    a = asub.add_parser("series", help="IOPS and throughput per interval (resampled, aligned)")
    common(a)
    a.add_argument("--every", type=float, metavar="S", help="resample to S-second time-weighted means")
    a.add_argument("--align", default="start", metavar="MODE",
                   help="start | activity | offset:S | marker:NAME (t = 0 there; default start)")
    a.add_argument("--activity-iops", type=float, default=100.0, metavar="N",
                   help="activity = intervals above N IOPS (default 100)")
    a.add_argument("--activity-intervals", type=int, default=3, metavar="K",
                   help="... for K consecutive intervals (default 3; 1 = the first interval above N)")
    a.add_argument("--normalise", "--normalize", action="store_true", help="add t_norm (0-1 of the run's length)")
    g = a.add_mutually_exclusive_group()
    g.add_argument("--csv", action="store_true")
    g.add_argument("--json", action="store_true")

    a = asub.add_parser("storm", help="peak, time to peak, time above, settle time, totals, percentiles, per phase")
    common(a)
    a.add_argument("--every", type=float, metavar="S", help="resample to S-second means first")
    a.add_argument("--threshold-iops", type=float, metavar="N", help="for 'time above' (default 50 %% of the peak)")
    a.add_argument("--settle-pct", type=float, default=10.0, metavar="X", help="settled below X %% of the peak")
    a.add_argument("--settle-intervals", type=int, default=3, metavar="N", help="... for N intervals (default 3)")
    a.add_argument("--activity-iops", type=float, default=100.0, metavar="N")
    a.add_argument("--activity-intervals", type=int, default=3, metavar="K")
    a.add_argument("--phases", choices=["auto", "stored", "detect", "none"], default="auto",
                   help="auto: stored phases if any, else detected (default)")
    _add_range(a)
    a.add_argument("--json", action="store_true")

    a = asub.add_parser("cap", help="did an IOPS / bandwidth cap hold? (windows of >= 10 s)")
    common(a)
    a.add_argument("--iops-cap", type=float, metavar="N")
    a.add_argument("--bw-cap-kbs", type=float, metavar="N", help="bandwidth cap in kB/s (1 kB = 1024 bytes)")
    a.add_argument("--op", choices=["total", "read", "write"], default="total")
    a.add_argument("--tolerance-pct", type=float, default=5.0, metavar="P", help="default 5")
    a.add_argument("--window-s", type=float, default=10.0, metavar="S", help="window length, >= 10 (default 10)")
    a.add_argument("--burst-iops", type=float, metavar="N", help="burst max (libvirt *_iops_sec_max)")
    a.add_argument("--burst-kbs", type=float, metavar="N", help="burst max in kB/s (libvirt *_bytes_sec_max)")
    a.add_argument("--burst-s", type=float, metavar="S", help="burst length (libvirt *_max_length)")
    a.add_argument("--burst-start-s", type=float, metavar="S", help="when the burst allowance starts "
                   "(default: the first report above the limit)")
    _add_range(a)
    a.add_argument("--json", action="store_true")


def _add_range(a: argparse.ArgumentParser) -> None:
    """``--from S --to S``: only the reports whose midpoint lies in [S, S) s of the run (a zoomed chart)."""
    a.add_argument("--from", dest="t_from", type=float, metavar="S",
                   help="only reports whose midpoint is at or after S s of the run (with --to)")
    a.add_argument("--to", dest="t_to", type=float, metavar="S", help="... and before S s (with --from)")


def _range_arg(args: argparse.Namespace) -> tuple[float, float] | None:
    lo, hi = getattr(args, "t_from", None), getattr(args, "t_to", None)
    if lo is None and hi is None:
        return None
    lo = float("-inf") if lo is None else lo
    hi = float("inf") if hi is None else hi
    if not hi > lo:
        raise UsageError("--to must be after --from")
    return lo, hi


def add_analysis_commands(sub: Any) -> None:
    """``compare``, ``size``, ``phase``, ``marker``."""
    p = sub.add_parser("compare", help="runs side by side per metric and phase (delta, ratio)")
    _add_ws(p)
    p.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID", help="two or more; the first is "
                   "the baseline")
    p.add_argument("--device", metavar="D[,D...]")
    p.add_argument("--every", type=float, metavar="S")
    p.add_argument("--threshold-iops", type=float, metavar="N", help="'time above' (default 50 %% of the "
                   "baseline's peak)")
    p.add_argument("--phases", choices=["auto", "stored", "detect", "none"], default="auto")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("size", help="VDI storage sizing: front-end, back-end IOPS, disks")
    _add_ws(p)
    p.add_argument("--users", type=int, metavar="N")
    p.add_argument("--iops-per-user", type=float, metavar="X")
    p.add_argument("--read-pct", type=float, metavar="P", help="reads in %% of I/O (default 40)")
    p.add_argument("--raid", metavar="LEVEL", help="0|1|10|5|6|50|60|dp (default 10)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--disk-iops", type=float, metavar="N")
    g.add_argument("--disk-type", metavar="TYPE", help="sata5k|sata7k|sas10k|sas15k|ssd|nvme (default sata7k)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--storm-multiplier", type=float, metavar="M")
    g.add_argument("--storm", metavar="PRESET", help="login-storm|worst-storm|domain-low|domain-high|none")
    p.add_argument("--gb-per-user", type=float, metavar="G")
    p.add_argument("--disk-gb", type=float, metavar="D")
    p.add_argument("--profile", metavar="NAME", help="user profile preset (office-8, office-25, ...)")
    p.add_argument("--presets", metavar="FILE", help="JSON file merged over the built-in presets")
    p.add_argument("--list-presets", action="store_true", help="print the presets (JSON) and exit")
    p.add_argument("--measured-run", type=int, metavar="ID", help="take IOPS per user, read share and storm "
                   "multiplier from this iostat run")
    p.add_argument("--vms", type=int, metavar="N", help="number of VMs in the measured run")
    p.add_argument("--steady-run", type=int, metavar="ID")
    p.add_argument("--steady-phase", metavar="NAME")
    p.add_argument("--every", type=float, metavar="S", help="resample the measured run first (e.g. 5)")
    p.add_argument("--device", metavar="D[,D...]")
    p.add_argument("--rt-run", type=int, metavar="ID", help="response-time check on this run")
    p.add_argument("--rt-threshold-ms", type=float, default=50.0, metavar="MS")
    p.add_argument("--rt-goal-pct", type=float, default=80.0, metavar="P")
    p.add_argument("--json", action="store_true")

    for what in ("phase", "marker"):
        p = sub.add_parser(what, help=f"add, list or delete the {what}s of a run"
                           + (" (or detect phases)" if what == "phase" else ""))
        psub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
        actions = ["add", "list", "delete"] + (["detect"] if what == "phase" else [])
        for act in actions:
            a = psub.add_parser(act)
            _add_ws(a)
            a.add_argument("--run", type=int, required=True, metavar="ID")
            if act in ("add", "delete"):
                a.add_argument("--name", required=True)
            if act == "add" and what == "phase":
                a.add_argument("--start", type=float, required=True, metavar="S")
                a.add_argument("--end", type=float, required=True, metavar="S")
            if act == "add" and what == "marker":
                a.add_argument("--t", type=float, required=True, metavar="S")
            if act == "detect":
                a.add_argument("--device", metavar="D[,D...]")
                a.add_argument("--every", type=float, metavar="S")
                a.add_argument("--max-phases", type=int, default=5, metavar="N")
                a.add_argument("--save", action="store_true", help="store them (source 'auto')")
            a.add_argument("--json", action="store_true")


def _open_ws(args: argparse.Namespace, read_only: bool = True) -> Workspace | None:
    path = _ws_path(args)
    if not path.exists():
        print(f"error: no workspace at {path}", file=sys.stderr)
        return None
    return Workspace(path, read_only=read_only)


def _print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), indent=2))


def cmd_analysis5(args: argparse.Namespace) -> int:
    """``analyze series|storm|cap``."""
    from app.analysis import text
    from app.analysis.cap import cap_report
    from app.analysis.series import AnalysisError, run_series
    from app.analysis.storm import StormParams, storm_report

    if getattr(args, "every", None) is not None and args.every <= 0:
        raise UsageError("--every must be a positive number of seconds")
    if args.analysis == "cap" and args.iops_cap is None and args.bw_cap_kbs is None:
        raise UsageError("give --iops-cap and/or --bw-cap-kbs")
    ws = _open_ws(args)
    if ws is None:
        return 1
    with ws:
        try:
            if args.analysis == "series":
                s = run_series(ws, args.run, args.device, align_mode=args.align, every_s=args.every,
                               normalise=args.normalise, activity_iops=args.activity_iops,
                               activity_intervals=args.activity_intervals)
                if args.csv:
                    sys.stdout.write(s.frame.write_csv())
                    return 0
                out: Any = s
            elif args.analysis == "storm":
                params = StormParams(threshold_iops=args.threshold_iops, settle_pct=args.settle_pct,
                                     settle_intervals=args.settle_intervals, activity_iops=args.activity_iops,
                                     activity_intervals=args.activity_intervals)
                out = storm_report(ws, args.run, args.device, params, phases=args.phases, every_s=args.every,
                                   t_range=_range_arg(args))
            else:
                out = cap_report(ws, args.run, args.device, iops_cap=args.iops_cap, bw_cap_kbs=args.bw_cap_kbs,
                                 op=args.op, tolerance_pct=args.tolerance_pct, window_s=args.window_s,
                                 burst_iops=args.burst_iops, burst_kbs=args.burst_kbs, burst_s=args.burst_s,
                                 burst_start_s=args.burst_start_s, t_range=_range_arg(args))
        except AnalysisError as e:
            print(f"error: {for_cli(e)}", file=sys.stderr)
            return 1
    if args.json:
        _print_json(out.as_dict())
    else:
        fmt = {"series": text.format_series, "storm": text.format_storm, "cap": text.format_cap}[args.analysis]
        print(fmt(out))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from app.analysis.compare import compare_runs
    from app.analysis.series import AnalysisError
    from app.analysis.text import format_compare

    if len(args.runs) < 2:
        raise UsageError("--runs wants two or more run ids")
    ws = _open_ws(args)
    if ws is None:
        return 1
    with ws:
        try:
            res = compare_runs(ws, args.runs, args.device, threshold_iops=args.threshold_iops, every_s=args.every,
                               phases=args.phases)
        except AnalysisError as e:
            print(f"error: {for_cli(e)}", file=sys.stderr)
            return 1
    if args.json:
        _print_json(res.as_dict())
    else:
        print(format_compare(res))
    return 0


def cmd_size(args: argparse.Namespace) -> int:
    from app.analysis.series import AnalysisError
    from app.analysis.sizing import measured_inputs, response_time_check, size_vdi
    from app.analysis.sizing_presets import load_presets
    from app.analysis.text import format_sizing

    try:
        presets = load_presets(args.presets)
    except (OSError, ValueError) as e:
        raise UsageError(f"--presets: {e}") from e
    if args.list_presets:
        _print_json(presets)
        return 0
    if args.users is None:
        raise UsageError("--users is required")
    if (args.measured_run is None) != (args.vms is None):
        raise UsageError("--measured-run and --vms go together")
    measured = rt = None
    if args.measured_run is not None or args.rt_run is not None:
        ws = _open_ws(args)
        if ws is None:
            return 1
        with ws:
            try:
                if args.measured_run is not None:
                    measured = measured_inputs(ws, args.measured_run, args.vms, device=args.device,
                                               steady_run=args.steady_run, steady_phase=args.steady_phase,
                                               every_s=args.every)
                if args.rt_run is not None:
                    rt = response_time_check(ws, args.rt_run, threshold_ms=args.rt_threshold_ms,
                                             goal_pct=args.rt_goal_pct, device=args.device)
            except AnalysisError as e:
                print(f"error: {for_cli(e)}", file=sys.stderr)
                return 1
    try:
        res = size_vdi(args.users, args.iops_per_user, read_pct=args.read_pct, raid=args.raid,
                       disk_iops=args.disk_iops, disk_type=args.disk_type, storm_multiplier=args.storm_multiplier,
                       storm=args.storm, gb_per_user=args.gb_per_user, disk_gb=args.disk_gb, profile=args.profile,
                       presets=presets, measured=measured)
    except AnalysisError as e:
        raise UsageError(for_cli(e)) from e
    res.response_time = rt
    out = res.as_dict()
    if measured is not None:
        out["measured"] = measured
    if args.json:
        _print_json(out)
    else:
        print(format_sizing(res))
        if measured is not None:
            m = measured
            print(f"measured (run {m['run_id']}, {m['vms']} VMs): peak {m['peak_iops']:,.1f} IOPS, steady "
                  f"{m['steady_iops']:,.1f} IOPS ({m['method']['steady']}); per user {m['iops_per_user']:.2f} IOPS, "
                  f"storm x{m['storm_multiplier']:.2f}")
    return 0


def cmd_phase_marker(args: argparse.Namespace) -> int:
    from app.analysis import phases as ph
    from app.analysis.series import AnalysisError, load_series, resample
    from app.analysis.text import format_phases

    if args.action is None:
        raise UsageError(f"choose an action: add, list, delete{', detect' if args.command == 'phase' else ''}")
    writes = args.action in ("add", "delete") or (args.action == "detect" and args.save)
    ws = _open_ws(args, read_only=not writes)
    if ws is None:
        return 1
    out: Any
    with ws:
        try:
            if args.command == "phase" and args.action == "add":
                out = ph.add_phase(ws, args.run, args.name, args.start, args.end).as_dict()
            elif args.command == "marker" and args.action == "add":
                ph.add_marker(ws, args.run, args.name, args.t)
                out = {"run_id": args.run, "name": args.name, "t_s": args.t}
            elif args.action == "delete":
                fn = ph.delete_phase if args.command == "phase" else ph.delete_marker
                if not fn(ws, args.run, args.name):
                    print(f"error: run {args.run} has no {args.command} {args.name!r}", file=sys.stderr)
                    return 1
                out = {"deleted": args.name}
            elif args.action == "detect":
                s = load_series(ws, args.run, args.device)
                if args.every:
                    s = resample(s, args.every)
                found = ph.detect_phases(s, max_phases=args.max_phases)
                if args.save:
                    found = ph.save_detected(ws, args.run, found)
                out = {"run_id": args.run, "phases": [p.as_dict() for p in found], "saved": args.save,
                       "method": ph.detection_method(args.max_phases), "series": s.method()}
                if not args.json:
                    out = format_phases(args.run, found, {}) + (
                        "\n(detected automatically: change points of the IOPS level; "
                        + ("saved" if args.save else "not saved: add --save to store them") + ")")
            else:
                phases, markers = ph.list_phases(ws, args.run), ph.list_markers(ws, args.run)
                if ws.run(args.run) is None:
                    raise AnalysisError(f"no run {args.run} in this workspace")
                out = {"run_id": args.run, "phases": [p.as_dict() for p in phases], "markers": markers}
                if not args.json:
                    out = format_phases(args.run, phases, markers)
        except AnalysisError as e:
            print(f"error: {for_cli(e)}", file=sys.stderr)
            return 1
    if isinstance(out, str):
        print(out)
    elif args.json:
        _print_json(out)
    elif args.action == "delete":
        print(f"deleted {args.command} {args.name!r} of run {args.run}")
    elif args.command == "phase":
        print(f"stored phase {args.name!r} of run {args.run}: {args.start:g}-{args.end:g} s (manual)")
    else:
        print(f"stored marker {args.name!r} of run {args.run} at {args.t:g} s")
    return 0


ANALYSES5 = {"series", "storm", "cap"}
MORE_COMMANDS = {"compare": cmd_compare, "size": cmd_size, "phase": cmd_phase_marker, "marker": cmd_phase_marker}


# ---- saved column mappings for CSV/TSV results (issue 4; app.mappings) -------------------------------------
def add_mapping_parser(sub: Any) -> None:
    """``mapping save|list|show|delete``."""
    p = sub.add_parser("mapping", help="save, list, show or delete column mappings for CSV/TSV results")
    msub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    a = msub.add_parser("save", help="save a mapping: which column of the file holds which value")
    a.add_argument("name")
    _add_ws(a)
    a.add_argument("--kind", default="iomark", choices=["iomark"], help="target table (default iomark)")
    a.add_argument("--column", action="append", default=[], metavar="TARGET=SOURCE",
                   help="TARGET column (users, iops, resp_avg_ms, ...) is the file's column SOURCE (repeatable)")
    a.add_argument("--scale", action="append", default=[], metavar="TARGET=FACTOR",
                   help="multiply TARGET by FACTOR (e.g. resp_avg_ms=0.001 for microseconds)")
    a.add_argument("--set", action="append", default=[], metavar="TARGET=VALUE",
                   help="fixed value for a column the file lacks (e.g. workload=IOmark-VM)")
    a.add_argument("--delimiter", choices=[",", ";", "tab", "|", "auto"], default="auto")
    a.add_argument("--decimal", choices=[".", ","], default=".")
    a.add_argument("--skip-rows", type=int, default=0, metavar="N", help="lines before the header row")
    a.add_argument("--description")
    a.add_argument("--replace", action="store_true", help="overwrite a mapping of the same name")
    for act in ("list", "show", "delete"):
        a = msub.add_parser(act, help=f"{act} saved mappings" if act == "list" else f"{act} a mapping")
        if act != "list":
            a.add_argument("name")
        _add_ws(a)
        if act != "delete":
            a.add_argument("--json", action="store_true")


def _mapping_format(ws: Workspace, name: str, opts: ImportOptions) -> str:
    from app.mappings import format_id, get_mapping

    spec = get_mapping(ws, name)
    if spec is None:
        raise UsageError(f"no mapping named {name!r} in {ws.path} (see 'mapping list')")
    opts.mapping = spec
    return format_id(spec)


def cmd_mapping(args: argparse.Namespace) -> int:
    from app.mappings import MappingError, delete_mapping, get_mapping, list_mappings, parse_pairs, save_mapping

    if args.action is None:
        raise UsageError("choose an action: save, list, show or delete (see 'mapping --help')")
    path = _ws_path(args)
    if args.action == "save":
        try:
            spec = {"kind": args.kind, "columns": parse_pairs(args.column, "--column"),
                    "scale": parse_pairs(args.scale, "--scale"), "constants": parse_pairs(args.set, "--set"),
                    "delimiter": args.delimiter, "decimal": args.decimal, "skip_rows": args.skip_rows,
                    "description": args.description}
            with Workspace(path) as ws:
                clean = save_mapping(ws, args.name, spec, replace=args.replace)
        except MappingError as e:
            raise UsageError(str(e)) from None
        cols = ", ".join(f"{k}={v!r}" for k, v in clean["columns"].items())
        print(f"saved mapping {args.name!r} ({clean['kind']}): {cols}")
        return 0
    if not path.exists():
        print("[]" if getattr(args, "json", False) else f"no workspace at {path}")
        return 0 if args.action == "list" else 1
    with Workspace(path, read_only=args.action != "delete") as ws:
        if args.action == "delete":
            if not delete_mapping(ws, args.name):
                print(f"error: no mapping named {args.name!r}", file=sys.stderr)
                return 1
            print(f"deleted mapping {args.name!r}")
            return 0
        if args.action == "show":
            spec = get_mapping(ws, args.name)
            if spec is None:
                print(f"error: no mapping named {args.name!r}", file=sys.stderr)
                return 1
            print(json.dumps(spec, indent=2, ensure_ascii=False))
            return 0
        maps = list_mappings(ws)
    if args.json:
        print(json.dumps(_jsonable(maps), indent=2, ensure_ascii=False))
    elif not maps:
        print("no mappings (save one with 'mapping save NAME --column TARGET=SOURCE ...')")
    else:
        rows = [(m["name"], m["kind"], ", ".join(f"{k}={v}" for k, v in m["spec"]["columns"].items()),
                 m["spec"].get("description") or "") for m in maps]
        print(format_table(["name", "kind", "columns", "description"], rows, 80))
    return 0


COMMANDS = {"import": cmd_import, "runs": cmd_runs, "sql": cmd_sql, "analyze": cmd_analyze}
COMMANDS.update(MORE_COMMANDS)
COMMANDS["mapping"] = cmd_mapping


def cmd_report(args: argparse.Namespace) -> int:
    from app.cli_report import cmd_report as run_report

    return run_report(args, _ws_path(args))


COMMANDS["report"] = cmd_report


def cmd_run(args: argparse.Namespace) -> int:
    from app.cli_run import cmd_run as run_cmd

    return run_cmd(args, _ws_path(args))


COMMANDS["run"] = cmd_run


def cmd_question(args: argparse.Namespace) -> int:
    from app.cli_question import cmd_question as question_cmd

    return question_cmd(args, _ws_path(args))


COMMANDS["question"] = cmd_question


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
    except WorkspaceLocked as e:  # another window or command has the workspace open: who, and what to do
        print(f"main.py {args.command}: error: {cli_message(e, args.command, getattr(args, 'paths', None))}",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
