"""Report ▸ Add to library…: publish this engagement to the team's library and see where its storm falls among
comparable past engagements (the answer and a small distribution chart), then put that comparison into the report.

Publishing and comparing run off the GUI thread (a progress bar; Close cancels). The work is app.library.publish
and the library question's answer (app.analysis.questions): nothing is computed here."""

from __future__ import annotations

import os
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.analysis.library import WORKLOADS, workspace_runs
from app.analysis.questions import LibraryQuestion, fmt_pct
from app.store.library import LIBRARY_ENV
from app.ui.workers import JobThread
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, has

SETTING = "library/location"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class LibraryDialog(QDialog):
    """Publish to the library and compare (see the module doc). ``add_question(question)`` stores the comparison
    as a report question (the window's Report questions panel)."""

    def __init__(self, ws: Workspace, parent: Any, settings: QSettings, add_question: Any, run_id: int | None = None):
        super().__init__(parent)
        self.setWindowTitle("Add to library")
        self.ws, self.settings, self.add_question = ws, settings, add_question
        self.job: JobThread | None = None
        self.answer: Any = None
        form = QFormLayout()
        self.location = QLineEdit(str(settings.value(SETTING, os.environ.get(LIBRARY_ENV, "")) or ""))
        self.location.setPlaceholderText("the team's library folder")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.location, 1)
        row.addWidget(browse)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        form.addRow("Library", holder)
        self.run = QComboBox()
        for r in workspace_runs(ws):
            if has(r.tool, DEVICE_RATES):
                self.run.addItem(r.name, r.run_id)
        if run_id is not None and (i := self.run.findData(run_id)) >= 0:
            self.run.setCurrentIndex(i)
        form.addRow("Storm run", self.run)
        self.workload = QComboBox()
        self.workload.addItem("not stated", None)
        for k, words in WORKLOADS.items():
            self.workload.addItem(words, k)
        form.addRow("Workload", self.workload)
        self.hypervisor = QLineEdit()
        self.hypervisor.setPlaceholderText("not stated (e.g. vSphere, Hyper-V, AHV)")
        form.addRow("Hypervisor", self.hypervisor)
        self.desktops = QSpinBox()
        self.desktops.setRange(0, 1_000_000)
        self.desktops.setSpecialValueText("as measured (sizing question), else not known")
        form.addRow("Desktops in the storm", self.desktops)
        self.anonymise = QCheckBox("Anonymise (run names and the customer left out, as in an anonymised report)")
        self.anonymise.setChecked(True)
        form.addRow("", self.anonymise)
        self.customer = QLineEdit()
        self.customer.setPlaceholderText("kept only when not anonymised")
        self.customer.setEnabled(False)
        self.anonymise.toggled.connect(lambda on: self.customer.setEnabled(not on))
        form.addRow("Customer tag", self.customer)
        self.samples = QCheckBox("Include every run's intervals (larger; lets others chart this storm)")
        form.addRow("", self.samples)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.answer_text = QLabel("")  # (not ``result``: QDialog.result() is the dialog's own)
        self.answer_text.setWordWrap(True)
        self.chart = pg.PlotWidget()
        self.chart.setMinimumHeight(150)
        self.chart.hide()
        self.publish_button = QPushButton("&Publish")
        self.publish_button.setToolTip("Publish this engagement to the library (again: it is replaced, never doubled)"
                                       " and compare its storm with the others")
        self.publish_button.clicked.connect(lambda: self.start(publish=True))
        self.compare_button = QPushButton("C&ompare only")
        self.compare_button.clicked.connect(lambda: self.start(publish=False))
        self.add_button = QPushButton("Add comparison to &report")
        self.add_button.setEnabled(False)
        self.add_button.clicked.connect(self._add)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        for b in (self.publish_button, self.compare_button, self.add_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addWidget(self.answer_text)
        lay.addWidget(self.chart)
        lay.addLayout(buttons)
        if ws.read_only_reason:
            self.publish_button.setEnabled(True)  # publishing reads the workspace: a read-only one publishes too
        if self.run.count() == 0:
            for b in (self.publish_button, self.compare_button):
                b.setEnabled(False)
            self.status.setText("This workspace has no run with I/O rates over time to publish or compare.")

    def _browse(self) -> None:
        got = QFileDialog.getExistingDirectory(self, "Library folder", self.location.text())
        if got:
            self.location.setText(got)

    def question(self) -> LibraryQuestion:
        return LibraryQuestion(int(self.run.currentData()), self.location.text().strip() or None,
                               self.desktops.value() or None, self.workload.currentData(),
                               self.hypervisor.text().strip() or None)

    def start(self, publish: bool) -> JobThread | None:
        if self.job is not None and self.job.isRunning():
            return None
        where = self.location.text().strip()
        if not where:
            self.status.setText("Choose the library folder first.")
            self.location.setFocus()
            return None
        self.settings.setValue(SETTING, where)
        q = self.question()
        reader = self.ws.cursor()
        customer, anonymise, samples = self.customer.text().strip() or None, self.anonymise.isChecked(), \
            self.samples.isChecked()

        def job(state: Any) -> Any:
            from app.analysis.questions import answer
            from app.library.publish import publish as do_publish

            with reader as ws:
                done = None
                if publish:
                    state.progress(0.1, "Publishing…")
                    done = do_publish(ws, where, customer=customer, anonymise=anonymise, workload=q.workload,
                                      hypervisor=q.hypervisor, desktops=q.desktops, samples=samples)
                state.check()
                state.progress(0.7, "Comparing…")
                return done, answer(ws, q)

        self.progress.show()
        self.status.setText("Publishing…" if publish else "Comparing…")
        for b in (self.publish_button, self.compare_button, self.add_button):
            b.setEnabled(False)
        self.job = JobThread(job, self, connections=[reader.con])
        self.job.done.connect(self._done)
        self.job.start()
        return self.job

    def _done(self, result: Any) -> None:
        self.progress.hide()
        self.publish_button.setEnabled(True)
        self.compare_button.setEnabled(True)
        if isinstance(result, Exception):
            self.status.setText(f"Not done: {result}")
            return
        published, a = result
        if published is not None:
            same = ", unchanged: it was already there with the same figures." if published.unchanged else "."
            self.status.setText(f"This engagement is in the library ({plural(published.runs, 'run')}, "
                                f"{plural(published.answers, 'answer')}){same}")
        else:
            self.status.setText("")
        self.answer = a
        self.answer_text.setText(a.reason + ("\n" + "; ".join(str(n) for n in a.notes[:-1]) if a.notes[:-1] else ""))
        self._chart(a.evidence.results[0])
        self.add_button.setEnabled(True)

    def _chart(self, res: Any) -> None:
        """One row per figure: each comparable run a grey tick, this engagement a red dot, on a 0..1 scale of the
        row's range (the labels say the values)."""
        self.chart.clear()
        rows = [m for m in res.metrics if m.peers]
        if not rows:
            self.chart.hide()
            return
        for i, m in enumerate(rows):
            y = len(rows) - i
            vals = [*m.peers, *([m.value] if m.value is not None else [])]
            lo, hi = min(vals), max(vals)
            span = (hi - lo) or 1.0
            xs = [(v - lo) / span for v in m.peers]
            self.chart.plot(xs, [y] * len(xs), pen=None, symbol="|", symbolSize=10, symbolPen=pg.mkPen("#777777"),
                            symbolBrush=None)
            if m.value is not None:
                self.chart.plot([(m.value - lo) / span], [y], pen=None, symbol="o", symbolSize=9,
                                symbolBrush="#c00000", symbolPen=None, name=m.label)
            pct = f" — higher than {fmt_pct(m.percentile / 100)} of them" if m.percentile is not None else ""
            label = pg.TextItem(f"{m.label}{pct}", color="#333333", anchor=(0, 1))
            label.setPos(0, y + 0.45)
            self.chart.addItem(label)
        self.chart.getPlotItem().hideAxis("left")
        self.chart.getPlotItem().getAxis("bottom").setTicks([[(0, "lowest"), (1, "highest")]])
        self.chart.setYRange(0.5, len(rows) + 0.8)
        self.chart.setXRange(-0.02, 1.02)
        self.chart.setMouseEnabled(False, False)
        self.chart.show()

    def _add(self) -> None:
        self.add_question([self.question()])
        self.status.setText("The comparison is in the report's questions.")
        self.add_button.setEnabled(False)

    def closeEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        if self.job is not None and self.job.isRunning():
            self.job.stop()
        super().closeEvent(event)
