"""``main.py sql "QUERY"``: a read-only SQL query over the workspace, as a table, CSV or JSON.

The workspace is opened read-only and the query goes through app.safe_open.run_query: exactly one SELECT, on a
connection that reaches no file, database or network beyond the workspace (COPY … TO, EXPORT DATABASE, ATTACH,
INSTALL, LOAD, SET, PRAGMA, CALL, read_csv and the like, several statements: refused, exit 1)."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from app import command_name
from app.cli.common import Command, add_workspace_arg, format_table, jsonable, open_workspace

_WORDS = {
    "read_only": "`sql` is read-only: it runs one SELECT query (no COPY, EXPORT, ATTACH, INSTALL, LOAD, SET, "
                 "PRAGMA, CALL, INSERT, UPDATE, DELETE, CREATE ...) and changes nothing",
    "one_statement": "one query at a time: remove the other statements (or the ';' between them)",
    "empty": "the query is empty",
    "no_files": "a query reads only the workspace: files (read_csv, read_text, ...), other databases and the "
                "network cannot be reached",
}


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    add_workspace_arg(p)
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")


def run(args: argparse.Namespace) -> int:
    import duckdb

    from app.safe_open import SQLRefused, run_query

    with open_workspace(args) as ws:
        try:
            cur = run_query(ws.con, args.query)
        except SQLRefused as e:
            print(f"{command_name()} sql: refused: {_WORDS.get(e.reason, str(e))}", file=sys.stderr)
            return 1
        except duckdb.Error as e:
            print(f"SQL error: {e}", file=sys.stderr)
            return 1
        if cur.description is None:
            return 0  # DB-API: a statement without a result (never for the one SELECT run_query allows)
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
    if args.format == "json":
        print(json.dumps([jsonable(dict(zip(cols, r))) for r in rows], indent=2))
    elif args.format == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(cols)
        w.writerows(rows)
    else:
        print(format_table(cols, rows))
        print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return 0


SQL = Command("sql", "run a read-only SQL query over the workspace", arguments, run)
