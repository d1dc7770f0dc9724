"""Series: device choice (no double counting), IOPS formula, since-boot exclusion, resampling, alignment."""


import pytest

from app.analysis.series import (
    AnalysisError,
    align,
    classify_devices,
    list_devices,
    load_series,
    make_series,
    partition_parent,
    resample,
    run_series,
    weighted_percentile,
)
from app.importer import import_file
from parsers.base import ImportOptions
from tests.analysis_util import PLAIN_D, THREE_REPORTS, xt_log


def _imp(ws, write, text, name="x.txt", **opts):
    r = import_file(ws, write(name, text), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r.run_ids[0]


def test_whole_disks_by_default():
    c = classify_devices([(d, False) for d in ("sda", "sda1", "sda12", "sdb", "dm-0", "md0", "loop3", "sr0")]
                         + [("disks", True)])
    assert c.used == ["sda", "sdb", "sr0"]
    assert c.excluded["sda1"].startswith("partition of sda")
    assert c.excluded["sda12"].startswith("partition of sda")
    assert {"dm-0", "md0", "loop3"} <= set(c.excluded)
    assert "stacked" in c.excluded["md0"]
    assert "group" in c.excluded["disks"]


@pytest.mark.parametrize(("name", "names", "parent"), [
    ("nvme0n1p1", ["nvme0n1"], "nvme0n1"), ("cciss/c0d0p2", ["cciss/c0d0"], "cciss/c0d0"),
    ("mmcblk0p1", ["mmcblk0"], "mmcblk0"), ("ata-HDS_X-part1", ["ata-HDS_X"], "ata-HDS_X"),
    ("dm-10", ["dm-1"], None), ("md12", ["md1"], None), ("sdaa", ["sda"], None), ("sda1", ["sdb"], None),
])
def test_partition_names(name, names, parent):
    assert partition_parent(name, names) == parent


def test_stacked_only_or_groups_only_are_used_and_explicit_names_win():
    assert classify_devices([("dm-0", False), ("dm-1", False)]).used == ["dm-0", "dm-1"]
    assert classify_devices([("disks", True), ("other", True)]).used == ["disks", "other"]
    c = classify_devices([("sda", False), ("sda1", False)], "sda1")
    assert c.used == ["sda1"]
    assert c.excluded == {"sda": "not requested"}
    with pytest.raises(AnalysisError, match="no device 'sdz'"):
        classify_devices([("sda", False)], "sdz")


def test_extended_series_by_hand(ws, write):
    rid = _imp(ws, write, xt_log(THREE_REPORTS))
    assert list_devices(ws, rid).used == ["sda", "sdb"]
    s = load_series(ws, rid)
    f = s.frame
    assert s.since_boot_excluded == [0]
    assert f.get_column("sample_idx").to_list() == [1, 2, 3]
    # report k (5 s, stamped at 5k s) covers (5k - 5, 5k]; the axis starts at the first analysed interval
    assert f.get_column("t_start_s").to_list() == [0, 5, 10]
    assert f.get_column("t_end_s").to_list() == [5, 10, 15]
    # IOPS = r + w + d + f over sda and sdb: (10+20+1+2) + (5+5) = 43, 100+50 = 150, 50
    assert f.get_column("iops").to_list() == [43, 150, 50]
    assert f.get_column("read_iops").to_list() == [15, 100, 50]
    assert f.get_column("write_iops").to_list() == [25, 50, 0]
    assert f.get_column("ios").to_list() == [215, 750, 250]
    assert f.get_column("kbs").to_list() == [160, 600, 200]
    # await weighted by requests: (10*2 + 20*4 + 1*0 + 2*1 + 5*3 + 5*3) / 43 = 132 / 43
    aw = f.get_column("await_ms").to_list()
    assert aw[0] == pytest.approx(132 / 43)
    assert aw[1] == pytest.approx(600 / 150)
    assert aw[2] == pytest.approx(2.0)
    assert "r/s + w/s + d/s + f/s" in s.iops_formula
    m = s.method()
    assert m["devices"]["excluded"].keys() == {"sda1", "dm-0"}
    assert m["since_boot_excluded"] == [0]
    # an explicit device, and the read-write-only formula
    assert load_series(ws, rid, "sda1").frame.get_column("iops").to_list() == [30, 150, 0]
    assert load_series(ws, rid, "sda", ops=("r", "w")).frame.get_column("iops").to_list() == [30, 150, 0]


def test_plain_reports_use_tps_and_have_no_read_write_split(ws, write):
    rid = _imp(ws, write, PLAIN_D, interval_s=2)
    s = load_series(ws, rid)
    assert s.since_boot_excluded == [0]
    assert s.frame.get_column("iops").to_list() == [200, 100]
    assert not s.has_read_write
    assert s.frame.get_column("read_iops").to_list() == [None, None]
    assert s.frame.get_column("kbs").to_list() == [800, 400]
    assert "tps" in s.iops_formula


def test_no_times_is_an_error(ws, write):
    rid = _imp(ws, write, PLAIN_D)  # no timestamps and no --interval
    with pytest.raises(AnalysisError, match="right-click menu ▸ Set interval…") as e:  # the window's words
        load_series(ws, rid)
    from app.analysis.text import for_cli

    assert f"'main.py run {rid} --interval SECONDS'" in for_cli(e.value)  # the command line's


def test_resampling_weights_by_overlap_and_keeps_every_io(ws, write):
    s = load_series(ws, _imp(ws, write, xt_log(THREE_REPORTS)))
    r = resample(s, 10)
    f = r.frame
    # bin [0, 10): reports 1 and 2, 5 s each: (43*5 + 150*5) / 10 = 96.5; bin [10, 20): report 3 only, half covered
    assert f.get_column("iops").to_list() == [96.5, 50]
    assert f.get_column("coverage").to_list() == [1.0, 0.5]
    assert f.get_column("ios").to_list() == [965, 250]
    # await weighted by the I/Os of each overlap: (132*5 + 600*5) / (43*5 + 150*5)
    assert f.get_column("await_ms")[0] == pytest.approx(3660 / 965)
    # finer than the reports: a 2 s bin straddling reports 1 and 2 gets half of each
    f2 = resample(s, 2).frame
    assert f2.filter(f2["t_start_s"] == 4).get_column("iops").to_list() == [96.5]
    assert f2.get_column("ios").sum() == pytest.approx(1215)
    assert r.method()["resample_s"] == 10
    assert "time-weighted" in r.method()["resample"]


def test_alignment_modes(ws, write):
    s = load_series(ws, _imp(ws, write, xt_log(THREE_REPORTS)))
    a = align(s, "activity", activity_iops=100, activity_intervals=1)  # first interval above 100: report 2, at 5 s
    assert a.align["offset_s"] == 5
    assert a.frame.get_column("t_start_s").to_list() == [-5, 0, 5]
    assert align(s, "activity", activity_iops=40, activity_intervals=2).align["offset_s"] == 0
    with pytest.raises(AnalysisError, match="no activity"):
        align(s, "activity", activity_iops=100, activity_intervals=2)
    assert align(s, "offset:2.5").frame.get_column("t_start_s").to_list() == [-2.5, 2.5, 7.5]
    assert align(s, "marker:boot", markers={"boot": 10.0}).frame.get_column("t_start_s").to_list() == [-10, -5, 0]
    with pytest.raises(AnalysisError, match="no marker"):
        align(s, "marker:none", markers={})
    n = align(s, "start", normalise=True).frame.get_column("t_norm").to_list()
    assert n == pytest.approx([1 / 3, 2 / 3, 1.0])
    with pytest.raises(AnalysisError):
        align(s, "sideways")


def test_run_series_aligns_before_resampling(ws, write):
    rid = _imp(ws, write, xt_log(THREE_REPORTS))
    s = run_series(ws, rid, align_mode="offset:5", every_s=10, normalise=True)
    # on the aligned axis report 1 is [-5, 0]: bins [-10, 0) and [0, 10)
    assert s.frame.get_column("t_start_s").to_list() == [-10, 0]
    assert s.frame.get_column("iops").to_list() == [43, 100]
    assert s.frame.get_column("t_norm").to_list()[-1] == 1.0


def test_weighted_percentile_is_the_inverted_cdf():
    v = [10, 20, 30, 40]
    assert weighted_percentile(v, None, 50) == 20
    assert weighted_percentile(v, None, 51) == 30
    assert weighted_percentile(v, [1, 1, 1, 7], 50) == 40
    assert weighted_percentile(v, None, 100) == 40
    assert weighted_percentile([], None, 50) is None


def test_make_series():
    s = make_series([1, 2, 3], 2.0, read_iops=[1, 1, 1], write_iops=[0, 1, 2])
    assert s.frame.get_column("t_end_s").to_list() == [2, 4, 6]
    assert s.duration_s() == 6
    assert s.has_read_write


def test_rows_that_say_what_they_are_choose_the_physical_disks():
    # perfmon: PhysicalDisk instances and their _Total, LogicalDisk volumes
    perfmon = [("0 C:", False, "disk"), ("1 D:", False, "disk"), ("_Total", False, "total"), ("C:", False, "volume")]
    c = classify_devices(perfmon)
    assert c.used == ["0 C:", "1 D:"]
    assert c.excluded == {"C:": "volume (its I/O is counted in the physical disks)",
                          "_Total": "total printed by the tool (the sum of the disks)"}
    assert c.rule.startswith("whole disks: the physical disks")
    # esxtop: LUNs, adapters, VM disks; names that would look like partitions to iostat's rules are not
    esx = [("naa.600a", False, "disk"), ("naa.600a1", False, "disk"), ("vmhba1", False, "adapter"),
           ("vm1:scsi0:0", False, "vm_disk")]
    assert classify_devices(esx).used == ["naa.600a", "naa.600a1"]
    # no physical disk: the volumes, and the rule says so
    c = classify_devices([("C:", False, "volume"), ("_Total", False, "total")])
    assert (c.used, c.rule) == (["C:"], "no physical disk in the run: its volumes")
    # names asked for win over the layers
    assert classify_devices(esx, "vmhba1").used == ["vmhba1"]
    # rows without a layer keep iostat's name rules
    assert classify_devices([("sda", False, None), ("sda1", False, None)]).used == ["sda"]


def test_a_sample_that_covers_the_time_since_the_previous_one_is_as_long_as_that_gap(ws):
    """nmon (like perfmon and esxtop) averages each snapshot over the time since the previous one: the AIX capture's
    gaps of 299-302 s are the samples' lengths, and the Linux capture's first snapshot covers the second or so
    since nmon started (meta first_snapshot_covers_s), not an interval."""
    from tests.conftest import CORPUS

    aix = import_file(ws, str(CORPUS / "nmon" / "nmon2influxdb_aixlpar.nmon"), ImportOptions()).run_ids[0]
    s = load_series(ws, aix)
    f = s.frame
    ends = f.get_column("t_end_s").to_list()
    gaps = [b - a for a, b in zip(ends, ends[1:])]
    assert f.get_column("dt_s").to_list()[1:] == gaps
    assert {round(g) for g in gaps} <= {299, 300, 301, 302}
    assert f.get_column("t_start_s").to_list()[1:] == ends[:-1]  # no gap, no overlap between samples
    assert f.get_column("ios").to_list() == [i * d for i, d in zip(f.get_column("iops"), f.get_column("dt_s"))]
    assert "each sample covers the time since the previous one (from the time stamps)" in s.notes
    linux = import_file(ws, str(CORPUS / "nmon" / "vm_nmon-16n_loop-partitions_l3-split_D.nmon"),
                        ImportOptions()).run_ids[0]
    first = ws.run(linux).meta.number("first_snapshot_covers_s")
    assert load_series(ws, linux).frame.get_column("dt_s")[0] == first


def test_a_run_without_request_counts_has_no_iops_rather_than_zero(ws):
    """fio's bandwidth and averaged latency logs carry no request counts: no IOPS (not 0 IOPS), throughput and a
    plain mean of the latencies (nothing to weight them by), said in the notes."""
    from app.analysis.storm import storm_report
    from tests.conftest import CORPUS

    bw = import_file(ws, str(CORPUS / "fio" / "vm_fio-3.33_randrw-avg500_bw.1.log"), ImportOptions()).run_ids[0]
    lat = import_file(ws, str(CORPUS / "fio" / "vm_fio-3.33_randrw-avg500_lat.1.log"), ImportOptions()).run_ids[0]
    s = load_series(ws, bw)
    assert s.frame.get_column("iops").null_count() == s.frame.height
    assert s.frame.get_column("ios").null_count() == s.frame.height
    assert s.frame.get_column("kbs").null_count() == 0
    assert any("no IOPS" in n for n in s.notes)
    m = storm_report(ws, bw, phases="none").run
    assert (m.peak_iops, m.total_ios, m.mean_iops) == (None, None, None)
    assert m.peak_kbs == max(s.frame.get_column("kbs"))
    s2 = load_series(ws, lat)
    aw = s2.frame.get_column("await_ms").to_list()
    assert all(v is not None for v in aw)
    rows = ws.query("SELECT sample_idx, r_await_ms, w_await_ms FROM iostat_samples WHERE run_id = ? ORDER BY 1",
                    [lat]).rows()
    per = {}
    for i, r, w in rows:
        per.setdefault(i, []).extend(v for v in (r, w) if v is not None)
    assert aw == pytest.approx([sum(v) / len(v) for _i, v in sorted(per.items())])
    assert any("plain mean" in n for n in s2.notes)


@pytest.mark.parametrize("sample", ["storm_fast_iostat-xt.txt", "capped_200iops_iostat-d.txt"])
def test_a_series_loaded_for_one_figure_has_the_same_figures_and_refuses_the_others(ws, sample):
    """The overlay loads only what its curve shows (issue 18): the same IOPS and times to the bit, and a figure
    not loaded is an error, never an empty column read as data."""
    import numpy as np

    from app.analysis.series import load_series
    from tests.conftest import SAMPLES

    r = import_file(ws, str(SAMPLES / sample), ImportOptions(interval_s=2 if "capped" in sample else None))
    rid = r.run_ids[0]
    full, first = load_series(ws, rid), load_series(ws, rid, figures={"iops"})
    for col in ("sample_idx", "t_start_s", "t_end_s", "dt_s", "iops", "ios"):
        assert np.array_equal(full.col(col), first.col(col), equal_nan=True), col
    assert first.clock0_utc == full.clock0_utc
    assert first.figures == {"iops"}
    with pytest.raises(ValueError, match="without its throughput figures"):
        first.col("kbs")
    with pytest.raises(ValueError, match="without its read_write figures"):
        _ = first.has_read_write
    kbs = load_series(ws, rid, figures={"throughput"})
    assert np.array_equal(full.col("kbs"), kbs.col("kbs"), equal_nan=True)


def test_series_memo_loads_each_series_once_and_hands_out_copies(ws, monkeypatch):
    """A report loads each run's series once for all its sections (issue 18); a caller extending its copy's notes
    leaves the next caller's untouched; outside the memo every call loads afresh."""
    from app.analysis import series as S
    from tests.conftest import SAMPLES

    rid = import_file(ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    calls = []
    real = S._load_series
    monkeypatch.setattr(S, "_load_series", lambda *a: calls.append(a[1]) or real(*a))
    with S.series_memo():
        a = S.load_series(ws, rid)
        a.notes.append("a section's own note")
        b = S.load_series(ws, rid)
        S.load_series(ws, rid, figures={"iops"})  # another set of figures: loaded on its own
    assert calls == [rid, rid]
    assert "a section's own note" not in b.notes
    assert a.frame.equals(b.frame)
    S.load_series(ws, rid)
    assert calls == [rid, rid, rid]
