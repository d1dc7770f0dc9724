"""What goes into a report, computed from the workspace by the same analyses as the window and
the command line (no Qt, no PDF here): verdict sentences, tables, chart data, sources, methods.

Every number printed in the PDF comes from here, so tests can compare the PDF's text with these
values and with the CLI's JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.analysis.histograms import LATENCY, AnalysisError, collection_counts, latency_share
from app.analysis.text import pct_pair, render_stored
from reports.options import ReportOptions


def fmt(v: float | None, digits: int = 0, unit: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    s = f"{v:,.{digits}f}"
    return f"{s} {unit}".strip() if unit else s


def pct(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{v * 100:.{digits}f} %"


def num(v: float | None) -> str:
    """A value the user gave (threshold, goal, cap, tolerance), printed as given: 2.5 stays 2.5, never 2."""
    if v is None:
        return "–"
    return f"{v:,.6f}".rstrip("0").rstrip(".")


def ms(v: float | None) -> str:
    """A latency in ms with the digits it needs: 0.043 ms stays 0.043, not 0.0."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    digits = 3 if abs(v) < 1 else 2 if abs(v) < 10 else 1
    return f"{v:,.{digits}f} ms"


class Anonymiser:
    """Replaces host and device names (and any text containing them) with neutral labels."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.hosts: dict[str, str] = {}
        self.devices: dict[str, str] = {}

    def host(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.hosts.setdefault(name, f"host {len(self.hosts) + 1}")

    def device(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.devices.setdefault(name, f"device {len(self.devices) + 1}")

    def text(self, s: str | None) -> str:
        if not s or not self.enabled:
            return s or ""
        for real, alias in sorted({**self.hosts, **self.devices}.items(), key=lambda kv: -len(kv[0])):
            if len(real) >= 3:
                s = s.replace(real, alias)
        return s


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    note: str = ""
    widths: list[float] | None = None  # fractions of the text width
    max_cell: int = 90  # characters of a cell shown in full (untrusted text is cut, with "…")


@dataclass
class Chart:
    kind: str  # lines | heatmap | bars
    title: str
    data: dict[str, Any]
    note: str = ""


@dataclass
class Section:
    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)  # plain text (escaped when rendered)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    order: list[tuple[str, int]] = field(default_factory=list)  # (kind, index) in display order

    def para(self, text: str) -> None:
        self.paragraphs.append(text)
        self.order.append(("p", len(self.paragraphs) - 1))

    def table(self, t: Table) -> None:
        self.tables.append(t)
        self.order.append(("t", len(self.tables) - 1))

    def chart(self, c: Chart) -> None:
        self.charts.append(c)
        self.order.append(("c", len(self.charts) - 1))


@dataclass
class ReportContent:
    options: ReportOptions
    verdicts: list[str]
    sections: list[Section]
    methods: list[tuple[str, Any]]  # (analysis, method and parameters: text or a nested dict)
    values: dict[str, Any]  # every headline figure, for tests and the CLI's --json


def _runs(ws: Any, ids: list[int]) -> list[dict[str, Any]]:
    out = []
    for r in ws.runs():
        if not ids or r["run_id"] in ids:
            full = ws.run(r["run_id"]) or {}
            out.append({**r, **full})
    return out


def _tags(run: dict[str, Any]) -> dict[str, str]:
    return dict(run.get("tags") or {})


def collect(ws: Any, opt: ReportOptions) -> ReportContent:
    """Run the analyses the options ask for and turn them into report content."""
    an = Anonymiser(opt.anonymise)
    runs = _runs(ws, opt.runs)
    for r in runs:
        an.host(r.get("host"))
    if opt.runs:
        missing = set(opt.runs) - {r["run_id"] for r in runs}
        if missing:
            raise AnalysisError(f"no run {', '.join(map(str, sorted(missing)))} in this workspace")
    verdicts: list[str] = []
    methods: list[tuple[str, Any]] = []
    values: dict[str, Any] = {"runs": [r["run_id"] for r in runs]}
    sections: list[Section] = []
    iostat = [r for r in runs if r["kind"] == "iostat"]
    histo_runs = [r for r in runs if r["kind"] in ("vscsistats", "fio")]
    want = set(opt.sections)

    def name(r: dict[str, Any]) -> str:
        return an.text(r["name"])

    if "runs" in want:
        sec = Section("runs", "Runs analysed")
        rows = []
        for r in runs:
            period = "no timestamps"
            if r.get("started_at"):
                period = f"{r['started_at']:%Y-%m-%d %H:%M:%S}"
                if r.get("ended_at"):
                    period += f" – {r['ended_at']:%H:%M:%S}"
            interval = fmt(r.get("interval_s"), 0 if (r.get("interval_s") or 0) >= 1 else 2, "s") \
                if r.get("interval_s") else "unknown"
            rows.append([str(r["run_id"]), name(r), r["kind"], an.host(r.get("host")), period, interval,
                         str(r.get("n_samples")) if r.get("n_samples") else "–"])
        sec.para("The runs below were imported from the customer's trace files; their sources, checksums and "
                 "import warnings are listed in the appendix.")
        sec.table(Table("", ["Run", "Name", "Kind", "Host", "Period", "Interval", "Reports"], rows,
                        widths=[0.06, 0.25, 0.1, 0.15, 0.23, 0.11, 0.1]))
        sections.append(sec)

    series: dict[int, Any] = {}
    skipped: dict[str, list[str]] = {}  # reason -> runs the series analyses could not use
    if iostat and ({"overlay", "storm", "cap", "compare"} & want):
        from app.analysis.series import align, load_series

        for r in iostat:
            try:
                s = load_series(ws, r["run_id"], opt.device)
                if opt.align == "activity":
                    try:
                        s = align(s, "activity")
                    except AnalysisError:
                        s = align(s, "start")
                series[r["run_id"]] = s
            except AnalysisError as e:
                skipped.setdefault(_reason(str(e)), []).append(name(r))

    if "overlay" in want and series:
        sec = Section("overlay", "I/O over time")
        lines = []
        for r in iostat:
            s = series.get(r["run_id"])
            if s is None or s.frame.height == 0:
                continue
            lines.append({"label": name(r), "t": s.col("t_end_s").tolist(), "y": s.col("iops").tolist()})
        first = next(iter(series.values()))
        ref = first.align.get("reference", "start of the run")
        sec.para(f"IOPS per interval, summed over whole disks ({_device_rule(first, an)}); time 0 is the {ref}. "
                 "The since-boot report iostat prints first is left out. Long series are drawn with the minimum "
                 "and maximum of every point column, so no peak is lost.")
        # runs whose peaks differ by more than 5x get charts of their own: a 100,000 IOPS burst would flatten
        # a 1,000 IOPS boot storm drawn on the same axis
        groups: list[list[dict[str, Any]]] = []
        for ln in sorted(lines, key=lambda x: max([v for v in x["y"] if v is not None] or [0])):
            peak = max([v for v in ln["y"] if v is not None] or [0])
            if groups and peak <= 5 * max(groups[-1][0]["_peak"], 1):
                groups[-1].append({**ln, "_peak": peak})
            else:
                groups.append([{**ln, "_peak": peak}])
        order = {ln["label"]: i for i, ln in enumerate(lines)}
        for g in groups:
            g.sort(key=lambda x: order[x["label"]])
            title = "IOPS per interval" + (f" ({', '.join(x['label'] for x in g)})" if len(groups) > 1 else "")
            sec.chart(Chart("lines", title, {"lines": g, "x": "seconds", "y": "IOPS"}))
        sections.append(sec)
        methods.append(("I/O over time", first.method()))

    if "storm" in want and series:
        from app.analysis.storm import storm_report

        sec = Section("storm", "Storm metrics")
        rows = []
        for r in iostat:
            if r["run_id"] not in series:
                continue
            rep = storm_report(ws, r["run_id"], opt.device, phases="auto")
            m = rep.run
            values.setdefault("storm", {})[r["run_id"]] = m.as_dict()
            rows.append([name(r), fmt(m.peak_iops), fmt(m.time_to_peak_s, 0, "s"), fmt(m.time_above_s, 0, "s"),
                         fmt(m.settle_time_s, 0, "s"), fmt(m.total_ios), _reads(m.read_share, m.read_share_basis),
                         fmt(m.iops_percentiles.get("p95")), ms(m.mean_await_ms)])
            if m.peak_iops is not None:
                verdicts.append(f"Run {name(r)} peaked at {fmt(m.peak_iops)} IOPS, "
                                f"{fmt(m.time_to_peak_s, 0)} s after its I/O began"
                                + (f", and settled {fmt(m.settle_time_s, 0)} s after the peak."
                                   if m.settle_time_s is not None else "."))
            if rep.phases:
                prow = [[an.text(ph.name), fmt(ph.t_start_s, 0, "s"), fmt(ph.t_end_s, 0, "s"), fmt(pm.peak_iops),
                         fmt(pm.mean_iops), fmt(pm.total_ios), _reads(pm.read_share, pm.read_share_basis)]
                        for ph, pm in rep.phases]
                sec.table(Table(f"Phases of {name(r)} ({rep.phase_source})",
                                ["Phase", "From", "To", "Peak IOPS", "Mean IOPS", "I/Os", "Reads"], prow))
            methods.append((f"Storm metrics of {name(r)}", rep.method))
        sec.order.insert(0, ("t", len(sec.tables)))
        sec.tables.append(Table("", ["Run", "Peak IOPS", "To peak", "Above thr.", "Settle", "Total I/Os", "Reads",
                                     "p95 IOPS", "Mean await"], rows,
                                note="Await is interval-level: iostat reports a mean per interval, so its "
                                     "figures are means of interval means, not of single I/Os.",
                                widths=[0.22, 0.1, 0.09, 0.1, 0.08, 0.12, 0.07, 0.1, 0.12]))
        sections.append(sec)

    if "cap" in want and series:
        from app.analysis.cap import cap_report

        sec = Section("cap", "Cap compliance")
        rows = []
        for r in iostat:
            tags = _tags(r)
            iops_cap = opt.iops_cap if opt.iops_cap is not None else _float(tags.get("cap_iops"))
            bw_cap = opt.bw_cap_kbs if opt.bw_cap_kbs is not None else _float(tags.get("cap_bw_kbs"))
            if r["run_id"] not in series or (iops_cap is None and bw_cap is None):
                continue
            res = cap_report(ws, r["run_id"], opt.device, iops_cap=iops_cap, bw_cap_kbs=bw_cap,
                             tolerance_pct=opt.tolerance_pct)
            values.setdefault("cap", {})[r["run_id"]] = res.as_dict()
            for c in res.checks:
                unit = "IOPS" if c.metric == "iops" else "kB/s"
                worst = (c.worst_window or {}).get("average")
                held = {True: "held", False: "did not hold", None: "could not be judged"}[c.held]
                if c.verdict == "not capped":
                    held = "not capped"
                    verdicts.append(f"No {num(c.cap)} {unit} cap was in force on {name(r)}: its plateau of "
                                    f"{fmt(c.plateau)} {unit} is above the cap + {num(c.tolerance_pct)} %.")
                elif c.held is None:
                    verdicts.append(f"The {num(c.cap)} {unit} cap could not be judged on {name(r)}: "
                                    f"{c.explanation or c.verdict}.")
                elif c.verdict == "held (cap not reached)":
                    held = "held (not reached)"
                    verdicts.append(f"The {num(c.cap)} {unit} cap was never reached on {name(r)} (worst "
                                    f"{num(c.window_s)} s window {fmt(worst)} {unit}), so the run cannot show "
                                    "that it is enforced.")
                else:
                    verdicts.append(f"The {num(c.cap)} {unit} cap {held} on {name(r)} (worst {num(c.window_s)} s "
                                    f"window {fmt(worst)} {unit}, tolerance {num(c.tolerance_pct)} %).")
                rows.append([name(r), f"{num(c.cap)} {unit}", held, fmt(c.plateau), fmt(worst),
                             pct(c.over_cap_share), f"{num(c.tolerance_pct)} %"])
                sec.para(an.text(f"{name(r)}: {c.explanation or c.verdict}"))
            methods.append((f"Cap compliance of {name(r)}", res.method))
        if rows:
            sec.order.insert(0, ("t", len(sec.tables)))
            sec.tables.append(Table("", ["Run", "Cap", "Verdict", "Plateau", "Worst window", "Over cap + tol.",
                                         "Tolerance"], rows,
                                    note="Over cap + tol.: share of the time the windowed average was above the "
                                         "cap plus its tolerance (the limit the verdict uses)."))
            sections.append(sec)

    if "latency" in want and histo_runs:
        sec = Section("latency", "Response times")
        thr, goal = opt.latency_threshold_ms, opt.latency_goal_pct
        rows = []
        for r in histo_runs:
            try:
                ls = latency_share(ws, r["run_id"], thr)
            except AnalysisError as e:
                sec.para(f"{name(r)}: {e}.")
                continue
            values.setdefault("latency", {})[r["run_id"]] = ls
            if ls["exact"]:
                share_txt = pct(ls["share"])
                verdicts.append(f"{share_txt} of I/O completed within {num(thr)} ms on {name(r)} "
                                f"(goal {num(goal)} %){_goal_word(ls['share'], goal)}.")
            else:
                lo_t, hi_t = pct_pair(*ls["bounds"], digits=1, missing="–")
                share_txt = f"{lo_t} – {hi_t}"
                digits = len(lo_t.split(".")[1].split()[0]) if "." in lo_t else 1
                est = f"; estimate {pct(ls['estimate'], digits)} (ESTIMATE: linear interpolation)" \
                    if ls["estimate"] is not None else ""
                verdicts.append(f"Between {lo_t} and {hi_t} of I/O completed within {num(thr)} ms on "
                                f"{name(r)} (goal {num(goal)} %; {num(thr)} ms falls inside a histogram "
                                f"bucket{est}).")
            p = ls.get("percentiles_ms", {})
            rows.append([name(r), fmt(ls["ios"]), share_txt, "exact" if ls["exact"] else "bounds",
                         _pctl(p.get("p95")), _pctl(p.get("p99"))])
            counts = f" Histogram counts: {ls['counts']}." if r["kind"] == "vscsistats" else ""
            sec.para(an.text(f"{name(r)}: {ls['method']}. From the {ls['source']}.{counts}"))
            heat = _heatmap(ws, r["run_id"], an) if r["kind"] == "vscsistats" else None
            if heat:
                sec.chart(heat)
        if rows:
            sec.order.insert(0, ("t", len(sec.tables)))
            sec.tables.append(Table("", ["Run", "I/Os", f"≤ {num(thr)} ms", "Method", "p95", "p99"], rows))
            sections.append(sec)
            methods.append(("Response times", "share of I/O at or under the threshold from the latency "
                            "histograms; exact when the threshold is a bucket edge (or no I/O lies in the bucket "
                            "that contains it), otherwise lower and upper bounds plus a labelled linear-"
                            "interpolation estimate. Percentiles are the bucket that contains them."))

    ioz_runs = [r for r in runs if r["kind"] == "iozone"]
    if "iozone" in want and len(ioz_runs) >= 2:
        from app.analysis.compare import compare_iozone

        ioz = compare_iozone(ws, [r["run_id"] for r in ioz_runs])
        if ioz.get("rows"):
            sec = Section("iozone", "IOzone throughput")
            all_rows = ioz["rows"]
            keys = ioz.get("keys", [])
            const = {k: all_rows[0]["key"].get(k) for k in keys
                     if len({str(r["key"].get(k)) for r in all_rows}) == 1}
            vary = [k for k in keys if k not in const]
            cols = [i for i in range(len(ioz_runs)) if any(r["values"][i] is not None for r in all_rows)]
            shown = all_rows[:80]
            rows = []
            for row in shown:
                vals = [row["values"][i] for i in cols]
                base = vals[0]
                ratio = vals[-1] / base if base and vals[-1] is not None and len(vals) > 1 else None
                rows.append([str(row["key"].get(k, "")) for k in vary] + [str(row["metric"]).replace("_", " ")]
                            + [fmt(v) for v in vals] + [_ratio(ratio)]
                            + (["yes" if row.get("page_cache_likely") else ""] if "page_cache_likely" in row else []))
            header = [k.replace("_", " ") for k in vary] + ["value"] + [name(ioz_runs[i]) for i in cols] + ["ratio"]
            if any("page_cache_likely" in row for row in shown):
                header.append("page cache?")
            fixed = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in const.items() if v is not None)
            more = f" The first 80 of {len(all_rows)} matched rows are shown." if len(all_rows) > 80 else ""
            sec.para(f"IOzone results of the runs below, matched on {', '.join(vary) or 'their keys'}"
                     + (f" (all rows: {fixed})" if fixed else "") + f"; ratio = {name(ioz_runs[cols[-1]])} / "
                     f"{name(ioz_runs[cols[0]])}.{more}")
            sec.table(Table("", header, rows, note=ioz.get("note", "")))
            sections.append(sec)
            values["iozone"] = ioz

    if "sizing" in want and opt.sizing.get("users") and opt.sizing.get("iops_per_user"):
        from app.analysis.sizing import size_vdi

        sz = size_vdi(**opt.sizing)
        values["sizing"] = sz.as_dict()
        sec = Section("sizing", "VDI sizing")
        users = opt.sizing["users"]
        ipu = opt.sizing["iops_per_user"]
        plural = "s" if sz.disks != 1 else ""
        verdicts.append(f"The design needs {sz.disks} disk{plural} ({fmt(sz.disks_exact, 2)} rounded up) for "
                        f"{users:,} users at {num(ipu)} IOPS"
                        + (f" (capacity needs {sz.disks_for_capacity})" if sz.disks_for_capacity else "")
                        + (f"; built in whole {sz.layout}, that is {sz.disks_layout} disks." if
                           sz.disks_layout != sz.disks else "."))
        sec.table(Table("Inputs", ["Input", "Value", "Source"],
                        [[k, str(v.get("value")), str(v.get("source", ""))] for k, v in sz.inputs.items()],
                        widths=[0.3, 0.2, 0.5]))
        results = {
            "frontend_iops": (sz.frontend_iops, 0), "backend_iops": (sz.backend_iops, 0),
            "disks_for_iops": (sz.disks_exact, 2), "disks_for_capacity": (sz.capacity_exact, 2),
            "disks": (sz.disks, 0), "disks_layout": (sz.disks_layout, 0),
            "array_frontend_iops": (sz.array_frontend_iops, 0), "users_supported": (sz.users_supported, 1),
        }
        rows = []
        for k, f in sz.formula.items():
            v, d = results.get(k, (None, 0))
            shown = fmt(v, d) if v is not None else ""
            if k == "disks_for_iops":
                shown = f"{fmt(sz.disks_exact, 2)} → {sz.disks_for_iops}"
            if k == "disks_for_capacity" and sz.disks_for_capacity is not None:
                shown = f"{fmt(sz.capacity_exact, 2)} → {sz.disks_for_capacity}"
            rows.append([k.replace("_", " "), f, shown])
        sec.table(Table("Formula and result", ["Step", "Formula", "Result"], rows, widths=[0.22, 0.58, 0.2]))
        for n in sz.notes:
            sec.para(n)
        sections.append(sec)
        methods.append(("VDI sizing", {"formula": sz.formula, "raid": sz.raid, "disk": sz.disk}))

    comparable = [r for r in iostat if r["run_id"] in series]
    if "compare" in want and len(comparable) >= 2:
        from app.analysis.compare import compare_runs

        cmp = compare_runs(ws, [r["run_id"] for r in comparable], opt.device)
        values["compare"] = cmp.as_dict()
        sec = Section("compare", "A/B comparison")
        names = [an.text(r["name"]) for r in cmp.runs]
        rows = []
        for m in cmp.metrics:
            unit = m.get("unit", "")
            cells = [pct(v, 1) if unit == "fraction" else ms(v).removesuffix(" ms") if unit.startswith("ms")
                     else fmt(v, 1) for v in m["values"]]
            rows.append([m["metric"].replace("_", " "), "%" if unit == "fraction" else unit, *cells,
                         _ratio(m["ratio"][-1])])
        above = cmp.method.get("time_above_threshold_iops") if isinstance(cmp.method, dict) else None
        sec.para(f"Baseline: {names[0]}. The last column is the ratio of the last run to the baseline."
                 + (f" 'time above' counts, for every run, the seconds above {fmt(above, 1)} IOPS (half the "
                    "baseline's peak unless set), so the runs are measured against one level."
                    if above is not None else ""))
        sec.table(Table("", ["Metric", "Unit", *names, "Ratio"], rows))
        sections.append(sec)
        methods.append(("A/B comparison", cmp.method))

    if "appendix" in want:
        sec = Section("appendix", "Appendix: sources and methods")
        for r in runs:
            warn = [render_stored(w) for w in r.get("warnings") or []]
            sec.para(an.text(
                f"Run {r['run_id']} · {r['name']} · {r['kind']} ({r.get('format')}) · "
                f"{r.get('tool_version') or 'version not stated'} · host {an.host(r.get('host'))} · "
                f"source {r.get('source_path')} · SHA-256 {r.get('source_sha256')}"
                + (f" · warnings: {' | '.join(warn)}" if warn else " · no import warnings")))
        seen: dict[str, str] = {}
        for title, method in methods:
            rows = method_rows(method)
            key = json.dumps(rows)
            if key in seen:
                sec.para(f"{title}: the same method and parameters as {seen[key]}.")
                continue
            seen[key] = title
            sec.table(Table(f"Method: {title}", ["Parameter", "Value"],
                            [[an.text(k), an.text(v)] for k, v in rows], widths=[0.3, 0.7], max_cell=800))
        sections.append(sec)

    for reason, names in skipped.items():
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        verdicts.append(f"{len(names)} iostat run{'s' if len(names) > 1 else ''} could not be analysed over time "
                        f"({reason}): {shown}.")
    summary = Section("summary", "Executive summary")
    if "summary" in want:
        for v in verdicts or ["No analysis in this report produced a verdict."]:
            summary.para(v)
        sections.insert(0, summary)
    values["verdicts"] = verdicts
    return ReportContent(opt, verdicts, sections, methods, values)


def method_rows(method: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A method description (nested dicts) as readable (parameter, value) rows."""
    if isinstance(method, str):
        return [(prefix or "method", method)]
    rows: list[tuple[str, str]] = []
    if isinstance(method, dict):
        for k, v in method.items():
            key = f"{prefix} › {k}" if prefix else str(k)
            key = key.replace("_", " ")
            if isinstance(v, dict) and v:
                rows += method_rows(v, key)
            elif v is None or v == [] or v == {}:
                continue
            elif isinstance(v, (list, tuple)):
                rows.append((key, ", ".join(str(x) for x in v)))
            elif isinstance(v, float):
                rows.append((key, f"{v:g}"))
            else:
                rows.append((key, str(v)))
    return rows


