"""Bad input: a clear error naming the file and line, nothing left in the workspace,
and the other files of the same drop still import."""

import pytest

from app.importer import import_file, import_paths
from parsers.base import ImportOptions
from tests.conftest import CORPUS, GOOD


def tables_empty(ws):
    for t in ("runs", "iostat_samples", "cpu_samples"):
        assert ws.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] == 0, t


def test_empty_file(ws, write):
    r = import_file(ws, write("empty.txt", ""), ImportOptions())
    assert r.status == "failed"
    assert "empty.txt: the file is empty" in r.error
    tables_empty(ws)


def test_binary_file(ws, write):
    r = import_file(ws, write("blob.txt", bytes(range(256)) * 40), ImportOptions())
    assert r.status == "failed"
    assert "binary" in r.error
    tables_empty(ws)


def test_pdf(ws, write):
    r = import_file(ws, write("report.txt", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"), ImportOptions())
    assert r.status == "failed"
    assert "PDF" in r.error
    tables_empty(ws)


def test_iozone_file_is_not_taken_for_iostat(ws):
    path = CORPUS / "iozone" / "iozone2csv_iozone.out.txt"
    # forced through the iostat parser, it fails on the first line that is not iostat
    r = import_file(ws, str(path), ImportOptions(), fmt_id="iostat-text")
    assert r.status == "failed"
    assert r.error.startswith(f"{path}:1: unexpected text 'Iozone: Performance Test of File I/O'")
    tables_empty(ws)


def test_truncated_report_keeps_complete_reports(ws, write):
    text = GOOD + "03/14/2024 10:00:10 AM\nDevice            r/s     w/s     rkB/s     wkB/s  %util\nsda    12.00   2"
    r = import_file(ws, write("cut.txt", text), ImportOptions())
    assert r.status == "imported"
    assert any(w.startswith("cut.txt:13: the file ends in the middle of a report") for w in r.warnings)
    assert ws.con.execute("SELECT count(*), max(sample_idx) FROM iostat_samples").fetchall() == [(2, 1)]
    assert ws.run(r.run_ids[0]).n_samples == 2


def test_truncated_first_report_is_an_error(ws, write):
    text = "Linux 5.15.0 (h) \t03/14/2024 \t_x86_64_\t(4 CPU)\n\nDevice  r/s  w/s\nsda  1.00"
    r = import_file(ws, write("cut1.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "cut1.txt:4: the file ends in the middle of its first report" in r.error
    tables_empty(ws)


def test_bad_row_in_the_middle_names_the_line(ws, write):
    text = GOOD.replace("sda             10.00   20.00", "sda             10.00")
    r = import_file(ws, write("bad.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "bad.txt:5: expected 6 fields (device and 5 values, as the header at line 4 says), found 5" in r.error
    tables_empty(ws)


def test_value_that_is_not_a_number(ws, write):
    text = GOOD.replace("11.00   21.00", "11.00   2x.00")
    r = import_file(ws, write("nan.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "nan.txt:9: value that is not a number" in r.error
    tables_empty(ws)


def test_one_megabyte_line(ws, write):
    text = GOOD + "sda " + "9" * (1024 * 1024) + "\n"
    r = import_file(ws, write("long.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "long.txt:11: line of 1,048,580 characters" in r.error
    tables_empty(ws)


def test_garbage_between_reports(ws, write):
    text = GOOD.replace("03/14/2024 10:00:05 AM", "hello world")
    r = import_file(ws, write("junk.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "junk.txt:7: unexpected text 'hello world'" in r.error
    tables_empty(ws)


def test_a_failure_does_not_stop_the_other_files(ws, tmp_path):
    drop = tmp_path / "drop"
    drop.mkdir()
    (drop / "a_good.txt").write_text(GOOD)
    (drop / "b_bad.txt").write_text(GOOD.replace("sda             10.00   20.00", "sda  1"))
    (drop / "c_empty.log").write_text("")
    (drop / "d_good.txt").write_text(GOOD.replace("vdi-host", "other-host"))
    res = import_paths(ws, [drop], ImportOptions())
    assert [r.status for r in res] == ["imported", "failed", "skipped", "imported"]
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 2
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall()[0][0] == 4


def test_duplicate_is_not_stored_twice(ws, write, tmp_path):
    a = write("a.txt", GOOD)
    b = write("copy of a.txt", GOOD)
    r1 = import_file(ws, a, ImportOptions())
    r2 = import_file(ws, b, ImportOptions())
    assert r1.status == "imported"
    assert r2.status == "duplicate"
    assert r2.run_ids == r1.run_ids
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall()[0][0] == 2


@pytest.mark.parametrize("text", ["just some notes\nnothing to see\n", "a,b,c\n1,2,3\n"])
def test_unknown_text_is_not_supported(ws, write, text):
    r = import_file(ws, write("notes.txt", text), ImportOptions())
    assert r.status == "failed"
    assert "not a supported trace format" in r.error
    tables_empty(ws)


def test_parsing_ahead_on_a_thread_keeps_errors_and_results(ws, write, monkeypatch):
    """Large files are parsed on a second thread (app.importer.read_ahead): the same results, the same
    file:line errors, nothing left behind."""
    import app.importer as importer
    from app.importer import read_ahead
    from parsers.base import ParseError

    monkeypatch.setattr(importer, "READ_AHEAD_BYTES", 0)
    r = import_file(ws, write("good.txt", GOOD), ImportOptions())
    assert r.status == "imported"
    assert r.rows == 2
    r = import_file(ws, write("bad.txt", GOOD.replace("sda             10.00   20.00", "sda             10.00")),
                    ImportOptions())
    assert r.status == "failed"
    assert "bad.txt:5: expected 6 fields" in r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 1

    def boom():
        yield 1
        raise ParseError("broken", 7)

    got = []

    def consume():
        for x in read_ahead(boom()):
            got.append(x)

    with pytest.raises(ParseError, match="broken"):
        consume()
    assert got == [1]
    # a consumer that stops early does not leave the producer thread hanging
    it = read_ahead(iter(range(1000)), depth=1)
    assert next(it) == 0
    it.close()
