"""The evidence of a load-limit question ("How many desktops before the response-time goal breaks?"): the response
figure of every load point against the IOPS it reached, the fitted curve, the goal's threshold, the two points that
decide, and the table of points. The figures are the answer's (``app.analysis.knee``), never recomputed here."""

from __future__ import annotations

from typing import Any

from app.analysis.knee import FIT_COLOUR, POINT_COLOURS
from app.analysis.numbers import fmt_value
from reports.content import Chart, Section, Table, ms
from reports.context import ReportContext
from reports.sections import question_section
from reports.sections.questions import _notes, _open


def _where(ctx: ReportContext, p: Any) -> str:
    return p.named(ctx.name(p.run_id)) if not p.where else f"{ctx.name(p.run_id)}, {ctx.an.text(p.where)}"


@question_section("knee")
def knee(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    res = a.evidence.results[0]
    pts = [p for p in res.points if p.response_ms is not None]
    lines: list[dict[str, Any]] = []
    for label, keep in (("within the goal", True), ("missed the goal", False), ("cannot tell", None)):
        these = [p for p in pts if p.passed is keep]
        lines.append({"label": label, "t": [p.iops for p in these], "y": [p.response_ms for p in these],
                      "markers": True, "connect": False, "colour": POINT_COLOURS[keep]})
    if pts:
        top = max(max(p.response_ms for p in pts), res.threshold_ms)
        if res.fit is not None:  # the fitted curve, cut where it leaves the chart (it grows without bound)
            xs, ys = res.fit.curve(max(p.iops for p in res.points) * 1.02)
            kept = [(x, y) for x, y in zip(xs, ys) if y <= 1.5 * top]
            lines.append({"label": f"fitted curve (R² {res.fit.r2:.2f})", "t": [x for x, _y in kept],
                          "y": [y for _x, y in kept], "dash": [3, 2], "colour": FIT_COLOUR})
        bands = []
        if res.held is not None and res.broke is not None:
            bands.append({"t0": res.held.iops, "t1": res.broke.iops, "label": "goal breaks here", "style": "worst"})
        sec.chart(Chart("lines", f"{res.figure_words[:1].upper() + res.figure_words[1:]} against the load reached",
                        {"lines": [ln for ln in lines if ln["t"]], "x": "IOPS reached", "y": "ms", "log": False,
                         "refs": [{"value": res.threshold_ms, "label": f"goal {fmt_value(res.threshold_ms, 'ms')}",
                                   "style": "cap"}], "bands": bands}))
        fit = "" if res.fit is None else (
            f" The dashed curve is the queueing model R = S / (1 - X / C) fitted to the points (service time "
            f"{ms(res.fit.service_ms)}, capacity {fmt_value(res.fit.capacity_iops, 'IOPS')}, R² {res.fit.r2:.2f}): a "
            "guide, not the answer.")
        sec.para(f"Each dot is one load point: the {res.figure_words} it measured against the IOPS it reached. The red "
                 "dashed line is the goal's threshold; the shaded band lies between the highest load that met the "
                 "goal and the lowest that missed it -- the two points that decide." + fit)
    rows = []
    deciding = {id(res.held), id(res.broke)}
    for k, p in enumerate(res.points, 1):
        ok = {True: "yes", False: "no", None: "cannot tell"}[p.passed]
        if id(p) in deciding and p is not None:
            ok += " (decides)"
        fig = ms(p.response_ms) if p.response_lo_ms == p.response_hi_ms or p.response_lo_ms is None else \
            f"{ms(p.response_ms)} ({ms(p.response_lo_ms)}–{ms(p.response_hi_ms)})"
        d = res.desktops(p.iops)
        rows.append([str(k), _where(ctx, p), fmt_value(p.iops, "IOPS"), fig, ok, "–" if d is None else f"{d:,}"])
    per = (f"IOPS reached divided by {fmt_value(res.iops_per_user)} IOPS per user ({res.per_user_source}), rounded "
           "down" if res.iops_per_user else "no IOPS per user given")
    sec.table(Table("Load points", ["#", "Point", "IOPS reached", res.figure_words[:1].upper() + res.figure_words[1:],
                                    "Within the goal", "Desktops"], rows,
                    widths=[0.05, 0.37, 0.14, 0.2, 0.12, 0.12],
                    note=f"Goal: {res.goal_words}. Points ordered by the IOPS they reached. In brackets: the latency "
                         f"bin that holds the percentile. Desktops: {per}."))
    _notes(sec, a, ctx)
    ctx.methods.append(("load limit", res.method()))
    return sec
