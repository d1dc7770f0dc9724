"""vscsiStats per VM disk over time: who did how much I/O when, alone or together (no Qt).

API (the report pages call this)::

    vm_timeline(ws, run_id, threshold_ms=50.0, active_share=0.05) -> VmTimeline
    vm_disk_words(device) -> "VM 2099979, disk scsi0:0"

``VmTimeline.as_dict()`` is plain JSON. Its parts:

* ``disks``: one :class:`VmDisk` per VM disk (vscsiStats worldGroupID + handleID), with ``label`` in
  words, one :class:`CollectionFigures` per collection, the :class:`Phase` list and a summary (mean
  IOPS while active, share within the threshold over the whole run, fio-free percentiles);
* ``story``: plain-English sentences for the report, e.g. "VM 2099979, disk scsi0:0 ran at 600 IOPS
  alone (minutes 0–6) and at 116.7 IOPS while VM 2099980, disk scsi0:1 was active (minutes 6–11).";
* ``method`` (how each figure is made) and ``notes`` (estimates, unknowns).

How the figures are made
    **Time.** A collection covers ``[start, start + length)``. With timestamp lines in the file, a
    collection starts at its timestamp and lasts until the next one (the last one: the run's interval,
    the median gap, as the importer stored it); with an interval the user set, collection *k* starts
    at *k* × interval. Minutes count from the start of the run's first collection. Without either the
    length is unknown: no minutes and no rates are given (never invented); collections are numbered
    from 1 and figures are I/Os per collection.

    **IOPS** = the collection's I/O count ÷ its length: exact. For a run never reset between
    collections (cumulative counts, see ``histograms.counts_mode``) a collection's count is its
    running total minus the previous one's.

    **MB/s** (MB = 1,048,576 bytes, as everywhere in StormScope) comes from the IO-length histogram:
    a bucket counts lengths in (lo, hi]; lengths are whole bytes, so a bucket such as (4095, 4096]
    holds only 4096. When every I/O lies in such a single-value bucket, the bytes are exact.
    Otherwise only bounds are known (each I/O at the smallest / largest whole length its bucket and
    the file's min/max allow), and the **estimate** is the file's mean IO length × the count (the
    mean is printed to a whole byte), kept inside the bounds -- labelled as an estimate.

    **Share within the threshold** is ``histograms.share_within`` (the logic of ``latency_share``):
    exact when the threshold is a bucket edge (50 ms is one of vscsiStats' edges) or no I/O lies in
    the straddling bucket; else lower/upper bounds and a labelled linear-interpolation estimate.

    **Reads/writes**: from the read and write histograms when the file has them.

    **Alone / together.** A VM disk is *active* in a collection when its I/O rate (I/Os when the
    length is unknown) is at least ``active_share`` (default 5 %) of the busiest collection of any
    disk in the run -- a few background I/Os of an idle guest do not count as activity. A *phase* of
    a disk is a run of consecutive active collections with the same set of other active disks;
    "alone" = no other disk active.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from app.analysis.histograms import (
    LATENCY,
    AnalysisError,
    Share,
    _minmax,
    _rows,
    collection_counts,
    counts_mode,
    load_buckets,
    load_stats,
    merge_buckets,
    share_within,
)
from app.analysis.numbers import fmt_value
from app.errors import Note
from app.run import Run
from parsers.kinds import LATENCY_HISTOGRAMS, TIME_SERIES, has

if TYPE_CHECKING:
    from app.workspace import Workspace

__all__ = ["CollectionFigures", "Figure", "Phase", "VmDisk", "VmTimeline", "vm_disk_words", "vm_timeline"]

LENGTH = "io_length_bytes"
MB = 1024 * 1024
DEFAULT_ACTIVE_SHARE = 0.05
_DEVICE = re.compile(r"^(?P<vm>[^:]+):(?P<handle>\d+)(?: \((?P<disk>[^)]+)\))?$")


def vm_disk_words(device: str) -> str:
    """vscsiStats' ``worldGroupID:handleID (scsiN:M)`` in words: ``VM 2099979, disk scsi0:0``."""
    m = _DEVICE.match(device or "")
    if not m:
        return device
    disk = m.group("disk") or f"handle {m.group('handle')}"
    return f"VM {m.group('vm')}, disk {disk}"


