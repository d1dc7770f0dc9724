"""Every DiskSpd file of the corpus imports to exactly its reviewed golden output; values read by hand from the
files (and, for the XML, read with the standard library's XML reader) hold, independently of the parser; bad
input fails naming the line; two DiskSpd runs, and a DiskSpd and a fio run, compare; the report shows the job
table.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_diskspd.py`, and review the diff.
"""

import json
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

from app.importer import import_file
from parsers.base import ImportOptions, JobState, ParseError
from parsers.diskspd import XML_FORMAT
from parsers.registry import detect
from tests.conftest import CORPUS, GOLDEN, REGEN, SAMPLES, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden
from tests.test_cli import run

DISKSPD = corpus_files("diskspd")
D = CORPUS / "diskspd"


@pytest.mark.parametrize("path", DISKSPD, ids=[p.name for p in DISKSPD])
def test_diskspd_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "diskspd", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden():
    assert len(DISKSPD) >= 7
    have = {p.name for p in (GOLDEN / "diskspd").iterdir()}
    assert {p.name for p in DISKSPD} <= have


def _imported(ws, path):
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    return r


def _jobs(ws, rid):
    cur = ws.con.execute("SELECT * FROM fio_jobs WHERE run_id = ? ORDER BY job_index, op", [rid])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _meta(ws, rid):
    return ws.run(rid).meta.as_dict()


# ---- values read by hand from the text reports ------------------------------------------------------------
def test_one_thread_mix_is_diskspds_own_total_rows_and_percentiles(ws):
    """vc_diskspd-2.0_randrw70-30_1thread.txt, read by eye: 'Read IO' total row 102645760 bytes, 25060 I/Os,
    834.98 I/O per s, AvgLat 0.272, LatStdDev 0.185; 'Write IO' 43524096, 10626, 354.05, 2.179, 1.037; the
    'total:' table: read 50th 0.232, 99th 0.877, 3-nines 1.608, 4-nines 4.753, min 0.036, max 7.990; write
    99th 6.107; actual test time 30.01 s; random 4 KiB, 70/30, one outstanding I/O, one thread."""
    rid = _imported(ws, D / "vc_diskspd-2.0_randrw70-30_1thread.txt").run_ids[0]
    read, write = _jobs(ws, rid)
    assert (read["op"], read["device"], read["ios"], read["io_kb"]) == ("read", "diskspd.dat", 25060,
                                                                         102645760 / 1024)
    assert (read["iops"], read["lat_mean_us"], read["lat_stddev_us"]) == (834.98, 272.0, 185.0)
    assert (read["p50_us"], read["p99_us"], read["p999_us"], read["p9999_us"]) == (232.0, 877.0, 1608.0, 4753.0)
    assert (read["lat_min_us"], read["lat_max_us"], read["p995_us"]) == (36.0, 7990.0, None)
    assert (write["ios"], write["iops"], write["lat_mean_us"], write["p99_us"]) == (10626, 354.05, 2179.0, 6107.0)
    assert read["bw_kbs"] == pytest.approx(834.98 * 4096 / 1024)
    assert (read["rw"], read["bs"], read["iodepth"], read["numjobs"], read["ioengine"], read["runtime_s"]) == \
        ("randrw", "4KiB", "1", "1", "diskspd", 30.01)
    assert read["pct_of"] == "lat"
    run = ws.run(rid)
    assert (run.kind, run.format, run.host) == ("diskspd", "diskspd-text", "QuickTest2")
    assert str(run.started_at) == "2021-04-16 19:03:38"
    meta = _meta(ws, rid)
    assert meta["utc_offset"] == "+00:00"
    assert meta["targets"][0]["write_pct"] == 30
    assert meta["latency_percentiles_ms"]["total"]["p50"] == 0.297


