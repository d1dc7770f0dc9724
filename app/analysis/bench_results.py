"""Iometer and IOmark results: the answer a consultant gives from a benchmark's own summary figures. No Qt.

Iometer (``iometer_results``): one average per test (a ``'Results`` section of ``results.csv``) and target, no
intervals. ``iometer_summary`` gives, per test (access specification) and target, the IOPS, MB/s (MB = 2^20 bytes,
Iometer's binary figure), mean and maximum response time, and -- where a cap is known -- whether it held, by the
one rule of :mod:`app.analysis.cap` (:func:`app.analysis.cap.check_mean`): a single average can only show that the
test's MEAN stayed at or below the cap, not that every 10 s window did, and every verdict says so.

A cap is known when it is given (the command line, the report's cap), asked by a cap question on the run (its cap,
operation and tolerance), or set as a run tag (``cap_iops``, ``cap_bw_kbs``; kB = 1,024 bytes): the first of these
that exists is used, in that order. A cap applies to one virtual disk: it is judged on each target row (the disk
Iometer drove), or on the test's total row where the file names no target.

``compare_iometer(ws, a, b)``: two Iometer runs (e.g. without and with a limit) matched on the access
specification (and target), with the ratio b / a of IOPS, MB/s and mean response time.

IOmark (``iomark_results``): ``iomark_summary`` gives per result row the share of responses within the goal's
threshold (IOmark reports it as ``pct_within_50ms`` / ``pct_within_20ms``; other thresholds cannot be answered
from these rows) and whether it meets the goal (share >= goal, the rule of
:func:`app.analysis.sizing.response_time_check`). The goal defaults to the sizing presets' response goal (at least
80 % within 50 ms, the ETRI VDI paper's), or a response-time question on the run gives it. Rows are separate
measurements: the run's verdict is its lowest row's (never an average of rows), and the users supported are the
most users of a row that meets the goal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from app.analysis.cap import Cap as Cap  # (re-exported: where the Iometer callers import it)
from app.analysis.cap import CapCheck, check_mean, which_cap
from app.analysis.question_kinds import CapQuestion, ResponseTimeQuestion, list_questions
from app.analysis.sizing_presets import DEFAULTS as SIZING_DEFAULTS
from app.errors import AnalysisError
from app.run import Run
from app.workspace import has_table

if TYPE_CHECKING:
    from app.workspace import Workspace

GOAL_PCT: float = float(SIZING_DEFAULTS["response_goal_pct"])
THRESHOLD_MS: float = float(SIZING_DEFAULTS["response_threshold_ms"])
GOAL_SOURCE: str = str(SIZING_DEFAULTS["response_source"])
IOMARK_THRESHOLDS = (20.0, 50.0)  # the shares IOmark reports (columns pct_within_20ms, pct_within_50ms)
KB_PER_MB = 1024  # Iometer's binary MB/s x 1,024 = kB/s of 1,024 bytes, the unit of a bandwidth cap
TARGET_TYPES = ("disk", "network")
# cap operation -> the Iometer columns (IOPS, MB/s) it reads
OP_COLUMNS = {"total": ("iops", "mb_s"), "read": ("read_iops", "read_mb_s"), "write": ("write_iops", "write_mb_s")}


# ---- Iometer --------------------------------------------------------------------------------------------
@dataclass
class IometerRow:
    """One test's figures for one target (or for all targets together)."""

    result_set: int  # 0-based, in file order
    access_spec: str
    target: str  # the disk or network target's name, or "all targets"
    iops: float | None
    read_iops: float | None
    write_iops: float | None
    mb_s: float | None
    read_mb_s: float | None
    write_mb_s: float | None
    mean_ms: float | None
    max_ms: float | None
    mean_read_ms: float | None
    mean_write_ms: float | None
    errors: int | None
    queue_depth: int | None
    length_s: float | None  # from the test's time stamps (start to results), ramp-up included
    line: int | None
    caps: list[CapCheck] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "caps"}
        d["caps"] = [c.as_dict() for c in self.caps]
        return d


