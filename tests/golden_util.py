"""Golden files: what a corpus file imports to, reviewed by eye and kept in tests/golden/."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from app.importer import import_file
from app.workspace import RUN_TABLES, Workspace
from parsers.base import ImportOptions
from parsers.schema import TABLE


def snapshot(ws: Workspace, path: Path, options: ImportOptions | None = None) -> dict:
    """Import ``path`` and return {'result', 'runs', 'tables': {name: frame}}."""
    res = import_file(ws, str(path), options or ImportOptions())
    assert res.status == "imported", res.error
    runs = []
    tables: dict[str, pl.DataFrame] = {}
    for rid in res.run_ids:
        r = ws.run(rid)
        runs.append({
            "name": r.name, "kind": r.kind, "format": r.format, "host": r.host, "os": r.os,
            "tool_version": r.tool_version,
            "file_date": str(r.file_date) if r.file_date else None,
            "started_at": str(r.started_at) if r.started_at else None,
            "ended_at": str(r.ended_at) if r.ended_at else None,
            "interval_s": r.interval_s, "interval_source": r.interval_source,
            "n_samples": r.n_samples, "n_devices": r.n_devices, "n_rows": r.n_rows,
            "meta": r.meta.as_dict() if r.meta else {},
            "warnings": [w.replace(path.name, "<file>") for w in (r.warnings or [])],
        })
    ids = ",".join(str(i) for i in res.run_ids)
    for table in (t for t in RUN_TABLES if not TABLE[t].derived):  # what the file says, not what is made of it
        # rows of several runs are told apart by the run's host (run ids are not stable)
        df = ws.query(
            f"SELECT * EXCLUDE (run_id), (SELECT host FROM runs r WHERE r.run_id = t.run_id) AS run_host "
            f"FROM {table} t WHERE run_id IN ({ids}) ORDER BY ALL")
        if df.height:
            # keep only columns that hold something: the golden shows what the file has
            keep = [c for c in df.columns if df.get_column(c).null_count() < df.height]
            tables[table] = df.select(keep)
    return {"result": res, "runs": runs, "tables": tables}


def golden_dir(root: Path, kind: str, path: Path) -> Path:
    return root / kind / path.name


def write_golden(gdir: Path, snap: dict) -> None:
    gdir.mkdir(parents=True, exist_ok=True)
    for old in gdir.iterdir():
        old.unlink()
    (gdir / "runs.json").write_text(json.dumps(snap["runs"], indent=2, ensure_ascii=False) + "\n")
    for table, df in snap["tables"].items():
        df.write_csv(gdir / f"{table}.csv", datetime_format="%Y-%m-%dT%H:%M:%S")


def compare_golden(gdir: Path, snap: dict) -> None:
    assert gdir.is_dir(), f"no golden files in {gdir}: run `make golden` and review them"
    expected_runs = json.loads((gdir / "runs.json").read_text())
    assert snap["runs"] == expected_runs
    names = {p.stem for p in gdir.glob("*.csv")}
    assert names == set(snap["tables"]), "tables differ from the golden files"
    for table, df in snap["tables"].items():
        tmp = gdir / f".{table}.actual.csv"
        df.write_csv(tmp, datetime_format="%Y-%m-%dT%H:%M:%S")
        try:
            assert tmp.read_text() == (gdir / f"{table}.csv").read_text(), f"{table} differs from {gdir}"
        finally:
            tmp.unlink()
