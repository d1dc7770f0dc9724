"""Shared vocabulary of all format parsers.

A parser turns one source file into a stream of *events* that the workspace
stores inside one transaction:

* :class:`RunStart` opens a run (one per source file, or one per host when a
  file holds several hosts),
* :class:`Rows` carries a polars frame for one table of that run (a parser may
  send many, so large files stream in bounded memory),
* :class:`SampleTimes` corrects, once the whole file is read, the times of samples streamed earlier,
* :class:`SinceBoot` marks reports that cover the time since boot (kept, left out of the analyses),
* :class:`RunEnd` carries what is only known at the end (interval, period ...).

Every event names a table of :mod:`parsers.schema`; there are no private pseudo-tables.

Parsers never touch DuckDB or Qt. Errors are raised as :class:`ParseError`
naming the line, and everything a user should know but that did not stop the
import is reported through ``warn``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

if TYPE_CHECKING:
    from parsers.semantics import Semantics


class ParseError(Exception):
    """Bad input. ``line`` is 1-based (None when the problem is not tied to a line)."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line

    def located(self, path: str) -> str:
        where = f"{path}:{self.line}" if self.line else path
        return f"{where}: {self.message}"


def decode(data: bytes, encoding: str = "utf-8") -> tuple[str, str]:
    """Text of ``data`` and the encoding it was read in: UTF-8, else Windows-1252 (device and job names typed on a
    Windows machine: ``Données``), else Latin-1 -- never U+FFFD. A file that needed Windows-1252 once is read so to
    its end (pass the encoding returned)."""
    if encoding == "utf-8":
        try:
            return data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:  # the five bytes Windows-1252 leaves undefined
        return data.decode("latin-1"), "latin-1"


MAX_LINE = 64 * 1024  # a longer line is no trace's


class TextLines:
    """(line number, text) of a text file, streamed, line ends dropped; decoded by :func:`decode` line by line (UTF-8,
    else Windows-1252 from the first line that is not: ``encoding`` says which, for ``runs.meta.encoding``). A NUL
    byte or an absurdly long line is a ParseError naming the line and saying the file is not ``what``."""

    def __init__(self, path: str, what: str, state: JobState, progress_every: int = 20000):
        self.path, self.what, self.state, self.every = path, what, state, progress_every
        self.encoding = "utf-8"

    def __iter__(self) -> Iterator[tuple[int, str]]:
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            total = fh.tell() or 1
            fh.seek(0)
            for n, raw in enumerate(fh, 1):
                if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if b"\x00" in raw:
                    raise ParseError(f"binary data (NUL byte): not {self.what}", n)
                if len(raw) > MAX_LINE:
                    raise ParseError(f"a line of {len(raw):,} characters: not {self.what}", n)
                if n % self.every == 0:
                    self.state.progress(fh.tell() / total, "reading")
                text, self.encoding = decode(raw.rstrip(b"\r\n"), self.encoding)
                yield n, text


MAX_TEXT_BYTES = 256 * 1024 * 1024  # a file read whole (fio JSON, DiskSpd, IOzone, Iometer ...): tools write MBs


def read_text(path: str, what: str) -> str:
    """A whole small text file (a byte-order mark dropped; UTF-8, else Windows-1252, see :func:`decode`). A NUL
    byte means binary data: a ParseError naming its line and saying the file is not ``what``. A file larger than
    MAX_TEXT_BYTES is refused before it is read (it would take several times its size in memory)."""
    with open(path, "rb") as fh:
        raw = fh.read(MAX_TEXT_BYTES + 1)
    if len(raw) > MAX_TEXT_BYTES:
        raise ParseError(f"larger than the {MAX_TEXT_BYTES // 1024 // 1024} MB StormScope reads of {what} (no tool "
                         "writes one that large; the file is damaged or not what it seems)", None)
    if b"\x00" in raw:
        raise ParseError(f"binary data (NUL byte): not {what}", raw[: raw.index(b"\x00")].count(b"\n") + 1)
    return decode(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)[0]


