"""Storm replay (app.analysis.replay) on small hand-made iostat logs: every figure worked out by hand."""

from __future__ import annotations

import pytest

from app.analysis.replay import (
    ReplayPhase,
    iodepth,
    parse_range,
    phases_of,
    plan_replay,
    read_job_header,
    render_job,
    replay_check,
    whole_percent,
)
from app.errors import AnalysisError
from app.importer import import_file
from parsers.base import ImportOptions
from tests.analysis_util import BOOT, row, xt_log
from tests.conftest import CORPUS

# 5 s reports of sda (after the since-boot one): idle, a ramp 100 -> 200, a plateau of 300 (+-2 %), a read-only
# tail of 50 at 16 kB, idle. r/s : w/s = 60 : 40 until the tail. kB/s = 4 kB per request.
LEVELS = [(0, 0), (60, 40), (120, 80), (180, 120), (183, 121), (177, 119), (180, 120), (50, 0), (0, 0)]


def storm_log() -> str:
    reps = [BOOT]
    for r, w in LEVELS:
        rkb = 16 * r if (r, w) == (50, 0) else 4 * r
        reps.append({"sda": row(r, w, rkb=rkb, wkb=4 * w, ra=0.5, wa=1.0)})
    return xt_log(reps)


@pytest.fixture
def storm(ws, write):
    res = import_file(ws, write("storm.txt", storm_log()), ImportOptions())
    return ws, res.run_ids[0]


def rows(levels: list[tuple[float, float]]) -> list[dict]:
    return [{"t0": 5.0 * i, "t1": 5.0 * (i + 1), "dt": 5.0, "iops": r + w, "r": float(r), "w": float(w),
             "rkbs": 4.0 * r, "wkbs": 4.0 * w, "kbs": 4.0 * (r + w), "await": 1.0, "q": None}
            for i, (r, w) in enumerate(levels)]


def test_a_zero_tolerance_gives_one_phase_per_interval():
    ph = phases_of(rows(LEVELS), 0.0)
    assert [(p.t_start_s, p.t_end_s, p.read_iops, p.write_iops) for p in ph] == \
        [(5.0 * i, 5.0 * (i + 1), float(r), float(w)) for i, (r, w) in enumerate(LEVELS)]


def test_intervals_merge_while_steady_within_the_tolerance():
    # 10 %: the plateau 300, 304, 296, 300 merges (each within 30 of the mean 300, reads within 30, writes within
    # 30); the ramp steps (100 -> 200 -> 300) do not: 200 is 100 from 100
    ph = phases_of(rows(LEVELS), 10.0)
    assert [(p.t_start_s, p.t_end_s) for p in ph] == [(0, 5), (5, 10), (10, 15), (15, 35), (35, 40), (40, 45)]
    plateau = ph[3]
    assert plateau.intervals == 4
    # its I/Os over its seconds: reads (180 + 183 + 177 + 180) / 4 = 180, writes (120 + 121 + 119 + 120) / 4 = 120
    assert (plateau.read_iops, plateau.write_iops) == (180.0, 120.0)
    assert plateau.read_kb == plateau.write_kb == 4.0
    # 1 %: 304 is 4 from the mean 302 of [300, 304], more than 3.02: the plateau splits
    assert len(phases_of(rows(LEVELS), 1.0)) > len(ph)


def test_the_request_size_splits_a_phase_too():
    # the same 300 IOPS, but reads of 4 kB then of 8 kB: two phases at 10 %
    r = rows([(180, 120), (180, 120)])
    r[1]["rkbs"] = 8.0 * 180
    assert len(phases_of(r, 10.0)) == 2
    assert len(phases_of(rows([(180, 120), (180, 120)]), 10.0)) == 1


def test_rates_are_scaled_and_rounded_per_direction():
    p = ReplayPhase(1, 0, 5, 5, 180.0, 121.0, 4.0, 4.0, None, None, 1.0)
    assert p.rates(0.5) == (90, 60)  # 60.5 rounds to the even 60
    assert p.rates(1.0) == (180, 121)


