"""sar: the per-device disk report (``sar -d``) or, without one, the system I/O totals (``sar -b``), from sysstat's
text output (Linux, sysstat 9 to 12.7), from ``sadf -d`` and from the ``sar -d`` of Solaris, HP-UX and AIX,
into ``iostat_samples`` (kind ``sar``), so the overlay, storm metrics, cap checks, compare and the report take a
sar run like an iostat one.

Layouts (the columns are read by their header names, never by position)
    * **sysstat text**: a banner ``Linux 5.15 (host) <date> _x86_64_ (8 CPU)``, then per activity a header line
      (a time and the column names) and rows (a time and values). From a data file (``sar -f``) each activity is
      printed whole, from its first time to its last; live (``sar -d 10 6``) each interval prints every activity
      again. ``DEV`` is the first column, or the last one with ``-p``/``--pretty``. Device names as printed:
      ``dev8-0`` (major-minor numbers, without ``-p``), ``sda``/``dm-0``/``vg-lv`` (``-p``), persistent names
      (``-j ID``/``LABEL``/…). ``Average:`` lines and their translations (``Moyenne :``, ``平均时间:``,
      ``Durchschn.:`` …) are summaries, not samples: left out. Other activities (CPU, memory, network … of
      ``sar -A``) are skipped; their names are kept in ``runs.meta.other_sections``.
    * **Clocks**: times only, dated by the banner's date (``04/18/19``, ``18/04/2019``, ``23.11.2026``,
      ``2026-11-23``, ``2026年11月23日``, ``2026년 11월 23일``), the next day when the clock goes back (midnight);
      24-hour, 12-hour (``10:50:09 PM``) and CJK clocks (``22时50分09秒``, ``22時50分09秒``, ``22시 50분 09초``).
      Decimal commas (``0,00``: German, French … locales) are read as points (``runs.meta.decimal_comma``).
    * **sadf -d**: ``;``-separated, one ``# hostname;interval;timestamp;…`` header per activity, full time stamps
      (``2019-04-18 13:20:19 UTC``: UTC, ``runs.meta.utc_offset`` +00:00; without a zone with ``-T``/``-t``:
      the host's clock; seconds since 1970 with ``-U``: UTC). ``sadf -dh`` (all devices of one time on one line,
      the header ending in ``[...]``) is read too. A file with several hosts gives one run per host.
    * **Solaris, HP-UX, AIX** ``sar -d``: a banner ``SunOS host 5.10 … 08/19/2010`` (``HP-UX``, ``AIX``), a header
      ``HH:MM:SS device %busy avque r+w/s blks/s avwait avserv`` (AIX: ``Kbs/s``); the time is printed on the
      first row of each interval only, the rows under it belong to the same time. ``Average`` blocks are left out.
    * ``LINUX RESTART`` / ``unix restarts`` lines: the host restarted (sysstat's counters began again). The run
      goes on: its time axis stays the wall clock (``t_s`` counts on across the restart, the time in between
      has no samples); a warning names each restart, ``runs.meta.restarts`` lists them.

Figures, in StormScope's units (kB = 1024 bytes)
    * Linux ``sar -d``: ``tps`` (transfers per second: reads + writes + discards) is stored as ``tps`` only --
      ``sar -d`` has no read/write request split, so ``r_s``/``w_s`` stay empty and the analyses say what they
      cannot compute; ``rkB/s``/``wkB/s``/``dkB/s`` = ``rkb_s``/``wkb_s``/``dkb_s``; sysstat before 11.5's
      ``rd_sec/s``/``wr_sec/s`` are 512-byte sectors: × 0.5 = kB/s; ``areq-sz`` (kB) = ``areq_kb``, the older
      ``avgrq-sz`` (sectors) × 0.5; ``aqu-sz``/``avgqu-sz`` = ``aqu_sz``; ``await`` = ``await_ms``; ``svctm`` =
      ``svctm_ms``; ``%util`` = ``util_pct``. With ``-h`` the sizes carry a unit (``40.5M``: k, M, G, T =
      powers of 1024 kB) and one decimal; ``%util`` a ``%`` (``runs.meta.human_units``).
    * Linux ``sar -b`` (read only when the file has no ``sar -d`` report): sar's totals over the disks as one
      device ``all I/O`` with ``layer = 'total'``: ``rtps``/``wtps``/``dtps`` = ``r_s``/``w_s``/``d_s`` (so the
      read/write split is there; ``tps`` is their sum and is not stored twice); ``bread/s``/``bwrtn/s``/
      ``bdscd/s`` are 512-byte blocks: × 0.5 = ``rkb_s``/``wkb_s``/``dkb_s``. When the file has both reports the
      per-device one is read and the totals are left out (``runs.meta.other_sections`` says so).
    * Solaris / HP-UX / AIX ``sar -d``: ``r+w/s`` (reads + writes per second) = ``tps``; ``blks/s`` (512-byte
      blocks per second, reads + writes) × 0.5 = ``kb_s`` (total kB/s: no read/write split); AIX ``Kbs/s`` (kB
      per second) = ``kb_s``; ``%busy`` = ``util_pct``; ``avque`` (requests outstanding: waiting or in service)
      = ``aqu_sz``; ``avserv`` (ms per request in service) = ``svctm_ms``; ``avwait + avserv`` (ms waiting in the
      queue + in service: the response time) = ``await_ms``, rounded to the printed decimals.

Which devices are disks (``layer``)
    * Linux names (``sda``, ``dm-0``, ``-part1`` …): ``layer`` stays NULL; the analyses' whole-disk rules read
      the names. Linux ``devM-N`` names (no ``-p``) are classed by their major number, which the kernel fixes
      for SCSI/SATA/SAS (8, 65–71, 128–135), IDE, Xen, cciss and MMC disks -- a minor number within a disk's
      range is a partition (``volume``) -- and for loop (7), md (9) and DRBD (147) devices (``volume``). Other
      major numbers are assigned at boot (device-mapper, virtio, NVMe …): the file cannot say which they are.
      When the run has whole disks of fixed numbers those are taken to be device-mapper volumes stacked on them
      (``volume``); otherwise they are counted as disks. A warning names them either way.
    * Solaris: whole disks (``sd4``, ``ssd1``, ``cmdk0`` …) ``disk``; slices (``sd4,a``), metadevices (``md10``),
      NFS mounts (``nfs1``) and per-path statistics (``sd4.t2.mpt_sas2``, cut to 8 characters by sar) ``volume``;
      controllers and USB pipes (``mpt_sas1``, ``iscsi0``, ``scsi_vhci``, ``ohci0,bu``) ``adapter``. HP-UX: disks.
      AIX: ``hdisk``/``cd`` disks; multipath pseudo devices (``hdiskpower``, ``vpath``, ``dlmfdrv``) and names
      with a ``/`` (ASM/ADVM volumes) ``volume``.

Every report covers the interval before its time stamp (``runs.interval_s``: the median gap between the
samples of a segment); sar never prints averages since boot, so no sample is left out for that.

How it is read (issue 31): in chunks of whole lines (:mod:`parsers.bulk`). Banners, headers, summaries, restarts
and comments are walked line by line; the device rows of a Linux disk report -- nearly all of a file's bytes -- are
cut into fields and converted a column at a time, each time stamp read once per sample. Rows that are not plain
(decimal commas, ``-h`` units, ``N/A``, CJK clocks or localized morning/afternoon words, ``sar -b``'s totals,
Solaris/HP-UX/AIX, ``sadf -dh``, a bad value) are read line by line, which names a bad line; both ways store the
same rows (``tests/parsers/test_sar_bulk.py``).

Binary ``saDD`` files (sadc's daily data files) are recognised by their magic number and refused with the
``sadf``/``sar`` command that turns them into text. A sar file with no disk report is refused with the reports it
has. Bad input stops the import with a ParseError naming the line; nothing of the file is stored.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

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
    SampleTimes,
    WarnFn,
)
from parsers.bulk import (
    Chunks,
    blank_blocks,
    blank_separated,
    ends_in_block,
    plain_numbers,
    plain_rows,
    read_fields,
)
from parsers.dates import ORDER_NAMES, Dated, Words, ampm_pattern, decide, is_pm, month_number, read
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.layers import LINUX_NAMES
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import LIST, REFUSED, Counts, MetaKey, MetaType, Semantics, Span, common
from parsers.textutil import DATE_ORDER_FIX, split_stamp

KIND = register_kind("sar", "sar", {TIME_SERIES, DEVICE_RATES})

CHUNK_ROWS = 50_000
BULK = True  # read plain runs of rows in bulk (parsers.bulk); False: line by line (the differential test compares)
ALL_IO = "all I/O"  # the device of sar -b's system totals
BINARY_HINT = ("a binary sar data file (saDD, written by sadc): StormScope reads sar's text. Convert it on a Linux "
               "host with sysstat: sadf -d saDD -- -d -p > sar.csv (or LC_ALL=C sar -d -p -f saDD > sar.txt)")
NO_DISK = ("StormScope reads sar's disk report (sar -d, per device) or its I/O totals (sar -b): record with "
           "sar -d -p, or convert the data file with: sadf -d saDD -- -d -p > sar.csv")

# the columns a disk row fills, after sample_idx, ts, t_s, device, since_boot
VALUE_COLUMNS = ["tps", "r_s", "w_s", "d_s", "rkb_s", "wkb_s", "dkb_s", "kb_s", "areq_kb", "aqu_sz", "await_ms",
                 "svctm_ms", "util_pct", "layer"]
_VI = {c: i for i, c in enumerate(VALUE_COLUMNS)}

# Linux sar -d: header name -> (column, factor, unit of a -h suffix: "kB" sizes, "%" percentages, None: none)
LINUX_DISK: dict[str, tuple[str, float, str | None]] = {
    "tps": ("tps", 1.0, None),
    "rkB/s": ("rkb_s", 1.0, "kB"), "wkB/s": ("wkb_s", 1.0, "kB"), "dkB/s": ("dkb_s", 1.0, "kB"),
    "rd_sec/s": ("rkb_s", 0.5, None), "wr_sec/s": ("wkb_s", 0.5, None),
    "areq-sz": ("areq_kb", 1.0, "kB"), "avgrq-sz": ("areq_kb", 0.5, None),
    "aqu-sz": ("aqu_sz", 1.0, None), "avgqu-sz": ("aqu_sz", 1.0, None),
    "await": ("await_ms", 1.0, None), "svctm": ("svctm_ms", 1.0, None), "%util": ("util_pct", 1.0, "%"),
}
# Linux sar -b
LINUX_IO: dict[str, tuple[str | None, float, str | None]] = {
    "tps": (None, 1.0, None),  # rtps + wtps (+ dtps): not stored twice
    "rtps": ("r_s", 1.0, None), "wtps": ("w_s", 1.0, None), "dtps": ("d_s", 1.0, None),
    "bread/s": ("rkb_s", 0.5, None), "bwrtn/s": ("wkb_s", 0.5, None), "bdscd/s": ("dkb_s", 0.5, None),
}
# Solaris, HP-UX, AIX sar -d (avwait is summed with avserv into await_ms)
UNIX_DISK: dict[str, tuple[str | None, float]] = {
    "%busy": ("util_pct", 1.0), "avque": ("aqu_sz", 1.0), "r+w/s": ("tps", 1.0), "blks/s": ("kb_s", 0.5),
    "Kbs/s": ("kb_s", 1.0), "avserv": ("svctm_ms", 1.0), "avwait": (None, 1.0),
}
MAPPING_WORDS = {
    "rd_sec/s": "rd_sec/s × 0.5 = rkB/s (512-byte sectors)", "wr_sec/s": "wr_sec/s × 0.5 = wkB/s (512-byte sectors)",
    "avgrq-sz": "avgrq-sz × 0.5 = request size in kB (512-byte sectors)",
    "bread/s": "bread/s × 0.5 = rkB/s (512-byte blocks)", "bwrtn/s": "bwrtn/s × 0.5 = wkB/s (512-byte blocks)",
    "bdscd/s": "bdscd/s × 0.5 = dkB/s (512-byte blocks)",
    "blks/s": "blks/s × 0.5 = kB/s, reads + writes (512-byte blocks)", "Kbs/s": "Kbs/s = kB/s, reads + writes",
    "r+w/s": "r+w/s = transfers per second (reads + writes; no split)",
    "avwait": "await = avwait + avserv (time waiting in the queue + in service)", "avserv": "svctm = avserv",
    "avque": "queue = avque", "%busy": "%util = %busy",
    "tps": "tps = transfers per second (reads + writes + discards; sar -d has no read/write split)",
}
# what the first column names of the other sar reports are, in words (a file without a disk report names them)
OTHER_REPORTS: list[tuple[str, str]] = [
    ("%user", "CPU utilisation (sar -u)"), ("%usr", "CPU utilisation (sar -u)"), ("proc/s", "tasks (sar -w)"),
    ("cswch/s", "context switches (sar -w)"), ("pswpin/s", "swapping (sar -W)"), ("pgpgin/s", "paging (sar -B)"),
    ("kbmemfree", "memory (sar -r)"), ("kbswpfree", "swap space (sar -S)"), ("kbhugfree", "huge pages (sar -H)"),
    ("dentunusd", "inodes and files (sar -v)"), ("runq-sz", "run queue and load (sar -q)"),
    ("rxpck/s", "network interfaces (sar -n DEV)"), ("rxerr/s", "network errors (sar -n EDEV)"),
    ("INTR", "interrupts (sar -I)"), ("TTY", "serial lines (sar -y)"), ("FILESYSTEM", "file systems (sar -F)"),
    ("MHz", "CPU frequency (sar -m CPU)"), ("freemem", "memory (sar -r)"), ("scall/s", "system calls (sar -c)"),
    ("bread/s", "buffer activity (sar -b)"), ("runq-sz", "run queue (sar -q)"), ("%scpu-10", "pressure (sar -q)"),
]
SOLARIS_DISK = re.compile(r"^(c\d+(t[0-9A-Fa-f]+)?d\d+|(sd|ssd|cmdk|dad|vdc|xdf|blkdev|nvme|ata)\d+)$")
SOLARIS_ADAPTER = re.compile(
    r"^(mpt_sas|mpt|mr_sas|iscsi|scsi_vhc|fp|fcp|qlc|emlxs|ahci|nv_sata|si3124|pmcs|glm|isp|fas|pci-ide|uata|"
    r"ohci|ehci|uhci|xhci|usb)\w*(,\w+)?$")
AIX_PSEUDO = re.compile(r"^(hdiskpower|vpath|dlmfdrv|powerpath)\d+$")

# ---- time stamps ---------------------------------------------------------------------------------------------------
_AMPM = ampm_pattern()  # every glibc locale's morning and afternoon words (parsers.dates): πμ/μμ, ÖÖ/ÖS, 午前/午後 …
TIME_RE = re.compile(
    rf"^\s*(?:(?P<p1>{_AMPM})\s*)?(?P<h>\d{{1,2}})(?::|\s*[时時시]\s*)(?P<m>\d{{2}})(?::|\s*[分분]\s*)"
    rf"(?P<s>\d{{2}})(?:\s*[秒초])?(?:\s*(?P<p2>{_AMPM}))?(?=\s|$)")
LINUX_BANNER = re.compile(
    r"^(?P<os>Linux|GNU/Linux)\s+(?P<release>\S+)\s+\((?P<host>[^)]*)\)\s+(?P<date>.+?)"
    r"(?:\s+_(?P<arch>\S+?)_\s*(?:\((?P<cpus>\d+)\s+CPU\))?)?\s*$")
UNIX_BANNER = re.compile(
    r"^(?P<os>SunOS|HP-UX|AIX)\s+(?P<host>\S+)\s+(?P<rest>.*?)\s*(?P<date>\d{1,2}/\d{1,2}/\d{2,4})\s*$")
SUMMARY = re.compile(r"^\s*[^\s\d:][^\d:]{0,30}:(\s|$)")  # Average:, Moyenne :, 平均时间:, Summary: ...
SADF_HEADER = re.compile(r"^#\s*hostname;interval;timestamp;")
SADF_STAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\s*(\S+))?$")
DEV_NUMBERS = re.compile(r"^dev(\d+)-(\d+)$")
_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?(?P<unit>[sBkMGTP%])?$")
_HUMAN = {"B": 1.0 / 1024, "k": 1.0, "M": 1024.0, "G": 1024.0 ** 2, "T": 1024.0 ** 3, "P": 1024.0 ** 4,
          "s": 0.5}  # sysstat -h: sizes in kB with a unit (s = 512-byte sectors)


def _is_number(tok: str) -> bool:
    return _NUMBER.match(tok) is not None or tok in ("N/A", "-")


def _head_text(head: bytes) -> str:
    if b"\x00" in head:
        return ""
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:  # a multi-byte character cut at the end of the head, or another encoding
        text = head[: e.start].decode("utf-8") if e.start > len(head) - 4 else head.decode("cp1252", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class _Time:
    hms: tuple[int, int, int]
    text: str


def _leading_time(line: str) -> tuple[_Time, str] | None:
    """The time a sar line starts with (24-hour, 12-hour or CJK clock) and the rest of the line."""
    m = TIME_RE.match(line)
    if m is None:
        return None
    h, mi, s = int(m.group("h")), int(m.group("m")), int(m.group("s"))
    ampm = m.group("p1") or m.group("p2")
    if ampm is not None:
        if not 1 <= h <= 12:
            return None
        h = (h % 12) + (12 if is_pm(ampm) else 0)
    if h > 23 or mi > 59 or s > 60:
        return None
    return _Time((h, mi, min(s, 59)), m.group(0).strip()), line[m.end():]


def _readable(dated: Dated, order: str) -> bool:
    try:
        read(dated.parts, dated.year_first, order)
    except ValueError:
        return False
    return True


_NAMED_DATE = re.compile(r"(\d{1,2})\.?\s+([^\s\d.]+)\.?\s+(\d{4})")


def _banner_dated(text: str) -> Dated:
    """The banner's date as printed (``04/18/19``, ``18/04/2019``, ``23.11.2026``, ``2026-11-23``,
    ``2026年11月23日``, ``2026년 11월 23일``, ``05. mars 2026``); its order is decided with the file's other words
    (:func:`parsers.dates.decide`). ValueError when it is no date."""
    stamp = split_stamp(text)
    if stamp is not None and stamp.date_parts and stamp.hms is None:
        a, b, c = stamp.date_parts
        return Dated((a, b, c), stamp.date_sep.startswith("Y"), None, text.strip())
    m = _NAMED_DATE.fullmatch(text.strip())
    month = month_number(m.group(2)) if m else None
    if m is None or month is None:
        raise ValueError(text)
    return Dated((int(m.group(3)), month, int(m.group(1))), True, None, text.strip())  # the month is named


class _Clock:
    """Times of one report, dated from the banner; the next day when the clock goes back by more than 12 hours."""

    def __init__(self, base: date):
        self.base = base
        self.shift = 0
        self.prev: datetime | None = None
        self.prev_hms: tuple[int, int, int] | None = None

    def rebase(self, base: date) -> None:
        self.base, self.shift, self.prev, self.prev_hms = base, 0, None, None

    def at(self, t: _Time, commit: bool = True) -> datetime:
        if self.prev is not None and t.hms == self.prev_hms:  # the rows of one sample share its time
            return self.prev
        if commit:
            self.prev_hms = t.hms
        dt = datetime(self.base.year, self.base.month, self.base.day, *t.hms) + timedelta(days=self.shift)
        shift = self.shift
        if self.prev is not None and dt < self.prev - timedelta(hours=12):
            shift += 1
            dt += timedelta(days=1)
        if commit:
            self.shift, self.prev = shift, dt
        return dt


# ---- lines ---------------------------------------------------------------------------------------------------------


# ---- values ----------------------------------------------------------------------------------------------------------
class _Values:
    """Reads sar's numbers: decimal commas, -h units; remembers what it met (for runs.meta)."""

    def __init__(self) -> None:
        self.decimal_comma = False
        self.human = False

    def num(self, tok: str, n: int, what: str, unit: str | None = None) -> float | None:
        try:  # the common case: a plain number
            v = float(tok)
        except ValueError:
            pass
        else:
            if math.isfinite(v) and v >= 0 and "_" not in tok:
                return v
        m = _NUMBER.match(tok)
        if m is None:
            if tok in ("N/A", "-"):
                return None
            raise ParseError(f"{what} {tok!r} is not a number", n)
        suffix = m.group("unit")
        body = tok[:-1] if suffix else tok
        if "," in body:
            body = body.replace(",", ".")
            self.decimal_comma = True
        v = float(body)
        if suffix:
            if unit == "%" and suffix == "%":
                pass
            elif unit == "kB" and suffix in _HUMAN:
                v *= _HUMAN[suffix]
            else:
                raise ParseError(f"{what} {tok!r}: sar prints no unit {suffix!r} for this column", n)
            self.human = True
        if not math.isfinite(v) or v < 0:
            raise ParseError(f"{what} {tok!r} is not a value sar prints", n)
        return v


