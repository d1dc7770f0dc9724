"""Overlay plot: several runs on one aligned time axis (pyqtgraph).

Interval data are drawn as steps: an iostat value covers the interval that ends at its time stamp,
``(t_end - interval, t_end]``, and a vscsiStats value its collection (see app.ui.plot_steps). The
crosshair reads the interval under the mouse and shows "–" outside a run. Curves are downsampled
(peak-preserving) and clipped to the view, so 20 runs of 100 k points stay fluid; curves can be
shifted along the time axis by dragging them with Shift held.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QMessageBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.safe_text import shown
from app.ui.plot_axes import TimeAxis, ValueAxis
from app.ui.plot_marks import CurveList, MarkerLine, PhaseBand, background_is_dark, label_fill
from app.ui.plot_steps import METRIC_UNITS, fmt_time, fmt_value, interval_index, step_xy
from app.workspace import Workspace
from parsers.kinds import (
    DEVICE_RATES,
    HOST_LATENCY,
    IOSTAT,
    LATENCY_HISTOGRAMS,
    THROUGHPUT_GRID,
    TIME_SERIES,
    VSCSISTATS,
    has,
    kind_label,
)

# metric label -> column of the analysis series (app.analysis.series), or (iostat column, aggregate)
METRICS: dict[str, str | tuple[str, str]] = {
    "IOPS (total)": "iops", "IOPS (read)": "read_iops", "IOPS (write)": "write_iops",
    "Throughput (kB/s)": "kbs", "await (ms)": "await_ms",
    "%util (max over disks)": ("util_pct", "max"), "Queue (aqu-sz, summed)": ("aqu_sz", "sum"),
    # esxtop's split of the time per command (app.analysis.host_latency.latency_split: weighted by commands)
    "GAVG (ms)": ("gavg_ms", "host"), "DAVG (ms)": ("davg_ms", "host"), "KAVG (ms)": ("kavg_ms", "host"),
    "Commands/s per VM": ("vm", "vm"),  # one curve per VM (esxtop virtual disks summed per VM)
}
HOST_METRICS = {"GAVG (ms)", "DAVG (ms)", "KAVG (ms)"}
PER_VM = "Commands/s per VM"
# guidance lines a VMware consultant expects on esxtop's latencies (common guidance, not a law)
GUIDANCE = {"DAVG (ms)": (20.0, "guidance DAVG 20 ms: above it, look at the array"),
            "KAVG (ms)": (2.0, "guidance KAVG 2 ms: above it, commands queue in the host")}
# what each metric counts, shown as the metric's tooltip
METRIC_HELP = {
    "IOPS (total)": "Requests completed per second: reads + writes + discards + flushes (r/s + w/s + d/s + f/s; "
                    "plain reports: tps), after merging",
    "IOPS (read)": "Read requests completed per second (r/s)",
    "IOPS (write)": "Write requests completed per second (w/s)",
    "Throughput (kB/s)": "kB read + written per second (rkB/s + wkB/s)",
    "await (ms)": "Mean time a request took, queueing included (each device's await weighted by its requests)",
    "%util (max over disks)": "Share of the interval the busiest disk had requests in flight",
    "Queue (aqu-sz, summed)": "Mean number of requests queued or in service, summed over the disks",
    "GAVG (ms)": "esxtop: the time per command the virtual machines see (GAVG = KAVG + DAVG), over the physical "
                 "disks weighted by their commands",
    "DAVG (ms)": "esxtop: the time per command below the host's driver: the array and the fabric (guidance: above "
                 "20–25 ms, look at the array)",
    "KAVG (ms)": "esxtop: the time per command in the ESXi kernel, its queue included (guidance: above 2 ms, "
                 "commands queue in the host)",
    "Commands/s per VM": "esxtop: each VM's commands per second, summed over its virtual disks: which VM drives "
                         "the load",
}
WHOLE_DISKS_LABEL = "whole disks"
# every colour has a contrast of at least 3:1 on white and on the dark theme's #1e1e1e; no pure red
# (the cap line is red); any two differ by a CIEDE2000 distance of at least 11.9
PALETTE = ["#2a7fd4", "#e8710a", "#1a9850", "#a05fd0", "#00897b", "#b8860b", "#d81b60", "#0096c7",
           "#7b8a00", "#5c6bc0", "#9c6644", "#c2389f"]
# at most this many curves are drawn at once, each in a colour of its own; more selected curves are listed beside
# the chart, unticked, and the chart says so (a chart of 194 curves in 10 colours reads nothing)
MAX_CURVES = len(PALETTE)
CAP_COLOUR = "#e03030"
GUIDE_COLOUR = "#c77800"  # the guidance lines of esxtop's latencies: orange, not the cap's red
HINT = "Double-click: marker · Ctrl+drag: phase · Shift+drag: move a curve"
READOUT_NOTE = "(a value covers the interval that ends at its time)"


NOTES_SHOWN = 2  # notes under the chart; the rest in its tooltip

# overlay metric -> the figure a "compare" question of the report compares (app.analysis.questions.COMPARE_METRICS);
# %util and the queue have no figure of their own there: the runs are compared by their peak IOPS
COMPARE_FIGURE = {"IOPS (total)": "peak_iops", "IOPS (read)": "peak_iops", "IOPS (write)": "peak_iops",
                  "Throughput (kB/s)": "peak_kbs", "await (ms)": "mean_await_ms"}
# overlay metric -> (cap question parameter, op) of a cap check on the cap line
CAP_OF_METRIC = {"IOPS (total)": ("iops_cap", "total"), "IOPS (read)": ("iops_cap", "read"),
                 "IOPS (write)": ("iops_cap", "write"), "Throughput (kB/s)": ("bw_cap_kbs", "total")}


@dataclass
class Curve:
    """One drawn curve (a run, or one VM disk of a vscsiStats run) in curve time.

    ``t`` holds the end of each interval and ``t_start`` its start; ``y[i]`` covers ``(t_start[i], t[i]]``.
    The curve is drawn at ``t + offset`` (``offset`` = the manual Shift-drag shift). Run time (the
    series axis markers and phases are stored on: seconds since the start of the run's first analysed
    interval) is ``t * time_scale + align_offset_s``; ``time_scale`` is 1 except in normalised (0–1)
    time, where it is the run's length in seconds (and ``align_offset_s`` then includes the run's start).
    """

    run_id: int
    label: str
    t: np.ndarray
    y: np.ndarray
    offset: float = 0.0
    t_start: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kind: str = IOSTAT  # runs.kind of the curve: iostat rates, or vscsiStats collections (latency histograms)
    device: str | None = None  # iostat device (None = whole disks) or the vscsiStats VM disk
    align_offset_s: float = 0.0
    colour: str = PALETTE[0]
    visible: bool = True
    metric: str = ""
    time_scale: float = 1.0
    run_name: str = ""
    weights: np.ndarray | None = None  # what a value weighs in a mean: its interval's I/Os or commands (a rate: None)

    @property
    def key(self) -> tuple[int, str | None]:
        return (self.run_id, self.device)

    def run_time(self, x: float) -> float:
        """Run time (seconds) of a point ``x`` of the plot's time axis."""
        return (x - self.offset) * self.time_scale + self.align_offset_s

    def plot_x(self, run_t: float) -> float:
        """Where a run time (seconds) is on the plot's time axis."""
        return (run_t - self.align_offset_s) / self.time_scale + self.offset

    def index_at(self, x: float) -> int | None:
        """The interval under ``x`` on the plot's time axis (None outside the run)."""
        return interval_index(self.t_start, self.t, x - self.offset)


def metric_figures(metric: str) -> set[str]:
    """The series figures a metric's curve needs (app.analysis.series.FIGURES): the chart loads only those -- the
    IOPS of a 10 M-row run reads a third of the columns -- and the results table the rest, after the curve."""
    from app.analysis.series import FIGURE_OF_COLUMN

    what = METRICS.get(metric)
    return {FIGURE_OF_COLUMN[what]} if isinstance(what, str) and what in FIGURE_OF_COLUMN else {"iops"}


def _aligned(ws: Workspace, run_id: int, device: str | None, align_mode: str, activity_iops: float,
             marker: str | None, on_clock: Any, figures: set[str] | None = None,
             markers: dict[str, float] | None = None) -> tuple[Any, str]:
    """The run's series aligned as the chart says, and what was assumed (``markers``: the run's, when already
    read)."""
    from app.analysis.histograms import AnalysisError
    from app.analysis.series import align, load_series
    from app.store.phases import list_markers

    s, note = on_clock if on_clock is not None else (load_series(ws, run_id, device, figures=figures), "")
    if align_mode in ("activity", "marker"):
        try:
            if align_mode == "activity":
                s = align(s, "activity", activity_iops=activity_iops)
            elif not marker:
                raise AnalysisError("no marker name given")
            else:
                s = align(s, f"marker:{marker}", markers=list_markers(ws, run_id) if markers is None else markers)
        except AnalysisError as e:
            note = f"{e}; aligned on its start"
    return s, note


