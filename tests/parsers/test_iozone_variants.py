"""IOzone layouts the corpus does not show (built here the way IOzone's printf writes them), and bad
IOzone input: a clear error naming the line, and nothing left in the workspace."""


import pytest

from app.importer import import_file
from parsers.base import ImportOptions

# the two-line header of IOzone 3.4xx (3.434) and the field widths its rows are printed with
HEAD_3434 = (
    "                                                              random    random     bkwd    record    stride"
    "                                    \n"
    "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read"
    "   fwrite frewrite    fread  freread\n")
W_3434 = [16, 8, 9, 9, 9, 9, 9, 9, 9, 10, 10, 9, 9, 9, 9]
# IOzone 3.2xx-3.3xx (3.327): "KB", narrower fields
HEAD_3327 = (
    "                                                            random  random    bkwd   record   stride"
    "                                   \n"
    "              KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read"
    "   fwrite frewrite   fread  freread\n")
W_3327 = [16, 8, 8, 8, 9, 9, 8, 8, 8, 9, 9, 9, 9, 8, 9]
TESTS = ["write", "rewrite", "read", "reread", "random_read", "random_write", "backward_read", "record_rewrite",
         "stride_read", "fwrite", "frewrite", "fread", "freread"]


def banner(version="3.434", unit_line="Output is in kBytes/sec", extra=""):
    return (f"\tIozone: Performance Test of File I/O\n\t        Version $Revision: {version} $\n"
            "\t\tCompiled for 64 bit mode.\n\t\tBuild: linux-AMD64 \n\n"
            "\tRun began: Thu Mar 14 10:00:00 2024\n\n\tAuto Mode\n" + extra
            + "\tCommand line used: iozone -a -s 1g\n" + f"\t{unit_line}\n\tTime Resolution = 0.000001 seconds.\n")


def row(widths, values):
    """One row as printf writes it: right-aligned, never cut; a test not run leaves its field blank."""
    return "".join(" " * w if v is None else f"{v:>{w}}" for w, v in zip(widths, values)).rstrip() + "\n"


def table(head, widths, rows):
    return head + "".join(row(widths, r) for r in rows) + "\niozone test complete.\n"


def cells(ws, rid, col="kb_s"):
    return {(t, f, r): v for t, f, r, v in ws.con.execute(
        f"SELECT test, file_kb, record_kb, {col} FROM iozone_results WHERE run_id = ?", [rid]).fetchall()}


