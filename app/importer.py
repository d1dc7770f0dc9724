"""Import jobs: find files (in folders and .zip archives), detect their format, store each in one transaction.

:func:`iter_import` is the one import loop: the command line's ``import`` and the window's import thread both
run it, and it yields one :class:`ImportStep` per file as soon as that file is stored. It takes a
:class:`~parsers.base.JobState` for progress and cancel, so the window forwards progress to its bar and its
Cancel button stops the loop. A failure in one file never stops the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import gzip
import os
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from app.safe_text import storable
from app.workspace import ImportResult, Workspace, sha256_of, storage_error
from parsers.base import Cancelled, ImportOptions, JobState, ParseError
from parsers.registry import UnknownFormat, detect

SKIP_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}
MAX_ZIP_DEPTH = 4  # a .zip inside a .zip ... is unpacked this many levels deep; deeper ones are reported as files


@dataclass(frozen=True)
class FoundFile:
    """A file to import: ``path`` is where it is read; ``source`` is what the user named (``archive.zip/dir/f.txt``
    for a member of an archive), shown in results and stored as the run's source; ``in_folder`` says it was found
    in a folder or an archive rather than named itself (a non-trace there is ``skipped``, not ``failed``)."""

    path: str
    source: str
    in_folder: bool
    error: str | None = None  # an archive that could not be unpacked, a folder that could not be read
    skipped: str | None = None  # why an entry of the drop is left out (a link, a member outside its archive)


@dataclass(frozen=True)
class ImportStep:
    """One file of an import: it was file ``index + 1`` of ``total``; ``result`` says what happened to it;
    ``cancelled``: the user cancelled the import during this file (then it is the last step)."""

    index: int
    total: int
    result: ImportResult
    cancelled: bool = False


def _walk_dir(folder: Path, unreadable: list[str] | None = None) -> Iterator[str]:
    """Every file below ``folder``: recursive, sorted, hidden files and folders and OS clutter skipped. A folder
    that cannot be read is added to ``unreadable`` (as ``path: why``), never passed over in silence."""
    def said(e: OSError) -> None:
        if unreadable is not None:
            unreadable.append(f"{e.filename}: cannot read this folder ({e.strerror}): its files were not imported")

    for root, dirs, files in os.walk(folder, onerror=said):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if not f.startswith(".") and f not in SKIP_NAMES:
                yield str(Path(root) / f)


# a customer's bundle: .zip, .tar, .tar.gz/.tgz (and .tar.bz2, .tar.xz), and single .gz files
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
# the archives of one drop may unpack to at most this many times the size of the archives the user gave (plus
# MIN_UNPACK_ALLOWANCE), nested archives included: text traces compress 5-30x; a zip bomb (a 2 MB file of 4 GB of
# zeros, or a 5 KB zip of a dozen zips of 250 MB of zeros each) is refused instead of filling the disk
MAX_UNPACK_RATIO = 200
MIN_UNPACK_ALLOWANCE = 256 * 1024 * 1024
CHUNK = 1024 * 1024


class ArchiveError(Exception):
    """An archive that cannot be unpacked safely (a bomb, a link, a damaged member): said in the customer's words."""


def archive_kind(path: str | os.PathLike) -> str | None:
    """``zip``, ``tar`` or ``gz`` for an archive StormScope opens (checked by content, the name only chooses which
    check), else None."""
    name = str(path).lower()
    if not os.path.isfile(path):
        return None
    if name.endswith(".zip") and zipfile.is_zipfile(path):
        return "zip"
    if name.endswith(TAR_SUFFIXES):
        try:
            if tarfile.is_tarfile(path):
                return "tar"
        except (OSError, EOFError, tarfile.TarError):
            return None
    if name.endswith(".gz"):
        with open(path, "rb") as fh:
            return "gz" if fh.read(2) == b"\x1f\x8b" else None
    return None


def is_archive(path: str | os.PathLike) -> bool:
    return archive_kind(path) is not None


