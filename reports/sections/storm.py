"""Storm metrics of every iostat run: peak, plateau, timing, phases."""

from __future__ import annotations

from typing import Any

from app.analysis.questions import one_interval_burst
from reports.content import Section, Table, _reads, count, fmt, ms
from reports.context import ReportContext
from reports.sections import section

STORM_NOTE = ("Plateau and peak: see the glossary. To peak: from the start of the first activity to the "
              "end of the peak interval. Above half peak: the summed length of the intervals above 50 % of the "
              "peak. Settle: from the peak to the first 3 consecutive intervals below 10 % of the peak. Await is "
              "interval-level: iostat reports a mean per interval, so its figures are means of interval means, not "
              "of single I/Os.")
STORM_HEADER = ["Run", "Peak IOPS", "Plateau IOPS", "To peak", "Above half peak", "Settle", "Total I/Os", "Reads",
                "p95 IOPS", "Mean await"]


def storm_row(name: str, m: Any) -> list[str]:
    plateau = "– (a burst)" if one_interval_burst(m) else fmt(m.plateau_iops)
    return [name, fmt(m.peak_iops), plateau, fmt(m.time_to_peak_s, 0, "s"), fmt(m.time_above_s, 0, "s"),
            fmt(m.settle_time_s, 0, "s"), count(m.total_ios), _reads(m.read_share, m.read_share_basis),
            fmt(m.iops_percentiles.get("p95")), ms(m.mean_await_ms)]


def phase_table(ctx: ReportContext, rep: Any, name: str, offset_s: float, ref: str) -> Table:
    """The phases of a storm report, their times on the chart's axis (``offset_s``: the chart's time 0)."""
    rows = [[ctx.an.text(ph.name), fmt(ph.t_start_s - offset_s, 0, "s"), fmt(ph.t_end_s - offset_s, 0, "s"),
             fmt(pm.peak_iops), fmt(pm.mean_iops), count(pm.total_ios), _reads(pm.read_share, pm.read_share_basis)]
            for ph, pm in rep.phases]
    return Table(f"Phases of {name} ({rep.phase_source})",
                 ["Phase", "From", "To", "Peak IOPS", "Mean IOPS", "I/Os", "Reads"], rows,
                 note=f"From and To: seconds from the {ref}, as on the chart.")


TITLE = "Storm metrics"


@section("storm", title=TITLE, order=30)
def build(ctx: ReportContext) -> Section | None:
    series = ctx.series()
    if not series:
        return None
    sec = Section("storm", TITLE)
    rows = []
    for r in ctx.iostat:
        if r.run_id not in series:
            continue
        rep = ctx.storm(r.run_id)
        m = rep.run
        ctx.values.setdefault("storm", {})[r.run_id] = m.as_dict()
        ctx.plateaus[r.run_id] = m.plateau_iops
        rows.append(storm_row(ctx.name(r), m))
        ctx.covered.add(r.run_id)
        if m.peak_iops is not None:
            plateau = ("" if m.plateau_iops is None else ", in a single interval (a burst, no sustained level)"
                       if one_interval_burst(m) else f", held a plateau of {fmt(m.plateau_iops)} IOPS")
            name = ctx.name(r)
            who = "R" + name[1:] if name.startswith("run ") else f"Run {name}"  # anonymised: "Run 1", not "Run run 1"
            ctx.verdicts.append(f"{who} peaked at {fmt(m.peak_iops)} IOPS, "
                                f"{fmt(m.time_to_peak_s, 0)} s after its I/O began{plateau}"
                                + (f", and settled {fmt(m.settle_time_s, 0)} s after the peak."
                                   if m.settle_time_s is not None else "."))
        if rep.phases:
            ser = series[r.run_id]
            sec.table(phase_table(ctx, rep, ctx.name(r), float(ser.align.get("offset_s", 0.0) or 0.0),
                                  ser.align.get("reference", "start of the run")))
        ctx.methods.append(("storm", rep.method))
    sec.order.insert(0, ("t", len(sec.tables)))
    sec.tables.append(Table("", STORM_HEADER, rows, note=STORM_NOTE))
    return sec
