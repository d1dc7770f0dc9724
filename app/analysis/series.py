"""A run's IOPS and throughput series: device selection, resampling, alignment (no Qt).

Time axis
    Every series is on one axis: **seconds since the start of the run's first analysed interval**.
    An iostat report printed at ``t_s`` covers the ``interval_s`` seconds before it, so report *k*
    covers ``(t_end - dt, t_end]``; for ``iostat -y 1`` report *n* covers seconds [n-1, n]. Phases
    and markers stored in the workspace use the same axis.

IOPS
    ``-x`` reports: r/s + w/s + d/s + f/s (the columns the file has; requests after merging).
    Plain reports: ``tps`` (reads + writes + discards). Never both for one row.

Devices
    By default the total is taken over **whole disks** only, so that no I/O is counted twice:
    partitions (``sda1`` when ``sda`` is in the run, ``nvme0n1p1``, ``…-part1``), device-mapper /
    md / loop devices stacked on the disks, and ``-g`` group summary rows are left out. The choice
    is always reported (:class:`DeviceChoice`) and can be overridden with explicit names.

Since-boot reports (iostat's first report without ``-y``) are never part of a series.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from app.analysis.histograms import AnalysisError
from app.errors import Note
from app.run import Run
from app.series_sums import (  # noqa: F401 (re-exported: the device rules and figures are the series')
    ALL_FIGURES,
    DEFAULT_OPS,
    FIGURES,
    LAYER_NAMES,
    LAYERS,
    NO_RULES,
    DeviceChoice,
    DeviceRules,
    current,
    default_choice,
    device_rules,
    find_gaps,
    gap_reports,
    partition_parent,
    per_report_sql,
    ranges,
    stored_devices,
    sums_select,
)
from parsers.kinds import DEVICE_RATES, IOSTAT, has, kind_label

if TYPE_CHECKING:
    from app.workspace import Workspace

__all__ = ["AnalysisError", "DeviceChoice", "Series", "activity_start", "align", "classify_devices", "clock_reference",
           "device_names", "list_devices", "load_series", "make_series", "normalise_time", "resample", "run_series",
           "runs_on_one_axis", "series_memo", "utc_offset_s", "weighted_percentile", "weighted_percentiles"]

SINCE_BOOT_NOTE = "since-boot reports (iostat's first report without -y) are left out"
DEFAULT_ACTIVITY_IOPS = 100.0
DEFAULT_ACTIVITY_INTERVALS = 3

# columns of the series frame; rates are per second over the report's interval
SERIES_COLUMNS = ["sample_idx", "t_start_s", "t_end_s", "dt_s", "iops", "read_iops", "write_iops", "other_iops",
                  "kbs", "read_kbs", "write_kbs", "await_ms", "ios"]
FIGURE_OF_COLUMN = {c: f for f, (cols, _) in FIGURES.items() for c in cols}


# ---- devices ------------------------------------------------------------------------------------
def classify_devices(devices: list[tuple[str, bool]] | list[tuple[str, bool, str | None]],
                     requested: str | None = None, rules: DeviceRules = NO_RULES) -> DeviceChoice:
    """Pick the devices to sum from ``(name, is_group)`` or ``(name, is_group, layer)`` tuples.

    ``requested``: None (or ``"disks"``) = whole disks; otherwise comma-separated exact device names. Where the
    rows carry a ``layer`` (the format says what each device is), the default is its physical disks; otherwise
    the name rules of iostat apply (partitions, stacked dm/md/loop devices, ``-g`` groups).
    """
    if not requested or requested == "disks":
        return default_choice(devices, requested, rules)
    names = sorted({d[0] for d in devices})
    name_set = set(names)
    want = [d.strip() for d in requested.split(",") if d.strip()]
    missing = [d for d in want if d not in name_set]
    if missing:
        raise AnalysisError(f"no device {', '.join(repr(m[:MAX_NAME_SHOWN]) for m in missing[:10])} in this "
                            f"run; devices: {_some(names)}")
    want_set = set(want)
    excluded: dict[str, str] = {n: "not requested" for n in names if n not in want_set}
    return DeviceChoice(requested, want, excluded, Note("the devices asked for ({fix})", "device_choice"))


MAX_NAME_SHOWN = 60  # characters of a device name an error message quotes


def _some(names: list[str], n: int = 20) -> str:
    """The first ``n`` device names for an error message, and how many more (a run may have 100 k)."""
    shown = ", ".join(x[:MAX_NAME_SHOWN] for x in names[:n])
    return (shown + (f" and {len(names) - n:,} more" if len(names) > n else "")) or "none"


def list_devices(ws: Workspace, run_id: int) -> DeviceChoice:
    """The default device choice for a run (what is used, what is left out and why)."""
    _iostat_run(ws, run_id)
    rows = ws.con.execute("SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ?",
                          [run_id]).fetchall()
    return classify_devices([(d, bool(g), la) for d, g, la in rows], rules=device_rules(ws.con, run_id))


def device_names(ws: Workspace, run_ids: list[int]) -> list[str]:
    """The device names of the runs' samples, sorted (the overlay's device picker): read from the devices stored at
    import (``series_devices``: one row per device) where the runs have them, else from their rows."""
    from app.workspace import has_table

    names: set[str] = set()
    rest = list(run_ids)
    if rest and has_table(ws, "series_devices"):
        stored = ws.con.execute("SELECT run_id, list(DISTINCT device) FROM series_devices "
                                "WHERE list_contains(?, run_id) GROUP BY run_id", [rest]).fetchall()
        for _rid, devices in stored:
            names.update(devices)
        done = {rid for rid, _d in stored}
        rest = [r for r in rest if r not in done]
    if rest:
        names.update(d for (d,) in ws.con.execute("SELECT DISTINCT device FROM iostat_samples WHERE "
                                                  "list_contains(?, run_id)", [rest]).fetchall())
    return sorted(names)


def _iostat_run(ws: Workspace, run_id: int) -> Run:
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if not has(run.kind, DEVICE_RATES):
        raise AnalysisError(f"run {run_id} is a {run.kind} run: series, storm and cap analyses need iostat reports")
    return run


# ---- the series ---------------------------------------------------------------------------------
@dataclass
class Series:
    """One run's per-interval IOPS and throughput, summed over ``devices``.

    ``frame`` columns: see ``SERIES_COLUMNS``; ``t_*`` are on the run's time axis shifted by
    ``offset_s`` (alignment). ``read_iops``/``write_iops`` are None for plain reports (no r/s, w/s).
    """

    run_id: int
    run_name: str
    frame: pl.DataFrame
    devices: DeviceChoice
    interval_s: float
    iops_formula: str
    since_boot_excluded: list[int] = field(default_factory=list)  # sample_idx left out
    offset_s: float = 0.0
    align: dict[str, Any] = field(default_factory=lambda: {"mode": "start", "offset_s": 0.0})
    every_s: float | None = None  # resampled to this grid
    notes: list[str] = field(default_factory=list)
    clock0_utc: datetime | None = None  # wall clock at t = 0 (before alignment); UTC when the file gives its zone
    zone_known: bool = False  # the file gives its time zone (clock0_utc is UTC, not the clock as printed)
    clock_offset_s: float = 0.0  # the run's stored clock offset (app.store.clock), already added to clock0_utc
    clock_note: str = ""  # what the offset is, in words ("" without one)
    clock_placed: bool = False  # no time stamps of its own: clock0_utc = its reference run's + clock_offset_s
    figures: frozenset[str] = ALL_FIGURES  # the figures loaded (load_series(figures=...)); the others' columns empty
    gaps: dict[str, list[int]] = field(default_factory=dict)  # device -> reports (sample_idx) it is missing from

    @property
    def gap_count(self) -> int:
        """How many of the series' reports are a gap (a summed device missing): their figures are NULL."""
        return len(gap_reports(self.gaps))

    def _loaded(self, column: str) -> None:
        figure = FIGURE_OF_COLUMN.get(column)
        if figure is not None and figure not in self.figures:  # an empty column must never pass for a figure
            raise ValueError(f"the series of run {self.run_id} was loaded without its {figure} figures ({column})")

    @property
    def has_read_write(self) -> bool:
        self._loaded("read_iops")
        return self.frame.height > 0 and self.frame.get_column("read_iops").null_count() < self.frame.height

    def col(self, name: str) -> np.ndarray:
        self._loaded(name)
        return self.frame.get_column(name).cast(pl.Float64).to_numpy()

    def method(self) -> dict[str, Any]:
        m = {
            "iops": self.iops_formula,
            "time_axis": "seconds since the start of the run's first analysed interval; a report covers "
                         "the interval before its time stamp",
            "interval_s": self.interval_s,
            "devices": self.devices.as_dict(),
            "since_boot_excluded": self.since_boot_excluded,
            "since_boot": SINCE_BOOT_NOTE,
            "align": self.align,
            "resample_s": self.every_s,
            "gaps": {d: [[a + 1, b + 1] for a, b in ranges(v)] for d, v in self.gaps.items()},
        }
        if self.every_s:
            m["resample"] = (f"{self.every_s:g} s bins; each report's rate is spread evenly over its interval and "
                             "each bin is the time-weighted mean of the reports overlapping it (await weighted by "
                             "I/Os); 'coverage' is the share of the bin with data")
        return m

    def as_dict(self, points: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"run_id": self.run_id, "run_name": self.run_name, "method": self.method(),
                               "notes": self.notes}
        if points:
            out["points"] = self.frame.to_dicts()
        return out

    def gap_mask(self) -> np.ndarray:
        """Per row of the frame: a gap report (a summed device missing: every figure NULL, :attr:`gaps`). A
        resampled series has none (:func:`resample` leaves gap reports out: a bin's ``coverage`` says so)."""
        if not self.gaps or self.every_s or self.frame.height == 0:
            return np.zeros(self.frame.height, dtype=bool)
        return np.isin(self.frame.get_column("sample_idx").to_numpy(), gap_reports(self.gaps))

    def duration_s(self) -> float:
        """The seconds with data: every report's length, gap reports left out (missing is not idle time)."""
        if not self.frame.height:
            return 0.0
        return float(self.frame.get_column("dt_s").to_numpy()[~self.gap_mask()].sum())

    def gap_words(self) -> str:
        """"N reports missing (a disk absent from them)" for a figure's caption; "" without a gap."""
        n = int(self.gap_mask().sum()) if not self.every_s else self.gap_count
        return f"{n} report{'s' if n != 1 else ''} missing (a disk absent from them: a gap, not 0)" if n else ""

    def window(self, t_start: float, t_end: float) -> Series:
        """The reports whose midpoint lies in [t_start, t_end)."""
        mid = (pl.col("t_start_s") + pl.col("t_end_s")) / 2
        return replace(self, frame=self.frame.filter((mid >= t_start) & (mid < t_end)))


