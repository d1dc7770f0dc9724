"""Property-based round trips (issue 17's reliability suite): hypothesis generates the values of a trace, a
writer prints them as the tool does, and the import must store exactly the values generated -- every device,
every sample, every number. One test per format where a generator is reasonable (iostat -dxt, perfmon PDH-CSV,
fio JSON, sar -d -p, nmon, vscsiStats CSV, the IOzone auto-mode table); ``make stress`` runs more examples
(tests/fuzz_util.py)."""

from __future__ import annotations

import json
import re
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.importer import import_file
from parsers.base import ImportOptions
from tests.fuzz_util import fuzz_settings, record

_TMPDIR = tempfile.TemporaryDirectory(prefix="stormscope-roundtrip-")  # removed when the test process ends
_TMP = Path(_TMPDIR.name)
START = datetime(2024, 3, 14, 8, 0, 0)


@pytest.fixture(scope="module")
def mem_ws():
    from app.workspace import Workspace

    w = Workspace(":memory:")
    yield w
    w.close()


def imported(ws, name: str, data: str | bytes, **options) -> tuple[int, object]:
    """Import ``data`` as file ``name``; the run id and the result (the run is deleted by :func:`done`)."""
    path = _TMP / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    r = import_file(ws, str(path), ImportOptions(**options))
    assert r.status == "imported", r
    assert len(r.run_ids) == 1, r
    return r.run_ids[0], r


def done(ws, rid: int, fmt: str) -> None:
    ws.delete_run(rid)
    record("roundtrip", {"test": fmt})


def rows(ws, sql: str, rid: int) -> list[tuple]:
    return ws.con.execute(sql, [rid]).fetchall()


# device names as tools print them: letters, digits, - and _ (one word: iostat's columns are split on spaces)
_name = st.from_regex(r"[a-z][a-z0-9_-]{0,11}", fullmatch=True)
_hundredths = st.integers(0, 10_000_000).map(lambda v: v / 100)  # iostat and sar print two decimals


# ---- iostat -dxt ---------------------------------------------------------------------------------------------
IOSTAT_COLS = {"r/s": "r_s", "w/s": "w_s", "rkB/s": "rkb_s", "wkB/s": "wkb_s", "r_await": "r_await_ms",
               "w_await": "w_await_ms", "aqu-sz": "aqu_sz", "%util": "util_pct"}


@st.composite
def device_reports(draw, cols, max_devices, max_step):
    """(devices, seconds between reports, values[report][device][column]) for a per-device text format whose
    columns ``cols`` print two decimals (%util at most 100)."""
    devices = draw(st.lists(_name, min_size=1, max_size=max_devices, unique=True))
    n = draw(st.integers(1, 6))
    step = draw(st.integers(1, max_step))
    values = [[[draw(_hundredths) if c != "%util" else draw(st.integers(0, 10_000)) / 100 for c in cols]
               for _ in devices] for _ in range(n)]
    return devices, step, values


def iostat_traces():
    return device_reports(IOSTAT_COLS, 6, 600)


def write_iostat(devices, step, values) -> str:
    out = ["Linux 6.1.0 (gen-host) \t03/14/2024 \t_x86_64_\t(8 CPU)", ""]
    for k, report in enumerate(values):
        out.append((START + timedelta(seconds=k * step)).strftime("%m/%d/%Y %I:%M:%S %p"))
        out.append("Device            " + " ".join(f"{c:>10}" for c in IOSTAT_COLS))
        out += [f"{d:<17} " + " ".join(f"{v:10.2f}" for v in vals) for d, vals in zip(devices, report)]
        out.append("")
    return "\n".join(out) + "\n"


