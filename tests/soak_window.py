"""Soak: drive the real window offscreen through N user interactions, then close it and exit normally.

    python tests/soak_window.py [N] [SEED]

Interactions, chosen at random: click runs in the run list (plain, Ctrl, Shift), switch views by clicking the tab bar,
change the overlay's metric, alignment, device and cap, change the histogram view's op, drop files to import them,
the run settings of the run menu (first report, interval, histogram counts, rename), View ▸ Theme, and Reset zoom.
Run by tests/ui/test_soak.py in a subprocess, so that an abort fails the test instead of killing pytest; `make soak`
runs a longer one. Prints one line per 500 interactions and "soak: N interactions, exit 0" at the end.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

SAMPLES = ROOT / "sample_traces"



def wait_idle(app: QApplication, win, limit_s: float = 30.0) -> None:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        app.processEvents()
        busy = win.import_thread is not None or win.plot.loading
        if not busy:
            return
        time.sleep(0.005)
    raise SystemExit(f"soak: the window stayed busy for {limit_s:g} s")


def click_run(win, rng: random.Random) -> None:
    items = win.browser._run_items()
    if not items:
        return
    item = rng.choice(items)
    tree = win.browser.tree
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    mod = rng.choice([Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier,
                      Qt.KeyboardModifier.ShiftModifier])
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, mod, rect.center())


def click_tab(win, rng: random.Random) -> None:
    bar = win.tabs.tabBar()
    i = rng.randrange(bar.count())
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, bar.tabRect(i).center())


def pick(combo, rng: random.Random) -> None:
    if combo.count():
        combo.setCurrentIndex(rng.randrange(combo.count()))


ERRORS: list[str] = []


def record_error(kind, value, tb) -> None:
    """An exception raised in a slot: Qt's event loop goes on, the soak counts it as a failure."""
    import traceback

    ERRORS.append("".join(traceback.format_exception(kind, value, tb)))
    sys.__excepthook__(kind, value, tb)


def main(n: int, seed: int) -> int:
    sys.excepthook = record_error
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from app.ui.main_window import MainWindow

    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="stormscope-soak-"))
    try:
        drops = []
        for k, name in enumerate(sorted(p.name for p in SAMPLES.iterdir() if p.is_file())):
            if name.endswith((".md", ".sh")):
                continue
            folder = tmp / f"drop{k}"
            folder.mkdir()
            shutil.copy(SAMPLES / name, folder / name)
            drops.append(folder)
        settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
        win = MainWindow(tmp / "soak.duckdb", settings)
        win.show()
        win.start_import([str(SAMPLES)])
        wait_idle(app, win, 120)
        theme_actions = list(win.theme_actions.values())
        plot = win.plot

        def run_setting() -> None:
            ids = win.browser.selected_runs()
            if not ids:
                return
            what = rng.randrange(4)
            if what == 0:
                win.browser.set_first_report(ids, rng.random() < 0.5)
            elif what == 1:
                win.browser.set_interval(ids, rng.choice([1.0, 2.0, 5.0]))
            elif what == 2:
                win.browser.set_histogram_counts(ids, rng.choice(["cumulative", "per-collection", "auto"]))
            else:
                rid = ids[0]
                win.ws.rename_run(rid, f"run {rid} {rng.randrange(100)}")
                win.browser.reload()
                win.browser.runs_changed.emit()

        def drop() -> None:
            if win.import_thread is None and drops:
                win.start_import([str(drops.pop())])

        actions = [
            (30, lambda: click_run(win, rng)),
            (15, lambda: click_tab(win, rng)),
            (12, lambda: pick(plot.metric_box, rng)),
            (8, lambda: pick(plot.align, rng)),
            (5, lambda: pick(plot.device, rng)),
            (5, lambda: plot.cap.setValue(rng.choice([0, 200, 1000]))),
            (5, lambda: pick(win.histos.op, rng)),
            (5, run_setting),
            (2, lambda: rng.choice(theme_actions).trigger()),
            (2, drop),
            (5, lambda: QTest.keyClick(win, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)),
        ]
        weights = [w for w, _ in actions]
        started = time.monotonic()
        for i in range(1, n + 1):
            rng.choices(actions, weights)[0][1]()
            app.processEvents()
            if i % 25 == 0:
                wait_idle(app, win)
            if i % 500 == 0:
                print(f"soak: {i} interactions, {time.monotonic() - started:.1f} s", flush=True)
        wait_idle(app, win, 120)
        win.close()
        app.processEvents()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if ERRORS:
        print(f"soak: {len(ERRORS)} exception(s) in the window's slots", flush=True)
        return 1
    print(f"soak: {n} interactions, exit 0", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000, int(sys.argv[2]) if len(sys.argv) > 2 else 1))
