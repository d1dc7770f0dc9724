"""iostat JSON: reports in sysstat's own layout have their disks read by polars in one go (issue 18); the result is
the per-report path's, exactly, and anything unusual goes the per-report way, errors and lines unchanged.

The inputs are the real captures (``sample_traces/storm_fast_iostat-json.json`` and the corpus's, sysstat 12.6.1
and the sysstat test suite's ``iostat -o JSON``) and copies edited the way a damaged or unusual file is.
"""

from __future__ import annotations

import json
import random
import struct

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import parsers.iostat_json
from parsers.base import ImportOptions, JobState, ParseError, Rows, SampleTimes
from parsers.iostat_json import IostatJsonFormat
from tests.conftest import CORPUS, SAMPLES

STORM = SAMPLES / "storm_fast_iostat-json.json"
GROUPS = CORPUS / "iostat" / "sysstat-tests_iostat-g-JSON.txt"
JSON_FILES = [STORM, GROUPS, *(CORPUS / "iostat" / name for name in (
    "pkb_iostat_output.json", "sysstat-tests_iostat-x-p-ALL-JSON.txt"))]


def _per_report(*args):
    """In place of _fast_reports: no report taken, so every one is decoded on its own (the path before)."""
    return 0, 0
    yield  # (a generator, as _fast_reports is)


def _outcome(path, chunk_bytes=1 << 30, options=None):
    warnings = []
    opts = options or ImportOptions(chunk_bytes=chunk_bytes)
    try:
        events = list(IostatJsonFormat().parse(str(path), opts, JobState(),
                                               lambda msg, line: warnings.append((msg, line))))
    except ParseError as e:
        return f"{e} (line {e.line})"
    return events, warnings


def _both(path, monkeypatch, chunk_bytes=1 << 30):
    """(fast path allowed, per-report path only)"""
    fast = _outcome(path, chunk_bytes)
    with monkeypatch.context() as m:
        m.setattr(parsers.iostat_json, "_fast_reports", _per_report)
        slow = _outcome(path, chunk_bytes)
    return fast, slow


def _assert_same(fast, slow, name):
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow, name
        return
    assert fast[1] == slow[1], name
    assert [type(e) for e in fast[0]] == [type(e) for e in slow[0]], name
    for a, b in zip(fast[0], slow[0]):
        if isinstance(a, Rows | SampleTimes):
            assert (a.key, a.table) == (b.key, b.table), name
            assert_frame_equal(a.frame, b.frame, check_exact=True)
        else:
            assert a == b, name


def _disk_frames(monkeypatch):
    """Counts the runs polars read and the runs left to the per-report path."""
    seen = {"read": 0, "left": 0}
    real = parsers.iostat_json._disk_frame

    def counting(*args):
        out = real(*args)
        seen["read" if out is not None else "left"] += 1
        return out
    monkeypatch.setattr(parsers.iostat_json, "_disk_frame", counting)
    return seen


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("chunk_bytes", [700, 1 << 30])
def test_the_real_captures_give_what_the_per_report_path_gives(path, chunk_bytes, monkeypatch):
    seen = _disk_frames(monkeypatch)
    fast, slow = _both(path, monkeypatch, chunk_bytes)
    _assert_same(fast, slow, path.name)
    if path in (STORM, GROUPS) and chunk_bytes > len(path.read_bytes()):
        assert seen == {"read": 1, "left": 0}  # sysstat's own layout: every report read the fast way


def test_a_long_capture_streamed_in_batches_gives_the_same_row_events(tmp_path, monkeypatch):
    """Row events are cut where the per-report path cuts them (after the report that fills a batch), whichever
    way each report was read; reports cut by the end of a chunk go the per-report way."""
    doc = json.loads(STORM.read_text())
    host = doc["sysstat"]["hosts"][0]
    base = host["statistics"]
    host["statistics"] = []
    for k in range(60):
        for i, st in enumerate(base):
            st = json.loads(json.dumps(st))
            sec = k * 20 + i
            st["timestamp"] = f"01/02/26 {sec // 3600 % 24:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
            if k == 30 and i == 3:
                st["disk"].append({**st["disk"][0], "disk_device": "vdb", "util": None})  # one run left over
            host["statistics"].append(st)
    path = tmp_path / "long.json"
    path.write_text(_sysstat_layout(doc))
    monkeypatch.setattr(parsers.iostat_json, "BATCH_ROWS", 333)
    seen = _disk_frames(monkeypatch)
    for chunk in (4096, 50_000, 1 << 30):
        fast, slow = _both(path, monkeypatch, chunk)
        _assert_same(fast, slow, chunk)
        assert sum(isinstance(e, Rows) and e.table == "iostat_samples" for e in fast[0]) > 5
    assert seen["read"] > 3
    assert seen["left"] >= 1


