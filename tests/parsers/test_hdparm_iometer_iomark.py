"""hdparm wordings the corpus does not show, Iometer results.csv (built from Iometer's documented layout:
no real sample is public), the StormScope IOmark layout, saved column mappings and their CLI; bad input
gives file:line and leaves nothing behind."""

import csv
import json

import pytest

from app import cli
from app.importer import import_file
from app.mappings import delete_mapping, get_mapping, list_mappings, save_mapping
from app.workspace import RESULT_COLUMNS, Workspace
from parsers.base import ImportOptions
from parsers.hdparm import SCHEMA as HDPARM_SCHEMA
from parsers.iomark import SCHEMA as IOMARK_SCHEMA
from parsers.iomark import MappingError, validate_mapping
from parsers.iometer import SCHEMA as IOMETER_SCHEMA
from parsers.iozone import RESULT_SCHEMA as IOZONE_SCHEMA
from parsers.registry import detect
from tests.conftest import SAMPLES


def count(ws, table):
    return ws.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]


def nothing_stored(ws, table):
    assert count(ws, "runs") == 0
    assert count(ws, table) == 0


def rows(ws, sql, params=()):
    cur = ws.con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_every_parser_column_has_its_table_column():
    for table, schema in (("iozone_results", IOZONE_SCHEMA), ("hdparm_results", HDPARM_SCHEMA),
                          ("iometer_results", IOMETER_SCHEMA), ("iomark_results", IOMARK_SCHEMA)):
        have = {c for c, _ in RESULT_COLUMNS[table]}
        assert set(schema) <= have, (table, set(schema) - have)


# ---- hdparm ----------------------------------------------------------------------------------------------
HDPARM_MORE = """$ sudo hdparm -tT --direct /dev/sda /dev/nvme0n1

/dev/sda: USB to SATA adapter
 Timing O_DIRECT cached reads:   674 MB in  2.00 seconds = 337.48 MB/sec
 Timing O_DIRECT disk reads:  66 MB in  3.05 seconds =  21.63 MB/sec

/dev/nvme0n1:
Timing cached reads:     2 MB in  3.10 seconds = 660.59 kB/sec
Timing buffered disk reads: 4 MB in  3.59 seconds =   1.11 MB/sec
 Timing buffered disk reads:  read(2097152) returned 1048576 bytes
that was slow
"""


def test_hdparm_direct_kb_per_second_notes_and_short_reads(ws, write):
    r = import_file(ws, write("more.txt", HDPARM_MORE), ImportOptions())
    assert r.status == "imported", r.error
    got = [(x["device"], x["test"], x["direct"], x["run_idx"], x["mb"], x["mb_s"], x["ok"], x["error"])
           for x in rows(ws, "SELECT * FROM hdparm_results ORDER BY line")]
    assert got == [("/dev/sda", "cached", True, 0, 674, 337.48, True, None),
                   ("/dev/sda", "disk", True, 0, 66, 21.63, True, None),
                   ("/dev/nvme0n1", "cached", False, 0, 2, pytest.approx(660.59 / 1024), True, None),
                   ("/dev/nvme0n1", "disk", False, 0, 4, 1.11, True, None),
                   ("/dev/nvme0n1", "disk", False, 1, None, None, False, "read(2097152) returned 1048576 bytes")]
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert meta["device_notes"] == {"/dev/sda": "USB to SATA adapter"}
    assert meta["commands"] == ["$ sudo hdparm -tT --direct /dev/sda /dev/nvme0n1"]
    assert any(w.startswith("more.txt:11: text that is not hdparm timing output ignored") for w in r.warnings)


