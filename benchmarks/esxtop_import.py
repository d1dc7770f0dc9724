"""How fast an esxtop batch file imports and how much memory it takes, against a yardstick on the same file.

Imports FILE (by default one written by benchmarks/esxtop_gen.py: 60 VMs, 12 devices, ~7,500 columns x 720
samples) into a new workspace, in a child process, and measures its wall time and peak RSS. The yardstick, in
another child: polars' ``read_csv`` of the same file with only the columns StormScope reads, as text, then cast
to numbers (the time stamps to times) -- the least any reader of this file has to do. The ratio says what the
import costs beyond that (checks, conversions, the iostat_samples frames, the DuckDB transaction). Not part of
``make test``.

    python benchmarks/esxtop_import.py [FILE] [--samples 720 --vms 60 --devices 12]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IMPORT = """
import json, sys, time
sys.path.insert(0, {root!r})
from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
ws = Workspace({ws!r})
t = time.perf_counter()
r = import_file(ws, {path!r}, ImportOptions())
s = time.perf_counter() - t
assert r.status == "imported", r.error
ws.close()
print(json.dumps({{"seconds": s, "rows": r.rows}}))
"""

YARDSTICK = """
import json, sys, time
sys.path.insert(0, {root!r})
import polars as pl
cols = {cols!r}
t = time.perf_counter()
df = pl.read_csv({path!r}, columns=cols, infer_schema=False, has_header=True)
first = df.columns[0]
df = df.select(pl.col(first).str.to_datetime("%m/%d/%Y %H:%M:%S"),
               pl.all().exclude(first).str.strip_chars().cast(pl.Float64))
s = time.perf_counter() - t
print(json.dumps({{"seconds": s, "cells": df.height * df.width}}))
"""


def child(code: str) -> tuple[dict, float]:
    """Run ``code`` in a fresh interpreter; its JSON output and its peak RSS in MB."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"child failed ({proc.returncode})")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--samples", type=int, default=720)
    ap.add_argument("--vms", type=int, default=60)
    ap.add_argument("--devices", type=int, default=12)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from parsers.base import ImportOptions, JobState
    from parsers.esxtop import SPEC
    from parsers.pdh import PdhReader

    with tempfile.TemporaryDirectory(prefix="esxtop-bench-") as tmp:
        path = args.file
        if path is None:
            path = str(Path(tmp) / "esxtop_gen.csv")
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "esxtop_gen.py"), path, "--samples",
                            str(args.samples), "--vms", str(args.vms), "--devices", str(args.devices)], check=True)
        reader = PdhReader(path, SPEC, ImportOptions(), JobState(), lambda _m, _l: None)
        cols = reader.columns()
        width = len(reader.header.cells)
        size_mb = os.path.getsize(path) / 2**20
        imp, imp_rss = child(IMPORT.format(root=str(ROOT), ws=str(Path(tmp) / "ws.duckdb"), path=path))
        yard, yard_rss = child(YARDSTICK.format(root=str(ROOT), path=path, cols=[0, *cols]))
        print(f"file          {size_mb:8.1f} MB, {width:,} columns; StormScope reads {len(cols):,} of them")
        print(f"import        {imp['seconds']:8.2f} s   peak RSS {imp_rss:7.0f} MB   {imp['rows']:,} "
              "iostat_samples rows")
        print(f"yardstick     {yard['seconds']:8.2f} s   peak RSS {yard_rss:7.0f} MB   (polars read_csv of those "
              f"columns, cast to numbers)")
        print(f"ratio         {imp['seconds'] / yard['seconds']:8.1f} x the yardstick's time, "
              f"{imp_rss / yard_rss:.1f} x its memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
