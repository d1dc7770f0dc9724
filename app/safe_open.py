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
workspace) goes through :func:`check_query` / :func:`check_expression`: exactly one SELECT (or one expression) whose
parse tree only reads -- no data-modifying CTE (``WITH x AS (DELETE …) SELECT …`` is a SELECT statement), no
``nextval``, no table function that writes (``checkpoint()`` rewrites the file) -- and it then runs inside
:func:`read_only_transaction`, where DuckDB itself refuses any write to the workspace, binding included. The text
check alone is not the guard: the window's connection can write, so the transaction is.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
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


class WorkspaceUnreadable(WorkspaceRefused):
    """The file is not a workspace StormScope can read -- empty, text, an SQLite database, a DuckDB file cut short
    or damaged -- and ``str()`` says which, in one sentence; the file is left untouched. A
    :class:`WorkspaceRefused`, so every front end says it the same way."""

    def __init__(self, path: str | os.PathLike, what: str):
        Exception.__init__(self, f"This is not a workspace StormScope can open: {what}. The file was left "
                                 "untouched.")
        self.path = Path(path)
        self.found = [what]


class WorkspaceDamaged(WorkspaceRefused):
    """A value in the workspace that StormScope never stores there (a version 'four', a run without a kind, a NaN
    interval, a column of another type): ``str()`` names the table, the row and the column, in one sentence; the
    file is left untouched. A :class:`WorkspaceRefused`, so every front end says it the same way."""

    def __init__(self, path: str | os.PathLike, table: str, row: str, column: str, value: Any, why: str,
                 opened: bool = False):
        shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:40] + "…")
        what = f"table {table}, {row}, column {column} holds {shown}: {why}"
        Exception.__init__(self, f"This workspace {'cannot be used' if opened else 'was not opened'}: {what}, which "
                                 "StormScope never stores. The file was left untouched; ask whoever sent it for the "
                                 "original trace files and import those.")
        self.path = Path(path)
        self.found = [what]


# the first bytes of files people give for a workspace by mistake
_NOT_DUCKDB = [(b"SQLite format 3\x00", "it is an SQLite database"), (b"PK\x03\x04", "it is a zip archive"),
               (b"%PDF", "it is a PDF document"), (b"\x1f\x8b", "it is a gzip archive"),
               (b"PAR1", "it is a Parquet file")]
DUCKDB_HEADER = 3 * 4096  # a DuckDB file starts with three 4 KB header blocks


def identify(path: str | os.PathLike) -> None:
    """Raise :class:`WorkspaceUnreadable` when the existing file ``path`` is not a DuckDB database, by its first
    bytes (DuckDB's magic ``DUCK`` at offset 8), before DuckDB opens it: DuckDB's own words name no cause, and
    for an SQLite file it goes looking for an extension to read it."""
    with open(path, "rb") as fh:
        head = fh.read(DUCKDB_HEADER)
    if not head:
        raise WorkspaceUnreadable(path, "it is empty (0 bytes)")
    if head[8:12] == b"DUCK":
        if len(head) < DUCKDB_HEADER:
            raise WorkspaceUnreadable(path, f"it is a DuckDB file cut short ({len(head):,} bytes)")
        return
    what = next((w for magic, w in _NOT_DUCKDB if head.startswith(magic)), None)
    if what is None:
        text = head.replace(b"\r", b"").replace(b"\n", b"").replace(b"\t", b"")
        printable = sum(32 <= b < 127 for b in text) / max(len(text), 1)
        what = "it is a text file" if printable > 0.9 else "it is not a DuckDB database (its bytes are not one)"
    raise WorkspaceUnreadable(path, what)


def _damaged(path: str | os.PathLike, e: BaseException) -> WorkspaceUnreadable | None:
    """DuckDB failing to read a file that starts like a DuckDB database: cut short or damaged. None for the
    errors that are about access (a lock, a permission, a read-only disk), said elsewhere."""
    text = str(e)
    if isinstance(e, (duckdb.SerializationException, duckdb.InternalException)) or any(w in text for w in (
            "Could not read enough bytes", "not a valid DuckDB database", "checksum", "Corrupt", "corrupt")):
        first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
        return WorkspaceUnreadable(path, f"it is a DuckDB file that is damaged or cut short (DuckDB: {first})")
    return None