def imported(ws, path, **opts):
    r = import_file(ws, path, ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


def expected(rows):
    return {(t, r[0], r[1]): float(v) for r in rows for t, v in zip(TESTS, r[2:]) if v is not None}


# ---- fixed-width rows ----------------------------------------------------------------------------------
def test_tests_not_run_leave_blank_columns(ws, write):
    """-i 0 -i 2: write/rewrite and random read/write only; a plain split would shift them left."""
    rows = [[1048576, r, 241174 + r, 243971, None, None, 330626 - r, 297308] + [None] * 7 for r in (4, 1024, 16384)]
    r = imported(ws, write("i0i2.txt", banner() + table(HEAD_3434, W_3434, rows)))
    got = cells(ws, r.run_ids[0])
    assert got == expected(rows)
    assert got[("random_read", 1048576, 1024)] == 330626 - 1024
    assert ("read", 1048576, 4) not in got


def test_values_that_fill_their_field_touch_their_neighbour(ws, write):
    """3.3xx fields are 8 wide: an 8-digit value (10 GB/s, the page cache) touches the value before it."""
    rows = [
        [8, 4, 570598, 732538, 1125772, 911664, 142902, 732538, 79174, 887549, 116183, 802628, 1164854, 135954,
         114206],
        [16, 8, 12345678, 22345678, 2705381, 1605256, 202864, 2251544, 137855, 2705381, 213175, 1775099, 3225504,
         218734, 92973],  # write and rewrite both fill their 8-wide fields: "812345678" + "22345678"
        [16, 16, 1775099, 2251544, 1320892, 1433775, 192949, 17750990, 204721, 2600544, 31929, 2329708, 3225504,
         204721, 49207],
    ]
    text = table(HEAD_3327, W_3327, rows)
    assert "       81234567822345678  2705381" in text  # the values really touch: "8", "12345678", "22345678"
    assert "19294917750990" in text
    r = imported(ws, write("touch.txt", banner("3.327", "Output is in Kbytes/sec") + text))
    assert cells(ws, r.run_ids[0]) == expected(rows)


def test_a_value_wider_than_its_field_moves_the_rest_of_the_row(ws, write):
    # rewrite is in the GB/s of the page cache (9 digits: fills its 9-wide field and touches write)
    rows = [[1048576, rec, 5169375, 977122043, 7634280, 7649870, 7541971, 8989992, 7688128, 9968815, 7556588,
             7164076, 7202157, 7687779, 7659035] for rec in (64, 128, 256, 512, 1024, 2048, 4096)]
    rows[1][6] = 123456789012  # random read: 12 digits in a 9-wide field, 3 too many; the rest moves right
    rows[2][3] = 1234567890  # rewrite: one digit too many, touching write ...
    rows[2][4] = 123456789  # ... and read fills its field right after it
    rows[3][2] = 123456789  # write fills its field and touches reclen ...
    rows[3][3] = 2234567890  # ... and rewrite overflows by one right after it
    text = table(HEAD_3434, W_3434, rows)
    assert "  51693751234567890123456789  7649870" in text
    assert "     5121234567892234567890  7634280" in text
    r = imported(ws, write("wide.txt", banner() + text))
    assert cells(ws, r.run_ids[0]) == expected(rows)
    # both cuts of the last two digit runs are what printf would write: the warning says which was taken
    assert sum("values touch" in w for w in r.warnings) == 2
    assert any("could be 123456789 | 0123456789 or 1234567890 | 123456789" in w for w in r.warnings)


def test_ops_and_microseconds_units(ws, write):
    rows = [[65536, 64, 1200, 1300, 1400, 1500, 160, 170, 180, 190, 200, 210, 220, 230, 240]]
    r = imported(ws, write("ops.txt", banner(unit_line="OPS Mode. Output is in operations per second.")
                           + table(HEAD_3434, W_3434, rows)))
    rid = r.run_ids[0]
    assert cells(ws, rid, "ops_s")[("write", 65536, 64)] == 1200
    assert set(cells(ws, rid, "kb_s").values()) == {None}
    assert {u for (u,) in ws.con.execute("SELECT DISTINCT unit FROM iozone_results").fetchall()} == {"ops/s"}
    r = imported(ws, write("usop.txt", banner(unit_line="Microseconds/op Mode. Output is in microseconds per "
                                                        "operation.") + table(HEAD_3434, W_3434, rows)))
    assert cells(ws, r.run_ids[0], "us_per_op")[("reread", 65536, 64)] == 1500
    assert ws.run(r.run_ids[0]).meta.as_dict()["unit"] == "us/op"


def test_two_runs_in_one_file(ws, write):
    rows1 = [[4096, 4, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300]]
    rows2 = [[8192, 8, 101, 201, 301, 401, 501, 601, 701, 801, 901, 1001, 1101, 1201, 1301]]
    text = banner() + table(HEAD_3434, W_3434, rows1) + "\n" + banner("3.489") + table(HEAD_3434, W_3434, rows2)
    r = imported(ws, write("two.txt", text))
    assert len(r.run_ids) == 2
    assert cells(ws, r.run_ids[0]) == expected(rows1)
    assert cells(ws, r.run_ids[1]) == expected(rows2)
    assert [ws.run(i).tool_version for i in r.run_ids] == ["IOzone 3.434", "IOzone 3.489"]
    assert ws.run(r.run_ids[1]).name == "two — run 2"


# ---- -R report blocks ----------------------------------------------------------------------------------
def report(title, records, rows):
    out = f'\n"{title} report"\n        ' + "  ".join(f'"{r}"' for r in records) + "\n"
    return out + "".join(f'"{f}"   ' + "  ".join(str(v) for v in vals) + " \n" for f, vals in rows)


def test_report_repeating_the_table_is_checked_not_stored_twice(ws, write):
    rows = [[64, rec, 500 + rec, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700]
            for rec in (4, 8, 16, 32, 64)]
    text = banner(extra="\tExcel chart generation enabled\n") + table(HEAD_3434, W_3434, rows).replace(
        "\niozone test complete.\n", "")
    text += report("Writer", [4, 8, 16, 32, 64], [(64, [504, 508, 516, 532, 564])])
    text += report("Reader", [4, 8, 16, 32, 64], [(64, [700, 700, 700, 700, 777])])  # 777: the table says 700
    text += "\niozone test complete.\n"
    r = imported(ws, write("with_report.txt", text))
    rid = r.run_ids[0]
    assert cells(ws, rid) == expected(rows)  # 65 table cells, nothing added from the report
    meta = ws.run(rid).meta.as_dict()
    assert meta["report_values_checked_against_table"] == 10
    assert meta["excel_report"] is True
    assert any("Reader report gives 777 for 64 kB / 64 kB records, the table 700" in w for w in r.warnings)


def test_report_rows_of_large_files_start_at_64k_records(ws, write):
    """Auto mode runs records from 64 kB up for files over 16 MB: the row's values are the larger records."""
    records = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    text = report("Writer", records, [(16384, list(range(1, 14))), (32768, list(range(101, 110)))])
    r = imported(ws, write("big.txt", text))
    got = cells(ws, r.run_ids[0])
    assert got[("write", 16384, 4)] == 1
    assert got[("write", 16384, 16384)] == 13
    assert got[("write", 32768, 64)] == 101
    assert got[("write", 32768, 16384)] == 109
    assert ("write", 32768, 4) not in got


# ---- throughput mode ------------------------------------------------------------------------------------
def block(n, label, value, unit="kB", cpu=True):
    out = (f"\tChildren see throughput for {n:2d} {label} \t= {value:10.2f} {unit}/sec\n"
           f"\tParent sees throughput for {n:2d} {label} \t= {value * 0.9:10.2f} {unit}/sec\n"
           f"\tMin throughput per process \t\t\t= {value / n * 0.8:10.2f} {unit}/sec \n"
           f"\tMax throughput per process \t\t\t= {value / n * 1.2:10.2f} {unit}/sec\n"
           f"\tAvg throughput per process \t\t\t= {value / n:10.2f} {unit}/sec\n"
           f"\tMin xfer \t\t\t\t\t= {1024.0 * n:10.2f} {unit}\n")
    if cpu:
        out += "\tCPU utilization: Wall time    2.584    CPU time    1.959    CPU utilization  75.82 %\n"
    return out + "\n"


def test_throughput_l1_u3_with_report(ws, write):
    text = banner(extra="\tMin process = 1 \n\tMax process = 3 \n")
    for n in (1, 2, 3):
        text += (f"\tThroughput test with {n} process{'es' if n > 1 else ''}\n"
                 "\tEach process writes a 1048576 kByte file in 256 kByte records\n\n")
        text += block(n, "initial writers", 1000.0 * n) + block(n, "readers", 5000.0 * n)
    text += ('\n"Throughput report Y-axis is type of test X-axis is number of processes"\n"Record size = 256 kBytes "\n'
             '"Output is in kBytes/sec"\n\n"  Initial write "    1000.00     2000.00     3000.00 \n\n'
             '"           Read "    5000.00    10000.00    15000.00 \n\n\niozone test complete.\n')
    r = imported(ws, write("tp.txt", text), ram_gb=2.5)
    rid = r.run_ids[0]
    got = ws.con.execute("SELECT test, threads, kb_s, avg_proc, file_kb, record_kb, page_cache_likely, cpu_pct "
                         "FROM iozone_results WHERE run_id = ? ORDER BY test, threads", [rid]).fetchall()
    # 1, 2, 3 x 1 GB against 2.5 GB of RAM: only 1 and 2 processes fit
    assert got == [("read", 1, 5000.0, 5000.0, 1048576, 256, True, 75.82),
                   ("read", 2, 10000.0, 5000.0, 1048576, 256, True, 75.82),
                   ("read", 3, 15000.0, 5000.0, 1048576, 256, False, 75.82),
                   ("write", 1, 1000.0, 1000.0, 1048576, 256, True, 75.82),
                   ("write", 2, 2000.0, 1000.0, 1048576, 256, True, 75.82),
                   ("write", 3, 3000.0, 1000.0, 1048576, 256, False, 75.82)]
    meta = ws.run(rid).meta.as_dict()
    assert meta["throughput_report_values_checked"] == 6
    assert meta["threads"] == [1, 2, 3]
    assert meta["page_cache"]["likely"] is True
    assert meta["page_cache"]["results_likely"] == 4


def test_throughput_in_ops(ws, write):
    text = banner(unit_line="OPS Mode. Output is in operations per second.") + block(4, "random readers", 3159.44,
                                                                                     unit="ops", cpu=False)
    r = imported(ws, write("tpops.txt", text + "iozone test complete.\n"))
    (test, ops, kb, mx), = ws.con.execute("SELECT test, ops_s, kb_s, min_xfer FROM iozone_results").fetchall()
    assert (test, ops, kb, mx) == ("random_read", 3159.44, None, 4096.0)
    assert r.status == "imported"


def test_o_direct_means_no_page_cache(ws, write):
    rows = [[65536, 64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]]
    text = banner(extra="\tO_DIRECT feature enabled\n") + table(HEAD_3434, W_3434, rows)
    r = imported(ws, write("direct.txt", text), ram_gb=64)
    assert {v for (v,) in ws.con.execute("SELECT DISTINCT page_cache_likely FROM iozone_results").fetchall()} == {
        False}
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert meta["o_direct"] is True
    assert meta["page_cache"]["likely"] is False
    assert not any("page cache" in w for w in r.warnings)


# ---- bad input: file:line, nothing left behind -----------------------------------------------------------
def nothing_stored(ws):
    for t in ("runs", "iozone_results"):
        assert ws.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] == 0, t


