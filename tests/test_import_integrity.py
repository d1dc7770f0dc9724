"""Issue 17: no input loses or invents data, and what an input leaves out is said with its file:line.

The inputs are the real capture ``sample_traces/storm_fast_iostat-xt.txt`` (sysstat 12.6.1, ``iostat -xt -y 1
60``) edited the way a damaged customer log is: a device row printed twice, reports out of time order, every
report at the same time.
"""

from __future__ import annotations

import re

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import SAMPLES, grid_shown

FAST = SAMPLES / "storm_fast_iostat-xt.txt"
STAMP = re.compile(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d$", re.M)


def reports(text: str) -> tuple[str, list[str]]:
    """The banner, and each report (from its time stamp to the next) of an ``iostat -xt`` log."""
    starts = [m.start() for m in STAMP.finditer(text)]
    return text[:starts[0]], [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)])]


def line_of(text: str, needle: str, nth: int = 0) -> int:
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    return text.count("\n", 0, pos) + 1


def imported(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


# ---- finding 5: silently wrong numbers -----------------------------------------------------------------------

def test_a_device_listed_twice_in_one_report_is_counted_once_and_the_dropped_row_named(ws, tmp_path):
    banner, reps = reports(FAST.read_text())
    vda = next(ln for ln in reps[2].splitlines() if ln.startswith("vda"))
    again = re.sub(r"(?<=\s)\d+\.\d\d", "777.00", vda, count=1)  # a second, different vda row
    before = len(banner) + len(reps[0]) + len(reps[1]) + reps[2].index(vda)
    reps[2] = reps[2].replace(vda + "\n", vda + "\n" + again + "\n", 1)
    text = banner + "".join(reps)
    path = tmp_path / "twice.txt"
    path.write_text(text)
    r = imported(ws, path)
    dup_line = text.count("\n", 0, before) + 2
    warning = next(w for w in r.warnings if "listed twice" in w)
    assert warning.startswith(f"twice.txt:{dup_line}: ")
    assert f"lines {dup_line} (vda)" in warning
    n, distinct = ws.con.execute("SELECT count(*), count(DISTINCT (sample_idx, device)) FROM iostat_samples"
                                 ).fetchall()[0]
    assert n == distinct == 60 * 2
    # the first row printed is the one kept
    assert ws.con.execute("SELECT r_s FROM iostat_samples WHERE sample_idx = 2 AND device = 'vda'"
                          ).fetchall() == [(float(vda.split()[1]),)]


def test_time_going_backwards_never_gives_negative_or_overlapping_times(ws, tmp_path):
    banner, reps = reports(FAST.read_text())
    # reports 10-19 appended again after report 29 (logs joined out of order): they cover time already covered
    text = banner + "".join(reps[:30] + reps[10:20] + reps[30:])
    path = tmp_path / "joined.txt"
    path.write_text(text)
    r = imported(ws, path)
    times = [t for (t,) in ws.con.execute(
        "SELECT t_s FROM iostat_samples WHERE device = 'vda' ORDER BY sample_idx").fetchall()]
    assert len(times) == 60
    assert times[0] == 0  # no negative t_s
    assert all(b > a for a, b in zip(times, times[1:]))  # no overlapping reports
    first_dropped = line_of(text, reps[10].splitlines()[0], 1)
    warning = next(w for w in r.warnings if "were left out" in w and "time" in w)
    assert warning.startswith(f"joined.txt:{first_dropped}: the time goes back to 2026-11-22 ")
    assert "10 reports were left out" in warning
    assert ws.run(r.run_ids[0]).n_samples == 60


def test_repeated_identical_timestamps_are_not_called_missing_timestamps(ws, tmp_path):
    banner, reps = reports(FAST.read_text())
    stamp = STAMP.search(reps[5]).group(0)
    reps[6] = STAMP.sub(stamp, reps[6], count=1)  # report 6 printed with report 5's time
    text = banner + "".join(reps)
    path = tmp_path / "same_time.txt"
    path.write_text(text)
    r = imported(ws, path)
    assert not any("no timestamps" in w for w in r.warnings), r.warnings
    warning = next(w for w in r.warnings if "left out" in w)
    assert warning.startswith(f"same_time.txt:{line_of(text, stamp, 1)}: the time stays at ")
    assert ws.run(r.run_ids[0]).interval_source == "timestamps"
    assert ws.run(r.run_ids[0]).n_samples == 59


def test_every_report_at_one_time_is_said_so(ws, tmp_path):
    banner, reps = reports(FAST.read_text())
    stamp = STAMP.search(reps[0]).group(0)
    text = banner + "".join(STAMP.sub(stamp, rep, count=1) for rep in reps)
    path = tmp_path / "one_time.txt"
    path.write_text(text)
    r = imported(ws, path)
    assert not any("no timestamps" in w for w in r.warnings), r.warnings
    assert any("the time stays at 2026-11-22 02:15:30" in w and "59 reports were left out" in w
               for w in r.warnings), r.warnings


# ---- finding 4: hash what you parse --------------------------------------------------------------------------

def _still_written(monkeypatch, path, more: str) -> None:
    """The tool writing ``path`` adds ``more`` to it while StormScope parses it."""
    import app.importer as importer

    real = importer.detect

    class Writing:
        def __init__(self, fmt):
            self.fmt, self.id, self.kind = fmt, fmt.id, fmt.kind

        def parse(self, *args):
            with open(path, "a") as fh:
                fh.write(more)
            yield from self.fmt.parse(*args)

    monkeypatch.setattr(importer, "detect", lambda p: Writing(real(p)))


def test_a_file_that_changes_during_import_fails_clearly_and_is_not_stored(ws, tmp_path, monkeypatch):
    banner, reps = reports(FAST.read_text())
    path = tmp_path / "growing.txt"
    path.write_text(banner + "".join(reps[:30]))
    _still_written(monkeypatch, path, "".join(reps[30:]))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error == (f"{path} changed while it was being imported; import it again when the tool has finished "
                       "writing it")
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall() == [(0,)]
    assert ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall() == [(0,)]
    monkeypatch.undo()
    # the complete file, imported once the tool is done, is no "duplicate" of a half
    again = imported(ws, path)
    assert ws.run(again.run_ids[0]).n_samples == 60


def test_what_is_stored_is_what_was_hashed(ws, tmp_path):
    """The stored SHA-256 is the file's, and every stored row comes from those bytes (one read feeds both)."""
    import hashlib

    path = tmp_path / "fast.txt"
    path.write_bytes(FAST.read_bytes())
    r = imported(ws, path)
    run = ws.run(r.run_ids[0])
    assert run.source_sha256 == hashlib.sha256(FAST.read_bytes()).hexdigest()
    assert run.source_size == FAST.stat().st_size
    assert not list(tmp_path.rglob("snapshot-*"))  # the private copy is gone


# ---- finding 6: errors never masked --------------------------------------------------------------------------

class _FailingCommit:
    """The workspace's DuckDB connection, failing at COMMIT as DuckDB 2.0 does on a real 6 MB tmpfs (checked by
    hand: ``mount -t tmpfs -o size=6m``): ``error`` is raised once the transaction is gone (so the importer's
    ROLLBACK fails with "cannot rollback - no transaction is active"); ``poison`` makes every later statement
    fail like it, as after DuckDB invalidated the database."""

    def __init__(self, con, error, poison=False):
        self._con, self._error, self._poison, self._failed = con, error, poison, False

    def execute(self, sql, *args):
        if self._failed and self._poison:
            raise self._error
        if sql == "COMMIT":
            self._con.execute("ROLLBACK")
            self._failed = True
            raise self._error
        return self._con.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._con, name)