# ---- figures ----------------------------------------------------------------------------------------
@dataclass
class Figure:
    """A figure that is exact (``value``), or known between ``lo`` and ``hi`` with a labelled ``estimate``."""

    value: float | None = None
    lo: float | None = None
    hi: float | None = None
    estimate: float | None = None
    exact: bool = False
    basis: str = ""

    @property
    def best(self) -> float | None:
        """The exact value, else the estimate (for plotting; say which with ``exact``)."""
        return self.value if self.exact else self.estimate

    def scaled(self, f: float) -> Figure:
        def s(v: float | None) -> float | None:
            return None if v is None else v * f

        return Figure(s(self.value), s(self.lo), s(self.hi), s(self.estimate), self.exact, self.basis)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def share_figure(s: Share | None) -> Figure | None:
    """A :class:`histograms.Share` as a Figure of fractions 0..1."""
    if s is None or s.ios == 0:
        return None
    lo, hi = s.bounds
    return Figure(s.share, lo, hi, s.share if s.exact else s.share_estimate, s.exact, s.method("ms", 1000))


def bytes_figure(buckets: list[tuple[float | None, float | None, int]], vmin: float | None, vmax: float | None,
                 mean: float | None) -> Figure | None:
    """Total bytes of an IO-length histogram: exact when every I/O lies in a single-value bucket."""
    n = sum(int(c) for _lo, _hi, c in buckets)
    if n == 0:
        return Figure(0.0, 0.0, 0.0, 0.0, True, "no I/O")
    lo_sum, hi_sum, mid_sum = 0.0, 0.0, 0.0
    hi_known = True
    for blo, bhi, c in buckets:
        if not c:
            continue
        small = 1.0 if blo is None else math.floor(blo) + 1.0  # lengths are whole bytes > lo
        large = None if bhi is None else float(math.floor(bhi))
        if vmin is not None:
            small = max(small, float(math.ceil(vmin)))
        if vmax is not None:
            large = float(math.floor(vmax)) if large is None else min(large, float(math.floor(vmax)))
        lo_sum += c * small
        if large is None:
            hi_known = False
        else:
            hi_sum += c * large
            mid_sum += c * (small + large) / 2
    if hi_known and lo_sum == hi_sum:
        return Figure(lo_sum, lo_sum, hi_sum, lo_sum, True,
                      "exact: every I/O lies in a bucket that holds one length (e.g. (4095, 4096] holds 4096)")
    hi_v = hi_sum if hi_known else None
    if mean is not None:
        est = mean * n
        est = max(est, lo_sum) if hi_v is None else min(max(est, lo_sum), hi_v)
        how = "estimate: the file's mean IO length (a whole byte) × the count, kept inside the bounds"
    elif hi_v is not None:
        est, how = mid_sum, "estimate: each I/O at the middle of its bucket"
    else:
        est, how = None, "no estimate: some I/O lie in the open-ended top bucket and the largest length is unknown"
    return Figure(None, lo_sum, hi_v, est, False,
                  "bounds: I/Os lie in buckets that hold several lengths (each I/O at the smallest / largest "
                  f"whole length its bucket allows); {how}")


@dataclass
class CollectionFigures:
    """One VM disk in one collection. Rates are None when the collection's length is unknown."""

    sample_idx: int  # 0-based; words say "collection sample_idx + 1"
    t_start_min: float | None
    t_end_min: float | None
    length_s: float | None
    ios: int | None  # None: the disk is not in this collection
    read_ios: int | None = None
    write_ios: int | None = None
    iops: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    mb_s: Figure | None = None
    read_mb_s: Figure | None = None
    write_mb_s: Figure | None = None
    share: Figure | None = None  # of I/O within the threshold, 0..1
    active: bool = False
    others_active: list[str] = field(default_factory=list)  # devices

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("mb_s", "read_mb_s", "write_mb_s", "share"):
            v = getattr(self, k)
            d[k] = None if v is None else v.as_dict()
        return d


