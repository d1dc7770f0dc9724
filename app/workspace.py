"""The workspace: one DuckDB file holding every imported run (no Qt here).

The schema is public -- users query it with ``main.py sql``. It is declared once, in
``parsers/schema.py``: the tables are created from that spec, ``app.migrations`` brings an older
workspace up to it on open, and docs/schema.md is generated from it. Importing a file is one
transaction: on any error nothing of that file remains. A file whose SHA-256 is already stored is a
duplicate.
"""

from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from app.crashpoints import crash_during, crash_point
from app.migrations import READ_ONLY_REASON, check_readable, migrate, read_only_note, shadow_missing_columns
from app.migrations import WorkspaceReadOnly as WorkspaceReadOnly  # noqa: F401 (re-exported: callers catch it)
from app.migrations import WorkspaceTooNew as WorkspaceTooNew  # noqa: F401 (re-exported: callers catch it)
from app.run import Run, RunMeta
from app.safe_open import SQLRefused, check_expression, connect, read_only_transaction
from app.safe_open import WorkspaceRefused as WorkspaceRefused  # noqa: F401 (re-exported: callers catch it)
from app.series_sums import (
    MAX_CHECKED,
    DeviceChoice,
    default_choice,
    device_figures,
    find_stacked,
    name_gaps,
    store_sums,
)
from app.staging import StagingArea
from app.stored_values import check as check_values
from app.workspace_lock import WorkspaceLocked as WorkspaceLocked  # noqa: F401 (re-exported: callers catch it)
from app.workspace_lock import is_lock_error, workspace_locked
from parsers.base import Event, ImportOptions, ParseError, Rows, RunEnd, RunInfo, RunStart, SampleTimes, SinceBoot
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, TIME_SERIES, has, kind_label, kinds_with
from parsers.schema import SCHEMA_VERSION, TABLE, TABLES, stored_schema

IMPORT_MEMORY_LIMIT = "128MB"
# what an import-only open sets before the configuration is locked (app.safe_open): a large file streams through
# in chunks, DuckDB's share of memory is kept bounded too
IMPORT_SETTINGS: dict[str, str | bool | int] = {"memory_limit": IMPORT_MEMORY_LIMIT, "preserve_insertion_order": False}
# values of NOT NULL columns a parser may leave out
COLUMN_DEFAULTS = {"since_boot": False, "is_group": False}
INSERT_BATCH_ROWS = 122_880  # a row group: past it, a table's rows are streamed (see _Stager)

# tables that hold per-run rows; deleting a run deletes from each
RUN_TABLES = [t.name for t in TABLES if t.per_run]

# IOzone, IOmark, Iometer and hdparm results: (column, SQL type) per table
RESULT_COLUMNS: dict[str, list[tuple[str, str]]] = {
    name: [(c.name, c.sql) for c in TABLE[name].columns]
    for name in ("iozone_results", "iomark_results", "iometer_results", "hdparm_results")}


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _computed_ok(name: str, expression: str) -> bool:
    """A stored computed column is safe to place in a query: a plain name and one expression."""
    if not _NAME.fullmatch(str(name)):
        return False
    try:
        check_expression(str(expression))
    except (SQLRefused, duckdb.Error):
        return False
    return True


def _check_table(name: str) -> None:
    """A parser's event names a per-run table of the schema that has per-sample times (never a pseudo-table)."""
    if name not in RUN_TABLES or not {"sample_idx", "ts", "t_s", "since_boot"} <= set(TABLE[name].column_names):
        raise ValueError(f"{name!r}: not a table of samples over time")


def _prove_stacking(con: Any, run_id: int) -> list[str]:
    """The invariant after every import: no device of the whole-disk figures is the sum of others of them. A device
    whose every report equals the sum of other whole disks (a device-mapper device named by number, a volume under
    a name no rule knows) is stacked on them: it is left out (``runs.meta.stacked_by_data``, read by
    :func:`app.series_sums.default_choice`) and a warning says which and why. Returns the warnings added."""
    devices = con.execute("SELECT DISTINCT device, is_group, layer FROM iostat_samples WHERE run_id = ?",
                          [run_id]).fetchall()
    used = default_choice([(d, bool(g), la) for d, g, la in devices]).used
    if not 2 <= len(used) <= MAX_CHECKED:
        return []
    from parsers.layers import PHYSICAL_NAMES
    from parsers.sar import DEV_NUMBERS, boot_assigned

    layer = {d: la for d, _g, la in devices}
    candidates = {d for d in used if boot_assigned(d)
                  or (layer.get(d) is None and PHYSICAL_NAMES.fullmatch(d) is None and not DEV_NUMBERS.match(d))}
    if not candidates:
        return []
    found = find_stacked(device_figures(con, run_id, used), candidates)
    if not found:
        return []
    meta = json.loads(con.execute("SELECT meta FROM runs WHERE run_id = ?", [run_id]).fetchall()[0][0] or "{}")
    meta["stacked_by_data"] = found
    added = [f"{_quoted(d)} is left out of whole-disk figures: {why}; if that is wrong, pick the devices to sum "
             "({fix:device_pick})" for d, why in sorted(found.items())]
    con.execute("UPDATE runs SET meta = ?, warnings = list_concat(warnings, ?) WHERE run_id = ?",
                [json.dumps(meta), added, run_id])
    return added


def _check_layers(con: Any, run_id: int, fmt_id: str) -> None:
    """A run's ``iostat_samples`` rows carry only the layers its format declares (parsers.semantics), and no row goes
    without one unless the format declares name rules for such rows. Whole-disk figures sum by layer: a value the
    format never declared would be summed on a guess (a pool beside its disks: the same I/O twice), so the file
    is refused instead, nothing of it stored."""
    from parsers.registry import FORMATS

    fmt = FORMATS.get(fmt_id)
    if fmt is None or "iostat_samples" not in fmt.tables:
        return
    found = [la for (la,) in con.execute("SELECT DISTINCT layer FROM iostat_samples WHERE run_id = ?",
                                         [run_id]).fetchall()]
    bad = fmt.semantics.undeclared_layers(found)
    if not bad:
        return
    declared = ", ".join(fmt.semantics.layers) or "none"
    dev = con.execute("SELECT device FROM iostat_samples WHERE run_id = ? AND layer IS NOT DISTINCT FROM ? LIMIT 1",
                      [run_id, bad[0]]).fetchall()[0][0]
    what = f"the layer {bad[0]!r}" if bad[0] is not None else "no layer"
    raise ParseError(f"device {_quoted(dev)} has {what}, which the {fmt.label} reader does not declare (its "
                     f"layers: {declared}{'; rows without one: by name' if fmt.semantics.names else ''}): whole-disk "
                     "figures cannot tell whether its I/O is counted in another device, so nothing of the file was "
                     "stored. This is a fault of StormScope's reader for this format, not of the file: please report "
                     "it with the file")


