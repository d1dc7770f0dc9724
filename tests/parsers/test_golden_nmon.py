"""nmon and AIX topas_nmon files (issue 15): every corpus file imports to exactly its reviewed golden output (or is
refused with a message naming its line), and values read by hand from the files -- independently of the parser --
hold.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_nmon.py`, and review the diff.
"""

import json
from datetime import datetime

import polars as pl
import pytest

import parsers.nmon as nmon
from app.importer import import_file
from parsers.base import ImportOptions, JobState, Rows
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

NMON = corpus_files("nmon", lambda p: p.suffix == ".nmon")
EXCERPT = CORPUS / "nmon" / "snippet_atsd-doc_aix-topas_nmon-snapshot-T0009.nmon.txt"
SPLIT = CORPUS / "nmon" / "vm_nmon-16n_loop-partitions_l3-split_D.nmon"
AIX = CORPUS / "nmon" / "nmon2influxdb_aixlpar.nmon"
LINUX15 = CORPUS / "nmon" / "nmon2influxdb_linux_150818_1024.nmon"
GROWS = CORPUS / "nmon" / "vm_nmon-16n_disk-list-grows.nmon"


@pytest.mark.parametrize("path", NMON, ids=[p.name for p in NMON])
def test_nmon_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "nmon", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden_or_is_the_refused_excerpt():
    assert {p.name for p in corpus_files("nmon")} == {p.name for p in NMON} | {EXCERPT.name}
    assert {p.name for p in (GOLDEN / "nmon").iterdir()} == {p.name for p in NMON}


def _imported(ws, path):
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    return r


def _sample(ws, rid, idx, device):
    cur = ws.con.execute("SELECT * FROM iostat_samples WHERE run_id = ? AND sample_idx = ? AND device = ?",
                         [rid, idx, device])
    rows = cur.fetchall()
    assert len(rows) == 1, (idx, device, rows)
    return dict(zip([d[0] for d in cur.description], rows[0]))


def _cpu(ws, rid, idx):
    cur = ws.con.execute("SELECT user, nice, system, iowait, steal, idle FROM cpu_samples "
                         "WHERE run_id = ? AND sample_idx = ?", [rid, idx])
    return dict(zip([d[0] for d in cur.description], cur.fetchall()[0]))


