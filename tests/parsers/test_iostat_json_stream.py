"""iostat JSON is streamed (issue 18): read a chunk at a time, it gives what the whole file read at once gives.

The inputs are the real captures of the corpus and ``sample_traces/storm_fast_iostat-json.json`` (sysstat 12.6.1,
``iostat -o JSON``), edited the way a damaged or unusual file is. Each is parsed with chunks of a few hundred
bytes (every value, key and character cut somewhere) and with one chunk holding the whole file.
"""

from __future__ import annotations

import json
import re

import pytest
from polars.testing import assert_frame_equal

import parsers.iostat_json
from app.importer import import_file
from parsers.base import ImportOptions, JobState, ParseError, Rows, SampleTimes
from parsers.iostat_json import IostatJsonFormat
from tests.conftest import CORPUS, SAMPLES

STORM = SAMPLES / "storm_fast_iostat-json.json"
JSON_FILES = [STORM, *(CORPUS / "iostat" / name for name in (
    "pkb_iostat_output.json", "sysstat-tests_iostat-g-JSON.txt", "sysstat-tests_iostat-x-p-ALL-JSON.txt"))]


def _outcome(path, chunk_bytes):
    warnings = []
    try:
        events = list(IostatJsonFormat().parse(str(path), ImportOptions(chunk_bytes=chunk_bytes), JobState(),
                                               lambda msg, line: warnings.append((msg, line))))
    except ParseError as e:
        return f"{e} (line {e.line})"
    return events, warnings


