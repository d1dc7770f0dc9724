"""One builder per report section and one per question kind (no Qt, no PDF).

A builder takes the shared :class:`reports.context.ReportContext` and returns a ``Section`` (or ``None`` when it
has nothing to show). Builders register themselves next to their code:

    @section("overlay")                 # a section of the tour of the runs (a report without questions)
    def build(ctx) -> Section | None: ...

    @question_section("cap")            # the evidence section of one question kind
    def build(ctx, n, stored, answer) -> Section: ...

A new question kind adds one module here with one ``@question_section`` builder (and its entry in
``MODULES``); ``reports.content.collect`` runs them in the stored order of the questions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

SECTION_BUILDERS: dict[str, Callable[..., Any]] = {}
QUESTION_BUILDERS: dict[str, Callable[..., Any]] = {}

# in the order of the sections in a report; importing them registers their builders
MODULES = ("runs", "overlay", "storm", "cap", "latency", "jobs", "iozone", "iometer_iomark", "sizing", "compare",
           "crosscheck", "appendix", "questions", "host")


def section(key: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        SECTION_BUILDERS[key] = fn
        return fn
    return register


def question_section(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        QUESTION_BUILDERS[kind] = fn
        return fn
    return register


def load() -> None:
    for m in MODULES:
        importlib.import_module(f"reports.sections.{m}")
