"""Cross-check: where two sources describe one disk at the same time (fio's own figures and iostat watching the
disk), do they agree, and if not, why may that be."""

from __future__ import annotations

from app.analysis.numbers import fmt_value
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, has
from reports.content import Section, Table
from reports.context import ReportContext
from reports.sections import section

WORDS = {"read_iops": ("Reads", "IOPS"), "write_iops": ("Writes", "IOPS"), "total_iops": ("Total", "IOPS"),
         "read_kbs": ("Reads", "kB/s"), "write_kbs": ("Writes", "kB/s"), "total_kbs": ("Total", "kB/s")}
# Total is reads + writes on both sides (fio issues no discards or flushes of its own)


TITLE = "Cross-check: fio against iostat"


@section("crosscheck", title=TITLE, order=110, in_answers=True)
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.crosscheck import crosscheck, find_pairs

    # a pair counts when either of its runs is in the report: the other source of the same disk is evidence too
    mine = {r.run_id for r in ctx.runs}
    # the other side of a pair may be any run of the workspace, but only the report's runs need a partner: fio
    # runs when the report has iostat runs, iostat runs when it has fio runs (reading the span of every iostat run
    # of a large workspace for a report of one run took 1.7 s of its 3.4 s)
    kinds = {h.run_id: h.kind for h in ctx.ws.run_heads()}
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
    added = sorted(({cc.fio_run_id for cc in checks} | {cc.iostat_run_id for cc in checks}) - mine)
    if added:  # listed among the runs analysed, with their sources, in the appendix
        found = ctx.ws.runs_by_id(added)
        ctx.runs += [found[rid] for rid in added if rid in found]
    sec = Section("crosscheck", TITLE)
    agree = sum(cc.verdict == "agree" for cc in checks)
    n = len(checks)
    sec.para("fio reports the I/O it issued; iostat, running at the same time, counts what reached the disk. Where "
             "both describe one disk over the same minutes, each figure of a direction fio used should agree within "
             + (f"10 %. The two {'agree' if agree else 'disagree'}" if n == 1 else
                f"10 %. {agree} of the {n} pairs agree")
             + ("." if agree == n else "; where they do not, the two tools answer different questions (why, below)."))
    rows = []
    for cc in checks:
        judged = [m for m in cc.measures if m.judged and (m.fio is not None or m.iostat is not None)]
        cell = "; ".join(f"{WORDS.get(m.name, (m.name, ''))[0].lower()} {_v(m.fio)} against {_v(m.iostat)} "
                         f"{WORDS.get(m.name, ('', ''))[1]}" + ("" if m.ratio is None else f" ({m.ratio:.2f}×)")
                         for m in judged)
        rows.append([ctx.name(cc.fio_run_id), ctx.name(cc.iostat_run_id), ctx.an.device(cc.disk),
                     f"{fmt_value(cc.window_s, 's')}, {cc.intervals_used:,} intervals", cell or "–",
                     "agree" if cc.verdict == "agree" else "disagree"])
    sec.table(Table("", ["fio run", "iostat run", "Disk", "Job (whole intervals)", "fio against iostat",
                         "Within 10 %"], rows,
                    note="fio against iostat: each direction fio did I/O in, fio's own figure first, then iostat's "
                         "mean over the iostat intervals wholly inside the job, and iostat ÷ fio. A direction fio did "
                         "no I/O in is not judged (iostat may see other processes' I/O there)."))
    why: dict[str, list[str]] = {}
    for cc in checks:
        for r in cc.reasons:
            why.setdefault(ctx.an.text(r), []).append(f"{ctx.name(cc.fio_run_id)} on {ctx.an.device(cc.disk)}")
    for reason, pairs in why.items():  # each reason once, with the pairs it applies to
        sec.para(f"Why they may differ ({', '.join(pairs) if len(pairs) < n else 'every pair'}): {reason}")
    ctx.findings.append(("Cross-check", f"fio's own figures and iostat's agree within 10 % on {agree} of {n} "
                                        f"disk{'s' if n != 1 else ''}."
                         + ("" if agree == n else f" {n - agree} disagree.")))
    ctx.methods.append(("crosscheck", "fio against iostat"))
    return sec


def _v(v: float | None) -> str:
    return "–" if v is None else fmt_value(v)
