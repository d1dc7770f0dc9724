"""vscsiStats and fio import on small hand-made files, and the histogram analyses:
the seed check, exact shares at bucket edges, bounds plus a labelled estimate elsewhere,
and clear errors (file:line) or warnings for malformed histograms."""

import json
import subprocess
import sys

import pytest

from app.analysis.histograms import Bucket, histo_summary, latency_share, percentile, share_within
from app.cli import main as cli_main
from app.importer import import_file
from parsers.base import ImportOptions
from parsers.fio import bin_range
from parsers.registry import UnknownFormat, detect
from tests.conftest import ROOT

LAT_LIMITS = [1, 10, 100, 500, 1000, 5000, 15000, 30000, 50000, 100000]
LEN_LIMITS = [512, 1024, 2048, 4095, 4096, 8191, 8192, 16383, 16384, 32768, 49152, 65535, 65536, 81920, 131072,
              262144, 524288]
TITLES = {
    ("io_length_bytes", "all"): "IO lengths of commands",
    ("io_length_bytes", "read"): "IO lengths of Read commands",
    ("io_length_bytes", "write"): "IO lengths of Write commands",
    ("latency_us", "all"): "latency of IOs in Microseconds (us)",
    ("latency_us", "read"): "latency of Read IOs in Microseconds (us)",
    ("latency_us", "write"): "latency of Write IOs in Microseconds (us)",
}


def block(kind, counts, limits, stats, wgid="2099979", handle="8194 (scsi0:0)", overflow=True):
    """One vscsiStats -c histogram block; ``counts`` has one more entry than ``limits`` when ``overflow``."""
    lines = [f"Histogram: {TITLES[kind]},virtual machine worldGroupID,{wgid},virtual disk handleID,{handle}"]
    lines += [f"{k},{v}" for k, v in zip(("min", "max", "mean", "count"), stats)]
    lines.append("Frequency,Histogram Bucket Limit")
    lims = limits + [limits[-1]] if overflow else limits
    lines += [f"{c},{lim}" for c, lim in zip(counts, lims)]
    return "\n".join(lines) + "\n"


def seed_collection(handle="8194 (scsi0:0)"):
    """36,000 64 KB I/Os (24,000 reads, 12,000 writes); latency: 20 I/Os in (15 ms, 30 ms], 10 in (50, 100]."""
    n = 36000
    length = [0] * 12 + [n, 0, 0, 0, 0, 0]
    lat = [0, 0, 20000, 10000, 4000, 1970, 0, 20, 0, 10, 0]
    lat_r = [0, 0, 14000, 7000, 2000, 980, 0, 15, 0, 5, 0]
    lat_w = [a - b for a, b in zip(lat, lat_r)]
    return (block(("io_length_bytes", "all"), length, LEN_LIMITS, (65536, 65536, 65536, n), handle=handle)
            + block(("io_length_bytes", "read"), [0] * 12 + [24000] + [0] * 5, LEN_LIMITS,
                    (65536, 65536, 65536, 24000), handle=handle)
            + block(("io_length_bytes", "write"), [0] * 12 + [12000] + [0] * 5, LEN_LIMITS,
                    (65536, 65536, 65536, 12000), handle=handle)
            + block(("latency_us", "all"), lat, LAT_LIMITS, (20, 90000, 450, n), handle=handle)
            + block(("latency_us", "read"), lat_r, LAT_LIMITS, (20, 90000, 440, 24000), handle=handle)
            + block(("latency_us", "write"), lat_w, LAT_LIMITS, (25, 80000, 470, 12000), handle=handle))


