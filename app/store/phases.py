"""Phases and markers of a run as stored in the workspace: add, list, delete (no Qt).

Tables ``phases(run_id, name, t_start_s, t_end_s, source)`` and ``markers(run_id, name, t_s)`` (see
docs/schema.md). Times use the series time axis: seconds since the start of the run's first analysed interval
(``app.analysis.series``). ``source`` = ``manual``, or ``auto`` for a saved automatic split. Detecting phases is
analysis: ``app.analysis.phases``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.errors import AnalysisError
from app.workspace import Workspace, has_table


@dataclass
class Phase:
    name: str
    t_start_s: float
    t_end_s: float
    source: str  # manual | auto | detected (not stored)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "t_start_s": self.t_start_s, "t_end_s": self.t_end_s, "source": self.source}


def _check_run(ws: Workspace, run_id: int) -> None:
    if ws.run(run_id) is None:
        raise AnalysisError(f"no run {run_id} in this workspace")


def list_phases(ws: Workspace, run_id: int, source: str | None = None) -> list[Phase]:
    """Stored phases of a run, by start time (none when the workspace predates the phases table)."""
    if not has_table(ws, "phases"):
        return []
    sql = "SELECT name, t_start_s, t_end_s, source FROM phases WHERE run_id = ?"
    params: list[Any] = [run_id]
    if source:
        sql += " AND source = ?"
        params.append(source)
    rows = ws.con.execute(sql + " ORDER BY t_start_s, name", params).fetchall()
    return [Phase(n, float(a), float(b), src) for n, a, b, src in rows]


def add_phase(ws: Workspace, run_id: int, name: str, t_start_s: float, t_end_s: float, source: str = "manual") -> Phase:
    """Store (or replace, by name) a phase of a run."""
    _check_run(ws, run_id)
    if not name.strip():
        raise AnalysisError("a phase needs a name")
    if not (math.isfinite(t_start_s) and math.isfinite(t_end_s)) or t_end_s <= t_start_s:
        raise AnalysisError(f"phase {name!r}: the end ({t_end_s:g} s) must come after the start ({t_start_s:g} s)")
    ws.con.execute("DELETE FROM phases WHERE run_id = ? AND name = ?", [run_id, name])
    ws.con.execute("INSERT INTO phases (run_id, name, t_start_s, t_end_s, source) VALUES (?, ?, ?, ?, ?)",
                   [run_id, name, t_start_s, t_end_s, source])
    return Phase(name, t_start_s, t_end_s, source)


def save_detected(ws: Workspace, run_id: int, phases: list[Phase]) -> list[Phase]:
    """Store an automatic split (replacing the run's earlier automatic phases; manual ones stay)."""
    _check_run(ws, run_id)
    ws.con.execute("DELETE FROM phases WHERE run_id = ? AND source = 'auto'", [run_id])
    return [add_phase(ws, run_id, p.name, p.t_start_s, p.t_end_s, "auto") for p in phases]


def delete_phase(ws: Workspace, run_id: int, name: str) -> bool:
    if not has_table(ws, "phases"):
        return False
    n = ws.con.execute("SELECT count(*) FROM phases WHERE run_id = ? AND name = ?", [run_id, name]).fetchall()[0][0]
    ws.con.execute("DELETE FROM phases WHERE run_id = ? AND name = ?", [run_id, name])
    return bool(n)


def list_markers(ws: Workspace, run_id: int) -> dict[str, float]:
    if not has_table(ws, "markers"):
        return {}
    return {n: float(t) for n, t in ws.con.execute(
        "SELECT name, t_s FROM markers WHERE run_id = ? ORDER BY t_s, name", [run_id]).fetchall()}


def markers_of_runs(ws: Workspace, run_ids: list[int]) -> dict[int, dict[str, float]]:
    """:func:`list_markers` of each of ``run_ids`` (runs without markers map to {}), in one query however many."""
    out: dict[int, dict[str, float]] = {int(r): {} for r in run_ids}
    if not out or not has_table(ws, "markers"):
        return out
    for rid, n, t in ws.con.execute("SELECT run_id, name, t_s FROM markers WHERE run_id IN "
                                    "(SELECT unnest(?::BIGINT[])) ORDER BY run_id, t_s, name", [list(out)]).fetchall():
        out[int(rid)][n] = float(t)
    return out


def phases_of_runs(ws: Workspace, run_ids: list[int]) -> dict[int, list[Phase]]:
    """:func:`list_phases` of each of ``run_ids`` (runs without phases map to []), in one query however many."""
    out: dict[int, list[Phase]] = {int(r): [] for r in run_ids}
    if not out or not has_table(ws, "phases"):
        return out
    for rid, n, a, b, src in ws.con.execute(
            "SELECT run_id, name, t_start_s, t_end_s, source FROM phases WHERE run_id IN "
            "(SELECT unnest(?::BIGINT[])) ORDER BY run_id, t_start_s, name", [list(out)]).fetchall():
        out[int(rid)].append(Phase(n, float(a), float(b), src))
    return out


def add_marker(ws: Workspace, run_id: int, name: str, t_s: float) -> None:
    _check_run(ws, run_id)
    if not name.strip():
        raise AnalysisError("a marker needs a name")
    if not math.isfinite(t_s):
        raise AnalysisError("a marker needs a finite time")
    ws.con.execute("DELETE FROM markers WHERE run_id = ? AND name = ?", [run_id, name])
    ws.con.execute("INSERT INTO markers (run_id, name, t_s) VALUES (?, ?, ?)", [run_id, name, t_s])


def delete_marker(ws: Workspace, run_id: int, name: str) -> bool:
    if not has_table(ws, "markers"):
        return False
    n = ws.con.execute("SELECT count(*) FROM markers WHERE run_id = ? AND name = ?", [run_id, name]).fetchall()[0][0]
    ws.con.execute("DELETE FROM markers WHERE run_id = ? AND name = ?", [run_id, name])
    return bool(n)
