"""The window as the single-instance server (app.ui.single_instance) sees it: a main window that imports."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QMainWindow


class ImportingWindow(QMainWindow):
    """What the server needs of the window it hands paths to (app.ui.main_window.MainWindow is one): the workspace
    it has open, the import it runs (None when idle) and a way to start one."""

    ws_path: Path
    import_thread: QThread | None

    def start_import(self, paths: list[str]) -> object:
        raise NotImplementedError
