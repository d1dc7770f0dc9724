"""The results table docked under the overlay: one row of figures per curve, for the visible time range.

The figures are ``app.analysis.range_stats`` (the storm and cap analyses' own definitions); they are
computed on a worker thread and follow the chart: zoom in and the table shows the statistics of the
visible range. Ctrl+C or Copy puts the table on the clipboard as TSV with a header (pastes into Excel),
Export CSV… writes it, and ``render_table(painter, rect)`` draws it under an exported chart.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QKeySequence, QPainter, QPen, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.analysis.range_stats import (
    DEFAULT_THRESHOLD_MS,
    CurveSpec,
    Line,
    RangeRow,
    TimeBase,
    compute_rows,
    export_header,
    headers,
    table_lines,
    to_tsv,
    visible_columns,
)
from app.ui import theme
from app.ui.plot import PALETTE
from app.workspace import Workspace
from parsers.kinds import IOSTAT, LATENCY_HISTOGRAMS, has

ERROR_COLOURS = ("#c0392b", "#ff8080")  # why a curve has no figures: light theme, dark theme (readable on #1e1e1e)
NUMERIC_KINDS = ("iops", "s", "count", "pct", "share", "value")


def two_lines(header: str) -> str:
    """A header on two lines (the table stays narrow enough to sit under the chart): 'Peak\n(IOPS)'."""
    for a, b in (("Time to peak (s)", "Time to\npeak (s)"), ("Total I/Os", "Total\nI/Os"),
                 ("Read share (%)", "Read share\n(%)"), ("Cap verdict", "Cap verdict")):
        if header == a:
            return b
    if header.startswith("Within ≤ "):
        return header.replace("Within ", "Within\n", 1)
    return header.replace(" (", "\n(", 1)


def _swatch(colour: str) -> QPixmap:
    pm = QPixmap(12, 12)
    pm.fill(QColor(colour))
    return pm


def curve_specs(curves: list[Any], t_range: tuple[float, float] | None, default_metric: str = "IOPS (total)"
                ) -> list[CurveSpec]:
    """Plain descriptions of the overlay's visible curves; ``t_range`` (plot time axis) becomes each curve's
    range of run time (alignment, manual shift and 0–1 time undone), None = the whole runs."""
    out = []
    for i, c in enumerate(curves):
        if not getattr(c, "visible", True):
            continue
        offset = float(getattr(c, "offset", 0.0) or 0.0)
        align = float(getattr(c, "align_offset_s", 0.0) or 0.0)
        scale = float(getattr(c, "time_scale", 1.0) or 1.0)

        def run_time(x: float, c: Any = c, offset: float = offset, align: float = align, scale: float = scale
                     ) -> float:
            if hasattr(c, "run_time"):
                return float(c.run_time(x))
            return (x - offset) * scale + align

        rng = None
        if t_range is not None:
            a, b = sorted((run_time(t_range[0]), run_time(t_range[1])))
            rng = (a, b)
        kind = getattr(c, "kind", None) or IOSTAT
        device = getattr(c, "device", None)
        if has(kind, LATENCY_HISTOGRAMS) and device is None and " · " in c.label:
            device = c.label.split(" · ", 1)[1]
        colour = getattr(c, "colour", None) or PALETTE[i % len(PALETTE)]
        values = None
        if getattr(c, "t_start", None) is not None and len(c.t_start) == len(c.t):
            # the curve as drawn, in seconds of the run: the figures of a metric other than total IOPS are its own
            values = (np.asarray(c.t_start) * scale + align, np.asarray(c.t) * scale + align, np.asarray(c.y),
                      getattr(c, "weights", None))
        out.append(CurveSpec(int(c.run_id), str(c.label), kind, device, rng, str(colour),
                             getattr(c, "metric", "") or default_metric, align, scale, offset, values))
    return out


def time_base(overlay: Any) -> TimeBase:
    """The time base of the overlay's chart (its time axis), for the table's times."""
    axis = getattr(overlay, "time_axis", None)
    if axis is None:
        return TimeBase()
    return TimeBase(axis.mode, axis.clock0)


class ResultsTable(QWidget):
    """Figures per overlay curve for the visible range. ``attach(overlay)`` follows an OverlayPlot;
    ``update_from(ws, curves, t_range, cap)`` recomputes for given curves."""

    updated = Signal()  # the table shows new figures

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.ws_path: Path | None = None
        self.overlay: Any = None
        self.rows: list[RangeRow] = []
        self.lines: list[Line] = []
        self.cap: float | None = None
        self.loading = False
        self._generation = 0
        self._jobs: list[Any] = []
        self._last: tuple[Any, ...] | None = None
        self._cache: dict[Any, Any] = {}  # loaded series and histograms, kept while only the range changes

        self.scope = QLabel(" ")
        self.scope.setWordWrap(True)  # beside the buttons in a narrow view
        self.scope.setToolTip("The figures cover the part of each run that is visible in the chart: zoom the chart "
                              "to see the statistics of a range")
        self.threshold = QDoubleSpinBox(minimum=0.1, maximum=1e6, value=DEFAULT_THRESHOLD_MS, decimals=1,
                                        suffix=" ms")
        self.threshold.setToolTip("Latency threshold for the vscsiStats share of I/Os completed within it")
        self.threshold.valueChanged.connect(lambda _v: self.refresh())
        self.threshold_label = QLabel("Latency threshold")
        self.per_collection = QCheckBox("Per collection")
        self.per_collection.setToolTip("vscsiStats: a line per collection under each VM disk (which VM suffered, "
                                       "when)")
        self.per_collection.toggled.connect(lambda _b: self._show())
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the table as tab-separated text with a header (pastes into Excel); "
                                    "Ctrl+C copies the selected lines")
        self.copy_button.clicked.connect(lambda: self.copy(selection=False))
        self.export_button = QPushButton("Export CSV…")
        self.export_button.clicked.connect(lambda: self.export_csv())

        self.table = QTableWidget(0, 0)
        self.table.setObjectName("results")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.copy_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self.table)
        self.copy_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.copy_shortcut.activated.connect(lambda: self.copy(selection=True))

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(self.scope)
        bar.addStretch(1)
        for w in (self.threshold_label, self.threshold, self.per_collection, self.copy_button, self.export_button):
            bar.addWidget(w)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(bar)
        lay.addWidget(self.table, 1)
        self._debounce = QTimer(self, singleShot=True, interval=150)
        self._debounce.timeout.connect(self.refresh)
        self._vscsi_controls(False)

    # ---- following the overlay --------------------------------------------------------------------
    def attach(self, overlay: Any) -> None:
        """Follow an OverlayPlot: its curves, visible range and cap line."""
        self.overlay = overlay
        overlay.curves_changed.connect(self._curves_changed)
        if hasattr(overlay, "range_changed"):
            overlay.range_changed.connect(lambda *_a: self.schedule())
        vb = overlay.plot.getPlotItem().vb
        vb.sigXRangeChanged.connect(lambda *_a: self.schedule())
        if hasattr(overlay, "cap"):
            overlay.cap.valueChanged.connect(lambda *_a: self.schedule())
        self.schedule()

    @property
    def busy(self) -> bool:
        """A computation is pending or running."""
        return self.loading or self._debounce.isActive()

    def _curves_changed(self) -> None:
        self._cache = {}  # the overlay reloaded: runs may have changed (interval set, deleted, re-imported)
        self.schedule()

    def schedule(self) -> None:
        """Recompute soon (zooming fires many range changes: one computation after they stop)."""
        self._debounce.start()

    def _overlay_range(self) -> tuple[float, float] | None:
        ov = self.overlay
        if hasattr(ov, "visible_range"):
            return ov.visible_range()
        vb = ov.plot.getPlotItem().vb
        if vb.autoRangeEnabled()[0]:
            return None
        x0, x1 = vb.viewRange()[0]
        return float(x0), float(x1)

    def _overlay_cap(self) -> float | None:
        ov = self.overlay
        if hasattr(ov, "cap_value"):
            return ov.cap_value()
        v = ov.cap.value()
        return float(v) if v > 0 else None

    def refresh(self) -> None:
        """Recompute from the attached overlay (or the last ``update_from``)."""
        if getattr(self, "_shut", False):
            return
        ov = self.overlay
        if ov is not None:
            if getattr(ov, "loading", False):
                self.loading = True  # the overlay draws next and says so (curves_changed)
                return
            self.update_from(ov.ws, ov.curves, self._overlay_range(), self._overlay_cap())
        elif self._last is not None:
            self.update_from(*self._last)

    # ---- computing ---------------------------------------------------------------------------------
    def update_from(self, ws_path_or_ws: Any, curves: list[Any], t_range: tuple[float, float] | None,
                    cap: float | None) -> None:
        """Recompute the rows for ``curves`` over ``t_range`` (plot time axis; None = the whole runs) with
        the cap line ``cap`` (None = no cap), on a worker thread."""
        from app.ui.workers import JobThread

        self._last = (ws_path_or_ws, curves, t_range, cap)
        path = Path(getattr(ws_path_or_ws, "path", ws_path_or_ws))
        if path != self.ws_path or self.overlay is None:
            self._cache = {}
        self.ws_path = path
        cache = self._cache
        metric = self.overlay.metric_box.currentText() if self.overlay is not None else "IOPS (total)"
        specs = curve_specs(curves, t_range, metric)
        threshold = float(self.threshold.value())
        self._generation += 1
        gen = self._generation
        self.cap = cap
        self.loading = True
        self.scope.setText("computing…")

        # the worker's own connection to the open workspace (no reopening), or the file given by path
        reader = ws_path_or_ws.cursor() if hasattr(ws_path_or_ws, "cursor") else None

        def job(_state: Any) -> list[RangeRow]:
            if not specs:
                return []
            with reader if reader is not None else Workspace(path) as ws:
                return compute_rows(ws, specs, cap, threshold, cache)

        self._jobs = [j for j in self._jobs if j.isRunning()]
        jt = JobThread(job, self, connections=[reader.con] if reader is not None else [])
        jt.done.connect(lambda res, gen=gen, t_range=t_range: self._done(res, gen, t_range))
        self._jobs.append(jt)
        jt.start()

    def _done(self, result: Any, gen: int, t_range: tuple[float, float] | None) -> None:
        if gen != self._generation or getattr(self, "_shut", False):  # a newer one, or stopped by the window closing
            return
        self.loading = False
        if isinstance(result, Exception):
            self.rows = []
            self.scope.setText(f"could not compute the figures: {result}")
            self._show()
            raise result  # a crash is never hidden
        self.rows = result
        if not self.rows:
            self.scope.setText("select runs with I/O over time (iostat, sar, nmon, perfmon, esxtop, vscsiStats...) to "
                               "see their figures")
        elif t_range is None:
            self.scope.setText("Figures of the whole runs (zoom the chart for a part of them)")
        else:
            base = self.base()
            unit = " s" if base.unit == "s" else ""
            self.scope.setText(f"Figures of the visible range: {base.text(t_range[0])}–{base.text(t_range[1])}{unit} "
                               "of the chart")
        self._show()
        self.updated.emit()

    def shutdown(self) -> None:
        """The window is closing: start nothing more, and wait for computations still running."""
        self._shut = True
        self._debounce.stop()
        for j in self._jobs:
            if j.isRunning():
                j.stop()

    # ---- showing -----------------------------------------------------------------------------------
    def _vscsi_controls(self, on: bool) -> None:
        for w in (self.threshold_label, self.threshold, self.per_collection):
            w.setVisible(on)

    def columns(self) -> list[Any]:
        # the metric the rows were computed for (the chart may be switching to another)
        return visible_columns(self.rows, self.cap, self.rows[0].spec.metric if self.rows else self._metric())

    def _metric(self) -> str:
        return self.overlay.metric_box.currentText() if self.overlay is not None else "IOPS (total)"

    def base(self) -> TimeBase:
        """The chart's time base: the table prints its times as the chart's axis does."""
        return time_base(self.overlay)

    def _show(self) -> None:
        cols = self.columns()
        self._vscsi_controls(any(has(r.spec.kind, LATENCY_HISTOGRAMS) for r in self.rows))
        self.lines = table_lines(self.rows, cols, self.per_collection.isChecked(), self.base())
        t = self.table
        t.setUpdatesEnabled(False)
        t.clear()
        t.setColumnCount(len(cols))
        t.setRowCount(len(self.lines))
        heads = headers(cols, float(self.threshold.value()), self.base())
        for j, (c, h) in enumerate(zip(cols, heads)):
            item = QTableWidgetItem(two_lines(h))
            item.setToolTip(c.tooltip)
            t.setHorizontalHeaderItem(j, item)
        italic = QFont()
        italic.setItalic(True)
        for i, ln in enumerate(self.lines):
            for j, (c, text) in enumerate(zip(cols, ln.display)):
                item = QTableWidgetItem(text)
                if c.kind in NUMERIC_KINDS:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if j < len(ln.tooltips) and ln.tooltips[j]:
                    item.setToolTip(ln.tooltips[j])
                if ln.kind != "curve":
                    item.setFont(italic)
                if j == 0 and ln.kind == "curve" and ln.colour:
                    item.setData(Qt.ItemDataRole.DecorationRole, _swatch(ln.colour))
                if ln.kind == "curve" and ln.row is not None and ln.row.error and c.key == "range":
                    item.setForeground(QBrush(QColor(ERROR_COLOURS[theme.current() == "dark"])))
                t.setItem(i, j, item)
        t.setUpdatesEnabled(True)

    def recolour(self) -> None:
        """The table in the theme now in force (a theme switch)."""
        if self.rows:
            self._show()

    # ---- copy, export, render ----------------------------------------------------------------------
    def export_rows(self, selection: bool = False) -> list[list[str]]:
        """Header + lines as exported (unformatted numbers); ``selection``: the selected lines only (all when
        none is selected)."""
        cols = self.columns()
        body = [ln.export for ln in self.lines]
        if selection:
            picked = sorted({ix.row() for ix in self.table.selectionModel().selectedIndexes()})
            if picked:
                body = [body[i] for i in picked if i < len(body)]
        return [export_header(cols, float(self.threshold.value()))] + body

    def copy(self, selection: bool = False) -> str:
        text = to_tsv(self.export_rows(selection))
        QGuiApplication.clipboard().setText(text)
        return text

    def export_csv(self, path: str | None = None) -> str | None:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export the results table", "results.csv", "CSV (*.csv)")
            if not path:
                return None
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(self.export_rows())
        return path

    def table_height(self, width: float) -> float:
        """The height ``render_table`` needs at ``width`` (for an export that puts the table under the chart)."""
        from PySide6.QtGui import QFontMetricsF

        cols = self.columns()
        if not cols:
            return 0.0
        heads = headers(cols, float(self.threshold.value()), self.base())
        bold = QFont(self.font())
        bold.setBold(True)
        fm, fmb = QFontMetricsF(self.font()), QFontMetricsF(bold)
        total = sum(max([fmb.horizontalAdvance(heads[j]) + 2] + [fm.horizontalAdvance(ln.display[j]) + 2
                                                                 for ln in self.lines]) + 12 + (14 if j == 0 else 0)
                    for j in range(len(cols)))
        scale = min(1.0, width / total) if total else 1.0
        return (len(self.lines) + 1) * (fm.height() + 6) * scale + 2

    def render_table(self, painter: QPainter, rect: QRectF | Any) -> None:
        """Draw the table (header, lines, colour swatches) into ``rect``, shrinking the text to fit its width:
        for the chart export, which puts the table beneath the chart."""
        rect = QRectF(rect)
        cols = self.columns()
        heads = headers(cols, float(self.threshold.value()), self.base())
        grid = [heads] + [ln.display for ln in self.lines]
        if not cols:
            return
        pal = QApplication.palette() if QApplication.instance() else None
        fg = pal.text().color() if pal else QColor("black")
        base = pal.base().color() if pal else QColor("white")
        font = QFont(self.font())
        painter.save()
        try:
            bold = QFont(font)
            bold.setBold(True)
            painter.setFont(bold)
            fmb = painter.fontMetrics()
            painter.setFont(font)
            fm = painter.fontMetrics()
            pad, sw = 6.0, 14.0
            widths = [max([fmb.horizontalAdvance(heads[j]) + 2] + [fm.horizontalAdvance(r[j]) + 2 for r in grid[1:]])
                      + 2 * pad + (sw if j == 0 else 0) for j in range(len(cols))]
            total = sum(widths)
            scale = min(1.0, rect.width() / total) if total else 1.0
            row_h = fm.height() + 6
            need = row_h * len(grid)
            scale = min(scale, rect.height() / need) if need else scale
            painter.translate(rect.left(), rect.top())
            painter.scale(scale, scale)
            painter.fillRect(QRectF(0, 0, total, need), base)
            y = 0.0
            for i, r in enumerate(grid):
                x = 0.0
                painter.setFont(bold if i == 0 else font)
                line = self.lines[i - 1] if i else None
                if line is not None and line.kind != "curve":
                    f2 = QFont(font)
                    f2.setItalic(True)
                    painter.setFont(f2)
                for j, text in enumerate(r):
                    cell = QRectF(x + pad, y, widths[j] - 2 * pad, row_h)
                    if j == 0 and line is not None and line.kind == "curve" and line.colour:
                        painter.fillRect(QRectF(x + pad, y + row_h / 2 - 5, 10, 10), QColor(line.colour))
                        cell.adjust(sw, 0, 0, 0)
                    align = Qt.AlignmentFlag.AlignVCenter | (
                        Qt.AlignmentFlag.AlignRight if i and cols[j].kind in NUMERIC_KINDS else
                        Qt.AlignmentFlag.AlignLeft)
                    painter.setPen(fg)
                    painter.drawText(cell, int(align), text)
                    x += widths[j]
                y += row_h
                painter.setPen(QPen(QColor(128, 128, 128, 110), 0))
                painter.drawLine(0, int(y), int(total), int(y))
        finally:
            painter.restore()


def export_chart_with_table(chart: QWidget, table: ResultsTable, path: str) -> None:
    """The chart as on screen with the results table beneath it: SVG (vector, by the file's extension) or PNG at
    twice the resolution."""

    w, h = chart.width(), chart.height()
    th = int(table.table_height(w)) + 8 if table.lines else 0
    if path.lower().endswith(".svg"):
        from app.ui.svg_export import export_svg

        export_svg(chart, path, "StormScope overlay and results", h + th,
                   (lambda p: table.render_table(p, QRectF(4, h + 4, w - 8, th - 8))) if th else None,
                   QApplication.palette().base().color())
        return
    from PySide6.QtGui import QImage

    img = QImage(w * 2, (h + th) * 2, QImage.Format.Format_ARGB32)
    img.fill(QApplication.palette().base().color())
    painter = QPainter(img)
    try:
        painter.scale(2, 2)
        _render(chart, painter)
        if th:
            table.render_table(painter, QRectF(4, h + 4, w - 8, th - 8))
    finally:
        painter.end()
    img.save(path)


def _render(widget: QWidget, painter: QPainter) -> None:
    """A widget as on screen into ``painter`` at (0, 0) (a QGraphicsView, like a pyqtgraph chart, takes a target
    rectangle instead of a point)."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QGraphicsView

    if isinstance(widget, QGraphicsView):
        widget.render(painter, QRectF(0, 0, widget.width(), widget.height()))
    else:
        widget.render(painter, QPoint(0, 0))
