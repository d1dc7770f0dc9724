"""What a file cannot say, asked where the user needs it: File ▸ Import with options… (interval, first report,
host RAM for IOzone), and after an import the runs still waiting for an interval, each with a field to set it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.run import Run
from app.safe_text import shown
from parsers.base import ImportOptions
from parsers.kinds import LATENCY_HISTOGRAMS, has

FIRST_REPORT = [
    ("Decide from the file", "auto"),
    ("Since boot (iostat without -y): leave it out", "since-boot"),
    ("An interval (iostat -y): keep it", "interval"),
]


class ImportOptionsDialog(QDialog):
    """Files and folders to import, with what their contents cannot tell."""

    def __init__(self, parent: Any = None, paths: list[str] | None = None):
        super().__init__(parent)
        self.setWindowTitle("Import with options")
        self.paths = QListWidget()
        self.paths.addItems(paths or [])
        add_files = QPushButton("Add files…")
        add_folder = QPushButton("Add folder…")
        add_files.clicked.connect(self._add_files)
        add_folder.clicked.connect(self._add_folder)
        self.interval = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s")
        self.interval.setSpecialValueText("from the file's time stamps")
        self.interval.setToolTip("Seconds between reports, for logs without time stamps (the 5 of 'iostat 5')")
        self.first_report = QComboBox()
        for label, value in FIRST_REPORT:
            self.first_report.addItem(label, value)
        self.first_report.setToolTip("iostat's first report covers the time since the machine booted, unless the "
                                     "capture was made with -y")
        self.ram_gb = QDoubleSpinBox(minimum=0, maximum=1_000_000, value=0, decimals=0, suffix=" GB")
        self.ram_gb.setSpecialValueText("not given")
        self.ram_gb.setToolTip("IOzone: the tested host's memory; results on files smaller than this were likely "
                               "served from the page cache and are marked so")
        form = QFormLayout()
        form.addRow("Interval", self.interval)
        form.addRow("First report", self.first_report)
        form.addRow("Host memory (IOzone)", self.ram_gb)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.import_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        row = QHBoxLayout()
        row.addWidget(add_files)
        row.addWidget(add_folder)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("Files and folders to import:"))
        lay.addWidget(self.paths)
        lay.addLayout(row)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self._sync()

    def _sync(self) -> None:
        self.import_button.setEnabled(self.paths.count() > 0)

    def _add_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Import traces")
        self.paths.addItems(files)
        self._sync()

    def _add_folder(self) -> None:
        d = QFileDialog.getExistingDirectory(self, "Import a folder of traces")
        if d:
            self.paths.addItem(d)
        self._sync()

    def chosen_paths(self) -> list[str]:
        return [self.paths.item(i).text() for i in range(self.paths.count())]

    def options(self) -> ImportOptions:
        return ImportOptions(interval_s=self.interval.value() or None,
                             first_report=self.first_report.currentData(),
                             ram_gb=self.ram_gb.value() or None)


class WaitingForInterval(QWidget):
    """The runs that have neither time stamps nor an interval: one line each (name, seconds field, Set interval)
    in a list at most two lines high that scrolls (a folder can hold dozens), and with several runs a line
    that sets one interval for all of them."""

    interval_set = Signal()
    VISIBLE_ROWS = 2

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.fields: dict[int, QDoubleSpinBox] = {}
        self.buttons: dict[int, QPushButton] = {}
        self.runs: list[Run] = []
        self.setter: Callable[[int, float], str | None] | None = None
        self.all_label = QLabel()
        self.all_field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s")
        self.all_field.setSpecialValueText("not set")
        self.all_button = QPushButton("Set for all")
        self.all_button.clicked.connect(self._set_all)
        self.all_row = QWidget()
        row = QHBoxLayout(self.all_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.all_label, 1)
        row.addWidget(self.all_field)
        row.addWidget(self.all_button)
        self.inner = QWidget()
        self.grid = QGridLayout(self.inner)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(self.inner)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.all_row)
        lay.addWidget(self.scroll_area)
        self.setVisible(False)

    def show_runs(self, runs: list[Run], setter: Callable[[int, float], str | None]) -> None:
        """``runs``: the waiting runs (run_id, name, kind); ``setter(run_id, seconds)`` returns an error or None."""
        self.runs, self.setter = list(runs), setter
        while self.grid.count():
            item = self.grid.takeAt(0)  # never None below count()
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        self.fields, self.buttons = {}, {}
        for row, r in enumerate(runs):
            between = "its collections" if has(r.kind, LATENCY_HISTOGRAMS) \
                else "its reports (the 5 of 'iostat 5')"
            label = QLabel(f"{shown(r.name)} has no time stamps. Seconds between {between}:")
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setToolTip(shown(r.name, 1000))
            field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s")
            field.setSpecialValueText("not set")
            button = QPushButton("Set interval")
            button.clicked.connect(lambda _c=False, rid=r.run_id: self._set(rid))
            self.grid.addWidget(label, row, 0)
            self.grid.addWidget(field, row, 1)
            self.grid.addWidget(button, row, 2)
            self.fields[r.run_id] = field
            self.buttons[r.run_id] = button
        self.grid.setColumnStretch(0, 1)
        self.all_label.setText(f"{len(runs)} runs have no time stamps. The same interval for all of them:")
        self.all_row.setVisible(len(runs) > 1)
        row_h = max(QPushButton("x").sizeHint().height(), QDoubleSpinBox().sizeHint().height()) + 6
        self.scroll_area.setFixedHeight(min(len(runs), self.VISIBLE_ROWS) * row_h + 2)
        self.setVisible(bool(runs))

    def _set(self, run_id: int) -> None:
        seconds = self.fields[run_id].value()
        if seconds <= 0 or self.setter is None:
            self.fields[run_id].setFocus()
            return
        self.setter(run_id, seconds)
        self.interval_set.emit()

    def _set_all(self) -> None:
        seconds = self.all_field.value()
        if seconds <= 0 or self.setter is None:
            self.all_field.setFocus()
            return
        for r in self.runs:
            self.setter(r.run_id, seconds)
        self.interval_set.emit()
