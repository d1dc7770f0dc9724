"""The Overlay view, through the user's path: mouse moves, clicks and drags on the chart, the widgets
of its bars, its curve list, legend and shortcuts."""

import math
import os
import re

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pyqtgraph as pg  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QColor, QMouseEvent, QWheelEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QColorDialog, QInputDialog, QMenu, QWidget  # noqa: E402

from app.ui.plot_marks import MarkerLine, PhaseBand  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import ROOT, SAMPLES  # noqa: E402

VSCSI = ROOT / "tests" / "fixtures" / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
FAST, SLOW, CAPPED = "storm_fast_iostat-xt", "storm_slow_iostat-xt", "capped_200iops_iostat-d"


def imported(window, *names):
    """Import sample traces (the first iostat report counted as an interval; the capped run's 2 s interval)."""
    from app.importer import import_file

    ids = []
    for n in names:
        opts = ImportOptions(interval_s=2) if n == CAPPED else ImportOptions(first_report="interval")
        ids.append(import_file(window.ws, str(SAMPLES / f"{n}.txt"), opts).run_ids[0])
    window.browser.reload()
    return ids


def shown(qtbot, window, ids, n=None):
    window.browser.select_runs(ids)
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == (n or len(ids)), timeout=30000)
    qtbot.wait(30)
    return plot


def settle(qtbot, plot, n=None):
    qtbot.waitUntil(lambda: not plot.loading and (n is None or len(plot.curves) == n), timeout=30000)
    qtbot.wait(30)


def at(plot, x, y):
    """The viewport point of a data point (x, value) of the chart."""
    vb = plot.plot.getPlotItem().vb
    if plot.log_y.isChecked():
        y = math.log10(y)
    p = plot.plot.mapFromScene(vb.mapViewToScene(QPointF(x, y)))
    return QPoint(p.x(), p.y())


def mid_y(plot):
    lo, hi = plot.plot.getPlotItem().vb.viewRange()[1]
    v = (lo + hi) / 2
    return 10 ** v if plot.log_y.isChecked() else v


def move(plot, x, y=None):
    """The mouse moves over the chart to the point (x, value)."""
    vp = plot.plot.viewport()
    QTest.qWait(25)  # pyqtgraph takes at most one mouse move per 10 ms
    send(vp, QEvent.Type.MouseMove, at(plot, x, mid_y(plot) if y is None else y), Qt.MouseButton.NoButton,
         Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)


def send(widget, kind, pos, button, buttons, mods):
    ev = QMouseEvent(kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons, mods)
    QApplication.sendEvent(widget, ev)


def drag(qtbot, plot, a, b, mods):
    """Press at data point a, move to b in steps, release: modifiers held throughout."""
    vp = plot.plot.viewport()
    pa, pb = at(plot, *a), at(plot, *b)
    left = Qt.MouseButton.LeftButton
    send(vp, QEvent.Type.MouseMove, pa, Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, mods)
    send(vp, QEvent.Type.MouseButtonPress, pa, left, left, mods)
    for k in range(1, 6):
        p = QPoint(pa.x() + (pb.x() - pa.x()) * k // 5, pa.y() + (pb.y() - pa.y()) * k // 5)
        qtbot.wait(25)
        send(vp, QEvent.Type.MouseMove, p, Qt.MouseButton.NoButton, left, mods)
    send(vp, QEvent.Type.MouseButtonRelease, pb, left, Qt.MouseButton.NoButton, mods)
    qtbot.wait(20)


def click(plot, x, y, button=Qt.MouseButton.LeftButton, double=False):
    """The mouse moves to the point (x, value) and clicks (twice for a double-click), as a real mouse does:
    move, press, release (, double-click, release)."""
    vp = plot.plot.viewport()
    move(plot, x, y)
    pos = at(plot, x, y)
    none, mods = Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
    send(vp, QEvent.Type.MouseButtonPress, pos, button, button, mods)
    send(vp, QEvent.Type.MouseButtonRelease, pos, button, none, mods)
    if double:
        send(vp, QEvent.Type.MouseButtonDblClick, pos, button, button, mods)
        send(vp, QEvent.Type.MouseButtonRelease, pos, button, none, mods)
    QTest.qWait(20)


def wheel(plot, x, steps):
    vp = plot.plot.viewport()
    p = QPointF(at(plot, x, mid_y(plot)))
    ev = QWheelEvent(p, QPointF(vp.mapToGlobal(p.toPoint())), QPoint(0, 0), QPoint(0, 120 * steps),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)


def choose_in_menu(monkeypatch, text):
    """The context menu that opens next: the user picks ``text`` (arrow keys to it, Return)."""

    def pick():
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, pick)
            return
        menu.setActiveAction(next(a for a in menu.actions() if a.text() == text))
        QTest.keyClick(menu, Qt.Key.Key_Return)

    QTimer.singleShot(20, pick)


