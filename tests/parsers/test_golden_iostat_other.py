"""iostat of other systems (issue 15): every file of tests/corpus/iostat-other imports to exactly its reviewed golden
output (AIX's is refused with what to import instead), and values read by hand from each file, independently of
the parser, hold.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_iostat_other.py`, and review the diff.
"""

from datetime import datetime

import pytest

from app.analysis.series import list_devices, load_series
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

FOLDER = CORPUS / "iostat-other"
REFUSED = {"datadog-unix-agent_aix-iostat-Dsal.txt"}
FILES = corpus_files("iostat-other", keep=lambda p: p.name not in REFUSED)
ZFS_V = FOLDER / "zfs-fuse-0.7.0_zpool-iostat-v-Td_mirrors-log-cache.txt"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_iostat_other_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "iostat_other", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden_or_is_refused():
    names = {p.name for p in FOLDER.iterdir() if p.is_file()}
    assert len(names) >= 11
    have = {p.name for p in (GOLDEN / "iostat_other").iterdir()}
    assert names - REFUSED <= have
    assert names >= REFUSED


def test_aix_iostat_is_refused_with_what_to_import_instead(ws):
    r = import_file(ws, str(FOLDER / "datadog-unix-agent_aix-iostat-Dsal.txt"), ImportOptions())
    assert r.status != "imported"
    assert "AIX iostat is not read" in r.error
    assert "nmon" in r.error
    assert ws.query("SELECT count(*) AS n FROM runs")["n"][0] == 0


def _run(ws, name, **opts):
    r = import_file(ws, str(FOLDER / name), ImportOptions(**opts))
    assert r.status == "imported", r.error
    (rid,) = r.run_ids
    return rid


def _row(ws, rid, sample, device):
    cur = ws.con.execute("SELECT * FROM iostat_samples WHERE run_id = ? AND sample_idx = ? AND device = ?",
                         [rid, sample, device])
    cols = [d[0] for d in cur.description]
    (row,) = cur.fetchall()
    return dict(zip(cols, row))


# ---- macOS ------------------------------------------------------------------------------------------------
def test_macos_values_read_by_hand(ws):
    rid = _run(ws, "snippet_macos_iostat-w1-disk0.txt")
    # line 6: "   53.20   20  1.03   8  4 88  3.89 4.51 4.10" (KB/t tps MB/s us sy id 1m 5m 15m)
    r = _row(ws, rid, 3, "disk0")
    assert (r["tps"], r["areq_kb"], r["kb_s"]) == (20.0, 53.2, 1.03 * 1024)
    assert (r["r_s"], r["w_s"], r["rkb_s"], r["wkb_s"]) == (None, None, None, None)  # no read/write split
    assert _row(ws, rid, 0, "disk0")["since_boot"] is True  # the first line: averages since boot
    cpu = ws.con.execute("SELECT user, nice, system, idle FROM cpu_samples WHERE run_id = ? AND sample_idx = 3",
                         [rid]).fetchall()
    assert cpu == [(8.0, None, 4.0, 88.0)]
    assert ws.query("SELECT count(*) AS n FROM iostat_samples")["n"][0] == 6


