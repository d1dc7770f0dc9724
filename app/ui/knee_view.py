"""The Load limit tab: "How many desktops before the response-time goal breaks?" over the runs selected in the run
list (fio runs at increasing load, Iometer tests, or one run of I/O over time with a ramp).

The goal (a share of I/O within a response time -- 80 % within 50 ms, 95 % within 5 ms -- or the mean response
time within it) and the IOPS per user are set at the top; the chart shows each load point's response figure against
the IOPS it reached (within the goal or not), the goal's threshold, the fitted curve and the band between the two
points that decide; the answer and the table of points follow. The answer is the report question's own
(app.analysis.questions.answer of a KneeQuestion), computed on a worker thread; "Add to report" stores the question.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.analysis.knee import FIT_COLOUR, POINT_COLOURS
from app.analysis.sizing_presets import load_presets
from app.errors import AnalysisError
from app.safe_text import shown
from app.ui.replay_view import named
from app.ui.workers import JobThread
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, LATENCY_HISTOGRAMS, has

EMPTY = ("Select the runs of a load test in the run list -- fio runs at increasing load, Iometer results, or one run "
         "of I/O over time that ramps up -- to see where the response-time goal breaks.")
POINT_HEADER = ["#", "Load point", "IOPS reached", "Response figure", "Within the goal", "Desktops"]
PASS, FAIL, UNKNOWN = POINT_COLOURS[True], POINT_COLOURS[False], POINT_COLOURS[None]  # the report's too


def _usable(kind: str | None) -> bool:
    return has(kind, DEVICE_RATES) or (has(kind, JOB_SUMMARY) and has(kind, LATENCY_HISTOGRAMS))


class KneeView(QWidget):
    questions_asked = Signal(list)  # [KneeQuestion]: "Add to report"

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.answer: Any = None
        self._generation = 0
        self._jobs: list[JobThread] = []

        self.statistic = QComboBox()
        self.statistic.setObjectName("knee-statistic")
        self.statistic.addItem("of I/O within", "share")
        self.statistic.addItem("mean response time within", "mean")
        self.goal_pct = QDoubleSpinBox(minimum=1, maximum=100, value=80, decimals=1, suffix=" %")
        self.threshold = QDoubleSpinBox(minimum=0.001, maximum=100_000, value=50, decimals=3, suffix=" ms")
        self.threshold.setObjectName("knee-threshold")
        self.per_user = QDoubleSpinBox(minimum=0, maximum=100_000, value=0, decimals=1, suffix=" IOPS")
        self.per_user.setSpecialValueText("the sizing question's")
        self.per_user.setToolTip("The IOPS one desktop does at the moment that matters (the storm), to turn the "
                                 "load into desktops; 0: the IOPS per user of the sizing question")
        self.per_user.setObjectName("knee-per-user")
        self.profile = QComboBox()
        self.profile.setToolTip("A user profile's IOPS per user instead of the figure beside it")
        self.profile.addItem("(no user profile)", None)
        for key, p in load_presets()["user_profiles"].items():
            self.profile.addItem(f"{key}: {p['iops_per_user']} IOPS per user", key)
        self.points = QComboBox()
        self.points.addItem("one point per run", "runs")
        self.points.addItem("one point per fio job", "jobs")
        self.points.setToolTip("fio runs whose jobs are steps one after another (in one file): a point per job")
        for w in (self.statistic, self.profile, self.points):
            w.currentIndexChanged.connect(self._changed)
        for spin in (self.goal_pct, self.threshold, self.per_user):
            spin.valueChanged.connect(self._changed)
        self.add_action = QAction("Add to report", self)
        self.add_action.setToolTip("Add to the report the question how many desktops the storage takes before the "
                                   "response-time goal breaks")
        self.add_action.triggered.connect(lambda _checked=False: self._ask())
        self.add_button = QPushButton(self.add_action.text())
        self.add_button.clicked.connect(lambda _checked=False: self.add_action.trigger())
        self.add_action.enabledChanged.connect(self.add_button.setEnabled)
        self.add_action.setEnabled(False)

        goal = QHBoxLayout()
        goal.addWidget(QLabel("Response-time goal:"))
        goal.addWidget(self.goal_pct)
        goal.addWidget(self.statistic)
        goal.addWidget(self.threshold)
        goal.addSpacing(12)
        goal.addWidget(QLabel("Points:"))
        goal.addWidget(self.points)
        goal.addStretch(1)
        goal.addWidget(self.add_button)
        users = QHBoxLayout()
        users.addWidget(QLabel("IOPS per user:"))
        users.addWidget(self.per_user)
        users.addWidget(QLabel("or"))
        users.addWidget(self.profile)
        users.addStretch(1)

        self.headline = QLabel(EMPTY)
        self.headline.setObjectName("knee-headline")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-weight: bold;")
        self.reason = QLabel()
        self.reason.setObjectName("knee-reason")
        self.reason.setWordWrap(True)
        self.reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chart = pg.PlotWidget()
        self.chart.setObjectName("knee-chart")
        self.chart.setLabel("bottom", "IOPS reached")
        self.chart.setLabel("left", "ms")
        self.chart.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.chart.addLegend(offset=(10, 5))
        self.table = QTableWidget(0, len(POINT_HEADER))
        self.table.setObjectName("knee-points")
        self.table.setHorizontalHeaderLabels(POINT_HEADER)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.chart)
        low = QWidget()
        low_lay = QVBoxLayout(low)
        low_lay.setContentsMargins(0, 0, 0, 0)
        low_lay.addWidget(self.table, 1)
        low_lay.addWidget(self.notes)
        split.addWidget(low)
        split.setSizes([420, 260])
        lay = QVBoxLayout(self)
        lay.addLayout(goal)
        lay.addLayout(users)
        lay.addWidget(self.headline)
        lay.addWidget(self.reason)
        lay.addWidget(split, 1)
        self._fields()

    def set_runs(self, run_ids: list[int]) -> None:
        from app.analysis.bench_results import iometer_runs

        iometer = iometer_runs(self.ws)
        runs = self.ws.runs_by_id(run_ids)  # one query for the whole selection
        self.run_ids = [r for r in run_ids if r in iometer or _usable(runs[r].kind if r in runs else None)]
        self.compute()

    def _changed(self, *_a: Any) -> None:
        self._fields()
        self.compute()

    def _fields(self) -> None:
        share = self.statistic.currentData() == "share"
        self.goal_pct.setEnabled(share)
        self.per_user.setEnabled(self.profile.currentData() is None)

    def question(self) -> Any:
        from app.analysis.questions import KneeQuestion

        if not self.run_ids:
            return None
        profile = self.profile.currentData()
        return KneeQuestion(list(self.run_ids), self.threshold.value(), self.goal_pct.value(),
                            self.statistic.currentData(), (self.per_user.value() or None) if profile is None else None,
                            profile, self.points.currentData())

    def compute(self) -> None:
        from app.analysis.questions import answer

        self._generation += 1
        gen = self._generation
        self.answer = None
        self.add_action.setEnabled(False)
        q = self.question()
        if q is None:
            self.headline.setText(EMPTY)
            self.reason.setText("")
            self.table.setRowCount(0)
            self.notes.setText("")
            self.chart.clear()
            return
        self.headline.setText("computing…")
        reader = self.ws.cursor()

        def job(_state: Any) -> Any:
            with reader as ws:
                return answer(ws, q)

        self._jobs = [j for j in self._jobs if j.isRunning()]
        jt = JobThread(job, self)
        jt.done.connect(lambda res, gen=gen: self._answered(res, gen))
        self._jobs.append(jt)
        jt.start()

    def _answered(self, res: Any, gen: int) -> None:
        if gen != self._generation:
            return
        if isinstance(res, AnalysisError):
            self.headline.setText(shown(f"No answer: {named(self.ws, str(res))}", 1000))
            self.reason.setText("")
            self.table.setRowCount(0)
            self.notes.setText("")
            self.chart.clear()
            return
        if isinstance(res, Exception):
            raise res  # a crash is never hidden
        self.answer = res
        self.add_action.setEnabled(not self.ws.read_only_reason)
        head = res.number or res.verdict
        self.headline.setText(shown(head[:1].upper() + head[1:], 1000))
        self.reason.setText(shown(str(res.reason), 3000))
        self.notes.setText("\n".join(f"• {shown(named(self.ws, str(n)[:1].upper() + str(n)[1:]), 1000)}"
                                      for n in res.notes))
        k = res.evidence.results[0]
        names = {int(r.run_id): r.name for r in self.ws.runs()}
        rows = []
        deciding = {id(k.held), id(k.broke)}
        for i, p in enumerate(k.points, 1):
            ok = {True: "yes", False: "no", None: "cannot tell"}[p.passed] + (" (decides)" if id(p) in deciding else "")
            fig = "–" if p.response_ms is None else f"{p.response_ms:,.3f} ms"
            d = k.desktops(p.iops)
            rows.append([str(i), shown(p.named(names.get(p.run_id, p.run_name))), f"{p.iops:,.0f}", fig, ok,
                         "–" if d is None else f"{d:,}"])
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                if j in (0, 2, 3, 5):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        header = self.table.horizontalHeaderItem(3)
        if header is not None:  # the table is made with its header (read_only_table)
            header.setText(k.figure_words[:1].upper() + k.figure_words[1:])
        self._draw(k)

    def _draw(self, k: Any) -> None:
        self.chart.clear()
        self.legend.clear()
        self.chart.setLabel("left", "response time (ms)")  # which figure of it: the table's heading
        for label, keep, colour in (("within the goal", True, PASS), ("missed the goal", False, FAIL),
                                    ("cannot tell", None, UNKNOWN)):
            pts = [p for p in k.points if p.passed is keep and p.response_ms is not None]
            if pts:
                self.chart.plot([p.iops for p in pts], [p.response_ms for p in pts], pen=None, symbol="o",
                                symbolSize=8, symbolBrush=colour, symbolPen=None, name=label)
        top = max([p.response_ms for p in k.points if p.response_ms is not None] + [k.threshold_ms])
        if k.fit is not None:
            xs, ys = k.fit.curve(max(p.iops for p in k.points) * 1.02)
            kept = [(x, y) for x, y in zip(xs, ys) if y <= 1.5 * top]
            if kept:
                self.chart.plot([x for x, _y in kept], [y for _x, y in kept],
                                pen=pg.mkPen(FIT_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                                name=f"fitted curve (R² {k.fit.r2:.2f})")
        line = pg.InfiniteLine(pos=k.threshold_ms, angle=0, pen=pg.mkPen(FAIL, width=1, style=Qt.PenStyle.DashLine),
                               label=f"goal {k.threshold_ms:g} ms", labelOpts={"position": 0.95, "color": FAIL})
        self.chart.addItem(line)
        if k.held is not None and k.broke is not None:
            band = pg.LinearRegionItem((k.held.iops, k.broke.iops), movable=False,
                                       brush=pg.mkBrush(214, 39, 40, 40))
            self.chart.addItem(band)

    def _ask(self) -> None:
        q = self.question()
        if q is not None and self.answer is not None:
            self.questions_asked.emit([q])

    def show_question(self, q: Any) -> None:
        """A load-limit question chosen in the Report questions panel: its goal and IOPS per user (the window has
        selected its runs)."""
        for w in (self.statistic, self.profile, self.points, self.goal_pct, self.threshold, self.per_user):
            w.blockSignals(True)
        try:
            self.statistic.setCurrentIndex(max(0, self.statistic.findData(q.statistic)))
            self.goal_pct.setValue(q.goal_pct)
            self.threshold.setValue(q.threshold_ms)
            self.per_user.setValue(q.iops_per_user or 0)
            self.profile.setCurrentIndex(max(0, self.profile.findData(q.profile)) if q.profile else 0)
            self.points.setCurrentIndex(max(0, self.points.findData(q.points)))
        finally:
            for w in (self.statistic, self.profile, self.points, self.goal_pct, self.threshold, self.per_user):
                w.blockSignals(False)
        self.run_ids = [r for r in q.run_ids if self.ws.run(r) is not None]
        self._fields()
        self.compute()
