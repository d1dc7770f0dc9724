"""I/O-error injection (issue 17's reliability suite): the disk holding the workspace fills up during an import
(a small tmpfs), the workspace or its folder cannot be written, a file of the drop cannot be read, a file
vanishes during the import. Each: a clear error naming the file, nothing partial in the workspace, the runs
imported before untouched, the other files of the same drop still imported. The disk-full and folder cases
failed before issue 17's finding 6 was fixed ("database has been invalidated" poisoned the next files; a failing
ROLLBACK hid "Permission denied")."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from app.importer import iter_import
from parsers.base import ImportOptions, JobState
from tests.reliability_util import (
    built_once,
    fingerprint,
    import_command,
    import_on_small_disk,
    run_import,
    whole_or_absent,
    without_root_powers,
    write_iostat,
)


@pytest.fixture(scope="module")
def drop(tmp_path_factory):
    """Four files: a small one, a 10 MB log (100,000 rows) that does not fit a 2 MB disk, two small ones after it;
    and the fingerprint of all four imported on a disk with room (built once per run)."""
    return built_once(tmp_path_factory, "io", _drop)


def _drop(d):
    d.chmod(0o755)
    files = [write_iostat(d / "first.txt", 3, 20, seed=11), write_iostat(d / "large.txt", 50, 2000, seed=12),
             write_iostat(d / "after1.txt", 4, 30, seed=13), write_iostat(d / "after2.txt", 2, 10, seed=14)]
    clean = d / "clean.duckdb"
    r = run_import(clean, files)
    assert r.returncode == 0, r.stdout + r.stderr
    return {"dir": d, "files": files, "clean_fp": fingerprint(clean)}


def import_on_full_disk(drop, tmp_path, size="2200k"):
    return import_on_small_disk(drop["files"], size, tmp_path)


# room for the snapshot of the large file (10 MB) but not for what DuckDB writes of it: its checkpoint fails and
# DuckDB invalidates the database (FatalException), unlike 2200k, where the snapshot itself does not fit
INVALIDATING_DISK = "12600k"


@pytest.mark.parametrize("size", ["2200k", INVALIDATING_DISK])
def test_disk_full_leaves_nothing_partial_is_said_and_later_files_of_the_drop_import(drop, tmp_path, size):
    results, rc, ws = import_on_full_disk(drop, tmp_path, size)
    assert rc == 1
    assert results["first.txt"]["status"] == "imported"
    assert results["large.txt"]["status"] == "failed"
    got = fingerprint(ws)
    assert whole_or_absent(got, drop["clean_fp"], {}) == []
    error = results["large.txt"]["error"]
    assert "internal error" not in error, error
    assert "No space left on device" in error, error
    assert [results[f]["status"] for f in ("after1.txt", "after2.txt")] == ["imported", "imported"], results
    assert {k.split("/")[1] for k in got} == {"first", "after1", "after2"}


def test_disk_full_during_a_drop_on_the_window(drop, tmp_path):
    """The same drop on the window (tests/window_disk_full.py, on the small disk): the large file fails saying the
    disk is full, the window reopens its workspace and the files after it import; the run list and the grid work
    afterwards, and no exception reaches a slot. Failed before: the import thread reopened onto the database DuckDB
    had invalidated (the window's connection kept it alive), so after1 and after2 failed too, and the grid failed."""
    import json
    import shlex

    from tests.reliability_util import ROOT, on_small_disk

    disk, out = tmp_path / "disk", tmp_path / "out"
    out.mkdir()
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, str(ROOT / "tests" / "window_disk_full.py"),
                                            str(disk / "ws.duckdb"), *map(str, drop["files"])])
    r = on_small_disk(INVALIDATING_DISK, disk, f"cd {shlex.quote(str(ROOT))} && QT_QPA_PLATFORM=offscreen {cmd} "
                                     f"> '{out}/result.json' 2> '{out}/stderr'; echo $? > '{out}/rc'")
    assert r.returncode == 0, r.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "rc").read_text().strip() == "0", stderr
    assert "Traceback" not in stderr, stderr
    got = json.loads((out / "result.json").read_text())
    assert got["errors"] == []
    lines = got["lines"]
    assert [ln.split()[0] for ln in lines] == ["imported", "failed", "imported", "imported"], lines
    assert "large.txt" in lines[1], lines
    assert "disk holding the workspace is full" in lines[1], lines
    assert [n.split()[0] for n in got["runs"]] == ["first", "after1", "after2"], got["runs"]
    assert got["grid_rows"] == 2 * 10, got  # after2: 2 devices, 10 reports, read through the reopened workspace
    message = got["message"]
    assert message.startswith("The disk holding the workspace filled up while importing large.txt: nothing of it "
                              "was stored, the runs imported before are kept. StormScope opened the workspace again"), \
        message


