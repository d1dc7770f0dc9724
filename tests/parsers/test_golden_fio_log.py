"""fio's log files (bandwidth, IOPS and latency logs, histogram logs): every corpus log imports to exactly its reviewed
golden output (or is refused with its reason), values read by hand from the files and from fio's own JSON report of
the same job hold, and the histogram logs decode as fio's own tools/hist/fiologparser_hist.py decodes them.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_fio_log.py`, and review the diff.
"""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from app.analysis.histograms import latency_share
from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from parsers.registry import detect
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

FIO = CORPUS / "fio"
REFUSED = {"vm_fio-3.33_randrw-avg500_slat.1.log": "submission-latency log"}
CLONES_AVG = "vm_fio-3.33_clones-avg500_iops.log"  # numjobs=2, per_job_logs=0, log_avg_msec: refused (see below)
LOGS = corpus_files("fio", keep=lambda p: p.suffix == ".log" and p.name not in REFUSED and p.name != CLONES_AVG)
HIST = [p for p in LOGS if "_clat_hist." in p.name]
REFERENCE = GOLDEN / "fio_log" / "fiologparser_hist"  # fiologparser_hist.py's output, see its README.md


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_fio_log_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "fio_log", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_log_has_a_golden_or_is_refused():
    every = {p.name for p in FIO.iterdir() if p.suffix == ".log"}
    assert len(every) >= 14, f"expected the fio logs at {FIO}"
    have = {p.name for p in (GOLDEN / "fio_log").iterdir() if p.is_dir()}
    assert every - set(REFUSED) - {CLONES_AVG} <= have
    assert {f"{p.name}.txt" for p in HIST} == {p.name for p in REFERENCE.glob("*.txt")}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_submission_latency_log_is_refused_with_what_to_import(ws, name):
    path = FIO / name
    assert detect(str(path)).id == "fio-log"  # the lines are a fio log's; the name says which
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert REFUSED[name] in r.error
    assert "_lat or _clat log" in r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0


def test_the_averaged_logs_of_several_clones_in_one_file_are_refused_with_the_cause_and_the_remedy(ws):
    """fio 3.33, numjobs=2 --per_job_logs=0 --log_avg_msec=500 (tests/corpus/MANIFEST.md): both clones' rows in one
    file, the second clone's after the first's (500 .. 2501 ms, then 501 .. 2500 ms). It was imported as ten
    samples 1 to 500 ms apart, each one clone's ~200 IOPS: half the job's 400 (fio's report: 199.9 + 197.6),
    on a time axis that was not the job's."""
    r = import_file(ws, str(FIO / CLONES_AVG), ImportOptions())
    assert r.status == "failed"
    assert ":6: the read rows' time goes back, from 2501 ms (line 5) to 501 ms" in r.error
    assert "numjobs above 1 and per_job_logs=0" in r.error
    assert "per_job_logs=1" in r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0


def test_the_per_io_log_of_several_clones_adds_them_up(ws):
    """The same with one row per I/O (no log_avg_msec): the clones' I/Os are counted into the same windows, so each
    second holds the job's I/Os -- fio's report: 2 x 300 I/Os in 2001 ms, 149.9 IOPS each."""
    rid, run = _run(ws, FIO / "vm_fio-3.33_clones-per-io_iops.log")
    rows = _samples(ws, rid, "r_s")
    lines = _lines(FIO / "vm_fio-3.33_clones-per-io_iops.log")
    first = sum(1 for ln in lines if ln[0] < 1000)  # the I/Os both clones completed in the first second
    assert (len(lines), first) == (600, 300)
    assert len(rows) == 2
    assert rows[0][2] == first  # both clones' 150, not one clone's
    assert rows[1][2] == pytest.approx(300, rel=0.005)  # the last second's, over the time it covers


