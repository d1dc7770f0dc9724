"""A/B comparison: per metric and phase with delta and ratio; IOzone rows when the table is there."""

import pytest

from app.analysis import phases as ph
from app.analysis.compare import compare_iozone, compare_runs
from app.analysis.series import AnalysisError
from app.importer import import_file
from parsers.base import ImportOptions
from tests.analysis_util import iops_log

A = [0, 100, 400, 200, 0]


@pytest.fixture
def two(ws, write):
    a = import_file(ws, write("a.txt", iops_log(A, host="a")), ImportOptions()).run_ids[0]
    b = import_file(ws, write("b.txt", iops_log([2 * v for v in A], host="b")), ImportOptions()).run_ids[0]
    return a, b


def metric(rows, name):
    return next(r for r in rows if r["metric"] == name)


def test_side_by_side_with_delta_and_ratio(ws, two):
    a, b = two
    c = compare_runs(ws, [a, b], phases="none")
    peak = metric(c.metrics, "peak_iops")
    assert peak["values"] == [400, 800]
    assert peak["delta"] == [0, 400]
    assert peak["ratio"] == [1, 2]
    total = metric(c.metrics, "total_ios")
    # 700 IOPS-intervals x 5 s
    assert total["values"] == [3500, 7000]
    assert total["ratio"][1] == 2
    # one threshold for both runs: 50 % of the baseline's peak = 200; above it: A 400 (5 s), B 800 and 400 (10 s)
    assert c.method["time_above_threshold_iops"] == 200
    assert metric(c.metrics, "time_above_s")["values"] == [5, 10]
    assert metric(c.metrics, "read_share")["ratio"] == [1, 1]
    assert c.phases == []
    assert c.iozone["rows"] == []
    assert c.method["baseline"] == f"run {a}"
    with pytest.raises(AnalysisError, match="two"):
        compare_runs(ws, [a])
    with pytest.raises(AnalysisError, match="no run 99"):
        compare_runs(ws, [a, 99])


def test_stored_phases_are_matched_by_name(ws, two):
    a, b = two
    ph.add_phase(ws, a, "storm", 5, 20)
    ph.add_phase(ws, b, "storm", 5, 20)
    c = compare_runs(ws, [a, b])
    assert c.method["phases"]["matched_by"] == "name"
    assert [p["phase"] for p in c.phases] == ["storm"]
    peak = metric(c.phases[0]["metrics"], "total_ios")
    assert peak["values"] == [3500, 7000]  # the three reports inside [5, 20) hold every I/O


def test_iozone_part_tolerates_the_table_being_absent(ws, two):
    a, b = two
    ws.con.execute("DROP TABLE IF EXISTS iozone_results")
    assert compare_iozone(ws, [a, b])["available"] is False
    assert compare_runs(ws, [a, b], phases="none").iozone["available"] is False
    ws.con.execute("CREATE TABLE iozone_results (run_id INTEGER, mode VARCHAR, source VARCHAR, test VARCHAR, "
                   "file_kb BIGINT, record_kb BIGINT, threads INTEGER, unit VARCHAR, kb_s DOUBLE, line INTEGER, "
                   "page_cache_likely BOOLEAN)")
    ws.con.execute("INSERT INTO iozone_results VALUES (?, 'auto', 'table', 'write', 1024, 4, 1, 'kB/s', 100, 10, "
                   "true), (?, 'auto', 'table', 'write', 1024, 4, 1, 'kB/s', 150, 99, false), "
                   "(?, 'auto', 'table', 'read', 1024, 4, 1, 'kB/s', 300, 11, false)", [a, b, a])
    io = compare_iozone(ws, [a, b])
    assert io["keys"] == ["mode", "source", "test", "file_kb", "record_kb", "threads", "unit"]
    assert len(io["rows"]) == 1  # 'read' exists for one run only
    row = io["rows"][0]
    assert row["key"]["test"] == "write"
    assert row["values"] == [100, 150]
    assert row["ratio"] == [1, 1.5]
    assert row["page_cache_likely"]
    assert "page cache" in io["note"]
