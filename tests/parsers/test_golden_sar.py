"""sar (issue 15): every file of tests/corpus/sar imports to exactly its reviewed golden output, or is refused with a
message naming what it is and what to do; values read by hand from the files hold, independently of the parser.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_sar.py`, and review the diff.
"""

from datetime import datetime

import polars as pl
import pytest

from app.analysis.series import list_devices, load_series
from app.importer import import_file
from parsers.base import ImportOptions
from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

FOLDER = CORPUS / "sar"
V = "vm_sysstat-12.6.1_"
# refused: (file, words the message must hold)
REFUSED = {
    "pkb_sar_output.txt": ["no disk figures", "CPU utilisation (sar -u)", "sar -d"],
    "sysstat-tests_sar-cd.txt": ["no disk figures", "CPU utilisation (sar -u) and tasks (sar -w)", "sar -d"],
    V + "sadf-d_u.txt": ["no disk figures", "CPU utilisation (sar -u)", "sadf -d saDD -- -d -p"],
    V + "sa23": ["binary sar data file", "sadf -d saDD -- -d -p > sar.csv", "LC_ALL=C sar -d -p -f saDD"],
    V + "sadf-j_d-p.json": ["sadf -j, -x, -p) are not read", "sadf -d saDD -- -d -p > sar.csv"],
    V + "sadf-x_d-p.xml": ["sadf -j, -x, -p) are not read", "sadf -d saDD -- -d -p > sar.csv"],
    V + "sadf-p_d-p.txt": ["sadf -j, -x, -p) are not read", "sadf -d saDD -- -d -p > sar.csv"],
}
FILES = corpus_files("sar", keep=lambda p: p.name not in REFUSED)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_sar_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "sar", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_file_has_a_golden_or_is_refused():
    names = {p.name for p in FOLDER.iterdir() if p.is_file()}
    assert len(names) == 31
    have = {p.name for p in (GOLDEN / "sar").iterdir()}
    assert names - set(REFUSED) == have
    assert names >= set(REFUSED)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_files_say_what_they_are_and_what_to_do(ws, name):
    r = import_file(ws, str(FOLDER / name), ImportOptions())
    assert r.status != "imported"
    for words in REFUSED[name]:
        assert words in r.error, r.error
    assert ws.query("SELECT count(*) AS n FROM runs")["n"][0] == 0


def _run(ws, name, **opts):
    r = import_file(ws, str(FOLDER / name), ImportOptions(**opts))
    assert r.status == "imported", r.error
    (rid,) = r.run_ids
    return rid


def _row(ws, rid, ts, device):
    cur = ws.con.execute("SELECT * FROM iostat_samples WHERE run_id = ? AND ts = ? AND device = ?", [rid, ts, device])
    cols = [d[0] for d in cur.description]
    (row,) = cur.fetchall()
    return dict(zip(cols, row))


def _rows(ws, rid, cols="sample_idx, t_s, device, tps, rkb_s, wkb_s, dkb_s, areq_kb, aqu_sz, await_ms, util_pct"):
    return ws.con.execute(f"SELECT {cols} FROM iostat_samples WHERE run_id = ? ORDER BY sample_idx, device",
                          [rid]).fetchall()


# ---- sysstat text ------------------------------------------------------------------------------------------------
def test_sysstat_12_values_read_by_hand_and_restart(ws):
    rid = _run(ws, "sysstat-tests_sar-dev.txt")
    # line 6: "13:20:39      1604.70  41499.97  10663.48      0.00     32.51     18.56     12.00     85.36 sda"
    r = _row(ws, rid, datetime(2019, 4, 18, 13, 20, 39), "sda")
    assert (r["tps"], r["rkb_s"], r["wkb_s"], r["dkb_s"]) == (1604.70, 41499.97, 10663.48, 0.0)
    assert (r["areq_kb"], r["aqu_sz"], r["await_ms"], r["util_pct"]) == (32.51, 18.56, 12.0, 85.36)
    assert (r["r_s"], r["w_s"], r["svctm_ms"], r["layer"], r["since_boot"]) == (None, None, None, None, False)
    # the "Average:" line (line 8) is no sample; after the two LINUX RESTART lines, "13:54:35 ... sda" is the fifth
    # sample, 13:54:35 - 13:20:19 = 2056 s after the first on the wall clock
    assert ws.con.execute("SELECT sample_idx, t_s FROM iostat_samples WHERE run_id = ? ORDER BY 1",
                          [rid]).fetchall() == [(0, 0.0), (1, 10.0), (2, 20.0), (3, 30.0), (4, 2056.0)]
    run = ws.run(rid)
    assert (run.interval_s, run.n_samples, run.kind, run.format) == (10.0, 5, "sar", "sar-text")
    assert '"restarts": ["2019-04-18 13:37:29 LINUX RESTART (9 CPU)", "2019-04-18 13:54:09 LINUX RESTART (10 CPU)"]' \
        in run.meta.json()
    assert any("the host restarted at 2019-04-18 13:54:09" in w for w in run.warnings)


