"""vm_timeline: vscsiStats per VM disk over time, alone vs together.

No public vscsiStats capture of two VMs exists in the corpus (tests/corpus/vscsistats holds one VM disk,
one collection). The two-VM file here is SYNTHETIC, written by :func:`two_vm_file` in vscsiStats' ``-c``
layout, with the figures of the field report the scenario comes from (one VM doing 36,000 sequential
64 KB I/Os per 60 s collection, 7,000 once a second VM starts on the same RAID set). Every figure the
analysis gives is checked against a naive read of the raw text (:func:`naive_read`), never against the
analysis itself; the real corpus file is checked the same way.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from app.analysis.histograms import AnalysisError
from app.analysis.vm_timeline import vm_disk_words, vm_timeline
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS

LAT = [1, 10, 100, 500, 1000, 5000, 15000, 30000, 50000, 100000]
LEN = [512, 1024, 2048, 4095, 4096, 8191, 8192, 16383, 16384, 32768, 49152, 65535, 65536, 81920, 131072, 262144,
       524288]
TITLE = {("len", "all"): "IO lengths of commands", ("len", "read"): "IO lengths of Read commands",
         ("len", "write"): "IO lengths of Write commands", ("lat", "all"): "latency of IOs in Microseconds (us)",
         ("lat", "read"): "latency of Read IOs in Microseconds (us)",
         ("lat", "write"): "latency of Write IOs in Microseconds (us)"}
VM1, VM2 = ("2099979", "8194 (scsi0:0)"), ("2099980", "8195 (scsi0:1)")
START = datetime(2009, 3, 10, 10, 0, 0)


def _len_counts(by_len: dict[int, int]) -> list[int]:
    """Bucket counts (overflow last) of IO lengths given as {length: count}."""
    out = [0] * (len(LEN) + 1)
    for length, c in by_len.items():
        i = next((k for k, lim in enumerate(LEN) if length <= lim), len(LEN))
        out[i] += c
    return out


def _workload(vm: tuple[str, str], k: int) -> dict[str, tuple[dict[int, int], list[int]]]:
    """op -> ({IO length: count}, latency bucket counts) of one VM disk in collection k (0..13).

    VM1: sequential 64 KB reads; 36,000 per collection alone (0-5), 7,000 while VM2 runs (6-10), stopped (11-13).
    VM2: random 4 KB + 32 KB, 2/3 reads; idle (0-5), 9,000 with VM1 (6-10), 10,200 alone (11-13).
    """
    if vm == VM1:
        if k <= 5:
            return {"read": ({65536: 36000}, [0, 0, 0, 0, 30000, 5000, 1000, 0, 0, 0, 0]), "write": ({}, [0] * 11)}
        if k <= 10:
            return {"read": ({65536: 7000}, [0, 0, 0, 0, 0, 0, 1000, 3000, 2500, 500, 0]), "write": ({}, [0] * 11)}
        return {"read": ({}, [0] * 11), "write": ({}, [0] * 11)}
    if k <= 5:
        return {"read": ({}, [0] * 11), "write": ({}, [0] * 11)}
    if k <= 10:
        return {"read": ({4096: 5400, 32768: 600}, [0, 0, 0, 0, 0, 400, 1600, 2000, 1500, 450, 50]),
                "write": ({4096: 2600, 32768: 400}, [0, 0, 0, 0, 0, 1000, 1200, 500, 250, 50, 0])}
    return {"read": ({4096: 6120, 32768: 680}, [0, 0, 0, 0, 0, 3000, 3000, 600, 200, 0, 0]),
            "write": ({4096: 2890, 32768: 510}, [0, 0, 0, 0, 0, 2400, 900, 100, 0, 0, 0])}


def _block(kind: tuple[str, str], vm: tuple[str, str], counts: list[int], mn: int, mx: int, mean: int) -> str:
    limits = (LEN if kind[0] == "len" else LAT)
    rows = [f"{c},{lim}" for c, lim in zip(counts, [*limits, limits[-1]])]
    return "\n".join([f"Histogram: {TITLE[kind]},virtual machine worldGroupID,{vm[0]},virtual disk handleID,{vm[1]}",
                      f"min,{mn}", f"max,{mx}", f"mean,{mean}", f"count,{sum(counts)}",
                      "Frequency,Histogram Bucket Limit", *rows]) + "\n"


def _lat_stats(counts: list[int]) -> tuple[int, int, int]:
    """min/max/mean for latency counts: the values are taken at bucket tops (the overflow at 120 ms)."""
    tops = [*LAT, 120000]
    vals = [(t, c) for t, c in zip(tops, counts) if c]
    if not vals:
        return 0, 0, 0
    n = sum(c for _t, c in vals)
    return vals[0][0], vals[-1][0], round(sum(t * c for t, c in vals) / n)


def _collection(k: int, cumulative: bool) -> str:
    text = ""
    for vm in (VM1, VM2):
        ks = range(k + 1) if cumulative else [k]
        per = {op: (_sum_len([_workload(vm, j)[op][0] for j in ks]),
                    [sum(x) for x in zip(*[_workload(vm, j)[op][1] for j in ks])]) for op in ("read", "write")}
        per["all"] = (_sum_len([per["read"][0], per["write"][0]]), [a + b for a, b in zip(per["read"][1],
                                                                                         per["write"][1])])
        for op in ("all", "read", "write"):
            lens, lat = per[op]
            n = sum(lens.values())
            mean = round(sum(size * c for size, c in lens.items()) / n) if n else 0
            text += _block(("len", op), vm, _len_counts(lens), min(lens, default=0), max(lens, default=0), mean)
        for op in ("all", "read", "write"):
            text += _block(("lat", op), vm, per[op][1], *_lat_stats(per[op][1]))
    return text


def _sum_len(parts: list[dict[int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for p in parts:
        for size, c in p.items():
            out[size] = out.get(size, 0) + c
    return out


def two_vm_file(stamps: bool = True, cumulative: bool = False, gaps: list[int] | None = None) -> str:
    """14 collections; a `date` line before each when ``stamps`` (60 s apart, or ``gaps`` seconds)."""
    out, t = [], START
    for k in range(14):
        if stamps:
            out.append(t.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n")
            t += timedelta(seconds=(gaps[k] if gaps else 60))
        out.append(_collection(k, cumulative))
    return "".join(out)


# ---- the independent reading -----------------------------------------------------------------------------
def naive_read(text: str) -> list[dict[tuple[str, str], dict[str, list[int]]]]:
    """Per collection: (worldGroupID, metric/op) -> bucket counts, reading the CSV line by line.

    A collection ends where the first histogram of the file comes round again."""
    collections: list[dict] = []
    cur: dict | None = None
    key = None
    first_title = None
    for line in text.splitlines():
        if line.startswith("Histogram:"):
            f = line.split(",")
            title, wgid = f[0][len("Histogram: "):], f[2]
            if first_title is None:
                first_title = (title, wgid)
            if (title, wgid) == first_title:
                cur = {}
                collections.append(cur)
            key = (wgid, title)
            cur[key] = {"counts": [], "stats": {}}
        elif key and re.fullmatch(r"(min|max|mean|count),-?\d+", line):
            name, v = line.split(",")
            cur[key]["stats"][name] = int(v)
        elif key and re.fullmatch(r"\d+,-?\d+", line):
            c, lim = map(int, line.split(","))
            cur[key]["counts"].append((c, lim))
    return collections


def own_counts(cols: list[dict], cumulative: bool) -> list[dict]:
    """Each collection's own bucket counts (the running totals minus the previous collection's)."""
    if not cumulative:
        return cols
    out, prev = [], {}
    for c in cols:
        out.append({k: {"counts": [(n - prev.get(k, {}).get(i, 0), lim) for i, (n, lim) in enumerate(v["counts"])],
                        "stats": v["stats"]} for k, v in c.items()})
        prev = {k: {i: n for i, (n, _lim) in enumerate(v["counts"])} for k, v in c.items()}
    return out


def ios(col: dict, wgid: str, title: str = "IO lengths of commands") -> int:
    return sum(n for n, _lim in col[(wgid, title)]["counts"])


def within(col: dict, wgid: str, ms: float) -> tuple[int, int, int]:
    """(I/Os certainly <= ms, I/Os possibly <= ms, all I/Os) from the latency buckets (max/min ignored)."""
    rows = col[(wgid, "latency of IOs in Microseconds (us)")]["counts"]
    lims = [lim for _n, lim in rows]
    lo = hi = 0
    prev = None
    for i, (n, lim) in enumerate(rows):
        top = None if i == len(rows) - 1 and lims.count(lim) == 2 else lim
        if top is not None and top <= ms * 1000:
            lo += n
            hi += n
        elif prev is None or prev < ms * 1000:
            hi += n
        prev = lim
    return lo, hi, sum(n for n, _lim in rows)


# ---- fixtures ----------------------------------------------------------------------------------------
def _import(ws, path, **opts):
    r = import_file(ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r.run_ids[0]


@pytest.fixture
def two_vm(ws, tmp_path):
    text = two_vm_file()
    p = tmp_path / "two_vms.csv"
    p.write_text(text)
    return ws, _import(ws, p), text


# ---- the story: 600 -> 117 IOPS ----------------------------------------------------------------------
def test_vm1_runs_600_iops_alone_and_117_once_vm2_starts(two_vm):
    ws, run_id, text = two_vm
    cols = naive_read(text)
    assert len(cols) == 14
    # the naive reading: I/Os of VM1 per 60 s collection
    alone = [ios(c, VM1[0]) / 60 for c in cols[:6]]
    together = [ios(c, VM1[0]) / 60 for c in cols[6:11]]
    assert alone == [600.0] * 6
    assert [round(v) for v in together] == [117] * 5

    tl = vm_timeline(ws, run_id)
    assert tl.times_known
    assert tl.interval_s == 60
    assert tl.interval_source == "timestamps"
    d1 = tl.disk(VM1[0])
    assert d1.label == "VM 2099979, disk scsi0:0"
    for c, raw in zip(d1.collections, cols, strict=True):
        assert c.ios == ios(raw, VM1[0])
        assert c.iops == pytest.approx(ios(raw, VM1[0]) / 60, rel=1e-12)
        assert c.length_s == 60
        assert c.t_start_min == c.sample_idx
        assert c.t_end_min == c.sample_idx + 1
    assert [c.active for c in d1.collections] == [True] * 11 + [False] * 3
    assert [(p.first, p.last, p.others) for p in d1.phases] == [(0, 5, []), (6, 10, ["2099980:8195 (scsi0:1)"])]
    assert d1.phases[0].iops == 600.0
    assert d1.phases[1].iops == pytest.approx(7000 / 60)
    assert d1.mean_iops_active == pytest.approx((6 * 36000 + 5 * 7000) / (11 * 60))

    d2 = tl.disk(VM2[0])
    assert [(p.first, p.last, bool(p.others)) for p in d2.phases] == [(6, 10, True), (11, 13, False)]
    assert d2.phases[0].iops == pytest.approx(sum(ios(c, VM2[0]) for c in cols[6:11]) / 300)

    story = " ".join(tl.story)
    assert ("VM 2099979, disk scsi0:0 ran at 600 IOPS alone (minutes 0–6), then 116.7 IOPS while VM 2099980, "
            "disk scsi0:1 was active (minutes 6–11).") in story
    assert "fell from 600 to 116.7 IOPS (-81 %)" in story
    assert "VM 2099980, disk scsi0:1 ran at 150 IOPS while VM 2099979, disk scsi0:0 was active (minutes 6–11), " \
           "then 170 IOPS alone (minutes 11–14)." in story
    # together they did (7,000 + 9,000) / 60 = 267 IOPS, fewer than VM1 alone
    assert "they did 266.7 IOPS together, fewer than VM 2099979, disk scsi0:0 alone (600 IOPS)" in story
    assert tl.as_dict()["disks"][0]["phases"][0]["alone"] is True


def test_reads_writes_and_mb_s_exact_or_bounded(two_vm):
    ws, run_id, text = two_vm
    cols = naive_read(text)
    tl = vm_timeline(ws, run_id)
    c1 = tl.disk(VM1[0]).collections[0]
    # VM1: every I/O is 65,536 bytes, in the single-length bucket (65535, 65536]: exact
    assert c1.mb_s.exact
    assert c1.mb_s.value == 36000 * 65536 / 60 / 1048576 == 37.5
    assert (c1.read_iops, c1.write_iops) == (600.0, 0.0)
    # VM2: the 32 KB I/Os lie in (16384, 32768]: only bounds, the estimate from the file's mean
    c2 = tl.disk(VM2[0]).collections[6]
    raw = cols[6][(VM2[0], "IO lengths of commands")]
    rows = raw["counts"]
    lims = [None, *[lim for _n, lim in rows[:-1]]]
    lo = sum(n * (max(prev + 1, 4096) if prev is not None else 4096) for (n, _lim), prev in zip(rows, lims) if n)
    hi = sum(n * min(lim, 32768) for n, lim in rows if n)
    assert not c2.mb_s.exact
    assert c2.mb_s.value is None
    assert c2.mb_s.lo == pytest.approx(lo / 60 / 1048576)
    assert c2.mb_s.hi == pytest.approx(hi / 60 / 1048576)
    # the printed mean is rounded to a whole byte: mean x count may overshoot the upper bound, where it is kept
    est = min(raw["stats"]["mean"] * raw["stats"]["count"], hi) / 60 / 1048576
    assert c2.mb_s.estimate == pytest.approx(est)
    assert "estimate" in c2.mb_s.basis
    assert c2.read_ios == ios(cols[6], VM2[0], "IO lengths of Read commands") == 6000
    assert c2.write_iops == ios(cols[6], VM2[0], "IO lengths of Write commands") / 60 == 50.0
    assert any("MB/s" in n and "estimate" in n for n in tl.notes)


def test_share_within_50ms_is_exact_and_20ms_bounded(two_vm):
    ws, run_id, text = two_vm
    cols = naive_read(text)
    tl = vm_timeline(ws, run_id)
    d1 = tl.disk(VM1[0])
    assert len(d1.collections) == len(cols) == 14
    for c, raw in zip(d1.collections[:11], cols[:11], strict=True):  # the 11 collections with I/O
        lo, hi, n = within(raw, VM1[0], 50)
        assert lo == hi
        assert c.share.exact
        assert c.share.value == lo / n
    assert d1.collections[6].share.value == 6500 / 7000
    # the whole run: all of VM1's I/O summed
    lo = sum(within(c, VM1[0], 50)[0] for c in cols)
    n = sum(within(c, VM1[0], 50)[2] for c in cols)
    assert d1.share_run.exact
    assert d1.share_run.value == lo / n
    # alone 100 %, together 92.86 %: in the story
    assert "alone it had 100.00 % of I/O within 50 ms, together 92.86 % of I/O within 50 ms" in " ".join(tl.story)

    tl20 = vm_timeline(ws, run_id, threshold_ms=20)
    c = tl20.disk(VM1[0]).collections[6]
    lo, hi, n = within(cols[6], VM1[0], 20)
    assert (lo, hi) == (1000, 4000)
    assert not c.share.exact
    assert c.share.value is None
    assert (c.share.lo, c.share.hi) == (lo / n, hi / n)
    assert c.share.estimate == pytest.approx((1000 + 3000 * (20000 - 15000) / 15000) / 7000)
    assert "bounds" in c.share.basis
    assert "estimate" in c.share.basis
    assert "between 14.29 % and 57.14 % (estimate 28.57 %)" in " ".join(tl20.story)


def test_cumulative_file_gives_the_same_figures(ws, tmp_path):
    text = two_vm_file(cumulative=True)
    p = tmp_path / "cumulative.csv"
    p.write_text(text)
    run_id = _import(ws, p)
    cols = own_counts(naive_read(text), cumulative=True)
    tl = vm_timeline(ws, run_id)
    assert tl.counts == "cumulative"
    d1 = tl.disk(VM1[0])
    assert [c.ios for c in d1.collections] == [ios(c, VM1[0]) for c in cols] == [36000] * 6 + [7000] * 5 + [0] * 3
    assert d1.phases[1].iops == pytest.approx(7000 / 60)
    assert d1.collections[6].share.value == 6500 / 7000


def test_timestamps_set_each_collections_length(ws, tmp_path):
    gaps = [60] * 6 + [120] + [60] * 7  # collection 6 lasted two minutes
    text = two_vm_file(gaps=gaps)
    p = tmp_path / "gaps.csv"
    p.write_text(text)
    tl = vm_timeline(ws, _import(ws, p))
    c = tl.disk(VM1[0]).collections[6]
    assert (c.t_start_min, c.t_end_min, c.length_s) == (6, 8, 120)
    assert c.iops == pytest.approx(ios(naive_read(text)[6], VM1[0]) / 120)
    assert tl.disk(VM1[0]).collections[7].t_start_min == 8


def test_without_interval_no_minutes_then_set_interval(ws, tmp_path):
    text = two_vm_file(stamps=False)
    p = tmp_path / "nostamps.csv"
    p.write_text(text)
    run_id = _import(ws, p)
    tl = vm_timeline(ws, run_id)
    assert not tl.times_known
    d1 = tl.disk(VM1[0])
    assert all(c.t_start_min is None and c.iops is None and c.mb_s is None for c in d1.collections)
    assert d1.collections[0].ios == 36000
    story = " ".join(tl.story)
    assert "not IOPS" in story
    assert "minutes" not in story
    assert ("VM 2099979, disk scsi0:0 did 36,000 I/Os per collection alone (collections 1–6), then 7,000 I/Os per "
            "collection while VM 2099980, disk scsi0:1 was active (collections 7–11).") in story
    assert any("Set interval" in n for n in tl.notes)
    ws.set_interval(run_id, 60)
    tl = vm_timeline(ws, run_id)
    assert tl.times_known
    assert tl.disk(VM1[0]).phases[0].iops == 600.0
    assert tl.disk(VM1[0]).collections[13].t_end_min == 14


# ---- the real corpus file: one VM disk, one collection ----------------------------------------------------
def test_real_capture_one_vm_one_collection(ws):
    path = CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
    text = path.read_text()
    (raw,) = naive_read(text)
    run_id = _import(ws, path)
    tl = vm_timeline(ws, run_id)
    (d,) = tl.disks
    assert d.label == "VM 2099979, disk scsi0:0" == vm_disk_words(d.device)
    (c,) = d.collections
    assert c.ios == ios(raw, "2099979") == 793
    assert c.iops is None
    assert not tl.times_known
    lo, hi, n = within(raw, "2099979", 50)
    assert c.share.exact
    assert c.share.value == lo / n
    ws.set_interval(run_id, 60)
    (c,) = vm_timeline(ws, run_id).disks[0].collections
    assert c.iops == 793 / 60
    assert (c.read_ios, c.write_ios) == (ios(raw, "2099979", "IO lengths of Read commands"),
                                         ios(raw, "2099979", "IO lengths of Write commands"))
    # MB/s bounds from the raw IO-length buckets: each I/O at the smallest / largest whole length of its bucket,
    # kept within the file's min (512) and max (65536)
    rows = raw[("2099979", "IO lengths of commands")]["counts"]
    st = raw[("2099979", "IO lengths of commands")]["stats"]
    prevs = [None, *[lim for _n, lim in rows[:-1]]]
    lo_b = sum(n * max(st["min"], (p + 1) if p is not None else 1) for (n, _l), p in zip(rows, prevs) if n)
    hi_b = sum(n * min(st["max"], lim) for n, lim in rows if n)
    assert c.mb_s.lo == pytest.approx(lo_b / 60 / 1048576)
    assert c.mb_s.hi == pytest.approx(hi_b / 60 / 1048576)
    assert not c.mb_s.exact
    assert c.mb_s.estimate == pytest.approx(st["mean"] * st["count"] / 60 / 1048576)


def test_not_a_vscsistats_run(ws, tmp_path):
    p = tmp_path / "io.txt"
    p.write_text("Linux 5.4.0 (h) \t01/01/2024 \t_x86_64_\t(2 CPU)\n\nDevice             tps    kB_read/s    "
                 "kB_wrtn/s    kB_read    kB_wrtn\nsda               1.00         2.00         3.00        10        20"
                 "\n\n")
    run_id = _import(ws, p)
    with pytest.raises(AnalysisError, match="needs vscsiStats"):
        vm_timeline(ws, run_id)
