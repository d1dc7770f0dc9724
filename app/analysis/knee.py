"""Where the response-time goal breaks: response time against IOPS over runs at increasing load, the highest load at
which the goal still holds, its uncertainty, and what it means in desktops (no Qt).

Load points
    * a **fio** run (json or json+): one point per run -- its jobs run together, their IOPS summed and their
      latencies merged -- or, with ``points="jobs"``, one point per job (steps in one file, one after another);
    * an **Iometer** run: one point per test (access specification) and target, from Iometer's own averages;
    * a run of **device rates** (iostat, sar, nmon, perfmon, esxtop ...) with a ramp: one point per interval (or
      per ``every_s`` bin), its IOPS and mean response time (await).

The goal
    ``statistic="share"``: at least ``goal_pct`` % of I/O answered within ``threshold_ms`` -- the same as "the
    ``goal_pct``-th percentile of the response time at most ``threshold_ms``" (80 % within 50 ms; p95 under 5 ms is
    95 % within 5 ms). It needs each I/O's response time: fio's json+ latency bins (exact to the bin), or the
    percentile fio printed when the goal is one of them (50, 90, 95, 99, 99.5, 99.9, 99.99). ``statistic="mean"``:
    the mean response time at most ``threshold_ms`` (Iometer's averages, iostat's await, fio's mean latency). A
    point's **response figure** is the goal's percentile (share) or the mean (mean); the goal holds at a point
    when that figure is within the threshold (bounds that straddle it leave the point undecided).

The knee
    Points are ordered by the IOPS they reached. The goal **holds up to** the highest load at which it held with
    no point failing at or below it (measured: the deciding figure, never interpolated); it **breaks by** the
    lowest load at which it failed. Between these two deciding points the response figure is interpolated
    linearly to the threshold: the **estimated crossing** (an estimate, said so everywhere). Points that passed
    above the first failure widen nothing -- the limit is taken at the first failure -- and are named in a note.
    A fit of the open queueing model R = S / (1 - X / C) (service time S, capacity C; least squares of 1/R on X)
    draws the curve and gives its own crossing as a cross-check; it never decides.

Desktops
    The loads divided by the IOPS per user (a value given, a user profile of the sizing presets, or the sizing
    question stored in the workspace), rounded down: whole desktops within the goal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from app.analysis.histograms import Bucket, merge_buckets, percentile, share_within
from app.analysis.numbers import fmt_value
from app.errors import AnalysisError
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, LATENCY_HISTOGRAMS, has, kind_label

if TYPE_CHECKING:
    from app.workspace import Workspace

STATISTICS = ("share", "mean")
POOR_FIT = 0.5  # R² under which the fitted curve is said to fit poorly (and its crossing is not quoted)
# the colours of a load point within the goal, missed, cannot tell, and of the fitted curve: the window's chart and
# the report's are the same
POINT_COLOURS: dict[bool | None, str] = {True: "#2ca02c", False: "#d62728", None: "#888888"}
FIT_COLOUR = "#1f77b4"
RAMP_BANDS = 20  # a ramp's intervals are grouped into this many equal bands of IOPS
POINTS = ("runs", "jobs")
FIO_PERCENTILES = {50.0: "p50_us", 90.0: "p90_us", 95.0: "p95_us", 99.0: "p99_us", 99.5: "p995_us",
                   99.9: "p999_us", 99.99: "p9999_us"}


@dataclass
class LoadPoint:
    run_id: int
    run_name: str
    where: str  # what part of the run: "" (the whole run), "job step3", "4k read (disk1, 8 outstanding)", ...
    iops: float
    response_ms: float | None  # the goal's figure: its percentile (share) or the mean (mean)
    response_lo_ms: float | None  # where the figure can lie (a histogram bin), else = response_ms
    response_hi_ms: float | None
    share: float | None  # share within the threshold, when known
    passed: bool | None  # the goal holds at this point (None: the bounds straddle the threshold)
    basis: str
    order: int = 0  # position in the runs as given (ties)

    @property
    def label(self) -> str:
        return self.named(self.run_name)

    def named(self, run_name: str) -> str:
        """The point in words with the run named ``run_name`` (an anonymised name in a report)."""
        return f"{run_name}, {self.where}" if self.where else run_name

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "label": self.label}


@dataclass
class Fit:
    service_ms: float  # S: the response time at no load
    capacity_iops: float  # C: the load at which the model's response time grows without bound
    r2: float  # of the response figure, over the fitted points
    crossing_iops: float | None  # where the model reaches the threshold
    points: int

    def curve(self, x_max: float, n: int = 60) -> tuple[list[float], list[float]]:
        top = min(x_max, self.capacity_iops * 0.995)
        xs = [top * k / (n - 1) for k in range(n)]
        return xs, [self.service_ms / (1 - x / self.capacity_iops) for x in xs]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class KneeResult:
    run_ids: list[int]
    statistic: str
    threshold_ms: float
    goal_pct: float
    points: list[LoadPoint]  # by IOPS
    held: LoadPoint | None  # the highest load within the goal, none failing at or below it
    broke: LoadPoint | None  # the lowest load at which it failed
    estimate_iops: float | None  # the interpolated crossing between them
    fit: Fit | None
    iops_per_user: float | None
    per_user_source: str
    notes: list[str] = field(default_factory=list)

    @property
    def goal_words(self) -> str:
        if self.statistic == "mean":
            return f"mean response time within {fmt_value(self.threshold_ms, 'ms')}"
        return f"{fmt_value(self.goal_pct)} % of I/O within {fmt_value(self.threshold_ms, 'ms')}"

    @property
    def figure_words(self) -> str:
        """What a point's response figure is."""
        if self.statistic == "mean":
            return "mean response time"
        return f"{ordinal(self.goal_pct)} percentile of the response time"

    def desktops(self, iops: float | None) -> int | None:
        if iops is None or not self.iops_per_user:
            return None
        return int(math.floor(iops / self.iops_per_user + 1e-9))

    @property
    def range_iops(self) -> tuple[float | None, float | None]:
        return (self.held.iops if self.held else None, self.broke.iops if self.broke else None)

    def method(self) -> dict[str, Any]:
        return {
            "goal": self.goal_words, "figure": self.figure_words,
            "points": "ordered by the IOPS reached; " + "; ".join(dict.fromkeys(p.basis for p in self.points)),
            "knee": "the goal holds up to the highest load at which it held with no point failing at or below it; "
                    "it breaks by the lowest load at which it failed; between them the response figure is "
                    "interpolated linearly to the threshold (an estimate)",
            "fit": "R = S / (1 - X / C), least squares of 1/R on X over the points with a response figure; drawn "
                   "and given as a cross-check, never deciding",
            "desktops": f"loads / {fmt_value(self.iops_per_user)} IOPS per user ({self.per_user_source}), "
                        "rounded down" if self.iops_per_user else "no IOPS per user",
        }

    def as_dict(self) -> dict[str, Any]:
        lo, hi = self.range_iops
        return {"run_ids": self.run_ids, "statistic": self.statistic, "threshold_ms": self.threshold_ms,
                "goal_pct": self.goal_pct, "goal": self.goal_words,
                "points": [p.as_dict() for p in self.points],
                "held_iops": lo, "broke_iops": hi, "estimate_iops": self.estimate_iops,
                "held_point": self.held.as_dict() if self.held else None,
                "broke_point": self.broke.as_dict() if self.broke else None,
                "fit": self.fit.as_dict() if self.fit else None, "iops_per_user": self.iops_per_user,
                "per_user_source": self.per_user_source, "desktops_held": self.desktops(lo),
                "desktops_estimate": self.desktops(self.estimate_iops), "desktops_broke": self.desktops(hi),
                "method": self.method(), "notes": self.notes}