def test_sar_never_covers_the_time_since_boot(ws):
    r = import_file(ws, str(FOLDER / "sysstat-tests_sar-dev.txt"), ImportOptions(first_report="since-boot"))
    assert r.status == "imported", r.error
    assert any("never cover the time since boot" in w for w in r.warnings)
    assert ws.con.execute("SELECT count(*) FROM iostat_samples WHERE since_boot").fetchall() == [(0,)]


def test_old_sysstat_sectors_and_device_numbers(ws):
    rid = _run(ws, "ksar_sar-10.1.5.txt")
    # "09:20:01      dev8-16     13.52    580.18     56.83     47.10      0.11      8.28      3.27      4.42"
    #             DEV tps rd_sec/s wr_sec/s avgrq-sz avgqu-sz await svctm %util (512-byte sectors)
    r = _row(ws, rid, datetime(2016, 3, 28, 9, 20, 1), "dev8-16")
    assert (r["tps"], r["rkb_s"], r["wkb_s"], r["areq_kb"]) == (13.52, 580.18 / 2, 56.83 / 2, 47.10 / 2)
    assert (r["aqu_sz"], r["await_ms"], r["svctm_ms"], r["util_pct"], r["layer"]) == (0.11, 8.28, 3.27, 4.42, "disk")
    # dev253-N (device-mapper here: the file also has the SCSI disks dev8-0 and dev8-16) are not counted twice
    choice = list_devices(ws, rid)
    assert choice.used == ["dev8-0", "dev8-16"]
    assert set(choice.excluded) == {"dev253-0", "dev253-1", "dev253-2"}
    run = ws.run(rid)
    assert (run.interval_s, run.n_samples, str(run.file_date)) == (600.0, 36, "2016-03-28")
    # the LINUX RESTART at 08:51:10 came before the first sample: no segment, no warning about it
    assert '"segments": 1' in run.meta.json()
    assert not any("restarted" in w for w in run.warnings)
    assert any("dev253-0, dev253-1, dev253-2 have major numbers" in w for w in run.warnings)
    # the sar -b totals of the same file are left out: the per-device report is read
    assert "I/O totals (sar -b): left out" in run.meta.json()
    assert ws.con.execute("SELECT count(*) FROM iostat_samples WHERE device = 'all I/O'").fetchall() == [(0,)]


def test_the_series_of_a_sar_run_counts_tps_and_says_reads_and_writes_are_not_in_the_file(ws):
    rid = _run(ws, "ksar_sar-10.1.5.txt")
    s = load_series(ws, rid)
    # 09:20:01: dev8-0 10.65 + dev8-16 13.52 transfers/s (the dm devices left out)
    row = s.frame.filter(pl.col("sample_idx") == 1)
    assert row["iops"][0] == pytest.approx(10.65 + 13.52)
    assert not s.has_read_write
    assert row["read_iops"][0] is None
    assert row["write_iops"][0] is None
    assert "no read/write split" in s.iops_formula


