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
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.schema import TABLE, frame_schema

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


class IometerFormat:
    id = "iometer-csv"
    kind = "iometer"
    label = "Iometer results.csv"
    priority = 32

    def sniff(self, head: bytes) -> float:
        if b"'Target Type,Target Name" in head or b"'Test Type,Test Description" in head:
            return 0.97
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _parse(read_text(path, "an Iometer CSV"), state, warn)


def _parse(text: str, state: JobState, warn: WarnFn) -> Iterator[Event]:
    lines = text.splitlines()
    rows: list[dict[str, Any]] = []
    tests: list[dict[str, Any]] = []
    versions: list[str] = []
    headers: set[str] = set()
    current: dict[str, Any] = {}
    specs: list[dict[str, Any]] = []
    started: datetime | None = None
    results_idx = -1
    i = 0
    n = len(lines)

    def fields(k: int) -> list[str]:
        return next(csv.reader(io.StringIO(lines[k])), [])

    while i < n:
        s = lines[i].strip()
        ln = i + 1
        if s.startswith("'Test Type"):
            if i + 1 < n and not lines[i + 1].startswith("'"):
                f = fields(i + 1)
                current = {"test_type": f[0].strip() if f else None,
                           "test_description": ",".join(f[1:]).strip() if len(f) > 1 else None, "line": ln}
                i += 2
            else:
                i += 1
            continue
        if s == "'Version":
            if i + 1 < n:
                versions.append(lines[i + 1].strip())
            i += 2
            continue
        if s == "'Time Stamp":
            stamp = _stamp(lines[i + 1]) if i + 1 < n else None
            if stamp is None:
                raise ParseError("'Time Stamp' without a real time (expected YYYY-MM-DD hh:mm:ss:ms on the next "
                                 "line)", min(ln + 1, n))
            if results_idx >= 0 and tests and tests[-1].get("results_at") is None and tests[-1]["idx"] == results_idx:
                tests[-1]["results_at"] = stamp
                for r in rows:
                    if r["test_idx"] == results_idx:
                        r["ts"] = stamp
            elif started is None:
                started = stamp
            current.setdefault("started", stamp)
            i += 2
            continue
        if s.startswith("'Access specification name"):
            specs = []
            i += 1
            while i < n and not lines[i].startswith("'End access"):
                if not lines[i].startswith("'") and lines[i].strip():
                    f = fields(i)
                    if f and not re.fullmatch(r"-?\d+", f[0].strip()):
                        specs.append({"name": f[0].strip(), "line": i + 1})
                i += 1
            continue
        if s == "'Results":
            i += 1
            if i >= n or not lines[i].startswith("'Target Type"):
                raise ParseError("'Results' is not followed by the column header ('Target Type,Target Name,...'): "
                                 "the file is cut off or damaged", min(i + 1, n))
            header = [h.strip() for h in fields(i)]
            header[0] = header[0].lstrip("'")
            hln = i + 1
            low = [h.lower() for h in header]
            missing = [r for r in REQUIRED if r not in low]
            mb = [h for h in header if COLUMNS.get(h.lower()) == "mb_s"]
            if missing or not mb:
                raise ParseError("Iometer results header lacks " + ", ".join(
                    [repr(m) for m in missing] + ([] if mb else ["'MBps' / 'MBps (Binary)' / 'MiBps (Binary)'"])), hln)
            headers.add(mb[0])
            results_idx += 1
            test = {"idx": results_idx, "test_type": current.get("test_type"),
                    "test_description": current.get("test_description"), "started": current.get("started"),
                    "access_specs": [sp["name"] for sp in specs], "results_at": None, "line": hln}
            tests.append(test)
            i += 1
            manager = worker = worker_spec = None
            n_rows = 0
            width: dict[str, tuple[int, int]] = {}  # row type -> (fields, line) of its first row
            while i < n and not lines[i].startswith("'"):
                if not lines[i].strip():
                    i += 1
                    continue
                f = [x.strip() for x in fields(i)]
                row_ln = i + 1
                kind = ROW_TYPES.get(f[0].upper()) if f else None
                if kind is None:
                    raise ParseError(f"Iometer result row of unknown type {f[0] if f else ''!r} (expected ALL, "
                                     "MANAGER, PROCESSOR, WORKER, DISK or NETWORK)", row_ln)
                if len(f) > len(header):
                    raise ParseError(f"{len(f)} fields, the header at line {hln} has {len(header)}", row_ln)
                # Iometer writes the rows below ALL alike: a row with more fields had a value split in two
                # (a decimal comma), and every value after it would land in the wrong column
                ref = width.get(kind) or width.get("_rows")
                if kind != "all" and ref is not None and len(f) > ref[0]:
                    raise ParseError(f"{len(f)} fields where the row at line {ref[1]} has {ref[0]} (a decimal comma "
                                     "splitting a value?): the values would shift columns", row_ln)
                width.setdefault(kind, (len(f), row_ln))
                if kind != "all":
                    width.setdefault("_rows", (len(f), row_ln))
                name = f[1] if len(f) > 1 else ""
                if kind == "manager":
                    manager, worker = name, None
                elif kind == "worker":
                    worker = name
                elif kind == "all":
                    manager = worker = None
                row: dict[str, Any] = {
                    "test_idx": results_idx, "test_type": test["test_type"],
                    "test_description": test["test_description"], "ts": None, "row_type": kind,
                    "manager": name if kind == "manager" else (manager if kind != "all" else None),
                    "worker": name if kind == "worker" else (worker if kind in ("disk", "network", "unknown")
                                                             else None),
                    "target": name if kind in ("all", "processor", "disk", "network", "unknown") else None,
                    "line": row_ln,
                }
                spec_i = low.index("access specification name") if "access specification name" in low else None
                row["access_spec"] = (f[spec_i] or None) if spec_i is not None and spec_i < len(f) else None
                if kind == "worker":
                    worker_spec = row["access_spec"]
                elif kind in ("disk", "network", "unknown") and row["access_spec"] is None:
                    row["access_spec"] = worker_spec  # a target runs its worker's access specification
                for j, h in enumerate(low):
                    col = COLUMNS.get(h)
                    if col is None or j >= len(f) or f[j] == "":
                        continue
                    try:
                        v = float(f[j])
                    except ValueError:
                        raise ParseError(f"column {header[j]!r}: {f[j]!r} is not a number", row_ln) from None
                    if not math.isfinite(v) or (col in INT_COLUMNS and abs(v) >= 2 ** 63):
                        raise ParseError(f"column {header[j]!r}: {f[j][:30]!r} is out of range", row_ln)
                    if col in INT_COLUMNS and v != int(v):
                        raise ParseError(f"column {header[j]!r}: {f[j]!r} is not a whole number", row_ln)
                    row[col] = int(v) if col in INT_COLUMNS and v == int(v) else v
                rows.append(row)
                n_rows += 1
                i += 1
            if not n_rows:
                raise ParseError("Iometer results header without any result row: the file is cut off here", hln)
            continue
        i += 1
    if not rows:
        raise ParseError("no Iometer results found (expected a 'Results section with a 'Target Type,...' header)",
                         None)
    for t in tests:
        if t["results_at"] is None:
            warn(f"result set {t['idx']} has no 'Time Stamp' after its rows: the file may be cut off", t["line"])
    info = RunInfo(kind="iometer", tool_version=f"Iometer {versions[0]}" if versions else None)
    info.started_at = started or next((t["started"] for t in tests if t["started"]), None)
    info.file_date = info.started_at.date() if info.started_at else None
    info.meta.update({
        "versions": list(dict.fromkeys(versions)), "mbps_header": sorted(headers),
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


FORMAT = IometerFormat()
