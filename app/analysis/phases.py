"""Phases and markers of a run: automatic change-point split, and manual ones stored in the workspace (no Qt).

Automatic phases
    Binary segmentation of the IOPS series into stretches of constant mean level: the split that
    removes the most squared error (time-weighted) is taken first, and splitting stops when the best
    split of any stretch

    * would leave a stretch shorter than ``min_intervals`` reports,
    * moves the mean level by less than ``min_shift_pct`` % of the run's peak interval,
    * removes less squared error than ``penalty`` x sigma^2 x ln(n) (a BIC-like penalty; sigma is the
      noise level estimated from the median absolute difference of neighbouring intervals), or
    * would exceed ``max_phases``.

    Two VMs sharing a RAID set -- one VM, then both VMs, then the second VM alone -- comes out as three
    phases split at 1/3 and 2/3 of the run.

Stored phases and markers use the series time axis (seconds since the start of the run's first
analysed interval, see ``app.analysis.series``): ``phases(run_id, name, t_start_s, t_end_s, source)``
with ``source`` = ``manual`` or ``auto`` (a saved automatic split), ``markers(run_id, name, t_s)``.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.analysis.histograms import AnalysisError
from app.analysis.series import Series

DEFAULT_MAX_PHASES = 5
DEFAULT_MIN_SHIFT_PCT = 10.0
DEFAULT_PENALTY = 3.0


@dataclass
class Phase:
    name: str
    t_start_s: float
    t_end_s: float
    source: str  # manual | auto | detected (not stored)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "t_start_s": self.t_start_s, "t_end_s": self.t_end_s, "source": self.source}


# ---- change points --------------------------------------------------------------------------------
def _sse(cs: np.ndarray, cs2: np.ndarray, cw: np.ndarray, a: int, b: int) -> float:
    """Weighted squared error of values[a:b] around their weighted mean, from prefix sums."""
    w = cw[b] - cw[a]
    if w <= 0:
        return 0.0
    s = cs[b] - cs[a]
    return float(cs2[b] - cs2[a] - s * s / w)


def _sse_many(cs: np.ndarray, cs2: np.ndarray, cw: np.ndarray, a: Any, b: Any) -> np.ndarray:
    w = cw[b] - cw[a]
    s = cs[b] - cs[a]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = cs2[b] - cs2[a] - np.where(w > 0, s * s / np.where(w > 0, w, 1.0), 0.0)
    return np.asarray(out, dtype=float)


def _mean(cs: np.ndarray, cw: np.ndarray, a: int, b: int) -> float:
    w = cw[b] - cw[a]
    return float((cs[b] - cs[a]) / w) if w > 0 else 0.0


def change_points(values: np.ndarray | list[float], weights: np.ndarray | list[float] | None = None, *,
                  max_segments: int = DEFAULT_MAX_PHASES, min_size: int | None = None,
                  min_shift: float | None = None, penalty: float = DEFAULT_PENALTY) -> list[int]:
    """Indices where a new segment starts (0 and len excluded), ascending. See the module doc."""
    v = np.nan_to_num(np.asarray(values, dtype=float))
    n = len(v)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if n < 2 or max_segments < 2:
        return []
    if min_size is None:
        min_size = max(2, math.ceil(0.05 * n))
    if min_shift is None:
        min_shift = DEFAULT_MIN_SHIFT_PCT / 100.0 * float(np.max(np.abs(v)))
    cs = np.concatenate([[0.0], np.cumsum(v * w)])
    cs2 = np.concatenate([[0.0], np.cumsum(v * v * w)])
    cw = np.concatenate([[0.0], np.cumsum(w)])
    d = np.diff(v)
    sigma = float(np.median(np.abs(d - np.median(d)))) / 0.6745 / math.sqrt(2) if len(d) else 0.0
    floor = 0.01 * float(np.max(np.abs(v))) if n else 0.0
    sigma = max(sigma, floor)
    threshold = penalty * sigma * sigma * math.log(max(n, 2)) * float(np.mean(w))

    def best(a: int, b: int) -> tuple[float, int] | None:
        if b - a < 2 * min_size:
            return None
        total = _sse(cs, cs2, cw, a, b)
        ks = np.arange(a + min_size, b - min_size + 1)
        gains = total - _sse_many(cs, cs2, cw, a, ks) - _sse_many(cs, cs2, cw, ks, b)
        i = int(np.argmax(gains))  # the first of equal gains
        best_gain, best_k = float(gains[i]), int(ks[i])
        if best_k < 0 or best_gain <= threshold:
            return None
        if abs(_mean(cs, cw, a, best_k) - _mean(cs, cw, best_k, b)) < min_shift:
            return None
        return best_gain, best_k

    heap: list[tuple[float, int, int, int]] = []

    def push(a: int, b: int) -> None:
        r = best(a, b)
        if r is not None:
            heapq.heappush(heap, (-r[0], r[1], a, b))

    push(0, n)
    cuts: list[int] = []
    while heap and len(cuts) + 1 < max_segments:
        _g, k, a, b = heapq.heappop(heap)
        cuts.append(k)
        push(a, k)
        push(k, b)
    return sorted(cuts)


def detect_phases(s: Series, *, max_phases: int = DEFAULT_MAX_PHASES, min_intervals: int | None = None,
                  min_shift_pct: float = DEFAULT_MIN_SHIFT_PCT, penalty: float = DEFAULT_PENALTY) -> list[Phase]:
    """Automatic phases of a series (see the module doc); names ``phase 1``, ``phase 2``, …"""
    f = s.frame
    if f.height == 0:
        return []
    iops = s.col("iops")
    peak = float(np.nanmax(iops)) if len(iops) else 0.0
    cuts = change_points(iops, s.col("dt_s"), max_segments=max_phases, min_size=min_intervals,
                         min_shift=min_shift_pct / 100.0 * peak, penalty=penalty)
    ts, te = s.col("t_start_s"), s.col("t_end_s")
    bounds = [0, *cuts, f.height]
    return [Phase(f"phase {i + 1}", float(ts[a]), float(te[b - 1]), "detected")
            for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def detection_method(max_phases: int = DEFAULT_MAX_PHASES, min_intervals: int | None = None,
                     min_shift_pct: float = DEFAULT_MIN_SHIFT_PCT, penalty: float = DEFAULT_PENALTY) -> dict[str, Any]:
    return {
        "method": "binary segmentation of interval IOPS into stretches of constant mean (time-weighted squared "
                  "error); a split must move the mean by at least the min shift pct (% of the peak interval) and "
                  "remove more than penalty x sigma^2 x ln(n) of squared error (sigma from neighbouring-interval "
                  "differences)",
        "max_phases": max_phases,
        "min_intervals": min_intervals if min_intervals is not None else "max(2, 5 % of the reports)",
        "min_shift_pct": min_shift_pct, "penalty": penalty,
        "assignment": "a report belongs to the phase that holds its midpoint",
    }


# ---- stored phases and markers ----------------------------------------------------------------------
def has_table(ws: Any, table: str) -> bool:
    return bool(ws.con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = ?",
                               [table]).fetchall()[0][0])


def _check_run(ws: Any, run_id: int) -> None:
    if ws.run(run_id) is None:
        raise AnalysisError(f"no run {run_id} in this workspace")


def list_phases(ws: Any, run_id: int, source: str | None = None) -> list[Phase]:
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


def add_phase(ws: Any, run_id: int, name: str, t_start_s: float, t_end_s: float, source: str = "manual") -> Phase:
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


def save_detected(ws: Any, run_id: int, phases: list[Phase]) -> list[Phase]:
    """Store an automatic split (replacing the run's earlier automatic phases; manual ones stay)."""
    _check_run(ws, run_id)
    ws.con.execute("DELETE FROM phases WHERE run_id = ? AND source = 'auto'", [run_id])
    return [add_phase(ws, run_id, p.name, p.t_start_s, p.t_end_s, "auto") for p in phases]


def delete_phase(ws: Any, run_id: int, name: str) -> bool:
    if not has_table(ws, "phases"):
        return False
    n = ws.con.execute("SELECT count(*) FROM phases WHERE run_id = ? AND name = ?", [run_id, name]).fetchall()[0][0]
    ws.con.execute("DELETE FROM phases WHERE run_id = ? AND name = ?", [run_id, name])
    return bool(n)


def list_markers(ws: Any, run_id: int) -> dict[str, float]:
    if not has_table(ws, "markers"):
        return {}
    return {n: float(t) for n, t in ws.con.execute(
        "SELECT name, t_s FROM markers WHERE run_id = ? ORDER BY t_s, name", [run_id]).fetchall()}


def add_marker(ws: Any, run_id: int, name: str, t_s: float) -> None:
    _check_run(ws, run_id)
    if not name.strip():
        raise AnalysisError("a marker needs a name")
    if not math.isfinite(t_s):
        raise AnalysisError("a marker needs a finite time")
    ws.con.execute("DELETE FROM markers WHERE run_id = ? AND name = ?", [run_id, name])
    ws.con.execute("INSERT INTO markers (run_id, name, t_s) VALUES (?, ?, ?)", [run_id, name, t_s])


def delete_marker(ws: Any, run_id: int, name: str) -> bool:
    if not has_table(ws, "markers"):
        return False
    n = ws.con.execute("SELECT count(*) FROM markers WHERE run_id = ? AND name = ?", [run_id, name]).fetchall()[0][0]
    ws.con.execute("DELETE FROM markers WHERE run_id = ? AND name = ?", [run_id, name])
    return bool(n)
