"""perfmon logs whose counter names StormScope does not know (a Windows display language it has no names for) are
asked about once per drop in the window (issue 28): one question listing each file with what its columns were read
as by their place in the log; the answer is stored on the runs, the run list says it, its menu changes it, and the
report's sources say whether it was confirmed. Before this, such a file was refused ("no counter StormScope
reads")."""

import json
import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.conftest import CORPUS, drop_paths, run_menu  # noqa: E402

UNKNOWN = CORPUS / "perfmon" / "derived_unknown-names_from_typeperf-si10_GORANS2.csv"


@pytest.fixture
def drop(tmp_path):
    """Two such logs (the second a copy under another host's file name: a consultant's drop of two servers)."""
    d = tmp_path / "customer"
    d.mkdir()
    shutil.copy(UNKNOWN, d / "srv1_perfmon.csv")
    text = UNKNOWN.read_bytes().replace(b"\\\\GORANS2\\", b"\\\\SRV2\\")
    (d / "srv2_perfmon.csv").write_bytes(text)
    return d


def _states(window) -> dict[str, str]:
    return {name: json.loads(meta)["counters_by_place"]["state"]
            for name, meta in window.ws.con.execute("SELECT name, meta FROM runs").fetchall()}


def test_a_drop_asks_once_for_every_log_read_by_place(qtbot, window, drop):
    from PySide6.QtWidgets import QDialogButtonBox

    drop_paths(window, [drop])
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    assert sorted(q.file for q in dlg.placed) == ["srv1_perfmon.csv", "srv2_perfmon.csv"]
    assert dlg.placed_box is not None
    assert dlg.placed_box.isVisibleTo(dlg)
    assert dlg.placed_box.title() == "Counter names in a language StormScope does not know"
    text = "\n".join(lab.text() for lab in dlg.placed_box.findChildren(type(dlg.status)))
    for name in ("srv1_perfmon.csv:", "srv2_perfmon.csv:"):
        assert name in text
    assert "Object A\\Counter 12  →  PhysicalDisk\\Disk Reads/sec" in text
    assert "Object A\\Counter 20  →  PhysicalDisk\\% Idle Time" in text
    for word in ("counters_by_place", "--", "meta"):  # the customer's words, no code or flags
        assert word not in text
    assert [b.text() for b in dlg.placed_choice.buttons()] == [
        "Yes, these columns are those counters: read them so", "No: leave their values out"]
    assert _states(window) == {"srv1_perfmon": "not confirmed", "srv2_perfmon": "not confirmed"}
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()  # the first choice: read so
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10000)
    assert _states(window) == {"srv1_perfmon": "confirmed by the user", "srv2_perfmon": "confirmed by the user"}
    warnings = [w for (ws,) in window.ws.con.execute("SELECT warnings FROM runs").fetchall() for w in ws]
    assert not any("{fix:counters_by_place}" in w for w in warnings)  # the question answered: its warning gone


def test_leaving_them_out_empties_the_columns(qtbot, window, drop):
    from PySide6.QtWidgets import QDialogButtonBox

    drop_paths(window, [drop / "srv1_perfmon.csv"])
    qtbot.waitUntil(lambda: getattr(window, "folder_answers_dialog", None) is not None, timeout=60000)
    dlg = window.folder_answers_dialog
    dlg.placed_choice.buttons()[1].click()
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not dlg.isVisible(), timeout=10000)
    assert _states(window) == {"srv1_perfmon": "rejected by the user: their values left out"}
    [(n, r_s)] = window.ws.con.execute("SELECT count(*), count(r_s) FROM iostat_samples").fetchall()
    assert (n, r_s) == (8, 0)  # the rows stay, their values are missing (not zero)


def test_the_run_list_says_it_and_its_menu_confirms_it(qtbot, window):
    from PySide6.QtCore import Qt

    window.start_import([str(UNKNOWN)])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    if getattr(window, "folder_answers_dialog", None) is not None:
        window.folder_answers_dialog.reject()  # not answered now: the run list and its menu still offer it
    window.browser.reload()
    [rid] = [r for (r,) in window.ws.con.execute("SELECT run_id FROM runs").fetchall()]
    tips = {int(it.data(0, Qt.ItemDataRole.UserRole + 1)): it.toolTip(0) for it in window.browser._run_items()}
    assert "15 counters read by their place in the log (names in a language StormScope does not know): not " \
           "confirmed (right-click to confirm or reject)" in tips[rid]
    menu = [t for t, *_rest in run_menu(qtbot, window, rid, click="Counters read by their place are right")]
    assert "Counters read by their place are wrong: leave their values out" in menu
    assert _states(window) == {"derived_unknown-names_from_typeperf-si10_GORANS2": "confirmed by the user"}


def test_the_report_sources_say_whether_it_was_confirmed(tmp_path):
    from app.importer import import_file
    from app.workspace import Workspace
    from parsers.base import ImportOptions
    from reports.sections.appendix import counters_read

    ws = Workspace(tmp_path / "w.duckdb")
    try:
        [rid] = import_file(ws, str(UNKNOWN), ImportOptions()).run_ids
        assert counters_read(ws.run(rid)) == (
            " · 15 counters read by their place in the log, ASSUMED: their names are in a language StormScope does "
            "not know and nobody confirmed the reading")
        ws.set_counters_by_place(rid, True)
        assert counters_read(ws.run(rid)) == (
            " · 15 counters read by their place in the log (names in a language StormScope does not know), "
            "confirmed by the user")
    finally:
        ws.close()
