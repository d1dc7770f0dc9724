"""Questions as first-class objects of the workspace, and their answers (no Qt).

A consultant's deliverable answers questions ("did the 200 IOPS cap hold on this run?", "how many disks
for 100 users?"), it does not tour every run. The window, the command line (``main.py question ...``)
and the report share the questions stored here and the answers computed here.

Kinds (typed dataclasses; ``params`` is their JSON)
    ``compare``        :class:`CompareQuestion`       runs side by side (run_ids, metric, align, phases, device,
                                                      every_s) -- app.analysis.compare.compare_runs
    ``cap``            :class:`CapQuestion`           did an IOPS and/or bandwidth cap hold on a run (run_id,
                                                      device: None = whole disks, iops_cap, bw_cap_kbs, op,
                                                      tolerance_pct, window_s) -- app.analysis.cap.cap_report;
                                                      on an Iometer run each test's mean by the same rule
                                                      (app.analysis.bench_results, cap.check_mean)
    ``response_time``  :class:`ResponseTimeQuestion`  is the response-time goal met on these runs / VM disks
                                                      (run_ids, disks: None = every disk, threshold_ms,
                                                      goal_pct) -- app.analysis.sizing.response_time_check,
                                                      which reads the latency histograms per VM disk
                                                      (app.analysis.histograms.latency_share)
    ``sizing``         :class:`SizingQuestion`        how many disks (users; iops_per_user, with
                                                      iops_per_user_storm for a light..heavy users range, or
                                                      measured_run + vms; read_pct, raid, disk_type or
                                                      disk_iops, gb_per_user + disk_gb, storm_multiplier,
                                                      profile) -- app.analysis.sizing.size_vdi, once per end
    ``storm_profile``  :class:`StormQuestion`         storm profile of a run (run_id, device, phases, every_s)
                                                      -- app.analysis.storm.storm_report
    ``latency_source`` :class:`LatencySourceQuestion` is the latency within the guidance, and does it come from
                                                      the array (DAVG) or the host (KAVG)? (run_id, device,
                                                      davg_ms, kavg_ms) -- app.analysis.host_latency.latency_split
    ``latency_path``   :class:`LatencyPathQuestion`   where the time of a guest's I/O goes: its queue (await −
                                                      GAVG, estimated), the hypervisor (KAVG), the array (DAVG);
                                                      a guest run beside an esxtop run on one clock (run_id,
                                                      host_run, device, host_device) --
                                                      app.analysis.latency_path.latency_path
    ``vm_load``        :class:`VmLoadQuestion`        which VM drives the load; its latency alone and while
                                                      another VM is active (run_id) -- host_latency.vm_load
    ``knee``           :class:`KneeQuestion`          how many desktops before the response-time goal breaks
                                                      (run_ids at increasing load, threshold_ms, goal_pct,
                                                      statistic share | mean, iops_per_user or profile, points,
                                                      device, every_s) -- app.analysis.knee.knee
    ``replay``         :class:`ReplayQuestion`        does a replay reproduce a measured storm (run_id,
                                                      replay_run, t_start_s/t_end_s or phase, scale, device,
                                                      replay_device, every_s) -- app.analysis.replay.replay_check

    ``library``        :class:`LibraryQuestion`       how does this engagement compare with the library (run_id,
                                                      library, desktops, workload, hypervisor) --
                                                      app.analysis.library.compare_with_library

``question_from_params(kind, params)`` builds and validates one; a bad value raises :class:`QuestionError`
whose ``field`` is the parameter's key and whose ``str()`` names it in a customer's words
(``FIELD_LABELS``: "Tolerance: must be 0 % or more, not -5"); the command line maps ``field`` to its flag.

Storage: the ``questions`` table (``question_id``, ``position`` 1..n, ``kind``, ``title`` -- NULL = the
generated one --, ``params`` JSON, ``created_at``). Every write is one transaction:

    add_question(ws, q, title=None, position=None) -> StoredQuestion
    list_questions(ws) -> [StoredQuestion] in position order      get_question(ws, qid) -> StoredQuestion
    edit_question(ws, qid, params=None, title=None) -> StoredQuestion   (params merged over the stored ones;
                                                      a None value drops a parameter; title "" = generated)
    move_question(ws, qid, to) -> [StoredQuestion]   delete_question(ws, qid) -> None   (positions renumbered)

Answers: ``answer(ws, question, names=None) -> Answer`` (``question``: a Question or a StoredQuestion;
``names``: run id -> the name to print, e.g. anonymised ones; default the run names). It raises the
analyses' ``AnalysisError`` when the data cannot answer; ``answer_stored(ws, sq, names)`` turns such an
error into an ``information`` answer that says why (``Answer.error``), and ``answer_all(ws, names)`` gives
``[(StoredQuestion, Answer)]`` for every stored question in order (the report's page 1). Titles:
``StoredQuestion.heading(names)`` (the user's title, else ``describe(question, names)``); kinds in words:
``KIND_LABELS``. ``QuestionError.missing``: the question or a run it names does not exist.

    Answer.verdict   "met" | "not met" | "held" | "not held" | "information"
    Answer.figures   [Figure]: the number(s) that decide it, each with value, unit, what it is compared
                     with (``limit``) and its text ("worst 10 s window 203 IOPS vs cap 200 IOPS + 5 % =
                     210 IOPS"); a sizing range has one figure per end (8 IOPS per user: 18 disks; 25: 54)
    Answer.number    the figures' texts joined: what page 1 prints beside the verdict
    Answer.reason    one sentence in a customer's words (a ``Note`` when it names a fix: ``str()`` is the
                     window and PDF wording, ``render("cli")`` the command line's)
    Answer.evidence  :class:`Evidence`: what a section charts and tabulates -- run ids, devices, time
                     ranges to highlight (worst window, peak, spans over the limit), reference lines (cap,
                     cap + tolerance), chart hints (series column, alignment, log scale), ``results``:
                     the analyses' own objects (CapResult, StormReport, Comparison, SizingResult per end,
                     response-time dicts per disk), never recomputed here, and ``tables`` (sizing:
                     ``what_if``, the disks per RAID level x disk type x end)
    Answer.notes     caveats (strings or Notes)

``evidence_series(ws, answer)`` loads the series a chart draws (aligned and resampled as the question says).

Numbers in texts go through :func:`app.analysis.numbers.fmt_value` (the report's, the window's and the command
line's one number format, owned by :mod:`app.analysis.numbers`; one format per quantity and value: whole numbers without
decimals, other values under 1,000 with one, larger ones rounded to whole; ms with two decimals), time
ranges through :func:`fmt_span` (26–36 s) and shares through :func:`fmt_pct` (98.90 %); the raw values stay
in ``Figure.value`` and in the results.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.analysis.numbers import fmt_pct, fmt_pct_value, fmt_span, fmt_value, pct_bounds
from app.analysis.question_kinds import COMPARE_METRICS as COMPARE_METRICS
from app.analysis.question_kinds import FIELD_LABELS as FIELD_LABELS
from app.analysis.question_kinds import KIND_LABELS as KIND_LABELS
from app.analysis.question_kinds import KINDS as KINDS
from app.analysis.question_kinds import OPS as OPS
from app.analysis.question_kinds import PHASE_CHOICES as PHASE_CHOICES
from app.analysis.question_kinds import UNIT_WORDS as UNIT_WORDS
from app.analysis.question_kinds import CapQuestion as CapQuestion
from app.analysis.question_kinds import CompareQuestion as CompareQuestion
from app.analysis.question_kinds import KneeQuestion as KneeQuestion
from app.analysis.question_kinds import LatencyPathQuestion as LatencyPathQuestion
from app.analysis.question_kinds import LatencySourceQuestion as LatencySourceQuestion
from app.analysis.question_kinds import LibraryQuestion as LibraryQuestion
from app.analysis.question_kinds import Question as Question
from app.analysis.question_kinds import QuestionError as QuestionError
from app.analysis.question_kinds import ReplayQuestion as ReplayQuestion
from app.analysis.question_kinds import ResponseTimeQuestion as ResponseTimeQuestion
from app.analysis.question_kinds import SizingQuestion as SizingQuestion
from app.analysis.question_kinds import StoredQuestion as StoredQuestion
from app.analysis.question_kinds import StormQuestion as StormQuestion
from app.analysis.question_kinds import VmLoadQuestion as VmLoadQuestion
from app.analysis.question_kinds import add_question as add_question
from app.analysis.question_kinds import delete_question as delete_question
from app.analysis.question_kinds import describe as describe
from app.analysis.question_kinds import edit_question as edit_question
from app.analysis.question_kinds import get_question as get_question
from app.analysis.question_kinds import list_questions as list_questions
from app.analysis.question_kinds import move_question as move_question
from app.analysis.question_kinds import question_from_params as question_from_params
from app.errors import AnalysisError, Note
from app.run import Run
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, IOMARK, JOB_SUMMARY, LATENCY_HISTOGRAMS, has
from parsers.plugins import Registry

VERDICTS = ("met", "not met", "held", "not held", "information")
# ---- answers ---------------------------------------------------------------------------------------------
@dataclass
class Figure:
    """A number that decides (or states) an answer."""

    label: str  # what it is: "worst 10 s window"
    value: float | None
    unit: str
    text: str  # label, value and comparison in words
    limit: float | None = None  # what it is compared with
    limit_text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Evidence:
    """What a report section or a view shows for an answer (see the module doc)."""

    run_ids: list[int] = field(default_factory=list)
    devices: dict[int, list[str]] = field(default_factory=dict)
    ranges: list[dict[str, Any]] = field(default_factory=list)  # {run_id, t_start_s, t_end_s, label}
    lines: list[dict[str, Any]] = field(default_factory=list)  # {value, unit, label}
    chart: dict[str, Any] = field(default_factory=dict)  # {column, align, log, stepped, ...}
    results: list[Any] = field(default_factory=list)  # the analyses' objects (as_dict for JSON)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # sizing: "what_if"

    def as_dict(self) -> dict[str, Any]:
        return {"run_ids": self.run_ids, "devices": {str(k): v for k, v in self.devices.items()},
                "ranges": self.ranges, "lines": self.lines, "chart": self.chart,
                "results": [r.as_dict() if hasattr(r, "as_dict") else r for r in self.results],
                "tables": self.tables}


@dataclass
class Answer:
    question_id: int | None
    kind: str
    title: str
    verdict: str
    figures: list[Figure]
    reason: str
    evidence: Evidence
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # the data could not answer (answer_all)

    @property
    def number(self) -> str:
        return "; ".join(f.text for f in self.figures)

    def as_dict(self) -> dict[str, Any]:
        return {"question_id": self.question_id, "kind": self.kind, "title": self.title, "verdict": self.verdict,
                "number": self.number, "figures": [f.as_dict() for f in self.figures], "reason": self.reason,
                "evidence": self.evidence.as_dict(), "notes": self.notes, "error": self.error}


# question kind -> the function that answers it (registered beside it with @answers)
ANSWERS: Registry[Callable[..., Answer]] = Registry("question answer")


def answers(kind: type[Question]) -> Callable[[Callable[..., Answer]], Callable[..., Answer]]:
    """Register the decorated function as the answer of question kind ``kind``."""
    return ANSWERS.register(kind.KIND)


def run_names(ws: Workspace) -> dict[int, str]:
    return {h.run_id: h.name for h in ws.run_heads()}  # the names only: no Run made of each of 100,000 runs


def answer(ws: Workspace, question: Question | StoredQuestion, names: dict[int, str] | None = None) -> Answer:
    """Answer a question from the workspace's data (see the module doc). Raises AnalysisError when the data
    cannot answer (no such run, no histogram, ...)."""
    stored = question if isinstance(question, StoredQuestion) else None
    q = stored.question if stored else question
    assert isinstance(q, Question)
    q.validate()
    names = {**run_names(ws), **(names or {})}
    for rid in q.run_ids_used():
        if ws.run(rid) is None:
            raise AnalysisError(f"there is no run {rid} in this workspace (was it deleted?)")
    fn = ANSWERS[q.KIND]
    a: Answer = fn(ws, q, names)
    a.question_id = stored.question_id if stored else None
    a.title = stored.heading(names) if stored else describe(q, names)
    assert a.verdict in VERDICTS, a.verdict
    return a


def evidence_series(ws: Workspace, a: Answer) -> list[Any]:
    """The series a chart of ``a`` draws: each iostat run of its evidence on the question's devices, aligned
    (``chart["align"]``) and resampled (``chart["every_s"]``) as the question says (app.analysis.series.run_series:
    t = 0 at the reference, so compared runs share one axis)."""
    from app.analysis.series import runs_on_one_axis

    rids = [rid for rid in a.evidence.run_ids if (run := ws.run(rid)) is not None and has(run.kind, DEVICE_RATES)]
    chart = a.evidence.chart
    return runs_on_one_axis(ws, rids, chart.get("device"), align_mode=chart.get("align", "start"),
                            every_s=chart.get("every_s"))


def answer_stored(ws: Workspace, sq: StoredQuestion, names: dict[int, str] | None = None) -> Answer:
    """``answer`` of a stored question; when the data cannot answer it, an ``information`` answer that says
    why (``Answer.error``: the window's words; ``Answer.reason`` a Note that the command line renders its way)."""
    try:
        return answer(ws, sq, names)
    except AnalysisError as e:
        allnames = {**run_names(ws), **(names or {})}
        named = AnalysisError(RUN_NUMBER.sub(lambda m: allnames.get(int(m.group(1)), m.group(0)), e.message),
                              e.fix, **e.params)  # "run 3 has ..." -> "capped_200iops_iostat-d has ..."
        why = Note("This question cannot be answered from the data: " + named.message, e.fix, **e.params)
        return Answer(sq.question_id, sq.kind, sq.heading(allnames), "information", [], why,
                      Evidence(sq.question.run_ids_used()), error=str(named))


RUN_NUMBER = re.compile(r"\brun (\d+)\b")


def answer_all(ws: Workspace, names: dict[int, str] | None = None) -> list[tuple[StoredQuestion, Answer]]:
    """Every stored question with its answer (``answer_stored``), in order."""
    return [(sq, answer_stored(ws, sq, names)) for sq in list_questions(ws)]


# ---- one answer per kind ---------------------------------------------------------------------------------
@answers(CapQuestion)
def _answer_cap(ws: Workspace, q: CapQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.bench_results import iometer_runs
    from app.analysis.cap import cap_report

    if q.run_id in iometer_runs(ws):  # a benchmark's own averages, no intervals
        return _answer_cap_averages(ws, q, names)
    res = cap_report(ws, q.run_id, q.device, iops_cap=q.iops_cap, bw_cap_kbs=q.bw_cap_kbs, op=q.op,
                     tolerance_pct=q.tolerance_pct, window_s=q.window_s)
    main = next(c for c in res.checks if c.verdict == res.verdict)  # the check that decides the run's verdict
    run = names[q.run_id]
    figures, lines, ranges = [], [], []
    for c in sorted(res.checks, key=lambda c: c is not main):
        op = "" if c.op == "total" else f" {c.op}"
        limit_text = (f"cap {fmt_value(c.cap, c.unit)} + {fmt_pct_value(c.tolerance_pct)} = "
                      f"{fmt_value(c.limit, c.unit)}")
        label = f"worst {fmt_value(c.window_s, 's')} window{op}"
        ww = c.worst_window
        val = ww["average"] if ww else None
        text = (f"{label} {fmt_value(val, c.unit)} vs {limit_text}" if ww
                else f"no {fmt_value(c.window_s, 's')} window to judge ({limit_text})")
        figures.append(Figure(label, val, c.unit, text, c.limit, limit_text))
        lines += [{"value": c.cap, "unit": c.unit, "label": f"cap {fmt_value(c.cap, c.unit)}"},
                  {"value": c.limit, "unit": c.unit, "label": f"cap + {fmt_pct_value(c.tolerance_pct)}"}]
        if ww:
            ranges.append({"run_id": q.run_id, "t_start_s": ww["t_start_s"], "t_end_s": ww["t_end_s"],
                           "label": f"{label} ({c.unit})"})
        ranges += [{"run_id": q.run_id, "t_start_s": sp["t_start_s"], "t_end_s": sp["t_end_s"],
                    "label": f"above {fmt_value(c.limit, c.unit)}"} for sp in c.over_spans]
    c, u = main, main.unit
    win = fmt_value(c.window_s, "s")
    lim = fmt_value(c.limit, u)
    capt = f"the {fmt_value(c.cap, u)} cap + {fmt_pct_value(c.tolerance_pct)}"
    worst = fmt_value(c.worst_window["average"], u) if c.worst_window else "-"
    if c.verdict == "held":
        verdict = "held"
        reason = (f"Every {win} window of {run} averaged at or below {lim} ({capt}); the highest averaged {worst}.")
    elif c.verdict == "held (cap not reached)":
        verdict = "held"
        reason = (f"The cap was never reached on {run}: the highest {win} window averaged {worst}, under "
                  f"{fmt_value(c.cap * (1 - c.tolerance_pct / 100), u)} (the cap - "
                  f"{fmt_pct_value(c.tolerance_pct)}), so this run cannot show that the cap is enforced.")
    elif c.verdict == "NOT held":
        ww = c.worst_window or {}
        reason = (f"{c.windows_over} of the {c.windows_judged} windows of {win} on {run} averaged above {lim} "
                  f"({capt}), "
                  f"the worst {worst} at {fmt_span(ww.get('t_start_s'), ww.get('t_end_s'))}, "
                  f"while the run otherwise stayed at its median interval of {fmt_value(c.plateau, u)}.")
        verdict = "not held"
    elif c.verdict == "not capped":
        verdict = "not held"
        reason = (f"{run} ran at a median interval of {fmt_value(c.plateau, u)}, above {lim} "
                  f"({capt}): no cap at this level was in force.")
    else:
        verdict = "information"
        reason = f"{run} has no {win} window of consecutive reports to judge the cap on."
    col = {"iops": {"total": "iops", "read": "read_iops", "write": "write_iops"},
           "bw": {"total": "kbs", "read": "read_kbs", "write": "write_kbs"}}[c.metric][c.op]
    peak = max((sp["peak"] for sp in c.over_spans), default=c.worst_window["average"] if c.worst_window else 0.0)
    ev = Evidence([q.run_id], {q.run_id: res.method["series"]["devices"]["used"]}, ranges, lines,
                  {"column": col, "unit": u, "align": "start", "stepped": True, "device": q.device,
                   "log": bool(peak and peak > 20 * c.cap)}, [res])
    return Answer(None, q.KIND, "", verdict, figures, reason, ev, list(res.notes))


def _answer_cap_averages(ws: Workspace, q: CapQuestion, names: dict[int, str]) -> Answer:
    """A cap question on an Iometer run: each test's mean judged by the cap check's rule (one average per test:
    the mean at or below the cap, not every window; the reason says so)."""
    from app.analysis.bench_results import Cap, cap_text, iometer_summary, mean_text

    res = iometer_summary(ws, q.run_id, Cap(q.iops_cap, q.bw_cap_kbs, q.op, q.tolerance_pct, "question"),
                          name=names[q.run_id])
    figures = []
    checks = res.checks()
    deciding = [(r, c) for r, c in checks if c.verdict != "held (cap not reached)"] or checks
    for r, c in deciding:  # a test that never reached a cap decides nothing while another reached it
        limit_text = f"cap {cap_text(c)} + {fmt_pct_value(c.tolerance_pct)}"
        label = f"mean of {r.access_spec} on {r.target}"
        figures.append(Figure(label, c.plateau, c.unit, f"{label} {mean_text(c)} vs {limit_text}", c.limit,
                              limit_text))
    verdict = {"held": "held", "not held": "not held"}.get(res.verdict, "information")
    lines = [{"value": c, "unit": u, "label": f"cap {fmt_value(c, u)}"}
             for c, u in ((q.iops_cap, "IOPS"), (q.bw_cap_kbs, "kB/s")) if c is not None]
    return Answer(None, q.KIND, "", verdict, figures, res.answer, Evidence([q.run_id], {}, [], lines), res.notes)


@answers(StormQuestion)
def _answer_storm(ws: Workspace, q: StormQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.storm import storm_report

    rep = storm_report(ws, q.run_id, q.device, phases=q.phases, every_s=q.every_s)
    m = rep.run
    run = names[q.run_id]
    if m.peak_iops is None:
        raise AnalysisError(f"{run} has no reports to describe")
    figures = [Figure("peak", m.peak_iops, "IOPS", f"peak {fmt_value(m.peak_iops, 'IOPS')} at "
                      f"{fmt_span(m.peak_t_start_s, m.peak_t_end_s)}")]
    if m.plateau_iops is not None and not one_interval_burst(m):
        figures.append(Figure("plateau", m.plateau_iops, "IOPS", f"plateau {fmt_value(m.plateau_iops, 'IOPS')}"))
    parts = [f"{run} peaked at {fmt_value(m.peak_iops, 'IOPS')} in the interval "
             f"{fmt_span(m.peak_t_start_s, m.peak_t_end_s)}, {fmt_value(m.time_to_peak_s, 's')} after "
             + ("the first activity" if m.activity_start_s is not None else "the start")]
    if one_interval_burst(m):
        parts.append("its busy part was that one interval: a burst, with no sustained level beside it")
    elif m.plateau_iops is not None:
        parts.append(f"its sustained level (plateau) was {fmt_value(m.plateau_iops, 'IOPS')}")
    parts.append(f"it settled {fmt_value(m.settle_time_s, 's')} after the peak" if m.settle_time_s is not None
                 else "it did not settle before the end of the data")
    reason = "; ".join(parts) + "."
    ranges = [{"run_id": q.run_id, "t_start_s": m.peak_t_start_s, "t_end_s": m.peak_t_end_s, "label": "peak"}]
    ranges += [{"run_id": q.run_id, "t_start_s": ph.t_start_s, "t_end_s": ph.t_end_s, "label": ph.name}
               for ph, _pm in rep.phases]
    lines = [] if m.plateau_iops is None else [{"value": m.plateau_iops, "unit": "IOPS", "label": "plateau"}]
    ev = Evidence([q.run_id], {q.run_id: rep.method["series"]["devices"]["used"]}, ranges, lines,
                  {"column": "iops", "unit": "IOPS", "align": "start", "stepped": True, "phases": rep.phase_source,
                   "device": q.device, "every_s": q.every_s},
                  [rep])
    return Answer(None, q.KIND, "", "information", figures, reason, ev, list(rep.notes))


def one_interval_burst(m: Any) -> bool:
    """A storm whose busy part (the intervals above half its peak) is its peak interval alone: a burst. Its
    "plateau" is that interval's rate; the word is kept for a sustained level (issue 26: "held a plateau of
    854 IOPS" was said of a 1-second spike)."""
    if m.peak_t_start_s is None or m.peak_t_end_s is None or m.time_above_s is None:
        return False
    return bool(m.time_above_s <= (m.peak_t_end_s - m.peak_t_start_s) + 1e-9)


@answers(LatencySourceQuestion)
def _answer_latency_source(ws: Workspace, q: LatencySourceQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.host_latency import GUIDANCE_WORDS, latency_split

    sp = latency_split(ws, q.run_id, q.device, q.davg_ms, q.kavg_ms)
    run, m = names[q.run_id], sp.mean
    if not sp.intervals:
        raise AnalysisError(f"{run} has no interval with commands")

    def over(what: str, n: int, limit: float, worst: dict[str, Any] | None) -> Figure:
        text = f"{what} above {fmt_value(limit, 'ms')} in {n:,} of {sp.intervals:,} intervals"
        if worst:
            text += f" (worst {fmt_value(worst['value'], 'ms')} at {fmt_span(worst['t_start_s'], worst['t_end_s'])})"
        return Figure(f"intervals with {what} above the guidance", n, "intervals", text, limit,
                      fmt_value(limit, "ms"))

    figures = [over("DAVG", sp.davg_over, q.davg_ms, sp.worst_davg), over("KAVG", sp.kavg_over, q.kavg_ms,
                                                                          sp.worst_kavg)]
    split = (f"mean GAVG {fmt_value(m['gavg_ms'], 'ms')} = KAVG {fmt_value(m['kavg_ms'], 'ms')} + DAVG "
             f"{fmt_value(m['davg_ms'], 'ms')} per command")
    share = sp.davg_share
    where = {"array": "the array (DAVG, the time below the host's driver)",
             "host": "the host (KAVG: commands queueing in ESXi)",
             "both": "both the array (DAVG) and the host queue (KAVG)"}.get(sp.source)
    if where:
        reason = f"On {run} the latency above the guidance comes from {where}: {split}"
    else:
        reason = f"On {run} DAVG and KAVG stay within the guidance in every interval: {split}"
    reason += f" (DAVG {fmt_pct(share)} of it)." if share is not None else "."
    ranges = [{"run_id": q.run_id, "t_start_s": w["t_start_s"], "t_end_s": w["t_end_s"], "label": f"worst {what}"}
              for what, w in (("DAVG", sp.worst_davg), ("KAVG", sp.worst_kavg)) if w]
    lines = [{"value": q.davg_ms, "unit": "ms", "label": "DAVG guidance"},
             {"value": q.kavg_ms, "unit": "ms", "label": "KAVG guidance"}]
    ev = Evidence([q.run_id], {q.run_id: sp.devices}, ranges, lines,
                  {"column": "latency_split", "unit": "ms", "align": "start", "stepped": True, "device": q.device},
                  [sp])
    return Answer(None, q.KIND, "", "not met" if where else "met", figures, reason, ev,
                  [f"Guidance: {GUIDANCE_WORDS}.", *sp.notes])


@answers(LatencyPathQuestion)
def _answer_latency_path(ws: Workspace, q: LatencyPathQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.latency_path import PART_WORDS, PARTS, latency_path

    lp = latency_path(ws, q.run_id, q.host_run, q.device, q.host_device)
    guest, host, m = names[q.run_id], names[q.host_run], lp.mean
    est = {"guest_ms": " (estimated)", "kavg_ms": "", "davg_ms": ""}
    figures = [Figure("mean response time in the guest", m["await_ms"], "ms",
                      f"the guest waited {fmt_value(m['await_ms'], 'ms')} per I/O (its await) over "
                      f"{lp.intervals:,} intervals")]
    for p in PARTS:
        figures.append(Figure(PART_WORDS[p] + est[p], m[p], "ms",
                              f"{PART_WORDS[p]}{est[p]}: {fmt_value(m[p], 'ms')} ({fmt_pct(lp.shares[p])})"))
    parts = ", ".join(f"{fmt_value(m[p], 'ms')} ({fmt_pct(lp.shares[p])}) {PART_WORDS[p]}{est[p]}" for p in PARTS)
    reason = (f"Of the {fmt_value(m['await_ms'], 'ms')} {guest} waited per I/O, {parts}: most of it "
              f"{PART_WORDS[lp.largest or 'davg_ms']}. Host {host}: GAVG {fmt_value(m['gavg_ms'], 'ms')} = KAVG "
              f"{fmt_value(m['kavg_ms'], 'ms')} + DAVG {fmt_value(m['davg_ms'], 'ms')}, over the same intervals and "
              "weighed by the guest's I/O.")
    w = lp.worst
    ranges = [] if w is None else [{"run_id": q.host_run, "t_start_s": w["t_start_s"], "t_end_s": w["t_end_s"],
                                    "label": "longest guest wait"}]
    ev = Evidence([q.run_id, q.host_run], {q.run_id: lp.guest_devices, q.host_run: lp.host_devices}, ranges, [],
                  {"column": "latency_path", "unit": "ms", "align": "clock", "stepped": True, "device": q.device},
                  [lp])
    return Answer(None, q.KIND, "", "information", figures, reason, ev, list(lp.notes))


@answers(VmLoadQuestion)
def _answer_vm_load(ws: Workspace, q: VmLoadQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.host_latency import vm_load

    vl = vm_load(ws, q.run_id)
    top = vl.vms[0]
    figures = [Figure(f"share of the commands, {v.vm}", v.share, "fraction", f"{v.vm} {fmt_pct(v.share)}")
               for v in vl.vms[:3]]
    reason = " ".join(vl.story)
    ev = Evidence([q.run_id], {q.run_id: [d for v in vl.vms for d in v.disks]}, [], [],
                  {"column": "vm_commands", "unit": "commands/s", "align": "start", "stepped": True,
                   "top_vm": top.vm}, [vl])
    return Answer(None, q.KIND, "", "information", figures, reason, ev, list(vl.notes))


@answers(CompareQuestion)
def _answer_compare(ws: Workspace, q: CompareQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.compare import compare_runs

    cmp = compare_runs(ws, q.run_ids, q.device, every_s=q.every_s, phases=q.phases)
    label, column = COMPARE_METRICS[q.metric]
    row = next((r for r in cmp.metrics if r["metric"] == q.metric), None)
    if row is None:
        raise AnalysisError(f"these runs have no {label} to compare")
    unit = UNIT_WORDS.get(row["unit"], row["unit"])

    def val(v: float | None) -> str:
        return fmt_pct(v) if row["unit"] == "fraction" else fmt_value(v, unit)

    figures = []
    for i, rid in enumerate(q.run_ids):
        v = row["values"][i]
        text = f"{names[rid]} {val(v)}"
        if i and row["ratio"][i] is not None:
            text += f" ({row['ratio'][i]:.2f} x the baseline)"
        figures.append(Figure(f"{label}, {names[rid]}", v, unit, text, row["values"][0] if i else None))
    base, bv = names[q.run_ids[0]], row["values"][0]
    if len(q.run_ids) == 2:
        other, ov, ratio = names[q.run_ids[1]], row["values"][1], row["ratio"][1]
        how = "" if ratio is None else f", {ratio:.2f} times the {val(bv)} of {base} (the baseline)"
        ab = _storm_ab(cmp, base, other)
        if q.metric == "peak_iops" and ab:
            reason = ab
        else:
            reason = f"{label[0].upper() + label[1:]} of {other}: {val(ov)}{how}." + (f" {ab}" if ab else "")
    else:
        known = [(v, names[r]) for v, r in zip(row["values"], q.run_ids) if v is not None]
        hi, lo = max(known), min(known)
        reason = (f"Against {base} (the baseline, {val(bv)}), the {label} ranges from {val(lo[0])} ({lo[1]}) to "
                  f"{val(hi[0])} ({hi[1]}).")
    ev = Evidence(list(q.run_ids), {}, [], [], {"column": column, "align": q.align, "stepped": True, "device": q.device,
                                                 "metric": q.metric, "every_s": q.every_s}, [cmp])
    return Answer(None, q.KIND, "", "information", figures, reason, ev, list(cmp.notes))


def _storm_ab(cmp: Any, base: str, other: str) -> str:
    """Storm A against storm B, the whole question: which peaks higher and by how much, and which sooner and by
    how much; '' when the two runs have no peak or no time to peak (runs without device rates)."""
    by = {r["metric"]: (r["values"], r["ratio"]) for r in cmp.metrics}
    if "peak_iops" not in by or "time_to_peak_s" not in by:
        return ""
    (b, o), ratio = by["peak_iops"][0], by["peak_iops"][1][1]
    tb, to = by["time_to_peak_s"][0]
    if None in (b, o, tb, to) or len(by["peak_iops"][0]) != 2:
        return ""
    if o == b:
        out = f"{other} and {base} peak at the same {fmt_value(o, 'IOPS')}"
        hi_other = None
    else:
        hi_other = o > b
        hi, lo = (other, base) if hi_other else (base, other)
        times = f"{ratio:.2f} times" if hi_other and ratio else f"{(b / o):.2f} times" if o else ""
        out = (f"{hi} peaks higher than {lo}: {fmt_value(max(b, o), 'IOPS')} against {fmt_value(min(b, o), 'IOPS')}"
               + (f", {times} as high ({fmt_value(abs(o - b), 'IOPS')} more)" if times else ""))
    if to == tb:
        return out + f"; both {fmt_value(to, 's')} after their first activity."
    soon_other = to < tb
    first, then = (to, tb) if soon_other else (tb, to)
    when = (f"{fmt_value(first, 's')} after its first activity against {fmt_value(then, 's')} "
            f"({fmt_value(then - first, 's')} sooner)")
    if hi_other is not None and hi_other == soon_other:
        return out + f", and sooner: {when}."
    return out + f"; {other if soon_other else base} peaks sooner: {when}."


def _run(ws: Workspace, run_id: int) -> Run:
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"there is no run {run_id} in this workspace (was it deleted?)")
    return run


def _disks(ws: Workspace, run_id: int) -> list[str]:
    return [r[0] for r in ws.con.execute("SELECT DISTINCT device FROM histograms WHERE run_id = ? AND metric = "
                                         "'latency_us' ORDER BY device", [run_id]).fetchall()]


def _response_rows(ws: Workspace, q: ResponseTimeQuestion,
                   names: dict[int, str]) -> list[tuple[int, str | None, dict[str, Any]]]:
    """(run, disk or None for the whole run, response_time_check) for every run and disk the question names."""
    from app.analysis.sizing import response_time_check

    rows: list[tuple[int, str | None, dict[str, Any]]] = []
    for rid in q.run_ids:
        kind = _run(ws, rid).kind
        found = _disks(ws, rid) if has(kind, LATENCY_HISTOGRAMS) else []
        disks: list[str | None]
        if q.disks is not None and not has(kind, DEVICE_RATES):
            disks = [d for d in q.disks if d in found]
        elif q.disks is not None:
            disks = [",".join(q.disks)]
        else:
            disks = list(found) if found else [None]
        if not disks:
            raise AnalysisError(f"{names[rid]} has none of the disks {', '.join(q.disks or [])} (it has "
                                f"{', '.join(found) or 'no latency histogram'})")
        for d in disks:
            if d is not None and not has(kind, DEVICE_RATES) and any(d != o and d in o for o in found):
                raise AnalysisError(f"the disk name {d!r} of {names[rid]} is part of another disk's name: "
                                    "the two cannot be told apart")
            rows.append((rid, d, response_time_check(ws, rid, threshold_ms=q.threshold_ms, goal_pct=q.goal_pct,
                                                     device=d, op=q.op)))
    return rows


@answers(ResponseTimeQuestion)
def _answer_response(ws: Workspace, q: ResponseTimeQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.vm_timeline import vm_disk_words

    rows = _response_rows(ws, q, names)

    def low(r: dict[str, Any]) -> float:
        s = r["share"] if r["share"] is not None else r["bounds"][0]
        return -1.0 if s is None else s

    def share_text(r: dict[str, Any]) -> str:
        if r["share"] is not None:  # IOmark's own share is the figure it printed: no "(exact)" of a histogram
            return fmt_pct(r["share"]) + (" (exact)" if r.get("exact") and r.get("basis") != IOMARK else "")
        lo_b, hi_b = r["bounds"]
        lo, hi, est_t = pct_bounds(lo_b, hi_b, r.get("estimate"))
        est = f", estimate {est_t}" if r.get("estimate") is not None else ""
        return f"between {lo} and {hi}{est}"

    def where(rid: int, d: str | None) -> str:
        if d is None:
            return names[rid]
        if has(_run(ws, rid).kind, JOB_SUMMARY):
            return f"{names[rid]}, job {d}"
        words = vm_disk_words(d)  # a vscsiStats VM disk in words: "VM 2099979, disk scsi0:0"
        return f"{names[rid]}, {words}" if words != d else f"{names[rid]}, disk {d}"

    figures = []
    for rid, d, r in rows:
        figures.append(Figure(f"share within {fmt_value(q.threshold_ms, 'ms')}, {where(rid, d)}", r["share"], "%",
                              f"{where(rid, d)}: {share_text(r)} within {fmt_value(q.threshold_ms, 'ms')} vs goal "
                              f"{fmt_pct_value(q.goal_pct)}", q.goal_pct / 100, fmt_pct_value(q.goal_pct)))
    worst_i = min(range(len(rows)), key=lambda i: low(rows[i][2]))
    figures.insert(0, figures.pop(worst_i))
    rid, d, r = rows[worst_i]
    passed = [x[2]["passed"] for x in rows]
    n = len(rows)
    thr, goal = fmt_value(q.threshold_ms, "ms"), fmt_pct_value(q.goal_pct)
    what = "disk" if any(x[1] is not None for x in rows) else "run"
    of = "of responses" if all(x[2].get("basis") == IOMARK for x in rows) else "of I/O"  # IOmark's own words
    if all(p is True for p in passed):
        verdict = "met"
        if n > 1:
            reason = (f"Every one of the {n} {what}s answered at least {goal} {of} within {thr}; the lowest, "
                      f"{where(rid, d)}, {share_text(r)}.")
        else:
            reason = f"{where(rid, d)} answered {share_text(r)} {of} within {thr}, meeting the goal of {goal}."
    elif any(p is False for p in passed):
        verdict = "not met"
        bad = [x for x in rows if x[2]["passed"] is False]
        reason = (f"{where(rid, d)} answered only {share_text(r)} {of} within {thr}, below the goal of {goal}"
                  + (f" ({len(bad)} of {n} {what}s miss it)." if n > 1 else "."))
    else:
        verdict = "information"
        reason = (f"The latency histogram of {where(rid, d)} only bounds the share within {thr} "
                  f"({share_text(r)}): it cannot tell whether the goal of {goal} is met.")
    reason += _iomark_rows(rows, thr, goal) + _worst_stretch(ws, rows, q, where)
    notes: list[str] = []
    if any(x[2].get("basis") == "iostat await" for x in rows):
        notes.append("from iostat's await: interval-level, each report's mean per request, not single I/Os")
    devices: dict[int, list[str]] = {}
    for rid2, d2, _r in rows:
        if d2 is not None:
            devices.setdefault(rid2, []).append(d2)
    results = [{"run_id": rid2, "disk": d2, **r2} for rid2, d2, r2 in rows]
    ev = Evidence(list(q.run_ids), devices, [], [{"value": q.goal_pct / 100, "unit": "share", "label": f"goal {goal}"}],
                  {"column": "share_50ms" if q.threshold_ms == 50 else None, "threshold_ms": q.threshold_ms,
                   "per": "collection"}, results)
    return Answer(None, q.KIND, "", verdict, figures, reason, ev, notes)


def _iomark_rows(rows: list[tuple[int, str | None, dict[str, Any]]], thr: str, goal: str) -> str:
    """An IOmark run's result rows, each its own measurement (one data server, then two): every row's share in
    the answer, what tells the rows apart first ('one data server 3.00 %, two data servers 27.00 %')."""
    out = []
    for _rid, _d, r in rows:
        got = r.get("rows") or []
        if r.get("basis") != IOMARK or len(got) < 2:
            continue
        parts = [(m.group(1) if (m := re.match(r"^(?:line|row) \d+ \((.*)\)$", x["row"])) else x["row"]).split(", ")
                 for x in got]
        common = set(parts[0]).intersection(*parts[1:])
        labels = [", ".join(p for p in ps if p not in common) or x["row"] for ps, x in zip(parts, got)]
        listed = "; ".join(f"{lab}: {fmt_pct(x['share'])}" for lab, x in zip(labels, got))
        below = sum(x["share"] * 100 < float(goal.rstrip(" %")) for x in got)
        out.append(f" IOmark's {len(got)} result rows are separate measurements ({listed} of responses within "
                   f"{thr}); {below} of {len(got)} below the goal of {goal}.")
    return "".join(out)


def _worst_stretch(ws: Workspace, rows: list[tuple[int, str | None, dict[str, Any]]], q: ResponseTimeQuestion,
                   where: Callable[[int, str | None], str]) -> str:
    """Which VM disk suffered and when: the stretch of a vscsiStats run (a disk alone, or with others active)
    whose share within the threshold is lowest, when it is below the goal -- also when the whole run meets it."""
    from app.analysis.vm_timeline import vm_disk_words, vm_timeline
    from parsers.kinds import TIME_SERIES

    worst: tuple[float, str] | None = None
    for rid in dict.fromkeys(r[0] for r in rows):
        if not (has(_run(ws, rid).kind, TIME_SERIES) and has(_run(ws, rid).kind, LATENCY_HISTOGRAMS)):
            continue
        disks = {d for r, d, _x in rows if r == rid and d is not None}
        for disk in vm_timeline(ws, rid, q.threshold_ms).disks:
            if disks and disk.device not in disks:
                continue
            for p in disk.phases:
                best = p.share.best if p.share is not None else None
                if best is None or best * 100 >= q.goal_pct or (worst is not None and best >= worst[0]):
                    continue
                with_ = ("alone" if p.alone else "while " + ", ".join(vm_disk_words(o) for o in p.others)
                         + (" was" if len(p.others) == 1 else " were") + " active")
                when = (f"minutes {fmt_value(p.t_start_min)}–{fmt_value(p.t_end_min)}" if p.t_start_min is not None
                        else f"collections {p.first + 1}–{p.last + 1}")
                est = "" if p.share is not None and p.share.exact else " (estimate)"
                worst = (best, f" {where(rid, disk.device)} suffered most {with_} ({when}): {fmt_pct(best)}{est} "
                               f"of its I/O within {fmt_value(q.threshold_ms, 'ms')}, below the goal of "
                               f"{fmt_pct_value(q.goal_pct)}.")
    return "" if worst is None else worst[1]


@answers(SizingQuestion)
def _answer_sizing(ws: Workspace, q: SizingQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.sizing import measured_inputs, size_vdi

    common: dict[str, Any] = {"read_pct": q.read_pct, "raid": q.raid, "disk_type": q.disk_type,
                              "disk_iops": q.disk_iops, "gb_per_user": q.gb_per_user, "disk_gb": q.disk_gb,
                              "profile": q.profile}
    ends: list[tuple[str, Any]] = []
    measured = None
    if q.iops_per_user_storm is not None:  # a range of users' loads (8..25): light and heavy users
        ends.append(("light users", size_vdi(q.users, q.iops_per_user, **common)))
        ends.append(("heavy users", size_vdi(q.users, q.iops_per_user_storm, **common)))
    elif q.measured_run is not None:
        assert q.vms is not None
        measured = measured_inputs(ws, q.measured_run, q.vms)
        ends.append(("steady", size_vdi(q.users, storm_multiplier=1.0, measured=measured, **common)))
        if q.storm_multiplier is None:
            ends.append(("storm", size_vdi(q.users, measured=measured, **common)))
        else:
            ends.append(("storm", size_vdi(q.users, storm_multiplier=q.storm_multiplier, measured=measured,
                                           **common)))
    else:
        ends.append(("", size_vdi(q.users, q.iops_per_user, storm_multiplier=q.storm_multiplier, **common)))
    figures, parts = [], []
    for end, res in ends:
        ipu = res.inputs["iops_per_user"]["value"]
        mult = res.inputs["storm_multiplier"]["value"]
        load = fmt_value(ipu * mult, "IOPS") + " per user"
        if mult != 1:
            load += f" ({fmt_value(ipu, 'IOPS')} x storm multiplier {mult:.2f})"
        n = res.disks_layout
        disks = f"{n:,} disk{'s' if n != 1 else ''}"
        label = f"{end} " if end else ""
        said = (f"{end} ({fmt_value(ipu * mult, 'IOPS')} each): {disks}" if end.endswith("users") else
                f"{label}{load}: {disks}")
        figures.append(Figure(f"disks, {label}{load}", n, "disks", said))
        why = [end] if end else []
        if res.disks_for_capacity is not None and res.disks_for_capacity > res.disks_for_iops:
            why.append(f"capacity decides; {res.disks_for_iops:,} for the IOPS")
        if res.disks_layout != res.disks:
            why.append(f"{res.disks:,} rounded up to whole sets of {res.raid['label']}")
        parts.append(f"{disks} at {load}" + (f" ({'; '.join(why)})" if why else ""))
    first = ends[0][1]
    disk = first.disk
    disk_words = (f"{disk['label']} disks of {fmt_value(disk['iops'], 'IOPS')}" if disk.get("type")
                  else f"disks of {fmt_value(disk['iops'], 'IOPS')}")
    reads = first.inputs["read_pct"]["value"]
    src = ""
    if measured is not None and q.measured_run is not None:
        src = (f" The IOPS per user were measured on {names[q.measured_run]} ({q.vms} VMs): steady "
               f"{fmt_value(measured['steady_iops'], 'IOPS')}, peak {fmt_value(measured['peak_iops'], 'IOPS')}.")
    reason = (f"{q.users:,} users need " + " and ".join(parts) + f", on {first.raid['label']} with {disk_words} and "
              f"{fmt_value(reads)} % reads." + src)
    notes: list[str] = []
    for _end, res in ends:
        notes += [n for n in res.notes if n not in notes]
    results: list[Any] = [res for _e, res in ends]
    if measured is not None:
        results.append(measured)
    ev = Evidence(q.run_ids_used(), {}, [], [], {"ends": [e or "given" for e, _r in ends]}, results,
                  {"what_if": what_if(ends)})
    return Answer(None, q.KIND, "", "information", figures, reason, ev, notes)


@answers(KneeQuestion)
def _answer_knee(ws: Workspace, q: KneeQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.knee import POOR_FIT, knee, per_user_from_workspace, profile_iops

    notes: list[Any] = []
    ipu: float | None
    if q.iops_per_user is not None:
        ipu, src = q.iops_per_user, "given"
    elif q.profile is not None:
        ipu, src = profile_iops(q.profile), f"the {q.profile} user profile"
    else:
        found = per_user_from_workspace(ws)
        ipu, src = found if found is not None else (None, "none")
        if found is None:
            notes.append(Note("no IOPS per user, so no desktops: give {fix}", "iops_per_user"))
    res = knee(ws, list(q.run_ids), statistic=q.statistic, threshold_ms=q.threshold_ms, goal_pct=q.goal_pct,
               points=q.points, iops_per_user=ipu, per_user_source=src, device=q.device, every_s=q.every_s)
    lo, hi = res.range_iops

    def named(p: Any) -> str:
        return str(p.named(names.get(p.run_id, p.run_name)))

    def users(v: float | None) -> str:
        d = res.desktops(v)
        return "" if d is None else f" ({d:,} desktop{'s' if d != 1 else ''})"

    figures = []
    if res.held is not None:
        figures.append(Figure("highest load within the goal", lo, "IOPS",
                              f"goal holds up to {fmt_value(lo, 'IOPS')}{users(lo)}", q.threshold_ms,
                              fmt_value(q.threshold_ms, "ms")))
    if res.broke is not None:
        figures.append(Figure("load at which it broke", hi, "IOPS", f"breaks by {fmt_value(hi, 'IOPS')}{users(hi)}"))
    if res.estimate_iops is not None:
        d = res.desktops(res.estimate_iops)
        figures.append(Figure("estimated crossing", res.estimate_iops, "IOPS",
                              f"crossing near {fmt_value(res.estimate_iops, 'IOPS')} ("
                              + (f"{d:,} desktops, " if d is not None else "") + "estimate)"))
    goal = res.goal_words
    per = f" at {fmt_value(ipu)} IOPS per user" if ipu else ""
    if res.held is not None and res.broke is not None:
        reason = (f"The goal ({goal}) holds up to {fmt_value(lo, 'IOPS')} ({named(res.held)}: {res.figure_words} "
                  f"{_ms_text(res.held.response_ms)}) and breaks by {fmt_value(hi, 'IOPS')} ({named(res.broke)}: "
                  f"{_ms_text(res.broke.response_ms)}).")
        if ipu:
            reason += (f" That is {res.desktops(lo):,} desktops{per} within the goal; it breaks by "
                       f"{res.desktops(hi):,}.")
        if res.estimate_iops is not None:
            d = res.desktops(res.estimate_iops)
            reason += (f" Interpolated between these two points, the goal breaks near "
                       f"{fmt_value(res.estimate_iops, 'IOPS')} (" + (f"{d:,} desktops, " if d is not None else "")
                       + "an estimate).")
        verdict = "information"
    elif res.held is not None:
        reason = (f"The goal ({goal}) held at every measured load, up to {fmt_value(lo, 'IOPS')}{users(lo)}"
                  f"{per}: where it breaks lies above the measured range.")
        verdict = "information"
    elif res.broke is not None:
        reason = (f"The goal ({goal}) is missed already at the lowest load that decides, {fmt_value(hi, 'IOPS')} "
                  f"({named(res.broke)}: {_ms_text(res.broke.response_ms)}).")
        verdict = "not met"
    else:
        reason = f"No load point can be judged against the goal ({goal})."
        verdict = "information"
    if res.fit is not None and res.fit.crossing_iops is not None and res.fit.r2 >= POOR_FIT:
        notes.append(f"the fitted curve (service time {_ms_text(res.fit.service_ms)}, capacity "
                     f"{fmt_value(res.fit.capacity_iops, 'IOPS')}, R² {res.fit.r2:.2f}) reaches "
                     f"{fmt_value(q.threshold_ms, 'ms')} at {fmt_value(res.fit.crossing_iops, 'IOPS')}: a cross-check, "
                     "not the answer")
    notes += res.notes
    deciding = [p for p in (res.held, res.broke) if p is not None]
    ev = Evidence(list(q.run_ids), {}, [], [{"value": q.threshold_ms, "unit": "ms", "label": "goal"}],
                  {"column": "knee", "deciding": [named(p) for p in deciding]}, [res])
    return Answer(None, q.KIND, "", verdict, figures, reason, ev, notes)


def _ms_text(v: float | None) -> str:
    if v is None:
        return "no response time"
    digits = 3 if abs(v) < 1 else 2 if abs(v) < 10 else 1
    return f"{v:,.{digits}f} ms"


@answers(ReplayQuestion)
def _answer_replay(ws: Workspace, q: ReplayQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.replay import replay_check

    res = replay_check(ws, q.run_id, q.replay_run, t_start_s=q.t_start_s, t_end_s=q.t_end_s, phase=q.phase,
                       scale=q.scale, device=q.device, replay_device=q.replay_device, every_s=q.every_s)
    units = {"iops": "fraction", "read_share": "points", "request_size": "fraction", "latency": "fraction"}
    # the dimensions that decide the verdict (the worst of the three judged), IOPS over time when all agree
    deciding = [d for d in res.dimensions[:3] if d.verdict == res.verdict] if res.verdict != "faithful" else []
    figures = [Figure(d.label, d.figure, units[d.key], f"{d.label} {d.verdict}: {d.text}")
               for d in (deciding or res.dimensions[:1])]
    judged = ", ".join(f"{d.label if d.key == 'iops' else d.label.lower()} {d.verdict}" for d in res.dimensions[:3])
    lat = res.dimension("latency")
    how = {"faithful": "faithfully", "approximate": "approximately", "not faithful": "not faithfully"}[res.verdict]
    reason = (f"{names[q.replay_run]} reproduces the storm of {names[q.run_id]} ({res.range_label}, IOPS x "
              f"{q.scale:g}) {how}: {judged}.")
    if lat.figure is not None:
        reason += (f" Response time {lat.verdict}: {lat.text} -- what the replayed storm met on the replay's target, "
                   "not part of the verdict.")
    verdict = {"faithful": "met", "approximate": "information", "not faithful": "not met"}[res.verdict]
    ev = Evidence([q.run_id, q.replay_run], {}, [], [], {"column": "replay", "every_s": res.every_s}, [res])
    return Answer(None, q.KIND, "", verdict, figures, reason, ev, [f"measured from {res.basis}", *res.notes])


@answers(LibraryQuestion)
def _answer_library(ws: Workspace, q: LibraryQuestion, names: dict[int, str]) -> Answer:
    from app.analysis.library import MIN_PEERS, compare_with_library, library_location

    where = library_location(q.library)
    res = compare_with_library(ws, q.run_id, where, desktops=q.desktops, workload=q.workload,
                               hypervisor=q.hypervisor)
    run = names[q.run_id]

    def val(m: Any) -> str:
        if m.unit == "fraction":
            return fmt_pct(m.value)
        if m.unit == "x":
            return f"{m.value:.2f} x"
        return fmt_value(m.value, m.unit)

    figures, parts = [], []
    for m in res.metrics:
        if m.value is None:
            continue
        if m.percentile is None:
            text = f"{m.label} {val(m)} (too few comparable engagements: {m.engagements})"
        else:
            text = f"{m.label} {val(m)}: {ordinal(m.percentile)} percentile"
            parts.append(f"{m.label} is higher than {fmt_pct(m.percentile / 100)} of their {len(m.peers):,} runs")
        figures.append(Figure(m.label, m.percentile, "percentile", text))
    comparable = (", ".join(res.filters[:-1]) + " and " + res.filters[-1] if len(res.filters) > 1
                  else res.filters[0] if res.filters else "any engagement")
    if res.comparable_engagements < MIN_PEERS:
        reason = (f"The library holds {res.engagements_in_library:,} engagements, {res.comparable_engagements:,} of "
                  f"them comparable with this one ({comparable}): fewer than {MIN_PEERS}, too few to place {run} "
                  "among them.")
    else:
        reason = (f"Compared with {res.comparable_engagements:,} comparable past engagements ({comparable}) of the "
                  f"{res.engagements_in_library:,} in the library, {run}'s " + "; its ".join(parts) + ".")
    notes: list[Any] = []
    if res.unfiltered:
        notes.append("not filtered on " + ", ".join(res.unfiltered))
    if next((m for m in res.metrics if m.key == "peak_iops_per_desktop" and m.value is None), None):
        notes.append("no IOPS per desktop: the number of desktops is not known (give it on the question)")
    notes += [f"left out of the library: {r}" for r in res.refused] + res.notes
    notes.append("percentile: the share of the comparable runs below this value, ties counted half")
    ev = Evidence([q.run_id], {}, [], [], {"column": "library"}, [res])
    return Answer(None, q.KIND, "", "information", figures, reason, ev, notes)


def ordinal(p: float) -> str:
    """85 -> "85th" (the percentile in words; rounded to a whole number)."""
    n = int(round(p))
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def what_if(ends: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The disks each end of a sizing answer needs on every RAID level and disk type of the presets (the
    other inputs as answered): one row per RAID level, disk type and end, by ``size_vdi``."""
    from app.analysis.sizing import size_vdi
    from app.analysis.sizing_presets import load_presets

    pre = load_presets()
    rows = []
    for end, res in ends:
        v = {k: x["value"] for k, x in res.inputs.items()}
        for raid, rd in pre["raid"].items():
            for dt, d in pre["disk_types"].items():
                r = size_vdi(v["users"], v["iops_per_user"], read_pct=v["read_pct"], raid=raid, disk_type=dt,
                             storm_multiplier=v["storm_multiplier"], gb_per_user=v.get("gb_per_user"),
                             disk_gb=v.get("disk_gb"))
                rows.append({"end": end or "given", "iops_per_user": v["iops_per_user"] * v["storm_multiplier"],
                             "raid": raid, "raid_label": rd["label"], "disk_type": dt, "disk_label": d["label"],
                             "disk_iops": d["iops"], "disks": r.disks_layout, "disks_exact": r.disks_exact})
    return rows
