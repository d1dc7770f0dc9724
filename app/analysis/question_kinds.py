"""The question kinds: typed parameters, their checks, the generated title, and their storage (no Qt).

What a question *is* lives here, what it *answers* in :mod:`app.analysis.questions` (which re-exports every name
of this module: its docstring is the API the window, the command line and the report use). The analyses that
read the stored questions (an Iometer run's cap, a run's response-time goal: ``app.analysis.bench_results``)
import this module, which imports no analysis at run time: no import cycle.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

from app.analysis.numbers import fmt_pct_value, fmt_value
from app.workspace import Workspace, has_table
from parsers.plugins import Registry

Q = TypeVar("Q", bound="Question")

PHASE_CHOICES = ("auto", "stored", "detect", "none")
OPS = ("total", "read", "write")

# parameter key -> its name in the window and the PDF (the command line names its flags instead)
FIELD_LABELS: dict[str, str] = {
    "kind": "Question type", "title": "Title", "position": "Position", "question": "Question",
    "run_id": "Run", "run_ids": "Runs", "device": "Disk", "metric": "Figure", "align": "Alignment",
    "phases": "Phases", "every_s": "Resampling", "iops_cap": "IOPS cap", "bw_cap_kbs": "Bandwidth cap",
    "op": "Reads or writes", "tolerance_pct": "Tolerance", "window_s": "Window", "disks": "VM disks",
    "threshold_ms": "Response-time threshold", "goal_pct": "Goal", "users": "Users",
    "iops_per_user": "IOPS per user", "iops_per_user_storm": "IOPS per user of heavy users",
    "measured_run": "Measured run", "vms": "VMs in the measured run", "read_pct": "Reads", "raid": "RAID level",
    "disk_type": "Disk type", "disk_iops": "IOPS per disk", "gb_per_user": "Capacity per user",
    "disk_gb": "Disk size", "storm_multiplier": "Storm multiplier", "profile": "User profile",
    "davg_ms": "DAVG guidance", "kavg_ms": "KAVG guidance", "statistic": "Judged on", "points": "Load points",
    "replay_run": "Replay", "t_start_s": "From", "t_end_s": "To", "phase": "Phase", "scale": "Scale",
    "replay_device": "Disks of the replay", "host_run": "Host run", "host_device": "Host device",
    "library": "Library", "desktops": "Desktops", "workload": "Workload", "hypervisor": "Hypervisor",
}

# compare figures: key of app.analysis.compare's rows -> customer words, and the series column a chart shows
COMPARE_METRICS: dict[str, tuple[str, str]] = {
    "peak_iops": ("peak IOPS", "iops"), "mean_iops": ("mean IOPS", "iops"),
    "iops_p50": ("median interval IOPS", "iops"), "iops_p95": ("95th percentile of interval IOPS", "iops"),
    "iops_p99": ("99th percentile of interval IOPS", "iops"), "total_ios": ("total I/Os", "iops"),
    "time_to_peak_s": ("time to peak", "iops"), "time_above_s": ("time above the threshold", "iops"),
    "settle_time_s": ("settle time", "iops"), "duration_s": ("duration", "iops"),
    "read_share": ("share of reads", "iops"), "peak_kbs": ("peak throughput", "kbs"),
    "mean_kbs": ("mean throughput", "kbs"), "mean_await_ms": ("mean response time (await)", "await_ms"),
    "await_p95_ms": ("95th percentile of interval await", "await_ms"),
    "await_p99_ms": ("99th percentile of interval await", "await_ms"),
    "mean_latency_ms": ("mean latency", "iops"), "latency_p99_ms": ("99th percentile latency (estimate)", "iops"),
}
# the kinds of workload a library engagement states (app.analysis.library compares like with like): key -> words
WORKLOADS = {"boot_storm": "boot storm", "logon_storm": "logon storm", "steady": "steady state",
             "mixed": "mixed day", "benchmark": "benchmark"}
UNIT_WORDS = {"IOPS": "IOPS", "kB/s": "kB/s", "s": "s", "I/Os": "I/Os", "ms": "ms", "fraction": "%",
              "ms (estimate)": "ms"}


_PARAM_NAMES: dict[type, frozenset[str]] = {}


def _param_names(cls: type) -> frozenset[str]:
    """A question kind's parameters (its fields): asked once per kind, not per stored question read."""
    known = _PARAM_NAMES.get(cls)
    if known is None:
        known = _PARAM_NAMES[cls] = frozenset(f.name for f in fields(cls))
    return known


