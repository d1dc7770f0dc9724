"""Windows PowerShell ``Get-Counter`` samples saved with ``Export-Csv``: one row per counter and sample.

How such a file is made (Windows PowerShell 5.1 or PowerShell 7 on Windows)::

    Get-Counter -Counter '\\PhysicalDisk(*)\\*' -SampleInterval 10 -MaxSamples 360 |
        ForEach-Object { $_.CounterSamples } | Export-Csv disks.csv [-NoTypeInformation] [-UseCulture]

or with ``Select-Object Timestamp, Path, CookedValue`` before ``Export-Csv``. (``Export-Counter -FileFormat csv``
writes perfmon's own PDH-CSV instead, which :mod:`parsers.perfmon` reads.)

Layout, as PowerShell writes it (``CsvCommands.cs``: each property's ``ToString()``; ``CounterSample.cs``: the
properties of a ``PerformanceCounterSample`` in their order)::

    #TYPE Microsoft.PowerShell.Commands.GetCounter.PerformanceCounterSample      (5.1 without -NoTypeInformation)
    "Path","InstanceName","CookedValue","RawValue","SecondValue","MultipleCount","CounterType","Timestamp",
        "Timestamp100NSec","Status","DefaultScale","TimeBase"
    "\\\\sql01\\physicaldisk(0 c:)\\disk reads/sec","0 c:","17.066449",...,"12/29/2020 6:34:28 PM",
        "132537080683080000","0","0","10000000"

* Columns are found by their names (case aside), so ``Select-Object`` subsets in any order are read; ``Path``,
  ``CookedValue`` and a time (``Timestamp100NSec``, else ``Timestamp``) are needed. The delimiter is the header's
  (``,``; ``;`` or another list separator with ``-UseCulture``); a ``#TYPE`` line is read through.
* ``Path`` is ``\\\\host\\object(instance)\\counter``, which Get-Counter writes in lower case: it is read with
  perfmon's counter map (:mod:`parsers.perfmon`, English, German and French names, case aside), so the stored
  figures are perfmon's -- the same counters in the same units (``Disk Reads/sec`` -> ``r_s``, ``Avg. Disk
  sec/Read`` × 1000 -> ``r_await_ms`` …). Devices keep the instance as printed: ``PhysicalDisk(0 c:)`` (layer
  ``disk``), ``LogicalDisk(c:)`` (``volume``), ``PhysicalDisk(_total)`` (``total``, whatever its case).
  ``InstanceName`` is not used (it drops the ``#1`` of a second instance of one name).
* ``CookedValue`` is the counter's value over the time since the previous sample (PDH's formatted value), written
  by .NET in the exporting computer's culture: a decimal comma is read as one. A sample whose ``Status`` is not
  PDH's valid data (0, or 1: new data) has a ``CookedValue`` of 0 that PDH did not measure: stored as missing
  (NULL), never 0, and counted in ``runs.meta.invalid_values``.
* The time of a sample is ``Timestamp100NSec`` where the file has it: 100-ns ticks since 1601 of the computer's
  local clock (the PDH time stamp), exact and independent of the culture. Without it ``Timestamp`` as PowerShell
  printed it (the culture's date, to the second, ``AM``/``PM`` read): the day/month order is decided from every
  row, as for perfmon, and said in ``runs.meta.date_order``.
* A sample is one ``Get-Counter`` sample set: its rows follow each other, so a new one starts where a host's
  counter path comes again. One run per host (``-ComputerName`` with several computers).

Bad input stops the import with a ParseError naming the line (nothing stored): a row with the wrong number of
fields, a path that is not a counter path, a value that is not a number, a time that is not one. A last row cut
off (no line break, fields missing: the file was copied while PowerShell wrote it) is left out with a warning.
"""

from __future__ import annotations

import csv
import io
import math
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
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
    TextLines,
    WarnFn,
    decode,
)
from parsers.dates import ORDER_NAMES
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.pdh import CounterPath, norm, parse_counter_path, read_stamp, scan_dates
from parsers.perfmon import CPU_COUNTERS, DISK_COUNTERS, OBJECTS, QUEUE_PARTS, derive_cpu, derive_disk, describe_unread
from parsers.perfmon import SEMANTICS as PERFMON
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import BOOL, INT, LIST, OBJ, TEXT, Counts, MetaKey, Semantics, Span, common
from parsers.textutil import DATE_ORDER_FIX

KIND = register_kind("getcounter", "Get-Counter", {TIME_SERIES, DEVICE_RATES})

