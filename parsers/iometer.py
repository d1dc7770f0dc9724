"""Iometer ``results.csv``, read by column name.

No real Iometer result file is public; the layout below is the one Iometer's own source writes
(``CPageSetup::SaveResults``, ``ManagerList/Manager/Worker::SaveResults``)::

    'Test Type,Test Description
    0,my test
    'Version
    1.1.0
    'Time Stamp
    2024-03-14 10:00:00:000
    'Access specifications
    'Access specification name,default assignment
    4K random 67% read,0
    'size,% of size,% reads,% random,delay,burst,align,reply
    4096,100,67,100,0,1,0,0
    'End access specifications
    'Results
    'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,...
    ALL,All,4K random 67% read,1,1,1,1234.5,...
    MANAGER,HOST1,...
    PROCESSOR,CPU 0,...
    WORKER,Worker 1,...
    DISK,E:,...
    'Time Stamp
    2024-03-14 10:05:00:000
    'End Test

Every ``'Results`` section is one result set (``test_idx``); rows are ``all``, ``manager``,
``processor``, ``worker``, ``disk`` or ``network``, each with the manager and worker it belongs to
(a target row, which leaves the access specification empty, gets its worker's).
The MB/s header changed between releases: ``MBps`` (one column, before 2006), ``MBps (Binary)`` +
``MBps (Decimal)`` (1.1), ``MiBps (Binary)`` + ``MBps (Decimal)`` (newer): ``mb_s`` holds the binary
figure (MB = 2^20 bytes, as everywhere in StormScope; the single old ``MBps`` column is taken as
binary) and ``mb_s_decimal`` the decimal one where the file has it. Response times are in ms.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import register_kind
from parsers.registry import register
from parsers.schema import TABLE, frame_schema
from parsers.semantics import LIST, TEXT, Counts, MetaKey, Semantics, Span

ROW_TYPES = {"ALL": "all", "MANAGER": "manager", "PROCESSOR": "processor", "WORKER": "worker", "DISK": "disk",
             "NETWORK": "network", "UNKNOWN": "unknown"}

# header name (lower case) -> column; the MB/s names of every release map to the same column
COLUMNS: dict[str, str] = {
    "# managers": "managers", "# workers": "workers", "# disks": "disks",
    "iops": "iops", "read iops": "read_iops", "write iops": "write_iops",
    "mbps": "mb_s", "read mbps": "read_mb_s", "write mbps": "write_mb_s",
    "mbps (binary)": "mb_s", "read mbps (binary)": "read_mb_s", "write mbps (binary)": "write_mb_s",
    "mibps (binary)": "mb_s", "read mibps (binary)": "read_mb_s", "write mibps (binary)": "write_mb_s",
    "mbps (decimal)": "mb_s_decimal", "read mbps (decimal)": "read_mb_s_decimal",
    "write mbps (decimal)": "write_mb_s_decimal",
    "transactions per second": "transactions_s",
    "average response time": "avg_resp_ms", "average read response time": "avg_read_resp_ms",
    "average write response time": "avg_write_resp_ms", "maximum response time": "max_resp_ms",
    "maximum read response time": "max_read_resp_ms", "maximum write response time": "max_write_resp_ms",
    "errors": "errors", "read errors": "read_errors", "write errors": "write_errors",
    "bytes read": "bytes_read", "bytes written": "bytes_written", "read i/os": "read_ios", "write i/os": "write_ios",
    "queue depth": "queue_depth", "% cpu utilization": "cpu_pct", "% user time": "user_pct",
    "% privileged time": "privileged_pct", "% dpc time": "dpc_pct", "% interrupt time": "interrupt_pct",
    "interrupts per second": "interrupts_s", "cpu effectiveness": "cpu_effectiveness",
}
SCHEMA: dict[str, Any] = frame_schema("iometer_results")
# the counted columns (integers in the table): a fraction there is an error
INT_COLUMNS = {c for c in dict.fromkeys(COLUMNS.values()) if TABLE["iometer_results"].column(c).is_integer}
REQUIRED = ("target type", "target name", "iops")


def _stamp(text: str) -> datetime | None:
    m = re.match(r"^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[:.](\d{1,3}))?$", text.strip())
    if not m:
        return None
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    ms = int((m.group(7) or "0").ljust(3, "0"))
    try:
        return datetime(y, mo, d, h, mi, s, ms * 1000)
    except ValueError:
        return None


KIND = register_kind("iometer", "Iometer")



# what Iometer's results mean (parsers.semantics)
SEMANTICS = Semantics(
    main_table="iometer_results", span=Span.NONE, counts=Counts.TOTALS,
    wording={"iops": "IOps", "read_iops": "Read IOps", "write_iops": "Write IOps",
             "mb_s": "MBps (Binary), MiBps (Binary), MBps", "mb_s_decimal": "MBps (Decimal)",
             "avg_resp_ms": "Average Response Time", "max_resp_ms": "Maximum Response Time",
             "transactions_s": "Transactions per Second", "cpu_pct": "% CPU Utilization",
             "queue_depth": "# of Outstanding IOs"},
    meta=(MetaKey("versions", LIST, "the Iometer versions the file names"),
          MetaKey("mbps_header", LIST, "the MBps headers as printed"),
          MetaKey("result_sets", LIST, "each result set: its test type, description, times and line"),
          MetaKey("mb", TEXT, "what mb_s and mb_s_decimal count"),
          MetaKey("response_time_unit", TEXT, "the unit of the response times")))


class IometerFormat:
    id = "iometer-csv"
    kind = KIND.id
    label = "Iometer results.csv"
    priority = 319
    tables = ("iometer_results",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        if b"'Target Type,Target Name" in head or b"'Test Type,Test Description" in head:
            return 0.97
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _parse(read_text(path, "an Iometer CSV"), state, warn)


def _parse(text: str, state: JobState, warn: WarnFn) -> Iterator[Event]:
    doc = _Reader(text)
    doc.read()
    if not doc.rows:
        raise ParseError("no Iometer results found (expected a 'Results section with a 'Target Type,...' header)",
                         None)
    tests, rows = doc.tests, doc.rows
    for t in tests:
        if t["results_at"] is None:
            warn(f"result set {t['idx']} has no 'Time Stamp' after its rows: the file may be cut off", t["line"])
    info = RunInfo(kind="iometer", tool_version=f"Iometer {doc.versions[0]}" if doc.versions else None)
    info.started_at = doc.started or next((t["started"] for t in tests if t["started"]), None)
    info.file_date = info.started_at.date() if info.started_at else None
    info.meta.update({
        "versions": list(dict.fromkeys(doc.versions)), "mbps_header": sorted(doc.headers),
        "result_sets": [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in t.items()} for t in tests],
        "mb": "mb_s in MB/s of 2^20 bytes (binary); mb_s_decimal in 10^6 bytes/s where the file has it",
        "response_time_unit": "ms",
    })
    managers = {r["manager"] for r in rows if r["manager"]}
    targets = {(r["manager"], r["worker"], r["target"]) for r in rows if r["row_type"] in ("disk", "network")}
    key = "iometer"
    yield RunStart(key, info)
    yield Rows(key, "iometer_results", pl.DataFrame([{c: r.get(c) for c in SCHEMA} for r in rows], schema=SCHEMA,
                                                    orient="row"))
    state.progress(1.0, "done")
    ended = max((t["results_at"] for t in tests if t["results_at"]), default=None)
    yield RunEnd(key, {"n_samples": len(tests), "n_devices": len(targets) or len(managers), "ended_at": ended},
                 info=info)


class _Reader:
    """The sections of a results.csv, top to bottom. Each section's reader starts at its marker line (index
    ``i``) and returns the index of the line after the section; lines outside any section are skipped."""

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.n = len(self.lines)
        self.rows: list[dict[str, Any]] = []
        self.tests: list[dict[str, Any]] = []  # one per 'Results section
        self.versions: list[str] = []
        self.headers: set[str] = set()  # the MB/s header names seen
        self.current: dict[str, Any] = {}  # the test (type, description, start) the next 'Results belongs to
        self.specs: list[dict[str, Any]] = []  # the access specifications last listed
        self.started: datetime | None = None
        self.results_idx = -1

    def fields(self, k: int) -> list[str]:
        return next(csv.reader(io.StringIO(self.lines[k])), [])

    def read(self) -> None:
        i = 0
        while i < self.n:
            section = self._section(self.lines[i].strip())
            i = section(i) if section is not None else i + 1

    def _section(self, s: str) -> Callable[[int], int] | None:
        if s.startswith("'Test Type"):
            return self._test_type
        if s == "'Version":
            return self._version
        if s == "'Time Stamp":
            return self._time_stamp
        if s.startswith("'Access specification name"):
            return self._access_specs
        if s == "'Results":
            return self._results
        return None

    def _test_type(self, i: int) -> int:
        if i + 1 >= self.n or self.lines[i + 1].startswith("'"):
            return i + 1
        f = self.fields(i + 1)
        self.current = {"test_type": f[0].strip() if f else None,
                        "test_description": ",".join(f[1:]).strip() if len(f) > 1 else None, "line": i + 1}
        return i + 2

    def _version(self, i: int) -> int:
        if i + 1 < self.n:
            self.versions.append(self.lines[i + 1].strip())
        return i + 2

    def _time_stamp(self, i: int) -> int:
        stamp = _stamp(self.lines[i + 1]) if i + 1 < self.n else None
        if stamp is None:
            raise ParseError("'Time Stamp' without a real time (expected YYYY-MM-DD hh:mm:ss:ms on the next "
                             "line)", min(i + 2, self.n))
        last = self.tests[-1] if self.tests else None
        if (self.results_idx >= 0 and last is not None and last.get("results_at") is None
                and last["idx"] == self.results_idx):
            # the stamp after a result set: when its results were taken
            last["results_at"] = stamp
            for r in self.rows:
                if r["test_idx"] == self.results_idx:
                    r["ts"] = stamp
        elif self.started is None:
            self.started = stamp
        self.current.setdefault("started", stamp)
        return i + 2

    def _access_specs(self, i: int) -> int:
        self.specs = []
        i += 1
        while i < self.n and not self.lines[i].startswith("'End access"):
            if not self.lines[i].startswith("'") and self.lines[i].strip():
                f = self.fields(i)
                if f and not re.fullmatch(r"-?\d+", f[0].strip()):
                    self.specs.append({"name": f[0].strip(), "line": i + 1})
            i += 1
        return i

    def _results(self, i: int) -> int:
        i += 1
        if i >= self.n or not self.lines[i].startswith("'Target Type"):
            raise ParseError("'Results' is not followed by the column header ('Target Type,Target Name,...'): "
                             "the file is cut off or damaged", min(i + 1, self.n))
        header = _Header(self.fields(i), i + 1)
        self.headers.add(header.mb)
        self.results_idx += 1
        test = {"idx": self.results_idx, "test_type": self.current.get("test_type"),
                "test_description": self.current.get("test_description"), "started": self.current.get("started"),
                "access_specs": [sp["name"] for sp in self.specs], "results_at": None, "line": header.line}
        self.tests.append(test)
        block = _ResultRows(header, test)
        n_rows = 0
        i += 1
        while i < self.n and not self.lines[i].startswith("'"):
            if self.lines[i].strip():
                self.rows.append(block.row([x.strip() for x in self.fields(i)], i + 1))
                n_rows += 1
            i += 1
        if not n_rows:
            raise ParseError("Iometer results header without any result row: the file is cut off here", header.line)
        return i


class _Header:
    """The column header of a 'Results section (line ``line``), checked for the columns every result needs."""

    def __init__(self, fields: list[str], line: int):
        self.names = [h.strip() for h in fields]
        self.names[0] = self.names[0].lstrip("'")
        self.line = line
        self.low = [h.lower() for h in self.names]
        missing = [r for r in REQUIRED if r not in self.low]
        mb = [h for h in self.names if COLUMNS.get(h.lower()) == "mb_s"]
        if missing or not mb:
            raise ParseError("Iometer results header lacks " + ", ".join(
                [repr(m) for m in missing] + ([] if mb else ["'MBps' / 'MBps (Binary)' / 'MiBps (Binary)'"])), line)
        self.mb = mb[0]
        self.spec_i = self.low.index("access specification name") if "access specification name" in self.low else None


