"""Storm replay: from a measured run (or a range or phase of it), a fio job file that reproduces its I/O over
time, and the plan behind it (no Qt).

What a replay reproduces, per phase of the storm
    The run's whole-disk series (:mod:`app.analysis.series`: the same device choice, interval and axis as every
    other figure) is cut into **phases**: consecutive intervals are merged while each one's read IOPS and write
    IOPS stay within ``tolerance_pct`` of the phase's mean total IOPS (and its request sizes within the same
    tolerance of the phase's); 0 % gives one phase per interval. Each phase becomes one fio job:

    * ``rate_iops=R,W``: the phase's mean read and write IOPS (its I/Os over its seconds) times ``scale``,
      rounded to whole I/Os per second -- reads and writes apart (one value would let fio do that many of each);
    * ``rw`` and ``rwmixread``: random read, random write, or both in the measured mix;
    * request sizes: the measured average request size per direction (``bs=read,write``, rounded to 512 bytes),
      or, when a vscsiStats run gives the I/O length histogram, a ``bssplit`` per direction;
    * random versus sequential: vscsiStats' seek distance (the share of I/Os exactly one block after the
      previous one) when given, else an assumption stated in the job file (100 % random by default);
    * queue depth: ``iodepth`` = the highest average queue (``aqu-sz``) of the phase's intervals, rounded up,
      at least 1 -- a ceiling: with a rate limit fio keeps fewer in flight when the target answers faster. A
      run without queue figures gets Little's law (IOPS x await) where it has both, else 1, and says so.

How the jobs follow one another in time (``chain``)
    ``startdelay`` (the default): every job is declared at once and starts at its own second of the replay
    (``startdelay`` = its start, ``runtime`` = its length), so a job's start-up costs never push the later
    phases back. ``stonewall``: each job waits for the previous one (the gaps become ``startdelay`` after the
    wait), fio's classic chain; every job's start-up adds to the drift. fio has no option that changes a job's
    rate over time: ``rate_process`` (``linear`` or ``poisson``) only says how the I/Os of one rate are spread
    within a second. Which combination replays most faithfully was measured on real replays of
    ``sample_traces/storm_fast_iostat-xt.txt`` (docs/user-guide.md, "Storm replay"); :data:`MEASURED` holds the
    figures the job file's header quotes.

The job file's header says what it reproduces (run, devices, range, phases, scale) and what it assumes.
:func:`replay_check` (below) compares a replay's capture with the original storm.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from app.analysis.histograms import Bucket, merge_buckets, seq_share
from app.analysis.numbers import fmt_value
from app.analysis.series import Series, load_series, make_series, resample
from app.errors import AnalysisError
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, LATENCY_HISTOGRAMS, has, kind_label

if TYPE_CHECKING:
    from app.workspace import Workspace

DEFAULT_TOLERANCE_PCT = 10.0
CHAINS = ("startdelay", "stonewall")
RATE_PROCESSES = ("linear", "poisson")
DEFAULT_CHAIN = "startdelay"
DEFAULT_RATE_PROCESS = "linear"
SECTOR = 512  # request sizes are rounded to whole 512-byte sectors (direct I/O needs them)
JOB_NAME = re.compile(r"^p(\d+)_at(\d+(?:\.\d+)?)s_for(\d+(?:\.\d+)?)s$")

# How faithfully each way of chaining the jobs replayed a real storm, measured on this project's 2-core build machine
# on 2026-11-29 (tests/corpus/replay, MANIFEST.md "replay"): sample_traces/storm_fast_iostat-xt.txt, seconds 4-50,
# IOPS x 0.5, 5 % tolerance (21 phases, 20 jobs), fio 3.33 on a loop device, iostat -dxt 1 during the replay.
# iops_fidelity: 1 - sum|replay / scale - storm| / sum storm over 1 s bins (replay_check; the mean of the runs);
# drift_s: fio's elapsed time minus the storm's 46 s. startdelay + linear: 93.6 and 94.7 %, +1 s; stonewall +
# linear: 82.2 and 88.8 %, +6 s (each chained job's start-up, ~0.3 s, adds up); with poisson arrivals 91.7 % and
# 86.1 %. One job per second (0 % tolerance, 45 jobs): startdelay 88.8 %, +1 s; stonewall 68.8 %, +15 s.
# One job at the storm's mean rate (784 IOPS; fio cannot vary one job's rate over time) would reproduce at most
# 54.7 % even if fio kept the rate perfectly (computed from the storm, not run). Hence the default: startdelay, linear.
MEASURED: dict[str, dict[str, float]] = {
    "startdelay+linear": {"iops_fidelity": 0.9415, "drift_s": 1.0},
    "stonewall+linear": {"iops_fidelity": 0.855, "drift_s": 6.0},
    "startdelay+poisson": {"iops_fidelity": 0.917, "drift_s": 1.0},
    "stonewall+poisson": {"iops_fidelity": 0.861, "drift_s": 6.0},
}
CHAIN_WORDS = {
    "startdelay": "every job starts at its own second (startdelay), so one job's start-up never delays the next",
    "stonewall": "each job waits for the previous one to finish (stonewall); start-up time adds up along the chain",
}


@dataclass
class ReplayPhase:
    """One phase of the replay: consecutive intervals at a steady rate, and the fio job that reproduces it."""

    index: int
    t_start_s: float  # seconds from the start of the replayed range
    t_end_s: float
    intervals: int
    read_iops: float  # measured means over the phase (unscaled)
    write_iops: float
    read_kb: float | None  # average request size (kB = 1024 bytes); None: no I/O of that direction
    write_kb: float | None
    queue: float | None  # mean outstanding I/Os (aqu-sz summed over the devices); None: not measured
    peak_queue: float | None
    await_ms: float | None

    @property
    def duration_s(self) -> float:
        return self.t_end_s - self.t_start_s

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops

    def rates(self, scale: float) -> tuple[int, int]:
        """fio's ``rate_iops`` for reads and writes: the measured means times ``scale``, whole I/Os per second."""
        return int(round(self.read_iops * scale)), int(round(self.write_iops * scale))

    def as_dict(self, scale: float = 1.0) -> dict[str, Any]:
        r, w = self.rates(scale)
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "duration_s": self.duration_s,
                "rate_read_iops": r, "rate_write_iops": w}