def small_workspace(drop, tmp_path):
    folder = tmp_path / "wsdir"
    folder.mkdir()
    ws = folder / "ws.duckdb"
    assert run_import(ws, drop["files"][:1]).returncode == 0
    return folder, ws


def import_without_root(ws, files):
    return subprocess.run([*without_root_powers(), *import_command(ws, files)], capture_output=True, text=True,
                          timeout=120, check=False)


def test_workspace_file_not_writable(drop, tmp_path):
    """A workspace file the user may only read: the import says so (no traceback) and changes nothing."""
    _, ws = small_workspace(drop, tmp_path)
    before = fingerprint(ws)
    ws.chmod(0o444)
    r = import_without_root(ws, drop["files"][2:])
    assert r.returncode == 1, r
    assert "Traceback" not in r.stderr, r.stderr
    assert "Permission denied" in r.stderr, r.stderr
    assert str(ws) in r.stderr, r.stderr
    assert fingerprint(ws) == before


def test_workspace_folder_not_writable(drop, tmp_path):
    """A workspace whose folder the user may not write (DuckDB's log beside it cannot be made): each file fails
    saying so -- not "cannot rollback - no transaction is active" -- and nothing is stored."""
    folder, ws = small_workspace(drop, tmp_path)
    before = fingerprint(ws)
    folder.chmod(0o555)
    try:
        r = import_without_root(ws, drop["files"][2:])
    finally:
        folder.chmod(0o755)
    assert "Traceback" not in r.stderr, r.stderr
    assert "internal error" not in r.stdout, r.stdout
    assert "Permission denied" in r.stdout, r.stdout
    assert fingerprint(ws) == before


def test_unreadable_file_in_a_drop(drop, tmp_path):
    """One file of the drop the user may not read: it fails saying so; the others import."""
    files = [shutil.copy(f, tmp_path / f.name) for f in drop["files"][:3] if f.name != "large.txt"]
    (tmp_path / "after1.txt").chmod(0o000)
    tmp_path.chmod(0o755)
    ws = tmp_path / "ws.duckdb"
    r = import_without_root(ws, files)
    assert r.returncode == 1, r
    lines = r.stdout.splitlines()
    assert any(ln.startswith("FAILED") and "after1.txt" in ln and "Permission denied" in ln for ln in lines), lines
    assert "internal error" not in r.stdout
    assert {k.split("/")[1] for k in fingerprint(ws)} == {"first"}


def test_files_vanishing_during_an_import(drop, tmp_path):
    """A drop of three files: while the first imports, the third is deleted (it fails: no such file) and the
    second is deleted while it is being read (an open file stays readable: it imports whole)."""
    from app.workspace import Workspace

    files = [shutil.copy(f, tmp_path / f.name) for f in (drop["files"][0], drop["files"][2], drop["files"][3])]

    def progress(fraction, message):
        if message.startswith("1/3") and (tmp_path / "after2.txt").exists():
            (tmp_path / "after2.txt").unlink()
        if message == "reading" and fraction < 1 and (tmp_path / "after1.txt").exists():
            (tmp_path / "after1.txt").unlink()

    with Workspace(tmp_path / "ws.duckdb") as ws:
        steps = list(iter_import(ws, files, ImportOptions(first_report="interval"), JobState(progress)))
    status = {s.result.path.rsplit("/", 1)[1]: (s.result.status, s.result.error) for s in steps}
    assert status["first.txt"] == ("imported", None)
    assert status["after2.txt"][0] == "failed", status
    assert "no such file" in status["after2.txt"][1], status
    assert status["after1.txt"][0] in ("imported", "failed"), status
    got = fingerprint(tmp_path / "ws.duckdb")
    assert whole_or_absent(got, drop["clean_fp"], {}) == []


def test_setpriv_really_drops_root_powers(tmp_path):
    """The permission tests above test something: without those powers root cannot read a file it may not."""
    secret = tmp_path / "secret"
    secret.write_text("x")
    secret.chmod(0o000)
    r = subprocess.run([*without_root_powers(), sys.executable, "-c", f"open({str(secret)!r}).read()"],
                       capture_output=True, text=True, check=False)
    assert r.returncode != 0
    assert "Permission denied" in r.stderr


