"""What goes into a report, computed from the workspace by the same analyses as the window and
the command line (no Qt, no PDF here): verdict sentences, tables, chart data, sources, methods.

Every number printed in the PDF comes from here, so tests can compare the PDF's text with these
values and with the CLI's JSON.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.analysis.histograms import LATENCY, AnalysisError, collection_counts, latency_share
from app.analysis.text import pct_pair, render_stored
from reports.options import ReportOptions


def fmt(v: float | None, digits: int = 0, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = f"{v:,.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


def pct(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v * 100:.{digits}f} %"


def num(v: float | None) -> str:
    """A value the user gave (threshold, goal, cap, tolerance), printed as given: 2.5 stays 2.5, never 2."""
    if v is None:
        return "–"
    return f"{v:,.6f}".rstrip("0").rstrip(".")


def ms(v: float | None) -> str:
    """A latency in ms with the digits it needs: 0.043 ms stays 0.043, not 0.0."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    digits = 3 if abs(v) < 1 else 2 if abs(v) < 10 else 1
    return f"{v:,.{digits}f} ms"


class Anonymiser:
    """Replaces host and device names (and any text containing them) with neutral labels."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.hosts: dict[str, str] = {}
        self.devices: dict[str, str] = {}

    def host(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.hosts.setdefault(name, f"host {len(self.hosts) + 1}")

    def device(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.devices.setdefault(name, f"device {len(self.devices) + 1}")

    def text(self, s: str | None) -> str:
        """``s`` with every known host and device name replaced, also inside file names ("host1_sdb_iostat":
        a name counts where it is not part of a longer word or number; underscores, dots and dashes separate)."""
        if not s or not self.enabled:
            return s or ""
        import re

        for real, alias in sorted({**self.hosts, **self.devices}.items(), key=lambda kv: -len(kv[0])):
            if len(real) >= 2:
                s = re.sub(rf"(?<![A-Za-z0-9]){re.escape(real)}(?![A-Za-z0-9])", alias, s)
        return s


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    widths: list[float] | None = None  # fractions of the text width
    max_cell: int = 90  # characters of a cell shown in full (untrusted text is cut, with "…")


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


def _runs(ws: Any, ids: list[int]) -> list[dict[str, Any]]:
    out = []
    for r in ws.runs():
        if not ids or r["run_id"] in ids:
            full = ws.run(r["run_id"]) or {}
            out.append({**r, **full})
    return out


def _period(ws: Any, r: dict[str, Any]) -> str:
    """From the start of the first interval to the end of the last. iostat stamps a report at its end, so
    the first interval starts one interval before the first kept report's time stamp (the since-boot report,
    when left out, covers the time before)."""
    start, end = r.get("started_at"), r.get("ended_at")
    if r["kind"] == "iostat":
        row = ws.con.execute("SELECT min(ts), max(ts) FROM iostat_samples WHERE run_id = ? AND NOT since_boot",
                             [r["run_id"]]).fetchone()
        if row and row[0] is not None and r.get("interval_s"):
            from datetime import timedelta

            start, end = row[0] - timedelta(seconds=float(r["interval_s"])), row[1]
    if not start:
        return "no timestamps"
    out = f"{start:%Y-%m-%d %H:%M:%S}"
    if end:
        out += f" – {end:%H:%M:%S}" if end.date() == start.date() else f" – {end:%Y-%m-%d %H:%M:%S}"
    return out


KIND_NAMES = {"iostat": "iostat", "vscsistats": "vscsiStats", "fio": "fio", "iozone": "IOzone", "hdparm": "hdparm",
              "iometer": "Iometer", "iomark": "IOmark", "diskspd": "DiskSpd", "nmon": "nmon", "perfmon": "PerfMon"}

METHOD_TITLES = {"overlay": "I/O over time", "storm": "Storm metrics", "cap": "Cap compliance",
                 "latency": "Response times", "sizing": "VDI sizing", "compare": "A/B comparison"}

METHOD_PROSE = {
    "overlay": "Each iostat report gives the I/O rate of one interval; the charts draw one step per interval, "
               "summed over the whole disks (partitions and device-mapper volumes are left out so no I/O is "
               "counted twice). The first report iostat prints, which covers the time since boot, is left out. "
               "Time 0 is the start of the first activity (three consecutive intervals above 100 IOPS) unless "
               "the run has none.",
    "storm": "Peak: the highest interval. Plateau: the time-weighted median of the intervals above half the "
             "peak. Time to peak is measured from the start of the first activity to the end of the peak "
             "interval; settle time from the peak to the first three consecutive intervals below 10 % of the "
             "peak. Phases are the stored ones, else detected from changes in the I/O level. Totals are rate "
             "times interval length.",
    "cap": "A cap held when every window of consecutive intervals at least 10 s long averages at or below "
           "the cap plus a {tol} % tolerance (this absorbs the short bursts a hypervisor's limiter lets "
           "through). Windows slide one interval at a time; windows that span a gap in the reports are not "
           "judged. When the median interval itself is above that limit, no cap at that level was in force. "
           "iostat sees every I/O of the device, including I/O of other processes.",
    "latency": "The share of I/O completed within {thr} ms comes from the latency histograms the tool "
               "recorded. It is exact when {thr} ms is a bucket edge; otherwise the report gives the lower and "
               "upper bound and a clearly labelled estimate by linear interpolation inside the bucket. "
               "Percentiles are given as the bucket that contains them.",
    "sizing": "Front-end IOPS = users × IOPS per user (× storm multiplier for the storm case). Back-end IOPS = "
              "reads + writes × the RAID write penalty. Disks = back-end IOPS ÷ IOPS per disk, always rounded "
              "up, then up to whole RAID sets (mirror pairs, parity groups). The arithmetic is exact; figures "
              "are rounded only when printed.",
    "compare": "The runs are aligned on their first activity and compared figure by figure over the whole "
               "run; time above a level uses one level for every run (half the first run's peak), so the runs "
               "are measured against the same bar.",
}

GLOSSARY = (
    ("IOPS", "Input/output operations per second: reads plus writes completed per second."),
    ("Await", "The mean time an I/O took from being issued to being completed, as iostat reports it per "
              "interval (queueing included). A mean of an interval, not the time of single I/Os."),
    ("Plateau", "The sustained level of a storm: the time-weighted median IOPS of the intervals above half "
                "the peak. Idle time before and after the storm does not pull it down."),
    ("Median interval", "The median rate of all judged intervals of a run, idle ones included; the cap check "
                        "uses it to tell a run that clearly exceeds a cap from one that breaks it briefly."),
    ("Percentile", "p95 is the value that 95 % of the measurements are at or below (by time for IOPS, by I/O "
                   "for response times)."),
    ("Write penalty", "The back-end I/Os a RAID level needs for one write: 2 for mirrors (RAID 1/10), 4 for "
                      "RAID 5, 6 for RAID 6. Reads cost one I/O."),
    ("Storm multiplier", "How many times the steady per-user load a boot or login storm reaches (for example "
                         "8 IOPS steady × 3.125 = 25 IOPS per user in the storm)."),
    ("Exact vs estimate", "Exact figures follow from the recorded data without assumption. An estimate (marked "
                          "as such) fills a gap by interpolation; bounds give the range the true value lies in."),
)


SIZING_INPUT_NAMES = {"users": "Users", "iops_per_user": "IOPS per user", "read_pct": "Reads (%)",
                      "storm_multiplier": "Storm multiplier", "raid": "RAID level", "disk_iops": "IOPS per disk",
                      "gb_per_user": "GB per user", "disk_gb": "Disk size (GB)"}
SIZING_STEPS = {"frontend_iops": "Front-end IOPS", "backend_iops": "Back-end IOPS", "disks_for_iops": "Disks for IOPS",
                "disks_for_capacity": "Disks for capacity", "disks": "Disks",
                "disks_layout": "Disks in whole RAID sets", "array_frontend_iops": "Front-end IOPS the disks carry",
                "users_supported": "Users the disks carry"}


def _sizing_section(opt: ReportOptions, verdicts: list[str], values: dict[str, Any],
                    methods: list[tuple[str, Any]]) -> Section:
    """Steady and storm cases side by side (the range the consultant gave), then a what-if table."""
    from app.analysis.sizing import parse_iops_range, sizing_cases, what_if

    kw = dict(opt.sizing)
    users = int(kw.pop("users"))
    ipu = kw.pop("iops_per_user")
    mult = kw.pop("storm_multiplier", None)
    cases = sizing_cases(users, ipu, storm_multiplier=mult, **kw)
    values["sizing"] = cases[-1].result.as_dict()
    values["sizing_cases"] = [c.as_dict() for c in cases]
    sec = Section("sizing", "VDI sizing")
    steady = cases[0]
    if len(cases) == 1:
        sz = steady.result
        plural = "s" if sz.disks != 1 else ""
        verdicts.append(f"The design needs {sz.disks} disk{plural} ({fmt(sz.disks_exact, 2)} rounded up) for "
                        f"{users:,} users at {num(steady.iops_per_user)} IOPS"
                        + (f" (capacity needs {sz.disks_for_capacity})" if sz.disks_for_capacity else "")
                        + (f"; built in whole {sz.layout}, that is {sz.disks_layout} disks." if
                           sz.disks_layout != sz.disks else "."))
    else:
        storm = cases[1]
        how = (f"{num(steady.iops_per_user)} × storm multiplier {num(mult)}" if mult not in (None, 1, 1.0)
               else "the top of the range given")
        a, b = steady.result, storm.result
        verdicts.append(f"For {users:,} users the design needs {a.disks_layout} disks at the steady "
                        f"{num(steady.iops_per_user)} IOPS per user ({fmt(a.disks_exact, 2)} rounded up) and "
                        f"{b.disks_layout} disks at the storm's {num(storm.iops_per_user)} IOPS per user "
                        f"({how}; {fmt(b.disks_exact, 2)} rounded up); {b.disks_layout} disks carry the storm.")
    first = steady.result
    disk = f"{first.disk['label']} disks" if first.disk.get("label") else "disks"
    sec.para(f"{users:,} users, {num(first.inputs['read_pct']['value'])} % reads, {first.raid['label']} (write "
             f"penalty {first.raid['write_penalty']}), {disk} at {num(first.disk['iops'])} IOPS each. The storm "
             "case decides the number of disks; the steady case shows what the everyday load needs.")
    header = ["Step", "How"] + [f"{c.label.capitalize()}: {num(c.iops_per_user)} IOPS per user" for c in cases]
    rows = []
    for k, label in SIZING_STEPS.items():
        cells = []
        for c in cases:
            sz = c.result
            v = {"frontend_iops": fmt(sz.frontend_iops), "backend_iops": fmt(sz.backend_iops),
                 "disks_for_iops": f"{fmt(sz.disks_exact, 2)} → {sz.disks_for_iops}",
                 "disks_for_capacity": (f"{fmt(sz.capacity_exact, 2)} → {sz.disks_for_capacity}"
                                        if sz.disks_for_capacity is not None else "not sized"),
                 "disks": str(sz.disks), "disks_layout": str(sz.disks_layout),
                 "array_frontend_iops": fmt(sz.array_frontend_iops),
                 "users_supported": fmt(math.floor(sz.users_supported + 1e-9))}[k]
            cells.append(v)
        rows.append([label, SIZING_HOW[k], *cells])
    sec.table(Table("Steady and storm", header, rows))
    inputs = []
    for k, v in first.inputs.items():
        if k in ("iops_per_user", "storm_multiplier"):
            continue
        inputs.append([SIZING_INPUT_NAMES.get(k, k.replace("_", " ")), _sizing_value(k, v.get("value"), first),
                       str(v.get("source", ""))])
    rng, top = parse_iops_range(ipu)
    given = f"{num(rng)} steady to {num(top)} in the storm" if top is not None else num(rng)
    inputs.insert(1, ["IOPS per user", given + (f", storm × {num(mult)}" if mult not in (None, 1, 1.0) else ""),
                      "given"])
    sec.table(Table("Inputs", ["Input", "Value", "Source"], inputs))
    notes = [str(n) for c in cases for n in c.result.notes]
    for n in dict.fromkeys(notes):
        if "round UP" not in n:
            sec.para(n[:1].upper() + n[1:] + ("" if n.endswith(".") else "."))
    loads = [c.iops_per_user for c in cases]
    wi = what_if(users, loads, read_pct=first.inputs["read_pct"]["value"], gb_per_user=kw.get("gb_per_user"),
                 disk_gb=kw.get("disk_gb"))
    values["sizing_what_if"] = wi
    disks = list(dict.fromkeys(r["disk_type"] for r in wi))
    labels = {r["disk_type"]: f"{r['disk_label']} ({num(r['disk_iops'])} IOPS)" for r in wi}
    wrows = []
    for raid in dict.fromkeys(r["raid"] for r in wi):
        cells = {r["disk_type"]: " / ".join(str(n) for n in r["disks"]) for r in wi if r["raid"] == raid}
        lab = next(r for r in wi if r["raid"] == raid)
        wrows.append([lab["raid_label"], str(lab["write_penalty"]), *[cells[d] for d in disks]])
    what = " / ".join(f"{c.label} {num(c.iops_per_user)}" for c in cases)
    sec.table(Table("What if: other RAID levels and disk types",
                    ["RAID level", "Write penalty", *[labels[d] for d in disks]], wrows,
                    note=f"Disks in whole RAID sets for {users:,} users at {what} IOPS per user, "
                         f"{num(first.inputs['read_pct']['value'])} % reads"
                         + (f", at least the disks {num(kw['gb_per_user'])} GB per user need at "
                            f"{num(kw['disk_gb'])} GB per disk" if kw.get("gb_per_user") and kw.get("disk_gb") else "")
                         + ". IOPS per disk are typical figures; "
                         "measure your model. SSDs are usually sized by capacity, not IOPS."))
    methods.append(("sizing", {"formula": first.formula, "raid": first.raid, "disk": first.disk}))
    return sec


SIZING_HOW = {
    "frontend_iops": "users × IOPS per user", "backend_iops": "reads + writes × write penalty",
    "disks_for_iops": "back-end IOPS ÷ IOPS per disk, rounded up", "disks_for_capacity":
    "users × GB per user ÷ usable GB per disk, rounded up", "disks": "the larger of the two",
    "disks_layout": "rounded up to whole RAID sets", "array_frontend_iops": "disks × IOPS per disk ÷ (reads + "
    "writes × write penalty)", "users_supported": "front-end IOPS the disks carry ÷ IOPS per user"}


def _sizing_value(key: str, v: Any, sz: Any) -> str:
    if key == "raid":
        return str(sz.raid.get("label", v))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return num(v)
    return str(v)


COMPARE_LABELS = {
    "duration_s": "Duration", "peak_iops": "Peak", "peak_t_end_s": "Peak at", "time_to_peak_s": "Time to peak",
    "time_above_s": "Time above half the peak", "settle_time_s": "Settle time", "total_ios": "Total I/Os",
    "mean_iops": "Mean", "read_share": "Reads", "iops_p50": "Median interval", "iops_p95": "p95 interval",
    "iops_p99": "p99 interval", "mean_await_ms": "Mean await", "await_p50_ms": "Median await",
    "await_p95_ms": "p95 await", "await_p99_ms": "p99 await", "peak_kbs": "Peak throughput",
    "mean_kbs": "Mean throughput", "mean_latency_ms": "Mean latency", "latency_p99_ms": "p99 latency (estimate)",
}


def _compare_metric(metric: str, unit: str) -> tuple[str, str, Any]:
    """A compared figure's name, unit and format: one format per quantity (IOPS, kB/s and seconds whole, I/O
    counts whole, shares in %, times in ms with the digits they need)."""
    label = COMPARE_LABELS.get(metric, metric.replace("_", " ").capitalize())
    if unit == "fraction":
        return label, "%", lambda v: pct(v, 1)
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
        text = (f"the cap did NOT hold: {c.windows_over:,} of {c.windows_judged:,} {win} windows average above "
                f"{limit}; {worst}; {over}")
        if c.burst is not None and c.burst.get("held") is False:
            text += f"; inside the burst allowance the rate reached {fmt(c.burst.get('peak_inside'))} {u}"
        return text
    if c.verdict == "held (cap not reached)":
        return (f"every {win} window stays below the cap and {worst}, under {fmt(c.cap * (1 - c.tolerance_pct / 100))}"
                f" {u}: the load never reached the cap, so this run cannot show that the cap is enforced")
    return f"all {c.windows_judged:,} {win} windows average at or below {limit}; {worst}"


def _devices(ws: Any, ids: list[int]) -> list[str]:
    """Every device name the runs hold (iostat devices, vscsiStats VM disks, fio jobs' devices), in order."""
    if not ids:
        return []
    out: list[str] = []
    marks = ", ".join("?" for _ in ids)
    for table in ("iostat_samples", "histograms", "histogram_stats"):
        try:
            rows = ws.con.execute(f"SELECT DISTINCT device FROM {table} WHERE run_id IN ({marks}) AND device IS NOT "
                                  "NULL ORDER BY 1", ids).fetchall()
        except duckdb_errors() as e:  # a table without a device column in an older workspace
            if "device" not in str(e):
                raise
            continue
        out += [str(r[0]) for r in rows if r[0] and str(r[0]) not in out]
    return out


def duckdb_errors() -> tuple[type[BaseException], ...]:
    import duckdb

    return (duckdb.BinderException, duckdb.CatalogException)


def _tags(run: dict[str, Any]) -> dict[str, str]:
    return dict(run.get("tags") or {})


def collect(ws: Any, opt: ReportOptions) -> ReportContent:
    """Run the analyses the options ask for and turn them into report content."""
    an = Anonymiser(opt.anonymise)
    runs = _runs(ws, opt.runs)
    for r in runs:
        an.host(r.get("host"))
    for dev in _devices(ws, [r["run_id"] for r in runs]):
        an.device(dev)  # known before any text is printed: a device inside a file name is replaced too
    if opt.runs:
        missing = set(opt.runs) - {r["run_id"] for r in runs}
        if missing:
            raise AnalysisError(f"no run {', '.join(map(str, sorted(missing)))} in this workspace")
    verdicts: list[str] = []
    methods: list[tuple[str, Any]] = []
    values: dict[str, Any] = {"runs": [r["run_id"] for r in runs]}
    sections: list[Section] = []
    iostat = [r for r in runs if r["kind"] == "iostat"]
    histo_runs = [r for r in runs if r["kind"] in ("vscsistats", "fio")]
    want = set(opt.sections)

    def name(r: dict[str, Any]) -> str:
        return an.text(r["name"])

    answered = _answers(ws, an)  # the stored questions and their answers (none: the report is as before)
    q_caps: dict[int, list[Any]] = {}  # run -> the cap checks its questions computed (shown in Cap compliance)
    for _sq, a in answered:
        if a.kind == "cap" and a.error is None:
            q_caps.setdefault(a.evidence.run_ids[0], []).extend(a.evidence.results)
    cap_runs: set[int] = set()
    sizing_from = _sizing_question(opt, answered)
    if sizing_from is not None:
        opt = opt.merged(sizing=_sizing_params(sizing_from[0].question))

    if "runs" in want:
        sec = Section("runs", "Runs analysed")
        rows = []
        for r in runs:
            period = _period(ws, r)
            series_kind = r["kind"] in ("iostat", "vscsistats", "nmon", "perfmon")  # samples over time
            interval = fmt(r.get("interval_s"), 0 if (r.get("interval_s") or 0) >= 1 else 2, "s") \
                if r.get("interval_s") else ("unknown" if series_kind else "–")
            rows.append([str(r["run_id"]), name(r), KIND_NAMES.get(r["kind"], r["kind"]), an.host(r.get("host")),
                         period, interval,
                         f"{r['n_samples']:,}" if r.get("n_samples") and series_kind else "–"])
        sec.para("The runs below were imported from the customer's trace files; their sources, checksums and "
                 "import warnings are listed in the appendix.")
        sec.table(Table("", ["Run", "Name", "Kind", "Host", "Period", "Interval", "Reports"], rows,
                        note="Reports: the samples of a run over time (iostat reports, vscsiStats collections); "
                             "benchmark results such as fio and IOzone have none."))
        sections.append(sec)

    series: dict[int, Any] = {}
    skipped: dict[str, list[str]] = {}  # reason -> runs the series analyses could not use
    if iostat and ({"overlay", "storm", "cap", "compare"} & want):
        from app.analysis.series import align, load_series

        for r in iostat:
            try:
                s = load_series(ws, r["run_id"], opt.device)
                if opt.align == "activity":
                    try:
                        s = align(s, "activity")
                    except AnalysisError:
                        s = align(s, "start")
                series[r["run_id"]] = s
            except AnalysisError as e:
                skipped.setdefault(_reason(str(e)), []).append(name(r))

    if "overlay" in want and series:
        sec = Section("overlay", "I/O over time")
        lines = []
        caps: list[float] = []
        boot_left_out, boot_kept = [], []
        for r in iostat:
            s = series.get(r["run_id"])
            if s is None or s.frame.height == 0:
                continue
            lines.append({"label": name(r), "t0": s.col("t_start_s").tolist(), "t": s.col("t_end_s").tolist(),
                          "y": s.col("iops").tolist()})
            cap = opt.iops_cap if opt.iops_cap is not None else _float(_tags(r).get("cap_iops"))
            if cap is not None and cap not in caps:
                caps.append(cap)
            (boot_left_out if s.since_boot_excluded else boot_kept).append(name(r))
        first = next(iter(series.values()))
        ref = first.align.get("reference", "start of the run")
        if boot_left_out and boot_kept:
            boot = (f"The first report of {_names(boot_left_out)} covers the time since boot and is left out; the "
                    f"first reports of {_names(boot_kept)} are intervals and are kept.")
        elif boot_left_out:
            boot = "The first report iostat prints covers the time since boot and is left out."
        else:
            boot = "Every report is an interval (no since-boot report), so all are kept."
        peaks = [max([v for v in ln["y"] if v is not None] or [0]) for ln in lines]
        low = min([p for p in peaks if p > 0] + [c for c in caps if c > 0], default=1)
        log = max(peaks, default=0) > 5 * max(low, 1)
        sec.para(f"IOPS per interval, summed over whole disks ({_device_rule(first, an)}); time 0 is the {ref}, so "
                 f"the runs are aligned on one time axis and earlier intervals show at negative times. {boot} Each "
                 "interval is drawn as a step over the seconds it covers; long series are drawn with the minimum and "
                 "maximum of every point column, so no peak is lost."
                 + (" The value axis is logarithmic: the runs' levels differ by more than five times, and on a "
                    "linear axis the lower ones would vanish." if log else "")
                 + (f" The red dashed line is the IOPS cap ({', '.join(num(c) for c in caps)} IOPS)." if caps else ""))
        sec.chart(Chart("lines", "IOPS per interval" + (" (logarithmic scale)" if log else ""),
                        {"lines": lines, "x": f"seconds from the {ref}", "y": "IOPS", "log": log, "caps": caps}))
        sections.append(sec)
        methods.append(("overlay", first.method()))

    plateaus: dict[int, float | None] = {}
    if "storm" in want and series:
        from app.analysis.storm import storm_report

        sec = Section("storm", "Storm metrics")
        rows = []
        for r in iostat:
            if r["run_id"] not in series:
                continue
            rep = storm_report(ws, r["run_id"], opt.device, phases="auto")
            m = rep.run
            values.setdefault("storm", {})[r["run_id"]] = m.as_dict()
            plateaus[r["run_id"]] = m.plateau_iops
            rows.append([name(r), fmt(m.peak_iops), fmt(m.plateau_iops), fmt(m.time_to_peak_s, 0, "s"),
                         fmt(m.time_above_s, 0, "s"), fmt(m.settle_time_s, 0, "s"), fmt(m.total_ios),
                         _reads(m.read_share, m.read_share_basis), fmt(m.iops_percentiles.get("p95")),
                         ms(m.mean_await_ms)])
            if m.peak_iops is not None:
                plateau = f", held a plateau of {fmt(m.plateau_iops)} IOPS" if m.plateau_iops is not None else ""
                verdicts.append(f"Run {name(r)} peaked at {fmt(m.peak_iops)} IOPS, "
                                f"{fmt(m.time_to_peak_s, 0)} s after its I/O began{plateau}"
                                + (f", and settled {fmt(m.settle_time_s, 0)} s after the peak."
                                   if m.settle_time_s is not None else "."))
            if rep.phases:
                ser = series[r["run_id"]]
                off = float(ser.align.get("offset_s", 0.0) or 0.0)  # phase times on the chart's time axis
                prow = [[an.text(ph.name), fmt(ph.t_start_s - off, 0, "s"), fmt(ph.t_end_s - off, 0, "s"),
                         fmt(pm.peak_iops), fmt(pm.mean_iops), fmt(pm.total_ios),
                         _reads(pm.read_share, pm.read_share_basis)] for ph, pm in rep.phases]
                ref = ser.align.get("reference", "start of the run")
                sec.table(Table(f"Phases of {name(r)} ({rep.phase_source})",
                                ["Phase", "From", "To", "Peak IOPS", "Mean IOPS", "I/Os", "Reads"], prow,
                                note=f"From and To: seconds from the {ref}, as on the chart."))
            methods.append(("storm", rep.method))
        sec.order.insert(0, ("t", len(sec.tables)))
        sec.tables.append(Table("", ["Run", "Peak IOPS", "Plateau IOPS", "To peak", "Above half peak", "Settle",
                                     "Total I/Os", "Reads", "p95 IOPS", "Mean await"], rows,
                                note="Plateau: the sustained level of the storm, the time-weighted median IOPS of "
                                     "the intervals above half the peak (idle and ramp intervals left out). To "
                                     "peak: from the start of the first activity to the end of the peak interval. "
                                     "Above half peak: the summed length of the intervals above 50 % of the peak. "
                                     "Settle: from the peak to the first 3 consecutive intervals below 10 % of the "
                                     "peak. Await is interval-level: iostat reports a mean per interval, so its "
                                     "figures are means of interval means, not of single I/Os."))
        sections.append(sec)

    if "cap" in want and series:
        from app.analysis.cap import cap_report

        not_capped: dict[tuple[float, str, float], list[tuple[str, float | None]]] = {}

        sec = Section("cap", "Cap compliance")
        rows = []
        for r in iostat:
            tags = _tags(r)
            iops_cap = opt.iops_cap if opt.iops_cap is not None else _float(tags.get("cap_iops"))
            bw_cap = opt.bw_cap_kbs if opt.bw_cap_kbs is not None else _float(tags.get("cap_bw_kbs"))
            if r["run_id"] not in series:
                continue
            results = [] if iops_cap is None and bw_cap is None else [
                cap_report(ws, r["run_id"], opt.device, iops_cap=iops_cap, bw_cap_kbs=bw_cap,
                           tolerance_pct=opt.tolerance_pct)]
            results += [x for x in q_caps.get(r["run_id"], []) if _cap_key(x) not in map(_cap_key, results)]
            if not results:
                continue
            values.setdefault("cap", {})[r["run_id"]] = results[0].as_dict()
            cap_runs.add(r["run_id"])
            if r["run_id"] not in plateaus:
                from app.analysis.storm import storm_report

                plateaus[r["run_id"]] = storm_report(ws, r["run_id"], opt.device).run.plateau_iops
            for res in results:
                for c in res.checks:
                    unit = "IOPS" if c.metric == "iops" else "kB/s"
                    worst = (c.worst_window or {}).get("average")
                    held = {True: "held", False: "did not hold", None: "could not be judged"}[c.held]
                    if c.verdict == "not capped":
                        held = "not capped"
                        not_capped.setdefault((c.cap, unit, c.tolerance_pct), []).append((name(r), c.plateau))
                    elif c.held is None:
                        verdicts.append(f"The {num(c.cap)} {unit} cap could not be judged on {name(r)}: "
                                        f"{_cap_sentence(c)}.")
                    elif c.verdict == "held (cap not reached)":
                        held = "held (not reached)"
                        verdicts.append(f"The {num(c.cap)} {unit} cap was never reached on {name(r)} (worst "
                                        f"{num(c.window_s)} s window {fmt(worst)} {unit}), so the run cannot show "
                                        "that it is enforced.")
                    else:
                        verdicts.append(f"The {num(c.cap)} {unit} cap {held} on {name(r)} (worst {num(c.window_s)} s "
                                        f"window {fmt(worst)} {unit}, tolerance {num(c.tolerance_pct)} %).")
                    level = plateaus.get(r["run_id"]) if c.metric == "iops" else None
                    rows.append([name(r), f"{num(c.cap)} {unit}", held, fmt(level) if c.metric == "iops" else "–",
                                 fmt(c.plateau), fmt(worst), pct(c.over_cap_share)])
                    sec.para(an.text(f"{name(r)}: {_cap_sentence(c)}."))
                methods.append(("cap", res.method))
        for (cap, unit, tol_pct), runs_over in not_capped.items():  # one line for all runs clearly over a cap
            if len(runs_over) == 1:
                (rn, med), = runs_over
                verdicts.append(f"No {num(cap)} {unit} cap was in force on {rn}: its median interval of "
                                f"{fmt(med)} {unit} is above the cap + {num(tol_pct)} %.")
            else:
                listed = "; ".join(f"{rn} ({fmt(med)} {unit})" for rn, med in runs_over)
                verdicts.append(f"No {num(cap)} {unit} cap was in force on {len(runs_over)} runs, whose median "
                                f"intervals are above the cap + {num(tol_pct)} %: {listed}.")
        if rows:
            sec.order.insert(0, ("t", len(sec.tables)))
            tol = num(opt.tolerance_pct)
            sec.tables.append(Table("", ["Run", "Cap", "Verdict", "Plateau", "Median interval", "Worst window",
                                         "Time over cap + tol."], rows,
                                    note=f"Worst window: the highest average over any window of consecutive "
                                         f"intervals (at least 10 s long) that the verdict judges. Time over cap + "
                                         f"tol.: the share of the judged time spent in single intervals above the "
                                         f"cap plus its {tol} % tolerance (a count of intervals, not of windows; "
                                         f"the verdict itself uses the windows). Plateau: the storm's sustained "
                                         f"level (see the glossary); median interval: the median rate of all "
                                         f"judged intervals, idle ones included."))
            sections.append(sec)

    if "latency" in want and histo_runs:
        sec = Section("latency", "Response times")
        thr, goal = opt.latency_threshold_ms, opt.latency_goal_pct
        rows = []
        for r in histo_runs:
            try:
                ls = latency_share(ws, r["run_id"], thr)
            except AnalysisError as e:
                why = _customer_error(str(e))
                sec.para(an.text(f"{name(r)} {why}." if why.startswith(("has ", "is ")) else f"{name(r)}: {why}."))
                continue
            values.setdefault("latency", {})[r["run_id"]] = ls
            if ls["exact"]:
                share_txt = pct(ls["share"])
                verdicts.append(f"{share_txt} of I/O completed within {num(thr)} ms on {name(r)} "
                                f"(goal {num(goal)} %){_goal_word(ls['share'], goal)}.")
            else:
                lo_t, hi_t = pct_pair(*ls["bounds"], digits=1, missing="–")
                share_txt = f"{lo_t} – {hi_t}"
                digits = len(lo_t.split(".")[1].split()[0]) if "." in lo_t else 1
                est = f"; estimate {pct(ls['estimate'], digits)} (ESTIMATE: linear interpolation)" \
                    if ls["estimate"] is not None else ""
                verdicts.append(f"Between {lo_t} and {hi_t} of I/O completed within {num(thr)} ms on "
                                f"{name(r)} (goal {num(goal)} %; {num(thr)} ms falls inside a histogram "
                                f"bucket{est}).")
            p = ls.get("percentiles_ms", {})
            rows.append([name(r), fmt(ls["ios"]), share_txt, "exact" if ls["exact"] else "bounds",
                         _pctl(p.get("p95")), _pctl(p.get("p99"))])
            counts = f" Histogram counts: {ls['counts']}." if r["kind"] == "vscsistats" else ""
            sec.para(an.text(f"{name(r)}: {ls['method']}. From the {ls['source']}.{counts}"))
            heat = _heatmap(ws, r["run_id"], an) if r["kind"] == "vscsistats" else None
            if heat:
                sec.chart(heat)
        if rows:
            sec.order.insert(0, ("t", len(sec.tables)))
            sec.tables.append(Table("", ["Run", "I/Os", f"≤ {num(thr)} ms", "Method", "p95", "p99"], rows))
            methods.append(("latency", "latency histograms"))
        if rows or sec.paragraphs:  # a run without histograms is said so, not silently left out
            sections.append(sec)

    ioz_runs = [r for r in runs if r["kind"] == "iozone"]
    if "iozone" in want and len(ioz_runs) >= 2:
        from app.analysis.compare import compare_iozone

        ioz = compare_iozone(ws, [r["run_id"] for r in ioz_runs])
        if ioz.get("rows"):
            sec = Section("iozone", "IOzone throughput")
            all_rows = ioz["rows"]
            keys = ioz.get("keys", [])
            const = {k: all_rows[0]["key"].get(k) for k in keys
                     if len({str(r["key"].get(k)) for r in all_rows}) == 1}
            vary = [k for k in keys if k not in const]
            cols = [i for i in range(len(ioz_runs)) if any(r["values"][i] is not None for r in all_rows)]
            shown = all_rows[:80]
            pair = len(cols) == 2  # a ratio only between the two runs compared, never last-of-many / first
            rows = []
            for row in shown:
                vals = [row["values"][i] for i in cols]
                base = vals[0]
                ratio = vals[-1] / base if base and vals[-1] is not None and len(vals) > 1 else None
                rows.append([_ioz_val(row["key"].get(k, "")) for k in vary] + [_ioz_unit(row["metric"])]
                            + [fmt(v) for v in vals] + ([_ratio(ratio)] if pair else [])
                            + (["yes" if row.get("page_cache_likely") else ""] if "page_cache_likely" in row else []))
            header = [_ioz_key(k)[:1].upper() + _ioz_key(k)[1:] for k in vary] + ["Unit"] \
                + [name(ioz_runs[i]) for i in cols] + (["Ratio"] if pair else [])
            if any("page_cache_likely" in row for row in shown):
                header.append("Page cache?")
            fixed = ", ".join(f"{_ioz_key(k)} {_ioz_val(v)}" for k, v in const.items() if v is not None)
            more = f" The first 80 of {len(all_rows)} matched rows are shown." if len(all_rows) > 80 else ""
            matched = ", ".join(_ioz_key(k) for k in vary) or "their keys"
            sec.para(f"IOzone results of the runs below, matched on {matched}"
                     + (f" (all rows: {fixed})" if fixed else "")
                     + (f"; ratio = {name(ioz_runs[cols[-1]])} / {name(ioz_runs[cols[0]])}" if pair else "")
                     + f".{more}")
            sec.table(Table("", header, rows, note=ioz.get("note", "")))
            sections.append(sec)
            values["iozone"] = ioz

    if "sizing" in want and opt.sizing.get("users") and opt.sizing.get("iops_per_user"):
        sections.append(_sizing_section(opt, verdicts, values, methods))

    comparable = [r for r in iostat if r["run_id"] in series]
    if "compare" in want and len(comparable) >= 2:
        from app.analysis.compare import compare_runs

        cmp = compare_runs(ws, [r["run_id"] for r in comparable], opt.device)
        values["compare"] = cmp.as_dict()
        sec = Section("compare", "A/B comparison")
        names = [an.text(r["name"]) for r in cmp.runs]
        ids = [r["run_id"] for r in cmp.runs]
        # a ratio compares like with like: only when the report holds exactly the runs being compared (two, or
        # the runs the report was made for), each run against the first
        with_ratio = len(ids) == 2 or (bool(opt.runs) and sorted(opt.runs) == sorted(ids))
        rows = []
        for m in cmp.metrics:
            label, unit, show = _compare_metric(m["metric"], m.get("unit", ""))
            cells = [show(v) for v in m["values"]]
            if with_ratio:
                cells = [c if k == 0 or m["ratio"][k] is None or c == "–" else f"{c} ({_ratio(m['ratio'][k])})"
                         for k, c in enumerate(cells)]
            rows.append([label, unit, *cells])
        above = cmp.method.get("time_above_threshold_iops") if isinstance(cmp.method, dict) else None
        sec.para(f"Baseline: {names[0]}. "
                 + ("In brackets: each run's figure divided by the baseline's." if with_ratio else
                    "No ratios: the runs below were not chosen as one comparison; make a report of just the runs "
                    "to compare for ratios against the first.")
                 + (f" Time above half the peak counts, for every run, the seconds above {fmt(above)} IOPS (half "
                    "the baseline's peak), so the runs are measured against one level." if above is not None else ""))
        sec.table(Table("", ["Figure", "Unit", *names], rows))
        sections.append(sec)
        methods.append(("compare", cmp.method))

    if "appendix" in want:
        sec = Section("appendix", "Appendix: sources and methods")
        used = list(dict.fromkeys(k for k, _ in methods))
        if used:
            sec.table(Table("How the figures were computed", ["Analysis", "Method"],
                            [[METHOD_TITLES[k], METHOD_PROSE[k].format(tol=num(opt.tolerance_pct),
                                                                       thr=num(opt.latency_threshold_ms))]
                             for k in used if k in METHOD_PROSE], widths=[0.2, 0.8], max_cell=2000))
        sec.table(Table("Glossary", ["Term", "Meaning"], [list(g) for g in GLOSSARY], widths=[0.2, 0.8],
                        max_cell=2000))
        from reports.options import version

        sec.para(f"Sources. Each run's file, tool, host, tags and import warnings, and the SHA-256 checksum of the "
                 f"file as imported. StormScope {version()} wrote this report: the same files (the same checksums), "
                 "imported with the same settings, and the same report options give the same figures and a "
                 "byte-identical PDF.")
        for r in runs:
            warn = [render_stored(w) for w in r.get("warnings") or []]
            src = str(r.get("source_path") or "")
            shown = src if opt.full_paths else src.replace("\\", "/").rsplit("/", 1)[-1]
            tags = ", ".join(f"{k} = {v}" for k, v in sorted(_tags(r).items()))
            sec.para(an.text(
                f"Run {r['run_id']} · {shown} · {KIND_NAMES.get(r['kind'], r['kind'])}, "
                f"{r.get('tool_version') or 'version not stated'} · "
                + ((an.host(r["host"]) if an.enabled else f"host {r['host']}") if r.get("host") else "host not stated")
                + (f" · tags: {tags}" if tags else "")
                + (f" · import warnings: {' | '.join(warn)}" if warn else " · no import warnings"))
                + f" · SHA-256 {r.get('source_sha256') or '–'}")
        sections.append(sec)

    for reason, names in skipped.items():
        why = _customer_error(reason)
        if len(names) == 1:
            verdicts.append(f"The iostat run {names[0]} could not be analysed over time: {why}.")
        else:
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            verdicts.append(f"{len(names)} iostat runs could not be analysed over time: {shown}. The reason: {why}.")
    if not opt.full_paths:  # file names only: a path in a warning or an error message is cut to its file name
        verdicts[:] = [_no_paths(v) for v in verdicts]
        for sec in sections:
            sec.paragraphs = [_no_paths(p) for p in sec.paragraphs]
            for t in sec.tables:
                t.rows = [[_no_paths(c) for c in row] for row in t.rows]
    summary = Section("summary", "Executive summary")
    if "summary" in want:
        for v in verdicts or ["No analysis in this report produced a verdict."]:
            summary.para(v)
        sections.insert(0, summary)
    values["verdicts"] = verdicts
    if answered:
        sections.insert(0, _answers_section(answered, sections, opt, an, sizing_from, iostat, histo_runs,
                                            cap_runs, values))
    return ReportContent(opt, verdicts, sections, methods, values)


# ---- the Answers page: one line per stored question, linked to the section that holds its evidence -------
VERDICT_WORDS = {"met": "Met", "not met": "Not met", "held": "Held", "not held": "Not held",
                 "information": "Information"}
EVIDENCE_SECTION = {"cap": "cap", "storm_profile": "storm", "sizing": "sizing", "compare": "compare",
                    "response_time": "latency"}


def _answers(ws: Any, an: Anonymiser) -> list[tuple[Any, Any]]:
    """``answer_all`` with the report's run names (anonymised ones when asked)."""
    from app.analysis.questions import answer_all, list_questions

    if not list_questions(ws):
        return []
    return answer_all(ws, {int(r["run_id"]): an.text(r["name"]) for r in ws.runs()})


def _sizing_question(opt: ReportOptions, answered: list[tuple[Any, Any]]) -> tuple[Any, Any] | None:
    """The sizing question whose inputs the VDI sizing section shows when the options give none: the first one
    with IOPS per user given (a measured load has no such inputs)."""
    if "sizing" not in opt.sections or (opt.sizing.get("users") and opt.sizing.get("iops_per_user")):
        return None
    return next(((sq, a) for sq, a in answered
                 if a.kind == "sizing" and a.error is None and sq.question.iops_per_user is not None), None)


def _sizing_params(q: Any) -> dict[str, Any]:
    ipu: Any = q.iops_per_user if q.iops_per_user_storm is None else f"{q.iops_per_user:g}..{q.iops_per_user_storm:g}"
    out = {"users": q.users, "iops_per_user": ipu}
    for k in ("storm_multiplier", "read_pct", "raid", "disk_type", "disk_iops", "gb_per_user", "disk_gb", "profile"):
        if getattr(q, k, None) is not None:
            out[k] = getattr(q, k)
    return out


def _cap_key(res: Any) -> list[tuple[Any, ...]]:
    """Two cap checks alike: the same devices, caps, tolerances and windows give the same figures."""
    used = tuple((res.method.get("series") or {}).get("devices", {}).get("used") or [])
    return [(used, c.metric, c.op, c.cap, c.tolerance_pct, c.window_s) for c in res.checks]


TIMES = re.compile(r"(?<=\d) x (?=the baseline)|(?<=IOPS) x (?=storm multiplier)")  # '0.67 x' -> '0.67 ×'



def _answers_section(answered: list[tuple[Any, Any]], sections: list[Section], opt: ReportOptions,
                     an: Anonymiser, sizing_from: tuple[Any, Any] | None, iostat: list[dict[str, Any]],
                     histo_runs: list[dict[str, Any]], cap_runs: set[int], values: dict[str, Any]) -> Section:
    """One line per question, in the stored order: verdict, the deciding number, the reason and a link to the
    section that holds the evidence (only when that section covers the question's runs)."""
    present = {s.key: s.title for s in sections}
    iostat_ids = {r["run_id"] for r in iostat}
    histo_ids = {r["run_id"] for r in histo_runs}
    sec = Section("answers", "Answers")
    sec.para("The questions this report answers, in the order they were asked. Each line gives the verdict, the "
             "figure that decides it and why; the link leads to the section with the chart and the numbers.")
    items = []
    for n, (sq, a) in enumerate(answered, 1):
        target = EVIDENCE_SECTION.get(a.kind)
        runs = set(a.evidence.run_ids)
        covered = a.error is None and target in present and {
            "cap": runs <= cap_runs,
            "storm": runs <= iostat_ids and "storm" in present,
            "sizing": sizing_from is not None and sizing_from[0].question_id == sq.question_id,
            "compare": runs <= iostat_ids,
            "latency": runs <= histo_ids,
        }.get(target or "", False)

        def clean(t: Any) -> str:
            t = TIMES.sub(" × ", an.text(str(t)))
            return t if opt.full_paths else _no_paths(t)

        item = {"n": n, "question_id": sq.question_id, "title": clean(a.title), "verdict": a.verdict,
                "verdict_words": VERDICT_WORDS[a.verdict], "number": clean(a.number), "reason": clean(a.reason),
                "section": target if covered else None, "section_title": present.get(target or "") if covered
                else None}
        sec.answer(item)
        items.append(item)
    values["answers"] = items
    return sec


PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:)?[\\/](?:[^\s\\/]+[\\/])+([^\s\\/]+)")


