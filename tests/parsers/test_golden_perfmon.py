"""perfmon / typeperf logs (PDH-CSV): every corpus file imports to its reviewed golden output (or, the cut
snippet, fails with its line), values read by hand from the files hold, and the layout's variants (time zones,
locales, several hosts, blanks, binary logs, cut rows) are read as parsers/perfmon.py and parsers/pdh.py say.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_perfmon.py`, and review the diff.
"""

import csv
import re
from datetime import datetime

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from parsers.pdh import norm, parse_counter_path
from parsers.perfmon import DISK_COUNTERS, TRANSLATIONS
from parsers.registry import UnknownFormat, detect
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

CUT = "snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv"
TYPEPERF = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
PERFMON = corpus_files("perfmon", lambda p: p.name != CUT)


@pytest.mark.parametrize("path", PERFMON, ids=[p.name for p in PERFMON])
def test_perfmon_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "perfmon", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden_or_its_error():
    assert len(PERFMON) >= 3, f"expected the perfmon corpus at {CORPUS}"
    have = {p.name for p in (GOLDEN / "perfmon").iterdir()}
    assert {p.name for p in PERFMON} <= have
    assert (CORPUS / "perfmon" / CUT).is_file()


def _imported(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


def _rows(ws, rid, device=None):
    where = " AND device = ?" if device else ""
    cur = ws.con.execute(f"SELECT * FROM iostat_samples WHERE run_id = ?{where} ORDER BY device, sample_idx",
                         [rid, *([device] if device else [])])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


# ---- the typeperf capture, read by hand -----------------------------------------------------------------
def test_typeperf_values_equal_the_file_read_by_hand(ws):
    """Each stored figure is the cell under its counter's header (found by name in a plain csv read of the
    file), converted as the module says: bytes / 1024, seconds x 1000, 100 - idle."""
    with open(TYPEPERF, newline="") as fh:
        table = list(csv.reader(fh))
    head, data = table[0], table[1:]
    assert len(data) == 4

    def cell(row, inst, counter):
        return float(data[row][head.index(f"\\\\GORANS2\\PhysicalDisk({inst})\\{counter}")])

    r = _imported(ws, TYPEPERF)
    for inst in ("0 C:", "_Total"):
        rows = _rows(ws, r.run_ids[0], f"PhysicalDisk({inst})")
        assert [x["sample_idx"] for x in rows] == [0, 1, 2, 3]
        for i, x in enumerate(rows):
            assert x["r_s"] == cell(i, inst, "Disk Reads/sec")
            assert x["w_s"] == cell(i, inst, "Disk Writes/sec")
            assert x["tps"] is None  # reads and writes are there: never both
            assert x["rkb_s"] == pytest.approx(cell(i, inst, "Disk Read Bytes/sec") / 1024)
            assert x["wkb_s"] == pytest.approx(cell(i, inst, "Disk Write Bytes/sec") / 1024)
            assert x["r_await_ms"] == pytest.approx(cell(i, inst, "Avg. Disk sec/Read") * 1000)
            assert x["w_await_ms"] == pytest.approx(cell(i, inst, "Avg. Disk sec/Write") * 1000)
            assert x["await_ms"] == pytest.approx(cell(i, inst, "Avg. Disk sec/Transfer") * 1000)
            assert x["aqu_sz"] == cell(i, inst, "Avg. Disk Queue Length")
            assert x["util_pct"] == pytest.approx(100 - cell(i, inst, "% Idle Time"))
            assert x["areq_kb"] == pytest.approx(cell(i, inst, "Avg. Disk Bytes/Transfer") / 1024)
            assert x["rareq_kb"] == pytest.approx(cell(i, inst, "Avg. Disk Bytes/Read") / 1024)
            assert x["wareq_kb"] == pytest.approx(cell(i, inst, "Avg. Disk Bytes/Write") / 1024)
    first = _rows(ws, r.run_ids[0], "PhysicalDisk(0 C:)")[0]
    # line 2 of the file, typed here from the text: "0.199608" reads, "3270.370811" read bytes, idle "99.581332"
    assert (first["r_s"], first["rkb_s"], first["util_pct"]) == (0.199608, 3270.370811 / 1024,
                                                                  pytest.approx(0.418668))
    assert (first["layer"], _rows(ws, r.run_ids[0], "PhysicalDisk(_Total)")[0]["layer"]) == ("disk", "total")
    assert first["ts"] == datetime(2020, 12, 29, 18, 34, 28, 308000)
    assert [x["t_s"] for x in _rows(ws, r.run_ids[0], "PhysicalDisk(0 C:)")] == pytest.approx([0, 10.03, 20.061,
                                                                                               30.093])
    run = ws.run(r.run_ids[0])
    meta = run.meta.as_dict()
    assert (run.host, run.interval_s, run.interval_source) == ("GORANS2", 10.031, "timestamps")
    assert "utc_offset" not in meta  # typeperf writes no zone
    assert "Current Disk Queue Length" in meta["counters_not_stored"]
    assert "Split IO/Sec" in meta["counters_not_stored"]


def test_percent_disk_time_is_100_times_the_queue_length_in_the_capture():
    """Why % Disk Time / 100 stands in for a missing Avg. Disk Queue Length (parsers/perfmon.py)."""
    with open(TYPEPERF, newline="") as fh:
        head, *data = list(csv.reader(fh))
    for inst in ("0 C:", "_Total"):
        t = head.index(f"\\\\GORANS2\\PhysicalDisk({inst})\\% Disk Time")
        q = head.index(f"\\\\GORANS2\\PhysicalDisk({inst})\\Avg. Disk Queue Length")
        for row in data:
            assert float(row[t]) / 100 == pytest.approx(float(row[q]), abs=5e-7)  # both printed to 6 decimals


# ---- German and French Windows ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["derived_de-DE_cp1252_from_typeperf-si10_GORANS2.csv",
                                  "derived_fr-FR_from_typeperf-si10_GORANS2.csv"])
