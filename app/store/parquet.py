"""The workspace as a partitioned Parquet dataset (``main.py export --parquet DIR``), for engines beyond one laptop.

Layout (docs/parquet.md): one folder per table of the documented schema (docs/schema.md, from parsers/schema.py)
but the derived ones, with the documented columns in the documented order. A *per run* table is partitioned by
run, Hive style (``iostat_samples/run_id=7/part-0.parquet``: the ``run_id`` column lives in the folder name); the
other tables are one file (``runs/part-0.parquet``). ``stormscope.json`` says the schema version and each table's
rows and layout.

Written with pyarrow from batches DuckDB streams out of the workspace: DuckDB itself writes no file, so the export
works on a connection whose external access is turned off, and writes nowhere but under the folder given (which
must be new or empty). Rows come in the order the workspace stores them (no sort: a 10 M-row table streams through
in batches of BATCH_ROWS), so the same workspace exports the same files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.workspace import Workspace, has_table
from parsers.schema import SCHEMA_VERSION, TABLES, Table

BATCH_ROWS = 256_000  # rows per Arrow batch streamed out of DuckDB (bounds the memory of a 10 M-row table)
MANIFEST = "stormscope.json"


class ExportError(Exception):
    """The folder cannot take the export (it holds files already)."""


def _write(ws: Workspace, sql: str, path: Path) -> None:
    """One Parquet file from a query, batch by batch (the memory of one batch, whatever the rows)."""
    import pyarrow.parquet as pq

    reader = ws.con.sql(sql).to_arrow_reader(BATCH_ROWS)
    path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(path, reader.schema) as w:
        for batch in reader:
            w.write_batch(batch, row_group_size=BATCH_ROWS)


def _export_table(ws: Workspace, t: Table, folder: Path) -> dict[str, Any]:
    n = ws.con.execute(f"SELECT count(*) FROM {t.name}").fetchall()[0][0]
    target = folder / t.name
    # stored order (DuckDB keeps insertion order): no sort, so a 10 M-row table streams through in batches
    if t.per_run and n:
        cols = ", ".join(f'"{c}"' for c in t.column_names if c != "run_id")  # run_id is in the folder's name
        for (rid,) in ws.con.execute(f"SELECT DISTINCT run_id FROM {t.name} ORDER BY 1").fetchall():
            _write(ws, f"SELECT {cols} FROM {t.name} WHERE run_id = {int(rid)}", target / f"run_id={int(rid)}" /
                   "part-0.parquet")
        layout = "partitioned by run_id (Hive style: run_id=N/)"
    else:  # one file, even when empty: a reader finds every table with its columns
        cols = ", ".join(f'"{c}"' for c in t.column_names)
        _write(ws, f"SELECT {cols} FROM {t.name}", target / "part-0.parquet")
        layout = "one file" if not t.per_run else "one file (no rows: not partitioned)"
    return {"rows": n, "layout": layout, "columns": t.column_names}


def export_parquet(ws: Workspace, folder: str | Path) -> dict[str, Any]:
    """Write every table of the workspace under ``folder`` (made if missing; it must be empty); the manifest."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ExportError(f"{folder} is not an empty folder: the export writes only into a new or empty one")
    folder.mkdir(parents=True, exist_ok=True)
    # derived tables (the stored per-report sums) are left out: recomputed from the data by the StormScope that
    # reads them, and tied to its version of the rules (docs/parquet.md)
    tables = {t.name: _export_table(ws, t, folder) for t in TABLES if not t.derived and has_table(ws, t.name)}
    manifest = {"schema_version": SCHEMA_VERSION, "schema": "docs/schema.md (StormScope)", "tables": tables}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