def _reason(message: str) -> str:
    """The reason of an analysis error without the run number, so runs with the same reason group together."""
    import re

    text = re.sub(r"^run \d+ ", "", message).split(":")[0].strip() or message
    return re.sub(r"^(has|is) ", "", text)


def _float(v: Any) -> float | None:
    try:
        return None if v is None else float(v)
    except ValueError:
        return None


def _reads(share: float | None, basis: str | None) -> str:
    """Read share; plain (-d) reports have no r/s, w/s, so theirs is by kB, and the cell says so."""
    if share is None:
        return "–"
    return pct(share, 0) + (" (by kB)" if basis and basis != "I/Os" else "")


def _goal_word(share: float | None, goal_pct: float) -> str:
    if share is None:
        return ""
    return ": goal met" if share * 100 >= goal_pct else ": goal NOT met"


def _pctl(p: dict[str, Any] | None) -> str:
    if not p:
        return "–"
    lo, hi = p.get("bounds_ms") or [None, None]
    if p.get("exact"):
        return f"{fmt(hi, 2)} ms"
    for d in range(2, 7):  # enough digits to tell the bucket's edges apart (0.2166–0.2200, not 0.22–0.22)
        a, b = fmt(lo, d), fmt(hi, d)
        if a != b or lo == hi:
            break
    return f"{a}–{b} ms"


