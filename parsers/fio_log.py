"""fio's log files: ``--write_bw_log``, ``--write_iops_log``, ``--write_lat_log`` and ``--write_hist_log``.

fio's own description of the logs is the "Log File Formats" section of its HOWTO (fio 3.x); the histogram logs are
decoded as fio's ``tools/hist/fiologparser_hist.py`` decodes them. Every line is numbers, without a header:

* bandwidth, IOPS and latency logs: ``msec, value[, value1], ddir, bs[, offset], prio[, issue time]``. ``msec``
  is milliseconds since the job started (since 1970 with ``log_unix_epoch``); ``ddir`` 0 read, 1 write, 2 trim;
  ``value1`` (the window's maximum) only with ``log_window_value=both`` (fio 3.37+); ``prio`` from fio 3.18 on
  (``0x…`` with ``log_prio``, fio 3.28+); ``offset`` with ``log_offset``; ``issue time`` with ``log_issue_time``.
  No header names the fields: the layout is told from the number of fields and what they hold (a ddir is 0, 1 or
  2; windowed rows have block size 0). Which log a file is (bandwidth, IOPS, latency) is not in the file: fio
  names it (``<prefix>_bw.1.log``, ``_iops``, ``_lat``, ``_clat``, ``_slat``), so the name says it.
* histogram logs (``write_hist_log``, ``log_hist_msec``): ``msec, ddir, bs, bin0 … binN``: completion latency
  (clat) counts of fio's latency bins (``FIO_IO_U_PLAT``: 64 bins per power of two, exact below 128), each
  row the I/Os completed since that direction's previous row (fio 2.14+ writes differences; the cumulative
  layout of its first draft never shipped). 1216 bins (19 groups) are fio 2.x microseconds, 1856 (29 groups)
  fio 2.99+ nanoseconds; ``log_hist_coarseness`` = c sums 2^c neighbours (1216/2^c, 1856/2^c bins). The
  bin counts never collide, so the count tells the unit.

What is stored, and why:

* **Bandwidth, IOPS and latency logs** (kind ``fio-log``: time series and per-device rates) go to
  ``iostat_samples``, one "device" per job log (the log's prefix, the job's name unless ``write_*_log=NAME``).
  The rows fit honestly: a bandwidth log is KiB/s per direction (``rkb_s``/``wkb_s``/``dkb_s``), an IOPS log
  I/Os per second (``r_s``/``w_s``/``d_s``), a latency log the time per I/O (``r_await_ms``/``w_await_ms``/
  ``d_await_ms``; ``lat`` is submission + completion, ``clat`` completion only, said in the run's meta). A
  figure the log does not have stays NULL.

  - With ``log_avg_msec`` each row is one direction's mean (or maximum, with ``log_window_value=max``: the
    file does not say) over a window: rows of the directions that close at about the same time form one
    sample; the interval is the median gap between a direction's rows.
  - Without it each row is one I/O (fio 2.10+; millions of rows are streamed): the rows are counted into
    samples of the interval given at import, else 1 s (window k holds the I/Os completed in
    [k s, k+1 s) of the job): I/Os per second and KiB per second from the rows' count and block sizes
    (whatever the log's values), mean request size, and for latency logs the mean latency. A last window
    shorter than half an interval is added to the one before; the rates of the last sample are over the time
    it covers (to the last I/O's millisecond).
  - Submission-latency logs (``_slat``) are refused: the time fio took to hand an I/O to the kernel is no
    device figure and has no column (import the job's ``_lat`` or ``_clat`` log).
  - Latency unit: nanoseconds for fio 3.x (2.99+), microseconds for fio 2.x, and the log does not say which
    fio wrote it. Evidence, in this order: the layout (six or more fields, or a priority field, are fio 3.18+),
    a histogram log of the same job next to it (its bin count), a fio JSON report of the same job next to it
    (its ``fio version``), else the values' size -- a guess, said in a warning.

* **Histogram logs** (kind ``fio-hist``: time series and latency histograms) go to ``histograms`` and
  ``histogram_stats`` (metric ``latency_us``, op ``read``/``write``; trim rows are not stored, a warning says
  so): one sample per ``log_hist_msec`` window (rows of a direction are taken to the nearest window end; two
  rows of one direction in one window -- fio catching up after a stall -- are added, which is exact since
  each holds its own I/Os); only bins that hold I/Os are stored. A bin holds whole latencies [lo, hi) (fio's
  ``plat_val_to_idx``; the last bin also everything above), stored as the bucket (lo − 1, hi − 1] in µs like
  fio's json+ bins, so shares and percentiles from it are exact to the bin and honest about it.
  ``histogram_stats`` counts each sample's I/Os per direction; min, max and mean stay NULL (fio prints none).

Two kinds, because a kind's capabilities hold for all its runs: a bandwidth log has no histogram and a histogram log
no per-direction rates. Runs of several logs of one job are one run each (the logs do not say which files belong
together); an averaged latency log therefore has latencies without I/O counts. A sample's time is its window's end
as fio stamps it (windowed logs: the sample's first row); ``t_s`` counts from the first sample. Only logs with
``log_unix_epoch`` have a wall clock (UTC).
"""

from __future__ import annotations

import json
import os
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, TIME_SERIES, register_kind
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import INT, LIST, TEXT, Counts, MetaKey, Semantics, Span, common

KIND = register_kind("fio-log", "fio log", {TIME_SERIES, DEVICE_RATES})
HIST_KIND = register_kind("fio-hist", "fio histogram log", {TIME_SERIES, LATENCY_HISTOGRAMS},
                          series=("fio job", "fio jobs"))

