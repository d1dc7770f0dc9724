"""The main window through the user's path: menu actions, shortcuts, clicks (issue "The window a consultant trusts")."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog  # noqa: E402

from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import SAMPLES, dispose_window, drop_paths, open_window, run_menu  # noqa: E402


def menu_action(window, menu_title, text):
    """The QAction the user clicks: menu bar entry `menu_title` (without &), item `text` (without &)."""
    for top in window.menuBar().actions():
        if top.text().replace("&", "") == menu_title:
            for a in top.menu().actions():
                if a.text().replace("&", "") == text:
                    return a
                if a.menu() is not None:
                    for b in a.menu().actions():
                        if b.text().replace("&", "") == text:
                            return b
    raise AssertionError(f"no menu item {menu_title} ▸ {text}")


def import_samples(window, names, **opts):
    from app.importer import import_file

    ids = [import_file(window.ws, str(SAMPLES / n), ImportOptions(**opts)).run_ids[0] for n in names]
    window.browser.reload()
    return ids


def wait_curves(qtbot, window, n=1):
    qtbot.waitUntil(lambda: not window.plot.loading and len(window.plot.curves) >= n, timeout=30000)


@pytest.mark.parametrize("how", ["menu", "shortcut"])
@pytest.mark.parametrize("ext", ["png", "svg"])
def test_export_chart_from_the_menu_and_ctrl_e(qtbot, window, tmp_path, monkeypatch, how, ext):
    """File ▸ Export chart… and Ctrl+E write the file the user names (Qt's `checked` flag is not a path)."""
    rid = import_samples(window, ["storm_fast_iostat-xt.txt"])[0]
    window.browser.select_runs([rid])
    wait_curves(qtbot, window)
    out = tmp_path / f"chart.{ext}"
    asked = []

    def fake_save(*args, **kwargs):
        asked.append(args)
        return str(out), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    if how == "menu":
        menu_action(window, "File", "Export chart…").trigger()
    else:
        window.activateWindow()
        qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert asked, "the save dialog was not shown"
    assert out.stat().st_size > 1000


def test_theme_menu_switches_restyles_charts_and_is_remembered(qtbot, tmp_path):
    import pyqtgraph as pg

    from app.ui import theme

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = open_window(qtbot, tmp_path, settings)
    try:
        assert w.theme_actions["system"].isChecked()  # the default follows the system (light offscreen)
        menu_action(w, "View", "Dark").trigger()
        assert theme.current() == "dark"
        assert settings.value("theme") == "dark"
        assert QApplication.instance().palette().window().color().lightness() < 80
        axis = w.plot.plot.getPlotItem().getAxis("left")
        assert axis.textPen().color().lightness() > 180  # light text on the dark chart
        assert pg.getConfigOption("background") == "#1e1e1e"
    finally:
        dispose_window(qtbot, w)
    w2 = open_window(qtbot, tmp_path, settings)  # remembered
    try:
        assert w2.theme_actions["dark"].isChecked()
        assert theme.current() == "dark"
        menu_action(w2, "View", "Light").trigger()
        assert theme.current() == "light"
        assert w2.plot.plot.getPlotItem().getAxis("left").textPen().color().lightness() < 80
    finally:
        dispose_window(qtbot, w2)
        theme.apply_theme("light")


def test_since_boot_banner_says_so_and_one_click_keeps_the_first_report(qtbot, window):
    rid = import_samples(window, ["storm_fast_iostat-xt.txt"])[0]  # auto: report 0 is since boot
    window.browser.select_runs([rid])
    wait_curves(qtbot, window)
    assert window.banner.isVisible()
    assert "storm_fast_iostat-xt" in window.banner.text.text()
    assert "left out" in window.banner.text.text()
    n_before = window.plot.curves[0].y.size
    qtbot.mouseClick(window.banner.keep, Qt.MouseButton.LeftButton)
    assert window.banner.undo.isVisible()
    assert not window.banner.keep.isVisible()
    assert "now counts as an interval" in window.banner.text.text()
    assert window.ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples WHERE run_id = ?",
                                 [rid]).fetchall() == [(False,)]
    qtbot.waitUntil(lambda: not window.plot.loading and window.plot.curves
                    and window.plot.curves[0].y.size == n_before + 1, timeout=30000)
    assert "Undo" in window.statusBar().currentMessage()
    qtbot.mouseClick(window.banner.undo, Qt.MouseButton.LeftButton)  # the same runs, back as they were
    assert window.ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples WHERE run_id = ?",
                                 [rid]).fetchall() == [(True,)]
    assert window.banner.keep.isVisible()
    assert not window.banner.undo.isVisible()


