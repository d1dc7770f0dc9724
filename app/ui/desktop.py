"""The window as a desktop application: its icon, files the system opens with it (macOS), its log folder.

* macOS sends a file or folder opened with StormScope from the Finder, or dropped on its Dock icon, as a
  QFileOpenEvent to the application (there are no command-line arguments for them): :class:`StormScopeApplication`
  hands them to the window's import queue (app.ui.single_instance, the queue that paths from a second
  ``stormscope`` start join), holding those that arrive before the window exists. On Windows and Linux "Open with"
  starts ``StormScope PATH...``: main.py passes the paths to the running window, or opens one.
* Help ▸ Open log folder opens the folder of app.crashlog's log in the file manager.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from PySide6.QtCore import QEvent, QUrl
from PySide6.QtGui import QDesktopServices, QFileOpenEvent, QIcon
from PySide6.QtWidgets import QApplication

from app.crashlog import log_dir

ICON = "stormscope.png"


def app_icon() -> QIcon:
    """StormScope's icon (app/ui/icons/, read through importlib.resources)."""
    icons = resources.files("app.ui") / "icons"
    with resources.as_file(icons / ICON) as path:
        return QIcon(str(path))  # QIcon reads the file now


class StormScopeApplication(QApplication):
    """The QApplication of the window: its icon, and files the system asks it to open (QFileOpenEvent)."""

    def __init__(self, argv: list[str]):
        super().__init__(argv)
        self.setWindowIcon(app_icon())
        self.setDesktopFileName("stormscope")  # Linux: the desktop entry (packaging/stormscope.desktop) and icon
        self.opened_files: list[str] = []
        self._open: Callable[[list[str]], None] | None = None

    def open_files_with(self, receiver: Callable[[list[str]], None] | None) -> None:
        """Files the system opens with StormScope go to ``receiver`` from now on (None: held until there is one);
        those that came before are given to it now."""
        self._open = receiver
        self._deliver()

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.FileOpen and isinstance(e, QFileOpenEvent):
            path = e.file() or e.url().toLocalFile()
            if path:
                self.opened_files.append(path)
                self._deliver()
            return True
        return super().event(e)

    def _deliver(self) -> None:
        if self._open is not None and self.opened_files:
            paths, self.opened_files = self.opened_files, []
            self._open(paths)


def application(argv: list[str]) -> QApplication:
    """The running QApplication, or a new :class:`StormScopeApplication`."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    return StormScopeApplication(argv)


def open_log_folder() -> str | None:
    """Help ▸ Open log folder: the folder in the file manager; what to say when it could not be opened."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        return None
    return f"The log folder could not be opened here: it is {folder}"
