"""Iometer and IOmark results: the answer first (did the cap hold, is the response-time goal met), then each run's
figures per test and target (Iometer) or per result row (IOmark), and two Iometer runs side by side."""

from __future__ import annotations

from typing import Any

from app.analysis.bench_results import (
    GOAL_PCT,
    GOAL_SOURCE,
    THRESHOLD_MS,
    VERDICT_CELLS,
    IometerSummary,
    cap_text,
    compare_iometer,
    goal_for_run,
    iomark_runs,
    iomark_summary,
    iometer_runs,
    iometer_summary,
    mean_text,
    ratio_text,
    row_text,
    share_text,
    without_then_with_limit,
)
from reports.content import Section, Table, fmt, ms, num
from reports.context import ReportContext
from reports.sections import section

IOMETER_NOTE = ("Iometer reports one average per test (its access specification run for the test's length): IOPS and "
                "MB/s are the test's mean rates (MB = 2^20 bytes, Iometer's binary figure), the maximum response time "
                "the slowest single I/O it saw. A cap is judged on each test's mean with the rule of the cap check "
                "(at or below the cap plus its tolerance: held; under the cap minus the tolerance: not reached, so "
                "the test cannot show the cap is enforced; above: not capped). One average over a test can only show "
                "that the mean stayed at or below the cap, not that every 10 s window did.")


def _cap_cell(r: Any) -> str:
    return "; ".join(f"{cap_text(c)}: {VERDICT_CELLS.get(c.verdict, c.verdict)} ({mean_text(c)})"
                     for c in r.caps) or "–"


def _source(source: str) -> str:
    return {"question": "the report question on this run", "run tag": "the run's cap tag"}.get(source, source)


class _Parts:
    """The section's answers (printed first), then its tables, then its notes."""

    def __init__(self) -> None:
        self.answers: list[str] = []
        self.tables: list[Table] = []
        self.notes: list[str] = []


def _iometer(ctx: ReportContext, out: _Parts, rid: int) -> IometerSummary:
    given = ctx.given_cap()
    res = iometer_summary(ctx.ws, rid, given, name=ctx.name(rid))
    for r in res.rows:
        ctx.an.device(r.target)
    if rid not in _asked(ctx):  # a question's answer is on page 1 and in its section: not said a third time
        out.answers.append(ctx.an.text(res.answer))
        ctx.findings.append(("Iometer", ctx.an.text(res.answer)))
        if res.cap is not None:
            ctx.verdicts.append(ctx.an.text(res.answer))
    header = ["Test", "Access specification", "Target", "IOPS", "MB/s", "Mean response", "Max response"]
    rows = [[str(r.result_set + 1), r.access_spec, ctx.an.device(r.target), fmt(r.iops, 1), fmt(r.mb_s, 2),
             ms(r.mean_ms), ms(r.max_ms)] + ([_cap_cell(r)] if res.cap is not None else []) for r in res.rows]
    note = "" if res.cap is None else (f"Cap from {_source(res.cap.source)}; tolerance {num(res.cap.tolerance_pct)} "
                                       "%. The cap column: the verdict and the test's mean rate.")
    out.tables.append(Table(f"{ctx.name(rid)} (Iometer)",
                            header + (["Cap (test mean)"] if res.cap is not None else []), rows, note=note))
    return res


def _asked(ctx: ReportContext) -> set[int]:
    """The runs a question of the report is about."""
    return {rid for sq, _a in ctx.answered for rid in sq.question.run_ids_used()}


