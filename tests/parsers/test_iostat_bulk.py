"""The fast paths of a large iostat import give exactly what the careful ones give (issue 18).

* Device rows of plain layouts are cut into fields in bulk (``parsers.iostat._plain_fields``) and read by
  polars' CSV reader; every other row takes the careful path, which also names a bad line.
* A large table is stored by one INSERT streaming the parser's frames (``app.workspace._Stager.stream``).

Both are checked on the real corpus against the careful path and the in-memory insert.
"""

from __future__ import annotations

import re
import threading

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import app.workspace
import parsers.iostat
from parsers.base import ImportOptions, JobState, ParseError, Rows, SampleTimes
from parsers.iostat import IostatTextFormat, _plain_fields
from tests.conftest import CORPUS, SAMPLES, corpus_files
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


def test_plain_fields_change_blanks_only():
    """Every printable byte but the blank comes out as it went in (blanks become zeros or the separator)."""
    name = bytes(range(33, 127))
    assert _plain_fields(name + b"   1.50 " + name, 3, 1, False) == name + b"\x1f001.50\x1f" + name




def stream_small_batches(monkeypatch) -> list[str]:
    """Tables past 5 rows go through the streamed insert; the list gets the name of each table streamed."""
    streamed: list[str] = []
    real = app.workspace._Stager.stream

    def counting(self, *a, **kw):
        streamed.append(a[0])
        return real(self, *a, **kw)

    monkeypatch.setattr(app.workspace, "INSERT_BATCH_ROWS", 5)
    monkeypatch.setattr(app.workspace._Stager, "stream", counting)
    return streamed

@pytest.mark.parametrize("name", ["iostat-tool_sample_iostat.txt", "sysstat-tests_iostat-ALL.txt",
                                  "vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt"])
def test_a_streamed_insert_stores_what_the_in_memory_insert_stores(tmp_path, monkeypatch, name):
    from app.workspace import Workspace

    opts = ImportOptions(chunk_bytes=2048)
    with Workspace(tmp_path / "memory.duckdb") as ws:
        want = snapshot(ws, CORPUS / "iostat" / name, opts)
    streamed = stream_small_batches(monkeypatch)
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


# ---- main's input checks on the fast paths (issue 17 x issue 18) -------------------------------------------------

FAST = SAMPLES / "storm_fast_iostat-xt.txt"  # the real capture test_import_integrity.py edits the same way
STAMP = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d$", re.M)


def _reports(text: str) -> tuple[str, list[str]]:
    starts = [m.start() for m in STAMP.finditer(text)]
    return text[:starts[0]], [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]


def _damaged(tmp_path):
    """FAST with reports 10-19 appended again after report 34 (logs joined out of order: left out, said) and, in
    report 45, a second vda row (left out, said) -- both far past the first chunks, so that they are met by the
    worker thread's conversion and inside the streamed insert."""
    banner, reps = _reports(FAST.read_text())
    vda = next(ln for ln in reps[45].splitlines() if ln.startswith("vda"))
    again = re.sub(r"(?<=\s)\d+\.\d\d", "777.00", vda, count=1)
    reps[45] = reps[45].replace(vda + "\n", vda + "\n" + again + "\n", 1)
    text = banner + "".join(reps[:35] + reps[10:20] + reps[35:])
    path = tmp_path / "damaged.txt"
    path.write_text(text)
    dup_line = text.count("\n", 0, text.index(again)) + 1
    back_line = text.count("\n", 0, text.index(reps[10], len(banner) + sum(map(len, reps[:35])))) + 1
    return path, dup_line, back_line, float(vda.split()[1])


