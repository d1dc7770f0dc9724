"""A run's clock offset as stored in the workspace: set, read, clear (no Qt).

Table ``clock_offsets(run_id, offset_s, reference_run_id, source, match, step_s, set_at)`` (see docs/schema.md),
one row per run at most. ``offset_s`` is the seconds **added** to the run's clock to put it on the common clock:
a run whose clock is 37 s ahead of the reference's gets -37. A run without time stamps has no clock to correct:
its offset is where it starts on its reference run's clock (seconds after the reference's start), and the
reference must have time stamps. Every analysis reads a run's wall-clock times through
``app.analysis.series.load_series``, which applies the offset, so that every view, question and the report put the
run where its offset says. Estimating an offset is analysis: ``app.analysis.clock``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from app.errors import AnalysisError
from app.workspace import Workspace, has_table

ESTIMATED, MANUAL = "estimated", "manual"
MAX_OFFSET_S = 7 * 86400.0  # a week: no clock of a capture is further off (a larger figure is a typing error)


@dataclass(frozen=True)
class ClockOffset:
    run_id: int
    offset_s: float
    reference_run_id: int | None
    source: str  # estimated | manual
    match: float | None  # estimated: the correlation at the offset (0-1)
    step_s: float | None  # estimated: the common step (the offset is good to about one step)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def words(self) -> str:
        """How a customer reads it: '+37 s (estimated against run 1, match 0.93)'."""
        return f"{fmt_offset(self.offset_s)} ({self.how()})"

    def how(self, against: bool = True) -> str:
        """'estimated against run 1, match 0.93', 'set by hand' (``against``: name the reference)."""
        how = "set by hand" if self.source == MANUAL else "estimated"
        if against and self.reference_run_id is not None:
            how += f" against run {self.reference_run_id}"
        if self.match is not None:
            how += f", match {self.match:.2f}"
        return how


def fmt_offset(offset_s: float) -> str:
    """A clock offset as read: '+37 s', '−4 min 0.5 s', '0 s'."""
    if offset_s == 0:
        return "0 s"
    sign = "+" if offset_s > 0 else "−"
    a = abs(offset_s)
    if a < 60:
        return f"{sign}{a:.3g} s" if a < 10 else f"{sign}{a:.1f} s".replace(".0 s", " s")
    m, s = divmod(a, 60.0)
    rest = f" {s:.1f} s".replace(".0 s", " s") if round(s, 1) else ""
    return f"{sign}{int(m)} min{rest}"


def get_offset(ws: Workspace, run_id: int) -> ClockOffset | None:
    """The run's stored offset; None when it has none (or the workspace predates offsets)."""
    if not has_table(ws, "clock_offsets"):
        return None
    rows = ws.con.execute("SELECT offset_s, reference_run_id, source, match, step_s FROM clock_offsets "
                          "WHERE run_id = ?", [run_id]).fetchall()
    if not rows:
        return None
    off, ref, source, match, step = rows[0]
    return ClockOffset(run_id, float(off), ref, source, None if match is None else float(match),
                       None if step is None else float(step))


def list_offsets(ws: Workspace) -> dict[int, ClockOffset]:
    """Every stored offset, by run."""
    if not has_table(ws, "clock_offsets"):
        return {}
    rows = ws.con.execute("SELECT run_id, offset_s, reference_run_id, source, match, step_s FROM clock_offsets "
                          "ORDER BY run_id").fetchall()
    return {r[0]: ClockOffset(r[0], float(r[1]), r[2], r[3], None if r[4] is None else float(r[4]),
                              None if r[5] is None else float(r[5])) for r in rows}


def set_offset(ws: Workspace, run_id: int, offset_s: float, *, reference_run_id: int | None = None,
               source: str = MANUAL, match: float | None = None, step_s: float | None = None) -> ClockOffset:
    """Store (replacing) the run's offset."""
    if ws.run(run_id) is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if not math.isfinite(offset_s) or abs(offset_s) > MAX_OFFSET_S:
        raise AnalysisError(f"a clock offset of {offset_s:g} s is not one a capture's clock has (at most a week)")
    if source not in (ESTIMATED, MANUAL):
        raise ValueError(f"unknown offset source {source!r}")
    if reference_run_id == run_id:
        raise AnalysisError(f"run {run_id} cannot be matched against itself")
    if (run := ws.run(run_id)) is not None and run.started_at is None and reference_run_id is None:
        raise AnalysisError(f"run {run_id} has no time stamps: it is placed on the clock of a run that has them, "
                            "from their activity or by hand against that run")
    if reference_run_id is not None and (ref := ws.run(reference_run_id)) is not None and ref.started_at is None:
        raise AnalysisError(f"run {reference_run_id} has no time stamps: another run cannot be put on its clock")
    with ws.transaction():
        ws.con.execute("DELETE FROM clock_offsets WHERE run_id = ?", [run_id])
        ws.con.execute("INSERT INTO clock_offsets (run_id, offset_s, reference_run_id, source, match, step_s, set_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [run_id, float(offset_s), reference_run_id, source, match, step_s,
                        datetime.now(UTC).replace(tzinfo=None)])
    return ClockOffset(run_id, float(offset_s), reference_run_id, source, match, step_s)


def clear_offset(ws: Workspace, run_id: int) -> bool:
    """Remove the run's offset (its clock is the file's again); whether it had one."""
    if not has_table(ws, "clock_offsets"):
        return False
    had = get_offset(ws, run_id) is not None
    ws.con.execute("DELETE FROM clock_offsets WHERE run_id = ?", [run_id])
    return had