def parse_json(text: str, start: int = 0, unique_keys: bool = False) -> tuple[Any, int]:
    """``json.JSONDecoder.raw_decode`` from ``start`` with ParseErrors that name the line: JSON cut off, and
    numbers no measuring tool prints (NaN, Infinity, 1e309, integers of more than 18 digits, which neither
    a float nor a 64-bit column holds exactly). ``unique_keys``: a key given twice in one object is refused too
    (Python's decoder keeps the last silently; for a format whose keys are its columns that is a silent guess)."""
    import json
    import math
    import re

    def line_of(token: str) -> int | None:
        m = re.search(r"(?<![\w.])" + re.escape(token) + r"(?![\w.])", text[start:])
        return text.count("\n", 0, start + m.start()) + 1 if m else None

    def no_constant(name: str) -> Any:
        raise ParseError(f"{name} is not a number a measuring tool prints", line_of(name))

    def big_int(s: str) -> int:
        if len(s.lstrip("-")) > 18:
            raise ParseError(f"a number of {len(s.lstrip('-')):,} digits ({s[:12]}…): not a value a measuring tool "
                             "prints", line_of(s))
        return int(s)

    def finite(s: str) -> float:
        v = float(s)
        if not math.isfinite(v):
            raise ParseError(f"number {s[:20]!r} is out of range", line_of(s))
        return v

    def once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            key = next(k for i, (k, _v) in enumerate(pairs) if k in dict(pairs[:i]))
            k = re.escape(json.dumps(key))
            twice = re.search(k + r"\s*:[^{}]*?(" + k + r")\s*:", text[start:])  # its second time, in a flat object
            line = text.count("\n", 0, start + twice.start(1)) + 1 if twice else line_of(json.dumps(key))
            raise ParseError(f"the key {key!r} is given twice in one object: which value is meant cannot be told",
                             line)
        return out

    _check_strings(text, start)
    dec = json.JSONDecoder(parse_constant=no_constant, parse_int=big_int, parse_float=finite,
                           object_pairs_hook=once if unique_keys else None)
    try:
        return dec.raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise ParseError(f"invalid JSON ({e.msg}); the file may be cut off", e.lineno) from None
    except RecursionError:  # Python's decoder recurses per level: a hostile file nests 200,000 deep
        raise ParseError(f"JSON nested more than {MAX_JSON_DEPTH:,} levels deep: no measuring tool writes that",
                         _line_too_deep(text, start, MAX_JSON_DEPTH)) from None


MAX_JSON_DEPTH = 200  # fio and iostat nest about 6 levels; Python's decoder gives up near its recursion limit
MAX_JSON_STRING = 64 * 1024  # characters of one JSON string (a job name, a device); no tool writes a longer one


def _check_strings(text: str, start: int) -> None:
    """Refuse a JSON text holding a string longer than MAX_JSON_STRING before it is decoded: a 1 GB job name took
    8.5 GB of memory to decode. Quote to quote, escapes not resolved (an escaped quote only shortens a piece)."""
    find = text.find
    pos = find('"', start)
    while pos != -1:
        end = find('"', pos + 1)
        if end == -1:
            end = len(text)
        if end - pos - 1 > MAX_JSON_STRING:
            raise ParseError(f"a JSON string of {end - pos - 1:,} characters: longer than the {MAX_JSON_STRING:,} "
                             "StormScope reads (no tool writes one that long; the file is damaged or hostile)",
                             text.count("\n", 0, pos) + 1)
        pos = find('"', end + 1)


def _line_too_deep(text: str, start: int, limit: int) -> int | None:
    """The line where JSON from ``start`` first nests deeper than ``limit`` (strings and escapes skipped)."""
    import re

    depth, in_string = 0, False
    for m in re.finditer(r'\\.|["\[\]{}]', text[start:]):
        tok = m.group()
        if tok[0] == "\\":
            continue
        if tok == '"':
            in_string = not in_string
        elif not in_string:
            depth += 1 if tok in "[{" else -1
            if depth > limit:
                return text.count("\n", 0, start + m.start()) + 1
    return None


