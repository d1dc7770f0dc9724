"""Overlay plot: several runs on one aligned time axis (pyqtgraph).

Curves are downsampled (peak-preserving) and clipped to the view, so 20 runs of 100 k points
stay fluid. A crosshair shows the value of every curve under the mouse; curves can be shifted
along the time axis by dragging them with Shift held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from app.workspace import Workspace

# metric label -> SQL expression over iostat_samples (summed over the selected devices)
METRICS: dict[str, tuple[str, str, str]] = {
    "IOPS (total)": ("coalesce(r_s + w_s + coalesce(d_s, 0) + coalesce(f_s, 0), tps)", "sum", "IO/s"),
    "IOPS (read)": ("r_s", "sum", "IO/s"),
    "IOPS (write)": ("w_s", "sum", "IO/s"),
    "Throughput (kB/s)": ("coalesce(rkb_s + wkb_s + coalesce(dkb_s, 0), kb_s, rkb_s + wdkb_s)", "sum", "kB/s"),
    "await (ms)": ("coalesce(await_ms, (r_await_ms * r_s + w_await_ms * w_s) / nullif(r_s + w_s, 0))", "avg", "ms"),
    "%util": ("util_pct", "max", "%"),
    "Queue (aqu-sz)": ("aqu_sz", "sum", "requests"),
}
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]

# whole disks only: partitions of a listed disk, device-mapper/md volumes and -g groups would count twice
WHOLE_DISKS = """
    NOT is_group AND NOT regexp_matches(device, '^(dm-|md)')
    AND NOT EXISTS (SELECT 1 FROM iostat_samples p WHERE p.run_id = s.run_id AND p.sample_idx = s.sample_idx
                    AND s.device <> p.device AND starts_with(s.device, p.device)
                    AND regexp_matches(substr(s.device, length(p.device) + 1), '^p?[0-9]+$'))
"""


@dataclass
class Curve:
    run_id: int
    label: str
    t: np.ndarray
    y: np.ndarray
    offset: float = 0.0


def run_series(ws: Workspace, run_id: int, metric: str, device: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(t_s, value) of a run for a metric, since-boot report excluded, summed over whole disks."""
    expr, agg, _unit = METRICS[metric]
    where = "device = ?" if device else WHOLE_DISKS
    params: list[Any] = [run_id] + ([device] if device else [])
    rows = ws.con.execute(
        f"SELECT coalesce(t_s, sample_idx::DOUBLE), {agg}({expr}) FROM iostat_samples s "
        f"WHERE run_id = ? AND NOT since_boot AND {where} GROUP BY 1 ORDER BY 1", params).fetchall()
    if not rows:
        return np.zeros(0), np.zeros(0)
    arr = np.array(rows, dtype=float)
    return arr[:, 0], arr[:, 1]


def first_activity(t: np.ndarray, y: np.ndarray, threshold: float) -> float:
    above = np.nonzero(np.nan_to_num(y) > threshold)[0]
    return float(t[above[0]]) if above.size else 0.0


