"""The StormScope main window."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.ui.grid import Grid
from app.ui.histo_view import HistogramView
from app.ui.iozone_view import IozoneView
from app.ui.plot import OverlayPlot
from app.ui.run_browser import RunBrowser
from app.ui.sizing_panel import SizingPanel
from app.ui.workers import ImportThread
from app.workspace import ImportResult, Workspace, WorkspaceLocked
from parsers.base import ImportOptions

APP = "StormScope"
STATUS_COLOURS = {"imported": "#1b7f3b", "duplicate": "#666666", "failed": "#b00020", "skipped": "#8a6d00"}


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
        top = QHBoxLayout()
        top.addWidget(self.bar, 1)
        top.addWidget(self.cancel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.message)
        lay.addWidget(self.list, 1)

    def add_result(self, r: ImportResult) -> None:
        if r.status == "imported":
            text = f"imported   {Path(r.path).name}  → run {', '.join(map(str, r.run_ids))} ({r.rows:,} rows)"
            if r.warnings:
                text += f"  — {len(r.warnings)} warning{'s' if len(r.warnings) > 1 else ''}"
        elif r.status == "duplicate":
            text = f"duplicate  {Path(r.path).name}  (already run {', '.join(map(str, r.run_ids))})"
        else:
            text = f"{r.status:<10} {r.error}"
        item = QListWidgetItem(text)
        item.setForeground(Qt.GlobalColor.black)
        from PySide6.QtGui import QColor

        item.setForeground(QColor(STATUS_COLOURS.get(r.status, "#000")))
        item.setToolTip("\n".join([r.error or r.path, *r.warnings]))
        self.list.addItem(item)
        self.list.scrollToBottom()


class MainWindow(QMainWindow):
    def __init__(self, ws_path: Path, settings: QSettings | None = None):
        super().__init__()
        self.settings = settings or QSettings(APP, APP)
        self.ws_path = Path(ws_path)
        self.ws = Workspace(self.ws_path)
        self.thread: ImportThread | None = None
        self.setAcceptDrops(True)
        self.setWindowTitle(f"{APP} — {self.ws_path.stem}")
        self.resize(1400, 860)

        self.browser = RunBrowser(self.ws)
        self.plot = OverlayPlot(self.ws)
        self.grid = Grid(self.ws)
        self.histos = HistogramView(self.ws)
        self.iozone = IozoneView(self.ws)
        self.sizing = SizingPanel(self.ws)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("views")
        self.tabs.addTab(self.plot, "Overlay")
        self.tabs.addTab(self.histos, "Histograms")
        self.tabs.addTab(self.iozone, "IOzone")
        self.tabs.addTab(self.sizing, "Sizing")
        self.tabs.addTab(self.grid, "Grid && SQL")
        self.setCentralWidget(self.tabs)

        self.import_panel = ImportPanel()
        self.import_panel.cancel.clicked.connect(self.cancel_import)
        docks = []
        for title, widget, area, name in (
            ("Runs", self.browser, Qt.DockWidgetArea.LeftDockWidgetArea, "runs"),
            ("Import", self.import_panel, Qt.DockWidgetArea.BottomDockWidgetArea, "import"),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{name}")
            dock.setWidget(widget)
            self.addDockWidget(area, dock)
            docks.append(dock)
        self.resizeDocks([docks[0]], [440], Qt.Orientation.Horizontal)
        self.resizeDocks([docks[1]], [150], Qt.Orientation.Vertical)

        self.browser.selection_changed.connect(self.plot.set_runs)
        self.browser.selection_changed.connect(self.histos.set_runs)
        self.browser.selection_changed.connect(self.iozone.set_runs)
        self.browser.selection_changed.connect(self.sizing.set_runs)
        self.browser.open_grid.connect(self._open_grid)
        self.browser.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.browser.runs_changed.connect(lambda: self.plot.set_runs(self.browser.selected_runs()))
        self._menus()
        self.statusBar().showMessage(f"Workspace {self.ws_path}")
        self._restore()

    # ---- menus --------------------------------------------------------------------------------
    def _menus(self) -> None:
        m = self.menuBar().addMenu("&File")
        act = QAction("&Import…", self, shortcut=QKeySequence("Ctrl+I"), triggered=self.import_dialog)
        m.addAction(act)
        m.addAction(QAction("Import &folder…", self, triggered=self.import_folder_dialog))
        m.addAction(QAction("&Open workspace…", self, shortcut=QKeySequence.StandardKey.Open,
                            triggered=self.open_workspace_dialog))
        self.recent_menu = m.addMenu("Recent workspaces")
        self._fill_recent()
        m.addSeparator()
        m.addAction(QAction("Export chart…", self, shortcut=QKeySequence("Ctrl+E"), triggered=self.export_chart))
        m.addAction(QAction("Export &report…", self, shortcut=QKeySequence("Ctrl+R"), triggered=self.export_report))
        m.addSeparator()
        m.addAction(QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close))
        v = self.menuBar().addMenu("&View")
        v.addAction(QAction("Light theme", self, triggered=lambda: apply_theme("light")))
        v.addAction(QAction("Dark theme", self, triggered=lambda: apply_theme("dark")))
        h = self.menuBar().addMenu("&Help")
        h.addAction(QAction("About StormScope", self, triggered=lambda: QMessageBox.about(
            self, APP, "StormScope — storage-performance trace analysis.\n"
            "Drop iostat, vscsiStats or fio files on the window to begin.")))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for p in self.settings.value("recent", [], type=list)[:8]:
            self.recent_menu.addAction(p, lambda p=p: self.open_workspace(Path(p)))

    # ---- import -------------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt name)
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.start_import(paths)

    def import_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import traces")
        if files:
            self.start_import(files)

    def import_folder_dialog(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Import a folder of traces")
        if d:
            self.start_import([d])

    def start_import(self, paths: list[str], options: ImportOptions | None = None) -> ImportThread | None:
        if self.thread is not None and self.thread.isRunning():
            self.statusBar().showMessage("An import is running; wait for it or cancel it first.", 5000)
            return None
        self.import_panel.list.clear()
        self.import_panel.bar.setValue(0)
        self.import_panel.cancel.setEnabled(True)
        self.thread = ImportThread(self.ws_path, paths, options or ImportOptions(), self)
        self.thread.progress.connect(self._progress)
        self.thread.file_done.connect(self._file_done)
        self.thread.done.connect(self._import_done)
        self.thread.start()
        return self.thread

    def cancel_import(self) -> None:
        if self.thread is not None:
            self.thread.cancel()
            self.import_panel.message.setText("Cancelling…")

    def _progress(self, fraction: float, message: str) -> None:
        self.import_panel.bar.setValue(int(fraction * 1000))
        self.import_panel.message.setText(message)

    def _file_done(self, r: ImportResult) -> None:
        self.import_panel.add_result(r)
        if r.status == "imported":
            self.browser.reload()

    def _import_done(self, result: Any) -> None:
        self.import_panel.cancel.setEnabled(False)
        if isinstance(result, Exception):
            self.import_panel.message.setText(f"Import stopped: {result}")
        else:
            n = {s: sum(r.status == s for r in result) for s in STATUS_COLOURS}
            no_times = sum(1 for r in result if r.status == "imported"
                           and any("no timestamps" in w for w in r.warnings))
            hint = (f" — {no_times} run{'s' if no_times > 1 else ''} without timestamps: right-click ▸ "
                    "Set interval… (the 5 of 'iostat 5')") if no_times else ""
            self.import_panel.message.setText(
                f"{n['imported']} imported, {n['duplicate']} duplicate, {n['failed']} failed, "
                f"{n['skipped']} skipped (not traces){hint}")
            new = [rid for r in result if r.status == "imported" for rid in r.run_ids]
            if new:
                self.browser.reload()
                self.browser.select_runs(new)
        self.thread = None

    # ---- workspace ------------------------------------------------------------------------------
    def open_workspace_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Open or create a workspace", str(self.ws_path.parent),
                                              "StormScope workspace (*.duckdb)",
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.open_workspace(Path(path))

    def open_workspace(self, path: Path) -> None:
        if self.thread is not None and self.thread.isRunning():
            return
        try:  # open the new one first: when another process has it, the current one stays open
            ws = Workspace(path)
        except WorkspaceLocked as e:
            QMessageBox.warning(self, "Workspace in use",
                                f"The workspace {path} is in use by {e.holder}.\n\n{e.advice}")
            return
        self.grid.close_model()
        self.ws.close()
        self.ws_path = path
        self.ws = ws
        for w in (self.browser, self.plot, self.grid, self.histos, self.iozone, self.sizing):
            w.ws = self.ws
        self.browser.reload()
        self.plot.set_runs([])
        self.setWindowTitle(f"{APP} — {path.stem}")
        self._remember(path)

    def _remember(self, path: Path) -> None:
        recent = [str(path)] + [p for p in self.settings.value("recent", [], type=list) if p != str(path)]
        self.settings.setValue("recent", recent[:8])
        self._fill_recent()

    def _open_grid(self, run_id: int) -> None:
        self.grid.show_run(run_id)
        self.tabs.setCurrentWidget(self.grid)

    def export_report(self) -> None:
        from app.ui.report_dialog import ReportDialog

        self.report_dialog = ReportDialog(self.ws, self.browser.selected_runs(), self)
        self.report_dialog.show()

    def export_chart(self, path: str | None = None) -> None:
        """Export the chart(s) of the current view as PNG (2x) or SVG (vector)."""
        view = self.tabs.currentWidget()
        if path is None:
            name = self.tabs.tabText(self.tabs.currentIndex()).split()[0].lower()
            path, _ = QFileDialog.getSaveFileName(self, "Export chart", f"{name}.png", "PNG (*.png);;SVG (*.svg)")
            if not path:
                return
        if view is self.plot:
            self.plot.export(path)
        else:
            export_widget(view, path)

    # ---- state --------------------------------------------------------------------------------
    def _restore(self) -> None:
        geo = self.settings.value("geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        state = self.settings.value("state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        self.tabs.setCurrentIndex(int(self.settings.value("tab", 0)))
        self._remember(self.ws_path)
        selected = self.settings.value(f"selection/{self.ws_path}", [], type=list)
        if selected:
            self.browser.select_runs([int(x) for x in selected])

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        if self.thread is not None and self.thread.isRunning():
            self.thread.cancel()
            self.thread.wait(5000)
        self.plot.shutdown()
        dlg = getattr(self, "report_dialog", None)
        if dlg is not None and dlg.job is not None and dlg.job.isRunning():
            dlg.job.wait(60000)
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("state", self.saveState())
        self.settings.setValue("tab", self.tabs.currentIndex())
        self.settings.setValue(f"selection/{self.ws_path}", [str(r) for r in self.browser.selected_runs()])
        self.grid.close_model()
        self.ws.close()
        super().closeEvent(event)


def export_widget(widget: QWidget, path: str) -> None:
    """A view as it is on screen: SVG through QSvgGenerator (vector), else a PNG at twice the resolution."""
    from PySide6.QtCore import QPoint

    if path.lower().endswith(".svg"):
        from PySide6.QtCore import QRect, QSize
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        gen = QSvgGenerator()
        gen.setFileName(path)
        gen.setSize(QSize(widget.width(), widget.height()))
        gen.setViewBox(QRect(0, 0, widget.width(), widget.height()))
        painter = QPainter(gen)
        try:
            widget.render(painter, QPoint(0, 0))
        finally:
            painter.end()
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


def apply_theme(name: str) -> None:
    import pyqtgraph as pg
    from PySide6.QtGui import QColor, QPalette

    app = QApplication.instance()
    if app is None:
        return
    if name == "dark":
        pal = QPalette()
        for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                             (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#262626"),
                             (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#353535"),
                             (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#2f6db5")):
            pal.setColor(role, QColor(colour))
        for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
            pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
        app.setPalette(pal)
        bg, fg = "#1e1e1e", "#e6e6e6"
    else:
        app.setPalette(app.style().standardPalette())
        bg, fg = "w", "k"
    pg.setConfigOptions(background=bg, foreground=fg)
    for w in app.allWidgets():  # charts already on screen follow the theme too
        if isinstance(w, (pg.PlotWidget, pg.GraphicsLayoutWidget)):
            w.setBackground(bg)


def run_gui(argv: list[str]) -> int:
    """``main.py [gui] [-w WS] [PATH...]``: open the window, importing PATHs."""
    from app.ui.single_instance import gui_args, hand_off_or_check, locked_at_start, serve, workspace_of

    args = gui_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    ws_path = workspace_of(args)
    code = hand_off_or_check(ws_path, args.paths)  # a window has it open: it gets the paths; or it is locked
    if code is not None:
        return code
    app.setApplicationName(APP)
    app.setOrganizationName(APP)
    apply_theme("light")
    try:
        win = MainWindow(ws_path)
    except WorkspaceLocked as e:  # taken since the check
        return locked_at_start(ws_path, e)
    server = serve(win)  # later `main.py gui` starts on this workspace hand their paths to this window
    win.show()
    if args.paths:
        QTimer.singleShot(0, lambda: win.start_import(args.paths))
    code = app.exec()
    server.close()
    return code