def test_german_and_french_headers_read_like_the_english_log(ws, name):
    en = _imported(ws, TYPEPERF)
    other = _imported(ws, CORPUS / "perfmon" / name)
    strip = ("run_id",)
    a = [{k: v for k, v in x.items() if k not in strip} for x in _rows(ws, en.run_ids[0])]
    b = [{k: v for k, v in x.items() if k not in strip} for x in _rows(ws, other.run_ids[0])]
    assert a == b
    assert {x["device"] for x in b} == {"PhysicalDisk(0 C:)", "PhysicalDisk(_Total)"}  # English object names
    meta = ws.run(other.run_ids[0]).meta.as_dict()
    assert meta.get("encoding") == ("cp1252" if "cp1252" in name else None)
    assert meta["counters_not_stored"] == ws.run(en.run_ids[0]).meta.as_dict()["counters_not_stored"]


def test_every_translated_name_reaches_its_english_counter():
    for canon, aliases in TRANSLATIONS.items():
        for alias in aliases:
            assert DISK_COUNTERS[norm(alias)][0] == canon, alias
    # spellings that differ only in what matching ignores
    assert DISK_COUNTERS[norm("% d’inactivité")][0] == "% Idle Time"
    assert DISK_COUNTERS[norm("%Leerlaufzeit")][0] == "% Idle Time"
    assert DISK_COUNTERS[norm("Lesevorgänge/Sek.")][0] == "Disk Reads/sec"


# ---- the cut value -------------------------------------------------------------------------------------
def test_the_cut_value_is_an_error_naming_the_file_line_and_counter(ws):
    path = CORPUS / "perfmon" / CUT
    assert detect(str(path)).id == "perfmon-csv"
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error == (f"{path}:2: '7.0625001143654654e' is not a number (an exponent without digits: the value "
                       "looks cut); column 3: \\\\SQL01\\PhysicalDisk(0 D:)\\% Disk Time")
    assert ws.runs() == []  # nothing of the file is stored