def answer_name(monkeypatch, name, asked=None):
    def ask(parent, title, label, *args, **kwargs):
        if asked is not None:
            asked.append(label)
        return name, True

    monkeypatch.setattr(QInputDialog, "getText", ask)


# ---- 1. the crosshair reads the interval under the mouse -------------------------------------------
def test_crosshair_reads_the_interval_that_holds_the_mouse(qtbot, window):
    ids = imported(window, FAST, SLOW)
    plot = shown(qtbot, window, ids)
    fast, slow = plot.curves
    # storm_fast: the report printed 11 s after the start covers 10–11 s: 450 IOPS; storm_slow 150
    assert fast.y[list(fast.t).index(11.0)] == 450.0
    move(plot, 10.1)
    text = plot.readout.text()
    # (the mouse sits on a whole pixel: t reads 10.1 give or take a pixel)
    assert re.match(rf"t = 10\.\d s · interval 10–11 s: {FAST} 450 IOPS · {SLOW} 150 IOPS   \(", text), text
    assert "covers the interval that ends at its time" in text
    move(plot, 10.9)
    assert "interval 10–11 s" in plot.readout.text()
    move(plot, 11.4)  # the next report
    assert f"interval 11–12 s: {FAST} 560 IOPS" in plot.readout.text()
    # past the fast storm's end (60 s) only the slow one has a value
    move(plot, 70.5)
    text = plot.readout.text()
    assert f"{FAST} –" in text
    assert f"{SLOW} " in text
    assert "interval 70–71 s" in text
    move(plot, -0.5)  # before both runs
    assert f"{FAST} – · {SLOW} –" in plot.readout.text()


def test_curves_are_steps_over_their_intervals(qtbot, window):
    ids = imported(window, CAPPED)
    plot = shown(qtbot, window, ids)
    x, y = plot.items[0].getOriginalDataset()
    # capped run, 2 s interval: 201 IOPS over 0–2 s, 202.5 over 2–4 s, 200 over 4–6 s
    assert list(x[:6]) == [0, 2, 2, 4, 4, 6]
    assert list(y[:6]) == [201, 201, 202.5, 202.5, 200, 200]
    move(plot, 3.0)
    assert re.match(rf"t = [23]\.\d s · interval 2–4 s: {CAPPED} 202.5 IOPS   \(", plot.readout.text())


