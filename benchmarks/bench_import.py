"""Import throughput and memory of a large iostat capture, against the one honest yardstick (issue 31).

The input is a real capture (``iostat -dxt -p ALL 1 30``, or its ``-o JSON`` twin with ``--json``; see
``benchmarks/seeds/README.md``) scaled up by repeating its real records with shifted times, written by the shared
helper ``yardstick.make_input`` together with its clean CSV: the same rows and only the fields the file has (time,
device and its 22 values), never a CSV exported from the workspace. Prints:

* ``main.py import`` (the whole process, as a consultant runs it) against the yardstick -- DuckDB's
  ``CREATE TABLE t AS SELECT * FROM read_csv('clean.csv')``, the whole process too -- alternately in each of
  ``--rounds`` rounds: ratios min / median / max, wall and CPU, and each side's best seconds and peak RSS;
* import MB/s and rows/s against polars reading the clean CSV (issue 2's target);
* the snapshot (copy + SHA-256) and, with ``--parts``, parsing alone and storing alone;

Targets: import <= 1.5 x the yardstick in CPU with peak RSS <= 0.5 GB (issues 18, 31).

``generate`` (a synthetic 50-device ``iostat -xt`` log) stays for the benchmarks that need a big workspace, not a
yardstick (bench_grid, bench_folder_report).

    python benchmarks/bench_import.py [--size-mb 1024] [--rounds 3] [--parts] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
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
from app.workspace import Workspace
from parsers.base import ImportOptions, JobState
from parsers.iostat import IostatTextFormat
from parsers.iostat_json import IostatJsonFormat
fmt = IostatJsonFormat() if {src!r}.endswith(".json") else IostatTextFormat()
events = list(fmt.parse({src!r}, ImportOptions(), JobState(), lambda *a: None))  # held in memory, not timed
t = time.perf_counter()
with Workspace({ws!r}, for_import=True) as ws:  # as main.py import opens it (memory bounded)
    ws.import_events({src!r}, fmt.id, fmt.kind, iter(events), ImportOptions(), "0" * 64, 0, [])
print(json.dumps({{"seconds": time.perf_counter() - t}}))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--rounds", type=int, default=3, help="yardstick/import rounds")
    ap.add_argument("--parts", action="store_true",
                    help="also time parsing alone and storing alone (the parsed frames are held in memory)")
    ap.add_argument("--json", action="store_true", help="an iostat -o JSON capture instead of the text log")
    ap.add_argument("--keep", help="keep the generated files in this folder")
    args = ap.parse_args()
    import yardstick as y  # here, not at the top: bench_grid and bench_folder_report import generate

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="stormscope-bench-"))
    try:
        print(y.machine_note())
        t = time.perf_counter()
        inp = y.make_input("iostat-json" if args.json else "iostat", args.size_mb, tmp)
        print(f"input: {inp.path.name}, {inp.mb:,.0f} MB, {inp.rows:,} rows ({time.perf_counter() - t:.0f} s to "
              f"write)\n  {inp.note}\n  clean CSV {inp.csv.stat().st_size / 1e6:,.0f} MB (time, device and its "
              "values: the same rows, only the fields the file has)")
        res = y.measure(inp, args.rounds, tmp)
        for r, (imp, yard) in enumerate(zip(res.imp, res.yard, strict=True)):
            print(f"round {r + 1}: import {imp[0]:6.2f} s (CPU {imp[1]:6.2f} s, peak RSS {imp[2]:,.0f} MB)  "
                  f"yardstick {yard[0]:6.2f} s (CPU {yard[1]:6.2f} s, peak RSS {yard[2]:,.0f} MB)  "
                  f"ratio {res.wall[r]:.2f} (CPU {res.cpu[r]:.2f})")
        print(f"import ÷ yardstick (min / median / max): {res.line()}   (target <= 1.50 in CPU)")
        best = min(res.imp)
        peak = max(i[2] for i in res.imp)
        print(f"import peak RSS: {peak:,.0f} MB  (target <= 512 MB; {peak / inp.mb:.2f} of the file)")
        pol, _ = child(CHILD_POLARS.format(csv=str(inp.csv)))
        snap, _ = child(CHILD_SNAPSHOT.format(root=str(ROOT), src=str(inp.path), tmp=str(tmp)))
        imp_rows_s = inp.rows / best[0]
        pol_rows_s = pol["rows"] / pol["seconds"]
        csv_mb = inp.csv.stat().st_size / 1e6
        print(f"import : {best[0]:7.2f} s  {inp.mb / best[0]:8.1f} MB/s  {imp_rows_s:12,.0f} rows/s  (best round, "
              "whole process)")
        print(f"polars : {pol['seconds']:7.2f} s  {csv_mb / pol['seconds']:8.1f} MB/s  {pol_rows_s:12,.0f} rows/s"
              f"  (read_csv of the same {pol['rows']:,} rows, {csv_mb:,.0f} MB clean CSV)")
        print(f"  snapshot   : {snap['snapshot']:7.2f} s  (copy + SHA-256; hashing alone takes "
              f"{snap['hash_only']:.2f} s)")
        if args.parts:
            parse, _ = child(CHILD_PARSE.format(root=str(ROOT), src=str(inp.path)))
            store_ws = tmp / "store-only.duckdb"
            store, _ = child(CHILD_STORE.format(root=str(ROOT), ws=str(store_ws), src=str(inp.path)))
            store_ws.unlink()
            print(f"  parse only : {parse['seconds']:7.2f} s  {parse['rows'] / parse['seconds']:12,.0f} rows/s"
                  "  (the parser's frames, nothing stored)")
            print(f"  store only : {store['seconds']:7.2f} s  {inp.rows / store['seconds']:12,.0f} rows/s"
                  "  (the same parsed events, stored the importer's way in one transaction)")
        print(f"import / polars throughput (rows/s): {imp_rows_s / pol_rows_s:.2f}  (target >= 0.50)")
        print(y.machine_note())
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(y.PYCACHE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
