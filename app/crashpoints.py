"""Crash points for the reliability suite (tests/test_reliability_crash.py, ``make stress``): named places in an
import where a test can make the process die by SIGKILL, as a power cut or the OOM killer would.

Harmless in production: :func:`crash_point` does nothing unless the environment variable ``STORMSCOPE_TEST_CRASH_AT``
names that phase, and no StormScope code sets it. ``STORMSCOPE_TEST_CRASH_AT=PHASE`` kills the process on reaching
PHASE; ``PHASE:SECONDS`` starts a timer there and kills it that long after (the import goes on meanwhile), which
lands a kill at a random point inside or after the phase.

The phases, in the order an import reaches them (app/workspace.py):

``staging``      a large import's streamed insert hands DuckDB its first rows (the INSERT has begun)
``bulk-insert``  the stream has handed over its last rows, DuckDB still inside that INSERT (the transaction open)
``commit``       everything is inserted; COMMIT is next
``wal``          COMMIT returned: the run is in the write-ahead log, not yet in the database file
``checkpoint``   a CHECKPOINT (moving the log into the database file) is running when the kill lands

And in publishing to the engagement library (app/store/library.py):

``library-staged``    every Parquet file is written under the library's _staging/, none moved yet
``library-moved``     the first file is in its partition, the others and the manifest not yet
``library-manifest``  every file is in place; the manifest (the commit) is next
``library-index``     the engagement is committed; the library's rewritten index is written, its INDEX.json next
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

ENV = "STORMSCOPE_TEST_CRASH_AT"
PHASES = ("staging", "bulk-insert", "commit", "wal", "checkpoint")  # an import's
LIBRARY_PHASES = ("library-staged", "library-moved", "library-manifest")  # a publish's (tests/test_library.py)


def _armed(phase: str) -> float | None:
    """The delay before the kill when the environment asks for a crash at ``phase``, else None."""
    spec = os.environ.get(ENV)
    if not spec:
        return None
    name, _, delay = spec.partition(":")
    if name != phase:
        return None
    return float(delay) if delay else 0.0


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def crash_point(phase: str) -> None:
    """Die here (or ``delay`` seconds from here) when the reliability suite asks for it; else nothing."""
    delay = _armed(phase)
    if delay is None:
        return
    if delay <= 0:
        _kill()
    threading.Timer(delay, _kill).start()


def crash_during(phase: str, work: Callable[[], object]) -> None:
    """For phases that are an operation of their own (a checkpoint): when the suite asks for a crash at ``phase``,
    run ``work`` with the kill timed to land during it (or right after it, when it is quicker than the delay).
    Otherwise nothing runs: production never calls ``work`` from here."""
    delay = _armed(phase)
    if delay is None:
        return
    timer = threading.Timer(delay, _kill)
    timer.start()
    work()
    _kill()