def _sample_spans(df: pl.DataFrame, run: Run, interval: float) -> pl.DataFrame | None:
    """Each report's length in seconds when the format's rates cover the time since the previous sample
    (``runs.meta.sample_span``: perfmon, esxtop, nmon): the gap to the previous report's time; the first report
    covers ``first_snapshot_covers_s`` where the file says so, else the interval. None: every report covers the
    interval (iostat: it sleeps the interval; its stamps are rounded to the second, their gaps would add jitter)."""
    if run.meta.text("sample_span") != "since_previous":
        return None
    t = df.select("sample_idx", "t_s").unique("sample_idx").sort("sample_idx")
    first = run.meta.number("first_snapshot_covers_s")
    first_dt = first if first is not None and first > 0 else interval
    return t.select("sample_idx", pl.col("t_s").diff().fill_null(first_dt).alias("dt"))



def _sum_devices(g: pl.DataFrame, interval: float, spans: pl.DataFrame | None = None) -> pl.DataFrame:
    """The series frame from the per-report sums (:func:`app.series_sums.per_report_sql`) and each report's length."""
    g = g.with_columns(pl.lit(interval).alias("dt")) if spans is None else \
        g.join(spans, on="sample_idx", how="left").with_columns(pl.col("dt").fill_null(interval))
    return g.select(
        pl.col("sample_idx").cast(pl.Int64),
        (pl.col("t_s") - pl.col("dt")).alias("t_start_s"), pl.col("t_s").alias("t_end_s"),
        pl.col("dt").alias("dt_s"),
        # a report without request figures (a bandwidth-only log) has no IOPS, not 0 IOPS
        pl.when(pl.col("any_x") | pl.col("any_p")).then("iops").alias("iops"),
        pl.when("have_rw").then("rd").alias("read_iops"), pl.when("have_rw").then("wr").alias("write_iops"),
        pl.when("have_rw").then("oth").alias("other_iops"),
        # read and written kB only where the file splits them (sar -d of Solaris, iostat -s: a total only)
        pl.when("kba").then("kb").alias("kbs"), pl.when("rwa").then("rkb").alias("read_kbs"),
        pl.when("rwa").then("wkb").alias("write_kbs"),
        pl.when(pl.col("awa") & (pl.col("awd") != 0)).then(pl.col("awn") / pl.col("awd"))
        # no request counts to weight by (an averaged latency log): the plain mean of the awaits it has
        .when(~(pl.col("any_x") | pl.col("any_p")) & (pl.col("aw_n") > 0)).then(pl.col("aw_sum") / pl.col("aw_n"))
        .alias("await_ms"),
        pl.when(pl.col("any_x") | pl.col("any_p")).then(pl.col("iops") * pl.col("dt")).alias("ios"),
    ).with_columns(pl.exclude("sample_idx").cast(pl.Float64))


