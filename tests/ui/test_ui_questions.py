"""The report's questions in the window, driven as the user drives them: "Add to report" on the Overlay (compare,
storm profile, cap check), Histograms (response time) and Sizing tabs and in the Report menu; the Report questions
panel with its answers, Move up / Move down (buttons, Ctrl+Up / Ctrl+Down), renaming (double-click, F2), Delete
(key, button) with Undo in the status bar; choosing a question selects its runs and shows its tab."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QPushButton  # noqa: E402

from app.analysis.questions import (  # noqa: E402
    CapQuestion,
    CompareQuestion,
    ResponseTimeQuestion,
    SizingQuestion,
    StormQuestion,
    answer_all,
    answer_stored,
    list_questions,
    run_names,
)
from reports.conclusions import verdict_words  # noqa: E402
from tests.conftest import CORPUS, SAMPLES, click_tab  # noqa: E402


def _import(w, *paths) -> list[int]:
    from app.importer import import_file
    from parsers.base import ImportOptions

    ids = [import_file(w.ws, str(p), ImportOptions()).run_ids[0] for p in paths]
    w.browser.reload()
    return ids


def _select(qtbot, w, ids: list[int]) -> None:
    w.browser.select_runs(ids)
    qtbot.waitUntil(lambda: not w.plot.loading, timeout=20000)


def _menu_action(w, menu: str, text: str):
    m = next(a.menu() for a in w.menuBar().actions() if a.text().replace("&", "") == menu)
    return next(a for a in m.actions() if a.text().replace("&", "") == text)


def _click(qtbot, button) -> None:
    """A click on a button's face (left of a drop-down arrow, if it has one)."""
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(8, button.height() // 2))


def _answered(qtbot, w) -> None:
    t = w.questions.table
    qtbot.waitUntil(lambda: all(t.item(r, 2).text() != "…" for r in range(t.rowCount())), timeout=20000)


@pytest.fixture
def runs(qtbot, window):
    w = window
    fast, slow = _import(w, SAMPLES / "storm_fast_iostat-xt.txt", SAMPLES / "storm_slow_iostat-xt.txt")
    return w, fast, slow


def test_overlay_adds_compare_storm_and_cap_questions_with_the_charts_settings(qtbot, runs):
    w, fast, slow = runs
    click_tab(qtbot, w, "Overlay")
    _select(qtbot, w, [fast, slow])
    p = w.plot
    # two runs: how they compare, by the figure of the chart's metric, aligned as the chart is
    p.metric_box.setCurrentIndex(p.metric_box.findText("Throughput (kB/s)"))
    p.align.setCurrentIndex(1)  # Align: first activity
    qtbot.waitUntil(lambda: not p.loading, timeout=20000)
    _click(qtbot, p.add_button)
    qs = list_questions(w.ws)
    assert [sq.question for sq in qs] == [CompareQuestion([fast, slow], metric="peak_kbs", align="activity",
                                                          phases="auto", device=None)]
    msg = "Added to the report: How do storm_fast_iostat-xt and storm_slow_iostat-xt compare (peak throughput)?"
    assert w.statusBar().currentMessage() == msg
    assert w.questions_dock.isVisible()
    assert w.questions.table.rowCount() == 1
    assert w.questions.table.item(0, 1).text() == qs[0].heading(run_names(w.ws))

    # one run on one device: its storm profile, from the Report menu (Ctrl+Shift+A)
    _select(qtbot, w, [fast])
    dev = p.device.itemText(1)
    p.device.setCurrentIndex(1)
    qtbot.waitUntil(lambda: not p.loading, timeout=20000)
    act = _menu_action(w, "Report", "Add to report")
    assert act.shortcut().toString() == "Ctrl+Shift+A"
    act.trigger()
    assert list_questions(w.ws)[-1].question == StormQuestion(fast, device=dev, phases="auto")
    assert w.statusBar().currentMessage() == "Added to the report: Storm profile of storm_fast_iostat-xt"

    # the cap typed in the Cap field, on write IOPS: a cap check per selected run, with the results table's
    # tolerance and window
    assert not p.cap_button.isEnabled()  # no cap typed yet
    p.metric_box.setCurrentIndex(p.metric_box.findText("IOPS (write)"))
    p.cap.setValue(200)
    _select(qtbot, w, [fast, slow])
    assert p.cap_button.isEnabled()
    p.device.setCurrentIndex(0)  # whole disks
    qtbot.waitUntil(lambda: not p.loading, timeout=20000)
    _click(qtbot, p.cap_button)
    added = [sq.question for sq in list_questions(w.ws)[-2:]]
    assert added == [CapQuestion(r, iops_cap=200.0, op="write", tolerance_pct=5.0, window_s=10.0)
                     for r in (fast, slow)]
    assert w.statusBar().currentMessage() == ("Added to the report: Did the 200 IOPS cap hold on storm_fast_iostat-xt?"
                                              " · Did the 200 IOPS cap hold on storm_slow_iostat-xt?")
    # the arrow beside Add to report: compare by another figure
    by_p95 = next(a for a in p.figure_menu.actions() if a.text() == "Compare by 95th percentile of interval IOPS")
    by_p95.trigger()
    assert list_questions(w.ws)[-1].question.metric == "iops_p95"
    # a metric without a cap figure: no cap check
    p.metric_box.setCurrentIndex(p.metric_box.findText("await (ms)"))
    assert not p.cap_button.isEnabled()
    assert "choose one of them in Metric" in p.cap_action.toolTip()
    _menu_action(w, "Report", "Add cap check to report").trigger()
    assert len(list_questions(w.ws)) == 5
    assert "IOPS or throughput" in w.statusBar().currentMessage()


def test_histograms_and_sizing_add_their_questions(qtbot, window):
    w = window
    vs, fio, it = _import(w, CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv",
                          SAMPLES / "fio_randrw_jsonplus.json", SAMPLES / "storm_fast_iostat-xt.txt")
    # Histograms: the threshold and goal; the filter box narrows the question to the VM disks / jobs it leaves
    h = click_tab(qtbot, w, "Histograms")
    _select(qtbot, w, [vs, fio])
    h.threshold.setCurrentIndex(h.threshold.findData(20.0))
    h.goal.setValue(95)
    _click(qtbot, h.add_button)
    assert list_questions(w.ws)[-1].question == ResponseTimeQuestion([vs, fio], None, 20.0, 95.0)
    qtbot.keyClicks(h.filter, "#1")
    _click(qtbot, h.add_button)
    assert list_questions(w.ws)[-1].question == ResponseTimeQuestion([fio], ["randrw #1"], 20.0, 95.0)
    assert w.statusBar().currentMessage().startswith("Added to the report: Is 95 % of I/O answered within 20 ms on")
    # the I/O the view shows: with Op = read the question is about reads, and says so
    h.op.setCurrentIndex(h.op.findText("read"))
    _click(qtbot, h.add_button)
    assert list_questions(w.ws)[-1].question == ResponseTimeQuestion([fio], ["randrw #1"], 20.0, 95.0, "read")
    assert w.statusBar().currentMessage().startswith("Added to the report: Is 95 % of reads answered within 20 ms")

    # Sizing: typed inputs
    s = click_tab(qtbot, w, "Sizing")
    s.users.setValue(250)
    s.ipu.setText("12.5")
    s.read_pct.setValue(30)
    s.storm.setValue(2)
    s.raid.setCurrentIndex(s.raid.findData("5"))
    s.disk.setCurrentIndex(s.disk.findData("sas15k"))
    s.gb_user.setValue(20)
    s.disk_gb.setValue(600)
    _click(qtbot, s.add_button)
    assert list_questions(w.ws)[-1].question == SizingQuestion(
        250, iops_per_user=12.5, read_pct=30.0, raid="5", disk_type="sas15k", gb_per_user=20.0, disk_gb=600.0,
        storm_multiplier=2.0)
    assert w.statusBar().currentMessage() == "Added to the report: How many disks for 250 users at 12.5 IOPS per user?"
    # a light..heavy users range: each end at its own IOPS per user, no multiplier
    s.ipu.setText("8..25")  # typed as the user guide says
    assert not s.storm.isEnabled()
    _click(qtbot, s.add_button)
    sq = list_questions(w.ws)[-1]
    assert sq.question == SizingQuestion(250, iops_per_user=8.0, iops_per_user_storm=25.0, read_pct=30.0, raid="5",
                                         disk_type="sas15k", gb_per_user=20.0, disk_gb=600.0)
    a = answer_stored(w.ws, sq)
    light, heavy = (f.value for f in a.figures)
    assert s.headline.text().startswith(f"{light} disks at 8 IOPS per user (light users), {heavy} at 25 "
                                        "(heavy users), ")
    s.ipu.setText("8..1")  # the heavy users' figure below the light users': no sizing, nothing to add
    assert not s.add_button.isEnabled()
    assert "must go from a positive figure for light users up to the figure for heavy users" in s.notes.text()
    s.ipu.setText("8")
    assert s.storm.isEnabled()
    # a user profile
    s.profile.setCurrentIndex(1)
    _menu_action(w, "Report", "Add to report").trigger()
    assert list_questions(w.ws)[-1].question == SizingQuestion(
        250, profile=s.profile.currentData(), raid="5", disk_type="sas15k", gb_per_user=20.0, disk_gb=600.0)
    # measured on the selected iostat run
    _select(qtbot, w, [it])
    qtbot.mouseClick(s.measured, Qt.MouseButton.LeftButton, pos=QPoint(8, s.measured.height() // 2))
    s.vms.setValue(40)
    _click(qtbot, s.add_button)
    assert list_questions(w.ws)[-1].question == SizingQuestion(
        250, measured_run=it, vms=40, raid="5", disk_type="sas15k", gb_per_user=20.0, disk_gb=600.0)
    # inputs that size nothing: no question
    s.disk_gb.setValue(0)
    assert not s.add_button.isEnabled()
    n = len(list_questions(w.ws))
    _menu_action(w, "Report", "Add to report").trigger()
    assert len(list_questions(w.ws)) == n
    # a tab without a question to ask says where to go
    click_tab(qtbot, w, "Grid & SQL")
    _menu_action(w, "Report", "Add to report").trigger()
    assert "Overlay, Histograms, Sizing, Storm replay and Load limit" in w.statusBar().currentMessage()


def _table_rows(w) -> list[list[str]]:
    t = w.questions.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def _choose(qtbot, w, row: int) -> None:
    t = w.questions.table
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=t.visualItemRect(t.item(row, 0)).center())


def test_the_panel_lists_answers_reorders_renames_deletes_and_shows_the_evidence(qtbot, runs, monkeypatch, tmp_path):
    from tests.ui.test_ui_words import data_words, findings, window_texts

    w, fast, slow = runs
    (vs,) = _import(w, CORPUS / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv")
    click_tab(qtbot, w, "Overlay")
    _select(qtbot, w, [fast, slow])
    _click(qtbot, w.plot.add_button)  # 1 compare
    w.plot.cap.setValue(200)
    _select(qtbot, w, [fast])
    _click(qtbot, w.plot.cap_button)  # 2 cap
    _click(qtbot, w.plot.add_button)  # 3 storm
    click_tab(qtbot, w, "Histograms")
    _select(qtbot, w, [vs])
    _click(qtbot, w.histos.add_button)  # 4 response time
    click_tab(qtbot, w, "Sizing")
    _click(qtbot, w.sizing.add_button)  # 5 sizing
    _answered(qtbot, w)
    qs = list_questions(w.ws)
    assert [sq.kind for sq in qs] == ["compare", "cap", "storm_profile", "response_time", "sizing"]
    # each row: number, title, verdict, the deciding figure -- the answers' own
    for row, (sq, cells) in enumerate(zip(qs, _table_rows(w))):
        a = answer_stored(w.ws, sq)
        assert cells == [str(row + 1), sq.heading(run_names(w.ws)), a.verdict, a.number]
    assert _table_rows(w)[1][2] == "not held"
    assert _table_rows(w)[3][2] == "met"
    assert w.questions_dock.windowTitle() == "Report questions (5)"
    found = findings(window_texts(w), data_words(w))
    assert not found, "\n".join(found)

    # choosing a question selects its runs and shows the tab with its evidence, set as the question was asked
    _choose(qtbot, w, 3)
    assert w.tabs.currentWidget() is w.histos
    assert w.browser.selected_runs() == [vs]
    _choose(qtbot, w, 1)
    assert w.tabs.currentWidget() is w.overlay_page
    assert w.browser.selected_runs() == [fast]
    assert w.plot.cap.value() == 200
    assert w.plot.metric_box.currentText() == "IOPS (total)"
    w.sizing.users.setValue(999)
    _choose(qtbot, w, 4)
    assert w.tabs.currentWidget() is w.sizing
    assert w.sizing.users.value() == 100

    # reorder: the buttons, then the keys
    t = w.questions.table
    ids = [sq.question_id for sq in qs]
    _choose(qtbot, w, 0)
    _click(qtbot, w.questions.buttons["Move down"])
    assert [sq.question_id for sq in list_questions(w.ws)] == [ids[1], ids[0], *ids[2:]]
    assert w.questions.current_question().question_id == ids[0]
    qtbot.keyClick(t, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert [sq.question_id for sq in list_questions(w.ws)] == [ids[1], ids[2], ids[0], *ids[3:]]
    qtbot.keyClick(t, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(t, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
    assert [sq.question_id for sq in list_questions(w.ws)] == ids
    assert not w.questions.buttons["Move up"].isEnabled()  # the first question
    assert _table_rows(w)[0][0] == "1"

    # rename: double-click the title, type, Enter; F2 and an empty title bring back the generated one
    _choose(qtbot, w, 1)
    at = t.visualItemRect(t.item(1, 1)).center()
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=at)  # a double-click: press, release, press again
    qtbot.mouseDClick(t.viewport(), Qt.MouseButton.LeftButton, pos=at)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit), editor
    assert t.isAncestorOf(editor), editor
    editor.selectAll()
    qtbot.keyClicks(editor, "Did the QoS limit hold?")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the editor commits on the next turn of the event loop
    qtbot.waitUntil(lambda: list_questions(w.ws)[1].title == "Did the QoS limit hold?", timeout=5000)
    assert _table_rows(w)[1][1] == "Did the QoS limit hold?"
    _answered(qtbot, w)
    assert _table_rows(w)[1][2] == "not held"
    t.setFocus()
    qtbot.keyClick(t, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit), editor
    assert t.isAncestorOf(editor), editor
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: list_questions(w.ws)[1].title is None, timeout=5000)
    assert _table_rows(w)[1][1] == "Did the 200 IOPS cap hold on storm_fast_iostat-xt?"

    # delete with the key; Undo in the status bar puts it back where it was, title and all
    _select(qtbot, w, [fast])
    w.questions_dock.raise_()
    _choose(qtbot, w, 2)
    qtbot.keyClick(t, Qt.Key.Key_Delete)
    assert [sq.question_id for sq in list_questions(w.ws)] == [ids[0], ids[1], ids[3], ids[4]]
    assert w.statusBar().currentMessage() == "Deleted from the report: Storm profile of storm_fast_iostat-xt"
    assert w.questions.undo_button.isVisible()
    _click(qtbot, w.questions.undo_button)
    back = list_questions(w.ws)
    assert [sq.kind for sq in back] == ["compare", "cap", "storm_profile", "response_time", "sizing"]
    assert back[2].question == qs[2].question
    assert not w.questions.undo_button.isVisible()
    # and with the button
    _choose(qtbot, w, 4)
    _click(qtbot, w.questions.buttons["Delete"])
    assert [sq.kind for sq in list_questions(w.ws)] == ["compare", "cap", "storm_profile", "response_time"]

    # File ▸ Export report…: the dialog says how many questions the report answers
    _menu_action(w, "File", "Export report…").trigger()
    dlg = w.report_dialog
    assert dlg.answers.text() == ("Answers: the report opens with the answers to 4 questions and the evidence of "
                                  "each; the sections ticked below follow them")
    # Save writes it; the status says how the answers came out
    out = tmp_path / "r.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "PDF (*.pdf)"))
    save = next(b for b in dlg.findChildren(QPushButton) if b.text().replace("&", "") == "Save")
    _click(qtbot, save)
    qtbot.waitUntil(lambda: dlg.status.text().startswith("Wrote r.pdf"), timeout=60000)
    words = [verdict_words(a) for _sq, a in answer_all(w.ws)]  # the report's words ("Not capped": no cap in force)
    assert dlg.status.text() == "Wrote r.pdf. Answers: " + "; ".join(f"{n}. {v}" for n, v in enumerate(words, 1)) + "."
    dlg.job.wait()
    dlg.close()

    # a run deleted: its questions say they cannot be answered any more
    w.browser.delete([slow], confirm=False)
    _answered(qtbot, w)
    rows = _table_rows(w)
    assert rows[0][2] == "information", rows[0]
    assert rows[0][3].startswith("cannot be answered: "), rows[0]
    assert rows[1][2] == "not held"


def test_the_panel_is_in_the_view_menu_and_starts_empty(qtbot, window):
    w = window
    toggle = _menu_action(w, "View", "Report questions")
    assert toggle.isCheckable()
    _menu_action(w, "Report", "Report questions").trigger()
    assert w.questions_dock.isVisible()
    assert w.questions.empty.isVisible()
    assert "Add to report" in w.questions.empty.text()
    toggle.trigger()
    assert not w.questions_dock.isVisible()
    _menu_action(w, "File", "Export report…").trigger()
    assert w.report_dialog.answers.text().startswith("Answers: none yet")
    w.report_dialog.close()


def test_a_question_the_data_cannot_answer_says_why_in_customer_words(qtbot, window):
    from tests.ui.test_ui_words import data_words, findings, window_texts

    w = window
    (capped,) = _import(w, SAMPLES / "capped_200iops_iostat-d.txt")  # no time stamps: no interval
    click_tab(qtbot, w, "Overlay")
    _select(qtbot, w, [capped])
    w.plot.cap.setValue(200)
    _click(qtbot, w.plot.cap_button)
    _click(qtbot, w.plot.add_button)
    _answered(qtbot, w)
    rows = _table_rows(w)
    assert [r[2] for r in rows] == ["information", "information"]
    assert all(r[3].startswith("cannot be answered: ") and "Set interval…" in r[3] for r in rows), rows
    found = findings(window_texts(w), data_words(w))
    assert not found, "\n".join(found)
