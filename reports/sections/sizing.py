"""VDI sizing: the disks a design needs, steady and storm side by side, and a what-if over RAID levels and disk
types."""

from __future__ import annotations

import math
from typing import Any

from reports.content import Section, Table, fmt, num
from reports.context import ReportContext
from reports.options import ReportOptions
from reports.sections import section

SIZING_INPUT_NAMES = {"users": "Users", "iops_per_user": "IOPS per user", "read_pct": "Reads (%)",
                      "storm_multiplier": "Storm multiplier", "raid": "RAID level", "disk_iops": "IOPS per disk",
                      "gb_per_user": "GB per user", "disk_gb": "Disk size (GB)"}
SIZING_STEPS = {"frontend_iops": "Front-end IOPS", "backend_iops": "Back-end IOPS", "disks_for_iops": "Disks for IOPS",
                "disks_for_capacity": "Disks for capacity", "disks": "Disks",
                "disks_layout": "Disks in whole RAID sets", "array_frontend_iops": "Front-end IOPS the disks carry",
                "users_supported": "Users the disks carry"}


TITLE = "VDI sizing"


def sizing_section(opt: ReportOptions, verdicts: list[str], values: dict[str, Any],
                   methods: list[tuple[str, Any]], key: str = "sizing", title: str = TITLE) -> Section:
    """Steady and storm cases side by side (the range the consultant gave), then a what-if table."""
    from app.analysis.sizing import parse_iops_range, sizing_cases, what_if

    kw = dict(opt.sizing)
    users = int(kw.pop("users"))
    ipu = kw.pop("iops_per_user")
    mult = kw.pop("storm_multiplier", None)
    cases = sizing_cases(users, ipu, storm_multiplier=mult, **kw)
    values["sizing"] = cases[-1].result.as_dict()
    values["sizing_cases"] = [c.as_dict() for c in cases]
    sec = Section(key, title)
    steady = cases[0]
    if len(cases) == 1:
        sz = steady.result
        plural = "s" if sz.disks != 1 else ""
        verdicts.append(f"The design needs {sz.disks} disk{plural} ({fmt(sz.disks_exact, 2)} rounded up) for "
                        f"{users:,} users at {num(steady.iops_per_user)} IOPS"
                        + (f" (capacity needs {sz.disks_for_capacity})" if sz.disks_for_capacity else "")
                        + (f"; built in whole {sz.layout}, that is {sz.disks_layout} disks." if
                           sz.disks_layout != sz.disks else "."))
    elif steady.label == "light":  # a range: light and heavy users
        a, b = steady.result, cases[1].result
        verdicts.append(f"For {users:,} users the design needs {a.disks_layout} disks if they are light users "
                        f"({num(steady.iops_per_user)} IOPS each; {fmt(a.disks_exact, 2)} rounded up) and "
                        f"{b.disks_layout} disks if they are heavy users ({num(cases[1].iops_per_user)} IOPS each; "
                        f"{fmt(b.disks_exact, 2)} rounded up); {b.disks_layout} disks carry either.")
    else:
        storm = cases[1]
        how = f"{num(steady.iops_per_user)} × storm multiplier {num(mult)}"
        a, b = steady.result, storm.result
        verdicts.append(f"For {users:,} users the design needs {a.disks_layout} disks at the steady "
                        f"{num(steady.iops_per_user)} IOPS per user ({fmt(a.disks_exact, 2)} rounded up) and "
                        f"{b.disks_layout} disks at the storm's {num(storm.iops_per_user)} IOPS per user "
                        f"({how}; {fmt(b.disks_exact, 2)} rounded up); {b.disks_layout} disks carry the storm.")
    first = steady.result
    disk = f"{first.disk['label']} disks" if first.disk.get("label") else "disks"
    sec.para(f"{users:,} users, {num(first.inputs['read_pct']['value'])} % reads, {first.raid['label']} (write "
             f"penalty {first.raid['write_penalty']}), {disk} at {num(first.disk['iops'])} IOPS each. "
             + ("The heavy users decide the number of disks; the light users show the least the design needs."
                if steady.label == "light" else
                "The storm case decides the number of disks; the steady case shows what the everyday load needs."
                if len(cases) > 1 else ""))
    words = {"light": "Light users", "heavy": "Heavy users"}
    header = ["Step", "How"] + [f"{words.get(c.label, c.label.capitalize())}: {num(c.iops_per_user)} IOPS per user"
                                for c in cases]
    rows = []
    for k, label in SIZING_STEPS.items():
        cells = []
        for c in cases:
            sz = c.result
            v = {"frontend_iops": fmt(sz.frontend_iops), "backend_iops": fmt(sz.backend_iops),
                 "disks_for_iops": f"{fmt(sz.disks_exact, 2)} → {sz.disks_for_iops}",
                 "disks_for_capacity": (f"{fmt(sz.capacity_exact, 2)} → {sz.disks_for_capacity}"
                                        if sz.disks_for_capacity is not None else "not sized"),
                 "disks": str(sz.disks), "disks_layout": str(sz.disks_layout),
                 "array_frontend_iops": fmt(sz.array_frontend_iops),
                 "users_supported": fmt(math.floor(sz.users_supported + 1e-9))}[k]
            cells.append(v)
        rows.append([label, SIZING_HOW[k], *cells])
    sec.table(Table("Steady and storm", header, rows))
    inputs = []
    for k, given_input in first.inputs.items():
        if k in ("iops_per_user", "storm_multiplier"):
            continue
        inputs.append([SIZING_INPUT_NAMES.get(k, k.replace("_", " ")),
                       _sizing_value(k, given_input.get("value"), first), str(given_input.get("source", ""))])
    rng, top = parse_iops_range(ipu)
    given = f"{num(rng)} (light users) to {num(top)} (heavy users)" if top is not None else num(rng)
    inputs.insert(1, ["IOPS per user", given + (f", storm × {num(mult)}" if mult not in (None, 1, 1.0) else ""),
                      "given"])
    sec.table(Table("Inputs", ["Input", "Value", "Source"], inputs, widths=[0.2, 0.25, 0.55], max_cell=400))
    notes = [str(n) for c in cases for n in c.result.notes]
    for n in dict.fromkeys(notes):
        if "round UP" not in n:
            sec.para(n[:1].upper() + n[1:] + ("" if n.endswith(".") else "."))
    loads = [c.iops_per_user for c in cases]
    wi = what_if(users, loads, read_pct=first.inputs["read_pct"]["value"], gb_per_user=kw.get("gb_per_user"),
                 disk_gb=kw.get("disk_gb"))
    values["sizing_what_if"] = wi
    disks = list(dict.fromkeys(r["disk_type"] for r in wi))
    labels = {r["disk_type"]: f"{r['disk_label']} ({num(r['disk_iops'])} IOPS)" for r in wi}
    wrows = []
    for raid in dict.fromkeys(r["raid"] for r in wi):
        by_disk = {r["disk_type"]: " / ".join(str(n) for n in r["disks"]) for r in wi if r["raid"] == raid}
        lab = next(r for r in wi if r["raid"] == raid)
        wrows.append([lab["raid_label"], str(lab["write_penalty"]), *[by_disk[d] for d in disks]])
    what = " / ".join(f"{c.label} {num(c.iops_per_user)}" for c in cases)
    sec.table(Table("What if: other RAID levels and disk types",
                    ["RAID level", "Write penalty", *[labels[d] for d in disks]], wrows,
                    note=f"Disks in whole RAID sets for {users:,} users at {what} IOPS per user, "
                         f"{num(first.inputs['read_pct']['value'])} % reads"
                         + (f", at least the disks {num(kw['gb_per_user'])} GB per user need at "
                            f"{num(kw['disk_gb'])} GB per disk" if kw.get("gb_per_user") and kw.get("disk_gb") else "")
                         + ". IOPS per disk are typical figures; "
                         "measure your model. SSDs are usually sized by capacity, not IOPS."))
    methods.append(("sizing", {"formula": first.formula, "raid": first.raid, "disk": first.disk}))
    return sec


