"""A workspace's values checked on open, like its objects are (no Qt).

A workspace may come from someone else, and its values reach code that trusts them: a run whose kind is NULL, an
interval that is NaN ("cannot convert float NaN to integer" in every view), a column altered to another type (a
TIMESTAMPTZ ``started_at`` needs a time-zone package to be read at all), a 20 MB question title. :func:`check`
reads the small tables StormScope fills from what the user says (runs, phases, markers, questions) and the
types of every column of the schema, and raises :class:`~app.safe_open.WorkspaceDamaged` naming the table, the
row and the column of the first value StormScope never stores -- never a traceback later, in a command or a
window that does not start. The sample tables are checked by their types and by the import that wrote them.
"""

from __future__ import annotations

import os
from typing import Any

from app.safe_open import WorkspaceDamaged
from parsers.schema import TABLE, TABLES

MAX_TEXT = 100_000  # characters of a name, a title or a note the user typed (a 20 MB title stalled the report)
MAX_INTERVAL_S = 7 * 86400.0  # a week between reports: no capture tool samples more slowly


def check(con: Any, path: str | os.PathLike) -> None:
    """Raise :class:`WorkspaceDamaged` for the first value of the workspace on ``con`` StormScope never stores."""
    db = con.execute("SELECT current_database()").fetchall()[0][0]
    have = _columns(con, db)
    _check_types(path, have)
    if "workspace_info" in have:
        bad = _first(con, "SELECT key, value FROM workspace_info WHERE key IN ('schema_version', "
                          "'read_compatible_from') AND (value IS NULL OR NOT regexp_full_match(value, '[0-9]{1,6}'))")
        if bad is not None:
            raise WorkspaceDamaged(path, "workspace_info", f"the row {bad[0]}", "value", bad[1],
                                   "not a version number")
    if "runs" in have:
        _check_runs(con, path, have["runs"])
    for table, columns in (("phases", ("t_start_s", "t_end_s")), ("markers", ("t_s",)),
                           ("clock_offsets", ("offset_s",))):
        if table in have:
            _check_finite(con, path, table, [c for c in columns if c in have[table]])
    if "questions" in have:
        _check_questions(con, path, have["questions"])


def _columns(con: Any, db: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for table, column, sql in con.execute(
            "SELECT table_name, column_name, data_type FROM system.main.duckdb_columns() "
            "WHERE database_name = ? AND schema_name = 'main'", [db]).fetchall():
        out.setdefault(table, {})[column] = sql
    return out


def _check_types(path: str | os.PathLike, have: dict[str, dict[str, str]]) -> None:
    """Every column the schema declares has the schema's type (a migration adds columns with it)."""
    for spec in TABLES:
        for c in spec.columns:
            found = have.get(spec.name, {}).get(c.name)
            if found is not None and found != c.sql:
                raise WorkspaceDamaged(path, spec.name, "every row", c.name, found,
                                       f"a column of type {found}, where StormScope stores {c.sql}")


def _first(con: Any, sql: str, params: list[Any] | None = None) -> tuple[Any, ...] | None:
    rows = con.execute(sql + " LIMIT 1", params or []).fetchall()
    return rows[0] if rows else None


def _check_runs(con: Any, path: str | os.PathLike, cols: dict[str, str]) -> None:
    from parsers.kinds import kinds

    if "run_id" not in cols:  # not StormScope's runs table: the schema check that follows says what it is
        return
    required = [c.name for c in TABLE["runs"].columns if (c.not_null or c.key) and c.name in cols]
    for name in required:
        bad = _first(con, f'SELECT run_id FROM runs WHERE "{name}" IS NULL')
        if bad is not None:
            raise WorkspaceDamaged(path, "runs", f"run {bad[0]}", name, None, "an empty value where one is needed")
    # the kinds are known once every format module is loaded: asked only of a workspace that holds runs (a new one
    # opens without loading them, tests/ui/test_desktop.py)
    has_runs = "kind" in cols and _first(con, "SELECT 1 FROM runs") is not None
    bad = _first(con, "SELECT run_id, kind FROM runs WHERE NOT list_contains(?::VARCHAR[], kind) ORDER BY run_id",
                 [sorted(k.id for k in kinds())]) if has_runs else None
    if bad is not None:
        raise WorkspaceDamaged(path, "runs", f"run {bad[0]}", "kind", bad[1], "not a kind of run StormScope reads")
    if "interval_s" in cols:
        bad = _first(con, "SELECT run_id, interval_s FROM runs WHERE interval_s IS NOT NULL AND (isnan(interval_s) OR "
                          f"NOT isfinite(interval_s) OR interval_s <= 0 OR interval_s > {MAX_INTERVAL_S}) "
                          "ORDER BY run_id")
        if bad is not None:
            raise WorkspaceDamaged(path, "runs", f"run {bad[0]}", "interval_s", bad[1],
                                   "not a number of seconds between reports")
    for name in ("n_samples", "n_devices", "n_rows"):
        if name in cols:
            bad = _first(con, f'SELECT run_id, "{name}" FROM runs WHERE "{name}" < 0 ORDER BY run_id')
            if bad is not None:
                raise WorkspaceDamaged(path, "runs", f"run {bad[0]}", name, bad[1], "a negative count")
    for name in ("name", "host"):
        if name in cols:
            bad = _first(con, f'SELECT run_id, "{name}" FROM runs WHERE length("{name}") > {MAX_TEXT} ORDER BY run_id')
            if bad is not None:
                raise WorkspaceDamaged(path, "runs", f"run {bad[0]}", name, bad[1],
                                       f"a text longer than {MAX_TEXT:,} characters")


def _check_finite(con: Any, path: str | os.PathLike, table: str, columns: list[str]) -> None:
    for name in columns:
        label = "name" if table != "clock_offsets" else "NULL"  # an offset has no name: one per run
        bad = _first(con, f'SELECT run_id, {label}, "{name}" FROM {table} WHERE "{name}" IS NULL OR isnan("{name}") '
                          f'OR NOT isfinite("{name}")')
        if bad is not None:
            row = f"the row of run {bad[0]}" + (f" named {bad[1]!r}" if bad[1] is not None else "")
            raise WorkspaceDamaged(path, table, row, name, bad[2], "not a number of seconds")


def _check_questions(con: Any, path: str | os.PathLike, cols: dict[str, str]) -> None:
    """The questions' stored shape: a kind written as StormScope writes kinds, a title of sensible length, a
    position and a run number that are numbers. What each kind's parameters mean is checked where questions are
    read (app.analysis.question_kinds), with the same words."""
    for name in [c.name for c in TABLE["questions"].columns if (c.not_null or c.key) and c.name in cols]:
        bad = _first(con, f'SELECT question_id FROM questions WHERE "{name}" IS NULL')
        if bad is not None:
            raise WorkspaceDamaged(path, "questions", f"question {bad[0]}", name, None,
                                   "an empty value where one is needed")
    bad = _first(con, "SELECT question_id, kind FROM questions WHERE NOT regexp_full_match(kind, '[a-z_]{1,40}') "
                      "ORDER BY question_id")
    if bad is not None:
        raise WorkspaceDamaged(path, "questions", f"question {bad[0]}", "kind", bad[1],
                               "not a kind of question StormScope asks")
    if "title" in cols:
        bad = _first(con, f"SELECT question_id, title FROM questions WHERE length(title) > {MAX_TEXT} "
                          "ORDER BY question_id")
        if bad is not None:
            raise WorkspaceDamaged(path, "questions", f"question {bad[0]}", "title", bad[1],
                                   f"a text longer than {MAX_TEXT:,} characters")