def test_iodepth_from_the_queue_or_littles_law():
    p = ReplayPhase(1, 0, 5, 5, 300.0, 200.0, 4.0, 4.0, 0.4, 1.3, 3.0)
    assert iodepth(p, "aqu-sz") == 2  # the highest average queue 1.3, rounded up
    assert iodepth(p, "Little's law") == 2  # 500 IOPS x 3 ms = 1.5 in flight
    assert iodepth(p, "assumed") == 1


def test_whole_percent_adds_up_to_100():
    assert whole_percent([(4096, 33.4), (8192, 33.3), (65536, 33.3)]) == [(4096, 34), (8192, 33), (65536, 33)]
    assert sum(n for _b, n in whole_percent([(512, 0.2), (4096, 99.8)])) == 100
    assert whole_percent([(512, 0.2), (4096, 99.8)]) == [(4096, 100)]  # a size at 0 % is left out


def test_ranges():
    assert parse_range("4..50") == (4.0, 50.0)
    assert parse_range("..30") == (None, 30.0)
    assert parse_range("12..") == (12.0, None)
    for bad in ("4-50", "a..b"):
        with pytest.raises(ValueError, match="a range of seconds like"):
            parse_range(bad)


def test_the_plan_and_job_of_a_storm(storm):
    ws, rid = storm
    plan = plan_replay(ws, rid, tolerance_pct=10, scale=0.5)
    # 9 reports of 5 s after the since-boot one; the first is idle: no job
    assert [(p.t_start_s, p.t_end_s) for p in plan.phases] == [(0, 5), (5, 10), (10, 15), (15, 35), (35, 40),
                                                                (40, 45)]
    assert len(plan.jobs) == 4
    assert plan.shape.queue_source == "Little's law"  # this log has await but no aqu-sz
    job = render_job(plan, filename="/dev/sdx", size="2g")
    head, _, body = job.partition("[global]")
    assert f"; Reproduces: run {rid} 'storm' (iostat), whole disks: sda" in head
    assert "; Scale: IOPS x 0.5" in head
    assert "ASSUMED every request is that size" in head
    assert "ASSUMED 100 % random" in head
    assert "IOPS x await of the phase (Little's law)" in head
    jobs = body.split("\n\n")[1:]
    assert jobs[0].splitlines() == ["[p002_at5s_for5s]", "startdelay=5000ms", "runtime=5000ms", "rw=randrw",
                                    "rwmixread=60", "rate_iops=30,20", "bs=4k,4k", "iodepth=1"]
    # the plateau: 180 + 120 IOPS at half scale, 300 IOPS x (0.5 x 0.6 + 1.0 x 0.4 = 0.7 ms) = 0.21 in flight -> 1
    assert jobs[2].splitlines()[:6] == ["[p004_at15s_for20s]", "startdelay=15000ms", "runtime=20000ms", "rw=randrw",
                                        "rwmixread=60", "rate_iops=90,60"]
    # the read-only tail of 16 kB requests: randread, one rate
    assert jobs[3].splitlines() == ["[p005_at35s_for5s]", "startdelay=35000ms", "runtime=5000ms", "rw=randread",
                                    "rate_iops=25", "bs=16k,512", "iodepth=1"]
    assert "filename=/dev/sdx" in body
    assert "size=2g" in body
    assert "direct=1" in body
    assert read_job_header(job) == {"run_id": rid, "t_start_s": 0.0, "t_end_s": 45.0, "scale": 0.5}


def test_a_stonewall_chain_waits_and_turns_gaps_into_delays(storm):
    ws, rid = storm
    plan = plan_replay(ws, rid, tolerance_pct=10, scale=0.5, chain="stonewall", rate_process="poisson")
    jobs = render_job(plan).partition("[global]")[2].split("\n\n")[1:]
    assert jobs[0].splitlines()[:3] == ["[p002_at5s_for5s]", "stonewall", "startdelay=5000ms"]  # the idle lead-in
    assert jobs[1].splitlines()[:3] == ["[p003_at10s_for5s]", "stonewall", "runtime=5000ms"]  # right after
    assert "rate_process=poisson" in render_job(plan)


