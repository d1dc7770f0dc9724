"""Where does the latency come from: the array (DAVG) or the host (KAVG)? -- and which VM drives the load (no Qt).

esxtop splits the time a command takes as the guest sees it (GAVG, stored as ``await_ms``) into the time in the
device driver and below -- the array and the fabric (DAVG, ``davg_ms``) -- and the time in the ESXi kernel (KAVG,
``kavg_ms``), of which the time queued in the kernel is QAVG (``qavg_ms``): GAVG = KAVG + DAVG.

API::

    latency_split(ws, run_id, device=None, davg_ms=20, kavg_ms=2) -> LatencySplit
    vm_load(ws, run_id, active_share=0.05) -> VmLoad
    vm_rates(ws, run_id) -> {vm: {sample_idx: commands/s}}
    vm_disks(ws, run_id) -> {vm: [its virtual disks]}

How the figures are made
    **Per interval**, over the chosen devices (default: the run's physical disks, as everywhere): each latency
    is the mean of the devices' values **weighted by their commands** in the interval (reads + writes per
    second; commands per second where the file has no split). An interval without commands has no latency
    (esxtop prints 0 there; it is left out, not averaged in).
    **Over the run**: the same weighting over every interval, each interval's commands being its commands per
    second times its length (a late or drifting sample covers more time and more commands): the mean time per
    command of the whole run.
    **Guidance** (common VMware guidance, not a law): DAVG above 20–25 ms points at the array or the fabric,
    KAVG above 2 ms at commands queueing in the host (a device or adapter queue too short, or a limit).
    The answer counts the intervals above each guidance value and names the larger share of GAVG.

    **VM load** (esxtop ``Virtual Disk`` rows): a VM's commands per second are the sum over its virtual disks;
    its share of the datastore's load is its commands over all VMs' commands in the run. A VM is *active* in
    an interval when its rate is at least ``active_share`` (5 %) of the busiest VM's busiest interval; its
    latency *alone* and *while another VM is active* are command-weighted GAVG means over those intervals.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from app.analysis.numbers import fmt_pct, fmt_value
from app.analysis.series import load_series
from app.errors import AnalysisError

if TYPE_CHECKING:
    from app.workspace import Workspace

DAVG_GUIDANCE_MS = 20.0
KAVG_GUIDANCE_MS = 2.0
GUIDANCE_WORDS = ("common VMware guidance, not a law: DAVG above 20–25 ms points at the array or the fabric, "
                  "KAVG above 2 ms at commands queueing in the host")
LATENCIES = ("gavg_ms", "kavg_ms", "davg_ms", "qavg_ms")
_STORED = {"gavg_ms": "await_ms", "kavg_ms": "kavg_ms", "davg_ms": "davg_ms", "qavg_ms": "qavg_ms"}
_COMMANDS = "coalesce(coalesce(r_s, 0) + coalesce(w_s, 0), tps)"


@dataclass
class LatencySplit:
    """The run's GAVG = KAVG + DAVG per interval and over the run, against the guidance values."""

    run_id: int
    devices: list[str]
    frame: pl.DataFrame  # sample_idx, t_start_s, t_end_s, commands_s, gavg_ms, kavg_ms, davg_ms, qavg_ms
    mean: dict[str, float | None]  # command-weighted over the run
    davg_guidance_ms: float
    kavg_guidance_ms: float
    intervals: int  # intervals with commands
    davg_over: int  # intervals with DAVG above its guidance value
    kavg_over: int
    worst_davg: dict[str, Any] | None  # {t_start_s, t_end_s, value}
    worst_kavg: dict[str, Any] | None
    source: str  # "array", "host", "both", "neither"
    notes: list[str] = field(default_factory=list)

    @property
    def davg_share(self) -> float | None:
        """DAVG's share of GAVG over the run (command-weighted means)."""
        g, d = self.mean.get("gavg_ms"), self.mean.get("davg_ms")
        return None if not g or d is None else d / g

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k != "frame"}
        out["davg_share"] = self.davg_share
        out["points"] = self.frame.to_dicts()
        return out


def _weighted(col: str, n: str = "n") -> pl.Expr:
    """The mean of ``col`` weighted by the commands ``n``; null where no command has a value (never 0/0)."""
    ok = pl.col(col).is_not_null() & (pl.col(n) > 0)
    num = pl.when(ok).then(pl.col(col) * pl.col(n)).otherwise(0.0).sum()
    den = pl.when(ok).then(pl.col(n)).otherwise(0.0).sum()
    return pl.when(den > 0).then(num / den).otherwise(None).alias(col)


