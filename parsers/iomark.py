"""IOmark results as CSV: StormScope's own layout, and any CSV/TSV through a saved column mapping.

IOmark (VDI-IOmark, IOmark-VM) publishes PDF test reports; the layout of its own result files is
not public and no sample exists. Consultants have the numbers: per workload and phase the number
of users, IOPS, MB/s, average response time and the share of responses within thresholds. The
**StormScope IOmark results layout, v1** carries exactly that (see docs/user-guide.md, "IOmark results")::

    # StormScope IOmark results v1
    # system: 2 data servers, 48 x 7.2k SATA, RAID 10
    workload,phase,users,iops,mb_s,resp_avg_ms,pct_within_20ms,pct_within_50ms,passed,notes
    VDI-IOmark,steady,96,1824,28.5,62.3,,3,false,one data server

* One header row of column names (any order, any case); ``,``, ``;`` or TAB separated.
* ``#`` lines before the header are comments; ``# key: value`` comments are kept in ``runs.meta``.
* Required: ``workload``, ``users`` and at least one measure. Percentages are 0-100 (a trailing
  ``%`` is allowed); ``passed`` is true/false/yes/no/pass/fail/1/0; ``ts`` an ISO date-time,
  ``t_s`` seconds (or ``hh:mm:ss``). Columns StormScope does not know are kept, as text, in
  ``extra`` (JSON), so nothing in the file is lost.

A **mapping** (``ImportOptions.mapping``, saved in the workspace by ``main.py mapping save``) says
which column of any other CSV/TSV holds which of these values, with an optional factor per column
(e.g. 0.001 for a response time in µs), fixed values for columns the file lacks (``workload``),
the delimiter, the decimal mark and lines to skip before the header.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import IOMARK, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import LIST, OBJ, TEXT, Counts, MetaKey, Semantics, Span, common

LAYOUT = "StormScope IOmark results v1"

# target column -> type ("text", "int", "float", "pct", "bool", "ts", "seconds")
IOMARK_COLUMNS: dict[str, str] = {
    "workload": "text", "phase": "text", "users": "int", "ts": "ts", "t_s": "seconds",
    "iops": "float", "read_iops": "float", "write_iops": "float", "mb_s": "float",
    "resp_avg_ms": "float", "resp_max_ms": "float", "pct_within_20ms": "pct", "pct_within_50ms": "pct",
    "passed": "bool", "notes": "text",
}
MEASURES = ("iops", "read_iops", "write_iops", "mb_s", "resp_avg_ms", "resp_max_ms", "pct_within_20ms",
            "pct_within_50ms")
# mapping kinds: the target table and its columns (only IOmark so far)
TARGETS: dict[str, dict[str, Any]] = {"iomark": {"table": "iomark_results", "columns": IOMARK_COLUMNS}}
DELIMITERS = {",": ",", ";": ";", "\t": "\t", "tab": "\t", "|": "|"}
SCHEMA: dict[str, Any] = frame_schema("iomark_results")
if not set(IOMARK_COLUMNS) <= set(SCHEMA):
    raise ValueError("parsers.iomark: a mapping target without its iomark_results column")
_TRUE = {"true", "yes", "y", "pass", "passed", "ok", "1"}
_FALSE = {"false", "no", "n", "fail", "failed", "0"}


class MappingError(ValueError):
    """A column mapping that cannot work (unknown kind or column, bad factor ...)."""


def validate_mapping(spec: dict[str, Any]) -> dict[str, Any]:
    """The mapping ``spec`` checked and normalised; raises :class:`MappingError` with the reason."""
    for key in ("columns", "constants", "scale"):
        if not isinstance(spec.get(key) or {}, dict):
            raise MappingError(f"{key} must be pairs of names (COLUMN=VALUE), not {type(spec.get(key)).__name__}")
    kind = spec.get("kind") or "iomark"
    if not isinstance(kind, str) or kind not in TARGETS:
        raise MappingError(f"unknown mapping kind {kind!r} (known: {', '.join(TARGETS)})")
    target_cols = TARGETS[kind]["columns"]
    columns = {str(k).strip(): str(v).strip() for k, v in (spec.get("columns") or {}).items()}
    constants = {str(k).strip(): str(v) for k, v in (spec.get("constants") or {}).items()}
    scale = _factors(spec)
    for what, cols in (("column", columns), ("fixed value", constants), ("factor", scale)):
        for c in cols:
            if c not in target_cols:
                raise MappingError(f"{c!r} ({what}) is not a column of {TARGETS[kind]['table']} "
                                   f"(its columns: {', '.join(target_cols)})")
    for c, src in columns.items():
        if not src:
            raise MappingError(f"column {c!r} is mapped to an empty name")
    both = set(columns) & set(constants)
    if both:
        raise MappingError(f"{', '.join(sorted(both))}: given both as a column and as a fixed value")
    for c in scale:
        if target_cols[c] not in ("int", "float", "pct", "seconds"):
            raise MappingError(f"a factor only applies to numbers, not to {c!r}")
        if c not in columns:
            raise MappingError(f"factor for {c!r}, which is not mapped to a column")
    if not any(c in columns for c in MEASURES):
        raise MappingError("map at least one measure: " + ", ".join(MEASURES))
    delim, decimal = _delimiter_and_decimal(spec)
    skip = spec.get("skip_rows") or 0
    if not isinstance(skip, int) or skip < 0:
        raise MappingError(f"skip_rows must be a whole number >= 0, not {skip!r}")
    return {"name": spec.get("name"), "kind": kind, "columns": columns, "scale": scale, "constants": constants,
            "delimiter": delim, "decimal": decimal, "skip_rows": skip, "description": spec.get("description")}


def _factors(spec: dict[str, Any]) -> dict[str, float]:
    scale: dict[str, float] = {}
    for k, v in (spec.get("scale") or {}).items():
        try:
            scale[str(k).strip()] = float(v)
        except (TypeError, ValueError):
            raise MappingError(f"factor for {k!r} is not a number: {v!r}") from None
    return scale


def _delimiter_and_decimal(spec: dict[str, Any]) -> tuple[str | None, str]:
    """The mapping's delimiter (None: detect it) and decimal mark."""
    delim = spec.get("delimiter")
    if delim not in (None, "", "auto"):
        if delim not in DELIMITERS:
            raise MappingError(f"delimiter {delim!r}: use ',', ';', 'tab', '|' or auto")
        delim = DELIMITERS[delim]
    else:
        delim = None
    decimal = spec.get("decimal") or "."
    if decimal not in (".", ","):
        raise MappingError(f"decimal mark {decimal!r}: use '.' or ','")
    if decimal == "," and delim == ",":
        raise MappingError("decimal comma and comma delimiter cannot go together")
    return delim, decimal


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