# ---- issue 36: changes and reports on a full or read-only disk, the window on a file it cannot write -------------
def _on_disk(tmp_path, script: str, size: str = "4000k", fill: bool = True, read_only: bool = False) -> str:
    """``script`` run with the sample workspace copied onto a small tmpfs ($D/ws.duckdb), filled up (``fill``) or
    mounted read-only; its output."""
    import shlex

    from tests.reliability_util import ROOT, on_small_disk

    src = tmp_path / "src.duckdb"
    assert run_import(src, [ROOT / "sample_traces" / "storm_fast_iostat-xt.txt"]).returncode == 0
    disk, out = tmp_path / "disk", tmp_path / "out.txt"
    prep = f"D={shlex.quote(str(disk))}; cp {shlex.quote(str(src))} $D/ws.duckdb || exit 98\n"
    if fill:
        prep += "dd if=/dev/zero of=$D/fill bs=1k count=100000 2>/dev/null\n"
    if read_only:
        prep += "mount -o remount,ro $D || exit 96\n"
    r = on_small_disk(size, disk, f"{prep}cd {shlex.quote(str(ROOT))}\n{{\n{script}\n}} > {shlex.quote(str(out))} "
                                  "2>&1\nls -a $D >> " + shlex.quote(str(out)))
    assert r.returncode == 0, r.stderr
    return out.read_text()


def _cli(*args: str) -> str:
    """A command line for the script of :func:`_on_disk` (``$D``, the disk, left for the shell to expand)."""
    import shlex

    return " ".join(f'"{a}"' if a.startswith("$D") else shlex.quote(a)
                    for a in [sys.executable, "main.py", *args]) + "; echo rc=$?"


def test_a_report_onto_a_full_disk_is_said_and_leaves_no_file(tmp_path):
    """Issue 36: a traceback, and a 0-byte PDF left behind."""
    out = _on_disk(tmp_path, _cli("report", "-w", "$D/ws.duckdb", "-o", "$D/report.pdf"))
    assert "Traceback" not in out, out
    assert "main.py report: error: " in out, out
    assert "report.pdf could not be written: the disk is full (No space left on device); nothing was changed" in out
    assert "rc=1" in out
    assert "report.pdf" not in out.split("rc=1")[1], out  # no file left, whole or partial
    assert ".part" not in out.split("rc=1")[1], out


@pytest.mark.parametrize("read_only", [False, True], ids=["full disk", "read-only disk"])
def test_changes_to_a_workspace_on_a_full_or_read_only_disk_are_said(tmp_path, read_only):
    """Issue 36: run --rename, question add and report --save-template were transaction or IO tracebacks (only
    "Permission denied" was said); a read command still works on a read-only disk."""
    script = "\n".join(_cli(*a) for a in (
        ["run", "1", "--rename", "renamed", "-w", "$D/ws.duckdb"],
        ["question", "add", "storm", "--run", "1", "-w", "$D/ws.duckdb"],
        ["report", "-w", "$D/ws.duckdb", "-o", str(tmp_path / "r.pdf"), "--save-template", "t1"],
        ["runs", "-w", "$D/ws.duckdb"]))
    out = _on_disk(tmp_path, script, fill=not read_only, read_only=read_only)
    assert "Traceback" not in out, out
    said = ("it is on a read-only disk or share (Read-only file system)" if read_only else
            "ws.duckdb could not be written: the disk is full (No space left on device); nothing was changed")
    assert out.count(said) == 3, out
    assert out.count("rc=1") == 3, out
    assert "storm_fast_iostat-xt" in out  # the runs listed
    assert "renamed" not in out


def test_the_window_opens_a_workspace_it_cannot_write_read_only_and_says_so(drop, tmp_path):
    """Issue 36: the window on a workspace file the user may only read (received files often are) failed at start
    with a traceback and no message. Now it opens read-only: a banner says why, Import is disabled with the reason,
    and a drop is refused with it."""
    import json

    from tests.reliability_util import ROOT

    _, ws = small_workspace(drop, tmp_path)
    ws.chmod(0o444)
    before = fingerprint(ws)
    r = subprocess.run([*without_root_powers(), sys.executable, str(ROOT / "tests" / "window_read_only.py"), str(ws),
                        str(drop["files"][2])], capture_output=True, text=True, timeout=180,
                       env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"}, check=False)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["errors"] == []
    assert got["banner"] == (f"Read-only: {ws} cannot be written here (its file, folder or disk is read-only): opened "
                             "read-only -- StormScope shows it and reports on it, but cannot change it.")
    assert not got["import_enabled"]
    assert got["import_tip"].startswith("This workspace cannot be written here")
    assert got["status"].startswith("Not imported: This workspace cannot be written here")
    assert got["runs"] == 1
    assert fingerprint(ws) == before