def _thread_rows(path, section, suffix):
    """The thread rows of one table ('Read IO', 'Write IO') whose file column ends with ``suffix``, split by
    hand: (bytes, I/Os, I/O per s)."""
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    start = lines.index(section)
    out = []
    for line in lines[start + 3:]:
        if line.startswith("---"):
            break
        cells = [c.strip() for c in line.split("|")]
        if cells[-1].endswith(suffix):
            out.append((int(cells[1]), int(cells[2]), float(cells[4])))
    return out


def test_five_targets_are_the_sums_of_their_threads_with_their_own_percentiles(ws):
    """vc_diskspd-2.0_write8k_5targets_115threads.txt: 23 threads per target; the E: rows of 'Write IO' added
    up by hand; E:'s own percentile table (titled by its path): 50th 1.003, 99th 24.265, 3-nines 372.604,
    max 2985.491 ms; the run-wide 'total:' table's 99th 368.150 ms goes to the run, not to a target."""
    path = D / "vc_diskspd-2.0_write8k_5targets_115threads.txt"
    rid = _imported(ws, path).run_ids[0]
    rows = _jobs(ws, rid)
    assert [r["device"] for r in rows] == [f"{d}:\\diskspd-test.dat" for d in "EFGHI"]
    assert {r["op"] for r in rows} == {"write"}  # every read row is 0 I/Os
    e = rows[0]
    mine = _thread_rows(path, "Write IO", "E:\\diskspd-test.dat (496GiB)")
    assert len(mine) == 23
    assert e["ios"] == sum(r[1] for r in mine)
    assert e["io_kb"] == sum(r[0] for r in mine) / 1024
    assert e["iops"] == pytest.approx(sum(r[2] for r in mine))
    assert (e["p50_us"], e["p99_us"], e["p999_us"], e["lat_max_us"]) == (1003.0, 24265.0, 372604.0, 2985491.0)
    assert sum(r["ios"] for r in rows) == 19812174  # the 'Write IO' total row
    assert (e["numjobs"], e["iodepth"], e["bs"], e["rw"]) == ("23", "22", "8KiB", "randwrite")
    meta = _meta(ws, rid)
    assert meta["latency_percentiles_ms"]["write"]["p99"] == 368.150
    assert len(meta["threads"]) == 115
    assert "an estimate" in meta["figures"]  # the mean latency of 23 threads is pooled


def test_diskspd_2_2_total_latency_distribution(ws):
    """vc_diskspd-2.2.0_write4k_4threads.txt: 'Total latency distribution:' (2.2's title): write 50th 140.008,
    99th 161.752, 4-nines 164.312 ms; 'Write IO' total row: 5083 I/Os, 508.09 I/O per s, AvgLat 125.800."""
    rid = _imported(ws, D / "vc_diskspd-2.2.0_write4k_4threads.txt").run_ids[0]
    (w,) = _jobs(ws, rid)
    assert (w["ios"], w["iops"], w["lat_mean_us"]) == (5083, 508.09, 125800.0)
    assert (w["p50_us"], w["p99_us"], w["p9999_us"]) == (140008.0, 161752.0, 164312.0)
    run = ws.run(rid)
    assert run.tool_version == "DiskSpd 2.2+ (from the layout)"
    assert _meta(ws, rid)["command_line"].endswith(r"-Rtext C:\diskspd-test.dat")


def test_a_report_cut_down_by_hand_is_said_and_its_total_row_used(ws):
    """vc_diskspd-2.2.0_write4k_800threads_trimmed.txt: 'thread count: 800' but two thread rows; one target, so
    the total row (2017883745 I/Os, 2242082.85 I/O per s) is the target's figure."""
    r = _imported(ws, D / "vc_diskspd-2.2.0_write4k_800threads_trimmed.txt")
    warnings = ws.run(r.run_ids[0]).warnings
    assert any(":39: timespan 1: the report lists 2 of its 800 threads" in w for w in warnings)
    assert any("add up to 4,620,363 I/Os" in w and "says 2,017,883,745" in w for w in warnings)
    (w,) = _jobs(ws, r.run_ids[0])
    assert (w["ios"], w["iops"]) == (2017883745, 2242082.85)