class QuestionError(ValueError):
    """A question's parameter is wrong (``field`` = its key), or the question or a run it names does not exist
    (``missing``)."""

    def __init__(self, message: str, field: str | None = None, missing: bool = False):
        super().__init__(message)
        self.message, self.field, self.missing = message, field, missing or field is None

    def __str__(self) -> str:
        return f"{FIELD_LABELS.get(self.field, self.field)}: {self.message}" if self.field else self.message


# ---- parameter checks ------------------------------------------------------------------------------------
def _int(name: str, v: Any, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer():
        raise QuestionError(f"a whole number expected, not {v!r}", name)
    if v < minimum:
        raise QuestionError(f"must be {minimum} or more, not {int(v)}", name)
    return int(v)


def _num(name: str, v: Any, *, above: float | None = 0.0, at_least: float | None = None,
         at_most: float | None = None, unit: str = "") -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise QuestionError(f"a number expected, not {v!r}", name)
    v = float(v)
    u = f" {unit}" if unit else ""
    if above is not None and not v > above:
        raise QuestionError(f"must be more than {above:g}{u}, not {v:g}", name)
    if at_least is not None and v < at_least:
        raise QuestionError(f"must be {at_least:g}{u} or more, not {v:g}", name)
    if at_most is not None and v > at_most:
        raise QuestionError(f"must be {at_most:g}{u} or less, not {v:g}", name)
    return v


def _opt_num(name: str, v: Any, **kw: Any) -> float | None:
    return None if v is None else _num(name, v, **kw)


def _choice(name: str, v: Any, choices: tuple[str, ...] | list[str]) -> str:
    if v not in choices:
        raise QuestionError(f"one of {', '.join(choices)}, not {v!r}", name)
    return str(v)


def _ids(name: str, v: Any, minimum: int) -> list[int]:
    if not isinstance(v, (list, tuple)):
        raise QuestionError(f"a list of run numbers expected, not {v!r}", name)
    ids = [_int(name, x) for x in v]
    if len(ids) < minimum:
        raise QuestionError(f"give at least {minimum} run{'s' if minimum > 1 else ''}", name)
    if len(set(ids)) != len(ids):
        raise QuestionError("a run is named twice", name)
    return ids


def _opt_text(name: str, v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str) or not v.strip():
        raise QuestionError(f"a name expected, not {v!r}", name)
    return v.strip()


def _align(v: Any) -> str:
    if v in ("start", "activity", "clock"):
        return str(v)
    if isinstance(v, str) and v.startswith("marker:") and v[7:].strip():
        return v
    if isinstance(v, str) and v.startswith("offset:"):
        try:
            float(v[7:])
        except ValueError:
            raise QuestionError(f"an offset in seconds expected after 'offset:', not {v[7:]!r}", "align") from None
        return v
    raise QuestionError(f"start, activity, clock, marker:NAME or offset:SECONDS, not {v!r}", "align")


# ---- the questions ---------------------------------------------------------------------------------------
# every question kind, by its KIND: a new kind is one class here with @question_kind (and its answer in
# app.analysis.questions, its evidence section in reports/sections/): nothing else lists it
KINDS: Registry[type[Question]] = Registry("question kind")


def question_kind(order: float) -> Callable[[type[Q]], type[Q]]:
    """Register the decorated question class under its ``KIND`` (``order``: where it is listed, e.g. in the
    messages that name every kind)."""
    def deco(cls: type[Q]) -> type[Q]:
        KINDS.add(cls.KIND, cls, order=order)
        return cls
    return deco


@dataclass
class Question:
    """Base of the question kinds: ``KIND`` (stored in ``questions.kind``), ``LABEL`` (the kind in the window's and
    the PDF's words), validation, JSON parameters."""

    KIND: ClassVar[str] = ""
    LABEL: ClassVar[str] = ""

    def validate(self) -> None:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def to_params(self) -> dict[str, Any]:
        """The parameters as JSON can hold them (None values left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Question:
        if not isinstance(params, dict):
            raise QuestionError(f"parameters must be an object, not {params!r}")
        known = _param_names(cls)
        unknown = sorted(set(params) - known)
        if unknown:
            raise QuestionError(f"a {cls.KIND.replace('_', ' ')} question has no parameter {unknown[0]!r} "
                                f"(it has {', '.join(sorted(known))})", unknown[0])
        q = cls(**{k: v for k, v in params.items() if v is not None})
        q.validate()
        return q

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        """The question in a customer's words (``name``: a run's name; ``listed``: runs' names joined)."""
        raise NotImplementedError(type(self).__name__)

    def run_ids_used(self) -> list[int]:
        ids = getattr(self, "run_ids", None)
        if ids is not None:
            return list(ids)
        rid = getattr(self, "run_id", None) or getattr(self, "measured_run", None)
        return [rid] if rid is not None else []


@question_kind(order=10)
@dataclass
class CompareQuestion(Question):
    """How do these runs compare (the first is the baseline)?"""

    KIND: ClassVar[str] = "compare"
    LABEL: ClassVar[str] = "compare runs"
    run_ids: list[int] = field(default_factory=list)
    metric: str = "peak_iops"
    align: str = "start"
    phases: str = "auto"
    device: str | None = None
    every_s: float | None = None

    def validate(self) -> None:
        self.run_ids = _ids("run_ids", self.run_ids, 2)
        self.metric = _choice("metric", self.metric, list(COMPARE_METRICS))
        self.align = _align(self.align)
        self.phases = _choice("phases", self.phases, PHASE_CHOICES)
        self.device = _opt_text("device", self.device)
        self.every_s = _opt_num("every_s", self.every_s, unit="s")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        return f"How do {listed(self.run_ids)} compare ({COMPARE_METRICS[self.metric][0]})?"


@question_kind(order=20)
@dataclass
class CapQuestion(Question):
    """Did an IOPS and/or bandwidth cap hold on this run (device None: its whole disks)?"""

    KIND: ClassVar[str] = "cap"
    LABEL: ClassVar[str] = "cap check"
    run_id: int = 0
    iops_cap: float | None = None
    bw_cap_kbs: float | None = None
    device: str | None = None
    op: str = "total"
    tolerance_pct: float = 5.0
    window_s: float = 10.0

    def validate(self) -> None:
        from app.analysis.cap import MIN_WINDOW_S

        self.run_id = _int("run_id", self.run_id)
        if self.iops_cap is None and self.bw_cap_kbs is None:
            raise QuestionError("give an IOPS cap, a bandwidth cap or both", "iops_cap")
        self.iops_cap = _opt_num("iops_cap", self.iops_cap, unit="IOPS")
        self.bw_cap_kbs = _opt_num("bw_cap_kbs", self.bw_cap_kbs, unit="kB/s")
        self.device = _opt_text("device", self.device)
        self.op = _choice("op", self.op, OPS)
        self.tolerance_pct = _num("tolerance_pct", self.tolerance_pct, above=None, at_least=0, at_most=100,
                                  unit="%")
        self.window_s = _num("window_s", self.window_s, above=None, at_least=MIN_WINDOW_S, unit="s")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        caps = [fmt_value(c, u) for c, u in ((self.iops_cap, "IOPS"), (self.bw_cap_kbs, "kB/s")) if c is not None]
        where = f" ({self.device})" if self.device else ""
        return f"Did the {' and '.join(caps)} cap hold on {name(self.run_id)}{where}?"


@question_kind(order=30)
@dataclass
class ResponseTimeQuestion(Question):
    """Is at least ``goal_pct`` % of I/O answered within ``threshold_ms`` on these runs' (VM) disks?"""

    KIND: ClassVar[str] = "response_time"
    LABEL: ClassVar[str] = "response time"
    run_ids: list[int] = field(default_factory=list)
    disks: list[str] | None = None
    threshold_ms: float = 50.0
    goal_pct: float = 80.0
    op: str = "total"  # total (reads and writes) | read | write

    def validate(self) -> None:
        self.run_ids = _ids("run_ids", self.run_ids, 1)
        self.op = _choice("op", self.op, OPS)
        disks: Any = self.disks  # as the question's JSON gave it
        if disks is not None:
            if not isinstance(disks, (list, tuple)) or not disks:
                raise QuestionError(f"a list of disk names expected, not {disks!r}", "disks")
            self.disks = [str(_opt_text("disks", d)) for d in disks]
        self.threshold_ms = _num("threshold_ms", self.threshold_ms, unit="ms")
        self.goal_pct = _num("goal_pct", self.goal_pct, at_most=100, unit="%")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        what = {"total": "I/O", "read": "reads", "write": "writes"}[self.op]
        return (f"Is {fmt_pct_value(self.goal_pct)} of {what} answered within {fmt_value(self.threshold_ms, 'ms')} on "
                f"{listed(self.run_ids)}?")


@question_kind(order=40)
@dataclass
class SizingQuestion(Question):
    """How many disks for ``users`` desktops? IOPS per user: one value, a light..heavy users range
    (``iops_per_user`` .. ``iops_per_user_storm``), measured from a run (``measured_run`` with ``vms``) or a
    user ``profile``."""

    KIND: ClassVar[str] = "sizing"
    LABEL: ClassVar[str] = "sizing"
    users: int = 0
    iops_per_user: float | None = None
    iops_per_user_storm: float | None = None
    measured_run: int | None = None
    vms: int | None = None
    read_pct: float | None = None
    raid: str | None = None
    disk_type: str | None = None
    disk_iops: float | None = None
    gb_per_user: float | None = None
    disk_gb: float | None = None
    storm_multiplier: float | None = None
    profile: str | None = None

    def validate(self) -> None:
        from app.analysis.sizing_presets import load_presets

        pre = load_presets()
        self.users = _int("users", self.users)
        self.iops_per_user = _opt_num("iops_per_user", self.iops_per_user, unit="IOPS")
        self.iops_per_user_storm = _opt_num("iops_per_user_storm", self.iops_per_user_storm, unit="IOPS")
        sources = [x for x in (self.iops_per_user, self.measured_run, self.profile) if x is not None]
        if len(sources) != 1:
            raise QuestionError("give the IOPS per user (one value or a light..heavy users range), a measured run or "
                                "a user profile -- one of them", "iops_per_user")
        if self.iops_per_user_storm is not None:
            if self.iops_per_user is None:
                raise QuestionError("the heavy users' figure needs the light users' IOPS per user too",
                                    "iops_per_user_storm")
            if not self.iops_per_user_storm > self.iops_per_user:
                raise QuestionError(f"the heavy users' figure ({self.iops_per_user_storm:g}) must be above the light "
                                    f"users' {self.iops_per_user:g} IOPS per user", "iops_per_user_storm")
            if self.storm_multiplier is not None:
                raise QuestionError("a light..heavy users range sizes both ends at their own load: no storm "
                                    "multiplier with it", "storm_multiplier")
        if (self.measured_run is None) != (self.vms is None):
            raise QuestionError("a measured run needs the number of VMs in it, and the other way round",
                                "measured_run" if self.measured_run is None else "vms")
        if self.measured_run is not None:
            self.measured_run = _int("measured_run", self.measured_run)
            self.vms = _int("vms", self.vms)
        self.read_pct = _opt_num("read_pct", self.read_pct, above=None, at_least=0, at_most=100, unit="%")
        if self.raid is not None:
            self.raid = _choice("raid", str(self.raid).lower(), list(pre["raid"]))
        if self.disk_type is not None and self.disk_iops is not None:
            raise QuestionError("give a disk type or the IOPS per disk, not both", "disk_iops")
        if self.disk_type is not None:
            self.disk_type = _choice("disk_type", self.disk_type, list(pre["disk_types"]))
        self.disk_iops = _opt_num("disk_iops", self.disk_iops, unit="IOPS")
        self.gb_per_user = _opt_num("gb_per_user", self.gb_per_user, unit="GB")
        self.disk_gb = _opt_num("disk_gb", self.disk_gb, unit="GB")
        if (self.gb_per_user is None) != (self.disk_gb is None):
            raise QuestionError("capacity sizing needs both the capacity per user and the disk size",
                                "gb_per_user" if self.gb_per_user is None else "disk_gb")
        self.storm_multiplier = _opt_num("storm_multiplier", self.storm_multiplier)
        if self.profile is not None:
            self.profile = _choice("profile", self.profile, list(pre["user_profiles"]))

    def run_ids_used(self) -> list[int]:
        return [] if self.measured_run is None else [self.measured_run]

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        if self.iops_per_user is not None:
            ipu = fmt_value(self.iops_per_user) + (f"–{fmt_value(self.iops_per_user_storm)}"
                                                if self.iops_per_user_storm is not None else "")
            load = f"at {ipu} IOPS per user"
        elif self.measured_run is not None:
            load = f"at the load measured on {name(self.measured_run)}"
        else:
            load = f"with the {self.profile} profile"
        return f"How many disks for {self.users:,} users {load}?"


@question_kind(order=50)
@dataclass
class StormQuestion(Question):
    """The storm profile of a run: peak, time to peak, plateau, settle time, per phase."""

    KIND: ClassVar[str] = "storm_profile"
    LABEL: ClassVar[str] = "storm profile"
    run_id: int = 0
    device: str | None = None
    phases: str = "auto"
    every_s: float | None = None

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)
        self.device = _opt_text("device", self.device)
        self.phases = _choice("phases", self.phases, PHASE_CHOICES)
        self.every_s = _opt_num("every_s", self.every_s, unit="s")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        return f"Storm profile of {name(self.run_id)}"


