"""Whole disks… in the run menu: which devices every whole-disk figure of a run sums, what each is and what
StormScope's rules chose -- changed by the consultant through the dialog, a choice that would count I/O twice
refused in it, and the choice named in the report's sources. On a real capture (tests/corpus/locales: vda, zram0,
loop1 over zram0, loop0)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from app.analysis.series import list_devices, run_series  # noqa: E402
from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN, run_menu  # noqa: E402
from tests.ui.test_ui_review import imported  # noqa: E402

CAPTURE = CORPUS / "locales" / "C_iostat-x-t_day.txt"


def _rows(dlg) -> dict[str, int]:
    return {dlg.table.item(r, 0).data(Qt.ItemDataRole.UserRole): r for r in range(dlg.table.rowCount())}


def _tick(qtbot, dlg, device: str) -> None:
    """Click the device's row and press Space, as the user ticks or unticks it."""
    r = _rows(dlg)[device]
    rect = dlg.table.visualItemRect(dlg.table.item(r, 1))
    qtbot.mouseClick(dlg.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    dlg.table.setCurrentCell(r, 0)
    qtbot.keyClick(dlg.table, Qt.Key.Key_Space)


def _open(qtbot, window, rid):
    run_menu(qtbot, window, rid, click="Whole disks…")
    dlg = window.browser.whole_disks_dialog
    qtbot.waitUntil(dlg.isVisible)
    return dlg


def test_whole_disks_from_the_run_menu(qtbot, window):
    (rid,) = imported(window, CAPTURE, first_report="interval")
    dlg = _open(qtbot, window, rid)
    rows = _rows(dlg)
    assert sorted(rows) == ["loop0", "loop1", "vda", "zram0"]
    ticked = {d for d, r in rows.items() if dlg.table.item(r, 0).checkState() == Qt.CheckState.Checked}
    assert ticked == {"vda"}
    assert dlg.table.item(rows["vda"], 1).text() == "disk"
    assert dlg.table.item(rows["zram0"], 2).text().startswith("left out: ")
    assert dlg.state.text() == "These are StormScope's choice."
    for text in [dlg.state.text()] + [dlg.table.item(r, c).text() for r in rows.values() for c in (1, 2)]:
        for what, pattern in CUSTOMER_FORBIDDEN.items():
            assert not pattern.search(text), (what, text)

    # zram0 beside vda: refused in the dialog, with why; nothing stored
    _tick(qtbot, dlg, "zram0")
    assert dlg.table.item(rows["zram0"], 0).checkState() == Qt.CheckState.Checked
    qtbot.mouseClick(dlg.ok, Qt.MouseButton.LeftButton)
    assert dlg.isVisible()
    assert "Not stored" in dlg.state.text()
    assert "different kinds of device" in dlg.state.text()
    assert "whole_disks" not in window.ws.run(rid).meta.as_dict()

    # StormScope's choice again, then the loop device alone: stored, and every figure sums it
    qtbot.mouseClick(dlg.rules_button, Qt.MouseButton.LeftButton)
    assert dlg.table.item(rows["zram0"], 0).checkState() == Qt.CheckState.Unchecked
    _tick(qtbot, dlg, "vda")
    _tick(qtbot, dlg, "loop0")
    assert dlg.state.text().startswith("Your choice: 1 device.")
    qtbot.mouseClick(dlg.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.isVisible())
    assert window.ws.run(rid).meta.as_dict()["whole_disks"] == ["loop0"]
    choice = list_devices(window.ws, rid)
    assert (choice.used, choice.chosen) == (["loop0"], True)
    loop0 = window.ws.con.execute("SELECT sum(r_s + w_s) FROM iostat_samples WHERE run_id = ? AND device = 'loop0' "
                                  "AND NOT since_boot", [rid]).fetchall()[0][0]
    assert abs(sum(run_series(window.ws, rid).frame["iops"].to_list()) - loop0) < 1e-6

    # and back to StormScope's choice
    dlg = _open(qtbot, window, rid)
    assert dlg.state.text().startswith("Your choice")
    qtbot.mouseClick(dlg.rules_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dlg.ok, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.isVisible())
    assert "whole_disks" not in window.ws.run(rid).meta.as_dict()
    assert list_devices(window.ws, rid).used == ["vda"]


def test_the_choice_is_named_in_the_report_sources(tmp_path, ws):
    """The report's sources say whose whole disks a run sums, beside StormScope's own."""
    import subprocess

    from app.importer import import_file
    from parsers.base import ImportOptions
    from reports import build_report
    from reports.options import ReportOptions

    (rid,) = import_file(ws, str(CAPTURE), ImportOptions(first_report="interval")).run_ids
    ws.set_whole_disks(rid, ["loop0"])
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(), str(out))
    text = " ".join(subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "whole disks chosen by the consultant: loop0 (StormScope's rules would sum vda)" in text
