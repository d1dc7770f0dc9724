"""The StormScope main window."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QColor, QDragEnterEvent, QDropEvent, QKeySequence, QScreen
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.analysis.text import render_stored
from app.errors import AnalysisError
from app.migrations import READ_ONLY_REASON
from app.run import Run
from app.safe_text import shown
from app.ui import theme
from app.ui.banner import SinceBootBanner
from app.ui.desktop import StormScopeApplication, application, open_log_folder
from app.ui.grid import Grid
from app.ui.import_options import WaitingForInterval
from app.ui.importing_window import ImportingWindow
from app.ui.lazy_view import LazyView
from app.ui.memory_limit import duckdb_settings
from app.ui.plot import OverlayPlot
from app.ui.questions_dock import QuestionsPanel
from app.ui.results_table import ResultsTable, export_chart_with_table
from app.ui.run_browser import RunBrowser
from app.ui.settings_values import int_setting, str_list_setting
from app.ui.single_instance import open_for_window
from app.ui.theme import THEMES, apply_theme
from app.ui.views import PHASE_ACTIONS, RUN_ACTIONS, VIEW_TABS, ViewTab
from app.ui.workers import ImportThread, WorkspaceLost, wait_for_jobs
from app.workspace import (
    DISK_FULL,
    ImportResult,
    Workspace,
    WorkspaceLocked,
    WorkspaceRefused,
    WorkspaceTooNew,
)
from parsers.base import Cancelled, ImportOptions
from parsers.kinds import TIME_SERIES, has

APP = "StormScope"
QUESTIONS_HEIGHT = 190  # the Report questions panel's height when a question is added (five rows)
WAITING_HINT = "without time stamps: set the interval below"
RUN_LIST_WIDTH = 440  # the run list's first width (then the user's, remembered with the window's layout)
STATUS_COLOURS = {"imported": "#1b7f3b", "duplicate": "#666666", "failed": "#b00020", "skipped": "#8a6d00",
                  "cancelled": "#666666"}
STATUS_COLOURS_DARK = {"imported": "#6fcf8a", "duplicate": "#a8a8a8", "failed": "#ff8080", "skipped": "#e3c35a",
                       "cancelled": "#a8a8a8"}


def questions_title(n: int) -> str:
    """The Report questions panel's title: how many questions the report answers."""
    return f"Report questions ({n})" if n else "Report questions"


class ImportPanel(QWidget):
    """Progress, Cancel and one line per file of the running (and last) import."""

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.message = QLabel("Drop trace files, folders or .zip archives anywhere on the window.")
        self.cancel = QPushButton("Cancel")
        self.cancel.setEnabled(False)
        self.list = QListWidget()
        self.list.setMinimumHeight(24)
        self.waiting = WaitingForInterval()
        top = QHBoxLayout()
        top.addWidget(self.bar, 1)
        top.addWidget(self.cancel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        self.message.setWordWrap(True)
        lay.addWidget(self.message)
        lay.addWidget(self.waiting)
        lay.addWidget(self.list, 1)

    @staticmethod
    def _colour(item: QListWidgetItem) -> None:
        colours = STATUS_COLOURS_DARK if theme.current() == "dark" else STATUS_COLOURS
        status = item.data(Qt.ItemDataRole.UserRole)
        if status in colours:
            item.setForeground(QColor(colours[status]))

    def recolour(self) -> None:
        """The lines' status colours in the theme now in force."""
        for i in range(self.list.count()):
            self._colour(self.list.item(i))

    def add_result(self, r: ImportResult) -> None:
        if r.status == "imported":
            text = f"imported   {shown(Path(r.path).name)}  → run {', '.join(map(str, r.run_ids))} ({r.rows:,} rows)"
            if r.warnings:
                text += f"  — {len(r.warnings)} warning{'s' if len(r.warnings) > 1 else ''}"
        elif r.status == "duplicate":
            text = f"duplicate  {shown(Path(r.path).name)}  (already run {', '.join(map(str, r.run_ids))})"
        elif r.status == "cancelled":
            text = f"cancelled  {shown(Path(r.path).name)}  (stopped by Cancel: nothing of it was stored)"
        else:
            text = f"{r.status:<10} {shown(r.error, 2000)}"
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, r.status)
        self._colour(item)
        item.setToolTip("\n".join(shown(t, 2000) for t in [r.error or r.path, *map(render_stored, r.warnings)]))
        self.list.addItem(item)
        self.list.scrollToBottom()

    def add_plan_check(self, c: Any) -> None:
        """One line per imported run under its file's: "as planned", or what differs from the capture plan."""
        item = QListWidgetItem(f"   plan: run {c.run_id} {'as planned' if c.as_planned else '— ' + c.words()}")
        item.setData(Qt.ItemDataRole.UserRole, "imported" if c.as_planned else "skipped")
        self._colour(item)
        item.setToolTip(shown(f"Compared with the capture plan (File ▸ Capture plan…): {c.words()}", 2000))
        self.list.addItem(item)
        self.list.scrollToBottom()


def disk_full_note(results: list[ImportResult], reopened: bool) -> str:
    """The one message about a full disk during an import (empty when none): which files, what was kept."""
    full = [shown(Path(r.path).name) for r in results if r.status == "failed" and DISK_FULL in (r.error or "")]
    if not full:
        return ""
    names = ", ".join(full[:3]) + (f" and {len(full) - 3} more" if len(full) > 3 else "")
    them = "it" if len(full) == 1 else "them"
    rest = " StormScope opened the workspace again and went on with the rest of the drop." if reopened else ""
    return (f"The disk holding the workspace filled up while importing {names}: nothing of {them} was stored, the "
            f"runs imported before are kept.{rest} Free some space and import {them} again. — ")



