"""DiskSpd (Microsoft's storage load generator for Windows): its XML result (``-Rxml``) and its default text report.

DiskSpd joins fio's benchmark tables: one ``fio_jobs`` row per **target** (the file or disk DiskSpd loads) and
direction that did I/O -- the sum of the threads that worked on that target -- so the run-level comparison, which
sums a run's rows, counts every I/O once. ``device`` is the target's path as DiskSpd prints it
(``C:\\scratch\\testfile.dat``; ``target 2: <path>`` when a test names one path twice). Each thread's own figures
are kept in ``runs.meta.threads``; DiskSpd's run-wide latency percentiles in ``runs.meta.latency_percentiles_ms``.

What goes where (``fio_jobs``):

* ``rw`` from the write ratio and the access pattern in fio's words (``randread``, ``randwrite``, ``randrw``,
  ``read``, ``write``, ``rw``; the write share is in ``runs.meta.targets``), ``bs`` the block size
  (``4KiB``, ``64KiB``, ``512B``), ``iodepth`` the outstanding I/Os per thread (``-o``), ``numjobs`` the threads
  on the target (``-t``, or the thread pool of ``-F``), ``ioengine`` ``diskspd``.
* ``ios`` and ``io_kb`` are DiskSpd's counts; ``runtime_s`` its actual test time (warm-up and cool-down are not
  measured). The text report prints I/O per second computed from the exact test time: ``iops`` is DiskSpd's own
  figure (its total row for one target; the sum of the thread rows, each rounded to 0.01, for several) and
  ``bw_kbs`` = bytes per I/O × IOPS ÷ 1024. The XML gives only counts and the test time to 0.01 s: there
  ``iops`` = I/Os ÷ test time and ``bw_kbs`` = bytes ÷ 1024 ÷ test time (``runs.meta.figures`` says which).
* Latency (``-L``) is DiskSpd's time from issuing an I/O to its completion, fio's ``lat`` (``pct_of = 'lat'``):
  mean and standard deviation (population) per target and direction -- DiskSpd's own for one target, pooled from
  the thread rows (each printed to 0.001 ms) for several, which ``runs.meta.figures`` then calls an estimate --
  and min, max and the percentiles p50, p90, p95, p99, p99.9 (3-nines), p99.99 (4-nines) from DiskSpd's
  percentile table of that target. DiskSpd prints no 99.5th percentile: ``p995_us`` stays NULL. The text report
  has a table per target when a test has several (plus the run-wide one); the XML only the run-wide one, which
  then goes to ``runs.meta`` and not to the rows of a test with several targets.
* Per-second IOPS (``-D``, the XML's ``Iops/Bucket``) are not stored: a time series of a benchmark's own counts
  is not a device's rates (``runs.meta.io_buckets`` says how many there were).

Times: ``started_at`` is DiskSpd's start time (UTC, so ``runs.meta.utc_offset`` is ``+00:00``). DiskSpd takes it
when it starts, before it creates its files and warms up, so the run has no end time.

A file with several timespans (an XML profile's ``<TimeSpan>`` list) gives one run per timespan. Text before
DiskSpd's report (a prompt, the command) is skipped with a warning; a report cut before its results, or a table
whose rows do not fit its header, is a ParseError naming the line. When the thread rows of a table do not add
up to its total row (a report cut down by hand) a warning says so and, for one target, the total row is used.
"""

from __future__ import annotations

import math
import re
import xml.parsers.expat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import JOB_SUMMARY, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import BOOL, INT, LIST, NUM, OBJ, TEXT, Counts, MetaKey, Semantics, Span, common

KIND = register_kind("diskspd", "DiskSpd", {JOB_SUMMARY}, series=("DiskSpd target", "DiskSpd targets"))

FIO_JOBS_SCHEMA: dict[str, Any] = frame_schema("fio_jobs")
# fio_jobs percentile columns and the percentile DiskSpd prints for each (it prints no 99.5th)
PERCENTILE_COLUMNS = {"p50_us": 50.0, "p90_us": 90.0, "p95_us": 95.0, "p99_us": 99.0, "p999_us": 99.9,
                      "p9999_us": 99.99}
# the text report's row labels: min, 25th ... 99th, 3-nines ... 9-nines, max
_NINES = {f"{n}-nines": float(f"99.{'9' * (n - 2)}") for n in range(3, 10)}
_SIZE_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
               "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?$")
_TIME_FORMAT = "%Y/%m/%d %H:%M:%S"
OPS = ("read", "write")


def _size(text: str) -> int | None:
    """'4KiB', '1.50MiB', '8192' -> bytes."""
    m = _SIZE.match(text.strip())
    if m is None:
        return None
    return int(round(float(m.group(1)) * _SIZE_UNITS[m.group(2) or ""]))


def size_label(n: int | None) -> str | None:
    """Bytes as DiskSpd 2.1 prints a block size: whole KiB/MiB/GiB where it divides, else bytes ('512B')."""
    if n is None:
        return None
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f and n % f == 0:
            return f"{n // f}{unit}"
    return f"{n}B"


def _start_time(text: str) -> tuple[datetime | None, str | None]:
    """DiskSpd's '2021/04/16 19:03:38 UTC' -> (time, '+00:00' when it says UTC)."""
    s = text.strip()
    utc = s.endswith("UTC")
    try:
        when = datetime.strptime(s.removesuffix("UTC").strip(), _TIME_FORMAT)
    except ValueError:
        return None, None
    return when, "+00:00" if utc else None


def rw_of(write_pct: int | None, random: bool | None) -> str | None:
    """fio's word for DiskSpd's write ratio and access pattern."""
    if write_pct is None:
        return None
    base = "read" if write_pct == 0 else "write" if write_pct == 100 else "rw"
    return ("rand" + base) if random else base


