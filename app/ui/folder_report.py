"""File ▸ Report from folder…: an engagement folder to the report in one action; a drop on the window asks the
same questions of its new runs (app/ui/main_window.py _ask_open_questions), with its own button text.

The folder is imported (files already in the workspace are recognised and kept as they are); what its captures
cannot say is asked once, in one dialog for the whole folder (each capture without time stamps: its interval;
each iostat capture whose first report the file cannot prove: since boot or an interval; and once for all the
captures whose dates read both ways -- 05/03/26, 5 March or 3 May --, listing each with its first and last time
read either way; and once for all the perfmon logs whose counter names StormScope does not know, read by their
place in the log: each file with what its columns were read as, and one choice, read so or leave them out); then
the report dialog opens on the folder's runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.safe_text import shown
from parsers.dates import ORDER_NAMES

GROUPED = ("date_order", "counters_by_place")  # asked once for all the files (one choice), not one field each

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
        self.dates = [q for q in questions if q.what == "date_order"]
        self.date_box = self._dates_group(self.dates) if self.dates else None
        self.placed = [q for q in questions if q.what == "counters_by_place"]
        self.placed_box = self._placed_group(self.placed) if self.placed else None
        for q in questions:
            if q.what in GROUPED:
                continue
            field: QDoubleSpinBox | QComboBox
            if q.what == "interval":
                field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s")
                field.setSpecialValueText("not known")
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
        self.scroll_area = scroll
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
        if self.placed_box is not None:
            lay.addWidget(self.placed_box)
        if self.date_box is not None:
            lay.addWidget(self.date_box)
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
        dates = sum(b.sizeHint().height() for b in (self.date_box, self.placed_box) if b is not None)
        self.scroll_area.setMinimumHeight(min(need, max(120, most - 200 - dates)))
        self.resize(max(self.sizeHint().width(), rows.sizeHint().width() + 40), min(most, self.sizeHint().height()))

    def _for_all(self) -> list[QWidget]:
        """With several questions of a kind: one line that answers them all (the rows below can still differ)."""
        out: list[QWidget] = []
        asked = [q for q in self.questions if q.what not in GROUPED]  # one field each (the grouped: one choice)
        intervals = [f for q, f in zip(asked, self.fields) if q.what == "interval"]
        firsts = [f for q, f in zip(asked, self.fields) if q.what != "interval"]
        if len(intervals) > 1:
            field = QDoubleSpinBox(minimum=0, maximum=86400, value=0, decimals=2, suffix=" s")
            field.setSpecialValueText("not known")
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

    def _dates_group(self, dates: list[Any]) -> QGroupBox:
        """One question for every capture whose dates read both ways: the files, each reading with its first and
        last time, and one choice for all of them."""
        box = QGroupBox("Dates that read both ways")
        lay = QVBoxLayout(box)
        orders = list(dict.fromkeys(o for q in dates for o, _f, _l in q.readings))
        sample = "05/03/26 is 5 March read day/month/year, 3 May read month/day/year"
        lines, undated = [], []
        for q in dates:
            if all(first is None and last is None for _o, first, last in q.readings):
                undated.append(shown(q.file))  # only the date in its header reads both ways
                continue
            ways = "; ".join(f"{ORDER_NAMES[o]}: {_period(first, last)}" for o, first, last in q.readings)
            lines.append(f"{shown(q.file)} — {ways}")
        if undated:
            lines.append(f"{len(undated)} {'capture prints' if len(undated) == 1 else 'captures print'} no time of "
                         f"day, only a date in the header that reads both ways: {', '.join(undated)}")
        intro = QLabel(f"Nothing in these captures says whether a date like 05/03/26 gives the day or the month "
                       f"first ({sample}). They are kept read {ORDER_NAMES[orders[0]]} until you say:")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        files = self._file_list(lines, wrap=True)
        self.date_files = files
        lay.addWidget(files)
        self.date_choice = QButtonGroup(box)
        for i, order in enumerate(orders):
            b = QRadioButton(f"The dates are {ORDER_NAMES[order]}")
            b.setProperty("order", order)
            b.setChecked(i == 0)
            self.date_choice.addButton(b, i)
            lay.addWidget(b)
        return box

    def _file_list(self, lines: list[str], wrap: bool) -> QScrollArea:
        """The files of a question in a box of their own that scrolls (at most 30 % of the screen): the choice below
        it stays on the screen, however many files the drop has."""
        text = QLabel("\n".join(lines))
        text.setTextFormat(Qt.TextFormat.PlainText)
        text.setWordWrap(wrap)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        files = QScrollArea()
        files.setWidget(text)
        files.setWidgetResizable(True)
        files.setFrameShape(QFrame.Shape.StyledPanel)
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        tallest = int(screen.height() * 0.3) if screen is not None and screen.height() > 0 else 240
        files.setMaximumHeight(max(80, min(tallest, text.sizeHint().height() + 8)))
        return files

    def _placed_group(self, placed: list[Any]) -> QGroupBox:
        """One question for every perfmon log whose counter names StormScope does not know: each file with what its
        columns were read as by their place in the log, and one choice for all of them."""
        box = QGroupBox("Counter names in a language StormScope does not know")
        lay = QVBoxLayout(box)
        intro = QLabel("These Windows performance logs use counter names StormScope has no translation for. By their "
                       "place in the log and their values, the columns look like the counters below (an object and "
                       "its counters are listed by Windows in the same order in every language). They are read so "
                       "until you say:")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        lines = []
        for q in placed:
            lines.append(f"{shown(q.file)}:")
            lines += [f"    {shown(k, 120)}  →  {shown(v, 120)}" for k, v in q.names]
        files = self._file_list(lines, wrap=False)
        self.placed_files = files
        lay.addWidget(files)
        self.placed_choice = QButtonGroup(box)
        for i, (words, value) in enumerate((("Yes, these columns are those counters: read them so", "confirm"),
                                            ("No: leave their values out", "reject"))):
            b = QRadioButton(words)
            b.setProperty("value", value)
            b.setChecked(i == 0)
            self.placed_choice.addButton(b, i)
            lay.addWidget(b)
        return box

    def date_order(self) -> str | None:
        """The order chosen for the captures whose dates read both ways."""
        b = self.date_choice.checkedButton() if self.dates else None
        return None if b is None else str(b.property("order"))

    def answers(self) -> list[tuple[Any, float | str]]:
        """(question, answer) for every question answered (an interval left at "not known" is not)."""
        out: list[tuple[Any, float | str]] = []
        order = self.date_order()
        out += [(q, order) for q in self.dates if order is not None and order in {o for o, _f, _l in q.readings}]
        b = self.placed_choice.checkedButton() if self.placed else None
        out += [(q, str(b.property("value"))) for q in self.placed if b is not None]
        for q, f in zip([q for q in self.questions if q.what not in GROUPED], self.fields):
            if q.what == "interval":
                if f.value() > 0:
                    out.append((q, f.value()))
            else:
                out.append((q, f.currentData()))
        return out

    def _check(self) -> None:
        missing = [shown(q.file) for q, f in zip([q for q in self.questions if q.what not in GROUPED], self.fields)
                   if q.what == "interval" and f.value() <= 0]
        if missing:
            self.status.setText(f"Give the seconds between reports of {', '.join(missing)}: without them its "
                                "times stay empty.")
            return
        self.accept()


def _period(first: Any, last: Any) -> str:
    if first is None or last is None:
        return "no time printed"
    return f"{_day(first)} to {_day(last)}"


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _day(t: Any) -> str:
    """A time with its month named (never a number that could read both ways again), whatever the system locale."""
    return f"{t.day} {_MONTHS[t.month - 1]} {t.year} {t:%H:%M:%S}"
