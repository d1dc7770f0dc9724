"""What a format's data means, declared once in the format's own module and checked where it is registered.

Every format class carries a ``semantics = Semantics(...)``: a frozen object that says what the rest of
StormScope may rely on about the runs it stores, instead of leaving it to code above the parsers to guess:

``main_table``
    the table whose rows ``runs.n_rows`` counts (every format of a kind names the same one; a format
    recognised only to be refused names none);
``layers`` / ``names``
    what each row of ``iostat_samples`` is (:mod:`parsers.layers`): the layer values it writes, each with the
    tool's rows that get it, and -- for rows it leaves without a layer -- the name rules that tell disks from
    partitions and stacked devices. Whole-disk figures (:attr:`Semantics.whole_disk`) sum the physical rows and
    fall back through the declared layers in the order of :data:`parsers.layers.LAYERS`; the workspace refuses
    at import a layer value the format did not declare (or a row without one when it declares no name rules),
    instead of summing it;
``span`` / ``stamped_at``
    what time a sample covers: the run's interval, or the time since the previous sample -- ending at the
    sample's time stamp (the analyses place a sample's figures before its stamp);
``counts``
    what its numbers are: rates per second over each sample, counts within each sample, running totals since
    the start, or one figure per job or test over the whole run;
``wording``
    the tool's own name of each stored column it fills ("r/s", "Disk Reads/sec", "DAVG/cmd");
``meta``
    every ``runs.meta`` key it writes, typed (:class:`MetaKey`), rendered into docs/schema.md; StormScope's own
    keys (:data:`STORED_BY_STORMSCOPE`) are declared here once.

:func:`parsers.registry.register` refuses a format whose declaration is missing or contradicts what it registers
(its tables, its kind's capabilities, the other formats of its kind); ``tests/parsers/test_format_contract.py``
checks every registered format against its corpus files (layers declared and used, meta keys declared and typed,
the main table, whole-disk figures that never count a device twice).

No Qt, no DuckDB: a parser-side module (it imports the schema and the layer vocabulary only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from parsers.layers import LAYERS, NAME_RULES, NameRules, Role
from parsers.schema import TABLE


class Span(StrEnum):
    """What time one sample covers."""

    INTERVAL = "interval"  # the run's interval (iostat sleeps it between reports)
    SINCE_PREVIOUS = "since_previous"  # the time since the previous sample's stamp (perfmon, esxtop, nmon)
    NONE = "none"  # not samples over time (results per job or test; a refused format)


class Stamp(StrEnum):
    """Where a sample's time stamp lies in the time it covers."""

    END = "end"  # the analyses place a sample's figures before its stamp
    START = "start"  # not read by the analyses: a format stamped at the start shifts its times by one interval


class Counts(StrEnum):
    """What a format's numbers are."""

    RATES = "rates"  # per second over each sample's span
    PER_SAMPLE = "per_sample"  # counted within each sample (fio histogram logs)
    CUMULATIVE = "cumulative"  # running totals since the start or a reset: a sample's own are the difference
    TOTALS = "totals"  # one figure per job or test over its whole run (fio JSON, DiskSpd, IOzone, Iometer ...)
    NONE = "none"  # a refused format stores nothing


COUNT_WORDS = {
    Counts.RATES: "rates per second over each sample",
    Counts.PER_SAMPLE: "counts within each sample",
    Counts.CUMULATIVE: "running totals since the start (or a reset): a sample's own counts are the difference to "
                       "the sample before (whether a run's are is decided per run and kept in `runs.meta`)",
    Counts.TOTALS: "one figure per job or test over its whole run",
    Counts.NONE: "–",
}
SPAN_WORDS = {
    Span.INTERVAL: "the run's interval, ending at the sample's time",
    Span.SINCE_PREVIOUS: "the time since the previous sample, ending at the sample's time (the first sample: the "
                         "interval, or what the file says)",
    Span.NONE: "–",
}


class MetaType(StrEnum):
    """The JSON type of a ``runs.meta`` value."""

    TEXT = "text"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    LIST = "list"
    OBJECT = "object"

    def holds(self, value: Any) -> bool:
        if self is MetaType.TEXT:
            return isinstance(value, str)
        if self is MetaType.INTEGER:
            return isinstance(value, int) and not isinstance(value, bool)
        if self is MetaType.NUMBER:
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        if self is MetaType.BOOLEAN:
            return isinstance(value, bool)
        if self is MetaType.LIST:
            return isinstance(value, list)
        return isinstance(value, dict)


