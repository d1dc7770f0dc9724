"""Latency shares, percentiles and per-sample rates from histograms (no Qt).

A histogram is a list of buckets; a bucket counts the values in (lo, hi] (``lo`` None =
minus infinity, ``hi`` None = the overflow bucket, plus infinity). What a histogram
can say is said honestly:

* the share of I/O at or under a threshold is **exact** when no I/O lies in a bucket
  that straddles the threshold (the threshold is a bucket edge, or that bucket is
  empty); otherwise it lies between a lower and an upper **bound**, and a linear
  interpolation inside the straddling bucket gives an **estimate**, labelled as such;
* a percentile lies inside one bucket: its **bounds** are that bucket's edges, the
  interpolated value is an **estimate**.

The smallest and largest value (vscsiStats ``min``/``max``, fio's clat min/max), when
known, close the open-ended buckets and tighten the bounds.

The ``*_from_workspace`` functions read a workspace; everything else is pure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from app.errors import AnalysisError, Note  # re-exported: reports.context and others import them from here
from app.run import Run
from parsers.kinds import FIO, JOB_SUMMARY, TIME_SERIES, has, kind_label

if TYPE_CHECKING:
    from app.workspace import Workspace

LATENCY = "latency_us"
SEQ_BUCKET = (0.0, 1.0)  # seek distance of exactly +1 LBN: the next block, a sequential I/O


@dataclass(frozen=True)
class Bucket:
    lo: float | None  # exclusive; None = -inf
    hi: float | None  # inclusive; None = +inf (overflow)
    count: int


@dataclass
class Share:
    """How many of ``ios`` values are <= ``threshold``."""

    threshold: float
    ios: int
    under_lo: int  # certainly at or under the threshold
    under_hi: int  # at most this many
    estimate: float | None  # linear interpolation inside the straddling buckets (None: open-ended bucket)
    straddling: list[Bucket] = field(default_factory=list)
    edge: bool = False  # the threshold is an edge of some bucket
    by_minmax: bool = False  # the smallest or largest value alone puts every I/O on one side

    @property
    def exact(self) -> bool:
        return self.under_lo == self.under_hi

    def fraction(self, n: float | None) -> float | None:
        if n is None or self.ios == 0:
            return None
        return n / self.ios

    @property
    def share(self) -> float | None:
        """The exact share, or None when only bounds are known."""
        return self.fraction(self.under_lo) if self.exact else None

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        return self.fraction(self.under_lo), self.fraction(self.under_hi)

    @property
    def share_estimate(self) -> float | None:
        return self.fraction(self.estimate)

    def method(self, unit: str = "", scale: float = 1.0) -> str:
        t = _fmt(self.threshold / scale, unit)
        if self.ios == 0:
            return "no I/O"
        if self.exact:
            if self.edge:
                return f"exact: {t} is a bucket edge"
            if not self.straddling and self.by_minmax:
                return f"exact: the smallest/largest value puts every I/O on one side of {t}"
            if not self.straddling:
                return (f"exact: no bucket the file lists contains {t} (fio leaves out empty bins), so every I/O "
                        "is on one side of it")
            return f"exact: no I/O lies in the bucket that contains {t}"
        n = self.under_hi - self.under_lo
        b = ", ".join(_bucket_text(x, unit, scale) for x in self.straddling if x.count)
        text = (f"bounds: {n:,} I/Os lie in {b}, which straddles {t}, so the share is only known between the "
                "bounds")
        if self.estimate is None:
            return text + "; no estimate (the bucket is open-ended)"
        return text + ("; estimate: linear interpolation inside that bucket (assumes its I/Os are spread evenly: "
                       "an estimate, not a measurement)")


@dataclass
class Percentile:
    p: float
    lo: float | None  # the value lies in (lo, hi]
    hi: float | None
    estimate: float | None  # linear interpolation inside the bucket (an estimate)

    @property
    def exact(self) -> bool:
        return self.lo is not None and self.lo == self.hi


def _fmt(v: float, unit: str) -> str:
    return f"{v:,.6g} {unit}".strip()


def _bucket_text(b: Bucket, unit: str, scale: float) -> str:
    lo = "-inf" if b.lo is None else f"{b.lo / scale:,.6g}"
    hi = "+inf" if b.hi is None else f"{b.hi / scale:,.6g}"
    return f"({lo}, {hi}] {unit}".rstrip()


def merge_buckets(rows: Iterable[tuple[float | None, float | None, int]]) -> list[Bucket]:
    """Sum the counts of identical buckets (several samples or series of one histogram type)."""
    acc: dict[tuple[float | None, float | None], int] = {}
    for lo, hi, c in rows:
        acc[(lo, hi)] = acc.get((lo, hi), 0) + int(c)
    return sorted((Bucket(lo, hi, c) for (lo, hi), c in acc.items()), key=_order)


def _order(b: Bucket) -> tuple[float, float]:
    return (math.inf if b.hi is None else b.hi, -math.inf if b.lo is None else b.lo)


def _range(b: Bucket, vmin: float | None, vmax: float | None) -> tuple[float | None, float | None]:
    """Where the values of ``b`` can lie, given the overall min/max: (low end, high end)."""
    lo, hi = b.lo, b.hi
    if vmin is not None:
        lo = vmin if lo is None else max(lo, vmin)
    if vmax is not None:
        hi = vmax if hi is None else min(hi, vmax)
    return lo, hi


def share_within(buckets: Iterable[Bucket], threshold: float, vmin: float | None = None,
                 vmax: float | None = None) -> Share:
    """The share of values <= ``threshold``: exact, or bounds plus a labelled interpolation."""
    blist = list(buckets)
    ios = sum(b.count for b in blist)
    under_lo = 0
    straddle: list[Bucket] = []
    estimate: float | None = 0.0
    edge = any(b.hi == threshold or b.lo == threshold for b in blist)
    for b in blist:
        lo, hi = _range(b, vmin, vmax)
        if hi is not None and hi <= threshold:
            under_lo += b.count
            continue
        if (b.lo is not None and b.lo >= threshold) or (vmin is not None and vmin > threshold):
            continue
        straddle.append(b)
        if b.count == 0 or estimate is None:
            continue
        if lo is None or hi is None:
            estimate = None
            continue
        frac = 1.0 if hi <= lo else min(1.0, max(0.0, (threshold - lo) / (hi - lo)))
        estimate += b.count * frac
    under_hi = under_lo + sum(b.count for b in straddle)
    est = None if estimate is None else under_lo + estimate
    by_minmax = (vmax is not None and vmax <= threshold) or (vmin is not None and vmin > threshold)
    return Share(threshold, ios, under_lo, under_hi, est, straddle, edge, by_minmax)


def percentile(buckets: Iterable[Bucket], p: float, vmin: float | None = None,
               vmax: float | None = None) -> Percentile | None:
    """The p-th percentile (0-100): the bucket it lies in, and an interpolated estimate.

    None when there is no I/O, or when buckets overlap (merged histograms of different layouts).
    """
    blist = sorted(buckets, key=_order)
    n = sum(b.count for b in blist)
    if n == 0:
        return None
    prev_hi: float | None = None
    for i, b in enumerate(blist):
        if i and (prev_hi is None or (b.lo is None or b.lo < prev_hi)):
            return None  # overlapping buckets: no single bucket holds the percentile
        prev_hi = b.hi
    rank = p / 100.0 * n
    cum = 0
    for b in blist:
        if b.count == 0:
            continue
        if cum + b.count >= rank:
            lo, hi = _range(b, vmin, vmax)
            est = None
            if lo is not None and hi is not None:
                est = lo + (hi - lo) * max(0.0, min(1.0, (rank - cum) / b.count))
            return Percentile(p, lo, hi, est)
        cum += b.count
    return None  # pragma: no cover - rank <= n always reaches a bucket


# ---- per-sample rates ------------------------------------------------------------------------
@dataclass
class SampleFigures:
    """What one sample of one series says, per second of its interval."""

    ios: int | None = None
    read_ios: int | None = None
    write_ios: int | None = None
    bytes: float | None = None  # IO-length mean x count
    mean_latency_us: float | None = None
    seq_share: float | None = None
    share_50ms: Share | None = None


def rates(fig: SampleFigures, interval_s: float | None) -> dict[str, Any]:
    """IOPS = count / interval; KB/s = IO-length mean x count / interval (KB = 1024 bytes)."""

    def per_s(v: float | None) -> float | None:
        return None if v is None or not interval_s else v / interval_s

    kb_s = per_s(None if fig.bytes is None else fig.bytes / 1024)
    out: dict[str, Any] = {
        "ios": fig.ios, "iops": per_s(fig.ios), "read_iops": per_s(fig.read_ios), "write_iops": per_s(fig.write_ios),
        "kb_s": kb_s, "mb_s": None if kb_s is None else kb_s / 1024,
        "mean_latency_ms": None if fig.mean_latency_us is None else fig.mean_latency_us / 1000,
        "seq_share": fig.seq_share,
    }
    out.update(share_json(fig.share_50ms, "share_50ms"))
    return out


def share_json(s: Share | None, prefix: str) -> dict[str, Any]:
    if s is None:
        return {prefix: None, f"{prefix}_exact": None, f"{prefix}_bounds": None, f"{prefix}_estimate": None}
    return {prefix: s.share, f"{prefix}_exact": s.exact, f"{prefix}_bounds": list(s.bounds),
            f"{prefix}_estimate": s.share_estimate}


def seq_share(buckets: Iterable[Bucket]) -> float | None:
    """Share of I/Os whose seek distance is exactly +1 LBN (the (0, 1] bucket): sequential I/O."""
    blist = list(buckets)
    n = sum(b.count for b in blist)
    seq = [b for b in blist if (b.lo, b.hi) == SEQ_BUCKET]
    if n == 0 or not seq:
        return None
    return seq[0].count / n


# ---- over the workspace ------------------------------------------------------------------------
def _run(ws: Workspace, run_id: int) -> Run:
    r = ws.run(run_id)
    if r is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    return r


def _frame(ws: Workspace, sql: str, params: list[Any]) -> pl.DataFrame:
    return ws.query(sql, params)


HISTOGRAM_COUNTS = ("cumulative", "per-collection")


def counts_mode(run: Run) -> tuple[str, str]:
    """How a vscsiStats run's collections relate: ``("cumulative" | "per-collection", why)``.

    vscsiStats accumulates until it is reset (``-r``); a loop that never resets prints, in every
    collection, everything since the start. Then a collection's own I/Os are its counts minus the
    previous collection's, and the run's total is the last collection. The importer detects it
    (no bucket count ever falls); the user can say otherwise (the run menu, or the command line's ``run``).
    """
    meta = run.meta
    if not has(run.kind, TIME_SERIES):  # one histogram per job (fio)
        return "per-collection", "one set of histograms per job"
    user = meta.text("histogram_counts")
    if user is not None and user in HISTOGRAM_COUNTS:
        return user, f"{user} (set by the user)"
    if meta.flag("counts_look_cumulative"):
        return "cumulative", ("cumulative (detected: no bucket count ever falls from one collection to the next, "
                              "so vscsiStats was not reset between collections); each collection's I/Os are its "
                              "counts minus the previous collection's")
    if meta.text("counts_per_interval"):  # a format whose rows are per interval by definition says why (fio hist logs)
        return "per-collection", str(meta.text("counts_per_interval"))
    return "per-collection", "per collection (the counts fall between collections: vscsiStats was reset)"


def collection_counts(ws: Workspace, run_id: int, metric: str, op: str | None = None,
                      device: str | None = None) -> pl.DataFrame:
    """Bucket counts per collection: sample_idx, device, op, bucket_lo, bucket_hi, count.

    For a cumulative vscsiStats run (see :func:`counts_mode`) each collection's own I/Os, not the
    running total the file prints. ``op`` None = every op; ``device`` = a substring of the device.
    """
    run = _run(ws, run_id)
    sql = ("SELECT sample_idx, device, op, bucket_lo, bucket_hi, count FROM histograms "
           "WHERE run_id = ? AND metric = ? AND contains(device, ?)")
    params: list[Any] = [run_id, metric, device or ""]
    if op is not None:
        sql += " AND op = ?"
        params.append(op)
    df = _frame(ws, sql + " ORDER BY sample_idx, device, op, bucket_hi NULLS LAST", params)
    if counts_mode(run)[0] != "cumulative" or df.height == 0:
        return df
    hist, bucket = ["device", "op"], ["device", "op", "bucket_lo", "bucket_hi"]
    df = df.sort([*bucket, "sample_idx"], nulls_last=True)
    prev = pl.col("count").shift(1).over(bucket)
    # a histogram reset between two collections: some bucket falls
    fell = (pl.col("count") < prev).fill_null(False)
    df = df.with_columns(_prev=prev, _fell=fell).with_columns(_reset=pl.col("_fell").any().over([*hist, "sample_idx"]))
    own = pl.when(pl.col("_prev").is_null() | pl.col("_reset")).then(pl.col("count")) \
        .otherwise(pl.col("count") - pl.col("_prev"))
    return (df.with_columns(own.alias("count")).drop("_prev", "_fell", "_reset")
            .sort(["sample_idx", "device", "op", "bucket_hi"], nulls_last=True))


def load_buckets(ws: Workspace, run_id: int, metric: str, op: str = "all", device: str | None = None) -> pl.DataFrame:
    """Buckets of one histogram type: sample_idx, device, bucket_lo, bucket_hi, count (per collection).

    ``op='all'`` uses the file's all-I/O histogram where it has one, else read + write summed
    (fio json+ has no all-I/O histogram).
    """
    return _pick_op(collection_counts(ws, run_id, metric, None, device), op)


def load_stats(ws: Workspace, run_id: int, device: str | None = None) -> pl.DataFrame:
    """The summary of each histogram per collection: sample_idx, device, metric, op, min, max, mean, count.

    For a cumulative run, ``count`` and ``mean`` are the collection's own (the mean derived from the
    running means the file prints); ``min``/``max`` stay the running ones, which still bound the
    collection's values.
    """
    run = _run(ws, run_id)
    df = _frame(ws, "SELECT sample_idx, device, metric, op, min, max, mean, count FROM histogram_stats "
                    "WHERE run_id = ? AND contains(device, ?) ORDER BY sample_idx, device", [run_id, device or ""])
    if counts_mode(run)[0] != "cumulative" or df.height == 0:
        return df
    hist = ["device", "metric", "op"]
    df = df.sort([*hist, "sample_idx"])
    pc = pl.col("count").shift(1).over(hist)
    pm = pl.col("mean").shift(1).over(hist)
    fresh = pc.is_null() | (pl.col("count") < pc)
    own = pl.when(fresh).then(pl.col("count")).otherwise(pl.col("count") - pc)
    total = pl.col("mean") * pl.col("count")
    mean = (pl.when(fresh).then(pl.col("mean"))
            .when(own > 0).then((total - pm.fill_null(0.0) * pc.fill_null(0)) / own).otherwise(None))
    return df.with_columns(own.alias("count"), mean.alias("mean")).sort("sample_idx", "device")


def _pick_op(df: pl.DataFrame, op: str) -> pl.DataFrame:
    if op != "all":
        return df.filter(pl.col("op") == op)
    have_all = df.filter(pl.col("op") == "all").select("sample_idx", "device").unique()
    rest = df.filter(pl.col("op").is_in(["read", "write"])).join(have_all, on=["sample_idx", "device"], how="anti")
    return pl.concat([df.filter(pl.col("op") == "all"), rest])


def _rows(df: pl.DataFrame) -> list[tuple[float | None, float | None, int]]:
    return list(zip(df.get_column("bucket_lo").to_list(), df.get_column("bucket_hi").to_list(),
                    df.get_column("count").to_list()))


def _minmax(stats: pl.DataFrame, metric: str, op: str) -> tuple[float | None, float | None]:
    s = _pick_op(stats.filter(pl.col("metric") == metric), op).filter(pl.col("count") > 0)
    if s.height == 0 or s.get_column("min").null_count() or s.get_column("max").null_count():
        return None, None
    # numbers: the rows are there and none is null (checked above), which polars' min() type cannot know
    return float(s.get_column("min").min()), float(s.get_column("max").max())  # type: ignore[arg-type]  # see above


@dataclass(frozen=True)
class PercentileMs:
    """A latency percentile in ms: the bounds of the bucket it lies in, and an estimate interpolated inside it."""

    lo: float | None
    hi: float | None
    estimate: float | None
    exact: bool

    def as_dict(self) -> dict[str, Any]:
        return {"bounds_ms": [self.lo, self.hi], "estimate_ms": self.estimate, "exact": self.exact}


@dataclass(frozen=True)
class LatencyShare:
    """What :func:`latency_share` found: the share of a run's I/O answered within ``threshold_ms`` -- exact, or
    bounds and an interpolated estimate (``within``, in microseconds) -- and the latency percentiles.
    :meth:`as_dict` is the command line's JSON."""

    run_id: int
    kind: str
    op: str
    threshold_ms: float
    devices: list[str]
    samples: int  # samples (collections) summed
    within: Share
    percentiles_ms: dict[str, PercentileMs | None]  # "p50", "p99_9", ...: None where no bucket holds it
    counts: str  # how the histogram counts were read (cumulative or per collection) and why
    source: str

    @property
    def ios(self) -> int:
        return self.within.ios

    @property
    def exact(self) -> bool:
        return self.within.exact

    @property
    def under(self) -> int | None:
        """The I/Os within the threshold, where exact."""
        return self.within.under_lo if self.exact else None

    @property
    def share(self) -> float | None:
        """The exact share, or None when only bounds are known."""
        return self.within.share

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        return self.within.bounds

    @property
    def under_bounds(self) -> tuple[int, int]:
        return self.within.under_lo, self.within.under_hi

    @property
    def estimate(self) -> float | None:
        """The share interpolated inside the straddling buckets (an estimate; None when one is open-ended)."""
        return self.within.share_estimate

    @property
    def estimate_under(self) -> float | None:
        return self.within.estimate

    @property
    def method(self) -> str:
        return self.within.method("ms", 1000)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "kind": self.kind, "op": self.op, "threshold_ms": self.threshold_ms,
            "devices": self.devices, "samples": self.samples,
            "ios": self.ios, "under": self.under, "share": self.share, "exact": self.exact,
            "bounds": list(self.bounds), "under_bounds": list(self.under_bounds),
            "estimate": self.estimate, "estimate_under": self.estimate_under,
            "method": self.method,
            "percentiles_ms": {k: None if p is None else p.as_dict() for k, p in self.percentiles_ms.items()},
            "counts": self.counts, "source": self.source,
        }


