"""The format registry: picks a parser from a file's content, never its name.

Each format offers ``sniff(head) -> likelihood``; the best score wins, ties go
to the higher priority. A score under ``MIN_SCORE`` means "not a supported
format".

The formats are not listed here: each module of the ``parsers`` package that reads a format declares its run
kind (:func:`parsers.kinds.register_kind`) and calls :func:`register` for each of its formats when it is
imported; :data:`FORMATS` (a :class:`parsers.plugins.Registry`) imports the package's modules before its first
answer. docs/adding-a-format.md is the recipe.
"""

from __future__ import annotations

from parsers.base import Format
from parsers.kinds import KINDS
from parsers.plugins import Registry, package_loader
from parsers.schema import TABLE
from parsers.semantics import Semantics

HEAD_BYTES = 4096
MIN_SCORE = 0.5


def _check(fmt_id: str, fmt: Format) -> None:
    """A format joins the registry only when its kind is declared (:func:`parsers.kinds.register_kind`), the
    tables it writes are in :mod:`parsers.schema`, its priority is its own (a tie between two sniff scores is then
    always broken the same way), and it declares what its data means (:class:`parsers.semantics.Semantics`),
    consistently with its tables, its kind's capabilities and the other formats of its kind."""
    if fmt_id != fmt.id:
        raise ValueError(f"format {fmt.id} registered under another id, {fmt_id!r}")
    kind = KINDS.peek(fmt.kind)
    if kind is None:
        raise ValueError(f"format {fmt.id}: its kind {fmt.kind!r} is not declared (parsers.kinds.register_kind)")
    unknown = [t for t in fmt.tables if t not in TABLE]
    if unknown:
        raise ValueError(f"format {fmt.id}: tables {unknown} are not in parsers.schema")
    if type(fmt.priority) is not int:
        raise ValueError(f"format {fmt.id}: its priority must be a whole number, not {fmt.priority!r}")
    taken = [f.id for f in FORMATS.peek_all() if f.priority == fmt.priority and f.id != fmt.id]
    if taken:
        raise ValueError(f"format {fmt.id}: priority {fmt.priority} is already {taken[0]}'s; each format has its own, "
                         "so that a tie between equal sniff scores is always broken the same way")
    sem = getattr(fmt, "semantics", None)
    if not isinstance(sem, Semantics):
        raise ValueError(f"format {fmt.id} does not declare what its data means: give its class "
                         "`semantics = Semantics(...)` (parsers.semantics; REFUSED for a format it only recognises)")
    sem.check_against(fmt.id, tuple(fmt.tables), kind.capabilities)
    others = {f.semantics.main_table for f in FORMATS.peek_all()
              if f.kind == fmt.kind and f.id != fmt.id and f.semantics.main_table is not None}
    if sem.main_table is not None and others - {sem.main_table}:
        raise ValueError(f"format {fmt.id}: its main table {sem.main_table} differs from the one the other formats "
                         f"of kind {fmt.kind} declare ({', '.join(sorted(others))}): runs.n_rows counts one per kind")


# every registered format, by id; filled by the format modules when the parsers package is imported
FORMATS: Registry[Format] = Registry("format", load=package_loader("parsers"), check=_check)


def register(fmt: Format) -> Format:
    """Add a format to the registry (each format module calls this at import for each of its formats); see
    :func:`_check` for what it must declare. Registering the same id again replaces the format (a module
    imported twice)."""
    return FORMATS.add(fmt.id, fmt, replace=True)


def unregister(fmt_id: str) -> None:
    """Forget a format (tests that declare a throwaway format)."""
    FORMATS.remove(fmt_id)


def discover() -> None:
    """Import every module of the ``parsers`` package once: the format modules register themselves. A new
    format is one new module there; nothing else lists it."""
    FORMATS.ensure_loaded()


def formats() -> list[Format]:
    """Every registered format (the refused ones too: recognised to be refused with a clear message; the
    mapped CSV is chosen by ``import --mapping NAME``, its sniffer never claims a file), by id."""
    return FORMATS.values()


def main_table(kind_id: str | None) -> str | None:
    """The table whose rows ``runs.n_rows`` counts for runs of ``kind_id``, as its formats declare (None: a kind no
    registered format stores)."""
    found = [f.semantics.main_table for f in formats() if f.kind == kind_id and f.semantics.main_table]
    return found[0] if found else None


def timed_tables(kind_id: str) -> tuple[str, ...]:
    """The tables the kind's formats write whose rows carry per-sample times (``t_s``): what an interval given
    after the import rewrites."""
    out: list[str] = []
    for f in formats():
        if f.kind == kind_id:
            out += [t for t in f.tables if t not in out and "t_s" in TABLE[t].column_names]
    return tuple(out)


class UnknownFormat(Exception):
    """Not a trace StormScope reads. ``trace`` is True when the file looks like one (a format recognised but
    not read, a trace in UTF-16): inside a dropped folder it then fails visibly instead of being skipped."""

    def __init__(self, message: str, trace: bool = False):
        super().__init__(message)
        self.trace = trace


def read_head(path: str, n: int = HEAD_BYTES) -> bytes:
    """The first bytes of a file, a UTF-8 byte-order mark dropped (Windows editors add one)."""
    with open(path, "rb") as fh:
        head = fh.read(n)
    return head[3:] if head.startswith(b"\xef\xbb\xbf") else head


def scores(head: bytes) -> list[tuple[float, Format]]:
    """Every format's score for ``head``, best first; equal scores go to the higher priority (each format has its
    own: the order never depends on the order the modules were imported)."""
    out = [(f.sniff(head), f) for f in formats()]
    out.sort(key=lambda sf: (sf[0], sf[1].priority), reverse=True)
    return out


def detect(path: str) -> Format:
    """The format of the file at ``path``; raises :class:`UnknownFormat` with a reason."""
    head = read_head(path)
    if not head.strip():
        raise UnknownFormat("the file is empty")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise UnknownFormat("UTF-16 text (saved by a Windows tool?): convert it to UTF-8 first, "
                            "e.g. iconv -f UTF-16 -t UTF-8", trace=True)
    if b"\x00" in head:
        # a binary file a format recognises only to refuse it (perfmon's .blg) gets that format's advice
        for f in formats():
            if getattr(f, "sniffs_binary", False) and f.sniff(head) >= MIN_SCORE:
                raise UnknownFormat(getattr(f, "unsupported", None) or "binary file (not a text trace)", trace=True)
        raise UnknownFormat("binary file (not a text trace)")
    if head.startswith(b"%PDF"):
        raise UnknownFormat("a PDF document, not a trace")
    ranked = scores(head)
    best_score, best = ranked[0]
    if best_score < MIN_SCORE:
        hint = f" (closest: {best.label}, {best_score:.0%})" if best_score > 0 else ""
        raise UnknownFormat("not a supported trace format" + hint)
    unsupported = getattr(best, "unsupported", None)  # recognised, but not read: say what to import instead
    if unsupported:
        raise UnknownFormat(unsupported, trace=True)
    return best


def by_id(fmt_id: str) -> Format:
    return FORMATS[fmt_id]