def test_sar_b_totals_carry_the_read_write_split(ws):
    rid = _run(ws, V + "sar-b.txt")
    # "22:50:13      1401.50    983.00    416.00      2.50  15768.00   8808.00    264.00"
    #          tps rtps wtps dtps bread/s bwrtn/s bdscd/s (512-byte blocks)
    r = _row(ws, rid, datetime(2026, 11, 23, 22, 50, 13), "all I/O")
    assert (r["r_s"], r["w_s"], r["d_s"], r["tps"]) == (983.0, 416.0, 2.5, None)
    assert (r["rkb_s"], r["wkb_s"], r["dkb_s"], r["layer"]) == (7884.0, 4404.0, 132.0, "total")
    # the same interval in the sar -d -p file of the same data: vda 1401.50 tps, 7884.00 rkB/s, 4404.00 wkB/s
    did = _run(ws, V + "sar-d-p_restart.txt")
    vda = _row(ws, did, datetime(2026, 11, 23, 22, 50, 13), "vda")
    assert (vda["tps"], vda["rkb_s"], vda["wkb_s"], vda["dkb_s"]) == (1401.5, r["rkb_s"], r["wkb_s"], r["dkb_s"])
    s = load_series(ws, rid)
    assert s.has_read_write
    assert s.frame.filter(pl.col("sample_idx") == 2)["read_iops"][0] == 983.0


def test_every_locale_and_layout_of_one_data_file_stores_the_same_rows(ws):
    """sa23 printed as sar -d -p in the C, German, Chinese and Korean locales, as sar -A, as sar -d (DEV first), as
    sadf -d and sadf -dh: the same rows (the C-locale file, read by hand below, is the reference)."""
    ref = _rows(ws, _run(ws, V + "sar-d-p_restart.txt"))
    # "22:50:09       895.00   3768.00  35290.00      6.00     43.65      1.37      1.53      4.20 vda"
    assert ref[4] == (0, 0.0, "vda", 895.0, 3768.0, 35290.0, 6.0, 43.65, 1.37, 1.53, 4.2)
    assert len(ref) == 55
    assert ref[-1][:2] == (10, 23.0)
    for name in ("sar-d-p_de_DE.txt", "sar-d-p_zh_CN.txt", "sar-d-p_ko_KR.txt", "sar-A.txt", "sar-d_DEV-first.txt",
                 "sadf-d_b-d-p.txt", "sadf-dh_d-p.txt", "sar-d-p_en_US-12h_midnight.txt"):
        assert _rows(ws, _run(ws, V + name)) == ref, name
    times = ws.con.execute("SELECT DISTINCT ts FROM iostat_samples i JOIN runs r USING (run_id) WHERE r.name LIKE "
                           "'%zh_CN' ORDER BY ts").fetchall()
    assert times[0][0] == datetime(2026, 11, 23, 22, 50, 9)  # "22时50分09秒" under the banner's "2026年11月23日"


def test_twelve_hour_clock_over_midnight(ws):
    rid = _run(ws, V + "sar-d-p_en_US-12h_midnight.txt")
    # "11:59:58 PM   1401.50 ..." then "12:00:00 AM    830.50 ..." under the banner date 11/23/2026
    assert _row(ws, rid, datetime(2026, 11, 23, 23, 59, 58), "vda")["tps"] == 1401.5
    assert _row(ws, rid, datetime(2026, 11, 24, 0, 0), "vda")["tps"] == 830.5
    run = ws.run(rid)
    assert '"restarts": ["2026-11-24 00:00:06 LINUX RESTART (2 CPU)"]' in run.meta.json()
    assert str(run.ended_at) == "2026-11-24 00:00:17"


def test_human_units(ws):
    rid = _run(ws, V + "sar-dh-p_human.txt")
    # "22:50:09       895.00      3.7M     34.5M      6.0k     43.6k      1.37      1.53      4.2% vda"
    r = _row(ws, rid, datetime(2026, 11, 23, 22, 50, 9), "vda")
    assert (r["rkb_s"], r["wkb_s"], r["dkb_s"], r["areq_kb"], r["util_pct"]) == (3.7 * 1024, 34.5 * 1024, 6.0, 43.6,
                                                                                  4.2)
    assert abs(r["rkb_s"] - 3768.0) <= 0.05 * 1024  # the exact figure (sar -d -p) is within the printed digit
    assert '"human_units": true' in ws.run(rid).meta.json()