@dataclass
class Phase:
    """Consecutive active collections of one disk with the same other active disks."""

    device: str
    others: list[str]  # devices active at the same time ([] = alone)
    first: int  # sample_idx
    last: int
    t_start_min: float | None
    t_end_min: float | None
    ios: int
    length_s: float | None
    iops: float | None
    share: Figure | None

    @property
    def alone(self) -> bool:
        return not self.others

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["share"] = None if self.share is None else self.share.as_dict()
        d["alone"] = self.alone
        d["others_words"] = [vm_disk_words(o) for o in self.others]
        return d


@dataclass
class VmDisk:
    device: str
    label: str
    collections: list[CollectionFigures]
    phases: list[Phase]
    active_collections: int
    ios_total: int
    mean_iops_active: float | None  # I/Os of the active collections ÷ their length
    mean_ios_active: float | None  # per active collection (when lengths are unknown)
    share_run: Figure | None  # within the threshold, whole run
    percentiles_ms: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "label": self.label,
                "collections": [c.as_dict() for c in self.collections],
                "phases": [p.as_dict() for p in self.phases], "active_collections": self.active_collections,
                "ios_total": self.ios_total, "mean_iops_active": self.mean_iops_active,
                "mean_ios_active": self.mean_ios_active,
                "share_run": None if self.share_run is None else self.share_run.as_dict(),
                "percentiles_ms": self.percentiles_ms}


@dataclass
class VmTimeline:
    run_id: int
    run_name: str
    threshold_ms: float
    interval_s: float | None
    interval_source: str | None
    times_known: bool
    counts: str  # how collections relate (histograms.counts_mode)
    disks: list[VmDisk]
    story: list[str]
    method: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def disk(self, device_or_vm: str) -> VmDisk:
        """The disk whose device is, or starts with, ``device_or_vm`` (a worldGroupID alone works)."""
        for d in self.disks:
            if d.device == device_or_vm or d.device.startswith(device_or_vm + ":"):
                return d
        raise KeyError(device_or_vm)

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "run_name": self.run_name, "threshold_ms": self.threshold_ms,
                "interval_s": self.interval_s, "interval_source": self.interval_source,
                "times_known": self.times_known, "counts": self.counts,
                "disks": [d.as_dict() for d in self.disks], "story": list(self.story), "method": self.method,
                "notes": [str(n) for n in self.notes]}


# ---- the analysis -----------------------------------------------------------------------------------
def _times(ws: Workspace, run_id: int, run: Run, samples: list[int]) -> tuple[
        dict[int, tuple[float, float]], str | None]:
    """sample_idx -> (start s since the first collection, length s); empty when lengths are unknown."""
    interval = run.interval_s
    if not interval:
        return {}, None
    src = run.interval_source
    t_by = {int(i): t for i, t in ws.con.execute(
        "SELECT DISTINCT sample_idx, t_s FROM histograms WHERE run_id = ?", [run_id]).fetchall()}
    out: dict[int, tuple[float, float]] = {}
    note = None
    if src == "timestamps" and all(t_by.get(i) is not None for i in samples):
        order = sorted(samples)
        t0 = float(t_by[order[0]])
        for k, i in enumerate(order):
            start = float(t_by[i]) - t0
            nxt = order[k + 1] if k + 1 < len(order) else None
            length = float(t_by[nxt]) - float(t_by[i]) if nxt is not None else float(interval)
            out[i] = (start, length)
        if len(order) > 1:
            note = (f"each collection lasts until the next timestamp; the last one's length is taken as the run's "
                    f"interval ({float(interval):g} s, the median gap between timestamps)")
    else:
        t0 = min(samples)
        out = {i: ((i - t0) * float(interval), float(interval)) for i in samples}
    return out, note


