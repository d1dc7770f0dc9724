"""Hand-made iostat variants: locales, clocks, roll-over, device churn, first-report logic."""

from datetime import datetime

import pytest

from app.importer import import_file
from parsers.base import ImportOptions

HDR = "Device            r/s     w/s     rkB/s     wkB/s  %util"


def log(banner_date, stamps, rows_per_report, sep="."):
    out = [f"Linux 5.15.0 (vdi01) \t{banner_date} \t_x86_64_\t(4 CPU)", ""]
    for stamp, rows in zip(stamps, rows_per_report):
        if stamp:
            out.append(stamp)
        out.append(HDR)
        for dev, r, w in rows:
            out.append(f"{dev:<14}{r:>8.2f}{w:>8.2f}{r * 4:>10.2f}{w * 4:>10.2f}{1.0:>7.2f}".replace(".", sep))
        out.append("")
    return "\n".join(out) + "\n"


def imported(ws, write, text, name="t.txt", **opts):
    r = import_file(ws, write(name, text), ImportOptions(**opts))
    assert r.status == "imported", r.error
    return r


def sample_times(ws):
    return ws.con.execute("SELECT DISTINCT sample_idx, ts, t_s FROM iostat_samples ORDER BY 1").fetchall()


ROWS2 = [[("sda", 10, 20)], [("sda", 11, 21)]]


@pytest.mark.parametrize(("banner", "stamps", "expected"), [
    ("03/14/2024", ["03/14/2024 11:59:58 AM", "03/14/2024 12:00:03 PM"],
     [datetime(2024, 3, 14, 11, 59, 58), datetime(2024, 3, 14, 12, 0, 3)]),
    ("03/14/2024", ["03/14/2024 12:59:58 AM", "03/14/2024 01:00:03 AM"],
     [datetime(2024, 3, 14, 0, 59, 58), datetime(2024, 3, 14, 1, 0, 3)]),
    ("14.03.2024", ["14.03.2024 10:00:00", "14.03.2024 10:00:05"],
     [datetime(2024, 3, 14, 10, 0, 0), datetime(2024, 3, 14, 10, 0, 5)]),
    ("14/03/2024", ["14/03/2024 10:00:00", "14/03/2024 10:00:05"],
     [datetime(2024, 3, 14, 10, 0, 0), datetime(2024, 3, 14, 10, 0, 5)]),
    ("2024-03-14", ["2024-03-14T10:00:00+0100", "2024-03-14T10:00:05+0100"],
     [datetime(2024, 3, 14, 10, 0, 0), datetime(2024, 3, 14, 10, 0, 5)]),
    ("2024年03月14日", ["2024年03月14日 10时00分00秒", "2024年03月14日 10时00分05秒"],
     [datetime(2024, 3, 14, 10, 0, 0), datetime(2024, 3, 14, 10, 0, 5)]),
    ("03/14/24", ["03/14/24 23:59:58", "03/15/24 00:00:03"],
     [datetime(2024, 3, 14, 23, 59, 58), datetime(2024, 3, 15, 0, 0, 3)]),
])
def test_date_and_clock_forms(ws, write, banner, stamps, expected):
    r = imported(ws, write, log(banner, stamps, ROWS2))
    got = sample_times(ws)
    assert [g[1] for g in got] == expected
    assert [g[2] for g in got] == [0.0, 5.0]
    run = ws.run(r.run_ids[0])
    assert run.interval_s == 5.0
    assert run.interval_source == "timestamps"
    assert run.started_at == expected[0]


def test_time_only_stamps_roll_over_midnight(ws, write):
    stamps = ["11:59:55 PM", "12:00:00 AM", "12:00:05 AM"]
    imported(ws, write, log("03/14/2024", stamps, ROWS2 + [[("sda", 1, 1)]]))
    assert [g[2] for g in sample_times(ws)] == [0.0, 5.0, 10.0]


def test_decimal_comma_with_dotted_dates(ws, write):
    text = log("14.03.2024", ["14.03.2024 10:00:00", "14.03.2024 10:00:05"],
               [[("sda", 10.5, 20.25)], [("sda", 11.5, 21)]], sep=",")
    assert "10,50" in text
    imported(ws, write, text)
    assert ws.con.execute("SELECT r_s, w_s, rkb_s FROM iostat_samples ORDER BY sample_idx").fetchall() == [
        (10.5, 20.25, 42.0), (11.5, 21.0, 46.0)]


def test_ambiguous_day_month_is_said(ws, write):
    """03/04/2024 in the C-like layout is 4 March (en_US, ka_GE …) or 3 April (el_GR without its am/pm words, …):
    stored month first, the other reading kept, and the user asked."""
    r = imported(ws, write, log("03/04/2024", ["03/04/2024 10:00:00", "03/04/2024 10:00:05"], ROWS2))
    assert any("the dates read both ways" in w and "{fix:date_order}" in w for w in r.warnings)
    meta = ws.run(r.run_ids[0]).meta.as_dict()
    assert meta["date_reading"] == {"stored": "MDY", "others": {"DMY": {"2024-03-04": "2024-04-03"}}}


