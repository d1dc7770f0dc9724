"""nmon files through the window (issue 15): dropped like any trace, an excerpt refused in the import panel with its
line, the runs drawn in the Overlay with the figures table, a device picked in the Overlay's device box."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.conftest import CORPUS, click_tab, drop_paths  # noqa: E402

SPLIT = CORPUS / "nmon" / "vm_nmon-16n_loop-partitions_l3-split_D.nmon"
AIX = CORPUS / "nmon" / "nmon2influxdb_aixlpar.nmon"
EXCERPT = CORPUS / "nmon" / "snippet_atsd-doc_aix-topas_nmon-snapshot-T0009.nmon.txt"


def test_nmon_files_dropped_on_the_window_are_drawn_in_the_overlay(qtbot, window):
    drop_paths(window, [SPLIT, AIX, EXCERPT])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert "2 imported, 0 duplicate, 1 failed" in window.import_panel.message.text()
    items = [window.import_panel.list.item(i).text() for i in range(window.import_panel.list.count())]
    assert any(f"{EXCERPT}:1: the file starts with 'ZZZZ,T0009" in t for t in items), items
    runs = {r.name: r for r in window.ws.runs()}
    assert {r.kind for r in runs.values()} == {"nmon"}
    click_tab(qtbot, window, "Overlay")
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 2 and not window.results.loading,
                    timeout=30000)
    # AIX whole disks: DISKRIO + DISKWIO of T0177 (145.0 + 519.9 per second) is the peak
    peaks = {c.label: round(float(c.y.max()), 1) for c in plot.curves}
    assert peaks["nmon2influxdb_aixlpar"] == 664.9
    qtbot.waitUntil(lambda: len(window.results.rows) >= 2, timeout=30000)  # the figures table below the chart
    assert [r.label for r in window.results.rows][:2] == [c.label for c in plot.curves]
    # the split capture on one partition, picked in the device box: DISKREADS,T0005,79240.9,79240.9,0.0
    window.browser.select_runs([runs["vm_nmon-16n_loop-partitions_l3-split_D"].run_id])
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1, timeout=30000)
    devices = [plot.device.itemText(i) for i in range(plot.device.count())]
    assert devices == ["whole disks", "loop0", "loop0p1", "loop0p2", "loop1", "loop2", "vda"]
    plot.device.setCurrentIndex(devices.index("loop0p1"))
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1 and float(plot.curves[0].y.max()) > 70000,
                    timeout=30000)
    assert float(plot.curves[0].y.max()) == 79240.9