@dataclass
class IometerSummary:
    run_id: int
    run_name: str
    rows: list[IometerRow]
    cap: Cap | None
    held: bool | None  # every judged cap held (None: no cap known)
    verdict: str  # held | not held | no cap known
    answer: str  # one sentence, the answer first
    notes: list[str]
    method: dict[str, Any]

    def checks(self) -> list[tuple[IometerRow, CapCheck]]:
        return [(r, c) for r in self.rows for c in r.caps]

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "run_name": self.run_name, "rows": [r.as_dict() for r in self.rows],
                "cap": self.cap.as_dict() if self.cap else None, "held": self.held, "verdict": self.verdict,
                "answer": self.answer, "notes": self.notes, "method": self.method}


def iometer_runs(ws: Workspace) -> set[int]:
    if not has_table(ws, "iometer_results"):
        return set()
    return {int(r[0]) for r in ws.con.execute("SELECT DISTINCT run_id FROM iometer_results").fetchall()}


def _query(ws: Workspace, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cur = ws.con.execute(sql, params)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def _lengths(run: Run) -> dict[int, float]:
    """Each test's length (s) from its time stamps: the one before it and the one after its results."""
    out: dict[int, float] = {}
    for t in run.meta.items("result_sets"):
        if not isinstance(t, dict):
            continue
        try:
            a, b = datetime.fromisoformat(t["started"]), datetime.fromisoformat(t["results_at"])
        except (KeyError, TypeError, ValueError):
            continue
        if b > a:
            out[int(t["idx"])] = (b - a).total_seconds()
    return out


def _row(r: dict[str, Any], target: str, length: float | None) -> IometerRow:
    return IometerRow(
        int(r["test_idx"]), r["access_spec"] or r["test_description"] or f"test {int(r['test_idx']) + 1}", target,
        r["iops"], r["read_iops"], r["write_iops"], r["mb_s"], r["read_mb_s"], r["write_mb_s"], r["avg_resp_ms"],
        r["max_resp_ms"], r["avg_read_resp_ms"], r["avg_write_resp_ms"], r["errors"], r["queue_depth"], length,
        r["line"])


def iometer_rows(ws: Workspace, run_id: int) -> list[IometerRow]:
    """Per test, each target's row; a test with one target (or none listed) gives one row, its total."""
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"there is no run {run_id} in this workspace")
    if run_id not in iometer_runs(ws):
        raise AnalysisError(f"run {run_id} holds no Iometer results")
    lengths = _lengths(run)
    raw = _query(ws, "SELECT * FROM iometer_results WHERE run_id = ? AND row_type IN ('all', 'disk', 'network') "
                     "ORDER BY test_idx, line", [run_id])
    rows: list[IometerRow] = []
    for idx in dict.fromkeys(r["test_idx"] for r in raw):
        test = [r for r in raw if r["test_idx"] == idx]
        total = next((r for r in test if r["row_type"] == "all"), None)
        targets = [r for r in test if r["row_type"] in TARGET_TYPES]
        length = lengths.get(int(idx))
        if len(targets) == 1 and total is not None:  # the same figures twice: one row, named by its target
            rows.append(_row({**total, "queue_depth": total["queue_depth"] or targets[0]["queue_depth"]},
                             targets[0]["target"], length))
            continue
        if total is not None:
            rows.append(_row(total, "all targets", length))
        rows += [_row(t, t["target"] or "target", length) for t in targets]
    return rows


def cap_for_run(ws: Workspace, run_id: int, given: Cap | None = None) -> Cap | None:
    """The cap that applies to the run: :func:`app.analysis.cap.which_cap` over the cap given, the run's cap
    questions and its tags (the one rule; module doc)."""
    asked = [Cap(q.iops_cap, q.bw_cap_kbs, q.op, q.tolerance_pct, "question") for sq in list_questions(ws)
             if isinstance(q := sq.question, CapQuestion) and q.run_id == run_id]
    return which_cap(given, asked, ws.run(run_id))