def _decimals(tok: str) -> int:
    tok = tok.replace(",", ".")
    return len(tok) - tok.index(".") - 1 if "." in tok else 0


# ---- device layers ---------------------------------------------------------------------------------------------------
_FIXED_DISKS: dict[int, int] = {  # major -> minors per disk (a minor within a disk's range is a partition)
    **{m: 16 for m in (8, *range(65, 72), *range(128, 136), 202, *range(104, 112))},
    **{m: 64 for m in (3, 22, 33, 34, 56, 57, 88, 89, 90, 91)},
    179: 8, 2: 1, 11: 1, 43: 1,
}
_FIXED_VOLUMES = {1: "RAM disk", 7: "loop device", 9: "md (software RAID) device", 147: "DRBD device"}


def boot_assigned(device: str) -> bool:
    """A Linux ``devM-N`` device whose major number the kernel assigns at boot: nothing says what it is."""
    m = DEV_NUMBERS.match(device)
    return m is not None and int(m.group(1)) not in _FIXED_DISKS and int(m.group(1)) not in _FIXED_VOLUMES


def linux_number_layer(major: int, minor: int, fixed_disks: bool) -> str:
    """The layer of a Linux ``devM-N`` device (see the module doc)."""
    if major in _FIXED_DISKS:
        return "disk" if minor % _FIXED_DISKS[major] == 0 else "volume"
    if major in _FIXED_VOLUMES:
        return "volume"
    return "volume" if fixed_disks else "disk"


