"""The safe-open policy: how StormScope opens a workspace file and runs SQL it did not write (no Qt here).

A workspace may come from someone else. Every DuckDB connection StormScope makes goes through :func:`connect`:

* extensions are never installed or loaded on demand (``autoinstall_known_extensions`` and
  ``autoload_known_extensions`` off, at connect time: nothing of the file runs before);
* then ``enable_external_access`` is switched off -- no file but the workspace itself (and DuckDB's own
  temporary spill files), no other database, no network -- except the directories an operation names
  (``allowed_directories``: the workspace's import staging folder, where an export is written before it is
  moved to the place the user chose); DuckDB cannot switch it back on while the database is open;
* then the configuration is locked (``lock_configuration``): no ``SET`` changes any of it afterwards. Settings an
  operation needs (the import's memory limit) are given to :func:`connect` and set before the lock.

DuckDB accepts ``allowed_directories`` only once the database has started, so these are ``SET`` right after the
connect, before any query touches the file's objects.

Then :func:`check_objects` compares the workspace's own catalog with the schema spec (``parsers/schema.py``):
a view, a macro, another schema, a sequence or a type StormScope never creates, or a column computed or defaulted
by an expression the spec does not give, could make StormScope read local files into a report or change its
numbers (a macro named ``abs`` shadows the built-in). Such a workspace is **refused**
(:class:`WorkspaceRefused`), not opened "as data only": hiding the objects would mean rewriting the file's
catalog (a received file must not change) or qualifying every query StormScope and its users write, and a
file StormScope wrote never has them -- it was made or altered by another program.

SQL StormScope did not write (the window's SQL tab, ``main.py sql``, computed-column expressions stored in the
workspace) goes through :func:`check_query` / :func:`check_expression`: exactly one read-only SELECT (or one
expression), nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb

from parsers.schema import TABLE, TABLES

# given at connect time: nothing in the file can make DuckDB fetch or load an extension
CONNECT_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False, "autoload_known_extensions": False}


class WorkspaceRefused(Exception):
    """The workspace holds objects StormScope never creates; ``str()`` says so in the customer's words (the window
    shows it in a message box, the command line prints it). ``found`` lists them ("a view named runs")."""

    def __init__(self, path: str | os.PathLike, found: list[str]):
        self.path = Path(path)
        self.found = found
        shown = "; ".join(found[:6]) + (f"; and {len(found) - 6} more" if len(found) > 6 else "")
        super().__init__(
            f"This workspace was not opened: it contains things StormScope never puts in a workspace ({shown}). "
            "They could make StormScope read other files on this computer or change the numbers it shows, so the "
            "file was left untouched. Ask whoever sent it for the original trace files and import those.")


def connect(path: str | os.PathLike, read_only: bool, allowed_dirs: Iterable[str | os.PathLike] = (),
            settings: Mapping[str, str | bool | int] | None = None, check: bool = True) -> Any:
    """A DuckDB connection to the workspace ``path`` under the policy (module doc). ``allowed_dirs``: the only
    directories queries may read or write; ``settings``: set before the configuration is locked; ``check``: refuse
    a workspace with objects StormScope never creates (:func:`check_objects`, :class:`WorkspaceRefused`).

    A second connection of this process to a file it has open shares DuckDB's database (its locked configuration,
    and its catalog, checked by the first connection and changed since only by this process): it is checked to be
    locked down, nothing more is set or checked. Checking costs ~0.1-0.2 s (DuckDB lists every built-in function
    to find the workspace's own), which the window's workers opening the workspace again need not pay."""
    con = duckdb.connect(str(path), read_only=read_only, config=CONNECT_CONFIG)
    try:
        fresh = _lock_down(con, [str(d) for d in allowed_dirs], dict(settings or {}))
        if fresh and check:
            check_objects(con, path)
    except BaseException:
        con.close()
        raise
    return con


def _setting(con: Any, name: str) -> Any:
    return con.execute("SELECT value FROM system.main.duckdb_settings() WHERE name = ?", [name]).fetchall()[0][0]


def _lock_down(con: Any, allowed_dirs: list[str], settings: dict[str, str | bool | int]) -> bool:
    """Lock the database down; False when this process had done so already (a second connection)."""
    if _setting(con, "lock_configuration") == "true":  # this process opened the file before: already done
        if _setting(con, "enable_external_access") != "false":
            raise RuntimeError("a connection to this workspace was opened without StormScope's safe-open policy")
        return False
    for name, value in settings.items():
        con.execute(f"SET {name} = ?", [value])
    if allowed_dirs:
        con.execute("SET allowed_directories = ?", [[d.rstrip("/") + "/" for d in allowed_dirs]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return True


# ---- the workspace's own objects ---------------------------------------------------------------------------------
def _catalog(con: Any, db: str, function: str, name: str, extra: str = "") -> list[tuple[str, str]]:
    """(schema, name) of the non-internal objects of the database ``db`` listed by DuckDB's ``function``: called
    qualified (``system.main``), so that a macro of the same name in the workspace is not what answers."""
    return [(s, n) for s, n in con.execute(
        f"SELECT schema_name, {name} FROM system.main.{function}() WHERE database_name = ? AND NOT internal{extra}",
        [db]).fetchall()]


def _spec_default(table: str, column: str) -> str | None:
    """The column's default in the spec, as DuckDB renders it (the spec writes them that way:
    ``nextval('run_id_seq')``, ``false``, ``'manual'``); None for a column the spec does not declare."""
    spec = TABLE.get(table)
    return spec.column(column).default if spec is not None and column in spec.column_names else None


def unexpected_objects(con: Any) -> list[str]:
    """What in the workspace on ``con`` StormScope never creates, in words ("a view named runs"); [] when none."""
    db = con.execute("SELECT current_database()").fetchall()[0][0]
    found = [f"a function (macro) named {n}" for _s, n in _catalog(con, db, "duckdb_functions", "function_name")]
    found += [f"a view named {n}" for _s, n in _catalog(con, db, "duckdb_views", "view_name")]
    found += [f"a schema named {s}" for s, _n in _catalog(con, db, "duckdb_schemas", "schema_name")
              if s != "main"]
    sequences = {s for t in TABLES for s in t.sequences}
    found += [f"a sequence named {n}" for s, n in con.execute(
        "SELECT schema_name, sequence_name FROM system.main.duckdb_sequences() WHERE database_name = ?",
        [db]).fetchall() if s != "main" or n not in sequences]
    found += [f"a data type named {n}" for _s, n in _catalog(con, db, "duckdb_types", "type_name")]
    for table, column, default, generated in con.execute(
            "SELECT table_name, column_name, column_default, is_generated FROM system.main.duckdb_columns() "
            "WHERE database_name = ? AND schema_name = 'main'", [db]).fetchall():
        if generated:
            found.append(f"a computed column {column} in table {table}")
        elif default is not None and default != _spec_default(table, column):
            found.append(f"a default value computed by an expression for column {column} of table {table}")
    return found + _bad_computed_columns(con, db)


def _bad_computed_columns(con: Any, db: str) -> list[str]:
    """Stored computed-column definitions that are not one expression (the grid would paste them into a query)."""
    if not con.execute("SELECT count(*) FROM system.main.duckdb_tables() WHERE database_name = ? AND "
                       "schema_name = 'main' AND table_name = 'computed_columns'", [db]).fetchall()[0][0]:
        return []
    out = []
    for name, expression in con.execute(f'SELECT name, expression FROM "{db}".main.computed_columns').fetchall():
        try:
            check_expression(str(expression))
        except (SQLRefused, duckdb.Error):
            out.append(f"a computed column {name} whose definition is not one expression")
    return out


def check_objects(con: Any, path: str | os.PathLike) -> None:
    """Raise :class:`WorkspaceRefused` when the workspace holds objects StormScope never creates."""
    found = unexpected_objects(con)
    if found:
        raise WorkspaceRefused(path, found)


# ---- SQL StormScope did not write ------------------------------------------------------------------------------
READ_ONLY = "Only a SELECT query can be run here: the SQL reads the workspace and changes nothing."
ONE_STATEMENT = "One query at a time: remove the other statements (or the ';' between them)."
EMPTY = "Type a SELECT query."
NO_FILES = ("A query reads only this workspace: other files, databases and the network cannot be reached from "
            "StormScope's SQL.")


class SQLRefused(Exception):
    """SQL StormScope did not write is not one read-only query (or one expression): the message says why, in the
    window's words (no code identifiers); ``reason`` is one of "empty", "read_only", "one_statement",
    "no_files", "expression" (for callers with their own words)."""

    def __init__(self, message: str, reason: str = "expression"):
        super().__init__(message)
        self.reason = reason


def check_query(con: Any, sql: str) -> None:
    """Raise :class:`SQLRefused` unless ``sql`` is exactly one read-only query (SELECT, WITH … SELECT, FROM …,
    VALUES, DESCRIBE/SHOW/SUMMARIZE); ``COPY``, ``EXPORT``, ``ATTACH``, ``INSTALL``, ``LOAD``, ``SET``,
    ``PRAGMA``, ``CALL`` and several statements are refused. Statements are counted and typed by DuckDB's own
    parser (``extract_statements``); a statement that does not parse raises DuckDB's error."""
    statements = con.extract_statements(sql)
    if not statements:
        raise SQLRefused(EMPTY, "empty")
    if any(st.type != duckdb.StatementType.SELECT for st in statements):
        raise SQLRefused(READ_ONLY, "read_only")
    if len(statements) > 1:
        raise SQLRefused(ONE_STATEMENT, "one_statement")