@dataclass(frozen=True)
class MetaKey:
    """One ``runs.meta`` key: its name, JSON type, what it says, and whether it may be null."""

    name: str
    type: MetaType
    meaning: str
    nullable: bool = False

    def __post_init__(self) -> None:
        if not self.name or self.name.startswith("_"):
            raise ValueError(f"meta key {self.name!r}: a stored key has a name that does not start with '_'")
        if not self.meaning:
            raise ValueError(f"meta key {self.name!r}: say what it means")

    def holds(self, value: Any) -> bool:
        return (value is None and self.nullable) or self.type.holds(value)


# short names for the declarations
TEXT, INT, NUM, BOOL, LIST, OBJ = (MetaType.TEXT, MetaType.INTEGER, MetaType.NUMBER, MetaType.BOOLEAN, MetaType.LIST,
                                   MetaType.OBJECT)

# keys StormScope itself writes, whatever the format (with the capability that allows them, None: every format)
STORED_BY_STORMSCOPE: tuple[tuple[MetaKey, str | None], ...] = (
    (MetaKey("stacked_by_data", OBJ, "devices the run's own figures prove stacked on other whole disks (every report "
             "equal to their sum), left out of whole-disk figures: device -> the proof, in words"), "device_rates"),
    (MetaKey("whole_disks", LIST, "the devices the consultant chose as the run's whole disks (Whole disks… in the run "
             "menu), summed by every whole-disk figure instead of the rules' choice; absent: the rules' choice"),
     "device_rates"),
    (MetaKey("encoding", TEXT, "the file's text encoding when it is not UTF-8 (`cp1252`, `latin-1`), recorded by the "
             "import"), None),
    (MetaKey("first_report", TEXT, "how the first report was classified (since boot or an interval) and why; "
             "`… (set by the user)` once the user says"), "device_rates"),
    (MetaKey("histogram_counts", TEXT, "`cumulative` or `per-collection` as the user said (null: as detected)",
             nullable=True), "latency_histograms"),
)

# keys several formats write with one meaning: a format lists the ones it writes (``meta=(*common("utc_offset"),
# ...)``)
COMMON: dict[str, MetaKey] = {k.name: k for k in (
    MetaKey("utc_offset", TEXT, "the clock's offset from UTC as the file states it (`+01:00`)"),
    MetaKey("decimal_comma", BOOL, "numbers were written with a decimal comma (the locale's)"),
    MetaKey("human_units", BOOL, "sizes were printed with a unit and rounded to one decimal (`--human`, `-h`)"),
    MetaKey("arch", TEXT, "the machine's architecture from the banner", nullable=True),
    MetaKey("cpus", INT, "CPUs from the banner", nullable=True),
    MetaKey("banner_date", TEXT, "the date in the banner, as printed", nullable=True),
    MetaKey("segments", INT, "invocations (or host restarts) appended in one file: each starts a segment"),
    MetaKey("date_order", TEXT, "the order the dates were read in (day/month/year …) and the evidence that decided it: "
            "the file's words (its locale's date and time layout, decimal commas, summary label), a date that "
            "exists one way only, a change of date that is one interval one way and weeks the other, a file of the "
            "same host and tool in the same drop, or the user"),
    MetaKey("date_reading", OBJ, "present while the file's dates read both ways and the user has not said which: "
            "`stored` (the order they are stored in) and `others` (for each other order, every stored date -> the "
            "date it would be)"),
    MetaKey("sample_span", TEXT, "`since_previous`: a sample's rates cover the time since the previous sample (the "
            "format's declared span, kept with the run)"),
    MetaKey("command_line", TEXT, "the command line as the tool echoes it"),
    MetaKey("layout", TEXT, "which of the tool's layouts the file has"),
)}


def common(*names: str) -> tuple[MetaKey, ...]:
    """The shared declarations of these keys (:data:`COMMON`)."""
    return tuple(COMMON[n] for n in names)


