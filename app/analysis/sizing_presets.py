"""Editable presets for VDI sizing: RAID write penalties, disk types, user profiles, storm multipliers.

Every entry names its source. Edit the values here, or pass a JSON file with the same layout to
``load_presets`` (``main.py size --presets FILE``): its entries replace or add to these, key by key, e.g.

    {"disk_types": {"sas10k": {"iops": 140}}, "user_profiles": {"callcenter": {"iops_per_user": 6,
     "read_pct": 25, "source": "our 2024 login-storm measurement"}}}

Sources (the texts below are shown to customers in the window and the PDF: no file names)
    DOMAIN  StormScope's sizing defaults for VDI (the write penalties of RAID levels and typical IOPS per disk type).
    ETRI    J. Park et al., "Storage Sizing Issue of VDI System" (ETRI), which
            cites VMware "Storage Considerations for VMware Horizon View 5.2" for 8-25 IOPS per office
            user and 3-7 to 20-30 IOPS in steady state, PQR "VDI & Storage: Deep Impact" (2011) for
            > 80 % small random writes, and J. McLeod et al., "5,000-Seat VMware View Deployment"
            (NetApp, 2011) for storms of 4-6x steady state, 10x in the worst case.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

DOMAIN = "StormScope's sizing defaults (VDI)"
ETRI = "J. Park et al., 'Storage Sizing Issue of VDI System' (ETRI)"

# write penalty: back-end I/Os per front-end write. Usable share of raw capacity: mirrors 1/2,
# parity RAID (group - parity) / group with the group size given here (editable).
RAID: dict[str, dict[str, Any]] = {
    "0": {"label": "RAID 0", "write_penalty": 1, "mirror": False, "parity_disks": 0, "group": 1, "source": DOMAIN},
    "1": {"label": "RAID 1", "write_penalty": 2, "mirror": True, "parity_disks": 0, "group": 2, "source": DOMAIN},
    "10": {"label": "RAID 10", "write_penalty": 2, "mirror": True, "parity_disks": 0, "group": 2, "source": DOMAIN},
    "5": {"label": "RAID 5 (4+1)", "write_penalty": 4, "mirror": False, "parity_disks": 1, "group": 5,
          "source": DOMAIN},
    "6": {"label": "RAID 6 (6+2)", "write_penalty": 6, "mirror": False, "parity_disks": 2, "group": 8,
          "source": DOMAIN},
    "50": {"label": "RAID 50 (groups of 4+1)", "write_penalty": 4, "mirror": False, "parity_disks": 1, "group": 5,
           "source": DOMAIN + ": as RAID 5"},
    "60": {"label": "RAID 60 (groups of 6+2)", "write_penalty": 6, "mirror": False, "parity_disks": 2, "group": 8,
           "source": DOMAIN + ": as RAID 6"},
    "dp": {"label": "RAID-DP (14+2)", "write_penalty": 2, "mirror": False, "parity_disks": 2, "group": 16,
           "source": DOMAIN + " (NetApp RAID-DP; WAFL writes full stripes)"},
}

# per-disk IOPS: the value used, and the range quoted
DISK_TYPES: dict[str, dict[str, Any]] = {
    "sata5k": {"label": "5,400 rpm", "iops": 50, "range": "50", "source": DOMAIN},
    "sata7k": {"label": "7,200 rpm SATA / NL-SAS", "iops": 75, "range": "75-80",
               "source": DOMAIN + "; " + ETRI + " uses 75 for a 7,200 rpm SATA2 disk"},
    "sas10k": {"label": "10,000 rpm SAS", "iops": 125, "range": "125-140", "source": DOMAIN},
    "sas15k": {"label": "15,000 rpm SAS", "iops": 175, "range": "175-210", "source": DOMAIN},
    "ssd": {"label": "SATA SSD", "iops": 5000, "range": "thousands",
            "source": DOMAIN + " ('SATA SSD thousands'; 5,000 is a conservative pick: measure your model)"},
    "nvme": {"label": "NVMe SSD", "iops": 100000, "range": "100k+",
             "source": DOMAIN + " ('NVMe 100k+'; measure your model)"},
}

USER_PROFILES: dict[str, dict[str, Any]] = {
    "office-8": {"iops_per_user": 8, "read_pct": 40,
                 "source": ETRI + ": office user 8-25 IOPS (after VMware Horizon View 5.2), R:W 4:6"},
    "office-25": {"iops_per_user": 25, "read_pct": 40,
                  "source": ETRI + ": office user 8-25 IOPS (after VMware Horizon View 5.2), R:W 4:6"},
    "steady-light": {"iops_per_user": 5, "read_pct": 20,
                     "source": ETRI + ": steady state 3-7 IOPS per VM; PQR: > 80 % of VM I/O are small writes"},
    "steady-heavy": {"iops_per_user": 25, "read_pct": 20,
                     "source": ETRI + ": steady state 20-30 IOPS per VM; PQR: > 80 % of VM I/O are small writes"},
    "worst-case": {"iops_per_user": 50, "read_pct": 20,
                   "source": ETRI + ": '50 IOPS is enough even in the worst case'"},
}

STORM_MULTIPLIERS: dict[str, dict[str, Any]] = {
    "none": {"multiplier": 1.0, "source": "steady state only"},
    "login-storm": {"multiplier": 5.0, "range": "4-6", "source": ETRI + " after NetApp (McLeod et al. 2011)"},
    "worst-storm": {"multiplier": 10.0, "source": ETRI + " after NetApp (McLeod et al. 2011): 'the worst case'"},
    "domain-low": {"multiplier": 1.5, "source": DOMAIN + ": login/boot storms 1.5x to 12x"},
    "domain-high": {"multiplier": 12.0, "source": DOMAIN + ": login/boot storms 1.5x to 12x"},
}

DEFAULTS: dict[str, Any] = {
    "read_pct": 40, "read_pct_source": ETRI + " (R:W 4:6)",
    "raid": "10", "disk_type": "sata7k", "response_goal_pct": 80.0, "response_threshold_ms": 50.0,
    "response_source": ETRI + ": response within 50 ms for at least 80 % of I/O",
}

SECTIONS = ("raid", "disk_types", "user_profiles", "storm_multipliers", "defaults")


def default_presets() -> dict[str, Any]:
    return copy.deepcopy({"raid": RAID, "disk_types": DISK_TYPES, "user_profiles": USER_PROFILES,
                          "storm_multipliers": STORM_MULTIPLIERS, "defaults": DEFAULTS})


def load_presets(path: str | Path | None = None) -> dict[str, Any]:
    """The presets, with a user JSON file (same layout) merged over them key by key."""
    presets = default_presets()
    if path is None:
        return presets
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a JSON object with sections {', '.join(SECTIONS)} expected")
    for section, entries in data.items():
        if section not in SECTIONS:
            raise ValueError(f"{path}: unknown section {section!r} (known: {', '.join(SECTIONS)})")
        if not isinstance(entries, dict):
            raise ValueError(f"{path}: section {section!r} must be an object")
        target = presets[section]
        for key, value in entries.items():
            if isinstance(value, dict) and isinstance(target.get(key), dict):
                target[key].update(value)
            else:
                target[key] = value
    return presets
