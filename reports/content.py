"""What goes into a report, computed from the workspace by the same analyses as the window and
the command line (no Qt, no PDF here): verdict sentences, tables, chart data, sources, methods.

Every number printed in the PDF comes from here, so tests can compare the PDF's text with these
values and with the CLI's JSON.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.histograms import LATENCY, AnalysisError, PercentileMs, collection_counts
from app.analysis.numbers import fmt_value
from app.analysis.storm import PLATEAU_DEFINITION
from app.run import Run
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, TIME_SERIES, has
from reports.anonymise import Anonymiser as Anonymiser
from reports.options import ReportOptions
from reports.shown import ShownWorkspace

if TYPE_CHECKING:
    from app.workspace import Workspace
    from reports.context import ReportContext


def fmt(v: float | None, digits: int = 0, unit: str = "") -> str:
    """A measured value. Without ``digits`` the one format of the report's figures (``fmt_value``: whole numbers
    without decimals, other values under 1,000 with one, larger ones whole), so a value reads the same on the
    Answers page, in a section and in a table."""
    if v is None or math.isnan(v):
        return "–"
    if digits == 0:
        return fmt_value(v, unit)
    s = f"{v:,.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


def count(v: float | None) -> str:
    """A number of I/Os (rate x interval summed): whole I/Os."""
    return fmt(None if v is None else round(v))


def pct(v: float | None, digits: int = 2) -> str:
    """A share (0-1) in percent, two decimals everywhere (98.90 %), as on the Answers page."""
    return "–" if v is None else f"{v * 100:.{digits}f} %"


def num(v: float | None) -> str:
    """A value the user gave (threshold, goal, cap, tolerance), printed as given: 2.5 stays 2.5, never 2."""
    if v is None:
        return "–"
    return f"{v:,.6f}".rstrip("0").rstrip(".")


def ms(v: float | None) -> str:
    """A latency in ms with the digits it needs: 0.043 ms stays 0.043, not 0.0."""
    if v is None or math.isnan(v):
        return "–"
    digits = 3 if abs(v) < 1 else 2 if abs(v) < 10 else 1
    return f"{v:,.{digits}f} ms"


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    widths: list[float] | None = None  # fractions of the text width
    max_cell: int = 90  # characters of a cell shown in full (untrusted text is cut, with "…")
    key_cols: int = 1  # the columns that say what a row is: repeated in each part when the table is too wide
    small: bool = False  # reference text (the appendix): printed at the smallest readable size
    visual: bool = False  # its texts are in drawing order already (a part of a table too wide for the page)


@dataclass
class Chart:
    kind: str  # lines | heatmap | bars
    title: str
    data: dict[str, Any]
    note: str = ""


@dataclass
class Section:
    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)  # plain text (escaped when rendered)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    order: list[tuple[str, int]] = field(default_factory=list)  # (kind, index) in display order
    answers: list[dict[str, Any]] = field(default_factory=list)  # the Answers page: one line per question
    findings: list[tuple[str, str]] = field(default_factory=list)  # page 1: results no question asked for
    conclusions: list[str] = field(default_factory=list)  # page 1: conclusions and recommendations

    def para(self, text: str) -> None:
        self.paragraphs.append(text)
        self.order.append(("p", len(self.paragraphs) - 1))

    def table(self, t: Table) -> None:
        self.tables.append(t)
        self.order.append(("t", len(self.tables) - 1))

    def chart(self, c: Chart) -> None:
        self.charts.append(c)
        self.order.append(("c", len(self.charts) - 1))

    def answer(self, item: dict[str, Any]) -> None:
        self.answers.append(item)
        self.order.append(("a", len(self.answers) - 1))


@dataclass
class ReportContent:
    options: ReportOptions
    verdicts: list[str]
    sections: list[Section]
    methods: list[tuple[str, Any]]  # (analysis, method and parameters: text or a nested dict)
    values: dict[str, Any]  # every headline figure, for tests and the CLI's --json
    logo: bytes | None = None  # the cover's image, once read and checked (reports.logo)
    notes: list[str] = field(default_factory=list)  # what the writer of the report should know (a logo left out)


MAX_RUNS = 30  # runs a report covers: of more, the busiest (by peak IOPS); the others are counted
MAX_QUESTIONS = 50  # questions a report answers: the first ones in their order; the others are counted


@dataclass
class Scope:
    """How much of what the report was asked to cover it covers: ``questions`` stored, the first ``answered`` of them
    answered; of ``runs`` it was made for (selected, or the whole workspace), those in ``beyond`` left out (more
    than MAX_RUNS: the busiest are covered)."""

    questions: int
    answered: int
    runs: int
    beyond: list[int] = field(default_factory=list)

    def sentence(self, here: bool = False) -> str:
        """What the report covers of the runs it was made for, on page 1 or (``here``) leading the list of the
        others in the "Not included" box."""
        covered, other = self.runs - len(self.beyond), len(self.beyond)
        first = (f"This report covers the {covered:,} busiest of the {self.runs:,} runs it was made for (by peak "
                 "IOPS: the busiest interval, summed over the whole disks; runs without I/O over time come after)")
        if here:
            return f"{first}; the other {other:,} are not analysed here"
        return f"{first}; the other {other:,} are listed under Not included."


def _busiest(ws: Workspace, ids: list[int], n: int) -> tuple[list[int], list[int]]:
    """The ``n`` runs of ``ids`` with the highest peak IOPS (one query over the stored sums: runs without them,
    such as fio or IOzone runs, come after, in the order they were imported), and the others, each in import
    order."""
    from app.series_sums import peak_iops
    from app.workspace import has_table

    peaks = peak_iops(ws.con, ids) if has_table(ws, "series_sums") else {}
    ranked = sorted(ids, key=lambda rid: (-peaks[rid], rid) if rid in peaks else (math.inf, rid))
    top = set(ranked[:n])
    return [rid for rid in ids if rid in top], [rid for rid in ids if rid not in top]


def _period(ws: Workspace, r: Run) -> str:
    """From the start of the first interval to the end of the last. iostat stamps a report at its end, so
    the first interval starts one interval before the first kept report's time stamp (the since-boot report,
    when left out, covers the time before). A run with a clock offset (app.store.clock) is on its corrected
    clock."""
    start, end = r.started_at, r.ended_at
    if has(r.kind, DEVICE_RATES):  # iostat stamps a report at its end
        row = ws.con.execute("SELECT min(ts), max(ts) FROM iostat_samples WHERE run_id = ? AND NOT since_boot",
                             [r.run_id]).fetchone()
        if row and row[0] is not None and r.interval_s:
            from datetime import timedelta

            start, end = row[0] - timedelta(seconds=float(r.interval_s)), row[1]
    elif has(r.kind, LATENCY_HISTOGRAMS) and has(r.kind, TIME_SERIES) and end and r.interval_s:
        # a collection (vscsiStats) is stamped when it starts
        from datetime import timedelta

        end = end + timedelta(seconds=float(r.interval_s))
    if not start:
        return "no timestamps"
    from app.store.clock import get_offset

    offset = get_offset(ws, r.run_id)  # on the one clock of the report, as every view puts the run
    if offset is not None:
        from datetime import timedelta

        start = start + timedelta(seconds=offset.offset_s)
        end = end + timedelta(seconds=offset.offset_s) if end else end
    out = f"{start:%Y-%m-%d %H:%M:%S}"
    if end:
        out += f" – {end:%H:%M:%S}" if end.date() == start.date() else f" – {end:%Y-%m-%d %H:%M:%S}"
    return out


METHOD_TITLES = {"overlay": "I/O over time", "storm": "Storm metrics", "cap": "Cap compliance",
                 "latency": "Response times", "sizing": "VDI sizing", "compare": "A/B comparison",
                 "crosscheck": "Cross-check", "latency_source": "Where latency comes from", "vm_load": "Load per VM",
                 "latency_path": "Where the time goes"}

METHOD_PROSE = {
    "overlay": "Each report or sample (an iostat or sar report, an nmon snapshot, a perfmon or esxtop sample) "
               "gives the I/O rate of one interval; the charts draw one step per interval, summed over the "
               "physical disks (partitions, device-mapper volumes, Windows volumes, adapters and VM disks are left "
               "out so no I/O is counted twice). A first report that covers the time since boot is left out. "
               "Where a tool averages each sample over the time since the previous one (nmon, perfmon, esxtop), "
               "the interval is that gap. Time 0 is the start of the first activity (three consecutive intervals "
               "above 100 IOPS) unless the run has none.",
    "storm": "Peak: the highest interval. Plateau: see the glossary. Time to peak is measured from the "
             "start of the first activity to the end of the peak interval; settle time from the peak to the first "
             "three consecutive intervals below 10 % of the peak. Phases are the stored ones, else detected from "
             "changes in the I/O level. Totals are rate times interval length.",
    "cap": "A cap held when every window of consecutive intervals at least 10 s long averages at or below "
           "the cap plus a {tol} % tolerance (this absorbs the short bursts a hypervisor's limiter lets "
           "through). Windows slide one interval at a time; windows that span a gap in the reports are not "
           "judged. When the median interval itself is above that limit, no cap at that level was in force. "
           "The tool sees every I/O of the device, including I/O of other processes.",
    "latency": "The share of I/O completed within {thr} ms comes from the latency histograms the tool "
               "recorded. It is exact when {thr} ms is a bucket edge; otherwise the report gives the lower and "
               "upper bound and a clearly labelled estimate by linear interpolation inside the bucket. "
               "Percentiles are given as the bucket that contains them.",
    "sizing": "Front-end IOPS = users × IOPS per user (× storm multiplier for the storm case). Back-end IOPS = "
              "reads + writes × the RAID write penalty. Disks = back-end IOPS ÷ IOPS per disk, always rounded "
              "up, then up to whole RAID sets (mirror pairs, parity groups). The arithmetic is exact; figures "
              "are rounded only when printed.",
    "crosscheck": "fio's job is placed in time from the time fio wrote its report and the job's run time; only "
                  "the iostat intervals wholly inside the job are used (iostat stamps a report at the end of its "
                  "interval, to the second). fio's figures are its own per direction; iostat's are the means of "
                  "r/s, w/s, rkB/s and wkB/s of those intervals on the job's disk. They agree when every figure of "
                  "a direction fio used is within 10 % of fio's.",
    "latency_source": "esxtop splits the time a command takes as the virtual machine sees it (GAVG) into the "
                      "time below the host's driver, in the array and the fabric (DAVG), and the time in the ESXi "
                      "kernel, its queue included (KAVG): GAVG = KAVG + DAVG. Per interval, each is the mean over "
                      "the physical disks weighted by their commands; over the run, the same weighting over every "
                      "interval. Intervals without commands have no latency and are left out. The guidance values "
                      "(DAVG 20 ms, KAVG 2 ms unless the question says otherwise) are common VMware guidance, not "
                      "a law.",
    "latency_path": "The guest's response time (iostat await, perfmon Avg. Disk sec/Transfer) and the host's "
                    "esxtop figures are put on one clock (each run's stored clock offset applied). For each esxtop "
                    "interval, the guest's await is the mean of the guest intervals that overlap it, each weighted "
                    "by its I/Os inside it; GAVG, KAVG and DAVG are the host's, weighted by the commands of the "
                    "chosen devices. In the guest's queue = the guest's await less GAVG: an estimate, as two tools "
                    "measure over intervals matched on the clock and the host's device also serves other VMs; in "
                    "the hypervisor = KAVG; in the array = DAVG. Over the capture every interval weighs by the "
                    "guest's I/Os in it, so that the three parts add up to the mean guest await; a negative guest "
                    "part is shown as measured, never set to zero. Intervals less than half covered by the guest's "
                    "capture, or without guest I/O, are left out.",
    "vm_load": "Each VM's commands per second are the sums over its virtual disks as esxtop reports them; its "
               "share is its commands over all VMs' commands in the run. A VM is active in an interval when its "
               "rate is at least 5 % of the busiest VM's busiest interval, alone when no other VM is active; its "
               "latency alone and with another VM active are GAVG means weighted by its commands.",
    "compare": "The runs are compared figure by figure over the whole of each run (how they are aligned only "
               "places them on a chart's time axis, and each chart says how); time above a level uses one level "
               "for every run (half the first run's peak), so the runs are measured against the same bar.",
}

GLOSSARY = (
    ("IOPS", "Input/output operations per second: the reads, writes, discards and flush requests a device "
             "completed per second, as iostat counts them (older iostat versions report no discards or flushes). "
             "Requests the kernel merged count once. fio's IOPS are the requests fio issued. Reads (%) is the "
             "share of reads among reads and writes."),
    ("Await", "The mean time a request took from being issued to being completed, queueing included: per "
              "interval, the mean of iostat's read, write, discard and flush waits weighted by their requests. "
              "A mean of an interval, not the time of single I/Os."),
    ("Peak", "The highest single interval of a run (the rate of one report or collection, not of one instant): a "
             "burst shorter than an interval is averaged with the rest of it."),
    ("Plateau", PLATEAU_DEFINITION[0].upper() + PLATEAU_DEFINITION[1:] + ". A run whose busy part is one "
                "interval has no plateau beside its peak: the report gives none."),
    ("Median interval", "The median rate of all judged intervals of a run, idle ones included; the cap check "
                        "uses it to tell a run that clearly exceeds a cap from one that breaks it briefly."),
    ("Percentile", "p95 is the value that 95 % of the measurements are at or below (by time for IOPS, by I/O "
                   "for response times)."),
    ("Write penalty", "The back-end I/Os a RAID level needs for one write: 2 for mirrors (RAID 1/10), 4 for "
                      "RAID 5, 6 for RAID 6. Reads cost one I/O."),
    ("Storm multiplier", "How many times the steady per-user load a boot or login storm reaches (for example "
                         "8 IOPS steady × 3.125 = 25 IOPS per user in the storm)."),
    ("GAVG, KAVG, DAVG", "esxtop's times per command: GAVG what the virtual machine waits, DAVG the part below "
                         "the host's driver (the array and the fabric), KAVG the part in the ESXi kernel, its queue "
                         "(QAVG) included. GAVG = KAVG + DAVG."),
    ("Exact vs estimate", "Exact figures follow from the recorded data without assumption. An estimate (marked "
                          "as such) fills a gap by interpolation; bounds give the range the true value lies in."),
)


COMPARE_LABELS = {
    "duration_s": "Duration", "peak_iops": "Peak", "peak_t_end_s": "Peak interval ends (from the start)",
    "time_to_peak_s": "Time to peak",
    "time_above_s": "Time above half the baseline's peak", "settle_time_s": "Settle time", "total_ios": "Total I/Os",
    "mean_iops": "Mean", "read_share": "Reads", "iops_p50": "Median interval", "iops_p95": "p95 interval",
    "iops_p99": "p99 interval", "mean_await_ms": "Mean await", "await_p50_ms": "Median await",
    "await_p95_ms": "p95 await", "await_p99_ms": "p99 await", "peak_kbs": "Peak throughput",
    "mean_kbs": "Mean throughput", "mean_latency_ms": "Mean latency", "latency_p99_ms": "p99 latency (estimate)",
}


def _compare_metric(metric: str, unit: str) -> tuple[str, str, Any]:
    """A compared figure's name, unit and format: one format per quantity (IOPS, kB/s and seconds whole, I/O
    counts whole, shares in %, times in ms with the digits they need)."""
    label = COMPARE_LABELS.get(metric, metric.replace("_", " ").capitalize())
    if unit == "I/Os":  # a count: rate x interval summed, whole I/Os
        return label, unit, count
    if unit == "fraction":
        return label, "%", lambda v: pct(v)
    if unit.startswith("ms"):
        return label, "ms", lambda v: ms(v).removesuffix(" ms")
    return label, unit, lambda v: fmt(v)


def _customer_error(message: str) -> str:
    """An analysis error without the run number and internal parameters ('run 6 has ... (op all)')."""
    import re

    text = re.sub(r"^run \d+ ", "", message)
    return re.sub(r" \(op \w+\)", "", text).rstrip(".")


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _ioz_unit(metric: Any) -> str:
    m = str(metric)
    return {"kb_s": "kB/s", "kbs": "kB/s", "ops_s": "ops/s", "us_op": "µs/op"}.get(m, m.replace("_", " "))


def _ioz_val(v: Any) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return fmt(v) if float(v).is_integer() else num(v)
    return str(v)


def _ioz_key(k: str) -> str:
    return {"file_kb": "file size (kB)", "record_kb": "record size (kB)"}.get(k, k.replace("_", " "))


def _cap_sentence(c: Any) -> str:
    """A cap check in the report's words and number formats (IOPS and kB/s without decimals)."""
    u = c.unit
    limit = f"{fmt(c.limit)} {u} (the cap of {num(c.cap)} {u} + {num(c.tolerance_pct)} %)"
    w = c.worst_window or {}
    win = f"{num(c.window_s)} s"
    if c.verdict == "too short":
        return f"no {win} window of consecutive intervals to judge: the run is too short for a verdict"
    worst = f"the worst {win} window averages {fmt(w.get('average'))} {u} ({fmt(w.get('t_start_s'))}–" \
            f"{fmt(w.get('t_end_s'))} s)"
    over = f"{pct(c.over_cap_share)} of the judged time is spent in single intervals above {fmt(c.limit)} {u}"
    if c.verdict == "not capped":
        return (f"the median interval ({fmt(c.plateau)} {u}) is above {limit}: the run clearly exceeds the cap, so "
                f"no cap at this level was in force; {worst}")
    if c.verdict == "NOT held":
        text = (f"the cap did NOT hold: {c.windows_over:,} of the {c.windows_judged:,} windows of {win} average above "
                f"{limit}; {worst}; {over}")
        if c.burst is not None and c.burst.get("held") is False:
            text += f"; inside the burst allowance the rate reached {fmt(c.burst.get('peak_inside'))} {u}"
        return text
    if c.verdict == "held (cap not reached)":
        return (f"every {win} window stays below the cap and {worst}, under {fmt(c.cap * (1 - c.tolerance_pct / 100))}"
                f" {u}: the load never reached the cap, so this run cannot show that the cap is enforced")
    return f"all {c.windows_judged:,} windows of {win} average at or below {limit}; {worst}"


