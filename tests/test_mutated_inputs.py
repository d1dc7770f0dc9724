"""Real files with one thing wrong (found by fuzzing the corpus): each gives a clear error naming the file and
the line, never an 'internal error', and leaves nothing behind. Byte-order marks are not errors."""

import re

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, SAMPLES, needs_corpus

pytestmark = needs_corpus


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


@pytest.mark.parametrize("value, message", [("NaN", "NaN is not a number"), ("Infinity", "Infinity is not"),
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
    assert r.status == "failed" and "internal error" not in r.error and f"l.csv:{i + 2}: " in r.error


@pytest.mark.parametrize("src", [PKB, SAMPLES / "fio_randread_lat_limited.json",
                                 CORPUS / "iostat" / "sysstat-tests_iostat-h.txt"])
def test_a_utf8_byte_order_mark_is_not_an_error(ws, tmp_path, src):
    p = tmp_path / ("bom-" + src.name)
    p.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "imported", r.error


def test_utf16_says_what_it_is(ws, tmp_path):
    p = tmp_path / "u16.txt"
    p.write_bytes((CORPUS / "iostat" / "sysstat-tests_iostat-h.txt").read_text().encode("utf-16"))
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "failed" and "UTF-16" in r.error
