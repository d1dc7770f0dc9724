"""The workspace as the report reads it: every run's names bounded and made visible.

A run's name, host, OS, tool version, source path, tags and import warnings come from a customer's file -- or
from a workspace someone else made. In the PDF each is shown at most ``LIMITS`` characters long (cut with "…",
and the appendix says which were cut and how long they were: a 2-million-character host name made the report
run for minutes), with control and bidirectional characters (U+202E RIGHT-TO-LEFT OVERRIDE reverses the text
after it) written visibly, ``<U+202E>`` (see :mod:`app.safe_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from app.run import Run
from app.safe_text import for_display
from app.workspace import RunHead, Workspace

LIMITS = {"name": 200, "host": 200, "os": 200, "tool_version": 200, "source_path": 1000, "format": 100}
TAG_LIMIT = 200
WARNING_LIMIT = 1000
FIELD_WORDS = {"name": "name", "host": "host name", "os": "operating system", "tool_version": "tool version",
               "source_path": "file name", "format": "format"}


class ShownWorkspace(Workspace):
    """``ws`` (same connection) whose :meth:`runs` and :meth:`run` give the shown values; ``cut`` lists, in
    customer words, what was cut."""

    cut: list[str]

    @classmethod
    def of(cls, ws: Workspace) -> ShownWorkspace:
        if isinstance(ws, ShownWorkspace):
            return ws
        w = object.__new__(cls)
        w.__dict__.update(ws.__dict__)
        w.cut = []
        return w

    def runs(self) -> list[Run]:
        return [self._shown(r) for r in super().runs()]

    def runs_by_id(self, run_ids: Iterable[int]) -> dict[int, Run]:
        return {rid: self._shown(r) for rid, r in super().runs_by_id(run_ids).items()}

    def run_heads(self) -> list[RunHead]:
        """Every run's head with its shown names, read once per report (nothing writes while a report is built)."""
        heads: list[RunHead] | None = self.__dict__.get("_shown_heads")
        if heads is None:
            heads = self.__dict__["_shown_heads"] = [self._shown_head(h) for h in super().run_heads()]
        return heads

    def _shown_head(self, h: RunHead) -> RunHead:
        def show(field: str, value: str) -> str:
            return self._show(h.run_id, FIELD_WORDS[field], value, LIMITS[field])

        return replace(h, name=show("name", h.name), host=None if h.host is None else show("host", h.host),
                       source_path=show("source_path", h.source_path))

    def run(self, run_id: int) -> Run | None:
        r = super().run(run_id)
        return None if r is None else self._shown(r)

    def _show(self, run_id: Any, what: str, value: str, limit: int) -> str:
        shown, cut = for_display(value, limit)
        note = f"run {run_id}'s {what} has {len(value):,} characters; its first {limit:,} are shown, ending in “…”"
        if cut and note not in self.cut:
            self.cut.append(note)
        return shown

    def _shown(self, r: Run) -> Run:
        rid = r.run_id

        def text(key: str, v: str | None) -> str | None:
            return None if v is None else self._show(rid, FIELD_WORDS[key], v, LIMITS[key])

        tags = {self._show(rid, "tag", str(k), TAG_LIMIT): self._show(rid, "tag", str(v), TAG_LIMIT)
                for k, v in r.tags.items()}
        warnings = tuple(self._show(rid, "import warning", str(w), WARNING_LIMIT) for w in r.warnings)
        return replace(r, name=text("name", r.name) or "", host=text("host", r.host), os=text("os", r.os),
                       tool_version=text("tool_version", r.tool_version),
                       source_path=text("source_path", r.source_path) or "", format=text("format", r.format) or "",
                       tags=tags, warnings=warnings)
