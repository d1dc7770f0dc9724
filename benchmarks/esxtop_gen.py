"""Write an esxtop batch-mode CSV (``esxtop -b -d 5 -n 720``) of a VDI host through a boot and login storm.

No real esxtop batch file is public (see parsers/esxtop.py), so this follows the documented layout: a header
``"(PDH-CSV 4.0) (UTC)(0)"`` then one column per ``\\\\host\\Object(Instance)\\Counter`` path, one row per sample
with an ``MM/DD/YYYY HH:MM:SS`` stamp in UTC and every value quoted with two decimals, as esxtop prints them. The
objects are the ones esxtop writes, in its order: Memory, Physical Cpu Load, Physical Cpu, Group Cpu, Vcpu,
Group Memory, Network Port, Physical Disk Adapter, Physical Disk Path, Physical Disk SCSI Device, Physical Disk
Per-Device-Per-World, Virtual Disk (per VM, then per virtual disk). The storage counters are the per-LUN list of
a real host (jazzl0ver/check_esxi_iostats); the CPU, memory and network counter names are esxtop's as quoted in
public scripts (rackhd esxtop tooling, zenoss check_esxtop).

The numbers hang together: each VM boots (reads) and logs in (writes) at its own time; a device's commands are
the sum of its worlds', a VM's ``Virtual Disk(vm)`` the sum of its disks', an adapter's the sum of its devices';
DAVG grows with the device's load, KAVG jumps when the queue (32) is full, GAVG = DAVG + KAVG as printed and
ACTV + QUED = the commands in flight.

    python benchmarks/esxtop_gen.py OUT.csv                       # 60 VMs, 12 devices, 720 x 5 s: ~8,600 columns
    python benchmarks/esxtop_gen.py OUT.csv --vms 3 --devices 2 --samples 8 --cpus 2   # a small one for tests
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timedelta

import numpy as np

MEMORY = ["Memory Overcommit (1 Minute Avg)", "Memory Overcommit (5 Minute Avg)", "Memory Overcommit (15 Minute Avg)",
          "Machine MBytes", "Kernel MBytes", "NonKernel MBytes", "Free MBytes", "Kernel Managed MBytes",
          "Kernel MinFree MBytes", "Kernel Reserved MBytes", "Kernel Unreserved MBytes", "Kernel State",
          "PShare Shared MBytes", "PShare Common MBytes", "PShare Savings MBytes", "Swap Used MBytes",
          "Swap Target MBytes", "Swap MBytes Read/sec", "Swap MBytes Write/sec", "Total Compressed MBytes",
          "Total Saved By Compression MBytes", "Memctl Current MBytes", "Memctl Target MBytes", "Memctl Max MBytes"]
CPU_LOAD = ["Cpu Load (1 Minute Avg)", "Cpu Load (5 Minute Avg)", "Cpu Load (15 Minute Avg)"]
PCPU = ["% Processor Time", "% Util Time", "% Core Util Time"]
GROUP_CPU = ["Members", "% Used", "% Run", "% System", "% Wait", "% VmWait", "% Ready", "% Idle", "% Overlap",
             "% CoStop", "% Max Limited", "% Swap Wait"]
VCPU = ["% Used", "% Run", "% System", "% Wait", "% VmWait", "% Ready", "% Idle", "% Overlap", "% CoStop",
        "% Max Limited", "% Swap Wait", "% Demand"]
GROUP_MEMORY = ["Members", "Memory Size MBytes", "Memory Granted Size MBytes", "Memory Consumed Size MBytes",
                "Target Size MBytes", "Touched MBytes", "Touched Write MBytes", "% Active Estimate",
                "% Active Slow Estimate", "% Active Fast Estimate", "% Active Next Estimate", "Memctl MBytes",
                "Memctl Target MBytes", "Memctl Max MBytes", "Swapped MBytes", "Swap Target MBytes",
                "Swap Read MBytes/sec", "Swap Written MBytes/sec", "Zipped MBytes", "Overhead MBytes"]
NET_PORT = ["Link Up", "Link Speed (Mb)", "Full Duplex", "Packets Transmitted/sec", "MBits Transmitted/sec",
            "Packets Received/sec", "MBits Received/sec", "% Outbound Packets Dropped", "% Received Packets Dropped",
            "Multicast Packets Transmitted/sec", "Broadcast Packets Transmitted/sec", "Multicast Packets Received/sec"]
# the per-LUN counters of a real host (jazzl0ver/check_esxi_iostats)
DEVICE = ["Device Q Depth", "World Q Depth", "Active Commands", "Queued Commands", "% Used", "Load", "Commands/sec",
          "Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec", "Average Driver MilliSec/Command",
          "Average Kernel MilliSec/Command", "Average Guest MilliSec/Command", "Average Queue MilliSec/Command",
          "Average Driver MilliSec/Read", "Average Kernel MilliSec/Read", "Average Guest MilliSec/Read",
          "Average Queue MilliSec/Read", "Average Driver MilliSec/Write", "Average Kernel MilliSec/Write",
          "Average Guest MilliSec/Write", "Average Queue MilliSec/Write", "Failed Commands/sec", "Failed Reads/sec",
          "Failed Writes/sec", "Failed Bytes Read/sec", "Failed Bytes Written/sec", "Failed Reserves/sec",
          "Aborts/sec", "Resets/sec"]
ADAPTER = [c for c in DEVICE if c not in ("Device Q Depth", "World Q Depth", "% Used", "Load")]
PATH = [c for c in DEVICE if c not in ("Device Q Depth", "World Q Depth", "% Used", "Load", "Queued Commands",
                                       "Average Queue MilliSec/Command", "Average Queue MilliSec/Read",
                                       "Average Queue MilliSec/Write")]
WORLD = ["Active Commands", "Queued Commands", "% Used", "Load", "Commands/sec", "Reads/sec", "Writes/sec",
         "MBytes Read/sec", "MBytes Written/sec", "Average Driver MilliSec/Command", "Average Kernel MilliSec/Command",
         "Average Guest MilliSec/Command", "Average Queue MilliSec/Command", "Failed Commands/sec", "Aborts/sec",
         "Resets/sec"]
VDISK = ["Commands/sec", "Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec", "Average MilliSec/Read",
         "Average MilliSec/Write"]
QDEPTH = 32


class Columns:
    """The header and, per column, how its value is made: a constant, a noise level or a storage figure."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.paths: list[str] = []
        self.kind: list[tuple] = []

    def add(self, obj: str, counters: list[str], kind_of) -> None:
        for c in counters:
            self.paths.append(f"\\\\{self.host}\\{obj}\\{c}")
            self.kind.append(kind_of(c))


