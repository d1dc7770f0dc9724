"""VDI storage sizing and the response-time check (no Qt).

Formulas (StormScope's sizing defaults for VDI)::

    F  = users x IOPS per user x storm multiplier                  front-end IOPS
    B  = F x r + F x w x P                                         back-end IOPS (r, w read/write fractions,
                                                                   P the RAID write penalty)
    disks for IOPS      = ceil(B / per-disk IOPS)
    disks for capacity  = ceil(users x GB per user / (disk GB x usable share of the RAID level))
    disks               = max(disks for IOPS, disks for capacity)
    array front-end IOPS with n disks = n x per-disk IOPS / (r + w x P)

The arithmetic is exact (fractions of the decimal inputs), so a quotient that is a whole number is
never rounded up by a floating-point crumb; ``disks_exact`` is the unrounded quotient (the ETRI paper's
17.07 and 53.33 for 8 and 25 IOPS per user, which it wrongly rounds down to 17 and 53: disks must be
rounded **up**, to 18 and 54). "raw x w / P + raw x r", seen in some decks, is wrong and not used.

"Measured" inputs (``measured_inputs``) come from an imported run: peak and steady IOPS divided by the
number of VMs, the read share, and peak / steady as the storm multiplier.

The response-time check (``response_time_check``) gives the share of I/O answered within a threshold
(default 50 ms) against a goal (default 80 %): exact or bounded from latency histograms (vscsiStats,
fio json+, via ``app.analysis.histograms``), from IOmark results when the workspace has them, or from
iostat's per-interval await weighted by I/Os -- **interval-level**, since await is a mean per report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl

from app.analysis.histograms import AnalysisError, latency_share
from app.analysis.series import activity_start, load_series, resample
from app.analysis.sizing_presets import load_presets
from app.errors import Note
from app.store.phases import list_phases
from app.workspace import Workspace, has_table
from parsers.kinds import DEVICE_RATES, IOMARK, has


def _frac(x: float | int | str | Fraction) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        return Fraction(repr(x))
    return Fraction(x)


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def _num(x: Fraction) -> float | int:
    return int(x) if x.denominator == 1 else float(x)


@dataclass
class SizingResult:
    frontend_iops: float
    backend_iops: float
    backend_read_iops: float
    backend_write_iops: float
    disks_exact: float
    disks_for_iops: int
    capacity_exact: float | None
    disks_for_capacity: int | None
    disks: int
    disks_layout: int
    layout: str
    array_frontend_iops: float
    users_supported: float
    raid: dict[str, Any]
    disk: dict[str, Any]
    inputs: dict[str, dict[str, Any]]
    formula: dict[str, str]
    notes: list[str] = field(default_factory=list)
    response_time: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _input(value: Any, source: str) -> dict[str, Any]:
    return {"value": value, "source": source}


def _storm_preset(pre: dict[str, Any], storm: str, inputs: dict[str, dict[str, Any]]) -> float:
    if storm not in pre["storm_multipliers"]:
        raise AnalysisError(f"unknown storm preset {storm!r} (known: {', '.join(pre['storm_multipliers'])})")
    sp = pre["storm_multipliers"][storm]
    inputs["storm_multiplier"] = _input(sp["multiplier"], f"storm preset {sp.get('label', storm)}: {sp['source']}")
    return sp["multiplier"]


def _raid(pre: dict[str, Any], raid: str | None, inputs: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The RAID level (given, else the default) and its preset."""
    raid_key = str(raid if raid is not None else pre["defaults"]["raid"]).lower()
    if raid_key not in pre["raid"]:
        raise AnalysisError(f"unknown RAID level {raid_key!r} (known: {', '.join(pre['raid'])})")
    inputs["raid"] = _input(raid_key, "given" if raid is not None else "default")
    return raid_key, pre["raid"][raid_key]


