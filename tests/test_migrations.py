"""Migrations: a workspace made by an older StormScope opens, is brought up to this schema, and says what a fresh
import of the same files says; one made by a newer StormScope is refused untouched."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from app import migrations
from app.analysis import questions as Q
from app.analysis.cap import cap_report
from app.analysis.compare import compare_iozone
from app.analysis.histograms import histo_summary, latency_share
from app.analysis.phases import detect_phases
from app.analysis.series import load_series
from app.analysis.storm import storm_report
from app.importer import import_file
from app.mappings import get_mapping, list_mappings, save_mapping
from app.store.phases import add_marker, add_phase, list_markers, list_phases, save_detected
from app.workspace import RUN_TABLES, SCHEMA_VERSION, Workspace, WorkspaceTooNew, has_table
from parsers.base import ImportOptions
from parsers.schema import TABLE
from reports.options import ReportOptions, list_templates, load_template, save_template
from tests.conftest import CORPUS, SAMPLES

FIXTURE = Path(__file__).parent / "fixtures" / "workspaces" / "schema1_5ee1760.duckdb.gz"
# tests/fixtures/PROVENANCE.md: made by StormScope 5ee1760 (schema 1)
FIXTURE_SHA256 = "66b3c6eb447ff22eda37c31b4b21827f76c1548589091d027e494f2090f65212"

# the imports the old release made, in its order (run ids 1..9), with their options
IMPORTS: list[tuple[Path, ImportOptions]] = [
    (SAMPLES / "capped_200iops_iostat-d.txt", ImportOptions(interval_s=2)),
    (SAMPLES / "storm_fast_iostat-xt.txt", ImportOptions(first_report="interval")),
    (SAMPLES / "storm_slow_iostat-xt.txt", ImportOptions(first_report="interval")),
    (SAMPLES / "fio_randrw_jsonplus.json", ImportOptions()),
    (SAMPLES / "example_iomark_results.csv", ImportOptions()),
    (SAMPLES / "example_iometer_results.csv", ImportOptions()),
    (CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv", ImportOptions()),
    (CORPUS / "iozone" / "iozone2csv_iozone.out.txt", ImportOptions()),
    (CORPUS / "hdparm" / "snippet_hdparm-Tt_xvda_modern.txt", ImportOptions()),
]
# what the runs table says about a file, not about when or where it was imported
RUN_FACTS = ["run_id", "name", "kind", "format", "source_sha256", "source_size", "host", "os", "tool_version",
             "file_date", "started_at", "ended_at", "interval_s", "interval_source", "n_samples", "n_devices",
             "n_rows", "tags"]


def _old(tmp_path: Path) -> Path:
    p = tmp_path / "old.duckdb"
    with gzip.open(FIXTURE, "rb") as src, open(p, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert hashlib.sha256(p.read_bytes()).hexdigest() == FIXTURE_SHA256
    return p


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """The same files imported by today's StormScope, with the same phases, marker, mapping and template."""
    p = tmp_path_factory.mktemp("fresh") / "fresh.duckdb"
    with Workspace(p) as ws:
        for path, opts in IMPORTS:
            assert import_file(ws, str(path), opts).status == "imported"
        add_phase(ws, 2, "boot", 0, 60)
        save_detected(ws, 3, detect_phases(load_series(ws, 3)))
        add_marker(ws, 2, "login", 30)
        save_mapping(ws, "legacy", {"kind": "iomark", "columns": {"users": "Users", "iops": "Total IOPS"},
                                    "constants": {"workload": "IOmark-VM"}})
    return p


def _counts(ws: Workspace) -> dict[str, int]:
    return {t: ws.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in TABLE if has_table(ws, t)}