@question_kind(order=60)
@dataclass
class LatencySourceQuestion(Question):
    """Is the latency within the usual guidance on this host run, and where does it come from: the array (DAVG)
    or the host (KAVG)? (esxtop: app.analysis.host_latency.latency_split)"""

    KIND: ClassVar[str] = "latency_source"
    LABEL: ClassVar[str] = "latency source"
    run_id: int = 0
    device: str | None = None
    davg_ms: float = 20.0
    kavg_ms: float = 2.0

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)
        self.device = _opt_text("device", self.device)
        self.davg_ms = _num("davg_ms", self.davg_ms, unit="ms")
        self.kavg_ms = _num("kavg_ms", self.kavg_ms, unit="ms")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        where = f" ({self.device})" if self.device else ""
        return (f"Is the latency on {name(self.run_id)}{where} within the guidance (DAVG "
                f"{fmt_value(self.davg_ms, 'ms')}, KAVG {fmt_value(self.kavg_ms, 'ms')}), and does it come from the "
                "array or the host?")


@question_kind(order=70)
@dataclass
class VmLoadQuestion(Question):
    """Which VM drives the datastore's load, and does one suffer while another is busy? (esxtop virtual disks:
    app.analysis.host_latency.vm_load)"""

    KIND: ClassVar[str] = "vm_load"
    LABEL: ClassVar[str] = "load per VM"
    run_id: int = 0

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        return f"Which VM drives the load on {name(self.run_id)}?"