def _share_of(lat: pl.DataFrame, stats: pl.DataFrame, threshold_us: float) -> Share | None:
    if lat.height == 0:
        return None
    vmin, vmax = _minmax(stats, LATENCY, "all")
    return share_within(merge_buckets(_rows(lat)), threshold_us, vmin, vmax)


def _bytes_of(length: pl.DataFrame, stats: pl.DataFrame, op: str) -> Figure | None:
    """Bytes of one op's IO-length histogram(s) in ``length`` (already restricted to a sample and disk)."""
    if op == "all":
        have_all = length.filter(pl.col("op") == "all")
        parts = ["all"] if have_all.height else ["read", "write"]
    else:
        parts = [op]
    figs = []
    for p in parts:
        b = length.filter(pl.col("op") == p)
        if b.height == 0:
            continue
        st = stats.filter((pl.col("metric") == LENGTH) & (pl.col("op") == p))
        vmin = vmax = mean = None
        if st.height and (st.get_column("count").fill_null(0) > 0).any():
            row = st.row(0, named=True)
            vmin, vmax, mean = row["min"], row["max"], row["mean"]
        figs.append(bytes_figure(_rows(b), vmin, vmax, mean))
    found = [f for f in figs if f is not None]
    if not found:
        return None
    if len(found) == 1:
        return found[0]

    def tot(vals: list[float | None]) -> float | None:
        return None if any(v is None for v in vals) else sum(v for v in vals if v is not None)

    exact = all(f.exact for f in found)
    return Figure(tot([f.value for f in found]) if exact else None, tot([f.lo for f in found]),
                  tot([f.hi for f in found]), tot([f.best for f in found]), exact,
                  "reads + writes: " + "; ".join(dict.fromkeys(f.basis for f in found)))


def _per_s(v: float | None, length: float | None) -> float | None:
    return None if v is None or not length else v / length