@dataclass
class _Sums:
    """What a series is made from: the device choice, the since-boot reports left out, the per-report sums
    (:func:`app.series_sums.per_report_sql`) and the clock time printed with a report (its rows of the chosen
    devices)."""

    choice: DeviceChoice
    boot: list[int]
    g: pl.DataFrame
    clock: Callable[[int], datetime | None]
    gaps: dict[str, list[int]] = field(default_factory=dict)


def _live_sums(ws: Workspace, run_id: int, device: str | None, ops: tuple[str, ...], wanted: frozenset[str]
               ) -> _Sums:
    """The sums from the run's rows: any device choice and ops (seconds for a 10 M-row run)."""
    devices = ws.con.execute("SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ?",
                             [run_id]).fetchall()
    choice = classify_devices([(d, bool(g), la) for d, g, la in devices], device, device_rules(ws.con, run_id))
    if not choice.used:
        raise AnalysisError(f"run {run_id} has no device rows")
    boot = [r[0] for r in ws.con.execute("SELECT DISTINCT sample_idx FROM iostat_samples WHERE run_id = ? AND "
                                         "since_boot ORDER BY 1", [run_id]).fetchall()]
    every_device = set(choice.used) == {d for d, _g, _la in devices}
    gaps = find_gaps(ws.con, run_id, None if every_device else choice.used)
    import duckdb

    try:
        g = ws.query(per_report_sql(ops, wanted, every_device, gap_reports(gaps)),
                     [run_id] if every_device else [run_id, choice.used])
    except duckdb.ConversionException as e:  # the exact sums cast to DECIMAL: an infinite value cannot be summed
        named = _not_finite(ws, run_id)
        if named is None:
            raise
        raise named from e

    def clock(sample_idx: int) -> datetime | None:  # read on its own: the sums need not read every row's stamp
        sql = "SELECT min(ts) FROM iostat_samples WHERE run_id = ? AND sample_idx = ? AND NOT since_boot"
        params: list[Any] = [run_id, sample_idx]
        if not every_device:
            sql += " AND list_contains(?, device)"
            params.append(choice.used)
        found: datetime | None = ws.con.execute(sql, params).fetchall()[0][0]
        return found

    return _Sums(choice, boot, g, clock, gaps)


