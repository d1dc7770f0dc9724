"""``main.py analyze ANALYSIS``: latency shares and histogram summaries (histogram runs), the interval
analyses series, storm and cap (iostat-like runs), and the benchmark results iometer (per test and target, a cap
judged on the test means, a second run compared) and iomark (share within the response-time goal)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.analysis.text import for_cli
from app.cli.common import (
    CliParser,
    Command,
    UsageError,
    add_workspace_arg,
    format_table,
    jsonable,
    open_workspace,
    print_json,
)
from parsers.kinds import TIME_SERIES, has

if TYPE_CHECKING:
    from app.analysis.histograms import LatencyShare


def arguments(p: argparse.ArgumentParser) -> None:
    asub = p.add_subparsers(dest="analysis", metavar="ANALYSIS", parser_class=CliParser)
    a = asub.add_parser("latency", help="share of I/O answered within a threshold, from latency histograms")
    add_workspace_arg(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--device", metavar="SUBSTRING", help="only series whose device contains this text")
    a.add_argument("--op", choices=["all", "read", "write"], default="all")
    a.add_argument("--threshold-ms", type=float, default=50.0, metavar="MS", help="latency threshold (default 50)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=histogram_analysis)
    a = asub.add_parser("histo", help="per sample: IOPS, MB/s, read/write IOPS, mean latency, share <= 50 ms")
    add_workspace_arg(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--device", metavar="SUBSTRING", help="only series whose device contains this text")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=histogram_analysis)

    def common(a: argparse.ArgumentParser) -> None:
        add_workspace_arg(a)
        a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
        a.add_argument("--device", metavar="D[,D...]", help="exact device name(s); default: the whole disks")
        a.set_defaults(handler=interval_analysis)

    a = asub.add_parser("series", help="IOPS and throughput per interval (resampled, aligned)")
    common(a)
    a.add_argument("--every", type=float, metavar="S", help="resample to S-second time-weighted means")
    a.add_argument("--align", default="start", metavar="MODE",
                   help="start | activity | offset:S | marker:NAME | clock (t = 0 there; default start)")
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

    a = asub.add_parser("iometer", help="Iometer results per test and target; did a cap hold (test means)?")
    add_workspace_arg(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--iops-cap", type=float, metavar="N", help="default: a cap question's, else the run's tags")
    a.add_argument("--bw-cap-kbs", type=float, metavar="N", help="bandwidth cap in kB/s (1 kB = 1024 bytes)")
    a.add_argument("--op", choices=["total", "read", "write"], default="total")
    a.add_argument("--tolerance-pct", type=float, default=5.0, metavar="P", help="default 5")
    a.add_argument("--compare-run", type=int, metavar="ID",
                   help="a second Iometer run (e.g. with the limit): ratios compare-run / run")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=iometer_analysis)
    a = asub.add_parser("iomark", help="IOmark results: share of responses within the goal's threshold")
    add_workspace_arg(a)
    a.add_argument("--run", type=int, required=True, metavar="ID", help="run id (see 'runs')")
    a.add_argument("--threshold-ms", type=float, metavar="MS",
                   help="20 or 50 (default: a response-time question's, else 50)")
    a.add_argument("--goal-pct", type=float, metavar="P", help="default: a response-time question's, else 80")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=iomark_analysis)


def iometer_analysis(args: argparse.Namespace) -> int:
    """``analyze iometer``."""
    from app.analysis.bench_results import Cap, compare_iometer, iometer_summary

    if args.tolerance_pct < 0:
        raise UsageError("--tolerance-pct cannot be negative")
    for flag, v in (("--iops-cap", args.iops_cap), ("--bw-cap-kbs", args.bw_cap_kbs)):
        if v is not None and v <= 0:
            raise UsageError(f"{flag} must be a positive number")
    given = Cap(args.iops_cap, args.bw_cap_kbs, args.op, args.tolerance_pct)
    with open_workspace(args) as ws:
        res = iometer_summary(ws, args.run, given)
        cmp = compare_iometer(ws, args.run, args.compare_run) if args.compare_run is not None else None
    if args.json:
        print_json({**res.as_dict(), "comparison": cmp.as_dict() if cmp else None})
        return 0
    print(format_iometer(res))
    if cmp is not None:
        print()
        print(format_iometer_comparison(cmp))
    return 0


def iomark_analysis(args: argparse.Namespace) -> int:
    """``analyze iomark``."""
    from app.analysis.bench_results import iomark_summary

    if args.threshold_ms is not None and args.threshold_ms <= 0:
        raise UsageError("--threshold-ms must be a positive number of milliseconds")
    if args.goal_pct is not None and not 0 < args.goal_pct <= 100:
        raise UsageError("--goal-pct must be above 0 and at most 100")
    with open_workspace(args) as ws:
        res = iomark_summary(ws, args.run, args.threshold_ms, args.goal_pct)
    print(json.dumps(jsonable(res.as_dict()), indent=2) if args.json else format_iomark(res))
    return 0


def _f(v: float | None, digits: int = 2) -> str:
    from app.analysis.bench_results import fmt

    return fmt(v, digits)


def format_iometer(r: Any) -> str:
    from app.analysis.bench_results import cap_text, mean_text

    out = [f"run {r.run_id} ({for_cli(r.run_name)}): Iometer results -> {r.verdict.upper()}", for_cli(r.answer)]
    if r.cap is not None:
        out.append(f"cap from: {r.cap.source}; tolerance {r.cap.tolerance_pct:g} %; op {r.cap.op}")
    rows = [(x.result_set + 1, x.access_spec, x.target, _f(x.iops), _f(x.mb_s, 3), _f(x.mean_ms, 3),
             _f(x.max_ms, 3), "; ".join(f"{cap_text(c)}: {c.verdict}" for c in x.caps) or "-")
            for x in r.rows]
    out.append(format_table(["test", "access specification", "target", "IOPS", "MB/s", "mean ms", "max ms",
                             "cap"], rows, max_width=80))
    out += [f"test {x.result_set + 1}, {cap_text(c)} cap ({mean_text(c)}): {for_cli(c.explanation)}"
            for x in r.rows for c in x.caps]
    out += [f"note: {for_cli(n)}" for n in r.notes]
    out.append("MB/s: MB = 2^20 bytes (Iometer's binary figure)")
    return "\n".join(out)


def format_iometer_comparison(c: Any) -> str:
    from app.analysis.bench_results import ratio_text

    rows = [(x["access_spec"], x["target"], _f(x["iops_a"]), _f(x["iops_b"]), ratio_text(x["iops_ratio"]),
             _f(x["mb_s_a"], 3), _f(x["mb_s_b"], 3), _f(x["mean_ms_a"], 3), _f(x["mean_ms_b"], 3))
            for x in c.rows]
    a, b = for_cli(c.name_a), for_cli(c.name_b)
    return "\n".join([f"comparison: run {c.run_b} ({b}) against run {c.run_a} ({a}); ratio = {b} / {a}",
                      for_cli(c.answer),
                      format_table(["access specification", "target", f"IOPS {a}", f"IOPS {b}", "ratio",
                                    f"MB/s {a}", f"MB/s {b}", f"mean ms {a}", f"mean ms {b}"], rows, max_width=60)])


def format_iomark(r: Any) -> str:
    from app.analysis.bench_results import row_text

    verdict = {True: "MEETS THE GOAL", False: "DOES NOT MEET THE GOAL", None: "CANNOT BE JUDGED"}[r.meets]
    out = [f"run {r.run_id} ({for_cli(r.run_name)}): IOmark results -> {verdict}", for_cli(r.answer),
           f"goal: at least {r.goal_pct:g} % of responses within {r.threshold_ms:g} ms ({for_cli(r.goal_source)})"]
    rows = [(x.line, row_text(x), x.users, _f(x.iops), _f(x.mb_s, 3), _f(x.mean_ms, 3),
             "-" if x.share_pct is None else f"{_f(x.share_pct)} %",
             {True: "yes", False: "no", None: "-"}[x.meets],
             {True: "pass", False: "fail", None: "-"}[x.stated_pass]) for x in r.rows]
    out.append(format_table(["line", "row", "users", "IOPS", "MB/s", "mean ms", f"within {r.threshold_ms:g} ms",
                             "meets goal", "file says"], rows, max_width=60))
    out.append("users supported: " + ("-" if r.users_supported is None else str(r.users_supported)))
    out += [f"note: {for_cli(n)}" for n in r.notes]
    return "\n".join(out)


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


def no_analysis(args: argparse.Namespace) -> int:
    raise UsageError("choose an analysis: latency, histo, series, storm, cap, iometer or iomark (see 'analyze --help')")


def histogram_analysis(args: argparse.Namespace) -> int:
    """``analyze latency|histo``."""
    from app.analysis.histograms import histo_summary, latency_share

    if args.analysis == "latency":
        if args.threshold_ms <= 0:
            raise UsageError("--threshold-ms must be a positive number of milliseconds")
        with open_workspace(args) as ws:
            share = latency_share(ws, args.run, args.threshold_ms, args.op, args.device)
        print(json.dumps(jsonable(share.as_dict()), indent=2) if args.json else format_latency(share))
        return 0
    with open_workspace(args) as ws:
        res = histo_summary(ws, args.run, args.device)
    print(json.dumps(jsonable(res), indent=2) if args.json else format_histo(res))
    return 0


def interval_analysis(args: argparse.Namespace) -> int:
    """``analyze series|storm|cap``."""
    from app.analysis import text
    from app.analysis.cap import cap_report
    from app.analysis.series import run_series
    from app.analysis.storm import StormParams, storm_report

    if getattr(args, "every", None) is not None and args.every <= 0:
        raise UsageError("--every must be a positive number of seconds")
    if args.analysis == "cap" and args.iops_cap is None and args.bw_cap_kbs is None:
        raise UsageError("give --iops-cap and/or --bw-cap-kbs")
    with open_workspace(args) as ws:
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
    if args.json:
        print_json(out.as_dict())
    else:
        formats: dict[str, Callable[[Any], str]] = {"series": text.format_series, "storm": text.format_storm,
                                                    "cap": text.format_cap}
        fmt = formats[args.analysis]
        print(fmt(out))
    return 0


def _pct(v: float | None) -> str:
    return "?" if v is None else f"{v * 100:.2f} %"


def format_latency(r: LatencyShare) -> str:
    from app.analysis.text import pct_pair

    t = f"{r.threshold_ms:g} ms"
    lines = [f"run {r.run_id} ({r.kind}), op {r.op}: {r.ios:,} I/Os in {len(r.devices)} series "
             f"({', '.join(r.devices)}), {r.samples} sample{'s' if r.samples != 1 else ''}"]
    if r.exact:
        lines.append(f"<= {t}: {r.under:,} I/Os = {_pct(r.share)}  (exact)")
    else:
        lo_n, hi_n = r.under_bounds
        lo_s, hi_s = pct_pair(*r.bounds)
        lines.append(f"<= {t}: between {lo_s} and {hi_s} "
                     f"({lo_n:,} to {hi_n:,} I/Os)  (bounds, not exact)")
        if r.estimate is not None:
            decimals = len(lo_s.split(".")[1].split()[0]) if "." in lo_s else 2
            lines.append(f"   ESTIMATE {r.estimate * 100:.{decimals}f} % by linear interpolation inside the bucket "
                         "(an estimate, not a measurement)")
    lines.append(f"   {r.method}")
    lines.append(f"   from the {r.source}")
    if has(r.kind, TIME_SERIES):  # histograms per collection (vscsiStats): running totals or not
        lines.append(f"   histogram counts: {r.counts}")
    parts = []
    for k, v in r.percentiles_ms.items():
        if v is None:
            continue
        lo, hi = v.lo, v.hi
        rng = f"{'-inf' if lo is None else f'{lo:.4g}'}-{'+inf' if hi is None else f'{hi:.4g}'} ms"
        est = "" if v.estimate is None else f", estimate {v.estimate:.4g}"
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


ANALYZE = Command("analyze", "analyse an imported run (latency shares, histogram summaries)", arguments, no_analysis)
