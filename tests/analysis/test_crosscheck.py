"""crosscheck / find_pairs on real pairs captured at the same time (tests/corpus/crosscheck, see MANIFEST.md):
iostat -xt -y 1 watching the disk while a rate-limited fio job ran on a file on it.

Every figure is checked against a naive read of the raw files (the fio JSON with json, the iostat text line by
line by column name), never against the analysis itself."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from app.analysis.crosscheck import crosscheck, find_pairs
from app.analysis.histograms import AnalysisError
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS

CC = CORPUS / "crosscheck"
PAIRS = {  # name: (fio file, iostat file, disk)
    "loop0_randread-direct": ("loop0_randread-direct_fio.json", "loop0_randread-direct_iostat.txt", "loop0"),
    "loop0_write-buffered": ("loop0_write-buffered_fio.json", "loop0_write-buffered_iostat.txt", "loop0"),
    "vda_randread-direct": ("vda_randread-direct_fio.json", "vda_randread-direct_iostat.txt", "vda"),
    "vda_write-buffered": ("vda_write-buffered_fio.json", "vda_write-buffered_iostat.txt", "vda"),
}


# ---- the independent reading ---------------------------------------------------------------------------
def raw_fio(name: str) -> dict:
    """fio's figures and its job window (local clock) straight from the JSON."""
    doc = json.loads((CC / PAIRS[name][0]).read_text())
    (job,) = doc["jobs"]
    utc = datetime(1970, 1, 1) + timedelta(milliseconds=doc["timestamp_ms"])
    local = datetime.strptime(doc["time"], "%a %b %d %H:%M:%S %Y")
    offset = timedelta(minutes=round((local - utc).total_seconds() / 60))
    end = utc + offset
    return {"start": end - timedelta(milliseconds=job["job_runtime"]), "end": end, "doc": doc, "job": job,
            "read_iops": job["read"]["iops"], "read_kbs": job["read"]["bw"], "write_iops": job["write"]["iops"],
            "write_kbs": job["write"]["bw"]}


def raw_iostat(name: str) -> list[dict]:
    """Per report: its printed time and the disk's row as {column: value} (by header name)."""
    disk = PAIRS[name][2]
    out, t, header = [], None, None
    for line in (CC / PAIRS[name][1]).read_text().splitlines():
        f = line.split()
        if len(f) == 2 and f[0].count("/") == 2:
            t = datetime.strptime(line.strip(), "%m/%d/%y %H:%M:%S")
        elif f and f[0] == "Device":
            header = f
        elif f and f[0] == disk and header:
            out.append({"t": t, **{h: float(v) for h, v in zip(header[1:], f[1:])}})
    return out


def naive_means(name: str) -> tuple[dict, int]:
    """Means of the iostat columns over the 1 s intervals surely inside fio's window (t - 1 >= start and
    t + 1 <= end: iostat prints whole seconds), and how many there are."""
    w = raw_fio(name)
    rows = [r for r in raw_iostat(name) if r["t"] - timedelta(seconds=1) >= w["start"]
            and r["t"] + timedelta(seconds=1) <= w["end"]]
    cols = ["r/s", "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s"]
    return {c: sum(r[c] for r in rows) / len(rows) for c in cols}, len(rows)


@pytest.fixture
def runs(ws):
    ids = {}
    for name, (fio, io, _disk) in PAIRS.items():
        got = []
        for f in (fio, io):
            r = import_file(ws, str(CC / f), ImportOptions())
            assert r.status == "imported", r.error
            got += r.run_ids
        ids[name] = tuple(got)
    return ws, ids


# ---- the fio parser keeps what places a job in time ---------------------------------------------------------
def test_fio_import_keeps_report_time_runtime_and_options(ws):
    r = import_file(ws, str(CC / "loop0_randread-direct_fio.json"), ImportOptions())
    meta = ws.run(r.run_ids[0]).meta.as_dict()["job_times"]
    raw = raw_fio("loop0_randread-direct")
    assert meta["report_timestamp_ms"] == raw["doc"]["timestamp_ms"]
    assert meta["utc_offset_s"] == 0  # captured on a UTC machine: 'time' is 'timestamp'
    (job,) = meta["jobs"]
    assert job["job_runtime_ms"] == raw["job"]["job_runtime"] == 30000
    assert job["elapsed_s"] == raw["job"]["elapsed"]
    assert (job["direct"], job["filename"]) == ("1", "/mnt/v2loop/data.bin")


def test_fio_import_keeps_job_start_where_fio_prints_it(ws):
    path = CORPUS / "fio" / "BlizzardDiskMark_fio-3.39-jsonplus-macos.json"
    doc = json.loads(path.read_text()[path.read_text().index("{"):])
    r = import_file(ws, str(path), ImportOptions())
    meta = ws.run(r.run_ids[0]).meta.as_dict()["job_times"]
    (job,) = meta["jobs"]
    assert job["job_start_ms"] == doc["jobs"][0]["job_start"]
    assert job["job_runtime_ms"] == doc["jobs"][0]["job_runtime"]
    # 'time' is local (CET), 'timestamp' UTC: one hour apart
    assert meta["utc_offset_s"] == 3600