def connect(path: str | os.PathLike, read_only: bool, allowed_dirs: Iterable[str | os.PathLike] = (),
            settings: Mapping[str, str | bool | int] | None = None, check: bool = True) -> Any:
    """A DuckDB connection to the workspace ``path`` under the policy (module doc). ``allowed_dirs``: the only
    directories queries may read or write; ``settings``: set before the configuration is locked; ``check``: refuse
    a workspace with objects StormScope never creates (:func:`check_objects`, :class:`WorkspaceRefused`).

    A second connection of this process to a file it has open shares DuckDB's database (its locked configuration,
    and its catalog, checked by the first connection and changed since only by this process): it is checked to be
    locked down, nothing more is set or checked. Checking costs ~0.1-0.2 s (DuckDB lists every built-in function
    to find the workspace's own), which the window's workers opening the workspace again need not pay."""
    on_disk = str(path) != ":memory:" and os.path.exists(path)
    if on_disk and check:
        identify(path)
        if not read_only and os.path.exists(f"{path}.wal"):
            _check_before_writing(path)
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=CONNECT_CONFIG)
    except duckdb.Error as e:
        damaged = _damaged(path, e) if on_disk else None
        if damaged is not None:
            raise damaged from None
        raise
    try:
        fresh = _lock_down(con, [str(d) for d in allowed_dirs], dict(settings or {}))
        if fresh and check and on_disk:  # a file this open created holds nothing anybody else wrote
            check_objects(con, path)
            _check_whole(con, path)
    except duckdb.Error as e:
        con.close()
        damaged = _damaged(path, e) if on_disk else None
        if damaged is not None:
            raise damaged from None
        raise
    except BaseException:
        con.close()
        raise
    return con


def _check_whole(con: Any, path: str | os.PathLike) -> None:
    """A file shorter than the blocks its own header counts was cut short (a copy or a download that stopped):
    the first query reaching a missing block fails, wherever that is. Said once, at open."""
    row = con.execute("SELECT block_size, used_blocks FROM system.main.pragma_database_size() "
                      "WHERE database_name = current_database()").fetchall()
    if not row:
        return
    # the blocks in use, not all it counts: a checkpoint truncates free blocks at the end of the file and still
    # counts them (a workspace of 14 used and 2 free blocks is 3,682,304 bytes, not the 4,206,592 of 16 blocks)
    block, blocks = row[0]
    need, have = DUCKDB_HEADER + int(block) * int(blocks), os.path.getsize(path)
    if have < need:
        raise WorkspaceUnreadable(path, f"it is a DuckDB file cut short ({have:,} of its {need:,} bytes)")


def _check_before_writing(path: str | os.PathLike) -> None:
    """A workspace with a write-ahead log beside it (``ws.duckdb.wal``: a received pair, or a crash) is checked
    read-only first: a writable open replays the log and checkpoints it into the file, and a log holding a macro
    was written into the received file before the check refused it. A read-only open replays it in memory only.
    Skipped when this process has the file open already (DuckDB refuses a second configuration: checked then) or
    another process holds it (the writable open says who)."""
    try:
        con = duckdb.connect(str(path), read_only=True, config=CONNECT_CONFIG)
    except duckdb.ConnectionException:  # open in this process, writable: checked when it was opened
        return
    except duckdb.IOException as e:
        damaged = _damaged(path, e)
        if damaged is not None:
            raise damaged from None
        return  # locked by another process, or not readable: the writable open says so
    try:
        _lock_down(con, [], {})
        check_objects(con, path)
    finally:
        con.close()


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
    if "memory_limit" in settings and "max_temp_directory_size" not in settings:
        # what does not fit spills to the temporary folder, by default up to 90 % of the disk: as much again there,
        # so that a query past the limit stops with DuckDB's out-of-memory error instead of filling the disk
        con.execute("SET max_temp_directory_size = ?", [_setting(con, "memory_limit")])
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
    # expressions the sender wrote that DuckDB runs on every insert or update (StormScope never makes one), and
    # foreign keys that make a run impossible to delete
    found += [f"a {'check constraint' if kind == 'CHECK' else 'foreign key'} on table {t}" for t, kind in con.execute(
        "SELECT table_name, constraint_type FROM system.main.duckdb_constraints() WHERE database_name = ? AND "
        "constraint_type IN ('CHECK', 'FOREIGN KEY') ORDER BY table_name", [db]).fetchall()]
    found += [f"an index named {n} on table {t}" for n, t in con.execute(
        "SELECT index_name, table_name FROM system.main.duckdb_indexes() WHERE database_name = ? ORDER BY 1",
        [db]).fetchall()]
    found += [f"a data type named {n}" for _s, n in _catalog(con, db, "duckdb_types", "type_name")]
    for table, column, default, generated in con.execute(
            "SELECT table_name, column_name, column_default, is_generated FROM system.main.duckdb_columns() "
            "WHERE database_name = ? AND schema_name = 'main'", [db]).fetchall():
        if generated:
            found.append(f"a computed column {column} in table {table}")
        elif default is not None and default != _spec_default(table, column):
            found.append(f"a default value computed by an expression for column {column} of table {table}")
    found += _bad_computed_columns(con, db)
    # last: reading the numbers already used runs a query on the file's tables, safe only once nothing else is there
    return found + _bad_sequences(con, db, read_keys=not found)


