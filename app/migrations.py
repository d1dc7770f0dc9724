"""Schema migrations: bring a workspace made by an older StormScope up to this one's schema (no Qt here).

``workspace_info.schema_version`` says which schema a workspace has. On a writable open
(:func:`migrate`, called by ``app.workspace.Workspace``):

* a new, empty file gets every table of the spec (``parsers.schema``) and the current version at once;
* a workspace with an older version gets each step of :data:`STEPS` above its version, in order, each in one
  transaction together with the new ``schema_version`` (a step that fails leaves the workspace at the version
  before it);
* a workspace from a NEWER StormScope is not touched: when its ``read_compatible_from`` (the oldest schema
  version that reads it correctly, see ``parsers.schema.READ_COMPATIBLE_FROM``) is at most this one's
  :data:`SCHEMA_VERSION`, :class:`WorkspaceReadOnly` says it can be opened read-only; else
  :class:`WorkspaceTooNew` refuses it.

A read-only open cannot migrate: it only refuses a newer workspace this version cannot read
(:func:`check_readable`), shows the columns an older workspace lacks as NULL through TEMP views
(:func:`shadow_missing_columns`), and readers cope with a table it lacks (``app.workspace.has_table``).

Writing a step: append ``Step(N + 1, "what changes", function_or_sql)`` and raise ``SCHEMA_VERSION`` in
``parsers/schema.py`` to N + 1 with the spec's change. A step is applied to workspaces of every older
version, including ones whose tables were created from a later spec by an earlier step: make it idempotent
(``CREATE TABLE IF NOT EXISTS``, ``ALTER TABLE ... ADD COLUMN IF NOT EXISTS``). StormScope releases before
schema 2 wrote ``schema_version = 1`` on every open, whatever they found: such a release opening a newer
workspace sets it back to 1, and the next open here applies the steps again -- harmless, since they are
idempotent.

Versions
    1. Every release up to the one that introduced migrations. Tables were created on open with
       ``CREATE TABLE IF NOT EXISTS`` as each release added them, ``report_templates`` only when a template
       was first saved or listed.
    2. Every table of the spec exists (``report_templates`` included); the version is read, not only written.
    3. ``iostat_samples`` has the columns perfmon and esxtop fill (``layer``, ``vm``, ``davg_ms``, ``kavg_ms``,
       ``qavg_ms``, ``failed_s``). Since the release after it, ``workspace_info`` also says
       ``read_compatible_from`` (3), written on the first writable open (no step: no table changes).
    4. The derived tables ``series_devices`` and ``series_sums`` (app.series_sums): the per-report sums of each
       run's default series, computed for the runs already stored. Tables added, nothing changed in meaning:
       ``read_compatible_from`` stays 3 (a release of schema 3 reads the rows and ignores the sums).
    5. ``clock_offsets``: a run's clock put right against the others' (app.store.clock). A table added, nothing
       changed in meaning: ``read_compatible_from`` stays 3 (an older release aligns on the files' clocks).
    6. ``capture_plans``: the capture plan the customer follows, which imported runs are checked against
       (app.store.plan). A table added: ``read_compatible_from`` stays 3 (an older release ignores the plan).
    7. Whole-disk gaps (app.series_sums.find_gaps): a report where a summed device is missing in the middle of
       the run has NULL sums (``sums_version`` 2), and the run's warnings name it. No table changes; the stored
       sums of every device-rate run are computed again. ``read_compatible_from`` stays 3: an older release does
       not use sums of another version (it sums the rows as it always did).

Writing a step that only adds tables or columns: leave ``READ_COMPATIBLE_FROM`` as it is, so that older releases
still show the workspace (read-only). A step that changes what a stored value means, or how rows are kept, raises
it to the new version: older releases then refuse the workspace instead of printing a wrong number. Only tables
and plain columns pass an older release's objects check (app.safe_open): a step that adds a sequence, a view or a
column default an older spec does not know makes older releases refuse the workspace whatever the number says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from app.safe_open import WorkspaceDamaged
from parsers.schema import READ_COMPATIBLE_FROM, SCHEMA_VERSION, TABLE


class WorkspaceReadOnly(Exception):
    """A writable open of a workspace made by a newer StormScope whose ``read_compatible_from`` this version
    reaches: it reads the workspace correctly but must not change it (a newer release may keep rows a way this one
    does not know). ``str()`` says so in the customer's words; nothing was written."""

    def __init__(self, path: str | Path, found: int, compatible_from: int, supported: int = SCHEMA_VERSION):
        self.path = Path(path)
        self.found = found
        self.compatible_from = compatible_from
        self.supported = supported
        super().__init__(f"This workspace was made by a newer StormScope (schema {found}): this version can show it "
                         "and report on it, but not change it (no import, rename, delete or other change). Update "
                         "StormScope to change it.")