def test_the_zone_and_bias_of_the_snippet_once_its_value_is_whole(ws, write):
    """The same snippet with the exponent completed: bias 240 is UTC-4, the zone's name kept; Memory is not
    read; % Disk Time / 100 is the queue."""
    text = (CORPUS / "perfmon" / CUT).read_text().replace("7.0625001143654654e", "7.0625001143654654e0")
    r = _imported(ws, write("whole.csv", text))
    run = ws.run(r.run_ids[0])
    meta = run.meta.as_dict()
    assert (meta["utc_offset"], meta["time_zone"], meta["pdh_bias_min"]) == ("-04:00", "Eastern Daylight Time", 240)
    assert meta["objects_not_read"] == {"Memory": 1}
    rows = _rows(ws, r.run_ids[0])
    assert [x["device"] for x in rows] == ["PhysicalDisk(0 D:)"] * 3
    assert [x["aqu_sz"] for x in rows] == pytest.approx([0.070625001143654654, 0.028829087316668804,
                                                         0.020239260004978679])
    assert rows[0]["ts"] == datetime(2002, 9, 8, 12, 35, 45, 166000)
    assert run.interval_s == 15.002


# ---- layout variants -----------------------------------------------------------------------------------
HDR = '"(PDH-CSV 4.0) (W. Europe Daylight Time)(-120)"'


def _log(cols, rows, header=HDR):
    return "\n".join([",".join([header, *(f'"{c}"' for c in cols)]),
                      *(",".join(f'"{v}"' for v in row) for row in rows)]) + "\n"


def test_german_locale_dates_and_decimal_commas(ws, write):
    cols = ["\\\\PC1\\Physikalischer Datenträger(0 C:)\\Lesevorgänge/s",
            "\\\\PC1\\Physikalischer Datenträger(0 C:)\\Leerlaufzeit (%)"]
    path = write("de.csv", _log(cols, [["03.04.2024 09:00:00.000", "12,5", "101,25"],
                                       ["03.04.2024 09:00:15.000", "7,25", "40,5"]]).encode("cp1252"))
    r = _imported(ws, path)
    rows = _rows(ws, r.run_ids[0])
    assert [(x["ts"], x["r_s"], x["util_pct"]) for x in rows] == [
        (datetime(2024, 4, 3, 9, 0), 12.5, 0.0),  # idle 101.25 %: utilisation clipped at 0
        (datetime(2024, 4, 3, 9, 0, 15), 7.25, 59.5)]
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert (meta["decimal_comma"], meta["encoding"]) == (True, "cp1252")
    assert meta["date_order"].startswith("day/month/year (the file's words: dates like '03.04.2024' are printed by "
                                         "the locales ")  # dotted dates: no locale writes them month first
    assert meta["utc_offset"] == "+02:00"


def test_the_date_order_is_decided_by_all_rows(ws, write):
    cols = ["\\\\PC1\\PhysicalDisk(0 C:)\\Disk Transfers/sec"]
    rows = [[f"{d:02d}/04/2024 23:59:50.000", str(d)] for d in (11, 12, 13)]  # the day above 12 comes last
    r = _imported(ws, write("uk.csv", _log(cols, rows)))
    got = _rows(ws, r.run_ids[0])
    assert [x["ts"].date().isoformat() for x in got] == ["2024-04-11", "2024-04-12", "2024-04-13"]
    assert [x["tps"] for x in got] == [11, 12, 13]  # no read/write split: transfers are tps
    assert [x["r_s"] for x in got] == [None] * 3
    assert not any("day/month" in w for w in r.warnings)
    amb = _imported(ws, write("amb.csv", _log(cols, [["03/04/2024 10:00:00.000", "1"]])))
    assert any("the dates read both ways ('03/04/2024 10:00:00'" in w and "{fix:date_order}" in w
               for w in amb.warnings)
    assert _rows(ws, amb.run_ids[0])[0]["ts"] == datetime(2024, 3, 4, 10, 0)  # stored month first until the user says
    assert ws.run(amb.run_ids[0]).meta.as_dict()["date_reading"] == {
        "stored": "MDY", "others": {"DMY": {"2024-03-04": "2024-04-03"}}}