@question_kind(order=80)
@dataclass
class KneeQuestion(Question):
    """How many desktops before the response-time goal breaks? Runs at increasing load (fio steps, Iometer tests, a
    ramp of device rates): the highest load at which ``goal_pct`` % of I/O is answered within ``threshold_ms``
    (``statistic="mean"``: the mean response time within it), in desktops of ``iops_per_user`` (or a user
    ``profile``; neither: the sizing question's). app.analysis.knee.knee"""

    KIND: ClassVar[str] = "knee"
    LABEL: ClassVar[str] = "load limit"
    run_ids: list[int] = field(default_factory=list)
    threshold_ms: float = 50.0
    goal_pct: float = 80.0
    statistic: str = "share"  # share (goal_pct % within threshold_ms) | mean (mean response time within it)
    iops_per_user: float | None = None
    profile: str | None = None
    points: str = "runs"  # runs | jobs (each fio job one step)
    device: str | None = None
    every_s: float | None = None

    def validate(self) -> None:
        from app.analysis.sizing_presets import load_presets

        self.run_ids = _ids("run_ids", self.run_ids, 1)
        self.threshold_ms = _num("threshold_ms", self.threshold_ms, unit="ms")
        self.goal_pct = _num("goal_pct", self.goal_pct, at_most=100, unit="%")
        self.statistic = _choice("statistic", self.statistic, ("share", "mean"))
        self.points = _choice("points", self.points, ("runs", "jobs"))
        if self.iops_per_user is not None and self.profile is not None:
            raise QuestionError("give the IOPS per user or a user profile, not both", "profile")
        self.iops_per_user = _opt_num("iops_per_user", self.iops_per_user, unit="IOPS")
        if self.profile is not None:
            self.profile = _choice("profile", self.profile, list(load_presets()["user_profiles"]))
        self.device = _opt_text("device", self.device)
        self.every_s = _opt_num("every_s", self.every_s, unit="s")

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        goal = (f"mean response time within {fmt_value(self.threshold_ms, 'ms')}" if self.statistic == "mean" else
                f"{fmt_pct_value(self.goal_pct)} within {fmt_value(self.threshold_ms, 'ms')}")
        runs = listed(self.run_ids) if len(self.run_ids) <= 4 else \
            f"{len(self.run_ids)} runs ({name(self.run_ids[0])} to {name(self.run_ids[-1])})"
        return f"How many desktops before the response-time goal ({goal}) breaks on {runs}?"


