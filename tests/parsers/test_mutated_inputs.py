"""Real files with one thing wrong (found by fuzzing the corpus): each gives a clear error naming the file and
the line, never an 'internal error', and leaves nothing behind. Byte-order marks are not errors."""

import re

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, SAMPLES


def mutate(src, dst, old, new, count=1):
    text = src.read_text(encoding="utf-8")
    assert old in text, old
    dst.write_text(text.replace(old, new, count), encoding="utf-8")
    return str(dst)


def failed_at(ws, path, line, message):
    r = import_file(ws, path, ImportOptions(interval_s=60))
    assert r.status == "failed", r
    assert "internal error" not in r.error
    assert r.error.startswith(f"{path}:{line}: "), r.error
    assert re.search(message, r.error), r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


PKB = CORPUS / "iostat" / "pkb_iostat_output.json"
G_JSON = CORPUS / "iostat" / "sysstat-tests_iostat-g-JSON.txt"


def test_impossible_banner_date(ws, tmp_path):
    p = mutate(CORPUS / "iostat" / "sysstat-tests_iostat-h.txt", tmp_path / "h.txt", "06/01/20", "06/99/20")
    failed_at(ws, p, 1, "impossible date '06/99/20' in the iostat banner")


def test_impossible_json_time(ws, tmp_path):
    p = mutate(PKB, tmp_path / "t.json", '"2024-03-14T17:53:15-0700"', '"2024-03-14T17:53:99-0700"')
    failed_at(ws, p, 101, r"impossible date or time '2024-03-14T17:53:99-0700' in statistics\[1\]")


def test_json_structure_that_is_not_iostat(ws, tmp_path):
    text = PKB.read_text()
    # statistics[1].disk[2] becomes a string where an object belongs
    start = text.index('"disk"', text.index('"timestamp": "2024-03-14T17:53:15-0700"'))
    third = [m.start() for m in re.finditer(r"\{\s*\"disk_device\"", text[start:])][2] + start
    end = text.index("}", third) + 1
    (tmp_path / "s.json").write_text(text[:third] + '"x"' + text[end:])
    failed_at(ws, str(tmp_path / "s.json"), 101, r"statistics\[1\]\.disk\[2\] is not an object")


@pytest.mark.parametrize(("value", "message"), [("NaN", "NaN is not a number"), ("Infinity", "Infinity is not"),
                                            ("1e309", "out of range"), ("9" * 5000, "a number of 5,000 digits")])
def test_json_numbers_no_tool_prints(ws, tmp_path, value, message):
    text = G_JSON.read_text()
    m = re.search(r'"tps": ([0-9.]+)', text)
    line = text.count("\n", 0, m.start()) + 1
    (tmp_path / "n.json").write_text(text[:m.start(1)] + value + text[m.end(1):])
    failed_at(ws, str(tmp_path / "n.json"), line, message)


def test_fio_bin_count_too_big_for_any_column(ws, tmp_path):
    src = SAMPLES / "fio_randrw_jsonplus.json"
    text = src.read_text()
    m = re.search(r'"bins" : \{\s*"(\d+)" : (\d+)', text)
    line = text.count("\n", 0, m.start(2)) + 1
    (tmp_path / "f.json").write_text(text[:m.start(2)] + "12345678901234567890123" + text[m.end(2):])
    failed_at(ws, str(tmp_path / "f.json"), line, "a number of 23 digits")


def test_iozone_report_value_of_100000_digits(ws, tmp_path):
    src = CORPUS / "iozone" / "iozone-renderer_iozone-R-report.txt"
    lines = src.read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if re.match(r'^"\d+"\s+\d+', ln))
    lines[i] = lines[i].rstrip("\n") + " " + "9" * 100_000 + "\n"
    (tmp_path / "z.txt").write_text("".join(lines))
    failed_at(ws, str(tmp_path / "z.txt"), i + 1, "a number of 100,000 digits")


def test_iomark_and_iometer_values_out_of_range(ws, tmp_path):
    iomark = SAMPLES / "example_iomark_results.csv"
    lines = iomark.read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if re.match(r"^[^#].*,96,", ln))
    lines[i] = lines[i].replace(",96,", ",1e309,", 1)
    (tmp_path / "m.csv").write_text("".join(lines))
    failed_at(ws, str(tmp_path / "m.csv"), i + 1, "'1e309' is out of range")
    iometer = SAMPLES / "example_iometer_results.csv"
    lines = iometer.read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if ln.startswith("MANAGER,"))
    f = lines[i].split(",")
    f[4] = "9" * 23  # a count column
    lines[i] = ",".join(f)
    (tmp_path / "i.csv").write_text("".join(lines))
    failed_at(ws, str(tmp_path / "i.csv"), i + 1, "is out of range")


