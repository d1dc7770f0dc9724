"""The window on a workspace it cannot write (run by tests/test_reliability_io.py as a user without root's powers,
on a file it may only read, or on a read-only disk): the window is started as ``main.py gui`` starts it, then its
banner, the state of Import and the answer to a drop are read. Prints one JSON object; exceptions raised in slots
are listed (none expected).

    python tests/window_read_only.py WORKSPACE FILE_TO_DROP
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.window_disk_full import ERRORS, record_error, wait_for  # noqa: E402


def main(ws: Path, drop: str) -> int:
    sys.excepthook = record_error
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from app.ui.main_window import MainWindow
    from app.ui.single_instance import hand_off_or_open

    opened = hand_off_or_open(ws, [])  # as main.py gui opens the workspace
    assert not isinstance(opened, int), opened
    settings = QSettings(str(Path(tempfile.mkdtemp(prefix="stormscope-ro-")) / "settings.ini"),
                         QSettings.Format.IniFormat)
    win = MainWindow(ws, settings, ws=opened)
    win.resize(1366, 768)
    win.show()
    QTest.qWaitForWindowExposed(win)
    wait_for(app, lambda: win.browser.tree.topLevelItemCount() > 0, 30)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(drop)])
    win.dropEvent(QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier))
    app.processEvents()
    out = {"banner": win.read_only_banner.text() if win.read_only_banner.isVisible() else "",
           "import_enabled": win.import_action.isEnabled(), "import_tip": win.import_action.toolTip(),
           "status": win.statusBar().currentMessage(), "runs": win.browser.tree.topLevelItemCount(),
           "errors": ERRORS}
    win.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2]))
