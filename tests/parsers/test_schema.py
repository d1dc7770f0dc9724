"""The one declaration of the workspace schema (parsers/schema.py): the tables a workspace has, the frames the
parsers yield and docs/schema.md all follow it."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from app import schema_doc
from app.workspace import RUN_TABLES, Workspace, has_table
from parsers import fio, hdparm, iomark, iometer, iozone, kinds
from parsers.registry import main_table
from parsers.schema import POLARS_TYPES, SCHEMA_VERSION, TABLE, TABLES, frame_schema, stored_schema

ROOT = Path(__file__).resolve().parents[2]


def test_docs_schema_md_is_generated_from_the_spec():
    """Fails when parsers/schema.py changed and docs/schema.md was not regenerated."""
    assert schema_doc.DOC == ROOT / "docs" / "schema.md"
    assert schema_doc.DOC.read_text(encoding="utf-8") == schema_doc.render(), \
        "docs/schema.md is stale: run 'python -m app.schema_doc'"
    assert schema_doc.main(["--check"]) == 0


def test_schema_doc_check_says_when_stale(tmp_path, capsys):
    stale = tmp_path / "schema.md"
    stale.write_text("# old\n", encoding="utf-8")
    assert schema_doc.main(["--check", "--output", str(stale)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert schema_doc.main(["--output", str(stale)]) == 0
    assert schema_doc.main(["--check", "--output", str(stale)]) == 0


def test_every_table_and_column_is_documented():
    doc = schema_doc.render()
    for t in TABLES:
        assert t.purpose, t.name
        assert f"## `{t.name}`" in doc
        for c in t.columns:
            assert c.meaning, f"{t.name}.{c.name} has no meaning"
            assert c.sql in POLARS_TYPES, f"{t.name}.{c.name}: {c.sql} has no polars dtype"
            assert f"| `{c.name}` | {c.sql.replace('|', chr(92) + '|')} |" in doc


def test_a_new_workspace_has_exactly_the_tables_of_the_spec(tmp_path):
    with Workspace(tmp_path / "w.duckdb") as ws:
        tables = {r[0] for r in ws.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        assert tables == set(TABLE)
        for t in TABLES:
            rows = ws.con.execute(f"DESCRIBE {t.name}").fetchall()
            assert [(r[0], r[1]) for r in rows] == [(c.name, c.sql) for c in t.columns], t.name
            nullable = {r[0]: r[2] == "YES" for r in rows}
            for c in t.columns:
                assert nullable[c.name] is not (c.not_null or c.key), f"{t.name}.{c.name}"
            keys = ws.con.execute("SELECT constraint_column_names FROM duckdb_constraints() WHERE table_name = ? "
                                  "AND constraint_type = 'PRIMARY KEY'", [t.name]).fetchall()
            assert [tuple(k[0]) for k in keys] == ([t.key] if t.key else []), t.name
            assert has_table(ws, t.name)
            assert has_table(ws.con, t.name)
        assert not has_table(ws, "nope")
        assert ws.con.execute("SELECT value FROM workspace_info WHERE key = 'schema_version'").fetchall() == [
            (str(SCHEMA_VERSION),)]
        # the stored dtypes are the spec's
        for t in TABLES:
            if t.name != "runs":
                assert ws.query(f"SELECT * FROM {t.name} LIMIT 0").schema == pl.Schema(stored_schema(t.name))


def test_run_tables_come_from_the_spec_and_main_tables_from_the_formats():
    assert RUN_TABLES == ["iostat_samples", "cpu_samples", "histograms", "histogram_stats", "fio_jobs",
                          "iozone_results", "iomark_results", "iometer_results", "hdparm_results", "phases", "markers",
                          "clock_offsets", "series_devices", "series_sums"]
    declared = {k.id: main_table(k.id) for k in kinds.kinds()}  # runs.n_rows counts it (parsers.semantics)
    assert declared == {"iostat": "iostat_samples", "vscsistats": "histograms", "fio": "fio_jobs",
                        "diskspd": "fio_jobs", "iozone": "iozone_results", "iomark": "iomark_results",
                        "iometer": "iometer_results", "hdparm": "hdparm_results", "perfmon": "iostat_samples",
                        "esxtop": "iostat_samples", "nmon": "iostat_samples", "fio-log": "iostat_samples",
                        "fio-hist": "histograms", "sar": "iostat_samples", "getcounter": "iostat_samples"}


@pytest.mark.parametrize(("schema", "table"), [
    (fio.FIO_JOBS_SCHEMA, "fio_jobs"), (hdparm.SCHEMA, "hdparm_results"), (iozone.RESULT_SCHEMA, "iozone_results"),
    (iometer.SCHEMA, "iometer_results"), (iomark.SCHEMA, "iomark_results"),
])
def test_parsers_build_their_frames_from_the_spec(schema, table):
    assert schema == frame_schema(table)
    assert list(schema) == [c for c in TABLE[table].column_names if c != "run_id"]
    for name, dtype in schema.items():  # integers at 64 bits, the rest as stored
        col = TABLE[table].column(name)
        assert dtype == (pl.Int64() if col.sql in ("INTEGER", "BIGINT") else col.dtype)


def test_iometer_counts_and_iomark_targets_are_spec_columns():
    assert iometer.INT_COLUMNS == {  # noqa: SIM300 (not a Yoda condition: the constant is what is tested)
        "managers", "workers", "disks", "errors", "read_errors", "write_errors", "bytes_read", "bytes_written",
        "read_ios", "write_ios", "queue_depth"}
    assert set(iomark.IOMARK_COLUMNS) <= set(TABLE["iomark_results"].column_names)


def _sources() -> list[Path]:
    return [p for d in ("app", "parsers", "reports") for p in (ROOT / d).rglob("*.py")]


def test_only_the_workspace_creates_tables():
    """The spec is the one place tables come from: no other module runs CREATE TABLE / SEQUENCE."""
    allowed = {ROOT / "parsers" / "schema.py"}
    offenders = [str(p.relative_to(ROOT)) for p in _sources() if p not in allowed
                 and re.search(r"[\"']CREATE\s+(TABLE|SEQUENCE|OR\s+REPLACE)", p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_one_has_table():
    """Modules ask app.workspace.has_table instead of querying information_schema.tables themselves."""
    allowed = {ROOT / "app" / "workspace.py", ROOT / "app" / "migrations.py"}
    offenders = [str(p.relative_to(ROOT)) for p in _sources() if p not in allowed
                 and "information_schema.tables" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_phase_storage_is_the_workspaces_and_series_does_not_import_phases():
    """Storing phases and markers lives in app.store.phases; analysis.series and analysis.phases no longer import
    each other (phases imports series, not the other way round)."""
    def imports(path: Path) -> set[str]:
        return set(re.findall(r"^\s*(?:from|import) (app\.[\w.]+)", path.read_text(encoding="utf-8"), re.M))

    assert "app.analysis.phases" not in imports(ROOT / "app" / "analysis" / "series.py")
    assert not {"app.analysis.phases", "app.analysis.series"} & imports(ROOT / "app" / "store" / "phases.py")
    from app.analysis import phases as ph
    from app.store import phases as stored

    # the CLI's names work
    assert ph.add_phase is stored.add_phase
    assert ph.list_markers is stored.list_markers