def latency_share(ws: Workspace, run_id: int, threshold_ms: float = 50.0, op: str = "all",
                  device: str | None = None, percentiles: Iterable[float] = (50, 95, 99, 99.9)) -> LatencyShare:
    """Share of I/O answered within ``threshold_ms``, summed over the run's samples and matched series."""
    run = _run(ws, run_id)
    df = load_buckets(ws, run_id, LATENCY, op, device)
    if df.height == 0:
        why, fix = "", None
        if run.kind == FIO:  # fio's own semantics: its histograms come from json+ bins
            why, fix = " (fio JSON without json+ 'bins': {fix})", "fio_json_plus"
        elif has(run.kind, JOB_SUMMARY):  # DiskSpd and other benchmarks: percentiles only, in their job table
            why = f" ({kind_label(run.kind)} prints latency percentiles, not a histogram: see its job table)"
        what = f" for devices matching {device!r}" if device else ""
        raise AnalysisError(f"run {run_id} has no latency histogram (op {op}){what}{why}", fix)
    stats = load_stats(ws, run_id, device)
    vmin, vmax = _minmax(stats, LATENCY, op)
    buckets = merge_buckets(_rows(df))
    s = share_within(buckets, threshold_ms * 1000, vmin, vmax)
    pct: dict[str, PercentileMs | None] = {}
    for p in percentiles:
        r = percentile(buckets, p, vmin, vmax)
        pct[f"p{p:g}".replace(".", "_")] = None if r is None else PercentileMs(
            None if r.lo is None else r.lo / 1000, None if r.hi is None else r.hi / 1000,
            None if r.estimate is None else r.estimate / 1000, r.exact)
    return LatencyShare(
        run_id=run_id, kind=run.kind, op=op, threshold_ms=threshold_ms,
        devices=sorted(df.get_column("device").unique().to_list()), samples=df.get_column("sample_idx").n_unique(),
        within=s, percentiles_ms=pct, counts=counts_mode(run)[1],
        source="completion latency (clat) bins of fio json+" if has(run.kind, JOB_SUMMARY)
               else run.meta.text("histogram_source")  # the format names its histograms (fio hist logs)
               or "vscsiStats latency histogram (measured at the VM's virtual SCSI disk)")