def test_a_failing_rollback_does_not_hide_the_real_error(ws, tmp_path):
    import duckdb

    ws.con = _FailingCommit(ws.con, duckdb.IOException(
        f'IO Error: Could not write file "{ws.path}.wal": Permission denied'))
    r = import_file(ws, str(FAST), ImportOptions())
    assert r.status == "failed"
    assert "Permission denied" in r.error
    assert "cannot rollback" not in r.error
    assert "internal error" not in r.error
    # the same for the workspace's other transactions: the original error is raised, the rollback's added as a note
    with pytest.raises(duckdb.IOException, match="Permission denied") as e:
        ws.delete_run(1)
    assert any("rollback that followed failed too" in n for n in e.value.__notes__)


def test_disk_full_is_said_and_does_not_poison_the_next_files_of_the_drop(ws, tmp_path):
    import duckdb

    from app.importer import import_paths

    full = duckdb.FatalException(
        "FATAL Error: Failed: database has been invalidated because of a previous fatal error. The database must be "
        'restarted prior to being used again.\nOriginal error: "Failed to create checkpoint because of error: Could '
        f'not write file "{ws.path}": No space left on device"')
    ws.con = _FailingCommit(ws.con, full, poison=True)
    first, second = import_paths(ws, [str(FAST), str(SAMPLES / "storm_slow_iostat-xt.txt")], ImportOptions())
    assert first.status == "failed"
    assert first.error == (f"{FAST}: the disk holding the workspace is full (No space left on device): nothing of "
                           "this file was stored; free some space and import it again")
    assert second.status == "imported", second.error
    assert [r.source_path for r in ws.runs()] == [str((SAMPLES / "storm_slow_iostat-xt.txt").resolve())]


