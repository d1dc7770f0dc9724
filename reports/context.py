"""The one context every report builder shares (no Qt, no PDF): the workspace, the options, the anonymiser, the
runs of the report, the stored questions with their answers, and what the builders hand on to each other
(executive-summary verdicts, methods for the appendix, headline values for tests and the command line).

Series and storm reports are loaded once, on first use, so a section that needs them does not pay for another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.analysis.cap import Cap
from app.analysis.histograms import AnalysisError
from app.run import Run
from parsers.kinds import DEVICE_RATES, LATENCY_HISTOGRAMS, has
from reports.anonymise import Anonymiser
from reports.options import ReportOptions

if TYPE_CHECKING:
    from app.workspace import Workspace


@dataclass
class ReportContext:
    ws: Workspace
    opt: ReportOptions
    an: Anonymiser
    runs: list[Run]
    answered: list[tuple[Any, Any]] = field(default_factory=list)  # (StoredQuestion, Answer) in stored order
    verdicts: list[str] = field(default_factory=list)  # the executive summary (a report without questions)
    methods: list[tuple[str, Any]] = field(default_factory=list)  # (analysis key, method) for the appendix
    values: dict[str, Any] = field(default_factory=dict)  # every headline figure, for tests and --json
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason -> runs the series analyses could not use
    plateaus: dict[int, float | None] = field(default_factory=dict)
    cap_runs: set[int] = field(default_factory=set)  # runs the Cap compliance section checked
    covered: set[int] = field(default_factory=set)  # runs some answer or section gives a figure of
    findings: list[tuple[str, str]] = field(default_factory=list)  # (what, answer) of sections no question asked
    scope: Any = None  # how much of what it was asked to cover the report covers (reports.content.Scope)
    sizing_from: tuple[Any, Any] | None = None  # the sizing question the VDI sizing section shows
    _series: dict[int, Any] | None = None
    _names: dict[int, str] | None = None
    _by_id: dict[int, Run] = field(default_factory=dict)
    _storms: dict[tuple[int, str], Any] = field(default_factory=dict)

    @property
    def want(self) -> set[str]:
        return set(self.opt.sections_for(bool(self.answered)))

    @property
    def iostat(self) -> list[Run]:
        return [r for r in self.runs if has(r.kind, DEVICE_RATES)]

    @property
    def histo_runs(self) -> list[Run]:
        return [r for r in self.runs if has(r.kind, LATENCY_HISTOGRAMS)]

    def given_cap(self) -> Cap:
        """The report's own cap (it may name no figure): which cap applies to a run is
        :func:`app.analysis.cap.which_cap`'s to say."""
        return Cap(self.opt.iops_cap, self.opt.bw_cap_kbs, "total", self.opt.tolerance_pct, "the report's cap")

    def run(self, run_id: int) -> Run:
        """A run of the workspace (the report's or another a question uses)."""
        run = self.ws.run(run_id)
        if run is None:
            raise AnalysisError(f"there is no run {run_id} in this workspace (was it deleted?)")
        return run

    def name(self, r: Run | int) -> str:
        """A run's name as the report prints it (anonymised when asked)."""
        if isinstance(r, int):
            if len(self._by_id) != len(self.runs):  # the report's runs by id (a lookup, not a scan per name)
                self._by_id = {x.run_id: x for x in self.runs}
            found = self._by_id.get(r) or self.ws.run(r)
            run_id, name = (r, f"run {r}") if found is None else (found.run_id, found.name)
        else:
            run_id, name = r.run_id, r.name
        return self.an.run(run_id, name) if self.an.enabled else self.an.text(name)

    def names(self) -> dict[int, str]:
        """Run id -> printed name, for every run of the workspace (questions may name runs outside the report);
        read once per report."""
        if self._names is None:
            self._names = {h.run_id: self.an.run(h.run_id, h.name) if self.an.enabled else self.an.text(h.name)
                           for h in self.ws.run_heads()}
        return self._names

    def series(self) -> dict[int, Any]:
        """The iostat runs' series on the report's device, aligned as the options say (run id -> Series); runs the
        analysis cannot use are listed in ``skipped`` with their reason."""
        if self._series is None:
            from app.analysis.series import align, load_series

            self._series = {}
            for r in self.iostat:
                try:
                    s = load_series(self.ws, r.run_id, self.opt.device)
                    if self.opt.align == "activity":
                        try:
                            s = align(s, "activity")
                        except AnalysisError:
                            s = align(s, "start")
                    self._series[r.run_id] = s
                except AnalysisError as e:  # said in the summary, with why: not left out without a word
                    self.skipped.setdefault(_reason(str(e)), []).append(self.name(r))
                    self.covered.add(int(r.run_id))
        return self._series

    def storm(self, run_id: int, phases: str = "auto") -> Any:
        """``storm_report`` of a run on the report's device, computed once per phase choice."""
        key = (run_id, phases)
        if key not in self._storms:
            from app.analysis.storm import storm_report

            self._storms[key] = storm_report(self.ws, run_id, self.opt.device, phases=phases)
        return self._storms[key]


def _reason(message: str) -> str:
    """The reason of an analysis error without the run number, so runs with the same reason group together."""
    text = re.sub(r"^run \d+ ", "", message).split(":")[0].strip() or message
    return re.sub(r"^(has|is) ", "", text)
