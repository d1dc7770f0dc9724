"""The evidence of a storm-replay question ("Does the replay reproduce the storm?"): the original storm and the
replay on one time axis (the replay at the original's level: its IOPS divided by the scale), and the fidelity per
dimension with its verdict. The figures are the answer's (``app.analysis.replay.replay_check``)."""

from __future__ import annotations

from typing import Any

from app.analysis.numbers import fmt_value
from reports.content import Chart, Section, Table, ms
from reports.context import ReportContext
from reports.sections import question_section
from reports.sections.questions import _notes, _open


def _value(key: str, v: float | None) -> str:
    if v is None:
        return "–"
    if key == "iops":
        return f"{fmt_value(round(v))} I/Os"
    if key == "read_share":
        return f"{v * 100:.1f} % reads"
    if key == "request_size":
        return f"{v:.1f} kB"
    return ms(v)


def _figure(d: Any, timed: bool) -> str:
    v = d.figure
    if v is None:
        return "–"
    if d.key == "iops":  # fio's own report has no time line: it shows each phase's rate, not its timing
        return f"{v * 100:.1f} % at the right second" if timed else f"{v * 100:.1f} % in the right phase"
    if d.key == "read_share":
        return f"{v:.1f} points apart"
    if d.key == "latency" and d.original and d.replay is not None:
        return f"{d.replay / d.original:.2f} x the storm's"
    return f"{v * 100:.1f} % apart"


@question_section("replay")
def replay(ctx: ReportContext, n: int, sq: Any, a: Any) -> Section:
    sec = _open(ctx, n, a)
    if a.error is not None or not a.evidence.results:
        return sec
    res = a.evidence.results[0]
    step = res.every_s
    t0 = res.t
    t1 = [t + step for t in t0]
    orig, rep = ctx.name(res.original_run), ctx.name(res.replay_run)
    scale = f" / {res.scale:g}" if res.scale != 1 else ""
    sec.chart(Chart("lines", f"IOPS of the storm ({orig}) and of its replay ({rep}{scale}), on one time axis",
                    {"lines": [{"label": "the storm", "t0": t0, "t": t1, "y": res.original_iops},
                               {"label": f"the replay{scale}", "t0": t0, "t": t1, "y": res.replay_iops}],
                     "x": "seconds from the start of the replayed range", "y": "IOPS", "log": False, "refs": [],
                     "bands": []}))
    sec.para(f"Each {fmt_value(step, 's')} bin is drawn as a step. The replay's IOPS are divided by its scale "
             f"({res.scale:g}) so that both curves are on the storm's level; the replay is placed where the two curves "
             f"match best ({res.lag_s:+g} s from the start of its capture).")
    rows = [[d.label, _value(d.key, d.original), _value(d.key, d.replay), _figure(d, res.timed), d.verdict]
            for d in res.dimensions]
    sec.table(Table("Fidelity", ["Dimension", "Storm", "Replay", "Fidelity", "Verdict"], rows,
                    widths=[0.2, 0.2, 0.2, 0.24, 0.16],
                    note="IOPS over time: the share of the storm's I/O the replay did in the same bin (1 minus the "
                         "summed differences over the storm's I/Os), I/Os at the storm's level; faithful from 90 %, "
                         "approximate from 75 %. Read share: within 5 / 10 points. Request size: the mean kB per "
                         "request of reads and of writes, the larger difference; within 10 / 25 %. Response time: "
                         "what the replay's target answered -- the figure the replay measures, not part of the "
                         "verdict."))
    _notes(sec, a, ctx)
    ctx.methods.append(("storm replay", res.method()))
    return sec