# ---- the model both layouts fill ---------------------------------------------------------------------------
@dataclass
class Target:
    """One target of a timespan as the input parameters (text) or the profile (XML) describe it."""

    path: str
    line: int | None = None
    block_bytes: int | None = None
    access: str | None = None  # random | sequential | interlocked sequential | mixed
    random_pct: int | None = None
    align_bytes: int | None = None
    write_pct: int | None = None
    outstanding: int | None = None
    threads: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def random(self) -> bool | None:
        return None if self.access is None else self.access in ("random", "mixed")


@dataclass
class Figures:
    """One direction of one thread on one target, or a table's total row (``thread`` None)."""

    thread: int | None
    path: str | None
    op: str  # total | read | write
    bytes: int
    ios: int
    iops: float | None = None
    lat_ms: float | None = None
    lat_sd_ms: float | None = None
    iops_sd: float | None = None
    line: int | None = None


@dataclass
class Timespan:
    number: int
    settings: dict[str, Any] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    test_time_s: float | None = None
    thread_count: int | None = None
    cpu_avg: dict[str, float] | None = None
    rows: list[Figures] = field(default_factory=list)  # per thread, target, direction
    totals: dict[str, Figures] = field(default_factory=dict)  # DiskSpd's total rows (text) per direction
    percentiles: dict[str | None, dict[str, dict[str, float | None]]] = field(default_factory=dict)  # path|None
    io_buckets: int = 0
    interrupted: bool = False
    line: int | None = None


@dataclass
class Report:
    layout: str  # "text" | "xml"
    host: str | None = None
    version: str | None = None
    started: datetime | None = None
    utc_offset: str | None = None
    command_line: str | None = None
    system: dict[str, Any] = field(default_factory=dict)
    timespans: list[Timespan] = field(default_factory=list)


def _round(v: float | None, nd: int = 6) -> float | None:
    return None if v is None else round(v, nd)


# ---- from the model to runs and rows -----------------------------------------------------------------------
def _device_names(targets: list[Target]) -> dict[int, str]:
    """A target's path is its name; a path named twice in one test is 'target k: path'."""
    paths = [t.path for t in targets]
    return {i: (f"target {i + 1}: {t.path}" if paths.count(t.path) > 1 else t.path) for i, t in enumerate(targets)}


def _pooled(rows: list[Figures]) -> tuple[float | None, float | None]:
    """Mean and population standard deviation of several threads' latencies, from their means, deviations and
    counts (each mean and deviation as printed)."""
    parts = [r for r in rows if r.ios and r.lat_ms is not None]
    n = sum(r.ios for r in parts)
    if not n:
        return None, None
    mean = sum(r.ios * (r.lat_ms or 0.0) for r in parts) / n
    if any(r.lat_sd_ms is None for r in parts):
        return mean, None
    var = sum(r.ios * ((r.lat_sd_ms or 0.0) ** 2 + ((r.lat_ms or 0.0) - mean) ** 2) for r in parts) / n
    return mean, math.sqrt(max(var, 0.0))


