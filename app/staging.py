"""The workspace's staging folder: files DuckDB writes or reads for one operation (no Qt here).

The snapshot of a file being imported (app.importer) is made here; an export from the window is written by
DuckDB here and then moved to the place the user chose. Both live in ``.NAME.staging/`` beside the workspace
``NAME`` -- the only directory a writable workspace connection may touch (app.safe_open). Each operation gets its
own folder inside, with an ``owner`` file naming its process (id and start time, so that a reused process id is
not mistaken for it). A folder whose process is gone -- an import killed mid-way -- is removed the next time the
workspace is opened for writing: that open holds DuckDB's write lock, so no other process is importing into it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

OWNER = "owner"
_LIVE: set[Path] = set()  # this process's folders in use (the window imports on a second connection)
_ROOTS = threading.Lock()  # making a folder in a staging root / removing an empty root, one thread at a time


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks since boot, /proc/PID/stat field 22); None when it is gone, "" where
    /proc does not exist (then only its existence is checked)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None if Path("/proc/self/stat").exists() else ""
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(pid: int, started: str) -> bool:
    now = _started(pid)
    if now is None:
        return False
    if now == "":  # no /proc: the process id alone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return now == started


class StagingArea:
    """The staging folder of the workspace ``ws_path``."""

    def __init__(self, ws_path: Path):
        if str(ws_path) == ":memory:":  # a workspace in memory (tests, scripts): a folder of this process's own
            self.root = Path(tempfile.gettempdir()) / f".stormscope-memory-{os.getpid()}.staging"
        else:
            self.root = ws_path.resolve().parent / f".{ws_path.name}.staging"

    def new_dir(self, what: str) -> Path:
        """A fresh folder for one operation (``what``: "import", "export"), owned by this process."""
        with _ROOTS:  # the window's threads: one's release must not remove the root between another's two steps
            self.root.mkdir(exist_ok=True)
            d = Path(tempfile.mkdtemp(prefix=f"{what}-", dir=self.root))
            _LIVE.add(d)
        (d / OWNER).write_text(f"{os.getpid()} {_started(os.getpid()) or ''}\n")
        return d

    def release(self, d: Path) -> None:
        """Remove an operation's folder (and the staging folder when it is empty)."""
        shutil.rmtree(d, ignore_errors=True)
        with _ROOTS:
            _LIVE.discard(d)
            self._remove_root_if_empty()

    def _remove_root_if_empty(self) -> None:
        with contextlib.suppress(OSError):  # not empty (another operation of this process), or already gone
            self.root.rmdir()

    def stale(self) -> list[Path]:
        """Folders no live process owns: left by an operation that was killed."""
        if not self.root.is_dir():
            return []
        out = []
        for d in sorted(self.root.iterdir()):
            if d in _LIVE or not d.is_dir():
                continue
            try:
                pid_text, _, started = (d / OWNER).read_text().strip().partition(" ")
                pid = int(pid_text)
            except (OSError, ValueError):  # killed before it wrote its owner: nobody owns it
                out.append(d)
                continue
            if pid == os.getpid() or not _alive(pid, started):  # this process's own are all in _LIVE
                out.append(d)
        return out

    def remove_stale(self) -> list[Path]:
        """Remove the folders of killed operations; the ones removed."""
        gone = self.stale()
        for d in gone:
            shutil.rmtree(d, ignore_errors=True)
        self._remove_root_if_empty()
        return gone