def ordinal(p: float) -> str:
    n = fmt_value(p)
    if not float(p).is_integer():
        return f"{n}th"
    k = int(p)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{n}{suffix}"


# ---- points -------------------------------------------------------------------------------------------------
def _fio_points(ws: Workspace, run_id: int, name: str, statistic: str, threshold_ms: float, goal_pct: float,
                per_job: bool, notes: list[str]) -> list[LoadPoint]:
    rows = ws.con.execute(
        "SELECT device, op, iops, ios, lat_mean_us, clat_mean_us, has_bins, pct_of, "
        f"{', '.join(FIO_PERCENTILES.values())} FROM fio_jobs WHERE run_id = ? AND op IN ('read', 'write') "
        "ORDER BY job_index, op", [run_id]).fetchall()
    if not rows:
        raise AnalysisError(f"run {run_id} has no read or write job")
    cols = ["device", "op", "iops", "ios", "lat", "clat", "bins", "pct_of", *FIO_PERCENTILES.values()]
    jobs: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        d = dict(zip(cols, r))
        jobs.setdefault(d["device"], []).append(d)
    groups = [(f"job {dev}", [dev], dirs) for dev, dirs in jobs.items()] if per_job else \
        [("", list(jobs), [d for dirs in jobs.values() for d in dirs])]
    out = []
    for where, devs, dirs in groups:
        label = f"run {run_id}, {where}" if where else f"run {run_id}"
        iops = float(sum(d["iops"] or 0.0 for d in dirs))
        if statistic == "mean":
            lat = [(d["lat"] if d["lat"] is not None else d["clat"], d["iops"] or 0.0) for d in dirs]
            lat = [(v, w) for v, w in lat if v is not None and w > 0]
            if not lat:
                raise AnalysisError(f"{label} has no mean latency")
            mean = sum(v * w for v, w in lat) / sum(w for _v, w in lat) / 1000
            out.append(LoadPoint(run_id, name, where, iops, mean, mean, mean, None, mean <= threshold_ms,
                                 "fio: the jobs' mean total latency, weighted by IOPS"))
            continue
        if all(d["bins"] for d in dirs):
            out.append(_bins_point(ws, run_id, name, where, devs, iops, threshold_ms, goal_pct))
            continue
        col = FIO_PERCENTILES.get(float(goal_pct))
        vals = [d[col] for d in dirs] if col else []
        if not col or any(v is None for v in vals):
            raise AnalysisError(f"{label}: fio printed no latency bins, and the goal's percentile ({ordinal(goal_pct)})"
                                " is not one it printed (50, 90, 95, 99, 99.5, 99.9, 99.99): {fix}",
                                "fio_json_plus")
        worst = max(vals) / 1000
        if len(dirs) > 1:
            notes.append(f"{label}: reads and writes have their own percentiles and no bins: the slower "
                         "direction's is taken (conservative)")
        out.append(LoadPoint(run_id, name, where, iops, worst, worst, worst, None, worst <= threshold_ms,
                             f"fio: its own {ordinal(goal_pct)} percentile of the "
                             f"{'completion' if dirs[0]['pct_of'] != 'lat' else 'total'} latency"))
    return out


