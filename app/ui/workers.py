"""Long jobs off the GUI thread: a QThread runs a plain job function with a JobState whose
progress is forwarded as signals, and whose cancel() the Cancel button calls."""

from __future__ import annotations

import atexit
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal
from shiboken6 import isValid

from app.workspace import ImportResult, Workspace
from parsers.base import ImportOptions, JobState

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

    def __init__(self, job: Callable[[JobState], Any], owner: QObject | None = None):
        super().__init__(None)
        self.job = job
        self.owner = owner
        self.result: Any = None
        self.state = JobState(lambda f, m: self.progress.emit(f, m))
        self.finished.connect(self._deliver)  # queued to the GUI thread, where this object lives

    def start(self, *args: Any) -> None:
        _RUNNING.add(self)
        super().start(*args)

    def cancel(self) -> None:
        self.state.cancel()

    def run(self) -> None:
        try:
            self.result = self.job(self.state)
        except Exception as e:  # reported to the owner, never raised into Qt's thread
            self.result = e

    def _deliver(self) -> None:
        _RUNNING.discard(self)
        if self.owner is None or isValid(self.owner):
            self.done.emit(self.result)


def wait_for_jobs(timeout_ms: int = 60000, cancel: bool = True) -> None:
    """Let every running job finish (the application is quitting, or the workspace they read is switched)."""
    for job in list(_RUNNING):
        if cancel:
            job.cancel()
        job.wait(timeout_ms)


atexit.register(wait_for_jobs)  # a job still running at exit would be destroyed mid-run


class ImportThread(JobThread):
    """Imports files, folders and .zip archives (app.importer.iter_import); emits one ``file_done`` per file."""

    file_done = Signal(object)

    def __init__(self, ws_path: Path, paths: list[str], options: ImportOptions, owner: QObject | None = None):
        super().__init__(self._import, owner)
        self.ws_path = ws_path
        self.paths = paths
        self.options = options

    def _import(self, state: JobState) -> list[ImportResult]:
        from app.importer import iter_import  # the parsers load when an import starts, not at start-up

        results: list[ImportResult] = []
        with Workspace(self.ws_path) as ws:
            for step in iter_import(ws, self.paths, self.options, state):
                results.append(step.result)
                self.file_done.emit(step.result)
        return results