def judge_caps(row: IometerRow, cap: Cap) -> list[CapCheck]:
    """The cap(s) judged on one row's averages (Iometer's binary MB/s -> kB/s of 1,024 bytes for a bandwidth
    cap)."""
    iops_col, mb_col = OP_COLUMNS[cap.op]
    out = []
    iops, mb = getattr(row, iops_col), getattr(row, mb_col)
    if cap.iops is not None and iops is not None:
        out.append(check_mean(iops, "iops", cap.iops, op=cap.op, tolerance_pct=cap.tolerance_pct,
                              length_s=row.length_s))
    if cap.bw_kbs is not None and mb is not None:
        out.append(check_mean(mb * KB_PER_MB, "bw", cap.bw_kbs, op=cap.op, tolerance_pct=cap.tolerance_pct,
                              length_s=row.length_s))
    return out


def _judged_rows(rows: list[IometerRow]) -> list[IometerRow]:
    """The rows a cap is judged on: the targets (a cap applies to one virtual disk), or the totals where no
    target is listed apart."""
    by_test: dict[int, list[IometerRow]] = {}
    for r in rows:
        by_test.setdefault(r.result_set, []).append(r)
    out = []
    for test in by_test.values():
        targets = [r for r in test if r.target != "all targets"]
        out += targets or test
    return out


def iometer_summary(ws: Workspace, run_id: int, cap: Cap | None = None, name: str | None = None) -> IometerSummary:
    """Per test and target the figures, and whether the known cap held (module doc)."""
    rows = iometer_rows(ws, run_id)
    run = ws.run(run_id)
    run_name = name or (f"run {run_id}" if run is None else run.name)
    known = cap_for_run(ws, run_id, cap)
    notes = ["Iometer reports one average per test: IOPS and MB/s are the test's mean rates, the maximum response "
             "time the slowest single I/O it saw."]
    if known is not None:
        for r in _judged_rows(rows):
            r.caps = judge_caps(r, known)
        notes.append("A single average over a test can only show that the mean stayed at or below the cap, not "
                     "that every 10 s window did: a burst above the cap inside the test would not show.")
    checks = [c for r in rows for c in r.caps]
    if known is None:
        held, verdict = None, "no cap known"
        answer = _figures_answer(run_name, rows)
    elif not checks:
        held, verdict = None, "no cap known"
        answer = (f"{run_name}: the cap's figure (IOPS or MB/s) is missing from these results, so it cannot be "
                  "judged.")
    else:
        held = all(bool(c.held) for c in checks)
        verdict = "held" if held else "not held"
        answer = _cap_answer(run_name, rows, known)
    method = {"figures": "Iometer's own averages per test (its 'Results sections) and target",
              "mb": "MB/s of 2^20 bytes (Iometer's binary figure); a bandwidth cap in kB/s = MB/s x 1,024",
              "cap_rule": "the test's mean rate at or below cap x (1 + tolerance); under cap x (1 - tolerance): "
                          "the cap was not reached; above: not capped (the rule of the cap check, with the test as "
                          "its one window)",
              "cap_source": known.source if known else None}
    return IometerSummary(run_id, run_name, rows, known, held, verdict, answer, notes, method)


def _figures_answer(name: str, rows: list[IometerRow]) -> str:
    best = max((r for r in rows if r.iops is not None), key=lambda r: r.iops or 0.0, default=None)
    if best is None:
        return f"{name}: no IOPS in these results."
    tests = len({r.result_set for r in rows})
    return (f"{name}: {tests} test{'s' if tests != 1 else ''}; the highest rate {fmt(best.iops)} IOPS "
            f"({fmt(best.mb_s, 2)} MB/s, mean response {fmt(best.mean_ms, 2)} ms) with {best.access_spec} on "
            f"{best.target}. No cap is known for this run.")


# a cap verdict in a table cell (the window's tab and the PDF's section): the verdict's own words, shortened
VERDICT_CELLS = {"held": "held", "held (cap not reached)": "not reached", "not capped": "not capped",
                 "NOT held": "did not hold"}


def cap_text(c: CapCheck) -> str:
    unit = "IOPS" if c.metric == "iops" else "MB/s"
    k = 1.0 if c.metric == "iops" else 1.0 / KB_PER_MB
    return f"{fmt(c.cap * k, 3)} {unit}"