def has_table(ws_or_con: Any, name: str) -> bool:
    """Whether the workspace (a :class:`Workspace` or its DuckDB connection) has table ``name``: a workspace
    opened read-only cannot be migrated, so it may lack a table a later release added."""
    con = getattr(ws_or_con, "con", ws_or_con)
    # DuckDB's own catalog functions: what information_schema.tables lists (tables and views), in less than half its
    # time -- this is asked once per run by several analyses, thousands of times in a report of thousands of runs
    return bool(con.execute("SELECT count(*) FROM (SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name "
                            "FROM duckdb_views() WHERE NOT internal) WHERE table_name = ?", [name]).fetchall()[0][0])


def rollback(con: Any, error: BaseException) -> None:
    """Roll back after ``error`` without hiding it: when the ROLLBACK fails too (DuckDB already ended the
    transaction -- a COMMIT that could not write its log -- or invalidated the database), the caller re-raises the
    original error with the rollback's failure added as a note."""
    try:
        con.execute("ROLLBACK")
    except duckdb.Error as rb:
        error.add_note(f"(the rollback that followed failed too: {rb})")


MAX_FIELD_CHARS = 1000  # a report heading's field as remembered (a title, a customer's name)
MAX_NAME_CHARS = 1024  # a host or device name from a file (Linux device names have 32, DNS host names 253)
MAX_DEVICES = 250_000  # devices in one run (the analyses are linear in them; a big ESXi host has a few thousand)


MAX_VALUE = 1e15  # beyond any rate, size or latency a measuring tool prints (1e308 overflowed the stored sums)
# the units of a measurement that cannot be below zero (a count, a rate, a size, a time, a share)
# (a histogram's bucket bounds and statistics are in its metric's unit: a seek distance is negative, the last bucket
# open-ended -- the vscsiStats parser checks them)
_MEASURED_UNITS = ("requests", "merges/s", "commands/s", "kB", "KB", "MB", "ms", "µs", "%", "I/Os", "1/s", "ops/s",
                   "row's unit")


def _measured(table: str) -> list[str]:
    """The columns of ``table`` that hold a file's measurements (not keys, indexes or times)."""
    return [c.name for c in TABLE[table].columns
            if c.sql in ("DOUBLE", "BIGINT", "INTEGER") and c.unit and c.unit != "s"
            and any(c.unit.startswith(u) for u in _MEASURED_UNITS)]


def _check_values(con: duckdb.DuckDBPyConnection, run_id: int, tables: set[str] | None = None) -> None:
    """No measurement of the run is negative, not a number, infinite or beyond :data:`MAX_VALUE` (the parsers refuse
    what they can with file:line; this is the net under every format): fio's ``total_ios: -5000`` was stored as a
    count, and a rate of 1e308 failed later, in the stored sums, naming neither file nor line. ``tables``: the
    tables the run's rows went to (None: every table a run has rows in)."""
    for spec in TABLES:
        if not spec.per_run or spec.derived or spec.name in ("phases", "markers"):
            continue
        if tables is not None and spec.name not in tables:  # no row of the run there: nothing to check
            continue
        cols = _measured(spec.name)
        if not cols:
            continue
        bad_value = " OR ".join(f'(("{c}") < 0 OR isnan("{c}"::DOUBLE) OR abs("{c}"::DOUBLE) > {MAX_VALUE:g})'
                                for c in cols)
        names = set(spec.column_names)
        where = "line" if "line" in names else "sample_idx" if "sample_idx" in names else None
        device = ", device" if "device" in names else ", NULL"
        listed = ", ".join(f'"{c}"' for c in cols)
        got = con.execute(f"SELECT {where or 'NULL'}{device}, {listed} FROM {spec.name} "
                          f"WHERE run_id = ? AND ({bad_value}) LIMIT 1", [run_id]).fetchall()
        if not got:
            continue
        at, dev, *values = got[0]
        col, v = next((c, x) for c, x in zip(cols, values)
                      if x is not None and (x < 0 or math.isnan(x) or abs(x) > MAX_VALUE))
        what = "negative" if v < 0 else "beyond any measurement" if not math.isnan(v) else "not a number"
        unit = spec.column(col).unit
        place = (f" in report {at + 1}" if where == "sample_idx" and at is not None else "")
        raise ParseError(f"{col} ({unit}) of {_quoted(dev) if dev else 'a row'}{place} is {v:g}: {what} (a counter "
                         "that went back, or a damaged file)", at if where == "line" else None)


def _quoted(name: str, limit: int = 60) -> str:
    return repr(name if len(name) <= limit else name[:limit] + "…")


def _check_name(what: str, name: str | None) -> None:
    """A name from a file at most MAX_NAME_CHARS long: longer is no tool's output (and would stall every page
    that prints it)."""
    if name is not None and len(name) > MAX_NAME_CHARS:
        raise ParseError(f"a {what} of {len(name):,} characters ({_quoted(name, 40)}): longer than the "
                         f"{MAX_NAME_CHARS:,} StormScope reads (no tool prints one that long; the file is damaged or "
                         "hostile)")


DISK_FULL = "No space left on device"


def storage_error(e: BaseException) -> str:
    """What a DuckDB error (or an OSError) while storing a file means for the user. A full disk is said so,
    however deep DuckDB wraps it ("database has been invalidated ... Original error: ... No space left on
    device"); any other says the workspace could not store the file, with DuckDB's first line."""
    text = str(e)
    if DISK_FULL in text or getattr(e, "errno", None) == errno.ENOSPC:
        return ("the disk holding the workspace is full (No space left on device): nothing of this file was "
                "stored; free some space and import it again")
    first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
    return f"the workspace could not store it ({first})"


# what the system says when the workspace's file, folder or disk cannot be written (DuckDB quotes it in its errors)
_UNWRITABLE = {errno.EROFS: "Read-only file system", errno.EACCES: "Permission denied",
               errno.EPERM: "Operation not permitted"}
_NO_ROOM = {errno.ENOSPC: DISK_FULL, errno.EDQUOT: "Disk quota exceeded"}


def storage_problem(e: BaseException) -> str | None:
    """What went wrong when an error comes from the storage under a write -- a full disk, a quota, a read-only
    disk, a file or folder the user may not write -- in the customer's words naming the file; None for any other
    error (a bug, which must surface as one). ``e``: an OSError, or a DuckDB error quoting the system's words."""
    text = str(e)
    code = getattr(e, "errno", None)
    said = next((words for c, words in {**_NO_ROOM, **_UNWRITABLE}.items() if code == c or words in text), None)
    if said is None:
        return None
    where = getattr(e, "filename", None) or _quoted_file(text)
    place = f"{where} " if where else ""
    if said in _NO_ROOM.values():
        return f"{place}could not be written: the disk is full ({said}); nothing was changed. Free some space and " \
               "try again"
    return f"{place}could not be written ({said}); nothing was changed. A file on a read-only disk or share, or " \
           "one you may not change, is read but not written: copy it to a folder you can write to"