def _bad_computed_columns(con: Any, db: str) -> list[str]:
    """Stored computed-column definitions that are not one expression (the grid would paste them into a query)."""
    if not con.execute("SELECT count(*) FROM system.main.duckdb_tables() WHERE database_name = ? AND "
                       "schema_name = 'main' AND table_name = 'computed_columns'", [db]).fetchall()[0][0]:
        return []
    out = []
    for name, expression in con.execute(f'SELECT name, expression FROM "{db}".main.computed_columns').fetchall():
        try:
            check_expression(str(expression))
        except SQLRefused as e:
            out.append(f"a computed column {name} that could change the workspace or read a file"
                       if e.reason in ("read_only", "no_files") else
                       f"a computed column {name} whose definition is not one expression")
        except duckdb.Error:
            out.append(f"a computed column {name} whose definition is not one expression")
    return out


# the run and question numbers' sequences as StormScope creates them (parsers.schema: START 1, increment 1, no
# cycle); a number past SEQUENCE_CEILING is no workspace's own (a billion runs), and would overflow the INTEGER key
SEQUENCE_CEILING = 2**30


def _bad_sequences(con: Any, db: str, read_keys: bool) -> list[str]:
    """Sequences StormScope never creates, or its own changed by another program: counting backwards or in steps,
    cycling, bounded, near the key's overflow, or (``read_keys``) behind the numbers already used (every import
    would fail)."""
    ours = {s: t for t in TABLES for s in t.sequences}
    found = []
    for schema, name, start, low, high, step, cycle, last in con.execute(
            "SELECT schema_name, sequence_name, start_value, min_value, max_value, increment_by, cycle, last_value "
            "FROM system.main.duckdb_sequences() WHERE database_name = ?", [db]).fetchall():
        if schema != "main" or name not in ours:
            found.append(f"a sequence named {name}")
            continue
        used = _max_key(con, db, ours[name]) if read_keys else None
        following = start if last is None else last + step  # DuckDB stores the next value as start on checkpoint
        if ((low, high, step, cycle) != (1, 2**63 - 1, 1, False) or following > SEQUENCE_CEILING
                or (used is not None and following <= used)):
            found.append(f"a sequence {name} changed by another program")
    return found


def _max_key(con: Any, db: str, table: Any) -> int | None:
    """The highest number the table's first key column holds (None: no such base table or column, or no rows).
    Sorted, not ``max()``: no function of the file's catalog is called."""
    key = table.key[0] if table.key else None
    if key is None or not con.execute(
            "SELECT count(*) FROM system.main.duckdb_columns() c JOIN system.main.duckdb_tables() t USING "
            "(database_name, schema_name, table_name) WHERE database_name = ? AND schema_name = 'main' AND "
            "table_name = ? AND column_name = ?", [db, table.name, key]).fetchall()[0][0]:
        return None
    rows = con.execute(f'SELECT "{key}" FROM "{db}".main."{table.name}" WHERE "{key}" IS NOT NULL '
                       f'ORDER BY "{key}" DESC LIMIT 1').fetchall()
    return int(rows[0][0]) if rows and isinstance(rows[0][0], int) else None


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

# What a query StormScope did not write may contain, by DuckDB's own parse of it (json_serialize_sql):
# query nodes that read (a data-modifying CTE is a DELETE/UPDATE/INSERT node inside a SELECT statement) ...
READING_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"})
# ... and table functions that only read the workspace or compute values. Every other table function is refused,
# a future DuckDB's too: checkpoint() writes the file even inside a read-only transaction, enable_logging() and
# the like change the database's state, query() and json_execute_serialized_sql() run SQL text no check has seen.
READING_TABLE_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree", "summary",
    "query_table", "icu_calendar_names", "pg_timezone_names",
    "duckdb_columns", "duckdb_constraints", "duckdb_databases", "duckdb_dependencies", "duckdb_functions",
    "duckdb_indexes", "duckdb_keywords", "duckdb_schemas", "duckdb_sequences", "duckdb_settings", "duckdb_tables",
    "duckdb_types", "duckdb_views", "pragma_table_info", "pragma_show", "pragma_version", "pragma_platform",
    "pragma_database_size", "pragma_storage_info", "pragma_metadata_info", "pragma_collations"})
