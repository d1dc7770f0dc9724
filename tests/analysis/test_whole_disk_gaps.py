"""A whole disk missing from reports in the middle of a run is a gap in the whole-disk figures (issue 30: "missing is
not zero"): those reports' sums are missing -- never the smaller sum of the disks that are there, which passes for
the disk going idle --, a warning names the disk and the reports, and every figure leaves them out.

The test files are real captures of the corpus with one disk's rows removed from some reports, made here in the
test (no new file; tests/corpus/MANIFEST.md has the captures' provenance):

* ``iostat/iostat-tool_sample_iostat.txt`` (sysstat 9, -xmt, 11 sd disks, 318 reports) without ``sdb``'s rows in
  reports 40-44 (the 40th to the 44th ``Device:`` header of the file);
* ``sar/ksar_sar-10.1.5.txt`` (sar -d, dev8-0 and dev8-16 whole disks) without ``dev8-16``'s rows at 11:00:01,
  11:10:01 and 11:20:01 (reports 12-14 of the -d section);
* ``sample_traces/storm_fast_iostat-xt.txt`` (one whole disk, vda, and zram0) without ``vda``'s rows in reports
  10-12: no summed device at all in those reports.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from app import migrations, series_sums  # noqa: E402
from app.analysis.cap import check_cap  # noqa: E402
from app.analysis.series import load_series  # noqa: E402
from app.analysis.sizing import measured_inputs  # noqa: E402
from app.analysis.storm import storm_metrics  # noqa: E402
from app.importer import import_paths  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.analysis.test_series_sums import assert_stored_equals_live  # noqa: E402
from tests.conftest import CORPUS, SAMPLES  # noqa: E402

IOSTAT = CORPUS / "iostat" / "iostat-tool_sample_iostat.txt"
SAR = CORPUS / "sar" / "ksar_sar-10.1.5.txt"


def without_iostat(src: Path, device: str, first: int, last: int, out: Path) -> Path:
    """``src`` without ``device``'s rows in its reports ``first``..``last`` (1-based: the n-th ``Device`` header)."""
    lines, report = [], 0
    for line in src.read_text().split("\n"):
        if line.startswith("Device"):
            report += 1
        if first <= report <= last and line.split()[:1] == [device]:
            continue
        lines.append(line)
    out.write_text("\n".join(lines))
    return out


def without_sar(src: Path, device: str, times: set[str], out: Path) -> Path:
    lines = [x for x in src.read_text().split("\n") if not (x.split()[:2] and x.split()[0] in times
                                                           and x.split()[1:2] == [device])]
    assert len(lines) == len(src.read_text().split("\n")) - len(times)
    out.write_text("\n".join(lines))
    return out


def _import(ws: Workspace, path: Path):
    [res] = import_paths(ws, [path], ImportOptions())
    assert res.status == "imported", res
    [rid] = res.run_ids
    return rid, res.warnings


def test_a_disk_missing_from_iostat_reports_40_to_44_is_a_gap_not_0_iops(tmp_path):
    path = without_iostat(IOSTAT, "sdb", 40, 44, tmp_path / "gap_iostat.txt")
    with Workspace(tmp_path / "ws.duckdb") as ws:
        rid, warnings = _import(ws, path)
        whole, _w = _import(ws, IOSTAT)
        line = [w for w in warnings if w.startswith("whole-disk figures have a gap")]
        assert len(line) == 1, warnings  # one line for the run, naming the disk, its reports and their times
        assert "sdb from reports 40–44 (2018-06-13 14:11:29 – 2018-06-13 14:11:33)" in line[0]
        assert line[0] in ws.run(rid).warnings  # stored with the run: the window and the report show it
        s, full = load_series(ws, rid), load_series(ws, whole)
        assert s.gaps == {"sdb": [39, 40, 41, 42, 43]}
        gap = s.frame.filter(s.frame["sample_idx"].is_between(39, 43))
        assert gap.height == 5  # the reports are there (on the time axis) ...
        for c in ("iops", "read_iops", "write_iops", "kbs", "await_ms", "ios"):  # ... with every figure missing
            assert gap[c].null_count() == 5, c
        # every other report is the full capture's, to the bit
        rest = s.frame.filter(~s.frame["sample_idx"].is_between(39, 43))
        assert rest.equals(full.frame.filter(~full.frame["sample_idx"].is_between(39, 43)))
        m, mf = storm_metrics(s), storm_metrics(full)
        m_gap = m
        assert m.missing_reports == 5
        assert m.intervals == mf.intervals - 5
        assert m.duration_s == mf.duration_s - 5  # seconds of data: the gap is not idle time
        gap_ios = float(np.nansum(full.col("ios")[39 - 1:44 - 1]))  # the full run's I/Os in those reports
        assert m.total_ios == mf.total_ios - gap_ios
        assert m.mean_iops == m.total_ios / m.duration_s
        assert any(n.startswith("gap: 5 reports without whole-disk figures (sdb missing from reports 40–44)")
                   for n in s.notes)
        # the cap check judges no window that spans a gap, and says how many reports were missing
        chk, chk_full = check_cap(s, "iops", 50.0), check_cap(full, "iops", 50.0)
        assert chk.missing_reports == 5
        assert "5 reports missing" in chk.explanation
        assert chk.windows_judged == chk_full.windows_judged - (5 + chk.window_reports - 1)
        # sizing: the steady level of a run with a gap is its mean over the seconds with data, and the gap is counted
        m = measured_inputs(ws, rid, 10, steady_run=rid)
        assert m["missing_reports"] == 10  # the run's 5, and the steady run's (the same run) 5
        assert m["steady_iops"] == m_gap.total_ios / m_gap.duration_s
        assert_stored_equals_live(ws, [rid])