# ---- pairs ------------------------------------------------------------------------------------------------
def test_find_pairs_pairs_each_fio_run_with_its_own_iostat_run(runs):
    ws, ids = runs
    every = [i for pair in ids.values() for i in pair]
    assert sorted(find_pairs(ws, every)) == sorted(ids.values())
    # a fio run on loop0 and iostat watching vda at another time do not pair
    fio_loop, _ = ids["loop0_randread-direct"]
    _, io_vda = ids["vda_randread-direct"]
    assert crosscheck(ws, fio_loop, io_vda) is None


def test_direct_reads_on_an_idle_disk_agree(runs):
    ws, ids = runs
    name = "loop0_randread-direct"
    cc = crosscheck(ws, *ids[name])
    raw, n = naive_means(name)
    fio = raw_fio(name)
    assert cc.disk == "loop0"
    assert cc.intervals_used == n >= 25
    assert cc.window_start == fio["start"].isoformat(timespec="milliseconds")
    m = cc.measure("read_iops")
    assert m.fio == fio["read_iops"]
    assert m.iostat == pytest.approx(raw["r/s"])
    assert m.ratio == pytest.approx(raw["r/s"] / fio["read_iops"])
    k = cc.measure("read_kbs")
    assert k.iostat == pytest.approx(raw["rkB/s"])
    assert k.fio == fio["read_kbs"]
    assert abs(raw["r/s"] / fio["read_iops"] - 1) <= 0.10
    assert abs(raw["rkB/s"] / fio["read_kbs"] - 1) <= 0.10
    assert cc.verdict == "agree"
    assert m.agree
    assert k.agree
    assert "agree on loop0" in cc.summary
    assert not any("buffered" in r for r in cc.reasons)


def test_buffered_writes_disagree_and_say_why(runs):
    ws, ids = runs
    name = "loop0_write-buffered"
    cc = crosscheck(ws, *ids[name])
    raw, n = naive_means(name)
    fio = raw_fio(name)
    m = cc.measure("write_iops")
    assert cc.intervals_used == n
    assert m.fio == fio["write_iops"]
    assert m.iostat == pytest.approx(raw["w/s"])
    assert abs(raw["w/s"] / fio["write_iops"] - 1) > 0.10  # the raw files disagree
    assert cc.verdict == "disagree"
    assert m.agree is False
    assert any("buffered I/O (direct=0)" in r and "page cache" in r for r in cc.reasons)


def test_other_processes_on_a_shared_disk(runs):
    """vda is the machine's root disk: other processes wrote to it while fio only read."""
    ws, ids = runs
    name = "vda_randread-direct"
    cc = crosscheck(ws, *ids[name])
    raw, _n = naive_means(name)
    fio = raw_fio(name)
    assert fio["write_iops"] == 0
    assert raw["w/s"] > 0
    assert cc.measure("write_iops").iostat == pytest.approx(raw["w/s"])
    assert cc.measure("total_iops").iostat == pytest.approx(raw["r/s"] + raw["w/s"])
    assert cc.measure("total_iops").ratio == pytest.approx((raw["r/s"] + raw["w/s"]) / fio["read_iops"])
    assert any("iostat counts every I/O of the device" in r and "writes/s" in r for r in cc.reasons)
    # the verdict follows the tolerance: read kB/s is off by the ratio the raw files give
    worst = max(abs(raw["r/s"] / fio["read_iops"] - 1), abs(raw["rkB/s"] / fio["read_kbs"] - 1))
    assert crosscheck(ws, *ids[name], tolerance=worst + 0.01).verdict == "agree"
    assert crosscheck(ws, *ids[name], tolerance=worst - 0.01).verdict == "disagree"


def test_merges_are_named_when_iostat_counted_merged_writes(runs):
    ws, ids = runs
    name = "vda_write-buffered"
    cc = crosscheck(ws, *ids[name])
    raw, _n = naive_means(name)
    assert raw["wrqm/s"] > 0
    (merge,) = [r for r in cc.reasons if "merged" in r]
    assert f"{raw['wrqm/s']:,.1f} write requests/s (wrqm/s)" in merge


def test_wrong_kinds_raise(runs):
    ws, ids = runs
    fio, io = ids["loop0_randread-direct"]
    with pytest.raises(AnalysisError, match="holds iostat data; this side of the cross-check takes a run of DiskSpd"):
        crosscheck(ws, io, io)
    with pytest.raises(AnalysisError, match="holds fio data; this side of the cross-check takes a run of .*iostat"):
        crosscheck(ws, fio, fio)
    assert crosscheck(ws, fio, io).as_dict()["verdict"] == "agree"


def test_a_clock_offset_is_applied_to_both_sides(runs):
    """The cross-check places fio's window and iostat's reports on the corrected clocks (app.store.clock): an
    iostat run whose clock is put 10 minutes off no longer overlaps the job; the fio run put 10 minutes off the same
    way pairs again, with the same figures (it compared the files' clocks before, whatever the offsets said)."""
    from app.store.clock import set_offset

    ws, ids = runs
    name = "loop0_randread-direct"
    fio, io = ids[name]
    before = crosscheck(ws, fio, io).as_dict()
    set_offset(ws, io, 600.0)
    assert crosscheck(ws, fio, io) is None
    assert (fio, io) not in find_pairs(ws, [fio, io])
    set_offset(ws, fio, 600.0)
    after = crosscheck(ws, fio, io).as_dict()
    assert (fio, io) in find_pairs(ws, [fio, io])
    assert after["measures"] == before["measures"]
    assert after["intervals_used"] == before["intervals_used"]