PLAT_BITS = 6  # fio's FIO_IO_U_PLAT_BITS: 64 bins per power of two
PLAT_VAL = 1 << PLAT_BITS
GROUPS = {19: "µs", 29: "ns"}  # FIO_IO_U_PLAT_GROUP_NR of fio 2.x (µs) and of fio 2.99+ (ns)
DDIR = {0: "read", 1: "write", 2: "trim"}
_PREFIX = {0: "r", 1: "w", 2: "d"}
TYPES = {"bw": "bandwidth", "iops": "IOPS", "lat": "total latency (lat)", "clat": "completion latency (clat)",
         "slat": "submission latency (slat)", "clat_hist": "completion latency histogram"}
_NAME = re.compile(r"^(?P<prefix>.+)_(?P<type>bw|iops|lat|clat|slat|clat_hist)(?:\.(?P<job>\d+))?\.log$")
_FIELD = re.compile(rb"^\s*(?:-?\d+|0x[0-9a-fA-F]+)\s*$")
EPOCH_MS = 10**12  # a time above this is milliseconds since 1970 (log_unix_epoch), not since the job started
MAX_MS = 253_402_300_799_999  # 9999-12-31 23:59:59.999 in ms since 1970: the last time a date can hold
MAX_FIELD = 2**64 - 1  # fio writes its log fields as 64-bit unsigned numbers at most
LAYOUT_ROWS = 2000  # rows read before the layout is decided (then every row is checked against it)
CHUNK = 20_000  # samples per Rows event
HIST_CHUNK = 200_000  # histogram rows per Rows event
_SAMPLES = frame_schema("iostat_samples")
_HIST = frame_schema("histograms")
_STATS = frame_schema("histogram_stats")


# ---- sniffing ---------------------------------------------------------------------------------------------------
def _head_lines(head: bytes) -> tuple[list[bytes], bytes]:
    """The complete non-blank lines of a file's head, and the cut last line (empty when the head ends a line)."""
    lines = head.replace(b"\r\n", b"\n").split(b"\n")
    cut = b"" if head.endswith(b"\n") else lines.pop()
    return [ln for ln in lines if ln.strip()], cut


def _numbers(line: bytes) -> list[bytes] | None:
    parts = line.split(b",")
    return parts if all(_FIELD.match(p) for p in parts) else None


def _is_ddir(v: bytes) -> bool:
    return v.strip() in (b"0", b"1", b"2")


# the runs.meta keys both kinds of fio log write (parsers.semantics)
_LOG_META = (
    *common("utc_offset"),
    MetaKey("log", TEXT, "which log the file is (bandwidth, IOPS, latency, histogram)"),
    MetaKey("job_log_number", INT, "the job's number in the file name (`…_bw.N.log`)"),
    MetaKey("rows", INT, "rows in the file"),
    MetaKey("directions", LIST, "the directions the rows have (read, write, trim)"),
    MetaKey("latency_unit_in_file", TEXT, "the unit of the file's latencies (ns or µs)"),
    MetaKey("clock", TEXT, "what the times count from (the job's start, or 1970 with log_unix_epoch)"),
    MetaKey("first_sample_ms", INT, "the first row's time since the job started"),
    MetaKey("block_sizes", LIST, "the block sizes of the rows"),
)


LOG_SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES, names=LINUX_NAMES,
    wording={"r_s": "IOPS log, read rows", "w_s": "IOPS log, write rows", "d_s": "IOPS log, trim rows",
             "rkb_s": "bandwidth log, read rows (KiB/s)", "wkb_s": "bandwidth log, write rows (KiB/s)",
             "dkb_s": "bandwidth log, trim rows (KiB/s)", "r_await_ms": "lat / clat log, read rows",
             "w_await_ms": "lat / clat log, write rows", "d_await_ms": "lat / clat log, trim rows",
             "device": "the log's prefix (the job's name)"},
    meta=(*_LOG_META,
          MetaKey("fields", INT, "fields per row (tells fio's log layout)"),
          MetaKey("latency_unit_from", TEXT, "what told the latency unit (the layout, a histogram log or JSON "
                  "report of the same job, else the values' size)"),
          MetaKey("latency", TEXT, "what the latency log measures (lat: submission + completion; clat: completion)"),
          MetaKey("window", TEXT, "how rows become samples (fio's window means, or I/Os counted into samples)"),
          MetaKey("last_window", TEXT, "a short last window added to the one before")))


class FioLogFormat:
    """Bandwidth, IOPS and latency logs: per-direction rates and latencies per window, or one row per I/O."""

    id = "fio-log"
    kind = KIND.id
    label = "fio log (bandwidth, IOPS, latency)"
    priority = 220
    tables = ("iostat_samples",)
    semantics = LOG_SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines, _cut = _head_lines(head)
        if not lines:
            return 0.0
        first = self._fields(lines[0])
        if first is None:
            return 0.0
        if len(lines) == 1:
            return 0.6 if head.endswith(b"\n") else 0.0  # a one-line log, read whole
        # a damaged line among many is the parser's to name (with its line number), not a reason to refuse the file
        alike = sum(1 for ln in lines if self._fields(ln) == first)
        return 0.85 if alike >= 2 and alike >= 0.8 * len(lines) else 0.0

    @staticmethod
    def _fields(line: bytes) -> int | None:
        """The number of fields of a line that reads as a fio log line, else None."""
        parts = _numbers(line)
        if parts is None or not 4 <= len(parts) <= 8:
            return None
        return len(parts) if _is_ddir(parts[2]) or (len(parts) >= 6 and _is_ddir(parts[3])) else None

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Log(path, options, state, warn).events()