def test_a_csv_field_over_the_csv_modules_limit(ws, tmp_path):
    lines = (SAMPLES / "example_iomark_results.csv").read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if ln.strip() and not ln.startswith("#"))  # the header
    lines.insert(i + 1, "x" * 200_000 + "\n")
    (tmp_path / "l.csv").write_text("".join(lines))
    r = import_file(ws, str(tmp_path / "l.csv"), ImportOptions())
    assert r.status == "failed"
    assert "internal error" not in r.error
    assert f"l.csv:{i + 2}: " in r.error


@pytest.mark.parametrize("src", [PKB, SAMPLES / "fio_randread_lat_limited.json",
                                 CORPUS / "iostat" / "sysstat-tests_iostat-h.txt"])
def test_a_utf8_byte_order_mark_is_not_an_error(ws, tmp_path, src):
    p = tmp_path / ("bom-" + src.name)
    p.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "imported", r.error


def test_utf16_is_read_as_the_same_log(ws, tmp_path):
    """PowerShell's '>' writes UTF-16 with a byte-order mark: read like the UTF-8 log (issue 15; was refused)."""
    p = tmp_path / "u16.txt"
    p.write_bytes((CORPUS / "iostat" / "sysstat-tests_iostat-h.txt").read_text().encode("utf-16"))
    r = import_file(ws, str(p), ImportOptions())
    ref = import_file(ws, str(CORPUS / "iostat" / "sysstat-tests_iostat-h.txt"), ImportOptions())
    assert (r.status, r.rows) == ("imported", ref.rows)
    q = "SELECT device, sample_idx, tps, rkb_s FROM iostat_samples WHERE run_id = ? ORDER BY 1, 2"
    assert ws.query(q, [r.run_ids[0]]).rows() == ws.query(q, [ref.run_ids[0]]).rows()


# ---- iostat text: cut-off ends, pasted indentation, values iostat never prints, Windows line ends -------------
TWO_DEVICES = """Linux 5.15.0 (h) \t03/14/2024 \t_x86_64_\t(4 CPU)

03/14/2024 10:00:00 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             10.00   20.00     40.00     80.00   5.00
sdb              1.00    2.00      4.00      8.00   0.32

03/14/2024 10:00:05 AM
Device            r/s     w/s     rkB/s     wkB/s  %util
sda             11.00   21.00     44.00     84.00   6.00
sdb              1.00    2.00      4.00      8.00   0.32

"""


def stored(ws):
    return ws.con.execute("SELECT sample_idx, device, util_pct FROM iostat_samples ORDER BY 1, 2").fetchall()


@pytest.mark.parametrize(("cut", "why"), [
    (TWO_DEVICES.rstrip("\n")[:-1], "its last line is cut short"),  # '0.32' cut to '0.3'
    (TWO_DEVICES[:TWO_DEVICES.rindex("sdb")], "fewer devices than the report before"),  # sdb never written
])
def test_a_log_cut_inside_its_last_report_leaves_that_report_out(ws, write, cut, why):
    r = import_file(ws, write("cut.txt", cut), ImportOptions(first_report="interval"))
    assert r.status == "imported", r.error
    assert any("the incomplete last report was left out" in w and why in w for w in r.warnings), r.warnings
    assert stored(ws) == [(0, "sda", 5.0), (0, "sdb", 0.32)]
    assert ws.run(r.run_ids[0]).n_samples == 1


def test_a_complete_log_without_its_final_blank_line_is_kept_whole(ws, write):
    r = import_file(ws, write("ok.txt", TWO_DEVICES.rstrip("\n") + "\n"), ImportOptions(first_report="interval"))
    assert r.status == "imported"
    assert not any("left out" in w for w in r.warnings)
    assert len(stored(ws)) == 4


def test_rows_indented_by_a_paste_are_not_group_rows(ws, write):
    text = "\n".join("  " + ln if ln.startswith("sd") else ln for ln in TWO_DEVICES.splitlines()) + "\n"
    r = import_file(ws, write("indented.txt", text), ImportOptions(first_report="interval"))
    assert r.status == "imported", r.error
    assert ws.con.execute("SELECT bool_or(is_group), count(DISTINCT device) FROM iostat_samples").fetchall() == [
        (False, 2)]


