"""The shared bulk path of the line-oriented formats (issue 31): a file read in chunks of whole lines, the records
of a chunk cut into fields and their values converted a whole column at a time (numpy, polars) instead of a line at
a time in Python.

A format says where its records are and what their columns are; this module
    * streams the file as chunks of whole lines (:class:`Chunks`: bounded memory; NUL bytes, absurdly long lines,
      the byte-order mark and the text encoding handled as :class:`parsers.base.TextLines` does, and its lines
      given back one by one for whatever the format walks line by line),
    * cuts records into fields: separated by one byte (:func:`read_fields`, ``sadf -d``'s ``;``) or by runs of
      blanks (:func:`blank_separated`, then :func:`read_fields`: iostat, sar),
    * converts value columns at once (:func:`plain_numbers`).

Each step answers None where a record needs more than the plain case (a byte that is not printable ASCII, a field
short or long, a value that is not a plain non-negative number): the format then reads those lines its careful way,
which also names the line that is wrong. So the bulk path stores exactly what the line path would, or nothing.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import numpy as np
import polars as pl

from parsers.base import MAX_LINE, JobState, ParseError, decode

CHUNK_BYTES = 4 << 20
SEP = 0x1F  # the unit separator: never in a record the bulk path accepts (printable ASCII only)
SEP_CHAR = chr(SEP)


class Chunks:
    """A text file as ``(number of its first line, bytes)`` chunks of whole lines (about ``size`` bytes each, line
    ends kept); :meth:`lines` gives a chunk's lines as :class:`parsers.base.TextLines` would (decoded, line ends
    dropped, ``encoding`` kept for ``runs.meta.encoding``). A NUL byte or a line longer than MAX_LINE is a
    ParseError naming its line and saying the file is not ``what``."""

    def __init__(self, path: str, what: str, state: JobState, size: int | None = None):
        self.path, self.what, self.state, self.size = path, what, state, size or CHUNK_BYTES
        self.encoding = "utf-8"

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        with open(self.path, "rb") as fh:
            fh.seek(0, 2)
            total = fh.tell() or 1
            fh.seek(0)
            line, tail, first = 1, b"", True
            while True:
                block = fh.read(self.size)
                data = tail + block
                if first and data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]
                first = False
                cut = data.rfind(b"\n") + 1 if block else len(data)
                chunk, tail = data[:cut], data[cut:]
                if len(tail) > MAX_LINE:
                    self._check(tail, line + chunk.count(b"\n"))
                    raise ParseError(f"a line of {len(tail):,} characters: not {self.what}",
                                     line + chunk.count(b"\n"))
                if chunk:
                    self._check(chunk, line)
                    yield line, chunk
                    line += chunk.count(b"\n")
                    self.state.progress(fh.tell() / total, "reading")
                if not block:
                    return

    def _check(self, chunk: bytes, line: int) -> None:
        at = chunk.find(b"\x00")
        if at >= 0:
            raise ParseError(f"binary data (NUL byte): not {self.what}", line + chunk.count(b"\n", 0, at))

    def lines(self, chunk: bytes, line: int) -> Iterator[tuple[int, str]]:
        """(line number, text) of ``chunk``, whose first line is number ``line``."""
        raws = chunk.split(b"\n")
        ended = raws[-1] == b""  # the chunk ends with a line break
        if ended:
            raws.pop()
        for n, raw in enumerate(raws, line):
            size = len(raw) + (1 if ended or n < line + len(raws) - 1 else 0)
            if size > MAX_LINE:
                raise ParseError(f"a line of {size:,} characters: not {self.what}", n)
            text, self.encoding = decode(raw.rstrip(b"\r\n"), self.encoding)
            yield n, text


_BLANK_LINE = re.compile(rb"^[ \t\r\f\v]*(?:\n|\Z)", re.M)


def blank_blocks(chunk: bytes, line: int, continued: bool) -> Iterator[tuple[int, bytes, bool]]:
    """``(number of its first line, whole lines, rows)`` parts of ``chunk``, a chunk of a report printed in blocks
    between blank lines (sar, iostat): blank lines and each block's first line (its header) with ``rows`` False,
    the rest of each block with ``rows`` True. ``continued``: the chunk goes on with the block the previous chunk
    ended in (see :func:`ends_in_block`)."""
    at = 0
    for m in _BLANK_LINE.finditer(chunk):
        if m.start() == m.end():
            continue  # the end of a chunk that ends with a line break
        yield from _block(chunk, at, m.start(), line, continued)
        line += chunk.count(b"\n", at, m.start())
        yield line, m.group(0), False
        line += 1
        at, continued = m.end(), False
    if at < len(chunk):
        yield from _block(chunk, at, len(chunk), line, continued)


def ends_in_block(chunk: bytes) -> bool:
    """Whether the next chunk goes on with a block of this one (its last line is not blank)."""
    last = chunk.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return bool(last.strip()) and chunk.endswith(b"\n") and not chunk.endswith(b"\n\n")


def _block(chunk: bytes, start: int, end: int, line: int, continued: bool) -> Iterator[tuple[int, bytes, bool]]:
    if start >= end:
        return
    if not continued:
        cut = chunk.find(b"\n", start, end)
        cut = end if cut < 0 else cut + 1
        yield line, chunk[start:cut], False
        start, line = cut, line + 1
    if start < end:
        yield line, chunk[start:end], True


def plain_rows(text: bytes, nrows: int | None = None) -> np.ndarray | None:
    """The line breaks of ``text`` (records, one a line, no final line break) when every record is plain: printable
    ASCII only, not empty, no blank or tab at either end, none longer than MAX_LINE (and ``nrows`` of them when
    given); else None."""
    a = np.frombuffer(text, dtype=np.uint8)
    if a.size == 0:
        return None
    nl = np.flatnonzero(a == 10)
    if (nrows is not None and nl.size != nrows - 1) or np.count_nonzero((a - 32) > 94) != nl.size:
        return None
    starts = np.concatenate(([0], nl + 1))
    ends = np.append(nl, a.size)
    if bool((ends <= starts).any()) or bool((a[ends - 1] == 32).any()) or int((ends - starts).max()) > MAX_LINE:
        return None
    return nl


def blank_separated(text: bytes, ncol: int, nrows: int, device_last: bool) -> bytes | None:
    """Records whose fields are separated by runs of blanks, with one :data:`SEP` byte between fields instead (for
    :func:`read_fields`); None when a record needs the careful path: see :func:`plain_rows`, a blank at a row's
    start (device first: ``-g`` groups, pasted rows), a row that has not ``ncol`` fields, or not ``nrows`` rows.

    Device first, each blank run becomes the separator and zeros ("sda   1.50  12.00" -> "sda|0001.50|0012.00"):
    a number read with leading zeros is the same number, and anything else stays no number. Device last (a
    leading blank run there), each blank run is cut to one separator instead."""
    a = np.frombuffer(text, dtype=np.uint8)
    nl = np.flatnonzero(a == 10)
    if nl.size != nrows - 1 or np.count_nonzero((a - 32) > 94) != nl.size:
        return None
    starts = np.concatenate(([0], nl + 1))
    ends = np.append(nl, a.size)
    if bool((ends <= starts).any()) or bool((a[ends - 1] == 32).any()):
        return None
    if not device_last and bool((a[starts] == 32).any()):
        return None
    blank = a == 32
    first = np.zeros(a.size, dtype=bool)
    np.greater(blank[1:], blank[:-1], out=first[1:])  # a blank after a non-blank
    first[starts] = False  # a device-last row's leading blanks separate nothing
    # the fields add up, and the first row has its count (the CSV reader takes it as the count of all rows);
    # that no row is short (so none long) is checked on reading
    if np.count_nonzero(first) != nrows * (ncol - 1) or np.count_nonzero(first[:ends[0]]) != ncol - 1:
        return None
    if device_last:
        b = a[~blank | first]
        b[b == 32] = SEP
    else:
        b = np.left_shift(blank.view(np.uint8), 4)  # a blank (0x20) | 0x10 is "0" (0x30); other bytes | 0 stay
        b |= a  # (issue 31: a bit or instead of np.where, the same bytes, ~1.9x faster)
        b[first] = SEP
    return b.tobytes()


def read_fields(data: bytes, ncol: int, nrows: int, sep: str = SEP_CHAR, check_count: bool = False
                ) -> pl.DataFrame | None:
    """Records of ``ncol`` fields separated by ``sep`` as a frame of text columns ``c0`` … (no quoting), or None
    when any record has another number of fields, or an empty field. ``check_count``: count the separators here
    (done already by :func:`blank_separated`)."""
    if check_count:
        a = np.frombuffer(data, dtype=np.uint8)
        if np.count_nonzero(a == ord(sep)) != nrows * (ncol - 1):
            return None
        cut = data.find(b"\n")
        if data.count(sep.encode(), 0, cut if cut >= 0 else len(data)) != ncol - 1:
            return None
    names = [f"c{i}" for i in range(ncol)]
    raw = pl.read_csv(io.BytesIO(data), has_header=False, separator=sep, quote_char=None, new_columns=names,
                      schema=dict.fromkeys(names, pl.String), truncate_ragged_lines=True)
    if raw.height != nrows or raw.get_column(names[-1]).null_count():
        return None  # a row short of fields (so, as the separators add up, another one long)
    return raw


def plain_numbers(raw: pl.DataFrame, columns: list[tuple[str, str, float]]) -> pl.DataFrame | None:
    """``(text column, name, factor)``: each text column read as a number times its factor, or None when any value
    is no plain non-negative finite number (empty, ``N/A``, a unit, a decimal comma …: the careful path reads or
    refuses it, naming the line)."""
    exprs = [pl.col(src).cast(pl.Float64, strict=False).alias(name) for src, name, _f in columns]
    out = raw.select(exprs)
    if columns and not out.select(pl.all_horizontal([pl.col(name).is_finite() & (pl.col(name) >= 0)
                                                     for _s, name, _f in columns]).fill_null(False).all()).item():
        return None
    return out.with_columns([pl.col(name) * factor for _s, name, factor in columns if factor != 1.0])
