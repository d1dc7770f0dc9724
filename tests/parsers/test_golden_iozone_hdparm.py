"""Every IOzone and hdparm file of the corpus imports to exactly its reviewed golden output, and values
read by hand from each file (independently of the parsers) hold.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_iozone_hdparm.py`, and review the diff.
"""

import re

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

IOZONE = corpus_files("iozone")
HDPARM = corpus_files("hdparm")
TABLE_TESTS = ["write", "rewrite", "read", "reread", "random_read", "random_write", "backward_read",
               "record_rewrite", "stride_read", "fwrite", "frewrite", "fread", "freread"]
REPORT_TESTS = {"Writer": "write", "Re-writer": "rewrite", "Reader": "read", "Re-Reader": "reread",
                "Random read": "random_read", "Random write": "random_write", "Backward read": "backward_read",
                "Record rewrite": "record_rewrite", "Stride read": "stride_read", "Fwrite": "fwrite",
                "Re-Fwrite": "frewrite", "Fread": "fread", "Re-Fread": "freread"}


@pytest.mark.parametrize("path", IOZONE, ids=[p.name for p in IOZONE])
def test_iozone_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "iozone", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


@pytest.mark.parametrize("path", HDPARM, ids=[p.name for p in HDPARM])
def test_hdparm_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "hdparm", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden():
    assert len(IOZONE) >= 5, f"expected the IOzone and hdparm corpus at {CORPUS}"
    assert len(HDPARM) >= 5, f"expected the IOzone and hdparm corpus at {CORPUS}"
    for kind, files in (("iozone", IOZONE), ("hdparm", HDPARM)):
        have = {p.name for p in (GOLDEN / kind).iterdir()} if (GOLDEN / kind).is_dir() else set()
        assert {p.name for p in files} <= have


