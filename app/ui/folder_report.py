"""File ▸ Report from folder…: an engagement folder to the report in one action; a drop on the window asks the
same questions of its new runs (app/ui/main_window.py _ask_open_questions), with its own button text.

The folder is imported (files already in the workspace are recognised and kept as they are); what its captures
cannot say is asked once, in one dialog for the whole folder (each capture without time stamps: its interval;
each iostat capture whose first report the file cannot prove: since boot or an interval); then the report dialog
opens on the folder's runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.safe_text import shown

FIRST_REPORT_CHOICES = [
    ("Since boot (iostat's default): leave it out", "since-boot"),
    ("An interval (iostat ran with -y): keep it", "interval"),
]


class FolderAnswersDialog(QDialog):
    """One row per question: an interval field, or the first report's choice. The rows scroll inside a dialog that
    fits the screen (a folder of 200 captures asks a hundred questions), and with several questions of a kind a row
    above them gives one answer to all of them at once."""

    def __init__(self, questions: list[Any], parent: Any = None, go_on: str = "Continue to the report"):
        super().__init__(parent)
        self.setWindowTitle("What the files cannot say")
        self.questions = questions
        self.fields: list[Any] = []
        intro = QLabel("These captures cannot say the following themselves. Answer once; the runs keep the answers "
                       "(right-click a run to change them later).")
        intro.setWordWrap(True)
        form = QFormLayout()
        for q in questions:
            if q.what == "interval":
                field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s",
                                       specialValueText="not known")
                hint = (f"; the file's cumulative kB columns suggest about {q.suggested:g} s (an estimate)"
                        if q.suggested else "")
                field.setToolTip(f"No time stamps: the seconds between reports (the 5 of 'iostat 5'){hint}")
                label = f"{shown(q.file)}: seconds between reports" + (
                    f" (about {q.suggested:g} s?)" if q.suggested else "")
            else:
                field = QComboBox()
                for text, value in FIRST_REPORT_CHOICES:
                    field.addItem(text, value)
                field.setToolTip("iostat's first report covers the time since the machine booted, unless the capture "
                                 "was made with -y; this file cannot prove which")
                label = f"{shown(q.file)}: first report"
            form.addRow(label, field)
            self.fields.append(field)
        rows = QWidget()
        rows.setLayout(form)
        scroll = QScrollArea()
        scroll.setWidget(rows)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll = scroll
        self.all_interval: QDoubleSpinBox | None = None
        self.all_first: QComboBox | None = None
        self.all_rows = self._for_all()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(go_on)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        for row in self.all_rows:
            lay.addWidget(row)
        lay.addWidget(scroll, 1)
        lay.addWidget(self.status)
        lay.addWidget(buttons)
        self._fit(rows)

    def _fit(self, rows: QWidget) -> None:
        """As tall as the questions need, at most three quarters of the screen (then they scroll)."""
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        most = int(screen.height() * 0.75) if screen is not None and screen.height() > 0 else 600
        need = rows.sizeHint().height() + 24
        self.scroll.setMinimumHeight(min(need, max(120, most - 200)))
        self.resize(max(self.sizeHint().width(), rows.sizeHint().width() + 40), min(most, self.sizeHint().height()))

    def _for_all(self) -> list[QWidget]:
        """With several questions of a kind: one line that answers them all (the rows below can still differ)."""
        out: list[QWidget] = []
        intervals = [f for q, f in zip(self.questions, self.fields) if q.what == "interval"]
        firsts = [f for q, f in zip(self.questions, self.fields) if q.what != "interval"]
        if len(intervals) > 1:
            field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s",
                                   specialValueText="not known")
            self.all_interval = field
            out.append(self._all_row(f"{len(intervals)} captures have no time stamps. Seconds between reports, for "
                                     "all of them:", field, lambda: [f.setValue(field.value()) for f in intervals]))
        if len(firsts) > 1:
            combo = QComboBox()
            for text, value in FIRST_REPORT_CHOICES:
                combo.addItem(text, value)
            self.all_first = combo
            out.append(self._all_row(f"{len(firsts)} iostat captures cannot prove their first report. For all of "
                                     "them:", combo, lambda: [f.setCurrentIndex(combo.currentIndex()) for f in firsts]))
        return out

    @staticmethod
    def _all_row(text: str, field: QWidget, apply: Any) -> QWidget:
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        label = QLabel(text)
        label.setWordWrap(True)
        button = QPushButton("Apply to all")
        button.clicked.connect(lambda _checked=False: apply())
        lay.addWidget(label, 1)
        lay.addWidget(field)
        lay.addWidget(button)
        return row

    def answers(self) -> list[tuple[Any, float | str]]:
        """(question, answer) for every question answered (an interval left at "not known" is not)."""
        out: list[tuple[Any, float | str]] = []
        for q, f in zip(self.questions, self.fields):
            if q.what == "interval":
                if f.value() > 0:
                    out.append((q, f.value()))
            else:
                out.append((q, f.currentData()))
        return out

    def _check(self) -> None:
        missing = [shown(q.file) for q, f in zip(self.questions, self.fields)
                   if q.what == "interval" and f.value() <= 0]
        if missing:
            self.status.setText(f"Give the seconds between reports of {', '.join(missing)}: without them its "
                                "times stay empty.")
            return
        self.accept()
