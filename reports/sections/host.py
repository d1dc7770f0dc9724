"""Evidence sections of the host questions (esxtop): where the latency comes from, and which VM drives the load.

The figures come from the question's ``Answer`` (``app.analysis.host_latency`` results), never recomputed here.
"""

from __future__ import annotations

from typing import Any

from app.analysis.host_latency import GUIDANCE_WORDS
from app.analysis.questions import fmt_pct, fmt_value
from reports.content import Chart, Section, Table, ms
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
    bands = [{"t0": r["t_start_s"], "t1": r["t_end_s"], "label": r["label"], "style": "worst"}
             for r in a.evidence.ranges]
    sec.chart(Chart("lines", f"Where the time per command goes on {run}: GAVG = KAVG + DAVG",
                    {"lines": lines, "x": "seconds from the start of the run", "y": "ms", "log": False,
                     "refs": refs, "bands": bands}))
    sec.para("Each interval is drawn as a step over the seconds it covers; each value is the mean over the run's "
             "physical disks weighted by their commands. GAVG is what the virtual machines wait for a command; it "
             "is the sum of DAVG, the time below the host's driver (the array and the fabric), and KAVG, the time "
             f"in the ESXi kernel, its queue included. Guidance: {GUIDANCE_WORDS}.")
    m = sp.mean
    rows = [[label.split(" (")[0], ms(m.get(col)), f"{getattr(sp, col[:4] + '_over', 0):,}"
             if col in ("davg_ms", "kavg_ms") else "-"] for col, label in SPLIT]
    rows.append(["QAVG (part of KAVG: queued)", ms(m.get("qavg_ms")), "-"])
    sec.table(Table("Time per command over the run", ["Figure", "Mean per command", "Intervals above the guidance"],
                    rows, note=f"{sp.intervals:,} intervals with commands. Mean per command: weighted by the "
                               "commands of each disk and interval. DAVG share of GAVG: "
                               f"{fmt_pct(sp.davg_share)}."))
    _notes(sec, a, ctx)
    ctx.methods.append(("latency_source", {"devices": sp.devices, "guidance": GUIDANCE_WORDS,
                                           "weighting": "commands per second of each disk and interval"}))
    return sec


@question_section("vm_load")
def vm_load(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    vl = a.evidence.results[0]
    rows = [[ctx.an.text(v.vm), fmt_pct(v.share), fmt_value(round(v.commands)), fmt_value(v.peak_commands_s),
             ms(v.gavg_ms), f"{v.alone_intervals:,} of {v.active_intervals:,}", ms(v.gavg_alone_ms),
             ms(v.gavg_together_ms)] for v in vl.vms]
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