def vm_timeline(ws: Workspace, run_id: int, threshold_ms: float = 50.0,
                active_share: float = DEFAULT_ACTIVE_SHARE) -> VmTimeline:
    """Per VM disk and collection of a vscsiStats run: IOPS, MB/s, share within ``threshold_ms``, and the story."""
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    if not (has(run.kind, TIME_SERIES) and has(run.kind, LATENCY_HISTOGRAMS)):
        raise AnalysisError(f"run {run_id} is a {run.kind} run: the VM timeline needs vscsiStats histograms")
    stats = load_stats(ws, run_id)
    if stats.height == 0:
        raise AnalysisError(f"run {run_id} has no histogram")
    lat = load_buckets(ws, run_id, LATENCY, "all")
    length = collection_counts(ws, run_id, LENGTH)
    samples = sorted(int(i) for i in stats.get_column("sample_idx").unique().to_list())
    devices = sorted(stats.get_column("device").unique().to_list())
    times, time_note = _times(ws, run_id, run, samples)
    known = bool(times)
    threshold_us = threshold_ms * 1000.0
    notes: list[str] = []
    mode, mode_why = counts_mode(run)
    if not known:
        notes.append(Note("the length of a collection is unknown: no minutes and no IOPS or MB/s can be given, only "
                          "I/Os per collection (set the time between collections with {fix})", "set_interval",
                          run_id=run_id))
    if time_note:
        notes.append(time_note)
    if mode == "cumulative":
        notes.append(f"histogram counts: {mode_why}")

    # per (device, sample): counts per op
    counts: dict[tuple[str, int], dict[str, int]] = {}
    basis_metric = LENGTH if (stats.get_column("metric") == LENGTH).any() else LATENCY
    for dev, idx, op, c in stats.filter(pl.col("metric") == basis_metric).select(
            "device", "sample_idx", "op", "count").iter_rows():
        counts.setdefault((dev, int(idx)), {})[op] = int(c or 0)
    active = _activity(counts, times, known, active_share)

    disks: list[VmDisk] = []
    for dev in devices:
        s_dev = stats.filter(pl.col("device") == dev)
        l_dev = lat.filter(pl.col("device") == dev)
        len_dev = length.filter(pl.col("device") == dev)
        cols: list[CollectionFigures] = []
        for idx in samples:
            t = times.get(idx)
            start_min = None if t is None else t[0] / 60
            end_min = None if t is None else (t[0] + t[1]) / 60
            dlen = None if t is None else t[1]
            d = counts.get((dev, idx))
            if d is None:
                cols.append(CollectionFigures(idx, start_min, end_min, dlen, None))
                continue
            sel = pl.col("sample_idx") == idx
            st = s_dev.filter(sel)
            n = _total(d)
            lb = len_dev.filter(sel)
            mb = {op: _bytes_of(lb, st, op) for op in ("all", "read", "write")}
            mbs = {op: (None if f is None or not dlen else f.scaled(1.0 / MB / dlen)) for op, f in mb.items()}
            others = [o for o in devices if o != dev and active.get((o, idx))]
            cols.append(CollectionFigures(
                idx, start_min, end_min, dlen, n, d.get("read"), d.get("write"), _per_s(n, dlen),
                _per_s(d.get("read"), dlen), _per_s(d.get("write"), dlen), mbs["all"],
                mbs["read"] if "read" in d else None, mbs["write"] if "write" in d else None,
                share_figure(_share_of(l_dev.filter(sel), st, threshold_us)), bool(active.get((dev, idx))),
                others))
        phases = _phases(dev, cols, l_dev, s_dev, threshold_us, known)
        act = [c for c in cols if c.active]
        n_act = sum(c.ios or 0 for c in act)
        len_act = sum(c.length_s or 0.0 for c in act) if known else None
        run_share = _share_of(l_dev, s_dev, threshold_us)
        pct = _percentiles(ws, run_id, dev, devices, threshold_ms)
        disks.append(VmDisk(dev, vm_disk_words(dev), cols, phases, len(act), sum(c.ios or 0 for c in cols),
                            _per_s(n_act, len_act) if act else None, n_act / len(act) if act else None,
                            share_figure(run_share), pct))
    missing = [f"{d.label}: collections {', '.join(str(c.sample_idx + 1) for c in d.collections if c.ios is None)}"
               for d in disks if any(c.ios is None for c in d.collections)]
    if missing:
        notes.append("not in every collection (no figures there, counted as not active): " + "; ".join(missing))
    if any(c.mb_s is not None and not c.mb_s.exact for d in disks for c in d.collections):
        notes.append("MB/s: some I/Os lie in IO-length buckets that hold several lengths, so MB/s is given as "
                     "bounds with an estimate (the file's mean IO length × count), labelled as such")
    if any(c.share is not None and not c.share.exact for d in disks for c in d.collections):
        notes.append(f"share within {threshold_ms:g} ms: {threshold_ms:g} ms is not a latency bucket edge and I/O "
                     "lies in the bucket around it, so the share is given as bounds with an interpolated estimate")
    story = _story(disks, samples, times, threshold_ms)
    method = {
        "time": ("minutes from the start of the run's first collection; a collection covers [start, start + "
                 "length): from its timestamp to the next one, or k × the interval the user set"
                 if known else "unknown: the file has no timestamps and no interval was set; collections are "
                 "numbered from 1"),
        "iops": "the collection's I/O count ÷ its length (exact)",
        "mb_s": ("IO-length histogram: exact when every I/O lies in a single-length bucket, else bounds plus an "
                 "estimate (the file's mean IO length × count); MB = 1,048,576 bytes"),
        "share": (f"share of I/O with latency ≤ {threshold_ms:g} ms from the latency histogram (vscsiStats "
                  "measures at the VM's virtual SCSI disk): exact at a bucket edge, else bounds plus a labelled "
                  "linear-interpolation estimate"),
        "reads_writes": "from the read and write histograms, when the file has them",
        "active": (f"a disk is active in a collection when its {'I/O rate' if known else 'I/O count'} is at least "
                   f"{active_share:.0%} of the busiest collection of any disk in the run"),
        "phases": "consecutive active collections of a disk with the same other disks active; alone = none",
        "counts": mode_why,
    }
    return VmTimeline(run_id, run.name or str(run_id), threshold_ms, run.interval_s,
                      run.interval_source, known, mode, disks, story, method, notes)


