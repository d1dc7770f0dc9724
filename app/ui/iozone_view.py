"""IOzone view: bars per test for the selected runs (single vs multi-stream, Ceph vs local: which is faster,
by how much), and one run's file-size x record-size matrix for one test as a heatmap.

IOzone prints kB/s with 1 kB = 1,024 bytes; the view shows MB/s = kB/s / 1,024 (the same binary units)."""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer
from PySide6.QtGui import QCursor, QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.safe_text import shown, shown_html
from app.workspace import Workspace, has_table
from parsers.kinds import THROUGHPUT_GRID, has

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#e377c2"]
KB_PER_MB = 1024  # IOzone's kB is 1,024 bytes; MB here is 1,024 of them
# IOzone's own order of tests (its table columns, then the throughput-only ones)
TEST_ORDER = ["write", "rewrite", "read", "reread", "random_read", "random_write", "backward_read", "record_rewrite",
              "stride_read", "fwrite", "frewrite", "fread", "freread", "mixed", "pwrite", "repwrite", "pread",
              "repread", "pwritev", "repwritev", "preadv", "repreadv"]
TEST_NAMES = {"reread": "re-read", "backward_read": "backward read", "mixed": "mixed workload",
              "frewrite": "re-fwrite", "freread": "re-fread", "repwrite": "re-pwrite", "repread": "re-pread",
              "repwritev": "re-pwritev", "repreadv": "re-preadv"}
TICK_GAP_PX = 8  # least room between two tick labels


def test_name(test: str) -> str:
    return TEST_NAMES.get(test, test.replace("_", " "))


def _order(test: str) -> tuple[int, str]:
    return (TEST_ORDER.index(test) if test in TEST_ORDER else len(TEST_ORDER), test)


def rate_text(mb_s: float) -> str:
    """MB/s with thousands separators and no more digits than the value needs."""
    if mb_s >= 100 or mb_s == 0:
        return f"{mb_s:,.0f}"
    if mb_s >= 10:
        return f"{mb_s:,.1f}"
    return f"{mb_s:,.3g}"


def size_text(kb: int) -> str:
    """An IOzone file or record size (kB) as IOzone's own suffixes: 4k, 512k, 16M, 4G."""
    if kb >= 1024 * 1024 and kb % (1024 * 1024) == 0:
        return f"{kb // (1024 * 1024)}G"
    if kb >= 1024 and kb % 1024 == 0:
        return f"{kb // 1024}M"
    return f"{kb}k"


def log_tick_text(v: float) -> str:
    """The real value at log10 position v (a 1-2-3-5 step): as many decimals as the step needs (0.5, 20, 5,000)."""
    return f"{10 ** v:,.{max(0, -math.floor(v + 1e-9))}f}"


def _tick_font() -> QFont:
    font = QFont(QApplication.font())
    font.setPointSizeF(max(7.0, font.pointSizeF() * 0.9))
    return font


class RateAxis(pg.AxisItem):
    """A MB/s axis: thousands separators, never 2e+06; in log mode the real values at 1-2-5 steps per decade,
    as many as fit without touching."""

    def tickStrings(self, values: list[float], scale: float, spacing: float | None) -> list[str]:  # noqa: N802
        if self.logMode:
            return [log_tick_text(v) for v in values]
        places = max(0, math.ceil(-math.log10(spacing * scale))) if spacing else 0
        return [f"{v * scale:,.{places}f}" for v in values]

    def logTickValues(self, minVal: float, maxVal: float, size: float,  # noqa: N802, N803
                      stdTicks: list) -> list:  # noqa: N803
        lo, hi = sorted((minVal, maxVal))
        metrics = QFontMetricsF(self.style["tickFont"] or QApplication.font())
        per_px = size / max(hi - lo, 1e-9)
        chosen: list[float] = []
        for steps in ((1, 2, 5), (1, 3), (1,)):
            vals = [d + math.log10(s) for d in range(math.floor(lo), math.ceil(hi) + 1) for s in steps]
            vals = [v for v in vals if lo - 1e-9 <= v <= hi + 1e-9]
            ext = [metrics.horizontalAdvance(log_tick_text(v)) for v in vals]
            if all((b - a) * per_px >= (ea + eb) / 2 + TICK_GAP_PX
                   for a, b, ea, eb in zip(vals, vals[1:], ext, ext[1:])):
                chosen = vals
                break
        if not chosen:  # not even the decades fit: every other decade
            decades = [float(d) for d in range(math.ceil(lo), math.floor(hi) + 1)]
            chosen = decades[::2] or decades
        minor = [d + math.log10(s) for d in range(math.floor(lo), math.ceil(hi) + 1) for s in range(1, 10)]
        minor = [v for v in minor if lo <= v <= hi and all(abs(v - c) > 1e-9 for c in chosen)]
        return [(1.0, chosen), (None, minor)]

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803
        ticks = super().tickValues(minVal, maxVal, size)
        if self.logMode:
            return ticks
        # a level whose labels would touch is dropped (pyqtgraph only weighs the total text length)
        metrics = QFontMetricsF(self.style["tickFont"] or QApplication.font())
        lo, hi = sorted((minVal, maxVal))
        per_px = size / max(hi - lo, 1e-12)
        keep: list[tuple[float | None, list[float]]] = []
        for spacing, vals in ticks:
            width = max((metrics.horizontalAdvance(s) for s in self.tickStrings(vals, self.scale, spacing)),
                        default=0)
            if keep and spacing * per_px < width + TICK_GAP_PX:
                break
            keep.append((spacing, vals))
        return keep


