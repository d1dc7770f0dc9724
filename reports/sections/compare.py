"""A/B comparison of the iostat runs of the report, figure by figure."""

from __future__ import annotations

from typing import Any

from reports.content import Section, Table, _compare_metric, _ratio, fmt
from reports.context import ReportContext
from reports.sections import section

# the figures a comparison of storms turns on (a question's table shows these and its own figure)
KEY_FIGURES = ("duration_s", "peak_iops", "time_to_peak_s", "time_above_s", "settle_time_s", "total_ios", "mean_iops",
               "iops_p95", "read_share", "mean_await_ms", "await_p95_ms", "mean_kbs", "mean_latency_ms")


def compare_rows(cmp: Any, with_ratio: bool, only: set[str] | None = None) -> list[list[str]]:
    """One row per compared figure (those in ``only``, when given): its name, unit and each run's value (with the
    ratio to the baseline)."""
    rows = []
    for m in cmp.metrics:
        if only is not None and m["metric"] not in only:
            continue
        label, unit, show = _compare_metric(m["metric"], m.get("unit", ""))
        cells = [show(v) for v in m["values"]]
        if with_ratio:
            cells = [c if k == 0 or m["ratio"][k] is None or c == "–" else f"{c} ({_ratio(m['ratio'][k])})"
                     for k, c in enumerate(cells)]
        rows.append([label, unit, *cells])
    return rows


TITLE = "A/B comparison"


@section("compare", title=TITLE, order=100)
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.compare import compare_runs

    series = ctx.series()
    comparable = [r for r in ctx.iostat if r.run_id in series]
    if len(comparable) < 2:
        return None
    cmp = compare_runs(ctx.ws, [r.run_id for r in comparable], ctx.opt.device)
    ctx.values["compare"] = cmp.as_dict()
    ctx.covered.update(r["run_id"] for r in cmp.runs)
    sec = Section("compare", TITLE)
    names = [ctx.name(r["run_id"]) for r in cmp.runs]
    ids = [r["run_id"] for r in cmp.runs]
    # a ratio compares like with like: only when the report holds exactly the runs being compared (two, or the
    # runs the report was made for), each run against the first
    with_ratio = len(ids) == 2 or (bool(ctx.opt.runs) and sorted(ctx.opt.runs) == sorted(ids))
    above = cmp.method.get("time_above_threshold_iops")
    sec.para(f"Baseline: {names[0]}. "
             + ("In brackets: each run's figure divided by the baseline's." if with_ratio else
                "No ratios: the runs below were not chosen as one comparison; make a report of just the runs "
                "to compare for ratios against the first.")
             + (f" Time above half the peak counts, for every run, the seconds above {fmt(above)} IOPS (half "
                "the baseline's peak), so the runs are measured against one level." if above is not None else ""))
    sec.table(Table("", ["Figure", "Unit", *names], compare_rows(cmp, with_ratio), key_cols=2))
    ctx.methods.append(("compare", cmp.method))
    return sec
