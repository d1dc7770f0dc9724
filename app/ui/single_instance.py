"""One window per workspace: ``main.py gui PATH...`` hands its files to the window that has the workspace open.

The window listens on a local socket (QLocalServer: a Unix socket, a named pipe on Windows) whose name is derived
from the user and the workspace file's absolute path. A second ``main.py gui`` connects to it before it opens the
workspace itself, sends one JSON line -- ``{"workspace": ..., "paths": [...]}`` -- and the window imports the
paths and comes to the front. The window answers one JSON line. ``{"ping": true}`` only asks whether the window
listens; ``{"quit": true}`` closes the window once it has imported what it was sent (the tests use both to start
and end a window normally).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# light imports only: a second `main.py gui` hands its paths over before it loads the window's modules
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtNetwork import QLocalServer, QLocalSocket

if TYPE_CHECKING:
    from app.ui.importing_window import ImportingWindow
    from app.workspace import Workspace, WorkspaceLocked

CONNECT_MS = 3000
ANSWER_MS = 15000  # the window answers from its event loop: drawing a large run may keep it busy a few seconds
RETRY_MS = 250


def _user() -> str:
    if hasattr(os, "getuid"):
        return str(os.getuid())
    return os.environ.get("USERNAME", "")


def _same_file(path: str | os.PathLike) -> str:
    return os.path.normcase(os.path.realpath(os.path.abspath(path)))


def server_name(ws_path: str | os.PathLike) -> str:
    """The local-socket name of the window that has ``ws_path`` open, per user."""
    digest = hashlib.sha256(f"{_user()}\0{_same_file(ws_path)}".encode()).hexdigest()[:24]
    return f"stormscope-{digest}"


class NoAnswer(Exception):
    """A window listens for the workspace but did not answer in time (it is busy, or hangs)."""


def send(ws_path: str | os.PathLike, message: dict[str, Any], timeout_ms: int | None = None) -> dict[str, Any] | None:
    """Send ``message`` to the window that has ``ws_path`` open; its answer, or None when no window listens for
    it. Raises :class:`NoAnswer` when a window took the message but did not answer within ``timeout_ms``."""
    timeout_ms = ANSWER_MS if timeout_ms is None else timeout_ms
    sock = QLocalSocket()
    sock.connectToServer(server_name(ws_path))
    if not sock.waitForConnected(CONNECT_MS):
        return None
    sock.write(json.dumps({"workspace": _same_file(ws_path), **message}).encode() + b"\n")
    sock.waitForBytesWritten(timeout_ms)
    buf = b""
    while not buf.endswith(b"\n") and sock.waitForReadyRead(timeout_ms):
        buf += bytes(sock.readAll().data())
    sock.disconnectFromServer()
    if not buf.endswith(b"\n"):
        raise NoAnswer(f"The StormScope window that has {ws_path} open did not answer within "
                       f"{timeout_ms / 1000:g} s (it may be busy); it may still import what it was sent when it is "
                       "free. Try again later, or close that window.")
    answer = json.loads(buf)
    return answer if answer.get("ok") else None


def hand_off(ws_path: Path, paths: list[str]) -> str | None:
    """Give ``paths`` (none: just raise it) to the window that has ``ws_path`` open; what to print, or None."""
    full = [os.path.abspath(p) for p in paths]
    answer = send(ws_path, {"paths": full})
    if answer is None:
        return None
    if not full:
        return f"The StormScope window that has {ws_path} open is now in front."
    n = len(full)
    said = f"Sent {n} path{'s' if n != 1 else ''} to the StormScope window that has {ws_path} open"
    if answer.get("queued"):
        return said + f"; {'it is' if n == 1 else 'they are'} imported once the window's running import has finished."
    return said + "."


def gui_args(argv: list[str]) -> argparse.Namespace:
    """``main.py [gui] [-w WS] [PATH...]``"""
    ap = argparse.ArgumentParser(prog="main.py gui")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-w", "--workspace")
    return ap.parse_args(argv)


def workspace_of(args: argparse.Namespace) -> Path:
    if args.workspace:
        return Path(args.workspace)
    from app.workspace import default_workspace_path

    return default_workspace_path()


def hand_off_early(argv: list[str]) -> int | None:
    """``main.py gui``: when a window has the workspace open, give it the paths and exit 0 (else None)."""
    args = gui_args(argv)
    ws_path = workspace_of(args)
    try:
        said = hand_off(ws_path, args.paths)
    except NoAnswer as e:
        print(f"main.py gui: {e}", file=sys.stderr)
        return 1
    if said is None:
        return None
    print(said)
    return 0


def too_new_at_start(ws_path: Path, e: Exception) -> int:
    """The window cannot open a workspace made by a newer StormScope: say so (stderr and a message box), exit 2.
    Nothing was written to the file."""
    from PySide6.QtWidgets import QMessageBox

    print(f"main.py gui: error: {ws_path}: {e}", file=sys.stderr)
    QMessageBox.critical(None, "StormScope — workspace from a newer version", f"{ws_path}\n\n{e}")
    return 2


def refused_at_start(ws_path: Path, e: Exception) -> int:
    """The window does not open a workspace holding objects StormScope never creates (app.safe_open): say so
    (stderr and a message box), exit 1. Nothing was written to the file."""
    from PySide6.QtWidgets import QMessageBox

    print(f"main.py gui: error: {ws_path}: {e}", file=sys.stderr)
    QMessageBox.critical(None, "StormScope — workspace not opened", f"{ws_path}\n\n{e}")
    return 1


def locked_at_start(ws_path: Path, e: WorkspaceLocked) -> int:
    """The window cannot open its workspace: say who has it and what to do, then exit 2."""
    from PySide6.QtWidgets import QMessageBox

    print(f"main.py gui: error: {e}", file=sys.stderr)
    QMessageBox.critical(None, "StormScope — workspace in use",
                         f"The workspace {ws_path} is in use by {e.holder}.\n\n{e.advice}")
    return 2


class WorkspaceServer(QObject):
    """Listens, in the window's process, for paths other ``main.py gui`` processes hand to the window."""

    def __init__(self, window: ImportingWindow):
        super().__init__(window)
        self.window = window
        self.pending: list[str] = []
        self.quit_requested = False
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._accept)
        self.timer = QTimer(self)
        self.timer.setInterval(RETRY_MS)
        self.timer.timeout.connect(self._drain)
        self.name = ""
        self._bufs: dict[int, bytes] = {}
        self.listen()
        # File > Open workspace... retitles the window: listen under the new workspace's name
        window.windowTitleChanged.connect(lambda _title: self.listen())

    def listen(self) -> bool:
        name = server_name(self.window.ws_path)
        if name == self.name and self.server.isListening():
            return True
        self.server.close()
        self.name = name
        if self.server.listen(name):
            return True
        # a window that crashed leaves its socket behind; this process holds the workspace, so no live window
        # serves this name: remove it and listen again
        QLocalServer.removeServer(name)
        if self.server.listen(name):
            return True
        self.window.statusBar().showMessage(
            f"Other StormScope starts cannot hand files to this window ({self.server.errorString()}).", 10000)
        return False

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            sock = self.server.nextPendingConnection()
            self._bufs[id(sock)] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._bufs.pop(id(s), None))
            sock.disconnected.connect(sock.deleteLater)

    def _read(self, sock: QLocalSocket) -> None:
        buf = self._bufs.get(id(sock), b"") + bytes(sock.readAll().data())
        self._bufs[id(sock)] = buf
        if not buf.endswith(b"\n"):
            return
        self._bufs[id(sock)] = b""
        try:
            message = json.loads(buf)
        except ValueError:
            message = None
        answer = self._handle(message) if isinstance(message, dict) else {"ok": False, "error": "not understood"}
        sock.write(json.dumps(answer).encode() + b"\n")
        sock.flush()
        sock.disconnectFromServer()

    def _handle(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("workspace") != _same_file(self.window.ws_path):
            self.listen()  # the window has opened another workspace (File > Open workspace...)
            return {"ok": False, "error": "this window has another workspace open"}
        if message.get("ping"):
            return {"ok": True}
        paths = [str(p) for p in message.get("paths") or []]
        busy = self._busy()
        if paths:
            self.pending += paths  # imported by _drain below, now or after the running import
            if busy:
                n = len(self.pending)
                self.window.statusBar().showMessage(
                    f"{n} more file{'s' if n != 1 else ''} to import when the running import has finished.", 10000)
        if message.get("quit"):
            self.quit_requested = True
        else:
            self._raise()
        self._drain()
        return {"ok": True, "queued": bool(paths) and busy}

    def enqueue(self, paths: list[str]) -> None:
        """Import ``paths`` now, or after the import that is running."""
        self.pending += paths
        self._drain()

    def _busy(self) -> bool:
        thread = self.window.import_thread
        return thread is not None and thread.isRunning()

    def _raise(self) -> None:
        w = self.window
        w.setWindowState((w.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
        w.show()
        w.raise_()
        w.activateWindow()

    def _drain(self) -> None:
        if self._busy():
            self.timer.start()
            return
        if self.pending:
            paths, self.pending = self.pending, []
            self.window.start_import(paths)
            self.timer.start()
            return
        self.timer.stop()
        if self.quit_requested:
            self.window.close()

    def close(self) -> None:
        self.timer.stop()
        self.server.close()


def serve(window: ImportingWindow) -> WorkspaceServer:
    """Let later ``main.py gui`` starts on the window's workspace hand their files to ``window``."""
    return WorkspaceServer(window)


def wait_for_window(ws_path: Path, paths: list[str], seconds: float = 5.0) -> str | None:
    """Like :func:`hand_off`, retrying while a window that holds ``ws_path`` starts listening."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        said = hand_off(ws_path, paths)
        if said is not None:
            return said
        time.sleep(RETRY_MS / 1000)
    return None


def open_for_window(path: Path) -> Workspace:
    """The workspace for the window: writable, or read-only when a newer StormScope made it and this one reads it
    correctly (its compatibility number, app/migrations.py) or when its file, folder or disk cannot be written; the
    window then says so and changes nothing (app.workspace.open_for_change_or_reading). Its stored questions are
    read back first (app.analysis.question_kinds.check_stored): one StormScope never stores refuses the file."""
    from app.analysis.question_kinds import check_stored
    from app.ui.memory_limit import duckdb_settings
    from app.workspace import open_for_change_or_reading

    ws = open_for_change_or_reading(path, settings=duckdb_settings())
    try:
        check_stored(ws)
    except BaseException:
        ws.close()
        raise
    return ws


def hand_off_or_open(ws_path: Path, paths: list[str]) -> int | Workspace:
    """Before a window opens ``ws_path``: the exit code when another process has it, else the workspace, opened
    (for the window: opening it once is ~0.1 s of the start).

    A window that has it open gets ``paths`` (and comes to the front): say so and exit 0. A window still starting
    listens a moment later. Anyone else holding it: a message box says who and what to do, exit 2.
    """
    from app.workspace import WorkspaceLocked, WorkspaceRefused, WorkspaceTooNew

    try:
        said = hand_off(ws_path, paths)
        if said is None:
            try:  # read-only when a newer StormScope made it, or it cannot be written here: the window says so
                return open_for_window(ws_path)
            except WorkspaceTooNew as e:
                return too_new_at_start(ws_path, e)
            except WorkspaceRefused as e:
                return refused_at_start(ws_path, e)
            except WorkspaceLocked as e:
                said = wait_for_window(ws_path, paths) if e.kind == "window" else None
                if said is None:
                    return locked_at_start(ws_path, e)
    except NoAnswer as e:
        from PySide6.QtWidgets import QMessageBox

        print(f"main.py gui: {e}", file=sys.stderr)
        QMessageBox.warning(None, "StormScope — the window does not answer", str(e))
        return 1
    print(said)  # the window that had it (after it started listening) took the paths
    return 0