def histo_summary(ws: Workspace, run_id: int, device: str | None = None) -> dict[str, Any]:
    """Per sample and series: IOPS, KB/s and MB/s, read/write IOPS, mean latency, sequential share, share <= 50 ms."""
    run = _run(ws, run_id)
    notes: list[str] = []
    if has(run.kind, JOB_SUMMARY):
        rows = _fio_rows(ws, run_id, device)
        interval = None
        if run.kind == FIO:  # fio's own latency semantics
            notes.append("fio: 'mean lat' is fio's total latency (submission + completion, lat); the <= 50 ms share "
                         "comes from the completion-latency (clat) bins of json+")
    else:
        interval = run.interval_s
        if not interval:
            notes.append(Note("the interval is unknown: IOPS and KB/s need it (set it with {fix})", "set_interval",
                              run_id=run_id))
        mode, why = counts_mode(run)
        if mode == "cumulative":
            notes.append(f"histogram counts: {why}; a collection's mean latency and IO length are derived "
                         "from the running means the file prints (rounded), so they are approximate")
        rows = _vscsi_rows(ws, run_id, device, interval)
    if not rows:
        what = f" for devices matching {device!r}" if device else ""
        raise AnalysisError(f"run {run_id} has no histogram{what}")
    return {"run_id": run_id, "kind": run.kind, "interval_s": interval, "notes": notes, "samples": rows}