# ---- the XML, read independently with ElementTree ---------------------------------------------------------
def test_xml_with_latency_matches_the_file_read_with_elementtree(ws):
    path = D / "vc_diskspd-2.0.21a_rw70-30_L_D.xml"
    root = ET.parse(path).getroot()
    ts = root.find("TimeSpan")
    t = ts.find("Thread/Target")
    time = float(ts.findtext("TestTimeSeconds"))
    lat = ts.find("Latency")
    pct = {float(b.findtext("Percentile")): b for b in lat.findall("Bucket")}
    rid = _imported(ws, path).run_ids[0]
    read, write = _jobs(ws, rid)
    assert read["ios"] == int(t.findtext("ReadCount")) == 37162
    assert read["io_kb"] == int(t.findtext("ReadBytes")) / 1024
    assert read["iops"] == pytest.approx(37162 / time)
    assert read["bw_kbs"] == pytest.approx(int(t.findtext("ReadBytes")) / 1024 / time)
    assert read["lat_mean_us"] == float(lat.findtext("AverageReadMilliseconds")) * 1000
    assert read["lat_stddev_us"] == float(lat.findtext("ReadLatencyStdev")) * 1000
    assert read["p99_us"] == pytest.approx(float(pct[99.0].findtext("ReadMilliseconds")) * 1000)
    assert read["p9999_us"] == pytest.approx(float(pct[99.99].findtext("ReadMilliseconds")) * 1000)
    assert write["p50_us"] == pytest.approx(float(pct[50.0].findtext("WriteMilliseconds")) * 1000)
    assert write["lat_max_us"] == pytest.approx(float(pct[100.0].findtext("WriteMilliseconds")) * 1000)
    assert read["p995_us"] is None  # DiskSpd prints no 99.5th percentile
    meta = _meta(ws, rid)
    assert meta["io_buckets"]["count"] == len(ts.findall("Iops/Bucket")) == 120
    assert ws.run(rid).tool_version == "DiskSpd 2.0.21a"


def test_xml_without_latency_sums_its_threads(ws):
    path = D / "pkb_diskspd_result.xml"
    ts = ET.parse(path).getroot().find("TimeSpan")
    counts = [int(t.findtext("Target/ReadCount")) for t in ts.findall("Thread")]
    rid = _imported(ws, path).run_ids[0]
    (r,) = _jobs(ws, rid)
    assert r["ios"] == sum(counts) == 90970
    assert (r["device"], r["rw"], r["bs"], r["numjobs"], r["iodepth"]) == (
        "C:\\scratch\\testfile.dat", "read", "64KiB", "4", "2")
    assert (r["lat_mean_us"], r["p99_us"], r["pct_of"]) == (None, None, None)
    assert [t["read_ios"] for t in _meta(ws, rid)["threads"]] == counts


# ---- bad input --------------------------------------------------------------------------------------------
def _parse(path):
    warnings = []
    fmt = detect(str(path))
    events = list(fmt.parse(str(path), ImportOptions(), JobState(), lambda m, line: warnings.append((line, m))))
    return fmt, events, warnings


def test_a_report_cut_before_its_write_table_fails_at_the_end(ws, tmp_path):
    text = (D / "vc_diskspd-2.0_randrw70-30_1thread.txt").read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: text.index("Write IO")])
    r = import_file(ws, str(cut), ImportOptions())
    assert r.status == "failed"
    assert re.search(r"cut\.txt:\d+: timespan 1: no 'Write IO' table", r.error)
    assert ws.runs() == []


def test_a_damaged_number_names_its_line(ws, tmp_path):
    lines = (D / "vc_diskspd-2.0_randrw70-30_1thread.txt").read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if "102645760" in line)
    lines[k] = lines[k].replace("102645760", "1026x5760")
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines))
    r = import_file(ws, str(bad), ImportOptions())
    assert r.status == "failed"
    assert f"bad.txt:{k + 1}: bytes '1026x5760' is not a number" in r.error


