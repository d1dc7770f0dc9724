"""sar files through the window (issue 15): dropped like any trace, a binary saDD file refused in the import panel
with the command that converts it, the runs drawn in the Overlay with the figures table, the restart's gap left
empty, a device picked in the Overlay's device box."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402

from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN, click_tab, drop_paths  # noqa: E402

SAR = CORPUS / "sar"
RESTART = SAR / "vm_sysstat-12.6.1_sar-d-p_restart.txt"
TOTALS = SAR / "vm_sysstat-12.6.1_sar-b.txt"
HPUX = SAR / "ksar_hpux-sar.txt"
BINARY = SAR / "vm_sysstat-12.6.1_sa23"


def test_sar_files_dropped_on_the_window_are_drawn_in_the_overlay(qtbot, window):
    drop_paths(window, [RESTART, TOTALS, HPUX, BINARY])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert "3 imported, 0 duplicate, 1 failed" in window.import_panel.message.text()
    items = [window.import_panel.list.item(i).text() for i in range(window.import_panel.list.count())]
    refused = [t for t in items if BINARY.name in t]
    assert len(refused) == 1
    assert "sadf -d saDD -- -d -p > sar.csv" in refused[0]
    message = refused[0].split(f"{BINARY.name}: ", 1)[1]  # after the file's path
    for word, pattern in CUSTOMER_FORBIDDEN.items():
        assert not pattern.search(message), word
    runs = {r.name: r for r in window.ws.runs()}
    assert {r.kind for r in runs.values()} == {"sar"}
    click_tab(qtbot, window, "Overlay")
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 3 and not window.results.loading,
                    timeout=30000)
    # peaks: vda "22:50:13 1401.50 …" (sar -d) = rtps + wtps + dtps 983.00 + 416.00 + 2.50 (sar -b); HP-UX's last
    # block, r+w/s summed over its 67 disks
    peaks = {c.label: round(float(np.nanmax(c.y)), 1) for c in plot.curves}
    assert peaks == {"vm_sysstat-12.6.1_sar-d-p_restart": 1401.5, "vm_sysstat-12.6.1_sar-b": 1401.5,
                     "ksar_hpux-sar": 6216.0}
    qtbot.waitUntil(lambda: len(window.results.rows) >= 3, timeout=30000)  # the figures table below the chart
    # the restart run alone: its two segments on the wall clock, nothing drawn between 22:50:21 and 22:50:24
    window.browser.select_runs([runs["vm_sysstat-12.6.1_sar-d-p_restart"].run_id])
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1, timeout=30000)
    c = plot.curves[0]
    # 2 s samples 22:50:09 .. 22:50:21 cover 0-14 s; after the restart 22:50:26 .. 22:50:32 cover 17-25 s
    assert list(zip(c.t_start.tolist(), c.t.tolist())) == [(t - 2.0, t) for t in (2, 4, 6, 8, 10, 12, 14, 19, 21, 23,
                                                                                   25)]
    devices = [plot.device.itemText(i) for i in range(plot.device.count())]
    assert devices == ["whole disks", "loop0", "loop1", "loop2", "loop3", "vda"]
    plot.device.setCurrentIndex(devices.index("loop0"))
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1 and float(np.nanmax(plot.curves[0].y)) == 0,
                    timeout=30000)


def test_a_read_write_metric_on_a_run_without_the_split_says_why_it_draws_nothing(qtbot, window):
    """sar -d gives transfers per second, no reads and writes apart: IOPS (read) draws no curve and says why."""
    from app.importer import import_file
    from parsers.base import ImportOptions
    from tests.ui.test_ui_overlay import settle, shown

    rid = import_file(window.ws, str(CORPUS / "sar" / "vm_sysstat-12.6.1_sar-d-p_restart.txt"),
                      ImportOptions()).run_ids[0]
    window.browser.reload()
    plot = shown(qtbot, window, [rid])
    plot.metric_box.setCurrentText("IOPS (read)")
    settle(qtbot, plot, 1)
    assert np.isnan(plot.curves[0].y).all()
    assert "no reads and writes apart in its file (transfers per second only)" in plot.readout.toolTip()