def _devices(ws: Workspace, ids: list[int]) -> list[str]:
    """Every device name the runs hold (iostat devices, vscsiStats VM disks, fio jobs' devices), in order."""
    if not ids:
        return []
    out: list[str] = []
    for table in ("iostat_samples", "histograms", "histogram_stats"):
        try:  # the runs' ids as one list (a semi-join), not one parameter each: 100,000 runs are one query
            rows = ws.con.execute(f"SELECT DISTINCT device FROM {table} WHERE run_id IN (SELECT unnest(?::BIGINT[])) "
                                  "AND device IS NOT NULL ORDER BY 1", [ids]).fetchall()
        except duckdb_errors() as e:  # a table without a device column in an older workspace
            if "device" not in str(e):
                raise
            continue
        seen = set(out)
        out += [str(r[0]) for r in rows if r[0] and str(r[0]) not in seen]
    return out


def duckdb_errors() -> tuple[type[BaseException], ...]:
    import duckdb

    return (duckdb.BinderException, duckdb.CatalogException)


def _tags(run: Run) -> dict[str, str]:
    return dict(run.tags or {})


def collect(ws: Workspace, opt: ReportOptions, not_imported: list[tuple[str, str]] | None = None) -> ReportContent:
    """Run the builders the options and the stored questions ask for and turn them into report content.

    With questions stored in the workspace the report answers them: the Answers page, one evidence section per
    question (``reports.sections.questions``), then the runs they use, IOzone results, any other section the options
    name, and the appendix. Without questions it tours the runs: executive summary and the sections the options
    list.

    ``not_imported``: the files of the drop the report was made from that could not be imported (file, why),
    listed in the "Not included" box with the runs no answer or section uses."""
    from app.analysis.questions import list_questions
    from reports import builders
    from reports.context import ReportContext

    builders.load()
    ws = ShownWorkspace.of(ws)  # names from files bounded and made visible (reports.shown)
    asked = list_questions(ws)
    stored = asked[:MAX_QUESTIONS]  # the first ones in their order; the others are counted in "Not included"
    needed = {rid for sq in stored for rid in sq.question.run_ids_used()}
    heads = ws.run_heads()
    known = {h.run_id for h in heads}
    if opt.runs:
        missing = set(opt.runs) - known
        if missing:
            raise AnalysisError(f"no run {', '.join(map(str, sorted(missing)))} in this workspace")
    # a report is the answers to the questions, not a tour of every run; it holds every run they use; a tour (or
    # the runs the report was made for) covers at most MAX_RUNS, the busiest (Scope)
    tour = list(dict.fromkeys(opt.runs)) if opt.runs else [] if stored else [h.run_id for h in heads]
    scope = Scope(len(asked), len(stored), len(tour))
    extra = [rid for rid in tour if rid not in needed]
    if len(extra) > MAX_RUNS:
        extra, scope.beyond = _busiest(ws, extra, MAX_RUNS)
    chosen = (needed & known) | set(extra)
    by_id = ws.runs_by_id(chosen)
    runs = [by_id[rid] for rid in sorted(by_id)]
    an = _anonymiser(ws, opt)
    for k, (name, _why) in enumerate(not_imported or [], 1):  # a failed file's name holds the customer's hosts too
        if an.enabled and len(name) >= 2:
            an.runs.setdefault(name, f"file {k} of the folder")
            an.runs.setdefault(name.rsplit(".", 1)[0], f"file {k} of the folder")
            an.parts(name, digits_only=True)
    answered = _answers(ws, an, stored) if stored else []
    ctx = ReportContext(ws, opt, an, runs, answered=answered, values={"runs": [r.run_id for r in runs]})
    ctx.scope = scope
    if scope.beyond:
        ctx.values["runs_not_covered"] = len(scope.beyond)
        ctx.verdicts.append(scope.sentence())
    if scope.questions > scope.answered:
        ctx.values["questions_not_answered"] = scope.questions - scope.answered
    sections = _sections(ctx, builders, not_imported or [])
    ctx.verdicts += _skipped_verdicts(ctx.skipped)
    if not opt.full_paths or opt.anonymise:  # file names only (anonymised: never the consultant's folders)
        _cut_paths(ctx.verdicts, sections)
    ctx.values["verdicts"] = ctx.verdicts
    from reports.conclusions import conclusions

    if answered:
        first = _answers_section(ws, answered, sections, opt, an, ctx.values)
        if scope.questions > scope.answered:  # said where the answers are read, as well as in the box
            first.para(f"These are the answers to the first {scope.answered:,} of the {scope.questions:,} questions "
                       "asked in this workspace; the others are listed under Not included.")
    elif "summary" in ctx.want:
        first = Section("summary", "Executive summary")
        for v in ctx.verdicts or ["No analysis in this report produced a verdict."]:
            first.para(v)
    else:
        first = None
    if first is not None:  # page 1: the answers, the other results, the conclusions
        first.findings = [(w, clean(t, an, opt)) for w, t in ctx.findings]
        first.conclusions = [clean(c, an, opt) for c in conclusions(ctx)]
        ctx.values["findings"] = first.findings
        ctx.values["conclusions"] = first.conclusions
        sections.insert(0, first)
    content = ReportContent(opt, ctx.verdicts, sections, ctx.methods, ctx.values)
    sweep(content, an)
    return content


