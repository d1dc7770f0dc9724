"""Put on one clock… (the run list's menu): each run's clock offset against a reference run, found from their
activity, accepted by the user, and then used by the overlay on the clock -- through the user's path, on the real
captures of tests/corpus/clock/ (iostat and sar on one disk at once; the sar copy's clock 37 s ahead; another
capture)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from app.store.clock import get_offset  # noqa: E402
from tests.analysis.test_clock_offset import IOSTAT_A, IOSTAT_B, SAR_A  # noqa: E402
from tests.clock_util import shifted_copy  # noqa: E402
from tests.conftest import CUSTOMER_FORBIDDEN, run_menu  # noqa: E402
from tests.ui.test_ui_review import imported, settled  # noqa: E402


def test_put_on_one_clock_from_the_run_menu_finds_accepts_and_the_overlay_follows(qtbot, window, tmp_path):
    from app.ui.clock_dialog import COL_FOUND, COL_MATCH, COL_NOW, COL_RUN, COL_WHAT, EXPLAIN

    iostat, sar, other = imported(window, IOSTAT_A, shifted_copy(SAR_A, tmp_path, 37), IOSTAT_B,
                                  first_report="interval")
    items = [t for t, *_ in run_menu(qtbot, window, iostat)]
    assert "Put on one clock…" in items
    run_menu(qtbot, window, iostat, click="Put on one clock…")
    dlg = window.browser.clock_dialog
    assert dlg.isVisible()
    assert dlg.reference_id() == iostat  # the run right-clicked is the reference
    qtbot.waitUntil(lambda: "match the reference" in dlg.status.text(), timeout=60000)
    assert dlg.status.text() == "1 of 2 runs match the reference."
    rows = {int(dlg.table.item(r, COL_RUN).data(Qt.ItemDataRole.UserRole)): r for r in range(dlg.table.rowCount())}
    assert sorted(rows) == [sar, other]
    found = dlg.table.item(rows[sar], COL_FOUND).text()
    assert found.startswith("−3")  # −36.9 s: the copy's clock is 37 s ahead
    assert abs(float(found[1:].split()[0]) - 37) < 2
    assert float(dlg.table.item(rows[sar], COL_MATCH).text()) > 0.95
    assert dlg.table.item(rows[sar], COL_WHAT).text().startswith("its clock is 3")
    assert dlg.table.item(rows[sar], COL_RUN).checkState() == Qt.CheckState.Checked
    assert dlg.table.item(rows[other], COL_FOUND).text() == "not matching"
    assert dlg.table.item(rows[other], COL_WHAT).text().startswith("Not matching: the best correlation of their IOPS")
    assert not dlg.table.item(rows[other], COL_RUN).flags() & Qt.ItemFlag.ItemIsUserCheckable  # nothing to accept
    assert dlg.table.item(rows[sar], COL_NOW).text() == "the file's clock"
    for text in (EXPLAIN, dlg.status.text(), dlg.table.item(rows[sar], COL_WHAT).text(),
                 dlg.table.item(rows[other], COL_WHAT).text()):
        for what, pattern in CUSTOMER_FORBIDDEN.items():
            assert not pattern.search(text), (what, text)
    qtbot.mouseClick(dlg.accept_button, Qt.MouseButton.LeftButton)
    stored = get_offset(window.ws, sar)
    assert stored is not None
    assert stored.source == "estimated"
    assert abs(stored.offset_s + 37) < 2
    assert get_offset(window.ws, other) is None
    assert dlg.table.item(rows[sar], COL_NOW).text().startswith("−3")
    dlg.close()
    # the run list says it beside the times the file printed
    item = next(it for it in window.browser._run_items() if int(it.data(0, Qt.ItemDataRole.UserRole + 1)) == sar)
    assert item.text(1) == "2026-11-29 06:32:12 → 06:42:11 (its clock corrected by −36.9 s)"
    # the overlay on the clock: the copy lies on the iostat run it was captured with, and the chart says why
    window.browser.select_runs([iostat, sar])
    window.plot.align.setCurrentIndex(3)  # Align: clock time
    settled(qtbot, window)
    curves = {c.run_id: c for c in window.plot.curves}
    assert abs(float(curves[iostat].t[0]) - float(curves[sar].t[0])) < 2
    assert "its clock corrected by −3" in window.plot.readout.toolTip()


def test_an_offset_set_by_hand_and_removed_in_the_dialog(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    from app.ui.clock_dialog import COL_NOW, COL_RUN

    iostat, sar = imported(window, IOSTAT_A, SAR_A, first_report="interval")
    run_menu(qtbot, window, iostat, click="Put on one clock…")
    dlg = window.browser.clock_dialog
    qtbot.waitUntil(lambda: "match the reference" in dlg.status.text(), timeout=60000)
    dlg.table.selectRow(0)
    assert int(dlg.table.item(0, COL_RUN).data(Qt.ItemDataRole.UserRole)) == sar
    monkeypatch.setattr(QInputDialog, "getDouble", staticmethod(lambda *a, **k: (12.0, True)))  # the user types 12
    qtbot.mouseClick(dlg.by_hand_button, Qt.MouseButton.LeftButton)
    assert get_offset(window.ws, sar).words() == f"+12 s (set by hand against run {iostat})"
    assert dlg.table.item(0, COL_NOW).text() == f"+12 s (set by hand against run {iostat})"
    qtbot.mouseClick(dlg.clear_button, Qt.MouseButton.LeftButton)
    assert get_offset(window.ws, sar) is None
    assert dlg.table.item(0, COL_NOW).text() == "the file's clock"
    dlg.close()


def test_a_curve_moved_by_hand_on_clock_time_keeps_its_shift_as_the_clock_offset(qtbot, window, tmp_path):
    """The sar copy whose clock is 37 s ahead, on clock time beside the iostat run it was captured with: the user
    Shift-drags its curve 37 s to the left onto its twin and clicks Keep shift as clock offset; the run's clock is
    corrected by about -37 s (the drag's precision), and the chart redraws it there with the shift kept."""
    import numpy as np

    from tests.ui.test_ui_overlay import drag, settle, shown

    iostat, sar = imported(window, IOSTAT_A, shifted_copy(SAR_A, tmp_path, 37), first_report="interval")
    plot = shown(qtbot, window, [iostat, sar])
    assert not plot.keep_shift_action.isEnabled()
    assert plot.keep_shift_button.isHidden()  # offered only once a curve is moved on clock time
    plot.align.setCurrentIndex(3)  # Align: clock time
    settle(qtbot, plot, 2)
    curves = {c.run_id: c for c in plot.curves}
    assert float(curves[sar].t[0]) - float(curves[iostat].t[0]) == 37.0  # as filed
    # a point of the sar curve where it is busy and the iostat curve is not: the drag picks the sar curve
    s, i = curves[sar], curves[iostat]
    iy = np.interp(s.t, i.t, i.y)
    k = int(np.argmax(s.y - iy))
    x, y = float(s.t[k]) - 0.5, float(s.y[k])
    drag(qtbot, plot, (x, y), (x - 37.0, y), Qt.KeyboardModifier.ShiftModifier)
    assert abs(s.offset + 37.0) < 2
    assert plot.keep_shift_action.isEnabled()
    assert not plot.keep_shift_button.isHidden()
    qtbot.mouseClick(plot.keep_shift_button, Qt.MouseButton.LeftButton)
    stored = get_offset(window.ws, sar)
    assert stored is not None
    assert stored.source == "manual"
    assert abs(stored.offset_s + 37.0) < 2
    settle(qtbot, plot, 2)
    curves = {c.run_id: c for c in plot.curves}
    assert curves[sar].offset == 0.0  # redrawn on its corrected clock, not shifted by hand any more
    assert abs(float(curves[sar].t[0]) - float(curves[iostat].t[0])) < 2
    assert not plot.keep_shift_action.isEnabled()
    assert plot.keep_shift_button.isHidden()
    assert "its clock corrected by −3" in plot.readout.toolTip()
