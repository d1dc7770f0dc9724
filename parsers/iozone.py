"""IOzone output, 3.2xx to 3.5xx: auto-mode tables, ``-R`` report blocks, throughput mode.

Everything is read by label, never by position in a list:

* **The table** (``-a``/``-A`` auto mode, or one file and record size): a two-line header
  (``random``/``bkwd``/``record``/``stride`` above ``read``/``write``/``rewrite``) names the
  columns; IOzone prints every value right-aligned in a fixed-width field, leaves the field blank
  for a test it did not run (``-i``), and lets a value wider than its field push the rest of the
  row to the right, touching its neighbour. The field ends are taken from the rows themselves
  (where most values end, next to their header label) and each row is walked field by field,
  so blank fields, values that touch and values that overflow all land in the right column.
* **``-R`` report blocks** (``"Writer report"`` ...): one row per file size, the values left-packed
  under the quoted record sizes (IOzone prints only the records it ran: those up to the file size,
  and from 64 kB up for files over 16 MB unless ``-z``). When the table is in the file too, the
  report repeats it: each report value is checked against the table and stored once.
* **Throughput mode** (``-t N``, ``-l``/``-u``): ``Children see throughput for N initial writers``
  blocks with parent, min/max/avg per process, min xfer and ``-+u`` CPU lines, and the ``-R``
  ``Throughput report`` (checked against the blocks the same way).

The banner (version, command line, settings) goes into ``runs.meta``. ``-O`` (ops/s) and ``-N``
(µs per operation) are stored in ``ops_s`` / ``us_per_op``, never mixed with kB/s. A data set
(file size × processes) smaller than the host's RAM (``ImportOptions.ram_gb``) is flagged
``page_cache_likely``: re-read and re-write then measure memory, not the disk.
"""

from __future__ import annotations

import contextlib
import math
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import THROUGHPUT_GRID, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import BOOL, INT, LIST, NUM, OBJ, TEXT, Counts, MetaKey, Semantics, Span, common

BANNER = "Iozone: Performance Test of File I/O"
CROSSOVER_KB = 16 * 1024  # auto mode skips records below LARGE_REC for files over this (unless -z)
LARGE_REC_KB = 64

# canonical test names, by the labels IOzone prints in each layout
TABLE_TESTS = {
    "write": "write", "rewrite": "rewrite", "read": "read", "reread": "reread",
    "random read": "random_read", "random write": "random_write", "bkwd read": "backward_read",
    "record rewrite": "record_rewrite", "stride read": "stride_read", "fwrite": "fwrite",
    "frewrite": "frewrite", "fread": "fread", "freread": "freread", "pwrite": "pwrite",
    "repwrite": "repwrite", "pread": "pread", "repread": "repread", "pwritev": "pwritev",
    "repwritev": "repwritev", "preadv": "preadv", "repreadv": "repreadv", "random mix": "mixed",
}
REPORT_TESTS = {
    "writer": "write", "re-writer": "rewrite", "reader": "read", "re-reader": "reread",
    "random read": "random_read", "random write": "random_write", "backward read": "backward_read",
    "record rewrite": "record_rewrite", "stride read": "stride_read", "fwrite": "fwrite",
    "re-fwrite": "frewrite", "fread": "fread", "re-fread": "freread", "pwrite": "pwrite",
    "re-pwrite": "repwrite", "pread": "pread", "re-pread": "repread", "pwritev": "pwritev",
    "re-pwritev": "repwritev", "preadv": "preadv", "re-preadv": "repreadv", "random mix": "mixed",
    "mixed workload": "mixed",
}
THROUGHPUT_TESTS = {
    "initial writers": "write", "rewriters": "rewrite", "readers": "read", "re-readers": "reread",
    "reverse readers": "backward_read", "stride readers": "stride_read", "random readers": "random_read",
    "mixed workload": "mixed", "random writers": "random_write", "pwrite writers": "pwrite",
    "re-pwrite writers": "repwrite", "pread readers": "pread", "re-pread readers": "repread",
    "fwriters": "fwrite", "re-fwriters": "frewrite", "freaders": "fread", "re-freaders": "freread",
}
THROUGHPUT_REPORT_TESTS = {
    "initial write": "write", "rewrite": "rewrite", "read": "read", "re-read": "reread",
    "reverse read": "backward_read", "stride read": "stride_read", "random read": "random_read",
    "mixed workload": "mixed", "random write": "random_write", "pwrite": "pwrite", "re-pwrite": "repwrite",
    "pread": "pread", "re-pread": "repread", "fwrite": "fwrite", "re-fwrite": "frewrite", "fread": "fread",
    "re-fread": "freread",
}
QUALIFIERS = {"random", "bkwd", "record", "stride"}

RESULT_SCHEMA: dict[str, Any] = frame_schema("iozone_results")
UNIT_COLUMN = {"kB/s": "kb_s", "ops/s": "ops_s", "us/op": "us_per_op"}

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|-nan|-inf"
_TABLE_HEADER = re.compile(r"^\s*(KB|kB|Kb|kb)\s+reclen(\s|$)")
_QUAL_LINE = re.compile(r"^ {16,}[a-z]+( +[a-z]+)* *$")
_ROW = re.compile(r"^[ \t\d.]+$")
_CHILDREN = re.compile(rf"^Children see throughput for\s+(\d+)\s+(.*?)\s*=\s*({_NUM})\s*(\S+?)/sec\s*$")
_PARENT = re.compile(rf"^Parent sees throughput for\s+(\d+)\s+(.*?)\s*=\s*({_NUM})\s*(\S+?)/sec\s*$")
_PER_PROC = re.compile(rf"^(Min|Max|Avg) throughput per (?:process|thread)\s*=\s*({_NUM})\s*(\S+?)/sec\s*$")
_MIN_XFER = re.compile(rf"^Min xfer\s*=\s*({_NUM})\s*(\S+)\s*$")
_CPU = re.compile(rf"^CPU [Uu]tili[sz]ation: Wall time\s+({_NUM})\s+CPU time\s+({_NUM})\s+"
                  rf"CPU utili[sz]ation\s+({_NUM})\s*%\s*$")