def test_several_hosts_are_several_runs(ws, write):
    cols = ["\\\\VDI-01\\PhysicalDisk(0 C:)\\Disk Reads/sec", "\\\\VDI-02\\PhysicalDisk(0 C:)\\Disk Reads/sec",
            "\\\\vdi-01\\LogicalDisk(C:)\\Disk Reads/sec", "\\\\VDI-02\\Processor(_Total)\\% User Time",
            "\\\\VDI-02\\Processor(_Total)\\% Privileged Time", "\\\\VDI-02\\Processor(_Total)\\% Idle Time",
            "\\\\VDI-02\\Processor(0)\\% User Time", "\\\\VDI-02\\Memory\\Available MBytes"]
    r = _imported(ws, write("relog.csv", _log(cols, [["04/22/2024 08:00:00.000", "1", "2", "3", "10", "5", "85",
                                                      "9", "900"]])))
    assert len(r.run_ids) == 2
    runs = {ws.run(i).host: i for i in r.run_ids}
    assert set(runs) == {"VDI-01", "VDI-02"}
    assert ws.run(runs["VDI-01"]).name == "relog — VDI-01"
    one = {x["device"]: (x["r_s"], x["layer"]) for x in _rows(ws, runs["VDI-01"])}
    assert one == {"PhysicalDisk(0 C:)": (1.0, "disk"), "LogicalDisk(C:)": (3.0, "volume")}  # host case ignored
    assert {x["device"]: x["r_s"] for x in _rows(ws, runs["VDI-02"])} == {"PhysicalDisk(0 C:)": 2.0}
    cpu = ws.con.execute("SELECT user, system, idle FROM cpu_samples WHERE run_id = ?", [runs["VDI-02"]]).fetchall()
    assert cpu == [(10.0, 5.0, 85.0)]
    assert ws.run(runs["VDI-02"]).n_rows == 1  # iostat_samples rows: the CPU row is not counted
    meta = ws.run(runs["VDI-02"]).meta.as_dict()
    assert meta["objects_not_read"] == {"Memory": 1, "Processor": 1}


def test_blanks_are_null_and_a_cut_last_row_is_left_out(ws, write):
    cols = ["\\\\PC1\\PhysicalDisk(0 C:)\\Disk Reads/sec", "\\\\PC1\\PhysicalDisk(0 C:)\\Current Disk Queue Length",
            "\\\\PC1\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read"]
    text = _log(cols, [["04/22/2024 08:00:00.000", " ", "0", " "], ["04/22/2024 08:00:15.000", "4", "1", "0.002"],
                       ["04/22/2024 08:00:30.000", "", "1", "0.004"]]) + '"04/22/2024 08:00:45.000","5","0","0.00'
    r = _imported(ws, write("cut.csv", text))
    rows = _rows(ws, r.run_ids[0])
    assert [(x["r_s"], x["r_await_ms"]) for x in rows] == [(None, None), (4.0, 2.0), (None, 4.0)]
    assert any(w.startswith("cut.csv:5: the file ends in the middle of its last row") for w in r.warnings)
    short = _log(cols, [["04/22/2024 08:00:00.000", "1", "0", "0.001"], ["04/22/2024 08:00:15.000", "2"],
                        ["04/22/2024 08:00:30.000", "3", "0", "0.001"]])
    bad = import_file(ws, write("short.csv", short), ImportOptions())
    assert bad.error.endswith("short.csv:3: expected 4 fields (a time stamp and 3 values, as the header says), "
                              "found 2")


def test_tsv_junk_before_the_header_and_a_re_saved_spreadsheet(ws, write):
    tsv = ('"(PDH-TSV 4.0) (UTC)(0)"\t"\\\\PC1\\PhysicalDisk(0 C:)\\Disk Writes/sec"\n'
           '"01/02/2024 13:00:00.000"\t"2.5"\n')
    r = _imported(ws, write("log.tsv", "no termcap entry for a `xterm-256color' terminal" + tsv))
    assert _rows(ws, r.run_ids[0])[0]["w_s"] == 2.5
    assert any("text before the PDH header left out: \"no termcap entry" in w for w in r.warnings)
    xl = import_file(ws, write("excel.csv", "(PDH-CSV 4.0),\\\\PC1\\PhysicalDisk(0 C:)\\Disk Writes/sec\n"
                                            "4/22/2024 8:00,3\n"), ImportOptions())
    assert "'4/22/2024 8:00' is not a time stamp as perfmon writes it" in xl.error
    assert "re-saved by a spreadsheet?" in xl.error


