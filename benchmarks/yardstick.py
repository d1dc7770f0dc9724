"""The one yardstick of every import benchmark, and the real inputs it is measured on (issue 31).

The yardstick: DuckDB's ``CREATE TABLE t AS SELECT * FROM read_csv('clean.csv')`` of a clean CSV holding **the
same rows and only the fields the input file has** -- for ``iostat -dxt``: time, device and its 22 values, nothing
the workspace adds (never a CSV exported from the workspace: its ~20 always-empty columns would slow the yardstick
by the product's own choices).

The inputs: real captures (``benchmarks/seeds/`` and ``tests/corpus/``, provenance in ``benchmarks/seeds/README.md``)
scaled up to the wanted size **by repeating their real records with shifted times**: the numbers, devices, layout
and line lengths are the tool's own; only the stamps (and nmon's snapshot numbers) are rewritten. esxtop is the
exception: no real esxtop batch file is public, so its input is ``esxtop_gen.py``'s documented layout. Each input is
written together with its clean CSV, from the same records, so both hold the same rows by construction.

``make_input(fmt, size_mb, folder)`` writes both; ``measure(...)`` runs the import (``main.py import``, as a
consultant runs it) and the yardstick alternately in fresh processes and returns the ratios, wall and CPU.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "benchmarks" / "seeds"
CORPUS = ROOT / "tests" / "corpus"

# Compiled bytecode, as an installed StormScope has it (a machine with PYTHONDONTWRITEBYTECODE would otherwise
# compile the parsers inside every timed import); outside the sources.
PYCACHE = tempfile.mkdtemp(prefix="stormscope-bench-pyc-")
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPYCACHEPREFIX": PYCACHE}

PH = "\x00"  # where a record's stamp goes in its text


@dataclass
class Record:
    """One real record of a seed: its text with ``PH`` where each stamp goes, and its clean-CSV rows (the
    fields after the time)."""

    parts: list[str]
    rows: list[str]


@dataclass
class Seed:
    """A real capture cut into records, and how to write a stamp in the file and in the clean CSV."""

    source: str
    head: str
    records: list[Record]
    tail: str
    columns: list[str]  # the clean CSV's fields after ``time``
    start: datetime
    step: timedelta
    stamp: Callable[[datetime, int], str]  # (time, record number from 1) -> the stamp as the tool writes it
    sep: str = ""  # between two records
    numbered: bool = False  # "\x01" in a record's text stands for its number (nmon's T0001)


def _csv_row(values: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(values)
    return buf.getvalue()


def _iostat_text() -> Seed:
    src = SEEDS / "iostat-dxt-pALL.txt"
    text = src.read_text()
    stamp_re = re.compile(r"^(\d\d/\d\d/\d\d \d\d:\d\d:\d\d)\n", re.M)
    pieces = stamp_re.split(text)  # head, stamp, body, stamp, body ...
    head, stamps, bodies = pieces[0], pieces[1::2], pieces[2::2]
    columns: list[str] = []
    records = []
    for body in bodies:
        lines = body.splitlines()
        columns = ["device", *lines[0].split()[1:]]
        rows = [_csv_row(ln.split()) for ln in lines[1:] if ln.strip()]
        records.append(Record(["", "\n" + body], rows))
    t0 = datetime.strptime(stamps[0], "%m/%d/%y %H:%M:%S")
    step = datetime.strptime(stamps[1], "%m/%d/%y %H:%M:%S") - t0
    return Seed(str(src.relative_to(ROOT)), head, records, "", columns, t0, step,
                lambda t, _n: t.strftime("%m/%d/%y %H:%M:%S"))


def _iostat_json() -> Seed:
    src = SEEDS / "iostat-dxt-pALL.json"
    text = src.read_text()
    start = text.index('"statistics": [\n') + len('"statistics": [\n')
    end = text.rindex("\n\t\t\t]")
    entries = re.split(r"(?<=\n\t\t\t\t\}),\n", text[start:end])
    columns: list[str] = []
    records = []
    stamps = []
    for e in entries:
        m = re.search(r'"timestamp": "([^"]+)"', e)
        assert m, e[:200]
        stamps.append(m.group(1))
        rows = []
        for line in re.findall(r'^\t+(\{"disk_device".*\})', e, re.M):
            disk = json.loads(line, parse_float=str, parse_int=str)
            columns = ["device", *list(disk)[1:]]
            rows.append(_csv_row(list(disk.values())))
        records.append(Record([e[:m.start(1)], e[m.end(1):]], rows))
    t0 = datetime.strptime(stamps[0], "%m/%d/%y %H:%M:%S")
    step = datetime.strptime(stamps[1], "%m/%d/%y %H:%M:%S") - t0
    return Seed(str(src.relative_to(ROOT)), text[:start], records, text[end:], columns, t0, step,
                lambda t, _n: t.strftime("%m/%d/%y %H:%M:%S"), sep=",\n")


def _sadf() -> Seed:
    src = SEEDS / "sadf-d_d-p_sa23.txt"
    lines = src.read_text().splitlines()
    header = lines[0]
    names = header.lstrip("# ").split(";")
    by_stamp: dict[str, list[list[str]]] = {}
    for ln in lines[1:]:
        f = ln.split(";")
        if ln.startswith("#") or len(f) != len(names):
            continue  # the header again after the capture's restart
        by_stamp.setdefault(f[2], []).append(f)
    records = []
    for fields in by_stamp.values():
        parts, after = [], ""
        for f in fields:  # each line: host;interval;STAMP;device;values
            parts.append(after + ";".join(f[:2]) + ";")
            after = ";" + ";".join(f[3:]) + "\n"
        records.append(Record([*parts, after], [_csv_row(f[3:]) for f in fields]))
    stamps = list(by_stamp)
    t0 = datetime.strptime(stamps[0], "%Y-%m-%d %H:%M:%S UTC")
    step = datetime.strptime(stamps[1], "%Y-%m-%d %H:%M:%S UTC") - t0
    return Seed(str(src.relative_to(ROOT)), header + "\n", records, "", names[3:], t0, step,
                lambda t, _n: t.strftime("%Y-%m-%d %H:%M:%S UTC"))


def _sar() -> Seed:
    src = SEEDS / "sar-d-p_sa23.txt"
    lines = src.read_text().splitlines()
    hi = next(i for i, ln in enumerate(lines) if ln.split()[1:2] == ["tps"])
    head = "\n".join(lines[:hi + 1]) + "\n"
    names = lines[hi].split()[1:]
    by_stamp: dict[str, list[str]] = {}
    for ln in lines[hi + 1:]:
        if not ln.strip():
            break  # the capture's first run only: no restart repeated thousands of times
        by_stamp.setdefault(ln[:8], []).append(ln[8:])
    records = []
    for rest in by_stamp.values():
        parts = ["", *[r + "\n" for r in rest]]  # each line: STAMP + the rest
        rows = []
        for r in rest:
            f = r.split()
            rows.append(_csv_row([f[-1], *f[:-1]]))
        records.append(Record(parts, rows))
    stamps = list(by_stamp)
    day = datetime.strptime(lines[0].split("\t")[1].strip(), "%m/%d/%y")
    t0 = datetime.combine(day.date(), datetime.strptime(stamps[0], "%H:%M:%S").time())
    step = datetime.strptime(stamps[1], "%H:%M:%S") - datetime.strptime(stamps[0], "%H:%M:%S")
    return Seed(str(src.relative_to(ROOT)), head, records, "", ["DEV", *names[:-1]], t0, step,
                lambda t, _n: t.strftime("%H:%M:%S"))


NMON_DISK = ("DISKBUSY", "DISKREAD", "DISKWRITE", "DISKXFER", "DISKBSIZE", "DISKREADS", "DISKWRITES", "DISKRIO",
             "DISKWIO")


def _nmon() -> Seed:
    src = CORPUS / "nmon" / "nmon2influxdb_linux_150818_1024.nmon"
    lines = src.read_text().splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("ZZZZ,"))
    head = "\n".join(lines[:first]) + "\n"
    devices: dict[str, list[str]] = {}
    for ln in lines[:first]:
        f = ln.split(",")
        if f[0] in NMON_DISK:
            devices[f[0]] = f[2:]
    sections = [s for s in NMON_DISK if s in devices]
    names = devices[sections[0]]
    blocks: list[list[str]] = []
    for ln in lines[first:]:
        if ln.startswith("ZZZZ,"):
            blocks.append([])
        blocks[-1].append(ln)
    records = []
    stamps = []
    for block in blocks:
        label = block[0].split(",")[1]
        stamps.append(",".join(block[0].split(",")[2:4]))
        text = "\n".join(block) + "\n"
        text = text.replace(block[0], "ZZZZ," + PH, 1)
        text = text.replace("," + label + ",", ",\x01,")  # the snapshot's number, wherever it appears
        values = {f[0]: f[2:] for f in (ln.split(",") for ln in block) if f[0] in sections}
        rows = [_csv_row([dev, *[values[s][i] for s in sections]]) for i, dev in enumerate(names)
                if all(s in values for s in sections)]
        records.append(Record(text.split(PH), rows))
    t0 = datetime.strptime(stamps[0], "%H:%M:%S,%d-%b-%Y")
    step = datetime.strptime(stamps[1], "%H:%M:%S,%d-%b-%Y") - t0

    def stamp(t: datetime, n: int) -> str:
        return f"T{n:04d},{t:%H:%M:%S},{t:%d-%b-%Y}".upper()

    return Seed(str(src.relative_to(ROOT)), head, records, "", ["device", *[s.lower() for s in sections]], t0,
                step, stamp, numbered=True)


def _perfmon() -> Seed:
    src = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
    lines = src.read_text().splitlines()
    head = lines[0] + "\n"
    paths = next(csv.reader([lines[0]]))[1:]  # \\HOST\Object(instance)\Counter
    instances: dict[str, list[int]] = {}
    counters: list[str] = []
    for i, p in enumerate(paths):
        obj, counter = p.rsplit("\\", 1)
        instances.setdefault(obj.split("\\")[-1], []).append(i)
        counters.append(counter)
    first = next(iter(instances.values()))
    records = []
    stamps = []
    for ln in lines[1:]:
        cells = next(csv.reader([ln]))
        stamps.append(cells[0])
        rows = [_csv_row([inst, *[cells[1 + i] for i in idx]]) for inst, idx in instances.items()]
        records.append(Record(['"', '"' + ln[len(cells[0]) + 2:] + "\n"], rows))
    t0 = datetime.strptime(stamps[0], "%m/%d/%Y %H:%M:%S.%f")
    step = datetime.strptime(stamps[1], "%m/%d/%Y %H:%M:%S.%f") - t0
    return Seed(str(src.relative_to(ROOT)), head, records, "", ["device", *[counters[i] for i in first]], t0,
                step, lambda t, _n: t.strftime("%m/%d/%Y %H:%M:%S.%f")[:-3])


SEEDERS: dict[str, Callable[[], Seed]] = {
    "iostat": _iostat_text, "iostat-json": _iostat_json, "sadf": _sadf, "sar": _sar, "nmon": _nmon,
    "perfmon": _perfmon,
}
LABELS = {"iostat": "iostat -dxt text", "iostat-json": "iostat -dxt -o JSON", "sadf": "sadf -d (-d -p)",
          "sar": "sar -d -p text", "nmon": "nmon", "perfmon": "perfmon CSV (typeperf)",
          "esxtop": "esxtop batch CSV (generated)"}
SUFFIX = {"iostat": ".txt", "iostat-json": ".json", "sadf": ".txt", "sar": ".txt", "nmon": ".nmon",
          "perfmon": ".csv", "esxtop": ".csv"}


@dataclass
class Input:
    path: Path
    csv: Path
    rows: int
    mb: float
    note: str


def make_input(fmt: str, size_mb: float, folder: Path) -> Input:
    """Write ``fmt``'s real seed scaled to about ``size_mb`` MB, and its clean CSV (same rows, only the file's
    fields), into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path, clean = folder / f"{fmt}-{size_mb:g}MB{SUFFIX[fmt]}", folder / f"{fmt}-{size_mb:g}MB.clean.csv"
    if fmt == "esxtop":
        return _esxtop(size_mb, path, clean)
    seed = SEEDERS[fmt]()
    target = size_mb * 1e6
    n = rows = written = 0
    with open(path, "w", newline="") as out, open(clean, "w", newline="") as cout:
        out.write(seed.head)
        cout.write(_csv_row(["time", *seed.columns]) + "\n")
        written = len(seed.head)
        while written < target:
            for rec in seed.records:
                t = seed.start + seed.step * n
                n += 1
                text = (seed.sep if n > 1 else "") + seed.stamp(t, n).join(rec.parts)
                if seed.numbered:
                    text = text.replace("\x01", f"T{n:04d}")
                out.write(text)
                written += len(text)
                iso = t.isoformat(sep=" ")
                cout.write("".join(f"{iso},{r}\n" for r in rec.rows))
                rows += len(rec.rows)
                if written >= target:
                    break
        out.write(seed.tail)
    note = (f"{seed.source}: {len(seed.records)} real records repeated with shifted times to {n:,} records "
            f"({rows:,} rows)")
    return Input(path, clean, rows, path.stat().st_size / 1e6, note)