class Cancelled(Exception):
    """The user cancelled a long job."""


class JobState:
    """Progress and cancellation for long jobs (plain object, no Qt).

    The GUI wraps it to forward progress to a progress bar; the CLI uses it
    as is. ``progress`` receives a fraction 0..1 and a short message.
    """

    def __init__(self, on_progress: Callable[[float, str], None] | None = None):
        self._on_progress = on_progress
        self._cancelled = False

    def cancel(self) -> None:
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def check(self) -> None:
        if self._cancelled:
            raise Cancelled("cancelled by the user")

    def progress(self, fraction: float, message: str = "") -> None:
        self.check()
        if self._on_progress is not None:
            self._on_progress(max(0.0, min(1.0, fraction)), message)


@dataclass
class ImportOptions:
    """What the user can tell an importer that the file does not say."""

    interval_s: float | None = None
    first_report: str = "auto"  # auto | since-boot | interval
    name: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    chunk_bytes: int = 4 * 1024 * 1024
    ram_gb: float | None = None  # the host's RAM (IOzone: a data set smaller than this was likely cached)
    mapping: dict[str, Any] | None = None  # a saved column mapping for CSV/TSV results (parsers.iomark)
    source_folder: str | None = None  # where the file was found: its companion files are looked for there
    date_order: str | None = None  # DMY | MDY | YMD: how to read dates the file itself cannot decide (None: ask)
    counters_by_place: str | None = None  # "read": the user confirms perfmon counters known by their place (None: ask)


@dataclass
class RunInfo:
    """Metadata of one run, as known when it starts."""

    kind: str
    host: str | None = None
    tool_version: str | None = None
    os: str | None = None
    file_date: date | None = None
    started_at: datetime | None = None
    interval_s: float | None = None
    interval_source: str | None = None  # timestamps | user | unknown
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunStart:
    key: str
    info: RunInfo


@dataclass
class Rows:
    key: str
    table: str
    frame: pl.DataFrame


@dataclass
class SampleTimes:
    """New times for samples already sent in ``table``: ``frame`` has ``sample_idx``, ``ts``, ``t_s`` and
    ``since_boot`` (the whole file changed the reading of dates streamed earlier, e.g. a day > 12 came late)."""

    key: str
    table: str
    frame: pl.DataFrame


@dataclass
class SinceBoot:
    """The samples ``sample_idx`` of ``table`` cover the time since boot (iostat without -y): stored, flagged
    ``since_boot`` and left out of the analyses."""

    key: str
    table: str
    sample_idx: list[int]


@dataclass
class RunEnd:
    """Closes a run; ``info`` (when given) replaces the metadata sent with RunStart."""

    key: str
    updates: dict[str, Any] = field(default_factory=dict)
    info: RunInfo | None = None


Event = RunStart | Rows | SampleTimes | SinceBoot | RunEnd
WarnFn = Callable[[str, "int | None"], None]


class Format(Protocol):
    """One supported file format (an entry of the registry, added by :func:`parsers.registry.register`)."""

    id: str  # stable identifier, e.g. "iostat-text"
    kind: str  # run kind stored in runs.kind, e.g. "iostat" (declared by parsers.kinds.register_kind)
    label: str
    priority: int  # breaks ties between equal sniff scores (higher wins); each format has its own
    semantics: Semantics  # what its data means (parsers.semantics): checked when it registers

    @property
    def tables(self) -> tuple[str, ...]:
        """The tables of parsers.schema its Rows events write (none for a refused format); a read-only member,
        so a format's class attribute ``tables = ("iostat_samples",)`` is one."""

    def sniff(self, head: bytes) -> float:
        """Likelihood 0..1 that ``head`` (the first KB of a file) is this format."""

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        """Parse the file at ``path`` into events."""