class _Budget:
    """How many bytes the archives of one drop may still unpack to (see MAX_UNPACK_RATIO): one budget for the
    whole drop, which only the archives the user gave (or that lie in the folders given) add to; an archive inside
    an archive spends from it and adds nothing."""

    def __init__(self) -> None:
        self.left = MIN_UNPACK_ALLOWANCE

    def allow(self, archive: str | os.PathLike) -> None:
        self.left += MAX_UNPACK_RATIO * os.path.getsize(archive)

    def copy(self, src: Any, target: Path) -> None:
        with open(target, "wb") as dst:
            while chunk := src.read(CHUNK):
                self.left -= len(chunk)
                if self.left < 0:
                    raise ArchiveError(f"the archives of this drop unpack to more than {MAX_UNPACK_RATIO} times "
                                       "their size (a compression bomb?); unpack them yourself and import the folder")
                dst.write(chunk)


OUTSIDE = "its name points outside the archive (../ or an absolute path): left out"


class _Members:
    """Where an archive's members land, and what happened to those that did not: each member is written under
    the archive's own folder, at its name; a second member of the same name, or one whose folder is a file of the
    archive, gets a name of its own (``x (2)``); names that point outside, links and devices are left out. Every
    member ends in :attr:`lines` or on disk, never in silence."""

    def __init__(self, dest: Path) -> None:
        self.dest, self.root = dest, dest.resolve()
        self.lines: list[tuple[str, str]] = []  # (member name, why it was left out)
        self.names: dict[Path, str] = {}  # where a member was written -> its name in the archive

    def target(self, name: str) -> Path | None:
        target = (self.dest / name).resolve()
        if not target.is_relative_to(self.root) or target == self.root:
            self.lines.append((name, OUTSIDE))
            return None
        n = 1
        free = target
        while free.exists() or any(p.is_file() for p in free.parents if p.is_relative_to(self.root)
                                   and p != self.root):
            n += 1
            free = self._renamed(target, n)
        free.parent.mkdir(parents=True, exist_ok=True)
        self.names[free] = name if n == 1 else \
            f"{name} (unpacked as {free.relative_to(self.root)}: the archive holds another entry of that name)"
        return free

    def _renamed(self, target: Path, n: int) -> Path:
        """``a/b/x.txt`` -> ``a (n)/b/x.txt`` when a parent is a file, else ``x (n).txt``: a free place."""
        rel = target.relative_to(self.root)
        for i, part in enumerate(rel.parts[:-1]):
            if (self.root.joinpath(*rel.parts[: i + 1])).is_file():
                return self.root.joinpath(*rel.parts[:i], f"{part} ({n})", *rel.parts[i + 1:])
        return target.with_name(f"{target.stem} ({n}){target.suffix}")

    def leave_out(self, name: str, why: str) -> None:
        self.lines.append((name, why))


def _unzip(archive: str | os.PathLike, members: _Members, budget: _Budget) -> None:
    with zipfile.ZipFile(archive) as z:
        for zm in z.infolist():
            if zm.is_dir():
                continue
            target = members.target(zm.filename)
            if target is not None:
                with z.open(zm) as member:
                    budget.copy(member, target)


def _untar(archive: str | os.PathLike, members: _Members, budget: _Budget) -> None:
    with tarfile.open(archive, mode="r:*") as t:
        for tm in t:
            if tm.isdir():
                continue
            if not tm.isfile():
                what = "a link" if tm.issym() or tm.islnk() else "a device or special file"
                members.leave_out(tm.name, f"{what}, not a file: left out")
                continue
            target = members.target(tm.name)
            member = t.extractfile(tm) if target is not None else None
            if target is not None and member is not None:
                with member:
                    budget.copy(member, target)


def unpack(archive: str | os.PathLike, dest: Path, budget: _Budget | None = None) -> _Members:
    """Unpack ``archive`` (zip, tar or gz) into the new folder ``dest``, streamed member by member (see
    :class:`_Members`: where each lands, and the lines of those left out); archives that unpack to far more than
    their size raise :class:`ArchiveError` (what was written so far is removed with the staging folder).
    ``budget``: the drop's (nested archives spend from it); without one, this archive's own."""
    dest.mkdir(parents=True, exist_ok=True)
    members = _Members(dest)
    if budget is None:
        budget = _Budget()
        budget.allow(archive)
    kind = archive_kind(archive)
    if kind == "zip":
        _unzip(archive, members, budget)
    elif kind == "tar":
        _untar(archive, members, budget)
    elif kind == "gz":
        name = Path(archive).name
        target = members.target(name[:-3] if name.lower().endswith(".gz") else name)
        assert target is not None  # a plain file name, in its own folder
        with gzip.open(archive, "rb") as gz:
            budget.copy(gz, target)
    return members


