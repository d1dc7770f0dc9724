"""File ▸ Capture plan…: what the customer runs on each system to capture the storm (app.analysis.capture_plan),
made from the workspace's questions -- shown as the text to paste, copied, written as a PDF for the customer
(reports.pdf.render_plan), and kept as the workspace's plan, which each import is then checked against."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from PySide6.QtCore import QDate, QDateTime, QTime
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDateTimeEdit,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from app.analysis.capture_plan import CapturePlan, PlannedSystem, derive_plan, plan_text, save, stored
from app.errors import AnalysisError
from app.safe_text import shown
from app.workspace import Workspace

EXPLAIN = ("Half of the captures that come back cannot answer the questions: no time stamps, another interval, too "
           "short, the wrong host. The plan tells the customer exactly what to run on each system and what to send "
           "back; it follows from this workspace's questions. Kept with the workspace, every capture imported "
           "later is compared with it.")
FROM_QUESTIONS = "from the questions"


def hosts(text: str) -> list[str]:
    """Host names typed in a field: separated by commas or spaces."""
    return [h for h in re.split(r"[,\s]+", text.strip()) if h]


class PlanDialog(QDialog):
    """The systems per kind, the storm (length, when), the interval; the plan's text below, updated as they change;
    Copy text, Save PDF…, Keep as the workspace's plan."""

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.setWindowTitle("Capture plan")
        self.ws = ws
        self.plan: CapturePlan | None = None
        lay = QVBoxLayout(self)
        text = QLabel(EXPLAIN)
        text.setWordWrap(True)
        lay.addWidget(text)
        form = QFormLayout()
        self.linux, self.esxi, self.windows = QLineEdit(), QLineEdit(), QLineEdit()
        for w, label, tip in ((self.linux, "Linux guests", "iostat and sar"),
                              (self.esxi, "ESXi hosts", "esxtop, and vscsiStats for latency histograms"),
                              (self.windows, "Windows desktops", "perfmon counters with typeperf")):
            w.setPlaceholderText("host names, separated by commas")
            w.setToolTip(f"The systems of this kind to capture ({tip})")
            form.addRow(label, w)
        self.storm = QDoubleSpinBox()
        self.storm.setRange(0, 24 * 60)
        self.storm.setDecimals(1)
        self.storm.setSuffix(" min")
        self.storm.setSpecialValueText(FROM_QUESTIONS)  # 0: the questions' runs decide
        form.addRow("Storm length", self.storm)
        self.interval = QSpinBox()
        self.interval.setRange(1, 3600)
        self.interval.setSuffix(" s")
        self.interval.setSpecialValueText(FROM_QUESTIONS)  # 1 (below esxtop's shortest): the questions decide
        form.addRow("Interval", self.interval)
        around = QHBoxLayout()
        self.lead, self.tail = QDoubleSpinBox(), QDoubleSpinBox()
        for box in (self.lead, self.tail):
            box.setRange(0, 24 * 60)
            box.setDecimals(1)
            box.setValue(10)
            box.setSuffix(" min")
        around.addWidget(QLabel("before"))
        around.addWidget(self.lead)
        around.addWidget(QLabel("after"))
        around.addWidget(self.tail)
        around.addStretch(1)
        form.addRow("Captured around it", around)
        when = QHBoxLayout()
        self.known = QCheckBox("expected at")
        self.start = QDateTimeEdit(QDateTime.currentDateTime().addDays(1))
        self.start.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.start.setEnabled(False)
        when.addWidget(self.known)
        when.addWidget(self.start)
        when.addStretch(1)
        form.addRow("Storm start", when)
        lay.addLayout(form)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        lay.addWidget(self.problem)
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setMinimumSize(640, 280)
        lay.addWidget(self.preview, 1)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton("Copy text")
        self.pdf_button = QPushButton("Save PDF…")
        self.keep_button = QPushButton("Keep as the workspace's plan")
        self.keep_button.setToolTip("Every capture imported into this workspace is then compared with this plan")
        close = QPushButton("Close")
        for b in (self.copy_button, self.pdf_button, self.keep_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(close)
        lay.addLayout(buttons)
        self.copy_button.clicked.connect(self.copy_text)
        self.pdf_button.clicked.connect(lambda _checked=False: self.save_pdf())
        self.keep_button.clicked.connect(self.keep)
        close.clicked.connect(self.reject)
        self.known.toggled.connect(self.start.setEnabled)
        for w in (self.linux, self.esxi, self.windows):
            w.textChanged.connect(self.update_plan)
        for s in (self.storm, self.interval, self.lead, self.tail):
            s.valueChanged.connect(self.update_plan)
        self.known.toggled.connect(self.update_plan)
        self.start.dateTimeChanged.connect(self.update_plan)
        self._load_stored()
        self.update_plan()

    def _load_stored(self) -> None:
        """The workspace's plan, when it has one, fills the fields."""
        try:
            plan = stored(self.ws)
        except AnalysisError as e:
            self.problem.setText(shown(str(e), 500))
            return
        if plan is None:
            return
        for w, kind in ((self.linux, "linux"), (self.esxi, "esxi"), (self.windows, "windows")):
            w.setText(", ".join(s.host for s in plan.systems if s.kind == kind))
        self.storm.setValue(plan.storm_min)
        self.interval.setValue(plan.interval_s)
        self.lead.setValue(plan.lead_min)
        self.tail.setValue(plan.tail_min)
        if plan.storm_start is not None:
            self.known.setChecked(True)
            t = plan.storm_start
            self.start.setDateTime(QDateTime(QDate(t.year, t.month, t.day), QTime(t.hour, t.minute, t.second)))

    def systems(self) -> list[PlannedSystem]:
        return [PlannedSystem(kind, h) for w, kind in ((self.linux, "linux"), (self.esxi, "esxi"),
                                                        (self.windows, "windows")) for h in hosts(w.text())]

    def _storm_start(self) -> datetime:
        """The storm's start as typed, to the minute."""
        t = self.start.dateTime().toPython()
        assert isinstance(t, datetime)  # a QDateTime gives a datetime
        return t.replace(second=0, microsecond=0)

    def update_plan(self) -> None:
        """The plan from the fields (and the questions); the problem said instead when it cannot be made."""
        try:
            self.plan = derive_plan(
                self.ws, self.systems(), self.storm.value() or None,
                self.interval.value() if self.interval.value() > 1 else None, self.lead.value(), self.tail.value(),
                self._storm_start() if self.known.isChecked() else None)
        except AnalysisError as e:
            self.plan = None
            self.problem.setText(shown(str(e)[0].upper() + str(e)[1:], 500))
            self.preview.setPlainText("")
        else:
            self.problem.setText("")
            self.preview.setPlainText(plan_text(self.plan))
        ok = self.plan is not None
        self.keep_button.setText("Keep as the workspace's plan")
        self.copy_button.setEnabled(ok)
        self.pdf_button.setEnabled(ok)
        self.keep_button.setEnabled(ok and self.ws.read_only_reason is None)
        if self.ws.read_only_reason is not None:
            self.keep_button.setToolTip(self.ws.read_only_reason)

    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.preview.toPlainText())

    def save_pdf(self, path: str | None = None) -> str | None:
        from reports.pdf import render_plan

        if self.plan is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save the capture plan", "capture-plan.pdf", "PDF (*.pdf)")
            if not path:
                return None
        render_plan(self.plan, path)
        self.problem.setText("")
        return path

    def keep(self) -> None:
        if self.plan is None:
            return
        save(self.ws, self.plan)
        self.keep_button.setText("Kept: imports are checked against it")
        self.keep_button.setEnabled(False)