def test_vscsistats_collections_are_steps_and_read_in_their_collection(qtbot, window, tmp_path):
    """Two VM disks, three collections of 60 s whose counts differ: each value covers its collection."""
    from app.importer import import_file

    one = VSCSI.read_text()
    two_vms = one + one.replace("handleID,8194", "handleID,8195")
    # the second collection of the first disk has 7 more 512-byte writes (800 commands instead of 793)
    more = two_vms.replace("count,793\nFrequency,Histogram Bucket Limit\n42,512", "count,800\n"
                           "Frequency,Histogram Bucket Limit\n49,512", 1)
    more = more.replace("count,789\nFrequency,Histogram Bucket Limit\n42,512", "count,796\n"
                        "Frequency,Histogram Bucket Limit\n49,512", 1)
    assert more != two_vms
    f = tmp_path / "two_vms.csv"
    f.write_text(two_vms + more + two_vms)
    r = import_file(window.ws, str(f), ImportOptions(interval_s=60))
    assert r.status == "imported", r.error
    window.browser.reload()
    plot = shown(qtbot, window, r.run_ids, 2)
    c = plot.curves[0]
    assert c.kind == "vscsistats"
    assert c.device.endswith("2099979:8194 (scsi0:0)")
    assert c.label.endswith("2099979:8194 (scsi0:0)")
    assert list(c.t) == [60.0, 120.0, 180.0]
    assert list(c.t_start) == [0.0, 60.0, 120.0]
    x, y = plot.items[0].getOriginalDataset()
    assert list(x) == [0, 60, 60, 120, 120, 180]
    assert y[0] == y[1] == pytest.approx(793 / 60)
    move(plot, 90)
    text = plot.readout.text()
    assert " · collection 60–120 s: " in text
    assert "(a value covers its collection)" in text
    assert c.y[0] == pytest.approx(793 / 60)
    assert c.y[1] == pytest.approx(800 / 60)
    assert f"{c.label} 13.33 IOPS" in text  # 800 / 60, not the first collection's 13.22
    move(plot, 185)
    assert text != plot.readout.text()
    assert plot.readout.text().count(" –") == 2


def test_readout_follows_a_shift_drag_and_normalised_time(qtbot, window):
    ids = imported(window, FAST)
    plot = shown(qtbot, window, ids)
    # Shift + drag the curve 10 s to the right, starting on it
    drag(qtbot, plot, (20.5, 1158.0), (30.5, 1158.0), Qt.KeyboardModifier.ShiftModifier)
    c = plot.curves[0]
    assert c.offset == pytest.approx(10.0, abs=0.6)
    assert f"{FAST} shifted by +" in plot.readout.text()
    # the readout reads the shifted curve: the interval 10–11 s of the run is drawn at 10 + offset
    move(plot, 10.5 + c.offset)
    assert f": {FAST} 450 IOPS" in plot.readout.text()
    # normalised time: the fast storm's 60 s run becomes 0–1; 0.175 is in its 10–11 s interval
    qtbot.mouseClick(plot.normalise, Qt.MouseButton.LeftButton)
    settle(qtbot, plot, 1)
    c = plot.curves[0]
    assert c.t[-1] == 1.0
    assert c.time_scale == 60.0
    move(plot, 0.175)
    assert f"{FAST} 450 IOPS" in plot.readout.text()
    assert "of the run" in plot.readout.text()


# ---- moved from tests/test_ui.py ------------------------------------------------------------------
def test_overlay_aligns_slow_and_fast_storms(qtbot, window):
    ids = imported(window, FAST, SLOW)
    plot = shown(qtbot, window, ids)
    assert [c.run_id for c in plot.curves] == ids
    plot.align.setCurrentIndex(1)  # first activity
    settle(qtbot, plot, 2)
    for c in plot.curves:
        assert c.t[0] <= 0 <= c.t[-1]
    fast = plot.curves[0]
    assert fast.y.max() == 1212.0
    peak = int(fast.y.argmax())
    move(plot, float(fast.t_start[peak] + fast.t[peak]) / 2)
    assert f"{FAST} 1,212 IOPS" in plot.readout.text()


