"""A visible notice under the views when a selected iostat run's first report is left out as since-boot, with
the one click that changes it (iostat without -y prints the averages since boot first; with -y it does not).

One line, whatever the number of runs: what is left out and for how many runs; **Details** shows each run's reason
(grouped by reason) below it, and the line's tooltip holds the same. It sits under the views, so the tab bar never
moves when it comes and goes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout

from app.safe_text import shown
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, kinds_with


def runs_with_since_boot_left_out(ws: Workspace, run_ids: list[int]) -> list[tuple[int, str, str]]:
    """(run id, name, who decided) of the given iostat runs whose report 0 is left out as since-boot."""
    if not run_ids:
        return []
    rows = ws.con.execute(
        """SELECT r.run_id, r.name, coalesce(json_extract_string(r.meta, '$.first_report'), '')
           FROM runs r WHERE list_contains(?, r.run_id) AND list_contains(?, r.kind)
             AND EXISTS (SELECT 1 FROM iostat_samples s WHERE s.run_id = r.run_id AND s.since_boot)
           ORDER BY r.run_id""", [run_ids, list(kinds_with(DEVICE_RATES))]).fetchall()
    return [(int(rid), name, "you" if "set by the user" in how else "StormScope") for rid, name, how in rows]


def _names(names: list[str], most: int = 4) -> str:
    """'a', 'a and b', 'a, b and c'; past ``most``: the first ones and 'N more' (the label's tooltip lists all)."""
    if len(names) > most:
        names = [*names[:most - 1], f"{len(names) - most + 1} more"]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _why(said: str, who: str) -> str:
    """Why the run's first report is left out, in the words its format stored (iostat: proved by the cumulative
    columns; zpool: since the pool was imported); sysstat's iostat otherwise: its default, unless -y."""
    if who == "you":
        return "you marked it as covering the time since boot"
    if said.startswith("since-boot (proved: "):
        return f"the file proves it covers the time since boot ({said[len('since-boot (proved: '):].rstrip(')')})"
    if "(" in said and "assumed" not in said:
        return said[said.index("(") + 1:].rstrip(")")
    return ("iostat's first report covers the time since the machine booted unless the capture used -y, and "
            "the file cannot tell")


class SinceBootBanner(QFrame):
    """Shown while any selected run has its first report left out; 'Keep the first report' counts it again."""

    changed = Signal()

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.run_ids: list[int] = []
        self.affected: list[int] = []
        self.setObjectName("since-boot-banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.restyle()
        self.summary = QLabel()  # the one line: elided to the width, the whole of it in the tooltip
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self._summary = ""
        self.details = QPushButton("Details")
        self.details.setCheckable(True)
        self.details.setToolTip("Each run's reason, run by run")
        self.details.toggled.connect(self._show_details)
        self.text = QLabel()  # the details: every run's reason, grouped by reason
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.more = QScrollArea()  # a few lines high; a folder of runs scrolls
        self.more.setWidget(self.text)
        self.more.setWidgetResizable(True)
        self.more.setFrameShape(QFrame.Shape.NoFrame)
        self.more.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.more.setMaximumHeight(self.fontMetrics().lineSpacing() * 5 + 8)
        self.more.setVisible(False)
        self.keep = QPushButton("Keep the first report")
        self.keep.setToolTip("Count the first report as an ordinary interval (the capture was made with iostat -y)")
        self.keep.clicked.connect(self._keep_first)
        self.undo = QPushButton("Undo")
        self.undo.setToolTip("Leave their first report out again")
        self.undo.clicked.connect(self._undo)
        self.kept: list[int] = []  # the runs the last click changed, for Undo
        self._tips = (self.keep.toolTip(), self.undo.toolTip())
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.summary, 1)
        row.addWidget(self.details)
        row.addWidget(self.keep)
        row.addWidget(self.undo)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 3, 8, 3)
        lay.setSpacing(2)
        lay.addLayout(row)
        lay.addWidget(self.more)
        self.setVisible(False)

    def _set_summary(self, text: str) -> None:
        self._summary = text
        self.summary.setToolTip(text + ("\n\n" + self.text.text() if self.text.text() != text else ""))
        self._elide()

    def _elide(self) -> None:
        width = max(40, self.summary.width())
        self.summary.setText(self.summary.fontMetrics().elidedText(self._summary, Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        self._elide()

    def _show_details(self, on: bool) -> None:
        self.more.setVisible(on)
        self.details.setText("Hide details" if on else "Details")
        if on:
            need = self.text.heightForWidth(max(100, self.more.viewport().width()))
            self.more.setFixedHeight(min(max(need, self.fontMetrics().lineSpacing()) + 4,
                                         self.fontMetrics().lineSpacing() * 5 + 8))

    def restyle(self) -> None:
        """Amber panel with text readable in the theme in force (called again when the theme changes)."""
        from app.ui import theme

        text = "#f3e3b0" if theme.current() == "dark" else "#3a2a00"
        self.setStyleSheet("#since-boot-banner { background: rgba(255, 193, 7, 60); border: 1px solid "
                           "rgba(200, 140, 0, 160); border-radius: 3px; } "
                           f"#since-boot-banner QLabel {{ color: {text}; }}")

    def set_runs(self, run_ids: list[int]) -> None:
        self.run_ids = list(run_ids)
        self.refresh()

    def set_read_only(self, reason: str | None) -> None:
        """A workspace this version must not change: the buttons that would are disabled, ``reason`` their tooltip."""
        for button, tip in zip((self.keep, self.undo), self._tips):
            button.setEnabled(reason is None)
            button.setToolTip(reason or tip)

    def refresh(self) -> None:
        left_out = runs_with_since_boot_left_out(self.ws, self.run_ids)
        if set(self.kept) & {rid for rid, _n, _w in left_out} or not set(self.kept) & set(self.run_ids):
            self.kept = []  # the last click is undone elsewhere (the run menu), or its runs are no longer shown
        self.undo.setVisible(bool(self.kept))
        n_kept = len(self.kept)
        kept = (f"The first report of {n_kept} run{'s' if n_kept > 1 else ''} now counts as an interval in every "
                "figure and the report.") if self.kept else ""
        if not left_out:
            self.affected = []
            self.keep.setVisible(False)
            self.details.setVisible(False)
            self.details.setChecked(False)
            self.text.setText(kept)
            self.text.setToolTip("")
            self._set_summary(kept)
            self.setVisible(bool(self.kept))
            return
        groups: dict[str, list[str]] = {}  # each reason once, with the runs it applies to
        said = {rid: self._stored(rid) for rid, _n, _w in left_out}  # each run's stored answer, read once
        for rid, name, who in left_out:
            groups.setdefault(_why(said[rid], who), []).append(shown(name))
        parts = [f"{_names(names)}: {why}" for why, names in groups.items()]
        self.text.setText("The first report is left out of every figure and the report — " + "; ".join(parts) + "."
                          + (f" {kept}" if kept else ""))
        self.text.setToolTip("\n".join(shown(name) for _r, name, _w in left_out))
        n = len(left_out)
        whose = shown(left_out[0][1]) if n == 1 else f"{n} runs"
        why = f": {next(iter(groups))}" if len(groups) == 1 and n == 1 else \
            " (it covers the time before the capture, not an interval)"
        self._set_summary(f"The first report of {whose} is left out of every figure and the report{why}."
                          + (f" {kept}" if kept else ""))
        self.details.setVisible(True)
        # a first report the file proves covers more than an interval is never kept by the one click: only the
        # run menu's First report changes it, run by run
        self.affected = [rid for rid, _n, who in left_out if who == "you" or "proved" not in said[rid]]
        n = len(self.affected)
        self.keep.setVisible(n > 0)
        self.keep.setText("Keep the first report" if len(left_out) == 1 else
                          f"Keep the first report of {'both' if n == 2 else f'these {n}'}" if n == len(left_out) else
                          f"Keep the first report of the {n} that cannot tell")
        self.setVisible(True)

    def _stored(self, run_id: int) -> str:
        return self.ws.meta_of(run_id).text("first_report") or ""

    def _keep_first(self) -> None:
        affected = list(self.affected)
        for rid in affected:
            self.ws.set_first_report(rid, False)
        self.kept = affected  # for Undo
        self.refresh()
        self.changed.emit()

    def _undo(self) -> None:
        """Leave the first report out again for exactly the runs the last click changed."""
        for rid in self.kept:
            self.ws.set_first_report(rid, True)
        self.kept = []
        self.refresh()
        self.changed.emit()