def _sysstat_layout(doc):
    """A document written the way sysstat writes it: tabs, one disk object a line."""
    out = ['{"sysstat": {', '\t"hosts": [']
    for h_i, host in enumerate(doc["sysstat"]["hosts"]):
        out.append("\t\t{")
        for k, v in host.items():
            if k != "statistics":
                out.append(f"\t\t\t{json.dumps(k)}: {json.dumps(v)},")
        out.append('\t\t\t"statistics": [')
        for s_i, st in enumerate(host["statistics"]):
            out.append("\t\t\t\t{")
            for k, v in st.items():
                if k != "disk":
                    out.append(f"\t\t\t\t\t{json.dumps(k)}: {json.dumps(v)},")
            out.append('\t\t\t\t\t"disk": [')
            disks = [json.dumps(d) for d in st.get("disk", [])]
            out.extend(f"\t\t\t\t\t\t{d}," for d in disks[:-1])
            out.extend(f"\t\t\t\t\t\t{d}" for d in disks[-1:])
            out.append("\t\t\t\t\t]")
            out.append("\t\t\t\t}" + ("," if s_i + 1 < len(host["statistics"]) else ""))
        out.append("\t\t\t]")
        out.append("\t\t}" + ("," if h_i + 1 < len(doc["sysstat"]["hosts"]) else ""))
    out.append("\t]")
    out.append("}}")
    return "\n".join(out) + "\n"


# Each edit of the storm capture's last disk line that sends its run the per-report way (and what that says).
LAST = '"util": 0.00}'
TRIGGERS = {
    "escape in a name": ('"disk_device": "zram0"', r'"disk_device": "zr\u0061m0"', None),
    "name past ASCII": ('"disk_device": "zram0"', '"disk_device": "zrâm0"', None),
    "null value": (LAST, '"util": null}', None),
    "string number": (LAST, '"util": "1,5"}', None),
    "boolean": (LAST, '"util": true}', "value 'True' is not a number"),
    "unknown key": (LAST, '"util": 0.00, "queue": 3}', None),
    "key twice": (LAST, '"util": 0.00, "util": 7.5}', None),
    "two keys for one column": (LAST, '"util": 0.00, "rMB/s": 1.5}', None),
    "key only some disks have": ('"util": 0.00}', '"f/s": 0.00}', None),
    "huge value": (LAST, '"util": 1e15}', None),
    "huge integer": (LAST, '"util": 1000000000000000000}', "a number of 19 digits"),
    "NaN": (LAST, '"util": NaN}', "NaN is not a number a measuring tool prints"),
    "out of range": (LAST, '"util": 1e309}', "number '1e309' is out of range"),
    "device a number": ('"disk_device": "zram0"', '"disk_device": 5', None),
    "raw tab in a name": ('"disk_device": "zram0"', '"disk_device": "zr\tm0"', "Invalid control character"),
    "no disk_device": ('{"disk_device": "zram0", ', '{"device": "zram0", ', None),
    "a colon in a name": ('"disk_device": "zram0"', '"disk_device": "zr:m0"', None),
}


@pytest.mark.parametrize("name", TRIGGERS)
def test_each_unusual_disk_line_sends_its_run_the_per_report_way(name, tmp_path, monkeypatch):
    old, new, error = TRIGGERS[name]
    text = STORM.read_text()
    at = text.rindex(old)
    path = tmp_path / "edited.json"
    path.write_text(text[:at] + new + text[at + len(old):])
    seen = _disk_frames(monkeypatch)
    fast, slow = _both(path, monkeypatch)
    _assert_same(fast, slow, name)
    if error:
        assert isinstance(fast, str)
        assert error in fast, fast
    if name == "no disk_device":  # not sysstat's layout: the reports before it are read the fast way
        assert seen == {"read": 1, "left": 0}, seen
        assert fast.startswith("a disk entry in statistics[19] has no disk_device (line")
    else:
        assert seen == {"read": 0, "left": 1}, seen