def unpack_zip(archive: str | os.PathLike, dest: Path) -> Path:
    """Kept for callers of the zip-only name: see :func:`unpack`."""
    unpack(archive, dest)
    return dest


def _stem(path: str) -> str:
    name = Path(path).name
    for suffix in (*TAR_SUFFIXES, ".zip", ".gz"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def find_files(paths: Iterable[str | os.PathLike], tmp: Path) -> list[FoundFile]:
    """Every file to import below ``paths``, in order: files named, files below folders named, and the members of
    archives -- .zip, .tar, .tar.gz/.tgz, .gz -- (named, or found in a folder or in another archive), unpacked
    below ``tmp``."""
    out: list[FoundFile] = []
    n_unpacked = 0
    budget = _Budget()  # one for the whole drop, nested archives included

    def add(path: str, source: str, in_folder: bool, depth: int) -> None:
        nonlocal n_unpacked
        if not is_archive(path):
            out.append(FoundFile(path, source, in_folder))
            return
        if depth >= MAX_ZIP_DEPTH:
            out.append(FoundFile(path, source, in_folder, error=f"{source}: an archive nested more than "
                                 f"{MAX_ZIP_DEPTH} archives deep: not unpacked (unpack it yourself and import "
                                 "the folder)"))
            return
        n_unpacked += 1
        if depth == 0:
            budget.allow(path)
        dest = tmp / f"{n_unpacked}-{_stem(path)}"
        try:  # each archive its own folder: two a.zip from two folders keep both their traces
            members = unpack(path, dest, budget)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError, gzip.BadGzipFile,
                NotImplementedError, RuntimeError, OSError, ArchiveError) as e:
            # damaged, encrypted (RuntimeError), an unknown compression (NotImplementedError), a bomb or a full disk
            out.append(FoundFile(path, source, in_folder, error=f"{source}: cannot unpack the archive ({e})"))
            return
        for f in _walk_dir(dest):
            name = members.names.get(Path(f).resolve(), str(Path(f).relative_to(dest)))
            add(f, str(Path(source) / name), True, depth + 1)
        for name, why in members.lines:  # as the archive names it, even when absolute or outside
            out.append(FoundFile(path, f"{source}/{name}", True, skipped=why))

    for p in paths:
        p = Path(p)
        if p.is_dir():
            unreadable: list[str] = []
            for f in _walk_dir(p, unreadable):
                add(f, f, True, 0)
            out += [FoundFile(str(p), line.split(": ", 1)[0], True, error=line) for line in unreadable]
        else:
            add(str(p), str(p), False, 0)
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
            with contextlib.suppress(queue.Empty):
                q.get_nowait()
            t.join(timeout=0.05)


class FileChanged(Exception):
    """The file changed (size, time or identity) while it was being imported: a tool is still writing it."""