GOOD_ROWS = [[1048576, rec, 5169375, 7712220, 7634280, 7649870, 7541971, 8989992, 7688128, 11968815, 7556588,
              7164076, 7202157, 7687779, 7659035] for rec in (512, 1024, 2048)]


@pytest.mark.parametrize(("case", "text", "line", "message"), [
    ("cut row", banner() + HEAD_3434 + "".join(row(W_3434, r) for r in GOOD_ROWS)
     + row(W_3434, GOOD_ROWS[0])[:60] + "\n", 17, "the table is cut off or damaged here"),
    ("header only", banner() + HEAD_3434, 13, "without a single result row"),
    ("garbage row", banner() + HEAD_3434 + row(W_3434, GOOD_ROWS[0])
     + "[ 83.194629 0:143 axfs::fops:269] [AxError::InvalidInput]\n", 15, "not a row of the IOzone table"),
    ("extra value", banner() + HEAD_3434 + row(W_3434, GOOD_ROWS[0]).rstrip() + "   12345\n", 14,
     "more values than the table has columns"),
    ("cut block", banner() + block(2, "initial writers", 100.0)
     + "".join(block(2, "rewriters", 90.0).splitlines(True)[:2]), 21, "lacks min_proc, max_proc, avg_proc, min_xfer"),
    ("cut line", banner() + block(2, "initial writers", 100.0) + block(2, "rewriters", 90.0)[:150], 22,
     "the output is cut off here"),
    ("stray line in block", banner() + block(2, "initial writers", 100.0).replace("\tMin xfer", "\tbogus\n\tMin xfer"),
     17, "unexpected line inside the throughput block"),
    ("parent alone", banner() + "\tParent sees throughput for  2 initial writers \t=   90.00 kB/sec\n", 12,
     "outside a 'Children see throughput' block"),
    ("report too long", report("Writer", [4, 8], [(8, [1, 2, 3])]), 4, "the row is cut off or damaged"),
    ("report without rows", '"Writer report"\n        "4"  "8"\n', 1, "has no rows"),
    ("nothing", banner(), None, "no IOzone result found"),
])
def test_bad_iozone_input(ws, write, case, text, line, message):
    path = write("bad.txt", text)
    r = import_file(ws, path, ImportOptions(), fmt_id="iozone-text")
    assert r.status == "failed", case
    where = f"{path}:{line}: " if line else f"{path}: "
    assert r.error.startswith(where), (case, r.error)
    assert message in r.error, (case, r.error)
    nothing_stored(ws)


