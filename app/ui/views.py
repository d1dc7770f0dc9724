"""The window's view tabs that show what a capability contributes: one registry, one entry per view.

Each entry names the tab, the module and class of its view and the window attribute that holds it; the window
adds them in the registry's order between the Overlay and the Grid, each behind a :class:`app.ui.lazy_view.LazyView`
(the view's module is imported when the tab is first shown: start-up stays quick). A view that emits
``questions_asked`` has its questions added to the Report questions panel. A new view is one entry here and its
module; the window's code does not change.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from parsers.plugins import Registry


@dataclass(frozen=True)
class ViewTab:
    title: str  # the tab's text
    module: str  # the module that defines the view, imported when the tab is first shown
    view: str  # the view's class in that module, built with the workspace
    attr: str  # the window's attribute that holds it (a LazyView until it is built)

    def build(self, ws: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.view)(ws)


VIEW_TABS: Registry[ViewTab] = Registry("view tab")
VIEW_TABS.add("histograms", ViewTab("Histograms", "app.ui.histo_view", "HistogramView", "histos"), order=20)
VIEW_TABS.add("iozone", ViewTab("IOzone", "app.ui.iozone_view", "IozoneView", "iozone"), order=30)
VIEW_TABS.add("bench", ViewTab("Iometer / IOmark", "app.ui.bench_view", "BenchResultsView", "bench"), order=40)
VIEW_TABS.add("sizing", ViewTab("Sizing", "app.ui.sizing_panel", "SizingPanel", "sizing"), order=50)
