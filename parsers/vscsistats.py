"""VMware ESXi ``vscsiStats -p <type> -c`` (CSV) histograms.

Layout (one block per histogram, several VM disks and several histogram types per
collection, collections possibly appended to one file)::

    Histogram: latency of IOs in Microseconds (us),virtual machine worldGroupID,2099979,virtual disk handleID,8194 ...
    min,40
    max,51537
    mean,392
    count,793
    Frequency,Histogram Bucket Limit
    0,1
    ...
    1,100000
    0,100000        <- the last limit printed twice: the overflow bucket (values above it)

Everything is found by its label: the histogram type from the title words, the VM
disk from the ``worldGroupID`` / ``handleID`` labels, the summary rows from their
``min``/``max``/``mean``/``count`` names. A bucket counts values in (previous limit,
limit]. A collection ends where a (disk, histogram) pair repeats, or at a timestamp
line (``date`` output or ISO) printed between looped collections.

The text layout (``-p`` without ``-c``, braces and ``min : N`` rows) is recognised
but not read: no public sample of it could be found to establish its exact form, so
it is refused with a message asking for ``-c`` (see :class:`VscsiStatsTextFormat`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import LATENCY_HISTOGRAMS, TIME_SERIES, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import BOOL, LIST, REFUSED, TEXT, Counts, MetaKey, Semantics, Span

METRICS = ("io_length_bytes", "seek_distance_lbn", "seek_closest16_lbn", "latency_us", "outstanding_ios",
           "interarrival_us")

_HEADER = re.compile(r"^\s*Histogram:", re.IGNORECASE)
_NUM = re.compile(r"^[+-]?\d+(?:\.\d+)?$")
_TEXT_HEADER = re.compile(rb"^\s*Histogram:[^,\n]*worldGroupID\s*:[^\n]*\{\s*$", re.IGNORECASE | re.MULTILINE)
_CSV_HEADER = re.compile(rb"^\s*Histogram:[^\n]*,[^\n]*worldGroupID", re.IGNORECASE | re.MULTILINE)
_DATE_CMD = re.compile(
    r"^(?:[A-Za-z]{3},?\s+)?(?P<mon>[A-Za-z]{3})\s+(?P<day>\d{1,2})\s+(?P<h>\d{1,2}):(?P<m>\d{2}):(?P<s>\d{2})"
    r"(?:\s+(?P<tz>[A-Za-z]{1,5}|[+-]\d{4}))?\s+(?P<year>\d{4})$")
_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                            "nov", "dec"))}
MAX_STRAY_WARNINGS = 3


def classify(title: str) -> tuple[str, str] | None:
    """(metric, op) of a histogram title as vscsiStats prints it, or None when unknown."""
    t = title.lower()
    if "interarrival" in t:
        metric = "interarrival_us"
    elif "closest of previous 16" in t:
        metric = "seek_closest16_lbn"
    elif "distance" in t:
        metric = "seek_distance_lbn"
    elif "outstanding" in t:
        metric = "outstanding_ios"
    elif "latency" in t:
        metric = "latency_us"
    elif "io length" in t:
        metric = "io_length_bytes"
    else:
        return None
    reads = re.search(r"\breads?\b", t) is not None
    writes = re.search(r"\bwrites?\b", t) is not None
    if reads and writes:
        return None
    return metric, "read" if reads else "write" if writes else "all"


def parse_stamp(text: str) -> datetime | None:
    """A timestamp line between collections: ``date`` output or ISO 8601. None if it is not one."""
    s = text.strip()
    if not s or len(s) > 40:
        return None
    m = _DATE_CMD.match(s)
    if m:
        mon = _MONTHS.get(m.group("mon").lower())
        if mon is None:
            return None
        try:
            return datetime(int(m.group("year")), mon, int(m.group("day")), int(m.group("h")), int(m.group("m")),
                            int(m.group("s")))
        except ValueError:
            return None
    if re.match(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", s):
        try:
            dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
        except ValueError:
            return None
        return dt.replace(tzinfo=None)
    return None


def _number(tok: str) -> int | float | None:
    if not _NUM.match(tok):
        return None
    return float(tok) if "." in tok else int(tok)


@dataclass
class _Block:
    line: int
    title: str
    device: str
    key: tuple[str, str, str] | None  # (device, metric, op); None = unknown type, skipped
    stats: dict[str, tuple[int | float, int]] = field(default_factory=dict)  # name -> (value, line)
    rows: list[tuple[int | float, int | float, int]] = field(default_factory=list)  # (count, limit, line)
    header_seen: bool = False

    @property
    def count(self) -> int | None:
        v = self.stats.get("count")
        return None if v is None else int(v[0])

    def has_overflow(self) -> bool:
        return len(self.rows) >= 2 and self.rows[-1][1] == self.rows[-2][1]

    def complete(self) -> bool:
        return (self.count is not None and bool(self.rows) and self.has_overflow()
                and sum(r[0] for r in self.rows) == self.count)

    def label(self) -> str:
        return f"histogram {self.title!r} of {self.device} (line {self.line})"


KIND = register_kind("vscsistats", "vscsiStats", {TIME_SERIES, LATENCY_HISTOGRAMS}, series=("VM disk", "VM disks"))



# what vscsiStats' data means (parsers.semantics)
SEMANTICS = Semantics(
    main_table="histograms", span=Span.INTERVAL, counts=Counts.CUMULATIVE,
    wording={"device": "worldGroupID:handleID (scsiN:N)", "bucket_hi": "Histogram Bucket Limit",
             "count": "Frequency", "min": "min", "max": "max", "mean": "mean"},
    meta=(MetaKey("devices", LIST, "the VM disks (worldGroupID:handleID) in the file"),
          MetaKey("histograms", LIST, "the histogram types read (metric/op)"),
          MetaKey("timestamps", TEXT, "timestamp lines matched one to one with the collections"),
          MetaKey("counts_look_cumulative", BOOL, "no bucket count ever falls from one collection to the next (never "
                  "reset with -r): each collection holds everything since the start")))


class VscsiStatsCsvFormat:
    id = "vscsistats-csv"
    kind = KIND.id
    label = "VMware vscsiStats (CSV, -c)"
    priority = 400
    tables = ("histograms", "histogram_stats")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        if not _CSV_HEADER.search(head):
            return 0.0
        if b"Histogram Bucket Limit" in head or re.search(rb"^\s*(min|max|mean|count),-?\d+", head, re.MULTILINE):
            return 0.97
        return 0.7

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _CsvParser(options, state, warn).run(read_text(path, "a vscsiStats CSV"))


class _CsvParser:
    def __init__(self, options: ImportOptions, state: JobState, warn: WarnFn):
        self.opt = options
        self.state = state
        self.warn = warn
        self.samples: list[list[_Block]] = [[]]
        self.keys: set[tuple[str, str, str]] = set()
        self.stamps: list[tuple[int, datetime, int]] = []  # (line, stamp, samples closed before it)
        self.block: _Block | None = None
        self.stray: list[int] = []
        self.unknown_titles: dict[str, int] = {}
        self.missing_header_warned = False

    # ---- line walk ---------------------------------------------------------------------------
    def run(self, text: str) -> Iterator[Event]:
        lines = text.splitlines()
        n = len(lines)
        truncated_at: int | None = None
        for i, raw in enumerate(lines):
            if i % 20000 == 0 and n > 20000:
                self.state.progress(i / n * 0.8, "reading histograms")
            self._line(raw.strip(), i + 1)
        if self.block is not None:
            if self.block.has_overflow() or self._harmless_without_overflow(self.block):
                self._end_block(n)  # ended with its overflow row: a count mismatch is an error, not a cut
            else:
                truncated_at = self.block.line
                self.block = None
        if truncated_at is not None:
            dropped = self.samples.pop() if self.samples[-1] or len(self.samples) > 1 else []
            if not any(self.samples):
                raise ParseError("the file ends inside a histogram of its first collection: "
                                 "no complete collection to import", truncated_at)
            self.warn(f"the file ends inside a histogram (the block starting at line {truncated_at} is cut off): "
                      f"the last collection ({len(dropped) + 1} histograms read so far) is left out", truncated_at)
        while self.samples and not self.samples[-1]:
            self.samples.pop()
        if not self.samples:
            raise ParseError("no vscsiStats histogram found (expected 'Histogram: ...' blocks)", 1)
        if truncated_at is None and len(self.samples) > 1:
            # cut between two blocks: the last collection lacks histograms every earlier one has
            have = {b.key for b in self.samples[-1]}
            missing = {b.key for b in self.samples[-2]} - have
            if missing and have <= {b.key for b in self.samples[-2]}:
                self.samples.pop()
                self.warn(f"the last collection has {len(have)} of the {len(have) + len(missing)} histograms the "
                          "one before has: the file is cut off there, and that collection is left out",
                          len(lines))
        if truncated_at is None:
            self._drop_cut_triple(len(lines))
        self._report_stray()
        yield from self._events()

    def _drop_cut_triple(self, line: int) -> None:
        """vscsiStats prints each histogram for all I/O, reads and writes. When the other histograms of the last
        collection have all three and the file's last one stops after one or two, the file was cut between
        blocks: that histogram is left out rather than shown without its reads or writes."""
        last = self.samples[-1]
        ops: dict[tuple[str, str], set[str]] = {}
        for b in last:
            assert b.key is not None
            ops.setdefault((b.key[0], b.key[1]), set()).add(b.key[2])
        triple = {"all", "read", "write"}
        partial = [k for k, o in ops.items() if not o >= triple and k[1] != "seek_closest16_lbn"]  # that one: 'all'

        tail = last[-1].key
        if not any(o >= triple for o in ops.values()) or tail is None or partial != [(tail[0], tail[1])]:
            return
        self.samples[-1] = [b for b in last if b.key is not None and (b.key[0], b.key[1]) != partial[0]]
        self.warn(f"the file ends after {len(ops[partial[0]])} of the 3 '{partial[0][1]}' histograms (all, read, "
                  "write) of the last collection: it is cut off there, and that histogram is left out", line)

    def _line(self, s: str, ln: int) -> None:
        b = self.block
        if not s:
            if b is not None and b.rows:
                self._end_block(ln)
            return
        if _HEADER.match(s):
            if b is not None:
                self._end_block(ln)
            self._open_block(s, ln)
            return
        if b is not None:
            fields = [f.strip() for f in s.split(",")]
            while fields and fields[-1] == "":
                fields.pop()
            name = fields[0].lower() if fields else ""
            if not b.rows and name in ("min", "max", "mean", "count") and len(fields) == 2:
                v = _number(fields[1])
                if v is None:
                    raise ParseError(f"{name} of {b.label()} is not a number: {fields[1]!r}", ln)
                if name in b.stats:
                    raise ParseError(f"a second '{name}' row in {b.label()}", ln)
                b.stats[name] = (v, ln)
                return
            if not b.rows and name == "frequency":
                b.header_seen = True
                return
            if (len(fields) == 2 and (cnt := _number(fields[0])) is not None
                    and (limit := _number(fields[1])) is not None):
                self._bucket(b, cnt, limit, fields, ln)
                return
            if b.complete() or self._harmless_without_overflow(b):
                self._end_block(ln)
                self._top_level(s, ln)
                return
            raise ParseError(f"unexpected text {s[:60]!r} inside {b.label()}: expected "
                             f"{'a count,limit bucket row' if b.rows or b.header_seen else 'min/max/mean/count'}", ln)
        self._top_level(s, ln)

    def _bucket(self, b: _Block, cnt: int | float, limit: int | float, fields: list[str], ln: int) -> None:
        """A 'count,limit' row of block ``b``."""
        if not b.header_seen and not b.rows and not self.missing_header_warned:
            self.warn("bucket rows without a 'Frequency,Histogram Bucket Limit' header line", ln)
            self.missing_header_warned = True
        if isinstance(cnt, float) or cnt < 0:
            raise ParseError(f"bucket count {fields[0]!r} in {b.label()} is not a whole number >= 0", ln)
        if b.has_overflow():
            # a row after the overflow row: the overflow is not last, so the block is malformed
            raise ParseError(f"bucket row after the overflow row (limit {b.rows[-1][1]} printed twice) "
                             f"in {b.label()}", ln)
        if b.rows and limit < b.rows[-1][1]:
            raise ParseError(f"bucket limits must increase: {fields[1]} after {b.rows[-1][1]} in "
                             f"{b.label()}", ln)
        b.rows.append((cnt, limit, ln))

    def _top_level(self, s: str, ln: int) -> None:
        stamp = parse_stamp(s)
        if stamp is not None:
            if self.samples[-1]:
                self.samples.append([])
                self.keys = set()
            self.stamps.append((ln, stamp, len(self.samples) - 1))
            return
        self.stray.append(ln)

    def _open_block(self, s: str, ln: int) -> None:
        fields = [f.strip() for f in s.split(",")]
        if len(fields) < 2:
            if "{" in s:
                raise ParseError("this is vscsiStats' text layout (printed without -c), which StormScope does not "
                                 "read: re-run 'vscsiStats -p all -c'", ln)
            raise ParseError(f"histogram title without its VM disk labels: {s[:80]!r}", ln)
        title = re.sub(r"^\s*Histogram:\s*", "", fields[0], flags=re.IGNORECASE)
        wgid = handle = None
        for j, f in enumerate(fields[:-1]):
            low = f.lower()
            if "worldgroupid" in low:
                wgid = fields[j + 1]
            elif "handleid" in low:
                handle = fields[j + 1]
        if not wgid or not handle:
            raise ParseError(f"histogram title without 'worldGroupID' and 'handleID' labels: {s[:100]!r}", ln)
        device = f"{wgid}:{handle}"
        kind = classify(title)
        if kind is None:
            self.unknown_titles.setdefault(title, ln)
            self.block = _Block(ln, title, device, None)
            return
        key = (device, kind[0], kind[1])
        if key in self.keys:  # the same disk and histogram again: the next collection starts
            self.samples.append([])
            self.keys = set()
        self.keys.add(key)
        self.block = _Block(ln, title, device, key)

    def _harmless_without_overflow(self, b: _Block) -> bool:
        return (b.count is not None and bool(b.rows) and not b.has_overflow()
                and sum(r[0] for r in b.rows) == b.count)

    def _end_block(self, ln: int) -> None:
        b = self.block
        assert b is not None
        if b.count is None:
            raise ParseError(f"{b.label()} has no 'count' row", b.line)
        if not b.rows:
            raise ParseError(f"{b.label()} has no bucket rows", b.line)
        total = sum(r[0] for r in b.rows)
        if total != b.count:
            count_line = b.stats["count"][1]
            why = "" if b.has_overflow() else (" (and there is no overflow row, the last limit printed twice: "
                                               "the block may be cut off)")
            raise ParseError(f"the buckets of {b.label()} add up to {total:,}, but its count (line {count_line}) "
                             f"is {b.count:,}{why}", b.rows[-1][2])
        if not b.has_overflow():
            self.warn(f"{b.label()} has no overflow row (its last limit printed twice); its buckets add up to its "
                      "count, so nothing lies above the last limit", b.rows[-1][2])
        self._close_block()

    def _close_block(self) -> None:
        b = self.block
        self.block = None
        if b is None or b.key is None:
            return
        self.samples[-1].append(b)

    def _report_stray(self) -> None:
        if self.unknown_titles:
            for title, ln in list(self.unknown_titles.items())[:MAX_STRAY_WARNINGS]:
                self.warn(f"histogram type not recognised, skipped: {title!r}", ln)
        if self.stray:
            more = f" (and {len(self.stray) - 1} more such lines)" if len(self.stray) > 1 else ""
            self.warn(f"text outside any histogram ignored{more}", self.stray[0])

    # ---- frames ------------------------------------------------------------------------------
    def _events(self) -> Iterator[Event]:
        n = len(self.samples)
        info = RunInfo(kind="vscsistats")
        ts_by: dict[int, datetime] = {}
        if self.stamps:
            if len(self.stamps) == n and len({s[2] for s in self.stamps}) == n:
                ts_by = {i: s[1] for i, s in enumerate(self.stamps)}
                info.meta["timestamps"] = f"{len(self.stamps)} timestamp lines, one per collection"
            else:
                self.warn(f"{len(self.stamps)} timestamp lines for {n} collections: they cannot be matched one to "
                          "one and are ignored", self.stamps[0][0])
        interval: float | None = None
        t_by: dict[int, float] = {}
        if ts_by:
            t0 = ts_by[0]
            t_by = {i: (ts_by[i] - t0).total_seconds() for i in range(n)}
            diffs = sorted(t_by[i + 1] - t_by[i] for i in range(n - 1))
            if diffs:
                interval = diffs[len(diffs) // 2]
                info.interval_source = "timestamps"
                if min(diffs) <= 0:
                    self.warn("timestamps between collections do not increase", None)
                if self.opt.interval_s and abs(self.opt.interval_s - interval) > 0.05 * interval:
                    self.warn(f"the interval given ({self.opt.interval_s:g} s) was not used: the timestamps say "
                              f"{interval:g} s", None)
            info.started_at = t0
        if interval is None and self.opt.interval_s:
            interval = self.opt.interval_s
            info.interval_source = "user"
            t_by = {i: i * interval for i in range(n)}
        elif interval is None:
            info.interval_source = "unknown"
            self.warn("the file does not say how long each collection lasted: IOPS and MB/s need it; set it with "
                      "{fix:set_interval} (the time between collections)", None)
        info.interval_s = interval

        hist: list[tuple[Any, ...]] = []
        stats: list[tuple[Any, ...]] = []
        devices: set[str] = set()
        types: set[tuple[str, str]] = set()
        for idx, blocks in enumerate(self.samples):
            ts = ts_by.get(idx)
            t = t_by.get(idx)
            for b in blocks:
                assert b.key is not None
                device, metric, op = b.key
                devices.add(device)
                types.add((metric, op))
                cnt = b.count or 0
                st = {k: float(v[0]) for k, v in b.stats.items() if k != "count"}
                stats.append((idx, device, metric, op, st.get("min") if cnt else None,
                              st.get("max") if cnt else None, st.get("mean") if cnt else None, cnt))
                regular = b.rows[:-1] if b.has_overflow() else b.rows
                prev = None
                for c, lim, _ln in regular:
                    hist.append((idx, ts, t, device, metric, op, prev, float(lim), int(c)))
                    prev = float(lim)
                if b.has_overflow():
                    hist.append((idx, ts, t, device, metric, op, prev, None, int(b.rows[-1][0])))
        self._check_cumulative(info)
        info.meta["devices"] = sorted(devices)
        info.meta["histograms"] = [f"{m}/{o}" for m, o in sorted(types)]
        key = "vscsistats"
        yield RunStart(key, info)
        yield Rows(key, "histograms", pl.DataFrame(hist, schema=frame_schema("histograms"), orient="row"))
        yield Rows(key, "histogram_stats", pl.DataFrame(stats, schema=frame_schema("histogram_stats"), orient="row"))
        self.state.progress(1.0, "done")
        yield RunEnd(key, {"n_samples": n, "n_devices": len(devices),
                           "ended_at": ts_by.get(n - 1) if ts_by else None}, info=info)

    def _check_cumulative(self, info: RunInfo) -> None:
        """vscsiStats accumulates until reset (-r): counts that never fall suggest no reset between collections."""
        if len(self.samples) < 2:
            return
        grew = False
        for a, b in zip(self.samples, self.samples[1:]):
            prev = {blk.key: blk for blk in a}
            for blk in b:
                p = prev.get(blk.key)
                if p is None or len(p.rows) != len(blk.rows):
                    continue
                if any(y[0] < x[0] for x, y in zip(p.rows, blk.rows)):
                    info.meta["counts_look_cumulative"] = False
                    return
                grew = grew or (blk.count or 0) > (p.count or 0)
        info.meta["counts_look_cumulative"] = grew
        if grew:
            self.warn("no bucket count ever falls from one collection to the next: the histograms look cumulative "
                      "(vscsiStats not reset with -r between collections): each collection holds everything since "
                      "the start, so analyses take its own I/Os as its counts minus the previous collection's. If "
                      "vscsiStats was reset, say so with {fix:counts_per_collection}", None)


class VscsiStatsTextFormat:
    """vscsiStats' text layout (``-p`` without ``-c``): recognised, refused with a clear message.

    A third-party script documents its title line (``Histogram: ... worldGroupID : N, virtual disk
    handleID : N {``) but no public sample of the bucket rows and overflow row could be found, so the
    rows are not guessed.
    """

    id = "vscsistats-text"
    kind = KIND.id
    label = "VMware vscsiStats (text layout, not supported)"
    priority = 390
    tables = ()
    semantics = REFUSED
    unsupported = ("vscsiStats text layout (printed without -c) is not supported: re-run 'vscsiStats -p all -c' "
                   "(or '-p <type> -c') and import the CSV output")

    def sniff(self, head: bytes) -> float:
        return 0.9 if _TEXT_HEADER.search(head) else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from ()  # a generator like the other parsers: the error comes on the first next()
        with open(path, "rb") as fh:
            head = fh.read(65536)
        m = _TEXT_HEADER.search(head)
        line = head[: m.start()].count(b"\n") + 1 if m else 1
        raise ParseError(self.unsupported, line)


CSV_FORMAT = register(VscsiStatsCsvFormat())
TEXT_FORMAT = register(VscsiStatsTextFormat())