def test_the_banner_gives_each_tools_reason_for_its_first_report(qtbot, window):
    """zpool iostat's first report covers the time since the pool was imported, not since boot."""
    from app.importer import import_file
    from parsers.base import ImportOptions
    from tests.conftest import CORPUS

    rid = import_file(window.ws, str(CORPUS / "iostat-other" / "zfs-fuse-0.7.0_zpool-iostat-Tu_two-pools.txt"),
                      ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.select_runs([rid])
    wait_curves(qtbot, window)
    assert window.banner.isVisible()
    assert "since the pool was imported" in window.banner.text.text()
    assert "machine booted" not in window.banner.text.text()


def test_import_with_options_from_the_file_menu(qtbot, window, monkeypatch):
    """File ▸ Import with options…: interval and first report reach the import."""
    from app.ui.import_options import ImportOptionsDialog

    def fill_and_accept(dlg):
        dlg.paths.addItem(str(SAMPLES / "capped_200iops_iostat-d.txt"))
        dlg._sync()
        dlg.interval.setValue(2)
        dlg.first_report.setCurrentIndex(dlg.first_report.findData("interval"))
        qtbot.mouseClick(dlg.import_button, Qt.MouseButton.LeftButton)
        return dlg.result()

    monkeypatch.setattr(ImportOptionsDialog, "exec", fill_and_accept)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    (run,) = window.ws.runs()
    assert run.interval_s == 2.0
    assert run.interval_source == "user"
    assert window.ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples").fetchall() == [(False,)]
    assert window.options_dialog.result() == QDialog.DialogCode.Accepted


def test_runs_waiting_for_an_interval_get_a_field_after_the_import(qtbot, window):

    drop_paths(window, [SAMPLES / "capped_200iops_iostat-d.txt"])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    waiting = window.import_panel.waiting
    assert waiting.isVisible()
    assert len(waiting.fields) == 1
    (rid, field), = waiting.fields.items()
    field.lineEdit().selectAll()
    qtbot.keyClicks(field.lineEdit(), "2")
    qtbot.mouseClick(waiting.buttons[rid], Qt.MouseButton.LeftButton)
    run = window.ws.run(rid)
    assert run.interval_s == 2.0
    assert not waiting.isVisible()
    assert window.ws.con.execute("SELECT max(t_s) FROM iostat_samples WHERE run_id = ?", [rid]).fetchall() == [(58.0,)]
    # the import message no longer points at a list that is gone
    assert window.import_panel.message.text() == "1 imported, 0 duplicate, 0 failed, 0 skipped"


def test_window_stays_within_a_laptop_screen_with_every_run_selected(qtbot, window):
    """A long notes line must wrap, not widen the window; run names stay readable."""

    drop_paths(window, [SAMPLES])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    window.browser.tree.selectAll()
    qtbot.waitUntil(lambda: not window.plot.loading, timeout=30000)
    qtbot.wait(50)
    assert window.minimumSizeHint().width() <= 1366
    assert window.width() <= max(1400, window.screen().availableGeometry().width())
    assert window.browser.width() >= 240
    tree = window.browser.tree
    assert tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    item = next(it for it in window.browser._run_items())
    assert item.text(0) in item.toolTip(0)  # the full name in the tooltip


def test_ctrl_0_resets_the_zoom_wherever_the_focus_is_and_view_menu_has_it(qtbot, window):
    rid = import_samples(window, ["storm_fast_iostat-xt.txt"])[0]
    window.browser.select_runs([rid])
    wait_curves(qtbot, window)
    vb = window.plot.plot.getPlotItem().getViewBox()
    vb.setXRange(10, 20, padding=0)
    assert window.plot.visible_range() is not None
    window.browser.tree.setFocus()  # the focus in the run list, not on the chart
    qtbot.keyClick(window.browser.tree, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.plot.visible_range() is None, timeout=3000)
    assert menu_action(window, "View", "Reset zoom").shortcut().toString() == "Ctrl+0"


def test_a_closed_panel_comes_back_from_the_view_menu(qtbot, window):
    window.import_dock.close()  # as its title bar's close button does
    assert not window.import_dock.isVisible()
    menu_action(window, "View", "Import").trigger()
    assert window.import_dock.isVisible()
    window.runs_dock.close()
    menu_action(window, "View", "Runs").trigger()
    assert window.runs_dock.isVisible()


def test_many_runs_without_time_stamps_keep_the_window_on_the_screen(qtbot, window, tmp_path):
    """A folder of 12 logs without -t: the waiting list scrolls, two lines high, and one field sets them all."""

    folder = tmp_path / "drop"
    folder.mkdir()
    text = (SAMPLES / "capped_200iops_iostat-d.txt").read_text()
    for k in range(12):
        (folder / f"vm{k:02d}_iostat-d.txt").write_text(text.replace("Linux", f"Linux{' ' * (k + 1)}", 1))
    drop_paths(window, [folder])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=120000)
    waiting = window.import_panel.waiting
    assert len(waiting.fields) == 12
    assert waiting.all_row.isVisible()
    assert waiting.scroll_area.height() < 3 * waiting.buttons[next(iter(waiting.buttons))].sizeHint().height() + 20
    assert window.height() <= 768
    assert window.minimumSizeHint().height() <= 768
    waiting.all_field.lineEdit().selectAll()
    qtbot.keyClicks(waiting.all_field.lineEdit(), "2")
    qtbot.mouseClick(waiting.all_button, Qt.MouseButton.LeftButton)
    assert all(r.interval_s == 2.0 for r in window.ws.runs())
    assert not waiting.isVisible()


