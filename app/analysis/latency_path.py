"""Where the time goes: a guest's response time beside its host's GAVG, KAVG and DAVG, on one clock (no Qt).

A command the guest issues waits in the guest's own queue, then in the hypervisor (KAVG: the ESXi kernel, its queue
QAVG included), then below the host's driver -- the fabric and the array (DAVG). esxtop measures GAVG = KAVG + DAVG
from the host; the guest's ``await`` (iostat; perfmon's Avg. Disk sec/Transfer) is the whole time as the guest saw
it, its own queue included. Their difference is the time in the guest: **an estimate**, as the two tools measure
different commands (a host device also serves other VMs; the guest's await also counts what the guest's block layer
merged or split) over intervals that line up only as well as the two clocks do.

API::

    latency_path(ws, guest_run, host_run, guest_device=None, host_device=None) -> LatencyPath

How the figures are made
    * **One clock**: each run's wall clock (its stored clock offset applied: app.store.clock), UTC where the file
      gives its zone. Both runs need clock times.
    * **Per host interval** (esxtop's reports): GAVG, KAVG and DAVG as :func:`app.analysis.host_latency.latency_split`
      makes them (weighted by the commands of the chosen devices); the guest's await over the same span: the mean
      of the guest intervals that overlap it, each weighted by its I/Os inside the span (its IOPS times the
      seconds of overlap). A host interval less than half covered by the guest's capture, or where the guest did
      no I/O, has no guest figure and is left out.
    * **In the guest's queue** = guest await − GAVG (estimated); **in the hypervisor** = KAVG; **in the array** =
      DAVG.
    * **Over the capture**: each interval weighs by the guest's I/Os in it, for all four figures alike, so that the
      parts add up to the mean guest await; the shares are each part over that mean. A negative guest part (the
      guest saw less time than the host's device average: the device also serves other VMs, or the clocks are off)
      is reported as it is, with a note -- never set to zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from app.analysis.host_latency import latency_split
from app.analysis.series import load_series
from app.errors import AnalysisError

if TYPE_CHECKING:
    from app.workspace import Workspace

MIN_COVER = 0.5  # a host interval needs at least half of it covered by the guest's capture
PARTS = ("guest_ms", "kavg_ms", "davg_ms")  # in the guest's queue, in the hypervisor, in the array
PART_WORDS = {"guest_ms": "in the guest's queue", "kavg_ms": "in the hypervisor (KAVG)",
              "davg_ms": "in the array (DAVG)"}
ESTIMATE_NOTE = ("The time in the guest's queue is estimated: the guest's response time less the host's GAVG, two "
                 "tools measuring over intervals matched on one clock; the host's device figures also cover the "
                 "other VMs it serves.")


@dataclass
class LatencyPath:
    guest_run: int
    host_run: int
    guest_devices: list[str]
    host_devices: list[str]
    # per host interval: t_start_s, t_end_s (host run's axis), clock (datetime of the interval's start on one clock),
    # guest_ios, await_ms (guest), gavg_ms, kavg_ms, davg_ms, guest_ms (= await − GAVG)
    frame: pl.DataFrame
    mean: dict[str, float]  # await_ms, gavg_ms, kavg_ms, davg_ms, guest_ms: weighted by the guest's I/Os
    shares: dict[str, float | None]  # guest_ms, kavg_ms, davg_ms over await_ms
    intervals: int  # host intervals with every figure
    host_intervals: int
    largest: str | None  # the part with the most time (a key of PART_WORDS)
    worst: dict[str, Any] | None  # the interval with the longest guest await, with its parts
    overlap_s: float  # seconds both captures cover
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "frame"}
        out["points"] = self.frame.to_dicts()
        return out


def _clock0(s: Any, what: str, run_id: int) -> datetime:
    if s.clock0_utc is None:
        raise AnalysisError(f"the {what} run {run_id} has no clock times: where the time goes needs both runs on one "
                            "clock (a capture without time stamps can be placed on the other's clock first)")
    return s.clock0_utc


def latency_path(ws: Workspace, guest_run: int, host_run: int, guest_device: str | None = None,
                 host_device: str | None = None) -> LatencyPath:
    """The guest's response time split into its queue, the hypervisor and the array (see the module doc)."""
    if guest_run == host_run:
        raise AnalysisError("the guest's run and the host's run are two different captures")
    g = load_series(ws, guest_run, guest_device, figures={"await"})
    hs = load_series(ws, host_run, host_device, figures={"await"})
    sp = latency_split(ws, host_run, host_device)
    if g.frame.get_column("await_ms").null_count() == g.frame.height:
        raise AnalysisError(f"run {guest_run} has no response time (await): the guest's side of the split comes from "
                            "iostat -x or perfmon's Avg. Disk sec/Transfer")
    g0, h0 = _clock0(g, "guest's", guest_run), _clock0(hs, "host's", host_run)
    notes: list[str] = []
    if g.zone_known != hs.zone_known:
        notes.append("One of the two files gives its time zone and the other does not: their clocks are compared as "
                     "printed.")
        g0, h0 = g0.replace(tzinfo=None), h0.replace(tzinfo=None)
    shift = (g0 - h0).total_seconds()  # guest t + shift = host t
    ga = g.col("t_start_s") + shift
    gb = g.col("t_end_s") + shift
    g_iops = np.nan_to_num(g.col("iops"), nan=0.0)
    g_aw = g.col("await_ms")
    f = sp.frame
    ha = f.get_column("t_start_s").cast(pl.Float64).to_numpy()
    hb = f.get_column("t_end_s").cast(pl.Float64).to_numpy()
    rows = []
    overlap_total = 0.0
    for a, b in zip(ha, hb, strict=True):
        ov = np.clip(np.minimum(gb, b) - np.maximum(ga, a), 0.0, None)
        covered = float(ov.sum())
        overlap_total += min(covered, b - a)
        ios = g_iops * ov
        ok = (ov > 0) & (ios > 0) & ~np.isnan(g_aw)
        w = float(ios[ok].sum())
        aw = float((g_aw[ok] * ios[ok]).sum() / w) if w > 0 and covered >= MIN_COVER * (b - a) else None
        rows.append((float(ios.sum()) if covered >= MIN_COVER * (b - a) else None, aw))
    frame = f.select("sample_idx", "t_start_s", "t_end_s", "commands_s", "gavg_ms", "kavg_ms", "davg_ms").with_columns(
        pl.Series("guest_ios", [r[0] for r in rows], dtype=pl.Float64),
        pl.Series("await_ms", [r[1] for r in rows], dtype=pl.Float64))
    frame = frame.with_columns((pl.col("await_ms") - pl.col("gavg_ms")).alias("guest_ms"))
    frame = frame.with_columns((pl.lit(h0) + pl.duration(milliseconds=(pl.col("t_start_s") * 1000).round())
                                ).alias("clock"))
    full = frame.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in ("await_ms", "gavg_ms", "kavg_ms",
                                                                            "davg_ms"))
                        & (pl.col("guest_ios") > 0))
    if not full.height:
        raise AnalysisError(f"runs {guest_run} and {host_run} have no interval with the guest's I/O and the host's "
                            "latency at the same time on one clock: do they overlap? (their clock offset can be set "
                            "first)")
    weights = full.get_column("guest_ios").to_numpy()
    mean: dict[str, float] = {c: float((full.get_column(c).to_numpy() * weights).sum() / weights.sum())
                                     for c in ("await_ms", "gavg_ms", "kavg_ms", "davg_ms", "guest_ms")}
    total = mean["await_ms"]
    shares: dict[str, float | None] = {p: (mean[p] / total if total else None) for p in PARTS}
    largest = max(PARTS, key=lambda p: mean[p])
    if mean["guest_ms"] < 0:
        notes.append("The guest's response time is below the host's GAVG on average: the host's device also serves "
                     "other VMs, or the two clocks are not lined up; the time in the guest's queue is shown as "
                     "measured (below zero), not set to zero.")
    left = frame.height - full.height
    if left:
        notes.append(f"{left} of the host's {frame.height} intervals are left out: the guest's capture does not cover "
                     "them, the guest did no I/O in them, or the host had no commands.")
    wi = int(np.argmax(full.get_column("await_ms").to_numpy()))
    worst = full.row(wi, named=True)
    return LatencyPath(guest_run, host_run, list(g.devices.used), list(sp.devices), frame, mean, shares,
                       full.height, frame.height, largest, worst, overlap_total, [ESTIMATE_NOTE, *notes])