def _vscsi_rows(ws: Workspace, run_id: int, device: str | None, interval: float | None) -> list[dict[str, Any]]:
    stats = load_stats(ws, run_id, device)
    t_by = {r[0]: r[1] for r in ws.con.execute(
        "SELECT DISTINCT sample_idx, t_s FROM histograms WHERE run_id = ?", [run_id]).fetchall()}
    lat = load_buckets(ws, run_id, LATENCY, "all", device)
    seek = load_buckets(ws, run_id, "seek_distance_lbn", "all", device)
    out = []
    keys = stats.select("sample_idx", "device").unique().sort("sample_idx", "device")
    for idx, dev in keys.iter_rows():
        st = stats.filter((pl.col("sample_idx") == idx) & (pl.col("device") == dev))
        fig = SampleFigures()
        length = st.filter(pl.col("metric") == "io_length_bytes")
        basis = length if length.height else st.filter(pl.col("metric") == LATENCY)
        fig.ios, fig.read_ios, fig.write_ios = _counts(basis)
        if length.height:
            fig.bytes = _bytes(length)
        lt = st.filter(pl.col("metric") == LATENCY)
        fig.mean_latency_us = _mean(lt)
        sel = (pl.col("sample_idx") == idx) & (pl.col("device") == dev)
        sk = seek.filter(sel)
        if sk.height:
            fig.seq_share = seq_share(merge_buckets(_rows(sk)))
        lb = lat.filter(sel)
        if lb.height:
            vmin, vmax = _minmax(lt, LATENCY, "all")
            fig.share_50ms = share_within(merge_buckets(_rows(lb)), 50_000.0, vmin, vmax)
        out.append({"sample_idx": idx, "t_s": t_by.get(idx), "device": dev, "interval_s": interval,
                    **rates(fig, interval)})
    return out


