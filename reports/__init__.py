"""PDF report building (reportlab). No Qt at import time (import-linter enforces it).

    from reports import ReportOptions, build_report
    content = build_report(ws, ReportOptions(title="Boot storm", customer="ACME"), "out.pdf")
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from reports.options import ReportOptions, list_templates, load_template, save_template

if TYPE_CHECKING:
    from app.workspace import Workspace

__all__ = ["ReportOptions", "build_report", "list_templates", "load_template", "save_template"]


def build_report(ws: Workspace, options: ReportOptions, path: str, state: Any = None,
                 not_imported: list[tuple[str, str]] | None = None) -> Any:
    """Collect the analyses the options ask for and write the PDF. Returns the ReportContent.

    ``not_imported``: the files of the folder the report is made from that could not be imported, as (file name,
    why): the report lists them in its "Not included" box.

    The PDF is written beside ``path`` under a temporary name and renamed over it once complete: a full disk or
    a failure half-way leaves no partial PDF (and an existing one at ``path`` as it was). A logo that cannot be
    used (reports.logo) is left out, and ``content.notes`` says why."""
    from app.analysis.series import series_memo
    from reports.content import collect
    from reports.logo import LogoUnusable, read_logo
    from reports.pdf import render

    if state is not None:
        state.progress(0.1, "analysing")
    with series_memo():  # each run's series loaded once for every section and analysis
        content = collect(ws, options, not_imported)
    if options.logo:
        try:
            content.logo = read_logo(options.logo)
        except LogoUnusable as e:
            content.notes.append(f"The report was written without its logo: {e}.")
    if state is not None:
        state.progress(0.6, "writing the PDF")
    write_atomically(path, lambda tmp: render(content, tmp))
    if state is not None:
        state.progress(1.0, "done")
    return content


def write_atomically(path: str, write: Any) -> None:
    """Call ``write(temporary_path)`` for a file beside ``path``, then rename it to ``path``; on any failure the
    temporary file is removed and ``path`` is untouched."""
    import os
    import tempfile

    target = os.path.abspath(path)
    fd, tmp = tempfile.mkstemp(prefix=".stormscope-", suffix=".part", dir=os.path.dirname(target))
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.errno is not None and e.filename in (None, tmp):  # name the file asked for
            raise OSError(e.errno, e.strerror, path) from e
        raise
