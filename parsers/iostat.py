"""sysstat ``iostat`` text output, 9.x to 12.7, every report layout.

How it works: the file is read in chunks cut at blank lines. Each chunk is
split into *blocks* (text between blank lines); Python walks the blocks to
follow the report structure (banner, ``-t`` timestamp, ``avg-cpu:`` block,
``Device`` header) while the device rows themselves -- almost all of the
bytes -- are split and converted in bulk: rows of printable ASCII with one
field per header name (nearly all) have their blank runs turned into one
separator by numpy and are read by polars' CSV reader, on a worker thread
while the next chunk is walked; any other row (tabs, non-ASCII names, ``-g``
groups, pasted excerpts, ``--human`` units, decimal commas, a value that is
no number) is cut where its header says, else split on whitespace, and a bad
one named by its line. Memory is bounded by the chunk size; throughput is
measured by ``benchmarks/bench_import.py``.

Columns are found by their header names (see :mod:`parsers.iostat_columns`),
never by position, so every release, ``-k/-m/--human``, ``--pretty``/``-j``
(device name last), ``-s``, ``-g`` groups and decimal-comma locales share
one code path.

``iostat -x --pretty`` (sysstat 12.x) prints each report's columns in four
sections (``r/``, ``w/``, ``d/``, ``f/`` groups), each with its own header and
the device last: a device block whose header is new in the report and whose
columns no earlier block of the report gave is a further *section* of that
report, and each device's sections are merged into one row.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from array import array
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

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
    SampleTimes,
    SinceBoot,
    WarnFn,
    decode,
)
from parsers.bulk import blank_separated as _plain_fields
from parsers.bulk import plain_numbers, read_fields
from parsers.dates import Words
from parsers.iostat_columns import (
    COLUMNS,
    CPU_COLUMNS,
    KB_COLUMNS,
    layout_family,
)
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import Counts, Semantics, Span, common
from parsers.textutil import (
    RawStamp,
    StampResolver,
    date_stamps,
    fast_stamp,
    resolve_stamps,
    split_stamp,
    stamp_date,
    stamp_datetime,
)

BANNER = re.compile(
    r"^(?P<os>[A-Za-z][\w.-]*)\s+(?P<release>\S+)\s+\((?P<host>[^)]*)\)\s+(?P<date>\S+(?:\s\S+){0,2}?)"
    r"\s+_(?P<arch>[^_\s]+(?:_[^_\s]+)*)_\s+\((?P<cpus>\d+)\s+CPU\)"
)
DEVICE_HEADER = re.compile(r"^\s*Device:?\s+\S|\S\s+Device:?\s*$")  # and at least one column name
CPU_HEADER = re.compile(r"^\s*avg-cpu:")
_SPLIT_BLOCKS = re.compile(r"\n[ \t]*\n")
_BLANKS_LINE = re.compile(r"\n[ \t]+\n")  # a blank line holding blanks (the chunk walk declines it)
MAX_LINE = 64 * 1024
# read at most this much at a time: the text, its device rows and their conversion are held about twice over (the
# worker thread converts the chunk before), and a smaller chunk costs more per-chunk work (256 MB log, peak RSS /
# CPU: 1 MB 373 MB / 13.3 s, 2 MB 399 MB / 11.1 s, 4 MB 436 MB / 11.1 s)
READ_BYTES = 2 * 1024 * 1024
SINCE_BOOT_RATIO = 3.0
MAX_LINES_LISTED = 10  # a warning lists the lines of this many rows left out, then counts the rest


def _sniff_text(head: bytes) -> str:
    if b"\x00" in head:
        return ""
    return head.decode("utf-8", errors="replace").replace("\r\n", "\n")


_CPU_FIELDS = ("user", "nice", "system", "iowait", "steal", "idle")
_NOT_PRINTED = math.nan  # a CPU column the header does not name (the values are checked: none is NaN)


def _cpu_before(cpu: array, n_samples: int) -> array:
    """The CPU rows of the samples before ``n_samples``."""
    width = 1 + len(_CPU_FIELDS)
    keep = array("d")
    for i in range(0, len(cpu), width):
        if cpu[i] < n_samples:
            keep.extend(cpu[i: i + width])
    return keep


# the run kind of both iostat formats (text here, JSON in parsers.iostat_json)
KIND = register_kind("iostat", "iostat", {TIME_SERIES, DEVICE_RATES})


def _wording(columns: dict[str, tuple[str, float]]) -> dict[str, str]:
    """Stored column -> the header names iostat prints for it (several across sysstat releases and units)."""
    out: dict[str, list[str]] = {}
    for name, (column, _factor) in columns.items():
        out.setdefault(column, []).append(name)
    return {c: ", ".join(names) for c, names in out.items()}


# what iostat's data means (parsers.semantics); the JSON format (parsers.iostat_json) shares the wording
WORDING = {**_wording(COLUMNS), **{c: h for h, c in CPU_COLUMNS.items()}}
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES, names=LINUX_NAMES, wording=WORDING,
    meta=(*common("arch", "cpus", "banner_date", "segments", "decimal_comma", "human_units", "utc_offset",
                  "date_order", "date_reading"),))


class IostatTextFormat:
    id = "iostat-text"
    kind = KIND.id
    label = "sysstat iostat (text)"
    priority = 500
    tables = ("iostat_samples", "cpu_samples")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = _sniff_text(head)
        if not text:
            return 0.0
        lines = text.split("\n")
        banner = bool(lines and BANNER.match(lines[0].strip() or (lines[1].strip() if len(lines) > 1 else "")))
        dev = any(DEVICE_HEADER.search(ln) and ("/s" in ln or "tps" in ln or "%util" in ln) for ln in lines)
        cpu = any(CPU_HEADER.match(ln) for ln in lines)
        # sar shares the banner but prints time-prefixed headers
        sar = any(re.match(r"^\d{1,2}:\d{2}:\d{2}(\s*[AP]M)?\s+(CPU|DEV|tps|proc/s)\b", ln) for ln in lines)
        if sar:
            return 0.05
        if dev or cpu:
            return 0.95 if banner else 0.8
        if len(lines) <= 2 and re.match(r"^(Linux|GNU/Linux)\s+\S+\s+\(", lines[0]):
            return 0.6  # a banner longer than the sniffed head (an absurdly long host name)
        return 0.3 if banner else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Parser(path, options, state, warn).events()


@dataclass
class _Header:
    """One distinct device header line (a file may have a few: layouts change on restart)."""

    tokens: list[str]
    device_last: bool
    names: list[str]  # header names of the value columns, in file order
    canon: list[str | None]  # canonical column per value column (None = unknown, ignored)
    factors: list[float]
    text: str = ""  # the header line as printed (right-stripped)
    spans: list[tuple[int, int]] = field(default_factory=list)  # value columns: (start, end) in the header



@dataclass
class _Pending:
    """Device rows of one header signature, waiting to be converted in bulk."""

    header: _Header
    parts: list[str] = field(default_factory=list)
    sample: list[int] = field(default_factory=list)  # per block
    nrows: list[int] = field(default_factory=list)
    first_line: list[int] = field(default_factory=list)
    key: list[str] = field(default_factory=list)
    ts: list[datetime | None] = field(default_factory=list)  # per block: the report's time, as streamed


@dataclass
class _Batch:
    """The device rows of one flush, being converted: (pending key, rows, the plain conversion's future or None
    to convert when emitted); whether it is the file's last; the parser's (human, decimal_comma) flags and
    each run's ``sections`` when it was read."""

    items: list[tuple[str, _Pending, Future[pl.DataFrame | None] | None]]
    final: bool
    flags: tuple[bool, bool | None]
    sections: dict[str, bool]


