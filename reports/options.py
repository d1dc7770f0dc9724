"""What a report contains: options, and templates saved in the workspace for reuse."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from app.workspace import has_table
from reports.builders import answer_section_keys, section_keys

# The sections a report can have, their titles and order, and the ones a report that answers questions has by
# default (each question's evidence, then these; any other section ticked or named follows them) are declared by
# the sections themselves (reports.builders). Without questions every section is the default.


@dataclass
class ReportOptions:
    """Everything that shapes a report. Saved as a template (JSON) in the workspace."""

    title: str = "Storage performance report"
    customer: str = ""
    consultant: str = ""
    company: str = ""
    date: str = ""  # as printed on the cover; empty: today
    logo: str | None = None  # PNG/JPEG path
    runs: list[int] = field(default_factory=list)  # empty: every run of the workspace
    sections: list[str] | None = None  # None: the default of the report's kind (:meth:`sections_for`)
    anonymise: bool = False
    full_paths: bool = False  # sources listed with their full paths (default: file names only)
    confidential: str = ""  # a confidentiality line printed on every page, e.g. "Confidential: ACME only"
    page_size: str = "A4"  # A4 | Letter
    # overlay and storm
    device: str | None = None
    align: str = "activity"  # start | activity
    metric_every_s: float | None = None
    # cap compliance (also read from run tags cap_iops=, cap_bw_kbs=)
    iops_cap: float | None = None
    bw_cap_kbs: float | None = None
    tolerance_pct: float = 5.0
    # response times
    latency_threshold_ms: float = 50.0
    latency_goal_pct: float = 80.0
    # sizing (section left out unless users and iops_per_user are given)
    sizing: dict[str, Any] = field(default_factory=dict)
    accent: str = "#1f4e79"

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ReportOptions:
        """Options saved as JSON (a template), each field checked (:func:`check_field`): a template may come in a
        workspace from someone else. Raises :class:`TemplateInvalid` naming the field; unknown keys are ignored."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError):
            raise TemplateInvalid("it is not a template StormScope wrote") from None
        if not isinstance(data, dict):
            raise TemplateInvalid("it is not a template StormScope wrote")
        known = {f.name for f in fields(cls)}
        return cls(**{k: check_field(k, v) for k, v in data.items() if k in known})

    def sections_for(self, answers_questions: bool) -> list[str]:
        """The sections to build: the ones chosen, else every section, or for a report that answers questions
        the sections declared for it (the Answers page takes the executive summary's place)."""
        if self.sections is not None:
            return list(self.sections)
        return answer_section_keys() if answers_questions else section_keys()

    def merged(self, **overrides: Any) -> ReportOptions:
        """A copy with the given fields replaced (None leaves a field as it is)."""
        data = asdict(self)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return ReportOptions(**data)


class TemplateInvalid(ValueError):
    """A saved template's field holds what StormScope never saves there; ``str()`` names the field."""


MAX_TEXT = 1000  # characters of a template's text field (a title, a customer's name, a confidentiality line)
_HEX_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


def _text(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= MAX_TEXT


def _number(low: float, high: float) -> Any:
    return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v <= high  # NaN fails


def _sizing(v: Any) -> bool:
    return isinstance(v, dict) and all(
        isinstance(k, str) and len(k) <= 100 and not isinstance(x, bool) and (
            isinstance(x, (int, float)) or (isinstance(x, str) and len(x) <= 100)) for k, x in v.items())


# field -> (what a saved value must be, in words; the check; None allowed)
_FIELDS: dict[str, tuple[str, Any, bool]] = {
    **{k: (f"text of at most {MAX_TEXT:,} characters", _text, False)
       for k in ("title", "customer", "consultant", "company", "date", "confidential")},
    "logo": (f"text of at most {MAX_TEXT:,} characters", _text, True),
    "device": (f"text of at most {MAX_TEXT:,} characters", _text, True),
    "metric_every_s": ("a number of seconds from 0.001 to 86,400", _number(0.001, 86400.0), True),
    "iops_cap": ("a number of IOPS", _number(0.0, 1e9), True),
    "bw_cap_kbs": ("a number of kB/s", _number(0.0, 1e12), True),
    "tolerance_pct": ("a percentage", _number(0.0, 100.0), False),
    "latency_threshold_ms": ("a number of milliseconds", _number(0.001, 1e6), False),
    "latency_goal_pct": ("a percentage", _number(0.0, 100.0), False),
    "anonymise": ("yes or no", lambda v: isinstance(v, bool), False),
    "full_paths": ("yes or no", lambda v: isinstance(v, bool), False),
    "page_size": ("A4 or Letter", lambda v: v in ("A4", "Letter", "a4", "letter"), False),
    "align": ("start or activity", lambda v: v in ("start", "activity"), False),
    # written into the PDF's markup: a colour and nothing else
    "accent": ("a colour such as #1f4e79", lambda v: isinstance(v, str) and bool(_HEX_COLOUR.fullmatch(v)), False),
    "runs": ("a list of run numbers", lambda v: isinstance(v, list) and all(
        isinstance(r, int) and not isinstance(r, bool) for r in v), False),
    "sections": ("a list of the report's sections", lambda v: isinstance(v, list) and all(
        isinstance(x, str) and x in section_keys() for x in v), True),
    "sizing": ("a set of sizing figures", _sizing, False),
}


def check_field(name: str, value: Any) -> Any:
    """``value`` of the template field ``name`` when it is one StormScope saves there, else
    :class:`TemplateInvalid` naming the field and what it must be (:data:`_FIELDS`)."""
    what, ok, optional = _FIELDS[name]
    if (value is None and optional) or ok(value):
        return value
    raise TemplateInvalid(f"its {name.replace('_', ' ')} is not {what}")


def version() -> str:
    """StormScope's version. In a checkout (or a desktop build, which carries the checkout's pyproject.toml beside
    the packages) the pyproject.toml the code sits in says it: an installed copy's metadata may be older than the
    tree being run. Installed with pip / pipx, the package metadata says it."""
    import tomllib
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as meta_version
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if pyproject.is_file():
        with open(pyproject, "rb") as f:
            project = tomllib.load(f).get("project", {})
        if project.get("name") == "stormscope":  # not some other project's file beside site-packages
            return str(project["version"])
    try:
        return meta_version("stormscope")
    except PackageNotFoundError:
        return "unknown version"


def save_template(con: Any, name: str, options: ReportOptions) -> None:
    """Store ``options`` as template ``name`` (table ``report_templates``, created with the workspace)."""
    data = json.loads(options.to_json())
    data["runs"] = []  # a template is about layout and branding, not a selection of runs
    con.execute("INSERT OR REPLACE INTO report_templates VALUES (?, ?)", [name, json.dumps(data, sort_keys=True)])


def load_template(con: Any, name: str) -> ReportOptions:
    rows = con.execute("SELECT options FROM report_templates WHERE name = ?",
                       [name]).fetchall() if has_table(con, "report_templates") else []
    if not rows:
        names = list_templates(con)
        raise KeyError(f"no report template {name!r}" + (f" (templates: {', '.join(names)})" if names else ""))
    try:
        return ReportOptions.from_json(rows[0][0])
    except TemplateInvalid as e:
        raise TemplateInvalid(f"the report template {name!r} cannot be used: {e}") from None


def list_templates(con: Any) -> list[str]:
    """The saved templates' names (none in a workspace opened read-only that predates the table)."""
    if not has_table(con, "report_templates"):
        return []
    return [r[0] for r in con.execute("SELECT name FROM report_templates ORDER BY 1").fetchall()]