def _comparison(ctx: ReportContext, out: _Parts, a: IometerSummary, b: IometerSummary) -> None:
    """Two Iometer runs: the one without a limit in force first, the one whose cap held second."""
    a, b = without_then_with_limit(a, b)
    cmp = compare_iometer(ctx.ws, a.run_id, b.run_id, {a.run_id: a.run_name, b.run_id: b.run_name})
    if not cmp.rows:
        return
    out.answers.append(ctx.an.text(cmp.answer))
    ctx.findings.append(("Iometer", ctx.an.text(cmp.answer)))
    rows = [[x["access_spec"], ctx.an.device(x["target"]), fmt(x["iops_a"], 1), fmt(x["iops_b"], 1),
             ratio_text(x["iops_ratio"]), fmt(x["mb_s_a"], 2), fmt(x["mb_s_b"], 2), ms(x["mean_ms_a"]),
             ms(x["mean_ms_b"])] for x in cmp.rows]
    out.tables.append(Table(f"A = {a.run_name}, B = {b.run_name}",
                            ["Access specification", "Target", "IOPS A", "IOPS B", "Ratio B / A", "MB/s A", "MB/s B",
                             "Mean response A", "Mean response B"], rows,
                            note="Tests matched on their access specification and target."))
    ctx.values.setdefault("iometer_iomark", {})["comparison"] = cmp.as_dict()


def _iomark(ctx: ReportContext, out: _Parts, rid: int) -> None:
    asked = goal_for_run(ctx.ws, rid)
    thr, goal = (asked[0], asked[1]) if asked else (ctx.opt.latency_threshold_ms, ctx.opt.latency_goal_pct)
    res = iomark_summary(ctx.ws, rid, thr, goal, name=ctx.name(rid))
    if asked:
        res.goal_source = asked[2]
    elif (thr, goal) == (THRESHOLD_MS, GOAL_PCT):
        res.goal_source = GOAL_SOURCE
    else:
        res.goal_source = "the report's response-time goal"
    if rid not in _asked(ctx):
        out.answers.append(ctx.an.text(res.answer))
        ctx.verdicts.append(ctx.an.text(res.answer))
        ctx.findings.append(("IOmark", ctx.an.text(res.answer)))
    t = num(res.threshold_ms)
    rows = [[str(r.line or "–"), ctx.an.text(row_text(r)), "–" if r.users is None else str(r.users), fmt(r.iops, 1),
             fmt(r.mb_s, 2), ms(r.mean_ms), share_text(r.share_pct),
             {True: "yes", False: "no", None: "–"}[r.meets], {True: "pass", False: "fail", None: "–"}[r.stated_pass]]
            for r in res.rows]
    users = "–" if res.users_supported is None else str(res.users_supported)
    out.tables.append(Table(
        f"{ctx.name(rid)} (IOmark)",
        ["Line", "Result", "Users", "IOPS", "MB/s", "Mean response", f"Within {t} ms", "Goal met", "File says"], rows,
        note=f"Goal: at least {num(res.goal_pct)} % of responses within {t} ms ({res.goal_source}). Users supported "
             f"(the most users of a row that meets the goal): {users}."))
    for n in res.notes:
        if n not in out.notes:
            out.notes.append(n)
    ctx.values.setdefault("iometer_iomark", {}).setdefault("iomark", []).append(res.as_dict())


TITLE = "Iometer and IOmark results"


@section("iometer_iomark", title=TITLE, order=80, in_answers=True)
def build(ctx: ReportContext) -> Section | None:
    ids = [r.run_id for r in ctx.runs]
    meter = [rid for rid in ids if rid in iometer_runs(ctx.ws)]
    mark = [rid for rid in ids if rid in iomark_runs(ctx.ws)]
    if not meter and not mark:
        return None
    out = _Parts()
    ctx.covered.update(meter + mark)
    summaries = [_iometer(ctx, out, rid) for rid in meter]
    if summaries:
        out.notes.insert(0, IOMETER_NOTE)
        ctx.values.setdefault("iometer_iomark", {})["iometer"] = [s.as_dict() for s in summaries]
    if len(summaries) == 2:
        _comparison(ctx, out, *summaries)
    for rid in mark:
        _iomark(ctx, out, rid)
    sec = Section("iometer_iomark", TITLE)
    for text in out.answers:
        sec.para(text)
    for t in out.tables:
        sec.table(t)
    for text in out.notes:
        sec.para(text)
    return sec
