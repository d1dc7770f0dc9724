"""Every vscsiStats CSV and fio JSON of the corpus imports to exactly its reviewed golden output,
and a few counts and values read by hand from the files (independently of the parsers) hold.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_vscsistats_fio.py`, and review the diff.
"""

import json
import re

import pytest

from app.analysis.histograms import latency_share
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, GOLDEN, REGEN, SAMPLES, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

VSCSI = corpus_files("vscsistats")
FIO_JSON = corpus_files("fio", keep=lambda p: p.suffix == ".json")
VSCSI_SAMPLE = CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
JSONPLUS_SAMPLE = SAMPLES / "fio_randrw_jsonplus.json"


@pytest.mark.parametrize("path", VSCSI, ids=[p.name for p in VSCSI])
def test_vscsistats_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "vscsistats", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


@pytest.mark.parametrize("path", FIO_JSON, ids=[p.name for p in FIO_JSON])
def test_fio_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "fio", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden():
    assert VSCSI, f"expected the vscsiStats and fio corpus at {CORPUS}"
    assert len(FIO_JSON) >= 4, f"expected the vscsiStats and fio corpus at {CORPUS}"
    for kind, files in (("vscsistats", VSCSI), ("fio", FIO_JSON)):
        have = {p.name for p in (GOLDEN / kind).iterdir()} if (GOLDEN / kind).is_dir() else set()
        assert {p.name for p in files} <= have


# ---- vscsiStats, read by hand ---------------------------------------------------------------------
def test_vscsistats_counts_equal_the_file(ws):
    text = VSCSI_SAMPLE.read_text()
    r = import_file(ws, str(VSCSI_SAMPLE), ImportOptions())
    assert r.status == "imported", r.error
    rid = r.run_ids[0]
    # every "frequency,limit" line is one stored bucket; every "Histogram:" line one stats row
    n_rows = len(re.findall(r"^\d+,-?\d+$", text, re.MULTILINE))
    n_hist = text.count("Histogram:")
    q = ws.con.execute
    assert (n_rows, n_hist) == (295, 16)
    assert q("SELECT count(*) FROM histograms WHERE run_id = ?", [rid]).fetchall()[0][0] == n_rows
    assert q("SELECT count(*) FROM histogram_stats WHERE run_id = ?", [rid]).fetchall()[0][0] == n_hist
    assert q("SELECT DISTINCT device FROM histograms").fetchall() == [("2099979:8194 (scsi0:0)",)]
    # latency of all IOs, as printed: 0,1 / 0,10 / 403,100 / 304,500 / 78,1000 / 4,5000 / 0,15000 / 0,30000 /
    # 3,50000 / 1,100000 / 0,100000 (overflow); min 40, max 51537, mean 392, count 793
    lat = q("SELECT bucket_lo, bucket_hi, count FROM histograms WHERE metric = 'latency_us' AND op = 'all' "
            "ORDER BY bucket_hi NULLS LAST").fetchall()
    assert lat == [(None, 1.0, 0), (1.0, 10.0, 0), (10.0, 100.0, 403), (100.0, 500.0, 304), (500.0, 1000.0, 78),
                   (1000.0, 5000.0, 4), (5000.0, 15000.0, 0), (15000.0, 30000.0, 0), (30000.0, 50000.0, 3),
                   (50000.0, 100000.0, 1), (100000.0, None, 0)]
    assert q("SELECT min, max, mean, count FROM histogram_stats WHERE metric = 'latency_us' AND op = 'all'"
             ).fetchall() == [(40.0, 51537.0, 392.0, 793)]
    # reads: 4 IOs of which 3 in (30 ms, 50 ms] and 1 in (50 ms, 100 ms]
    assert q("SELECT sum(count) FILTER (WHERE bucket_hi = 50000), sum(count) FROM histograms "
             "WHERE metric = 'latency_us' AND op = 'read'").fetchall() == [(3, 4)]
    # interarrival overflow (above 100 ms): 114 of 793; its max is a 64-bit value
    assert q("SELECT count FROM histograms WHERE metric = 'interarrival_us' AND op = 'all' AND bucket_hi IS NULL"
             ).fetchall() == [(114,)]
    assert q("SELECT max FROM histogram_stats WHERE metric = 'interarrival_us' AND op = 'all'"
             ).fetchall() == [(581013626718.0,)]
    # seek distance: 213 I/Os exactly one LBN on; the first bucket is everything <= -500000
    assert q("SELECT count FROM histograms WHERE metric = 'seek_distance_lbn' AND op = 'all' "
             "AND bucket_lo = 0 AND bucket_hi = 1").fetchall() == [(213,)]
    assert q("SELECT count FROM histograms WHERE metric = 'seek_distance_lbn' AND op = 'all' "
             "AND bucket_lo IS NULL").fetchall() == [(134,)]
    types = {t for (t,) in q("SELECT DISTINCT metric || '/' || op FROM histograms").fetchall()}
    assert types == {f"{m}/{o}" for m in ("io_length_bytes", "seek_distance_lbn", "latency_us", "outstanding_ios",
                                          "interarrival_us") for o in ("all", "read", "write")} \
        | {"seek_closest16_lbn/all"}
    run = ws.run(rid)
    assert (run.kind, run.n_samples, run.n_devices, run.n_rows) == ("vscsistats", 1, 1, 295)