@question_kind(order=90)
@dataclass
class ReplayQuestion(Question):
    """Does the replay (``replay_run``: iostat captured during it, or fio's report of it) reproduce the storm of
    ``run_id`` (a range of seconds or a stored phase of it, at ``scale``)? app.analysis.replay.replay_check"""

    KIND: ClassVar[str] = "replay"
    LABEL: ClassVar[str] = "storm replay"
    run_id: int = 0
    replay_run: int = 0
    t_start_s: float | None = None
    t_end_s: float | None = None
    phase: str | None = None
    scale: float = 1.0
    device: str | None = None
    replay_device: str | None = None
    every_s: float | None = None

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)
        self.replay_run = _int("replay_run", self.replay_run)
        if self.replay_run == self.run_id:
            raise QuestionError("the replay is another run than the storm it replays", "replay_run")
        self.t_start_s = _opt_num("t_start_s", self.t_start_s, above=None, at_least=0, unit="s")
        self.t_end_s = _opt_num("t_end_s", self.t_end_s, above=None, at_least=0, unit="s")
        if self.t_start_s is not None and self.t_end_s is not None and self.t_end_s <= self.t_start_s:
            raise QuestionError(f"must come after the start ({self.t_start_s:g} s)", "t_end_s")
        self.phase = _opt_text("phase", self.phase)
        if self.phase is not None and (self.t_start_s is not None or self.t_end_s is not None):
            raise QuestionError("give a phase or a range of seconds, not both", "phase")
        self.scale = _num("scale", self.scale)
        self.device = _opt_text("device", self.device)
        self.replay_device = _opt_text("replay_device", self.replay_device)
        self.every_s = _opt_num("every_s", self.every_s, unit="s")

    def run_ids_used(self) -> list[int]:
        return [self.run_id, self.replay_run]

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        where = (f"phase {self.phase}" if self.phase else f"seconds {self.t_start_s or 0:g}–{self.t_end_s:g}"
                 if self.t_end_s is not None else f"from second {self.t_start_s:g}" if self.t_start_s
                 else "the whole run")
        scale = f", IOPS x {self.scale:g}" if self.scale != 1 else ""
        return f"Does {name(self.replay_run)} reproduce the storm of {name(self.run_id)} ({where}{scale})?"


