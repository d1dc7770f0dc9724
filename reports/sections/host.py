"""Evidence sections of the host questions (esxtop): where the latency comes from, and which VM drives the load.

The figures come from the question's ``Answer`` (``app.analysis.host_latency`` results), never recomputed here.
"""

from __future__ import annotations

from typing import Any

from app.analysis.host_latency import GUIDANCE_WORDS
from app.analysis.numbers import fmt_pct, fmt_value
from reports.content import Chart, Section, Table
from reports.context import ReportContext
from reports.sections import question_section
from reports.sections.questions import _notes, _open

SPLIT = (("gavg_ms", "GAVG (the guest's time per command)"), ("davg_ms", "DAVG (array and fabric)"),
         ("kavg_ms", "KAVG (ESXi kernel, queue included)"))


def _steps(frame: Any, column: str) -> tuple[list[float], list[float], list[float | None]]:
    f = frame.select("t_start_s", "t_end_s", column)
    return f.get_column("t_start_s").to_list(), f.get_column("t_end_s").to_list(), f.get_column(column).to_list()


@question_section("latency_source")
def latency_source(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    sp = a.evidence.results[0]
    run = ctx.name(sp.run_id)
    lines = []
    for col, label in SPLIT:
        t0, t1, y = _steps(sp.frame, col)
        if any(v is not None for v in y):
            lines.append({"label": label, "t0": t0, "t": t1, "y": y})
    refs = [{"value": sp.davg_guidance_ms, "label": f"DAVG guidance {fmt_value(sp.davg_guidance_ms, 'ms')}",
             "style": "cap"},
            {"value": sp.kavg_guidance_ms, "label": f"KAVG guidance {fmt_value(sp.kavg_guidance_ms, 'ms')}",
             "style": "limit"}]
    bands: list[dict[str, Any]] = []
    for r in a.evidence.ranges:  # one band per interval: the worst DAVG and KAVG often fall in the same one
        same = next((b for b in bands if (b["t0"], b["t1"]) == (r["t_start_s"], r["t_end_s"])), None)
        if same is not None:
            same["label"] += " and " + r["label"].removeprefix("worst ")
        else:
            bands.append({"t0": r["t_start_s"], "t1": r["t_end_s"], "label": r["label"], "style": "worst"})
    sec.chart(Chart("lines", f"Where the time per command goes on {run}: GAVG = KAVG + DAVG",
                    {"lines": lines, "x": "seconds from the start of the run", "y": "ms", "log": False,
                     "refs": refs, "bands": bands}))
    sec.para("Each interval is drawn as a step over the seconds it covers; each value is the mean over the run's "
             "physical disks weighted by their commands. GAVG is what the virtual machines wait for a command; it "
             "is the sum of DAVG, the time below the host's driver (the array and the fabric), and KAVG, the time "
             f"in the ESXi kernel, its queue included. Guidance: {GUIDANCE_WORDS}.")
    m = sp.mean
    rows = [[label.split(" (")[0], fmt_value(m.get(col), "ms"), f"{getattr(sp, col[:4] + '_over', 0):,}"
             if col in ("davg_ms", "kavg_ms") else "-"] for col, label in SPLIT]
    rows.append(["QAVG (part of KAVG: queued)", fmt_value(m.get("qavg_ms"), "ms"), "-"])
    sec.table(Table("Time per command over the run", ["Figure", "Mean per command", "Intervals above the guidance"],
                    rows, note=f"{sp.intervals:,} intervals with commands. Mean per command: weighted by the "
                               "commands of each disk and interval. DAVG share of GAVG: "
                               f"{fmt_pct(sp.davg_share)}."))
    a_notes = a.notes
    a.notes = [x for x in a.notes if not str(x).startswith("Guidance:")]  # said in the paragraph above
    _notes(sec, a, ctx)
    a.notes = a_notes
    ctx.methods.append(("latency_source", {"devices": sp.devices, "guidance": GUIDANCE_WORDS,
                                           "weighting": "commands per second of each disk and interval"}))
    return sec


@question_section("latency_path")
def latency_path(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    """The guest's await beside the host's GAVG, KAVG and DAVG per interval on one clock, and the split over the
    capture (app.analysis.latency_path: the answer's result, never recomputed here)."""
    from app.analysis.latency_path import PART_WORDS, PARTS

    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    lp = a.evidence.results[0]
    guest, host = ctx.name(lp.guest_run), ctx.name(lp.host_run)
    lines = []
    for col, label in (("await_ms", f"guest await ({guest})"), ("gavg_ms", f"GAVG ({host})"),
                       ("davg_ms", "DAVG (array and fabric)"), ("kavg_ms", "KAVG (ESXi kernel)")):
        t0, t1, y = _steps(lp.frame, col)
        if any(v is not None for v in y):
            lines.append({"label": label, "t0": t0, "t": t1, "y": y})
    w = lp.worst
    bands = [] if w is None else [{"t0": w["t_start_s"], "t1": w["t_end_s"], "label": "longest guest wait",
                                   "style": "worst"}]
    sec.chart(Chart("lines", f"Where the time of {guest}'s I/O goes, beside {host} on one clock",
                    {"lines": lines, "x": f"seconds from the start of {host}", "y": "ms", "log": False,
                     "refs": [], "bands": bands}))
    m = lp.mean
    est = {"guest_ms": "estimated: the guest's await less GAVG", "kavg_ms": "measured by esxtop",
           "davg_ms": "measured by esxtop"}
    rows = [["In the guest (its await)", fmt_value(m["await_ms"], "ms"), "100 %", "measured by the guest"]]
    rows += [[PART_WORDS[p][0].upper() + PART_WORDS[p][1:], fmt_value(m[p], "ms"), fmt_pct(lp.shares[p]), est[p]]
             for p in PARTS]
    sec.table(Table("Time per I/O over the capture", ["Where", "Mean per I/O", "Share", "How it is known"], rows,
                    note=f"{lp.intervals:,} of {host}'s {lp.host_intervals:,} intervals, each weighted by "
                         f"{guest}'s I/Os in it. Guest disks: {', '.join(ctx.an.device(d) for d in lp.guest_devices)}"
                         f"; host devices: {', '.join(ctx.an.device(d) for d in lp.host_devices)}."))
    f = lp.frame.filter(lp.frame.get_column("await_ms").is_not_null())
    by_wait = f.sort("await_ms", descending=True, nulls_last=True).head(10).sort("t_start_s")
    trows = [[f"{r['clock']:%H:%M:%S}", fmt_value(r["await_ms"], "ms"), fmt_value(r["guest_ms"], "ms"),
              fmt_value(r["kavg_ms"], "ms"), fmt_value(r["davg_ms"], "ms")] for r in by_wait.iter_rows(named=True)]
    sec.table(Table("The intervals with the longest guest waits", ["Interval from", "Guest await",
                                                                    "In the guest (estimated)", "KAVG", "DAVG"],
                    trows, note="The ten intervals in which the guest waited longest, on one clock (the host's)."))
    _notes(sec, a, ctx)
    ctx.methods.append(("latency_path", {"guest devices": lp.guest_devices, "host devices": lp.host_devices}))
    return sec


@question_section("vm_load")
def vm_load(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    vl = a.evidence.results[0]
    lines = _vm_lines(ctx, vl)
    if lines:
        sec.chart(Chart("lines", f"Commands per second of each VM on {ctx.name(vl.run_id)}",
                        {"lines": lines, "x": "seconds from the start of the run", "y": "commands/s", "log": False,
                         "refs": [], "bands": []}))
        sec.para("Each interval is drawn as a step over the seconds it covers; a VM's rate is the sum over its "
                 "virtual disks. The busiest VMs are drawn; the table gives every VM.")
    rows = [[ctx.an.vm_name(v.vm), fmt_pct(v.share), fmt_value(round(v.commands)), fmt_value(v.peak_commands_s),
             fmt_value(v.gavg_ms, "ms"), f"{v.alone_intervals:,} of {v.active_intervals:,}",
             fmt_value(v.gavg_alone_ms, "ms"), fmt_value(v.gavg_together_ms, "ms")] for v in vl.vms]
    sec.table(Table("Load and latency per VM",
                    ["VM", "Share of commands", "Commands", "Peak commands/s", "GAVG", "Alone (intervals)",
                     "GAVG alone", "GAVG with another VM active"], rows,
                    note=f"From the VMs' virtual disks, summed per VM. Active: at least "
                         f"{vl.active_share * 100:g} % of the busiest VM's busiest interval; alone: no other VM "
                         f"active in the interval ({fmt_value(vl.interval_s, 's')} each). GAVG: the time per "
                         "command the VM saw, weighted by its commands."))
    _notes(sec, a, ctx)
    ctx.methods.append(("vm_load", {"active_share": vl.active_share, "interval_s": vl.interval_s}))
    return sec


MAX_VM_LINES = 6


def _vm_lines(ctx: ReportContext, vl: Any) -> list[dict[str, Any]]:
    """The busiest VMs' commands per second on the run's axis (the rates the answer's figures are sums of)."""
    from app.analysis.host_latency import vm_rates
    from app.analysis.series import load_series

    s = load_series(ctx.ws, vl.run_id)
    idx = s.frame.get_column("sample_idx").to_list()
    t0, t1 = s.col("t_start_s").tolist(), s.col("t_end_s").tolist()
    rates = vm_rates(ctx.ws, vl.run_id)
    return [{"label": ctx.an.vm_name(v.vm), "t0": t0, "t": t1, "y": [rates.get(v.vm, {}).get(int(i)) for i in idx]}
            for v in vl.vms[:MAX_VM_LINES]]
