"""The Storm replay and Load limit tabs, through the user's path: the run list's right-click ▸ Replay as fio job…, a
phase band's right-click on the Overlay, the tabs' fields and buttons, Add to report and the Report questions
panel. The captures are the real ones of tests/corpus/replay and tests/corpus/knee (MANIFEST.md)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from app.analysis.questions import list_questions  # noqa: E402
from app.importer import import_file  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import CORPUS, SAMPLES, click_tab, run_menu  # noqa: E402
from tests.ui.test_ui_overlay import answer_name, choose_in_menu, click, shown  # noqa: E402

REPLAY = CORPUS / "replay"
STEPS = sorted((CORPUS / "knee").glob("*.json"))


def storm(window) -> int:
    rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"),
                      ImportOptions(first_report="interval")).run_ids[0]
    window.browser.reload()
    return rid


def planned(qtbot, view):
    qtbot.waitUntil(lambda: view.plan is not None or view.headline.text().startswith("No replay"), timeout=30000)
    return view.plan


def body(job: str) -> str:
    return job.partition("[global]")[2]


def test_replay_as_fio_job_from_the_run_menu_writes_the_job_fio_ran(qtbot, window, tmp_path, monkeypatch):
    rid = storm(window)
    menu = run_menu(qtbot, window, rid, click="Replay as fio job…")
    assert "Replay as fio job…" in [m[0] for m in menu]
    view = window.replay
    assert window.tabs.currentWidget() is view
    assert view.storm.currentData() == rid
    assert view.range_box.currentData() == "whole"
    plan = planned(qtbot, view)
    assert plan.range_label == "the whole run"
    # the replay made for the test data: seconds 4-50, half the IOPS, steady within 5 %, on the loop device
    view.range_box.setCurrentIndex(view.range_box.findData("seconds"))
    assert (view.t_from.value(), view.t_to.value()) == (0, 60)  # the seconds start from the range shown
    view.t_from.setValue(4)
    view.t_to.setValue(50)
    view.tolerance.setValue(5)
    view.scale.setValue(0.5)
    view.filename.setText("/dev/loop0")
    view.target_size.setText("256m")
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.scale == 0.5 and view.plan.tolerance_pct == 5
                    and view.plan.t_start_s == 4, timeout=30000)
    assert view.headline.text().startswith("20 fio jobs replay storm_fast_iostat-xt, seconds 4–50 of the run: 46 s")
    assert view.phases.rowCount() == 21
    assert view.phases.item(10, 4).text() == "360, 240"  # the plateau: 720 reads and 480 writes per s, halved
    assert "ASSUMED 100 % random" in view.assumptions.text()
    out = tmp_path / "replay.fio"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "fio job files (*.fio)"))
    qtbot.mouseClick(view.write_button, Qt.MouseButton.LeftButton)
    assert out.exists()
    assert body(out.read_text()) == body((REPLAY / "storm_fast_replay_startdelay-linear_a.fio").read_text())
    assert f"Wrote the fio job file {out}" in window.statusBar().currentMessage()
    # the other timing: the stonewall replay's job
    view.chain.setCurrentIndex(view.chain.findData("stonewall"))
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.chain == "stonewall", timeout=30000)
    qtbot.mouseClick(view.write_button, Qt.MouseButton.LeftButton)
    assert body(out.read_text()) == body((REPLAY / "storm_fast_replay_stonewall-linear_a.fio").read_text())


def test_the_replay_check_in_the_window_and_its_report_question(qtbot, window):
    rid = storm(window)
    rep = import_file(window.ws, str(REPLAY / "storm_fast_replay_startdelay-linear_b_iostat-dxt.txt"),
                      ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.select_runs([rid, rep])
    view = click_tab(qtbot, window, "Storm replay")
    planned(qtbot, view)
    assert view.replay_box.currentData() == rep  # the second run selected: the replay's capture
    view.range_box.setCurrentIndex(view.range_box.findData("seconds"))
    view.t_from.setValue(4)
    view.t_to.setValue(50)
    view.scale.setValue(0.5)
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.scale == 0.5 and view.plan.t_start_s == 4,
                    timeout=30000)
    qtbot.mouseClick(view.replay_device, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(view.replay_device, "loop0")
    qtbot.mouseClick(view.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.check_result is not None, timeout=30000)
    assert view.verdict.text().startswith("Faithful: the replay storm_fast_replay_startdelay-linear_b_iostat-dxt "
                                          "against the storm, seconds 4–50 of the run, at scale 0.5")
    assert "\n• Measured from iostat captured during the replay (loop0)." in view.verdict.text()
    assert view.fidelity.item(0, 0).text() == "IOPS over time"
    assert view.fidelity.item(0, 4).text().startswith("94.7 % of the I/O at the right second")
    assert view.fidelity.item(0, 1).text() == "faithful"
    assert view.fidelity.item(3, 1).text() == "slower"
    # Report ▸ Add to report (Ctrl+Shift+A) on this tab: the question, answered as in the report
    window.add_to_report_action.trigger()
    (sq,) = list_questions(window.ws)
    assert sq.kind == "replay"
    q = sq.question
    assert (q.run_id, q.replay_run, q.t_start_s, q.t_end_s, q.scale, q.replay_device) == (rid, rep, 4, 50, 0.5,
                                                                                           "loop0")
    panel = window.questions
    qtbot.waitUntil(lambda: sq.question_id in panel.answers, timeout=30000)
    assert panel.answers[sq.question_id].verdict == "met"
    # choosing it in the panel shows this tab, set as asked
    click_tab(qtbot, window, "Overlay")
    t = panel.table
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=t.visualItemRect(t.item(0, 0)).center())
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is view and view.check_result is not None, timeout=30000)
    assert view.replay_device.text() == "loop0"


def test_replay_a_phase_from_its_band_on_the_overlay(qtbot, window, monkeypatch):
    from app.store.phases import add_phase

    rid = storm(window)
    add_phase(window.ws, rid, "plateau", 16, 31)
    plot = shown(qtbot, window, [rid])
    answer_name(monkeypatch, "unused")
    choose_in_menu(monkeypatch, "Replay as fio job…")
    click(plot, 22.0, 300.0, Qt.MouseButton.RightButton)
    view = window.replay
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is view, timeout=10000)
    assert view.range_box.currentData() == "phase:plateau"
    qtbot.waitUntil(lambda: view.plan is not None and view.plan.range_label.startswith("the phase"), timeout=30000)
    assert [(p.t_start_s, p.t_end_s) for p in view.plan.phases][0][0] == 0
    assert view.plan.duration_s == 15
    assert "phase 'plateau' (seconds 16–31 of the run)" in view.headline.text()


def test_the_load_limit_tab_answers_how_many_desktops(qtbot, window):
    ids = [import_file(window.ws, str(f), ImportOptions()).run_ids[0] for f in STEPS]
    window.browser.reload()
    window.browser.select_runs(ids)
    view = click_tab(qtbot, window, "Load limit")
    view.threshold.setValue(5)
    view.goal_pct.setValue(95)
    view.per_user.setValue(8)
    qtbot.waitUntil(lambda: view.answer is not None and view.answer.evidence.results[0].threshold_ms == 5
                    and view.answer.evidence.results[0].goal_pct == 95 and
                    view.answer.evidence.results[0].iops_per_user == 8, timeout=60000)
    assert view.headline.text().startswith("Goal holds up to 7,641 IOPS (955 desktops); breaks by 9,413 IOPS "
                                           "(1,176 desktops)")
    assert "95th percentile" in view.reason.text()
    rows = {view.table.item(i, 1).text(): view.table.item(i, 4).text() for i in range(view.table.rowCount())}
    assert rows["loop0_fio-3.33_randread-4k_qd003"] == "yes (decides)"
    assert rows["loop0_fio-3.33_randread-4k_qd016"] == "no (decides)"
    assert view.table.rowCount() == 14
    # the mean response time instead: the goal's % is not asked
    view.statistic.setCurrentIndex(view.statistic.findData("mean"))
    view.threshold.setValue(2)
    assert not view.goal_pct.isEnabled()
    qtbot.waitUntil(lambda: view.answer is not None and view.answer.evidence.results[0].statistic == "mean"
                    and view.answer.evidence.results[0].threshold_ms == 2, timeout=60000)
    assert view.headline.text().startswith("Goal holds up to 12,176 IOPS (1,522 desktops)")
    qtbot.mouseClick(view.add_button, Qt.MouseButton.LeftButton)
    (sq,) = list_questions(window.ws)
    assert sq.kind == "knee"
    assert (sq.question.statistic, sq.question.threshold_ms, sq.question.iops_per_user) == ("mean", 2, 8)
    assert sorted(sq.question.run_ids) == sorted(ids)
    # another goal on screen, then the question chosen in the panel: the tab as the question was asked
    view.statistic.setCurrentIndex(view.statistic.findData("share"))
    view.threshold.setValue(50)
    click_tab(qtbot, window, "Overlay")
    t = window.questions.table
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=t.visualItemRect(t.item(0, 0)).center())
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is view and view.answer is not None
                    and view.answer.evidence.results[0].statistic == "mean", timeout=60000)
    assert (view.statistic.currentData(), view.threshold.value(), view.per_user.value()) == ("mean", 2, 8)
    assert view.headline.text().startswith("Goal holds up to 12,176 IOPS (1,522 desktops)")
    assert sorted(window.browser.selected_runs()) == sorted(ids)


def test_a_storm_tab_without_a_storm_says_what_to_select(qtbot, window):
    view = click_tab(qtbot, window, "Storm replay")
    assert view.headline.text().startswith("Select a run of I/O over time")
    assert not view.write_button.isEnabled()
    knee = click_tab(qtbot, window, "Load limit")
    assert knee.headline.text().startswith("Select the runs of a load test")
    assert not knee.add_button.isEnabled()