@fuzz_settings(15)
@given(trace=iostat_traces())
def test_iostat_round_trip(mem_ws, trace):
    devices, step, values = trace
    rid, _ = imported(mem_ws, "gen_iostat.txt", write_iostat(*trace), first_report="interval")
    cols = ", ".join(IOSTAT_COLS.values())
    got = rows(mem_ws, f"SELECT sample_idx, ts, t_s, device, {cols} FROM iostat_samples WHERE run_id = ? "
                       "ORDER BY sample_idx, device", rid)
    want = sorted((k, START + timedelta(seconds=k * step), float(k * step), d, *vals)
                  for k, report in enumerate(values) for d, vals in zip(devices, report))
    assert got == want
    done(mem_ws, rid, "iostat")


# ---- perfmon CSV (PDH-CSV 4.0) ---------------------------------------------------------------------------------
PERFMON_COUNTERS = {"Disk Reads/sec": ("r_s", 1.0), "Disk Writes/sec": ("w_s", 1.0),
                    "Disk Read Bytes/sec": ("rkb_s", 1024.0), "Disk Write Bytes/sec": ("wkb_s", 1024.0),
                    "Avg. Disk Queue Length": ("aqu_sz", 1.0)}
_perf_value = st.floats(0, 1e12, allow_nan=False, allow_infinity=False)


@st.composite
def perfmon_logs(draw):
    disks = draw(st.lists(st.sampled_from("CDEFGHIJKLMN"), min_size=1, max_size=5, unique=True))
    n = draw(st.integers(1, 6))
    step = draw(st.integers(1, 600))
    values = [[[draw(_perf_value) for _ in PERFMON_COUNTERS] for _ in disks] for _ in range(n)]
    return [f"PhysicalDisk({i} {d}:)" for i, d in enumerate(disks)], step, values


def write_perfmon(disks, step, values) -> str:
    head = ['"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"']
    head += [f'"\\\\GENHOST\\{d}\\{c}"' for d in disks for c in PERFMON_COUNTERS]
    out = [",".join(head)]
    for k, sample in enumerate(values):
        t = (START + timedelta(seconds=k * step)).strftime("%m/%d/%Y %H:%M:%S.000")
        out.append(",".join([f'"{t}"', *[f'"{v!r}"' for vals in sample for v in vals]]))
    return "\r\n".join(out) + "\r\n"


@fuzz_settings(15)
@given(log=perfmon_logs())
def test_perfmon_round_trip(mem_ws, log):
    disks, step, values = log
    rid, _ = imported(mem_ws, "gen_perfmon.csv", write_perfmon(*log))
    cols = ", ".join(c for c, _ in PERFMON_COUNTERS.values())
    got = rows(mem_ws, f"SELECT sample_idx, ts, device, {cols} FROM iostat_samples WHERE run_id = ? "
                       "ORDER BY sample_idx, device", rid)
    want = sorted((k, START + timedelta(seconds=k * step), d, *[v / f for v, (_, f) in zip(vals,
                   PERFMON_COUNTERS.values())]) for k, sample in enumerate(values) for d, vals in zip(disks, sample))
    assert got == want
    done(mem_ws, rid, "perfmon")


# ---- fio JSON ---------------------------------------------------------------------------------------------------
_count = st.integers(0, 10**15)  # a count beyond 1e15 is refused as no measurement (app.workspace.MAX_VALUE)
_ns = st.floats(0, 1e12, allow_nan=False, allow_infinity=False)


@st.composite
def fio_outputs(draw):
    names = draw(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,15}", fullmatch=True), min_size=1, max_size=4,
                          unique=True))
    jobs = []
    for name in names:
        job = {"jobname": name, "groupid": 0, "error": 0, "job options": {"rw": "randrw", "bs": "4k"}}
        for ddir in ("read", "write"):
            job[ddir] = {"io_bytes": 0, "io_kbytes": draw(_count.filter(bool)), "bw": draw(_count),
                         "iops": draw(_ns), "runtime": draw(st.integers(1, 10**9)), "total_ios": draw(_count),
                         "clat_ns": {"min": draw(_count), "max": draw(_count), "mean": draw(_ns),
                                     "stddev": draw(_ns),
                                     "percentile": {"50.000000": draw(_count), "99.000000": draw(_count)}}}
        jobs.append(job)
    return jobs


