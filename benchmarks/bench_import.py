"""Import throughput and memory of a large `iostat -xt` log.

Generates a realistic log (sysstat 12.3+ `-xt` layout, 50 devices, 1 s interval; default 1 GB),
imports it into a fresh workspace in a child process, and prints:

* the import's time against the yardstick (issue 18): DuckDB's `CREATE TABLE ... AS SELECT * FROM
  read_csv(clean.csv)` of the very same rows, run alternately with the import in each of ``--rounds``
  rounds (the machine may be shared: the median ratio is the figure), and each child's own peak RSS;
* import MB/s and rows/s against polars reading the same numbers from the clean CSV (issue 2's target);
* the import's two halves on their own: parsing the log (no storing), and storing the same rows
  (frames read from the clean CSV, stored through the importer's own path, no parsing) (``--parts``).

Targets: import <= 1.5 x the yardstick with peak RSS <= 0.5 GB (issue 18); import at least half the
polars throughput (rows/s), peak RSS under half the file (issue 2).

With ``--json`` the same is measured for an ``iostat -o JSON`` capture (sysstat 12.x keys, the same values),
which is streamed too: the yardstick is the same DuckDB read of the clean CSV of the rows it imports.

With ``--sql-design`` the DuckDB-side parse issue 18 describes, prototyped in ``iostat_sql_design.py``, is timed
against the same yardstick the same way (text log only).

    python benchmarks/bench_import.py [--size-mb 1024] [--devices 50] [--rounds 3] [--parts] [--json] [--keep DIR]
                                      [--sql-design]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEADER = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm "
          "w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util")


COLUMN_ENDS = [m.end() for m in __import__("re").finditer(r"\S+", HEADER)][1:]


def device_names(n: int) -> list[str]:
    names = [f"sd{chr(97 + i // 26) if i >= 26 else ''}{chr(97 + i % 26)}" for i in range(n - n // 5)]
    names += [f"dm-{i}" for i in range(n // 5)]
    return names[:n]


def aligned_row(device: str, values: list[float]) -> str:
    """A row as sysstat prints it: each value right-aligned under the end of its header name."""
    row = device
    for end, v in zip(COLUMN_ENDS, values):
        cell = f"{v:.2f}"
        row += cell.rjust(end - len(row)) if end - len(row) > len(cell) else " " + cell
    return row


def make_reports(devices: list[str], variants: int, rng: random.Random) -> list[str]:
    """A pool of distinct device blocks (cycled through when writing the log)."""
    out = []
    for _ in range(variants):
        lines = [HEADER]
        for d in devices:
            r, w = rng.uniform(0, 3000), rng.uniform(0, 2000)
            vals = [r, r * rng.uniform(4, 64), rng.uniform(0, 50), rng.uniform(0, 30), rng.uniform(0.1, 40),
                    rng.uniform(4, 64), w, w * rng.uniform(4, 64), rng.uniform(0, 80), rng.uniform(0, 60),
                    rng.uniform(0.1, 90), rng.uniform(4, 128), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                    rng.uniform(0, 20), rng.uniform(0, 3), rng.uniform(0, 30), rng.uniform(0, 100)]
            lines.append(aligned_row(d, vals))
        out.append("\n".join(lines) + "\n\n")
    return out


def generate(path: Path, size_mb: int, n_devices: int) -> int:
    rng = random.Random(42)
    devices = device_names(n_devices)
    pool = make_reports(devices, 64, rng)
    target = size_mb * 1024 * 1024
    t = datetime(2024, 3, 14, 8, 0, 0)
    n = 0
    with open(path, "w") as fh:
        fh.write("Linux 6.1.0-18-amd64 (vdi-storage-01) \t03/14/2024 \t_x86_64_\t(32 CPU)\n\n")
        written = 0
        while written < target:
            stamp = t.strftime("%m/%d/%Y %I:%M:%S %p")
            cpu = (f"{stamp}\navg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
                   f"          {rng.uniform(1, 40):6.2f}    0.00 {rng.uniform(1, 20):7.2f} "
                   f"{rng.uniform(0, 30):7.2f}    0.00 {rng.uniform(10, 90):7.2f}\n\n")
            block = cpu + pool[n % len(pool)]
            fh.write(block)
            written += len(block)
            t += timedelta(seconds=1)
            n += 1
    return n


JSON_KEYS = ["r/s", "rkB/s", "rrqm/s", "rrqm", "r_await", "rareq-sz", "w/s", "wkB/s", "wrqm/s", "wrqm", "w_await",
             "wareq-sz", "d/s", "dkB/s", "drqm/s", "drqm", "d_await", "dareq-sz", "f/s", "f_await", "aqu-sz", "util"]


def generate_json(path: Path, size_mb: int, n_devices: int) -> int:
    """An ``iostat -xt -o JSON`` capture as sysstat 12.x writes it (one line per device), the text log's values."""
    rng = random.Random(42)
    devices = device_names(n_devices)
    pool = []
    for block in make_reports(devices, 64, rng):
        disks = []
        for row in block.splitlines()[1:]:
            if row:
                dev, *vals = row.split()
                disks.append('\t\t\t\t\t\t{"disk_device": "' + dev + '", '
                             + ", ".join(f'"{k}": {v}' for k, v in zip(JSON_KEYS, vals)) + "}")
        pool.append(",\n".join(disks))
    target = size_mb * 1024 * 1024
    t = datetime(2024, 3, 14, 8, 0, 0)
    n = 0
    with open(path, "w") as fh:
        fh.write('{"sysstat": {\n\t"hosts": [\n\t\t{\n\t\t\t"nodename": "vdi-storage-01",\n\t\t\t"sysname": "Linux",\n'
                 '\t\t\t"release": "6.1.0-18-amd64",\n\t\t\t"machine": "x86_64",\n\t\t\t"number-of-cpus": 32,\n'
                 '\t\t\t"date": "03/14/2024",\n\t\t\t"statistics": [\n')
        written = 0
        while written < target:
            cpu = (f'"avg-cpu":  {{"user": {rng.uniform(1, 40):.2f}, "nice": 0.00, "system": {rng.uniform(1, 20):.2f}, '
                   f'"iowait": {rng.uniform(0, 30):.2f}, "steal": 0.00, "idle": {rng.uniform(10, 90):.2f}}}')
            block = (("," if n else "") + f'\n\t\t\t\t{{\n\t\t\t\t\t"timestamp": "{t:%m/%d/%Y %I:%M:%S %p}",\n'
                     f'\t\t\t\t\t{cpu},\n\t\t\t\t\t"disk": [\n{pool[n % len(pool)]}\n\t\t\t\t\t]\n\t\t\t\t}}')
            fh.write(block)
            written += len(block)
            t += timedelta(seconds=1)
            n += 1
        fh.write("\n\t\t\t]\n\t\t}\n\t]\n}}\n")
    return n


