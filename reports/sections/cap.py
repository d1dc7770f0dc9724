"""Cap compliance of the iostat runs a cap is known for (the report's cap, a run's tag, or a cap question)."""

from __future__ import annotations

from typing import Any

from reports.content import Section, Table, _cap_sentence, fmt, num, pct
from reports.context import ReportContext
from reports.sections import section


def _cap_key(res: Any) -> list[tuple[Any, ...]]:
    """Two cap checks alike: the same devices, caps, tolerances and windows give the same figures."""
    used = tuple((res.method.get("series") or {}).get("devices", {}).get("used") or [])
    return [(used, c.metric, c.op, c.cap, c.tolerance_pct, c.window_s) for c in res.checks]


def cap_verdict(c: Any, name: str) -> str | None:
    """The executive-summary sentence of a cap check (None: "not capped", which is grouped over runs)."""
    unit = "IOPS" if c.metric == "iops" else "kB/s"
    worst = (c.worst_window or {}).get("average")
    if c.verdict == "not capped":
        return None
    if c.held is None:
        return f"The {num(c.cap)} {unit} cap could not be judged on {name}: {_cap_sentence(c)}."
    if c.verdict == "held (cap not reached)":
        return (f"The {num(c.cap)} {unit} cap was never reached on {name} (worst {num(c.window_s)} s window "
                f"{fmt(worst)} {unit}), so the run cannot show that it is enforced.")
    held = "held" if c.held else "did not hold"
    return (f"The {num(c.cap)} {unit} cap {held} on {name} (worst {num(c.window_s)} s window {fmt(worst)} {unit}, "
            f"tolerance {num(c.tolerance_pct)} %).")


def verdict_cell(c: Any) -> str:
    if c.verdict == "not capped":
        return "not capped"
    if c.verdict == "held (cap not reached)":
        return "held (not reached)"
    return {True: "held", False: "did not hold", None: "could not be judged"}[c.held]


CAP_NOTE = ("Worst window: the highest average over any window of consecutive intervals (at least 10 s long) that "
            "the verdict judges. Time over cap + tol.: the share of the judged time spent in single intervals above "
            "the cap plus its {tol} % tolerance (a count of intervals, not of windows; the verdict itself uses the "
            "windows). Plateau: the storm metrics' plateau (see the glossary); median interval: the median rate "
            "of all judged intervals, idle ones included.")
CAP_HEADER = ["Run", "Cap", "Verdict", "Plateau", "Median interval", "Worst window", "Time over cap + tol."]


def cap_row(name: str, c: Any, plateau: float | None) -> list[str]:
    unit = "IOPS" if c.metric == "iops" else "kB/s"
    return [name, f"{num(c.cap)} {unit}", verdict_cell(c), fmt(plateau) if c.metric == "iops" else "–",
            fmt(c.plateau), fmt((c.worst_window or {}).get("average")), pct(c.over_cap_share)]


TITLE = "Cap compliance"


@section("cap", title=TITLE, order=40)
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.bench_results import cap_for_run
    from app.analysis.cap import cap_report, set_aside

    series = ctx.series()
    if not series:
        return None
    q_caps: dict[int, list[Any]] = {}  # run -> the cap checks its questions computed
    for _sq, a in ctx.answered:
        if a.kind == "cap" and a.error is None:
            q_caps.setdefault(a.evidence.run_ids[0], []).extend(a.evidence.results)
    opt = ctx.opt
    not_capped: dict[tuple[float, str, float], list[tuple[str, float | None]]] = {}
    sec = Section("cap", TITLE)
    rows = []
    for r in ctx.iostat:
        if r.run_id not in series:
            continue
        # the cap that applies (app.analysis.cap.which_cap); a cap question's is judged by its answer, below
        applies = cap_for_run(ctx.ws, r.run_id, ctx.given_cap())
        results = [] if applies is None or applies.source == "question" else [
            cap_report(ctx.ws, r.run_id, opt.device, iops_cap=applies.iops, bw_cap_kbs=applies.bw_kbs,
                       op=applies.op, tolerance_pct=applies.tolerance_pct)]
        results += [x for x in q_caps.get(r.run_id, []) if _cap_key(x) not in map(_cap_key, results)]
        if not results:
            continue
        ctx.values.setdefault("cap", {})[r.run_id] = results[0].as_dict()
        ctx.covered.add(r.run_id)
        ctx.cap_runs.add(r.run_id)
        if r.run_id not in ctx.plateaus:
            ctx.plateaus[r.run_id] = ctx.storm(r.run_id).run.plateau_iops
        name = ctx.name(r)
        aside = None if applies is None else set_aside(applies, r)
        if aside is not None and applies is not None:
            who = "the cap question's" if applies.source == "question" else "the report's"
            sec.para(ctx.an.text(f"{name}: the run's tag names {aside}; {who} cap is the one judged."))
        for res in results:
            for c in res.checks:
                v = cap_verdict(c, name)
                if v is None:
                    unit = "IOPS" if c.metric == "iops" else "kB/s"
                    not_capped.setdefault((c.cap, unit, c.tolerance_pct), []).append((name, c.plateau))
                else:
                    ctx.verdicts.append(v)
                rows.append(cap_row(name, c, ctx.plateaus.get(r.run_id)))
                sec.para(ctx.an.text(f"{name}: {_cap_sentence(c)}."))
            ctx.methods.append(("cap", res.method))
    for (cap, unit, tol_pct), runs_over in not_capped.items():  # one line for all runs clearly over a cap
        if len(runs_over) == 1:
            (rn, med), = runs_over
            ctx.verdicts.append(f"No {num(cap)} {unit} cap was in force on {rn}: its median interval of "
                                f"{fmt(med)} {unit} is above the cap + {num(tol_pct)} %.")
        else:
            listed = "; ".join(f"{rn} ({fmt(med)} {unit})" for rn, med in runs_over)
            ctx.verdicts.append(f"No {num(cap)} {unit} cap was in force on {len(runs_over)} runs, whose median "
                                f"intervals are above the cap + {num(tol_pct)} %: {listed}.")
    if not rows:
        return None
    sec.order.insert(0, ("t", len(sec.tables)))
    sec.tables.append(Table("", CAP_HEADER, rows, note=CAP_NOTE.format(tol=num(opt.tolerance_pct))))
    return sec
