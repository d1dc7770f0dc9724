import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# real tool output, kept in the repository with its provenance (tests/corpus/MANIFEST.md, SHA256SUMS)
CORPUS = Path(os.environ.get("STORMSCOPE_CORPUS", ROOT / "tests" / "corpus"))
SAMPLES = ROOT / "sample_traces"
GOLDEN = ROOT / "tests" / "golden"
REGEN = os.environ.get("STORMSCOPE_REGEN_GOLDEN") == "1"


# a small, valid `iostat -xt` log (two reports) for tests of import, CLI and window behaviour
GOOD = """Linux 5.15.0 (vdi-host) \t03/14/2024 \t_x86_64_\t(4 CPU)

03/14/2024 10:00:00 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             10.00   20.00     40.00     80.00   5.00

03/14/2024 10:00:05 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             11.00   21.00     44.00     84.00   6.00

"""

# the longest tests first: with -n 2 they then run beside the others instead of after them (the soak alone takes
# about two minutes of one worker; started two thirds through the run, as its name sorted, it set the run's end)
LONG_FIRST = ("tests/ui/test_soak.py", "tests/analysis/test_series_sums.py")


# ``make test-slow``: the heavy variants, each a whole corpus or every command over a set of received files (run by
# .ci/run after ``make test``, which leaves them out to stay well under ten minutes); listed here, in one place
SLOW = (
    "tests/ui/test_soak.py",
    "tests/analysis/test_series_sums.py::test_the_stored_sums_give_the_series_the_rows_give_for_every_corpus_run",
    "tests/reports/test_report_never_fails.py::test_corpus_files_alone_give_a_report",
    "tests/reports/test_report_never_fails.py::test_all_corpus_files_together",
    "tests/test_safe_open.py::test_a_hostile_workspace_is_refused_untouched_by_every_command",
    "tests/test_received_workspaces.py::test_a_file_that_is_not_a_workspace_is_said_by_every_command",
    "tests/test_received_workspaces.py::test_a_value_storm_scope_never_stores_is_named_by_every_command",
    "tests/test_reliability_io.py",
    "tests/test_reliability_crash.py",
    "tests/test_received_limits.py::test_a_received_templates_logo_never_hangs_or_fills_memory",
    "tests/parsers/test_golden_esxtop.py::test_storm_and_compare_commands_on_perfmon_and_esxtop_runs",
    "tests/parsers/test_golden_diskspd.py::test_compare_two_diskspd_runs",
    "tests/parsers/test_format_contract.py",
    "tests/test_cli.py::test_import_the_whole_iostat_corpus",
    "tests/test_clean_test_run.py",
    # every command of a kind, each a process of its own (a minute each on a busy machine)
    "tests/test_cli_analyses.py::test_phases_and_markers_from_the_command_line",
    "tests/analysis/test_host_latency.py::test_the_command_line_and_the_report_answer_both_questions",
    "tests/test_sql_read_only.py::test_main_py_sql_refuses_every_writing_statement",
    "tests/test_newer_workspace.py::test_cli_reads_with_one_note_and_refuses_every_write",
    "tests/test_import_integrity.py::test_escape_sequences_and_bidi_controls_in_a_host_name_never_reach_the_terminal",
    # the whole corpus imported again for the answers given after import (50 s on a quiet machine)
    "tests/analysis/test_series_sums.py::test_answers_given_after_import_recompute_the_sums",
    "tests/analysis/test_series_sums.py::test_the_written_out_rounding_is_duckdbs_round_to_12_decimals",
    # workspaces of thousands of runs and questions: the scaling of the window and the report
    "tests/ui/test_ui_many_runs.py",
    "tests/reports/test_report_big_workspace.py",
    "tests/ui/test_window_close.py::test_closing_the_window_while_the_overlay_loads_a_thousand_runs",
    # the chunked walk over every chunk size of a large generated file
    "tests/parsers/test_iostat_bulk.py::test_the_chunk_walk_reads_what_the_line_by_line_walk_reads",
)


def pytest_collection_modifyitems(items):
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))  # stable: the rest keep their order


