"""The fast paths of a large iostat import give exactly what the careful ones give (issue 18).

* Device rows of plain layouts are cut into fields in bulk (``parsers.iostat._plain_fields``) and read by
  polars' CSV reader; every other row takes the careful path, which also names a bad line.
* A large table is stored by one INSERT streaming the parser's frames (``app.workspace._Stager.stream``).

Both are checked on the real corpus against the careful path and the in-memory insert.
"""

from __future__ import annotations

import pytest
from polars.testing import assert_frame_equal

import app.workspace
import parsers.iostat
from parsers.base import ImportOptions, JobState, ParseError, Rows, SampleTimes
from parsers.iostat import IostatTextFormat, _plain_fields
from tests.conftest import CORPUS, corpus_files
from tests.golden_util import snapshot

TEXT = corpus_files("iostat", lambda p: p.suffix != ".json")


def _events(path, chunk_bytes=4 * 1024 * 1024):
    warnings = []
    events = list(IostatTextFormat().parse(str(path), ImportOptions(chunk_bytes=chunk_bytes), JobState(),
                                           lambda msg, line: warnings.append((msg, line))))
    return events, warnings


def test_plain_rows_read_as_the_careful_path_reads_them(monkeypatch):
    """Every text file of the corpus parses to the same events with the bulk cut as without it; the bulk cut is
    taken for most of them (a change that made it decline everywhere would fail here, not just run slower)."""
    plain = []
    real = parsers.iostat._Parser._convert_plain

    def counting(self, p, plain_values):
        out = real(self, p, plain_values)
        plain.append(out is not None)
        return out

    monkeypatch.setattr(parsers.iostat._Parser, "_convert_plain", counting)
    fast = {path.name: _outcome(path) for path in TEXT}
    monkeypatch.setattr(parsers.iostat._Parser, "_convert_plain", lambda self, p, plain_values: None)
    for path in TEXT:
        _same(fast[path.name], _outcome(path), path.name)
    assert sum(plain) >= 0.7 * len(plain), f"{sum(plain)} of {len(plain)} conversions took the bulk cut"


def test_converting_on_a_worker_thread_changes_nothing(monkeypatch):
    """A chunk's rows converted while the next chunk is read: the same events, warnings and errors as one after
    the other (small chunks, so that every file of the corpus is read in many)."""
    threaded = {path.name: _outcome(path) for path in TEXT}
    monkeypatch.setattr(parsers.iostat._Parser, "pipeline", False)
    for path in TEXT:
        _same(threaded[path.name], _outcome(path), path.name)


def _outcome(path):
    try:
        return _events(path, 2048)
    except ParseError as e:  # a refused file: compared by its message and line
        return f"{e} (line {e.line})"


def _same(got, want, name):
    if isinstance(want, str) or isinstance(got, str):
        assert got == want, name
        return
    assert got[1] == want[1], name
    assert len(got[0]) == len(want[0]), name
    for a, b in zip(got[0], want[0]):
        assert type(a) is type(b), name
        if isinstance(a, Rows | SampleTimes):
            assert (a.key, a.table) == (b.key, b.table)
            assert_frame_equal(a.frame, b.frame)
        else:
            assert a == b, name


@pytest.mark.parametrize(("rows", "device_last", "why"), [
    ("sda 1.00\tx 2.00", False, "a tab"),
    ("sdä 1.00 2.00", False, "a byte that is not ASCII"),
    (" grp 1.00 2.00", False, "a -g group (leading blank)"),
    ("sda 1.00 2.00 ", False, "a trailing blank"),
    ("sda 1.00 2.00\n\nsdb 1.00 2.00", False, "an empty row"),
    ("sda 1.00", False, "a short row"),
])
def test_rows_that_need_the_careful_path_are_declined(rows, device_last, why):
    assert _plain_fields(rows.encode(), 3, rows.count("\n") + 1, device_last) is None, why