def test_a_row_that_does_not_fit_its_header_names_its_line(ws, tmp_path):
    lines = (D / "vc_diskspd-2.2.0_write4k_4threads.txt").read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.startswith("     2 |"))
    lines[k] = lines[k].replace(" |  125.298", "")
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(lines))
    r = import_file(ws, str(bad), ImportOptions())
    assert r.status == "failed"
    assert f"bad.txt:{k + 1}: a row of the 'Total IO' table has 8 cells where its header has 9" in r.error


def test_text_before_the_report_is_skipped_with_a_warning(tmp_path):
    text = (D / "vc_diskspd-2.2.0_write4k_4threads.txt").read_text()
    f = tmp_path / "pasted.txt"
    f.write_text(r"C:\dskspd> diskspd.exe -c1G -b4K" + "\n" + text)
    _fmt, events, warnings = _parse(f)
    assert warnings[0][0] == 1
    assert "before DiskSpd's report skipped" in warnings[0][1]
    assert any(getattr(e, "table", None) == "fio_jobs" for e in events)


def test_an_interrupted_test_has_no_results(ws, tmp_path):
    text = (D / "vc_diskspd-2.0_randrw70-30_1thread.txt").read_text()
    head = text[: text.index("actual test time")]
    f = tmp_path / "stopped.txt"
    f.write_text(head + "The test was interrupted before the measurements began. No results are displayed.\n")
    r = import_file(ws, str(f), ImportOptions())
    assert r.status == "failed"
    assert "interrupted before the measurements began" in r.error


def test_a_cut_xml_fails_naming_its_line(ws, tmp_path):
    text = (D / "vc_diskspd-2.0.21a_rw70-30_L_D.xml").read_text()
    f = tmp_path / "cut.xml"
    f.write_text(text[:60000])
    r = import_file(ws, str(f), ImportOptions())
    assert r.status == "failed"
    assert re.search(r"cut\.xml:\d+: invalid XML \(.*\); the file may be cut off", r.error)


def test_an_xml_value_that_is_not_a_number_names_its_line(ws, tmp_path):
    lines = (D / "pkb_diskspd_result.xml").read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if "<ReadCount>22623</ReadCount>" in line)
    lines[k] = lines[k].replace("22623", "22,623")
    f = tmp_path / "bad.xml"
    f.write_text("".join(lines))
    r = import_file(ws, str(f), ImportOptions())
    assert r.status == "failed"
    assert f"bad.xml:{k + 1}: <ReadCount> '22,623' is not a number" in r.error


def test_the_xml_refuses_entity_declarations(ws, tmp_path):
    f = tmp_path / "e.xml"
    f.write_text('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "aaaa">]>\n<Results>\n<System><ComputerName>x'
                 "</ComputerName><Tool></Tool></System>\n</Results>\n")
    r = import_file(ws, str(f), ImportOptions())
    assert r.status == "failed"  # not taken for a DiskSpd result (a DOCTYPE comes before <Results>) ...
    assert ws.runs() == []
    with pytest.raises(ParseError, match="the XML declares entities") as e:  # ... nor read if asked directly
        list(XML_FORMAT.parse(str(f), ImportOptions(), JobState(), lambda _m, _line: None))
    assert e.value.line == 2


# ---- compare and report through the command line ----------------------------------------------------------
@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    """DiskSpd text (run 1), DiskSpd XML of the same machine (run 2), fio json+ (run 3)."""
    w = str(tmp_path_factory.mktemp("diskspd") / "ws.duckdb")
    for f in (D / "vc_diskspd-2.0_randrw70-30_1thread.txt", D / "vc_diskspd-2.0.21a_rw70-30_L_D.xml",
              SAMPLES / "fio_randrw_jsonplus.json"):
        p = run("import", str(f), "-w", w)
        assert p.returncode == 0, p.stdout + p.stderr
    return w