def _quoted_file(text: str) -> str | None:
    """The file a DuckDB error names; the workspace for its write-ahead log (``ws.duckdb.wal``)."""
    m = re.search(r'file "([^"]+)"', text)
    return m.group(1).removesuffix(".wal") if m else None


def cannot_write(e: BaseException) -> bool:
    """The error says the workspace's file, folder or disk cannot be written (not a full disk)."""
    return getattr(e, "errno", None) in _UNWRITABLE or any(w in str(e) for w in _UNWRITABLE.values())


def default_workspace_path() -> Path:
    env = os.environ.get("STORMSCOPE_WORKSPACE")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("StormScope", appauthor=False)) / "workspace.duckdb"


def sha256_of(path: str | os.PathLike, chunk: int = 4 * 1024 * 1024) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        while True:
            b = fh.read(chunk)
            if not b:
                break
            h.update(b)
            size += len(b)
    return h.hexdigest(), size


@dataclass
class ImportResult:
    path: str
    status: str  # imported | duplicate | failed | skipped (no trace, found in a folder)
    kind: str | None = None
    format: str | None = None
    run_ids: list[int] = field(default_factory=list)
    rows: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "status": self.status, "run_ids": self.run_ids, "kind": self.kind,
            "format": self.format, "rows": self.rows, "warnings": self.warnings, "error": self.error,
        }



def _text(v: Any) -> str:
    return "" if v is None else str(v)


@dataclass(frozen=True)
class RunHead:
    """What names a run and says what it holds, without the rest of its row (:meth:`Workspace.run_heads`)."""

    run_id: int
    kind: str
    name: str
    host: str | None
    source_path: str

