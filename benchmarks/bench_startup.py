"""Cold start to a usable window, on an empty workspace (goal: under 1.5 s).

    python benchmarks/bench_startup.py [ROUNDS]

Each round starts fresh interpreters (offscreen): the yardstick shows an empty QMainWindow (Python + Qt alone), then
StormScope's window is built on a new workspace and shown the way main.py does it (large libraries first, then Qt),
timed until the event loop has run once (the window is painted and answers input). Prints the medians, the ratio
to the yardstick, the window process's CPU time, and what it imported (the heavy modules left for later are listed
as deferred). The Histograms, IOzone and Sizing tabs are built when first shown (app/ui/lazy_view.py).

A second figure times the whole start a user gets, ``main.py gui -w WS`` through ``main.main``: the crash log,
the check for a window already holding the workspace, the lock, then the window (``QApplication.exec`` is
wrapped to return once the event loop has run, so the process measures itself and exits).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ["polars", "duckdb", "pyqtgraph", "numpy", "pyarrow", "reportlab", "parsers.registry", "app.importer",
         "app.ui.histo_view", "app.ui.iozone_view", "app.ui.sizing_panel", "app.ui.bench_view"]

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


FULL = """
import time; t0 = time.perf_counter()
import json, os, sys
sys.path.insert(0, {root!r})
os.environ.update(XDG_STATE_HOME={d!r}, XDG_CONFIG_HOME={d!r})  # logs and settings in the round's folder
import main
main.preload_before_qt()  # what main.main does first (again there: already done), before Qt is imported
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
real_exec = QApplication.exec
def exec_once(self):  # the event loop runs once: the window is painted and answers input
    QTimer.singleShot(0, self.quit)
    return real_exec()
QApplication.exec = exec_once
code = main.main(["gui", "-w", {ws!r}])
elapsed = time.perf_counter() - t0
import resource; ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"s": elapsed, "cpu": ru.ru_utime + ru.ru_stime, "code": code}}))
"""


# Compiled bytecode, as an installed StormScope has it (pip and the desktop build compile every module): kept in a
# folder of this script's run, not beside the sources, and made by a first round that is not counted. A machine
# that sets PYTHONDONTWRITEBYTECODE (this one does) would otherwise compile StormScope's modules on every start:
# ~0.17 s no user pays.
PYCACHE = tempfile.mkdtemp(prefix="stormscope-bench-pyc-")


def run(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPYCACHEPREFIX=PYCACHE)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    return r.stdout.strip().splitlines()[-1]


def main(rounds: int) -> None:
    yard, win, cpu, loaded, full, full_cpu = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as d:  # the round that compiles the bytecode
        run(FULL.format(root=str(ROOT), ws=f"{d}/ws.duckdb", d=d))
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as d:
            yard.append(float(run(YARDSTICK)))
            out = json.loads(run(WINDOW.format(root=str(ROOT), ws=f"{d}/ws.duckdb", ini=f"{d}/s.ini", heavy=HEAVY)))
            win.append(out["s"])
            cpu.append(out["cpu"])
            loaded = out["loaded"]
        with tempfile.TemporaryDirectory() as d:
            out = json.loads(run(FULL.format(root=str(ROOT), ws=f"{d}/ws.duckdb", d=d)))
            if out["code"] != 0:
                raise SystemExit(f"main.py gui exited {out['code']}")
            full.append(out["s"])
            full_cpu.append(out["cpu"])
    y, w = statistics.median(yard), statistics.median(win)
    print(f"rounds: {rounds}")
    print(f"yardstick (Python + Qt, empty window): {y:.2f} s")
    print(f"StormScope, empty workspace:           {w:.2f} s  (min {min(win):.2f}, max {max(win):.2f})")
    print(f"  its CPU time (user + system):       {statistics.median(cpu):.2f} s  (steadier than the wall clock "
          "on a shared machine)")
    print(f"ratio to the yardstick:                {w / y:.1f}x")
    f = statistics.median(full)
    print(f"the whole start (main.py gui -w WS):   {f:.2f} s  (min {min(full):.2f}, max {max(full):.2f}; CPU "
          f"{statistics.median(full_cpu):.2f} s)")
    verdict = "met" if f < 1.5 else "NOT met"
    print(f"ratio to the yardstick:                {f / y:.1f}x   goal: the whole start under 1.5 s -> {verdict}")
    print(f"imported at start: {', '.join(loaded) or '-'}")
    print(f"deferred until needed: {', '.join(m for m in HEAVY if m not in loaded) or '-'}")


if __name__ == "__main__":
    try:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
    finally:
        shutil.rmtree(PYCACHE, ignore_errors=True)
