"""The evidence section of a library comparison: where this storm falls among comparable past engagements, one
strip per figure (every comparable run a tick, this engagement a marker), and the table of percentiles.

Every number comes from the question's answer (app.analysis.library's comparison), never recomputed here."""

from __future__ import annotations

from typing import Any

from app.analysis.questions import fmt_pct, fmt_value, ordinal
from reports.content import Chart, Section, Table
from reports.context import ReportContext
from reports.sections import question_section
from reports.sections.questions import _notes, _open


def value_text(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "fraction":
        return fmt_pct(v)
    if unit == "x":
        return f"{v:.2f} x"
    return fmt_value(v, unit)


@question_section("library")
def library(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    res = a.evidence.results[0]
    strips = [{"label": m.label, "unit": m.unit, "value": m.value, "peers": m.peers,
               "text": value_text(m.value, m.unit) + (f" ({ordinal(m.percentile)} percentile)"
                                                       if m.percentile is not None else "")}
              for m in res.metrics if m.peers]
    if strips:
        sec.chart(Chart("strips", f"This engagement among {res.comparable_engagements:,} comparable past engagements",
                        {"strips": strips}))
        sec.para("Each grey tick is a run of a comparable past engagement, the red marker this engagement; each strip "
                 "runs from the lowest to the highest value among them and this one.")
    rows = [[m.label, value_text(m.value, m.unit),
             ordinal(m.percentile) if m.percentile is not None else "– (too few)",
             value_text(m.median, m.unit), f"{len(m.peers):,}", f"{m.engagements:,}"] for m in res.metrics]
    sec.table(Table("Where this engagement falls", ["Figure", "This engagement", "Percentile", "Median of the others",
                                                    "Runs", "Engagements"], rows,
                    note="Percentile: the share of the comparable runs below this engagement's value, ties counted "
                         "half. Comparable: " + (" and ".join(res.filters) or "every engagement") + "."
                         " Per desktop: the storm's peak interval divided by the desktops measured. Mean response "
                         "time: iostat's await weighted by I/Os (interval-level)."))
    _notes(sec, a, ctx)
    return sec