def _no_paths(s: str) -> str:
    """A text with every absolute path replaced by its file name ('/work/x/y.txt' -> 'y.txt'); 'I/O', 'kB/s'
    and '18 / 54' are no paths."""
    return PATH.sub(r"\1", s)


def _reason(message: str) -> str:
    """The reason of an analysis error without the run number, so runs with the same reason group together."""
    import re

    text = re.sub(r"^run \d+ ", "", message).split(":")[0].strip() or message
    return re.sub(r"^(has|is) ", "", text)


def _float(v: Any) -> float | None:
    try:
        return None if v is None else float(v)
    except ValueError:
        return None


def _reads(share: float | None, basis: str | None) -> str:
    """Read share; plain (-d) reports have no r/s, w/s, so theirs is by kB, and the cell says so."""
    if share is None:
        return "–"
    return pct(share, 0) + (" (by kB)" if basis and basis != "I/Os" else "")


def _goal_word(share: float | None, goal_pct: float) -> str:
    if share is None:
        return ""
    return ": goal met" if share * 100 >= goal_pct else ": goal NOT met"


def _pctl(p: dict[str, Any] | None) -> str:
    if not p:
        return "–"
    lo, hi = p.get("bounds_ms") or [None, None]
    if p.get("exact"):
        return f"{fmt(hi, 2)} ms"
    for d in range(2, 7):  # enough digits to tell the bucket's edges apart (0.2166–0.2200, not 0.22–0.22)
        a, b = fmt(lo, d), fmt(hi, d)
        if a != b or lo == hi:
            break
    return f"{a}–{b} ms"


