"""esxtop batch mode (PDH-CSV): no real capture is public (tests/corpus/MANIFEST.md, "Not found"), so the files
here are written by benchmarks/esxtop_gen.py after the documented layout (tests/fixtures/PROVENANCE.md). Each
imports to its reviewed golden output; the stored figures equal the cells under their counters' names, read by
hand with the csv module; the analyses (series, storm, compare, the host-latency questions) run on the run.

Regenerate with `STORMSCOPE_REGEN_GOLDEN=1 pytest tests/test_golden_esxtop.py`, and review the diff.
"""

import csv
import json
from datetime import datetime

import pytest

import parsers.pdh
from app.analysis.series import load_series
from app.analysis.storm import storm_metrics
from app.importer import import_file
from parsers.base import ImportOptions
from parsers.registry import detect
from tests.conftest import CORPUS, GOLDEN, REGEN, ROOT
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden
from tests.test_cli import run as cli

FIXTURES = ROOT / "tests" / "fixtures" / "esxtop"
FILES = sorted(FIXTURES.glob("*.csv"))
THREE = FIXTURES / "esxtop_gen_3vms.csv"
UUIDS = FIXTURES / "esxtop_gen_uuids_local.csv"
DEV0 = "naa.6000c290000000000000000000000000"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_esxtop_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "esxtop", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_the_files_and_what_is_missing():
    assert [p.name for p in FILES] == ["esxtop_gen_10vms_1lun_queue.csv", "esxtop_gen_3vms.csv",
                                      "esxtop_gen_pair_vm_iostat.csv", "esxtop_gen_uuids_local.csv"]
    assert {p.name for p in (GOLDEN / "esxtop").iterdir()} == {p.name for p in FILES}
    assert not (CORPUS / "esxtop").exists()  # a real capture goes there (with its golden) once one is found
    assert "esxtop batch CSV (`esxtop -b`): no sample found" in (CORPUS / "MANIFEST.md").read_text()
    for p in FILES:
        assert detect(str(p)).id == "esxtop-csv"


def _table(path):
    with open(path, newline="") as fh:
        head, *data = list(csv.reader(fh))
    return head, data


def _imported(ws, path):
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    return r


def _rows(ws, rid, where="", args=()):
    cur = ws.con.execute(f"SELECT * FROM iostat_samples WHERE run_id = ? {where} ORDER BY device, sample_idx",
                         [rid, *args])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_device_figures_equal_the_file_read_by_hand(ws):
    head, data = _table(THREE)
    host = "esx01.example.com"

    def cell(i, obj, counter):
        return float(data[i][head.index(f"\\\\{host}\\{obj}\\{counter}")])

    r = _imported(ws, THREE)
    rid = r.run_ids[0]
    obj = f"Physical Disk SCSI Device({DEV0})"
    rows = _rows(ws, rid, "AND device = ?", [DEV0])
    assert len(rows) == len(data) == 12
    for i, x in enumerate(rows):
        assert x["layer"] == "disk"
        assert x["r_s"] == cell(i, obj, "Reads/sec")
        assert x["w_s"] == cell(i, obj, "Writes/sec")
        assert x["tps"] is None  # Commands/sec only stands in when reads and writes are missing
        assert x["rkb_s"] == cell(i, obj, "MBytes Read/sec") * 1024
        assert x["wkb_s"] == cell(i, obj, "MBytes Written/sec") * 1024
        assert x["await_ms"] == cell(i, obj, "Average Guest MilliSec/Command")
        assert x["r_await_ms"] == cell(i, obj, "Average Guest MilliSec/Read")
        assert x["davg_ms"] == cell(i, obj, "Average Driver MilliSec/Command")
        assert x["kavg_ms"] == cell(i, obj, "Average Kernel MilliSec/Command")
        assert x["qavg_ms"] == cell(i, obj, "Average Queue MilliSec/Command")
        assert x["aqu_sz"] == pytest.approx(cell(i, obj, "Active Commands") + cell(i, obj, "Queued Commands"))
        assert x["failed_s"] == cell(i, obj, "Failed Commands/sec")
        assert x["await_ms"] == pytest.approx(x["davg_ms"] + x["kavg_ms"])  # GAVG = KAVG + DAVG as printed
        assert x["vm"] is None
    # row 1 typed from the file: "03/02/2026 07:55:05" (the generator's 5 s), UTC
    assert (rows[1]["ts"], rows[1]["t_s"]) == (datetime(2026, 3, 2, 7, 55, 5), 5.0)
    run = ws.run(rid)
    meta = run.meta.as_dict()
    assert (run.host, run.os, run.interval_s) == (host, "VMware ESXi", 5.0)
    assert (meta["utc_offset"], meta["time_zone"]) == ("+00:00", "UTC")
    assert meta["date_order"] == "month/day/year (as esxtop batch mode writes it)"
    assert r.warnings == []  # esxtop always writes month/day: no undecided-order warning
    assert meta["devices_by_layer"] == {"adapter": 2, "disk": 2, "total": 3, "vm_disk": 6, "world": 3}
    assert meta["objects_not_read"]["Physical Disk Path"] == 2 * 2 * 23
    assert "Device Q Depth" in meta["counters_not_stored"]


