"""Every line-oriented format's import against the one honest yardstick (issue 31's table), with today's figures.

For each row of the table: a real capture scaled to the size (``yardstick.make_input``: real records repeated with
shifted times; esxtop generated, no real batch file being public), its clean CSV (the same rows, only the fields
the file has), then ``rounds`` rounds of ``main.py import`` (the whole process, as a consultant runs it) and the
yardstick ``CREATE TABLE t AS SELECT * FROM read_csv('clean.csv')`` (the whole process too), alternating which goes
first. Prints import ÷ yardstick as min / median / max, wall and CPU (user + system, all threads), the best
seconds of each, and the import's peak RSS. Goal: <= 1.5 in CPU.

    python benchmarks/bench_formats.py [--rounds 3] [--only iostat,sadf] [--scale 1.0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import yardstick as y

# the rows of issue 31's table: (format, MB)
TABLE = [("iostat", 30), ("iostat", 100), ("iostat", 300), ("iostat", 1024), ("iostat-json", 100), ("sadf", 105),
         ("sar", 105), ("nmon", 105), ("perfmon", 31), ("esxtop", 100)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="comma-separated formats (iostat, iostat-json, sadf, sar, nmon, perfmon, esxtop)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every size (0.1 for a quick look)")
    ap.add_argument("--keep", help="keep the inputs in this folder (and reuse them)")
    args = ap.parse_args()
    rows = [(f, mb * args.scale) for f, mb in TABLE if not args.only or f in args.only.split(",")]
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="stormscope-bench-"))
    try:
        print(y.machine_note())
        print(f"{'input':<34} {'rows':>11}   import ÷ yardstick, min / median / max ({args.rounds} rounds)"
              "              best s: import  yardstick   peak RSS")
        for fmt, mb in rows:
            inp = y.make_input(fmt, mb, tmp)
            res = y.measure(inp, args.rounds, tmp)
            best_imp = min(res.imp)
            best_yard = min(res.yard)
            print(f"{y.LABELS[fmt] + f' {inp.mb:,.0f} MB':<34} {inp.rows:>11,}   {res.line()}   "
                  f"{best_imp[0]:7.2f} {best_yard[0]:9.2f}   {max(r[2] for r in res.imp):6,.0f} MB", flush=True)
            print(f"    {inp.note}", flush=True)
            if not args.keep:
                inp.path.unlink()
                inp.csv.unlink()
        print(y.machine_note())
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(y.PYCACHE, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
