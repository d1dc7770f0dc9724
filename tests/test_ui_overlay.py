"""The Overlay view, through the user's path: mouse moves, clicks and drags on the chart, the widgets
of its bars, its curve list, legend and shortcuts."""

import math
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6")

import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt  # noqa: E402
from PySide6.QtGui import QMouseEvent, QWheelEvent  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QInputDialog, QMenu  # noqa: E402

from app.ui.main_window import MainWindow  # noqa: E402
from app.ui.plot_marks import MarkerLine  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import ROOT, SAMPLES  # noqa: E402

VSCSI = ROOT / "tests" / "fixtures" / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
FAST, SLOW, CAPPED = "storm_fast_iostat-xt", "storm_slow_iostat-xt", "capped_200iops_iostat-d"


@pytest.fixture
def window(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(tmp_path / "ws.duckdb", settings)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()
    w.grid.view.setModel(None)
    w.grid.model = None
    w.deleteLater()
    qtbot.wait(10)
    import gc

    gc.collect()


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


def wheel(plot, x, steps):
    vp = plot.plot.viewport()
    p = QPointF(at(plot, x, mid_y(plot)))
    ev = QWheelEvent(p, QPointF(vp.mapToGlobal(p.toPoint())), QPoint(0, 0), QPoint(0, 120 * steps),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(vp, ev)


def choose_in_menu(monkeypatch, text):
    """The context menu that opens next picks ``text`` (as the user would)."""

    def pick(menu, *args):
        return next(a for a in menu.actions() if a.text() == text)

    monkeypatch.setattr(QMenu, "exec", pick)


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
    assert text.startswith(f"t = 10.1 s · interval 10–11 s: {FAST} 450 IOPS · {SLOW} 150 IOPS"), text
    assert "covers the interval that ends at its time" in text
    move(plot, 10.9)
    assert "interval 10–11 s" in plot.readout.text()
    move(plot, 11.4)  # the next report
    assert f"interval 11–12 s: {FAST} 560 IOPS" in plot.readout.text()
    # past the fast storm's end (60 s) only the slow one has a value
    move(plot, 70.5)
    text = plot.readout.text()
    assert f"{FAST} –" in text and f"{SLOW} " in text and "interval 70–71 s" in text
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
    assert plot.readout.text().startswith(f"t = 3.0 s · interval 2–4 s: {CAPPED} 202.5 IOPS")


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
    assert c.kind == "vscsistats" and c.device.endswith("2099979:8194 (scsi0:0)")
    assert c.label.endswith("2099979:8194 (scsi0:0)") and list(c.t) == [60.0, 120.0, 180.0]
    assert list(c.t_start) == [0.0, 60.0, 120.0]
    x, y = plot.items[0].getOriginalDataset()
    assert list(x) == [0, 60, 60, 120, 120, 180]
    assert y[0] == y[1] == pytest.approx(793 / 60)
    move(plot, 90)
    text = plot.readout.text()
    assert " · collection 60–120 s: " in text and "(a value covers its collection)" in text
    assert c.y[0] == pytest.approx(793 / 60) and c.y[1] == pytest.approx(800 / 60)
    assert f"{c.label} 13.33 IOPS" in text  # 800 / 60, not the first collection's 13.22
    move(plot, 185)
    assert text != plot.readout.text() and plot.readout.text().count(" –") == 2


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
    assert c.t[-1] == 1.0 and c.time_scale == 60.0
    move(plot, 0.175)
    assert f"{FAST} 450 IOPS" in plot.readout.text() and "of the run" in plot.readout.text()


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
    assert plot.curves[0].t[0] == t_start - 6 and plot.curves[0].align_offset_s == 6
    bands = [i for i in plot.plot.getPlotItem().items if isinstance(i, pg.LinearRegionItem)]
    assert tuple(round(v) for v in bands[0].getRegion()) == (-1, 14)
    lines = [i for i in plot.plot.getPlotItem().items if isinstance(i, MarkerLine)]
    assert [(m.name, m.value()) for m in lines] == [("first job", 0.0)]
    # Shift + drag by 2.5 s: bands and markers follow the curve
    drag(qtbot, plot, (15.5, 1200.0), (18.0, 1200.0), Qt.KeyboardModifier.ShiftModifier)
    off = plot.curves[0].offset
    assert off == pytest.approx(2.5, abs=0.4) and f"shifted by {off:+.1f} s" in plot.readout.text()
    assert lines[0].value() == pytest.approx(off)
    assert bands[0].getRegion()[0] == pytest.approx(-1 + off)
