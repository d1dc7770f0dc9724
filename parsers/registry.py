"""The format registry: picks a parser from a file's content, never its name.

Each format offers ``sniff(head) -> likelihood``; the best score wins, ties go
to the higher priority. A score under ``MIN_SCORE`` means "not a supported
format".
"""

from __future__ import annotations

from parsers.base import Format
from parsers.fio import JSON_FORMAT as FIO_JSON
from parsers.fio import LOG_FORMAT as FIO_LOG
from parsers.hdparm import FORMAT as HDPARM
from parsers.iomark import CSV_FORMAT as IOMARK_CSV
from parsers.iomark import MAPPED_FORMAT as IOMARK_MAPPED
from parsers.iometer import FORMAT as IOMETER_CSV
from parsers.iostat import FORMAT as IOSTAT_TEXT
from parsers.iostat_json import FORMAT as IOSTAT_JSON
from parsers.iozone import FORMAT as IOZONE
from parsers.vscsistats import CSV_FORMAT as VSCSI_CSV
from parsers.vscsistats import TEXT_FORMAT as VSCSI_TEXT

HEAD_BYTES = 4096
MIN_SCORE = 0.5

FORMATS: list[Format] = [IOSTAT_TEXT, IOSTAT_JSON,
                         VSCSI_CSV, FIO_JSON,
                         VSCSI_TEXT, FIO_LOG]  # recognised to be refused with a clear message
FORMATS += [IOZONE, HDPARM, IOMETER_CSV, IOMARK_CSV,
            IOMARK_MAPPED]  # never sniffed: chosen by `import --mapping NAME`


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
    out = [(f.sniff(head), f) for f in FORMATS]
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
    for f in FORMATS:
        if f.id == fmt_id:
            return f
    raise KeyError(fmt_id)