def test_macos_two_disks_and_a_repeated_header(ws, tmp_path):
    """The layout `iostat -w 1 -c 5` prints with two disks (disk names over KB/t tps MB/s each); the header
    printed again after some lines is the same layout."""
    header = ("            disk0               disk4       cpu    load average\n"
              "   KB/t  tps  MB/s     KB/t  tps  MB/s  us sy id   1m   5m   15m\n")
    text = (header + "  24.08   79  1.85   240.24    0  0.00  13  6 81  2.14 2.18 2.08\n"
            "   4.00    1  0.00     0.00    0  0.00   5  3 92  2.14 2.18 2.08\n"
            + header + "  14.30  222  3.10     0.00    0  0.00   3  4 93  1.97 2.15 2.07\n")
    path = tmp_path / "mac.txt"
    path.write_text(text)
    r = import_file(ws, str(path), ImportOptions(interval_s=1.0))
    assert r.status == "imported", r.error
    rows = ws.con.execute("SELECT sample_idx, device, tps, kb_s, areq_kb, t_s FROM iostat_samples "
                          "ORDER BY 1, 2").fetchall()
    assert rows == [(0, "disk0", 79.0, 1.85 * 1024, 24.08, 0.0), (0, "disk4", 0.0, 0.0, 240.24, 0.0),
                    (1, "disk0", 1.0, 0.0, 4.0, 1.0), (1, "disk4", 0.0, 0.0, 0.0, 1.0),
                    (2, "disk0", 222.0, 3.10 * 1024, 14.3, 2.0), (2, "disk4", 0.0, 0.0, 0.0, 2.0)]


# ---- illumos / Solaris -------------------------------------------------------------------------------------
def test_illumos_values_read_by_hand(ws):
    rid = _run(ws, "snippet_illumos_iostat-xzn_multi.txt")
    # report 4: "    2.0  301.5  255.5 19327.1  0.0  0.1    0.0    0.4   0   4 sd1"
    #            r/s    w/s   kr/s    kw/s  wait actv wsvc_t asvc_t %w %b device
    r = _row(ws, rid, 3, "sd1")
    assert (r["r_s"], r["w_s"], r["rkb_s"], r["wkb_s"]) == (2.0, 301.5, 255.5, 19327.1)
    assert (r["aqu_sz"], r["await_ms"], r["util_pct"], r["layer"]) == (0.1, 0.4, 4.0, "disk")
    # report 2 (-z: ramdisk1 is idle and not printed): asvc_t 2.6 + wsvc_t 0.0
    assert _row(ws, rid, 1, "sd1")["await_ms"] == 2.6
    assert ws.con.execute("SELECT count(DISTINCT sample_idx), count(*) FROM iostat_samples").fetchall() == [(5, 6)]


def test_illumos_await_and_queue_are_the_sums_of_their_two_columns(ws):
    rid = _run(ws, "snippet_esdc-docs_illumos_iostat-xzn.txt")
    # "  269.2  113.9  505.4  686.8  3.1  0.3    8.1    0.8   1   3 zones": wait 3.1 + actv 0.3, 8.1 + 0.8 ms
    r = _row(ws, rid, 0, "zones")
    assert (r["aqu_sz"], r["await_ms"]) == (3.4, 8.9)
    run = ws.run(rid)
    assert "await = wsvc_t + asvc_t" in run.meta.json()


def test_illumos_whole_disks_leave_out_the_pool_ram_disk_and_lofi_device(ws):
    rid = _run(ws, "snippet_esdc-docs_illumos_iostat-xzn.txt")
    choice = list_devices(ws, rid)
    assert choice.used == ["c0t0d0", "c0t1d0", "c0t2d0", "c0t3d0", "c1t0d0"]
    assert set(choice.excluded) == {"lofi1", "ramdisk1", "zones"}