class _Builder:
    """One run per timespan: fio_jobs rows per target and direction, and what the rows cannot hold in meta."""

    def __init__(self, rep: Report, warn: WarnFn):
        self.rep = rep
        self.warn = warn

    def events(self, state: JobState) -> Iterator[Event]:
        spans = [ts for ts in self.rep.timespans if not ts.interrupted]
        for ts in self.rep.timespans:
            if ts.interrupted:
                self.warn(f"timespan {ts.number} was interrupted before its measurements began: no results",
                          ts.line)
        if not spans:
            raise ParseError("DiskSpd was interrupted before the measurements began: the report has no results",
                             self.rep.timespans[0].line if self.rep.timespans else None)
        for k, ts in enumerate(spans):
            state.progress(0.5 + 0.5 * k / len(spans), f"DiskSpd timespan {ts.number}")
            yield from self._run(ts, len(self.rep.timespans))

    def _run(self, ts: Timespan, n_spans: int) -> Iterator[Event]:
        rep = self.rep
        if not ts.rows and not ts.totals:
            raise ParseError(f"timespan {ts.number} has no thread results", ts.line)
        if ts.test_time_s is None or ts.test_time_s <= 0:
            raise ParseError(f"timespan {ts.number} has no actual test time", ts.line)
        self._check(ts)
        targets = self._targets(ts)
        names = _device_names(targets)
        rows, how = self._rows(ts, targets, names)
        info = RunInfo(kind=KIND.id, host=rep.host, tool_version=rep.version, started_at=rep.started,
                       file_date=rep.started.date() if rep.started else None)
        info.meta = self._meta(ts, targets, names, how, n_spans)
        key = f"timespan {ts.number}"
        yield RunStart(key, info)
        frame = pl.DataFrame(rows, schema=FIO_JOBS_SCHEMA) if rows else pl.DataFrame(schema=FIO_JOBS_SCHEMA)
        yield Rows(key, "fio_jobs", frame)
        yield RunEnd(key, {"n_samples": 1, "n_devices": len({r["device"] for r in rows})}, info=info)

    # -- checks --------------------------------------------------------------------------------------------
    def _check(self, ts: Timespan) -> None:
        threads = {r.thread for r in ts.rows}
        if ts.thread_count is not None and threads and len(threads) < ts.thread_count:
            self.warn(f"timespan {ts.number}: the report lists {len(threads):,} of its {ts.thread_count:,} threads "
                      "(cut down by hand?)", ts.line)
        for op, tot in ts.totals.items():
            if op not in OPS:  # 'Total IO' adds up the same rows: its read and write tables say it
                continue
            mine = [r for r in ts.rows if r.op == op]
            ios, nbytes = sum(r.ios for r in mine), sum(r.bytes for r in mine)
            if mine and (ios, nbytes) != (tot.ios, tot.bytes):
                self.warn(f"timespan {ts.number}: the thread rows of '{op.capitalize()} IO' add up to {ios:,} I/Os "
                          f"and {nbytes:,} bytes, its total row says {tot.ios:,} and {tot.bytes:,}", tot.line)

    def _targets(self, ts: Timespan) -> list[Target]:
        """The timespan's targets in the order of its parameters, with any target only the results name."""
        targets = list(ts.targets)
        known = {t.path for t in targets}
        for r in ts.rows:
            if r.path is not None and r.path not in known:
                targets.append(Target(r.path))
                known.add(r.path)
        if not targets and ts.totals:
            raise ParseError(f"timespan {ts.number}: no target is named", ts.line)
        return targets

    # -- rows ----------------------------------------------------------------------------------------------
    def _rows(self, ts: Timespan, targets: list[Target], names: dict[int, str]) -> tuple[list[dict[str, Any]], str]:
        single = len({t.path for t in targets}) == 1
        out: list[dict[str, Any]] = []
        how = ""
        done: set[str] = set()
        for i, t in enumerate(targets):
            if t.path in done:  # a path named twice: its threads' rows cannot be told apart, the first takes them
                continue
            done.add(t.path)
            for op in OPS:
                mine = [r for r in ts.rows if r.path == t.path and r.op == op]
                fig, how = self._figures(ts, op, mine, single)
                if fig is None or not fig["ios"]:
                    continue
                out.append(self._row(ts, i, names[i], t, op, fig, single, mine))
        return out, how

    def _figures(self, ts: Timespan, op: str, mine: list[Figures], single: bool) -> tuple[dict[str, Any] | None,
                                                                                           str]:
        """I/Os, bytes, IOPS and latency of one target and direction."""
        tot = ts.totals.get(op)
        time = ts.test_time_s or 0.0
        if single and tot is not None:  # text, one target: DiskSpd's own total row
            return {"ios": tot.ios, "bytes": tot.bytes, "iops": tot.iops, "lat": tot.lat_ms, "sd": tot.lat_sd_ms,
                    "pooled": False}, "total row"
        if not mine:
            return None, ""
        ios, nbytes = sum(r.ios for r in mine), sum(r.bytes for r in mine)
        if all(r.iops is not None for r in mine):  # text: DiskSpd's I/O per s of each thread
            iops: float | None = sum(r.iops or 0.0 for r in mine)
            how = "thread rows"
        else:  # XML: counts and the test time
            iops = ios / time
            how = "counts"
        lat, sd = _pooled(mine)
        return {"ios": ios, "bytes": nbytes, "iops": iops, "lat": lat, "sd": sd, "pooled": len(mine) > 1}, how

    def _row(self, ts: Timespan, idx: int, device: str, t: Target, op: str, fig: dict[str, Any], single: bool,
             mine: list[Figures]) -> dict[str, Any]:
        ios, nbytes, iops = fig["ios"], fig["bytes"], fig["iops"]
        time = ts.test_time_s or 0.0
        # the text report's I/O per s comes from the exact test time: bandwidth from it, not from the rounded time
        text_iops = self.rep.layout == "text" and iops is not None
        bw = nbytes / ios * iops / 1024 if text_iops else nbytes / 1024 / time
        threads = t.threads or ts.settings.get("thread_pool") or (len({r.thread for r in mine}) or None)
        depth = t.outstanding if t.outstanding is not None else ts.settings.get("outstanding_per_thread")
        row: dict[str, Any] = {
            "device": device, "job_index": idx, "jobname": t.path, "groupid": ts.number, "op": op,
            "rw": rw_of(t.write_pct, t.random), "bs": size_label(t.block_bytes),
            "iodepth": None if depth is None else str(depth), "numjobs": None if threads is None else str(threads),
            "ioengine": "diskspd", "ios": ios, "io_kb": nbytes / 1024, "iops": _round(iops), "bw_kbs": _round(bw),
            "runtime_s": time, "has_bins": False,
            "lat_mean_us": _round(None if fig["lat"] is None else fig["lat"] * 1000, 3),
            "lat_stddev_us": _round(None if fig["sd"] is None else fig["sd"] * 1000, 3),
        }
        pct = ts.percentiles.get(t.path) or (ts.percentiles.get(None) if single else None)
        if pct and pct.get(op):
            p = pct[op]
            row["pct_of"] = "lat"
            row["lat_min_us"] = _us(p.get("min"))
            row["lat_max_us"] = _us(p.get("max"))
            for col, q in PERCENTILE_COLUMNS.items():
                row[col] = _us(p.get(f"p{q:g}"))
        return row

    # -- meta ----------------------------------------------------------------------------------------------
    def _meta(self, ts: Timespan, targets: list[Target], names: dict[int, str], how: str, n_spans: int
              ) -> dict[str, Any]:
        rep = self.rep
        meta: dict[str, Any] = {
            "layout": "XML (-Rxml)" if rep.layout == "xml" else "text report",
            "command_line": rep.command_line,
            "timespan": ts.number if n_spans > 1 else None,
            "test_time_s": ts.test_time_s, "thread_count": ts.thread_count,
            **{k: v for k, v in ts.settings.items() if v is not None},
            "cpu_avg_pct": ts.cpu_avg,
            "system": rep.system or None,
            "utc_offset": rep.utc_offset,
            "start_time": "DiskSpd's start time: taken when DiskSpd starts, before it prepares its files and warms "
                          "up" if rep.started else None,
            "targets": [self._target_meta(t, names[i]) for i, t in enumerate(targets)],
            "threads": self._thread_meta(ts, targets, names),
            "latency_percentiles_ms": ts.percentiles.get(None),
            "figures": self._figures_note(how, ts, len({t.path for t in targets}) == 1),
        }
        if ts.io_buckets:
            meta["io_buckets"] = {"count": ts.io_buckets, "stored": False,
                                  "why": "per-interval IOPS of the benchmark itself are not a device's rates"}
        return {k: v for k, v in meta.items() if v is not None}

    def _figures_note(self, how: str, ts: Timespan, single: bool) -> str:
        if self.rep.layout == "xml":
            text = ("I/Os and bytes counted by DiskSpd; IOPS = I/Os ÷ actual test time and KB/s = bytes ÷ 1024 ÷ "
                    f"actual test time ({ts.test_time_s:g} s as printed, to 0.01 s)")
            if single and ts.totals:
                return text + "; latency mean and standard deviation: DiskSpd's own over all threads"
        elif how == "total row":
            return ("DiskSpd's total rows (one target): I/Os, bytes, I/O per s, latency mean and standard deviation "
                    "as printed; KB/s = bytes per I/O × I/O per s ÷ 1024")
        else:
            text = ("per target: the sums of its thread rows (I/O per s each rounded to 0.01); KB/s = bytes per I/O "
                    "× I/O per s ÷ 1024")
        if any(r.lat_ms is not None for r in ts.rows) and len({r.thread for r in ts.rows}) > 1:
            text += ("; latency mean and standard deviation of several threads: pooled from each thread's "
                     "(printed to 0.001 ms), an estimate")
        return text

    @staticmethod
    def _target_meta(t: Target, device: str) -> dict[str, Any]:
        d = {"device": device, "path": t.path, "block_size_bytes": t.block_bytes, "access": t.access,
             "random_pct": t.random_pct, "alignment_or_stride_bytes": t.align_bytes, "write_pct": t.write_pct,
             "outstanding_per_thread": t.outstanding, "threads": t.threads, **t.settings}
        return {k: v for k, v in d.items() if v is not None}

    @staticmethod
    def _thread_meta(ts: Timespan, targets: list[Target], names: dict[int, str]) -> list[dict[str, Any]]:
        device: dict[str, str] = {}
        for i, t in enumerate(targets):
            device.setdefault(t.path, names[i])
        per: dict[tuple[int | None, str | None], dict[str, Any]] = {}
        for r in ts.rows:
            if r.op not in OPS:
                continue
            d = per.setdefault((r.thread, r.path), {"thread": r.thread, "device": device.get(r.path or "", r.path)})
            if not r.ios:  # a direction the thread did no I/O in (DiskSpd prints 0.000 ms for it)
                continue
            vals = {"ios": r.ios, "bytes": r.bytes, "iops": r.iops, "lat_mean_ms": r.lat_ms,
                    "lat_stddev_ms": r.lat_sd_ms, "iops_stddev": r.iops_sd}
            d.update({f"{r.op}_{k}": v for k, v in vals.items() if v is not None})
        return list(per.values())


