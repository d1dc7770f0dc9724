"""A/B comparison of runs: per metric and phase, side by side with delta and ratio (no Qt).

The first run is the baseline: ``delta = run - baseline``, ``ratio = run / baseline`` (None when the
baseline is 0 or missing).

* iostat runs: the storm metrics of ``app.analysis.storm`` for the whole run and per phase. Phases
  are the run's stored phases (matched by name) or, when it has none, the automatic split (matched by
  position: ``phase 1`` with ``phase 1``). "time above" uses one absolute threshold for every run
  (default 50 % of the baseline's peak) so that the figures compare.
* fio runs: fio's own totals (IOPS, KB/s, I/Os, read share, I/O-weighted mean latency) and the p99
  completion latency from json+ bins where the run has them (an estimate inside a bucket).
* IOzone: when the workspace has an ``iozone_results`` table, rows of the compared runs are matched on
  mode, source, test, file size, record size, threads and unit, and kB/s, ops/s, µs/op (and the
  throughput-mode figures) are compared; rows measured on a file smaller than RAM are flagged
  (``page_cache_likely``). Without the table that part says so and the rest stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from app.analysis.histograms import AnalysisError, latency_share
from app.analysis.storm import StormMetrics, StormParams, storm_report
from app.run import Run
from app.workspace import Workspace, has_table
from parsers.kinds import DEVICE_RATES, JOB_SUMMARY, THROUGHPUT_GRID, has

STORM_METRICS: list[tuple[str, str]] = [
    ("duration_s", "s"), ("peak_iops", "IOPS"), ("peak_t_end_s", "s"), ("time_to_peak_s", "s"),
    ("time_above_s", "s"), ("settle_time_s", "s"), ("total_ios", "I/Os"), ("mean_iops", "IOPS"),
    ("read_share", "fraction"), ("iops_p50", "IOPS"), ("iops_p95", "IOPS"), ("iops_p99", "IOPS"),
    ("mean_await_ms", "ms"), ("await_p50_ms", "ms"), ("await_p95_ms", "ms"), ("await_p99_ms", "ms"),
    ("peak_kbs", "kB/s"), ("mean_kbs", "kB/s"),
]
FIO_METRICS: list[tuple[str, str]] = [
    ("duration_s", "s"), ("total_ios", "I/Os"), ("mean_iops", "IOPS"), ("read_share", "fraction"),
    ("mean_kbs", "kB/s"), ("mean_latency_ms", "ms"), ("latency_p99_ms", "ms (estimate)"),
]
IOZONE_KEYS = ("mode", "source", "test", "file_kb", "record_kb", "threads", "unit")
IOZONE_VALUES = ("kb_s", "ops_s", "us_per_op", "parent", "min_proc", "max_proc", "avg_proc", "min_xfer")
IOZONE_KEY_HINTS = ("test", "op", "mode", "file", "size", "record", "reclen", "thread", "children", "process",
                    "stride", "unit", "idx", "line")


def _flat(m: StormMetrics) -> dict[str, float | None]:
    d = {k: v for k, v in m.as_dict().items() if not isinstance(v, dict)}
    for k, v in m.iops_percentiles.items():
        d[f"iops_{k}"] = v
    for k, v in m.await_percentiles_ms.items():
        d[f"await_{k}_ms"] = v
    return d


def _fio_summary(ws: Workspace, run_id: int) -> dict[str, float | None]:
    rows = ws.query("SELECT op, ios, iops, bw_kbs, runtime_s, lat_mean_us FROM fio_jobs WHERE run_id = ?",
                    [run_id]).to_dicts()
    data = [r for r in rows if r["op"] in ("read", "write", "trim")]
    ios = [r["ios"] for r in data if r["ios"] is not None]
    reads = sum(r["ios"] or 0 for r in data if r["op"] == "read")
    total = sum(ios) if ios else None
    lat = [(r["lat_mean_us"], r["ios"]) for r in data if r["lat_mean_us"] is not None and r["ios"]]
    n = sum(c for _m, c in lat)
    out: dict[str, float | None] = {
        "duration_s": max((r["runtime_s"] for r in data if r["runtime_s"] is not None), default=None),
        "total_ios": total, "mean_iops": sum(r["iops"] or 0 for r in data) if data else None,
        "read_share": reads / total if total else None,
        "mean_kbs": sum(r["bw_kbs"] or 0 for r in data) if data else None,
        "mean_latency_ms": sum(m * c for m, c in lat) / n / 1000 if n else None,
        "latency_p99_ms": None,
    }
    try:
        p99 = latency_share(ws, run_id, percentiles=(99,)).percentiles_ms.get("p99")
        out["latency_p99_ms"] = p99.estimate if p99 else None
    except AnalysisError:  # no latency histogram: the tool's own whole-run percentile where it printed one
        out["latency_p99_ms"] = _printed_p99_ms(ws, run_id)
    return out


def _printed_p99_ms(ws: Workspace, run_id: int) -> float | None:
    """The 99th percentile of all I/O (reads and writes) as the tool printed it for the whole run: DiskSpd's
    percentile table (``runs.meta.latency_percentiles_ms.total``), exact, not from buckets."""
    total = ws.meta_of(run_id).obj("latency_percentiles_ms").get("total")
    v = total.get("p99") if isinstance(total, dict) else None
    return float(v) if isinstance(v, (int, float)) else None


def _delta_ratio(values: list[float | None]) -> tuple[list[float | None], list[float | None]]:
    base = values[0]
    delta = [None if v is None or base is None else v - base for v in values]
    ratio = [None if v is None or not base else v / base for v in values]
    return delta, ratio


def _rows(metrics: list[tuple[str, str]], per_run: list[dict[str, float | None] | None]) -> list[dict[str, Any]]:
    out = []
    for name, unit in metrics:
        vals = [None if d is None else d.get(name) for d in per_run]
        if all(v is None for v in vals):
            continue
        delta, ratio = _delta_ratio(vals)
        out.append({"metric": name, "unit": unit, "values": vals, "delta": delta, "ratio": ratio})
    return out


@dataclass
class Comparison:
    runs: list[dict[str, Any]]
    method: dict[str, Any]
    metrics: list[dict[str, Any]]
    phases: list[dict[str, Any]]
    iozone: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def compare_runs(ws: Workspace, run_ids: list[int], device: str | None = None, *, threshold_iops: float | None = None,
                 every_s: float | None = None, phases: str = "auto") -> Comparison:
    """Compare runs (the first is the baseline). See the module doc."""
    if len(run_ids) < 2:
        raise AnalysisError("compare needs at least two runs")
    runs: list[Run] = []
    for rid in run_ids:
        found = ws.run(rid)
        if found is None:
            raise AnalysisError(f"no run {rid} in this workspace")
        runs.append(found)
    notes: list[str] = []
    kinds = {r.kind for r in runs}
    per_run: list[dict[str, float | None] | None] = []
    per_phase: list[dict[str, dict[str, float | None]]] = []
    reports = {}
    thr = threshold_iops
    for r in runs:
        if not has(r.kind, DEVICE_RATES):
            continue
        if thr is None:
            first = storm_report(ws, r.run_id, device, phases="none", every_s=every_s)
            # half the first run with IOPS' peak (a run without request counts has no level to give)
            thr = None if first.run.peak_iops is None else 0.5 * first.run.peak_iops
        reports[r.run_id] = storm_report(ws, r.run_id, device, StormParams(threshold_iops=thr),
                                            phases=phases, every_s=every_s)
    phase_match = "none"
    for r in runs:
        rid = r.run_id
        if rid in reports:
            rep = reports[rid]
            per_run.append(_flat(rep.run))
            per_phase.append({ph.name: _flat(m) for ph, m in rep.phases})
            phase_match = "name" if rep.phase_source == "stored" or phase_match == "name" else "position"
            notes += [f"run {rid}: {n}" for n in rep.notes]
        elif has(r.kind, JOB_SUMMARY):
            per_run.append(_fio_summary(ws, rid))
            per_phase.append({})
        else:
            per_run.append(None)
            per_phase.append({})
            if not has(r.kind, THROUGHPUT_GRID):  # compared row by row below
                notes.append(f"run {rid} is a {r.kind} run: no run-level metrics to compare")
    rates, jobs = any(has(k, DEVICE_RATES) for k in kinds), any(has(k, JOB_SUMMARY) for k in kinds)
    metric_list = STORM_METRICS if rates else FIO_METRICS
    if rates and jobs:
        metric_list = STORM_METRICS + [m for m in FIO_METRICS if m not in STORM_METRICS]
        notes.append("iostat and fio runs side by side: iostat measures the device, fio the workload")
    metrics = _rows(metric_list, per_run)
    names: list[str] = []
    for ph in per_phase:
        names += [n for n in ph if n not in names]
    phase_rows = [{"phase": n, "metrics": _rows(STORM_METRICS, [ph.get(n) if ph else None for ph in per_phase])}
                  for n in names]
    method = {
        "baseline": f"run {run_ids[0]}", "delta": "run - baseline", "ratio": "run / baseline",
        "time_above_threshold_iops": thr,
        "phases": {"choice": phases, "matched_by": phase_match},
        "storm": next(iter(reports.values())).method if reports else None,
        "fio": "fio's own iops / bw / total_ios per direction summed over jobs; latency = I/O-weighted lat mean; "
               "p99 from json+ bins (interpolated inside its bucket: an estimate)" if jobs else None,
    }
    listed: list[dict[str, Any]] = [{"run_id": r.run_id, "name": r.name, "kind": r.kind} for r in runs]
    return Comparison(listed, method, metrics, phase_rows, compare_iozone(ws, run_ids), notes)


def compare_iozone(ws: Workspace, run_ids: list[int]) -> dict[str, Any]:
    """IOzone results per mode / source / test / file size / record size / threads, when the workspace has them."""
    if not has_table(ws, "iozone_results"):
        return {"available": False, "note": "no iozone_results table in this workspace (no IOzone import)",
                "rows": []}
    ids = ",".join(str(int(i)) for i in run_ids)
    df = ws.query(f"SELECT * FROM iozone_results WHERE run_id IN ({ids})")
    if df.height == 0:
        return {"available": True, "note": "none of these runs has IOzone results", "rows": []}
    numeric = {c for c, t in df.schema.items() if t.is_numeric()}
    keys = [c for c in IOZONE_KEYS if c in df.columns]
    values = [c for c in IOZONE_VALUES if c in numeric and df.get_column(c).null_count() < df.height]
    if not keys:  # an unknown layout: text columns and parameter-like numbers are keys
        keys = [c for c in df.columns if c not in ("run_id", "line") and df.schema[c] != pl.Boolean
                and (c not in numeric or any(h in c.lower() for h in IOZONE_KEY_HINTS))]
    if not values:
        values = [c for c in df.columns if c in numeric and c not in keys and c not in ("run_id", "line")]
    if not values:
        return {"available": True, "note": "iozone_results has no value column to compare", "keys": keys, "rows": []}
    cached = "page_cache_likely" in df.columns
    rows = []
    # one pass: each run's mean of every value column per key (a filter per key and run was quadratic: 82 s for
    # the five IOzone runs of the test corpus, 20,000 keys)
    per_run = df.group_by([*keys, "run_id"], maintain_order=True).agg(
        [pl.col(v).mean().alias(v) for v in values]
        + ([pl.col("page_cache_likely").fill_null(False).any().alias("_cached")] if cached else []))
    means: dict[tuple[Any, ...], dict[int, dict[str, Any]]] = {}
    for r in per_run.iter_rows(named=True):
        means.setdefault(tuple(r[k] for k in keys), {})[int(r["run_id"])] = r
    combos = df.select(keys).unique(maintain_order=True).iter_rows(named=True) if keys else [{}]
    for key in combos:
        by_run = means.get(tuple(key[k] for k in keys), {})
        for v in values:
            vals: list[float | None] = [None if (m := by_run.get(int(rid), {}).get(v)) is None else float(m)
                                        for rid in run_ids]
            if sum(x is not None for x in vals) < 2:
                continue
            delta, ratio = _delta_ratio(vals)
            row: dict[str, Any] = {"key": {k: key[k] for k in keys}, "metric": v, "values": vals, "delta": delta,
                                   "ratio": ratio}
            if cached:
                row["page_cache_likely"] = any(bool(m.get("_cached")) for m in by_run.values())
            rows.append(row)
    note = "rows matched on the key columns; several rows of one run with the same key are averaged"
    if any(r.get("page_cache_likely") for r in rows):
        note += ("; rows marked page_cache_likely measured a file smaller than the host's RAM: the page cache, "
                 "not the disk")
    return {"available": True, "keys": keys, "value_columns": values, "rows": rows, "note": note}
