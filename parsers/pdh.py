"""PDH-CSV, the layout Windows perfmon / typeperf / relog and VMware esxtop's batch mode share: one reader, two
counter maps (:mod:`parsers.perfmon`, :mod:`parsers.esxtop`).

Layout (Windows' PDH library writes it; esxtop imitates it)::

    "(PDH-CSV 4.0) (Eastern Daylight Time)(240)","\\\\SQL01\\PhysicalDisk(0 C:)\\Disk Reads/sec",...
    "09/08/2002 12:35:45.166","11.296813511113458",...

* The first cell names the layout and, for perfmon and relog, the time zone and its *bias*: UTC = local time +
  bias minutes, so a bias of 240 is ``utc_offset`` "-04:00". typeperf writes just ``(PDH-CSV 4.0)`` (no zone);
  ESXi writes ``(UTC)(0)``. ``(PDH-TSV 4.0)`` is the same with TABs.
* Every other header cell is a counter path ``\\\\HOST\\Object(Instance)\\Counter``, read from the right: the
  counter after the last backslash, the host after the leading two, the object and its instance in between
  (an instance may hold spaces, colons, parentheses and backslashes: ``0 C:``, ``SQL02 (uuid):scsi0:0``,
  ``\\??\\D:\\pagefile.sys``). A file may hold several hosts: one run per host.
* One row per sample: a local time stamp (``MM/DD/YYYY HH:MM:SS.mmm``, or the locale's: ``DD.MM.YYYY``,
  ``DD/MM/YYYY``, ``YYYY-MM-DD``; the day/month order is decided from all rows, a field above 12 decides, and
  when nothing does PDH's own MM/DD is taken and said in a warning), then the values, quoted; a blank or ``" "``
  is a value the tool did not have (perfmon leaves the first sample of a rate counter blank): NULL, never 0.
  A locale that writes decimal commas (``"0,5"``) is detected and recorded (``meta.decimal_comma``).
* The header decides the file's encoding: UTF-8 (a byte-order mark is read through), else Windows-1252 (what
  perfmon writes on a German or French Windows; ``meta.encoding``).

Bad input: a value that is not a number, a row with the wrong number of fields or a time stamp that is not one
stops the import with a ParseError naming the file's line and the counter (nothing of the file is stored).
Only the file's last row may be cut off (the log was copied while it was written): when the file does not end
with a line break and its last row is short or ends in a broken value, that row is left out with a warning.
A broken value anywhere else is damage, not a cut-off log: hiding it would leave a hole the analyses could not
explain, so it is an error.

Large files stream: the header is read once, the columns a format needs are picked by their names, and each
row keeps only those cells (esxtop writes tens of thousands of columns); values are converted in bulk per chunk
of rows, and iostat_samples frames go out per chunk. A chunk of plain rows (every field quoted, no quote inside,
ASCII, the header's field count: checked by counting separators and quotes, :func:`plain_block`) is read by
polars, only the chosen columns; from the first chunk that is not plain on, Python's CSV reader reads every row
and makes the checks above, so a bad row's error is the same either way.
"""

from __future__ import annotations

import csv
import io
import itertools
import operator
import re
import statistics
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
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
    WarnFn,
)
from parsers.dates import ORDER_NAMES, Dated, Decision, Words, decide, read
from parsers.schema import frame_schema
from parsers.semantics import INT, OBJ, TEXT, MetaKey, common
from parsers.textutil import DATE_ORDER_FIX

_FIRST_CELL = re.compile(r"^\(PDH-(?P<fmt>CSV|TSV) (?P<ver>\d+\.\d+)\)\s*"
                         r"(?:\((?P<zone>.*)\)\((?P<bias>[-+]?\d+)\))?\s*$")
_NUMBER = r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$"
_NUMBER_RE = re.compile(_NUMBER)
_COMMA_NUMBER = re.compile(r"^[-+]?\d+,\d+(?:[eE][-+]?\d+)?$")
_STAMP = re.compile(r"^(\d{1,4})([./-])(\d{1,2})[./-](\d{1,4})[ T](\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?"
                    r"(?:\s*([AaPp])\.?[Mm]\.?)?$")
CHUNK_CELLS = 400_000  # selected cells converted at once (rows x columns): bounds the memory of a chunk
MAX_CHUNK_ROWS = 2000
COMMA_SAMPLE = 50_000  # values (the first of a chunk, row after row) that tell a decimal comma
MAX_LINE = 64 * 1024 * 1024  # the longest header line read (esxtop: tens of thousands of cells); a cell stays short


# ---- counter paths -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CounterPath:
    """One header cell: ``\\\\host\\object(instance)\\counter`` (host None when the path has no machine)."""

    host: str | None
    obj: str
    instance: str | None
    counter: str

    @property
    def text(self) -> str:
        inst = f"({self.instance})" if self.instance is not None else ""
        return (f"\\\\{self.host}" if self.host is not None else "") + f"\\{self.obj}{inst}\\{self.counter}"