# table functions that read files (refused by the connection's policy anyway): said in those words
_FILE_FUNCTION = re.compile(r"read_\w+|parquet_\w+|glob|sniff_csv|\w+_scan|seq_scan")
# scalar functions that write the workspace (a sequence's next value)
WRITING_FUNCTIONS = frozenset({"nextval", "setval"})


class SQLRefused(Exception):
    """SQL StormScope did not write is not one read-only query (or one expression): the message says why, in the
    window's words (no code identifiers); ``reason`` is one of "empty", "read_only", "one_statement",
    "no_files", "expression" (for callers with their own words)."""

    def __init__(self, message: str, reason: str = "expression"):
        super().__init__(message)
        self.reason = reason


_PARSER: Any = None
_PARSER_LOCK = threading.Lock()


def _parser() -> Any:
    """A cursor of a private in-memory DuckDB under the same policy, for parsing SQL into its tree (DuckDB's
    ``json_serialize_sql`` parses, it never binds or runs)."""
    global _PARSER
    with _PARSER_LOCK:
        if _PARSER is None:
            _PARSER = connect(":memory:", read_only=False, check=False)
        return _PARSER.cursor()


def _tree_refusal(node: Any) -> SQLRefused | None:
    """The first thing in DuckDB's parse tree of a SELECT statement that could change the workspace or reach a
    file, as a refusal; None when there is none."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if isinstance(kind, str) and kind.endswith("_NODE") and kind not in READING_NODES:
            return SQLRefused(READ_ONLY, "read_only")
        if kind == "TABLE_FUNCTION":
            name = str((item.get("function") or {}).get("function_name", "")).lower()
            if name not in READING_TABLE_FUNCTIONS:
                return (SQLRefused(NO_FILES, "no_files") if _FILE_FUNCTION.fullmatch(name)
                        else SQLRefused(READ_ONLY, "read_only"))
        if str(item.get("function_name", "")).lower() in WRITING_FUNCTIONS:
            return SQLRefused(READ_ONLY, "read_only")
        stack.extend(item.values())
    return None


def check_tree(sql: str) -> None:
    """Raise :class:`SQLRefused` when the SELECT statement ``sql`` holds anything but reading: a data-modifying
    CTE, a sequence's next value, a table function that is not a plain read (``READING_TABLE_FUNCTIONS``)."""
    cur = _parser()
    try:
        tree = json.loads(cur.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0])
    finally:
        cur.close()
    if tree.get("error"):  # DuckDB serialises SELECT statements only; anything else is not a plain query
        raise SQLRefused(READ_ONLY, "read_only")
    refusal = _tree_refusal(tree.get("statements"))
    if refusal is not None:
        raise refusal


def check_query(con: Any, sql: str) -> None:
    """Raise :class:`SQLRefused` unless ``sql`` is exactly one read-only query (SELECT, WITH … SELECT, FROM …,
    VALUES, DESCRIBE/SHOW/SUMMARIZE) whose parse tree only reads (:func:`check_tree`); ``COPY``, ``EXPORT``,
    ``ATTACH``, ``INSTALL``, ``LOAD``, ``SET``, ``PRAGMA``, ``CALL``, several statements, data-modifying CTEs,
    ``nextval`` and table functions that write are refused. Statements are counted and typed by DuckDB's own
    parser (``extract_statements``); a statement that does not parse raises DuckDB's error. The query must then
    run inside :func:`read_only_transaction`, where DuckDB itself refuses any write."""
    try:
        types = [st.type for st in con.extract_statements(sql)]
    except ValueError:  # a statement type this DuckDB's Python API has no name for ("UPDATE EXTENSIONS"): not a query
        raise SQLRefused(READ_ONLY, "read_only") from None
    if not types:
        raise SQLRefused(EMPTY, "empty")
    if any(t != duckdb.StatementType.SELECT for t in types):
        raise SQLRefused(READ_ONLY, "read_only")
    if len(types) > 1:
        raise SQLRefused(ONE_STATEMENT, "one_statement")
    check_tree(sql)