SIZING_HOW = {
    "frontend_iops": "users × IOPS per user", "backend_iops": "reads + writes × write penalty",
    "disks_for_iops": "back-end IOPS ÷ IOPS per disk, rounded up", "disks_for_capacity":
    "users × GB per user ÷ usable GB per disk, rounded up", "disks": "the larger of the two",
    "disks_layout": "rounded up to whole RAID sets", "array_frontend_iops": "disks × IOPS per disk ÷ (reads + "
    "writes × write penalty)", "users_supported": "front-end IOPS the disks carry ÷ IOPS per user"}


def _sizing_value(key: str, v: Any, sz: Any) -> str:
    if key == "raid":
        return str(sz.raid.get("label", v))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return num(v)
    return str(v)


@section("sizing", title=TITLE, order=90)
def build(ctx: ReportContext) -> Section | None:
    opt = ctx.opt
    if ctx.sizing_from is not None:
        opt = opt.merged(sizing=sizing_params(ctx.sizing_from[0].question))
    if not (opt.sizing.get("users") and opt.sizing.get("iops_per_user")):
        return None
    return sizing_section(opt, ctx.verdicts, ctx.values, ctx.methods)


def sizing_params(q: Any) -> dict[str, Any]:
    """A sizing question's inputs as the report options' sizing dict."""
    ipu: Any = q.iops_per_user if q.iops_per_user_storm is None else f"{q.iops_per_user:g}..{q.iops_per_user_storm:g}"
    out = {"users": q.users, "iops_per_user": ipu}
    for k in ("storm_multiplier", "read_pct", "raid", "disk_type", "disk_iops", "gb_per_user", "disk_gb", "profile"):
        if getattr(q, k, None) is not None:
            out[k] = getattr(q, k)
    return out
