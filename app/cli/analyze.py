"""``main.py analyze ANALYSIS``: latency shares and histogram summaries (histogram runs), and the interval
analyses series, storm and cap (iostat-like runs)."""

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
    raise UsageError("choose an analysis: latency, histo, series, storm or cap (see 'analyze --help')")


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