@fuzz_settings(15)
@given(jobs=fio_outputs())
def test_fio_json_round_trip(mem_ws, jobs):
    doc = {"fio version": "fio-3.33", "timestamp": 1710403200, "time": "Thu Mar 14 08:00:00 2024", "jobs": jobs}
    rid, _ = imported(mem_ws, "gen_fio.json", json.dumps(doc, indent=2))
    got = rows(mem_ws, "SELECT jobname, op, ios, io_kb, iops, bw_kbs, runtime_s, clat_min_us, clat_max_us, "
                       "clat_mean_us, clat_stddev_us, p50_us, p99_us FROM fio_jobs WHERE run_id = ? "
                       "ORDER BY job_index, op", rid)
    want = [(j["jobname"], ddir, d["total_ios"], float(d["io_kbytes"]), float(d["iops"]), float(d["bw"]),
             d["runtime"] / 1000, d["clat_ns"]["min"] / 1000, d["clat_ns"]["max"] / 1000,
             d["clat_ns"]["mean"] / 1000, d["clat_ns"]["stddev"] / 1000, d["clat_ns"]["percentile"]["50.000000"] / 1000,
             d["clat_ns"]["percentile"]["99.000000"] / 1000)
            for j in jobs for ddir, d in (("read", j["read"]), ("write", j["write"]))]
    assert got == want
    done(mem_ws, rid, "fio-json")


# ---- sar -d -p (sysstat text) -----------------------------------------------------------------------------------
SAR_COLS = {"tps": "tps", "rkB/s": "rkb_s", "wkB/s": "wkb_s", "dkB/s": "dkb_s", "areq-sz": "areq_kb",
            "aqu-sz": "aqu_sz", "await": "await_ms", "%util": "util_pct"}


def sar_reports():
    return device_reports(SAR_COLS, 5, 3600)


def write_sar(devices, step, values) -> str:
    """``sar -d -p`` from a data file: the header (the start time), then each interval's rows, then Average."""
    out = ["Linux 6.1.0 (gen-host) \t03/14/24 \t_x86_64_\t(8 CPU)", ""]
    out.append(START.strftime("%H:%M:%S") + "          DEV " + " ".join(f"{c:>9}" for c in SAR_COLS))
    for k, interval in enumerate(values, 1):
        t = (START + timedelta(seconds=k * step)).strftime("%H:%M:%S")
        out += [f"{t} {d:>12} " + " ".join(f"{v:9.2f}" for v in vals) for d, vals in zip(devices, interval)]
    out += ["", "Average:          DEV " + " ".join(f"{c:>9}" for c in SAR_COLS)]
    out += [f"Average: {d:>12} " + " ".join("     0.00" for _ in SAR_COLS) for d in devices]
    return "\n".join(out) + "\n"


@fuzz_settings(15)
@given(report=sar_reports())
def test_sar_round_trip(mem_ws, report):
    devices, step, values = report
    if len(values) * step >= 16 * 3600:  # within the day of the banner (past midnight sar's clock starts again)
        values = values[:1]
    rid, _ = imported(mem_ws, "gen_sar.txt", write_sar(devices, step, values))
    cols = ", ".join(SAR_COLS.values())
    got = rows(mem_ws, f"SELECT sample_idx, ts, device, {cols} FROM iostat_samples WHERE run_id = ? "
                       "ORDER BY sample_idx, device", rid)
    want = sorted((k, START + timedelta(seconds=(k + 1) * step), d, *vals)
                  for k, interval in enumerate(values) for d, vals in zip(devices, interval))
    assert got == want
    done(mem_ws, rid, "sar")


# ---- nmon ---------------------------------------------------------------------------------------------------------
NMON_SECTIONS = {"DISKREAD": ("Disk Read KB/s", "rkb_s"), "DISKWRITE": ("Disk Write KB/s", "wkb_s"),
                 "DISKXFER": ("Disk transfers per second", "tps"), "DISKBUSY": ("Disk %Busy", "util_pct"),
                 "DISKBSIZE": ("Disk Block Size", "areq_kb")}