def test_the_layers_hang_together(ws):
    """A device's reads are its worlds'; a VM's own row (layer total) is the sum of its virtual disks; the
    adapters together carry the devices' reads."""
    rid = _imported(ws, THREE).run_ids[0]
    q = ws.con.execute

    def per(layer, key="device"):
        return {(k, i): v for k, i, v in q(f"SELECT {key}, sample_idx, sum(r_s) FROM iostat_samples WHERE run_id = ? "
                                           f"AND layer = '{layer}' GROUP BY ALL", [rid]).fetchall()}

    worlds = q("SELECT sample_idx, sum(r_s) FROM iostat_samples WHERE run_id = ? AND layer = 'world' GROUP BY 1",
               [rid]).fetchall()
    by_sample: dict[int, float] = {}
    for (_d, i), v in per("disk").items():
        by_sample[i] = by_sample.get(i, 0) + v
    assert {i: round(v, 2) for i, v in worlds} == {i: round(v, 2) for i, v in by_sample.items()}
    # the per-world rows name their VM (from the world ids in the Vcpu columns)
    assert sorted(v for (v,) in q("SELECT DISTINCT vm FROM iostat_samples WHERE run_id = ? AND layer = 'world'",
                                  [rid]).fetchall()) == ["VDI-001", "VDI-002", "VDI-003"]
    vm_disks = per("vm_disk", "vm")
    vm_total = per("total", "vm")
    assert vm_total.keys() == vm_disks.keys()
    assert all(vm_total[k] == pytest.approx(vm_disks[k]) for k in vm_total)
    assert sorted(d for (d,) in q("SELECT DISTINCT device FROM iostat_samples WHERE run_id = ? AND layer = 'vm_disk'",
                                  [rid]).fetchall())[:2] == ["VDI-001:scsi0:0", "VDI-001:scsi0:1"]


def test_older_names_with_uuids_a_local_host_and_midnight(ws):
    head, data = _table(UUIDS)
    r = _imported(ws, UUIDS)
    rid = r.run_ids[0]
    assert ws.run(rid).host == "local"
    rows = _rows(ws, rid, "AND layer = 'vm_disk'")
    assert {x["device"] for x in rows} == {"VDI-001 (564d0000-0000-4000-8000-000000000000):scsi0:0",
                                           "VDI-002 (564d0001-0000-4000-8000-000000000001):scsi0:0"}
    assert {x["vm"] for x in rows} == {"VDI-001", "VDI-002"}  # the uuid esxtop appends is not part of the VM
    assert [x["ts"] for x in rows[:6]] == [datetime(2025, 12, 13, 23, 59, 50), datetime(2025, 12, 13, 23, 59, 55),
                                           datetime(2025, 12, 14, 0, 0), datetime(2025, 12, 14, 0, 0, 5),
                                           datetime(2025, 12, 14, 0, 0, 10), datetime(2025, 12, 14, 0, 0, 15)]
    assert [x["t_s"] for x in rows[:6]] == [0, 5, 10, 15, 20, 25]
    col = head.index("\\\\local\\Virtual Disk(VDI-002 (564d0001-0000-4000-8000-000000000001):scsi0:0)\\Reads/sec")
    assert [x["r_s"] for x in rows if x["vm"] == "VDI-002"] == [float(row[col]) for row in data]


