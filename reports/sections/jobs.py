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
    """The run's rows of reads, writes and trims. ``threads``: what the row's figures add up -- fio's numjobs for
    a job reported as one (group_reporting), 1 for each clone fio reported on its own (the same job name listed
    once per clone), whose numjobs option names all of them."""
    cur = ctx.ws.con.execute(
        "SELECT device, op, rw, bs, CASE WHEN count(DISTINCT job_index) OVER (PARTITION BY jobname, groupid) > 1 "
        "AND numjobs IS NOT NULL THEN '1' ELSE numjobs END AS threads, iodepth, ios, iops, bw_kbs, lat_mean_us, "
        "clat_mean_us, p99_us, pct_of FROM fio_jobs WHERE run_id = ? ORDER BY job_index, device, op", [run_id])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall() if r[cols.index("op")] in DATA_OPS]


def _cells(ctx: ReportContext, r: dict[str, Any]) -> list[str]:
    mean = r["lat_mean_us"] if r["lat_mean_us"] is not None else r["clat_mean_us"]
    return [ctx.an.device(r["device"]), r["op"], r["rw"] or "–", r["bs"] or "–", r["threads"] or "–",
            r["iodepth"] or "–", fmt(r["iops"]), fmt(None if r["bw_kbs"] is None else r["bw_kbs"] / 1024, 1),
            ms(None if mean is None else mean / 1000), ms(None if r["p99_us"] is None else r["p99_us"] / 1000)]


TITLE = "Benchmark results"


@section("jobs", title=TITLE, order=60)
def build(ctx: ReportContext) -> Section | None:
    tables = []
    for r in (r for r in ctx.runs if has(r.kind, JOB_SUMMARY)):
        rows = _rows(ctx, r.run_id)
        if not rows:
            continue
        label = kind_label(r.kind)
        ctx.covered.add(r.run_id)
        more = f"The first {MAX_ROWS} of {len(rows)} rows are shown." if len(rows) > MAX_ROWS else ""
        # say which latency each column measures where the tool measures several: fio's mean is of the total
        # latency (submission + completion, as every section of the report takes it), its percentiles usually of
        # the completion latency alone
        clat_p99 = any(x["pct_of"] == "clat" for x in rows)
        total_mean = any(x["lat_mean_us"] is not None for x in rows) and clat_p99
        tables.append(Table(
            f"{ctx.name(r)} ({label})",
            ["Target or job", "Direction", "Pattern", "Block", "Threads", "Queue depth", "IOPS", "MiB/s",
             "Mean latency (total)" if total_mean else "Mean latency",
             "p99 completion latency" if clat_p99 else "p99 latency"],
            [_cells(ctx, x) for x in rows[:MAX_ROWS]], note=more))
    if not tables:
        return None
    sec = Section("jobs", TITLE)
    sec.para("What each benchmark run reported itself, read and write apart: per job for fio, per target file or "
             "disk for DiskSpd (its threads on that target added up). Queue depth is the I/Os each thread keeps "
             "outstanding. Mean latency and p99 are the tool's own figures. fio measures two latencies: the total "
             "(from submission to completion), whose mean the report uses everywhere, and the completion latency "
             "alone, which its percentiles are of unless the job asked for total-latency ones — the column "
             "headings say which. DiskSpd's are of the time from issue to completion. – where the file has no "
             "such figure (DiskSpd measures latency only when asked to).")
    for t in tables:
        sec.table(t)
    return sec
