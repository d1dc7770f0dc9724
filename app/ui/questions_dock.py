"""The report's questions in the window: the "Report questions" panel (a dock of the main window).

The questions are the workspace's (app.analysis.questions): the views add them ("Add to report" on the Overlay,
Histograms and Sizing tabs, or Report ▸ Add to report), this panel lists them in the report's order with their
answer -- number, title, verdict, the deciding figure -- and reorders (Move up / Move down, Ctrl+Up / Ctrl+Down),
renames (double-click or F2 on a row; an empty title brings back the generated one) and deletes them (Delete
key or button; Undo in the status bar). Answers are computed on a worker thread (each one runs the analysis of
its kind), so the list shows at once and its verdicts follow.

Choosing a row announces the question (``question_chosen``): the window selects its runs and shows the tab
that holds its evidence.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.analysis.questions import (
    Question,
    QuestionError,
    StoredQuestion,
    add_question,
    answer_stored,
    delete_question,
    describe,
    edit_question,
    list_questions,
    move_question,
    run_names,
)
from app.safe_text import shown
from app.ui import theme
from app.ui.tables import cell
from app.ui.workers import JobThread
from app.workspace import Workspace

COLUMNS = ["#", "Question", "Answer", "Deciding figure"]
COL_NUM, COL_TITLE, COL_VERDICT, COL_FIGURE = range(4)
PENDING = "…"  # an answer still being computed
# verdict -> colour (light theme, dark theme)
VERDICT_COLOURS = {"met": ("#1b7f3b", "#6fcf8a"), "held": ("#1b7f3b", "#6fcf8a"),
                   "not met": ("#b00020", "#ff8080"), "not held": ("#b00020", "#ff8080")}
ROWS_AT_ONCE = 300  # rows made (or answers shown) at a time: ~30 ms of the window's thread; the rest in chunks
UNDO_MS = 20000  # how long the Undo button of a deletion stays in the status bar
EMPTY_TEXT = ("No questions yet. On the Overlay, Histograms or Sizing tab, click Add to report (or Report ▸ Add to "
              "report) to put the question you are looking at into the report.")


class QuestionsPanel(QWidget):
    """The list of the report's questions with their answers, and the buttons that edit it."""

    question_chosen = Signal(object)  # StoredQuestion
    message = Signal(str, int)  # status bar text, milliseconds
    changed = Signal()  # the questions changed (added, moved, renamed, deleted)
    count_changed = Signal(int)  # how many questions the report answers (after each refresh)

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.questions: list[StoredQuestion] = []
        self.answers: dict[int, Any] = {}  # question id -> Answer of the last computation
        self._generation = 0
        self._jobs: list[JobThread] = []
        self._filling = False
        # the rows are made in chunks (_fill): how many are made, how many show their answer, of which refresh
        self._filled = 0
        self._answers_shown = 0
        self._answers_gen = -1  # the computation (self._generation) whose answers the rows show
        self._answer_error: Exception | None = None
        self._fill_gen = 0
        self._names_now: dict[int, str] = {}
        self._shut = False
        self._deleted: tuple[StoredQuestion, str] | None = None  # the last deletion (question, heading) for Undo

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("report-questions")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)  # the title only: see _edit_title
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(COL_NUM, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Interactive)
        head.setSectionResizeMode(COL_VERDICT, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(COL_FIGURE, QHeaderView.ResizeMode.Stretch)
        head.setStretchLastSection(True)
        self.table.setColumnWidth(COL_TITLE, 420)
        self.table.setToolTip("The questions the report answers on its first page, in this order (File ▸ Export "
                              "report…)")
        self.table.itemSelectionChanged.connect(self._chosen)
        # a click on the row already chosen (the question just added is) shows its evidence again: the selection
        # does not change, so only the click says so (the press is counted: a click that chose the row is not twice)
        self._choices = 0  # questions announced so far
        self._choices_at_press = -1
        self.table.viewport().installEventFilter(self)
        self.table.clicked.connect(self._clicked)
        self.table.itemDoubleClicked.connect(lambda item: self.edit_title(item.row()))
        self.table.itemChanged.connect(self._title_edited)

        self.read_only: str | None = None  # why the workspace must not be changed (a newer StormScope's), if so
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setWordWrap(True)
        self.empty.setEnabled(False)  # the muted text colour

        def action(text: str, keys: Any, slot: Any, tip: str) -> QAction:
            a = QAction(text, self)
            a.setShortcuts(keys if isinstance(keys, list) else [keys])
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # while the panel has the focus
            a.setToolTip(tip)
            a.triggered.connect(lambda _checked=False: slot())
            self.addAction(a)
            return a

        self.up_action = action("Move up", QKeySequence("Ctrl+Up"), self.move_up,
                                "Ask this question earlier in the report (Ctrl+Up)")
        self.down_action = action("Move down", QKeySequence("Ctrl+Down"), self.move_down,
                                  "Ask this question later in the report (Ctrl+Down)")
        self.rename_action = action("Rename…", QKeySequence("F2"), lambda: self.edit_title(self.current_row()),
                                    "Give the question a title of your own (F2 or double-click; clear it to get "
                                    "the generated title back)")
        self.delete_action = action("Delete", QKeySequence(QKeySequence.StandardKey.Delete), self.delete_current,
                                    "Take the question out of the report (Delete; Undo in the status bar)")
        buttons = QVBoxLayout()  # beside the list: every row of the panel's height is a question
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(2)
        self.buttons: dict[str, QPushButton] = {}
        for a in (self.up_action, self.down_action, self.rename_action, self.delete_action):
            b = QPushButton(a.text())
            b.setToolTip(a.toolTip())
            b.clicked.connect(a.trigger)
            buttons.addWidget(b)
            self.buttons[a.text()] = b
        buttons.addStretch(1)

        self.undo_button = QToolButton()  # the window puts it in its status bar (a flat one: the bar keeps its height)
        self.undo_button.setText("Undo")
        self.undo_button.setAutoRaise(True)
        self.undo_button.setMaximumHeight(self.fontMetrics().height() + 2)
        self.undo_button.setToolTip("Put the deleted question back where it was")
        self.undo_button.clicked.connect(self.undo_delete)
        self.undo_button.hide()
        self._undo_timer = QTimer(self, singleShot=True, interval=UNDO_MS)
        self._undo_timer.timeout.connect(self._forget_undo)

        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(6)
        lay.addWidget(self.empty, 1)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)
        self.refresh()

    # ---- the list ------------------------------------------------------------------------------------
    def current_row(self) -> int:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def current_question(self) -> StoredQuestion | None:
        row = self.current_row()
        return self.questions[row] if 0 <= row < len(self.questions) else None

    def refresh(self, select_id: int | None = None) -> None:
        """Read the questions again (titles at once, answers on a worker thread); keep the chosen row, or choose
        ``select_id``."""
        if self._shut:
            return
        current = self.current_question()
        keep = select_id if select_id is not None else current.question_id if current else None
        self.questions = list_questions(self.ws)
        names = self._names()
        self._fill_gen += 1
        self._filled, self._answers_shown, self._answers_gen, self._names_now = 0, 0, -1, names
        self._filling = True
        self.table.blockSignals(True)
        try:
            self.table.clearContents()  # the rows not made yet must not show the last list's items (the rows stay:
            self.table.setRowCount(len(self.questions))  # a title being committed is not taken from under its editor)
            ids = [sq.question_id for sq in self.questions]
            self._fill(max(ROWS_AT_ONCE, ids.index(keep) + 1 if keep in ids else 0))
            self.table.clearSelection()
            if keep in ids:
                self.table.selectRow(ids.index(keep))
        finally:
            self.table.blockSignals(False)
            self._filling = False
        self._more_later()
        self._buttons()
        n = len(self.questions)
        self.empty.setVisible(n == 0)
        self.table.setVisible(n > 0)
        self.count_changed.emit(n)
        self._answer()

    def _names(self) -> dict[int, str]:
        """The runs' names as the panel shows them (in titles, messages): names from files, escaped."""
        return {rid: shown(n) for rid, n in run_names(self.ws).items()}

    def _fill(self, most: int) -> None:
        """Make the next ``most`` rows' items (title, pending answer), then show the answers known for rows made
        before they came, up to ``most`` of them: rows are made in chunks (:meth:`_more_later`), so a workspace of
        10,000 questions opens without making 40,000 items at once."""
        end = min(len(self.questions), self._filled + most)
        with self._unfitted():
            self._fill_rows(end, most)

    @contextmanager
    def _unfitted(self) -> Iterator[None]:
        """The columns fitted to their contents held at their width meanwhile: in a shown table such a column is
        fitted again at each item set (10 ms each at 10,000 rows); fitted once after."""
        head = self.table.horizontalHeader()
        fit = QHeaderView.ResizeMode.ResizeToContents
        fitted = [c for c in (COL_NUM, COL_VERDICT) if head.sectionResizeMode(c) == fit]
        for c in fitted:
            head.setSectionResizeMode(c, QHeaderView.ResizeMode.Fixed)
        try:
            yield
        finally:
            for c in fitted:
                head.setSectionResizeMode(c, fit)

    def _fill_rows(self, end: int, most: int) -> None:
        if end > self._filled:
            names = self._names_now
            flags, title_flags = self._flags()  # (asked once: each enum "|" costs as much as an item)
            right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            for row in range(self._filled, end):
                sq = self.questions[row]
                self._put(row, COL_NUM, str(sq.position), flags).setTextAlignment(right)
                heading = sq.heading(names)
                title = self._put(row, COL_TITLE, heading, title_flags)
                title.setToolTip(heading + ("" if sq.title else "\n(generated title: F2 or double-click to give it "
                                                                "your own)"))
                self._put(row, COL_VERDICT, PENDING, flags)
                self._put(row, COL_FIGURE, "", flags)
            self._filled = end
        if self._answers_gen == self._generation:
            self._show_answers(min(self._filled, self._answers_shown + most))

    def _more_later(self) -> None:
        """The rows not made yet, and the answers not shown yet: the next chunk once the window has painted and
        answered clicks (a zero timer: after the events waiting)."""
        if self._shut or (self._filled >= len(self.questions) and (
                self._answers_gen != self._generation or self._answers_shown >= self._filled)):
            return
        gen = self._fill_gen
        QTimer.singleShot(0, self, lambda: self._next_chunk(gen))

    def _next_chunk(self, gen: int) -> None:
        if gen != self._fill_gen or self._shut:  # a newer refresh makes its own rows
            return
        self._filling = True
        blocked = self.table.blockSignals(True)
        try:
            self._fill(ROWS_AT_ONCE)
        finally:
            self.table.blockSignals(blocked)
            self._filling = False
        self._more_later()

    def ensure_rows(self, rows: int) -> None:
        """The first ``rows`` rows made now (a row about to be edited or chosen that the chunks have not reached)."""
        if self._filled >= min(rows, len(self.questions)):
            return
        self._filling = True
        blocked = self.table.blockSignals(True)
        try:
            self._fill(rows - self._filled)
        finally:
            self.table.blockSignals(blocked)
            self._filling = False

    def _flags(self) -> tuple[Qt.ItemFlag, Qt.ItemFlag]:
        """A row's cells' flags, and its title's (editable unless the workspace is read-only)."""
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return flags, flags if self.read_only else flags | Qt.ItemFlag.ItemIsEditable

    def _put(self, row: int, col: int, text: str, flags: Qt.ItemFlag) -> QTableWidgetItem:
        item = QTableWidgetItem(text)
        item.setFlags(flags)
        self.table.setItem(row, col, item)
        return item

    def _answer(self) -> None:
        """Compute every answer on a worker thread (the analyses read the whole runs)."""
        self._generation += 1
        gen = self._generation
        if not self.questions:
            return
        stored = list(self.questions)
        reader = self.ws.cursor()  # the worker's own connection to the open workspace

        def job(state: Any) -> dict[int, Any]:
            out = {}
            with reader as ws:
                for i, sq in enumerate(stored):
                    state.check()
                    state.progress(i / len(stored), "answering")
                    out[sq.question_id] = answer_stored(ws, sq)
            return out

        self._jobs = [j for j in self._jobs if j.isRunning()]
        for old in self._jobs:  # their answers are of an older list: not waited for
            old.cancel()
        thread = JobThread(job, self, connections=[reader.con])
        thread.done.connect(lambda res, gen=gen: self._answered(res, gen))
        self._jobs.append(thread)
        thread.start()

    def _answered(self, result: Any, gen: int) -> None:
        if gen != self._generation or self._shut:
            return
        # a failure of the computation itself (not "cannot answer"): said on every row
        self.answers = {} if isinstance(result, Exception) else result
        self._answer_error = result if isinstance(result, Exception) else None
        self._answers_gen, self._answers_shown = gen, 0
        blocked = self.table.blockSignals(True)
        try:
            with self._unfitted():
                self._show_answers(min(self._filled, ROWS_AT_ONCE))
        finally:
            self.table.blockSignals(blocked)
        self._more_later()

    def _show_answers(self, upto: int) -> None:
        """The answers of the rows from the first not shown yet to ``upto`` (made rows)."""
        dark = theme.current() == "dark"
        for row in range(self._answers_shown, upto):
            if self._answer_error is not None:
                cell(self.table, row, COL_VERDICT).setText("–")
                cell(self.table, row, COL_FIGURE).setText(shown(
                    f"The answers could not be computed: {self._answer_error}", 2000))
                continue
            a = self.answers.get(self.questions[row].question_id)
            if a is None:
                continue
            verdict = cell(self.table, row, COL_VERDICT)
            verdict.setText(a.verdict)
            colours = VERDICT_COLOURS.get(a.verdict)
            if colours:
                verdict.setForeground(QColor(colours[1 if dark else 0]))
            font = verdict.font()
            font.setBold(a.verdict != "information")
            verdict.setFont(font)
            figure = cell(self.table, row, COL_FIGURE)
            figure.setText(shown(a.number if a.error is None else f"cannot be answered: {a.error}", 2000))
            tip = [shown(x, 2000) for x in (a.number, str(a.reason)) if x]
            tip += [f"• {shown(n, 2000)}" for n in a.notes]
            for col in (COL_VERDICT, COL_FIGURE):
                cell(self.table, row, col).setToolTip("\n".join(tip))
        self._answers_shown = max(self._answers_shown, upto)

    def recolour(self) -> None:
        """The answers' colours in the theme now in force (the dark theme's reds and greens are lighter: "not held"
        stayed dark red on dark grey after a switch)."""
        dark = theme.current() == "dark"
        for row in range(self.table.rowCount()):
            verdict = self.table.item(row, COL_VERDICT)
            colours = VERDICT_COLOURS.get(verdict.text()) if verdict is not None else None
            if verdict is not None and colours:
                verdict.setForeground(QColor(colours[1 if dark else 0]))

    def shutdown(self) -> None:
        """The window is closing (or switching workspace): no new answers, and the running ones finish."""
        self._shut = True
        for j in self._jobs:
            if j.isRunning():
                j.stop()

    def reopen(self, ws: Workspace) -> None:
        """Another workspace is open: its questions."""
        self._shut = False
        self.ws = ws
        self._forget_undo()
        self.refresh()

    # ---- adding ----------------------------------------------------------------------------------------
    def set_read_only(self, reason: str | None) -> None:
        """A workspace this version must not change: no question is added, moved, renamed or deleted (``reason`` in
        the tooltips and the status bar)."""
        changed, self.read_only = reason != self.read_only, reason
        if changed and not self._shut:  # the titles' editable flag
            self.refresh()

    def add(self, questions: list[Question]) -> list[StoredQuestion]:
        """Store questions a view asked for; the status bar names them (or says why one cannot be added)."""
        if self.read_only:
            self.message.emit(f"Not added to the report: {self.read_only}.", 15000)
            return []
        added: list[StoredQuestion] = []
        try:
            for q in questions:
                added.append(add_question(self.ws, q))
        except QuestionError as e:
            self.message.emit(f"Could not add to the report: {e}", 15000)
        if added:
            names = self._names()
            self.refresh(select_id=added[-1].question_id)
            heads = [sq.heading(names) for sq in added]
            self.message.emit("Added to the report: " + " · ".join(heads), 15000)
            self.changed.emit()
        return added

    # ---- editing ---------------------------------------------------------------------------------------
    def _buttons(self) -> None:
        row = self.current_row()
        n = len(self.questions)
        self.up_action.setEnabled(row > 0)
        self.down_action.setEnabled(0 <= row < n - 1)
        self.rename_action.setEnabled(row >= 0)
        self.delete_action.setEnabled(row >= 0)
        for a in (self.up_action, self.down_action, self.rename_action, self.delete_action):
            if self.read_only:
                a.setEnabled(False)
            self.buttons[a.text()].setEnabled(a.isEnabled())
            self.buttons[a.text()].setToolTip(self.read_only or a.toolTip())

    def _chosen(self) -> None:
        self._buttons()
        sq = self.current_question()
        if sq is not None and not self._filling:
            self._choices += 1
            self.question_chosen.emit(sq)

    def eventFilter(self, obj: Any, event: Any) -> bool:  # noqa: N802 (Qt name)
        if obj is self.table.viewport() and event.type() == QEvent.Type.MouseButtonPress:
            self._choices_at_press = self._choices
        return super().eventFilter(obj, event)

    def _clicked(self, index: Any) -> None:
        """A click on the row that was already chosen: announced again (the window shows its evidence)."""
        if self._choices == self._choices_at_press and index.row() == self.table.currentRow():
            self._chosen()

    def _move(self, step: int) -> None:
        sq = self.current_question()
        if sq is None:
            return
        to = sq.position + step
        if not 1 <= to <= len(self.questions):
            return
        move_question(self.ws, sq.question_id, to)
        self.refresh(select_id=sq.question_id)
        self.table.setFocus()
        self.changed.emit()

    def move_up(self) -> None:
        self._move(-1)

    def move_down(self) -> None:
        self._move(+1)

    def edit_title(self, row: int) -> None:
        """Open the title of row ``row`` for editing (double-click, F2, Rename…)."""
        if 0 <= row < self.table.rowCount():
            self.ensure_rows(row + 1)
            item = cell(self.table, row, COL_TITLE)
            self.table.setCurrentItem(item)
            self.table.editItem(item)

    def _title_edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != COL_TITLE or not 0 <= item.row() < len(self.questions):
            return
        if self.read_only:  # (the titles are not editable then; a refresh puts the stored one back)
            self.refresh()
            return
        sq = self.questions[item.row()]
        names = self._names()
        text = item.text().strip()
        if text == sq.heading(names):
            return  # nothing changed
        generated = describe(sq.question, names)
        title = "" if text in ("", generated) else text  # empty (or the generated words): the generated title
        try:
            edit_question(self.ws, sq.question_id, title=title)
        except QuestionError as e:
            self.message.emit(f"Could not rename the question: {e}", 15000)
        self.refresh(select_id=sq.question_id)
        self.message.emit("Title: " + (title or f"the generated one ({generated})"), 10000)
        self.changed.emit()

    def delete_current(self) -> None:
        sq = self.current_question()
        if sq is None:
            return
        row = self.current_row()
        heading = sq.heading(self._names())
        delete_question(self.ws, sq.question_id)
        self._deleted = (sq, heading)
        self.refresh()
        if self.questions:  # the next question is chosen for the keys, without leaving the tab the user is on
            self.ensure_rows(min(row, len(self.questions) - 1) + 1)
            self._filling = True
            try:
                self.table.selectRow(min(row, len(self.questions) - 1))
            finally:
                self._filling = False
        self.table.setFocus()
        self.undo_button.show()
        self._undo_timer.start()
        self.message.emit(f"Deleted from the report: {heading}", UNDO_MS)
        self.changed.emit()

    def undo_delete(self) -> None:
        """Put the last deleted question back, with its title and at its place."""
        if self._deleted is None:
            return
        sq, heading = self._deleted
        self._forget_undo()
        pos = min(sq.position, len(list_questions(self.ws)) + 1)
        try:
            back = add_question(self.ws, sq.question, title=sq.title, position=pos)
        except QuestionError as e:  # e.g. its run was deleted meanwhile
            self.message.emit(f"Could not put the question back: {e}", 15000)
            return
        self.refresh(select_id=back.question_id)
        self.message.emit(f"Back in the report: {heading}", 10000)
        self.changed.emit()

    def _forget_undo(self) -> None:
        self._deleted = None
        self._undo_timer.stop()
        self.undo_button.hide()
