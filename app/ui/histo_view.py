"""Histogram views for vscsiStats / fio json+: bucket bars of one collection and a time x bucket heatmap
per series (VM disk or fio job), stacked one under the other with a colour bar each, so that two VMs
fighting over one RAID set can be compared: which VM suffered, when, and what share of its I/O finished
within the latency threshold."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCursor, QFont, QFontMetricsF
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSplitter,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.safe_text import shown, shown_html
from app.workspace import Workspace
from parsers.kinds import JOB_SUMMARY, LATENCY_HISTOGRAMS, TIME_SERIES, has, series_noun

if TYPE_CHECKING:
    from app.analysis.histograms import Share

METRIC_LABELS = {
    "latency_us": "Latency (ms)", "io_length_bytes": "IO length (bytes)", "seek_distance_lbn": "Seek distance (LBN)",
    "seek_closest16_lbn": "Closest of last 16 (LBN)", "outstanding_ios": "Outstanding IOs",
    "interarrival_us": "Interarrival (ms)",
}
# times are stored in µs and shown in ms, as the report shows them (the latency threshold is in ms too)
SHOWN_PER_STORED = {"latency_us": 1000.0, "interarrival_us": 1000.0}
COLOUR_BAR_TITLE = "I/Os per collection (log scale)"
MAX_SERIES = 8  # heatmaps and bar groups drawn; the message says when more were selected
HEAT_ROW_MIN = 170  # px per heatmap row; more rows than fit scroll
# mid-tone colours that read on the light (white) and the dark (#1e1e1e) chart background
SERIES_COLOURS = ["#3a86d4", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#1098ad", "#d6336c", "#868e96"]
MARKER_COLOUR = "#ff3b7f"  # the chosen collection on the heatmaps: a colour viridis never takes
SET_INTERVAL_HINT = "right-click the run ▸ Set interval…"
_VSCSI_DEVICE = re.compile(r"^(?P<vm>\d+):(?P<handle>\d+)(?:\s*\((?P<disk>[^)]*)\))?$")


def _room_for_ticks(axis: pg.AxisItem, ticks: list[tuple[float, str]]) -> None:
    """An axis as wide as its widest tick label needs, with its title beside them: the colour bar's title sat on its
    numbers (pyqtgraph sizes an axis before it knows its labels)."""
    metrics = QFontMetricsF(axis.style.get("tickFont") or QApplication.font())
    widest = max((metrics.horizontalAdvance(text) for _v, text in ticks), default=0.0)
    axis.setStyle(tickTextWidth=int(widest) + 2, autoExpandTextSpace=False)
    axis.setWidth(int(widest + axis.style["tickTextOffset"][0] + metrics.height() * 1.6 + 8))


def _label_step(labels: list[str], most: int = 24) -> int:
    """Every how many buckets a label is drawn, so that at most ``most`` fit on an axis (fio has hundreds)."""
    return max(1, -(-len(labels) // most))


def _edge(v: float, digits: int = 3) -> str:
    """A bucket edge as an axis prints it: 100, 1,000, 0.5, 0.001, 1.72 (fio's 1,720.32 µs bin in ms): at most
    ``digits`` significant digits below 1,000 (the hover reads the exact edges)."""
    if abs(v) >= 1 and v == round(v):
        return f"{v:,.0f}"
    if abs(v) >= 10 ** digits:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def bucket_label(lo: float | None, hi: float | None, per: float = 1.0) -> str:
    """``≤ hi`` (``> lo`` for the open top bucket) in the unit shown: stored values divided by ``per``."""
    if hi is None:
        return f"> {_edge(lo / per)}" if lo is not None else "all"
    return f"≤ {_edge(hi / per)}"


def series_label(kind: str, device: str) -> str:
    """What a series is called on screen: a vscsiStats ``worldGroupID:handleID (scsiX:Y)`` id is a VM's
    virtual disk; a fio series is one job."""
    m = _VSCSI_DEVICE.match(device.strip())
    if has(kind, TIME_SERIES) and m:  # histograms collected over time: vscsiStats VM disks
        disk = f" ({shown(m['disk'])})" if m["disk"] else ""
        return f"VM disk {m['vm']}:{m['handle']}{disk}"
    if has(kind, JOB_SUMMARY):
        return f"{series_noun(kind)} {shown(device)}"
    return shown(device)  # a name from a file: shown escaped wherever the label goes (titles, legend, lines)


class BucketAxis(pg.AxisItem):
    """Bucket names on a category axis: bucket ``i`` at ``i + offset``, as many names as fit (one per
    ``px`` pixels) so that fio's hundreds of bins and a short heatmap row stay readable."""

    def __init__(self, orientation: str = "left", px: int = 15, **kw: Any):
        super().__init__(orientation, **kw)
        self.labels: list[str] = []
        self.offset = 0.5
        self.px = px

    def set_labels(self, labels: list[str], offset: float = 0.5) -> None:
        self.labels, self.offset = list(labels), offset
        self.picture = None
        self.update()

    def tickValues(self, minVal: float, maxVal: float, size: float) -> list[Any]:  # noqa: N802,N803 (pyqtgraph)
        if not self.labels:
            return []
        first = max(0, math.floor(minVal - self.offset))
        last = min(len(self.labels) - 1, math.ceil(maxVal - self.offset))
        step = max(1, -(-(last - first + 1) // max(1, int(size // self.px))))
        return [(step, [i + self.offset for i in range(0, len(self.labels), step)
                        if minVal <= i + self.offset <= maxVal])]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        out = []
        for v in values:
            i = int(round(v - self.offset))
            out.append(self.labels[i] if 0 <= i < len(self.labels) else "")
        return out


Bucket = tuple[float | None, float | None]


def bucket_grid(histograms: list[list[tuple[float | None, float | None, int]]]) -> list[Bucket]:
    """Every bucket any of the histograms lists, in order (fio leaves out empty bins, so two jobs or two
    collections can list different ones of the same grid)."""
    keys = {(lo, hi) for h in histograms for lo, hi, _ in h}
    return sorted(keys, key=lambda b: (math.inf if b[1] is None else b[1], -math.inf if b[0] is None else b[0]))


def _on_grid(grid: list[Bucket], h: list[tuple[float | None, float | None, int]]) -> list[int]:
    at = {b: i for i, b in enumerate(grid)}
    out = [0] * len(grid)
    for lo, hi, n in h:
        out[at[(lo, hi)]] += n
    return out


def bucket_range(lo: float | None, hi: float | None, per: float = 1.0) -> str:
    """A bucket as the interval it counts: values above ``lo`` up to and including ``hi`` (in the unit shown)."""
    if lo is None:
        return "(all)" if hi is None else f"up to {_edge(hi / per, 6)}"
    if hi is None:
        return f"above {_edge(lo / per, 6)}"
    return f"above {_edge(lo / per, 6)} up to {_edge(hi / per, 6)}"


def log_ticks(top: float) -> list[tuple[float, str]]:
    """The colour bar's ticks on its log scale (colour = log(1 + count), as the report's): 0, 1, 10, 100, ... up to
    the largest count, labelled in I/Os."""
    out = [(0.0, "0")]
    v = 1
    while v <= max(top, 1):
        out.append((math.log1p(v), f"{v:,}"))
        v *= 10
    return out


def _column_at(s: Series, x: float) -> int | None:
    """The position (0-based) of the collection drawn at x (minutes, or collection numbers without time)."""
    if not s.timed:
        k = math.floor(x)
        return k if 0 <= k < len(s.order) else None
    for k, idx in enumerate(s.order):
        sp = s.span(idx)
        if sp is not None and sp[0] / s.time_unit <= x < sp[1] / s.time_unit:
            return k
    return None


def _x_extent(s: Series) -> tuple[float, float]:
    """Where a series' heatmap starts and ends on its x axis: minutes, or collection numbers without time."""
    if not s.timed:
        return 0.0, float(len(s.order))
    spans = [sp for sp in (s.span(i) for i in s.order) if sp is not None]
    return min(a for a, _b in spans) / s.time_unit, max(b for _a, b in spans) / s.time_unit


def _heatmapped(s: Series) -> bool:
    """A heatmap needs collections over time: a fio job has one histogram for the whole job."""
    return not (has(s.kind, JOB_SUMMARY) and len(s.samples) == 1)


SHORT_RUN_S = 120.0  # a run shorter than this is drawn in seconds, not minutes (a 6 s fio job: not "0.0-0.1 min")


@dataclass
class Series:
    """One histogram series: a VM disk of a vscsiStats run or a job of a fio run."""

    name: str
    run_id: int
    device: str
    kind: str
    samples: dict[int, list[tuple[float | None, float | None, int]]]  # sample_idx -> (lo, hi, count)
    t_s: dict[int, float] = field(default_factory=dict)  # sample_idx -> seconds since the run's start
    ts: dict[int, datetime] = field(default_factory=dict)  # sample_idx -> wall clock (from the file)
    interval_s: float | None = None

    @property
    def order(self) -> list[int]:
        return sorted(self.samples)

    @property
    def timed(self) -> bool:
        """Every collection has a time and a length: the x axis can be minutes."""
        return bool(self.interval_s) and all(i in self.t_s for i in self.samples)

    @cached_property
    def time_unit(self) -> float:
        """Seconds per unit of the x axis: minutes, or seconds for a run shorter than two minutes."""
        ends = [self.t_s[i] + float(self.interval_s or 0.0) for i in self.samples if i in self.t_s]
        return 1.0 if ends and max(ends) < SHORT_RUN_S else 60.0

    @property
    def unit_name(self) -> tuple[str, str]:
        """The x axis' unit: (word, abbreviation)."""
        return ("seconds", "s") if self.time_unit == 1.0 else ("minutes", "min")

    def span(self, idx: int) -> tuple[float, float] | None:
        """Seconds since the run's start at which collection ``idx`` begins and ends."""
        if not self.timed or idx not in self.t_s:
            return None
        start = self.t_s[idx]
        return start, start + float(self.interval_s or 0.0)

    def span_text(self, idx: int) -> str:
        sp = self.span(idx)
        if sp is None:
            return ""
        u = self.time_unit
        mins = f"{sp[0] / u:,.1f}–{sp[1] / u:,.1f} {self.unit_name[1]}"
        ts = self.ts.get(idx)
        if ts is None:
            return mins
        end = ts + timedelta(seconds=sp[1] - sp[0])
        fmt = "%H:%M:%S" if ts.second or end.second else "%H:%M"
        return f"{ts.strftime(fmt)}–{end.strftime(fmt)} / {mins}"


class HistogramView(QWidget):
    questions_asked = Signal(list)  # [ResponseTimeQuestion]: "Add to report"

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.metric_box = QComboBox()
        self.op = QComboBox()
        self.op.addItems(["all", "read", "write"])
        self.sample = QSlider()
        self.sample.setOrientation(Qt.Orientation.Horizontal)
        self.sample.setMinimumWidth(160)
        self.sample_label = QLabel("collection –")
        self.metric_box.currentIndexChanged.connect(self.reload)
        self.op.currentIndexChanged.connect(self.reload)
        self.sample.valueChanged.connect(self._draw_bars)
        self.bars = pg.PlotWidget(axisItems={"left": BucketAxis("left")})
        self.bars.showGrid(x=True, alpha=0.25)
        # the legend sits in the plot's layout under the axis label, never over the bars
        self.legend = pg.LegendItem(frame=False, labelTextSize="9pt", horSpacing=14)
        self.bars.getPlotItem().layout.addItem(self.legend, 4, 1)
        self.bars.getPlotItem().getViewBox().sigResized.connect(self._fit_legend)
        self.heat = pg.GraphicsLayoutWidget()
        self.heat_area = QScrollArea()
        self.heat_area.setWidgetResizable(True)
        self.heat_area.setFrameShape(QFrame.Shape.NoFrame)
        self.heat_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.heat_area.setWidget(self.heat)
        self.heat_area.viewport().installEventFilter(self)  # its width decides the heatmaps' titles
        self.heat_plots: list[pg.PlotItem] = []
        # what each heatmap holds, for the hover readout and the click that picks a collection
        self.heat_cells: list[tuple[pg.PlotItem, Series, list[Bucket], np.ndarray]] = []
        self.hover_text = ""
        self.heat.scene().sigMouseMoved.connect(self._hover_heat)
        self.heat.scene().sigMouseClicked.connect(self._click_heat)
        self.colour_bars: list[pg.ColorBarItem] = []
        self.markers: list[tuple[Series, pg.LinearRegionItem]] = []  # the chosen collection on each heatmap
        self.message = QLabel("Select vscsiStats or fio runs in the run list.")
        self.message.setWordWrap(True)
        self.share = QLabel("")
        self.share.setWordWrap(True)
        self.share.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.share.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.share_area = QScrollArea()  # one line per VM disk: a host with many scrolls instead of eating the charts
        self.share_area.setWidgetResizable(True)
        self.share_area.setFrameShape(QFrame.Shape.NoFrame)
        self.share_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.share_area.setWidget(self.share)
        self.share_area.setMaximumHeight(self.fontMetrics().lineSpacing() * 5 + 6)
        # who suffered, in words: each vscsiStats run's VM disks, alone and together (the report's story)
        self.story = QLabel("")
        self.story.setObjectName("vm-story")
        self.story.setWordWrap(True)
        self.story.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.story.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.story_area = QScrollArea()
        self.story_area.setWidgetResizable(True)
        self.story_area.setFrameShape(QFrame.Shape.NoFrame)
        self.story_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.story_area.setWidget(self.story)
        self.story_area.setVisible(False)
        # the window's colour under the lines, in either theme
        for area, inner in ((self.share_area, self.share), (self.story_area, self.story)):
            area.viewport().setAutoFillBackground(False)
            inner.setAutoFillBackground(False)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter VM disks / jobs…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setMaximumWidth(220)
        self.filter.setMinimumWidth(170)  # its hint stays readable beside Goal and Add to report
        self.filter.textChanged.connect(self.reload)
        self.filter.textChanged.connect(lambda _t: self._report_action())
        self.threshold = QComboBox()
        for ms in (1, 5, 10, 15, 20, 30, 50, 100):
            self.threshold.addItem(f"≤ {ms} ms", float(ms))
        self.threshold.setCurrentIndex(6)
        self.threshold.currentIndexChanged.connect(self._show_share)
        self.goal = QDoubleSpinBox(minimum=0.1, maximum=100, value=80, decimals=1, suffix=" %")
        self.goal.setToolTip("The response-time goal: the share of I/O that must be answered within the latency "
                             "threshold (the question Add to report puts in the report)")
        self.add_action = QAction("Add to report", self)
        self.add_action.triggered.connect(lambda _checked=False: self._ask())
        self.add_button = QToolButton()
        self.add_button.setDefaultAction(self.add_action)
        self.threshold.currentIndexChanged.connect(lambda _i: self._report_action())
        self.goal.valueChanged.connect(lambda _v: self._report_action())
        top = QHBoxLayout()
        for w in (QLabel("Histogram"), self.metric_box, QLabel("Op"), self.op, QLabel("Latency share"),
                  self.threshold, QLabel("Collection"), self.sample):
            top.addWidget(w)
        top.addWidget(self.sample_label, 1)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(self.bars)
        self.split.addWidget(self.heat_area)
        self.split.setStretchFactor(0, 2)
        self.split.setStretchFactor(1, 3)
        self.split.setChildrenCollapsible(False)
        self.split.splitterMoved.connect(lambda *_: self._fit_legend())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        second = QHBoxLayout()
        second.addWidget(self.message, 1)
        second.addWidget(self.filter)
        second.addSpacing(8)
        second.addWidget(QLabel("Goal"))
        second.addWidget(self.goal)
        second.addWidget(self.add_button)
        lay.addLayout(second)
        lay.addWidget(self.share_area)
        lay.addWidget(self.story_area)
        lay.addWidget(self.split, 1)
        self._restyle_due = False
        self.series: list[Series] = []
        self.data: dict[str, Any] = {}  # series name -> {sample_idx: [(lo, hi, count)]} of the series drawn
        self._report_action()

    # ---- selection -----------------------------------------------------------------------------
    def set_runs(self, run_ids: list[int]) -> None:
        runs = self.ws.runs_by_id(run_ids)  # one query for the whole selection
        self.run_ids = [r for r in run_ids if has((runs[r].kind if r in runs else None), LATENCY_HISTOGRAMS)]
        metrics = []
        if self.run_ids:
            rows = self.ws.con.execute(
                "SELECT DISTINCT metric FROM histograms WHERE list_contains(?, run_id) ORDER BY 1",
                [self.run_ids]).fetchall()
            metrics = [r[0] for r in rows]
        self._report_action()
        current = self.metric_box.currentData()
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        for m in metrics:
            self.metric_box.addItem(METRIC_LABELS.get(m, m), m)
        if current in metrics:
            self.metric_box.setCurrentIndex(metrics.index(current))
        elif "latency_us" in metrics:
            self.metric_box.setCurrentIndex(metrics.index("latency_us"))
        self.metric_box.blockSignals(False)
        self.reload()

    # ---- the report's question ---------------------------------------------------------------------
    def _latency_disks(self) -> dict[int, list[str]]:
        """Run -> the VM disks / jobs it has latency histograms for."""
        out: dict[int, list[str]] = {rid: [] for rid in self.run_ids}
        for rid, dev in self.ws.con.execute(
                "SELECT DISTINCT run_id, device FROM histograms WHERE list_contains(?, run_id) AND metric = "
                "'latency_us' ORDER BY 1, 2", [self.run_ids]).fetchall():
            out[rid].append(dev)
        return out

    def response_questions(self) -> list[Any]:
        """The response-time question of the view: is the goal's share of I/O answered within the threshold on the
        selected runs -- on the VM disks / jobs the filter box leaves, when it leaves out some."""
        from app.analysis.questions import ResponseTimeQuestion

        if not self.run_ids:
            return []
        ms, goal = float(self.threshold.currentData() or 50.0), float(self.goal.value())
        op = {"all": "total"}.get(self.op.currentText(), self.op.currentText())  # the I/O the view shows
        every = self._latency_disks()
        if not self.filter.text().strip():
            return [ResponseTimeQuestion(list(self.run_ids), None, ms, goal, op)]
        chosen: dict[int, list[str]] = {}
        for s in self.series:
            if s.device in every.get(s.run_id, []) and s.device not in chosen.setdefault(s.run_id, []):
                chosen[s.run_id].append(s.device)
        chosen = {rid: devs for rid, devs in chosen.items() if devs}
        if not chosen:
            return []
        if set(chosen) == {r for r in self.run_ids if every[r]} and all(
                sorted(devs) == sorted(every[rid]) for rid, devs in chosen.items()):
            return [ResponseTimeQuestion([r for r in self.run_ids if r in chosen], None, ms, goal, op)]
        disks = sorted({d for devs in chosen.values() for d in devs})
        return [ResponseTimeQuestion([r for r in self.run_ids if r in chosen], disks, ms, goal, op)]

    def _ask(self) -> None:
        questions = self.response_questions()
        if questions:
            self.questions_asked.emit(questions)

    def _report_action(self) -> None:
        if not hasattr(self, "add_action"):
            return
        ms = float(self.threshold.currentData() or 50.0)
        n = len(self.run_ids)
        self.add_action.setEnabled(n > 0)
        which = "the VM disks and jobs the filter box leaves" if self.filter.text().strip() else \
            f"the {n} selected run{'s' if n != 1 else ''}"
        self.add_action.setToolTip(
            f"Add to the report the question whether {self.goal.value():g} % of I/O is answered within {ms:g} ms on "
            f"{which} (all I/O, reads and writes, from the latency histograms)" if n else
            "Select vscsiStats or fio runs to add a response-time question to the report")

    def show_question(self, q: Any) -> None:
        """Set the view as a response-time question of the report was asked: its threshold, goal and disks."""
        i = self.threshold.findData(float(q.threshold_ms))
        if i < 0:
            self.threshold.addItem(f"≤ {q.threshold_ms:g} ms", float(q.threshold_ms))
            i = self.threshold.count() - 1
        self.threshold.setCurrentIndex(i)
        self.goal.setValue(q.goal_pct)
        if self.metric_box.findData("latency_us") >= 0:
            self.metric_box.setCurrentIndex(self.metric_box.findData("latency_us"))
        if q.disks is None:
            self.filter.clear()
        elif len(q.disks) == 1:
            self.filter.setText(q.disks[0])

    def changeEvent(self, ev: QEvent) -> None:  # noqa: N802 (Qt name)
        """A theme switch (light/dark) changes the palette: redraw with the new text colour."""
        super().changeEvent(ev)
        if ev.type() == QEvent.Type.PaletteChange and self.series and not self._restyle_due:
            # after the theme switch has also set pyqtgraph's colours (it may do so after the palette)
            self._restyle_due = True
            QTimer.singleShot(0, self, self._restyle)

    def _restyle(self) -> None:
        self._restyle_due = False
        if self.series:
            self._draw_heatmaps()
            self._draw_bars()

    # ---- data ------------------------------------------------------------------------------------
    def _ops(self, metric: str) -> dict[int, set[str]]:
        """The ops (all / read / write) each selected run has a ``metric`` histogram for."""
        out: dict[int, set[str]] = {rid: set() for rid in self.run_ids}
        for rid, op in self.ws.con.execute(
                "SELECT DISTINCT run_id, op FROM histograms WHERE list_contains(?, run_id) AND metric = ?",
                [self.run_ids, metric]).fetchall():
            out[rid].add(op)
        return out

    def _load(self, metric: str, op: str) -> list[Series]:
        import polars as pl

        from app.analysis.histograms import load_buckets

        out: list[Series] = []
        several = len(self.run_ids) > 1
        for rid in self.run_ids:
            run = self.ws.run(rid)
            if run is None:  # deleted meanwhile
                continue
            kind = run.kind
            # each collection's own counts (a cumulative vscsiStats run is differenced); 'all' of a fio job is its
            # reads and writes added up, bucket by bucket (fio keeps no all-I/O histogram)
            df = load_buckets(self.ws, rid, metric, op)
            if df.height == 0:
                continue
            df = df.group_by("sample_idx", "device", "bucket_lo", "bucket_hi").agg(pl.col("count").sum())
            times = self.ws.con.execute(
                "SELECT DISTINCT sample_idx, t_s, ts FROM histograms WHERE run_id = ?", [rid]).fetchall()
            t_s = {i: float(t) for i, t, _ in times if t is not None}
            ts = {i: w for i, _, w in times if w is not None}
            by_dev: dict[str, dict[int, list[tuple[float | None, float | None, int]]]] = {}
            for s, d, lo, hi, n in (df.sort("device", "sample_idx", "bucket_hi", "bucket_lo", nulls_last=True)
                                    .select("sample_idx", "device", "bucket_lo", "bucket_hi", "count").iter_rows()):
                by_dev.setdefault(d, {}).setdefault(s, []).append((lo, hi, int(n)))
            for dev, samples in by_dev.items():
                label = series_label(kind, dev)
                run_name = shown(run.name)
                name = f"{run_name} · {label}" if several and label != run_name else label
                out.append(Series(name, rid, dev, kind, samples, t_s, ts, run.interval_s))
        return out

    def _matching(self, series: list[Series]) -> list[Series]:
        words = self.filter.text().strip().lower()
        if not words:
            return series
        return [s for s in series if words in f"{self._run_name(s.run_id)} · {series_label(s.kind, s.device)}".lower()]

    def reload(self) -> None:
        metric = self.metric_box.currentData()
        self.series = []
        self.data = {}
        self._clear_heat()
        self._clear_bars()
        self.split.setVisible(bool(self.run_ids) and metric is not None)  # no empty axes when nothing applies
        if not self.run_ids or metric is None:
            self.message.setText("Select vscsiStats or fio runs in the run list.")
            self.share.setText("")
            self.story.setText("")
            self.story_area.setVisible(False)
            self.sample_label.setText("collection –")
            return
        ops = self._ops(metric)
        have = sorted(set().union(*ops.values()))
        op = self.op.currentText()
        if have and op not in have:
            # fio keeps reads and writes apart (no 'all' histogram): show what there is
            self.op.setCurrentText(have[0])  # reloads
            return
        every = self._load(metric, op)
        series = self._matching(every)
        name = METRIC_LABELS.get(metric, metric)
        if not series:
            self.message.setText(f"No {name} histogram for '{op}'." if not every else
                                 f"No series matches '{self.filter.text().strip()}' (clear the filter box).")
            self.sample_label.setText("collection –")
            self._show_share()
            return
        self.series = series
        shown = series[:MAX_SERIES]
        self.data = {s.name: s.samples for s in shown}
        n_samples = max(len(s.samples) for s in shown)
        self.sample.blockSignals(True)
        self.sample.setRange(0, max(0, n_samples - 1))
        self.sample.blockSignals(False)
        self.sample.setEnabled(n_samples > 1)
        kinds = {s.kind for s in every}
        what = (series_noun(next(iter(kinds))), series_noun(next(iter(kinds)), True)) if len(kinds) == 1 \
            else ("series", "series")
        count = f"{len(every)} {what[len(every) > 1]}"
        if len(series) < len(every):
            count = f"{len(series)} of {count} match '{self.filter.text().strip()}'"
        if len(series) > MAX_SERIES:
            count += f", the first {MAX_SERIES} drawn (type in the filter box to pick others)"
        parts = [count, f"{n_samples} collection{'s' if n_samples > 1 else ''}"]
        if all(not _heatmapped(s) for s in shown):
            parts.append("fio prints one histogram per job, so there is no time axis and no heatmap")
        else:
            if any(not _heatmapped(s) for s in shown):
                parts.append("fio jobs are in the bars (one histogram per job: no heatmap)")
            parts.append("heatmap colour = I/Os per collection in each bucket")
            untimed = [s for s in shown if not s.timed and len(s.samples) > 1]
            if untimed:
                parts.append(f"no time for {', '.join(sorted({self._run_name(s.run_id) for s in untimed}))}: "
                             f"collections are numbered; to get minutes, {SET_INTERVAL_HINT}")
        summed = sorted({self._run_name(s.run_id) for s in shown if op == "all" and "all" not in ops[s.run_id]})
        if summed:
            parts.append(f"{', '.join(summed)}: reads and writes added up (fio keeps them apart)")
        self.message.setText(" · ".join(parts))
        self._draw_heatmaps()
        self._draw_bars()
        self._show_share()

    def _run_name(self, rid: int) -> str:
        return shown(self.ws.name_of(rid))

    # ---- heatmaps --------------------------------------------------------------------------------
    def _clear_bars(self) -> None:
        """Nothing of the last runs' bars stays: their title, legend and axis names go with them."""
        self.bars.clear()
        self.legend.clear()
        plot = self.bars.getPlotItem()
        plot.setTitle("")
        plot.setLabel("bottom", "")
        plot.setLabel("left", "")
        self.bars.getAxis("left").set_labels([])

    def _clear_heat(self) -> None:
        self.heat.clear()
        self.heat_plots = []
        self.heat_cells = []
        self.colour_bars = []
        self.markers = []

    def _draw_heatmaps(self) -> None:
        self._clear_heat()
        shown = [(k, s) for k, s in enumerate(self.series[:MAX_SERIES]) if _heatmapped(s)]
        if not shown:
            self.heat_area.hide()
            return
        self.heat_area.show()
        fg = pg.getConfigOption("foreground")
        metric = self.metric_box.currentData()
        cmap = pg.colormap.get("viridis")
        self.heat.setMinimumHeight(HEAT_ROW_MIN * len(shown))
        per = SHOWN_PER_STORED.get(metric, 1.0)
        for row, (k, s) in enumerate(shown):
            order = s.order
            grid = bucket_grid([s.samples[i] for i in order])
            labels = [bucket_label(lo, hi, per) for lo, hi in grid]
            img = np.array([_on_grid(grid, s.samples[i]) for i in order], dtype=float).reshape(len(order), len(grid))
            top = float(img.max()) if img.size else 0.0
            p = self.heat.addPlot(row=row, col=0, axisItems={"left": BucketAxis("left")})
            p.full_title = s.name  # (elided to the width the view has: _fit_titles)
            p.setTitle(shown_html(s.name), color=SERIES_COLOURS[k % len(SERIES_COLOURS)], size="10pt", bold=True)
            p.titleLabel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            # the colour on a log scale, as the report's: VM 1's few hundred slow I/Os beside 30,000 fast ones show
            item = self._heat_item(s, np.log1p(img), cmap)
            p.addItem(item)
            if s.timed:
                p.setLabel("bottom", f"{s.unit_name[0]} since the run's start", color=fg)
            else:
                p.setLabel("bottom", f"collection (no time: {SET_INTERVAL_HINT})", color=fg)
                p.getAxis("bottom").setTicks([[(i + 0.5, str(i + 1)) for i in range(len(order))
                                               if i % _label_step([""] * len(order), 12) == 0]])
            p.setLabel("left", METRIC_LABELS.get(metric, metric), color=fg)
            p.getAxis("left").set_labels(labels)
            _room_for_ticks(p.getAxis("left"), [(0.0, x) for x in labels])
            for name in ("left", "bottom"):
                p.getAxis(name).setTextPen(fg)
                p.getAxis(name).setPen(fg)
            p.setMouseEnabled(x=True, y=False)
            bar = pg.ColorBarItem(values=(0, math.log1p(max(top, 1.0))), colorMap=cmap, interactive=False, width=14,
                                  pen=fg)
            bar.top_count = top  # the largest count of one cell (the scale's top, log(1 + top))
            bar.setImageItem(item, insert_in=p)
            bar.axis.setTextPen(fg)
            bar.axis.setPen(fg)
            bar.axis.setTicks([log_ticks(top)])
            bar.axis.setLabel(COLOUR_BAR_TITLE, color=fg)
            _room_for_ticks(bar.axis, log_ticks(top))
            marker = pg.LinearRegionItem(movable=False, brush=pg.mkBrush(0, 0, 0, 0),
                                         pen=pg.mkPen(MARKER_COLOUR, width=2, style=Qt.PenStyle.DashLine))
            marker.setZValue(10)
            p.addItem(marker, ignoreBounds=True)
            self.markers.append((s, marker))
            self.heat_plots.append(p)
            self.heat_cells.append((p, s, grid, img))
            self.colour_bars.append(bar)
        # fixed ranges: the whole run in time (the union over the VM disks of a run, so that they line up)
        extent: dict[int, tuple[float, float]] = {}
        for _p, s, _grid, _img in self.heat_cells:
            lo, hi = _x_extent(s)
            was = extent.get(s.run_id, (lo, hi))
            extent[s.run_id] = (min(lo, was[0]), max(hi, was[1]))
        for p, s, grid, _img in self.heat_cells:
            p.setXRange(*extent[s.run_id], padding=0.02)  # a little room: the first and last ticks show
            p.setYRange(0, len(grid), padding=0)
        self._fit_titles()
        QTimer.singleShot(0, self, self._fit_titles)  # again once the layout has given the view its width

    @staticmethod
    def _elided(text: str, width: float, points: int, mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> str:
        metrics = QFontMetricsF(QFont(QApplication.font().family(), points))
        return metrics.elidedText(text, mode, max(80.0, width))

    def _fit_titles(self) -> None:
        """Each heatmap's title elided to the width the view has (a long run and file name widened the heatmaps past
        the view, and their colour bars out of sight); the whole name in the title's tooltip."""
        metrics = QFontMetricsF(QFont(QApplication.font().family(), 10, QFont.Weight.Bold))
        for k, p in enumerate(self.heat_plots):
            name = getattr(p, "full_title", "")
            bar = self.colour_bars[k] if k < len(self.colour_bars) else None
            # the title sits over the plot area: the view's width less the bucket axis and the colour bar
            width = max(120.0, self.heat_area.viewport().width() - p.getAxis("left").width()
                        - (bar.geometry().width() if bar is not None else 0) - 16)
            text = metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, width)
            colour = SERIES_COLOURS[self.series.index(self.heat_cells[k][1]) % len(SERIES_COLOURS)] \
                if self.heat_cells[k][1] in self.series else SERIES_COLOURS[0]
            p.setTitle(shown_html(text), color=colour, size="10pt", bold=True)
            p.titleLabel.setToolTip(name)

    def _cell_at(self, pos: Any) -> tuple[Series, int, Bucket, int] | None:
        """(series, collection position, bucket, I/Os) of the heatmap cell under a scene position."""
        for p, s, grid, img in self.heat_cells:
            vb = p.getViewBox()
            if not vb.sceneBoundingRect().contains(pos):
                continue
            pt = vb.mapSceneToView(pos)
            j = math.floor(pt.y())
            k = _column_at(s, pt.x())
            if k is None or not 0 <= j < len(grid):
                return None
            return s, k, grid[j], int(img[k, j])
        return None

    def _hover_heat(self, pos: Any) -> None:
        """The exact count of the cell under the mouse (the colour only approximates it)."""
        cell = self._cell_at(pos)
        if cell is None:
            self.hover_text = ""
            QToolTip.hideText()
            return
        s, k, (lo, hi), n = cell
        when = s.span_text(s.order[k])
        metric = self.metric_box.currentData()
        self.hover_text = (f"{s.name} · collection {k + 1} of {len(s.order)}" + (f" ({when})" if when else "")
                           + f" · {METRIC_LABELS.get(metric, metric)} "
                             f"{bucket_range(lo, hi, SHOWN_PER_STORED.get(metric, 1.0))}: {n:,} I/Os"
                           + " · click to show this collection in the bars")
        QToolTip.showText(QCursor.pos(), self.hover_text, self.heat)

    def _click_heat(self, ev: Any) -> None:
        """A click on a heatmap column shows that collection in the bars (moves the slider)."""
        if ev.button() != Qt.MouseButton.LeftButton:
            return
        cell = self._cell_at(ev.scenePos())
        if cell is not None:
            self.sample.setValue(cell[1])

    @staticmethod
    def _heat_item(s: Series, img: np.ndarray, cmap: Any) -> Any:
        """An image on the time axis (minutes) when every collection has a time, else on collection numbers.

        Evenly spaced collections are one image; uneven ones (time stamps that drift) a mesh whose columns
        start and end at each collection's own time."""
        order = s.order
        n, nb = img.shape
        if not s.timed:
            item = pg.ImageItem(img)
            item.setColorMap(cmap)
            item.setRect(QRectF(0, 0, n, nb))
            return item
        spans = [s.span(i) for i in order]
        starts = np.array([sp[0] for sp in spans if sp is not None]) / s.time_unit
        width = float(s.interval_s or 0.0) / s.time_unit
        even = np.allclose(starts, starts[0] + width * np.arange(n), rtol=0, atol=width * 1e-6)
        if even:
            item = pg.ImageItem(img)
            item.setColorMap(cmap)
            item.setRect(QRectF(float(starts[0]), 0, width * n, nb))
            return item
        edges = np.empty(2 * n)
        edges[0::2] = starts
        edges[1::2] = starts + width
        # a mesh column per collection and a gap (no data: NaN) between collections that do not touch
        xs = np.repeat(edges[:, None], nb + 1, axis=1)
        ys = np.repeat(np.arange(nb + 1, dtype=float)[None, :], 2 * n, axis=0)
        z = np.full((2 * n - 1, nb), np.nan)
        z[0::2] = img
        return pg.PColorMeshItem(xs, ys, z, colorMap=cmap)

    @staticmethod
    def _collection_text(shown: list[Series], k: int, n: int) -> str:
        """Which collection the slider chose, and when: wall clock and minutes since the run's start."""
        if not any(_heatmapped(s) for s in shown):
            return "the whole job (fio prints one histogram per job)"
        spans = {s.span_text(s.order[k]) for s in shown if s.timed and k < len(s.order)}
        if len(spans) == 1:
            when = spans.pop()
        elif spans:
            when = "the runs' times differ: see each heatmap"
        else:
            when = f"no time: {SET_INTERVAL_HINT}"
        return f"collection {k + 1} of {n} · {when}"

    def _fit_legend(self) -> None:
        """As many legend columns as the names allow at the plot's width."""
        labels = [label for _sample, label in self.legend.items]
        if not labels:
            return
        metrics = QFontMetricsF(QFont(QApplication.font().family(), 9))
        avail = self.bars.width() - 30  # the widget's, not the plot's: a too wide legend widens the plot
        for label in labels:  # a name wider than the bars (a run's and a job's) elided in the middle
            full = getattr(label, "full_name", label.text)
            text = shown_html(metrics.elidedText(full, Qt.TextElideMode.ElideMiddle, max(80.0, avail - 50)))
            if text != label.text:
                label.setText(text)
        names = [label.text for label in labels]
        widest = max(metrics.horizontalAdvance(n) for n in names) + 20 + 14 + 10
        cols = max(1, min(len(names), int(avail // widest)))
        if cols != self.legend.columnCount:
            self.legend.setColumnCount(cols)
            # the plot kept the width the wider legend forced on it: give it the widget's again
            self.bars.getPlotItem().setGeometry(QRectF(0, 0, self.bars.width(), self.bars.height()))

    def _mark_collection(self, k: int) -> None:
        """Outline the collection the slider chose on every heatmap."""
        for s, marker in self.markers:
            if k >= len(s.order):
                marker.hide()
                continue
            sp = s.span(s.order[k])
            marker.setRegion((sp[0] / s.time_unit, sp[1] / s.time_unit) if sp else (k, k + 1))
            marker.show()

    # ---- latency shares ------------------------------------------------------------------------
    def _share_text(self, s: Share, ms: float) -> str:
        from app.analysis.text import pct_bounds

        if s.exact:
            return f"{s.share:.1%} of {s.ios:,} I/Os within {ms:g} ms (exact)"
        lo, hi, est_t = pct_bounds(*s.bounds, s.share_estimate, digits=1)
        est = f"; estimate {est_t} (ESTIMATE, linear interpolation)" if s.share_estimate is not None else ""
        return f"between {lo} and {hi} within {ms:g} ms (bounds: {ms:g} ms falls inside a bucket){est}"

    def _show_share(self) -> None:
        """Share of I/O within the threshold per run and per VM disk / job, exact or as bounds plus a labelled
        estimate; for a series with several collections, the collection where the share was lowest."""
        from app.analysis.histograms import AnalysisError, latency_share

        ms = self.threshold.currentData() or 50.0
        op = self.op.currentText()
        lines = []
        for rid in self.run_ids:
            name = self._run_name(rid)
            try:
                r = latency_share(self.ws, rid, ms, op)
            except AnalysisError as e:
                lines.append(f"{name}: {e}")
                continue
            lines.append(f"{name}: {self._share_text(r.within, ms)}")
            if has(r.kind, TIME_SERIES) and r.counts.startswith("cumulative"):
                lines[-1] += (" · the file's counts are running totals (vscsiStats not reset): each collection "
                              "shows its own I/Os, the difference to the one before")
            devices = r.devices
            if len(devices) > 1:
                words = self.filter.text().strip().lower()
                kind = r.kind
                devices = [d for d in devices if not words or words in f"{name} · {series_label(kind, d)}".lower()]
                for dev in devices:
                    lines.append("    " + self._device_share(rid, dev, ms, op))
            elif devices:
                worst = self._worst_collection(rid, devices[0], ms, op)
                if worst:
                    lines[-1] += f" · {worst}"
        self.share.setText("\n".join(lines))
        self.story.setText("\n".join(self._stories(ms)))
        self.story_area.setVisible(bool(self.story.text()))
        self._fit_share()

    def _stories(self, ms: float) -> list[str]:
        """Per vscsiStats run, its VM disks' story in words, as the report tells it (app.analysis.vm_timeline: each
        disk's rate alone and while the others were active, and its share within the threshold then)."""
        from app.analysis.histograms import AnalysisError
        from app.analysis.vm_timeline import vm_timeline

        out = []
        for rid in self.run_ids:
            kind = self.ws.kind_of(rid)
            if not (has(kind, TIME_SERIES) and has(kind, LATENCY_HISTOGRAMS)):
                continue
            try:
                story = vm_timeline(self.ws, rid, float(ms)).story
            except AnalysisError:
                continue  # (the share line above says why the run has no figures)
            if story:
                out.append(f"{self._run_name(rid)}, VM by VM: " + " ".join(shown(x) for x in story))
        return out

    def _fit_share(self) -> None:
        """The share lines take the height they need, up to five lines; more scroll; the story up to four."""
        width = max(100, self.share_area.viewport().width())
        need = self.share.heightForWidth(width) if self.share.text() else 0
        self.share_area.setFixedHeight(min(max(need, 0), self.fontMetrics().lineSpacing() * 5 + 6))
        need = self.story.heightForWidth(max(100, self.story_area.viewport().width())) if self.story.text() else 0
        self.story_area.setFixedHeight(min(max(need, 0), self.fontMetrics().lineSpacing() * 4 + 6))

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        self._fit_share()
        self._fit_legend()
        self._fit_titles()

    def eventFilter(self, obj: Any, ev: Any) -> bool:  # noqa: N802 (Qt name)
        if ev.type() == QEvent.Type.Resize and obj is self.heat_area.viewport():
            self._fit_titles()
        return super().eventFilter(obj, ev)

    def _device_share(self, rid: int, dev: str, ms: float, op: str) -> str:
        from app.analysis.histograms import AnalysisError, latency_share

        kind = self.ws.kind_of(rid) or ""
        label = series_label(kind, dev)
        try:
            r = latency_share(self.ws, rid, ms, op, device=dev)
        except AnalysisError as e:
            return f"{label}: {e}"
        if r.devices != [dev]:  # the device filter is a substring match: 'job1' also matches 'job10'
            share = self._exact_device_share(rid, dev, ms, op)
            text = f"{label}: {self._share_text(share, ms)}" if share else f"{label}: no latency histogram"
        else:
            text = f"{label}: {self._share_text(r.within, ms)}"
        worst = self._worst_collection(rid, dev, ms, op)
        return f"{text} · {worst}" if worst else text

    def _device_buckets(self, rid: int, dev: str, op: str) -> Any:
        import polars as pl

        from app.analysis.histograms import LATENCY, load_buckets

        return load_buckets(self.ws, rid, LATENCY, op, dev).filter(pl.col("device") == dev)

    def _exact_device_share(self, rid: int, dev: str, ms: float, op: str) -> Share | None:
        from app.analysis.histograms import merge_buckets, share_within

        df = self._device_buckets(rid, dev, op)
        if df.height == 0:
            return None
        return share_within(merge_buckets(df.select("bucket_lo", "bucket_hi", "count").iter_rows()), ms * 1000)

    def _worst_collection(self, rid: int, dev: str, ms: float, op: str) -> str:
        """The collection with the lowest share within ``ms`` (exact, or its bounds), when there are several."""
        from app.analysis.histograms import merge_buckets, share_within
        from app.analysis.text import pct_pair

        df = self._device_buckets(rid, dev, op)
        parts = {key[0]: part.select("bucket_lo", "bucket_hi", "count")
                 for key, part in df.partition_by("sample_idx", as_dict=True).items()}
        idxs = sorted(parts)
        if len(idxs) < 2:
            return ""
        per: list[tuple[int, Any]] = []
        for idx in idxs:
            part = parts[idx]
            s = share_within(merge_buckets(part.iter_rows()), ms * 1000)
            if s.ios and s.bounds[1] is not None:
                per.append((idx, s))
        if len(per) < 2:
            return ""
        idx, s = min(per, key=lambda x: x[1].bounds[1])
        best = max(x[1].bounds[0] or 0.0 for x in per)
        if s.bounds[1] >= best:
            return ""  # every collection alike (e.g. all within the threshold): no worst one to point at
        series = next((x for x in self.series if x.run_id == rid and x.device == dev), None)
        when = series.span_text(idx) if series else ""
        pos = f"collection {idxs.index(idx) + 1} of {len(idxs)}" + (f" ({when})" if when else "")
        if s.exact:
            return f"worst: {pos} with {s.share:.1%} of {s.ios:,} I/Os within {ms:g} ms (exact)"
        lo, hi = pct_pair(s.bounds[0], s.bounds[1], digits=1)
        return f"worst: {pos} with between {lo} and {hi} of {s.ios:,} I/Os within {ms:g} ms (bounds)"

    # ---- bars of one collection ------------------------------------------------------------------
    def _draw_bars(self) -> None:
        self.bars.clear()
        fg = pg.getConfigOption("foreground")
        plot = self.bars.getPlotItem()
        self.legend.clear()
        self.legend.setLabelTextColor(fg)
        for name in ("left", "bottom"):
            plot.getAxis(name).setTextPen(fg)
            plot.getAxis(name).setPen(fg)
        shown = self.series[:MAX_SERIES]
        if not shown:
            plot.setTitle("")
            return
        k_sel = self.sample.value()
        n = max(len(s.samples) for s in shown)
        self.sample_label.setText(self._collection_text(shown, k_sel, n))
        # one bucket axis, so one kind of series (fio bins and vscsiStats buckets differ): fio jobs when there are
        # any (they have no heatmap), else the first series' kind
        whole = [s.kind for s in shown if not _heatmapped(s)]
        kind = whole[0] if whole else shown[0].kind
        drawn = [(k, s) for k, s in enumerate(shown) if s.kind == kind and k_sel < len(s.order)]
        grid = bucket_grid([s.samples[s.order[k_sel]] for _k, s in drawn])
        width = 0.8 / max(1, len(drawn))
        for j, (k, s) in enumerate(drawn):
            counts = _on_grid(grid, s.samples[s.order[k_sel]])
            y = np.arange(len(grid)) + j * width
            colour = SERIES_COLOURS[k % len(SERIES_COLOURS)]
            item = pg.BarGraphItem(x0=0, y=y, width=counts, height=width, brush=colour, pen=pg.mkPen(colour))
            self.bars.addItem(item)
            self.legend.addItem(item, shown_html(s.name))
            self.legend.items[-1][1].full_name = s.name  # (elided to the bars' width by _fit_legend)
        self._fit_legend()
        per = SHOWN_PER_STORED.get(self.metric_box.currentData(), 1.0)
        self.bars.getAxis("left").set_labels([bucket_label(lo, hi, per) for lo, hi in grid], 0.4 - width / 2)
        self._mark_collection(k_sel)
        left_out = [s for s in shown if s.kind != kind]
        whole_job = all(not _heatmapped(s) for _k, s in drawn)
        title = "I/Os per bucket" + (f" · collection {k_sel + 1}" if n > 1 and not whole_job else "")
        if left_out:
            title += f" · {series_noun(kind, True)} only"
        metric = self.metric_box.currentData()
        plot.setTitle(self._elided(title, self.bars.width() - 40, 10, Qt.TextElideMode.ElideRight), color=fg,
                      size="10pt")
        plot.titleLabel.setToolTip(title)
        self.bars.setLabel("bottom", "I/Os in the job" if whole_job else "I/Os in the collection", color=fg)
        self.bars.setLabel("left", METRIC_LABELS.get(metric, metric), color=fg)