def mean_text(c: CapCheck) -> str:
    unit = "IOPS" if c.metric == "iops" else "MB/s"
    k = 1.0 if c.metric == "iops" else 1.0 / KB_PER_MB
    return f"{fmt((c.plateau or 0.0) * k, 2)} {unit}"


def _the_caps(pairs: list[tuple[IometerRow, CapCheck]], the: str = "The") -> str:
    """"The 200 IOPS cap" or "The 200 IOPS and 10 MB/s caps": the caps of ``pairs``, each once."""
    caps = list(dict.fromkeys(cap_text(c) for _r, c in sorted(pairs, key=lambda rc: rc[1].metric != "iops")))
    return f"{the} {' and '.join(caps)} cap{'s' if len(caps) > 1 else ''}"


def _worst(pairs: list[tuple[IometerRow, CapCheck]]) -> tuple[IometerRow, CapCheck]:
    """The test whose mean is highest against its cap (the first of equals)."""
    return max(pairs, key=lambda rc: (rc[1].plateau or 0.0) / rc[1].cap)


def _cap_answer(name: str, rows: list[IometerRow], cap: Cap) -> str:
    """One sentence naming only the caps it is about: those exceeded when any is, else those held and then those
    no test reached."""
    pairs = [(r, c) for r in rows for c in r.caps]
    reached = [(r, c) for r, c in pairs if c.verdict == "held"]
    over = [(r, c) for r, c in pairs if not c.held]
    judged = {cap_text(c) for _r, c in reached + over}
    unreached = [(r, c) for r, c in pairs if cap_text(c) not in judged]
    tol = fmt(cap.tolerance_pct)
    if over:
        r, c = _worst(over)
        worst = (f"{'the highest, ' if len(over) > 1 else ''}{r.access_spec} on {r.target}, averaged {mean_text(c)}, "
                 f"above the {cap_text(c)} cap + {tol} %")
        if all(c2.verdict == "not capped" for _r2, c2 in over):
            return f"{name} ran above {_the_caps(over, 'the')}: {worst}, so no cap at this level was in force."
        return f"{_the_caps(over)} did not hold on {name}: {worst}."
    never = f" {_the_caps(unreached)}: never reached." if unreached and reached else ""
    if reached:
        listed = "; ".join(f"{r.access_spec}: {mean_text(c)}" for r, c in reached)
        return (f"{_the_caps(reached)} held on {name} (mean of each test at or below the cap + {tol} %: {listed}); "
                f"one average per test cannot show every 10 s window.{never}")
    return (f"{_the_caps(pairs)}: never reached on {name}: every test's mean stayed under the cap - {tol} %, so "
            "these results cannot show that it is enforced.")


@dataclass
class IometerComparison:
    run_a: int
    run_b: int
    name_a: str
    name_b: str
    rows: list[dict[str, Any]]  # access_spec, target, a and b figures, ratios b / a
    answer: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def without_then_with_limit(a: IometerSummary, b: IometerSummary) -> tuple[IometerSummary, IometerSummary]:
    """Two Iometer runs in the order a comparison reads them: the run without a limit in force first (its cap was
    clearly exceeded, or no cap held on it) and the run whose cap held second; otherwise as given."""
    def limited(s: IometerSummary) -> bool:
        return s.held is True

    def unlimited(s: IometerSummary) -> bool:
        return any(c.verdict == "not capped" for _r, c in s.checks())

    if (limited(a) and not limited(b)) or (unlimited(b) and not unlimited(a)):
        return b, a
    return a, b


def _ratio(b: float | None, a: float | None) -> float | None:
    return None if a is None or b is None or a == 0 else b / a


