"""What a row of ``iostat_samples`` is: the device layers, their roles, and the name rules for rows without one.

A device-rate format says what each of its rows is in two ways (its :class:`parsers.semantics.Semantics`):

* **layers** -- the tool says it (perfmon's ``PhysicalDisk`` / ``LogicalDisk`` / ``_Total``, esxtop's device,
  adapter, VM-disk and world objects, a zpool's pool / vdev / device rows): the row carries one of the values of
  :data:`LAYERS`, and each value has a :class:`Role`;
* **name rules** -- the tool does not say it (Linux iostat, sar -p, nmon): ``layer`` stays NULL and the device's
  name decides (:data:`LINUX_NAMES`: partitions, stacked device-mapper / md / loop / bcache / DRBD / zvol
  devices, ``-g`` groups).

Whole-disk figures -- the default series of every analysis -- sum the rows that are physical disks and leave the
others out, each with the reason of its layer or rule (:func:`app.series_sums.default_choice`): a device is never
counted twice. A run with no physical disk falls back to the first layer it has in the order of :data:`LAYERS`.

A leaf module (no project import): the schema documentation, the format declarations and the analyses read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class Role(StrEnum):
    """What a row is, for whole-disk figures."""

    PHYSICAL = "physical"  # a physical disk or LUN: whole-disk figures sum these
    STACKED = "stacked"  # built on the physical disks (volume, partition, dm/md device, vdev): its I/O reaches them
    TOTAL = "total"  # a sum of other rows (the tool's total, a host adapter, a -g group, a VM's own sum)
    PER_VM = "per_vm"  # a VM's virtual disk: its I/O reaches the datastore's devices
    PER_WORLD = "per_world"  # one world's (process's) share of a device: counted in the device


ROLE_WORDS = {
    Role.PHYSICAL: "physical: summed by whole-disk figures",
    Role.STACKED: "stacked on the physical disks: left out (its I/O reaches them too)",
    Role.TOTAL: "a total of other rows: left out",
    Role.PER_VM: "per VM: left out (its I/O reaches the datastore's devices)",
    Role.PER_WORLD: "per world: left out (counted in its device)",
}


@dataclass(frozen=True)
class Layer:
    """One value of ``iostat_samples.layer``: its role, what its rows are called on screen (plural), and why a row
    of it is left out of whole-disk figures (empty for physical disks)."""

    value: str
    role: Role
    noun: str
    left_out: str


# in the order whole-disk figures fall back through when a run has no row of the layers before it (perfmon with
# only LogicalDisk counters: its volumes)
LAYERS: dict[str, Layer] = {la.value: la for la in (
    Layer("disk", Role.PHYSICAL, "physical disks", ""),
    Layer("volume", Role.STACKED, "volumes", "volume (its I/O is counted in the physical disks)"),
    Layer("adapter", Role.TOTAL, "host adapters", "host adapter (the sum of the devices behind it)"),
    Layer("vm_disk", Role.PER_VM, "VM virtual disks", "VM virtual disk (its I/O reaches the datastore's devices)"),
    Layer("world", Role.PER_WORLD, "per-world rows", "one world's share of a device (counted in the device)"),
    Layer("total", Role.TOTAL, "the tool's total", "total printed by the tool (the sum of the disks)"),
)}


@dataclass(frozen=True)
class NameRule:
    """Devices whose whole name matches ``pattern`` are stacked on the disks: ``family`` names them in the rule
    of a device choice ("dm/md/loop"), ``left_out`` is the reason a device of them is left out."""

    pattern: str
    family: str
    left_out: str
    _re: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_re", re.compile(self.pattern))

    def matches(self, name: str) -> bool:
        return self._re.fullmatch(name) is not None


@dataclass(frozen=True)
class NameRules:
    """How rows without a layer are told apart by their device names: ``stacked`` devices (left out while the run
    has whole disks), partitions (a name that is another device's name plus a partition number: ``sda1``,
    ``nvme0n1p2``, ``disk-part3``; counted in their disk), and ``-g`` group rows (``is_group``: the sum of their
    members)."""

    id: str
    description: str
    stacked: tuple[NameRule, ...]
    _any: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_any", re.compile("|".join(f"(?:{r.pattern})" for r in self.stacked)))

    def stacked_rule(self, name: str) -> NameRule | None:
        """The rule that makes ``name`` a stacked device, or None (one regex tells most names apart: a run may have
        100 k devices)."""
        if self._any.fullmatch(name) is None:
            return None
        return next(r for r in self.stacked if r.matches(name))


_DM_MD_LOOP = "device-mapper/md/loop device stacked on the disks (its I/O reaches them too)"

LINUX_NAMES = NameRules(
    "linux",
    "Linux device names: partitions (`sda1`, `nvme0n1p2`, `…-part3`) counted in their disk; device-mapper "
    "(`dm-N`), md (`mdN`, `md_dN`, `md-N`), loop (`loopN`), bcache (`bcacheN`), DRBD (`drbdN`) and ZFS volume "
    "(`zdN`) devices stacked on the disks; NVMe multipath paths (`nvmeXcYnZ`), PowerPath (`emcpowerN`) and VxVM "
    "(`VxVMN`) devices; zram, NBD and Ceph RBD devices (not this host's disks); `-g` group rows the sum of their "
    "members",
    (
        NameRule(r"dm-\d+", "dm/md/loop", _DM_MD_LOOP),
        NameRule(r"md\d+|md_d\d+|md-\d+", "dm/md/loop", _DM_MD_LOOP),
        NameRule(r"loop\d+", "dm/md/loop", _DM_MD_LOOP),
        NameRule(r"bcache\d+", "bcache", "bcache device stacked on its backing and cache disks (its I/O reaches "
                 "them too)"),
        NameRule(r"drbd\d+", "DRBD", "DRBD device stacked on its local backing disk (its I/O reaches it too)"),
        NameRule(r"zd\d+", "zvol", "ZFS volume stacked on its pool's disks (its I/O reaches them too)"),
        # not stacked on this host's disks, but not one of them either: counted only in a run without a disk
        NameRule(r"zram\d+", "zram", "compressed RAM disk (zram): its I/O goes to memory, not to a disk"),
        NameRule(r"nbd\d+", "NBD", "network block device (NBD): its I/O goes over the network, not to this "
                 "host's disks"),
        NameRule(r"rbd\d+", "Ceph RBD", "Ceph RBD image: its I/O goes over the network to the cluster's disks, "
                 "not to this host's"),
        # NVMe native multipath: nvmeXcYnZ is one controller's path to namespace nvmeXnZ (the kernel's
        # nvme_set_disk_name, drivers/nvme/host/multipath.c), whose figures hold every path's
        NameRule(r"nvme\d+c\d+n\d+", "NVMe path", "one path of an NVMe multipath namespace (its I/O is "
                 "counted in the namespace)"),
        # Dell EMC PowerPath pseudo devices over the sdX paths of a LUN; Veritas VxVM volumes (VxVM<minor>)
        NameRule(r"emcpower[a-z]+", "PowerPath", "PowerPath pseudo device over its paths (their I/O is counted "
                 "in the path disks)"),
        NameRule(r"VxVM\d+", "VxVM", "Veritas VxVM volume stacked on the disks (its I/O reaches them too)"),
    ),
)

# names the kernel gives whole physical disks (SCSI/SATA/SAS, IDE, virtio, Xen, NVMe namespaces, MMC, cciss,
# Solaris sd/ssd/cmdk and cXtYdZ, AIX hdisk): the figures never make such a device "stacked" (two sides of a
# mirror do the same writes)
PHYSICAL_NAMES = re.compile(r"sd[a-z]+|hd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme\d+n\d+|mmcblk\d+|cciss/c\d+d\d+|s?sd\d+|"
                            r"cmdk\d+|c\d+t\w+d\d+|hdisk\d+")


# the name rules the analyses apply (app.series_sums); a format names one of them
NAME_RULES: dict[str, NameRules] = {LINUX_NAMES.id: LINUX_NAMES}
