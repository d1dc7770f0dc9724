"""Appendix: how the figures were computed, a glossary, and every source with its checksum."""

from __future__ import annotations

import re

from app.analysis.text import render_stored
from app.run import Run
from parsers.kinds import kind_label
from reports.content import GLOSSARY, METHOD_PROSE, METHOD_TITLES, Section, Table, _tags, num
from reports.context import ReportContext
from reports.sections import section

TITLE = "Appendix: sources and methods"


@section("appendix", title=TITLE, order=120, in_answers=True)
def build(ctx: ReportContext) -> Section | None:
    from reports.options import version

    opt, an = ctx.opt, ctx.an
    sec = Section("appendix", TITLE)
    used = list(dict.fromkeys(k for k, _ in ctx.methods))
    if used:
        tol, thr = _parameters(ctx)
        sec.table(Table("How the figures were computed", ["Analysis", "Method"],
                        [[METHOD_TITLES[k], METHOD_PROSE[k].format(tol=tol, thr=thr)]
                         for k in used if k in METHOD_PROSE], widths=[0.2, 0.8], max_cell=2000, small=True))
    sec.table(Table("Glossary", ["Term", "Meaning"], [list(g) for g in GLOSSARY if _used(g[0], used)],
                    widths=[0.2, 0.8], max_cell=2000, small=True))
    sec.table(Table("Assumptions and limitations", ["", ""], [list(x) for x in LIMITATIONS], widths=[0.2, 0.8],
                    max_cell=2000, small=True))
    sec.para(f"Sources. Each run's file, tool, host, tags and import warnings, and the SHA-256 checksum of the "
             f"file as imported. StormScope {version()} wrote this report: the same files (the same checksums), "
             "imported with the same settings, and the same report options give the same figures and a "
             "byte-identical PDF.")
    for r in ctx.runs:
        warn = [report_warning(w) for w in r.warnings or []]
        src = str(r.source_path or "")
        # anonymised: no file name (it holds the customer's hosts) and never the consultant's folders
        shown = (an.file(src, int(r.run_id)) if an.enabled else src if opt.full_paths
                 else src.replace("\\", "/").rsplit("/", 1)[-1])
        # anonymised: a tag's words are the consultant's notes about the customer (a site, a team): only numbers
        tags = ", ".join(f"{k} = {v if not an.enabled or _number(v) else 'withheld'}"
                         for k, v in sorted(_tags(r).items()))
        sec.para(an.text(
            f"Run {r.run_id} · {shown} · {kind_label(r.kind)}, "
            f"{r.tool_version or 'version not stated'} · "
            + ((an.host(r.host) if an.enabled else f"host {r.host}") if r.host else "host not stated")
            + (f" · tags: {tags}" if tags else "") + dates_read(r) + counters_read(r) + whole_disks_said(ctx, r)
            + (f" · import warnings: {' | '.join(warn)}" if warn else " · no import warnings"))
            + f" · SHA-256 {r.source_sha256 or '–'}")
    cut = getattr(ctx.ws, "cut", [])
    if cut:
        sec.para("Names cut short. Some names the files give are too long to print: " + "; ".join(cut) + ".")
    return sec


# the analyses (appendix method keys) a glossary term belongs to; a term not listed is always defined
GLOSSARY_FOR = {"Await": {"storm", "overlay", "compare", "cap", "latency_path"},
                "Peak": {"storm", "compare", "overlay", "cap"},
                "Plateau": {"storm", "compare", "cap"}, "Median interval": {"cap", "compare", "storm"},
                "Write penalty": {"sizing"}, "Storm multiplier": {"sizing"},
                "GAVG, KAVG, DAVG": {"latency_source", "vm_load", "latency_path"},
                "Percentile": {"storm", "latency", "compare"}}


def _used(term: str, used: list[str]) -> bool:
    """A glossary term is printed when an analysis of the report uses it."""
    return term not in GLOSSARY_FOR or bool(GLOSSARY_FOR[term] & set(used))


def _number(v: object) -> bool:
    try:
        float(str(v))
    except ValueError:
        return False
    return True


