"""An engagement's figures as the library keeps them, and how they compare with past engagements (no Qt).

Per run (``run_figures``), from the analyses the rest of StormScope uses, never recomputed another way: the storm
figures of ``app.analysis.storm.storm_report`` (peak, plateau, read share, mean request size = mean kB/s / mean
IOPS, mean await) and the shares of I/O within 10, 20 and 50 ms of ``app.analysis.sizing.response_time_check``
(with its basis: interval-level for iostat, per-I/O from histograms). Per desktop: the peak and the plateau divided
by the engagement's number of desktops, when it is known (given, or the VMs of a sizing question measured on the
run); unknown stays unknown, never a guess.

Comparing (``compare_with_library``): where this run's figures fall among the runs of *comparable* past
engagements -- the same kind of workload and the same hypervisor when this engagement states them, and a size
(desktops) between half and twice this one's when known. Percentile: the share of the comparable runs below this
value, ties counted half (mid-rank), in % -- "the 85th percentile" = higher than 85 % of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.question_kinds import WORKLOADS as WORKLOADS
from app.analysis.series import AnalysisError
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, has

if TYPE_CHECKING:
    from app.run import Run
    from app.workspace import Workspace

FIGURES_VERSION = 1
THRESHOLDS_MS = (10.0, 20.0, 50.0)
SIZE_RANGE = (0.5, 2.0)  # comparable: between half and twice the desktops
MIN_PEERS = 3  # fewer comparable engagements than this: no percentile is stated

# the figures compared: key -> (customer words, unit, how a higher value reads)
COMPARED: dict[str, tuple[str, str]] = {
    "peak_iops_per_desktop": ("peak IOPS per desktop", "IOPS"),
    "peak_to_plateau": ("peak-to-plateau ratio", "x"),
    "read_share": ("share of reads", "fraction"),
    "mean_await_ms": ("mean response time (await)", "ms"),
}


# ---- the one place a run's fields are read ------------------------------------------------------------------
@dataclass
class RunFields:
    run_id: int
    name: str
    tool: str
    started_at: datetime | None
    ended_at: datetime | None
    source_sha256: str | None


def run_fields(run: Run) -> RunFields:
    return RunFields(run.run_id, run.name, run.kind, run.started_at, run.ended_at, run.source_sha256)


def workspace_runs(ws: Workspace) -> list[RunFields]:
    return [run_fields(r) for r in ws.runs()]


def one_run(ws: Workspace, run_id: int) -> RunFields:
    r = ws.run(run_id)
    if r is None:
        raise AnalysisError(f"there is no run {run_id} in this workspace")
    return run_fields(r)


# ---- a run's figures ---------------------------------------------------------------------------------------
def measured_desktops(ws: Workspace, run_id: int) -> int | None:
    """The VMs of a stored sizing question measured on this run (what the consultant said), else None."""
    from app.analysis.question_kinds import SizingQuestion, list_questions

    for sq in list_questions(ws):
        q = sq.question
        if isinstance(q, SizingQuestion) and q.measured_run == run_id and q.vms:
            return int(q.vms)
    return None


def _finite(v: Any) -> float | None:
    return None if v is None or not math.isfinite(float(v)) else float(v)


def run_figures(ws: Workspace, run_id: int, desktops: int | None = None, shares: bool = True) -> dict[str, Any]:
    """One run's library figures (see the module doc); a figure the run cannot give is None. ``shares``: the
    shares of I/O within the thresholds too (published; a comparison does not use them)."""
    from app.analysis.sizing import response_time_check
    from app.analysis.storm import storm_report

    rf = one_run(ws, run_id)
    out: dict[str, Any] = {"run_id": rf.run_id, "tool": rf.tool, "started_at": rf.started_at,
                           "desktops": desktops, "figures_version": FIGURES_VERSION}
    for k in ("duration_s", "peak_iops", "plateau_iops", "peak_to_plateau", "peak_iops_per_desktop",
              "plateau_iops_per_desktop", "read_share", "request_kb", "mean_await_ms", "time_to_peak_s",
              "settle_time_s"):
        out[k] = None
    out["read_share_basis"] = None
    if has(rf.tool, DEVICE_RATES):
        m = storm_report(ws, run_id, phases="none").run
        out.update({"duration_s": _finite(m.duration_s), "peak_iops": _finite(m.peak_iops),
                    "plateau_iops": _finite(m.plateau_iops), "read_share": _finite(m.read_share),
                    "read_share_basis": m.read_share_basis, "mean_await_ms": _finite(m.mean_await_ms),
                    "time_to_peak_s": _finite(m.time_to_peak_s), "settle_time_s": _finite(m.settle_time_s)})
        if m.peak_iops and m.plateau_iops:
            out["peak_to_plateau"] = m.peak_iops / m.plateau_iops
        if m.mean_kbs is not None and m.mean_iops:
            out["request_kb"] = m.mean_kbs / m.mean_iops
        if desktops:
            out["peak_iops_per_desktop"] = _finite(m.peak_iops / desktops) if m.peak_iops is not None else None
            out["plateau_iops_per_desktop"] = (_finite(m.plateau_iops / desktops) if m.plateau_iops is not None
                                               else None)
    out["latency_basis"] = None
    for thr in THRESHOLDS_MS:
        out[f"share_within_{thr:g}ms"] = None
    if shares and (has(rf.tool, DEVICE_RATES) or has(rf.tool, LATENCY_HISTOGRAMS)):
        for thr in THRESHOLDS_MS:
            try:
                rt = response_time_check(ws, run_id, threshold_ms=thr)
            except AnalysisError:  # no await column, no histogram: no share (missing, not zero)
                break
            out[f"share_within_{thr:g}ms"] = _finite(rt["share"]) if rt.get("share") is not None else None
            out["latency_basis"] = str(rt["basis"]) + ("" if rt.get("exact") else " (interval-level or estimate)")
    return out


# ---- comparing -------------------------------------------------------------------------------------------
def percentile_of(value: float, others: list[float]) -> float:
    """Mid-rank percentile of ``value`` among ``others`` (0..100)."""
    a = np.asarray(others, dtype=float)
    return float(100.0 * ((a < value).sum() + 0.5 * (a == value).sum()) / len(a))


@dataclass
class MetricComparison:
    key: str
    label: str
    unit: str
    value: float | None
    percentile: float | None
    peers: list[float]  # the comparable runs' values (the distribution a chart draws)
    engagements: int
    median: float | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class LibraryComparison:
    run_id: int
    location: str
    filters: list[str]  # what "comparable" meant here, in words
    unfiltered: list[str]  # what could not be filtered on (not stated)
    engagements_in_library: int
    comparable_engagements: int
    metrics: list[MetricComparison]
    refused: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    index_notes: list[str] = field(default_factory=list)  # how the library's index served (upkeep, not the answer)

    def as_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in self.__dict__.items() if k != "metrics"},
                "metrics": [m.as_dict() for m in self.metrics]}


def comparable_rows(rows: list[dict[str, Any]], *, exclude: str | None, workload: str | None,
                    hypervisor: str | None, desktops: int | None) -> list[dict[str, Any]]:
    """The library rows comparable with an engagement of this workload, hypervisor and size."""
    out = []
    for r in rows:
        if exclude is not None and r.get("engagement") == exclude:
            continue
        if workload is not None and r.get("workload") != workload:
            continue
        if hypervisor is not None and (r.get("hypervisor") or "").lower() != hypervisor.lower():
            continue
        if desktops:
            d = r.get("desktops")
            if not d or not SIZE_RANGE[0] * desktops <= d <= SIZE_RANGE[1] * desktops:
                continue
        out.append(r)
    return out


def compare_figures(this: dict[str, Any], rows: list[dict[str, Any]], *, location: str, exclude: str | None,
                    workload: str | None, hypervisor: str | None, desktops: int | None,
                    total_engagements: int) -> LibraryComparison:
    """Where ``this`` run's figures fall among the comparable library ``rows`` (dicts of the runs table)."""
    peers = comparable_rows(rows, exclude=exclude, workload=workload, hypervisor=hypervisor, desktops=desktops)
    filters, unfiltered = [], []
    if workload:
        filters.append(f"the same workload ({WORKLOADS.get(workload, workload)})")
    else:
        unfiltered.append("the kind of workload (not stated for this engagement)")
    if hypervisor:
        filters.append(f"the same hypervisor ({hypervisor})")
    else:
        unfiltered.append("the hypervisor (not stated)")
    if desktops:
        filters.append(f"{math.ceil(SIZE_RANGE[0] * desktops):,} to {int(SIZE_RANGE[1] * desktops):,} desktops")
    else:
        unfiltered.append("the size (the number of desktops is not known)")
    metrics = []
    for key, (label, unit) in COMPARED.items():
        vals = [(r["engagement"], float(r[key])) for r in peers if r.get(key) is not None
                and math.isfinite(float(r[key]))]
        v = this.get(key)
        engs = len({e for e, _x in vals})
        pct = percentile_of(v, [x for _e, x in vals]) if v is not None and engs >= MIN_PEERS else None
        med = float(np.median([x for _e, x in vals])) if vals else None
        metrics.append(MetricComparison(key, label, unit, v, pct, [x for _e, x in vals], engs, med))
    return LibraryComparison(this["run_id"], location, filters, unfiltered, total_engagements,
                             len({r["engagement"] for r in peers}), metrics)