@pytest.mark.parametrize("bad", ["nan", "inf", "-1.00", "1e309"])
def test_values_iostat_never_prints_are_errors_with_their_line(ws, write, bad):
    text = TWO_DEVICES.replace("  0.32\n", f"  {bad}\n", 1)
    failed_at(ws, write("odd.txt", text), 6, "a value iostat never prints")


def test_cpu_values_must_be_percentages(ws, write):
    text = GOOD_CPU.replace("  5.00    0.00", "   nan    0.00")
    failed_at(ws, write("cpu.txt", text), 5, "CPU values are percentages")


GOOD_CPU = """Linux 5.15.0 (h) \t03/14/2024 \t_x86_64_\t(4 CPU)

03/14/2024 10:00:00 AM
avg-cpu:  %user   %nice %system %iowait  %steal   %idle
           5.00    0.00    2.00    1.00    0.00   92.00

Device            r/s     w/s     rkB/s     wkB/s  %util
sda             10.00   20.00     40.00     80.00   5.00

"""


def test_windows_line_ends_in_a_log_read_in_chunks(ws, write):
    """A CRLF log larger than one read: the blank line between reports is found across the line ends."""
    text = TWO_DEVICES + "".join(TWO_DEVICES.split("\n\n", 1)[1].replace("10:00:0", f"10:0{i}:0")
                                 for i in range(1, 9))
    r = import_file(ws, write("crlf.txt", text.replace("\n", "\r\n").encode()),
                    ImportOptions(first_report="interval", chunk_bytes=97))
    assert r.status == "imported", r.error
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall() == [(36,)]


# ---- Iometer, fio, IOzone ------------------------------------------------------------------------------------
IOMETER = SAMPLES / "example_iometer_results.csv"


def iometer_with(tmp_path, edit):
    lines = IOMETER.read_text().splitlines(keepends=True)
    i = edit(lines)
    (tmp_path / "io.csv").write_text("".join(lines))
    return str(tmp_path / "io.csv"), i + 1


def test_iometer_impossible_time_stamp(ws, tmp_path):
    def edit(lines):
        i = next(i for i, ln in enumerate(lines) if ln.strip() == "'Time Stamp") + 1
        lines[i] = re.sub(r"^(\d{4})-\d{2}", r"\1-13", lines[i])
        return i - 1
    path, _ = iometer_with(tmp_path, edit)
    r = import_file(ws, path, ImportOptions())
    assert r.status == "failed"
    assert "internal error" not in r.error
    assert "'Time Stamp' without a real time" in r.error


def test_iometer_decimal_comma_would_shift_every_later_value(ws, tmp_path):
    def edit(lines):
        i = next(i for i, ln in enumerate(lines) if ln.startswith("DISK,"))
        f = lines[i].split(",")
        j = next(j for j in range(4, len(f)) if re.fullmatch(r"\d+\.\d+", f[j]))
        f[j] = f[j].replace(".", ",")
        lines[i] = ",".join(f)
        return i
    path, line = iometer_with(tmp_path, edit)
    failed_at(ws, path, line, "a decimal comma splitting a value")


def test_iometer_count_with_a_fraction(ws, tmp_path):
    def edit(lines):
        i = next(i for i, ln in enumerate(lines) if ln.startswith("MANAGER,"))
        f = lines[i].split(",")
        f[4] = "1.5"
        lines[i] = ",".join(f)
        return i
    path, line = iometer_with(tmp_path, edit)
    failed_at(ws, path, line, "is not a whole number")


def test_fio_elapsed_time_no_clock_holds_is_a_warning(ws, tmp_path):
    text = (SAMPLES / "fio_randread_lat_limited.json").read_text()
    text = re.sub(r'"elapsed" : \d+', '"elapsed" : 99999999999999', text, count=1)
    text = re.sub(r'"job_start" : \d+,?', "", text)
    (tmp_path / "e.json").write_text(text)
    r = import_file(ws, str(tmp_path / "e.json"), ImportOptions())
    assert r.status == "imported", r.error


def test_iozone_table_split_by_a_blank_line(ws, tmp_path):
    src = CORPUS / "iozone" / "iozone2csv_iozone.out.txt"
    lines = src.read_text().splitlines(keepends=True)
    rows = [i for i, ln in enumerate(lines) if re.match(r"^\s+\d+\s+\d+\s+\d+", ln)]
    lines.insert(rows[3], "\n")
    (tmp_path / "b.txt").write_text("".join(lines))
    failed_at(ws, str(tmp_path / "b.txt"), rows[3] + 2, "a row of numbers after the table")