def _action(text: str, parent: QObject, slot: Callable[[], object],
            shortcut: QKeySequence | QKeySequence.StandardKey | None = None) -> QAction:
    """A menu action that calls ``slot`` (without the ``checked`` flag triggered carries, so it never lands in a
    parameter), with an optional shortcut."""
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(shortcut)
    action.triggered.connect(lambda _checked=False: slot())
    return action

class MainWindow(ImportingWindow):
    def __init__(self, ws_path: Path, settings: QSettings | None = None, ws: Workspace | None = None):
        """The window on the workspace at ``ws_path``; ``ws``: that workspace already opened (by the start's check
        that no other process holds it), else it is opened here."""
        super().__init__()
        self.settings = settings or QSettings(APP, APP)
        apply_theme(self.theme_setting())  # before any chart exists: pyqtgraph takes its colours at creation
        self.ws_path = Path(ws_path)
        self.ws = ws if ws is not None else open_for_window(self.ws_path)
        self.import_thread: ImportThread | None = None
        self._reopened_during_import = False  # DuckDB invalidated the database during this import: opened again
        self._closed = False
        self.setAcceptDrops(True)
        self.setWindowTitle(f"{APP} — {shown(self.ws_path.stem)}")
        self._fit_to_screen()

        self.browser = RunBrowser(self.ws)
        self.plot = OverlayPlot(self.ws)
        self.results = ResultsTable(self)
        self.results.attach(self.plot)  # follows the curves, the visible range and the cap
        self.grid = Grid(self.ws)
        # the tabs not shown at start are built when first shown (or asked for): a quicker start
        self.histos: Any
        self.iozone: Any
        self.bench: Any
        self.sizing: Any
        for tab in VIEW_TABS.values():  # app.ui.views: the views a capability contributes
            setattr(self, tab.attr, LazyView(self.ws, partial(self._build_tab, tab)))
        self.tabs = QTabWidget()
        self.tabs.setObjectName("views")
        # the results table sits under the overlay chart, in the same tab: its figures are the chart's
        self.overlay_page = QSplitter(Qt.Orientation.Vertical)
        self.overlay_page.setObjectName("overlay-page")
        self.overlay_page.addWidget(self.plot)
        self.overlay_page.addWidget(self.results)
        self.overlay_page.setStretchFactor(0, 3)
        self.overlay_page.setStretchFactor(1, 2)
        self.overlay_page.setSizes([640, 260])
        self.overlay_page.setCollapsible(0, False)
        self.tabs.addTab(self.overlay_page, "Overlay")
        for tab in VIEW_TABS.values():
            self.tabs.addTab(getattr(self, tab.attr), tab.title)
        self.tabs.addTab(self.grid, "Grid && SQL")
        self.banner = SinceBootBanner(self.ws)
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.setSpacing(2)
        self.read_only_banner = QLabel()  # a newer StormScope's workspace, shown read-only: said above the views
        self.read_only_banner.setObjectName("read-only-banner")
        self.read_only_banner.setWordWrap(True)
        self.read_only_banner.setStyleSheet("QLabel { background: #fff4ce; color: #3d2f00; padding: 6px; }")
        central_lay.addWidget(self.read_only_banner)
        central_lay.addWidget(self.tabs, 1)
        central_lay.addWidget(self.banner)  # under the views: the tab bar stays put when it comes and goes
        self.setCentralWidget(central)

        self.import_panel = ImportPanel()
        self.import_panel.cancel.clicked.connect(self.cancel_import)
        self.import_panel.waiting.interval_set.connect(self._runs_changed)
        docks = []
        self.questions = QuestionsPanel(self.ws)
        n_questions = len(self.questions.questions)
        for title, widget, area, name in (
            ("Runs", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea, "runs"),
            ("Import", self.import_panel, Qt.DockWidgetArea.BottomDockWidgetArea, "import"),
            (questions_title(n_questions), self.questions, Qt.DockWidgetArea.BottomDockWidgetArea, "questions"),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{name}")
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            docks.append(dock)
        self.runs_dock, self.import_dock, self.questions_dock = docks
        self.tabifyDockWidget(self.import_dock, self.questions_dock)  # one strip under the views, a tab each
        # the import list sits under the views, beside the run list (the run list keeps the full height)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.resizeDocks([docks[0]], [RUN_LIST_WIDTH], Qt.Orientation.Horizontal)
        self.resizeDocks([docks[1]], [110], Qt.Orientation.Vertical)

        self._selection: list[int] = []
        self._stale: set[int] = set()  # tabs whose view has not seen the current selection yet
        self.browser.selection_changed.connect(self._selection_changed)
        self.tabs.currentChanged.connect(self._tab_shown)
        self.browser.open_grid.connect(self._open_grid)
        self.browser.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.browser.runs_changed.connect(self._runs_changed)
        self.browser.action_asked.connect(self._run_action)
        self.plot.phase_action.connect(self._phase_action)
        self.banner.changed.connect(self._first_report_kept)
        self.plot.questions_asked.connect(self._add_questions)
        self.plot.clock_changed.connect(self._runs_changed)
        self.questions.question_chosen.connect(self._show_question)
        self.questions.count_changed.connect(lambda n: self.questions_dock.setWindowTitle(questions_title(n)))
        self.questions.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        self.statusBar().addPermanentWidget(self.questions.undo_button)
        self._menus()
        self._apply_read_only()
        # the workspace by its name: its folder (a home folder, another customer's engagement) is in no picture of the
        # window a consultant shows; File ▸ Recent workspaces has the whole path
        self.statusBar().showMessage(f"Workspace {shown(self.ws_path.name)}")
        self._restore()
        if not self.questions.questions:  # shown when the first question is added (Report ▸ Report questions)
            self.questions_dock.hide()

    def _build_tab(self, tab: ViewTab, ws: Workspace) -> QWidget:
        """A view tab's view, built when first shown; the questions it asks go to the Report questions panel."""
        view = tab.build(ws)
        if hasattr(view, "questions_asked"):
            view.questions_asked.connect(self._add_questions)
        if hasattr(view, "status_message"):  # what a view has to say goes to the status bar
            view.status_message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        return view

    def _tab_of(self, key: str) -> Any:
        """The view (a LazyView until built) of the view tab ``key`` of app.ui.views.VIEW_TABS."""
        return getattr(self, VIEW_TABS[key].attr)

    def _run_action(self, key: str, run_id: int) -> None:
        """A view's action on one run, from the run list's menu (app.ui.views.RUN_ACTIONS): its tab shown, then the
        action done (the tab's own update to the selection comes first)."""
        act = RUN_ACTIONS[key]
        view = self._tab_of(act.tab)
        self.tabs.setCurrentWidget(view)
        getattr(view, act.method)(run_id)

    def _phase_action(self, key: str, run_id: int, phase: str) -> None:
        """A view's action on a stored phase, from its band's menu on the Overlay (app.ui.views.PHASE_ACTIONS)."""
        act = PHASE_ACTIONS[key]
        view = self._tab_of(act.tab)
        self.tabs.setCurrentWidget(view)
        getattr(view, act.method)(run_id, phase)

    def _fit_to_screen(self) -> None:
        """1400 x 860, or 90 % of a smaller screen (a 1366 x 768 laptop)."""
        shown_on: QScreen | None = self.screen()  # None without a screen (the stubs do not say so)
        screen = shown_on.availableGeometry() if shown_on is not None else None
        w, h = 1400, 860
        if screen is not None and screen.width() > 0:
            w, h = min(w, int(screen.width() * 0.95)), min(h, int(screen.height() * 0.92))
        self.resize(w, h)

    def _tab_view(self, index: int) -> Any:
        """The view in tab ``index`` that shows the selected runs (has ``set_runs``), or None (the grid)."""
        page = self.tabs.widget(index)
        if page is self.overlay_page:
            return self.plot
        # a tab not yet built is asked nothing (that would build it) until it is on screen
        return page if isinstance(page, LazyView) or hasattr(page, "set_runs") else None

    def _selection_changed(self, run_ids: list[int]) -> None:
        """The view on screen follows the selection at once; the others when their tab is next shown (each one
        recomputes its figures, which would otherwise be done for views nobody looks at)."""
        self._selection = list(run_ids)
        self.banner.set_runs(run_ids)
        if run_ids and self.tabs.currentWidget() is self.overlay_page and self._only_bench_results(run_ids):
            self.tabs.setCurrentWidget(self.bench)  # the overlay draws nothing for them: their results instead
        current = self._tab_view(self.tabs.currentIndex())
        for i in range(self.tabs.count()):
            view = self._tab_view(i)
            if view is None:
                continue
            if view is current:
                view.set_runs(run_ids)
                self._stale.discard(i)
            else:
                self._stale.add(i)

    def _only_bench_results(self, run_ids: list[int]) -> bool:
        """Every selected run holds Iometer or IOmark results (one average per test, nothing over time)."""
        from app.analysis.bench_results import iomark_runs, iometer_runs

        return set(run_ids) <= iometer_runs(self.ws) | iomark_runs(self.ws)

    def _tab_shown(self, index: int) -> None:
        view = self._tab_view(index)
        if index in self._stale and view is not None:
            self._stale.discard(index)
            view.set_runs(self._selection)

    def _runs_changed(self) -> None:
        """A run setting changed (interval, first report, name, deletion): every view recomputes, and so do the
        answers of the report's questions."""
        self.browser.reload()
        self._selection_changed(self.browser.selected_runs())
        self._show_waiting()
        self.questions.refresh()

    # ---- the report's questions ---------------------------------------------------------------------
    def _add_questions(self, questions: list[Any]) -> None:
        """A view's Add to report: the questions are stored and the Report questions panel shows them."""
        if self.questions.add(questions):
            self.questions_dock.show()
            self.questions_dock.raise_()
            if self.questions_dock.height() < QUESTIONS_HEIGHT:  # room for a few questions (the user may resize)
                self.resizeDocks([self.questions_dock], [QUESTIONS_HEIGHT], Qt.Orientation.Vertical)

    def add_to_library(self) -> None:
        """Report ▸ Add to library…: publish the engagement and compare its storm (app/ui/library_dialog.py)."""
        from app.ui.library_dialog import LibraryDialog

        runs = self.browser.selected_runs()
        self.library_dialog = LibraryDialog(self.ws, self, self.settings, self._add_questions,
                                            runs[0] if runs else None)
        self.library_dialog.show()

    def add_to_report(self) -> None:
        """Report ▸ Add to report (Ctrl+Shift+A): the Add to report of the view on screen."""
        action = self._view_add_action()
        if action is not None and action.isEnabled():
            action.trigger()
        elif action is not None:
            self.statusBar().showMessage(action.toolTip(), 10000)
        else:
            self.statusBar().showMessage("Add to report works on the Overlay, Histograms, Sizing, Storm replay and "
                                         "Load limit tabs: the "
                                         "question they show goes into the report.", 10000)

    def _view_add_action(self) -> QAction | None:
        page = self.tabs.currentWidget()
        if page is self.overlay_page:
            return self.plot.add_action
        if any(page is self._tab_of(k) for k in VIEW_TABS):  # a view tab with an Add to report of its own
            action = getattr(page, "add_action", None)
            return action if isinstance(action, QAction) else None
        return None

    def add_cap_check(self) -> None:
        """Report ▸ Add cap check to report: the overlay's cap on each selected iostat run."""
        self.tabs.setCurrentWidget(self.overlay_page)
        if self.plot.cap_action.isEnabled():
            self.plot.cap_action.trigger()
        else:
            self.statusBar().showMessage(self.plot.cap_action.toolTip(), 10000)

    def _show_question(self, sq: Any) -> None:
        """A question chosen in the Report questions panel: its runs selected, the tab with its evidence shown
        and set as the question was asked."""
        tab = next((t for t in VIEW_TABS.values() if sq.kind in t.kinds), None)
        view = getattr(self, tab.attr) if tab is not None else self.plot  # else the overlay's question
        self.tabs.setCurrentWidget(self.overlay_page if view is self.plot else view)
        runs = [r for r in sq.question.run_ids_used() if self.ws.run(r) is not None]
        if runs:
            self.browser.select_runs(runs)
        view.show_question(sq.question)

    def _first_report_kept(self) -> None:
        self._runs_changed()
        self.statusBar().showMessage("The first report now counts as an interval (Undo on the banner, or right-click "
                                     "the run ▸ First report is since boot).", 15000)

    def _waiting_runs(self) -> list[Run]:
        """The runs over time that have neither time stamps nor an interval: the list under the import list, and
        the count the import's summary gives."""
        return [r for r in self.ws.runs_without_interval() if has(r.kind, TIME_SERIES)]

    def _show_waiting(self) -> None:
        """Runs without time stamps or interval, each with a field to set it, under the import list."""
        waiting = self._waiting_runs()
        self.import_panel.waiting.show_runs(waiting, self._set_interval)
        msg = self.import_panel.message
        if not waiting and WAITING_HINT in msg.text():  # every interval is set now: the hint would point at nothing
            msg.setText(msg.text().split(" — ")[0])

    def _set_interval(self, run_id: int, seconds: float) -> str | None:
        if self.ws.read_only_reason:  # the waiting runs' fields: a workspace shown, not changed
            return f"{self.ws.read_only_reason}."
        errors = self.browser.set_interval([run_id], seconds)
        if not errors:
            self._check_against_plan([run_id])  # its interval and length can be compared with the plan now
        return errors[0] if errors else None

    # ---- menus --------------------------------------------------------------------------------
    def _menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        m.setToolTipsVisible(True)  # a disabled action says why (a read-only workspace)
        self.import_action = _action("&Import…", self, self.import_dialog, QKeySequence("Ctrl+I"))
        m.addAction(self.import_action)
        self.import_folder_action = _action("Import &folder…", self, self.import_folder_dialog)
        m.addAction(self.import_folder_action)
        self.report_folder_action = _action("Report from fol&der…", self, self.report_from_folder)
        self.report_folder_action.setStatusTip("An engagement folder to the report in one go: imported, what its "
                                               "captures cannot say asked once, then the report")
        m.addAction(self.report_folder_action)
        self.import_options_action = _action("Import with &options…", self, self.import_with_options,
                                             QKeySequence("Ctrl+Shift+I"))
        m.addAction(self.import_options_action)
        self.plan_action = _action("Capture &plan…", self, self.capture_plan)
        self.plan_action.setStatusTip("What the customer runs on each system to capture the storm, from the "
                                      "questions: commands to paste, a PDF, and the check of the captures that come "
                                      "back")
        m.addAction(self.plan_action)
        m.addAction(_action("&Open workspace…", self, self.open_workspace_dialog, QKeySequence.StandardKey.Open))
        self.recent_menu = m.addMenu("Recent workspaces")
        self._fill_recent()
        m.addSeparator()
        self.export_chart_action = _action("Export &chart…", self, self.export_chart, QKeySequence("Ctrl+E"))
        m.addAction(self.export_chart_action)
        self.export_report_action = _action("Export &report…", self, self.export_report, QKeySequence("Ctrl+R"))
        m.addAction(self.export_report_action)
        m.addSeparator()
        m.addAction(_action("&Quit", self, self.close, QKeySequence.StandardKey.Quit))
        v = self.menuBar().addMenu("&View")
        self.reset_zoom_action = _action("&Reset zoom", self, self.reset_zoom, QKeySequence("Ctrl+0"))
        v.addAction(self.reset_zoom_action)
        v.addSeparator()
        for dock in (self.runs_dock, self.import_dock, self.questions_dock):  # a closed panel comes back from here
            v.addAction(dock.toggleViewAction())
        v.addSeparator()
        theme_menu = v.addMenu("&Theme")
        self.theme_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        chosen = self.theme_setting()
        for key, label in zip(THEMES, ("Follow the system", "Light", "Dark")):
            a = QAction(label, self, checkable=True, checked=key == chosen)
            a.triggered.connect(lambda _checked=False, key=key: self.set_theme(key))
            group.addAction(a)
            theme_menu.addAction(a)
            self.theme_actions[key] = a
        r = self.menuBar().addMenu("Re&port")
        r.setToolTipsVisible(True)
        self.add_to_report_action = _action("&Add to report", self, self.add_to_report, QKeySequence("Ctrl+Shift+A"))
        self.add_to_report_action.setStatusTip("The question the Overlay, Histograms or Sizing tab shows, into the "
                                               "report")
        r.addAction(self.add_to_report_action)
        self.add_cap_action = _action("Add &cap check to report", self,
                                      self.add_cap_check)
        self.add_cap_action.setStatusTip("Whether the overlay's cap held on each selected iostat run, into the report")
        r.addAction(self.add_cap_action)
        self.latency_path_action = _action("&Where the time goes…", self, self.ask_latency_path)
        self.latency_path_action.setStatusTip("A guest's capture beside its host's esxtop: its time in its own queue, "
                                              "in the hypervisor and in the array, into the report")
        r.addAction(self.latency_path_action)
        r.addSeparator()
        self.questions_action = _action("Report &questions", self, self.show_questions, QKeySequence("Ctrl+Shift+Q"))
        r.addAction(self.questions_action)
        r.addAction(self.export_report_action)
        r.addAction(self.report_folder_action)
        r.addSeparator()
        self.library_action = _action("Add to &library…", self, self.add_to_library)
        self.library_action.setStatusTip("Publish this engagement to the team's library and see how its storm compares "
                                         "with past engagements")
        r.addAction(self.library_action)
        h = self.menuBar().addMenu("&Help")
        self.open_log_action = _action("Open &log folder", self, self.open_log)
        self.open_log_action.setStatusTip("The folder of StormScope's log and crash reports, to send with a problem")
        h.addAction(self.open_log_action)
        self.guide_action = _action("&User guide", self, self.show_guide, QKeySequence.StandardKey.HelpContents)
        h.addAction(self.guide_action)
        self.about_action = _action("About StormScope", self, self.about)
        h.addAction(self.about_action)

    def show_guide(self) -> None:
        """Help ▸ User guide (F1): the bundled user guide, rendered (app/ui/guide.py)."""
        from app.ui.guide import GUIDE, GuideWindow

        if not GUIDE.is_file():  # installed with pip: the guide comes with the desktop build and the source
            self.statusBar().showMessage("The user guide is not part of this installation: it comes with the desktop "
                                         "build and with StormScope's source.", 15000)
            return
        self.guide_window = GuideWindow(self)
        self.guide_window.show()
        # in front with the keyboard, so that Escape closes it (it opened behind the focus of the main window)
        self.guide_window.raise_()
        self.guide_window.activateWindow()
        self.guide_window.browser.setFocus()

    def about(self) -> None:
        """Help ▸ About StormScope: what it is and which version (the one `--version` prints)."""
        from reports.options import version

        QMessageBox.about(self, APP, f"StormScope {version()} — storage-performance trace analysis.\n"
                          "Drop a folder of traces on the window to begin: iostat, sar, nmon, esxtop, perfmon, "
                          "vscsiStats, fio, DiskSpd, IOzone, Iometer, IOmark or hdparm. Help ▸ User guide "
                          "explains every view.")

    def open_log(self) -> None:
        """Help ▸ Open log folder: the log and crash reports in the file manager."""
        problem = open_log_folder()
        if problem:
            self.statusBar().showMessage(problem, 15000)

    def show_questions(self) -> None:
        """Report ▸ Report questions: the panel shown, in front, with the focus (for its keys)."""
        self.questions_dock.show()
        self.questions_dock.raise_()
        self.questions.table.setFocus()

    def reset_zoom(self) -> None:
        """View ▸ Reset zoom (Ctrl+0): the whole runs again on the overlay (the tab is shown if it was not)."""
        self.tabs.setCurrentWidget(self.overlay_page)
        self.plot.reset_zoom()

    def theme_setting(self) -> str:
        value = str(self.settings.value("theme", "system"))
        return value if value in THEMES else "system"

    def set_theme(self, key: str) -> None:
        """View ▸ Theme: applied at once and remembered."""
        self.settings.setValue("theme", key)
        self.theme_actions[key].setChecked(True)
        self._apply_theme(key)

    def _apply_theme(self, key: str) -> None:
        apply_theme(key)
        self.banner.restyle()  # widgets with colours of their own follow too
        self.import_panel.recolour()
        self.questions.recolour()
        self.results.recolour()

    def _system_scheme_changed(self) -> None:
        if self.theme_setting() == "system":
            self._apply_theme("system")

    def _recent(self) -> list[str]:
        """File ▸ Recent workspaces, newest first: absolute paths (an entry an older version stored relative to the
        folder it was started from is left out: it names no file for certain)."""
        return [p for p in str_list_setting(self.settings, "recent") if os.path.isabs(p)]

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for p in self._recent()[:8]:
            self.recent_menu.addAction(p, partial(self.open_recent, Path(p)))

    def open_recent(self, path: Path) -> None:
        """A Recent workspaces entry: opened when its file is there; when it is not, the window says so (and offers
        to drop the entry) instead of creating an empty workspace in its place."""
        if not path.is_file():
            answer = QMessageBox.question(
                self, "Workspace not found",
                f"{shown(str(path), 1000)}\n\nThis workspace is not there: it was moved, renamed or deleted, or the "
                "drive it is on is not connected.\n\nRemove it from Recent workspaces?")
            if answer == QMessageBox.StandardButton.Yes:
                self.settings.setValue("recent", [p for p in self._recent() if p != str(path)])
                self._fill_recent()
            return
        self.open_workspace(path)

    # ---- import -------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt name)
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self._import_and_ask(paths)

    def _import_and_ask(self, paths: list[str], options: ImportOptions | None = None) -> None:
        """Import ``paths`` (a drop, or the files and folder chosen in File ▸ Import…), then ask what the new runs
        cannot say in one dialog (:meth:`_drop_imported`): dates that read both ways are never left to a silent
        guess, whichever way the files came in."""
        thread = self.start_import(paths, options)
        if thread is not None:
            thread.done.connect(self._drop_imported)  # after _import_done (connected first)

    def _drop_imported(self, result: Any) -> None:
        """A drop imported: what its new runs cannot say (an iostat capture's first report, a capture's interval)
        is asked once for the whole drop, by the same dialog and the same decision as File ▸ Report from folder….
        Nothing asked when the drop's files say everything themselves."""
        if isinstance(result, Exception):  # the import panel says why
            return
        run_ids = sorted({rid for r in result if r.status == "imported" for rid in r.run_ids})
        self._ask_open_questions(run_ids, "Keep these answers", lambda: None)

    def import_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import traces")
        if files:
            self._import_and_ask(files)

    def import_with_options(self) -> None:
        """File ▸ Import with options…: interval, first report and host memory for files that cannot say them."""
        from app.ui.import_options import ImportOptionsDialog

        dlg = ImportOptionsDialog(self)
        self.options_dialog = dlg
        if dlg.exec() and dlg.chosen_paths():
            self._import_and_ask(dlg.chosen_paths(), dlg.options())

    def ask_latency_path(self) -> None:
        from app.ui.latency_path_dialog import LatencyPathDialog

        def add(questions: list[Any]) -> list[Any]:
            added = self.questions.add(questions)
            if added:
                self.show_questions()  # where its answer shows
            return added

        self.latency_path_dialog = LatencyPathDialog(self.ws, add, self)
        self.latency_path_dialog.show()

    def capture_plan(self) -> None:
        from app.ui.plan_dialog import PlanDialog

        self.plan_dialog = PlanDialog(self.ws, self)
        self.plan_dialog.show()

    def import_folder_dialog(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Import a folder of traces")
        if d:
            self._import_and_ask([d])

    def report_from_folder(self, folder: str | None = None) -> ImportThread | None:
        """File ▸ Report from folder…: the folder imported, its open questions asked once, the report dialog on its
        runs (app/ui/folder_report.py)."""
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, "Report from a folder of traces")
            if not folder:
                return None
        thread = self.start_import([folder])
        if thread is not None:
            thread.done.connect(self._folder_imported)  # after _import_done (connected first)
        return thread

    def _folder_imported(self, result: Any) -> None:
        if isinstance(result, Exception):  # the import panel says why
            return
        run_ids = sorted({rid for r in result if r.status in ("imported", "duplicate") for rid in r.run_ids})
        if not run_ids:
            self.statusBar().showMessage("No traces in that folder: nothing to report on.", 10000)
            return
        self.browser.select_runs(run_ids)
        from pathlib import Path

        failed = [(Path(r.path).name, r.error or "not imported") for r in result if r.status == "failed"]
        self._ask_open_questions(run_ids, "Continue to the report", lambda: self._report_on(run_ids, failed))

    def _ask_open_questions(self, run_ids: list[int], go_on: str, then: Callable[[], None]) -> None:
        """What the runs cannot say themselves (app/importer.py open_questions) asked in one dialog, the answers
        stored, then ``then``; with nothing to ask, ``then`` at once. Cancel leaves the runs as imported (the
        since-boot banner and the run menu still offer the answers)."""
        from app.importer import open_questions

        questions = open_questions(self.ws, run_ids) if run_ids else []
        if not questions:
            then()
            return
        from app.ui.folder_report import FolderAnswersDialog

        dlg = FolderAnswersDialog(questions, self, go_on)
        self.folder_answers_dialog = dlg
        dlg.accepted.connect(lambda: self._answered(dlg, run_ids, then))
        dlg.open()

    def _answered(self, dlg: Any, run_ids: list[int], then: Callable[[], None]) -> None:
        from app.importer import answer

        for q, value in dlg.answers():
            answer(self.ws, q, value)
        self._runs_changed()
        self.browser.select_runs(run_ids)
        then()

    def _report_on(self, run_ids: list[int], failed: list[tuple[str, str]] | None = None) -> None:
        """The report dialog on the folder's runs; the folder's files that failed are listed in the report."""
        from app.ui.report_dialog import ReportDialog

        self.report_dialog = ReportDialog(self.ws, run_ids, self, self.settings, not_imported=failed)
        self.report_dialog.show()

    def _apply_read_only(self) -> None:
        """A newer StormScope's workspace this version reads (opened read-only): a banner says so, and what would
        change it -- importing, report questions, run settings, computed columns, templates -- is disabled, its
        tooltip saying why. A workspace of this version: all enabled, no banner."""
        reason = self.ws.read_only_reason
        fix = " Update StormScope to change it." if reason == READ_ONLY_REASON else ""
        self.read_only_banner.setText(f"Read-only: {shown(self.ws.read_only_note or '', 2000)}{fix}"
                                      if reason else "")
        self.read_only_banner.setVisible(reason is not None)
        for a in (self.import_action, self.import_folder_action, self.import_options_action,
                  self.report_folder_action, self.add_to_report_action, self.add_cap_action,
                  self.latency_path_action):
            a.setEnabled(reason is None)
            a.setToolTip(reason or a.text().replace("&", ""))
        self.browser.read_only = reason
        self.grid.set_read_only(reason)
        self.banner.set_read_only(reason)
        self.questions.set_read_only(reason)

    def start_import(self, paths: list[str], options: ImportOptions | None = None) -> ImportThread | None:
        if self.ws.read_only_reason:  # a drop on a read-only workspace
            self.statusBar().showMessage(f"Not imported: {self.ws.read_only_reason}.", 10000)
            return None
        if self.import_thread is not None and self.import_thread.isRunning():
            self.statusBar().showMessage("An import is running; wait for it or cancel it first.", 5000)
            return None
        self.import_dock.show()  # the progress and Cancel
        self.import_panel.list.clear()
        self.import_panel.bar.setFormat("%p%")
        self.import_panel.bar.setValue(0)
        self.import_panel.cancel.setEnabled(True)
        self._reopened_during_import = False
        self.import_thread = ImportThread(self.ws_path, paths, options or ImportOptions(), self)
        self.import_thread.progress.connect(self._progress)
        self.import_thread.file_done.connect(self._file_done)
        self.import_thread.reopen_needed.connect(self._reopen_for_import)
        self.import_thread.done.connect(self._import_done)
        self.import_thread.start()
        return self.import_thread

    def cancel_import(self) -> None:
        if self.import_thread is not None:
            self.import_thread.cancel()
            self.import_panel.message.setText("Cancelling…")

    def _progress(self, fraction: float, message: str) -> None:
        self.import_panel.bar.setValue(int(fraction * 1000))
        self.import_panel.message.setText(message)

    def _file_done(self, r: ImportResult) -> None:
        self.import_panel.add_result(r)
        if r.status == "imported":
            self.browser.reload()
            self._check_against_plan(r.run_ids)

    def _check_against_plan(self, run_ids: list[int]) -> None:
        """With a capture plan stored, each imported run compared with it, in the import's list."""
        from app.analysis.capture_plan import check_runs, stored

        try:
            plan = stored(self.ws)
            checks = check_runs(self.ws, plan, run_ids) if plan is not None else []
        except AnalysisError as e:
            self.import_panel.message.setText(f"The capture plan could not be checked: {e}")
            return
        for c in checks:
            self.import_panel.add_plan_check(c)

    def _reopen_for_import(self) -> None:
        """The import thread's database was invalidated by DuckDB (the disk filled up while it wrote a file): it has
        closed its connection and waits (app/ui/workers.py ImportThread). The window closes its own -- DuckDB keeps
        the invalidated database while any connection of this process is open -- opens the file again under the
        same policy, and lets the import go on with the next file of the drop."""
        thread = self.import_thread
        if thread is None:
            return
        self._let_go_of_workspace()
        self.ws.close_invalidated()
        try:
            ws = Workspace(self.ws_path, settings=duckdb_settings())
        except (duckdb.Error, OSError, WorkspaceLocked, WorkspaceTooNew, WorkspaceRefused) as e:
            lost = WorkspaceLost(f"the disk holding the workspace filled up, and the workspace could not be opened "
                                 f"again ({e}). Free some space, then open it again (File ▸ Open workspace…) and "
                                 "import the files not listed here")
            thread.reopened(lost)
            QMessageBox.critical(self, "Workspace could not be opened again", shown(f"{self.ws_path}\n\n{lost}", 2000))
            self.close()
            return
        self._reopened_during_import = True
        self._use_workspace(ws, self.ws_path)
        thread.reopened()

    def _import_done(self, result: Any) -> None:
        self.import_panel.cancel.setEnabled(False)
        not_started = self.import_thread.not_started if self.import_thread is not None else 0
        if isinstance(result, Exception):
            self.import_panel.message.setText(f"Import stopped: {result}")
        else:
            n = {s: sum(r.status == s for r in result) for s in STATUS_COLOURS}
            # the runs waiting for an interval: the very list under this line (one definition, one count)
            no_times = len(self._waiting_runs())
            hint = f" — {no_times} run{'s' if no_times > 1 else ''} {WAITING_HINT}" if no_times else ""
            stopped = ""
            if n["cancelled"]:
                left = f", {not_started} not started" if not_started else ""
                stopped = f", {n['cancelled']} cancelled{left}"
                done = len(result) - n["cancelled"]
                total = len(result) + not_started
                self.import_panel.bar.setValue(int(1000 * done / max(1, total)))
                self.import_panel.bar.setFormat(f"Cancelled: {done} of {total} files done")
            new = [rid for r in result if r.status == "imported" for rid in r.run_ids]
            shown_first: list[int] = []
            group = ""
            if new:
                self.browser.reload()
                shown_first, group = self.browser.first_look(new)
            first = (f" — {len(shown_first)} of the {len(new)} new runs are selected (the first of {shown(group)}): "
                     "select others in the run list") if group else ""
            self.import_panel.message.setText(
                disk_full_note(result, self._reopened_during_import)
                + f"{n['imported']} imported, {n['duplicate']} duplicate, {n['failed']} failed, "
                  f"{n['skipped']} skipped{stopped}{hint}{first}")
            if new:
                self.browser.select_runs(shown_first)
                self.questions.refresh()  # a question may now be answerable
        self.import_thread = None
        self._show_waiting()

    # ---- workspace ------------------------------------------------------------------------------
    def open_workspace_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Open or create a workspace", str(self.ws_path.parent),
                                              "StormScope workspace (*.duckdb)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.open_workspace(Path(path))

    def open_workspace(self, path: Path) -> None:
        if self.import_thread is not None and self.import_thread.isRunning():
            self.statusBar().showMessage("An import is running; wait for it or cancel it, then open the workspace.",
                                         10000)
            return
        try:  # open the new one first: when another process has it, the current one stays open
            ws = open_for_window(path)
        except WorkspaceLocked as e:
            QMessageBox.warning(self, "Workspace in use",
                                f"The workspace {shown(str(path), 1000)} is in use by {e.holder}.\n\n{e.advice}")
            return
        except WorkspaceTooNew as e:  # nothing was written to it; the current workspace stays open
            QMessageBox.warning(self, "Workspace from a newer StormScope", f"{shown(str(path), 1000)}\n\n{e}")
            return
        except WorkspaceRefused as e:  # views, macros ... StormScope never creates: not opened, not changed
            QMessageBox.warning(self, "Workspace not opened", f"{shown(str(path), 1000)}\n\n{e}")
            return
        self._let_go_of_workspace()
        self.ws.close()
        self._use_workspace(ws, path)

    def _let_go_of_workspace(self) -> None:
        """Stop every view's use of the workspace's connection, before it is closed."""
        self.questions.shutdown()
        wait_for_jobs(but=self.import_thread)  # the views' jobs read through it: stopped before it is closed
        self.grid.close_model()

    def _use_workspace(self, ws: Workspace, path: Path) -> None:
        """Show ``ws`` (just opened) in every view."""
        self.ws_path = path
        self.ws = ws
        for w in (self.browser, self.plot, self.grid, *(self._tab_of(k) for k in VIEW_TABS)):
            w.ws = self.ws
        self.banner.ws = self.ws
        self.questions.reopen(self.ws)
        self._apply_read_only()
        self.browser.reload()
        self._selection_changed(self.browser.selected_runs())
        self._show_waiting()
        self.setWindowTitle(f"{APP} — {shown(path.stem)}")
        self._remember(path)

    def _remember(self, path: Path) -> None:
        entry = os.path.abspath(path)  # `-w ws.duckdb` names a file of the folder the window was started from
        recent = [entry] + [p for p in self._recent() if p != entry]
        self.settings.setValue("recent", recent[:8])
        self._fill_recent()

    def _open_grid(self, run_id: int) -> None:
        self.grid.show_run(run_id)
        self.tabs.setCurrentWidget(self.grid)

    def export_report(self) -> None:
        from app.ui.report_dialog import ReportDialog

        self.report_dialog = ReportDialog(self.ws, self.browser.selected_runs(), self, self.settings)
        self.report_dialog.show()

    def export_chart(self, path: str | None = None) -> None:
        """Export the chart(s) of the current view as PNG (2x) or SVG (vector)."""
        view = self.tabs.currentWidget()
        if path is None:
            name = self.tabs.tabText(self.tabs.currentIndex()).split()[0].lower()
            folder = str(self.settings.value("export_dir", "") or Path.home())
            path, _ = QFileDialog.getSaveFileName(self, "Export chart", str(Path(folder) / f"{name}.png"),
                                                  "PNG (*.png);;SVG (*.svg)")
            if not path:
                return
            self.settings.setValue("export_dir", str(Path(path).parent))  # the next export starts there
        if view is self.overlay_page:
            crosshair = self.plot.vline.isVisible()
            self.plot.vline.setVisible(False)  # the pointer's line is not part of the chart
            try:
                if self.results.lines:  # the chart with its results table beneath
                    export_chart_with_table(self.plot.plot, self.results, path)
                else:
                    self.plot.export(path)
            finally:
                self.plot.vline.setVisible(crosshair)
        else:
            export_widget(view, path)
        self.statusBar().showMessage(f"Chart saved as {shown(path, 1000)}", 10000)

    # ---- state --------------------------------------------------------------------------------
    def _restore(self) -> None:
        geo = self.settings.value("geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        state = self.settings.value("state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        self.tabs.setCurrentIndex(int_setting(self.settings, "tab", 0))
        self._remember(self.ws_path)
        selected = [int(x) for x in str_list_setting(self.settings, f"selection/{self.ws_path}") if x.isdigit()]
        if selected:
            self.browser.select_runs(selected)
        self._show_waiting()
        hints = QApplication.styleHints()
        hints.colorSchemeChanged.connect(self._system_scheme_changed)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        if self._closed:  # a second close (the window is being deleted): all was let go the first time
            super().closeEvent(event)
            return
        self._closed = True
        if self.import_thread is not None:
            # the import's last signals are queued for this window: they must not reach a closed workspace
            self.import_thread.file_done.disconnect(self._file_done)
            self.import_thread.reopen_needed.disconnect(self._reopen_for_import)
            self.import_thread.done.disconnect(self._import_done)
            self.import_thread.cancel()
            self.import_thread.reopened(Cancelled("the window was closed"))  # if it waits for a reopen, it stops there
            self.import_thread.wait()
            self.import_thread = None
        self.plot.shutdown()
        self.results.shutdown()
        self.questions.shutdown()
        dlg = getattr(self, "report_dialog", None)
        if dlg is not None and dlg.job is not None and dlg.job.isRunning():
            dlg.job.stop()  # the PDF is written whole or not at all: a report stopped leaves none
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("state", self.saveState())
        self.settings.setValue("tab", self.tabs.currentIndex())
        self.settings.setValue(f"selection/{self.ws_path}", [str(r) for r in self.browser.selected_runs()])
        self.grid.close_model()
        self.ws.close()
        QApplication.styleHints().colorSchemeChanged.disconnect(self._system_scheme_changed)
        super().closeEvent(event)


def export_widget(widget: QWidget, path: str) -> None:
    """A view as it is on screen: SVG (vector, app/ui/svg_export.py), else a PNG at twice the resolution."""
    from PySide6.QtCore import QPoint

    if path.lower().endswith(".svg"):
        from app.ui.svg_export import export_svg

        export_svg(widget, path, "StormScope", background=QColor(0xFFFFFFFF))
        return
    from PySide6.QtGui import QImage, QPainter

    img = QImage(widget.width() * 2, widget.height() * 2, QImage.Format.Format_ARGB32)
    img.fill(0xFFFFFFFF)
    painter = QPainter(img)
    try:
        painter.scale(2, 2)
        widget.render(painter, QPoint(0, 0))
    finally:
        painter.end()
    img.save(path)


def opened_from_finder(win: MainWindow, enqueue: Callable[[list[str]], None], paths: list[str]) -> None:
    """Files macOS opens with StormScope: a workspace (.duckdb, which the app declares it opens) is opened, the rest
    imported."""
    workspaces = [p for p in paths if p.lower().endswith(".duckdb")]
    traces = [p for p in paths if p not in workspaces]
    if workspaces:
        win.open_workspace(Path(workspaces[-1]))
    if traces:
        enqueue(traces)


def run_gui(argv: list[str]) -> int:
    """``main.py [gui] [-w WS] [PATH...]``: open the window, importing PATHs."""
    from app.ui.single_instance import (
        gui_args,
        hand_off_or_open,
        serve,
        workspace_of,
    )

    args = gui_args(argv)
    app = application(sys.argv[:1])
    ws_path = workspace_of(args)
    ws = hand_off_or_open(ws_path, args.paths)  # a window has it open: it gets the paths; or it is locked
    if isinstance(ws, int):
        return ws
    app.setApplicationName(APP)
    app.setOrganizationName(APP)
    win = MainWindow(ws_path, ws=ws)
    server = serve(win)  # later `main.py gui` starts on this workspace hand their paths to this window
    win.show()
    if args.paths:  # through the server's queue: paths another start hands over meanwhile wait their turn
        QTimer.singleShot(0, lambda: server.enqueue(args.paths))
    if isinstance(app, StormScopeApplication):  # macOS: files opened from the Finder or dropped on the Dock icon
        app.open_files_with(lambda paths: opened_from_finder(win, server.enqueue, paths))
    code = app.exec()
    if isinstance(app, StormScopeApplication):
        app.open_files_with(None)
    server.close()
    return code
