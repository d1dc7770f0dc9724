"""The IOzone view, driven the way a user drives it: click runs in the run list, click the IOzone tab, tick
"Log scale", choose the matrix's run and test in the combo boxes, switch the theme in View ▸ Theme.

The consultant's question: IOzone on one storage vs another, single vs multi-stream -- which is faster per
test, by how much, and where in the file-size x record-size space? Real IOzone output (tests/fixtures/iozone,
see fixtures/PROVENANCE.md): an ext2 local-disk matrix (IOzone 3.327), an auto-mode run at 1-2 GB files
(IOzone 3.434), 12 streams on an NFS/RDMA client (-t12) and a 5-process throughput run (-l5 -u5)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import math  # noqa: E402
from pathlib import Path  # noqa: E402

import pyqtgraph as pg  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from app.ui.iozone_view import KB_PER_MB, tick_label_rects  # noqa: E402
from app.ui.run_browser import RUN_ROLE  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import click_tab  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "iozone"
EXT2 = FIXTURES / "iozone-results-comparator_ext2_1.iozone.txt"  # local disk, one stream, 21 x 13 matrix
BIG = FIXTURES / "iozone2csv_iozone.out.txt"  # 1 and 2 GB files, records 512k-4M
T12 = FIXTURES / "snippet_lkml-iommu_iozone-t12-plus-u.txt"  # 12 streams (NFS/RDMA client), throughput mode
L5 = FIXTURES / "snippet_ubuntuforums_iozone-throughput-l5-u5-R.txt"  # 5 processes, throughput mode


def imported(window, *paths: Path, **opts) -> list[int]:
    from app.importer import import_file

    ids = []
    for p in paths:
        r = import_file(window.ws, str(p), ImportOptions(**opts))
        assert r.status == "imported", r.error
        ids += r.run_ids
    window.browser.reload()
    return ids


def click_runs(qtbot, window, run_ids: list[int]) -> None:
    """Click the first run in the run list, Ctrl+click the others."""
    tree = window.browser.tree
    items = {int(it.data(0, RUN_ROLE)): it for it in window.browser._run_items()}
    for k, rid in enumerate(run_ids):
        item = items[rid]
        tree.scrollToItem(item)
        mod = Qt.KeyboardModifier.NoModifier if k == 0 else Qt.KeyboardModifier.ControlModifier
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, mod, tree.visualItemRect(item).center())
    assert sorted(window.browser.selected_runs()) == sorted(run_ids)


def open_iozone(qtbot, window, run_ids: list[int]):
    click_runs(qtbot, window, run_ids)
    assert click_tab(qtbot, window, "IOzone") is window.iozone
    return window.iozone


def texts(axis) -> list[str]:
    return [t for _, t in tick_label_rects(axis)]


def assert_no_overlap(axis, least: int = 2) -> None:
    rects = tick_label_rects(axis)
    assert len(rects) >= least, [t for _, t in rects]
    for i, (a, ta) in enumerate(rects):
        for b, tb in rects[i + 1:]:
            assert not a.intersects(b), f"tick labels {ta!r} and {tb!r} overlap"


def menu_action(window, *path: str):
    """The QAction the user clicks, by its menu path without "&" (e.g. "View", "Theme", "Dark")."""
    actions = window.menuBar().actions()
    for name in path:
        action = next(a for a in actions if a.text().replace("&", "") == name)
        actions = action.menu().actions() if action.menu() is not None else []
    return action


def best_mb_s(window, run_id: int, test: str) -> float:
    kb = window.ws.con.execute("SELECT max(kb_s) FROM iozone_results WHERE run_id = ? AND test = ?",
                               [run_id, test]).fetchall()[0][0]
    return kb / KB_PER_MB


def bar_ends(view) -> dict[str, list[float]]:
    """Per legend name, where each bar ends in MB/s (undoing the log axis when it is on)."""
    log = view.bars.getPlotItem().getAxis("bottom").logMode
    out = {}
    for item in view.bar_items:
        o = item.opts
        ends = [x0 + w for x0, w in zip(o["x0"], o["width"])]
        out[o["name"]] = [10 ** e if log else e for e in ends]
    return out


def test_bars_answer_which_is_faster_per_test_and_by_how_much(qtbot, window):
    ext2, t12, l5 = imported(window, EXT2, T12, L5)
    view = open_iozone(qtbot, window, [ext2, t12, l5])
    names = list(view.series)
    assert names == ["iozone-results-comparator_ext2_1.iozone · 1 stream",
                     "snippet_lkml-iommu_iozone-t12-plus-u · 12 streams",
                     "snippet_ubuntuforums_iozone-throughput-l5-u5-R · 5 streams"]
    # IOzone's own test order, first at the top; the bars are the exact best figures in MB/s (kB/s / 1,024)
    assert view.tests[:4] == ["write", "rewrite", "read", "reread"]
    assert view.bars.getPlotItem().getViewBox().yInverted()
    ends = bar_ends(view)
    assert ends[names[1]][0] == pytest.approx(4732581.09 / 1024, rel=1e-12)  # "Children see ... = 4732581.09"
    assert ends[names[0]][0] == pytest.approx(best_mb_s(window, ext2, "write"), rel=1e-12)
    # by how much: hovering the "write" row lists each series with its factor to the fastest
    vb = view.bars.getPlotItem().getViewBox()
    row = vb.mapViewToScene(pg.Point(vb.viewRange()[0][0] + 1e-6, 0))
    qtbot.mouseMove(view.bars.viewport(), view.bars.mapFromScene(row) + QPoint(20, 0))
    qtbot.waitUntil(lambda: QToolTip.isVisible() and QToolTip.text().startswith("write"), timeout=3000)
    w12, w5 = 4732581.09 / 1024, best_mb_s(window, l5, "write")
    assert f"{names[1]}: {w12:,.0f} MB/s (fastest)" in QToolTip.text()
    assert f"{names[2]}: {w5:,.0f} MB/s (fastest is {w12 / w5:.2f}×)" in QToolTip.text()
    assert "Fastest in the" in view.message.text()
    assert "× the next" in view.message.text()


def test_legend_sits_outside_the_bars_and_ticks_are_readable(qtbot, window):
    ids = imported(window, EXT2, BIG, T12, L5)
    view = open_iozone(qtbot, window, ids)
    plot = view.bars.getPlotItem()
    vb = plot.getViewBox()
    legend = view.legend.sceneBoundingRect()
    assert legend.height() > 0
    assert not legend.intersects(vb.sceneBoundingRect())
    # the whole legend is on screen (inside the chart, not cut at its edge)
    assert view.bars.viewport().rect().contains(view.bars.mapFromScene(legend).boundingRect())
    assert len(view.legend.items) == 4
    ticks = texts(plot.getAxis("bottom"))
    assert ticks
    assert not any("e+" in t or "e-" in t for t in ticks)
    assert any("," in t for t in ticks), ticks  # thousands separators: "10,000", never 1e+04
    assert "MB/s" in plot.getAxis("bottom").labelText
    assert_no_overlap(plot.getAxis("bottom"))
    assert_no_overlap(plot.getAxis("left"), least=10)  # every test name fits at 1366 x 768
    assert texts(plot.getAxis("left"))[:3] == ["write", "rewrite", "read"]


def test_log_scale_is_a_real_logarithmic_axis(qtbot, window):
    ext2, t12 = imported(window, EXT2, T12)
    view = open_iozone(qtbot, window, [ext2, t12])
    qtbot.mouseClick(view.log, Qt.MouseButton.LeftButton, pos=QPoint(8, view.log.height() // 2))
    assert view.log.isChecked()
    qtbot.wait(50)
    axis = view.bars.getPlotItem().getAxis("bottom")
    assert axis.logMode
    assert view.bars.getPlotItem().ctrl.logXCheck.isChecked()
    assert "log scale" in axis.labelText
    ticks = texts(axis)
    assert ticks
    assert not any("e+" in t for t in ticks)
    for t in ticks:  # real values at 1-2-5 steps, not exponents
        v = float(t.replace(",", ""))
        mantissa = v / 10 ** math.floor(math.log10(v))
        assert round(mantissa, 6) in (1, 2, 3, 5), t
    assert "1,000" in ticks
    assert_no_overlap(axis)
    # every bar still ends at its exact value; they start at the decade below the slowest result
    ends = bar_ends(view)
    assert ends[list(view.series)[1]][0] == pytest.approx(4732581.09 / 1024, rel=1e-9)
    lowest = min(v for d in view.series.values() for v in d.values()) / KB_PER_MB
    starts = {x0 for item in view.bar_items for x0 in item.opts["x0"]}
    assert starts == {math.floor(math.log10(lowest))}
    qtbot.mouseClick(view.log, Qt.MouseButton.LeftButton, pos=QPoint(8, view.log.height() // 2))
    assert not axis.logMode
    assert not view.log.isChecked()
    assert bar_ends(view)[list(view.series)[1]][0] == pytest.approx(4732581.09 / 1024, rel=1e-12)


def test_matrix_is_titled_with_the_run_and_the_user_picks_the_run_and_test(qtbot, window):
    ext2, big, t12 = imported(window, EXT2, BIG, T12)
    view = open_iozone(qtbot, window, [ext2, big, t12])
    # only runs with a file-size x record-size matrix are offered (the 12-stream run has none)
    runs = [view.matrix_run.itemText(i) for i in range(view.matrix_run.count())]
    assert runs == ["iozone-results-comparator_ext2_1.iozone", "iozone2csv_iozone.out"]
    assert view.test.currentText() == "write"
    title = view.matrix_title.text()
    assert "iozone-results-comparator_ext2_1.iozone" in title
    assert "write: MB/s by file size and record size" in title
    assert view.image.image.shape == (21, 13)
    assert_no_overlap(view.file_axis)
    assert_no_overlap(view.record_axis)
    assert texts(view.file_axis)[0] == "4k"
    assert texts(view.record_axis)[0] == "4k"
    bar_axis = view.colorbar.axis
    assert view.colorbar.isVisible()
    assert "MB/s" in view.colorbar.getAxis("left").labelText
    assert bar_axis.range[1] == pytest.approx(float(best_mb_s(window, ext2, "write")))
    assert not any("e+" in t for t in texts(bar_axis))
    assert any("," in t for t in texts(bar_axis))

    view.matrix_run.setCurrentIndex(1)  # the user picks the other run ...
    assert "iozone2csv_iozone.out" in view.matrix_title.text()
    assert view.image.image.shape == (2, 4)
    assert texts(view.file_axis) == ["1G", "2G"]
    assert texts(view.record_axis) == ["512k", "1M", "2M", "4M"]
    cell = window.ws.con.execute("SELECT kb_s FROM iozone_results WHERE run_id = ? AND test = 'write' "
                                 "AND file_kb = 1048576 AND record_kb = 512", [big]).fetchall()[0][0]
    # the file's first row, exactly
    assert cell == 5169375
    assert view.image.image[0, 0] == cell / 1024
    view.test.setCurrentIndex(view.test.findText("random write"))  # ... and another test
    assert "random write: MB/s" in view.matrix_title.text()
    assert view.matrix_run.currentText() == "iozone2csv_iozone.out"
    # a narrow panel thins the labels instead of piling them up
    view.matrix_run.setCurrentIndex(0)
    view.splitter.setSizes([900, 250])
    qtbot.wait(50)
    assert_no_overlap(view.file_axis)
    assert_no_overlap(view.record_axis)


def test_cached_results_are_marked_in_the_grid_in_customer_words(qtbot, window):
    ext2, l5 = imported(window, EXT2, L5, ram_gb=1)
    view = open_iozone(qtbot, window, [ext2, l5])
    for label in (view.message, view.cache_note, view.matrix_title):
        assert "page_cache" not in label.text()
        assert "_likely" not in label.text()
        assert "--" not in label.text()
    cached = window.ws.con.execute(
        "SELECT count(*) FILTER (WHERE page_cache_likely), count(*) FROM iozone_results WHERE run_id = ? "
        "AND test = 'write' AND mode = 'auto'", [ext2]).fetchall()[0]
    assert 0 < cached[0] < cached[1]
    assert len(view.cache_cells) == cached[0]
    assert f"Ringed cells ({cached[0]} of {cached[1]})" in view.cache_note.text()
    assert "smaller than the host's RAM (1 GB)" in view.cache_note.text()
    # the rings are where the data set is under 1 GB: files up to 512 MB
    files = sorted({f for (f,) in window.ws.con.execute(
        "SELECT DISTINCT file_kb FROM iozone_results WHERE run_id = ? AND test = 'write'", [ext2]).fetchall()})
    assert {files[i] for i, _ in view.cache_cells} == {f for f in files if f < 1024 * 1024}


def test_without_the_ram_nothing_is_marked_and_the_note_says_why(qtbot, window):
    (ext2,) = imported(window, EXT2)
    view = open_iozone(qtbot, window, [ext2])
    assert view.cache_cells == []
    assert "host's RAM was not given" in view.cache_note.text()


def test_dark_theme_text_reads_on_the_dark_background(qtbot, window):
    ext2, t12 = imported(window, EXT2, T12)
    view = open_iozone(qtbot, window, [ext2, t12])
    try:
        menu_action(window, "View", "Theme", "Dark").trigger()
        qtbot.wait(50)
        fg = pg.mkColor("#e6e6e6")
        for axis in (view.bars.getPlotItem().getAxis("bottom"), view.file_axis, view.colorbar.axis):
            assert axis.textPen().color() == fg
        assert len(view.legend.items) == 2  # one entry per run
        for _, label in view.legend.items:
            assert pg.mkColor(label.opts["color"]) == fg
        assert view.bars.backgroundBrush().color() == pg.mkColor("#1e1e1e")
        assert QApplication.palette().windowText().color().lightness() > 200  # the Qt titles follow the palette
        assert len(view.bar_items) == 2  # redrawn, nothing lost
    finally:
        menu_action(window, "View", "Theme", "Light").trigger()
        qtbot.wait(20)
    assert view.bars.getPlotItem().getAxis("bottom").textPen().color().lightness() < 60


def test_throughput_runs_alone_have_bars_and_say_why_there_is_no_matrix(qtbot, window):
    t12, l5 = imported(window, T12, L5)
    view = open_iozone(qtbot, window, [t12, l5])
    assert view.bars.isVisible()
    assert len(view.bar_items) == 2
    assert not view.matrix.isVisible()
    assert not view.test.isEnabled()
    assert "No file-size x record-size matrix" in view.matrix_title.text()
    assert "12 streams in 4" in view.message.text()  # the 12-stream run is faster in all four shared tests
    tree = window.browser.tree
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     tree.visualItemRect(tree.currentItem()).center())  # Ctrl+click: deselect one ...
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     tree.visualItemRect(next(it for it in window.browser._run_items() if it.isSelected())).center())
    assert window.browser.selected_runs() == []
    # no empty axes
    assert not view.splitter.isVisible()
    assert not view.log.isEnabled()
    assert view.message.text() == "Select IOzone runs in the run list."