def unix_layer(system: str, device: str) -> str:
    if system == "SunOS":
        if SOLARIS_DISK.match(device):
            return "disk"
        if SOLARIS_ADAPTER.match(device):
            return "adapter"
        if "," in device or re.match(r"^(md\d+|nfs\d+|ramdisk|lofi)", device) or re.match(r"^\w+\d+\.t\d+", device):
            return "volume"
        return "disk"
    if system == "AIX":
        return "volume" if AIX_PSEUDO.match(device) or "/" in device else "disk"
    return "disk"


# ---- one run ---------------------------------------------------------------------------------------------------------
@dataclass
class _Series:
    """The samples of one report (the disk report, or sar -b's totals) of one run."""

    rows: list[tuple] = field(default_factory=list)
    sample: int = -1
    cur: datetime | None = None
    seen: set[str] = field(default_factory=set)
    t0: datetime | None = None
    times: list[datetime] = field(default_factory=list)
    header_gaps: list[float] = field(default_factory=list)  # first row's time - its header's time (text)
    stated: list[float] = field(default_factory=list)  # sadf's interval column
    devices: set[str] = field(default_factory=set)
    n_rows: int = 0
    mapping: set[str] = field(default_factory=set)  # how its columns are read, in words
    ignored: set[str] = field(default_factory=set)  # its columns not stored
    banner: int = 0  # the banner whose date dates the samples being read
    bases: list[int] = field(default_factory=list)  # per sample: the banner that dated it
    frames: list[pl.DataFrame] = field(default_factory=list)  # rows read in bulk (after those of rows before them)
    framed: int = 0  # the rows in frames

    @property
    def pending(self) -> int:
        return len(self.rows) + self.framed

    def add_frame(self, frame: pl.DataFrame) -> None:
        """Rows read in bulk (:func:`_bulk_rows`), after the rows read so far."""
        if self.rows:
            self.frames.append(_row_frame(self.rows))
            self.framed += len(self.rows)
            self.rows = []
        self.frames.append(frame)
        self.framed += frame.height

    def add(self, ts: datetime, device: str, values: list[Any], n: int) -> None:
        if self.cur is None or ts != self.cur:
            if self.cur is not None and ts < self.cur:
                raise ParseError(f"the time goes back from {self.cur:%Y-%m-%d %H:%M:%S} to {ts:%Y-%m-%d %H:%M:%S}: "
                                 "two captures joined into one file? Import them as separate files", n)
            self.sample += 1
            self.cur = ts
            self.seen = set()
            self.times.append(ts)
            self.bases.append(self.banner)
            if self.t0 is None:
                self.t0 = ts
        if device in self.seen:
            raise ParseError(f"device {device!r} twice at {ts:%H:%M:%S}", n)
        self.seen.add(device)
        self.devices.add(device)
        assert self.t0 is not None
        self.rows.append((self.sample, ts, (ts - self.t0).total_seconds(), device, False, *values))


_KEYS = ("sample_idx", "ts", "t_s", "device", "since_boot")
_NAMES = [*_KEYS, *VALUE_COLUMNS]
_SCHEMA = pl.Schema(frame_schema("iostat_samples", _NAMES))
_SCHEMA_KEYS = pl.Schema(frame_schema("iostat_samples", _KEYS))


def _row_frame(rows: list[tuple]) -> pl.DataFrame:
    """Rows read line by line (sample_idx, ts, t_s, device, since_boot, *VALUE_COLUMNS) as a frame."""
    return pl.DataFrame(rows, schema=_SCHEMA, orient="row")