class _ResultRows:
    """Builds the rows of one result set: each row's type, the manager and worker it belongs to (the rows come
    in tree order: ALL, then each MANAGER with its PROCESSORs and WORKERs, each WORKER with its targets), its
    access specification and its values."""

    def __init__(self, header: _Header, test: dict[str, Any]):
        self.header = header
        self.test = test
        self.manager: str | None = None
        self.worker: str | None = None
        self.worker_spec: str | None = None
        self.width: dict[str, tuple[int, int]] = {}  # row type -> (fields, line) of its first row

    def row(self, f: list[str], ln: int) -> dict[str, Any]:
        kind = self._kind(f, ln)
        name = f[1] if len(f) > 1 else ""
        if kind == "manager":
            self.manager, self.worker = name, None
        elif kind == "worker":
            self.worker = name
        elif kind == "all":
            self.manager = self.worker = None
        row: dict[str, Any] = {
            "test_idx": self.test["idx"], "test_type": self.test["test_type"],
            "test_description": self.test["test_description"], "ts": None, "row_type": kind,
            "manager": name if kind == "manager" else (self.manager if kind != "all" else None),
            "worker": name if kind == "worker" else (self.worker if kind in ("disk", "network", "unknown")
                                                     else None),
            "target": name if kind in ("all", "processor", "disk", "network", "unknown") else None,
            "line": ln,
            "access_spec": self._access_spec(kind, f),
        }
        row.update(_values(f, self.header, ln))
        return row

    def _kind(self, f: list[str], ln: int) -> str:
        """The row's type, once its field count is checked against the header's and the rows' above."""
        kind = ROW_TYPES.get(f[0].upper()) if f else None
        if kind is None:
            raise ParseError(f"Iometer result row of unknown type {f[0] if f else ''!r} (expected ALL, "
                             "MANAGER, PROCESSOR, WORKER, DISK or NETWORK)", ln)
        header = self.header
        if len(f) > len(header.names):
            raise ParseError(f"{len(f)} fields, the header at line {header.line} has {len(header.names)}", ln)
        # Iometer writes the rows below ALL alike: a row with more fields had a value split in two
        # (a decimal comma), and every value after it would land in the wrong column
        ref = self.width.get(kind) or self.width.get("_rows")
        if kind != "all" and ref is not None and len(f) > ref[0]:
            raise ParseError(f"{len(f)} fields where the row at line {ref[1]} has {ref[0]} (a decimal comma "
                             "splitting a value?): the values would shift columns", ln)
        self.width.setdefault(kind, (len(f), ln))
        if kind != "all":
            self.width.setdefault("_rows", (len(f), ln))
        return kind

    def _access_spec(self, kind: str, f: list[str]) -> str | None:
        i = self.header.spec_i
        spec = (f[i] or None) if i is not None and i < len(f) else None
        if kind == "worker":
            self.worker_spec = spec
        elif kind in ("disk", "network", "unknown") and spec is None:
            spec = self.worker_spec  # a target runs its worker's access specification
        return spec


def _values(f: list[str], header: _Header, ln: int) -> dict[str, int | float]:
    """The row's figures by column (a later header of the same column wins)."""
    out: dict[str, int | float] = {}
    for j, h in enumerate(header.low):
        col = COLUMNS.get(h)
        if col is None or j >= len(f) or f[j] == "":
            continue
        out[col] = _number(f[j], header.names[j], col, ln)
    return out


def _number(text: str, name: str, col: str, ln: int) -> int | float:
    try:
        v = float(text)
    except ValueError:
        raise ParseError(f"column {name!r}: {text!r} is not a number", ln) from None
    if not math.isfinite(v) or (col in INT_COLUMNS and abs(v) >= 2 ** 63):
        raise ParseError(f"column {name!r}: {text[:30]!r} is out of range", ln)
    if col in INT_COLUMNS and v != int(v):
        raise ParseError(f"column {name!r}: {text!r} is not a whole number", ln)
    return int(v) if col in INT_COLUMNS else v


FORMAT = register(IometerFormat())