# ---- zpool iostat -------------------------------------------------------------------------------------------
def test_zpool_verbose_values_read_by_hand(ws):
    rid = _run(ws, ZFS_V.name)
    # the report stamped "Mon Nov 23 22:33:40 UTC 2026" (-T d):
    #   tank                         91.3M   409M      0    525      0  35.7M
    #     mirror                     46.2M   204M      0    235      0  18.3M
    #       /tmp/hG1/zdisks/d1.img      -      -      0    205      0  18.3M
    #     mirror                     45.2M   205M      0    290      0  17.4M
    #   cache                           -      -      -      -      -      -
    #     loop3                      51.2M   200M      0    171      0  20.6M
    tank = _row(ws, rid, 2, "tank")
    assert (tank["ts"], tank["w_s"], tank["wkb_s"], tank["layer"]) == \
        (datetime(2026, 11, 23, 22, 33, 40), 525.0, 35.7 * 1024, "total")
    assert _row(ws, rid, 2, "tank/mirror")["w_s"] == 235.0
    assert _row(ws, rid, 2, "tank/mirror#2")["w_s"] == 290.0  # this ZFS names every mirror 'mirror'
    d1 = _row(ws, rid, 2, "tank/mirror//tmp/hG1/zdisks/d1.img")
    assert (d1["w_s"], d1["wkb_s"], d1["layer"]) == (205.0, 18.3 * 1024, "disk")
    assert _row(ws, rid, 2, "tank/cache/loop3")["wkb_s"] == 20.6 * 1024
    assert _row(ws, rid, 2, "tank/mirror")["layer"] == "volume"
    run = ws.run(rid)
    assert (run.interval_s, run.n_samples) == (2.0, 6)


def test_zpool_series_counts_the_disks_once(ws):
    """The default device choice takes the disks (the leaves), not the pool's total or its mirrors as well."""
    rid = _run(ws, ZFS_V.name)
    s = load_series(ws, rid)
    assert {"tank", "tank/mirror", "tank/mirror#2", "small"} <= set(s.devices.excluded)
    # 22:33:40, writes/s of the leaves: d1 205 + d2 205 + d3 227 + d4 225 + d5 (log) 0 + loop3 (cache) 171,
    # and small's file 0
    row = s.frame.filter(s.frame["sample_idx"] == 2)
    assert row["write_iops"][0] == 205 + 205 + 227 + 225 + 0 + 171 + 0


def test_zpool_epoch_stamps_and_ops_printed_with_k(ws):
    rid = _run(ws, "zfs-fuse-0.7.0_zpool-iostat-Tu_two-pools.txt")
    # "1795473242" then "tank        34.8M   465M     22    819  91.1K  34.9M"
    r = _row(ws, rid, 2, "tank")
    assert r["ts"] == datetime(2026, 11, 23, 22, 34, 2)  # seconds since 1970 in UTC
    assert (r["r_s"], r["w_s"], r["rkb_s"], r["wkb_s"]) == (22.0, 819.0, 91.1, 34.9 * 1024)
    assert '"utc_offset": "+00:00"' in ws.run(rid).meta.json()
    rid = _run(ws, "zfs-fuse-0.7.0_zpool-iostat_one-pool.txt", interval_s=1.0)
    # one pool without -v: one line per report; "tank  48.9M   451M      2  1.07K  12.0K  49.8M"
    r = _row(ws, rid, 2, "tank")
    assert (r["r_s"], r["w_s"], r["rkb_s"], r["t_s"]) == (2.0, 1.07 * 1024, 12.0, 2.0)  # K = 1024, ops too


def test_zpool_verbose_separators_split_pools_not_reports(ws):
    rid = _run(ws, "jc_zpool-iostat-v.txt")
    rows = ws.con.execute("SELECT DISTINCT sample_idx FROM iostat_samples WHERE run_id = ?", [rid]).fetchall()
    assert rows == [(0,)]  # one report of three pools, a separator under each pool


