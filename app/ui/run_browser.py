"""The run browser: runs grouped by kind and host, with search, rename, tags and delete."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.run import Run, RunMeta
from app.safe_text import has_controls, shown
from app.workspace import Workspace
from parsers.dates import ORDER_NAMES
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, TIME_SERIES, has, kind_label

RUN_ROLE = Qt.ItemDataRole.UserRole + 1
COLUMNS = ["Run", "Period", "Interval", "Devices", "Reports", "Tags"]
MIN_WIDTH = 240
NAME_COLUMN_MAX = 300  # px: wider names are elided in the middle; the full name is in the tooltip
# the most new runs an import selects: a drop of 194 runs shows the first group's first 8, not 194 curves
FIRST_LOOK = 8


RENAME_REFUSED = ("A run name cannot hold control characters (line breaks, tabs, escape sequences) or text-direction "
                  "controls: the name was not changed.")


def describe_period(r: Run, offset: Any = None) -> str:
    """When the run ran: its clock times; without them, whether its times are known from an interval the user set
    (the file gives no clock time: it said "no timestamps" even then); else that it has no time stamps. ``offset``:
    the run's stored clock offset (app.store.clock), said after the times as the file printed them."""
    from app.store.clock import fmt_offset

    if r.started_at:
        s = _clock(r.started_at)
        if r.ended_at:
            s += f" → {_clock(r.ended_at)[-8:]}"  # its time of day
        return s + (f" (its clock corrected by {fmt_offset(offset.offset_s)})" if offset is not None else "")
    if r.interval_s:
        placed = (f"; placed {fmt_offset(offset.offset_s)} from run {offset.reference_run_id}'s start"
                  if offset is not None and offset.reference_run_id is not None else "")
        return f"no clock time (a report every {r.interval_s:g} s{placed})"
    return "no timestamps"


def _clock(t: datetime) -> str:
    """``t`` as "%Y-%m-%d %H:%M:%S" (its own wall time), without strftime's parsing of the format: a fifth of the
    run list's filling at 5,000 runs."""
    if t.year < 1000:  # (isoformat pads the year to four digits; strftime's %Y does not)
        return f"{t:%Y-%m-%d %H:%M:%S}"
    return t.replace(tzinfo=None, microsecond=0).isoformat(" ")