HIST_SEMANTICS = Semantics(
    main_table="histograms", span=Span.INTERVAL, counts=Counts.PER_SAMPLE,
    wording={"device": "the log's prefix (the job's name)", "op": "ddir (0 read, 1 write)",
             "count": "the I/Os of a bin (FIO_IO_U_PLAT) since that direction's row before"},
    meta=(*_LOG_META,
          MetaKey("bins", INT, "bins per row (1216: fio 2.x µs, 1856: fio 2.99+ ns, divided by 2^coarseness)"),
          MetaKey("log_hist_coarseness", INT, "log_hist_coarseness: 2^c neighbouring bins summed"),
          MetaKey("counts_per_interval", TEXT, "why each row's counts are per interval (fio 2.14 and later)"),
          MetaKey("histogram_source", TEXT, "what the histograms are (fio's clat histogram log)")))


class FioHistLogFormat:
    """Histogram logs (``--write_hist_log``): completion-latency bins per direction and ``log_hist_msec``."""

    id = "fio-hist-log"
    kind = HIST_KIND.id
    label = "fio latency histogram log"
    priority = 230
    tables = ("histograms", "histogram_stats")
    semantics = HIST_SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines, cut = _head_lines(head)
        if not lines and cut:
            lines = [cut.rsplit(b",", 1)[0]]  # the first line is longer than the head: its complete fields
        if not lines:
            return 0.0
        parts = _numbers(lines[0])
        if parts is None or len(parts) <= 16 or not _is_ddir(parts[1]):
            return 0.0
        return 0.85

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _HistLog(path, state, warn).events()