def _bins_point(ws: Workspace, run_id: int, name: str, where: str, devs: list[str], iops: float,
                threshold_ms: float, goal_pct: float) -> LoadPoint:
    label = f"run {run_id}, {where}" if where else f"run {run_id}"
    rows = ws.con.execute("SELECT bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? AND metric = "
                          "'latency_us' AND list_contains(?, device) AND op IN ('read', 'write')",
                          [run_id, devs]).fetchall()
    buckets: list[Bucket] = merge_buckets((lo, hi, int(c)) for lo, hi, c in rows)
    share = share_within(buckets, threshold_ms * 1000)
    pct = percentile(buckets, goal_pct)
    if pct is None:
        raise AnalysisError(f"{label} has no completed I/O in its latency bins")
    lo_b, hi_b = share.bounds
    goal = goal_pct / 100
    passed = True if lo_b is not None and lo_b >= goal else False if hi_b is not None and hi_b < goal else None
    lo = None if pct.lo is None else pct.lo / 1000
    hi = None if pct.hi is None else pct.hi / 1000
    est = None if pct.estimate is None else pct.estimate / 1000
    return LoadPoint(run_id, name, where, iops, est if est is not None else hi, lo, hi, share.share, passed,
                     "fio json+: the completion-latency bins of reads and writes together (exact to the bin)")


def _iometer_points(ws: Workspace, run_id: int, name: str, statistic: str, threshold_ms: float) -> list[LoadPoint]:
    from app.analysis.bench_results import iometer_rows

    if statistic != "mean":
        raise AnalysisError(f"run {run_id}: Iometer reports each test's mean and maximum response time, not the share "
                            "within a threshold: judge the mean response time")
    out = []
    for r in iometer_rows(ws, run_id):
        if r.iops is None or r.mean_ms is None:
            continue
        qd = f", {r.queue_depth} outstanding" if r.queue_depth else ""
        out.append(LoadPoint(run_id, name, f"{r.access_spec} ({r.target}{qd})", float(r.iops), r.mean_ms,
                             r.mean_ms, r.mean_ms, None, r.mean_ms <= threshold_ms,
                             "Iometer: each test's average response time"))
    return out


