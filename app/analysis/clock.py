"""One clock: how far a run's clock is off another's, found from their activity (no Qt).

Captures of one storm come from several places (iostat in the guests, esxtop on the host, perfmon on the desktops,
sar) whose clocks disagree by seconds to minutes. When two runs watched the same I/O, their activity over time has
the same shape; the shift that lines the shapes up is the difference of their clocks.

API::

    estimate_offset(ws, run_id, reference_run_id, figure="auto", max_offset_s=None) -> ClockMatch
    estimate_offsets(ws, reference_run_id, run_ids, ...) -> list[ClockMatch]
    accept(ws, match) -> ClockOffset                                  # stores it (app.store.clock)

How the offset is found
    * **The figure**: IOPS (every request the devices saw, whole disks as everywhere), or throughput (kB/s) when
      a run has no request counts; ``figure`` forces one.
    * **A common step**: half the shorter of the two runs' intervals. Each run's rate is taken as constant over
      its interval (as the resampling of the series does) and averaged over each step of the time line; a step
      less than half covered by a run has no value for it.
    * **The match at each offset**: the correlation (Pearson's r) of the two activities over the steps both
      cover, for every offset at which they overlap by at least half of the shorter run (and at least
      ``MIN_OVERLAP_STEPS`` steps; within ``max_offset_s`` when given). The best offset is refined between steps
      (a parabola through the best three); it is the seconds to **add** to the run's clock to put it on the
      reference's (+37 = the run's clock is 37 s behind). The reference's own stored offset counts: the run is put
      on the reference's corrected clock.
    * **The confidence figure** is ``match``: the correlation at the found offset, 0 to 1 (1 = the same shape).
      ``next_best`` is the best correlation at any offset outside the peak around the found one (where the
      correlation is above half of ``match``): a workload that repeats matches several offsets about equally.
    * **Matching** when ``match`` is at least ``MIN_MATCH`` (0.6) and ahead of ``next_best`` by at least
      ``MIN_MARGIN`` (0.2); otherwise the pair is **not matching** and no offset is proposed (the reason says
      which test failed). The offset is good to about one step.

A run without time stamps (``iostat`` without ``-t``, its interval given) is **placed** the same way: taken to start
with the reference, the offset found is where it starts on the reference's clock (seconds after the reference's
start); stored against that reference, it puts the run on the clock in every view. The reference needs time stamps.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.series import Series, load_series
from app.errors import AnalysisError

if TYPE_CHECKING:
    from app.store.clock import ClockOffset
    from app.workspace import Workspace

MIN_MATCH = 0.6
MIN_MARGIN = 0.2
MIN_OVERLAP_STEPS = 20
FIGURES = {"iops": ("iops", "IOPS"), "throughput": ("kbs", "throughput (kB/s)")}
METHOD = ("the correlation of the two runs' activity (IOPS, or throughput without request counts) on a common step "
          "of half the shorter interval, at every offset where they overlap by at least half of the shorter run; "
          f"matching when the best correlation is at least {MIN_MATCH:g} and {MIN_MARGIN:g} ahead of the best at any "
          "other offset; the offset is good to about one step")


@dataclass
class ClockMatch:
    """A run's clock against a reference run's: the offset to add to the run's clock, or why there is none."""

    run_id: int
    run_name: str
    reference_run_id: int
    reference_name: str
    matching: bool
    offset_s: float | None  # to add to the run's file clock (None: not matching)
    match: float | None  # the correlation at the best offset (0-1): the confidence figure
    best_offset_s: float | None  # the best offset found, even when not matching (for the reason)
    next_best: float | None  # the best correlation at any offset outside the found peak
    next_best_offset_s: float | None
    step_s: float
    overlap_s: float | None  # time both runs cover at the best offset
    figure: str  # "IOPS" or "throughput (kB/s)"
    stored_offset_s: float | None  # the run's offset stored now (None: none)
    reason: str  # one sentence: what was found, or why the pair is not matching
    placed: bool = False  # the run has no time stamps: the offset is where it starts from the reference's start
    method: str = METHOD
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clock_values(s: Series, column: str, origin: Any, raw: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, value) of the run's intervals in seconds since ``origin`` on its clock (``raw``: its file's
    clock, without its stored offset)."""
    if raw and (s.clock0_utc is None or s.clock_placed):  # no clock of its own: taken to start with the reference
        c0 = origin
    else:
        assert s.clock0_utc is not None  # the reference has a clock (estimate_offset refuses it otherwise)
        c0 = s.clock0_utc - timedelta(seconds=s.clock_offset_s) if raw else s.clock0_utc
    shift = (c0 - origin).total_seconds()
    return s.col("t_start_s") + shift, s.col("t_end_s") + shift, s.col(column)


def _on_steps(a: np.ndarray, b: np.ndarray, v: np.ndarray, g0: float, step: float, n: int) -> np.ndarray:
    """Time-weighted means of a piecewise-constant rate over the steps [g0 + k·step, g0 + (k+1)·step), k < n; NaN
    where less than half a step is covered (vectorised: the integral up to each step edge)."""
    ok = np.isfinite(v) & (b > a)
    a, b, v = a[ok], b[ok], v[ok]
    order = np.argsort(a, kind="stable")
    a, b, v = a[order], b[order], v[order]
    b = np.maximum.accumulate(np.minimum(b, np.append(a[1:], np.inf)))  # overlapping spans cut, never counted twice
    edges = g0 + step * np.arange(n + 1)

    def integral(weights: np.ndarray) -> np.ndarray:
        full = np.concatenate([[0.0], np.cumsum(weights * (b - a))])
        p = np.searchsorted(b, edges, side="right")  # intervals ending at or before the edge
        out = full[p]
        inside = p < len(a)
        q = np.minimum(p, len(a) - 1)
        part = np.where(inside, np.clip(edges - a[q], 0.0, None) * weights[q], 0.0) if len(a) else 0.0
        return out + part

    if not len(a):
        return np.full(n, np.nan)
    cov = np.diff(integral(np.ones_like(v)))
    tot = np.diff(integral(v))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cov >= 0.5 * step, tot / cov, np.nan)


def correlation_by_lag(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pearson's r of ``x[j + k]`` against ``y[j]`` over the j where both have a value, for every lag k from
    -(len(y) - 1) to len(x) - 1: (lags, r, pairs). r is NaN where a side does not vary (or no pair).

    Six cross-correlations (pairs, sums and sums of squares of each side over the overlap, the products), by FFT:
    each side's three spectra are taken once."""
    wx, wy = np.isfinite(x).astype(float), np.isfinite(y).astype(float)
    x0, y0 = np.where(wx > 0, x, 0.0), np.where(wy > 0, y, 0.0)
    # centred on their means: the sums stay small, the FFT's rounding does not swamp the variances
    x0 = np.where(wx > 0, x0 - (x0.sum() / max(wx.sum(), 1.0)), 0.0)
    y0 = np.where(wy > 0, y0 - (y0.sum() / max(wy.sum(), 1.0)), 0.0)
    nfft = 1 << int(math.ceil(math.log2(max(2, len(x) + len(y)))))
    fx = [np.fft.rfft(a, nfft) for a in (wx, x0, x0 * x0)]
    fy = [np.conj(np.fft.rfft(b, nfft)) for b in (wy, y0, y0 * y0)]

    def xcorr(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # c[k] = sum_j a[j + k] b[j], k = -(len(y) - 1)..
        c = np.fft.irfft(a * b, nfft)
        return np.concatenate([c[nfft - (len(y) - 1):], c[:len(x)]]) if len(y) > 1 else c[:len(x)]

    n = np.rint(xcorr(fx[0], fy[0]))
    sx, sy = xcorr(fx[1], fy[0]), xcorr(fx[0], fy[1])
    sxx, syy = xcorr(fx[2], fy[0]), xcorr(fx[0], fy[2])
    sxy = xcorr(fx[1], fy[1])
    with np.errstate(invalid="ignore", divide="ignore"):
        vx = n * sxx - sx * sx
        vy = n * syy - sy * sy
        tiny = 1e-9 * (np.abs(n * sxx) + 1e-300)
        tiny_y = 1e-9 * (np.abs(n * syy) + 1e-300)
        r = np.where((n >= 2) & (vx > tiny) & (vy > tiny_y), (n * sxy - sx * sy) / np.sqrt(vx * vy), np.nan)
    lags = np.arange(-(len(y) - 1), len(x))
    return lags, np.clip(r, -1.0, 1.0), n


def _figure(ref: Series, s: Series, figure: str) -> tuple[str, str]:
    if figure not in ("auto", *FIGURES):
        raise AnalysisError(f"unknown activity figure {figure!r}: iops, throughput or auto")
    if figure != "auto":
        col, label = FIGURES[figure]
        for run in (ref, s):
            if not np.isfinite(run.col(col)).any():
                raise AnalysisError(f"run {run.run_id} has no {label}: its clock cannot be matched on it")
        return col, label
    both_iops = all(np.isfinite(run.col("iops")).any() for run in (ref, s))
    return FIGURES["iops"] if both_iops else FIGURES["throughput"]


def estimate_offset(ws: Workspace, run_id: int, reference_run_id: int, figure: str = "auto",
                    max_offset_s: float | None = None, device: str | None = None) -> ClockMatch:
    """How far the run's clock is off the reference run's, from their activity (see the module doc)."""
    if run_id == reference_run_id:
        raise AnalysisError(f"run {run_id} is the reference: its clock is the one the others are put on")
    ref, s = load_series(ws, reference_run_id, device), load_series(ws, run_id, device)
    if ref.clock0_utc is None or ref.clock_placed:
        raise AnalysisError(f"run {ref.run_id} has no time stamps: it cannot be the reference (a run without them is "
                            "placed on the clock of a run that has them)")
    col, label = _figure(ref, s, figure)
    placed = s.clock0_utc is None or s.clock_placed
    stored = s.clock_offset_s if s.clock_note else None
    step = min(ref.interval_s, s.interval_s) / 2.0
    origin = ref.clock0_utc
    ra, rb, rv = _clock_values(ref, col, origin, raw=False)
    ca, cb, cv = _clock_values(s, col, origin, raw=True)
    gr0, gc0 = math.floor(ra.min() / step) * step, math.floor(ca.min() / step) * step
    nr, nc = int(math.ceil((rb.max() - gr0) / step)), int(math.ceil((cb.max() - gc0) / step))
    x, y = _on_steps(ra, rb, rv, gr0, step, nr), _on_steps(ca, cb, cv, gc0, step, nc)
    lags, r, pairs = correlation_by_lag(x, y)
    offsets = (gr0 - gc0) + lags * step  # run time + offset = reference time
    shorter = min(int(np.isfinite(x).sum()), int(np.isfinite(y).sum()))
    need = max(MIN_OVERLAP_STEPS, math.ceil(0.5 * shorter))
    usable = np.isfinite(r) & (pairs >= need)
    if max_offset_s is not None:
        usable &= np.abs(offsets) <= max_offset_s + 1e-9
    def result(matching: bool, reason: str, best: float | None = None, off: float | None = None,
               next_best: float | None = None, nb_off: float | None = None, overlap: float | None = None
               ) -> ClockMatch:
        return ClockMatch(run_id, s.run_name, reference_run_id, ref.run_name, matching, off if matching else None,
                          best, off, next_best, nb_off, step, overlap, label, stored, reason, placed=placed)

    if not usable.any():
        why = (f"they never overlap by half of the shorter run ({need * step:g} s)" +
               (f" within {max_offset_s:g} s" if max_offset_s is not None else "") +
               ", or the activity does not vary where they do")
        return result(False, f"not matching: {why}")
    rr = np.where(usable, r, -np.inf)
    k = int(np.argmax(rr))
    best = float(rr[k])
    off = float(offsets[k]) + 0.0  # never -0
    if 0 < k < len(rr) - 1 and np.isfinite(rr[k - 1]) and np.isfinite(rr[k + 1]):
        den = rr[k - 1] - 2 * best + rr[k + 1]
        if den < 0:
            off += float(np.clip(0.5 * (rr[k - 1] - rr[k + 1]) / den, -0.5, 0.5)) * step
    off = round(off, 3) + 0.0  # a thousandth of a second is far below one step; never -0
    # the peak: the lags around the best where r stays above half of it; the next best is outside it
    lo, hi = k, k
    while lo > 0 and np.isfinite(r[lo - 1]) and r[lo - 1] > best / 2:
        lo -= 1
    while hi < len(r) - 1 and np.isfinite(r[hi + 1]) and r[hi + 1] > best / 2:
        hi += 1
    outside = rr.copy()
    outside[lo:hi + 1] = -np.inf
    nb_k = int(np.argmax(outside))
    next_best = float(outside[nb_k]) if np.isfinite(outside[nb_k]) else None
    nb_off = float(offsets[nb_k]) if next_best is not None else None
    overlap = float(pairs[k] * step)
    found = (best, off, next_best, nb_off, overlap)
    runner = f"; next best {next_best:.2f} at {nb_off:+.1f} s" if next_best is not None else ""
    if best < MIN_MATCH:
        return result(False, f"not matching: the best correlation of their {label} is {best:.2f} (at {off:+.1f} s), "
                             f"under {MIN_MATCH:g}: they did not see the same activity{runner}", *found)
    if next_best is not None and best - next_best < MIN_MARGIN:
        return result(False, f"not matching: {off:+.1f} s ({best:.2f}) and {nb_off:+.1f} s ({next_best:.2f}) match "
                             "about equally: the activity repeats, so no offset is sure", *found)
    where = f" (no time stamps: it starts {off:+.1f} s from the reference's start)" if placed else ""
    return result(True, f"matching: correlation {best:.2f} at {off:+.1f} s over {overlap:g} s{runner}{where}", *found)


def estimate_offsets(ws: Workspace, reference_run_id: int, run_ids: list[int], figure: str = "auto",
                     max_offset_s: float | None = None) -> list[ClockMatch]:
    """:func:`estimate_offset` of each run against the reference (the reference itself left out)."""
    return [estimate_offset(ws, rid, reference_run_id, figure, max_offset_s) for rid in run_ids
            if rid != reference_run_id]


def accept(ws: Workspace, m: ClockMatch) -> ClockOffset:
    """Store a matching estimate as the run's offset (app.store.clock); a pair not matching is refused."""
    from app.store.clock import ESTIMATED, set_offset

    if not m.matching or m.offset_s is None:
        raise AnalysisError(f"run {m.run_id} does not match run {m.reference_run_id}: no offset to accept")
    return set_offset(ws, m.run_id, m.offset_s, reference_run_id=m.reference_run_id, source=ESTIMATED,
                      match=m.match, step_s=m.step_s)
