"""Benchmark results: the tool's own figures per job or target and direction (fio jobs, DiskSpd targets)."""

from __future__ import annotations

from typing import Any

from parsers.kinds import JOB_SUMMARY, has, kind_label
from reports.content import Section, Table, fmt, ms
from reports.context import ReportContext
from reports.sections import section

MAX_ROWS = 40  # per run: a test with hundreds of jobs is summarised by its first rows
DATA_OPS = ("read", "write", "trim")


def _rows(ctx: ReportContext, run_id: int) -> list[dict[str, Any]]:
    cur = ctx.ws.con.execute(
        "SELECT device, op, rw, bs, numjobs, iodepth, ios, iops, bw_kbs, lat_mean_us, clat_mean_us, p99_us, "
        "pct_of FROM fio_jobs WHERE run_id = ? ORDER BY job_index, device, op", [run_id])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall() if r[cols.index("op")] in DATA_OPS]


def _cells(ctx: ReportContext, r: dict[str, Any]) -> list[str]:
    mean = r["lat_mean_us"] if r["lat_mean_us"] is not None else r["clat_mean_us"]
    return [ctx.an.device(r["device"]), r["op"], r["rw"] or "–", r["bs"] or "–", r["numjobs"] or "–",
            r["iodepth"] or "–", fmt(r["iops"]), fmt(None if r["bw_kbs"] is None else r["bw_kbs"] / 1024, 1),
            ms(None if mean is None else mean / 1000), ms(None if r["p99_us"] is None else r["p99_us"] / 1000)]


@section("jobs")
def build(ctx: ReportContext) -> Section | None:
    tables = []
    for r in (r for r in ctx.runs if has(r["kind"], JOB_SUMMARY)):
        rows = _rows(ctx, r["run_id"])
        if not rows:
            continue
        label = kind_label(r["kind"])
        more = f"The first {MAX_ROWS} of {len(rows)} rows are shown." if len(rows) > MAX_ROWS else ""
        tables.append(Table(
            f"{ctx.name(r)} ({label})",
            ["Target or job", "Direction", "Pattern", "Block", "Threads", "Queue depth", "IOPS", "MiB/s",
             "Mean latency", "p99 latency"],
            [_cells(ctx, x) for x in rows[:MAX_ROWS]], note=more))
    if not tables:
        return None
    sec = Section("jobs", "Benchmark results")
    sec.para("What each benchmark run reported itself, read and write apart: per job for fio, per target file or "
             "disk for DiskSpd (its threads on that target added up). Queue depth is the I/Os each thread keeps "
             "outstanding. Mean latency and p99 are the tool's own figures: fio's p99 of the completion "
             "latency unless the job asked for total-latency percentiles, DiskSpd's of the time from issue to "
             "completion; – where the file has no such figure (DiskSpd measures latency only when asked to).")
    for t in tables:
        sec.table(t)
    return sec
