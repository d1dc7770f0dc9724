"""VDI sizing (J. Park et al., "Storage Sizing Issue of VDI System", ETRI: 100 users, 8..25 IOPS per user,
RAID 10, 75 IOPS disks -> 18..54 disks) and the response-time check, against hand calculations."""

import json

import pytest

from app.analysis import phases as ph
from app.analysis.series import AnalysisError
from app.analysis.sizing import measured_inputs, response_time_check, size_vdi
from app.analysis.sizing_presets import load_presets
from app.analysis.text import format_response_time
from app.importer import import_file
from parsers.base import ImportOptions
from tests.analysis_util import iops_log
from tests.conftest import SAMPLES


@pytest.mark.parametrize(("ipu", "front", "back", "exact", "disks"), [
    # 100 users x 8 IOPS = 800; 800 x 0.4 + 800 x 0.6 x 2 = 320 + 960 = 1,280; 1,280 / 75 = 17.07 -> 18
    (8, 800, 1280, 1280 / 75, 18),
    # 100 users x 25 IOPS = 2,500; 1,000 + 1,500 x 2 = 4,000; 4,000 / 75 = 53.33 -> 54
    (25, 2500, 4000, 4000 / 75, 54),
])
def test_the_etri_paper_rounds_up(ipu, front, back, exact, disks):
    r = size_vdi(100, ipu, read_pct=40, raid="10", disk_iops=75)
    assert r.frontend_iops == front
    assert r.backend_iops == back
    assert r.disks_exact == pytest.approx(exact)
    assert r.disks_for_iops == disks
    assert r.disks == disks
    assert f"{r.disks_exact:.2f}" in ("17.07", "53.33")
    assert r.disks_for_capacity is None
    assert r.raid["write_penalty"] == 2


def test_capacity_and_the_larger_of_the_two():
    # 100 x 50 GB on 750 GB disks in RAID 10 (half usable): 5,000 / 375 = 13.33 -> 14; IOPS need 18
    r = size_vdi(100, 8, read_pct=40, raid="10", disk_iops=75, gb_per_user=50, disk_gb=750)
    assert r.capacity_exact == pytest.approx(5000 / 375)
    assert r.disks_for_capacity == 14
    assert r.disks == 18
    r = size_vdi(100, 8, read_pct=40, raid="10", disk_iops=75, gb_per_user=200, disk_gb=750)
    # 20,000 / 375 = 53.33 -> 54
    assert r.disks_for_capacity == 54
    assert r.disks == 54
    # array capability with 18 disks: 18 x 75 / (0.4 + 0.6 x 2) = 843.75 front-end IOPS = 105.47 users of 8 IOPS
    r = size_vdi(100, 8, read_pct=40, raid="10", disk_iops=75)
    assert r.array_frontend_iops == 843.75
    assert r.users_supported == pytest.approx(105.46875)
    with pytest.raises(AnalysisError, match="both"):
        size_vdi(100, 8, gb_per_user=50)


def test_exact_arithmetic_does_not_round_a_whole_quotient_up():
    # 30 x 8 = 240; 240 x 0.7 + 240 x 0.3 x 6 = 168 + 432 = 600; 600 / 75 = 8 exactly (in floats: 8.000000000000002)
    r = size_vdi(30, 8, read_pct=70, raid="6", disk_iops=75)
    assert r.backend_iops == 600
    assert r.disks_exact == 8
    assert r.disks_for_iops == 8
    assert not any("round UP" in n for n in r.notes)


def test_raid_levels_storm_multiplier_and_layout():
    # RAID 5: penalty 4; 1,000 front-end at 50 % reads -> 500 + 2,000 = 2,500 / 125 = 20
    r = size_vdi(100, 10, read_pct=50, raid="5", disk_type="sas10k")
    assert r.backend_iops == 2500
    assert r.disks == 20
    assert r.disks_layout == 20
    assert r.inputs["disk_iops"]["value"] == 125
    r = size_vdi(100, 10, read_pct=50, raid="5", disk_iops=150)  # 16.67 -> 17 disks -> 20 in groups of 5
    assert r.disks == 17
    assert r.disks_layout == 20
    assert size_vdi(100, 10, read_pct=50, raid="dp", disk_iops=100).backend_iops == 500 + 500 * 2
    assert size_vdi(100, 10, read_pct=0, raid="0", disk_iops=100).backend_iops == 1000
    r = size_vdi(100, 8, read_pct=40, storm_multiplier=5, disk_iops=75)
    assert r.frontend_iops == 4000
    assert r.inputs["storm_multiplier"]["source"] == "given"
    r = size_vdi(100, 8, storm="login-storm")
    assert r.frontend_iops == 4000
    assert "NetApp" in r.inputs["storm_multiplier"]["source"]
    with pytest.raises(AnalysisError, match="RAID"):
        size_vdi(100, 8, raid="7")