def test_a_log_without_disk_counters_says_what_it_holds(ws, write):
    r = import_file(ws, write("mem.csv", _log(["\\\\PC1\\Memory\\Available MBytes"], [["04/22/2024 08:00:00.000",
                                                                                       "900"]])), ImportOptions())
    assert r.status == "failed"
    assert "no counter StormScope reads (1 columns; objects: Memory)" in r.error


def test_a_binary_log_is_refused_with_the_relog_command(ws, tmp_path):
    blg = tmp_path / "DataCollector01.blg"
    blg.write_bytes(b'"(PDH-BIN 4.0)"\n' + bytes([0x42, 0x4C, 0x01, 0x00, 0x18, 0x01, 0, 0]) + b"\x00" * 256)
    with pytest.raises(UnknownFormat, match="relog file.blg -f csv -o file.csv") as e:
        detect(str(blg))
    assert e.value.trace  # a trace: inside a dropped folder it fails visibly
    r = import_file(ws, str(blg), ImportOptions(), in_folder=True)
    assert (r.status, r.error) == ("failed", f"{blg}: a binary perfmon log (.blg): StormScope reads perfmon's CSV; "
                                             "convert it with: relog file.blg -f csv -o file.csv")
    other = tmp_path / "other.bin"
    other.write_bytes(b"\x00\x01binary")
    with pytest.raises(UnknownFormat, match="binary file"):
        detect(str(other))


def test_counter_paths_are_read_from_the_right():
    p = parse_counter_path("\\\\SQL01\\Paging File(\\??\\D:\\pagefile.sys)\\% Usage")
    assert (p.host, p.obj, p.instance, p.counter) == ("SQL01", "Paging File", "\\??\\D:\\pagefile.sys", "% Usage")
    p = parse_counter_path("\\\\local\\Virtual Disk(SQL02 (df09cdf2-1e74-45fb-9ccc-90d1c402fc6b):scsi0:1)\\Reads/sec")
    assert (p.obj, p.instance) == ("Virtual Disk", "SQL02 (df09cdf2-1e74-45fb-9ccc-90d1c402fc6b):scsi0:1")
    p = parse_counter_path("\\\\DC1\\Localisateur de contrôleurs de domaine (client)(_Total)\\Requêtes/s")
    assert (p.obj, p.instance) == ("Localisateur de contrôleurs de domaine (client)", "_Total")
    p = parse_counter_path("\\Memory\\Available MBytes")
    assert (p.host, p.obj, p.instance, p.counter) == (None, "Memory", None, "Available MBytes")
    assert parse_counter_path("Time") is None


@pytest.mark.parametrize(("old", "new", "line", "message"), [
    ('"0.199608"', '"0.19x608"', 2, r"'0.19x608' is not a number; column 13: \\\\GORANS2\\PhysicalDisk\(0 C:\)\\Disk "
                                    "Reads/sec"),
    ('"12/29/2020 18:34:48.369"', '"12/32/2020 18:34:48.369"', 4,
     r"impossible date or time in '12/32/2020 18:34:48.369' \(dates read as month/day/year\)"),
    ("\\\\GORANS2\\PhysicalDisk(0 C:)\\% Disk Time", "\\\\GORANS2\\% Disk Time", 1,
     r'header cell 3 "\\\\GORANS2\\% Disk Time" is not a counter path'),
])
def test_one_thing_wrong_is_an_error_at_its_line(ws, tmp_path, old, new, line, message):
    text = TYPEPERF.read_text()
    assert old in text
    path = tmp_path / "m.csv"
    path.write_text(text.replace(old, new, 1))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error.startswith(f"{path}:{line}: "), r.error
    assert re.search(message, r.error), r.error
    assert ws.runs() == []