@dataclass
class _Run:
    key: str
    info: RunInfo
    disk: _Series = field(default_factory=_Series)
    io: _Series = field(default_factory=_Series)
    restarts: dict[datetime, str] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)
    started: bool = False
    disk_columns: list[str] | None = None
    io_columns: list[str] | None = None
    other: dict[str, None] = field(default_factory=dict)  # other reports met, in words, in order
    offsets: set[str | None] = field(default_factory=set)
    path: str = ""
    fixed_disks: bool | None = None  # the file names a whole disk of a fixed major number (devM-N names)
    dynamic: set[str] = field(default_factory=set)  # devM-N devices whose major number is assigned at boot
    banners: list[Dated] = field(default_factory=list)  # the dates of its banners, as printed
    read_as: list[str] = field(default_factory=list)  # per banner: the order its samples were dated in
    words: Words = field(default_factory=Words)  # what the file prints that says its locale (parsers.dates)

    def banner(self, dated: Dated, given: str | None) -> date:
        """A banner of this run: its date, read in the order the banners so far and the file's words allow (the
        whole file decides at the end, and the times are sent again if it decides otherwise)."""
        self.banners.append(dated)
        self.words.add_date(dated.text)
        order = decide(self.banners, self.words, given=given, system=self.info.os).order
        self.read_as.append(order)
        self.disk.banner = self.io.banner = len(self.banners) - 1
        return read(dated.parts, dated.year_first, order)

    def dating(self, s: _Series, options: ImportOptions, values: _Values, warn: WarnFn) -> Iterator[Event]:
        """The day/month order the whole file decides (its banners, its words: times, decimal commas, summary label;
        the user's answer where it reads both ways), said in ``runs.meta``; every sample's time sent again when it
        differs from the order the samples were dated in while streaming."""
        if not self.banners:  # sadf -d: full ISO time stamps
            return
        self.words.decimal_comma = values.decimal_comma
        decision = decide(self.banners, self.words, given=options.date_order, system=self.info.os)
        meta = self.info.meta
        meta["date_order"] = decision.note
        self.info.file_date = read(self.banners[0].parts, self.banners[0].year_first, decision.order)

        def delta(order: str, b: int) -> timedelta:
            banner = self.banners[b]
            return read(banner.parts, banner.year_first, order) - read(banner.parts, banner.year_first,
                                                                        self.read_as[b])

        if any(o != decision.order for o in self.read_as) and s.times:
            s.times = [t + delta(decision.order, b) for t, b in zip(s.times, s.bases)]
            shift = delta(decision.order, 0)
            self.restarts = {at + shift: why for at, why in self.restarts.items()}
            t0 = s.times[0]
            yield SampleTimes(self.key, "iostat_samples", pl.DataFrame({
                "sample_idx": list(range(len(s.times))), "ts": s.times,
                "t_s": [(t - t0).total_seconds() for t in s.times], "since_boot": [False] * len(s.times),
            }, schema=frame_schema("iostat_samples", ["sample_idx", "ts", "t_s", "since_boot"])))
            self.read_as = [decision.order] * len(self.read_as)
        if decision.decided:
            return
        others = {}
        for order in decision.readings[1:]:
            mapping: dict[str, str] = {}
            for t, b in zip(s.times, s.bases):
                mapping.setdefault(t.date().isoformat(), (t + delta(order, b)).date().isoformat())
            others[order] = mapping
        meta["date_reading"] = {"stored": decision.order, "others": others}
        ways = " or ".join(ORDER_NAMES[o] for o in decision.readings)
        warn(f"the dates read both ways ({self.banners[0].text!r}: {ways}) and nothing in the file decides which: "
             f"they are stored read {ORDER_NAMES[decision.order]} until you say which with {DATE_ORDER_FIX}", None)

    def number_layer(self, device: str) -> str | None:
        """The layer of a ``devM-N`` device (None for a name: the analyses' name rules apply)."""
        m = DEV_NUMBERS.match(device)
        if m is None:
            return None
        if self.fixed_disks is None:
            self.fixed_disks = _fixed_disks_in(self.path)
        major, minor = int(m.group(1)), int(m.group(2))
        if major not in _FIXED_DISKS and major not in _FIXED_VOLUMES:
            self.dynamic.add(device)
        return linux_number_layer(major, minor, self.fixed_disks)

    def note_columns(self, s: _Series, header: list[str], known: dict[str, Any], skip: tuple[str, ...] = ()) -> None:
        """Remember how the header's columns are read (runs.meta.mapping) and which are not stored."""
        for c in header:
            if c in skip:
                continue
            if c not in known:
                s.ignored.add(c)
            elif known is LINUX_IO and c == "tps":
                s.mapping.add("tps = rtps + wtps (+ dtps): not stored, the split is")
            elif c in MAPPING_WORDS:
                s.mapping.add(MAPPING_WORDS[c])

    def send(self, final: bool = False) -> Iterator[Event]:
        if not self.started:
            self.started = True
            yield RunStart(self.key, self.info)
        if self.disk.pending and (final or self.disk.pending >= CHUNK_ROWS):
            yield self._rows(self.disk)

    def _rows(self, s: _Series) -> Rows:
        frames = [*s.frames, _row_frame(s.rows)] if s.rows else s.frames
        s.rows, s.frames, s.framed = [], [], 0
        frame = pl.concat(frames) if len(frames) > 1 else frames[0]
        s.n_rows += frame.height
        keep = [n for n in frame.columns if n in _KEYS or frame.get_column(n).null_count() < frame.height]
        return Rows(self.key, "iostat_samples", frame.select(keep))

    def finish(self, warn: WarnFn, options: ImportOptions, values: _Values, encoding: str, several: bool = False
               ) -> Iterator[Event]:
        """The rows left, then the run's interval, meta and counts once the whole file is read. ``several``: the
        file holds several hosts, so each warning names its host."""
        if several:
            plain = warn

            def warn(message: str, line: int | None) -> None:
                plain(f"host {self.info.host}: {message}", line)
        use_io = self.disk.sample < 0 and self.io.sample >= 0
        if self.disk.sample < 0 and not use_io:
            have = list(self.other) or ["no report at all"]
            raise ParseError(f"this sar file has no disk figures: it holds {_join(have)}. {NO_DISK}", None)
        s = self.io if use_io else self.disk
        yield from self.send()
        if s.pending:
            yield self._rows(s)
        yield from self.dating(s, options, values, warn)
        self._interval(s, warn, options)
        self._meta(s, use_io, warn, values, encoding)
        if options.first_report == "since-boot":
            warn("sar's reports never cover the time since boot: every report is kept in the analyses", None)
        yield RunEnd(self.key, {"n_samples": s.sample + 1, "n_devices": len(s.devices), "ended_at": s.times[-1]},
                     info=self.info)

    def _interval(self, s: _Series, warn: WarnFn, options: ImportOptions) -> None:
        info = self.info
        gaps = _gaps(s.times, sorted(self.restarts)) + s.header_gaps
        if gaps:
            info.interval_s, info.interval_source = float(statistics.median(gaps)), "timestamps"
        elif s.stated:
            info.interval_s, info.interval_source = float(statistics.median(s.stated)), "timestamps"
        elif options.interval_s:
            info.interval_s, info.interval_source = float(options.interval_s), "user"
        else:
            info.interval_source = "unknown"
            warn("one sample and no interval in the file: set it with {fix:set_interval}", None)
        if s.stated and gaps and info.interval_s is not None:
            said = sorted(set(s.stated))
            if any(abs(x - info.interval_s) > 1.0 for x in said):
                warn(f"the interval column says {', '.join(f'{x:g}' for x in said)} s while the time stamps are "
                     f"{info.interval_s:g} s apart: the time stamps are used", None)
                info.meta["interval_stated_s"] = said
        info.started_at = s.times[0]

    def _meta(self, s: _Series, use_io: bool, warn: WarnFn, values: _Values, encoding: str) -> None:
        meta = self.info.meta
        meta["first_report"] = ("interval (each sar report covers the interval before its time; sar prints no "
                                "averages since boot)")
        meta["report"] = "sar -b (I/O totals)" if use_io else "sar -d (per device)"
        meta["columns"] = self.io_columns if use_io else self.disk_columns
        if not use_io and self.io.sample >= 0:
            self.other["I/O totals (sar -b): left out, the per-device report is read"] = None
        if s.mapping:
            meta["mapping"] = sorted(s.mapping)
        if s.ignored:
            meta["columns_not_stored"] = sorted(s.ignored)
            warn("columns not stored (StormScope has no place for them): " + ", ".join(sorted(s.ignored)), None)
        if self.other:
            meta["other_sections"] = list(self.other)
        self._restarts(s, warn)
        if self.comments:
            meta["comments"] = self.comments[:20]
        if len(self.offsets) == 1 and None not in self.offsets:
            meta["utc_offset"] = next(iter(self.offsets))
        if values.decimal_comma:
            meta["decimal_comma"] = True
        if values.human:
            meta["human_units"] = True
            warn("sizes are printed with a unit and one decimal (sar -h): 40.5M is read as 40.5 × 1024 kB/s, "
                 "exact to the printed digit", None)
        if encoding != "utf-8":
            meta["encoding"] = encoding
        if self.dynamic:
            names = sorted(self.dynamic, key=_natural)
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            meta["device_names"] = "major-minor numbers (sar without -p)"
            warn(f"devices are named by number (sar ran without -p); {shown} have major numbers the kernel assigns "
                 "at boot (device-mapper, virtio, NVMe …), so the file cannot say whether they are disks: "
                 + ("they are taken for volumes stacked on the run's disks" if self.fixed_disks else
                    "they are counted as disks, unless their figures prove them stacked on others")
                 + " -- pick the devices to sum in the device list if that is wrong, or record with sar -d -p, "
                 "which prints their names", None)

    def _restarts(self, s: _Series, warn: WarnFn) -> None:
        restarts = sorted(self.restarts)
        if not restarts:
            return
        inside = [r for r in restarts if s.times[0] < r < s.times[-1]]
        self.info.meta["restarts"] = [f"{r:%Y-%m-%d %H:%M:%S} {self.restarts[r]}".rstrip() for r in restarts]
        self.info.meta["segments"] = len(inside) + 1
        for r in inside[:3]:
            warn(f"the host restarted at {r:%Y-%m-%d %H:%M:%S} ({self.restarts[r]}): the samples after it go on in "
                 "this run on the same clock; the time in between has no samples", None)
        if len(inside) > 3:
            more = len(inside) - 3
            warn(f"the host restarted {more} more time{'s' if more > 1 else ''}", None)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _natural(name: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _gaps(times: list[datetime], restarts: list[datetime]) -> list[float]:
    """Seconds between consecutive samples that no restart separates."""
    out = []
    j = 0
    for a, b in zip(times, times[1:]):
        while j < len(restarts) and restarts[j] < a:
            j += 1
        if j < len(restarts) and restarts[j] < b:
            continue
        out.append((b - a).total_seconds())
    return [g for g in out if g > 0]


def _other_name(cols: list[str]) -> str:
    for key, words in OTHER_REPORTS:
        if key in cols:
            return words
    return f"a report with the columns {' '.join(cols[:4])}{' …' if len(cols) > 4 else ''}"


def _fixed_disks_in(path: str) -> bool:
    """Whether the file names any whole disk of a fixed major number as devM-N (a quick scan of the whole file)."""
    pat = re.compile(rb"\bdev(\d+)-(\d+)\b")
    with open(path, "rb") as fh:
        tail = b""
        while block := fh.read(1 << 20):
            data = tail + block
            for m in pat.finditer(data):
                major, minor = int(m.group(1)), int(m.group(2))
                if major in _FIXED_DISKS and minor % _FIXED_DISKS[major] == 0:
                    return True
            tail = data[-32:]
    return False


# ---- sysstat / Solaris / HP-UX / AIX text ----------------------------------------------------------------------------
def _sar_wording() -> dict[str, str]:
    """Stored column -> sar's header names for it (Linux sar -d and -b, Solaris / HP-UX / AIX sar -d)."""
    out: dict[str, list[str]] = {}
    for table in (LINUX_DISK, LINUX_IO, UNIX_DISK):
        for name, spec in table.items():
            if spec[0] is not None:
                out.setdefault(spec[0], []).append(name)
    out.setdefault("await_ms", []).append("avwait + avserv")
    return {c: ", ".join(dict.fromkeys(names)) for c, names in out.items()}


# what sar's data means (parsers.semantics): the text report and sadf -d share it
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES, names=LINUX_NAMES,
    layers={"disk": "a Linux devM-N of a fixed disk major number (whole disk); Solaris whole disks (sd4, ssd1, "
                    "cmdk0); HP-UX disks; AIX hdisk and cd devices",
            "volume": "a Linux devM-N partition, loop, md or DRBD device (or one of a boot-assigned major number "
                      "beside fixed disks); Solaris slices, metadevices, NFS mounts and per-path statistics; AIX "
                      "multipath pseudo devices and ASM/ADVM volumes",
            "adapter": "Solaris controllers and USB pipes (mpt_sas1, iscsi0, scsi_vhci)",
            "total": "sar -b's totals over the disks (device `all I/O`)"},
    wording=_sar_wording(),
    meta=(*common("arch", "cpus", "banner_date", "segments", "decimal_comma", "human_units", "utc_offset",
                  "date_order", "layout"),
          MetaKey("report", MetaType.TEXT, "which report was read: sar -d (per device) or sar -b (I/O totals)"),
          MetaKey("columns", LIST, "the report's columns as printed"),
          MetaKey("mapping", LIST, "how the columns were converted (e.g. rd_sec/s × 0.5 = rkB/s)"),
          MetaKey("columns_not_stored", LIST, "columns StormScope has no place for"),
          MetaKey("other_sections", LIST, "the file's other reports, not read"),
          MetaKey("comments", LIST, "sar's comment lines (the first 20)"),
          MetaKey("restarts", LIST, "host restarts (LINUX RESTART lines) with their times"),
          MetaKey("interval_stated_s", LIST, "the interval column's values where they disagree with the stamps"),
          MetaKey("device_names", MetaType.TEXT, "how devices are named when not by name (major-minor numbers)"),
          *common("date_reading")))