def vm_curves(ws: Workspace, run_id: int, name: str, align_mode: str = "start", activity_iops: float = 100.0,
              marker: str | None = None, on_clock: Any = None, markers: dict[str, float] | None = None
              ) -> list[dict[str, Any]]:
    """One curve per VM of an esxtop run: its commands per second, summed over its virtual disks, on the run's
    aligned axis (app.analysis.host_latency.vm_rates)."""
    from app.analysis.host_latency import vm_disks, vm_rates

    s, note = _aligned(ws, run_id, None, align_mode, activity_iops, marker, on_clock, {"iops"}, markers)
    ts, te, idx = s.col("t_start_s"), s.col("t_end_s"), s.frame.get_column("sample_idx").to_list()
    disks = vm_disks(ws, run_id)
    out = []
    for vm, per in vm_rates(ws, run_id).items():
        y = np.array([per.get(int(i)) for i in idx], dtype=float)
        # the curve's devices are the VM's virtual disks: the figures table sums exactly what the curve draws
        out.append(_record(run_id, name, f"{name} · {vm}", ws.kind_of(run_id) or IOSTAT,
                           ",".join(disks.get(vm, [])), ts, te, y, note, float(s.offset_s)))
        note = ""
    return out


def _iostat_curve(ws: Workspace, run_id: int, metric: str, device: str | None = None, align_mode: str = "start",
                  activity_iops: float = 100.0, marker: str | None = None, on_clock: Any = None,
                  markers: dict[str, float] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, float, np.ndarray | None]:
    """(interval start, interval end, value, note, offset, weights) of a run on the analyses' time axis: whole
    disks, since-boot report left out, aligned like the command line's series analysis; ``offset`` is the seconds
    subtracted by the alignment; ``weights`` what each value weighs in a mean (a time per request: the requests of
    its interval; None for a rate). The note says what was assumed. ``on_clock``: the run's series already put on
    the common clock, and what its clock assumes (:func:`_on_clock`)."""
    s, note = _aligned(ws, run_id, device, align_mode, activity_iops, marker, on_clock, metric_figures(metric),
                       markers)
    note = "; ".join(x for x in (s.gap_words(), note) if x)  # a gap breaks the line: say why, first
    what = METRICS[metric]
    ts, te = s.col("t_start_s"), s.col("t_end_s")
    if isinstance(what, str):
        y = s.col(what)
        w = s.col("ios") if what == "await_ms" else None  # await is a time per request: a mean weighs by requests
        if s.frame.height and np.isnan(y).all():  # drawn as nothing: say why
            why = {"read_iops": "no reads and writes apart in its file (transfers per second only)",
                   "write_iops": "no reads and writes apart in its file (transfers per second only)",
                   "iops": "no request counts in its file (throughput or latency only)",
                   "kbs": "no throughput in its file", "await_ms": "no response times in its file"}.get(what, "")
            note = "; ".join(x for x in (note, why) if x)
        return ts, te, y, note, float(s.offset_s), w
    col, agg = what
    idx = [int(i) for i in s.frame.get_column("sample_idx")]
    if agg == "host":
        from app.analysis.host_latency import latency_split

        split = latency_split(ws, run_id, device).frame
        per = dict(zip(split.get_column("sample_idx").to_list(), split.get_column(col).to_list()))
        n = dict(zip(split.get_column("sample_idx").to_list(), split.get_column("commands_s").to_list()))
        y = np.array([per.get(i) for i in idx], dtype=float)
        # esxtop's times per command weigh by the commands of their interval (as latency_split's means do)
        w = np.array([n.get(i) for i in idx], dtype=float) * s.col("dt_s")
        return ts, te, y, note, float(s.offset_s), w
    rows = dict(ws.con.execute(
        f"SELECT sample_idx, {agg}({col}) FROM iostat_samples WHERE run_id = ? AND list_contains(?, device) "
        "GROUP BY 1", [run_id, s.devices.used]).fetchall())
    y = np.array([rows.get(i) for i in idx], dtype=float)
    return ts, te, y, note, float(s.offset_s), None


def _on_clock(ws: Workspace, run_ids: list[int], device: str | None, figures: set[str] | None = None
              ) -> tuple[dict[int, tuple[Any, str]], tuple[Any, bool] | None]:
    """The runs with per-device rates put on one clock, each with what its clock assumes (runs that cannot be
    loaded are left to the caller, which says why); and the clock: (the wall-clock time at 0, whether it is UTC --
    some file gave its zone), None when no run has time stamps."""
    from app.analysis.histograms import AnalysisError
    from app.analysis.series import align, clock_reference, load_series

    loaded = []
    for rid in run_ids:
        if has(ws.kind_of(rid), DEVICE_RATES):
            try:
                loaded.append(load_series(ws, rid, device, figures=figures))
            except AnalysisError:
                continue
    ref, notes = clock_reference(loaded)
    out = {}
    for s in loaded:
        if ref is not None and s.clock0_utc is not None:
            s = align(s, f"clock:{ref.isoformat()}")
        out[s.run_id] = (s, notes.get(s.run_id, ""))
    return out, (None if ref is None else (ref, any(s.zone_known for s in loaded)))


# overlay metric -> per-sample figure of app.analysis.histograms.histo_summary (vscsiStats)
VSCSI_METRICS = {"IOPS (total)": "iops", "IOPS (read)": "read_iops", "IOPS (write)": "write_iops",
                 "Throughput (kB/s)": "kb_s", "await (ms)": "mean_latency_ms"}


def _record(run_id: int, name: str, label: str, kind: str, device: str | None, ts: np.ndarray, te: np.ndarray,
            y: np.ndarray, note: str, offset: float = 0.0, w: np.ndarray | None = None) -> dict[str, Any]:
    """One curve as the loading job hands it to the chart; ``w``: what each value weighs in a mean (the I/Os or
    commands of its interval, for a time per request), None for a rate (weighed by its interval's length)."""
    return {"run_id": run_id, "name": name, "label": shown(label), "kind": kind, "device": device, "t_start": ts,
            "t_end": te, "y": y, "note": note, "align_offset_s": offset, "w": w}


def vscsi_series(ws: Workspace, run_id: int, name: str, metric: str) -> list[dict[str, Any]]:
    """One curve per VM disk of a vscsiStats run: the figure per collection from the histogram counts
    (IOPS = count / interval); each value covers its collection, from its start to start + interval.
    Two VMs fighting over one RAID set overlay."""
    from app.analysis.histograms import AnalysisError, histo_summary

    empty = np.zeros(0)
    key = VSCSI_METRICS.get(metric)
    if key is None:
        return [_record(run_id, name, name, VSCSISTATS, None, empty, empty, empty,
                        f"{metric} is not in vscsiStats histograms")]
    try:
        summary = histo_summary(ws, run_id)
    except AnalysisError as e:
        return [_record(run_id, name, name, VSCSISTATS, None, empty, empty, empty, str(e))]
    by_dev: dict[str, list[tuple[float, float, float, float]]] = {}
    for smp in summary["samples"]:
        if smp.get("t_s") is None or smp.get(key) is None or not smp.get("interval_s"):
            continue
        start = float(smp["t_s"])
        ios = float(smp.get("ios") or 0.0)
        by_dev.setdefault(smp["device"], []).append((start, start + float(smp["interval_s"]), float(smp[key]), ios))
    if not by_dev:
        return [_record(run_id, name, name, VSCSISTATS, None, empty, empty, empty,
                        "no interval: set it (run menu ▸ Set interval…) to get IOPS from the histogram counts")]
    out = []
    note = "; ".join(summary.get("notes") or [])
    for dev, pts in sorted(by_dev.items()):
        pts.sort()
        w = np.array([p[3] for p in pts]) if key == "mean_latency_ms" else None  # a latency weighs by its I/Os
        out.append(_record(run_id, name, f"{name} · {dev}", VSCSISTATS, dev, np.array([p[0] for p in pts]),
                           np.array([p[1] for p in pts]), np.array([p[2] for p in pts]), note, w=w))
        note = ""
    return out


def vm_stories(ws: Workspace, run_ids: list[int], metric: str) -> list[str]:
    """With Commands/s per VM on screen: which VM drove each esxtop run's load and what its neighbours cost it, in
    the report's words (app.analysis.host_latency.vm_load)."""
    from app.analysis.histograms import AnalysisError
    from app.analysis.host_latency import vm_load

    if metric != PER_VM:
        return []
    out = []
    for rid in run_ids:
        run = ws.run(rid)
        if run is None or not has(run.kind, HOST_LATENCY):
            continue
        try:
            story = vm_load(ws, rid).story
        except AnalysisError:
            continue  # (its curve's note says why)
        if story:
            out.append(f"{shown(run.name)}: " + " ".join(shown(x) for x in story))
    return out


def elsewhere(kind: str | None, bench: bool) -> str:
    """Why a selected run is not on the overlay, and the tab that shows it (``bench``: Iometer or IOmark results)."""
    if has(kind, LATENCY_HISTOGRAMS):
        tab = "the Histograms tab"
    elif has(kind, THROUGHPUT_GRID):
        tab = "the IOzone tab"
    elif bench:
        tab = "the Iometer / IOmark tab"
    else:
        tab = "the Grid & SQL tab"
    return f"no data over time to draw (a {kind_label(kind or '')} result): its figures are on {tab}"


