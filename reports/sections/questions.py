"""One evidence section per stored question: the answer again, the chart that proves it (the cap line drawn, the
worst window highlighted, runs aligned on one axis, a scale that shows the level in question, each interval a
step), the table of numbers and per-phase rows where the run has phases.

The figures come from the question's ``Answer`` (``app.analysis.questions``), never recomputed here, and print
through the same formats as the Answers page (``fmt_value``, ``fmt_pct``), so a number reads the same on page 1
and in its section.
"""

from __future__ import annotations

from typing import Any

from app.analysis.numbers import fmt_pct, fmt_pct_value, fmt_span, fmt_value
from app.analysis.questions import COMPARE_METRICS, one_interval_burst
from app.analysis.text import pct_bounds
from parsers.kinds import IOMARK, LATENCY_HISTOGRAMS, TIME_SERIES, has, kind_label
from reports.conclusions import verdict_words
from reports.content import Chart, Section, Table, _device_rule, _heatmap, _ratio, _vm_disk, ms
from reports.context import ReportContext
from reports.sections import question_section
from reports.sections.overlay import log_scale

COLUMN_WORDS = {"iops": ("IOPS", "IOPS per interval"), "read_iops": ("IOPS", "read IOPS per interval"),
                "write_iops": ("IOPS", "write IOPS per interval"), "kbs": ("kB/s", "kB/s per interval"),
                "read_kbs": ("kB/s", "read kB/s per interval"), "write_kbs": ("kB/s", "write kB/s per interval"),
                "await_ms": ("ms", "mean await per interval (ms)")}


def key(n: int) -> str:
    return f"q{n}"


def _open(ctx: ReportContext, n: int, a: Any) -> Section:
    """The section of question ``n`` with its answer restated at the top."""
    sec = Section(key(n), f"{n}. {a.title}")
    from reports.content import clean

    number = f" · {clean(a.number, ctx.an, ctx.opt)}." if a.number else ""
    sec.para(f"Answer: {verdict_words(a)}{number} {clean(a.reason, ctx.an, ctx.opt)}")
    return sec


def _notes(sec: Section, a: Any, ctx: ReportContext) -> None:
    from app.analysis.questions import RUN_NUMBER

    names = ctx.names()
    notes = [RUN_NUMBER.sub(lambda m: names.get(int(m.group(1)), m.group(0)), str(x)) for x in a.notes]
    if notes:
        sec.para("Notes: " + "; ".join(n.rstrip(".") for n in dict.fromkeys(notes)) + ".")