@dataclass
class Shape:
    """What the replay takes each request to be: its size, random or sequential, and the queue depth."""

    sizes: str  # "average" (the measured mean size per direction) | "histogram" (a vscsiStats I/O length histogram)
    bssplit: dict[str, list[tuple[int, float]]] = field(default_factory=dict)  # read/write -> [(bytes, %)]
    random_pct: float = 100.0
    random_source: str = "assumed"  # "assumed" | "given" | "seek distance"
    queue_source: str = "aqu-sz"  # "aqu-sz" | "Little's law" | "assumed"
    shape_run: int | None = None
    words: list[str] = field(default_factory=list)  # what the header says about each


@dataclass
class ReplayPlan:
    run_id: int
    run_name: str
    kind: str
    devices: list[str]
    device_rule: str
    t_start_s: float  # the replayed range on the run's axis
    t_end_s: float
    range_label: str
    interval_s: float
    tolerance_pct: float
    scale: float
    chain: str
    rate_process: str
    phases: list[ReplayPhase]
    shape: Shape
    measured: Series  # the original series within the range, t = 0 at the range start
    notes: list[str] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return self.phases[-1].t_end_s if self.phases else 0.0

    @property
    def jobs(self) -> list[ReplayPhase]:
        """The phases that become fio jobs: those with I/O left after scaling and rounding."""
        return [p for p in self.phases if any(self.rate_iops(p))]

    def rate_iops(self, p: ReplayPhase) -> tuple[int, int]:
        return p.rates(self.scale)

    def method(self) -> dict[str, Any]:
        return {
            "series": f"{self.device_rule}; {self.interval_s:g} s intervals",
            "range": self.range_label,
            "phases": (f"consecutive intervals merged while read and write IOPS stay within {self.tolerance_pct:g} % "
                       "of the phase's mean IOPS (and request sizes within as much of the phase's)"
                       if self.tolerance_pct > 0 else "one phase per interval"),
            "rate": f"rate_iops = measured mean read and write IOPS x {self.scale:g}, whole I/Os per second",
            "shape": self.shape.words,
            "chain": CHAIN_WORDS[self.chain],
            "rate_process": self.rate_process,
        }

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "run_name": self.run_name, "kind": self.kind, "devices": self.devices,
                "t_start_s": self.t_start_s, "t_end_s": self.t_end_s, "range": self.range_label,
                "interval_s": self.interval_s, "tolerance_pct": self.tolerance_pct, "scale": self.scale,
                "chain": self.chain, "rate_process": self.rate_process, "duration_s": self.duration_s,
                "phases": [p.as_dict(self.scale) for p in self.phases], "jobs": len(self.jobs),
                "random_pct": self.shape.random_pct, "random_source": self.shape.random_source,
                "sizes": self.shape.sizes, "bssplit": {k: [list(x) for x in v] for k, v in self.shape.bssplit.items()},
                "queue_source": self.shape.queue_source, "method": self.method(), "notes": self.notes}


# ---- the range ----------------------------------------------------------------------------------------------

def _edge(frame: Any, column: str, how: str) -> float:
    """The first start or the last end of a series' intervals (polars types a column's min/max loosely)."""
    return float(getattr(frame.get_column(column), how)())

def resolve_range(ws: Workspace, run_id: int, t_start_s: float | None = None, t_end_s: float | None = None,
                  phase: str | None = None) -> tuple[float | None, float | None, str]:
    """The range to replay on the run's axis, and its words: a stored phase by name, seconds given, or the whole
    run (None, None)."""
    from app.store.phases import list_phases

    if phase is not None:
        if t_start_s is not None or t_end_s is not None:
            raise AnalysisError("give a phase or a range of seconds, not both")
        found = [p for p in list_phases(ws, run_id) if p.name == phase]
        if not found:
            have = ", ".join(repr(p.name) for p in list_phases(ws, run_id)) or "none"
            raise AnalysisError(f"run {run_id} has no phase {phase!r} (its phases: {have})")
        p = found[0]
        return p.t_start_s, p.t_end_s, f"the phase {phase!r} (seconds {p.t_start_s:g}–{p.t_end_s:g} of the run)"
    for what, v in (("start", t_start_s), ("end", t_end_s)):
        if v is not None and not math.isfinite(v):
            raise AnalysisError(f"the range's {what} must be a number of seconds, not {v!r}")
    if t_start_s is not None and t_end_s is not None and t_end_s <= t_start_s:
        raise AnalysisError(f"the range's end ({t_end_s:g} s) must come after its start ({t_start_s:g} s)")
    if t_start_s is None and t_end_s is None:
        return None, None, "the whole run"
    if t_start_s is None:
        return None, t_end_s, f"the start of the run to second {t_end_s:g}"
    if t_end_s is None:
        return t_start_s, None, f"second {t_start_s:g} of the run to its end"
    return t_start_s, t_end_s, f"seconds {t_start_s:g}–{t_end_s:g} of the run"


def parse_range(text: str) -> tuple[float | None, float | None]:
    """``A..B`` seconds (either end may be left out: ``..30``, ``12..``)."""
    lo, sep, hi = text.partition("..")
    if not sep:
        raise ValueError(f"a range of seconds like 12..45 expected, not {text!r}")
    try:
        a = float(lo) if lo.strip() else None
        b = float(hi) if hi.strip() else None
    except ValueError:
        raise ValueError(f"a range of seconds like 12..45 expected, not {text!r}") from None
    return a, b


# ---- the plan -----------------------------------------------------------------------------------------------
def _queues(ws: Workspace, run_id: int, devices: list[str]) -> dict[int, float]:
    """Per report, the average queue (aqu-sz) summed over the series' devices (reports without it left out)."""
    rows = ws.con.execute("SELECT sample_idx, sum(aqu_sz) FROM iostat_samples WHERE run_id = ? AND NOT since_boot "
                          "AND list_contains(?, device) AND aqu_sz IS NOT NULL GROUP BY sample_idx",
                          [run_id, devices]).fetchall()
    return {int(i): float(q) for i, q in rows}


