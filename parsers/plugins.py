"""One idiom for what a capability contributes: a named registry, filled where each contribution is defined.

Every open set of contributions is a :class:`Registry` -- the formats (:mod:`parsers.registry`), the run kinds
(:mod:`parsers.kinds`), the question kinds (:mod:`app.analysis.question_kinds`), the report's section builders
and question evidence builders (:mod:`reports.builders`), the window's view tabs (:mod:`app.ui.views`). A
contribution is added where it is defined, by a call or a decorator at import, under a key unique in its
registry; nothing else lists it. The order a registry gives is declared (``order``, then the key), never the
order in which modules happened to be imported.

A registry filled by importing the modules of a package names a *loader* (:func:`package_loader`): it runs once,
before the first question the registry is asked (lookups made while it runs -- a format checking its kind while
it registers -- see what is registered so far).

A leaf module: it imports nothing of the project, so that parsers, app and reports all use it.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class _Entry(Generic[T]):
    key: str
    item: T
    order: float


class Registry(Generic[T]):
    """Contributions of one sort, by key. ``what`` names the sort in errors ("format", "report section");
    ``load`` fills the registry (once, before the first lookup); ``check(key, item)`` validates a contribution
    and raises ValueError to refuse it."""

    def __init__(self, what: str, *, load: Callable[[], None] | None = None,
                 check: Callable[[str, T], None] | None = None):
        self.what = what
        self._load = load
        self._check = check
        self._entries: dict[str, _Entry[T]] = {}
        self._lock = threading.RLock()  # an import job's thread and the window may ask at the same time
        self._loading = False
        self._loaded = load is None

    # ---- filling ----------------------------------------------------------------------------------------------
    def add(self, key: str, item: T, *, order: float = 0.0, replace: bool = False) -> T:
        """Register ``item`` under ``key``. The same key again replaces an equal declaration (a module imported
        twice) or, with ``replace``, any; a different one is a programming error (two contributions claim the
        key)."""
        if not key:
            raise ValueError(f"a {self.what} needs a non-empty key, not {key!r}")
        if self._check is not None:
            self._check(key, item)
        with self._lock:
            old = self._entries.get(key)
            if old is not None and not replace and not _same(old.item, item):
                raise ValueError(f"{self.what} {key!r} is registered twice, differently: {old.item!r} and {item!r}")
            self._entries[key] = _Entry(key, item, float(order))
        return item

    def register(self, key: str, *, order: float = 0.0) -> Callable[[T], T]:
        """``add`` as a decorator: ``@SECTIONS.register("overlay", order=20)``."""
        def deco(item: T) -> T:
            return self.add(key, item, order=order)
        return deco

    def remove(self, key: str) -> None:
        """Forget a contribution (tests that declare a throwaway one)."""
        with self._lock:
            self._entries.pop(key, None)

    def reload(self) -> None:
        """Run the loader again before the next lookup (a test that added a module to the package)."""
        with self._lock:
            self._loaded = self._load is None

    # ---- asking -----------------------------------------------------------------------------------------------
    def ensure_loaded(self) -> None:
        """Run the loader, once (another thread waits for it; a lookup from a module it imports returns at once)."""
        if self._loaded or self._load is None:
            return
        with self._lock:
            self._load_once(self._load)

    def _load_once(self, load: Callable[[], None]) -> None:
        if self._loaded or self._loading:  # loaded meanwhile, or asked by a module the loader is importing
            return
        self._loading = True
        try:
            load()
            self._loaded = True
        finally:
            self._loading = False

    def _sorted(self) -> list[_Entry[T]]:
        self.ensure_loaded()
        with self._lock:
            return sorted(self._entries.values(), key=lambda e: (e.order, e.key))

    def __contains__(self, key: object) -> bool:
        self.ensure_loaded()
        return key in self._entries

    def get(self, key: str | None) -> T | None:
        self.ensure_loaded()
        e = self._entries.get(key or "")
        return e.item if e is not None else None

    def __getitem__(self, key: str) -> T:
        self.ensure_loaded()
        e = self._entries.get(key)
        if e is None:
            known = ", ".join(self.keys()) or "none"
            raise KeyError(f"no {self.what} {key!r} (registered: {known})")
        return e.item

    def peek(self, key: str) -> T | None:
        """The contribution under ``key`` without running the loader (asked while the registry is being filled)."""
        e = self._entries.get(key)
        return e.item if e is not None else None

    def peek_all(self) -> list[T]:
        """What is registered so far, without running the loader (a contribution checked against the others)."""
        with self._lock:
            return [e.item for e in self._entries.values()]

    def keys(self) -> list[str]:
        return [e.key for e in self._sorted()]

    def values(self) -> list[T]:
        return [e.item for e in self._sorted()]

    def items(self) -> list[tuple[str, T]]:
        return [(e.key, e.item) for e in self._sorted()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        self.ensure_loaded()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._entries)} registered)"


def _same(a: object, b: object) -> bool:
    """Two declarations are the same one: equal, or made by the same definition when a module is imported a second
    time -- a function or class of the same module and name, or an instance of such a class when its class compares
    by identity (a format object). Values that compare by content (a kind, a view tab) must be equal."""
    if a == b:
        return True
    if isinstance(a, type) or (callable(a) and isinstance(getattr(a, "__qualname__", None), str)):
        return _ident(a) == _ident(b)
    return type(a).__eq__ is object.__eq__ and _ident(type(a)) == _ident(type(b))


def _ident(x: object) -> tuple[str | None, str | None]:
    """Where a function or class is defined: its module and qualified name."""
    return getattr(x, "__module__", None), getattr(x, "__qualname__", None)


def package_loader(package: str) -> Callable[[], None]:
    """A loader that imports every module of ``package`` (each registers what it contributes when imported):
    a new contribution is one new module there, and no list names it."""
    def load() -> None:
        pkg = importlib.import_module(package)
        for mod in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(f"{package}.{mod.name}")
    return load