def _worst(frame: pl.DataFrame, col: str) -> dict[str, Any] | None:
    f = frame.filter(pl.col(col).is_not_null())
    if not f.height:
        return None
    row = f.row(int(f.get_column(col).arg_max() or 0), named=True)
    return {"t_start_s": row["t_start_s"], "t_end_s": row["t_end_s"], "value": row[col]}


def latency_split(ws: Workspace, run_id: int, device: str | None = None, davg_ms: float = DAVG_GUIDANCE_MS,
                  kavg_ms: float = KAVG_GUIDANCE_MS) -> LatencySplit:
    """GAVG, KAVG, DAVG and QAVG of a run per interval and over the run (see the module doc)."""
    s = load_series(ws, run_id, device)
    devices = s.devices.used
    raw = ws.query(
        f"SELECT sample_idx, {_COMMANDS} AS n, await_ms AS gavg_ms, kavg_ms, davg_ms, qavg_ms FROM iostat_samples "
        "WHERE run_id = ? AND NOT since_boot AND list_contains(?, device)", [run_id, devices])
    if raw.get_column("davg_ms").null_count() == raw.height and raw.get_column("kavg_ms").null_count() == raw.height:
        raise AnalysisError(f"run {run_id} has no DAVG or KAVG: the split of latency into array and host comes from "
                            "esxtop (Physical Disk SCSI Device rows)")
    per = raw.group_by("sample_idx").agg(pl.col("n").sum().alias("commands_s"), *[_weighted(c) for c in LATENCIES])
    frame = s.frame.select("sample_idx", "t_start_s", "t_end_s").join(per, on="sample_idx", how="left") \
        .sort("sample_idx")
    # over the run, each device's interval weighs by its commands: its rate times the interval's length
    spans = s.frame.select(pl.col("sample_idx").cast(raw.schema["sample_idx"]), "dt_s")
    ios = raw.join(spans, on="sample_idx", how="inner").with_columns((pl.col("n") * pl.col("dt_s")).alias("ios"))
    mean = ios.select(*[_weighted(c, "ios") for c in LATENCIES]).row(0, named=True)
    busy = frame.filter(pl.col("commands_s") > 0)
    davg_over = busy.filter(pl.col("davg_ms") > davg_ms).height
    kavg_over = busy.filter(pl.col("kavg_ms") > kavg_ms).height
    source = "both" if davg_over and kavg_over else "array" if davg_over else "host" if kavg_over else "neither"
    notes = [] if busy.height == frame.height else [
        f"{frame.height - busy.height} intervals without commands have no latency and are left out"]
    return LatencySplit(run_id, devices, frame, mean, davg_ms, kavg_ms, busy.height, davg_over, kavg_over,
                        _worst(busy, "davg_ms"), _worst(busy, "kavg_ms"), source, notes)


# ---- which VM drives the load ------------------------------------------------------------------------------------
@dataclass
class VmFigures:
    vm: str
    disks: list[str]
    commands: float  # commands over the run (each interval: rate x its length)
    share: float  # of all VMs' commands
    peak_commands_s: float
    gavg_ms: float | None  # command-weighted over the run
    active_intervals: int
    alone_intervals: int
    gavg_alone_ms: float | None
    gavg_together_ms: float | None  # while another VM is active


@dataclass
class VmLoad:
    run_id: int
    vms: list[VmFigures]  # busiest first
    interval_s: float
    active_share: float
    story: list[str]
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _mean_where(f: pl.DataFrame, mask: pl.Expr) -> float | None:
    """GAVG per command over the intervals ``mask`` keeps: each weighs by its commands (rate x length)."""
    g = f.filter(mask & pl.col("gavg").is_not_null() & (pl.col("ios") > 0))
    den = float(g.get_column("ios").sum()) if g.height else 0.0
    return float((g.get_column("gavg") * g.get_column("ios")).sum()) / den if den else None


def _vm_rows(ws: Workspace, run_id: int) -> pl.DataFrame:
    rows = ws.query(
        f"SELECT sample_idx, vm, device, {_COMMANDS} AS n, await_ms AS gavg FROM iostat_samples WHERE run_id = ? "
        "AND NOT since_boot AND layer = 'vm_disk' AND vm IS NOT NULL", [run_id])
    if not rows.height:
        raise AnalysisError(f"run {run_id} has no VM virtual disk rows: the load per VM comes from esxtop's "
                            "Virtual Disk counters")
    return rows