def parse_counter_path(text: str) -> CounterPath | None:
    """Split a counter path from the right; None when the cell is no counter path."""
    s = text.strip()
    if not s.startswith("\\"):
        return None
    cut = s.rfind("\\")
    counter = s[cut + 1:]
    rest = s[:cut]
    host: str | None = None
    if rest.startswith("\\\\"):
        end = rest.find("\\", 2)
        if end < 0:
            return None
        host, rest = rest[2:end], rest[end + 1:]
    else:
        rest = rest[1:]
    if not rest or not counter:
        return None
    if rest.endswith(")"):
        op = _opening(rest)
        if op > 0:
            return CounterPath(host, rest[:op].strip(), rest[op + 1:-1], counter.strip())
    return CounterPath(host, rest.strip(), None, counter.strip())


def _opening(rest: str) -> int:
    """The "(" that the final ")" closes, counted from the right (an instance may hold balanced parentheses:
    ``SQL02 (uuid):scsi0:0``; an object too: ``… (client)(*)``); else the first "(" (-1: none)."""
    last = rest.rfind("(")
    if last >= 0 and ")" not in rest[last + 1:-1]:  # no parentheses inside the instance: the walk below ends there
        return last
    depth = 0
    for i in range(len(rest) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(rest[i], 0)
        if depth == 0:
            return i
    return rest.find("(")


def norm(name: str) -> str:
    """A counter or object name for matching: case, typographic apostrophes, spaces, dots, ``%`` and parentheses
    do not count (``% Idle Time`` = ``%Idle Time``; German ``Leerlaufzeit (%)`` = ``% Leerlaufzeit``), and
    German ``/Sek.`` = ``/s``."""
    s = name.casefold().replace("\u2019", "'").replace("\u00a0", " ")
    s = re.sub(r"[\s%().]", "", s)
    return re.sub(r"/sek$", "/s", s)


# ---- sniffing ----------------------------------------------------------------------------------------------
def sniff_head(head: bytes) -> str:
    """The header text of a PDH-CSV/TSV head from its ``(PDH-`` mark on ("" when there is none). Text before the
    mark on its line (a terminal's message esxtop printed first) or up to two junk lines before it are allowed."""
    i = head.find(b"(PDH-", 0, 4096)
    if i < 0 or head[:i].count(b"\n") > 2 or not re.match(rb"\(PDH-(CSV|TSV) \d", head[i:i + 12]):
        return ""
    return head[i - 1 if head[i - 1:i] == b'"' else i:].decode("utf-8", errors="replace")


def head_paths(head_text: str) -> list[CounterPath]:
    """The counter paths of the header cells in a sniffed head (the last, maybe cut, cell left out)."""
    line = head_text.split("\n", 1)[0]
    delim = "\t" if "(PDH-TSV" in line[:20] else ","
    cells = next(csv.reader([line], delimiter=delim), [])[1:-1]
    return [p for c in cells if (p := parse_counter_path(c)) is not None]


# ---- the header ---------------------------------------------------------------------------------------------
@dataclass
class Header:
    fmt: str  # CSV | TSV
    version: str
    zone: str | None
    bias: int | None  # minutes: UTC = local + bias
    delimiter: str
    encoding: str  # utf-8 | cp1252
    line: int  # 1-based line of the header
    cells: list[str]
    junk: str = ""  # text before the header mark
    quoted: bool = True  # the cells are in double quotes (perfmon, esxtop; some old Windows did not quote)

    @property
    def utc_offset(self) -> str | None:
        if self.bias is None:
            return None
        off = -self.bias
        sign = "-" if off < 0 else "+"
        return f"{sign}{abs(off) // 60:02d}:{abs(off) % 60:02d}"


def _decode_header(raw: bytes) -> tuple[str, str]:
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace"), "cp1252"


def read_header(path: str, what: str) -> Header:
    """The header line of a PDH-CSV/TSV file (within its first 3 lines)."""
    with open(path, "rb") as fh:
        lines = [fh.readline(MAX_LINE) for _ in range(3)]
    for i, raw in enumerate(lines):
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        mark = raw.find(b"(PDH-")
        if mark < 0:
            continue
        if b"\x00" in raw:
            raise ParseError(f"binary data (NUL byte): not {what}", i + 1)
        start = mark - 1 if mark > 0 and raw[mark - 1:mark] == b'"' else mark
        text, encoding = _decode_header(raw[start:].rstrip(b"\r\n"))
        delim = "\t" if text.lstrip('"').startswith("(PDH-TSV") else ","
        cells = next(csv.reader([text], delimiter=delim))
        m = _FIRST_CELL.match(cells[0].strip())
        if m is None:
            raise ParseError(f"the first cell \"{cells[0][:60]}\" is not a PDH header such as \"(PDH-CSV 4.0)\"", i + 1)
        bias = int(m.group("bias")) if m.group("bias") is not None else None
        junk = raw[:start].decode("utf-8", errors="replace").strip()
        return Header(m.group("fmt"), m.group("ver"), (m.group("zone") or "").strip() or None, bias, delim,
                      encoding, i + 1, cells, junk, text.rstrip().endswith('"'))
    raise ParseError(f"no PDH header (\"(PDH-CSV 4.0)\" …) in the first lines: not {what}", 1)


# the runs.meta keys every PDH format writes (parsers.semantics)
PDH_META: tuple[MetaKey, ...] = (
    *common("sample_span", "utc_offset", "decimal_comma", "date_order", "date_reading"),
    MetaKey("pdh", TEXT, "the layout and its version (`PDH-CSV 4.0`)"),
    MetaKey("time_zone", TEXT, "the time zone the header names"),
    MetaKey("pdh_bias_min", INT, "the header's bias: UTC = local time + bias minutes"),
    MetaKey("devices_by_layer", OBJ, "devices per layer (`device`: rows without one)"),
    MetaKey("counters_by_place", OBJ, "counters known by their place in the log, not their names: `names` (as "
            "printed -> in English), `columns` (the stored columns that come from them, per device or `cpu`) and "
            "`state` (not confirmed, confirmed when imported, confirmed by the user, rejected by the user)"),
)


# ---- what a format makes of a column ------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """Where one column's values go: ``quantity`` of ``device`` (iostat_samples) or of the host's CPU
    (cpu_samples, device None), on ``host``'s run."""

    table: str
    host: str
    device: str | None
    quantity: str
    layer: str | None = None
    vm: str | None = None
    by_place: str | None = None  # "Object\\Counter" (English) of a column known by its place, not its name


@dataclass
class DeviceSpec:
    device: str | None
    layer: str | None
    vm: str | None
    quantities: dict[str, int] = field(default_factory=dict)  # quantity -> position among the selected columns
    by_place: set[str] = field(default_factory=set)  # the quantities known by their place in the log, not names


Classify = Callable[[CounterPath], "Source | None"]
Derive = Callable[[dict[str, np.ndarray], int], dict[str, np.ndarray]]


@dataclass
class FormatSpec:
    """What a PDH format (perfmon, esxtop) tells the reader."""

    kind: str
    what: str  # "a perfmon CSV log": for messages
    os: str
    tool: str  # tool_version prefix ("perfmon / typeperf", "esxtop batch mode")
    classify: Classify  # header cell -> Source (None: not read)
    derive: dict[str, Derive]  # table -> quantities of one device -> stored columns
    describe_unread: Callable[[list[CounterPath]], dict[str, Any]]  # meta about the columns not read
    check: Callable[[dict[tuple[str, str], DeviceSpec], WarnFn], None] | None = None
    prepare: Callable[[list[CounterPath]], Classify] | None = None  # a classifier built from all the header's paths
    month_first: bool = False  # the tool always writes MM/DD/YYYY (ESXi): no warning when no day above 12 says so
    # the values of a device whose columns are known by their place: a sentence when they contradict that reading
    verify: Callable[[dict[str, np.ndarray]], str | None] | None = None


# ---- time stamps --------------------------------------------------------------------------------------------
_DATE_BYTES = re.compile(rb'^"?(\d{1,4})([./-])(\d{1,2})[./-](\d{1,4})[ T](\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?\s*'
                         rb'([AaPp])?')


@dataclass
class RowDates:
    """What every row's printed date says about the day/month order (a quick pass over the rows): each distinct
    date once, the last and first stamp around every change of date, and the median step of the clock within a
    day -- all :func:`parsers.dates.decide` weighs."""

    dated: list[Dated] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)
    words: Words = field(default_factory=Words)  # a few of its dates as printed (their separators say a locale)

    def decision(self, given: str | None, tool_order: str | None = None, tool: str = "") -> Decision:
        """The order of the rows' dates; ``tool_order``: the one order the tool ever writes (esxtop's month first),
        used where the dates read both ways. A date no order reads leaves the order month first, the tool's: the
        row is then refused with its line when it is read."""
        interval = statistics.median(self.steps) if self.steps else None
        try:
            d = decide(self.dated, self.words, interval=interval, given=given)
        except ValueError:
            return Decision("MDY", True, "a date no order reads")
        if not d.decided and tool_order in d.readings:
            return Decision(tool_order, True, f"as {tool} writes it")
        return d

    def reading(self, d: Decision) -> dict[str, Any]:
        """``runs.meta.date_reading`` of an undecided order: the order stored, and every date read otherwise."""
        others = {o: {read(x.parts, x.year_first, d.order).isoformat(): read(x.parts, x.year_first, o).isoformat()
                      for x in self.dated} for o in d.readings[1:]}
        return {"stored": d.order, "others": others}


