"""The window: lazy grid model, background import (progress, cancel, errors), drag and drop, views."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from app.ui.main_window import MainWindow  # noqa: E402
from app.ui.table_model import PAGE, PENDING, LazyQueryModel, Source  # noqa: E402
from app.ui.workers import ImportThread  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import GOOD, SAMPLES, drop_paths, grid_shown, save_report_text, write_report  # noqa: E402


@pytest.fixture
def big_ws(tmp_path):
    ws = Workspace(tmp_path / "big.duckdb")
    ws.con.execute("CREATE TABLE big AS SELECT i AS n, i % 7 AS k, 'dev' || (i % 3) AS d FROM range(100000) t(i)")
    yield ws
    ws.close()


def loaded(qtbot, m, rows=(0,)):
    qtbot.waitUntil(lambda: not m.is_loading(), timeout=30000)
    m.wait_for_rows(list(rows))
    return m


@pytest.mark.parametrize("source", [Source(sql="SELECT * FROM big"), Source(table="big", order="n")])
def test_model_fetches_pages_lazily_off_the_gui_thread(qtbot, qtmodeltester, big_ws, source):
    m = LazyQueryModel(big_ws.con, source)
    # nothing runs on the GUI thread: the constructor returns before the worker has described, counted or paged
    assert m.columns == []
    assert m.rowCount() == 0
    assert not m._pages
    assert m.is_loading()
    loaded(qtbot, m)
    assert m.columns == ["n", "k", "d"]
    assert m.rowCount() == 100000
    assert m.columnCount() == 3
    far = PAGE * 150 + 2
    assert m.index(far, 0).data() == PENDING  # asked for: fetched by the worker
    loaded(qtbot, m, [far])
    assert m.index(far, 0).data() == str(far)
    assert len(m._pages) <= 3
    m.set_filter(0, "<1200")  # Qt's model tester reads every cell: keep it to three pages
    loaded(qtbot, m, range(1200))
    qtmodeltester.check(m, force_py=True)
    m.close()


@pytest.mark.parametrize("source", [Source(sql="SELECT * FROM big"), Source(table="big", order="n")])
def test_model_sort_and_filter_in_sql(qtbot, big_ws, source):
    m = LazyQueryModel(big_ws.con, source)
    m.sort(0, Qt.SortOrder.DescendingOrder)
    loaded(qtbot, m)
    assert m.index(0, 0).data() == "99999"
    m.set_filter(1, "=3")
    loaded(qtbot, m)
    assert m.rowCount() == len([i for i in range(100000) if i % 7 == 3])
    m.set_filter(2, "dev2")
    loaded(qtbot, m, range(20))
    assert all(m.index(r, 2).data() == "dev2" for r in range(20))
    st = m.column_stats(0)
    assert st["max"] == max(i for i in range(100000) if i % 7 == 3 and i % 3 == 2)
    assert m.rows_as_tsv([0, 1], [0, 2], header=True).splitlines()[0] == "n\td"
    m.close()


def test_model_shows_sql_errors(qtbot, big_ws):
    m = LazyQueryModel(big_ws.con, "SELECT nope FROM big")
    loaded(qtbot, m)
    assert m.error
    assert "nope" in m.error
    assert m.rowCount() == 0
    m.close()


def test_import_thread_reports_every_file(qtbot, tmp_path):
    drop = tmp_path / "drop"
    drop.mkdir()
    (drop / "a.txt").write_text(GOOD)
    (drop / "b.txt").write_text(GOOD.replace("sda             10.00   20.00", "sda 1"))
    (drop / "notes.md").write_text("# notes\n")
    th = ImportThread(tmp_path / "w.duckdb", [str(drop)], ImportOptions())
    seen, progress = [], []
    th.file_done.connect(seen.append)
    th.progress.connect(lambda f, m: progress.append(f))
    with qtbot.waitSignal(th.done, timeout=30000) as blocker:
        th.start()
    th.wait()
    results = blocker.args[0]
    assert [r.status for r in results] == ["imported", "failed", "skipped"]
    assert [r.status for r in seen] == ["imported", "failed", "skipped"]
    assert "b.txt:5: expected 6 fields" in results[1].error
    assert progress[-1] == 1.0
    assert progress == sorted(progress)


def test_import_thread_can_be_cancelled(qtbot, tmp_path):
    drop = tmp_path / "drop"
    drop.mkdir()
    for i in range(30):
        (drop / f"f{i:02}.txt").write_text(GOOD.replace("vdi-host", f"host{i}"))
    th = ImportThread(tmp_path / "w.duckdb", [str(drop)], ImportOptions())
    th.file_done.connect(lambda r: th.cancel())
    with qtbot.waitSignal(th.done, timeout=30000) as blocker:
        th.start()
    th.wait()
    results = blocker.args[0]
    assert len(results) < 30
    assert results[-1].error.endswith("cancelled")
    with Workspace(tmp_path / "w.duckdb", read_only=True) as ws:
        assert len(ws.runs()) == sum(r.status == "imported" for r in results)


def test_title_and_drop_a_folder(qtbot, window):
    assert window.windowTitle() == "StormScope — ws"
    drop_paths(window, [SAMPLES])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    names = {r.name for r in window.ws.runs()}
    assert {"storm_fast_iostat-xt", "storm_slow_iostat-xt", "capped_200iops_iostat-d"} <= names
    assert window.import_panel.list.count() >= 6
    assert "imported" in window.import_panel.message.text()
    assert "1 run without time stamps: set the interval below" in window.import_panel.message.text()
    # the newly imported runs are selected, and the overlay shows the iostat ones
    qtbot.waitUntil(lambda: not window.plot.loading and len(window.plot.curves) >= 3, timeout=30000)


def test_grid_opens_a_run_and_copies_tsv(qtbot, window, tmp_path):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.open_grid.emit(rid)
    assert window.tabs.currentWidget() is window.grid
    m = grid_shown(qtbot, window.grid)
    qtbot.waitUntil(lambda: m.rowCount() == 120, timeout=30000)
    window.grid.view.selectRow(0)
    text = window.grid.copy_selection()
    assert text.splitlines()[0].startswith("run_id\tsample_idx")
    out = tmp_path / "out.csv"
    window.grid.export(str(out))
    assert len(out.read_text().splitlines()) == 121
    window.grid.export(str(tmp_path / "out.xlsx"))
    window.grid.export(str(tmp_path / "out.parquet"))
    import zipfile

    import polars as pl

    sheet = zipfile.ZipFile(tmp_path / "out.xlsx").read("xl/worksheets/sheet1.xml").decode()
    assert sheet.count("<row ") == 121
    assert pl.read_parquet(tmp_path / "out.parquet").height == 120
    # 24 of the 120 samples of storm_fast read more than 500 r/s (all on vda)
    window.grid.set_query("SELECT sample_idx, device FROM iostat_samples WHERE r_s > 500")
    # counted and its first page fetched (the label alone is not enough: a late answer of the previous query's
    # column statistics can overwrite "loading…" first)
    grid_shown(qtbot, window.grid)
    assert window.grid.model.columns == ["sample_idx", "device"]
    assert window.grid.model.rowCount() == 24
    assert window.grid.stats.text().startswith("24 rows")
    window.grid.model.wait_for_rows(list(range(24)))
    assert {window.grid.model.index(r, 1).data() for r in range(24)} == {"vda"}
    window.grid.set_query("SELECT broken")
    qtbot.waitUntil(lambda: not window.grid.busy(), timeout=30000)
    assert window.grid.error.isVisibleTo(window.grid)
    assert "SQL error" in window.grid.error.text()


def test_rename_tag_delete(qtbot, window):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    window.ws.rename_run(rid, "fast storm")
    window.ws.set_tags(rid, {"customer": "ACME"})
    window.browser.reload()
    window.browser.search.setText("acme")
    visible = [it.text(0) for it in window.browser._run_items() if not it.isHidden()]
    assert visible == ["fast storm"]
    window.browser.delete([rid], confirm=False)
    assert window.ws.runs() == []
    assert window.ws.con.execute("SELECT count(*) FROM iostat_samples").fetchall()[0][0] == 0


def test_chart_export_png_and_svg(qtbot, window, tmp_path):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.select_runs([rid])
    qtbot.waitUntil(lambda: not window.plot.loading and bool(window.plot.curves), timeout=30000)
    for name in ("c.png", "c.svg"):
        window.plot.export(str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 1000


def test_export_report_from_the_window(qtbot, window, tmp_path):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"),
                      ImportOptions(first_report="interval")).run_ids[0]
    window.browser.reload()
    window.browser.select_runs([rid])
    window.export_report()
    dlg = window.report_dialog
    dlg.customer.setText("ACME <Ltd>")
    dlg.save_as.setText("acme")
    write_report(qtbot, dlg, tmp_path / "r.pdf")
    assert "1,212 IOPS" in dlg.status.text()
    dlg.close()


def test_sizing_panel_gives_the_seed_figures(qtbot, window):
    p = window.sizing
    p.users.setValue(100)
    p.ipu.setText("25")
    p.read_pct.setValue(40)
    p.raid.setCurrentIndex(p.raid.findData("10"))
    p.disk.setCurrentIndex(p.disk.findData("sata7k"))
    assert p.result.disks == 54
    assert round(p.result.disks_exact, 2) == 53.33
    assert p.headline.text().startswith("54 disks (53.33 for IOPS, rounded up) for 100 users at 25 IOPS")
    p.ipu.setText("8")
    assert p.result.disks == 18


def test_grid_keeps_report_order_until_the_user_sorts(qtbot, window):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_slow_iostat-xt.txt"), ImportOptions()).run_ids[0]
    window.grid.show_run(rid)
    m = grid_shown(qtbot, window.grid)
    qtbot.waitUntil(lambda: m.rowCount() == 190, timeout=30000)
    m.wait_for_rows(list(range(190)))
    col = m.columns.index("sample_idx")
    assert [int(m.index(r, col).data()) for r in range(190)] == sorted(r // 2 for r in range(190))


def test_computed_columns_persist_in_the_workspace(qtbot, window):
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    window.grid.show_run(rid)
    grid_shown(qtbot, window.grid)
    assert window.grid.add_computed_column("iops", "r_s + w_s") is None
    assert "does not work" in window.grid.add_computed_column("bad", "r_s +* 2")
    assert "already has" in window.grid.add_computed_column("r_s", "1")
    m = grid_shown(qtbot, window.grid)
    qtbot.waitUntil(lambda: m.rowCount() == 120, timeout=30000)
    col = m.columns.index("iops")
    m.sort(col, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: not m.is_loading(), timeout=30000)
    m.wait_for_rows([0])
    assert m.index(0, col).data() == "1212"
    # a new window on the same workspace still has the column
    window.grid.show_run(rid)
    assert "iops" in grid_shown(qtbot, window.grid).columns
    assert window.ws.computed_columns("iostat_samples") == [("iops", "r_s + w_s")]


def test_selection_and_view_are_restored_and_runs_group_by_folder(qtbot, tmp_path):
    from app.importer import import_file

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(tmp_path / "ws.duckdb", settings)
    qtbot.addWidget(w)
    rid = import_file(w.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    w.browser.reload()
    w.browser.select_runs([rid])
    w.tabs.setCurrentWidget(w.histos)
    w.browser.group_by.setCurrentIndex(1)
    assert w.browser.tree.topLevelItem(0).child(0).text(0) == "sample_traces"
    w.close()
    w2 = MainWindow(tmp_path / "ws.duckdb", settings)
    qtbot.addWidget(w2)
    assert w2.browser.selected_runs() == [rid]
    assert w2.tabs.currentWidget() is w2.histos
    w2.close()


def test_every_view_on_the_sample_traces_and_zip_drop(qtbot, window, tmp_path):
    """Smoke test: a zip of the sample captures dropped on the window, every run selected, every view
    shown and exported as PNG and SVG."""
    import zipfile

    z = tmp_path / "traces.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in SAMPLES.glob("*"):
            if f.is_file():
                zf.write(f, f"customer/{f.name}")
    drop_paths(window, [z])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert {r.name for r in window.ws.runs()} >= {"storm_fast_iostat-xt", "fio_randrw_jsonplus"}
    window.browser.select_runs([r.run_id for r in window.ws.runs()])
    qtbot.waitUntil(lambda: not window.plot.loading, timeout=30000)
    devices = [window.plot.device.itemText(i) for i in range(window.plot.device.count())]
    assert devices[0] == "whole disks"
    assert "vda" in devices
    window.plot.device.setCurrentText("vda")
    qtbot.waitUntil(lambda: not window.plot.loading and bool(window.plot.curves), timeout=30000)
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(20)
        for ext in ("png", "svg"):
            out = tmp_path / f"view{i}.{ext}"
            window.export_chart(str(out))
            assert out.stat().st_size > 1000, window.tabs.tabText(i)


def test_interval_and_first_report_set_after_import(qtbot, window):
    """A folder of iostat logs without -t, dropped on the window: the interval is asked for afterwards,
    never guessed, and the overlay then draws them."""
    from app.importer import import_file

    rid = import_file(window.ws, str(SAMPLES / "capped_200iops_iostat-d.txt"), ImportOptions()).run_ids[0]
    assert window.ws.run(rid).interval_source == "unknown"
    asks = window.ws.run(rid).warnings
    assert any("{fix:set_interval}" in w for w in asks)
    window.browser.reload()
    assert window.browser.set_interval([rid], 2.0) == []
    run = window.ws.run(rid)
    assert run.interval_s == 2.0
    assert run.interval_source == "user"
    assert not any("{fix:set_interval}" in w for w in run.warnings)  # answered: the report must not ask again
    assert window.ws.con.execute("SELECT max(t_s) FROM iostat_samples WHERE run_id = ?", [rid]).fetchall() == [(58.0,)]
    window.browser.select_runs([rid])
    qtbot.waitUntil(lambda: not window.plot.loading and bool(window.plot.curves), timeout=30000)
    window.browser.set_first_report([rid], False)
    assert window.ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples WHERE run_id = ?",
                                 [rid]).fetchall() == [(False,)]
    assert "interval (set by the user)" in window.ws.run(rid).meta.json()
    answered = ("{fix:set_interval}", "{fix:first_report_interval}")
    assert list(window.ws.run(rid).warnings) == [w for w in asks if not any(a in w for a in answered)]
    storm = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    assert "has timestamps" in window.browser.set_interval([storm], 5.0)[0]


def test_with_questions_the_sections_ticked_in_the_report_dialog_follow_the_answers(qtbot, window, tmp_path,
                                                                                      monkeypatch):
    """Review finding: with a question in the workspace every ticked section but four was silently left out of the
    PDF. Now the dialog ticks what a report of answers holds, and a section the user ticks follows the answers."""

    from PySide6.QtCore import QPoint

    from app.analysis import questions as Q
    from app.importer import import_file
    from reports.builders import answer_section_keys

    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"),
                      ImportOptions(first_report="interval")).run_ids[0]
    Q.add_question(window.ws, Q.StormQuestion(run_id=rid))
    window.browser.reload()
    window.browser.select_runs([rid])
    window.export_report_action.trigger()  # Report ▸ Export report… (Ctrl+R)
    dlg = window.report_dialog
    assert {k for k, c in dlg.sections.items() if c.isChecked()} == set(answer_section_keys()) == {
        "runs", "iozone", "iometer_iomark", "crosscheck", "appendix"}
    assert not dlg.sections["summary"].isEnabled()
    assert "the sections ticked below follow them" in dlg.answers.text()
    box = dlg.sections["overlay"]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))  # tick I/O over time
    assert dlg.sections["overlay"].isChecked()
    text = save_report_text(qtbot, dlg, monkeypatch, tmp_path)
    answers, overlay, appendix = text.index("Answers"), text.index("I/O over time"), text.rindex("Appendix")
    assert answers < overlay < appendix
    dlg.close()


def _export_from_menu(qtbot, w, out, monkeypatch, typed=None):
    """Report ▸ Export report…, the heading typed into its boxes, Save clicked; returns the dialog."""
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    w.export_report_action.trigger()
    dlg = w.report_dialog
    for box, text in (typed or {}).items():
        getattr(dlg, box).clear()
        qtbot.keyClicks(getattr(dlg, box), text)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "PDF (*.pdf)"))
    qtbot.mouseClick(dlg.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save),
                     Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: f"Wrote {out.name}" in dlg.status.text(), timeout=60000)
    dlg.job.wait()
    dlg.close()
    return dlg


def test_report_dialog_remembers_the_heading_per_workspace_and_who_writes_per_user(qtbot, tmp_path, monkeypatch):
    """Before, every Export report… started blank: Customer, Consultant, Company and Title were typed again for
    each PDF. Now the workspace keeps its engagement's heading; the user's settings keep who writes the report,
    for a new workspace -- which never starts with the last customer's name."""
    from app.importer import import_file
    from tests.conftest import dispose_window, open_window

    mine = QSettings(str(tmp_path / "mine.ini"), QSettings.Format.IniFormat)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    heading = {"title": "VDI storm review", "customer": "Acme Bank", "consultant": "Jo Smith", "company": "StorCo"}
    w = open_window(qtbot, tmp_path / "a", settings=mine)
    import_file(w.ws, str(SAMPLES / "fio_randrw_jsonplus.json"), ImportOptions())
    w.browser.reload()
    _export_from_menu(qtbot, w, tmp_path / "one.pdf", monkeypatch, heading)
    w.export_report_action.trigger()  # the next export from the same window
    assert {k: getattr(w.report_dialog, k).text() for k in heading} == heading
    w.report_dialog.close()
    dispose_window(qtbot, w)

    # the same workspace opened by a colleague (settings of their own): the engagement's heading
    w = open_window(qtbot, tmp_path / "a", settings=QSettings(str(tmp_path / "theirs.ini"),
                                                              QSettings.Format.IniFormat))
    w.export_report_action.trigger()
    assert {k: getattr(w.report_dialog, k).text() for k in heading} == heading
    w.report_dialog.close()
    dispose_window(qtbot, w)

    # a new engagement's workspace, same user: who writes it, not the last customer
    w = open_window(qtbot, tmp_path / "b", settings=mine)
    w.export_report_action.trigger()
    dlg = w.report_dialog
    assert (dlg.consultant.text(), dlg.company.text()) == ("Jo Smith", "StorCo")
    assert (dlg.customer.text(), dlg.title.text()) == ("", "Storage performance report")
    dlg.close()
    dispose_window(qtbot, w)


def test_remembered_heading_from_someone_elses_workspace_is_only_text(tmp_path):
    """A workspace's remembered heading that StormScope did not write fills in nothing (or text only)."""
    with Workspace(tmp_path / "ws.duckdb") as ws:
        ws.con.execute("INSERT OR REPLACE INTO workspace_info VALUES ('report_fields', 'not json')")
        assert ws.report_fields() == {}
        ws.con.execute("""INSERT OR REPLACE INTO workspace_info VALUES ('report_fields',
                          '{"customer": "x", "logo": "/etc/passwd", "title": 3, "company": "%s"}')""" % ("y" * 5000))
        assert ws.report_fields() == {"customer": "x", "company": "y" * 1000}
