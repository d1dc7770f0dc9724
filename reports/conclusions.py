"""Conclusions and recommendations, drawn from the answers (no Qt, no PDF): one line per answer that calls for an
action or settles a decision, with the number it rests on and the answer it comes from, as a consultant closes a
report ("size for 54 disks, or add cache"). Nothing here is measured again: the figures are the answers' own
(``Answer.evidence.results``) and the sections' findings.
"""

from __future__ import annotations

from typing import Any

from app.analysis.numbers import fmt_pct, fmt_pct_value, fmt_value


def main_check(a: Any) -> Any | None:
    """The cap check that decides a cap answer (its result's own verdict), or None (an Iometer run's means)."""
    res: Any = a.evidence.results[0] if a.evidence.results else None
    checks = getattr(res, "checks", None)
    if not checks:
        return None
    return next((c for c in checks if c.verdict == res.verdict), checks[0])


def verdict_words(a: Any) -> str:
    """The answer's verdict in words with one meaning each: a run with no cap in force is "Not capped" (never "Not
    held"), a run that never reached the cap "Not reached" (it cannot show the cap works)."""
    if a.kind == "cap" and a.error is None:
        c = main_check(a)
        if c is not None and c.verdict == "not capped":
            return "Not capped"
        if c is not None and c.verdict == "held (cap not reached)":
            return "Not reached"
    return {"met": "Met", "not met": "Not met", "held": "Held", "not held": "Not held",
            "information": "Information"}[a.verdict]


def _cap(a: Any, run: str, n: int) -> str | None:
    c = main_check(a)
    if c is None:
        return None
    cap = fmt_value(c.cap, c.unit)
    if c.verdict == "NOT held":
        worst = fmt_value((c.worst_window or {}).get("average"), c.unit)
        return (f"The {cap} cap on {run} is not enforced ({c.windows_over} of {c.windows_judged} windows above it, the "
                f"worst at {worst}): check the limit's setting and its burst allowance, then test again ({n}).")
    if c.verdict == "not capped":
        return (f"No {cap} cap was in force on {run} (it ran at a median of {fmt_value(c.plateau, c.unit)}): set the "
                f"cap on the device the test used, then test again ({n}).")
    if c.verdict == "held (cap not reached)":
        return (f"{run} never reached its {cap} cap: a test that drives more than {cap} is needed to show the cap "
                f"works ({n}).")
    if c.verdict == "held":
        return f"The {cap} cap holds on {run}: the limit can be relied on at this load ({n})."
    return None


def _response(a: Any, n: int) -> str | None:
    rows = [r for r in a.evidence.results if isinstance(r, dict)]
    if not rows:
        return None
    goal = fmt_pct_value(rows[0]["goal_pct"])
    thr = fmt_value(rows[0]["threshold_ms"], "ms")
    if a.verdict == "not met":
        low = min((r["share"] for r in rows if r.get("share") is not None), default=None)
        return (f"Response times miss the goal of {goal} within {thr}" + (f" (as low as {fmt_pct(low)})" if low is
                                                                        not None else "")
                + f": more disks or a cache in front of them (SSD tier, host cache) are needed before the users come "
                  f"({n}).")
    if a.verdict == "met" and "suffered most" in str(a.reason):
        return (f"Response times meet the goal of {goal} over each run, but dip below it while VMs share the disks: "
                f"spread their busy times (boot and scan schedules) or give the shared disks more IOPS ({n}).")
    if a.verdict == "met":
        return f"Response times meet the goal of {goal} within {thr} ({n})."
    return None


def _sizing(a: Any, n: int) -> str | None:
    ends = [r for r in a.evidence.results if hasattr(r, "disks_layout")]
    if not ends:
        return None
    if len(ends) >= 2:
        lo, hi = ends[0], ends[-1]
        heavy = "heavy users" if a.evidence.chart.get("ends", [""])[0].startswith("light") else "storm"
        light = "light users" if heavy == "heavy users" else "steady load"
        return (f"Size for {hi.disks_layout} disks ({hi.raid['label']}, the {heavy}); {lo.disks_layout} carry only the "
                f"{light}. Or add cache (an SSD tier or host cache) to absorb the peaks with fewer disks ({n}).")
    return f"The design needs {ends[0].disks_layout} disks ({ends[0].raid['label']}) ({n})."


def _compare(a: Any, names: Any, n: int) -> str | None:
    cmp: Any = a.evidence.results[0] if a.evidence.results else None
    by = {r["metric"]: r["values"] for r in getattr(cmp, "metrics", [])}
    peaks = by.get("peak_iops")
    if not peaks or len(peaks) != 2 or None in peaks or peaks[0] == peaks[1]:
        return None
    ids = [r["run_id"] for r in cmp.runs]
    hi = 0 if peaks[0] > peaks[1] else 1
    return (f"The storage must carry {names(ids[hi])}'s storm: {fmt_value(peaks[hi], 'IOPS')} at its peak, "
            f"{peaks[hi] / peaks[1 - hi]:.2f} times {names(ids[1 - hi])}'s; or spread the boots out (stagger them) "
            f"to keep the peak lower ({n}).")