def _us(ms: float | None) -> float | None:
    return None if ms is None else round(ms * 1000, 3)


# ---- the text report ---------------------------------------------------------------------------------------
_RESULTS = re.compile(r"^\s*Results for timespan (\d+):\s*$")
_PCT_HEADER = re.compile(r"^\s*%-ile\s*\|")
_SECTION = re.compile(r"^\s*(Total|Read|Write) IO\s*$")
_FILE = re.compile(r"^(.*?)\s+\(([^()]*)\)$")


def _num(cell: str, what: str, line: int, integer: bool = False) -> Any:
    s = cell.strip().rstrip("%")
    if s in ("N/A", ""):
        return None
    try:
        return int(s) if integer else float(s)
    except ValueError:
        raise ParseError(f"{what} {cell.strip()!r} is not a number", line) from None


class _Text:
    """DiskSpd's text report, read line by line by its section titles and its tables' header names."""

    def __init__(self, text: str, warn: WarnFn):
        self.lines = text.splitlines()
        self.warn = warn
        self.rep = Report("text")
        self.i = 0

    def parse(self) -> Report:
        self._skip_preamble()
        n = len(self.lines)
        while self.i < n:
            s = self.lines[self.i].strip()
            if s.startswith("Command Line:"):
                self.rep.command_line = s.removeprefix("Command Line:").strip()
            elif s == "Input parameters:":
                self._inputs()
                continue
            elif s == "System information:":
                self._system()
                continue
            elif _RESULTS.match(s):
                self._results()
                continue
            self.i += 1
        if not self.rep.timespans:
            raise ParseError("no 'Results for timespan 1:' section: the report is cut off before its results",
                             len(self.lines))
        self.rep.version = self._version()
        return self.rep

    def _skip_preamble(self) -> None:
        for k, line in enumerate(self.lines):
            s = line.strip()
            if s.startswith(("Command Line:", "Input parameters:")) or _RESULTS.match(s):
                junk = [x for x in self.lines[:k] if x.strip()]
                if junk:
                    self.warn(f"{len(junk)} line{'s' if len(junk) > 1 else ''} before DiskSpd's report skipped "
                              f"(first: {junk[0].strip()[:60]!r})", 1)
                self.i = k
                return
        raise ParseError("no DiskSpd report: neither 'Command Line:', 'Input parameters:' nor 'Results for "
                         "timespan' found", 1)

    def _version(self) -> str:
        text = "\n".join(self.lines)
        if "latency distribution:" in text.lower():
            return "DiskSpd 2.2+ (from the layout)"
        if "outstanding I/O operations per thread" in text or re.search(r"block size: \d+(\.\d+)?[KMG]iB", text):
            return "DiskSpd 2.1+ (from the layout)"
        if "MiB/s" in text:
            return "DiskSpd 2.0.18–2.0.21 (from the layout)"
        return "DiskSpd 2.0 (from the layout)"

    # -- Input parameters ------------------------------------------------------------------------------------
    def _inputs(self) -> None:
        self.i += 1
        ts: Timespan | None = None
        target: Target | None = None
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s in ("System information:",) or _RESULTS.match(s):
                return
            m = re.match(r"^timespan:\s*(\d+)$", s)
            if m:
                ts = Timespan(int(m.group(1)), line=self.i + 1)
                self.rep.timespans.append(ts)
                target = None
            elif ts is not None:
                m = re.match(r"^path: (?:template target )?'(.*)'$", s)
                if m:
                    target = Target(m.group(1), line=self.i + 1)
                    ts.targets.append(target)
                elif target is not None:
                    _target_line(target, s)
                else:
                    _timespan_line(ts, s)
            self.i += 1

    def _system(self) -> None:
        self.i += 1
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if _RESULTS.match(s) or s == "Input parameters:":
                return
            key, sep, value = s.partition(":")
            if sep and value.strip():
                k, v = key.strip(), value.strip()
                if k == "computer name":
                    self.rep.host = v
                elif k == "start time":
                    self.rep.started, self.rep.utc_offset = _start_time(v)
                else:
                    self.rep.system[k.replace(" ", "_")] = int(v) if v.isdigit() else v
            self.i += 1

    # -- Results for timespan N ------------------------------------------------------------------------------
    def _timespan(self, number: int) -> Timespan:
        for ts in self.rep.timespans:
            if ts.number == number:
                return ts
        ts = Timespan(number)
        self.rep.timespans.append(ts)
        return ts

    def _results(self) -> None:
        m = _RESULTS.match(self.lines[self.i].strip())
        assert m is not None
        ts = self._timespan(int(m.group(1)))
        ts.line = self.i + 1
        self.i += 1
        sections: set[str] = set()
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if _RESULTS.match(s) or s == "Totals:":
                break
            self._results_line(ts, s, sections)
        if ts.interrupted:
            return
        missing = [x for x in ("Total", "Read", "Write") if x not in sections]
        if missing:
            raise ParseError(f"timespan {ts.number}: no '{missing[0]} IO' table (the report is cut off)",
                             len(self.lines))

    def _results_line(self, ts: Timespan, s: str, sections: set[str]) -> None:
        line = self.i + 1
        if s.startswith("actual test time:"):
            ts.test_time_s = _num(s.split(":", 1)[1].strip().removesuffix("s"), "the actual test time", line)
        elif s.startswith("thread count:"):
            ts.thread_count = _num(s.split(":", 1)[1], "the thread count", line, integer=True)
        elif s.startswith("The test was interrupted before the measurements began"):
            ts.interrupted = True
        elif re.search(r"\bCPU\s*\|\s*Usage\s*\|", s):
            self._cpu(ts)
            return
        elif (m := _SECTION.match(s)) is not None:
            self._table(ts, m.group(1).lower())
            sections.add(m.group(1))
            return
        elif _PCT_HEADER.match(s):
            self._percentiles(ts)
            return
        self.i += 1

    def _cpu(self, ts: Timespan) -> None:
        names = [c.strip() for c in self.lines[self.i].split("|")]
        self.i += 1
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s.startswith("avg.|") or (s.startswith("avg.") and "|" in s):
                cells = [c.strip() for c in s.split("|")]
                vals = cells[1:]
                cols = names[-len(vals):]
                ts.cpu_avg = {c.lower(): _num(v, f"CPU {c}", self.i + 1) for c, v in zip(cols, vals)}
                self.i += 1
                return
            if not s:
                return
            self.i += 1

    def _table(self, ts: Timespan, op: str) -> None:
        """'Total IO' / 'Read IO' / 'Write IO': a header of column names, a rule, one row per thread and target,
        a rule, the total row."""
        title_line = self.i + 1
        self.i += 1
        if self.i >= len(self.lines) or "|" not in self.lines[self.i]:
            raise ParseError(f"'{op.capitalize()} IO' has no header line", title_line)
        header = [c.strip() for c in self.lines[self.i].split("|")]
        col = {name: k for k, name in enumerate(header)}
        for need in ("thread", "bytes", "I/Os", "file"):
            if need not in col:
                raise ParseError(f"the '{op.capitalize()} IO' table has no '{need}' column", self.i + 1)
        self.i += 1
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            s = raw.strip()
            line = self.i + 1
            self.i += 1
            if not s or set(s) == {"-"}:
                continue
            if s.startswith("total:"):
                ts.totals[op] = self._total(s, header, op, line)
                return
            cells = [c.strip() for c in raw.split("|")]
            if len(cells) != len(header):
                raise ParseError(f"a row of the '{op.capitalize()} IO' table has {len(cells)} cells where its "
                                 f"header has {len(header)}", line)
            ts.rows.append(self._figures(cells, col, op, line, thread=True))
        raise ParseError(f"the '{op.capitalize()} IO' table has no total row (the report is cut off)", len(self.lines))

    def _figures(self, cells: list[str], col: dict[str, int], op: str, line: int, thread: bool) -> Figures:
        def get(name: str, integer: bool = False) -> Any:
            return _num(cells[col[name]], name, line, integer) if name in col else None

        path = None
        if thread:
            f = cells[col["file"]]
            m = _FILE.match(f)
            path = m.group(1) if m else f
        nbytes, ios = get("bytes", True), get("I/Os", True)
        if nbytes is None or ios is None:
            raise ParseError("a row without bytes or I/Os", line)
        return Figures(get("thread", True) if thread else None, path, op, nbytes, ios, iops=get("I/O per s"),
                       lat_ms=get("AvgLat"), lat_sd_ms=get("LatStdDev"), iops_sd=get("IopsStdDev"), line=line)

    def _total(self, s: str, header: list[str], op: str, line: int) -> Figures:
        """'total:   146169856 |   35686 | ...': the columns after 'thread', without 'file'."""
        cells = [c.strip() for c in s.removeprefix("total:").split("|")]
        names = [h for h in header if h not in ("thread", "file")]
        if len(cells) != len(names):
            raise ParseError(f"the total row of '{op.capitalize()} IO' has {len(cells)} cells where its header "
                             f"has {len(names)}", line)
        return self._figures(cells, {n: k for k, n in enumerate(names)}, op, line, thread=False)

    def _percentiles(self, ts: Timespan) -> None:
        """A '%-ile | Read (ms) | Write (ms) | Total (ms)' table; the line above names its target, or 'total:' /
        'Total latency distribution:' the whole test."""
        title = ""
        for k in range(self.i - 1, -1, -1):
            if self.lines[k].strip():
                title = self.lines[k].strip()
                break
        low = title.lower()
        path: str | None
        if low in ("total:", "total latency distribution:"):
            path = None
        elif low.startswith("latency distribution:"):
            path = title.split(":", 1)[1].strip()
        else:
            path = title
        header = [c.strip() for c in self.lines[self.i].split("|")]
        ops = {k: h.split("(")[0].strip().lower() for k, h in enumerate(header) if k > 0}
        self.i += 1
        table: dict[str, dict[str, float | None]] = {op: {} for op in ops.values()}
        while self.i < len(self.lines):
            s = self.lines[self.i].strip()
            if s and set(s) == {"-"}:
                self.i += 1
                continue
            if not s or "|" not in s:
                break
            self.i += 1
            cells = [c.strip() for c in s.split("|")]
            key = _pct_key(cells[0])
            if key is None:
                raise ParseError(f"unknown percentile {cells[0]!r}", self.i)
            for k, op in ops.items():
                table[op][key] = _num(cells[k], f"{op} {cells[0]}", self.i) if k < len(cells) else None
        ts.percentiles[path] = table