def _interval_rows(s: Series, queues: dict[int, float]) -> list[dict[str, Any]]:
    f = s.frame
    out = []
    for row in f.iter_rows(named=True):
        r, w, iops = row["read_iops"], row["write_iops"], row["iops"]
        if iops is None:
            continue
        if r is None or w is None:  # no read/write split (plain reports): see _split
            r, w = None, None
        out.append({"t0": row["t_start_s"], "t1": row["t_end_s"], "dt": row["dt_s"], "iops": iops, "r": r, "w": w,
                    "rkbs": row["read_kbs"], "wkbs": row["write_kbs"], "kbs": row["kbs"], "await": row["await_ms"],
                    "q": queues.get(int(row["sample_idx"]))})
    return out


def _split(rows: list[dict[str, Any]], notes: list[str]) -> None:
    """Reports without reads and writes apart: split by the kB read and written (each direction taken at the
    same request size), or refused."""
    missing = [x for x in rows if x["r"] is None]
    if not missing:
        return
    if any(x["rkbs"] is None or x["wkbs"] is None for x in missing):
        raise AnalysisError("this run does not give reads and writes apart (neither requests nor kB): a replay needs "
                            "the read/write mix")
    for x in missing:
        kb = (x["rkbs"] or 0.0) + (x["wkbs"] or 0.0)
        share = (x["rkbs"] or 0.0) / kb if kb > 0 else 0.0
        x["r"], x["w"] = x["iops"] * share, x["iops"] * (1 - share)
    notes.append(f"{len(missing)} of {len(rows)} reports give no reads and writes apart: split by the kB read and "
                 "written -- ASSUMED reads and writes of the same size")


def _size(kbs: float | None, iops: float) -> float | None:
    return None if kbs is None or iops <= 0 else kbs / iops


def _steady(seg: list[dict[str, Any]], tol: float) -> bool:
    """Is ``seg`` one phase within ``tol`` (a fraction): every interval's read and write IOPS within ``tol`` of the
    phase's mean IOPS from the phase's means, and its request sizes within ``tol`` of the phase's?"""
    secs = sum(y["dt"] for y in seg)
    r = sum(y["r"] * y["dt"] for y in seg) / secs
    w = sum(y["w"] * y["dt"] for y in seg) / secs
    limit = tol * (r + w)
    if any(abs(y["r"] + y["w"] - r - w) > limit or abs(y["r"] - r) > limit or abs(y["w"] - w) > limit for y in seg):
        return False
    for rate, kb in (("r", "rkbs"), ("w", "wkbs")):
        sized = [y for y in seg if y[rate] > 0 and y[kb] is not None]
        ios = sum(y[rate] * y["dt"] for y in sized)
        if ios <= 0:
            continue
        mean = sum(y[kb] * y["dt"] for y in sized) / ios
        if any(abs(y[kb] / y[rate] - mean) > tol * mean for y in sized):
            return False
    return True


def _phase(index: int, seg: list[dict[str, Any]], t0: float) -> ReplayPhase:
    secs = sum(y["dt"] for y in seg)
    rios, wios = sum(y["r"] * y["dt"] for y in seg), sum(y["w"] * y["dt"] for y in seg)

    def size(rate: str, kb: str) -> float | None:
        ios = sum(y[rate] * y["dt"] for y in seg if y[kb] is not None)
        kbs = sum(y[kb] * y["dt"] for y in seg if y[kb] is not None)
        return _size(kbs, ios)

    qs = [(y["q"], y["dt"]) for y in seg if y["q"] is not None]
    aw = [(y["await"], y["iops"] * y["dt"]) for y in seg if y["await"] is not None and y["iops"] > 0]
    return ReplayPhase(index, seg[0]["t0"] - t0, seg[-1]["t1"] - t0, len(seg), rios / secs, wios / secs,
                       size("r", "rkbs"), size("w", "wkbs"),
                       sum(q * d for q, d in qs) / sum(d for _q, d in qs) if qs else None,
                       max(q for q, _d in qs) if qs else None,
                       sum(a * n for a, n in aw) / sum(n for _a, n in aw) if aw else None)


def phases_of(rows: list[dict[str, Any]], tolerance_pct: float) -> list[ReplayPhase]:
    """Consecutive intervals merged into phases within ``tolerance_pct`` (0: one phase per interval)."""
    if not rows:
        return []
    t0 = rows[0]["t0"]
    tol = tolerance_pct / 100.0
    out: list[ReplayPhase] = []
    seg = [rows[0]]
    for x in rows[1:]:
        if tol > 0 and abs(x["t0"] - seg[-1]["t1"]) < 1e-6 and _steady([*seg, x], tol):
            seg.append(x)
        else:
            out.append(_phase(len(out) + 1, seg, t0))
            seg = [x]
    out.append(_phase(len(out) + 1, seg, t0))
    return out


def _io_length_split(ws: Workspace, run_id: int) -> dict[str, list[tuple[int, float]]]:
    """vscsiStats' I/O length histogram per direction as fio's bssplit: [(bytes, % of I/Os)]."""
    from app.analysis.histograms import collection_counts

    df = collection_counts(ws, run_id, "io_length_bytes")
    out: dict[str, list[tuple[int, float]]] = {}
    for op in ("read", "write"):
        part = df.filter(pl.col("op") == op)
        buckets = [b for b in merge_buckets(part.select("bucket_lo", "bucket_hi", "count").iter_rows()) if b.count]
        n = sum(b.count for b in buckets)
        if not n:
            continue
        acc: dict[int, int] = {}
        for b in buckets:
            size = _bucket_size(b)
            acc[size] = acc.get(size, 0) + b.count
        out[op] = [(size, 100.0 * c / n) for size, c in sorted(acc.items())]
    return out


def _bucket_size(b: Bucket) -> int:
    """The request size a length bucket stands for: its edge where it holds one size (vscsiStats' (4095, 4096]),
    else its middle, in whole sectors; the open last bucket its lower edge doubled."""
    lo = 0.0 if b.lo is None else max(0.0, b.lo)
    if b.hi is None:
        v = 2 * lo
    elif b.hi - lo <= 1:
        v = b.hi
    else:
        v = (lo + b.hi) / 2
    return max(SECTOR, int(round(v / SECTOR)) * SECTOR)


