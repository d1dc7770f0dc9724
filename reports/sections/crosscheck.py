"""Cross-check: where two sources describe one disk at the same time (fio's own figures and iostat watching the
disk), do they agree, and if not, why may that be."""

from __future__ import annotations

from app.analysis.questions import fmt_value
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, has, kind_label
from reports.content import Section, Table
from reports.context import ReportContext
from reports.sections import section

WORDS = {"read_iops": ("Reads", "IOPS"), "write_iops": ("Writes", "IOPS"), "total_iops": ("Total", "IOPS"),
         "read_kbs": ("Reads", "kB/s"), "write_kbs": ("Writes", "kB/s"), "total_kbs": ("Total", "kB/s")}
# Total is reads + writes on both sides (fio issues no discards or flushes of its own)


@section("crosscheck")
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.crosscheck import crosscheck, find_pairs

    # a pair counts when either of its runs is in the report: the other source of the same disk is evidence too
    mine = {r["run_id"] for r in ctx.runs}
    # the other side of a pair may be any run of the workspace, but only the report's runs need a partner: fio
    # runs when the report has iostat runs, iostat runs when it has fio runs (reading the span of every iostat run
    # of a large workspace for a report of one run took 1.7 s of its 3.4 s)
    kinds = {int(r["run_id"]): r["kind"] for r in ctx.ws.runs()}
    fio_wanted = any(has(kinds.get(i, ""), DEVICE_RATES) for i in mine)
    iostat_wanted = any(has(kinds.get(i, ""), JOB_SUMMARY) for i in mine)
    candidates = [rid for rid, k in kinds.items()
                  if (has(k, JOB_SUMMARY) and (rid in mine or fio_wanted))
                  or (has(k, DEVICE_RATES) and (rid in mine or iostat_wanted))]
    checks = []
    for fio_id, io_id in find_pairs(ctx.ws, candidates):
        if fio_id not in mine and io_id not in mine:
            continue
        cc = crosscheck(ctx.ws, fio_id, io_id)
        if cc is not None:
            checks.append(cc)
            ctx.covered.update((fio_id, io_id))
    if not checks:
        return None
    from reports.content import _runs

    added = sorted(({cc.fio_run_id for cc in checks} | {cc.iostat_run_id for cc in checks}) - mine)
    if added:  # listed among the runs analysed, with their sources, in the appendix (_runs of [] is every run)
        ctx.runs += _runs(ctx.ws, added)
    sec = Section("crosscheck", "Cross-check: fio against iostat")
    sec.para("fio reports the I/O it issued; iostat, running at the same time, counts what reached the disk. Where "
             "both describe one disk over the same minutes, their figures should agree within 10 %. When they do "
             "not, the figures of the two tools answer different questions, and the reasons below say which.")
    for cc in checks:
        fio, io = ctx.name(cc.fio_run_id), ctx.name(cc.iostat_run_id)
        disk = ctx.an.device(cc.disk)
        verdict = "agree" if cc.verdict == "agree" else "disagree"
        sec.para(f"{fio} and {io} on {disk}: the two {verdict}. fio's job ran {fmt_value(cc.window_s, 's')}; "
                 f"{cc.intervals_used:,} whole iostat intervals of {fmt_value(cc.interval_s, 's')} lie inside it"
                 + (f" ({cc.intervals_left_out:,} cut by its edges are left out)" if cc.intervals_left_out else "")
                 + ".")
        rows = []
        for m in cc.measures:
            if m.fio is None and m.iostat is None:
                continue
            what, unit = WORDS.get(m.name, (m.name, ""))
            rows.append([what, unit, _v(m.fio), _v(m.iostat),
                         "–" if m.ratio is None else f"{m.ratio:.2f}×",
                         {True: "agree", False: "disagree", None: "–"}[m.agree] if m.judged else "not judged"])
        fk, ik = (kind_label(ctx.run(rid)["kind"]) for rid in (cc.fio_run_id, cc.iostat_run_id))
        sec.table(Table(f"{fio} against {io}", ["Figure", "Unit", fk, ik, f"{ik} ÷ {fk}", "Within 10 %"],
                        rows, note="Total: reads and writes together, shown for information; the verdict judges each "
                                   "direction fio did I/O in. Not judged: a direction fio did no I/O in, where iostat "
                                   "may still see other processes' I/O."))
        if cc.reasons:
            sec.para("Why they may differ: " + " ".join(ctx.an.text(r) for r in cc.reasons))
    ctx.methods.append(("crosscheck", "fio against iostat"))
    return sec


def _v(v: float | None) -> str:
    return "–" if v is None else fmt_value(v)
