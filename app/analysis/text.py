"""The command line's plain-text renderings of the analyses, and the customer words of the sizing inputs and
steps. No Qt.

The renderings say how the figures were made, and mark what is an estimate or interval-level. The errors and
notes of the analyses and the table of how each front end names a fix live in the leaf :mod:`app.errors`, the
number formats in :mod:`app.analysis.numbers`; both are re-exported here for the front ends that import them
from this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.analysis.numbers import pct_bounds as pct_bounds
from app.analysis.numbers import pct_pair as pct_pair
from app.errors import FIXES as FIXES
from app.errors import FRONTS as FRONTS
from app.errors import STORED_FIX as STORED_FIX
from app.errors import AnalysisError as AnalysisError
from app.errors import Note as Note
from app.errors import fix_phrase as fix_phrase
from app.errors import for_cli as for_cli
from app.errors import for_cli_json as for_cli_json
from app.errors import render as render
from app.errors import render_stored as render_stored
from app.errors import with_fix as with_fix
from app.safe_text import for_terminal
from parsers.kinds import IOMARK

if TYPE_CHECKING:
    from app.analysis.cap import CapResult
    from app.analysis.compare import Comparison
    from app.analysis.series import DeviceChoice, Series
    from app.analysis.sizing import SizingResult
    from app.analysis.storm import StormMetrics, StormReport
    from app.store.phases import Phase

# customer words for the sizing inputs and steps (window and PDF; the command line's JSON keeps the keys)
SIZING_INPUT_LABELS: dict[str, str] = {
    "users": "Users", "iops_per_user": "IOPS per user", "read_pct": "Reads",
    "storm_multiplier": "Storm multiplier", "raid": "RAID level", "disk_iops": "IOPS per disk",
    "gb_per_user": "Capacity per user", "disk_gb": "Disk size",
}
SIZING_STEP_LABELS: dict[str, str] = {
    "frontend_iops": "Front-end IOPS", "backend_iops": "Back-end IOPS", "disks_for_iops": "Disks for IOPS",
    "disks_for_capacity": "Disks for capacity", "disks": "Disks", "disks_layout": "Disks in whole sets",
    "array_frontend_iops": "Front-end IOPS of the array", "users_supported": "Users supported",
    "arithmetic": "Arithmetic",
}


def _n(v: float | None, fmt: str = "{:,.1f}") -> str:
    return "-" if v is None else fmt.format(v)


def _s(v: float | None) -> str:
    return "-" if v is None else f"{v:g} s"


def _table(cols: list[str], rows: list[list[str]]) -> str:
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    out = ["  ".join(c.rjust(w) for c, w in zip(cols, widths)), "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
    return "\n".join(out)


def format_devices(d: DeviceChoice) -> str:
    text = f"devices: {', '.join(d.used) or 'none'} ({for_cli(d.rule)})"
    real = {k: v for k, v in d.excluded.items() if v != "not requested"}
    if real:
        text += "\n  left out: " + "; ".join(f"{k}: {v}" for k, v in real.items())
    return text


def _series_head(s: Series) -> list[str]:
    lines = [f"run {s.run_id} ({for_terminal(s.run_name)}), reports every {s.interval_s:g} s",
             format_devices(s.devices), f"IOPS = {s.iops_formula}"]
    if s.since_boot_excluded:
        lines.append(f"since-boot report left out (sample {', '.join(map(str, s.since_boot_excluded))})")
    a = s.align
    if a.get("mode") != "start" or a.get("offset_s"):
        lines.append(f"aligned: t = 0 at {a.get('reference')} (offset {a.get('offset_s', 0):g} s)")
    if s.every_s:
        lines.append(f"resampled to {s.every_s:g} s bins: time-weighted means of the reports overlapping each bin")
    return lines


def format_series(s: Series) -> str:
    norm = "t_norm" in s.frame.columns
    cols = ["t start s", "t end s", *(["t norm"] if norm else []), "IOPS", "read IOPS", "write IOPS", "kB/s",
            "await ms*"]
    if s.every_s:
        cols.append("coverage")
    rows = []
    for r in s.frame.iter_rows(named=True):
        row = [f"{r['t_start_s']:g}", f"{r['t_end_s']:g}"]
        if norm:
            row.append(_n(r["t_norm"], "{:.3f}"))
        row += [_n(r["iops"]), _n(r["read_iops"]), _n(r["write_iops"]), _n(r["kbs"]), _n(r["await_ms"], "{:.3f}")]
        if s.every_s:
            row.append(_n(r.get("coverage"), "{:.0%}"))
        rows.append(row)
    out = _series_head(s) + [_table(cols, rows),
                             "* await: iostat's mean per request over each interval (interval-level, not per I/O)"]
    out += [f"note: {for_cli(n)}" for n in s.notes]
    return "\n".join(out)


def _metrics_lines(m: StormMetrics, indent: str = "") -> list[str]:
    if not m.intervals:
        return [indent + "no intervals"]
    L = []
    missing = (f"; {m.missing_reports} report{'s' if m.missing_reports != 1 else ''} missing (a disk absent: a gap, "
               "left out, not 0 IOPS)") if m.missing_reports else ""
    L.append(f"{indent}span {m.t_start_s:g}-{m.t_end_s:g} s, {m.intervals} intervals, {m.duration_s:g} s of data"
             f"{missing}")
    if m.peak_iops is None:
        L.append(f"{indent}no IOPS: the run has no request counts (throughput or latency only)")
        if m.peak_kbs is not None:
            L.append(f"{indent}throughput peak {_n(m.peak_kbs)} kB/s, mean {_n(m.mean_kbs)} kB/s")
        if m.mean_await_ms is not None:
            L.append(f"{indent}await mean {_n(m.mean_await_ms, '{:.3f}')} ms (a plain mean over time: no request "
                     "counts to weight it by)")
        return L
    L.append(f"{indent}peak {_n(m.peak_iops)} IOPS in the interval {m.peak_t_start_s:g}-{m.peak_t_end_s:g} s "
             f"(sample {m.peak_sample_idx}); time to peak {_s(m.time_to_peak_s)}"
             + (f" from the first activity at {m.activity_start_s:g} s" if m.activity_start_s is not None
                else " from the start (no activity above the threshold)"))
    L.append(f"{indent}time above {_n(m.threshold_iops)} IOPS: {_s(m.time_above_s)}")
    if m.plateau_iops is not None:
        L.append(f"{indent}plateau {_n(m.plateau_iops)} IOPS (median of the intervals above "
                 f"{_n(m.plateau_floor_iops)} IOPS, half the peak)")
    if m.settled_at_s is not None:
        L.append(f"{indent}settled below {_n(m.settle_level_iops)} IOPS at {m.settled_at_s:g} s: settle time "
                 f"{_s(m.settle_time_s)} after the peak")
    else:
        L.append(f"{indent}did not settle below {_n(m.settle_level_iops)} IOPS after the peak within the data")
    rs = "-" if m.read_share is None else f"{m.read_share:.1%} reads"
    if m.read_share_basis and m.read_share_basis != "I/Os":
        rs += f" (by {m.read_share_basis})"
    L.append(f"{indent}total {_n(m.total_ios, '{:,.0f}')} I/Os, mean {_n(m.mean_iops)} IOPS, {rs}")
    ip = m.iops_percentiles
    L.append(f"{indent}interval IOPS p50/p95/p99: {_n(ip.get('p50'))} / {_n(ip.get('p95'))} / {_n(ip.get('p99'))}")
    ap = m.await_percentiles_ms
    if any(v is not None for v in ap.values()):
        L.append(f"{indent}await p50/p95/p99: {_n(ap.get('p50'), '{:.3f}')} / {_n(ap.get('p95'), '{:.3f}')} / "
                 f"{_n(ap.get('p99'), '{:.3f}')} ms, mean {_n(m.mean_await_ms, '{:.3f}')} ms  (INTERVAL-LEVEL: "
                 "percentiles of per-interval means, weighted by I/Os)")
    if m.peak_kbs is not None:
        L.append(f"{indent}throughput peak {_n(m.peak_kbs)} kB/s, mean {_n(m.mean_kbs)} kB/s")
    return L


def format_storm(r: StormReport) -> str:
    s = r.method["series"]
    p = r.method["parameters"]
    out = [f"run {r.run_id} ({for_terminal(r.run_name)}): storm metrics",
           f"devices: {', '.join(s['devices']['used'])} ({for_cli(s['devices']['rule'])}); IOPS = {s['iops']}",
           f"activity = {p['activity']}; settle = {p['settle']}; threshold = {p['threshold_iops']}"]
    if s["since_boot_excluded"]:
        out.append(f"since-boot report left out (sample {', '.join(map(str, s['since_boot_excluded']))})")
    if s.get("resample_s"):
        out.append(f"resampled to {s['resample_s']:g} s (time-weighted means)")
    out.append("whole run:")
    out += _metrics_lines(r.run, "  ")
    if r.phases:
        how = "stored in the workspace" if r.phase_source == "stored" else \
            "detected automatically (change points of the IOPS level; an estimate of where phases begin)"
        out.append(f"phases ({how}):")
        for ph, m in r.phases:
            out.append(f"  {for_terminal(ph.name)} [{ph.t_start_s:g}-{ph.t_end_s:g} s, {ph.source}]")
            out += _metrics_lines(m, "    ")
    out += [f"note: {for_cli(n)}" for n in r.notes]
    return "\n".join(out)


def format_cap(r: CapResult) -> str:
    out = [f"run {r.run_id} ({for_terminal(r.run_name)}): cap check -> {r.verdict.upper()}",
           format_devices(_devices(r.method["series"]["devices"])),
           f"rule: {for_cli(r.method['rule'])}"]
    for c in r.checks:
        op = "" if c.op == "total" else f" ({c.op})"
        out.append(f"{c.metric.upper()} cap {c.cap:,.6g} {c.unit}{op}, limit {c.limit:,.1f} {c.unit} "
                   f"(+{c.tolerance_pct:g} %), windows of {c.window_reports} reports = {c.window_s:g} s: "
                   f"{c.verdict}")
        out.append(f"  {c.explanation}")
        if c.worst_window:
            ww = c.worst_window
            out.append(f"  worst window {ww['average']:,.1f} {c.unit} at {ww['t_start_s']:g}-{ww['t_end_s']:g} s; "
                       f"median interval {_n(c.plateau)} {c.unit}")
        if c.over_cap_share is not None:
            out.append(f"  over the limit: {c.over_cap_share:.1%} of the judged time "
                       f"(over the cap itself: {c.over_cap_share_strict:.1%})")
        for sp in c.over_spans:
            out.append(f"  above the limit {sp['t_start_s']:g}-{sp['t_end_s']:g} s ({sp['intervals']} intervals): "
                       f"peak {sp['peak']:,.1f} {c.unit}, {sp['excess']:,.0f} "
                       f"{'I/Os' if c.metric == 'iops' else 'kB'} above the cap")
        if c.burst:
            b = c.burst
            if b.get("t_start_s") is None:
                out.append(f"  burst allowance: {b.get('note')}")
            else:
                txt = (f"  burst allowance {b['t_start_s']:g}-{b['t_end_s']:g} s ({b['start_rule']}), not judged by "
                       "windows")
                if "held" in b:
                    txt += (f"; peak inside {_n(b['peak_inside'])} vs burst max {b['max']:,.6g} + tolerance: "
                            f"{'within' if b['held'] else 'ABOVE'}")
                out.append(txt)
    out += [f"note: {for_cli(n)}" for n in r.notes]
    return "\n".join(out)


def _devices(d: dict[str, Any]) -> DeviceChoice:
    from app.analysis.series import DeviceChoice

    return DeviceChoice(d["requested"], d["used"], d["excluded"], d["rule"])


def _cmp_value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "fraction":
        return f"{v:.1%}"
    return f"{v:,.3f}" if unit.startswith("ms") else f"{v:,.1f}"


def _cmp_rows(rows: list[dict[str, Any]], n: int) -> list[list[str]]:
    out = []
    for r in rows:
        cells = [f"{r['metric']} [{r['unit']}]" if r["unit"] else r["metric"]]
        for i in range(n):
            cells.append(_cmp_value(r["values"][i], r["unit"]))
        for i in range(1, n):
            d, q = r["delta"][i], r["ratio"][i]
            if d is None:
                cells.append("-")
            elif r["unit"] == "fraction":
                cells.append(f"{d * 100:+.1f} pp")
            else:
                cells.append(f"{d:+,.3f}" if r["unit"].startswith("ms") else f"{d:+,.1f}")
            cells.append("-" if q is None else f"{q:.2f}x")
        out.append(cells)
    return out


def format_compare(c: Comparison) -> str:
    n = len(c.runs)
    base = c.runs[0]
    cols = ["metric"] + [f"run {r['run_id']}" for r in c.runs]
    for r in c.runs[1:]:
        cols += [f"delta {r['run_id']}", f"ratio {r['run_id']}"]
    out = ["compare " + ", ".join(f"run {r['run_id']} ({for_terminal(r['name'])}, {r['kind']})" for r in c.runs),
           f"baseline run {base['run_id']}: delta = run - baseline, ratio = run / baseline"]
    if c.method.get("time_above_threshold_iops") is not None:
        out.append(f"time above: {c.method['time_above_threshold_iops']:,.1f} IOPS for every run "
                   "(50 % of the baseline's peak unless given)")
    if c.metrics:
        out.append(_table(cols, _cmp_rows(c.metrics, n)))
    else:
        out.append("no run-level metrics for these runs")
    names = {r["metric"] for r in c.metrics}
    if any(x.startswith("await_") or x == "mean_await_ms" for x in names):
        out.append("await: INTERVAL-LEVEL (percentiles of per-interval means, weighted by I/Os)")
    if "latency_p99_ms" in names:
        out.append("latency_p99_ms: ESTIMATE interpolated inside a json+ histogram bucket")
    for ph in c.phases:
        if ph["metrics"]:
            out.append(f"phase {ph['phase']!r} (matched by {c.method['phases']['matched_by']}):")
            out.append(_table(cols, _cmp_rows(ph["metrics"], n)))
    io = c.iozone
    if io.get("rows"):
        out.append("IOzone:")
        icol = ["key", "metric"] + cols[1:]
        rows = []
        for r in io["rows"]:
            key = ", ".join(f"{k}={v}" for k, v in r["key"].items()) + (" *" if r.get("page_cache_likely") else "")
            rows.append([key] + _cmp_rows([{**r, "unit": ""}], n)[0])
        out.append(_table(icol, rows))
        out.append(f"IOzone: {io.get('note')}" + ("  (* = page cache likely)" if "*" in "".join(r[0] for r in rows)
                                                  else ""))
    else:
        out.append(f"IOzone: {io.get('note')}")
    out += [f"note: {for_cli(x)}" for x in c.notes]
    return "\n".join(out)


def format_sizing(r: SizingResult) -> str:
    inp = r.inputs
    v = {k: x["value"] for k, x in inp.items()}
    out = [f"{v['users']} users x {v['iops_per_user']:g} IOPS x storm {v['storm_multiplier']:g} = "
           f"{r.frontend_iops:,.6g} front-end IOPS",
           f"back-end = F x r + F x w x P = {r.backend_read_iops:,.6g} + {r.backend_write_iops:,.6g} = "
           f"{r.backend_iops:,.6g} IOPS  (reads {v['read_pct']:.4g} %, {r.raid['label']} write penalty "
           f"{r.raid['write_penalty']})",
           f"disks for IOPS = ceil({r.backend_iops:,.6g} / {v['disk_iops']:g}) = ceil({r.disks_exact:.2f}) = "
           f"{r.disks_for_iops}"]
    if r.disks_for_capacity is not None:
        out.append(f"disks for capacity = ceil({v['users']} x {v['gb_per_user']:g} GB / ({v['disk_gb']:g} GB x "
                   f"{r.raid['usable_share']:.3g} usable)) = ceil({r.capacity_exact:.2f}) = {r.disks_for_capacity}")
    if r.disks_layout != r.disks:
        out.append(f"DISKS = {r.disks_layout} in whole {r.layout}  (the load and capacity need {r.disks})")
    else:
        out.append(f"DISKS = {r.disks}")
    out.append(f"with {r.disks} disk{'s' if r.disks != 1 else ''} the array gives {r.array_frontend_iops:,.1f} "
               f"front-end IOPS = {r.users_supported:,.1f} users at this load")
    out.append("inputs:")
    for k, x in inp.items():
        out.append(f"  {k} = {x['value']}  ({for_cli(x['source'])})")
    if r.response_time:
        out.append(format_response_time(r.response_time))
    out += [f"note: {for_cli(n)}" for n in r.notes]
    return "\n".join(out)


def format_response_time(rt: dict[str, Any]) -> str:
    verdict = {True: "meets", False: "MISSES", None: "cannot tell whether it meets"}[rt["passed"]]
    if rt["share"] is not None and rt.get("basis") == IOMARK:  # the share as IOmark's own results state it
        share = f"{rt['share']:.2%} (as IOmark reports it)"
    elif rt["share"] is not None and rt.get("exact"):
        share = f"{rt['share']:.2%} (exact)"
    elif rt["share"] is not None:
        share = f"{rt['share']:.2%}"
    else:
        lo, hi = rt["bounds"]
        lo_t, hi_t, est = pct_bounds(lo, hi, rt["estimate"])
        share = f"between {lo_t} and {hi_t} (bounds; ESTIMATE {est} by interpolation)" \
            if rt.get("estimate") is not None else f"between {lo_t} and {hi_t} (bounds)"
    return (f"response time, run {rt['run_id']}: {share} of I/O within {rt['threshold_ms']:g} ms -> {verdict} "
            f"the goal of {rt['goal_pct']:g} %\n  {for_cli(rt['label'])}")


def format_phases(run_id: int, phases: list[Phase], markers: dict[str, float]) -> str:
    out = [f"run {run_id}: {len(phases)} phase(s), {len(markers)} marker(s) "
           "(seconds since the start of the first analysed interval)"]
    for p in phases:
        out.append(f"  phase  {for_terminal(p.name):<20} {p.t_start_s:>10g} - {p.t_end_s:<10g} {p.source}")
    for name, t in markers.items():
        out.append(f"  marker {for_terminal(name):<20} {t:>10g}")
    return "\n".join(out)