def _counts(st: pl.DataFrame) -> tuple[int | None, int | None, int | None]:
    by = {op: int(c) for op, c in st.select("op", "count").iter_rows() if c is not None}
    r, w = by.get("read"), by.get("write")
    total = by.get("all", (r or 0) + (w or 0) if r is not None or w is not None else None)
    return total, r, w


def _bytes(length: pl.DataFrame) -> float | None:
    by = {op: (mean, c) for op, mean, c in length.select("op", "mean", "count").iter_rows()}
    if "all" in by:
        mean, c = by["all"]
        return 0.0 if not c else None if mean is None else mean * c
    parts = [mean * c for op, (mean, c) in by.items() if op in ("read", "write") and c and mean is not None]
    return sum(parts) if parts else None


def _mean(lt: pl.DataFrame) -> float | None:
    by = {op: (mean, c) for op, mean, c in lt.select("op", "mean", "count").iter_rows()}
    if "all" in by:
        return by["all"][0]
    parts = [(m, c) for op, (m, c) in by.items() if op in ("read", "write") and c and m is not None]
    n = sum(c for _m, c in parts)
    return sum(m * c for m, c in parts) / n if n else None


def _fio_rows(ws: Workspace, run_id: int, device: str | None) -> list[dict[str, Any]]:
    like = device or ""
    jobs = _frame(ws, "SELECT device, op, ios, iops, bw_kbs, runtime_s, lat_mean_us FROM fio_jobs "
                      "WHERE run_id = ? AND contains(device, ?) ORDER BY job_index, op", [run_id, like])
    lat = load_buckets(ws, run_id, LATENCY, "all", device)
    stats = load_stats(ws, run_id, device)
    out = []
    for dev in jobs.get_column("device").unique(maintain_order=True).to_list():
        by = {r["op"]: r for r in jobs.filter(pl.col("device") == dev).iter_rows(named=True)}
        data = [by[op] for op in ("read", "write", "trim") if op in by]

        def total(col: str, data: list[dict[str, Any]] = data) -> float | None:
            vals = [r[col] for r in data if r[col] is not None]
            return sum(vals) if vals else None

        weighted = [(r["lat_mean_us"], r["ios"]) for r in data if r["lat_mean_us"] is not None and r["ios"]]
        n = sum(c for _m, c in weighted)
        mean = sum(m * c for m, c in weighted) / n if n else None
        lb = lat.filter(pl.col("device") == dev)
        share = None
        if lb.height:
            vmin, vmax = _minmax(stats.filter(pl.col("device") == dev), LATENCY, "all")
            share = share_within(merge_buckets(_rows(lb)), 50_000.0, vmin, vmax)
        kb_s = total("bw_kbs")
        runtime = max((r["runtime_s"] for r in by.values() if r["runtime_s"] is not None), default=None)
        ios = total("ios")
        out.append({"sample_idx": 0, "t_s": None, "device": dev, "interval_s": runtime,
                    "ios": None if ios is None else int(ios), "iops": total("iops"),
                    "read_iops": by["read"]["iops"] if "read" in by else None,
                    "write_iops": by["write"]["iops"] if "write" in by else None,
                    "kb_s": kb_s, "mb_s": None if kb_s is None else kb_s / 1024,
                    "mean_latency_ms": None if mean is None else mean / 1000,
                    "seq_share": None, **share_json(share, "share_50ms")})
    return out
