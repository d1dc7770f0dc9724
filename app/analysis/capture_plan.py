"""The capture plan: what the customer runs on each system to capture a storm, and the check of the captures that
come back against it (no Qt).

Half of the captures a consultant receives cannot answer the engagement's questions: no time stamps (``iostat``
without ``-t``), another interval, too short, the wrong host, the storm outside the capture. The plan says, per
system, the exact commands with interval, count and file names; the check says, per imported file, "as planned" or
what differs.

API::

    derive_plan(ws, systems, storm_min=None, interval_s=None, lead_min=10, tail_min=10, storm_start=None)
        -> CapturePlan                      # from the workspace's questions (list_questions)
    plan_text(plan) -> str                  # the plan as text to paste (the PDF: reports.capture_plan)
    check_runs(ws, plan, run_ids=None) -> [FileCheck]   # each imported run against the plan

How the plan is made
    * **Which systems capture what** follows the questions: storm profile, compare, cap check, load limit, replay
      and sizing from a measured run read a guest's disk rates over time (Linux: ``iostat`` and ``sar``; Windows:
      perfmon counters through ``typeperf``); where the latency comes from and the load per VM read the host's
      esxtop (GAVG = KAVG + DAVG per device, the VMs' virtual disks), where the time goes reads a guest and its
      host's esxtop both; the response-time goal reads vscsiStats' latency histograms per VM disk. A system
      kind the questions need but the plan names no system of is said in the plan's notes; systems given are
      always planned.
    * **Interval**: 5 s (the common default; esxtop's shortest is 2 s); with a cap question, at most half its
      window (each window holds two reports at least: whole seconds, at least 2 s).
    * **Duration**: ``lead_min`` before the storm + the storm + ``tail_min`` after it. The storm's length is the
      one given, else the longest run a question names (its first to last report: the storm as last measured),
      else 30 minutes; the count of reports is the duration over the interval, rounded up.

How a capture is checked (per imported run; ``FileCheck.differences`` empty = "as planned")
    * the planned capture it is: the file name the plan gives it, else the tool and the host, else the tool (a
      capture from a host the plan does not name is still checked for the rest);
    * a host not in the plan (the file's banner, else the file name's first part);
    * no time stamps (a time series without clock times: ``iostat`` without ``-t``); iostat without ``-x``;
    * another interval: more than 10 % off the planned one;
    * too short: less than 90 % of the planned duration (reports × interval);
    * the storm not inside the capture: with a planned storm start, the capture (its own clock, the stored clock
      offset applied) must start at or before it and end at or after its end.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from app.errors import AnalysisError

if TYPE_CHECKING:
    from app.run import Run
    from app.workspace import Workspace

SYSTEM_KINDS = {"linux": "Linux guest", "esxi": "ESXi host", "windows": "Windows desktop"}
DEFAULT_INTERVAL_S = 5
MIN_INTERVAL_S = 2  # esxtop's shortest delay
DEFAULT_STORM_MIN = 30.0
INTERVAL_TOLERANCE = 0.10
SHORT_SHARE = 0.90
# question kinds -> what they need captured
GUEST_KINDS = {"compare", "cap", "storm_profile", "knee", "replay", "sizing", "latency_path"}
ESXTOP_KINDS = {"latency_source", "vm_load", "latency_path"}
HISTOGRAM_KINDS = {"response_time"}
PERFMON_COUNTERS = (
    r"\PhysicalDisk(*)\Disk Reads/sec", r"\PhysicalDisk(*)\Disk Writes/sec",
    r"\PhysicalDisk(*)\Disk Read Bytes/sec", r"\PhysicalDisk(*)\Disk Write Bytes/sec",
    r"\PhysicalDisk(*)\Avg. Disk sec/Read", r"\PhysicalDisk(*)\Avg. Disk sec/Write",
    r"\PhysicalDisk(*)\Avg. Disk sec/Transfer", r"\PhysicalDisk(*)\Avg. Disk Queue Length",
    r"\PhysicalDisk(*)\% Idle Time")
# the tools a plan asks for (a tool is not a run kind: the kinds' tools are looked up in TOOL_OF_KIND)
IOSTAT_TOOL, VSCSISTATS_TOOL = "iostat", "vscsiStats"
# a run's kind -> the planned tool that makes it
TOOL_OF_KIND = {"iostat": "iostat", "sar": "sar", "esxtop": "esxtop", "vscsistats": "vscsiStats",
                "perfmon": "typeperf"}


@dataclass(frozen=True)
class PlannedSystem:
    kind: str  # linux | esxi | windows
    host: str


@dataclass(frozen=True)
class PlannedFile:
    """One file the customer sends back: its name, the tool that writes it, the system's commands."""

    host: str
    system: str  # linux | esxi | windows
    tool: str  # iostat | sar | esxtop | vscsiStats | typeperf
    name: str
    what: str  # what it is for, in words