def test_live_sar_b_and_d(ws):
    rid = _run(ws, V + "sar-b-d-p_live.txt")
    # "22:51:23       766.00   1664.00   2592.00     24.00      5.59      0.36      0.47     20.80 vda"
    r = _row(ws, rid, datetime(2026, 11, 23, 22, 51, 23), "vda")
    assert (r["tps"], r["rkb_s"], r["wkb_s"], r["dkb_s"], r["util_pct"]) == (766.0, 1664.0, 2592.0, 24.0, 20.8)
    run = ws.run(rid)
    assert (run.interval_s, run.n_samples) == (1.0, 4)


def test_sadf_utc_and_the_interval_column(ws):
    rid = _run(ws, "sysstat-tests_sadf-d.txt")
    # "SYSSTAT.TEST;31;2019-04-18 13:54:35 UTC;cciss/c0d0;32402.95;0.00;0.00;0.00;0.00;0.00;0.10;0.00"
    r = _row(ws, rid, datetime(2019, 4, 18, 13, 54, 35), "cciss/c0d0")
    assert (r["tps"], r["await_ms"]) == (32402.95, 0.1)
    run = ws.run(rid)
    assert '"utc_offset": "+00:00"' in run.meta.json()
    assert any("the interval column says 22, 31, 39 s while the time stamps are 10 s apart" in w
               for w in run.warnings)
    assert '"comments": ["Testing sysstat!"]' in run.meta.json()
    choice = list_devices(ws, rid)
    assert "cciss/c0d0p2" in choice.excluded
    assert "cciss/c0d0" in choice.used


def test_zh_cn_sar_b_snippet(ws):
    _run(ws, "snippet_zh_CN_sar-b.txt")
    rows = ws.con.execute("SELECT ts, device, r_s, w_s FROM iostat_samples ORDER BY ts").fetchall()
    # "06时47分20秒      0.00      0.00 ..." .. "06时47分24秒"; "平均时间:" is the average line
    assert [r[0] for r in rows] == [datetime(2017, 11, 28, 6, 47, s) for s in range(20, 25)]
    assert {r[1:] for r in rows} == {("all I/O", 0.0, 0.0)}


def test_sysstat_z_and_j_id(ws):
    rid = _run(ws, "sysstat-tests_sar-z.txt")
    # -z: 3, 6, 6 and 4 devices in the four intervals; the IFACE report that follows is not read
    assert ws.con.execute("SELECT sample_idx, count(*) FROM iostat_samples WHERE run_id = ? GROUP BY 1 ORDER BY 1",
                          [rid]).fetchall() == [(0, 3), (1, 6), (2, 6), (3, 4)]
    rid = _run(ws, "sysstat-tests_sar-jID.txt")
    # "13:20:39      1604.70     40.5M     10.4M      0.0k     32.5k     18.56     12.00     85.4% ata-Hitachi…XND"
    r = _row(ws, rid, datetime(2019, 4, 18, 13, 20, 39), "ata-Hitachi_HDS723020BLA642_MN1240F33J1XND")
    assert (r["tps"], r["rkb_s"], r["wkb_s"], r["areq_kb"], r["util_pct"]) == (1604.7, 40.5 * 1024, 10.4 * 1024,
                                                                                 32.5, 85.4)
    assert "ata-Hitachi_HDS723020BLA642_MN1240F33J1XND-part1" in list_devices(ws, rid).excluded


def test_sysstat_11_device_numbers_of_boot_time_majors_are_counted_as_disks_and_said(ws):
    rid = _run(ws, "ksar_sar-11.6.1-full-output.txt")
    # "16:08:55     dev253-0      6.70      0.00    496.80     74.15      0.02      4.72      1.01      0.68"
    r = _row(ws, rid, datetime(2018, 4, 8, 16, 8, 55), "dev253-0")
    assert (r["tps"], r["wkb_s"], r["svctm_ms"], r["layer"]) == (6.7, 496.8, 1.01, "disk")
    run = ws.run(rid)
    assert any("they are counted as disks, unless their figures prove them stacked on others" in w
               for w in run.warnings)
    assert (run.interval_s, run.n_samples) == (10.0, 6)