def scan_dates(path: str, header_line: int, pattern: re.Pattern[bytes] = _DATE_BYTES, search: bool = False
               ) -> RowDates:
    """The dates of every row after the header (``pattern``: a date then a time, at the start of the row or, with
    ``search``, anywhere in it)."""
    out = RowDates()
    seen: set[tuple[int, int, int]] = set()
    prev: Dated | None = None
    prev_secs = 0
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh, 1):
            if i <= header_line:
                continue
            m = pattern.search(raw, 0, 200) if search else pattern.match(raw, 0, 60)
            if m is None:
                continue
            a, b, c = int(m.group(1)), int(m.group(3)), int(m.group(4))
            h, mi, sec = int(m.group(5)), int(m.group(6)), int(m.group(7))
            if m.group(8):
                h = h % 12 + (12 if m.group(8) in b"Pp" else 0)
            secs = h * 3600 + mi * 60 + sec
            here = Dated((a, b, c), len(m.group(1)) == 4, secs,
                         raw[m.start(1): m.end(7)].decode("latin-1"))
            if (a, b, c) not in seen:
                seen.add((a, b, c))
                out.dated.append(Dated(here.parts, here.year_first, None, here.text))
                out.words.add_date(raw[m.start(1): m.end(4)].decode("latin-1"))
            if prev is not None and prev.parts != here.parts:
                out.dated += [prev, here]
            elif prev is not None and secs > prev_secs and len(out.steps) < 10_000:
                out.steps.append(secs - prev_secs)
            prev, prev_secs = here, secs
    return out