def _lines(ctx: ReportContext, a: Any, column: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """The chart lines of the answer's runs (aligned and resampled as the question says) and their series. Runs
    aligned on their first activity are drawn from that moment (time 0) on: the quiet reports before it would
    start the chart at negative times."""
    from app.analysis.questions import evidence_series

    series = evidence_series(ctx.ws, a)
    lines = []
    for s in series:
        if s.frame.height == 0 or column not in s.frame.columns:
            continue
        t0, t1, y = s.col("t_start_s").tolist(), s.col("t_end_s").tolist(), s.col(column).tolist()
        if s.align.get("mode") == "activity":
            keep = [i for i, b in enumerate(t1) if b > 0]
            t0, t1, y = [max(0.0, t0[i]) for i in keep], [t1[i] for i in keep], [y[i] for i in keep]
        lines.append({"label": ctx.name(s.run_id), "t0": t0, "t": t1, "y": y})
    return lines, series


def _axis(series: list[Any]) -> str:
    ref = series[0].align.get("reference", "start of the run") if series else "start of the run"
    return f"seconds from the {ref}"


def _phase_rows(ctx: ReportContext, rep: Any) -> Table | None:
    """The phases of a storm report on the chart's axis (a run aligned on its start: the report's own times)."""
    if not rep.phases:
        return None
    rows = [[ctx.an.text(ph.name), fmt_span(ph.t_start_s, ph.t_end_s), fmt_value(pm.peak_iops, "IOPS"),
             fmt_value(pm.mean_iops, "IOPS"), fmt_value(round(pm.total_ios) if pm.total_ios is not None else None),
             fmt_pct(pm.read_share) if pm.read_share is not None else "-"] for ph, pm in rep.phases]
    how = "as stored with the run" if rep.phase_source == "stored" else "detected from the I/O level"
    return Table(f"Phases ({how})",
                 ["Phase", "Time", "Peak interval", "Mean", "I/Os", "Reads"], rows,
                 note="Time: seconds from the start of the run, as on the chart. Peak interval: the highest interval "
                      "of the phase; mean: its I/Os divided by its length.")


# ---- did the cap hold ----------------------------------------------------------------------------------------
@question_section("cap")
def cap(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    res = a.evidence.results[0]
    chart = a.evidence.chart
    column = chart.get("column", "iops")
    lines, series = _lines(ctx, a, column)
    unit, ylabel = COLUMN_WORDS.get(column, (chart.get("unit", ""), column))
    if lines:
        refs = [{"value": ln["value"], "label": ln["label"], "style": "cap" if k % 2 == 0 else "limit"}
                for k, ln in enumerate(a.evidence.lines) if ln.get("unit") == unit]
        bands = [{"t0": r["t_start_s"], "t1": r["t_end_s"], "label": r["label"].split(" (")[0],
                  "style": "worst" if r["label"].startswith("worst") else "over"} for r in a.evidence.ranges]
        log = bool(chart.get("log")) or log_scale(lines, [r["value"] for r in refs])
        devices = _device_rule(series[0], ctx.an) if series else ""
        sec.chart(Chart("lines", f"{ylabel[:1].upper() + ylabel[1:]} of {ctx.name(sq.question.run_id)} against the cap"
                        + (" (logarithmic scale)" if log else ""),
                        {"lines": lines, "x": _axis(series), "y": unit, "log": log, "refs": refs, "bands": bands}))
        over = any(b["style"] == "over" for b in bands)
        sec.para(f"The I/O of {devices} summed. The red dashed line is the "
                 "cap, the orange dotted line the cap plus its tolerance; the dark band is the worst window"
                 + (", the light bands the intervals above the cap plus tolerance." if over else
                    "; no interval went above the cap plus tolerance.")
                 + (" The value axis is logarithmic so that the cap's level stays visible beside the peaks."
                    if log else ""))
    rows = []
    for c in res.checks:
        ww = c.worst_window or {}
        what = {"iops": "IOPS", "bw": "throughput"}[c.metric] + ("" if c.op == "total" else f" ({c.op}s)")
        limit = f"{fmt_value(c.limit, c.unit)} (+ {fmt_pct_value(c.tolerance_pct)})"
        rows.append([what, fmt_value(c.cap, c.unit), limit,
                     fmt_value(c.window_s, "s"), f"{c.windows_over:,} of {c.windows_judged:,}",
                     f"{fmt_value(ww.get('average'), c.unit)} at {fmt_span(ww.get('t_start_s'), ww.get('t_end_s'))}"
                     if ww else "-", fmt_value(c.plateau, c.unit), fmt_pct(c.over_cap_share)])
    sec.table(Table("The check", ["Figure", "Cap", "Limit", "Window", "Windows above the limit", "Worst window",
                                  "Median interval", "Time above the limit"], rows,
                    note="Windows: every run of consecutive intervals at least the window long, sliding one interval "
                         "at a time; the verdict judges their averages against the limit. Time above the limit: the "
                         "share of the judged time spent in single intervals above it. Median interval: the median "
                         "rate of all judged intervals, idle ones included."
                         + "".join(f" {c.missing_reports} report{'s' if c.missing_reports != 1 else ''} missing (a "
                                   "disk absent from them: a gap): not judged, and no window spans them, never "
                                   "counted as 0." for c in res.checks[:1] if c.missing_reports)))
    _notes(sec, a, ctx)  # no phase table: the windows answer the cap question (the phases are a storm's)
    ctx.methods.append(("cap", res.method))
    return sec


# ---- storm profile -------------------------------------------------------------------------------------------
STORM_FIGURES = (("peak_iops", "Peak interval", "IOPS"), ("plateau_iops", "Plateau (sustained level)", "IOPS"),
                 ("time_to_peak_s", "Time to peak", "s"), ("time_above_s", "Time above half the peak", "s"),
                 ("settle_time_s", "Settle time", "s"), ("total_ios", "Total I/Os", ""),
                 ("mean_await_ms", "Mean await", "ms"))


@question_section("storm_profile")
def storm(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    rep = a.evidence.results[0]
    m = rep.run
    lines, series = _lines(ctx, a, "iops")
    if lines:
        refs = [{"value": ln["value"], "label": ln["label"] + f" {fmt_value(ln['value'], 'IOPS')}", "style": "level"}
                for ln in a.evidence.lines]
        bands = [{"t0": r["t_start_s"], "t1": r["t_end_s"], "label": ctx.an.text(r["label"]),
                  "style": "worst" if r["label"] == "peak" else "phase"} for r in a.evidence.ranges]
        sec.chart(Chart("lines", f"IOPS per interval of {ctx.name(sq.question.run_id)}",
                        {"lines": lines, "x": _axis(series), "y": "IOPS", "log": False, "refs": refs, "bands": bands}))
        sec.para("The dark band is the peak interval, the shaded bands are the phases; the dashed line is the plateau "
                 "(the glossary defines it).")
    rows = []
    for attr, label, unit in STORM_FIGURES:
        v = getattr(m, attr)
        if attr == "total_ios" and v is not None:
            v = round(v)
        if attr == "plateau_iops" and one_interval_burst(m):  # a burst of one interval: no sustained level
            rows.append([label, "– (a burst of one interval)"])
            continue
        rows.append([label, ms(v) if unit == "ms" else fmt_value(v, unit)])
    rows.insert(1, ["Peak at", fmt_span(m.peak_t_start_s, m.peak_t_end_s)])
    if m.read_share is not None:
        rows.append(["Reads", fmt_pct(m.read_share) + ("" if m.read_share_basis == "I/Os" else " (by kB)")])
    if m.missing_reports:  # a disk absent from reports mid-run: those reports are a gap, not 0 IOPS
        rows.append(["Reports missing", f"{m.missing_reports} (a disk absent from them: left out of every figure, "
                                        "not counted as 0 IOPS)"])
    sec.table(Table("Storm figures", ["Figure", "Value"], rows, widths=[0.45, 0.55],
                    note="To peak: from the start of the first activity to the end of the peak interval. Settle: from "
                         "the peak to the first 3 consecutive intervals below 10 % of the peak. Await is interval-"
                         "level: a mean per interval, not the time of single I/Os."))
    if (t := _phase_rows(ctx, rep)) is not None:
        sec.table(t)
    _notes(sec, a, ctx)
    ctx.methods.append(("storm", rep.method))
    return sec


# ---- compare runs ----------------------------------------------------------------------------------------------
def _on_one_clock(ctx: ReportContext, run_ids: list[int]) -> str:
    """What a chart on clock time assumes: one moment at one place on every line, and each corrected clock."""
    from app.store.clock import get_offset

    fixed = [f"run {rid}'s clock is corrected by {o.words()}" for rid in run_ids
             if (o := get_offset(ctx.ws, rid)) is not None]
    return ("The runs are on one clock (time 0 is the earliest start among them), so one moment is at one place on "
            "every line" + (": " + "; ".join(fixed) if fixed else "") + ".")


@question_section("compare")
def compare(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    from reports.sections.compare import KEY_FIGURES, compare_rows

    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    cmp = a.evidence.results[0]
    q = sq.question
    column = a.evidence.chart.get("column", "iops")
    lines, series = _lines(ctx, a, column)
    unit, ylabel = COLUMN_WORDS.get(column, ("", column))
    if lines:
        log = log_scale(lines, [])
        align = ("their first activity (three consecutive intervals above 100 IOPS)" if q.align == "activity"
                 else f"their marker '{q.align[7:]}'" if q.align.startswith("marker:")
                 else f"their second {q.align[7:]}" if q.align.startswith("offset:") else "their start")
        sec.chart(Chart("lines", f"{ylabel[:1].upper() + ylabel[1:]}, the runs aligned on one axis"
                        + (" (logarithmic scale)" if log else ""),
                        {"lines": lines, "x": _axis(series), "y": unit, "log": log, "refs": [], "bands": []}))
        before = (" The quiet reports before each run's first activity are not drawn." if q.align == "activity"
                  else "")
        said = (_on_one_clock(ctx, [r["run_id"] for r in cmp.runs]) if q.align == "clock" else
                f"The runs are aligned on {align}, so time 0 is the same moment of each run's storm.{before}")
        sec.para(said + (" The value axis is logarithmic: the runs' levels differ by more than five times." if log
                         else ""))
    names = [ctx.name(r["run_id"]) for r in cmp.runs]
    sec.table(Table(f"Figures side by side (baseline {names[0]})", ["Figure", "Unit", *names],
                    compare_rows(cmp, True, {*KEY_FIGURES, q.metric}),
                    note="In brackets: each run's figure divided by the baseline's. Time above half the peak uses one "
                         "level for every run (half the baseline's peak).", key_cols=2))
    label = COMPARE_METRICS[q.metric][0]
    prow = []
    by_name = (cmp.method.get("phases") or {}).get("matched_by") == "name"
    for ph in (cmp.phases if by_name else []):  # phases matched by position compare unrelated stretches: left out
        row = next((r for r in ph["metrics"] if r["metric"] == q.metric), None)
        if row is not None and any(v is not None for v in row["values"]):
            prow.append([ctx.an.text(ph["phase"]), *[_cell(v, row.get("unit", "")) for v in row["values"]],
                         *([_ratio(row["ratio"][-1])] if len(names) == 2 else [])])
    if prow:
        sec.table(Table(f"{label[:1].upper() + label[1:]} per phase", ["Phase", *names,
                                                                        *(["Ratio"] if len(names) == 2 else [])],
                        prow, note="Phases matched by their stored names."))
    _notes(sec, a, ctx)
    ctx.methods.append(("compare", cmp.method))
    return sec


def _cell(v: float | None, unit: str) -> str:
    if unit == "fraction":
        return fmt_pct(v)
    if unit.startswith("ms"):
        return ms(v)
    return fmt_value(v, {"I/Os": ""}.get(unit, unit))


# ---- response-time goal ------------------------------------------------------------------------------------------
@question_section("response_time")
def response(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None:
        return sec
    q = sq.question
    thr = fmt_value(q.threshold_ms, "ms")
    rows = []
    for r in a.evidence.results:
        where = ctx.name(r["run_id"]) + (f", {vm_disk(r['disk'], ctx)}" if r.get("disk") else "")
        share = _share_words(r["share"], bool(r.get("exact")), r["bounds"], r.get("estimate"))
        verdict = {True: "met", False: "not met", None: "cannot tell"}[r["passed"]]
        ios = r.get("ios")
        rows.append([where, fmt_value(round(ios)) if ios is not None else "-", share, verdict,
                     {"latency histogram": "histogram", "iostat await": "interval await",
                      IOMARK: kind_label(IOMARK)}.get(r.get("basis"), r.get("basis") or "")])
    sec.table(Table(f"Share of I/O within {thr} (goal {fmt_pct_value(q.goal_pct)})",
                    ["Where", "I/Os", f"Within {thr}", "Goal", "Measured by"], rows,
                    note="Exact when the threshold is an edge of the histogram's buckets; otherwise the bounds the "
                         "true share lies in, with a clearly marked estimate by linear interpolation."))
    for rid in a.evidence.run_ids:
        run = ctx.ws.run(rid)
        if run and has(run.kind, TIME_SERIES) and has(run.kind, LATENCY_HISTOGRAMS):
            drawn = _per_vm(ctx, sec, rid, q.threshold_ms, q.goal_pct, a.evidence.devices.get(rid))
            heat = None if drawn else _heatmap(ctx.ws, rid, ctx.an)  # the VM charts say it per collection already
            if heat:
                sec.chart(heat)
    _notes(sec, a, ctx)
    ctx.methods.append(("latency", "latency histograms"))
    return sec


def _per_vm(ctx: ReportContext, sec: Section, run_id: int, threshold_ms: float, goal_pct: float,
            devices: list[str] | None) -> bool:
    """The VMs of a vscsiStats run over time: who ran alone and who together, IOPS and the share within the
    threshold per collection, plotted over minutes, and a row per phase (alone / with another VM)."""
    from app.analysis.vm_timeline import vm_timeline

    tl = vm_timeline(ctx.ws, run_id, threshold_ms)
    disks = [d for d in tl.disks if not devices or d.device in devices]
    if not disks:
        return False
    name = ctx.name(run_id)
    # the VM-by-VM story is told by the answer (who suffered most, when) and the table below (alone, together)
    thr = fmt_value(threshold_ms, "ms")
    unit = "minutes" if tl.times_known else "collection"
    if tl.times_known:
        iops_lines, share_lines = [], []
        for d in disks:
            cols = [c for c in d.collections if c.t_start_min is not None]
            label = vm_disk(d.device, ctx)
            iops_lines.append({"label": label, "t0": [c.t_start_min for c in cols], "t": [c.t_end_min for c in cols],
                               "y": [c.iops or 0.0 for c in cols]})
            sh = [(c, best) for c in cols if c.share is not None and (best := c.share.best) is not None]
            share_lines.append({"label": label, "t0": [c.t_start_min for c, _ in sh],
                                "t": [c.t_end_min for c, _ in sh], "y": [best * 100 for _, best in sh]})
        sec.chart(Chart("lines", f"IOPS of each VM disk of {name}, per collection",
                        {"lines": iops_lines, "x": "minutes from the start of the first collection", "y": "IOPS",
                         "log": False, "refs": [], "bands": []}))
        if any(ln["t"] for ln in share_lines):
            estimated = any(c.share is not None and not c.share.exact for d in disks for c in d.collections)
            sec.chart(Chart("lines", f"Share of I/O within {thr} of each VM disk, per collection"
                            + (" (some collections estimated)" if estimated else ""),
                            {"lines": share_lines, "x": "minutes from the start of the first collection",
                             "y": f"% of I/O within {thr}", "log": False, "bands": [],
                             "refs": [{"value": goal_pct, "label": f"goal {fmt_pct_value(goal_pct)}", "style": "cap"}],
                             "ymax": 100, "ymin": _share_floor(share_lines, goal_pct)}))
    rows = []
    for d in disks:
        for p in d.phases:
            with_ = _with(p, ctx)
            when = (f"{_minutes(p.t_start_min)}–{_minutes(p.t_end_min)}" if p.t_start_min is not None
                    else f"{p.first + 1}–{p.last + 1}")
            rows.append([vm_disk(d.device, ctx), with_, when, fmt_value(p.iops, "IOPS") if p.iops is not None
                         else f"{p.ios:,} I/Os", _share_cell(p.share)])
    below = [f"{vm_disk(d.device, ctx)} {_with(p, ctx)} ({_when_words(p)}: {fmt_pct(p.share.best)}"
             f"{'' if p.share.exact else ', estimate'})"
             for d in disks for p in d.phases if p.share is not None and p.share.best is not None
             and p.share.best * 100 < goal_pct]
    if below:
        sec.para(f"The goal of {fmt_pct_value(goal_pct)} is judged over each disk's whole run; phases below it: "
                 + "; ".join(below) + ".")
    if rows:
        sec.table(Table(f"Each VM disk of {name}, alone and together", ["VM disk", "Running", unit.capitalize(),
                                                                       "IOPS", f"Within {thr}"], rows,
                        note="IOPS: the I/Os of the phase's collections divided by their length (exact). A VM disk is "
                             "running when its rate is at least 5 % of the busiest collection of the run."))
    return tl.times_known


def _share_floor(lines: list[dict[str, Any]], goal_pct: float) -> float:
    """The lower end of a share axis: 10 % steps below the lowest share and the goal, so the lines and the goal
    are not squeezed into the top strip of a 0-100 % axis."""
    low = min([v for ln in lines for v in ln["y"]] + [goal_pct])
    return max(0.0, (low - 2) // 10 * 10)


def _with(p: Any, ctx: ReportContext) -> str:
    return "alone" if p.alone else "with " + ", ".join(vm_disk(o, ctx) for o in p.others)


def _when_words(p: Any) -> str:
    if p.t_start_min is not None:
        return f"minutes {_minutes(p.t_start_min)}–{_minutes(p.t_end_min)}"
    return f"collections {p.first + 1}–{p.last + 1}"


def _minutes(v: float | None) -> str:
    return "-" if v is None else f"{v:,.{0 if float(v).is_integer() else 1}f}"


def _share_words(share: float | None, exact: bool, bounds: Any, estimate: float | None) -> str:
    """A share within the threshold: the value ('(exact)' when it is), else its bounds and the estimate, printed
    with the same decimals."""
    if share is not None:
        return fmt_pct(share) + (" (exact)" if exact else "")
    lo_b, hi_b = bounds
    lo, hi, est = pct_bounds(lo_b, hi_b, estimate)
    return f"{lo} to {hi}" + (f", estimate {est}" if estimate is not None else "")


def _share_cell(f: Any) -> str:
    """A vm_timeline Figure of a share (None: no I/O)."""
    if f is None:
        return "-"
    return _share_words(f.value if f.exact else None, f.exact, (f.lo, f.hi), f.estimate)


def _sentence(story: str) -> str:
    return story if story.endswith(".") else story + "."


def vm_disk(dev: str, ctx: ReportContext) -> str:
    return _vm_disk(dev, ctx.an)


# ---- how many disks --------------------------------------------------------------------------------------------
@question_section("sizing")
def sizing(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    from reports.sections.sizing import sizing_params, sizing_section

    q = sq.question
    if a.error is None and q.iops_per_user is not None:
        verdicts: list[str] = []
        sec = sizing_section(ctx.opt.merged(sizing=sizing_params(q)), verdicts, ctx.values, ctx.methods,
                             key=key(n), title=f"{n}. {a.title}")
        head = _open(ctx, n, a)
        sec.paragraphs.insert(0, head.paragraphs[0])
        sec.order = [("p", 0)] + [(k, i + 1 if k == "p" else i) for k, i in sec.order]
        _measured_vs_assumed(ctx, sec, q)
        return sec
    sec = _open(ctx, n, a)
    if a.error is None:
        rows = [[f.label, fmt_value(f.value, "")] for f in a.figures]
        sec.table(Table("Disks", ["Case", "Disks"], rows))
    _notes(sec, a, ctx)
    return sec


def _measured_vs_assumed(ctx: ReportContext, sec: Section, q: Any) -> None:
    """How the storms measured in this report compare with the storm load per user the sizing assumes: the storm
    questions' peaks and plateaus, per VM when the consultant gave the number of VMs of the measured run."""
    assumed = q.iops_per_user_storm if q.iops_per_user_storm is not None else (
        q.iops_per_user * q.storm_multiplier if q.storm_multiplier else None)
    storms = [a for _sq, a in ctx.answered if a.kind == "storm_profile" and a.error is None and a.evidence.results]
    if assumed is None or not storms:
        return
    parts = []
    for a in storms:
        m = a.evidence.results[0].run
        parts.append(f"{ctx.name(a.evidence.run_ids[0])} peaked at {fmt_value(m.peak_iops, 'IOPS')} with a plateau "
                     f"of {fmt_value(m.plateau_iops, 'IOPS')}")
    users_equiv = [(ctx.name(a.evidence.run_ids[0]), a.evidence.results[0].run.plateau_iops / assumed)
                   for a in storms if a.evidence.results[0].run.plateau_iops]
    eq = "; ".join(f"{nm}'s plateau equals {fmt_value(u)} users at the storm's {fmt_value(assumed, 'IOPS')} per user"
                   for nm, u in users_equiv)
    sec.para("Measured storms against the assumption: " + "; ".join(parts) + ". " + (eq + ". " if eq else "")
             + "How many desktops a measured run held decides whether its storm is above or below the "
               "per-user assumption; the sizing above uses the assumption.")
