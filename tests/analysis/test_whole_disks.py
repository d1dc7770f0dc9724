"""No whole-disk figure counts a device twice (issue 28): devices that are not this host's disks are told by name
(zram, NBD, Ceph RBD, NVMe multipath paths, PowerPath, VxVM), and a device nothing declares physical whose every
report equals the sum of other whole disks is proven stacked on them by its own figures -- checked after every
import -- while the two sides of a real mirror stay two disks."""

from __future__ import annotations

import pytest

from app.analysis.series import list_devices, run_series
from app.importer import import_file
from app.series_sums import default_choice
from parsers.base import ImportOptions
from tests.conftest import CORPUS


def _run(ws, rel: str) -> int:
    r = import_file(ws, str(CORPUS / rel), ImportOptions(date_order="MDY"))
    assert r.status == "imported", r.error
    return r.run_ids[0]


def test_sar_device_numbers_stacked_on_a_disk_are_counted_once(ws):
    """sysstat 11.6.1 `sar -d` without -p (ksar's public file): dev254-1 and dev253-0 write the same kB report
    after report (496.80, 14.00, 8.00 ...): one device-mapper volume and the disk under it, both boot-assigned
    majors. Whole-disk figures summed both: 17.4 IOPS and 993.6 kB/s in the first report instead of 6.7 and
    496.8."""
    rid = _run(ws, "sar/ksar_sar-11.6.1-full-output.txt")
    choice = list_devices(ws, rid)
    assert choice.used == ["dev253-0", "dev254-0"]
    assert choice.excluded == {"dev254-1": "its figures equal dev253-0's in every report: stacked on it (its I/O "
                                           "is counted there)"}
    s = run_series(ws, rid)
    assert [round(x, 2) for x in s.frame["iops"].to_list()] == [6.7, 0.9, 1.0, 0.9, 4.5, 0.0]
    assert [round(x, 2) for x in s.frame["kbs"].to_list()] == [496.8, 14.0, 8.0, 8.8, 269.2, 0.0]
    run = ws.run(rid)
    assert "dev254-1" in run.meta.as_dict()["stacked_by_data"]
    assert any(w.startswith("'dev254-1' is left out of whole-disk figures") for w in run.warnings)
    summed = ws.con.execute("SELECT device FROM series_devices WHERE run_id = ? AND summed ORDER BY 1",
                            [rid]).fetchall()
    assert summed == [("dev253-0",), ("dev254-0",)]  # the stored sums agree with the choice


@pytest.mark.parametrize("rel", ["sar/ksar_sar-Solaris-11.3.txt", "sar/ksar_testSolaris10.txt"])
def test_the_two_sides_of_a_mirror_stay_two_disks(ws, rel):
    """Solaris root mirrors (sd5/sd9, sd0/sd3) do nearly the same I/O, never the same to the digit report after
    report, and are disks by name: both are summed."""
    rid = _run(ws, rel)
    assert "stacked_by_data" not in ws.run(rid).meta.as_dict()
    assert not any("its figures equal" in why for why in list_devices(ws, rid).excluded.values())


@pytest.mark.parametrize("rel", ["locales/C_iostat-x-t_day.txt", "locales/en_US_sar-d-p_midnight.txt",
                                 "locales/de_DE_sar-d_month-end.txt", "locales/ja_JP_iostat-x-t-JSON_midnight.json"])
def test_zram_and_the_loop_device_over_it_are_not_disks(ws, rel):
    """The locale captures hold vda, zram0 (compressed RAM) and loop1 over zram0 (their figures are equal) and
    loop0: whole disks were vda + zram0 -- memory counted as disk I/O."""
    rid = _run(ws, rel)
    choice = list_devices(ws, rid)
    assert choice.used == ["vda"]
    assert choice.excluded["zram0"] == "compressed RAM disk (zram): its I/O goes to memory, not to a disk"
    assert "virtual zram devices" in str(choice.rule)


def test_name_rules_for_devices_that_are_not_this_host_s_disks():
    names = ["sda", "sdb", "nvme0n1", "nvme0c0n1", "nvme0c1n1", "emcpowera", "emcpowera1", "rbd0", "nbd3",
             "VxVM12000", "zram1"]
    choice = default_choice([(n, False) for n in names])
    assert choice.used == ["nvme0n1", "sda", "sdb"]
    assert {n: why.split(" ")[0] for n, why in choice.excluded.items()} == {
        "nvme0c0n1": "one", "nvme0c1n1": "one", "emcpowera": "PowerPath", "emcpowera1": "partition", "rbd0": "Ceph",
        "nbd3": "network", "VxVM12000": "Veritas", "zram1": "compressed"}