def _refill(combo: QComboBox, items: list[str], current: str) -> None:
    """Replace a combo box's items and keep ``current`` as its choice, without announcing a change. Each item shows
    its name escaped (app.safe_text.shown) and keeps the name itself as its data (:func:`_chosen`)."""
    combo.blockSignals(True)
    combo.clear()
    for item in items:
        combo.addItem(shown(item), item)
    i = combo.findData(current)
    if i >= 0:
        combo.setCurrentIndex(i)
    else:
        combo.setCurrentText(current)
    combo.blockSignals(False)


def _chosen(combo: QComboBox) -> str:
    """The name chosen in a combo box filled by :func:`_refill` (its data), else its text."""
    data = combo.currentData()
    shown_now = combo.currentText() == combo.itemText(combo.currentIndex())  # not a text typed over it
    return data if isinstance(data, str) and shown_now else combo.currentText()


class _DragBox(pg.ViewBox):
    """Shift + drag moves the curve nearest to the pointer along the time axis (manual alignment);
    Ctrl + drag marks a phase; a double-click adds a marker."""

    def __init__(self, owner: OverlayPlot):
        super().__init__()
        self.owner = owner
        self._dragging: int | None = None
        self._phase: tuple[float, int | None] | None = None

    def mouseDragEvent(self, ev: Any, axis: Any = None) -> None:  # noqa: N802 (pyqtgraph name)
        mods = ev.modifiers()
        left = ev.button() == Qt.MouseButton.LeftButton
        if left and (mods & Qt.KeyboardModifier.ControlModifier or self._phase is not None) and self.owner.curves:
            ev.accept()
            here = self.mapSceneToView(ev.scenePos())
            if ev.isStart() or self._phase is None:
                start = self.mapSceneToView(ev.buttonDownScenePos())
                self._phase = (start.x(), self.owner.target_curve(start.x(), start.y()))
            self.owner.phase_drag(self._phase[0], here.x(), self._phase[1], ev.isFinish())
            if ev.isFinish():
                self._phase = None
            return
        if not (mods & Qt.KeyboardModifier.ShiftModifier or self._dragging is not None) or not self.owner.curves:
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

    def mouseClickEvent(self, ev: Any) -> None:  # noqa: N802 (pyqtgraph name)
        if ev.double() and ev.button() == Qt.MouseButton.LeftButton and self.owner.curves:
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self.owner.marker_at(p.x(), p.y())
            return
        super().mouseClickEvent(ev)