@pytest.mark.parametrize(("text", "line", "message"), [
    ("/dev/sda:\n Timing buffered disk reads: 1178 MB in  abc seconds = 392.62 MB/sec\n", 2, "not understood"),
    (" Timing cached reads:   18706 MB in  1.98 seconds = 9423.90 MB/sec\n", 1, "before any device line"),
    ("/dev/sda:\n Timing cached reads:   18706 MB in  1.98 seconds = 9423.90 MB/sec\n Timing buffered disk reads:",
     3, "without a result: the output is cut off here"),
    ("/dev/sda:\n Timing cached readz: 1 MB\n Timing cached reads:   1 MB in  1.98 seconds = 1.1 MB/sec\n", 2,
     "hdparm timing line not understood"),
])
def test_bad_hdparm_input(ws, write, text, line, message):
    path = write("bad.txt", text)
    r = import_file(ws, path, ImportOptions(), fmt_id="hdparm-text")
    assert r.status == "failed", r.error
    assert r.error.startswith(f"{path}:{line}: "), r.error
    assert message in r.error, r.error
    nothing_stored(ws, "hdparm_results")


# ---- Iometer ---------------------------------------------------------------------------------------------
EXAMPLE_IOMETER = SAMPLES / "example_iometer_results.csv"


def test_iometer_example_equals_the_file(ws):
    """Every number of every row, read back with csv by header name (independently of the parser)."""
    r = import_file(ws, str(EXAMPLE_IOMETER), ImportOptions())
    assert r.status == "imported", r.error
    assert r.format == "iometer-csv", r.error
    lines = list(csv.reader(EXAMPLE_IOMETER.read_text().splitlines()))
    header = [h.lstrip("'") for h in lines[13]]
    names = {"IOps": "iops", "Read IOps": "read_iops", "Write IOps": "write_iops", "MiBps (Binary)": "mb_s",
             "MBps (Decimal)": "mb_s_decimal", "Average Response Time": "avg_resp_ms",
             "Maximum Read Response Time": "max_read_resp_ms", "Read I/Os": "read_ios",
             "Bytes Written": "bytes_written",
             "% CPU Utilization": "cpu_pct", "Queue Depth": "queue_depth"}
    stored = rows(ws, "SELECT * FROM iometer_results ORDER BY line")
    assert [x["row_type"] for x in stored] == ["all", "manager", "processor", "processor", "worker", "disk"]
    for x, fields in zip(stored, lines[14:20], strict=True):
        f = dict(zip(header, fields))
        for h, col in names.items():
            assert x[col] == (float(f[h]) if f.get(h) else None), (x["row_type"], h)
    disk = stored[-1]
    assert (disk["manager"], disk["worker"], disk["target"]) == ("VDI-HOST1", "Worker 1", "E:")
    assert disk["access_spec"] == "4K 70pct read 100pct random"  # its worker's
    assert (disk["iops"], disk["mb_s"], disk["avg_resp_ms"], disk["max_resp_ms"]) == (2000.35, 7.81387, 3.995, 61.7)
    assert str(disk["ts"]) == "2024-03-14 10:05:00.312000"
    assert stored[2]["target"] == "CPU 0"
    assert stored[2]["cpu_pct"] == 13.1
    run = ws.run(r.run_ids[0])
    assert run.tool_version == "Iometer 1.1.0"
    assert str(run.started_at) == "2024-03-14 10:00:00"
    assert run.meta.as_dict()["mbps_header"] == ["MiBps (Binary)"]


def iometer_file(mbps_names=("MBps", "Read MBps", "Write MBps"), sets=1, rows_text=None):
    head = ("'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,"
            + ",".join(mbps_names) + ",Average Response Time,Maximum Response Time,% CPU Utilization")
    out = ""
    for k in range(sets):
        body = rows_text or (f"ALL,All,spec{k},1,1,1,{100 + k},60,40,0.39,0.23,0.16,10.5,80.25,7.5\n"
                             f"MANAGER,host,spec{k},,1,1,{100 + k},60,40,0.39,0.23,0.16,10.5,80.25,7.5\n"
                             f"WORKER,Worker 1,spec{k},,,1,{100 + k},60,40,0.39,0.23,0.16,10.5,80.25,\n"
                             f"DISK,sdb,,,,,{100 + k},60,40,0.39,0.23,0.16,10.5,80.25,\n")
        out += (f"'Test Type,Test Description\n0,set {k}\n'Version\n2006.07.27\n'Time Stamp\n"
                f"2008-01-01 10:0{k}:00:000\n'Results\n{head}\n{body}'Time Stamp\n2008-01-01 10:0{k}:30:500\n"
                "'End Test\n")
    return out


