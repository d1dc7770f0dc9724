"""Storm metrics of a run and of each of its phases (no Qt).

From a run's IOPS series (``app.analysis.series``, since-boot report excluded):

* peak IOPS and the interval that holds it (the first one, on a tie);
* time to peak: from the start of the first activity (the first of ``activity_intervals``
  consecutive intervals above ``activity_iops``; the series' start when there is none) to the end
  of the peak interval;
* time above a threshold (default 50 % of the peak): the summed length of the intervals above it;
* plateau: the sustained level of the storm = the time-weighted median of the interval IOPS over the
  intervals above ``above_pct`` % (default 50 %) of the peak. Idle and ramp intervals below half the
  peak are left out, so a long idle tail does not pull it down (never the median of the whole run);
* settle time: from the end of the peak interval to the start of the first stretch of
  ``settle_intervals`` consecutive intervals below ``settle_pct`` % of the peak (None: never);
* total I/Os (rate x interval), mean IOPS, read/write share (by I/Os for -x reports; by kB for
  plain reports, which have no r/s and w/s -- labelled);
* p50/p95/p99 of interval IOPS (time-weighted) and of interval await (weighted by I/Os). await is
  each report's mean per request: the percentiles are **interval-level**, not per-I/O latencies.

Percentiles: inverted CDF (the smallest value with at least p % of the weight at or below it).

A time range (``t_range``, seconds of the run's time axis) restricts every figure to the reports whose
midpoint lies in ``[from, to)``: the statistics of a zoomed chart (``analyze storm --from S --to S``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.phases import detect_phases, detection_method
from app.analysis.series import (
    DEFAULT_ACTIVITY_INTERVALS,
    DEFAULT_ACTIVITY_IOPS,
    AnalysisError,
    Series,
    activity_start,
    load_series,
    resample,
    weighted_percentile,
    weighted_percentiles,
)
from app.errors import Note
from app.store.phases import Phase, list_phases

if TYPE_CHECKING:
    from app.workspace import Workspace

PERCENTILES = (50, 95, 99)
DEFAULT_SETTLE_PCT = 10.0
DEFAULT_SETTLE_INTERVALS = 3
DEFAULT_ABOVE_PCT = 50.0


# "Plateau" means this figure and nothing else, in the window, the command line and the report (the cap check's
# typical level is the "median interval", app.analysis.cap): the one definition every text uses.
PLATEAU_DEFINITION = ("the sustained level of the run's busy part: the time-weighted median IOPS of the intervals "
                      "above half the peak (for a short burst, the burst's level); idle and ramp intervals are left "
                      "out, so idle time does not pull it down")

@dataclass
class StormParams:
    threshold_iops: float | None = None  # None: above_pct % of the peak
    above_pct: float = DEFAULT_ABOVE_PCT
    settle_pct: float = DEFAULT_SETTLE_PCT
    settle_intervals: int = DEFAULT_SETTLE_INTERVALS
    activity_iops: float = DEFAULT_ACTIVITY_IOPS
    activity_intervals: int = DEFAULT_ACTIVITY_INTERVALS

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold_iops": self.threshold_iops if self.threshold_iops is not None
            else f"{self.above_pct:g} % of the peak",
            "settle": f"below {self.settle_pct:g} % of the peak for {self.settle_intervals} consecutive intervals",
            "settle_pct": self.settle_pct, "settle_intervals": self.settle_intervals,
            "activity": f"first of {self.activity_intervals} consecutive intervals above {self.activity_iops:g} IOPS",
            "activity_iops": self.activity_iops, "activity_intervals": self.activity_intervals,
        }


@dataclass
class StormMetrics:
    """Metrics of one stretch of a series (the whole run or a phase)."""

    t_start_s: float | None
    t_end_s: float | None
    intervals: int
    duration_s: float
    peak_iops: float | None = None
    peak_sample_idx: int | None = None
    peak_t_start_s: float | None = None
    peak_t_end_s: float | None = None
    activity_start_s: float | None = None
    time_to_peak_s: float | None = None
    threshold_iops: float | None = None
    time_above_s: float | None = None
    plateau_iops: float | None = None  # time-weighted median IOPS of the intervals above plateau_floor_iops
    plateau_floor_iops: float | None = None  # above_pct % of the peak
    settle_level_iops: float | None = None
    settled_at_s: float | None = None
    settle_time_s: float | None = None
    total_ios: float | None = 0.0  # None: the run has no request counts
    read_ios: float | None = None
    write_ios: float | None = None
    mean_iops: float | None = None
    read_share: float | None = None
    read_share_basis: str | None = None  # "I/Os" or "kB: plain reports have no r/s, w/s"
    peak_kbs: float | None = None
    mean_kbs: float | None = None
    iops_percentiles: dict[str, float | None] = field(default_factory=dict)
    await_percentiles_ms: dict[str, float | None] = field(default_factory=dict)
    mean_await_ms: float | None = None
    missing_reports: int = 0  # gap reports (a summed disk missing) in the span: left out of every figure

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def storm_metrics(s: Series, params: StormParams | None = None) -> StormMetrics:
    """Storm metrics of a series (see the module doc)."""
    p = params or StormParams()
    f = s.frame
    if f.height == 0:
        return StormMetrics(None, None, 0, 0.0)
    iops, dt = s.col("iops"), s.col("dt_s")
    ts, te = s.col("t_start_s"), s.col("t_end_s")
    gap = s.gap_mask()
    m = StormMetrics(float(ts.min()), float(te.max()), f.height - int(gap.sum()), s.duration_s(),
                     missing_reports=int(gap.sum()))
    if np.isnan(iops).all():  # no request figures (a bandwidth- or latency-only log): no IOPS, never 0 IOPS
        return _without_iops(s, m)
    i = int(np.nanargmax(iops))
    peak = float(iops[i])
    m.peak_iops, m.peak_sample_idx = peak, int(f.get_column("sample_idx")[i])
    m.peak_t_start_s, m.peak_t_end_s = float(ts[i]), float(te[i])
    act = activity_start(s, p.activity_iops, p.activity_intervals)
    m.activity_start_s = act
    m.time_to_peak_s = m.peak_t_end_s - (act if act is not None and act <= m.peak_t_start_s else float(ts.min()))
    thr = p.threshold_iops if p.threshold_iops is not None else p.above_pct / 100.0 * peak
    m.threshold_iops = thr
    m.time_above_s = float(dt[iops > thr].sum())
    m.plateau_floor_iops = p.above_pct / 100.0 * peak
    high = iops > m.plateau_floor_iops
    m.plateau_iops = weighted_percentile(iops[high], dt[high], 50) if high.any() else None
    level = p.settle_pct / 100.0 * peak
    m.settle_level_iops = level
    run = 0
    for j in range(i + 1, len(iops)):
        run = run + 1 if iops[j] < level else 0
        if run >= p.settle_intervals:
            start = j - p.settle_intervals + 1
            m.settled_at_s = float(ts[start])
            m.settle_time_s = m.settled_at_s - m.peak_t_end_s
            break
    ios = iops * dt
    m.total_ios = float(np.nansum(ios))
    m.mean_iops = m.total_ios / m.duration_s if m.duration_s else None
    if s.has_read_write:
        m.read_ios = float(np.nansum(s.col("read_iops") * dt))
        m.write_ios = float(np.nansum(s.col("write_iops") * dt))
        rw = m.read_ios + m.write_ios
        m.read_share = m.read_ios / rw if rw else None
        m.read_share_basis = "I/Os"
    kbs = s.col("kbs")
    if not np.all(np.isnan(kbs)):
        m.peak_kbs = float(np.nanmax(kbs))
        m.mean_kbs = float(np.nansum(kbs * dt) / m.duration_s) if m.duration_s else None
        if m.read_share is None:
            r = float(np.nansum(s.col("read_kbs") * dt))
            w = float(np.nansum(s.col("write_kbs") * dt))
            if r + w:
                m.read_share = r / (r + w)
                m.read_share_basis = "kB: plain reports have no r/s, w/s"
    m.iops_percentiles = dict(zip((f"p{q}" for q in PERCENTILES), weighted_percentiles(iops, dt, PERCENTILES)))
    aw = s.col("await_ms")
    ok = ~np.isnan(aw) & (ios > 0)
    if ok.any():
        m.await_percentiles_ms = dict(zip((f"p{q}" for q in PERCENTILES),
                                          weighted_percentiles(aw[ok], ios[ok], PERCENTILES)))
        m.mean_await_ms = float(np.sum(aw[ok] * ios[ok]) / np.sum(ios[ok]))
    else:
        m.await_percentiles_ms = {f"p{q}": None for q in PERCENTILES}
    return m


def _without_iops(s: Series, m: StormMetrics) -> StormMetrics:
    """The figures a run without request counts has: throughput, and await as a plain mean over time (nothing to
    weight it by); every IOPS figure stays None."""
    m.total_ios = None
    dt = s.col("dt_s")
    kbs = s.col("kbs")
    if not np.all(np.isnan(kbs)):
        m.peak_kbs = float(np.nanmax(kbs))
        m.mean_kbs = float(np.nansum(kbs * dt) / m.duration_s) if m.duration_s else None
    aw = s.col("await_ms")
    ok = ~np.isnan(aw)
    m.await_percentiles_ms = dict(zip((f"p{q}" for q in PERCENTILES),
                                      weighted_percentiles(aw[ok], dt[ok], PERCENTILES)))
    m.mean_await_ms = float(np.sum(aw[ok] * dt[ok]) / np.sum(dt[ok])) if ok.any() and np.sum(dt[ok]) else None
    return m


@dataclass
class StormReport:
    run_id: int
    run_name: str
    method: dict[str, Any]
    run: StormMetrics
    phase_source: str  # "stored" | "detected" | "none"
    phases: list[tuple[Phase, StormMetrics]]
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "run_name": self.run_name, "method": self.method, "run": self.run.as_dict(),
            "phase_source": self.phase_source,
            "phases": [{**ph.as_dict(), "metrics": m.as_dict()} for ph, m in self.phases],
            "notes": self.notes,
        }


METRIC_TEXT = {
    "peak": "the highest interval IOPS (first on a tie)",
    "time_to_peak": "from the start of the first activity to the end of the peak interval",
    "time_above": "summed length of the intervals above the threshold",
    "plateau": PLATEAU_DEFINITION,
    "settle_time": "from the end of the peak interval to the start of the first stretch of consecutive "
                   "intervals below the settle level (see 'settle')",
    "total_ios": "sum of interval IOPS x interval length",
    "percentiles": "inverted CDF; interval IOPS weighted by interval length, interval await weighted by I/Os",
    "await": "INTERVAL-LEVEL: iostat's await is the mean per request over a report, so its percentiles are "
             "percentiles of interval means, not of single I/Os",
}


def storm_report(ws: Workspace, run_id: int, device: str | None = None, params: StormParams | None = None, *,
                 phases: str = "auto", every_s: float | None = None,
                 t_range: tuple[float, float] | None = None) -> StormReport:
    """Storm metrics of a run and per phase.

    ``phases``: ``auto`` (the run's stored phases when it has any, else an automatic split),
    ``stored``, ``detect`` (always the automatic split) or ``none``. ``t_range``: only the reports
    whose midpoint lies in ``[from, to)`` s of the run (see the module doc).
    """
    p = params or StormParams()
    s = load_series(ws, run_id, device)
    if every_s:
        s = resample(s, every_s)
    notes = list(s.notes)
    if t_range is not None:
        s = window_range(s, t_range)
        notes.append(f"{range_text(t_range)} (reports whose midpoint lies in it): {s.frame.height} intervals")
    stored = list_phases(ws, run_id) if phases in ("auto", "stored") else []
    if phases not in ("auto", "stored", "detect", "none"):
        raise AnalysisError(f"unknown phase choice {phases!r}: auto, stored, detect or none")
    method: dict[str, Any] = {"series": s.method(), "parameters": p.as_dict(), "metrics": METRIC_TEXT}
    if t_range is not None:
        method["range_s"] = [float(x) if np.isfinite(x) else None for x in t_range]
    if stored:
        chosen, source = stored, "stored"
        method["phases"] = Note("phases stored in the workspace ({fix})", "store_phases")
    elif phases in ("auto", "detect"):
        chosen, source = detect_phases(s), "detected"
        method["phases"] = detection_method()
    else:
        chosen, source = [], "none"
        if phases == "stored":
            notes.append("the run has no stored phases")
    per = [(ph, storm_metrics(s.window(ph.t_start_s, ph.t_end_s), p)) for ph in chosen]
    return StormReport(run_id, s.run_name, method, storm_metrics(s, p), source, per, notes)


def window_range(s: Series, t_range: tuple[float, float]) -> Series:
    """The reports of ``s`` whose midpoint lies in ``[from, to)`` (a zoomed chart's range)."""
    lo, hi = float(t_range[0]), float(t_range[1])
    if not hi > lo:
        raise AnalysisError(f"the range {lo:g}-{hi:g} s is empty: 'to' must be after 'from'")
    return s.window(lo, hi)


def range_text(t_range: tuple[float, float]) -> str:
    """``only 100-300 s of the run`` (an open end: ``from 100 s`` / ``up to 300 s``)."""
    lo, hi = float(t_range[0]), float(t_range[1])
    if np.isfinite(lo) and np.isfinite(hi):
        return f"only {lo:g}-{hi:g} s of the run"
    if np.isfinite(lo):
        return f"only from {lo:g} s of the run on"
    return f"only up to {hi:g} s of the run" if np.isfinite(hi) else "the whole run"
