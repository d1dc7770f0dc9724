"""Iometer / IOmark view: the answer first (did the cap hold on each test's mean, is the response-time goal met, how
a limited run compares with an unlimited one), then the figures per test and target (Iometer) and per result row
(IOmark). The figures and sentences are the ones the PDF and ``main.py analyze iometer|iomark`` print
(app.analysis.bench_results)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.analysis.bench_results import (
    VERDICT_CELLS,
    IometerSummary,
    cap_text,
    compare_iometer,
    fmt,
    iomark_runs,
    iomark_summary,
    iometer_runs,
    iometer_summary,
    mean_text,
    ratio_text,
    row_text,
    without_then_with_limit,
)
from app.safe_text import shown, shown_html
from app.ui.tables import read_only_table
from app.workspace import Workspace

EMPTY = "Select Iometer or IOmark runs in the run list to see their results."
IOMETER_HEADER = ["Run", "Test", "Access specification", "Target", "Cap (test mean)", "IOPS", "MB/s",
                  "Mean (ms)", "Max (ms)"]
COMPARE_HEADER = ["Access specification", "Target", "IOPS A", "IOPS B", "Ratio B / A", "MB/s A", "MB/s B",
                  "Mean A (ms)", "Mean B (ms)"]
IOMARK_HEADER = ["Run", "Result", "Users", "Within threshold", "Goal met", "File says", "IOPS", "MB/s",
                 "Mean (ms)", "Line"]
NOTE = ("Iometer gives one average per test: a cap is judged on the test's mean (at or below the cap + tolerance: "
        "held; under the cap - tolerance: not reached), which cannot show every 10 s window. MB = 2^20 bytes. "
        "A cap comes from a report question on the run or the run's cap tag; the response-time goal from a report "
        "question on the run, else at least 80 % within 50 ms.")


NUMERIC = set("0123456789,.×– ")
HEADER_TIPS = {"Mean (ms)": "Mean response time, as the tool reports it", "Max (ms)": "Slowest single response",
               "Mean A (ms)": "Mean response time of run A", "Mean B (ms)": "Mean response time of run B",
               "Cap (test mean)": "Whether the cap held on the test's mean rate (hover a cell for the figures)",
               "File says": "The pass or fail the results file states", "MB/s": "MB = 2^20 bytes"}


def _table(header: list[str], name: str) -> QTableWidget:
    return read_only_table(header, name, HEADER_TIPS)


def _fill(t: QTableWidget, rows: list[list[str]]) -> None:
    t.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(text)
            if j and text and set(text) <= NUMERIC:  # a figure (not a verdict that starts with one)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            t.setItem(i, j, item)
    t.setVisible(bool(rows))


def _heading(text: str) -> QLabel:
    label = QLabel(f"<b>{text}</b>")
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class BenchResultsView(QWidget):
    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.answers: list[str] = []  # the answer sentences, plain text, in the order shown
        self.answer = QLabel(EMPTY)
        self.answer.setObjectName("bench-answer")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.RichText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.iometer = _table(IOMETER_HEADER, "iometer-table")
        self.compare = _table(COMPARE_HEADER, "iometer-compare")
        self.iomark = _table(IOMARK_HEADER, "iomark-table")
        self.iometer_title = _heading("Iometer: per test and target")
        self.compare_title = _heading("Iometer: two runs compared")
        self.iomark_title = _heading("IOmark: per result row")
        self.note = QLabel(NOTE)
        self.note.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.addWidget(self.answer)
        for title, table in ((self.iometer_title, self.iometer), (self.compare_title, self.compare),
                             (self.iomark_title, self.iomark)):
            lay.addWidget(title)
            lay.addWidget(table, 1)
        lay.addWidget(self.note)
        lay.addStretch(0)
        self.reload()

    def set_runs(self, run_ids: list[int]) -> None:
        shown_runs = iometer_runs(self.ws) | iomark_runs(self.ws)
        self.run_ids = [r for r in run_ids if r in shown_runs]
        self.reload()

    def reload(self) -> None:
        meter = [r for r in self.run_ids if r in iometer_runs(self.ws)]
        mark = [r for r in self.run_ids if r in iomark_runs(self.ws)]
        self.answers = []
        summaries = [iometer_summary(self.ws, rid) for rid in meter]
        self.answers += [s.answer for s in summaries]
        _fill(self.iometer, [row for s in summaries for row in self._iometer_rows(s)])
        self._cap_tips(summaries)
        cmp_rows = self._comparison(summaries)
        _fill(self.compare, cmp_rows)
        marks = [iomark_summary(self.ws, rid) for rid in mark]
        self.answers += [m.answer for m in marks]
        _fill(self.iomark, [[shown(m.run_name), shown(row_text(r), 80), "–" if r.users is None else str(r.users),
                             "–" if r.share_pct is None else f"{fmt(r.share_pct)} % within {fmt(m.threshold_ms)} ms",
                             {True: "yes", False: "no", None: "–"}[r.meets],
                             {True: "pass", False: "fail", None: "–"}[r.stated_pass], fmt(r.iops), fmt(r.mb_s, 2),
                             fmt(r.mean_ms, 3), str(r.line or "–")]
                            for m in marks for r in m.rows])
        self.iometer_title.setVisible(bool(summaries))
        self.compare_title.setVisible(bool(cmp_rows))
        self.iomark_title.setVisible(bool(marks))
        self.note.setVisible(bool(summaries or marks))
        if not self.answers:
            self.answer.setText(EMPTY)
            return
        self.answer.setText("<br>".join(f"• {shown_html(a, 2000)}" for a in self.answers))

    @staticmethod
    def _iometer_rows(s: IometerSummary) -> list[list[str]]:
        return [[shown(s.run_name), str(r.result_set + 1), shown(r.access_spec), shown(r.target),
                 "; ".join(f"{cap_text(c)}: {VERDICT_CELLS.get(c.verdict, c.verdict)}" for c in r.caps)
                 or "no cap known", fmt(r.iops), fmt(r.mb_s, 2), fmt(r.mean_ms, 3), fmt(r.max_ms, 3)]
                for r in s.rows]

    def _cap_tips(self, summaries: list[IometerSummary]) -> None:
        """Each cap cell's tooltip: the check's explanation (the test's mean against the cap and tolerance)."""
        rows = [r for s in summaries for r in s.rows]
        for i, r in enumerate(rows):
            item = self.iometer.item(i, 4)
            if item is not None and r.caps:
                item.setToolTip("\n".join(f"{cap_text(c)} ({mean_text(c)}): {c.explanation}" for c in r.caps))

    def _comparison(self, summaries: list[IometerSummary]) -> list[list[str]]:
        """Two Iometer runs selected: A the one without a limit in force, B the one whose cap held (else as
        selected)."""
        if len(summaries) != 2:
            return []
        a, b = without_then_with_limit(*summaries)
        cmp = compare_iometer(self.ws, a.run_id, b.run_id)
        if cmp.rows:
            self.answers.append(cmp.answer)
            self.compare_title.setText(f"<b>Iometer: A = {shown_html(a.run_name)}, B = {shown_html(b.run_name)}</b>")
        return [[shown(x["access_spec"]), shown(x["target"]), fmt(x["iops_a"]), fmt(x["iops_b"]),
                 ratio_text(x["iops_ratio"]), fmt(x["mb_s_a"], 2), fmt(x["mb_s_b"], 2), fmt(x["mean_ms_a"], 3),
                 fmt(x["mean_ms_b"], 3)] for x in cmp.rows]
