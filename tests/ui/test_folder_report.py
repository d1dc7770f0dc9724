"""An engagement folder to the PDF in one action (issue 18): `main.py report FOLDER -o OUT.pdf` and File ▸ Report
from folder…. The folder holds the repository's captures as a consultant receives them: two storms made with
`iostat -xt -y` (the files cannot prove -y), the same fast storm as iostat JSON without -y, and a capture made with
`iostat -d 2` (no time stamps: the interval is not in the file; its cumulative kB columns suggest about 2 s)."""

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.conftest import SAMPLES, write_report  # noqa: E402
from tests.test_cli import run  # noqa: E402

FILES = ["storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt", "storm_fast_iostat-json.json",
         "capped_200iops_iostat-d.txt"]


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "acme-engagement"
    d.mkdir()
    for f in FILES:
        shutil.copy(SAMPLES / f, d / f)
    (d / "notes.txt").write_text("call Bob on Monday\n")  # not a trace: skipped
    return d


def settings(ws_path):
    """Each run's (interval, its source, what its first report covers), by name."""
    from app.workspace import Workspace

    with Workspace(ws_path, read_only=True) as ws:
        rows = ws.con.execute("SELECT name, interval_s, interval_source, json_extract_string(meta, '$.first_report') "
                              "FROM runs").fetchall()
    return {name: tuple(rest) for name, *rest in rows}


def test_cli_names_every_missing_answer_at_once_and_writes_no_pdf(tmp_path, folder):
    ws, pdf = tmp_path / "ws.duckdb", tmp_path / "r.pdf"
    p = run("report", str(folder), "-w", str(ws), "-o", str(pdf))
    assert p.returncode == 2
    assert "capped_200iops_iostat-d.txt (its cumulative kB columns suggest about 2 s)" in p.stderr
    assert "--interval FILE=SECONDS" in p.stderr
    assert "storm_fast_iostat-xt.txt, storm_slow_iostat-xt.txt" in p.stderr  # first reports: said once, all named
    assert not pdf.exists()


def test_cli_one_command_from_folder_to_pdf_with_the_answers_given_once(tmp_path, folder):
    ws, pdf = tmp_path / "ws.duckdb", tmp_path / "r.pdf"
    p = run("report", str(folder), "-w", str(ws), "-o", str(pdf), "--interval", "2",
            "--first-report", "*-xt.txt=interval")
    assert p.returncode == 0, p.stderr
    assert pdf.read_bytes().startswith(b"%PDF")
    s = settings(ws)
    assert s["capped_200iops_iostat-d"][:2] == (2.0, "user")
    assert s["storm_fast_iostat-xt"][2] == "interval (set by the user)"
    assert s["storm_slow_iostat-xt"][2] == "interval (set by the user)"
    # the pattern left the JSON capture (made without -y) at iostat's default, and said so
    assert s["storm_fast_iostat-json"][2].startswith("since-boot (assumed")
    assert "storm_fast_iostat-json.json" in p.stderr
    assert "1,212 IOPS" in p.stdout  # the fast storm's peak with its first report kept (as `make run` imports it)
    # the answers stay with the runs: the same folder again needs no flags, and imports nothing twice
    pdf.unlink()
    again = run("report", str(folder), "-w", str(ws), "-o", str(pdf))
    assert again.returncode == 0, again.stderr
    assert "imported" not in again.stdout
    assert pdf.read_bytes().startswith(b"%PDF")


def test_cli_answers_need_paths_and_valid_values(tmp_path, folder):
    ws, pdf = tmp_path / "ws.duckdb", tmp_path / "r.pdf"
    assert run("report", "-w", str(ws), "-o", str(pdf), "--interval", "2").returncode == 2
    p = run("report", str(folder), "-w", str(ws), "-o", str(pdf), "--first-report", "x=maybe")
    assert p.returncode == 2
    assert "--first-report x=maybe: give since-boot or interval" in p.stderr


def test_window_report_from_folder_asks_once_then_writes_the_pdf(qtbot, window, folder, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    from tests.ui.test_ui_window import menu_action

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder)))
    menu_action(window, "File", "Report from folder…").trigger()
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    asked = {q.file: q.what for q in dlg.questions}
    assert asked == {"storm_fast_iostat-xt.txt": "first_report", "storm_slow_iostat-xt.txt": "first_report",
                     "storm_fast_iostat-json.json": "first_report", "capped_200iops_iostat-d.txt": "interval"}
    field = {q.file: f for q, f in zip(dlg.questions, dlg.fields)}
    ok = dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)
    ok.click()  # the interval left at "not known": asked for, not accepted
    assert dlg.isVisible()
    assert "capped_200iops_iostat-d.txt" in dlg.status.text()
    for name in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
        field[name].setCurrentIndex(field[name].findData("interval"))
    field["capped_200iops_iostat-d.txt"].setValue(2)
    ok.click()
    qtbot.waitUntil(lambda: getattr(window, "report_dialog", None) is not None, timeout=10000)
    report = window.report_dialog
    assert len(report.run_ids) == 4
    rows = {name: rest for name, *rest in window.ws.con.execute(
        "SELECT name, interval_s, json_extract_string(meta, '$.first_report') FROM runs").fetchall()}
    assert rows["capped_200iops_iostat-d"][0] == 2.0
    assert rows["storm_fast_iostat-xt"][1] == "interval (set by the user)"
    assert rows["storm_fast_iostat-json"][1] == "since-boot (set by the user)"  # the default choice, confirmed
    write_report(qtbot, report, tmp_path / "r.pdf")
    report.close()