def _not_finite(ws: Workspace, run_id: int) -> AnalysisError | None:
    """The error naming the first report and device of a run that holds an infinite or not-a-number figure (a
    workspace edited by another program: the import stores none); None when the run holds none."""
    cols = [c for (c,) in ws.con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = "
                                         "'iostat_samples' AND data_type IN ('DOUBLE', 'FLOAT')").fetchall()]
    if not cols:
        return None
    bad = " OR ".join(f'NOT isfinite("{c}")' for c in cols)
    row = ws.con.execute(f"SELECT sample_idx, device FROM iostat_samples WHERE run_id = ? AND ({bad}) "
                         "ORDER BY sample_idx, device LIMIT 1", [run_id]).fetchone()
    if row is None:
        return None
    return AnalysisError(f"run {run_id} holds a figure that is not a finite number (report {int(row[0]) + 1}, "
                         f"device {row[1]}): its rates cannot be summed")


def _stored_sums(ws: Workspace, run_id: int, device: str | None, ops: tuple[str, ...], wanted: frozenset[str]
                 ) -> _Sums | None:
    """The sums stored at import (app.series_sums: about one row per report instead of every row), when they were
    made for this device choice, these ops and this version of the sums; None: use :func:`_live_sums`."""
    from app.workspace import has_table

    if tuple(ops) != DEFAULT_OPS or not has_table(ws, "series_sums"):  # a read-only older workspace lacks it
        return None
    stored = stored_devices(ws.con, run_id)
    if stored is None:
        return None
    choice = classify_devices([(d, g, la) for d, g, la, _s in stored], device, device_rules(ws.con, run_id))
    if not choice.used:
        raise AnalysisError(f"run {run_id} has no device rows")
    if set(choice.used) != {d for d, _g, _la, s in stored if s} or not current(ws.con, run_id):
        return None
    boot = [r[0] for r in ws.con.execute("SELECT DISTINCT sample_idx FROM series_sums WHERE run_id = ? AND "
                                         "since_boot ORDER BY 1", [run_id]).fetchall()]
    g = ws.query(f"SELECT sample_idx, t_s, t_missing, {sums_select(wanted, stored=True)} FROM series_sums "
                 "WHERE run_id = ? AND NOT since_boot ORDER BY sample_idx", [run_id])

    def clock(sample_idx: int) -> datetime | None:
        found: datetime | None = ws.con.execute("SELECT ts FROM series_sums WHERE run_id = ? AND sample_idx = ? AND "
                                                "NOT since_boot", [run_id, sample_idx]).fetchall()[0][0]
        return found

    # a gap report's stored sums are NULL (a report's flags are never NULL otherwise): the rows are read for the
    # missing devices' names only when the run has one
    holes = g.filter(pl.col("any_x").is_null()).height
    every_device = all(s for *_x, s in stored)
    gaps = find_gaps(ws.con, run_id, None if every_device else choice.used) if holes else {}
    return _Sums(choice, boot, g, clock, gaps)


_MEMO: ContextVar[dict[tuple[Any, ...], Series] | None] = ContextVar("series_memo", default=None)


