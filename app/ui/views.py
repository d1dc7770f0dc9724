"""The window's view tabs that show what a capability contributes: one registry, one entry per view.

Each entry names the tab, the module and class of its view and the window attribute that holds it; the window
adds them in the registry's order between the Overlay and the Grid, each behind a :class:`app.ui.lazy_view.LazyView`
(the view's module is imported when the tab is first shown: start-up stays quick), and gives each the workspace
File > Open workspace opens. A view has ``ws`` and ``set_runs(run_ids)`` (the runs selected in the run list: the
tab on screen follows the selection, the others when next shown). A view that emits ``questions_asked`` has its
questions added to the Report questions panel, one that emits ``status_message`` has its words shown in the status
bar, and a view that holds the evidence of question kinds (``kinds``) is shown, with ``show_question``, when one of
them is chosen there (a question no view claims: the Overlay's). A new view is one entry here and its module; the
window's code does not change.

What a view does for one run or one stored phase is offered where the user points at it: ``RUN_ACTIONS`` in the run
list's right-click menu (for the runs whose kind has the capability), ``PHASE_ACTIONS`` in a phase band's right-click
menu on the Overlay. The window shows the view's tab and calls its ``method`` with the run id (and the phase name).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from parsers.kinds import DEVICE_RATES
from parsers.plugins import Registry


@dataclass(frozen=True)
class ViewTab:
    title: str  # the tab's text
    module: str  # the module that defines the view, imported when the tab is first shown
    view: str  # the view's class in that module, built with the workspace
    attr: str  # the window's attribute that holds it (a LazyView until it is built)
    kinds: tuple[str, ...] = ()  # the question kinds whose evidence it shows (its show_question)

    def build(self, ws: Any) -> Any:
        return getattr(importlib.import_module(self.module), self.view)(ws)


VIEW_TABS: Registry[ViewTab] = Registry("view tab")
VIEW_TABS.add("histograms", ViewTab("Histograms", "app.ui.histo_view", "HistogramView", "histos", ("response_time",)),
              order=20)
VIEW_TABS.add("iozone", ViewTab("IOzone", "app.ui.iozone_view", "IozoneView", "iozone"), order=30)
VIEW_TABS.add("bench", ViewTab("Iometer / IOmark", "app.ui.bench_view", "BenchResultsView", "bench"), order=40)
VIEW_TABS.add("sizing", ViewTab("Sizing", "app.ui.sizing_panel", "SizingPanel", "sizing", ("sizing",)), order=50)
VIEW_TABS.add("replay", ViewTab("Storm replay", "app.ui.replay_view", "ReplayView", "replay", ("replay",)), order=60)
VIEW_TABS.add("knee", ViewTab("Load limit", "app.ui.knee_view", "KneeView", "knee", ("knee",)), order=70)


@dataclass(frozen=True)
class RunAction:
    text: str  # the menu item
    tab: str  # the key in VIEW_TABS of the view that does it
    method: str  # the view's method: called with the run id (a phase action: and the phase's name)
    capability: str  # what the run's kind must be able to do (parsers.kinds)


RUN_ACTIONS: Registry[RunAction] = Registry("run action")
PHASE_ACTIONS: Registry[RunAction] = Registry("phase action")
RUN_ACTIONS.add("replay", RunAction("Replay as fio job…", "replay", "open_run", DEVICE_RATES), order=10)
PHASE_ACTIONS.add("replay", RunAction("Replay as fio job…", "replay", "open_phase", DEVICE_RATES), order=10)
