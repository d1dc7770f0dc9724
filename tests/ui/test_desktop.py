"""The window as a desktop application: Help > Open log folder, the crash log, files the system opens with
StormScope (macOS QFileOpenEvent; "Open with" arguments on Windows and Linux), a windowed start without
stdout/stderr, the icon."""

import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

import main
from app.ui.single_instance import send, serve
from app.workspace import Workspace
from tests.conftest import ROOT, SAMPLES

PY = sys.executable
SAMPLE = SAMPLES / "storm_fast_iostat-xt.txt"


def _help_action(window, text):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == text)


class _Desktop:
    opened: list[QUrl] = []
    answer = True

    @classmethod
    def openUrl(cls, url):  # noqa: N802 (Qt name)
        cls.opened.append(url)
        return cls.answer


def test_help_open_log_folder_opens_the_user_log_folder(window, monkeypatch):
    monkeypatch.setattr("app.ui.desktop.QDesktopServices", _Desktop)
    _Desktop.opened, _Desktop.answer = [], True
    _help_action(window, "Open &log folder").trigger()
    folder = Path(os.environ["XDG_STATE_HOME"]) / "StormScope" / "log"  # platformdirs' user log folder on Linux
    assert _Desktop.opened == [QUrl.fromLocalFile(str(folder))]
    assert folder.is_dir()  # made when it did not exist yet
    _Desktop.answer = False  # no file manager: the status bar says where the folder is
    _help_action(window, "Open &log folder").trigger()
    assert window.statusBar().currentMessage() == f"The log folder could not be opened here: it is {folder}"


def test_a_file_the_system_opens_is_imported_into_the_window(window, qtbot, qapp):
    """macOS: a trace opened with StormScope in the Finder, or dropped on its Dock icon, is a QFileOpenEvent."""
    server = serve(window)
    qapp.open_files_with(server.enqueue)  # what run_gui does
    try:
        QApplication.sendEvent(qapp, QFileOpenEvent(str(SAMPLE)))
        qtbot.waitUntil(lambda: [r.name for r in window.ws.runs()] == ["storm_fast_iostat-xt"], timeout=20000)
        qtbot.waitUntil(lambda: window.import_thread is None or not window.import_thread.isRunning(), timeout=20000)
    finally:
        qapp.open_files_with(None)
        server.close()


def test_files_opened_before_the_window_exists_wait_for_it(qapp):
    """A folder dropped on the Dock icon starts the app: its event may come before the window is up."""
    qapp.open_files_with(None)
    QApplication.sendEvent(qapp, QFileOpenEvent(str(SAMPLES)))
    assert qapp.opened_files == [str(SAMPLES)]
    received: list[list[str]] = []
    qapp.open_files_with(received.append)
    try:
        assert received == [[str(SAMPLES)]]
        assert qapp.opened_files == []
    finally:
        qapp.open_files_with(None)


def test_the_application_has_the_icon(qapp):
    assert not qapp.windowIcon().isNull()
    assert qapp.windowIcon().availableSizes()[0].width() == 512


def test_paths_first_open_the_window_and_command_names_run_commands(tmp_path, monkeypatch):
    """'Open with' starts `StormScope PATH...`: the window; a command's name stays a command even when a file of
    that name is in the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "import").write_text("x")
    assert main.opens_the_window([])
    assert main.opens_the_window([str(SAMPLE)])
    assert main.opens_the_window([str(SAMPLES), "-w", "ws.duckdb"])
    assert main.opens_the_window(["-w", "ws.duckdb"])
    assert not main.opens_the_window(["import", str(SAMPLE)])
    assert not main.opens_the_window(["--version"])
    assert not main.opens_the_window(["no-such-file"])  # the command line's "invalid choice", not a window


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
                XDG_STATE_HOME=str(tmp_path / "state"), PYTHONPATH=str(ROOT))


WINDOWED = "import sys; sys.stdout = None; sys.stderr = None; import main; sys.exit(main.main(sys.argv[1:]))"


def test_a_windowed_start_without_stdout_and_stderr_opens_takes_files_and_closes(tmp_path, qapp):
    """A windowed build (Windows, macOS) has sys.stdout and sys.stderr set to None: the window opens, an "Open
    with" start hands it a file (printing what it did to nowhere), and it closes with exit code 0, its log
    written."""
    ws = tmp_path / "ws.duckdb"
    window = subprocess.Popen([PY, "-c", WINDOWED, "-w", str(ws)], cwd=ROOT, env=_env(tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while send(ws, {"ping": True}) is None:
            assert window.poll() is None, window.communicate()
            assert time.monotonic() < deadline, "the window never listened"
            time.sleep(0.1)
        other = subprocess.run([PY, "-c", WINDOWED, str(SAMPLE), "-w", str(ws)], cwd=ROOT, env=_env(tmp_path),
                               capture_output=True, text=True, timeout=60)
        assert (other.returncode, other.stdout, other.stderr) == (0, "", "")
        assert send(ws, {"quit": True}) is not None  # closes once it has imported what it was sent
        out, err = window.communicate(timeout=60)
    finally:
        if window.poll() is None:
            window.kill()
            window.communicate()
    assert (window.returncode, out) == (0, "")
    # Qt's offscreen platform writes its notices to the process's stderr itself (not through sys.stderr)
    assert [line for line in err.splitlines() if not line.startswith("This plugin does not support")] == []
    with Workspace(ws, read_only=True) as w:
        assert [r.name for r in w.runs()] == ["storm_fast_iostat-xt"]
    log = (tmp_path / "state" / "StormScope" / "log" / "stormscope.log").read_text()
    assert log.count(" INFO stormscope: StormScope ") == 2  # both starts logged
    assert "Traceback" not in log


CRASH = """import sys, threading
sys.argv = ["main.py"]
from app.crashlog import start
start("test")
if sys.argv and {kind!r} == "native":
    import faulthandler
    faulthandler._sigsegv()
raise RuntimeError("the crash the log must keep")
"""


def test_an_uncaught_exception_is_logged_and_still_reported(tmp_path):
    p = subprocess.run([PY, "-c", CRASH.format(kind="python")], cwd=ROOT, env=_env(tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.rstrip().endswith("RuntimeError: the crash the log must keep")  # Python's own report too
    log = (tmp_path / "state" / "StormScope" / "log" / "stormscope.log").read_text()
    assert " CRITICAL stormscope: uncaught exception\nTraceback" in log
    assert log.rstrip().endswith("RuntimeError: the crash the log must keep")


def test_a_native_crash_leaves_its_stacks_in_the_fault_log(tmp_path):
    p = subprocess.run([PY, "-c", CRASH.format(kind="native")], cwd=ROOT, env=_env(tmp_path), capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0
    faults = (tmp_path / "state" / "StormScope" / "log" / "faults.log").read_text()
    assert faults.startswith("Fatal Python error: Segmentation fault")
    assert 'File "<string>", line 7 in <module>' in faults


def test_the_window_starts_without_the_modules_it_defers(tmp_path):
    """Cold start stays under 1.5 s (benchmarks/bench_startup.py) only while the views not yet shown, the importer
    and the PDF library load when first needed: the window is built and shown as the benchmark does it, in a fresh
    interpreter, and none of them is loaded."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_startup
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    code = bench_startup.WINDOW.format(root=str(ROOT), ws=str(tmp_path / "ws.duckdb"),
                                       ini=str(tmp_path / "settings.ini"), heavy=bench_startup.HEAVY)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    import json

    loaded = set(json.loads(out.stdout.strip().splitlines()[-1])["loaded"])
    assert loaded <= {"polars", "duckdb", "pyqtgraph", "numpy"}, loaded
