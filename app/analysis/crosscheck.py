"""Cross-check: does iostat, watching the disk, see what fio says it did? (no Qt)

API (the report pages call this)::

    crosscheck(ws, fio_run_id, iostat_run_id, tolerance=0.10, disk=None) -> CrossCheck | None
    find_pairs(ws, run_ids) -> list[tuple[int, int]]        # (fio run, iostat run)

``crosscheck`` returns None when the two runs do not pair: the fio job's time window does not overlap the
iostat run, or its disk is not among iostat's devices, or no whole iostat interval lies inside the window.
It raises ``AnalysisError`` when a run is missing or of the wrong kind. ``CrossCheck.as_dict()`` is plain JSON.

The fio job's time window
    fio prints when it wrote its report (``timestamp_ms``, UTC, and the local ``time``) and, per job, how long
    it did I/O (``job_runtime``, ms; ramp time excluded) and, in newer versions (3.39 does, 3.33 does not),
    when the job started (``job_start``). The importer keeps them (run meta ``job_times``). The window is
    ``[job_start, job_start + ramp + runtime]`` when fio gives the start, else ``[report − runtime, report]``
    (the report is written just after the job ends), on the local clock (fio's ``time`` − ``timestamp`` gives
    the offset). Without ``timestamp_ms`` the window comes from the run's start and end times (whole seconds).

iostat's intervals
    An iostat ``-t`` report printed at ``t`` covers the interval before it, ``(t − interval, t]``. iostat prints
    whole seconds, so a report's true time is up to 1 s later than printed. Only the intervals **surely** inside
    the window are used: ``t − interval ≥ window start`` and ``t + 1 s ≤ window end``; the intervals cut by the
    window's edges (fio's first and last partial second) are left out, and the result says how many were used.
    Since-boot reports are never used. A run without ``-t`` has no clock time and cannot be placed. A run with a
    clock offset (app.store.clock: its clock corrected against another's) is taken on its corrected clock, the
    fio run's window as well as iostat's reports.

The figures
    fio: its own IOPS and KiB/s per direction (``fio_jobs``), summed over the run's jobs. iostat: the mean of
    ``r/s``, ``w/s`` (+ ``d/s`` for fio's trims) and ``rkB/s``, ``wkB/s`` over the intervals used (kB = 1024 bytes
    in both tools), on the fio job's disk. Ratio = iostat ÷ fio. **agree** when every figure of the directions
    fio did I/O in is within ``tolerance`` (default 10 %) of fio's; else **disagree**. The total (read + write)
    is given with its own ratio; it also counts the other direction, which other processes may use.

Reasons (plain sentences, each only when the data shows it): iostat counts every I/O of the device (other
processes, the filesystem's journal and metadata) — visible when iostat sees more, or sees a direction fio did
not use; merged requests (``rrqm/s``, ``wrqm/s`` > 0) make iostat count fewer, larger requests; buffered I/O
(fio ``direct=0``, fio's default) goes through the page cache, so writes reach the disk later and in the kernel's
sizes and reads may come from memory; fio's ``ramp_time`` puts I/O on the disk that fio's figures leave out; few
whole intervals in the window make iostat's mean coarse.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import polars as pl

from app.errors import AnalysisError
from app.run import Run
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, has, kind_label, kinds_with

if TYPE_CHECKING:
    from app.workspace import Workspace

__all__ = ["CrossCheck", "Measure", "crosscheck", "find_pairs", "fio_window"]

DEFAULT_TOLERANCE = 0.10
CLOCK_SLACK_S = 1.0  # iostat -t prints whole seconds
MATERIAL = 0.01  # merges, or I/O of a direction fio did not use, under 1 % of fio's IOPS: not named as reasons
MEASURES = (("read_iops", "read", "IOPS"), ("write_iops", "write", "IOPS"), ("read_kbs", "read", "kB/s"),
            ("write_kbs", "write", "kB/s"), ("total_iops", "total", "IOPS"), ("total_kbs", "total", "kB/s"))
WORDS = {"read_iops": "read IOPS", "write_iops": "write IOPS", "read_kbs": "read kB/s", "write_kbs": "write kB/s",
         "total_iops": "total IOPS", "total_kbs": "total kB/s"}


@dataclass
class Measure:
    name: str  # read_iops, write_iops, read_kbs, write_kbs, total_iops, total_kbs
    fio: float | None
    iostat: float | None
    ratio: float | None  # iostat / fio
    agree: bool | None  # None: fio did no I/O of this kind
    judged: bool  # part of the verdict (a direction fio did I/O in)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Window:
    start: datetime  # local clock, naive
    end: datetime
    basis: str

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


@dataclass
class CrossCheck:
    fio_run_id: int
    iostat_run_id: int
    disk: str
    window_start: str  # ISO, local clock
    window_end: str
    window_s: float
    window_basis: str
    intervals_used: int
    intervals_left_out: int  # overlapping the window but cut by its edges
    interval_s: float
    tolerance: float
    measures: list[Measure]
    verdict: str  # agree | disagree
    reasons: list[str]
    summary: str
    method: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def measure(self, name: str) -> Measure:
        return next(m for m in self.measures if m.name == name)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["measures"] = [m.as_dict() for m in self.measures]
        return d


# ---- runs and windows ------------------------------------------------------------------------------------
def _run(ws: Workspace, run_id: int, capability: str) -> Run:
    r = ws.run(run_id)
    if r is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if not has(r.kind, capability):
        raise AnalysisError(f"run {run_id} holds {kind_label(r.kind)} data; this side of the cross-check takes a "
                            "run of " + ", ".join(sorted(kind_label(k) for k in kinds_with(capability))))
    return r


def _meta(run: Run) -> dict[str, Any]:
    """The run's meta for reading fio's nested job records (declared objects and lists of the fio formats)."""
    return run.meta.as_dict()


def _clock_shift(ws: Workspace, run_id: int) -> timedelta:
    """The run's stored clock offset (app.store.clock) as a shift of its local clock; none without one."""
    from app.store.clock import get_offset

    o = get_offset(ws, run_id)
    return timedelta(0) if o is None else timedelta(seconds=o.offset_s)


