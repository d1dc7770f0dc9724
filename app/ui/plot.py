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
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.workspace import Workspace

# metric label -> column of the analysis series (app.analysis.series), or (iostat column, aggregate)
METRICS: dict[str, str | tuple[str, str]] = {
    "IOPS (total)": "iops", "IOPS (read)": "read_iops", "IOPS (write)": "write_iops",
    "Throughput (kB/s)": "kbs", "await (ms)": "await_ms",
    "%util (max over disks)": ("util_pct", "max"), "Queue (aqu-sz, summed)": ("aqu_sz", "sum"),
}
WHOLE_DISKS_LABEL = "whole disks"
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]


@dataclass
class Curve:
    run_id: int
    label: str
    t: np.ndarray
    y: np.ndarray
    offset: float = 0.0


def run_series(ws: Workspace, run_id: int, metric: str, device: str | None = None, align_mode: str = "start",
               activity_iops: float = 100.0, marker: str | None = None
               ) -> tuple[np.ndarray, np.ndarray, str, float]:
    """(time, value, note, offset) of a run on the analyses' time axis: whole disks, since-boot report
    left out, aligned like ``main.py analyze series --align``; ``offset`` is the seconds subtracted by
    the alignment. The note says what was assumed."""
    from app.analysis.histograms import AnalysisError
    from app.analysis.phases import list_markers
    from app.analysis.series import align, load_series

    s = load_series(ws, run_id, device)
    note = ""
    if align_mode in ("activity", "marker"):
        try:
            if align_mode == "activity":
                s = align(s, "activity", activity_iops=activity_iops)
            else:
                s = align(s, f"marker:{marker}", markers=list_markers(ws, run_id))
        except AnalysisError as e:
            note = f"{e}; aligned on its start"
    what = METRICS[metric]
    t = s.col("t_end_s")
    if isinstance(what, str):
        return t, s.col(what), note, float(s.offset_s)
    col, agg = what
    rows = dict(ws.con.execute(
        f"SELECT sample_idx, {agg}({col}) FROM iostat_samples WHERE run_id = ? AND list_contains(?, device) "
        "GROUP BY 1", [run_id, s.devices.used]).fetchall())
    y = np.array([rows.get(int(i)) for i in s.frame.get_column("sample_idx")], dtype=float)
    return t, y, note, float(s.offset_s)


# overlay metric -> per-sample figure of app.analysis.histograms.histo_summary (vscsiStats)
VSCSI_METRICS = {"IOPS (total)": "iops", "IOPS (read)": "read_iops", "IOPS (write)": "write_iops",
                 "Throughput (kB/s)": "kb_s", "await (ms)": "mean_latency_ms"}


def vscsi_series(ws: Workspace, run_id: int, name: str, metric: str) -> list[Any]:
    """One curve per VM disk of a vscsiStats run: the figure per collection from the histogram counts
    (IOPS = count / interval), at the end of each collection. Two VMs fighting over one RAID set overlay."""
    from app.analysis.histograms import AnalysisError, histo_summary

    key = VSCSI_METRICS.get(metric)
    if key is None:
        return [(run_id, name, np.zeros(0), np.zeros(0), f"{metric} is not in vscsiStats histograms", [])]
    try:
        summary = histo_summary(ws, run_id)
    except AnalysisError as e:
        return [(run_id, name, np.zeros(0), np.zeros(0), str(e), [])]
    by_dev: dict[str, list[tuple[float, float]]] = {}
    for smp in summary["samples"]:
        if smp.get("t_s") is None or smp.get(key) is None:
            continue
        interval = smp.get("interval_s") or 0.0
        by_dev.setdefault(smp["device"], []).append((float(smp["t_s"]) + interval, float(smp[key])))
    if not by_dev:
        return [(run_id, name, np.zeros(0), np.zeros(0),
                 "no interval: set it (run menu ▸ Set interval…) to get IOPS from the histogram counts", [])]
    out = []
    note = "; ".join(summary.get("notes") or [])
    for dev, pts in sorted(by_dev.items()):
        pts.sort()
        out.append((run_id, f"{name} · {dev}", np.array([p[0] for p in pts]), np.array([p[1] for p in pts]),
                    note, []))
        note = ""
    return out