@question_kind(order=65)
@dataclass
class LatencyPathQuestion(Question):
    """Where does the time of a guest's I/O go: in the guest's queue, in the hypervisor (KAVG) or in the array
    (DAVG)? The guest's run (``run_id``: iostat -x or perfmon, its ``device``) beside the host's esxtop run
    (``host_run``, its ``host_device``) on one clock. app.analysis.latency_path.latency_path"""

    KIND: ClassVar[str] = "latency_path"
    LABEL: ClassVar[str] = "where the time goes"
    run_id: int = 0
    host_run: int = 0
    device: str | None = None
    host_device: str | None = None

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)
        self.host_run = _int("host_run", self.host_run)
        if self.host_run == self.run_id:
            raise QuestionError("the host's capture is another run than the guest's", "host_run")
        self.device = _opt_text("device", self.device)
        self.host_device = _opt_text("host_device", self.host_device)

    def run_ids_used(self) -> list[int]:
        return [self.run_id, self.host_run]

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        return (f"Where does the time of {name(self.run_id)}'s I/O go: in the guest, the hypervisor or the array "
                f"({name(self.host_run)})?")


@question_kind(order=100)
@dataclass
class LibraryQuestion(Question):
    """How does this engagement's storm (``run_id``) compare with the past engagements of the library at
    ``library`` (a folder or s3://bucket/prefix; None: the library the environment names)? Comparable: the same
    ``workload`` and ``hypervisor`` when given, between half and twice the ``desktops`` when known.
    app.analysis.library.compare_with_library"""

    KIND: ClassVar[str] = "library"
    LABEL: ClassVar[str] = "library comparison"
    run_id: int = 0
    library: str | None = None
    desktops: int | None = None
    workload: str | None = None
    hypervisor: str | None = None

    def validate(self) -> None:
        self.run_id = _int("run_id", self.run_id)
        self.library = _opt_text("library", self.library)
        if self.desktops is not None:
            self.desktops = _int("desktops", self.desktops)
        if self.workload is not None:
            self.workload = _choice("workload", self.workload, list(WORKLOADS))
        self.hypervisor = _opt_text("hypervisor", self.hypervisor)

    def words(self, name: Callable[[int], str], listed: Callable[[list[int]], str]) -> str:
        return f"How does this engagement ({name(self.run_id)}) compare with the library?"


