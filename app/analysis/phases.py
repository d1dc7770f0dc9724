"""Phases of a run found automatically: change-point split of the IOPS series (no Qt).

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

Storing phases and markers (add, list, delete) is the workspace's: ``app.store.phases``. Its functions are
re-exported here for the command line (``phases.add_phase`` …).
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from app.analysis.series import Series
from app.store.phases import (  # noqa: F401 (re-exported: the command line calls them through this module)
    Phase,
    add_marker,
    add_phase,
    delete_marker,
    delete_phase,
    list_markers,
    list_phases,
    save_detected,
)

DEFAULT_MAX_PHASES = 5
DEFAULT_MIN_SHIFT_PCT = 10.0
DEFAULT_PENALTY = 3.0


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
    if np.isnan(iops).all():  # no request figures: no IOPS level to find phases in
        return []
    peak = float(np.nanmax(iops))
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
