"""Import jobs: find files, detect their format, store each in one transaction.

Plain functions taking a :class:`~parsers.base.JobState` (progress + cancel),
so the CLI calls them directly and the window runs them on a worker thread.
A failure in one file never stops the others.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from app.workspace import ImportResult, Workspace, sha256_of
from parsers.base import Cancelled, ImportOptions, JobState, ParseError
from parsers.registry import UnknownFormat, detect

SKIP_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


def expand_paths(paths: Iterable[str | os.PathLike]) -> list[str]:
    """Files named, and every file below folders named (recursive, sorted, hidden files skipped)."""
    return [f for f, _ in walk_paths(paths)]


def walk_paths(paths: Iterable[str | os.PathLike]) -> list[tuple[str, bool]]:
    """(file, found_in_a_folder) for every file named or below a folder named."""
    out: list[tuple[str, bool]] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    if f.startswith(".") or f in SKIP_NAMES:
                        continue
                    out.append((str(Path(root) / f), True))
        else:
            out.append((str(p), False))
    return out


READ_AHEAD_BYTES = 16 * 1024 * 1024


def read_ahead(events: Iterator[Any], depth: int = 2) -> Iterator[Any]:
    """Parse on a second thread while the caller stores: the two overlap (DuckDB, Arrow and polars release
    the GIL). ``depth`` bounds how many parsed chunks wait, so memory stays bounded; an exception in the
    parser (including Cancelled) is raised here, in the caller's thread."""
    import queue
    import threading

    q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for ev in events:
                while not stop.is_set():
                    try:
                        q.put(("ev", ev), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(("end", None))
        except BaseException as e:  # handed to the consumer
            q.put(("err", e))

    t = threading.Thread(target=produce, name="stormscope-parse", daemon=True)
    t.start()
    try:
        while True:
            kind, item = q.get()
            if kind == "end":
                return
            if kind == "err":
                raise item
            yield item
    finally:
        stop.set()
        while t.is_alive():  # unblock a producer waiting on a full queue
            try:
                q.get_nowait()
            except queue.Empty:
                pass
            t.join(timeout=0.05)


def import_file(ws: Workspace, path: str, options: ImportOptions, state: JobState | None = None,
                fmt_id: str | None = None, in_folder: bool = False) -> ImportResult:
    """Import one file. Never raises for bad input: the result says what happened.

    A file found while walking a folder that is no trace at all (notes, scripts, job files) is
    ``skipped``; named explicitly, it ``failed``.
    """
    state = state or JobState()
    res = ImportResult(path=path, status="failed")
    try:
        if not os.path.isfile(path):
            raise ParseError("no such file" if not os.path.exists(path) else "not a regular file")
        if fmt_id:
            from parsers.registry import by_id
            fmt = by_id(fmt_id)
        else:
            fmt = detect(path)
        res.kind, res.format = fmt.kind, fmt.id
        sha, size = sha256_of(path)
        dup = ws.find_duplicate(sha)
        if dup:
            res.status = "duplicate"
            res.run_ids = dup
            return res
        warnings: list[str] = []

        def warn(msg: str, line: int | None) -> None:
            text = f"{Path(path).name}:{line}: {msg}" if line else msg
            if text not in warnings:
                warnings.append(text)

        events = read_ahead(fmt.parse(path, options, state, warn)) if os.path.getsize(path) > READ_AHEAD_BYTES \
            else fmt.parse(path, options, state, warn)
        res.run_ids, res.rows = ws.import_events(path, fmt.id, fmt.kind, events, options, sha, size, warnings)
        res.warnings = warnings
        res.status = "imported"
    except Cancelled:
        res.error = f"{path}: cancelled"
        raise
    except ParseError as e:
        res.error = e.located(path)
    except UnknownFormat as e:
        res.error = f"{path}: {e}"
        if in_folder and not e.trace:  # a trace we cannot read fails visibly, even in a folder
            res.status = "skipped"
    except UnicodeDecodeError as e:
        res.error = f"{path}: not a text file ({e.reason})"
    except (OSError, MemoryError) as e:
        res.error = f"{path}: {e}"
    except Exception as e:  # a parser bug must not take the whole drop down
        res.error = f"{path}: internal error while importing ({type(e).__name__}: {e})"
    return res


def import_paths(ws: Workspace, paths: Iterable[str | os.PathLike], options: ImportOptions,
                 state: JobState | None = None,
                 on_result: Callable[[ImportResult], None] | None = None) -> list[ImportResult]:
    """Import every file below ``paths``; progress is reported per file."""
    state = state or JobState()
    walked = walk_paths(paths)
    files = [f for f, _ in walked]
    results: list[ImportResult] = []
    for i, (f, in_folder) in enumerate(walked):
        state.progress(i / max(len(files), 1), f"importing {Path(f).name}")
        sub = JobState(lambda frac, msg, i=i: state.progress((i + frac) / len(files), msg))
        sub.check = state.check  # type: ignore[method-assign]
        try:
            r = import_file(ws, f, options, sub, in_folder=in_folder)
        except Cancelled:
            results.append(ImportResult(path=f, status="failed", error=f"{f}: cancelled"))
            raise
        results.append(r)
        if on_result:
            on_result(r)
    state.progress(1.0, "done")
    return results