CHILD_IMPORT = """
import sys, time, json, resource
sys.path.insert(0, {root!r})
from app.workspace import Workspace
from app.importer import import_file
from parsers.base import ImportOptions
t, c = time.perf_counter(), time.process_time()
with Workspace({ws!r}, for_import=True) as ws:  # as main.py import opens it (memory bounded)
    r = import_file(ws, {src!r}, ImportOptions())
print(json.dumps({{"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "status": r.status,
                  "rows": r.rows, "error": r.error,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

CHILD_SQL_DESIGN = """
import subprocess, sys
sys.stdout.write(subprocess.run([sys.executable, {root!r} + "/benchmarks/iostat_sql_design.py", {src!r}, {ws!r}],
                                capture_output=True, text=True, check=True).stdout)
"""

CHILD_YARDSTICK = """
import time, json, resource, duckdb
c = duckdb.connect({db!r})
c.execute("SET enable_progress_bar = false")
t, cpu = time.perf_counter(), time.process_time()
c.execute("CREATE TABLE t AS SELECT * FROM read_csv({csv!r})")
n = c.execute("SELECT count(*) FROM t").fetchall()[0][0]
c.close()
print(json.dumps({{"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu, "rows": n,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

CHILD_PARSE = """
import sys, time, json
sys.path.insert(0, {root!r})
from parsers.base import ImportOptions, JobState, Rows
from parsers.iostat import IostatTextFormat
from parsers.iostat_json import IostatJsonFormat
fmt = IostatJsonFormat() if {src!r}.endswith(".json") else IostatTextFormat()
t = time.perf_counter()
rows = sum(ev.frame.height for ev in fmt.parse({src!r}, ImportOptions(), JobState(), lambda *a: None)
           if isinstance(ev, Rows) and ev.table == "iostat_samples")
print(json.dumps({{"seconds": time.perf_counter() - t, "rows": rows}}))
"""

CHILD_STORE = """
import sys, time, json
sys.path.insert(0, {root!r})
import polars as pl
from app.workspace import Workspace
from parsers.base import ImportOptions, RunEnd, RunInfo, RunStart, Rows
df = pl.read_csv({csv!r})
chunks = list(df.iter_slices(100_000))  # about what the parser hands over per chunk
events = [RunStart("h", RunInfo(kind="iostat")), *[Rows("h", "iostat_samples", c) for c in chunks], RunEnd("h")]
t = time.perf_counter()
with Workspace({ws!r}, for_import=True) as ws:  # as main.py import opens it (memory bounded)
    ws.import_events({src!r}, "iostat", "iostat", iter(events), ImportOptions(), "0" * 64, 0, [])
print(json.dumps({{"seconds": time.perf_counter() - t, "rows": df.height}}))
"""

CHILD_SNAPSHOT = """
import sys, time, json, hashlib, tempfile
from pathlib import Path
sys.path.insert(0, {root!r})
from app.importer import snapshot
t = time.perf_counter()
h = hashlib.sha256()
with open({src!r}, "rb") as fh:
    while b := fh.read(4 << 20):
        h.update(b)
hash_only = time.perf_counter() - t
with tempfile.TemporaryDirectory(dir={tmp!r}) as d:
    t = time.perf_counter()
    snapshot({src!r}, Path(d))
    snap = time.perf_counter() - t
print(json.dumps({{"hash_only": hash_only, "snapshot": snap}}))
"""

CHILD_EXPORT = """
import sys, duckdb
c = duckdb.connect({ws!r}, read_only=True)
c.execute("SET enable_progress_bar = false")
c.execute("COPY (SELECT * EXCLUDE (run_id, ts, is_group) FROM iostat_samples) TO {csv!r} (HEADER)")
"""

CHILD_POLARS = """
import time, json, polars as pl
t = time.perf_counter()
df = pl.read_csv({csv!r})
print(json.dumps({{"seconds": time.perf_counter() - t, "rows": df.height}}))
"""


def child(code: str) -> tuple[dict, float]:
    """Run ``code`` in a fresh interpreter; return its JSON line and peak RSS in MB."""
    import json

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    # ru_maxrss of children is the max over all children so far: keep each child the biggest yet
    return out, max(peak, before) / 1024.0


def rounds_against_yardstick(src: Path, csv: Path, tmp: Path, n: int, file_mb: float,
                             code: str = CHILD_IMPORT, what: str = "import") -> tuple[dict, float]:
    """Yardstick and import (or ``code``, named ``what``) alternately, ``n`` rounds; print each and the median
    ratio. Returns the last import's result and the largest peak RSS of the imports."""
    import statistics

    ratios, cpu_ratios, peaks, imp = [], [], [], {}
    for r in range(n):
        ws, db = tmp / f"round-{r}.duckdb", tmp / f"yardstick-{r}.duckdb"
        first, second = (("yard", "imp"), ("imp", "yard"))[r % 2]  # alternate which goes first
        got = {}
        for which in (first, second):
            if which == "yard":
                got["yard"] = child(CHILD_YARDSTICK.format(db=str(db), csv=str(csv)))[0]
            else:
                got["imp"] = child(code.format(root=str(ROOT), ws=str(ws), src=str(src)))[0]
        for p in (ws, db):
            p.unlink(missing_ok=True)
        imp, yard = got["imp"], got["yard"]
        if imp.get("status", "imported") != "imported":
            print(f"{what} failed: {imp}")
            return imp, 0.0
        ratios.append(imp["seconds"] / yard["seconds"])
        cpu_ratios.append(imp["cpu"] / yard["cpu"])
        peaks.append(imp["rss_mb"])
        print(f"round {r + 1}: {what} {imp['seconds']:6.2f} s (CPU {imp['cpu']:6.2f} s, peak RSS "
              f"{imp['rss_mb']:,.0f} MB)"
              f"  yardstick {yard['seconds']:6.2f} s (CPU {yard['cpu']:6.2f} s, peak RSS {yard['rss_mb']:,.0f} MB)"
              f"  ratio {ratios[-1]:.2f} (CPU {cpu_ratios[-1]:.2f})")
    print(f"{what} / yardstick (DuckDB CREATE TABLE AS SELECT * FROM read_csv of the same rows): median "
          f"{statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}, {n} rounds)  "
          "(target <= 1.50)")
    print(f"  the same in CPU time (steadier on a shared machine; both use the 2 cores where they can): median "
          f"{statistics.median(cpu_ratios):.2f} (min {min(cpu_ratios):.2f}, max {max(cpu_ratios):.2f})")
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work skews wall times)")
    print(f"{what} peak RSS: {max(peaks):,.0f} MB  (target <= 512 MB; {max(peaks) / file_mb:.2f} of the file)")
    return imp, max(peaks)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--devices", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3, help="yardstick/import rounds (median ratio printed)")
    ap.add_argument("--parts", action="store_true", help="also time parsing alone and storing alone")
    ap.add_argument("--json", action="store_true", help="an iostat -o JSON capture instead of the text log")
    ap.add_argument("--keep", help="keep the generated files in this folder")
    ap.add_argument("--sql-design", action="store_true",
                    help="also time issue 18's DuckDB-side parse, prototyped (benchmarks/iostat_sql_design.py)")
    args = ap.parse_args()

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="stormscope-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    src = tmp / ("iostat-xt.json" if args.json else "iostat-xt.txt")
    ws, csv = tmp / "bench.duckdb", tmp / "same-numbers.csv"
    for p in (ws, csv):
        if p.exists():
            p.unlink()
    try:
        t = time.perf_counter()
        reports = (generate_json if args.json else generate)(src, args.size_mb, args.devices)
        size_mb = src.stat().st_size / 1e6
        print(f"generated {src.name}: {size_mb:,.0f} MB, {reports:,} reports x {args.devices} devices "
              f"in {time.perf_counter() - t:.1f} s")

        # the clean CSV of the imported rows (the yardstick's input and polars')
        first, _ = child(CHILD_IMPORT.format(root=str(ROOT), ws=str(ws), src=str(src)))
        if first.get("status") != "imported":
            print(f"import failed: {first}")
            return 1
        subprocess.run([sys.executable, "-c", CHILD_EXPORT.format(ws=str(ws), csv=str(csv))], check=True)
        csv_mb = csv.stat().st_size / 1e6
        imp, imp_rss = rounds_against_yardstick(src, csv, tmp, args.rounds, size_mb)
        if not imp_rss:
            return 1
        pol, _ = child(CHILD_POLARS.format(csv=str(csv)))
        snap, _ = child(CHILD_SNAPSHOT.format(root=str(ROOT), src=str(src), tmp=str(tmp)))
        rows = imp["rows"]
        imp_rows_s = rows / imp["seconds"]
        pol_rows_s = pol["rows"] / pol["seconds"]
        print(f"import : {imp['seconds']:7.2f} s  {size_mb / imp['seconds']:8.1f} MB/s  {imp_rows_s:12,.0f} rows/s")
        print(f"polars : {pol['seconds']:7.2f} s  {csv_mb / pol['seconds']:8.1f} MB/s  {pol_rows_s:12,.0f} rows/s"
              f"  (read_csv of the same {pol['rows']:,} rows, {csv_mb:,.0f} MB clean CSV)")
        print(f"  snapshot   : {snap['snapshot']:7.2f} s  (copy + SHA-256 in one read: what is parsed is what is "
              f"hashed; the former hash-only pass took {snap['hash_only']:.2f} s) = "
              f"{(snap['snapshot'] - snap['hash_only']) / imp['seconds']:.1%} of the import added")
        if args.sql_design and not args.json:
            print("issue 18's DuckDB-side parse, prototyped (a floor: no CPU rows, sums, snapshot or fallbacks):")
            rounds_against_yardstick(src, csv, tmp, args.rounds, size_mb, CHILD_SQL_DESIGN, "SQL design")
        if args.parts:
            parse, _ = child(CHILD_PARSE.format(root=str(ROOT), src=str(src)))
            store_ws = tmp / "store-only.duckdb"
            store, _ = child(CHILD_STORE.format(root=str(ROOT), ws=str(store_ws), src=str(src), csv=str(csv)))
            store_ws.unlink()
            print(f"  parse only : {parse['seconds']:7.2f} s  {parse['rows'] / parse['seconds']:12,.0f} rows/s"
                  "  (the parser's frames, nothing stored)")
            print(f"  store only : {store['seconds']:7.2f} s  {store['rows'] / store['seconds']:12,.0f} rows/s"
                  "  (the same rows from the CSV, stored the importer's way in one transaction)")
        print(f"import / polars throughput (rows/s): {imp_rows_s / pol_rows_s:.2f}  (target >= 0.50)")
        print(f"peak RSS / file size: {imp_rss / size_mb:.2f}  (target < 0.50)")
        print(f"cores: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f} (other work skews times)")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