def test_two_days_appended_and_two_hosts_in_one_file(ws, tmp_path):
    """sar output of the next day appended (a second banner, the next date): one run on one clock; two hosts' output
    in one file: one run per host, each warning naming its host."""
    text = (FOLDER / "sysstat-tests_sar-dev.txt").read_text()
    days = tmp_path / "two_days.txt"
    days.write_text(text + "\n" + text.replace("04/18/19", "04/19/19"))
    rid = _run_path(ws, days)
    times = [r[0] for r in ws.con.execute("SELECT DISTINCT ts FROM iostat_samples WHERE run_id = ? ORDER BY 1",
                                          [rid]).fetchall()]
    assert (len(times), times[5]) == (10, datetime(2019, 4, 19, 13, 20, 19))
    hosts = tmp_path / "two_hosts.txt"
    hosts.write_text(text + "\n" + text.replace("SYSSTAT.TEST", "OTHER.HOST"))
    r = import_file(ws, str(hosts), ImportOptions())
    assert r.status == "imported", r.error
    assert sorted(ws.run(i).host for i in r.run_ids) == ["OTHER.HOST", "SYSSTAT.TEST"]
    assert any(w.startswith("host OTHER.HOST: the host restarted at 2019-04-18 13:37:29") for w in r.warnings)


def _run_path(ws, path):
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    (rid,) = r.run_ids
    return rid


# ---- Solaris, HP-UX, AIX --------------------------------------------------------------------------------------------
def test_hpux_block_rows_without_time(ws):
    rid = _run(ws, "ksar_hpux-sar.txt")
    # "00:05:01    disk1    8.35   10.17      39     578   12.74    3.96"
    #              device  %busy   avque   r+w/s  blks/s  avwait  avserv
    r = _row(ws, rid, datetime(2018, 3, 21, 0, 5, 1), "disk1")
    assert (r["util_pct"], r["aqu_sz"], r["tps"], r["kb_s"]) == (8.35, 10.17, 39.0, 289.0)
    assert (r["await_ms"], r["svctm_ms"], r["rkb_s"], r["layer"]) == (16.7, 3.96, None, "disk")
    # "            disk3    2.82    0.50       8     111    0.00    4.19": the time of the block's first row
    r = _row(ws, rid, datetime(2018, 3, 21, 0, 5, 1), "disk3")
    assert (r["tps"], r["kb_s"], r["await_ms"]) == (8.0, 55.5, 4.19)
    run = ws.run(rid)
    assert (run.interval_s, run.n_samples, run.n_devices, run.os) == (300.0, 16, 67, "HP-UX B.11.31 U ia64")


def test_hpux_peak_summed_from_the_file_text(ws):
    """The storm peak of the HP-UX run equals r+w/s summed over the devices of one block, read from the text with
    nothing but str.split (the Average block left out)."""
    lines = (FOLDER / "ksar_hpux-sar.txt").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if "device" in ln and "%busy" in ln)
    blocks: dict[str, float] = {}
    t = ""
    for ln in lines[start + 1:]:
        f = ln.split()
        if not f:
            continue
        if f[0].startswith("Average"):
            break
        if ":" in f[0]:
            t, f = f[0], f[1:]
        blocks[t] = blocks.get(t, 0.0) + float(f[3])
    rid = _run(ws, "ksar_hpux-sar.txt")
    s = load_series(ws, rid)
    assert s.frame["iops"].to_list() == pytest.approx(list(blocks.values()))
    assert max(blocks.values()) == 6216.0