class Workspace:
    """A DuckDB workspace file. Use as a context manager or call :meth:`close`.

    Raises :class:`WorkspaceLocked` when another process (a StormScope window or command) has the file open.
    """

    def __init__(self, path: str | os.PathLike, read_only: bool = False, for_import: bool = False,
                 settings: Mapping[str, str | bool | int] | None = None):
        """``read_only``: nothing is written, not even a migration (read-type commands, a received file);
        ``for_import``: a process that only imports (``main.py import``) -- DuckDB's memory is bounded for the
        whole open (the configuration is locked once open, see app.safe_open); ``settings``: DuckDB settings for
        the whole open, set before the configuration is locked (``main.py sql``'s memory limit).

        Raises :class:`WorkspaceLocked` (another process has it), :class:`WorkspaceTooNew` (a newer StormScope
        made it, and this one cannot read it), :class:`WorkspaceReadOnly` (a newer StormScope made it; this one
        reads it, but only opened ``read_only``) and :class:`WorkspaceRefused` (it holds objects StormScope never
        creates: app.safe_open)."""
        self.path = Path(path)
        self.read_only = read_only
        if read_only:
            if not self.path.exists():
                raise FileNotFoundError(f"workspace {self.path} does not exist")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.staging = StagingArea(self.path)
        self._for_import = for_import
        self._settings = {**(IMPORT_SETTINGS if for_import else {}), **(settings or {})}
        self.before_reopen: Callable[[], None] | None = None  # see reopen()
        created = not self.path.exists()  # made by this open: nothing in it to check but what StormScope writes
        try:
            self.con = self._connect()
        except duckdb.IOException as e:
            if is_lock_error(str(e)):  # another process has the file open: say who, and what to do
                raise workspace_locked(self.path, str(e)) from None
            raise
        self.migrated: list[int] = []  # the schema versions this open migrated the workspace through
        # a workspace this StormScope shows but does not change, and why, in one line each (else None): a newer
        # StormScope's that this one reads correctly (read_compatible_from, app.migrations), or one whose file,
        # folder or disk cannot be written here (:func:`open_for_change_or_reading`). The note is the command line's
        # and the banner's; the reason is each disabled action's tooltip.
        self.read_only_note: str | None = None
        self.read_only_reason: str | None = None
        try:  # a newer workspace is refused before anything is written (a hostile one was, by connect)
            if read_only:
                found = check_readable(self.con, self.path)
                if found is not None and found < SCHEMA_VERSION:
                    shadow_missing_columns(self.con)
                if found is not None and found > SCHEMA_VERSION:
                    self.read_only_note = read_only_note(self.path, found)
                    self.read_only_reason = READ_ONLY_REASON
            else:
                self.migrated = migrate(self.con, self.path)
                self.staging.remove_stale()  # this process holds the write lock: no other import is running
            if not created:  # a value StormScope never stores: refused, naming table, row, column
                check_values(self.con, self.path)
        except BaseException:
            self.con.close()
            raise

    def _connect(self) -> duckdb.DuckDBPyConnection:
        """A connection under the safe-open policy (app.safe_open), the same for the first open and a reopen."""
        return connect(self.path, self.read_only, allowed_dirs=[] if self.read_only else [self.staging.root],
                       settings=self._settings)

    def usable(self) -> bool:
        """False once DuckDB has invalidated the database (a fatal error such as a full disk during a checkpoint):
        every later statement on this connection would fail with that first error."""
        try:
            self.con.execute("SELECT 1").fetchall()
        except duckdb.FatalException:
            return False
        return True

    def reopen(self) -> None:
        """A fresh connection after DuckDB invalidated the database (see :meth:`usable`): what was committed before
        is read back from the file, and the next files of the same drop can be stored.

        DuckDB keeps one database per file and process while any connection to it is open: another connection of
        this process (the window's, while its import thread reopens) would hand the invalidated database back.
        ``before_reopen``, when set, is called once this connection is closed, to have every other one closed and
        the file opened again (the window does, app/ui/workers.py); it may raise to stop the import."""
        self.close_invalidated()
        if self.before_reopen is not None:
            self.before_reopen()
        self.con = self._connect()

    def close_invalidated(self) -> None:
        """Close the connection, which DuckDB may have invalidated: closing then says so again, nothing new (what was
        committed before is in the file)."""
        with suppress(duckdb.FatalException):
            self.con.close()

    def cursor(self) -> Workspace:
        """A second handle on this open workspace for a worker thread: its own DuckDB connection to the same
        database (``con.cursor()``), without opening the file or migrating again (a fresh open costs ~100 ms).
        Close it when the job is done; the workspace stays open."""
        w = object.__new__(Workspace)
        w.path, w.read_only, w.migrated, w.staging = self.path, self.read_only, [], self.staging
        w.read_only_note, w.read_only_reason = self.read_only_note, self.read_only_reason
        w._for_import, w._settings, w.before_reopen = self._for_import, self._settings, None
        w.con = self.con.cursor()
        return w

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    # ---- queries ----------------------------------------------------------------------------
    def query(self, sql: str, params: list[Any] | None = None) -> pl.DataFrame:
        """Run a query and return a polars frame."""
        rel = self.con.sql(sql, params=params) if params else self.con.sql(sql)
        return pl.from_arrow(rel.to_arrow_table())  # type: ignore[return-value]  # from_arrow of a Table is a DataFrame (a Series only of an Array)

    def runs(self) -> list[Run]:
        """Every run, in the order they were imported."""
        return self._runs("", [])

    def runs_without_interval(self) -> list[Run]:
        """The runs with no interval (none known, or 0), in the order they were imported: read without making a
        :class:`Run` of every other run (5,013 runs: ~1.3 s of the window's opening)."""
        return self._runs("WHERE r.interval_s IS NULL OR r.interval_s = 0", [])

    def run(self, run_id: int) -> Run | None:
        found = self._runs("WHERE r.run_id = ?", [run_id])
        return found[0] if found else None

    def kind_of(self, run_id: int) -> str | None:
        """The run's kind (None: no such run)."""
        run = self.run(run_id)
        return None if run is None else run.kind

    def name_of(self, run_id: int) -> str:
        """The run's name; its number when there is no such run (deleted meanwhile)."""
        run = self.run(run_id)
        return str(run_id) if run is None else run.name

    def meta_of(self, run_id: int) -> RunMeta:
        """The run's ``meta`` (empty: no such run)."""
        run = self.run(run_id)
        return RunMeta() if run is None else run.meta

    def _runs(self, where: str, params: list[Any]) -> list[Run]:
        has_offsets = self.__dict__.get("_has_clock_offsets")  # a read-only workspace older than them has none
        if has_offsets is None:  # (tables are made when the workspace opens: asked once)
            has_offsets = self.__dict__["_has_clock_offsets"] = has_table(self, "clock_offsets")
        offset = "(SELECT offset_s FROM clock_offsets c WHERE c.run_id = r.run_id)" if has_offsets else "NULL"
        cur = self.con.execute(f"SELECT r.*, {offset} AS clock_offset_s FROM runs r {where} ORDER BY r.run_id",
                               params)
        cols = [d[0] for d in cur.description]
        return [Run.from_row(dict(zip(cols, row))) for row in cur.fetchall()]

    def run_count(self) -> int:
        return int(self.con.execute("SELECT count(*) FROM runs").fetchall()[0][0])

    def run_heads(self) -> list[RunHead]:
        """Every run's id, kind, name, host and file, in the order they were imported: what naming and choosing
        among all runs needs, read in one query without making a :class:`Run` of each (100,000 runs: half a second
        instead of twenty)."""
        rows = self.con.execute("SELECT run_id, kind, name, host, source_path FROM runs ORDER BY run_id").fetchall()
        return [RunHead(int(i), _text(k), _text(n), None if h is None else str(h), _text(s)) for i, k, n, h, s in rows]

    def runs_by_id(self, run_ids: Iterable[int]) -> dict[int, Run]:
        """The given runs by id, in one query: a selection of thousands of runs costs one round trip, not one per
        run. Ids not in the workspace are absent from the result."""
        ids = sorted({int(r) for r in run_ids})
        if not ids:
            return {}
        return {r.run_id: r for r in self._runs("WHERE r.run_id IN (SELECT unnest(?::BIGINT[]))", [ids])}

    def find_duplicate(self, sha: str) -> list[int]:
        return [r[0] for r in self.con.execute(
            "SELECT run_id FROM runs WHERE source_sha256 = ? ORDER BY run_id", [sha]).fetchall()]

    def delete_run(self, run_id: int) -> None:
        with self.transaction():
            for t in RUN_TABLES:
                self.con.execute(f"DELETE FROM {t} WHERE run_id = ?", [run_id])
            self.con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])

    # ---- import -----------------------------------------------------------------------------
    def import_events(
        self, path: str, fmt_id: str, kind: str, events: Iterable[Event], options: ImportOptions,
        sha: str, size: int, warnings: list[str], before_commit: Callable[[], None] | None = None,
    ) -> tuple[list[int], int]:
        """Store the events of one file in a single transaction. Returns (run_ids, rows). ``before_commit`` may
        raise to roll the import back at the last moment (the source file changed meanwhile)."""
        con = self.con
        run_ids: dict[str, int] = {}
        rows = 0
        written: set[str] = set()  # the tables the file's rows went to (their values are checked before commit)
        con.execute("BEGIN TRANSACTION")
        stager = _Stager(self)
        try:
            flush = stager.flush
            stream = iter(events)
            ev: Event | None = next(stream, None)
            while ev is not None:
                if isinstance(ev, Rows):
                    written.add(ev.table)
                    rows += ev.frame.height
                    if stager.add(ev.table, run_ids[ev.key], ev.frame):  # a large table: stream what follows
                        ev, streamed = stager.stream(ev.table, run_ids[ev.key], ev.key, stream)
                        rows += streamed
                    else:
                        ev = next(stream, None)
                    continue
                flush()
                if isinstance(ev, RunStart):
                    run_ids[ev.key] = self._insert_run(path, fmt_id, ev, options, sha, size, len(run_ids))
                elif isinstance(ev, SampleTimes):
                    self._apply_sample_times(run_ids[ev.key], ev.table, ev.frame)
                elif isinstance(ev, SinceBoot):
                    _check_table(ev.table)
                    self.con.execute(f"UPDATE {ev.table} SET since_boot = true "
                                     "WHERE run_id = ? AND list_contains(?, sample_idx)",
                                     [run_ids[ev.key], [int(i) for i in ev.sample_idx]])
                elif isinstance(ev, RunEnd):
                    rid = run_ids[ev.key]
                    self._finish_run(rid, ev.updates, ev.info, kind)
                ev = next(stream, None)
            flush()
            if not run_ids:
                raise ParseError("the file holds no run")
            n_runs = len(run_ids)
            for key, rid in run_ids.items():
                if n_runs > 1 and not options.name:
                    con.execute("UPDATE runs SET name = name || ' — ' || ? WHERE run_id = ?", [key, rid])
                con.execute("UPDATE runs SET warnings = ? WHERE run_id = ?", [warnings, rid])
            for rid in run_ids.values():
                _check_layers(con, rid, fmt_id)
                self._check_samples(rid)
                _check_values(con, rid, written)
                if has(con.execute("SELECT kind FROM runs WHERE run_id = ?", [rid]).fetchall()[0][0], DEVICE_RATES):
                    warnings += _prove_stacking(con, rid)  # no whole-disk figure counts a device twice
                    warnings += name_gaps(con, rid)  # a disk missing mid-run: a gap, never a smaller sum
                    store_sums(con, rid)  # the default series' per-report sums (app.series_sums)
            if before_commit is not None:
                before_commit()
            crash_point("commit")  # the reliability suite's kills (app/crashpoints.py); nothing in production
            con.execute("COMMIT")
            crash_point("wal")
            crash_during("checkpoint", lambda: con.execute("CHECKPOINT"))
        except BaseException as e:
            rollback(con, e)
            stager.close(e)
            raise
        finally:
            stager.close()
        return list(run_ids.values()), rows

    def _check_samples(self, run_id: int) -> None:
        """The invariants of a run's device samples, whatever format gave them (the parsers check with file:line
        where they can; this is the net under them): no device twice in one report -- its I/O would count twice --,
        report times that only go forward -- else t_s goes negative and intervals overlap --, and at most
        MAX_DEVICES devices."""
        con = self.con
        dup = con.execute("SELECT sample_idx, device, count(*) FROM iostat_samples WHERE run_id = ? "
                          "GROUP BY sample_idx, device, is_group, layer HAVING count(*) > 1 ORDER BY 1, 2 LIMIT 1",
                          [run_id]).fetchall()
        if dup:
            idx, dev, n = dup[0]
            raise ParseError(f"device {_quoted(dev)} is listed {n} times in report {idx + 1}: its I/O would count "
                             f"{n} times, and which row is right cannot be told (the file was edited or damaged)")
        back = con.execute(
            "SELECT sample_idx, t, p FROM (SELECT sample_idx, t, lag(t) OVER (ORDER BY sample_idx) AS p FROM "
            "(SELECT sample_idx, min(t_s) AS t FROM iostat_samples WHERE run_id = ? AND t_s IS NOT NULL GROUP BY 1)) "
            "WHERE t <= p OR t < 0 ORDER BY 1 LIMIT 1", [run_id]).fetchall()
        if back:
            idx, t, prev = back[0]
            raise ParseError(f"report {idx + 1} is at {t:g} s, " + (f"not after the report before ({prev:g} s)"
                             if prev is not None else "before the first") + ": the time goes back (the clock was set "
                             "back, or logs were joined out of order), and the reports would overlap")
        n_dev = con.execute("SELECT count(DISTINCT device) FROM iostat_samples WHERE run_id = ?",
                            [run_id]).fetchall()[0][0]
        if n_dev > MAX_DEVICES:
            raise ParseError(f"{n_dev:,} devices in one run: more than the {MAX_DEVICES:,} StormScope reads from "
                             "one file (no host has that many; the file is damaged or hostile)")

    def _insert_run(self, path: str, fmt_id: str, ev: RunStart, options: ImportOptions, sha: str,
                    size: int, index: int) -> int:
        info = ev.info
        _check_name("host name", info.host)
        name = options.name or Path(path).stem
        meta = {k: v for k, v in info.meta.items() if not k.startswith("_")}
        tags = dict(options.tags)
        row = self.con.execute(
            """INSERT INTO runs (name, kind, format, source_path, source_sha256, source_size, host, os,
                   tool_version, file_date, started_at, interval_s, interval_source, imported_at, tags, meta)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, MAP(?::VARCHAR[], ?::VARCHAR[]), ?)
               RETURNING run_id""",
            [name, info.kind, fmt_id, str(Path(path).resolve()), sha, size, info.host, info.os,
             info.tool_version, info.file_date, info.started_at, info.interval_s, info.interval_source,
             datetime.now(UTC).replace(tzinfo=None), list(tags.keys()), list(tags.values()),
             json.dumps(meta, default=str)],
        ).fetchall()[0]
        return int(row[0])

    def _finish_run(self, run_id: int, updates: dict[str, Any], info: RunInfo | None, kind: str) -> None:
        allowed = {"n_samples", "n_devices", "ended_at", "started_at", "interval_s", "interval_source",
                   "tool_version", "host", "os", "file_date"}
        sets: dict[str, Any] = {}
        if info is not None:
            sets.update({
                "host": info.host, "os": info.os, "tool_version": info.tool_version, "file_date": info.file_date,
                "started_at": info.started_at, "interval_s": info.interval_s,
                "interval_source": info.interval_source,
                "meta": json.dumps({k: v for k, v in info.meta.items() if not k.startswith("_")}, default=str),
            })
        sets.update({k: v for k, v in updates.items() if k in allowed})
        _check_name("host name", sets.get("host"))
        from parsers.registry import main_table  # the format registry, loaded when first needed (start-up)

        main = main_table(kind)  # as the kind's formats declare it (parsers.semantics)
        tables = [main] if main is not None else RUN_TABLES
        sets["n_rows"] = sum(self.con.execute(f"SELECT count(*) FROM {t} WHERE run_id = ?", [run_id]).fetchall()[0][0]
                             for t in tables)
        cols = ", ".join(f"{k} = ?" for k in sets)
        self.con.execute(f"UPDATE runs SET {cols} WHERE run_id = ?", [*sets.values(), run_id])

    def table_schema(self, table: str) -> dict[str, pl.DataType]:
        """The polars dtypes of a table's columns, from the spec (frames are conformed to them before storing)."""
        return stored_schema(table)

    def _apply_sample_times(self, run_id: int, table: str, frame: pl.DataFrame) -> None:
        _check_table(table)
        self.con.register("_attrs", frame.to_arrow())
        try:
            self.con.execute(
                f"""UPDATE {table} AS s SET ts = a.ts, t_s = a.t_s, since_boot = a.since_boot
                   FROM _attrs AS a WHERE s.run_id = ? AND s.sample_idx = a.sample_idx""", [run_id])
        finally:
            self.con.unregister("_attrs")

    def table_columns(self, table: str) -> list[str]:
        return [r[0] for r in self.con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
            [table]).fetchall()]

    # ---- what a file could not say ------------------------------------------------------------
    def set_interval(self, run_id: int, seconds: float) -> None:
        """Give a run without timestamps its interval (the 5 of ``iostat 5``, the time between vscsiStats
        collections): report k is then at k x seconds. Runs with timestamps keep theirs."""
        run = self.run(run_id)
        if run is None:
            raise ValueError(f"no run {run_id}")
        if not has(run.kind, TIME_SERIES):
            labels = [kind_label(k) for k in kinds_with(TIME_SERIES)]
            raise ValueError(f"run {run_id} is a {run.kind} run: only {', '.join(labels[:-1])} and {labels[-1]} "
                             "runs take an interval this way")
        from parsers.registry import timed_tables  # the format registry is loaded when first needed (start-up)

        tables = timed_tables(run.kind)
        if run.interval_source == "timestamps":
            raise ValueError(f"run {run_id} has timestamps: its interval ({run.interval_s:g} s) comes from them")
        if not seconds > 0:
            raise ValueError("the interval must be a positive number of seconds")
        with self.transaction():
            for t in tables:
                self.con.execute(f"UPDATE {t} SET t_s = sample_idx * ? WHERE run_id = ?", [float(seconds), run_id])
            self.con.execute("UPDATE runs SET interval_s = ?, interval_source = 'user' WHERE run_id = ?",
                             [float(seconds), run_id])
            if has(run.kind, DEVICE_RATES):
                store_sums(self.con, run_id)  # every report's t_s changed
            self._drop_warnings(run_id, "{fix:set_interval}", "--interval SECONDS")

    def set_first_report(self, run_id: int, since_boot: bool) -> None:
        """Say whether an iostat run's first report covers the time since boot (iostat without -y)."""
        run = self.run(run_id)
        if run is None or not has(run.kind, DEVICE_RATES):  # iostat's first report
            raise ValueError(f"run {run_id} is not an iostat run")
        how = "since-boot (set by the user)" if since_boot else "interval (set by the user)"
        with self.transaction():
            self.con.execute("UPDATE iostat_samples SET since_boot = ? WHERE run_id = ? AND sample_idx = 0",
                             [since_boot, run_id])
            store_sums(self.con, run_id, reports=[0])  # the first report's flag changed
            self.con.execute("UPDATE runs SET meta = json_merge_patch(coalesce(meta, '{}'), "
                             "json_object('first_report', ?)) WHERE run_id = ?", [how, run_id])
            self._drop_warnings(run_id, "{fix:first_report_interval}", "--first-report interval")

    def set_histogram_counts(self, run_id: int, mode: str) -> None:
        """Say how a vscsiStats run's collections relate: ``cumulative`` (never reset, each prints the running
        total), ``per-collection`` (reset with -r each time) or ``auto`` (what the importer detected)."""
        run = self.run(run_id)
        if run is None or not (has(run.kind, TIME_SERIES) and has(run.kind, LATENCY_HISTOGRAMS)):
            raise ValueError(f"run {run_id} is not a vscsiStats run")
        if mode not in ("cumulative", "per-collection", "auto"):
            raise ValueError(f"histogram counts: cumulative, per-collection or auto, not {mode!r}")
        value = None if mode == "auto" else mode
        with self.transaction():
            self.con.execute("UPDATE runs SET meta = json_merge_patch(coalesce(meta, '{}'), "
                             "json_object('histogram_counts', ?::VARCHAR)) WHERE run_id = ?", [value, run_id])
            if value:
                self._drop_warnings(run_id, "{fix:counts_per_collection}", "--histogram-counts")

    def set_date_order(self, run_id: int, order: str, how: str | None = None) -> None:
        """Say how a run's dates read when its file could not decide (``runs.meta.date_reading``): ``order`` is
        ``DMY``, ``MDY`` or ``YMD``. Every stored time moves to the date it is read that way (each date by its own
        number of days, in one statement), the times from the start and the run's period follow, the stored sums are
        made again and ``runs.meta.date_order`` says who decided (``how``: the words, "set by the user" by
        default). ValueError for a run that has no such question, or an order its dates cannot be read in."""
        from parsers.dates import ORDER_NAMES
        from parsers.registry import timed_tables  # the format registry is loaded when first needed (start-up)

        run = self.run(run_id)
        if run is None:
            raise ValueError(f"no run {run_id}")
        if order not in ORDER_NAMES:
            raise ValueError(f"the date order is one of {', '.join(ORDER_NAMES)}, not {order!r}")
        meta = run.meta.as_dict()
        reading = meta.get("date_reading")
        if not isinstance(reading, dict):
            said = meta.get("date_order")
            if said and str(said).startswith(ORDER_NAMES[order]):
                return
            raise ValueError(f"run {run_id}'s dates are not in question: " + (f"they are read {said}"
                             if said else "it has no dates"))
        mapping = {} if order == reading.get("stored") else (reading.get("others") or {}).get(order)
        if mapping is None:
            raise ValueError(f"run {run_id}'s dates do not read {ORDER_NAMES[order]}")
        shift = {d: (datetime.fromisoformat(o) - datetime.fromisoformat(d)).days for d, o in mapping.items()}
        tables = [t for t in timed_tables(run.kind) if "ts" in TABLE[t].column_names]
        meta.pop("date_reading", None)
        meta["date_order"] = f"{ORDER_NAMES[order]} ({how or 'set by the user: the file reads both ways'})"
        with self.transaction():
            if any(shift.values()):
                days = pl.DataFrame({"d": list(shift), "n": list(shift.values())}).with_columns(
                    pl.col("d").str.to_date())
                self.con.register("_shift", days.to_arrow())
                try:
                    for t in tables:
                        self.con.execute(f"UPDATE {t} SET ts = ts + to_days(s.n) FROM _shift AS s "
                                         f"WHERE {t}.run_id = ? AND CAST({t}.ts AS DATE) = s.d", [run_id])
                    if len(set(shift.values())) > 1:  # the dates moved apart or together: the times from the start
                        main = tables[0]
                        t0 = self.con.execute(f"SELECT min(ts) FROM {main} WHERE run_id = ?", [run_id]).fetchall()
                        for t in tables:
                            self.con.execute(f"UPDATE {t} SET t_s = epoch_ms(ts - ?::TIMESTAMP) / 1000.0 "
                                             "WHERE run_id = ? AND ts IS NOT NULL", [t0[0][0], run_id])
                    for col in ("started_at", "ended_at", "file_date"):
                        self.con.execute(f"UPDATE runs SET {col} = {col} + to_days(s.n) FROM _shift AS s "
                                         f"WHERE runs.run_id = ? AND CAST(runs.{col} AS DATE) = s.d", [run_id])
                finally:
                    self.con.unregister("_shift")
            self.con.execute("UPDATE runs SET meta = ? WHERE run_id = ?", [json.dumps(meta), run_id])
            if has(run.kind, DEVICE_RATES):
                store_sums(self.con, run_id)  # the sums keep each report's clock time
            self._drop_warnings(run_id, "{fix:date_order}")

    def set_whole_disks(self, run_id: int, devices: list[str] | None) -> DeviceChoice:
        """The devices every whole-disk figure of a run sums, as the consultant chose them (``runs.meta.whole_disks``;
        None or empty: StormScope's rules again). A choice that would count some I/O twice is refused with why
        (:func:`app.series_sums.check_whole_disks`: ValueError). The stored sums are made again in the same
        transaction; the import warnings that name a device left out as stacked are said again by the rules, or
        dropped while the consultant's choice stands. Returns the choice now in force."""
        from app.series_sums import check_whole_disks, whole_disk_choice

        run = self.run(run_id)
        if run is None:
            raise ValueError(f"no run {run_id}")
        if not has(run.kind, DEVICE_RATES):
            raise ValueError(f"run {run_id} is a {kind_label(run.kind)} run: it has no devices to sum")
        chosen = sorted(dict.fromkeys(devices or []))
        if chosen and (why := check_whole_disks(self.con, run_id, chosen)) is not None:
            raise ValueError(f"these devices cannot be run {run_id}'s whole disks: {why}")
        meta = run.meta.as_dict()
        if chosen:
            meta["whole_disks"] = chosen
        else:
            meta.pop("whole_disks", None)
        with self.transaction():
            self.con.execute("UPDATE runs SET meta = ? WHERE run_id = ?", [json.dumps(meta), run_id])
            self._drop_warnings(run_id, "{fix:device_pick}")
            if not chosen:
                _prove_stacking(self.con, run_id)  # the rules' choice again, with its warnings
            store_sums(self.con, run_id)
            name_gaps(self.con, run_id)  # the gaps of the devices now summed
        return whole_disk_choice(self.con, run_id)

    def set_counters_by_place(self, run_id: int, confirmed: bool) -> None:
        """Say whether a perfmon run's counters known by their place in the log, not their names (a Windows display
        language StormScope has no names for: ``runs.meta.counters_by_place``), are what their place says.
        Confirmed: kept, and said so. Rejected: the columns made from them are emptied (missing, not zero), the
        stored sums made again, and the run says so. ValueError for a run without such counters."""
        run = self.run(run_id)
        if run is None:
            raise ValueError(f"no run {run_id}")
        meta = run.meta.as_dict()
        placed = meta.get("counters_by_place")
        if not isinstance(placed, dict):
            raise ValueError(f"run {run_id} has no counters read by their place in the log")
        if str(placed.get("state", "")).startswith("rejected") and confirmed:
            raise ValueError(f"run {run_id}'s counters read by their place were rejected and their values left "
                             "out: import the file again to read them")
        with self.transaction():
            if not confirmed:
                for device, columns in (placed.get("columns") or {}).items():
                    table = "cpu_samples" if device == "cpu" else "iostat_samples"
                    have = set(self.table_columns(table))
                    cols = [c for c in columns if c in have]
                    if not cols:
                        continue
                    sets = ", ".join(f"{c} = NULL" for c in cols)
                    if table == "cpu_samples":
                        self.con.execute(f"UPDATE {table} SET {sets} WHERE run_id = ?", [run_id])
                    else:
                        self.con.execute(f"UPDATE {table} SET {sets} WHERE run_id = ? AND device = ?",
                                         [run_id, device])
                if has(run.kind, DEVICE_RATES):
                    store_sums(self.con, run_id)
            placed["state"] = "confirmed by the user" if confirmed else "rejected by the user: their values left out"
            meta["counters_by_place"] = placed
            self.con.execute("UPDATE runs SET meta = ? WHERE run_id = ?", [json.dumps(meta), run_id])
            self._drop_warnings(run_id, "{fix:counters_by_place}")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction: committed when the block ends, rolled back when it raises."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield
            self.con.execute("COMMIT")
        except BaseException as e:
            rollback(self.con, e)
            raise

    def _drop_warnings(self, run_id: int, *markers: str) -> None:
        """Forget the import warnings that ask the user for what they have now said (they would be stale);
        ``markers``: the warning's fix token, and the words older StormScope versions stored instead."""
        for marker in markers:
            self.con.execute("UPDATE runs SET warnings = list_filter(warnings, lambda w: NOT contains(w, ?)) "
                             "WHERE run_id = ?", [marker, run_id])

    # ---- computed columns ----------------------------------------------------------------------
    def computed_columns(self, table: str) -> list[tuple[str, str]]:
        """(name, SQL expression) of the computed columns defined on ``table``, in creation order. The workspace
        may come from someone else: a stored definition that is not one expression (app.safe_open) or whose name
        is not a plain name is left out, never pasted into a query."""
        return [(n, e) for n, e in self.con.execute(
            "SELECT name, expression FROM computed_columns WHERE table_name = ? ORDER BY created_at, name",
            [table]).fetchall() if _computed_ok(n, e)]

    def add_computed_column(self, table: str, name: str, expression: str) -> None:
        """Define ``name`` = ``expression`` (SQL over the table's columns); checked before it is saved: one
        expression (app.safe_open.check_expression), and it must work on the table."""
        if not _NAME.fullmatch(name):
            raise ValueError(f"column name {name!r}: letters, digits and _ only, not starting with a digit")
        if name in self.table_columns(table):
            raise ValueError(f"{table} already has a column {name!r}")
        try:
            check_expression(expression)
        except SQLRefused as e:
            raise ValueError(str(e)) from None
        except duckdb.Error as e:
            raise ValueError(f"the expression does not work on {table}: {e}") from None
        others = "".join(f", ({e}) AS \"{n}\"" for n, e in self.computed_columns(table) if n != name)
        try:  # bound, never run, and where it could not write anyway
            with read_only_transaction(self.con) as cur:
                cur.execute(f"DESCRIBE SELECT ({expression}) AS \"{name}\"{others} FROM {table}").fetchall()
        except duckdb.Error as e:
            raise ValueError(f"the expression does not work on {table}: {e}") from None
        self.con.execute("INSERT OR REPLACE INTO computed_columns VALUES (?, ?, ?, now())", [table, name, expression])

    def delete_computed_column(self, table: str, name: str) -> None:
        self.con.execute("DELETE FROM computed_columns WHERE table_name = ? AND name = ?", [table, name])

    # ---- misc -------------------------------------------------------------------------------
    def set_tags(self, run_id: int, tags: dict[str, str]) -> None:
        self.con.execute("UPDATE runs SET tags = MAP(?::VARCHAR[], ?::VARCHAR[]) WHERE run_id = ?",
                         [list(tags), list(tags.values()), run_id])

    def rename_run(self, run_id: int, name: str) -> None:
        self.con.execute("UPDATE runs SET name = ? WHERE run_id = ?", [name, run_id])

    # the report heading of this workspace's engagement, as last exported (File ▸ Export report…)
    REPORT_FIELDS = ("title", "customer", "consultant", "company")

    def report_fields(self) -> dict[str, str]:
        """The report heading last exported from this workspace (``REPORT_FIELDS``; empty when none was): text only,
        so a workspace from someone else fills in nothing but text boxes."""
        row = self.con.execute("SELECT value FROM workspace_info WHERE key = 'report_fields'").fetchone()
        try:
            stored = json.loads(row[0]) if row and row[0] else {}
        except ValueError:  # not written by StormScope: nothing remembered
            return {}
        if not isinstance(stored, dict):
            return {}
        return {k: v[:MAX_FIELD_CHARS] for k, v in stored.items() if k in self.REPORT_FIELDS and isinstance(v, str)}

    def set_report_fields(self, fields: dict[str, str]) -> None:
        """Remember the report heading (``REPORT_FIELDS`` of ``fields``) for the next export from this workspace."""
        kept = {k: fields[k] for k in self.REPORT_FIELDS if k in fields}
        self.con.execute("INSERT OR REPLACE INTO workspace_info VALUES ('report_fields', ?)",
                         [json.dumps(kept, sort_keys=True)])