def _esxtop(size_mb: float, path: Path, clean: Path) -> Input:
    """esxtop_gen.py's host (60 VMs, 12 devices) with as many samples as make ``size_mb``; the clean CSV holds
    the time and the columns the import reads (those of the storage objects), under plain names."""
    sys.path.insert(0, str(ROOT))
    import polars as pl

    from parsers.base import ImportOptions, JobState
    from parsers.esxtop import SPEC
    from parsers.pdh import PdhReader

    gen = [sys.executable, str(ROOT / "benchmarks" / "esxtop_gen.py"), str(path), "--samples"]
    subprocess.run([*gen, "3"], check=True, env=ENV, capture_output=True)  # a probe: the header and row sizes
    with open(path, "rb") as fh:
        header = len(fh.readline())
    row = (path.stat().st_size - header) / 3
    subprocess.run([*gen, str(max(2, round((size_mb * 1e6 - header) / row)))], check=True, env=ENV)
    reader = PdhReader(str(path), SPEC, ImportOptions(), JobState(), lambda _m, _l: None)
    cols = [0, *reader.columns()]
    width = len(reader.header.cells)
    df = pl.read_csv(path, columns=cols, infer_schema=False)
    df.columns = ["time", *[f"c{i}" for i in range(1, df.width)]]
    df.write_csv(clean)
    return Input(path, clean, df.height, path.stat().st_size / 1e6,
                 f"esxtop_gen.py (no real esxtop batch file is public): {width:,} columns, {df.height:,} samples; "
                 f"the clean CSV holds the {len(cols) - 1:,} storage columns the import reads")


