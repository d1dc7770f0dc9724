"""VMware ESXi ``esxtop -b`` (batch mode) CSV, read by :mod:`parsers.pdh`.

``esxtop -b -d 5 -n 720 > host.csv`` writes PDH-CSV: a header ``"(PDH-CSV 4.0) (UTC)(0)"`` then one column per
counter path ``\\\\host\\Object(Instance)\\Counter`` (the host as ``\\\\esx01.example.com``, ``\\\\localhost`` or
``\\\\local``) — tens of thousands of columns: every CPU, world, memory group, NIC port, path, device and virtual
disk — and one row per sample, its time stamp ``MM/DD/YYYY HH:MM:SS`` in UTC. The header is read once, the
storage columns are picked by their names, and each row keeps only those cells while it is read; nothing holds
the whole width of more than one row (see :mod:`parsers.pdh`, and ``benchmarks/esxtop_import.py`` for time and
memory).

Objects read (rows of ``iostat_samples``):

==========================================  =========  ====================================================
``Physical Disk SCSI Device(naa.…)``        ``disk``   device = the device name (``naa.…``, ``mpx.…``)
``Physical Disk NFS Volume(<datastore>)``   ``disk``   an NFS datastore's I/O (no SCSI device carries it)
``Physical Disk Adapter(vmhba…)``           ``adapter``
``Virtual Disk(<vm>:scsi0:0)``              ``vm_disk`` ``vm`` = the VM (a `` (uuid)`` esxtop appends to the
                                                       name is left out of ``vm``; the device keeps it)
``Virtual Disk(<vm>)``                      ``total``  the VM's own sum over its virtual disks, kept with
                                                       ``vm`` set; ``total`` (not ``vm_disk``) so that a sum
                                                       over VM disks or a per-VM figure never counts it twice
``Physical Disk Per-Device-Per-World(…)``   ``world``  device as printed (``<device>-<world id>``); ``vm``
                                                       when the file's ``Vcpu(…)``/``Group Cpu(…)`` columns
                                                       name that world
==========================================  =========  ====================================================

``Physical Disk Path`` and ``Physical Disk Partition`` (the same I/O again, per path or partition) and every
non-storage object are not read; ``runs.meta.objects_not_read`` counts their columns.

Counters (kB = 1024 bytes; esxtop's MBytes are 2^20 bytes):

=====================================  ==================================================================
``Reads/sec``, ``Writes/sec``          ``r_s``, ``w_s``
``Commands/sec``                       ``tps``, only for a device without ``Reads/sec`` and ``Writes/sec``
``MBytes Read/sec``, ``…Written/sec``  ``rkb_s``, ``wkb_s`` = MB × 1024
``Average Guest MilliSec/Command``     ``await_ms`` (GAVG = KAVG + DAVG); ``/Read``, ``/Write`` →
                                       ``r_await_ms``, ``w_await_ms``. A virtual disk's ``Average
                                       MilliSec/Read|Write|Command`` (the latency its VM sees) go there too
``Average Driver MilliSec/Command``    ``davg_ms`` (DAVG: the device and the array)
``Average Kernel MilliSec/Command``    ``kavg_ms`` (KAVG: the ESXi kernel, its queue included)
``Average Queue MilliSec/Command``     ``qavg_ms`` (QAVG: the kernel's queue, part of KAVG)
``Active Commands`` + ``Queued``       ``aqu_sz`` = ACTV + QUED, the commands in the device and waiting in
                                       the kernel: the queue iostat's aqu-sz counts; NULL unless both are
                                       printed
``Failed Commands/sec``                ``failed_s``
=====================================  ==================================================================

The per-read/per-write DAVG/KAVG/QAVG, queue depths (``Device Q Depth``, ``World Q Depth``), ``% Used``,
``Load``, failed reads/writes/bytes, reservations, aborts and resets are recognised and not stored (listed in
``runs.meta.counters_not_stored``).

Sources of the layout and names: VMware's "Interpreting esxtop Statistics" (section 4.3, batch mode); the
per-LUN counter list of a real host in the README of jazzl0ver/check_esxi_iostats; header lines and rows of a
real 309 MB capture quoted in Karim Elatov's "Plot Esxtop Data With gnuplot" (2013, elatov/elatov.github.io:
``"\\\\local\\Virtual Disk(SQL02 (df09cdf2-…):scsi0:1)\\Reads/sec"``, per-VM ``Virtual Disk(SQL02 (…))``
columns, ``"12/11/2012 19:09:23"`` stamps); the ``Virtual Disk(vm:scsi3:0)\\Average MilliSec/Write`` column
named in vfedotovs/esxtop-batch-data-visualizer; NMONVisualizer's ESXTopParser for the object names.

**No real esxtop batch file could be found in public** (searched: GitHub code and issues for the counter names
and for esxtop CSV samples; the few repositories that carry one keep it out of git, hold only headers, or a
spreadsheet's re-save without quotes and seconds). The tests use files written by ``benchmarks/esxtop_gen.py``,
which follows the documented layout above; this reader has not met a file written by esxtop itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from parsers.base import Event, ImportOptions, JobState, WarnFn
from parsers.kinds import DEVICE_RATES, HOST_LATENCY, TIME_SERIES, register_kind
from parsers.pdh import (
    PDH_META,
    Classify,
    CounterPath,
    DeviceSpec,
    FormatSpec,
    PdhReader,
    Source,
    head_paths,
    sniff_head,
)
from parsers.registry import register
from parsers.semantics import LIST, OBJ, Counts, MetaKey, Semantics, Span

KIND = register_kind("esxtop", "esxtop", {TIME_SERIES, DEVICE_RATES, HOST_LATENCY})

# objects only esxtop writes (exact names, case aside): how a PDH-CSV head is told from a perfmon log
ESXTOP_OBJECTS = frozenset(o.casefold() for o in (
    "Physical Cpu", "Physical Cpu Load", "Group Cpu", "Vcpu", "Group Memory", "Numa Node", "Interrupt Vector",
    "Network Port", "Physical Disk Adapter", "Physical Disk SCSI Device", "Physical Disk Per-Device-Per-World",
    "Physical Disk Path", "Physical Disk Partition", "Physical Disk NFS Volume", "Virtual Disk", "PCPU Power State",
    "Memory Overcommit"))

_LAYERS = {"physical disk scsi device": "disk", "physical disk nfs volume": "disk",
           "physical disk adapter": "adapter", "virtual disk": "vm_disk",
           "physical disk per-device-per-world": "world"}

_COUNTERS: dict[str, str | None] = {
    "Commands/sec": "commands", "Reads/sec": "reads", "Writes/sec": "writes",
    "MBytes Read/sec": "mb_read", "MBytes Written/sec": "mb_written",
    "Average Guest MilliSec/Command": "gavg", "Average Guest MilliSec/Read": "gavg_r",
    "Average Guest MilliSec/Write": "gavg_w",
    "Average MilliSec/Command": "gavg", "Average MilliSec/Read": "gavg_r", "Average MilliSec/Write": "gavg_w",
    "Average Driver MilliSec/Command": "davg", "Average Kernel MilliSec/Command": "kavg",
    "Average Queue MilliSec/Command": "qavg",
    "Active Commands": "active", "Queued Commands": "queued", "Failed Commands/sec": "failed",
    # recognised, not stored
    **{f"Average {k} MilliSec/{op}": None for k in ("Driver", "Kernel", "Queue") for op in ("Read", "Write")},
    **{c: None for c in ("Device Q Depth", "World Q Depth", "% Used", "Load", "Failed Reads/sec",
                         "Failed Writes/sec", "Failed Bytes Read/sec", "Failed Bytes Written/sec",
                         "Failed MBytes Read/sec", "Failed MBytes Written/sec", "Failed Reserves/sec",
                         "Reserves/sec", "Conflicts/sec", "Aborts/sec", "Resets/sec", "Adapter Q Depth")},
}
COUNTERS = {k.casefold(): v for k, v in _COUNTERS.items()}
_VDISK = re.compile(r"^(?P<vm>.+):(?P<disk>(?:scsi|sata|ide|nvme)\d+:\d+)$")
_UUID_SUFFIX = re.compile(r"^(?P<name>.+?) \([0-9a-fA-F]{8}-[0-9a-fA-F-]{27}\)$")
_WORLD = re.compile(r"^(?P<device>.+)-(?P<world>\d+)$")


def vm_name(text: str) -> str:
    """A VM as esxtop names it in ``Virtual Disk(…)``, without the `` (uuid)`` some versions append."""
    m = _UUID_SUFFIX.match(text)
    return m.group("name") if m else text


def world_names(paths: list[CounterPath]) -> dict[str, str]:
    """World and group ids -> VM (or group) name, from ``Vcpu(gid:vm:wid:vcpu-0:vm)`` and ``Group Cpu(gid:name)``
    columns: the per-world disk rows then say whose I/O they are."""
    out: dict[str, str] = {}
    for p in paths:
        obj = p.obj.casefold()
        if p.instance is None or obj not in ("vcpu", "group cpu"):
            continue
        parts = p.instance.split(":")
        if obj == "vcpu" and len(parts) >= 3 and parts[2].isdigit():
            out.setdefault(parts[2], parts[1])
        if parts[0].isdigit() and len(parts) >= 2:
            out.setdefault(parts[0], parts[1])
    return out


def prepare(paths: list[CounterPath]) -> Classify:
    worlds = world_names(paths)

    def classify(cp: CounterPath) -> Source | None:
        layer = _LAYERS.get(cp.obj.casefold())
        if layer is None or cp.instance is None:
            return None
        quantity = COUNTERS.get(cp.counter.casefold())
        if quantity is None:
            return None
        device, vm = cp.instance, None
        if layer == "vm_disk":
            m = _VDISK.match(cp.instance)
            vm = vm_name(m.group("vm")) if m else vm_name(cp.instance)
            if m is None:
                layer = "total"  # the VM's own sum over its disks
        elif layer == "world":
            w = _WORLD.match(cp.instance)
            vm = worlds.get(w.group("world")) if w else None
        return Source("iostat_samples", cp.host or "", device, quantity, layer, vm)

    return classify


def derive(q: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The stored columns of one device from its counters (see the table in the module's doc)."""
    out: dict[str, np.ndarray] = {}
    for quantity, column in (("reads", "r_s"), ("writes", "w_s"), ("gavg", "await_ms"), ("gavg_r", "r_await_ms"),
                             ("gavg_w", "w_await_ms"), ("davg", "davg_ms"), ("kavg", "kavg_ms"),
                             ("qavg", "qavg_ms"), ("failed", "failed_s")):
        if quantity in q:
            out[column] = q[quantity]
    if "reads" not in q and "writes" not in q and "commands" in q:
        out["tps"] = q["commands"]
    if "mb_read" in q:
        out["rkb_s"] = q["mb_read"] * 1024.0
    if "mb_written" in q:
        out["wkb_s"] = q["mb_written"] * 1024.0
    if "active" in q and "queued" in q:
        out["aqu_sz"] = np.round(q["active"] + q["queued"], 9)  # a sum of decimals: without binary noise
    return out