UNWRITABLE_REASON = ("This workspace cannot be written here (its file, folder or disk is read-only): StormScope shows "
                     "it and reports on it; copy it to a folder you can write to, to change it")


def open_for_change_or_reading(path: str | os.PathLike,
                               settings: Mapping[str, str | bool | int] | None = None) -> Workspace:
    """The workspace opened to be changed (the window), or read-only when it cannot be changed: a newer StormScope
    made it and this one reads it correctly, or its file, folder or disk cannot be written (a received file on a
    read-only share, a file the user may only read). ``read_only_note`` and ``read_only_reason`` then say why.
    ``settings``: DuckDB settings for the whole open (the window's memory limit)."""
    try:
        return Workspace(path, settings=settings)
    except WorkspaceReadOnly:
        return Workspace(path, read_only=True, settings=settings)
    except (duckdb.IOException, PermissionError) as e:
        if not cannot_write(e) or not Path(path).exists():
            raise
    ws = Workspace(path, read_only=True, settings=settings)
    ws.read_only_note = ws.read_only_note or (
        f"{path} cannot be written here (its file, folder or disk is read-only): opened read-only -- StormScope shows "
        "it and reports on it, but cannot change it.")
    ws.read_only_reason = ws.read_only_reason or UNWRITABLE_REASON
    return ws


