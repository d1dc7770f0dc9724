"""How much memory DuckDB may use while the window has a workspace open: the SQL tab's queries, the charts and the
report share it. Set beside the SQL tab's Run query button (in GB, half of this machine's memory by default) and kept
in the window's settings; it takes effect when a workspace is opened (DuckDB fixes it for the whole open, and
StormScope locks DuckDB's configuration once a workspace is open, app.safe_open). What does not fit may spill to
the workspace's temporary folder up to as much again; past that a query stops with a message naming the limit."""

from __future__ import annotations

import ctypes
import os
import sys

from PySide6.QtCore import QSettings

MEMORY_KEY = "sql/memory_gb"
DEFAULT_SHARE = 0.5  # of the machine's memory
LEAST_GB = 0.1


def machine_gb() -> float | None:
    """This machine's physical memory in GB (10^9 bytes); None where the system does not say."""
    if sys.platform == "win32":
        class _Status(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                        ("avail", ctypes.c_ulonglong), ("page_total", ctypes.c_ulonglong),
                        ("page_avail", ctypes.c_ulonglong), ("virtual_total", ctypes.c_ulonglong),
                        ("virtual_avail", ctypes.c_ulonglong), ("extended", ctypes.c_ulonglong)]
        status = _Status()
        status.length = ctypes.sizeof(_Status)
        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]  # windll exists on Windows only
        if not kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return None
        return status.total / 1e9
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):
        return None


def chosen_gb(settings: QSettings | None = None) -> float | None:
    """The limit the user set, else half the machine's memory; None when neither is known."""
    value = (settings or QSettings()).value(MEMORY_KEY, None)
    try:  # a float, or its text from an INI file; anything else: not set
        gb = float(value) if isinstance(value, (int, float, str)) and not isinstance(value, bool) else 0.0
    except ValueError:
        gb = 0.0
    if gb >= LEAST_GB:
        return gb
    total = machine_gb()
    return None if total is None else round(total * DEFAULT_SHARE, 1)


def duckdb_settings(settings: QSettings | None = None) -> dict[str, str | bool | int]:
    """The DuckDB settings a workspace is opened with for the window."""
    gb = chosen_gb(settings)
    return {"memory_limit": f"{gb:g}GB" if gb is not None else f"{DEFAULT_SHARE * 100:g}%"}