@pytest.mark.parametrize("names", [("MBps", "Read MBps", "Write MBps"),
                                   ("MBps (Binary)", "Read MBps (Binary)", "Write MBps (Binary)"),
                                   ("MiBps (Binary)", "Read MiBps (Binary)", "Write MiBps (Binary)")])
def test_iometer_header_variants_all_give_mb_s(ws, write, names):
    r = import_file(ws, write("results.csv", iometer_file(names, sets=2)), ImportOptions())
    assert r.status == "imported", r.error
    got = [(x["test_idx"], x["row_type"], x["iops"], x["mb_s"], x["read_mb_s"], x["avg_resp_ms"], x["max_resp_ms"],
            x["cpu_pct"], x["test_description"]) for x in rows(ws, "SELECT * FROM iometer_results ORDER BY line")]
    assert got[0] == (0, "all", 100, 0.39, 0.23, 10.5, 80.25, 7.5, "set 0")
    assert got[4] == (1, "all", 101, 0.39, 0.23, 10.5, 80.25, 7.5, "set 1")
    assert len(got) == 8
    assert ws.run(r.run_ids[0]).meta.as_dict()["mbps_header"] == [names[0]]
    assert ws.run(r.run_ids[0]).n_samples == 2


@pytest.mark.parametrize(("text", "line", "message"), [
    (iometer_file(rows_text="BOGUS,x,y\n"), 9, "unknown type 'BOGUS'"),
    (iometer_file(rows_text="ALL,All,s,1,1,1,many,60,40,0.39,0.23,0.16,10.5,80.25,7.5\n"), 9,
     "column 'IOps': 'many' is not a number"),
    (iometer_file().replace(",IOps,", ",Ops,"), 8, "lacks 'iops'"),
    (iometer_file().replace("MBps", "KBps"), 8, "'MBps' / 'MBps (Binary)' / 'MiBps (Binary)'"),
    ("'Test Type,Test Description\n0,x\n'Results\n'Target Type,Target Name,IOps,MBps\n", 4, "without any result row"),
    ("'Test Type,Test Description\n0,x\n'Results\n", 3, "not followed by the column header"),
])
def test_bad_iometer_input(ws, write, text, line, message):
    path = write("results.csv", text)
    r = import_file(ws, path, ImportOptions(), fmt_id="iometer-csv")
    assert r.status == "failed", r.error
    assert r.error.startswith(f"{path}:{line}: "), r.error
    assert message in r.error, r.error
    nothing_stored(ws, "iometer_results")


# ---- IOmark: StormScope's layout -----------------------------------------------------------------------
EXAMPLE_IOMARK = SAMPLES / "example_iomark_results.csv"


def test_iomark_example_layout(ws):
    r = import_file(ws, str(EXAMPLE_IOMARK), ImportOptions())
    assert r.status == "imported", r.error
    assert r.format == "iomark-csv", r.error
    got = [(x["workload"], x["phase"], x["users"], x["iops"], x["pct_within_50ms"], x["passed"], x["line"])
           for x in rows(ws, "SELECT * FROM iomark_results ORDER BY row_idx")]
    assert got == [("VDI-IOmark", "steady", 96, None, 3.0, False, 7),
                   ("VDI-IOmark", "steady", 96, None, 27.0, False, 8)]
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert meta["layout"] == "StormScope IOmark results v1"
    assert meta["notes"]["goal"].startswith("at least 80 %")
    assert "EXAMPLE LAYOUT" in EXAMPLE_IOMARK.read_text().splitlines()[0]


