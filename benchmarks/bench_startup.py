"""Cold start to a usable window, on an empty workspace (goal: under 1.5 s).

    python benchmarks/bench_startup.py [ROUNDS]

Each round starts fresh interpreters (offscreen): the yardstick shows an empty QMainWindow (Python + Qt alone), then
StormScope's window is built on a new workspace and shown the way main.py does it (large libraries first, then Qt),
timed until the event loop has run once (the window is painted and answers input). Prints the medians, the ratio
to the yardstick, the window process's CPU time, and what it imported (the heavy modules left for later are listed
as deferred). The Histograms, IOzone and Sizing tabs are built when first shown (app/ui/lazy_view.py).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ["polars", "duckdb", "pyqtgraph", "numpy", "pyarrow", "reportlab", "parsers.registry", "app.importer",
         "app.ui.histo_view", "app.ui.iozone_view", "app.ui.sizing_panel"]

YARDSTICK = """
import time; t0 = time.perf_counter()
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
w = QMainWindow(); w.resize(1400, 860); w.show()
QTimer.singleShot(0, app.quit); app.exec()
print(time.perf_counter() - t0)
"""

WINDOW = """
import time; t0 = time.perf_counter()
import json, sys
sys.path.insert(0, {root!r})
from main import preload_before_qt  # as main.py does before the window
preload_before_qt()
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.ui.main_window import MainWindow
w = MainWindow({ws!r}, QSettings({ini!r}, QSettings.Format.IniFormat))
w.show()
QTimer.singleShot(0, app.quit); app.exec()
elapsed = time.perf_counter() - t0
import resource; ru = resource.getrusage(resource.RUSAGE_SELF)
loaded = [m for m in {heavy!r} if m in sys.modules]
print(json.dumps({{"s": elapsed, "cpu": ru.ru_utime + ru.ru_stime, "loaded": loaded}}))
w.close()
"""


def run(code: str) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    return r.stdout.strip().splitlines()[-1]


def main(rounds: int) -> None:
    yard, win, cpu, loaded = [], [], [], []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as d:
            yard.append(float(run(YARDSTICK)))
            out = json.loads(run(WINDOW.format(root=str(ROOT), ws=f"{d}/ws.duckdb", ini=f"{d}/s.ini", heavy=HEAVY)))
            win.append(out["s"])
            cpu.append(out["cpu"])
            loaded = out["loaded"]
    y, w = statistics.median(yard), statistics.median(win)
    print(f"rounds: {rounds}")
    print(f"yardstick (Python + Qt, empty window): {y:.2f} s")
    print(f"StormScope, empty workspace:           {w:.2f} s  (min {min(win):.2f}, max {max(win):.2f})")
    print(f"  its CPU time (user + system):       {statistics.median(cpu):.2f} s  (steadier than the wall clock "
          "on a shared machine)")
    verdict = "met" if w < 1.5 else "NOT met"
    print(f"ratio to the yardstick:                {w / y:.1f}x   goal: under 1.5 s -> {verdict}")
    print(f"imported at start: {', '.join(loaded) or '-'}")
    print(f"deferred until needed: {', '.join(m for m in HEAVY if m not in loaded) or '-'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
