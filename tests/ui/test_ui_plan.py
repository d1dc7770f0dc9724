"""File ▸ Capture plan…: the plan made in the window from the workspace's questions, shown as the text to paste,
saved as a PDF and kept; then captures dropped on the window are compared with it in the import's list -- through
the user's path, on the real captures of tests/corpus/plan/ (made here by running the planned commands)."""

import os
import subprocess

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QDateTime, Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from app.analysis.capture_plan import stored  # noqa: E402
from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN, drop_paths  # noqa: E402

PLAN = CORPUS / "plan"


def _menu_action(window, menu: str, text: str):
    m = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == menu)
    return next(a for a in m.actions() if a.text().replace("&", "") == text)


def test_capture_plan_from_the_file_menu_then_the_import_says_as_planned_or_what_differs(qtbot, window, tmp_path,
                                                                                         monkeypatch):
    from app.ui.plan_dialog import EXPLAIN

    _menu_action(window, "File", "Capture plan…").trigger()
    dlg = window.plan_dialog
    assert dlg.isVisible()
    assert dlg.problem.text().startswith("A capture plan needs at least one system")
    assert not dlg.keep_button.isEnabled()
    qtbot.keyClicks(dlg.linux, "vm")
    dlg.storm.setValue(1)
    dlg.lead.setValue(0.5)
    dlg.tail.setValue(0.5)
    dlg.known.setChecked(True)
    dlg.start.setDateTime(QDateTime.fromString("2026-11-29 09:26", "yyyy-MM-dd HH:mm"))
    text = dlg.preview.toPlainText()
    assert dlg.problem.text() == ""
    assert "      S_TIME_FORMAT=ISO LC_ALL=C iostat -dxt -y 5 24 > vm_iostat.txt &\n" in text
    assert "Start every capture at 2026-11-29 09:25:30 (the storm is expected at 09:26:00)" in text
    for what, pattern in CUSTOMER_FORBIDDEN.items():
        assert not pattern.search(EXPLAIN), what
    qtbot.mouseClick(dlg.copy_button, Qt.MouseButton.LeftButton)
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == text
    pdf = tmp_path / "plan.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(pdf), "PDF (*.pdf)"))
    qtbot.mouseClick(dlg.pdf_button, Qt.MouseButton.LeftButton)
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "S_TIME_FORMAT=ISO LC_ALL=C iostat -dxt -y 5 24 > vm_iostat.txt &" in out
    qtbot.mouseClick(dlg.keep_button, Qt.MouseButton.LeftButton)
    plan = stored(window.ws)
    assert plan is not None
    assert (plan.count, plan.interval_s) == (24, 5)
    dlg.close()
    drop_paths(window, [PLAN / "vm_iostat.txt", PLAN / "vm_iostat-dx_no-t_2s.txt"])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    lines = [window.import_panel.list.item(i).text() for i in range(window.import_panel.list.count())]
    assert lines[1] == "   plan: run 1 as planned"
    assert lines[3] == "   plan: run 2 — no time stamps (iostat without -t); interval unknown (planned 5 s)"
    # its interval given under the list: compared again, now with everything that differs
    waiting = window.import_panel.waiting
    field = waiting.fields[2]
    field.lineEdit().selectAll()
    qtbot.keyClicks(field.lineEdit(), "2")
    qtbot.mouseClick(waiting.buttons[2], Qt.MouseButton.LeftButton)
    last = window.import_panel.list.item(window.import_panel.list.count() - 1).text()
    assert last == ("   plan: run 2 — no time stamps (iostat without -t); interval 2 s instead of 5 s; too short: "
                    "0.6 min of the planned 2 min")


def test_where_the_time_goes_from_the_report_menu_is_added_and_answered(qtbot, window):
    """Report ▸ Where the time goes…: the guest's capture and its host's esxtop (the constructed pair of
    tests/fixtures/PROVENANCE.md), added as a question; the Report questions panel answers it."""
    from app.analysis.questions import LatencyPathQuestion, list_questions
    from app.ui.latency_path_dialog import EXPLAIN
    from app.ui.questions_dock import COL_FIGURE, COL_VERDICT
    from tests.analysis.test_latency_path import GUEST, HOST
    from tests.ui.test_ui_review import imported

    guest, host = imported(window, GUEST, HOST, first_report="interval")
    _menu_action(window, "Report", "Where the time goes…").trigger()
    dlg = window.latency_path_dialog
    assert dlg.isVisible()
    for what, pattern in CUSTOMER_FORBIDDEN.items():
        assert not pattern.search(EXPLAIN), what
    assert dlg.guest.count() == 1
    assert dlg.host.count() == 1
    assert dlg.guest.currentData() == guest
    assert dlg.host.currentData() == host
    qtbot.mouseClick(dlg.add_button, Qt.MouseButton.LeftButton)
    assert [sq.question for sq in list_questions(window.ws)] == [LatencyPathQuestion(guest, host)]
    assert window.questions_dock.isVisible()
    qtbot.waitUntil(lambda: window.questions.table.item(0, COL_VERDICT).text() not in ("", "…"), timeout=30000)
    assert window.questions.table.item(0, COL_VERDICT).text().lower().startswith("information")
    figure = window.questions.table.item(0, COL_FIGURE).text()
    assert "in the guest's queue (estimated): 0.87 ms (13.48 %)" in figure
    assert "in the array (DAVG): 5.56 ms (86.22 %)" in figure