IMPORT = """
import os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen([sys.executable, {main!r}, "import", {src!r}, "-w", {ws!r}], stdout=subprocess.DEVNULL)
_, status, use = os.wait4(p.pid, 0)
if os.waitstatus_to_exitcode(status):
    raise SystemExit("import failed")
print(time.perf_counter() - t, use.ru_utime + use.ru_stime, use.ru_maxrss / 1024)
"""

YARDSTICK = """
import os, subprocess, sys, time
code = "import duckdb; c = duckdb.connect({db!r}); c.execute('SET enable_progress_bar = false'); " \\
       "c.execute(\\"CREATE TABLE t AS SELECT * FROM read_csv('{csv}')\\"); c.close()"
t = time.perf_counter()
p = subprocess.Popen([sys.executable, "-c", code])
_, status, use = os.wait4(p.pid, 0)
if os.waitstatus_to_exitcode(status):
    raise SystemExit("yardstick failed")
print(time.perf_counter() - t, use.ru_utime + use.ru_stime, use.ru_maxrss / 1024)
"""


def _run(code: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, all threads) and peak RSS (MB) of one fresh process, measured
    from outside it: interpreter start and imports count, as they do for a consultant."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV).stdout
    wall, cpu, rss = (float(x) for x in out.split())
    return wall, cpu, rss


