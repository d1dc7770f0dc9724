"""A tab whose view is built the first time it is needed, not at start-up.

The Histograms, IOzone and Sizing tabs are hidden when the window opens; building their charts (pyqtgraph plot
items, colour maps) and importing their modules took a quarter of a cold start (benchmarks/bench_startup.py).
``LazyView`` stands in the tab: it builds the real view when the tab is first shown or when anything asks the view
for something (a menu action, a report question, a test), and forwards every attribute to it from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.workspace import Workspace


class LazyView(QWidget):
    def __init__(self, ws: Workspace, build: Callable[[Workspace], QWidget], parent: Any = None):
        super().__init__(parent)
        self._ws = ws
        self._build = build
        self._view: QWidget | None = None
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        return self._view is not None

    @property
    def view(self) -> Any:
        """The real view, built now if it was not yet."""
        if self._view is None:
            self._view = self._build(self._ws)
            self._lay.addWidget(self._view)
            if self.isVisible():  # sized and shown now, as if it had been there: its first drawing fits the tab
                self._lay.activate()
                self._view.show()
        return self._view

    @property
    def ws(self) -> Workspace:
        return self._ws

    @ws.setter
    def ws(self, ws: Workspace) -> None:  # File ▸ Open workspace: the view (once built) reads the new one
        self._ws = ws
        if self._view is not None:
            self._view.ws = ws  # type: ignore[attr-defined]  # every view reads its workspace from ws

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt name)
        self.view  # noqa: B018 (built as the tab is first shown)
        super().showEvent(event)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # this object's own state (asked for before __init__ set it): never forwarded
            raise AttributeError(name)
        return getattr(self.view, name)
