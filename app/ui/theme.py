"""Light and dark themes: the system's colour scheme by default, or the user's choice (View ▸ Theme).

Qt widgets follow the application palette; pyqtgraph charts do not, so every chart already on screen is restyled
(background, axes, tick labels, titles, legends, text labels) and charts drawn later take the colours from
pyqtgraph's configuration (``pg.getConfigOption("foreground")``), which is set here too.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QGraphicsView
from shiboken6 import isValid

THEMES = ("system", "light", "dark")
COLOURS = {"light": ("#ffffff", "#202020"), "dark": ("#1e1e1e", "#e6e6e6")}  # (chart background, foreground)
_current = {"name": "light"}


def system_scheme() -> str:
    """'dark' or 'light' as the operating system says (light when it says nothing, e.g. offscreen)."""
    if QApplication.instance() is None:
        return "light"
    return "dark" if QApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark else "light"


def resolve(name: str) -> str:
    return system_scheme() if name == "system" else ("dark" if name == "dark" else "light")


def current() -> str:
    """The theme in force: 'light' or 'dark'."""
    return _current["name"]


def _dark_palette() -> QPalette:
    pal = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#262626"),
                         (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#353535"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#2f6db5"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.ToolTipBase, "#353535"),
                         (QPalette.ColorRole.ToolTipText, "#e6e6e6"), (QPalette.ColorRole.PlaceholderText, "#9a9a9a"),
                         (QPalette.ColorRole.Link, "#6ea8ff"), (QPalette.ColorRole.BrightText, "#ff6b6b")):
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return pal


def apply_theme(name: str) -> str:
    """Apply 'system', 'light' or 'dark'; returns the scheme applied ('light' or 'dark')."""
    app = QApplication.instance()
    scheme = resolve(name)
    _current["name"] = scheme
    bg, fg = COLOURS[scheme]
    pg.setConfigOptions(background=bg, foreground=fg)
    if app is None:
        return scheme
    QApplication.setPalette(_dark_palette() if scheme == "dark" else QApplication.style().standardPalette())
    for top in QApplication.topLevelWidgets():  # charts already on screen follow the theme too
        if not isValid(top) or top.testAttribute(Qt.WidgetAttribute.WA_DeleteOnClose) and not top.isVisible():
            continue
        for view in top.findChildren(QGraphicsView):
            if isinstance(view, pg.GraphicsView) and isValid(view):
                restyle_chart(view, bg, fg)
    return scheme


def restyle_chart(view: pg.GraphicsView, bg: str, fg: str) -> None:
    """Background, axes, tick labels, titles, legends and text labels of one chart in the given colours."""
    view.setBackground(bg)
    scene = view.scene()
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, pg.AxisItem):
            item.setPen(fg)
            item.setTextPen(fg)
        elif isinstance(item, pg.LegendItem):
            item.setLabelTextColor(fg)
            item.setBrush(pg.mkBrush(QColor(bg).red(), QColor(bg).green(), QColor(bg).blue(), 200))
        elif isinstance(item, pg.LabelItem):
            item.setText(item.text, color=fg)
        elif isinstance(item, pg.TextItem) and not getattr(item, "keep_colour", False):
            item.setColor(fg)