def _ratio(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}×"


def _device_rule(s: Any, an: Anonymiser) -> str:
    used = [an.device(d) for d in s.devices.used]
    return ", ".join(used[:6]) + (f" and {len(used) - 6} more" if len(used) > 6 else "")


def _heatmap(ws: Any, run_id: int, an: Anonymiser) -> Chart | None:
    # each collection's own counts (a cumulative vscsiStats run is differenced)
    rows = list(collection_counts(ws, run_id, LATENCY, "all").sort("device", "sample_idx", "bucket_hi", nulls_last=True)
                .select("device", "sample_idx", "bucket_lo", "bucket_hi", "count").iter_rows())
    if not rows:
        return None
    by_dev: dict[str, dict[int, list[tuple]]] = {}
    for dev, s, lo, hi, n in rows:
        by_dev.setdefault(dev, {}).setdefault(s, []).append((lo, hi, n))
    panels = []
    for dev, samples in list(by_dev.items())[:2]:
        buckets = next(iter(samples.values()))
        labels = [("> " + fmt(lo / 1000, 1) if hi is None else "≤ " + fmt(hi / 1000, 3 if hi < 1000 else 0))
                  + " ms" for lo, hi, _ in buckets]
        grid = np.zeros((len(samples), len(buckets)))
        for i, s in enumerate(sorted(samples)):
            c = [n for _, _, n in samples[s]][: len(buckets)]
            grid[i, : len(c)] = c
        panels.append({"label": an.device(dev), "labels": labels, "grid": grid.tolist()})
    return Chart("heatmap", "Latency histogram per sample (colour = I/O count)", {"panels": panels})