def _shape(ws: Workspace, shape_run: int | None, random_pct: float | None, queue_source: str,
           notes: list[str], run_kind: str) -> Shape:
    words: list[str] = []
    shape = Shape("average", random_pct=100.0 if random_pct is None else float(random_pct),
                  random_source="assumed" if random_pct is None else "given", queue_source=queue_source,
                  shape_run=shape_run)
    if shape_run is not None:
        run = ws.run(shape_run)
        if run is None:
            raise AnalysisError(f"no run {shape_run} in this workspace")
        if not has(run.kind, LATENCY_HISTOGRAMS):
            raise AnalysisError(f"run {shape_run} is a {kind_label(run.kind)} run: request sizes and seek distances "
                                "come from a vscsiStats run's histograms")
        split = _io_length_split(ws, shape_run)
        if split:
            shape.sizes, shape.bssplit = "histogram", split
        else:
            notes.append(f"run {shape_run} has no I/O length histogram: the average request size is used")
        if random_pct is None:
            from app.analysis.histograms import collection_counts

            seek = collection_counts(ws, shape_run, "seek_distance_lbn", "all")
            seq = seq_share(merge_buckets(seek.select("bucket_lo", "bucket_hi", "count").iter_rows()))
            if seq is not None:
                shape.random_pct, shape.random_source = 100.0 * (1 - seq), "seek distance"
            else:
                notes.append(f"run {shape_run} has no seek distance histogram: random I/O is assumed")
    src = "its histograms" if shape_run is None else f"run {shape_run}"
    if shape.sizes == "histogram":
        words.append(f"request sizes: the I/O length histogram of {src} per direction (bssplit; each bucket as one "
                     "size: its edge where it holds one size, else its middle, in whole 512-byte sectors)")
    else:
        words.append("request sizes: the measured average request size per phase and direction, in whole 512-byte "
                     f"sectors -- ASSUMED every request is that size ({kind_label(run_kind)} records no size "
                     "distribution)")
    if shape.random_source == "seek distance":
        words.append(f"random vs sequential: {shape.random_pct:.1f} % random, from the seek distance histogram of "
                     f"{src} (sequential = the next block after the previous I/O)")
    elif shape.random_source == "given":
        words.append(f"random vs sequential: ASSUMED {shape.random_pct:g} % random, as set for this replay "
                     f"({kind_label(run_kind)} records no seek distance)")
    else:
        words.append(f"random vs sequential: ASSUMED {shape.random_pct:g} % random ({kind_label(run_kind)} records no "
                     "seek distance)")
    words.append({"aqu-sz": "queue depth: iodepth = the highest average queue (aqu-sz) of the phase's intervals, "
                            "rounded up, at least 1 (a ceiling: with a rate limit fio keeps fewer I/Os in flight when "
                            "the target answers faster)",
                  "Little's law": "queue depth: iodepth = IOPS x await of the phase (Little's law), rounded up, at "
                                  "least 1 -- the run gives no queue length",
                  "assumed": "queue depth: ASSUMED iodepth 1 -- the run gives neither a queue length nor a response "
                             "time"}[queue_source])
    shape.words = words
    return shape


def plan_replay(ws: Workspace, run_id: int, *, device: str | None = None, t_start_s: float | None = None,
                t_end_s: float | None = None, phase: str | None = None,
                tolerance_pct: float = DEFAULT_TOLERANCE_PCT, scale: float = 1.0, chain: str = DEFAULT_CHAIN,
                rate_process: str = DEFAULT_RATE_PROCESS, random_pct: float | None = None,
                shape_run: int | None = None) -> ReplayPlan:
    """The replay of a run of device rates (iostat, sar, nmon, perfmon, esxtop, ...), of a range of it or of a
    stored phase: see the module doc."""
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if not has(run.kind, DEVICE_RATES):
        raise AnalysisError(f"run {run_id} is a {kind_label(run.kind)} run: a replay needs I/O over time per "
                            "interval (iostat, sar, nmon, perfmon, esxtop, Get-Counter or fio logs); a vscsiStats "
                            "run can give the request sizes and seek distances of one")
    if not (math.isfinite(scale) and scale > 0):
        raise AnalysisError(f"the scale must be a number above 0, not {scale!r}")
    if not (math.isfinite(tolerance_pct) and 0 <= tolerance_pct < 100):
        raise AnalysisError(f"the tolerance must be between 0 and 100 %, not {tolerance_pct!r}")
    if chain not in CHAINS:
        raise AnalysisError(f"the chain is {' or '.join(CHAINS)}, not {chain!r}")
    if rate_process not in RATE_PROCESSES:
        raise AnalysisError(f"the rate process is {' or '.join(RATE_PROCESSES)}, not {rate_process!r}")
    if random_pct is not None and not (math.isfinite(random_pct) and 0 <= random_pct <= 100):
        raise AnalysisError(f"the random share must be between 0 and 100 %, not {random_pct!r}")
    a, b, label = resolve_range(ws, run_id, t_start_s, t_end_s, phase)
    s = load_series(ws, run_id, device)
    notes = list(s.notes)
    full = s
    lo = _edge(s.frame, "t_start_s", "min") if a is None else a
    hi = _edge(s.frame, "t_end_s", "max") if b is None else b
    s = s.window(lo, hi)
    if s.frame.height == 0:
        span = f"{fmt_value(_edge(full.frame, 't_start_s', 'min'))}–{fmt_value(_edge(full.frame, 't_end_s', 'max'))} s"
        raise AnalysisError(f"run {run_id} has no interval in {label} (its intervals cover {span})")
    queues = _queues(ws, run_id, s.devices.used)
    rows = _interval_rows(s, queues)
    if not rows:
        raise AnalysisError(f"run {run_id} has no request counts in {label}: nothing to replay")
    _split(rows, notes)
    phases = phases_of(rows, tolerance_pct)
    queue_source = "aqu-sz" if any(x["q"] is not None for x in rows) else \
        "Little's law" if any(x["await"] is not None for x in rows) else "assumed"
    shape = _shape(ws, shape_run, random_pct, queue_source, notes, run.kind)
    t0 = rows[0]["t0"]
    measured = replace(s, frame=s.frame.with_columns(pl.col("t_start_s") - t0, pl.col("t_end_s") - t0))
    rule = "whole disks" if s.devices.requested is None else "the devices asked for"
    return ReplayPlan(run_id, run.name, run.kind, list(s.devices.used), f"{rule}: {', '.join(s.devices.used)}",
                      rows[0]["t0"], rows[-1]["t1"], label, s.interval_s, float(tolerance_pct), float(scale), chain,
                      rate_process, phases, shape, measured, notes)


