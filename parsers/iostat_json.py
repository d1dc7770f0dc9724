"""sysstat ``iostat -o JSON`` (11.5.1+): ``sysstat.hosts[].statistics[]``.

The JSON is loaded whole (sysstat writes it for short captures; a long
capture belongs in the text format, which streams).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import polars as pl

from parsers.base import (
    Event,
    ImportOptions,
    JobState,
    ParseError,
    Rows,
    RunEnd,
    RunInfo,
    RunStart,
    WarnFn,
    parse_json,
    read_text,
)
from parsers.iostat import KIND
from parsers.iostat_columns import JSON_COLUMNS, METRICS, layout_family
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.textutil import resolve_stamps, split_stamp, stamp_datetime

CPU_KEYS = ["user", "nice", "system", "iowait", "steal", "idle"]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


class IostatJsonFormat:
    id = "iostat-json"
    kind = KIND.id  # the kind parsers.iostat declares
    label = "sysstat iostat (JSON)"
    priority = 60
    tables = ("iostat_samples", "cpu_samples")

    def sniff(self, head: bytes) -> float:
        t = head.lstrip()[:2048]
        if not t.startswith(b"{"):
            return 0.0
        if re.search(rb'"sysstat"\s*:', t) and (b'"disk' in head or b'"avg-cpu"' in head or b'"statistics"' in head):
            return 0.97
        if re.search(rb'"sysstat"\s*:', t):
            return 0.6
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        text = read_text(path, "an iostat JSON file")
        start = len(text) - len(text.lstrip())
        doc, end = parse_json(text, start)
        if text[end:].strip():
            raise ParseError("text after the JSON document", _line_of(text, end))
        hosts = doc.get("sysstat", {}).get("hosts") if isinstance(doc, dict) else None
        if not isinstance(hosts, list) or not hosts:
            raise ParseError("no sysstat.hosts[] array", 1)
        state.progress(0.5, "parsing")
        for h_i, host in enumerate(hosts):
            yield from self._host(host, h_i, options, warn, text)

    def _host(self, host: dict[str, Any], h_i: int, options: ImportOptions, warn: WarnFn,
              text: str) -> Iterator[Event]:
        name = host.get("nodename") or f"host {h_i + 1}"
        stats = host.get("statistics")
        if not isinstance(stats, list):
            raise ParseError(f"host {name!r} has no statistics[] array", 1)
        info = RunInfo(kind="iostat", host=host.get("nodename"),
                       os=" ".join(str(host[k]) for k in ("sysname", "release") if host.get(k)) or None)
        info.meta = {"arch": host.get("machine"), "cpus": host.get("number-of-cpus"),
                     "banner_date": host.get("date")}
        key = name
        yield RunStart(key, info)

        rows: list[dict[str, Any]] = []
        cpu: list[tuple] = []
        stamps: list[tuple[int, Any]] = []
        unknown: set[str] = set()
        canon_seen: set[str] = set()
        for idx, st in enumerate(stats):
            try:
                self._statistic(idx, st, text, rows, cpu, stamps, unknown, canon_seen)
            except ParseError as e:
                if e.line is None or e.line == 1:
                    raise ParseError(e.message, _stat_line(text, idx) or e.line) from None
                raise
        if unknown:
            warn("keys not recognised and not imported: " + ", ".join(sorted(unknown)), None)
        n = len(stats)
        ts_by = _report_times(stamps, text, warn)
        interval = None
        t_by: dict[int, float] = {}
        if ts_by:
            keys = sorted(ts_by)
            t0 = ts_by[keys[0]]
            t_by = {i: (ts_by[i] - t0).total_seconds() for i in keys}
            diffs = sorted((ts_by[b] - ts_by[a]).total_seconds() for a, b in zip(keys, keys[1:]))
            if diffs:
                interval = diffs[len(diffs) // 2]
                info.interval_source = "timestamps"
            info.started_at = t0
        elif options.interval_s:
            interval = options.interval_s
            info.interval_source = "user"
            t_by = {i: i * interval for i in range(n)}
        elif n > 1:
            warn("the file has no timestamps (iostat ran without -t): set the interval with {fix:set_interval}",
                 None)
            info.interval_source = "unknown"
        info.interval_s = interval
        mode = options.first_report
        since_boot = mode == "since-boot" or (mode == "auto" and n > 0)
        info.meta["first_report"] = {
            "since-boot": "since-boot (set by the user)",
            "interval": "interval (set by the user)",
        }.get(mode, "since-boot (assumed, iostat's default; the file cannot prove it)")
        if mode == "auto" and n > 0:
            warn("the first report was taken to cover the time since boot (iostat's default) and is left out "
                 "of analyses; if iostat ran with -y, say so with {fix:first_report_interval}", None)
        info.tool_version = layout_family(canon_seen, [])

        schema = frame_schema("iostat_samples", ["sample_idx", "device", "is_group", *METRICS])
        frame = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
        frame = frame.select([c for c in schema if c in ("sample_idx", "device", "is_group") or c in canon_seen])
        frame = frame.with_columns(
            pl.col("sample_idx").replace_strict(t_by, default=None, return_dtype=pl.Float64).alias("t_s"),
            pl.col("sample_idx").replace_strict(ts_by, default=None, return_dtype=pl.Datetime("us")).alias("ts"),
            (pl.col("sample_idx") == 0).and_(pl.lit(since_boot)).alias("since_boot"),
        )
        if frame.height:
            yield Rows(key, "iostat_samples", frame)
        if cpu:
            cdf = pl.DataFrame(cpu, schema=["sample_idx", *CPU_KEYS], orient="row").with_columns(
                pl.col("sample_idx").cast(pl.Int64))
            cdf = cdf.with_columns(
                pl.col("sample_idx").replace_strict(t_by, default=None, return_dtype=pl.Float64).alias("t_s"),
                pl.col("sample_idx").replace_strict(ts_by, default=None, return_dtype=pl.Datetime("us")).alias("ts"),
            )
            yield Rows(key, "cpu_samples", cdf)
        yield RunEnd(key, {
            "n_samples": n, "n_devices": frame.get_column("device").n_unique() if frame.height else 0,
            "ended_at": ts_by[max(ts_by)] if ts_by else None,
        }, info=info)


    @staticmethod
    def _statistic(idx: int, st: Any, text: str, rows: list[dict[str, Any]], cpu: list[tuple],
                   stamps: list[tuple[int, Any]], unknown: set[str], canon_seen: set[str]) -> None:
        """One element of statistics[]: its timestamp, avg-cpu and disk entries."""
        if not isinstance(st, dict):
            raise ParseError(f"statistics[{idx}] is not an object", None)
        ts = st.get("timestamp")
        if ts is not None:
            stamp = split_stamp(str(ts))
            if stamp is None:
                raise ParseError(f"unreadable timestamp {ts!r} in statistics[{idx}]",
                                 _line_of(text, text.find(str(ts))))
            stamps.append((idx, stamp))
        where = None  # the caller adds the line of statistics[idx] to an error without one
        if "avg-cpu" in st:
            c = st["avg-cpu"]
            if not isinstance(c, dict):
                raise ParseError(f"statistics[{idx}].avg-cpu is not an object", where)
            cpu.append((idx, *[_num(c.get(k), where) for k in CPU_KEYS]))
        disks = st.get("disk", []) or []
        if not isinstance(disks, list):
            raise ParseError(f"statistics[{idx}].disk is not a list", where)
        for d_i, d in enumerate(disks):
            if not isinstance(d, dict):
                raise ParseError(f"statistics[{idx}].disk[{d_i}] is not an object: {str(d)[:40]!r}", where)
            dev = d.get("disk_device")
            if dev is None:
                raise ParseError(f"a disk entry in statistics[{idx}] has no disk_device", None)
            rec: dict[str, Any] = {"sample_idx": idx, "device": str(dev).strip(),
                                   "is_group": str(dev).startswith(" ")}
            for k, v in d.items():
                if k == "disk_device":
                    continue
                m = JSON_COLUMNS.get(k)
                if m is None:
                    unknown.add(k)
                    continue
                num = _num(v, where)
                rec[m[0]] = num * m[1] if num is not None else None
                canon_seen.add(m[0])
            rows.append(rec)


def _num(v: Any, line: int | None = None) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ParseError(f"value {str(v)[:40]!r} is not a number", line)
    try:
        out = float(str(v).replace(",", ".")) if isinstance(v, str) else float(v)
    except ValueError:
        raise ParseError(f"value {v!r} is not a number", line) from None
    if not math.isfinite(out):
        raise ParseError(f"value {v!r} is not a finite number", line)
    return out


def _readable(s: Any) -> bool:
    """Whether a stamp is a real date and time in some day/month order."""
    for order in ("MDY", "DMY"):
        try:
            stamp_datetime(s, order)
            return True
        except ValueError:
            continue
    return False


def _stat_line(text: str, idx: int) -> int | None:
    """The line where statistics[idx] is, found by its timestamp (iostat -o JSON prints one per report), if any."""
    pos = -1
    for _ in range(idx + 1):
        pos = text.find('"timestamp"', pos + 1)
        if pos < 0:
            return None
    return _line_of(text, pos)


def _report_times(stamps: list[tuple[int, Any]], text: str, warn: WarnFn) -> dict[int, datetime]:
    """The time of each report that has a stamp (statistics[] index -> datetime)."""
    if not stamps:
        return {}
    try:
        dts, notes = resolve_stamps([s for _, s in stamps])
    except ValueError:
        bad = next((i, s) for i, s in stamps if not _readable(s))
        raise ParseError(f"impossible date or time {bad[1].text!r} in statistics[{bad[0]}]",
                         _stat_line(text, bad[0])) from None
    for note in notes:
        warn(note, None)
    return {i: dt for (i, _), dt in zip(stamps, dts)}


FORMAT = register(IostatJsonFormat())
