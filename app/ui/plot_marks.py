"""Pieces of the overlay view: marker lines and phase bands that answer a right-click, and the
curve list beside the plot (a checkbox and a colour swatch per curve)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem

# (kind "marker" | "phase", run id, name) -> called with the screen position of the right-click
MenuHandler = Callable[[str, int, str, QPoint], None]


def foreground() -> QColor:
    """The chart's text colour of the current theme (read at draw time, so a theme change follows)."""
    return pg.mkColor(pg.getConfigOption("foreground"))


def background_is_dark() -> bool:
    return pg.mkColor(pg.getConfigOption("background")).lightnessF() < 0.5


class MarkerLine(pg.InfiniteLine):
    """A stored marker: a labelled vertical line; right-click offers Rename… and Delete."""

    def __init__(self, run_id: int, name: str, x: float, colour: str, label_pos: float, on_menu: MenuHandler):
        super().__init__(pos=x, angle=90, movable=False,
                         pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashDotLine),
                         label=name, labelOpts={"position": label_pos, "color": foreground(), "movable": False,
                                                "anchors": [(0, 1), (0, 1)], "fill": label_fill()})
        self.run_id, self.name, self._on_menu = run_id, name, on_menu
        self.setHoverPen(pg.mkPen(colour, width=4, style=Qt.PenStyle.DashDotLine))
        self.setToolTip(f"marker {name!r} — right-click to rename or delete it")

    def hoverEvent(self, ev: Any) -> None:  # noqa: N802 (pyqtgraph name)
        """Claim the right-click while the mouse is on the line (the chart's own menu is elsewhere)."""
        self.setMouseHover(not ev.isExit() and ev.acceptClicks(Qt.MouseButton.RightButton))

    def mouseClickEvent(self, ev: Any) -> None:  # noqa: N802 (pyqtgraph name)
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            self._on_menu("marker", self.run_id, self.name, ev.screenPos().toPoint())
            return
        super().mouseClickEvent(ev)


class PhaseBand(pg.LinearRegionItem):
    """A stored phase: a tinted band with its name at the top; right-click offers Rename… and Delete."""

    def __init__(self, run_id: int, name: str, a: float, b: float, colour: str, alpha: int, label_pos: float,
                 on_menu: MenuHandler):
        c = pg.mkColor(colour)
        c.setAlpha(alpha)
        super().__init__((a, b), movable=False, brush=pg.mkBrush(c), pen=pg.mkPen(None))
        self.setZValue(-10)
        self.run_id, self.name, self._on_menu = run_id, name, on_menu
        self.label = pg.InfLineLabel(self.lines[0], text=name, position=label_pos, anchors=[(0, 0), (0, 0)],
                                     color=foreground(), fill=label_fill())
        self.setToolTip(f"phase {name!r} — right-click to rename or delete it")

    def hoverEvent(self, ev: Any) -> None:  # noqa: N802 (pyqtgraph name)
        if not ev.isExit():
            ev.acceptClicks(Qt.MouseButton.RightButton)

    def mouseClickEvent(self, ev: Any) -> None:  # noqa: N802 (pyqtgraph name)
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            self._on_menu("phase", self.run_id, self.name, ev.screenPos().toPoint())
            return
        super().mouseClickEvent(ev)


def label_fill() -> QColor:
    """A faint backdrop under mark labels, so they read over the curves on light and dark charts."""
    c = pg.mkColor(pg.getConfigOption("background"))
    c.setAlpha(170)
    return c


_SWATCHES: dict[tuple[str, bool], QIcon] = {}


def swatch(colour: str, visible: bool = True) -> QIcon:
    """The 14 px square of a curve's colour (filled: drawn; outlined: hidden). Made once per colour and state: a
    list of thousands of curves shares a dozen icons."""
    icon = _SWATCHES.get((colour, visible))
    if icon is None:
        icon = _SWATCHES[(colour, visible)] = _swatch(colour, visible)
    return icon


def _swatch(colour: str, visible: bool) -> QIcon:
    pm = QPixmap(14, 14)
    pm.fill(QColor(colour) if visible else QColor(0, 0, 0, 0))
    if not visible:  # an outline only: the curve is hidden
        from PySide6.QtGui import QPainter, QPen

        p = QPainter(pm)
        p.setPen(QPen(QColor(colour), 2))
        p.drawRect(1, 1, 12, 12)
        p.end()
    return QIcon(pm)


class CurveList(QListWidget):
    """One row per curve: the checkbox shows or hides it, the swatch is its colour (double-click or
    right-click ▸ Colour… to change it). The selected row is the run new markers and phases go to."""

    visibility_changed = Signal(int, bool)  # row, visible
    colour_asked = Signal(int)  # row
    menu_asked = Signal(int, QPoint)  # row, global position

    def __init__(self, parent: Any = None):
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long names keep both ends; the tooltip has all
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setToolTip("Tick to show a curve, untick to hide it; double-click (or right-click ▸ Colour…) to "
                        "change its colour. Select a curve to put new markers and phases on its run.")
        self.itemChanged.connect(self._changed)
        self.itemDoubleClicked.connect(lambda it: self.colour_asked.emit(self.row(it)))
        self.customContextMenuRequested.connect(self._menu)
        self._filling = False

    def fill(self, rows: list[tuple[str, str, bool]]) -> None:
        """(label, colour, visible) per curve."""
        self._filling = True
        self.setUpdatesEnabled(False)  # one layout for the whole list, not one per row
        self.clear()
        for label, colour, visible in rows:
            it = QListWidgetItem(swatch(colour, visible), label)
            it.setToolTip(label)
            it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            it.setCheckState(Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked)
            self.addItem(it)
        self.setUpdatesEnabled(True)
        self._filling = False

    def set_row(self, row: int, colour: str, visible: bool) -> None:
        it: QListWidgetItem | None = self.item(row)  # None past the last row (the stubs do not say so)
        if it is None:
            return
        self._filling = True
        it.setIcon(swatch(colour, visible))
        it.setCheckState(Qt.CheckState.Checked if visible else Qt.CheckState.Unchecked)
        self._filling = False

    def _changed(self, it: QListWidgetItem) -> None:
        if not self._filling:
            self.visibility_changed.emit(self.row(it), it.checkState() == Qt.CheckState.Checked)

    def _menu(self, pos: QPoint) -> None:
        it = self.itemAt(pos)
        if it is not None:
            self.menu_asked.emit(self.row(it), self.viewport().mapToGlobal(pos))
