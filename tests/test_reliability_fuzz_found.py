"""Parser bugs the reliability suite's fuzzer found (tests/test_reliability_fuzz.py), each the smallest example
of it: a clear error naming the file and line, or a clean import, never an internal error."""

from __future__ import annotations

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