IOMARK_TSV = ("# StormScope IOmark results v1\n# system: lab\n"
              "workload\tphase\tusers\tts\tiops\tresp_avg_ms\tpct_within_20ms\tpct_within_50ms\tpassed\tArray\n"
              "IOmark-VM\tboot\t40\t2024-03-14T10:00:00\t5400.5\t12.5\t91.2%\t99.5\tyes\tA1\n"
              "IOmark-VM\tsteady\t40\t2024-03-14 10:05:00\t1800\t3.1\t99\t100\tpass\t\n")


def test_iomark_tab_separated_with_extra_columns(ws, write):
    r = import_file(ws, write("iomark.tsv", IOMARK_TSV), ImportOptions())
    assert r.status == "imported", r.error
    got = rows(ws, "SELECT * FROM iomark_results ORDER BY row_idx")
    assert [(x["phase"], x["users"], x["iops"], x["pct_within_20ms"], x["passed"], str(x["ts"])) for x in got] == [
        ("boot", 40, 5400.5, 91.2, True, "2024-03-14 10:00:00"), ("steady", 40, 1800.0, 99.0, True,
                                                                  "2024-03-14 10:05:00")]
    assert json.loads(got[0]["extra"]) == {"Array": "A1"}
    assert got[1]["extra"] is None
    run = ws.run(r.run_ids[0])
    assert str(run.started_at) == "2024-03-14 10:00:00"
    assert run.meta.as_dict()["delimiter"] == "tab"


@pytest.mark.parametrize(("text", "line", "message"), [
    ("workload,users,iops\nVDI,ten,100\n", 2, "column 'users' (users): 'ten' is not a number"),
    ("workload,users,iops\nVDI,10.5,100\n", 2, "is not a whole number"),
    ("workload,users,pct_within_50ms\nVDI,10,150\n", 2, "not a percentage between 0 and 100"),
    ("workload,users,iops,passed\nVDI,10,100,maybe\n", 2, "is not true/false"),
    ("workload,users,iops\nVDI,10,100,7\n", 2, "4 fields where the header at line 1 has 3"),
    ("# only comments\nworkload,users,iops\n", 2, "header without a single data row"),
    ("workload,users,iops,iops\nVDI,10,100,1\n", 1, "names a column twice"),
])
def test_bad_iomark_input(ws, write, text, line, message):
    path = write("bad.csv", text)
    r = import_file(ws, path, ImportOptions(), fmt_id="iomark-csv")
    assert r.status == "failed", r.error
    assert r.error.startswith(f"{path}:{line}: "), r.error
    assert message in r.error, r.error
    nothing_stored(ws, "iomark_results")


def test_a_csv_of_other_columns_is_not_taken_for_iomark(write):
    from parsers.registry import UnknownFormat

    with pytest.raises(UnknownFormat):
        detect(write("other.csv", "Run,Users,Total IOPS\nx,1,2\n"))
    assert detect(write("ours.txt", IOMARK_TSV)).id == "iomark-csv"


# ---- saved column mappings ------------------------------------------------------------------------------
EXPORT = ("Report of 2024-03-14\n"
          "Run;Users;Total IOPS;Throughput MB/s;Avg Resp (us);<=50ms %;Comment\n"
          "boot storm;120;5.400,5;84,2;38500;71,5;peak at login\n"
          "steady;120;1800;22,1;9200;99,1;\n")
MAPPING = {"kind": "iomark", "columns": {"phase": "Run", "users": "users", "iops": "Total IOPS",
                                         "mb_s": "Throughput MB/s", "resp_avg_ms": "Avg Resp (us)",
                                         "pct_within_50ms": "<=50ms %"},
           "scale": {"resp_avg_ms": 0.001}, "constants": {"workload": "IOmark-VM"}, "delimiter": ";",
           "decimal": ",", "skip_rows": 1, "description": "our IOmark-VM export"}