class _Stager:
    """Collects the rows of one import and stores them inside its transaction.

    Small imports are inserted from memory, one INSERT per table and run at each flush. Once a table's rows
    pass ``INSERT_BATCH_ROWS``, they are inserted, and every ``Rows`` event of the same table, run and columns
    that follows directly is stored by one INSERT reading an Arrow stream that pulls the events as DuckDB
    stores them (:meth:`stream`): no staging copy, the parser's next chunk read while DuckDB stores this one,
    and DuckDB writes such a bulk insert to disk as it goes, while many inserts in one transaction pile up in
    memory until COMMIT. Every frame, kept or streamed, has its device names checked (MAX_NAME_CHARS).
    """

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.frames: dict[tuple[str, int], list[pl.DataFrame]] = {}
        self.counts: dict[tuple[str, int], int] = {}
        self.registered = False

    @staticmethod
    def _check_devices(frame: pl.DataFrame) -> None:
        """A frame's device names are at most MAX_NAME_CHARS long (else the ParseError of _check_name)."""
        if "device" in frame.columns and frame.height and frame.schema["device"] == pl.String:
            longest = frame.select(pl.col("device").str.len_chars().max()).item()
            if longest is not None and longest > MAX_NAME_CHARS:
                name = frame.filter(pl.col("device").str.len_chars() == longest).get_column("device")[0]
                _check_name("device name", name)

    def _conform(self, table: str, run_id: int, frame: pl.DataFrame, given_only: bool = False) -> pl.DataFrame:
        """The frame with the table's columns, types and defaults, and its run; ``given_only``: only the
        columns the frame has (and those that need a value), for an INSERT BY NAME that leaves the others
        NULL, as the full frame would."""
        schema = self.ws.table_schema(table)
        return frame.with_columns(pl.lit(run_id).alias("run_id")).select(
            [pl.col(c).cast(t) if c in frame.columns or c == "run_id"
             else pl.lit(COLUMN_DEFAULTS.get(c), dtype=t).alias(c) for c, t in schema.items()
             if not given_only or c in frame.columns or c == "run_id" or c in COLUMN_DEFAULTS])

    def add(self, table: str, run_id: int, frame: pl.DataFrame) -> bool:
        """Keep the rows for the next flush; True when the table and run now hold enough rows to be streamed."""
        self._check_devices(frame)
        key = (table, run_id)
        self.frames.setdefault(key, []).append(self._conform(table, run_id, frame))
        self.counts[key] = self.counts.get(key, 0) + frame.height
        return self.counts[key] >= INSERT_BATCH_ROWS

    def stream(self, table: str, run_id: int, key: str, events: Iterator[Event]) -> tuple[Event | None, int]:
        """Store the rows kept for ``table`` and run, then, with one INSERT, the rows of the ``Rows`` events for
        them that ``events`` yields next with the same columns. Returns the first other event (None at the end
        of the events) and the rows taken from ``events``. An error raised by the events (a parse error with
        its line, a device name too long) is raised as itself, not as DuckDB's report of it.

        Crash points (app/crashpoints.py): ``staging`` as the stream hands DuckDB its first rows, ``bulk-insert``
        once it has handed over its last (DuckDB still inside the INSERT)."""
        import pyarrow as pa

        self.flush()
        state: dict[str, Any] = {"next": next(events, None), "rows": 0, "error": None}
        first = state["next"]
        if not (isinstance(first, Rows) and first.table == table and first.key == key):
            return first, 0
        columns = first.frame.columns
        schema = self._conform(table, run_id, first.frame.head(0), given_only=True).to_arrow().schema

        def batches() -> Iterator[pa.RecordBatch]:
            try:
                ev: Event | None = first
                handed = False
                while isinstance(ev, Rows) and ev.table == table and ev.key == key and ev.frame.columns == columns:
                    self._check_devices(ev.frame)
                    state["rows"] += ev.frame.height
                    if not handed:
                        crash_point("staging")  # the reliability suite's kills; nothing in production
                        handed = True
                    yield from self._conform(table, run_id, ev.frame, given_only=True).to_arrow().to_batches()
                    ev = next(events, None)
                state["next"] = ev
                crash_point("bulk-insert")
            except BaseException as e:
                state["error"] = e
                raise

        reader = pa.RecordBatchReader.from_batches(schema, batches())
        con = self.ws.con
        con.register("_incoming", reader)
        self.registered = True  # until unregistered: a failed statement aborts the transaction, then close() does
        try:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _incoming")
        except duckdb.Error:
            if state["error"] is not None:
                raise state["error"] from None
            raise
        con.unregister("_incoming")
        self.registered = False
        return state["next"], state["rows"]

    def flush(self) -> None:
        con = self.ws.con
        for (table, _rid), frames in self.frames.items():
            con.register("_incoming", pl.concat(frames).to_arrow())
            try:
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _incoming")
            finally:
                con.unregister("_incoming")
        self.frames.clear()
        self.counts.clear()

    def close(self, error: BaseException | None = None) -> None:
        """After COMMIT or ROLLBACK: drop what is left (the stream of a failed insert, with the parser behind it).
        After ``error``, a failure to let go of the stream (DuckDB invalidated the database) is noted on it instead
        of replacing it, as :func:`rollback` does."""
        self.frames.clear()
        self.counts.clear()
        if self.registered:
            self.registered = False
            try:
                self.ws.con.unregister("_incoming")
            except duckdb.Error as e:
                if error is None:
                    raise
                error.add_note(f"(releasing the import's row stream failed too: {e})")