def compare_iometer(ws: Workspace, run_a: int, run_b: int, names: dict[int, str] | None = None) -> IometerComparison:
    """Two Iometer runs matched on access specification and target (module doc); ratio = b / a."""
    names = names or {}
    ra, rb = iometer_rows(ws, run_a), iometer_rows(ws, run_b)
    na = names.get(run_a) or ws.name_of(run_a)
    nb = names.get(run_b) or ws.name_of(run_b)
    bmap = {(r.access_spec, r.target): r for r in rb}
    by_spec = {r.access_spec: r for r in rb}
    rows: list[dict[str, Any]] = []
    for a in ra:
        b = bmap.get((a.access_spec, a.target)) or (by_spec.get(a.access_spec) if len(ra) == len(rb) else None)
        if b is None:
            continue
        rows.append({"access_spec": a.access_spec, "target": a.target if a.target == b.target else
                     f"{a.target} / {b.target}", "iops_a": a.iops, "iops_b": b.iops, "mb_s_a": a.mb_s,
                     "mb_s_b": b.mb_s, "mean_ms_a": a.mean_ms, "mean_ms_b": b.mean_ms,
                     "iops_ratio": _ratio(b.iops, a.iops), "mb_s_ratio": _ratio(b.mb_s, a.mb_s),
                     "mean_ms_ratio": _ratio(b.mean_ms, a.mean_ms)})
    if not rows:
        answer = f"{na} and {nb} share no access specification: nothing to compare."
    else:
        parts = [f"{r['access_spec']}: {fmt(r['iops_a'])} → {fmt(r['iops_b'])} IOPS "
                 f"({ratio_text(r['iops_ratio'])})" for r in rows]
        answer = f"{nb} against {na}: " + "; ".join(parts) + "."
    return IometerComparison(run_a, run_b, na, nb, rows, answer)


def ratio_text(r: float | None) -> str:
    return "–" if r is None else f"× {r:,.3g}"


# ---- IOmark ---------------------------------------------------------------------------------------------
@dataclass
class IomarkRow:
    line: int | None
    workload: str | None
    phase: str | None
    users: int | None
    iops: float | None
    mb_s: float | None
    mean_ms: float | None
    max_ms: float | None
    share_pct: float | None  # within the threshold, as IOmark reports it (0-100)
    meets: bool | None  # share >= goal (None: no share for this threshold)
    stated_pass: bool | None  # the file's own pass/fail
    notes: str | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class IomarkSummary:
    run_id: int
    run_name: str
    threshold_ms: float
    goal_pct: float
    goal_source: str
    rows: list[IomarkRow]
    meets: bool | None  # every row with a share meets the goal (None: no row has one)
    lowest: IomarkRow | None
    users_supported: int | None  # the most users of a row that meets the goal
    answer: str
    notes: list[str]

    def as_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("rows", "lowest")}
        d["rows"] = [r.as_dict() for r in self.rows]
        d["lowest"] = self.lowest.as_dict() if self.lowest else None
        return d


def iomark_runs(ws: Workspace) -> set[int]:
    if not has_table(ws, "iomark_results"):
        return set()
    return {int(r[0]) for r in ws.con.execute("SELECT DISTINCT run_id FROM iomark_results").fetchall()}


def goal_for_run(ws: Workspace, run_id: int) -> tuple[float, float, str] | None:
    """A response-time question's threshold and goal for this run, if one names it."""
    for sq in list_questions(ws):
        q = sq.question
        if isinstance(q, ResponseTimeQuestion) and run_id in q.run_ids:
            return q.threshold_ms, q.goal_pct, "the report question's goal"
    return None


def row_text(r: IomarkRow) -> str:
    parts = [str(x) for x in (r.workload, r.phase) if x not in (None, "")]
    if r.users is not None:
        parts.append(f"{r.users} users")
    if r.notes:
        parts.append(r.notes[:60])
    return ", ".join(parts) or (f"line {r.line}" if r.line is not None else "row")