@dataclass
class CapturePlan:
    systems: list[PlannedSystem]
    interval_s: int
    storm_min: float
    lead_min: float
    tail_min: float
    storm_start: datetime | None  # when the storm is expected, on the systems' clocks
    histograms: bool  # vscsiStats wanted on the ESXi hosts
    reasons: list[str] = field(default_factory=list)  # why this interval, length and these tools
    notes: list[str] = field(default_factory=list)  # what the questions need that the plan lacks
    questions: list[str] = field(default_factory=list)  # the headings of the questions it serves

    @property
    def duration_s(self) -> float:
        return (self.lead_min + self.storm_min + self.tail_min) * 60.0

    @property
    def count(self) -> int:
        """Reports per capture: the duration over the interval, rounded up."""
        return int(math.ceil(self.duration_s / self.interval_s - 1e-9))

    @property
    def capture_start(self) -> datetime | None:
        return None if self.storm_start is None else self.storm_start - timedelta(minutes=self.lead_min)

    def files(self) -> list[PlannedFile]:
        out = []
        for s in self.systems:
            if s.kind == "linux":
                out += [PlannedFile(s.host, s.kind, "iostat", f"{s.host}_iostat.txt",
                                    "disk rates, response times and queue per device, with clock times"),
                        PlannedFile(s.host, s.kind, "sar", f"{s.host}_sar.txt",
                                    "sysstat's own record of the same disks (a second witness of the storm)")]
            elif s.kind == "esxi":
                out.append(PlannedFile(s.host, s.kind, "esxtop", f"{s.host}_esxtop.csv",
                                       "the host's view: GAVG, KAVG and DAVG per device, the VMs' virtual disks"))
                if self.histograms:
                    out.append(PlannedFile(s.host, s.kind, "vscsiStats", f"{s.host}_vscsistats.csv",
                                           "latency histograms per VM disk (response-time goal)"))
            else:
                out.append(PlannedFile(s.host, s.kind, "typeperf", f"{s.host}_perfmon.csv",
                                       "the desktop's disk counters (perfmon), with clock times"))
        return out

    def commands(self, s: PlannedSystem) -> list[str]:
        """The exact commands for one system, in order."""
        i, n, h = self.interval_s, self.count, s.host
        if s.kind == "linux":
            return [f"S_TIME_FORMAT=ISO LC_ALL=C iostat -dxt -y {i} {n} > {h}_iostat.txt &",
                    f"LC_ALL=C sar -d -p {i} {n} > {h}_sar.txt &",
                    "wait"]
        if s.kind == "esxi":
            cmds = []
            if self.histograms:
                cmds.append("vscsiStats -s")
            cmds.append(f"esxtop -b -d {i} -n {n} > {h}_esxtop.csv")
            if self.histograms:
                cmds += [f"vscsiStats -p all -c > {h}_vscsistats.csv", "vscsiStats -x"]
            return cmds
        return [f"typeperf -cf {h}_counters.txt -si {i} -sc {n} -f CSV -o {h}_perfmon.csv"]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["storm_start"] = None if self.storm_start is None else self.storm_start.isoformat(timespec="seconds")
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CapturePlan:
        d = dict(d)
        d["systems"] = [PlannedSystem(**s) for s in d["systems"]]
        d["storm_start"] = None if d.get("storm_start") is None else datetime.fromisoformat(d["storm_start"])
        return cls(**d)

    def as_dict(self) -> dict[str, Any]:
        """For JSON output: the stored form plus what it derives (duration, count, files, commands)."""
        d = self.to_dict()
        d.update(duration_s=self.duration_s, count=self.count,
                 files=[asdict(f) for f in self.files()],
                 commands={s.host: self.commands(s) for s in self.systems})
        return d


def _check_systems(systems: list[PlannedSystem]) -> None:
    if not systems:
        raise AnalysisError("a capture plan needs at least one system (a Linux guest, an ESXi host or a Windows "
                            "desktop)")
    seen = set()
    for s in systems:
        if s.kind not in SYSTEM_KINDS:
            raise AnalysisError(f"a system is one of {', '.join(SYSTEM_KINDS)}, not {s.kind!r}")
        name = s.host.strip()
        if not name or any(c in name for c in " /\\:*?\"<>|'$`;&"):
            raise AnalysisError(f"{s.host!r} is not a host name the plan can use in a file name")
        if name.lower() in seen:
            raise AnalysisError(f"the host {name} is named twice")
        seen.add(name.lower())