TYPE_NAME = "Microsoft.PowerShell.Commands.GetCounter.PerformanceCounterSample"
_TYPE_LINE = re.compile(r'^"?#TYPE\s+(?P<name>[^"\s]+)')
_DATE = re.compile(rb"(?<![\d.])(\d{1,4})([./-])(\d{1,2})[./-](\d{1,4})[ T](\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?\s*"
                   rb"([AaPp])?")
VALID_STATUS = {"0", "1"}  # PDH_CSTATUS_VALID_DATA, PDH_CSTATUS_NEW_DATA
FILETIME_EPOCH = datetime(1601, 1, 1)
CHUNK_SAMPLES = 2000  # samples of a host per Rows frame

# what Get-Counter's data means (parsers.semantics): perfmon's rows and words (the same counters), its own meta
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.SINCE_PREVIOUS, counts=Counts.RATES,
    layers={"disk": "physicaldisk(<n> <letters>)", "volume": "logicaldisk(<volume>)",
            "total": "physicaldisk(_total), logicaldisk(_total)"},
    wording={c: f"{w} (its CookedValue)" for c, w in PERFMON.wording.items()},
    meta=(*common("sample_span", "decimal_comma", "date_order", "date_reading"),
          MetaKey("columns", LIST, "the file's columns (every PerformanceCounterSample property, or a Select-Object "
                  "subset)"),
          MetaKey("type_line", TEXT, "the type named by the #TYPE line (Windows PowerShell 5.1)"),
          MetaKey("delimiter", TEXT, "the field delimiter (`;` or another list separator with -UseCulture)"),
          MetaKey("time_source", TEXT, "which column gave the sample times"),
          MetaKey("invalid_values", INT, "values PDH marked as not valid (Status): stored as missing"),
          MetaKey("last_row_cut", BOOL, "the file's last row was cut off and left out"),
          MetaKey("devices_by_layer", OBJ, "devices per layer"),
          MetaKey("counters_not_stored", LIST, "disk counters recognised and not stored"),
          MetaKey("disk_counters_unknown", LIST, "counters of a disk object that match no known name"),
          MetaKey("objects_not_read", OBJ, "other objects, with their column counts")))


# ---- the header ---------------------------------------------------------------------------------------------
def _fields(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter))