_tenths = st.integers(0, 10_000_000).map(lambda v: v / 10)  # nmon prints one decimal


@st.composite
def nmon_files(draw):
    devices = draw(st.lists(_name, min_size=1, max_size=6, unique=True))
    n = draw(st.integers(1, 6))
    step = draw(st.integers(1, 600))
    values = [{s: [draw(_tenths) if s != "DISKBUSY" else draw(st.integers(0, 1000)) / 10 for _ in devices]
               for s in NMON_SECTIONS} for _ in range(n)]
    return devices, step, values


def write_nmon(devices, step, values) -> str:
    out = ["AAA,progname,nmon", "AAA,version,16n", "AAA,host,gen-host", f"AAA,interval,{step}",
           f"AAA,snapshots,{len(values)}", "AAA,time," + START.strftime("%H:%M.%S"), "AAA,date,14-MAR-2024"]
    out += [f"{s},{desc} gen-host," + ",".join(devices) for s, (desc, _) in NMON_SECTIONS.items()]
    for k, snap in enumerate(values):
        t = START + timedelta(seconds=(k + 1) * step)
        out.append(f"ZZZZ,T{k + 1:04d},{t:%H:%M:%S},{t.strftime('%d-%b-%Y').upper()}")
        out += [f"{s},T{k + 1:04d}," + ",".join(f"{v:.1f}" for v in snap[s]) for s in NMON_SECTIONS]
    return "\n".join(out) + "\n"


@fuzz_settings(15)
@given(nmon=nmon_files())
def test_nmon_round_trip(mem_ws, nmon):
    devices, step, values = nmon
    rid, _ = imported(mem_ws, "gen.nmon", write_nmon(*nmon))
    cols = ", ".join(c for _, c in NMON_SECTIONS.values())
    got = rows(mem_ws, f"SELECT sample_idx, ts, device, {cols} FROM iostat_samples WHERE run_id = ? "
                       "ORDER BY sample_idx, device", rid)
    want = sorted((k, START + timedelta(seconds=(k + 1) * step), d, *[snap[s][i] for s in NMON_SECTIONS])
                  for k, snap in enumerate(values) for i, d in enumerate(devices))
    assert got == want
    done(mem_ws, rid, "nmon")


# ---- vscsiStats -p all -c (CSV) -----------------------------------------------------------------------------------
VSCSI_LIMITS = {
    "io_length_bytes": ("IO lengths of {op}commands", [512, 1024, 2048, 4095, 4096, 8191, 8192, 16383, 16384, 32768,
                                                       49152, 65535, 65536, 81920, 131072, 262144, 524288]),
    "latency_us": ("latency of {op}IOs in Microseconds (us)", [1, 10, 100, 500, 1000, 5000, 15000, 30000, 50000,
                                                                100000]),
}
_OPS = {"all": "", "read": "Read ", "write": "Write "}


@st.composite
def vscsi_collections(draw):
    disks = draw(st.lists(st.tuples(st.integers(1, 10**7), st.integers(1, 10**5), st.integers(0, 3),
                                    st.integers(0, 15)), min_size=1, max_size=3, unique_by=lambda d: d[:2]))
    counts = {}
    for disk in disks:
        for metric, (_, limits) in VSCSI_LIMITS.items():
            read = draw(st.lists(st.integers(0, 10**9), min_size=len(limits) + 1, max_size=len(limits) + 1))
            write = draw(st.lists(st.integers(0, 10**9), min_size=len(limits) + 1, max_size=len(limits) + 1))
            counts[(disk, metric)] = {"read": read, "write": write, "all": [r + w for r, w in zip(read, write)]}
    return disks, counts


def vscsi_device(disk) -> str:
    world, handle, bus, target = disk
    return f"{world}:{handle} (scsi{bus}:{target})"


