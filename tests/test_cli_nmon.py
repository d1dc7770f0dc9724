"""The command line's analyses on nmon runs (issue 15): storm metrics, the A/B comparison and the report take an
nmon run like an iostat one. Numbers are summed by hand from the files' lines (quoted)."""

import json

import pytest

from tests.conftest import CORPUS
from tests.reports.test_report import pdf_text
from tests.test_cli import run

SPLIT = CORPUS / "nmon" / "vm_nmon-16n_loop-partitions_l3-split_D.nmon"
AIX = CORPUS / "nmon" / "nmon2influxdb_aixlpar.nmon"
LINUX15 = CORPUS / "nmon" / "nmon2influxdb_linux_150818_1024.nmon"


@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    """runs 1, 2, 3: the split capture made here, the AIX LPAR, the Linux nmon 15h file."""
    ws = str(tmp_path_factory.mktemp("nmon") / "nmon.duckdb")
    p = run("import", str(SPLIT), str(AIX), str(LINUX15), "-w", ws)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "3 imported, 0 duplicate, 0 failed" in p.stderr
    return ws


def js(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_storm_on_nmon_runs(wsp):
    # DISKREADS,T0005,79240.9,79240.9,0.0 (loop0,loop0p1,loop0p2) and DISKWRITES,T0005,0.0,0.0,0.0: the 4 KiB
    # random reads peak in snapshot T0005 = sample 4, reads only
    split = js("analyze", "storm", "-w", wsp, "--run", "1", "--device", "loop0p1", "--phases", "none")["run"]
    assert (split["peak_iops"], split["peak_sample_idx"], split["read_share"]) == (79240.9, 4, 1.0)
    assert split["peak_kbs"] == 316963.7  # DISKREAD,T0005,316963.7,316963.7,0.0
    # AIX, whole disks hdisk1..8: the peak is T0177 (sample 176): DISKRIO,T0177,0.1,55.5,15.7,2.0,1.0,9.3,56.4,5.0
    # (145.0 reads/s) + DISKWIO,T0177,0.0,5.7,86.9,4.7,0.5,4.5,317.6,100.0 (519.9 writes/s) = 664.9
    aix = js("analyze", "storm", "-w", wsp, "--run", "2", "--phases", "none")["run"]
    assert aix["peak_iops"] == pytest.approx(664.9)
    assert aix["peak_sample_idx"] == 176
    assert aix["read_share"] == pytest.approx(aix["read_ios"] / aix["total_ios"])
    p = run("analyze", "storm", "-w", wsp, "--run", "2")
    assert p.returncode == 0, p.stderr
    assert "run 2 (nmon2influxdb_aixlpar): storm metrics" in p.stdout


def test_compare_nmon_runs(wsp):
    # Linux nmon 15h, whole disks sda and sdb (their partitions and the dm volumes stacked on them are left out):
    # DISKXFER,T0044,1202.6,…,14.6,… -> 1217.2 transfers/s in sample 43 (the file has no read/write split)
    out = js("compare", "-w", wsp, "--runs", "2", "3", "--phases", "none")
    peak = next(m for m in out["metrics"] if m["metric"] == "peak_iops")
    assert peak["values"] == pytest.approx([664.9, 1217.2])
    p = run("compare", "-w", wsp, "--runs", "2", "3", "--phases", "none")
    assert p.returncode == 0, p.stderr
    assert "compare run 2 (nmon2influxdb_aixlpar, nmon), run 3 (nmon2influxdb_linux_150818_1024, nmon)" in p.stdout


def test_report_on_nmon_runs(wsp, tmp_path):
    out = tmp_path / "nmon.pdf"
    p = run("report", "-w", wsp, "-o", str(out), "--json")
    assert p.returncode == 0, p.stderr
    verdicts = json.loads(p.stdout)["verdicts"]
    assert "Run nmon2influxdb_aixlpar peaked at 664.9 IOPS" in " ".join(verdicts)
    text = pdf_text(out)
    assert "nmon2influxdb_linux_150818_1024" in text
    # the import warning of the Linux file (its last snapshot has only its time) is in the appendix
    assert "the file ends in the middle of snapshot T0048" in " ".join(text.split())