@contextmanager
def series_memo() -> Iterator[None]:
    """Within it, :func:`load_series` loads each (run, devices, ops, figures) once (in this thread): a report asks
    for the same run's series in several sections and analyses (storm, cap, sizing ...), and nothing writes the
    workspace while it is built. Each caller gets its own copy of the lists it might extend."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def load_series(ws: Workspace, run_id: int, device: str | None = None, ops: tuple[str, ...] = ("r", "w", "d", "f"),
                figures: frozenset[str] | set[str] | None = None) -> Series:
    """The run's series over the chosen devices (default: whole disks), since-boot reports excluded.

    ``ops``: the -x request columns counted as IOPS (default r, w, d, f = every request the device saw).
    ``figures``: only these of :data:`FIGURES` (IOPS always), for a view that draws one figure first (the overlay):
    the others' columns stay empty and :meth:`Series.col` refuses them. Default: every figure.
    """
    wanted = ALL_FIGURES if figures is None else frozenset(figures) | {"iops"}
    if not wanted <= ALL_FIGURES:
        raise ValueError(f"unknown series figures: {', '.join(sorted(wanted - ALL_FIGURES))}")
    memo = _MEMO.get()
    if memo is None:
        return _load_series(ws, run_id, device, ops, wanted)
    key = (id(ws.con), run_id, device, tuple(ops), wanted)
    if key not in memo:
        memo[key] = _load_series(ws, run_id, device, ops, wanted)
    s = memo[key]
    return replace(s, notes=list(s.notes), since_boot_excluded=list(s.since_boot_excluded),
                   devices=replace(s.devices, used=list(s.devices.used), excluded=dict(s.devices.excluded)))


def _load_series(ws: Workspace, run_id: int, device: str | None, ops: tuple[str, ...], wanted: frozenset[str]
                 ) -> Series:
    run = _iostat_run(ws, run_id)
    sums = _stored_sums(ws, run_id, device, ops, wanted) or _live_sums(ws, run_id, device, ops, wanted)
    choice, boot, g = sums.choice, sums.boot, sums.g
    notes: list[str] = []
    if g.height == 0:
        raise AnalysisError(f"run {run_id} has no interval report (only the since-boot report)")
    if g.get_column("t_missing").any():
        raise AnalysisError(f"run {run_id} has no report times (its log has no time stamps): set the interval with "
                            "{fix} (the 5 of 'iostat 5')", "set_interval", run_id=run_id)
    interval = run.interval_s
    ts = g.get_column("t_s").unique().sort().to_numpy()
    if not interval:
        diffs = np.diff(ts)
        if not len(diffs):
            raise AnalysisError(f"run {run_id}: one report and no known interval")
        interval = float(np.median(diffs))
        notes.append(f"interval not stored: taken as the median gap between reports ({interval:g} s)")
    interval = float(interval)

    spans = _sample_spans(g, run, interval)
    frame = _sum_devices(g, interval, spans)
    used_x, used_tps = bool(g.get_column("any_x").any()), bool(g.get_column("any_p").any())
    if spans is not None:
        notes.append("each sample covers the time since the previous one (from the time stamps)")
    t0 = float(frame.get_column("t_start_s").min())  # type: ignore[arg-type]  # a number: the frame has reports
    frame = frame.with_columns(pl.col("t_start_s") - t0, pl.col("t_end_s") - t0)
    formula = []
    sysstat = run.kind == IOSTAT and run.format in ("iostat-text", "iostat-json")  # sysstat's columns
    if used_x and sysstat:
        names = {"r": "r/s", "w": "w/s", "d": "d/s", "f": "f/s"}
        formula.append(" + ".join(names[o] for o in ops) + " (-x reports; columns the file lacks count 0)")
    elif used_x:
        formula.append(f"reads + writes per second as {kind_label(run.kind)} reports them")
    if used_tps:
        formula.append("tps (plain reports: reads + writes + discards)" if sysstat else
                       f"transfers per second as {kind_label(run.kind)} reports them (no read/write split)")
    if used_x and used_tps:
        notes.append("the run mixes extended and plain reports")
    if boot:
        first = ", ".join(f"report {i + 1}" for i in boot)
        notes.append(f"the first report is taken to cover the time since boot and is left out ({first} of the file)"
                     if len(boot) == 1 else f"{len(boot)} reports are taken to cover the time since boot and are left "
                     f"out ({first} of the file)")
    if not (used_x or used_tps):
        notes.append("no request counts in this run (CPU-only, throughput-only or latency-only reports): no IOPS"
                     + ("; await is the plain mean of the values (nothing to weight them by)"
                        if "await" in wanted and g.get_column("aw_n").sum() else ""))
    analysed = set(g.get_column("sample_idx").to_list())
    gaps = {d: [i for i in v if i in analysed] for d, v in sums.gaps.items()}
    gaps = {d: v for d, v in gaps.items() if v}
    if gaps:
        notes.append(gap_note(gaps))
    first_ts = sums.clock(int(g.sort("t_s").get_column("sample_idx")[0]))
    zone = utc_offset_s(run)
    first_dt = float(frame.get_column("dt_s")[0])  # the first sample's length: the interval, or what it covers
    clock0 = None if first_ts is None else first_ts - timedelta(seconds=first_dt + (zone or 0.0))
    clock0, offset, clock_note, placed, zone_known = _on_stored_clock(ws, run_id, clock0, zone is not None)
    return Series(run_id, run.name, frame, choice, interval, "; ".join(formula) or "none", boot, notes=notes,
                  clock0_utc=clock0, zone_known=zone_known, figures=wanted, clock_offset_s=offset,
                  clock_note=clock_note, clock_placed=placed, gaps=gaps)


def gap_note(gaps: dict[str, list[int]]) -> str:
    """The series' note on its gaps: how many reports are missing and which device, where."""
    n = len(gap_reports(gaps))
    named = "; ".join(f"{d[:MAX_NAME_SHOWN]} missing from " + ", ".join(
        f"report {a + 1}" if a == b else f"reports {a + 1}–{b + 1}" for a, b in ranges(v)[:4])
        + (" …" if len(ranges(v)) > 4 else "") for d, v in sorted(gaps.items())[:5])
    more = f"; {len(gaps) - 5} more devices" if len(gaps) > 5 else ""
    return (f"gap: {n} report{'s' if n != 1 else ''} without whole-disk figures ({named}{more}): missing, not 0 "
            "IOPS; left out of every figure")