_CHILD_LINE = re.compile(r"^Child\[\d+\]")
_REPORT_TITLE = re.compile(r'^"([^"]*?)\s*report"\s*$', re.IGNORECASE)
_REPORT_HEADER = re.compile(r'^\s*(?:"\s*\d+\s*"\s*)+$')
_REPORT_ROW = re.compile(r'^"\s*(\d+)\s*"((?:\s+\d+)*)\s*$')
_TP_REPORT_TITLE = re.compile(r'^"Throughput report Y-axis is type of test X-axis is number of processes"\s*$')
_TP_RECORD = re.compile(r'^"Record size = (\d+) (\w+)\s*"\s*$')
_TP_OUTPUT = re.compile(r'^"Output is in ([^"]+)"\s*$')
_TP_ROW = re.compile(rf'^"\s*([^"]*?)\s*"((?:\s+(?:{_NUM}))+)\s*$')


def _num(s: str) -> float:
    return float(s)


def _unit(text: str) -> str | None:
    """kB/s, ops/s or us/op from the way IOzone names its unit (Kbytes/sec, kB, KB, ops, ...)."""
    t = text.strip().lower()
    if t.startswith("ops") or "operations per second" in t:
        return "ops/s"
    if "microsecond" in t:
        return "us/op"
    if t.startswith("kb") or t.startswith("kbytes"):
        return "kB/s"
    return None


def _slug(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_") or "unknown"


# ---- command line -----------------------------------------------------------------------------
_NOARG = set("aAzZRIecoONBDGmMpQxKTwWCEvh")
_ARG = set("srfitlunygqbSLPjHkUXYJdV")
_PLUS_ARG = {"m", "x", "p", "w", "y", "C", "b", "q", "A", "S", "W", "H", "P", "i", "T"}


def parse_command_line(cmd: str) -> dict[str, Any]:
    """IOzone's options from its echoed command line: {"-a": True, "-s": "1g", "-i": ["0", "1"], ...}."""
    try:
        toks = shlex.split(cmd)
    except ValueError:
        toks = cmd.split()
    opts: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if value is True:
            opts[key] = True
        elif key in opts and opts[key] is not True:
            prev = opts[key]
            opts[key] = (prev if isinstance(prev, list) else [prev]) + [value]
        else:
            opts[key] = value

    i = 1
    while i < len(toks):
        t = toks[i]
        i += 1
        if not t.startswith("-") or len(t) < 2:
            continue
        if t.startswith("-+"):
            letter, rest = t[2:3], t[3:]
            if letter in _PLUS_ARG:
                if not rest and i < len(toks):
                    rest = toks[i]
                    i += 1
                put(f"-+{letter}", rest)
            elif letter:
                put(f"-+{letter}", True)
            continue
        if t[1] == "F":
            files = []
            while i < len(toks) and not toks[i].startswith("-"):
                files.append(toks[i])
                i += 1
            opts["-F"] = files
            continue
        i = _letters(t, toks, i, put)
    return opts


def _letters(t: str, toks: list[str], i: int, put: Callable[[str, Any], None]) -> int:
    """A cluster of one-letter options (``-aR``, ``-s1g``, ``-s 1g``): each flag, up to the first that takes a
    value (the rest of the token, else the next token). Returns the index of the token after them."""
    for j in range(1, len(t)):
        c = t[j]
        if c in _ARG:
            val = t[j + 1:]
            if not val and i < len(toks):
                val = toks[i]
                i += 1
            put(f"-{c}", val)
            return i
        put(f"-{c}", True)
    return i


# ---- the pieces of one IOzone run --------------------------------------------------------------
@dataclass
class _Section:
    """One IOzone invocation: its banner and everything it printed."""

    line: int
    banner: bool = False
    version: str | None = None
    build: str | None = None
    bits: str | None = None
    run_began: datetime | None = None
    command_line: str | None = None
    settings: list[str] = field(default_factory=list)
    unit: str | None = None
    unit_line: str | None = None
    auto: bool = False
    complete: bool = False
    file_kb: int | None = None
    record_kb: int | None = None
    info: dict[str, Any] = field(default_factory=dict)
    tables: list[_Table] = field(default_factory=list)
    reports: list[_Report] = field(default_factory=list)
    blocks: list[_Block] = field(default_factory=list)
    tp_reports: list[_TpReport] = field(default_factory=list)
    # the per-process file and record size printed before each throughput block
    each_process: tuple[int, int] | None = None

    def has_results(self) -> bool:
        return bool(self.tables or self.reports or self.blocks or self.tp_reports)


@dataclass
class _Column:
    label: str
    start: int
    end: int


@dataclass
class _Table:
    line: int
    columns: list[_Column]
    rows: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class _Report:
    title: str
    test: str
    line: int
    records: list[int] = field(default_factory=list)
    rows: list[tuple[int, list[int], int]] = field(default_factory=list)  # (file_kb, values, line)


@dataclass
class _Block:
    threads: int
    label: str
    test: str
    unit: str
    children: float
    line: int
    file_kb: int | None
    record_kb: int | None
    fields: dict[str, float] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)
    last_line: int = 0


@dataclass
class _TpReport:
    line: int
    record_kb: int | None = None
    unit: str | None = None
    rows: list[tuple[str, str, list[float], int]] = field(default_factory=list)  # (label, test, values, line)


KIND = register_kind("iozone", "IOzone", {THROUGHPUT_GRID})



