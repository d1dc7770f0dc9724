"""The analysis commands on the real captures in sample_traces/ (numbers from sample_traces/README.md)."""

import json

import pytest

from tests.conftest import SAMPLES
from tests.test_cli import run


@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    """capped (run 1, iostat -d 2: --interval 2), fast and slow storm (runs 2, 3: -y, so --first-report
    interval), fio json+ (run 4)."""
    ws = str(tmp_path_factory.mktemp("cli") / "samples.duckdb")
    for args in ([str(SAMPLES / "capped_200iops_iostat-d.txt"), "--interval", "2"],
                 [str(SAMPLES / "storm_fast_iostat-xt.txt"), str(SAMPLES / "storm_slow_iostat-xt.txt"),
                  "--first-report", "interval"],
                 [str(SAMPLES / "fio_randrw_jsonplus.json")]):
        p = run("import", *args, "-w", ws)
        assert p.returncode == 0, p.stdout + p.stderr
    return ws


def js(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_series_json_csv_and_text(wsp):
    out = js("analyze", "series", "-w", wsp, "--run", "2")
    pts = out["points"]
    assert len(pts) == 60
    assert out["method"]["since_boot_excluded"] == []
    peak = max(pts, key=lambda p: p["iops"])
    assert (peak["sample_idx"], peak["iops"], peak["t_start_s"], peak["t_end_s"]) == (20, 1212.0, 20, 21)
    assert out["method"]["devices"]["used"] == ["vda"]  # zram0: compressed RAM, not a disk (issue 28)
    assert "r/s + w/s" in out["method"]["iops"]
    # 5 s means keep every I/O; aligned on the first activity (report 6, second 5, fio's startdelay)
    res = js("analyze", "series", "-w", wsp, "--run", "2", "--every", "5", "--align", "activity")
    assert res["method"]["align"]["offset_s"] == 5
    assert res["points"][0]["t_start_s"] == -5
    assert sum(p["ios"] for p in res["points"]) == pytest.approx(sum(p["ios"] for p in pts))
    p = run("analyze", "series", "-w", wsp, "--run", "1", "--csv")
    assert p.stdout.splitlines()[0].startswith("sample_idx,t_start_s,t_end_s,dt_s,iops")
    assert p.stdout.splitlines()[16].startswith("16,30.0,32.0,2.0,112375.5")  # report 17 = sample 16 (the peak)
    p = run("analyze", "series", "-w", wsp, "--run", "1")
    assert "since-boot report left out" in p.stdout
    assert "interval-level" in p.stdout


def test_storm_on_the_fast_and_slow_captures(wsp):
    fast = js("analyze", "storm", "-w", wsp, "--run", "2")["run"]
    # peak 1212 in report 21 = second 20-21; activity from report 6 (second 5); 16 s to the peak
    assert fast["peak_iops"] == 1212
    assert fast["peak_sample_idx"] == 20
    assert fast["time_to_peak_s"] == 16
    # below 121.2 IOPS (10 %) for 3 reports from report 50 (87, 0, 12): settled at 49 s, 28 s after the peak
    assert fast["settled_at_s"] == 49
    assert fast["settle_time_s"] == 28
    assert fast["read_share"] == pytest.approx(0.6, abs=0.01)  # rwmixread 60 (rate_iops 90 reads, 60 writes)
    slow = js("analyze", "storm", "-w", wsp, "--run", "3", "--phases", "none")
    assert slow["run"]["peak_iops"] == 809
    assert slow["run"]["peak_sample_idx"] == 65
    assert slow["phases"] == []
    p = run("analyze", "storm", "-w", wsp, "--run", "2")
    assert "INTERVAL-LEVEL" in p.stdout
    assert "detected automatically" in p.stdout


def test_cap_on_the_200_iops_capture(wsp):
    out = js("analyze", "cap", "-w", wsp, "--run", "1", "--iops-cap", "200")
    assert out["held"] is False
    assert out["verdict"] == "NOT held"
    assert out["tolerance_pct"] == 5
    assert out["plateau_iops"] == 201
    assert out["worst_window_iops"] == pytest.approx(65715.7)
    assert out["over_cap_share"] == pytest.approx(10 / 29)
    assert out["method"]["window_s"] == 10
    assert "cap x (1 + 5 %)" in out["method"]["rule"]
    p = run("analyze", "cap", "-w", wsp, "--run", "1", "--iops-cap", "200")
    assert "NOT HELD" in p.stdout
    assert "112,375.5" in p.stdout
    out = js("analyze", "cap", "-w", wsp, "--run", "2", "--iops-cap", "200", "--tolerance-pct", "10")
    assert out["verdict"] == "not capped"
    assert out["tolerance_pct"] == 10
    assert run("analyze", "cap", "-w", wsp, "--run", "1").returncode == 2  # no cap given
    assert run("analyze", "cap", "-w", wsp, "--run", "4", "--iops-cap", "5").returncode == 1  # a fio run


def test_compare_storms_and_fio(wsp):
    out = js("compare", "-w", wsp, "--runs", "3", "2", "--phases", "none")
    peak = next(m for m in out["metrics"] if m["metric"] == "peak_iops")
    assert peak["values"] == [809, 1212]
    assert peak["ratio"][1] == pytest.approx(1212 / 809)
    assert out["iozone"]["rows"] == []
    assert run("compare", "-w", wsp, "--runs", "2").returncode == 2


@pytest.mark.parametrize(("ipu", "exact", "disks", "back"), [("8", "17.07", 18, 1280), ("25", "53.33", 54, 4000)])
def test_size_the_etri_figures(ipu, exact, disks, back):
    out = js("size", "--users", "100", "--iops-per-user", ipu, "--read-pct", "40", "--raid", "10",
             "--disk-iops", "75")
    assert out["backend_iops"] == back
    assert f"{out['disks_exact']:.2f}" == exact
    assert out["disks_for_iops"] == disks
    assert out["disks"] == disks
    assert out["disks_for_capacity"] is None
    assert out["frontend_iops"] == int(ipu) * 100
    assert "ceil" in out["formula"]["disks_for_iops"]
    p = run("size", "--users", "100", "--iops-per-user", ipu, "--raid", "10", "--disk-type", "sata7k",
            "--gb-per-user", "50", "--disk-gb", "750")
    assert f"ceil({exact}) = {disks}" in p.stdout
    assert "DISKS = " + str(disks) in p.stdout
    assert "round UP" in p.stdout


def test_size_measured_and_response_time(wsp):
    out = js("size", "-w", wsp, "--users", "100", "--measured-run", "2", "--vms", "8", "--rt-run", "2")
    m = out["measured"]
    assert m["peak_iops"] == 1212
    assert out["inputs"]["iops_per_user"]["source"].startswith("measured")
    assert out["response_time"]["basis"] == "iostat await"
    assert out["response_time"]["passed"] is True
    p = run("size", "-w", wsp, "--users", "100", "--iops-per-user", "8", "--rt-run", "4")
    assert "(exact)" in p.stdout
    assert "meets the goal of 80 %" in p.stdout
    assert run("size", "--iops-per-user", "8").returncode == 2
    assert run("size", "--users", "10", "--raid", "7", "--iops-per-user", "8").returncode == 2
    assert json.loads(run("size", "--list-presets").stdout)["disk_types"]["sata7k"]["iops"] == 75


def test_phases_and_markers_from_the_command_line(tmp_path):
    ws = str(tmp_path / "p.duckdb")
    assert run("import", str(SAMPLES / "capped_200iops_iostat-d.txt"), "--interval", "2", "-w", ws).returncode == 0
    det = js("phase", "detect", "-w", ws, "--run", "1")
    assert [(p["t_start_s"], p["t_end_s"]) for p in det["phases"]] == [(0, 28), (28, 34), (34, 58)]
    assert run("phase", "add", "-w", ws, "--run", "1", "--name", "burst", "--start", "28", "--end", "36")\
        .returncode == 0
    assert run("marker", "add", "-w", ws, "--run", "1", "--name", "burst", "--t", "28").returncode == 0
    lst = js("phase", "list", "-w", ws, "--run", "1")
    assert lst["phases"] == [{"name": "burst", "t_start_s": 28, "t_end_s": 36, "source": "manual"}]
    assert lst["markers"] == {"burst": 28}
    storm = js("analyze", "storm", "-w", ws, "--run", "1")
    assert storm["phase_source"] == "stored"
    assert storm["phases"][0]["metrics"]["peak_iops"] == 112375.5
    ser = js("analyze", "series", "-w", ws, "--run", "1", "--align", "marker:burst")
    assert ser["points"][14]["t_start_s"] == 0  # report 16 (sample 15) starts the burst at 28 s
    assert run("phase", "delete", "-w", ws, "--run", "1", "--name", "nope").returncode == 1
    assert run("phase", "add", "-w", ws, "--run", "1", "--name", "x", "--start", "5", "--end", "1").returncode == 1
    assert run("analyze", "storm", "-w", ws, "--run", "9").returncode == 1