def test_devices_appear_and_vanish_mid_run(ws, write):
    reports = [[("sda", 1, 1)], [("sda", 2, 2), ("dm-3", 5, 5)], [("dm-3", 6, 6)]]
    stamps = ["03/14/2024 10:00:00", "03/14/2024 10:00:05", "03/14/2024 10:00:10"]
    r = imported(ws, write, log("03/14/2024", stamps, reports))
    got = ws.con.execute("SELECT sample_idx, device, r_s FROM iostat_samples ORDER BY 1, 2").fetchall()
    assert got == [(0, "sda", 1.0), (1, "dm-3", 5.0), (1, "sda", 2.0), (2, "dm-3", 6.0)]
    assert ws.run(r.run_ids[0]).n_devices == 2


def test_no_timestamps_needs_the_interval(ws, write):
    text = log("03/14/2024", [None, None, None], ROWS2 + [[("sda", 1, 1)]])
    r = imported(ws, write, text)
    assert any("{fix:set_interval}" in w for w in r.warnings)
    assert [g[2] for g in sample_times(ws)] == [None, None, None]
    assert ws.run(r.run_ids[0]).interval_source == "unknown"


def test_interval_given_by_the_user(ws, write):
    text = log("03/14/2024", [None, None, None], ROWS2 + [[("sda", 1, 1)]])
    r = imported(ws, write, text, interval_s=5)
    assert [g[2] for g in sample_times(ws)] == [0.0, 5.0, 10.0]
    run = ws.run(r.run_ids[0])
    assert run.interval_s == 5
    assert run.interval_source == "user"


def test_first_report_modes(ws, write, tmp_path):
    text = log("03/14/2024", ["03/14/2024 10:00:00", "03/14/2024 10:00:05"], ROWS2)
    imported(ws, write, text, name="a.txt")
    assert ws.con.execute("SELECT sample_idx, since_boot FROM iostat_samples ORDER BY 1").fetchall() == [
        (0, True), (1, False)]
    ws.con.execute("DELETE FROM iostat_samples; DELETE FROM cpu_samples; DELETE FROM runs")
    imported(ws, write, text, name="b.txt", first_report="interval")
    assert ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples").fetchall() == [(False,)]


def test_saying_what_the_first_report_is_answers_the_warning(ws, write):
    """The warning asks how iostat ran; once the user says so, it is gone (a report must not print it)."""
    text = log("03/14/2024", ["03/14/2024 10:00:00", "03/14/2024 10:00:05"], ROWS2)
    rid = imported(ws, write, text, name="a.txt").run_ids[0]
    assert any("{fix:first_report_interval}" in w for w in ws.run(rid).warnings)
    ws.set_first_report(rid, False)
    assert not any("{fix:first_report_interval}" in w for w in ws.run(rid).warnings)
    assert ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples").fetchall() == [(False,)]


PLAIN = """Linux 5.15.0 (vdi01) \t03/14/2024 \t_x86_64_\t(4 CPU)

Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn
sda             {0[0]:.2f}       {0[1]:.2f}        {0[2]:.2f}    {0[3]}      {0[4]}

Device             tps    kB_read/s    kB_wrtn/s    kB_read    kB_wrtn
sda             {1[0]:.2f}       {1[1]:.2f}        {1[2]:.2f}    {1[3]}      {1[4]}

"""


def test_since_boot_is_proved_by_cumulative_columns(ws, write):
    # report 0: 864,000 kB read at 10 kB/s = 86,400 s (a day of uptime); report 1: 50 kB at 10 kB/s = 5 s
    text = PLAIN.format((3.0, 10.0, 2.0, 864000, 172800), (3.0, 10.0, 2.0, 50, 10))
    r = imported(ws, write, text)
    meta = ws.con.execute("SELECT json_extract_string(meta, '$.first_report') FROM runs").fetchall()[0][0]
    assert meta.startswith("since-boot (proved")
    assert not any("since boot" in w for w in r.warnings)
    assert ws.con.execute("SELECT sample_idx, since_boot FROM iostat_samples ORDER BY 1").fetchall() == [
        (0, True), (1, False)]


def test_y_flag_is_proved_by_cumulative_columns(ws, write):
    # iostat -y: report 0 already covers one interval (50 kB at 10 kB/s = 5 s)
    text = PLAIN.format((3.0, 10.0, 2.0, 50, 10), (3.0, 10.0, 2.0, 50, 10))
    imported(ws, write, text)
    meta = ws.con.execute("SELECT json_extract_string(meta, '$.first_report') FROM runs").fetchall()[0][0]
    assert meta.startswith("interval (proved")
    assert ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples").fetchall() == [(False,)]


