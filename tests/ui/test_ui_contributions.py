"""What a capability contributes to the window comes from registries, and no list in the window names it: a view
tab declared in app.ui.views.VIEW_TABS is in the window, in its declared place, and reads the workspace File ▸ Open
workspace… opens; a report section declared with reports.builders.section is a tick box of Export report… and a
section of the PDF.

Before, the window handed a newly opened workspace to a hard-coded list of its views that left out the Storm
replay and Load limit tabs: after File ▸ Open workspace… they still read the workspace the window had closed."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QLabel, QVBoxLayout, QWidget

from app.importer import import_file
from app.ui.views import VIEW_TABS, ViewTab
from app.workspace import Workspace
from parsers.base import ImportOptions
from reports.builders import SECTION_BUILDERS, section
from reports.content import Section
from tests.conftest import SAMPLES, dispose_window, open_window, save_report_text


class ProbeView(QWidget):
    """A view a capability added in a test contributes: it shows the runs selected in the workspace it reads."""

    def __init__(self, ws: Workspace):
        super().__init__()
        self.ws = ws
        self.runs: list[int] = []
        QVBoxLayout(self).addWidget(QLabel("probe"))

    def set_runs(self, run_ids: list[int]) -> None:
        self.runs = list(run_ids)


def _open_workspace(w, path, monkeypatch) -> None:
    """File ▸ Open workspace… and pick ``path`` in the file dialog."""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    next(a for m in w.menuBar().actions() for a in m.menu().actions() if a.text() == "&Open workspace…").trigger()


def _tab_titles(w) -> list[str]:
    return [w.tabs.tabText(i) for i in range(w.tabs.count())]


def test_every_view_tab_reads_the_workspace_file_open_workspace_opens(qtbot, tmp_path, monkeypatch):
    other = tmp_path / "other.duckdb"
    Workspace(other).close()
    w = open_window(qtbot, tmp_path)
    try:
        w.tabs.setCurrentWidget(w.knee)  # the Load limit tab shown (its view built) before the switch
        assert w.knee.built
        _open_workspace(w, other, monkeypatch)
        assert w.ws_path == other
        for key, tab in VIEW_TABS.items():
            view = getattr(w, tab.attr)
            assert view.ws is w.ws, key
            w.tabs.setCurrentWidget(view)  # built now (or already): on the workspace on screen
            assert view.view.ws is w.ws, key
    finally:
        dispose_window(qtbot, w)


def test_a_view_tab_declared_in_a_test_is_in_the_window_in_its_place(qtbot, tmp_path, monkeypatch):
    VIEW_TABS.add("probe", ViewTab("Probe", __name__, "ProbeView", "probe"), order=65)  # after Storm replay
    try:
        w = open_window(qtbot, tmp_path)
        try:
            titles = _tab_titles(w)
            assert titles[titles.index("Storm replay") + 1] == "Probe"
            assert titles == ["Overlay", *(t.title for t in VIEW_TABS.values()), "Grid && SQL"]
            w.tabs.setCurrentIndex(titles.index("Probe"))  # as a click on the tab
            assert isinstance(w.probe.view, ProbeView)
            assert w.probe.view.isVisible()
            other = tmp_path / "other.duckdb"
            Workspace(other).close()
            _open_workspace(w, other, monkeypatch)
            assert w.probe.view.ws is w.ws
        finally:
            dispose_window(qtbot, w)
    finally:
        VIEW_TABS.remove("probe")
    assert "probe" not in VIEW_TABS


def test_a_report_section_declared_in_a_test_is_a_tick_box_of_export_report_and_in_the_pdf(qtbot, window, tmp_path,
                                                                                              monkeypatch):
    @section("probe", title="Probe findings", order=115)
    def build(ctx):
        sec = Section("probe", "Probe findings")
        sec.para(f"{len(ctx.runs)} run(s) probed.")
        return sec

    try:
        rid = import_file(window.ws, str(SAMPLES / "storm_fast_iostat-xt.txt"),
                          ImportOptions(first_report="interval")).run_ids[0]
        window.browser.reload()
        window.browser.select_runs([rid])
        window.export_report_action.trigger()  # Report ▸ Export report… (Ctrl+R)
        dlg = window.report_dialog
        titles = [c.text() for c in dlg.sections.values()]
        assert titles[-3:] == ["Cross-check: fio against iostat", "Probe findings", "Appendix: sources and methods"]
        assert dlg.sections["probe"].isChecked()  # a report without questions: every section
        text = save_report_text(qtbot, dlg, monkeypatch, tmp_path)
        assert "Probe findings 1 run(s) probed." in text
    finally:
        SECTION_BUILDERS.remove("probe")
