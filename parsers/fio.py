"""fio ``--output-format=json`` and ``json+``, fio 2.x and 3.x.

One run per file; one series (``device``) per entry of ``jobs[]`` -- one per job, or
one per reporting group with ``group_reporting`` -- and one ``fio_jobs`` row per
direction that did I/O. Everything is read by key name:

* fio 2.x reports ``slat``/``clat``/``lat`` in µs and ``io_bytes`` in KiB (despite the
  name); fio 3.x reports ``slat_ns``/``clat_ns``/``lat_ns`` in ns, ``io_bytes`` in bytes
  and adds ``io_kbytes``. The unit follows the key names, not the version string.
* ``json+`` adds ``bins`` (latency value -> count) to the completion latency. fio 3.x
  keys each bin by the midpoint fio computes for it (``plat_idx_to_val``); the bin
  holds the integer latencies of a power-of-two-wide range around it (64 ranges per
  power of two, exact below 128), which is stored as the bucket (lo - 1, hi - 1] in µs
  so that shares and percentiles from it are honest. fio 2.x ``json+`` keyed its bins
  by index; no sample of that layout was available, so such bins are not imported
  (a warning says so) and fio's own percentiles still are.

fio's log files (``write_bw_log``, ``write_lat_log``, ``write_hist_log`` and friends) are read by
:mod:`parsers.fio_log`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import polars as pl

from parsers.base import (
    Event,
    ImportOptions,
    JobState,
    ParseError,
    Rows,
    RunEnd,
    RunInfo,
    RunStart,
    WarnFn,
    parse_json,
    read_text,
)
from parsers.kinds import JOB_SUMMARY, LATENCY_HISTOGRAMS, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import BOOL, INT, LIST, OBJ, TEXT, Counts, MetaKey, Semantics, Span

PLAT_BITS = 6  # fio's FIO_IO_U_PLAT_BITS (unchanged from 2.x to 3.x)
DIRECTIONS = ("read", "write", "trim", "sync")
PERCENTILES = {"p50_us": 50.0, "p90_us": 90.0, "p95_us": 95.0, "p99_us": 99.0, "p995_us": 99.5,
               "p999_us": 99.9, "p9999_us": 99.99}
_JSON_START = re.compile(r"^[ \t]*\{", re.MULTILINE)

FIO_JOBS_SCHEMA: dict[str, Any] = frame_schema("fio_jobs")
# json+ bins and their summary: no time of their own (fio's run is one sample)
_HIST_SCHEMA = frame_schema("histograms", ["sample_idx", "device", "metric", "op", "bucket_lo", "bucket_hi", "count"])
_STATS_SCHEMA = frame_schema("histogram_stats")
if not set(PERCENTILES) <= set(FIO_JOBS_SCHEMA):
    raise ValueError("parsers.fio: a percentile without its fio_jobs column")


def bin_range(value: int, bits: int = PLAT_BITS) -> tuple[int, int] | None:
    """The integer range [lo, hi) that fio's json+ bin keyed ``value`` holds; None if ``value`` is off fio's grid."""
    if value < 0:
        return None
    if value < (2 << bits):
        return value, value + 1
    msb = value.bit_length() - 1
    width = 1 << (msb - bits)
    lo = value - width // 2
    if lo < (1 << msb) or (lo - (1 << msb)) % width:
        return None
    return lo, lo + width


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(str(v))
    except ValueError:
        return None


def _line_of(text: str, needle: str, start: int = 0) -> int | None:
    pos = text.find(needle, start)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else None


KIND = register_kind("fio", "fio", {LATENCY_HISTOGRAMS, JOB_SUMMARY}, series=("fio job", "fio jobs"))



# what fio's JSON report means (parsers.semantics)
SEMANTICS = Semantics(
    main_table="fio_jobs", span=Span.NONE, counts=Counts.TOTALS,
    wording={"device": "jobname (`name #k` for clones)", "iops": "iops", "bw_kbs": "bw (KiB/s)",
             "io_kb": "io_kbytes", "runtime_s": "runtime (ms)", "lat_mean_us": "lat_ns / lat mean",
             "clat_mean_us": "clat_ns / clat mean", "slat_mean_us": "slat_ns / slat mean",
             "usr_cpu": "usr_cpu", "sys_cpu": "sys_cpu", "error": "error", "count": "json+ bins (clat_ns.bins)"},
    meta=(MetaKey("latency_unit_in_file", TEXT, "the unit of the file's latencies (µs in fio 2.x, ns in 3.x)",
                  nullable=True),
          MetaKey("json_plus", BOOL, "the report has json+ latency bins (stored in histograms)"),
          MetaKey("jobs", INT, "jobs in the report"),
          MetaKey("group_reporting", BOOL, "group_reporting was set: one entry per group"),
          MetaKey("global_options", OBJ, "the report's global options", nullable=True),
          MetaKey("disk_util", LIST, "fio's disk_util section (the devices fio saw)", nullable=True),
          MetaKey("job_times", OBJ, "what places each job in time (start, runtime, ramp): the cross-check's window"),
          MetaKey("client_aggregate", TEXT, "the 'All clients' entry of a client/server run, not stored")))


class FioJsonFormat:
    id = "fio-json"
    kind = KIND.id
    label = "fio JSON (json / json+)"
    priority = 450
    tables = ("fio_jobs", "histograms", "histogram_stats")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        if b"{" not in head:
            return 0.0
        if re.search(rb'"fio version"\s*:', head):
            return 0.97
        if re.search(rb'"jobs"\s*:\s*\[', head) and b'"jobname"' in head:
            return 0.75
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        text = read_text(path, "fio JSON output")
        m = _JSON_START.search(text)
        if m is None:
            raise ParseError("no JSON object found (expected fio --output-format=json output)", 1)
        start = m.start()
        if text[:start].strip():
            n = text[:start].strip().count("\n") + 1
            warn(f"{n} line{'s' if n > 1 else ''} of fio messages before the JSON ignored", 1)
        doc, end = parse_json(text, m.end() - 1)
        if text[end:].strip():
            warn("text after the JSON ignored (fio's normal text output written after its JSON)",
                 text.count("\n", 0, end) + 1)
        if not isinstance(doc, dict):
            raise ParseError("the JSON is not an object with a 'jobs' list", text.count("\n", 0, start) + 1)
        state.progress(0.3, "reading fio jobs")
        yield from _FioDoc(doc, text, warn).events()


class _FioDoc:
    def __init__(self, doc: dict[str, Any], text: str, warn: WarnFn):
        self.doc = doc
        self.text = text
        self.warn = warn
        version = str(doc.get("fio version") or "")
        mv = re.search(r"(\d+)\.(\d+)", version)
        self.major = int(mv.group(1)) if mv else None

    def _jobs(self) -> tuple[list[Any], bool]:
        """The jobs, and whether they are a client/server run's (``client_stats``)."""
        jobs = self.doc.get("jobs")
        client = False
        if not isinstance(jobs, list) and isinstance(self.doc.get("client_stats"), list):
            jobs, client = self.doc["client_stats"], True
        if not isinstance(jobs, list):
            raise ParseError("no 'jobs' list: not fio JSON output", 1)
        if not jobs:
            raise ParseError("the 'jobs' list is empty: fio ran no job", _line_of(self.text, '"jobs"'))
        return jobs, client

    def _devices(self, jobs: list[Any], client: bool) -> list[str]:
        """Each job's name as a device: its host's before it in a client/server run, '#k' after it where
        several jobs share it."""
        names: list[str] = []
        for i, job in enumerate(jobs):
            if not isinstance(job, dict) or "jobname" not in job:
                raise ParseError(f"jobs[{i}] has no 'jobname'", _line_of(self.text, '"jobs"'))
            name = str(job["jobname"])
            if client and job.get("hostname"):
                name = f"{job['hostname']}: {name}"
            names.append(name)
        seen: dict[str, int] = {}
        devices: list[str] = []
        for name in names:
            k = seen.get(name, 0)
            seen[name] = k + 1
            devices.append(f"{name} #{k}" if names.count(name) > 1 else name)
        return devices

    def events(self) -> Iterator[Event]:
        doc = self.doc
        jobs, client = self._jobs()
        gopts: dict[str, Any] = doc["global options"] if isinstance(doc.get("global options"), dict) else {}
        devices = self._devices(jobs, client)

        rows: list[dict[str, Any]] = []
        hist: list[tuple[Any, ...]] = []
        stats: list[tuple[Any, ...]] = []
        units: set[str] = set()
        skipped_aggregate = False
        search_from = 0
        for i, (job, device) in enumerate(zip(jobs, devices)):
            if client and str(job.get("jobname")) == "All clients":
                skipped_aggregate = True
                continue
            pos = self.text.find(json.dumps(str(job["jobname"]))[:-1], search_from)
            job_line = self.text.count("\n", 0, pos) + 1 if pos >= 0 else None
            search_from = max(search_from, pos + 1)
            opts = {**gopts, **(job.get("job options") or {})}
            active = 0
            for ddir in DIRECTIONS:
                d = job.get(ddir)
                if not isinstance(d, dict):
                    continue
                row = self._direction(job, i, device, ddir, d, opts, units, job_line)
                if row is None:
                    continue
                active += 1
                rows.append(row)
                if row["has_bins"]:
                    self._bins(d, ddir, device, hist, stats, job_line)
            if active == 0:
                self.warn(f"job {device!r} did no I/O (error {job.get('error', 0)}): no row stored", job_line)

        info = RunInfo(kind="fio", tool_version=str(doc.get("fio version")) if doc.get("fio version") else None)
        ended = self._report_time()
        info.meta = {
            "latency_unit_in_file": " and ".join(sorted(units)) or None,
            "json_plus": any(r["has_bins"] for r in rows),
            "jobs": len(jobs),
            "group_reporting": any(str(o.get("group_reporting", "0")) != "0"
                                   for o in [gopts, *[(j.get("job options") or {}) for j in jobs]]),
            "global_options": gopts or None,
            "disk_util": doc.get("disk_util"),
        }
        times = self._job_times(jobs, devices, gopts)
        if times:
            info.meta["job_times"] = times
        if skipped_aggregate:
            info.meta["client_aggregate"] = "the 'All clients' entry is not stored (it sums the others)"
        if ended is not None:
            info.file_date = ended.date()
            info.started_at = self._start_time(jobs, ended)
        key = "fio"
        yield RunStart(key, info)
        frame = pl.DataFrame(rows, schema=FIO_JOBS_SCHEMA) if rows else pl.DataFrame(schema=FIO_JOBS_SCHEMA)
        yield Rows(key, "fio_jobs", frame)
        if hist:
            yield Rows(key, "histograms", pl.DataFrame(hist, schema=_HIST_SCHEMA, orient="row"))
            yield Rows(key, "histogram_stats", pl.DataFrame(stats, schema=_STATS_SCHEMA, orient="row"))
        yield RunEnd(key, {"n_samples": 1, "n_devices": len({r["device"] for r in rows}), "ended_at": ended},
                     info=info)

    # ---- one direction of one job ------------------------------------------------------------
    def _lat(self, d: dict[str, Any], name: str, units: set[str]) -> tuple[dict[str, Any], float] | None:
        if isinstance(d.get(name + "_ns"), dict):
            units.add("ns")
            return d[name + "_ns"], 1000.0
        if isinstance(d.get(name), dict):
            units.add("µs")
            return d[name], 1.0
        return None

    def _direction(self, job: dict[str, Any], idx: int, device: str, ddir: str, d: dict[str, Any],
                   opts: dict[str, Any], units: set[str], line: int | None) -> dict[str, Any] | None:
        ios = d.get("total_ios")
        if "io_kbytes" in d:
            io_kb = _num(d["io_kbytes"])
        elif "io_bytes" in d:
            # fio 2.x printed KiB under the name io_bytes; 3.x prints bytes and adds io_kbytes
            io_kb = _num(d["io_bytes"]) if (self.major or 2) < 3 else (_num(d["io_bytes"]) or 0) / 1024
        else:
            io_kb = None
        runtime = _num(d.get("runtime"))
        if not ((ios or 0) > 0 or (io_kb or 0) > 0 or (runtime or 0) > 0):
            return None
        row: dict[str, Any] = {
            "device": device, "job_index": idx, "jobname": str(job.get("jobname")),
            "groupid": job.get("groupid"), "op": ddir,
            "rw": _opt(opts, "rw", "readwrite"), "bs": _opt(opts, "bs", "blocksize"),
            "iodepth": _opt(opts, "iodepth"), "numjobs": _opt(opts, "numjobs"), "ioengine": _opt(opts, "ioengine"),
            "ios": int(ios) if isinstance(ios, (int, float)) else None, "io_kb": io_kb,
            "iops": _num(d.get("iops")), "bw_kbs": _num(d.get("bw")),
            "runtime_s": runtime / 1000 if runtime is not None else None,
            "error": job.get("error"), "usr_cpu": _num(job.get("usr_cpu")), "sys_cpu": _num(job.get("sys_cpu")),
            "has_bins": False, "pct_of": None,
        }
        pct_src: tuple[str, dict[str, Any], float] | None = None
        for name in ("lat", "clat", "slat"):
            got = self._lat(d, name, units)
            if got is None:
                continue
            obj, f = got
            for stat in ("mean", "min", "max", "stddev"):
                col = f"{name}_{stat}_us"
                if col in FIO_JOBS_SCHEMA and (v := _num(obj.get(stat))) is not None:
                    row[col] = v / f
            if isinstance(obj.get("percentile"), dict) and (pct_src is None or name == "clat"):
                pct_src = (name, obj, f)
            if name == "clat" and isinstance(obj.get("bins"), dict) and obj["bins"]:
                row["has_bins"] = True
        if pct_src is not None:
            name, obj, f = pct_src
            row["pct_of"] = name
            pct = {}
            for k, v in obj["percentile"].items():
                p, val = _num(k), _num(v)
                if p is not None and p > 0 and val is not None:
                    pct[round(p, 4)] = val / f
            for col, p in PERCENTILES.items():
                row[col] = pct.get(p)
        if ddir == "sync" and row["ios"] == 0:
            return None
        return row

    def _bins(self, d: dict[str, Any], ddir: str, device: str, hist: list[tuple[Any, ...]],
              stats: list[tuple[Any, ...]], line: int | None) -> None:
        obj, f = (d["clat_ns"], 1000.0) if isinstance(d.get("clat_ns"), dict) else (d["clat"], 1.0)
        bins = obj["bins"]
        if ddir not in ("read", "write"):
            if any(_num(v) for v in bins.values()):
                self.warn(f"{ddir} latency bins of {device!r} are not stored (histograms hold read and write)", line)
            return
        if not all(re.fullmatch(r"\d+", str(k)) for k in bins):
            self.warn(f"latency bins of {device!r} ({ddir}) are keyed by bin index (fio 2.x json+): not imported; "
                      "fio's percentiles are", line)
            return
        total = 0
        off_grid: list[int] = []
        for k in sorted(bins, key=int):
            cnt = bins[k]
            if not isinstance(cnt, int) or cnt < 0:
                raise ParseError(f"latency bin {k} of {device!r} ({ddir}) has count {cnt!r}", line)
            v = int(k)
            rng = bin_range(v)
            if rng is None:
                off_grid.append(v)
                rng = (v, v + 1)
            lo, hi = rng
            hist.append((0, device, "latency_us", ddir, (lo - 1) / f, (hi - 1) / f, cnt))
            total += cnt
        if off_grid:
            self.warn(f"{len(off_grid)} latency bins of {device!r} ({ddir}) are not on fio's bin grid "
                      f"(first {off_grid[0]}): each is taken as that exact value", line)
        n = obj.get("N", d.get("total_ios"))
        count = int(n) if isinstance(n, (int, float)) else total
        if count != total:
            self.warn(f"latency bins of {device!r} ({ddir}) add up to {total:,} but fio counted {count:,} "
                      "completions", line)
        stats.append((0, device, "latency_us", ddir, _scaled(obj.get("min"), f), _scaled(obj.get("max"), f),
                      _scaled(obj.get("mean"), f), count))

    # ---- times -------------------------------------------------------------------------------
    def _job_times(self, jobs: list[Any], devices: list[str], gopts: dict[str, Any]) -> dict[str, Any] | None:
        """What places each job in time and says how it reached the disk, as fio printed it: the report time
        (``timestamp_ms``, UTC; ``utc_offset_s`` = the local ``time`` minus it, whole minutes), per job its
        ``job_start`` (ms since the epoch; fio 3.39 prints it, 3.33 does not), ``job_runtime`` (ms of I/O, ramp
        time excluded), ``elapsed`` (s, whole seconds) and the options ``direct``, ``buffered``, ``ramp_time``,
        ``filename``."""
        ts_ms = self.doc.get("timestamp_ms")
        if not isinstance(ts_ms, int) and isinstance(self.doc.get("timestamp"), int):
            ts_ms = self.doc["timestamp"] * 1000
        out: dict[str, Any] = {}
        if isinstance(ts_ms, int):
            out["report_timestamp_ms"] = ts_ms
            local = self._report_time_local()
            if local is not None:
                try:
                    utc = datetime.fromtimestamp(ts_ms / 1000, UTC).replace(tzinfo=None)
                except (OverflowError, ValueError, OSError):
                    utc = None
                if utc is not None:
                    out["utc_offset_s"] = round((local - utc).total_seconds() / 60) * 60
        per: list[dict[str, Any]] = []
        for job, device in zip(jobs, devices):
            if not isinstance(job, dict):
                continue
            opts = {**gopts, **(job.get("job options") or {})}
            row: dict[str, Any] = {"device": device}
            for key, name in (("job_start", "job_start_ms"), ("job_runtime", "job_runtime_ms"),
                              ("elapsed", "elapsed_s")):
                if isinstance(job.get(key), int) and not isinstance(job.get(key), bool):
                    row[name] = job[key]
            for key in ("direct", "buffered", "ramp_time", "filename"):
                if opts.get(key) is not None:
                    row[key] = str(opts[key])
            if len(row) > 1:
                per.append(row)
        if per:
            out["jobs"] = per
        return out or None

    def _report_time_local(self) -> datetime | None:
        t = self.doc.get("time")
        if isinstance(t, str):
            try:
                return datetime.strptime(t.strip(), "%a %b %d %H:%M:%S %Y")
            except ValueError:
                return None
        return None

    def _report_time(self) -> datetime | None:
        t = self.doc.get("time")
        if isinstance(t, str):
            try:
                return datetime.strptime(t.strip(), "%a %b %d %H:%M:%S %Y")
            except ValueError:
                pass
        ts = self.doc.get("timestamp")
        if isinstance(ts, (int, float)):
            try:
                when = datetime.fromtimestamp(ts, UTC).replace(tzinfo=None)
            except (OverflowError, ValueError, OSError):
                self.warn(f"'timestamp' {ts!r} is not a time: the report time is unknown", None)
                return None
            self.warn("the report time is taken from 'timestamp' (UTC): the file has no local 'time'", None)
            return when
        return None

    def _start_time(self, jobs: list[Any], ended: datetime) -> datetime | None:
        try:
            return self._start_time_of(jobs, ended)
        except (OverflowError, ValueError, OSError):  # a job start or elapsed time no clock can hold
            self.warn("the jobs' start time cannot be worked out (job_start / elapsed out of range)", None)
            return None

    def _start_time_of(self, jobs: list[Any], ended: datetime) -> datetime | None:
        starts = [j["job_start"] for j in jobs if isinstance(j, dict) and isinstance(j.get("job_start"), int)]
        ts = self.doc.get("timestamp")
        if starts and isinstance(ts, (int, float)):
            offset = ended - datetime.fromtimestamp(ts, UTC).replace(tzinfo=None)  # local wall clock - UTC
            return datetime.fromtimestamp(min(starts) / 1000, UTC).replace(tzinfo=None, microsecond=0) + offset
        elapsed = [j["elapsed"] for j in jobs if isinstance(j, dict) and isinstance(j.get("elapsed"), int)]
        if elapsed:
            return ended - timedelta(seconds=max(elapsed))
        return None


def _scaled(v: Any, f: float) -> float | None:
    n = _num(v)
    return n / f if n is not None else None


def _opt(opts: dict[str, Any], *names: str) -> str | None:
    for n in names:
        if n in opts and opts[n] is not None:
            return str(opts[n])
    return None


JSON_FORMAT = register(FioJsonFormat())
