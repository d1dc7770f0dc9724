"""PowerShell Get-Counter samples saved with Export-Csv (parsers/getcounter.py): every corpus file imports to its
reviewed golden output; the figures equal perfmon's import of the typeperf capture they were derived from (the same
counters, read with the same map), read independently of the parser; the layout's variants (Select-Object subsets,
-UseCulture, invalid samples, several computers, a cut last row, bad rows) are read as the module says.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_getcounter.py`, and review the diff.
"""

from __future__ import annotations

import csv
from datetime import datetime

import pytest

from app.importer import import_file
from app.workspace import Workspace
from parsers import getcounter
from parsers.base import ImportOptions
from parsers.registry import detect
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.contract_util import contract_problems
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

FILES = corpus_files("getcounter")
PS51 = CORPUS / "getcounter" / "derived_ps5.1-en-US_countersamples_from_typeperf-si10_GORANS2.csv"
PS7 = CORPUS / "getcounter" / "derived_ps7-de-DE_select-usculture_from_typeperf-si10_GORANS2.csv"
TYPEPERF = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
METRICS = ("r_s", "w_s", "tps", "rkb_s", "wkb_s", "kb_s", "r_await_ms", "w_await_ms", "await_ms", "aqu_sz",
           "util_pct", "areq_kb", "rareq_kb", "wareq_kb")
HEAD = '"Timestamp","Path","CookedValue","Status"\n'


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_getcounter_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "getcounter", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_the_files_and_their_goldens():
    assert [p.name for p in FILES] == [PS51.name, PS7.name]
    assert {p.name for p in (GOLDEN / "getcounter").iterdir()} == {p.name for p in FILES}
    for p in FILES:
        assert detect(str(p)).id == "getcounter-csv"