def _sections(ctx: Any, builders: Any, not_imported: list[tuple[str, str]]) -> list[Section]:
    """Each question's evidence, then the sections the report wants (the cross-check first after questions), the
    "Not included" box before the appendix. A builder whose figures cannot be made (an analysis error: the data
    cannot give them) becomes its title and why, in words; the other sections stay."""
    sections: list[Section] = []
    for n, (sq, a) in enumerate(ctx.answered, 1):
        ctx.covered.update(sq.question.run_ids_used())  # answered, or its answer says why it cannot be
        try:
            sections.append(builders.QUESTION_BUILDERS[a.kind](ctx, n, sq, a))
        except AnalysisError as e:
            sections.append(_not_made(f"q{n}", f"{n}. {clean(a.title, ctx.an, ctx.opt)}", e))
    declared = builders.SECTION_BUILDERS.keys()  # the report's order, as the sections declare it
    order = ("crosscheck", *(k for k in declared if k != "crosscheck")) if ctx.answered else declared
    for k in order:
        if k not in ctx.want:
            continue
        if k == "appendix" and (box := _not_included(ctx, not_imported)) is not None:
            sections.append(box)  # before the appendix: its runs are sources too
        try:
            sec = builders.SECTION_BUILDERS[k](ctx)
        except AnalysisError as e:
            sec = _not_made(k, builders.SECTION_BUILDERS[k].title, e)
        if sec is not None:
            sections.append(sec)
    if "appendix" not in ctx.want and (box := _not_included(ctx, not_imported)) is not None:
        sections.append(box)
    return sections