def _storm(a: Any, run: str, n: int) -> str | None:
    rep = a.evidence.results[0] if a.evidence.results else None
    m = getattr(rep, "run", None)
    if m is None or m.plateau_iops is None or m.peak_iops is None:
        return None
    from app.analysis.questions import one_interval_burst

    if one_interval_burst(m):
        return (f"{run}'s storm is a burst of one interval ({fmt_value(m.peak_iops, 'IOPS')}): a cache or a short "
                f"burst allowance absorbs it; no sustained level to size for ({n}).")
    return (f"Plan for {run}'s sustained {fmt_value(m.plateau_iops, 'IOPS')} (its plateau, "
            f"{fmt_value(m.time_above_s, 's')} above half its peak), not only its single highest interval of "
            f"{fmt_value(m.peak_iops, 'IOPS')} ({n}).")


def _latency_source(a: Any, n: int) -> str | None:
    sp = a.evidence.results[0] if a.evidence.results else None
    source = getattr(sp, "source", None)
    if source == "array":
        return f"The latency comes from the array (DAVG): look at the array and its paths, not the hosts ({n})."
    if source == "host":
        return (f"The latency comes from queueing in ESXi (KAVG): raise the device queue depth or spread the VMs "
                f"over more datastores ({n}).")
    if source == "both":
        return f"Both the array (DAVG) and the host queue (KAVG) add latency: both need attention ({n})."
    return None


def _latency_path(a: Any, n: int) -> str | None:
    lp = a.evidence.results[0] if a.evidence.results else None
    if lp is None or lp.largest is None:
        return None
    share = fmt_pct(lp.shares.get(lp.largest))
    return {"davg_ms": f"Most of the guest's wait is in the array (DAVG, {share}): look at the array and its paths "
                       f"before the guests or the hosts ({n}).",
            "kavg_ms": f"Most of the guest's wait is in the hypervisor (KAVG, {share}): commands queue in ESXi -- "
                       f"look at the device queue depth and the number of VMs per datastore ({n}).",
            "guest_ms": f"Most of the guest's wait is in its own queue (estimated, {share}): the guest queues more "
                        f"than the host and the array take -- look at the guest's queue depth and its load "
                        f"({n})."}[lp.largest]


def _iomark(ctx: Any) -> str:
    """IOmark below its goal in every row: the calculation did not meet the response-time goal (the ETRI paper's
    conclusion: a cache in front of the disks)."""
    runs = (ctx.values.get("iometer_iomark") or {}).get("iomark") or []
    shares = [r["share_pct"] for s in runs for r in s.get("rows", []) if r.get("share_pct") is not None]
    goal = runs[0].get("goal_pct") if runs else None
    said = " → ".join(f"{v:.2f} %" for v in shares)
    return (f"IOmark's share of responses within the threshold stays below the {fmt_value(goal)} % goal ({said}): "
            "the disks the calculation gives do not meet the response-time goal; add a cache in front of them "
            "(SSD tier, controller or host cache) and measure again (IOmark).")


def _line(ctx: Any, a: Any, run: str, n: int) -> str | None:
    if a.kind == "cap":
        return _cap(a, run, n)
    if a.kind == "response_time":
        return _response(a, n)
    if a.kind == "sizing":
        return _sizing(a, n)
    if a.kind == "compare":
        return _compare(a, ctx.name, n)
    if a.kind == "storm_profile":
        return _storm(a, run, n)
    if a.kind == "latency_source":
        return _latency_source(a, n)
    if a.kind == "latency_path":
        return _latency_path(a, n)
    return None


def conclusions(ctx: Any) -> list[str]:
    """One line per answer that concludes something, in the answers' order, then the sections' findings that do."""
    out: list[str] = []
    for n, (sq, a) in enumerate(ctx.answered, 1):
        if a.error is not None:
            out.append(f"Question {n} could not be answered from the data: give it the runs it needs ({n}).")
            continue
        rid = sq.question.run_ids_used()[0] if sq.question.run_ids_used() else None
        run = ctx.name(rid) if rid is not None else ""
        line = _line(ctx, a, run, n)
        if line:
            out.append(line)
    for what, text in ctx.findings:
        if what == "IOzone" and " is faster than " in text:
            out.append(f"{text.split(':')[0]} (IOzone).")
        elif what == "IOmark" and "does not meet the goal" in text:
            out.append(_iomark(ctx))
        elif what == "Cross-check" and "disagree" in text:
            out.append(f"{text} Use fio's own figures for the workload and iostat's for the disk (cross-check).")
    return out
