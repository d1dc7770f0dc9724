"""Report ▸ Where the time goes…: a guest's run (iostat, perfmon) and its host's esxtop run, asked as the question
"where does the time of the guest's I/O go" (app.analysis.latency_path); the Report questions panel answers it."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout

from app.run import Run
from app.safe_text import shown
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, HOST_LATENCY, has

EXPLAIN = ("A command the guest issues waits in the guest's own queue, then in the hypervisor (KAVG), then in the "
           "array and its paths (DAVG). Choose a capture made inside the guest and one made on its host at the same "
           "time: the answer splits the guest's response time into the three, interval by interval on one clock. "
           "The guest's part is estimated (its response time less the host's GAVG). Put the runs on one clock "
           "first if their clocks differ.")


def _runs(ws: Workspace, cap: str, without: str | None = None) -> list[Run]:
    return [r for r in ws.runs() if has(r.kind, cap) and (without is None or not has(r.kind, without))]


class LatencyPathDialog(QDialog):
    def __init__(self, ws: Workspace, add: Any, parent: Any = None):
        super().__init__(parent)
        self.setWindowTitle("Where the time goes")
        self.ws, self._add = ws, add
        lay = QVBoxLayout(self)
        text = QLabel(EXPLAIN)
        text.setWordWrap(True)
        lay.addWidget(text)
        form = QFormLayout()
        self.guest, self.host = QComboBox(), QComboBox()
        for r in _runs(ws, DEVICE_RATES, without=HOST_LATENCY):
            self.guest.addItem(shown(f"{r.run_id}: {r.name}" + (f" ({r.host})" if r.host else ""),
                                     200), r.run_id)
        for r in _runs(ws, HOST_LATENCY):
            self.host.addItem(shown(f"{r.run_id}: {r.name}" + (f" ({r.host})" if r.host else ""),
                                    200), r.run_id)
        self.guest_device, self.host_device = QLineEdit(), QLineEdit()
        self.guest_device.setPlaceholderText("its whole disks")
        self.host_device.setPlaceholderText("its physical disks")
        form.addRow("Guest's capture", self.guest)
        form.addRow("Guest's disks", self.guest_device)
        form.addRow("Host's capture (esxtop)", self.host)
        form.addRow("Host's devices", self.host_device)
        lay.addLayout(form)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        lay.addWidget(self.problem)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add to report")
        cancel = QPushButton("Cancel")
        row.addStretch(1)
        row.addWidget(self.add_button)
        row.addWidget(cancel)
        lay.addLayout(row)
        self.add_button.clicked.connect(self.add)
        cancel.clicked.connect(self.reject)
        if not self.guest.count() or not self.host.count():
            self.add_button.setEnabled(False)
            self.problem.setText("This needs a capture made inside a guest (iostat or perfmon) and one made on its "
                                 "host with esxtop: import both first.")

    def add(self) -> None:
        from app.analysis.questions import LatencyPathQuestion

        q = LatencyPathQuestion(int(self.guest.currentData()), int(self.host.currentData()),
                                self.guest_device.text().strip() or None, self.host_device.text().strip() or None)
        if self._add([q]):
            self.accept()
