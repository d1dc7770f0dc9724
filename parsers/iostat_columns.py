"""iostat column names (text headers and JSON keys) mapped to the canonical schema.

Every sysstat release since 9.x names its columns differently; this table is
the one place that knows them. Values are (canonical column, factor to the
canonical unit). Canonical units: requests/s, kB/s with kB = 1024 bytes,
milliseconds, kB per request, percent.
"""

from __future__ import annotations

SECTOR_KB = 0.5  # 512-byte sectors / blocks
MB_KB = 1024.0
GB_KB = 1024.0 * 1024.0

# canonical columns of iostat_samples, in table order (after run_id .. since_boot)
METRICS: list[str] = [
    "r_s", "w_s", "d_s", "f_s", "tps",
    "rkb_s", "wkb_s", "dkb_s",
    "rrqm_s", "wrqm_s",
    "r_await_ms", "w_await_ms", "d_await_ms", "f_await_ms", "await_ms",
    "aqu_sz", "rareq_kb", "wareq_kb", "svctm_ms", "util_pct",
    # additional columns some layouts carry (documented in docs/user-guide.md)
    "drqm_s", "rrqm_pct", "wrqm_pct", "drqm_pct", "dareq_kb",
    "kb_s", "wdkb_s", "rqm_s", "areq_kb",
    "rkb", "wkb", "dkb", "wdkb",
]

# size-like columns: values printed with --human suffixes are bytes-based
KB_COLUMNS = {
    "rkb_s", "wkb_s", "dkb_s", "kb_s", "wdkb_s", "rareq_kb", "wareq_kb", "dareq_kb", "areq_kb",
    "rkb", "wkb", "dkb", "wdkb",
}

_UNITS = {"kB": 1.0, "MB": MB_KB, "GB": GB_KB, "Blk": SECTOR_KB}

COLUMNS: dict[str, tuple[str, float]] = {
    "r/s": ("r_s", 1.0), "w/s": ("w_s", 1.0), "d/s": ("d_s", 1.0), "f/s": ("f_s", 1.0),
    "tps": ("tps", 1.0),
    "rkB/s": ("rkb_s", 1.0), "wkB/s": ("wkb_s", 1.0), "dkB/s": ("dkb_s", 1.0),
    "rMB/s": ("rkb_s", MB_KB), "wMB/s": ("wkb_s", MB_KB), "dMB/s": ("dkb_s", MB_KB),
    "rsec/s": ("rkb_s", SECTOR_KB), "wsec/s": ("wkb_s", SECTOR_KB), "dsec/s": ("dkb_s", SECTOR_KB),
    "rrqm/s": ("rrqm_s", 1.0), "wrqm/s": ("wrqm_s", 1.0), "drqm/s": ("drqm_s", 1.0),
    "%rrqm": ("rrqm_pct", 1.0), "%wrqm": ("wrqm_pct", 1.0), "%drqm": ("drqm_pct", 1.0),
    "r_await": ("r_await_ms", 1.0), "w_await": ("w_await_ms", 1.0),
    "d_await": ("d_await_ms", 1.0), "f_await": ("f_await_ms", 1.0), "await": ("await_ms", 1.0),
    "aqu-sz": ("aqu_sz", 1.0), "avgqu-sz": ("aqu_sz", 1.0),
    "rareq-sz": ("rareq_kb", 1.0), "wareq-sz": ("wareq_kb", 1.0), "dareq-sz": ("dareq_kb", 1.0),
    "areq-sz": ("areq_kb", 1.0), "avgrq-sz": ("areq_kb", SECTOR_KB),
    "svctm": ("svctm_ms", 1.0), "%util": ("util_pct", 1.0),
    "kB/s": ("kb_s", 1.0), "MB/s": ("kb_s", MB_KB), "rqm/s": ("rqm_s", 1.0),
}
for _u, _f in _UNITS.items():
    COLUMNS[f"{_u}_read/s"] = ("rkb_s", _f)
    COLUMNS[f"{_u}_wrtn/s"] = ("wkb_s", _f)
    COLUMNS[f"{_u}_dscd/s"] = ("dkb_s", _f)
    COLUMNS[f"{_u}_w+d/s"] = ("wdkb_s", _f)
    COLUMNS[f"{_u}_read"] = ("rkb", _f)
    COLUMNS[f"{_u}_wrtn"] = ("wkb", _f)
    COLUMNS[f"{_u}_dscd"] = ("dkb", _f)
    COLUMNS[f"{_u}_w+d"] = ("wdkb", _f)

# sysstat -o JSON names a few keys differently from the text headers
JSON_COLUMNS: dict[str, tuple[str, float]] = dict(COLUMNS)
JSON_COLUMNS.update({
    "rrqm": ("rrqm_pct", 1.0), "wrqm": ("wrqm_pct", 1.0), "drqm": ("drqm_pct", 1.0),
    "util": ("util_pct", 1.0),
})

CPU_COLUMNS = {
    "%user": "user", "%nice": "nice", "%system": "system", "%iowait": "iowait",
    "%steal": "steal", "%idle": "idle",
}


def layout_family(canonical: set[str], header: list[str]) -> str:
    """Which sysstat releases print this column set (for runs.tool_version)."""
    if "f_s" in canonical or "f_await_ms" in canonical:
        return "sysstat 12.3+ (from the columns)"
    if "d_s" in canonical or "dareq_kb" in canonical:
        return "sysstat 12.1-12.2 (from the columns)"
    if "kb_s" in canonical or "rqm_s" in canonical or "wdkb_s" in canonical:
        return "sysstat 12.x (from the columns)"
    if "rareq_kb" in canonical:
        return "sysstat 11.5-12.0 (from the columns)"
    if "aqu_sz" in canonical or "svctm_ms" in canonical:
        return "sysstat 9.x-11.4 (from the columns)"
    if any(h.endswith("_dscd/s") for h in header):
        return "sysstat 12.1+ (from the columns)"
    return "sysstat (version not shown in the file)"