def _not_made(key: str, title: str, e: AnalysisError) -> Section:
    """A section whose figures cannot be made from its runs: its title and why, in words."""
    sec = Section(key, title)
    sec.para(f"This section could not be made: {_customer_error(str(e))}.")
    return sec


MAX_LISTED = 12  # runs or files named in the "Not included" box; more are counted


def _not_included(ctx: Any, not_imported: list[tuple[str, str]]) -> Section | None:
    """What the report leaves out, said once in a box: the files of the drop that could not be imported, and the
    runs of the report's scope (the runs it was made for, else the whole workspace) that no answer or section
    gives a figure of -- an IOzone, Iometer, esxtop or fio run never drops out without a word."""
    made_for: Scope = ctx.scope or Scope(0, 0, 0)
    beyond = set(made_for.beyond)
    scope = ctx.opt.runs or [h.run_id for h in ctx.ws.run_heads()]
    left = [rid for rid in scope if rid not in ctx.covered and rid not in beyond]
    unasked = made_for.questions - made_for.answered
    if not left and not not_imported and not beyond and not unasked:
        return None
    sec = Section("not_included", "Not included")
    if unasked:
        sec.para(f"{made_for.questions:,} questions are asked in this workspace: this report answers the first "
                 f"{made_for.answered:,}, in the order they were asked; questions {made_for.answered + 1:,} to "
                 f"{made_for.questions:,} are not answered here.")
    if beyond:
        sec.para(f"{made_for.sentence(here=True)}: {_runs_by_kind(ctx, sorted(beyond))}.")
    if not_imported:
        shown = "; ".join(ctx.an.text(f"{name} ({_import_why(name, why)})") for name, why in not_imported[:MAX_LISTED])
        more = f"; and {len(not_imported) - MAX_LISTED:,} more" if len(not_imported) > MAX_LISTED else ""
        many = len(not_imported) != 1
        sec.para(f"{len(not_imported):,} file{'s' if many else ''} of the folder could not be read and "
                 f"{'are' if many else 'is'} not in this report: {shown}{more}.")
    if left:
        parts = _runs_by_kind(ctx, left)
        many = len(left) != 1
        them = "them" if many else "it"
        why = (f"no question of this report is about {them}" if ctx.answered else
               f"no section of this report gives a figure of {them}")
        sec.para(f"{len(left):,} imported run{'s' if many else ''} {'are' if many else 'is'} not analysed here "
                 f"({why}): {parts}.")
    return sec