def test_a_report_whose_head_is_wrong_is_said_by_the_per_report_path(tmp_path, monkeypatch):
    """The reports before it are taken the fast way; it is said as before (its line)."""
    text = STORM.read_text()
    for old, new in (('"user": 7.54', '"user": "x"'), ('"11/22/26 02:18:15"', '"the 15th"'),
                     ('"avg-cpu":  {"user": 7.54', '"avg-cpu":  {"user": 7.54,')):
        path = tmp_path / "head.json"
        path.write_text(text.replace(old, new, 1))
        fast, slow = _both(path, monkeypatch)
        assert isinstance(fast, str), fast
        _assert_same(fast, slow, old)


def test_mutated_real_captures_give_the_same_frames_or_the_same_error(tmp_path, monkeypatch):
    """A short run of the differential fuzz (the long one: benchmarks are not tests; the commit says its counts)."""
    rng = random.Random(18)
    texts = [p.read_text() for p in (STORM, GROUPS)]
    for i in range(120):
        path = tmp_path / f"m{i}.json"
        path.write_text(mutate(rng.choice(texts), rng))
        fast, slow = _both(path, monkeypatch)
        _assert_same(fast, slow, f"mutation {i}")


TOKENS = ["null", "true", "-0", "01", "1.", ".5", "+1", "1e5", "NaN", "1e309", '"1.5"', "1" * 19, "{}", "[]", '"x"',
          "\\", "é", "\t", ",", "}", "{", "]", "[", ":", '"', " ", "\n", '"util": 1', '"rMB/s": 2', '"queue": 3']


def mutate(text: str, rng: random.Random) -> str:
    """One to three edits of a real capture: a token or character put in, dropped or swapped; a line
    dropped, doubled or moved; a value or key replaced."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        at = rng.randrange(len(text))
        if op == 0:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif op == 1:
            text = text[:at] + text[at + rng.randint(1, 4):]
        elif op == 2:
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            j = rng.randrange(len(lines))
            choice = rng.randrange(3)
            if choice == 0:
                del lines[k]
            elif choice == 1:
                lines.insert(j, lines[k])
            else:
                lines[k], lines[j] = lines[j], lines[k]
            text = "\n".join(lines)
        elif op == 3:  # a number replaced
            start = text.find(": ", at)
            if start > 0:
                end = start + 2
                while end < len(text) and text[end] in "0123456789.-":
                    end += 1
                text = text[:start + 2] + rng.choice(TOKENS) + text[end:]
        elif op == 4:  # a key replaced by another
            start = text.find('"', at)
            end = text.find('"', start + 1)
            if 0 <= start < end:
                text = text[:start] + rng.choice(['"util"', '"r/s"', '"rMB/s"', '"disk_device"', '"queue"', '"disk"',
                                                  '"avg-cpu"', '"timestamp"']) + text[end + 1:]
        else:
            text = text[:at] + chr(rng.choice([0x20, 0x09, 0x0B, 0x1C, 0xA0, 0x2028])) + text[at:]
    return text


def test_polars_reads_numbers_as_python_json_does():
    """Bit for bit, on numbers as sysstat prints them (%.2f) and on any double's shortest repr and integers."""
    rng = random.Random(5)
    vals = []
    for i in range(300_000):
        k = i % 5
        if k == 0:
            vals.append(f"{rng.uniform(0, 100_000):.2f}")
        elif k == 1:
            vals.append(repr(rng.uniform(-1e6, 1e6)))
        elif k == 2:
            v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(63)))[0]
            vals.append(repr(v) if v == v and abs(v) < 1e300 else "0.5")
        elif k == 3:
            vals.append(str(rng.randrange(0, 10**15)))
        else:
            vals.append(f"{rng.uniform(0, 1000):.{rng.randrange(0, 18)}f}")
    got = pl.read_ndjson("\n".join('{"v": ' + v + "}" for v in vals).encode(),
                         schema={"v": pl.Float64}).get_column("v").to_list()
    want = [float(json.loads(v)) for v in vals]
    assert [struct.pack("<d", g) for g in got] == [struct.pack("<d", w) for w in want]