def test_notes_under_the_chart_stay_two_lines_with_the_rest_in_the_tooltip(qtbot, window):
    window.plot.show_notes([f"run {k}: a note" for k in range(30)])
    assert "… and 28 more" in window.plot.readout.text()
    assert window.plot.readout.toolTip().count("\n") == 29


def test_banner_and_import_list_follow_a_theme_switch(qtbot, window):
    from app.ui import theme

    drop_paths(window, [SAMPLES / "storm_fast_iostat-xt.txt"])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert window.banner.isVisible()
    try:
        menu_action(window, "View", "Dark").trigger()
        assert "#f3e3b0" in window.banner.styleSheet()
        assert window.import_panel.list.item(0).foreground().color().lightness() > 120
        menu_action(window, "View", "Light").trigger()
        assert "#3a2a00" in window.banner.styleSheet()
        assert window.import_panel.list.item(0).foreground().color().lightness() < 120
    finally:
        theme.apply_theme("light")


def run_menu_texts(qtbot, window, rid):
    """Right-click the run in the list; the texts (and ticks) of the menu that pops up, then Escape."""
    return {text: ticked for text, _enabled, ticked, _tip in run_menu(qtbot, window, rid)}


def test_the_run_menu_offers_what_applies_and_ticks_the_first_report_mode(qtbot, window):
    rid = import_samples(window, ["storm_fast_iostat-xt.txt"])[0]
    items = run_menu_texts(qtbot, window, rid)
    assert items["First report is since boot"] is True
    assert items["First report is an interval (iostat -y)"] is False
    assert not any("vscsiStats" in t for t in items)
    assert "Set interval…" not in items  # its interval comes from its time stamps
    plain = import_samples(window, ["capped_200iops_iostat-d.txt"])[0]  # no time stamps: the interval is asked for
    assert "Set interval…" in run_menu_texts(qtbot, window, plain)
    # a fio histogram log: its counts are per interval by definition, its first sample is no since-boot report
    from app.importer import import_file
    from parsers.base import ImportOptions
    from tests.conftest import CORPUS

    hist = import_file(window.ws, str(CORPUS / "fio" / "vm_fio-3.33_randrw-avg500_clat_hist.1.log"),
                       ImportOptions()).run_ids[0]
    window.browser.reload()
    items = run_menu_texts(qtbot, window, hist)
    assert not any("vscsiStats" in t or "First report" in t or t == "Set interval…" for t in items), items