def describe_unread(paths: list[CounterPath]) -> dict[str, Any]:
    not_stored: set[str] = set()
    objects: dict[str, int] = {}
    for p in paths:
        if p.obj.casefold() in _LAYERS:
            not_stored.add(p.counter)
        else:
            objects[p.obj] = objects.get(p.obj, 0) + 1
    out: dict[str, Any] = {}
    if not_stored:
        out["counters_not_stored"] = sorted(not_stored)
    if objects:
        out["objects_not_read"] = dict(sorted(objects.items()))
    return out


def check(devices: dict[tuple[str, str], DeviceSpec], warn: WarnFn) -> None:
    disks = [d for d in devices.values() if d.layer == "disk"]
    if disks and not any({"reads", "writes", "commands"} & set(d.quantities) for d in disks):
        warn("the storage devices have no Commands/sec, Reads/sec or Writes/sec column, so no IOPS", None)


SPEC = FormatSpec(kind=KIND.id, what="an esxtop batch-mode CSV", os="VMware ESXi", tool="esxtop batch mode",
                  classify=prepare([]), derive={"iostat_samples": derive}, describe_unread=describe_unread,
                  check=check, prepare=prepare, month_first=True)


def is_esxtop(paths: list[CounterPath]) -> bool:
    """A PDH-CSV head with objects only esxtop writes (``Physical Cpu``, ``Group Cpu``, ``Physical Disk SCSI
    Device`` …) is esxtop's, not perfmon's."""
    return any(p.obj.casefold() in ESXTOP_OBJECTS or (p.obj.casefold() == "memory" and "Overcommit" in p.counter)
               for p in paths)


