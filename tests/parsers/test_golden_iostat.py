"""Every iostat file of the corpus imports to exactly its reviewed golden output.

Regenerate with `make golden` after a deliberate change, and review the diff.
"""

import pytest

from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

# refused (tests/parsers/test_corpus_outcomes.py): sysstat's own test prints a counter that went back as
# 590,484,765,483,660,416 tps -- no measurement; the golden used to keep it as the file's truth
REFUSED = {"sysstat-tests_iostat_2019-cbe5da01.txt"}
FILES = corpus_files("iostat", keep=lambda p: p.name not in REFUSED)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_iostat_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "iostat", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_iostat_file_has_a_golden():
    names = {p.name for p in FILES}
    assert len(names) >= 50, f"expected the iostat corpus at {CORPUS}"
    have = {p.name for p in (GOLDEN / "iostat").iterdir()} if (GOLDEN / "iostat").is_dir() else set()
    assert names <= have


# ---- sysstat 12.x layouts (issue 15): values read by hand from the captures, independently of the parser ----
def _rows(ws, path):
    from app.importer import import_file
    from parsers.base import ImportOptions

    res = import_file(ws, str(path), ImportOptions())
    assert res.status == "imported", res.error
    return ws.query("SELECT * FROM iostat_samples ORDER BY sample_idx, device")


def test_pretty_x_sections_merge_into_one_row_per_device_and_report(ws):
    df = _rows(ws, CORPUS / "iostat" / "vm_sysstat-12.6.1_iostat-x-pretty-t-ISO.txt")
    assert df.height == 12  # 6 reports x 2 devices, not 4 partial rows each
    assert df.select("sample_idx", "device").n_unique() == 12
    # 2026-11-23T22:22:38+0000, loop1: r/s 2652.00 (r/ section), w/s 600.00 (w/), d/s 1.00 dkB/s 49152.00 (d/),
    # f/s 300.00 f_await 0.46 aqu-sz 0.34 %util 19.20 (f/)
    row = df.filter((df["sample_idx"] == 3) & (df["device"] == "loop1")).row(0, named=True)
    assert (row["r_s"], row["w_s"], row["d_s"], row["dkb_s"]) == (2652.0, 600.0, 1.0, 49152.0)
    assert (row["f_s"], row["f_await_ms"], row["aqu_sz"], row["util_pct"]) == (300.0, 0.46, 0.34, 19.2)
    assert str(row["ts"]) == "2026-11-23 22:22:38"


def test_pretty_x_without_time_stamps_counts_reports_by_their_sections(ws):
    df = _rows(ws, CORPUS / "iostat" / "vm_sysstat-12.6.1_iostat-dx-pretty.txt")
    assert sorted(set(df["sample_idx"])) == [0, 1, 2, 3]  # 4 reports (iostat -dx --pretty 1 4), 16 sections
    # second report, vda: r/s 669.00 rkB/s 4972.00, w/s 4.00, d/s 4.00, f/s 0.00 %util 3.20
    row = df.filter((df["sample_idx"] == 1) & (df["device"] == "vda")).row(0, named=True)
    assert (row["r_s"], row["rkb_s"], row["w_s"], row["d_s"], row["f_s"], row["util_pct"]) == \
        (669.0, 4972.0, 4.0, 4.0, 0.0, 3.2)


def test_human_values_with_percent_signs(ws):
    df = _rows(ws, CORPUS / "iostat" / "vm_sysstat-12.6.1_iostat-human-x-t.txt")
    # 11/23/26 22:22:47, loop1: rkB/s "46.6M" = 46.6 x 1024 kB, wkB/s "93.8M", %util "34.4%", rareq-sz "16.0k"
    row = df.filter((df["sample_idx"] == 2) & (df["device"] == "loop1")).row(0, named=True)
    assert row["rkb_s"] == pytest.approx(46.6 * 1024)
    assert row["wkb_s"] == pytest.approx(93.8 * 1024)
    assert (row["r_s"], row["util_pct"], row["rareq_kb"], row["rrqm_pct"]) == (2982.0, 34.4, 16.0, 0.0)
    # vda, same report: %rrqm "2.6%"
    assert df.filter((df["sample_idx"] == 2) & (df["device"] == "vda"))["rrqm_pct"].to_list() == [2.6]
    # avg-cpu of the first report: "39.0%    0.0%    7.1%    0.4%    0.8%   52.7%"
    cpu = ws.query("SELECT user, nice, system, iowait, steal, idle FROM cpu_samples ORDER BY sample_idx")
    assert cpu.row(0) == (39.0, 0.0, 7.1, 0.4, 0.8, 52.7)
    assert cpu.height == 6
