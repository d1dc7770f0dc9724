"""The window on a workspace whose disk fills up during a drop (run by tests/test_reliability_io.py inside a small
tmpfs, see ``tests.reliability_util.on_small_disk``): the files are dropped on the window as a drag from the file
manager does, then the run list is read and a run opened in the grid by a double click. Prints one JSON object:
the import panel's lines and message, the runs listed, the rows the grid shows, and the exceptions raised in
slots (none expected).

    python tests/window_disk_full.py WORKSPACE FILE...
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

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

ERRORS: list[str] = []


def record_error(kind, value, tb) -> None:  # noqa: ANN001 (sys.excepthook's signature)
    """An exception raised in a slot: Qt's event loop goes on, the test sees it in the output."""
    import traceback

    ERRORS.append("".join(traceback.format_exception(kind, value, tb)))
    sys.__excepthook__(kind, value, tb)


def wait_for(app: QApplication, done, limit_s: float = 120.0) -> bool:  # noqa: ANN001 (a predicate)
    """Process events until ``done()``; False when ``limit_s`` passed first."""
    end = time.monotonic() + limit_s
    while not done():
        if time.monotonic() > end:
            return False
        app.processEvents()
        time.sleep(0.01)
    return True


def main(ws: Path, files: list[str]) -> int:
    sys.excepthook = record_error
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from app.ui.main_window import MainWindow

    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="stormscope-diskfull-")) / "settings.ini"),
                         QSettings.Format.IniFormat)
    win = MainWindow(ws, settings)
    win.resize(1366, 768)
    win.show()
    QTest.qWaitForWindowExposed(win)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(f) for f in files])
    win.dropEvent(QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier))
    if not wait_for(app, lambda: win.import_thread is None):
        raise SystemExit("the import did not end within 120 s")
    panel = win.import_panel
    lines = [panel.list.item(i).text() for i in range(panel.list.count())]
    items = win.browser._run_items()
    runs = [it.text(0) for it in items]
    grid_rows = None
    if items:  # the last run imported, opened in the grid by a double click in the run list
        tree = win.browser.tree
        item = items[-1]
        tree.scrollToItem(item)
        rect = tree.visualItemRect(item)
        QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
        QTest.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
        grid = win.grid
        if not wait_for(app, lambda: grid.model is not None and not grid.busy(), 20):
            grid_rows = f"no rows after 20 s ({grid.stats.text()})"
        else:
            model = grid.model
            grid_rows = model.rowCount() if not model.error else f"error: {model.error}"
    out = {"lines": lines, "message": panel.message.text(), "runs": runs, "grid_rows": grid_rows,
           "status": win.statusBar().currentMessage(), "errors": ERRORS}
    win.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