def _ramp_points(ws: Workspace, run_id: int, name: str, statistic: str, threshold_ms: float, device: str | None,
                 every_s: float | None) -> list[LoadPoint]:
    from app.analysis.series import load_series, resample

    if statistic != "mean":
        kind = kind_label(ws.kind_of(run_id) or "?")  # load_points checked the run exists
        raise AnalysisError(f"run {run_id}: {kind} gives each interval's mean response time (await), not the share of "
                            "I/Os within a threshold: judge the mean response time")
    s = load_series(ws, run_id, device)
    if every_s:
        s = resample(s, every_s)
    rows = [(float(r["iops"]), float(r["await_ms"]), float(r["dt_s"])) for r in s.frame.iter_rows(named=True)
            if r["iops"] and r["await_ms"] is not None]
    if not rows:
        raise AnalysisError(f"run {run_id} has no interval with I/O and a response time")
    top = max(x for x, _a, _d in rows)
    width = top / RAMP_BANDS
    bands: dict[int, list[tuple[float, float, float]]] = {}
    for x, aw, dt in rows:
        bands.setdefault(min(RAMP_BANDS - 1, int(x / width)), []).append((x, aw, dt))
    out = []
    what = f"{every_s:g} s bins" if every_s else "intervals"
    one = f"{every_s:g} s bin" if every_s else "interval"
    for k in sorted(bands):
        got = bands[k]
        ios = sum(x * dt for x, _a, dt in got)
        secs = sum(dt for _x, _a, dt in got)
        mean = sum(aw * x * dt for x, aw, dt in got) / ios
        label = (f"{len(got)} {what if len(got) != 1 else one} at {fmt_value(k * width)}–"
                 f"{fmt_value((k + 1) * width)} IOPS")
        out.append(LoadPoint(run_id, name, label, ios / secs, mean, mean, mean, None, mean <= threshold_ms,
                             f"the run's {what} grouped into {RAMP_BANDS} equal bands of IOPS: each band's mean IOPS "
                             "and its await weighted by I/Os"))
    return out


def load_points(ws: Workspace, run_ids: list[int], *, statistic: str = "share", threshold_ms: float = 50.0,
                goal_pct: float = 80.0, points: str = "runs", device: str | None = None,
                every_s: float | None = None, notes: list[str] | None = None) -> list[LoadPoint]:
    """Every load point of the runs (see the module doc), ordered by IOPS."""
    from app.analysis.bench_results import iometer_runs

    notes = [] if notes is None else notes
    iometer = iometer_runs(ws)
    out: list[LoadPoint] = []
    for k, rid in enumerate(run_ids):
        run = ws.run(rid)
        if run is None:
            raise AnalysisError(f"there is no run {rid} in this workspace")
        name = run.name
        if has(run.kind, JOB_SUMMARY) and has(run.kind, LATENCY_HISTOGRAMS):
            got = _fio_points(ws, rid, name, statistic, threshold_ms, goal_pct, points == "jobs", notes)
        elif rid in iometer:
            got = _iometer_points(ws, rid, name, statistic, threshold_ms)
        elif has(run.kind, DEVICE_RATES):
            got = _ramp_points(ws, rid, name, statistic, threshold_ms, device, every_s)
        else:
            raise AnalysisError(f"run {rid} is a {kind_label(run.kind)} run: the load steps come from fio runs, "
                                "Iometer results or a run of device rates with a ramp (iostat, sar, ...)")
        for p in got:
            p.order = k
        out += got
    return sorted(out, key=lambda p: (p.iops, p.order))


# ---- the knee -----------------------------------------------------------------------------------------------
FIT_GRID = 400  # capacities tried, from just above the highest load to 20 times it (log-spaced)


def fit_model(points: list[LoadPoint], threshold_ms: float) -> Fit | None:
    """R = S / (1 - X / C), least squares in R: for each capacity C of a log-spaced grid above the highest load, the
    best S is linear (S = sum(R g) / sum(g^2), g = 1 / (1 - X / C)); the C with the least squared error wins. None:
    fewer than 3 points with a response figure."""
    pts = [(p.iops, p.response_ms) for p in points if p.response_ms is not None and p.response_ms > 0]
    if len(pts) < 3:
        return None
    x = np.array([a for a, _ in pts], dtype=float)
    r = np.array([b for _, b in pts], dtype=float)
    top = float(x.max())
    if top <= 0:
        return None
    def best_of(cs: np.ndarray) -> tuple[float, float, float]:
        out: tuple[float, float, float] | None = None
        for c in cs:
            g = 1.0 / (1.0 - x / c)
            s = float(np.sum(r * g) / np.sum(g * g))
            err = float(np.sum((r - s * g) ** 2))
            if out is None or err < out[0]:
                out = (err, s, float(c))
        assert out is not None
        return out

    grid = top * np.logspace(np.log10(1.002), np.log10(20.0), FIT_GRID)
    _e, _s, c0 = best_of(grid)
    step = float(grid[1] / grid[0])  # then finer around the best capacity of the grid
    err, s, c = best_of(np.linspace(max(top * 1.0005, c0 / step), c0 * step, FIT_GRID))
    ss_tot = float(np.sum((r - r.mean()) ** 2))
    r2 = 1 - err / ss_tot if ss_tot > 0 else 0.0
    cross = c * (1 - s / threshold_ms) if threshold_ms > s else None
    return Fit(s, c, r2, None if cross is None else float(cross), len(pts))