# ---- reading lines ----------------------------------------------------------------------------------------------
def _lines(path: str, state: JobState, what: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line, streamed; progress by bytes (``what`` names the pass)."""
    size = max(os.path.getsize(path), 1)
    done = 0
    with open(path, "rb") as fh:
        for no, raw in enumerate(fh, 1):
            done += len(raw)
            if no % 20_000 == 0:
                state.progress(0.9 * done / size, what)
            if b"\x00" in raw:
                raise ParseError("binary data (NUL byte): not a fio log (a compressed .fz log? fio's inflate-log "
                                 "option turns it back into text)", no)
            text = raw.decode("ascii", errors="replace").strip()
            if text:
                yield no, text


def _int(text: str, line: int, what: str) -> int:
    t = text.strip()
    try:
        return int(t, 16) if t[:2].lower() == "0x" else int(t)
    except ValueError:
        raise ParseError(f"{what} {t[:20]!r} is not a whole number (fio writes whole numbers only)", line) from None


_NUMBERS = re.compile(r"^\s*-?\d+(?:\s*,\s*(?:-?\d+|0x[0-9a-fA-F]+))*\s*$")


def _ints(parts: list[str], line: int, text: str = "", used: int = 0) -> list[int]:
    """The fields as numbers; with ``text`` (the whole line) and ``used``, only the first ``used`` fields are
    converted once the line is checked to be numbers only (the rest: offset, priority, issue time, unused)."""
    if used and _NUMBERS.match(text):
        return [int(f) for f in parts[:used]]
    return [_int(f, line, f"field {i + 1}") for i, f in enumerate(parts)]


def _name(path: str) -> tuple[str, str | None, int | None]:
    """(device, log type, job number) from fio's file name ``<prefix>_<type>.<job>.log``; the device is the
    prefix (the job's name unless ``write_*_log=NAME``), else the file name without ``.log``."""
    base = os.path.basename(path)
    m = _NAME.match(base)
    if m is None:
        return (base[:-4] if base.endswith(".log") else base), None, None
    return m["prefix"], m["type"], int(m["job"]) if m["job"] else None


def _median_gap(times: dict[int, list[int]]) -> float | None:
    """The median gap (ms) between successive rows of one direction, over every direction."""
    gaps = [b - a for ts in times.values() for a, b in zip(ts, ts[1:]) if b > a]
    return float(statistics.median(gaps)) if gaps else None


def _is_epoch(first_ms: int, line: int) -> bool:
    """Whether the times are milliseconds since 1970 (``log_unix_epoch``) rather than since the job started."""
    if first_ms < EPOCH_MS:
        return False
    try:
        _wall(first_ms)
    except (OverflowError, ValueError):
        raise ParseError(f"time {first_ms} ms is neither time since the job started nor a date", line) from None
    return True


def _wall(ms: float) -> datetime:
    """Milliseconds since 1970 as a UTC wall clock (naive, as the workspace stores times)."""
    return datetime(1970, 1, 1) + timedelta(milliseconds=ms)


# ---- bandwidth, IOPS and latency logs --------------------------------------------------------------------------
@dataclass
class _Layout:
    fields: int
    has_max: bool  # log_window_value=both: value, value1 (the window's maximum)
    windowed: bool  # log_avg_msec: block size 0, one row per direction and window
    version: str | None = None  # what the layout says of fio's version ("fio 3.18+")
    why: str = ""

    @property
    def ddir(self) -> int:
        return 3 if self.has_max else 2

    @property
    def bs(self) -> int:
        return self.ddir + 1


def _decide_layout(rows: list[tuple[int, list[int], bool]], warn: WarnFn) -> _Layout:
    """The field layout, from the first rows (line, values, whether the last field is hexadecimal): where the
    direction is (after ``value1`` or not), windowed or per I/O. Every later row is checked against it."""
    line0, first, _hex = rows[0]
    n = len(first)
    if n in (4, 5):
        has_max = False
    elif n == 8:
        has_max = True
    else:
        # the reading most lines fit (a damaged line is then named by the check below)
        no_max = sum(1 for _ln, v, _h in rows if v[2] in DDIR)
        with_max = sum(1 for _ln, v, _h in rows if v[3] in DDIR and v[4] == 0 and v[1] <= v[2])
        if not (no_max or with_max):
            raise ParseError(f"{n} fields, but neither the 3rd nor the 4th is a direction (0, 1 or 2): not a fio "
                             "log", line0)
        if no_max == with_max:
            warn(f"the {n} fields read either as 'time, value, direction, …' or as 'time, mean, maximum, "
                 "direction, …' (fio logging each window's maximum too); taken as the first (every value is 2 or "
                 "less)", line0)
        has_max = with_max > no_max
    lay = _Layout(n, has_max, windowed=first[4 if has_max else 3] == 0)
    for ln, v, _h in rows:
        _check_row(lay, v, ln)
    if any(h for _ln, _v, h in rows):
        lay.version, lay.why = "fio 3.28+", "a priority field in hexadecimal (log_prio): fio 3.28 or later"
    elif n >= 6:
        lay.version, lay.why = "fio 3.18+", f"{n} fields per line: fio 3.18 or later"
    elif n == 5 and not lay.windowed and len(rows) >= 8 and all(v[4] in (0, 1) for _ln, v, _h in rows):
        lay.version, lay.why = "fio 3.18+", ("a fifth field of 0 or 1 on every I/O (a priority, not an offset): "
                                             "fio 3.18 or later")
    return lay


def _shown(n: int) -> str:
    """A number for a message: a damaged file's 400-digit number is cut."""
    s = str(n)
    return s if len(s) <= 20 else f"{s[:8]}… ({len(s):,} digits)"


def _check_row(lay: _Layout, v: list[int], line: int) -> None:
    if v[lay.ddir] not in DDIR:
        raise ParseError(f"direction {v[lay.ddir]} is not 0 (read), 1 (write) or 2 (trim)", line)
    if v[0] < 0:
        raise ParseError(f"time {v[0]} ms is negative", line)
    if v[0] > MAX_MS:
        raise ParseError(f"time {_shown(v[0])} ms is past the year 9999: not a time fio writes", line)
    if v[1] < 0:
        raise ParseError(f"value {v[1]} is negative", line)
    if v[1] > MAX_FIELD:
        raise ParseError(f"value {_shown(v[1])} is larger than fio writes (64 bits)", line)
    bs = v[lay.bs]
    if bs < 0:
        raise ParseError(f"block size {bs} is negative", line)
    if bs > MAX_FIELD:
        raise ParseError(f"block size {_shown(bs)} is larger than fio writes (64 bits)", line)
    if (bs == 0) != lay.windowed:
        before = "averaged over a window (block size 0)" if lay.windowed else "one I/O each (with a block size)"
        raise ParseError(f"block size {bs}, but the lines before are {before}: a log mixing both is not fio's", line)


@dataclass
class _Window:
    """One window of a per-I/O log: per direction (0, 1, 2), the I/Os, their bytes and the sum of their values."""

    __slots__ = ("bytes", "n", "total")

    def __init__(self) -> None:
        self.n = [0, 0, 0]
        self.bytes = [0, 0, 0]
        self.total = [0, 0, 0]

    def add(self, d: int, bs: int, value: int) -> None:
        self.n[d] += 1
        self.bytes[d] += bs
        self.total[d] += value

    def merge(self, other: _Window) -> None:
        for d in range(3):
            self.n[d] += other.n[d]
            self.bytes[d] += other.bytes[d]
            self.total[d] += other.total[d]


_COLUMN = {"bw": "kb_s", "iops": "_s", "lat": "_await_ms", "clat": "_await_ms"}  # after r / w / d


class _Log:
    """One bandwidth, IOPS or latency log."""

    def __init__(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn):
        self.path = path
        self.opt = options
        self.state = state
        self.warn = warn
        self.device, self.type, self.job = _name(path)
        self.layout: _Layout | None = None
        self.di = 2  # the direction's field (the block size follows it), once the layout is known
        self.epoch = False
        self.first_line = 1
        self.n_rows = 0
        self.ddirs: set[int] = set()
        self.win_rows: list[tuple[int, int, int]] = []  # windowed: (time, ddir, value)
        self.dir_last: dict[int, tuple[int, int]] = {}  # windowed: ddir -> (time, line) of its last row
        self.windows: dict[int, _Window] = {}  # per I/O: window index -> its I/Os
        self.win_ms = 1000.0 * (options.interval_s or 1.0)
        self.user_interval = bool(options.interval_s)
        self.origin = 0
        self.first_ms: int | None = None
        self.last_ms = 0
        self.magnitude: list[int] = []  # the first values, for the latency unit
        self.bs_seen: set[int] = set()

    # -- reading --
    def _refuse_by_name(self) -> None:
        if self.type is None:
            raise ParseError("the file name does not say which fio log this is: fio names them <job>_bw.1.log "
                             "(bandwidth), <job>_iops.1.log, <job>_lat.1.log or <job>_clat.1.log; keep fio's name "
                             "(the lines alone do not tell a bandwidth from a latency)", None)
        if self.type == "slat":
            raise ParseError("a submission-latency log (_slat): the time fio took to hand each I/O to the kernel is "
                             "not a device figure and StormScope has no place for it; import the job's _lat or _clat "
                             "log instead (same job, same directory)", None)
        if self.type == "clat_hist":
            raise ParseError("named like a histogram log (_clat_hist) but its lines have the few fields of a "
                             "bandwidth, IOPS or latency log", None)

    def read(self) -> None:
        self._refuse_by_name()
        pending: list[tuple[int, list[int], bool]] = []
        n_fields: int | None = None
        for ln, text in _lines(self.path, self.state, "reading the fio log"):
            parts = text.split(",")
            if n_fields is None:
                n_fields, self.first_line = len(parts), ln
                if not 4 <= n_fields <= 8:
                    raise ParseError(f"{n_fields} fields: a fio log line has 4 to 8 (time, value, direction, block "
                                     "size …)", ln)
            elif len(parts) != n_fields:
                raise ParseError(f"{len(parts)} fields where the lines before have {n_fields} (a line cut off, or "
                                 "two logs joined?)", ln)
            if self.layout is not None:
                self._row(ln, _ints(parts, ln, text, self.di + 2))
                continue
            values = _ints(parts, ln)
            pending.append((ln, values, parts[-1].strip()[:2].lower() == "0x"))
            if len(pending) >= LAYOUT_ROWS:
                self._start(pending)
                pending = []
        if self.layout is None:
            if not pending:
                raise ParseError("no log lines: the file is empty", None)
            self._start(pending)

    def _start(self, pending: list[tuple[int, list[int], bool]]) -> None:
        self.layout = _decide_layout(pending, self.warn)
        self.di = self.layout.ddir
        for ln, values, _hex in pending:
            self._row(ln, values)

    def _row(self, ln: int, v: list[int]) -> None:
        lay = self.layout
        assert lay is not None
        t, value, d, bs = v[0], v[1], v[self.di], v[self.di + 1]
        if (d not in DDIR or not 0 <= t <= MAX_MS or not 0 <= value <= MAX_FIELD or not 0 <= bs <= MAX_FIELD
                or (bs == 0) != lay.windowed):
            _check_row(lay, v, ln)  # raises, naming what is wrong
        if self.first_ms is None:
            self.first_ms = t
            self.epoch = _is_epoch(t, ln)
            self.origin = t if self.epoch else 0
        elif self.epoch != (t >= EPOCH_MS):
            raise ParseError(f"time {t} ms, but the lines before are "
                             f"{'dates (Unix time)' if self.epoch else 'times since the job started'}", ln)
        self.n_rows += 1
        self.ddirs.add(d)
        if t > self.last_ms:
            self.last_ms = t
        if len(self.magnitude) < 20_000:
            self.magnitude.append(value)
        if lay.windowed:
            last = self.dir_last.get(d)
            if last is not None and t < last[0]:
                raise ParseError(
                    f"the {DDIR[d]} rows' time goes back, from {last[0]} ms (line {last[1]}) to {t} ms: the log holds "
                    "several jobs one after the other -- fio writes the averaged logs of every clone of a job into one "
                    "file with numjobs above 1 and per_job_logs=0, and one clone's mean over a window is not the "
                    "job's. Run the job again with per_job_logs=1 (one log per clone: NAME_bw.1.log, NAME_bw.2.log "
                    "...) and import those, or log each I/O (without log_avg_msec): those logs add up", ln)
            self.dir_last[d] = (t, ln)
            self.win_rows.append((t, d, value))
            return
        if len(self.bs_seen) < 50:
            self.bs_seen.add(bs)
        k = int((t - self.origin) // self.win_ms)
        w = self.windows.get(k)
        if w is None:
            w = self.windows[k] = _Window()
        w.add(d, bs, value)

    # -- the latency unit --
    def _latency_scale(self) -> tuple[float, str, str]:
        """The log's latency values per ms (1e6 for ns, 1e3 for µs), the unit, and why."""
        lay = self.layout
        assert lay is not None
        if lay.version:
            return 1e6, "ns", lay.why
        for unit, why in (self._sibling_hist(), self._sibling_json()):
            if unit is not None:
                return (1e6 if unit == "ns" else 1e3), unit, why
        med = statistics.median(self.magnitude)
        if med >= 1_000_000:
            self.warn(f"the log does not say which fio wrote it: latencies taken as nanoseconds (fio 3.x), since "
                      f"their median, {med:,.0f}, would be over a second per I/O in microseconds (fio 2.x)", None)
            return 1e6, "ns", f"the values' size (median {med:,.0f}: over a second per I/O if µs)"
        if med < 1000:
            self.warn(f"the log does not say which fio wrote it: latencies taken as microseconds (fio 2.x), since "
                      f"their median, {med:,.0f}, would be under a microsecond per I/O in nanoseconds (fio 3.x)", None)
            return 1e3, "µs", f"the values' size (median {med:,.0f}: under 1 µs per I/O if ns)"
        self.warn(f"the log does not say which fio wrote it: latencies taken as nanoseconds (fio 3.0 and later). If "
                  f"fio 2.x wrote it they are microseconds and every latency here is 1000 times too small (median "
                  f"{med / 1e6:.3f} ms as ns, {med / 1e3:.3f} ms as µs); a histogram log or the JSON report of the "
                  "same job in the same directory settles it", None)
        return 1e6, "ns", "a guess: fio 3.x (the values fit nanoseconds and microseconds alike)"

    def _folder(self) -> str:
        """The folder the log was found in (the importer parses a private copy of it)."""
        return self.opt.source_folder or os.path.dirname(self.path) or "."

    def _sibling_hist(self) -> tuple[str | None, str]:
        """The unit of the histogram log of the same job next to this log (its bin count tells fio's version)."""
        name = f"{self.device}_clat_hist{'' if self.job is None else f'.{self.job}'}.log"
        try:
            with open(os.path.join(self._folder(), name), "rb") as fh:
                first = fh.readline(64 * 1024)
        except OSError:
            return None, ""
        lay = _hist_layout(first.count(b",") + 1 - 3)
        if lay is None:
            return None, ""
        unit = GROUPS[lay[0]]
        return unit, f"the histogram log of the same job ({name}: fio {'2.99+' if unit == 'ns' else '2.x'})"

    def _sibling_json(self) -> tuple[str | None, str]:
        """The unit of the fio JSON report of the same job (its ``jobname``) next to this log, by its version."""
        folder = self._folder()
        try:
            names = sorted(n for n in os.listdir(folder) if n.lower().endswith(".json"))[:200]
        except OSError:
            return None, ""
        job = re.compile(r'"jobname"\s*:\s*' + re.escape(json.dumps(self.device)))
        found: dict[str, tuple[int, int]] = {}
        for n in names:
            try:
                with open(os.path.join(folder, n), "rb") as fh:
                    head = fh.read(16_384).decode("utf-8", errors="replace")
            except OSError:
                continue
            v = re.search(r'"fio version"\s*:\s*"fio-(\d+)\.(\d+)', head)
            if v is not None and job.search(head):
                found[n] = (int(v[1]), int(v[2]))
        units = {"ns" if ver >= (2, 99) else "µs" for ver in found.values()}
        if len(units) != 1:
            return None, ""
        n, ver = next(iter(found.items()))
        return units.pop(), f"the JSON report of the same job ({n}: fio {ver[0]}.{ver[1]})"

    # -- samples --
    def events(self) -> Iterator[Event]:
        self.read()
        lay = self.layout
        assert lay is not None
        assert self.type is not None
        info = RunInfo(kind=KIND.id, tool_version=lay.version)
        info.meta = {"log": TYPES[self.type], "rows": self.n_rows,
                     "directions": [DDIR[d] for d in sorted(self.ddirs)], "fields": lay.fields}
        if self.job is not None:  # a file name without `.N` (per_job_logs=0): no number, the key left out
            info.meta["job_log_number"] = self.job
        scale = None
        if self.type in ("lat", "clat"):
            scale, unit, why = self._latency_scale()
            info.meta["latency_unit_in_file"] = unit
            info.meta["latency_unit_from"] = why
            info.meta["latency"] = ("completion latency (clat): from submission to completion, the time to submit "
                                    "not included") if self.type == "clat" else \
                "total latency (lat): submission plus completion"
        rows, times, interval = self._windowed(scale, info) if lay.windowed else self._per_io(scale, info)
        info.interval_s = interval / 1000 if interval else None
        info.interval_source = ("user" if self.user_interval and not lay.windowed else "timestamps") \
            if interval else "unknown"
        if interval is None:
            self.warn("one window only: the interval (fio's averaging window) is unknown; set it with "
                      "{fix:set_interval}", None)
        if self.epoch:
            info.meta["utc_offset"] = "+00:00"
            info.meta["clock"] = "milliseconds since 1970 (log_unix_epoch), UTC"
            info.started_at = _wall(times[0])
            info.file_date = info.started_at.date()
        else:
            info.meta["first_sample_ms"] = round(times[0])
            info.meta["clock"] = "milliseconds since the job started (no wall clock in the file)"
        key = "fio-log"
        yield RunStart(key, info)
        for i in range(0, len(rows), CHUNK):
            self.state.progress(0.9 + 0.1 * i / len(rows), "storing samples")
            yield Rows(key, "iostat_samples", pl.DataFrame(rows[i:i + CHUNK], schema=_SAMPLES))
        yield RunEnd(key, {"n_samples": len(times), "n_devices": 1,
                           "ended_at": _wall(times[-1]) if self.epoch else None}, info=info)

    def _sample(self, idx: int, t_ms: float, t0: float) -> dict[str, Any]:
        return {"sample_idx": idx, "ts": _wall(t_ms) if self.epoch else None, "t_s": (t_ms - t0) / 1000,
                "device": self.device, "since_boot": False, "is_group": False}

    def _windowed(self, scale: float | None, info: RunInfo) -> tuple[list[dict[str, Any]], list[float], float | None]:
        """One sample per window: the rows of the directions that close at about the same time (within half a
        window, one row per direction); the sample's time is its first row's."""
        by: dict[int, list[int]] = {}
        for t, d, _v in self.win_rows:
            by.setdefault(d, []).append(t)
        gap = _median_gap(by)
        info.meta["window"] = ("one row per direction and window (log_avg_msec): fio's mean over the window, or its "
                               "maximum with log_window_value=max (the file does not say which)")
        if self.layout is not None and self.layout.has_max:
            info.meta["window"] = ("one row per direction and window (log_avg_msec) with fio's mean and maximum "
                                   "(log_window_value=both): the mean is stored")
        groups: list[list[tuple[int, int, int]]] = []
        for row in sorted(self.win_rows, key=lambda r: (r[0], r[1])):
            cur = groups[-1] if groups else None
            if cur is None or any(r[1] == row[1] for r in cur) or (gap is not None and row[0] - cur[0][0] > gap / 2):
                groups.append([row])
            else:
                cur.append(row)
        col = _COLUMN[self.type or ""]
        times = [float(g[0][0]) for g in groups]
        out: list[dict[str, Any]] = []
        for idx, g in enumerate(groups):
            rec = self._sample(idx, times[idx], times[0])
            for _t, d, v in g:
                rec[_PREFIX[d] + col] = v / scale if scale is not None else float(v)
            out.append(rec)
        return out, times, gap

    def _per_io(self, scale: float | None, info: RunInfo) -> tuple[list[dict[str, Any]], list[float], float]:
        """Windows of the interval given at import (else 1 s) over the I/Os the rows are."""
        w = self.win_ms
        ks = sorted(self.windows)
        first_k, last_k = ks[0], ks[-1]
        start = {k: self.origin + k * w for k in range(first_k, last_k + 1)}
        end = {k: start[k] + w for k in start}
        end[last_k] = self.last_ms + 1  # the last sample ends with the last I/O's millisecond
        if last_k > first_k and end[last_k] - start[last_k] < w / 2:
            short = end[last_k] - start[last_k]
            self.windows.setdefault(last_k - 1, _Window()).merge(self.windows.pop(last_k))
            end[last_k - 1] = end.pop(last_k)
            info.meta["last_window"] = (f"the last {short:g} ms (less than half an interval) are counted in the "
                                        "sample before")
            last_k -= 1
        info.meta["window"] = (f"one row per I/O, counted into samples of {w / 1000:g} s: I/Os and KiB per second "
                               "from the rows' count and block sizes over the time each sample covers"
                               + (", latency their mean" if scale is not None else ""))
        info.meta["block_sizes"] = sorted(self.bs_seen)
        out: list[dict[str, Any]] = []
        times: list[float] = []
        for idx, k in enumerate(range(first_k, last_k + 1)):
            win = self.windows.get(k, _Window())
            span = (end[k] - start[k]) / 1000
            times.append(end[k])
            rec = self._sample(idx, end[k], end[first_k])
            for d in sorted(self.ddirs):
                p, n = _PREFIX[d], win.n[d]
                rec[f"{p}_s"] = n / span
                rec[f"{p}kb_s"] = win.bytes[d] / 1024 / span
                rec[f"{p}areq_kb"] = win.bytes[d] / 1024 / n if n else None
                if scale is not None:
                    rec[f"{p}_await_ms"] = win.total[d] / n / scale if n else None
            out.append(rec)
        return out, times, w


# ---- histogram logs ---------------------------------------------------------------------------------------------
def _hist_layout(bins: int) -> tuple[int, int] | None:
    """(FIO_IO_U_PLAT_GROUP_NR, log_hist_coarseness) of a histogram log row of ``bins`` bins, None when no fio
    build writes that many (the counts of fio 2.x and 2.99+ never collide)."""
    for groups in GROUPS:
        for c in range(9):
            if (groups * PLAT_VAL) % (1 << c) == 0 and (groups * PLAT_VAL) >> c == bins:
                return groups, c
    return None


def fine_bin_range(idx: int) -> tuple[int, int]:
    """The whole latencies [lo, hi) fio's bin ``idx`` counts (fio's ``plat_val_to_idx`` inverted; its
    ``plat_idx_to_val`` is this range's middle)."""
    if idx < 2 * PLAT_VAL:
        return idx, idx + 1
    error_bits = (idx >> PLAT_BITS) - 1
    width = 1 << error_bits
    lo = (1 << (error_bits + PLAT_BITS)) + (idx % PLAT_VAL) * width
    return lo, lo + width


def bin_bounds(groups: int, coarseness: int) -> list[tuple[float, float | None]]:
    """Per bin of a row, the bucket (lo − 1, hi − 1] in the log's unit; the last bin is open (fio counts every
    latency above its range in it)."""
    stride = 1 << coarseness
    nr = groups * PLAT_VAL
    out: list[tuple[float, float | None]] = []
    for c in range(nr // stride):
        lo = fine_bin_range(c * stride)[0]
        hi = fine_bin_range(c * stride + stride - 1)[1]
        out.append((float(lo - 1), float(hi - 1) if (c + 1) * stride < nr else None))
    return out


class _HistLog:
    """One histogram log, read twice: the rows' times first (the window), then the bins, streamed by sample."""

    def __init__(self, path: str, state: JobState, warn: WarnFn):
        self.path = path
        self.state = state
        self.warn = warn
        self.device, self.type, self.job = _name(path)

    def _times(self) -> tuple[dict[int, list[int]], int, int, int]:
        """Pass 1: each direction's row times, the bins per row, the first row's time and line."""
        by: dict[int, list[int]] = {}
        bins = first_t = first_line = 0
        for ln, text in _lines(self.path, self.state, "reading the histogram log's times"):
            n = text.count(",") + 1
            if not bins:
                bins, first_line = n - 3, ln
                if n < 4 or _hist_layout(bins) is None:
                    raise ParseError(f"{max(n - 3, 0)} bins per line: fio's histogram logs have 1856 (fio 2.99+) or "
                                     "1216 (fio 2.x), or those divided by 2, 4, 8 … (fio's histogram coarseness); "
                                     "a fio built with another number of latency bins is not read", ln)
            elif n - 3 != bins:
                raise ParseError(f"{n - 3} bins where the lines before have {bins} (a line cut off?)", ln)
            t_text, d_text, _rest = text.split(",", 2)
            t = _int(t_text, ln, "time")
            d = _int(d_text, ln, "direction")
            if d not in DDIR:
                raise ParseError(f"direction {d} is not 0 (read), 1 (write) or 2 (trim)", ln)
            if t < 0:
                raise ParseError(f"time {t} ms is negative", ln)
            if t > MAX_MS:
                raise ParseError(f"time {_shown(t)} ms is past the year 9999: not a time fio writes", ln)
            if not by:
                first_t = t
            by.setdefault(d, []).append(t)
        if not by:
            raise ParseError("no log lines: the file is empty", None)
        return by, bins, first_t, first_line

    def _bins(self) -> Iterator[tuple[int, int, int, int, np.ndarray, np.ndarray]]:
        """Pass 2: (line, time, ddir, block size, bin indexes, counts) of the bins that hold I/Os, per row."""
        for ln, text in _lines(self.path, self.state, "reading the histogram log's bins"):
            parts = text.split(",")
            try:
                counts = np.array(parts[3:], dtype=np.int64)
            except (ValueError, OverflowError):
                for i, f in enumerate(parts[3:]):
                    _int(f, ln, f"bin {i}")
                raise ParseError("a bin count is not a whole number", ln) from None
            if (counts < 0).any():
                i = int(np.argmax(counts < 0))
                raise ParseError(f"bin {i} holds {counts[i]} I/Os", ln)
            nz = np.nonzero(counts)[0]
            yield ln, int(parts[0]), int(parts[1]), _int(parts[2], ln, "block size"), nz, counts[nz]

    def events(self) -> Iterator[Event]:
        if self.type is not None and self.type != "clat_hist":
            self.warn(f"named like a {TYPES[self.type]} log, but its lines are a latency histogram log's: read as "
                      "one", None)
        by, bins, first_t, first_line = self._times()
        layout = _hist_layout(bins)
        assert layout is not None
        groups, coarse = layout
        unit = GROUPS[groups]
        bounds = bin_bounds(groups, coarse)
        per_us = 1000.0 if unit == "ns" else 1.0
        lo_us = [lo / per_us for lo, _hi in bounds]
        hi_us = [None if hi is None else hi / per_us for _lo, hi in bounds]
        epoch = _is_epoch(first_t, first_line)
        gap = _median_gap(by)
        info = RunInfo(kind=HIST_KIND.id, tool_version="fio 2.99+ (bins in ns)" if unit == "ns"
                       else "fio 2.14 – 2.x (bins in µs)")
        info.interval_s = gap / 1000 if gap else None
        info.interval_source = "timestamps" if gap else "unknown"
        if not gap:
            self.warn("one row per direction: the window (fio's histogram logging interval) is unknown; set it with "
                      "{fix:set_interval}", None)
        info.meta = {
            "log": TYPES["clat_hist"], "rows": sum(len(v) for v in by.values()),
            "bins": bins, "latency_unit_in_file": unit, "log_hist_coarseness": coarse,
            "directions": [DDIR[d] for d in sorted(by)],
            "counts_per_interval": "per interval: each row of fio's histogram log holds the I/Os completed since "
                                   "that direction's row before (fio 2.14 and later)",
            "histogram_source": "completion latency (clat) histogram log of fio",
        }
        if self.job is not None:
            info.meta["job_log_number"] = self.job
        if epoch:
            info.meta["utc_offset"] = "+00:00"
            info.meta["clock"] = "milliseconds since 1970 (log_unix_epoch), UTC"
        else:
            info.meta["clock"] = "milliseconds since the job started (no wall clock in the file)"
        key = "fio-hist"
        yield RunStart(key, info)
        stats = _HistSamples(self, gap, lo_us, hi_us, epoch)
        for ln, t, d, bs, idx, counts in self._bins():
            yield from stats.add(ln, t, d, bs, idx, counts)
        yield from stats.flush(final=True)
        if stats.n == 0:
            raise ParseError("only trim rows: no read or write latencies to store", first_line)
        if stats.trim:
            self.warn(f"{stats.trim:,} trim I/Os are not stored (the histograms hold reads and writes)", None)
        if stats.merged:
            self.warn(f"{stats.merged} rows share a window with an earlier row of their direction (fio catching up "
                      "after a pause): their counts are added", None)
        info.meta["block_sizes"] = sorted(stats.bs_seen)
        if epoch:
            info.started_at = _wall(stats.t0 or 0)
            info.file_date = info.started_at.date()
        else:
            info.meta["first_sample_ms"] = stats.t0
        yield RunEnd(key, {"n_samples": stats.n, "n_devices": 1,
                           "ended_at": _wall(stats.t_last) if epoch else None}, info=info)


class _HistSamples:
    """Rows to samples: each row to the nearest window end; a direction's rows in one window are added (each holds
    its own I/Os). Samples are stored as soon as later rows are two windows on."""

    def __init__(self, log: _HistLog, gap: float | None, lo_us: list[float], hi_us: list[float | None], epoch: bool):
        self.log = log
        self.gap = gap
        self.lo_us = lo_us
        self.hi_us = hi_us
        self.epoch = epoch
        self.open: dict[int, dict[int, dict[int, int]]] = {}  # window -> ddir -> bin -> I/Os
        self.t_of: dict[int, int] = {}
        self.done_k: int | None = None  # the last window stored
        self.n = 0
        self.t0: int | None = None
        self.t_last = 0
        self.trim = 0
        self.merged = 0
        self.bs_seen: set[int] = set()
        self.hist: list[tuple[Any, ...]] = []  # rows not yet sent
        self.stats: list[tuple[Any, ...]] = []

    def add(self, ln: int, t: int, d: int, bs: int, idx: np.ndarray, counts: np.ndarray) -> Iterator[Event]:
        if len(self.bs_seen) < 50:
            self.bs_seen.add(bs)
        if d == 2:
            self.trim += int(counts.sum())
            return
        k = round(t / self.gap) if self.gap else 0
        if self.done_k is not None and k <= self.done_k:
            raise ParseError(f"time {t} ms is before rows already read (the log's rows are out of time order)", ln)
        per = self.open.setdefault(k, {})
        if d in per:
            self.merged += 1
        h = per.setdefault(d, {})
        for i, c in zip(idx.tolist(), counts.tolist()):
            h[i] = h.get(i, 0) + c
        self.t_of[k] = max(self.t_of.get(k, t), t)
        if len(self.open) > 2:
            yield from self.flush(final=False, before=k - 1)

    def flush(self, final: bool, before: int | None = None) -> Iterator[Event]:
        ready = sorted(k for k in self.open if final or (before is not None and k < before))
        hist, stats = self.hist, self.stats
        for k in ready:
            t = self.t_of.pop(k)
            if self.t0 is None:
                self.t0 = t
            self.t_last = t
            ts = _wall(t) if self.epoch else None
            t_s = (t - self.t0) / 1000
            for d, h in sorted(self.open.pop(k).items()):
                op = DDIR[d]
                for i in sorted(h):
                    hist.append((self.n, ts, t_s, self.log.device, "latency_us", op, self.lo_us[i], self.hi_us[i],
                                 h[i]))
                stats.append((self.n, self.log.device, "latency_us", op, None, None, None, sum(h.values())))
            self.n += 1
            self.done_k = k
        if hist and (final or len(hist) >= HIST_CHUNK):
            yield Rows("fio-hist", "histograms", pl.DataFrame(hist, schema=_HIST, orient="row"))
            yield Rows("fio-hist", "histogram_stats", pl.DataFrame(stats, schema=_STATS, orient="row"))
            self.hist, self.stats = [], []


LOG_FORMAT = register(FioLogFormat())
HIST_FORMAT = register(FioHistLogFormat())
