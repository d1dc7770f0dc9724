"""The overlay's series of a large run: time and memory of ``load_series`` against a yardstick in the same script.

Builds a workspace with one iostat run of SAMPLES reports x DEVICES devices (default 200,000 x 50 = 10 M rows,
values drawn at random with two decimals, as iostat prints them) straight through SQL, then, each in a fresh child
process:

* the series the overlay draws first: ``load_series(..., figures={"iops"})`` (whole disks: every device), what
  the chart loads for its default metric (app/ui/plot.py ``metric_figures``);
* all series: ``load_series`` of the run with every figure (what the results table, the analyses and the report
  load);
* the yardstick: one DuckDB ``SELECT sample_idx, sum(r_s + w_s) ... GROUP BY sample_idx`` over the same rows,
  the least any per-report aggregation can cost.

Prints seconds (wall and CPU: the CPU time is steadier on a shared machine), peak RSS and the ratios to the
yardstick. Issue 18's goals: < 0.5 s for the series shown first, < 1.5 s for all series, values exact.

    python benchmarks/bench_overlay.py [--samples 200000] [--devices 50] [--keep FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BUILD = """
import sys
from app.workspace import Workspace
ws = Workspace(sys.argv[1])
ws.con.execute("INSERT INTO runs (run_id, name, kind, format, source_path, source_sha256, imported_at, interval_s, "
               "interval_source) VALUES (1, 'big', 'iostat', 'iostat-text', '/big', 'x', now(), 1, 'timestamps')")
ws.con.execute(f'''INSERT INTO iostat_samples (run_id, sample_idx, ts, t_s, device, since_boot, r_s, w_s, d_s, f_s,
  rkb_s, wkb_s, r_await_ms, w_await_ms, await_ms, aqu_sz, util_pct)
  SELECT 1, s, TIMESTAMP '2026-01-01' + to_seconds(s), s + 1.0, 'sd' || d, s = 0, round(random() * 500, 2),
   round(random() * 300, 2), 0, round(random() * 2, 2), round(random() * 4000, 2), round(random() * 3000, 2),
   round(random() * 5, 2), round(random() * 8, 2), round(random() * 6, 2), round(random() * 3, 2),
   round(random() * 100, 2)
  FROM range({int(sys.argv[2])}) t(s), range({int(sys.argv[3])}) u(d)''')
ws.con.execute("CHECKPOINT")
"""

MEASURE = """
import resource, sys, time
from app.workspace import Workspace
from app.analysis.series import load_series
ws = Workspace(sys.argv[1], read_only=True)
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
t, c = time.perf_counter(), cpu()
if sys.argv[2] == "first":
    n = load_series(ws, 1, figures={"iops"}).frame.height
elif sys.argv[2] == "series":
    n = load_series(ws, 1).frame.height
else:
    n = len(ws.con.execute("SELECT sample_idx, sum(r_s + w_s) FROM iostat_samples WHERE run_id = 1 AND NOT since_boot "
                           "GROUP BY 1").fetchall())
print(time.perf_counter() - t, cpu() - c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, n)
"""


def child(code: str, *args: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return [float(x) for x in out.stdout.strip().splitlines()[-1].split()]  # the last line (after any progress)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200_000)
    ap.add_argument("--devices", type=int, default=50)
    ap.add_argument("--keep", type=Path, help="build the workspace here (reused when it exists)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.keep or Path(tmp) / "overlay.duckdb"
        if not ws.exists():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", BUILD, str(ws), str(args.samples), str(args.devices)], cwd=ROOT,
                           check=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
            print(f"built {args.samples * args.devices:,} rows in {time.perf_counter() - t:.1f} s")
        y_s, y_c, y_mb, n = child(MEASURE, str(ws), "yardstick")
        f_s, f_c, f_mb, _ = child(MEASURE, str(ws), "first")
        s_s, s_c, s_mb, m = child(MEASURE, str(ws), "series")
        print(f"yardstick (one SQL sum per report):  {y_s:.2f} s ({y_c:.2f} s CPU), peak RSS {y_mb:,.0f} MB, "
              f"{n:,.0f} reports")
        print(f"series shown first (IOPS):           {f_s:.2f} s ({f_c:.2f} s CPU), peak RSS {f_mb:,.0f} MB  "
              f"ratio {f_s / y_s:.1f}x ({f_c / y_c:.1f}x CPU)  goal < 0.5 s -> {'met' if f_s < 0.5 else 'NOT met'}")
        print(f"all series (every figure):           {s_s:.2f} s ({s_c:.2f} s CPU), peak RSS {s_mb:,.0f} MB  "
              f"ratio {s_s / y_s:.1f}x ({s_c / y_c:.1f}x CPU)  goal < 1.5 s -> {'met' if s_s < 1.5 else 'NOT met'}")
        print(f"reports: {m:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