def test_solaris_layers(ws):
    rid = _run(ws, "ksar_sar-Solaris-11.3.txt")
    layers = dict(ws.con.execute("SELECT DISTINCT device, layer FROM iostat_samples WHERE run_id = ?",
                                 [rid]).fetchall())
    assert (layers["sd4"], layers["sd4,a"], layers["nfs1"], layers["sd4.t2.m"]) == ("disk", "volume", "volume",
                                                                                     "volume")
    assert (layers["mpt_sas3"], layers["iscsi0"], layers["scsi_vhc"], layers["xhci0,bu"]) == ("adapter",) * 4
    # "           mpt_sas3          4     0.1      38    2700     0.0     3.1"
    r = _row(ws, rid, datetime(2017, 5, 26, 8, 20), "mpt_sas3")
    assert (r["util_pct"], r["aqu_sz"], r["tps"], r["kb_s"], r["await_ms"]) == (4.0, 0.1, 38.0, 1350.0, 3.1)
    assert all(d.startswith("sd") and "," not in d and "." not in d for d in list_devices(ws, rid).used)
    rid = _run(ws, "ksar_testSolaris10.txt")
    layers = dict(ws.con.execute("SELECT DISTINCT device, layer FROM iostat_samples WHERE run_id = ?",
                                 [rid]).fetchall())
    assert (layers["md10"], layers["sd1"], layers["sd1,a"], layers["ohci0,bu"]) == ("volume", "disk", "volume",
                                                                                    "adapter")


def test_aix_kbs_and_os(ws):
    rid = _run(ws, "ksar_sar-AIX-7.2_EXCERPT_header+disk.txt")
    # "            hdisk26      8      0.0       37    30932      0.0      4.0"
    r = _row(ws, rid, datetime(2020, 4, 20, 0, 1), "hdisk26")
    assert (r["util_pct"], r["tps"], r["kb_s"], r["await_ms"], r["svctm_ms"]) == (8.0, 37.0, 30932.0, 4.0, 4.0)
    assert _row(ws, rid, datetime(2020, 4, 20, 0, 2), "asm/localapps-108")["layer"] == "volume"
    run = ws.run(rid)
    assert (run.os, run.host, run.n_samples) == ("AIX 7.2", "tacora1", 2)


