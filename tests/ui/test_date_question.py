"""Dates that read both ways are never a silent guess in the window (issue 28): a drop holding a capture of each
layout whose dates the file cannot decide -- iostat text with 2-digit years (en_GB), with decimal commas and 4-digit
years (fr_FR: Georgian prints that layout month first), sar's banner (en_GB, across midnight), iostat JSON, a
perfmon log -- asks ONE question for all of them, listing each file with its first and last time read either way; the
answer moves every time; the run list says how each run's dates were read, and its menu changes it."""

import json
import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.conftest import CORPUS, drop_paths, run_menu  # noqa: E402

LOCALES = CORPUS / "locales"
TEXT = ["en_GB_iostat-x-t_day.txt", "fr_FR_iostat-x-t_day.txt", "en_GB_sar-d-p_midnight.txt"]
PERFMON = ('"(PDH-CSV 4.0) (GMT Standard Time)(0)","\\\\PC1\\PhysicalDisk(0 C:)\\Disk Transfers/sec"\n'
           '"05/03/2026 10:15:00.000","12"\n"05/03/2026 10:15:15.000","14"\n')


@pytest.fixture
def drop(tmp_path):
    """A folder holding one capture of each layout whose dates read both ways (all made on 5 March 2026)."""
    d = tmp_path / "customer"
    d.mkdir()
    for name in TEXT:
        shutil.copy(LOCALES / name, d / name)
    # iostat -o JSON in en_GB, its reports before midnight only (the real capture crosses it, which decides)
    doc = json.loads((LOCALES / "en_GB_iostat-x-t-JSON_midnight.json").read_text(encoding="utf-8"))
    stats = doc["sysstat"]["hosts"][0]["statistics"]
    doc["sysstat"]["hosts"][0]["statistics"] = stats[:2]
    assert [s["timestamp"] for s in stats[:2]] == ["05/03/26 23:59:57", "05/03/26 23:59:58"]
    (d / "en_GB_iostat-json_before-midnight.json").write_text(json.dumps(doc), encoding="utf-8")
    (d / "uk_perfmon.csv").write_text(PERFMON, encoding="utf-8")
    return d


def test_a_drop_asks_once_for_every_file_whose_dates_read_both_ways(qtbot, window, drop):
    drop_paths(window, [drop])
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    files = sorted(q.file for q in dlg.dates)
    assert files == sorted([*TEXT, "en_GB_iostat-json_before-midnight.json", "uk_perfmon.csv"])
    assert dlg.date_box is not None
    assert dlg.date_box.isVisibleTo(dlg)
    text = "\n".join(lab.text() for lab in dlg.date_box.findChildren(type(dlg.status)))
    for name in files:  # each file, with both readings and their first and last times
        assert name in text
    assert "en_GB_sar-d-p_midnight.txt — month/day/year: 3 May 2026 23:59:58 to 4 May 2026 00:00:03; " \
           "day/month/year: 5 March 2026 23:59:58 to 6 March 2026 00:00:03" in text
    choices = [b.text() for b in dlg.date_choice.buttons()]
    assert choices == ["The dates are month/day/year", "The dates are day/month/year"]
    assert dlg.date_choice.checkedButton().text() == "The dates are month/day/year"  # what is stored until then
    assert "en_GB" not in window.browser.tree.topLevelItem(0).text(0)
    dlg.date_choice.buttons()[1].click()  # as the consultant does
    from PySide6.QtWidgets import QDialogButtonBox

    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10000)
    got = {name: (start, json.loads(meta)) for name, start, meta in window.ws.con.execute(
        "SELECT name, started_at, meta FROM runs").fetchall()}
    assert {n: s.date().isoformat() for n, (s, _m) in got.items()} == {
        "en_GB_iostat-x-t_day": "2026-03-05", "fr_FR_iostat-x-t_day": "2026-03-05",
        "en_GB_sar-d-p_midnight": "2026-03-05", "en_GB_iostat-json_before-midnight": "2026-03-05",
        "uk_perfmon": "2026-03-05"}
    for _s, meta in got.values():
        assert meta["date_order"] == "day/month/year (set by the user: the file reads both ways)"
        assert "date_reading" not in meta
    # the sar run's rows moved with it, midnight included
    days = window.ws.con.execute("SELECT DISTINCT CAST(ts AS DATE)::VARCHAR FROM iostat_samples s JOIN runs r "
                                 "USING (run_id) WHERE r.name = 'en_GB_sar-d-p_midnight' ORDER BY 1").fetchall()
    assert days == [("2026-03-05",), ("2026-03-06",)]


