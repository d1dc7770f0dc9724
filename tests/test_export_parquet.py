"""`main.py export --parquet DIR` (issue 18): the workspace as a partitioned Parquet dataset with the documented
schema, read back equal -- with pyarrow and with DuckDB's read_parquet, as docs/parquet.md shows."""

import json

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from app.importer import import_paths
from app.store.parquet import export_parquet
from parsers.base import ImportOptions
from parsers.schema import TABLE, TABLES
from tests.conftest import SAMPLES
from tests.test_cli import run


@pytest.fixture
def filled(ws):
    import_paths(ws, [SAMPLES], ImportOptions())
    rid = ws.runs()[-1].run_id
    ws.con.execute("INSERT INTO markers VALUES (?, 'login storm', 12.5)", [rid])
    return ws


def read_back(folder, name):
    t = TABLE[name]
    part = ds.partitioning(pa.schema([("run_id", pa.int32())]), flavor="hive")
    got = ds.dataset(folder / name, format="parquet", partitioning=part).to_table()
    return got.select(t.column_names)  # the partition column comes back last: the documented order again


def sorted_rows(table):
    import duckdb

    con = duckdb.connect()
    con.register("t", table)
    return con.sql("SELECT * FROM t ORDER BY ALL").to_arrow_table()


def test_every_table_reads_back_equal_with_the_documented_columns(filled, tmp_path):
    out = tmp_path / "dataset"
    manifest = export_parquet(filled, out)
    # the derived tables (the stored per-report sums) are left out: recomputed from the data, tied to a version
    assert set(manifest["tables"]) == {t.name for t in TABLES if not t.derived}
    assert {"series_sums", "series_devices"} & {p.name for p in out.iterdir()} == set()
    assert filled.con.execute("SELECT count(*) FROM series_sums").fetchall()[0][0] > 0
    for t in TABLES:
        if t.derived:
            continue
        want = filled.con.sql(f"SELECT {', '.join(t.column_names)} FROM {t.name}").to_arrow_table()
        got = read_back(out, t.name)
        assert got.schema.names == t.column_names, t.name
        assert got.num_rows == want.num_rows == manifest["tables"][t.name]["rows"], t.name
        assert got.schema == want.schema, t.name  # the same Arrow types as DuckDB gives for the table
        assert sorted_rows(got).equals(sorted_rows(want)), t.name
    # per-run tables in one folder per run; the others one file
    runs = {r.run_id for r in filled.runs() if r.kind == "iostat"}
    assert {p.name for p in (out / "iostat_samples").iterdir()} == {f"run_id={r}" for r in runs}
    assert [p.name for p in (out / "runs").iterdir()] == ["part-0.parquet"]
    assert json.loads((out / "stormscope.json").read_text())["schema_version"] == manifest["schema_version"]


def test_duckdb_reads_the_dataset_with_hive_partitions(filled, tmp_path):
    import duckdb

    out = tmp_path / "dataset"
    export_parquet(filled, out)
    con = duckdb.connect()
    q = ("SELECT run_id, sum(r_s + w_s) FROM read_parquet(?, hive_partitioning = true, hive_types = "
         "{'run_id': INTEGER}) WHERE NOT since_boot GROUP BY 1 ORDER BY 1")
    got = con.execute(q, [str(out / "iostat_samples" / "*" / "*.parquet")]).fetchall()
    want = filled.con.execute("SELECT run_id, sum(r_s + w_s) FROM iostat_samples WHERE NOT since_boot GROUP BY 1 "
                              "ORDER BY 1").fetchall()
    assert got == want


def test_export_writes_only_into_a_new_or_empty_folder(filled, tmp_path):
    out = tmp_path / "dataset"
    out.mkdir()
    (out / "keep.txt").write_text("the customer's notes")
    with pytest.raises(Exception, match="not an empty folder"):
        export_parquet(filled, out)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_cli_export(tmp_path):
    ws = tmp_path / "ws.duckdb"
    assert run("import", str(SAMPLES / "storm_fast_iostat-xt.txt"), "-w", str(ws)).returncode == 0
    p = run("export", "-w", str(ws), "--parquet", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    assert "iostat_samples" in p.stdout
    assert (tmp_path / "out" / "iostat_samples" / "run_id=1" / "part-0.parquet").exists()
    again = run("export", "-w", str(ws), "--parquet", str(tmp_path / "out"))
    assert again.returncode == 1
    assert "not an empty folder" in again.stderr