def _on_stored_clock(ws: Workspace, run_id: int, clock0: datetime | None, zone_known: bool
                     ) -> tuple[datetime | None, float, str, bool, bool]:
    """The run's clock at t = 0 with its stored offset (app.store.clock): (clock0, offset, note, placed, zone known).
    A run with time stamps has its clock corrected; one without is placed on its reference run's clock."""
    from app.store.clock import get_offset

    stored = get_offset(ws, run_id)
    if stored is None:
        return clock0, 0.0, "", False, zone_known
    if clock0 is not None:
        return (clock0 + timedelta(seconds=stored.offset_s), stored.offset_s,
                f"its clock corrected by {stored.words()}", False, zone_known)
    ref_id = stored.reference_run_id
    ref = None if ref_id is None else ws.run(ref_id)
    if ref_id is None or ref is None or ref.started_at is None:  # no reference with a clock of its own
        return None, 0.0, "", False, zone_known
    r = load_series(ws, ref_id)
    if r.clock0_utc is None:
        return None, 0.0, "", False, zone_known
    note = (f"no time stamps: placed on run {ref_id}'s clock, starting {fmt_offset(stored.offset_s)} from its "
            f"start ({stored.how(against=False)})")
    return r.clock0_utc + timedelta(seconds=stored.offset_s), stored.offset_s, note, True, r.zone_known


def fmt_offset(offset_s: float) -> str:
    from app.store.clock import fmt_offset as fmt

    return fmt(offset_s)


# ---- clock time ----------------------------------------------------------------------------------
_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2}):?(\d{2})?$")


def utc_offset_s(run: Run) -> float | None:
    """The run's clock minus UTC in seconds, when its file says (``meta.utc_offset`` "+01:00", "-0400", "+02")."""
    m = _OFFSET.match((run.meta.text("utc_offset") or "").strip())
    if not m:
        return None
    sign = -1.0 if m.group(1) == "-" else 1.0
    return sign * (int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60)


def clock_reference(series: list[Series]) -> tuple[datetime | None, dict[int, str]]:
    """The common clock of overlaid runs (the earliest t = 0 among them) and, per run, what its clock assumes.

    A run whose file gives its time zone is on UTC; a run without one is read as printed -- when other runs give
    a zone, that is said, since its clock may then be off by its zone. A run with a stored clock offset
    (app.store.clock) is on its corrected clock, and that is said too.
    """
    known = {s.run_id: s.clock0_utc for s in series if s.clock0_utc is not None}
    notes: dict[int, str] = {s.run_id: "no time stamps: aligned on its start" for s in series
                             if s.clock0_utc is None}
    with_zone = {s.run_id for s in series if s.zone_known}
    if with_zone and len(with_zone) < len(known):
        for rid in set(known) - with_zone:
            notes[rid] = "its file gives no time zone: its clock is taken as UTC"
    for s in series:  # a corrected clock is always said
        if s.clock_note and s.clock0_utc is not None:
            notes[s.run_id] = "; ".join(n for n in (notes.get(s.run_id), s.clock_note) if n)
    return (min(known.values()) if known else None), notes


def make_series(iops: list[float], dt: float | list[float] = 1.0, *, read_iops: list[float] | None = None,
                write_iops: list[float] | None = None, kbs: list[float] | None = None,
                await_ms: list[float | None] | None = None, t_start: float = 0.0, run_id: int = 0,
                name: str = "series") -> Series:
    """A series from plain lists (consecutive intervals from ``t_start``): for tests and other sources."""
    n = len(iops)
    dts = [float(dt)] * n if isinstance(dt, (int, float)) else [float(x) for x in dt]
    ends = np.cumsum(dts) + t_start
    rows = []
    for i in range(n):
        r = None if read_iops is None else read_iops[i]
        w = None if write_iops is None else write_iops[i]
        rows.append({"sample_idx": i, "t_start_s": float(ends[i] - dts[i]), "t_end_s": float(ends[i]),
                     "dt_s": dts[i], "iops": float(iops[i]), "read_iops": r, "write_iops": w,
                     "other_iops": None if r is None else float(iops[i]) - r - (w or 0.0),
                     "kbs": None if kbs is None else kbs[i], "read_kbs": None, "write_kbs": None,
                     "await_ms": None if await_ms is None else await_ms[i], "ios": float(iops[i]) * dts[i]})
    frame = pl.DataFrame(rows, schema={c: (pl.Int64 if c == "sample_idx" else pl.Float64) for c in SERIES_COLUMNS})
    choice = DeviceChoice(None, ["(given)"], {}, "series given directly")
    return Series(run_id, name, frame, choice, float(np.median(dts)) if n else 0.0, "given")