def refusal(error: BaseException) -> SQLRefused | None:
    """DuckDB's refusal of a query StormScope did not write, in the window's words: a file reached for (the
    connection's policy) or a write inside a read-only transaction; None for any other error."""
    if isinstance(error, duckdb.PermissionException):
        return SQLRefused(NO_FILES, "no_files")
    if isinstance(error, duckdb.TransactionException) and "read-only" in str(error):
        return SQLRefused(READ_ONLY, "read_only")
    return None


@contextmanager
def read_only_transaction(con: Any) -> Iterator[Any]:
    """A new cursor of ``con`` inside a read-only transaction (``BEGIN TRANSACTION READ ONLY``): DuckDB refuses any
    write to the workspace in it -- a data-modifying CTE, a sequence's next value -- at bind time, before anything
    runs. Every query StormScope did not write runs in one; the transaction is rolled back at the end."""
    cur = con.cursor()
    try:
        cur.execute("BEGIN TRANSACTION READ ONLY")
        yield cur
    except BaseException as e:
        _end(cur, e)
        raise
    else:
        _end(cur, None)
    finally:
        cur.close()


def _end(cur: Any, error: BaseException | None) -> None:
    """Roll the read-only transaction back; a failing rollback is added to ``error`` as a note, or raised when
    there is none (nothing was written either way)."""
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error as rb:
        if error is None:
            raise
        error.add_note(f"(the rollback that followed failed too: {rb})")


def run_query(con: Any, sql: str) -> Any:
    """Execute ``sql`` after :func:`check_query`; the cursor. A query that reaches for a file (``read_csv``,
    ``read_text``, …) is refused by the connection's policy, and said so as :class:`SQLRefused`. The caller runs
    it inside :func:`read_only_transaction` (``con`` is its cursor)."""
    check_query(con, sql)
    try:
        return con.execute(sql)
    except duckdb.Error as e:
        refused = refusal(e)
        if refused is not None:
            raise refused from None
        raise


def check_expression(expression: str) -> None:
    """Raise :class:`SQLRefused` unless ``expression`` is one SQL expression that can be placed as ``(expression)``
    inside a query without changing anything around it: its parentheses balance (outside strings, quoted names and
    comments, as DuckDB's tokenizer sees them), no ';', no comment, ``SELECT (expression)`` parses as one
    SELECT statement, and that statement only reads (:func:`check_tree`: no ``nextval``, no writing table
    function, no data-modifying subquery)."""
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
    try:
        types = [st.type for st in duckdb.extract_statements(f"SELECT ({text})")]
    except ValueError:  # a statement type the Python API has no name for: not one expression
        types = []
    if types != [duckdb.StatementType.SELECT]:
        raise SQLRefused("A computed column is one expression over the table's columns, such as r_s + w_s.")
    try:
        check_tree(f"SELECT ({text})")
    except SQLRefused as e:
        raise SQLRefused("A computed column only reads the table's columns: it cannot change the workspace or "
                         "read a file.", e.reason) from None


# types Python cannot hold without an extra time-zone package (DuckDB converts TIMESTAMPTZ through pytz), or has no
# value for (BIGNUM, BIT, UNION): such a column of a query StormScope did not write is shown as DuckDB's text
_NOT_PYTHON = re.compile(r"TIME ZONE|TIMESTAMPTZ|TIMETZ|BIGNUM|VARINT|\bBIT\b|BITSTRING|\bUNION\b", re.I)


def shown_query(con: Any, sql: str) -> tuple[str, list[str], list[str]]:
    """``sql`` (checked by :func:`check_query`) wrapped so that every value it returns reaches Python, with its
    column names (as the wrapper makes them unique) and DuckDB types: a column of a type Python cannot hold
    (``_NOT_PYTHON``) is cast to text. The query is bound alone first (``con.sql``: a relation, not run), so that
    DuckDB's error quotes the user's statement, not the wrapper; nothing runs. Call it inside
    :func:`read_only_transaction`."""
    con.sql(sql)
    desc = con.execute(f"DESCRIBE SELECT * FROM ({sql}) AS _q").fetchall()
    names, types = [str(r[0]) for r in desc], [str(r[1]) for r in desc]
    cols = [f"CAST({_ident(n)} AS VARCHAR) AS {_ident(n)}" if _NOT_PYTHON.search(t) else _ident(n)
            for n, t in zip(names, types)]
    return (f"SELECT {', '.join(cols)} FROM ({sql}) AS _q", names,
            ["VARCHAR" if _NOT_PYTHON.search(t) else t for t in types])


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