def test_the_old_workspace_is_migrated_and_keeps_every_row(tmp_path):
    p = _old(tmp_path)
    with Workspace(p, read_only=True) as ws:  # a read-only open reads it as it is, and changes nothing
        assert ws.migrated == []
        before = _counts(ws)
        assert ws.con.execute("SELECT value FROM workspace_info").fetchall() == [("1",)]
    assert hashlib.sha256(p.read_bytes()).hexdigest() == FIXTURE_SHA256
    # every table holds rows (but the derived ones, which schema 4 added, and the clock offsets, which schema 5 did)
    derived = {t.name for t in TABLE.values() if t.derived}
    assert set(before) == set(TABLE) - derived - {"clock_offsets", "capture_plans"}, before
    assert all(before.values()), before
    with Workspace(p) as ws:
        assert ws.migrated == [2, 3, 4, 5, 6, 7]
        assert SCHEMA_VERSION == 7
        assert ws.con.execute("SELECT value FROM workspace_info WHERE key = 'schema_version'").fetchall() == [("7",)]
        # and, since the compatibility number exists, the oldest version that reads it: schema 3 (4 only added the
        # derived sums, which a release of schema 3 ignores)
        assert migrations.stored_compatible_from(ws.con) == 3
        after = _counts(ws)
        assert {t: n for t, n in after.items() if t not in derived} == {**before, "workspace_info": 2,
                                                                         "clock_offsets": 0, "capture_plans": 0}
        # the migration stored the per-report sums of the three iostat runs (their reports, since-boot ones too)
        assert after["series_sums"] == ws.con.execute("SELECT count(DISTINCT (run_id, sample_idx)) FROM "
                                                      "iostat_samples").fetchall()[0][0] > 0
        for t in TABLE.values():  # the tables are the spec's
            assert [(r[0], r[1]) for r in ws.con.execute(f"DESCRIBE {t.name}").fetchall()] == [
                (c.name, c.sql) for c in t.columns], t.name
    with Workspace(p) as ws:  # once is enough
        assert ws.migrated == []


def test_a_read_only_open_of_the_old_workspace_reads_the_new_columns_as_null_and_writes_nothing(tmp_path):
    p = _old(tmp_path)
    with Workspace(p, read_only=True) as ws:
        iostat = next(r.run_id for r in ws.runs() if r.kind == "iostat")
        assert ws.con.execute("SELECT count(*), count(layer), count(davg_ms) FROM iostat_samples "
                              "WHERE run_id = ?", [iostat]).fetchone()[1:] == (0, 0)
        assert [c for c, *_ in ws.con.execute("DESCRIBE iostat_samples").fetchall()] == \
            TABLE["iostat_samples"].column_names
        assert load_series(ws, iostat).frame.height > 0  # the analyses query the schema they know
    assert hashlib.sha256(p.read_bytes()).hexdigest() == FIXTURE_SHA256


def test_the_migrated_workspace_says_what_a_fresh_import_says(tmp_path, fresh):
    with Workspace(_old(tmp_path)) as old, Workspace(fresh, read_only=True) as new:
        facts = ", ".join(RUN_FACTS)
        assert old.query(f"SELECT {facts} FROM runs ORDER BY run_id").rows() == \
            new.query(f"SELECT {facts} FROM runs ORDER BY run_id").rows()
        assert len(old.runs()) == 9
        for table in RUN_TABLES:  # every stored figure of every run
            if table in ("phases", "markers"):
                continue
            q = f"SELECT * FROM {table} ORDER BY ALL"
            assert old.query(q).rows() == new.query(q).rows(), table
        # phases and markers: the manual ones as added, the automatic split as today's detection finds it
        for rid in (2, 3):
            assert list_phases(old, rid) == list_phases(new, rid)
            assert list_markers(old, rid) == list_markers(new, rid)
        assert [p.name for p in list_phases(old, 3, "auto")] == [f"phase {i}" for i in range(1, 6)]
        # analyses
        for rid in (1, 2, 3):  # with the stored phases
            assert storm_report(old, rid).as_dict() == storm_report(new, rid).as_dict()
        assert cap_report(old, 1, iops_cap=200).as_dict() == cap_report(new, 1, iops_cap=200).as_dict()
        for rid in (4, 7):
            assert latency_share(old, rid, 20) == latency_share(new, rid, 20)
            assert histo_summary(old, rid) == histo_summary(new, rid)
        assert compare_iozone(old, [8]) == compare_iozone(new, [8])
        # the questions the old release stored, answered now, give the figures the same questions give on the
        # fresh import
        stored = Q.list_questions(old)
        assert [(s.position, s.kind, s.title) for s in stored] == [
            (1, "cap", None), (2, "storm_profile", None), (3, "compare", None), (4, "response_time", None),
            (5, "sizing", None)]
        for sq in stored:
            a_old = Q.answer_stored(old, sq)
            a_new = Q.answer(new, sq.question)
            assert a_old.error is None, a_old.error
            assert (a_old.verdict, [f.as_dict() for f in a_old.figures], str(a_old.reason)) == \
                (a_new.verdict, [f.as_dict() for f in a_new.figures], str(a_new.reason)), sq.kind
        # the mapping, the template and the computed column the old release saved
        assert list_mappings(old)[0]["name"] == "legacy"
        assert get_mapping(old, "legacy")["columns"] == get_mapping(new, "legacy")["columns"]
        assert list_templates(old.con) == ["acme"]
        t = load_template(old.con, "acme")
        assert (t.title, t.customer, t.runs) == ("Old release", "ACME", [])
        assert old.computed_columns("iostat_samples") == [("iops_x2", "tps * 2")]