def iomark_summary(ws: Workspace, run_id: int, threshold_ms: float | None = None, goal_pct: float | None = None,
                   name: str | None = None) -> IomarkSummary:
    """Per IOmark result row the share within the threshold and whether it meets the goal (module doc)."""
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"there is no run {run_id} in this workspace")
    if run_id not in iomark_runs(ws):
        raise AnalysisError(f"run {run_id} holds no IOmark results")
    source = GOAL_SOURCE
    if threshold_ms is None and goal_pct is None:
        asked = goal_for_run(ws, run_id)
        if asked is not None:
            threshold_ms, goal_pct, source = asked
    else:
        source = "as given"
    thr = THRESHOLD_MS if threshold_ms is None else float(threshold_ms)
    goal = GOAL_PCT if goal_pct is None else float(goal_pct)
    col = f"pct_within_{thr:g}ms" if thr in IOMARK_THRESHOLDS else None
    raw = _query(ws, "SELECT * FROM iomark_results WHERE run_id = ? ORDER BY row_idx", [run_id])
    rows = []
    for r in raw:
        share = r.get(col) if col else None
        rows.append(IomarkRow(r["line"], r["workload"], r["phase"], r["users"], r["iops"], r["mb_s"],
                              r["resp_avg_ms"], r["resp_max_ms"], share,
                              None if share is None else share >= goal, r["passed"], r["notes"]))
    judged = [r for r in rows if r.share_pct is not None]
    lowest = min(judged, key=lambda r: r.share_pct or 0.0) if judged else None
    meets = None if not judged else all(r.meets for r in judged)
    ok_users = [r.users for r in judged if r.meets and r.users is not None]
    users = max(ok_users) if ok_users else None
    run_name = name or str(run.name or f"run {run_id}")
    notes = ["Each IOmark result row is its own measurement (a configuration or a phase): the run's verdict is its "
             "lowest row's, never an average of rows."]
    if col is None:
        notes.append(f"IOmark reports the share of responses within 20 ms and within 50 ms only: a "
                     f"{fmt(thr)} ms threshold cannot be answered from these results.")
    answer = _iomark_answer(run_name, thr, goal, judged, lowest, users)
    return IomarkSummary(run_id, run_name, thr, goal, source, rows, meets, lowest, users, answer, notes)


def _iomark_answer(name: str, thr: float, goal: float, judged: list[IomarkRow], lowest: IomarkRow | None,
                   users: int | None) -> str:
    goal_text = f"at least {fmt(goal)} % of responses within {fmt(thr)} ms"
    if lowest is None:
        return f"{name}: no result row gives the share of responses within {fmt(thr)} ms, so the goal ({goal_text}) " \
               "cannot be judged."
    every = _every_row(judged, thr)
    if all(r.meets for r in judged):
        who = f" for up to {users} users" if users is not None else ""
        return (f"{name} meets the goal ({goal_text}){who}: the lowest row, {row_text(lowest)}, had "
                f"{share_text(lowest.share_pct)} within {fmt(thr)} ms.{every}")
    met = f" Rows that meet it support up to {users} users." if users is not None else ""
    return (f"{name} does not meet the goal ({goal_text}): {row_text(lowest)} had only "
            f"{share_text(lowest.share_pct)} within {fmt(thr)} ms.{every}{met}")


def share_text(pct: float | None) -> str:
    """A share IOmark printed, in the report's one format for shares (two decimals: 3.00 %)."""
    return "-" if pct is None else f"{pct:.2f} %"


def _every_row(judged: list[IomarkRow], thr: float) -> str:
    """Every result row's share when there are several (each its own measurement: one data server, then two), by
    what tells the rows apart: ' Row by row: one data server 3.00 %, two data servers 27.00 %.'"""
    if len(judged) < 2:
        return ""
    parts = [row_text(r).split(", ") for r in judged]
    common = set(parts[0]).intersection(*parts[1:])
    labels = [", ".join(p for p in ps if p not in common) or row_text(r) for ps, r in zip(parts, judged)]
    return (" Row by row (each its own measurement): "
            + "; ".join(f"{lab} {share_text(r.share_pct)}" for lab, r in zip(labels, judged))
            + f" within {fmt(thr)} ms.")


def fmt(v: float | None, digits: int = 1) -> str:
    """A figure for a sentence: thousands separators, up to ``digits`` decimals, no trailing zeros."""
    if v is None:
        return "–"
    if float(v).is_integer():
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}".rstrip("0").rstrip(".")