# what IOzone's results mean (parsers.semantics)
SEMANTICS = Semantics(
    main_table="iozone_results", span=Span.NONE, counts=Counts.TOTALS,
    wording={"kb_s": "kB/s (Kbytes/sec)", "ops_s": "ops/sec (-O)", "us_per_op": "microseconds/op (-N)",
             "file_kb": "kB (file size)", "record_kb": "reclen", "parent": "Parent sees throughput",
             "min_proc": "Min throughput per process", "max_proc": "Max throughput per process",
             "avg_proc": "Avg throughput per process", "min_xfer": "Min xfer", "cpu_pct": "CPU utilization (-+u)"},
    meta=(*common("command_line"),
          MetaKey("version", TEXT, "IOzone's version"), MetaKey("build", TEXT, "its build line"),
          MetaKey("compiled_for", TEXT, "what it was compiled for (32/64 bit)"),
          MetaKey("options", OBJ, "the command line's options, parsed"),
          MetaKey("unit_line", TEXT, "the 'Output is in …' line"), MetaKey("unit", TEXT, "the results' unit"),
          MetaKey("unit_note", TEXT, "the unit assumed when the file does not say it"),
          MetaKey("settings", LIST, "the banner's settings lines"),
          MetaKey("complete", BOOL, "the file ends with 'iozone test complete.'"),
          MetaKey("mode", TEXT, "auto, single or throughput"), MetaKey("mode_note", TEXT, "how the mode was inferred"),
          MetaKey("min_file_kb", INT, "smallest file size (-n)"), MetaKey("max_file_kb", INT, "largest (-g)"),
          MetaKey("min_record_kb", INT, "smallest record size (-y)"), MetaKey("max_record_kb", INT, "largest (-q)"),
          MetaKey("file_kb", INT, "the file size (-s)"), MetaKey("record_kb", INT, "the record size (-r)"),
          MetaKey("min_processes", INT, "fewest processes (-l)"), MetaKey("max_processes", INT, "most (-u)"),
          MetaKey("threads", LIST, "the process counts of the results"),
          MetaKey("time_resolution_s", NUM, "the timer's resolution"),
          MetaKey("processor_cache_kb", INT, "processor cache size"),
          MetaKey("cache_line_bytes", INT, "processor cache line size"),
          MetaKey("stride_records", INT, "file stride in records"),
          MetaKey("o_direct", BOOL, "O_DIRECT (-I)"), MetaKey("include_fsync", BOOL, "fsync in write timing (-e)"),
          MetaKey("include_close", BOOL, "close in write timing (-c)"), MetaKey("sync_mode", BOOL, "SYNC mode (-o)"),
          MetaKey("excel_report", BOOL, "Excel reports (-R)"),
          MetaKey("crossover_disabled", BOOL, "the record size crossover disabled"),
          MetaKey("reports", LIST, "the -R report blocks' titles"),
          MetaKey("report_values_checked_against_table", INT, "-R values checked against the table"),
          MetaKey("throughput_report_values_checked", INT, "-R values checked against the throughput blocks"),
          MetaKey("tests", LIST, "the tests the results hold"),
          MetaKey("page_cache", OBJ, "whether the data set likely fit the page cache (likely, ram_gb, why)")))