def _runs_by_kind(ctx: ReportContext, ids: list[int]) -> str:
    """The runs ``ids`` by kind, the first MAX_LISTED named and the others counted ("iostat: a, b and 99,970
    more"), reading only the rows of the runs named."""
    from parsers.kinds import kind_label

    heads = {h.run_id: h for h in ctx.ws.run_heads()}
    by_kind: dict[str, list[int]] = {}
    for rid in ids:
        if (h := heads.get(rid)) is not None:
            by_kind.setdefault(kind_label(h.kind), []).append(rid)
    named = ctx.ws.runs_by_id([rid for rids in by_kind.values() for rid in rids[:MAX_LISTED]])
    parts = []
    n = 0
    for kind, rids in by_kind.items():
        listed = [ctx.name(named[rid]) for rid in rids[: max(0, MAX_LISTED - n)] if rid in named]
        n += len(listed)
        parts.append(f"{kind}: " + (", ".join(listed) if listed else "")
                     + (f"{' and ' if listed else ''}{len(rids) - len(listed):,} more" if len(rids) > len(listed)
                        else ""))
    return "; ".join(parts)


def _import_why(name: str, error: str) -> str:
    """An import error as the box prints it: the reason without the file's path (the name is printed before it;
    'file:12:' becomes 'line 12:'), an internal error in words."""
    if "internal error" in error:
        return "StormScope could not read it: an internal error, recorded in its log"
    i = error.find(name)
    rest = error[i + len(name):] if i >= 0 else error
    m = re.match(r":(\d+):\s*", rest)
    why = f"line {m.group(1)}: {rest[m.end():]}" if m else rest.lstrip(": ")
    return why.strip().rstrip(".")