def test_a_migrated_workspace_takes_new_work(tmp_path):
    with Workspace(_old(tmp_path)) as ws:
        save_template(ws.con, "new", ReportOptions(title="After the update"))
        sq = Q.add_question(ws, Q.StormQuestion(run_id=3))
        # the old sequence goes on
        assert sq.position == 6
        assert sq.question_id == 6
        rid = import_file(ws, str(SAMPLES / "storm_fast_iostat-json.json"), ImportOptions()).run_ids[0]
        assert rid == 10
        ws.delete_run(2)
        assert list_phases(ws, 2) == []
        assert list_markers(ws, 2) == {}
        assert list_templates(ws.con) == ["acme", "new"]


def test_a_workspace_of_a_newer_stormscope_is_refused_untouched(tmp_path):
    p = _old(tmp_path)
    with duckdb.connect(str(p)) as con:
        con.execute("UPDATE workspace_info SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 5)])
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    for read_only in (False, True):
        with pytest.raises(WorkspaceTooNew) as e:
            Workspace(p, read_only=read_only)
        assert str(e.value) == (f"This workspace was made by a newer StormScope (schema {SCHEMA_VERSION + 5}); this "
                                f"version reads up to schema {SCHEMA_VERSION}. Update StormScope to open it.")
        assert (e.value.found, e.value.supported, e.value.path) == (SCHEMA_VERSION + 5, SCHEMA_VERSION, p)
    assert hashlib.sha256(p.read_bytes()).hexdigest() == digest
    with duckdb.connect(str(p)) as con:  # and the file is free again: the refused opens closed it
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(9,)]


def test_a_new_file_gets_the_whole_schema_at_once_and_a_file_without_version_is_schema_1(tmp_path):
    with Workspace(tmp_path / "new.duckdb") as ws:
        assert ws.migrated == []
        assert migrations.stored_version(ws.con) == SCHEMA_VERSION
    p = tmp_path / "bare.duckdb"
    with duckdb.connect(str(p)) as con:  # tables of a release before any version, no workspace_info
        con.execute(TABLE["runs"].create_statements()[0])
        con.execute(TABLE["runs"].create_statements()[1])
    with Workspace(p, read_only=True) as ws:
        assert Q.list_questions(ws) == []
        assert list_templates(ws.con) == []
        assert list_phases(ws, 1) == []
    with Workspace(p) as ws:
        assert ws.migrated == [2, 3, 4, 5, 6, 7]
        assert set(_counts(ws)) == set(TABLE)


def test_a_failing_step_leaves_the_workspace_at_its_version(tmp_path, monkeypatch):
    p = _old(tmp_path)

    def broken(con):
        con.execute("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("step failed")

    monkeypatch.setattr(migrations, "STEPS", [migrations.Step(2, "broken", broken)])
    with pytest.raises(RuntimeError, match="step failed"):
        Workspace(p)
    with Workspace(p, read_only=True) as ws:
        assert migrations.stored_version(ws.con) == 1
        assert not has_table(ws, "half_done")


def test_steps_are_consecutive_and_end_at_the_current_version():
    assert [s.to_version for s in migrations.STEPS] == list(range(2, SCHEMA_VERSION + 1))
    assert all(s.what for s in migrations.STEPS)


def test_the_fixture_is_in_provenance():
    text = (Path(__file__).parent / "fixtures" / "PROVENANCE.md").read_text(encoding="utf-8")
    assert FIXTURE.name in text
    assert FIXTURE_SHA256 in text
    assert hashlib.sha256(FIXTURE.read_bytes()).hexdigest() in text
    assert json.dumps(SCHEMA_VERSION)  # the version the fixture is migrated to is a plain number