@dataclass(frozen=True)
class Semantics:
    """What a format's data means (see the module doc). ``layers``: layer value -> the tool's rows that get it;
    ``wording``: stored column -> the tool's name of it."""

    main_table: str | None
    span: Span
    counts: Counts
    layers: Mapping[str, str] = field(default_factory=dict)
    names: NameRules | None = None
    stamped_at: Stamp = Stamp.END
    wording: Mapping[str, str] = field(default_factory=dict)
    meta: tuple[MetaKey, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "layers", MappingProxyType(dict(self.layers)))  # frozen all the way down
        object.__setattr__(self, "wording", MappingProxyType(dict(self.wording)))
        object.__setattr__(self, "meta", tuple(self.meta))
        unknown = [la for la in self.layers if la not in LAYERS]
        if unknown:
            raise ValueError(f"unknown layers {unknown} (known: {', '.join(LAYERS)})")
        if any(not rows for rows in self.layers.values()):
            raise ValueError("say which of the tool's rows get each layer")
        if self.names is not None and NAME_RULES.get(self.names.id) is not self.names:
            raise ValueError(f"name rules {self.names.id!r} are not ones the analyses apply "
                             f"({', '.join(NAME_RULES)}): a new rule set is a change to parsers.layers")
        if self.stamped_at is not Stamp.END and self.span is not Span.NONE:
            raise ValueError("the analyses place a sample's figures before its time stamp: shift a format's times "
                             "stamped at the start of their interval by one interval when parsing, and declare END")
        names = [k.name for k in self.meta]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"meta keys declared twice: {twice}")
        ours = {k.name for k, _cap in STORED_BY_STORMSCOPE} & set(names)
        if ours:
            raise ValueError(f"meta keys {sorted(ours)} are StormScope's own (declared once, in parsers.semantics)")

    # ---- what follows from the declaration ----------------------------------------------------------------------
    @property
    def whole_disk(self) -> tuple[str, ...]:
        """The layers whole-disk figures sum, the first a run has: the declared layers in the order of
        :data:`parsers.layers.LAYERS` (a row without a layer, in a run whose other rows have one, counts as a
        physical disk)."""
        return tuple(la for la in LAYERS if la in self.layers)

    @property
    def meta_keys(self) -> dict[str, MetaKey]:
        return {k.name: k for k in self.meta}

    def allowed_layers(self) -> set[str | None]:
        """The values of ``iostat_samples.layer`` its rows may have (None: a row classified by its name)."""
        return {*self.layers, *((None,) if self.names is not None else ())}

    def undeclared_layers(self, found: Iterable[str | None]) -> list[str | None]:
        allowed = self.allowed_layers()
        return sorted((la for la in set(found) if la not in allowed), key=lambda x: (x is None, x or ""))

    def meta_problems(self, meta: Mapping[str, Any], capabilities: Iterable[str]) -> list[str]:
        """What is wrong with a run's stored ``meta`` against this declaration (nothing: an empty list)."""
        caps = set(capabilities)
        keys = {**self.meta_keys, **{k.name: k for k, cap in STORED_BY_STORMSCOPE if cap is None or cap in caps}}
        out = []
        for name, value in meta.items():
            k = keys.get(name)
            if k is None:
                out.append(f"meta key {name!r} is not declared")
            elif not k.holds(value):
                out.append(f"meta key {name!r} holds {type(value).__name__} {str(value)[:40]!r}, declared "
                           f"{k.type.value}{' or null' if k.nullable else ''}")
        return out

    def check_against(self, fmt_id: str, tables: tuple[str, ...], capabilities: Iterable[str]) -> None:
        """Raise ValueError where the declaration contradicts what the format registers: its tables and its kind's
        capabilities (see :func:`parsers.registry.register`)."""
        caps = set(capabilities)
        where = f"format {fmt_id}"
        if not tables:
            if self.main_table is not None or self.layers or self.names or self.meta or self.wording:
                raise ValueError(f"{where} stores nothing (it is refused): its semantics declare nothing "
                                 "(parsers.semantics.REFUSED)")
            return
        if self.main_table not in tables:
            raise ValueError(f"{where}: its main table {self.main_table!r} is not among the tables it writes "
                             f"({', '.join(tables)})")
        rates = "iostat_samples" in tables
        if rates and "device_rates" not in caps:
            raise ValueError(f"{where} writes iostat_samples: its kind needs the device_rates capability")
        if rates and not self.layers and self.names is None:
            raise ValueError(f"{where} writes iostat_samples but declares neither the layers of its rows nor the "
                             "name rules that classify them: whole-disk figures would sum every row (a volume and "
                             "its disks, a pool and its devices) and count the same I/O more than once")
        if not rates and (self.layers or self.names is not None):
            raise ValueError(f"{where} declares device layers but writes no iostat_samples")
        if ("time_series" in caps) != (self.span is not Span.NONE):
            raise ValueError(f"{where}: span {self.span.value} does not fit its kind "
                             f"({'a' if 'time_series' in caps else 'no'} time series)")
        if self.counts is Counts.NONE:
            raise ValueError(f"{where} stores data: say what its numbers are (counts)")
        columns = {c for t in tables for c in TABLE[t].column_names}
        stray = sorted(set(self.wording) - columns)
        if stray:
            raise ValueError(f"{where}: wording of columns it does not write: {stray}")


# a format recognised only to be refused (it stores nothing)
REFUSED = Semantics(main_table=None, span=Span.NONE, counts=Counts.NONE)


def role_of(layer: str) -> Role:
    return LAYERS[layer].role
