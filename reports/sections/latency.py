"""Response times of the runs with latency histograms (vscsiStats, fio): the share within the threshold."""

from __future__ import annotations

from app.analysis.histograms import AnalysisError, LatencyShare, latency_share
from app.analysis.text import pct_pair
from parsers.kinds import TIME_SERIES, has
from reports.content import Section, Table, _customer_error, _goal_word, _heatmap, _pctl, count, num, pct
from reports.context import ReportContext
from reports.sections import section


def share_cells(ls: LatencyShare) -> tuple[str, str]:
    """The share within the threshold as printed (exact, or the bounds) and its estimate clause."""
    if ls.exact:
        return pct(ls.share), ""
    lo, hi = ls.bounds
    lo_t, hi_t = pct_pair(lo, hi, digits=1, missing="–")
    digits = len(lo_t.split(".")[1].split()[0]) if "." in lo_t else 1
    est = f"; estimate {pct(ls.estimate, digits)} (ESTIMATE: linear interpolation)" \
        if ls.estimate is not None else ""
    return f"{lo_t} – {hi_t}", est


TITLE = "Response times"


@section("latency", title=TITLE, order=50)
def build(ctx: ReportContext) -> Section | None:
    if not ctx.histo_runs:
        return None
    sec = Section("latency", TITLE)
    thr, goal = ctx.opt.latency_threshold_ms, ctx.opt.latency_goal_pct
    rows = []
    for r in ctx.histo_runs:
        name = ctx.name(r)
        try:
            ls = latency_share(ctx.ws, r.run_id, thr)
        except AnalysisError as e:
            why = _customer_error(str(e))
            sec.para(ctx.an.text(f"{name} {why}." if why.startswith(("has ", "is ")) else f"{name}: {why}."))
            ctx.covered.add(r.run_id)  # said why here: not a run left out without a word
            continue
        ctx.values.setdefault("latency", {})[r.run_id] = ls.as_dict()
        ctx.covered.add(r.run_id)
        share_txt, est = share_cells(ls)
        if ls.exact:
            ctx.verdicts.append(f"{share_txt} of I/O completed within {num(thr)} ms on {name} "
                                f"(goal {num(goal)} %){_goal_word(ls.share, goal)}.")
        else:
            lo_t, hi_t = share_txt.split(" – ")
            ctx.verdicts.append(f"Between {lo_t} and {hi_t} of I/O completed within {num(thr)} ms on {name} (goal "
                                f"{num(goal)} %; {num(thr)} ms falls inside a histogram bucket{est}).")
        p = ls.percentiles_ms
        rows.append([name, count(ls.ios), share_txt, "exact" if ls.exact else "bounds",
                     _pctl(p.get("p95")), _pctl(p.get("p99"))])
        counts = f" Histogram counts: {ls.counts}." if has(r.kind, TIME_SERIES) else ""
        sec.para(ctx.an.text(f"{name}: {ls.method}. From the {ls.source}.{counts}"))
        heat = _heatmap(ctx.ws, r.run_id, ctx.an) if has(r.kind, TIME_SERIES) else None
        if heat:
            sec.chart(heat)
    if rows:
        sec.order.insert(0, ("t", len(sec.tables)))
        sec.tables.append(Table("", ["Run", "I/Os", f"≤ {num(thr)} ms", "Method", "p95", "p99"], rows))
        ctx.methods.append(("latency", "latency histograms"))
    return sec if rows or sec.paragraphs else None  # a run without histograms is said so, not silently left out