class CategoryAxis(pg.AxisItem):
    """Named categories at 0.5, 1.5, ... (heatmap cells) or at 0, 1, ... (bars): shows every n-th label so that
    no two labels overlap at the axis's current length."""

    def __init__(self, orientation: str, offset: float = 0.5, **kw: Any):
        super().__init__(orientation, **kw)
        self.labels: list[str] = []
        self.offset = offset

    def set_labels(self, labels: list[str]) -> None:
        self.labels = list(labels)
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list:  # noqa: N802, N803
        if not self.labels:
            return []
        lo, hi = sorted((minVal, maxVal))
        per_cell = size / max(hi - lo, 1e-9)
        metrics = QFontMetricsF(self.style["tickFont"] or QApplication.font())
        if self.orientation in ("left", "right"):
            need = metrics.height() + 2
        else:
            need = max(metrics.horizontalAdvance(s) for s in self.labels) + TICK_GAP_PX
        step = max(1, math.ceil(need / max(per_cell, 1e-9)))
        idx = [i for i in range(0, len(self.labels), step) if lo <= i + self.offset <= hi]
        return [(float(step), [i + self.offset for i in idx])]

    def tickStrings(self, values: list[float], scale: float, spacing: float | None) -> list[str]:  # noqa: N802
        out = []
        for v in values:
            i = round(v - self.offset)
            out.append(self.labels[i] if 0 <= i < len(self.labels) else "")
        return out


