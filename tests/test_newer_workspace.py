"""A workspace from a newer StormScope (issue 17's "newer -> read-only with a message"), decided by its
compatibility number (``read_compatible_from``, app/migrations.py): one whose number this version reaches opens
read-only with one clear note -- read commands and the report work, every command that writes exits 1 saying why,
the window shows a banner and its changing menus disabled with the reason -- and is never written (its SHA-256 is
unchanged); one whose number is above this version is refused with the message of before."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from app import migrations
from app.cli.entry import main
from app.workspace import SCHEMA_VERSION, Workspace, WorkspaceReadOnly, WorkspaceTooNew
from parsers.schema import READ_COMPATIBLE_FROM
from tests.conftest import run_menu
from tests.hostile import base, commands

NEWER = SCHEMA_VERSION + 1
WRITES = {"import", "phase add", "marker add", "mapping delete", "mapping save", "question add", "run"}


def _kind(argv: list[str]) -> str:
    return argv[0] if argv[0] in ("import", "run") else " ".join(argv[:2])


def newer(folder: Path, compatible_from: int = SCHEMA_VERSION) -> Path:
    """The sample workspace (run 1) as a newer StormScope that only ADDED a table and a column would leave it:
    schema ``NEWER``, readable from ``compatible_from``."""
    path = folder / f"newer{compatible_from}.duckdb"
    shutil.copy(base(folder / "base"), path)
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE run_notes (run_id BIGINT, note VARCHAR)")
        con.execute("ALTER TABLE runs ADD COLUMN colour VARCHAR")
        con.execute("UPDATE workspace_info SET value = ? WHERE key = 'schema_version'", [str(NEWER)])
        con.execute("INSERT OR REPLACE INTO workspace_info VALUES ('read_compatible_from', ?)", [str(compatible_from)])
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_this_release_writes_its_compatibility_number(tmp_path):
    with Workspace(tmp_path / "new.duckdb") as ws:
        assert migrations.stored_compatible_from(ws.con) == READ_COMPATIBLE_FROM
    assert READ_COMPATIBLE_FROM == 3 < SCHEMA_VERSION  # schema 4 only added derived tables, which 3 ignores
    old = base(tmp_path)  # a workspace of this schema made before the number existed gets it on a writable open
    with duckdb.connect(str(old)) as con:
        con.execute("DELETE FROM workspace_info WHERE key = 'read_compatible_from'")
    with Workspace(old, read_only=True) as ws:  # a read-only open writes nothing
        assert migrations.stored_compatible_from(ws.con) is None
    with Workspace(old) as ws:
        assert migrations.stored_compatible_from(ws.con) == READ_COMPATIBLE_FROM


def test_a_compatible_newer_workspace_opens_read_only_only(tmp_path):
    path = newer(tmp_path)
    digest = sha(path)
    with pytest.raises(WorkspaceReadOnly) as e:
        Workspace(path)
    assert str(e.value) == (f"This workspace was made by a newer StormScope (schema {NEWER}): this version can show "
                            "it and report on it, but not change it (no import, rename, delete or other change). "
                            "Update StormScope to change it.")
    with Workspace(path, read_only=True) as ws:
        assert ws.read_only_note == (f"{path} was made by a newer StormScope (schema {NEWER}): opened read-only -- "
                                     "this version shows it and reports on it correctly, but cannot change it.")
        assert [r.name for r in ws.runs()] == ["storm_fast_iostat-xt"]
    assert sha(path) == digest


def test_an_incompatible_newer_workspace_is_still_refused(tmp_path, capsys):
    path = newer(tmp_path, compatible_from=NEWER)
    digest = sha(path)
    for read_only in (False, True):
        with pytest.raises(WorkspaceTooNew):
            Workspace(path, read_only=read_only)
    assert main(["runs", "-w", str(path)]) == 2
    assert capsys.readouterr().err == (f"main.py runs: error: This workspace was made by a newer StormScope (schema "
                                       f"{NEWER}); this version reads up to schema {SCHEMA_VERSION}. Update "
                                       "StormScope to open it.\n")
    assert sha(path) == digest


def test_cli_reads_with_one_note_and_refuses_every_write(tmp_path, capsys):
    path = newer(tmp_path)
    digest = sha(path)
    note = (f"note: {path} was made by a newer StormScope (schema {NEWER}): opened read-only -- this version shows "
            "it and reports on it correctly, but cannot change it.\n")
    seen = set()
    for argv in commands(tmp_path):
        kind = _kind(argv)
        seen.add(kind)
        code = main([*argv, "-w", str(path)])
        err = capsys.readouterr().err
        if kind in WRITES:
            assert code == 1, argv
            assert err == (f"main.py {argv[0]}: error: {path}: This workspace was made by a newer StormScope (schema "
                           f"{NEWER}): this version can show it and report on it, but not change it (no import, "
                           "rename, delete or other change). Update StormScope to change it.\n"), argv
        else:  # as on the same data in a workspace of this version, after the one note line
            same = main([*argv, "-w", str(base(tmp_path / "base"))])
            assert (code, err) == (same, note + capsys.readouterr().err), argv
        assert sha(path) == digest, argv
    assert seen >= WRITES


def test_the_report_of_a_compatible_newer_workspace_is_the_report_of_its_data(tmp_path, capsys):
    """Same numbers as the same runs in a workspace of this version, and the file unchanged."""
    path = newer(tmp_path)
    digest = sha(path)
    pdfs = []
    for ws in (base(tmp_path / "base"), path):
        pdf = tmp_path / f"{ws.stem}.pdf"
        assert main(["report", "-w", str(ws), "-o", str(pdf)]) == 0
        pdfs.append(pdf)
    capsys.readouterr()
    texts = [subprocess.run(["pdftotext", "-layout", str(p), "-"], capture_output=True, text=True,
                            check=True).stdout for p in pdfs]
    assert "IOPS" in texts[0]
    assert texts[1] == texts[0].replace(str(base(tmp_path / "base")), str(path)), "the numbers differ"
    assert sha(path) == digest


def _menu_action(w, text: str):
    for menu_action in w.menuBar().actions():
        for a in menu_action.menu().actions():
            if a.text() == text:
                return a
    raise AssertionError(f"no menu item {text!r}")


def test_the_window_opens_a_compatible_newer_workspace_read_only(qtbot, window, tmp_path, monkeypatch):
    """File ▸ Open workspace… on a newer StormScope's workspace: a banner says so, the run list shows its runs, every
    item that would change it is disabled with the reason as its tooltip (File, Report and the run's own menu), a
    drop imports nothing, and the file is unchanged; opening one of this version again enables all."""
    from PySide6.QtWidgets import QFileDialog

    from app.migrations import READ_ONLY_REASON
    from tests.conftest import SAMPLES, drop_paths

    path = newer(tmp_path)
    digest = sha(path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    _menu_action(window, "&Open workspace…").trigger()
    assert window.ws_path == path
    assert window.read_only_banner.isVisible()
    assert window.read_only_banner.text() == (
        f"Read-only: {path} was made by a newer StormScope (schema {NEWER}): opened read-only -- this version shows it "
        "and reports on it correctly, but cannot change it. Update StormScope to change it.")
    assert [it.text(0) for it in window.browser._run_items()] == ["storm_fast_iostat-xt"]
    for text in ("&Import…", "Import &folder…", "Import with &options…", "Report from fol&der…", "&Add to report",
                 "Add &cap check to report"):
        a = _menu_action(window, text)
        assert (a.isEnabled(), a.toolTip()) == (False, READ_ONLY_REASON), text
    assert _menu_action(window, "Export &report…").isEnabled()  # reading: the report works
    menu = [(text, enabled, tip) for text, enabled, _ticked, tip in run_menu(qtbot, window, 1)]
    assert menu[0] == ("Open in grid", True, "Open in grid")
    assert menu[1][:2] == ("Replay as fio job…", True)  # it writes a job file, not the workspace
    assert [t for t, *_ in menu[2:]] == ["Rename…", "Tag…", "First report is since boot",
                                          "First report is an interval (iostat -y)", "Put on one clock…",
                                          "Whole disks…", "Delete 1 run…"]
    assert all((enabled, tip) == (False, READ_ONLY_REASON) for _t, enabled, tip in menu[2:]), menu
    assert not window.grid.add_column_button.isEnabled()
    # the overlay's own Add to report (its button) stores nothing and says why
    window.browser.select_runs([1])
    qtbot.waitUntil(lambda: not window.plot.loading and len(window.plot.curves) >= 1, timeout=30000)
    window.plot.add_action.trigger()
    assert window.statusBar().currentMessage() == f"Not added to the report: {READ_ONLY_REASON}."
    assert window.questions.questions == []
    assert all(not b.isEnabled() and b.toolTip() == READ_ONLY_REASON for b in window.questions.buttons.values())
    drop_paths(window, [SAMPLES / "capped_200iops_iostat-d.txt"])
    assert window.import_thread is None
    assert window.statusBar().currentMessage() == f"Not imported: {READ_ONLY_REASON}."
    assert len(window.browser._run_items()) == 1
    # back to a workspace of this version: writable again
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "mine.duckdb"), ""))
    _menu_action(window, "&Open workspace…").trigger()
    assert not window.read_only_banner.isVisible()
    assert _menu_action(window, "&Import…").isEnabled()
    assert window.grid.add_column_button.isEnabled()
    assert sha(path) == digest


def test_the_window_starts_on_a_compatible_newer_workspace_read_only(qtbot, qapp, tmp_path):
    """``main.py gui -w NEWER``: the start-up check lets it through (before: the writable check open raised), and
    the window opens it read-only, banner shown; the file unchanged."""
    from PySide6.QtCore import QSettings

    from app.ui.main_window import MainWindow
    from app.ui.single_instance import hand_off_or_open
    from tests.conftest import dispose_window

    path = newer(tmp_path)
    digest = sha(path)
    ws = hand_off_or_open(path, [])  # the start-up check hands the workspace, opened read-only, to the window
    assert not isinstance(ws, int)
    assert ws.read_only
    w = MainWindow(path, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), ws=ws)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.ws.read_only
    assert w.read_only_banner.isVisible()
    assert not w.import_action.isEnabled()
    dispose_window(qtbot, w)
    assert sha(path) == digest
