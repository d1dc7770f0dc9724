"""The VDI sizing calculator: presets, optionally fed from a selected run, result and formula shown."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.analysis.histograms import AnalysisError
from app.analysis.sizing import measured_inputs, parse_iops_range, size_vdi
from app.analysis.sizing_presets import load_presets
from app.analysis.text import SIZING_INPUT_LABELS, SIZING_STEP_LABELS
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, has


class IopsPerUserField(QLineEdit):
    """IOPS per user as the user guide says to type it: one figure (``25``) or a light..heavy users range (``8..25``,
    both cases sized). Text it cannot read is refused visibly -- the field turns red, :meth:`problem` says why --,
    never read as something else (a number box took ``8..25`` for 8.2 without a word)."""

    def __init__(self, text: str = "25", parent: Any = None):
        super().__init__(text, parent)
        self.setPlaceholderText("25, or 8..25 (light..heavy users)")
        self.setToolTip("IOPS per user: one figure (25), or a light..heavy users range (8..25): both are sized")
        self.textChanged.connect(lambda _t: self._show())

    def parsed(self) -> tuple[float, float | None] | None:
        """(light or only figure, heavy or None); None when the text is not a figure or a range."""
        return None if self.problem() else parse_iops_range(self.text())

    def problem(self) -> str | None:
        """Why the text is refused (the window's words), None when it reads."""
        text = self.text().strip()
        if not text:
            return "IOPS per user: give a figure (25) or a light..heavy users range (8..25)"
        try:
            steady, _storm = parse_iops_range(text)
        except AnalysisError as e:
            return str(e)
        return None if steady > 0 else f"IOPS per user {text!r}: the figure must be above 0"

    def set_value(self, steady: float, storm: float | None = None) -> None:
        self.setText(f"{steady:g}" if storm is None else f"{steady:g}..{storm:g}")

    def _show(self) -> None:
        self.setStyleSheet("" if self.problem() is None or not self.isEnabled() else
                           "QLineEdit { border: 2px solid #d32f2f; }")


class SizingPanel(QWidget):
    questions_asked = Signal(list)  # [SizingQuestion]: "Add to report"

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        pre = load_presets()
        self.users = QSpinBox(minimum=1, maximum=1_000_000, value=100)
        self.profile = QComboBox()
        self.profile.addItem("(enter IOPS per user)", None)
        for key, p in pre["user_profiles"].items():
            self.profile.addItem(f"{key}: {p['iops_per_user']} IOPS, {p['read_pct']} % reads", key)
        self.ipu = IopsPerUserField("25")
        # (decimals where a user types them: 37.5 % reads, 2.5 GB a user; a box that drops the point reads 375)
        self.read_pct = QDoubleSpinBox(minimum=0, maximum=100, value=40, decimals=1, suffix=" %")
        self.storm = QDoubleSpinBox(minimum=1, maximum=100, value=1, decimals=1, suffix=" ×")
        self.raid = QComboBox()
        for key, r in pre["raid"].items():
            self.raid.addItem(f"{r['label']} (write penalty {r['write_penalty']})", key)
        self.raid.setCurrentIndex(max(0, self.raid.findData("10")))
        self.disk = QComboBox()
        for key, d in pre["disk_types"].items():
            self.disk.addItem(f"{d['label']}: {d['iops']:,} IOPS", key)
        self.disk.setCurrentIndex(max(0, self.disk.findData("sata7k")))
        self.gb_user = QDoubleSpinBox(minimum=0, maximum=100_000, value=0, decimals=1, suffix=" GB")
        self.gb_user.setSpecialValueText("capacity not sized")
        self.disk_gb = QDoubleSpinBox(minimum=0, maximum=1_000_000, value=0, decimals=0, suffix=" GB")
        self.disk_gb.setSpecialValueText("–")
        self.measured = QCheckBox("Measured from the selected iostat run")
        self.measured.setToolTip("Take IOPS per user, the read share and the storm multiplier from the iostat run "
                                 "selected in the run list: steady IOPS / VMs, and peak / steady")
        self.vms = QSpinBox(minimum=1, maximum=100_000, value=30, suffix=" VMs in the run")
        for w in (self.users, self.read_pct, self.storm, self.gb_user, self.disk_gb, self.vms):
            w.valueChanged.connect(self.compute)
        self.ipu.textChanged.connect(lambda _t: self.compute())
        for combo in (self.profile, self.raid, self.disk):
            combo.currentIndexChanged.connect(self.compute)
        self.measured.toggled.connect(self.compute)
        self.measured.toggled.connect(self._measured_fields)
        self.ipu.textChanged.connect(lambda _t: self._measured_fields(self.measured.isChecked()))

        self.headline = QLabel()
        self.headline.setStyleSheet("font-size: 15pt; font-weight: bold;")
        self.headline.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Step", "Result", "Formula"])
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the long formulas wrap, the result stays seen
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow("Users", self.users)
        form.addRow("User profile", self.profile)
        form.addRow("IOPS per user", self.ipu)
        form.addRow("Reads", self.read_pct)
        form.addRow("Storm multiplier", self.storm)
        form.addRow("RAID", self.raid)
        form.addRow("Disk type", self.disk)
        form.addRow("Capacity per user", self.gb_user)
        form.addRow("Disk size", self.disk_gb)
        form.addRow(self.measured)
        form.addRow("", self.vms)
        box = QGroupBox("Inputs")
        box.setLayout(form)
        self.add_action = QAction("Add to report", self)
        self.add_action.setToolTip("Add to the report the question how many disks these inputs need (the report "
                                   "answers it with the sizing and a what-if over RAID levels and disk types)")
        self.add_action.triggered.connect(lambda _checked=False: self._ask())
        self.add_button = QPushButton(self.add_action.text())
        self.add_button.setToolTip(self.add_action.toolTip())
        self.add_button.clicked.connect(lambda _checked=False: self.add_action.trigger())
        self.add_action.enabledChanged.connect(self.add_button.setEnabled)
        add_row = QHBoxLayout()
        add_row.addStretch(1)
        add_row.addWidget(self.add_button)
        # where each input came from, and the notes, under the inputs: the result table keeps the height
        notes_area = QScrollArea()
        notes_area.setWidget(self.notes)
        notes_area.setWidgetResizable(True)
        notes_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        left = QVBoxLayout()
        left.addWidget(box)
        left.addWidget(notes_area, 1)
        right = QVBoxLayout()
        right.addWidget(self.headline)
        right.addWidget(self.table, 1)
        right.addLayout(add_row)  # under the result it asks about (the inputs' column has no height to spare)
        lay = QHBoxLayout(self)
        lay.addLayout(left, 2)
        lay.addLayout(right, 3)
        self.result: Any = None
        self._measured_fields(False)
        self.compute()

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt name)
        """The steps' formulas wrap to the width the table has (they were cut short with an ellipsis)."""
        super().resizeEvent(ev)
        self.table.resizeRowsToContents()

    def set_runs(self, run_ids: list[int]) -> None:
        runs = self.ws.runs_by_id(run_ids)  # one query for the whole selection
        self.run_ids = [r for r in run_ids if has((runs[r].kind if r in runs else None), DEVICE_RATES)]
        if self.measured.isChecked():
            self.compute()

    def compute(self) -> None:
        profile = self.profile.currentData()
        kwargs: dict[str, Any] = {
            "raid": self.raid.currentData(), "disk_type": self.disk.currentData(),
            "gb_per_user": self.gb_user.value() or None, "disk_gb": self.disk_gb.value() or None,
        }
        measured = None
        if self.measured.isChecked():
            if not self.run_ids:
                self._clear()
                self.notes.setText("Select an iostat run of the storm to size from measurements.")
                return
            try:
                measured = measured_inputs(self.ws, self.run_ids[0], self.vms.value())
            except AnalysisError as e:  # str(e): the window's words (menu items, not command-line flags)
                self._clear()
                self.notes.setText(f"Measured mode: {e}")
                return
        elif profile is not None:
            kwargs["profile"] = profile
        else:
            typed = self.ipu.parsed()
            if typed is None:  # refused visibly: the field is red and says why; nothing sized from a guess
                self._clear()
                self.notes.setText(self.ipu.problem() or "")
                return
            if typed[1] is not None:  # a light..heavy users range: each end sized at its own IOPS per user
                kwargs.update(read_pct=self.read_pct.value())
            else:
                kwargs.update(iops_per_user=typed[0], read_pct=self.read_pct.value(),
                              storm_multiplier=self.storm.value())
        steady = None
        low, high = self.ipu.parsed() or (0.0, None)
        try:
            if self._range():
                steady = size_vdi(self.users.value(), low, **kwargs)
                r = size_vdi(self.users.value(), high, **kwargs)
            else:
                r = size_vdi(self.users.value(), measured=measured, **kwargs)
        except AnalysisError as e:
            self._clear()
            self.notes.setText(str(e))
            return
        self.result = r
        self.add_action.setEnabled(True)
        ipu = r.inputs.get("iops_per_user", {}).get("value")
        layout = f"; {r.disks_layout} in whole {r.layout}" if r.disks_layout != r.disks else ""
        self.headline.setText((f"{r.disks} disks ({r.disks_exact:.2f} for IOPS, rounded up) for "
                               f"{self.users.value():,} users at {ipu:g} IOPS" if ipu else f"{r.disks} disks") + layout)
        if steady is not None:  # the table below is the heavy users' end
            self.headline.setText(f"{steady.disks_layout} disks at {low:g} IOPS per user (light users), "
                                  f"{r.disks_layout} at {high:g} (heavy users), for "
                                  f"{self.users.value():,} users (the steps below: heavy users)")
        values = {"frontend_iops": f"{r.frontend_iops:,.0f}", "backend_iops": f"{r.backend_iops:,.0f}",
                  "disks_for_iops": f"{r.disks_exact:.2f} → {r.disks_for_iops}",
                  "disks_for_capacity": (f"{r.capacity_exact:.2f} → {r.disks_for_capacity}"
                                         if r.disks_for_capacity is not None else "not sized"),
                  "disks": str(r.disks), "disks_layout": str(r.disks_layout),
                  "array_frontend_iops": f"{r.array_frontend_iops:,.0f}",
                  "users_supported": f"{r.users_supported:,.1f}"}
        self.table.setRowCount(len(r.formula))
        for i, (k, f) in enumerate(r.formula.items()):
            for j, v in enumerate((SIZING_STEP_LABELS.get(k, k.replace("_", " ")), values.get(k, ""), f)):
                self.table.setItem(i, j, QTableWidgetItem(v))
        self.table.resizeRowsToContents()
        src = "\n".join(f"• {SIZING_INPUT_LABELS.get(k, k.replace('_', ' '))} = {self._value(k, v['value'], r)} "
                        f"({self._source(k, v['source'], r)})" for k, v in r.inputs.items())
        self.notes.setText("Inputs:\n" + src + ("\n" + "\n".join(r.notes) if r.notes else ""))

    # ---- the report's question ---------------------------------------------------------------------
    def sizing_question(self) -> Any:
        """The inputs as a sizing question of the report (None while they give no sizing): users, RAID level,
        disk type, capacity, and the IOPS per user -- typed (with reads and the storm multiplier), a user profile,
        or measured on the selected iostat run (with the number of VMs in it)."""
        from app.analysis.questions import SizingQuestion

        if self.result is None:
            return None
        common: dict[str, Any] = {"users": self.users.value(), "raid": self.raid.currentData(),
                                  "disk_type": self.disk.currentData(), "gb_per_user": self.gb_user.value() or None,
                                  "disk_gb": self.disk_gb.value() or None}
        if self.measured.isChecked():
            if not self.run_ids:
                return None
            return SizingQuestion(measured_run=self.run_ids[0], vms=self.vms.value(), **common)
        if self.profile.currentData() is not None:
            return SizingQuestion(profile=self.profile.currentData(), **common)
        typed = self.ipu.parsed()
        if typed is None:
            return None
        if typed[1] is not None:
            return SizingQuestion(iops_per_user=typed[0], iops_per_user_storm=typed[1],
                                  read_pct=self.read_pct.value(), **common)
        return SizingQuestion(iops_per_user=typed[0], read_pct=self.read_pct.value(),
                              storm_multiplier=self.storm.value(), **common)

    def _range(self) -> bool:
        """IOPS per user typed as a light..heavy users range."""
        typed = self.ipu.parsed()
        return not self.measured.isChecked() and self.profile.currentData() is None and typed is not None \
            and typed[1] is not None

    def _ask(self) -> None:
        q = self.sizing_question()
        if q is not None:
            self.questions_asked.emit([q])

    def show_question(self, q: Any) -> None:
        """Set the inputs as a sizing question of the report was asked."""
        self.users.setValue(q.users)
        if q.raid is not None and self.raid.findData(q.raid) >= 0:
            self.raid.setCurrentIndex(self.raid.findData(q.raid))
        if q.disk_type is not None and self.disk.findData(q.disk_type) >= 0:
            self.disk.setCurrentIndex(self.disk.findData(q.disk_type))
        self.gb_user.setValue(q.gb_per_user or 0)
        self.disk_gb.setValue(q.disk_gb or 0)
        self.measured.setChecked(q.measured_run is not None)
        if q.measured_run is not None:
            self.vms.setValue(q.vms or 1)
            return
        self.profile.setCurrentIndex(max(0, self.profile.findData(q.profile)) if q.profile else 0)
        if q.iops_per_user is not None:
            self.ipu.set_value(q.iops_per_user, q.iops_per_user_storm)
            if q.read_pct is not None:
                self.read_pct.setValue(q.read_pct)
            self.storm.setValue(q.storm_multiplier if q.storm_multiplier is not None else 1.0)

    def _measured_fields(self, measured: bool) -> None:
        """In measured mode the run gives IOPS per user, reads and the storm multiplier: their fields are off."""
        for w in (self.profile, self.ipu, self.read_pct, self.storm):
            w.setEnabled(not measured)
            w.setToolTip("Taken from the selected run (Measured is ticked)" if measured else "")
        if not measured:
            self.ipu.setToolTip("IOPS per user: one figure (25), or a light..heavy users range (8..25): both cases are "
                                "sized (the storm multiplier is then not used)")
        self.ipu._show()
        self.vms.setEnabled(measured)
        typed = self.ipu.parsed()
        self.storm.setEnabled(not measured and not (typed is not None and typed[1] is not None))

    def _clear(self) -> None:
        """No result: nothing of the last one may stay on screen as if it still held."""
        self.result = None
        self.add_action.setEnabled(False)
        self.headline.setText("")
        self.table.setRowCount(0)

    @staticmethod
    def _value(key: str, value: Any, r: Any) -> str:
        if key == "raid":
            return str(r.raid.get("label", value))
        text = f"{value:,.6g}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)
        unit = {"read_pct": " %", "gb_per_user": " GB", "disk_gb": " GB"}.get(key, "")
        return text + unit

    @staticmethod
    def _source(key: str, source: str, r: Any) -> str:
        """The disk type by the name the Disk type box shows, not its preset key."""
        if key == "disk_iops" and r.disk.get("type") and r.disk.get("label"):
            return source.replace(f"disk type {r.disk['type']}", f"disk type {r.disk['label']}", 1)
        return source