def fio_window(ws: Workspace, run_id: int) -> Window | None:
    """The local-clock time window of the fio run's jobs (the union of its jobs' windows), on its corrected clock
    when it has a clock offset."""
    win = _fio_window_as_filed(ws, run_id)
    shift = _clock_shift(ws, run_id)
    return win if win is None or not shift else replace(win, start=win.start + shift, end=win.end + shift)


def _fio_window_as_filed(ws: Workspace, run_id: int) -> Window | None:
    run = _run(ws, run_id, JOB_SUMMARY)
    times = _meta(run).get("job_times") or {}
    jobs = times.get("jobs") or []
    report_ms = times.get("report_timestamp_ms")
    offset = timedelta(seconds=times.get("utc_offset_s") or 0)
    spans: list[tuple[datetime, datetime]] = []
    basis = ""
    for j in jobs:
        ramp_ms = _seconds(j.get("ramp_time")) * 1000
        runtime = j.get("job_runtime_ms")
        start_ms = j.get("job_start_ms")
        if start_ms is not None and runtime is not None:
            s_ms, e_ms = start_ms + ramp_ms, start_ms + ramp_ms + runtime
            basis = "fio's job start + ramp time, for its runtime"
        elif report_ms is not None and runtime is not None:
            s_ms, e_ms = report_ms - runtime, report_ms
            basis = "fio's report time minus the job's runtime (the report is written when the job ends)"
        else:
            continue
        spans.append((_local(s_ms, offset), _local(e_ms, offset)))
    if not spans and report_ms is not None:
        rt = ws.con.execute("SELECT max(runtime_s) FROM fio_jobs WHERE run_id = ?", [run_id]).fetchall()[0][0]
        if rt:
            end = _local(report_ms, offset)
            spans.append((end - timedelta(seconds=float(rt)), end))
            basis = "fio's report time minus the longest runtime of its jobs"
    if not spans:
        if run.started_at and run.ended_at:
            return Window(run.started_at, run.ended_at, "the run's start and end times (whole seconds)")
        return None
    return Window(min(s for s, _e in spans), max(e for _s, e in spans), basis)


def _local(ms: float, offset: timedelta) -> datetime:
    return datetime(1970, 1, 1) + timedelta(milliseconds=ms) + offset