def compare_with_library(ws: Workspace, run_id: int, location: str, *, desktops: int | None = None,
                         workload: str | None = None, hypervisor: str | None = None) -> LibraryComparison:
    """This run against the library at ``location`` (see the module doc). The engagement itself, when it is in
    the library, is left out of its own comparison."""
    from app.store.library import LibraryError, read_library

    desktops = desktops or measured_desktops(ws, run_id)
    this = run_figures(ws, run_id, desktops, shares=False)
    try:
        lib = read_library(location, columns=["workload", "hypervisor", "desktops", *COMPARED])
    except LibraryError as e:
        raise AnalysisError(str(e)) from None
    table = lib.table("runs")
    rows = table.to_pylist() if table is not None else []
    res = compare_figures(this, rows, location=location, exclude=engagement_id(ws), workload=workload,
                          hypervisor=hypervisor, desktops=desktops, total_engagements=len(lib.manifests))
    res.refused = [str(r) for r in lib.refused]
    res.notes = list(lib.notes)
    res.index_notes = list(lib.index_notes)
    return res


def library_location(given: str | None) -> str:
    """The library a question or command names, else the one the environment names (STORMSCOPE_LIBRARY)."""
    import os

    from app.store.library import LIBRARY_ENV

    where = given or os.environ.get(LIBRARY_ENV)
    if not where:
        raise AnalysisError("no library is named: give its folder (or s3://bucket/prefix)")
    return where


def engagement_id(ws: Workspace) -> str:
    """An engagement's id: a hash of its runs' source files (the same workspace, or a copy of it, is the same
    engagement: publishing it again replaces it). No name of the customer's is in it."""
    import hashlib

    shas = sorted(r.source_sha256 or f"{r.tool}:{r.name}" for r in workspace_runs(ws))
    return "e" + hashlib.sha256("\n".join(shas).encode()).hexdigest()[:15]
