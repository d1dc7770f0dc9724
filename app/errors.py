"""Errors and notes of the analyses, and how each front end names the fix they point to (no Qt).

A leaf module: it imports nothing of the app, so that the analyses, the stored phases and markers
(``app.store``), the command line, the window and the report all use it without import cycles.

Fixes
    An analysis that cannot answer, or answers with a caveat the user can remove, names the fix by a key
    (``AnalysisError("...: set the interval with {fix}", fix="set_interval", run_id=3)``, or a
    :class:`Note` in a list of notes). :data:`FIXES` is the one table that says how each front end names
    it: the command line as its command or flag (its users type commands), the window and the PDF as
    the menu item, button or field (customers never see flags, code names or internal files).
    ``str()`` of an error or a note is the window and PDF wording; the command line asks for its own with
    :func:`for_cli`.
"""

from __future__ import annotations

import re
from typing import Any

FRONTS = ("cli", "window")

# fix key -> how each front end names it; "{run_id}" and other fields come from the error or note
FIXES: dict[str, dict[str, str]] = {
    "set_interval": {
        "cli": "'main.py run {run_id} --interval SECONDS'",
        "window": "the run's right-click menu ▸ Set interval…",
    },
    "fio_json_plus": {
        "cli": "re-run fio with --output-format=json+",
        "window": "re-run fio with its json+ output format, which writes the latency bins",
    },
    "iops_per_user": {
        "cli": "the IOPS per user (--iops-per-user), a --profile or a measured run",
        "window": "the IOPS per user, a user profile or a measured run",
    },
    "capacity_inputs": {
        "cli": "--gb-per-user and --disk-gb",
        "window": "the capacity per user and the disk size",
    },
    "align_offset": {
        "cli": "--align offset:S",
        "window": "an alignment by offset",
    },
    "device_choice": {
        "cli": "--device",
        "window": "picked by name",
    },
    "first_report_interval": {
        "cli": "'main.py run {run_id} --first-report interval'",
        "window": "the 'Keep the first report' button above the views (or the run's right-click menu ▸ First "
                  "report is an interval)",
    },
    "counts_per_collection": {
        "cli": "'main.py run {run_id} --histogram-counts per-collection'",
        "window": "the run's right-click menu ▸ vscsiStats counts are per collection",
    },
    "device_pick": {
        "cli": "'main.py run {run_id} --whole-disks NAMES' (or --device NAMES for one analysis)",
        "window": "with the run's right-click menu ▸ Whole disks… (or in the chart's device box for one chart)",
    },
    "date_order": {
        "cli": "'main.py run {run_id} --date-order day-first' (or month-first), or --date-order when importing",
        "window": "the question after the import (or the run's right-click menu ▸ Dates are…)",
    },
    "counters_by_place": {
        "cli": "'main.py run {run_id} --counters-by-place confirm' (or reject), or --counters-by-place read when "
               "importing",
        "window": "the question after the import (or the run's right-click menu ▸ Counters read by their place…)",
    },
    "store_phases": {
        "cli": "phase add / phase detect --save",
        "window": "added by hand or saved from a detection",
    },
}


def fix_phrase(fix: str, front: str = "window", **params: Any) -> str:
    """How ``front`` ("cli" or "window"; the PDF uses the window's words) names the fix ``fix``."""
    if front not in FRONTS:
        raise ValueError(f"unknown front end {front!r}: {', '.join(FRONTS)}")
    return FIXES[fix][front].format(**params)


def with_fix(message: str, fix: str | None, front: str = "window", **params: Any) -> str:
    """``message`` with its ``{fix}`` placeholder replaced by ``front``'s phrase (replace, not format: the
    message may hold run names with braces)."""
    if fix is None:
        return message
    return message.replace("{fix}", fix_phrase(fix, front, **params))


STORED_FIX = re.compile(r"\{fix:([a-z_]+)\}")


def render_stored(text: str, front: str = "window", run_id: Any = "ID") -> str:
    """A stored import warning in ``front``'s words. The parsers know no front end: where a warning says what
    the user can do, they write a ``{fix:KEY}`` token (a :data:`FIXES` key), replaced here."""
    def phrase(m: re.Match[str]) -> str:
        key = m.group(1)
        return fix_phrase(key, front, run_id=run_id) if key in FIXES else m.group(0)

    return STORED_FIX.sub(phrase, text)


class AnalysisError(Exception):
    """The data cannot answer the question (no such run, no histogram, ...).

    ``fix`` (a :data:`FIXES` key) and ``params`` name what the user can do about it; the message holds
    ``{fix}`` where the phrase goes. ``str()`` is the window and PDF wording, :meth:`render` any front end's.
    """

    def __init__(self, message: str, fix: str | None = None, **params: Any):
        if fix is not None and fix not in FIXES:
            raise KeyError(f"unknown fix {fix!r}")
        super().__init__(message)
        self.message, self.fix, self.params = message, fix, params

    def render(self, front: str = "window") -> str:
        return with_fix(self.message, self.fix, front, **self.params)

    def __str__(self) -> str:
        return self.render("window")


class Note(str):
    """A note (or a method text) that names a fix: the string itself is the window and PDF wording;
    :meth:`render` gives any front end's (the command line's JSON and text use ``render("cli")``)."""

    message: str
    fix: str | None
    params: dict[str, Any]

    def __new__(cls, message: str, fix: str | None = None, **params: Any) -> Note:
        if fix is not None and fix not in FIXES:
            raise KeyError(f"unknown fix {fix!r}")
        self = super().__new__(cls, with_fix(message, fix, "window", **params))
        self.message, self.fix, self.params = message, fix, params
        return self

    def render(self, front: str = "window") -> str:
        return with_fix(self.message, self.fix, front, **self.params)


def render(x: Any, front: str = "window") -> Any:
    """An error or note in ``front``'s words; anything else as it is."""
    if isinstance(x, (AnalysisError, Note)):
        return x.render(front)
    return x


def for_cli(x: Any) -> str:
    """The command line's wording of an error, a note or a plain string."""
    return str(render(x, "cli"))


def for_cli_json(v: Any) -> Any:
    """Notes inside nested dicts and lists in the command line's words (for its JSON)."""
    if isinstance(v, Note):
        return v.render("cli")
    if isinstance(v, dict):
        return {k: for_cli_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [for_cli_json(x) for x in v]
    if isinstance(v, tuple):
        return tuple(for_cli_json(x) for x in v)
    return v