def test_overlay_phase_bands_marker_alignment_and_manual_shift(qtbot, window):
    from app.analysis.phases import add_marker, add_phase

    (rid,) = imported(window, FAST)
    add_phase(window.ws, rid, "ramp", 5, 20)
    add_phase(window.ws, rid, "plateau", 20, 35)
    add_marker(window.ws, rid, "first job", 6)
    plot = shown(qtbot, window, [rid])
    bands = [i for i in plot.plot.getPlotItem().items if isinstance(i, pg.LinearRegionItem)]
    assert [tuple(round(v) for v in b.getRegion()) for b in bands] == [(5, 20), (20, 35)]
    t_start = plot.curves[0].t[0]
    assert [plot.marker.itemText(i) for i in range(plot.marker.count())] == ["first job"]
    plot.marker.setCurrentIndex(0)
    plot.align.setCurrentIndex(2)
    settle(qtbot, plot, 1)
    assert plot.curves[0].t[0] == t_start - 6
    assert plot.curves[0].align_offset_s == 6
    bands = [i for i in plot.plot.getPlotItem().items if isinstance(i, pg.LinearRegionItem)]
    assert tuple(round(v) for v in bands[0].getRegion()) == (-1, 14)
    lines = [i for i in plot.plot.getPlotItem().items if isinstance(i, MarkerLine)]
    assert [(m.name, m.value()) for m in lines] == [("first job", 0.0)]
    # Shift + drag by 2.5 s: bands and markers follow the curve
    drag(qtbot, plot, (15.5, 1200.0), (18.0, 1200.0), Qt.KeyboardModifier.ShiftModifier)
    off = plot.curves[0].offset
    assert off == pytest.approx(2.5, abs=0.4)
    assert f"shifted by {off:+.1f} s" in plot.readout.text()
    assert lines[0].value() == pytest.approx(off)
    assert bands[0].getRegion()[0] == pytest.approx(-1 + off)


# ---- 2. stable colours, per-curve colour and visibility ----------------------------------------------
def test_a_run_keeps_its_colour_when_the_selection_changes(qtbot, window):
    fast, slow, capped = imported(window, FAST, SLOW, CAPPED)
    plot = shown(qtbot, window, [fast, slow])
    colours = {c.run_id: c.colour for c in plot.curves}
    assert len(set(colours.values())) == 2
    plot = shown(qtbot, window, [slow])
    assert plot.curves[0].colour == colours[slow]
    plot = shown(qtbot, window, [capped, slow, fast])
    assert {c.run_id: c.colour for c in plot.curves if c.run_id != capped} == colours
    new = next(c.colour for c in plot.curves if c.run_id == capped)
    assert new not in colours.values()
    # the drawn pen is the curve's colour
    assert len(plot.items) == len(plot.curves) == 3
    for c, item in zip(plot.curves, plot.items, strict=True):
        assert item.opts["pen"].color().name() == c.colour


def test_curve_list_hides_curves_and_colour_is_chosen(qtbot, window, monkeypatch):
    fast, slow = imported(window, FAST, SLOW)
    plot = shown(qtbot, window, [fast, slow])
    changed = []
    plot.curves_changed.connect(lambda: changed.append(1))
    lst = plot.curve_list
    assert [lst.item(i).text() for i in range(lst.count())] == [FAST, SLOW]
    # untick the slow storm in the curve list
    rect = lst.visualItemRect(lst.item(1))
    box = QPoint(rect.left() + 10, rect.center().y())
    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=box)
    if lst.item(1).checkState() == Qt.CheckState.Checked:  # styles put the check box at different x
        lst.item(1).setCheckState(Qt.CheckState.Unchecked)
    assert not plot.curves[1].visible
    assert not plot.items[1].isVisible()
    assert changed
    move(plot, 10.5)
    assert SLOW not in plot.readout.text()
    assert f"{FAST} 450 IOPS" in plot.readout.text()
    # hidden stays hidden when the selection changes and comes back
    plot = shown(qtbot, window, [slow])
    assert not plot.curves[0].visible
    plot = shown(qtbot, window, [fast, slow])
    assert {c.run_id: c.visible for c in plot.curves} == {fast: True, slow: False}
    f, sl = (next(i for i, c in enumerate(plot.curves) if c.run_id == r) for r in (fast, slow))
    # the list beside the chart is its legend: nothing inside the plot covers the curves
    assert not [it for it in plot.plot.scene().items() if isinstance(it, pg.LegendItem)]
    lst.item(f).setCheckState(Qt.CheckState.Unchecked)  # what a click on its check box does
    assert not plot.curves[f].visible
    assert not plot.items[f].isVisible()
    # right-click the slow storm in the list ▸ Colour…
    monkeypatch.setattr(QColorDialog, "getColor", lambda *a, **k: QColor("#123456"))
    choose_in_menu(monkeypatch, "Colour…")
    rect = lst.visualItemRect(lst.item(sl))
    lst.customContextMenuRequested.emit(rect.center())  # what a right-click on the row sends
    assert plot.curves[sl].colour == "#123456"
    assert plot.items[sl].opts["pen"].color().name() == "#123456"
    choose_in_menu(monkeypatch, "Show all curves")
    lst.customContextMenuRequested.emit(rect.center())
    assert all(c.visible for c in plot.curves)
    plot = shown(qtbot, window, [slow])
    assert plot.curves[0].colour == "#123456"