class SarTextFormat:
    id = "sar-text"
    kind = KIND.id
    label = "sar (text)"
    priority = 440
    tables = ("iostat_samples",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines = [ln for ln in _head_text(head).split("\n") if ln.strip()]
        if not lines:
            return 0.0
        first = lines[0].strip()
        if not (LINUX_BANNER.match(first) or UNIX_BANNER.match(first)):
            return 0.0
        for ln in lines[1:60]:
            lt = _leading_time(ln)
            if lt is None:
                continue
            rest = lt[1].split()
            if rest and ("RESTART" in rest or rest[:2] == ["unix", "restarts"]
                         or not any(_is_number(t) for t in rest)):
                return 0.95
        return 0.4 if UNIX_BANNER.match(first) else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _TextParser(path, options, state, warn, BULK).events()


_UNTIMED = re.compile(rb"^[^0-9\n]", re.M)  # a line that does not start with a time


class _TextParser:
    """sar's text: banners, headers, summaries and special lines walked line by line; the rows of a Linux disk
    report's block after its header read in bulk (:mod:`parsers.bulk`) where they are plain, else line by line
    (``bulk`` False: always)."""

    def __init__(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn, bulk: bool = True):
        self.path, self.options, self.warn = path, options, warn
        self.lines = Chunks(path, "a sar report", state)
        self.bulk = bulk
        self.values = _Values()
        self.runs: dict[str, _Run] = {}
        self.run: _Run | None = None
        self.system = ""  # Linux, SunOS, HP-UX, AIX
        self.base: date | None = None
        self.clocks: dict[str, _Clock] = {}  # per report: disk, io
        self.section: str | None = None  # disk | io | other | None
        self.header: list[str] = []
        self.header_time: datetime | None = None
        self.first_row = False
        self.dev_at = 0
        self.block_time: datetime | None = None  # Solaris/HP-UX/AIX: the time of the current block
        self.in_average = False
        self._time_cache: tuple[str, _Time | None] = ("", None)  # the last line's time as printed, and read

    def events(self) -> Iterator[Event]:
        continued = False
        for first, chunk in self.lines:
            for line, part, rows in blank_blocks(chunk, first, continued):
                # the rows that start with a time, in bulk; what follows them (sar -f's Average: rows) line by line
                cut = _UNTIMED.search(part) if rows and self.bulk else None
                timed = (part[:cut.start()] if cut else part) if rows and self.bulk else b""
                if timed and self._bulk(timed):
                    part, line = part[len(timed):], line + timed.count(b"\n")
                    if self.run is not None and self.run.disk.pending >= CHUNK_ROWS:
                        yield from self.run.send()
                for n, text in self.lines.lines(part, line):
                    yield from self._line(n, text)
            continued = ends_in_block(chunk)
        if not self.runs:
            raise ParseError("no sar banner line (Linux 5.15 (host) 04/18/19 _x86_64_ (8 CPU), or SunOS/HP-UX/AIX "
                             "host … date): the file does not start as sar prints it", 1)
        for run in self.runs.values():
            yield from run.finish(self.warn, self.options, self.values, self.lines.encoding, len(self.runs) > 1)

    # one line
    def _line(self, n: int, line: str) -> Iterator[Event]:
        s = line.strip()
        if not s:
            self.in_average = False
            return
        if s[0] in "LGSHA" and ((m := LINUX_BANNER.match(s)) or (m := UNIX_BANNER.match(s))):
            self._banner(m, n)
            return
        if self.run is None:
            raise ParseError(f"unexpected text {s[:60]!r} before sar's banner line", n)
        prefix, cached = self._time_cache
        if cached is not None and line.startswith(prefix) and line[len(prefix):len(prefix) + 1].isspace():
            t, rest = cached, line[len(prefix):]  # the time of the line before (the rows of one sample)
        else:
            lt = _leading_time(line)
            if lt is None:
                self._untimed(line, s, n)
                return
            t, rest = lt
            self._time_cache = (line[: len(line) - len(rest)], t)
            if len(self.run.words.times) < 3:
                self.run.words.add_time(t.text)
        self.in_average = False
        toks = rest.split()
        if not toks:
            return
        if "RESTART" in toks or toks[:2] == ["unix", "restarts"]:
            self._restart(t, rest.strip(), n)
            return
        if toks[0] == "COM":
            self.run.comments.append(rest.strip()[4:])
            return
        if not (_is_number(toks[-1]) or _is_number(toks[0]) or any(_is_number(x) for x in toks)):
            self._header(t, toks, n)
            return
        if self.section in ("disk", "io"):
            ts = self.clocks[self.section].at(t)
            self.block_time = ts
            self._row(ts, toks, n)
            if len(self.run.disk.rows) >= CHUNK_ROWS:
                yield from self.run.send()

    def _bulk(self, part: bytes) -> bool:
        """The rows ``part`` (whole lines of a block after its header) of a Linux disk report stored in bulk, as
        :meth:`_line` would store them line by line; False (nothing changed) when any needs the line path: not plain
        (:func:`parsers.bulk.plain_rows`: CJK clocks, localized morning/afternoon words), a value that is no plain
        number (decimal commas, -h units, N/A), a restart or comment, a field short or long, no time or another
        clock, a time going back, a device twice in one sample."""
        run, header = self.run, self.header
        if run is None or self.system != "Linux" or self.section != "disk" or self.in_average:
            return False
        text = part.rstrip(b"\n")
        if b"RESTART" in text or b"COM" in text:
            return False
        nl = plain_rows(text)
        if nl is None:
            return False
        row0 = text[:nl[0]] if nl.size else text
        lt = _leading_time(row0.decode())
        if lt is None:
            return False
        ntime = len(row0[: len(row0) - len(lt[1].encode())].split())
        ncol, nrows = ntime + len(header), nl.size + 1
        data = blank_separated(text, ncol, nrows, device_last=True)
        raw = None if data is None else read_fields(data, ncol, nrows)
        if raw is None:
            return False
        plan = _plan(header)
        nums = plain_numbers(raw, [(f"c{ntime + i}", VALUE_COLUMNS[col], factor)
                                   for i, col, factor, _unit, _name in plan])
        if nums is None:
            return False
        stamps = raw.get_column("c0") if ntime == 1 else \
            raw.select(pl.concat_str([f"c{i}" for i in range(ntime)], separator=" ")).to_series()
        change = np.flatnonzero(stamps.ne(stamps.shift(1)).fill_null(True).to_numpy())
        clock = self.clocks["disk"]
        saved = dict(vars(clock))
        times, read = [], []
        for stamp in stamps.gather(change).to_list():
            lt = _leading_time(stamp)
            if lt is None or lt[1].strip():
                vars(clock).update(saved)
                return False
            read.append((stamp, lt[0]))
            times.append(clock.at(lt[0]))
        rows = _bulk_rows(run.disk, times, change, nrows, raw.get_column(f"c{ntime + self.dev_at}"))
        if rows is None:
            vars(clock).update(saved)
            return False
        # what the line path notes on the way: the file's first times (its words), the first row's gap after its
        # header, the time of the line before
        cached = self._time_cache[0]
        for stamp, t in read:
            if stamp != cached and len(run.words.times) < 3:
                run.words.add_time(t.text)
            cached = stamp
        if self.first_row and self.header_time is not None and times[0] > self.header_time:
            run.disk.header_gaps.append((times[0] - self.header_time).total_seconds())
        self.first_row = False
        self.block_time = times[-1]
        self._time_cache = (read[-1][0], read[-1][1])
        layers = {d: run.number_layer(d) for d in rows.get_column("device").unique(maintain_order=True).to_list()}
        frame = pl.concat([rows, nums], how="horizontal").with_columns(
            pl.col("device").replace_strict(layers, return_dtype=pl.String).alias("layer"))
        _commit_bulk(run.disk, rows, frame)
        return True

    def _banner(self, m: re.Match[str], n: int) -> None:
        g = m.groupdict()
        system = "Linux" if g["os"] in ("Linux", "GNU/Linux") else g["os"]
        try:
            dated = _banner_dated(g["date"])
        except ValueError:
            raise ParseError(f"the banner's date {g['date'].strip()!r} is not a date", n) from None
        if not any(_readable(dated, order) for order in ORDER_NAMES):
            raise ParseError(f"the banner's date {g['date'].strip()!r} is not a date", n)
        host = g["host"]
        run = self.runs.get(host)
        if run is None:
            if system == "Linux":
                os_name = f"{g['os']} {g['release']}"
                meta: dict[str, Any] = {"banner_date": g["date"].strip()}
                if g.get("arch"):
                    meta["arch"] = g["arch"]
                if g.get("cpus"):
                    meta["cpus"] = int(g["cpus"])
            else:
                rest = g["rest"].split()
                # AIX prints uname's release, version and machine id: "AIX host 2 7 00F93CFF4C00" is AIX 7.2
                os_name = f"AIX {rest[1]}.{rest[0]}" if system == "AIX" and len(rest) >= 2 else \
                    f"{system} {g['rest']}".strip()
                meta = {"banner_date": g["date"].strip()}
            info = RunInfo(kind=KIND.id, host=host or None, os=os_name, meta=meta)
            run = self.runs[host] = _Run(host or "sar", info, path=self.path)
        try:
            base = run.banner(dated, self.options.date_order)
        except ValueError:
            raise ParseError(f"the banner's date {g['date'].strip()!r} cannot be read in the day/month order of the "
                             "file's other banners", n) from None
        self.system, self.base = system, base
        self.run = run
        self.clocks = {k: _Clock(base) for k in ("disk", "io")} if not self.clocks else self.clocks
        for c in self.clocks.values():
            c.rebase(base)
        self.section = None

    def _untimed(self, line: str, s: str, n: int) -> None:
        """A line without a time: a summary (Average …), a Solaris/HP-UX/AIX row of the current block, or text
        sar prints between reports (AIX's System configuration line)."""
        if s.startswith("Average") or SUMMARY.match(s):
            self.in_average = True
            if self.run is not None and self.run.words.label is None and ":" in s:
                self.run.words.label = s[: s.index(":") + 1]  # its language is the file's (parsers.dates)
            return
        if self.system == "Linux" or self.in_average or self.section not in ("disk", "io"):
            return
        if not line[:1].isspace():
            return
        if self.block_time is None:
            raise ParseError("a device row before the first time stamp of its block", n)
        self._row(self.block_time, s.split(), n)

    def _restart(self, t: _Time, text: str, n: int) -> None:
        assert self.run is not None
        assert self.base is not None
        clock = self.clocks.get("disk")
        at = clock.at(t, commit=False) if clock else datetime(self.base.year, self.base.month, self.base.day,
                                                               *t.hms)
        words = " ".join(text.split())
        self.run.restarts.setdefault(at, words)

    def _header(self, t: _Time, toks: list[str], n: int) -> None:
        assert self.run is not None
        run = self.run
        self.header, self.first_row = toks, True
        if self.system == "Linux" and "DEV" in toks and "tps" in toks:
            if toks[0] != "DEV" and toks[-1] != "DEV":
                raise ParseError("the DEV column of the sar -d header is neither first nor last", n)
            self._columns(toks, n)
            run.note_columns(run.disk, toks, LINUX_DISK, skip=("DEV",))
            self.dev_at = toks.index("DEV")
            self.section = "disk"
            run.disk_columns = run.disk_columns or toks
        elif self.system == "Linux" and "rtps" in toks and "wtps" in toks:
            self._columns(toks, n)
            run.note_columns(run.io, toks, LINUX_IO)
            self.section = "io"
            run.io_columns = run.io_columns or toks
        elif self.system != "Linux" and "device" in toks and "%busy" in toks:
            self._columns(toks, n)
            run.note_columns(run.disk, toks, UNIX_DISK, skip=("device",))
            self.dev_at = toks.index("device")
            self.section = "disk"
            run.disk_columns = run.disk_columns or toks
        else:
            self.section = "other"
            run.other.setdefault(_other_name(toks), None)
            return
        self.header_time = self.clocks[self.section].at(t)

    @staticmethod
    def _columns(toks: list[str], n: int) -> None:
        if len(set(toks)) != len(toks):
            raise ParseError("a column appears twice in the header", n)

    def _row(self, ts: datetime, toks: list[str], n: int) -> None:
        assert self.run is not None
        run = self.run
        if len(toks) != len(self.header):
            raise ParseError(f"expected {len(self.header)} fields (as the header says: {' '.join(self.header)}), "
                             f"found {len(toks)}", n)
        series = run.disk if self.section == "disk" else run.io
        if self.first_row and self.header_time is not None and ts > self.header_time:
            series.header_gaps.append((ts - self.header_time).total_seconds())
        self.first_row = False
        if self.section == "io":
            series.add(ts, ALL_IO, _io_values(self.header, toks, n, self.values), n)
            return
        device = toks[self.dev_at]
        if self.system == "Linux":
            vals = _linux_values(_plan(self.header), toks, n, self.values)
            vals[_VI["layer"]] = run.number_layer(device)
        else:
            vals = _unix_values(dict(zip(self.header, toks)), n, self.values)
            vals[_VI["layer"]] = unix_layer(self.system, device)
        series.add(ts, device, vals, n)


_PLANS: dict[tuple[str, ...], list[tuple[int, int, float, str | None, str]]] = {}


def _plan(header: list[str]) -> list[tuple[int, int, float, str | None, str]]:
    """Where each stored figure of a Linux sar -d row is: (field, column, factor, -h unit, name), per header."""
    key = tuple(header)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = [(i, _VI[LINUX_DISK[name][0]], LINUX_DISK[name][1], LINUX_DISK[name][2], name)
                              for i, name in enumerate(header) if name in LINUX_DISK]
    return plan


def _linux_values(plan: list[tuple[int, int, float, str | None, str]], toks: list[str], n: int, values: _Values
                  ) -> list[Any]:
    out: list[Any] = [None] * len(VALUE_COLUMNS)
    for i, col, factor, unit, name in plan:
        v = values.num(toks[i], n, name, unit)
        out[col] = None if v is None else (v * factor if factor != 1.0 else v)
    return out


def _io_values(header: list[str], toks: list[str], n: int, values: _Values) -> list[Any]:
    out: list[Any] = [None] * len(VALUE_COLUMNS)
    for name, tok in zip(header, toks):
        spec = LINUX_IO.get(name)
        if spec is None or spec[0] is None:
            continue
        v = values.num(tok, n, name)
        out[_VI[spec[0]]] = None if v is None else v * spec[1]
    out[_VI["layer"]] = "total"
    return out


def _unix_values(rec: dict[str, str], n: int, values: _Values) -> list[Any]:
    out: list[Any] = [None] * len(VALUE_COLUMNS)
    for name, tok in rec.items():
        spec = UNIX_DISK.get(name)
        if spec is None or spec[0] is None:
            continue
        v = values.num(tok, n, name)
        out[_VI[spec[0]]] = None if v is None else v * spec[1]
    if "avwait" in rec and "avserv" in rec:
        w, sv = values.num(rec["avwait"], n, "avwait"), values.num(rec["avserv"], n, "avserv")
        if w is not None and sv is not None:
            out[_VI["await_ms"]] = round(w + sv, max(_decimals(rec["avwait"]), _decimals(rec["avserv"])))
    return out


# ---- sadf -d ---------------------------------------------------------------------------------------------------------
class SadfFormat:
    id = "sadf-d"
    kind = KIND.id
    label = "sar data (sadf -d)"
    priority = 430
    tables = ("iostat_samples",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        lines = [ln for ln in _head_text(head).split("\n") if ln.strip()]
        return 0.95 if lines and SADF_HEADER.match(lines[0]) else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _SadfParser(path, state, BULK).events(options, warn)


_SADF_HEADERS = re.compile(rb"^[ \t]*#[^\n]*\n?", re.M)


def _sadf_parts(chunk: bytes, line: int) -> Iterator[tuple[int, bytes, bool]]:
    """(number of its first line, whole lines, whether it is a header line) of ``chunk``: each header (``#`` …)
    line alone, the lines between them together."""
    at = 0
    for m in _SADF_HEADERS.finditer(chunk):
        if m.start() > at:
            yield line, chunk[at:m.start()], False
            line += chunk.count(b"\n", at, m.start())
        yield line, m.group(0), True
        line += 1
        at = m.end()
    if at < len(chunk):
        yield line, chunk[at:], False


class _SadfParser:
    """``sadf -d``: the header lines and special records walked line by line; each run of device rows between two
    headers read in bulk (:mod:`parsers.bulk`) where it is plain, else line by line (``bulk`` False: always)."""

    def __init__(self, path: str, state: JobState, bulk: bool = True):
        self.path = path
        self.lines = Chunks(path, "a sadf -d file", state)
        self.bulk = bulk
        self.values = _Values()
        self.runs: dict[str, _Run] = {}
        self.header: list[str] | None = None
        self.section: str | None = None  # disk | io | other
        self.horizontal = False  # sadf -dh: every device of one time on one line
        self.other: dict[str, None] = {}
        self.last_stamp: tuple[str, tuple[datetime, str | None]] | None = None  # the previous row's, read
        self.noted: tuple[_Run, list[str]] | None = None  # the run and header whose columns were last noted

    def events(self, options: ImportOptions, warn: WarnFn) -> Iterator[Event]:
        last = 1
        for first, chunk in self.lines:
            for line, part, is_header in _sadf_parts(chunk, first):
                last = line + part.count(b"\n") - part.endswith(b"\n")
                if not is_header and self.bulk and self._bulk(part):
                    run = self.runs[self._bulk_host]
                else:
                    run = None
                    for n, text in self.lines.lines(part, line):
                        yield from self._line(n, text)
                if run is not None and run.disk.pending >= CHUNK_ROWS:
                    yield from run.send()
        if not self.runs:
            raise ParseError("no sadf -d rows in the file", last)
        for run in self.runs.values():
            run.other.update(self.other)
            yield from run.finish(warn, options, self.values, self.lines.encoding, len(self.runs) > 1)

    def _line(self, n: int, line: str) -> Iterator[Event]:
        s = line.strip()
        if not s:
            return
        if s.startswith("#"):
            self._header(s, n)
            return
        run = self._row(s, n)
        if run is not None and run.disk.pending >= CHUNK_ROWS:
            yield from run.send()

    _bulk_host = ""

    def _bulk(self, part: bytes) -> bool:
        """The device rows ``part`` (whole lines, no header) stored in bulk, as :meth:`_row` would store them line by
        line; False (nothing changed) when any of them needs the line path: not plain (:func:`parsers.bulk.plain_rows`),
        not the disk report, ``sadf -dh``, a special record, several hosts, a value or stamp that is no plain one, a
        time going back, a device twice in one sample."""
        header = self.header
        if self.section != "disk" or self.horizontal or header is None:
            return False
        text = part.rstrip(b"\n")
        nl = plain_rows(text)
        if nl is None:
            return False
        nrows = nl.size + 1
        raw = read_fields(text, 3 + len(header), nrows, ";", check_count=True)
        if raw is None or raw.null_count().pipe(lambda c: c.sum_horizontal().item()) or \
                raw.get_column("c1").eq("-1").any():
            return False
        hosts = raw.get_column("c0").unique()
        if hosts.len() != 1:
            return False
        host = hosts.item()
        plan = _plan(header)
        nums = plain_numbers(raw, [("c1", "interval", 1.0)] + [(f"c{3 + i}", VALUE_COLUMNS[col], factor)
                                                                 for i, col, factor, _unit, _name in plan])
        if nums is None:
            return False
        stamps = raw.get_column("c2")
        change = np.flatnonzero(stamps.ne(stamps.shift(1)).fill_null(True).to_numpy())
        try:
            read = [self._time(stamp, 0) for stamp in stamps.gather(change).to_list()]
        except ParseError:
            return False
        run = self.runs.get(host)
        series = run.disk if run is not None else _Series()
        rows = _bulk_rows(series, [t for t, _o in read], change, nrows, raw.get_column("c3"))
        if rows is None:
            return False
        if run is None:
            info = RunInfo(kind=KIND.id, host=host or None, file_date=read[0][0].date(), meta={"layout": "sadf -d"})
            run = self.runs[host] = _Run(host or "sar", info, path=self.path)
        self._bulk_host = host
        run.offsets.update(o for _t, o in read)
        noted = self.noted is not None and self.noted[0] is run and self.noted[1] is header
        self.noted = (run, header)
        run.disk_columns = run.disk_columns or header
        if not noted:
            run.note_columns(run.disk, header, LINUX_DISK, skip=("DEV",))
        layers = {d: run.number_layer(d) for d in rows.get_column("device").unique(maintain_order=True).to_list()}
        values = nums.select([pl.col(c) for c in VALUE_COLUMNS if c in nums.columns])
        frame = pl.concat([rows, values], how="horizontal").with_columns(
            pl.col("device").replace_strict(layers, return_dtype=pl.String).alias("layer"))
        _commit_bulk(run.disk, rows, frame)
        stated = nums.get_column("interval")
        run.disk.stated.extend(stated.filter(stated != 0).to_list())
        return True

    def _header(self, s: str, n: int) -> None:
        if not SADF_HEADER.match(s):
            raise ParseError(f"unexpected comment {s[:60]!r}: expected a sadf -d header (# hostname;interval;"
                             "timestamp;…)", n)
        cols = s.lstrip("#").strip().split(";")
        self.horizontal = cols[-1].endswith("[...]")
        if self.horizontal:
            cols[-1] = cols[-1][:-5]
        header = self.header = cols[3:]
        if "DEV" in header and "tps" in header:
            if header[0] != "DEV":
                raise ParseError("the DEV column of the sadf -d header is not the first after the time", n)
            self.section = "disk"
        elif "rtps" in header and "wtps" in header:
            self.section = "io"
        else:
            self.section = "other"
            self.other.setdefault(_other_name(header), None)

    def _time(self, stamp: str, n: int) -> tuple[datetime, str | None]:
        """:func:`_sadf_time` of ``stamp``, read once for the device rows of one time (they all repeat it)."""
        if self.last_stamp is None or self.last_stamp[0] != stamp:
            self.last_stamp = (stamp, _sadf_time(stamp, n))
        return self.last_stamp[1]

    def _row(self, s: str, n: int) -> _Run | None:
        fields = s.split(";")
        if len(fields) < 4:
            raise ParseError(f"expected hostname;interval;timestamp;… found {s[:60]!r}", n)
        host, interval, stamp, body = fields[0], fields[1].strip(), fields[2], fields[3:]
        ts, offset = self._time(stamp, n)
        run = self.runs.get(host)
        if run is None:
            info = RunInfo(kind=KIND.id, host=host or None, file_date=ts.date(), meta={"layout": "sadf -d"})
            run = self.runs[host] = _Run(host or "sar", info, path=self.path)
        if interval == "-1":  # a special record: LINUX-RESTART, COM comment
            rest = ";".join(body).strip()
            if "RESTART" in rest:
                run.restarts.setdefault(ts, " ".join(rest.replace("LINUX-RESTART", "LINUX RESTART").split()))
            elif rest.startswith("COM"):
                run.comments.append(rest[4:])
            return None
        header = self.header
        if header is None:
            raise ParseError("values before the first sadf -d header line", n)
        if self.section == "other":
            return None
        run.offsets.add(offset)
        stated = self.values.num(interval, n, "interval")
        noted = self.noted is not None and self.noted[0] is run and self.noted[1] is header  # noted for this run
        self.noted = (run, header)
        if self.section == "disk":
            run.disk_columns = run.disk_columns or header
            if not noted:
                run.note_columns(run.disk, header, LINUX_DISK, skip=("DEV",))
            width = len(header)
            if (len(body) % width) if self.horizontal else (len(body) != width):
                raise ParseError(f"expected {width} fields after the time (as the header says: {';'.join(header)}), "
                                 f"found {len(body)}", n)
            for i in range(0, len(body), width):
                part = body[i:i + width]
                vals = _linux_values(_plan(header), part, n, self.values)
                vals[_VI["layer"]] = run.number_layer(part[0])
                run.disk.add(ts, part[0], vals, n)
            series = run.disk
        else:
            run.io_columns = run.io_columns or header
            if len(body) != len(header):
                raise ParseError(f"expected {len(header)} fields after the time, found {len(body)}", n)
            if not noted:
                run.note_columns(run.io, header, LINUX_IO)
            run.io.add(ts, ALL_IO, _io_values(header, body, n, self.values), n)
            series = run.io
        if stated:
            series.stated.append(stated)
        return run


def _bulk_rows(series: _Series, times: list[datetime], change: np.ndarray, nrows: int, devices: pl.Series
               ) -> pl.DataFrame | None:
    """The key columns (sample_idx, ts, t_s, device, since_boot) of rows read in bulk, their times ``times[k]`` from
    row ``change[k]`` on, numbered on from ``series`` as :meth:`_Series.add` numbers rows; None (``series``
    unchanged) when the time goes back or a device is twice in one sample: the line path says where."""
    cur, sample, t0 = series.cur, series.sample, series.t0
    samples, seconds = [], []
    for t in times:
        if cur is None or t != cur:
            if cur is not None and t < cur:
                return None
            sample += 1
            cur = t
            t0 = t0 or t
        samples.append(sample)
        seconds.append((t - t0).total_seconds() if t0 is not None else 0.0)
    counts = np.diff(np.append(change, nrows))
    frame = pl.DataFrame({
        "sample_idx": np.repeat(np.asarray(samples, dtype=np.int64), counts),
        "ts": np.repeat(np.array(times, dtype="datetime64[us]"), counts),
        "t_s": np.repeat(np.asarray(seconds, dtype=np.float64), counts),
        "device": devices, "since_boot": np.zeros(nrows, dtype=bool)}).cast(_SCHEMA_KEYS)
    if frame.select(pl.struct("sample_idx", "device").is_duplicated().any()).item():
        return None
    if samples[0] == series.sample and not series.seen.isdisjoint(
            frame.filter(pl.col("sample_idx") == series.sample).get_column("device").to_list()):
        return None
    return frame


def _commit_bulk(series: _Series, rows: pl.DataFrame, frame: pl.DataFrame) -> None:
    """Adds rows checked by :func:`_bulk_rows` (``rows``: their keys; ``frame``: their stored columns) to
    ``series`` as :meth:`_Series.add` would one by one."""
    firsts = rows.select("sample_idx", "ts").unique("sample_idx", keep="first", maintain_order=True)
    last = int(firsts.get_column("sample_idx")[-1])
    for sample, ts in firsts.iter_rows():
        if sample > series.sample:
            series.sample, series.cur = sample, ts
            series.times.append(ts)
            series.bases.append(series.banner)
            series.seen = set()
            if series.t0 is None:
                series.t0 = ts
    devices = rows.get_column("device")
    series.seen.update(devices.filter(rows.get_column("sample_idx") == last).to_list())
    series.devices.update(devices.unique().to_list())
    missing = [pl.lit(None, _SCHEMA[c]).alias(c) for c in _NAMES if c not in frame.columns]
    series.add_frame(frame.with_columns(missing).select(_NAMES).cast(_SCHEMA))


def _sadf_time(stamp: str, n: int) -> tuple[datetime, str | None]:
    s = stamp.strip()
    if s.isdigit():  # sadf -U: seconds since 1970, UTC
        return datetime.fromtimestamp(int(s), UTC).replace(tzinfo=None), "+00:00"
    m = SADF_STAMP.match(s)
    if m is None:
        raise ParseError(f"time stamp {s[:40]!r} is not one sadf prints (2019-04-18 13:20:19 UTC)", n)
    try:
        y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
        ts = datetime(y, mo, d, h, mi, sec)
    except ValueError:
        raise ParseError(f"time stamp {s[:40]!r} is not a date and time", n) from None
    zone = m.group(7)
    if zone in ("UTC", "GMT", "Z"):
        return ts, "+00:00"
    if zone and re.fullmatch(r"[+-]\d{2}:?\d{2}", zone):
        return ts, zone[:3] + ":" + zone[-2:]
    return ts, None


# ---- sadf's other layouts: recognised, refused -----------------------------------------------------------------------
SADF_OTHER_HINT = ("sadf's JSON, XML and tab-separated outputs (sadf -j, -x, -p) are not read: export the data file "
                   "with sadf -d saDD -- -d -p > sar.csv and import that")
_SADF_PPC = re.compile(rb"^[^\t\n]+\t-?\d+\t(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}( UTC)?|\d{9,11})\t[^\t\n]+\t", re.M)


class SadfOtherFormat:
    id = "sadf-other"
    kind = KIND.id
    label = "sar data (sadf -j, -x, -p: not supported)"
    priority = 410
    tables = ()
    semantics = REFUSED
    unsupported = SADF_OTHER_HINT

    def sniff(self, head: bytes) -> float:
        t = head.lstrip()[:2048]
        if t.startswith(b"{") and re.search(rb'"sysstat"\s*:', t) and (b'"file-date"' in head
                                                                         or b'"file-utc-time"' in head):
            return 0.99  # iostat -o JSON has the same envelope, but no file-date (sadf's data file)
        if t.startswith(b"<?xml") and re.search(rb"<!DOCTYPE sysstat|<sysstat\b", t):
            return 0.95
        lines = [ln for ln in head.split(b"\n")[:5] if ln.strip()]
        if len(lines) >= 2 and all(_SADF_PPC.match(ln) for ln in lines[:-1]):
            return 0.9
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from ()
        raise ParseError(SADF_OTHER_HINT, None)


# ---- binary saDD: recognised, refused --------------------------------------------------------------------------------
class SarBinaryFormat:
    id = "sar-binary"
    kind = KIND.id
    label = "sar binary data file (not supported)"
    priority = 420
    tables = ()
    semantics = REFUSED
    unsupported = BINARY_HINT
    sniffs_binary = True  # the registry asks it before refusing a file for its NUL bytes

    def sniff(self, head: bytes) -> float:
        # sysstat's file magic 0xd596, in the byte order of the host that wrote it
        return 0.95 if head[:2] in (b"\x96\xd5", b"\xd5\x96") and b"\x00" in head[:64] else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from ()
        raise ParseError(BINARY_HINT, None)


TEXT = register(SarTextFormat())
SADF = register(SadfFormat())
BINARY = register(SarBinaryFormat())
SADF_OTHER = register(SadfOtherFormat())