# ---- resampling ---------------------------------------------------------------------------------
def resample(s: Series, every_s: float) -> Series:
    """Time-weighted averages on a grid of ``every_s`` seconds (bins [k·S, (k+1)·S) of the series' axis).

    A report's rate is taken as constant over its interval; a bin gets the rates of the reports that
    overlap it, weighted by the overlap (await weighted by the I/Os of the overlap). Total I/Os are kept.
    Bins without data are left out; ``coverage`` says how much of a bin had data.
    """
    if every_s <= 0:
        raise AnalysisError("the resampling step must be positive")
    f = s.frame
    if f.height == 0:
        return replace(s, every_s=every_s)
    ts, te = f.get_column("t_start_s").to_numpy(), f.get_column("t_end_s").to_numpy()
    k0 = math.floor(ts.min() / every_s + 1e-9)
    k1 = math.ceil(te.max() / every_s - 1e-9)
    nb = max(1, k1 - k0)
    cov = np.zeros(nb)
    rate_cols = ["iops", "read_iops", "write_iops", "other_iops", "kbs", "read_kbs", "write_kbs"]
    acc = {c: np.zeros(nb) for c in rate_cols}
    have = {c: np.zeros(nb) for c in rate_cols}
    aw_num, aw_den = np.zeros(nb), np.zeros(nb)
    vals = {c: f.get_column(c).to_list() for c in [*rate_cols, "await_ms"]}
    gap = s.gap_mask()
    for i in range(f.height):
        if gap[i]:  # a gap report is no data: its time is not covered (a bin of gaps only is left out)
            continue
        a, b = float(ts[i]), float(te[i])
        first = max(k0, math.floor(a / every_s + 1e-9))
        last = min(k1 - 1, math.ceil(b / every_s - 1e-9) - 1)
        for k in range(first, last + 1):
            ov = min(b, (k + 1) * every_s) - max(a, k * every_s)
            if ov <= 1e-12:
                continue
            j = k - k0
            cov[j] += ov
            for c in rate_cols:
                v = vals[c][i]
                if v is not None:
                    acc[c][j] += v * ov
                    have[c][j] += ov
            aw, n = vals["await_ms"][i], vals["iops"][i]
            if aw is not None and n:
                aw_num[j] += aw * n * ov
                aw_den[j] += n * ov
    rows = []
    for j in range(nb):
        if cov[j] <= 1e-12:
            continue
        k = k0 + j
        row: dict[str, Any] = {"sample_idx": k, "t_start_s": k * every_s, "t_end_s": (k + 1) * every_s,
                               "dt_s": float(min(cov[j], every_s))}
        for c in rate_cols:
            row[c] = float(acc[c][j] / have[c][j]) if have[c][j] > 0 else None
        row["await_ms"] = float(aw_num[j] / aw_den[j]) if aw_den[j] > 0 else None
        row["ios"] = float(acc["iops"][j])
        row["coverage"] = float(min(1.0, cov[j] / every_s))
        rows.append(row)
    schema = {c: (pl.Int64 if c == "sample_idx" else pl.Float64) for c in [*SERIES_COLUMNS, "coverage"]}
    frame = pl.DataFrame(rows, schema=schema)
    notes = list(s.notes)
    notes.append(f"resampled to {every_s:g} s bins (sample_idx = bin number); rates are time-weighted means")
    return replace(s, frame=frame, every_s=every_s, notes=notes)


# ---- alignment ----------------------------------------------------------------------------------
def activity_start(s: Series, threshold_iops: float = DEFAULT_ACTIVITY_IOPS,
                   intervals: int = DEFAULT_ACTIVITY_INTERVALS) -> float | None:
    """Start of the first run of ``intervals`` consecutive intervals above ``threshold_iops`` (None: none)."""
    iops = s.col("iops")
    ts = s.col("t_start_s")
    n = max(1, int(intervals))
    run = 0
    for i, v in enumerate(iops):
        run = run + 1 if v > threshold_iops else 0
        if run >= n:
            return float(ts[i - n + 1])
    return None


def align(s: Series, mode: str = "start", *, activity_iops: float = DEFAULT_ACTIVITY_IOPS,
          activity_intervals: int = DEFAULT_ACTIVITY_INTERVALS, markers: dict[str, float] | None = None,
          normalise: bool = False) -> Series:
    """Shift the series so that a reference time becomes 0.

    ``mode``: ``start`` (the run's first analysed interval), ``activity`` (the first of
    ``activity_intervals`` consecutive intervals above ``activity_iops``), ``marker:NAME`` (a marker
    stored for the run, see ``markers``), ``offset:S`` (the run's second S becomes 0) or ``clock:ISO`` (the
    wall-clock time ISO, UTC where the file gives its zone, becomes 0: runs of one host and its guests line up;
    see :func:`clock_reference`).
    ``normalise`` adds ``t_norm`` = aligned end time / aligned end of the last report (0-1 of the
    run's length from the reference to its end).
    """
    info: dict[str, Any]
    if mode == "start":
        off, info = 0.0, {"mode": "start", "reference": "start of the first analysed interval"}
    elif mode == "activity":
        found = activity_start(s, activity_iops, activity_intervals)
        if found is None:
            raise AnalysisError(f"run {s.run_id} never has {activity_intervals} consecutive intervals above "
                                f"{activity_iops:g} IOPS: no activity to align on")
        off = found
        info = {"mode": "activity", "threshold_iops": activity_iops, "consecutive_intervals": activity_intervals,
                "reference": f"start of the first of {activity_intervals} consecutive intervals above "
                             f"{activity_iops:g} IOPS"}
    elif mode.startswith("marker:"):
        name = mode.split(":", 1)[1]
        if not markers or name not in markers:
            have = ", ".join(sorted(markers or {})) or "none"
            raise AnalysisError(f"run {s.run_id} has no marker {name!r} (markers: {have})")
        off = float(markers[name])
        info = {"mode": "marker", "marker": name, "reference": f"marker {name!r} at {off:g} s"}
    elif mode.startswith("offset:"):
        try:
            off = float(mode.split(":", 1)[1])
        except ValueError as e:
            raise AnalysisError(f"{{fix}} wants seconds, got {mode!r}", "align_offset") from e
        info = {"mode": "offset", "reference": f"the run's second {off:g}"}
    elif mode.startswith("clock:"):
        if s.clock0_utc is None:
            raise AnalysisError(f"run {s.run_id} has no time stamps: it cannot be put on the clock")
        ref = datetime.fromisoformat(mode.split(":", 1)[1])
        off = (ref - s.clock0_utc).total_seconds()
        info = {"mode": "clock", "reference": f"clock time {ref:%Y-%m-%d %H:%M:%S} UTC"}
    else:
        raise AnalysisError(f"unknown alignment {mode!r}: start, activity, marker:NAME, offset:S or clock")
    info["offset_s"] = off
    frame = s.frame.with_columns(pl.col("t_start_s") - off, pl.col("t_end_s") - off)
    out = replace(s, frame=frame, offset_s=s.offset_s + off, align=info)
    return normalise_time(out) if normalise else out


