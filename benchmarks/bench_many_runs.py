"""A workspace of many runs in the window: how long the window's thread is blocked when every run is selected and
a tab is clicked (issue 30: 5,013 runs blocked it 40-42 s at Ctrl+A and 9-12 s at each tab).

For each size N, builds a workspace of N runs (one real iostat trace imported, its run copied in SQL:
tests/many_runs_util.py), then, in a fresh child process, opens the window offscreen as a user does and, in turn:
presses Ctrl+A in the run list, clicks the Histograms, Sizing, Storm replay and Overlay tabs. Each step is timed
until the window is idle again (the overlay's curves loaded off the window's thread and drawn), and a 10 ms timer
on the window's thread records the **longest stall**: the longest time the window could not repaint or answer a
click. The yardstick is a frame's budget at 60 Hz (16.7 ms): the stall is printed in frames too.

``--root DIR`` measures the StormScope checkout at DIR instead of this one (e.g. the code before a fix) with the
same workspaces and steps; ``--limit`` stops a step that runs longer (printed as such). The window's opening
counts as one stall as long as its construction. Last, the reports in seconds: of one run of the workspace,
anonymised (``main.py report --runs 1 --anonymise``: it must not grow with the runs the workspace holds), and of
the whole workspace, plain and anonymised (it covers the busiest runs: bounded however many there are).

Then the same for a workspace of one run and many questions (``--questions``): the window, and its report (it
answers the first questions: bounded however many are asked).

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_many_runs.py [--runs 1000 5013 100000] [--questions 10000]
        [--root DIR] [--no-window | --open-only]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRAME_S = 1 / 60
TRACE = ROOT / "sample_traces" / "storm_fast_iostat-xt.txt"  # a real iostat -xt capture of a boot storm
STEPS = ["select all", "Histograms", "Sizing", "Storm replay", "Overlay"]

CHILD = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.ui.main_window import MainWindow
limit = float(sys.argv[4])
t0 = time.perf_counter()
win = MainWindow(Path(sys.argv[2]), QSettings(sys.argv[3], QSettings.Format.IniFormat))
win.resize(1366, 768)
win.show()
app.processEvents()
built = time.perf_counter() - t0  # the window's thread is blocked all along: its construction is one stall
gaps, last = [], [time.perf_counter()]
def tick():
    now = time.perf_counter()
    gaps.append(now - last[0])
    last[0] = now
timer = QTimer()
timer.timeout.connect(tick)
timer.start(10)
def pump(s):
    end = time.perf_counter() + s
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)
def busy():
    return win.import_thread is not None or win.plot.loading or win.results.busy
def step(name, act, before=0.0):
    pump(0.3)
    gaps.clear(); last[0] = t = time.perf_counter()
    gaps.append(before)
    t -= before
    act()
    end = t + limit
    pump(0.2)
    while busy() and time.perf_counter() < end:
        pump(0.05)
    wall = time.perf_counter() - t
    print(json.dumps({"step": name, "wall": wall, "stall": max(gaps, default=0.0), "done": not busy()}), flush=True)
def select_all():
    win.browser.tree.setFocus()
    QTest.keyClick(win.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
def click(title):
    bar = win.tabs.tabBar()
    i = [bar.tabText(k).replace("&", "") for k in range(bar.count())].index(title)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
step("open", lambda: None, built)
steps = json.loads(sys.argv[5])
if steps:
    step("select all", select_all)
for title in steps:
    step(title, lambda title=title: click(title))
win.plot.shutdown()
sys.stdout.flush()
"""


def _util():
    spec = importlib.util.spec_from_file_location("many_runs_util", ROOT / "tests" / "many_runs_util.py")
    assert spec is not None
    assert spec.loader is not None
    util = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(util)
    return util


def build(path: Path, n: int) -> None:
    _util().many_runs_workspace(path, n, trace=TRACE, interval_s=None)


def build_questions(path: Path, n: int) -> None:
    _util().many_questions_workspace(path, n, trace=TRACE, interval_s=None)


def measure(root: Path, ws: Path, limit: float, steps: list[str]) -> list[dict]:
    import json

    with tempfile.TemporaryDirectory(prefix="stormscope-bench-") as tmp:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        cmd = [sys.executable, "-c", CHILD, str(root), str(ws), str(Path(tmp) / "settings.ini"), str(limit),
               json.dumps(steps)]
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit * 8 + 120)
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 and len(rows) < len(steps) + 2:
        sys.exit(f"the window failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return rows


def report(root: Path, ws: Path, out: Path, limit: float, *extra: str) -> str:
    """``main.py report`` of the workspace (``extra``: its options), timed: seconds, or that it was stopped."""
    t = time.perf_counter()
    try:
        subprocess.run([sys.executable, str(root / "main.py"), "report", "-w", str(ws), "-o", str(out), *extra],
                       check=True, capture_output=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return f"stopped after {limit:g} s, not finished"
    return f"{time.perf_counter() - t:.1f} s"


def window(root: Path, ws: Path, limit: float, open_only: bool = False) -> None:
    print(f"  {'step':14} {'wall s':>8} {'longest stall ms':>17} {'in frames':>10}")
    for r in measure(root, ws, limit, [] if open_only else STEPS[1:]):
        note = "" if r["done"] else f"  (stopped after {limit:g} s, still working)"
        print(f"  {r['step']:14} {r['wall']:8.1f} {r['stall'] * 1000:17.0f} {r['stall'] / FRAME_S:10.1f}{note}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, nargs="*", default=[1000, 5013, 100000])
    ap.add_argument("--questions", type=int, nargs="*", default=[10000])
    ap.add_argument("--root", type=Path, default=ROOT, help="the StormScope checkout to measure")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds after which a step is stopped")
    ap.add_argument("--no-window", action="store_true", help="the reports only")
    ap.add_argument("--open-only", action="store_true", help="the window's opening only: no other step, no report")
    args = ap.parse_args()
    sys.path.insert(0, str(args.root))
    print(f"code measured: {args.root}; yardstick: a frame at 60 Hz = {FRAME_S * 1000:.1f} ms")
    for n in args.runs:
        with tempfile.TemporaryDirectory(prefix="stormscope-bench-") as tmp:
            ws = Path(tmp) / "ws.duckdb"
            build(ws, n)
            print(f"\n{n:,} runs")
            if not args.no_window:
                window(args.root, ws, args.limit, args.open_only)
            if args.open_only:
                continue
            out = Path(tmp) / "r.pdf"
            one = report(args.root, ws, out, args.limit, "--runs", "1", "--anonymise")
            print(f"  report of one run, anonymised: {one}", flush=True)
            print(f"  report of the whole workspace: {report(args.root, ws, out, args.limit)}", flush=True)
            print(f"  the same, anonymised: {report(args.root, ws, out, args.limit, '--anonymise')}", flush=True)
    for n in args.questions:
        with tempfile.TemporaryDirectory(prefix="stormscope-bench-") as tmp:
            ws = Path(tmp) / "ws.duckdb"
            build_questions(ws, n)
            print(f"\n{n:,} questions (on one run)")
            if not args.no_window:
                window(args.root, ws, args.limit, args.open_only)
            if args.open_only:
                continue
            print(f"  report: {report(args.root, ws, Path(tmp) / 'r.pdf', args.limit)}", flush=True)


if __name__ == "__main__":
    main()