def test_a_file_name_that_is_not_utf8_imports_with_its_odd_byte_shown(ws, tmp_path):
    import os

    path = tmp_path / os.fsdecode(b"customer-\xff-host.txt")
    path.write_bytes(FAST.read_bytes())
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    assert r.path == f"{tmp_path}/customer-\\xff-host.txt"
    assert ws.runs()[0].name == "customer-\\xff-host"


def test_json_nested_200k_deep_is_a_clear_error(ws, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"fio version": "fio-3.33",\n"jobs": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error == f"{path}:2: JSON nested more than 200 levels deep: no measuring tool writes that"


# ---- finding 12: output injection ----------------------------------------------------------------------------

def _cli(*args):
    import subprocess
    import sys

    from tests.conftest import ROOT

    p = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                       cwd=ROOT, errors="surrogateescape")
    return p.stdout + p.stderr


def test_a_line_break_in_a_file_name_cannot_forge_a_line_of_import_output(tmp_path):
    evil = tmp_path / "trace\nFAILED     payroll.txt: deleted\n.txt"
    evil.write_bytes(FAST.read_bytes())
    out = _cli("import", str(evil), "-w", str(tmp_path / "ws.duckdb"))
    assert not [ln for ln in out.splitlines() if ln.startswith("FAILED")], out
    assert f"imported   {tmp_path}/trace\\nFAILED     payroll.txt: deleted\\n.txt  [iostat-text] run 1" in out


def test_escape_sequences_and_bidi_controls_in_a_host_name_never_reach_the_terminal(tmp_path):
    hostile = "\x1b[2J\x1b]0;pwned\x07vdi\u202eexe.txt"
    path = tmp_path / "hostile.txt"
    path.write_text(FAST.read_text().replace("(vm)", f"({hostile})", 1))
    ws = str(tmp_path / "ws.duckdb")
    out = "".join(_cli(*cmd, "-w", ws) for cmd in (["import", str(path)], ["runs"], ["sql", "SELECT host FROM runs"]))
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "\u202e" not in out
    shown = "\\x1b[2J\\x1b]0;pwned\\x07vdi<U+202E>exe.txt"
    assert shown in _cli("runs", "-w", ws)
    assert shown[:39] in _cli("sql", "SELECT host FROM runs", "-w", ws)  # the column's first 39 characters