def _imported(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


def _rows(ws, rid):
    cur = ws.con.execute("SELECT * FROM iostat_samples WHERE run_id = ? ORDER BY lower(device), sample_idx", [rid])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


@pytest.mark.parametrize("path", [PS51, PS7], ids=["ps5.1", "ps7-de"])
def test_the_figures_are_perfmons_for_the_same_counters(ws, path):
    """Both files carry the typeperf capture's values: every stored figure equals perfmon's import of that
    capture, device for device (Get-Counter writes the instance in lower case)."""
    mine = _rows(ws, _imported(ws, path).run_ids[0])
    theirs = _rows(ws, _imported(ws, TYPEPERF).run_ids[0])
    assert [(r["device"].lower(), r["sample_idx"], r["layer"]) for r in mine] == \
        [(r["device"].lower(), r["sample_idx"], r["layer"]) for r in theirs]
    for a, b in zip(mine, theirs):
        assert {m: a[m] for m in METRICS} == {m: b[m] for m in METRICS}


def test_values_and_times_read_by_hand(ws):
    """The PS 5.1 file read with the csv module: a row's CookedValue is the figure, its Timestamp100NSec the time
    (ticks of 100 ns since 1601, with the milliseconds Timestamp leaves out)."""
    with open(PS51, newline="") as fh:
        rows = list(csv.reader(fh))[2:]
    reads = [r for r in rows if r[0] == "\\\\gorans2\\physicaldisk(0 c:)\\disk reads/sec"]
    assert [r[2] for r in reads] == ["0.199608", "0.299034", "0.299066", "0.199293"]
    assert reads[0][7] == "12/29/2020 6:34:28 PM"
    r = _imported(ws, PS51)
    got = ws.con.execute("SELECT ts, r_s, r_await_ms FROM iostat_samples WHERE run_id = ? AND device = ? "
                         "ORDER BY sample_idx", [r.run_ids[0], "PhysicalDisk(0 c:)"]).fetchall()
    assert [g[1] for g in got] == [0.199608, 0.299034, 0.299066, 0.199293]
    assert got[0][0] == datetime(2020, 12, 29, 18, 34, 28, 308000)
    assert got[0][2] == 0.433  # Avg. Disk sec/Read 0.000433 s
    run = ws.run(r.run_ids[0])
    assert (run.kind, run.host, run.interval_s, run.n_samples, run.n_devices) == (
        "getcounter", "gorans2", 10.031, 4, 2)


def test_the_total_is_a_total_whatever_its_case_and_the_contract_would_catch_it(ws, tmp_path, monkeypatch):
    """Get-Counter writes `physicaldisk(_total)`; perfmon's own reader compares `_Total` as printed. Read with that
    comparison the total would be a second disk, and whole-disk figures would count every I/O twice: the format
    contract (tests/contract_util.py) says so."""
    r = _imported(ws, PS51)
    assert ws.con.execute("SELECT device, layer, summed FROM series_devices WHERE run_id = ? ORDER BY 1",
                          [r.run_ids[0]]).fetchall() == [("PhysicalDisk(0 c:)", "disk", True),
                                                         ("PhysicalDisk(_total)", "total", False)]
    fmt = getcounter.FORMAT
    assert contract_problems(ws, r.run_ids, fmt) == []
    real = getcounter.classify

    def case_sensitive(cp):
        src = real(cp)
        if src is not None and src.layer == "total" and cp.instance.strip() != "_Total":
            return getcounter._Source(src.table, src.device, src.quantity, "disk")
        return src

    monkeypatch.setattr(getcounter, "classify", case_sensitive)
    with Workspace(tmp_path / "other.duckdb") as ws2:
        problems = contract_problems(ws2, _imported(ws2, PS51).run_ids, fmt)
    assert "whole-disk figures count 'PhysicalDisk(_total)' beside every other summed device (PhysicalDisk(0 c:)): " \
           "its requests equal their sum in every report -- the same I/O twice" in " ".join(problems)


# ---- variants -----------------------------------------------------------------------------------------------
def _file(write, rows: list[str], head: str = HEAD, name: str = "gc.csv") -> str:
    return write(name, head + "".join(r + "\n" for r in rows))


def _row(stamp: str, path: str, value: str, status: str = "0") -> str:
    return f'"{stamp}","{path}","{value}","{status}"'


def test_an_invalid_sample_is_missing_not_zero(ws, write):
    """PDH marks a value it could not compute with a Status (here PDH_CSTATUS_INVALID_DATA) and a CookedValue of
    0: stored as NULL, and counted."""
    p = _file(write, [
        _row("3/14/2024 10:00:05 AM", "\\\\h\\physicaldisk(0 c:)\\disk reads/sec", "12.5"),
        _row("3/14/2024 10:00:05 AM", "\\\\h\\physicaldisk(0 c:)\\disk writes/sec", "0", "3221228486"),
        _row("3/14/2024 10:00:10 AM", "\\\\h\\physicaldisk(0 c:)\\disk reads/sec", "13"),
        _row("3/14/2024 10:00:10 AM", "\\\\h\\physicaldisk(0 c:)\\disk writes/sec", "4"),
    ])
    r = _imported(ws, p)
    got = ws.con.execute("SELECT sample_idx, ts, r_s, w_s FROM iostat_samples ORDER BY 1").fetchall()
    assert got == [(0, datetime(2024, 3, 14, 10, 0, 5), 12.5, None), (1, datetime(2024, 3, 14, 10, 0, 10), 13.0, 4.0)]
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert (meta["invalid_values"], meta["date_order"]) == (
        1, "month/day/year (the date 3/14/2024 10:00:05 does not exist read day/month/year)")  # 14 is no month


def test_several_computers_are_one_run_each(ws, write):
    rows = []
    for t in ("14.03.2024 10:00:05", "14.03.2024 10:00:10", "14.03.2024 10:00:15"):
        for host, v in (("SRV1", "1,5"), ("SRV2", "7")):
            rows.append(_row(t, f"\\\\{host}\\physicaldisk(0 c:)\\disk reads/sec", v))
    r = _imported(ws, _file(write, rows))
    assert len(r.run_ids) == 2
    got = ws.con.execute("SELECT r.host, count(*), min(s.r_s), max(s.t_s) FROM iostat_samples s JOIN runs r "
                         "USING (run_id) GROUP BY 1 ORDER BY 1").fetchall()
    assert got == [("SRV1", 3, 1.5, 10.0), ("SRV2", 3, 7.0, 10.0)]


def test_a_cut_last_row_is_left_out_and_a_bad_row_stops_the_import(ws, write):
    good = [_row("3/14/2024 10:00:05 AM", "\\\\h\\physicaldisk(0 c:)\\disk reads/sec", "1"),
            _row("3/14/2024 10:00:10 AM", "\\\\h\\physicaldisk(0 c:)\\disk reads/sec", "2")]
    p = write("cut.csv", HEAD + "\n".join(good) + '\n"3/14/2024 10:00:15 AM","\\\\h\\physicaldisk(0 c:)\\disk re')
    r = _imported(ws, p)
    assert any("ends in the middle of its last row" in w for w in r.warnings)
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall() == [(2,)]
    bad = _file(write, [good[0], _row("3/14/2024 10:00:10 AM", "\\\\h\\physicaldisk(0 c:)\\disk reads/sec", "x")],
                name="bad.csv")
    r = import_file(ws, bad, ImportOptions())
    assert r.status == "failed"
    assert r.error.startswith(f"{bad}:3: CookedValue 'x' is not a number")


def test_a_file_without_a_time_or_the_counters_is_refused_clearly(ws, write):
    p = write("notime.csv", '"Path","CookedValue"\n"\\\\h\\physicaldisk(0 c:)\\disk reads/sec","1"\n')
    r = import_file(ws, p, ImportOptions())
    assert r.status == "failed"
    assert "no Timestamp or Timestamp100NSec column" in r.error
    p = _file(write, [_row("3/14/2024 10:00:05 AM", "\\\\h\\memory\\available mbytes", "100")], name="mem.csv")
    r = import_file(ws, p, ImportOptions())
    assert r.status == "failed"
    assert "no disk or processor counter StormScope reads" in r.error
    assert "counters of memory" in r.error