# what esxtop's data means (parsers.semantics)
SEMANTICS = Semantics(
    main_table="iostat_samples", span=Span.SINCE_PREVIOUS, counts=Counts.RATES,
    layers={"disk": "Physical Disk SCSI Device(naa.…), Physical Disk NFS Volume(<datastore>)",
            "adapter": "Physical Disk Adapter(vmhba…)",
            "vm_disk": "Virtual Disk(<vm>:scsi0:0)",
            "world": "Physical Disk Per-Device-Per-World(<device>-<world>)",
            "total": "Virtual Disk(<vm>): the VM's own sum over its virtual disks"},
    wording={"r_s": "Reads/sec", "w_s": "Writes/sec", "tps": "Commands/sec", "rkb_s": "MBytes Read/sec",
             "wkb_s": "MBytes Written/sec", "await_ms": "Average Guest MilliSec/Command (GAVG/cmd)",
             "r_await_ms": "Average Guest MilliSec/Read", "w_await_ms": "Average Guest MilliSec/Write",
             "davg_ms": "Average Driver MilliSec/Command (DAVG/cmd)",
             "kavg_ms": "Average Kernel MilliSec/Command (KAVG/cmd)",
             "qavg_ms": "Average Queue MilliSec/Command (QAVG/cmd)", "aqu_sz": "Active Commands + Queued Commands",
             "failed_s": "Failed Commands/sec", "vm": "the VM of a Virtual Disk or world"},
    meta=(*PDH_META,
          MetaKey("counters_not_stored", LIST, "storage counters recognised and not stored"),
          MetaKey("objects_not_read", OBJ, "other objects, with their column counts")))


class EsxtopCsvFormat:
    id = "esxtop-csv"
    kind = KIND.id
    label = "VMware esxtop batch mode (PDH-CSV)"
    priority = 320
    tables = ("iostat_samples",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = sniff_head(head)
        if not text:
            return 0.0
        return 0.97 if is_esxtop(head_paths(text)) else 0.1

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from PdhReader(path, SPEC, options, state, warn).events()


FORMAT = register(EsxtopCsvFormat())