def storage_load(args: argparse.Namespace, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Reads/s and writes/s per VM disk and sample: each VM boots (reads) then its user logs in (writes)."""
    n, vms, disks = args.samples, args.vms, args.disks_per_vm
    t = np.arange(n) * args.interval
    reads = np.zeros((vms * disks, n))
    writes = np.zeros((vms * disks, n))
    span = max(args.interval, n * args.interval * 0.4)
    for v in range(vms):
        boot = rng.uniform(0.05, 0.4) * span
        login = boot + rng.uniform(60, 240)
        for d in range(disks):
            k = v * disks + d
            weight = 1.0 if d == 0 else 0.15
            reads[k] = weight * (4 + 280 * np.exp(-((t - boot) / 45.0) ** 2) + 90 * np.exp(-((t - login) / 80.0) ** 2))
            writes[k] = weight * (6 + 40 * np.exp(-((t - boot) / 45.0) ** 2) + 160 * np.exp(-((t - login) / 60.0) ** 2))
            reads[k] *= rng.uniform(0.85, 1.15, n)
            writes[k] *= rng.uniform(0.85, 1.15, n)
    device_of = [v % args.devices for v in range(vms)]
    return np.round(reads, 2), np.round(writes, 2), device_of


def build(args: argparse.Namespace) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(args.seed)
    host = args.host
    cols = Columns(host)
    const = lambda v: ("const", v)  # noqa: E731
    noise = lambda lo, hi: ("noise", lo, hi)  # noqa: E731
    cols.add("Memory", MEMORY, lambda c: const(262144.0) if c == "Machine MBytes" else noise(0, 0.3)
             if "Overcommit" in c else const(0.0) if c == "Kernel State" else noise(0, 4096))
    cols.add("Physical Cpu Load", CPU_LOAD, lambda c: noise(0.2, 1.5))
    for cpu in [*map(str, range(args.cpus)), "_Total"]:
        cols.add(f"Physical Cpu({cpu})", PCPU, lambda c: noise(5, 95))
    vm_names = [f"VDI-{i + 1:03d}" for i in range(args.vms)]
    gids = {name: 100000 + 3 * i for i, name in enumerate(vm_names)}
    wids = {name: 2100000 + 17 * i for i, name in enumerate(vm_names)}
    for gid, name in [(1, "system"), (2, "helper"), (3, "drivers"), (4, "ft"), (5, "vmotion"), (8, "vmkapimod"),
                      (9, "vmkboot"), (10, "idle")] + [(gids[v], v) for v in vm_names]:
        cols.add(f"Group Cpu({gid}:{name})", GROUP_CPU, lambda c: const(5.0) if c == "Members" else noise(0, 100))
    for v in vm_names:
        for i in range(args.vcpus):
            cols.add(f"Vcpu({gids[v]}:{v}:{wids[v] + i}:vmx-vcpu-{i}:{v})", VCPU, lambda c: noise(0, 100))
    for v in vm_names:
        cols.add(f"Group Memory({gids[v]}:{v})", GROUP_MEMORY, lambda c: noise(0, 4096))
    for i, v in enumerate(vm_names):
        cols.add(f"Network Port(DvsPortset-0:{50331660 + i}:{v}.eth0)", NET_PORT, lambda c: noise(0, 50))
    reads, writes, device_of = storage_load(args, rng)
    devices = [f"naa.6000c29{i:025x}" for i in range(args.devices)]
    adapters = [f"vmhba{64 + a}" for a in range(args.adapters)]
    for a, name in enumerate(adapters):
        cols.add(f"Physical Disk Adapter({name})", ADAPTER, lambda c, a=a: ("adapter", a, c))
    for d in range(len(devices)):
        for name in adapters:
            cols.add(f"Physical Disk Path({name}:C0:T{d}:L0)", PATH, lambda c: noise(0, 1))
    for d, dev in enumerate(devices):
        cols.add(f"Physical Disk SCSI Device({dev})", DEVICE, lambda c, d=d: ("device", d, c))
    for v, name in enumerate(vm_names):
        dev = devices[device_of[v]]
        cols.add(f"Physical Disk Per-Device-Per-World({dev}-{wids[name]})", WORLD, lambda c, v=v: ("world", v, c))
    for v, name in enumerate(vm_names):
        label = f"{name} ({args.uuid_prefix}{v:04x}-0000-4000-8000-{v:012x})" if args.uuids else name
        cols.add(f"Virtual Disk({label})", VDISK, lambda c, v=v: ("vm", v, c))
        for k in range(args.disks_per_vm):
            cols.add(f"Virtual Disk({label}:scsi0:{k})", VDISK, lambda c, v=v, k=k: ("vdisk", v, k, c))
    values = fill(cols, args, rng, reads, writes, device_of)
    return cols.paths, values


def device_figures(cmd_r: np.ndarray, cmd_w: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A device's (or adapter's) figures from its reads/s and writes/s, as esxtop would print them."""
    cmds = cmd_r + cmd_w
    davg = np.round(0.6 + cmds / 120.0 + rng.uniform(0, 0.3, cmds.shape), 2)
    inflight = cmds * davg / 1000.0
    active = np.round(np.minimum(inflight, QDEPTH), 2)
    queued = np.round(np.maximum(inflight - QDEPTH, 0), 2)
    kavg = np.round(np.where(queued > 0, 1.5 + queued / 4.0, 0.01 + rng.uniform(0, 0.02, cmds.shape)), 2)
    qavg = np.round(np.maximum(kavg - 0.01, 0), 2)
    return {"Commands/sec": np.round(cmds, 2), "Reads/sec": cmd_r, "Writes/sec": cmd_w,
            "MBytes Read/sec": np.round(cmd_r * 24.0 / 1024, 2), "MBytes Written/sec": np.round(cmd_w * 12.0 / 1024, 2),
            "Average Driver MilliSec/Command": davg, "Average Kernel MilliSec/Command": kavg,
            "Average Guest MilliSec/Command": np.round(davg + kavg, 2), "Average Queue MilliSec/Command": qavg,
            "Average Driver MilliSec/Read": davg, "Average Kernel MilliSec/Read": kavg,
            "Average Guest MilliSec/Read": np.round(davg + kavg, 2), "Average Queue MilliSec/Read": qavg,
            "Average Driver MilliSec/Write": davg, "Average Kernel MilliSec/Write": kavg,
            "Average Guest MilliSec/Write": np.round(davg + kavg, 2), "Average Queue MilliSec/Write": qavg,
            "Active Commands": active, "Queued Commands": queued, "Device Q Depth": np.full(cmds.shape, QDEPTH),
            "World Q Depth": np.full(cmds.shape, QDEPTH), "% Used": np.round(100 * active / QDEPTH, 2),
            "Load": np.round((active + queued) / QDEPTH, 2)}


def fill(cols: Columns, args: argparse.Namespace, rng: np.random.Generator, reads: np.ndarray, writes: np.ndarray,
         device_of: list[int]) -> np.ndarray:
    n, disks = args.samples, args.disks_per_vm
    vm_r = reads.reshape(args.vms, disks, n)
    vm_w = writes.reshape(args.vms, disks, n)
    world = {v: device_figures(vm_r[v].sum(0), vm_w[v].sum(0), rng) for v in range(args.vms)}
    dev = {}
    for d in range(args.devices):
        mine = [v for v in range(args.vms) if device_of[v] == d]
        r = np.round(sum((vm_r[v].sum(0) for v in mine), np.zeros(n)), 2)
        w = np.round(sum((vm_w[v].sum(0) for v in mine), np.zeros(n)), 2)
        dev[d] = device_figures(r, w, rng)
    adapter = {}
    for a in range(args.adapters):  # the paths share the load evenly
        r = np.round(sum((dev[d]["Reads/sec"] for d in dev), np.zeros(n)) / args.adapters, 2)
        w = np.round(sum((dev[d]["Writes/sec"] for d in dev), np.zeros(n)) / args.adapters, 2)
        adapter[a] = device_figures(r, w, rng)
    out = np.zeros((n, len(cols.kind)))
    for j, kind in enumerate(cols.kind):
        out[:, j] = value(kind, n, rng, world, dev, adapter, vm_r, vm_w)
    return out


def value(kind: tuple, n: int, rng: np.random.Generator, world: dict, dev: dict, adapter: dict, vm_r: np.ndarray,
          vm_w: np.ndarray) -> np.ndarray:
    tag = kind[0]
    if tag == "const":
        return np.full(n, kind[1])
    if tag == "noise":
        return np.round(rng.uniform(kind[1], kind[2], n), 2)
    if tag in ("device", "adapter", "world"):
        figures = {"device": dev, "adapter": adapter, "world": world}[tag][kind[1]]
        return figures.get(kind[2], np.zeros(n))
    r, w = (vm_r[kind[1]].sum(0), vm_w[kind[1]].sum(0)) if tag == "vm" else (vm_r[kind[1], kind[2]],
                                                                            vm_w[kind[1], kind[2]])
    r, w = np.round(r, 2), np.round(w, 2)
    lat = world[kind[1]]["Average Guest MilliSec/Command"]
    return {"Commands/sec": np.round(r + w, 2), "Reads/sec": r, "Writes/sec": w,
            "MBytes Read/sec": np.round(r * 24.0 / 1024, 2), "MBytes Written/sec": np.round(w * 12.0 / 1024, 2),
            "Average MilliSec/Read": lat, "Average MilliSec/Write": lat}[kind[-1]]


def write(path: str, args: argparse.Namespace) -> tuple[int, int]:
    paths, values = build(args)
    start = datetime.fromisoformat(args.start)
    with open(path, "w", newline="") as fh:
        fh.write(",".join(['"(PDH-CSV 4.0) (UTC)(0)"', *(f'"{p}"' for p in paths)]) + "\r\n")
        for i, row in enumerate(values):
            stamp = (start + timedelta(seconds=i * args.interval + (i // 7) % 2)).strftime("%m/%d/%Y %H:%M:%S")
            fh.write(f'"{stamp}",' + ",".join(map('"{:.2f}"'.format, row)) + "\r\n")
    return len(paths) + 1, len(values)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--host", default="esx01.example.com")
    ap.add_argument("--vms", type=int, default=60)
    ap.add_argument("--vcpus", type=int, default=2)
    ap.add_argument("--disks-per-vm", type=int, default=2)
    ap.add_argument("--devices", type=int, default=12)
    ap.add_argument("--adapters", type=int, default=2)
    ap.add_argument("--cpus", type=int, default=32)
    ap.add_argument("--samples", type=int, default=720)
    ap.add_argument("--interval", type=int, default=5)
    ap.add_argument("--start", default="2026-03-02 07:55:00", help="first stamp (UTC)")
    ap.add_argument("--uuids", action="store_true", help="name VMs 'VDI-001 (uuid)' as older esxtop versions do")
    ap.add_argument("--uuid-prefix", default="564d", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    ncols, nrows = write(args.out, args)
    print(f"{args.out}: {ncols:,} columns x {nrows:,} samples", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