# ---- the job file -------------------------------------------------------------------------------------------
def _bs(kb: float | None) -> int:
    return SECTOR if kb is None else max(SECTOR, int(round(kb * 1024 / SECTOR)) * SECTOR)


def _size_text(n: int) -> str:
    for unit, div in (("m", 1 << 20), ("k", 1024)):
        if n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def iodepth(p: ReplayPhase, queue_source: str) -> int:
    if queue_source == "aqu-sz" and p.peak_queue is not None:
        return max(1, math.ceil(p.peak_queue - 1e-9))
    if queue_source == "Little's law" and p.await_ms is not None:
        return max(1, math.ceil(p.iops * p.await_ms / 1000 - 1e-9))
    return 1


def _rw(r: int, w: int, random_pct: float) -> list[str]:
    rnd = random_pct >= 100 - 1e-9
    seq = random_pct <= 1e-9
    kind = "rand" if not seq else ""
    if r and w:
        lines = [f"rw={kind}rw" if kind else "rw=rw", f"rwmixread={round(100 * r / (r + w))}"]
    else:
        lines = [f"rw={kind}{'read' if r else 'write'}"]
    if not rnd and not seq:
        lines.append(f"percentage_random={round(random_pct)}")
    return lines


def whole_percent(split: list[tuple[int, float]]) -> list[tuple[int, int]]:
    """A size split in whole percent that add up to exactly 100 (largest remainders first; sizes at 0 % left out):
    fio refuses a bssplit whose shares add up to more than 100."""
    if not split:
        return []
    floors = [(b, int(math.floor(p))) for b, p in split]
    left = 100 - sum(f for _b, f in floors)
    order = sorted(range(len(split)), key=lambda i: -(split[i][1] - floors[i][1]))
    out = [f for _b, f in floors]
    for i in order[:max(0, left)]:
        out[i] += 1
    return [(b, n) for (b, _f), n in zip(floors, out) if n > 0]


def _ms(seconds: float) -> str:
    return f"{int(round(seconds * 1000))}ms"


def job_name(p: ReplayPhase) -> str:
    """A job's name says its phase and time (the replay check reads it back from fio's report)."""
    return f"p{p.index:03d}_at{p.t_start_s:g}s_for{p.duration_s:g}s"


def render_job(plan: ReplayPlan, *, filename: str = "/tmp/stormscope_replay.dat", size: str = "1g",
               direct: bool = True, ioengine: str = "libaio", generated: str = "") -> str:
    """The fio job file of ``plan``: a header saying what it reproduces and assumes, [global], one job per phase."""
    if not plan.jobs:
        raise AnalysisError("nothing to replay: every phase rounds to 0 I/Os per second at this scale")
    sh = plan.shape
    head = [
        "; StormScope storm replay -- fio job file",
        f"; Reproduces: run {plan.run_id} {plan.run_name!r} ({kind_label(plan.kind)}), {plan.device_rule}",
        f";   {plan.range_label}: {plan.duration_s:g} s from second {plan.t_start_s:g} of the run, "
        f"{plan.interval_s:g} s intervals",
        f"; Scale: IOPS x {plan.scale:g} (rate_iops = the measured mean read and write IOPS x {plan.scale:g}, whole "
        "I/Os per second); time 1:1",
        f"; Phases: {len(plan.phases)} ({len(plan.jobs)} with I/O, one fio job each): "
        + (f"consecutive intervals merged while read and write IOPS stay within {plan.tolerance_pct:g} % of the "
           "phase's mean IOPS" if plan.tolerance_pct > 0 else "one per interval"),
        f"; Measured peak phase: {fmt_value(max(p.iops for p in plan.phases))} IOPS "
        f"(replayed at {fmt_value(max(sum(plan.rate_iops(p)) for p in plan.phases))})",
    ]
    for w in sh.words:
        head.append("; " + w[0].upper() + w[1:])
    head.append(f"; Timing: {CHAIN_WORDS[plan.chain]}; rate_process={plan.rate_process}")
    m = MEASURED.get(f"{plan.chain}+{plan.rate_process}")
    if m:
        fid, drift = m["iops_fidelity"] * 100, m["drift_s"]
        head.append(f";   measured when StormScope was built, replaying a captured test storm (8 fio jobs starting 2 s "
                    f"apart, 5 % tolerance) on a 2-core machine: IOPS over time {fid:.1f} % faithful, the replay "
                    f"{drift:+.0f} s longer than the storm")
    for n in plan.notes:
        head.append(f"; Note: {n}")
    head += [f"; Target: filename={filename} (set it to the file or device under test), size={size}",
             f"; Prepare the file once: fio --name=prepare --filename={filename} --size={size} --rw=write --bs=1m "
             "--direct=1",
             "; Check: fio --output-format=json+ THIS_FILE > replay.json, with iostat -dxt 1 running on the target;"
             " import both into StormScope beside the original run and compare them (Storm replay)."]
    if generated:
        head.append(f"; Written by StormScope {generated}")
    glob = ["[global]", f"ioengine={ioengine}", f"direct={1 if direct else 0}", f"filename={filename}",
            f"size={size}", "time_based=1", "norandommap=1", "randrepeat=0", f"rate_process={plan.rate_process}"]
    body: list[str] = []
    prev_end = 0.0
    for p in plan.jobs:
        rd, wr = plan.rate_iops(p)
        body.append("")
        body.append(f"[{job_name(p)}]")
        if plan.chain == "stonewall":
            body.append("stonewall")
            gap = p.t_start_s - prev_end
            if gap > 1e-6:
                body.append(f"startdelay={_ms(gap)}")
        elif p.t_start_s > 1e-6:
            body.append(f"startdelay={_ms(p.t_start_s)}")
        body.append(f"runtime={_ms(p.duration_s)}")
        body += _rw(rd, wr, sh.random_pct)
        body.append(f"rate_iops={rd},{wr}" if rd and wr else f"rate_iops={rd or wr}")
        if sh.sizes == "histogram" and sh.bssplit:
            parts = [":".join(f"{_size_text(b)}/{pct}" for b, pct in whole_percent(sh.bssplit.get(op, [])))
                     for op in ("read", "write")]
            body.append("bssplit=" + ",".join(x or _size_text(SECTOR) + "/100" for x in parts))
        else:
            body.append(f"bs={_size_text(_bs(p.read_kb))},{_size_text(_bs(p.write_kb))}")
        body.append(f"iodepth={iodepth(p, sh.queue_source)}")
        prev_end = p.t_end_s
    return "\n".join(head + [""] + glob + body) + "\n"