KIND = register_kind(IOMARK, "IOmark")  # also the kind a saved column mapping reads into



# what IOmark results mean (parsers.semantics): the StormScope layout and a saved mapping share it
SEMANTICS = Semantics(
    main_table="iomark_results", span=Span.NONE, counts=Counts.TOTALS,
    wording={"pct_within_20ms": "% within 20 ms", "pct_within_50ms": "% within 50 ms", "passed": "passed"},
    meta=(*common("layout"),
          MetaKey("columns", LIST, "the file's header"), MetaKey("delimiter", TEXT, "its delimiter"),
          MetaKey("notes", OBJ, "what the comment lines of the file say (key: value)"),
          MetaKey("workloads", LIST, "the workloads it has"),
          MetaKey("mapping", OBJ, "the saved mapping the file was read with (columns, scale, constants …)")))


class IomarkCsvFormat:
    """StormScope's IOmark results layout (v1), recognised by its column names."""

    id = "iomark-csv"
    kind = KIND.id
    label = "IOmark results (StormScope CSV layout v1)"
    priority = 310
    tables = ("iomark_results",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = head.decode("utf-8-sig", errors="replace")
        lines = text.splitlines()
        if lines and lines[0].lower().startswith("# stormscope iomark results"):
            return 0.97
        for line in lines:
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            names = {n.strip().strip('"').lower() for n in re.split(r"[,;\t|]", s)}
            if {"workload", "users"} <= names and names & set(MEASURES):
                return 0.96
            return 0.0
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        text = read_text(path, "a CSV file")
        yield from _Reader(None, state, warn).run(text)


class MappedCsvFormat:
    """Any CSV/TSV read through a saved column mapping (``--mapping NAME``); never picked by sniffing."""

    id = "iomark-mapped"
    kind = KIND.id
    label = "CSV/TSV through a saved column mapping (IOmark results)"
    priority = 0
    tables = ("iomark_results",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        if not options.mapping:
            raise ParseError("a column mapping is needed to read this file (--mapping NAME)", None)
        try:
            spec = validate_mapping(options.mapping)
        except MappingError as e:
            raise ParseError(f"mapping {options.mapping.get('name')!r}: {e}", None) from None
        text = read_text(path, "a CSV/TSV file")
        yield from _Reader(spec, state, warn).run(text)


def _preamble(lines: list[str], first: int) -> tuple[int, dict[str, str]]:
    """The index of the header row (after ``first`` skipped rows, blank lines and '#' comments), and the
    '# key: value' notes of those comments."""
    notes: dict[str, str] = {}
    i = first
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
        m = re.match(r"^\s*#\s*([\w .-]+?)\s*:\s*(.*?)\s*$", lines[i])
        if m:
            notes[m.group(1).strip()] = m.group(2)
        i += 1
    return i, notes


def _text_value(kind: str, s: str, where: str, ln: int) -> Any:
    """A text, true/false or date-time value (``s`` not empty)."""
    if kind == "text":
        return s
    if kind == "bool":
        if s.lower() in _TRUE:
            return True
        if s.lower() in _FALSE:
            return False
        raise ParseError(f"{where}: {s!r} is not true/false (yes/no, pass/fail, 1/0)", ln)
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        raise ParseError(f"{where}: {s!r} is not an ISO date-time (YYYY-MM-DD hh:mm:ss); map a column of "
                         "seconds to t_s instead", ln) from None


class _Reader:
    def __init__(self, spec: dict[str, Any] | None, state: JobState, warn: WarnFn):
        self.spec = spec
        self.state = state
        self.warn = warn

    def run(self, text: str) -> Iterator[Event]:
        spec = self.spec
        lines = text.splitlines()
        i, notes = _preamble(lines, spec["skip_rows"] if spec else 0)
        if i >= len(lines):
            raise ParseError("no header row (the file has no line of column names)", max(1, min(i, len(lines))))
        hln = i + 1
        delim = (spec["delimiter"] if spec else None) or _sniff_delimiter(lines[i])
        decimal = spec["decimal"] if spec else "."
        try:
            header = [h.strip() for h in next(csv.reader([lines[i]], delimiter=delim))]
        except csv.Error as e:
            raise ParseError(f"unreadable header row ({e})", hln) from None
        low = [h.lower() for h in header]
        if len(set(low)) != len(low):
            dup = sorted({h for h in low if low.count(h) > 1})
            raise ParseError(f"the header names a column twice: {', '.join(dup)}", hln)
        cols = self._columns(header, low, hln)
        extra_idx = [j for j in range(len(header)) if j not in cols.values()]
        rows: list[dict[str, Any]] = []
        reader = _rows_or_error(csv.reader(io.StringIO("\n".join(lines[i + 1:])), delimiter=delim), hln)
        for k, fields in enumerate(reader):
            ln = hln + 1 + k
            if not fields or not any(f.strip() for f in fields):
                continue
            if fields[0].lstrip().startswith("#"):
                continue
            if len(fields) != len(header):
                raise ParseError(f"{len(fields)} fields where the header at line {hln} has {len(header)}", ln)
            row: dict[str, Any] = {"row_idx": len(rows), "line": ln}
            for target, j in cols.items():
                row[target] = self._value(target, fields[j], decimal, ln, header[j])
            if spec:
                for target, v in spec["constants"].items():
                    row[target] = self._value(target, v, ".", ln, f"fixed value of {target}")
            extra = {header[j]: fields[j].strip() for j in extra_idx if fields[j].strip()}
            row["extra"] = json.dumps(extra, ensure_ascii=False) if extra else None
            rows.append(row)
        if not rows:
            raise ParseError("header without a single data row: the file is cut off or empty", hln)
        info = RunInfo(kind="iomark")
        info.meta.update({
            "layout": f"mapping {spec['name']!r}" if spec else LAYOUT, "columns": header,
            "delimiter": {"\t": "tab"}.get(delim, delim), "notes": notes,
            "workloads": list(dict.fromkeys(r.get("workload") for r in rows if r.get("workload"))),
        })
        if spec:
            info.meta["mapping"] = {k: v for k, v in spec.items() if v not in (None, {}, "")}
        stamps = [r["ts"] for r in rows if r.get("ts")]
        info.started_at = min(stamps) if stamps else None
        key = "iomark"
        yield RunStart(key, info)
        yield Rows(key, "iomark_results", pl.DataFrame([{c: r.get(c) for c in SCHEMA} for r in rows], schema=SCHEMA,
                                                       orient="row"))
        self.state.progress(1.0, "done")
        yield RunEnd(key, {"n_samples": len(rows), "ended_at": max(stamps) if stamps else None}, info=info)

    def _columns(self, header: list[str], low: list[str], hln: int) -> dict[str, int]:
        """Target column -> its index in the file (by the mapping, else by the IOmark layout's names)."""
        spec = self.spec
        if not spec:
            cols = {c: low.index(c) for c in IOMARK_COLUMNS if c in low}
            missing = [c for c in ("workload", "users") if c not in cols]
            if missing or not any(c in cols for c in MEASURES):
                raise ParseError(f"not the {LAYOUT} layout: the header needs workload, users and at least one of "
                                 f"{', '.join(MEASURES)}; it has: {', '.join(header)}", hln)
            return cols
        cols = {}
        for target, src in spec["columns"].items():
            if src.lower() not in low:
                raise ParseError(f"column {src!r} (mapped to {target} by mapping {spec['name']!r}) is not in the "
                                 f"header; the header has: {', '.join(header)}", hln)
            cols[target] = low.index(src.lower())
        return cols

    def _value(self, target: str, raw: str, decimal: str, ln: int, column: str) -> Any:
        kind = IOMARK_COLUMNS[target]
        s = raw.strip()
        if not s:
            return None
        where = f"column {column!r} ({target})"
        if kind in ("text", "bool", "ts"):
            return _text_value(kind, s, where, ln)
        factor = self.spec["scale"].get(target, 1.0) if self.spec else 1.0
        if kind == "seconds" and re.fullmatch(r"\d+:\d{2}(:\d{2}(\.\d+)?)?", s):
            parts = [float(p) for p in s.split(":")]
            secs = parts[0] * 60 + parts[1] if len(parts) == 2 else parts[0] * 3600 + parts[1] * 60 + parts[2]
            return float(Decimal(repr(secs)) * Decimal(repr(factor)))
        num = s.rstrip("%").strip() if kind == "pct" else s
        if decimal == ",":
            num = num.replace(".", "").replace(",", ".")  # 1.234,5 -> 1234.5
        try:
            v = float(num)
        except ValueError:
            raise ParseError(f"{where}: {s!r} is not a number", ln) from None
        if not math.isfinite(v) or (kind == "int" and abs(v) >= 2 ** 63):
            raise ParseError(f"{where}: {s[:30]!r} is out of range", ln)
        if factor != 1.0:  # decimal arithmetic: 9200 us x 0.001 is 9.2 ms, not 9.200000000000001
            v = float(Decimal(repr(v)) * Decimal(repr(factor)))
        if kind == "int":
            if v != int(v):
                raise ParseError(f"{where}: {s!r} is not a whole number", ln)
            return int(v)
        if kind == "pct" and not 0 <= v <= 100:
            raise ParseError(f"{where}: {s!r} is not a percentage between 0 and 100", ln)
        return v


def _rows_or_error(reader: Any, hln: int) -> Iterator[list[str]]:
    """The CSV rows, a csv.Error (a field over the csv module's limit, a stray quote) as a ParseError with its line."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise ParseError(f"unreadable CSV row ({e})", hln + reader.line_num) from None
        yield row


CSV_FORMAT = register(IomarkCsvFormat())
MAPPED_FORMAT = register(MappedCsvFormat())