# ---- 3. reset zoom -------------------------------------------------------------------------------
def test_reset_zoom_button_and_ctrl_0(qtbot, window):
    ids = imported(window, FAST)
    plot = shown(qtbot, window, ids)
    assert plot.visible_range() is None
    with qtbot.waitSignal(plot.range_changed, timeout=3000):
        wheel(plot, 20, 3)
    zoomed = plot.visible_range()
    assert zoomed is not None
    assert zoomed[1] - zoomed[0] < 50
    qtbot.mouseClick(plot.reset_zoom_button, Qt.MouseButton.LeftButton)
    assert plot.visible_range() is None
    wheel(plot, 20, 3)
    assert plot.visible_range() is not None
    plot.plot.setFocus()
    qtbot.keyClick(plot.plot, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert plot.visible_range() is None

    def whole_run_in_view() -> None:  # the view box applies the reset on its next layout pass (slow under load)
        x0, x1 = plot.plot.getPlotItem().vb.viewRange()[0]
        assert x0 <= 0
        assert x1 >= 60

    qtbot.waitUntil(whole_run_in_view, timeout=3000)


# ---- 4. cap line and log scale --------------------------------------------------------------------
def test_cap_line_is_labelled_and_stays_in_view_in_log_scale(qtbot, window):
    ids = imported(window, CAPPED)
    plot = shown(qtbot, window, ids)
    assert plot.cap_value() is None
    assert plot.cap.text() == "no cap line"
    plot.cap.setValue(200)
    assert plot.cap_value() == 200
    assert plot.cap_line.isVisible()
    assert plot.cap_line.value() == 200
    assert plot.cap_line.label.format == "cap 200 IOPS"
    assert plot.cap_line.pen.style() == Qt.PenStyle.DashLine
    assert plot.cap_line.pen.color().name() == "#e03030"
    qtbot.mouseClick(plot.log_y, Qt.MouseButton.LeftButton)
    assert plot.log_y.isChecked()
    assert plot.plot.getPlotItem().ctrl.logYCheck.isChecked()
    qtbot.wait(50)
    assert plot.cap_line.value() == pytest.approx(math.log10(200))
    lo, hi = plot.plot.getPlotItem().vb.viewRange()[1]
    assert lo < math.log10(200) < hi
    # the readout still reads values, not logarithms
    move(plot, 3.0)
    assert f"{CAPPED} 202.5 IOPS" in plot.readout.text()
    qtbot.mouseClick(plot.log_y, Qt.MouseButton.LeftButton)
    assert plot.cap_line.value() == 200
    plot.cap.setValue(0)
    assert not plot.cap_line.isVisible()
    assert plot.cap_value() is None
    assert plot.cap.text() == "no cap line"


def test_a_cap_above_every_value_is_still_in_view(qtbot, window):
    ids = imported(window, FAST)
    plot = shown(qtbot, window, ids)
    assert plot.plot.getPlotItem().vb.viewRange()[1][1] < 2000  # the storm peaks at 1,212 IOPS
    plot.cap.setValue(5000)
    qtbot.wait(50)
    assert plot.plot.getPlotItem().vb.viewRange()[1][1] > 5000
    qtbot.mouseClick(plot.log_y, Qt.MouseButton.LeftButton)  # intervals at 0 IOPS: no warning, not drawn
    qtbot.wait(50)
    lo, hi = plot.plot.getPlotItem().vb.viewRange()[1]
    assert lo < math.log10(1212)
    assert hi > math.log10(5000)


# ---- 5. markers and phases edited in the window ---------------------------------------------------------
def test_double_click_adds_a_marker_and_marker_alignment_uses_it(qtbot, window, monkeypatch):
    from app.analysis.phases import list_markers

    fast, slow = imported(window, FAST, SLOW)
    plot = shown(qtbot, window, [fast, slow])
    assert "Double-click: marker" in plot.hint.text()
    assert "Ctrl+drag: phase" in plot.hint.text()
    # select the slow storm in the curve list: the marker goes to it
    plot.curve_list.setCurrentRow(1)
    asked = []
    answer_name(monkeypatch, "boot", asked)
    click(plot, 12.0, mid_y(plot), double=True)
    assert asked, asked
    assert re.match(rf"Marker on {SLOW} at 1[12](\.\d)? s of the run — name:", asked[0]), asked
    settle(qtbot, plot, 2)
    t = list_markers(window.ws, slow)["boot"]
    assert t == pytest.approx(12.0, abs=0.3)
    assert list_markers(window.ws, fast) == {}
    lines = [i for i in plot.plot.getPlotItem().items if isinstance(i, MarkerLine)]
    assert [(m.name, m.run_id) for m in lines] == [("boot", slow)]
    assert lines[0].label.format == "boot"
    assert "main.py" not in lines[0].toolTip()
    # nothing selected: the marker goes to the nearest curve (the fast storm at 1,200 IOPS at 30 s)
    plot.curve_list.clearSelection()
    answer_name(monkeypatch, "boot")
    click(plot, 5.5, 1190.0, double=True)
    settle(qtbot, plot, 2)
    t_fast = list_markers(window.ws, fast)["boot"]
    assert t_fast == pytest.approx(5.5, abs=0.3)
    # Align: marker, on "boot" (offered by the marker box)
    assert [plot.marker.itemText(i) for i in range(plot.marker.count())] == ["boot"]
    plot.marker.setCurrentIndex(0)
    plot.align.setCurrentIndex(2)
    settle(qtbot, plot, 2)
    assert [c.align_offset_s for c in plot.curves] == [t_fast, t]
    lines = [i for i in plot.plot.getPlotItem().items if isinstance(i, MarkerLine)]
    assert sorted(m.value() for m in lines) == [0.0, 0.0]


def test_ctrl_drag_marks_a_phase_and_right_click_renames_and_deletes(qtbot, window, monkeypatch):
    from app.analysis.phases import add_marker, list_markers, list_phases

    (rid,) = imported(window, FAST)
    add_marker(window.ws, rid, "first job", 6)
    plot = shown(qtbot, window, [rid])
    answer_name(monkeypatch, "ramp")
    drag(qtbot, plot, (8.0, 600.0), (20.0, 600.0), Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, plot, 1)
    (ph,) = list_phases(window.ws, rid)
    assert ph.name == "ramp"
    assert ph.t_start_s == pytest.approx(8, abs=0.3)
    assert ph.t_end_s == pytest.approx(20, abs=0.3)
    assert plot.curves[0].offset == 0  # a phase drag does not move the curve
    bands = [i for i in plot.plot.getPlotItem().items if isinstance(i, PhaseBand)]
    assert [b.name for b in bands] == ["ramp"]
    assert bands[0].label.format == "ramp"
    # right-click in the band ▸ Rename…
    choose_in_menu(monkeypatch, "Rename…")
    answer_name(monkeypatch, "warm-up")
    click(plot, 14.0, 300.0, Qt.MouseButton.RightButton)
    settle(qtbot, plot, 1)
    assert [p.name for p in list_phases(window.ws, rid)] == ["warm-up"]
    # right-click on the marker line ▸ Rename…, then ▸ Delete
    choose_in_menu(monkeypatch, "Rename…")
    answer_name(monkeypatch, "login")
    click(plot, 6.0, 300.0, Qt.MouseButton.RightButton)
    settle(qtbot, plot, 1)
    assert list_markers(window.ws, rid) == {"login": 6.0}
    choose_in_menu(monkeypatch, "Delete")
    click(plot, 6.0, 300.0, Qt.MouseButton.RightButton)
    settle(qtbot, plot, 1)
    assert list_markers(window.ws, rid) == {}
    choose_in_menu(monkeypatch, "Delete")
    click(plot, 14.0, 300.0, Qt.MouseButton.RightButton)
    settle(qtbot, plot, 1)
    assert list_phases(window.ws, rid) == []
    assert not [i for i in plot.plot.getPlotItem().items if isinstance(i, (PhaseBand, MarkerLine))]


# ---- 7, 8. words and colours ---------------------------------------------------------------------------
def test_no_command_line_words_and_labels_take_the_theme_foreground(qtbot, window):
    from app.analysis.phases import add_marker, add_phase

    (rid,) = imported(window, FAST)
    add_phase(window.ws, rid, "ramp", 5, 20)
    add_marker(window.ws, rid, "first job", 6)
    plot = shown(qtbot, window, [rid])
    texts = [w.toolTip() for w in plot.findChildren(QWidget)] + [plot.hint.text()]
    texts += [a.toolTip() for a in plot.actions()]
    for t in texts:
        assert "main.py" not in t, t
        assert "--" not in t, t
    try:
        window.theme_actions["dark"].trigger()  # View ▸ Theme ▸ Dark: the chart on screen follows
        qtbot.wait(20)
        band = next(i for i in plot.plot.getPlotItem().items if isinstance(i, PhaseBand))
        line = next(i for i in plot.plot.getPlotItem().items if isinstance(i, MarkerLine))
        assert band.label.color.name() == "#e6e6e6"
        assert line.label.color.name() == "#e6e6e6"
        assert line.label.fill.color().name() == "#1e1e1e"  # the label's backdrop is the dark background
        assert plot.cap_line.label.color.name() == "#e03030"
        # a curve drawn in the dark theme: its colour reads on #1e1e1e (contrast of at least 3:1)
        assert contrast(plot.curves[0].colour, "#1e1e1e") >= 3
    finally:
        window.theme_actions["light"].trigger()
    qtbot.wait(20)
    band = next(i for i in plot.plot.getPlotItem().items if isinstance(i, PhaseBand))
    assert band.label.color.name() == pg.mkColor(pg.getConfigOption("foreground")).name() != "#e6e6e6"
    assert contrast(plot.curves[0].colour, "#ffffff") >= 3


def contrast(a, b):
    """WCAG contrast ratio of two colours."""

    def lum(c):
        q = QColor(c)
        ch = [v / 255 for v in (q.red(), q.green(), q.blue())]
        ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_palette_colour_reads_on_light_and_dark_charts():
    from app.ui.plot import CAP_COLOUR, PALETTE

    for c in [*PALETTE, CAP_COLOUR]:
        assert contrast(c, "#ffffff") >= 3, c
        assert contrast(c, "#1e1e1e") >= 3, c


def test_markers_on_a_vscsistats_run_align_it(qtbot, window, monkeypatch, tmp_path):
    from app.analysis.phases import list_markers
    from app.importer import import_file

    f = tmp_path / "three.csv"
    f.write_text(VSCSI.read_text() * 3)
    r = import_file(window.ws, str(f), ImportOptions(interval_s=60))
    window.browser.reload()
    plot = shown(qtbot, window, r.run_ids, 1)
    answer_name(monkeypatch, "logins")
    click(plot, 60.0, float(plot.curves[0].y[0]), double=True)
    settle(qtbot, plot, 1)
    t = list_markers(window.ws, r.run_ids[0])["logins"]
    assert t == pytest.approx(60, abs=1)
    plot.align.setCurrentIndex(2)  # no marker name typed: the runs' first marker is taken
    settle(qtbot, plot, 1)
    assert plot.marker.currentText() == "logins"
    settle(qtbot, plot, 1)
    c = plot.curves[0]
    assert c.align_offset_s == t
    assert list(c.t_start) == [-t, 60 - t, 120 - t]
    move(plot, 61 - t)  # 1 s into the run's second collection
    span = f"{60 - t:g}–{120 - t:g} s"
    assert f"collection {span}: {c.label} " in plot.readout.text()


def test_renaming_a_marker_to_a_taken_name_keeps_both(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from app.analysis.phases import add_marker, list_markers

    (rid,) = imported(window, FAST)
    add_marker(window.ws, rid, "first job", 6)
    add_marker(window.ws, rid, "peak", 21)
    plot = shown(qtbot, window, [rid])
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text, *a: told.append(text))
    choose_in_menu(monkeypatch, "Rename…")
    answer_name(monkeypatch, "peak")
    click(plot, 6.0, 300.0, Qt.MouseButton.RightButton)
    settle(qtbot, plot, 1)
    assert told == [f"{FAST} already has a marker named 'peak'; rename or delete that one first."]
    assert list_markers(window.ws, rid) == {"first job": 6.0, "peak": 21.0}


def test_a_run_without_time_stamps_is_named_not_numbered_under_the_chart(qtbot, window):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / f"{CAPPED}.txt"), ImportOptions()).run_ids[0]  # no interval given
    window.browser.reload()
    window.browser.select_runs([rid])
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and "has no report times" in plot.readout.text(), timeout=30000)
    assert plot.readout.text().startswith(f"{CAPPED}: has no report times (its log has no time stamps)")
    assert f"run {rid}" not in plot.readout.toolTip()