def _total(d: dict[str, int]) -> int:
    """A collection's I/Os from its counts per op."""
    return d["all"] if "all" in d else d.get("read", 0) + d.get("write", 0)


def _activity(counts: dict[tuple[str, int], dict[str, int]], times: dict[int, tuple[float, float]], known: bool,
              active_share: float) -> dict[tuple[str, int], bool]:
    """Whether each disk was active in each collection: its rate (or count, when the times are unknown) is at
    least ``active_share`` of the busiest collection of any disk."""
    level: dict[tuple[str, int], float] = {}
    for (dev, idx), d in counts.items():
        n = _total(d)
        level[(dev, idx)] = n / times[idx][1] if known else float(n)
    peak = max(level.values(), default=0.0)
    cut = active_share * peak
    return {k: v > 0 and v >= cut for k, v in level.items()}


def _percentiles(ws: Workspace, run_id: int, dev: str, devices: list[str], threshold_ms: float) -> dict[str, Any]:
    """latency_share's percentiles for one disk (only when its name matches no other disk's: it filters by
    substring)."""
    from app.analysis.histograms import latency_share

    if any(o != dev and dev in o for o in devices):
        return {}
    try:
        return latency_share(ws, run_id, threshold_ms, device=dev).as_dict()["percentiles_ms"]
    except AnalysisError:
        return {}


def _phases(dev: str, cols: list[CollectionFigures], lat: pl.DataFrame, stats: pl.DataFrame, threshold_us: float,
            known: bool) -> list[Phase]:
    groups: list[list[CollectionFigures]] = []
    for c in cols:
        if not c.active:
            continue
        if groups and groups[-1][-1].sample_idx == c.sample_idx - 1 and groups[-1][-1].others_active == \
                c.others_active:
            groups[-1].append(c)
        else:
            groups.append([c])
    out = []
    for g in groups:
        idxs = [c.sample_idx for c in g]
        ios = sum(c.ios or 0 for c in g)
        length = sum(c.length_s or 0.0 for c in g) if known else None
        sel = pl.col("sample_idx").is_in(idxs)
        share = share_figure(_share_of(lat.filter(sel), stats.filter(sel), threshold_us))
        out.append(Phase(dev, list(g[0].others_active), idxs[0], idxs[-1], g[0].t_start_min, g[-1].t_end_min, ios,
                         length, _per_s(ios, length), share))
    return out


# ---- words ------------------------------------------------------------------------------------------
def _rate(v: float | None) -> str:
    """A rate in the one format of every figure (fmt_value: 600, 116.7, 1,212), so the story and the tables
    print a value the same way."""
    return "?" if v is None else fmt_value(v)


def _mins(a: float | None, b: float | None) -> str:
    def m(x: float) -> str:
        return f"{x:,.1f}".rstrip("0").rstrip(".")

    return f"minutes {m(a)}–{m(b)}" if a is not None and b is not None else ""


def _when(p: Phase, known: bool) -> str:
    if known:
        return _mins(p.t_start_min, p.t_end_min)
    return f"collection {p.first + 1}" if p.first == p.last else f"collections {p.first + 1}–{p.last + 1}"


