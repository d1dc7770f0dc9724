"""The installers associate .duckdb files with StormScope: a workspace opened from the file manager opens as the
workspace (before: Windows and Linux start ``StormScope PATH.duckdb``, and the window imported it as a trace;
macOS sent it as a file to import)."""

from pathlib import Path

from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

from app.ui.main_window import opened_from_finder
from app.workspace import Workspace
from main import workspace_argument


def test_a_workspace_given_alone_is_the_workspace_to_open():
    assert workspace_argument([r"C:\Users\ana\Engagement.DUCKDB"]) == ["-w", r"C:\Users\ana\Engagement.DUCKDB"]
    assert workspace_argument(["/home/ana/acme.duckdb"]) == ["-w", "/home/ana/acme.duckdb"]
    assert workspace_argument(["trace.txt"]) == ["trace.txt"]  # traces: imported, as before
    assert workspace_argument(["a.duckdb", "trace.txt"]) == ["a.duckdb", "trace.txt"]
    assert workspace_argument(["-w", "a.duckdb"]) == ["-w", "a.duckdb"]


def test_macos_opens_a_workspace_from_the_finder_and_imports_the_rest(window, qapp, tmp_path):
    other = tmp_path / "acme.duckdb"
    Workspace(other).close()
    imported: list[list[str]] = []
    qapp.open_files_with(lambda paths: opened_from_finder(window, imported.append, paths))
    try:
        QApplication.sendEvent(qapp, QFileOpenEvent(str(other)))  # what the Finder's "Open With" sends
        assert window.ws_path == other
        assert imported == []
        QApplication.sendEvent(qapp, QFileOpenEvent(str(tmp_path / "trace.txt")))
        assert imported == [[str(tmp_path / "trace.txt")]]
        assert window.ws_path == Path(other)
    finally:
        qapp.open_files_with(None)