@dataclass
class _RunState:
    key: str
    host: str | None
    info: RunInfo
    sample_idx: int = -1
    segment_starts: list[int] = field(default_factory=list)
    stamps: list[tuple[int, RawStamp]] = field(default_factory=list)
    resolver: StampResolver | None = None
    ts_by_sample: dict[int, datetime] = field(default_factory=dict)
    t0: datetime | None = None
    cpu: array = field(default_factory=lambda: array("d"))  # per report: sample, user .. idle (NaN: not printed)
    ratios: dict[int, list[float]] = field(default_factory=dict)
    rows: int = 0
    devices: set[str] = field(default_factory=set)
    layout: str | None = None
    layout_cols: tuple[set[str], list[str]] = field(default_factory=lambda: (set(), []))  # first report's columns
    started: bool = False  # RunStart sent
    report_sample: int = -2  # the report the device blocks below belong to
    report_headers: list[_Header] = field(default_factory=list)  # headers of that report's device blocks
    sections: bool = False  # reports printed in several sections (--pretty -x): their rows are merged
    latest: datetime | None = None  # the latest report time kept (a report at or before it overlaps: left out)
    back_in_time: list[tuple[int, datetime, datetime]] = field(default_factory=list)  # (line, time, latest) left out
    repeated: list[tuple[int, str]] = field(default_factory=list)  # (line, device) of rows listing a device again
    iops_from: tuple[str, int] | None = None  # what the run's reports count as I/O, and the header line saying so
    iops_checked: set[int] = field(default_factory=set)  # headers whose I/O columns were compared with iops_from