def vm_rates(ws: Workspace, run_id: int) -> dict[str, dict[int, float]]:
    """Per VM, its commands per second in each report (``sample_idx``): the sum over its virtual disks."""
    per = _vm_rows(ws, run_id).group_by("vm", "sample_idx").agg(pl.col("n").sum())
    out: dict[str, dict[int, float]] = {}
    for vm, idx, n in per.iter_rows():
        out.setdefault(vm, {})[int(idx)] = float(n) if n is not None else math.nan
    return dict(sorted(out.items()))


def vm_disks(ws: Workspace, run_id: int) -> dict[str, list[str]]:
    """Per VM, the names of its virtual disks (devices of ``iostat_samples``)."""
    out: dict[str, list[str]] = {}
    for vm, dev in ws.con.execute("SELECT DISTINCT vm, device FROM iostat_samples WHERE run_id = ? AND layer = "
                                  "'vm_disk' AND vm IS NOT NULL ORDER BY vm, device", [run_id]).fetchall():
        out.setdefault(vm, []).append(dev)
    return out


def vm_load(ws: Workspace, run_id: int, active_share: float = 0.05) -> VmLoad:
    """Each VM's share of the datastore's commands, and its latency alone and while another VM is active."""
    s = load_series(ws, run_id)  # checks the run and gives its interval
    rows = _vm_rows(ws, run_id)
    disks = rows.group_by("vm").agg(pl.col("device").unique().sort())
    per = rows.group_by("vm", "sample_idx").agg(pl.col("n").sum(), _weighted("gavg", "n"))
    # an interval's commands: its rate times its length (a late or drifting sample covers more time)
    spans = s.frame.select(pl.col("sample_idx").cast(per.schema["sample_idx"]), "dt_s")
    per = per.join(spans, on="sample_idx", how="inner").with_columns((pl.col("n") * pl.col("dt_s")).alias("ios"))
    peak = float(per.get_column("n").max() or 0.0)  # type: ignore[arg-type]  # a number: rows exist
    per = per.with_columns((pl.col("n") >= active_share * peak).alias("active") if peak else pl.lit(False)
                           .alias("active"))
    active_by_sample = per.filter("active").group_by("sample_idx").agg(pl.col("vm").alias("active_vms"))
    per = per.join(active_by_sample, on="sample_idx", how="left")
    others = pl.col("active_vms").list.set_difference(pl.concat_list(pl.col("vm"))).list.len().fill_null(0)
    per = per.with_columns(others.alias("others"))
    total = float(per.get_column("ios").sum())
    out = []
    for vm, f in per.group_by("vm"):
        name = str(vm[0])
        n = float(f.get_column("ios").sum())
        out.append(VmFigures(
            name, disks.filter(pl.col("vm") == name).get_column("device").to_list()[0], n,
            n / total if total else 0.0, float(f.get_column("n").max() or 0.0),  # type: ignore[arg-type]  # a number: rows exist
            _mean_where(f, pl.lit(True)), f.filter("active").height,
            f.filter(pl.col("active") & (pl.col("others") == 0)).height,
            _mean_where(f, pl.col("active") & (pl.col("others") == 0)),
            _mean_where(f, pl.col("active") & (pl.col("others") > 0))))
    out.sort(key=lambda v: (-v.commands, v.vm))
    return VmLoad(run_id, out, s.interval_s, active_share, _vm_story(out))


def _vm_story(vms: list[VmFigures]) -> list[str]:
    """The load and the neighbours in words, with the numbers formatted as everywhere (the Answers page's)."""
    if not vms:
        return []
    top = vms[0]
    lines = [f"{top.vm} drove {fmt_pct(top.share)} of the VMs' commands (peak "
             f"{fmt_value(top.peak_commands_s, 'commands/s')})"
             + (f"; next: {vms[1].vm} with {fmt_pct(vms[1].share)}." if len(vms) > 1 else ".")]
    for v in vms:
        if v.gavg_alone_ms is not None and v.gavg_together_ms is not None:
            lines.append(f"{v.vm} waited {fmt_value(v.gavg_alone_ms, 'ms')} per command alone and "
                         f"{fmt_value(v.gavg_together_ms, 'ms')} while another VM was active.")
    return lines
