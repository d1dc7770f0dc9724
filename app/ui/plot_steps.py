"""Interval data as steps, and what the overlay's crosshair reads (numpy only, no Qt).

An iostat value covers the interval that ends at its time stamp: report *k* printed at ``t_end``
covers ``(t_end - interval, t_end]``. A vscsiStats value covers its collection the same way. So a
curve is a staircase, one flat step per interval, and the value under a time ``x`` is the one whose
interval holds ``x`` (its end included, its start not); outside every interval there is none.
"""

from __future__ import annotations

import math

import numpy as np

# the unit a metric's value is read out in
METRIC_UNITS = {
    "IOPS (total)": "IOPS", "IOPS (read)": "IOPS", "IOPS (write)": "IOPS", "Throughput (kB/s)": "kB/s",
    "await (ms)": "ms", "%util (max over disks)": "%", "Queue (aqu-sz, summed)": "",
    "GAVG (ms)": "ms", "DAVG (ms)": "ms", "KAVG (ms)": "ms", "Commands/s per VM": "commands/s",
}


def step_xy(t_start: np.ndarray, t_end: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The staircase of intervals ``(t_start[i], t_end[i]]`` at height ``y[i]``, as one polyline.

    Each interval gives two points (its start and its end at its value); consecutive intervals meet
    in a vertical riser. Where the next interval starts after this one ends (a missing report), a
    NaN point breaks the line, so nothing is drawn across the gap.
    """
    ts, te, v = (np.asarray(a, dtype=float) for a in (t_start, t_end, y))
    n = len(v)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    x = np.empty(2 * n)
    yy = np.empty(2 * n)
    x[0::2], x[1::2] = ts, te
    yy[0::2], yy[1::2] = v, v
    tol = 1e-9 * max(1.0, float(np.nanmax(np.abs(te))) if n else 1.0)
    gaps = np.nonzero(ts[1:] > te[:-1] + tol)[0]
    if len(gaps):
        at = 2 * (gaps + 1)  # insert before the start point of the interval after each gap
        x = np.insert(x, at, te[gaps])
        yy = np.insert(yy, at, np.nan)
    return x, yy


def interval_index(t_start: np.ndarray, t_end: np.ndarray, x: float) -> int | None:
    """The index of the interval ``(t_start, t_end]`` that holds ``x``, or None (before, after or in a gap)."""
    if not len(t_end) or not math.isfinite(x):
        return None
    i = int(np.searchsorted(t_end, x, side="left"))
    if i >= len(t_end) or not t_start[i] < x:
        return None
    return i


def fmt_value(v: float | None, unit: str = "") -> str:
    """A value as the readout prints it: thousands separators, at most two decimals, no trailing zeros."""
    if v is None or not math.isfinite(v):
        return "–"
    s = f"{v:,.2f}".rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    return f"{s} {unit}".rstrip()


def fmt_time(v: float, decimals: int = 3) -> str:
    """A time for the readout: ``10``, ``10.5``, ``-2.25`` (no trailing zeros, no ``-0``)."""
    s = f"{v:,.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s