class IozoneFormat:
    id = "iozone-text"
    kind = KIND.id
    label = "IOzone output (auto mode, -R report, throughput mode)"
    priority = 350
    tables = ("iozone_results",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        if BANNER.encode() in head:
            return 0.99
        if re.search(rb"^[ \t]*Children see throughput for +\d+ ", head, re.MULTILINE):
            return 0.95
        if re.search(rb"^ *(KB|kB) +reclen +write", head, re.MULTILINE):
            return 0.9
        if re.search(rb'^"(Writer|Re-writer|Reader|Re-Reader|Random read|Fwrite) report"', head, re.MULTILINE) \
                or re.search(rb'^"Throughput report Y-axis is type of test', head, re.MULTILINE):
            return 0.9
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Parser(options, state, warn).run(read_text(path, "IOzone output"))


class _Parser:
    def __init__(self, options: ImportOptions, state: JobState, warn: WarnFn):
        self.opt = options
        self.state = state
        self.warn = warn
        self.sections: list[_Section] = [_Section(line=1)]

    @property
    def sec(self) -> _Section:
        return self.sections[-1]

    # ---- line walk ---------------------------------------------------------------------------
    def run(self, text: str) -> Iterator[Event]:
        lines = text.splitlines()
        if lines and not text.endswith(("\n", "\r")) and (_ROW.match(lines[-1]) or _REPORT_ROW.match(lines[-1])):
            # the file stops inside its last row: its last value may be cut short ('673' of '6736193')
            raise ParseError("the file ends in the middle of a row of results (no line break after it): the "
                             "output is cut off here", len(lines))
        i = 0
        n = len(lines)
        in_contributors = False
        while i < n:
            raw = lines[i]
            s = raw.strip()
            ln = i + 1
            if BANNER in s:
                if self.sec.banner or self.sec.has_results():
                    self.sections.append(_Section(line=ln))
                self.sec.banner = True
                self.sec.line = ln
                i += 1
                continue
            if not s:
                in_contributors = False
                i += 1
                continue
            if s.startswith("Contributors:"):
                in_contributors = True
                i += 1
                continue
            if in_contributors:
                i += 1
                continue
            if _TABLE_HEADER.match(raw):
                i = self._table(lines, i)
                continue
            if _TP_REPORT_TITLE.match(s):
                i = self._tp_report(lines, i)
                continue
            m = _REPORT_TITLE.match(s)
            if m:
                i = self._report(lines, i, m.group(1))
                continue
            if s.startswith("Children see throughput"):
                i = self._block(lines, i)
                continue
            if s.startswith(("Parent sees throughput", "Min throughput per", "Max throughput per",
                             "Avg throughput per", "Min xfer")):
                raise ParseError(f"{s.split('=')[0].strip()!r} outside a 'Children see throughput' block: "
                                 "the block's first line is missing", ln)
            if self.sec.tables and _ROW.match(raw) and len(s.split()) >= 3:
                last = self.sec.tables[-1]
                raise ParseError(f"a row of numbers after the table that starts at line {last.line} ended (at a "
                                 "blank line): a table is not split by blank lines, so the file was edited", ln)
            self._banner_line(s, ln)
            i += 1
        return self._events()

    def _banner_line(self, s: str, ln: int) -> None:
        sec = self.sec
        if s.startswith("Version $Revision:"):
            m = re.search(r"\$Revision:\s*([\d.]+)", s)
            sec.version = m.group(1) if m else None
            return
        if s.startswith("Compiled for"):
            sec.bits = s.removeprefix("Compiled for").strip().rstrip(".")
            return
        if s.startswith("Build:"):
            sec.build = s.removeprefix("Build:").strip()
            return
        if s.startswith("Run began:"):
            # IOzone prints it just before its settings: where the banner's first lines were cut off (a paste that
            # starts here), the settings that follow are still the banner's, read as such
            if sec.has_results():
                self.sections.append(_Section(line=ln))
                sec = self.sec
            if not sec.banner:
                sec.banner = True
                sec.line = ln
            try:
                sec.run_began = datetime.strptime(" ".join(s.removeprefix("Run began:").split()),
                                                  "%a %b %d %H:%M:%S %Y")
            except ValueError:
                self.warn(f"run start not understood: {s!r}", ln)
            return
        if s == "iozone test complete.":
            sec.complete = True
            return
        if not sec.banner or sec.has_results():
            return  # text around a pasted excerpt, or after the results
        if s.startswith("Command line used:"):
            sec.command_line = s.removeprefix("Command line used:").strip()
        elif "Output is in" in s:
            sec.unit = _unit(s.split("Output is in", 1)[1])
            sec.unit_line = s
        elif s.startswith("Auto Mode"):
            sec.auto = True
        else:
            self._setting(s, ln)
        sec.settings.append(s)

    def _setting(self, s: str, ln: int) -> None:
        info = self.sec.info
        pats: list[tuple[str, str, Any]] = [
            (r"Using minimum file size of (\d+) kilobytes", "min_file_kb", int),
            (r"Using maximum file size of (\d+) kilobytes", "max_file_kb", int),
            (r"Using Minimum Record Size (\d+) [kK]B", "min_record_kb", int),
            (r"Using Maximum Record Size (\d+) [kK]B", "max_record_kb", int),
            (r"File size set to (\d+) [kK]B", "file_kb", int),
            (r"Record Size (\d+) [kK]B", "record_kb", int),
            (r"Min process = (\d+)", "min_processes", int),
            (r"Max process = (\d+)", "max_processes", int),
            (r"Throughput test with (\d+) (?:process|thread)", "threads", int),
            (r"Time Resolution = (\S+) seconds", "time_resolution_s", float),
            (r"Processor cache size set to (\d+) [kK]Bytes", "processor_cache_kb", int),
            (r"Processor cache line size set to (\d+) bytes", "cache_line_bytes", int),
            (r"File stride size set to (\d+) \* record size", "stride_records", int),
        ]
        for pat, key, conv in pats:
            m = re.match(pat, s)
            if m:
                with contextlib.suppress(ValueError):
                    info[key] = conv(m.group(1))
                if key == "file_kb":
                    self.sec.file_kb = info[key]
                elif key == "record_kb":
                    self.sec.record_kb = info[key]
                return
        m = re.match(r"Each (?:process|thread) writes a (\d+) [kK](?:B|byte|Byte)s? file in (\d+) [kK]", s)
        if m:
            self.sec.each_process = (int(m.group(1)), int(m.group(2)))
            info["file_kb"], info["record_kb"] = self.sec.each_process
            return
        flags = {"O_DIRECT feature enabled": "o_direct", "Include fsync in write timing": "include_fsync",
                 "Include close in write timing": "include_close", "SYNC Mode.": "sync_mode",
                 "Excel chart generation enabled": "excel_report",
                 "Cross over of record size disabled.": "crossover_disabled"}
        for prefix, key in flags.items():
            if s.startswith(prefix):
                info[key] = True
                return

    # ---- the table ---------------------------------------------------------------------------
    def _table(self, lines: list[str], i: int) -> int:
        header = lines[i]
        hln = i + 1
        quals: list[tuple[str, int, int]] = []
        if i > 0 and _QUAL_LINE.match(lines[i - 1]) and \
                all(w in QUALIFIERS for w in lines[i - 1].split()):
            quals = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+", lines[i - 1])]
            if self.sec.settings and self.sec.settings[-1] == lines[i - 1].strip():
                self.sec.settings.pop()  # the header's first line, not a setting
        cols: list[_Column] = []
        for m in re.finditer(r"\S+", header):
            words = [q for q, qs, qe in quals if qs < m.end() and qe > m.start()]
            cols.append(_Column(" ".join(words + [m.group()]), m.start(), m.end()))
        table = _Table(hln, cols)
        for c in cols[2:]:
            if c.label.lower() not in TABLE_TESTS:
                self.warn(f"IOzone table column {c.label!r} not recognised: stored as test {_slug(c.label)!r}", hln)
        i += 1
        while i < len(lines):
            raw = lines[i]
            if not raw.strip():
                break
            if not _ROW.match(raw):
                if _TABLE_HEADER.match(raw) or BANNER in raw or raw.strip() == "iozone test complete.":
                    break
                raise ParseError(f"not a row of the IOzone table that starts at line {hln} "
                                 f"(rows hold numbers only): {raw.strip()[:60]!r}", i + 1)
            table.rows.append((raw.expandtabs(8), i + 1))
            i += 1
        if not table.rows:
            raise ParseError("IOzone table header without a single result row: the output is cut off here", hln)
        self.sec.tables.append(table)
        return i

    # ---- -R report blocks --------------------------------------------------------------------
    def _report(self, lines: list[str], i: int, title: str) -> int:
        tln = i + 1
        key = title.strip().lower()
        test = REPORT_TESTS.get(key)
        if test is None:
            if "cpu" in key:
                self.warn(f"IOzone report {title + ' report'!r} skipped (CPU utilisation is not stored)", tln)
                return self._skip_block(lines, i + 1)
            test = _slug(title)
            self.warn(f"IOzone report {title + ' report'!r} not recognised: stored as test {test!r}", tln)
        rep = _Report(title + " report", test, tln)
        i += 1
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines) or not _REPORT_HEADER.match(lines[i]):
            raise ParseError(f"report {rep.title!r} (line {tln}) is not followed by its row of quoted record "
                             "sizes: the block is cut off or damaged", min(i + 1, len(lines)) if lines else tln)
        rep.records = [_int(x, i + 1) for x in re.findall(r'"\s*(\d+)\s*"', lines[i])]
        i += 1
        while i < len(lines):
            s = lines[i].strip()
            if not s:
                break
            if _REPORT_TITLE.match(s) or _TP_REPORT_TITLE.match(s):
                break
            m = _REPORT_ROW.match(s)
            if not m:
                raise ParseError(f"not a row of report {rep.title!r} (line {tln}): expected a quoted file size and "
                                 f"whole numbers, found {s[:60]!r}", i + 1)
            rep.rows.append((_int(m.group(1), i + 1), [_int(v, i + 1) for v in m.group(2).split()], i + 1))
            i += 1
        if not rep.rows:
            raise ParseError(f"report {rep.title!r} has no rows: the output is cut off here", tln)
        self.sec.reports.append(rep)
        return i

    def _skip_block(self, lines: list[str], i: int) -> int:
        while i < len(lines) and lines[i].strip():
            i += 1
        return i

    def _tp_report(self, lines: list[str], i: int) -> int:
        rep = _TpReport(i + 1)
        i += 1
        while i < len(lines):
            s = lines[i].strip()
            if not s:
                i += 1
                continue
            m = _TP_RECORD.match(s)
            if m:
                rep.record_kb = int(m.group(1))
                i += 1
                continue
            m = _TP_OUTPUT.match(s)
            if m:
                rep.unit = _unit(m.group(1))
                i += 1
                continue
            m = _TP_ROW.match(s)
            if not m:
                break
            label = m.group(1)
            test = THROUGHPUT_REPORT_TESTS.get(label.lower())
            if test is None:
                test = _slug(label)
                self.warn(f"IOzone throughput report row {label!r} not recognised: stored as test {test!r}", i + 1)
            rep.rows.append((label, test, [_num(v) for v in m.group(2).split()], i + 1))
            i += 1
        if not rep.rows:
            raise ParseError("IOzone throughput report without rows: the output is cut off here", rep.line)
        self.sec.tp_reports.append(rep)
        return i

    # ---- throughput blocks -------------------------------------------------------------------
    def _block(self, lines: list[str], i: int) -> int:
        s = lines[i].strip()
        m = _CHILDREN.match(s)
        if not m:
            raise ParseError(f"'Children see throughput' line not understood: {s[:80]!r}", i + 1)
        threads, label, value, unit_text = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        unit = _unit(unit_text)
        if unit is None:
            raise ParseError(f"unit {unit_text + '/sec'!r} not understood", i + 1)
        test = THROUGHPUT_TESTS.get(label.lower())
        if test is None:
            test = _slug(label)
            self.warn(f"IOzone throughput test {label!r} not recognised: stored as test {test!r}", i + 1)
        ep = self.sec.each_process
        blk = _Block(threads, label, test, unit, _num(value), i + 1, ep[0] if ep else None, ep[1] if ep else None)
        blk.seen.append("children")
        blk.last_line = i + 1
        i += 1
        while i < len(lines):
            s = lines[i].strip()
            ln = i + 1
            if not s or s.startswith("Children see throughput"):
                break
            m = _PARENT.match(s)
            if m:
                if int(m.group(1)) != threads or m.group(2).lower() != label.lower():
                    raise ParseError(f"'Parent sees' line for {m.group(1)} {m.group(2)} inside the block of "
                                     f"{threads} {label} (line {blk.line})", ln)
                self._unit_check(blk, m.group(4), ln)
                blk.fields["parent"] = _num(m.group(3))
                blk.seen.append("parent")
            elif (m := _PER_PROC.match(s)) is not None:
                self._unit_check(blk, m.group(3), ln)
                key = {"Min": "min_proc", "Max": "max_proc", "Avg": "avg_proc"}[m.group(1)]
                blk.fields[key] = _num(m.group(2))
                blk.seen.append(key)
            elif (m := _MIN_XFER.match(s)) is not None:
                blk.fields["min_xfer"] = _num(m.group(1))
                blk.seen.append("min_xfer")
            elif (m := _CPU.match(s)) is not None:
                blk.fields.update(cpu_wall_s=_num(m.group(1)), cpu_s=_num(m.group(2)), cpu_pct=_num(m.group(3)))
                blk.seen.append("cpu")
            elif _CHILD_LINE.match(s):
                pass  # -C: bytes per child, not stored
            elif not any(x.strip() for x in lines[i + 1:]):
                raise ParseError(f"the throughput block of {threads} {label} (line {blk.line}) ends in "
                                 f"{s[:60]!r}: the output is cut off here", ln)
            else:
                raise ParseError(f"unexpected line inside the throughput block of {threads} {label} "
                                 f"(line {blk.line}): {s[:80]!r}", ln)
            blk.last_line = ln
            i += 1
        self.sec.blocks.append(blk)
        return i

    def _unit_check(self, blk: _Block, unit_text: str, ln: int) -> None:
        if _unit(unit_text) != blk.unit:
            raise ParseError(f"unit {unit_text!r} differs from the block's {blk.unit} (line {blk.line})", ln)

    # ---- rows --------------------------------------------------------------------------------
    def _events(self) -> Iterator[Event]:
        sections = [s for s in self.sections if s.has_results()]
        for s in self.sections:
            if s.banner and not s.has_results() and len(self.sections) > 1:
                self.warn("an IOzone run without any result (cut off before its first result?) is skipped", s.line)
        if not sections:
            raise ParseError("no IOzone result found: no table, report or 'Children see throughput' block "
                             "(the output ends before the first result?)", None)
        many = len(sections) > 1
        for k, sec in enumerate(sections):
            key = f"run {k + 1}" if many else "iozone"
            yield from self._section_events(sec, key)

    def _section_events(self, sec: _Section, key: str) -> Iterator[Event]:
        info = RunInfo(kind="iozone")
        info.tool_version = f"IOzone {sec.version}" if sec.version else None
        info.started_at = sec.run_began
        info.file_date = sec.run_began.date() if sec.run_began else None
        meta = info.meta
        opts = parse_command_line(sec.command_line) if sec.command_line else {}
        unit = sec.unit or self._unit_from_results(sec)
        if unit is None:
            unit = "kB/s"
            meta["unit_note"] = "the file does not say its unit: IOzone's default kB/s assumed"
            self.warn("the file does not say its unit (no 'Output is in ...' line): IOzone's default kB/s "
                      "is assumed", sec.line)
        mode = "throughput" if (sec.blocks or sec.tp_reports) else ("auto" if sec.auto else "single")
        if not sec.banner and mode != "throughput" and not sec.tables:
            # a -R report pasted on its own: more than one file or record size means auto mode
            sizes = {(f, r) for rep in sec.reports for f, vals, _ in rep.rows for r in rep.records[:len(vals)]}
            mode = "auto" if len(sizes) > 1 else "single"
            meta["mode_note"] = "inferred from the report layout (the file has no banner)"
        rows: list[dict[str, Any]] = []
        table_cells: dict[tuple[str, int, int], tuple[float, int]] = {}
        for table in sec.tables:
            for r in self._table_rows(table, mode, unit):
                rows.append(r)
                table_cells[(r["test"], r["file_kb"], r["record_kb"])] = (r["_value"], r["line"])
        checked = self._report_rows(sec, mode, unit, table_cells, rows)
        tp_checked = self._throughput_rows(sec, unit, rows)
        for r in rows:
            r[UNIT_COLUMN[r["unit"]]] = r.pop("_value")
        meta.update(mode=mode, unit=unit)
        banner = {"version": sec.version, "build": sec.build, "compiled_for": sec.bits,
                  "command_line": sec.command_line, "options": opts, "unit_line": sec.unit_line,
                  "settings": sec.settings, "complete": sec.complete if sec.banner else None}
        meta.update({k: v for k, v in banner.items() if v not in (None, [], {})})
        meta.update({k: v for k, v in sec.info.items() if k not in meta})
        if sec.banner:  # what the banner and command line say (a pasted excerpt without them says nothing)
            meta.update(o_direct=bool(sec.info.get("o_direct") or opts.get("-I")),
                        include_fsync=bool(sec.info.get("include_fsync") or opts.get("-e")),
                        include_close=bool(sec.info.get("include_close") or opts.get("-c")))
        if sec.reports:
            meta["reports"] = [r.title for r in sec.reports]
            meta["report_values_checked_against_table"] = checked
        if sec.tp_reports:
            meta["throughput_report_values_checked"] = tp_checked
        tests = list(dict.fromkeys(r["test"] for r in rows))
        meta["tests"] = tests
        threads = sorted({r["threads"] for r in rows if r["threads"] is not None})
        meta["threads"] = threads
        self._page_cache(sec, opts, rows, meta)
        if sec.banner and not sec.complete:
            self.warn("no 'iozone test complete.' line: the run may have been cut short", sec.line)
        yield RunStart(key, info)
        frame = pl.DataFrame([{c: r.get(c) for c in RESULT_SCHEMA} for r in rows], schema=RESULT_SCHEMA,
                             orient="row")
        yield Rows(key, "iozone_results", frame)
        self.state.progress(1.0, "done")
        yield RunEnd(key, {}, info=info)

    def _unit_from_results(self, sec: _Section) -> str | None:
        units = {b.unit for b in sec.blocks} | {r.unit for r in sec.tp_reports if r.unit}
        if len(units) > 1:
            raise ParseError(f"throughput blocks in different units: {sorted(units)}", sec.blocks[0].line)
        return units.pop() if units else None

    def _table_rows(self, table: _Table, mode: str, unit: str) -> list[dict[str, Any]]:
        cols = table.columns
        if len(cols) < 3 or cols[1].label != "reclen":
            raise ParseError("IOzone table header not understood (expected 'kB reclen' and test names)", table.line)
        ends = _field_ends(cols, table.rows)
        typical = _typical([_split_row(text, ends, ln) for text, ln in table.rows], len(cols))
        out: list[dict[str, Any]] = []
        first_filled: list[int] | None = None
        for text, ln in table.rows:
            notes: list[str] = []
            vals = _split_row(text, ends, ln, typical, notes)
            for note in notes:
                self.warn(f"values touch: {note}", ln)
            if vals[0] is None or vals[1] is None:
                raise ParseError("row without a file size and record size under 'kB' and 'reclen'", ln)
            results = {j: v for j in range(2, len(cols)) if (v := vals[j]) is not None}
            filled = list(results)
            if first_filled is None:
                first_filled = filled
                if not filled:
                    raise ParseError("row without any result", ln)
            elif filled != first_filled:
                have = ", ".join(cols[j].label for j in filled) or "none"
                want = ", ".join(cols[j].label for j in first_filled)
                raise ParseError(f"this row has values for {have}; the rows above have {want}: the table is cut "
                                 "off or damaged here", ln)
            file_kb, record_kb = int(float(vals[0])), int(float(vals[1]))
            for j, v in results.items():
                label = cols[j].label
                out.append({"mode": mode, "source": "table", "test": TABLE_TESTS.get(label.lower(), _slug(label)),
                            "label": label, "file_kb": file_kb, "record_kb": record_kb, "threads": 1,
                            "unit": unit, "_value": _num(v), "line": ln})
        return out

    def _report_rows(self, sec: _Section, mode: str, unit: str, table_cells: dict[tuple[str, int, int], Any],
                     rows: list[dict[str, Any]]) -> int:
        checked = 0
        table_records: dict[int, list[int]] = {}
        for (_t, f, r) in table_cells:
            table_records.setdefault(f, [])
            if r not in table_records[f]:
                table_records[f].append(r)
        for f in table_records:
            table_records[f].sort()
        for rep in sec.reports:
            for file_kb, values, ln in rep.rows:
                records = self._report_records(rep, file_kb, values, ln, table_records.get(file_kb), sec)
                for rec, v in zip(records, values):
                    cell = table_cells.get((rep.test, file_kb, rec))
                    if cell is not None:
                        checked += 1
                        if cell[0] != v:
                            self.warn(f"{rep.title} gives {v} for {file_kb} kB / {rec} kB records, the table "
                                      f"{cell[0]:g} (line {cell[1]}): the table's value is kept", ln)
                        continue
                    rows.append({"mode": mode, "source": "report", "test": rep.test, "label": rep.title,
                                 "file_kb": file_kb, "record_kb": rec, "threads": 1, "unit": unit,
                                 "_value": float(v), "line": ln})
        return checked

    def _report_records(self, rep: _Report, file_kb: int, values: list[int], ln: int,
                        from_table: list[int] | None, sec: _Section) -> list[int]:
        """The record sizes of a report row: IOzone left-packs the values it ran, smallest record first."""
        if from_table is not None and len(from_table) == len(values):
            return from_table
        candidates = [r for r in rep.records if r <= file_kb]
        if len(values) == len(candidates):
            return candidates
        large = [r for r in candidates if r >= LARGE_REC_KB]
        if file_kb > CROSSOVER_KB and len(values) == len(large) and not sec.info.get("crossover_disabled"):
            return large  # auto mode skips the small records of large files
        raise ParseError(f"{rep.title}: {len(values)} values for the {file_kb} kB file, but IOzone runs "
                         f"{len(candidates)} record sizes up to the file size"
                         + (f" ({len(large)} from {LARGE_REC_KB} kB up)" if file_kb > CROSSOVER_KB else "")
                         + ": the row is cut off or damaged", ln)

    def _throughput_rows(self, sec: _Section, unit: str, rows: list[dict[str, Any]]) -> int:
        expected = self._complete_block_lines(sec)
        cells: dict[tuple[str, int], tuple[float, int]] = {}
        for blk in sec.blocks:
            missing = [f for f in expected if f not in blk.seen]
            if missing:
                raise ParseError(f"the throughput block of {blk.threads} {blk.label} (line {blk.line}) lacks "
                                 f"{', '.join(missing)}: the output is cut off or damaged here", blk.last_line)
            r = {"mode": "throughput", "source": "throughput", "test": blk.test, "label": blk.label,
                 "file_kb": blk.file_kb, "record_kb": blk.record_kb, "threads": blk.threads, "unit": blk.unit,
                 "_value": blk.children, "line": blk.line, **blk.fields}
            rows.append(r)
            cells[(blk.test, blk.threads)] = (blk.children, blk.line)
        checked = 0
        counts = list(dict.fromkeys(b.threads for b in sec.blocks))
        if not counts and "min_processes" in sec.info and "max_processes" in sec.info:
            counts = list(range(sec.info["min_processes"], sec.info["max_processes"] + 1))
        for rep in sec.tp_reports:
            if rep.unit and rep.unit != unit:
                self.warn(f"the throughput report is in {rep.unit}, the run in {unit}", rep.line)
            for label, test, values, ln in rep.rows:
                if len(values) != len(counts):
                    raise ParseError(f"throughput report row {label!r} has {len(values)} values for "
                                     f"{len(counts)} process counts ({counts})", ln)
                for n, v in zip(counts, values):
                    cell = cells.get((test, n))
                    if cell is not None:
                        checked += 1
                        if abs(cell[0] - v) > 0.006:
                            self.warn(f"the throughput report gives {v:.2f} for {n} {label}, the block at line "
                                      f"{cell[1]} {cell[0]:.2f}: the block's value is kept", ln)
                        continue
                    ep = sec.each_process
                    rows.append({"mode": "throughput", "source": "report", "test": test, "label": label,
                                 "file_kb": ep[0] if ep else None,
                                 "record_kb": rep.record_kb or (ep[1] if ep else None),
                                 "threads": n, "unit": rep.unit or unit, "_value": v, "line": ln})
        return checked

    def _complete_block_lines(self, sec: _Section) -> list[str]:
        """The lines every throughput block must have: what the first one has (children, parent, min, max, ...)."""
        if not sec.blocks:
            return []
        first = sec.blocks[0].seen
        need = ["children", "parent", "min_proc", "max_proc"]
        if len(sec.blocks) == 1:
            return need + ["min_xfer"]
        return list(dict.fromkeys(need + first))

    def _page_cache(self, sec: _Section, opts: dict[str, Any], rows: list[dict[str, Any]],
                    meta: dict[str, Any]) -> None:
        ram_gb = self.opt.ram_gb
        o_direct = bool(sec.info.get("o_direct") or opts.get("-I"))
        pc: dict[str, Any] = {"ram_gb": ram_gb, "ram_source": "--ram-gb" if ram_gb else None}
        if o_direct:
            pc.update(likely=False, why="O_DIRECT (-I): IOzone bypassed the page cache")
            for r in rows:
                r["page_cache_likely"] = False
        elif not ram_gb:
            pc.update(likely=None, why="host RAM unknown: give --ram-gb to judge whether the page cache held "
                                       "the files")
        else:
            ram_kb = ram_gb * 1024 * 1024
            n_likely = n_known = 0
            for r in rows:
                if r["file_kb"] is None:
                    continue
                data_kb = r["file_kb"] * (r["threads"] or 1)
                r["page_cache_likely"] = data_kb < ram_kb
                n_known += 1
                n_likely += data_kb < ram_kb
            pc["likely"] = None if not n_known else n_likely > 0
            pc["results_likely"] = n_likely
            pc["results_judged"] = n_known
            if n_likely:
                pc["why"] = (f"{n_likely} of {n_known} results use a data set (file size x processes) smaller than "
                             f"the RAM ({ram_gb:g} GB)")
                self.warn(f"page cache likely: {n_likely} of {n_known} results use a data set (file size x "
                          f"processes) smaller than the host's RAM ({ram_gb:g} GB); their re-read and re-write "
                          "figures measure memory, not the disk", None)
            elif n_known:
                pc["why"] = f"every data set is at least the RAM ({ram_gb:g} GB)"
            else:
                pc["why"] = "the file does not give the file size"
        meta["page_cache"] = pc