class RunBrowser(QWidget):
    """Emits ``selection_changed(list of run ids)`` and ``open_grid(run id)``."""

    selection_changed = Signal(list)
    open_grid = Signal(int)
    runs_changed = Signal()
    message = Signal(str)  # for the status bar
    action_asked = Signal(str, int)  # a view's action on one run (app.ui.views.RUN_ACTIONS): its key, the run

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.read_only: str | None = None  # why the workspace must not be changed (a newer StormScope's), if so
        self.menu: QMenu | None = None
        self.clock_dialog: Any = None
        self.fills = 0  # times the list was filled from the workspace (tests count them: once on opening)
        self.search = QLineEdit(placeholderText="Search runs (name, host, tag, kind)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._apply_search)
        self.group_by = QComboBox()
        self.group_by.addItems(["kind / host", "folder"])
        self.group_by.setToolTip("Group the runs by kind and host, or by the folder their files came from")
        self.group_by.currentIndexChanged.connect(lambda _i: self.reload())
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setAlternatingRowColors(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # both ends of long file names stay readable
        self.setMinimumWidth(MIN_WIDTH)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._menu)
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.group_by)
        lay.addLayout(top)
        lay.addWidget(self.tree)
        self.reload()

    def reload(self) -> None:
        """Rebuild the tree, keeping the selection; ``selection_changed`` is emitted once, if it changed."""
        before = self.selected_runs()
        self.tree.blockSignals(True)  # clearing and reselecting item by item would emit once per item
        self.tree.setUpdatesEnabled(False)  # one repaint after the fill, not one per item
        try:
            self._rebuild(set(before))
        finally:
            self.tree.setUpdatesEnabled(True)
            self.tree.blockSignals(False)
        if self.selected_runs() != before:
            self.selection_changed.emit(self.selected_runs())

    def _rebuild(self, selected: set[int]) -> None:
        self.tree.clear()
        groups: dict[tuple[str, str], QTreeWidgetItem] = {}
        kinds: dict[str, QTreeWidgetItem] = {}
        by_folder = self.group_by.currentIndex() == 1
        from app.store.clock import list_offsets

        offsets = list_offsets(self.ws)
        for r in self.ws.runs():
            kind = r.kind
            host = r.host or "(unknown host)"
            if by_folder:
                from pathlib import Path

                folder = Path(r.source_path or "?")
                kind, host = str(folder.parent.parent.name or "/"), folder.parent.name or "/"
            host = shown(host)  # names from files: control and bidi characters shown, not obeyed; bounded
            if kind not in kinds:
                kinds[kind] = QTreeWidgetItem(self.tree, [shown(kind) if by_folder else kind_label(kind)])
                kinds[kind].setFlags(Qt.ItemFlag.ItemIsEnabled)
            if (kind, host) not in groups:
                groups[(kind, host)] = QTreeWidgetItem(kinds[kind], [host])
                groups[(kind, host)].setFlags(Qt.ItemFlag.ItemIsEnabled)
            interval = f"{r.interval_s:g} s" if r.interval_s else "?"
            tags = shown(" ".join(f"{k}={v}" for k, v in r.tags.items()))
            item = QTreeWidgetItem(groups[(kind, host)], [
                shown(r.name), describe_period(r, offsets.get(r.run_id)), interval, str(r.n_devices or 0),
                str(r.n_samples or 0),
                tags])
            item.setData(0, RUN_ROLE, r.run_id)
            item.setToolTip(0, f"{shown(r.name)}\n{shown(r.source_path, 1000)}"
                            + _dates_line(r) + _placed_line(r))
            if r.run_id in selected:
                item.setSelected(True)
        self.tree.expandAll()
        for i in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(i)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), NAME_COLUMN_MAX))
        self.fills += 1
        if self.search.text().strip():  # (no search: every new row is shown, nothing to hide)
            self._apply_search(self.search.text())

    def _apply_search(self, text: str) -> None:
        before = self.selected_runs()  # the runs highlighted (a hidden row is never among them)
        text = text.lower().strip()
        for kind in _top_level(self.tree):
            any_kind = False
            for host in _children(kind):
                any_host = False
                for run in _children(host):
                    hay = " ".join(run.text(c) for c in range(len(COLUMNS))) + f" {host.text(0)} {kind.text(0)}"
                    show = not text or text in hay.lower()
                    run.setHidden(not show)
                    any_host |= show
                host.setHidden(not any_host)
                any_kind |= any_host
            kind.setHidden(not any_kind)
        self._drop_hidden()
        if not self.tree.signalsBlocked() and self.selected_runs() != before:  # (reload() says it once itself)
            self.selection_changed.emit(self.selected_runs())

    def _drop_hidden(self) -> None:
        """A run the search hides leaves the selection, so what is highlighted is what is selected and drawn (Qt
        keeps a hidden row selected, out of sight: the chart drew it, and clearing the search brought it back); a
        Ctrl+A or Shift+click range over a filtered list selects only the runs shown."""
        hidden = [it for it in self._run_items() if it.isHidden() and it.isSelected()]
        if not hidden:
            return
        blocked = self.tree.blockSignals(True)
        try:
            for it in hidden:
                it.setSelected(False)
        finally:
            self.tree.blockSignals(blocked)
        self.tree.viewport().update()

    def _selection_changed(self) -> None:
        self._drop_hidden()
        self.selection_changed.emit(self.selected_runs())

    def selected_runs(self) -> list[int]:
        return [int(it.data(0, RUN_ROLE)) for it in self.tree.selectedItems() if it.data(0, RUN_ROLE) is not None]

    def select_runs(self, run_ids: list[int]) -> None:
        """Select exactly these runs (as a click and Ctrl+clicks would); ``selection_changed`` once."""
        wanted = set(run_ids)
        before = self.selected_runs()
        if any(it.isHidden() for it in self._run_items() if int(it.data(0, RUN_ROLE)) in wanted):
            self.search.blockSignals(True)  # the runs asked for are shown: a search that hides one is cleared
            self.search.clear()
            self.search.blockSignals(False)
            self._apply_search("")
        self.tree.blockSignals(True)
        try:
            for it in self._run_items():
                it.setSelected(int(it.data(0, RUN_ROLE)) in wanted)
        finally:
            self.tree.blockSignals(False)
        self.tree.viewport().update()
        if self.selected_runs() != before:
            self.selection_changed.emit(self.selected_runs())

    def first_look(self, run_ids: list[int], most: int = FIRST_LOOK) -> tuple[list[int], str]:
        """The new runs to select after an import, and the group they are in ("" when all are selected): all of
        them when they are ``most`` or fewer; else, in the list's order, up to ``most`` of the first group (kind and
        host, or folder) with runs that have data over time on a time axis -- runs of one host and tool compare --,
        else the first ``most``."""
        wanted = set(run_ids)
        if len(wanted) <= most:
            return list(run_ids), ""
        groups: list[tuple[str, list[int]]] = []
        for kind in _top_level(self.tree):
            for host in _children(kind):
                ids = [int(run.data(0, RUN_ROLE)) for run in _children(host) if run.data(0, RUN_ROLE) is not None]
                groups.append((f"{kind.text(0)} · {host.text(0)}", [r for r in ids if r in wanted]))
        runs = {r.run_id: r for r in self.ws.runs() if r.run_id in wanted}
        for label, ids in groups:
            timed = [r for r in ids if has(runs[r].kind, TIME_SERIES) and runs[r].interval_s]
            if timed:
                return timed[:most], label
        first = [r for _label, ids in groups for r in ids][:most]
        return first, next((label for label, ids in groups if ids), "")

    def _run_items(self) -> list[QTreeWidgetItem]:
        out = []

        def walk(item: QTreeWidgetItem) -> None:
            if item.data(0, RUN_ROLE) is not None:
                out.append(item)
            for child in _children(item):
                walk(child)

        for top in _top_level(self.tree):
            walk(top)
        return out

    def _double_clicked(self, item: QTreeWidgetItem) -> None:
        rid = item.data(0, RUN_ROLE)
        if rid is not None:
            self.open_grid.emit(int(rid))

    def _menu(self, pos: Any) -> None:
        ids = self.selected_runs()
        if not ids:
            return
        from app.ui.views import RUN_ACTIONS

        m = QMenu(self)
        m.addAction("Open in grid", lambda: self.open_grid.emit(ids[0]))
        kind = self.ws.kind_of(ids[0]) if len(ids) == 1 else None
        for key, act in RUN_ACTIONS.items():  # what a view does with one run (Replay as fio job…)
            if has(kind, act.capability):
                m.addAction(act.text, partial(self.action_asked.emit, key, ids[0]))
        first = len(m.actions())  # the actions after it change the workspace
        if len(ids) == 1:
            m.addAction("Rename…", lambda: self.rename(ids[0]))
        m.addAction("Tag…", lambda: self.tag(ids))
        by_id = self.ws.runs_by_id(ids)  # one query for the whole selection
        runs = [by_id[r] for r in ids if r in by_id]
        metas = [r.meta for r in runs]
        # only what applies to the selected runs: an interval where the file has no times of its own
        if any(has(r.kind, TIME_SERIES) and r.interval_source != "timestamps" for r in runs):
            m.addAction("Set interval…", lambda: self.set_interval(ids))
        if any(mt.has("first_report") for mt in metas):  # a tool whose first report may cover the time since boot
            since_boot = {rid for (rid,) in self.ws.con.execute(
                "SELECT DISTINCT run_id FROM iostat_samples WHERE since_boot AND list_contains(?, run_id)",
                [ids]).fetchall()}
            iostat = [r.run_id for r in runs if has(r.kind, DEVICE_RATES)]
            for label, value in (("First report is since boot", True), ("First report is an interval (iostat -y)",
                                                                          False)):
                a = m.addAction(label, partial(self.set_first_report, ids, value))
                a.setCheckable(True)  # ticked when every selected iostat run is so
                a.setChecked(all((rid in since_boot) == value for rid in iostat))
        self._reading_actions(m, ids, runs, metas)
        if any(has(r.kind, DEVICE_RATES) for r in runs):
            m.addAction("Put on one clock…", lambda: self.one_clock(ids[0]))
        if len(runs) == 1 and has(runs[0].kind, DEVICE_RATES):
            m.addAction("Whole disks…", lambda: self.whole_disks(ids[0]))
        m.addSeparator()
        m.addAction(f"Delete {len(ids)} run{'s' if len(ids) > 1 else ''}…", lambda: self.delete(ids))
        if self.read_only:  # a newer StormScope's workspace: shown, never changed -- said in each tooltip
            m.setToolTipsVisible(True)
            for a in m.actions()[first:]:
                a.setEnabled(False)
                a.setToolTip(self.read_only)
        self.menu = m  # the menu on screen (tests read it)
        m.exec(self.tree.viewport().mapToGlobal(pos))

    def _reading_actions(self, m: QMenu, ids: list[int], runs: list[Run],
                         metas: list[RunMeta]) -> None:
        """How the selected runs' files are read where they cannot say it themselves: day/month order, vscsiStats
        counts."""
        readings = [rd for mt in metas if (rd := mt.obj("date_reading"))]
        if readings:  # dates that read both ways: the orders they read in
            orders: dict[object, None] = {}
            for rd in readings:
                others = rd.get("others")
                orders.update(dict.fromkeys((rd.get("stored"), *(others if isinstance(others, dict) else {}))))
            for order in orders:
                if isinstance(order, str) and order in ORDER_NAMES:
                    m.addAction(f"Dates are {ORDER_NAMES[order]}", partial(self.set_date_order, ids, order))
        placed = [rid for rid, mt in zip(ids, metas) if (mt.obj("counters_by_place") or {}).get("state")
                  in ("not confirmed", "confirmed when imported", "confirmed by the user")]
        if placed:  # perfmon counters read by their place in the log, not their names
            m.addAction("Counters read by their place are right", partial(self.set_counters_by_place, placed, True))
            m.addAction("Counters read by their place are wrong: leave their values out",
                        partial(self.set_counters_by_place, placed, False))
        vscsi = [r for r, mt in zip(runs, metas) if has(r.kind, TIME_SERIES)
                 and has(r.kind, LATENCY_HISTOGRAMS) and not mt.text("counts_per_interval")]
        if vscsi:  # vscsiStats counts: ticked as they are read now (detected or said), for every selected such run
            from app.analysis.histograms import counts_mode

            modes = {counts_mode(r)[0] for r in vscsi}
            for label, mode in (("vscsiStats counts are cumulative (never reset)", "cumulative"),
                                ("vscsiStats counts are per collection (reset with -r)", "per-collection")):
                a = m.addAction(label, partial(self.set_histogram_counts, ids, mode))
                a.setCheckable(True)
                a.setChecked(modes == {mode})

    def rename(self, run_id: int) -> None:
        """Rename… in the run menu: the box shows the current name as the window does (escaped); what the user types
        is stored as typed, but a control or text-direction character is refused, saying why."""
        run = self.ws.run(run_id)
        name, ok = QInputDialog.getText(self, "Rename run", "Name:", text=shown(run.name) if run else "")
        if ok and has_controls(name):
            QMessageBox.warning(self, "Rename run", RENAME_REFUSED)
            return
        if ok and name.strip():
            self.ws.rename_run(run_id, name.strip())
            self.reload()
            self.runs_changed.emit()

    def set_interval(self, run_ids: list[int], seconds: float | None = None) -> list[str]:
        """The interval of iostat runs without timestamps (asked for, never guessed). Returns the errors."""
        if seconds is None:
            from PySide6.QtWidgets import QInputDialog

            value, ok = QInputDialog.getDouble(
                self, "Set interval", "Seconds between reports (the 5 of 'iostat 5'):", 5.0, 0.01, 86400.0, 2)
            if not ok:
                return []
            seconds = value
        errors = []
        for rid in run_ids:
            try:
                self.ws.set_interval(rid, seconds)
            except ValueError as e:
                errors.append(str(e))
        if errors:
            self.message.emit("; ".join(errors))
        self.reload()
        self.runs_changed.emit()
        return errors

    def one_clock(self, reference: int) -> None:
        """Put on one clock… in the run menu: the other runs' clock offsets against this one (app/ui/clock_dialog.py);
        the views follow what it stores."""
        from app.ui.clock_dialog import ClockDialog

        dlg = ClockDialog(self.ws, reference, self)
        dlg.changed.connect(self._changed_here)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.clock_dialog = dlg  # the dialog on screen (tests drive it)
        dlg.open()

    def whole_disks(self, run_id: int) -> None:
        """Whole disks… in the run menu: which of the run's devices every whole-disk figure sums
        (app/ui/whole_disks_dialog.py); the views follow what it stores."""
        from app.ui.whole_disks_dialog import WholeDisksDialog

        dlg = WholeDisksDialog(self.ws, run_id, self)
        dlg.changed.connect(self._changed_here)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.whole_disks_dialog = dlg  # the dialog on screen (tests drive it)
        dlg.open()

    def _changed_here(self) -> None:
        self.reload()
        self.runs_changed.emit()

    def set_first_report(self, run_ids: list[int], since_boot: bool) -> None:
        self._set_each(run_ids, lambda rid: self.ws.set_first_report(rid, since_boot))

    def set_date_order(self, run_ids: list[int], order: str) -> None:
        """Dates are … in the run menu: the order of dates the file could not decide (runs it does not apply to are
        passed over)."""
        self._set_each(run_ids, lambda rid: self.ws.set_date_order(rid, order))

    def set_counters_by_place(self, run_ids: list[int], confirmed: bool) -> None:
        """Counters read by their place … in the run menu: confirm or reject a perfmon run's counters whose names
        StormScope does not know."""
        self._set_each(run_ids, lambda rid: self.ws.set_counters_by_place(rid, confirmed))

    def set_histogram_counts(self, run_ids: list[int], mode: str) -> None:
        self._set_each(run_ids, lambda rid: self.ws.set_histogram_counts(rid, mode))

    def _set_each(self, run_ids: list[int], setter: Callable[[int], None]) -> None:
        """Apply a run setting to the selection; runs it does not apply to (another kind) are passed over."""
        for rid in run_ids:
            try:
                setter(rid)
            except ValueError:
                continue
        self.reload()
        self.runs_changed.emit()

    def tag(self, run_ids: list[int]) -> None:
        text, ok = QInputDialog.getText(self, "Tag runs", "Tags (key=value, separated by spaces):")
        if not ok:
            return
        new = dict(t.split("=", 1) for t in text.split() if "=" in t)
        for rid in run_ids:
            run = self.ws.run(rid)
            tags = dict(run.tags or {}) if run else {}
            tags.update(new)
            self.ws.set_tags(rid, tags)
        self.reload()
        self.runs_changed.emit()

    def delete(self, run_ids: list[int], confirm: bool = True) -> None:
        if confirm:
            names = ", ".join(shown(self.ws.name_of(r)) for r in run_ids[:5])
            more = f" and {len(run_ids) - 5} more" if len(run_ids) > 5 else ""
            answer = QMessageBox.question(
                self, "Delete runs", f"Delete {names}{more} from the workspace?\n"
                "The source files are not touched; you can import them again.")
            if answer != QMessageBox.StandardButton.Yes:
                return
        for rid in run_ids:
            self.ws.delete_run(rid)
        self.reload()
        self.runs_changed.emit()


def _dates_line(run: Run) -> str:
    """The tooltip's line saying how the run's dates were read, and why (or that the user is still to say)."""
    said = run.meta.text("date_order")
    if not said:
        return ""
    if run.meta.obj("date_reading"):
        return f"\nDates: {said.split(' (')[0]}, assumed: the file reads both ways (right-click to say which)"
    return f"\nDates read {shown(str(said), 300)}"



def _placed_line(run: Run) -> str:
    """The tooltip's line for perfmon counters read by their place in the log, not their names."""
    placed = run.meta.obj("counters_by_place")
    if not placed:
        return ""
    state = str(placed.get("state", ""))
    names = placed.get("names")
    n = len(names) if isinstance(names, dict) else 0
    return (f"\n{n} counters read by their place in the log (names in a language StormScope does not know): {state}"
            + (" (right-click to confirm or reject)" if state == "not confirmed" else ""))


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [c for c in (item.child(i) for i in range(item.childCount())) if c is not None]


def _top_level(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    return [c for c in (tree.topLevelItem(i) for i in range(tree.topLevelItemCount())) if c is not None]
