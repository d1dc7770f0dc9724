"""I/O over time: the iostat runs on one time axis."""

from __future__ import annotations

from reports.content import Chart, Section, _device_rule, _names, num
from reports.context import ReportContext
from reports.sections import section


def log_scale(lines: list[dict], levels: list[float]) -> bool:
    """A logarithmic value axis when the lines' peaks (and the levels drawn) differ by more than five times: on a
    linear axis the lower ones would vanish."""
    peaks = [max([v for v in ln["y"] if v is not None] or [0]) for ln in lines]
    low = min([p for p in peaks if p > 0] + [c for c in levels if c > 0], default=1)
    return max(peaks + levels, default=0) > 5 * max(low, 1)


TITLE = "I/O over time"


@section("overlay", title=TITLE, order=20)
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.bench_results import cap_for_run

    series = ctx.series()
    if not series:
        return None
    sec = Section("overlay", TITLE)
    lines = []
    caps: list[float] = []
    boot_left_out: list[str] = []
    boot_kept: list[str] = []
    no_iops: list[str] = []
    for r in ctx.iostat:
        s = series.get(r.run_id)
        if s is None or s.frame.height == 0:
            continue
        if s.frame.get_column("iops").null_count() == s.frame.height:  # throughput or latency only: no IOPS line
            no_iops.append(ctx.name(r))
            continue
        lines.append({"label": ctx.name(r), "t0": s.col("t_start_s").tolist(), "t": s.col("t_end_s").tolist(),
                      "y": s.col("iops").tolist()})
        ctx.covered.add(r.run_id)
        cap = cap_for_run(ctx.ws, r.run_id, ctx.given_cap())  # the one rule (app.analysis.cap.which_cap)
        if cap is not None and cap.iops is not None and cap.op == "total" and cap.iops not in caps:
            caps.append(cap.iops)
        (boot_left_out if s.since_boot_excluded else boot_kept).append(ctx.name(r))
    first = next(iter(series.values()))
    ref = first.align.get("reference", "start of the run")
    if boot_left_out and boot_kept:
        boot = (f"The first report of {_names(boot_left_out)} covers the time since boot and is left out; the "
                f"first reports of {_names(boot_kept)} are intervals and are kept.")
    elif boot_left_out:
        boot = "The first report iostat prints covers the time since boot and is left out."
    else:
        boot = "Every report is an interval (no since-boot report), so all are kept."
    if not lines:
        return None
    log = log_scale(lines, caps)
    sec.para(f"IOPS per interval, summed over whole disks ({_device_rule(first, ctx.an)}); time 0 is the {ref}, so "
             f"the runs are aligned on one time axis and earlier intervals show at negative times. {boot} Each "
             "interval is drawn as a step over the seconds it covers; long series are drawn with the minimum and "
             "maximum of every point column, so no peak is lost."
             + (" The value axis is logarithmic: the runs' levels differ by more than five times, and on a "
                "linear axis the lower ones would vanish." if log else "")
             + (f" The red dashed line is the IOPS cap ({', '.join(num(c) for c in caps)} IOPS)." if caps else "")
             + (f" {_names(no_iops)} {'has' if len(no_iops) == 1 else 'have'} no request counts (throughput or "
                "latency only) and no line here." if no_iops else ""))
    sec.chart(Chart("lines", "IOPS per interval" + (" (logarithmic scale)" if log else ""),
                    {"lines": lines, "x": f"seconds from the {ref}", "y": "IOPS", "log": log,
                     "refs": [{"value": c, "label": f"cap {num(c)} IOPS"} for c in caps]}))
    ctx.methods.append(("overlay", first.method()))
    return sec