def test_a_report_going_back_and_a_device_twice_are_said_the_same_with_the_worker_and_the_stream(
        tmp_path, monkeypatch):
    """_skip_report and the repeated-device drop behave as in one pass without worker or stream: the same rows,
    the same warnings with the same lines. The plain (bulk) path takes the rows with the duplicate, the worker
    converts them one chunk late, and the stream stores them. (Merging i18b, the plain path kept the second vda
    row -- the duplicate drop was only in the careful path -- and the import failed.)"""
    from app.workspace import Workspace

    path, dup_line, back_line, vda_r_s = _damaged(tmp_path)
    monkeypatch.setattr(parsers.iostat._Parser, "pipeline", False)
    with Workspace(tmp_path / "one-pass.duckdb") as ws:
        want = snapshot(ws, path, ImportOptions())
    monkeypatch.setattr(parsers.iostat._Parser, "pipeline", True)
    monkeypatch.setattr(app.workspace, "INSERT_BATCH_ROWS", 5)
    streamed, plain, worker = [], [], []
    real_stream, real_plain = app.workspace._Stager.stream, parsers.iostat._Parser._convert_plain

    def stream(self, *a, **kw):
        streamed.append(a[0])
        return real_stream(self, *a, **kw)

    def convert_plain(self, p, plain_values):
        out = real_plain(self, p, plain_values)
        if out is not None and (out.get_column("r_s") == 777.0).any():
            plain.append(threading.current_thread().name)
        worker.append(threading.current_thread() is not threading.main_thread())
        return out

    monkeypatch.setattr(app.workspace._Stager, "stream", stream)
    monkeypatch.setattr(parsers.iostat._Parser, "_convert_plain", convert_plain)
    with Workspace(tmp_path / "streamed.duckdb") as ws:
        got = snapshot(ws, path, ImportOptions(chunk_bytes=2048))
        assert ws.con.execute("SELECT r_s FROM iostat_samples WHERE sample_idx = 45 AND device = 'vda'"
                              ).fetchall() == [(vda_r_s,)]  # the first row printed is the one kept
    assert "iostat_samples" in streamed
    assert plain, "the rows with the duplicate did not take the bulk cut"
    assert plain[0].startswith("stormscope-iostat"), plain  # ... on the worker thread
    assert sum(worker) > 5
    assert got["runs"] == want["runs"]
    for t, df in want["tables"].items():
        assert_frame_equal(got["tables"][t], df)
    warnings = got["runs"][0]["warnings"]
    assert got["runs"][0]["n_samples"] == 60
    dup = next(w for w in warnings if "listed twice" in w)
    assert dup.startswith(f"<file>:{dup_line}: ")
    assert f"lines {dup_line} (vda)" in dup
    back = next(w for w in warnings if "were left out" in w and "time" in w)
    assert back.startswith(f"<file>:{back_line}: the time goes back to 2026-11-22 ")
    assert "10 reports were left out" in back
    n, distinct = got["tables"]["iostat_samples"].select(pl.len(), pl.struct("sample_idx", "device").n_unique()).row(0)
    assert n == distinct == 60 * 2


def test_a_device_name_past_the_limit_met_while_streaming_is_refused(tmp_path, monkeypatch):
    """The MAX_NAME_CHARS check runs on each streamed frame, not only on the rows kept before the stream: the
    same error as a one-pass import, nothing stored. (Merging i18b, the stream stored the 2,000-character name.)"""
    from app.importer import import_file
    from app.workspace import Workspace

    banner, reps = _reports(FAST.read_text())
    reps[-3] = reps[-3].replace("\nvda ", "\n" + "v" * 2000 + " ", 1)
    src = tmp_path / "long.txt"
    src.write_text(banner + "".join(reps))
    with Workspace(tmp_path / "one-pass.duckdb") as ws:
        want = import_file(ws, str(src), ImportOptions())
    streamed = stream_small_batches(monkeypatch)
    with Workspace(tmp_path / "streamed.duckdb") as ws:
        got = import_file(ws, str(src), ImportOptions(chunk_bytes=2048))
        assert ws.runs() == []
        assert ws.query("SELECT count(*) AS n FROM iostat_samples").item() == 0
    assert "iostat_samples" in streamed
    assert want.status == got.status == "failed"
    assert got.error == want.error
    assert f"a device name of 2,000 characters ('{'v' * 40}…'): longer than the 1,024" in got.error


