"""IOzone view: grouped bars per test for the selected runs (single vs multi-stream, Ceph vs local),
and one run's file-size x record-size matrix for a test as a heatmap."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.workspace import Workspace

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]


class IozoneView(QWidget):
    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.test = QComboBox()
        self.test.currentIndexChanged.connect(self._draw_matrix)
        self.log = QCheckBox("log scale")
        self.log.toggled.connect(self.reload)
        self.message = QLabel("Select IOzone runs in the run list.")
        self.bars = pg.PlotWidget(title="Throughput per test (kB/s; best record size per run)")
        self.bars.showGrid(x=True, alpha=0.25)
        self.legend = self.bars.addLegend(offset=(-10, -10))
        self.matrix = pg.PlotWidget(title="File size x record size")
        bar = QHBoxLayout()
        for w in (QLabel("Matrix test"), self.test, self.log):
            bar.addWidget(w)
        bar.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(self.bars, 3)
        body.addWidget(self.matrix, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.message)
        lay.addLayout(body, 1)

    def _has_table(self) -> bool:
        return bool(self.ws.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'iozone_results'").fetchall()[0][0])

    def set_runs(self, run_ids: list[int]) -> None:
        self.run_ids = [r for r in run_ids if (self.ws.run(r) or {}).get("kind") == "iozone"]
        self.reload()

    def summary(self) -> dict[str, dict[str, float]]:
        """Per run name, per test: the best kB/s (auto mode: over file and record sizes; throughput: children)."""
        if not self.run_ids or not self._has_table():
            return {}
        rows = self.ws.con.execute(
            """SELECT r.name || CASE WHEN max(i.threads) > 1 THEN ' (' || max(i.threads) || ' threads)' ELSE '' END,
                      i.test, max(i.kb_s)
               FROM iozone_results i JOIN runs r USING (run_id)
               WHERE list_contains(?, i.run_id) AND i.kb_s IS NOT NULL
               GROUP BY r.run_id, r.name, i.test ORDER BY r.run_id, i.test""", [self.run_ids]).fetchall()
        out: dict[str, dict[str, float]] = {}
        for name, test, v in rows:
            out.setdefault(name, {})[test] = v
        return out

    def reload(self) -> None:
        self.bars.clear()
        self.legend.clear()
        data = self.summary()
        if not data:
            self.message.setText("Select IOzone runs in the run list.")
            self.test.clear()
            self.matrix.clear()
            return
        tests = sorted({t for d in data.values() for t in d})
        width = 0.8 / len(data)
        for k, (name, vals) in enumerate(data.items()):
            y = np.array([vals.get(t, 0.0) for t in tests], dtype=float)
            if self.log.isChecked():
                y = np.array([math.log10(v) if v > 0 else 0 for v in y])
            self.bars.addItem(pg.BarGraphItem(x0=0, y=np.arange(len(tests)) + k * width, width=y, height=width,
                                              brush=PALETTE[k % len(PALETTE)], name=name))
        self.bars.getAxis("left").setTicks([[(i + 0.4 - width / 2, t.replace("_", " ")) for i, t in
                                             enumerate(tests)]])
        self.bars.setLabel("bottom", "log10 kB/s" if self.log.isChecked() else "kB/s")
        self.message.setText(f"{len(data)} run(s) · {len(tests)} tests · page-cache-sized files are flagged in "
                             "the grid (page_cache_likely)")
        current = self.test.currentText()
        self.test.blockSignals(True)
        self.test.clear()
        self.test.addItems(tests)
        if current in tests:
            self.test.setCurrentText(current)
        elif "write" in tests:
            self.test.setCurrentText("write")
        self.test.blockSignals(False)
        self._draw_matrix()

    def _draw_matrix(self) -> None:
        self.matrix.clear()
        if not self.run_ids or not self.test.currentText():
            return
        rows = self.ws.con.execute(
            """SELECT file_kb, record_kb, kb_s FROM iozone_results WHERE run_id = ? AND test = ? AND mode = 'auto'
               AND file_kb IS NOT NULL AND record_kb IS NOT NULL AND kb_s IS NOT NULL""",
            [self.run_ids[0], self.test.currentText()]).fetchall()
        if not rows:
            self.matrix.setTitle("No file-size x record-size matrix for this run")
            return
        files = sorted({r[0] for r in rows})
        recs = sorted({r[1] for r in rows})
        img = np.full((len(files), len(recs)), np.nan)
        for f, rec, v in rows:
            img[files.index(f), recs.index(rec)] = v
        item = pg.ImageItem(np.nan_to_num(img, nan=0.0))
        item.setColorMap(pg.colormap.get("viridis"))
        self.matrix.addItem(item)
        self.matrix.setTitle(f"{self.test.currentText()}: kB/s by file size (x) and record size (y)")
        self.matrix.getAxis("bottom").setTicks([[(i + 0.5, _kb(f)) for i, f in enumerate(files)]])
        self.matrix.getAxis("left").setTicks([[(i + 0.5, _kb(r)) for i, r in enumerate(recs)]])


def _kb(v: int) -> str:
    if v >= 1024 * 1024:
        return f"{v / 1024 / 1024:g}G"
    if v >= 1024:
        return f"{v / 1024:g}M"
    return f"{v}k"