def _run_minutes(r: Run) -> float | None:
    if r.started_at is not None and r.ended_at is not None:
        return (r.ended_at - r.started_at).total_seconds() / 60.0 + (r.interval_s or 0) / 60.0
    if r.n_samples and r.interval_s:
        return float(r.n_samples) * float(r.interval_s) / 60.0
    return None


def derive_plan(ws: Workspace | None, systems: list[PlannedSystem], storm_min: float | None = None,
                interval_s: int | None = None, lead_min: float = 10.0, tail_min: float = 10.0,
                storm_start: datetime | None = None) -> CapturePlan:
    """The capture plan the workspace's questions need, for ``systems`` (see the module doc); ``ws`` None: no
    workspace yet (a plan made before anything is imported), no questions."""
    from app.analysis.numbers import fmt_value
    from app.analysis.question_kinds import CapQuestion, list_questions

    _check_systems(systems)
    for name, v in (("lead", lead_min), ("tail", tail_min)):
        if not (math.isfinite(v) and v >= 0):
            raise AnalysisError(f"the time captured {'before' if name == 'lead' else 'after'} the storm is a number "
                                f"of minutes (0 or more), not {v!r}")
    qs = list_questions(ws) if ws is not None else []
    kinds = {q.kind for q in qs}
    reasons, notes = [], []
    # interval
    caps = [q.question.window_s for q in qs if isinstance(q.question, CapQuestion)]
    if interval_s is not None:
        if isinstance(interval_s, bool) or int(interval_s) != interval_s or interval_s < MIN_INTERVAL_S:
            raise AnalysisError(f"the interval is a whole number of seconds, {MIN_INTERVAL_S} or more (esxtop's "
                                f"shortest), not {interval_s!r}")
        interval = int(interval_s)
        reasons.append(f"Interval {interval} s: as given.")
    elif caps and min(caps) / 2 <= DEFAULT_INTERVAL_S:
        interval = max(MIN_INTERVAL_S, int(min(caps) // 2))
        reasons.append(f"Interval {interval} s: a cap is judged on {fmt_value(min(caps), 's')} windows, which need at "
                       "least two reports each.")
    else:
        interval = DEFAULT_INTERVAL_S
        reasons.append(f"Interval {interval} s: short enough to see a storm's ramp, long enough to keep the files "
                       "small.")
    # storm length
    if storm_min is not None:
        if not (math.isfinite(storm_min) and storm_min > 0):
            raise AnalysisError(f"the storm's length is a number of minutes above 0, not {storm_min!r}")
        storm = float(storm_min)
        reasons.append(f"Storm length {fmt_value(storm, 'min')}: as given.")
    else:
        measured = [(m, r) for q in qs for rid in q.question.run_ids_used()
                    if ws is not None and (r := ws.run(rid)) is not None and (m := _run_minutes(r)) is not None]
        if measured:
            m, r = max(measured, key=lambda x: x[0])
            storm = math.ceil(m)
            reasons.append(f"Storm length {fmt_value(storm, 'min')}: the longest run the questions name ({r.name}, "
                           f"{fmt_value(m, 'min')}), rounded up.")
        else:
            storm = DEFAULT_STORM_MIN
            reasons.append(f"Storm length {fmt_value(storm, 'min')}: no question names a measured run to take it "
                           "from.")
    reasons.append(f"Captured {fmt_value(lead_min, 'min')} before and {fmt_value(tail_min, 'min')} after the storm, "
                   "so that its start and its end are inside every capture.")
    have = {s.kind for s in systems}
    if kinds & GUEST_KINDS and not have & {"linux", "windows"}:
        notes.append("The questions read a guest's disk rates over time, but the plan has no Linux guest or Windows "
                     "desktop.")
    if kinds & (ESXTOP_KINDS | HISTOGRAM_KINDS) and "esxi" not in have:
        notes.append("The questions read the host's latency (esxtop) or vscsiStats histograms, but the plan has no "
                     "ESXi host.")
    histograms = bool(kinds & HISTOGRAM_KINDS) or not qs
    if histograms and "esxi" in have:
        reasons.append("vscsiStats histograms: " + ("a response-time goal is judged on the latency histograms per VM "
                                                    "disk." if kinds & HISTOGRAM_KINDS else
                                                    "no question yet: the histograms are collected too."))
    names = {r.run_id: r.name for r in ws.runs()} if ws is not None else {}
    return CapturePlan(list(systems), interval, storm, float(lead_min), float(tail_min), storm_start, histograms,
                       reasons, notes, [q.heading(names) for q in qs])


# ---- text ----------------------------------------------------------------------------------------------------------
def plan_text(plan: CapturePlan) -> str:
    """The plan as text to paste into a mail or a ticket: per system its commands, then the checklist."""
    from app.analysis.numbers import fmt_value

    n, i = plan.count, plan.interval_s
    lines = ["CAPTURE PLAN", "",
             f"Interval {i} s, {n:,} reports = {fmt_value(plan.duration_s / 60, 'min')} per capture "
             f"({fmt_value(plan.lead_min, 'min')} before the storm, the storm ({fmt_value(plan.storm_min, 'min')}), "
             f"{fmt_value(plan.tail_min, 'min')} after it)."]
    if plan.capture_start is not None and plan.storm_start is not None:
        lines.append(f"Start every capture at {plan.capture_start:%Y-%m-%d %H:%M:%S} (the storm is expected at "
                     f"{plan.storm_start:%H:%M:%S}), on every system at the same time.")
    else:
        lines.append(f"Start every capture together, at least {fmt_value(plan.lead_min, 'min')} before the storm.")
    lines += ["", "Why:"] + [f"  - {r}" for r in plan.reasons]
    if plan.questions:
        lines += ["", "The questions it answers:"] + [f"  - {q}" for q in plan.questions]
    for s in plan.systems:
        lines += ["", f"== {SYSTEM_KINDS[s.kind]} {s.host} ==", *system_steps(plan, s)]
    lines += ["", "SEND BACK", *[f"  [ ] {f.name}  ({f.host}: {f.what})" for f in plan.files()],
              *[f"  [ ] {c}" for c in CHECKLIST]]
    if plan.notes:
        lines += ["", "Notes:"] + [f"  - {x}" for x in plan.notes]
    return "\n".join(lines) + "\n"


CHECKLIST = ("the files unchanged: not opened and saved in a spreadsheet, not trimmed",
             "for each system, the time its clock showed when the capture started (the output of 'date')",
             "when the storm started and ended, as seen by the users (clock time)")


def system_steps(plan: CapturePlan, s: PlannedSystem) -> list[str]:
    """What to do on one system: the preparation, the commands (indented, ready to paste), what it writes."""
    out: list[str] = []
    if s.kind == "linux":
        out += ["  As root, in a folder with room for the files (sysstat installed: 'apt-get install sysstat' or",
                "  'yum install sysstat'):"]
    elif s.kind == "esxi":
        out += ["  In an SSH session on the host, in a folder on a datastore (not /tmp: it is small):"]
        if plan.histograms:
            out += ["  (vscsiStats -s starts the histograms of every VM disk; -p all -c prints them, -x stops them.)"]
    else:
        out += [f"  In a command prompt, first save the counter list as {s.host}_counters.txt, one counter a line:",
                *[f"      {c}" for c in PERFMON_COUNTERS]]
    out += ["", *[f"      {c}" for c in plan.commands(s)]]
    return out


# ---- the check of the captures ------------------------------------------------------------------------------------
@dataclass
class FileCheck:
    run_id: int
    file: str
    planned: str | None  # the planned file it is (its name), None: not in the plan
    differences: list[str]  # what differs, in full
    short: list[str] = field(default_factory=list)  # the same, a few words each (a table cell)

    @property
    def as_planned(self) -> bool:
        return self.planned is not None and not self.differences

    def words(self) -> str:
        if self.as_planned:
            return "as planned"
        return "; ".join(self.differences)

    def short_words(self) -> str:
        return "as planned" if self.as_planned else "differs: " + ", ".join(self.short or ["not in the plan"])

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "as_planned": self.as_planned, "words": self.words()}


def _short(host: str | None) -> str | None:
    return None if not host else host.split(".")[0].lower()


def _match(plan: CapturePlan, r: Run, file: str) -> tuple[PlannedFile | None, bool]:
    """The planned file a run is, and whether it is that file (False: only a capture of the same tool, from a host
    the plan does not name -- still checked against it, but it does not stand in for the planned file)."""
    files = plan.files()
    for f in files:
        if f.name.lower() == file.lower():
            return f, True
    tool = TOOL_OF_KIND.get(r.kind)
    host = _short(r.host)
    for f in files:
        if f.tool == tool and _short(f.host) == host:
            return f, True
    return next((f for f in files if f.tool == tool), None), False


def check_run(ws: Workspace, plan: CapturePlan, run_id: int) -> FileCheck:
    """One imported run against the plan (see the module doc)."""
    from pathlib import PurePath

    from app.analysis.numbers import fmt_value
    from app.store.clock import get_offset

    r = ws.run(run_id)
    if r is None:
        raise AnalysisError(f"there is no run {run_id}")
    file = PurePath(str(r.source_path).replace("\\", "/")).name
    f, same = _match(plan, r, file)
    tool = TOOL_OF_KIND.get(r.kind)
    diffs: list[str] = []
    short: list[str] = []

    def add(label: str, text: str) -> None:
        short.append(label)
        diffs.append(text)

    hosts = {_short(s.host) for s in plan.systems}
    host = _short(r.host) or _short(file.split("_")[0])
    if host not in hosts:
        add("other host", f"host {r.host or file.split('_')[0]} is not in the plan (planned: "
                     f"{', '.join(s.host for s in plan.systems)})")
    if tool is None:
        add("not planned", f"the plan asks for no {r.kind} capture")
    if f is None:
        return FileCheck(run_id, file, None, diffs or ["not a file the plan asks for"], short or ["not planned"])
    planned = f.name if same else None
    if f.tool == VSCSISTATS_TOOL:  # histograms: no time series to check
        return FileCheck(run_id, file, planned, diffs, short)
    if r.started_at is None:
        add("no time stamps", "no time stamps" + (" (iostat without -t)" if f.tool == IOSTAT_TOOL else ""))
    if f.tool == IOSTAT_TOOL and not ws.con.execute(
            "SELECT count(*) FROM iostat_samples WHERE run_id = ? AND r_s IS NOT NULL", [run_id]).fetchall()[0][0]:
        add("no -x", "no extended statistics (iostat without -x)")
    interval = r.interval_s
    if interval is None:
        add("interval unknown", f"interval unknown (planned {plan.interval_s} s)")
    elif abs(interval - plan.interval_s) > INTERVAL_TOLERANCE * plan.interval_s:
        add("other interval", f"interval {fmt_value(interval, 's')} instead of {plan.interval_s} s")
    n = r.n_samples or 0
    boot = ws.con.execute("SELECT count(DISTINCT sample_idx) FROM iostat_samples WHERE run_id = ? AND since_boot",
                          [run_id]).fetchall()[0][0] or 0
    covered = (n - int(boot)) * interval if interval else None  # no interval: its length is not known either
    if covered is not None and covered < SHORT_SHARE * plan.duration_s:
        add("too short", f"too short: {fmt_value(covered / 60, 'min')} of the planned "
                     f"{fmt_value(plan.duration_s / 60, 'min')}")
    if plan.storm_start is not None and r.started_at is not None:
        off = get_offset(ws, run_id)
        shift = timedelta(seconds=off.offset_s if off is not None else 0.0)
        # a report is stamped at its end: the capture covers from one interval before its first stamp
        start = r.started_at + shift - timedelta(seconds=interval or 0)
        end = (r.ended_at or r.started_at) + shift  # (a run of one report: it ends where it starts)
        storm_end = plan.storm_start + timedelta(minutes=plan.storm_min)
        if start > plan.storm_start or end < storm_end:
            add("storm outside", f"the storm ({plan.storm_start:%H:%M:%S}–{storm_end:%H:%M:%S}) is not inside the "
                                 f"capture ({start:%H:%M:%S}–{end:%H:%M:%S})")
    return FileCheck(run_id, file, planned, diffs, short)


def check_runs(ws: Workspace, plan: CapturePlan, run_ids: list[int] | None = None) -> list[FileCheck]:
    ids = run_ids if run_ids is not None else [r.run_id for r in ws.runs()]
    return [check_run(ws, plan, rid) for rid in ids]


def missing_files(plan: CapturePlan, checks: list[FileCheck]) -> list[PlannedFile]:
    """The planned files no imported run is."""
    got = {c.planned for c in checks if c.planned}
    return [f for f in plan.files() if f.name not in got]


# ---- stored ---------------------------------------------------------------------------------------------------------
def save(ws: Workspace, plan: CapturePlan) -> None:
    """Store ``plan`` as the workspace's capture plan (replacing the one before)."""
    from app.store.plan import save_spec

    save_spec(ws, plan.to_dict())


def stored(ws: Workspace) -> CapturePlan | None:
    """The workspace's capture plan; None when it has none. A stored plan StormScope cannot read (a received
    workspace) raises AnalysisError saying so."""
    from app.store.plan import get_spec

    spec = get_spec(ws)
    if spec is None:
        return None
    try:
        plan = CapturePlan.from_dict(spec)
        _check_systems(plan.systems)
        int(plan.interval_s)
    except (KeyError, TypeError, ValueError, AnalysisError) as e:
        raise AnalysisError(f"the workspace's capture plan cannot be read ({e}): make the plan again") from None
    return plan
