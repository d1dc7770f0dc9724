"""IOzone throughput: the IOzone runs' results matched row by row."""

from __future__ import annotations

from parsers.kinds import THROUGHPUT_GRID, has
from reports.content import Section, Table, _ioz_key, _ioz_unit, _ioz_val, _ratio, fmt
from reports.context import ReportContext
from reports.sections import section


@section("iozone")
def build(ctx: ReportContext) -> Section | None:
    from app.analysis.compare import compare_iozone

    ioz_runs = [r for r in ctx.runs if has(r["kind"], THROUGHPUT_GRID)]
    if len(ioz_runs) < 2:
        return None
    ioz = compare_iozone(ctx.ws, [r["run_id"] for r in ioz_runs])
    if not ioz.get("rows"):
        return None
    sec = Section("iozone", "IOzone throughput")
    all_rows = ioz["rows"]
    keys = ioz.get("keys", [])
    const = {k: all_rows[0]["key"].get(k) for k in keys if len({str(r["key"].get(k)) for r in all_rows}) == 1}
    vary = [k for k in keys if k not in const]
    cols = [i for i in range(len(ioz_runs)) if any(r["values"][i] is not None for r in all_rows)]
    shown = all_rows[:80]
    pair = len(cols) == 2  # a ratio only between the two runs compared, never last-of-many / first
    rows = []
    for row in shown:
        vals = [row["values"][i] for i in cols]
        base = vals[0]
        ratio = vals[-1] / base if base and vals[-1] is not None and len(vals) > 1 else None
        rows.append([_ioz_val(row["key"].get(k, "")) for k in vary] + [_ioz_unit(row["metric"])]
                    + [fmt(v) for v in vals] + ([_ratio(ratio)] if pair else [])
                    + (["yes" if row.get("page_cache_likely") else ""] if "page_cache_likely" in row else []))
    header = [_ioz_key(k)[:1].upper() + _ioz_key(k)[1:] for k in vary] + ["Unit"] \
        + [ctx.name(ioz_runs[i]) for i in cols] + (["Ratio"] if pair else [])
    if any("page_cache_likely" in row for row in shown):
        header.append("Page cache?")
    fixed = ", ".join(f"{_ioz_key(k)} {_ioz_val(v)}" for k, v in const.items() if v is not None)
    more = f" The first 80 of {len(all_rows)} matched rows are shown." if len(all_rows) > 80 else ""
    matched = ", ".join(_ioz_key(k) for k in vary) or "their keys"
    sec.para(f"IOzone results of the runs below, matched on {matched}"
             + (f" (all rows: {fixed})" if fixed else "")
             + (f"; ratio = {ctx.name(ioz_runs[cols[-1]])} / {ctx.name(ioz_runs[cols[0]])}" if pair else "")
             + f".{more}")
    sec.table(Table("", header, rows, note=ioz.get("note", "")))
    ctx.values["iozone"] = ioz
    ctx.covered.update(ioz_runs[i]["run_id"] for i in cols)
    return sec