# why the window disables what would change a newer StormScope's workspace (the tooltip of each)
READ_ONLY_REASON = ("This workspace was made by a newer StormScope: this version shows it and reports on it, but "
                    "cannot change it")


def read_only_note(path: str | Path, found: int) -> str:
    """The one line that says a newer workspace was opened read-only (the command line's note, the window's
    banner)."""
    return (f"{path} was made by a newer StormScope (schema {found}): opened read-only -- this version shows it and "
            "reports on it correctly, but cannot change it.")


class WorkspaceTooNew(Exception):
    """The workspace has a schema newer than this StormScope reads; ``str()`` says so in the customer's words."""

    def __init__(self, path: str | Path, found: int, supported: int = SCHEMA_VERSION):
        self.path = Path(path)
        self.found = found
        self.supported = supported
        super().__init__(f"This workspace was made by a newer StormScope (schema {found}); this version reads up "
                         f"to schema {supported}. Update StormScope to open it.")


@dataclass(frozen=True)
class Step:
    """Version ``to_version - 1`` -> ``to_version``: ``apply`` is SQL (statements separated by ``;``) or a function
    of the DuckDB connection; it runs inside the step's transaction."""

    to_version: int
    what: str
    apply: str | Callable[[Any], None]

    def run(self, con: Any) -> None:
        if callable(self.apply):
            self.apply(con)
        else:
            for stmt in (s.strip() for s in self.apply.split(";")):
                if stmt:
                    con.execute(stmt)


# the tables of schema 2, created as the spec defines them (idempotent: IF NOT EXISTS)
_V2_TABLES = ("runs", "iostat_samples", "cpu_samples", "workspace_info", "histograms", "histogram_stats", "fio_jobs",
              "computed_columns", "iozone_results", "iomark_results", "iometer_results", "hdparm_results",
              "mappings", "phases", "markers", "questions", "report_templates")


def _every_table_of_v2(con: Any) -> None:
    for name in _V2_TABLES:
        for stmt in TABLE[name].create_statements():
            con.execute(stmt)


def _sample_extras_v3(con: Any) -> None:
    for col in ("layer", "vm", "davg_ms", "kavg_ms", "qavg_ms", "failed_s"):
        c = TABLE["iostat_samples"].column(col)
        con.execute(f"ALTER TABLE iostat_samples ADD COLUMN IF NOT EXISTS {c.name} {c.sql}")


def _series_sums_v4(con: Any) -> None:
    from app.series_sums import store_sums
    from parsers.kinds import DEVICE_RATES, has

    for name in ("series_devices", "series_sums"):
        for stmt in TABLE[name].create_statements():
            con.execute(stmt)
    for run_id, kind in con.execute("SELECT run_id, kind FROM runs ORDER BY run_id").fetchall():
        if has(kind, DEVICE_RATES):
            store_sums(con, run_id)


def _clock_offsets_v5(con: Any) -> None:
    for stmt in TABLE["clock_offsets"].create_statements():
        con.execute(stmt)


def _capture_plans_v6(con: Any) -> None:
    for stmt in TABLE["capture_plans"].create_statements():
        con.execute(stmt)


def _whole_disk_gaps_v7(con: Any) -> None:
    from app.series_sums import name_gaps, store_sums
    from parsers.kinds import DEVICE_RATES, has

    for run_id, kind in con.execute("SELECT run_id, kind FROM runs ORDER BY run_id").fetchall():
        if has(kind, DEVICE_RATES):
            name_gaps(con, run_id)
            store_sums(con, run_id)


STEPS: list[Step] = [
    Step(2, "every table exists from the start: report_templates (before: made when a template was first "
            "saved), and the tables later releases added to a workspace an older release made", _every_table_of_v2),
    Step(3, "iostat_samples gets the columns of perfmon and esxtop samples: layer, vm, davg_ms, kavg_ms, qavg_ms, "
            "failed_s", _sample_extras_v3),
    Step(4, "the per-report sums of each run's default series are stored (series_devices, series_sums), so that "
            "the overlay of a large run reads one row per report", _series_sums_v4),
    Step(5, "clock_offsets: a run's clock put right against the other runs' (estimated from their activity or set "
            "by hand)", _clock_offsets_v5),
    Step(6, "capture_plans: the capture plan the customer follows, which imported runs are checked against",
         _capture_plans_v6),
    Step(7, "whole-disk figures: a report where a disk is missing in the middle of the run is a gap (missing, "
            "not a smaller sum, not 0 IOPS): the stored sums are computed again and each run names its gaps in a "
            "warning", _whole_disk_gaps_v7),
]


def _tables(con: Any) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}