def test_spanish_counter_names_in_cp1252(ws, write):
    """A log of a Spanish Windows (issue 28): 'Disco físico', cp1252, decimal commas -- refused as 'no counter
    StormScope reads' (only German and French were known). Names as Microsoft's Spanish documentation prints them
    (parsers/perfmon.py)."""
    cols = ["\\\\PC1\\Disco físico(0 C:)\\Lecturas de disco/s", "\\\\PC1\\Disco físico(0 C:)\\Escrituras de disco/s",
            "\\\\PC1\\Disco físico(0 C:)\\Bytes de lectura de disco/s",
            "\\\\PC1\\Disco físico(0 C:)\\Promedio Longitud de la cola de disco",
            "\\\\PC1\\Disco físico(_Total)\\Lecturas de disco/s",
            "\\\\PC1\\Procesador(_Total)\\% de tiempo de usuario"]
    path = write("es.csv", _log(cols, [["03/04/2024 09:00:00.000", "12,5", "3", "51200", "0,75", "12,5", "20,5"],
                                       ["03/04/2024 09:00:15.000", "7,25", "1", "1024", "0,5", "7,25", "10"]]
                                ).encode("cp1252"))
    r = _imported(ws, path)
    rows = _rows(ws, r.run_ids[0])
    assert [(x["device"], x["layer"], x["r_s"], x["w_s"], x["rkb_s"], x["aqu_sz"]) for x in rows] == [
        ("PhysicalDisk(0 C:)", "disk", 12.5, 3.0, 50.0, 0.75), ("PhysicalDisk(0 C:)", "disk", 7.25, 1.0, 1.0, 0.5),
        ("PhysicalDisk(_Total)", "total", 12.5, None, None, None),
        ("PhysicalDisk(_Total)", "total", 7.25, None, None, None)]
    assert [x[0] for x in ws.con.execute("SELECT user FROM cpu_samples WHERE run_id = ? ORDER BY sample_idx",
                                         [r.run_ids[0]]).fetchall()] == [20.5, 10.0]
    assert ws.run(r.run_ids[0]).meta.as_dict()["encoding"] == "cp1252"


def test_a_log_of_queue_lengths_only_is_imported(ws, write):
    """Issue 28: a log with only queue-length counters was refused as 'no counter StormScope reads'. The average read
    and write queue lengths add up to the disk's (perfmon's Avg. Disk Queue Length is their sum); Current Disk Queue
    Length alone is the count at each sample: stored as the queue length, said to be an estimate."""
    d = "\\\\PC1\\PhysicalDisk(0 C:)\\"
    e = "\\\\PC1\\PhysicalDisk(1 D:)\\"
    cols = [d + "Avg. Disk Read Queue Length", d + "Avg. Disk Write Queue Length",
            e + "Avg. Disk Read Queue Length", e + "Current Disk Queue Length"]
    path = write("q.csv", _log(cols, [["04/13/2024 09:00:00.000", "0.25", "1.5", "0.125", "3"],
                                      ["04/13/2024 09:00:15.000", "0.5", "2", "0.25", "0"]]))
    r = _imported(ws, path)
    rows = _rows(ws, r.run_ids[0])
    assert [(x["device"], x["aqu_sz"], x["r_s"]) for x in rows] == [
        ("PhysicalDisk(0 C:)", 1.75, None), ("PhysicalDisk(0 C:)", 2.5, None),
        ("PhysicalDisk(1 D:)", 3.0, None), ("PhysicalDisk(1 D:)", 0.0, None)]
    assert any("the queue length of PhysicalDisk(1 D:) is estimated from Current Disk Queue Length" in w
               for w in r.warnings)
    # D's average read queue length alone is no queue length: recognised, not stored, and said so
    assert ws.run(r.run_ids[0]).meta.as_dict()["counters_not_stored"] == ["Avg. Disk Read Queue Length"]