def _imported(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


def _rows(ws, rid, table, order="line"):
    cur = ws.con.execute(f"SELECT * FROM {table} WHERE run_id = ? ORDER BY {order}", [rid])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _cells(ws, rid):
    return {(r["test"], r["file_kb"], r["record_kb"]): r["kb_s"] for r in _rows(ws, rid, "iozone_results")}


# ---- IOzone auto-mode tables, every cell read independently -------------------------------------------
@pytest.mark.parametrize(("name", "table_rows"), [("iozone-results-comparator_ext2_1.iozone.txt", 163),
                                                  ("iozone2csv_iozone.out.txt", 8)])
def test_every_table_cell_equals_the_file(ws, name, table_rows):
    """These two tables have no blank column and no value wider than its field, so a plain split of each
    row (15 whole numbers: size, record, 13 tests in header order) reads them right: the parser's
    fixed-width reading must agree with it everywhere."""
    path = CORPUS / "iozone" / name
    expected = {}
    for line in path.read_text().splitlines():
        if re.fullmatch(r"\s*\d+(\s+\d+)+\s*", line):
            v = [int(x) for x in line.split()]
            assert len(v) == 15, line
            expected.update({(t, v[0], v[1]): float(x) for t, x in zip(TABLE_TESTS, v[2:])})
    assert len(expected) == table_rows * 13  # the plain split read every table row of the file
    r = _imported(ws, path)
    assert _cells(ws, r.run_ids[0]) == expected


def test_iozone_3434_values_read_by_hand(ws):
    r = _imported(ws, CORPUS / "iozone" / "iozone2csv_iozone.out.txt")
    rid = r.run_ids[0]
    cells = _cells(ws, rid)
    assert len(cells) == 8 * 13
    # line 31: the 8-digit record rewrite 11968815 starts left of its header label and touches nothing
    assert cells[("record_rewrite", 1048576, 512)] == 11968815
    assert cells[("stride_read", 1048576, 512)] == 7556588
    assert cells[("backward_read", 1048576, 512)] == 7688128
    # line 32 (1024 kB records): record rewrite 12017380, fwrite 7003729
    assert cells[("record_rewrite", 1048576, 1024)] == 12017380
    assert cells[("fwrite", 1048576, 1024)] == 7003729
    # line 38: 2 GB file, 4 MB records: write 4339063, freread 6736193
    assert cells[("write", 2097152, 4096)] == 4339063
    assert cells[("freread", 2097152, 4096)] == 6736193
    run = ws.run(rid)
    meta = run.meta.as_dict()
    assert run.tool_version == "IOzone 3.434"
    assert str(run.started_at) == "2018-02-14 14:29:28"
    assert meta["command_line"] == "iozone -a -n 1g -g 2g -y 512k -q 4m -f /tmp/testme"
    assert meta["options"]["-y"] == "512k"
    assert meta["options"]["-a"] is True
    assert (meta["mode"], meta["unit"], meta["min_file_kb"], meta["max_record_kb"]) == ("auto", "kB/s", 1048576, 4096)
    assert {x["mode"] for x in _rows(ws, rid, "iozone_results")} == {"auto"}
    assert {x["threads"] for x in _rows(ws, rid, "iozone_results")} == {1}


def test_iozone_3327_values_read_by_hand(ws):
    r = _imported(ws, CORPUS / "iozone" / "iozone-results-comparator_ext2_1.iozone.txt")
    rid = r.run_ids[0]
    cells = _cells(ws, rid)
    # old "KB" / "Kbytes/sec" spellings: still kB/s
    meta = ws.run(rid).meta.as_dict()
    assert (meta["unit"], meta["unit_line"], meta["version"]) == ("kB/s", "Output is in Kbytes/sec", "3.327")
    # line 26: "8 8 1300272 992567 1164854 65560 ..." (a write value touching nothing, an odd 65560 reread)
    assert cells[("write", 8, 8)] == 1300272
    assert cells[("reread", 8, 8)] == 65560
    # auto mode skips records below 64 kB for files over 16 MB: the 32 MB file starts at 64 kB
    assert sorted(rec for (t, f, rec) in cells if t == "write" and f == 32768)[0] == 64
    assert sorted(rec for (t, f, rec) in cells if t == "write" and f == 16384)[0] == 4
    # the last row (line 188): 4 GB file, 16 MB records, freread 95904
    assert cells[("freread", 4194304, 16384)] == 95904
    assert cells[("random_read", 4194304, 16384)] == 88463
    assert len(cells) == 163 * 13


def test_iozone_report_only_file_read_by_hand(ws):
    """13 quoted blocks; each row is left-packed under the record sizes up to the file size."""
    path = CORPUS / "iozone" / "iozone-renderer_iozone-R-report.txt"
    r = _imported(ws, path)
    rid = r.run_ids[0]
    assert any("does not say its unit" in w for w in r.warnings)
    rows = _rows(ws, rid, "iozone_results")
    assert {x["source"] for x in rows} == {"report"}
    assert {x["mode"] for x in rows} == {"auto"}
    expected = {}
    title = records = None
    for line in path.read_text().splitlines():
        s = line.strip()
        if s.endswith('report"'):
            title = REPORT_TESTS[s.strip('"').removesuffix(" report")]
        elif s.startswith('"4"'):
            records = [int(x) for x in re.findall(r'"(\d+)"', s)]
        elif s.startswith('"'):
            f, *vals = s.replace('"', " ").split()
            for rec, v in zip(records, vals):
                expected[(title, int(f), rec)] = float(v)
    assert len(expected) == 13 * (5 + 6 + 7 + 8 + 9 + 10 + 11)
    assert _cells(ws, rid) == expected
    cells = _cells(ws, rid)
    assert cells[("read", 512, 512)] == 15471149  # an 8-digit value (Reader report, row "512")
    assert cells[("stride_read", 4096, 16)] == 10779149
    assert cells[("random_write", 4096, 4096)] == 2471637


def test_iozone_throughput_t12_read_by_hand(ws):
    r = _imported(ws, CORPUS / "iozone" / "snippet_lkml-iommu_iozone-t12-plus-u.txt")
    rows = _rows(ws, r.run_ids[0], "iozone_results")
    assert [(x["test"], x["threads"], x["mode"], x["source"]) for x in rows] == [
        ("write", 12, "throughput", "throughput"), ("rewrite", 12, "throughput", "throughput"),
        ("read", 12, "throughput", "throughput"), ("reread", 12, "throughput", "throughput")]
    w = rows[0]
    assert (w["kb_s"], w["parent"], w["min_proc"], w["max_proc"], w["avg_proc"], w["min_xfer"]) == (
        4732581.09, 4646810.21, 387764.34, 399655.47, 394381.76, 1017344.00)
    # "CPU Utilization:" in the first block, "CPU utilization:" in the others
    assert (w["cpu_wall_s"], w["cpu_s"], w["cpu_pct"]) == (2.671, 1.974, 73.89)
    assert rows[1]["cpu_pct"] == 75.82
    assert rows[3]["cpu_pct"] == 93.22
    assert rows[3]["kb_s"] == 5947985.69
    assert {x["file_kb"] for x in rows} == {None}  # the excerpt does not give the file size


def test_iozone_throughput_308_read_by_hand(ws):
    r = _imported(ws, CORPUS / "iozone" / "snippet_ubuntuforums_iozone-throughput-l5-u5-R.txt", ram_gb=4)
    rid = r.run_ids[0]
    rows = {x["test"]: x for x in _rows(ws, rid, "iozone_results")}
    assert list(rows) == ["write", "rewrite", "read", "reread", "backward_read", "stride_read", "random_read",
                          "mixed", "random_write", "pwrite", "pread"]
    assert {(x["threads"], x["file_kb"], x["record_kb"], x["source"]) for x in rows.values()} == {
        (5, 51200, 4, "throughput")}
    m = rows["mixed"]
    assert (m["kb_s"], m["parent"], m["min_proc"], m["max_proc"], m["avg_proc"], m["min_xfer"]) == (
        1135221.11, 33978.11, 91808.22, 449924.38, 227044.22, 10452.00)
    assert rows["write"]["kb_s"] == 246059.19
    assert rows["pread"]["parent"] == 1222923.59
    meta = ws.run(rid).meta.as_dict()
    # the -R "Throughput report" repeats the 11 children figures: checked, not stored twice
    assert meta["throughput_report_values_checked"] == 11
    assert meta["version"] == "3.308"
    assert meta["options"]["-l"] == "5"
    assert meta["options"]["-R"] is True
    assert len(meta["options"]["-F"]) == 5
    # 5 x 50 MB = 250 MB is far below 4 GB of RAM: the page cache likely served the re-reads
    assert meta["page_cache"]["likely"] is True
    assert all(x["page_cache_likely"] for x in rows.values())
    assert any("page cache likely" in w for w in r.warnings)


def test_page_cache_judged_per_result_against_ram(ws):
    path = CORPUS / "iozone" / "iozone-results-comparator_ext2_1.iozone.txt"
    r = _imported(ws, path, ram_gb=4)
    rows = _rows(ws, r.run_ids[0], "iozone_results")
    # 4 GB = 4194304 kB: every file below it is flagged, the 4 GB file is not
    assert all(x["page_cache_likely"] == (x["file_kb"] < 4194304) for x in rows)
    assert sum(x["page_cache_likely"] for x in rows) == len(rows) - 9 * 13
    # without --ram-gb nothing is claimed
    ws.delete_run(r.run_ids[0])
    r = _imported(ws, path)
    assert {x["page_cache_likely"] for x in _rows(ws, r.run_ids[0], "iozone_results")} == {None}
    assert ws.run(r.run_ids[0]).meta.as_dict()["page_cache"]["likely"] is None


# ---- hdparm, read by hand -------------------------------------------------------------------------------
def _hd(ws, name):
    r = _imported(ws, CORPUS / "hdparm" / name)
    return [(x["device"], x["test"], x["run_idx"], x["mb"], x["seconds"], x["mb_s"], x["ok"], x["error"])
            for x in _rows(ws, r.run_ids[0], "hdparm_results")], r


def test_hdparm_values_read_by_hand(ws):
    rows, _ = _hd(ws, "snippet_hdparm-Tt_xvda_modern.txt")
    assert rows == [("/dev/xvda", "cached", 0, 18706, 1.98, 9423.90, True, None),
                    ("/dev/xvda", "disk", 0, 1178, 3.00, 392.62, True, None)]
    rows, _ = _hd(ws, "snippet_hdparm-t_lvm-path.txt")
    assert rows == [("/dev/LVMGROUP/VOLUME", "disk", 0, 142, 3.01, 47.24, True, None)]
    rows, r = _hd(ws, "snippet_hdparm-t_repeated-runs_with-prompts.txt")
    assert rows == [("/dev/sda", "disk", 0, 456, 3.01, 151.45, True, None),
                    ("/dev/sda", "disk", 1, 442, 3.00, 147.29, True, None)]
    assert ws.run(r.run_ids[0]).meta.as_dict()["commands"] == ["~$ sudo hdparm -t /dev/sda"]
    # 2003 wording: "Timing buffer-cache reads", "=213.33" without a space; two devices
    rows, _ = _hd(ws, "snippet_lkml2003_hdparm-tT_old-format.txt")
    assert rows == [("/dev/md1", "cached", 0, 128, 0.60, 213.33, True, None),
                    ("/dev/md1", "disk", 0, 64, 2.22, 28.83, True, None),
                    ("/dev/hdc", "cached", 0, 128, 0.56, 228.57, True, None),
                    ("/dev/hdc", "disk", 0, 64, 4.33, 14.78, True, None)]


def test_hdparm_failures_are_failed_measurements(ws):
    rows, r = _hd(ws, "snippet_hdparm-tT_io-error.txt")
    err = "read() failed: Input/output error"
    # the cache test reads before printing its label: its failure stands alone on line 3
    assert rows == [("/dev/sda1", "cached", 0, None, None, None, False, err),
                    ("/dev/sda1", "disk", 0, None, None, None, False, err)]
    assert any(w.endswith(f"disk read test failed: {err}") for w in r.warnings)
    run = ws.run(r.run_ids[0])
    assert run.n_rows == 2
    assert run.meta.as_dict()["failed"] == 2