def _delimiter(line: str) -> str:
    """The header's delimiter: the most frequent of , ; tab | outside quotes."""
    outside = re.sub(r'"[^"]*"', "", line)
    counts = {d: outside.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _columns(line: str) -> tuple[str, dict[str, int]]:
    delim = _delimiter(line)
    return delim, {name.strip().casefold(): i for i, name in enumerate(_fields(line, delim))}


def sniff_text(head: bytes) -> tuple[str | None, dict[str, int]]:
    """The #TYPE name and the columns of a head (empty when it has no Get-Counter header)."""
    text = decode(head[3:] if head.startswith(b"\xef\xbb\xbf") else head)[0]
    lines = [ln for ln in text.split("\n")[:3] if ln.strip()]
    type_name = None
    if lines and (m := _TYPE_LINE.match(lines[0].strip())):
        type_name = m.group("name")
        lines = lines[1:]
    if not lines:
        return type_name, {}
    return type_name, _columns(lines[0].rstrip("\r"))[1]


@dataclass
class _Header:
    line: int
    delimiter: str
    columns: dict[str, int]
    names: list[str]
    type_name: str | None


def _header(path: str, state: JobState) -> _Header:
    type_name = None
    for n, text in TextLines(path, "a Get-Counter CSV", state):
        if not text.strip():
            continue
        if type_name is None and (m := _TYPE_LINE.match(text.strip())):
            type_name = m.group("name")
            continue
        delim, cols = _columns(text)
        missing = [c for c in ("path", "cookedvalue") if c not in cols]
        if missing:
            raise ParseError(f"the header has no {' and no '.join(missing)} column: not Get-Counter samples "
                             "(Export-Csv of CounterSamples has Path and CookedValue)", n)
        if "timestamp100nsec" not in cols and "timestamp" not in cols:
            raise ParseError("the header has no Timestamp or Timestamp100NSec column: the samples cannot be placed "
                             "in time; export them with Timestamp (Select-Object Timestamp, Path, CookedValue)", n)
        return _Header(n, delim, cols, [f.strip() for f in _fields(text, delim)], type_name)
    raise ParseError("no header line (Path, CookedValue …): not Get-Counter samples", 1)


# ---- what a counter path is -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Source:
    table: str
    device: str | None
    quantity: str
    layer: str | None


def classify(cp: CounterPath) -> _Source | None:
    """perfmon's counter map (parsers.perfmon), case aside: Get-Counter writes ``physicaldisk(_total)``."""
    obj = OBJECTS.get(norm(cp.obj))
    if obj is None or cp.instance is None:
        return None
    total = cp.instance.strip().casefold() == "_total"
    if obj == "Processor":
        hit = CPU_COUNTERS.get(norm(cp.counter))
        if not total or hit is None or hit[1] is None:
            return None
        return _Source("cpu_samples", None, hit[1], None)
    hit = DISK_COUNTERS.get(norm(cp.counter))
    if hit is None or hit[1] is None or hit[1] in QUEUE_PARTS:  # queue parts: perfmon's fallbacks, not read here
        return None
    layer = "total" if total else "disk" if obj == "PhysicalDisk" else "volume"
    return _Source("iostat_samples", f"{obj}({cp.instance})", hit[1], layer)


# ---- one host ---------------------------------------------------------------------------------------------------
@dataclass
class _Device:
    table: str
    device: str | None
    layer: str | None
    values: dict[str, list[float]] = field(default_factory=dict)  # quantity -> one value per sample


@dataclass
class _Run:
    host: str
    key: str
    devices: dict[tuple[str, str | None], _Device] = field(default_factory=dict)
    times: list[datetime] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    current: set[str] = field(default_factory=set)  # the paths of the sample being read
    sent: int = 0  # samples already sent as Rows (their values are no longer kept)
    started: bool = False

    def new_sample(self, t: datetime, line: int) -> None:
        self.current = set()
        self.times.append(t)
        self.lines.append(line)
        for d in self.devices.values():
            for v in d.values.values():
                v.append(math.nan)

    def put(self, src: _Source, value: float) -> None:
        d = self.devices.get((src.table, src.device))
        if d is None:
            d = self.devices[(src.table, src.device)] = _Device(src.table, src.device, src.layer)
        v = d.values.get(src.quantity)
        if v is None:
            v = d.values[src.quantity] = [math.nan] * (len(self.times) - self.sent)
        v[-1] = value

    def drop_sent(self, done: int) -> None:
        """Forget the values of the samples up to ``done`` (sent): a long capture streams in bounded memory."""
        for d in self.devices.values():
            for v in d.values.values():
                del v[:done - self.sent]
        self.sent = done


class _Reader:
    def __init__(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn):
        self.path, self.options, self.state, self.warn = path, options, state, warn
        self.header = _header(path, state)
        cols = self.header.columns
        self.i_path, self.i_value = cols["path"], cols["cookedvalue"]
        self.i_ticks = cols.get("timestamp100nsec")
        self.i_stamp = cols.get("timestamp")
        self.i_status = cols.get("status")
        self.rows = scan_dates(path, self.header.line, _DATE, search=True) if self.i_ticks is None else None
        self.dating = self.rows.decision(options.date_order) if self.rows is not None else None
        self.order = self.dating.order if self.dating is not None else "MDY"
        if self.dating is not None and self.rows is not None and not self.dating.decided:
            warn(f"the dates read both ways ({self.rows.dated[0].text!r}: "
                 + " or ".join(ORDER_NAMES[o] for o in self.dating.readings) + ") and nothing in the file decides "
                 f"which: they are stored read {ORDER_NAMES[self.order]} until you say which with {DATE_ORDER_FIX}",
                 None)
        self.runs: dict[str, _Run] = {}
        self.unread: dict[str, CounterPath] = {}
        self.paths: dict[str, tuple[_Source | None, str]] = {}  # path text -> what it is, its host
        self.decimal_comma: bool | None = None
        self.invalid = 0
        self.cut = False

    # -- one row ------------------------------------------------------------------------------------------------
    def _time(self, row: list[str], line: int) -> datetime:
        if self.i_ticks is not None:
            text = row[self.i_ticks].strip()
            if not text.isdigit():
                raise ParseError(f"Timestamp100NSec {text[:30]!r} is not a count of 100-ns ticks", line)
            return FILETIME_EPOCH + timedelta(microseconds=int(text) // 10)
        assert self.i_stamp is not None
        return read_stamp(row[self.i_stamp], self.order, line)

    def _value(self, row: list[str], line: int) -> float:
        if self.i_status is not None and row[self.i_status].strip() not in VALID_STATUS:
            self.invalid += 1
            return math.nan  # PDH did not measure it: its CookedValue 0 is no value
        text = row[self.i_value].strip()
        if not text:
            return math.nan
        comma = "," in text
        if comma and "." in text:
            raise ParseError(f"{text[:40]!r} is not a number (both a decimal comma and a point)", line)
        if comma or "." in text:
            if self.decimal_comma is None:
                self.decimal_comma = comma
            elif self.decimal_comma != comma:
                raise ParseError(f"{text[:40]!r}: the file mixes decimal commas and points", line)
        try:
            v = float(text.replace(",", "."))
        except ValueError:
            raise ParseError(f"CookedValue {text[:40]!r} is not a number", line) from None
        if not math.isfinite(v):
            raise ParseError(f"CookedValue {text[:40]!r} is out of range", line)
        return v

    def _row(self, row: list[str], line: int) -> Iterator[Event]:
        text = row[self.i_path]
        known = self.paths.get(text)
        if known is None:
            cp = parse_counter_path(text)
            if cp is None:
                raise ParseError(f"Path {text[:80]!r} is not a counter path (\\\\host\\object(instance)\\counter)",
                                 line)
            known = self.paths[text] = (classify(cp), cp.host or "")
            if known[0] is None:
                self.unread[text] = cp
        src, host = known
        if src is None:
            return
        run = self.runs.get(host.casefold())
        if run is None:
            run = self.runs[host.casefold()] = _Run(host, host or "getcounter")
        if not run.times or text in run.current:  # a path comes again: the next sample set
            yield from self._flush(run)
            run.new_sample(self._time(row, line), line)
        run.current.add(text)
        run.put(src, self._value(row, line))

    # -- frames -------------------------------------------------------------------------------------------------
    def _flush(self, run: _Run, final: bool = False) -> Iterator[Event]:
        """Send the run's complete samples as Rows, CHUNK_SAMPLES at a time (all that are left when ``final``)."""
        done = len(run.times)  # called between samples: every sample read is complete
        if done - run.sent < (1 if final else CHUNK_SAMPLES):
            return
        if not run.started:
            run.started = True
            yield RunStart(run.key, self._info(run))
        yield from self._frames(run, run.sent, done)
        run.drop_sent(done)

    def _frames(self, run: _Run, first: int, end: int) -> Iterator[Rows]:
        """Samples ``first`` to ``end`` of the run (the values kept are those from ``run.sent`` on)."""
        n = end - first
        ts = run.times[first:end]
        t_s = np.array([(t - run.times[0]).total_seconds() for t in ts], dtype=np.float64)
        for table, derive in (("iostat_samples", derive_disk), ("cpu_samples", derive_cpu)):
            devs = [d for d in run.devices.values() if d.table == table]
            if not devs:
                continue
            parts: dict[str, list[np.ndarray]] = {}
            missing = np.full(n, np.nan)
            for j, d in enumerate(devs):
                q = {k: np.array(v[:n], dtype=np.float64) for k, v in d.values.items()}
                out = derive(q, n)
                for m in out:
                    parts.setdefault(m, [missing] * j)
                for m, p in parts.items():
                    p.append(out.get(m, missing))
            frame = pl.DataFrame({
                "sample_idx": np.tile(np.arange(first, end, dtype=np.int64), len(devs)),
                "ts": pl.Series(ts * len(devs), dtype=pl.Datetime("us")),
                "t_s": np.tile(t_s, len(devs)),
                **{m: pl.Series(m, np.concatenate(p), dtype=pl.Float64, nan_to_null=True) for m, p in parts.items()},
            })
            if table == "iostat_samples":
                which = np.repeat(np.arange(len(devs)), n)
                frame = frame.with_columns(
                    pl.Series("device", [d.device for d in devs], dtype=pl.String).gather(which),
                    pl.Series("layer", [d.layer for d in devs], dtype=pl.String).gather(which),
                    pl.lit(False).alias("since_boot"), pl.lit(False).alias("is_group"))
            schema = frame_schema(table, frame.columns)
            yield Rows(run.key, table, frame.cast(schema))  # type: ignore[arg-type]  # polars takes a dtype dict

    # -- the whole file -----------------------------------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        h = self.header
        width = len(h.names)
        lines = TextLines(self.path, "a Get-Counter CSV", self.state)
        ends_with_newline = _ends_with_newline(self.path)
        pending: tuple[int, str] | None = None
        for n, text in lines:
            if n <= h.line or not text.strip():
                continue
            if pending is not None:
                yield from self._line(*pending, width)
            pending = (n, text)
        if pending is not None:
            row = _fields(pending[1], h.delimiter)
            if not ends_with_newline and len(row) < width:
                self.cut = True
                self.warn("the file ends in the middle of its last row (no line break, fields missing): the row "
                          "is left out", pending[0])
            else:
                yield from self._line(*pending, width)
        if not self.runs or not any(r.times for r in self.runs.values()):
            raise ParseError("no disk or processor counter StormScope reads (PhysicalDisk, LogicalDisk, "
                             f"Processor(_Total)); the file has {_objects(self.unread)}", None)
        for run in self.runs.values():
            yield from self._flush(run, final=True)
            yield self._end(run)

    def _line(self, n: int, text: str, width: int) -> Iterator[Event]:
        row = _fields(text, self.header.delimiter)
        if len(row) != width:
            raise ParseError(f"expected {width} fields (as the header says), found {len(row)}", n)
        yield from self._row(row, n)

    def _info(self, run: _Run) -> RunInfo:
        return RunInfo(kind=KIND.id, host=run.host or None, os="Windows",
                       tool_version="PowerShell Get-Counter (Export-Csv)",
                       file_date=run.times[0].date() if run.times else None,
                       started_at=run.times[0] if run.times else None)

    def _end(self, run: _Run) -> RunEnd:
        times = run.times
        back = [i for i in range(1, len(times)) if times[i] <= times[i - 1]]
        if back:
            i = back[0]
            self.warn(f"the clock stood still or went back by {(times[i - 1] - times[i]).total_seconds():g} s "
                      "(daylight saving time ends?): samples keep their times", run.lines[i])
        diffs = sorted((b - a).total_seconds() for a, b in zip(times, times[1:]) if b > a)
        interval = round(statistics.median(diffs), 3) if diffs else None
        info = self._info(run)
        info.interval_s, info.interval_source = (interval, "timestamps") if interval else (None, "unknown")
        if interval is None:
            self.warn("one sample only: the interval is unknown; set it with {fix:set_interval}", None)
        info.meta = self._meta(run)
        n_dev = len({d.device for d in run.devices.values() if d.table == "iostat_samples"})
        return RunEnd(run.key, {"n_samples": len(times), "n_devices": n_dev, "ended_at": times[-1]}, info)

    def _meta(self, run: _Run) -> dict[str, Any]:
        h = self.header
        meta: dict[str, Any] = {"sample_span": "since_previous", "columns": h.names}
        if h.type_name:
            meta["type_line"] = h.type_name
        if h.delimiter != ",":
            meta["delimiter"] = {"\t": "tab"}.get(h.delimiter, h.delimiter)
        if self.i_ticks is not None:
            meta["time_source"] = "Timestamp100NSec: 100-ns ticks of the computer's local clock"
        else:
            meta["time_source"] = "Timestamp, as PowerShell printed it (to the second)"
            assert self.dating is not None
            assert self.rows is not None
            meta["date_order"] = self.dating.note
            if not self.dating.decided:
                meta["date_reading"] = self.rows.reading(self.dating)
        if self.decimal_comma:
            meta["decimal_comma"] = True
        if self.invalid:
            meta["invalid_values"] = self.invalid
        if self.cut:
            meta["last_row_cut"] = True
        by_layer: dict[str, int] = {}
        for d in run.devices.values():
            if d.table == "iostat_samples":
                by_layer[d.layer or "device"] = by_layer.get(d.layer or "device", 0) + 1
        meta["devices_by_layer"] = dict(sorted(by_layer.items()))
        mine = [cp for cp in self.unread.values() if (cp.host or "").casefold() == run.host.casefold()]
        meta.update(describe_unread(mine))
        return meta


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as fh:
        fh.seek(0, io.SEEK_END)
        if fh.tell() == 0:
            return True
        fh.seek(-1, io.SEEK_END)
        return fh.read(1) == b"\n"


def _objects(unread: dict[str, CounterPath]) -> str:
    objs = sorted({cp.obj for cp in unread.values()})
    return ("counters of " + ", ".join(objs[:6]) + (" …" if len(objs) > 6 else "")) if objs else "no counter"


class GetCounterCsvFormat:
    id = "getcounter-csv"
    kind = KIND.id
    label = "PowerShell Get-Counter samples (Export-Csv)"
    priority = 305
    tables = ("iostat_samples", "cpu_samples")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        type_name, cols = sniff_text(head)
        if not {"path", "cookedvalue"} <= set(cols):
            return 0.0
        if type_name is not None and type_name.endswith(TYPE_NAME):
            return 0.98
        return 0.96 if {"timestamp", "timestamp100nsec"} & set(cols) else 0.6

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Reader(path, options, state, warn).events()


FORMAT = register(GetCounterCsvFormat())