def _ratio(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _device_rule(s: Any, an: Anonymiser) -> str:
    used = [an.device(d) for d in s.devices.used]
    return ", ".join(used[:6]) + (f" and {len(used) - 6} more" if len(used) > 6 else "")


def _heatmap(ws: Any, run_id: int, an: Anonymiser) -> Chart | None:
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
        labels = [("> " + fmt(lo / 1000, 1) if hi is None else "≤ " + fmt(hi / 1000, 3 if hi < 1000 else 0))
                  + " ms" for lo, hi, _ in buckets]
        grid = np.zeros((len(samples), len(buckets)))
        for i, s in enumerate(sorted(samples)):
            c = [n for _, _, n in samples[s]][: len(buckets)]
            grid[i, : len(c)] = c
        panels.append({"label": _vm_disk(dev, an), "labels": labels, "grid": grid.tolist()})
    run = ws.run(run_id) or {}
    return Chart("heatmap", "Latency histogram of each collection (colour = I/O count, scale beside each panel)",
                 {"panels": panels, "interval_s": run.get("interval_s")})


def _vm_disk(dev: str, an: Anonymiser) -> str:
    """vscsiStats' 'world:handle (scsiN:M)' as words: 'VM 2099979, disk scsi0:0'."""
    import re

    m = re.match(r"^(\d+):(\d+) \((.+)\)$", dev or "")
    if m and not an.enabled:
        return f"VM {m.group(1)}, disk {m.group(3)}"
    return an.device(dev)
