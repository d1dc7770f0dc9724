"""Run kinds and what they can do: the one place the window, the command line, the analyses and the report ask.

A *kind* is what ``runs.kind`` stores ("iostat", "vscsistats", "fio" ...). Each format module declares its kind
once with :func:`register_kind` (its id, the name customers read, its capabilities); the code above the parsers
never compares kind strings, it asks

* :func:`kind_label` — the name as customers read it ("vscsiStats", "IOzone"),
* :func:`has` — whether runs of a kind offer a capability,
* :func:`kinds_with` — the kinds that offer one (for SQL filters and run pickers).

The capabilities are the distinctions the code actually branches on:

``time_series``
    samples at an interval (iostat reports, vscsiStats collections): the I/O-over-time overlay, an interval the
    user can set when the file has no time stamps, "Reports" counted in the report's run table.
``device_rates``
    per-device rates per interval in ``iostat_samples`` (r/s, w/s, kB/s, await, %util, and a first report that
    may cover the time since boot): storm metrics, cap compliance, sizing, the A/B comparison, the device
    picker and the fio cross-check's device side.
``latency_histograms``
    latency histograms (``histograms`` / ``histogram_stats``): the Histograms view, the share within a
    response-time threshold, the report's response-time section. With ``time_series`` too, the histograms are
    collected over time (heatmaps, the per-VM timeline, cumulative or per-collection counts).
``job_summary``
    the tool's own totals per job (``fio_jobs``): compared as run-level figures, and the workload side of the
    fio-against-iostat cross-check.
``throughput_grid``
    throughput per file size × record size (``iozone_results``): the IOzone view, its report section and its
    row-by-row comparison.
``host_latency``
    a hypervisor's split of the time per command (``davg_ms``, ``kavg_ms``, ``qavg_ms`` in ``iostat_samples``)
    and its VMs' virtual disks (``layer = 'vm_disk'``): the GAVG/DAVG/KAVG and per-VM overlay metrics, the
    "where does the latency come from" and "which VM drives the load" questions (esxtop).

No Qt, no DuckDB: parsers, app and reports all import this module. The formats register themselves when
their modules are imported; :data:`KINDS` (a :class:`parsers.plugins.Registry`) imports the parsers package
before its first answer. What a kind's formats declare (their main table, the tables with per-sample times) is
asked of :mod:`parsers.registry`, which imports this module (never the other way round).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from parsers.plugins import Registry, package_loader

TIME_SERIES = "time_series"
DEVICE_RATES = "device_rates"
LATENCY_HISTOGRAMS = "latency_histograms"
JOB_SUMMARY = "job_summary"
THROUGHPUT_GRID = "throughput_grid"
HOST_LATENCY = "host_latency"
CAPABILITIES = (TIME_SERIES, DEVICE_RATES, LATENCY_HISTOGRAMS, JOB_SUMMARY, THROUGHPUT_GRID, HOST_LATENCY)

# Kind ids named where a branch is about ONE tool's own semantics (and said so in a comment there); everything
# else asks for a capability.
IOSTAT = "iostat"  # the default kind of an overlay curve (parsers.iostat, parsers.iostat_json declare it)
VSCSISTATS = "vscsistats"  # an overlay curve read from vscsiStats collections (parsers.vscsistats declares it)
IOMARK = "iomark"  # the kind a saved column mapping reads into, and a sizing basis (parsers.iomark declares it)
FIO = "fio"  # fio's own latency semantics (json+ clat bins, submission + completion lat; parsers.fio declares it)


@dataclass(frozen=True)
class Kind:
    """One run kind: ``id`` as stored in ``runs.kind``, ``label`` as customers read it, ``capabilities`` from
    :data:`CAPABILITIES`, ``series`` what one series of its histograms is called (singular, plural)."""

    id: str
    label: str
    capabilities: frozenset[str] = field(default_factory=frozenset)
    series: tuple[str, str] = ("series", "series")

    def __post_init__(self) -> None:
        unknown = set(self.capabilities) - set(CAPABILITIES)
        if unknown:
            raise ValueError(f"kind {self.id}: unknown capabilities {sorted(unknown)} "
                             f"(known: {', '.join(CAPABILITIES)})")


# every declared kind, by id; filled by the format modules when the parsers package is imported
KINDS: Registry[Kind] = Registry("run kind", load=package_loader("parsers"))


def register_kind(kind_id: str, label: str, capabilities: Iterable[str] = (),
                  series: tuple[str, str] = ("series", "series")) -> Kind:
    """Declare a run kind (once, in the format module that stores runs of it). Declaring the same kind again
    with the same label and capabilities is harmless; a different declaration is a programming error."""
    return KINDS.add(kind_id, Kind(kind_id, label, frozenset(capabilities), series))


def unregister_kind(kind_id: str) -> None:
    """Forget a kind (tests that declare a throwaway format)."""
    KINDS.remove(kind_id)


def is_declared(kind_id: str) -> bool:
    """Whether the kind is declared (without discovering the formats: the registry asks while they register)."""
    return KINDS.peek(kind_id) is not None


def kinds() -> list[Kind]:
    """Every declared kind, by id."""
    return KINDS.values()


def get(kind_id: str | None) -> Kind | None:
    return KINDS.get(kind_id)


def kind_label(kind_id: str | None) -> str:
    """The name customers read ("vscsiStats", "IOzone"); an unknown kind is shown as stored."""
    k = get(kind_id)
    return k.label if k is not None else (kind_id or "")


def has(kind_id: str | None, capability: str) -> bool:
    """Whether runs of ``kind_id`` offer ``capability`` (False for an unknown kind)."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r} (known: {', '.join(CAPABILITIES)})")
    k = get(kind_id)
    return k is not None and capability in k.capabilities


def kinds_with(capability: str) -> tuple[str, ...]:
    """The ids of the kinds offering ``capability``, by id."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r} (known: {', '.join(CAPABILITIES)})")
    return tuple(k.id for k in kinds() if capability in k.capabilities)


def series_noun(kind_id: str | None, plural: bool = False) -> str:
    """What one histogram series of this kind is called on screen ("VM disk", "fio job")."""
    k = get(kind_id)
    return (k.series if k is not None else ("series", "series"))[plural]