# ---- bad input: an error naming the line, nothing stored ------------------------------------------------------
@pytest.mark.parametrize(("name", "old", "new", "message", "line"), [
    ("snippet_macos_iostat-w1-disk0.txt", "   21.04  229  4.71", "   21.04  229", "expected 9 values", 4),
    ("snippet_smartos_iostat-xzn.txt", "  %w  %b device", "  %w  %q device", "column(s) %q of the iostat -x header", 2),
    ("snippet_illumos_iostat-xzn_multi.txt", "  127.3   47.7", "  127.3   x7.7", "'x7.7' is not a number", 7),
    (ZFS_V.name, "0    525      0  35.7M", "0    525      0  35.7Q", "'35.7Q' is not a number", 46),
    ("jc_zpool-iostat.txt", "zhgstera6   2.89T", "  zhgstera6   2.89T", "indented device 'zhgstera6' before", 4),
])
def test_bad_input_names_its_line_and_stores_nothing(ws, tmp_path, name, old, new, message, line):
    text = (FOLDER / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status != "imported"
    assert message in r.error
    assert f"{name}:{line}:" in r.error
    assert ws.query("SELECT count(*) AS n FROM iostat_samples")["n"][0] == 0


def test_large_files_stream_in_chunks(ws, monkeypatch):
    """Rows are sent in chunks; the stored result does not depend on the chunk size."""
    import parsers.iostat_other as other

    monkeypatch.setattr(other, "CHUNK_ROWS", 4)
    snap = snapshot(ws, ZFS_V)
    compare_golden(golden_dir(GOLDEN, "iostat_other", ZFS_V), snap)


def test_zpool_latency_columns(ws, tmp_path):
    """`zpool iostat -l` (OpenZFS) adds average latencies per column group, with their unit: total_wait read
    and write are stored as the read and write await; the other groups are named in a warning."""
    text = (
        "              capacity     operations     bandwidth    total_wait     disk_wait    syncq_wait    "
        "asyncq_wait  scrub   trim\n"
        "pool        alloc   free   read  write   read  write   read  write   read  write   read  write   "
        "read  write   wait   wait\n"
        "----------  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  "
        "-----  -----  -----  -----\n"
        "tank        1.20T  2.43T     12    180   1.5M  20.1M    4ms  812us    3ms  650us    1us    2us  "
        "    -  198us      -      -\n"
        "----------  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  "
        "-----  -----  -----  -----\n")
    path = tmp_path / "zl.txt"
    path.write_text(text)
    r = import_file(ws, str(path), ImportOptions(first_report="interval"))
    assert r.status == "imported", r.error
    (rid,) = r.run_ids
    row = _row(ws, rid, 0, "tank")
    assert (row["r_s"], row["w_s"], row["rkb_s"], row["wkb_s"]) == (12.0, 180.0, 1.5 * 1024, 20.1 * 1024)
    assert (row["r_await_ms"], row["w_await_ms"], row["since_boot"]) == (4.0, 0.812, False)
    assert any("asyncq_wait, disk_wait, scrub, syncq_wait, trim" in w for w in r.warnings)


def test_freebsd_layout_with_tty_and_five_cpu_columns(ws, tmp_path):
    """FreeBSD's iostat prints a tty group first and us ni sy in id; the disks are read by their names."""
    text = ("       tty            ada0             cd0             cpu\n"
            " tin  tout  KB/t tps  MB/s   KB/t tps  MB/s  us ni sy in id\n"
            "   0     2 31.91   3  0.10   0.00   0  0.00   1  0  2  0 97\n"
            "   0    41 64.00 210 13.12   0.00   0  0.00   3  0  9  1 87\n")
    path = tmp_path / "freebsd.txt"
    path.write_text(text)
    r = import_file(ws, str(path), ImportOptions(interval_s=5))
    assert r.status == "imported", r.error
    rows = ws.con.execute("SELECT sample_idx, device, tps, kb_s, areq_kb, since_boot FROM iostat_samples "
                          "ORDER BY 1, 2").fetchall()
    assert rows == [(0, "ada0", 3.0, 0.10 * 1024, 31.91, True), (0, "cd0", 0.0, 0.0, 0.0, True),
                    (1, "ada0", 210.0, 13.12 * 1024, 64.0, False), (1, "cd0", 0.0, 0.0, 0.0, False)]
    cpu = ws.con.execute("SELECT user, nice, system, idle FROM cpu_samples ORDER BY sample_idx").fetchall()
    assert cpu == [(1.0, 0.0, 2.0, 97.0), (3.0, 0.0, 9.0, 87.0)]
