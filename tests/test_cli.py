"""The public command line: output shapes and exit codes scripts rely on."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, GOOD, ROOT


def run(*args, env=None):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)




@pytest.fixture
def files(tmp_path):
    d = tmp_path / "drop"
    d.mkdir()
    (d / "good.txt").write_text(GOOD)
    (d / "cut.txt").write_text(GOOD.replace("sda             11.00   21.00", "sda 11"))
    return d


def test_import_json_and_exit_code_1_when_one_fails(tmp_path, files):
    ws = tmp_path / "w.duckdb"
    p = run("import", str(files), "-w", str(ws), "--json", "--tag", "customer=ACME", "--tag", "phase=boot")
    assert p.returncode == 1, p.stderr
    out = json.loads(p.stdout)
    assert [r["status"] for r in out] == ["failed", "imported"]
    bad, good = out
    assert set(good) >= {"path", "status", "run_ids", "kind", "rows", "warnings", "error"}
    assert good["kind"] == "iostat"
    assert good["rows"] == 2
    assert good["error"] is None
    assert len(good["run_ids"]) == 1
    assert bad["error"].endswith("cut.txt:9: expected 6 fields (device and 5 values, as the header at line 8 "
                                 "says), found 5")
    runs = json.loads(run("runs", "-w", str(ws), "--json").stdout)
    assert runs[0]["tags"] == {"customer": "ACME", "phase": "boot"}
    assert runs[0]["interval_s"] == 5.0


def test_import_again_is_a_duplicate_and_exit_0(tmp_path, files):
    ws = tmp_path / "w.duckdb"
    good = files / "good.txt"
    assert run("import", str(good), "-w", str(ws)).returncode == 0
    p = run("import", str(good), "-w", str(ws), "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)[0]["status"] == "duplicate"


def test_usage_errors_exit_2(tmp_path):
    assert run("import").returncode == 2
    assert run("import", "x", "--tag", "novalue", "-w", str(tmp_path / "w.duckdb")).returncode == 2
    assert run("import", "x", "--first-report", "sometimes").returncode == 2
    assert run("frobnicate").returncode == 2


def test_interval_and_first_report_options(tmp_path):
    f = tmp_path / "not.txt"
    f.write_text(GOOD.replace("03/14/2024 10:00:00 AM\n", "").replace("03/14/2024 10:00:05 AM\n", ""))
    ws = tmp_path / "w.duckdb"
    p = run("import", str(f), "-w", str(ws), "--interval", "5", "--first-report", "interval", "--name", "boot A")
    assert p.returncode == 0, p.stdout + p.stderr
    q = run("sql", "SELECT r.name, s.sample_idx, s.t_s, s.since_boot FROM iostat_samples s JOIN runs r "
            "USING (run_id) ORDER BY 2", "-w", str(ws), "--format", "json")
    assert json.loads(q.stdout) == [
        {"name": "boot A", "sample_idx": 0, "t_s": 0.0, "since_boot": False},
        {"name": "boot A", "sample_idx": 1, "t_s": 5.0, "since_boot": False}]


def test_sql_formats_and_read_only(tmp_path, files):
    ws = tmp_path / "w.duckdb"
    run("import", str(files / "good.txt"), "-w", str(ws))
    p = run("sql", "SELECT device, r_s FROM iostat_samples ORDER BY sample_idx", "-w", str(ws), "--format", "csv")
    assert p.stdout == "device,r_s\nsda,10.0\nsda,11.0\n"
    p = run("sql", "SELECT count(*) AS n FROM runs", "-w", str(ws))
    assert "n" in p.stdout
    assert "1" in p.stdout
    assert "(1 row)" in p.stdout
    p = run("sql", "DELETE FROM runs", "-w", str(ws))
    assert p.returncode == 1
    assert "read-only" in p.stderr.lower()
    p = run("sql", "SELECT nope FROM runs", "-w", str(ws))
    assert p.returncode == 1
    assert "SQL error" in p.stderr


def test_workspace_from_environment(tmp_path, files):
    import os

    env = dict(os.environ, STORMSCOPE_WORKSPACE=str(tmp_path / "env.duckdb"))
    assert run("import", str(files / "good.txt"), env=env).returncode == 0
    assert (tmp_path / "env.duckdb").exists()


def test_import_the_whole_iostat_corpus(tmp_path):
    p = run("import", str(CORPUS / "iostat"), "-w", str(tmp_path / "c.duckdb"), "--json")
    out = json.loads(p.stdout)
    # sysstat's own test of a counter that went back (5.9e17 tps) is refused, naming the value; the rest import
    refused = {"sysstat-tests_iostat_2019-cbe5da01.txt"}
    assert {Path(r["path"]).name for r in out if r["status"] != "imported"} == refused, \
        [r["error"] for r in out if r["error"]]
    assert p.returncode == 1
    assert len(out) >= 55


def test_report_command_writes_the_pdf_and_saves_a_template(tmp_path):
    from tests.conftest import SAMPLES

    ws = tmp_path / "w.duckdb"
    assert run("import", str(SAMPLES / "storm_fast_iostat-xt.txt"), "-w", str(ws), "--first-report",
               "interval").returncode == 0
    out = tmp_path / "r.pdf"
    p = run("report", "-w", str(ws), "-o", str(out), "--title", "Boot storm", "--customer", "ACME",
            "--date", "1 May 2026", "--users", "100", "--iops-per-user", "25", "--read-pct", "40", "--raid", "10",
            "--disk-iops", "75", "--save-template", "acme", "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert out.read_bytes().startswith(b"%PDF")
    assert "The design needs 54 disks (53.33 rounded up) for 100 users at 25 IOPS." in res["verdicts"]
    assert any("peaked at 1,212 IOPS" in v for v in res["verdicts"])
    again = run("report", "-w", str(ws), "-o", str(tmp_path / "r2.pdf"), "--template", "acme", "--json")
    assert json.loads(again.stdout)["verdicts"] == res["verdicts"]
    assert run("report", "-w", str(ws), "-o", str(out), "--template", "nope").returncode == 2


def test_run_command_sets_what_the_file_could_not_say(tmp_path):
    from tests.conftest import SAMPLES

    ws = tmp_path / "w.duckdb"
    run("import", str(SAMPLES / "capped_200iops_iostat-d.txt"), "-w", str(ws))
    p = run("run", "1", "-w", str(ws), "--interval", "2", "--rename", "capped", "--tag", "cap_iops=200")
    assert p.returncode == 0, p.stderr
    assert "capped · 2 s (user)" in p.stdout
    assert "'cap_iops': '200'" in p.stdout
    cap = json.loads(run("analyze", "cap", "-w", str(ws), "--run", "1", "--iops-cap", "200", "--json").stdout)
    assert cap["held"] is False
    assert run("run", "1", "-w", str(ws), "--interval", "0").returncode == 1
    assert run("run", "9", "-w", str(ws), "--interval", "2").returncode == 1
    assert run("run", "1", "-w", str(ws), "--delete").returncode == 0
    assert json.loads(run("runs", "-w", str(ws), "--json").stdout) == []


def test_vscsistats_interval_given_after_import(tmp_path):
    f = CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
    ws = tmp_path / "w.duckdb"
    run("import", str(f), "-w", str(ws))
    assert run("run", "1", "-w", str(ws), "--interval", "60").returncode == 0
    out = json.loads(run("analyze", "histo", "-w", str(ws), "--run", "1", "--json").stdout)
    sample = out["samples"][0]
    assert out["interval_s"] == 60.0
    assert sample["ios"] == 793
    assert sample["iops"] == pytest.approx(793 / 60)  # IOPS = I/Os / interval
