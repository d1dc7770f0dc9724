"""Whole disks… in the run menu: which of a run's devices every whole-disk figure sums (charts, storm, cap, sizing,
replay, the report), what each device is, and what StormScope's rules chose and why -- ticked and changed by the
consultant. A choice that would count some I/O twice is refused with why (app.series_sums.check_whole_disks); the
choice is stored on the run (Workspace.set_whole_disks) and named in the report's sources."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.analysis.series import list_devices
from app.safe_text import shown
from app.series_sums import DeviceChoice, device_roles, device_rules, rules_choice, run_devices
from app.workspace import Workspace

COLUMNS = ["Device", "What it is", "StormScope's rules"]
EXPLAIN = ("Every whole-disk figure of this run — the charts, the storm, the cap check, sizing, replay and the "
           "report — sums the ticked devices. StormScope ticks the physical disks and leaves out partitions, volumes, "
           "stacked devices (device-mapper, md, bcache …) and totals, so that no I/O is counted twice. Change it "
           "when you know the host better; a choice that would count some I/O twice is refused, with why.")


def _natural(name: str) -> list[object]:
    """Sort key of a device name with its numbers as numbers (sda2 before sda10)."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _text(words: str) -> QTableWidgetItem:
    item = QTableWidgetItem(words)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    item.setToolTip(words)
    return item


class WholeDisksDialog(QDialog):
    """One row per device, ticked when summed; "StormScope's choice" ticks the rules' devices again; OK stores."""

    changed = Signal()  # the run's whole disks were stored

    def __init__(self, ws: Workspace, run_id: int, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_id = run_id
        run = ws.run(run_id)
        self.setWindowTitle(f"Whole disks of {shown(run.name, 60) if run else f'run {run_id}'}")
        devices = sorted(run_devices(ws.con, run_id), key=lambda d: _natural(d[0]))  # sda2 before sda10
        self.rules_choice: DeviceChoice = rules_choice(ws.con, run_id)
        now = list_devices(ws, run_id)
        roles = device_roles(devices)
        proven = device_rules(ws.con, run_id).stacked
        roles.update({d: "stacked device (by its figures)" for d in proven if d in roles})
        lay = QVBoxLayout(self)
        text = QLabel(EXPLAIN)
        text.setWordWrap(True)
        lay.addWidget(text)
        self.table = QTableWidget(len(devices), len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        used = set(now.used)
        for i, (name, _g, _la) in enumerate(devices):
            item = QTableWidgetItem(shown(name, 60))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in used else Qt.CheckState.Unchecked)
            self.table.setItem(i, 0, item)
            self.table.setItem(i, 1, _text(roles.get(name, "")))
            why = self.rules_choice.excluded.get(name)
            self.table.setItem(i, 2, _text("summed" if name in self.rules_choice.used
                                          else f"left out: {why}" if why else "left out"))
        self.table.resizeColumnsToContents()
        self.table.itemChanged.connect(lambda _it: self._said())
        lay.addWidget(self.table, 1)
        self.state = QLabel()  # whose choice the ticks are, or why they cannot be stored
        self.state.setWordWrap(True)
        lay.addWidget(self.state)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.rules_button = QPushButton("StormScope's choice")
        self.rules_button.setToolTip("Tick the devices StormScope's rules choose")
        buttons.addButton(self.rules_button, QDialogButtonBox.ButtonRole.ResetRole)
        self.rules_button.clicked.connect(self.use_rules)
        buttons.accepted.connect(self.store)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        lay.addWidget(buttons)
        self.resize(760, min(640, 200 + 28 * len(devices)))
        self._said()

    def ticked(self) -> list[str]:
        return [str(it.data(Qt.ItemDataRole.UserRole)) for i in range(self.table.rowCount())
                if (it := self.table.item(i, 0)) is not None and it.checkState() == Qt.CheckState.Checked]

    def _said(self) -> None:
        ticked = self.ticked()
        if not ticked:
            self.state.setText("Tick at least one device.")
        elif ticked == self.rules_choice.used:
            self.state.setText("These are StormScope's choice.")
        else:
            self.state.setText(f"Your choice: {len(ticked)} device{'s' if len(ticked) > 1 else ''}. The report names "
                               "it in its sources, beside StormScope's own.")
        self.ok.setEnabled(bool(ticked))

    def use_rules(self) -> None:
        want = set(self.rules_choice.used)
        self.table.blockSignals(True)
        for i in range(self.table.rowCount()):
            it = self.table.item(i, 0)
            if it is not None:
                it.setCheckState(Qt.CheckState.Checked if it.data(Qt.ItemDataRole.UserRole) in want
                                 else Qt.CheckState.Unchecked)
        self.table.blockSignals(False)
        self._said()

    def store(self) -> None:
        ticked = self.ticked()
        try:
            self.ws.set_whole_disks(self.run_id, None if ticked == self.rules_choice.used else ticked)
        except ValueError as e:  # a choice that would count some I/O twice: said, and the dialog stays
            self.state.setText(f"Not stored: {e}.")
            return
        self.changed.emit()
        self.accept()