def _version(con: Any, key: str) -> int | None:
    """A version number of ``workspace_info`` (None when the row is not there); a value that is not one -- 'four',
    '4.0', NULL -- is :class:`~app.safe_open.WorkspaceDamaged`, naming the row."""
    if "workspace_info" not in _tables(con):
        return None
    rows = con.execute("SELECT value FROM workspace_info WHERE key = ?", [key]).fetchall()
    if not rows:
        return None
    value = rows[0][0]
    if not isinstance(value, str) or not value.isascii() or not value.isdigit() or len(value) > 6:
        db = con.execute("SELECT current_database()").fetchall()[0][0]
        path = con.execute("SELECT path FROM system.main.duckdb_databases() WHERE database_name = ?",
                           [db]).fetchall()[0][0]
        raise WorkspaceDamaged(path or db, "workspace_info", f"the row {key}", "value", value,
                               "not a version number")
    return int(value)


def stored_version(con: Any) -> int | None:
    """The workspace's ``schema_version``; None for a file without one (empty, or not a workspace yet)."""
    return _version(con, "schema_version")


def stored_compatible_from(con: Any) -> int | None:
    """The workspace's ``read_compatible_from`` (the oldest schema version that reads it correctly); None when it
    has none (written by a StormScope before this number existed: only its own schema version reads it)."""
    return _version(con, "read_compatible_from")


def check_readable(con: Any, path: str | Path) -> int | None:
    """Raise :class:`WorkspaceTooNew` when this StormScope cannot read the workspace; return its version. A newer
    workspace whose ``read_compatible_from`` this version reaches is readable (read-only: see :func:`migrate`)."""
    found = stored_version(con)
    if found is not None and found > SCHEMA_VERSION:
        compatible_from = stored_compatible_from(con)
        if compatible_from is None or compatible_from > SCHEMA_VERSION:
            raise WorkspaceTooNew(path, found)
    return found


def shadow_missing_columns(con: Any) -> list[str]:
    """On a read-only open of an older workspace: a TEMP view per stored table that lacks columns of the spec,
    with those columns as NULL (what a migration would add), so that readers query one schema. DuckDB resolves
    a name to the temp view first; nothing is written to the file. The tables shadowed."""
    db = con.execute("SELECT current_database()").fetchone()[0]
    have: dict[str, set[str]] = {}
    for table, column in con.execute("SELECT table_name, column_name FROM information_schema.columns "
                                     "WHERE table_catalog = ? AND table_schema = 'main'", [db]).fetchall():
        have.setdefault(table, set()).add(column)
    shadowed = []
    for table, cols in have.items():
        spec = TABLE.get(table)
        if spec is None or set(spec.column_names) <= cols:
            continue
        select = ", ".join(c.name if c.name in cols else f"NULL::{c.sql} AS {c.name}" for c in spec.columns)
        con.execute(f'CREATE TEMP VIEW {table} AS SELECT {select} FROM "{db}".main.{table}')
        shadowed.append(table)
    return shadowed


def _set_version(con: Any, version: int) -> None:
    """The schema version, and the oldest that reads it correctly: a step's own version until the last, whose
    number is this release's :data:`READ_COMPATIBLE_FROM`."""
    con.execute("INSERT OR REPLACE INTO workspace_info VALUES ('schema_version', ?)", [str(version)])
    compatible_from = READ_COMPATIBLE_FROM if version == SCHEMA_VERSION else version
    con.execute("INSERT OR REPLACE INTO workspace_info VALUES ('read_compatible_from', ?)", [str(compatible_from)])


def migrate(con: Any, path: str | Path) -> list[int]:
    """Bring the workspace on ``con`` (writable) to :data:`SCHEMA_VERSION`; the versions it went through.

    Raises :class:`WorkspaceTooNew`, before writing anything, for a workspace of a newer StormScope.
    """
    found = check_readable(con, path)
    if found is not None and found > SCHEMA_VERSION:  # readable (check_readable), never to be written here
        raise WorkspaceReadOnly(path, found, stored_compatible_from(con) or found)
    if found == SCHEMA_VERSION:
        if stored_compatible_from(con) is None:  # made before the number existed: say who reads it
            _in_transaction(con, lambda: None, SCHEMA_VERSION)
        return []
    if found is None and not _tables(con):  # a new workspace: the whole spec at once
        from parsers.schema import create_statements

        _in_transaction(con, lambda: [con.execute(s) for s in create_statements()], SCHEMA_VERSION)
        return []
    done = []
    for step in STEPS:  # a file without a version holds tables of a release before any version: 1
        if step.to_version > (found or 1):
            _in_transaction(con, partial(step.run, con), step.to_version)
            done.append(step.to_version)
    return done


def _in_transaction(con: Any, work: Callable[[], Any], version: int) -> None:
    con.execute("BEGIN TRANSACTION")
    try:
        work()
        if "workspace_info" not in _tables(con):
            con.execute(TABLE["workspace_info"].create_statements()[0])
        _set_version(con, version)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
