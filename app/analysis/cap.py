"""Cap compliance: did an IOPS and/or bandwidth cap hold (e.g. KVM/libvirt ``<iotune>`` limits)? No Qt.

Rule: a cap held when, after any burst allowance, every window of at least
``window_s`` (default 10 s) seconds averages at or below ``cap x (1 + tolerance)``; tolerance default
5 %. QEMU's leaky bucket lets short bursts of about +10 % over one second through, which a 10 s window
and a few % of tolerance absorb.

* Windows slide one report at a time over consecutive reports; a window holds
  ``ceil(window_s / interval)`` reports (a 2 s interval: 5 reports = 10 s), its average is the
  time-weighted mean rate. Windows that span a gap in the reports are skipped.
* Burst allowance (``burst_max`` x ``burst_s``, libvirt ``*_max`` / ``*_max_length``): one period of
  ``burst_s`` seconds starting at ``burst_start_s``, or by default at the start of the first report
  above the limit (QEMU's bucket starts full of credit; it only refills while the load stays below the
  cap, so one allowance is assumed). Windows that overlap the allowance are not judged; inside it the
  rate must stay at or below ``burst_max x (1 + tolerance)`` (when ``burst_max`` is given).
* Verdicts: ``held``; ``held (cap not reached)`` when even the worst window stays below
  ``cap x (1 - tolerance)`` -- the run cannot show that a cap is enforced; ``NOT held`` when some windows
  average above the limit while the run's median interval is within it (a cap is there but was broken in
  those windows); ``not capped`` when the median interval itself is above the limit (the run clearly exceeds
  the cap).
* Median interval (``median_interval`` / ``median_interval_iops`` in the results; ``plateau`` /
  ``plateau_iops`` are the same value under its old name, kept for scripts): the time-weighted median of the
  judged interval rates (robust to bursts and noise), the run's typical level. The window, the command line
  and the report call it the median interval and never the plateau: "plateau" is only the storm's figure
  (``app.analysis.storm``: the median of the intervals above half the peak).
* Over-cap share: the share of judged run time in intervals above the limit (and, strictly, above
  the cap itself).

iostat sees every I/O of the device: on a shared device, I/O from other processes counts against the
cap too. Read-only or write-only checks (``op``) help when only one side is capped.

Which cap applies to a run is decided here and nowhere else (:func:`which_cap`): a cap given for the job (the
command line's, the report's) if it names a figure, else the run's cap question (the first asked), else the run's
tags (``cap_iops``, ``cap_bw_kbs``, kB = 1,024 bytes). The first that exists is used whole: a given IOPS cap is not
combined with a bandwidth cap from a tag (a cap nobody stated). ``app.analysis.bench_results.cap_for_run`` reads
the stored questions and the run for it; the Iometer verdicts, the report's cap section and its chart's cap line
all ask that.

A time range (``t_range``, seconds of the run's time axis) judges only the reports whose midpoint lies
in ``[from, to)``: the verdict for a zoomed chart (``analyze cap --from S --to S``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.series import AnalysisError, Series, load_series, weighted_percentile
from parsers.kinds import kind_label

if TYPE_CHECKING:
    from app.run import Run
    from app.workspace import Workspace

DEFAULT_TOLERANCE_PCT = 5.0
DEFAULT_WINDOW_S = 10.0
MIN_WINDOW_S = 10.0

@dataclass(frozen=True)
class Cap:
    """A cap to judge and where it comes from."""

    iops: float | None = None
    bw_kbs: float | None = None
    op: str = "total"
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT
    source: str = "given"  # given (or the words of who gave it: "the report's cap") | question | run tag

    @property
    def names_a_figure(self) -> bool:
        return self.iops is not None or self.bw_kbs is not None

    def as_dict(self) -> dict[str, object]:
        return {"iops": self.iops, "bw_kbs": self.bw_kbs, "op": self.op, "tolerance_pct": self.tolerance_pct,
                "source": self.source}


def which_cap(given: Cap | None, asked: Sequence[Cap], run: Run | None) -> Cap | None:
    """THE rule for which cap applies to a run (module doc): ``given`` (the job's) if it names a figure, else the
    first of ``asked`` (the run's cap questions, in the order asked), else the run's tags judged on the total with
    the job's tolerance; None: no cap is known."""
    if given is not None and given.names_a_figure:
        return given
    for c in asked:
        if c.names_a_figure:
            return c
    if run is None:
        return None
    iops, bw = run.tag_number("cap_iops"), run.tag_number("cap_bw_kbs")
    if iops is None and bw is None:
        return None
    return Cap(iops, bw, "total", given.tolerance_pct if given is not None else DEFAULT_TOLERANCE_PCT, "run tag")


def set_aside(applied: Cap, run: Run) -> str | None:
    """What the run's tags say that :func:`which_cap` did not use because a cap given or asked came first, in
    words ("a 500 IOPS cap"); None when the tags name no other cap. Said beside the verdict: never a silent choice."""
    if applied.source == "run tag":
        return None
    tagged = [(run.tag_number("cap_iops"), "IOPS", applied.iops), (run.tag_number("cap_bw_kbs"), "kB/s",
                                                                     applied.bw_kbs)]
    other = [f"{v:,g} {unit}" for v, unit, used in tagged if v is not None and v != used]
    return f"a {' and '.join(other)} cap" if other else None


METRICS = {  # metric -> (column per op, unit)
    "iops": ({"total": "iops", "read": "read_iops", "write": "write_iops"}, "IOPS"),
    "bw": ({"total": "kbs", "read": "read_kbs", "write": "write_kbs"}, "kB/s"),
}


@dataclass
class CapCheck:
    metric: str  # iops | bw
    op: str
    unit: str
    cap: float
    tolerance_pct: float
    limit: float
    window_s: float
    window_reports: int
    held: bool | None = None
    verdict: str = ""
    explanation: str = ""
    plateau: float | None = None
    worst_window: dict[str, Any] | None = None
    windows_judged: int = 0
    windows_over: int = 0
    over_cap_share: float | None = None
    over_cap_share_strict: float | None = None
    over_spans: list[dict[str, Any]] = field(default_factory=list)
    burst: dict[str, Any] | None = None
    missing_reports: int = 0  # gap reports (a summed disk missing): not judged, no window spans them

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "median_interval": self.plateau}


@dataclass
class CapResult:
    run_id: int
    run_name: str
    held: bool | None
    verdict: str
    tolerance_pct: float
    plateau_iops: float | None
    worst_window_iops: float | None
    worst_window: dict[str, Any] | None
    over_cap_share: float | None
    checks: list[CapCheck]
    method: dict[str, Any]
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "checks"}
        d["median_interval_iops"] = self.plateau_iops  # plateau_iops: its old name, kept for scripts
        d["checks"] = [c.as_dict() for c in self.checks]
        return d


