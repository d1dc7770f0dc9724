"""``main.py sql "QUERY"``: a read-only SQL query over the workspace, as a table, CSV or JSON."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from app.cli.common import Command, add_workspace_arg, format_table, jsonable, open_workspace


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("query")
    add_workspace_arg(p)
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")


def run(args: argparse.Namespace) -> int:
    import duckdb

    with open_workspace(args) as ws:
        try:
            cur = ws.con.execute(args.query)
        except duckdb.Error as e:
            print(f"SQL error: {e}", file=sys.stderr)
            return 1
        if cur.description is None:
            return 0  # type: ignore[unreachable]  # DuckDB's stubs say never None; the DB-API allows it
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