# ---- values read by eye from the files (the line each comes from is quoted) ---------------------------------
HAND = {
    # vm_nmon-16n_loop-partitions_l3-split_D.nmon, T0005 (4 KiB random reads on loop0p1):
    #   DISKREAD,T0005,316963.7,316963.7,0.0   DISKREADS,T0005,79240.9,79240.9,0.0   DISKBUSY,T0005,52.0,81.0,0.0
    #   DISKBSIZE,T0005,4.0,4.0,0.0 (headers: loop0,loop0p1,loop0p2)
    (SPLIT, 4, "loop0p1"): {"rkb_s": 316963.7, "r_s": 79240.9, "util_pct": 81.0, "areq_kb": 4.0, "wkb_s": 0.0,
                           "tps": None, "ts": datetime(2026, 11, 23, 22, 24, 7), "t_s": 4.0},
    # the *1 parts (headers: loop1,loop2,vda): DISKREAD1,T0005,0.0,0.0,1727.1
    (SPLIT, 4, "vda"): {"rkb_s": 1727.1},
    # T0012, the 128 MiB sequential write on loop2: DISKWRITE1,T0012,0.0,130953.2,0.0  DISKWRITES1,T0012,0.0,255.8,0.0
    #   DISKBUSY1,T0012,0.0,19.0,0.0  DISKBSIZE1,T0012,0.0,512.0,0.0
    (SPLIT, 11, "loop2"): {"wkb_s": 130953.2, "w_s": 255.8, "util_pct": 19.0, "areq_kb": 512.0, "r_s": 0.0},
    # nmon2influxdb_aixlpar.nmon, T0001 (header order hdisk6,hdisk2,hdisk1,hdisk5,hdisk4,hdisk3,hdisk8,hdisk7):
    #   DISKREAD,T0001,17.5,…,582.1  DISKWRITE …,164.0  DISKRIO …,5.0  DISKWIO …,38.8  DISKBUSY …,7.9  DISKBSIZE …,17.0
    (AIX, 0, "hdisk7"): {"rkb_s": 582.1, "wkb_s": 164.0, "r_s": 5.0, "w_s": 38.8, "util_pct": 7.9, "areq_kb": 17.0,
                         "tps": None, "ts": datetime(2016, 2, 10, 17, 28, 10)},
    (AIX, 0, "hdisk6"): {"rkb_s": 17.5, "wkb_s": 0.0, "r_s": 0.1, "w_s": 0.0, "areq_kb": 116.9},
    # T0187 (the last): DISKBUSY,T0187,0.1,3.9,8.3,5.8,0.3,1.1,33.6,64.6 -> hdisk8 (7th) 33.6;
    # ZZZZ,T0187,08:59:32,11-FEB-2016 is 15 h 31 min 22 s after ZZZZ,T0001,17:28:10,10-FEB-2016
    (AIX, 186, "hdisk8"): {"util_pct": 33.6, "ts": datetime(2016, 2, 11, 8, 59, 32), "t_s": 55_882.0},
    # nmon2influxdb_linux_150818_1024.nmon, T0001 (sda,sda1,sda2,sdb,sdb1,dm-0 … dm-6): DISKBUSY …,81.7 (sdb, 4th)
    #   DISKWRITE …,280.6  DISKXFER …,273.2  DISKBSIZE …,1.0; dm-6 (last): 81.7, 280.6, 272.4, 1.0
    (LINUX15, 0, "sdb"): {"util_pct": 81.7, "rkb_s": 0.0, "wkb_s": 280.6, "tps": 273.2, "areq_kb": 1.0,
                          "r_s": None, "w_s": None},
    (LINUX15, 0, "dm-6"): {"util_pct": 81.7, "wkb_s": 280.6, "tps": 272.4, "areq_kb": 1.0},
    # vm_nmon-16n_disk-list-grows.nmon, T0001 (header loop0,vda): DISKREAD,T0001,3.5,1525.4  DISKXFER,T0001,0.9,38.8
    (GROWS, 0, "vda"): {"rkb_s": 1525.4, "tps": 38.8, "areq_kb": 39.3, "util_pct": 0.0},
}


def test_values_read_by_hand_from_the_files(ws):
    rid = {p: _imported(ws, p).run_ids[0] for p in {k[0] for k in HAND}}
    for (path, idx, device), want in HAND.items():
        got = _sample(ws, rid[path], idx, device)
        assert {k: got[k] for k in want} == want, (path.name, idx, device)
        assert got["since_boot"] is False
        assert got["layer"] is None  # names as printed: the whole-disk rules read them
    # CPU_ALL,T0001,36.3,11.8,0.0,51.0,0.8,,2 (User% Sys% Wait% Idle% Steal% Busy CPUs)
    assert _cpu(ws, rid[SPLIT], 0) == {"user": 36.3, "nice": None, "system": 11.8, "iowait": 0.0, "steal": 0.8,
                                       "idle": 51.0}
    # AIX CPU_ALL has no Steal%: CPU_ALL,T0187,20.0,31.8,0.5,47.7,,28
    assert _cpu(ws, rid[AIX], 186) == {"user": 20.0, "nice": None, "system": 31.8, "iowait": 0.5, "steal": None,
                                       "idle": 47.7}
    runs = {r.name: r for r in (ws.run(i) for i in rid.values())}
    aix = runs["nmon2influxdb_aixlpar"]
    assert (aix.host, aix.os, aix.tool_version, aix.interval_s, aix.n_samples, aix.n_devices) == (
        "aixlpar", "AIX 7.1.3.30", "topas_nmon", 300.0, 187, 8)
    split = runs["vm_nmon-16n_loop-partitions_l3-split_D"]
    assert (split.tool_version, split.os, split.n_devices) == ("nmon 16n", "Linux 6.18.44-fc-v595", 6)


