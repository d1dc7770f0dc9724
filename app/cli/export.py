"""``main.py export --parquet DIR``: the workspace as a partitioned Parquet dataset (app.store.parquet)."""

from __future__ import annotations

import argparse

from app.cli.common import Command, CommandFailed, add_workspace_arg, open_workspace


def arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("--parquet", required=True, metavar="DIR",
                   help="a new or empty folder: one folder per table, per-run tables partitioned by run_id "
                        "(docs/parquet.md)")


def run(args: argparse.Namespace) -> int:
    from app.store.parquet import ExportError, export_parquet

    with open_workspace(args) as ws:
        try:
            manifest = export_parquet(ws, args.parquet)
        except ExportError as e:
            raise CommandFailed(str(e)) from None
    for name, t in manifest["tables"].items():
        print(f"{name:<18} {t['rows']:>12,} rows  {t['layout']}")
    print(f"wrote {args.parquet} (schema version {manifest['schema_version']})")
    return 0


EXPORT = Command("export", "write the workspace as a partitioned Parquet dataset", arguments, run)
