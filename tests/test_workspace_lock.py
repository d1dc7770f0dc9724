"""The window and the command line never lock each other out with a raw DuckDB traceback.

A workspace another process holds gives one clear line (command line, exit 2) or a message box (window) saying
who holds it and what to do; ``main.py gui PATH`` on a workspace a window has open hands PATH to that window.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QDir  # noqa: E402
from PySide6.QtWidgets import QFileDialog, QMessageBox  # noqa: E402

import main as entry  # noqa: E402
from app.ui.main_window import MainWindow  # noqa: E402
from app.ui.single_instance import send, server_name  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from app.workspace_lock import WorkspaceLocked, cli_message, describe_holder  # noqa: E402
from parsers.schema import SCHEMA_VERSION  # noqa: E402
from tests.conftest import ROOT, SAMPLES  # noqa: E402

PY = sys.executable
SAMPLE = SAMPLES / "storm_fast_iostat-xt.txt"


def _env(tmp_path: Path) -> dict[str, str]:
    # the window's settings go to tmp_path, never to the user's own
    return dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
                PYTHONPATH=str(ROOT))


def _main(*args: str, tmp_path: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(ROOT / "main.py"), *args], cwd=ROOT, env=_env(tmp_path), capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture
def held(tmp_path):
    """A workspace another program (a plain python with DuckDB) holds until the test ends."""
    path = tmp_path / "held.duckdb"
    Workspace(path).close()
    holder = subprocess.Popen(
        [PY, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
                   "sys.stdin.read(); c.close()", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        yield path, holder.pid
    finally:
        holder.stdin.close()  # it closes its connection and ends
        holder.wait(timeout=10)
        holder.stdout.close()


# ---- who holds it, in words -------------------------------------------------------------------------------------
def test_the_holder_is_named_from_its_command_line():
    main_py = str(ROOT / "main.py")
    holder, kind, advice, command = describe_holder(41, ["/venv/bin/python", main_py, "gui", "-w", "ws.duckdb"])
    assert (holder, kind) == ("the StormScope window (process 41)", "window")
    assert advice == "Close the StormScope window that has it open, or open another workspace."
    assert describe_holder(41, ["python3", main_py])[1] == "window"  # plain `main.py`: the window too
    assert describe_holder(41, ["python3", main_py, "-w", "x.duckdb"])[1] == "window"
    holder, kind, advice, command = describe_holder(42, ["python3", main_py, "import", "big.zip", "-w", "ws"])
    assert (holder, kind, command) == ("an import started from the command line (process 42)", "command", "import")
    assert advice == "Wait for the import to finish, then try again."
    holder, kind, advice, _ = describe_holder(43, ["/usr/bin/duckdb", "ws.duckdb"])
    assert (holder, kind) == ("another program, duckdb (process 43)", "program")
    assert advice == "Close that program, or open another workspace."
    # another project's main.py, run from a folder without StormScope's app/ beside it, is another program
    assert describe_holder(44, ["python3", "main.py", "gui"], cwd=Path("/"))[1] == "program"
    # no /proc (macOS, Windows): the program's name from DuckDB's message; no process id: still a sentence
    assert describe_holder(45, None, exe="/usr/local/bin/python3.12")[0] == "another program, python3.12 (process 45)"
    assert describe_holder(None, None)[0] == "another program"


def test_installed_stormscope_programs_are_named_too():
    """pip/pipx's entry points and the desktop build's programs: a window or a command, like main.py (they were
    "another program, stormscope", so a window still starting was not waited for)."""
    window = ("the StormScope window (process 46)", "window")
    assert describe_holder(46, ["/home/u/.local/pipx/venvs/stormscope/bin/python", "/home/u/.local/bin/stormscope",
                                "-w", "ws.duckdb"])[:2] == window
    assert describe_holder(46, ["/opt/StormScope/StormScope"])[:2] == window
    assert describe_holder(46, ["/usr/bin/python3", "/usr/local/bin/stormscope-gui", "traces/"])[:2] == window
    assert describe_holder(46, ["/opt/StormScope/StormScope", "/data/traces", "-w", "ws.duckdb"])[:2] == window
    holder, kind, _, command = describe_holder(47, ["/opt/StormScope/stormscope-cli", "import", "big.zip"])
    assert (holder, kind, command) == ("an import started from the command line (process 47)", "command", "import")
    holder, kind, _, command = describe_holder(48, ["python3", str(ROOT / "main.py"), "sql", "select 1"])
    assert (holder, kind, command) == ("a StormScope command run from the command line (process 48)", "command",
                                       "sql")


def test_the_lock_knows_every_command():
    from app.cli.entry import COMMANDS
    from app.workspace_lock import COMMANDS as known

    assert known == {c.name for c in COMMANDS} - {"gui"}


def test_the_command_line_names_the_command_that_hands_files_to_the_window():
    e = WorkspaceLocked("/w/ws.duckdb", "the StormScope window (process 7)", "window", "…", pid=7)
    assert cli_message(e, "runs") == ("the workspace /w/ws.duckdb is open in the StormScope window (process 7); "
                                      "close that window, or run this command on another workspace (-w WS)")
    assert cli_message(e, "import", ["a b.txt", "c.txt"]) == (
        "the workspace /w/ws.duckdb is open in the StormScope window (process 7); to import into it, hand the "
        "files to that window: main.py gui -w /w/ws.duckdb 'a b.txt' c.txt")
    e = WorkspaceLocked("/w/ws.duckdb", "an import…", "command", "…", pid=8, command="import")
    assert cli_message(e, "report") == ("the workspace /w/ws.duckdb is in use by another StormScope command, "
                                        "main.py import (process 8); wait for the import to finish, then run this "
                                        "again")


# ---- the command line on a held workspace -------------------------------------------------------------------------
def test_a_command_on_a_held_workspace_says_who_holds_it_and_exits_2(held, tmp_path):
    path, pid = held
    r = _main("runs", "-w", str(path), tmp_path=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "IO Error" not in r.stderr
    assert r.stderr == (f"main.py runs: error: the workspace {path} is in use by another program, python "
                        f"(process {pid}); close it, or run this command on another workspace (-w WS)\n")
    assert r.stdout == ""


def test_every_command_that_opens_the_workspace_says_so(held, capsys, tmp_path):
    """Issue 17, finding 10: every command (reading or writing) on a held workspace says who holds it, exit 2."""
    from tests.hostile import commands

    path, pid = held
    for argv in commands(tmp_path):
        assert entry.main([*argv, "-w", str(path)]) == 2, argv
        out, err = capsys.readouterr()
        assert err.startswith(f"main.py {argv[0]}: error: the workspace {path} is in use by another program"), argv
        assert err.count("\n") == 1
        assert f"(process {pid})" in err
        assert out == ""


# ---- the window on a held workspace -------------------------------------------------------------------------------
def test_the_window_cannot_start_on_a_held_workspace_says_why_and_exits_2(held, qapp, monkeypatch, capsys):
    path, pid = held
    boxes = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a: boxes.append((title, text)))
    assert entry.main(["gui", "-w", str(path)]) == 2
    assert boxes == [("StormScope — workspace in use",
                      f"The workspace {path} is in use by another program, python (process {pid}).\n\n"
                      "Close that program, or open another workspace.")]
    assert "Traceback" not in capsys.readouterr().err


def _action(w: MainWindow, text: str):
    for menu_action in w.menuBar().actions():
        for a in menu_action.menu().actions():
            if a.text() == text:
                return a
    raise AssertionError(f"no menu item {text!r}")


def test_open_workspace_on_a_held_file_says_who_and_keeps_the_current_one(window, held, monkeypatch):
    path, pid = held
    before = window.ws_path
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    boxes = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: boxes.append((title, text)))
    _action(window, "&Open workspace…").trigger()
    assert boxes == [("Workspace in use", f"The workspace {path} is in use by another program, python "
                                          f"(process {pid}).\n\nClose that program, or open another workspace.")]
    assert window.ws_path == before
    assert window.windowTitle() == "StormScope — ws"
    assert window.ws.runs() == []  # the current workspace is still open and answers


# ---- one window per workspace -------------------------------------------------------------------------------------
def _wait_listening(ws: Path, proc: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if send(ws, {"ping": True}) is not None:  # None: nobody listens yet
            return
        time.sleep(0.1)
    raise AssertionError("the window never listened")


def test_gui_hands_its_paths_to_the_window_that_has_the_workspace_open(tmp_path, qapp, capsys):
    ws = tmp_path / "ws.duckdb"
    stale = Path(QDir.tempPath()) / server_name(ws)
    if sys.platform != "win32":  # a window that crashed left its socket behind: the next one listens anyway
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(stale))
        s.close()
    window = subprocess.Popen([PY, str(ROOT / "main.py"), "gui", "-w", str(ws)], cwd=ROOT, env=_env(tmp_path),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_listening(ws, window)
        assert entry.main(["runs", "-w", str(ws)]) == 2
        assert capsys.readouterr().err == (
            f"main.py runs: error: the workspace {ws} is open in the StormScope window (process {window.pid}); "
            "close that window, or run this command on another workspace (-w WS)\n")
        assert entry.main(["import", str(SAMPLE), "-w", str(ws)]) == 2
        assert capsys.readouterr().err.endswith(
            f"to import into it, hand the files to that window: main.py gui -w {ws} {SAMPLE}\n")

        r = _main("gui", "-w", str(ws), str(SAMPLE), tmp_path=tmp_path)
        assert (r.returncode, r.stdout) == (0, f"Sent 1 path to the StormScope window that has {ws} open.\n")
        assert "Traceback" not in r.stderr

        assert send(ws, {"quit": True}) is not None  # it closes once it has imported what it was sent
        out, err = window.communicate(timeout=30)
    finally:
        if window.poll() is None:
            window.kill()
            window.communicate()
    assert window.returncode == 0, err
    assert "Traceback" not in err
    with Workspace(ws, read_only=True) as w:
        assert [r.name for r in w.runs()] == ["storm_fast_iostat-xt"]
    assert not stale.exists()  # the window removed its socket when it closed


class _RunningImport:
    """Stands for an import the window is running, until the test ends it."""

    running = True

    def isRunning(self):  # noqa: N802 (Qt name)
        return self.running

    def cancel(self):
        self.running = False

    def wait(self, ms=0):
        return True


def test_paths_handed_over_during_an_import_are_imported_after_it(window, qtbot, tmp_path):
    from app.ui.single_instance import serve

    server = serve(window)  # what run_gui does for the window it opens
    busy = window.import_thread = _RunningImport()
    client = subprocess.Popen([PY, str(ROOT / "main.py"), "gui", "-w", str(window.ws_path), str(SAMPLE)], cwd=ROOT,
                              env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        qtbot.waitUntil(lambda: client.poll() is not None, timeout=20000)  # the window answers meanwhile
        out, err = client.communicate()
    finally:
        if client.poll() is None:
            client.kill()
            client.communicate()
    assert client.returncode == 0, err
    assert out == (f"Sent 1 path to the StormScope window that has {window.ws_path} open; it is imported once the "
                   "window's running import has finished.\n")
    assert window.statusBar().currentMessage() == "1 more file to import when the running import has finished."
    assert window.ws.runs() == []
    busy.running = False
    window.import_thread = None
    qtbot.waitUntil(lambda: [r.name for r in window.ws.runs()] == ["storm_fast_iostat-xt"], timeout=20000)
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=20000)
    server.close()


def test_a_window_that_does_not_answer_is_said_so(tmp_path, qapp, monkeypatch, capsys):
    from PySide6.QtNetwork import QLocalServer

    from app.ui import single_instance

    ws = tmp_path / "ws.duckdb"
    hung = QLocalServer()  # listens, but this thread never turns to it: a window stuck in a long job
    assert hung.listen(server_name(ws))
    monkeypatch.setattr(single_instance, "ANSWER_MS", 300)
    try:
        assert entry.main(["gui", "-w", str(ws), str(SAMPLE)]) == 1
    finally:
        hung.close()
    assert capsys.readouterr().err == (
        f"main.py gui: The StormScope window that has {ws} open did not answer within 0.3 s (it may be busy); it may "
        "still import what it was sent when it is free. Try again later, or close that window.\n")


def test_open_workspace_from_a_newer_version_says_so_and_keeps_the_current_one(window, tmp_path, monkeypatch):
    from app.workspace import Workspace

    newer = tmp_path / "newer.duckdb"
    w = Workspace(newer)
    w.con.execute("UPDATE workspace_info SET value = '99' WHERE key IN ('schema_version', 'read_compatible_from')")
    w.close()
    before, data = window.ws_path, newer.read_bytes()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(newer), ""))
    boxes = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: boxes.append((title, text)))
    _action(window, "&Open workspace…").trigger()
    assert boxes == [("Workspace from a newer StormScope", f"{newer}\n\nThis workspace was made by a newer StormScope "
                      f"(schema 99); this version reads up to schema {SCHEMA_VERSION}. Update StormScope to open it.")]
    # the current workspace is still open
    assert window.ws_path == before
    assert window.ws.runs() == []
    assert newer.read_bytes() == data  # and the newer one untouched


def test_gui_on_a_workspace_from_a_newer_version_exits_2_with_a_message(tmp_path, qapp, monkeypatch, capsys):
    from app.workspace import Workspace

    newer = tmp_path / "newer.duckdb"
    w = Workspace(newer)
    w.con.execute("UPDATE workspace_info SET value = '99' WHERE key IN ('schema_version', 'read_compatible_from')")
    w.close()
    boxes = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a: boxes.append((title, text)))
    assert entry.main(["gui", "-w", str(newer)]) == 2
    assert boxes
    assert boxes[0][0] == "StormScope — workspace from a newer version"
    assert "schema 99" in boxes[0][1]
    assert "Traceback" not in capsys.readouterr().err


def test_the_window_opens_its_workspace_once_at_start(tmp_path, qapp, monkeypatch):
    """The start's check that no other process holds the workspace hands the opened workspace to the window:
    opening it twice cost ~0.1 s of the start (the safe-open checks run on every open)."""
    path = tmp_path / "ws.duckdb"
    Workspace(path).close()
    opened: list[Path] = []
    real_init = Workspace.__init__

    def counting_init(self, p, *a, **kw):
        opened.append(Path(p))
        real_init(self, p, *a, **kw)

    shown: list[MainWindow] = []

    def exec_once() -> int:  # the event loop: the window is up; close it as the user would
        shown.extend(w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
        for w in shown:
            w.close()
        return 0

    monkeypatch.setattr(Workspace, "__init__", counting_init)
    monkeypatch.setattr(qapp, "exec", exec_once)
    assert entry.main(["gui", "-w", str(path)]) == 0
    assert len(shown) == 1
    assert shown[0].ws_path == path
    assert opened == [path]
