"""Parser bugs the reliability suite's fuzzer found (tests/test_reliability_fuzz.py), each the smallest example
of it: a clear error naming the file and line, or a clean import, never an internal error."""

from __future__ import annotations

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS

PERFMON = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"


def test_perfmon_byte_not_utf8_in_a_data_row_names_its_line(ws, tmp_path):
    """perfmon (parsers/pdh.py): a byte that is not UTF-8 in a data row of a UTF-8 file escaped as a raw
    UnicodeDecodeError (the rows were decoded in 8 KB chunks, before the reader's own check) and, where caught,
    named the wrong line."""
    lines = PERFMON.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b",", b",\xff", 1)
    p = tmp_path / "p.csv"
    p.write_bytes(b"".join(lines))
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "failed", r
    assert r.error.startswith(f"{p}:4: not utf-8 text"), r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


def test_perfmon_junk_line_before_the_header_that_is_not_utf8(ws, tmp_path):
    """perfmon: a junk line before the header (a title some tools write) in Windows-1252 is skipped like any."""
    p = tmp_path / "p.csv"
    p.write_bytes(b"Donn\xe9es du serveur\r\n" + PERFMON.read_bytes())
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "imported", r


def test_iostat_unit_separator_byte_in_a_device_block(ws, tmp_path):
    """iostat text (parsers/iostat.py): a \\x1f byte (ASCII unit separator) in a device block split the block's
    lines into two columns and polars raised SchemaError (an internal error); the fuzzer's smallest example."""
    from tests.fuzz_util import mutate

    src = CORPUS / "iostat" / "vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt"
    p = tmp_path / "i.txt"
    p.write_bytes(mutate(src.read_bytes(), ("insert", 0.0625, b"\x1f")))
    r = import_file(ws, str(p), ImportOptions(first_report="interval"))
    assert "internal error" not in (r.error or ""), r.error
    assert r.status == "failed", r
    assert r.error.startswith(f"{p}:"), r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


@pytest.mark.parametrize(("src", "header"), [
    ("jc_centos-7.7_iostat.txt", "Device:  "),  # device-first layout, the column names lost, spaces left
    ("vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt", "   Device"),  # --pretty: device-last
])
def test_iostat_device_header_without_columns(ws, tmp_path, src, header):
    """iostat text (parsers/iostat.py): a 'Device' header line with no column names but with spaces around it
    was taken for a header and raised IndexError (an internal error); now the line is a file:line error."""
    lines = (CORPUS / "iostat" / src).read_text().splitlines(keepends=True)
    i = next(i for i, ln in enumerate(lines) if ln.split() and "Device" in ln.split()[0] + ln.split()[-1])
    lines[i] = header + "\n"
    p = tmp_path / "i.txt"
    p.write_text("".join(lines))
    r = import_file(ws, str(p), ImportOptions(first_report="interval"))
    assert r.status == "failed", r
    assert r.error.startswith(f"{p}:{i + 1}: "), r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]


FIO_LOGS = CORPUS / "fio"


@pytest.mark.parametrize(("log", "field", "message"), [
    # an epoch log's time, a latency, a block size
    ("vm_fio-3.33_randwrite-epoch_iops.1.log", 0, r"time 9{8}… \(23 digits\) ms is past the year 9999"),
    ("vm_fio-3.33_randread-per-io_lat.1.log", 1, r"value 1{8}… \(400 digits\) is larger than fio writes"),
    ("vm_fio-3.33_randread-per-io_lat.1.log", 3, r"block size 1{8}… \(400 digits\) is larger than fio writes"),
])
def test_fio_log_number_too_large_for_fio(ws, tmp_path, log, field, message):
    """fio logs (parsers/fio_log.py): a time, value or block size beyond 64 bits (fio's own limit) raised
    OverflowError while dating or averaging the rows (an internal error); now it is a file:line error."""
    import re

    lines = (FIO_LOGS / log).read_text().splitlines(keepends=True)
    i = len(lines) // 2
    parts = lines[i].split(",")
    parts[field] = " " + "9" * 23 if field == 0 else " " + "1" * 400
    lines[i] = ",".join(parts)
    p = tmp_path / log
    p.write_text("".join(lines))
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "failed", r
    assert "internal error" not in r.error, r.error
    assert r.error.startswith(f"{p}:{i + 1}: "), r.error
    assert re.search(message, r.error), r.error


def test_fio_histogram_log_time_past_year_9999(ws, tmp_path):
    """fio histogram logs (parsers/fio_log.py): the same for a later row's time in an epoch log (OverflowError
    while dating the row, an internal error)."""
    log = "vm_fio-3.33_randwrite-epoch_clat_hist.1.log"
    lines = (FIO_LOGS / log).read_text().splitlines(keepends=True)
    i = len(lines) - 1
    lines[i] = "9" * 23 + lines[i][lines[i].index(","):]
    p = tmp_path / log
    p.write_text("".join(lines))
    r = import_file(ws, str(p), ImportOptions())
    assert r.status == "failed", r
    assert r.error.startswith(f"{p}:{i + 1}: time 99999999… (23 digits) ms is past the year 9999"), r.error