def test_chunks_of_few_cells_give_the_same_rows(ws, monkeypatch):
    """Rows are converted in chunks bounded by cells (the width of the selection): a chunk of 2,000 cells (a
    couple of rows) imports exactly what one chunk does."""
    whole = _rows(ws, _imported(ws, THREE).run_ids[0])
    ws.delete_run(ws.runs()[0].run_id)
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", 2000)
    parts = _rows(ws, _imported(ws, THREE).run_ids[0])
    strip = [{k: v for k, v in x.items() if k != "run_id"} for x in whole]
    assert strip == [{k: v for k, v in x.items() if k != "run_id"} for x in parts]


def test_commands_stand_in_only_without_reads_and_writes(ws, write):
    hdr = '"(PDH-CSV 4.0) (UTC)(0)"'
    cols = ["\\\\esx\\Physical Disk SCSI Device(naa.1)\\Commands/sec",
            "\\\\esx\\Physical Disk SCSI Device(naa.1)\\Active Commands",
            "\\\\esx\\Physical Disk Adapter(vmhba1)\\Commands/sec", "\\\\esx\\Physical Disk Adapter(vmhba1)\\Reads/sec",
            "\\\\esx\\Physical Disk NFS Volume(nfs01)\\Commands/sec"]
    text = ",".join([hdr, *(f'"{c}"' for c in cols)]) + '\n"01/05/2026 10:00:00","120.00","3.00","80.00","70.00",' \
                                                        '"4.50"\n'
    r = _imported(ws, write("few.csv", text))
    rows = {x["device"]: x for x in _rows(ws, r.run_ids[0])}
    assert (rows["naa.1"]["tps"], rows["naa.1"]["r_s"], rows["naa.1"]["aqu_sz"]) == (120.0, None, None)  # no QUED
    assert (rows["vmhba1"]["tps"], rows["vmhba1"]["r_s"], rows["vmhba1"]["layer"]) == (None, 70.0, "adapter")
    assert (rows["nfs01"]["tps"], rows["nfs01"]["layer"]) == (4.5, "disk")


def test_series_and_storm_on_an_esxtop_run(ws):
    rid = _imported(ws, THREE).run_ids[0]
    s = load_series(ws, rid)
    assert s.devices.used == [DEV0, "naa.6000c290000000000000000000000001"]  # the physical disks only
    assert "VDI-001:scsi0:0" in s.devices.excluded
    head, data = _table(THREE)
    col = [head.index(f"\\\\esx01.example.com\\Physical Disk SCSI Device({d})\\{c}") for d in s.devices.used
           for c in ("Reads/sec", "Writes/sec")]
    iops = [sum(float(row[c]) for c in col) for row in data]
    assert s.frame.get_column("iops").to_list() == pytest.approx(iops)
    m = storm_metrics(s)
    assert m.peak_iops == pytest.approx(max(iops))
    assert m.peak_sample_idx == iops.index(max(iops))