def run_query(con: Any, sql: str) -> Any:
    """Execute ``sql`` after :func:`check_query`; the cursor. A query that reaches for a file (``read_csv``,
    ``read_text``, …) is refused by the connection's policy, and said so as :class:`SQLRefused`."""
    check_query(con, sql)
    try:
        return con.execute(sql)
    except duckdb.PermissionException:
        raise SQLRefused(NO_FILES, "no_files") from None


def check_expression(expression: str) -> None:
    """Raise :class:`SQLRefused` unless ``expression`` is one SQL expression that can be placed as ``(expression)``
    inside a query without changing anything around it: its parentheses balance (outside strings, quoted names and
    comments, as DuckDB's tokenizer sees them), no ';', no comment, and ``SELECT (expression)`` parses as one
    SELECT statement."""
    text = expression.strip()
    if not text:
        raise SQLRefused("Type an expression, for example r_s + w_s.")
    tokens = duckdb.tokenize(text)
    depth = 0
    for i, (pos, kind) in enumerate(tokens):
        end = tokens[i + 1][0] if i + 1 < len(tokens) else len(text)
        piece = text[pos:end]
        if kind == duckdb.token_type.comment:
            raise SQLRefused("A computed column is one expression: remove the comment.")
        if kind != duckdb.token_type.operator:
            continue
        for ch in piece:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth < 0 or ch == ";":
                raise SQLRefused("A computed column is one expression over the table's columns, such as r_s + w_s.")
    if depth != 0:
        raise SQLRefused("The expression's parentheses do not balance.")
    statements = duckdb.extract_statements(f"SELECT ({text})")
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        raise SQLRefused("A computed column is one expression over the table's columns, such as r_s + w_s.")