def read_stamp(text: str, order: str, line: int) -> datetime:
    """One time stamp as printed, its date read in ``order``."""
    m = _STAMP.match(text.strip())
    if m is None:
        raise ParseError(f"{text.strip()[:40]!r} is not a time stamp as perfmon writes it (MM/DD/YYYY HH:MM:SS.mmm "
                         "or the locale's date): was the file re-saved by a spreadsheet?", line)
    a, _sep, b, c, hh, mi, ss, frac, ampm = m.groups()
    h = int(hh)
    if ampm:
        h = (h % 12) + (12 if ampm.lower() == "p" else 0)
    x, y_, z = int(a), int(b), int(c)
    y, mo, d = (x, y_, z) if order == "YMD" else (z, y_, x) if order == "DMY" else (z, x, y_)
    if y < 100:
        y += 2000 if y < 70 else 1900
    try:
        return datetime(y, mo, d, h, int(mi), int(ss), int((frac or "0").ljust(6, "0")))
    except ValueError:
        names = {"MDY": "month/day/year", "DMY": "day/month/year", "YMD": "year-month-day"}
        raise ParseError(f"impossible date or time in {text.strip()!r} (dates read as {names[order]})",
                         line) from None


# ---- a chunk of rows ----------------------------------------------------------------------------------------
@dataclass
class _Chunk:
    """Rows of the file: their line numbers, time stamp cells and selected cells (flat: row after row, or column
    after column when ``column_major``); ``cell(r, c)`` is row r's selected cell c as the file has it."""

    lines: list[int]
    stamps: list[str]
    values: pl.Series
    column_major: bool
    cell: Callable[[int, int], str]


def _row_chunk(chunk: tuple[list[int], list[str], list[tuple[str, ...]]]) -> _Chunk:
    lines, stamps, cells = chunk
    values = pl.Series("v", list(itertools.chain.from_iterable(cells)), dtype=pl.String)
    return _Chunk(lines, stamps, values, False, lambda r, c: cells[r][c])


def _column_cell(columns: list[pl.Series]) -> Callable[[int, int], str]:
    return lambda r, c: str(columns[c][r])


def plain_block(block: list[bytes], n_fields: int, delimiter: str) -> bytes | None:
    """The rows of ``block`` (lines as read, each with its line break) joined by ``\\n`` when every one is plain:
    ``n_fields`` fields, each in double quotes without a quote, line break or NUL inside, ASCII, a time stamp
    that is not blank, no field longer than Python's CSV reader takes. Then a CSV reader would split each line at
    exactly its ``","`` separators, which is what a bulk reader does too. None when any row is not plain (blank,
    cut off, unquoted, odd quoting, another text encoding …): such rows go through the CSV reader and its checks.

    Counted, not parsed: a row with n-1 separators ``","`` that neither starts nor ends one has at least 2n
    quotes (its first and last byte and two per separator, all different bytes); the block having 2n quotes a row
    in all leaves no other quote anywhere, so each field is exactly the bytes between two separators."""
    sep = f'"{delimiter}"'.encode("ascii")
    rows: list[bytes] = []
    for b in block:
        b = b[:-2] if b.endswith(b"\r\n") else b[:-1] if b.endswith(b"\n") else b""  # no break: may be cut off
        if (len(b) < 2 or b[0] != 34 or b[-1] != 34 or b.count(sep) != n_fields - 1
                or b.startswith(sep) or b.endswith(sep)):
            return None
        end = b.find(sep)
        if not b[1:end if end >= 0 else -1].strip():  # a blank time stamp: a blank row (skipped) or an error
            return None
        rows.append(b)
    body = b"\n".join(rows)
    if (body.count(b'"') != 2 * n_fields * len(rows) or not body.isascii() or b"\r" in body or b"\x00" in body
            or (max(map(len, rows)) >= csv.field_size_limit() and _longest_field(body) >= csv.field_size_limit())):
        return None
    return body


def _longest_field(body: bytes) -> int:
    """The longest field of a block whose quotes open and close fields in turn."""
    quotes = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == 34)
    return int((quotes[1::2] - quotes[0::2]).max()) - 1


def _first(mask: np.ndarray, n: int, k: int, column_major: bool) -> tuple[int, int]:
    """The row and column of the first True of a chunk's cells, in the file's order (row after row)."""
    if column_major:
        mask = mask.reshape(k, n).T.ravel()
    r, c = divmod(int(np.argmax(mask)), k)
    return r, c


def _separators(s: pl.Series, n: int, k: int, column_major: bool) -> tuple[bool, bool]:
    """Whether the chunk's first ``COMMA_SAMPLE`` values (row after row, blanks left out) hold a decimal comma
    number, and a dot: what tells a locale that writes decimal commas."""
    if not column_major:
        sample = s.drop_nulls().head(COMMA_SAMPLE)
        comma_any = bool(sample.str.contains(_COMMA_NUMBER.pattern).any())
        return comma_any, bool(sample.str.contains(".", literal=True).any())
    order = np.arange(n * k).reshape(k, n).T.ravel()  # position in the file's order -> index in s
    first = order[s.is_not_null().to_numpy()[order]][:COMMA_SAMPLE]
    comma = s.str.contains(_COMMA_NUMBER.pattern).fill_null(False).to_numpy()
    dot = s.str.contains(".", literal=True).fill_null(False).to_numpy()
    return bool(comma[first].any()), bool(dot[first].any())