def test_hidden_tabs_are_built_when_first_shown_and_then_show_the_selection(qtbot, window):
    """A quicker start (issue 18): the Histograms, IOzone and Sizing tabs are built when the user first clicks
    them, and then show the runs selected meanwhile, as if they had been there all along."""
    from tests.conftest import click_tab

    assert not any(v.built for v in (window.histos, window.iozone, window.sizing))
    [rid] = import_samples(window, ["storm_fast_iostat-xt.txt"], first_report="interval")
    window.browser.select_runs([rid])
    assert not window.sizing.built  # selecting runs builds no hidden tab
    assert click_tab(qtbot, window, "Sizing") is window.sizing
    assert window.sizing.built
    assert window.sizing.view.isVisible()
    assert window.sizing.run_ids == [rid]
    assert not window.histos.built


def test_the_banner_gives_each_run_its_own_reason_and_never_keeps_a_proved_since_boot_report(qtbot, window):
    """Review finding: the reasons of several runs were merged into one sentence (the proof of one run read as the
    proof of all), and the one click kept every run's first report -- including one the file proves covers the
    time since boot, which would then count 3,397 IOPS averaged since boot as an interval."""
    capped = import_samples(window, ["capped_200iops_iostat-d.txt"], interval_s=2.0)[0]  # proved since boot
    fast, slow = import_samples(window, ["storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"])  # assumed
    window.browser.select_runs([capped, fast, slow])
    wait_curves(qtbot, window, 3)
    text = window.banner.text.text()
    proof, default = text.split("; ", 1)
    assert "capped_200iops_iostat-d: the file proves it covers the time since boot" in proof
    assert "storm_fast" not in proof
    assert "storm_fast_iostat-xt and storm_slow_iostat-xt: iostat's first report covers" in default
    assert "the file cannot tell" in default
    assert "capped" not in default
    assert window.banner.keep.text() == "Keep the first report of the 2 that cannot tell"
    qtbot.mouseClick(window.banner.keep, Qt.MouseButton.LeftButton)
    left_out = dict(window.ws.con.execute("SELECT run_id, bool_or(since_boot) FROM iostat_samples GROUP BY 1")
                    .fetchall())
    assert left_out == {capped: True, fast: False, slow: False}
    assert "capped_200iops_iostat-d: the file proves" in window.banner.text.text()  # still said
    assert "The first report of 2 runs now counts as an interval" in window.banner.text.text()
    assert not window.banner.keep.isVisible()  # nothing left the click may change
    qtbot.mouseClick(window.banner.undo, Qt.MouseButton.LeftButton)  # the two, back as they were
    left_out = dict(window.ws.con.execute("SELECT run_id, bool_or(since_boot) FROM iostat_samples GROUP BY 1")
                    .fetchall())
    assert left_out == {capped: True, fast: True, slow: True}
    assert not window.banner.undo.isVisible()