class OverlayPlot(QWidget):
    """Runs x metric on one time axis, aligned by start or by first activity."""

    curves_changed = Signal()

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.curves: list[Curve] = []
        self.items: list[pg.PlotDataItem] = []

        self.metric = QComboBox()
        self.metric.addItems(list(METRICS))
        self.align = QComboBox()
        self.align.addItems(["Align: run start", "Align: first activity"])
        self.activity = QDoubleSpinBox(minimum=0, maximum=1e9, value=150, suffix=" IO/s", decimals=0)
        self.activity.setToolTip("First activity = first interval above this many IOPS")
        self.cap = QDoubleSpinBox(minimum=0, maximum=1e12, value=0, decimals=0, specialValueText="no cap line")
        self.cap.setToolTip("Draw a horizontal cap / threshold line")
        self.normalise = QCheckBox("0–1 time")
        self.normalise.setToolTip("Normalised time: each run from 0 (start) to 1 (end)")
        for w in (self.metric, self.align):
            w.currentIndexChanged.connect(self.reload)
        self.activity.valueChanged.connect(self.reload)
        self.normalise.toggled.connect(self.reload)
        self.cap.valueChanged.connect(self._draw_cap)

        self.plot = pg.PlotWidget()
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", "time", units="s")
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.plot.setClipToView(True)
        self.plot.setDownsampling(auto=True, mode="peak")
        self.vline = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.cap_line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen("#c00", width=2,
                                                                              style=Qt.PenStyle.DashLine))
        self.cap_line.setVisible(False)
        self.plot.addItem(self.cap_line, ignoreBounds=True)
        self.readout = QLabel(" ")
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)

        bar = QHBoxLayout()
        for w in (QLabel("Metric"), self.metric, self.align, self.activity, self.normalise, QLabel("Cap"), self.cap):
            bar.addWidget(w)
        bar.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.readout)

    def set_runs(self, run_ids: list[int]) -> None:
        self.run_ids = [r for r in run_ids if (self.ws.run(r) or {}).get("kind") == "iostat"]
        self.reload()

    def reload(self) -> None:
        metric = self.metric.currentText()
        self.plot.clear()
        self.legend.clear()
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.plot.addItem(self.cap_line, ignoreBounds=True)
        self.curves, self.items = [], []
        for i, rid in enumerate(self.run_ids):
            run = self.ws.run(rid) or {}
            t, y = run_series(self.ws, rid, metric)
            if t.size == 0:
                continue
            if self.align.currentIndex() == 1:
                t = t - first_activity(t, y, self.activity.value())
            else:
                t = t - t[0]
            if self.normalise.isChecked() and t.size > 1 and t[-1] > t[0]:
                t = (t - t[0]) / (t[-1] - t[0])
            curve = Curve(rid, f"{run.get('name', rid)}", t, y)
            self.curves.append(curve)
            item = self.plot.plot(t, y, pen=pg.mkPen(PALETTE[i % len(PALETTE)], width=2), name=curve.label)
            self.items.append(item)
        unit = METRICS[metric][2]
        self.plot.setLabel("left", metric, units=None if unit == "%" else None)
        self.plot.setLabel("bottom", "normalised time (0–1)" if self.normalise.isChecked() else "time since alignment",
                           units=None if self.normalise.isChecked() else "s")
        self._draw_cap()
        self.plot.enableAutoRange()
        self.curves_changed.emit()

    def _draw_cap(self) -> None:
        v = self.cap.value()
        self.cap_line.setVisible(v > 0)
        if v > 0:
            self.cap_line.setValue(v)

    def values_at(self, x: float) -> list[tuple[str, float | None]]:
        """The value of every curve at time x (the interval that contains it)."""
        out = []
        for c in self.curves:
            t = c.t + c.offset
            i = int(np.searchsorted(t, x, side="right")) - 1
            out.append((c.label, float(c.y[i]) if 0 <= i < len(c.y) and not np.isnan(c.y[i]) else None))
        return out

    def _mouse_moved(self, pos: Any) -> None:
        vb = self.plot.getPlotItem().vb
        if not self.plot.sceneBoundingRect().contains(pos):
            return
        x = vb.mapSceneToView(pos).x()
        self.vline.setPos(x)
        parts = [f"t = {x:,.1f}"] + [f"{lab}: {'–' if v is None else f'{v:,.1f}'}" for lab, v in self.values_at(x)]
        self.readout.setText("   ".join(parts))

    def export(self, path: str) -> None:
        """Save the chart as PNG (2x resolution) or SVG (vector) by the file's extension."""
        from pyqtgraph.exporters import ImageExporter

        item = self.plot.getPlotItem()
        if path.lower().endswith(".svg"):
            from PySide6.QtCore import QRect, QSize
            from PySide6.QtGui import QPainter
            from PySide6.QtSvg import QSvgGenerator

            gen = QSvgGenerator()
            gen.setFileName(path)
            size = self.plot.size()
            gen.setSize(QSize(size.width(), size.height()))
            gen.setViewBox(QRect(0, 0, size.width(), size.height()))
            gen.setTitle("StormScope overlay")
            painter = QPainter(gen)
            try:
                self.plot.render(painter)
            finally:
                painter.end()
        else:
            ex = ImageExporter(item)
            ex.parameters()["width"] = max(1600, int(self.plot.width() * 2))
            ex.export(path)