def _anonymiser(ws: Workspace, opt: ReportOptions) -> Anonymiser:
    """The report's anonymiser, with every host, device and VM of the workspace known before any text is
    printed: a name inside a file name is replaced too."""
    an = Anonymiser(opt.anonymise)
    if not opt.anonymise:
        return an
    an.customer(opt.customer)
    heads = ws.run_heads()
    for r in heads:
        an.host(r.host)
        an.parts(r.host)
        an.parts(r.name, digits_only=True)
        an.run(r.run_id, r.name)
        src = r.source_path.replace("\\", "/").rsplit("/", 1)[-1]
        if len(src) >= 2:  # the file's name (and its stem) hold the customer's host and device names
            an.runs.setdefault(src, an.file(src, r.run_id))
            an.runs.setdefault(src.rsplit(".", 1)[0], an.file(src, r.run_id))
    ids = [r.run_id for r in heads]
    if ids and "vm" in ws.table_columns("iostat_samples"):  # esxtop's VMs: "VM 1", never "device 13"
        for (vm,) in ws.con.execute("SELECT DISTINCT vm FROM iostat_samples WHERE vm IS NOT NULL ORDER BY 1"
                                    ).fetchall():  # every run's: the whole workspace
            an.vm_name(str(vm))
    for dev in _devices(ws, ids):
        if dev in an.vm_names:
            continue
        an.device(dev)
        if (m := VSCSI_DEVICE.match(dev)) is not None:
            an.vm(m.group(1))
    return an