def test_every_disk_value_of_the_split_capture_equals_the_file(ws):
    """A plain reader, independent of the parser: each DISK section's header names its columns, its *1 part names
    the rest; every value of every snapshot must be stored for that device (DISKXFER excepted: the file has reads
    and writes per second, so tps is not filled)."""
    column = {"DISKREAD": "rkb_s", "DISKWRITE": "wkb_s", "DISKREADS": "r_s", "DISKWRITES": "w_s",
              "DISKBUSY": "util_pct", "DISKBSIZE": "areq_kb"}
    names: dict[str, list[str]] = {}
    expected = {}
    for line in SPLIT.read_text().splitlines():
        f = line.split(",")
        sec = f[0].rstrip("1")
        if sec not in column:
            continue
        if not f[1].startswith("T"):
            names[f[0]] = f[2:]
        else:
            for dev, v in zip(names[f[0]], f[2:], strict=True):
                expected[(int(f[1][1:]) - 1, dev, column[sec])] = float(v)
    assert len(expected) == 14 * 6 * 6
    rid = _imported(ws, SPLIT).run_ids[0]
    cur = ws.con.execute("SELECT * FROM iostat_samples WHERE run_id = ?", [rid])
    cols = [d[0] for d in cur.description]
    got = {}
    for row in cur.fetchall():
        r = dict(zip(cols, row))
        assert r["tps"] is None
        for c in column.values():
            got[(r["sample_idx"], r["device"], c)] = r[c]
    assert got == expected


def test_a_disk_list_that_changes_leaves_the_unnamed_values_out_and_says_so(ws):
    """nmon 16n started before loop0p1 and loop0p2 had done I/O: its header names loop0 and vda; from T0003 its rows
    carry 3, then 4 values, vda's moving from the 2nd to the 4th place. Only T0001 and T0002 can be named."""
    r = _imported(ws, GROWS)
    rid = r.run_ids[0]
    got = ws.con.execute("SELECT sample_idx, device FROM iostat_samples WHERE run_id = ? ORDER BY ALL",
                         [rid]).fetchall()
    assert got == [(0, "loop0"), (0, "vda"), (1, "loop0"), (1, "vda")]
    assert ws.con.execute("SELECT count(*) FROM cpu_samples WHERE run_id = ?", [rid]).fetchall()[0][0] == 20
    (warning,) = ws.run(rid).warnings
    # DISKBUSY,T0003,4.0,0.0,101.00 is line 379; its header DISKBUSY,Disk %Busy vm,loop0,vda is line 28
    assert warning.startswith(f"{GROWS.name}:379: from snapshot T0003 on, nmon's list of disks changed (DISKBUSY: 3 "
                              "values where its header (line 28) names 2 disks)")
    assert "18 snapshot(s) (T0003–T0020) were left out; their CPU figures are kept" in warning


def test_the_excerpt_without_header_lines_is_refused_at_its_first_line(ws):
    """The documentation excerpt starts at a snapshot (no AAA lines, no section headers naming the disks) and has
    an elision line and cut lines: refused, naming the file and line 1; nothing is stored."""
    r = import_file(ws, str(EXCERPT), ImportOptions())
    assert r.status == "failed"
    assert r.error == (f"{EXCERPT}:1: the file starts with 'ZZZZ,T0009,23:02:43,14-OCT-2014', not with nmon's "
                       "header lines (AAA,progname …): an excerpt of an nmon file cannot be read (the names of its "
                       "disks are in the lines it lacks); import the whole .nmon file")
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0


def _lines_of(path):
    return path.read_text().splitlines(keepends=True)


def _line_no(lines, prefix):
    return next(i for i, ln in enumerate(lines, 1) if ln.startswith(prefix))


@pytest.mark.parametrize("case", ["not a number", "values before their header", "two files joined",
                                  "impossible time"])
def test_bad_input_is_refused_naming_the_line_and_nothing_lands(ws, write, case):
    lines = _lines_of(SPLIT)
    if case == "not a number":
        n = _line_no(lines, "DISKREAD,T0005,")
        lines[n - 1] = lines[n - 1].replace("316963.7", "31x963.7", 1)
        message = "DISKREAD value '31x963.7' for loop0 is not a number"
    elif case == "values before their header":
        del lines[_line_no(lines, "DISKREAD1,Disk Read") - 1]
        n = _line_no(lines, "DISKREAD1,T0001,")
        message = "DISKREAD1 values come before the DISKREAD1 header line that names their disks"
    elif case == "two files joined":
        n = len(lines) + 1
        lines = lines + lines
        message = "a second nmon header (AAA,progname) after the snapshots: two nmon files were joined into one"
    else:
        n = _line_no(lines, "ZZZZ,T0003,")
        lines[n - 1] = "ZZZZ,T0003,22:61:05,23-NOV-2026\n"
        message = "snapshot time '22:61:05,23-NOV-2026' is not a time and date (HH:MM:SS,DD-MON-YYYY)"
    path = write("bad.nmon", "".join(lines))
    r = import_file(ws, path, ImportOptions())
    assert r.status == "failed"
    assert r.error.startswith(f"{path}:{n}: {message}"), r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall()[0][0] == 0