def test_vscsistats_latency_share_of_the_corpus_file(ws):
    r = import_file(ws, str(VSCSI_SAMPLE), ImportOptions(interval_s=60))
    res = latency_share(ws, r.run_ids[0], 50)
    # 792 of 793 are <= 50 ms (the 1 in (50 ms, 100 ms] is not): exact, 50 ms is an edge
    assert (res.ios, res.under, res.exact) == (793, 792, True)
    assert res.share == pytest.approx(792 / 793)
    res = latency_share(ws, r.run_ids[0], 50, op="read")
    assert (res.ios, res.under) == (4, 3)


# ---- fio, read by hand ----------------------------------------------------------------------------
def _fio_rows(ws, rid):
    cur = ws.con.execute("SELECT * FROM fio_jobs WHERE run_id = ? ORDER BY job_index, op", [rid])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_fio_every_job_and_direction_equals_the_file(ws):
    for path in FIO_JSON:
        doc = json.loads(path.read_text())
        r = import_file(ws, str(path), ImportOptions())
        assert r.status == "imported", r.error
        rows = {(x["job_index"], x["op"]): x for x in _fio_rows(ws, r.run_ids[0])}
        expected = 0
        for i, job in enumerate(doc["jobs"]):
            for ddir in ("read", "write", "trim"):
                d = job[ddir]
                if d["runtime"] == 0 and d["io_bytes"] == 0:
                    assert (i, ddir) not in rows
                    continue
                expected += 1
                row = rows[(i, ddir)]
                assert row["iops"] == pytest.approx(d["iops"])
                assert row["bw_kbs"] == pytest.approx(d["bw"])
                assert row["runtime_s"] == pytest.approx(d["runtime"] / 1000)
                assert row["ios"] == d.get("total_ios")
        # every capture has at least one job that did I/O
        assert expected, path.name
        assert len(rows) == expected, path.name


