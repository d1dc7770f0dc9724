"""The command line's analyses on sar runs (issue 15): storm metrics, the cap check, the A/B comparison and the report
take a sar run like an iostat one; sar -d has no read/write split, so the figures that need one are not made up
(no read or write I/Os, a read share only by kB, or none where the file has no kB split either). Numbers are summed
by hand from the files' lines (quoted)."""

import json

import pytest

from tests.conftest import CORPUS
from tests.reports.test_report import pdf_text
from tests.test_cli import run

SAR = CORPUS / "sar"
RESTART = SAR / "vm_sysstat-12.6.1_sar-d-p_restart.txt"  # run 1
OLD = SAR / "ksar_sar-10.1.5.txt"  # run 2
HPUX = SAR / "ksar_hpux-sar.txt"  # run 3
TOTALS = SAR / "vm_sysstat-12.6.1_sar-b.txt"  # run 4: sar -b of the same data file as run 1
# vda's tps in run 1 (sar -d -p), one line per 2 s sample; the loop devices are idle (0.00):
#   22:50:09 895.00, 22:50:11 888.00, 22:50:13 1401.50, 22:50:15 830.50, 22:50:17 943.50, 22:50:19 907.00,
#   22:50:21 878.00, (LINUX RESTART), 22:50:26 199.50, 22:50:28 252.50, 22:50:30 236.00, 22:50:32 237.50
VDA_TPS = [895.0, 888.0, 1401.5, 830.5, 943.5, 907.0, 878.0, 199.5, 252.5, 236.0, 237.5]
# rtps of the same samples in run 4: 549.00 488.00 983.00 428.00 542.50 487.00 428.50 164.50 205.50 201.50 215.50
RTPS = [549.0, 488.0, 983.0, 428.0, 542.5, 487.0, 428.5, 164.5, 205.5, 201.5, 215.5]
# and wtps: 344.50 400.00 416.00 401.00 400.50 419.50 444.00 32.00 40.00 31.50 20.00 (dtps, discards, the rest)
WTPS = [344.5, 400.0, 416.0, 401.0, 400.5, 419.5, 444.0, 32.0, 40.0, 31.5, 20.0]


@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    ws = str(tmp_path_factory.mktemp("sar") / "sar.duckdb")
    p = run("import", str(RESTART), str(OLD), str(HPUX), str(TOTALS), "-w", ws)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "4 imported, 0 duplicate, 0 failed" in p.stderr
    assert "the host restarted at 2026-11-23 22:50:21" in p.stdout  # the import says so
    return ws


def js(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_storm_counts_tps_and_makes_up_no_read_write_split(wsp):
    out = js("analyze", "storm", "-w", wsp, "--run", "1", "--phases", "none")
    m = out["run"]
    assert (m["peak_iops"], m["peak_sample_idx"]) == (1401.5, 2)
    assert m["total_ios"] == pytest.approx(sum(VDA_TPS) * 2)  # 2 s samples; the restart gap has none
    assert m["duration_s"] == 22.0
    assert (m["read_ios"], m["write_ios"]) == (None, None)  # sar -d: transfers only
    assert "kB" in m["read_share_basis"]  # the share it gives is by kB (rkB/s against wkB/s), and says so
    assert out["method"]["series"]["devices"]["used"] == ["vda"]
    # the old sysstat file names devices by number: dev8-0 and dev8-16 are the disks, dev253-N the dm volumes on them;
    # "09:20:01       dev8-0     10.65 …" + "09:20:01      dev8-16     13.52 …" is the peak
    old = js("analyze", "storm", "-w", wsp, "--run", "2", "--phases", "none")["run"]
    assert (old["peak_iops"], old["peak_sample_idx"]) == (pytest.approx(10.65 + 13.52), 1)
    p = run("analyze", "storm", "-w", wsp, "--run", "1", "--phases", "none")
    assert p.returncode == 0, p.stderr
    assert "run 1 (vm_sysstat-12.6.1_sar-d-p_restart): storm metrics" in p.stdout


def test_storm_on_hpux_has_no_read_share_at_all(wsp):
    """HP-UX prints r+w/s and blks/s: neither requests nor kB are split, so there is no read share (not 0 %)."""
    m = js("analyze", "storm", "-w", wsp, "--run", "3", "--phases", "none")["run"]
    assert m["peak_iops"] == 6216.0  # the last block (01:20:01): r+w/s summed over its 67 disks
    assert (m["read_ios"], m["read_share"]) == (None, None)
    p = run("analyze", "storm", "-w", wsp, "--run", "3", "--phases", "none")
    assert p.returncode == 0, p.stderr
    assert "% reads" not in p.stdout


def test_sar_b_totals_give_the_read_write_split(wsp):
    m = js("analyze", "storm", "-w", wsp, "--run", "4", "--phases", "none")["run"]
    assert m["peak_iops"] == 1401.5  # 983.00 + 416.00 + 2.50 (rtps + wtps + dtps) = vda's tps
    assert m["total_ios"] == pytest.approx(sum(VDA_TPS) * 2)
    assert m["read_ios"] == pytest.approx(sum(RTPS) * 2)
    assert m["read_share_basis"] == "I/Os"


def test_cap_on_a_sar_run(wsp):
    out = js("analyze", "cap", "-w", wsp, "--run", "1", "--iops-cap", "900")
    # the worst 10 s window: 22:50:11 .. 22:50:19 (888.00 + 1401.50 + 830.50 + 943.50 + 907.00) / 5 = 994.1
    assert out["worst_window_iops"] == pytest.approx(994.1)
    assert out["verdict"] == "NOT held"


def test_compare_two_sar_runs(wsp):
    out = js("compare", "-w", wsp, "--runs", "1", "4", "--phases", "none")
    peak = next(m for m in out["metrics"] if m["metric"] == "peak_iops")
    assert peak["values"] == [1401.5, 1401.5]  # the same data file as sar -d and as sar -b
    share = next(m for m in out["metrics"] if m["metric"] == "read_share")
    assert share["values"][1] == pytest.approx(sum(RTPS) / (sum(RTPS) + sum(WTPS)))  # reads among reads + writes
    out = js("compare", "-w", wsp, "--runs", "1", "3", "--phases", "none")
    share = next(m for m in out["metrics"] if m["metric"] == "read_share")
    assert share["values"][1] is None  # HP-UX: not in the file
    p = run("compare", "-w", wsp, "--runs", "1", "3", "--phases", "none")
    assert p.returncode == 0, p.stderr
    assert "compare run 1 (vm_sysstat-12.6.1_sar-d-p_restart, sar), run 3 (ksar_hpux-sar, sar)" in p.stdout


def test_report_on_sar_runs(wsp, tmp_path):
    out = tmp_path / "sar.pdf"
    p = run("report", "-w", wsp, "-o", str(out), "--runs", "1", "3", "--json")
    assert p.returncode == 0, p.stderr
    verdicts = " ".join(json.loads(p.stdout)["verdicts"])
    assert "Run vm_sysstat-12.6.1_sar-d-p_restart peaked at 1,402 IOPS" in verdicts
    assert "Run ksar_hpux-sar peaked at 6,216 IOPS" in verdicts
    text = " ".join(pdf_text(out).split())
    assert "ksar_hpux-sar" in text
    # the restart, an import warning, is in the appendix
    assert "the host restarted at 2026-11-23 22:50:21" in text