def test_help_user_guide_opens_the_guide_and_its_contents_links_work(qtbot, window):
    """Help ▸ User guide (F1) shows the guide's part about the window, rendered, with no command-line options in it
    (the rest of docs/user-guide.md is the command line's reference); clicking an entry of its contents scrolls to
    the section. Before, Help had no guide at all; then it showed the whole guide, options and all."""
    import re

    from PySide6.QtCore import QPoint

    qtbot.keyClick(window, Qt.Key.Key_F1)  # the shortcut of Help ▸ User guide
    qtbot.waitUntil(lambda: getattr(window, "guide_window", None) is not None and window.guide_window.isVisible())
    guide = window.guide_window
    assert menu_action(window, "Help", "User guide") is window.guide_action
    browser = guide.browser
    text = browser.toPlainText()
    assert text.startswith("StormScope user guide")
    assert "Report from folder" in text
    assert "Iometer / IOmark" in text
    assert not re.findall(r"main\.py|stormscope-cli|(?<![\w-])--[a-z]|\$STORMSCOPE|\.md\b", text)
    assert "The command line" not in text  # a link to a part not shown reads as its words, if at all
    bar = browser.verticalScrollBar()
    assert bar.value() == 0
    link = browser.document().find("Other settings")  # the last entry of the contents
    rect = browser.cursorRect(link)
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left() - 10, rect.center().y()))
    qtbot.waitUntil(lambda: bar.value() > 0)
    top = browser.cursorForPosition(QPoint(5, 5)).block()
    assert top.text() == "Other settings" or browser.textCursor().block().text() == "Other settings"
    assert guide.status.text() == ""
    guide.close()


def test_the_guide_bundled_is_the_one_shown_and_its_window_part_names_no_command_line_flags():
    """The desktop build carries docs/user-guide.md where the window reads it; the part about the window talks
    about menus and buttons, not the command line's flags or StormScope's own files."""
    import re

    from app.ui.guide import GUIDE
    from tests.conftest import ROOT

    assert GUIDE == ROOT / "docs" / "user-guide.md"
    spec = (ROOT / "packaging" / "stormscope.spec").read_text()
    assert '(str(ROOT / "docs" / "user-guide.md"), "docs")' in spec
    for link in re.findall(r"\]\((images/[^)]+)\)", GUIDE.read_text()):
        assert f'"{link.split("/")[0]}" / "{link.split("/")[1]}"), "docs/images")' in spec
    text = GUIDE.read_text()
    window_part = text[text.index("## The window"):text.index("## Formats read")]
    assert not re.findall(r"--[a-z]", window_part)
    assert not re.findall(r"\b[\w/]+\.(?:py|md)\b", window_part)


def test_about_shows_the_version(qtbot, window):
    """Help ▸ About StormScope says which version (pyproject.toml's, as --version prints it). Before: none."""
    import tomllib

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    from reports.options import version
    from tests.conftest import ROOT

    seen = []

    def read_and_close():
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box.text())
        box.accept()

    QTimer.singleShot(200, read_and_close)
    menu_action(window, "Help", "About StormScope").trigger()
    assert seen
    assert f"StormScope {version()} " in seen[0]
    assert "esxtop, perfmon, vscsiStats, fio, DiskSpd, IOzone, Iometer, IOmark or hdparm" in seen[0]  # every tool read
    assert version() == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_run_names_are_readable_in_a_1280_by_800_window(qtbot, tmp_path):
    """The run list opens RUN_LIST_WIDTH wide at 1280 x 800: the sample runs' names and periods show whole. Before, the
    Overlay's first row of controls (Add to report at its end) and the results line were too wide to shrink, so
    the run list got what was left (332 px of its 420)."""
    from app.ui.main_window import RUN_LIST_WIDTH
    from app.ui.run_browser import RUN_ROLE

    w = open_window(qtbot, tmp_path, size=(1280, 800))
    try:
        import_samples(w, ["storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt", "capped_200iops_iostat-d.txt"])
        qtbot.waitUntil(lambda: w.runs_dock.width() >= RUN_LIST_WIDTH - 10)
        tree = w.browser.tree
        items = [it for it in w.browser._run_items() if it.data(0, RUN_ROLE) is not None]
        assert len(items) == 3
        for it in items:
            rect = tree.visualItemRect(it)
            needed = tree.fontMetrics().horizontalAdvance(it.text(0))
            assert rect.left() + needed <= tree.columnWidth(0), it.text(0)  # not elided
        # the name and the period (when the run was captured) in view without scrolling
        assert tree.columnWidth(0) + tree.columnWidth(1) <= tree.viewport().width()
        assert w.tabs.width() >= w.plot.minimumSizeHint().width()  # the Overlay's controls fit beside it
    finally:
        dispose_window(qtbot, w)
