"""The workspace as a partitioned Parquet dataset (``main.py export --parquet DIR``), for engines beyond one laptop.

Layout (docs/parquet.md): one folder per table of the documented schema (docs/schema.md, from parsers/schema.py),
with the documented columns in the documented order. A *per run* table is partitioned by run, Hive style
(``iostat_samples/run_id=7/part-0.parquet``: the ``run_id`` column lives in the folder name); the other tables are
one file (``runs/part-0.parquet``). ``stormscope.json`` says the schema version and each table's rows and layout.

Written with pyarrow from batches DuckDB streams out of the workspace: DuckDB itself writes no file, so the export
works on a connection whose external access is turned off, and writes nowhere but under the folder given (which
must be new or empty). Rows come in the order of each table's key, so the same workspace exports the same files.
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


def _order(t: Table) -> str:
    key = list(t.key) or [c for c in ("run_id", "sample_idx", "device") if c in t.column_names] or t.column_names[:1]
    return ", ".join(key)


def _export_table(ws: Workspace, t: Table, folder: Path) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    cols = ", ".join(f'"{c}"' for c in t.column_names)
    n = ws.con.execute(f"SELECT count(*) FROM {t.name}").fetchall()[0][0]
    reader = ws.con.sql(f"SELECT {cols} FROM {t.name} ORDER BY {_order(t)}").to_arrow_reader(BATCH_ROWS)
    target = folder / t.name
    if t.per_run and n:
        ds.write_dataset(reader, target, format="parquet", basename_template="part-{i}.parquet",
                         partitioning=ds.partitioning(pa.schema([("run_id", pa.int32())]), flavor="hive"),
                         existing_data_behavior="error", max_rows_per_group=BATCH_ROWS)
        layout = "partitioned by run_id (Hive style: run_id=N/)"
    else:  # one file, even when empty: a reader finds every table with its columns
        target.mkdir()
        with pq.ParquetWriter(target / "part-0.parquet", reader.schema) as w:
            for batch in reader:
                w.write_batch(batch)
        layout = "one file" if not t.per_run else "one file (no rows: not partitioned)"
    return {"rows": n, "layout": layout, "columns": t.column_names}


def export_parquet(ws: Workspace, folder: str | Path) -> dict[str, Any]:
    """Write every table of the workspace under ``folder`` (made if missing; it must be empty); the manifest."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ExportError(f"{folder} is not an empty folder: the export writes only into a new or empty one")
    folder.mkdir(parents=True, exist_ok=True)
    tables = {t.name: _export_table(ws, t, folder) for t in TABLES if has_table(ws, t.name)}
    manifest = {"schema_version": SCHEMA_VERSION, "schema": "docs/schema.md (StormScope)", "tables": tables}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
