"""PDF report building (reportlab). No Qt at import time (import-linter enforces it).

    from reports import ReportOptions, build_report
    content = build_report(ws, ReportOptions(title="Boot storm", customer="ACME"), "out.pdf")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reports.options import SECTIONS, ReportOptions, list_templates, load_template, save_template

if TYPE_CHECKING:
    from app.workspace import Workspace

__all__ = ["SECTIONS", "ReportOptions", "build_report", "list_templates", "load_template", "save_template"]


def build_report(ws: Workspace, options: ReportOptions, path: str, state: Any = None,
                 not_imported: list[tuple[str, str]] | None = None) -> Any:
    """Collect the analyses the options ask for and write the PDF. Returns the ReportContent.

    ``not_imported``: the files of the folder the report is made from that could not be imported, as (file name,
    why): the report lists them in its "Not included" box."""
    from app.analysis.series import series_memo
    from reports.content import collect
    from reports.pdf import render

    if state is not None:
        state.progress(0.1, "analysing")
    with series_memo():  # each run's series loaded once for every section and analysis
        content = collect(ws, options, not_imported)
    if state is not None:
        state.progress(0.6, "writing the PDF")
    render(content, path)
    if state is not None:
        state.progress(1.0, "done")
    return content
