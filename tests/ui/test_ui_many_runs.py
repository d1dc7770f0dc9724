"""A workspace of many runs: what the window does on its own thread when every run is selected (Ctrl+A in the run
list) and a tab is clicked does not grow with the runs -- the runs' rows are read in one query, not one per run,
and the chart builds a plot item only for the curves it draws (at most MAX_CURVES), however many runs are selected.

(The time it takes is measured in benchmarks/bench_many_runs.py, not here.)"""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt  # noqa: E402

from app.ui.plot import MAX_CURVES  # noqa: E402
from tests.conftest import click_tab, dispose_window  # noqa: E402
from tests.many_runs_util import many_runs_workspace  # noqa: E402


class CountingConnection:
    """The workspace's connection, counting the queries made on the window's (main) thread; the jobs' cursors are
    their own connections and are not counted."""

    def __init__(self, con):
        self._con = con
        self.on_gui = 0

    def __getattr__(self, name):
        if name in ("execute", "executemany", "sql", "query") and threading.current_thread() is threading.main_thread():
            self.on_gui += 1
        return getattr(self._con, name)


def settled(qtbot, window) -> None:
    for _ in range(2):  # the chart's auto-range after a draw changes the range once more
        qtbot.waitUntil(lambda: not window.plot.loading, timeout=60000)
        qtbot.waitUntil(lambda: not window.results.busy, timeout=60000)
        qtbot.wait(200)