@pytest.fixture(scope="session")
def qapp_cls():
    """The window's own QApplication (its icon; files macOS asks it to open), for pytest-qt's ``qapp``."""
    from app.ui.desktop import StormScopeApplication

    return StormScopeApplication


# ---- a test run touches nothing of the user's -----------------------------------------------------------------
# The window's settings (Recent workspaces, its layout: QSettings), its log (app.crashlog), the default workspace and
# any cache live in the XDG folders; temporary files, local sockets and pytest's own folders in TMPDIR. For the run,
# all of them point into one folder, removed when the run ends: the developer's settings and /tmp are left as they
# were (tests/test_packaging.py runs a session inside a fake home and /tmp to prove it). Processes the tests start,
# xdist's workers among them, inherit the variables. `pytest --basetemp DIR` keeps pytest's folders in DIR.
XDG_DIRS = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
_RUN_FOLDER = pytest.StashKey[Path]()


@pytest.hookimpl(tryfirst=True)  # before pytest's tmpdir plugin reads --basetemp
def pytest_configure(config):
    if hasattr(config, "workerinput"):  # an xdist worker: its controller has set the variables it inherited
        return
    # short: a local socket's path (TMPDIR/stormscope-<24 hex digits>) must stay under 108 bytes
    root = Path(tempfile.mkdtemp(prefix="stormscope-test-"))
    config.stash[_RUN_FOLDER] = root
    for name in XDG_DIRS:
        os.environ[name] = str(root / name.lower())
    os.environ["TMPDIR"] = tempfile.tempdir = str(root)
    if config.option.basetemp is None:
        config.option.basetemp = str(root / "pytest")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    root = config.stash.get(_RUN_FOLDER, None)
    if root is not None:
        shutil.rmtree(root)



# the words a customer must never read in the window or the PDF (flags, commands, seeds, internal files, code names)
CUSTOMER_FORBIDDEN = {
    "command-line flag": re.compile(r"(?<![\w-])--[a-z]"),
    "main.py command": re.compile(r"main\.py"),
    "seed number": re.compile(r"\bseed \d", re.I),
    "internal file": re.compile(r"domain\.md|shared/"),
    "code identifier": re.compile(r"\b[a-z]+_[a-z_]+\b"),
}


def corpus_files(folder: str, keep: Callable[[Path], bool] | None = None) -> list[Path]:
    """The corpus files of one format (those ``keep`` accepts, when given). A missing folder, an empty one, or
    none kept fails the collection of the test module: a parametrised test never runs on an empty list."""
    d = CORPUS / folder
    files = sorted(p for p in d.iterdir() if p.is_file()) if d.is_dir() else []
    if keep is not None:
        files = [p for p in files if keep(p)]
    assert files, f"no corpus files in {d}" + (" that the test keeps" if keep is not None else "")
    return files


# ---- the suite never skips ------------------------------------------------------------------------------------
# A skipped test is a test that did not check anything: a missing tool (pdftotext), a missing package (PySide6),
# a parametrize list that came out empty (pytest skips "got empty parameter set") or a pytest.skip() all fail
# instead, with the reason pytest would have printed.
NEVER_SKIP = "this suite never skips: install what it needs or give it its files"


def _skip_reason(longrepr) -> str:
    return longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.skipped and not hasattr(rep, "wasxfail"):
        rep.outcome = "failed"
        rep.longrepr = f"{item.nodeid} would have been skipped ({_skip_reason(rep.longrepr)}); {NEVER_SKIP}"
    return rep


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    rep = yield
    if rep.skipped:
        rep.outcome = "failed"
        rep.longrepr = f"{collector.nodeid} would have been skipped ({_skip_reason(rep.longrepr)}); {NEVER_SKIP}"
    return rep


@pytest.fixture
def ws(tmp_path):
    from app.workspace import Workspace

    w = Workspace(tmp_path / "ws.duckdb")
    yield w
    w.close()


@pytest.fixture
def write(tmp_path):
    """Write a text file into tmp_path and return its path."""

    def _write(name: str, text: str | bytes) -> str:
        p = tmp_path / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return str(p)

    return _write