# ---- the consultant's whole disks (Whole disks… in the run menu; run ID --whole-disks) ----------------------------
def _cli(capsys, *args: str) -> tuple[int, str, str]:
    from app.cli.entry import main as cli_main

    try:
        rc = cli_main(list(args))
    except SystemExit as e:  # argparse: a usage error
        rc = int(e.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_whole_disks_chosen_on_the_command_line_are_what_every_figure_sums(tmp_path, capsys):
    """ksar's sar -d: the rules sum dev253-0 + dev254-0 and leave out dev254-1 (proven stacked on dev253-0). The
    consultant may sum the volume instead of the disk under it; a choice that counts its I/O twice (the volume with
    the disk under it) is refused with the proof; 'rules' gives StormScope's choice back, with its warning."""
    from app.workspace import Workspace

    wsp = str(tmp_path / "ws.duckdb")
    src = str(CORPUS / "sar/ksar_sar-11.6.1-full-output.txt")
    assert _cli(capsys, "import", src, "-w", wsp, "--date-order", "month-first")[0] == 0
    rc, out, err = _cli(capsys, "run", "1", "-w", wsp, "--whole-disks", "dev254-1,dev253-0")
    assert rc == 1
    assert "cannot be run 1's whole disks: dev254-1: its figures equal dev253-0's in every report" in err
    assert "the same I/O would be counted twice" in err
    rc, out, err = _cli(capsys, "run", "1", "-w", wsp, "--whole-disks", "dev254-1,dev254-0")
    assert rc == 0, err
    assert out.startswith("whole disks: dev254-0, dev254-1 (whole disks chosen by the consultant: 2 of the run's 3 "
                          "devices; StormScope's own choice: dev253-0, dev254-0)")
    with Workspace(wsp) as ws:
        choice = list_devices(ws, 1)
        assert (choice.used, choice.chosen) == (["dev254-0", "dev254-1"], True)
        assert choice.excluded == {"dev253-0": "a whole disk by StormScope's rules, left out by the consultant's "
                                               "choice"}
        # the same figures as before: dev254-1 does dev253-0's I/O (the proof), so the sum is unchanged
        assert [round(x, 2) for x in run_series(ws, 1).frame["kbs"].to_list()] == [496.8, 14.0, 8.0, 8.8, 269.2, 0.0]
        summed = ws.con.execute("SELECT device FROM series_devices WHERE run_id = 1 AND summed ORDER BY 1").fetchall()
        assert summed == [("dev254-0",), ("dev254-1",)]  # the stored sums follow the choice
        assert not any("is left out of whole-disk figures" in w for w in ws.run(1).warnings)  # no longer true
    rc, out, err = _cli(capsys, "run", "1", "-w", wsp, "--whole-disks", "dev254-0")
    with Workspace(wsp) as ws:
        assert [round(x, 2) for x in run_series(ws, 1).frame["kbs"].to_list()] == [0.0] * 6  # an idle disk alone
    rc, out, err = _cli(capsys, "run", "1", "-w", wsp, "--whole-disks", "rules")
    assert rc == 0
    assert out.startswith("whole disks: dev253-0, dev254-0 (whole disks: ")
    with Workspace(wsp) as ws:
        assert "whole_disks" not in ws.run(1).meta.as_dict()
        assert list_devices(ws, 1).chosen is False
        assert any(w.startswith("'dev254-1' is left out of whole-disk figures") for w in ws.run(1).warnings)
    assert _cli(capsys, "run", "1", "-w", wsp, "--whole-disks", " , ")[0] == 2


@pytest.mark.parametrize(("rel", "devices", "why"), [
    ("locales/C_iostat-x-t_day.txt", "vda,zram0", "vda (disk) and zram0 (zram device) are different kinds of device"),
    ("locales/C_iostat-x-t_day.txt", "vda,sdz", "the run has no device 'sdz'"),
    ("iostat/sysstat-tests_iostat-p-ALL.txt", "sda1,sda", "sda (disk) and sda1 (partition of sda) are different"),
    ("iostat/jc_centos-7.7_iostat-mx.txt", "sda,dm-0", "dm-0 (dm/md/loop device) and sda (disk) are different"),
])
def test_a_choice_that_could_count_some_io_twice_is_refused(ws, rel, devices, why):
    rid = _run(ws, rel)
    with pytest.raises(ValueError, match="cannot be run .* whole disks") as e:
        ws.set_whole_disks(rid, devices.split(","))
    assert why in str(e.value)
    assert "whole_disks" not in ws.run(rid).meta.as_dict()


def test_partitions_of_one_disk_may_be_its_whole_disks(ws):
    """sysstat's iostat -p ALL: sda's partitions in place of sda (no I/O counted twice: they do not overlap)."""
    rid = _run(ws, "iostat/sysstat-tests_iostat-p-ALL.txt")
    choice = ws.set_whole_disks(rid, ["sda1", "sda2"])
    assert (choice.used, choice.chosen) == (["sda1", "sda2"], True)


def test_what_each_device_is():
    from app.series_sums import device_roles

    roles = device_roles([("sda", False, None), ("sda1", False, None), ("dm-0", False, None), ("sdb", True, None),
                          ("C:", False, "volume")])
    assert roles == {"sda": "disk", "sda1": "partition of sda", "dm-0": "dm/md/loop device", "sdb": "-g group row",
                     "C:": "volume"}