class IozoneView(QWidget):
    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.series: dict[str, dict[str, float]] = {}
        self.tests: list[str] = []
        self.bar_items: list[pg.BarGraphItem] = []
        self.cache_cells: list[tuple[int, int]] = []
        font = _tick_font()

        self.log = QCheckBox("Log scale")
        self.log.setToolTip("Draw the bars on a logarithmic MB/s axis (bars start at the decade below the "
                            "slowest result)")
        self.log.toggled.connect(self.reload)
        self.matrix_run = QComboBox()
        self.matrix_run.setToolTip("The selected run whose file-size x record-size matrix is shown")
        self.matrix_run.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.matrix_run.currentIndexChanged.connect(self._run_chosen)
        self.test = QComboBox()
        self.test.currentIndexChanged.connect(self._draw_matrix)
        self.message = QLabel("Select IOzone runs in the run list.")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)  # at the top when alone

        self.rate_axis = RateAxis("bottom")
        self.test_axis = CategoryAxis("left", offset=0.0)
        for ax in (self.rate_axis, self.test_axis):
            ax.setStyle(tickFont=font)
        self.bars = pg.PlotWidget(axisItems={"bottom": self.rate_axis, "left": self.test_axis})
        self.bars.setMenuEnabled(False)
        self.bars.showGrid(x=True, alpha=0.25)
        self.bars.getPlotItem().invertY(True)  # IOzone's first test (write) at the top
        # the legend sits in the plot's layout under the axis label, never over the bars
        self.legend = pg.LegendItem(colCount=2, frame=False, labelTextSize="9pt", horSpacing=14)
        self.bars.getPlotItem().layout.addItem(self.legend, 4, 0, 1, 2)  # under the test names and the bars
        self.bars.getPlotItem().getViewBox().sigResized.connect(self._fit_legend)
        self.bars.scene().sigMouseMoved.connect(self._hover)

        self.file_axis = CategoryAxis("bottom")
        self.record_axis = CategoryAxis("left")
        for ax in (self.file_axis, self.record_axis):
            ax.setStyle(tickFont=font, hideOverlappingLabels=24)  # the first and last sizes may reach the corner
        self.matrix = pg.PlotWidget(axisItems={"bottom": self.file_axis, "left": self.record_axis})
        self.matrix.setMenuEnabled(False)
        self.matrix.getPlotItem().hideAxis("top")
        # the matrix's title is a label above it: it wraps when the panel is narrow instead of widening the plot
        self.matrix_title = QLabel("")
        self.matrix_title.setWordWrap(True)
        self.matrix_title.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.bars_title = QLabel("<b>Best throughput per test</b> · MB/s, one bar per run and stream count")
        self.bars_title.setWordWrap(True)
        self.bars_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image: pg.ImageItem | None = None
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("viridis"), label="MB/s",
                                        interactive=False, width=14, colorMapMenu=False)
        self.colorbar.axis.tickStrings = self.rate_axis_strings
        self.colorbar.axis.setStyle(tickFont=font)
        self.colorbar.axis.setWidth(QFontMetricsF(font).horizontalAdvance("00,000") + 12)  # 45 px cuts "2,000"
        self._colorbar_placed = False
        self.cache_note = QLabel("")
        self.cache_note.setWordWrap(True)

        bar = QHBoxLayout()
        bar.addWidget(self.log)
        bar.addStretch(1)
        for w in (QLabel("Matrix: run"), self.matrix_run, QLabel("test"), self.test):
            bar.addWidget(w)
        left = QWidget()
        llay = QVBoxLayout(left)
        llay.setContentsMargins(0, 0, 0, 0)
        llay.addWidget(self.bars_title)
        llay.addWidget(self.bars, 1)
        right = QWidget()
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        rlay.addWidget(self.matrix_title)
        rlay.addWidget(self.matrix, 1)
        rlay.addWidget(self.cache_note)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([5000, 4000])  # the same shares from the start (sizes scale to the width)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(self.message)
        lay.addWidget(self.splitter, 1)
        self._redraw_pending = False
        self.reload()

    @staticmethod
    def rate_axis_strings(values: list[float], scale: float, spacing: float | None) -> list[str]:
        places = max(0, math.ceil(-math.log10(spacing * scale))) if spacing else 0
        return [f"{v * scale:,.{places}f}" for v in values]

    # ---- theme --------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt name)
        # the window's theme sets the palette first and pyqtgraph's colours next: redraw once both are in
        if event.type() == QEvent.Type.PaletteChange and not self._redraw_pending:
            self._redraw_pending = True
            QTimer.singleShot(0, self, self._theme_changed)  # cancelled if the view is gone first
        super().changeEvent(event)

    def _theme_changed(self) -> None:
        self._redraw_pending = False
        self.reload()

    # ---- data ---------------------------------------------------------------------------------
    def _has_table(self) -> bool:
        return has_table(self.ws, "iozone_results")

    def set_runs(self, run_ids: list[int]) -> None:
        runs = self.ws.runs_by_id(run_ids)  # one query for the whole selection
        self.run_ids = [r for r in run_ids if has((runs[r].kind if r in runs else None), THROUGHPUT_GRID)]
        self.reload()

    def summary(self) -> dict[str, dict[str, float]]:
        """Per series (a run and its number of streams), per test: the best kB/s over the run's file and record
        sizes (auto mode) or the children's throughput (throughput mode)."""
        if not self.run_ids or not self._has_table():
            return {}
        rows = self.ws.con.execute(
            """SELECT r.run_id, r.name, coalesce(i.threads, 1) AS streams, i.test, max(i.kb_s)
               FROM iozone_results i JOIN runs r USING (run_id)
               WHERE list_contains(?, i.run_id) AND i.kb_s IS NOT NULL
               GROUP BY ALL ORDER BY r.run_id, streams, i.test""", [self.run_ids]).fetchall()
        names: dict[str, set[int]] = {}
        for run_id, name, *_ in rows:
            names.setdefault(name, set()).add(run_id)
        out: dict[str, dict[str, float]] = {}
        for run_id, name, streams, test, v in rows:
            label = shown(name) if len(names[name]) == 1 else f"{shown(name)} (run {run_id})"
            label += f" · {streams} stream" + ("s" if streams != 1 else "")
            out.setdefault(label, {})[test] = v
        return out

    def _matrix_runs(self) -> list[tuple[int, str]]:
        if not self.run_ids or not self._has_table():
            return []
        return [(r, n) for r, n in self.ws.con.execute(
            """SELECT DISTINCT r.run_id, r.name FROM iozone_results i JOIN runs r USING (run_id)
               WHERE list_contains(?, i.run_id) AND i.mode = 'auto' AND i.file_kb IS NOT NULL
               AND i.record_kb IS NOT NULL AND i.kb_s IS NOT NULL ORDER BY r.run_id""", [self.run_ids]).fetchall()]

    # ---- bars ---------------------------------------------------------------------------------
    def reload(self) -> None:
        fg = pg.getConfigOption("foreground")
        plot = self.bars.getPlotItem()
        for it in self.bar_items:
            plot.removeItem(it)
        self.bar_items = []
        self.legend.clear()
        self.legend.setLabelTextColor(fg)
        self.series = self.summary()
        self.tests = sorted({t for d in self.series.values() for t in d}, key=_order)
        self._fill_matrix_runs()
        log = self.log.isChecked()
        plot.setLabel("bottom", "MB/s" + (" (log scale)" if log else ""), color=fg)
        self.test_axis.set_labels([test_name(t) for t in self.tests])
        values = [v / KB_PER_MB for d in self.series.values() for v in d.values() if v > 0]
        self.splitter.setVisible(bool(values))  # no empty 0.1 ... 0.9 axes: the message says what to do
        self.log.setEnabled(bool(values))
        if not values:
            plot.setLogMode(x=False, y=False)
            self.message.setText("Select IOzone runs in the run list." if not self.run_ids else
                                 "The selected IOzone runs hold no kB/s results to compare.")
            return
        floor = 10 ** math.floor(math.log10(min(values)))
        n = len(self.series)
        height = 0.8 / n
        for k, (label, vals) in enumerate(self.series.items()):
            rows = [(i, vals[t] / KB_PER_MB) for i, t in enumerate(self.tests) if vals.get(t, 0) > 0]
            if not rows:
                continue
            y = np.array([i - 0.4 + height * (k + 0.5) for i, _ in rows])
            v = np.array([v for _, v in rows])
            # a log axis has no zero: its bars start at the decade below the slowest result
            x0 = np.full(len(v), math.log10(floor)) if log else np.zeros(len(v))
            width = np.log10(v) - x0 if log else v
            colour = PALETTE[k % len(PALETTE)]
            item = pg.BarGraphItem(x0=x0, y=y, width=width, height=height * 0.9, brush=colour,
                                   pen=pg.mkPen(colour), name=shown_html(label))
            plot.addItem(item)
            self.bar_items.append(item)
            self.legend.addItem(item, shown_html(label))
        self._fit_legend()
        if log:  # the view's range in log10 units before the axis turns logarithmic (10 ** 12000 overflows)
            plot.setXRange(math.log10(floor), math.log10(max(values)), padding=0.02)
        plot.setLogMode(x=log, y=False)
        plot.setYRange(-0.5, len(self.tests) - 0.5, padding=0)
        plot.enableAutoRange(x=True)
        runs = len(set(self.run_ids))
        self.message.setText(
            f"{runs} run(s), {n} series, {len(self.tests)} tests. Each bar is the run's best result for the test "
            "over all its file and record sizes (throughput runs: all streams together); hover a test for its "
            "figures. " + self._comparison())

    def hover_text(self, row: int) -> str:
        """One test's figures per series, each with how much slower it is than the fastest."""
        if not 0 <= row < len(self.tests):
            return ""
        t = self.tests[row]
        vals = [(s, d[t] / KB_PER_MB) for s, d in self.series.items() if d.get(t, 0) > 0]
        best = max((v for _, v in vals), default=0)
        lines = [test_name(t)]
        for s, v in vals:
            lines.append(f"{s}: {rate_text(v)} MB/s" + (" (fastest)" if v == best and len(vals) > 1 else
                                                        f" (fastest is {best / v:.2f}×)" if v < best else ""))
        return "\n".join(lines)

    def _hover(self, pos: Any) -> None:
        vb = self.bars.getPlotItem().getViewBox()
        text = ""
        if self.tests and vb.sceneBoundingRect().contains(pos):
            text = self.hover_text(round(vb.mapSceneToView(pos).y()))
        if text:
            QToolTip.showText(QCursor.pos(), text, self.bars)
        else:
            QToolTip.hideText()

    def _fit_legend(self) -> None:
        """As many legend columns as the names allow at the plot's width."""
        if not self.series:
            return
        metrics = QFontMetricsF(QFont(QApplication.font().family(), 9))
        widest = max(metrics.horizontalAdvance(s) for s in self.series) + 20 + 14 + 10
        avail = self.bars.getPlotItem().getViewBox().width() + self.test_axis.width()
        cols = max(1, min(len(self.series), int(avail // widest)))
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)
        # the legend's row keeps the height its entries need: a short chart shrinks the bars, never cuts the legend
        rows = -(-len(self.series) // cols)
        self.bars.getPlotItem().layout.setRowFixedHeight(4, rows * metrics.height() * 1.9 + 6)

    def _comparison(self) -> str:
        """Which series is fastest in how many tests, and by how much (median ratio to the next fastest)."""
        if len(self.series) < 2:
            return ""
        wins: dict[str, list[float]] = {}
        compared = 0
        for t in self.tests:
            vals = sorted(((d[t], s) for s, d in self.series.items() if d.get(t, 0) > 0), reverse=True)
            if len(vals) >= 2:
                compared += 1
                wins.setdefault(vals[0][1], []).append(vals[0][0] / vals[1][0])
        if not compared:
            return "No test ran in more than one series."
        parts = [f"{s} in {len(r)} (median {float(np.median(r)):.2f}× the next)"
                 for s, r in sorted(wins.items(), key=lambda kv: -len(kv[1]))]
        where = "the test" if compared == 1 else f"the {compared} tests"
        return f"Fastest in {where} more than one series ran: " + "; ".join(parts) + "."

    # ---- matrix -------------------------------------------------------------------------------
    def _fill_matrix_runs(self) -> None:
        runs = self._matrix_runs()
        current = self.matrix_run.currentData()
        self.matrix_run.blockSignals(True)
        self.matrix_run.clear()
        for run_id, name in runs:
            self.matrix_run.addItem(shown(name), run_id)
        i = self.matrix_run.findData(current)
        self.matrix_run.setCurrentIndex(i if i >= 0 else 0)
        self.matrix_run.blockSignals(False)
        self._fill_tests()

    def _run_chosen(self) -> None:
        self._fill_tests()

    def _fill_tests(self) -> None:
        run_id = self.matrix_run.currentData()
        tests: list[str] = []
        if run_id is not None:
            tests = sorted((t for (t,) in self.ws.con.execute(
                """SELECT DISTINCT test FROM iozone_results WHERE run_id = ? AND mode = 'auto'
                   AND file_kb IS NOT NULL AND record_kb IS NOT NULL AND kb_s IS NOT NULL""", [run_id]).fetchall()),
                           key=_order)
        current = self.test.currentData()
        self.test.blockSignals(True)
        self.test.clear()
        for t in tests:
            self.test.addItem(test_name(t), t)
        i = self.test.findData(current)
        if i < 0:
            i = max(0, self.test.findData("write"))
        self.test.setCurrentIndex(i)
        self.test.blockSignals(False)
        self._draw_matrix()

    def _draw_matrix(self) -> None:
        fg = pg.getConfigOption("foreground")
        plot = self.matrix.getPlotItem()
        plot.clear()
        self.image = None
        self.cache_cells = []
        run_id, test = self.matrix_run.currentData(), self.test.currentData()
        plot.setLabel("bottom", "file size", color=fg)
        plot.setLabel("left", "record size", color=fg)
        self.colorbar.setVisible(False)
        self.matrix.setVisible(run_id is not None and test is not None)
        self.matrix_run.setEnabled(self.matrix_run.count() > 0)
        self.test.setEnabled(self.test.count() > 0)
        if run_id is None or test is None:
            self.file_axis.set_labels([])
            self.record_axis.set_labels([])
            self.matrix_title.setText("No file-size x record-size matrix in the selected runs (IOzone's automatic "
                                      "mode makes one; throughput runs do not)" if self.run_ids else
                                      "File size x record size")
            self.cache_note.setText("")
            return
        rows = self.ws.con.execute(
            """SELECT file_kb, record_kb, kb_s, page_cache_likely FROM iozone_results WHERE run_id = ? AND test = ?
               AND mode = 'auto' AND file_kb IS NOT NULL AND record_kb IS NOT NULL AND kb_s IS NOT NULL""",
            [run_id, test]).fetchall()
        name = self.matrix_run.currentText()
        files = sorted({r[0] for r in rows})
        recs = sorted({r[1] for r in rows})
        img = np.full((len(files), len(recs)), np.nan)
        cached = np.zeros(img.shape, dtype=bool)
        for f, rec, v, pc in rows:
            img[files.index(f), recs.index(rec)] = v / KB_PER_MB
            cached[files.index(f), recs.index(rec)] = bool(pc)
        lo, hi = float(np.nanmin(img)), float(np.nanmax(img))
        if hi <= lo:
            hi = lo + 1
        self.image = pg.ImageItem(img, levels=(lo, hi))
        plot.addItem(self.image)
        if not self._colorbar_placed:
            self.colorbar.setImageItem(self.image, insert_in=plot)
            self._colorbar_placed = True
        else:
            self.colorbar.setImageItem(self.image)
        self.colorbar.setLevels((lo, hi))
        self.colorbar.setVisible(True)
        self.colorbar.getAxis("left").setLabel("MB/s", color=fg)
        self.file_axis.set_labels([size_text(f) for f in files])
        self.record_axis.set_labels([size_text(r) for r in recs])
        self.matrix_title.setText(f"<b>{html.escape(name)}</b> · {test_name(test)}: MB/s by file size and record size")
        plot.setXRange(0, len(files), padding=0)
        plot.setYRange(0, len(recs), padding=0)
        # results the page cache likely served: a ring on the cell, light on dark colours and dark on light
        self.cache_cells = [(int(i), int(j)) for i, j in zip(*np.nonzero(cached))]
        if self.cache_cells:
            dark = [(img[i, j] - lo) / (hi - lo) < 0.6 for i, j in self.cache_cells]
            plot.addItem(pg.ScatterPlotItem(
                x=[i + 0.5 for i, _ in self.cache_cells], y=[j + 0.5 for _, j in self.cache_cells], symbol="o",
                size=7, brush=None, pen=[pg.mkPen("w" if d else "k", width=1.2) for d in dark]))
        self.cache_note.setText(self._cache_text(run_id, len(self.cache_cells), int(np.count_nonzero(~np.isnan(img))),
                                                 test))

    def _cache_text(self, run_id: int, n_cached: int, n_cells: int, test: str) -> str:
        pc: dict[str, Any] = self.ws.meta_of(run_id).obj("page_cache")
        ram = pc.get("ram_gb")
        empty = (f" Blank cells: sizes IOzone did not run for {test_name(test)}." if n_cells < self.image_cells()
                 else "")
        if pc.get("likely") is False and not ram:
            return "IOzone bypassed the page cache (O_DIRECT): every cell measures the storage." + empty
        if not ram:
            return ("The host's RAM was not given when this run was imported, so results the page cache may "
                    "have served are not marked." + empty)
        if n_cached:
            return (f"Ringed cells ({n_cached} of {n_cells}): the file is smaller than the host's RAM "
                    f"({ram:g} GB), so the page cache likely served them: those figures (re-read and re-write above "
                    "all) measure memory more than the disk." + empty)
        return f"Every file is at least the host's RAM ({ram:g} GB): no cell is likely served from the page cache." \
            + empty

    def image_cells(self) -> int:
        return 0 if self.image is None or self.image.image is None else int(self.image.image.size)


def tick_label_rects(axis: pg.AxisItem) -> list[tuple[QRectF, str]]:
    """The tick labels an axis draws at its current size, with their rectangles (for tests and checks)."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(max(1, int(axis.width())), max(1, int(axis.height())), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        if axis.style["tickFont"] is not None:
            painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [(rect, text) for rect, _, text in specs[2]]