# ---- the chunk walk (parsers.iostat._Parser._fast_chunk) ------------------------------------------------------

def _edited_samples(tmp_path):
    """The real ``-xt`` captures, and the storm capture edited the way a damaged log is, part way through (the
    chunk walk must decline each edit and leave it to the line-by-line walk): a device row twice, reports out of
    time order, a report at its predecessor's time, a second iostat appended (banner), a value that is no
    number, a stamp in another form, a blank line holding blanks, a header that changes, a report cut short, a
    banner met late (a second run)."""
    from tests.test_import_integrity import FAST, STAMP, reports

    banner, reps = reports(FAST.read_text())
    vda = next(ln for ln in reps[40].splitlines() if ln.startswith("vda"))
    stamp = STAMP.search(reps[30]).group(0)
    edits = {
        "twice": banner + "".join(reps[:40]) + reps[40].replace(vda + "\n", vda + "\n" + vda + "\n", 1)
        + "".join(reps[41:]),
        "back": banner + "".join(reps[:30] + reps[10:20] + reps[30:]),
        "same_time": banner + "".join(reps[:31]) + STAMP.sub(stamp, reps[31], count=1) + "".join(reps[32:]),
        "appended": FAST.read_text() + FAST.read_text(),
        "bad_value": banner + "".join(reps[:35]) + re.sub(r"^(vda.*)\d\.\d\d$", r"\g<1>1.x0", reps[35], count=1,
                                                          flags=re.M) + "".join(reps[36:]),
        "iso_stamp": banner + "".join(reps[:25]) + STAMP.sub("2026-11-22T02:15:55", reps[25], count=1)
        + "".join(reps[26:]),
        "blank_blanks": banner + "".join(reps[:20]) + reps[20].replace("\n\n", "\n   \n", 1) + "".join(reps[21:]),
        "new_header": banner + "".join(reps[:45]) + "".join(r.replace("  %util", " %util2") for r in reps[45:]),
        "cut": banner + "".join(reps[:50]) + reps[50][: len(reps[50]) // 2] + "\n\n" + "".join(reps[51:]),
        # an excerpt without its banner, then an iostat invocation with one: a second run, its release found anew
        # (found by fuzzing: the chunk walk left the second run's release unknown)
        "banner_late": "".join(reps[:30]) + banner + "".join(reps[30:]),
    }
    paths = [FAST, SAMPLES / "storm_slow_iostat-xt.txt", SAMPLES / "capped_200iops_iostat-d.txt"]
    for name, text in edits.items():
        paths.append(tmp_path / f"{name}.txt")
        paths[-1].write_text(text)
    return paths


@pytest.mark.parametrize("chunk_bytes", [1024, 3000, 8192])
def test_the_chunk_walk_reads_what_the_line_by_line_walk_reads(tmp_path, monkeypatch, chunk_bytes):
    """Regular reports walked a chunk at a time give the same events, warnings and errors (with their lines) as
    walked line by line, on the real captures and on damaged copies; and the chunk walk is taken (a change that
    made it decline everywhere would fail here, not just run slower)."""
    taken = []
    real = parsers.iostat._Parser._fast_chunk

    def counting(self, text):
        taken.append(real(self, text))
        return taken[-1]

    paths = _edited_samples(tmp_path) + [p for p in TEXT if p.stat().st_size > 4 * chunk_bytes]

    def outcome(path):
        try:
            return _events(path, chunk_bytes)
        except ParseError as e:
            return f"{e} (line {e.line})"

    monkeypatch.setattr(parsers.iostat._Parser, "_fast_chunk", counting)
    walked = {path.name: outcome(path) for path in paths}
    assert sum(taken) >= 0.3 * len(taken), f"{sum(taken)} of {len(taken)} chunks walked in one go"
    monkeypatch.setattr(parsers.iostat._Parser, "_fast_chunk", lambda self, text: False)
    for path in paths:
        _same(walked[path.name], outcome(path), path.name)
