"""sysstat ``iostat -o JSON`` (11.5.1+): ``sysstat.hosts[].statistics[]``.

The file is streamed: the outer structure (the ``sysstat`` object, ``hosts[]``, each host's keys and its
``statistics[]``) is walked here a chunk of text at a time, and each report (one element of ``statistics[]``)
is decoded on its own, so memory holds one chunk and a batch of rows whatever the capture's length. Rows go
out in batches with the times known so far; when the whole file reads the dates otherwise (a day above 12
came late), the times are sent again (:class:`~parsers.base.SampleTimes`), as the text format does.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import re
from collections.abc import Callable, Generator, Iterator
from datetime import datetime
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
    SampleTimes,
    WarnFn,
    decode,
    parse_json,
)
from parsers.dates import Words
from parsers.iostat import KIND, WORDING
from parsers.iostat_columns import JSON_COLUMNS, METRICS, layout_family
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import Counts, Semantics, Span, common
from parsers.textutil import RawStamp, StampResolver, date_stamps, split_stamp, stamp_date, stamp_datetime

CPU_KEYS = ["user", "nice", "system", "iowait", "steal", "idle"]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# what iostat's JSON means (parsers.semantics): the text format's wording, its JSON keys beside
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES, names=LINUX_NAMES,
    wording={**WORDING, "rrqm_pct": "rrqm", "wrqm_pct": "wrqm", "drqm_pct": "drqm", "util_pct": "util"},
    meta=common("arch", "cpus", "banner_date", "date_order", "date_reading"))


class IostatJsonFormat:
    id = "iostat-json"
    kind = KIND.id  # the kind parsers.iostat declares
    label = "sysstat iostat (JSON)"
    priority = 600
    tables = ("iostat_samples", "cpu_samples")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        t = head.lstrip()[:2048]
        if not t.startswith(b"{"):
            return 0.0
        if re.search(rb'"sysstat"\s*:', t) and (b'"disk' in head or b'"avg-cpu"' in head or b'"statistics"' in head):
            return 0.97
        if re.search(rb'"sysstat"\s*:', t):
            return 0.6
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        r = _Reader(path, options.chunk_bytes, state)
        hosts = 0
        try:
            if r.peek() != "{":
                r.value()  # a document that is no object: read (a JSON error is said first), then refused
            else:
                for key in r.members():
                    if key != "sysstat" or r.peek() != "{":
                        r.value()
                        continue
                    for key2 in r.members():
                        if key2 != "hosts" or r.peek() != "[":
                            r.value()
                            continue
                        for h_i in r.items():
                            hosts += 1
                            yield from self._host(r, h_i, options, state, warn)
            end = r.line_at(r.pos)  # where the document ends
            if r.peek():
                raise ParseError("text after the JSON document", end)
        finally:
            r.close()
        if not hosts:
            raise ParseError("no sysstat.hosts[] array", 1)

    def _host(self, r: _Reader, h_i: int, options: ImportOptions, state: JobState,
              warn: WarnFn) -> Iterator[Event]:
        if r.peek() != "{":
            r.value()
            raise ParseError(f"hosts[{h_i}] is not an object", r.line_at(r.pos))
        fields: dict[str, Any] = {}
        run: _HostRun | None = None
        for key in r.members():
            if key != "statistics" or r.peek() != "[" or run is not None:
                fields[key] = r.value()
                continue
            run = _HostRun(fields, h_i, options, warn)
            yield RunStart(run.key, run.info)
            yield from self._statistics(r, run, state)
        if run is None:
            name = fields.get("nodename") or f"host {h_i + 1}"
            raise ParseError(f"host {name!r} has no statistics[] array", 1)
        run.update_info(fields)
        yield from run.finish()

    @staticmethod
    def _statistics(r: _Reader, run: _HostRun, state: JobState) -> Iterator[Event]:
        """A host's statistics[]: runs of reports in sysstat's own layout read together (:func:`_fast_reports`),
        any other report (or a run :func:`_disk_frame` finds unusual) decoded on its own, as before."""
        r._expect("[")
        if r.peek() == "]":
            r.pos += 1
            return
        idx = slow = 0
        while True:
            took = 0
            if slow:
                slow -= 1
            else:
                took, slow = yield from _fast_reports(r, run, idx, state)
            idx += took
            if not took:
                run.add(idx, *r.value_text(checked=False))
                idx += 1
                if run.pending >= BATCH_ROWS:
                    state.check()
                    yield from run.flush()
            if r._expect(",]") == "]":
                return

    @staticmethod
    def _statistic(idx: int, st: Any, text: str, rows: list[dict[str, Any]], cpu: list[tuple],
                   stamps: list[tuple[int, Any]], unknown: set[str], canon_seen: set[str]) -> None:
        """One element of statistics[]: its timestamp, avg-cpu and disk entries."""
        if not isinstance(st, dict):
            raise ParseError(f"statistics[{idx}] is not an object", None)
        ts = st.get("timestamp")
        if ts is not None:
            stamp = split_stamp(str(ts))
            if stamp is None:
                raise ParseError(f"unreadable timestamp {ts!r} in statistics[{idx}]",
                                 _line_of(text, text.find(str(ts))))
            stamps.append((idx, stamp))
        where = None  # the caller adds the line of statistics[idx] to an error without one
        if "avg-cpu" in st:
            c = st["avg-cpu"]
            if not isinstance(c, dict):
                raise ParseError(f"statistics[{idx}].avg-cpu is not an object", where)
            cpu.append((idx, *[_num(c.get(k), where) for k in CPU_KEYS]))
        disks = st.get("disk", []) or []
        if not isinstance(disks, list):
            raise ParseError(f"statistics[{idx}].disk is not a list", where)
        for d_i, d in enumerate(disks):
            if not isinstance(d, dict):
                raise ParseError(f"statistics[{idx}].disk[{d_i}] is not an object: {str(d)[:40]!r}", where)
            dev = d.get("disk_device")
            if dev is None:
                raise ParseError(f"a disk entry in statistics[{idx}] has no disk_device", None)
            rec: dict[str, Any] = {"sample_idx": idx, "device": str(dev).strip(),
                                   "is_group": str(dev).startswith(" ")}
            for k, v in d.items():
                m = JSON_COLUMNS.get(k)
                if m is None:
                    if k != "disk_device":
                        unknown.add(k)
                        if isinstance(v, float | int) and not isinstance(v, bool):
                            _num(v, where)  # not imported, but a number no tool prints is still said
                    continue
                if type(v) is float and v - v == 0.0:  # a finite number, as nearly all are (NaN or inf: v - v is NaN)
                    rec[m[0]] = v * m[1]
                    continue
                num = _num(v, where)
                rec[m[0]] = num * m[1] if num is not None else None
            canon_seen.update(rec)  # (the three keys above too: set aside where the columns are chosen)
            rows.append(rec)


def _num(v: Any, line: int | None = None) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ParseError(f"value {str(v)[:40]!r} is not a number", line)
    if isinstance(v, int) and not -MAX_INT < v < MAX_INT:  # (parse_json refuses it, with its line)
        raise ParseError("an integer of more than 18 digits", line)
    try:
        out = float(str(v).replace(",", ".")) if isinstance(v, str) else float(v)
    except ValueError:
        raise ParseError(f"value {v!r} is not a number", line) from None
    if not math.isfinite(out):
        raise ParseError(f"value {v!r} is not a finite number", line)
    return out


def _readable(s: Any) -> bool:
    """Whether a stamp is a real date and time in some day/month order."""
    for order in ("MDY", "DMY"):
        try:
            stamp_datetime(s, order)
            return True
        except ValueError:
            continue
    return False


def _report_times(stamps: list[tuple[int, Any]], stat_line: Callable[[int], int | None], warn: WarnFn,
                  info: RunInfo, given: str | None) -> dict[int, datetime]:
    """The time of each report that has a stamp (statistics[] index -> datetime), the dates read in the order the
    evidence decides (the file's words: its stamps and date; its dates; ``given`` where they read both ways), said in
    ``info.meta``."""
    if not stamps:
        return {}
    raws = [s for _, s in stamps]
    words = Words()
    if info.meta.get("banner_date"):
        words.add_date(str(info.meta["banner_date"]))
    for s in [*raws[:3], *raws[-2:]]:
        words.add_stamp(s.text)
    try:
        dating = date_stamps(raws, None, words, given=given, system=info.os)
    except ValueError:
        bad = next(((i, s) for i, s in stamps if not _readable(s)), stamps[0])
        raise ParseError(f"impossible date or time {bad[1].text!r} in statistics[{bad[0]}]"
                         if not _readable(bad[1]) else "the dates of the reports contradict each other (day/month "
                         "order)", stat_line(bad[0])) from None
    for note in dating.notes:
        warn(note, None)
    if dating.warning:
        warn(dating.warning, None)
    info.meta.update(dating.meta)
    banner = split_stamp(str(info.meta.get("banner_date") or ""))
    if banner is not None and banner.date_parts:
        with contextlib.suppress(ValueError):  # a date the stamps' order does not read: none stated
            info.file_date = stamp_date(banner, dating.decision.order)
    return {i: dt for (i, _), dt in zip(stamps, dating.times)}


MAX_INT = 10**18
_ROW_SCHEMA = frame_schema("iostat_samples", ["sample_idx", "device", "is_group", *METRICS])
BATCH_ROWS = 16_384  # device rows per Rows event (a few MB as dicts while gathered)
MAX_VALUE = 64 * 1024 * 1024  # one report's JSON text past this: no iostat writes that (read so far, then said)
_WS = re.compile(r"[ \t\n\r]*")


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (a key twice: ValueError, and parse_json then says which and
    where): iostat's keys are its columns, and Python's decoder would keep the last of two silently."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key twice")
    return out


_FAST = json.JSONDecoder(object_pairs_hook=_once)
_NUMBER_GOES_ON = re.compile(r"[0-9.eE+-]*")


_JWS = r"[ \t\n\r]*"  # JSON's whitespace (``\s`` would take more)
_JSTR = r'"[^"\\\x00-\x1f]*"'
# one element of statistics[] as sysstat writes it: keys and values, then "disk": [ one disk object a line, the
# lines before the last ending in "}," ] }. What it holds is checked after (json for the head, polars for the disks).
_REPORT = re.compile(
    r"\{" + _JWS + r"(?:" + _JSTR + ":" + _JWS + r"(?:" + _JSTR + r'|\{[^{}\[\]"]*+(?:' + _JSTR + r'[^{}\[\]"]*+)*+\}'
    r"|-?[0-9][0-9.eE+-]*+)" + _JWS + "," + _JWS + r')*+(?P<open>"disk":' + _JWS + r"\[\n)"
    r'(?P<disks>(?:[ \t]*+\{"disk_device": [^\n]*\},\n)*+[ \t]*+\{"disk_device": [^\n]*\}\n)?'
    + _JWS + r"\]" + _JWS + r"\}")
_SEP = re.compile(_JWS + "," + _JWS + r"(?=\{)")
_KEY = re.compile(r'"([^"\\]*)": ')
_BIG = 1e15  # a value this large (no iostat prints one) is left to the per-report path, which refuses the huge ones


def _fast_reports(r: _Reader, run: _HostRun, idx: int,
                  state: JobState) -> Generator[Event, None, tuple[int, int]]:
    """The reports from ``r.pos`` on that the text read so far holds whole in sysstat's layout, their disks read
    by polars in one go (:func:`_disk_frame`). Returns how many were taken (``r.pos`` after the last) and how
    many from here on go the per-report way (a run polars does not read as the per-report path would)."""
    r.peek()
    buf, p, found = r.buf, r.pos, []
    while (m := _REPORT.match(buf, p)) is not None:
        found.append(m)
        sep = _SEP.match(buf, m.end())
        if sep is None:
            break
        p = sep.end()
    if not found:
        return 0, 0
    counts = [m.end("disks") - m.start("disks") and buf.count("\n", m.start("disks"), m.end("disks")) for m in found]
    frame = _disk_frame(buf, found, counts, idx)
    if frame is None:
        return 0, len(found) - 1
    canon, off, seg = set(frame.columns), 0, 0  # rows frame[seg:off] are taken and not yet handed to run
    for k, m in enumerate(found):
        if not run.add_fast(idx + k, buf[m.start(): m.end("open")], r.line_at(m.start())):
            run.add_rows(frame.slice(seg, off - seg), canon)
            if not k:
                r.pos = m.start()
                return 0, 0  # the per-report path reads it (and says what is wrong) next
            r.pos = found[k - 1].end()
            return k, 1  # (after the comma)
        off += counts[k]
        r.pos = found[k + 1].start() if k + 1 < len(found) else m.end()
        if run.pending + off - seg >= BATCH_ROWS:
            run.add_rows(frame.slice(seg, off - seg), canon)
            seg = off
            state.check()
            yield from run.flush()
    run.add_rows(frame.slice(seg, off - seg), canon)
    return len(found), 0


def _disk_frame(buf: str, found: list[re.Match[str]], counts: list[int], idx: int) -> pl.DataFrame | None:
    """The disk lines of reports ``idx``.. read by polars, canonical columns and units; None when anything is
    unusual (the per-report path then reads them, and says any error with its line as before): an escape or a
    character past ASCII, a disk_device that is no string, a key no column has or a key twice (each colon of
    the text must be a value polars read), a null, a string or a boolean for a number, two keys for one column, a key
    only some disks have, a value of 1e15 or more. Polars reads each number as Python's json does, bit for bit
    (tests/parsers/test_iostat_json_fast.py)."""
    n = sum(counts)
    schema = frame_schema("iostat_samples", ["sample_idx", "device", "is_group"])
    if not n:
        return pl.DataFrame(schema=schema)
    blk = "".join(buf[m.start("disks"): m.end("disks")] for m in found)
    if "\\" in blk or not blk.isascii() or blk.count('{"disk_device": "') != n:
        return None
    # the columns: the first disk's keys that have one (any other key of any disk is found by the count below)
    cols = {"disk_device": pl.String, **{k: pl.Float64 for k in _KEY.findall(blk, 0, blk.index("\n"))
                                         if k in JSON_COLUMNS}}
    try:
        df = pl.read_ndjson(blk.replace("},\n", "}\n").encode(), schema=cols)
    except pl.exceptions.PolarsError:  # not JSON polars reads as the schema: the per-report path says why
        return None
    nulls = df.null_count().row(0)
    if df.height != n or blk.count(":") != n * df.width - sum(nulls):  # each key's colon, and no other
        return None
    keys = [k for k, z in zip(df.columns[1:], nulls[1:]) if z < n]
    if any(z for z in nulls[1:] if 0 < z < n) or nulls[0]:
        return None
    canon = [JSON_COLUMNS[k] for k in keys]
    if len({c for c, _ in canon}) != len(canon):
        return None
    if keys and df.select(pl.max_horizontal(pl.col(keys).abs().max())).item() >= _BIG:
        return None
    dev = pl.col("disk_device")
    return df.select(
        pl.Series("sample_idx", np.repeat(np.arange(idx, idx + len(found), dtype=np.int64), counts)),
        dev.str.strip_chars(" ").alias("device"), dev.str.starts_with(" ").alias("is_group"),
        *[(pl.col(k) * f if f != 1.0 else pl.col(k)).alias(c) for k, (c, f) in zip(keys, canon)])


class _Reader:
    """The JSON text of a file read a chunk at a time: brackets, commas and keys of the outer structure are walked
    here, each value is decoded where it stands (:func:`parsers.base.parse_json`), once the text holds all of it.
    ``line`` is the line of ``buf[0]``; text before ``pos`` is dropped as reading goes on."""

    def __init__(self, path: str, chunk: int, state: JobState):
        self.fh = open(path, "rb")  # noqa: SIM115 (closed by close(), from the parser's finally)
        self.fh.seek(0, 2)
        self.total = self.fh.tell() or 1
        self.fh.seek(0)
        self.chunk, self.state = chunk, state
        self.buf, self.pos, self.line = "", 0, 1
        self.counted = (0, 1)  # (position, its line): lines are counted on from the last asked for
        self.eof, self.first, self.read = False, True, 0
        self.encoding = "utf-8"
        self.utf8 = codecs.getincrementaldecoder("utf-8")()

    def close(self) -> None:
        self.fh.close()

    def _more(self) -> bool:
        """Read the next chunk onto the text (dropping what was walked); False at the end of the file."""
        if self.eof:
            return False
        data = self.fh.read(self.chunk)
        self.eof = not data
        self.read += len(data)
        self.state.progress(self.read / self.total, "reading")
        if b"\x00" in data:
            raise ParseError("binary data (NUL byte): not an iostat JSON file",
                             self.line_at(len(self.buf)) + data[: data.index(b"\x00")].count(b"\n"))
        if self.first and data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark
            data = data[3:]
        self.first = False
        text = self._decode(data)
        self.line = self.line_at(self.pos)
        self.buf, self.pos = self.buf[self.pos:] + text, 0
        self.counted = (0, self.line)
        return not self.eof or bool(text)

    def _decode(self, data: bytes) -> str:
        """UTF-8 (a character cut between chunks joined), else Windows-1252 from the first chunk that is not
        (:func:`parsers.base.decode`)."""
        if self.encoding == "utf-8":
            try:
                return self.utf8.decode(data, final=self.eof)
            except UnicodeDecodeError:
                data = self.utf8.getstate()[0] + data
        text, self.encoding = decode(data, "cp1252")
        return text

    def line_at(self, pos: int) -> int:
        at, line = self.counted
        if pos >= at:
            line += self.buf.count("\n", at, pos)
        else:
            line = self.line + self.buf.count("\n", 0, pos)
        self.counted = (pos, line)
        return line

    def peek(self) -> str:
        """The next character after blanks ('' at the end)."""
        while True:
            m = _WS.match(self.buf, self.pos)
            assert m is not None  # (it matches the empty string)
            self.pos = m.end()
            if self.pos < len(self.buf) or not self._more():
                return self.buf[self.pos: self.pos + 1]

    def _expect(self, chars: str) -> str:
        c = self.peek()
        if not c or c not in chars:
            found = "the end of the file" if not c else repr(c)
            raise ParseError(f"invalid JSON (expected {' or '.join(map(repr, chars))}, found {found}); the file "
                             "may be cut off", self.line_at(self.pos))
        self.pos += 1
        return c

    def value(self) -> Any:
        return self.value_text()[0]

    def value_text(self, checked: bool = True) -> tuple[Any, str, int]:
        """The next value, its text and the line it starts on. Not ``checked``: decoded by the C decoder alone,
        which takes numbers parse_json refuses (NaN, Infinity, 1e309, integers past 18 digits): the caller checks
        each value and has parse_json say what is wrong (a report's values: :meth:`_HostRun.add`)."""
        self.peek()
        while True:
            start = self.pos
            fast, v, end = False, None, start
            if not checked:
                try:
                    v, end = _FAST.raw_decode(self.buf, start)
                    fast = True
                except (ValueError, RecursionError):  # cut off or wrong: parse_json below says which, and where
                    pass
            try:
                if not fast:
                    v, end = parse_json(self.buf, start, unique_keys=True)
            except ParseError as e:
                line = self.line + e.line - 1 if e.line else None  # (e's line counts from the text's start)
                if e.message.startswith("invalid JSON") and len(self.buf) - start < MAX_VALUE and self._more():
                    continue  # cut by the end of the text read so far
                raise ParseError(e.message, line) from None
            if _NUMBER_GOES_ON.fullmatch(self.buf, end) and self._more():
                continue  # the text read so far ends in what may be more of a number ('12.' of '12.5')
            self.pos = end
            return v, self.buf[start:end], self.line_at(start)

    def members(self) -> Iterator[str]:
        """The keys of the object that begins here; the caller reads each one's value."""
        self._expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != '"':
                self._expect('"')
            key = self.value()
            self._expect(":")
            yield key
            if self._expect(",}") == "}":
                return

    def items(self) -> Iterator[int]:
        """The indexes of the array that begins here; the caller reads each value."""
        self._expect("[")
        if self.peek() == "]":
            self.pos += 1
            return
        i = 0
        while True:
            yield i
            i += 1
            if self._expect(",]") == "]":
                return


class _HostRun:
    """One host's reports as they stream: rows gathered and sent in batches, with the times known so far."""

    def __init__(self, fields: dict[str, Any], h_i: int, options: ImportOptions, warn: WarnFn):
        self.key = fields.get("nodename") or f"host {h_i + 1}"
        self.info = RunInfo(kind="iostat")
        self.update_info(fields)
        self.options, self.warn = options, warn
        self.rows: list[dict[str, Any]] = []
        self.parts: list[pl.DataFrame] = []  # rows before ``rows``, as frames (:meth:`add_fast`)
        self.part_rows = 0
        self.cpu: list[tuple] = []
        self.stamps: list[tuple[int, RawStamp]] = []
        self.stamp_lines: dict[int, int] = {}
        self.unknown: set[str] = set()
        self.canon_seen: set[str] = set()
        self.devices: set[str] = set()
        self.n = 0
        self.resolver = StampResolver(None)
        self.sent_ts: dict[int, datetime | None] = {}
        self.sent_t: dict[int, float | None] = {}
        self.t0: datetime | None = None
        mode = options.first_report
        self.since_boot = mode in ("since-boot", "auto")  # the first report, if any

    def update_info(self, fields: dict[str, Any]) -> None:
        self.info.host = fields.get("nodename")
        self.info.os = " ".join(str(fields[k]) for k in ("sysname", "release") if fields.get(k)) or None
        self.info.meta.update({"arch": fields.get("machine"), "cpus": fields.get("number-of-cpus"),
                               "banner_date": fields.get("date")})

    def add(self, idx: int, st: Any, text: str, line: int) -> None:
        """One element of statistics[] (its text starts on ``line``)."""
        self.n = idx + 1
        n_stamps = len(self.stamps)
        first_row = len(self.rows)
        ts_at = text.find('"timestamp"')
        if ts_at >= 0:
            self.stamp_lines[idx] = line + text.count("\n", 0, ts_at)
        try:
            IostatJsonFormat._statistic(idx, st, text, self.rows, self.cpu, self.stamps, self.unknown, self.canon_seen)
        except ParseError as e:
            try:  # a number no tool prints was decoded (see _Reader.value_text): said as parse_json says it
                parse_json(text, unique_keys=True)
            except ParseError as strict:
                raise ParseError(strict.message, line + strict.line - 1 if strict.line else None) from None
            if e.line is None or e.line == 1:
                raise ParseError(e.message, self.stamp_lines.get(idx) or e.line) from None
            raise ParseError(e.message, line + e.line - 1) from None
        for rec in self.rows[first_row:]:
            self.devices.add(rec["device"])
        self._time(idx, n_stamps)

    @property
    def pending(self) -> int:
        return self.part_rows + len(self.rows)

    def add_fast(self, idx: int, head: str, line: int) -> bool:
        """One element of statistics[] whose disks polars read (:func:`_fast_reports`, which hands them over with
        :meth:`add_rows`): ``head`` is its text up to the disk list, on ``line``. False, and nothing kept, when
        the head is not what :meth:`add` would take: the per-report path then says what is wrong."""
        cpu: list[tuple] = []
        stamps: list[tuple[int, Any]] = []
        try:
            st = _FAST.decode(head + "]}")
            IostatJsonFormat._statistic(idx, st, head, [], cpu, stamps, set(), set())
        except (ValueError, ParseError):
            return False
        self.n = idx + 1
        ts_at = head.find('"timestamp"')
        if ts_at >= 0:
            self.stamp_lines[idx] = line + head.count("\n", 0, ts_at)
        self.cpu += cpu
        n_stamps = len(self.stamps)
        self.stamps += stamps
        self._time(idx, n_stamps)
        return True

    def add_rows(self, rows: pl.DataFrame, canon: set[str]) -> None:
        """The disks of reports taken by :meth:`add_fast` (``canon``: their columns, all in every row)."""
        if not rows.height:
            return
        if self.rows:
            self.part_rows += len(self.rows)
            self.parts.append(self._dict_frame())
        self.parts.append(rows)
        self.part_rows += rows.height
        self.canon_seen |= canon
        self.devices.update(rows.get_column("device").unique().to_list())

    def _time(self, idx: int, n_stamps: int) -> None:
        """Report ``idx``'s time as known so far (``n_stamps``: the stamps before it)."""
        dt: datetime | None = None
        if len(self.stamps) > n_stamps:
            try:
                dt = self.resolver.add(self.stamps[-1][1])
            except ValueError:  # said, with its line, when the whole file's times are read
                dt = None
            if dt is not None and self.t0 is None:
                self.t0 = dt
        self.sent_ts[idx] = dt
        if dt is not None and self.t0 is not None:
            self.sent_t[idx] = (dt - self.t0).total_seconds()
        elif not self.stamps and self.options.interval_s:
            self.sent_t[idx] = idx * self.options.interval_s
        else:
            self.sent_t[idx] = None

    def _dict_frame(self) -> pl.DataFrame:
        frame = pl.DataFrame(self.rows, schema=_ROW_SCHEMA)
        self.rows = []
        return frame

    def flush(self) -> Iterator[Event]:
        if not self.rows and not self.parts:
            return
        parts = [p.select(pl.col(c) if c in p.columns else pl.lit(None, t).alias(c) for c, t in _ROW_SCHEMA.items())
                 for p in self.parts]
        if self.rows:
            parts.append(self._dict_frame())
        self.parts, self.part_rows = [], 0
        frame = pl.concat(parts, rechunk=True) if len(parts) > 1 else parts[0]
        frame = frame.select([c for c in _ROW_SCHEMA
                              if c in ("sample_idx", "device", "is_group") or c in self.canon_seen])
        idx = frame.get_column("sample_idx")
        lo, hi = int(idx[0]), int(idx[-1])  # (rows are in report order)
        times = pl.DataFrame({  # each report's time, joined to its rows
            "sample_idx": range(lo, hi + 1),
            "t_s": [self.sent_t.get(i) for i in range(lo, hi + 1)],
            "ts": [self.sent_ts.get(i) for i in range(lo, hi + 1)],
        }, schema={"sample_idx": pl.Int64, "t_s": pl.Float64, "ts": pl.Datetime("us")})
        frame = frame.join(times, on="sample_idx", how="left", maintain_order="left").with_columns(
            (pl.col("sample_idx") == 0).and_(pl.lit(self.since_boot)).alias("since_boot"))
        yield Rows(self.key, "iostat_samples", frame)

    def finish(self) -> Iterator[Event]:
        yield from self.flush()
        info, warn, n = self.info, self.warn, self.n
        if self.unknown:
            warn("keys not recognised and not imported: " + ", ".join(sorted(self.unknown)), None)
        ts_by = _report_times(self.stamps, self.stamp_lines.get, warn, info, self.options.date_order)
        interval = None
        t_by: dict[int, float] = {}
        if ts_by:
            keys = sorted(ts_by)
            t0 = ts_by[keys[0]]
            t_by = {i: (ts_by[i] - t0).total_seconds() for i in keys}
            diffs = sorted((ts_by[b] - ts_by[a]).total_seconds() for a, b in zip(keys, keys[1:]))
            if diffs:
                interval = diffs[len(diffs) // 2]
                info.interval_source = "timestamps"
            info.started_at = t0
        elif self.options.interval_s:
            interval = self.options.interval_s
            info.interval_source = "user"
            t_by = {i: i * interval for i in range(n)}
        elif n > 1:
            warn("the file has no timestamps (iostat ran without -t): set the interval with {fix:set_interval}",
                 None)
            info.interval_source = "unknown"
        info.interval_s = interval
        mode = self.options.first_report
        info.meta["first_report"] = {
            "since-boot": "since-boot (set by the user)",
            "interval": "interval (set by the user)",
        }.get(mode, "since-boot (assumed, iostat's default; the file cannot prove it)")
        if mode == "auto" and n > 0:
            warn("the first report was taken to cover the time since boot (iostat's default) and is left out "
                 "of analyses; if iostat ran with -y, say so with {fix:first_report_interval}", None)
        info.tool_version = layout_family(self.canon_seen - {"sample_idx", "device", "is_group"}, [])
        if self.devices and any(self.sent_ts[i] != ts_by.get(i) or self.sent_t[i] != t_by.get(i) for i in range(n)):
            # the whole file read the dates otherwise than the stream did: every report's time again
            yield SampleTimes(self.key, "iostat_samples", pl.DataFrame({
                "sample_idx": list(range(n)),
                "ts": [ts_by.get(i) for i in range(n)],
                "t_s": [t_by.get(i) for i in range(n)],
                "since_boot": [i == 0 and self.since_boot for i in range(n)],
            }, schema=frame_schema("iostat_samples", ["sample_idx", "ts", "t_s", "since_boot"])))
        if self.cpu:
            cdf = pl.DataFrame(self.cpu, schema=["sample_idx", *CPU_KEYS], orient="row").with_columns(
                pl.col("sample_idx").cast(pl.Int64))
            cdf = cdf.with_columns(
                pl.col("sample_idx").replace_strict(t_by, default=None, return_dtype=pl.Float64).alias("t_s"),
                pl.col("sample_idx").replace_strict(ts_by, default=None, return_dtype=pl.Datetime("us")).alias("ts"),
            )
            yield Rows(self.key, "cpu_samples", cdf)
        yield RunEnd(self.key, {
            "n_samples": n, "n_devices": len(self.devices),
            "ended_at": ts_by[max(ts_by)] if ts_by else None,
        }, info=info)


FORMAT = register(IostatJsonFormat())