@pytest.mark.parametrize("rows", ["sda 1.00 2.00 3.00\nsdb 1.00", "sda 1.00 -2.00", "sda 1.00 nan", "sda 1.0.0 2"])
def test_rows_the_csv_reading_refuses_take_the_careful_path(rows):
    """A row long and one short (the separators add up), a value that is no non-negative number."""
    p = parsers.iostat._Parser("x", ImportOptions(), JobState(), lambda *a: None)
    h = p._header("Device r/s w/s", 1)
    pending = parsers.iostat._Pending(h, parts=[rows], sample=[0], nrows=[rows.count("\n") + 1], first_line=[2],
                                      key=["k"], ts=[None])
    assert p._convert_plain(pending, True) is None
    ok = parsers.iostat._Pending(h, parts=["sda 1.00 2.00\nsdb 0.50 3"], sample=[0], nrows=[2], first_line=[2],
                                 key=["k"], ts=[None])
    p.runs["k"] = parsers.iostat._RunState("k", None, parsers.iostat.RunInfo(kind="iostat"))
    assert p._convert_plain(ok, True).select("device", "r_s", "w_s").rows() == [("sda", 1.0, 2.0), ("sdb", 0.5, 3.0)]


def test_plain_fields_are_the_numbers_with_leading_zeros_or_cut_blanks():
    assert _plain_fields(b"sda   1.50  12.00\nsdb 0.00 1.00", 3, 2, False) == \
        b"sda\x1f001.50\x1f012.00\nsdb\x1f0.00\x1f1.00"
    assert _plain_fields(b"   1.50  12.00 sda\n 0.00 1.00    sdb", 3, 2, True) == \
        b"1.50\x1f12.00\x1fsda\n0.00\x1f1.00\x1fsdb"



@pytest.mark.parametrize("name", ["iostat-tool_sample_iostat.txt", "sysstat-tests_iostat-ALL.txt",
                                  "vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt"])
def test_a_streamed_insert_stores_what_the_in_memory_insert_stores(tmp_path, monkeypatch, name):
    from app.workspace import Workspace

    opts = ImportOptions(chunk_bytes=2048)
    with Workspace(tmp_path / "memory.duckdb") as ws:
        want = snapshot(ws, CORPUS / "iostat" / name, opts)
    streamed = []
    real = app.workspace._Stager.stream

    def counting(self, *a, **kw):
        streamed.append(a[0])
        return real(self, *a, **kw)

    monkeypatch.setattr(app.workspace, "INSERT_BATCH_ROWS", 5)
    monkeypatch.setattr(app.workspace._Stager, "stream", counting)
    with Workspace(tmp_path / "streamed.duckdb") as ws:
        got = snapshot(ws, CORPUS / "iostat" / name, opts)
    assert "iostat_samples" in streamed
    assert got["runs"] == want["runs"]
    assert got["result"].rows == want["result"].rows
    assert got["tables"].keys() == want["tables"].keys()
    for t, df in want["tables"].items():
        assert_frame_equal(got["tables"][t], df)


def test_a_bad_line_met_while_streaming_is_named_and_nothing_is_stored(tmp_path, monkeypatch):
    """The parse error raised inside DuckDB's read of the stream comes out as itself (file:line), the transaction
    is rolled back."""
    from app.importer import import_file
    from app.workspace import Workspace

    lines = (CORPUS / "iostat" / "iostat-tool_sample_iostat.txt").read_text().splitlines(keepends=True)
    bad = max(i for i, ln in enumerate(lines) if ln.startswith("sda"))
    lines[bad] = lines[bad].replace("sda ", "sda x", 1)
    src = tmp_path / "bad.txt"
    src.write_text("".join(lines))
    with Workspace(tmp_path / "memory.duckdb") as ws:
        want = import_file(ws, str(src), ImportOptions(chunk_bytes=2048))
    monkeypatch.setattr(app.workspace, "INSERT_BATCH_ROWS", 5)
    with Workspace(tmp_path / "streamed.duckdb") as ws:
        got = import_file(ws, str(src), ImportOptions(chunk_bytes=2048))
        assert ws.runs() == []
        assert ws.query("SELECT count(*) AS n FROM iostat_samples").item() == 0
    assert want.status == got.status == "failed"
    assert got.error == want.error
    assert f"bad.txt:{bad + 1}:" in got.error