def normalise_time(s: Series) -> Series:
    """Add ``t_norm`` = end time / end of the last report: 0-1 of the run's length from t = 0 to its end."""
    f = s.frame
    end = float(f.get_column("t_end_s").max()) if f.height else 0.0  # type: ignore[arg-type]  # a number: rows
    f = f.with_columns((pl.col("t_end_s") / end if end > 0 else pl.lit(None, pl.Float64)).alias("t_norm"))
    info = {**s.align, "normalised": "t_norm = end time / end of the last report (0-1 from t = 0 to the end)"}
    return replace(s, frame=f, align=info)


def run_series(ws: Workspace, run_id: int, device: str | None = None, *, align_mode: str = "start",
               every_s: float | None = None, normalise: bool = False, activity_iops: float = DEFAULT_ACTIVITY_IOPS,
               activity_intervals: int = DEFAULT_ACTIVITY_INTERVALS) -> Series:
    """Load, align, resample (on the aligned axis, so that bins of overlaid runs line up) and normalise."""
    from app.store.phases import list_markers

    s = load_series(ws, run_id, device)
    if align_mode == "clock":  # one run on its own clock: t = 0 is its start (several runs: clock_reference)
        if s.clock0_utc is None:
            raise AnalysisError(f"run {run_id} has no time stamps: it cannot be put on the clock")
        align_mode = f"clock:{s.clock0_utc.isoformat()}"
    markers = list_markers(ws, run_id) if align_mode.startswith("marker:") else None
    s = align(s, align_mode, activity_iops=activity_iops, activity_intervals=activity_intervals, markers=markers)
    if every_s:
        s = resample(s, every_s)
    return normalise_time(s) if normalise else s


def runs_on_one_axis(ws: Workspace, run_ids: list[int], device: str | None = None, *, align_mode: str = "start",
                     every_s: float | None = None) -> list[Series]:
    """Several runs aligned alike; ``align_mode="clock"`` puts them on one clock (the earliest start among them
    is 0: a host's esxtop and its guests' perfmon line up), each run's note saying what its clock assumes."""
    if align_mode != "clock":
        return [run_series(ws, rid, device, align_mode=align_mode, every_s=every_s) for rid in run_ids]
    loaded = [load_series(ws, rid, device) for rid in run_ids]
    ref, notes = clock_reference(loaded)
    out = []
    for s in loaded:
        s = align(s, f"clock:{ref.isoformat()}") if ref is not None and s.clock0_utc is not None else s
        if s.run_id in notes:
            s = replace(s, notes=[*s.notes, notes[s.run_id]])
        out.append(resample(s, every_s) if every_s else s)
    return out


# ---- statistics ---------------------------------------------------------------------------------
def weighted_percentile(values: np.ndarray | list[float], weights: np.ndarray | list[float] | None,
                        p: float) -> float | None:
    """Inverted-CDF percentile: the smallest value with at least p % of the weight at or below it."""
    return weighted_percentiles(values, weights, [p])[0]


def weighted_percentiles(values: np.ndarray | list[float], weights: np.ndarray | list[float] | None,
                         ps: list[float] | tuple[float, ...]) -> list[float | None]:
    """:func:`weighted_percentile` for each of ``ps``, the values sorted once (a 200 k-report series sorted per
    percentile took most of the results table's time)."""
    v = np.asarray(values, dtype=float)
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=float)
    ok = ~np.isnan(v) & ~np.isnan(w) & (w > 0)
    v, w = v[ok], w[ok]
    if not len(v):
        return [None for _p in ps]
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    cum = np.cumsum(w)
    out: list[float | None] = []
    for p in ps:
        target = p / 100.0 * cum[-1]
        i = int(np.searchsorted(cum, target - 1e-9 * cum[-1], side="left"))
        out.append(float(v[min(i, len(v) - 1)]))
    return out
