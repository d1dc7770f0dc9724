"""Where the report finds its builders: one registry of section builders, one of question evidence builders.

Each builder module of :mod:`reports.sections` registers its builders when it is imported (``@section("overlay")``,
``@question_section("cap")``); the registries import every module of that package before their first answer, so a
new section or question kind is one new module there and no list names it. :func:`reports.content.collect` asks
these registries, never the sections package itself: the builders import the content's helpers, and the content
imports only this leaf (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parsers.plugins import Registry, package_loader

Builder = Callable[..., Any]

# section key -> builder(ctx) -> Section | None: a section of the tour of the runs (a report without questions)
SECTION_BUILDERS: Registry[Builder] = Registry("report section", load=package_loader("reports.sections"))
# question kind -> builder(ctx, n, stored, answer) -> Section: the evidence section of one question kind
QUESTION_BUILDERS: Registry[Builder] = Registry("question evidence section", load=package_loader("reports.sections"))


def section(key: str) -> Callable[[Builder], Builder]:
    """Register the decorated function as the builder of section ``key``."""
    return SECTION_BUILDERS.register(key)


def question_section(kind: str) -> Callable[[Builder], Builder]:
    """Register the decorated function as the evidence builder of question kind ``kind``."""
    return QUESTION_BUILDERS.register(kind)


def load() -> None:
    """Import every builder module (the registries do it themselves on their first answer)."""
    SECTION_BUILDERS.ensure_loaded()
    QUESTION_BUILDERS.ensure_loaded()