def test_fio_values_read_by_hand(ws):
    q = {p.name: import_file(ws, str(p), ImportOptions()).run_ids[0] for p in FIO_JSON}
    # fio 2.1.4 (µs, io_bytes in KiB): sequential_write writes 361984 KiB at 68118 KiB/s in 5314 ms,
    # clat mean 477734.84 µs, p99 823296 µs, lat mean 478737.47 µs
    seq = _fio_rows(ws, q["pkb_fio-2.1.4-parser-sample-result.json"])[0]
    assert (seq["device"], seq["op"], seq["io_kb"], seq["ios"]) == ("sequential_write", "write", 361984.0, None)
    assert (seq["clat_mean_us"], seq["p99_us"], seq["lat_mean_us"]) == (477734.84, 823296.0, 478737.47)
    # fio 2.17: 2 jobs of 2 groups, group_reporting; read 80891 I/Os, clat p50 96 µs
    rows = _fio_rows(ws, q["pkb_fio-2.17-hist-run.json"])
    assert [(x["device"], x["op"], x["ios"]) for x in rows] == [
        ("rand_16k_read_100%-io-depth-1-num-jobs-2", "read", 80891),
        ("rand_16k_write_100%-io-depth-1-num-jobs-2", "write", 24580)]
    assert (rows[0]["p50_us"], rows[0]["bs"], rows[0]["rw"], rows[0]["numjobs"]) == (96.0, "16k", "randread", "2")
    # fio 3.1 (ns): 396851 I/Os, io_kbytes 1587404, lat_ns mean 147792.395919, clat p99 142336 ns
    (r31,) = _fio_rows(ws, q["fio-plot_fio-3.1_randread-1-1.json"])
    assert (r31["ios"], r31["io_kb"]) == (396851, 1587404.0)
    assert r31["lat_mean_us"] == pytest.approx(147.792395919)
    assert r31["p99_us"] == pytest.approx(142.336)
    # fio 3.39 json+: 16384 write I/Os in 434 bins
    rid = q["BlizzardDiskMark_fio-3.39-jsonplus-macos.json"]
    (bz,) = _fio_rows(ws, rid)
    assert (bz["op"], bz["ios"], bz["has_bins"], bz["bs"], bz["iodepth"]) == ("write", 16384, True, "1K", "8")
    n, total = ws.con.execute("SELECT count(*), sum(count) FROM histograms WHERE run_id = ?", [rid]).fetchall()[0]
    assert (n, total) == (434, 16384)
    # the bin keyed 2008 ns holds 2000..2015 ns: (1.999, 2.015] µs, 1 I/O
    assert ws.con.execute("SELECT bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? "
                          "ORDER BY bucket_hi LIMIT 1", [rid]).fetchall() == [(1.999, 2.015, 1)]


def test_fio_reported_percentiles_lie_in_the_buckets_computed_from_the_bins(ws):
    """fio computes its percentiles from the same bins: each must lie in the bucket our percentile names."""
    from app.analysis.histograms import Bucket, percentile

    paths = [CORPUS / "fio" / "BlizzardDiskMark_fio-3.39-jsonplus-macos.json", JSONPLUS_SAMPLE]
    checked = dict.fromkeys((p.name for p in paths), 0)
    for path in paths:
        doc = json.loads(path.read_text())
        rid = import_file(ws, str(path), ImportOptions()).run_ids[0]
        for row in _fio_rows(ws, rid):
            if not row["has_bins"]:
                continue
            buckets = [Bucket(lo, hi, c) for lo, hi, c in ws.con.execute(
                "SELECT bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? AND device = ? AND op = ?",
                [rid, row["device"], row["op"]]).fetchall()]
            pct = doc["jobs"][row["job_index"]][row["op"]]["clat_ns"]["percentile"]
            for key in ("1.000000", "50.000000", "90.000000", "99.000000", "99.900000"):
                p = percentile(buckets, float(key))
                assert p.lo < pct[key] / 1000 <= p.hi, (path.name, row["device"], key)
                checked[path.name] += 1
    assert all(n >= 5 for n in checked.values()), checked  # each capture has binned jobs: five percentiles or more


def test_real_jsonplus_capture_imports_and_gives_the_latency_share(ws):
    doc = json.loads(JSONPLUS_SAMPLE.read_text())
    r = import_file(ws, str(JSONPLUS_SAMPLE), ImportOptions())
    assert r.status == "imported", r.error
    rid = r.run_ids[0]
    ios = sum(j[d]["total_ios"] for j in doc["jobs"] for d in ("read", "write"))
    res = latency_share(ws, rid, 50)
    assert res.ios == ios
    # the share of completions within 50 ms, counted independently from the bins
    under = sum(c for j in doc["jobs"] for d in ("read", "write")
                for v, c in j[d]["clat_ns"]["bins"].items() if int(v) <= 50_000_000)
    lo, hi = res.under_bounds
    assert lo <= under <= hi
    if res.exact:
        assert res.under == under
    else:
        assert res.estimate is not None
        assert "estimate" in res.method
    # a threshold inside a bin's range is never claimed exact unless that bin is empty
    res1 = latency_share(ws, rid, 0.2)
    assert res1.bounds[0] <= res1.estimate <= res1.bounds[1]
    devices = {x["device"] for x in _fio_rows(ws, rid)}
    assert len(devices) == len(doc["jobs"])