def imported(ws, path, **opts):
    r = import_file(ws, path, ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


# ---- the seed check ------------------------------------------------------------------------------
def test_seed_36000_ios_of_64kb_in_60s_are_600_iops_and_38400_kb_s(ws, write):
    r = imported(ws, write("seed.csv", seed_collection()), interval_s=60)
    (s,) = histo_summary(ws, r.run_ids[0])["samples"]
    assert s["iops"] == 600.0
    assert s["kb_s"] == 38400.0
    assert s["mb_s"] == 37.5
    assert (s["read_iops"], s["write_iops"]) == (400.0, 200.0)
    assert s["mean_latency_ms"] == 0.45
    # 50 ms is an edge of vscsiStats' latency buckets: 36000 - 10 I/Os are <= 50 ms, exactly
    assert s["share_50ms_exact"] is True
    assert s["share_50ms"] == (36000 - 10) / 36000


def test_seed_check_through_the_command_line(tmp_path, write):
    wsp = str(tmp_path / "w.duckdb")
    path = write("seed.csv", seed_collection())
    assert cli_main(["import", path, "-w", wsp, "--interval", "60"]) == 0
    out = subprocess.run([sys.executable, str(ROOT / "main.py"), "analyze", "histo", "-w", wsp, "--run", "1",
                          "--json"], capture_output=True, text=True, check=True).stdout
    (s,) = json.loads(out)["samples"]
    assert (s["iops"], s["kb_s"]) == (600.0, 38400.0)
    human = subprocess.run([sys.executable, str(ROOT / "main.py"), "analyze", "histo", "-w", wsp, "--run", "1"],
                           capture_output=True, text=True, check=True).stdout
    assert "600.0" in human
    assert "37.50" in human
    assert "99.97 %" in human


# ---- shares: exact at edges, bounds + labelled estimate elsewhere ----------------------------------
def test_share_at_50ms_is_exact_and_at_20ms_bounds_plus_estimate(ws, write):
    rid = imported(ws, write("seed.csv", seed_collection()), interval_s=60).run_ids[0]
    r50 = latency_share(ws, rid, 50)
    assert (r50.ios, r50.under, r50.exact) == (36000, 35990, True)
    assert r50.bounds == (35990 / 36000,) * 2
    assert r50.estimate == r50.share
    assert "bucket edge" in r50.method
    r20 = latency_share(ws, rid, 20)
    assert r20.exact is False
    assert r20.share is None
    assert r20.under is None
    # 35970 I/Os are <= 15 ms; the 20 in (15 ms, 30 ms] may or may not be <= 20 ms
    assert r20.under_bounds == (35970, 35990)
    assert r20.bounds == (35970 / 36000, 35990 / 36000)
    # linear interpolation: a third of (15, 30] lies under 20 ms
    assert r20.estimate_under == pytest.approx(35970 + 20 / 3)
    assert "estimate" in r20.method
    assert "interpolation" in r20.method
    # reads only
    rr = latency_share(ws, rid, 20, op="read")
    assert (rr.ios, rr.under_bounds) == (24000, (23980, 23995))


def test_latency_share_as_dict_is_the_command_lines_json(ws, write):
    """The result is a type; its dict (the JSON of 'analyze latency --json') keeps every key, in this order."""
    rid = imported(ws, write("seed.csv", seed_collection()), interval_s=60).run_ids[0]
    r20 = latency_share(ws, rid, 20, percentiles=(50, 99.9))
    d = r20.as_dict()
    assert list(d) == ["run_id", "kind", "op", "threshold_ms", "devices", "samples", "ios", "under", "share", "exact",
                       "bounds", "under_bounds", "estimate", "estimate_under", "method", "percentiles_ms", "counts",
                       "source"]
    assert (d["under"], d["share"], d["exact"]) == (None, None, False)
    assert (d["bounds"], d["under_bounds"]) == ([35970 / 36000, 35990 / 36000], [35970, 35990])
    assert (d["estimate"], d["estimate_under"], d["method"]) == (r20.estimate, r20.estimate_under, r20.method)
    assert set(d["percentiles_ms"]) == {"p50", "p99_9"}
    p50 = r20.percentiles_ms["p50"]
    assert p50 is not None
    assert d["percentiles_ms"]["p50"] == {"bounds_ms": [p50.lo, p50.hi], "estimate_ms": p50.estimate,
                                          "exact": p50.exact}
    assert json.loads(json.dumps(d)) == d


def test_cli_latency_json_and_human_output_label_the_estimate(tmp_path, write):
    wsp = str(tmp_path / "w.duckdb")
    assert cli_main(["import", write("seed.csv", seed_collection()), "-w", wsp, "--interval", "60"]) == 0
    main = [sys.executable, str(ROOT / "main.py"), "analyze", "latency", "-w", wsp, "--run", "1"]
    j = json.loads(subprocess.run(main + ["--threshold-ms", "20", "--json"], capture_output=True, text=True,
                                  check=True).stdout)
    for key in ("ios", "under", "share", "exact", "bounds", "estimate", "threshold_ms", "method"):
        assert key in j
    assert j["threshold_ms"] == 20
    assert j["exact"] is False
    assert len(j["bounds"]) == 2
    human = subprocess.run(main + ["--threshold-ms", "20"], capture_output=True, text=True, check=True).stdout
    assert "between 99.92 % and 99.97 %" in human
    assert "ESTIMATE" in human
    assert "not a measurement" in human
    human = subprocess.run(main, capture_output=True, text=True, check=True).stdout
    assert "35,990 I/Os = 99.97 %  (exact)" in human
    assert "ESTIMATE" not in human.split("percentiles")[0]
    bad = subprocess.run(main[:-2] + ["--run", "99"], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "no run 99" in bad.stderr


def test_share_and_percentile_functions():
    buckets = [Bucket(None, 1, 0), Bucket(1, 10, 5), Bucket(10, 100, 10), Bucket(100, None, 5)]
    s = share_within(buckets, 10)
    assert s.exact
    assert s.share == 0.25
    assert s.edge
    s = share_within(buckets, 55)
    assert not s.exact
    assert s.bounds == (0.25, 0.75)
    assert s.estimate == pytest.approx(5 + 10 * 45 / 90)
    # an empty straddling bucket leaves the share exact
    s = share_within([Bucket(None, 1, 0), Bucket(1, 10, 0), Bucket(10, 100, 4)], 5)
    assert s.exact
    assert s.share == 0
    assert "no I/O" in s.method()
    # in the open-ended overflow bucket there is nothing to interpolate with ...
    s = share_within(buckets, 500)
    assert not s.exact
    assert s.estimate is None
    assert "open-ended" in s.method()
    # ... unless the largest value is known
    s = share_within(buckets, 500, vmin=2, vmax=300)
    assert s.exact
    assert s.share == 1.0
    s = share_within(buckets, 200, vmin=2, vmax=300)
    assert s.estimate == pytest.approx(15 + 5 * 100 / 200)
    p = percentile(buckets, 50)
    assert (p.lo, p.hi) == (10, 100)
    assert p.estimate == pytest.approx(10 + 90 * 5 / 10)
    assert not p.exact
    p = percentile(buckets, 90)
    assert (p.lo, p.hi, p.estimate) == (100, None, None)
    assert percentile([Bucket(None, 1, 0)], 50) is None


# ---- collections: several disks, appended samples, timestamps ---------------------------------------
def test_looped_collections_with_timestamps_and_two_disks(ws, write):
    text = ""
    for stamp in ["Tue Mar  3 10:00:00 UTC 2020", "Tue Mar  3 10:01:00 UTC 2020", "Tue Mar  3 10:02:00 UTC 2020"]:
        text += stamp + "\n" + seed_collection() + seed_collection("8195 (scsi0:1)")
    r = imported(ws, write("loop.csv", text))
    run = ws.run(r.run_ids[0])
    assert (run.n_samples, run.n_devices, run.interval_s, run.interval_source) == (3, 2, 60.0, "timestamps")
    assert str(run.started_at) == "2020-03-03 10:00:00"
    assert str(run.ended_at) == "2020-03-03 10:02:00"
    t = ws.con.execute("SELECT DISTINCT sample_idx, t_s, device FROM histograms ORDER BY ALL").fetchall()
    assert t == [(i, 60.0 * i, d) for i in range(3) for d in ("2099979:8194 (scsi0:0)", "2099979:8195 (scsi0:1)")]
    res = histo_summary(ws, r.run_ids[0], device="scsi0:1")
    assert [s["iops"] for s in res["samples"]] == [600.0] * 3
    res = latency_share(ws, r.run_ids[0], 50)
    assert (res.ios, res.samples, len(res.devices)) == (6 * 36000, 3, 2)


def test_appended_collections_without_separators_split_on_repeated_histograms(ws, write):
    r = imported(ws, write("loop.csv", seed_collection() * 4), interval_s=30)
    run = ws.run(r.run_ids[0])
    assert (run.n_samples, run.interval_source) == (4, "user")
    assert any("look cumulative" in w for w in r.warnings) is False


def test_cumulative_collections_are_flagged(ws, write):
    a = block(("latency_us", "all"), [0, 0, 5, 5, 0, 0, 0, 0, 0, 0, 0], LAT_LIMITS, (20, 400, 100, 10))
    b = block(("latency_us", "all"), [0, 0, 9, 7, 0, 0, 0, 0, 0, 0, 0], LAT_LIMITS, (20, 400, 100, 16))
    r = imported(ws, write("cum.csv", a + b), interval_s=60)
    assert any("look cumulative" in w for w in r.warnings)
    assert ws.run(r.run_ids[0]).meta.as_dict()["counts_look_cumulative"] is True


def cumulative_file(write, reset_before_third=False):
    """One VM disk, three 60 s collections never reset: 36,000 fast I/Os, then 7,000 and 7,000 slow (> 50 ms)
    ones. vscsiStats prints the running totals: 36,000, 43,000, 50,000."""
    own = [[0, 0, 36000, 0, 0, 0, 0, 0, 0, 0, 0], [0] * 9 + [7000, 0], [0] * 9 + [7000, 0]]
    lengths = [36000, 7000, 7000]
    text, acc, n, total_bytes = "", [0] * 11, 0, 0
    for i, (counts, k) in enumerate(zip(own, lengths)):
        if reset_before_third and i == 2:
            acc, n, total_bytes = [0] * 11, 0, 0
        acc = [a + c for a, c in zip(acc, counts)]
        n += k
        total_bytes += k * (65536 if i == 0 else 4096)
        mean_len = round(total_bytes / n)
        text += block(("io_length_bytes", "all"), [0] * 4 + [0] * 8 + [n] + [0] * 5 if i == 0 else
                      [0] * 4 + [n - 36000 if not (reset_before_third and i == 2) else n] + [0] * 7
                      + [36000 if not (reset_before_third and i == 2) else 0] + [0] * 5,
                      LEN_LIMITS, (4096 if i else 65536, 65536, mean_len, n))
        text += block(("latency_us", "all"), acc, LAT_LIMITS, (20, 90000 if i else 90, 1000, n))
    return write("cum3.csv", text)


def test_cumulative_collections_are_differenced_in_every_figure(ws, write):
    """The trap of vscsiStats runs never reset between collections: summing running totals counts the first minute
    three times (129,000 I/Os, 83.7 %)."""
    rid = imported(ws, cumulative_file(write), interval_s=60).run_ids[0]
    ls = latency_share(ws, rid, 50)
    assert (ls.ios, ls.under, ls.exact) == (50_000, 36_000, True)
    assert ls.share == pytest.approx(0.72)
    assert ls.counts.startswith("cumulative (detected")
    rows = histo_summary(ws, rid)["samples"]
    assert [r["ios"] for r in rows] == [36000, 7000, 7000]
    assert [r["iops"] for r in rows] == pytest.approx([600, 7000 / 60, 7000 / 60])
    # IO length: 36,000 x 64 KiB in the first minute, 7,000 x 4 KiB in each of the others; a later collection's
    # bytes come from the running means, which vscsiStats prints rounded to the byte: close, not exact (noted)
    assert rows[0]["kb_s"] == 38400
    assert [r["kb_s"] for r in rows[1:]] == pytest.approx([7000 * 4 / 60] * 2, rel=1e-3)
    assert [r["share_50ms"] for r in rows] == [1.0, 0.0, 0.0]
    assert any("cumulative" in n for n in histo_summary(ws, rid)["notes"])


def test_a_reset_inside_a_cumulative_run_starts_the_count_again(ws, write):
    """Counts that fall mean vscsiStats was reset: that collection stands as printed (no negative counts)."""
    rid = imported(ws, cumulative_file(write, reset_before_third=True), interval_s=60).run_ids[0]
    ws.set_histogram_counts(rid, "cumulative")  # detection says 'not cumulative' (a count falls); the user knows
    rows = histo_summary(ws, rid)["samples"]
    assert [r["ios"] for r in rows] == [36000, 7000, 7000]
    assert latency_share(ws, rid, 50).ios == 50_000


def test_the_user_says_how_the_collections_relate(ws, write, tmp_path):
    rid = imported(ws, cumulative_file(write), interval_s=60).run_ids[0]
    assert any("{fix:counts_per_collection}" in w for w in ws.run(rid).warnings)
    ws.set_histogram_counts(rid, "per-collection")
    ls = latency_share(ws, rid, 50)
    assert (ls.ios, ls.counts) == (129_000, "per-collection (set by the user)")
    assert not any("{fix:counts_per_collection}" in w for w in ws.run(rid).warnings)  # answered: no stale warning
    ws.set_histogram_counts(rid, "auto")
    assert latency_share(ws, rid, 50).ios == 50_000
    with pytest.raises(ValueError, match="cumulative, per-collection or auto, not 'sometimes'"):
        ws.set_histogram_counts(rid, "sometimes")


# ---- malformed histograms -------------------------------------------------------------------------
def test_counts_not_summing_to_count_is_an_error_with_its_line(ws, write):
    bad = block(("latency_us", "all"), [0, 0, 5, 5, 0, 0, 0, 0, 0, 0, 1], LAT_LIMITS, (20, 400, 100, 10))
    path = write("bad.csv", seed_collection() + bad)
    r = import_file(ws, path, ImportOptions())
    assert r.status == "failed"
    n_lines = (seed_collection() + bad).count("\n")
    assert r.error.startswith(f"{path}:{n_lines}: the buckets of histogram 'latency of IOs in Microseconds (us)'")
    assert "add up to 11, but its count (line" in r.error
    assert "is 10" in r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0


def test_missing_overflow_row_when_the_counts_add_up_is_a_warning(ws, write):
    ok = block(("latency_us", "all"), [0, 0, 5, 5, 0, 0, 0, 0, 0, 0], LAT_LIMITS, (20, 400, 100, 10), overflow=False)
    r = imported(ws, write("noov.csv", ok + "\n" + seed_collection()))
    assert any("has no overflow row" in w and "noov.csv:16:" in w for w in r.warnings)
    assert ws.con.execute("SELECT count(*) FROM histograms WHERE bucket_hi IS NULL AND device LIKE '%8194%' "
                          "AND sample_idx = 0 AND metric = 'latency_us' AND op = 'all'").fetchall() == [(0,)]


def test_missing_overflow_row_with_counts_missing_is_an_error(ws, write):
    bad = block(("latency_us", "all"), [0, 0, 5, 4, 0, 0, 0, 0, 0, 0], LAT_LIMITS, (20, 400, 100, 10), overflow=False)
    r = import_file(ws, write("noov.csv", bad + "\n" + seed_collection()), ImportOptions())
    assert r.status == "failed"
    assert "noov.csv:16:" in r.error
    assert "add up to 9" in r.error
    assert "no overflow row" in r.error


def test_truncated_block_mid_file_is_an_error(ws, write):
    cut = "\n".join(seed_collection().splitlines()[:40]) + "\n"
    text = cut + "\n" + seed_collection()
    r = import_file(ws, write("cut.csv", text), ImportOptions())
    assert r.status == "failed"
    assert "cut.csv:" in r.error
    assert "add up to" in r.error


def test_truncated_last_collection_is_dropped_with_a_warning(ws, write):
    full = seed_collection()
    cut = "\n".join(full.splitlines()[:40])  # the file ends inside the 2nd collection's 2nd histogram
    r = imported(ws, write("cut.csv", full + cut), interval_s=60)
    assert ws.run(r.run_ids[0]).n_samples == 1
    assert any(w.startswith("cut.csv:") and "ends inside a histogram" in w for w in r.warnings)


def test_truncated_first_collection_is_an_error(ws, write):
    cut = "\n".join(seed_collection().splitlines()[:30])
    r = import_file(ws, write("cut.csv", cut), ImportOptions())
    assert r.status == "failed"
    assert "no complete collection" in r.error


def test_limits_that_go_down_are_an_error(ws, write):
    lims = [1, 10, 100, 50, 1000, 5000, 15000, 30000, 50000, 100000]
    bad = block(("latency_us", "all"), [0, 0, 5, 5, 0, 0, 0, 0, 0, 0, 0], lims, (20, 400, 100, 10))
    r = import_file(ws, write("down.csv", bad), ImportOptions())
    assert r.status == "failed"
    assert "down.csv:10: bucket limits must increase: 50 after 100" in r.error


def test_unexpected_text_inside_a_block_is_an_error(ws, write):
    lines = seed_collection().splitlines()
    lines.insert(8, "garbage")
    r = import_file(ws, write("junk.csv", "\n".join(lines)), ImportOptions())
    assert r.status == "failed"
    assert "junk.csv:9: unexpected text 'garbage'" in r.error


def test_harmless_oddities_are_warnings(ws, write):
    odd = block(("latency_us", "all"), [0] * 11, LAT_LIMITS, (0, 0, 0, 0)).replace(
        "latency of IOs in Microseconds (us)", "some future histogram")
    text = "collected by loop.sh\n" + seed_collection().replace("\n", "\r\n") + odd
    r = imported(ws, write("odd.csv", text), interval_s=60)
    assert any("odd.csv:1: text outside any histogram ignored" in w for w in r.warnings)
    assert any("histogram type not recognised, skipped: 'some future histogram'" in w for w in r.warnings)


def test_text_layout_is_recognised_and_refused(ws, write):
    text = ("Histogram: IO lengths of commands for virtual machine worldGroupID : 12345, virtual disk "
            "handleID : 8193 (scsi0:0) {\n min : 512\n")
    path = write("text.txt", text)
    with pytest.raises(UnknownFormat, match="text layout"):
        detect(path)
    r = import_file(ws, path, ImportOptions())
    assert r.status == "failed"
    assert "-c" in r.error
    assert "not supported" in r.error
    r = import_file(ws, path, ImportOptions(), fmt_id="vscsistats-text")  # forced: the line is named
    assert r.status == "failed"
    assert "text.txt:1: vscsiStats text layout" in r.error


def test_the_extension_does_not_matter(write):
    for name in ("a.txt", "a.json", "noext"):
        assert detect(write(name, seed_collection())).id == "vscsistats-csv"


# ---- fio --------------------------------------------------------------------------------------------
def test_bin_range_follows_fio_grid():
    assert bin_range(0) == (0, 1)
    assert bin_range(127) == (127, 128)
    assert bin_range(2008) == (2000, 2016)  # width 16 between 1024 and 2047
    assert bin_range(85504) == (84992, 86016)
    assert bin_range(2009) is None


FIO_DOC = {
    "fio version": "fio-3.33", "time": "Sun Nov 22 02:20:21 2026", "timestamp": 1795314021,
    "global options": {"rw": "randrw", "bs": "4k", "iodepth": "8"},
    "jobs": [
        {"jobname": "rr", "groupid": 0, "error": 0, "elapsed": 21, "job options": {"numjobs": "2"},
         "read": {"io_bytes": 4096 * 3, "io_kbytes": 12, "bw": 1, "iops": 0.15, "runtime": 20000, "total_ios": 3,
                  "clat_ns": {"min": 90000, "max": 60000000, "mean": 20030000.0, "N": 3,
                              "percentile": {"50.000000": 90624},
                              "bins": {"90624": 2, "60030976": 1}},
                  "lat_ns": {"min": 91000, "max": 60001000, "mean": 20031000.0}},
         "write": {"io_bytes": 0, "io_kbytes": 0, "bw": 0, "iops": 0.0, "runtime": 0, "total_ios": 0}},
    ],
}


def test_fio_json_plus_with_messages_before_it_and_clones_of_one_job(ws, write):
    doc = json.loads(json.dumps(FIO_DOC))
    doc["jobs"].append(json.loads(json.dumps(doc["jobs"][0])))
    text = "note: both iodepth >= 1 and synchronous I/O engine are selected\n" + json.dumps(doc, indent=2)
    path = write("fio.out", text)
    assert detect(path).id == "fio-json"
    r = imported(ws, path)
    assert any(w == "fio.out:1: 1 line of fio messages before the JSON ignored" for w in r.warnings)
    devs = ws.con.execute("SELECT DISTINCT device FROM fio_jobs ORDER BY 1").fetchall()
    assert devs == [("rr #0",), ("rr #1",)]
    row = ws.con.execute("SELECT op, ios, rw, bs, iodepth, numjobs, lat_mean_us, p50_us FROM fio_jobs "
                         "WHERE device = 'rr #0'").fetchall()
    assert row == [("read", 3, "randrw", "4k", "8", "2", 20031.0, 90.624)]
    res = latency_share(ws, r.run_ids[0], 50)
    # 2 of 3 I/Os per job around 90 µs, 1 at about 60 ms: exactly 4 of 6 within 50 ms
    assert (res.ios, res.under, res.exact) == (6, 4, True)


def test_fio_without_bins_has_no_histogram_to_analyse(ws, write):
    doc = json.loads(json.dumps(FIO_DOC))
    del doc["jobs"][0]["read"]["clat_ns"]["bins"]
    rid = imported(ws, write("plain.json", json.dumps(doc))).run_ids[0]
    from app.analysis.histograms import AnalysisError

    with pytest.raises(AnalysisError, match="json\\+"):
        latency_share(ws, rid, 50)


def test_fio_cut_off_json_is_an_error_with_its_line(ws, write):
    text = json.dumps(FIO_DOC, indent=2)
    path = write("cut.json", text[: len(text) // 2])
    r = import_file(ws, path, ImportOptions())
    assert r.status == "failed"
    assert "invalid JSON" in r.error
    assert r.error.startswith(f"{path}:")


def test_fio_client_server_output_keeps_hosts_apart_and_skips_the_sum(ws, write):
    job = json.loads(json.dumps(FIO_DOC["jobs"][0]))
    doc = {"fio version": "fio-3.33", "client_stats": [
        {**job, "hostname": "h1"}, {**job, "hostname": "h2"}, {**job, "jobname": "All clients"}]}
    r = imported(ws, write("cs.json", json.dumps(doc)))
    assert ws.con.execute("SELECT device FROM fio_jobs ORDER BY 1").fetchall() == [("h1: rr",), ("h2: rr",)]
    assert "client_aggregate" in ws.run(r.run_ids[0]).meta.as_dict()


def test_a_file_cut_between_two_blocks_leaves_the_incomplete_part_out(ws, write):
    """Cut after a complete block: a half-printed all/read/write triple, or a last collection missing
    histograms the one before has, is left out with a warning instead of shown without its reads or writes."""
    one = seed_collection()
    cut = one[: one.index("Histogram: latency of Read IOs")]  # latency 'all' printed, read and write not
    r = imported(ws, write("cut1.csv", cut), interval_s=60)
    assert any("1 of the 3 'latency_us' histograms" in w for w in r.warnings)
    assert ws.con.execute("SELECT count(*) FROM histograms WHERE metric = 'latency_us'").fetchall() == [(0,)]
    r = imported(ws, write("cut2.csv", one + one[: one.index("Histogram: latency of IOs")]), interval_s=60)
    assert any("the last collection has 3 of the 6 histograms" in w for w in r.warnings)
    assert ws.run(r.run_ids[0]).n_samples == 1