def _pct_key(label: str) -> str | None:
    if label in ("min", "max"):
        return label
    if label in _NINES:
        return f"p{_NINES[label]:g}"
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", label)
    return f"p{int(m.group(1))}" if m else None


def _target_line(t: Target, s: str) -> None:  # noqa: C901 (one flat list of DiskSpd's sentences)
    """One line of a target's input parameters."""
    if s == "performing read test":
        t.write_pct = 0
    elif s == "performing write test":
        t.write_pct = 100
    elif (m := re.match(r"performing mix test \(read/write ratio: (\d+)/(\d+)\)", s)) is not None:
        t.write_pct = int(m.group(2))
    elif (m := re.match(r"block size: (.+)$", s)) is not None:
        t.block_bytes = _size(m.group(1))
    elif (m := re.match(r"using random I/O \(alignment: (.+)\)$", s)) is not None:
        t.access, t.align_bytes = "random", _size(m.group(1))
    elif (m := re.match(r"using mixed random/sequential I/O \((\d+)% random\) \(alignment/stride: (.+)\)$",
                        s)) is not None:
        t.access, t.random_pct, t.align_bytes = "mixed", int(m.group(1)), _size(m.group(2))
    elif (m := re.match(r"using( interlocked)? sequential I/O \(stride: (.+)\)$", s)) is not None:
        t.access = "interlocked sequential" if m.group(1) else "sequential"
        t.align_bytes = _size(m.group(2))
    elif (m := re.match(r"number of outstanding I/O operations(?: per thread)?: (\d+)$", s)) is not None:
        t.outstanding = int(m.group(1))
    elif (m := re.match(r"threads per file: (\d+)$", s)) is not None:
        t.threads = int(m.group(1))
    elif (m := re.match(r"throughput rate-limited to (\d+) (IOPS|B/ms)$", s)) is not None:
        t.settings["rate_limit"] = f"{m.group(1)} {m.group(2)}"
    elif "cache" in s and ("software" in s or "hardware" in s):
        t.settings["caching"] = "; ".join(filter(None, [t.settings.get("caching"), s]))
    elif (m := re.match(r"IO priority: (.+)$", s)) is not None:
        t.settings["io_priority"] = m.group(1)
    elif (m := re.match(r"think time: (\d+)ms$", s)) is not None:
        t.settings["think_time_ms"] = int(m.group(1))