def test_two_hosts_in_one_file_give_two_runs(ws, write):
    a = log("03/14/2024", ["03/14/2024 10:00:00", "03/14/2024 10:00:05"], ROWS2)
    b = a.replace("vdi01", "vdi02")
    r = imported(ws, write, a + "\n" + b)
    assert len(r.run_ids) == 2
    hosts = ws.con.execute("SELECT host, n_samples FROM runs ORDER BY host").fetchall()
    assert hosts == [("vdi01", 2), ("vdi02", 2)]


def test_appended_invocation_of_the_same_host(ws, write):
    a = log("03/14/2024", ["03/14/2024 10:00:00", "03/14/2024 10:00:05"], ROWS2)
    b = log("03/14/2024", ["03/14/2024 11:00:00", "03/14/2024 11:00:05"], ROWS2)
    r = imported(ws, write, a + b)
    assert len(r.run_ids) == 1
    assert any("new iostat banner" in w for w in r.warnings)
    flags = ws.con.execute("SELECT sample_idx, since_boot FROM iostat_samples ORDER BY 1").fetchall()
    assert flags == [(0, True), (1, False), (2, True), (3, False)]
    assert ws.run(r.run_ids[0]).interval_s == 5.0


def test_small_chunks_give_the_same_result(ws, write, tmp_path):
    """Streaming: cutting the file into tiny chunks must not change a single value."""
    reports = [[("sda", i, i + 1), ("sdb", i * 2, 1)] for i in range(40)]
    stamps = [f"03/14/2024 10:{i // 12:02d}:{(i * 5) % 60:02d}" for i in range(40)]
    text = log("03/14/2024", stamps, reports)
    imported(ws, write, text, name="big.txt")
    whole = ws.con.execute("SELECT * EXCLUDE (run_id) FROM iostat_samples ORDER BY ALL").fetchall()
    ws.con.execute("DELETE FROM iostat_samples; DELETE FROM cpu_samples; DELETE FROM runs")
    imported(ws, write, text + "\n", name="big2.txt", chunk_bytes=200)
    chunked = ws.con.execute("SELECT * EXCLUDE (run_id) FROM iostat_samples ORDER BY ALL").fetchall()
    assert chunked == whole
    assert len(whole) == 80


def test_day_month_order_revealed_late_rewrites_the_times(ws, write):
    """12/03 reads as December 3rd until 13/03 proves day/month: every stored time must follow."""
    stamps = ["12/03/2024 23:59:55", "13/03/2024 00:00:00"]
    r = imported(ws, write, log("12/03/2024", stamps, ROWS2), chunk_bytes=64)
    assert [g[1] for g in sample_times(ws)] == [datetime(2024, 3, 12, 23, 59, 55), datetime(2024, 3, 13, 0, 0)]
    assert [g[2] for g in sample_times(ws)] == [0.0, 5.0]
    assert ws.run(r.run_ids[0]).file_date.isoformat() == "2024-03-12"


@pytest.mark.parametrize("chunk_bytes", [None, 300])
def test_a_layout_switch_from_x_to_d_mid_run_is_refused_naming_both_lines(ws, write, chunk_bytes):
    """Issue 30: real `iostat -x -t 1 4` followed by real `iostat -d -t 1 4` without its banner (two captures pasted
    into one file) imported silently, IOPS read from r/s + w/s for four reports and from tps after. Refused, naming
    the line where the layout changes and the header it differs from; nothing stored. Whole, and a chunk at a time
    (the regular-report path must not take the new header on trust)."""
    from tests.conftest import ROOT

    fx = ROOT / "tests" / "fixtures" / "iostat"
    x = (fx / "here_sysstat-12.6.1_iostat-x-t.txt").read_text()
    d = (fx / "here_sysstat-12.6.1_iostat-d-t.txt").read_text()
    body = d.split("\n", 2)[2]  # without the banner and the blank line after it
    text = x + body
    switch = text.count("\n", 0, text.index("Device             tps")) + 1
    first = text.count("\n", 0, text.index("Device            r/s")) + 1
    opts = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
    r = import_file(ws, write("pasted.txt", text), ImportOptions(**opts))
    assert r.status == "failed"
    named = int(r.error.split("pasted.txt:", 1)[1].split(":", 1)[0])
    # the tps header of the first -d report kept (its first, stamped in the -x capture's last second, is left out
    # as time already covered)
    assert named >= switch
    assert text.split("\n")[named - 1].startswith("Device             tps"), named
    assert "counts I/O as transfers (tps: iostat without -x)" in r.error
    assert f"read and write requests (r/s, w/s: iostat -x) (header at line {first})" in r.error
    assert ws.con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    # each capture alone imports
    for name, part in (("x.txt", x), ("d.txt", d)):
        assert import_file(ws, write(name, part), ImportOptions(**opts)).status == "imported"