# ---- the reader ---------------------------------------------------------------------------------------------
@dataclass
class _Run:
    key: str
    devices: dict[tuple[str, str], DeviceSpec]  # (table, device or "") -> spec
    by_place: dict[str, str] = field(default_factory=dict)  # "Object\\Counter" as printed -> in English




class PdhReader:
    """Streams a PDH-CSV file into per-host runs of iostat_samples (and cpu_samples) for one format."""

    bulk = True  # plain rows read in bulk (False: every row through the CSV reader; the tests compare the two)

    def __init__(self, path: str, spec: FormatSpec, options: ImportOptions, state: JobState, warn: WarnFn):
        self.path = path
        self.spec = spec
        self.opt = options
        self.state = state
        self.warn = warn
        self.header = read_header(path, spec.what)
        self.decimal_comma: bool | None = None
        self.t0: datetime | None = None

    # -- columns ----------------------------------------------------------------------------------------------
    def _odd_cells(self, odd: list[tuple[int, str]], classify: Classify) -> None:
        """Header cells that are no counter path, or hold stray quotes: damage in a counter StormScope reads (the
        cell read without its quotes is one) is an error naming the cell; any other such column is skipped
        without being read or checked, and all of them are said in one warning -- one odd cell of a counter
        StormScope never reads (a 17,000-column esxtop capture's CPU power state) does not lose the file."""
        if not odd:
            return
        read = {cp.counter.strip().casefold() for cell in self.header.cells[1:] if '"' not in cell
                and (cp := parse_counter_path(cell)) is not None and classify(cp) is not None}
        for i, cell in odd:
            cp = parse_counter_path(cell.replace('"', ""))
            if cp is not None and classify(cp) is not None:
                raise ParseError(f"header cell {i + 1} \"{cell[:80]}\" holds stray quotes in a counter StormScope "
                                 f"reads ({cp.obj}\\{cp.counter}): its column cannot be trusted", self.header.line)
            if cp is None and cell.replace('"', "").rsplit("\\", 1)[-1].strip().casefold() in read:
                raise ParseError(f"header cell {i + 1} \"{cell[:80]}\" is not a counter path (\\\\host\\object"
                                 "(instance)\\counter), and it names a counter StormScope reads",
                                 self.header.line)
        shown = "; ".join(f"cell {i + 1} \"{cell[:60]}\"" for i, cell in odd[:3])
        self.warn(f"{len(odd):,} header cell{'s' if len(odd) > 1 else ''} that {'are' if len(odd) > 1 else 'is'} "
                  f"no counter path or hold{'' if len(odd) > 1 else 's'} stray quotes, of counters StormScope does "
                  f"not read: skipped, not read ({shown}{' …' if len(odd) > 3 else ''})", self.header.line)

    def _select(self) -> tuple[list[int], dict[str, _Run], list[CounterPath]]:
        """The columns the format reads (positions in the row), the runs (one per host) and the paths not read."""
        cols: list[int] = []
        runs: dict[str, _Run] = {}
        hosts: dict[str, str] = {}  # casefolded -> as first printed (host names ignore case)
        unread: list[CounterPath] = []
        seen: set[tuple[str, str, str, str]] = set()
        paths: list[tuple[int, CounterPath]] = []
        odd: list[tuple[int, str]] = []  # cells that are no counter path, or hold stray quotes
        for i, cell in enumerate(self.header.cells[1:], 1):
            cp = parse_counter_path(cell)
            if cp is None:
                if i == len(self.header.cells) - 1 and not cell.strip():
                    continue  # a trailing comma
                odd.append((i, cell))
                continue
            if '"' in cell:
                odd.append((i, cell))
            paths.append((i, cp))
        classify = self.spec.prepare([p for _, p in paths]) if self.spec.prepare else self.spec.classify
        self._odd_cells(odd, classify)
        paths = [(i, cp) for i, cp in paths if '"' not in self.header.cells[i]]
        for i, cp in paths:
            cell = self.header.cells[i]
            src = classify(cp)
            if src is None:
                unread.append(cp)
                continue
            host = hosts.setdefault(src.host.casefold(), src.host)
            ident = (host.casefold(), src.table, src.device or "", src.quantity)
            if ident in seen:
                self.warn(f"column {i + 1} repeats \"{cell}\": the first one is read", self.header.line)
                continue
            seen.add(ident)
            run = runs.setdefault(host, _Run(host, {}))
            dev = run.devices.setdefault((src.table, src.device or ""), DeviceSpec(src.device, src.layer, src.vm))
            dev.quantities[src.quantity] = len(cols)
            if src.by_place is not None:
                dev.by_place.add(src.quantity)
                run.by_place[f"{cp.obj}\\{cp.counter}"] = src.by_place
            cols.append(i)
        if not runs:
            objs = sorted({p.obj for p in unread})
            raise ParseError(f"no counter StormScope reads ({len(self.header.cells) - 1} columns; objects: "
                             f"{', '.join(objs[:8]) or 'none'}{' …' if len(objs) > 8 else ''}): not "
                             f"{self.spec.what} with disk counters", self.header.line)
        if self.spec.check is not None:
            for run in runs.values():
                self.spec.check(run.devices, self.warn)
        for run in runs.values():
            self._said_by_place(run)
        return cols, runs, unread

    def _said_by_place(self, run: _Run) -> None:
        """Columns known by their place in the log, not their names (a display language StormScope has no names
        for): said in a warning that asks the user to confirm -- unless the user already did (the import option)."""
        if not run.by_place:
            return
        pairs = list(run.by_place.items())
        shown = "; ".join(f"{k} = {v}" for k, v in pairs[:3]) + (" …" if len(pairs) > 3 else "")
        if self.opt.counters_by_place == "read":
            self.warn(f"{len(pairs)} counter names StormScope does not know were read by their place in the log "
                      f"and their values, as you confirmed: {shown}", self.header.line)
        else:
            self.warn(f"{len(pairs)} counter names StormScope does not know (a Windows display language it has no "
                      f"names for) look by their place in the log and their values like {shown}: read so until you "
                      "confirm or reject it with {fix:counters_by_place}", self.header.line)

    def columns(self) -> list[int]:
        """The positions of the columns the format reads (what a benchmark's yardstick reads too)."""
        return self._select()[0]

    # -- rows ---------------------------------------------------------------------------------------------------
    def _rows(self, cols: list[int]) -> Iterator[_Chunk]:
        """The file's rows below the header, a chunk at a time. Blocks of plain rows (every field quoted, nothing
        that needs a CSV reader's judgement) are read in bulk, only the selected columns (:meth:`_bulk_rows`);
        from the first block that is not plain on, every row goes through the CSV reader (:meth:`_csv_rows`)."""
        per_chunk = max(1, min(MAX_CHUNK_ROWS, CHUNK_CELLS // max(1, len(cols))))
        with open(self.path, "rb") as raw:
            size = raw.seek(0, 2) or 1
            raw.seek(-1, 2)
            tail = raw.read(1)
            # no line break at the end: the last row may be cut; in a quoted layout its missing closing quote says so
            cut_tail = tail not in (b"\n", b"\r") and (tail != b'"' or not self.header.quoted)
            raw.seek(0)
            for _ in range(self.header.line):  # the header and what precedes it, as read_header read them: bytes
                raw.readline()
            resume: tuple[int, int] | None = (raw.tell(), self.header.line)
            if self.header.quoted and self.bulk:
                resume = yield from self._bulk_rows(raw, cols, per_chunk, size)
            if resume is not None:
                raw.seek(resume[0])
                yield from self._csv_rows(raw, cols, per_chunk, size, resume[1], cut_tail)

    def _bulk_rows(self, raw: io.BufferedReader, cols: list[int], per_chunk: int,
                   size: int) -> Generator[_Chunk, None, tuple[int, int] | None]:
        """Chunks of plain rows read by polars, only the selected columns; returns where the CSV reader takes over
        (the byte offset and the line before it: the first chunk that is not plain, see :func:`plain_block`), or
        None at the end of the file. The columns are the ones :meth:`_select` chose by their header names."""
        n_fields = len(self.header.cells)
        line = self.header.line
        while True:
            offset = raw.tell()
            block = list(itertools.islice(iter(raw.readline, b""), per_chunk))
            if not block:
                return None
            body = plain_block(block, n_fields, self.header.delimiter)
            if body is None:
                return offset, line
            frame = pl.read_csv(body, has_header=False, columns=[0, *cols], infer_schema=False, quote_char='"',
                                separator=self.header.delimiter)
            if frame.shape != (len(block), len(cols) + 1):  # never seen: the CSV reader decides
                return offset, line
            values = [frame.to_series(i) for i in range(1, frame.width)]
            if raw.tell() < size:
                self.state.progress(raw.tell() / size, "reading")
            yield _Chunk(list(range(line + 1, line + len(block) + 1)), frame.to_series(0).to_list(),
                         pl.concat(values), True, _column_cell(values))
            line += len(block)

    def _csv_rows(self, raw: io.BufferedReader, cols: list[int], per_chunk: int, size: int, line0: int,
                  cut_tail: bool) -> Iterator[_Chunk]:
        """Chunks of rows read by Python's CSV reader from the reader's position (below line ``line0``)."""
        pick = operator.itemgetter(*cols) if len(cols) > 1 else (lambda r: (r[cols[0]],))
        # closed here (and with it the file): a wrapper left for the collector would be reported as not closed
        with io.TextIOWrapper(raw, encoding=self.header.encoding, errors="strict", newline="") as text:
            reader = csv.reader(text, delimiter=self.header.delimiter)
            chunk: tuple[list[int], list[str], list[tuple[str, ...]]] = ([], [], [])
            pending: tuple[int, list[str]] | None = None
            try:
                for row in reader:
                    if pending is not None:
                        self._keep(pending, pick, chunk, last=False)
                        if len(chunk[0]) >= per_chunk:
                            self.state.progress(raw.tell() / size, "reading")
                            yield _row_chunk(chunk)
                            chunk = ([], [], [])
                    line = line0 + reader.line_num
                    pending = (line, row) if any(c.strip() for c in row) else None
            except UnicodeDecodeError as e:  # decoded a block at a time: the line is found again, byte by byte
                raise ParseError(f"not {self.header.encoding} text ({e.reason}) as the header is",
                                 self._undecodable_line()) from None
            except csv.Error as e:
                raise ParseError(f"unreadable CSV ({e})", line0 + reader.line_num) from None
            if pending is not None:
                self._keep(pending, pick, chunk, last=cut_tail)
            if chunk[0]:
                yield _row_chunk(chunk)

    def _undecodable_line(self) -> int | None:
        """The first line below the header that is not text in the header's encoding."""
        with open(self.path, "rb") as raw:
            for n, line in enumerate(raw, 1):
                if n > self.header.line:
                    try:
                        line.decode(self.header.encoding)
                    except UnicodeDecodeError:
                        return n
        return None

    def _keep(self, pending: tuple[int, list[str]], pick: Callable[[list[str]], tuple[str, ...]],
              chunk: tuple[list[int], list[str], list[tuple[str, ...]]], last: bool) -> None:
        """Add one row to the chunk; only the file's last row, cut off, is left out (with a warning)."""
        line, row = pending
        n_fields = len(self.header.cells)
        if len(row) != n_fields and not (len(row) == n_fields + 1 and not row[-1].strip()):
            if last and len(row) < n_fields:
                self.warn(f"the last row is cut off ({len(row)} of {n_fields} fields): left out", line)
                return
            raise ParseError(f"expected {n_fields} fields (a time stamp and {n_fields - 1} values, as the header "
                             f"says), found {len(row)}", line)
        vals = pick(row)
        if last and (self.header.quoted or any(v.strip() and not _NUMBER_RE.match(v.strip().replace(",", "."))
                                               for v in vals)):
            self.warn("the file ends in the middle of its last row (no line break, a value cut off): the row is "
                      "left out", line)
            return
        chunk[0].append(line)
        chunk[1].append(row[0])
        chunk[2].append(vals)

    # -- values -------------------------------------------------------------------------------------------------
    def _values(self, chunk: _Chunk, cols: list[int]) -> np.ndarray:
        """The chunk's selected cells as floats (rows x columns), NaN where the tool left the value blank."""
        k, n = len(cols), len(chunk.lines)
        s = chunk.values.str.strip_chars()
        s = pl.select(pl.when(s == "").then(None).otherwise(s).alias("v")).to_series()
        if self.decimal_comma is None:
            comma, dot = _separators(s, n, k, chunk.column_major)
            if comma or dot:
                self.decimal_comma = comma and not dot
        if self.decimal_comma:
            s = s.str.replace(",", ".", literal=True)
        bad = (~s.str.contains(_NUMBER)).fill_null(False)
        if bad.any():
            r, c = _first(bad.to_numpy(), n, k, chunk.column_major)
            value = chunk.cell(r, c).strip()
            cut = " (an exponent without digits: the value looks cut)" if re.search(r"[eE][-+]?$", value) else ""
            raise ParseError(f"{value[:40]!r} is not a number{cut}; column {cols[c] + 1}: "
                             f"{self.header.cells[cols[c]]}", chunk.lines[r])
        vals = s.cast(pl.Float64).to_numpy().astype(np.float64, copy=False)
        inf = np.isinf(vals)
        if inf.any():
            r, c = _first(inf, n, k, chunk.column_major)
            raise ParseError(f"number {chunk.cell(r, c).strip()[:24]!r} is out of range; column {cols[c] + 1}: "
                             f"{self.header.cells[cols[c]]}", chunk.lines[r])
        return vals.reshape(k, n).T if chunk.column_major else vals.reshape(n, k)

    # -- frames -------------------------------------------------------------------------------------------------
    def _frames(self, run: _Run, vals: np.ndarray, first: int, ts: list[datetime]) -> Iterator[Rows]:
        n = vals.shape[0]
        assert self.t0 is not None
        t_s = np.array([(t - self.t0).total_seconds() for t in ts], dtype=np.float64)
        for table in ("iostat_samples", "cpu_samples"):
            devs = [d for (t, _), d in run.devices.items() if t == table]
            if not devs:
                continue
            columns: dict[str, list[np.ndarray]] = {}
            missing = np.full(n, np.nan)  # shared by every device that lacks a figure (only read, never written)
            for j, d in enumerate(devs):
                q = {q: vals[:, pos] for q, pos in d.quantities.items()}
                if d.by_place and self.spec.verify is not None and (problem := self.spec.verify(q)) is not None:
                    raise ParseError(f"the counters of {d.device or 'the processors'} have names StormScope does not "
                                     f"know, and their values do not match what their place in the log says they "
                                     f"are: {problem}", None)
                out = self.spec.derive[table](q, n)
                for m in out:
                    columns.setdefault(m, [missing] * j)
                for m, parts in columns.items():
                    parts.append(out.get(m, missing))
            which = np.repeat(np.arange(len(devs)), n)
            frame = pl.DataFrame({
                "sample_idx": np.tile(np.arange(first, first + n, dtype=np.int64), len(devs)),
                "ts": pl.Series(ts, dtype=pl.Datetime("us")).gather(np.tile(np.arange(n), len(devs))),
                "t_s": np.tile(t_s, len(devs)),
                **{m: pl.Series(m, np.concatenate(parts), dtype=pl.Float64, nan_to_null=True)
                   for m, parts in columns.items()},
            })
            if table == "iostat_samples":
                frame = frame.with_columns(
                    pl.Series("device", [d.device for d in devs], dtype=pl.String).gather(which),
                    pl.Series("layer", [d.layer for d in devs], dtype=pl.String).gather(which),
                    pl.Series("vm", [d.vm for d in devs], dtype=pl.String).gather(which),
                    pl.lit(False).alias("since_boot"), pl.lit(False).alias("is_group"))
            schema = frame_schema(table, frame.columns)
            yield Rows(run.key, table, frame.cast(schema))  # type: ignore[arg-type]  # polars takes a dtype dict

    # -- the whole file -----------------------------------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        cols, runs, unread = self._select()
        if self.header.junk:
            self.warn(f"text before the PDH header left out: \"{self.header.junk[:80]}\"", self.header.line)
        rows = scan_dates(self.path, self.header.line)
        dating = rows.decision(self.opt.date_order, "MDY" if self.spec.month_first else None, self.spec.tool)
        order = dating.order
        ts_all: list[datetime] = []
        lines_all: list[int] = []
        for chunk in self._rows(cols):
            lines = chunk.lines
            ts = [read_stamp(text, order, line) for text, line in zip(chunk.stamps, lines)]
            if self.t0 is None:
                self.t0 = ts[0]
                for run in runs.values():
                    yield RunStart(run.key, self._info(run, [], None, dating, rows, None))
            vals = self._values(chunk, cols)
            for run in runs.values():
                yield from self._frames(run, vals, len(ts_all), ts)
            ts_all += ts
            lines_all += lines
        if not ts_all:
            raise ParseError("no samples after the header", self.header.line)
        if not dating.decided:
            self.warn(f"the dates read both ways ({rows.dated[0].text!r}: "
                      + " or ".join(ORDER_NAMES[o] for o in dating.readings) + ") and nothing in the file decides "
                      f"which: they are stored read {ORDER_NAMES[order]} until you say which with {DATE_ORDER_FIX}",
                      None)
        back = [i for i in range(1, len(ts_all)) if ts_all[i] <= ts_all[i - 1]]
        if back:
            i = back[0]
            more = f" ({len(back)} times)" if len(back) > 1 else ""
            self.warn(f"the clock stood still or went back by {(ts_all[i - 1] - ts_all[i]).total_seconds():g} s "
                      f"(daylight saving time ends?){more}: samples keep their printed times", lines_all[i])
        diffs = sorted((b - a).total_seconds() for a, b in zip(ts_all, ts_all[1:]) if b > a)
        interval = round(diffs[len(diffs) // 2], 3) if diffs else None
        for run in runs.values():
            info = self._info(run, ts_all, interval, dating, rows, unread)
            devices = {d.device for (t, _), d in run.devices.items() if t == "iostat_samples"}
            yield RunEnd(run.key, {"n_samples": len(ts_all), "n_devices": len(devices), "ended_at": ts_all[-1]},
                         info)

    def _info(self, run: _Run, ts: list[datetime], interval: float | None, dating: Decision, rows: RowDates,
              unread: list[CounterPath] | None) -> RunInfo:
        h = self.header
        # a PDH rate is the average since the previous sample (the series takes each sample's length from the stamps)
        meta: dict[str, Any] = {"pdh": f"PDH-{h.fmt} {h.version}", "sample_span": "since_previous"}
        if h.zone is not None:
            meta["time_zone"] = h.zone
        if h.utc_offset is not None:
            meta["utc_offset"] = h.utc_offset
            meta["pdh_bias_min"] = h.bias
        if h.encoding != "utf-8":
            meta["encoding"] = h.encoding
        if self.decimal_comma:
            meta["decimal_comma"] = True
        meta["date_order"] = dating.note
        if not dating.decided:
            meta["date_reading"] = rows.reading(dating)
        meta["devices_by_layer"] = _by_layer(run)
        if run.by_place:
            meta["counters_by_place"] = {
                "names": dict(sorted(run.by_place.items())),
                "columns": {d.device or "cpu": self._columns_by_place(t, d) for (t, _), d in run.devices.items()
                            if d.by_place},
                "state": "confirmed when imported" if self.opt.counters_by_place == "read" else "not confirmed"}
        if unread is not None:
            meta.update(self.spec.describe_unread(
                [p for p in unread if p.host is None or p.host.casefold() == run.key.casefold()]))
        return RunInfo(kind=self.spec.kind, host=run.key, tool_version=f"{self.spec.tool} (PDH-{h.fmt} {h.version})",
                       os=self.spec.os, file_date=ts[0].date() if ts else None, started_at=ts[0] if ts else None,
                       interval_s=interval, interval_source="timestamps" if interval else None, meta=meta)


    def _columns_by_place(self, table: str, d: DeviceSpec) -> list[str]:
        """The stored columns of ``d`` whose values come from a counter known by its place: the device's columns
        made with and without those counters (each counter a value of its own) differ there."""
        given = {q: np.array([float(k + 1)]) for k, q in enumerate(sorted(d.quantities))}
        every = self.spec.derive[table](given, 1)
        named = self.spec.derive[table]({q: v for q, v in given.items() if q not in d.by_place}, 1)
        return sorted(c for c, v in every.items() if c not in named or not np.array_equal(named[c], v))


def _by_layer(run: _Run) -> dict[str, int]:
    out: dict[str, int] = {}
    for (t, _), d in run.devices.items():
        if t == "iostat_samples":
            out[d.layer or "device"] = out.get(d.layer or "device", 0) + 1
    return dict(sorted(out.items()))