def test_a_file_cut_while_nmon_wrote_it_loses_its_last_snapshot_only(ws, write):
    text = SPLIT.read_text()
    cut = text.index("DISKWRITE,T0014,") + len("DISKWRITE,T0014,0.")
    path = write("cut.nmon", text[:cut])
    r = _imported(ws, path)
    run = ws.run(r.run_ids[0])
    assert (run.n_samples, str(run.ended_at)) == (13, "2026-11-23 22:24:15")
    n = text[:cut].count("\n") + 1
    assert list(run.warnings) == [f"cut.nmon:{n}: the file ends in the middle of snapshot T0014 (its last line is cut "
                               "short): that snapshot was left out"]


def test_a_sorted_file_reads_the_same(ws, write):
    """nmon's own note says to sort the file before loading it into a spreadsheet: sorted, the time lines come
    last and every section's values before them."""
    path = write("sorted.nmon", "".join(sorted(_lines_of(SPLIT))))
    a, b = _imported(ws, SPLIT).run_ids[0], _imported(ws, path).run_ids[0]
    q = "SELECT * EXCLUDE (run_id) FROM {} WHERE run_id = ? ORDER BY ALL"
    for table in ("iostat_samples", "cpu_samples"):
        assert ws.con.execute(q.format(table), [a]).fetchall() == ws.con.execute(q.format(table), [b]).fetchall()


def test_a_long_file_streams_in_chunks_with_the_same_rows(ws, monkeypatch):
    """Snapshots go out as soon as a later one starts, in chunks of CHUNK_ROWS rows: with tiny chunks the AIX file
    (8 disks x 187 snapshots) is sent in many Rows events and stores exactly what one chunk stores."""
    def events():
        return [e for e in nmon.FORMAT.parse(str(AIX), ImportOptions(), JobState(), lambda _m, _l: None)
                if isinstance(e, Rows) and e.table == "iostat_samples"]

    whole = events()
    monkeypatch.setattr(nmon, "CHUNK_ROWS", 50)
    chunks = events()
    assert len(whole) == 1
    assert len(chunks) >= 1496 // 56  # every 7 snapshots (56 rows)
    assert pl.concat([e.frame for e in chunks]).equals(whole[0].frame)


def test_a_device_name_in_windows_1252_is_read_and_the_encoding_recorded(ws, write):
    """A name written on a Windows-1252 system (é is one byte, 0xE9, not UTF-8) decodes as such; meta says so."""
    raw = SPLIT.read_bytes().replace(b",loop2,", ",disque-é,".encode("cp1252"))
    path = write("cp1252.nmon", raw)
    rid = _imported(ws, path).run_ids[0]
    assert _sample(ws, rid, 11, "disque-é")["wkb_s"] == 130953.2  # DISKWRITE1,T0012,0.0,130953.2,0.0
    assert json.loads(ws.con.execute("SELECT meta FROM runs WHERE run_id = ?", [rid]).fetchall()[0][0])[
        "encoding"] == "cp1252"


@pytest.mark.parametrize("name", ["nmon2influxdb_linux_150818_1024.nmon",
                                  "vm_nmon-16n_loop-partitions_l3-split_D.nmon"])
def test_rows_sent_in_chunks_are_the_rows_sent_at_once(monkeypatch, name):
    """The rows waiting to be sent are counted as they come (issue 31: no re-count per snapshot): chunks of a few
    rows hold, in order, exactly the rows of one big chunk, and each but the last is full."""
    def frames():
        return [ev.frame for ev in nmon.NmonFormat().parse(str(CORPUS / "nmon" / name), ImportOptions(),
                                                                   JobState(), lambda *a: None)
                if isinstance(ev, Rows) and ev.table == "iostat_samples"]

    whole = frames()
    monkeypatch.setattr(nmon, "CHUNK_ROWS", 7)
    chunks = frames()
    assert len(chunks) > len(whole)
    assert all(f.height >= 7 for f in chunks[:-1])
    assert pl.concat(chunks).equals(pl.concat(whole))
