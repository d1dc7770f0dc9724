"""A customer's bundle on every import path: .tar, .tar.gz/.tgz, .gz and .zip, from the command line and dropped on
the window; unpacked member by member into a folder of its own, links and escaping members left out, a compression
bomb refused; and UTF-16 files (PowerShell's ``>``) read, with their encoding recorded.

The traces inside are real corpus files (the UTF-16 ones are corpus files re-encoded by the test).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from app.importer import MAX_UNPACK_RATIO, find_files, iter_import  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import CORPUS, ROOT, SAMPLES, drop_paths  # noqa: E402

NMON = CORPUS / "nmon" / "vm_nmon-16n_disk-list-grows.nmon"
SAR = CORPUS / "sar" / "vm_sysstat-12.6.1_sar-d-p_restart.txt"
TYPEPERF = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"


def _tgz(path, members):
    with tarfile.open(path, "w:gz") as t:
        for name, src in members:
            t.add(src, arcname=name)
    return path


def _results(ws, paths):
    return [step.result for step in iter_import(ws, [str(p) for p in paths], ImportOptions())]


def test_a_tgz_bundle_from_the_command_line_imports_every_trace_and_names_its_members(tmp_path):
    bundle = _tgz(tmp_path / "customer.tgz", [("host1/nmon.nmon", NMON), ("host2/sar.txt", SAR)])
    w = str(tmp_path / "w.duckdb")
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "import", str(bundle), "-w", w, "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    with Workspace(w, read_only=True) as ws:
        sources = sorted(x["source_path"] for x in ws.query("SELECT source_path FROM runs").to_dicts())
        kinds = sorted(x["kind"] for x in ws.query("SELECT kind FROM runs").to_dicts())
    assert kinds == ["nmon", "sar"]
    assert [s.replace("\\", "/").split("customer.tgz/")[-1] for s in sources] == ["host1/nmon.nmon",
                                                                                   "host2/sar.txt"]


def test_gz_tar_and_a_zip_inside_a_tar(ws, tmp_path):
    gz = tmp_path / "sar.txt.gz"
    gz.write_bytes(gzip.compress(SAR.read_bytes()))
    inner = tmp_path / "inner.zip"
    with zipfile.ZipFile(inner, "w") as z:
        z.write(NMON, "nmon.nmon")
    tar = tmp_path / "outer.tar"
    with tarfile.open(tar, "w") as t:
        t.add(inner, arcname="inner.zip")
    res = _results(ws, [gz, tar])
    assert [(r.status, r.kind) for r in res] == [("imported", "sar"), ("imported", "nmon")]
    assert res[0].path.endswith("sar.txt.gz/sar.txt")
    assert res[1].path.replace("\\", "/").endswith("outer.tar/inner.zip/nmon.nmon")


def test_two_bundles_of_one_name_keep_both_traces(ws, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _tgz(a / "logs.tgz", [("trace.txt", SAR)])
    _tgz(b / "logs.tgz", [("trace.txt", NMON)])
    res = _results(ws, [a / "logs.tgz", b / "logs.tgz"])
    assert sorted(r.kind for r in res) == ["nmon", "sar"]
    assert all(r.status == "imported" for r in res)


def test_links_and_escaping_members_are_left_out(tmp_path):
    bad = tmp_path / "bad.tar"
    with tarfile.open(bad, "w") as t:
        t.add(SAR, arcname="ok/sar.txt")
        for name in ("../evil_sibling/x.txt", "/abs/evil.txt"):
            data = b"x"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("link_to_passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        t.addfile(link)
        hard = tarfile.TarInfo("hard")
        hard.type, hard.linkname = tarfile.LNKTYPE, "ok/sar.txt"
        t.addfile(hard)
    stage = tmp_path / "stage"
    stage.mkdir()
    found = find_files([bad], stage)
    assert [f.source.replace("\\", "/").split("bad.tar/")[-1] for f in found if not f.skipped] == ["ok/sar.txt"]
    # left out, each with its line (issue 30: they were dropped without one)
    assert {f.source.split("bad.tar/")[-1]: f.skipped.split(":")[0] for f in found if f.skipped} == {
        "../evil_sibling/x.txt": "its name points outside the archive (../ or an absolute path)",
        "/abs/evil.txt": "its name points outside the archive (../ or an absolute path)",
        "link_to_passwd": "a link, not a file", "hard": "a link, not a file"}
    assert not (tmp_path / "evil_sibling").exists()
    assert not list(stage.rglob("link_to_passwd"))


def test_a_compression_bomb_is_refused_without_filling_the_disk(ws, tmp_path, monkeypatch):
    import app.importer as imp

    monkeypatch.setattr(imp, "MIN_UNPACK_ALLOWANCE", 1024 * 1024)  # the real floor is 256 MB: keep the test small
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.txt", b"\0" * (8 * 1024 * 1024))  # 8 MB of zeros deflate to ~8 kB: ratio ~1000
    assert os.path.getsize(bomb) * MAX_UNPACK_RATIO < 8 * 1024 * 1024
    res = _results(ws, [bomb])
    assert res[0].status == "failed"
    assert f"more than {MAX_UNPACK_RATIO} times their size" in res[0].error
    assert ws.runs() == []


def test_nested_archives_share_one_budget(tmp_path, monkeypatch):
    """Issue 36: a 5 KB zip of 12 zips, each 250 MB of zeros, wrote 3 GB: every nested archive had its own
    allowance. Now the drop has one, which only the archives given add to (here: scaled down 250 times)."""
    import io

    import app.importer as imp

    monkeypatch.setattr(imp, "MIN_UNPACK_ALLOWANCE", 1024 * 1024)
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.txt", b"\0" * (1024 * 1024))
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_STORED) as z:
        for i in range(12):
            z.writestr(f"part{i:02}.zip", inner.getvalue())
    allowance = 1024 * 1024 + MAX_UNPACK_RATIO * os.path.getsize(bomb)
    stage = tmp_path / "stage"
    stage.mkdir()
    found = find_files([bomb], stage)
    written = sum(f.stat().st_size for f in stage.rglob("*") if f.is_file())
    assert written <= allowance + 1024 * 1024  # at most one chunk past the budget before it stops
    refused = [f for f in found if f.error]
    assert refused, [f.source for f in found]
    assert all("more than 200 times their size" in f.error for f in refused)
    assert len(found) == 12  # every part has its line: unpacked (and then imported or not), or refused


@pytest.mark.parametrize("bom", ["utf-16-le", "utf-16-be"])
def test_a_utf16_file_is_read_and_its_encoding_recorded(ws, tmp_path, bom):
    f = tmp_path / f"typeperf_{bom}.csv"
    f.write_bytes(("\ufeff" + TYPEPERF.read_text(encoding="utf-8")).encode(bom))
    res = _results(ws, [f])
    assert res[0].status == "imported", res[0].error
    run = ws.run(res[0].run_ids[0])
    assert run.meta.text("encoding") == "utf-16"
    # the same figures as the UTF-8 file
    ref = Workspace(tmp_path / "ref.duckdb")
    rid = _results(ref, [TYPEPERF])[0].run_ids[0]
    q = "SELECT device, sample_idx, r_s, w_s, await_ms FROM iostat_samples WHERE run_id = ? ORDER BY 1, 2"
    assert ws.query(q, [res[0].run_ids[0]]).rows() == ref.query(q, [rid]).rows()
    ref.close()


def test_a_tgz_dropped_on_the_window_imports_its_traces(qtbot, window, tmp_path):
    bundle = _tgz(tmp_path / "drop.tar.gz", [("a/storm.txt", SAMPLES / "storm_fast_iostat-xt.txt"), ("b/sar.txt", SAR)])
    drop_paths(window, [bundle])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert sorted(r.kind for r in window.ws.runs()) == ["iostat", "sar"]


def _meta(ws, rid):
    return ws.run(rid).meta.as_dict()


def test_windows_1252_names_decode_and_the_encoding_is_recorded(ws, tmp_path):
    """A device and a fio job named on a Windows machine (re-encoded corpus files): read as typed, never U+FFFD."""
    log = tmp_path / "cp1252_iostat.txt"
    text = (SAMPLES / "storm_fast_iostat-xt.txt").read_text(encoding="utf-8")
    device = next(ln.split()[0] for ln in text.splitlines() if ln.startswith(("sd", "vd", "nvme", "dm-")))
    log.write_bytes(text.replace(device, "Données").encode("cp1252"))
    fio = tmp_path / "cp1252_fio.json"
    raw = json.loads((SAMPLES / "fio_randread_lat_limited.json").read_text(encoding="utf-8"))
    raw["jobs"][0]["jobname"] = "Prüfung"
    fio.write_bytes(json.dumps(raw, ensure_ascii=False).encode("cp1252"))
    res = _results(ws, [log, fio])
    assert [r.status for r in res] == ["imported", "imported"], [r.error for r in res]
    devices = {d for (d,) in ws.con.execute("SELECT DISTINCT device FROM iostat_samples").fetchall()}
    assert "Données" in devices
    assert not any("\ufffd" in d for d in devices)
    assert ws.con.execute("SELECT jobname FROM fio_jobs").fetchall()[0][0] == "Prüfung"
    assert [_meta(ws, r.run_ids[0]).get("encoding") for r in res] == ["cp1252", "cp1252"]
    utf8 = _results(ws, [SAMPLES / "storm_slow_iostat-xt.txt"])[0]
    assert "encoding" not in _meta(ws, utf8.run_ids[0])


def _drop_of_every_case(d):
    """A drop holding every kind of entry (issue 30): (folder, the entries a user can count in it)."""
    fast = (SAMPLES / "storm_fast_iostat-xt.txt").read_bytes()
    slow = (SAMPLES / "storm_slow_iostat-xt.txt").read_bytes()
    d.mkdir()
    entries = []
    locked = d / "locked"
    locked.mkdir()
    (locked / "hidden.txt").write_bytes(fast)
    entries.append("locked")  # a folder that cannot be read: one line for it
    import warnings

    with warnings.catch_warnings():  # zipfile warns about the duplicate name it is asked to write
        warnings.simplefilter("ignore", UserWarning)
        with zipfile.ZipFile(d / "dupes.zip", "w") as z:
            z.writestr("storm.txt", fast)
            z.writestr("storm.txt", slow)
    entries += ["dupes.zip/storm.txt", "dupes.zip/storm.txt (2nd)"]
    with zipfile.ZipFile(d / "file_and_folder.zip", "w") as z:
        z.writestr("x", fast)
        z.writestr("x/storm.txt", slow)
    entries += ["file_and_folder.zip/x", "file_and_folder.zip/x/storm.txt"]
    with zipfile.ZipFile(d / "escape.zip", "w") as z:
        z.writestr("../evil.txt", fast)
        z.writestr("/abs.txt", fast)
        z.writestr("ok.txt", slow)
    entries += ["escape.zip/../evil.txt", "escape.zip//abs.txt", "escape.zip/ok.txt"]
    with tarfile.open(d / "links.tar", "w") as t:
        info = tarfile.TarInfo("ok/storm.txt")
        info.size = len(fast)
        t.addfile(info, io.BytesIO(fast))
        link = tarfile.TarInfo("link")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        t.addfile(link)
        dev = tarfile.TarInfo("dev")
        dev.type = tarfile.CHRTYPE
        t.addfile(dev)
    entries += ["links.tar/ok/storm.txt", "links.tar/link", "links.tar/dev"]
    data = fast
    for k in range(6):  # six archives deep: the fifth is not unpacked
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(f"level{k}.zip" if k else "deep.txt", data)
        data = buf.getvalue()
    (d / "deep.zip").write_bytes(data)
    entries.append("deep.zip/level5.zip/level4.zip/level3.zip/level2.zip")
    locked.chmod(0)
    return entries


def test_every_entry_of_a_drop_ends_in_a_line(tmp_path):
    """Issue 30: an unreadable folder was skipped silently (exit 0); a second zip member of the same name overwrote
    the first; members ``x`` and ``x/storm.txt`` failed the whole archive ("File exists"); ``../`` and absolute
    names, tar links and devices were left out without a line; an archive nested too deep was called a binary
    file. Every entry now ends as imported, duplicate, skipped or failed, each with why."""
    from tests.reliability_util import without_root_powers

    drop = tmp_path / "drop"
    entries = _drop_of_every_case(drop)
    try:
        r = subprocess.run([*without_root_powers(), sys.executable, str(ROOT / "main.py"), "import", str(drop),
                            "-w", str(tmp_path / "ws.duckdb"), "--first-report", "interval", "--json"],
                           capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    finally:
        (drop / "locked").chmod(0o755)
    assert "Traceback" not in r.stderr, r.stderr
    results = json.loads(r.stdout)
    assert len(results) == len(entries), [x["path"] for x in results]
    by = {x["path"].split("drop/", 1)[1]: x for x in results}
    assert by["locked"]["status"] == "failed"
    assert "cannot read this folder (Permission denied)" in by["locked"]["error"]
    twins = [k for k in by if k.startswith("dupes.zip/storm.txt")]
    assert len(twins) == 2
    assert sorted(by[k]["status"] for k in twins) == ["imported", "imported"]  # both traces kept
    assert {by[k]["rows"] for k in twins} == {180, 285}
    assert by["file_and_folder.zip/x"]["status"] in ("imported", "duplicate")
    folder_member = next(k for k in by if k.startswith("file_and_folder.zip/x/storm.txt"))
    assert "the archive holds another entry of that name" in folder_member
    assert by[folder_member]["status"] in ("imported", "duplicate")
    for k in ("escape.zip/../evil.txt", "escape.zip//abs.txt"):
        assert by[k]["status"] == "skipped"
        assert "points outside the archive" in by[k]["error"]
    assert by["links.tar/link"]["status"] == "skipped"
    assert "a link, not a file" in by["links.tar/link"]["error"]
    assert "a device or special file" in by["links.tar/dev"]["error"]
    deep = by["deep.zip/level5.zip/level4.zip/level3.zip/level2.zip"]
    assert deep["status"] == "failed"
    assert "nested more than 4 archives deep" in deep["error"]
    assert not (tmp_path / "evil.txt").exists()