def _edited(tmp_path):
    text = STORM.read_text()
    doc = json.loads(text)
    stats = doc["sysstat"]["hosts"][0]["statistics"]
    two_hosts = json.loads(text)
    two_hosts["sysstat"]["hosts"].append(json.loads(json.dumps(doc["sysstat"]["hosts"][0])))
    two_hosts["sysstat"]["hosts"][1]["nodename"] = "vm2"
    late_day = json.loads(text)  # a day above 12 only in the last report: every time read again at the end
    for st in late_day["sysstat"]["hosts"][0]["statistics"]:
        st["timestamp"] = st["timestamp"].replace("11/22/26", "01/02/26")
    late_day["sysstat"]["hosts"][0]["statistics"][-1]["timestamp"] = "13/02/26 02:19:00"
    edits = {
        "two_hosts.json": json.dumps(two_hosts, indent=1),
        "late_day.json": json.dumps(late_day, indent=1),
        "accented_host.json": text.replace('"nodename": "vm"', '"nodename": "vm-données-é"'),
        "cut.json": text[: len(text) * 2 // 3],
        "bad_late_value.json": text[: text.rindex('"util": ')] + '"util": "x"' + text[text.rindex('"util": ') + 12:],
        "after.json": text + "\n{}\n",
        "no_hosts.json": '{"sysstat": {"hosts": []}}',
        "not_iostat.json": '{"other": [1, 2, 3]}',
        "no_statistics.json": '{"sysstat": {"hosts": [{"nodename": "x", "statistics": 5}]}}',
        "keys_after.json": json.dumps({"sysstat": {"hosts": [{"nodename": "vm", "statistics": stats,
                                                              "sysname": "Linux", "date": "11/22/26"}]}}),
    }
    paths = []
    for name, t in edits.items():
        paths.append(tmp_path / name)
        paths[-1].write_text(t)
    return paths


@pytest.mark.parametrize("chunk_bytes", [97, 500, 4096])
def test_json_read_a_chunk_at_a_time_gives_what_the_whole_file_gives(tmp_path, chunk_bytes):
    for path in JSON_FILES + _edited(tmp_path):
        whole, chunked = _outcome(path, 1 << 30), _outcome(path, chunk_bytes)
        if isinstance(whole, str) or isinstance(chunked, str):
            assert chunked == whole, path.name
            continue
        assert chunked[1] == whole[1], path.name
        assert [type(e) for e in chunked[0]] == [type(e) for e in whole[0]], path.name
        for a, b in zip(chunked[0], whole[0]):
            if isinstance(a, Rows | SampleTimes):
                assert_frame_equal(a.frame, b.frame)
            else:
                assert a == b, path.name


def test_the_edits_are_what_they_say(tmp_path):
    """The damaged copies fail where they are damaged (the line said), the unusual ones import."""
    out = {p.name: _outcome(p, 500) for p in _edited(tmp_path)}
    assert re.fullmatch(r"invalid JSON .*; the file may be cut off \(line \d+\)", out["cut.json"])
    bad = (tmp_path / "bad_late_value.json").read_text()
    assert out["bad_late_value.json"] == ("value 'x' is not a number (line "
                                          f"{bad.count(chr(10), 0, bad.rindex('timestamp')) + 1})")
    assert out["after.json"].startswith("text after the JSON document")
    assert out["no_hosts.json"] == out["not_iostat.json"] == "no sysstat.hosts[] array (line 1)"
    assert out["no_statistics.json"] == "host 'x' has no statistics[] array (line 1)"
    assert any(isinstance(e, SampleTimes) for e in out["late_day.json"][0])
    assert sum(e.__class__.__name__ == "RunStart" for e in out["two_hosts.json"][0]) == 2


def test_a_long_json_capture_is_streamed_in_batches_and_stored_as_read_whole(ws, tmp_path, monkeypatch):
    """Many reports (the storm capture's, repeated with later times): several row batches, and the workspace
    holds what one read of the whole file gives; a day above 12 met late rewrites the times streamed before."""
    doc = json.loads(STORM.read_text())
    host = doc["sysstat"]["hosts"][0]
    base = host["statistics"]
    host["statistics"] = []
    monkeypatch.setattr(parsers.iostat_json, "BATCH_ROWS", 1000)
    for k in range(100):  # 100 x 20 reports x 2 devices: 4,000 rows, 4 batches
        for i, st in enumerate(base):
            st = dict(st)
            sec = k * 20 + i
            st["timestamp"] = f"01/{2 + sec // 86400:02d}/26 {sec // 3600 % 24:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
            host["statistics"].append(st)
    host["statistics"][-1]["timestamp"] = host["statistics"][-1]["timestamp"].replace("01/02/26", "13/02/26")
    path = tmp_path / "long.json"
    path.write_text(json.dumps(doc, indent=1))
    events, _ = _outcome(path, 16 * 1024)
    assert sum(isinstance(e, Rows) and e.table == "iostat_samples" for e in events) == 4
    assert any(isinstance(e, SampleTimes) for e in events)
    stored = {}
    for chunk in (16 * 1024, 1 << 30):
        r = import_file(ws, str(path), ImportOptions(chunk_bytes=chunk, name=f"c{chunk}"))
        assert r.status == "imported", r.error
        stored[chunk] = ws.con.execute("SELECT * EXCLUDE (run_id) FROM iostat_samples WHERE run_id = ? "
                                       "ORDER BY sample_idx, device", [r.run_ids[0]]).fetchall()
        ws.con.execute("DELETE FROM iostat_samples")  # (the next import is the same file: a duplicate otherwise)
        ws.con.execute("DELETE FROM runs")
    assert stored[16 * 1024] == stored[1 << 30]
    assert len(stored[1 << 30]) == 100 * 20 * 2


@pytest.mark.parametrize(("value", "message"), [
    ("NaN", "NaN is not a number a measuring tool prints"), ("-Infinity", "Infinity is not a number"),
    ("1e309", "number '1e309' is out of range"), ("1" * 19, "a number of 19 digits")])
@pytest.mark.parametrize("key", ['"util"', '"a key iostat never wrote"'])
def test_a_number_no_tool_prints_in_a_late_report_is_said_with_its_line(tmp_path, value, message, key):
    """A report's values are decoded by the C decoder alone (it takes NaN, 1e309, long integers); each such value,
    imported or not, is said as the whole-file check says it, at its line."""
    text = STORM.read_text()
    at = text.rindex('"util": ')
    edited = text[:at] + f"{key}: {value}" + text[text.index("}", at):]
    path = tmp_path / "n.json"
    path.write_text(edited)
    line = edited.count("\n", 0, at) + 1
    for chunk in (300, 1 << 30):
        got = _outcome(path, chunk)
        assert isinstance(got, str), got
        assert message in got
        assert got.endswith(f"(line {line})"), got


def test_a_number_cut_between_chunks_is_read_whole(tmp_path):
    """Chunks of 7 to 64 bytes cut every number somewhere ('12.' of '12.5' decodes as 12 and stops at the point):
    each is read whole. Found by fuzzing: a capture's first line swapped with a device line (a top-level object
    of numbers) was said cut off instead of 'text after the JSON document'."""
    lines = STORM.read_text().splitlines(keepends=True)
    k = int(0.779 * len(lines))
    lines[0], lines[k] = lines[k], lines[0]
    swapped = tmp_path / "swapped.json"
    swapped.write_text("".join(lines))
    for path in (STORM, swapped):
        whole = _outcome(path, 1 << 30)
        for chunk in range(7, 65):
            got = _outcome(path, chunk)
            if isinstance(whole, str):
                assert got == whole, chunk
            else:
                assert [type(e) for e in got[0]] == [type(e) for e in whole[0]], chunk
                for a, b in zip(got[0], whole[0]):
                    if isinstance(a, Rows | SampleTimes):
                        assert_frame_equal(a.frame, b.frame)
    assert _outcome(swapped, 1 << 30) == "text after the JSON document (line 1)"


@pytest.mark.parametrize("which", ["first", "last"])
def test_a_key_given_twice_in_a_report_is_refused_with_its_line(tmp_path, which):
    """Issue 30: iostat JSON with "r/s" twice in a disk's object kept the last value silently (text iostat refuses a
    column that appears twice in its header). Refused, naming the key and the line of its second time, whether the
    report is read by the bulk path or the per-report one, whole or a chunk at a time."""
    text = STORM.read_text()
    at = text.index('"r/s": ') if which == "first" else text.rindex('"r/s": ')
    edited = text[:at] + '"r/s": 999.00, ' + text[at:]
    path = tmp_path / "twice.json"
    path.write_text(edited)
    line = edited.count("\n", 0, at) + 1
    for chunk in (300, 1 << 30):
        got = _outcome(path, chunk)
        assert isinstance(got, str), got
        assert "the key 'r/s' is given twice in one object" in got
        assert got.endswith(f"(line {line})"), got