# ---- finding 9: work per device ------------------------------------------------------------------------------

class _Counted(str):
    """A device name that counts how often it is compared (the work of the classification, not its time: the
    times are in benchmarks/bench_devices.py)."""

    calls = 0

    def startswith(self, *a):
        _Counted.calls += 1
        return str.startswith(self, *a)

    def __eq__(self, other):
        _Counted.calls += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_device_classification_does_work_linear_in_the_devices():
    from app.analysis.series import classify_devices

    n = 3000
    devices = []
    for i in range(n // 3):
        devices += [(f"sd{i}x", False), (f"sd{i}x1", False), (f"dm-{i}", False)]
    _Counted.calls = 0
    choice = classify_devices([(_Counted(d), g) for d, g in devices])
    assert _Counted.calls < 20 * n  # every device against every other: 9 M comparisons
    assert len(choice.used) == n // 3
    assert choice.excluded["sd7x1"] == "partition of sd7x (counted in sd7x)"
    assert choice.excluded["dm-7"].startswith("device-mapper")


def test_partition_rules_are_unchanged():
    from app.analysis.series import partition_parent

    names = {"sda", "sda1", "sda12", "nvme0n1", "nvme0n1p2", "md0", "md0p1", "disk-part3", "disk", "loop1", "sdb1"}
    assert {n: partition_parent(n, names) for n in sorted(names)} == {
        "disk": None, "disk-part3": "disk", "loop1": None, "md0": None, "md0p1": "md0", "nvme0n1": None,
        "nvme0n1p2": "nvme0n1", "sda": None, "sda1": "sda", "sda12": "sda", "sdb1": None}
    assert partition_parent("sda1", sorted(names)) == "sda"  # a list works too


def test_the_report_cuts_a_hostile_host_name_and_shows_bidi_controls(ws, tmp_path):
    """A 2 M-character host name made ``report`` run for minutes, and U+202E reversed the run's name in the PDF;
    here a workspace someone else made holds both (a 200 k-character host keeps the test quick)."""
    from reports import build_report
    from reports.options import ReportOptions
    from tests.reports.test_report import flat, pdf_text

    imported(ws, FAST)
    ws.con.execute("UPDATE runs SET host = repeat('h', 200000), name = 'invoice\u202efdp.exe'")
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(), str(out))
    pdf = flat(pdf_text(out))
    assert "\u202e" not in pdf
    assert "invoice<U+202E>fdp.exe" in pdf
    assert "h" * 201 not in pdf.replace(" ", "")
    assert "run 1's host name has 200,000 characters; its first 200 are shown, ending in “…”" in pdf


def test_the_window_shows_bidi_controls_and_escapes_instead_of_obeying_them(qtbot, tmp_path):
    """The run list and the data grid: a right-to-left override in a run's name, an escape sequence and a 200 k-
    character host name from a file are shown visibly and bounded."""
    from PySide6.QtCore import QSettings

    from app.ui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(tmp_path / "ws.duckdb", settings)
    qtbot.addWidget(w)
    rid = import_file(w.ws, str(FAST), ImportOptions()).run_ids[0]
    w.ws.con.execute("UPDATE runs SET name = 'invoice\u202efdp.exe', host = '\x1b[2J' || repeat('h', 200000)")
    w.ws.con.execute("UPDATE iostat_samples SET device = 'sd\u202ea' WHERE device = 'vda'")
    w.browser.reload()
    host_item = w.browser.tree.topLevelItem(0).child(0)
    run_item = host_item.child(0)
    assert run_item.text(0) == "invoice<U+202E>fdp.exe"
    assert host_item.text(0) == "\\x1b[2J" + "h" * 193 + "…"  # 200 characters shown
    w.grid.show_run(rid)
    m = grid_shown(qtbot, w.grid)
    m.wait_for_rows([0])
    col = m.columns.index("device")
    shown = {m.index(r, col).data() for r in range(min(m.rowCount(), 4))}
    assert "sd<U+202E>a" in shown
    assert not any("\u202e" in s for s in shown)
    w.close()