def sweep(content: ReportContent, an: Anonymiser) -> None:
    """With anonymising on, every text the PDF prints -- section and table titles, paragraphs, cells, notes, chart
    titles, axis and line labels, answers, results, conclusions, verdicts, and the report's own title and
    confidentiality line -- passes through the anonymiser once more, whatever built it (a reason quoting a device,
    a typed question title, a warning): nothing a section forgot reaches a page, a bookmark or the metadata. The
    customer's name is not printed."""
    if not an.enabled:
        return

    def t(s: str) -> str:
        out = an.text(s)
        return out[:1].upper() + out[1:] if out.startswith(("the customer", "a name")) else out

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return t(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, dict):
            return {k: walk(x) if k not in ("t", "t0", "y", "grid", "value") else x for k, x in v.items()}
        return v

    content.verdicts = [t(v) for v in content.verdicts]
    for sec in content.sections:
        sec.title = t(sec.title)
        sec.paragraphs = [t(p) for p in sec.paragraphs]
        sec.answers = walk(sec.answers)
        sec.findings = walk(sec.findings)
        sec.conclusions = walk(sec.conclusions)
        for tb in sec.tables:
            tb.title, tb.note = t(tb.title), t(tb.note)
            tb.header = [t(h) for h in tb.header]
            tb.rows = [[t(c) for c in row] for row in tb.rows]
        for ch in sec.charts:
            ch.title, ch.note = t(ch.title), t(ch.note)
            ch.data = walk(ch.data)
    o = content.options
    content.options = o.merged(title=t(o.title) or "Storage performance report", confidential=t(o.confidential))
    content.options.customer = ""


def _skipped_verdicts(skipped: dict[str, list[str]]) -> list[str]:
    """One summary line per reason the series analyses could not use some iostat runs."""
    out = []
    for reason, names in skipped.items():
        why = _customer_error(reason)
        if len(names) == 1:
            out.append(f"The iostat run {names[0]} could not be analysed over time: {why}.")
        else:
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            out.append(f"{len(names)} iostat runs could not be analysed over time: {shown}. The reason: {why}.")
    return out


def _cut_paths(verdicts: list[str], sections: list[Section]) -> None:
    verdicts[:] = [_no_paths(v) for v in verdicts]
    for sec in sections:
        sec.paragraphs = [_no_paths(p) for p in sec.paragraphs]
        for t in sec.tables:
            t.rows = [[_no_paths(c) for c in row] for row in t.rows]




# ---- the Answers page: one line per stored question, linked to the section that holds its evidence -------
VERDICT_WORDS = {"met": "Met", "not met": "Not met", "held": "Held", "not held": "Not held",
                 "information": "Information"}


def _answers(ws: Workspace, an: Anonymiser, stored: list[Any]) -> list[tuple[Any, Any]]:
    """The ``stored`` questions with their answers (``answer_stored``), with the report's run names (anonymised
    ones when asked)."""
    from app.analysis.questions import answer_stored

    names = {h.run_id: an.run(h.run_id, h.name) if an.enabled else an.text(h.name) for h in ws.run_heads()}
    return [(sq, answer_stored(ws, sq, names)) for sq in stored]


TIMES = re.compile(r"(?<=\d) x (?=the baseline)|(?<=IOPS) x (?=storm multiplier)")  # '0.67 x' -> '0.67 ×'



def _workload_rate(ws: Workspace, q: Any, a: Any, an: Anonymiser) -> str:
    """For a cap checked on a disk's total (iostat) while fio ran on it: fio's own rate beside it -- the workload's
    figure, where the disk's total counts every process (fio held 300.0 IOPS, the disk averaged 300.5)."""
    from app.analysis.crosscheck import crosscheck, find_pairs
    from parsers.kinds import JOB_SUMMARY

    run = ws.run(q.run_id)
    if a.error is not None or not a.evidence.results or run is None or not has(run.kind, DEVICE_RATES):
        return ""
    fios = [h.run_id for h in ws.run_heads() if has(h.kind, JOB_SUMMARY)]
    out = []
    for fio_id, io_id in find_pairs(ws, [*fios, q.run_id]):
        cc = crosscheck(ws, fio_id, io_id)
        if cc is None:
            continue
        metric = "iops" if q.iops_cap is not None else "kbs"
        m = cc.measure(f"{q.op}_{metric}")
        if m.fio is None:
            continue
        unit = "IOPS" if metric == "iops" else "kB/s"
        out.append(f" The workload's own rate: fio ({an.text(ws.name_of(fio_id))}) reported "
                   f"{fmt_value_q(m.fio, unit)} over its job; the disk's total above counts every process on it "
                   f"({fmt_value_q(m.iostat, unit)} over the same intervals).")
    return "".join(out)


def fmt_value_q(v: float | None, unit: str) -> str:

    return fmt_value(v, unit)


