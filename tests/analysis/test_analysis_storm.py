"""Storm metrics, change points (a second VM starting on the same RAID set) and stored phases/markers, against hand
calculations."""

import numpy as np
import pytest

from app.analysis import phases as ph
from app.analysis.series import AnalysisError, load_series, make_series
from app.analysis.storm import StormParams, storm_metrics, storm_report
from app.importer import import_file
from parsers.base import ImportOptions
from tests.analysis_util import iops_log

# twelve 5 s intervals of a small storm
IOPS = [0, 0, 100, 400, 1000, 800, 500, 90, 50, 40, 80, 10]
AWAIT = [None, None, 1, 2, 5, 4, 3, 1, 1, 1, 1, 1]


def storm_series():
    return make_series(IOPS, 5.0, read_iops=[0.6 * v for v in IOPS], write_iops=[0.4 * v for v in IOPS],
                       await_ms=AWAIT)


def test_storm_metrics_by_hand():
    m = storm_metrics(storm_series())
    assert m.peak_iops == 1000
    assert m.peak_sample_idx == 4
    assert (m.peak_t_start_s, m.peak_t_end_s) == (20, 25)
    # activity: first of 3 consecutive intervals above 100 IOPS = 400, 1000, 800 (100 itself is not above): 15 s
    assert m.activity_start_s == 15
    assert m.time_to_peak_s == 25 - 15
    # above 50 % of the peak (500): 1000 and 800 -> 2 intervals x 5 s
    assert m.threshold_iops == 500
    assert m.time_above_s == 10
    # settle: 3 intervals below 10 % of the peak (100) after it: 90, 50, 40 from 35 s; the peak ended at 25 s
    assert m.settled_at_s == 35
    assert m.settle_time_s == 10
    # I/Os: 3,070 IOPS-intervals x 5 s = 15,350; mean over 60 s
    assert m.total_ios == 15350
    assert m.mean_iops == pytest.approx(15350 / 60)
    assert m.read_share == pytest.approx(0.6)
    assert m.read_share_basis == "I/Os"
    # equal intervals; sorted 0 0 10 40 50 80 90 100 400 500 800 1000: p50 = the 6th value (80)
    assert m.iops_percentiles == {"p50": 80, "p95": 1000, "p99": 1000}
    # await weighted by I/Os: 1 ms holds 1,850 I/Os, 2 ms 2,000, 3 ms 2,500, 4 ms 4,000, 5 ms 5,000
    # -> 50 % of 15,350 = 7,675 lies in 4 ms; mean = 54,350 / 15,350
    assert m.await_percentiles_ms == {"p50": 4, "p95": 5, "p99": 5}
    assert m.mean_await_ms == pytest.approx(54350 / 15350)


def test_threshold_settle_and_activity_parameters():
    m = storm_metrics(storm_series(), StormParams(threshold_iops=90, settle_pct=5, settle_intervals=2,
                                                  activity_iops=50, activity_intervals=1))
    assert m.time_above_s == 5 * 5  # 100 400 1000 800 500, not 90 itself
    assert m.settled_at_s is None  # below 50: 40, then 80 breaks the stretch, then 10 alone at the end
    assert m.activity_start_s == 10
    assert m.time_to_peak_s == 15


def test_change_points_find_the_seed_002_thirds():
    """One VM, then both VMs (from 1/3), then the second VM alone (from 2/3): 20 min at 5 s intervals."""
    rng = np.random.default_rng(2)
    level = np.r_[np.full(60, 180.0), np.full(120, 240.0), np.full(60, 180.0)]
    s = make_series(list(level + rng.normal(0, 8, 240)), 5.0)
    phases = ph.detect_phases(s)
    assert [(p.t_start_s, p.t_end_s) for p in phases] == [(0, 300), (300, 900), (900, 1200)]
    assert ph.change_points(level) == [60, 180]


def test_small_shifts_and_noise_do_not_split():
    assert ph.change_points([100.0] * 30 + [103.0] * 30) == []  # 3 % of the peak < 10 %
    rng = np.random.default_rng(5)
    assert ph.change_points(list(500 + rng.normal(0, 20, 200))) == []
    assert ph.change_points([0, 0, 0, 0, 900, 900, 900, 900], max_segments=1) == []


def test_stored_phases_and_markers(ws, write):
    rid = import_file(ws, write("s.txt", iops_log(IOPS)), ImportOptions()).run_ids[0]
    assert ph.list_phases(ws, rid) == []
    assert ph.list_markers(ws, rid) == {}
    ph.add_phase(ws, rid, "storm", 15, 35)
    ph.add_phase(ws, rid, "tail", 35, 60)
    ph.add_phase(ws, rid, "storm", 10, 35)  # same name: replaced
    assert [(p.name, p.t_start_s, p.source) for p in ph.list_phases(ws, rid)] == [("storm", 10, "manual"),
                                                                                 ("tail", 35, "manual")]
    with pytest.raises(AnalysisError, match="must come after"):
        ph.add_phase(ws, rid, "bad", 5, 5)
    with pytest.raises(AnalysisError, match="no run 99"):
        ph.add_phase(ws, 99, "x", 0, 1)
    ph.save_detected(ws, rid, ph.detect_phases(load_series(ws, rid)))
    assert {p.source for p in ph.list_phases(ws, rid)} == {"manual", "auto"}
    ph.save_detected(ws, rid, [])  # replaces the automatic ones only
    assert {p.source for p in ph.list_phases(ws, rid)} == {"manual"}
    ph.add_marker(ws, rid, "login", 12.5)
    assert ph.list_markers(ws, rid) == {"login": 12.5}
    assert ph.delete_marker(ws, rid, "login")
    assert not ph.delete_marker(ws, rid, "login")
    assert ph.delete_phase(ws, rid, "tail")
    assert [p.name for p in ph.list_phases(ws, rid)] == ["storm"]
    ws.delete_run(rid)
    assert ws.con.execute("SELECT count(*) FROM phases").fetchall()[0][0] == 0


def test_storm_report_per_phase(ws, write):
    rid = import_file(ws, write("s.txt", iops_log(IOPS, read_share=0.5)), ImportOptions()).run_ids[0]
    rep = storm_report(ws, rid)
    assert rep.phase_source == "detected"
    assert rep.run.peak_iops == 1000
    assert rep.run.total_ios == 15350
    assert rep.method["series"]["since_boot_excluded"] == [0]
    assert "phases" in rep.method
    ph.add_phase(ws, rid, "storm", 15, 35)  # reports whose midpoint lies in [15, 35): 400 1000 800 500
    rep = storm_report(ws, rid)
    assert rep.phase_source == "stored"
    assert len(rep.phases) == 1
    name_and_metrics = rep.phases[0]
    m = name_and_metrics[1]
    assert m.intervals == 4
    assert m.total_ios == (400 + 1000 + 800 + 500) * 5
    assert m.read_share == pytest.approx(0.5)
    assert storm_report(ws, rid, phases="none").phases == []
    d = rep.as_dict()
    assert d["phases"][0]["name"] == "storm"
    assert d["run"]["peak_iops"] == 1000
    assert "INTERVAL-LEVEL" in d["method"]["metrics"]["await"]
