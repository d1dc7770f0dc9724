"""Cap compliance (a libvirt/QEMU iotune limit, which lets short bursts through):
windows of >= 10 s after the burst allowance at or below cap x (1 + tolerance)."""

import pytest

from app.analysis.cap import cap_report, check_cap
from app.analysis.series import AnalysisError, make_series
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import SAMPLES


def one_s(values):
    return make_series(values, 1.0, read_iops=values, write_iops=[0] * len(values), kbs=[4 * v for v in values])


def test_held_with_a_short_blip():
    v = [200.0] * 60
    v[30] = 215.0  # one 1 s report 7.5 % over: the 10 s windows around it average 201.5
    v[40] = 205.0  # one within the tolerance
    c = check_cap(one_s(v), "iops", 200)
    assert c.held
    assert c.verdict == "held"
    assert c.window_reports == 10
    assert c.window_s == 10
    assert c.windows_judged == 51
    assert c.windows_over == 0
    assert c.worst_window["average"] == pytest.approx(201.5)
    assert c.limit == 210
    assert c.plateau == 200
    # above 210; above 200
    assert c.over_cap_share == 1 / 60
    assert c.over_cap_share_strict == 2 / 60


def test_a_burst_breaks_the_cap():
    v = [200.0] * 60
    v[20:25] = [1000.0] * 5
    c = check_cap(one_s(v), "iops", 200)
    assert c.held is False
    assert c.verdict == "NOT held"
    # any window holding a 1000 averages >= (1000 + 9 x 200) / 10 = 280: windows starting at 11 ... 24
    assert c.windows_over == 14
    assert c.worst_window == {"average": 600.0, "t_start_s": 15.0, "t_end_s": 25.0}
    assert c.plateau == 200
    assert c.over_cap_share == 5 / 60
    assert c.over_spans == [{"t_start_s": 20.0, "t_end_s": 25.0, "intervals": 5, "peak": 1000.0,
                             "peak_t_end_s": 21.0, "excess": 4000.0}]
    assert "did NOT hold" in c.explanation


def test_burst_allowance():
    v = [200.0] * 60
    v[20:25] = [1000.0] * 5
    c = check_cap(one_s(v), "iops", 200, burst_max=1100, burst_s=5)
    # the allowance starts with the first report above the limit (20 s) and lasts 5 s: windows touching it are
    # not judged, leaving starts 0..10 and 25..50
    assert c.held
    assert c.windows_judged == 11 + 26
    assert c.burst["t_start_s"] == 20
    assert c.burst["held"]
    c = check_cap(one_s(v), "iops", 200, burst_max=500, burst_s=5)
    assert c.held is False
    assert c.verdict == "NOT held"
    assert not c.burst["held"]
    c = check_cap(one_s(v), "iops", 200, burst_s=5, burst_start_s=0)  # allowance spent at the start
    assert c.held is False


def test_not_capped_and_not_reached():
    c = check_cap(one_s([600.0] * 30), "iops", 200)
    assert c.held is False
    assert c.verdict == "not capped"
    assert "clearly exceeds" in c.explanation
    c = check_cap(one_s([100.0] * 30), "iops", 200)
    assert c.held is True
    assert c.verdict == "held (cap not reached)"


def test_windows_follow_the_interval_and_bandwidth_caps():
    assert check_cap(make_series([200.0] * 10, 2.0), "iops", 200).window_reports == 5
    c = check_cap(make_series([200.0] * 4, 60.0), "iops", 200)
    assert c.window_reports == 1
    assert c.window_s == 60
    assert check_cap(one_s([200.0] * 5), "iops", 200).verdict == "too short"
    c = check_cap(one_s([250.0] * 30), "bw", 1000)  # 250 IOPS x 4 kB = 1000 kB/s
    assert c.held
    assert c.unit == "kB/s"
    with pytest.raises(AnalysisError, match="at least 10"):
        check_cap(one_s([1.0] * 30), "iops", 200, window_s=5)
    with pytest.raises(AnalysisError):
        check_cap(one_s([1.0] * 30), "iops", 0)


def test_the_sample_capture_did_not_hold(ws):
    """sample_traces/capped_200iops_iostat-d.txt (iostat -d 2): a 200 IOPS fio cap, an unlimited burst of ~6 s at
    ~100k IOPS (reports 16-19) and background I/O in reports 9-12 and 26-27.  Whatever the allowance for the
    background, the burst alone breaks every 10 s window that holds it: NOT held."""
    r = import_file(ws, str(SAMPLES / "capped_200iops_iostat-d.txt"), ImportOptions(interval_s=2))
    res = cap_report(ws, r.run_ids[0], iops_cap=200)
    assert res.held is False
    assert res.verdict == "NOT held"
    assert res.tolerance_pct == 5
    # 29 interval reports; the median of their tps is 201 (14 reports at 200.00, two at 201.00 ...)
    assert res.plateau_iops == 201
    # worst 10 s window: reports 15-19 = (200 + 95149.5 + 112375.5 + 104336.5 + 16517) / 5
    assert res.worst_window_iops == pytest.approx(328578.5 / 5)
    assert res.worst_window["t_start_s"] == 26
    # above 210: reports 9, 10, 11, 12 (392.5 599.5 220.5 717.5), 16-19, 26, 27 -> 10 of 29 equal intervals
    assert res.over_cap_share == pytest.approx(10 / 29)
    spans = res.checks[0].over_spans
    assert [(s["t_start_s"], s["t_end_s"]) for s in spans] == [(14, 22), (28, 36), (48, 52)]
    assert spans[1]["peak"] == 112375.5
    assert res.method["series"]["since_boot_excluded"] == [0]
    # with an 8 s burst allowance placed on the burst, the background I/O still breaks the cap (426.6 IOPS windows)
    res = cap_report(ws, r.run_ids[0], iops_cap=200, burst_iops=120000, burst_s=8, burst_start_s=28)
    assert res.held is False
    assert res.checks[0].burst["held"]
    assert res.worst_window_iops == pytest.approx((392.5 + 599.5 + 220.5 + 717.5 + 203) / 5)
    # the read side alone at 800 kB/s (200 x 4 KiB) is broken by the burst as well
    res = cap_report(ws, r.run_ids[0], bw_cap_kbs=800, op="read")
    assert res.held is False
    assert res.checks[0].plateau == 800
    with pytest.raises(AnalysisError, match="r/s"):
        cap_report(ws, r.run_ids[0], iops_cap=200, op="read")  # plain reports: no r/s


def test_windows_do_not_span_a_gap_between_invocations():
    import polars as pl

    a = one_s([200.0] * 10)
    b = one_s([900.0] * 10)
    later = b.frame.with_columns(pl.col("t_start_s") + 100, pl.col("t_end_s") + 100)
    a.frame = pl.concat([a.frame, later])
    c = check_cap(a, "iops", 200)
    # 11 windows of 10 reports would slide over 20 reports; only the two without the 90 s gap are judged
    assert c.windows_judged == 2
    assert c.windows_over == 1
    assert c.worst_window["t_start_s"] == 100