def _answers_section(ws: Workspace, answered: list[tuple[Any, Any]], sections: list[Section], opt: ReportOptions,
                     an: Anonymiser, values: dict[str, Any]) -> Section:
    """One line per question, in the stored order: verdict, the deciding number, the reason and a link to the
    question's own section with the chart and the numbers."""
    from reports.conclusions import verdict_words

    present = {s.key: s.title for s in sections}
    sec = Section("answers", "Answers")
    items = []
    for n, (sq, a) in enumerate(answered, 1):
        target = f"q{n}" if a.error is None and f"q{n}" in present else None

        reason = str(a.reason) + (_workload_rate(ws, sq.question, a, an) if a.kind == "cap" else "")
        # the deciding figure: a response-time answer's lowest share (every disk's is in its section); a storm's
        # and a comparison's figures are the answer's own words ("peaks higher: 1,212 IOPS against 809 IOPS")
        number = (a.figures[0].text if a.kind == "response_time" and a.figures else
                  "" if a.kind in ("compare", "storm_profile") and a.error is None else a.number)
        item = {"n": n, "question_id": sq.question_id, "title": clean(a.title, an, opt), "verdict": a.verdict,
                "verdict_words": verdict_words(a), "number": clean(number, an, opt),
                "reason": clean(reason, an, opt),
                "section": target, "section_title": f"section {n}" if target else None}
        sec.answer(item)
        items.append(item)
    values["answers"] = items
    return sec


def clean(t: Any, an: Anonymiser, opt: ReportOptions) -> str:
    """An answer's text as the report prints it: names anonymised when asked, '1.50 x the baseline' as '1.50 ×',
    paths cut to file names unless asked for."""
    t = TIMES.sub(" × ", an.text(str(t)))
    return t if opt.full_paths and not opt.anonymise else _no_paths(t)


PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[\\/](?:[^\s\\/]+[\\/])+([^\s\\/]+)")


def _no_paths(s: str) -> str:
    """A text with every absolute path replaced by its file name ('/work/x/y.txt' -> 'y.txt'); 'I/O', 'kB/s'
    and '18 / 54' are no paths."""
    return PATH.sub(r"\1", s)


def _float(v: Any) -> float | None:
    try:
        return None if v is None else float(v)
    except ValueError:
        return None


def _reads(share: float | None, basis: str | None) -> str:
    """Read share; plain (-d) reports have no r/s, w/s, so theirs is by kB, and the cell says so."""
    if share is None:
        return "–"
    return pct(share) + (" (by kB)" if basis and basis != "I/Os" else "")


def _goal_word(share: float | None, goal_pct: float) -> str:
    if share is None:
        return ""
    return ": goal met" if share * 100 >= goal_pct else ": goal NOT met"


def _pctl(p: PercentileMs | None) -> str:
    if p is None:
        return "–"
    if p.exact:
        return f"{fmt(p.hi, 2)} ms"
    a, b = fmt(p.lo, 2), fmt(p.hi, 2)
    for d in range(3, 7):  # enough digits to tell the bucket's edges apart (0.2166–0.2200, not 0.22–0.22)
        if a != b or p.lo == p.hi:
            break
        a, b = fmt(p.lo, d), fmt(p.hi, d)
    return f"{a}–{b} ms"


def _ratio(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _device_rule(s: Any, an: Anonymiser) -> str:
    used = [an.device(d) for d in s.devices.used]
    return ", ".join(used[:6]) + (f" and {len(used) - 6} more" if len(used) > 6 else "")


def _heatmap(ws: Workspace, run_id: int, an: Anonymiser) -> Chart | None:
    # each collection's own counts (a cumulative vscsiStats run is differenced)
    rows = list(collection_counts(ws, run_id, LATENCY, "all").sort("device", "sample_idx", "bucket_hi", nulls_last=True)
                .select("device", "sample_idx", "bucket_lo", "bucket_hi", "count").iter_rows())
    if not rows:
        return None
    by_dev: dict[str, dict[int, list[tuple]]] = {}
    for dev, s, lo, hi, n in rows:
        by_dev.setdefault(dev, {}).setdefault(s, []).append((lo, hi, n))
    panels = []
    for dev, samples in list(by_dev.items())[:2]:
        buckets = next(iter(samples.values()))
        labels = [("> " + num(lo / 1000) if hi is None else "≤ " + num(hi / 1000)) + " ms" for lo, hi, _ in buckets]
        grid = np.zeros((len(samples), len(buckets)))
        for i, s in enumerate(sorted(samples)):
            c = [n for _, _, n in samples[s]][: len(buckets)]
            grid[i, : len(c)] = c
        panels.append({"label": _vm_disk(dev, an), "labels": labels, "grid": grid.tolist()})
    run = ws.run(run_id)
    return Chart("heatmap", "Latency histogram of each collection (colour = I/O count on a logarithmic scale, "
                            "beside each panel)",
                 {"panels": panels, "interval_s": None if run is None else run.interval_s})


VSCSI_DEVICE = re.compile(r"^(\d+):(\d+) \((.+)\)$")


def _vm_disk(dev: str, an: Anonymiser) -> str:
    """vscsiStats' 'world:handle (scsiN:M)' as words: 'VM 2099979, disk scsi0:0' (anonymised: 'VM 1, disk
    scsi0:0')."""
    m = VSCSI_DEVICE.match(dev or "")
    if m:
        return f"VM {an.vm(m.group(1))}, disk {m.group(3)}"
    return an.device(dev)