# kind -> its name in the window and the PDF (each kind's LABEL), in the registry's order
KIND_LABELS = {k: c.LABEL for k, c in KINDS.items()}


def question_from_params(kind: str, params: dict[str, Any]) -> Question:
    """A validated question of ``kind`` from its JSON parameters."""
    if kind not in KINDS:
        raise QuestionError(f"one of {', '.join(KIND_LABELS.values())}, not {kind!r}", "kind")
    return KINDS[kind].from_params(params)


def describe(q: Question, names: dict[int, str] | None = None) -> str:
    """The generated title of a question, in a customer's words (each kind words its own: :meth:`Question.words`)."""
    def name(rid: int) -> str:
        return (names or {}).get(rid) or f"run {rid}"

    def listed(ids: list[int]) -> str:
        parts = [name(r) for r in ids]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    return q.words(name, listed)


# ---- storage ---------------------------------------------------------------------------------------------
@dataclass
class StoredQuestion:
    """A question as the workspace keeps it."""

    question_id: int
    position: int
    kind: str
    title: str | None  # the user's title; None = the generated one (see heading)
    question: Question
    created_at: datetime

    def heading(self, names: dict[int, str] | None = None) -> str:
        return self.title or describe(self.question, names)

    def as_dict(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "position": self.position, "kind": self.kind,
                "title": self.title, "heading": self.heading(), "params": self.question.to_params(),
                "created_at": self.created_at}


def _row(r: tuple[Any, ...]) -> StoredQuestion:
    qid, pos, kind, title, params, created = r
    return StoredQuestion(int(qid), int(pos), kind, title, question_from_params(kind, json.loads(params)), created)


_COLS = "question_id, position, kind, title, params, created_at"


def list_questions(ws: Workspace) -> list[StoredQuestion]:
    """The stored questions in their order (none in a workspace that predates the table)."""
    if not has_table(ws, "questions"):
        return []
    return [_row(r) for r in ws.con.execute(f"SELECT {_COLS} FROM questions ORDER BY position").fetchall()]


def get_question(ws: Workspace, question_id: int) -> StoredQuestion:
    rows = ws.con.execute(f"SELECT {_COLS} FROM questions WHERE question_id = ?",
                          [question_id]).fetchall() if has_table(ws, "questions") else []
    if not rows:
        raise QuestionError(f"there is no question {question_id}")
    return _row(rows[0])


def _count(ws: Workspace) -> int:
    return int(ws.con.execute("SELECT count(*) FROM questions").fetchall()[0][0])


def _title(title: str | None) -> str | None:
    if title is None:
        return None
    if not isinstance(title, str):
        raise QuestionError(f"a text expected, not {title!r}", "title")
    return title.strip() or None


def _check_runs(ws: Workspace, q: Question) -> None:
    key = "run_ids" if hasattr(q, "run_ids") else "measured_run" if isinstance(q, SizingQuestion) else "run_id"
    for rid in q.run_ids_used():
        if isinstance(q, ReplayQuestion) and rid == q.replay_run:
            key = "replay_run"
        if isinstance(q, LatencyPathQuestion) and rid == q.host_run:
            key = "host_run"
        if ws.run(rid) is None:
            raise QuestionError(f"there is no run {rid} in this workspace", key, missing=True)
    _check_step(ws, q)