def _timespan_line(ts: Timespan, s: str) -> None:
    for pattern, key in ((r"duration: (\d+)s", "duration_s"), (r"warm up time: (\d+)s", "warmup_s"),
                         (r"cool down time: (\d+)s", "cooldown_s"), (r"random seed: (\d+)", "random_seed"),
                         (r"gathering IOPS at intervals of (\d+)ms", "io_bucket_ms"),
                         (r"thread pool with (\d+) threads", "thread_pool"),
                         (r"number of outstanding I/O operations per thread: (\d+)", "outstanding_per_thread")):
        m = re.fullmatch(pattern, s)
        if m:
            ts.settings[key] = int(m.group(1))
            return
    if s == "measuring latency":
        ts.settings["measure_latency"] = True


# ---- the XML result ----------------------------------------------------------------------------------------
@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    line: int
    text: str = ""
    children: list[_Node] = field(default_factory=list)

    def find(self, tag: str) -> _Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def all(self, tag: str) -> list[_Node]:
        return [c for c in self.children if c.tag == tag]

    def value(self, tag: str) -> str | None:
        c = self.find(tag)
        return None if c is None else c.text.strip()

    def number(self, tag: str, integer: bool = False) -> Any:
        c = self.find(tag)
        if c is None or c.text.strip() == "":
            return None
        try:
            return int(c.text.strip()) if integer else float(c.text.strip())
        except ValueError:
            raise ParseError(f"<{tag}> {c.text.strip()[:30]!r} is not a number", c.line) from None

    def flag(self, tag: str) -> bool | None:
        v = self.value(tag)
        return None if v is None else v.lower() == "true"


# elements whose contents are not needed: per-interval buckets are only counted
_SKIP = {"Distribution", "ETW", "ETWSessionInfo", "WaitStatistics", "ProcessorTopology"}