def _compare(wsp, *runs):
    p = run("compare", "-w", wsp, "--runs", *runs, "--json")
    assert p.returncode == 0, p.stderr
    return {m["metric"]: m["values"] for m in json.loads(p.stdout)["metrics"]}


def test_compare_two_diskspd_runs(wsp):
    m = _compare(wsp, "1", "2")
    assert m["total_ios"] == [25060 + 10626, 37162 + 15753]
    assert m["mean_iops"][0] == pytest.approx(834.98 + 354.05)
    assert m["read_share"][0] == pytest.approx(25060 / 35686)
    # I/O-weighted mean of DiskSpd's read and write means
    assert m["mean_latency_ms"][0] == pytest.approx((25060 * 0.272 + 10626 * 2.179) / 35686)
    assert m["duration_s"] == [30.01, 120.01]
    # no latency histogram: the p99 of all I/O is DiskSpd's own, as printed in its table's "total" column
    assert m["latency_p99_ms"][0] == 4.713


def test_compare_a_diskspd_and_a_fio_run(wsp):
    m = _compare(wsp, "1", "3")
    assert m["total_ios"][0] == 35686
    assert m["total_ios"][1] > 0
    assert m["mean_iops"][1] > m["mean_iops"][0]


def test_the_report_shows_the_diskspd_job_table(wsp, tmp_path):
    pdf = tmp_path / "r.pdf"
    p = run("report", "-w", wsp, "-o", str(pdf), "--runs", "1", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "Benchmark results" in text
    assert "vc_diskspd-2.0_randrw70-30_1thread (DiskSpd)" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("diskspd.dat") and " read " in line)
    assert row.split() == ["diskspd.dat", "read", "randrw", "4KiB", "1", "1", "835.0", "3.3", "0.272", "ms",
                           "0.877", "ms"]
    assert "DiskSpd 2.0.21a" in text  # the XML run's tool version in the appendix


def test_several_timespans_are_one_run_each(ws, tmp_path):
    """An XML profile with two timespans (PKB's result with its timespan repeated, the second's counts halved):
    one run per timespan, named by it, so a comparison never adds up phases that ran one after the other."""
    text = (D / "pkb_diskspd_result.xml").read_text()
    prof = re.search(r"<TimeSpans>\s*(<TimeSpan>.*?</TimeSpan>)", text, re.S).group(1)
    res = re.search(r"\n   (<TimeSpan>\s*<TestTimeSeconds>.*?</TimeSpan>)", text, re.S).group(1)
    half = re.sub(r"<ReadCount>(\d+)</ReadCount>", lambda m: f"<ReadCount>{int(m.group(1)) // 2}</ReadCount>", res)
    two = text.replace(prof, prof + prof).replace(res, res + half)
    f = tmp_path / "two.xml"
    f.write_text(two)
    r = _imported(ws, f)
    assert len(r.run_ids) == 2
    names = [ws.run(i).name for i in r.run_ids]
    assert names == ["two — timespan 1", "two — timespan 2"]
    assert [_jobs(ws, i)[0]["ios"] for i in r.run_ids] == [90970, sum(c // 2 for c in (22645, 22623, 22548, 23154))]
    assert [_jobs(ws, i)[0]["groupid"] for i in r.run_ids] == [1, 2]


def test_a_dropped_diskspd_report_is_listed_under_diskspd_and_its_host(window, qtbot):
    from tests.conftest import drop_paths

    drop_paths(window, [D / "vc_diskspd-2.2.0_write4k_4threads.txt"])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    tree = window.browser.tree
    kinds = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}
    assert "DiskSpd" in kinds  # the name customers read, not the kind's id
    host = kinds["DiskSpd"].child(0)
    assert host.text(0) == "alexwill-dskspd"
    assert host.child(0).text(0) == "vc_diskspd-2.2.0_write4k_4threads"
    qtbot.keyClicks(window.browser.search, "diskspd")  # searching by the kind finds it
    assert not host.child(0).isHidden()