def _run(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    (rid,) = r.run_ids
    return rid, ws.run(rid)


def _samples(ws, rid, cols):
    return ws.con.execute(f"SELECT sample_idx, t_s, {cols} FROM iostat_samples WHERE run_id = ? ORDER BY sample_idx",
                          [rid]).fetchall()


def _lines(path: Path) -> list[list[int]]:
    return [[int(f, 0) for f in ln.split(",")] for ln in path.read_text().splitlines() if ln.strip()]


# ---- windowed logs (log_avg_msec), read by hand -----------------------------------------------------------------
def test_fio_plot_bandwidth_log_read_by_hand(ws):
    # "499, 448, 1, 0" / "1000, 368, 1, 0" ... 120 lines: KiB/s of one direction (1: write) per 500 ms window
    rid, run = _run(ws, FIO / "fio-plot_random-read-depth-1_bw.1.log")
    rows = _samples(ws, rid, "r_s, w_s, rkb_s, wkb_s, r_await_ms, w_await_ms")
    assert len(rows) == 120
    assert rows[0] == (0, 0.0, None, None, None, 448.0, None, None)
    assert rows[1] == (1, 0.501, None, None, None, 368.0, None, None)
    assert (run.kind, run.interval_s, run.interval_source, run.n_samples) == \
        ("fio-log", 0.5, "timestamps", 120)
    assert run.started_at is None  # the log has no wall clock


def test_windowed_latency_log_read_by_hand_with_the_unit_from_the_histogram_log_next_to_it(ws, tmp_path):
    # "500, 430691, 0, 0, 0" and "501, 573862, 1, 0, 0": one window, read and write; ns (fio 3.33)
    path = FIO / "vm_fio-3.33_randrw-avg500_lat.1.log"
    rid, run = _run(ws, path)
    rows = _samples(ws, rid, "r_await_ms, w_await_ms, r_s, w_s")
    assert len(rows) == len(_lines(path)) // 2 == 12
    assert rows[0] == (0, 0.0, pytest.approx(0.430691), pytest.approx(0.573862), None, None)
    assert rows[-1] == (11, 5.5, pytest.approx(0.344348), pytest.approx(0.317708), None, None)
    assert "vm_fio-3.33_randrw-avg500_clat_hist.1.log" in run.meta.json()  # the evidence for nanoseconds
    assert not run.warnings
    # alone in a folder, the same values only fit nanoseconds and microseconds alike: a guess, said as one
    other = Workspace(tmp_path / "other.duckdb")
    try:
        alone = _run(other, shutil.copy(path, tmp_path / path.name))[1]
    finally:
        other.close()
    assert any("latencies taken as nanoseconds" in w and "1000 times too small" in w for w in alone.warnings)


def test_windowed_iops_log_read_by_hand(ws):
    rid, _run_row = _run(ws, FIO / "vm_fio-3.33_randrw-avg500_iops.1.log")
    rows = _samples(ws, rid, "r_s, w_s, rkb_s")
    assert rows[0] == (0, 0.0, 298.0, 120.0, None)  # "500, 298, 0, 0, 0" / "500, 120, 1, 0, 0"
    assert rows[7] == (7, 3.501, 300.0, 120.0, None)  # "4001, 300, 0, 0, 0" / "4001, 120, 1, 0, 0"


def test_fio_plot_latency_log_unit_from_the_values_size_with_a_warning(ws):
    rid, run = _run(ws, FIO / "fio-plot_random-read-depth-1_lat.1.log")
    assert _samples(ws, rid, "w_await_ms")[0] == (0, 0.0, pytest.approx(8.58586))  # "506, 8585860, 1, 0": ns
    assert any("nanoseconds" in w and "over a second per I/O in microseconds" in w for w in run.warnings)


def test_unix_epoch_log_has_a_utc_wall_clock(ws):
    # log_unix_epoch=1: "1795473999358, 151, 1, 0, 0" is 151 writes/s in the second ending 2026-11-23 22:46:39.358 UTC
    rid, run = _run(ws, FIO / "vm_fio-3.33_randwrite-epoch_iops.1.log")
    rows = ws.con.execute("SELECT ts, t_s, w_s FROM iostat_samples WHERE run_id = ? ORDER BY sample_idx",
                          [rid]).fetchall()
    assert rows == [(datetime(2026, 11, 23, 22, 46, 39, 358000), 0.0, 151.0),
                    (datetime(2026, 11, 23, 22, 46, 40, 358000), 1.0, 149.0),
                    (datetime(2026, 11, 23, 22, 46, 41, 358000), 2.0, 150.0)]
    assert (run.started_at, run.ended_at) == (rows[0][0], rows[-1][0])
    assert run.meta.text("utc_offset") == "+00:00"
    # fio's JSON report of the job was written at 22:46:42 UTC, after the last window: the clock is the same one
    rid, run = _run(ws, FIO / "vm_fio-3.33_randwrite-epoch_clat_hist.1.log")
    assert ws.con.execute("SELECT DISTINCT ts FROM histograms WHERE run_id = ? ORDER BY ts", [rid]).fetchall()[0] == \
        (datetime(2026, 11, 23, 22, 46, 39, 365000),)


# ---- per-I/O logs, checked against fio's own JSON report of the job (MANIFEST.md, job B) ------------------------
def test_per_io_latency_log_counts_every_io_fio_reported(ws):
    path = FIO / "vm_fio-3.33_randread-per-io_lat.1.log"
    lines = _lines(path)  # "0, 298934, 0, 4096, 4046848, 0x0000": msec, ns, ddir, bs, offset, prio
    rid, run = _run(ws, path)
    rows = _samples(ws, rid, "r_s, rkb_s, rareq_kb, r_await_ms, w_s")
    assert [r[1] for r in rows] == [0.0, 1.0, 2.001]  # 1 s samples; the I/O at 3000 ms joins the last one
    per_second = [sum(1 for ln in lines if ln[0] // 1000 == k) for k in range(4)]
    assert per_second == [200, 200, 199, 1]
    spans = [1.0, 1.0, 1.001]
    ios = [r[2] * s for r, s in zip(rows, spans)]
    assert ios == pytest.approx([200, 200, 200])
    # fio's JSON report of the job: 600 reads, 2400 KiB, mean total latency 347622.051667 ns
    assert sum(ios) == pytest.approx(600)
    assert sum(r[3] * s for r, s in zip(rows, spans)) == pytest.approx(2400)
    assert all(r[4] == 4.0 for r in rows)
    mean_ms = sum(r[5] * n for r, n in zip(rows, ios)) / sum(ios)
    assert mean_ms == pytest.approx(0.347622051667, rel=1e-9)
    assert rows[0][5] == pytest.approx(sum(ln[1] for ln in lines if ln[0] < 1000) / 200 / 1e6)
    assert all(r[6] is None for r in rows)  # no write in the job: no write figure
    assert run.tool_version == "fio 3.28+"  # the priority in hexadecimal (log_prio)
    assert (run.interval_s, run.interval_source) == (1.0, "timestamps")


def test_per_io_bandwidth_log_gives_the_same_rates_as_the_latency_log_of_the_job(ws):
    """A per-I/O bandwidth log's values are each I/O's size over its latency, not a rate: the rates come from the
    rows, so the job's bandwidth and latency logs agree."""
    bw = _samples(ws, _run(ws, FIO / "vm_fio-3.33_randread-per-io_bw.1.log")[0], "r_s, rkb_s")
    lat = _samples(ws, _run(ws, FIO / "vm_fio-3.33_randread-per-io_lat.1.log")[0], "r_s, rkb_s")
    assert bw == lat


def test_an_interval_given_at_import_sets_the_per_io_samples(ws):
    rid, run = _run(ws, FIO / "vm_fio-3.33_randread-per-io_lat.1.log", interval_s=0.5)
    rows = _samples(ws, rid, "r_s")
    assert len(rows) == 6
    assert (run.interval_s, run.interval_source) == (0.5, "user")
    lines = _lines(FIO / "vm_fio-3.33_randread-per-io_lat.1.log")
    assert rows[0][2] == sum(1 for ln in lines if ln[0] < 500) / 0.5


# ---- histogram logs -----------------------------------------------------------------------------------------
def test_histogram_log_counts_equal_the_rows_of_the_file(ws):
    for path in HIST:
        lines = _lines(path)
        rid, run = _run(ws, path)
        got = ws.con.execute("SELECT count FROM histogram_stats WHERE run_id = ?", [rid]).fetchall()
        # one summary per row (no two rows of a direction share a window in these logs): the rows' sums
        assert sorted(c for (c,) in got) == sorted(sum(ln[3:]) for ln in lines)
        assert ws.con.execute("SELECT sum(count) FROM histograms WHERE run_id = ?", [rid]).fetchall()[0][0] == \
            sum(sum(ln[3:]) for ln in lines)
        assert run.n_rows == ws.con.execute("SELECT count(*) FROM histograms WHERE run_id = ?",
                                               [rid]).fetchall()[0][0]


def test_histogram_log_bins_read_by_hand(ws):
    # fio 2.17 (1216 bins, µs): bin 1 of the second row holds 1 I/O of 1 µs, bin 23 of the first row 2 of 23 µs
    # (bins below 128 hold one value each); bin 128 holds 128 and 129 µs (64 bins per power of two from 128 on)
    rid, run = _run(ws, FIO / "pkb_fio_clat_hist.1.log")
    lines = _lines(FIO / "pkb_fio_clat_hist.1.log")
    assert (lines[1][3 + 1], lines[0][3 + 23], lines[0][3 + 128]) == (1, 2, 73)
    q = "SELECT bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? AND sample_idx = ? AND bucket_hi = ?"
    assert ws.con.execute(q, [rid, 1, 1.0]).fetchall() == [(0.0, 1.0, 1)]
    assert ws.con.execute(q, [rid, 0, 23.0]).fetchall() == [(22.0, 23.0, 2)]
    assert ws.con.execute(q, [rid, 0, 129.0]).fetchall() == [(127.0, 129.0, 73)]
    assert (run.kind, run.interval_s, run.n_samples) == ("fio-hist", 1.0, 9)
    # fio 3.33 (1856 bins, ns), coarseness 2: bin k sums fio's bins 4k .. 4k+3; the first row's bin 112 holds fio's
    # bins 448-451: 4096 .. 4351 ns (64 ns each from 4096 ns), stored as (4.095, 4.351] µs
    rid, run = _run(ws, FIO / "vm_fio-3.33_randread-coarse2_clat_hist.1.log")
    first = _lines(FIO / "vm_fio-3.33_randread-coarse2_clat_hist.1.log")[0]
    assert len(first) == 3 + 464
    assert first[3 + 112] == 3
    assert ws.con.execute(q, [rid, 0, 4.351]).fetchall() == [(4.095, 4.351, 3)]
    assert run.tool_version == "fio 2.99+ (bins in ns)"


def test_histogram_log_gives_the_latency_share_over_time(ws):
    rid, _run_row = _run(ws, FIO / "vm_fio-3.33_randrw-avg500_clat_hist.1.log")
    lines = _lines(FIO / "vm_fio-3.33_randrw-avg500_clat_hist.1.log")
    _values, lower = _their_bin_values(1856, 0)
    last = np.append(lower[1:] - 1, np.inf)  # the largest latency each bin holds (the last bin: everything above)
    # 1 ms = 1,000,000 ns falls inside fio's bin of 999,424 .. 1,007,615 ns, which is empty: exact; 0.15 ms falls
    # inside the bin of 149,504 .. 151,551 ns, which holds I/Os: bounds, never a made-up exact share. Counted here
    # from the file with fio's bin edges.
    for ms, exact in ((1.0, True), (0.15, False)):
        res = latency_share(ws, rid, ms)
        ns = ms * 1e6
        under_lo = sum(c for ln in lines for c, top in zip(ln[3:], last) if top <= ns)
        under_hi = sum(c for ln in lines for c, low in zip(ln[3:], lower) if low <= ns)
        assert res.ios == sum(sum(ln[3:]) for ln in lines) == (302 + 300 * 4) + (122 + 120 * 4)
        assert res.under_bounds == (under_lo, under_hi)
        assert res.exact is exact
        assert res.samples == 5
    assert "per interval" in res.counts
    assert res.source == "completion latency (clat) histogram log of fio"


# ---- the histogram logs decode as fio's tools/hist/fiologparser_hist.py decodes them ----------------------------
# fiologparser_hist.py (fio commit 8629f5f5c24e, tools/hist/) gives each bin a value, weights the bins by their counts
# and interpolates percentiles; its output for the corpus logs is in tests/golden/fio_log/fiologparser_hist/. Here
# its arithmetic is applied to the buckets StormScope stored: the same values come out only if every stored bucket
# is the bin fio counted (its edges) with fio's count, and the samples are fio's intervals.
def _their_value(idx: int, edge: float) -> float:
    """fiologparser_hist.py's _plat_idx_to_val: bins below 128 are exact, then 64 per power of two."""
    if idx < 128:
        return float(idx)
    error_bits = (idx >> 6) - 1
    return (1 << (error_bits + 6)) + ((idx % 64 + edge) * (1 << error_bits))


def _their_bin_values(n_bins: int, coarseness: int) -> tuple[np.ndarray, np.ndarray]:
    """Per bin of a row: fiologparser_hist.py's value (plat_idx_to_val_coarse, edge 0.5), and fio's lower edge."""
    stride = 1 << coarseness
    lower = np.array([_their_value(i * stride, 0.0) for i in range(n_bins)])
    upper = np.array([_their_value(i * stride + stride, 1.0) for i in range(n_bins)])
    return lower + (upper - lower) * 0.5, lower


def _their_stats(values: np.ndarray, counts: np.ndarray, percs: list[float]) -> list[float]:
    """fiologparser_hist.py's print_all_stats for one histogram: min, avg, percentiles, max."""
    idx = np.argsort(values)
    vs, ws = values[idx], counts[idx]
    cdf = 100 * (ws.cumsum() - ws / 2.0) / ws.sum()
    nz = np.nonzero(counts)[0]
    return [values[nz[0]], float(np.sum(values * counts) / np.sum(counts)), *np.interp(percs, cdf, vs),
            values[nz[-1]]]


@pytest.mark.parametrize("path", HIST, ids=[p.name for p in HIST])
def test_histogram_log_decodes_as_fiologparser_hist(ws, path):
    ref = (REFERENCE / f"{path.name}.txt").read_text().splitlines()
    header = [h.strip() for h in ref[0].split(",")]
    percs = [float(h[:-1]) for h in header[6:-1]]
    n_bins = len(_lines(path)[0]) - 3
    rid, run = _run(ws, path)
    unit = 1000.0 if run.tool_version.endswith("(bins in ns)") else 1.0  # stored µs -> the log's unit
    coarseness = {1216: 0, 1856: 0, 464: 2}[n_bins]
    values, lower = _their_bin_values(n_bins, coarseness)
    index = {int(v): i for i, v in enumerate(lower)}
    stored = ws.con.execute("SELECT sample_idx, op, bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ?",
                            [rid]).fetchall()
    hist: dict[tuple[int, str], np.ndarray] = {}
    for idx, op, lo, hi, n in stored:
        i = index[round(lo * unit) + 1]  # every stored bucket starts at one of fio's bins
        if i + 1 < n_bins:
            assert round(hi * unit) + 1 == int(lower[i + 1])  # and ends where the next one starts
        h = hist.setdefault((idx, op[0]), np.zeros(n_bins))
        h[i] += n
    for (idx, _d), h in list(hist.items()):
        hist[(idx, "m")] = hist.get((idx, "m"), np.zeros(n_bins)) + h
    ends = sorted({int(line.split(",")[0]) for line in ref[1:]})
    checked = 0
    for line in ref[1:]:
        end, d, n, *figures = (f.strip() for f in line.split(","))
        h = hist[(ends.index(int(end)), d)]
        assert int(h.sum()) == int(n), (end, d)
        theirs = [float(f) for f in figures]  # min, avg, median, the percentiles, max
        ours = _their_stats(values, h, [50.0, *percs])
        assert (int(ours[0]), int(ours[-1])) == (theirs[0], theirs[-1]), (end, d)  # printed with %d
        assert ours[1:-1] == pytest.approx(theirs[1:-1], abs=1.5e-3), (end, d)  # printed with %.3f
        checked += 1
    assert checked == len(ref) - 1 == len(hist)


def test_the_reference_outputs_say_how_they_were_made():
    readme = (REFERENCE / "README.md").read_text()
    for p in HIST:
        assert re.search(re.escape(p.name), readme), p.name