def _identity(path: str) -> tuple[int, int, int, int, int]:
    """What changes when anything writes the file: size, modification and change times (ns), device and inode
    (a file replaced by another). The change time cannot be set back by any tool."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_dev, st.st_ino


@dataclass(frozen=True)
class Snapshot:
    """A private copy of a file being imported, the copy hashed (or, where the kernel cannot copy, copied in the
    read that hashed it): what is parsed is what is hashed, whatever happens to the original meanwhile.
    ``unchanged()`` raises :class:`FileChanged` once the original differs from what was copied (checked after the
    copy and again before the import commits)."""

    original: str
    path: str
    sha256: str
    size: int
    identity: tuple[int, int, int, int, int]

    def unchanged(self) -> None:
        try:
            now = _identity(self.original)
        except FileNotFoundError:
            raise FileChanged() from None
        if now != self.identity:
            raise FileChanged()


def snapshot(path: str, folder: Path) -> Snapshot:
    """Copy ``path`` into ``folder`` (same name) and hash the copy; :class:`FileChanged` if the original changed.

    The copy is what is hashed and parsed. The kernel copies (``os.copy_file_range``: no trip through Python's
    memory; on file systems that clone, btrfs or XFS, the copy shares the original's blocks until either is
    written) and the copy is then hashed, a read from the page cache. Where the kernel cannot copy (another
    system, file systems it will not copy between), one pass reads, hashes and writes, as before. Time against a
    hash alone: benchmarks/bench_snapshot.py."""
    import hashlib

    before = _identity(path)
    copy = folder / storable(Path(path).name)  # parsers may read the name (fio logs): valid UTF-8
    sha: str | None = None
    with open(path, "rb") as src, open(copy, "wb") as dst:
        size = _kernel_copy(src.fileno(), dst.fileno(), before[0])
        if size is None:
            h = hashlib.sha256()
            size = 0
            while chunk := src.read(SNAPSHOT_CHUNK):
                h.update(chunk)
                dst.write(chunk)
                size += len(chunk)
            sha = h.hexdigest()
    if size != before[0]:
        raise FileChanged()
    if sha is None:
        sha, size = sha256_of(copy, SNAPSHOT_CHUNK)
    snap = Snapshot(path, str(copy), sha, size, before)
    snap.unchanged()
    return snap


# errors of a first copy_file_range that mean "not here" (nothing copied yet): the one-pass copy does it instead
_NO_KERNEL_COPY = {errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL, errno.EPERM}
KERNEL_COPY_CHUNK = 64 * 1024 * 1024


def _kernel_copy(src: int, dst: int, expected: int) -> int | None:
    """Copy from ``src`` to ``dst`` (both at their start) in the kernel to the end of ``src``, or to one byte past
    ``expected`` (a file still being written has changed: no need to follow it); the bytes copied, or None when
    this system or these file systems cannot (nothing copied then)."""
    copy_range = getattr(os, "copy_file_range", None)
    if copy_range is None:
        return None
    size = 0
    while True:
        try:
            n = copy_range(src, dst, min(KERNEL_COPY_CHUNK, expected + 1 - size))
        except OSError as e:
            if size == 0 and e.errno in _NO_KERNEL_COPY:
                return None
            raise
        if n == 0:
            return size
        size += n


SNAPSHOT_CHUNK = 4 * 1024 * 1024


def import_file(ws: Workspace, path: str, options: ImportOptions, state: JobState | None = None,
                fmt_id: str | None = None, in_folder: bool = False, source: str | None = None) -> ImportResult:
    """Import one file. Never raises for bad input (only :class:`~parsers.base.Cancelled`): the result says what
    happened.

    A file found while walking a folder that is no trace at all (notes, scripts, job files) is
    ``skipped``; named explicitly, it ``failed``. ``source`` is the name the user knows the file by (a member
    of an archive is read from a temporary copy ``path``): results name it and the run stores it.
    """
    state = state or JobState()
    # a file name that is not UTF-8 is stored and shown with its odd bytes written \xff; the file is read by its name
    read_path, path = path, storable(source or path)
    res = ImportResult(path=path, status="failed")
    # the snapshot lies in the workspace's staging folder (a trace may be larger than a RAM-backed /tmp), owned by
    # this process: a killed import's is removed on the next writable open (app.staging)
    try:
        tmp = ws.staging.new_dir("snapshot")
    except OSError as e:  # the workspace's folder cannot be written (permissions, a full disk): said per file
        res.error = f"{path}: cannot be stored: {ws.path.parent} cannot be written ({e.strerror})"
        return res
    try:
        return _import_one(ws, read_path, path, options, state, fmt_id, in_folder, res, tmp)
    finally:
        ws.staging.release(tmp)


def _utf16(path: str) -> str | None:
    """``utf-16`` when the file starts with a UTF-16 byte-order mark (PowerShell's ``>`` writes one)."""
    with open(path, "rb") as fh:
        head = fh.read(2)
    return "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else None


def _to_utf8(path: str, tmp: Path) -> str:
    """A UTF-8 copy of a UTF-16 file, streamed, for the parsers (which read UTF-8 and Windows-1252)."""
    out = tmp / Path(path).name
    with open(path, encoding="utf-16", newline="") as src, open(out, "w", encoding="utf-8", newline="") as dst:
        while chunk := src.read(CHUNK):
            dst.write(chunk)
    return str(out)


SMALL_TEXT_BYTES = 64 * 1024 * 1024


def _legacy_encoding(path: str) -> str | None:
    """Windows-1252 (or Latin-1) when a small file is not UTF-8 (the parsers read it so: parsers.base.decode);
    None for UTF-8 and for large files, whose streaming parsers record it themselves."""
    from parsers.base import decode

    if os.path.getsize(path) > SMALL_TEXT_BYTES:
        return None
    with open(path, "rb") as fh:
        enc = decode(fh.read())[1]
    return None if enc == "utf-8" else enc


def _record_encoding(ws: Workspace, run_ids: list[int], encoding: str) -> None:
    """``runs.meta.encoding``, unless the parser recorded it already."""
    import json

    for rid in run_ids:
        meta = ws.meta_of(rid).as_dict()
        if "encoding" in meta:
            continue
        meta["encoding"] = encoding
        ws.con.execute("UPDATE runs SET meta = ? WHERE run_id = ?", [json.dumps(meta), rid])


def _format(path: str, fmt_id: str | None) -> Any:
    """The format asked for, else the one the content shows."""
    if fmt_id:
        from parsers.registry import by_id
        return by_id(fmt_id)
    return detect(path)


def _import_one(ws: Workspace, read_path: str, path: str, options: ImportOptions, state: JobState,
                fmt_id: str | None, in_folder: bool, res: ImportResult, tmp: Path) -> ImportResult:
    try:
        _import_checked(ws, read_path, path, options, state, fmt_id, res, tmp)
    except Cancelled:
        res.error = f"{path}: cancelled"
        raise
    except FileChanged:
        res.error = f"{path} changed while it was being imported; import it again when the tool has finished writing it"
    except ParseError as e:
        res.error = e.located(path)
    except UnknownFormat as e:
        res.error = f"{path}: {e}"
        if in_folder and not e.trace:  # a trace we cannot read fails visibly, even in a folder
            res.status = "skipped"
    except UnicodeDecodeError as e:
        res.error = f"{path}: not a text file ({e.reason})"
    except duckdb.Error as e:
        res.error = f"{path}: {storage_error(e)}"
        if not ws.usable():  # DuckDB invalidated the database (a full disk at a checkpoint): the next files need a
            ws.reopen()      # fresh connection, or every one of them fails with this file's error
    except OSError as e:
        res.error = f"{path}: {storage_error(e) if e.errno == errno.ENOSPC else e}"
    except MemoryError as e:
        res.error = f"{path}: {e}"
    except Exception as e:  # a parser bug must not take the whole drop down
        res.error = f"{path}: internal error while importing ({type(e).__name__}: {e})"
    return res


def _import_checked(ws: Workspace, read_path: str, path: str, options: ImportOptions, state: JobState,
                    fmt_id: str | None, res: ImportResult, tmp: Path) -> None:
    """Snapshot, detect, parse and store one file, filling ``res``; raises what :func:`_import_one` reports."""
    if not os.path.isfile(read_path):
        raise ParseError("no such file" if not os.path.exists(read_path) else "not a regular file")
    (tmp / "snapshot").mkdir()
    snap = snapshot(read_path, tmp / "snapshot")  # the file as the customer gave it: what is hashed is parsed
    original, encoding = snap.path, _utf16(snap.path)
    read_path = _to_utf8(original, tmp) if encoding else original
    fmt = _format(read_path, fmt_id)
    res.kind, res.format = fmt.kind, fmt.id
    dup = ws.find_duplicate(snap.sha256)
    if dup:
        res.status = "duplicate"
        res.run_ids = dup
        return
    warnings: list[str] = []

    def warn(msg: str, line: int | None) -> None:
        text = f"{Path(path).name}:{line}: {msg}" if line else msg
        if text not in warnings:
            warnings.append(text)

    if options.source_folder is None:  # companion files (fio's logs of one job) are looked for beside the original
        options = dataclasses.replace(options, source_folder=os.path.dirname(os.path.abspath(snap.original)))
    events = fmt.parse(read_path, options, state, warn)
    if os.path.getsize(read_path) > READ_AHEAD_BYTES:
        events = read_ahead(events)
    res.run_ids, res.rows = ws.import_events(path, fmt.id, fmt.kind, events, options, snap.sha256, snap.size,
                                             warnings, before_commit=snap.unchanged)
    encoding = encoding or _legacy_encoding(original)
    if encoding:
        _record_encoding(ws, res.run_ids, encoding)
    res.warnings = warnings
    res.status = "imported"


class _FileJob(JobState):
    """File ``i`` of ``n`` in a whole import: its progress is its share of the whole's, and cancelling the whole
    cancels it."""

    def __init__(self, whole: JobState, i: int, n: int):
        super().__init__(lambda frac, msg: whole.progress((i + frac) / n, msg))
        self._whole = whole

    def check(self) -> None:
        self._whole.check()


def iter_import(ws: Workspace, paths: Iterable[str | os.PathLike], options: ImportOptions,
                cancel: JobState | None = None, *, fmt_id: str | None = None,
                notes: list[str] | None = None) -> Iterator[ImportStep]:
    """Import every file named, below a folder named or inside a .zip archive (see :func:`find_files`), one
    transaction per file, and yield an :class:`ImportStep` as each file is done.

    ``cancel`` receives the progress (the fraction of the whole import and "3/12  name.txt", then what the
    parser reports inside each file) and is checked between files and, where the parser checks it, inside a
    file. Once cancelled, the file being imported is yielded as failed ("cancelled"; nothing of it is stored)
    and the loop ends. ``fmt_id`` reads every file in that format instead of detecting it. Archives are
    unpacked into a temporary folder, removed when the loop ends (or the generator is closed).

    Once every file is in, a run whose dates read both ways takes the order of a run of the same host and tool
    imported with it whose own dates decide it (:func:`settle_dates`); ``notes`` receives what was decided so.
    """
    state = cancel or JobState()
    with tempfile.TemporaryDirectory(prefix="stormscope-zip-") as tmp:
        found = find_files(paths, Path(tmp))
        n = len(found)
        imported: list[int] = []
        for i, f in enumerate(found):
            sub = _FileJob(state, i, n)
            try:
                state.progress(i / n, f"{i + 1}/{n}  {Path(f.source).name}")
                if f.error is not None:
                    r = ImportResult(path=f.source, status="failed", error=f.error)
                elif f.skipped is not None:
                    r = ImportResult(path=f.source, status="skipped", error=f"{f.source}: {f.skipped}")
                else:
                    r = import_file(ws, f.path, options, sub, fmt_id=fmt_id, in_folder=f.in_folder, source=f.source)
            except Cancelled:
                yield ImportStep(i, n, ImportResult(path=f.source, status="failed", error=f"{f.source}: cancelled"),
                                 cancelled=True)
                return
            yield ImportStep(i, n, r)
            if r.status == "imported":
                imported += r.run_ids
    settled = settle_dates(ws, imported) if imported else []
    if notes is not None:
        notes += settled
    if not state.cancelled:
        state.progress(1.0, "done")


def import_paths(ws: Workspace, paths: Iterable[str | os.PathLike], options: ImportOptions,
                 state: JobState | None = None,
                 on_result: Callable[[ImportResult], None] | None = None) -> list[ImportResult]:
    """:func:`iter_import` as a list; raises :class:`~parsers.base.Cancelled` after the cancelled file."""
    results: list[ImportResult] = []
    for step in iter_import(ws, paths, options, state):
        results.append(step.result)
        if on_result:
            on_result(step.result)
        if step.cancelled:
            raise Cancelled("cancelled by the user")
    return results


# ---- what a folder's files cannot say, asked once for the whole folder --------------------------------------------
ASSUMED_SINCE_BOOT = "since-boot (assumed"  # how the iostat importers record a first report the file cannot prove


@dataclass(frozen=True)
class RunQuestion:
    """What one imported run needs the user to say before its figures are complete: ``what`` is ``interval``
    (a time series without timestamps: its times are empty until its interval is known), ``first_report``
    (iostat's first report was taken to cover the time since boot, iostat's default, because the file cannot
    prove -y), ``date_order`` (its dates read both ways: ``readings`` holds each order with the first and last
    time the run would have read so, the stored one first) or ``counters_by_place`` (perfmon counters whose names
    StormScope does not know, read by their place in the log: ``names`` pairs each with what it was read as).
    ``suggested``: what the file hints at (an estimate, never applied by itself)."""

    run_id: int
    file: str  # the file's name, as the user knows it
    source: str
    what: str
    suggested: float | None = None
    readings: tuple[tuple[str, datetime | None, datetime | None], ...] = ()
    names: tuple[tuple[str, str], ...] = ()  # counters_by_place: (counter as printed, what its place says it is)


def _suggested_interval(warnings: list[str] | None) -> float | None:
    """The interval the cumulative kB columns suggest (the iostat importer's warning says "suggest about 2 s")."""
    import re

    for w in warnings or []:
        m = re.search(r"suggest about ([0-9]+(?:\.[0-9]+)?) s", w)
        if m:
            return float(m.group(1))
    return None


def open_questions(ws: Workspace, run_ids: Iterable[int]) -> list[RunQuestion]:
    """The runs among ``run_ids`` that need an interval or a first-report answer, in run order."""

    from parsers.kinds import DEVICE_RATES, TIME_SERIES, has

    out: list[RunQuestion] = []
    for rid in sorted(set(run_ids)):
        run = ws.run(rid)
        if run is None:
            continue
        name, source = Path(run.source_path).name, run.source_path
        if has(run.kind, TIME_SERIES) and not run.interval_s:
            out.append(RunQuestion(rid, name, source, "interval", _suggested_interval(list(run.warnings))))
        if has(run.kind, DEVICE_RATES) and (run.meta.text("first_report") or "").startswith(ASSUMED_SINCE_BOOT):
            out.append(RunQuestion(rid, name, source, "first_report"))
        placed = run.meta.obj("counters_by_place")
        names = placed.get("names")
        if placed.get("state") == "not confirmed" and isinstance(names, dict):
            out.append(RunQuestion(rid, name, source, "counters_by_place",
                                   names=tuple((str(k), str(v)) for k, v in names.items())))
        if run.meta.obj("date_reading"):
            out.append(RunQuestion(rid, name, source, "date_order",
                                   readings=_readings(run.meta.obj("date_reading"), run.started_at, run.ended_at)))
    return out


def _readings(reading: dict[str, Any], first: datetime | None, last: datetime | None
              ) -> tuple[tuple[str, datetime | None, datetime | None], ...]:
    """Each order a run's dates read in, with its first and last time read so (the stored order first)."""
    from datetime import date

    def moved(t: datetime | None, mapping: dict[str, str]) -> datetime | None:
        if t is None or t.date().isoformat() not in mapping:
            return t
        return datetime.combine(date.fromisoformat(mapping[t.date().isoformat()]), t.time())

    out = [(str(reading.get("stored")), first, last)]
    for order, mapping in (reading.get("others") or {}).items():
        out.append((str(order), moved(first, mapping), moved(last, mapping)))
    return tuple(out)


def settle_dates(ws: Workspace, run_ids: Iterable[int]) -> list[str]:
    """The file's neighbours, the last evidence of its date order: a run whose dates read both ways takes the order
    that decided a run of the same host and tool in the same drop (:mod:`parsers.dates`). Returns what was
    decided so, one sentence per run."""

    from parsers.dates import ORDER_NAMES

    runs = [r for r in (ws.run(rid) for rid in sorted(set(run_ids))) if r is not None]

    decided: dict[tuple[Any, str], tuple[str, str]] = {}  # (host, kind) -> (order, file) of a decided run
    for r in runs:
        said = r.meta.text("date_order") or ""
        order = next((o for o, words in ORDER_NAMES.items() if said.startswith(words + " (")), None)
        if order is None or r.meta.has("date_reading") or "set by the user" in said or "same drop" in said \
                or not r.host:
            continue
        if decided.setdefault((r.host, r.kind), (order, Path(r.source_path).name))[0] != order:
            decided[(r.host, r.kind)] = ("", "")  # neighbours that disagree decide nothing
    notes = []
    for r in runs:
        reading = r.meta.obj("date_reading")
        found = decided.get((r.host, r.kind))
        if not reading or not found or not found[0]:
            continue
        order, file = found
        others = reading.get("others")
        if order != reading.get("stored") and not (isinstance(others, dict) and order in others):
            continue
        how = f"like {file}, of the same host and tool in the same drop, whose own dates decide it"
        ws.set_date_order(r.run_id, order, how)
        notes.append(f"{Path(r.source_path).name}: dates read {ORDER_NAMES[order]}, {how}")
    return notes


def answer(ws: Workspace, q: RunQuestion, value: float | str) -> None:
    """Store the user's answer to ``q``: an interval in seconds, ``since-boot`` / ``interval`` for the first
    report, or the order its dates read in (``DMY``, ``MDY``, ``YMD``) (raises ValueError for an answer the run
    cannot take)."""
    if q.what == "interval":
        ws.set_interval(q.run_id, float(value))
    elif q.what == "date_order":
        ws.set_date_order(q.run_id, str(value))
    elif q.what == "counters_by_place":
        if value not in ("confirm", "reject"):
            raise ValueError(f"counters read by their place: confirm or reject, not {value!r}")
        ws.set_counters_by_place(q.run_id, value == "confirm")
    elif value in ("since-boot", "interval"):
        ws.set_first_report(q.run_id, value == "since-boot")
    else:
        raise ValueError(f"the first report covers the time since boot or an interval, not {value!r}")
