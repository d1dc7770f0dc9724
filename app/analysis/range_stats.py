"""The results table under the overlay: one row of figures per curve, for the visible time range (no Qt).

Every figure is one of ``app.analysis.storm`` (peak, time to peak, mean, p95, plateau, totals, read
share) or ``app.analysis.cap`` (the cap verdict), computed on the same series the command line uses:

* an iostat curve: ``load_series(ws, run, device)`` (whole disks by default), restricted to the
  reports whose midpoint lies in the range -- exactly ``main.py analyze storm|cap --from S --to S``;
* a vscsiStats curve (one VM disk): the series of its collections (IOPS = histogram count /
  interval, read/write IOPS, kB/s, mean latency as in ``histo_summary``), each collection covering
  ``[t, t + interval)``, restricted the same way.

Times are seconds of the run's own axis (iostat: since the start of its first analysed interval;
vscsiStats: since the start of its first collection), not of the chart, which may be aligned.

Share within a latency threshold (vscsiStats): the latency histograms of the collections in the
range, summed, through ``histograms.share_within``: exact when no I/O lies in a bucket that straddles
the threshold, else lower/upper bounds plus a linear-interpolation **estimate**, labelled as such.

Not applicable is ``None`` (shown as "–"), never 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from app.analysis.cap import DEFAULT_TOLERANCE_PCT, DEFAULT_WINDOW_S, CapCheck, check_cap
from app.analysis.histograms import (
    LATENCY,
    AnalysisError,
    Share,
    _minmax,
    _rows,
    histo_summary,
    load_buckets,
    load_stats,
    merge_buckets,
    share_within,
)
from app.analysis.host_latency import DAVG_GUIDANCE_MS, KAVG_GUIDANCE_MS
from app.analysis.numbers import pct_pair
from app.analysis.series import SERIES_COLUMNS, DeviceChoice, Series, load_series, weighted_percentiles
from app.analysis.storm import (
    METRIC_TEXT,
    PLATEAU_DEFINITION,
    StormMetrics,
    StormParams,
    range_text,
    storm_metrics,
    window_range,
)
from parsers.kinds import DEVICE_RATES, IOSTAT, LATENCY_HISTOGRAMS, has

if TYPE_CHECKING:
    from app.workspace import Workspace

DASH = "–"
DEFAULT_THRESHOLD_MS = 50.0

# overlay metric -> (cap metric, op) of app.analysis.cap; other metrics have no cap check
CAP_METRICS = {"IOPS (total)": ("iops", "total"), "IOPS (read)": ("iops", "read"), "IOPS (write)": ("iops", "write"),
               "Throughput (kB/s)": ("bw", "total")}

PLATEAU_TEXT = f"Plateau: {PLATEAU_DEFINITION}"


@dataclass(frozen=True)
class MetricSpec:
    """What the table shows of a chart metric other than total IOPS (whose figures are the storm's): the figures of
    the curve drawn, in the metric's own unit, weighting and threshold -- a latency chart never gets IOPS columns."""

    unit: str  # as the chart reads it out: "IOPS", "kB/s", "ms", "%", "" (a queue length), "commands/s"
    per_request: bool = False  # a time per request: its mean and p95 weigh by the requests of each interval
    total: tuple[str, float] | None = None  # (header, factor) of the range's total: sum of value x seconds x factor
    decimals: int = 1
    line: tuple[float, str] | None = None  # the metric's own threshold line: (value, what it is)


METRIC_SPECS = {
    "IOPS (read)": MetricSpec("IOPS", total=("Total reads", 1.0)),
    "IOPS (write)": MetricSpec("IOPS", total=("Total writes", 1.0)),
    "Throughput (kB/s)": MetricSpec("kB/s", total=("Total (MB)", 1 / 1024)),  # MB = 1,024 kB, as everywhere
    "await (ms)": MetricSpec("ms", per_request=True, decimals=2),
    "%util (max over disks)": MetricSpec("%"),
    "Queue (aqu-sz, summed)": MetricSpec("", decimals=2),
    "GAVG (ms)": MetricSpec("ms", per_request=True, decimals=2),
    "DAVG (ms)": MetricSpec("ms", per_request=True, decimals=2, line=(DAVG_GUIDANCE_MS, "guidance")),
    "KAVG (ms)": MetricSpec("ms", per_request=True, decimals=2, line=(KAVG_GUIDANCE_MS, "guidance")),
    "Commands/s per VM": MetricSpec("commands/s", total=("Total commands", 1.0)),
}


@dataclass
class CurveFigures:
    """The figures of a curve's own values over a range: the reports whose midpoint lies in it (as the storm's)."""

    t_start_s: float | None
    t_end_s: float | None
    intervals: int
    duration_s: float
    peak: float | None = None
    peak_t_start_s: float | None = None
    peak_t_end_s: float | None = None
    mean: float | None = None
    p95: float | None = None
    total: float | None = None
    above_s: float | None = None  # time above the metric's line (seconds of data)
    above_intervals: int | None = None


def curve_figures(values: tuple[Any, Any, Any, Any], t_range: tuple[float, float] | None,
                  m: MetricSpec) -> CurveFigures:
    """Peak (the first on a tie) and when, mean and p95 -- time-weighted for a rate, weighted by the requests of
    each interval for a time per request --, the total and the time above the metric's line, of the intervals
    ``(t_start, t_end]`` (seconds of the run) whose midpoint lies in ``t_range``; intervals without a value are
    left out (missing is not zero)."""
    ts, te, y = (np.asarray(a, dtype=float) for a in values[:3])
    w = None if values[3] is None else np.asarray(values[3], dtype=float)
    keep = ~np.isnan(y)
    if t_range is not None:
        lo, hi = float(t_range[0]), float(t_range[1])
        if not hi > lo:
            raise AnalysisError(f"the range {lo:g}-{hi:g} s is empty: 'to' must be after 'from'")
        mid = (ts + te) / 2
        keep &= (mid >= lo) & (mid < hi)
    ts, te, y = ts[keep], te[keep], y[keep]
    dt = te - ts
    if not len(y):
        return CurveFigures(None, None, 0, 0.0)
    f = CurveFigures(float(ts.min()), float(te.max()), len(y), float(dt.sum()))
    i = int(np.argmax(y))
    f.peak, f.peak_t_start_s, f.peak_t_end_s = float(y[i]), float(ts[i]), float(te[i])
    weight = w[keep] if m.per_request and w is not None else dt
    ok = ~np.isnan(weight) & (weight > 0)
    if ok.any():
        f.mean = float((y[ok] * weight[ok]).sum() / weight[ok].sum())
        f.p95 = weighted_percentiles(y[ok], weight[ok], [95])[0]
    if m.total is not None:
        f.total = float((y * dt).sum() * m.total[1])
    if m.line is not None:
        over = y > m.line[0]
        f.above_s, f.above_intervals = float(dt[over].sum()), int(over.sum())
    return f


@dataclass(frozen=True)
class TimeBase:
    """How the chart shows time, so that the table prints its times the same way: seconds since each curve's
    alignment (``elapsed``), the wall clock (``clock``: ``clock0`` is the chart's 0) or 0-1 of each run
    (``normalised``)."""

    mode: str = "elapsed"
    clock0: datetime | None = None

    @property
    def unit(self) -> str:
        return "clock" if self.mode == "clock" and self.clock0 is not None else "0–1" if self.mode == "normalised" \
            else "s"

    def text(self, x: float | None) -> str:
        if x is None or not math.isfinite(x):
            return DASH
        if self.mode == "clock" and self.clock0 is not None:
            return (self.clock0 + timedelta(seconds=round(x, 3))).strftime("%H:%M:%S")
        return f"{x:,.3f}" if self.mode == "normalised" else _num(x, 1)


@dataclass
class CurveSpec:
    """What the table needs to know of one overlay curve (plain data: it crosses to the worker thread)."""

    run_id: int
    label: str
    kind: str = IOSTAT  # runs.kind of the curve: iostat rates, or vscsiStats collections (latency histograms)
    device: str | None = None  # iostat: None = whole disks; vscsiStats: the VM disk
    t_range: tuple[float, float] | None = None  # seconds of the run's axis; None = the whole run
    colour: str = "#1f77b4"
    metric: str = "IOPS (total)"
    align_offset_s: float = 0.0  # chart time = (run time - align_offset_s) / time_scale + offset
    time_scale: float = 1.0  # the run's length in 0–1 (normalised) time, else 1
    offset: float = 0.0  # the manual Shift+drag shift on the chart
    # the curve as drawn, in seconds of the run: (interval start, interval end, value, weight or None); the figures
    # of a metric other than total IOPS are its (METRIC_SPECS)
    values: tuple[Any, Any, Any, Any] | None = None


@dataclass
class RangeRow:
    spec: CurveSpec
    run_name: str = ""
    storm: StormMetrics | None = None
    cap: CapCheck | None = None
    cap_note: str | None = None  # why there is no verdict
    share: Share | None = None  # vscsiStats: share within the threshold over the range
    threshold_ms: float | None = None
    collections: list[dict[str, Any]] = field(default_factory=list)  # vscsiStats: per collection
    figures: CurveFigures | None = None  # a metric other than total IOPS: the figures of the curve drawn
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.spec.label


# ---- computing the rows --------------------------------------------------------------------------
def vscsi_series(ws: Workspace, run_id: int, device: str) -> Series:
    """The series of one VM disk of a vscsiStats run: one row per collection (see the module doc)."""
    summary = histo_summary(ws, run_id)
    interval = summary.get("interval_s")
    if not interval:
        raise AnalysisError("the collection interval is unknown: set it (right-click the run ▸ Set interval…) to "
                            "get IOPS from the histogram counts")
    rows = []
    for smp in summary["samples"]:
        if smp["device"] != device or smp.get("t_s") is None:
            continue
        t = float(smp["t_s"])
        rows.append({"sample_idx": int(smp["sample_idx"]), "t_start_s": t, "t_end_s": t + interval,
                     "dt_s": float(interval), "iops": smp.get("iops"), "read_iops": smp.get("read_iops"),
                     "write_iops": smp.get("write_iops"), "other_iops": None, "kbs": smp.get("kb_s"),
                     "read_kbs": None, "write_kbs": None, "await_ms": smp.get("mean_latency_ms"),
                     "ios": None if smp.get("ios") is None else float(smp["ios"])})
    if not rows:
        raise AnalysisError(f"no collection of VM disk {device} has a time")
    rows.sort(key=lambda r: r["t_start_s"])
    schema = {c: (pl.Int64 if c == "sample_idx" else pl.Float64) for c in SERIES_COLUMNS}
    frame = pl.DataFrame(rows, schema=schema)
    choice = DeviceChoice(device, [device], {}, "one VM disk (vscsiStats)")
    return Series(run_id, ws.name_of(run_id), frame, choice, float(interval),
                  "histogram count / collection interval (vscsiStats)", notes=list(summary.get("notes") or []))


def _cap(s: Series, metric: str, cap: float | None) -> tuple[CapCheck | None, str | None]:
    if cap is None or cap <= 0:
        return None, None
    what = CAP_METRICS.get(metric)
    if what is None:
        return None, f"a cap is checked on IOPS or throughput, not on {metric}"
    if s.frame.height == 0:
        return None, "no data in the range"
    try:
        return check_cap(s, what[0], cap, op=what[1], tolerance_pct=DEFAULT_TOLERANCE_PCT,
                         window_s=DEFAULT_WINDOW_S), None
    except AnalysisError as e:
        return None, str(e)


def _cached(cache: dict[Any, Any] | None, key: tuple[Any, ...], make: Any) -> Any:
    if cache is None:
        return make()
    if key not in cache:
        cache[key] = make()
    return cache[key]


def _share(ws: Workspace, run_id: int, device: str, samples: list[int], threshold_ms: float,
           cache: dict[Any, Any] | None = None) -> tuple[Share | None, list[Share | None]]:
    """Share within the threshold over the given collections, and per collection (same order)."""
    lat = _cached(cache, ("latency", run_id, device), lambda: load_buckets(
        ws, run_id, LATENCY, "all", device).filter(pl.col("device") == device))
    stats = _cached(cache, ("stats", run_id, device), lambda: load_stats(
        ws, run_id, device).filter(pl.col("device") == device))
    if lat.height == 0:
        return None, [None] * len(samples)

    def one(idx: list[int]) -> Share | None:
        b = lat.filter(pl.col("sample_idx").is_in(idx))
        if b.height == 0:
            return None
        vmin, vmax = _minmax(stats.filter(pl.col("sample_idx").is_in(idx)), LATENCY, "all")
        return share_within(merge_buckets(_rows(b)), threshold_ms * 1000, vmin, vmax)

    return (one(samples) if samples else None), [one([i]) for i in samples]


def compute_row(ws: Workspace, spec: CurveSpec, cap: float | None = None,
                threshold_ms: float = DEFAULT_THRESHOLD_MS, cache: dict[Any, Any] | None = None) -> RangeRow:
    """The figures of one curve over its range (errors become the row's ``error``, never a crash).

    ``cache``: a dict that keeps the loaded series and histograms between calls (zooming reloads nothing);
    the caller empties it when the runs may have changed."""
    row = RangeRow(spec)
    m = METRIC_SPECS.get(spec.metric) if spec.values is not None else None
    try:
        if m is not None and spec.values is not None:
            row.figures = curve_figures(spec.values, spec.t_range, m)
            capped = cap is not None and cap > 0 and spec.metric in CAP_METRICS
            if not capped and not has(spec.kind, LATENCY_HISTOGRAMS):  # the curve says all: no series to load
                row.run_name = ws.name_of(spec.run_id)
                if spec.t_range is not None:
                    row.notes.append(f"{range_text(spec.t_range)} (reports whose midpoint lies in it)")
                return row
        if has(spec.kind, LATENCY_HISTOGRAMS):
            if not spec.device:
                raise AnalysisError("a vscsiStats curve needs its VM disk")
            s = _cached(cache, ("series", spec.kind, spec.run_id, spec.device),
                        lambda: vscsi_series(ws, spec.run_id, spec.device or ""))
        else:
            s = _cached(cache, ("series", spec.kind, spec.run_id, spec.device),
                        lambda: load_series(ws, spec.run_id, spec.device))
        row.run_name = s.run_name
        row.notes = list(s.notes)
        if spec.t_range is not None:
            s = window_range(s, spec.t_range)
            row.notes.append(f"{range_text(spec.t_range)} (reports whose midpoint lies in it)")
        if m is None:
            row.storm = storm_metrics(s, StormParams())
        row.cap, row.cap_note = _cap(s, spec.metric, cap)
        if has(spec.kind, LATENCY_HISTOGRAMS):
            row.threshold_ms = threshold_ms
            idx = [int(i) for i in s.frame.get_column("sample_idx").to_list()]
            row.share, per = _share(ws, spec.run_id, spec.device or "", idx, threshold_ms, cache)
            for r, sh in zip(s.frame.iter_rows(named=True), per):
                row.collections.append({"sample_idx": r["sample_idx"], "t_start_s": r["t_start_s"],
                                        "t_end_s": r["t_end_s"], "iops": r["iops"], "await_ms": r["await_ms"],
                                        "share": sh})
    except AnalysisError as e:
        row.error = str(e)
    return row


def compute_rows(ws: Workspace, specs: list[CurveSpec], cap: float | None = None,
                 threshold_ms: float = DEFAULT_THRESHOLD_MS, cache: dict[Any, Any] | None = None) -> list[RangeRow]:
    return [compute_row(ws, sp, cap, threshold_ms, cache) for sp in specs]


# ---- columns ---------------------------------------------------------------------------------------
def _m(row: RangeRow, attr: str) -> float | None:
    if row.storm is None or not row.storm.intervals:
        return None
    return getattr(row.storm, attr)


def share_value(s: Share | None) -> float | None:
    """The exact share (0-1), None when only bounds are known."""
    return None if s is None else s.share


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: str  # text | iops | s | count | pct | cap | share
    tooltip: str
    delta: bool = True  # B − A and B / A make sense

    def value(self, row: RangeRow) -> Any:
        return VALUE[self.key](row)


def _span(row: RangeRow) -> tuple[float, float] | None:
    """The seconds of the run the row's figures cover (the storm's or the curve's), None when none."""
    st = row.figures if row.figures is not None else row.storm
    if st is None or not st.intervals or st.t_start_s is None or st.t_end_s is None:
        return None
    return st.t_start_s, st.t_end_s


def _range(row: RangeRow, base: TimeBase | None = None) -> str:
    """The range the figures cover, on the chart's time axis (the time the chart is drawn in)."""
    span = _span(row)
    if span is None:
        return DASH
    base = base or TimeBase()
    text = f"{base.text(chart_time(row, span[0]))}–{base.text(chart_time(row, span[1]))}"
    return text if row.spec.t_range is not None else f"{text} (all)"


def _f(row: RangeRow, attr: str) -> float | None:
    """A figure of the curve's own values (a metric other than total IOPS)."""
    if row.figures is None or not row.figures.intervals:
        return None
    return getattr(row.figures, attr)


def _p95(row: RangeRow) -> float | None:
    if row.storm is None or not row.storm.intervals:
        return None
    return row.storm.iops_percentiles.get("p95")


def _read_share(row: RangeRow) -> float | None:
    v = _m(row, "read_share")
    return None if v is None else v * 100


VALUE: dict[str, Any] = {
    "curve": lambda r: r.label,
    "range": _range,
    "peak": lambda r: _m(r, "peak_iops"),
    "peak_at": lambda r: _m(r, "peak_t_end_s"),
    "time_to_peak": lambda r: _m(r, "time_to_peak_s"),
    "mean": lambda r: _m(r, "mean_iops"),
    "p95": _p95,
    "plateau": lambda r: _m(r, "plateau_iops"),
    "total": lambda r: _m(r, "total_ios"),
    "read_share": _read_share,
    "cap": lambda r: cap_text(r),
    "share": lambda r: r.share,
    "m_peak": lambda r: _f(r, "peak"),
    "m_peak_at": lambda r: _f(r, "peak_t_end_s"),
    "m_mean": lambda r: _f(r, "mean"),
    "m_p95": lambda r: _f(r, "p95"),
    "m_total": lambda r: _f(r, "total"),
    "m_above": lambda r: _f(r, "above_s"),
}
TIMES = ("peak_at", "m_peak_at")  # columns that hold a time of the run: shown on the chart's time axis

COLUMNS = [
    Column("curve", "Curve", "text", "The run (and VM disk for vscsiStats) of the chart's curve", False),
    Column("range", "Range (s)", "text",
           "The seconds of the run these figures cover (the run's own time axis): the reports whose midpoint "
           "lies in the visible part of the chart. Zoom the chart to see the figures of a part of the run.", False),
    Column("peak", "Peak (IOPS)", "iops", "The highest interval IOPS in the range (the first one on a tie)"),
    Column("peak_at", "Peak at (s)", "s", "End of the peak interval, in seconds of the run"),
    Column("time_to_peak", "Time to peak (s)", "s",
           "From the start of the first activity (the first of 3 consecutive intervals above 100 IOPS; the start "
           "of the range when there is none) to the end of the peak interval"),
    Column("mean", "Mean (IOPS)", "iops", "Total I/Os of the range / its length in seconds of data"),
    Column("p95", "p95 (IOPS)", "iops",
           "95th percentile of interval IOPS, weighted by interval length (the smallest value with at least 95 % "
           "of the time at or below it)"),
    Column("plateau", "Plateau (IOPS)", "iops", PLATEAU_TEXT),
    Column("total", "Total I/Os", "count", "Sum of interval IOPS × interval length"),
    Column("read_share", "Read share (%)", "pct",
           "Reads in % of reads + writes, by I/Os; plain iostat reports (no r/s, w/s) give it by kB, marked "
           "'by kB'"),
    Column("share", "Within ≤ threshold (%)", "share",
           "vscsiStats: share of I/Os completed within the latency threshold, from the latency histograms of "
           "the collections in the range. Exact, or — when I/Os lie in a bucket that straddles the threshold — "
           "lower and upper bounds plus an estimate (linear interpolation inside that bucket: an estimate, not a "
           "measurement)"),
    Column("cap", "Cap verdict", "cap",
           f"Did the cap hold? Every window of at least {DEFAULT_WINDOW_S:g} s (whole reports, sliding by one) must "
           f"average at or below the cap + {DEFAULT_TOLERANCE_PCT:g} % tolerance. 'held (cap not reached)': the "
           "load never came near the cap; 'not capped': the median interval of the range is above the cap + "
           "tolerance (the run clearly exceeds it, so no cap at this level was in force)",
           False),
]
COLUMN_KEYS = [c.key for c in COLUMNS]


def metric_columns(metric: str, m: MetricSpec) -> list[Column]:
    """The columns of a chart metric other than total IOPS: the figures of the curve drawn, in its unit."""
    u = f" ({m.unit})" if m.unit else ""
    how = ("weighted by the requests of each interval (the mean time a request took)" if m.per_request else
           "weighted by each interval's length")
    cols = [COLUMNS[0], COLUMNS[1],
            Column("m_peak", f"Peak{u}", "value", f"The highest interval value of {metric} in the range (the first "
                                                  "one on a tie)"),
            Column("m_peak_at", "Peak at (s)", "s", "End of the peak interval, on the chart's time axis"),
            Column("m_mean", f"Mean{u}", "value", f"The mean of {metric} over the range, {how}"),
            Column("m_p95", f"p95{u}", "value",
                   f"95th percentile of the interval values of {metric}, {how}: the smallest value with at least 95 % "
                   "of the weight at or below it (interval values, not single requests)")]
    if m.total is not None:
        cols.append(Column("m_total", m.total[0], "count" if m.total[1] == 1 else "value",
                           f"{m.total[0].split(' (')[0]} in the range: the sum of interval value × interval length"))
    if m.line is not None:
        level = f"{m.line[0]:g}{' ' + m.unit if m.unit else ''}"
        cols.append(Column("m_above", f"Above {level} (s)", "s",
                           f"Seconds of data with {metric} above the {m.line[1]} line at {level} (common VMware "
                           "guidance, not a law)", True))
    return cols + [c for c in COLUMNS if c.key in ("share", "cap")]


def visible_columns(rows: list[RangeRow], cap: float | None, metric: str = "IOPS (total)") -> list[Column]:
    """The columns of the chart's metric (total IOPS: the storm's figures; another metric: the figures of its curves
    in its own unit); the cap column only when a cap is set, the share column only when a vscsiStats row is there."""
    m = METRIC_SPECS.get(metric)
    every = metric_columns(metric, m) if m is not None and any(r.figures is not None for r in rows) else COLUMNS
    out = []
    for c in every:
        if c.key == "cap" and not (cap and cap > 0):
            continue
        if c.key == "share" and not any(has(r.spec.kind, LATENCY_HISTOGRAMS) for r in rows):
            continue
        out.append(c)
    return out


def share_header(threshold_ms: float) -> str:
    return f"Within ≤ {threshold_ms:g} ms (%)"


# ---- one formatter ---------------------------------------------------------------------------------
def _num(v: float | None, decimals: int = 1) -> str:
    if v is None or math.isnan(v):
        return DASH
    return f"{v:,.{decimals}f}"


def format_value(v: Any, kind: str, row: RangeRow | None = None) -> str:
    """The table's one formatter: thousands separators, one decimal for rates, seconds and percentages,
    whole I/O counts; "–" where a figure does not apply or cannot be computed."""
    if kind == "share":
        return share_text(v)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return DASH
    if kind in ("text", "cap"):
        return str(v)
    if kind == "count":
        return _num(v, 0)
    if kind == "value":
        m = METRIC_SPECS.get(row.spec.metric) if row is not None else None
        return _num(v, m.decimals if m is not None else 1)
    if kind == "pct":
        text = f"{v:,.1f} %"
        if row is not None and row.storm is not None and row.storm.read_share_basis not in (None, "I/Os"):
            text += " by kB"
        return text
    return _num(v, 1)


def _pct(v: float | None, digits: int = 1) -> str:
    """A share (0-1) in %, with more decimals when one would print 100.0 or 0.0 for a share that is not."""
    if v is None:
        return DASH
    d = digits
    while d < 6 and 0 < v < 1 and f"{v * 100:.{d}f}" in (f"{100:.{d}f}", f"{0:.{d}f}"):
        d += 1
    return f"{v * 100:,.{d}f}"


def share_text(s: Share | None) -> str:
    """``99.9 % (exact)``, or ``99.87–100.00 % (estimate 99.93 %)``: bounds that would print equal get more
    decimals (``text.pct_pair``), the estimate gets as many as the bounds."""
    if s is None or s.ios == 0:
        return DASH
    if s.exact:
        return f"{_pct(s.share)} % (exact)"
    lo, hi = s.bounds
    lo_t, hi_t = (x.replace(" %", "") for x in pct_pair(lo, hi, 1, DASH))
    digits = max(1, len(lo_t.rpartition(".")[2]) if "." in lo_t else 1)
    text = f"{lo_t}–{hi_t} %"
    est = s.share_estimate
    return text + (f" (estimate {_pct(est, digits)} %)" if est is not None else " (bounds only)")


def cap_text(row: RangeRow) -> str | None:
    """``held: worst 10 s window 203.0 IOPS ≤ 210.0`` and the like; None: no cap check."""
    c = row.cap
    if c is None:
        return None
    u = c.unit
    w = c.window_s
    if c.verdict == "too short":
        return f"too short: no {w:g} s window of reports in the range"
    ww = c.worst_window or {}
    avg = ww.get("average")
    if c.verdict == "held":
        return f"held: worst {w:g} s window {_num(avg)} {u} ≤ {_num(c.limit)}"
    if c.verdict == "held (cap not reached)":
        return (f"held (cap not reached): worst {w:g} s window {_num(avg)} {u} < "
                f"{_num(c.cap * (1 - c.tolerance_pct / 100))}")
    if c.verdict == "NOT held":
        return (f"NOT held: worst {w:g} s window {_num(avg)} {u} > {_num(c.limit)} "
                f"({c.windows_over} of {c.windows_judged} windows over)")
    if c.verdict == "not capped":
        return f"not capped: median interval {_num(c.plateau)} {u} > {_num(c.limit)}"
    return c.verdict


def cell_text(row: RangeRow, col: Column, base: TimeBase | None = None) -> str:
    if row.error and col.key not in ("curve",):
        return DASH
    if col.key == "cap":
        t = cap_text(row)
        return DASH if t is None else t
    if col.key == "range":
        return _range(row, base)
    if col.key in TIMES:
        v = col.value(row)
        return DASH if v is None else (base or TimeBase()).text(chart_time(row, v))
    return format_value(col.value(row), col.kind, row)


# ---- A/B ---------------------------------------------------------------------------------------------
def numeric(row: RangeRow, col: Column) -> float | None:
    """The number behind a cell (share: the exact share in %, None when only bounds are known)."""
    if not col.delta or row.error:
        return None
    v = col.value(row)
    if col.kind == "share":
        sv = share_value(v)
        return None if sv is None else sv * 100
    return None if v is None else float(v)


def delta_cells(a: RangeRow, b: RangeRow, cols: list[Column]) -> tuple[list[float | None], list[float | None]]:
    """``B − A`` and ``B / A`` per column (None where a side is missing, or A is 0 for the ratio)."""
    d: list[float | None] = []
    r: list[float | None] = []
    basis = [None if x.storm is None else x.storm.read_share_basis for x in (a, b)]
    for c in cols:
        va, vb = numeric(a, c), numeric(b, c)
        if c.key == "read_share" and basis[0] != basis[1]:
            va = vb = None  # by I/Os against by kB: not comparable
        if va is None or vb is None:
            d.append(None)
            r.append(None)
            continue
        d.append(vb - va)
        r.append(vb / va if va else None)
    return d, r


def format_delta(v: float | None, col: Column) -> str:
    if v is None:
        return DASH
    if col.kind in ("pct", "share"):
        return f"{v:+,.1f} pp"
    if col.kind == "count":
        return f"{v:+,.0f}"
    if col.kind == "value":  # a metric's own unit: times in ms differ in the second decimal
        return f"{v:+,.2f}"
    return f"{v:+,.1f}"


def format_ratio(v: float | None) -> str:
    return DASH if v is None else f"×{v:,.3f}"


# ---- export (TSV for Excel, CSV) ---------------------------------------------------------------------
def _share_cells(s: Any) -> list[str]:
    """A share's four export cells (exact, lower, upper, estimate, in %); empty where there were no I/Os."""
    if s is None or s.ios == 0:
        return ["", "", "", ""]
    lo, hi = s.bounds
    est = s.share_estimate
    return [_raw(None if v is None else v * 100) for v in (s.share, lo, hi, est)]


def _raw(v: float | None) -> str:
    """Unformatted numbers for a spreadsheet: no thousands separator, up to 10 significant digits."""
    if v is None or math.isnan(v) or math.isinf(v):
        return ""
    return f"{v:.10g}"


def export_header(cols: list[Column], threshold_ms: float | None = None) -> list[str]:
    out = []
    for c in cols:
        if c.key == "curve":
            out += ["Curve", "Run", "VM disk / device", "From (s of the run)", "To (s of the run)"]
        elif c.key == "range":
            continue
        elif c.key in TIMES:
            out.append("Peak at (s of the run)")
        elif c.key == "read_share":
            out += [c.header, "Read share basis"]
        elif c.key == "share":
            h = share_header(threshold_ms or DEFAULT_THRESHOLD_MS)
            out += [f"{h} exact", f"{h} lower bound", f"{h} upper bound", f"{h} estimate"]
        else:
            out.append(c.header)
    return out


def export_cells(row: RangeRow, cols: list[Column]) -> list[str]:
    st = row.storm if row.storm is not None and row.storm.intervals else None
    span = _span(row)
    out: list[str] = []
    for c in cols:
        if c.key == "curve":
            whole = "whole disks" if has(row.spec.kind, DEVICE_RATES) else ""
            out += [row.label, row.run_name, row.spec.device or whole,
                    _raw(span[0] if span else None), _raw(span[1] if span else None)]
        elif c.key == "range":
            continue
        elif c.key == "cap":
            out.append(cap_text(row) or row.cap_note or "")
        elif c.key == "read_share":
            out += [_raw(None if row.error else c.value(row)),
                    "" if st is None or st.read_share_basis is None else
                    ("I/Os" if st.read_share_basis == "I/Os" else "kB")]
        elif c.key == "share":
            out += _share_cells(None if row.error else row.share)
        else:
            out.append(_raw(None if row.error else c.value(row)))
    return out


def export_delta(label: str, values: list[float | None], cols: list[Column]) -> list[str]:
    out: list[str] = []
    for c, v in zip(cols, values):
        if c.key == "curve":
            out += [label, "", "", "", ""]
        elif c.key == "range":
            continue
        elif c.key == "read_share":
            out += [_raw(v), ""]
        elif c.key == "share":
            out += [_raw(v), "", "", ""]
        else:
            out.append(_raw(v))
    return out


def export_table(rows: list[RangeRow], cols: list[Column], threshold_ms: float | None = None,
                 per_collection: bool = False) -> list[list[str]]:
    """Header and the table's lines for TSV/CSV: numbers unformatted (no thousands separator, percentages
    as numbers of %), empty where a figure does not apply; a share with bounds in four columns (exact,
    lower, upper, estimate); with two curves the ``B − A`` and ``B / A`` lines."""
    return [export_header(cols, threshold_ms)] + [ln.export for ln in table_lines(rows, cols, per_collection)]


def to_tsv(table: list[list[str]]) -> str:
    return "\n".join("\t".join(c.replace("\t", " ").replace("\n", " ") for c in row) for row in table) + "\n"


def method_text() -> dict[str, str]:
    """The definitions behind the columns (shared with the storm analysis)."""
    return {**METRIC_TEXT, "plateau": PLATEAU_TEXT}


def chart_time(row: RangeRow, run_t: float | None) -> float | None:
    """Where a time of the run is on the chart's time axis (alignment, 0–1 time and manual shift applied)."""
    sp = row.spec
    return None if run_t is None else (run_t - sp.align_offset_s) / (sp.time_scale or 1.0) + sp.offset


def finite(v: float | None) -> bool:
    return v is not None and bool(np.isfinite(v))


# ---- the lines of the table (display and export together) -------------------------------------------
@dataclass
class Line:
    """One line of the table: what it shows, what it exports, and its tooltips."""

    kind: str  # curve | delta | ratio | collection
    display: list[str]
    export: list[str]
    tooltips: list[str] = field(default_factory=list)
    colour: str | None = None
    row: RangeRow | None = None


def _curve_tooltips(row: RangeRow, cols: list[Column], base: TimeBase | None = None) -> list[str]:
    base = base or TimeBase()
    tips = []
    st = row.storm if row.storm is not None and row.storm.intervals else None
    fig = row.figures if row.figures is not None and row.figures.intervals else None
    span = _span(row)
    for c in cols:
        tip = ""
        if c.key == "curve":
            tip = row.label + (f"\n{row.error}" if row.error else "")
            if row.notes:
                tip += "\n" + "\n".join(f"• {n}" for n in row.notes)
        elif row.error:
            tip = row.error
        elif c.key == "range" and span is not None:
            n, secs = (st.intervals, st.duration_s) if st is not None else (fig.intervals, fig.duration_s) \
                if fig is not None else (0, 0.0)
            tip = (f"{n:,} intervals, {_num(secs)} s of data: the reports whose midpoint lies in the visible part of "
                   f"the chart; {_num(span[0])}–{_num(span[1])} s of the run")
        elif c.key in TIMES and (st or fig) is not None:
            a, b = (st.peak_t_start_s, st.peak_t_end_s) if st is not None else (fig.peak_t_start_s, fig.peak_t_end_s) \
                if fig is not None else (None, None)
            if a is not None:
                tip = (f"the peak interval ends at {base.text(chart_time(row, b))} on the chart's time axis; it is "
                       f"{_num(a)}–{_num(b)} s of the run")
        elif c.key == "time_to_peak" and st is not None:
            tip = (f"from the first activity at {_num(st.activity_start_s)} s of the run"
                   if st.activity_start_s is not None
                   else "no 3 consecutive intervals above 100 IOPS: from the start of the range")
        elif c.key == "plateau" and st is not None and st.plateau_floor_iops is not None:
            tip = f"median of the intervals above {_num(st.plateau_floor_iops)} IOPS (50 % of the peak)"
        elif c.key == "read_share" and st is not None and st.read_share_basis not in (None, "I/Os"):
            tip = "by kB: plain iostat reports have no r/s and w/s, so the share is of kB read and written"
        elif c.key == "m_above" and fig is not None and fig.above_intervals is not None:
            tip = f"{fig.above_intervals:,} of {fig.intervals:,} intervals above the line"
        elif c.key == "cap":
            tip = row.cap.explanation if row.cap is not None else (row.cap_note or "")
        elif c.key == "share":
            tip = share_tooltip(row)
        tips.append(tip)
    return tips


def share_tooltip(row: RangeRow) -> str:
    if not has(row.spec.kind, LATENCY_HISTOGRAMS):
        return "iostat has no latency histogram: the share within a threshold needs vscsiStats (or fio json+)"
    s = row.share
    if s is None:
        return "no latency histogram in the range"
    out = [f"{s.ios:,} I/Os; {s.method('ms', 1000)}"]
    if row.collections:
        out.append("per collection (seconds of the run):")
        for c in row.collections:
            out.append(f"  {_num(c['t_start_s'])}–{_num(c['t_end_s'])} s: {share_text(c['share'])}, "
                       f"{_num(c['iops'])} IOPS")
    return "\n".join(out)


def _collection_line(row: RangeRow, coll: dict[str, Any], cols: list[Column], base: TimeBase | None = None
                     ) -> Line:
    base = base or TimeBase()
    a, b = (base.text(chart_time(row, coll[k])) for k in ("t_start_s", "t_end_s"))
    unit = " s" if base.unit == "s" else ""
    disp, exp = [], []
    for c in cols:
        if c.key == "curve":
            disp.append(f"    collection {a}–{b}{unit}")
            exp += [f"{row.label} · collection {coll['t_start_s']:g}-{coll['t_end_s']:g} s", row.run_name,
                    row.spec.device or "", _raw(coll["t_start_s"]), _raw(coll["t_end_s"])]
        elif c.key == "range":
            disp.append(f"{a}–{b}")
        elif c.key == "mean":
            disp.append(format_value(coll["iops"], "iops"))
            exp.append(_raw(coll["iops"]))
        elif c.key == "share":
            s = coll["share"]
            disp.append(share_text(s))
            exp += _share_cells(s)
        elif c.key == "read_share":
            disp.append(DASH)
            exp += ["", ""]
        else:
            disp.append(DASH)
            exp.append("")
    return Line("collection", disp, exp, [""] * len(cols), None, row)


def table_lines(rows: list[RangeRow], cols: list[Column], per_collection: bool = False,
                base: TimeBase | None = None) -> list[Line]:
    """The table's lines: a line per curve (with its collections under it when ``per_collection``), and
    ``B − A`` / ``B / A`` when there are exactly two curves, the curves then named A and B on screen. Times are
    shown in the chart's time ``base``; exported, they are seconds of the run (said in the header)."""
    out: list[Line] = []
    ab = len(rows) == 2
    for k, r in enumerate(rows):
        disp = [cell_text(r, c, base) for c in cols]
        if r.error:
            i = next((k for k, c in enumerate(cols) if c.key == "range"), None)
            if i is not None:
                disp[i] = r.error
        if ab and cols and cols[0].key == "curve":
            disp[0] = f"{'AB'[k]}: {disp[0]}"  # which one is A in "B − A"
        out.append(Line("curve", disp, export_cells(r, cols), _curve_tooltips(r, cols, base), r.spec.colour, r))
        if per_collection:
            out += [_collection_line(r, coll, cols, base) for coll in r.collections]
    if ab:
        d, q = delta_cells(rows[0], rows[1], cols)
        a, b = rows[0].label, rows[1].label
        tip = f"A = {a}\nB = {b}\npp = percentage points"
        dd = ["B − A" if c.key == "curve" else "" if c.key in ("range", *TIMES) else
              (DASH if c.key == "cap" else format_delta(v, c)) for c, v in zip(cols, d)]
        qq = ["B / A" if c.key == "curve" else "" if c.key in ("range", *TIMES) else
              (DASH if c.key == "cap" else format_ratio(v)) for c, v in zip(cols, q)]
        out.append(Line("delta", dd, export_delta("B − A", d, cols), [tip] * len(cols)))
        out.append(Line("ratio", qq, export_delta("B / A", q, cols), [tip] * len(cols)))
    return out


def headers(cols: list[Column], threshold_ms: float, base: TimeBase | None = None) -> list[str]:
    """The columns' headers; the times say the chart's time base: (s), (clock) or (0–1)."""
    unit = (base or TimeBase()).unit
    out = []
    for c in cols:
        h = share_header(threshold_ms) if c.key == "share" else c.header
        if c.key in ("range", *TIMES):
            h = h.replace("(s)", f"({unit})")
        out.append(h)
    return out