# ---- the replay check ---------------------------------------------------------------------------------------
FIDELITY_LEVELS = ((0.90, "faithful"), (0.75, "approximate"))
READ_SHARE_PP = (5.0, 10.0)  # percentage points: faithful, approximate
SIZE_RATIO = (0.10, 0.25)  # relative difference of the mean request size: faithful, approximate
LATENCY_RATIO = 0.25  # the replay's response time "similar" to the storm's within 25 %, else slower or faster
MAX_LAG_S = 10.0


@dataclass
class Dimension:
    key: str  # iops | read_share | request_size | latency
    label: str
    original: float | None
    replay: float | None
    figure: float | None  # the fidelity figure (see ``text``)
    verdict: str  # faithful | approximate | not faithful | not measured; response time: similar | slower | faster
    text: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ReplayCheck:
    original_run: int
    replay_run: int
    original_name: str
    replay_name: str
    scale: float
    range_label: str
    lag_s: float  # the replay's second 0 lies at this second of its own capture
    every_s: float
    t: list[float]  # bin starts, seconds from the start of the replayed range
    original_iops: list[float]
    replay_iops: list[float]  # divided by the scale: on the original's level
    dimensions: list[Dimension]
    verdict: str  # faithful | approximate | not faithful
    basis: str  # how the replay's figures were measured
    notes: list[str] = field(default_factory=list)
    timed: bool = True  # the replay's capture has a time line (False: fio's report, each job placed by its name)

    def dimension(self, key: str) -> Dimension:
        return next(d for d in self.dimensions if d.key == key)

    def method(self) -> dict[str, Any]:
        return {
            "axis": f"seconds from the start of {self.range_label}; the replay placed where the two IOPS curves "
                    f"match best (lag {self.lag_s:+g} s, searched within ±{MAX_LAG_S:g} s)",
            "bins": f"{self.every_s:g} s, time-weighted means",
            "iops": "1 - sum over bins of |replay IOPS / scale - original IOPS| / sum of original IOPS (reads and "
                    "writes: what a replay reproduces)",
            "read_share": "reads / all I/Os over the range, difference in percentage points",
            "request_size": "mean kB per request over the range, per direction; the larger relative difference",
            "latency": "mean response time per I/O over the range (await, or fio's mean latency); similar within "
                       f"{LATENCY_RATIO:.0%}, else slower or faster -- the target's answer, not the replay's "
                       "fidelity: not part of the verdict",
            "verdicts": f"IOPS faithful >= {FIDELITY_LEVELS[0][0]:.0%}, approximate >= {FIDELITY_LEVELS[1][0]:.0%}; "
                        f"read share within {READ_SHARE_PP[0]:g} / {READ_SHARE_PP[1]:g} points; request size within "
                        f"{SIZE_RATIO[0]:.0%} / {SIZE_RATIO[1]:.0%}; overall: the worst of the three",
            "replay": self.basis,
        }

    def as_dict(self) -> dict[str, Any]:
        return {"original_run": self.original_run, "replay_run": self.replay_run, "scale": self.scale,
                "range": self.range_label, "lag_s": self.lag_s, "every_s": self.every_s, "verdict": self.verdict,
                "dimensions": [d.as_dict() for d in self.dimensions], "t": self.t,
                "original_iops": self.original_iops, "replay_iops": self.replay_iops, "basis": self.basis,
                "method": self.method(), "notes": self.notes, "timed": self.timed}


def _grade(figure: float | None, faithful: float, approximate: float, higher_is_better: bool) -> str:
    if figure is None:
        return "not measured"
    if higher_is_better:
        return "faithful" if figure >= faithful else "approximate" if figure >= approximate else "not faithful"
    return "faithful" if figure <= faithful else "approximate" if figure <= approximate else "not faithful"