def _xml_tree(path: str, state: JobState) -> tuple[_Node, int]:
    """The XML read with expat in chunks (line numbers kept, DTD entities refused); per-interval IOPS buckets
    (``Iops/Bucket``) are counted, not kept. Returns the root and the number of buckets."""
    stack: list[_Node] = []
    root: list[_Node] = []
    skip = 0
    buckets = 0
    p = xml.parsers.expat.ParserCreate()

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal skip, buckets
        if skip or tag in _SKIP:
            skip += 1
            return
        if tag == "Bucket" and "SampleMillisecond" in attrs:  # counted for the whole test, not per thread
            buckets += len(stack) >= 2 and stack[-2].tag == "TimeSpan"
            skip += 1
            return
        node = _Node(tag, attrs, p.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        nonlocal skip
        if skip:
            skip -= 1
            return
        stack.pop()

    def chars(data: str) -> None:
        if not skip and stack:
            stack[-1].text += data

    def no_entities(*_a: Any) -> None:
        raise ParseError("the XML declares entities: not a DiskSpd result", p.CurrentLineNumber)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    p.EntityDeclHandler = no_entities
    size = 0
    with open(path, "rb") as fh:
        try:
            while chunk := fh.read(1 << 20):
                if b"\x00" in chunk:
                    raise ParseError("binary data (NUL byte): not a DiskSpd XML result", p.CurrentLineNumber)
                p.Parse(chunk, False)
                size += len(chunk)
                state.progress(min(0.45, size / 2e8), "reading DiskSpd XML")
            p.Parse(b"", True)
        except xml.parsers.expat.ExpatError as e:
            raise ParseError(f"invalid XML ({xml.parsers.expat.ErrorString(e.code)}); the file may be cut off",
                             e.lineno) from None
    if not root or root[0].tag != "Results":
        raise ParseError("the XML's root is not <Results>: not a DiskSpd result", 1)
    return root[0], buckets


class _Xml:
    def __init__(self, root: _Node, buckets: int, warn: WarnFn):
        self.root = root
        self.buckets = buckets
        self.warn = warn

    def parse(self) -> Report:
        rep = Report("xml")
        system = self.root.find("System")
        if system is not None:
            rep.host = system.value("ComputerName")
            tool = system.find("Tool")
            if tool is not None and tool.value("Version"):
                rep.version = f"DiskSpd {tool.value('Version')}"
            if system.value("RunTime"):
                rep.started, rep.utc_offset = _start_time(system.value("RunTime") or "")
        profile = self.root.find("Profile")
        spans = profile.find("TimeSpans") if profile is not None else None
        settings = spans.all("TimeSpan") if spans is not None else []
        results = self.root.all("TimeSpan")
        if not results:
            raise ParseError("no <TimeSpan> results: DiskSpd wrote its profile but no results", self.root.line)
        n_buckets = sum(1 for _ in results)
        for k, res in enumerate(results):
            ts = Timespan(k + 1, line=res.line)
            if k < len(settings):
                self._profile(ts, settings[k])
            self._results(ts, res)
            ts.io_buckets = self.buckets if n_buckets == 1 else 0
            rep.timespans.append(ts)
        return rep

    @staticmethod
    def _profile(ts: Timespan, node: _Node) -> None:
        for tag, key in (("Duration", "duration_s"), ("Warmup", "warmup_s"), ("Cooldown", "cooldown_s"),
                         ("RandSeed", "random_seed")):
            ts.settings[key] = node.number(tag, integer=True)
        ts.settings["measure_latency"] = node.flag("MeasureLatency")
        if node.flag("CalculateIopsStdDev"):
            ts.settings["io_bucket_ms"] = node.number("IoBucketDuration", integer=True)
        pool = node.number("ThreadCount", integer=True)
        if pool:
            ts.settings["thread_pool"] = pool
            ts.settings["outstanding_per_thread"] = node.number("RequestCount", integer=True) or None
        targets = node.find("Targets")
        for t in targets.all("Target") if targets is not None else []:
            ts.targets.append(_xml_target(t))

    def _results(self, ts: Timespan, res: _Node) -> None:
        if res.find("Error") is not None:
            ts.interrupted = True
            return
        ts.test_time_s = res.number("TestTimeSeconds")
        ts.thread_count = res.number("ThreadCount", integer=True)
        avg = res.find("CpuUtilization")
        avg = avg.find("Average") if avg is not None else None
        if avg is not None:
            ts.cpu_avg = {k: avg.number(f"{k.capitalize()}Percent") for k in ("usage", "user", "kernel", "idle")}
        lat = res.find("Latency")
        if lat is not None:
            ts.percentiles[None] = _xml_percentiles(lat)
        single = len({t.path for t in ts.targets}) <= 1
        for th in res.all("Thread"):
            tid = th.number("Id", integer=True)
            for tg in th.all("Target"):
                ts.rows += _xml_thread_target(tid, tg)
        if single and lat is not None:  # one target: DiskSpd's own latency over all its threads
            for op, tag in (("read", "Read"), ("write", "Write")):
                mine = [r for r in ts.rows if r.op == op]
                if mine and lat.number(f"Average{tag}Milliseconds") is not None:
                    ts.totals[op] = Figures(None, mine[0].path, op, sum(r.bytes for r in mine),
                                            sum(r.ios for r in mine), iops=sum(r.ios for r in mine) / ts.test_time_s
                                            if ts.test_time_s else None,
                                            lat_ms=lat.number(f"Average{tag}Milliseconds"),
                                            lat_sd_ms=lat.number(f"{tag}LatencyStdev"), line=lat.line)


def _xml_target(t: _Node) -> Target:
    target = Target(t.value("Path") or "", line=t.line)
    target.block_bytes = t.number("BlockSize", integer=True)
    rnd = t.number("Random", integer=True)
    ratio = t.number("RandomRatio", integer=True)
    if rnd is not None and ratio is not None and ratio < 100:
        target.access, target.random_pct, target.align_bytes = "mixed", ratio, rnd
    elif rnd is not None:
        target.access, target.align_bytes = "random", rnd
    else:
        target.access = "interlocked sequential" if t.flag("InterlockedSequential") else "sequential"
        target.align_bytes = t.number("StrideSize", integer=True)
    target.write_pct = t.number("WriteRatio", integer=True)
    target.outstanding = t.number("RequestCount", integer=True)
    target.threads = t.number("ThreadsPerFile", integer=True)
    for tag, key in (("DisableOSCache", "software_cache_disabled"), ("DisableAllCache", "all_caches_disabled"),
                     ("WriteThrough", "write_through"), ("MemoryMappedIo", "memory_mapped_io")):
        v = t.flag(tag)
        if v is not None:
            target.settings[key] = v
    thr = t.find("Throughput")
    if thr is not None and thr.text.strip() not in ("", "0"):
        target.settings["rate_limit"] = f"{thr.text.strip()} {thr.attrs.get('unit', 'B/ms')}"
    size = t.number("FileSize", integer=True)
    if size:
        target.settings["file_size_bytes"] = size
    return target


def _xml_thread_target(tid: int | None, tg: _Node) -> list[Figures]:
    path = tg.value("Path")
    out = []
    for op, tag in (("read", "Read"), ("write", "Write")):
        ios = tg.number(f"{tag}Count", integer=True)
        nbytes = tg.number(f"{tag}Bytes", integer=True)
        if ios is None or nbytes is None:
            raise ParseError(f"<Target> of thread {tid} has no <{tag}Count> or <{tag}Bytes>", tg.line)
        iops = tg.find("Iops")
        out.append(Figures(tid, path, op, nbytes, ios,
                           lat_ms=tg.number(f"Average{tag}LatencyMilliseconds"),
                           lat_sd_ms=tg.number(f"{tag}LatencyStdev"),
                           iops_sd=iops.number(f"{tag}IopsStdDev") if iops is not None else None, line=tg.line))
    return out


def _xml_percentiles(lat: _Node) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {"read": {}, "write": {}, "total": {}}
    for b in lat.all("Bucket"):
        p = b.number("Percentile")
        if p is None:
            continue
        key = "min" if p == 0 else "max" if p == 100 else f"p{p:g}"
        for op, tag in (("read", "Read"), ("write", "Write"), ("total", "Total")):
            out[op][key] = b.number(f"{tag}Milliseconds")
    return out


# ---- the formats -------------------------------------------------------------------------------------------
# what DiskSpd's results mean (parsers.semantics): the XML and the text report share it
SEMANTICS = Semantics(
    main_table="fio_jobs", span=Span.NONE, counts=Counts.TOTALS,
    wording={"device": "the target's path", "ios": "I/Os", "io_kb": "bytes / 1024", "iops": "I/O per s",
             "bw_kbs": "MiB/s × 1024", "runtime_s": "actual test time", "iodepth": "outstanding I/Os per thread (-o)",
             "numjobs": "threads on the target (-t)", "lat_mean_us": "AvgLat", "lat_stddev_us": "LatStdDev"},
    meta=(*common("layout", "command_line", "utc_offset"),
          MetaKey("timespan", INT, "the timespan of a profile with several"),
          MetaKey("test_time_s", NUM, "the actual test time"), MetaKey("thread_count", INT, "threads"),
          MetaKey("duration_s", INT, "duration (-d)"), MetaKey("warmup_s", INT, "warm-up (-W)"),
          MetaKey("cooldown_s", INT, "cool-down (-C)"), MetaKey("random_seed", INT, "random seed (-z)"),
          MetaKey("io_bucket_ms", INT, "the per-interval IOPS bucket (-D)"),
          MetaKey("measure_latency", BOOL, "latency measured (-L)"),
          MetaKey("thread_pool", INT, "the thread pool of -F"),
          MetaKey("outstanding_per_thread", INT, "outstanding I/Os per thread of the pool", nullable=True),
          MetaKey("cpu_avg_pct", OBJ, "DiskSpd's CPU averages"), MetaKey("system", OBJ, "the system DiskSpd states"),
          MetaKey("start_time", TEXT, "what DiskSpd's start time is"),
          MetaKey("targets", LIST, "each target's settings (write share, pattern, block size …)"),
          MetaKey("threads", LIST, "each thread's own figures"),
          MetaKey("latency_percentiles_ms", OBJ, "DiskSpd's run-wide latency percentiles (ms)"),
          MetaKey("figures", TEXT, "how IOPS, KB/s and the latencies were made"),
          MetaKey("io_buckets", OBJ, "the per-interval IOPS DiskSpd printed, not stored, and why")))


class DiskSpdXmlFormat:
    id = "diskspd-xml"
    kind = KIND.id
    label = "DiskSpd XML result (-Rxml)"
    priority = 370
    tables = ("fio_jobs",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = head.lstrip()
        if text.startswith(b"<?xml"):
            text = text[text.find(b"?>") + 2:].lstrip()
        if not text.startswith(b"<Results>"):
            return 0.0
        if b"<System>" in text and (b"<Tool>" in text or b"<ComputerName>" in text):
            return 0.96
        return 0.7 if b"<Profile>" in text or b"<TimeSpan>" in text else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        root, buckets = _xml_tree(path, state)
        rep = _Xml(root, buckets, warn).parse()
        yield from _Builder(rep, warn).events(state)


class DiskSpdTextFormat:
    id = "diskspd-text"
    kind = KIND.id
    label = "DiskSpd text report"
    priority = 360
    tables = ("fio_jobs",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = head.decode("utf-8", errors="replace")
        inputs = "Input parameters:" in text and re.search(r"^\s*timespan:\s+\d+\s*$", text, re.M) is not None
        results = re.search(r"^\s*Results for timespan \d+:", text, re.M) is not None and \
            "actual test time:" in text
        if not (inputs or results):
            return 0.0
        return 0.95 if re.search(r"^\s*Command Line:.*diskspd", text, re.M | re.I) or (inputs and results) else 0.9

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        text = read_text(path, "a DiskSpd report")
        state.progress(0.2, "reading DiskSpd report")
        rep = _Text(text, warn).parse()
        yield from _Builder(rep, warn).events(state)


XML_FORMAT = register(DiskSpdXmlFormat())
TEXT_FORMAT = register(DiskSpdTextFormat())