def test_a_range_or_phase_of_the_run(storm):
    from app.store.phases import add_phase

    ws, rid = storm
    plan = plan_replay(ws, rid, t_start_s=15, t_end_s=35, tolerance_pct=10)
    assert [(p.t_start_s, p.t_end_s, p.iops) for p in plan.phases] == [(0, 20, 300.0)]
    assert (plan.t_start_s, plan.t_end_s, plan.range_label) == (15.0, 35.0, "seconds 15–35 of the run")
    add_phase(ws, rid, "plateau", 15, 35)
    assert plan_replay(ws, rid, phase="plateau").phases[0].iops == 300.0
    with pytest.raises(AnalysisError, match="no phase 'boot'"):
        plan_replay(ws, rid, phase="boot")
    with pytest.raises(AnalysisError, match="no interval in seconds 100–200"):
        plan_replay(ws, rid, t_start_s=100, t_end_s=200)
    with pytest.raises(AnalysisError, match="must come after its start"):
        plan_replay(ws, rid, t_start_s=30, t_end_s=10)
    with pytest.raises(AnalysisError, match="scale must be a number above 0"):
        plan_replay(ws, rid, scale=0)


def test_sizes_and_seek_distances_from_a_vscsistats_run(storm):
    ws, rid = storm
    vs = import_file(ws, str(CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"),
                     ImportOptions()).run_ids[0]
    plan = plan_replay(ws, rid, shape_run=vs)
    assert plan.shape.sizes == "histogram"
    assert plan.shape.random_source == "seek distance"
    assert sum(p for _b, p in plan.shape.bssplit["read"]) == pytest.approx(100)
    job = render_job(plan)
    line = next(x for x in job.splitlines() if x.startswith("bssplit="))
    for side in line[len("bssplit="):].split(","):
        assert sum(int(x.split("/")[1]) for x in side.split(":")) == 100
    assert f"percentage_random={round(plan.shape.random_pct)}" in job
    with pytest.raises(AnalysisError, match="a replay needs I/O over time"):
        plan_replay(ws, vs)
    with pytest.raises(AnalysisError, match="come from a vscsiStats run"):
        plan_replay(ws, rid, shape_run=rid)


def test_a_replay_of_itself_is_faithful(storm, write):
    """The storm checked against a capture of the same I/O at half the rates and 10 s later: every dimension
    faithful, the 10 s found."""
    ws, rid = storm
    reps = [BOOT, {"sda": row()}, {"sda": row()}]
    for r, w in LEVELS:
        rkb = 16 * r if (r, w) == (50, 0) else 4 * r
        reps.append({"sda": row(r / 2, w / 2, rkb=rkb / 2, wkb=2 * w, ra=0.5, wa=1.0)})
    rep = import_file(ws, write("replay.txt", xt_log(reps)), ImportOptions()).run_ids[0]
    res = replay_check(ws, rid, rep, scale=0.5)
    assert res.lag_s == 10
    assert res.verdict == "faithful"
    assert res.dimension("iops").figure == pytest.approx(1.0)
    assert res.dimension("read_share").figure == pytest.approx(0.0)
    assert res.dimension("request_size").figure == pytest.approx(0.0)
    assert res.dimension("latency").verdict == "similar"
    # twice the rate (a replay at scale 1 checked as 0.5): every bin 100 % off
    assert replay_check(ws, rid, rep, scale=0.25).dimension("iops").verdict == "not faithful"


def test_a_run_without_reads_and_writes_apart_says_the_split_is_assumed(ws):
    """sar -d (sysstat 11.6) gives tps and kB read and written, not reads and writes apart: the split by kB assumes
    reads and writes of one size, and says ASSUMED like every other assumption (the window counts them)."""
    rid = import_file(ws, str(CORPUS / "sar" / "ksar_sar-11.6.1-full-output.txt"), ImportOptions()).run_ids[0]
    plan = plan_replay(ws, rid)
    (split,) = [n for n in plan.notes if "no reads and writes apart" in n]
    assert "ASSUMED reads and writes of the same size" in split
    assert f"; Note: {split}" in render_job(plan, filename="/dev/sdb", size="1g", generated="test")