def test_window_drop_asks_the_folder_questions_once_then_keeps_the_answers(qtbot, window, folder):
    """A drop of the folder asks what its captures cannot say once, in the dialog File ▸ Report from folder… uses:
    before, the -y storm captures' first reports stayed out until the user found the since-boot banner."""
    from PySide6.QtWidgets import QDialogButtonBox

    from tests.conftest import drop_paths

    drop_paths(window, [folder])
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    assert {q.file: q.what for q in dlg.questions} == {
        "storm_fast_iostat-xt.txt": "first_report", "storm_slow_iostat-xt.txt": "first_report",
        "storm_fast_iostat-json.json": "first_report", "capped_200iops_iostat-d.txt": "interval"}
    ok = dlg.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok.text() == "Keep these answers"  # no report follows a drop
    field = {q.file: f for q, f in zip(dlg.questions, dlg.fields)}
    for name in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
        field[name].setCurrentIndex(field[name].findData("interval"))
    field["capped_200iops_iostat-d.txt"].setValue(2)
    ok.click()
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10000)
    rows = {name: rest for name, *rest in window.ws.con.execute(
        "SELECT name, interval_s, json_extract_string(meta, '$.first_report') FROM runs").fetchall()}
    assert rows["capped_200iops_iostat-d"][0] == 2.0
    assert rows["storm_fast_iostat-xt"][1] == "interval (set by the user)"
    assert rows["storm_slow_iostat-xt"][1] == "interval (set by the user)"
    assert rows["storm_fast_iostat-json"][1] == "since-boot (set by the user)"
    assert getattr(window, "report_dialog", None) is None
    # the same folder dropped again imports nothing new, so nothing is asked again
    window.folder_answers_dialog = None
    drop_paths(window, [folder])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    qtbot.wait(100)
    assert window.folder_answers_dialog is None


def test_window_drop_of_files_that_say_everything_asks_nothing(qtbot, window):
    from tests.conftest import drop_paths

    drop_paths(window, [SAMPLES / "fio_randrw_jsonplus.json"])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    qtbot.wait(100)
    assert window.ws.con.execute("SELECT count(*) FROM runs").fetchone()[0] >= 1
    assert getattr(window, "folder_answers_dialog", None) is None


@pytest.fixture
def folder_with_a_bad_trace(folder):
    """The folder, plus a capture the import refuses (a perfmon log whose value is cut: '7.0625001143654654e')."""
    from tests.conftest import CORPUS

    shutil.copy(CORPUS / "perfmon" / "snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv",
                folder / "sql01_perfmon.csv")
    return folder


def _pdf_words(path):
    import subprocess

    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(out.split())


def test_cli_report_of_a_folder_names_the_file_it_could_not_read(tmp_path, folder_with_a_bad_trace):
    """Issue 26: a file of the folder that fails to import is not silently missing from the report: the "Not
    included" box names it and says why (exit 1: a file failed). Failed before: the PDF said nothing of it."""
    ws, pdf = tmp_path / "ws.duckdb", tmp_path / "r.pdf"
    p = run("report", str(folder_with_a_bad_trace), "-w", str(ws), "-o", str(pdf), "--interval", "2",
            "--first-report", "*-xt.txt=interval")
    assert p.returncode == 1, p.stderr
    text = _pdf_words(pdf)
    assert "Not included 1 file of the folder could not be read and is not in this report: sql01_perfmon.csv " \
           "(line 2:" in text
    assert str(tmp_path) not in text  # the file's name, never the consultant's folders


def test_window_report_from_folder_names_the_file_it_could_not_read(qtbot, window, folder_with_a_bad_trace, tmp_path,
                                                                    monkeypatch):
    from PySide6.QtWidgets import QDialogButtonBox, QFileDialog

    from tests.ui.test_ui_window import menu_action

    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(folder_with_a_bad_trace)))
    menu_action(window, "File", "Report from folder…").trigger()
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    for q, f in zip(dlg.questions, dlg.fields):
        if q.what == "interval":
            f.setValue(2)
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: getattr(window, "report_dialog", None) is not None, timeout=10000)
    report = window.report_dialog
    write_report(qtbot, report, tmp_path / "r.pdf")
    report.close()
    text = _pdf_words(tmp_path / "r.pdf")
    assert "1 file of the folder could not be read and is not in this report: sql01_perfmon.csv (line 2:" in text


def test_cli_report_of_files_that_all_fail_says_they_failed(tmp_path):
    """Every file of the drop failed: no PDF, and the command says the files failed rather than that there were no
    traces (it said "no traces in ...", of a folder of traces)."""
    from tests.conftest import CORPUS

    bad = CORPUS / "perfmon" / "snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv"
    p = run("report", str(bad), "-w", str(tmp_path / "ws.duckdb"), "-o", str(tmp_path / "r.pdf"))
    assert p.returncode == 2
    assert "nothing to report on: snippet_preparePerfLog-pod_perfmon-csv_PhysicalDisk.csv failed to import" in p.stderr
    assert not (tmp_path / "r.pdf").exists()