def test_good_rows_before_the_cut_still_fail_the_file(ws, write):
    """A cut table is an error, not a silent partial import: the user re-runs or fixes the file."""
    text = banner() + HEAD_3434 + "".join(row(W_3434, r) for r in GOOD_ROWS) + row(W_3434, GOOD_ROWS[0])[:100]
    r = import_file(ws, write("cut.txt", text), ImportOptions())
    assert r.status == "failed"
    assert ":17: the file ends in the middle of a row of results" in r.error
    nothing_stored(ws)


@pytest.mark.parametrize("name", ["iozone2csv_iozone.out.txt", "snippet_ubuntuforums_iozone-throughput-l5-u5-R.txt",
                                  "iozone-results-comparator_ext2_1.iozone.txt"])
def test_output_that_starts_at_run_began_keeps_its_settings(ws, tmp_path, name):
    """A paste that starts at 'Run began:' (the banner's first lines cut off, issue 28): its Auto Mode, command line
    and unit line are still the banner's. They were ignored -- the auto-mode run stored as single mode, no command
    line -- and a false warning said there was no 'Output is in' line."""
    from tests.conftest import CORPUS

    full = (CORPUS / "iozone" / name).read_text(encoding="utf-8")
    lines = full.splitlines(keepends=True)
    cut = tmp_path / f"cut_{name}"
    cut.write_text("".join(lines[next(i for i, ln in enumerate(lines) if "Run began:" in ln):]), encoding="utf-8")
    got = {}
    for path in (CORPUS / "iozone" / name, cut):
        r = import_file(ws, str(path), ImportOptions())
        assert r.status == "imported", r.error
        meta = ws.run(r.run_ids[0]).meta.as_dict()
        got[path.name] = ({k: meta.get(k) for k in ("mode", "command_line", "unit", "unit_line", "settings")},
                          [w.split(": ", 1)[1] for w in r.warnings])
    assert got[cut.name] == got[name]
    assert got[name][0]["command_line"]