class _Parser:
    pipeline = True  # convert a chunk's rows on a worker thread while the next chunk is read (tests compare)

    def __init__(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn):
        self.path = path
        self.opt = options
        self.state = state
        self.warn = warn
        self.encoding = "utf-8"  # Windows-1252 once a chunk is not UTF-8 (parsers.base.decode)
        self.headers: dict[str, _Header] = {}
        self.pending: dict[str, _Pending] = {}
        self.pending_rows = 0
        self.runs: dict[str, _RunState] = {}
        self.run: _RunState | None = None
        self.start_kind: str | None = None  # what opens a report: 'ts' | 'cpu' | 'dev'
        self.decimal_comma: bool | None = None
        self.human = False
        self.unknown_cols: set[str] = set()
        self.cpu_header: list[str] | None = None
        self.line_no = 1  # line number of the current chunk's first line
        self._last_block: tuple[str, int] | None = None  # (pending key, block) of the file's unterminated end
        self._drop_sample: tuple[str, int] | None = None  # (run, sample) cut off by the end of the file
        self._checked_headers: set[int] = set()
        self._block_rows: dict[str, int] = {}  # pending key -> rows of its latest device block
        self._prev_rows: int | None = None  # rows of the block before the latest one, same key
        self._skip_report = False  # the report being read is left out (its time goes back)
        self._pool: ThreadPoolExecutor | None = None  # converts a chunk's rows while the next is read
        self._inflight: _Batch | None = None

    # ---- reading -------------------------------------------------------------------------
    def _chunks(self) -> Iterator[tuple[str, bool]]:
        size = 0
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            total = fh.tell() or 1
            fh.seek(0)
            carry = b""
            first = True
            while True:
                data = fh.read(min(self.opt.chunk_bytes, READ_BYTES))
                eof = not data
                buf = carry + data if carry else data
                if b"\r" in buf:  # (a search, cheaper than the copy replace makes)
                    buf = buf.replace(b"\r\n", b"\n")  # a CRLF split between reads is rejoined
                if b"\x00" in data:
                    line = self.line_no + buf[: buf.index(b"\x00")].count(b"\n")
                    raise ParseError("binary data (NUL byte): not a text iostat log", line)
                if not eof:
                    cut = buf.rfind(b"\n\n")
                    if cut < 0:
                        if len(buf) > 4 * self.opt.chunk_bytes:
                            raise ParseError("no blank line in a very large block: not an iostat log", self.line_no)
                        carry = buf
                        continue
                    carry = buf[cut + 2:]
                    buf = buf[: cut + 2]
                else:
                    carry = b""
                size += len(data)
                self.state.progress(size / total, "reading")
                if first and buf.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark
                    buf = buf[3:]
                first = False
                text, self.encoding = decode(buf, self.encoding)
                if "\r" in text:
                    text = text.replace("\r\n", "\n").replace("\r", "\n")
                yield text, eof
                if eof:
                    break

    def events(self) -> Iterator[Event]:
        try:
            for text, eof in self._chunks():
                try:
                    yield from self._chunk(text, eof)
                except ParseError:
                    # the chunk read before this one is still being converted: what is wrong there comes first
                    yield from self._emit_inflight()
                    raise
                self.state.check()
            yield from self._flush(final=True)
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
        if not self.runs:
            raise ParseError("no iostat report found (expected a 'Device' header or an 'avg-cpu:' block)", 1)
        for rs in self.runs.values():
            yield from self._finish(rs)

    # ---- structure ------------------------------------------------------------------------
    def _chunk(self, text: str, eof: bool) -> Iterator[Event]:
        if not eof and self._fast_chunk(text):
            if self.pending_rows:
                yield from self._flush(final=False)
            return
        pos = 0
        line = self.line_no
        for m in _SPLIT_BLOCKS.finditer(text):
            block = text[pos:m.start()]
            self._block(block, line)
            line += text.count("\n", pos, m.end())
            pos = m.end()
        rest = text[pos:]
        if rest.strip():
            self._block(rest.rstrip("\n"), line, last=eof)
            if eof:
                self._check_cut_end(text, line + rest.rstrip("\n").count("\n"))  # the file's last line
        line += rest.count("\n")
        self.line_no = line
        if self.pending_rows:
            yield from self._flush(final=eof)

    # ---- the regular reports of a chunk, walked in one go ------------------------------------------------------
    def _fast_chunk(self, text: str) -> bool:
        """Walk a chunk of regular reports -- each a ``-t`` stamp (with its ``avg-cpu:`` block, if any), then one
        device block under a header already met -- as :meth:`_block` would, at a few string searches per report
        instead of a look at every line. False, with nothing changed, when the chunk holds anything else (a banner,
        a new header, a stamp not in the common form, time going back, a report left out, sections, a blank line
        holding blanks, a run whose first device block is still to come...): :meth:`_block` then walks it, and
        says what is wrong where."""
        rs = self.run
        if (rs is None or self.start_kind != "ts" or self.decimal_comma is not False or self.human or rs.sections
                or rs.layout is None or rs.resolver is None or rs.resolver.order is None or rs.t0 is None
                or self._skip_report or _BLANKS_LINE.search(text)):
            return False
        planned = self._fast_plan(rs, text)
        if planned is None:
            return False
        plan, self.line_no = planned
        self._fast_commit(rs, plan)
        return True

    def _fast_plan(self, rs: _RunState, text: str) -> tuple[list[tuple], int] | None:
        """The chunk's reports as ('ts', stamp, time, cpu values or None) and ('dev', header, rows, first line, row
        count) steps, and the line number after the chunk; None when a block is not regular. Changes nothing."""
        plan: list[tuple] = []
        latest = rs.latest
        order = rs.resolver.order if rs.resolver is not None else None
        if order is None:
            return None
        awaiting_rows = rs.report_sample != rs.sample_idx  # the open report has no device block yet
        pos, line, n = 0, self.line_no, len(text)
        while pos < n:
            if text[pos] == "\n":  # a further blank line
                pos += 1
                line += 1
                continue
            end = text.find("\n\n", pos)
            if end < 0 or end - pos > MAX_LINE:  # a chunk read before the file's end ends with a blank line
                return None
            nl = text.find("\n", pos, end)
            first = text[pos: nl if nl >= 0 else end]
            if first.startswith("Device"):
                step = self._fast_device(text, first, nl, end, line) if awaiting_rows else None
                if step is None:
                    return None
                plan.append(step)
                awaiting_rows = False
                line += step[4] + 1
            else:
                steps = self._fast_stamp_block(order, text, first, nl, end, line, latest)
                if steps is None:
                    return None
                latest = steps[0][2]
                plan.extend(steps)
                awaiting_rows = len(steps) == 1
                line += 1 + (steps[1][4] + 1 if len(steps) > 1 else 2 if steps[0][3] is not None else 0)
            line += 1  # the blank line (its line break and the block's last one: ``end`` is at the latter)
            pos = end + 2
        return plan, line

    def _fast_device(self, text: str, header: str, nl: int, end: int, line: int) -> tuple | None:
        """A device block under a header already met (and checked for --human units), as a plan step."""
        h = self.headers.get(header.rstrip())
        if h is None or id(h) not in self._checked_headers or self.run is None or id(h) not in self.run.iops_checked \
                or nl < 0:
            return None
        rows = text[nl + 1: end]
        if not rows or rows.isspace() or rows.endswith("\n"):
            return None
        return ("dev", h, rows, line + 1, rows.count("\n") + 1)

    def _fast_stamp_block(self, order: str, text: str, first: str, nl: int, end: int, line: int,
                          latest: datetime | None) -> list[tuple] | None:
        """A block opening a report with its stamp: the stamp alone, with the ``avg-cpu:`` header and values, or with
        a device block; None when it is anything else or its time is not after ``latest``."""
        stamp = fast_stamp(first.strip())
        if stamp is None:
            return None
        try:
            dt = stamp_datetime(stamp, order)
        except ValueError:  # the day/month order changes here: said by the line-by-line walk
            return None
        if latest is not None and dt <= latest:
            return None
        if nl < 0:
            return [("ts", stamp, dt, None)]
        second_end = text.find("\n", nl + 1, end)
        second = text[nl + 1: second_end if second_end >= 0 else end]
        if second.startswith("Device"):
            dev = self._fast_device(text, second, second_end, end, line + 1)
            return None if dev is None else [("ts", stamp, dt, None), dev]
        if second_end < 0 or not CPU_HEADER.match(second) or second.split()[1:] != self.cpu_header:
            return None
        cpu = self._fast_cpu(text[second_end + 1: end])
        return None if cpu is None else [("ts", stamp, dt, cpu)]

    def _fast_cpu(self, values: str) -> list[float] | None:
        """The CPU values of an ``avg-cpu:`` block as :meth:`_cpu_values` stores them, or None when they are not
        one line of plain percentages under the header met before."""
        hdr = self.cpu_header or []
        toks = values.split()
        if "\n" in values or len(toks) != len(hdr):
            return None
        try:
            nums = [float(t) for t in toks]
        except ValueError:
            return None
        if not all(0 <= v <= 100 for v in nums):
            return None
        rec = {CPU_COLUMNS.get(h, h.lstrip("%")): v for h, v in zip(hdr, nums)}
        return [rec.get(k, _NOT_PRINTED) for k in _CPU_FIELDS]

    def _fast_commit(self, rs: _RunState, plan: list[tuple]) -> None:
        """Apply a chunk's plan (:meth:`_fast_plan`) to the run, as :meth:`_block` would report by report."""
        resolver = rs.resolver
        assert resolver is not None  # the plan was made with its order
        for step in plan:
            if step[0] == "ts":
                _, stamp, dt, cpu = step
                rs.sample_idx += 1
                rs.stamps.append((rs.sample_idx, stamp))
                rs.ts_by_sample[rs.sample_idx] = dt
                rs.latest = dt
                resolver.prev = dt
                if cpu is not None:
                    rs.cpu.append(rs.sample_idx)
                    rs.cpu.extend(cpu)
                continue
            _, h, rows, first_line, n = step
            rs.report_sample = rs.sample_idx
            rs.report_headers = [h]
            self._queue(rs, h, rows, n, first_line)

    def _block(self, block: str, line: int, last: bool = False) -> None:
        # skip leading blank lines inside the block (a file may start with them)
        while True:
            nl = block.find("\n")
            if nl < 0 or block[:nl].strip():
                break
            block = block[nl + 1:]
            line += 1
        if not block or block.isspace():
            return
        if len(block) > MAX_LINE and max(len(x) for x in block.split("\n")) > MAX_LINE:
            lines = block.split("\n")
            i = next(i for i, x in enumerate(lines) if len(x) > MAX_LINE)
            raise ParseError(f"line of {len(lines[i]):,} characters: not an iostat report", line + i)
        pos = 0
        while pos <= len(block):
            nl = block.find("\n", pos)
            end = len(block) if nl < 0 else nl
            ln = block[pos:end]
            stripped = ln.strip()
            if not stripped:
                pass
            elif DEVICE_HEADER.search(ln):
                rows = block[end + 1:] if nl >= 0 else ""
                self._device_block(ln, rows, line, last)
                return
            elif CPU_HEADER.match(ln):
                self._open_report("cpu", line)
                self.cpu_header = stripped.split()[1:]
                nxt = block.find("\n", end + 1) if nl >= 0 else -1
                values = block[end + 1: nxt if nxt >= 0 else len(block)] if nl >= 0 else ""
                self._cpu_values(values, line + 1, last)
                if nl < 0 or nxt < 0:
                    return
                pos = nxt + 1
                line += 2
                continue
            elif m := BANNER.match(stripped):
                self._banner(m, line)
            else:
                self._stamp_line(stripped, line)
            if nl < 0:
                return
            pos = nl + 1
            line += 1

    def _stamp_line(self, stripped: str, line: int) -> None:
        """A report's timestamp (any other line here is an error)."""
        stamp = fast_stamp(stripped) or split_stamp(stripped)
        if stamp is None:
            raise ParseError(f"unexpected text {stripped[:60]!r}: expected a timestamp, "
                             "an 'avg-cpu:' block or a 'Device' header", line)
        self._open_report("ts", line)
        rs = self._cur()
        rs.stamps.append((rs.sample_idx, stamp))
        if rs.resolver is None:
            rs.resolver = StampResolver(rs.info.meta.get("_banner_stamp"))
        order = rs.resolver.order
        try:
            dt = rs.resolver.add(stamp)
        except ValueError:
            raise ParseError(f"impossible date or time {stripped!r}", line) from None
        if order is not None and rs.resolver.order != order and len(rs.stamps) > 1:
            # a day above 12 came late: the earlier reports' times read the other way round
            times = resolve_stamps([s for _, s in rs.stamps], rs.info.meta.get("_banner_stamp"))[0]
            rs.latest = max(times[:-1])
        if rs.latest is not None and dt <= rs.latest and self.start_kind == "ts":
            # the clock was set back, or logs were joined out of order: this report covers time already covered
            # (kept, its I/O would be counted twice and its t_s would be negative): left out, and said
            rs.back_in_time.append((line, dt, rs.latest))
            rs.stamps.pop()
            rs.sample_idx -= 1
            self._skip_report = True
            return
        rs.latest = dt
        rs.ts_by_sample[rs.sample_idx] = dt
        if rs.t0 is None:
            rs.t0 = dt

    def _check_cut_end(self, text: str, line: int) -> None:
        """A log cut off inside its last report: leave that report out (with a warning) rather than store a
        value cut short ('0.3' of '0.32') or a report missing its last devices.

        Cut for sure: the file does not end with a line break. Cut very likely: no blank line after the last
        report (iostat prints one) and fewer device rows than the report before it.
        """
        if self.run is None or self.run.sample_idx < 0:
            return
        cut_line = not text.endswith("\n")
        short = False
        if not cut_line and not text.endswith("\n\n") and self._last_block is not None:
            key, idx = self._last_block
            p = self.pending.get(key)
            if p is not None and idx < len(p.nrows) and self._prev_rows is not None:
                short = p.nrows[idx] < self._prev_rows
        if not (cut_line or short):
            return
        rs = self.run
        sample = rs.sample_idx
        self._drop_sample = (rs.key, sample)
        why = "its last line is cut short" if cut_line else \
            "no blank line ends it and it has fewer devices than the report before"
        self.warn(f"the file ends in the middle of a report ({why}): the incomplete last report was left out", line)
        for p in self.pending.values():
            keep = [i for i, (k, smp) in enumerate(zip(p.key, p.sample)) if not (k == rs.key and smp == sample)]
            if len(keep) == len(p.parts):
                continue
            self.pending_rows -= sum(p.nrows[i] for i in range(len(p.parts)) if i not in keep)
            for name in ("parts", "sample", "nrows", "first_line", "key", "ts"):
                setattr(p, name, [getattr(p, name)[i] for i in keep])
        self.pending = {k: p for k, p in self.pending.items() if p.parts}
        self._last_block = None

    def _cur(self) -> _RunState:
        if self.run is None:
            # no banner (a pasted excerpt): one run with an unknown host
            self._start_run(None, RunInfo(kind="iostat"))
        assert self.run is not None
        return self.run

    def _start_run(self, host: str | None, info: RunInfo) -> None:
        key = host or "(unknown host)"
        if key in self.runs:
            self.run = self.runs[key]
        else:
            self.run = _RunState(key=key, host=host, info=info)
            self.runs[key] = self.run
        self.run.segment_starts.append(self.run.sample_idx + 1)
        self.run.report_headers = []

    def _banner(self, m: re.Match, line: int) -> None:
        host = m.group("host").strip() or None
        info = RunInfo(kind="iostat", host=host, os=f"{m.group('os')} {m.group('release')}")
        stamp = split_stamp(m.group("date"))
        info.meta = {"arch": m.group("arch"), "cpus": int(m.group("cpus")), "banner_date": m.group("date")}
        if stamp is not None and stamp.date_parts:
            readable = []
            for order in ("MDY", "DMY"):
                with contextlib.suppress(ValueError):  # not a date in this order
                    readable.append(stamp_date(stamp, order))
            if not readable:
                raise ParseError(f"impossible date {m.group('date').strip()!r} in the iostat banner", line)
            info.meta["_banner_stamp"] = stamp
            info.meta["_banner_line"] = line
        if self.run is not None and self.run.sample_idx >= 0:
            self.warn(f"a new iostat banner starts at line {line}: another iostat invocation was "
                      "appended; its first report is treated like a first report", line)
        self.start_kind = None
        self._start_run(host, info)

    def _open_report(self, kind: str, line: int) -> None:
        rs = self._cur()
        if self.start_kind is None:
            self.start_kind = kind
        if kind == self.start_kind:
            rs.sample_idx += 1
            self._skip_report = False

    def _cpu_values(self, values: str, line: int, last: bool) -> None:
        if self._skip_report:
            return
        toks = values.split()
        hdr = self.cpu_header or []
        if len(toks) != len(hdr):
            if last:
                rs = self._cur()
                self._drop_sample = (rs.key, rs.sample_idx)
                self.warn("the file ends in the middle of a report: the incomplete last report was left out", line)
                return
            raise ParseError(f"expected {len(hdr)} CPU values under the 'avg-cpu:' header, found {len(toks)}", line)
        try:
            nums = [float(t) for t in toks]
        except ValueError:
            nums = self._cpu_numbers(toks, values, line)
        if not all(0 <= v <= 100 for v in nums):  # also false for NaN
            raise ParseError(f"CPU values are percentages, not {values.strip()[:60]!r}", line)
        rs = self._cur()
        rec = {CPU_COLUMNS.get(h, h.lstrip("%")): v for h, v in zip(hdr, nums)}
        rs.cpu.append(rs.sample_idx)
        rs.cpu.extend([rec.get(k, _NOT_PRINTED) for k in _CPU_FIELDS])

    @staticmethod
    def _cpu_numbers(toks: list[str], values: str, line: int) -> list[float]:
        """CPU values printed with a '%' (--human, sysstat 12.x) or a decimal comma."""
        try:
            return [float(t.removesuffix("%").replace(",", ".")) for t in toks]
        except ValueError:
            raise ParseError(f"CPU values are not numbers: {values.strip()[:60]!r}", line) from None

    @staticmethod
    def _is_section(rs: _RunState, h: _Header) -> bool:
        """Is a device block under header ``h`` a further section of the run's latest report (``iostat -x
        --pretty``: r/, w/, d/ and f/ columns under four headers)? Yes when the report already has device blocks,
        none under this header, and none of them gave any of its columns."""
        if rs.report_sample != rs.sample_idx or not rs.report_headers:
            return False
        if any(x is h for x in rs.report_headers):
            return False
        seen = {c for x in rs.report_headers for c in x.canon if c}
        return not seen & {c for c in h.canon if c}

    def _header(self, ln: str, line: int) -> _Header:
        key = ln.rstrip()
        h = self.headers.get(key)
        if h is not None:
            return h
        toks = ln.split()
        device_last = not toks[0].startswith("Device")
        names = toks[:-1] if device_last else toks[1:]
        canon: list[str | None] = []
        factors: list[float] = []
        for n in names:
            c = COLUMNS.get(n)
            if c is None:
                self.unknown_cols.add(n)
                canon.append(None)
                factors.append(1.0)
            else:
                canon.append(c[0])
                factors.append(c[1])
        if len(set(c for c in canon if c)) != len([c for c in canon if c]):
            raise ParseError("a column appears twice in the header", line)
        ends = [m.end() for m in re.finditer(r"\S+", key)]
        value_ends = ends[:-1] if device_last else ends[1:]
        starts = [0, *ends[:-2]] if device_last else ends[:-1]
        h = _Header(toks, device_last, names, canon, factors, key, list(zip(starts, value_ends)))
        self.headers[key] = h
        return h

    def _device_block(self, header_line: str, rows: str, line: int, last: bool) -> None:
        h = self._header(header_line, line)
        if self._skip_report:
            return
        section = self._is_section(self._cur(), h)
        if not (section and self.start_kind == "dev"):
            self._open_report("dev", line)
        rs = self._cur()
        if rs.report_sample != rs.sample_idx:
            rs.report_sample = rs.sample_idx
            rs.report_headers = []
        rs.report_headers.append(h)
        if section:
            rs.sections = True
        elif not rs.sections:
            self._same_iops(rs, h, line)
        if rs.layout is None or (section and rs.report_sample == rs.segment_starts[0]):
            # the first report's columns (all its sections) say which release printed them
            cols, names = rs.layout_cols if section else (set(), [])
            cols = cols | {c for c in h.canon if c}
            names = names + h.names
            rs.layout_cols = (cols, names)
            rs.layout = layout_family(cols, names)
        rows = rows.rstrip("\n")
        if not rows.strip():
            return
        if self.decimal_comma is None:
            sample = rows[:2000]
            self.decimal_comma = bool(re.search(r"\d,\d", sample)) and not re.search(r"\d\.\d", sample)
        if id(h) not in self._checked_headers:
            self._checked_headers.add(id(h))
            if re.search(r"\d[kMGTP%](\s|$)", rows[:4000]):  # --human: 1.5G, 0.0k, and 12.3% in % columns
                self.human = True
        key, p = self._queue(rs, h, rows, rows.count("\n") + 1, line + 1)
        if last:
            self._last_block = (key, len(p.parts) - 1)

    @staticmethod
    def _same_iops(rs: _RunState, h: _Header, line: int) -> None:
        """A run counts its I/O one way from its first report to its last: ``iostat -x`` as read and write requests
        (r/s, w/s, with their latencies), iostat without ``-x`` as transfers (tps). A report under a header that
        counts it the other way (the two layouts mixed in one file, no banner between) would change what the
        run's IOPS mean from that line on, silently: refused, naming both lines."""
        if id(h) in rs.iops_checked:
            return
        cols = {c for c in h.canon if c}
        basis = ("read and write requests (r/s, w/s: iostat -x)" if {"r_s", "w_s"} <= cols
                 else "transfers (tps: iostat without -x)" if "tps" in cols else None)
        if basis is not None:
            if rs.iops_from is None:
                rs.iops_from = (basis, line)
            elif rs.iops_from[0] != basis:
                raise ParseError(f"this report counts I/O as {basis}, the reports before it as {rs.iops_from[0]} "
                                 f"(header at line {rs.iops_from[1]}): the layout changed mid-run without a new "
                                 "banner, so the run's IOPS would mean something else from here on; cut the file "
                                 "at this line and import each part", line)
        rs.iops_checked.add(id(h))

    def _queue(self, rs: _RunState, h: _Header, rows: str, n: int, first_line: int) -> tuple[str, _Pending]:
        """Queue a device block of ``n`` rows (its first on ``first_line``) of report ``rs.sample_idx`` for the
        bulk conversion, with the blocks of the same header; the queue's key and entry."""
        key = h.text + "|" + rs.key
        p = self.pending.get(key)
        if p is None:
            p = self.pending[key] = _Pending(h)
        self._prev_rows = self._block_rows.get(key)
        self._block_rows[key] = n
        p.parts.append(rows)
        p.sample.append(rs.sample_idx)
        p.ts.append(rs.ts_by_sample.get(rs.sample_idx))
        p.nrows.append(n)
        p.first_line.append(first_line)
        p.key.append(rs.key)
        self.pending_rows += n
        return key, p

    # ---- bulk conversion ------------------------------------------------------------------
    def _flush(self, final: bool = False) -> Iterator[Event]:
        """Convert the device rows read so far and yield them. The plain conversion of a chunk's rows runs on a
        worker thread while the next chunk is read (numpy and polars let go of the GIL): a chunk's rows are
        yielded at the next flush; the last flush converts and yields everything."""
        pend, self.pending, self.pending_rows = self.pending, {}, 0
        if not final:
            self._hold_back_latest_report(pend)
        batch = self._submit(pend, final)
        yield from self._emit_inflight()
        if final:
            yield from self._emit(batch)
        else:
            self._inflight = batch

    def _submit(self, pend: dict[str, _Pending], final: bool) -> _Batch:
        plain_values = not (self.human or self.decimal_comma)
        converted: list[tuple[str, _Pending, Future[pl.DataFrame | None] | None]] = []
        for key, p in pend.items():
            future = None
            if self.pipeline and not final:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stormscope-iostat")
                future = self._pool.submit(self._convert_plain, p, plain_values)
            converted.append((key, p, future))
        return _Batch(converted, final, (self.human, self.decimal_comma),
                      {k: rs.sections for k, rs in self.runs.items()})

    def _emit_inflight(self) -> Iterator[Event]:
        batch, self._inflight = self._inflight, None
        if batch is not None:
            yield from self._emit(batch)

    def _emit(self, batch: _Batch) -> Iterator[Event]:
        """The batch's frames as events, as they were when it was read (the flags of the file then)."""
        now = (self.human, self.decimal_comma)
        self.human, self.decimal_comma = batch.flags
        try:
            by_run: dict[str, list[pl.DataFrame]] = {}
            for key, p, future in batch.items:
                frame = future.result() if future is not None else self._convert_plain(p, not any(batch.flags))
                if frame is None:
                    frame = self._convert_careful(key, p, batch.final)
                if frame is None:
                    continue
                # here, in the parser's thread and in file order (not on the worker): the lines said stay in order
                frame = self._drop_repeated_devices(p, frame).drop("_i")
                if frame.height == 0:
                    continue
                by_run.setdefault(p.key[0], []).append(frame)
        finally:
            self.human, self.decimal_comma = now
        for run_key, frames in by_run.items():
            rs = self.runs[run_key]
            if batch.sections.get(run_key, rs.sections) and len(frames) > 1:
                frames = [self._merge_sections(frames)]
            if not rs.started:
                rs.started = True
                yield RunStart(run_key, rs.info)
            for frame in frames:
                rs.rows += frame.height
                rs.devices.update(frame.get_column("device").unique().to_list())
                self._collect_ratios(rs, frame)
                yield Rows(run_key, "iostat_samples", frame)

    def _hold_back_latest_report(self, pend: dict[str, _Pending]) -> None:
        """Keep the device blocks of the report being read for the next flush: a chunk may end between the
        sections of one report (--pretty -x), and its sections are merged only when they are converted together."""
        rs = self.run
        if rs is None:
            return
        for key, p in list(pend.items()):
            held = [i for i, (k, smp) in enumerate(zip(p.key, p.sample)) if k == rs.key and smp == rs.sample_idx]
            if not held:
                continue
            keep = _Pending(p.header)
            rest = [i for i in range(len(p.parts)) if i not in held]
            for name in ("parts", "sample", "nrows", "first_line", "key", "ts"):
                values = getattr(p, name)
                setattr(keep, name, [values[i] for i in held])
                setattr(p, name, [values[i] for i in rest])
            self.pending[key] = keep
            self.pending_rows += sum(keep.nrows)
            if not p.parts:
                del pend[key]

    @staticmethod
    def _merge_sections(frames: list[pl.DataFrame]) -> pl.DataFrame:
        """One row per device and report from the rows of a report's sections (each gives other columns)."""
        keys = ["sample_idx", "device", "is_group"]
        merged = pl.concat(frames, how="diagonal_relaxed")
        return (merged.group_by(keys, maintain_order=True)
                .agg(pl.all().drop_nulls().first())
                .sort("sample_idx", maintain_order=True)
                .select(merged.columns))

    def _convert_plain(self, p: _Pending, plain_values: bool) -> pl.DataFrame | None:
        """The device rows of ``p`` cut into fields in bulk (:func:`_plain_fields`) and read by polars' CSV
        reader, or None when any row needs the careful path (which then also says where a row is wrong):
        see :func:`_plain_fields`, a value that is not a non-negative number, ``--human`` units, decimal
        commas (``plain_values`` false). Where it answers, its frame is the careful path's: a row that fits is
        split there on blanks too, and each value cast from its text the same way. Runs on a worker thread:
        reads ``p`` and the run's first time, changes nothing. Like the careful path's, its frame has each row's
        index in ``p`` as ``_i``: devices listed twice are dropped (and said) when the frame is emitted."""
        h = p.header
        if not plain_values or not h.names:
            return None
        counts = np.asarray(p.nrows, dtype=np.int64)
        nrows = int(counts.sum())
        ncol = len(h.names) + 1
        data = _plain_fields("\n".join(p.parts).encode(), ncol, nrows, h.device_last)
        if data is None:
            return None
        names = [f"c{i}" for i in range(ncol)]
        raw = read_fields(data, ncol, nrows)
        if raw is None:
            return None  # a row short of fields (so, as the separators add up, another one long)
        first = 0 if h.device_last else 1
        specs = [(names[i + first], canon, factor) for i, (canon, factor) in enumerate(zip(h.canon, h.factors))
                 if canon is not None]
        values = [name for _src, name, _f in specs]
        nums = plain_numbers(raw, specs)
        if nums is None:
            return None  # a value that is no number, NaN, infinite or negative: the careful path says where
        out = pl.concat([raw.select(pl.col(names[-1] if h.device_last else names[0]).alias("device")), nums],
                        how="horizontal")
        sample = pl.Series("sample_idx", np.repeat(np.asarray(p.sample, dtype=np.int64), counts))
        ts, t_s = self._times(p, counts, sample)
        idx = pl.Series("_i", np.arange(nrows))
        return out.with_columns(sample, ts, t_s, pl.lit(False).alias("is_group"), idx).select(
            "sample_idx", "ts", "t_s", "device", *values, "is_group", "_i")

    def _convert_careful(self, key: str, p: _Pending, final: bool) -> pl.DataFrame | None:
        """The device rows of ``p`` cut where the header says, else split on blanks, a bad row named by its line;
        with each row's index in ``p`` as ``_i`` (see :meth:`_drop_repeated_devices`)."""
        h = p.header
        text = "\n".join(p.parts)
        if "\x1f" in text:  # the separator below, in a damaged log: split in polars (read as CSV it made 2 columns)
            lines = pl.Series("line", [text]).str.split("\n").explode()
        else:
            lines = pl.read_csv(
                io.BytesIO(text.encode()), has_header=False, separator="\x1f", quote_char=None,
                schema={"line": pl.String}, truncate_ragged_lines=True,
            ).get_column("line").fill_null("")
        counts = np.asarray(p.nrows, dtype=np.int64)
        if lines.len() != counts.sum():  # blank lines inside a block never happen in real output
            raise ParseError("blank line inside a device block", p.first_line[0])
        sample = pl.Series("sample_idx", np.repeat(np.asarray(p.sample, dtype=np.int64), counts))
        # -g group summaries print their name with a leading space (device-first layouts)
        # sysstat prints a group's name with one leading space (" grp"); rows indented further come from
        # a log pasted from mail or a wiki, not from -g
        indent = len(h.text) - len(h.text.lstrip())
        is_group = (lines.str.starts_with(" " * (indent + 1)) & ~lines.str.starts_with(" " * (indent + 2))) \
            if not h.device_last else pl.Series([False] * lines.len())
        if lines.str.ends_with(" ").any() or lines.str.contains("\t", literal=True).any():
            lines = lines.str.replace_all("\t", " ", literal=True).str.strip_chars_end()
        out, ok = self._fixed_width(lines, h)
        ts, t_s = self._times(p, counts, sample)
        idx = pl.Series("_i", np.arange(lines.len()))
        out = out.with_columns(sample, ts, t_s, is_group.alias("is_group"), idx)
        bad_rows = np.nonzero(~ok.to_numpy())[0]
        if bad_rows.size:
            slow = self._by_tokens(key, p, lines, counts, bad_rows, final)
            if slow is None:  # the incomplete last report was dropped
                keep = sample.to_numpy() != int(p.sample[-1])
                out = out.filter(pl.Series(keep & ok.to_numpy()))
            else:
                slow = slow.with_columns(sample.gather(bad_rows), ts.gather(bad_rows), t_s.gather(bad_rows),
                                         is_group.gather(bad_rows).alias("is_group"), idx.gather(bad_rows))
                out = pl.concat([out.filter(ok), slow], how="vertical_relaxed").sort("_i")
        return out.select("sample_idx", "ts", "t_s", "device", *[c for c in h.canon if c], "is_group", "_i")

    def _drop_repeated_devices(self, p: _Pending, out: pl.DataFrame) -> pl.DataFrame:
        """A device listed twice in one report would count its I/O twice: the later rows are left out (and said,
        with their lines, in the run's warnings); the first row is what iostat printed first for that device."""
        again = out.select(pl.struct("sample_idx", "device", "is_group").is_first_distinct().not_()).to_series()
        if not again.any():
            return out
        rs = self.runs[p.key[0]]
        counts = np.asarray(p.nrows, dtype=np.int64)
        for i, dev in out.filter(again).select("_i", "device").iter_rows():
            rs.repeated.append((self._line_of(p, counts, int(i)), str(dev)))
        return out.filter(~again)

    def _times(self, p: _Pending, counts: np.ndarray, sample: pl.Series) -> tuple[pl.Series, pl.Series]:
        """Report time and seconds since the run's first report, as known while streaming."""
        rs = self.runs[p.key[0]]
        if rs.t0 is not None:
            ts = pl.Series("ts", np.repeat(np.array(p.ts, dtype="datetime64[us]"), counts))
            t_s = ((ts - rs.t0).dt.total_microseconds() / 1e6).alias("t_s")
            return ts, t_s
        ts = pl.Series("ts", [None] * sample.len(), dtype=pl.Datetime("us"))
        if self.opt.interval_s:
            return ts, (sample * float(self.opt.interval_s)).cast(pl.Float64).alias("t_s")
        return ts, pl.Series("t_s", [None] * sample.len(), dtype=pl.Float64)

    def _fixed_width(self, lines: pl.Series, h: _Header) -> tuple[pl.DataFrame, pl.Series]:
        """Cut each value where the header says (sysstat right-aligns values under their names).

        Device-first rows are aligned on their right end (a long device name shifts the whole row),
        device-last rows on their left. A row that does not fit -- a value wider than its column, a
        pasted excerpt with other spacing -- fails the checks and is split by tokens instead.
        """
        width = len(h.text)
        line = pl.col("line")
        cols, checks = [], []
        for (start, end), canon, factor in zip(h.spans, h.canon, h.factors):
            if h.device_last:
                cell = line.str.slice(start, end - start)
            else:
                cell = line.str.slice(-(width - start), end - start)
            # every cell begins with the separating space and holds a value
            checks.append(cell.str.starts_with(" ") | pl.lit(start == 0))
            if canon is not None:
                cols.append(self._num(cell.str.strip_chars(), canon, factor).alias(canon))
        if h.device_last:
            dev = line.str.slice(h.spans[-1][1]).str.strip_chars()
        else:
            dev = line.str.slice(0, line.str.len_chars() - (width - h.spans[0][0])).str.strip_chars()
        frame = pl.DataFrame({"line": lines}).select(dev.alias("device"), *cols,
                                                     pl.all_horizontal(checks).alias("_ok"))
        values = [c for c in h.canon if c]
        ok = frame.select(
            pl.col("_ok") & pl.col("device").str.len_chars().gt(0)
            & ~pl.col("device").str.contains(" ", literal=True)
            & (pl.all_horizontal([pl.col(c).is_not_null() & pl.col(c).is_finite() & (pl.col(c) >= 0) for c in values])
               if values else pl.lit(True))
        ).to_series()
        return frame.drop("_ok"), ok

    def _by_tokens(self, key: str, p: _Pending, lines: pl.Series, counts: np.ndarray, rows: np.ndarray,
                   final: bool) -> pl.DataFrame | None:
        """Split rows on whitespace (the careful path), raising errors with line numbers."""
        h = p.header
        ncol = len(h.names) + 1
        sub = lines.gather(rows)
        norm = sub.str.strip_chars().str.replace_all(r"\s+", " ")
        lens = (norm.str.count_matches(" ", literal=True) + 1).to_numpy()
        wrong = np.nonzero(lens != ncol)[0]
        if wrong.size:
            first = int(rows[wrong[0]])
            line = self._line_of(p, counts, first)
            total = int(counts.sum())
            block_of_bad = int(np.searchsorted(np.cumsum(counts), first, side="right"))
            if (final and self._last_block == (key, block_of_bad)
                    and wrong.size == 1 and first == total - 1):
                self.warn("the file ends in the middle of a report: the incomplete last report was left out", line)
                self._drop_sample = (p.key[-1], int(p.sample[-1]))
                return None
            raise ParseError(f"expected {ncol} fields (device and {ncol - 1} values, as the header at "
                             f"line {self._header_line(p, counts, first)} says), found {int(lens[wrong[0]])}", line)
        dev_idx = ncol - 1 if h.device_last else 0
        f = pl.DataFrame({"s": norm}).select(pl.col("s").str.split_exact(" ", ncol - 1).alias("f"))
        field_ = [pl.col("f").struct.field(f"field_{i}") for i in range(ncol)]
        exprs = [field_[dev_idx].alias("device")]
        for i, (canon, factor) in enumerate(zip(h.canon, h.factors)):
            if canon is not None:
                exprs.append(self._num(field_[i + 1 if not h.device_last else i], canon, factor).alias(canon))
        out = f.select(*exprs)
        values = [c for c in h.canon if c]
        if values:
            nulls = out.select(pl.any_horizontal([pl.col(c).is_null() for c in values]).arg_true()).to_series()
            if nulls.len():
                first = int(rows[int(nulls[0])])
                raise ParseError(f"value that is not a number in a device row: {lines[first].strip()[:80]!r}",
                                 self._line_of(p, counts, first))
            odd = out.select(pl.any_horizontal([~pl.col(c).is_finite() | (pl.col(c) < 0) for c in values])
                             .arg_true()).to_series()
            if odd.len():
                first = int(rows[int(odd[0])])
                raise ParseError("a value iostat never prints (NaN, infinite or negative) in a device row: "
                                 f"{lines[first].strip()[:80]!r}", self._line_of(p, counts, first))
        return out

    def _num(self, expr: pl.Expr, canon: str, factor: float) -> pl.Expr:
        if self.decimal_comma:
            expr = expr.str.replace(",", ".", literal=True)
        if not self.human:
            return expr.cast(pl.Float64, strict=False) * factor
        m = expr.str.extract_groups(r"^([0-9.]+)([kMGTP%]?)$")
        num = m.struct.field("1").cast(pl.Float64, strict=False)
        suf = m.struct.field("2")
        power = (pl.when(suf == "k").then(1).when(suf == "M").then(2).when(suf == "G").then(3)
                 .when(suf == "T").then(4).when(suf == "P").then(5).otherwise(0))
        if not canon.endswith("_pct"):  # sysstat 12.x --human prints 12.3% in the % columns only
            num = pl.when(suf == "%").then(None).otherwise(num)
        plain = (suf == "") | (suf == "%")
        if canon in KB_COLUMNS:
            # --human values carry a bytes-based suffix: 222.1k = 222.1 kB
            scaled = num * (pl.lit(1024.0).pow(power - 1))
            return pl.when(plain).then(num * factor).otherwise(scaled)
        return pl.when(plain).then(num * factor).otherwise(num * pl.lit(1000.0).pow(power))

    @staticmethod
    def _line_of(p: _Pending, counts: np.ndarray, row: int) -> int:
        ends = np.cumsum(counts)
        b = int(np.searchsorted(ends, row, side="right"))
        start = int(ends[b - 1]) if b else 0
        return p.first_line[b] + (row - start)

    @staticmethod
    def _header_line(p: _Pending, counts: np.ndarray, row: int) -> int:
        b = int(np.searchsorted(np.cumsum(counts), row, side="right"))
        return p.first_line[b] - 1

    def _collect_ratios(self, rs: _RunState, frame: pl.DataFrame) -> None:
        """cumulative kB / kB-per-second = seconds covered by a report (plain -d reports carry both columns)."""
        pairs = [(c, r) for c, r in (("rkb", "rkb_s"), ("wkb", "wkb_s"), ("dkb", "dkb_s"), ("wdkb", "wdkb_s"))
                 if c in frame.columns and r in frame.columns]
        if not pairs:
            return
        needed = {s for s in rs.segment_starts} | {s + 1 for s in rs.segment_starts}
        sub = frame.filter(pl.col("sample_idx").is_in(list(needed)))
        for c, r in pairs:
            ok = sub.filter((pl.col(r) >= 1.0) & (pl.col(c) >= 10))
            for s, v in ok.select("sample_idx", (pl.col(c) / pl.col(r)).alias("x")).iter_rows():
                rs.ratios.setdefault(s, []).append(v)

    # ---- run summary -------------------------------------------------------------------------
    def _finish(self, rs: _RunState) -> Iterator[Event]:
        if not rs.started:
            rs.started = True
            yield RunStart(rs.key, rs.info)
        info = rs.info
        drop = self._drop_sample
        n_samples = rs.sample_idx + 1
        if drop and drop[0] == rs.key:
            n_samples = drop[1]
            rs.stamps = [s for s in rs.stamps if s[0] < n_samples]
            rs.cpu = _cpu_before(rs.cpu, n_samples)
        if self.unknown_cols:
            self.warn("columns not recognised and not imported: " + ", ".join(sorted(self.unknown_cols)), None)
        self._warn_left_out(rs)
        if rs.rows == 0 and not rs.cpu:
            if drop and drop[0] == rs.key:
                raise ParseError("the file ends in the middle of its first report: no complete report to import",
                                 self.line_no)
            self.warn("the file holds no device rows (every report is empty)", None)

        ts_by_sample = self._timestamps(rs)
        t_by_sample = self._interval(rs, ts_by_sample, n_samples)

        since_boot, how = self._first_report(rs, info.interval_s)
        info.meta["first_report"] = how
        info.meta["segments"] = len(rs.segment_starts)
        info.tool_version = rs.layout
        if self.decimal_comma:
            info.meta["decimal_comma"] = True
        if self.human:
            info.meta["human_units"] = True
            self.warn("values printed in human-readable units (e.g. 1.5G) are rounded by iostat to one decimal", None)

        samples = pl.DataFrame({
            "sample_idx": list(range(n_samples)),
            "ts": [ts_by_sample.get(i) for i in range(n_samples)],
            "t_s": [t_by_sample.get(i) for i in range(n_samples)],
            "since_boot": [i in since_boot for i in range(n_samples)],
        }, schema=frame_schema("iostat_samples", ["sample_idx", "ts", "t_s", "since_boot"]))
        streamed = {i: dt for i, dt in rs.ts_by_sample.items() if i < n_samples}
        if streamed != ts_by_sample:
            # the whole file changed the reading of the dates (e.g. a day > 12 came late): rewrite all times
            yield SampleTimes(rs.key, "iostat_samples", samples)
        elif since_boot:
            yield SinceBoot(rs.key, "iostat_samples", sorted(i for i in since_boot if i < n_samples))
        if rs.cpu:
            table = np.frombuffer(rs.cpu, dtype=np.float64).reshape(-1, 1 + len(_CPU_FIELDS))
            cpu = pl.DataFrame({"sample_idx": table[:, 0].astype(np.int64),
                                **{k: pl.Series(k, table[:, i + 1]).fill_nan(None) for i, k in enumerate(_CPU_FIELDS)}})
            cpu = cpu.join(samples.select("sample_idx", "ts", "t_s"), on="sample_idx", how="left")
            yield Rows(rs.key, "cpu_samples", cpu)
        yield RunEnd(rs.key, {
            "n_samples": n_samples,
            "n_devices": len(rs.devices),
            "ended_at": datetime.fromisoformat(info.meta.pop("ended_at")) if "ended_at" in info.meta else None,
        }, info=info)

    def _warn_left_out(self, rs: _RunState) -> None:
        """Say which rows and reports the input checks left out, with their lines."""
        if rs.repeated:
            lines = ", ".join(f"{ln} ({dev})" for ln, dev in rs.repeated[:MAX_LINES_LISTED])
            more = f" and {len(rs.repeated) - MAX_LINES_LISTED:,} more" if len(rs.repeated) > MAX_LINES_LISTED else ""
            n = len(rs.repeated)
            self.warn(f"a device is listed twice in one report ({n:,} row{'s' if n != 1 else ''}): counting it twice "
                      f"would double its I/O, so each later row was left out -- lines {lines}{more}", rs.repeated[0][0])
        if rs.back_in_time:
            line, dt, latest = rs.back_in_time[0]
            lines = ", ".join(str(ln) for ln, _, _ in rs.back_in_time[:MAX_LINES_LISTED])
            n = len(rs.back_in_time)
            more = f" and {n - MAX_LINES_LISTED:,} more" if n > MAX_LINES_LISTED else ""
            how = "stays at" if dt == latest else "goes back to"
            self.warn(f"the time {how} {dt:%Y-%m-%d %H:%M:%S} after a report at {latest:%Y-%m-%d %H:%M:%S} (the "
                      "clock was set back or stood still, or logs were joined out of order): reports at or before a "
                      f"time already covered would overlap it, so {n:,} report{'s' if n != 1 else ''} were left out "
                      f"-- the reports at lines {lines}{more}", line)

    def _timestamps(self, rs: _RunState) -> dict[int, datetime]:
        """The time of each sample that has a stamp; the file's date from the banner and the UTC offset."""
        info = rs.info
        ts_by_sample: dict[int, datetime] = {}
        banner_stamp = info.meta.pop("_banner_stamp", None)
        if rs.stamps or banner_stamp is not None:
            raws = [s for _, s in rs.stamps]
            words = Words(decimal_comma=self.decimal_comma)
            if banner_stamp is not None:
                words.add_date(banner_stamp.text)
            for s in [*raws[:3], *raws[-2:]]:
                words.add_stamp(s.text)
            try:
                dating = date_stamps(raws, banner_stamp, words, given=self.opt.date_order, system=info.os)
            except ValueError:
                raise ParseError("the dates of the banner and the reports contradict each other (day/month order)",
                                 info.meta.get("_banner_line") if not raws else None) from None
            for n in dating.notes:
                self.warn(n, None)
            if dating.warning:
                self.warn(dating.warning, None)
            info.meta.update(dating.meta)
            ts_by_sample = {i: dt for (i, _), dt in zip(rs.stamps, dating.times)}
            if any(s.tz for s in raws):
                info.meta["utc_offset"] = next(s.tz for s in raws if s.tz)
            if banner_stamp is not None:
                info.file_date = stamp_date(banner_stamp, dating.decision.order)
        if self.encoding != "utf-8":
            info.meta["encoding"] = self.encoding
        return ts_by_sample

    def _interval(self, rs: _RunState, ts_by_sample: dict[int, datetime], n_samples: int) -> dict[int, float]:
        """Set the run's interval (from the timestamps, else the one given, else unknown); return each sample's
        time in seconds from the first."""
        info = rs.info
        interval = None
        interval_source = None
        t_by_sample: dict[int, float] = {}
        if ts_by_sample:
            t0 = ts_by_sample[min(ts_by_sample)]
            t_by_sample = {i: (dt - t0).total_seconds() for i, dt in ts_by_sample.items()}
            keys = sorted(ts_by_sample)
            diffs = [(ts_by_sample[b] - ts_by_sample[a]).total_seconds() / (b - a)
                     for a, b in zip(keys, keys[1:]) if b not in rs.segment_starts]
            diffs = [d for d in diffs if d > 0]
            if diffs:
                interval = float(np.median(diffs))
                interval_source = "timestamps"
                if self.opt.interval_s and abs(self.opt.interval_s - interval) > 0.1 * interval:
                    self.warn(f"the interval given ({self.opt.interval_s:g} s) disagrees with the timestamps "
                              f"({interval:g} s); the timestamps were used", None)
            info.started_at = t0
            info.meta["ended_at"] = ts_by_sample[max(ts_by_sample)].isoformat()
        if interval is None and self.opt.interval_s:
            interval = float(self.opt.interval_s)
            interval_source = "user"
            t_by_sample = {i: i * interval for i in range(n_samples)}
        if interval is None and n_samples > 1:
            hint = self._interval_hint(rs)
            self.warn("the file has no timestamps (iostat ran without -t), so the interval is unknown: "
                      "times are left empty. Set it with {fix:set_interval} (the number after 'iostat', e.g. 5 for "
                      "'iostat 5')" + hint, None)
            interval_source = "unknown"
        info.interval_s = interval
        info.interval_source = interval_source
        return t_by_sample

    def _interval_hint(self, rs: _RunState) -> str:
        later = [np.median(v) for s, v in rs.ratios.items() if s not in rs.segment_starts and v]
        if later:
            est = float(np.median(later))
            if est >= 0.5:
                return f"; the cumulative kB columns suggest about {est:.0f} s"
        return ""

    def _first_report(self, rs: _RunState, interval: float | None) -> tuple[set[int], str]:
        mode = self.opt.first_report
        starts = [s for s in rs.segment_starts if s <= rs.sample_idx]
        if mode == "since-boot":
            return set(starts), "since-boot (set by the user)"
        if mode == "interval":
            return set(), "interval (set by the user)"
        flagged: set[int] = set()
        hows: list[str] = []
        for s in starts:
            r0 = rs.ratios.get(s)
            r1 = rs.ratios.get(s + 1)
            e0 = float(np.median(r0)) if r0 else None
            e1 = float(np.median(r1)) if r1 else None
            ref = e1 if e1 is not None else interval
            if e0 is not None and ref:
                if e0 > SINCE_BOOT_RATIO * ref:
                    flagged.add(s)
                    hows.append(f"since-boot (proved: the cumulative columns cover {e0:,.0f} s against "
                                f"{ref:,.0f} s for an interval)")
                else:
                    hows.append(f"interval (proved: the cumulative columns cover {e0:,.0f} s, like an "
                                f"interval of {ref:,.0f} s: iostat ran with -y)")
                continue
            flagged.add(s)
            hows.append("since-boot (assumed, iostat's default; the file cannot prove it)")
        if any("assumed" in h for h in hows) and rs.sample_idx >= 0:
            self.warn("the first report was taken to cover the time since boot (iostat's default) and is "
                      "left out of analyses; if iostat ran with -y, say so with {fix:first_report_interval}", None)
        return flagged, "; ".join(dict.fromkeys(hows)) or "no reports"


FORMAT = register(IostatTextFormat())