class OverlayPlot(QWidget):
    """Runs x metric on one time axis, aligned by start, first activity or a marker.

    Interface for the views that read the overlay (the results table docked under it):

    * ``curves``: the drawn :class:`Curve` list (``kind``, ``device``, ``align_offset_s``, ``offset``,
      ``colour``, ``visible``, ``metric``; run time = ``t * time_scale + align_offset_s``).
    * ``curves_changed()``: after each draw, and when a curve's colour or visibility changes.
    * ``range_changed(x0, x1)``: the visible time range changed (debounced ~150 ms, plot time axis).
    * ``visible_range()``: that range, or None while the whole runs are shown (not zoomed).
    * ``cap_value()``: the cap line's value, or None when there is no cap line.

    A curve keeps its colour (and visibility) for the session, by run and device, whatever else is
    selected. Markers and phases are edited here and stored in the workspace: double-click adds a
    marker, Ctrl+drag marks a phase, right-click on one renames or deletes it.
    """

    curves_changed = Signal()
    clock_changed = Signal()  # a run's clock offset was stored here (Keep shift as clock offset)
    range_changed = Signal(float, float)
    questions_asked = Signal(list)  # [Question]: "Add to report" / "Add cap check to report"
    phase_action = Signal(str, int, str)  # a view's action on a stored phase (app.ui.views.PHASE_ACTIONS)

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self._kinds: dict[int, str | None] = {}  # run -> kind of the selected runs (read in one query)
        self.loading = False
        self.curves: list[Curve] = []
        self.items: list[pg.PlotDataItem | None] = []  # per curve; None for a curve never drawn yet (_item)
        self._colours: dict[tuple[int, str | None], str] = {}  # session memory: curve key -> colour
        self._hidden: set[tuple[int, str | None]] = set()
        self._marks: dict[int, dict[str, Any]] = {}  # run id -> {"markers": {name: t}, "phases": [Phase]}
        self.mark_items: list[tuple[Any, int, float, float | None]] = []  # (item, curve index, run t, run t end)
        self._phase_preview: pg.LinearRegionItem | None = None

        self.metric_box = QComboBox()
        self.metric_box.addItems(list(METRICS))
        for i, label in enumerate(METRICS):
            self.metric_box.setItemData(i, METRIC_HELP.get(label, ""), Qt.ItemDataRole.ToolTipRole)
        self.metric_box.setToolTip(METRIC_HELP["IOPS (total)"])
        self.metric_box.currentTextChanged.connect(lambda t: self.metric_box.setToolTip(METRIC_HELP.get(t, "")))
        self.device = QComboBox()
        self.device.setToolTip("Whole disks (partitions, dm/md/loop devices and -g groups left out, so nothing "
                               "counts twice), or one device of the selected runs")
        self.device.addItem(WHOLE_DISKS_LABEL)
        self.device.currentIndexChanged.connect(lambda _i: self.reload())
        self.align = QComboBox()
        self.align.addItems(["Align: run start", "Align: first activity", "Align: marker", "Align: clock time"])
        self.align.setToolTip("Clock time: runs on one wall clock (UTC where the file gives its time zone), so a "
                              "host's esxtop and its guests' perfmon or iostat line up. Shift + drag a curve to "
                              "move it along the time axis by hand")
        self.marker = QComboBox(editable=True)
        marker_edit = self.marker.lineEdit()
        assert marker_edit is not None  # an editable combo box has its line edit
        marker_edit.setPlaceholderText("marker name")
        self.marker.setToolTip("Align every run on its marker of this name (double-click the chart to add a "
                               "marker to a run; right-click a marker to rename or delete it)")
        self.marker.setMinimumWidth(120)
        marker_edit.editingFinished.connect(self._marker_edited)
        self.marker.activated.connect(lambda _i: self._marker_edited())
        self.activity = QDoubleSpinBox(minimum=0, maximum=1e9, value=100, suffix=" IO/s", decimals=0)
        self.activity.setToolTip("First activity = the first of 3 consecutive intervals above this many IOPS")
        self.cap = QDoubleSpinBox(minimum=0, maximum=1e12, value=0, decimals=0)
        self.cap.setSpecialValueText("no cap line")
        self.cap.setToolTip("Draw a horizontal cap / threshold line (0 = no cap line)")
        self.log_y = QCheckBox("Log scale")
        self.log_y.setToolTip("Logarithmic value axis (intervals at 0 are not drawn on it)")
        self.normalise = QCheckBox("0–1 time")
        self.normalise.setToolTip("Normalised time: each run from 0 (start) to 1 (end)")
        self._caps: dict[str, float] = {}  # the cap typed for each unit of a capped metric (IOPS, kB/s)
        self._metric_now = self.metric_box.currentText()
        self.metric_box.currentTextChanged.connect(self._metric_changed)  # before the reload: the cap follows first
        self._cap_field()
        for w in (self.metric_box, self.align):
            w.currentIndexChanged.connect(self.reload)
        self.metric_box.currentIndexChanged.connect(lambda _i: self._report_actions())
        self.cap.valueChanged.connect(lambda _v: self._report_actions())
        self.activity.valueChanged.connect(self.reload)
        self.normalise.toggled.connect(self.reload)
        self.cap.valueChanged.connect(self._draw_cap)
        self.log_y.toggled.connect(self._set_log)

        self.reset_zoom_action = QAction("Reset zoom", self)
        # Ctrl+0 is the window's View ▸ Reset zoom (it works wherever the focus is); this is the button's action
        self.reset_zoom_action.setToolTip("Show the whole runs again (Ctrl+0)")
        self.reset_zoom_action.triggered.connect(self.reset_zoom)
        self.addAction(self.reset_zoom_action)
        self.reset_zoom_button = QToolButton()
        self.reset_zoom_button.setDefaultAction(self.reset_zoom_action)

        # a curve moved by hand on clock time: its shift kept as its run's clock offset (app.store.clock)
        self.keep_shift_action = QAction("Keep shift as clock offset", self)
        self.keep_shift_action.setToolTip("On clock time, after moving a curve (Shift + drag): its run's clock is "
                                          "corrected by that shift, in every view and the report")
        self.keep_shift_action.setEnabled(False)
        self.keep_shift_action.triggered.connect(lambda _checked=False: self.keep_shift())
        self.keep_shift_button = QToolButton()
        self.keep_shift_button.setDefaultAction(self.keep_shift_action)
        self.keep_shift_button.setVisible(False)  # shown while it applies: the controls' row stays narrow
        self._shifted: int | None = None  # the curve last moved by hand

        # the report's questions: what the chart shows, as a question the report answers
        self.add_action = QAction("Add to report", self)
        self.add_action.triggered.connect(lambda _checked=False: self._ask(self.report_questions()))
        self.add_button = QToolButton()
        self.add_button.setDefaultAction(self.add_action)
        self.add_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.figure_menu = QMenu(self)  # the arrow: compare the runs by another figure
        self.figure_menu.setToolTipsVisible(True)
        from app.analysis.questions import COMPARE_METRICS

        for key, (label, _col) in COMPARE_METRICS.items():
            a = self.figure_menu.addAction(f"Compare by {label}")
            a.triggered.connect(lambda _checked=False, key=key: self._ask(self.report_questions(key)))
        self.add_button.setMenu(self.figure_menu)
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.cap_action = QAction("Add cap check to report", self)
        self.cap_action.triggered.connect(lambda _checked=False: self._ask(self.cap_questions()))
        self.cap_button = QToolButton()
        self.cap_button.setDefaultAction(self.cap_action)
        self._want_device: str | None = None  # a device to choose once the runs' devices are known

        # the value axis prints the figures as they are (no SI prefix on ms or kB/s) and the time axis says its base
        # (app/ui/plot_axes.py); the curve list beside the chart is its legend: nothing covers the curves
        self.time_axis = TimeAxis()
        self.plot = pg.PlotWidget(viewBox=_DragBox(self), axisItems={"left": ValueAxis("left"),
                                                                     "bottom": self.time_axis})
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setClipToView(True)
        self.plot.setDownsampling(auto=True, mode="peak")
        self.vline = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#888", style=Qt.PenStyle.DashLine))
        self.vline.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.vline.setVisible(False)  # shown once the mouse is over the chart
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.cap_line = pg.InfiniteLine(angle=0, movable=False,
                                        pen=pg.mkPen(CAP_COLOUR, width=2, style=Qt.PenStyle.DashLine),
                                        label="cap", labelOpts={"position": 0.02, "color": CAP_COLOUR,
                                                                "anchors": [(0, 1), (0, 1)], "movable": False,
                                                                "fill": label_fill()})
        self.cap_line.label.keep_colour = True  # a theme change leaves the cap's red alone
        self.cap_line.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.cap_line.setVisible(False)
        self.cap_line.setZValue(20)  # over the curves, so its label reads
        self.plot.addItem(self.cap_line)
        self.guide_line = pg.InfiniteLine(angle=0, movable=False,
                                          pen=pg.mkPen(GUIDE_COLOUR, width=2, style=Qt.PenStyle.DotLine),
                                          label="guidance", labelOpts={"position": 0.02, "color": GUIDE_COLOUR,
                                                                       "anchors": [(0, 0), (0, 0)], "movable": False,
                                                                       "fill": label_fill()})
        self.guide_line.label.keep_colour = True
        self.guide_line.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.guide_line.setVisible(False)
        self.guide_line.setZValue(19)
        self.plot.addItem(self.guide_line)
        # lines do not take part in the auto range: an invisible point at each line's level keeps it in view
        self.line_anchor = pg.PlotDataItem(pen=None, symbol=None)
        self.plot.addItem(self.line_anchor)
        self.readout = QLabel(" ")
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.readout.setWordWrap(True)
        self.story = QLabel("")  # which VM drove the load, in words (Commands/s per VM)
        self.story.setObjectName("vm-story")
        self.story.setWordWrap(True)
        self.story.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.story.setVisible(False)
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)
        vb = self.plot.getPlotItem().vb
        self._range_timer = QTimer(self, singleShot=True, interval=150)
        self._range_timer.timeout.connect(self._emit_range)
        vb.sigXRangeChanged.connect(lambda *_a: self._range_timer.start())

        self.curve_list = CurveList()
        self.curve_list.visibility_changed.connect(self._set_visible)
        self.curve_list.colour_asked.connect(self.choose_colour)
        self.curve_list.menu_asked.connect(self._curve_menu)
        self.hint = QLabel(HINT)
        self.hint.setEnabled(False)  # drawn in the muted text colour
        self.hint.setWordWrap(True)
        self.hint.setToolTip("Double-click the chart to add a marker to the selected curve's run (or the nearest "
                             "curve's); hold Ctrl and drag to mark a phase; hold Shift and drag to move a curve "
                             "along the time axis; right-click a marker or phase to rename or delete it; Ctrl+0 "
                             "shows the whole runs again")

        # two rows: what is drawn, then the cap, the report and the view; each row fits beside a run list of
        # RUN_LIST_WIDTH in a 1280-pixel window (the hint wraps)
        bar = QHBoxLayout()
        for part in (QLabel("Metric"), self.metric_box, self.device, self.align, self.activity, self.marker,
                     self.normalise):
            bar.addWidget(part)
        bar.addStretch(1)
        bar2 = QHBoxLayout()
        for tool in (QLabel("Cap"), self.cap, self.cap_button, self.add_button, self.log_y, self.reset_zoom_button,
                     self.keep_shift_button):
            bar2.addWidget(tool)
        bar2.addSpacing(12)
        bar2.addWidget(self.hint, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(self.curve_list)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        split.setSizes([900, 240])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addLayout(bar2)
        lay.addWidget(split, 1)
        lay.addWidget(self.story)
        lay.addWidget(self.readout)
        self._report_actions()

    def changeEvent(self, ev: QEvent) -> None:  # noqa: N802 (Qt name)
        """A theme change (the application palette changes with it): marks and labels take its colours."""
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.PaletteChange and hasattr(self, "mark_items"):
            for line in (self.cap_line, self.guide_line):
                line.label.fill = pg.mkBrush(label_fill())
                line.label.update()
            self._draw_marks()

    # ---- the cap follows the metric -------------------------------------------------------------
    def _metric_changed(self, metric: str) -> None:
        """Every part of the chart follows the metric on screen: the cap typed for IOPS is never drawn as '200 ms'
        on a latency or as '200 kB/s' on throughput. Each capped unit keeps its own cap; a metric without a cap
        (times, %util, queue, commands per VM) has none, the field says why."""
        old = CAP_OF_METRIC.get(self._metric_now)
        if old is not None:
            self._caps[METRIC_UNITS[self._metric_now]] = float(self.cap.value())
        self._metric_now = metric
        self._cap_field()

    def _cap_field(self) -> None:
        metric = self.metric_box.currentText()
        capped = metric in CAP_OF_METRIC
        unit = METRIC_UNITS.get(metric, "")
        self.cap.blockSignals(True)
        self.cap.setValue(self._caps.get(unit, 0.0) if capped else 0.0)
        self.cap.blockSignals(False)
        self.cap.setEnabled(capped)
        self.cap.setSuffix(f" {unit}" if capped else "")
        guide = GUIDANCE.get(metric)
        self.cap.setToolTip(f"Draw a horizontal cap line in {unit} (0 = no cap line)" if capped else
                            f"A cap is a limit on IOPS or throughput: {metric} has none"
                            + (f"; its orange line is the {guide[1]}" if guide else ""))
        self.cap.valueChanged.emit(self.cap.value())  # the line, the results table and the report actions follow

    # ---- interface for other views ------------------------------------------------------------
    def visible_range(self) -> tuple[float, float] | None:
        """The visible time range on the plot's axis, or None while the whole runs are shown."""
        vb = self.plot.getPlotItem().vb
        if vb.autoRangeEnabled()[0]:
            return None
        x0, x1 = vb.viewRange()[0]
        return float(x0), float(x1)

    def cap_value(self) -> float | None:
        v = self.cap.value()
        return float(v) if v > 0 else None

    def _emit_range(self) -> None:
        x0, x1 = self.plot.getPlotItem().vb.viewRange()[0]
        self.range_changed.emit(float(x0), float(x1))

    # ---- loading --------------------------------------------------------------------------------
    def set_runs(self, run_ids: list[int]) -> None:
        """Draw the selected runs that hold data over time; the others are named under the chart with the tab that
        shows them (the run list highlights them: what is selected and not drawn is said, never silently left)."""
        found = self.ws.runs_by_id(run_ids)  # one query for the whole selection, not one per run
        # what iostat_runs and host_runs ask, asked once
        self._kinds = {r: found[r].kind if r in found else None for r in run_ids}
        self.run_ids = [r for r in run_ids if has(self._kinds[r], TIME_SERIES)]
        drawn = set(self.run_ids)
        others = [r for r in run_ids if r not in drawn]
        bench: set[int] = set()
        if others:
            from app.analysis.bench_results import iomark_runs, iometer_runs

            bench = iometer_runs(self.ws) | iomark_runs(self.ws)
        self.not_drawn = [f"{shown(found[r].name if r in found else str(r))}: {elsewhere(self._kinds[r], r in bench)}"
                          for r in others]
        self._report_actions()
        self.reload()

    def _set_devices(self, names: list[str]) -> None:
        """The device picker lists the devices of the selected runs (found by the loading job)."""
        wanted, self._want_device = self._want_device, None
        before = _chosen(self.device)
        current = wanted or before
        _refill(self.device, [WHOLE_DISKS_LABEL, *names], current if current in names else WHOLE_DISKS_LABEL)
        if wanted and _chosen(self.device) != before:  # a question's device: its curves are loaded now
            QTimer.singleShot(0, self, self.reload)

    # ---- the report's questions ------------------------------------------------------------------
    def iostat_runs(self) -> list[int]:
        """The selected runs a compare, cap or storm question can be asked of (iostat runs: they have the time
        series these analyses read)."""
        return [r for r in self.run_ids if has(self._kind(r), DEVICE_RATES)]

    def host_runs(self) -> list[int]:
        """The selected runs with a hypervisor's latency split and VM disks (esxtop)."""
        return [r for r in self.run_ids if has(self._kind(r), HOST_LATENCY)]

    def _kind(self, run_id: int) -> str | None:
        """The kind of a selected run, as read by set_runs (a run the chart was given otherwise is asked)."""
        if run_id not in self._kinds:
            self._kinds[run_id] = self.ws.kind_of(run_id)
        return self._kinds[run_id]

    def _device(self) -> str | None:
        text = _chosen(self.device)
        return None if text in ("", WHOLE_DISKS_LABEL) else text

    def _align_param(self) -> str:
        mode = self.align.currentIndex()
        marker = _chosen(self.marker).strip()
        return "activity" if mode == 1 else f"marker:{marker}" if mode == 2 and marker else "clock" if mode == 3 \
            else "start"

    def report_questions(self, figure: str | None = None) -> list[Any]:
        """The question the chart answers: two or more iostat runs -> how they compare (by ``figure``, default
        the overlay metric's figure), with the chart's alignment and device; one run -> its storm profile."""
        from app.analysis.questions import CompareQuestion, LatencySourceQuestion, StormQuestion, VmLoadQuestion

        runs = self.iostat_runs()
        metric = self.metric_box.currentText()
        if metric in HOST_METRICS or metric == PER_VM:
            return [LatencySourceQuestion(r, device=self._device()) if metric in HOST_METRICS else VmLoadQuestion(r)
                    for r in self.host_runs()]
        if len(runs) >= 2:
            figure = figure or COMPARE_FIGURE.get(metric, "peak_iops")
            return [CompareQuestion(runs, metric=figure, align=self._align_param(), phases="auto",
                                    device=self._device())]
        if len(runs) == 1:
            return [StormQuestion(runs[0], device=self._device(), phases="auto")]
        return []

    def cap_questions(self) -> list[Any]:
        """One cap check per selected iostat run: the cap line's value on the chart's figure (IOPS or throughput;
        reads or writes as the metric says), the device shown, and the tolerance and window of the results
        table's cap check."""
        from app.analysis.cap import DEFAULT_TOLERANCE_PCT, DEFAULT_WINDOW_S
        from app.analysis.questions import CapQuestion

        cap = self.cap_value()
        what = CAP_OF_METRIC.get(self.metric_box.currentText())
        if cap is None or what is None:
            return []
        key, op = what
        return [CapQuestion(rid, device=self._device(), op=op, tolerance_pct=DEFAULT_TOLERANCE_PCT,
                            window_s=DEFAULT_WINDOW_S, **{key: cap}) for rid in self.iostat_runs()]

    def _ask(self, questions: list[Any]) -> None:
        if questions:
            self.questions_asked.emit(questions)

    def _report_actions(self) -> None:
        """Add to report and Add cap check to report: enabled when the chart has a question to ask, and their
        tooltips say which."""
        from app.analysis.cap import DEFAULT_TOLERANCE_PCT, DEFAULT_WINDOW_S
        from app.analysis.questions import COMPARE_METRICS

        n = len(self.iostat_runs())
        metric = self.metric_box.currentText()
        figure = COMPARE_METRICS[COMPARE_FIGURE.get(metric, "peak_iops")][0]
        hosts = len(self.host_runs())
        host_metric = metric in HOST_METRICS or metric == PER_VM
        if host_metric:
            about = ("where the latency comes from: the array (DAVG) or the host (KAVG), against the usual guidance"
                     if metric in HOST_METRICS else "which VM drives the load, and its latency alone and with others")
            tip = (f"Add to the report, for each of the {hosts} selected esxtop runs, {about}" if hosts else
                   "Select an esxtop run to add this question to the report")
        elif n >= 2:
            tip = (f"Add to the report the question how the {n} selected iostat runs compare by {figure} (the first "
                   "selected is the baseline), aligned and on the device as the chart shows them; the arrow compares "
                   "them by another figure")
        elif n == 1:
            tip = "Add to the report the storm profile of the selected iostat run (peak, plateau, settle time)"
        else:
            tip = "Select one iostat run (its storm profile) or several (how they compare) to add them to the report"
        self.add_action.setEnabled((hosts if host_metric else n) > 0)
        self.add_action.setToolTip(tip)
        self.figure_menu.setEnabled(n >= 2 and not host_metric)
        what = CAP_OF_METRIC.get(metric)
        cap = self.cap_value()
        if what is None:
            tip = "A cap check is on IOPS or throughput: choose one of them in Metric"
        elif cap is None:
            tip = "Type the cap in the Cap field to check it on the selected iostat runs in the report"
        elif not n:
            tip = "Select the iostat runs to check the cap on"
        else:
            tip = (f"Add to the report, for each of the {n} selected iostat runs, whether the cap of "
                   f"{fmt_value(cap, METRIC_UNITS.get(metric, ''))} held: every {DEFAULT_WINDOW_S:g} s window at or "
                   f"below the cap + {DEFAULT_TOLERANCE_PCT:g} %")
        self.cap_action.setEnabled(what is not None and cap is not None and n > 0)
        self.cap_action.setToolTip(tip)

    def show_question(self, q: Any) -> None:
        """Set the chart as a question of the report was asked: its figure, alignment, device and cap."""
        from app.analysis.questions import CapQuestion, CompareQuestion, LatencySourceQuestion, VmLoadQuestion

        metric, cap = "IOPS (total)", None
        if isinstance(q, LatencySourceQuestion):
            metric = "DAVG (ms)"
        elif isinstance(q, VmLoadQuestion):
            metric = PER_VM
        elif isinstance(q, CompareQuestion):
            metric = ("Throughput (kB/s)" if q.metric.endswith("_kbs") else
                      "await (ms)" if "await" in q.metric else "IOPS (total)")
            if q.align.startswith("marker:"):
                self.marker.setEditText(q.align[7:])
            self.align.setCurrentIndex({"activity": 1, "clock": 3}.get(q.align, 2 if q.align.startswith("marker:")
                                                                         else 0))
        elif isinstance(q, CapQuestion):
            if q.iops_cap is not None:
                metric = {"total": "IOPS (total)", "read": "IOPS (read)", "write": "IOPS (write)"}[q.op]
                cap = q.iops_cap
            else:
                metric = "Throughput (kB/s)"
                cap = q.bw_cap_kbs or 0
        self.metric_box.setCurrentText(metric)
        if cap is not None:  # after the metric: the cap belongs to its unit
            self.cap.setValue(cap)
        device = getattr(q, "device", None) or WHOLE_DISKS_LABEL
        if self.device.findText(device) >= 0:
            self.device.setCurrentText(device)
        else:  # the runs' devices are not loaded yet: chosen when they are
            self._want_device = device

    def _set_marker_names(self, names: list[str]) -> None:
        _refill(self.marker, names, _chosen(self.marker))

    def _marker_edited(self) -> None:
        if self.align.currentIndex() == 2:
            self.reload()

    def reload(self) -> None:
        """Load the curves on a worker thread (a 10 M-row run takes seconds), then draw them."""
        from app.ui.workers import JobThread

        if getattr(self, "_shut", False):
            return

        self._generation = getattr(self, "_generation", 0) + 1
        gen = self._generation
        metric = self.metric_box.currentText()
        mode = ["start", "activity", "marker", "clock"][self.align.currentIndex()]
        activity = self.activity.value()
        if mode == "marker" and not _chosen(self.marker).strip() and self.marker.count():
            self.marker.setCurrentIndex(0)  # Align: marker with no name yet: the first marker the runs have
        marker = _chosen(self.marker).strip() or None
        device = None if _chosen(self.device) in ("", WHOLE_DISKS_LABEL) else _chosen(self.device)
        runs = list(self.run_ids)
        reader = self.ws.cursor()  # the worker's own connection to the open workspace (no reopening)

        def job(state: Any) -> dict[str, Any]:
            from app.analysis.histograms import AnalysisError
            from app.analysis.series import device_names
            from app.store.phases import markers_of_runs, phases_of_runs

            curves: list[dict[str, Any]] = []
            marks: dict[int, dict[str, Any]] = {}
            with reader as ws:
                names = device_names(ws, runs)  # stored at import: no scan of every row
                run_rows = ws.runs_by_id(runs)
                all_markers, all_phases = markers_of_runs(ws, runs), phases_of_runs(ws, runs)  # one query each
                clocked, clock = _on_clock(ws, runs, device, metric_figures(metric)) if mode == "clock" \
                    else ({}, None)
                for i, rid in enumerate(runs):
                    state.progress(i / max(1, len(runs)), "loading")
                    run = run_rows.get(rid)
                    kind = (run.kind if run is not None else None) or IOSTAT
                    name = run.name if run is not None else str(rid)
                    markers = all_markers.get(rid, {})
                    marks[rid] = {"markers": markers, "phases": all_phases.get(rid, [])}
                    if has(kind, LATENCY_HISTOGRAMS):  # histograms per collection
                        recs = vscsi_series(ws, rid, name, metric)
                        off, note = 0.0, ""
                        if mode == "marker" and marker in markers:
                            off = markers[marker]
                        elif mode == "marker":
                            have = ", ".join(markers) or "none"
                            note = f"no marker {marker!r} (markers: {have}); aligned on its start" if marker \
                                else "no marker name given; aligned on its start"
                        elif mode in ("activity", "clock"):
                            note = f"{'first-activity' if mode == 'activity' else 'clock'} alignment is for runs " \
                                   "with per-device rates; aligned on its start"
                        for r in recs:
                            r["t_start"], r["t_end"] = r["t_start"] - off, r["t_end"] - off
                            r["align_offset_s"] = off
                            if note and r["t_end"].size:
                                r["note"] = "; ".join(x for x in (r["note"], note) if x)
                                note = ""
                        curves += recs
                        continue
                    try:
                        if metric == PER_VM:
                            curves += vm_curves(ws, rid, name, mode, activity, marker, clocked.get(rid), markers)
                            continue
                        ts, te, y, note, off, w = _iostat_curve(ws, rid, metric, device, mode, activity, marker,
                                                                clocked.get(rid), markers)
                    except AnalysisError as e:
                        empty = np.zeros(0)
                        why = str(e).replace(f"run {rid} ", "", 1)  # shown after the run's name, not its number
                        curves.append(_record(rid, name, name, kind, device, empty, empty, empty,
                                              why))
                        continue
                    curves.append(_record(rid, name, name, kind, device, ts, te, y, note, off,
                                          w))
                story = vm_stories(ws, runs, metric)
            return {"devices": names, "curves": curves, "marks": marks, "clock": clock, "story": story}

        self.loading = True
        self.readout.setText("loading…" if runs else " ")
        self._jobs = [j for j in getattr(self, "_jobs", []) if j.isRunning()]  # older loads still finishing
        for older in self._jobs:  # superseded: their curves would be thrown away (a load of thousands of runs
            older.cancel()  # would otherwise go on for minutes beside the new one); cancel does not wait
        job_thread = JobThread(job, self, connections=[reader.con])
        job_thread.done.connect(lambda res, gen=gen: self._draw(res, gen))
        if len(runs) > 1:  # a load of many runs says how far it is (thousands of runs take minutes)
            n_runs = len(runs)
            job_thread.progress.connect(lambda f, _m, gen=gen: self._loading(f, n_runs, gen))
        self._jobs.append(job_thread)
        job_thread.start()

    def _loading(self, fraction: float, n: int, gen: int) -> None:
        text = f"loading the curves of {n:,} runs… {int(fraction * 100)} %"
        if gen == self._generation and self.loading and self.readout.text() != text:
            self.readout.setText(text)

    def _give_colours(self, curves: list[Curve]) -> None:
        """Each drawn curve a colour no other drawn curve has. A curve keeps the colour it had this session (by run
        and device) unless a curve drawn before it has it; a new one gets the first free colour, preferring those
        no remembered curve has (so that a run coming back finds its colour free)."""
        used: set[str] = set()
        later: list[Curve] = []
        for c in curves:
            if not c.visible:
                continue
            had = self._colours.get(c.key)
            if had is not None and had not in used:
                c.colour = had
                used.add(had)
            else:
                later.append(c)
        remembered = set(self._colours.values())
        for c in later:
            free = [x for x in PALETTE if x not in used]
            pick = next((x for x in free if x not in remembered), free[0] if free else PALETTE[0])
            c.colour = self._colours[c.key] = pick
            used.add(pick)
        for c in curves:  # not drawn: the list's outline shows the colour it had, or the next free one
            if not c.visible:
                c.colour = self._colours.get(c.key) or next((x for x in PALETTE if x not in used), PALETTE[0])

    def _time_base(self, result: dict[str, Any]) -> None:
        """The time axis says what time the curves are drawn in (app/ui/plot_axes.py)."""
        mode = self.align.currentIndex()
        if self.normalise.isChecked():
            self.time_axis.set_base("normalised")
            return
        clock = result.get("clock")
        if mode == 3 and clock is not None:
            self.time_axis.set_base("clock", clock0=clock[0], zone="UTC" if clock[1] else "")
            return
        marker = _chosen(self.marker).strip()
        what = ("time since each run's first activity" if mode == 1 else
                f"time since each run's marker {marker!r}" if mode == 2 and marker else
                "time since each run's start")
        self.time_axis.set_base("elapsed", what)

    def time_text(self, x: float, decimals: int = 1) -> str:
        """A time of the chart in the axis' base and unit ('10.1 s', '12.5 min', '10:04:37', '0.450')."""
        return self.time_axis.text_at(x, decimals)

    def _draw(self, result: Any, gen: int) -> None:
        if gen != self._generation:
            return
        self.loading = False
        metric = self.metric_box.currentText()
        norm = self.normalise.isChecked()
        self.plot.clear()
        self.plot.addItem(self.vline, ignoreBounds=True)
        self.vline.setVisible(False)
        self.plot.addItem(self.cap_line)
        self.plot.addItem(self.guide_line)
        # in the value axis' auto range, so that the cap and the guidance stay in view (a new item: pyqtgraph cannot
        # re-add a PlotDataItem that holds data)
        self.line_anchor = pg.PlotDataItem(pen=None, symbol=None)
        self.plot.addItem(self.line_anchor)
        self.curves, self.items, self.mark_items = [], [], []
        self._shifted = None  # new curves: nothing moved by hand yet
        self._offer_keep(False)
        self._phase_preview = None
        notes = list(getattr(self, "not_drawn", []))
        if isinstance(result, Exception):
            notes.append(str(result))
            result = {"devices": [], "curves": [], "marks": {}}
        self._set_devices(result["devices"])
        self._marks = result["marks"]
        self._set_marker_names(sorted({n for m in self._marks.values() for n in m["markers"]}))
        for rec in result["curves"]:
            if rec["note"]:
                notes.append(f"{rec['label']}: {rec['note']}")
            ts, te, y = rec["t_start"], rec["t_end"], rec["y"]
            if te.size == 0:
                continue
            off, scale = float(rec["align_offset_s"]), 1.0
            if norm and te[-1] > ts[0]:
                s0, scale = float(ts[0]), float(te[-1] - ts[0])
                ts, te, off = (ts - s0) / scale, (te - s0) / scale, off + s0
            curve = Curve(rec["run_id"], rec["label"], te, y, t_start=ts, kind=rec["kind"], device=rec["device"],
                          align_offset_s=off, metric=metric, time_scale=scale, run_name=rec["name"])
            curve.weights = rec.get("w")
            curve.visible = curve.key not in self._hidden
            self.curves.append(curve)
        shown_now = [c for c in self.curves if c.visible]
        for c in shown_now[MAX_CURVES:]:  # not drawn: listed, unticked (not remembered as hidden by the user)
            c.visible = False
        if len(shown_now) > MAX_CURVES:
            notes.insert(0, f"{MAX_CURVES} of the {len(shown_now)} curves are drawn, each in a colour of its own: tick "
                            "others in the list beside the chart after unticking some, or select fewer runs")
        self._give_colours(self.curves)
        # only the drawn curves get a plot item (thousands of selected runs: at most MAX_CURVES items built on the
        # window's thread); an unticked curve gets its item when it is ticked (_item)
        self.items = [self._curve_item(c) if c.visible else None for c in self.curves]
        self.curve_list.fill([(c.label, c.colour, c.visible) for c in self.curves])
        self.story.setText("\n".join(result.get("story") or []))
        self.story.setVisible(bool(self.story.text()))
        self._draw_marks()
        self.plot.setLabel("left", metric)
        self._time_base(result)
        self._draw_cap()
        self.plot.enableAutoRange()
        self._fit_value_axis()
        self.show_notes(notes)
        self.curves_changed.emit()

    def _item(self, row: int) -> pg.PlotDataItem:
        """The plot item of curve ``row``, built the first time it is needed."""
        item = self.items[row]
        if item is None:
            c = self.curves[row]
            item = self.items[row] = self._curve_item(c)
            item.setPos(c.offset, 0)
        return item

    def _curve_item(self, c: Curve) -> pg.PlotDataItem:
        x, y = step_xy(c.t_start, c.t, c.y)
        # clipping and peak downsampling come from the plot's settings (set on the PlotItem)
        item = self.plot.plot(x, y, pen=pg.mkPen(c.colour, width=2), name=html.escape(c.label, quote=False),
                              connect="finite")  # the legend reads HTML: the label's "<U+202E>" is text
        item.setVisible(c.visible)
        return item

    def show_notes(self, notes: list[str]) -> None:
        """What the curves' loads had to say, under the chart: two at most (a folder of runs without time stamps
        has dozens and would push the chart off the screen); all of them in the tooltip."""
        shown = notes[:NOTES_SHOWN]
        more = len(notes) - len(shown)
        text = "   ".join(shown) + (f"   … and {more} more (hover to read them)" if more > 0 else "")
        self.readout.setText(text or " ")
        self.readout.setToolTip("\n".join(notes))

    def shutdown(self) -> None:
        """The window is closing: load nothing more, and wait for the curve loads still running."""
        self._shut = True
        self._range_timer.stop()
        for job in getattr(self, "_jobs", []):
            if job.isRunning():
                job.stop()  # its query interrupted: prompt, and the connection is never closed under it

    # ---- markers and phases -----------------------------------------------------------------------
    def _draw_marks(self) -> None:
        """The stored markers (labelled vertical lines) and phases (bands) of every shown run, in its colour."""
        for item, *_rest in self.mark_items:
            self.plot.removeItem(item)
        self.mark_items = []
        dark = background_is_dark()
        seen: set[int] = set()
        height = self.plot.getPlotItem().vb.height()
        row = min(0.15, max(0.04, 24.0 / height)) if height > 0 else 0.06  # a label's height, as a share
        for idx, c in enumerate(self.curves):
            if c.run_id in seen or not c.visible or c.run_id not in self._marks:
                continue
            seen.add(c.run_id)
            # one row of labels per run: phase names from the top, marker names from the bottom
            k = (len(seen) - 1) % 6
            top, bottom = 0.98 - row * k, 0.02 + row * k
            m = self._marks[c.run_id]
            for k, p in enumerate(m["phases"]):
                alpha = (40 if k % 2 else 62) if dark else (30 if k % 2 else 55)
                band = PhaseBand(c.run_id, p.name, c.plot_x(p.t_start_s), c.plot_x(p.t_end_s), c.colour, alpha,
                                 top, self._mark_menu)
                self.plot.addItem(band, ignoreBounds=True)
                self.mark_items.append((band, idx, p.t_start_s, p.t_end_s))
            for name, t in m["markers"].items():
                line = MarkerLine(c.run_id, name, c.plot_x(t), c.colour, bottom, self._mark_menu)
                self.plot.addItem(line, ignoreBounds=True)
                self.mark_items.append((line, idx, t, None))

    def _place_marks(self) -> None:
        """Markers and phases follow their curve's manual shift."""
        for item, idx, a, b in self.mark_items:
            c = self.curves[idx]
            if b is None:
                item.setValue(c.plot_x(a))
            else:
                item.setRegion((c.plot_x(a), c.plot_x(b)))

    def target_curve(self, x: float, y: float) -> int | None:
        """The curve new markers and phases go to: the one selected in the curve list, else the nearest
        shown curve at that point."""
        row = self.curve_list.currentRow()
        if self.curve_list.selectedItems() and 0 <= row < len(self.curves):
            return row
        return self.nearest_curve(x, y)

    def _snap(self, c: Curve, t: float) -> float:
        """A time picked with the mouse, to the precision of one screen pixel (11.98 s, not 11.977 s)."""
        px = abs(float(self.plot.getPlotItem().vb.viewPixelSize()[0])) * c.time_scale
        decimals = max(0, round(-math.log10(px))) if px > 0 and math.isfinite(px) else 3
        return round(t, min(decimals, 6))

    def _ask_name(self, title: str, prompt: str, default: str) -> str | None:
        text, ok = QInputDialog.getText(self, title, prompt, text=default)
        text = text.strip()
        return text if ok and text else None

    def _store(self, what: str, *writes: tuple[Any, ...]) -> bool:
        """Write markers or phases through the window's workspace (GUI thread), then reload the curves.
        ``writes``: (function, args...) of app.analysis.phases, done in order."""
        from app.analysis.histograms import AnalysisError

        if self.ws.read_only_reason:  # a workspace shown, never changed (a newer StormScope's, a read-only file)
            QMessageBox.information(self, f"The {what} was not saved", f"{self.ws.read_only_reason}.")
            return False
        try:
            for fn, *args in writes:
                fn(self.ws, *args)
        except AnalysisError as e:
            QMessageBox.warning(self, f"Could not save the {what}", str(e))
            return False
        finally:
            self.reload()
        return True

    def marker_at(self, x: float, y: float) -> None:
        """Double-click: ask a name and store a marker on the target run at that time."""
        from app.store.phases import add_marker

        idx = self.target_curve(x, y)
        if idx is None:
            return
        c = self.curves[idx]
        t = self._snap(c, c.run_time(x))
        if not math.isfinite(t):  # a point of the chart with no time (its scale undefined): said, never stored
            self.readout.setText("That point of the chart has no time: show the whole runs (Ctrl+0) and try again.")
            return
        have = self._marks.get(c.run_id, {}).get("markers", {})
        k = len(have) + 1
        while f"marker {k}" in have:
            k += 1
        name = self._ask_name("Add marker", f"Marker on {c.run_name} at {fmt_time(t)} s of the run — name:",
                              f"marker {k}")
        if name is None:
            return
        if name in have and QMessageBox.question(
                self, "Replace marker", f"{c.run_name} already has a marker {name!r} at {fmt_time(have[name])} s. "
                                        "Move it here?") != QMessageBox.StandardButton.Yes:
            return
        self._store("marker", (add_marker, c.run_id, name, t))

    def phase_drag(self, x0: float, x1: float, idx: int | None, finished: bool) -> None:
        """Ctrl + drag: a band follows the mouse; on release, ask a name and store the phase."""
        from app.store.phases import add_phase

        a, b = sorted((x0, x1))
        if self._phase_preview is None:
            self._phase_preview = pg.LinearRegionItem((a, b), movable=False, brush=pg.mkBrush(128, 128, 128, 60))
            self.plot.addItem(self._phase_preview, ignoreBounds=True)
        self._phase_preview.setRegion((a, b))
        if not finished:
            return
        self.plot.removeItem(self._phase_preview)
        self._phase_preview = None
        if idx is None or b <= a:
            return
        c = self.curves[idx]
        ta, tb = self._snap(c, c.run_time(a)), self._snap(c, c.run_time(b))
        if not (math.isfinite(ta) and math.isfinite(tb)):
            self.readout.setText("That part of the chart has no time: show the whole runs (Ctrl+0) and try again.")
            return
        have = [p.name for p in self._marks.get(c.run_id, {}).get("phases", [])]
        k = len(have) + 1
        while f"phase {k}" in have:
            k += 1
        name = self._ask_name("Mark phase", f"Phase of {c.run_name} from {fmt_time(ta)} s to {fmt_time(tb)} s of "
                                            "the run — name:", f"phase {k}")
        if name is not None:
            self._store("phase", (add_phase, c.run_id, name, ta, tb))

    def _mark_menu(self, kind: str, run_id: int, name: str, pos: QPoint) -> None:
        """Right-click on a marker or phase: Rename… / Delete; on a phase also what a view does with it
        (app.ui.views.PHASE_ACTIONS: Replay as fio job…)."""
        from app.store.phases import add_marker, add_phase, delete_marker, delete_phase
        from app.ui.views import PHASE_ACTIONS

        menu = QMenu(self)
        actions = {}
        if kind == "phase":  # what a view does with a stored phase (Replay as fio job…)
            kind_of_run = self.ws.kind_of(run_id)
            actions = {menu.addAction(act.text): key for key, act in PHASE_ACTIONS.items()
                       if has(kind_of_run, act.capability)}
            if actions:
                menu.addSeparator()
        rename = menu.addAction("Rename…")
        delete = menu.addAction("Delete")
        chosen = menu.exec(pos)
        if chosen in actions:
            self.phase_action.emit(actions[chosen], run_id, name)
            return
        run_name = self.ws.name_of(run_id)
        if chosen is delete:
            self._store(kind, (delete_marker if kind == "marker" else delete_phase, run_id, name))
        elif chosen is rename:
            new = self._ask_name(f"Rename {kind}", f"New name of the {kind} {name!r} of {run_name}:", name)
            if new is None or new == name:
                return
            m = self._marks.get(run_id, {})
            taken = m.get("markers", {}) if kind == "marker" else [p.name for p in m.get("phases", [])]
            if new in taken:  # storing it would silently replace the other one
                QMessageBox.information(self, f"Rename {kind}", f"{run_name} already has a {kind} named {new!r}; "
                                                                f"rename or delete that one first.")
                return
            if kind == "marker":
                t = m.get("markers", {}).get(name)
                if t is not None:
                    self._store(kind, (add_marker, run_id, new, t), (delete_marker, run_id, name))
            else:
                p = next((p for p in m.get("phases", []) if p.name == name), None)
                if p is not None:
                    self._store(kind, (add_phase, run_id, new, p.t_start_s, p.t_end_s, p.source),
                                (delete_phase, run_id, name))

    # ---- colours and visibility ---------------------------------------------------------------------
    def _set_visible(self, row: int, visible: bool) -> None:
        c = self.curves[row]
        if visible and not c.visible and sum(x.visible for x in self.curves) >= MAX_CURVES:
            # each drawn curve has a colour of its own: one more would repeat a colour
            self.curve_list.set_row(row, c.colour, False)
            self.readout.setText(f"At most {MAX_CURVES} curves are drawn at once, each in a colour of its own: "
                                 "untick one first.")
            return
        used = {x.colour for x in self.curves if x.visible and x is not c}
        if visible and c.colour in used:  # its colour is another drawn curve's: the first free one instead
            c.colour = self._colours[c.key] = next(x for x in PALETTE if x not in used)
            self._item(row).setPen(pg.mkPen(c.colour, width=2))
        c.visible = visible
        (self._hidden.discard if visible else self._hidden.add)(c.key)
        self._item(row).setVisible(visible)
        self.curve_list.set_row(row, c.colour, visible)
        self._draw_marks()
        self.curves_changed.emit()

    def choose_colour(self, row: int) -> None:
        if not 0 <= row < len(self.curves):
            return
        c = self.curves[row]
        colour = QColorDialog.getColor(QColor(c.colour), self, f"Colour of {c.label}")
        if not colour.isValid():
            return
        c.colour = colour.name()
        self._colours[c.key] = c.colour
        self._item(row).setPen(pg.mkPen(c.colour, width=2))
        self.curve_list.set_row(row, c.colour, c.visible)
        self._draw_marks()
        self.curves_changed.emit()

    def _curve_menu(self, row: int, pos: QPoint) -> None:
        menu = QMenu(self)
        colour = menu.addAction("Colour…")
        only = menu.addAction("Show only this curve")
        every = menu.addAction("Show all curves")
        chosen = menu.exec(pos)
        if chosen is colour:
            self.choose_colour(row)
        elif chosen is only or chosen is every:
            for i in range(len(self.curves)):
                want = chosen is every or i == row
                if self.curves[i].visible != want:
                    self._set_visible(i, want)

    # ---- view ------------------------------------------------------------------------------------
    def reset_zoom(self) -> None:
        """Show the whole runs (Reset zoom button, Ctrl+0)."""
        self.plot.getPlotItem().vb.enableAutoRange()
        self._fit_value_axis()

    def _fit_value_axis(self) -> None:
        """Every figure drawn (IOPS, throughput, times, %util, queue) is 0 or more: in a linear scale the value axis
        never goes below 0 (pyqtgraph's auto range pads below the lowest value), and a chart with nothing above 0
        -- no run selected, or an idle device -- shows 0 to 1 (pyqtgraph spread a flat 0 line to about ±680 and
        kept the last runs' range when the selection emptied). A log scale has no 0: no floor there."""
        vb = self.plot.getPlotItem().vb
        log = self.log_y.isChecked()
        vb.setLimits(yMin=-1e307 if log else 0.0)  # -1e307: pyqtgraph's own "no limit"
        if log:
            return
        if not any(np.nanmax(c.y, initial=0.0) > 0 for c in self.curves if c.visible and c.y.size) \
                and not self.cap.value() > 0:
            vb.setYRange(0, 1, padding=0)
            if not self.curves:
                vb.setXRange(0, 1, padding=0)

    def nearest_curve(self, x: float, y: float) -> int | None:
        """The shown curve whose value at time x is nearest to y (in the axis' scale)."""
        log = self.log_y.isChecked()
        best, best_d = None, None
        for i, c in enumerate(self.curves):
            if not c.visible:
                continue
            j = c.index_at(x)
            if j is None:
                t = c.t + c.offset
                if not len(t):
                    continue
                j = min(int(np.searchsorted(t, x)), len(t) - 1)
            v = float(c.y[j])
            if np.isnan(v):
                continue
            if log:
                v = math.log10(v) if v > 0 else -1e9
            d = abs(v - y)
            if best_d is None or d < best_d:
                best, best_d = i, d
        return best

    def shift_curve(self, index: int, dx: float) -> None:
        """Move one curve along the time axis (Shift + drag); the readout, crosshair and its marks follow."""
        c = self.curves[index]
        c.offset += dx
        self._item(index).setPos(c.offset, 0)
        self._place_marks()
        unit = "" if self.normalise.isChecked() else " s"
        self.readout.setText(f"{c.label} shifted by {c.offset:+.{3 if unit == '' else 1}f}{unit}")
        self._shifted = index
        self._offer_keep(self._keepable() is not None)

    def _offer_keep(self, on: bool) -> None:
        self.keep_shift_action.setEnabled(on)
        self.keep_shift_button.setVisible(on)

    def _keepable(self) -> Curve | None:
        """The curve last moved by hand, when its shift can be kept as its run's clock offset: on clock time, in
        seconds, a run with disk rates that is on the clock, a workspace that may be changed."""
        from app.store.clock import get_offset

        i = self._shifted
        if i is None or i >= len(self.curves) or self.align.currentIndex() != 3 or self.normalise.isChecked():
            return None
        c = self.curves[i]
        run = self.ws.run(c.run_id)
        if run is None:
            return None
        on_clock = run.started_at is not None or get_offset(self.ws, c.run_id) is not None
        if not c.offset or not has(run.kind, DEVICE_RATES) or not on_clock or self.ws.read_only_reason:
            return None
        return c

    def keep_shift(self) -> None:
        """Keep shift as clock offset: the moved curve's run gets its clock corrected by the shift (added to the
        offset it had); the views recompute with it."""
        from app.store.clock import get_offset, set_offset

        c = self._keepable()
        if c is None:
            return
        before = get_offset(self.ws, c.run_id)
        set_offset(self.ws, c.run_id, (before.offset_s if before else 0.0) + c.offset,
                   reference_run_id=before.reference_run_id if before else None)
        self._shifted = None
        self._offer_keep(False)
        self.clock_changed.emit()

    def _set_log(self, on: bool) -> None:
        self.plot.setLogMode(y=on)
        self._draw_cap()
        self.plot.enableAutoRange(axis="y")
        self._fit_value_axis()

    def _draw_cap(self) -> None:
        """The cap line: red dashed, labelled with its value; in log scale it sits at log10(cap). And the guidance
        line of esxtop's DAVG and KAVG (orange dotted), named as guidance."""
        guide = GUIDANCE.get(self.metric_box.currentText())
        self.guide_line.setVisible(guide is not None)
        if guide is not None:
            self.guide_line.setValue(math.log10(guide[0]) if self.log_y.isChecked() else guide[0])
            self.guide_line.label.setFormat(guide[1])
        v = self.cap.value()
        levels = [x for x in (v if v > 0 else None, guide[0] if guide else None) if x]
        x0 = next((float(c.t_start[0] + c.offset) for c in getattr(self, "curves", []) if c.t_start.size), 0.0)
        self.line_anchor.setData([x0] * len(levels), levels)
        self.cap_line.setVisible(v > 0)
        if v > 0:
            self.cap_line.setValue(math.log10(v) if self.log_y.isChecked() else v)
            unit = METRIC_UNITS.get(self.metric_box.currentText(), "")
            self.cap_line.label.setFormat(f"cap {fmt_value(v, unit)}")
            vb = self.plot.getPlotItem().vb
            if vb.autoRangeEnabled()[1]:
                vb.enableAutoRange(axis="y")

    def values_at(self, x: float) -> list[tuple[str, float | None]]:
        """The value of every shown curve at time x: the interval that holds x (None outside the run)."""
        out = []
        for c in self.curves:
            if not c.visible:
                continue
            i = c.index_at(x)
            out.append((c.label, float(c.y[i]) if i is not None and not np.isnan(c.y[i]) else None))
        return out

    def readout_at(self, x: float) -> str:
        """'t = 10.1 s · interval 10–11 s: storm_fast 1,212 IOPS · storm_slow 150 IOPS; interval 10–12 s: capped
        200 IOPS; other –': the value of every shown curve in the interval that holds x, '–' outside its run."""
        norm = self.normalise.isChecked()
        unit = METRIC_UNITS.get(self.metric_box.currentText(), "")
        shown = [c for c in self.curves if c.visible]
        if not shown:
            return " "
        word = "collection" if all(has(c.kind, LATENCY_HISTOGRAMS) for c in shown) else "interval"
        entries: list[tuple[str, str, str | None]] = []
        for c in shown:
            i = c.index_at(x)
            if i is None:
                entries.append((c.label, "–", None))
                continue
            a, b = float(c.t_start[i] + c.offset), float(c.t[i] + c.offset)
            entries.append((c.label, fmt_value(float(c.y[i]), unit), self.time_axis.span_at(a, b)))
        head = f"t = {x:,.3f} of the run" if norm else f"t = {self.time_text(x)}"
        groups: dict[str, list[str]] = {}  # curves that share an interval are named after it once
        for lab, val, span in entries:
            if span is not None:
                groups.setdefault(span, []).append(f"{lab} {val}")
        parts = [f"{word} {span}: " + " · ".join(items) for span, items in groups.items()]
        outside = " · ".join(f"{lab} –" for lab, _v, span in entries if span is None)
        if outside:
            parts.append(outside)
        note = READOUT_NOTE if word == "interval" else "(a value covers its collection)"
        return f"{head}{' · ' if groups else ': '}{'; '.join(parts)}   {note}"

    def _mouse_moved(self, pos: QPointF) -> None:
        vb = self.plot.getPlotItem().vb
        if not self.plot.sceneBoundingRect().contains(pos) or self.loading:
            return
        x = vb.mapSceneToView(pos).x()
        self.vline.setPos(x)
        self.vline.setVisible(bool(self.curves))
        self.readout.setText(self.readout_at(x))

    def export(self, path: str) -> None:
        """Save the chart as PNG (2x resolution) or SVG (vector) by the file's extension."""
        from pyqtgraph.exporters import ImageExporter

        item = self.plot.getPlotItem()
        if path.lower().endswith(".svg"):
            from app.ui.svg_export import export_svg

            export_svg(self.plot, path, "StormScope overlay")
        else:
            ex = ImageExporter(item)
            ex.parameters()["width"] = max(1600, int(self.plot.width() * 2))
            ex.export(path)