# ---- finding 5 in the other per-device formats, and per-file limits ------------------------------------------

def test_nmon_header_naming_a_disk_twice_is_an_error_with_its_line(ws, tmp_path):
    from tests.conftest import CORPUS

    lines = (CORPUS / "nmon" / "vm_nmon-16n_disk-list-grows.nmon").read_text().split("\n")
    no = next(i for i, ln in enumerate(lines) if ln.startswith("DISKREAD,Disk Read"))
    lines[no] += ",vda"
    path = tmp_path / "twice.nmon"
    path.write_text("\n".join(lines))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error == (f"{path}:{no + 1}: the DISKREAD header line names disk 'vda' twice: its columns cannot be told "
                       "apart (the file was edited or damaged)")


def _iostat_json(tmp_path, name, edit):
    import json

    doc = json.loads((SAMPLES / "storm_fast_iostat-json.json").read_text())
    edit(doc["sysstat"]["hosts"][0]["statistics"])
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=1))
    return path


def test_a_device_twice_in_an_iostat_json_report_is_refused_not_doubled(ws, tmp_path):
    path = _iostat_json(tmp_path, "twice.json", lambda st: st[2]["disk"].append(dict(st[2]["disk"][0])))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert r.error == (f"{path}: device 'vda' is listed 2 times in report 3: its I/O would count 2 times, and which "
                       "row is right cannot be told (the file was edited or damaged)")
    assert ws.runs() == []


def test_iostat_json_time_going_back_is_refused_not_overlapped(ws, tmp_path):
    def swap(st):
        st[5]["timestamp"], st[6]["timestamp"] = st[6]["timestamp"], st[5]["timestamp"]

    path = _iostat_json(tmp_path, "back.json", swap)
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert "report 7 is at 5 s, not after the report before (6 s): the time goes back" in r.error
    assert ws.runs() == []


def test_a_device_or_host_name_past_the_limit_is_a_clear_error(ws, tmp_path):
    long_dev = tmp_path / "long_device.txt"
    long_dev.write_text(FAST.read_text().replace("\nvda ", "\n" + "v" * 2000 + " "))
    r = import_file(ws, str(long_dev), ImportOptions())
    assert r.status == "failed"
    assert f"a device name of 2,000 characters ('{'v' * 40}…'): longer than the 1,024" in r.error
    long_host = _iostat_json(tmp_path, "long_host.json", lambda st: None)
    long_host.write_text(long_host.read_text().replace('"nodename": "vm"', '"nodename": "' + "h" * 5000 + '"'))
    r = import_file(ws, str(long_host), ImportOptions())
    assert r.status == "failed"
    assert "a host name of 5,000 characters" in r.error
    assert ws.runs() == []


def test_a_stream_that_cannot_be_released_does_not_hide_the_real_error(ws):
    """After a failed streamed insert on a database DuckDB has invalidated, letting go of the row stream fails too:
    that failure is a note on the real error, never the error shown (without one, it is raised as itself)."""
    import duckdb

    from app.workspace import _Stager

    class _Con:
        def unregister(self, name):
            raise duckdb.FatalException("FATAL Error: database has been invalidated")

    stager = _Stager(ws)
    ws_con, ws.con = ws.con, _Con()
    try:
        stager.registered = True
        real = OSError(28, "No space left on device")
        stager.close(real)
        assert any("releasing the import's row stream failed too" in n for n in real.__notes__)
        stager.close()  # released once: nothing left to fail
        stager.registered = True
        with pytest.raises(duckdb.FatalException):
            stager.close()
    finally:
        ws.con = ws_con
