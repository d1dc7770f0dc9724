"""The desktop app's log and crash log (no Qt here).

A consultant's laptop has no terminal to read: what StormScope says and any crash go to files in the user log
directory (platformdirs: ``~/.local/state/StormScope/log`` on Linux, ``%LOCALAPPDATA%\\StormScope\\Logs`` on
Windows, ``~/Library/Logs/StormScope`` on macOS), which Help ▸ Open log folder shows:

* ``stormscope.log``: stdlib ``logging`` (the start, and every uncaught exception with its traceback: it still
  reaches Python's own hook afterwards, so nothing is hidden), rotated at 1 MB, three old files kept;
* ``faults.log``: ``faulthandler``'s dump of every thread's stack when the interpreter dies in native code
  (Qt, DuckDB, polars) -- the crashes ``logging`` cannot see.

A windowed build (Windows ``StormScope.exe``, the macOS app) starts with ``sys.stdout`` / ``sys.stderr`` set to
None: :func:`ensure_std_streams` gives them a sink so that a ``print`` or a library's warning cannot crash it.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import platform
import sys
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType
from typing import IO

APP = "StormScope"
LOG_FILE = "stormscope.log"
FAULT_FILE = "faults.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3

log = logging.getLogger("stormscope")
_fault_stream: IO[str] | None = None


def log_dir() -> Path:
    """The user log directory (not created here)."""
    import platformdirs

    return Path(platformdirs.user_log_dir(APP, appauthor=False))


def ensure_std_streams() -> None:
    """Give ``sys.stdout`` / ``sys.stderr`` a sink (the null device) when a windowed build starts without them."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the life of the process)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    log.critical("uncaught exception", exc_info=(kind, value, tb))


def start(version: str) -> Path:
    """Log to the user log directory from now on, with faulthandler on; the directory."""
    global _fault_stream
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if not any(isinstance(h, RotatingFileHandler) for h in log.handlers):
        handler = RotatingFileHandler(folder / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS,
                                      encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
    if _fault_stream is None:
        fault_path = folder / FAULT_FILE
        if fault_path.exists() and fault_path.stat().st_size > LOG_BYTES:  # keep the newest crashes only
            fault_path.replace(folder / (FAULT_FILE + ".1"))
        _fault_stream = open(fault_path, "a", encoding="utf-8")  # noqa: SIM115 (open while the process lives)
        faulthandler.enable(file=_fault_stream, all_threads=True)
        _chain_excepthooks()
    log.info("StormScope %s started: Python %s on %s (%s)", version, platform.python_version(), platform.platform(),
             "frozen build" if getattr(sys, "frozen", False) else sys.executable)
    return folder


def _chain_excepthooks() -> None:
    """Log every uncaught exception (a Qt slot's too: PySide6 passes it to sys.excepthook), then let the hook that
    was there before report it as usual."""
    before = sys.excepthook
    before_thread = threading.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        _log_uncaught(kind, value, tb)
        before(kind, value, tb)

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            _log_uncaught(args.exc_type, args.exc_value, args.exc_traceback)
        before_thread(args)

    sys.excepthook = hook
    threading.excepthook = thread_hook
