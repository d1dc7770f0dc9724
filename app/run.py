"""A run as the workspace returns it: a frozen :class:`Run` with one typed attribute per column of ``runs``
(``parsers.schema``) and its ``meta`` as a :class:`RunMeta` read through the keys the formats declare
(``parsers.semantics.MetaKey``), instead of a ``dict[str, Any]`` read by string keys.

``RunMeta`` reads a declared key by its declared type (``meta.text("utc_offset")``, ``meta.obj("job_times")``):
asking for a key by a type it is not declared with is a programming error (``TypeError``, caught by the tests);
a stored value of another type than declared -- a workspace written by an older or newer StormScope -- reads as
missing (None), never as a guess and never as a crash. A key no format declares (a newer release's) stays
readable through :meth:`RunMeta.raw` and :meth:`RunMeta.as_dict`.

No Qt, no DuckDB: the workspace builds a ``Run`` from a row (:meth:`Run.from_row`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from functools import cache
from types import MappingProxyType

from parsers.semantics import STORED_BY_STORMSCOPE, MetaType


@cache
def declared_meta() -> Mapping[str, frozenset[MetaType]]:
    """Every ``runs.meta`` key a registered format (or StormScope itself) declares -> the types it is declared
    with (a key two formats declare differently has both)."""
    from parsers.registry import formats

    out: dict[str, set[MetaType]] = {}
    for k, _cap in STORED_BY_STORMSCOPE:
        out.setdefault(k.name, set()).add(k.type)
    for f in formats():
        for k in f.semantics.meta:
            out.setdefault(k.name, set()).add(k.type)
    return MappingProxyType({k: frozenset(v) for k, v in out.items()})


@dataclass(frozen=True)
class RunMeta:
    """A run's ``meta`` (see the module doc). Missing is None (or an empty list / object), never zero."""

    values: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    @classmethod
    def parse(cls, stored: object) -> RunMeta:
        """From the stored JSON (text, as DuckDB returns it, or already a dict); NULL or not an object: empty."""
        if isinstance(stored, str):
            try:
                stored = json.loads(stored)
            except json.JSONDecodeError:
                stored = None
        return cls(stored if isinstance(stored, dict) else {})

    def _typed(self, key: str, t: MetaType) -> object:
        declared = declared_meta().get(key)
        if declared is None:
            raise TypeError(f"runs.meta key {key!r} is declared by no format (read it with raw())")
        if t not in declared:
            raise TypeError(f"runs.meta key {key!r} is declared {'/'.join(sorted(declared))}, not {t}")
        v = self.values.get(key)
        return v if v is not None and t.holds(v) else None

    def text(self, key: str) -> str | None:
        v = self._typed(key, MetaType.TEXT)
        return v if isinstance(v, str) else None

    def integer(self, key: str) -> int | None:
        v = self._typed(key, MetaType.INTEGER)
        return v if isinstance(v, int) else None

    def number(self, key: str) -> float | None:
        v = self._typed(key, MetaType.NUMBER)
        return float(v) if isinstance(v, (int, float)) else None

    def flag(self, key: str) -> bool | None:
        v = self._typed(key, MetaType.BOOLEAN)
        return v if isinstance(v, bool) else None

    def items(self, key: str) -> list[object]:
        """A list value ([] when missing)."""
        v = self._typed(key, MetaType.LIST)
        return list(v) if isinstance(v, list) else []

    def obj(self, key: str) -> dict[str, object]:
        """An object value ({} when missing)."""
        v = self._typed(key, MetaType.OBJECT)
        return dict(v) if isinstance(v, dict) else {}

    def has(self, key: str) -> bool:
        return self.values.get(key) is not None

    def raw(self, key: str) -> object:
        """The stored value as it is, declared or not (a newer release's key; a key declared with two types)."""
        return self.values.get(key)

    def unknown(self) -> list[str]:
        """Keys no format declares (written by another release)."""
        return sorted(k for k in self.values if k not in declared_meta())

    def as_dict(self) -> dict[str, object]:
        return dict(self.values)

    def json(self) -> str:
        """As JSON text (what is stored)."""
        return json.dumps(dict(self.values))

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __bool__(self) -> bool:
        return bool(self.values)


_FIELD_NAMES: dict[type, frozenset[str]] = {}  # a Run class -> its fields' names (Run.from_row)


@dataclass(frozen=True)
class Run:
    """One row of ``runs`` (see docs/schema.md for what each column says), plus the run's clock offset (the seconds
    added to its clock to put it on the common clock; None: its own clock, see :mod:`app.store.clock`)."""

    run_id: int
    name: str
    kind: str
    format: str
    source_path: str
    source_sha256: str
    imported_at: datetime | None = None
    source_size: int | None = None
    host: str | None = None
    os: str | None = None
    tool_version: str | None = None
    file_date: date | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    interval_s: float | None = None
    interval_source: str | None = None
    n_samples: int | None = None
    n_devices: int | None = None
    n_rows: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    meta: RunMeta = field(default_factory=RunMeta)
    warnings: tuple[str, ...] = ()
    clock_offset_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", MappingProxyType(dict(self.tags)))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    @classmethod
    def from_row(cls, row: Mapping[str, object]) -> Run:
        """From a row of ``runs`` (column -> value, as DuckDB returns them); a column this release does not know
        (a newer workspace's) is left out, one it knows but the workspace lacks is None."""
        known = _FIELD_NAMES.get(cls)
        if known is None:  # asked once per class: fields() per row was a fifth of reading 5,000 runs
            known = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cls))
        kw = {k: v for k, v in row.items() if k in known}
        tags = kw.get("tags")
        if isinstance(tags, str):  # a workspace that stored them as JSON text
            tags = json.loads(tags)
        kw["tags"] = {str(k): str(v) for k, v in tags.items()} if isinstance(tags, Mapping) else {}
        kw["meta"] = RunMeta.parse(kw.get("meta"))
        w = kw.get("warnings")
        kw["warnings"] = tuple(str(x) for x in w) if isinstance(w, (list, tuple)) else ()
        for k in ("interval_s", "clock_offset_s"):
            v = kw.get(k)
            kw[k] = float(v) if isinstance(v, (int, float)) else None
        return cls(**kw)  # type: ignore[arg-type]  # the columns' types are DuckDB's, as declared above

    def tag_number(self, key: str) -> float | None:
        """A tag read as a number (None: not there, or not a number)."""
        v = self.tags.get(key)
        try:
            return None if v is None else float(v)
        except ValueError:
            return None

    def as_dict(self) -> dict[str, object]:
        """Column -> value (``meta`` as a dict), for JSON output."""
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["tags"], out["meta"], out["warnings"] = dict(self.tags), self.meta.as_dict(), list(self.warnings)
        return out