def _check_step(ws: Workspace, q: Question) -> None:
    """A resampling step no finer than the runs' interval: a step of 1e-6 s over a minute of data made the report
    resample 60 million points (2.9 GB after 8 minutes)."""
    step = getattr(q, "every_s", None)
    if step is None:
        return
    intervals = [r[0] for r in ws.con.execute(
        "SELECT interval_s FROM runs WHERE list_contains(?::INTEGER[], run_id) AND interval_s IS NOT NULL",
        [q.run_ids_used()]).fetchall()]
    finest = min(intervals, default=None)
    if finest is not None and step < finest:
        raise QuestionError(f"a resampling step of {fmt_value(step, 's')} is finer than the run's interval "
                            f"({fmt_value(finest, 's')}): resampling cannot add detail the run does not have",
                            "every_s")


def check_stored(ws: Workspace) -> None:
    """Every stored question as it is read back (its kind, its parameters, the runs it names and their
    interval), checked on open by the window and the command line: a workspace from someone else may hold a
    question StormScope never stores, which is refused naming the row and the field
    (:class:`~app.safe_open.WorkspaceDamaged`) instead of a traceback when the questions are read."""
    from app.safe_open import WorkspaceDamaged

    if not has_table(ws, "questions"):
        return
    for r in ws.con.execute(f"SELECT {_COLS} FROM questions ORDER BY position").fetchall():
        try:
            sq = _row(r)
            _check_step(ws, sq.question)
        except (QuestionError, ValueError, TypeError) as e:
            field = getattr(e, "field", None) or "params"
            raise WorkspaceDamaged(ws.path, "questions", f"question {r[0]}", "kind" if field == "kind" else "params",
                                   r[2] if field == "kind" else r[4], str(e), opened=True) from None


def add_question(ws: Workspace, question: Question, title: str | None = None,
                 position: int | None = None) -> StoredQuestion:
    """Store a question (validated; its runs must exist) at ``position`` (1-based; default: last)."""
    question.validate()
    _check_runs(ws, question)
    title = _title(title)
    with ws.transaction():
        n = _count(ws)
        pos = n + 1 if position is None else _int("position", position)
        if pos > n + 1:
            raise QuestionError(f"between 1 and {n + 1}, not {pos}", "position")
        ws.con.execute("UPDATE questions SET position = position + 1 WHERE position >= ?", [pos])
        qid = ws.con.execute(
            "INSERT INTO questions (position, kind, title, params, created_at) VALUES (?, ?, ?, ?, ?) "
            "RETURNING question_id",
            [pos, question.KIND, title, json.dumps(question.to_params()),
             datetime.now(UTC).replace(tzinfo=None)]).fetchall()[0][0]
    return get_question(ws, int(qid))


def edit_question(ws: Workspace, question_id: int, params: dict[str, Any] | None = None,
                  title: str | None = None) -> StoredQuestion:
    """Change a question's parameters (merged over the stored ones; a None value drops one, back to its
    default) and/or its title ("" = back to the generated title)."""
    old = get_question(ws, question_id)
    merged = old.question.to_params()
    for k, v in (params or {}).items():
        if v is None:
            merged.pop(k, None)
        else:
            merged[k] = v
    q = question_from_params(old.kind, merged)
    _check_runs(ws, q)
    new_title = old.title if title is None else _title(title)
    with ws.transaction():
        ws.con.execute("UPDATE questions SET params = ?, title = ? WHERE question_id = ?",
                       [json.dumps(q.to_params()), new_title, question_id])
    return get_question(ws, question_id)


def move_question(ws: Workspace, question_id: int, to: int) -> list[StoredQuestion]:
    """Move a question to position ``to`` (1-based); the others shift. Returns the new order."""
    old = get_question(ws, question_id)
    with ws.transaction():
        n = _count(ws)
        to = _int("position", to)
        if to > n:
            raise QuestionError(f"between 1 and {n}, not {to}", "position")
        if to < old.position:
            ws.con.execute("UPDATE questions SET position = position + 1 WHERE position >= ? AND position < ?",
                           [to, old.position])
        elif to > old.position:
            ws.con.execute("UPDATE questions SET position = position - 1 WHERE position > ? AND position <= ?",
                           [old.position, to])
        ws.con.execute("UPDATE questions SET position = ? WHERE question_id = ?", [to, question_id])
    return list_questions(ws)


def delete_question(ws: Workspace, question_id: int) -> None:
    old = get_question(ws, question_id)
    with ws.transaction():
        ws.con.execute("DELETE FROM questions WHERE question_id = ?", [question_id])
        ws.con.execute("UPDATE questions SET position = position - 1 WHERE position > ?", [old.position])
