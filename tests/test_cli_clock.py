"""``main.py clock`` and ``main.py run ID --clock-offset``: runs put on one clock from the command line, on the real
captures of tests/corpus/clock/ (iostat and sar on one disk at once; a copy of the sar file 37 s ahead; another
capture)."""

import json

import pytest

from tests.analysis.test_clock_offset import IOSTAT_A, IOSTAT_B, SAR_A
from tests.clock_util import shifted_copy
from tests.test_cli import run


@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    """run 1 iostat A, run 2 sar A with its clock 37 s ahead, run 3 iostat B (another capture)."""
    d = tmp_path_factory.mktemp("cli_clock")
    ws = str(d / "ws.duckdb")
    p = run("import", str(IOSTAT_A), str(shifted_copy(SAR_A, d, 37)), str(IOSTAT_B), "--first-report", "interval",
            "-w", ws)
    assert p.returncode == 0, p.stdout + p.stderr
    return ws


def test_clock_finds_the_offset_says_the_unrelated_run_does_not_match_and_accept_stores_it(wsp):
    p = run("clock", "1", "-w", wsp, "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    m = {x["run_id"]: x for x in out["matches"]}
    assert sorted(m) == [2, 3]
    assert m[2]["matching"]
    assert abs(m[2]["offset_s"] + 37) < 2
    assert m[2]["match"] > 0.95
    assert not m[3]["matching"]
    assert m[3]["offset_s"] is None
    assert m[3]["match"] < 0.6
    assert out["stored"] == []
    p = run("clock", "1", "-w", wsp)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("run 2 (vda_sar-d-p_bursts-A_clock+37s): its clock is 3")
    assert "s ahead of run 1's -> offset −3" in lines[0]
    assert "(estimated: match 0.9" in lines[0]
    assert lines[1].startswith("run 3 (vda_iostat-dxt-ISO_bursts-B): not matching: the best correlation of their IOPS")
    p = run("clock", "1", "-w", wsp, "--accept")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1].startswith("stored: run 2 clock offset −3")
    assert "(estimated against run 1, match 0.9" in p.stdout
    listed = run("clock", "--list", "-w", wsp, "--json")
    stored = json.loads(listed.stdout)
    assert [(o["run_id"], o["source"], o["reference_run_id"]) for o in stored] == [(2, "estimated", 1)]
    assert abs(stored[0]["offset_s"] + 37) < 2
    assert " clock −3" in run("runs", "-w", wsp).stdout.splitlines()[1]
    # set by hand, then back to the file's clock
    p = run("run", "2", "--clock-offset", "-37", "-w", wsp)
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip().endswith("· clock offset −37 s (set by hand)")
    p = run("run", "2", "--clear-clock-offset", "-w", wsp)
    assert "clock offset" not in p.stdout
    assert run("clock", "--list", "-w", wsp).stdout.strip() == ("no run has a clock offset: every run is on its "
                                                                  "file's clock")


def test_clock_refuses_what_it_cannot_do(wsp):
    p = run("clock", "-w", wsp)
    assert p.returncode == 2
    assert "give the reference run (REF), or --list" in p.stderr
    p = run("clock", "1", "9", "-w", wsp)
    assert p.returncode == 2
    assert "no run 9" in p.stderr
    p = run("run", "2", "--clock-offset", "nan", "-w", wsp)
    assert p.returncode == 1
    assert "is not one a capture's clock has" in p.stderr
    p = run("clock", "1", "2", "--max-offset", "10", "-w", wsp)  # 37 s off: not within 10 s
    assert p.returncode == 0
    assert "not matching" in p.stdout