def counters_read(r: Run) -> str:
    """Perfmon counters whose names StormScope does not know (a Windows display language it has no names for), read
    by their place in the log: how many, and whether the consultant confirmed it -- while nobody has, ASSUMED."""
    placed = r.meta.obj("counters_by_place")
    if not placed:
        return ""
    names = placed.get("names")
    n = len(names) if isinstance(names, dict) else 0
    state = str(placed.get("state", ""))
    if state == "not confirmed":
        return (f" · {n} counters read by their place in the log, ASSUMED: their names are in a language StormScope "
                "does not know and nobody confirmed the reading")
    if state.startswith("rejected"):
        return (f" · {n} counters whose names StormScope does not know: rejected by the consultant, their values "
                "left out")
    return f" · {n} counters read by their place in the log (names in a language StormScope does not know), {state}"


def dates_read(r: Run) -> str:
    """How the run's dates were read and why: the file's evidence, a file beside it, or the consultant -- and, while
    nobody has said, that the order is assumed."""
    said = r.meta.text("date_order")
    if not said:
        return ""
    if r.meta.obj("date_reading"):
        return (f" · dates read {str(said).split(' (')[0]}, ASSUMED: the file's dates read both ways and nobody "
                "said which")
    return f" · dates read {said}"


def whole_disks_said(ctx: ReportContext, r: Run) -> str:
    """The whole disks the consultant chose for the run (Whole disks… in the run menu), beside StormScope's own."""
    chosen = [str(d) for d in r.meta.items("whole_disks")]
    if not chosen:
        return ""
    from app.series_sums import rules_choice

    own = rules_choice(ctx.ws.con, r.run_id).used
    an = ctx.an

    def names(ds: list[str]) -> str:
        return ", ".join(an.device(d) for d in ds[:8]) + (f" and {len(ds) - 8} more" if len(ds) > 8 else "")

    return (f" · whole disks chosen by the consultant: {names(chosen)} (StormScope's rules would sum "
            f"{names(own) or 'none'})")


def _parameters(ctx: ReportContext) -> tuple[str, str]:
    """The cap tolerance and the response-time threshold the methods name: the questions' own (several joined:
    '1 ms / 50 ms'), else the report's options."""
    tols = [q.tolerance_pct for q in (sq.question for sq, _a in ctx.answered) if q.KIND == "cap"]
    thrs = [q.threshold_ms for q in (sq.question for sq, _a in ctx.answered) if q.KIND == "response_time"]
    tol = " / ".join(num(v) for v in dict.fromkeys(tols)) if tols else num(ctx.opt.tolerance_pct)
    thr = " / ".join(num(v) for v in dict.fromkeys(thrs)) if thrs else num(ctx.opt.latency_threshold_ms)
    return tol, thr


FIX_TOKEN = re.compile(r"\{fix:[a-z_]+\}")


def report_warning(stored: str) -> str:
    """An import warning as the customer reads it: what the file said, without the clause that tells the
    consultant what to do in the window ("...; if iostat ran with -y, say so with ..."): from the punctuation
    that opens the clause holding the fix to the next ';' (or the end)."""
    text = stored
    while (m := FIX_TOKEN.search(text)) is not None:
        head = text[: m.start()]
        start = max(head.rfind(";"), head.rfind(":"), head.rfind(". "))
        start = start + 1 if start >= 0 and head[start] == "." else max(start, 0)
        end = text.find(";", m.end())
        text = text[:start].rstrip() if end < 0 else text[:start].rstrip().rstrip(".") + text[end:]
    return render_stored(text.strip().rstrip(";:,")) or render_stored(stored)


LIMITATIONS = (
    ("Charts", "Each interval is drawn as a step over the seconds it covers; a long series is drawn with the minimum "
               "and maximum of every point column, so no peak is lost; an interval without a value is a gap."),
    ("What the tools see", "iostat, sar, nmon and perfmon count every I/O of a device, from every process and "
                           "the filesystem's own journal and metadata; esxtop counts every command of a host's "
                           "VMs on a device. No tool here tells one application's I/O from another's."),
    ("Sizing", "Sizing multiplies the IOPS per user and the RAID write penalty exactly; the IOPS a disk "
               "delivers are typical figures for its type, not a measurement of the customer's disks."),
    ("Clocks", "Times are those the tools printed (the host's clock and time zone), except for a run whose clock "
               "was corrected (the runs table says which, and by how much). Runs are aligned on their own start or "
               "activity unless a comparison is on clock time: then each file's stated time zone is applied, a file "
               "that states none is read as printed, and a corrected clock is used as corrected. A correction is "
               "estimated from the shift at which a run's activity over time best matches a reference run's, and "
               "is good to about half the shorter of their intervals; a pair whose activities do not match gets "
               "none."),
)
