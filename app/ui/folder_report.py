"""File ▸ Report from folder…: an engagement folder to the report in one action; a drop on the window asks the
same questions of its new runs (app/ui/main_window.py _ask_open_questions), with its own button text.

The folder is imported (files already in the workspace are recognised and kept as they are); what its captures
cannot say is asked once, in one dialog for the whole folder (each capture without time stamps: its interval;
each iostat capture whose first report the file cannot prove: since boot or an interval); then the report dialog
opens on the folder's runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel, QVBoxLayout

from app.safe_text import shown

FIRST_REPORT_CHOICES = [
    ("Since boot (iostat's default): leave it out", "since-boot"),
    ("An interval (iostat ran with -y): keep it", "interval"),
]


class FolderAnswersDialog(QDialog):
    """One row per question: an interval field, or the first report's choice."""

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
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(go_on)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(form)
        lay.addWidget(self.status)
        lay.addWidget(buttons)

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
