"""Runs analysed: one row per run of the report."""

from __future__ import annotations

from app.run import Run
from app.store.clock import fmt_offset, get_offset
from parsers.kinds import DEVICE_RATES, TIME_SERIES, has, kind_label
from reports.content import Section, Table, _period, fmt
from reports.context import ReportContext
from reports.sections import section

GIVEN = " (given)"
CORRECTED = " (clock corrected)"
CORRECTED_NOTE = (" Clock corrected: captures from several machines rarely share a clock, so a run's clock is put on "
                  "the others' -- by the shift at which its activity best matches a reference run's (estimated, the "
                  "match from 0 to 1), or as the consultant set it. Its period here and every time on the clock in "
                  "this report use the corrected clock: ")
GIVEN_NOTE = (" Given: not in the trace file but the consultant's answer — the interval of a capture without time "
              "stamps, or whether an iostat capture's first report covers the time since boot (counted when it does "
              "not).")


def _first_report_given(r: Run) -> bool:
    """The consultant said whether the run's first report covers the time since boot (the file could not)."""
    return "set by the user" in (r.meta.text("first_report") or "")


def _reports(ctx: ReportContext, r: Run) -> str:
    n = int(r.n_samples or 0)
    if has(r.kind, DEVICE_RATES):  # iostat's since-boot report is not counted
        boot = ctx.ws.con.execute("SELECT count(DISTINCT sample_idx) FROM iostat_samples WHERE run_id = ? AND "
                                  "since_boot", [r.run_id]).fetchall()[0][0]
        n -= int(boot or 0)
        if _first_report_given(r):
            return f"{n:,}{GIVEN}"
    return f"{n:,}"


TITLE = "Runs analysed"


@section("runs", title=TITLE, order=10, in_answers=True)
def build(ctx: ReportContext) -> Section | None:
    sec = Section("runs", TITLE)
    rows = []
    offsets: list[str] = []
    for r in ctx.runs:
        series_kind = has(r.kind, TIME_SERIES)
        interval = fmt(r.interval_s, 0 if (r.interval_s or 0) >= 1 else 2, "s") \
            if r.interval_s else ("unknown" if series_kind else "–")
        if r.interval_s and r.interval_source == "user":
            interval += GIVEN
        period = _period(ctx.ws, r)
        offset = get_offset(ctx.ws, r.run_id)
        if offset is not None and period != "no timestamps":
            period += CORRECTED
            offsets.append(f"run {r.run_id}'s clock is corrected by {offset.words()}")
        elif offset is not None and offset.reference_run_id is not None:  # no clock of its own: placed on another's
            period += f" (placed on run {offset.reference_run_id}'s clock)"
            offsets.append(f"run {r.run_id}, without time stamps, starts {fmt_offset(offset.offset_s)} from run "
                           f"{offset.reference_run_id}'s start ({offset.how(against=False)})")
        rows.append([str(r.run_id), ctx.name(r), kind_label(r.kind), ctx.an.host(r.host),
                     period, interval,
                     _reports(ctx, r) if r.n_samples and series_kind else "–"])
    given = any(GIVEN in c for row in rows for c in row)
    header = ["Run", "Name", "Kind", "Host", "Period", "Interval", "Reports"]
    plan_note = _against_plan(ctx, rows, header)
    sec.table(Table("", header, rows,
                    note="The runs imported from the customer's trace files (their sources, checksums and import "
                         "warnings: the appendix). Reports: the samples of a run over time that the analyses use "
                         "(iostat reports, vscsiStats collections; a since-boot report left out is not counted); "
                         "benchmark results such as fio and IOzone have none." + (GIVEN_NOTE if given else "")
                         + (CORRECTED_NOTE + "; ".join(offsets) + "." if offsets else "") + plan_note))
    return sec


def _against_plan(ctx: ReportContext, rows: list[list[str]], header: list[str]) -> str:
    """With a capture plan stored: a column saying, per run, "as planned" or what differs from the plan, and the
    planned files no run is; the note's words."""
    from app.analysis.capture_plan import check_runs, missing_files, stored
    from app.errors import AnalysisError

    try:
        plan = stored(ctx.ws)
    except AnalysisError as e:  # a received workspace's plan this version cannot read: said, not hidden
        return f" The capture plan stored with the workspace could not be compared: {e}."
    if plan is None:
        return ""
    for s in plan.systems:  # the plan's host names are the customer's: anonymised like the files' hosts
        ctx.an.host(s.host)
    checks = check_runs(ctx.ws, plan, [r.run_id for r in ctx.runs])
    header.append("Capture plan")
    for row, c in zip(rows, checks):
        row.append(c.short_words())
    missing = missing_files(plan, check_runs(ctx.ws, plan))
    note = (" Capture plan: each run compared with the plan the customer was given (its interval, its length, time "
            "stamps, its host, the storm inside it); \"as planned\" when nothing differs.")
    differ = [c for c in checks if not c.as_planned]
    if differ:
        note += " " + " ".join(f"Run {c.run_id}: {c.words()}." for c in differ)
    if missing:
        note += " Planned but not received: " + ", ".join(f.name for f in missing) + "."
    return note