def test_mapping_store(ws):
    clean = save_mapping(ws, "vdi", MAPPING)
    assert clean["delimiter"] == ";"
    assert clean["scale"] == {"resp_avg_ms": 0.001}
    assert get_mapping(ws, "vdi") == clean
    assert get_mapping(ws, "nope") is None
    with pytest.raises(MappingError, match="exists"):
        save_mapping(ws, "vdi", MAPPING)
    save_mapping(ws, "vdi", {**MAPPING, "description": "v2"}, replace=True)
    assert [m["spec"]["description"] for m in list_mappings(ws)] == ["v2"]
    assert delete_mapping(ws, "vdi")
    assert not delete_mapping(ws, "vdi")
    assert list_mappings(ws) == []


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "fio"}, "unknown mapping kind 'fio'"),
    ({"columns": {"users": "Users", "colour": "C"}}, "'colour' (column) is not a column of iomark_results"),
    ({"columns": {"users": "Users"}, "scale": {}}, "map at least one measure"),
    ({"scale": {"workload": 2}}, "a factor only applies to numbers"),
    ({"scale": {"iops": "x"}}, "factor for 'iops' is not a number"),
    ({"constants": {"users": "5"}}, "given both as a column and as a fixed value"),
    ({"delimiter": ":"}, "delimiter ':'"),
    ({"delimiter": ","}, "decimal comma and comma delimiter"),
    ({"skip_rows": -1}, "skip_rows must be"),
])
def test_mapping_validation(change, message):
    with pytest.raises(MappingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_mapping({**MAPPING, **change})


def test_import_through_a_mapping(ws, write):
    spec = save_mapping(ws, "vdi", MAPPING)
    path = write("export.csv", EXPORT)
    r = import_file(ws, path, ImportOptions(mapping=spec), fmt_id="iomark-mapped")
    assert r.status == "imported", r.error
    got = [(x["workload"], x["phase"], x["users"], x["iops"], x["mb_s"], x["resp_avg_ms"], x["pct_within_50ms"],
            x["extra"], x["line"]) for x in rows(ws, "SELECT * FROM iomark_results ORDER BY row_idx")]
    assert got == [("IOmark-VM", "boot storm", 120, 5400.5, 84.2, 38.5, 71.5, '{"Comment": "peak at login"}', 3),
                   ("IOmark-VM", "steady", 120, 1800.0, 22.1, 9.2, 99.1, None, 4)]
    run = ws.run(r.run_ids[0])
    assert (run.kind, run.format) == ("iomark", "iomark-mapped")
    assert run.meta.as_dict()["mapping"]["columns"]["iops"] == "Total IOPS"


def test_a_csv_without_the_mapped_columns_fails_at_its_header(ws, write):
    spec = save_mapping(ws, "vdi", MAPPING)
    path = write("other.csv", "Report\nRun;Users;IOPS\nx;1;2\n")
    r = import_file(ws, path, ImportOptions(mapping=spec), fmt_id="iomark-mapped")
    assert r.status == "failed"
    assert r.error.startswith(f"{path}:2: column 'Total IOPS' (mapped to iops by mapping 'vdi') is not in the "
                              "header; the header has: Run, Users, IOPS"), r.error
    nothing_stored(ws, "iomark_results")
    r = import_file(ws, write("no_mapping.csv", EXPORT), ImportOptions(), fmt_id="iomark-mapped")
    assert r.status == "failed"
    assert "a column mapping is needed" in r.error


# ---- command line ----------------------------------------------------------------------------------------
def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_mapping_commands_and_import_with_mapping(tmp_path, capsys):
    ws = str(tmp_path / "ws.duckdb")
    export = tmp_path / "export.csv"
    export.write_text(EXPORT)
    assert run_cli(capsys, "mapping", "list", "-w", ws)[0] == 0
    code, out, _ = run_cli(capsys, "mapping", "save", "vdi", "-w", ws, "--column", "phase=Run", "--column",
                           "users=Users", "--column", "iops=Total IOPS", "--column", "resp_avg_ms=Avg Resp (us)",
                           "--scale", "resp_avg_ms=0.001", "--set", "workload=IOmark-VM", "--delimiter", ";",
                           "--decimal", ",", "--skip-rows", "1", "--description", "export of our tool")
    assert code == 0
    assert out.startswith("saved mapping 'vdi' (iomark): phase='Run'")
    code, _, err = run_cli(capsys, "mapping", "save", "vdi", "-w", ws, "--column", "iops=X")
    assert code == 2
    assert "exists (use --replace" in err
    code, _, err = run_cli(capsys, "mapping", "save", "x", "-w", ws, "--column", "iops")
    assert code == 2
    assert "--column wants TARGET=VALUE" in err
    code, out, _ = run_cli(capsys, "mapping", "list", "-w", ws)
    assert code == 0
    assert "vdi" in out
    assert "export of our tool" in out
    code, out, _ = run_cli(capsys, "mapping", "list", "-w", ws, "--json")
    assert json.loads(out)[0]["spec"]["scale"] == {"resp_avg_ms": 0.001}
    code, out, _ = run_cli(capsys, "mapping", "show", "vdi", "-w", ws)
    assert json.loads(out)["constants"] == {"workload": "IOmark-VM"}
    code, out, _ = run_cli(capsys, "import", str(export), "--mapping", "vdi", "-w", ws, "--json")
    (res,) = json.loads(out)
    assert code == 0
    assert (res["status"], res["format"], res["rows"]) == ("imported", "iomark-mapped", 2)
    code, _, err = run_cli(capsys, "import", str(export), "--mapping", "nope", "-w", ws)
    assert code == 2
    assert "no mapping named 'nope'" in err
    code, out, _ = run_cli(capsys, "sql", "SELECT phase, resp_avg_ms FROM iomark_results ORDER BY row_idx",
                           "-w", ws, "--format", "csv")
    assert out.splitlines() == ["phase,resp_avg_ms", "boot storm,38.5", "steady,9.2"]
    assert run_cli(capsys, "mapping", "delete", "vdi", "-w", ws)[0] == 0
    assert run_cli(capsys, "mapping", "show", "vdi", "-w", ws)[0] == 1
    assert run_cli(capsys, "mapping", "delete", "vdi", "-w", ws)[0] == 1
    assert run_cli(capsys, "mapping")[0] == 2  # no action


def test_import_ram_gb_flags_the_page_cache(tmp_path, capsys):
    from tests.conftest import CORPUS

    path = CORPUS / "iozone" / "snippet_ubuntuforums_iozone-throughput-l5-u5-R.txt"
    ws = str(tmp_path / "ws.duckdb")
    assert run_cli(capsys, "import", str(path), "-w", ws, "--ram-gb", "0")[0] == 2
    code, out, _ = run_cli(capsys, "import", str(path), "-w", ws, "--ram-gb", "16")
    assert code == 0
    assert "page cache likely: 11 of 11 results" in out
    with Workspace(ws, read_only=True) as w:
        meta = w.run(1).meta.as_dict()
    assert meta["page_cache"] == {"ram_gb": 16.0, "ram_source": "--ram-gb", "likely": True, "results_likely": 11,
                                  "results_judged": 11, "why": "11 of 11 results use a data set (file size x "
                                                               "processes) smaller than the RAM (16 GB)"}


def test_sql_shows_the_new_tables(tmp_path, capsys):
    ws = str(tmp_path / "ws.duckdb")
    assert run_cli(capsys, "import", str(EXAMPLE_IOMETER), "-w", ws)[0] == 0
    code, out, _ = run_cli(capsys, "sql", "SELECT table_name FROM information_schema.tables ORDER BY 1", "-w", ws)
    for t in ("iozone_results", "iomark_results", "iometer_results", "hdparm_results", "mappings"):
        assert t in out
