"""Histogram views for vscsiStats / fio json+: bucket bars per sample and a time x bucket heatmap
per series, side by side (the "two VMs fighting over one RAID set" picture)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from app.workspace import Workspace

METRIC_LABELS = {
    "latency_us": "Latency (µs)", "io_length_bytes": "IO length (bytes)", "seek_distance_lbn": "Seek distance (LBN)",
    "seek_closest16_lbn": "Closest of last 16 (LBN)", "outstanding_ios": "Outstanding IOs",
    "interarrival_us": "Interarrival (µs)",
}


def _label_step(labels: list[str], most: int = 24) -> int:
    """Every how many buckets a label is drawn, so that at most ``most`` fit on an axis (fio has hundreds)."""
    return max(1, -(-len(labels) // most))


def bucket_label(lo: float | None, hi: float | None) -> str:
    def f(v: float) -> str:
        return f"{v:,.0f}" if abs(v) >= 1 else f"{v:g}"

    if hi is None:
        return f"> {f(lo)}" if lo is not None else "all"
    if lo is None:
        return f"≤ {f(hi)}"
    return f"≤ {f(hi)}"


class HistogramView(QWidget):
    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.metric_box = QComboBox()
        self.op = QComboBox()
        self.op.addItems(["all", "read", "write"])
        self.sample = QSlider()
        self.sample.setOrientation(pg.QtCore.Qt.Orientation.Horizontal)
        self.sample_label = QLabel("sample –")
        self.metric_box.currentIndexChanged.connect(self.reload)
        self.op.currentIndexChanged.connect(self.reload)
        self.sample.valueChanged.connect(self._draw_bars)
        self.bars = pg.PlotWidget(title="Buckets of one sample")
        self.bars.showGrid(x=True, alpha=0.25)
        self.heat = pg.GraphicsLayoutWidget()
        self.message = QLabel("Select vscsiStats or fio runs in the run list.")
        self.share = QLabel("")
        self.share.setWordWrap(True)
        self.threshold = QComboBox()
        for ms in (1, 5, 10, 15, 20, 30, 50, 100):
            self.threshold.addItem(f"≤ {ms} ms", float(ms))
        self.threshold.setCurrentIndex(6)
        self.threshold.currentIndexChanged.connect(self._show_share)
        bar = QHBoxLayout()
        for w in (QLabel("Histogram"), self.metric_box, QLabel("Op"), self.op, QLabel("Sample"), self.sample,
                  self.sample_label, QLabel("Latency share"), self.threshold):
            bar.addWidget(w)
        bar.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(self.bars, 2)
        body.addWidget(self.heat, 3)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.message)
        lay.addWidget(self.share)
        lay.addLayout(body, 1)
        self.data: dict[str, Any] = {}

    def set_runs(self, run_ids: list[int]) -> None:
        self.run_ids = [r for r in run_ids if (self.ws.run(r) or {}).get("kind") in ("vscsistats", "fio")]
        metrics = []
        if self.run_ids:
            rows = self.ws.con.execute(
                "SELECT DISTINCT metric FROM histograms WHERE list_contains(?, run_id) ORDER BY 1",
                [self.run_ids]).fetchall()
            metrics = [r[0] for r in rows]
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

    def reload(self) -> None:
        metric = self.metric_box.currentData()
        self.heat.clear()
        self.bars.clear()
        self.data = {}
        if not self.run_ids or metric is None:
            self.message.setText("Select vscsiStats or fio runs in the run list.")
            return
        from app.analysis.histograms import collection_counts

        rows = []  # each collection's own counts (a cumulative vscsiStats run is differenced)
        for rid in self.run_ids:
            name = (self.ws.run(rid) or {}).get("name", str(rid))
            df = collection_counts(self.ws, rid, metric, self.op.currentText())
            rows += [(f"{name} · {d}", s, lo, hi, n) for s, d, lo, hi, n in
                     df.sort("device", "sample_idx", "bucket_hi", nulls_last=True)
                     .select("sample_idx", "device", "bucket_lo", "bucket_hi", "count").iter_rows()]
        if not rows:
            have = [op for (op,) in self.ws.con.execute(
                "SELECT DISTINCT op FROM histograms WHERE list_contains(?, run_id) AND metric = ? ORDER BY op",
                [self.run_ids, metric]).fetchall()]
            if have and self.op.currentText() not in have:
                # fio keeps reads and writes apart (no 'all' histogram): show what there is
                self.op.setCurrentText(have[0])  # reloads
                return
            self.message.setText(f"No {METRIC_LABELS.get(metric, metric)} histogram for '{self.op.currentText()}'.")
            return
        series: dict[str, dict[int, list[tuple]]] = {}
        for name, s, lo, hi, n in rows:
            series.setdefault(name, {}).setdefault(s, []).append((lo, hi, n))
        self.data = series
        n_samples = max(len(v) for v in series.values())
        self.sample.setRange(0, max(0, n_samples - 1))
        self.message.setText(f"{len(series)} series · {n_samples} sample(s) · colour = I/O count per bucket")
        for col, (name, samples) in enumerate(list(series.items())[:4]):
            buckets = next(iter(samples.values()))
            labels = [bucket_label(lo, hi) for lo, hi, _ in buckets]
            img = np.zeros((len(samples), len(buckets)))
            for i, s in enumerate(sorted(samples)):
                counts = [c for _, _, c in samples[s]][: len(buckets)]
                img[i, : len(counts)] = counts
            p = self.heat.addPlot(row=0, col=col, title=name)
            item = pg.ImageItem(img)
            item.setColorMap(pg.colormap.get("viridis"))
            p.addItem(item)
            p.setLabel("bottom", "sample")
            ax = p.getAxis("left")
            ax.setTicks([[(i + 0.5, lab) for i, lab in enumerate(labels) if i % _label_step(labels) == 0]])
        self._draw_bars()
        self._show_share()

    def _show_share(self) -> None:
        """Share of I/O within the threshold per run, exact or as bounds plus a labelled estimate."""
        from app.analysis.histograms import AnalysisError, latency_share
        from app.analysis.text import pct_pair

        ms = self.threshold.currentData() or 50.0
        lines = []
        for rid in self.run_ids:
            name = (self.ws.run(rid) or {}).get("name", rid)
            try:
                r = latency_share(self.ws, rid, ms, self.op.currentText())
            except AnalysisError as e:
                lines.append(f"{name}: {e}")
                continue
            if r["exact"]:
                lines.append(f"{name}: {r['share']:.1%} of {r['ios']:,} I/Os within {ms:g} ms (exact)")
            else:
                lo, hi = pct_pair(*r["bounds"], digits=1)
                est = f"; estimate {r['estimate']:.1%} (ESTIMATE, linear interpolation)" \
                    if r["estimate"] is not None else ""
                lines.append(f"{name}: between {lo} and {hi} within {ms:g} ms (bounds: {ms:g} ms falls "
                             f"inside a bucket){est}")
            if r.get("kind") == "vscsistats" and r.get("counts", "").startswith("cumulative"):
                lines[-1] += (" · the file's counts are running totals (vscsiStats not reset): each sample shows "
                              "its own I/Os, the difference to the one before")
        self.share.setText("\n".join(lines))

    def _draw_bars(self) -> None:
        self.bars.clear()
        if not self.data:
            return
        s = self.sample.value()
        self.sample_label.setText(f"sample {s}")
        width = 0.8 / max(1, len(self.data))
        colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"]
        labels: list[str] = []
        for k, (name, samples) in enumerate(list(self.data.items())[:4]):
            buckets = samples.get(sorted(samples)[min(s, len(samples) - 1)], [])
            labels = [bucket_label(lo, hi) for lo, hi, _ in buckets]
            y = np.arange(len(buckets)) + k * width
            self.bars.addItem(pg.BarGraphItem(x0=0, y=y, width=[c for _, _, c in buckets], height=width,
                                              brush=colours[k % 4], name=name))
        self.bars.getAxis("left").setTicks([[(i + 0.4 - width / 2, lab) for i, lab in enumerate(labels)
                                              if i % _label_step(labels) == 0]])
        self.bars.setLabel("bottom", "I/Os")
