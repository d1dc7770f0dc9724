"""The report's anonymiser: host, device and VM names replaced by neutral labels (no Qt, no PDF).

A leaf module: the shared report context (:mod:`reports.context`) and the content (:mod:`reports.content`, which
re-exports it) both use it without importing each other.
"""

from __future__ import annotations

import re


class Anonymiser:
    """Replaces host and device names (and any text containing them) with neutral labels."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.hosts: dict[str, str] = {}
        self.devices: dict[str, str] = {}
        self.vms: dict[str, str] = {}  # vscsiStats worldGroupID -> "1", "2": printed as "VM 1"

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

    def vm(self, world: str) -> str:
        """A VM's worldGroupID (vscsiStats) as a neutral number: 'VM 2099979' prints as 'VM 1'."""
        if not self.enabled:
            return world
        return self.vms.setdefault(world, str(len(self.vms) + 1))

    def text(self, s: str | None) -> str:
        """``s`` with every known host and device name replaced, also inside file names ("host1_sdb_iostat":
        a name counts where it is not part of a longer word or number; underscores, dots and dashes separate)."""
        if not s or not self.enabled:
            return s or ""
        for real, alias in sorted({**self.vms, **self.hosts, **self.devices}.items(), key=lambda kv: -len(kv[0])):
            if len(real) >= 2:
                s = re.sub(rf"(?<![A-Za-z0-9]){re.escape(real)}(?![A-Za-z0-9])", alias, s)
        return s
