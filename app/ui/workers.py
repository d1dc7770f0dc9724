"""Long jobs off the GUI thread: a QThread runs a plain job function with a JobState whose
progress is forwarded as signals, and whose cancel() the Cancel button calls."""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import duckdb
from PySide6.QtCore import QObject, QThread, Signal
from shiboken6 import isValid

from app.workspace import ImportResult, Workspace
from parsers.base import Cancelled, ImportOptions, JobState

_RUNNING: set[JobThread] = set()  # every started job, until it has finished and delivered its result


class JobThread(QThread):
    """Runs ``job(state)`` in a thread; emits progress(fraction, message) and done(result or exception).

    ``owner`` is the widget the job works for, never the thread's Qt parent: Qt aborts the process when a QThread
    is destroyed while it runs ("QThread: Destroyed while thread is still running"), which is what happened when
    a view was deleted (its window closed) while one of its jobs was still computing. So a running job is kept
    alive here until it finishes, and ``done`` is emitted on the GUI thread after the thread has finished, and
    only while the owner still exists -- a closed view never receives a late result.
    """

    progress = Signal(float, str)
    done = Signal(object)

    def __init__(self, job: Callable[[JobState], Any], owner: QObject | None = None, connections: Any = ()):
        """``connections``: the DuckDB connections (cursors) ``job`` queries through: cancelling interrupts the
        query running on them, so that a job ends within one query, not when its work is done."""
        super().__init__(None)
        self.job = job
        self.owner = owner
        self.connections = list(connections)
        self._stopped = False
        self.result: Any = None
        self.state = JobState(lambda f, m: self.progress.emit(f, m))
        self.finished.connect(self._deliver)  # queued to the GUI thread, where this object lives

    def start(self, *args: Any) -> None:
        _RUNNING.add(self)
        super().start(*args)

    def cancel(self) -> None:
        self.state.cancel()
        self._interrupt()

    def _interrupt(self) -> None:
        for con in self.connections:
            with suppress(duckdb.ConnectionException):  # closed: the job's own end closed it, nothing runs on it
                con.interrupt()

    def stop(self) -> None:
        """Cancel the job and wait until its thread has ended: the only way a view ends a job before the
        connection it reads through is closed (closing it under a running query crashed the interpreter in
        DuckDB). DuckDB's interrupt reaches only the query running at that moment, so it is sent again every
        100 ms until the job has seen the cancel (between two queries, at its next progress)."""
        self._stopped = True  # its owner is closing or switching workspaces: the result goes to no one
        self.cancel()
        while not self.wait(100):
            self._interrupt()

    def run(self) -> None:
        try:
            self.result = self.job(self.state)
        except duckdb.InterruptException as e:  # the query our cancel() interrupted: the job was cancelled
            self.result = Cancelled("cancelled by the user") if self.state.cancelled else e
        except Exception as e:  # reported to the owner, never raised into Qt's thread
            self.result = e

    def _deliver(self) -> None:
        _RUNNING.discard(self)
        if not self._stopped and (self.owner is None or isValid(self.owner)):
            self.done.emit(self.result)


def wait_for_jobs(but: QThread | None = None) -> None:
    """Stop every running job (:meth:`JobThread.stop`: cancelled, its queries interrupted, waited for) -- the
    application is quitting, or the workspace they read is switched -- ``but`` one (the import that waits for the
    window to open its workspace again)."""
    for job in list(_RUNNING):
        if job is not but:
            job.stop()


atexit.register(wait_for_jobs)  # a job still running at exit would be destroyed mid-run


class WorkspaceLost(Exception):
    """The import's workspace could not be opened again after DuckDB invalidated it; ``str()`` says so."""


class ImportThread(JobThread):
    """Imports files, folders and .zip archives (app.importer.iter_import); emits one ``file_done`` per file.

    When DuckDB invalidates the database during the import (the disk filled up at a checkpoint), every connection
    of this process to the file must be closed before it can be opened again (``Workspace.reopen``): the thread
    closes its own, emits ``reopen_needed`` and waits; the window closes its own, opens the file again and calls
    :meth:`reopened`; the thread then goes on with the next file of the drop, where it was. Waiting in place (rather
    than ending the import and queueing the rest again) keeps every file of the drop in the one list being walked --
    including files unpacked from an archive into this import's temporary folder -- so none can be dropped or
    imported twice."""

    file_done = Signal(object)
    reopen_needed = Signal()

    def __init__(self, ws_path: Path, paths: list[str], options: ImportOptions, owner: QObject | None = None):
        super().__init__(self._import, owner)
        self.ws_path = ws_path
        self.paths = paths
        self.options = options
        self._reopened = threading.Event()
        self._reopen_error: BaseException | None = None
        self.not_started = 0  # files of the drop never started (Cancel)

    def _import(self, state: JobState) -> list[ImportResult]:
        """Every file's result; the file Cancel stopped is ``cancelled`` (nothing of it stored, never "failed"), and
        ``not_started`` counts the files of the drop Cancel left untouched."""
        from dataclasses import replace

        from app.importer import iter_import  # the parsers load when an import starts, not at start-up

        results: list[ImportResult] = []
        with Workspace(self.ws_path) as ws:
            ws.before_reopen = self._wait_for_reopen
            for step in iter_import(ws, self.paths, self.options, state):
                r = replace(step.result, status="cancelled") if step.cancelled else step.result
                if step.cancelled:
                    self.not_started = step.total - step.index - 1
                results.append(r)
                self.file_done.emit(r)
        return results

    def _wait_for_reopen(self) -> None:
        """In the thread, its connection closed: the window lets go of the database and opens the file again."""
        self._reopened.clear()
        self._reopen_error = None
        self.reopen_needed.emit()
        self._reopened.wait()
        if self._reopen_error is not None:
            raise self._reopen_error

    def reopened(self, error: BaseException | None = None) -> None:
        """The window has opened the workspace again (``error``: it could not; the import stops with it)."""
        self._reopen_error = error
        self._reopened.set()
