"""One clock: the run list's "Put on one clock…" -- each run's clock offset against a reference run, found from
their activity off the GUI thread (app.analysis.clock), accepted, set by hand or removed (app.store.clock)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.run import Run
from app.safe_text import shown
from app.ui.tables import cell
from app.ui.workers import JobThread
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, has

COLUMNS = ["Run", "Offset found", "Match", "What was found", "Offset now"]
COL_RUN, COL_FOUND, COL_MATCH, COL_WHAT, COL_NOW = range(len(COLUMNS))
EXPLAIN = ("Captures from several machines rarely share a clock. StormScope compares each run's activity over time "
           "with the reference run's and finds the shift that lines them up: that is how far its clock is off. "
           "The match (0 to 1) says how alike the two activities are at that shift; a pair that does not match "
           "gets no offset. Ticked runs are put on the reference's clock by Accept; every view, question and the "
           "report then use the corrected clock and say so.")


def clock_runs(ws: Workspace) -> list[Run]:
    """The runs that can be put on one clock: disk rates (those without time stamps are placed on the reference's)."""
    return [r for r in ws.runs() if has(r.kind, DEVICE_RATES)]


class ClockDialog(QDialog):
    """Reference run above, one row per other run: the offset found, the match, what was found, the offset stored
    now; Accept stores the ticked (matching) offsets, "Set by hand…" and "Use the file's clock" act on the
    selected row."""

    changed = Signal()  # offsets were stored or removed

    def __init__(self, ws: Workspace, reference: int, parent: Any = None):
        super().__init__(parent)
        self.setWindowTitle("Put runs on one clock")
        self.ws = ws
        self.matches: dict[int, Any] = {}
        self.job: JobThread | None = None
        self.runs = clock_runs(ws)
        lay = QVBoxLayout(self)
        text = QLabel(EXPLAIN)
        text.setWordWrap(True)
        lay.addWidget(text)
        row = QHBoxLayout()
        row.addWidget(QLabel("Reference run (its clock is kept):"))
        self.reference = QComboBox()
        dated = [r for r in self.runs if r.started_at is not None]  # a reference needs a clock of its own
        for r in dated:
            self.reference.addItem(f"{r.run_id} · {shown(r.name, 80)}", r.run_id)
        ids = [r.run_id for r in dated]
        if reference in ids:
            self.reference.setCurrentIndex(ids.index(reference))
        self.reference.currentIndexChanged.connect(lambda _i: self.estimate())
        row.addWidget(self.reference, 1)
        lay.addLayout(row)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(COL_WHAT, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setVisible(False)
        lay.addWidget(self.table, 1)
        self.status = QLabel("")
        lay.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.accept_button = QPushButton("Accept ticked offsets")
        self.accept_button.clicked.connect(self.accept_ticked)
        self.by_hand_button = QPushButton("Set by hand…")
        self.by_hand_button.clicked.connect(lambda: self.set_by_hand())
        self.clear_button = QPushButton("Use the file's clock")
        self.clear_button.clicked.connect(self.clear_selected)
        for b in (self.accept_button, self.by_hand_button, self.clear_button):
            buttons.addButton(b, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        if ws.read_only_reason:  # a newer StormScope's workspace: shown, never changed
            for b in (self.accept_button, self.by_hand_button, self.clear_button):
                b.setEnabled(False)
                b.setToolTip(ws.read_only_reason)
        self.resize(900, 420)
        self.estimate()

    def reference_id(self) -> int | None:
        data = self.reference.currentData()
        return None if data is None else int(data)

    def others(self) -> list[int]:
        ref = self.reference_id()
        return [r.run_id for r in self.runs if r.run_id != ref]

    # ---- estimating, off the GUI thread ------------------------------------------------------------------------
    def estimate(self) -> None:
        from app.analysis.clock import estimate_offset
        from app.errors import AnalysisError

        ref = self.reference_id()
        ids = self.others()
        self._fill(ids)
        if ref is None or not ids:
            self.status.setText("A run with time stamps and another run are needed to compare clocks.")
            return
        if self.job is not None and self.job.isRunning():
            self.job.stop()
        reader = self.ws.cursor()

        def job(state: Any) -> dict[int, Any]:
            out: dict[int, Any] = {}
            with reader as ws:
                for i, rid in enumerate(ids):
                    state.check()
                    state.progress(i / len(ids), "comparing")
                    try:
                        out[rid] = estimate_offset(ws, rid, ref)
                    except AnalysisError as e:  # this pair cannot be compared: said in its row
                        out[rid] = e
            return out

        self.status.setText("Comparing the runs' activity…")
        self.accept_button.setEnabled(False)
        self.job = JobThread(job, self, connections=[reader.con])
        self.job.done.connect(lambda res, ref=ref: self._estimated(res, ref))
        self.job.start()

    def _fill(self, ids: list[int]) -> None:
        from app.store.clock import get_offset

        names = {r.run_id: r.name for r in self.runs}
        self.table.setRowCount(len(ids))
        for row, rid in enumerate(ids):
            item = QTableWidgetItem(f"{rid} · {shown(names[rid], 80)}")
            item.setData(Qt.ItemDataRole.UserRole, rid)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            self.table.setItem(row, COL_RUN, item)
            for col in (COL_FOUND, COL_MATCH, COL_WHAT):
                self.table.setItem(row, col, QTableWidgetItem("…" if col == COL_FOUND else ""))
            o = get_offset(self.ws, rid)
            self.table.setItem(row, COL_NOW, QTableWidgetItem("the file's clock" if o is None else o.words()))

    def _estimated(self, result: Any, ref: int) -> None:
        from app.store.clock import fmt_offset

        if ref != self.reference_id():
            return  # a newer comparison is on its way
        if isinstance(result, Exception):  # the comparison itself failed: said, never hidden
            self.status.setText(shown(f"The runs could not be compared: {result}", 2000))
            return
        self.matches = {}
        for row in range(self.table.rowCount()):
            rid = int(cell(self.table, row, COL_RUN).data(Qt.ItemDataRole.UserRole))
            m = result.get(rid)
            run_item = cell(self.table, row, COL_RUN)
            if isinstance(m, Exception):
                cell(self.table, row, COL_FOUND).setText("–")
                cell(self.table, row, COL_WHAT).setText(shown(f"cannot be compared: {m}", 2000))
                continue
            if m is None:
                continue
            self.matches[rid] = m
            if m.matching:
                run_item.setFlags(run_item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                run_item.setCheckState(Qt.CheckState.Checked)
            cell(self.table, row, COL_FOUND).setText(fmt_offset(m.offset_s) if m.matching else "not matching")
            cell(self.table, row, COL_MATCH).setText("–" if m.match is None else f"{m.match:.2f}")
            cell(self.table, row, COL_WHAT).setText(_words(m))
            cell(self.table, row, COL_WHAT).setToolTip(_words(m))
        n = sum(1 for m in self.matches.values() if m.matching)
        self.status.setText(f"{n} of {self.table.rowCount()} run{'s' if self.table.rowCount() != 1 else ''} match "
                            "the reference.")
        self.accept_button.setEnabled(n > 0 and not self.ws.read_only_reason)

    # ---- storing --------------------------------------------------------------------------------------------
    def ticked(self) -> list[int]:
        out = []
        for row in range(self.table.rowCount()):
            item = cell(self.table, row, COL_RUN)
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable and item.checkState() == Qt.CheckState.Checked:
                out.append(int(item.data(Qt.ItemDataRole.UserRole)))
        return out

    def accept_ticked(self) -> None:
        from app.analysis.clock import accept

        for rid in self.ticked():
            accept(self.ws, self.matches[rid])
        self._stored()

    def selected_run(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return int(cell(self.table, rows[0].row(), COL_RUN).data(Qt.ItemDataRole.UserRole))

    def set_by_hand(self, seconds: float | None = None) -> None:
        from app.store.clock import get_offset, set_offset

        rid = self.selected_run()
        if rid is None:
            self.status.setText("Choose a run in the table first.")
            return
        if seconds is None:
            now = get_offset(self.ws, rid)
            value, ok = QInputDialog.getDouble(
                self, "Clock offset", "Seconds added to the run's clock (+37: its clock is 37 s behind):",
                0.0 if now is None else now.offset_s, -7 * 86400.0, 7 * 86400.0, 1)
            if not ok:
                return
            seconds = value
        set_offset(self.ws, rid, seconds, reference_run_id=self.reference_id())
        self._stored()

    def clear_selected(self) -> None:
        from app.store.clock import clear_offset

        rid = self.selected_run()
        if rid is None:
            self.status.setText("Choose a run in the table first.")
            return
        clear_offset(self.ws, rid)
        self._stored()

    def _stored(self) -> None:
        from app.store.clock import get_offset

        for row in range(self.table.rowCount()):
            rid = int(cell(self.table, row, COL_RUN).data(Qt.ItemDataRole.UserRole))
            o = get_offset(self.ws, rid)
            cell(self.table, row, COL_NOW).setText("the file's clock" if o is None else o.words())
        self.changed.emit()

    def done(self, result: int) -> None:  # noqa: D102 (Qt's)
        if self.job is not None and self.job.isRunning():
            self.job.stop()
        super().done(result)


def _words(m: Any) -> str:
    """What was found, in a customer's words."""
    if m.matching:
        from app.store.clock import fmt_offset

        ahead = "ahead of" if m.offset_s < 0 else "behind"
        text = (f"its clock is {fmt_offset(abs(m.offset_s)).lstrip('+')} {ahead} the reference's" if not m.placed
                else f"no time stamps: it starts {fmt_offset(m.offset_s)} from the reference's start")
        text += f" (good to about {m.step_s:g} s; {m.figure}"
        if m.next_best is not None:
            text += f"; the next best shift matches {m.next_best:.2f}"
        return text + ")"
    return m.reason[0].upper() + m.reason[1:]
