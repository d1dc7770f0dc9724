"""Untrusted strings (file names, host names, device names from a customer's files) made safe to store and show.

One module, used by every output path: the command line (:func:`for_terminal`), the workspace (:func:`storable`),
and the window and PDF (:func:`for_display`). No Qt, no DuckDB.

* A file name that is not valid UTF-8 (bytes a Linux file system allows) cannot be stored or printed as is: its
  odd bytes are written ``\\xff``.
* A name with a line break could forge a line of ``import`` output (``FAILED …``); ANSI escapes would recolour or
  clear the terminal. Control characters are written as visible escapes (``\\n``, ``\\x1b``).
* Unicode bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE …) reverse the text after them on screen and in
  the PDF: they are written ``<U+202E>``.
* A 2-million-character host name made ``report`` run for minutes: shown text is cut at ``limit`` characters
  with "…", and :func:`for_display` says whether it cut.
"""

from __future__ import annotations

import re
from typing import Any

# Unicode's explicit directional formatting characters: embeddings, overrides, isolates and marks (UAX #9)
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
# C0 and C1 controls and DEL (line breaks, tabs and ESC among them)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
DISPLAY_LIMIT = 200  # characters of one name shown in the window or the PDF

ELLIPSIS = "…"


def storable(text: str) -> str:
    """``text`` as valid UTF-8: the undecodable bytes of a file name (``surrogateescape``) written ``\\xff``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte (a Windows file name)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _escape_control(m: re.Match[str]) -> str:
    c = m.group()
    return _NAMED.get(c, f"\\x{ord(c):02x}")


def for_terminal(text: object, keep_lines: bool = False) -> str:
    """An untrusted string for the command line: one line, no escape sequences, no reordering -- line breaks,
    control characters and bidi controls written as visible escapes, odd bytes as ``\\xff``. ``keep_lines``
    keeps line breaks and tabs (for whole blocks of output, see :class:`TerminalGuard`)."""
    s = storable(str(text))
    s = (_CONTROL_BUT_LINES if keep_lines else _CONTROL).sub(_escape_control, s)
    return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", s)


class TerminalGuard:
    """A text stream that passes what is written through :func:`for_terminal` (line breaks kept): the command
    line writes through it, so no escape sequence or bidi control from a file reaches the terminal, whichever
    command printed it. A name's line break must still be escaped where the name is printed (only there is it
    told apart from the output's own lines)."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(for_terminal(text, keep_lines=True))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def for_display(text: str | None, limit: int = DISPLAY_LIMIT) -> tuple[str, bool]:
    """An untrusted name for the window or the PDF, and whether it was cut: control and bidi characters made
    visible (as :func:`for_terminal`), then at most ``limit`` characters, the cut marked with "…"."""
    if text is None:
        return "", False
    if len(text) <= limit and text.isprintable():  # the usual name: no control, bidi or odd byte (none of them is
        return text, False  # printable) -- as it is, without the scans below (5,000 runs' rows: ~1 s of them)
    cut = len(text) > limit
    s = text[:limit] if cut else text  # cut first: a 2 M-character name is never scanned whole
    s = for_terminal(s)
    if len(s) > limit:
        s, cut = s[:limit], True
    return (s + ELLIPSIS if cut else s), cut



def shown(text: str | None, limit: int = DISPLAY_LIMIT) -> str:
    """An untrusted name as the window shows it (:func:`for_display`, without the "cut" flag): the one helper every
    widget text holding a name from a file or a workspace goes through."""
    return for_display(None if text is None else str(text), limit)[0]


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a control character (line break, tab, escape sequence) or a bidi control: what a name
    typed in the window may not hold."""
    return bool(_CONTROL.search(text) or _BIDI.search(text))


def shown_html(text: str | None, limit: int = DISPLAY_LIMIT) -> str:
    """:func:`shown` for a place that reads its text as HTML (a chart's title, legend and labels): ``<U+202E>`` and
    a name's own ``<b>`` are text, not tags."""
    import html

    return html.escape(shown(text, limit), quote=False)
