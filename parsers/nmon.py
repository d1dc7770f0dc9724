"""nmon and AIX topas_nmon spreadsheet files (``nmon -f`` / ``-F``, ``topas_nmon -f``): the disk sections per
snapshot into ``iostat_samples``, ``CPU_ALL`` into ``cpu_samples``.

Layout (comma separated; one line each, in any order once the header is written -- nmon's note says the file
may be sorted)::

    AAA,progname,nmon                         header facts: host, date, interval, version, OS ...
    BBBP,001,/proc/cpuinfo,"..."              configuration dumps (BBB*): not read
    DISKREAD,Disk Read KB/s vm,sda,sda1,dm-0  a section's header line: its description, then one name per column
    ZZZZ,T0001,22:24:03,23-NOV-2026           snapshot T0001 was taken at this wall-clock time (the host's)
    DISKREAD,T0001,1136.4,447.6,0.0           the section's values of snapshot T0001, in its header's order

* The device names come from each section's own header line, by name: DISKREAD's third value belongs to the
  third name of the DISKREAD header, whatever the order of DISKWRITE's. A section too wide for one line is
  split (``-l`` disks per line, 150 by default): DISKREAD, DISKREAD1, DISKREAD2 ... each with its own header;
  the parts are one device set.
* What each section holds, in StormScope's units: DISKREAD / DISKWRITE (KB/s, KB = 1024 bytes) -> ``rkb_s`` /
  ``wkb_s``; DISKRIO / DISKWIO (AIX) and DISKREADS / DISKWRITES (Linux nmon ``-D``: reads, writes per second)
  -> ``r_s`` / ``w_s``; DISKXFER (transfers per second) -> ``tps`` only when the file has no read/write split
  (the series uses r/s + w/s, never both from one figure); DISKBUSY (%) -> ``util_pct``; DISKBSIZE (KB per
  transfer) -> ``areq_kb``. Other disk sections (AIX service and wait-queue times, averages, DISKRXFER, ESS
  paths, Linux disk groups DG*) are not imported: ``runs.meta.sections_not_imported`` names them.
* ``CPU_ALL``'s User%, Sys%, Wait%, Idle% and Steal% (where printed) -> ``cpu_samples``.
* Device names are kept as printed (``sda``, ``sda1``, ``dm-0``, ``hdisk7``); the analyses' whole-disk rules
  read the names, so ``layer`` stays NULL.
* Snapshot ``Tnnnn`` is ``sample_idx`` nnnn - 1. Times are the host's wall clock as printed (nmon states no
  time zone); ``t_s`` counts from the first snapshot. The first snapshot never covers the time since boot: it
  covers the time since nmon started (``runs.meta.first_snapshot_covers_s``; a second or two on Linux, whose
  nmon sleeps one second before it, an interval on AIX).

nmon on Linux writes its header with the disks that have done I/O when it starts; a disk that becomes active
later (or goes away) changes the number of values in the rows that follow, while the header keeps the old
names, so from that snapshot on the values cannot be matched to disks. Those snapshots keep their CPU figures,
their disk figures are left out, and a warning names the line.

Bad input stops the import with a ParseError naming the line (nothing of the file is stored): a file without
nmon's AAA header lines (an excerpt), values before the header line that names their columns, a value that is
not a number, a snapshot time that is not one, two nmon files joined into one. Only the file's last snapshot
may be cut off (copied while nmon was writing it): it is left out with a warning.

The file streams: lines are read one at a time, and snapshots go out in chunks as soon as a later snapshot
has started.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import numpy as np
import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import INT, LIST, NUM, OBJ, TEXT, Counts, MetaKey, Semantics, Span, common

KIND = register_kind("nmon", "nmon", {TIME_SERIES, DEVICE_RATES})

# disk section (without its split number) -> the iostat_samples column it fills
DISK_SECTIONS: dict[str, str] = {
    "DISKREAD": "rkb_s", "DISKWRITE": "wkb_s",
    "DISKRIO": "r_s", "DISKWIO": "w_s",  # AIX: reads, writes per second
    "DISKREADS": "r_s", "DISKWRITES": "w_s",  # Linux nmon -D: reads, writes per second
    "DISKXFER": "tps", "DISKBUSY": "util_pct", "DISKBSIZE": "areq_kb",
}
METRIC_ORDER = ["r_s", "w_s", "tps", "rkb_s", "wkb_s", "areq_kb", "util_pct"]
_COL = {c: i for i, c in enumerate(METRIC_ORDER)}
CPU_NAMES = {"User%": "user", "Sys%": "system", "Wait%": "iowait", "Idle%": "idle", "Steal%": "steal"}
CPU_COLUMNS = ["user", "nice", "system", "iowait", "steal", "idle"]
MONTHS = {m: i for i, m in enumerate(("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV",
                                     "DEC"), 1)}

_SECTION = re.compile(r"^([A-Z][A-Z_]*?)(\d*)$")
_SNAP = re.compile(r"^T(\d+)$")
_ZZZZ_HEAD = re.compile(rb"^ZZZZ,T\d+,\d{1,2}:\d{2}:\d{2},\d{1,2}-[A-Za-z]{3}-\d{4}", re.M)
_TIME = re.compile(r"^(\d{1,2}):(\d{2}):(\d{2})$")
_DATE = re.compile(r"^(\d{1,2})-([A-Za-z]{3})-(\d{4})$")
CHUNK_ROWS = 100_000  # iostat_samples rows per Rows event
MAX_LINE = 16 * 1024 * 1024


# what nmon's data means (parsers.semantics)
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.SINCE_PREVIOUS, counts=Counts.RATES, names=LINUX_NAMES,
    wording={"rkb_s": "DISKREAD (KB/s)", "wkb_s": "DISKWRITE (KB/s)", "r_s": "DISKRIO, DISKREADS",
             "w_s": "DISKWIO, DISKWRITES", "tps": "DISKXFER", "util_pct": "DISKBUSY", "areq_kb": "DISKBSIZE",
             "user": "CPU_ALL User%", "system": "CPU_ALL Sys%", "iowait": "CPU_ALL Wait%", "idle": "CPU_ALL Idle%",
             "steal": "CPU_ALL Steal%"},
    meta=(*common("sample_span", "cpus"),
          MetaKey("command", TEXT, "the nmon command line (AAA,command)"),
          MetaKey("runname", TEXT, "the run name nmon states (AAA,runname)"),
          MetaKey("build", TEXT, "nmon's build (AAA,build)"),
          MetaKey("interval_stated_s", INT, "the interval nmon states (AAA,interval)"),
          MetaKey("snapshots_stated", INT, "the snapshots nmon was asked for (AAA,snapshots)"),
          MetaKey("disks_per_line", INT, "disks per section line before it is split (AAA,disks_per_line)"),
          MetaKey("disk_sections", OBJ, "the disk sections read and what each holds"),
          MetaKey("disk_section_parts", INT, "parts of a disk section too wide for one line"),
          MetaKey("sections_not_imported", LIST, "the disk sections not read"),
          MetaKey("first_snapshot_covers_s", NUM, "the time since nmon started that the first snapshot covers")))


class NmonFormat:
    id = "nmon-csv"
    kind = KIND.id
    label = "nmon (CSV)"
    priority = 330
    tables = ("iostat_samples", "cpu_samples")
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        if b"\x00" in head:
            return 0.0
        if head.startswith(b"AAA,progname,") or (
                re.search(rb"^AAA,(version|host|interval|snapshots),", head, re.M)
                and re.search(rb"^(ZZZZ|BBBP|CPU_ALL|DISKBUSY|AAA,progname),", head, re.M)):
            return 0.97
        if _ZZZZ_HEAD.search(head):
            return 0.7  # snapshots without nmon's header lines: an excerpt, refused with a message naming the line
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Parser(path, state, warn).events()


@dataclass
class _Snapshot:
    number: int  # the nnnn of Tnnnn
    ts: datetime | None = None
    line: int = 0  # the line of its ZZZZ
    disk: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)  # (section, part) -> values (NaN: none)
    cpu: dict[str, float | None] | None = None
    last_line: int = 0  # the last line that held one of its values


@dataclass
class _Header:
    section: str
    part: int
    names: list[str]
    line: int
    idx: np.ndarray  # each name's place in the parser's list of devices


class _Parser:
    def __init__(self, path: str, state: JobState, warn: WarnFn):
        self.path = path
        self.state = state
        self.warn = warn
        self.aaa: dict[str, list[str]] = {}
        self.headers: dict[tuple[str, int], _Header] = {}
        self.with_data: set[tuple[str, int]] = set()  # the disk sections some snapshot has values of
        self.cpu_header: list[str] | None = None
        self.not_imported: dict[str, str] = {}  # disk-like section -> its header's description
        self.snaps: dict[int, _Snapshot] = {}
        self.flushed_upto = 0  # snapshots numbered up to this one are sent
        self.order: list[int] = []  # snapshot numbers in the order their ZZZZ lines came
        self.t0: datetime | None = None
        self.first_number: int | None = None
        self.devices: list[str] = []  # every device, in the order the headers name them
        self.device_seen: dict[str, int] = {}  # device -> its place in ``devices``
        self.with_rows: set[int] = set()  # the devices some stored row has
        self.pieces: list[tuple[int, datetime, float, np.ndarray, np.ndarray]] = []  # rows waiting to be sent
        self.piece_rows = 0  # their count of rows
        self.changed: tuple[int, int, str] | None = None  # (snapshot, line, section) where the disk list changed
        self.dropped_disk: list[int] = []  # snapshots whose disk figures were left out
        self.incomplete: list[tuple[int, list[str]]] = []  # snapshots lacking a section's row
        self.cpu_rows: list[tuple] = []
        self.ts_all: list[datetime] = []
        self.n_rows = 0
        self.encoding = "utf-8"
        self.started = False
        self.data_started = False
        self.key = "nmon"

    # ---- reading ---------------------------------------------------------------------------------------
    def _lines(self) -> Iterator[tuple[int, str, bool]]:
        """(line number, text without its line break, whether a line break ended it)."""
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            total = fh.tell() or 1
            fh.seek(0)
            for no, raw in enumerate(fh, 1):
                if no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if b"\x00" in raw:
                    raise ParseError("binary data (NUL byte): not an nmon file", no)
                if len(raw) > MAX_LINE:
                    raise ParseError(f"a line of {len(raw):,} characters: not an nmon file", no)
                ended = raw.endswith(b"\n")
                raw = raw.rstrip(b"\r\n")
                try:
                    text = raw.decode(self.encoding)
                except UnicodeDecodeError:
                    self.encoding = "cp1252"  # a name written on a Windows-1252 system: read as such, and said
                    text = raw.decode("cp1252", errors="replace")
                if no % 20000 == 0:
                    self.state.progress(fh.tell() / total, "reading")
                yield no, text, ended

    def events(self) -> Iterator[Event]:
        for no, text, ended in self._lines():
            if ended:
                yield from self._line(no, text)
            else:
                self._cut_end(no, text)  # only the last line can lack its line break
        if not self.aaa:
            raise ParseError("the file is empty: no nmon header lines (AAA,progname …)", 1)
        if not self.snaps and not self.order:
            raise ParseError("no snapshot in the file (no ZZZZ line): nmon stopped before its first snapshot", None)
        if not self.headers:
            raise ParseError("no disk section (DISKREAD, DISKWRITE, DISKXFER …): the file has no disk figures "
                             "(nmon ran with its disk statistics switched off?)", None)
        yield from self._flush(final=True)
        yield from self._finish()

    def _line(self, no: int, text: str) -> Iterator[Event]:
        if not text.strip():
            return
        head, _, rest = text.partition(",")
        if head == "AAA":
            self._aaa(no, rest)
            return
        if head.startswith("BBB") or not rest:
            return
        self._require_header(no, text)
        fields = rest.split(",")
        snap = _SNAP.match(fields[0])
        if head == "ZZZZ":
            yield from self._zzzz(no, fields)
            return
        m = _SECTION.match(head)
        if m is None:
            return
        section, part = m.group(1), int(m.group(2) or 0)
        if section not in DISK_SECTIONS and head != "CPU_ALL":
            if section.startswith(("DISK", "DG")) and snap is None:
                self.not_imported.setdefault(section, fields[0])
            return
        if snap is None:
            self._header(no, head, section, part, fields)
        elif head == "CPU_ALL":
            self._cpu(no, int(snap.group(1)), fields[1:])
        else:
            self._disk(no, int(snap.group(1)), section, part, fields[1:])

    def _require_header(self, no: int, text: str) -> None:
        if not self.aaa:
            first = text if len(text) <= 40 else text[:40] + "…"
            raise ParseError(f"the file starts with {first!r}, not with nmon's header lines (AAA,progname …): an "
                             "excerpt of an nmon file cannot be read (the names of its disks are in the lines it "
                             "lacks); import the whole .nmon file", no)

    def _aaa(self, no: int, rest: str) -> None:
        key, _, value = rest.partition(",")
        if key == "progname" and self.data_started:
            raise ParseError("a second nmon header (AAA,progname) after the snapshots: two nmon files were joined "
                             "into one; import each file on its own", no)
        self.aaa.setdefault(key, value.split(","))

    def _header(self, no: int, head: str, section: str, part: int, fields: list[str]) -> None:
        names = [n.strip() for n in fields[1:]]
        if head == "CPU_ALL":
            if self.cpu_header is None:
                self.cpu_header = names
            return
        if (section, part) in self.headers:
            return  # nmon prints each header once; a repeat (a sorted file of two runs?) changes nothing
        while names and not names[-1]:
            names.pop()
        if not names or any(not n for n in names):
            raise ParseError(f"the {head} header line names no disk or has an empty name", no)
        seen: set[str] = set()
        for n in names:
            if n in seen:  # its two columns would add up to one disk with twice the I/O, or one would be lost
                raise ParseError(f"the {head} header line names disk {n!r} twice: its columns cannot be told apart "
                                 "(the file was edited or damaged)", no)
            seen.add(n)
        for n in names:
            if n not in self.device_seen:
                self.device_seen[n] = len(self.devices)
                self.devices.append(n)
        self.headers[(section, part)] = _Header(section, part, names, no,
                                                np.array([self.device_seen[n] for n in names], dtype=np.int64))

    def _zzzz(self, no: int, fields: list[str]) -> Iterator[Event]:
        snap = _SNAP.match(fields[0]) if fields else None
        if snap is None or len(fields) < 3:
            raise ParseError(f"a snapshot line must read ZZZZ,Tnnnn,HH:MM:SS,DD-MON-YYYY, not "
                             f"{'ZZZZ,' + ','.join(fields)[:50]!r}", no)
        number = int(snap.group(1))
        ts = _stamp(fields[1].strip(), fields[2].strip(), no)
        s = self._snap(number, no)
        if s.ts is not None:
            raise ParseError(f"snapshot T{number:04d} is stamped twice (line {s.line} and here): two nmon files "
                             "were joined into one; import each file on its own", no)
        s.ts, s.line = ts, no
        self.data_started = True
        self.order.append(number)
        # In nmon's own order a snapshot's ZZZZ line comes before its values, and a snapshot is complete once the
        # next one starts: the earlier ones go out in chunks. (A sorted file has its ZZZZ lines after all the
        # values: it goes out at the end.)
        waiting = len(self.snaps) - 1
        if not s.disk and s.cpu is None and waiting > 0 and waiting * max(len(self.devices), 1) >= CHUNK_ROWS:
            yield from self._flush(final=False)

    def _snap(self, number: int, no: int) -> _Snapshot:
        if number <= self.flushed_upto:
            raise ParseError(f"values of snapshot T{number:04d} after later snapshots were read: the lines are out "
                             "of order (sort the file with the UNIX sort command, as nmon's note says)", no)
        s = self.snaps.get(number)
        if s is None:
            s = self.snaps[number] = _Snapshot(number)
        return s

    def _cpu(self, no: int, number: int, values: list[str]) -> None:
        if self.cpu_header is None:
            raise ParseError("CPU_ALL values come before the CPU_ALL header line that names them", no)
        s = self._snap(number, no)
        rec: dict[str, float | None] = {}
        for name, v in zip(self.cpu_header, values):
            col = CPU_NAMES.get(name)
            if col is not None:
                rec[col] = _num(v, no, "CPU_ALL", name)
        s.cpu = rec
        s.last_line = no
        self.data_started = True

    def _disk(self, no: int, number: int, section: str, part: int, values: list[str]) -> None:
        name = f"{section}{part or ''}"
        h = self.headers.get((section, part))
        if h is None:
            raise ParseError(f"{name} values come before the {name} header line that names their disks", no)
        s = self._snap(number, no)
        self.data_started = True
        self.with_data.add((section, part))
        s.last_line = no
        if len(values) and not values[-1].strip() and len(values) == len(h.names) + 1:
            values = values[:-1]  # a trailing comma
        if len(values) != len(h.names) and (self.changed is None or number < self.changed[0]):
            self.changed = (number, no, f"{name}: {len(values)} values where its header (line {h.line}) names "
                                        f"{len(h.names)} disks")
        try:
            arr = np.array(list(map(float, values)), dtype=np.float64)  # float() reads through AIX's spaces
        except ValueError:
            arr = np.array([_num(v, no, name, h.names[i] if i < len(h.names) else f"value {i + 1}")
                            for i, v in enumerate(values)], dtype=np.float64)  # None (a blank) becomes NaN
        arr[~np.isfinite(arr)] = np.nan  # nmon prints nan when it divides by zero: a figure it does not have
        s.disk[(section, part)] = arr

    def _cut_end(self, no: int, text: str) -> None:
        """The file does not end with a line break: nmon was still writing it. The line is not read (a value
        may be cut short) and its snapshot, whose later sections are missing, is left out."""
        if not text.strip():
            return
        m = _SNAP.match(text.partition(",")[2].split(",")[0])
        self._require_header(no, text)
        if m is None:
            self.warn("the file's last line is cut short: it was left out", no)
            return
        number = int(m.group(1))
        self.snaps.pop(number, None)
        if number in self.order:
            self.order.remove(number)
        self.warn(f"the file ends in the middle of snapshot T{number:04d} (its last line is cut short): that "
                  "snapshot was left out", no)

    # ---- sending ---------------------------------------------------------------------------------------
    def _flush(self, final: bool) -> Iterator[Event]:
        ready = sorted(n for n, s in self.snaps.items() if s.ts is not None)
        if not final:
            ready = ready[:-1]  # the latest snapshot may still be written
        elif len(ready) != len(self.snaps):
            lost = sorted(set(self.snaps) - set(ready))
            self.warn(f"{len(lost)} snapshot(s) ({_names(lost)}) have values but no ZZZZ line with their time: "
                      "left out", None)
        if final and ready:
            last = self.snaps[ready[-1]]
            lacks = sorted(f"{sec}{part or ''}" for sec, part in self.with_data - set(last.disk))
            if lacks and len(ready) > 1:
                del self.snaps[ready.pop()]
                why = (f"it lacks the lines of {', '.join(lacks[:4])}{' …' if len(lacks) > 4 else ''}" if last.disk
                       else "nmon stopped after writing its time, before its disk figures")
                self.warn(f"the file ends in the middle of snapshot T{last.number:04d} ({why}): that snapshot was "
                          "left out", last.last_line or last.line)
        if not ready:
            return
        if not self.started:
            yield RunStart(self.key, self._info())
            self.started = True
        if self.t0 is None:
            first = self.snaps[ready[0]]
            self.t0, self.first_number = first.ts, first.number
        for n in ready:
            s = self.snaps.pop(n)
            assert s.ts is not None
            assert self.t0 is not None
            self.ts_all.append(s.ts)
            idx = n - 1
            t_s = (s.ts - self.t0).total_seconds()
            if s.cpu is not None:
                self.cpu_rows.append((idx, s.ts, t_s, *[s.cpu.get(c) for c in CPU_COLUMNS]))
            if self.changed is not None and n >= self.changed[0]:
                if s.disk:
                    self.dropped_disk.append(n)
                continue
            self._rows(s, idx, t_s)
            if self.piece_rows >= CHUNK_ROWS:
                yield from self._send()
        self.flushed_upto = ready[-1]
        yield from self._send()

    def _rows(self, s: _Snapshot, idx: int, t_s: float) -> None:
        """One snapshot's rows: one per device some section of it names (the header's count of values holds:
        a snapshot where it does not is never stored)."""
        if not s.disk:
            return
        missing = sorted(f"{sec}{part or ''}" for (sec, part) in self.with_data if (sec, part) not in s.disk)
        if missing:
            self.incomplete.append((s.number, missing))
        values = np.full((len(self.devices), len(METRIC_ORDER)), np.nan)
        present = np.zeros(len(self.devices), dtype=bool)
        for (section, part), arr in s.disk.items():
            h = self.headers[(section, part)]
            values[h.idx, _COL[DISK_SECTIONS[section]]] = arr
            present[h.idx] = True
        devices = np.flatnonzero(present)
        self.with_rows.update(devices.tolist())
        assert s.ts is not None
        self.pieces.append((idx, s.ts, t_s, devices, values[devices]))
        self.piece_rows += len(devices)

    def _split(self) -> bool:
        """The file has reads and writes per second: tps (DISKXFER) is then left out."""
        have = {DISK_SECTIONS[sec] for sec, _ in self.headers}
        return {"r_s", "w_s"} <= have

    def _send(self) -> Iterator[Event]:
        if not self.pieces:
            return
        have = {DISK_SECTIONS[sec] for sec, _ in self.headers}
        if self._split():
            have.discard("tps")
        cols = [c for c in METRIC_ORDER if c in have]
        counts = [len(p[3]) for p in self.pieces]
        values = np.concatenate([p[4] for p in self.pieces])
        names = np.array(self.devices, dtype=object)[np.concatenate([p[3] for p in self.pieces])]
        schema = frame_schema("iostat_samples", ["sample_idx", "ts", "t_s", "device", *cols])
        data: dict[str, Any] = {
            "sample_idx": np.repeat([p[0] for p in self.pieces], counts),
            "ts": [p[1] for p, k in zip(self.pieces, counts) for _ in range(k)],
            "t_s": np.repeat([p[2] for p in self.pieces], counts),
            "device": names.tolist(),
            **{c: values[:, _COL[c]] for c in cols},
        }
        self.pieces = []
        self.piece_rows = 0
        frame = pl.DataFrame(data, schema=schema).with_columns(
            *[pl.col(c).fill_nan(None) for c in cols],
            pl.lit(False).alias("since_boot"), pl.lit(False).alias("is_group"))
        self.n_rows += frame.height
        yield Rows(self.key, "iostat_samples", frame)

    def _finish(self) -> Iterator[Event]:
        if not self.started:
            yield RunStart(self.key, self._info())
        if self.changed is not None and self.dropped_disk:
            number, line, what = self.changed
            self.warn(f"from snapshot T{number:04d} on, nmon's list of disks changed ({what}): nmon adds a disk to "
                      "its rows when the disk first does I/O (and drops one that goes away) but never rewrites the "
                      "header, so these values cannot be matched to disk names. The disk figures of "
                      f"{len(self.dropped_disk)} snapshot(s) ({_names(self.dropped_disk)}) were left out; their CPU "
                      "figures are kept. Start nmon once every disk has done some I/O to avoid this", line)
        if self.incomplete:
            shown = "; ".join(f"T{n:04d}: {', '.join(m)}" for n, m in self.incomplete[:5])
            more = f" and {len(self.incomplete) - 5} more" if len(self.incomplete) > 5 else ""
            self.warn(f"{len(self.incomplete)} snapshot(s) lack a disk section's line ({shown}{more}): those "
                      "figures are left empty", None)
        if self.cpu_rows:
            schema = frame_schema("cpu_samples", ["sample_idx", "ts", "t_s", *CPU_COLUMNS])
            yield Rows(self.key, "cpu_samples", pl.DataFrame(self.cpu_rows, schema=schema, orient="row"))
        info = self._info()
        diffs = sorted((b - a).total_seconds() for a, b in zip(self.ts_all, self.ts_all[1:]))
        if diffs:
            info.interval_s = diffs[len(diffs) // 2]
            info.interval_source = "timestamps"
        info.started_at = self.ts_all[0] if self.ts_all else None
        start = self._start_time()
        if start is not None and info.started_at is not None and (info.started_at - start).total_seconds() >= 0:
            # nmon's first snapshot covers the time since nmon started: a second or two on Linux (nmon sleeps one
            # second before it), an interval on AIX
            info.meta["first_snapshot_covers_s"] = (info.started_at - start).total_seconds()
        if self.n_rows == 0:
            raise ParseError("no disk figures left to import: " + (
                "nmon's list of disks changed before the first snapshot that has values" if self.changed
                else "no snapshot has a disk section's values"), self.changed[1] if self.changed else None)
        yield RunEnd(self.key, {"n_samples": len(self.ts_all), "n_devices": len(self.with_rows),
                                "ended_at": self.ts_all[-1] if self.ts_all else None}, info=info)

    def _start_time(self) -> datetime | None:
        """When nmon started: AAA,time (HH:MM.SS on Linux, HH:MM:SS on AIX) on AAA,date."""
        t, d = ",".join(self.aaa.get("time", [])).strip(), ",".join(self.aaa.get("date", [])).strip()
        m = re.match(r"^(\d{1,2}):(\d{2})[.:](\d{2})$", t)
        if m is None:
            return None
        try:
            day = _date(d)
            return datetime(day.year, day.month, day.day, int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None

    def _info(self) -> RunInfo:
        a = self.aaa
        one = {k: ",".join(v).strip() for k, v in a.items()}
        prog, version = one.get("progname", ""), one.get("version", "")
        tool = prog or "nmon"
        if version and version.upper() != "TOPAS-NMON":
            tool += f" {version}"
        os_name = None
        if "OS" in a and a["OS"]:
            os_name = " ".join(x for x in a["OS"][:2] if x) or None  # Linux,6.1.0,#1 SMP …,x86_64
        elif "AIX" in a:
            os_name = f"AIX {one['AIX']}"
        info = RunInfo(kind=KIND.id, host=one.get("host") or None, tool_version=tool, os=os_name)
        if one.get("date"):
            try:
                info.file_date = _date(one["date"])
            except ValueError:
                info.file_date = None
        info.meta = self._meta(one)
        return info

    def _meta(self, one: dict[str, str]) -> dict[str, Any]:
        """What the header says beyond host, OS and version, and which disk sections were read into what."""
        a = self.aaa
        # a snapshot's rates cover the time since the previous snapshot (the series takes each one's length from
        # the stamps; the first: first_snapshot_covers_s)
        meta: dict[str, Any] = {"sample_span": "since_previous"}
        for key, out in (("command", "command"), ("runname", "runname"), ("build", "build")):
            if one.get(key):
                meta[out] = one[key]
        for key, out in (("interval", "interval_stated_s"), ("snapshots", "snapshots_stated"),
                         ("disks_per_line", "disks_per_line")):
            if one.get(key, "").isdigit():
                meta[out] = int(one[key])
        if a.get("cpus") and a["cpus"][0].strip().isdigit():
            meta["cpus"] = int(a["cpus"][0])
        sections: dict[str, str] = {}
        for sec, part in self.headers:
            if part == 0 or sec not in sections:
                sections[sec] = DISK_SECTIONS[sec]
        if self._split() and "DISKXFER" in sections:
            sections["DISKXFER"] = "not stored: the file has reads and writes per second"
        meta["disk_sections"] = dict(sorted(sections.items()))
        splits = sorted({p for _, p in self.headers if p})
        if splits:
            meta["disk_section_parts"] = len(splits) + 1
        if self.not_imported:
            meta["sections_not_imported"] = sorted(self.not_imported)
        if self.encoding != "utf-8":
            meta["encoding"] = self.encoding
        return meta


def _names(numbers: list[int]) -> str:
    if len(numbers) <= 3:
        return ", ".join(f"T{n:04d}" for n in numbers)
    return f"T{numbers[0]:04d}–T{numbers[-1]:04d}"


def _num(v: str, no: int, section: str, name: str) -> float | None:
    try:
        x = float(v)  # float() reads through the spaces AIX puts before some values
    except ValueError:
        if not v.strip():
            return None
        raise ParseError(f"{section} value {v.strip()[:20]!r} for {name} is not a number", no) from None
    if math.isnan(x) or math.isinf(x):
        return None  # nmon prints nan when it divides by zero: a figure it does not have
    return x


def _date(text: str) -> date:
    m = _DATE.match(text.strip())
    if m is None or m.group(2).upper() not in MONTHS:
        raise ValueError(text)
    return date(int(m.group(3)), MONTHS[m.group(2).upper()], int(m.group(1)))


def _stamp(time_text: str, date_text: str, no: int) -> datetime:
    m = _TIME.match(time_text)
    try:
        if m is None:
            raise ValueError(time_text)
        d = _date(date_text)
        return datetime(d.year, d.month, d.day, int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        raise ParseError(f"snapshot time {time_text + ',' + date_text!r} is not a time and date "
                         "(HH:MM:SS,DD-MON-YYYY)", no) from None


FORMAT = register(NmonFormat())
