"""The Storm replay tab: a measured storm (a run, a stored phase or a range of seconds of it) as a fio job file, and
how faithfully a replay reproduced it.

Left, what to replay and how (the run, its range, how steady a phase must be, the scale, the chain, what to assume
about each request, the file or device the job drives); in the middle, the storm's IOPS and the replay's phases on one
time axis, and the phases as the job file has them; "Replay as fio job…" writes the file (its header says what it
reproduces and assumes). Below, "Compare with the storm": the capture of a replay (iostat run during it, or fio's own
report) against the storm, a fidelity figure per dimension with its verdict, and "Add to report". The figures are
app.analysis.replay's, the same as ``main.py replay`` prints; both are computed on worker threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.analysis.replay import DEFAULT_TOLERANCE_PCT, ReplayCheck, ReplayPlan, plan_replay, render_job, replay_check
from app.errors import AnalysisError
from app.safe_text import shown, shown_html
from app.ui.plot_steps import step_xy
from app.ui.tables import read_only_table
from app.ui.workers import JobThread
from app.workspace import RunHead, Workspace
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, LATENCY_HISTOGRAMS, has

EMPTY = ("Select a run of I/O over time (iostat, sar, nmon, perfmon, esxtop …) in the run list, or right-click it ▸ "
         "Replay as fio job…, to turn its storm into a fio job file.")
PHASE_HEADER = ["Phase", "Seconds", "Read IOPS", "Write IOPS", "Replayed at (reads, writes per s)", "Read size (kB)",
                "Write size (kB)", "Queue (highest)"]
FIDELITY_HEADER = ["Dimension", "Verdict", "Storm", "Replay", "Fidelity"]
CHAINS = (("Each phase at its own second", "startdelay"),
          ("Each phase after the previous one", "stonewall"))
WHOLE, SECONDS = "whole", "seconds"
NO_CHECK = ("To check a replay: import what was captured on the target while fio ran it (iostat, sar, perfmon … or "
            "fio's own report), choose it under Replay check and click Compare with the storm.")
PAGE_CHECK, PAGE_PHASES, PAGE_ASSUMES = 0, 1, 2  # the pages below the chart


def _table(header: list[str], name: str) -> QTableWidget:
    return read_only_table(header, name)


def _fill(t: QTableWidget, rows: list[list[str]]) -> None:
    t.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)  # a long cell is cut at the column's edge: whole on hover
            if j and text[:1].isdigit():
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            t.setItem(i, j, item)


def named(ws: Workspace, text: str) -> str:
    """An analysis' words with each "run N" by the run's name, as the window names runs."""
    from app.analysis.questions import RUN_NUMBER, run_names

    names = run_names(ws)
    return RUN_NUMBER.sub(lambda m: names.get(int(m.group(1)), m.group(0)), text)


def _num(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


class ReplayView(QWidget):
    questions_asked = Signal(list)  # [ReplayQuestion]: "Add to report"
    status_message = Signal(str)  # for the status bar

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.plan: ReplayPlan | None = None
        self.check_result: ReplayCheck | None = None
        self._generation = 0
        self._jobs: list[JobThread] = []
        self._filling = False
        self._check_after_plan = False  # a question shown: compare as soon as the plan is there

        self.storm = QComboBox()
        self.storm.setObjectName("replay-storm")
        self.storm.setMinimumContentsLength(12)
        self.storm.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.range_box = QComboBox()
        self.range_box.setObjectName("replay-range")
        self.t_from = QDoubleSpinBox(minimum=0, maximum=10_000_000, decimals=1, suffix=" s")
        self.t_to = QDoubleSpinBox(minimum=0, maximum=10_000_000, decimals=1, suffix=" s")
        self.tolerance = QDoubleSpinBox(minimum=0, maximum=50, value=DEFAULT_TOLERANCE_PCT, decimals=0, suffix=" %")
        self.tolerance.setToolTip("Consecutive intervals become one fio job while their read and write IOPS stay "
                                  "within this share of the phase's IOPS (0 %: one job per interval)")
        self.scale = QDoubleSpinBox(minimum=0.01, maximum=100, value=1.0, decimals=2, singleStep=0.1, suffix=" ×")
        self.scale.setToolTip("The replay's IOPS are the storm's times this: scale a storm down to a test machine, "
                              "or up to a future one; time runs 1:1")
        self.chain = QComboBox()
        for label, key in CHAINS:
            self.chain.addItem(label, key)
        self.chain.setToolTip("Measured on a captured test storm (8 fio jobs starting 2 s apart): phases started at "
                              "their own second replayed 94 % of the I/O at the right second, a chain of phases each "
                              "waiting for the previous one 86 % (each job's start-up adds up)")
        self.random = QSpinBox(minimum=0, maximum=100, value=100, suffix=" % random")
        self.random.setToolTip("iostat and the like record no seek distances: the share of random I/O is an "
                               "assumption the job file states (a vscsiStats run below gives it instead)")
        self.shape = QComboBox()
        self.shape.setMinimumContentsLength(12)
        self.shape.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.shape.setToolTip("A vscsiStats run of the same storm: request sizes from its I/O length histogram and "
                              "the random share from its seek distances, instead of the average size and an "
                              "assumption")
        self.filename = QLineEdit("/tmp/stormscope_replay.dat")
        self.filename.setToolTip("The file or device the fio job drives on the machine under test")
        self.target_size = QLineEdit("1g")
        self.target_size.setToolTip("The size of that file (fio's size: 256m, 10g …)")
        for w in (self.storm, self.range_box, self.chain, self.shape):
            w.currentIndexChanged.connect(self._inputs_changed)
        for spin in (self.t_from, self.t_to, self.tolerance, self.scale, self.random):
            spin.valueChanged.connect(self._inputs_changed)

        form = QFormLayout()
        form.addRow("Storm", self.storm)
        form.addRow("Range", self.range_box)
        seconds = QHBoxLayout()
        seconds.setContentsMargins(0, 0, 0, 0)
        seconds.addWidget(self.t_from, 1)
        seconds.addWidget(QLabel("to"))
        seconds.addWidget(self.t_to, 1)
        form.addRow("Seconds", seconds)
        form.addRow("Steady within", self.tolerance)
        form.addRow("Scale", self.scale)
        form.addRow("Timing", self.chain)
        form.addRow("Random I/O", self.random)
        form.addRow("Sizes and seeks from", self.shape)
        form.addRow("Target", self.filename)
        form.addRow("Target size", self.target_size)
        inputs = QGroupBox("What to replay")
        inputs.setLayout(form)

        self.write_action = QAction("Replay as fio job…", self)
        self.write_action.setToolTip("Write the fio job file that replays this storm (its header says what it "
                                     "reproduces and what it assumes)")
        self.write_action.triggered.connect(lambda _checked=False: self.write_job())
        self.write_button = QPushButton(self.write_action.text())
        self.write_button.setObjectName("replay-write")
        self.write_button.setToolTip(self.write_action.toolTip())
        self.write_button.clicked.connect(lambda _checked=False: self.write_action.trigger())
        self.write_action.enabledChanged.connect(self.write_button.setEnabled)

        self.replay_box = QComboBox()
        self.replay_box.setObjectName("replay-capture")
        self.replay_box.setMinimumContentsLength(12)
        self.replay_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.replay_box.setToolTip("iostat (or sar, perfmon …) captured on the target during the replay, or fio's "
                                   "own report of it")
        self.replay_device = QLineEdit()
        self.replay_device.setPlaceholderText("whole disks")
        self.replay_device.setToolTip("The disk the replay drove, by name (several: separated by commas); empty: "
                                      "every whole disk of the capture")
        self.check_action = QAction("Compare with the storm", self)
        self.check_action.triggered.connect(lambda _checked=False: self.check())
        self.check_button = QPushButton(self.check_action.text())
        self.check_button.setObjectName("replay-compare")
        self.check_button.clicked.connect(lambda _checked=False: self.check_action.trigger())
        self.check_action.enabledChanged.connect(self.check_button.setEnabled)
        self.add_action = QAction("Add to report", self)
        self.add_action.setToolTip("Add to the report the question whether this replay reproduces the storm")
        self.add_action.triggered.connect(lambda _checked=False: self._ask())
        self.add_button = QPushButton(self.add_action.text())
        self.add_button.clicked.connect(lambda _checked=False: self.add_action.trigger())
        self.add_action.enabledChanged.connect(self.add_button.setEnabled)
        self.add_action.setEnabled(False)
        cform = QFormLayout()
        cform.addRow("Capture", self.replay_box)
        cform.addRow("Its disk", self.replay_device)
        crow = QHBoxLayout()
        crow.addWidget(self.check_button)
        crow.addWidget(self.add_button)
        cform.addRow(crow)
        checks = QGroupBox("Replay check")
        checks.setLayout(cform)

        left = QVBoxLayout()
        left.addWidget(inputs)
        left.addWidget(self.write_button)
        left.addWidget(checks)
        left.addStretch(1)
        left_w = QWidget()
        left_w.setLayout(left)

        self.headline = QLabel(EMPTY)
        self.headline.setObjectName("replay-headline")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-weight: bold;")
        self.chart = pg.PlotWidget()
        self.chart.setObjectName("replay-chart")
        self.chart.setLabel("left", "IOPS")
        self.chart.setLabel("bottom", "seconds from the start of the replayed range")
        self.chart.showGrid(x=True, y=True, alpha=0.2)
        self.key = QLabel()  # the chart's key, above it: a legend inside would hide the curves' peaks
        self.key.setObjectName("replay-key")
        self.key.setWordWrap(True)
        self.phases = _table(PHASE_HEADER, "replay-phases")
        self.assumptions = QLabel()
        self.assumptions.setObjectName("replay-assumptions")
        self.assumptions.setWordWrap(True)
        self.assumptions.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict = QLabel()
        self.verdict.setObjectName("replay-verdict")
        self.verdict.setWordWrap(True)
        self.fidelity = _table(FIDELITY_HEADER, "replay-fidelity")
        self.fidelity.setVisible(False)
        right = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_lay = QVBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.headline)
        top_lay.addWidget(self.key)
        top_lay.addWidget(self.chart, 1)
        right.addWidget(top)
        # below the chart, one page at a time: the replay check, the job's phases, what the job assumes
        self.pages = QTabWidget()
        self.pages.setObjectName("replay-pages")
        check_page = QWidget()
        check_lay = QVBoxLayout(check_page)
        check_lay.addWidget(self.verdict)
        check_lay.addWidget(self.fidelity, 1)
        self.pages.addTab(check_page, "Replay check")
        self.pages.addTab(self.phases, "Phases of the job")
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.assumptions)
        self.assumptions.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.assumptions.setContentsMargins(6, 6, 6, 6)
        self.pages.addTab(scroll, "What it assumes")
        self.pages.setCurrentIndex(PAGE_PHASES)
        right.addWidget(self.pages)
        right.setSizes([330, 220])
        left_w.setMaximumWidth(380)
        lay = QHBoxLayout(self)
        lay.addWidget(left_w)
        lay.addWidget(right, 1)
        self.write_action.setEnabled(False)
        self.check_action.setEnabled(False)
        self.set_runs([])

    # ---- the runs -----------------------------------------------------------------------------------------
    def _runs(self) -> list[RunHead]:
        """Every run's id, kind and name (the drop-downs need no more): one light query, not a Run made of each
        (100,000 runs: half a second instead of twenty)."""
        return self.ws.run_heads()

    def set_runs(self, run_ids: list[int]) -> None:
        """The selection of the run list: its first run of I/O over time is the storm, the next selected run the
        replay's capture."""
        self.run_ids = list(run_ids)
        runs = self._runs()
        storms = [r for r in runs if has(r.kind, DEVICE_RATES)]
        storm_ids = {s.run_id for s in storms}
        chosen = next((r for r in run_ids if r in storm_ids), None)
        if chosen is None:
            chosen = self.storm.currentData() if self.storm.currentData() in storm_ids else None
        self._filling = True
        try:
            self.storm.clear()
            for r in storms:
                self.storm.addItem(shown(r.name), r.run_id)
            if chosen is not None:
                self.storm.setCurrentIndex(self.storm.findData(chosen))
            self.shape.clear()
            self.shape.addItem("average sizes, random share above", None)
            for r in runs:
                if has(r.kind, LATENCY_HISTOGRAMS) and not has(r.kind, JOB_SUMMARY):
                    self.shape.addItem(shown(r.name), r.run_id)
            self._fill_replays(preferred=next((r for r in run_ids if r != chosen), None), runs=runs)
            self._fill_ranges()
        finally:
            self._filling = False
        self.recompute()

    def _fill_replays(self, preferred: int | None = None, runs: list[RunHead] | None = None) -> None:
        current = preferred if preferred is not None else self.replay_box.currentData()
        storm = self.storm.currentData()
        self.replay_box.clear()
        for r in runs if runs is not None else self._runs():  # set_runs' list: the runs table read once
            if r.run_id != storm and (has(r.kind, DEVICE_RATES) or has(r.kind, JOB_SUMMARY)):
                self.replay_box.addItem(shown(r.name), r.run_id)
        if current is not None and self.replay_box.findData(current) >= 0:
            self.replay_box.setCurrentIndex(self.replay_box.findData(current))
        self.check_action.setEnabled(self.replay_box.count() > 0 and self.plan is not None)

    def _fill_ranges(self, want: str | None = None) -> None:
        from app.store.phases import list_phases

        current = want or self.range_box.currentData() or WHOLE
        self.range_box.clear()
        self.range_box.addItem("The whole run", WHOLE)
        self.range_box.addItem("Seconds (below)", SECONDS)
        rid = self.storm.currentData()
        if rid is not None:
            for p in list_phases(self.ws, rid):
                self.range_box.addItem(f"Phase {shown(p.name)} ({p.t_start_s:g}–{p.t_end_s:g} s)", f"phase:{p.name}")
        i = self.range_box.findData(current)
        self.range_box.setCurrentIndex(i if i >= 0 else 0)
        self._seconds_fields()

    def _seconds_fields(self) -> None:
        on = self.range_box.currentData() == SECONDS
        self.t_from.setEnabled(on)
        self.t_to.setEnabled(on)

    def _inputs_changed(self, *_a: Any) -> None:
        if self._filling:
            return
        if self.sender() is self.storm:
            self._filling = True
            try:
                self._fill_ranges(WHOLE)
                self._fill_replays()
            finally:
                self._filling = False
        if (self.sender() is self.range_box and self.range_box.currentData() == SECONDS and self.plan is not None
                and self.t_to.value() <= self.t_from.value()):
            # Seconds chosen with no seconds set yet: start from the range shown (the whole run, or the phase)
            self._filling = True
            try:
                self.t_from.setValue(self.plan.t_start_s)
                self.t_to.setValue(self.plan.t_end_s)
            finally:
                self._filling = False
        self._seconds_fields()
        self.recompute()

    # ---- what the window asks -----------------------------------------------------------------------------
    def open_run(self, run_id: int) -> None:
        """Right-click a run ▸ Replay as fio job…: the whole run."""
        self.set_runs([run_id])
        self.range_box.setCurrentIndex(self.range_box.findData(WHOLE))

    def open_phase(self, run_id: int, phase: str) -> None:
        """Right-click a phase on the Overlay ▸ Replay as fio job…: that phase of the run."""
        self.set_runs([run_id])
        i = self.range_box.findData(f"phase:{phase}")
        if i >= 0:
            self.range_box.setCurrentIndex(i)

    # ---- the plan -----------------------------------------------------------------------------------------
    def _range(self) -> dict[str, Any]:
        data = self.range_box.currentData() or WHOLE
        if data == SECONDS:
            return {"t_start_s": self.t_from.value(), "t_end_s": self.t_to.value()}
        if isinstance(data, str) and data.startswith("phase:"):
            return {"phase": data[len("phase:"):]}
        return {}

    def _plan_args(self) -> dict[str, Any]:
        shape = self.shape.currentData()
        return {"tolerance_pct": self.tolerance.value(), "scale": self.scale.value(), "chain": self.chain.currentData(),
                "random_pct": None if shape is not None else float(self.random.value()), "shape_run": shape,
                **self._range()}

    def recompute(self) -> None:
        rid = self.storm.currentData()
        self._generation += 1
        gen = self._generation
        self.plan = None
        self.write_action.setEnabled(False)
        self.check_action.setEnabled(False)
        self._clear_check()
        if rid is None:
            self.headline.setText(EMPTY)
            self.phases.setRowCount(0)
            self.assumptions.setText("")
            self.chart.clear()
            return
        self.headline.setText("computing…")
        args = self._plan_args()
        reader = self.ws.cursor()

        def job(_state: Any) -> ReplayPlan:
            with reader as ws:
                return plan_replay(ws, rid, **args)

        self._start(job, lambda res: self._planned(res, gen))

    def _start(self, job: Any, then: Any) -> None:
        self._jobs = [j for j in self._jobs if j.isRunning()]
        jt = JobThread(job, self)
        jt.done.connect(then)
        self._jobs.append(jt)
        jt.start()

    def _planned(self, res: Any, gen: int) -> None:
        if gen != self._generation:
            return
        if isinstance(res, AnalysisError):
            self.headline.setText(shown(f"No replay: {named(self.ws, str(res))}", 1000))
            self.phases.setRowCount(0)
            self.assumptions.setText("")
            self.chart.clear()
            return
        if isinstance(res, Exception):
            raise res  # a crash is never hidden
        self.plan = res
        self.write_action.setEnabled(bool(res.jobs))
        self.check_action.setEnabled(self.replay_box.count() > 0)
        peak = max(p.iops for p in res.phases)
        self.headline.setText(
            f"{len(res.jobs)} fio jobs replay {shown(res.run_name)}, {shown(res.range_label)}: "
            f"{res.duration_s:g} s, peak phase {peak:,.0f} IOPS, replayed at {res.scale:g} × "
            f"({max(sum(res.rate_iops(p)) for p in res.phases):,} IOPS)")
        rows = []
        for p in res.phases:
            r, w = res.rate_iops(p)
            rows.append([str(p.index), f"{p.t_start_s:g}–{p.t_end_s:g}", _num(p.read_iops), _num(p.write_iops),
                         f"{r:,}, {w:,}" if r or w else "idle (no job)", _num(p.read_kb, 2), _num(p.write_kb, 2),
                         _num(p.peak_queue, 2)])
        _fill(self.phases, rows)
        words = [w[0].upper() + w[1:] for w in res.shape.words]
        self.assumptions.setText("\n".join(f"• {shown(named(self.ws, w), 1000)}" for w in [*words, *res.notes]))
        assumed = sum("ASSUMED" in w for w in [*words, *res.notes])
        self.pages.setTabText(PAGE_ASSUMES, f"What it assumes ({assumed} assumed)" if assumed else "What it assumes")
        self._draw()
        if self._check_after_plan:
            self._check_after_plan = False
            self.check()

    def _draw(self) -> None:
        self.chart.clear()
        self.key.setText("")
        plan = self.plan
        if plan is None:
            return
        key: list[tuple[str, str, str]] = []  # colour, line, words
        f = plan.measured.frame
        colours = ("#1f77b4", "#2ca02c", "#d62728")
        x, y = step_xy(f.get_column("t_start_s").to_numpy(), f.get_column("t_end_s").to_numpy(),
                       (f.get_column("read_iops").fill_null(0) + f.get_column("write_iops").fill_null(0)).to_numpy())
        self.chart.plot(x, y, pen=pg.mkPen(colours[0], width=1.5))
        key.append((colours[0], "━━", shown_html(f"the storm: {plan.run_name}")))
        ts = np.array([p.t_start_s for p in plan.phases])
        te = np.array([p.t_end_s for p in plan.phases])
        rep = np.array([sum(plan.rate_iops(p)) / plan.scale for p in plan.phases])
        x, y = step_xy(ts, te, rep)
        self.chart.plot(x, y, pen=pg.mkPen(colours[1], width=2, style=Qt.PenStyle.DashLine))
        key.append((colours[1], "╍╍",
                    "the replay's phases" + (f" (rates / {plan.scale:g})" if plan.scale != 1 else "")))
        c = self.check_result
        if c is not None and c.t:
            t0 = np.array(c.t)
            x, y = step_xy(t0, t0 + c.every_s, np.array(c.replay_iops))
            self.chart.plot(x, y, pen=pg.mkPen(colours[2], width=1.5))
            key.append((colours[2], "━━", shown_html(f"the replay measured: {c.replay_name}"
                                                     + (f" / {c.scale:g}" if c.scale != 1 else ""))))
        self.key.setText(" &nbsp; ".join(f'<span style="color:{col}"><b>{line}</b></span> {words}'
                                         for col, line, words in key))

    # ---- the job file -------------------------------------------------------------------------------------
    def job_text(self) -> str | None:
        from reports.options import version

        if self.plan is None or not self.plan.jobs:
            return None
        return render_job(self.plan, filename=self.filename.text().strip() or "/tmp/stormscope_replay.dat",
                          size=self.target_size.text().strip() or "1g", generated=version())

    def write_job(self, path: str | None = None) -> str | None:
        """Replay as fio job…: the job file, written whole or not at all. Returns the path written (None: not)."""
        from reports import write_atomically

        text = self.job_text()
        if text is None:
            return None
        if path is None:
            path, _f = QFileDialog.getSaveFileName(self, "Replay as fio job", "replay.fio", "fio job files (*.fio)")
            if not path:
                return None
        try:
            write_atomically(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
        except OSError as e:
            self.status_message.emit(f"The job file could not be written: {shown(str(e.strerror or e))} "
                                     f"({shown(path)})")
            return None
        self.status_message.emit(f"Wrote the fio job file {shown(path)}")
        return path

    # ---- the check ----------------------------------------------------------------------------------------
    def _clear_check(self) -> None:
        self.check_result = None
        self.verdict.setText(NO_CHECK)
        self.fidelity.setRowCount(0)
        self.fidelity.setVisible(False)
        self.add_action.setEnabled(False)

    def check(self) -> None:
        rid, rep = self.storm.currentData(), self.replay_box.currentData()
        if rid is None or rep is None or self.plan is None:
            return
        self._generation += 1
        gen = self._generation
        self._clear_check()
        self.verdict.setText("comparing…")
        args = {**self._range(), "scale": self.scale.value(),
                "replay_device": self.replay_device.text().strip() or None}
        reader = self.ws.cursor()

        def job(_state: Any) -> ReplayCheck:
            with reader as ws:
                return replay_check(ws, rid, rep, **args)

        self._start(job, lambda res: self._checked(res, gen))

    def _checked(self, res: Any, gen: int) -> None:
        if gen != self._generation:
            return
        if isinstance(res, AnalysisError):
            self.verdict.setText(shown(f"No comparison: {named(self.ws, str(res))}", 1000))
            return
        if isinstance(res, Exception):
            raise res
        self.check_result = res
        self.add_action.setEnabled(not self.ws.read_only_reason)
        head = (f"{res.verdict[:1].upper()}{res.verdict[1:]}: the replay {shown(res.replay_name)} against the "
                f"storm, {res.range_label}, at scale {res.scale:g} (placed {res.lag_s:+g} s from its capture's "
                "start, where the curves match best)")
        notes = [f"Measured from {shown(named(self.ws, res.basis), 1000)}.",
                 *(shown(named(self.ws, n[:1].upper() + n[1:]), 1000) for n in res.notes)]
        self.verdict.setText("\n".join([head, *(f"• {n}" for n in notes)]))
        rows = []
        for d in res.dimensions:
            rows.append([d.label, d.verdict, _dim_value(d.key, d.original), _dim_value(d.key, d.replay),
                         shown(d.text, 300)])
        _fill(self.fidelity, rows)
        self.fidelity.setVisible(True)
        self.pages.setCurrentIndex(PAGE_CHECK)
        self._draw()

    def replay_question(self) -> Any:
        from app.analysis.questions import ReplayQuestion

        c = self.check_result
        if c is None:
            return None
        rng = self._range()
        return ReplayQuestion(c.original_run, c.replay_run, rng.get("t_start_s"), rng.get("t_end_s"),
                              rng.get("phase"), c.scale, None, self.replay_device.text().strip() or None)

    def _ask(self) -> None:
        q = self.replay_question()
        if q is not None:
            self.questions_asked.emit([q])

    def show_question(self, q: Any) -> None:
        """A replay question chosen in the Report questions panel: its storm, range and replay, compared."""
        self.set_runs([q.run_id, q.replay_run])
        self._filling = True
        try:
            if q.phase is not None:
                self.range_box.setCurrentIndex(max(0, self.range_box.findData(f"phase:{q.phase}")))
            elif q.t_start_s is not None or q.t_end_s is not None:
                self.range_box.setCurrentIndex(self.range_box.findData(SECONDS))
                self.t_from.setValue(q.t_start_s or 0.0)
                self.t_to.setValue(q.t_end_s if q.t_end_s is not None else self.t_to.maximum())
            self.scale.setValue(q.scale)
            self.replay_device.setText(q.replay_device or "")
            self.replay_box.setCurrentIndex(max(0, self.replay_box.findData(q.replay_run)))
        finally:
            self._filling = False
        self._seconds_fields()
        self._check_after_plan = True
        self.recompute()


def _dim_value(key: str, v: float | None) -> str:
    if v is None:
        return "–"
    return {"iops": f"{v:,.0f} I/Os", "read_share": f"{v * 100:.1f} % reads", "request_size": f"{v:.1f} kB"}.get(
        key, f"{v:.3f} ms")