def gui_queries(qtbot, tmp_path, n: int) -> dict[str, int]:
    """The queries on the window's thread for Ctrl+A in the run list and a click on each tab, with ``n`` runs."""
    from app.ui.main_window import MainWindow

    path = many_runs_workspace(tmp_path / f"ws{n}.duckdb", n)
    settings = QSettings(str(tmp_path / f"settings{n}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(path, settings)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    counts: dict[str, int] = {}
    try:
        settled(qtbot, window)
        counter = window.ws.con = CountingConnection(window.ws.con)
        window.browser.tree.setFocus()
        qtbot.keyClick(window.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        settled(qtbot, window)
        assert window.browser.selected_runs() == list(range(1, n + 1))
        assert len(window.plot.curves) == n, window.plot.readout.toolTip()
        built = [it for it in window.plot.items if it is not None]
        assert len(built) == min(n, MAX_CURVES)  # a plot item per drawn curve only, not one per selected run
        counts["select all"] = counter.on_gui
        for title in ("Histograms", "Sizing", "Storm replay", "Overlay"):
            counter.on_gui = 0
            click_tab(qtbot, window, title)
            qtbot.wait(200)
            counts[title] = counter.on_gui
        window.ws.con = counter._con
    finally:
        dispose_window(qtbot, window)
    return counts


def test_many_runs_selected_queries_on_the_window_thread_do_not_grow(qtbot, tmp_path):
    """Ctrl+A with 3 runs and with 40 runs, then a click on each tab: the same number of queries on the window's
    thread (before: several per selected run, each a round trip to the runs table; 5,013 runs stalled the window
    for a minute at Ctrl+A and minutes at the Histograms tab)."""
    few = gui_queries(qtbot, tmp_path, 3)
    many = gui_queries(qtbot, tmp_path, 40)
    assert many["select all"] == few["select all"], (few, many)
    # a tab's refresh may land while the next tab is clicked (a deferred redraw): the clicks' sum is what must not
    # grow (seen on the integrated code: Storm replay 10 and Overlay 0 with 40 runs, 6 and 4 with 3)
    assert sum(many.values()) == sum(few.values()), (few, many)


def overlay_reads(qtbot, tmp_path, monkeypatch, n: int) -> tuple[int, dict[int, dict]]:
    """The per-run marker and phase reads of the overlay's loading job after Ctrl+A in the run list of ``n`` runs
    (run 2 with a marker and a phase), and the marks the chart got."""
    import app.store.phases as ph
    from app.ui.main_window import MainWindow

    path = many_runs_workspace(tmp_path / f"marks{n}.duckdb", n)
    from app.workspace import Workspace

    ws = Workspace(path)
    try:
        ph.add_marker(ws, 2, "login", 12.0)
        ph.add_phase(ws, 2, "boot", 0.0, 30.0)
    finally:
        ws.close()
    reads = [0]
    for name in ("list_markers", "list_phases"):
        real = getattr(ph, name)

        def counting(*a, _real=real, **k):
            reads[0] += 1
            return _real(*a, **k)

        monkeypatch.setattr(ph, name, counting)
    settings = QSettings(str(tmp_path / f"marks{n}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(path, settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        settled(qtbot, window)
        window.browser.tree.setFocus()
        qtbot.keyClick(window.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        settled(qtbot, window)
        assert window.browser.selected_runs() == list(range(1, n + 1))
        marks = dict(window.plot._marks)
    finally:
        dispose_window(qtbot, window)
        monkeypatch.undo()
    return reads[0], marks


def test_overlay_reads_markers_and_phases_once_for_all_selected_runs(qtbot, tmp_path, monkeypatch):
    """Ctrl+A over 40 runs: the overlay's job reads the runs' markers and phases in one query each, not two
    queries per run (before: 80 reads for 40 runs, 10,026 for 5,013), and each run gets its own."""
    reads, marks = overlay_reads(qtbot, tmp_path, monkeypatch, 40)
    assert reads == 0
    assert sorted(marks) == list(range(1, 41))
    assert marks[2]["markers"] == {"login": 12.0}
    assert [(p.name, p.t_start_s, p.t_end_s) for p in marks[2]["phases"]] == [("boot", 0.0, 30.0)]
    assert all(marks[r] == {"markers": {}, "phases": []} for r in marks if r != 2)


def test_storm_replay_drop_downs_read_no_whole_run_rows(qtbot, tmp_path, monkeypatch):
    """Ctrl+A over 40 runs, then a click on the Storm replay tab: its drop-downs are filled from the runs' ids, kinds
    and names (one light query), never from every run's whole row made into a Run (before: the whole runs table
    read on every selection, 17 s at 100,000 runs on the window's thread)."""
    from app.ui.main_window import MainWindow
    from app.workspace import Workspace

    path = many_runs_workspace(tmp_path / "replay.duckdb", 40)
    window = MainWindow(path, QSettings(str(tmp_path / "replay.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    whole = [0]
    real = Workspace.runs

    def counting(self):
        whole[0] += 1
        return real(self)

    try:
        settled(qtbot, window)
        monkeypatch.setattr(Workspace, "runs", counting)
        window.browser.tree.setFocus()
        qtbot.keyClick(window.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        settled(qtbot, window)
        click_tab(qtbot, window, "Storm replay")
        qtbot.wait(200)
        settled(qtbot, window)
        replay = window.replay
        assert replay.storm.count() == 40
        assert replay.storm.currentData() == 1
        assert replay.replay_box.count() == 39
        assert replay.replay_box.currentData() == 2
        assert whole[0] == 0
    finally:
        monkeypatch.undo()
        dispose_window(qtbot, window)


def test_export_report_of_more_runs_than_a_report_covers_says_so_and_writes_the_busiest(qtbot, tmp_path,
                                                                                         monkeypatch):
    """Ctrl+A over 40 runs, Report ▸ Export report…, Save: the dialog says the report covers the busiest
    MAX_RUNS (here 5) of the 40 selected runs, and the PDF it writes covers those and lists the others under Not
    included. Before: "The report covers the 40 selected runs", and every one was toured (100,000: never ended)."""
    import reports.content
    from app.ui.main_window import MainWindow
    from tests.reports.test_report import flat, pdf_text
    from tests.ui.test_ui import _export_from_menu

    monkeypatch.setattr(reports.content, "MAX_RUNS", 5)
    path = many_runs_workspace(tmp_path / "export.duckdb", 40)
    window = MainWindow(path, QSettings(str(tmp_path / "export.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    out = tmp_path / "r.pdf"
    try:
        settled(qtbot, window)
        window.browser.tree.setFocus()
        qtbot.keyClick(window.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        settled(qtbot, window)
        dlg = _export_from_menu(qtbot, window, out, monkeypatch)
        assert dlg.progress.value() == 100 or "Wrote" in dlg.status.text()
    finally:
        dispose_window(qtbot, window)
    text = flat(pdf_text(out))
    assert "This report covers the 5 busiest of the 40 runs it was made for" in text
    assert "the other 35 are not analysed here: iostat:" in text


def test_the_report_dialog_says_what_a_report_of_many_runs_covers(qtbot, tmp_path):
    """Report ▸ Export report… with 40 runs selected, a report covering at most 30: the dialog says so before it is
    written, in the numbers the PDF will print."""
    from app.ui.main_window import MainWindow
    from reports.content import MAX_RUNS

    path = many_runs_workspace(tmp_path / "dialog.duckdb", MAX_RUNS + 10)
    window = MainWindow(path, QSettings(str(tmp_path / "dialog.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        settled(qtbot, window)
        window.export_report_action.trigger()
        assert window.report_dialog.status.text() == (
            f"No run selected: the report covers the {MAX_RUNS} busiest of the {MAX_RUNS + 10} runs of the workspace "
            "(by peak IOPS); the others are listed under Not included.")
        window.report_dialog.close()
        window.browser.tree.setFocus()
        qtbot.keyClick(window.browser.tree, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        settled(qtbot, window)
        window.export_report_action.trigger()
        assert window.report_dialog.status.text() == (
            f"The report covers the {MAX_RUNS} busiest of the {MAX_RUNS + 10} selected runs (by peak IOPS); the "
            "others are listed under Not included.")
        window.report_dialog.close()
    finally:
        dispose_window(qtbot, window)


def test_opening_the_window_reads_each_run_once_and_fills_the_run_list_once(qtbot, tmp_path, monkeypatch):
    """Opening the window on a workspace of many runs: the run list is filled once, and each run's row is read
    (made a run) once -- for the list; the runs waiting for an interval are read by themselves, not by making every
    run (before: every run twice; 5,013 runs blocked the window's opening 11.7 s, 1.3 s of it making each run a
    second time for the list of runs waiting for an interval)."""
    from app.run import Run
    from app.ui.main_window import MainWindow

    n = 60
    path = many_runs_workspace(tmp_path / "ws.duckdb", n)
    made = []
    from_row = Run.from_row.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(Run, "from_row", classmethod(lambda cls, row: made.append(row["run_id"])
                                                     or from_row(cls, row)))
    window = MainWindow(path, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    try:
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        settled(qtbot, window)
        assert len(window.browser._run_items()) == n
        assert len(made) == n, f"{len(made)} runs made for {n} runs"
        assert sorted(made) == list(range(1, n + 1))
        assert window.browser.fills == 1
    finally:
        dispose_window(qtbot, window)


def test_a_workspace_of_many_questions_opens_with_the_first_rows_and_makes_the_rest_in_chunks(qtbot, tmp_path,
                                                                                             monkeypatch):
    """The Report questions panel of a workspace of many questions: the window opens with the first rows made (not
    one item per cell of every question at once: 10,000 questions blocked the window's opening 9.8 s), the others
    follow in chunks between which the window paints and answers, with their answers; the last question is then
    renamed as a user does (Ctrl+End, F2, type, Enter)."""
    from PySide6.QtWidgets import QApplication, QLineEdit

    from app.analysis.questions import list_questions, run_names
    from app.ui import questions_dock
    from app.ui.main_window import MainWindow
    from app.ui.questions_dock import PENDING
    from tests.many_runs_util import many_questions_workspace

    ROWS_AT_ONCE = 20  # noqa: N806 (the panel's chunk, small: a few chunks of rows and of answers, answered quickly)
    monkeypatch.setattr(questions_dock, "ROWS_AT_ONCE", ROWS_AT_ONCE, raising=False)
    n = 2 * ROWS_AT_ONCE + 15
    path = many_questions_workspace(tmp_path / "ws.duckdb", n)
    window = MainWindow(path, QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    try:
        t = window.questions.table
        assert t.rowCount() == n
        made = [r for r in range(n) if t.item(r, 1) is not None]  # before the window's first turn of events
        assert made == list(range(ROWS_AT_ONCE)), f"{len(made)} of {n} rows made at once"
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: all(t.item(r, 2) is not None for r in range(n)), timeout=20000)
        titles = {t.item(r, 1).text() for r in range(n)}
        assert titles == {list_questions(window.ws)[0].heading(run_names(window.ws))}, titles
        assert [t.item(r, 0).text() for r in range(n)] == [str(r + 1) for r in range(n)]
        qtbot.waitUntil(lambda: all(t.item(r, 2).text() != PENDING for r in range(n)), timeout=120000)
        assert {t.item(r, 2).text() for r in range(n)} == {t.item(0, 2).text()}  # the same question, answered alike
        t.setFocus()
        qtbot.keyClick(t, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        assert window.questions.current_row() == n - 1
        qtbot.keyClick(t, Qt.Key.Key_F2)
        editor = QApplication.focusWidget()
        assert isinstance(editor, QLineEdit), editor
        editor.selectAll()
        qtbot.keyClicks(editor, "The last storm")
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: list_questions(window.ws)[-1].title == "The last storm", timeout=5000)
        qtbot.waitUntil(lambda: t.item(n - 1, 1) is not None and t.item(n - 1, 1).text() == "The last storm",
                        timeout=20000)
    finally:
        dispose_window(qtbot, window)