def _seconds(v: Any) -> float:
    """fio time option ('5', '5s', '500ms', '2m') in seconds; 0 when absent."""
    if v is None:
        return 0.0
    s = str(v).strip().lower()
    for suffix, f in (("ms", 0.001), ("us", 1e-6), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if s.endswith(suffix):
            try:
                return float(s[: -len(suffix)]) * f
            except ValueError:
                return 0.0
    try:
        return float(s)
    except ValueError:
        return 0.0


def _fio_disks(run: Run) -> list[str]:
    meta = _meta(run)
    names: list[Any] = [d.get("name") for d in (meta.get("disk_util") or []) if isinstance(d, dict) and d.get("name")]
    for j in (meta.get("job_times") or {}).get("jobs") or []:
        fn = j.get("filename") or ""
        if fn.startswith("/dev/") and fn.count("/") == 2:
            names.append(fn[len("/dev/"):])
    return list(dict.fromkeys(names))


def _iostat_span(ws: Workspace, run_id: int) -> tuple[datetime, datetime] | None:
    row = ws.con.execute("SELECT min(ts), max(ts) FROM iostat_samples WHERE run_id = ? AND NOT since_boot",
                         [run_id]).fetchone()
    if row is None or row[0] is None:
        return None
    shift = _clock_shift(ws, run_id)  # on its corrected clock
    return row[0] + shift, row[1] + shift


def _iostat_devices(ws: Workspace, run_id: int) -> list[str]:
    return [r[0] for r in ws.con.execute("SELECT DISTINCT device FROM iostat_samples WHERE run_id = ? "
                                         "ORDER BY device", [run_id]).fetchall()]


def _pick_disk(fio_disks: list[str], devices: list[str]) -> str | None:
    from app.analysis.series import classify_devices

    common = [d for d in fio_disks if d in devices]
    if not common:
        return None
    whole = classify_devices([(d, False) for d in common]).used
    return whole[0] if whole else common[0]


def find_pairs(ws: Workspace, run_ids: list[int]) -> list[tuple[int, int]]:
    """(fio run, iostat run) pairs among ``run_ids`` that can be cross-checked: the same host where both say
    which, the fio job's window overlapping the iostat run's reports, and the fio job's disk among iostat's
    devices."""
    runs = [r for r in (ws.run(i) for i in run_ids) if r is not None]
    fios = [r for r in runs if has(r.kind, JOB_SUMMARY)]
    iostats = [r for r in runs if has(r.kind, DEVICE_RATES)]
    out = []
    for f in fios:
        win = fio_window(ws, f.run_id)
        disks = _fio_disks(f)
        if win is None or not disks:
            continue
        for s in iostats:
            if f.host and s.host and f.host != s.host:
                continue
            span = _iostat_span(ws, s.run_id)
            if span is None:
                continue
            first = span[0] - timedelta(seconds=float(s.interval_s or 0))
            if win.end <= first or win.start >= span[1]:
                continue
            if _pick_disk(disks, _iostat_devices(ws, s.run_id)) is None:
                continue
            out.append((f.run_id, s.run_id))
    return out


# ---- the comparison --------------------------------------------------------------------------------------
def _fio_figures(ws: Workspace, run_id: int) -> dict[str, float | None]:
    df = ws.query("SELECT op, sum(iops) AS iops, sum(bw_kbs) AS kbs FROM fio_jobs WHERE run_id = ? GROUP BY op",
                  [run_id])
    by = {r["op"]: r for r in df.iter_rows(named=True)}

    def get(op: str, col: str) -> float | None:
        v = by.get(op, {}).get(col)
        return None if v is None else float(v)

    out = {"read_iops": get("read", "iops"), "write_iops": get("write", "iops"), "read_kbs": get("read", "kbs"),
           "write_kbs": get("write", "kbs"), "trim_iops": get("trim", "iops"), "trim_kbs": get("trim", "kbs")}
    for unit in ("iops", "kbs"):
        vals = [out[f"{op}_{unit}"] for op in ("read", "write", "trim")]
        out[f"total_{unit}"] = sum(v for v in vals if v is not None) if any(v is not None for v in vals) else None
    return out


def _fio_options(run: Run) -> dict[str, set[str]]:
    """Per option (direct, buffered, ramp_time), the values the run's jobs used."""
    meta = _meta(run)
    jobs = (meta.get("job_times") or {}).get("jobs") or []
    gopts = meta.get("global_options") or {}
    out: dict[str, set[str]] = {}
    for key in ("direct", "buffered", "ramp_time"):
        vals = {str(j[key]) for j in jobs if key in j}
        if not vals and key in gopts:
            vals = {str(gopts[key])}
        if vals:
            out[key] = vals
    return out


def _is_direct(opts: dict[str, set[str]]) -> bool:
    """fio's default is buffered I/O (direct=0, buffered=1)."""
    if "direct" in opts:
        return opts["direct"] == {"1"}
    if "buffered" in opts:
        return opts["buffered"] == {"0"}
    return False


def crosscheck(ws: Workspace, fio_run_id: int, iostat_run_id: int, tolerance: float = DEFAULT_TOLERANCE,
               disk: str | None = None) -> CrossCheck | None:
    """fio's own IOPS and kB/s against iostat's on the fio job's disk over the job's window (see the module doc)."""
    frun = _run(ws, fio_run_id, JOB_SUMMARY)
    irun = _run(ws, iostat_run_id, DEVICE_RATES)
    win = fio_window(ws, fio_run_id)
    if win is None:
        return None
    devices = _iostat_devices(ws, iostat_run_id)
    if disk is None:
        disk = _pick_disk(_fio_disks(frun), devices)
    if disk is None or disk not in devices:
        return None
    interval = irun.interval_s
    df = ws.query("SELECT ts, r_s, w_s, d_s, f_s, rkb_s, wkb_s, dkb_s, rrqm_s, wrqm_s FROM iostat_samples "
                  "WHERE run_id = ? AND device = ? AND NOT since_boot AND ts IS NOT NULL ORDER BY ts",
                  [iostat_run_id, disk])
    if df.height == 0 or not interval:
        return None
    shift = _clock_shift(ws, iostat_run_id)
    if shift:  # on its corrected clock, as the fio window is on fio's
        df = df.with_columns(pl.col("ts") + shift)
    dt = timedelta(seconds=float(interval))
    slack = timedelta(seconds=CLOCK_SLACK_S)
    starts = pl.col("ts") - dt
    overlap = df.filter((pl.col("ts") + slack > win.start) & (starts < win.end))
    inside = overlap.filter((starts >= win.start) & (pl.col("ts") + slack <= win.end))
    if inside.height == 0:
        return None

    def mean(col: str) -> float | None:
        s = inside.get_column(col)
        # equal intervals; the mean of a numeric column is a number, which polars' mean() type cannot say
        return None if s.null_count() == s.len() else float(s.fill_null(0.0).mean())  # type: ignore[arg-type]  # see above

    io = {c: mean(c) for c in ("r_s", "w_s", "d_s", "f_s", "rkb_s", "wkb_s", "dkb_s", "rrqm_s", "wrqm_s")}
    fio = _fio_figures(ws, fio_run_id)
    z = lambda v: v or 0.0  # noqa: E731
    ios = {"read_iops": io["r_s"], "write_iops": io["w_s"], "read_kbs": io["rkb_s"], "write_kbs": io["wkb_s"],
           "total_iops": z(io["r_s"]) + z(io["w_s"]) + (z(io["d_s"]) if fio["trim_iops"] else 0.0),
           "total_kbs": z(io["rkb_s"]) + z(io["wkb_s"]) + (z(io["dkb_s"]) if fio["trim_kbs"] else 0.0)}
    did = {"read": bool(fio["read_iops"]), "write": bool(fio["write_iops"])}
    measures = []
    for name, op, _unit in MEASURES:
        f, i = fio[name], ios[name]
        ratio = None if not f or i is None else i / f
        agree = None if ratio is None else abs(ratio - 1.0) <= tolerance
        measures.append(Measure(name, f, i, ratio, agree, did.get(op, False) if op != "total" else False))
    judged = [m for m in measures if m.judged]
    verdict = "agree" if judged and all(m.agree for m in judged) else "disagree"
    reasons = _reasons(measures, io, fio, did, _fio_options(frun), disk, inside.height, tolerance, verdict)
    notes = []
    left_out = overlap.height - inside.height
    if left_out:
        notes.append(f"{left_out} iostat interval(s) cut by the window's edges (fio's first or last partial second, "
                     "or within a second of them: iostat prints whole seconds) are left out")
    if any(r.host is None for r in (frun, irun)):
        notes.append("the host of " + " and ".join(k for k, r in (("the fio run", frun), ("the iostat run", irun))
                                                   if r.host is None) + " is not in its file: the pairing "
                     "rests on the time window and the disk name")
    summary = _summary(measures, verdict, disk, inside.height, float(interval), tolerance)
    method = {
        "window": win.basis,
        "intervals": ("iostat reports whose interval (t − interval, t] lies surely inside the window (t + 1 s ≤ "
                      "end: iostat prints whole seconds); since-boot reports never"),
        "iostat": "mean of r/s, w/s (+ d/s for fio's trims), rkB/s, wkB/s over those intervals on the disk",
        "fio": "fio's own IOPS and bandwidth (KiB/s) per direction, summed over its jobs",
        "ratio": "iostat ÷ fio",
        "verdict": (f"agree when every figure of the directions fio did I/O in is within {tolerance:.0%} of fio's; "
                    "the total is shown with its own ratio"),
        "units": "kB = 1,024 bytes in both tools",
    }
    return CrossCheck(fio_run_id, iostat_run_id, disk, win.start.isoformat(timespec="milliseconds"),
                      win.end.isoformat(timespec="milliseconds"), win.seconds, win.basis, inside.height, left_out,
                      float(interval), tolerance, measures, verdict, reasons, summary, method, notes)


def _n(v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def _ratio(r: float | None) -> str:
    if r is None:
        return "–"
    return f"{r:.2f}" if r >= 0.01 else f"{r:.2g}"


def _summary(measures: list[Measure], verdict: str, disk: str, n: int, interval: float, tol: float) -> str:
    parts = [f"{WORDS[m.name]}: fio {_n(m.fio)}, iostat {_n(m.iostat)} (×{_ratio(m.ratio)})" for m in measures
             if m.judged and m.ratio is not None]
    head = "fio and iostat agree" if verdict == "agree" else "fio and iostat disagree"
    return (f"{head} on {disk} (tolerance {tol:.0%}; {n} whole {interval:g}-second iostat intervals inside the "
            f"fio job): " + "; ".join(parts) + ".")


def _reasons(measures: list[Measure], io: dict[str, float | None], fio: dict[str, float | None],
             did: dict[str, bool], opts: dict[str, set[str]], disk: str, n: int, tol: float,
             verdict: str) -> list[str]:
    out: list[str] = []
    by = {m.name: m for m in measures}
    more = [m for m in measures if m.judged and m.ratio is not None and m.ratio > 1 + tol]
    fewer = [m for m in measures if m.judged and m.ratio is not None and m.ratio < 1 - tol]
    small = MATERIAL * (fio["total_iops"] or 0.0)  # less than this is background noise, not a reason
    unused = [(op, io[col], io[kb]) for op, col, kb in (("read", "r_s", "rkb_s"), ("write", "w_s", "wkb_s"))
              if not did[op] and (io[col] or 0) > small]
    if more or unused:
        seen = "; ".join(f"{WORDS[m.name]} ×{_ratio(m.ratio)}" for m in more)
        extra = "; ".join(f"{v:,.1f} {op}s/s ({kb or 0:,.0f} kB/s) although the fio job did no {op}s"
                          for op, v, kb in unused)
        what = "; ".join(x for x in (seen, extra) if x)
        out.append(f"iostat saw more on {disk} than fio did ({what}): iostat counts every I/O of the device — "
                   "other processes and the filesystem's journal and metadata too — while fio counts only its own.")
    for op, col, qm in (("read", "read_iops", "rrqm_s"), ("write", "write_iops", "wrqm_s")):
        merges = io[qm] or 0.0
        m = by[col]
        if did[op] and merges > 0 and m.fio is not None and m.fio > 0:
            io_kb = io["rkb_s" if op == "read" else "wkb_s"]
            n_req = io["r_s" if op == "read" else "w_s"]
            fio_kb = fio[f"{op}_kbs"]
            size = ""
            if n_req and io_kb is not None and m.fio and fio_kb is not None:
                size = (f"; iostat's average {op} request is {io_kb / n_req:,.1f} kB, fio's "
                        f"{fio_kb / m.fio:,.1f} kB")
            if merges >= MATERIAL * m.fio:
                out.append(f"The kernel merged {merges:,.1f} {op} requests/s ({'rrqm/s' if op == 'read' else 'wrqm/s'})"
                           f": iostat counts the requests after merging, so fewer, larger requests than fio issued"
                           f"{size}.")
    if not _is_direct(opts) and (verdict == "disagree" or fewer):
        how = "direct=0" if "direct" in opts else "fio's default, without direct=1"
        out.append(f"fio used buffered I/O ({how}): its writes went to the page cache and reach the disk later, "
                   "in the kernel's own sizes and timing (writeback), and its reads may be served from memory — "
                   "fio measures what it handed to the kernel, iostat what reached the disk.")
    ramp = {v for v in opts.get("ramp_time", set()) if _seconds(v) > 0}
    if ramp:
        out.append(f"fio ran with a ramp time ({', '.join(sorted(ramp))}): the I/O of the ramp reaches the disk but "
                   "is not in fio's figures; the window starts after it.")
    if n < 5:
        out.append(f"Only {n} whole iostat interval(s) lie inside the fio job: iostat's mean is coarse, and the "
                   "partial first and last intervals are left out.")
    if verdict == "disagree" and not out:
        out.append("No reason is visible in the data: check that both runs watched the same disk at the same "
                   "time (the clocks of the two files).")
    if fewer and _is_direct(opts) and not any("merged" in r for r in out):
        out.append("iostat saw less than fio did with direct I/O and no merging: the job's window may not "
                   "match iostat's clock (check the times), or the disk is not the one fio used.")
    return out