def test_the_value_axis_starts_at_0_with_data_an_idle_device_and_no_run(qtbot, window):
    """Before, pyqtgraph's auto range padded below 0 (-74 IOPS under the fast storm), spread an idle device's flat
    0 line to about -680..680 IOPS, and kept the last range when the selection was emptied."""
    from tests.ui.test_ui_iozone import click_runs

    (rid,) = imported(window, FAST)
    click_runs(qtbot, window, [rid])  # a click in the run list
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1, timeout=30000)
    vb = plot.plot.getPlotItem().vb
    qtbot.waitUntil(lambda: vb.viewRange()[1][1] >= 1212)  # the view box ranges on its next paint
    assert vb.viewRange()[1][0] == 0  # the peak in view, nothing below 0
    # an idle device (zram0: no I/O during the storm), chosen in the device box with the keyboard
    box = plot.device
    box.setFocus()
    while box.currentText() != "zram0":
        qtbot.keyClick(box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1 and plot.curves[0].device == "zram0",
                    timeout=30000)
    qtbot.waitUntil(lambda: vb.viewRange()[1] == [0, 1])
    # no run selected: Ctrl+click the selected run
    tree = window.browser.tree
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     tree.visualItemRect(tree.currentItem()).center())
    assert window.browser.selected_runs() == []
    qtbot.waitUntil(lambda: not plot.loading and not plot.curves, timeout=30000)
    qtbot.waitUntil(lambda: vb.viewRange() == [[0, 1], [0, 1]])
    # Log scale has no 0: no floor there, and back in linear the floor returns
    qtbot.mouseClick(plot.log_y, Qt.MouseButton.LeftButton, pos=QPoint(8, plot.log_y.height() // 2))
    assert plot.log_y.isChecked()
    assert vb.state["limits"]["yLimits"][0] < -1e300