def test_the_run_list_says_how_dates_were_read_and_its_menu_changes_them(qtbot, window):
    from PySide6.QtCore import Qt

    for name in ("en_GB_iostat-x-t_day.txt", "de_DE_iostat-x-t_day.txt"):  # two drops: no neighbour decides
        window.start_import([str(LOCALES / name)])
        qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    window.browser.reload()
    ids = {name: rid for rid, name in window.ws.con.execute("SELECT run_id, name FROM runs").fetchall()}
    tips = {int(it.data(0, Qt.ItemDataRole.UserRole + 1)): it.toolTip(0) for it in window.browser._run_items()}
    assert "Dates: month/day/year, assumed: the file reads both ways (right-click to say which)" in \
        tips[ids["en_GB_iostat-x-t_day"]]
    assert "Dates read day/month/year (the file's words: dates like '05.03.2026 10:15:00', decimal commas are " \
        "printed by the locales " in tips[ids["de_DE_iostat-x-t_day"]]
    menu = [t for t, *_rest in run_menu(qtbot, window, ids["de_DE_iostat-x-t_day"])]
    assert not any(t.startswith("Dates are") for t in menu)  # decided by the file: nothing to choose
    menu = [t for t, *_rest in run_menu(qtbot, window, ids["en_GB_iostat-x-t_day"], click="Dates are day/month/year")]
    assert "Dates are month/day/year" in menu
    start = window.ws.con.execute("SELECT started_at FROM runs WHERE run_id = ?",
                                  [ids["en_GB_iostat-x-t_day"]]).fetchall()[0][0]
    assert start.date().isoformat() == "2026-03-05"


def test_file_import_asks_too(qtbot, window, monkeypatch):
    """File ▸ Import… (Ctrl+I) of a file whose dates read both ways asks the same question as a drop (it asked
    nothing: the run kept the month-first reading with a warning only)."""
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    name = "en_GB_iostat-x-t_day.txt"
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: ([str(LOCALES / name)], "")))
    window.import_action.trigger()
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    assert [q.file for q in dlg.dates] == [name]
    dlg.date_choice.buttons()[1].click()
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10000)
    [(start,)] = window.ws.con.execute("SELECT started_at FROM runs").fetchall()
    assert start.isoformat() == "2026-03-05T10:15:00"


def test_a_hundred_files_whose_dates_read_both_ways_leave_the_choice_and_its_button_on_the_screen(qtbot, window):
    """Seen on a 220-file drop at 1280 x 800: the list of 100 files pushed the choice and the dialog's buttons below
    the screen's edge (the dialog was 2,034 px tall). The list scrolls in a box of its own; files that print no time
    are named on one line."""
    from datetime import datetime

    from PySide6.QtWidgets import QDialogButtonBox

    from app.importer import RunQuestion
    from app.ui.folder_report import FolderAnswersDialog

    window.resize(1280, 800)
    t0, t1 = datetime(2026, 3, 5, 10, 15), datetime(2026, 3, 5, 10, 16)
    m0, m1 = datetime(2026, 5, 3, 10, 15), datetime(2026, 5, 3, 10, 16)
    qs = [RunQuestion(k, f"timed_{k:03d}.txt", f"/x/timed_{k:03d}.txt", "date_order",
                      readings=(("MDY", m0, m1), ("DMY", t0, t1))) for k in range(60)]
    qs += [RunQuestion(100 + k, f"untimed_{k:03d}.txt", f"/x/untimed_{k:03d}.txt", "date_order",
                       readings=(("MDY", None, None), ("DMY", None, None))) for k in range(40)]
    qs += [RunQuestion(200 + k, f"noint_{k:03d}.txt", f"/x/noint_{k:03d}.txt", "interval") for k in range(60)]
    dlg = FolderAnswersDialog(qs, window)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    screen = dlg.screen().availableGeometry()
    assert dlg.frameGeometry().height() <= screen.height()
    ok = dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)
    for widget in (ok, *dlg.date_choice.buttons()):
        assert widget.isVisible()
        bottom = widget.mapTo(dlg, widget.rect().bottomLeft()).y()
        assert bottom <= dlg.height(), widget.text()
    assert dlg.date_files.maximumHeight() <= int(screen.height() * 0.3)
    text = dlg.date_files.widget().text()
    assert "timed_059.txt — month/day/year: 3 May 2026 10:15:00 to 3 May 2026 10:16:00" in text
    assert "40 captures print no time of day, only a date in the header that reads both ways: untimed_000.txt" in text
    assert "no time printed" not in text
    dlg.reject()
