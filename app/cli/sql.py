"""``main.py sql "QUERY"``: a read-only SQL query over the workspace, as a table, CSV or JSON.

The workspace is opened read-only and the query goes through app.safe_open: exactly one SELECT whose parse tree
only reads, run inside a read-only transaction, on a connection that reaches no file, database or network beyond
the workspace (COPY … TO, EXPORT DATABASE, ATTACH, INSTALL, LOAD, SET, PRAGMA, CALL, read_csv and the like, a
data-modifying CTE, nextval, several statements: refused, exit 1).

A query is bounded: DuckDB's memory limit for the whole open (``--memory-limit``, half the machine's memory by
default, and as much again spilled to disk: app.safe_open), a time limit (``--time-limit``), and Ctrl-C, which
interrupts DuckDB (the query runs on a thread, so the signal reaches Python while DuckDB works). Rows are fetched
and printed a batch at a time, never all at once: CSV and JSON print every row in bounded memory; the table prints
the first ``--max-rows`` (a table's columns are as wide as its widest cell, so it needs its rows in hand) and says
how to get the rest.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

from app import command_name
from app.cli.common import Command, CommandFailed, add_workspace_arg, format_table, jsonable, open_workspace

_WORDS = {
    "read_only": "`sql` is read-only: it runs one SELECT query (no COPY, EXPORT, ATTACH, INSTALL, LOAD, SET, "
                 "PRAGMA, CALL, INSERT, UPDATE, DELETE, CREATE, data-modifying WITH, nextval, checkpoint() ...) "
                 "and changes nothing",
    "one_statement": "one query at a time: remove the other statements (or the ';' between them)",
    "empty": "the query is empty",
    "no_files": "a query reads only the workspace: files (read_csv, read_text, ...), other databases and the "
                "network cannot be reached",
}
BATCH = 10_000  # rows fetched from DuckDB at a time
TABLE_ROWS = 10_000  # rows the table format prints by default
TIME_LIMIT_S = 600.0
MEMORY_LIMIT = "50%"  # of the machine's memory (DuckDB's own notation)


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    add_workspace_arg(p)
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.add_argument("--max-rows", type=int, default=TABLE_ROWS, metavar="N",
                   help=f"rows the table format prints (default {TABLE_ROWS:,}); csv and json print every row")
    p.add_argument("--time-limit", type=float, default=TIME_LIMIT_S, metavar="SECONDS",
                   help=f"stop the query after this many seconds (default {TIME_LIMIT_S:.0f}; 0: no limit)")
    p.add_argument("--memory-limit", default=MEMORY_LIMIT, metavar="SIZE",
                   help="DuckDB's memory for the query, e.g. 4GB or 25%% of the machine's (default 50%%)")


def run(args: argparse.Namespace) -> int:
    import duckdb

    from app.safe_open import SQLRefused, check_query, read_only_transaction, shown_query

    if args.max_rows < 1:
        raise CommandFailed("--max-rows must be at least 1")
    try:
        ws = open_workspace(args, settings={"memory_limit": args.memory_limit})
    except duckdb.Error as e:  # a memory limit DuckDB cannot read ("4 apples")
        raise CommandFailed(f"--memory-limit {args.memory_limit!r}: {str(e).splitlines()[0]}") from None
    with ws:
        try:
            with read_only_transaction(ws.con) as cur:
                check_query(cur, args.query)
                sql, cols, _types = shown_query(cur, args.query)
                write = {"json": _write_json, "csv": _write_csv}.get(args.format, _write_table)
                stopped = _bounded(cur, lambda: write(cur.execute(sql), cols, args.max_rows), args.time_limit)
        except SQLRefused as e:
            print(f"{command_name()} sql: refused: {_WORDS.get(e.reason, str(e))}", file=sys.stderr)
            return 1
        except duckdb.OutOfMemoryException:
            limit = ws.con.execute("SELECT current_setting('memory_limit')").fetchone()
            print(f"{command_name()} sql: stopped: the query needs more memory than the limit of "
                  f"{limit[0] if limit else args.memory_limit} (and as much again on disk; --memory-limit sets "
                  "another)", file=sys.stderr)
            return 1
        except duckdb.Error as e:
            print(f"SQL error: {_refused_words(e) or e}", file=sys.stderr)
            return 1
    if stopped:
        print(f"{command_name()} sql: {stopped}", file=sys.stderr)
        return 130 if stopped.startswith("interrupted") else 1
    return 0


def _refused_words(e: BaseException) -> str | None:
    from app.safe_open import refusal

    refused = refusal(e)
    return None if refused is None else _WORDS.get(refused.reason, str(refused))


def _bounded(cur: Any, job: Callable[[], None], time_limit_s: float) -> str | None:
    """Run ``job`` (which queries on ``cur``) on a thread; Ctrl-C or the time limit interrupt DuckDB. None when it
    ended by itself; otherwise what stopped it (what it printed so far stays printed). Its error is raised here."""
    outcome: dict[str, BaseException] = {}

    def target() -> None:
        try:
            job()
        except BaseException as e:  # handed to the waiting thread, which raises it
            outcome["error"] = e

    thread = threading.Thread(target=target, name="sql query", daemon=True)
    stopped: str | None = None
    timer = None
    if time_limit_s > 0:
        def too_long() -> None:
            nonlocal stopped
            stopped = (f"stopped after the time limit of {time_limit_s:g} s (--time-limit sets another; 0 for "
                       "none)")
            cur.interrupt()
        timer = threading.Timer(time_limit_s, too_long)
        timer.daemon = True
        timer.start()
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        stopped = "interrupted (Ctrl-C): the query was stopped"
        cur.interrupt()
        thread.join()
    finally:
        if timer is not None:
            timer.cancel()
    error = outcome.get("error")
    if error is not None and not (stopped and _interrupted(error)):
        raise error
    return stopped


def _interrupted(e: BaseException) -> bool:
    import duckdb

    return isinstance(e, duckdb.InterruptException) or "INTERRUPT" in str(e)


def _batches(cur: Any) -> Any:
    while True:
        rows = cur.fetchmany(BATCH)
        if not rows:
            return
        yield rows


def _write_csv(cur: Any, cols: list[str], _max_rows: int) -> None:
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(cols)
    for rows in _batches(cur):
        w.writerows(rows)


def _write_json(cur: Any, cols: list[str], _max_rows: int) -> None:
    out = sys.stdout
    first = True
    out.write("[")
    for rows in _batches(cur):
        for r in rows:
            out.write(("\n  " if first else ",\n  ") + json.dumps(jsonable(dict(zip(cols, r)))))
            first = False
    out.write("\n]\n" if not first else "]\n")


def _write_table(cur: Any, cols: list[str], max_rows: int) -> None:
    rows = cur.fetchmany(max_rows + 1)
    more = len(rows) > max_rows
    print(format_table(cols, rows[:max_rows]))
    if more:
        print(f"(the first {max_rows:,} rows; more follow: --format csv or json prints every row, --max-rows shows "
              "more here)")
    else:
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


SQL = Command("sql", "run a read-only SQL query over the workspace", arguments, run)
