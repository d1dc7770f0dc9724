"""iostat of other systems, read into the same per-device samples as sysstat's iostat (kind ``iostat``).

* **macOS / FreeBSD** ``iostat [-w N] [-c N] [-d] [-C] [disk …]``: a row of group names (``disk0 … cpu load
  average``, ``tty`` on FreeBSD) over a row of column names (``KB/t tps MB/s`` per disk, ``us sy id``, ``1m 5m
  15m``), then one line per report. Per disk: ``tps`` (transfers/s, no read/write split: stored as ``tps``
  only), ``MB/s`` × 1024 = ``kb_s`` (MB = 1024 × 1024 bytes; printed with two decimals, so 0.01 MB/s = 10.24
  kB/s is the resolution), ``KB/t`` = ``areq_kb``. The CPU columns go to ``cpu_samples``; tty and load
  average are not stored. The first line covers the time since boot.
* **illumos / Solaris** ``iostat -x[n][z][M][e] [-T d|u]``: "extended device statistics" blocks, read by the
  header's column names (``-xn`` prints the device last, ``-x`` first). Mapped as printed: ``r/s w/s`` =
  ``r_s w_s``; ``kr/s kw/s`` (``Mr/s Mw/s`` × 1024) = ``rkb_s wkb_s``; ``%b`` = ``util_pct``; ``aqu_sz`` =
  ``wait + actv`` (transactions waiting + being serviced); ``await_ms`` = ``wsvc_t + asvc_t`` (time in the wait
  queue + active service time, rounded to the printed decimals), or ``svc_t`` (``-x`` without ``-n``, which is
  that sum already). ``%w`` and the ``-e`` error counts are not stored. The first block covers the time since
  boot. ``layer``: whole disks (``c0t0d0``, ``sd1`` …) are ``disk``; slices, partitions, RAM disks, lofi
  devices, NFS mounts and ZFS pools ``volume`` (their I/O is not extra physical disk I/O).
* **ZFS** ``zpool iostat [-v] [-l] [-T d|u] [pool …] [interval [count]]``: ``operations read/write`` = ``r_s
  w_s``, ``bandwidth read/write`` = ``rkb_s wkb_s`` (K, M, G, T = powers of 1024 bytes; ops too are printed
  with K = 1024), ``-l`` ``total_wait read/write`` = ``r_await_ms w_await_ms``. Devices are named by their
  path in the pool: ``tank``, ``tank/mirror-0``, ``tank/mirror-0/sda``, ``tank/logs/sdc``. ``layer`` keeps
  the pool's total and its vdevs apart from the disks so nothing is counted twice: the pool row is ``total``,
  a vdev with devices under it (mirror, raidz, …) ``volume``, a device with none under it ``disk``.
  Capacity (``alloc``/``free``) is not a rate: the last report's figures go to ``runs.meta``. The first
  report covers the time since the pool was imported.
* **AIX** ``iostat`` (``System configuration: lcpu=… drives=…``, ``-D`` extended disk reports): recognised and
  refused with what to import instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
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
    TextLines,
    WarnFn,
)
from parsers.iostat import KIND
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import LIST, OBJ, REFUSED, TEXT, Counts, MetaKey, Semantics, Span, common

KB = 1024.0
CHUNK_ROWS = 50_000
SET_INTERVAL = ("the file has no timestamps, so the interval is unknown: times are left empty. Set it with "
                "{fix:set_interval} (the number after 'iostat', e.g. 5 for 'iostat 5')")
SET_INTERVAL_ZPOOL = ("the file has no timestamps, so the interval is unknown: times are left empty. Set it with "
                      "{fix:set_interval} (the number after 'zpool iostat', e.g. 5 for 'zpool iostat 5')")
_EPOCH = re.compile(r"^\d{9,11}$")  # -T u
_DATE_LINE = re.compile(  # -T d: "Mon Nov 23 22:22:35 UTC 2026" (zone optional)
    r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) +([A-Z][a-z]{2}) +(\d{1,2}) +(\d{1,2}:\d{2}:\d{2})"
    r"(?: +([A-Za-z][\w+-]*))? +(\d{4})$")


def _head_text(head: bytes) -> str:
    if b"\x00" in head:
        return ""
    return head.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def _stamp(line: str) -> tuple[datetime, str | None] | None:
    """A ``-T u`` (epoch seconds: UTC) or ``-T d`` (date(1) style) line: (time, UTC offset when known)."""
    s = line.strip()
    if _EPOCH.match(s):
        return datetime.fromtimestamp(int(s), UTC).replace(tzinfo=None), "+00:00"
    m = _DATE_LINE.match(s)
    if m is None:
        return None
    _dow, mon, day, hms, zone, year = m.groups()
    try:
        dt = datetime.strptime(f"{mon} {day} {year} {hms}", "%b %d %Y %H:%M:%S")
    except ValueError:
        return None
    return dt, ("+00:00" if zone in ("UTC", "GMT", "Z") else None)


def _decimals(s: str) -> int:
    return len(s) - s.index(".") - 1 if "." in s else 0


def _num(tok: str, line: int, what: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise ParseError(f"{what} {tok!r} is not a number", line) from None
    if not np.isfinite(v) or v < 0:
        raise ParseError(f"{what} {tok!r} is not a value iostat prints", line)
    return v


# ---- one run's samples -------------------------------------------------------------------------------------
@dataclass
class _Run:
    """The samples of one file (one run), sent in chunks."""

    key: str
    info: RunInfo
    columns: list[str]  # iostat_samples columns the rows fill, after sample_idx, ts, t_s, device, since_boot
    options: ImportOptions
    sample: int = -1
    ts: dict[int, datetime] = field(default_factory=dict)
    t0: datetime | None = None
    rows: list[tuple] = field(default_factory=list)
    cpu: list[tuple] = field(default_factory=list)
    devices: set[str] = field(default_factory=set)
    n_rows: int = 0
    started: bool = False
    offsets: set[str] = field(default_factory=set)

    def new_sample(self, stamp: tuple[datetime, str | None] | None = None) -> int:
        self.sample += 1
        if stamp is not None:
            self.ts[self.sample] = stamp[0]
            if stamp[1]:
                self.offsets.add(stamp[1])
            if self.t0 is None:
                self.t0 = stamp[0]
        return self.sample

    def since_boot(self, sample: int) -> bool:
        return sample == 0 and self.options.first_report != "interval"

    def add(self, device: str, values: tuple) -> None:
        """One device row of the current sample; ``values`` in the order of ``columns``."""
        self.rows.append((self.sample, device, *values))
        self.devices.add(device)

    def add_cpu(self, user: float | None, nice: float | None, system: float | None, idle: float | None) -> None:
        self.cpu.append((self.sample, user, nice, system, None, None, idle))

    def _times(self, samples: list[int]) -> tuple[list[datetime | None], list[float | None]]:
        ts = [self.ts.get(s) for s in samples]
        if self.t0 is not None:
            t0 = self.t0
            return ts, [None if t is None else (t - t0).total_seconds() for t in ts]
        if self.options.interval_s:
            return ts, [s * float(self.options.interval_s) for s in samples]
        return ts, [None] * len(samples)

    def drain(self, final: bool = False) -> Iterator[Event]:
        if not self.started:
            self.started = True
            yield RunStart(self.key, self.info)
        if self.rows and (final or len(self.rows) >= CHUNK_ROWS):
            rows, self.rows = self.rows, []
            cols = list(zip(*rows))
            samples = list(cols[0])
            ts, t_s = self._times(samples)
            data = {"sample_idx": samples, "ts": ts, "t_s": t_s, "device": list(cols[1]),
                    "since_boot": [self.since_boot(s) for s in samples]}
            data.update({c: list(v) for c, v in zip(self.columns, cols[2:])})
            self.n_rows += len(rows)
            yield Rows(self.key, "iostat_samples", pl.DataFrame(data, schema=frame_schema("iostat_samples",
                                                                                           list(data))))
        if final and self.cpu:
            cols = list(zip(*self.cpu))
            samples = list(cols[0])
            ts, t_s = self._times(samples)
            names = ["user", "nice", "system", "iowait", "steal", "idle"]
            data = {"sample_idx": samples, "ts": ts, "t_s": t_s, **{n: list(v) for n, v in zip(names, cols[1:])}}
            self.cpu = []
            yield Rows(self.key, "cpu_samples", pl.DataFrame(data, schema=frame_schema("cpu_samples", list(data))))

    def finish(self, warn: WarnFn, first_report: str, covers: str, set_interval: str) -> Iterator[Event]:
        """The run's interval, first report (``covers``: what it covers, in words) and counts, once the whole
        file is read."""
        yield from self.drain(final=True)
        info = self.info
        n_samples = self.sample + 1
        if self.ts:
            keys = sorted(self.ts)
            diffs = [(self.ts[b] - self.ts[a]).total_seconds() / (b - a) for a, b in zip(keys, keys[1:])]
            diffs = [d for d in diffs if d > 0]
            info.started_at = self.ts[keys[0]]
            if diffs:
                info.interval_s = float(np.median(diffs))
                info.interval_source = "timestamps"
            if len(self.offsets) == 1 and len(self.ts) == n_samples:
                info.meta["utc_offset"] = next(iter(self.offsets))
        if info.interval_s is None and self.options.interval_s:
            info.interval_s = float(self.options.interval_s)
            info.interval_source = "user"
        if info.interval_s is None and n_samples > 1:
            warn(set_interval, None)
            info.interval_source = "unknown"
        mode = self.options.first_report
        if n_samples == 0:
            info.meta["first_report"] = "no reports"
        elif mode == "interval":
            info.meta["first_report"] = "interval (set by the user)"
        elif mode == "since-boot":
            info.meta["first_report"] = "since-boot (set by the user)"
        else:
            info.meta["first_report"] = first_report
            warn(f"the first report was taken to cover {covers} and is left out of analyses; if the file does "
                 "not start with the tool's first report, say so with {fix:first_report_interval}", None)
        if self.n_rows == 0 and n_samples > 0:
            warn("the file holds no device rows (every report is empty)", None)
        yield RunEnd(self.key, {
            "n_samples": n_samples, "n_devices": len(self.devices),
            "ended_at": self.ts[max(self.ts)] if self.ts else None,
        }, info=info)


# ---- macOS / FreeBSD ----------------------------------------------------------------------------------------
_BSD_CPU = {"us": "user", "ni": "nice", "sy": "system", "in": "interrupt", "id": "idle"}
_BSD_LOAD = ("1m", "5m", "15m")


@dataclass
class _BsdLayout:
    """The columns of a macOS/FreeBSD header pair: per column, (group, column name)."""

    disks: list[str]
    columns: list[tuple[str, str]]
    text: tuple[str, str]


def _bsd_columns(names: list[str], line: int) -> list[tuple[str, str | None]]:
    """Split the column-name row into groups: ('disk', None) columns of one disk, 'tty', 'cpu', 'load'."""
    out: list[tuple[str, str | None]] = []
    i = 0
    disk = 0
    while i < len(names):
        n = names[i]
        if n == "KB/t":
            trio = names[i:i + 3]
            if len(trio) < 3 or trio[1] not in ("tps", "xfrs") or trio[2] not in ("MB/s", "KB/s", "MB"):
                raise ParseError(f"expected 'KB/t tps MB/s' for each disk, found {' '.join(trio)!r}", line)
            if trio[1] == "xfrs" or trio[2] == "MB":
                raise ParseError("this iostat ran with -I (totals since it started, not rates per second): "
                                 "run it without -I", line)
            out += [(f"disk{disk}", t) for t in trio]
            disk += 1
            i += 3
        elif n in ("tin", "tout"):
            out.append(("tty", n))
            i += 1
        elif n in _BSD_CPU:
            out.append(("cpu", n))
            i += 1
        elif n in _BSD_LOAD:
            out.append(("load", n))
            i += 1
        else:
            raise ParseError(f"column {n!r} of the iostat header is not read (expected KB/t tps MB/s per disk, "
                             "tty, cpu and load average columns)", line)
    return out


def _is_bsd_header(line: str) -> bool:
    toks = line.split()
    return "KB/t" in toks and ("tps" in toks or "xfrs" in toks)


MACOS_SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES, names=LINUX_NAMES,
    wording={"tps": "tps (xfrs)", "kb_s": "MB/s (KB/s)", "areq_kb": "KB/t", "user": "us", "nice": "ni",
             "system": "sy", "idle": "id"},
    meta=(*common("utc_offset"), MetaKey("disks", LIST, "the disks the header names, in its order")))


class IostatMacosFormat:
    id = "iostat-macos"
    kind = KIND.id  # the kind parsers.iostat declares
    label = "macOS / FreeBSD iostat (text)"
    priority = 480
    tables = ("iostat_samples", "cpu_samples")
    semantics = MACOS_SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines = [ln for ln in _head_text(head).split("\n") if ln.strip()]
        for i, ln in enumerate(lines[1:], 1):
            if _is_bsd_header(ln):
                toks = ln.split()
                known = set(_BSD_CPU) | set(_BSD_LOAD) | {"KB/t", "tps", "MB/s", "KB/s", "xfrs", "MB", "tin", "tout"}
                if set(toks) <= known and lines[i - 1].split():
                    return 0.9
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        info = RunInfo(kind="iostat", os="macOS / FreeBSD (from the layout)")
        run = _Run("iostat", info, ["tps", "kb_s", "areq_kb"], options)
        layout: _BsdLayout | None = None
        prev: tuple[int, str] | None = None  # a text line waiting for the column-name row under it
        for n, line in TextLines(path, "a macOS iostat log", state, 5000):
            if not line.strip():
                continue
            if _is_bsd_header(line):
                if prev is None:
                    raise ParseError("a column-name row without the row of disk names above it", n)
                if layout is None or layout.text != (prev[1], line):  # iostat repeats its header: same layout
                    layout = self._layout(prev, n, line)
                prev = None
                continue
            if prev is not None:
                raise ParseError(f"unexpected text {prev[1].strip()[:60]!r}: expected the iostat header (disk "
                                 "names, then KB/t tps MB/s)", prev[0])
            if not re.match(r"^\s*[0-9.]", line):
                prev = (n, line)
                continue
            if layout is None:
                raise ParseError("values before the iostat header (disk names, then KB/t tps MB/s)", n)
            self._row(run, layout, line, n)
            if len(run.rows) >= CHUNK_ROWS:
                yield from run.drain()
        if prev is not None:
            raise ParseError(f"unexpected text {prev[1].strip()[:60]!r}", prev[0])
        if layout is None:
            raise ParseError("no iostat header found (a row of disk names over 'KB/t tps MB/s')", 1)
        info.meta["disks"] = layout.disks
        yield from run.finish(warn, "since-boot (iostat on macOS and FreeBSD prints the averages since boot first)",
                              "the time since boot", SET_INTERVAL)

    @staticmethod
    def _layout(prev: tuple[int, str], n: int, line: str) -> _BsdLayout:
        cols = _bsd_columns(line.split(), n)
        groups = prev[1].replace("load average", "").split()
        names = [g for g in groups if g not in ("tty", "cpu")]
        n_disks = len({g for g, _ in cols if g.startswith("disk")})
        if len(names) != n_disks:
            raise ParseError(f"{len(names)} disk name(s) ({', '.join(names) or 'none'}) over {n_disks} "
                             "'KB/t tps MB/s' group(s)", prev[0])
        columns = [(names[int(g[4:])] if g.startswith("disk") else g, c or "") for g, c in cols]
        return _BsdLayout(names, columns, (prev[1], line))

    @staticmethod
    def _row(run: _Run, layout: _BsdLayout, line: str, n: int) -> None:
        toks = line.split()
        if len(toks) != len(layout.columns):
            raise ParseError(f"expected {len(layout.columns)} values (as the header says), found {len(toks)}", n)
        run.new_sample()
        per_disk: dict[str, dict[str, float]] = {}
        cpu: dict[str, float] = {}
        for (group, col), tok in zip(layout.columns, toks):
            v = _num(tok, n, f"{group} {col}")
            if group == "cpu":
                cpu[_BSD_CPU[col]] = v
            elif group not in ("tty", "load"):
                per_disk.setdefault(group, {})[col] = v
        for disk in layout.disks:
            d = per_disk[disk]
            kb_s = d["MB/s"] * KB if "MB/s" in d else d["KB/s"]
            run.add(disk, (d["tps"], round(kb_s, 6), d["KB/t"]))
        if cpu:
            run.add_cpu(cpu.get("user"), cpu.get("nice"), cpu.get("system"), cpu.get("idle"))


# ---- illumos / Solaris iostat -x ----------------------------------------------------------------------------
_SOLARIS_TITLE = re.compile(r"^\s*extended device statistics\b")
_SOLARIS_COLUMNS = {"r/s", "w/s", "kr/s", "kw/s", "Mr/s", "Mw/s", "wait", "actv", "wsvc_t", "asvc_t", "svc_t",
                    "%w", "%b", "s/w", "h/w", "trn", "tot", "device"}
_SOLARIS_DISK = re.compile(r"^(c\d+(t[0-9A-Fa-f]+)?d\d+|(sd|ssd|cmdk|dad|vdc|xdf|blkdev|nvme|ata)\d+)$")


def _is_solaris_header(line: str) -> bool:
    toks = line.split()
    return "device" in toks and "r/s" in toks and ("actv" in toks or "%b" in toks)


def solaris_layer(device: str) -> str:
    """``disk`` for a whole disk, ``volume`` for what is not one: a slice or partition (c0t0d0s0, sd1,a), a
    RAM disk, a lofi device, an NFS mount (host:/path, nfs1) or a ZFS pool."""
    return "disk" if _SOLARIS_DISK.match(device) else "volume"


ILLUMOS_SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES,
    layers={"disk": "whole disks (c0t0d0, sd1, cmdk0 ...)",
            "volume": "what is not a whole disk: slices and partitions (c0t0d0s0, sd1,a), RAM disks, lofi devices, "
                      "NFS mounts, ZFS pools"},
    wording={"r_s": "r/s", "w_s": "w/s", "rkb_s": "kr/s (Mr/s)", "wkb_s": "kw/s (Mw/s)", "aqu_sz": "wait + actv",
             "await_ms": "wsvc_t + asvc_t", "util_pct": "%b"},
    meta=(*common("utc_offset"), MetaKey("mapping", LIST, "how the file's columns were read (e.g. await = wsvc_t + "
                                         "asvc_t)")))


class IostatIllumosFormat:
    id = "iostat-illumos"
    kind = KIND.id
    label = "illumos / Solaris iostat -x (text)"
    priority = 470
    tables = ("iostat_samples",)
    semantics = ILLUMOS_SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines = _head_text(head).split("\n")
        title = any(_SOLARIS_TITLE.match(ln) for ln in lines)
        header = any(_is_solaris_header(ln) for ln in lines)
        if title and header:
            return 0.95
        return 0.7 if header else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        info = RunInfo(kind="iostat", os="illumos / Solaris (from the layout)")
        run = _Run("iostat", info, ["r_s", "w_s", "rkb_s", "wkb_s", "aqu_sz", "await_ms", "util_pct", "layer"],
                   options)
        header: list[str] | None = None
        opened = False  # a title or a stamp opened the current report
        stamp: tuple[datetime, str | None] | None = None
        seen: set[str] = set()
        how: set[str] = set()
        for n, line in TextLines(path, "an illumos iostat log", state, 5000):
            s = line.strip()
            if not s:
                continue
            if (st := _stamp(s)) is not None:
                stamp = st
                continue
            if _SOLARIS_TITLE.match(line):
                if s != "extended device statistics":
                    raise ParseError(f"{s!r}: iostat -x with tty or CPU columns (-t, -c) is not read; run it "
                                     "without them", n)
                run.new_sample(stamp)
                stamp, opened, seen = None, True, set()
                continue
            if _is_solaris_header(line):
                header = self._header(line.split(), n)
                if not opened:  # no title above: the header opens the report
                    run.new_sample(stamp)
                    stamp, seen = None, set()
                opened = False
                continue
            if header is None:
                raise ParseError(f"unexpected text {s[:60]!r}: expected 'extended device statistics' and the "
                                 "iostat -x header", n)
            opened = False
            toks = s.split()
            if len(toks) != len(header):
                raise ParseError(f"expected {len(header)} fields (as the header says), found {len(toks)}", n)
            rec = dict(zip(header, toks))
            dev = rec["device"]
            if dev in seen:
                raise ParseError(f"device {dev!r} twice in one report", n)
            seen.add(dev)
            run.add(dev, self._values(rec, n, how))
            if len(run.rows) >= CHUNK_ROWS:
                yield from run.drain()
        if header is None:
            raise ParseError("no iostat -x header found ('r/s w/s kr/s kw/s … device')", 1)
        info.meta["mapping"] = sorted(how)
        yield from run.finish(warn, "since-boot (iostat on illumos and Solaris prints the averages since boot "
                                    "first)", "the time since boot", SET_INTERVAL)

    @staticmethod
    def _header(toks: list[str], n: int) -> list[str]:
        unknown = [t for t in toks if t not in _SOLARIS_COLUMNS]
        if unknown:
            raise ParseError(f"column(s) {', '.join(unknown)} of the iostat -x header are not read", n)
        if len(set(toks)) != len(toks):
            raise ParseError("a column appears twice in the header", n)
        if toks[0] != "device" and toks[-1] != "device":
            raise ParseError("the device column is neither first nor last", n)
        return toks

    @staticmethod
    def _values(rec: dict[str, str], n: int, how: set[str]) -> tuple:
        def get(name: str, factor: float = 1.0) -> float | None:
            tok = rec.get(name)
            return None if tok is None else _num(tok, n, name) * factor

        def total(a: str, b: str) -> float | None:
            if a not in rec or b not in rec:
                return None
            places = max(_decimals(rec[a]), _decimals(rec[b]))
            return round(_num(rec[a], n, a) + _num(rec[b], n, b), places)

        rkb = get("kr/s") if "kr/s" in rec else get("Mr/s", KB)
        wkb = get("kw/s") if "kw/s" in rec else get("Mw/s", KB)
        aqu = total("wait", "actv")
        if "svc_t" in rec:
            await_ms = get("svc_t")
            how.add("await = svc_t")
        else:
            await_ms = total("wsvc_t", "asvc_t")
            if await_ms is not None:
                how.add("await = wsvc_t + asvc_t (time in the wait queue + active service time)")
        if aqu is not None:
            how.add("queue = wait + actv (transactions waiting + being serviced)")
        return (get("r/s"), get("w/s"), rkb, wkb, aqu, await_ms, get("%b"), solaris_layer(rec["device"]))


# ---- ZFS zpool iostat ------------------------------------------------------------------------------------------
# column groups of the first header row: (sub-columns, stored as)
_ZPOOL_GROUPS: dict[str, tuple[tuple[str, ...], tuple[str | None, ...]]] = {
    "capacity": (("alloc", "free"), ("alloc", "free")),
    "operations": (("read", "write"), ("r_s", "w_s")),
    "bandwidth": (("read", "write"), ("rkb_s", "wkb_s")),
    "total_wait": (("read", "write"), ("r_await_ms", "w_await_ms")),
    **{g: (("read", "write"), (None, None)) for g in ("disk_wait", "syncq_wait", "asyncq_wait")},
    **{g: (("wait",), (None,)) for g in ("scrub", "trim", "rebuild")},
    **{g: (("pend", "activ"), (None, None)) for g in (
        "syncq_read", "syncq_write", "asyncq_read", "asyncq_write", "scrubq_read", "trimq_write", "rebuildq_write")},
}
_ZPOOL_CLASSES = {"logs", "cache", "spares", "special", "dedup"}
_ZPOOL_SEP = re.compile(r"^-+(\s+-+)+\s*$")
_NICE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTPE]?)$")
_NICE_TIME = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|ms|s)?$")
_POW = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_TIME_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0, None: 1e-6}  # no unit: -p prints nanoseconds


def _nice(tok: str, n: int, what: str) -> float | None:
    """A zpool figure: '-' (none), 512, 14.7K, 2.89T (powers of 1024)."""
    if tok == "-":
        return None
    m = _NICE.match(tok)
    if m is None:
        raise ParseError(f"{what} {tok!r} is not a number zpool prints", n)
    return float(m.group(1)) * KB ** _POW[m.group(2)]


def _nice_ms(tok: str, n: int, what: str) -> float | None:
    if tok == "-":
        return None
    m = _NICE_TIME.match(tok)
    if m is None:
        raise ParseError(f"{what} {tok!r} is not a time zpool prints", n)
    return float(m.group(1)) * _TIME_MS[m.group(2)]


def _is_zpool_groups(line: str) -> bool:
    toks = line.split()
    return len(toks) >= 3 and toks[:3] == ["capacity", "operations", "bandwidth"]


@dataclass
class _ZRow:
    line: int
    indent: int
    name: str
    values: list[str]


ZPOOL_SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES,
    layers={"total": "the pool's row (the sum of its top-level vdevs)",
            "volume": "a vdev with devices under it (mirror-0, raidz1-0, logs)",
            "disk": "a device with none under it (the leaves of -v)"},
    wording={"r_s": "operations read", "w_s": "operations write", "rkb_s": "bandwidth read",
             "wkb_s": "bandwidth write", "r_await_ms": "total_wait read", "w_await_ms": "total_wait write"},
    meta=(*common("utc_offset"),
          MetaKey("capacity_last_report", OBJ, "alloc and free of each row in the last report, as printed"),
          MetaKey("layers", TEXT, "which rows got which layer (pool, vdev, device; without -v pool rows only)")))


class ZpoolIostatFormat:
    id = "zpool-iostat"
    kind = KIND.id
    label = "ZFS zpool iostat (text)"
    priority = 460
    tables = ("iostat_samples",)
    semantics = ZPOOL_SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines = _head_text(head).split("\n")
        for i, ln in enumerate(lines[:-1]):
            if _is_zpool_groups(ln) and lines[i + 1].split()[:1] in (["pool"], ["vdev"]):
                return 0.95
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _Zpool().parse(path, options, state, warn)


class _Zpool:
    """The state of one zpool iostat import."""

    def __init__(self) -> None:
        self.groups: list[str] | None = None
        self.columns: list[tuple[str, str]] = []
        self.capacity: dict[str, dict[str, str]] = {}  # as printed (K, M, G, T = powers of 1024 bytes)
        self.verbose = False

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        info = RunInfo(kind="iostat", os=None)
        run = _Run("zpool", info, ["r_s", "w_s", "rkb_s", "wkb_s", "r_await_ms", "w_await_ms", "layer"], options)
        report: list[_ZRow] = []
        stamp: tuple[datetime, str | None] | None = None
        group_line: int | None = None
        for n, line in TextLines(path, "a zpool iostat log", state, 5000):
            s = line.strip()
            if not s:
                continue
            if (st := _stamp(s)) is not None:
                yield from self._report(run, report)
                report, stamp = [], st
                continue
            if _is_zpool_groups(line):
                yield from self._report(run, report)
                report = []
                self.groups = s.split()
                group_line = n
                continue
            toks = s.split()
            if toks[0] in ("pool", "vdev") and group_line == n - 1:
                self._columns(toks, n)
                continue
            if _ZPOOL_SEP.match(line):
                # without -v a separator closes a report of several pools; with -v (rows indented under their
                # pool) one follows each pool and the header opens the next report
                if report and not any(r.indent for r in report):
                    yield from self._report(run, report)
                    report = []
                continue
            if not self.columns:
                raise ParseError(f"unexpected text {s[:60]!r}: expected the zpool iostat header "
                                 "('capacity operations bandwidth' over 'pool alloc free read write …')", n)
            if len(toks) != len(self.columns) + 1:
                raise ParseError(f"expected {len(self.columns) + 1} fields (a name and the header's "
                                 f"{len(self.columns)} columns), found {len(toks)}", n)
            row = _ZRow(n, len(line) - len(line.lstrip(" ")), toks[0], toks[1:])
            if row.indent == 0 and any(r.indent == 0 and r.name == row.name for r in report):
                yield from self._report(run, report)  # the same pool again: the next report (no -v, one pool)
                report = []
            if not report:
                run.new_sample(stamp)
                stamp = None
            report.append(row)
        yield from self._report(run, report)
        if not self.columns:
            raise ParseError("no zpool iostat header found ('capacity operations bandwidth' over 'pool alloc free "
                             "read write …')", 1)
        info.meta["capacity_last_report"] = self.capacity  # as printed: K, M, G, T = 1024, 1024², … bytes
        info.meta["layers"] = ("pool row: total; vdev with devices under it: volume; device with none under it: "
                               "disk" if self.verbose else "pool rows only (no -v): total")
        ignored = sorted({g for g, _c in self.columns} - {"capacity", "operations", "bandwidth", "total_wait"})
        if ignored:
            warn("column groups not stored (no column for them): " + ", ".join(ignored), None)
        yield from run.finish(warn, "since-boot (zpool iostat prints the averages since the pool was imported "
                                    "first)", "the time since the pool was imported", SET_INTERVAL_ZPOOL)

    def _columns(self, toks: list[str], n: int) -> None:
        if self.groups is None:
            raise ParseError("a column-name row without the group row above it", n)
        want: list[tuple[str, str]] = []
        for g in self.groups:
            if g not in _ZPOOL_GROUPS:
                raise ParseError(f"column group {g!r} of zpool iostat is not read", n - 1)
            want += [(g, c) for c in _ZPOOL_GROUPS[g][0]]
        if toks[1:] != [c for _g, c in want]:
            raise ParseError(f"the column names {' '.join(toks[1:])!r} do not match the groups "
                             f"{' '.join(self.groups)!r} above them", n)
        self.columns = want

    def _report(self, run: _Run, report: list[_ZRow]) -> Iterator[Event]:
        """Name each row by its path in its pool, give it its layer, and store it."""
        if not report:
            return
        for i, (row, path) in enumerate(zip(report, self._paths(report))):
            if path is None:
                continue
            nxt = report[i + 1] if i + 1 < len(report) else None
            has_children = nxt is not None and nxt.indent > row.indent and not (
                nxt.indent == 0 and nxt.name in _ZPOOL_CLASSES)
            if row.indent > 0:
                self.verbose = True
            layer = "total" if row.indent == 0 else ("volume" if has_children else "disk")
            self._store(run, row, path, layer)
        if len(run.rows) >= CHUNK_ROWS:
            yield from run.drain()

    @staticmethod
    def _paths(report: list[_ZRow]) -> list[str | None]:
        """Each row's path in its pool (None for the 'logs', 'cache' … section labels)."""
        stack: list[tuple[int, str]] = []  # (indent, path) of the rows above
        names: set[str] = set()
        paths: list[str | None] = []
        for row in report:
            label = row.name in _ZPOOL_CLASSES and all(v == "-" for v in row.values)
            if row.indent == 0 and not label:
                stack = []
            elif row.indent == 0 and label:
                if not stack:
                    raise ParseError(f"{row.name!r} section before any pool", row.line)
                stack = [(-1, stack[0][1])]
            while stack and stack[-1][0] >= row.indent:
                stack.pop()
            if row.indent > 0 and not stack:
                raise ParseError(f"indented device {row.name!r} before any pool", row.line)
            base = f"{stack[-1][1]}/{row.name}" if stack else row.name
            path, k = base, 1
            while path in names:  # older ZFS prints 'mirror' for each mirror of a pool
                k += 1
                path = f"{base}#{k}"
            names.add(path)
            stack.append((row.indent, path))
            paths.append(None if label else path)
        return paths

    def _store(self, run: _Run, row: _ZRow, path: str, layer: str) -> None:
        vals: dict[str, float | None] = {}
        for (g, c), tok in zip(self.columns, row.values):
            col = _ZPOOL_GROUPS[g][1][_ZPOOL_GROUPS[g][0].index(c)]
            if col is None:
                continue
            if g == "total_wait":
                vals[col] = _nice_ms(tok, row.line, f"{g} {c}")
            else:
                vals[col] = _nice(tok, row.line, f"{g} {c}")
        if row.indent == 0 and "alloc" in vals:
            i = [g for g, _c in self.columns].index("capacity")
            self.capacity[path] = {"alloc": row.values[i], "free": row.values[i + 1]}
        rkb = vals.get("rkb_s")
        wkb = vals.get("wkb_s")
        run.add(path, (vals.get("r_s"), vals.get("w_s"), None if rkb is None else rkb / KB,
                       None if wkb is None else wkb / KB, vals.get("r_await_ms"), vals.get("w_await_ms"), layer))


# ---- AIX: recognised, refused ----------------------------------------------------------------------------------
class IostatAixFormat:
    id = "iostat-aix"
    kind = KIND.id
    label = "AIX iostat (not supported)"
    priority = 449
    tables = ()
    semantics = REFUSED
    # not read: -D prints several header rows per section, and no public capture shows it under load
    unsupported = "AIX iostat is not read: record the AIX disks with nmon and import the .nmon file instead"

    def sniff(self, head: bytes) -> float:
        text = _head_text(head)
        if re.search(r"^System configuration: lcpu=\d+.*\bdrives=\d+", text, re.M):
            return 0.95
        if re.search(r"^Disks:\s+(% tm_act|xfers)", text, re.M):
            return 0.8
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        raise ParseError(self.unsupported, 1)


MACOS = register(IostatMacosFormat())
ILLUMOS = register(IostatIllumosFormat())
ZPOOL = register(ZpoolIostatFormat())
AIX = register(IostatAixFormat())