def write_vscsi(disks, counts) -> str:
    out = []
    for disk in disks:
        world, handle, bus, target = disk
        for metric, (title, limits) in VSCSI_LIMITS.items():
            for op, word in _OPS.items():
                c = counts[(disk, metric)][op]
                out.append(f"Histogram: {title.format(op=word)},virtual machine worldGroupID,{world},"
                           f"virtual disk handleID,{handle} (scsi{bus}:{target})")
                out += [f"min,{limits[0]}", f"max,{limits[-1]}", f"mean,{limits[0]}", f"count,{sum(c)}",
                        "Frequency,Histogram Bucket Limit"]
                out += [f"{n},{lim}" for n, lim in zip(c, [*limits, limits[-1]])]
    return "\n".join(out) + "\n"


@fuzz_settings(15)
@given(collection=vscsi_collections())
def test_vscsistats_round_trip(mem_ws, collection):
    disks, counts = collection
    rid, _ = imported(mem_ws, "gen_vscsiStats.csv", write_vscsi(disks, counts))
    got = rows(mem_ws, "SELECT device, metric, op, bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? "
                       "ORDER BY ALL", rid)
    want = []
    for disk in disks:
        for metric, (_, limits) in VSCSI_LIMITS.items():
            edges = [None, *map(float, limits)]
            for op in _OPS:
                his = [*map(float, limits), None]
                want += [(vscsi_device(disk), metric, op, lo, hi, n)
                         for lo, hi, n in zip(edges, his, counts[(disk, metric)][op])]
    assert got == sorted(want, key=lambda r: tuple((x is None, x) for x in r))
    done(mem_ws, rid, "vscsistats")


# ---- IOzone auto mode (the table) ---------------------------------------------------------------------------------
IOZONE_TOP = ("                                                            random  random    bkwd   record   stride"
              "                                   ")
IOZONE_HEAD = ("              KB  reclen   write rewrite    read    reread    read   write    read  rewrite     read"
               "   fwrite frewrite   fread  freread")
IOZONE_TESTS = ("write", "rewrite", "read", "reread", "random_read", "random_write", "backward_read",
                "record_rewrite", "stride_read", "fwrite", "frewrite", "fread", "freread")
_IOZONE_ENDS = [m.end() for m in re.finditer(r"\S+", IOZONE_HEAD)]


@st.composite
def iozone_tables(draw):
    files = sorted(draw(st.lists(st.integers(2, 20), min_size=1, max_size=4, unique=True)))
    rows_ = []
    for f in files:
        for r in range(2, min(f, 14) + 1):
            rows_.append((2**f, 2**r, [draw(st.integers(1, 9_999_999)) for _ in IOZONE_TESTS]))
    return rows_


def write_iozone(rows_) -> str:
    out = ["\tIozone: Performance Test of File I/O", "\t        Version $Revision: 3.489 $", "",
           "\tRun began: Thu Mar 14 08:00:00 2024", "", "\tAuto Mode", "\tCommand line used: iozone -a",
           "\tOutput is in kBytes/sec", "", IOZONE_TOP, IOZONE_HEAD]
    for file_kb, rec_kb, vals in rows_:
        line = ""
        for end, v in zip(_IOZONE_ENDS, [file_kb, rec_kb, *vals]):
            line += str(v).rjust(end - len(line))
        out.append(line)
    return "\n".join([*out, "", "iozone test complete."]) + "\n"


@fuzz_settings(15)
@given(table=iozone_tables())
def test_iozone_round_trip(mem_ws, table):
    rid, _ = imported(mem_ws, "gen_iozone.txt", write_iozone(table))
    got = rows(mem_ws, "SELECT mode, source, test, file_kb, record_kb, threads, unit, kb_s FROM iozone_results "
                       "WHERE run_id = ? ORDER BY file_kb, record_kb, test", rid)
    want = sorted((("auto", "table", t, f, r, 1, "kB/s", float(v)) for f, r, vals in table
                   for t, v in zip(IOZONE_TESTS, vals)), key=lambda x: (x[3], x[4], x[2]))
    assert got == want
    done(mem_ws, rid, "iozone")
