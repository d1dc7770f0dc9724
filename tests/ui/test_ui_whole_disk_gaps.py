"""A whole disk missing from reports in the middle of a run, through the window (issue 30): the dropped file's line in
the import panel names the gap, the Overlay breaks the run's line there (no value, never 0) and says why under the
chart. The file is a corpus capture with one disk's rows removed, made in the test (tests/analysis/
test_whole_disk_gaps.py says how)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402

from tests.analysis.test_whole_disk_gaps import IOSTAT, without_iostat  # noqa: E402
from tests.conftest import click_tab, drop_paths  # noqa: E402


def test_a_dropped_run_with_a_missing_disk_shows_its_gap_in_the_import_panel_and_the_overlay(qtbot, window, tmp_path):
    path = without_iostat(IOSTAT, "sdb", 40, 44, tmp_path / "sdb_gone.txt")
    drop_paths(window, [path])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    panel = window.import_panel.list
    item = panel.item(panel.count() - 1)
    assert "warnings" in item.text()
    assert "whole-disk figures have a gap: a disk is missing from 5 reports in the middle of the run (sdb from " \
           "reports 40–44 (2018-06-13 14:11:29 – 2018-06-13 14:11:33))" in item.toolTip()
    [run] = window.ws.runs()
    click_tab(qtbot, window, "Overlay")
    plot = window.plot
    window.browser.select_runs([run.run_id])
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1, timeout=30000)
    y = np.asarray(plot.curves[0].y, dtype=float)
    assert int(np.isnan(y).sum()) == 5  # the five reports: no value (the line breaks), never 0
    assert "5 reports missing (a disk absent from them: a gap, not 0)" in plot.readout.toolTip()