def test_a_disk_missing_from_sar_reports_is_a_gap_too(tmp_path):
    path = without_sar(SAR, "dev8-16", {"11:00:01", "11:10:01", "11:20:01"}, tmp_path / "gap_sar.txt")
    with Workspace(tmp_path / "ws.duckdb") as ws:
        rid, warnings = _import(ws, path)
        assert any("dev8-16 from reports 12–14 (2016-03-28 11:00:01 – 2016-03-28 11:20:01)" in w for w in warnings)
        s = load_series(ws, rid)
        assert list(s.gaps) == ["dev8-16"]
        assert len(s.gaps["dev8-16"]) == 3
        gap = s.frame.filter(s.frame["sample_idx"].is_in(s.gaps["dev8-16"]))
        assert gap["iops"].null_count() == 3
        assert gap["kbs"].null_count() == 3
        assert storm_metrics(s).missing_reports == 3
        assert_stored_equals_live(ws, [rid])


def test_reports_with_no_summed_disk_at_all_are_a_gap_not_dropped(tmp_path):
    path = without_iostat(SAMPLES / "storm_fast_iostat-xt.txt", "vda", 10, 12, tmp_path / "no_vda.txt")
    with Workspace(tmp_path / "ws.duckdb") as ws:
        rid, warnings = _import(ws, path)
        assert any("vda from reports 10–12" in w for w in warnings), warnings
        s = load_series(ws, rid)
        gap = s.frame.filter(s.frame["sample_idx"].is_in(s.gaps["vda"]))
        assert gap.height == 3
        assert gap["iops"].null_count() == 3
        assert gap["t_end_s"].to_list() == sorted(gap["t_end_s"].to_list())
        assert_stored_equals_live(ws, [rid])


def test_a_disk_that_comes_and_goes_is_named_but_is_no_gap(tmp_path):
    """Hot-plug: a disk that appears late (or is gone before the end) is summed where it is listed; the figures are
    the disks each report lists, and a warning says which disks came or went (a real sysstat test capture)."""
    with Workspace(tmp_path / "ws.duckdb") as ws:
        rid, warnings = _import(ws, CORPUS / "iostat" / "sysstat-tests_iostat.txt")
        assert [w for w in warnings if w.startswith("the whole disks change during the run: sdd from report 3")]
        assert not [w for w in warnings if "gap" in w]
        ws.set_interval(rid, 1.0)
        assert load_series(ws, rid).gaps == {}


def test_a_file_that_lists_only_active_disks_takes_an_absent_disk_as_idle_and_says_so(tmp_path):
    """sar -z (and iostat -z, HP-UX sar -d) print only the devices with I/O: an absent one was idle, not missing."""
    with Workspace(tmp_path / "ws.duckdb") as ws:
        rid, warnings = _import(ws, CORPUS / "sar" / "sysstat-tests_sar-z.txt")
        assert [w for w in warnings if w.startswith("whole-disk figures take a disk absent from a report as idle: ")
                and "sdq from report 3" in w]
        assert load_series(ws, rid).gaps == {}


def test_a_workspace_made_with_the_old_sums_gets_the_gap_when_opened(tmp_path):
    """A workspace of schema 6 whose stored sums added up the disks there (sums version 1, no warning): opening it
    migrates it -- the sums are made again, with the gap, and the run names it."""
    path = without_iostat(IOSTAT, "sdb", 40, 44, tmp_path / "gap_iostat.txt")
    p = tmp_path / "old.duckdb"
    with Workspace(p) as ws:
        rid, _w = _import(ws, path)
        # what the release before this one stored: the sums of the disks there (no gap), version 1, no warning
        ws.con.execute("DELETE FROM series_sums WHERE run_id = ?", [rid])
        summed = sorted(d for d, *_x, s in series_sums.stored_devices(ws.con, rid) if s)
        old = series_sums._stored_sql(False, False).replace(f"{series_sums.SUMS_VERSION} AS sums_version",
                                                             "1 AS sums_version")
        ws.con.execute(f"INSERT INTO series_sums BY NAME {old}", [rid, rid, summed])
        ws.con.execute("UPDATE runs SET warnings = list_filter(warnings, lambda w: NOT contains(w, 'gap'))")
        ws.con.execute("UPDATE workspace_info SET value = '6' WHERE key = 'schema_version'")
        assert ws.con.execute("SELECT iops FROM series_sums WHERE run_id = ? AND sample_idx = 40",
                              [rid]).fetchall()[0][0] > 0  # the old sum: the ten other disks, as if sdb were idle
    with Workspace(p) as ws:
        assert ws.migrated == [7]
        assert migrations.stored_version(ws.con) == 7
        assert series_sums.current(ws.con, rid)
        assert ws.con.execute("SELECT iops FROM series_sums WHERE run_id = ? AND sample_idx = 40",
                              [rid]).fetchall()[0][0] is None
        assert any("sdb from reports 40–44" in w for w in ws.run(rid).warnings)
        assert load_series(ws, rid).gaps == {"sdb": [39, 40, 41, 42, 43]}