def test_defaults_and_profiles_say_where_they_come_from():
    r = size_vdi(100, 8)
    assert r.inputs["read_pct"]["value"] == 40
    assert "default" in r.inputs["read_pct"]["source"]
    assert r.inputs["disk_iops"]["value"] == 75
    assert "7,200 rpm SATA / NL-SAS disks (default)" in r.inputs["disk_iops"]["source"]
    r = size_vdi(100, profile="office-25")
    assert r.backend_iops == 4000
    assert r.disks == 54
    assert "ETRI" in r.inputs["iops_per_user"]["source"]
    with pytest.raises(AnalysisError, match="IOPS per user"):
        size_vdi(100)


def test_presets_are_editable(tmp_path):
    p = tmp_path / "p.json"
    p.write_text(json.dumps({"disk_types": {"sata7k": {"iops": 80}}, "raid": {"5": {"write_penalty": 4}}}))
    pre = load_presets(p)
    assert pre["disk_types"]["sata7k"]["iops"] == 80
    assert pre["disk_types"]["sata7k"]["range"] == "75-80"
    assert size_vdi(100, 8, read_pct=40, raid="10", presets=pre).disks == 16  # 1,280 / 80 = 16
    p.write_text(json.dumps({"colours": {}}))
    with pytest.raises(ValueError, match="unknown section"):
        load_presets(p)
    for section in ("raid", "disk_types", "user_profiles", "storm_multipliers"):
        assert all("source" in v for v in load_presets()[section].values())


STORM = [0, 0, 400, 800, 1200, 800, 400, 200, 200, 200, 200, 0]


def test_measured_inputs(ws, write):
    rid = import_file(ws, write("s.txt", iops_log(STORM, read_share=0.25)), ImportOptions()).run_ids[0]
    ph.add_phase(ws, rid, "steady", 35, 55)  # four reports at 200 IOPS
    m = measured_inputs(ws, rid, 10, steady_phase="steady")
    assert m["peak_iops"] == 1200
    assert m["steady_iops"] == 200
    assert m["iops_per_user"] == 20
    assert m["storm_multiplier"] == 6
    assert m["read_pct"] == pytest.approx(25)
    r = size_vdi(100, presets=None, measured=m, disk_iops=75, raid="10")
    # 100 x 20 x 6 = 12,000 front-end; 3,000 + 9,000 x 2 = 21,000 back-end; 280 disks
    assert r.frontend_iops == 12000
    assert r.backend_iops == 21000
    assert r.disks == 280
    assert r.inputs["iops_per_user"]["source"].startswith("measured")
    # default steady level: median of 400 800 1200 800 400 200 200 200 200 (first to last activity) = 400
    assert measured_inputs(ws, rid, 10)["steady_iops"] == 400
    with pytest.raises(AnalysisError, match="no stored phase"):
        measured_inputs(ws, rid, 10, steady_phase="nope")


def test_response_time_from_iostat_is_interval_level(ws, write):
    rid = import_file(ws, write("a.txt", iops_log([300, 100, 100, 100], await_ms=[10, 60, 20, 80])),
                      ImportOptions()).run_ids[0]
    rt = response_time_check(ws, rid)
    # reports within 50 ms hold 1,500 + 500 of 3,000 I/Os
    assert rt["share"] == pytest.approx(2000 / 3000)
    assert rt["passed"] is False
    assert rt["basis"] == "iostat await"
    assert rt["label"].startswith("INTERVAL-LEVEL")
    assert rt["exact"] is False
    assert response_time_check(ws, rid, goal_pct=60)["passed"] is True


def test_response_time_from_histograms_and_iomark(ws):
    r = import_file(ws, str(SAMPLES / "fio_randrw_jsonplus.json"), ImportOptions())
    rt = response_time_check(ws, r.run_ids[0])
    assert rt["basis"] == "latency histogram"
    assert rt["exact"]
    assert rt["share"] == 1.0
    assert rt["passed"]
    # an IOmark result (its table is being added elsewhere: the check only needs run_id, iops, pct_within_50ms)
    ws.con.execute("DROP TABLE IF EXISTS iomark_results")
    ws.con.execute("CREATE TABLE iomark_results (run_id INTEGER, iops DOUBLE, pct_within_50ms DOUBLE)")
    rid = ws.con.execute("INSERT INTO runs (name, kind, format, source_path, source_sha256, imported_at) VALUES "
                         "('iomark', 'iomark', 'test', '/x', 'x', now()) RETURNING run_id").fetchall()[0][0]
    # the ETRI paper's second storage server: about 27 % within 50 ms
    ws.con.execute("INSERT INTO iomark_results VALUES (?, 100, 20), (?, 300, 29.6667)", [rid, rid])
    rt = response_time_check(ws, rid)
    # two rows are two measurements: the check takes the lowest and names both, it never blends them
    assert rt["basis"] == "iomark"
    assert rt["share"] == pytest.approx(0.20)
    assert [x["share"] for x in rt["rows"]] == pytest.approx([0.20, 0.296667])
    assert "lowest of 2 result rows" in rt["label"]
    assert "not averaged" in rt["label"]
    assert rt["passed"] is False
    assert "(as IOmark reports it)" in format_response_time(rt)
    assert "(exact)" not in format_response_time(rt)
