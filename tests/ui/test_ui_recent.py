"""File ▸ Recent workspaces: entries are absolute paths, and an entry whose file is gone is said, never created anew.
Before, `make run` (``-w .venv/sample_workspace.duckdb``) stored the path as typed; picking that entry in a window
started from another folder silently created an empty workspace (and a .venv folder) there."""

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from app.workspace import Workspace
from tests.conftest import dispose_window, open_window


def _entries(w) -> list[str]:
    return [a.text() for a in w.recent_menu.actions()]


def _pick(w, path: Path) -> None:
    """Click the entry in File ▸ Recent workspaces."""
    action = next(a for a in w.recent_menu.actions() if a.text() == str(path))
    action.trigger()


def test_an_entry_is_the_absolute_path_and_opens_that_file_from_any_folder(qtbot, tmp_path, monkeypatch):
    first, elsewhere = tmp_path / "first", tmp_path / "elsewhere"
    first.mkdir()
    elsewhere.mkdir()
    Workspace(first / "sample.duckdb").close()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    monkeypatch.chdir(first)
    w = open_window(qtbot, first, settings)
    w.open_workspace(Path("sample.duckdb"))  # as `main.py gui -w sample.duckdb` names it, relative
    assert _entries(w)[0] == str(first / "sample.duckdb")
    dispose_window(qtbot, w)

    monkeypatch.chdir(elsewhere)  # the next start, from another folder
    w = open_window(qtbot, tmp_path, settings)
    _pick(w, first / "sample.duckdb")
    assert w.ws_path == first / "sample.duckdb"
    assert list(elsewhere.iterdir()) == []  # nothing created where the window was started
    dispose_window(qtbot, w)


def test_a_missing_entry_is_said_and_not_created(qtbot, tmp_path, monkeypatch):
    gone = tmp_path / "moved" / "engagement.duckdb"
    gone.parent.mkdir()
    Workspace(gone).close()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("recent", [str(gone), "relative/old.duckdb"])  # the second: stored by an older version
    w = open_window(qtbot, tmp_path, settings)
    assert _entries(w) == [str(tmp_path / "ws.duckdb"), str(gone)]  # the relative entry is left out
    gone.unlink()
    asked: list[str] = []
    answer = [QMessageBox.StandardButton.No]
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: asked.append(text) or answer[0])

    _pick(w, gone)
    assert len(asked) == 1
    assert asked[0].startswith(f"{gone}\n\nThis workspace is not there: it was moved, renamed or deleted")
    assert not gone.exists()  # not created anew
    assert w.ws_path == tmp_path / "ws.duckdb"  # the workspace open stays open
    assert str(gone) in _entries(w)  # "No": kept (its drive may come back)

    answer[0] = QMessageBox.StandardButton.Yes
    _pick(w, gone)
    assert not gone.exists()
    assert str(gone) not in _entries(w)
    assert str(gone) not in settings.value("recent", [], type=list)
    dispose_window(qtbot, w)