@dataclass
class Result:
    wall: list[float]
    cpu: list[float]
    imp: list[tuple[float, float, float]]
    yard: list[tuple[float, float, float]]

    def line(self) -> str:
        w, c = self.wall, self.cpu
        return (f"wall {min(w):5.2f} / {statistics.median(w):5.2f} / {max(w):5.2f}   "
                f"CPU {min(c):5.2f} / {statistics.median(c):5.2f} / {max(c):5.2f}")


def _warm_up_file(inp: Input, folder: Path) -> Path:
    """The input's first lines (64 kB and at least three lines): enough to load and compile every module its
    import uses."""
    if inp.path.suffix == ".json":
        return inp.path  # not cut: a JSON document must be whole
    lines: list[bytes] = []
    with open(inp.path, "rb") as fh:
        while sum(map(len, lines)) < 1 << 16 or len(lines) < 3:
            line = fh.readline()
            if not line:
                break
            lines.append(line)
    warm = folder / ("warm" + inp.path.suffix)
    warm.write_bytes(b"".join(lines))
    return warm


def measure(inp: Input, rounds: int, folder: Path, command: str | None = None) -> Result:
    """``rounds`` rounds of import and yardstick, alternating which goes first (a busy moment weighs on both
    alike); ratios per round. One small warm-up import first (compiles the bytecode; not counted)."""
    main = str(ROOT / "main.py")
    code = command or IMPORT
    ws = folder / "bench.duckdb"
    db = folder / "yardstick.duckdb"

    def one(which: str) -> tuple[float, float, float]:
        for p in (ws, db, Path(str(ws) + ".wal"), Path(str(db) + ".wal")):
            p.unlink(missing_ok=True)
        if which == "imp":
            return _run(code.format(main=main, src=str(inp.path), ws=str(ws)))
        return _run(YARDSTICK.format(db=str(db), csv=str(inp.csv)))

    warm = Input(_warm_up_file(inp, folder), inp.csv, 0, 0.0, "")
    _run(code.format(main=main, src=str(warm.path), ws=str(folder / "warm.duckdb")))
    (folder / "warm.duckdb").unlink(missing_ok=True)
    if warm.path != inp.path:
        warm.path.unlink()
    res = Result([], [], [], [])
    for r in range(rounds):
        got = {}
        for which in (("yard", "imp"), ("imp", "yard"))[r % 2]:
            got[which] = one(which)
        res.imp.append(got["imp"])
        res.yard.append(got["yard"])
        res.wall.append(got["imp"][0] / got["yard"][0])
        res.cpu.append(got["imp"][1] / got["yard"][1])
    for p in (ws, db):
        p.unlink(missing_ok=True)
    return res


def machine_note() -> str:
    return (f"machine: {os.cpu_count()} cores shared with other people's work (load average "
            f"{os.getloadavg()[0]:.1f} now): wall times are skewed by them; the best (min) of the interleaved "
            "rounds is the figure, CPU time the steadier one")