def _windows(ts: np.ndarray, te: np.ndarray, dt: np.ndarray, k: int) -> list[int]:
    """Start indices of windows of k consecutive reports with no gap between them (a slip of up to half an
    interval, or of the 1 s resolution of iostat's time stamps, is no gap)."""
    n = len(ts)
    out = []
    for i in range(n - k + 1):
        gaps = ts[i + 1:i + k] - te[i:i + k - 1]
        if np.all(np.abs(gaps) <= np.maximum(0.5 * dt[i:i + k - 1], 1.0) + 1e-9):
            out.append(i)
    return out


def _spans(over: np.ndarray, ts: np.ndarray, te: np.ndarray, v: np.ndarray, dt: np.ndarray,
           cap: float) -> list[dict[str, Any]]:
    """Consecutive intervals above the limit, each with its peak and the I/O (or kB) above the cap."""
    spans: list[dict[str, Any]] = []
    i, n = 0, len(over)
    while i < n:
        if not over[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and over[j + 1]:
            j += 1
        seg = slice(i, j + 1)
        k = i + int(np.argmax(v[seg]))
        spans.append({"t_start_s": float(ts[i]), "t_end_s": float(te[j]), "intervals": j - i + 1,
                      "peak": float(v[k]), "peak_t_end_s": float(te[k]),
                      "excess": float(np.sum((v[seg] - cap) * dt[seg]))})
        i = j + 1
    return spans


def level_verdict(plateau: float, worst: float, cap: float, tolerance_pct: float, windows_over: int = 0,
                  burst_ok: bool = True) -> tuple[bool, str]:
    """The one rule for "held" (see the module doc), from the run's median interval (``plateau``, its old name), its
    worst judged window average (``worst``) and the number of windows above ``cap x (1 + tolerance)``: (held,
    verdict)."""
    tol = tolerance_pct / 100.0
    if plateau > cap * (1 + tol):
        return False, "not capped"
    if windows_over or not burst_ok:
        return False, "NOT held"
    if worst < cap * (1 - tol):
        return True, "held (cap not reached)"
    return True, "held"


def check_mean(mean: float, metric: str, cap: float, *, op: str = "total",
               tolerance_pct: float = DEFAULT_TOLERANCE_PCT, length_s: float | None = None) -> CapCheck:
    """Check one cap against a single average over a whole test (a benchmark's own result, e.g. Iometer's), by the
    same rule as :func:`check_cap` with the test as its one window: the mean is both the level and the worst
    window. One average can only show that the MEAN stayed at or below the cap, not that every 10 s window did
    (a burst above the cap inside the test would not show), so the explanation says so."""
    _cols, unit = METRICS[metric]
    if cap <= 0:
        raise AnalysisError("a cap must be positive")
    if tolerance_pct < 0:
        raise AnalysisError("the tolerance cannot be negative")
    limit = cap * (1 + tolerance_pct / 100.0)
    length = float(length_s) if length_s else 0.0
    chk = CapCheck(metric, op, unit, cap, tolerance_pct, limit, length, 1)
    chk.plateau = float(mean)
    chk.worst_window = {"average": float(mean), "t_start_s": 0.0, "t_end_s": length}
    chk.windows_judged = 1
    chk.windows_over = int(mean > limit + 1e-9)
    chk.held, chk.verdict = level_verdict(mean, mean, cap, tolerance_pct, 0)
    u = unit
    basis = ("the test's mean over its whole length" + (f" ({length:,.0f} s)" if length else "")
             + f" ({mean:,.1f} {u})")
    only = ("; a single average over the test can only show the mean at or below the cap, not each 10 s window")
    if chk.verdict == "not capped":
        chk.explanation = (f"{basis} is above the cap + {tolerance_pct:g} % ({limit:,.1f} {u}): the test clearly "
                           "exceeds the cap, so no cap at this level was in force")
    elif chk.verdict == "held (cap not reached)":
        chk.explanation = (f"{basis} is under {cap * (1 - tolerance_pct / 100.0):,.1f} {u} (cap - "
                           f"{tolerance_pct:g} %): the load never reached the cap, so this test cannot show that "
                           "the cap is enforced" + only)
    else:
        chk.explanation = (f"{basis} is at or below {limit:,.1f} {u} (cap {cap:,.6g} + {tolerance_pct:g} %)"
                           + only)
    return chk


def check_cap(s: Series, metric: str, cap: float, *, op: str = "total", tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
              window_s: float = DEFAULT_WINDOW_S, burst_max: float | None = None, burst_s: float | None = None,
              burst_start_s: float | None = None) -> CapCheck:
    """Check one cap (``metric`` iops or bw, kB/s) on a series. See the module doc."""
    cols, unit = METRICS[metric]
    if cap <= 0:
        raise AnalysisError("a cap must be positive")
    if window_s < MIN_WINDOW_S:
        raise AnalysisError(f"windows must be at least {MIN_WINDOW_S:g} s long")
    if tolerance_pct < 0:
        raise AnalysisError("the tolerance cannot be negative")
    col = cols[op]
    if s.frame.get_column(col).null_count() == s.frame.height:
        what = "r/s and w/s" if metric == "iops" else "kB/s columns"
        raise AnalysisError(f"run {s.run_id} has no {what} for op {op!r} (plain reports only give totals)")
    tol = tolerance_pct / 100.0
    limit = cap * (1 + tol)
    v = np.nan_to_num(s.col(col))
    ts, te, dt = s.col("t_start_s"), s.col("t_end_s"), s.col("dt_s")
    interval = float(np.median(dt))
    k = max(1, math.ceil(window_s / interval - 1e-9))
    chk = CapCheck(metric, op, unit, cap, tolerance_pct, limit, k * interval, k)

    gap = s.gap_mask()  # a gap report has no figure: never judged as 0, and no window spans it
    chk.missing_reports = int(gap.sum())
    judged = ~gap
    if burst_s:
        start = burst_start_s
        if start is None:
            above = np.nonzero(v > limit)[0]
            start = float(ts[above[0]]) if len(above) else None
        if start is not None:
            end = start + burst_s
            inside = (te > start + 1e-9) & (ts < end - 1e-9)
            judged &= ~inside
            b: dict[str, Any] = {"t_start_s": start, "t_end_s": end, "length_s": burst_s, "max": burst_max,
                                 "start_rule": "given" if burst_start_s is not None else
                                 "start of the first report above the limit",
                                 "peak_inside": float(v[inside].max()) if inside.any() else None}
            if burst_max is not None:
                b["limit"] = burst_max * (1 + tol)
                b["held"] = bool(not inside.any() or v[inside].max() <= b["limit"])
            chk.burst = b
        else:
            chk.burst = {"t_start_s": None, "length_s": burst_s, "max": burst_max,
                         "note": "no report above the limit: the burst allowance was not used"}

    starts = [i for i in _windows(ts, te, dt, k) if judged[i:i + k].all()]
    if not starts:
        chk.verdict = "too short"
        chk.explanation = (f"no {k * interval:g} s window of consecutive reports outside the burst allowance: "
                           "nothing to judge")
        return chk
    avgs = np.array([np.sum(v[i:i + k] * dt[i:i + k]) / np.sum(dt[i:i + k]) for i in starts])
    w = int(np.argmax(avgs))
    wi = starts[w]
    chk.worst_window = {"average": float(avgs[w]), "t_start_s": float(ts[wi]), "t_end_s": float(te[wi + k - 1])}
    chk.windows_judged = len(starts)
    chk.windows_over = int(np.sum(avgs > limit + 1e-9))
    jv, jdt = v[judged], dt[judged]
    med = weighted_percentile(jv, jdt, 50)  # the run's one median: time-weighted, as the storm and compare figures
    chk.plateau = float(med) if med is not None else float(np.median(jv))
    total_t = float(jdt.sum())
    chk.over_cap_share = float(jdt[jv > limit + 1e-9].sum() / total_t) if total_t else None
    chk.over_cap_share_strict = float(jdt[jv > cap + 1e-9].sum() / total_t) if total_t else None
    over = judged & (v > limit + 1e-9)
    chk.over_spans = _spans(over, ts, te, v, dt, cap)
    burst_ok = chk.burst is None or chk.burst.get("held", True)
    u = unit
    chk.held, chk.verdict = level_verdict(chk.plateau, float(avgs.max()), cap, tolerance_pct, chk.windows_over,
                                          burst_ok)
    if chk.verdict == "not capped":
        chk.explanation = (f"the run's median interval ({chk.plateau:,.1f} {u}) is above the cap + "
                           f"{tolerance_pct:g} % ({limit:,.1f} {u}): the run clearly exceeds the cap, so no cap "
                           "at this level was in force")
    elif chk.verdict == "NOT held":
        parts = []
        if chk.windows_over:
            parts.append(f"{chk.windows_over} of {chk.windows_judged} {k * interval:g} s windows average above "
                         f"{limit:,.1f} {u} (cap {cap:,.6g} + {tolerance_pct:g} %); worst "
                         f"{avgs[w]:,.1f} {u} at {chk.worst_window['t_start_s']:g}-{chk.worst_window['t_end_s']:g} s")
        if not burst_ok and chk.burst is not None:
            parts.append(f"inside the burst allowance the rate reached {chk.burst['peak_inside']:,.1f} {u}, above "
                         f"the burst max {burst_max:,.6g} + {tolerance_pct:g} %")
        chk.explanation = ("the cap did NOT hold: " + "; ".join(parts)
                           + f". The run otherwise sits at its median interval of {chk.plateau:,.1f} {u}, "
                           "so a cap is present but was exceeded in those windows")
    elif chk.verdict == "held (cap not reached)":
        chk.explanation = (f"every window stays below the cap; the worst window ({avgs[w]:,.1f} {u}) is under "
                           f"{cap * (1 - tol):,.1f} {u} (cap - {tolerance_pct:g} %): the load never reached the "
                           "cap, so this run cannot show that the cap is enforced")
    else:
        chk.explanation = (f"all {chk.windows_judged} {k * interval:g} s windows average at or below "
                           f"{limit:,.1f} {u} (cap {cap:,.6g} + {tolerance_pct:g} %); worst {avgs[w]:,.1f} {u}, "
                           f"median interval {chk.plateau:,.1f} {u}")
    return _with_gaps(chk)


def _with_gaps(chk: CapCheck) -> CapCheck:
    """The explanation says how many reports were missing (a gap: left out, no window spans them)."""
    n = chk.missing_reports
    if n:
        chk.explanation += (f"; {n} report{'s' if n != 1 else ''} missing (a disk absent: a gap) left out, and no "
                            "window spans them")
    return chk


def cap_report(ws: Workspace, run_id: int, device: str | None = None, *, iops_cap: float | None = None,
               bw_cap_kbs: float | None = None, op: str = "total", tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
               window_s: float = DEFAULT_WINDOW_S, burst_iops: float | None = None, burst_kbs: float | None = None,
               burst_s: float | None = None, burst_start_s: float | None = None,
               t_range: tuple[float, float] | None = None) -> CapResult:
    """Check the caps given on a run's series (whole disks by default); ``t_range``: see the module doc."""
    if iops_cap is None and bw_cap_kbs is None:
        raise AnalysisError("give an IOPS cap and/or a bandwidth cap")
    if op not in ("total", "read", "write"):
        raise AnalysisError(f"unknown op {op!r}: total, read or write")
    s = load_series(ws, run_id, device)
    if t_range is not None:
        from app.analysis.storm import range_text, window_range

        s = window_range(s, t_range)
        s.notes = [*s.notes, f"{range_text(t_range)} (reports whose midpoint lies in it): {s.frame.height} intervals"]
        if s.frame.height == 0:
            raise AnalysisError(f"run {run_id} has no report in the range ({range_text(t_range)})")
    checks = []
    common: dict[str, Any] = {"op": op, "tolerance_pct": tolerance_pct, "window_s": window_s, "burst_s": burst_s,
              "burst_start_s": burst_start_s}
    if iops_cap is not None:
        checks.append(check_cap(s, "iops", iops_cap, burst_max=burst_iops, **common))
    if bw_cap_kbs is not None:
        checks.append(check_cap(s, "bw", bw_cap_kbs, burst_max=burst_kbs, **common))
    # plateau and worst window of the IOPS series are reported even for a bandwidth-only check
    iops_chk = checks[0] if checks[0].metric == "iops" else None
    if iops_chk is None:
        try:
            iops_chk = check_cap(s, "iops", 1e18, **common)
        except AnalysisError:
            iops_chk = None
    helds = [c.held for c in checks]
    held = None if any(h is None for h in helds) else all(helds)
    order = ["not capped", "NOT held", "too short", "held (cap not reached)", "held"]
    verdict = min((c.verdict for c in checks), key=order.index)
    main = checks[0]
    method = {
        "series": s.method(),
        "rule": f"windows of >= {window_s:g} s (whole reports, sliding by one report) after the burst allowance "
                f"must average at or below cap x (1 + {tolerance_pct:g} %)",
        "window_s": window_s, "tolerance_pct": tolerance_pct, "op": op,
        "burst": {"iops_max": burst_iops, "kbs_max": burst_kbs, "length_s": burst_s, "start_s": burst_start_s,
                  "rule": "one allowance of the burst length from its start (default: the first report above the "
                          "limit); windows overlapping it are not judged"} if burst_s else None,
        "median_interval": "time-weighted median of the judged interval rates (the run's typical level); "
                           "plateau / plateau_iops: the same value under its old name",
        "range_s": None if t_range is None else [float(x) if math.isfinite(x) else None for x in t_range],
        "over_cap_share": "share of judged run time in intervals above cap x (1 + tolerance); "
                          "the strict share: above the cap itself",
        "verdicts": "held | held (cap not reached) | NOT held (median interval within the cap, some windows "
                    "above) | not capped (median interval above the cap) | too short",
    }
    notes = list(s.notes)
    tool = kind_label(ws.kind_of(run_id) or "iostat")
    notes.append(f"{tool} counts every I/O of the device: I/O of other processes on it counts against the cap too")
    return CapResult(
        run_id, s.run_name, held, verdict, tolerance_pct,
        iops_chk.plateau if iops_chk else None,
        iops_chk.worst_window["average"] if iops_chk and iops_chk.worst_window else None,
        iops_chk.worst_window if iops_chk else None,
        main.over_cap_share, checks, method, notes)