def _names(devs: list[str]) -> str:
    words = [vm_disk_words(d) for d in devs]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def share_words(f: Figure | None, threshold_ms: float) -> str:
    """'99.97 % of I/O within 50 ms' or 'between 90.0 % and 95.0 % (estimate 92.1 %) ...'."""
    if f is None:
        return ""
    if f.exact and f.value is not None:
        return f"{f.value * 100:.2f} % of I/O within {threshold_ms:g} ms"
    lo = "?" if f.lo is None else f"{f.lo * 100:.2f} %"
    hi = "?" if f.hi is None else f"{f.hi * 100:.2f} %"
    est = "" if f.estimate is None else f" (estimate {f.estimate * 100:.2f} %)"
    return f"between {lo} and {hi}{est} of I/O within {threshold_ms:g} ms"


def _phase_words(p: Phase, known: bool) -> str:
    amount = f"{_rate(p.iops)} IOPS" if known else \
        f"{p.ios / (p.last - p.first + 1):,.0f} I/Os per collection"
    who = "alone" if p.alone else f"while {_names(p.others)} {'was' if len(p.others) == 1 else 'were'} active"
    return f"{amount} {who} ({_when(p, known)})"


def _story(disks: list[VmDisk], samples: list[int], times: dict[int, tuple[float, float]],
           threshold_ms: float) -> list[str]:
    known = bool(times)
    out: list[str] = []
    if not known:
        out.append("The file does not say how long each collection lasted, so the figures below are I/Os per "
                   "collection, not IOPS.")
    for d in disks:
        if not d.phases:
            out.append(f"{d.label} did no I/O worth counting in this run ({d.ios_total:,} I/Os in all).")
            continue
        parts = [_phase_words(p, known) for p in d.phases]
        verb = "ran at" if known else "did"
        out.append(f"{d.label} {verb} " + ", then ".join(parts) + ".")
        alone = [p for p in d.phases if p.alone]
        together = [p for p in d.phases if not p.alone]
        if alone and together:
            a, t = alone[0], together[0]
            av = a.iops if known else a.ios / (a.last - a.first + 1)
            tv = t.iops if known else t.ios / (t.last - t.first + 1)
            unit = "IOPS" if known else "I/Os per collection"
            if av and tv is not None:
                change = (tv - av) / av * 100
                direction = "fell" if tv < av else "rose"
                s = (f"While {_names(t.others)} {'was' if len(t.others) == 1 else 'were'} active, {d.label} "
                     f"{direction} from {_rate(av)} to {_rate(tv)} {unit} ({change:+.0f} %)")
                if a.share is not None and t.share is not None:
                    s += (f"; alone it had {share_words(a.share, threshold_ms)}, together "
                          f"{share_words(t.share, threshold_ms)}")
                out.append(s + ".")
    # several disks active together vs the best one alone
    best_alone = max(((p.iops if known else p.ios / (p.last - p.first + 1)), d.label)
                     for d in disks for p in d.phases if p.alone) if any(
        p.alone for d in disks for p in d.phases) else None
    by_set: dict[tuple[str, ...], list[int]] = {}
    for idx in samples:
        act = tuple(d.device for d in disks for c in d.collections if c.sample_idx == idx and c.active)
        if len(act) > 1:
            by_set.setdefault(act, []).append(idx)
    for act, idxs in by_set.items():
        ios = sum(c.ios or 0 for d in disks if d.device in act for c in d.collections if c.sample_idx in idxs)
        if known:
            length = sum(times[i][1] for i in idxs)
            rate: float | None = ios / length if length else None
        else:
            rate = ios / len(idxs)
        unit = "IOPS" if known else "I/Os per collection"
        both = "both" if len(act) == 2 else "all"
        s = f"While {_names(list(act))} were {both} active, they did {_rate(rate)} {unit} together"
        if best_alone is not None and best_alone[0] is not None and rate is not None:
            cmp = "fewer than" if rate < best_alone[0] else "more than"
            s += f", {cmp} {best_alone[1]} alone ({_rate(best_alone[0])} {unit})"
        out.append(s + ".")
    return out