def _grid(s: Series, every_s: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The series on bins of ``every_s`` seconds from 0: bin start -> values (NaN where no data)."""
    r = resample(s, every_s).frame
    if r.height == 0:
        return np.array([]), {}
    k = np.round(r.get_column("t_start_s").to_numpy() / every_s).astype(int)
    lo, hi = int(k.min()), int(k.max())
    out: dict[str, np.ndarray] = {}
    for c in ("iops", "read_iops", "write_iops", "read_kbs", "write_kbs", "kbs", "await_ms"):
        arr = np.full(hi - lo + 1, np.nan)
        vals = r.get_column(c).cast(pl.Float64).fill_null(float("nan")).to_numpy()
        arr[k - lo] = vals
        out[c] = arr
    # what a replay reproduces: reads and writes (discards and flushes are not replayed); all requests where the
    # run does not split them
    rw = out["read_iops"] + out["write_iops"]
    out["iops"] = np.where(np.isnan(rw), out["iops"], rw)
    return np.arange(lo, hi + 1) * every_s, out


def _best_lag(o: np.ndarray, r_t: np.ndarray, r: np.ndarray, every_s: float) -> float:
    """The shift (seconds, a whole number of bins) of the replay's axis that makes its IOPS match the original's
    best: the least sum of absolute differences over the original's bins."""
    best, best_err = 0.0, math.inf
    n = len(o)
    steps = int(round(MAX_LAG_S / every_s))
    start = int(round(r_t[0] / every_s)) if len(r_t) else 0
    for lag in range(start - steps, start + steps + 1):
        idx = np.arange(n) + lag - start
        ok = (idx >= 0) & (idx < len(r))
        rep = np.where(ok, r[np.clip(idx, 0, len(r) - 1)], 0.0)
        rep = np.nan_to_num(rep)
        err = float(np.nansum(np.abs(rep - o)))  # a bin of the storm without a figure (a gap) is not compared
        if err < best_err - 1e-9:
            best, best_err = lag * every_s, err
    return best


def _replay_series(ws: Workspace, run_id: int, device: str | None) -> tuple[Series, str]:
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if has(run.kind, DEVICE_RATES):
        s = load_series(ws, run_id, device)
        return s, f"{kind_label(run.kind)} captured during the replay ({', '.join(s.devices.used)})"
    if has(run.kind, JOB_SUMMARY):
        return _fio_series(ws, run_id), ("fio's own report of the replay: each job's IOPS over its phase, placed at "
                                         "the second its name gives -- it shows whether each phase got its rate, "
                                         "not whether it ran at the right time")
    raise AnalysisError(f"run {run_id} is a {kind_label(run.kind)} run: a replay is checked from iostat (or sar, "
                        "nmon, perfmon ...) captured during it, or from fio's report of it")


def _fio_series(ws: Workspace, run_id: int) -> Series:
    """fio's report of a replay as a series: one step per job, placed by the time in its name."""
    rows = ws.con.execute("SELECT device, op, iops, io_kb, ios, runtime_s, lat_mean_us FROM fio_jobs WHERE run_id = ? "
                          "AND op IN ('read', 'write')", [run_id]).fetchall()
    jobs: dict[str, dict[str, Any]] = {}
    for dev, op, iops, io_kb, ios, runtime, lat in rows:
        m = JOB_NAME.match(str(dev))
        if m is None:
            raise AnalysisError(f"run {run_id}: the fio job {dev!r} is not one of a StormScope replay (its phase "
                                "and time are read from names like p001_at0s_for5s)")
        j = jobs.setdefault(dev, {"t0": float(m.group(2)), "dt": float(m.group(3))})
        j[op] = {"iops": iops or 0.0, "kb": io_kb, "ios": ios, "lat": lat, "runtime": runtime}
    if not jobs:
        raise AnalysisError(f"run {run_id} has no read or write job")
    out = []
    for j in sorted(jobs.values(), key=lambda x: x["t0"]):
        r, w = j.get("read", {}), j.get("write", {})
        ri, wi = float(r.get("iops") or 0.0), float(w.get("iops") or 0.0)
        rt = r.get("runtime") or w.get("runtime") or j["dt"]
        rkbs = (r["kb"] / rt) if r.get("kb") is not None and rt else None
        wkbs = (w["kb"] / rt) if w.get("kb") is not None and rt else None
        lats = [(d["lat"] / 1000, d["iops"]) for d in (r, w) if d.get("lat") is not None and d.get("iops")]
        aw = sum(a * n for a, n in lats) / sum(n for _a, n in lats) if lats else None
        out.append((j["t0"], j["dt"], ri, wi, rkbs, wkbs, aw))
    # gaps between jobs (idle phases) are intervals of no I/O
    t: list[float] = []
    dts: list[float] = []
    r_: list[float] = []
    w_: list[float] = []
    rk: list[float] = []
    wk: list[float] = []
    aws: list[float | None] = []
    end = 0.0
    for t0, dt, ri, wi, rkbs, wkbs, aw in out:
        if t0 > end + 1e-6:
            t.append(end)
            dts.append(t0 - end)
            r_.append(0.0)
            w_.append(0.0)
            rk.append(0.0)
            wk.append(0.0)
            aws.append(None)
        t.append(t0)
        dts.append(dt)
        r_.append(ri)
        w_.append(wi)
        rk.append(rkbs or 0.0)
        wk.append(wkbs or 0.0)
        aws.append(aw)
        end = t0 + dt
    s = make_series([a + b for a, b in zip(r_, w_)], dts, read_iops=r_, write_iops=w_,
                    kbs=[a + b for a, b in zip(rk, wk)], await_ms=aws, run_id=run_id, name="fio")
    frame = s.frame.with_columns(pl.Series("read_kbs", rk, pl.Float64), pl.Series("write_kbs", wk, pl.Float64))
    return replace(s, frame=frame)


def _mean_size(s_kbs: np.ndarray, s_iops: np.ndarray) -> float | None:
    ok = ~np.isnan(s_kbs) & ~np.isnan(s_iops)
    ios = float(np.sum(s_iops[ok]))
    return float(np.sum(s_kbs[ok])) / ios if ios > 0 else None


def replay_check(ws: Workspace, original_run: int, replay_run: int, *, t_start_s: float | None = None,
                 t_end_s: float | None = None, phase: str | None = None, scale: float = 1.0,
                 device: str | None = None, replay_device: str | None = None,
                 every_s: float | None = None) -> ReplayCheck:
    """Compare the capture of a replay with the original storm (see :class:`ReplayCheck`'s method)."""
    if not (math.isfinite(scale) and scale > 0):
        raise AnalysisError(f"the scale must be a number above 0, not {scale!r}")
    plan = plan_replay(ws, original_run, device=device, t_start_s=t_start_s, t_end_s=t_end_s, phase=phase,
                       tolerance_pct=0.0, scale=scale)
    orig = plan.measured
    rep, basis = _replay_series(ws, replay_run, replay_device)
    # fio's own report has no time line: each job's IOPS are placed at the second its name gives, so the first
    # dimension says whether each phase got its rate, not whether the I/O came at the right second
    timed = has(ws.kind_of(replay_run), DEVICE_RATES)
    step = float(every_s or max(plan.interval_s, 1.0))
    o_t, o = _grid(orig, step)
    r_t, r = _grid(rep, step)
    if not len(o_t) or not len(r_t):
        raise AnalysisError("the replay run has no interval with I/O")
    lag = _best_lag(o["iops"] * scale, r_t, r["iops"], step)
    # the replay's bins on the original's: bin k of the original <- bin (k + lag / step) of the replay
    shift = int(round(lag / step)) - int(round(r_t[0] / step))
    idx = np.arange(len(o_t)) + int(round(o_t[0] / step)) + shift
    ok = (idx >= 0) & (idx < len(r_t))

    def on_grid(col: str) -> np.ndarray:
        return np.where(ok, r[col][np.clip(idx, 0, len(r_t) - 1)], np.nan)

    rr = {c: on_grid(c) for c in r}
    notes = list(plan.notes)
    gap = np.isnan(o["iops"])  # bins of the storm without a figure (a disk missing from its reports: a gap)
    if gap.any():
        rr = {c: np.where(gap, np.nan, v) for c, v in rr.items()}  # compared where the storm has figures only
        notes.append(f"{int(gap.sum())} of the storm's {len(gap)} bins have no figure (a disk missing from its "
                     "reports: a gap): left out of the comparison, on both sides")
    if not ok.all():
        notes.append(f"the replay's capture covers {int(ok.sum())} of the storm's {len(ok)} bins: the rest count as "
                     "no I/O")
    o_iops = np.nan_to_num(o["iops"])
    r_iops = np.nan_to_num(rr["iops"]) / scale
    total = float(np.sum(o_iops))
    fid = None if total <= 0 else 1.0 - float(np.sum(np.abs(r_iops - o_iops))) / total
    ratio = float(np.sum(r_iops)) / total if total > 0 else None
    dims = [Dimension("iops", "IOPS over time", total * step, float(np.sum(r_iops)) * step, fid,
                      _grade(fid, FIDELITY_LEVELS[0][0], FIDELITY_LEVELS[1][0], True),
                      (f"{fid * 100:.1f} % of the I/O at the right second" if timed else
                       f"{fid * 100:.1f} % of the I/O in the right phase (fio's report: each phase's rate, not its "
                       "timing)") + (f", total I/Os {ratio:.2f} x the storm's" if ratio else "")
                      if fid is not None else "no I/O in the original range")]

    def share(d: dict[str, np.ndarray]) -> float | None:
        rd, wr = np.nansum(d["read_iops"]), np.nansum(d["write_iops"])
        return None if rd + wr <= 0 else float(rd / (rd + wr))

    so, sr = share(o), share(rr)
    pp: float | None = None
    share_text = "not measured"
    if so is not None and sr is not None:
        pp = abs(sr - so) * 100
        share_text = f"{sr * 100:.1f} % reads against {so * 100:.1f} %: {pp:.1f} points apart"
    dims.append(Dimension("read_share", "Read share", so, sr, pp, _grade(pp, READ_SHARE_PP[0], READ_SHARE_PP[1], False),
                          share_text))
    parts: list[str] = []
    worst: float | None = None
    for label, kb, io in (("reads", "read_kbs", "read_iops"), ("writes", "write_kbs", "write_iops")):
        a, b = _mean_size(o[kb], o[io]), _mean_size(rr[kb], rr[io])
        if a is None or b is None or a <= 0:
            continue
        diff = abs(b / a - 1)
        worst = diff if worst is None else max(worst, diff)
        parts.append(f"{label} {b:.1f} kB against {a:.1f}")
    size_o = _mean_size(np.nan_to_num(o["kbs"]), o_iops)
    size_r = _mean_size(np.nan_to_num(rr["kbs"]), np.nan_to_num(rr["iops"]))
    dims.append(Dimension("request_size", "Request size", size_o, size_r, worst,
                          _grade(worst, SIZE_RATIO[0], SIZE_RATIO[1], False),
                          ", ".join(parts) + (f", at most {worst * 100:.1f} % apart" if worst is not None else "")
                          if parts else "not measured"))

    def mean_lat(d: dict[str, np.ndarray], iops: np.ndarray) -> float | None:
        ok2 = ~np.isnan(d["await_ms"]) & (iops > 0)
        n = float(np.sum(iops[ok2]))
        return float(np.sum(d["await_ms"][ok2] * iops[ok2]) / n) if n > 0 else None

    lo_, lr_ = mean_lat(o, o_iops), mean_lat(rr, np.nan_to_num(rr["iops"]))
    rel: float | None = None
    lat_text = "not measured"
    if lo_ is not None and lr_ is not None and lo_ > 0:
        rel = abs(lr_ / lo_ - 1)
        lat_text = f"{lr_:.3f} ms against {lo_:.3f} ms, {lr_ / lo_:.2f} x"
    lat_verdict = "not measured" if rel is None or lr_ is None or lo_ is None else "similar" \
        if rel <= LATENCY_RATIO else "slower" if lr_ > lo_ else "faster"
    dims.append(Dimension("latency", "Response time", lo_, lr_, rel, lat_verdict, lat_text))
    judged = [d.verdict for d in dims[:3] if d.verdict != "not measured"]
    order = ["faithful", "approximate", "not faithful"]
    verdict = max(judged, key=order.index) if judged else "not faithful"
    names = {int(x.run_id): x.name for x in ws.runs()}
    return ReplayCheck(original_run, replay_run, names[original_run], names[replay_run], scale, plan.range_label,
                       lag, step, [float(x - o_t[0]) for x in o_t], o_iops.tolist(), r_iops.tolist(), dims, verdict,
                       basis, notes, timed)


def read_job_header(text: str) -> dict[str, Any]:
    """What a StormScope job file says it reproduces: run id, range (seconds of the run) and scale."""
    out: dict[str, Any] = {}
    m = re.search(r"^; Reproduces: run (\d+) ", text, re.MULTILINE)
    if m:
        out["run_id"] = int(m.group(1))
    m = re.search(r"^;   .*?: ([\d.,]+) s from second ([\d.,-]+) of the run", text, re.MULTILINE)
    if m:
        dur, start = float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))
        out["t_start_s"], out["t_end_s"] = start, start + dur
    m = re.search(r"^; Scale: IOPS x ([\d.]+)", text, re.MULTILINE)
    if m:
        out["scale"] = float(m.group(1))
    if "run_id" not in out or "scale" not in out:
        raise AnalysisError("this is not a job file written by StormScope's storm replay (its header says what it "
                            "reproduces)")
    return out