def decide(pts: list[LoadPoint], threshold_ms: float, notes: list[str]) -> tuple[LoadPoint | None, LoadPoint | None,
                                                                              float | None]:
    """The two points that decide (``pts`` ordered by IOPS): the highest load within the goal with none failing at or
    below it, the lowest load that failed, and the crossing interpolated between them (see the module doc)."""
    undecided = [p for p in pts if p.passed is None]
    if undecided:
        notes.append(f"{len(undecided)} point{'s' if len(undecided) > 1 else ''} cannot be judged (the latency bin "
                     f"straddles the threshold): {', '.join(p.named(f'run {p.run_id}') for p in undecided[:5])}")
    fails = [p for p in pts if p.passed is False]
    broke = fails[0] if fails else None
    below = [p for p in pts if p.passed is True and (broke is None or p.iops < broke.iops)]
    held = below[-1] if below else None
    if broke is not None:
        above = [p for p in pts if p.passed is True and p.iops > broke.iops]
        if above:
            top = above[-1]
            notes.append(f"the goal also held at {len(above)} higher load{'s' if len(above) > 1 else ''} (up to "
                         f"{fmt_value(top.iops, 'IOPS')}, {top.named(f'run {top.run_id}')}) after failing at "
                         f"{fmt_value(broke.iops, 'IOPS')}: the limit is taken at the first failure")
    est = None
    if held is not None and broke is not None and held.response_ms is not None and broke.response_ms is not None \
            and broke.response_ms > held.response_ms and broke.iops > held.iops:
        f = (threshold_ms - held.response_ms) / (broke.response_ms - held.response_ms)
        est = held.iops + max(0.0, min(1.0, f)) * (broke.iops - held.iops)
    return held, broke, est


def knee(ws: Workspace, run_ids: list[int], *, statistic: str = "share", threshold_ms: float = 50.0,
         goal_pct: float = 80.0, points: str = "runs", iops_per_user: float | None = None,
         per_user_source: str = "given", device: str | None = None, every_s: float | None = None) -> KneeResult:
    """The knee of the runs' load points against the goal (see the module doc)."""
    if statistic not in STATISTICS:
        raise AnalysisError(f"the goal is judged on the {' or the '.join(STATISTICS)}, not {statistic!r}")
    if points not in POINTS:
        raise AnalysisError(f"a load point is one of the {' or '.join(POINTS)}, not {points!r}")
    if not run_ids:
        raise AnalysisError("give the runs at increasing load")
    notes: list[str] = []
    pts = load_points(ws, run_ids, statistic=statistic, threshold_ms=threshold_ms, goal_pct=goal_pct, points=points,
                      device=device, every_s=every_s, notes=notes)
    if len(pts) < 2:
        raise AnalysisError("one load point cannot show where the goal breaks: give runs (or steps) at two loads or "
                            "more")
    held, broke, est = decide(pts, threshold_ms, notes)
    fit = fit_model(pts, threshold_ms)
    if fit is not None and fit.r2 < POOR_FIT:
        notes.append(f"the queueing model fits these points poorly (R² {fit.r2:.2f}): its curve is a guide only")
    return KneeResult(list(run_ids), statistic, float(threshold_ms), float(goal_pct), pts, held, broke, est, fit,
                      iops_per_user, per_user_source, notes)


def per_user_from_workspace(ws: Workspace) -> tuple[float, str] | None:
    """The IOPS per user of the first sizing question stored in the workspace that states them (its steady
    value, or its profile's), with words saying where they come from."""
    from app.analysis.question_kinds import SizingQuestion, list_questions
    from app.analysis.sizing_presets import load_presets

    for sq in list_questions(ws):
        q = sq.question
        if not isinstance(q, SizingQuestion):
            continue
        if q.iops_per_user is not None:
            return float(q.iops_per_user), f"the sizing question {sq.position} (steady IOPS per user)"
        if q.profile is not None:
            v = load_presets()["user_profiles"][q.profile]["iops_per_user"]
            return float(v), f"the sizing question {sq.position} (the {q.profile} profile)"
    return None


def profile_iops(profile: str) -> float:
    from app.analysis.sizing_presets import load_presets

    return float(load_presets()["user_profiles"][profile]["iops_per_user"])


