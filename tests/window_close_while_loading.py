"""The window closed while the Overlay still loads thousands of runs (run by tests/ui/test_window_close.py in a
child process, so that a crash is seen as one): a workspace of N runs (one imported trace, copied N-1 times in
SQL), every run selected with Ctrl+A in the run list, the window closed once the load is under way. Prints one JSON
object: how long the close took, whether the load was still running when the window was closed, and the exceptions
raised in slots (none expected).

    python tests/window_close_while_loading.py FOLDER N

Issue 30: with 5,013 runs selected the close waited 30 s, then closed the DuckDB connection under the running
load -- SIGSEGV in DuckDB's prepare, in the plot job.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import faulthandler  # noqa: E402

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.window_disk_full import ERRORS, record_error, wait_for  # noqa: E402


def many_runs(path: Path, n: int) -> None:
    """A workspace of ``n`` runs: the sample storm imported, then copied in SQL (its rows, its stored sums)."""
    from app.importer import import_file
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    with Workspace(path) as ws:
        import_file(ws, str(ROOT / "sample_traces" / "storm_fast_iostat-xt.txt"), ImportOptions())
        con = ws.con
        copies = f"(SELECT range AS k FROM range(1, {n}))"
        con.execute("BEGIN TRANSACTION")
        con.execute(f"INSERT INTO runs SELECT runs.* REPLACE (run_id + k AS run_id, name || ' ' || k AS name, "
                    f"source_sha256 || k AS source_sha256) FROM runs, {copies}")
        for table in ("iostat_samples", "cpu_samples", "series_devices", "series_sums"):
            con.execute(f"INSERT INTO {table} SELECT t.* REPLACE (run_id + k AS run_id) FROM {table} t, {copies}")
        con.execute(f"SELECT setval('run_id_seq', {n})")
        con.execute("COMMIT")


def main(folder: Path, n: int) -> int:
    faulthandler.enable()
    sys.excepthook = record_error
    ws = folder / "many.duckdb"
    many_runs(ws, n)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from app.ui.main_window import MainWindow

    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="stormscope-close-")) / "settings.ini"),
                         QSettings.Format.IniFormat)
    win = MainWindow(ws, settings)
    win.resize(1366, 768)
    win.show()
    QTest.qWaitForWindowExposed(win)
    wait_for(app, lambda: win.browser.tree.topLevelItemCount() > 0, 60)
    tree = win.browser.tree
    tree.setFocus()
    QTest.keyClick(tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)  # select every run
    loading = wait_for(app, lambda: win.plot.loading, 30)
    time.sleep(0.5)  # the load is under way on its worker
    still = win.plot.loading
    t = time.monotonic()
    win.close()
    closed_s = time.monotonic() - t
    print(json.dumps({"selected": len(win.browser.selected_runs()), "loading_started": loading,
                      "loading_when_closed": still, "close_s": closed_s, "errors": ERRORS}))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2])))