def _disk(pre: dict[str, Any], disk_iops: float | None, disk_type: str | None,
          inputs: dict[str, dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    """The IOPS of one disk (given, else of the disk type given, else of the default type) and the disk."""
    if disk_iops is not None:
        inputs["disk_iops"] = _input(disk_iops, "given")
        return disk_iops, {"type": None, "iops": disk_iops, "source": "given"}
    dt = disk_type or pre["defaults"]["disk_type"]
    if dt not in pre["disk_types"]:
        raise AnalysisError(f"unknown disk type {dt!r} (known: {', '.join(pre['disk_types'])})")
    per_disk = pre["disk_types"][dt]["iops"]
    label = pre["disk_types"][dt].get("label", dt)
    inputs["disk_iops"] = _input(per_disk, f"{label} disks ({'given' if disk_type else 'default'}): "
                                           f"{pre['disk_types'][dt]['source']}")
    return per_disk, {"type": dt, **pre["disk_types"][dt]}


def _capacity(users: int, gb_per_user: float | None, disk_gb: float | None, usable: Fraction,
              inputs: dict[str, dict[str, Any]], notes: list[str]) -> Fraction | None:
    """The exact number of disks the users' GB need (None: capacity not sized, noted)."""
    if gb_per_user is not None and disk_gb is not None:
        if gb_per_user <= 0 or disk_gb <= 0:
            raise AnalysisError("GB per user and disk GB must be positive")
        inputs["gb_per_user"] = _input(gb_per_user, "given")
        inputs["disk_gb"] = _input(disk_gb, "given")
        return _frac(users) * _frac(gb_per_user) / (_frac(disk_gb) * usable)
    if gb_per_user is not None or disk_gb is not None:
        raise AnalysisError("capacity sizing needs both {fix}", "capacity_inputs")
    notes.append(Note("capacity not sized (give {fix})", "capacity_inputs"))
    return None


def size_vdi(users: int, iops_per_user: float | None = None, *, read_pct: float | None = None,
             raid: str | None = None, disk_iops: float | None = None, disk_type: str | None = None,
             storm_multiplier: float | None = None, gb_per_user: float | None = None, disk_gb: float | None = None,
             profile: str | None = None, storm: str | None = None, presets: dict[str, Any] | None = None,
             measured: dict[str, Any] | None = None) -> SizingResult:
    """Size the disks for ``users`` desktops. Values given win over ``measured`` ones, which win over the
    ``profile`` preset, which wins over the defaults (each input says where it came from)."""
    pre = presets or load_presets()
    d = pre["defaults"]
    if users <= 0:
        raise AnalysisError("the number of users must be positive")
    inputs: dict[str, dict[str, Any]] = {"users": _input(users, "given")}
    prof = None
    if profile is not None:
        if profile not in pre["user_profiles"]:
            raise AnalysisError(f"unknown user profile {profile!r} (known: {', '.join(pre['user_profiles'])})")
        prof = pre["user_profiles"][profile]
    m = measured or {}

    def pick(name: str, given: Any, default: Any = None, default_src: str = "") -> Any:
        if given is not None:
            inputs[name] = _input(given, "given")
            return given
        if name in m and m[name] is not None:
            inputs[name] = _input(m[name], m.get("source", "measured"))
            return m[name]
        if prof is not None and name in prof:
            inputs[name] = _input(prof[name], f"profile {profile}: {prof['source']}")
            return prof[name]
        if default is not None:
            inputs[name] = _input(default, default_src)
        return default

    ipu = pick("iops_per_user", iops_per_user)
    if ipu is None:
        raise AnalysisError("give {fix}", "iops_per_user")
    rp = pick("read_pct", read_pct, d["read_pct"], f"default: {d['read_pct_source']}")
    if storm_multiplier is None and storm is not None and "storm_multiplier" not in m:
        mult = _storm_preset(pre, storm, inputs)
    else:
        mult = pick("storm_multiplier", storm_multiplier, 1.0, "default: steady state (no storm)")
    raid_key, rd = _raid(pre, raid, inputs)
    per_disk, disk = _disk(pre, disk_iops, disk_type, inputs)
    if not 0 <= rp <= 100:
        raise AnalysisError("the read share must be between 0 and 100 %")
    if ipu <= 0 or mult <= 0 or per_disk <= 0:
        raise AnalysisError("IOPS per user, storm multiplier and per-disk IOPS must be positive")

    r = _frac(rp) / 100
    w = 1 - r
    pen = _frac(rd["write_penalty"])
    front = _frac(users) * _frac(ipu) * _frac(mult)
    back_r, back_w = front * r, front * w * pen
    back = back_r + back_w
    exact = back / _frac(per_disk)
    n_iops = _ceil(exact)
    usable = Fraction(1, 2) if rd["mirror"] else Fraction(int(rd["group"]) - int(rd["parity_disks"]), int(rd["group"]))
    notes: list[str] = []
    cap_exact = _capacity(users, gb_per_user, disk_gb, usable, inputs, notes)
    n_cap = None if cap_exact is None else _ceil(cap_exact)
    n = max(n_iops, n_cap or 0)
    group = int(rd["group"])
    n_layout = max(group, -(-n // group) * group) if group > 1 else n
    array = _frac(n) * _frac(per_disk) / (r + w * pen)
    if n_layout != n:
        notes.append(f"{rd['label']} is built in sets of {group} disks: {n} disks make {n_layout} in whole sets")
    exact_f = float(exact)
    if abs(exact_f - round(exact_f)) > 1e-12:
        notes.append(f"{exact_f:.2f} disks round UP to {n_iops}: fewer disks cannot deliver the back-end IOPS")
    return SizingResult(
        frontend_iops=_num(front), backend_iops=_num(back), backend_read_iops=_num(back_r),
        backend_write_iops=_num(back_w), disks_exact=_num(exact), disks_for_iops=n_iops,
        capacity_exact=None if cap_exact is None else _num(cap_exact), disks_for_capacity=n_cap, disks=n,
        disks_layout=n_layout, layout=f"{rd['label']}: sets of {group}" if group > 1 else rd["label"],
        array_frontend_iops=_num(array), users_supported=_num(array / (_frac(ipu) * _frac(mult))),
        raid={"level": raid_key, **rd, "usable_share": float(usable)},
        disk=disk, inputs=inputs,
        formula={
            "frontend_iops": "F = users x IOPS per user x storm multiplier",
            "backend_iops": "F x r + F x w x P  (F front-end IOPS, r/w read/write fractions, P RAID write penalty)",
            "disks_for_iops": "ceil(back-end IOPS / per-disk IOPS)",
            "disks_for_capacity": "ceil(users x GB per user / (disk GB x usable share))",
            "disks": "the larger of the disks for IOPS and the disks for capacity",
            "disks_layout": "disks rounded up to whole sets of the RAID level (mirror pairs, parity groups)",
            "array_frontend_iops": "disks x per-disk IOPS / (r + w x P)",
            "users_supported": "front-end IOPS of the array / (IOPS per user x storm multiplier)",
            "arithmetic": "exact fractions of the inputs; rounded only when printed",
        },
        notes=notes)


# ---- a range of loads and a what-if over RAID levels and disk types ----------------------------------
def parse_iops_range(value: Any) -> tuple[float, float | None]:
    """An IOPS-per-user input: a number (8) or a range "8..25" (light..heavy users). Returns (light users' or the one
    figure, heavy users' or None)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise AnalysisError(f"IOPS per user {value!r}: give a number or a range like 8..25")
        return float(value), None
    text = str(value).strip().replace("–", "..").replace(" ", "")
    if ".." in text:
        lo_t, hi_t = text.split("..", 1)
        try:
            lo, hi = float(lo_t), float(hi_t)
        except ValueError:
            raise AnalysisError(f"IOPS per user {value!r}: give a number or a range like 8..25") from None
        if not (math.isfinite(lo) and math.isfinite(hi)):  # 'nan', 'inf': words float() reads, never a load
            raise AnalysisError(f"IOPS per user {value!r}: give a number or a range like 8..25")
        if lo <= 0 or hi < lo:
            raise AnalysisError(f"IOPS per user {value!r}: the range must go from a positive figure for light users "
                                "up to the figure for heavy users")
        return lo, (hi if hi != lo else None)
    try:
        one = float(text)
    except ValueError:
        raise AnalysisError(f"IOPS per user {value!r}: give a number or a range like 8..25") from None
    if not math.isfinite(one):
        raise AnalysisError(f"IOPS per user {value!r}: give a number or a range like 8..25")
    return one, None


@dataclass
class SizingCase:
    label: str  # "light" | "heavy" (a range of users' loads) or "steady" | "storm" (a storm multiplier)
    iops_per_user: float  # the per-user load this case sizes for (storm: steady x multiplier)
    result: SizingResult

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "iops_per_user": self.iops_per_user, "result": self.result.as_dict()}


def sizing_cases(users: int, iops_per_user: Any, *, storm_multiplier: float | None = None,
                 **kwargs: Any) -> list[SizingCase]:
    """The steady case and, when a storm is given, the storm case, sized alike.

    ``iops_per_user`` is a number or a range "8..25": the light and the heavy user of the sizing method (ETRI:
    "workload of an office user ranges in 8~25 IOPS"), labelled light and heavy. With a number and a
    ``storm_multiplier`` other than 1, the storm load is steady x multiplier (8 x 3.125 = 25). The storm
    case's arithmetic is exact: steady and multiplier enter ``size_vdi`` as given (no rounded product).
    """
    steady, storm_ipu = parse_iops_range(iops_per_user)
    if storm_ipu is not None and storm_multiplier not in (None, 1, 1.0):
        raise AnalysisError("give either an IOPS-per-user range or a storm multiplier, not both")
    cases = [SizingCase("steady" if storm_ipu is None else "light", steady,
                        size_vdi(users, steady, storm_multiplier=1.0, **kwargs))]
    if storm_ipu is not None:  # a range: light and heavy users, not a steady load and its storm
        cases.append(SizingCase("heavy", storm_ipu, size_vdi(users, storm_ipu, storm_multiplier=1.0, **kwargs)))
    elif storm_multiplier not in (None, 1, 1.0):
        res = size_vdi(users, steady, storm_multiplier=storm_multiplier, **kwargs)
        cases.append(SizingCase("storm", float(_frac(steady) * _frac(storm_multiplier)), res))
    return cases


WHAT_IF_RAIDS = ("10", "5", "6")
WHAT_IF_DISKS = ("sata7k", "sas10k", "sas15k", "ssd")


def what_if(users: int, loads: list[float], *, read_pct: float | None = None, raids: tuple[str, ...] = WHAT_IF_RAIDS,
            disk_types: tuple[str, ...] = WHAT_IF_DISKS, presets: dict[str, Any] | None = None,
            gb_per_user: float | None = None, disk_gb: float | None = None) -> list[dict[str, Any]]:
    """Disks needed (whole RAID sets) for each per-user load in ``loads``, for every RAID level x disk type.

    One row per RAID level and disk type: ``disks`` and ``disks_exact`` per load, in the order of ``loads``
    (the same formulas and rounding as ``size_vdi``; each load is sized with a storm multiplier of 1).
    """
    pre = presets or load_presets()
    rows = []
    for raid in raids:
        for dt in disk_types:
            res = [size_vdi(users, ipu, read_pct=read_pct, raid=raid, disk_type=dt, storm_multiplier=1.0,
                            gb_per_user=gb_per_user, disk_gb=disk_gb, presets=pre) for ipu in loads]
            rows.append({"raid": raid, "raid_label": pre["raid"][raid]["label"],
                         "write_penalty": pre["raid"][raid]["write_penalty"], "disk_type": dt,
                         "disk_label": pre["disk_types"][dt]["label"], "disk_iops": pre["disk_types"][dt]["iops"],
                         "disks": [r.disks_layout for r in res], "disks_exact": [r.disks_exact for r in res]})
    return rows


# ---- measured inputs --------------------------------------------------------------------------------
def measured_inputs(ws: Workspace, run_id: int, vms: int, *, device: str | None = None, steady_run: int | None = None,
                    steady_phase: str | None = None, every_s: float | None = None) -> dict[str, Any]:
    """IOPS per user, read share and peak-to-steady multiplier from an imported iostat run.

    peak   = the highest interval IOPS of ``run_id`` (optionally resampled to ``every_s`` first, e.g. the
             5 s of ``iostat 5``);
    steady = the mean IOPS of ``steady_run``, else the mean IOPS of the stored phase ``steady_phase``, else
             the median interval IOPS from the first to the last activity of ``run_id`` (a rough default:
             give a steady run or phase for a real figure).
    iops_per_user = steady / vms; storm_multiplier = peak / steady; read_pct from the steady data's reads
    (by I/Os; by kB for plain reports).
    """
    if vms <= 0:
        raise AnalysisError("the number of VMs must be positive")
    s = load_series(ws, run_id, device)
    if every_s:
        s = resample(s, every_s)
    iops = s.col("iops")
    if not iops.size or np.isnan(iops).all():  # a throughput- or latency-only log: no IOPS to measure (never NaN)
        raise AnalysisError(f"run {run_id} has no request counts (its file gives throughput or latency only): IOPS "
                            "per user cannot be measured on it")
    peak = float(np.nanmax(iops))
    basis = s
    if steady_run is not None:
        st = load_series(ws, steady_run, device)
        steady = float(np.nansum(st.col("iops") * st.col("dt_s")) / st.duration_s())
        how = f"mean IOPS of run {steady_run}"
        basis = st
    elif steady_phase is not None:
        ph = {p.name: p for p in list_phases(ws, run_id)}
        if steady_phase not in ph:
            raise AnalysisError(f"run {run_id} has no stored phase {steady_phase!r} (phases: "
                                f"{', '.join(ph) or 'none'})")
        basis = s.window(ph[steady_phase].t_start_s, ph[steady_phase].t_end_s)
        steady = float(np.nansum(basis.col("iops") * basis.col("dt_s")) / basis.duration_s())
        how = f"mean IOPS of phase {steady_phase!r}"
    else:
        start = activity_start(s)
        active = np.nonzero(iops > 100.0)[0]
        if start is None or not len(active):
            raise AnalysisError(f"run {run_id} has no activity: give a steady run or phase")
        basis = s.window(start, float(s.col("t_end_s")[active[-1]]))
        steady = float(np.nanmedian(basis.col("iops")))  # a gap report (a disk missing) is skipped, never 0
        how = "median interval IOPS from the first to the last activity (rough: give a steady run or phase)"
    if steady <= 0:
        raise AnalysisError("the steady level is 0 IOPS: no multiplier can be derived")
    rw = ("read_iops", "write_iops") if basis.has_read_write else ("read_kbs", "write_kbs")
    rbasis = "I/Os" if basis.has_read_write else "kB (plain reports have no r/s, w/s)"
    dts = basis.col("dt_s")
    r, w = float(np.nansum(basis.col(rw[0]) * dts)), float(np.nansum(basis.col(rw[1]) * dts))
    read_pct = float(100 * r / (r + w)) if r + w else None
    return {
        "iops_per_user": steady / vms, "read_pct": read_pct, "storm_multiplier": peak / steady,
        "peak_iops": peak, "steady_iops": steady, "vms": vms, "run_id": run_id,
        # gap reports (a disk missing) of the run and of the steady run: skipped by the peak and the steady level
        "missing_reports": int(s.gap_mask().sum()) + (int(basis.gap_mask().sum()) if steady_run is not None else 0),
        "source": f"measured from run {s.run_name}, {vms} VMs",
        "method": {"peak": "highest interval IOPS" + (f" after resampling to {every_s:g} s" if every_s else ""),
                   "steady": how, "iops_per_user": "steady / VMs", "storm_multiplier": "peak / steady",
                   "read_pct": f"reads / (reads + writes) by {rbasis}", "series": s.method()},
    }


# ---- response time ----------------------------------------------------------------------------------
def response_time_check(ws: Workspace, run_id: int, *, threshold_ms: float = 50.0, goal_pct: float = 80.0,
                        device: str | None = None, op: str = "total") -> dict[str, Any]:
    """Share of I/O answered within ``threshold_ms`` against ``goal_pct`` (see the module doc); ``op``: total
    (reads and writes), read or write."""
    run = ws.run(run_id)
    if run is None:
        raise AnalysisError(f"no run {run_id} in this workspace")
    goal = goal_pct / 100.0
    out: dict[str, Any] = {"run_id": run_id, "kind": run.kind, "threshold_ms": threshold_ms, "goal_pct": goal_pct,
                           "op": op}
    if has_table(ws, "iomark_results") and op == "total":
        got = _iomark_share(ws, run_id, threshold_ms)
        if got is not None:
            share, label, rows = got
            return {**out, "share": share, "bounds": [share, share], "exact": True, "basis": IOMARK,
                    "label": label, "passed": share >= goal, "rows": rows,
                    "method": "the share IOmark reports; several result rows are separate measurements "
                              "(configurations or phases), so the check takes the lowest, never a blend"}
    if has(run.kind, DEVICE_RATES):
        s = load_series(ws, run_id, device, ops=("r", "w", "d", "f") if op == "total" else (op[0],))
        aw, ios = s.col("await_ms"), s.col("ios")
        ok = ~np.isnan(aw) & (ios > 0)
        if not ok.any():
            raise AnalysisError(f"run {run_id} has no await column (plain reports): no response times")
        share = float(ios[ok & (aw <= threshold_ms)].sum() / ios[ok].sum())
        return {**out, "share": share, "bounds": [share, share], "exact": False, "basis": "iostat await",
                "label": "INTERVAL-LEVEL: I/Os of the reports whose mean await is within the threshold; single "
                         "I/Os inside a report vary around that mean, so this is not a per-I/O share",
                "passed": share >= goal, "intervals": int(ok.sum()),
                "method": "sum of I/Os (rate x interval) in reports with await <= threshold / all I/Os with an await"
                          + (f"; {s.gap_words()}: left out" if s.gap_count else ""),
                "missing_reports": int(s.gap_mask().sum()), "devices": s.devices.as_dict()}
    res = latency_share(ws, run_id, threshold_ms, "all" if op == "total" else op, device)
    lo, hi = res.bounds
    if lo is not None and lo >= goal:
        passed: bool | None = True
    elif hi is not None and hi < goal:
        passed = False
    else:
        passed = None
    return {**out, "share": res.share, "bounds": [lo, hi], "exact": res.exact, "estimate": res.estimate,
            "basis": "latency histogram", "label": "per-I/O, from the latency histogram: " + res.method,
            "passed": passed, "ios": res.ios,
            "method": "the latency histogram's share of I/O within the threshold: exact, or bounds with an estimate"}


def _iomark_share(ws: Workspace, run_id: int, threshold_ms: float) -> tuple[float, str, list[dict[str, Any]]] | None:
    """The share within the threshold that IOmark reports (``pct_within_<T>ms``, percent), per result row.

    Rows of one run are separate measurements (two array configurations, a boot storm and a steady
    phase): their shares are not averaged -- a mean of 3 % and 27 % was never measured, and weighting
    by IOPS ignores how long each phase lasted. The check uses the lowest row and names it.
    """
    df = ws.query("SELECT * FROM iomark_results WHERE run_id = ?", [run_id])
    col = f"pct_within_{threshold_ms:g}ms"
    if df.height == 0 or col not in df.columns:
        return None
    df = df.filter(pl.col(col).is_not_null())
    if df.height == 0:
        return None
    rows: list[dict[str, Any]] = []
    for i, r in enumerate(df.iter_rows(named=True)):
        parts = [str(r[c]) for c in ("workload", "phase") if r.get(c) not in (None, "")]
        if r.get("users") is not None:
            parts.append(f"{r['users']} users")
        if r.get("notes"):
            parts.append(str(r["notes"])[:60])
        where = f"line {r['line']}" if r.get("line") is not None else f"row {i + 1}"
        rows.append({"row": f"{where} ({', '.join(parts)})" if parts else where, "share": float(r[col]) / 100.0})
    worst = min(rows, key=lambda x: x["share"])
    if len(rows) == 1:
        return worst["share"], f"IOmark result column {col!r} ({worst['row']})", rows
    listed = ", ".join(f"{x['row']}: {x['share']:.2%}" for x in rows)
    return (worst["share"], f"IOmark result column {col!r}: the lowest of {len(rows)} result rows, "
            f"{worst['row']!r} (each row is its own measurement; they are not averaged: {listed})", rows)