class _DragBox(pg.ViewBox):
    """Shift + drag moves the curve nearest to the pointer along the time axis (manual alignment)."""

    def __init__(self, owner: OverlayPlot):
        super().__init__()
        self.owner = owner
        self._dragging: int | None = None

    def mouseDragEvent(self, ev: Any, axis: Any = None) -> None:  # noqa: N802 (pyqtgraph name)
        if not (ev.modifiers() & Qt.KeyboardModifier.ShiftModifier) or not self.owner.curves:
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        start = self.mapSceneToView(ev.buttonDownScenePos())
        here = self.mapSceneToView(ev.scenePos())
        last = self.mapSceneToView(ev.lastScenePos())
        if ev.isStart() or self._dragging is None:
            self._dragging = self.owner.nearest_curve(start.x(), start.y())
        if self._dragging is not None:
            self.owner.shift_curve(self._dragging, here.x() - last.x())
        if ev.isFinish():
            self._dragging = None


class OverlayPlot(QWidget):
    """Runs x metric on one time axis, aligned by start or by first activity."""

    curves_changed = Signal()

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.loading = False
        self.curves: list[Curve] = []
        self.items: list[pg.PlotDataItem] = []

        self.metric_box = QComboBox()
        self.metric_box.addItems(list(METRICS))
        self.device = QComboBox()
        self.device.setToolTip("Whole disks (partitions, dm/md/loop devices and -g groups left out, so nothing "
                               "counts twice), or one device of the selected runs")
        self.device.addItem(WHOLE_DISKS_LABEL)
        self.device.currentIndexChanged.connect(lambda _i: self.reload())
        self.align = QComboBox()
        self.align.addItems(["Align: run start", "Align: first activity", "Align: marker"])
        self.align.setToolTip("Shift + drag a curve to move it along the time axis by hand")
        self.marker = QLineEdit(placeholderText="marker name")
        self.marker.setToolTip("Align every run on its marker of this name (main.py marker add ...)")
        self.marker.setMaximumWidth(140)
        self.marker.editingFinished.connect(self.reload)
        self.activity = QDoubleSpinBox(minimum=0, maximum=1e9, value=100, suffix=" IO/s", decimals=0)
        self.activity.setToolTip("First activity = the first of 3 consecutive intervals above this many IOPS")
        self.cap = QDoubleSpinBox(minimum=0, maximum=1e12, value=0, decimals=0, specialValueText="no cap line")
        self.cap.setToolTip("Draw a horizontal cap / threshold line")
        self.normalise = QCheckBox("0–1 time")
        self.normalise.setToolTip("Normalised time: each run from 0 (start) to 1 (end)")
        for w in (self.metric_box, self.align):
            w.currentIndexChanged.connect(self.reload)
        self.activity.valueChanged.connect(self.reload)
        self.normalise.toggled.connect(self.reload)
        self.cap.valueChanged.connect(self._draw_cap)

        self.plot = pg.PlotWidget(viewBox=_DragBox(self))
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
        for w in (QLabel("Metric"), self.metric_box, self.device, self.align, self.activity, self.marker,
                  self.normalise, QLabel("Cap"), self.cap):
            bar.addWidget(w)
        bar.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.readout)

    def set_runs(self, run_ids: list[int]) -> None:
        self.run_ids = [r for r in run_ids if (self.ws.run(r) or {}).get("kind") in ("iostat", "vscsistats")]
        self.reload()

    def _set_devices(self, names: list[str]) -> None:
        """The device picker lists the devices of the selected runs (found by the loading job)."""
        current = self.device.currentText()
        self.device.blockSignals(True)
        self.device.clear()
        self.device.addItem(WHOLE_DISKS_LABEL)
        self.device.addItems(names)
        self.device.setCurrentText(current if current in names else WHOLE_DISKS_LABEL)
        self.device.blockSignals(False)

    def reload(self) -> None:
        """Load the curves on a worker thread (a 10 M-row run takes seconds), then draw them."""
        from app.ui.workers import JobThread

        self._generation = getattr(self, "_generation", 0) + 1
        gen = self._generation
        metric = self.metric_box.currentText()
        mode = ["start", "activity", "marker"][self.align.currentIndex()]
        activity = self.activity.value()
        marker = self.marker.text().strip() or None
        device = None if self.device.currentText() in ("", WHOLE_DISKS_LABEL) else self.device.currentText()
        runs = list(self.run_ids)
        ws_path = self.ws.path

        def job(state: Any) -> list[Any]:
            """[device names, then (run id, name, t, y, note, phases) per run]."""
            out: list[Any] = []
            from app.analysis.histograms import AnalysisError
            from app.analysis.phases import list_phases

            with Workspace(ws_path) as ws:
                names = sorted(d for (d,) in ws.con.execute(
                    "SELECT DISTINCT device FROM iostat_samples WHERE list_contains(?, run_id)", [runs]).fetchall())
                out.append(names)
                for i, rid in enumerate(runs):
                    state.progress(i / max(1, len(runs)), "loading")
                    run = ws.run(rid) or {}
                    name = run.get("name", str(rid))
                    if run.get("kind") == "vscsistats":
                        out += vscsi_series(ws, rid, name, metric)
                        continue
                    try:
                        t, y, note, off = run_series(ws, rid, metric, device, mode, activity, marker)
                    except AnalysisError as e:
                        out.append((rid, name, np.zeros(0), np.zeros(0), str(e), []))
                        continue
                    phases = [(p.name, p.t_start_s - off, p.t_end_s - off) for p in list_phases(ws, rid)]
                    out.append((rid, name, t, y, note, phases))
            return out

        self.loading = True
        self.readout.setText("loading…" if runs else " ")
        self._jobs = [j for j in getattr(self, "_jobs", []) if j.isRunning()]  # older loads still finishing
        job_thread = JobThread(job, self)
        job_thread.done.connect(lambda res, gen=gen: self._draw(res, gen))
        self._jobs.append(job_thread)
        job_thread.start()

    def _draw(self, result: Any, gen: int) -> None:
        if gen != self._generation:
            return
        self.loading = False
        metric = self.metric_box.currentText()
        self.plot.clear()
        self.legend.clear()
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.plot.addItem(self.cap_line, ignoreBounds=True)
        self.curves, self.items = [], []
        notes = []
        if isinstance(result, Exception):
            notes.append(str(result))
            result = [[]]
        self._set_devices(result[0])
        result = result[1:]
        banded = False
        for i, (rid, name, t, y, note, phases) in enumerate(result):
            if note:
                notes.append(f"{name}: {note}")
            if t.size == 0:
                continue
            if phases and not banded and not self.normalise.isChecked():
                self._draw_phases(name, phases)
                banded = True
            if self.normalise.isChecked() and t.size > 1 and t[-1] > t[0]:
                t = (t - t[0]) / (t[-1] - t[0])
            curve = Curve(rid, name, t, y)
            self.curves.append(curve)
            item = self.plot.plot(t, y, pen=pg.mkPen(PALETTE[i % len(PALETTE)], width=2), name=name,
                                  autoDownsample=True, downsampleMethod="peak", skipFiniteCheck=True)
            self.items.append(item)
        self.plot.setLabel("left", metric)
        self.plot.setLabel("bottom", "normalised time (0–1)" if self.normalise.isChecked() else "time since alignment",
                           units=None if self.normalise.isChecked() else "s")
        self._draw_cap()
        self.plot.enableAutoRange()
        self.readout.setText("   ".join(notes) if notes else " ")
        self.curves_changed.emit()

    def shutdown(self) -> None:
        """Wait for the curve loads still running (the window is closing)."""
        for job in getattr(self, "_jobs", []):
            if job.isRunning():
                job.wait(30000)

    def _draw_phases(self, run_name: str, phases: list[tuple[str, float, float]]) -> None:
        """The stored phases of the first selected run that has any, as labelled bands."""
        for k, (name, a, b) in enumerate(phases):
            band = pg.LinearRegionItem((a, b), movable=False,
                                       brush=pg.mkBrush(90, 120, 200, 28 if k % 2 else 50),
                                       pen=pg.mkPen(None))
            band.setZValue(-10)
            self.plot.addItem(band, ignoreBounds=True)
            label = pg.TextItem(name, color="#335", anchor=(0, 0))
            label.setPos(a, 0)
            self.plot.addItem(label, ignoreBounds=True)
        self.phase_run = run_name

    def nearest_curve(self, x: float, y: float) -> int | None:
        best, best_d = None, None
        for i, c in enumerate(self.curves):
            t = c.t + c.offset
            j = int(np.searchsorted(t, x))
            if not len(t):
                continue
            j = min(max(j, 0), len(t) - 1)
            d = abs(float(c.y[j]) - y) if not np.isnan(c.y[j]) else None
            if d is not None and (best_d is None or d < best_d):
                best, best_d = i, d
        return best

    def shift_curve(self, index: int, dx: float) -> None:
        """Move one curve along the time axis (Shift + drag); the readout and crosshair follow."""
        c = self.curves[index]
        c.offset += dx
        self.items[index].setPos(c.offset, 0)
        self.readout.setText(f"{c.label} shifted by {c.offset:+.1f} s")

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