def test_storm_and_compare_commands_on_perfmon_and_esxtop_runs(tmp_path):
    wsp = str(tmp_path / "cli.duckdb")
    typeperf = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
    p = cli("import", str(typeperf), str(THREE), "-w", wsp)
    assert p.returncode == 0, p.stdout + p.stderr
    perf = json.loads(cli("analyze", "storm", "-w", wsp, "--run", "1", "--json").stdout)["run"]
    # PhysicalDisk(0 C:) only (its _Total is the tool's sum): reads + writes of line 4, 0.299066 + 21.632413
    assert perf["peak_iops"] == pytest.approx(0.299066 + 21.632413)
    esx = json.loads(cli("analyze", "storm", "-w", wsp, "--run", "2", "--json").stdout)["run"]
    head, data = _table(THREE)
    cols = [i for i, h in enumerate(head) if "Physical Disk SCSI Device(" in h and h.endswith(("\\Reads/sec",
                                                                                              "\\Writes/sec"))]
    assert len(cols) == 4
    assert esx["peak_iops"] == pytest.approx(max(sum(float(r[c]) for c in cols) for r in data))
    out = json.loads(cli("compare", "-w", wsp, "--runs", "1", "2", "--phases", "none", "--json").stdout)
    peak = next(m for m in out["metrics"] if m["metric"] == "peak_iops")
    assert peak["values"] == [pytest.approx(perf["peak_iops"]), pytest.approx(esx["peak_iops"])]
    text = cli("analyze", "storm", "-w", wsp, "--run", "2").stdout
    assert "whole disks: the physical disks" in text


def _with_cell(tmp_path, header_cell: str, name: str = "odd.csv"):
    """esxtop_gen_3vms.csv with one more column after the fifth: ``header_cell`` as written between the header's
    separators (stray quotes included), 12.5 in every row."""
    lines = (FIXTURES / "esxtop_gen_3vms.csv").read_text(encoding="utf-8").splitlines()
    out = []
    for k, line in enumerate(lines):
        cells = line.split('","')
        cells.insert(5, header_cell if k == 0 else "12.5")
        out.append('","'.join(cells))
    path = tmp_path / name
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("cell", [
    '\\\\esx01.example.com\\Power Cpu(0)\\%"C1" Residency',  # stray quotes inside a counter path
    '"C1" Residency \\\\esx01.example.com\\Power Cpu(0)',  # quotes that leave no counter path at all
])
def test_one_odd_header_cell_of_a_counter_never_read_does_not_lose_the_file(ws, tmp_path, cell):
    """Issue 28: a real whole-host capture (17,427 columns) was refused for one CPU power-state header cell holding
    stray quotes. Such a cell is skipped, said in one warning, and every stored value is the file's without it."""
    clean = _imported(ws, FIXTURES / "esxtop_gen_3vms.csv").run_ids[0]
    r = import_file(ws, str(_with_cell(tmp_path, cell)), ImportOptions())
    assert r.status == "imported", r.error
    odd = r.run_ids[0]
    assert [w for w in r.warnings if "header cell" in w] == [
        w for w in r.warnings if "1 header cell that is no counter path or holds stray quotes, of counters "
        "StormScope does not read: skipped, not read (cell 6 " in w]
    assert any("header cell" in w for w in r.warnings)
    def rows(rid):
        return [{k: v for k, v in r.items() if k != "run_id"} for r in _rows(ws, rid)]

    assert rows(odd) == rows(clean)


def test_stray_quotes_in_a_counter_that_is_read_are_an_error(ws, tmp_path):
    lines = (FIXTURES / "esxtop_gen_3vms.csv").read_text(encoding="utf-8").splitlines()
    header = next(c for c in lines[0].split('","') if "\\Physical Disk SCSI Device(" in c and c.endswith("Reads/sec"))
    broken = header.replace("Reads/sec", 'Reads"/sec')
    path = tmp_path / "bad.csv"
    path.write_text("\n".join([lines[0].replace(header, broken), *lines[1:]]) + "\n", encoding="utf-8")
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed"
    assert "holds stray quotes in a counter StormScope reads (Physical Disk SCSI Device\\Reads/sec)" in r.error