# ---- fixed-width table rows --------------------------------------------------------------------
def _field_ends(cols: list[_Column], rows: list[tuple[str, int]]) -> list[int]:
    """Where each column's values end.

    A value ends at its field's end, or further right when a value before it overflowed: the field
    end is the leftmost end seen next to the header label (labels sit within a character or two of it).
    """
    label_ends = [c.end for c in cols]
    votes: list[set[int]] = [set() for _ in cols]
    for text, _ln in rows:
        for m in re.finditer(r"\S+", text):
            e = m.end()
            k = min(range(len(cols)), key=lambda j: abs(label_ends[j] - e))
            if abs(label_ends[k] - e) <= 2:
                votes[k].add(e)
    ends = [min(v) if v else label_ends[j] for j, v in enumerate(votes)]
    for a, b in zip(ends, ends[1:]):
        if b <= a:
            raise ParseError("the IOzone table's columns cannot be lined up with its header", rows[0][1])
    return ends


def _magnitude(v: str) -> float | None:
    try:
        x = float(v)
    except ValueError:
        return None
    return math.log10(x) if x > 0 else None


def _typical(split_rows: list[list[str | None]], n: int) -> list[float | None]:
    """Each column's median order of magnitude (log10)."""
    out: list[float | None] = []
    for j in range(n):
        mags = sorted(m for r in split_rows if j < len(r) and (v := r[j]) is not None
                      and (m := _magnitude(v)) is not None)
        out.append(mags[len(mags) // 2] if mags else None)
    return out


def _cost(pair: tuple[str, str], t0: float, t1: float) -> float:
    """How far a pair of values lies from their columns' usual orders of magnitude."""
    m0, m1 = _magnitude(pair[0]), _magnitude(pair[1])
    return (m0 - t0 if m0 is not None else 9.0) ** 2 + (m1 - t1 if m1 is not None else 9.0) ** 2


def _is_digit(ch: str) -> bool:
    return ch.isdigit() or ch == "."


def _split_row(text: str, ends: list[int], ln: int, typical: list[float | None] | None = None,
               notes: list[str] | None = None) -> list[str | None]:
    """A table row's values, field by field, the way printf wrote them.

    A value is right-aligned in its field; a test not run leaves the field blank; a value wider than
    its field starts right at the field's start and pushes the rest of the row to the right (so it may
    touch the value before it). ``ends`` are the field ends of a row without such overflow. One case
    printf makes ambiguous -- a value that overflows by ``o`` followed by one that fills its field,
    versus one that fills its field followed by one that overflows by ``o`` -- is decided by the
    columns' ``typical`` order of magnitude (the split nearer to both), and noted in ``notes``.
    """
    vals: list[str | None] = []
    pos = shift = 0
    n = len(text)
    for j, e in enumerate(ends):
        end = e + shift
        seg = text[pos:end] if pos < n else ""
        if not seg.strip():
            vals.append(None)
            pos = end
            continue
        m = re.fullmatch(r"( *)([0-9.]+)", seg)
        if m is None:
            raise ParseError(f"the values of this row do not line up with the table's columns "
                             f"(field {j + 1}: {seg.strip()!r})", ln)
        lead, digits = m.group(1), m.group(2)
        if end >= n or not _is_digit(text[end]):
            vals.append(digits)
            pos = end
            continue
        run_end = end
        while run_end < n and _is_digit(text[run_end]):
            run_end += 1
        next_end = ends[j + 1] + shift if j + 1 < len(ends) else None
        if lead:
            vals.append(digits)  # padded, so it fits: the next value fills its whole field and touches it
            pos = end
            continue
        if next_end is None or run_end < next_end:
            vals.append(text[pos:run_end])  # wider than its field: the rest of the row moves right
            shift += run_end - end
            pos = run_end
            continue
        o = run_end - next_end  # this fills its field and the next overflows by o, or the other way round
        t0, t1 = (typical[j], typical[j + 1]) if typical else (None, None)
        if o > 0 and t0 is not None and t1 is not None:
            a = (text[pos:end], text[end:run_end])  # fills, then the next overflows
            b = (text[pos:end + o], text[end + o:run_end])  # overflows, then the next fills
            pick = b if _cost(b, t0, t1) < _cost(a, t0, t1) else a
            if notes is not None:
                notes.append(f"{text[pos:run_end]} could be {a[0]} | {a[1]} or {b[0]} | {b[1]} (printf writes "
                             f"both alike); {pick[0]} | {pick[1]} is nearer the columns' usual magnitudes")
            if pick is b:
                vals.append(b[0])
                shift += o
                pos = end + o
                continue
        vals.append(digits)
        pos = end
    if text[pos:].strip():
        raise ParseError(f"more values than the table has columns: {text[pos:].strip()[:40]!r}", ln)
    return vals


FORMAT = register(IozoneFormat())


def _int(digits: str, line: int) -> int:
    """A whole number of an IOzone report; more than 18 digits is no measurement (and no 64-bit column holds it)."""
    if len(digits) > 18:
        raise ParseError(f"a number of {len(digits):,} digits ({digits[:12]}…): not a value IOzone prints", line)
    return int(digits)