def open_window(qtbot, tmp_path, settings=None, size=(1366, 768)):
    """The main window on a new workspace in ``tmp_path``, with settings of its own, at a laptop's size."""
    from PySide6.QtCore import QSettings

    from app.ui.main_window import MainWindow

    settings = settings or QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(tmp_path / "ws.duckdb", settings)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    return w


def grid_shown(qtbot, grid, timeout: int = 30000):
    """The grid's model once the query it was given is described and counted (it runs on the model's worker)."""
    qtbot.waitUntil(lambda: grid.model is not None and not grid.busy(), timeout=timeout)
    return grid.model


def dispose_window(qtbot, w) -> None:
    """Close the window and drop the DuckDB handles its views hold (pytest-qt deletes it after the test)."""
    import gc

    w.close()
    w.grid.close_model()
    qtbot.wait(10)
    gc.collect()


@pytest.fixture
def window(qtbot, tmp_path):
    """The main window as a user opens it (1366 x 768), closed and deleted after the test."""
    w = open_window(qtbot, tmp_path)
    yield w
    dispose_window(qtbot, w)


def drop_paths(w, paths) -> None:
    """Drop files or folders on the window, as a drag from the file manager does."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    ev = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    w.dropEvent(ev)


def click_tab(qtbot, w, title: str):
    """Click the view's tab in the tab bar, as the user does; returns the view shown."""
    from PySide6.QtCore import Qt

    bar = w.tabs.tabBar()
    i = next(i for i in range(bar.count()) if bar.tabText(i).replace("&&", "&") == title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(i).center())
    assert w.tabs.currentIndex() == i
    qtbot.wait(50)
    return w.tabs.currentWidget()


def run_menu(qtbot, window, rid: int, click: str | None = None) -> list[tuple[str, bool, bool, str]]:
    """Right-click run ``rid`` in the run list: (text, enabled, ticked, tooltip) of each item of the menu that pops
    up; then the menu is closed, or the item ``click`` is clicked."""
    from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    item = next(it for it in window.browser._run_items() if int(it.data(0, Qt.ItemDataRole.UserRole + 1)) == rid)
    tree = window.browser.tree
    # the run alone selected, as a right-click on it selects it: a plain setCurrentItem reads the keyboard's
    # modifiers, and a Ctrl left pressed by an earlier test of the same process added the run to the selection
    # instead (once in a full run: the menu was the earlier run's)
    tree.setCurrentItem(item, 0, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    assert window.browser.selected_runs() == [rid]
    seen: list[tuple[str, bool, bool, str]] = []
    done: list[bool] = []

    def read_and_close():
        menu = QApplication.activePopupWidget()
        if menu is None:
            QTimer.singleShot(20, read_and_close)
            return
        seen.extend((a.text(), a.isEnabled(), a.isChecked(), a.toolTip()) for a in menu.actions() if a.text())
        chosen = next((a for a in menu.actions() if a.text() == click), None) if click else None
        assert click is None or chosen is not None, f"no {click!r} in the run menu: {[s[0] for s in seen]}"
        menu.close()
        if chosen is not None:
            chosen.trigger()
        done.append(True)

    QTimer.singleShot(50, read_and_close)
    tree.customContextMenuRequested.emit(tree.visualItemRect(item).center())  # what a right-click emits
    qtbot.waitUntil(lambda: bool(done), timeout=10000)
    return seen


def save_report_text(qtbot, dialog, monkeypatch, folder) -> str:
    """Click Save in the Export report dialog, answer the file dialog with ``folder``/r.pdf, wait for the PDF and
    return its text as pdftotext reads it (words joined by single spaces)."""
    import subprocess

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    out = Path(folder) / "r.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "PDF (*.pdf)"))
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save),
                     Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Wrote r.pdf" in dialog.status.text(), timeout=60000)
    dialog.job.wait()
    return " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())


def write_report(qtbot, dialog, path) -> None:
    """Write the report dialog's PDF to ``path`` and wait for it: a PDF, and the dialog says it wrote it."""
    job = dialog._export(str(path))
    with qtbot.waitSignal(job.done, timeout=60000):
        pass
    job.wait()
    assert Path(path).read_bytes().startswith(b"%PDF")
    assert f"Wrote {Path(path).name}" in dialog.status.text()
