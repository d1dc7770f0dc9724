"""One import loop (app.importer.iter_import) for the command line and the window: files, folders, .zip archives
(with folders inside, found in folders, inside other archives), progress, cancel between files and inside one."""

import io
import json
import zipfile
from pathlib import Path

import pytest

from app.importer import ImportStep, iter_import
from parsers.base import ImportOptions, JobState
from tests.conftest import GOOD, SAMPLES, drop_paths


def _zip(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _host(i: int) -> str:
    return GOOD.replace("vdi-host", f"host{i}")


@pytest.fixture
def archive(tmp_path):
    """trace.zip: a trace at the top, two in nested folders, a note (not a trace) and a zip inside the zip."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("deep/inner.txt", _host(4))
    return _zip(tmp_path / "trace.zip", {"top.txt": _host(1), "vm1/day1/a.txt": _host(2), "vm2/b.txt": _host(3),
                                         "vm2/README.md": "# notes\n", "more.zip": inner.getvalue()})


def test_steps_in_order_with_sources_inside_the_archive(tmp_path, ws, archive):
    steps = list(iter_import(ws, [archive], ImportOptions()))
    assert all(isinstance(s, ImportStep) for s in steps)
    assert [(s.index, s.total) for s in steps] == [(i, 5) for i in range(5)]
    got = {Path(s.result.path).relative_to(archive).as_posix(): s.result.status for s in steps}
    assert got == {"top.txt": "imported", "vm1/day1/a.txt": "imported", "vm2/b.txt": "imported",
                   "vm2/README.md": "skipped", "more.zip/deep/inner.txt": "imported"}
    # the run remembers where the user's file is (inside the archive), never the temporary copy
    sources = sorted(r.source_path for r in ws.runs())
    assert sources == sorted(str((archive / p).resolve()) for p in
                             ["top.txt", "vm1/day1/a.txt", "vm2/b.txt", "more.zip/deep/inner.txt"])
    assert {r.name for r in ws.runs()} == {"top", "a", "b", "inner"}


def test_an_archive_in_a_folder_is_unpacked_and_the_temporary_copy_removed(tmp_path, ws, archive, monkeypatch):
    import tempfile

    made = []
    real = tempfile.TemporaryDirectory

    def spy(*a, **kw):
        made.append(real(*a, **kw))
        return made[-1]

    monkeypatch.setattr(tempfile, "TemporaryDirectory", spy)
    drop = tmp_path / "drop"
    drop.mkdir()
    archive.rename(drop / "trace.zip")
    (drop / "plain.txt").write_text(_host(9))
    statuses = [s.result.status for s in iter_import(ws, [drop], ImportOptions())]
    assert statuses.count("imported") == 5
    assert statuses.count("skipped") == 1
    assert made
    assert not Path(made[0].name).exists()


def test_a_damaged_archive_fails_visibly_and_the_rest_is_imported(tmp_path, ws):
    bad = _zip(tmp_path / "bad.zip", {"x.txt": "A" * 5000})
    raw = bytearray(bad.read_bytes())
    raw[60:70] = b"\xff" * 10  # inside the compressed member: the CRC check fails on reading
    bad.write_bytes(bytes(raw))
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    res = [s.result for s in iter_import(ws, [bad, good], ImportOptions())]
    assert [r.status for r in res] == ["failed", "imported"]
    assert res[0].error.startswith(f"{bad}: cannot unpack the archive")


def test_progress_rises_to_done(tmp_path, ws):
    for i in range(3):
        (tmp_path / f"f{i}.txt").write_text(_host(i))
    seen = []
    state = JobState(lambda f, m: seen.append((f, m)))
    steps = list(iter_import(ws, [tmp_path / f"f{i}.txt" for i in range(3)], ImportOptions(), state))
    assert len(steps) == 3
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)
    assert seen[-1] == (1.0, "done")
    assert [m for _, m in seen if "/3" in m] == ["1/3  f0.txt", "2/3  f1.txt", "3/3  f2.txt"]


def test_cancel_between_files_stops_after_the_current_one(tmp_path, ws):
    files = []
    for i in range(5):
        files.append(tmp_path / f"f{i}.txt")
        files[-1].write_text(_host(i))
    state = JobState()
    steps = []
    for s in iter_import(ws, files, ImportOptions(), state):
        steps.append(s)
        state.cancel()
    assert [s.result.status for s in steps] == ["imported", "failed"]
    assert steps[-1].cancelled
    assert steps[-1].result.error == f"{files[1]}: cancelled"
    assert len(ws.runs()) == 1


def test_cancel_inside_a_big_file_stores_nothing_of_it(tmp_path, ws):
    big = tmp_path / "big.txt"
    body = GOOD.split("\n\n", 1)[1]
    big.write_text(GOOD + ("\n" + body) * 400)  # about 200 kB: many chunks of 16 kB
    reading = []

    def on_progress(f, m):
        if m == "reading":
            reading.append(f)
            state.cancel()  # the user presses Cancel while the parser is in the middle of the file

    state = JobState(on_progress)
    steps = list(iter_import(ws, [big], ImportOptions(chunk_bytes=16 * 1024), state))
    assert len(reading) == 1
    assert reading[0] < 0.5
    assert len(steps) == 1
    assert steps[0].cancelled
    assert steps[0].result.status == "failed"
    assert ws.runs() == []


def test_the_command_line_and_the_window_run_the_same_loop(qtbot, tmp_path, archive, monkeypatch, capsys):
    import app.importer
    from app.cli import main
    from app.ui.workers import ImportThread

    calls = []
    real = app.importer.iter_import

    def counting(*a, **kw):
        calls.append(a[1])
        return real(*a, **kw)

    monkeypatch.setattr(app.importer, "iter_import", counting)
    assert main(["import", str(archive), "-w", str(tmp_path / "cli.duckdb"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in out].count("imported") == 4
    th = ImportThread(tmp_path / "ui.duckdb", [str(archive)], ImportOptions())
    with qtbot.waitSignal(th.done, timeout=30000) as blocker:
        th.start()
    th.wait()
    assert [r.status for r in blocker.args[0]] == [r["status"] for r in out]
    assert [r.path for r in blocker.args[0]] == [r["path"] for r in out]
    assert len(calls) == 2


def test_the_command_line_imports_an_archive(tmp_path, archive):
    from tests.test_cli import run

    ws = tmp_path / "w.duckdb"
    p = run("import", str(archive), "-w", str(ws))
    assert p.returncode == 0, p.stderr
    assert f"imported   {archive}/vm1/day1/a.txt  [iostat-text] run" in p.stdout
    assert f"skipped    {archive}/vm2/README.md: " in p.stdout
    assert p.stderr.strip().endswith("4 imported, 0 duplicate, 0 failed, 1 skipped")


def test_dropping_an_archive_on_the_window_lists_its_members(qtbot, window, tmp_path):
    z = _zip(tmp_path / "samples.zip", {f"captures/{n}": (SAMPLES / n).read_text()
                                        for n in ["storm_fast_iostat-xt.txt", "capped_200iops_iostat-d.txt"]})
    drop_paths(window, [z])
    qtbot.waitUntil(lambda: window.import_thread is None or not window.import_thread.isRunning(), timeout=60000)
    qtbot.waitUntil(lambda: window.import_panel.list.count() == 2, timeout=10000)
    texts = [window.import_panel.list.item(i).text() for i in range(2)]
    assert texts[0].startswith("imported   capped_200iops_iostat-d.txt")
    assert "storm_fast_iostat-xt.txt" in texts[1]
    assert {r.source_path for r in window.ws.runs()} == {
        str((z / "captures" / n).resolve()) for n in ["storm_fast_iostat-xt.txt", "capped_200iops_iostat-d.txt"]}
