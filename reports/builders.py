"""Where the report finds its builders: one registry of section builders, one of question evidence builders.

Each builder module of :mod:`reports.sections` registers its builders when it is imported (``@section("overlay",
title=..., order=...)``, ``@question_section("cap")``); the registries import every module of that package before
their first answer, so a new section or question kind is one new module there and no list names it: the report's
order, the report dialog's and the command line's choices and the default sections come from the declarations.
:func:`reports.content.collect` asks these registries, never the sections package itself: the builders import
the content's helpers, and the content imports only this leaf (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parsers.plugins import Registry, package_loader

Builder = Callable[..., Any]

# The report's first page when it answers no questions: made by reports.content itself (it sums up the sections'
# verdicts), chosen like a section
SUMMARY = "summary"
SUMMARY_TITLE = "Executive summary"


@dataclass(frozen=True, eq=False)
class ReportSection:
    """A section of the tour of the runs, as its module declares it: ``build(ctx)`` makes it (``None``: nothing to
    show); ``title`` names it where the consultant chooses the sections and where it could not be made;
    ``in_answers``: a report that answers questions has it by default (after the questions' evidence)."""

    build: Builder
    title: str
    in_answers: bool = False

    def __call__(self, ctx: Any) -> Any:
        return self.build(ctx)

    def __eq__(self, other: object) -> bool:  # the same declaration (a module imported twice makes a new function)
        return (isinstance(other, ReportSection) and (self.title, self.in_answers) == (other.title, other.in_answers)
                and _where(self.build) == _where(other.build))

    def __hash__(self) -> int:
        return hash((self.title, self.in_answers, _where(self.build)))


def _where(fn: Builder) -> tuple[str, str]:
    return getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn))


# section key -> its declaration, in the report's order: a section of the tour of the runs
SECTION_BUILDERS: Registry[ReportSection] = Registry("report section", load=package_loader("reports.sections"))
# question kind -> builder(ctx, n, stored, answer) -> Section: the evidence section of one question kind
QUESTION_BUILDERS: Registry[Builder] = Registry("question evidence section", load=package_loader("reports.sections"))


def section(key: str, *, title: str, order: float, in_answers: bool = False) -> Callable[[Builder], Builder]:
    """Register the decorated function as the builder of section ``key``: its ``title``, its place in the report
    (``order``, then the key) and whether a report that answers questions has it by default."""
    def deco(build: Builder) -> Builder:
        SECTION_BUILDERS.add(key, ReportSection(build, title, in_answers), order=order)
        return build
    return deco


def section_keys() -> list[str]:
    """Every section a report can have, in the report's order: the executive summary, then the registered ones."""
    return [SUMMARY, *SECTION_BUILDERS.keys()]


def answer_section_keys() -> list[str]:
    """The sections a report that answers questions has by default, in the report's order."""
    return [k for k, s in SECTION_BUILDERS.items() if s.in_answers]


def section_title(key: str) -> str:
    return SUMMARY_TITLE if key == SUMMARY else SECTION_BUILDERS[key].title


def question_section(kind: str) -> Callable[[Builder], Builder]:
    """Register the decorated function as the evidence builder of question kind ``kind``."""
    return QUESTION_BUILDERS.register(kind)


def load() -> None:
    """Import every builder module (the registries do it themselves on their first answer)."""
    SECTION_BUILDERS.ensure_loaded()
    QUESTION_BUILDERS.ensure_loaded()
