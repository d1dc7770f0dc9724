"""Names from files shown, not obeyed, everywhere in the window (issue 17, finding 9's loose end): a run, host and file
named with U+202E RIGHT-TO-LEFT OVERRIDE, a line break and an ANSI escape go through each view by the user's path
(a drop, a click in the run list, the tabs, a double click into the grid, the menus and the run menu's dialogs),
then every text a visible widget shows -- labels, buttons, lists, trees, tables, combo boxes, tooltips, window
titles, the status bar, and the charts' titles, axes and legends -- is read: none holds the raw characters, and
the names appear escaped (``<U+202E>``, ``\\n``, ``\\x1b``). The rename box shows the name escaped and refuses a new
name with a control character, saying why."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QFileDialog,
    QGraphicsTextItem,
    QGraphicsView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QTableWidget,
    QTreeWidget,
    QWidget,
)

from tests.conftest import SAMPLES, click_tab, drop_paths

RAW = ("\u202e", "\x1b", "red\nline", "south\nnorth")
RUN = "A\u202eB south\nnorth \x1b[31mred"
RUN_SHOWN = "A<U+202E>B south\\nnorth \\x1b[31mred"
HOST = "host\u202e\x1b[2J"
HOST_SHOWN = "host<U+202E>\\x1b[2J"
FILE = "cap\u202etxt.red\nline\x1b[0m.txt"
FILE_SHOWN = "cap<U+202E>txt.red\\nline\\x1b[0m.txt"
WS = "ws\u202egnp.\x1b]0;owned\x07"
WS_SHOWN = "ws<U+202E>gnp.\\x1b]0;owned\\x07"


def visible_texts() -> list[tuple[str, str]]:
    """(where, text) of every text a visible widget of the application shows."""
    out: list[tuple[str, str]] = []
    for w in QApplication.allWidgets():
        if not w.isVisible():
            continue
        where = f"{type(w).__name__}({w.objectName()})"
        if w.isWindow():
            out.append((where + ".windowTitle", w.windowTitle()))
        out.append((where + ".toolTip", w.toolTip()))
        out.extend(_own_texts(w, where))
    return [(k, v) for k, v in out if v]


def _own_texts(w: QWidget, where: str) -> list[tuple[str, str]]:
    if isinstance(w, (QLabel, QAbstractButton, QLineEdit)):
        return [(where, w.text())]
    if isinstance(w, QComboBox):
        return [(f"{where}[{i}]", w.itemText(i)) for i in range(w.count())]
    if isinstance(w, QListWidget):
        return [t for i in range(w.count()) for t in ((where, w.item(i).text()), (where, w.item(i).toolTip()))]
    if isinstance(w, QTreeWidget):
        return _tree_texts(w, where)
    if isinstance(w, QTableWidget):
        return [(where, it.text()) for r in range(w.rowCount()) for c in range(w.columnCount())
                if (it := w.item(r, c)) is not None]
    if isinstance(w, QGraphicsView) and w.scene() is not None:  # pyqtgraph: titles, axis labels, legends, labels
        return [(where + ".chart", it.toPlainText()) for it in w.scene().items() if isinstance(it, QGraphicsTextItem)]
    return []


def _tree_texts(tree: QTreeWidget, where: str) -> list[tuple[str, str]]:
    out = []

    def walk(item):
        for c in range(tree.columnCount()):
            out.extend([(where, item.text(c)), (where, item.toolTip(c))])
        for i in range(item.childCount()):
            walk(item.child(i))

    for i in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(i))
    return out


def raw_leaks(texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k, v) for k, v in texts if any(r in v for r in RAW)]


def test_hostile_names_are_shown_escaped_in_every_view(qtbot, window, tmp_path, monkeypatch):
    w = window
    leaks: list[tuple[str, str, str]] = []  # (step, where, text) of each raw name seen, over the whole walk

    def check(step: str, texts: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
        texts = visible_texts() if texts is None else texts
        leaks.extend((step, k, v) for k, v in raw_leaks(texts))
        return texts

    # File ▸ Open workspace… on a workspace file so named: the window title
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / f"{WS}.duckdb"), ""))
    next(a for m in w.menuBar().actions() for a in m.menu().actions() if a.text() == "&Open workspace…").trigger()
    assert w.windowTitle() == f"StormScope — {WS_SHOWN}"
    drop = tmp_path / "drop"
    drop.mkdir()
    shutil.copy(SAMPLES / "storm_fast_iostat-xt.txt", drop / FILE)
    shutil.copy(SAMPLES / "fio_randrw_jsonplus.json", drop / f"{FILE}.json")
    drop_paths(w, [drop / FILE, drop / f"{FILE}.json"])  # the import panel names the files
    qtbot.waitUntil(lambda: w.import_thread is None, timeout=60000)
    # as a received workspace may hold them: the runs, their host, a fio job's name
    w.ws.con.execute("UPDATE runs SET name = ?, host = ?", [RUN, HOST])
    w.ws.con.execute("UPDATE histograms SET device = ?", [HOST])
    w.browser.reload()
    w.browser.runs_changed.emit()  # what a rename emits: the views read the names again
    texts = check("drop")
    assert any(FILE_SHOWN in v for _k, v in texts), "the import panel names the file, escaped"
    rids = [int(r.run_id) for r in w.ws.runs()]
    rid = rids[0]
    w.browser.select_runs([])
    w.browser.select_runs(rids)  # the overlay chart, its legend (the curve list beside it) and the results table
    qtbot.waitUntil(lambda: not w.plot.loading and len(w.plot.curves) >= 1, timeout=30000)
    qtbot.wait(200)
    texts = check("overlay")
    assert any(RUN_SHOWN in v for k, v in texts if k.startswith("CurveList")), [v for k, v in texts
                                                                                 if k.startswith("CurveList")]
    assert any(HOST_SHOWN in v for _k, v in texts), "the run list groups by the host, escaped"
    for tab in ("Histograms", "IOzone", "Sizing", "Grid & SQL", "Overlay"):
        click_tab(qtbot, w, tab)
        qtbot.wait(300)
        texts = check(tab)
        if tab == "Histograms":
            assert any(HOST_SHOWN in v for k, v in texts if k.endswith(".chart")), "the fio job, escaped"
    # Report ▸ Add to report on the overlay: the questions panel titles the question with the run's name
    w.browser.select_runs([rid])
    qtbot.waitUntil(lambda: not w.plot.loading and len(w.plot.curves) >= 1, timeout=30000)
    w.add_to_report_action.trigger()
    w.questions_dock.show()
    qtbot.wait(300)
    texts = check("questions")
    assert any(RUN_SHOWN in v for k, v in texts if k.startswith("QTableWidget")), "the question names the run"
    # the grid, by a double click in the run list
    tree = w.browser.tree
    item = w.browser._run_items()[0]
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: w.grid.model is not None and w.grid.model.rowCount() > 0, timeout=30000)
    check("grid")
    # Report ▸ Export report…: the report dialog lists the runs
    w.export_report_action.trigger()
    qtbot.waitUntil(lambda: w.report_dialog.isVisible(), timeout=5000)
    check("report dialog")
    w.report_dialog.close()
    # the run menu's Delete… asks with the names; Rename… shows the name escaped and refuses a control character
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: asked.append(text)
                        or QMessageBox.StandardButton.No)
    w.browser.delete([rid])
    assert asked
    check("delete box", [("text", asked[0])])
    assert RUN_SHOWN in asked[0]
    prefilled: list[str] = []
    typed = iter(["new\x1bname", "A\u202eB"])
    monkeypatch.setattr(QInputDialog, "getText", lambda parent, title, label, *a, **k: (
        prefilled.append(k.get("text", "")) or (next(typed), True)))
    refusals: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: refusals.append(text))
    assert leaks == [], "\n".join(map(repr, leaks))
    w.browser.rename(rid)
    assert prefilled == [RUN_SHOWN]
    assert refusals == ["A run name cannot hold control characters (line breaks, tabs, escape sequences) or "
                        "text-direction controls: the name was not changed."]
    assert w.ws.run(rid).name == RUN
    w.browser.rename(rid)
    assert len(refusals) == 2
    assert w.ws.run(rid).name == RUN
    check("after rename")
    assert leaks == [], "\n".join(map(repr, leaks))