# ---- bad input: an error naming the line, nothing stored ------------------------------------------------------------
@pytest.mark.parametrize(("name", "old", "new", "message", "line"), [
    ("sysstat-tests_sar-dev.txt", "1604.70  41499.97", "1604.70  41x99.97", "rkB/s '41x99.97' is not a number", 6),
    ("sysstat-tests_sar-dev.txt", "0.32 sda", "sda", "expected 9 fields", 5),
    ("sysstat-tests_sar-dev.txt", "13:20:49         0.00", "13:20:09         0.00", "the time goes back", 7),
    ("sysstat-tests_sar-dev.txt", "04/18/19", "04/38/19", "the banner's date '04/38/19' is not a date", 1),
    ("ksar_hpux-sar.txt", "disk3    2.82", "disk3    2.8x", "%busy '2.8x' is not a number", 141),
    ("ksar_hpux-sar.txt", "disk11    2.82", "disk1    2.82", "device 'disk1' twice at 00:05:01", 142),
    ("sysstat-tests_sadf-d.txt", "2019-04-18 13:20:29 UTC;sda;", "2019-04-18 13:2:29 UTC;sda;",
     "time stamp '2019-04-18 13:2:29 UTC' is not one sadf prints", 287),
    (V + "sar-d-p_zh_CN.txt", "1.53      4.20 vda", "1.53      4.20M vda", "sar prints no unit 'M' for this column", 8),
])
def test_bad_input_names_its_line_and_stores_nothing(ws, tmp_path, name, old, new, message, line):
    text = (FOLDER / name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    r = import_file(ws, str(path), ImportOptions())
    assert r.status != "imported"
    assert message in r.error, r.error
    assert f"{name}:{line}:" in r.error
    assert ws.query("SELECT count(*) AS n FROM iostat_samples")["n"][0] == 0


def test_a_cp1252_device_name_is_read_and_the_encoding_said(ws, tmp_path):
    text = (FOLDER / "ksar_hpux-sar.txt").read_bytes().replace(b"disk101", b"d\xe9sk101")
    path = tmp_path / "hpux.txt"
    path.write_bytes(text)
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    assert ws.con.execute("SELECT count(*) FROM iostat_samples WHERE device = 'désk101'").fetchall() == [(16,)]
    assert '"encoding": "cp1252"' in ws.run(r.run_ids[0]).meta.json()


def test_large_files_stream_in_chunks(ws, monkeypatch):
    """Rows are sent in chunks; the stored result does not depend on the chunk size."""
    import parsers.sar as sar

    monkeypatch.setattr(sar, "CHUNK_ROWS", 7)
    for name in ("ksar_testSolaris10.txt", V + "sadf-d_b-d-p.txt"):
        path = FOLDER / name
        compare_golden(golden_dir(GOLDEN, "sar", path), snapshot(ws, path))


# ---- clocks and dates as the locales print them ----------------------------------------------------------------------
@pytest.mark.parametrize(("line", "hms"), [
    ("22:50:09       895.00", (22, 50, 9)),
    ("10:50:09 PM    895.00", (22, 50, 9)),
    ("12:00:01 AM    895.00", (0, 0, 1)),
    ("12:30:00 PM    895.00", (12, 30, 0)),
    ("22时50分09秒    895.00", (22, 50, 9)),  # zh_CN
    ("22時50分09秒    895.00", (22, 50, 9)),  # ja_JP, zh_TW
    ("22시 50분 09초    895.00", (22, 50, 9)),  # ko_KR: spaces inside the time
    ("下午 10時50分09秒 895.00", (22, 50, 9)),  # a 12-hour CJK clock, the half of the day first
    ("오후 10시 50분 09초 895.00", (22, 50, 9)),
])
def test_sar_clocks(line, hms):
    from parsers.sar import _leading_time

    lt = _leading_time(line)
    assert lt is not None
    assert lt[0].hms == hms
    assert lt[1].split() == ["895.00"]


@pytest.mark.parametrize(("text", "day"), [
    ("04/18/19", "2019-04-18"), ("11/23/2026", "2026-11-23"), ("23/11/2026", "2026-11-23"),
    ("23.11.2026", "2026-11-23"), ("2026-11-23", "2026-11-23"), ("2026年11月23日", "2026-11-23"),
    ("2026년 11월 23일", "2026-11-23"), ("23. nov. 2026", "2026-11-23"), ("05. mars 2026", "2026-03-05"),
])
def test_sar_banner_dates(text, day):
    from parsers.dates import Words, decide, read
    from parsers.sar import _banner_dated

    dated = _banner_dated(text)
    words = Words()
    words.add_date(text)
    decision = decide([dated], words)
    assert decision.decided
    assert str(read(dated.parts, dated.year_first, decision.order)) == day


def test_a_day_month_order_the_banner_cannot_tell_is_said():
    """04/08/18 with nothing else: the C locale's 8 April or en_GB's 4 August -- undecided, stored month first."""
    from parsers.dates import decide, read
    from parsers.sar import _banner_dated

    dated = _banner_dated("04/08/18")
    decision = decide([dated])
    assert not decision.decided
    assert decision.readings == ("MDY", "DMY")
    assert str(read(dated.parts, dated.year_first, decision.order)) == "2018-04-08"
    assert "month/day/year" in decision.note


@pytest.mark.parametrize("name", ["sysstat-tests_sadf-d.txt", "vm_sysstat-12.6.1_sadf-d_b-d-p.txt",
                                  "vm_sysstat-12.6.1_sadf-dh_d-p.txt"])
def test_every_sadf_row_has_its_own_lines_time(tmp_path, name):
    """A time's stamp is read once for all the device rows that repeat it (issue 31): every stored row still has
    the time of its own line, host by host, across restarts and zones; the rows are the file's disk rows."""
    from parsers.base import JobState, Rows
    from parsers.sar import SadfFormat, _sadf_time

    path = CORPUS / "sar" / name
    frames = [ev.frame for ev in SadfFormat().parse(str(path), ImportOptions(), JobState(), lambda *a: None)
              if isinstance(ev, Rows) and ev.table == "iostat_samples"]
    got = pl.concat(frames).select("ts", "device").rows()
    want, disk = [], False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("#"):
            disk = ";DEV;" in line
            width = len(line.split(";")) - 3
        elif disk and line.strip() and line.split(";")[1].strip() != "-1":
            body = line.split(";")[3:]
            want += [(_sadf_time(line.split(";")[2], n)[0], body[i]) for i in range(0, len(body), width)]
    assert sorted(got) == sorted(want)
    assert len(got) == len(want) > 0
