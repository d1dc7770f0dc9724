"""The overlay's series of a large run: time and memory of ``load_series`` against a yardstick in the same script.

Builds a workspace with one iostat run of SAMPLES reports x DEVICES devices (default 200,000 x 50 = 10 M rows,
values drawn at random with two decimals, as iostat prints them) straight through SQL, then stores the run's
per-report sums as an import does (app/series_sums.py ``store_sums``, timed: what the sums add to an import). A
workspace kept from an older StormScope (``--keep``) is migrated instead, timed too. Then, each in a fresh child
process (the workspace opened read-only, as ``report`` does; Python's imports are not timed):

* the series the overlay draws first: ``load_series(..., figures={"iops"})`` (whole disks: every device), what
  the chart loads for its default metric (app/ui/plot.py ``metric_figures``) -- from the stored sums;
* all series: ``load_series`` of the run with every figure (what the results table, the analyses and the report
  load) -- from the stored sums;
* the same two from the rows (``live``: the path any other device choice or ops takes, and the path before the
  sums were stored);
* the yardstick: one DuckDB ``SELECT sample_idx, sum(r_s + w_s) ... GROUP BY sample_idx`` over the same rows,
  the least any per-report aggregation of the rows can cost.

Prints seconds (wall and CPU: the CPU time is steadier on a shared machine), peak RSS and the ratios to the
yardstick: a ratio below 1 means the series is made faster than the rows can be summed at all. Every series
is also checked equal, frame for frame, between the stored and the live path. Issue 18's goals: < 0.5 s for the
series shown first, < 1.5 s for all series, values exact.

With ``--window``, also the window (offscreen, as a user opens it): the run selected in the run list, then the
seconds until the overlay has drawn its first curve and until the results table under it has its figures.

    python benchmarks/bench_overlay.py [--samples 200000] [--devices 50] [--keep FILE] [--window]
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
import resource, time
from app.series_sums import store_sums
t, ru = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
with ws.transaction():
    store_sums(ws.con, 1)  # what an import adds, inside its transaction
ws.con.execute("CHECKPOINT")
ru2 = resource.getrusage(resource.RUSAGE_SELF)
print(time.perf_counter() - t, ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime)
"""

MIGRATE = """
import resource, sys, time
from app.workspace import Workspace
t = time.perf_counter()
ws = Workspace(sys.argv[1])  # a writable open migrates (an older workspace: its sums are computed)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(time.perf_counter() - t, ru.ru_utime + ru.ru_stime, len(ws.migrated))
"""

MEASURE = """
import resource, sys, time
from app.workspace import Workspace
from app.analysis import series
from app.analysis.series import load_series
ws = Workspace(sys.argv[1], read_only=True)
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
what = sys.argv[2]
if what.endswith("-live"):  # the rows' path: as if no sums were stored
    series._stored_sums = lambda *a: None
elif what in ("first", "series"):  # the stored path must be the one taken
    assert series._stored_sums(ws, 1, None, series.DEFAULT_OPS, series.ALL_FIGURES) is not None
t, c = time.perf_counter(), cpu()
if what.startswith("first"):
    n = load_series(ws, 1, figures={"iops"}).frame.height
elif what.startswith("series"):
    n = load_series(ws, 1).frame.height
else:
    n = len(ws.con.execute("SELECT sample_idx, sum(r_s + w_s) FROM iostat_samples WHERE run_id = 1 AND NOT since_boot "
                           "GROUP BY 1").fetchall())
print(time.perf_counter() - t, cpu() - c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, n)
"""

SAME = """
import sys
from app.workspace import Workspace
from app.analysis import series
ws = Workspace(sys.argv[1], read_only=True)
stored = [series.load_series(ws, 1, figures=f) for f in (None, {"iops"})]
series._stored_sums = lambda *a: None
live = [series.load_series(ws, 1, figures=f) for f in (None, {"iops"})]
print(int(all(a.frame.equals(b.frame) and a.as_dict(points=False) == b.as_dict(points=False)
              and a.clock0_utc == b.clock0_utc for a, b in zip(stored, live))))
"""


WINDOW = """
import os, resource, sys, tempfile, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from app.ui.main_window import MainWindow
app = QApplication([])
settings = QSettings(os.path.join(tempfile.mkdtemp(), "settings.ini"), QSettings.Format.IniFormat)
w = MainWindow(sys.argv[1], settings)
w.resize(1366, 768)
w.show()
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
def wait(done):
    while not done():
        app.processEvents()
        time.sleep(0.002)
    return time.perf_counter() - t, cpu() - c
for _ in range(50):  # the window settles (its first paint, the run list) before the user clicks
    app.processEvents()
    time.sleep(0.01)
t, c = time.perf_counter(), cpu()
w.browser.select_runs([1])  # the user selects the run: the overlay draws it, then the results table fills in
first = wait(lambda: not w.plot.loading and len(w.plot.curves) == 1)
table = wait(lambda: not w.results.busy and len(w.results.rows) > 0)
print(*first, *table, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
w.close()
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
    ap.add_argument("--window", action="store_true", help="also time the window: the run selected, its first "
                    "curve drawn, then the results table filled in")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.keep or Path(tmp) / "overlay.duckdb"
        store = None
        if not ws.exists():
            t = time.perf_counter()
            store = child(BUILD, str(ws), str(args.samples), str(args.devices))
            print(f"built {args.samples * args.devices:,} rows in {time.perf_counter() - t:.1f} s")
        else:
            m_s, m_c, steps = child(MIGRATE, str(ws))
            print(f"opened {ws} for writing: {m_s:.2f} s ({m_c:.2f} s CPU), {steps:.0f} migration steps")
        y_s, y_c, y_mb, n = child(MEASURE, str(ws), "yardstick")
        print(f"yardstick (one SQL sum per report):  {y_s:.2f} s ({y_c:.2f} s CPU), peak RSS {y_mb:,.0f} MB, "
              f"{n:,.0f} reports")
        if store is not None:
            print(f"storing the sums (import's step):    {store[0]:.2f} s ({store[1]:.2f} s CPU)  "
                  f"ratio {store[0] / y_s:.1f}x ({store[1] / y_c:.1f}x CPU)")
        goals = {"first": ("series shown first (IOPS)", 0.5), "series": ("all series (every figure)", 1.5)}
        for what in ("first", "series", "first-live", "series-live"):
            label, goal = goals[what.split("-")[0]]
            w_s, c_s, mb, m = child(MEASURE, str(ws), what)
            label += ", from the rows:" if what.endswith("live") else ", stored sums:"
            print(f"{label:42s}{w_s:.2f} s ({c_s:.2f} s CPU), peak RSS {mb:,.0f} MB  ratio {w_s / y_s:.2f}x "
                  f"({c_s / y_c:.2f}x CPU)  goal < {goal} s -> {'met' if w_s < goal else 'NOT met'}")
        if args.window:  # the window: its first curve, then the results table (a writable open, as the window's)
            c1, c1c, tb, tbc, mb = child(WINDOW, str(ws))
            print(f"window: first curve after {c1:.2f} s ({c1c:.2f} s CPU), results table after {tb:.2f} s "
                  f"({tbc:.2f} s CPU), peak RSS {mb:,.0f} MB")
        same = child(SAME, str(ws))
        print(f"reports: {m:,.0f}; stored and live series equal (frame.equals, every figure set): "
              f"{'yes' if same == [1.0] else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
